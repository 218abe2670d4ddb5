// SPDX-License-Identifier: GPL-2.0-only
/*
 * runfile.c - files of the run directory, created and replaced without
 * following what anyone else put there (runfile.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runfile.h"

FILE *vublk_file_begin(const char *path, char *tmp, size_t tmp_len)
{
	FILE *f;
	int fd;

	if (snprintf(tmp, tmp_len, "%s.XXXXXX", path) >= (int)tmp_len) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	/* mkostemp() creates with O_EXCL: never through a symlink. */
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fchmod(fd, VUBLK_RUN_FILE_MODE) == 0) {
		f = fdopen(fd, "w");
		if (f)
			return f;
	}
	close(fd);
	unlink(tmp);
	return NULL;
}

int vublk_file_commit(FILE *f, const char *tmp, const char *path)
{
	bool written = !ferror(f);
	int err = 0;

	if (fclose(f) != 0)
		err = -errno;
	else if (!written)
		err = -EIO;
	else if (rename(tmp, path) != 0)
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

int vublk_file_append(const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT)
		fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_EXCL |
			  O_CLOEXEC, VUBLK_RUN_FILE_MODE);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, VUBLK_RUN_FILE_MODE) < 0) {
		close(fd);
		return -errno;
	}
	return fd;
}
