// SPDX-License-Identifier: GPL-2.0-only
/*
 * f2fs_checkpoint.c - the current checkpoint pack, and from it the NAT
 * bitmap and the NAT journal.
 *
 * fs/f2fs/checkpoint.c: f2fs_get_valid_checkpoint() reads the two packs
 * (at cp_blkaddr and one segment later); a pack is valid when its first
 * and last blocks both pass their checksum and carry the same version
 * (validate_checkpoint()), and the newer valid pack wins (ver_after()).
 * cp_payload more blocks follow the first one and extend it in memory.
 * f2fs_sanity_check_ckpt() (fs/f2fs/super.c) then checks the fields; the
 * ones this parser relies on are checked here the same way.
 *
 * The NAT bitmap says, per NAT block, which of its two copies is current
 * (__bitmap_ptr(), fs/f2fs/f2fs.h).  The NAT journal holds NAT entries
 * newer than the NAT blocks; it lives in the hot data summary, which
 * restore_curseg_summaries() (fs/f2fs/segment.c) finds either in the
 * first compacted summary block or in the per-type summary blocks at the
 * end of the pack (sum_blk_addr()).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "f2fs_private.h"

#define BLOCKS_PER_SEG (1u << F2FS_LOG_BLOCKS_PER_SEG)

/* f2fs_checkpoint_chksum(): the CRC over the block, minus the CRC field. */
static uint32_t checkpoint_chksum(const uint8_t *cp, uint32_t crc_offset)
{
	uint32_t crc = f2fs_crc32(F2FS_SUPER_MAGIC, cp, crc_offset);

	if (crc_offset < CP_CHKSUM_OFFSET)
		crc = f2fs_crc32(crc, cp + crc_offset + 4,
				 F2FS_BLKSIZE - crc_offset - 4);
	return crc;
}

/* get_checkpoint_version(): one checkpoint block, checked. */
static int read_cp_block(const struct f2fslayout_fs *fs, uint64_t blkaddr,
			 uint8_t *cp, uint64_t *version)
{
	uint32_t crc_offset;
	int err;

	if (blkaddr >= fs->info.block_count)
		return F2FSLAYOUT_E_F2FS_NO_CHECKPOINT;
	err = f2fs_read_block(fs, (uint32_t)blkaddr, cp);
	if (err)
		return err;
	crc_offset = get_le32(cp + CP_CHECKSUM_OFFSET);
	if (crc_offset < CP_SIT_NAT_VERSION_BITMAP ||
	    crc_offset > CP_CHKSUM_OFFSET ||
	    get_le32(cp + crc_offset) != checkpoint_chksum(cp, crc_offset))
		return F2FSLAYOUT_E_F2FS_NO_CHECKPOINT;
	*version = get_le64(cp + CP_VERSION);
	return 0;
}

/* validate_checkpoint(): first and last block agree. */
static int read_pack(const struct f2fslayout_fs *fs, uint64_t start,
		     uint8_t *cp, uint64_t *version)
{
	uint8_t last[F2FS_BLKSIZE];
	uint64_t last_version;
	uint32_t total;
	int err;

	err = read_cp_block(fs, start, cp, version);
	if (err)
		return err;
	total = get_le32(cp + CP_PACK_TOTAL_BLOCK_COUNT);
	if (total > BLOCKS_PER_SEG || total <= F2FS_CP_PACKS)
		return F2FSLAYOUT_E_F2FS_NO_CHECKPOINT;
	err = read_cp_block(fs, start + total - 1, last, &last_version);
	if (err)
		return err;
	return last_version == *version ? 0 : F2FSLAYOUT_E_F2FS_NO_CHECKPOINT;
}

/* The fields of f2fs_sanity_check_ckpt() that the parser depends on. */
static bool checkpoint_valid(const uint8_t *cp, uint32_t cp_payload,
			     uint32_t nat_segments)
{
	uint32_t start_sum = get_le32(cp + CP_PACK_START_SUM);
	uint32_t flags = get_le32(cp + CP_FLAGS);

	if (get_le32(cp + CP_NAT_VER_BITMAP_BYTESIZE) !=
	    ((nat_segments / 2) << F2FS_LOG_BLOCKS_PER_SEG) / 8)
		return false;
	if (start_sum < cp_payload + 1 ||
	    start_sum > BLOCKS_PER_SEG - 1 - NR_CURSEG_PERSIST_TYPE)
		return false;
	return !(flags & CP_LARGE_NAT_BITMAP_FLAG) ||
	       get_le32(cp + CP_CHECKSUM_OFFSET) == CP_SIT_NAT_VERSION_BITMAP;
}

/*
 * __bitmap_ptr(NAT_BITMAP): where the NAT bitmap starts in the checkpoint
 * as loaded (its first block followed by the cp_payload blocks).
 */
static uint64_t nat_bitmap_offset(const uint8_t *cp, uint32_t cp_payload)
{
	if (get_le32(cp + CP_FLAGS) & CP_LARGE_NAT_BITMAP_FLAG)
		return CP_SIT_NAT_VERSION_BITMAP + 4;	/* after the CRC */
	if (cp_payload > 0)
		return CP_SIT_NAT_VERSION_BITMAP;	/* SIT's moved out */
	return CP_SIT_NAT_VERSION_BITMAP +
	       (uint64_t)get_le32(cp + CP_SIT_VER_BITMAP_BYTESIZE);
}

/* Copy the NAT bitmap out of the checkpoint and its payload blocks. */
static int load_nat_bitmap(struct f2fslayout_fs *fs, const uint8_t *cp,
			   uint64_t pack_start, uint32_t cp_payload)
{
	uint64_t off = nat_bitmap_offset(cp, cp_payload);
	uint32_t size = get_le32(cp + CP_NAT_VER_BITMAP_BYTESIZE);
	size_t loaded = (size_t)(1 + cp_payload) * F2FS_BLKSIZE;
	uint8_t *ckpt;
	int err = 0;

	if (off + size > loaded)
		return F2FSLAYOUT_E_F2FS_CHECKPOINT_INVALID;
	ckpt = malloc(loaded);
	fs->nat_bitmap = malloc(size ? size : 1);
	if (!ckpt || !fs->nat_bitmap) {
		free(ckpt);
		return -ENOMEM;
	}
	memcpy(ckpt, cp, F2FS_BLKSIZE);
	for (uint32_t i = 1; i <= cp_payload && !err; i++)
		err = f2fs_read_block(fs, (uint32_t)(pack_start + i),
				      ckpt + (size_t)i * F2FS_BLKSIZE);
	if (!err) {
		memcpy(fs->nat_bitmap, ckpt + off, size);
		fs->nat_bitmap_size = size;
	}
	free(ckpt);
	return err;
}

/*
 * The hot data summary's journal: the start of the first compacted
 * summary block (read_compacted_summaries()), or the journal part of the
 * hot data summary block (read_normal_summaries(), sum_blk_addr()).
 */
static int load_nat_journal(struct f2fslayout_fs *fs, const uint8_t *cp,
			    uint64_t pack_start)
{
	uint32_t flags = get_le32(cp + CP_FLAGS);
	uint32_t total = get_le32(cp + CP_PACK_TOTAL_BLOCK_COUNT);
	uint32_t base = flags & (CP_UMOUNT_FLAG | CP_FASTBOOT_FLAG) ?
				NR_CURSEG_PERSIST_TYPE : NR_CURSEG_DATA_TYPE;
	uint8_t block[F2FS_BLKSIZE];
	const uint8_t *journal;
	uint64_t blkaddr;
	int err;

	if (flags & CP_COMPACT_SUM_FLAG) {
		blkaddr = pack_start + get_le32(cp + CP_PACK_START_SUM);
		journal = block;
	} else {
		if (total < base + 2)
			return F2FSLAYOUT_E_F2FS_CHECKPOINT_INVALID;
		blkaddr = pack_start + total - (base + 1);
		journal = block + SUM_ENTRY_SIZE;
	}
	err = f2fs_read_block(fs, (uint32_t)blkaddr, block);
	if (err)
		return err;
	fs->nat_journal_entries = get_le16(journal);
	if (fs->nat_journal_entries > NAT_JOURNAL_ENTRIES)
		return F2FSLAYOUT_E_F2FS_CHECKPOINT_INVALID;
	memcpy(fs->nat_journal, journal + 2,
	       fs->nat_journal_entries * NAT_JOURNAL_ENTRY_SIZE);
	return 0;
}

int f2fs_read_checkpoint(struct f2fslayout_fs *fs, uint32_t cp_blkaddr,
			 uint32_t cp_payload, uint32_t nat_segments)
{
	uint8_t cp[2][F2FS_BLKSIZE];
	uint64_t version[2];
	int err[2];
	unsigned pack;
	uint64_t start;
	int e;

	for (pack = 0; pack < 2; pack++)
		err[pack] = read_pack(fs, (uint64_t)cp_blkaddr +
						  pack * BLOCKS_PER_SEG,
				      cp[pack], &version[pack]);
	if (err[0] && err[1])
		return err[0] == F2FSLAYOUT_E_F2FS_NO_CHECKPOINT ? err[1]
								  : err[0];
	/* ver_after(): the newer of two valid packs, modulo wrap-around. */
	pack = err[0] || (!err[1] && (int64_t)(version[1] - version[0]) > 0);
	start = (uint64_t)cp_blkaddr + pack * BLOCKS_PER_SEG;
	if (!checkpoint_valid(cp[pack], cp_payload, nat_segments) ||
	    start + 1 + cp_payload > fs->info.block_count)
		return F2FSLAYOUT_E_F2FS_CHECKPOINT_INVALID;

	fs->info.checkpoint_pack = pack + 1;
	fs->info.checkpoint_version = version[pack];
	fs->info.clean = get_le32(cp[pack] + CP_FLAGS) & CP_UMOUNT_FLAG;
	e = load_nat_bitmap(fs, cp[pack], start, cp_payload);
	return e ? e : load_nat_journal(fs, cp[pack], start);
}
