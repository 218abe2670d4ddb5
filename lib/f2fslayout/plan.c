// SPDX-License-Identifier: GPL-2.0-only
/*
 * plan.c - where the metadata of a new image goes.
 *
 * Mirrors fs/f2fs/verity.c: the tree starts at f2fs_verity_metadata_pos()
 * = round_up(i_size, 65536) (64 KiB so that the layout works with 64 KiB
 * pages), and f2fs_end_enable_verity() appends the descriptor right after
 * the tree at metadata_pos + merkle_tree_size.  What f2fs keeps in an
 * xattr we keep in a trailer that ends the image.
 */

#include <stdint.h>

#include "f2fslayout_private.h"

int f2fslayout_metadata_pos(uint64_t data_size, uint64_t *pos)
{
	if (!round_up_checked(data_size, F2FSLAYOUT_METADATA_ALIGN, pos))
		return F2FSLAYOUT_E_DATA_SIZE_TOO_LARGE;
	return 0;
}

/*
 * The trailer is the last 64 bytes of a 4 KiB-aligned image, so that the
 * image stays a whole number of 4 KiB pages; the gap between descriptor
 * and trailer is zero padding.
 */
static int plan_trailer(struct f2fslayout_layout *l)
{
	uint64_t desc_end, trailer_end;

	if (__builtin_add_overflow(l->desc_pos, l->desc_size, &desc_end) ||
	    __builtin_add_overflow(desc_end, F2FSLAYOUT_TRAILER_SIZE,
				   &trailer_end) ||
	    !round_up_checked(trailer_end, F2FSLAYOUT_IMAGE_ALIGN,
			      &l->image_size) ||
	    l->image_size > INT64_MAX)	/* must fit in off_t */
		return F2FSLAYOUT_E_IMAGE_TOO_LARGE;
	l->trailer_pos = l->image_size - F2FSLAYOUT_TRAILER_SIZE;
	return 0;
}

int f2fslayout_plan(uint64_t data_size, uint64_t tree_size,
		    uint32_t desc_size, struct f2fslayout_layout *l)
{
	int err;

	/* The same bounds fs/verity/open.c puts on a descriptor it reads. */
	if (desc_size < MERKLE_DESCRIPTOR_SIZE)
		return F2FSLAYOUT_E_DESC_TOO_SMALL;
	if (desc_size > MERKLE_MAX_DESCRIPTOR_SIZE)
		return F2FSLAYOUT_E_DESC_TOO_LARGE;

	l->data_size = data_size;
	l->tree_size = tree_size;
	l->desc_size = desc_size;
	err = f2fslayout_metadata_pos(data_size, &l->tree_pos);
	if (err)
		return err;
	if (__builtin_add_overflow(l->tree_pos, tree_size, &l->desc_pos))
		return F2FSLAYOUT_E_IMAGE_TOO_LARGE;
	return plan_trailer(l);
}
