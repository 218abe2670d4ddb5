// SPDX-License-Identifier: GPL-2.0-only
/*
 * tree_io.c - read and write tree bytes in the image.
 *
 * Tree offset off lives at image offset tree_pos + off, as in
 * f2fs_write_merkle_tree_block() and f2fs_read_merkle_tree_page(), which
 * add f2fs_verity_metadata_pos() to the tree offset.
 */

#include "f2fslayout_private.h"

/* Map [off, off + len) of the tree to an image offset, bounds checked. */
static int tree_to_image(const struct f2fslayout_tree_io *io, size_t len,
			 uint64_t off, uint64_t *pos)
{
	uint64_t end, image_end;

	if (__builtin_add_overflow(off, len, &end) || end > io->tree_size ||
	    __builtin_add_overflow(io->tree_pos, end, &image_end) ||
	    image_end > INT64_MAX)
		return F2FSLAYOUT_E_TREE_RANGE;
	*pos = io->tree_pos + off;
	return 0;
}

int f2fslayout_tree_read(void *ctx, void *buf, size_t len, uint64_t off)
{
	const struct f2fslayout_tree_io *io = ctx;
	uint64_t pos;
	int err = tree_to_image(io, len, off, &pos);

	return err ? err : f2fslayout_pread_full(io->fd, buf, len, pos);
}

int f2fslayout_tree_write(void *ctx, const void *buf, size_t len,
			  uint64_t off)
{
	const struct f2fslayout_tree_io *io = ctx;
	uint64_t pos;
	int err = tree_to_image(io, len, off, &pos);

	return err ? err : f2fslayout_pwrite_full(io->fd, buf, len, pos);
}
