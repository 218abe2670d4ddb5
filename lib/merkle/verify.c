// SPDX-License-Identifier: GPL-2.0-only
/*
 * verify.c - verify data blocks against the Merkle tree.
 *
 * Mirrors fs/verity/verify.c: verify_data_block() of Linux 6.3 and later
 * (per-block, not per-page, verified marks) and its readahead of hash
 * pages (the REQ_RAHEAD / max_ra_pages path of fsverity_verify_bio()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "merkle_private.h"

/*
 * How many level-0 blocks after 'block' to read along with it: up to
 * ra_blocks (capped), not past the end of level 0, stopping at the first
 * block already cached (its copy, and maybe its verified mark, is worth
 * keeping).
 */
static unsigned merkle_readahead_count(struct merkle_tree *t, uint64_t block,
				       unsigned ra_blocks)
{
	const struct merkle_geometry *g = &t->geo;
	uint64_t level_end = g->level_start[0] + g->level_blocks[0];
	unsigned n = 0;

	ra_blocks = merkle_readahead_limit(g, ra_blocks);

	while (n < ra_blocks && block + n + 1 < level_end &&
	       !merkle_cache_contains(t->cache, t->id, block + n + 1, NULL))
		n++;
	return n;
}

/*
 * A cache miss: read 'block' (plus readahead blocks) in one read_tree
 * call, cache them unverified and return 'block' pinned.  A read_tree
 * error, -EAGAIN included, leaves the cache as it was.
 */
static int merkle_read_hash_block(struct merkle_tree *t, uint64_t block,
				  unsigned ra_blocks,
				  struct merkle_cache_entry **pinned)
{
	const size_t bs = t->geo.block_size;
	unsigned extra = merkle_readahead_count(t, block, ra_blocks);
	uint8_t *buf = malloc((extra + 1) * bs);
	int err;

	if (!buf)
		return MERKLE_E_NOMEM;
	err = t->read_tree(t->read_ctx, buf, (extra + 1) * bs,
			   merkle_block_offset(&t->geo, block));
	if (err)
		goto out;
	merkle_stat_add(&t->stats.tree_reads, 1);
	merkle_stat_add(&t->stats.tree_blocks_read, extra + 1);
	merkle_stat_add(&t->stats.blocks_read_ahead, extra);
	/* Readahead blocks first, so that they cannot evict 'block'. */
	for (unsigned i = 1; i <= extra && !err; i++)
		err = merkle_cache_insert(t->cache, t->id, block + i,
					  buf + i * bs, bs, NULL);
	if (!err)
		err = merkle_cache_insert(t->cache, t->id, block, buf, bs,
					  pinned);
out:
	free(buf);
	return err;
}

/* The hash block 'block' of 'level', pinned: from the cache or read. */
static int merkle_get_hash_block(struct merkle_tree *t, unsigned level,
				 uint64_t block, unsigned ra_blocks,
				 struct merkle_cache_entry **pinned)
{
	*pinned = merkle_cache_get(t->cache, t->id, block);
	if (*pinned) {
		merkle_stat_add(&t->stats.cache_hits, 1);
		return 0;
	}
	merkle_stat_add(&t->stats.cache_misses, 1);
	/* Like the kernel, only the level the data maps to is read ahead. */
	return merkle_read_hash_block(t, block, level == 0 ? ra_blocks : 0,
				      pinned);
}

static void merkle_put_path(struct merkle_tree *t,
			    struct merkle_cache_entry **path, int levels)
{
	for (int level = 0; level < levels; level++)
		merkle_cache_put(t->cache, path[level]);
}

/*
 * fs/verity/verify.c: verify_data_block(): a block past the end of the data
 * (a device larger than the file) cannot be hashed by the tree, so it must
 * be all zeroes, as the kernel requires past i_size.
 */
static int merkle_verify_past_eof(const uint8_t *data, size_t block_size)
{
	for (size_t i = 0; i < block_size; i++)
		if (data[i])
			return MERKLE_E_CORRUPT;
	return 0;
}

/*
 * fs/verity/verify.c: verify_data_block().  Ascend from level 0, pinning
 * the hash blocks on the way, until a block already marked verified gives
 * a trusted hash (or the top is passed: the root hash is trusted).  Then
 * descend, checking each pinned block against the trusted hash of it and
 * marking it verified, and finally check the data block.
 */
static int merkle_verify_data_block(struct merkle_tree *t,
				    struct merkle_hasher *h, uint64_t data_block,
				    const uint8_t *data, unsigned ra_blocks)
{
	const struct merkle_geometry *g = &t->geo;
	struct merkle_cache_entry *path[MERKLE_MAX_LEVELS], *e;
	size_t hoffset[MERKLE_MAX_LEVELS];
	uint8_t want[MERKLE_MAX_DIGEST_SIZE], real[MERKLE_MAX_DIGEST_SIZE];
	uint64_t hidx = data_block;
	int level, err;

	if (data_block >= g->data_blocks)
		return merkle_verify_past_eof(data, g->block_size);

	for (level = 0; level < (int)g->num_levels; level++) {
		uint64_t hblock = g->level_start[level] + (hidx >> g->log_arity);

		hoffset[level] = (size_t)(hidx & (g->hashes_per_block - 1)) *
				 g->digest_size;
		err = merkle_get_hash_block(t, (unsigned)level, hblock,
					    ra_blocks, &e);
		if (err) {
			merkle_put_path(t, path, level);
			return err;
		}
		if (merkle_cache_entry_verified(e)) {
			memcpy(want, merkle_cache_entry_data(e) + hoffset[level],
			       g->digest_size);
			merkle_cache_put(t->cache, e);
			goto descend;
		}
		path[level] = e;
		hidx >>= g->log_arity;
	}
	memcpy(want, t->root_hash, g->digest_size);
descend:
	while (level > 0) {
		e = path[--level];
		err = merkle_hasher_hash_blocks(h, merkle_cache_entry_data(e),
						1, real);
		if (!err && memcmp(want, real, g->digest_size) != 0)
			err = MERKLE_E_CORRUPT;
		if (err) {
			merkle_put_path(t, path, level + 1);
			return err;
		}
		merkle_cache_entry_set_verified(e);
		memcpy(want, merkle_cache_entry_data(e) + hoffset[level],
		       g->digest_size);
		merkle_cache_put(t->cache, e);
	}

	err = merkle_hasher_hash_blocks(h, data, 1, real);
	if (!err && memcmp(want, real, g->digest_size) != 0)
		err = MERKLE_E_CORRUPT;
	return err;
}

int merkle_verify_blocks(struct merkle_tree *t, uint64_t first_block,
			 const void *data, size_t nblocks, unsigned ra_blocks,
			 uint64_t *bad_block)
{
	const uint8_t *block = data;
	struct merkle_hasher *h;
	size_t i;
	int err = 0;

	if (first_block + nblocks < first_block)
		return -EINVAL;
	h = merkle_tree_get_hasher(t);
	if (!h)
		return MERKLE_E_NOMEM;
	for (i = 0; i < nblocks && !err; i++) {
		err = merkle_verify_data_block(t, h, first_block + i, block,
					       ra_blocks);
		block += t->geo.block_size;
	}
	merkle_tree_put_hasher(t, h);

	if (err == MERKLE_E_CORRUPT) {
		*bad_block = first_block + i - 1;
		merkle_stat_add(&t->stats.failures, 1);
	} else if (!err) {
		merkle_stat_add(&t->stats.blocks_verified, nblocks);
	}
	return err;
}
