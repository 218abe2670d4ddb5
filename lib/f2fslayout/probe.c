// SPDX-License-Identifier: GPL-2.0-only
/*
 * probe.c - does an image already end with vublk verity metadata?
 *
 * Only the magic counts: a damaged trailer still means the end of the
 * file is metadata, not data, and formatting over it would hash the old
 * tree as if it were data.
 */

#include <string.h>

#include "f2fslayout_private.h"

int f2fslayout_probe(int fd)
{
	uint8_t trailer[F2FSLAYOUT_TRAILER_SIZE];
	uint64_t image_size;
	int err = f2fslayout_read_trailer(fd, trailer, &image_size);

	if (err == F2FSLAYOUT_E_IMAGE_TOO_SMALL)
		return 0;
	if (err)
		return err;
	return !memcmp(trailer + TRAILER_OFF_MAGIC, F2FSLAYOUT_MAGIC,
		       TRAILER_MAGIC_SIZE);
}
