// SPDX-License-Identifier: GPL-2.0-only
/*
 * file.c - open a key, certificate or signature file, and read one whole
 * with a bound.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "openinput.h"
#include "sig_private.h"

/* Read up to cap bytes; *len is what there was (cap + 1 means more). */
static int read_bounded(int fd, uint8_t *buf, size_t cap, size_t *len)
{
	size_t done = 0;
	ssize_t n;

	while (done < cap) {
		n = read(fd, buf + done, cap - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	*len = done;
	return 0;
}

int sig_read_whole(const char *path, size_t max, int too_large,
		   uint8_t **buf, size_t *len)
{
	/* One byte more than allowed tells "too large" from "exactly max". */
	uint8_t *b = malloc(max + 1);
	int fd, err;

	if (!b)
		return -ENOMEM;
	fd = open_input(path, O_RDONLY);
	if (fd < 0) {
		free(b);
		return fd;
	}
	err = read_bounded(fd, b, max + 1, len);
	close(fd);
	if (!err && *len > max)
		err = too_large;
	if (err) {
		free(b);
		return err;
	}
	*buf = b;
	return 0;
}

int sig_read_file(const char *path, uint8_t **buf, size_t *len)
{
	int err = sig_read_whole(path, SIG_MAX_SIZE, SIG_E_TOO_LARGE, buf,
				 len);

	/* Said as such: parsed, nothing reads as "malformed". */
	if (!err && !*len) {
		free(*buf);
		*buf = NULL;
		err = SIG_E_EMPTY;
	}
	return err;
}
