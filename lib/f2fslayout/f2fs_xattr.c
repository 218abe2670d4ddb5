// SPDX-License-Identifier: GPL-2.0-only
/*
 * f2fs_xattr.c - find one extended attribute of an inode.
 *
 * lookup_all_xattrs() (fs/f2fs/xattr.c) sees an inode's xattrs as one
 * buffer: its inline xattr area (the last inline_xattr_size words of
 * i_addr, when F2FS_INLINE_XATTR is set) followed by the first
 * VALID_XATTR_BLOCK_SIZE bytes of its xattr node (i_xattr_nid, node
 * offset XATTR_NODE_OFFSET), a 24-byte header first, then entries
 * (index, name length, le16 value size, name, value; each padded to 4
 * bytes) until one whose first word is zero.  An entry reaching past the
 * buffer ends the search as "corrupted" (__find_xattr()).  Searching the
 * joined buffer once finds what the kernel's inline-then-node search
 * finds: the node part continues the same entry list.
 */

#include <errno.h>
#include <string.h>

#include "f2fs_private.h"

#define XATTR_BUFFER_SIZE (MAX_INLINE_XATTR_ADDRS * 4 + VALID_XATTR_BLOCK_SIZE)

/* ENTRY_SIZE(): header, name and value, rounded up to 4 bytes. */
static size_t entry_size(const uint8_t *e)
{
	return (XATTR_ENTRY_HEADER_SIZE + e[1] + get_le16(e + 2) + 3) & ~(size_t)3;
}

/* Join the inline area and the xattr node; returns the bytes joined. */
static int join_xattrs(const struct f2fslayout_fs *fs,
		       const struct f2fs_inode_info *ii, uint8_t *buf,
		       size_t *len)
{
	uint8_t node[F2FS_BLKSIZE];
	size_t inline_size = 0;
	int err;

	if (ii->inline_flags & F2FS_INLINE_XATTR) {
		inline_size = 4 * (size_t)ii->inline_xattr_words;
		memcpy(buf, ii->block + I_NID - inline_size, inline_size);
	}
	*len = inline_size;
	if (!ii->xattr_nid)
		return 0;
	err = f2fs_read_node(fs, ii->xattr_nid, ii->ino, XATTR_NODE_OFFSET,
			     node, NULL);
	if (err)
		return err;
	memcpy(buf + inline_size, node, VALID_XATTR_BLOCK_SIZE);
	*len += VALID_XATTR_BLOCK_SIZE;
	return 0;
}

int f2fs_get_xattr(const struct f2fslayout_fs *fs,
		   const struct f2fs_inode_info *ii, unsigned index,
		   const char *name, void *value, size_t size, size_t *len)
{
	/* + 4: XATTR_PADDING_SIZE, zeroes after the joined areas. */
	uint8_t buf[XATTR_BUFFER_SIZE + 4];
	size_t name_len = strlen(name), end, pos;
	const uint8_t *e;
	int err;

	err = join_xattrs(fs, ii, buf, &end);
	if (err)
		return err;
	if (end < XATTR_HEADER_SIZE)
		return -ENODATA;
	memset(buf + end, 0, 4);
	/* pos <= end throughout: each step stays within the areas. */
	for (pos = XATTR_HEADER_SIZE;; pos += entry_size(e)) {
		e = buf + pos;
		/* IS_XATTR_LAST_ENTRY() comes first, as in list_for_each_xattr. */
		if (get_le32(e) == 0)
			return -ENODATA;
		if (end - pos < 4 || entry_size(e) > end - pos)
			return F2FSLAYOUT_E_F2FS_XATTR_INVALID;
		if (e[0] == index && e[1] == name_len &&
		    memcmp(e + XATTR_ENTRY_HEADER_SIZE, name, name_len) == 0)
			break;
	}
	*len = get_le16(e + 2);
	memcpy(value, e + XATTR_ENTRY_HEADER_SIZE + name_len,
	       *len < size ? *len : size);
	return 0;
}
