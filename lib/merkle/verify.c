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

/*
 * The level-0 hash block of the previous data block, pinned, while it is
 * marked verified: the next data blocks mostly map to it too
 * (hashes_per_block of them in a row), and a pinned block keeps its mark,
 * so their expected hashes are read from it without walking the tree.
 * The kernel's verify_data_block() re-checks the mark per block instead;
 * this saves a cache lookup per data block.
 */
struct merkle_level0_hint {
	struct merkle_cache_entry *e;
	uint64_t block;
};

/* One verify call: what every step of the walk needs. */
struct merkle_verify_call {
	struct merkle_tree *t;
	struct merkle_hasher *h;
	struct merkle_level0_hint hint;
	/* The range being walked: its readahead hint, and where a missing
	 * hash block is said (res->missing). */
	unsigned ra_blocks;
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
 * Data blocks hashed per batch.  The verifier first walks the tree for
 * each block (its expected hash), then hashes the batch in one call, two
 * blocks at a time where the CPU can (hash_algs.c), across the ranges of
 * a merkle_verify_many() call: a 4 KiB random read is one block, and two
 * such requests verified together make a pair.  The expected and real
 * digests of a batch live on the stack (2 x 4 KiB).
 */
#define MERKLE_VERIFY_BATCH 64

/*
 * fs/verity/verify.c: verify_data_block() up to the data hash.  Ascend
 * from level 0, pinning the hash blocks on the way, until a block already
 * marked verified gives a trusted hash (or the top is passed: the root
 * hash is trusted).  Then descend, checking each pinned block against the
 * trusted hash of it and marking it verified.  Leaves the expected hash
 * of the data block in want, and its level-0 block, verified, still
 * pinned in *level0 for the caller to put (NULL when there is no tree).
 */
static int merkle_expected_hash(struct merkle_verify_call *call,
				uint64_t data_block, uint8_t *want,
				struct merkle_cache_entry **level0)
{
	struct merkle_tree *t = call->t;
	const struct merkle_geometry *g = &t->geo;
	struct merkle_cache_entry *path[MERKLE_MAX_LEVELS], *e;
	size_t hoffset[MERKLE_MAX_LEVELS];
	uint8_t real[MERKLE_MAX_DIGEST_SIZE];
	uint64_t hidx = data_block;
	int level, err;

	*level0 = NULL;
	for (level = 0; level < (int)g->num_levels; level++) {
		uint64_t hblock = g->level_start[level] + (hidx >> g->log_arity);

		hoffset[level] = merkle_hash_offset(g, hidx);
		err = merkle_get_hash_block(call, (unsigned)level, hblock, &e);
		if (err) {
			merkle_put_path(t, path, level);
			return err;
		}
		if (merkle_cache_entry_verified(e)) {
			memcpy(want, merkle_cache_entry_data(e) + hoffset[level],
			       g->digest_size);
			if (level == 0)
				*level0 = e;
			else
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
		err = merkle_hasher_hash_tree_block(call->h,
						    merkle_cache_entry_data(e),
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
		if (level == 0)
			*level0 = e;
		else
			merkle_cache_put(t->cache, e);
	}
	return 0;
}

static int merkle_expected_hash_hinted(struct merkle_verify_call *call,
				       uint64_t data_block, uint8_t *want)
{
	struct merkle_level0_hint *hint = &call->hint;
	struct merkle_tree *t = call->t;
	const struct merkle_geometry *g = &t->geo;
	uint64_t hblock = g->level_start[0] + (data_block >> g->log_arity);
	size_t hoffset = merkle_hash_offset(g, data_block);
	struct merkle_cache_entry *level0;
	int err;

	if (g->num_levels && hint->e && hint->block == hblock) {
		memcpy(want, merkle_cache_entry_data(hint->e) + hoffset,
		       g->digest_size);
		return 0;
	}
	err = merkle_expected_hash(call, data_block, want, &level0);
	if (err || !level0)
		return err;
	/* Just verified (or found verified), and still pinned from the
	 * walk: the hint for the next blocks, without a second lookup. */
	if (hint->e)
		merkle_cache_put(t->cache, hint->e);
	hint->e = level0;
	hint->block = hblock;
	return 0;
}

/*
 * The batch: data blocks whose expected hash is known, waiting to be
 * hashed, each with the range it belongs to.
 */
struct merkle_batch {
	size_t n;
	const uint8_t *data[MERKLE_VERIFY_BATCH];
	struct merkle_verify_req *req[MERKLE_VERIFY_BATCH];
	uint64_t block[MERKLE_VERIFY_BATCH];
	uint8_t want[MERKLE_VERIFY_BATCH * MERKLE_MAX_DIGEST_SIZE];
};

/*
 * Range req failed at data block 'block' with err.  The first failure in
 * block order wins: a data mismatch found when the batch is hashed may
 * precede the block where its walk stopped.
 */
static void merkle_req_fail(struct merkle_verify_req *req, uint64_t block,
			    int err)
{
	if (req->status && req->res.block <= block)
		return;
	req->status = err;
	req->res.block = block;
}

/* Hash the batch and compare: a mismatch fails its range there. */
static int merkle_batch_check(struct merkle_verify_call *call,
			      struct merkle_batch *b)
{
	const unsigned ds = call->t->geo.digest_size;
	uint8_t real[MERKLE_VERIFY_BATCH * MERKLE_MAX_DIGEST_SIZE];
	int err = merkle_hasher_hash_ptrs(call->h, b->data, b->n, real);

	for (size_t i = 0; i < b->n && !err; i++)
		if (memcmp(b->want + i * ds, real + i * ds, ds) != 0)
			merkle_req_fail(b->req[i], b->block[i], MERKLE_E_CORRUPT);
	b->n = 0;
	return err;
}

/*
 * fs/verity/verify.c: verify_data_block(): a block past the end of the data
 * (a device larger than the file) cannot be hashed by the tree, so it must
 * be all zeroes, as the kernel requires past i_size.
 */
static bool merkle_block_is_zero(const uint8_t *data, size_t block_size)
{
	for (size_t i = 0; i < block_size; i++)
		if (data[i])
			return false;
	return true;
}

/* merkle_tree_ignore_zero_blocks(): want is the hash of a zero block. */
static bool merkle_zero_expected(const struct merkle_tree *t,
				 const uint8_t *want)
{
	return t->zero_blocks &&
	       !memcmp(want, t->zero_digest, t->geo.digest_size);
}

/*
 * Walk the tree for each block of req (its expected hash) and add the
 * block to the batch, hashing the batch whenever it is full.  A walk that
 * fails (a missing or corrupt hash block...) ends the range there.
 */
static int merkle_walk_range(struct merkle_verify_call *call,
			     struct merkle_batch *b,
			     struct merkle_verify_req *req)
{
	const struct merkle_geometry *g = &call->t->geo;
	const uint8_t *data = req->data;
	int err;

	call->ra_blocks = req->ra_blocks;
	call->res = &req->res;
	for (size_t i = 0; i < req->nblocks; i++, data += g->data_block_size) {
		uint64_t block = req->first_block + i;

		if (block >= g->data_blocks) {
			if (!merkle_block_is_zero(data, g->data_block_size)) {
				merkle_req_fail(req, block, MERKLE_E_CORRUPT);
				return 0;
			}
			continue;
		}
		err = merkle_expected_hash_hinted(call, block,
						  b->want + b->n * g->digest_size);
		if (err) {
			merkle_req_fail(req, block, err);
			return 0;
		}
		if (merkle_zero_expected(call->t, b->want + b->n * g->digest_size)) {
			if (merkle_block_is_zero(data, g->data_block_size))
				continue;
			merkle_req_fail(req, block, MERKLE_ZERO_BLOCK);
			return 0;
		}
		if (req->digests) {
			if (memcmp(b->want + b->n * g->digest_size,
				   req->digests + i * g->digest_size,
				   g->digest_size) != 0) {
				merkle_req_fail(req, block, MERKLE_E_CORRUPT);
				return 0;
			}
			continue;
		}
		b->data[b->n] = data;
		b->req[b->n] = req;
		b->block[b->n++] = block;
		if (b->n == MERKLE_VERIFY_BATCH) {
			err = merkle_batch_check(call, b);
			if (err)
				return err;
		}
	}
	return 0;
}

/* What the stats say of a finished range. */
static void merkle_count_range(struct merkle_tree *t,
			       const struct merkle_verify_req *req)
{
	/* A range that failed verified nothing that counts (its caller
	 * fails the request), but after MERKLE_NEED_TREE the caller resumes
	 * at res.block and the blocks before it stay verified (and after
	 * MERKLE_ZERO_BLOCK at the next one). */
	if (req->status == MERKLE_E_CORRUPT)
		merkle_stat_add(&t->stats.failures, 1);
	else if (req->status >= 0)
		merkle_stat_add(&t->stats.blocks_verified,
				req->res.block - req->first_block);
}

int merkle_verify_many(struct merkle_tree *t, struct merkle_verify_req *reqs,
		       size_t n)
{
	struct merkle_verify_call call = { .t = t };
	struct merkle_batch batch;
	size_t i;
	int err = 0;

	for (i = 0; i < n; i++) {
		if (reqs[i].first_block + reqs[i].nblocks < reqs[i].first_block)
			return -EINVAL;
		reqs[i].status = 0;
		reqs[i].res.block = reqs[i].first_block + reqs[i].nblocks;
	}
	call.h = merkle_tree_get_hasher(t);
	if (!call.h)
		return MERKLE_E_NOMEM;
	batch.n = 0;
	for (i = 0; i < n && !err; i++)
		err = merkle_walk_range(&call, &batch, &reqs[i]);
	if (!err)
		err = merkle_batch_check(&call, &batch);
	if (call.hint.e)
		merkle_cache_put(t->cache, call.hint.e);
	merkle_tree_put_hasher(t, call.h);
	if (err)
		return err;
	for (i = 0; i < n; i++)
		merkle_count_range(t, &reqs[i]);
	return 0;
}

int merkle_verify_blocks(struct merkle_tree *t, uint64_t first_block,
			 const void *data, size_t nblocks, unsigned ra_blocks,
			 struct merkle_verify_result *res)
{
	struct merkle_verify_req req = {
		.first_block = first_block, .data = data, .nblocks = nblocks,
		.ra_blocks = ra_blocks,
	};
	int err = merkle_verify_many(t, &req, 1);

	*res = req.res;
	return err ? err : req.status;
}
