// SPDX-License-Identifier: GPL-2.0-only
/*
 * f2fs_dir.c - the entries of a directory: inline, or in hashed blocks.
 *
 * A directory with F2FS_INLINE_DENTRY keeps its entries inside its inode
 * (make_dentry_ptr_inline(), fs/f2fs/f2fs.h): as many slots as
 * MAX_INLINE_DATA allows, a bitmap, reserved bytes, the dentries, the
 * name slots.  Otherwise its data blocks are 4 KiB dentry blocks of 214
 * slots (struct f2fs_dentry_block) arranged as a hash table of levels
 * (fs/f2fs/dir.c): level L has dir_buckets(L) buckets of bucket_blocks(L)
 * blocks, and a name with hash h can only be in bucket h % buckets of
 * each level below i_current_depth (find_in_level()).  In both forms a
 * set bit (little-endian bit order, test_bit_le()) marks a used slot, and
 * an entry's name fills GET_DENTRY_SLOTS(name_len) 8-byte slots.
 */

#include <errno.h>
#include <stdlib.h>

#include "f2fs_private.h"

/* Buckets per level are capped at 2^30 (MAX_DIR_BUCKETS). */
#define MAX_DIR_BUCKETS_SHIFT (MAX_DIR_HASH_DEPTH / 2 - 1)

/* One dentry area: a bitmap of max slots, their entries and names. */
struct dentry_area {
	const uint8_t *bitmap;
	const uint8_t *dentry;
	const uint8_t *filename;
	unsigned max;
};

static bool test_bit_le(unsigned nr, const uint8_t *bitmap)
{
	return bitmap[nr / 8] & (1u << (nr % 8));
}

/*
 * f2fs_find_target_dentry() / f2fs_fill_dentries(): walk the used slots;
 * only entries with hash *hash when hash is given.  A name that runs past
 * the last slot or is longer than F2FS_NAME_LEN is corruption.
 */
static int scan_area(const struct dentry_area *a, const uint32_t *hash,
		     f2fs_dentry_fn fn, void *ctx)
{
	unsigned bit = 0;

	while (bit < a->max) {
		const uint8_t *de = a->dentry + (size_t)bit * SIZE_OF_DIR_ENTRY;
		struct f2fs_dentry d = {
			.hash = get_le32(de),
			.ino = get_le32(de + 4),
			.name_len = get_le16(de + 8),
			.type = de[10],
			.name = a->filename + (size_t)bit * F2FS_SLOT_LEN,
		};
		unsigned slots = (d.name_len + F2FS_SLOT_LEN - 1) / F2FS_SLOT_LEN;
		int r;

		if (!test_bit_le(bit, a->bitmap) || d.name_len == 0) {
			bit++;
			continue;
		}
		if (d.name_len > F2FSLAYOUT_F2FS_NAME_LEN ||
		    slots > a->max - bit)
			return F2FSLAYOUT_E_F2FS_DIR_INVALID;
		if (!hash || d.hash == *hash) {
			r = fn(ctx, &d);
			if (r)
				return r;
		}
		bit += slots;
	}
	return 0;
}

static int scan_inline(const struct f2fs_inode_info *ii, const uint32_t *hash,
		       f2fs_dentry_fn fn, void *ctx)
{
	unsigned max_data = f2fs_max_inline_data(ii);
	unsigned nr = max_data * 8 / ((SIZE_OF_DIR_ENTRY + F2FS_SLOT_LEN) * 8 + 1);
	unsigned bitmap_size = (nr + 7) / 8;
	unsigned reserved = max_data -
			    ((SIZE_OF_DIR_ENTRY + F2FS_SLOT_LEN) * nr + bitmap_size);
	const uint8_t *base = ii->block + f2fs_inline_data_offset(ii);
	struct dentry_area a = {
		.bitmap = base,
		.dentry = base + bitmap_size + reserved,
		.filename = base + bitmap_size + reserved + SIZE_OF_DIR_ENTRY * nr,
		.max = nr,
	};

	return scan_area(&a, hash, fn, ctx);
}

/* Dentry block blk of the directory, if it has one (else a hole). */
static int scan_block(const struct f2fslayout_fs *fs,
		      const struct f2fs_extent_list *blocks, uint64_t blk,
		      const uint32_t *hash, f2fs_dentry_fn fn, void *ctx)
{
	uint64_t off = blk * F2FS_BLKSIZE;
	size_t i = f2fs_find_extent(blocks->v, blocks->n, off);
	uint8_t block[F2FS_BLKSIZE];
	struct dentry_area a = {
		.bitmap = block,
		.dentry = block + DENTRY_BLOCK_DENTRIES,
		.filename = block + DENTRY_BLOCK_DENTRIES +
			    NR_DENTRY_IN_BLOCK * SIZE_OF_DIR_ENTRY,
		.max = NR_DENTRY_IN_BLOCK,
	};
	const struct f2fslayout_extent *e;
	int err;

	if (i == blocks->n || blocks->v[i].image_off == F2FSLAYOUT_HOLE)
		return 0;
	e = &blocks->v[i];
	err = f2fs_read_block(fs, (uint32_t)((e->image_off + off - e->file_off) /
					      F2FS_BLKSIZE),
			      block);
	return err ? err : scan_area(&a, hash, fn, ctx);
}

/* f2fs_readdir(): every block that is not a hole, in order. */
static int scan_all(const struct f2fslayout_fs *fs,
		    const struct f2fs_extent_list *blocks, f2fs_dentry_fn fn,
		    void *ctx)
{
	int err = 0;

	for (size_t i = 0; i < blocks->n && !err; i++) {
		const struct f2fslayout_extent *e = &blocks->v[i];

		for (uint64_t off = 0;
		     e->image_off != F2FSLAYOUT_HOLE && off < e->len && !err;
		     off += F2FS_BLKSIZE)
			err = scan_block(fs, blocks,
					 (e->file_off + off) / F2FS_BLKSIZE,
					 NULL, fn, ctx);
	}
	return err;
}

static uint64_t dir_buckets(unsigned level, unsigned dir_level)
{
	unsigned shift = level + dir_level;

	return 1ull << (shift < MAX_DIR_BUCKETS_SHIFT + 1 ? shift
							   : MAX_DIR_BUCKETS_SHIFT);
}

static unsigned bucket_blocks(unsigned level)
{
	return level < MAX_DIR_HASH_DEPTH / 2 ? 2 : 4;
}

/* find_in_level() for every level: the one bucket hash can be in. */
static int scan_hashed(const struct f2fslayout_fs *fs,
		       const struct f2fs_inode_info *ii,
		       const struct f2fs_extent_list *blocks, uint32_t hash,
		       f2fs_dentry_fn fn, void *ctx)
{
	unsigned depth = ii->current_depth;
	uint64_t level_start = 0;
	int err = 0;

	/* __f2fs_find_entry() clamps a corrupt depth the same way. */
	if (depth > MAX_DIR_HASH_DEPTH)
		depth = MAX_DIR_HASH_DEPTH;
	for (unsigned level = 0; level < depth && !err; level++) {
		uint64_t buckets = dir_buckets(level, ii->dir_level);
		uint64_t first = level_start + (hash % buckets) *
						       bucket_blocks(level);

		for (unsigned b = 0; b < bucket_blocks(level) && !err; b++)
			err = scan_block(fs, blocks, first + b, &hash, fn, ctx);
		level_start += buckets * bucket_blocks(level);
	}
	return err;
}

int f2fs_dir_iterate(const struct f2fslayout_fs *fs,
		     const struct f2fs_inode_info *ii, const uint32_t *hash,
		     f2fs_dentry_fn fn, void *ctx)
{
	struct f2fs_extent_list blocks = { 0 };
	uint64_t nblocks = ii->size / F2FS_BLKSIZE + !!(ii->size % F2FS_BLKSIZE);
	int err;

	if (!is_dir_mode(ii->mode))
		return -ENOTDIR;
	if (ii->advise & FADVISE_ENCRYPT_BIT)
		return F2FSLAYOUT_E_F2FS_ENCRYPTED;
	if (ii->inline_flags & F2FS_INLINE_DENTRY)
		return scan_inline(ii, hash, fn, ctx);
	/* Its blocks are distinct blocks of the filesystem. */
	if (nblocks > fs->info.block_count)
		return F2FSLAYOUT_E_F2FS_DIR_INVALID;
	err = f2fs_map_blocks(fs, ii, nblocks, &blocks);
	if (!err)
		err = hash ? scan_hashed(fs, ii, &blocks, *hash, fn, ctx)
			   : scan_all(fs, &blocks, fn, ctx);
	free(blocks.v);
	return err;
}
