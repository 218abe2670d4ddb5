// SPDX-License-Identifier: GPL-2.0-only
/*
 * f2fs_inode.c - read an inode and check it as the kernel does.
 *
 * do_read_inode() and sanity_check_inode() (fs/f2fs/inode.c): the inode
 * is node ino of inode ino at node offset 0; with F2FS_EXTRA_ATTR its
 * first i_extra_isize bytes of i_addr hold extra fields (at most
 * F2FS_TOTAL_EXTRA_ATTR_SIZE, a multiple of 4), and the last
 * i_inline_xattr_size words of i_addr are kept for inline xattrs (with
 * the flexible_inline_xattr feature the inode says how many, else 50 when
 * it has inline xattrs or inline dentries).  What is left are its data
 * block addresses (addrs_per_inode()), or its inline data or dentries
 * after one reserved word (inline_data_addr()).
 */

#include <string.h>

#include "f2fs_private.h"

/* XATTR header in words: the least a flexible inline xattr area holds. */
#define MIN_INLINE_XATTR_ADDRS (XATTR_HEADER_SIZE / 4)

/* i_extra_isize and i_inline_xattr_size, as do_read_inode() reads them. */
static int read_extra_sizes(const struct f2fslayout_fs *fs,
			    struct f2fs_inode_info *ii)
{
	const uint8_t *b = ii->block;
	bool extra = ii->inline_flags & F2FS_EXTRA_ATTR;
	uint32_t features = fs->info.features;
	unsigned extra_isize = extra ? get_le16(b + I_EXTRA_ISIZE) : 0;

	if (extra && !(features & F2FS_FEATURE_EXTRA_ATTR))
		return F2FSLAYOUT_E_F2FS_INODE_INVALID;
	if (extra_isize > F2FS_TOTAL_EXTRA_ATTR_SIZE || extra_isize % 4)
		return F2FSLAYOUT_E_F2FS_INODE_INVALID;
	ii->extra_words = extra_isize / 4;

	if (features & F2FS_FEATURE_FLEXIBLE_INLINE_XATTR) {
		if (!extra)
			return F2FSLAYOUT_E_F2FS_INODE_INVALID;
		ii->inline_xattr_words = get_le16(b + I_INLINE_XATTR_SIZE);
		if (ii->inline_xattr_words > MAX_INLINE_XATTR_ADDRS ||
		    (ii->inline_flags & F2FS_INLINE_XATTR &&
		     ii->inline_xattr_words < MIN_INLINE_XATTR_ADDRS))
			return F2FSLAYOUT_E_F2FS_INODE_INVALID;
	} else if (ii->inline_flags & (F2FS_INLINE_XATTR | F2FS_INLINE_DENTRY)) {
		ii->inline_xattr_words = DEFAULT_INLINE_XATTR_ADDRS;
	} else {
		ii->inline_xattr_words = 0;
	}
	ii->addrs_per_inode = DEF_ADDRS_PER_INODE - ii->extra_words -
			      ii->inline_xattr_words;
	return 0;
}

/* The rest of sanity_check_inode() that matters to a reader. */
static bool inode_sane(const struct f2fslayout_fs *fs,
		       const struct f2fs_inode_info *ii)
{
	bool inline_data = ii->inline_flags & F2FS_INLINE_DATA;
	bool inline_dentry = ii->inline_flags & F2FS_INLINE_DENTRY;
	bool symlink = (ii->mode & 0170000) == 0120000;

	return get_le64(ii->block + I_BLOCKS) != 0 &&
	       ii->xattr_nid != ii->ino &&
	       (!inline_data || is_reg_mode(ii->mode) || symlink) &&
	       (!inline_dentry || is_dir_mode(ii->mode)) &&
	       !(inline_data && inline_dentry) &&
	       (!(ii->flags & F2FS_CASEFOLD_FL) ||
		fs->info.features & F2FS_FEATURE_CASEFOLD);
}

int f2fs_read_inode(const struct f2fslayout_fs *fs, uint32_t ino,
		    struct f2fs_inode_info *ii)
{
	const uint8_t *b = ii->block;
	int err;

	err = f2fs_read_node(fs, ino, ino, 0, ii->block, &ii->node_blkaddr);
	if (err)
		return err;
	ii->ino = ino;
	ii->mode = get_le16(b + I_MODE);
	ii->advise = b[I_ADVISE];
	ii->inline_flags = b[I_INLINE];
	ii->flags = get_le32(b + I_FLAGS);
	ii->size = get_le64(b + I_SIZE);
	ii->xattr_nid = get_le32(b + I_XATTR_NID);
	ii->current_depth = get_le32(b + I_CURRENT_DEPTH);
	ii->dir_level = b[I_DIR_LEVEL];
	for (unsigned i = 0; i < DEF_NIDS_PER_INODE; i++)
		ii->nids[i] = get_le32(b + I_NID + 4 * i);
	err = read_extra_sizes(fs, ii);
	if (err)
		return err;
	return inode_sane(fs, ii) ? 0 : F2FSLAYOUT_E_F2FS_INODE_INVALID;
}

unsigned f2fs_inline_data_offset(const struct f2fs_inode_info *ii)
{
	return I_ADDR + 4 * (ii->extra_words + DEF_INLINE_RESERVED_SIZE);
}

unsigned f2fs_max_inline_data(const struct f2fs_inode_info *ii)
{
	return 4 * (ii->addrs_per_inode - DEF_INLINE_RESERVED_SIZE);
}

/* max_file_blocks(): the inode, 2 direct, 2 indirect, 1 double indirect. */
uint64_t f2fs_max_file_blocks(const struct f2fs_inode_info *ii)
{
	uint64_t leaf = ADDRS_PER_BLOCK;

	return ii->addrs_per_inode + 2 * leaf + 2 * leaf * NIDS_PER_BLOCK +
	       leaf * NIDS_PER_BLOCK * NIDS_PER_BLOCK;
}
