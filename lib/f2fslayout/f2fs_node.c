// SPDX-License-Identifier: GPL-2.0-only
/*
 * f2fs_node.c - node id to node block, checked.
 *
 * f2fs_get_node_info() (fs/f2fs/node.c) looks a node id up in the NAT
 * journal of the current checkpoint first, then in the current copy of
 * its NAT block: NAT block i has two copies, one segment apart, and bit i
 * of the checkpoint's NAT bitmap (MSB first, f2fs_test_bit()) says which
 * one is current (current_nat_addr(), fs/f2fs/node.h).  The entry gives
 * the node's block and the inode it belongs to.  The node block's footer
 * must name the same node id and inode (sanity_check_node_footer()), and
 * here also the offset the caller expects in the inode's node tree, so
 * that a corrupt NAT or node pointer cannot splice another file's blocks
 * in.
 */

#include "f2fs_private.h"

#define BLOCKS_PER_SEG (1u << F2FS_LOG_BLOCKS_PER_SEG)

/* f2fs_test_bit(): bit nr, most significant bit of each byte first. */
static bool test_bit_msb(uint32_t nr, const uint8_t *bitmap)
{
	return bitmap[nr >> 3] & (0x80 >> (nr & 7));
}

static bool journal_lookup(const struct f2fslayout_fs *fs, uint32_t nid,
			   const uint8_t **entry)
{
	for (unsigned i = 0; i < fs->nat_journal_entries; i++) {
		const uint8_t *j = fs->nat_journal + i * NAT_JOURNAL_ENTRY_SIZE;

		if (get_le32(j) == nid) {
			*entry = j + 4;
			return true;
		}
	}
	return false;
}

/* The NAT entry of nid (9 bytes: version, ino, block_addr). */
static int nat_lookup(const struct f2fslayout_fs *fs, uint32_t nid,
		      uint32_t *ino, uint32_t *blkaddr)
{
	uint8_t block[F2FS_BLKSIZE];
	const uint8_t *entry;
	uint32_t block_off, nat_blk;
	int err;

	/* is_invalid_nid(): below the root inode or past the NAT. */
	if (nid < F2FS_RESERVED_NODE_NUM || nid >= fs->max_nid)
		return F2FSLAYOUT_E_F2FS_NID_RANGE;
	if (!journal_lookup(fs, nid, &entry)) {
		block_off = nid / NAT_ENTRY_PER_BLOCK;
		if (block_off / 8 >= fs->nat_bitmap_size)
			return F2FSLAYOUT_E_F2FS_NID_RANGE;
		nat_blk = fs->nat_blkaddr + (block_off << 1) -
			  (block_off & (BLOCKS_PER_SEG - 1));
		if (test_bit_msb(block_off, fs->nat_bitmap))
			nat_blk += BLOCKS_PER_SEG;
		err = f2fs_read_block(fs, nat_blk, block);
		if (err)
			return err;
		entry = block + (nid % NAT_ENTRY_PER_BLOCK) * NAT_ENTRY_SIZE;
	}
	*ino = get_le32(entry + NAT_ENTRY_INO);
	*blkaddr = get_le32(entry + NAT_ENTRY_BLOCK_ADDR);
	return 0;
}

int f2fs_read_node(const struct f2fslayout_fs *fs, uint32_t nid,
		   uint32_t ino, uint32_t ofs, uint8_t *block,
		   uint32_t *block_addr)
{
	uint32_t nat_ino, blkaddr;
	int err;

	err = nat_lookup(fs, nid, &nat_ino, &blkaddr);
	if (err)
		return err;
	/* NULL_ADDR: freed; NEW_ADDR: never written; else in the main area. */
	if (nat_ino != ino || !f2fs_valid_main_blkaddr(fs, blkaddr))
		return F2FSLAYOUT_E_F2FS_NAT_ENTRY;
	err = f2fs_read_block(fs, blkaddr, block);
	if (err)
		return err;
	if (get_le32(block + NODE_FOOTER_NID) != nid ||
	    get_le32(block + NODE_FOOTER_INO) != ino ||
	    get_le32(block + NODE_FOOTER_FLAG) >> OFFSET_BIT_SHIFT != ofs)
		return F2FSLAYOUT_E_F2FS_NODE_FOOTER;
	if (block_addr)
		*block_addr = blkaddr;
	return 0;
}
