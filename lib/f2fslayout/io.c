// SPDX-License-Identifier: GPL-2.0-only
/*
 * io.c - whole transfers and image sizes, shared by read, probe and write.
 */

#include <errno.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "f2fslayout_private.h"

/* off fits in off_t and off + len does not wrap: checked by callers. */
int f2fslayout_pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return F2FSLAYOUT_E_TRUNCATED;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

int f2fslayout_read_fd(void *ctx, void *buf, size_t len, uint64_t off)
{
	return f2fslayout_pread_full(*(const int *)ctx, buf, len, off);
}

int f2fslayout_pwrite_full(int fd, const void *buf, size_t len,
			   uint64_t off)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		/* pwrite() returns 0 only for len 0; guard the loop anyway. */
		if (n == 0)
			return -EIO;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

int f2fslayout_image_size(int fd, uint64_t *size)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (S_ISREG(st.st_mode)) {
		*size = (uint64_t)st.st_size;
		return 0;
	}
	if (S_ISBLK(st.st_mode))
		return ioctl(fd, BLKGETSIZE64, size) ? -errno : 0;
	return F2FSLAYOUT_E_BAD_FILE_TYPE;
}

int f2fslayout_read_trailer(int fd, uint8_t buf[F2FSLAYOUT_TRAILER_SIZE],
			    uint64_t *image_size)
{
	int err = f2fslayout_image_size(fd, image_size);

	if (err)
		return err;
	if (*image_size < F2FSLAYOUT_TRAILER_SIZE)
		return F2FSLAYOUT_E_IMAGE_TOO_SMALL;
	return f2fslayout_pread_full(fd, buf, F2FSLAYOUT_TRAILER_SIZE,
				     *image_size - F2FSLAYOUT_TRAILER_SIZE);
}
