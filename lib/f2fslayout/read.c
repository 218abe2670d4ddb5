// SPDX-License-Identifier: GPL-2.0-only
/*
 * read.c - read and validate the verity metadata of an existing image.
 *
 * The sequence of fsverity_get_descriptor() (fs/verity/open.c) over
 * f2fs_get_verity_descriptor() (fs/f2fs/verity.c): find and check the
 * location (here: the trailer), read exactly that many bytes at that
 * position, then validate the descriptor.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "f2fslayout_private.h"

/* No trailer: not sealed, or sealed and the trailer lost (probe.c). */
static int read_no_trailer(f2fslayout_read_fn read_fn, void *ctx,
			   uint64_t image_size, struct f2fslayout_image *img)
{
	int lost = f2fslayout_find_lone_descriptor(read_fn, ctx, image_size,
						   &img->layout.desc_pos,
						   &img->layout.data_size);

	if (lost < 0)
		return lost;
	return lost ? F2FSLAYOUT_E_TRAILER_MISSING : F2FSLAYOUT_E_NO_TRAILER;
}

int f2fslayout_read_from(f2fslayout_read_fn read_fn, void *ctx,
			 uint64_t image_size, struct f2fslayout_image *img)
{
	uint8_t trailer[F2FSLAYOUT_TRAILER_SIZE];
	struct f2fslayout_layout l;
	uint8_t *desc;
	int err;

	memset(img, 0, sizeof(*img));
	if (image_size < F2FSLAYOUT_TRAILER_SIZE)
		return F2FSLAYOUT_E_IMAGE_TOO_SMALL;
	err = read_fn(ctx, trailer, F2FSLAYOUT_TRAILER_SIZE,
		   image_size - F2FSLAYOUT_TRAILER_SIZE);
	if (!err)
		err = f2fslayout_trailer_validate(trailer, image_size, &l);
	if (err == F2FSLAYOUT_E_NO_TRAILER)
		return read_no_trailer(read_fn, ctx, image_size, img);
	if (err)
		return err;

	desc = malloc(l.desc_size);
	if (!desc)
		return -ENOMEM;
	err = read_fn(ctx, desc, l.desc_size, l.desc_pos);
	if (!err)
		err = f2fslayout_check_descriptor(&l, desc, img);
	if (err) {
		free(desc);
		return err;
	}
	img->desc = desc;
	return 0;
}

int f2fslayout_read(int fd, struct f2fslayout_image *img)
{
	uint64_t image_size;
	int err = f2fslayout_image_size(fd, &image_size);

	if (err) {
		memset(img, 0, sizeof(*img));
		return err;
	}
	return f2fslayout_read_from(f2fslayout_read_fd, &fd, image_size, img);
}

void f2fslayout_image_release(struct f2fslayout_image *img)
{
	free(img->desc);
	img->desc = NULL;
}
