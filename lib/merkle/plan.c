// SPDX-License-Identifier: GPL-2.0-only
/*
 * plan.c - which hash blocks a verification will need, for asynchronous
 * callers that read them ahead of it (merkle_plan_reads()) and put them in
 * the cache (merkle_cache_fill()).
 *
 * The answer follows merkle_verify_blocks() (verify.c) exactly: a hash
 * block is needed when the walk up from some data block of the range
 * reaches it, i.e. when every block below it on that path is not yet
 * marked verified; level-0 misses are widened by readahead the same way.
 */
#include <errno.h>
#include <string.h>

#include "merkle_private.h"

/*
 * Extents are capped at MERKLE_MAX_EXTENT_SIZE so that a caller can read
 * each into one buffer (and merkle_extent.len cannot overflow).
 */
_Static_assert(MERKLE_MAX_EXTENT_SIZE >= (1u << MERKLE_DMV_MAX_LOG_BLOCKSIZE),
	       "an extent must hold the largest block");

/* The data block range as level-relative hash block ranges. */
struct merkle_walk {
	struct merkle_tree *t;
	uint64_t first_block;			/* the range's first data block */
	uint64_t first[MERKLE_MAX_LEVELS];	/* index within the level */
	uint64_t last[MERKLE_MAX_LEVELS];
};

/* Coalesced extents in tree order, into the caller's array. */
struct merkle_extent_sink {
	struct merkle_extent *out;
	size_t count, max;
	struct merkle_extent pending;
	bool have_pending;
};

/* A full array ends the plan early; the caller sees count == max. */
#define MERKLE_PLAN_FULL 1

static void merkle_walk_init(struct merkle_walk *w, struct merkle_tree *t,
			     uint64_t first_block, size_t nblocks)
{
	uint64_t last_block = first_block + nblocks - 1;

	w->t = t;
	w->first_block = first_block;
	if (last_block >= t->geo.data_blocks)
		last_block = t->geo.data_blocks - 1;
	for (unsigned level = 0; level < t->geo.num_levels; level++) {
		first_block >>= t->geo.log_arity;
		last_block >>= t->geo.log_arity;
		w->first[level] = first_block;
		w->last[level] = last_block;
	}
}

static uint64_t merkle_walk_block(const struct merkle_walk *w, unsigned level,
				  uint64_t idx)
{
	return w->t->geo.level_start[level] + idx;
}

static bool merkle_walk_cached(const struct merkle_walk *w, unsigned level,
			       uint64_t idx, bool *verified)
{
	*verified = false;
	return merkle_cache_contains(w->t->cache, w->t->id,
				     merkle_walk_block(w, level, idx), verified);
}

static bool merkle_walk_needed(const struct merkle_walk *w, unsigned level,
			       uint64_t idx);

/*
 * Does some walk go on from block idx to its parent: it reaches the block
 * and finds it not marked verified (verify.c: merkle_expected_hash())?
 */
static bool merkle_walk_passes(const struct merkle_walk *w, unsigned level,
			       uint64_t idx)
{
	bool verified;

	merkle_walk_cached(w, level, idx, &verified);
	return !verified && merkle_walk_needed(w, level, idx);
}

/*
 * Does the walk of some data block of the range look block idx of level
 * up?  Every walk looks up its level-0 block; above, a block is looked up
 * when the walk goes on from one of its children.
 */
static bool merkle_walk_needed(const struct merkle_walk *w, unsigned level,
			       uint64_t idx)
{
	const unsigned log_arity = w->t->geo.log_arity;
	uint64_t child, child_end;

	if (level == 0)
		return true;
	child = idx << log_arity;
	child_end = child + w->t->geo.hashes_per_block - 1;
	if (child < w->first[level - 1])
		child = w->first[level - 1];
	if (child_end > w->last[level - 1])
		child_end = w->last[level - 1];
	for (; child <= child_end; child++)
		if (merkle_walk_passes(w, level - 1, child))
			return true;
	return false;
}

static int merkle_sink_flush(struct merkle_extent_sink *s)
{
	if (!s->have_pending)
		return 0;
	if (s->count == s->max)
		return MERKLE_PLAN_FULL;
	s->have_pending = false;
	s->out[s->count++] = s->pending;
	return 0;
}

static int merkle_sink_add(struct merkle_extent_sink *s, uint64_t off,
			   uint32_t len)
{
	int err;

	if (s->have_pending && s->pending.off + s->pending.len == off &&
	    s->pending.len + len <= MERKLE_MAX_EXTENT_SIZE) {
		s->pending.len += len;
		return 0;
	}
	err = merkle_sink_flush(s);
	s->pending.off = off;
	s->pending.len = len;
	s->have_pending = true;
	return err;
}

static int merkle_sink_add_blocks(struct merkle_extent_sink *s,
				  const struct merkle_walk *w, unsigned level,
				  uint64_t idx, uint64_t count)
{
	const struct merkle_geometry *g = &w->t->geo;
	int err = 0;

	for (uint64_t i = 0; i < count && !err; i++)
		err = merkle_sink_add(s, merkle_block_offset(g,
					 merkle_walk_block(w, level, idx + i)),
				      g->block_size);
	return err;
}

/* Uncached needed blocks of an upper level (no readahead there). */
static int merkle_plan_upper_level(struct merkle_extent_sink *s,
				   const struct merkle_walk *w, unsigned level)
{
	bool verified;
	int err = 0;

	for (uint64_t idx = w->first[level]; idx <= w->last[level] && !err;
	     idx++) {
		if (!merkle_walk_cached(w, level, idx, &verified) &&
		    merkle_walk_needed(w, level, idx))
			err = merkle_sink_add_blocks(s, w, level, idx, 1);
	}
	return err;
}

/*
 * Level 0 as verify.c reads it: each miss, in order, is read together with
 * up to ra_blocks following uncached blocks.
 */
static int merkle_plan_level0(struct merkle_extent_sink *s,
			      const struct merkle_walk *w, unsigned ra_blocks)
{
	const uint64_t level_end = w->t->geo.level_blocks[0];
	uint64_t idx = w->first[0], run;
	bool verified;
	int err = 0;

	ra_blocks = merkle_readahead_limit(&w->t->geo, ra_blocks);

	while (idx <= w->last[0] && !err) {
		if (merkle_walk_cached(w, 0, idx, &verified)) {
			idx++;
			continue;
		}
		run = 1;
		while (run <= ra_blocks && idx + run < level_end &&
		       !merkle_walk_cached(w, 0, idx + run, &verified))
			run++;
		err = merkle_sink_add_blocks(s, w, 0, idx, run);
		idx += run;
	}
	return err;
}

/*
 * Every level-0 block of the range cached and marked verified: every walk
 * stops there, so the plan is empty.  Once the tree is warm this is the
 * common case, answered with one lookup per level-0 block (one for a
 * 4 KiB read) instead of one per needed block of every level.
 *
 * The lookup also prefetches the expected hash of the range's first data
 * block in each level-0 block: the plan runs when the request is
 * submitted and the verification when its data is in, so the data read
 * hides the load.  For a random read that load misses the CPU's caches
 * (level 0 is 2 MiB for 256 MiB of data, and the data's copies pass
 * through them): its memcpy in merkle_expected_hash() was 2.7% of a
 * random 4 KiB verified read's samples, and the prefetch made that row
 * about 1.02x faster (docs/PERFORMANCE.md, "The expected hash prefetched
 * at plan time").
 */
static bool merkle_walk_level0_verified(const struct merkle_walk *w)
{
	const struct merkle_geometry *g = &w->t->geo;
	size_t off = merkle_hash_offset(g, w->first_block);

	for (uint64_t idx = w->first[0]; idx <= w->last[0]; idx++, off = 0)
		if (!merkle_cache_verified_prefetch(w->t->cache, w->t->id,
						    merkle_walk_block(w, 0, idx),
						    off, g->digest_size))
			return false;
	return true;
}

/* Emit the plan in tree order: the top level is stored first. */
static int merkle_plan(struct merkle_tree *t, uint64_t first_block,
		       size_t nblocks, unsigned ra_blocks, bool all_levels,
		       struct merkle_extent_sink *s)
{
	struct merkle_walk w;
	int err = 0;

	if (first_block + nblocks < first_block)
		return -EINVAL;
	if (t->geo.num_levels == 0 || nblocks == 0 ||
	    first_block >= t->geo.data_blocks)
		return 0;
	merkle_walk_init(&w, t, first_block, nblocks);
	if (merkle_walk_level0_verified(&w))
		return 0;
	for (unsigned level = t->geo.num_levels - 1;
	     all_levels && level > 0 && !err; level--)
		err = merkle_plan_upper_level(s, &w, level);
	if (!err)
		err = merkle_plan_level0(s, &w, ra_blocks);
	if (!err)
		err = merkle_sink_flush(s);
	return err;
}

int merkle_plan_reads(struct merkle_tree *t, uint64_t first_block,
		      size_t nblocks, unsigned ra_blocks, bool all_levels,
		      struct merkle_extent *out, size_t max)
{
	struct merkle_extent_sink s = { .out = out, .max = max };
	int err = merkle_plan(t, first_block, nblocks, ra_blocks, all_levels,
			      &s);

	if (err < 0)
		return err;
	return (int)s.count;
}

bool merkle_tree_cached(struct merkle_tree *t, uint64_t off)
{
	return off < t->geo.tree_size &&
	       merkle_cache_contains(t->cache, t->id, off / t->geo.block_size,
				     NULL);
}

int merkle_cache_fill(struct merkle_tree *t, uint64_t off, const void *buf,
		      size_t len)
{
	const struct merkle_geometry *g = &t->geo;
	const uint8_t *block = buf;
	int err = 0;

	if (off % g->block_size || len % g->block_size ||
	    off > g->tree_size || len > g->tree_size - off)
		return -EINVAL;
	/*
	 * Last block first: the first one of a MERKLE_NEED_TREE extent is the
	 * block the walk asked for, the rest readahead, so it must be the
	 * most recently used and the last a small cache evicts (verify.c
	 * inserts its own reads in the same order).
	 */
	for (size_t done = len; done > 0 && !err; done -= g->block_size) {
		size_t at = done - g->block_size;

		err = merkle_cache_insert(t->cache, t->id,
					  (off + at) / g->block_size,
					  block + at, g->block_size, NULL);
	}
	return err;
}
