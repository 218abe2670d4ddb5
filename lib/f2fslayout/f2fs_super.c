// SPDX-License-Identifier: GPL-2.0-only
/*
 * f2fs_super.c - find a valid f2fs superblock and the areas it describes.
 *
 * f2fs keeps two copies of its superblock, at byte 1024 of blocks 0 and
 * 1; read_raw_super_block() (fs/f2fs/super.c) takes the first one that
 * passes sanity_check_raw_super(), and so does this file, with the same
 * checks: magic, checksum when the sb_checksum feature is on, 4 KiB
 * blocks of 512 per segment, sector sizes, segment and section counts,
 * the reserved inode numbers and the area boundaries
 * (sanity_check_area_boundary()).  On top of the kernel: feature bits this
 * parser does not understand, several devices and an image shorter than
 * the filesystem are refused, since each would make it read the wrong
 * blocks.
 */

#include <string.h>

#include "f2fs_private.h"

/* Features whose on-disk effects the parser knows (or which have none
 * on what it reads: quotas, atomic writes, lost+found, crtime...). */
#define KNOWN_FEATURES                                                     \
	(F2FS_FEATURE_ENCRYPT | F2FS_FEATURE_ATOMIC_WRITE |                \
	 F2FS_FEATURE_EXTRA_ATTR | F2FS_FEATURE_PRJQUOTA |                 \
	 F2FS_FEATURE_INODE_CHKSUM | F2FS_FEATURE_FLEXIBLE_INLINE_XATTR |  \
	 F2FS_FEATURE_QUOTA_INO | F2FS_FEATURE_INODE_CRTIME |              \
	 F2FS_FEATURE_LOST_FOUND | F2FS_FEATURE_VERITY |                   \
	 F2FS_FEATURE_SB_CHKSUM | F2FS_FEATURE_CASEFOLD |                  \
	 F2FS_FEATURE_COMPRESSION)

#define MAX_DEVICES 8
#define DEVICE_ENTRY_SIZE 68		/* struct f2fs_device */
/* sanity_check_raw_super(): F2FS_MIN_SEGMENTS */
#define F2FS_MIN_SEGMENTS 9
#define F2FS_MAX_EXTENSION 64
#define SB_EXTENSION_COUNT 1148
#define SB_HOT_EXT_COUNT 2757

static int check_checksum(const uint8_t *sb, uint32_t features)
{
	if (!(features & F2FS_FEATURE_SB_CHKSUM))
		return 0;
	if (get_le32(sb + SB_CHECKSUM_OFFSET) != SB_CRC)
		return F2FSLAYOUT_E_F2FS_SUPER_INVALID;
	if (get_le32(sb + SB_CRC) != f2fs_crc32(F2FS_SUPER_MAGIC, sb, SB_CRC))
		return F2FSLAYOUT_E_F2FS_SUPER_CHECKSUM;
	return 0;
}

/* Only the one-device, not zoned, 4 KiB-block layout is understood. */
static int check_geometry(const uint8_t *sb, uint32_t features)
{
	uint32_t log_sector = get_le32(sb + SB_LOG_SECTORSIZE);

	if (features & ~(uint32_t)KNOWN_FEATURES ||
	    features & F2FS_FEATURE_BLKZONED || sb[SB_DEVS] != 0)
		return F2FSLAYOUT_E_F2FS_FEATURE;
	if (get_le32(sb + SB_LOG_BLOCKSIZE) != F2FS_BLKSIZE_BITS ||
	    get_le32(sb + SB_LOG_BLOCKS_PER_SEG) != F2FS_LOG_BLOCKS_PER_SEG ||
	    log_sector < F2FS_MIN_LOG_SECTOR_SIZE ||
	    log_sector > F2FS_MAX_LOG_SECTOR_SIZE ||
	    get_le32(sb + SB_LOG_SECTORS_PER_BLOCK) + log_sector !=
		    F2FS_MAX_LOG_SECTOR_SIZE)
		return F2FSLAYOUT_E_F2FS_SUPER_INVALID;
	return 0;
}

/* The segment, section and zone counts of sanity_check_raw_super(). */
static bool counts_valid(const uint8_t *sb)
{
	uint64_t segments = get_le32(sb + SB_SEGMENT_COUNT);
	uint64_t main_segments = get_le32(sb + SB_SEGMENT_COUNT_MAIN);
	uint64_t segs_per_sec = get_le32(sb + SB_SEGS_PER_SEC);
	uint64_t secs_per_zone = get_le32(sb + SB_SECS_PER_ZONE);
	uint64_t sections = get_le32(sb + SB_SECTION_COUNT);
	uint32_t extensions = get_le32(sb + SB_EXTENSION_COUNT);

	return segments <= F2FS_MAX_SEGMENT &&
	       segments >= F2FS_MIN_SEGMENTS && sections >= 1 &&
	       sections <= main_segments && segs_per_sec >= 1 &&
	       segs_per_sec <= segments &&
	       main_segments == sections * segs_per_sec &&
	       segments / segs_per_sec >= sections &&
	       segments <= get_le64(sb + SB_BLOCK_COUNT) >> 9 &&
	       secs_per_zone >= 1 && secs_per_zone <= sections &&
	       extensions <= F2FS_MAX_EXTENSION &&
	       sb[SB_HOT_EXT_COUNT] <= F2FS_MAX_EXTENSION - extensions &&
	       get_le32(sb + SB_CP_PAYLOAD) <
		       (1u << F2FS_LOG_BLOCKS_PER_SEG) - F2FS_CP_PACKS -
			       NR_CURSEG_PERSIST_TYPE;
}

/*
 * sanity_check_area_boundary(): checkpoint, SIT, NAT, SSA and main area
 * follow each other; the main area may end before the last segment (the
 * kernel then shrinks segment_count in memory, as max_blkaddr does here).
 */
static bool areas_valid(const uint8_t *sb)
{
	static const unsigned area_start[] = {
		SB_CP_BLKADDR, SB_SIT_BLKADDR, SB_NAT_BLKADDR, SB_SSA_BLKADDR,
		SB_MAIN_BLKADDR,
	};
	static const unsigned area_segments[] = {
		SB_SEGMENT_COUNT_CKPT, SB_SEGMENT_COUNT_SIT,
		SB_SEGMENT_COUNT_NAT, SB_SEGMENT_COUNT_SSA,
	};
	uint64_t seg_end = get_le32(sb + SB_SEGMENT0_BLKADDR) +
			   ((uint64_t)get_le32(sb + SB_SEGMENT_COUNT) << 9);
	uint64_t main_end = get_le32(sb + SB_MAIN_BLKADDR) +
			    ((uint64_t)get_le32(sb + SB_SEGMENT_COUNT_MAIN) << 9);

	if (get_le32(sb + SB_SEGMENT0_BLKADDR) != get_le32(sb + SB_CP_BLKADDR))
		return false;
	for (size_t i = 0; i < sizeof(area_segments) / sizeof(*area_segments);
	     i++)
		if ((uint64_t)get_le32(sb + area_start[i]) +
			    ((uint64_t)get_le32(sb + area_segments[i]) << 9) !=
		    get_le32(sb + area_start[i + 1]))
			return false;
	return main_end <= seg_end && get_le32(sb + SB_ROOT_INO) == 3;
}

static int check_super(const uint8_t *sb)
{
	uint32_t features = get_le32(sb + SB_FEATURE);
	int err;

	if (get_le32(sb + SB_MAGIC) != F2FS_SUPER_MAGIC)
		return F2FSLAYOUT_E_F2FS_NO_SUPER;
	err = check_checksum(sb, features);
	if (!err)
		err = check_geometry(sb, features);
	if (!err && (!counts_valid(sb) || !areas_valid(sb)))
		err = F2FSLAYOUT_E_F2FS_SUPER_INVALID;
	return err;
}

/* Keep what the rest of the parser needs from the chosen copy. */
static int use_super(struct f2fslayout_fs *fs, const uint8_t *sb,
		     uint64_t image_size)
{
	uint64_t block_count = get_le64(sb + SB_BLOCK_COUNT);
	uint64_t main_end = get_le32(sb + SB_MAIN_BLKADDR) +
			    ((uint64_t)get_le32(sb + SB_SEGMENT_COUNT_MAIN) << 9);
	uint32_t nat_segments = get_le32(sb + SB_SEGMENT_COUNT_NAT);

	/* Block addresses are 32 bits; every one read must be in the image. */
	if (main_end > block_count || main_end > UINT32_MAX)
		return F2FSLAYOUT_E_F2FS_SUPER_INVALID;
	if (block_count > image_size / F2FS_BLKSIZE)
		return F2FSLAYOUT_E_F2FS_IMAGE_SHORT;

	fs->info.features = get_le32(sb + SB_FEATURE);
	fs->info.block_count = block_count;
	fs->info.root_ino = get_le32(sb + SB_ROOT_INO);
	fs->nat_blkaddr = get_le32(sb + SB_NAT_BLKADDR);
	fs->main_blkaddr = get_le32(sb + SB_MAIN_BLKADDR);
	fs->max_blkaddr = (uint32_t)main_end;
	/* init_node_manager(): half the NAT segments are the live copy. */
	fs->max_nid = NAT_ENTRY_PER_BLOCK * ((nat_segments >> 1) << 9);
	return f2fs_read_checkpoint(fs, get_le32(sb + SB_CP_BLKADDR),
				    get_le32(sb + SB_CP_PAYLOAD),
				    nat_segments);
}

int f2fs_read_super(struct f2fslayout_fs *fs, uint64_t image_size)
{
	uint8_t sb[2][F2FS_SUPER_SIZE];
	int err[2];

	if (image_size < 2 * F2FS_BLKSIZE)
		return F2FSLAYOUT_E_F2FS_NO_SUPER;
	for (unsigned copy = 0; copy < 2; copy++) {
		err[copy] = f2fs_pread(fs, sb[copy], F2FS_SUPER_SIZE,
				       copy * F2FS_BLKSIZE + F2FS_SUPER_OFFSET);
		/* An image of at least two blocks reads fully, or fails. */
		if (err[copy])
			return err[copy];
		err[copy] = check_super(sb[copy]);
	}
	for (unsigned copy = 0; copy < 2; copy++) {
		if (err[copy])
			continue;
		fs->info.super_copy = copy;
		fs->info.other_super_valid = !err[!copy];
		return use_super(fs, sb[copy], image_size);
	}
	return err[0];
}
