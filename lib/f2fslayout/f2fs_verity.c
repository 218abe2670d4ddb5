// SPDX-License-Identifier: GPL-2.0-only
/*
 * f2fs_verity.c - the fs-verity descriptor of a verity file.
 *
 * f2fs_get_verity_descriptor() (fs/f2fs/verity.c): the xattr of index
 * F2FS_XATTR_INDEX_VERITY named "v" holds struct
 * fsverity_descriptor_location (le32 version = F2FS_VERIFY_VER, le32
 * size, le64 pos); anything but 16 bytes of version 1 is "unknown verity
 * xattr format"; pos + size must not wrap nor pass s_maxbytes, and pos
 * must not lie before f2fs_verity_metadata_pos() = round_up(i_size,
 * 64 KiB).  fsverity_get_descriptor() (fs/verity/open.c) then refuses
 * sizes outside 256..FS_VERITY_MAX_DESCRIPTOR_SIZE before reading, and
 * validates what it read; f2fslayout_check_descriptor() does that here.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "f2fs_private.h"

int f2fs_verity_location(const struct f2fslayout_fs *fs,
			 const struct f2fs_inode_info *ii, uint64_t *pos,
			 uint32_t *size)
{
	uint8_t loc[F2FS_VERITY_LOCATION_SIZE];
	uint64_t metadata_pos, end;
	size_t len;
	int err;

	err = f2fs_get_xattr(fs, ii, F2FS_XATTR_INDEX_VERITY,
			     F2FS_XATTR_NAME_VERITY, loc, sizeof(loc), &len);
	if (err == -ENODATA)
		return F2FSLAYOUT_E_F2FS_NO_VERITY_XATTR;
	if (err)
		return err;
	if (len != sizeof(loc) || get_le32(loc) != F2FS_VERIFY_VER)
		return F2FSLAYOUT_E_F2FS_VERITY_XATTR;
	*size = get_le32(loc + 4);
	*pos = get_le64(loc + 8);
	/* The file's largest size stands in for s_maxbytes. */
	if (!round_up_checked(ii->size, F2FSLAYOUT_METADATA_ALIGN,
			      &metadata_pos) ||
	    __builtin_add_overflow(*pos, *size, &end) ||
	    *pos < metadata_pos ||
	    end > f2fs_max_file_blocks(ii) * F2FS_BLKSIZE ||
	    *size < MERKLE_DESCRIPTOR_SIZE ||
	    *size > MERKLE_MAX_DESCRIPTOR_SIZE)
		return F2FSLAYOUT_E_F2FS_VERITY_LOCATION;
	return 0;
}

/* f2fslayout_check_descriptor()'s codes name the trailer; say i_size. */
static int f2fs_error(int err)
{
	if (err == F2FSLAYOUT_E_DATA_SIZE_MISMATCH)
		return F2FSLAYOUT_E_F2FS_VERITY_DATA_SIZE;
	if (err == F2FSLAYOUT_E_TREE_OVERLAPS_DESC)
		return F2FSLAYOUT_E_F2FS_VERITY_TREE;
	return err;
}

int f2fslayout_file_verity(struct f2fslayout_fs *fs,
			   const struct f2fslayout_file *f,
			   struct f2fslayout_image *img)
{
	struct f2fs_inode_info *ii;
	struct f2fslayout_layout l = {
		.data_size = f->size,
		.trailer_pos = f->mapped_size,
		.image_size = f->mapped_size,
	};
	uint8_t *desc = NULL;
	int err;

	memset(img, 0, sizeof(*img));
	if (!(f->flags & F2FSLAYOUT_FILE_VERITY))
		return F2FSLAYOUT_E_F2FS_NOT_VERITY;
	/* f2fs_begin_enable_verity() converts inline data first. */
	if (f->flags & F2FSLAYOUT_FILE_INLINE_DATA)
		return F2FSLAYOUT_E_F2FS_INLINE_VERITY;
	ii = malloc(sizeof(*ii));
	if (!ii)
		return -ENOMEM;
	err = f2fs_read_inode(fs, f->ino, ii);
	if (!err)
		err = f2fs_verity_location(fs, ii, &l.desc_pos, &l.desc_size);
	free(ii);
	if (!err)
		err = f2fslayout_metadata_pos(l.data_size, &l.tree_pos);
	if (!err) {
		desc = malloc(l.desc_size);
		err = desc ? f2fslayout_file_pread(fs, f, desc, l.desc_size,
						   l.desc_pos)
			   : -ENOMEM;
	}
	if (!err)
		err = f2fs_error(f2fslayout_check_descriptor(&l, desc, img));
	if (err) {
		free(desc);
		memset(img, 0, sizeof(*img));
		return err;
	}
	img->desc = desc;
	return 0;
}
