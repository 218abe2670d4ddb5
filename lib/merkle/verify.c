// SPDX-License-Identifier: GPL-2.0-only
/*
 * verify.c - verify data blocks against the Merkle tree.
 *
 * Mirrors fs/verity/verify.c: verify_data_block() of Linux 6.3 and later
 * (per-block, not per-page, verified marks) and its readahead of hash
 * pages (the REQ_RAHEAD / max_ra_pages path of fsverity_verify_bio()).
 *
 * A hash block that is not cached is read through the tree's read_tree
 * callback, as the kernel's ->read_merkle_tree_page() returns a page.  A
 * tree opened without one belongs to an asynchronous caller: the walk then
 * stops and says which tree bytes it lacks (MERKLE_NEED_TREE), and the
 * caller reads them, gives them to merkle_cache_fill() and calls again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "merkle_private.h"

/* One merkle_verify_blocks() call: what every step of the walk needs. */
struct merkle_verify_call {
	struct merkle_tree *t;
	struct merkle_hasher *h;
	unsigned ra_blocks;		/* level-0 readahead hint */
	struct merkle_verify_result *res;
};

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
 * error leaves the cache as it was.  Without read_tree, say what to read
 * instead (MERKLE_NEED_TREE).
 */
static int merkle_read_hash_block(struct merkle_verify_call *call,
				  uint64_t block, unsigned ra_blocks,
				  struct merkle_cache_entry **pinned)
{
	struct merkle_tree *t = call->t;
	const size_t bs = t->geo.block_size;
	unsigned extra = merkle_readahead_count(t, block, ra_blocks);
	uint64_t off = merkle_block_offset(&t->geo, block);
	uint8_t *buf;
	int err;

	if (!t->read_tree) {
		call->res->missing = (struct merkle_extent){
			.off = off, .len = (uint32_t)((extra + 1) * bs) };
		return MERKLE_NEED_TREE;
	}
	buf = malloc((extra + 1) * bs);
	if (!buf)
		return MERKLE_E_NOMEM;
	err = t->read_tree(t->read_ctx, buf, (extra + 1) * bs, off);
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
static int merkle_get_hash_block(struct merkle_verify_call *call,
				 unsigned level, uint64_t block,
				 struct merkle_cache_entry **pinned)
{
	struct merkle_tree *t = call->t;

	*pinned = merkle_cache_get(t->cache, t->id, block);
	if (*pinned) {
		merkle_stat_add(&t->stats.cache_hits, 1);
		return 0;
	}
	merkle_stat_add(&t->stats.cache_misses, 1);
	/* Like the kernel, only the level the data maps to is read ahead. */
	return merkle_read_hash_block(call, block,
				      level == 0 ? call->ra_blocks : 0, pinned);
}

static void merkle_put_path(struct merkle_tree *t,
			    struct merkle_cache_entry **path, int levels)
{
	for (int level = 0; level < levels; level++)
		merkle_cache_put(t->cache, path[level]);
}

/*
 * Data blocks per merkle_hasher_hash_blocks() call.  The verifier first
 * walks the tree for each block of a run (the expected hashes), then
 * hashes the run's data in one batch, two blocks at a time where the CPU
 * can (hash_algs.c).  The expected digests of a run live on the stack
 * (4 KiB).
 */
#define MERKLE_VERIFY_BATCH 64

/*
 * fs/verity/verify.c: verify_data_block() up to the data hash.  Ascend
 * from level 0, pinning the hash blocks on the way, until a block already
 * marked verified gives a trusted hash (or the top is passed: the root
 * hash is trusted).  Then descend, checking each pinned block against the
 * trusted hash of it and marking it verified.  Leaves the expected hash
 * of the data block in want.
 */
static int merkle_expected_hash(struct merkle_verify_call *call,
				uint64_t data_block, uint8_t *want)
{
	struct merkle_tree *t = call->t;
	const struct merkle_geometry *g = &t->geo;
	struct merkle_cache_entry *path[MERKLE_MAX_LEVELS], *e;
	size_t hoffset[MERKLE_MAX_LEVELS];
	uint8_t real[MERKLE_MAX_DIGEST_SIZE];
	uint64_t hidx = data_block;
	int level, err;

	for (level = 0; level < (int)g->num_levels; level++) {
		uint64_t hblock = g->level_start[level] + (hidx >> g->log_arity);

		hoffset[level] = (size_t)(hidx & (g->hashes_per_block - 1)) *
				 g->digest_size;
		err = merkle_get_hash_block(call, (unsigned)level, hblock, &e);
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
		err = merkle_hasher_hash_blocks(call->h,
						merkle_cache_entry_data(e), 1,
						real);
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
	return 0;
}

/*
 * The level-0 hash block of the previous data block of a run, pinned,
 * while it is marked verified: the next data blocks mostly map to it too
 * (hashes_per_block of them in a row), and a pinned block keeps its mark,
 * so their expected hashes are read from it without walking the tree.
 * The kernel's verify_data_block() re-checks the mark per block instead;
 * this saves a cache lookup per data block.
 */
struct merkle_level0_hint {
	struct merkle_cache_entry *e;
	uint64_t block;
};

static int merkle_expected_hash_hinted(struct merkle_verify_call *call,
				       struct merkle_level0_hint *hint,
				       uint64_t data_block, uint8_t *want)
{
	struct merkle_tree *t = call->t;
	const struct merkle_geometry *g = &t->geo;
	uint64_t hblock = g->level_start[0] + (data_block >> g->log_arity);
	size_t hoffset = (size_t)(data_block & (g->hashes_per_block - 1)) *
			 g->digest_size;
	int err;

	if (g->num_levels && hint->e && hint->block == hblock) {
		memcpy(want, merkle_cache_entry_data(hint->e) + hoffset,
		       g->digest_size);
		return 0;
	}
	err = merkle_expected_hash(call, data_block, want);
	if (err || !g->num_levels)
		return err;
	if (hint->e)
		merkle_cache_put(t->cache, hint->e);
	/* Just verified (or found verified): pin it for the next blocks. */
	hint->e = merkle_cache_get(t->cache, t->id, hblock);
	hint->block = hblock;
	if (hint->e && !merkle_cache_entry_verified(hint->e)) {
		merkle_cache_put(t->cache, hint->e);	/* evicted meanwhile */
		hint->e = NULL;
	}
	return 0;
}

/*
 * Verify n (at most MERKLE_VERIFY_BATCH) data blocks from data block
 * first, all inside the data: the expected hash of each from the tree,
 * then one batch hash of the data.  Returns 0, or the first error with
 * *done = the blocks before the failing one, all verified.  The failing
 * block is the first data mismatch, or else the first block whose tree
 * walk failed (a missing or corrupt hash block...).
 */
static int merkle_verify_run(struct merkle_verify_call *call, uint64_t first,
			     const uint8_t *data, size_t n, size_t *done)
{
	struct merkle_tree *t = call->t;
	const unsigned ds = t->geo.digest_size;
	uint8_t want[MERKLE_VERIFY_BATCH * MERKLE_MAX_DIGEST_SIZE];
	uint8_t real[MERKLE_VERIFY_BATCH * MERKLE_MAX_DIGEST_SIZE];
	struct merkle_level0_hint hint = { NULL, 0 };
	size_t have, i;
	int walk_err = 0, err;

	*done = 0;
	for (have = 0; have < n; have++) {
		walk_err = merkle_expected_hash_hinted(call, &hint, first + have,
						       want + have * ds);
		if (walk_err)
			break;
	}
	if (hint.e)
		merkle_cache_put(t->cache, hint.e);
	err = merkle_hasher_hash_blocks(call->h, data, have, real);
	if (err)
		return err;
	for (i = 0; i < have; i++) {
		if (memcmp(want + i * ds, real + i * ds, ds) != 0) {
			*done = i;
			return MERKLE_E_CORRUPT;
		}
	}
	*done = have;
	return walk_err;
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

/* Up to MERKLE_VERIFY_BATCH blocks from data block 'block'; see above. */
static int merkle_verify_some(struct merkle_verify_call *call, uint64_t block,
			      const uint8_t *data, size_t left, size_t *done)
{
	const struct merkle_geometry *g = &call->t->geo;
	size_t n = left < MERKLE_VERIFY_BATCH ? left : MERKLE_VERIFY_BATCH;
	int err;

	if (block >= g->data_blocks) {
		err = merkle_verify_past_eof(data, g->block_size);
		*done = err ? 0 : 1;
		return err;
	}
	if (n > g->data_blocks - block)
		n = (size_t)(g->data_blocks - block);
	return merkle_verify_run(call, block, data, n, done);
}

int merkle_verify_blocks(struct merkle_tree *t, uint64_t first_block,
			 const void *data, size_t nblocks, unsigned ra_blocks,
			 struct merkle_verify_result *res)
{
	struct merkle_verify_call call = {
		.t = t, .ra_blocks = ra_blocks, .res = res,
	};
	const uint8_t *blocks = data;
	size_t i, done = 0;
	int err = 0;

	if (first_block + nblocks < first_block)
		return -EINVAL;
	call.h = merkle_tree_get_hasher(t);
	if (!call.h)
		return MERKLE_E_NOMEM;
	for (i = 0; i < nblocks && !err; i += done)
		err = merkle_verify_some(&call, first_block + i,
					 blocks + i * t->geo.block_size,
					 nblocks - i, &done);
	merkle_tree_put_hasher(t, call.h);

	res->block = first_block + i;
	/* A failed call verified nothing that counts (its caller fails the
	 * request), but after MERKLE_NEED_TREE the caller resumes at
	 * res->block and the blocks before it stay verified. */
	if (err == MERKLE_E_CORRUPT)
		merkle_stat_add(&t->stats.failures, 1);
	else if (!err || err == MERKLE_NEED_TREE)
		merkle_stat_add(&t->stats.blocks_verified, i);
	return err;
}
