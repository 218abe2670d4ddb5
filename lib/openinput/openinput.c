// SPDX-License-Identifier: GPL-2.0-only
/* Open a file to read without waiting for a FIFO's writer (openinput.h). */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "openinput.h"

int open_input(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC | O_NONBLOCK), fl, err;

	if (fd < 0)
		return -errno;
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0 && fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == 0)
		return fd;
	err = -errno;
	close(fd);
	return err;
}
