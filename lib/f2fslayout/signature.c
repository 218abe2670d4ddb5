// SPDX-License-Identifier: GPL-2.0-only
/*
 * signature.c - store a builtin signature with the descriptor of a sealed
 * image, as the kernel stores the one given to FS_IOC_ENABLE_VERITY:
 * fs/verity/enable.c: enable_verity() appends arg->sig_size bytes of
 * signature to the descriptor and sets desc->sig_size, and f2fs writes
 * descriptor and signature together at f2fs_verity_metadata_pos() +
 * merkle_tree_size, with a location record whose size covers both
 * (f2fs_end_enable_verity()).
 *
 * The file digest does not change (it hashes the descriptor with sig_size
 * 0), nor do the data and the tree: only the descriptor's sig_size, the
 * bytes after it, and the trailer are rewritten, in the order of
 * f2fslayout_write_metadata().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "f2fslayout_private.h"

int f2fslayout_write_signature(int fd, const struct f2fslayout_image *img,
			       const void *sig, uint32_t sig_size)
{
	size_t desc_size = (size_t)MERKLE_DESCRIPTOR_SIZE + sig_size;
	struct f2fslayout_layout l;
	uint8_t *desc;
	int err;

	/* Checked before the sum can wrap: 16384 bytes at most in all. */
	if (sig_size > MERKLE_MAX_DESCRIPTOR_SIZE - MERKLE_DESCRIPTOR_SIZE)
		return F2FSLAYOUT_E_DESC_TOO_LARGE;
	err = f2fslayout_plan(img->layout.data_size, img->layout.tree_size,
			      (uint32_t)desc_size, &l);
	if (err)
		return err;
	desc = malloc(desc_size);
	if (!desc)
		return -ENOMEM;
	memcpy(desc, img->desc, MERKLE_DESCRIPTOR_SIZE);
	put_le32(desc + offsetof(struct merkle_descriptor, sig_size), sig_size);
	memcpy(desc + MERKLE_DESCRIPTOR_SIZE, sig, sig_size);
	err = f2fslayout_write_metadata(fd, &l, desc);
	free(desc);
	return err;
}
