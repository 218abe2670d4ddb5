// SPDX-License-Identifier: GPL-2.0-only
/*
 * check_descriptor.c - check the descriptor a trailer points at.
 *
 * fs/verity/open.c: validate_fsverity_descriptor() checks version,
 * reserved bytes, salt size, sig_size and that the descriptor's data_size
 * equals i_size; fsverity_init_merkle_tree_params() then checks the hash
 * algorithm and block size and derives the tree's shape.  lib/merkle does
 * the descriptor checks; here the trailer's data_size plays i_size, and
 * the tree, which f2fs reads from f2fs_verity_metadata_pos() onwards
 * (f2fs_read_merkle_tree_page()), must fit before the descriptor.
 */

#include <string.h>

#include "f2fslayout_private.h"

int f2fslayout_check_descriptor(const struct f2fslayout_layout *l,
				const void *desc, struct f2fslayout_image *img)
{
	uint64_t tree_end;
	int err;

	memset(img, 0, sizeof(*img));
	img->layout = *l;
	err = merkle_descriptor_parse(desc, l->desc_size, &img->params,
				      img->root_hash, &img->sig_size);
	if (err)
		return err;
	if (img->params.data_size != l->data_size)
		return F2FSLAYOUT_E_DATA_SIZE_MISMATCH;
	err = merkle_geometry_init(&img->geometry, &img->params);
	if (err)
		return err;
	if (__builtin_add_overflow(l->tree_pos, img->geometry.tree_size,
				   &tree_end) ||
	    tree_end > l->desc_pos)
		return F2FSLAYOUT_E_TREE_OVERLAPS_DESC;
	img->layout.tree_size = img->geometry.tree_size;
	return 0;
}
