// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_verify.c - lib/merkle's verifier against fuzzed trees and data.
 *
 * Each input builds a small tree in memory and verifies its data the way
 * the tools and the daemon do: a tiny shared cache (so that eviction, and
 * with it the loss of "verified" marks of fs/verity/verify.c, happens all
 * the time), chunked merkle_verify_blocks() calls with readahead, over a
 * read_tree callback (the tools) or asynchronously (the daemon: no
 * read_tree; each MERKLE_NEED_TREE answer's extent, and optionally a
 * merkle_plan_reads() plan, goes in with merkle_cache_fill()).
 *
 * Modes and their oracles (abort() = a bug):
 *   honest      merkle_build_tree()'s own tree and root hash: every block
 *               must verify, in any chunking, with any cache size.
 *   flip data   one data byte flipped: exactly that block must fail, and
 *               every other block must still verify.
 *   flip tree   one tree byte flipped: the first failure must be the first
 *               data block whose path goes through the flipped block.
 *   arbitrary   tree and root hash are fuzz bytes: any answer but a crash,
 *               an out-of-tree read or an unexpected error code is fine.
 * Blocks past the end of the data (a device larger than the file) must be
 * accepted when zero and refused otherwise, as the kernel requires.
 *
 * Input (see parse_case()): a 14-byte header, the salt, then a data
 * pattern repeated to data_size.  data_size is at most 64 KiB, or 320 KiB
 * with FLAG_LARGE so that SHA-512 with 1 KiB blocks reaches 3 levels,
 * and runs stay fast.
 */
#include <errno.h>

#include "fuzz_input.h"
#include "merkle.h"

#define MAX_DATA_SIZE (320u << 10)
#define SMALL_DATA_SIZE (64u << 10)
#define MAX_EXTENTS 16
/* Give up on the asynchronous path after this many MERKLE_NEED_TREE
 * rounds: a cache smaller than one path may legitimately evict what was
 * filled before the walk gets back to it. */
#define MAX_ASYNC_ROUNDS 16

enum fuzz_mode { MODE_HONEST, MODE_FLIP_DATA, MODE_FLIP_TREE, MODE_ARBITRARY };

#define FLAG_ASYNC (1u << 2)
#define FLAG_PLAN (1u << 3)	/* async: fill a plan too */
#define FLAG_LARGE (1u << 4)

/*
 * The synchronous tree (a read_tree callback, as the tools open it) and,
 * with FLAG_ASYNC, an asynchronous one on the same cache (no callback, as
 * the daemon opens it).
 */
struct merkle_trees {
	struct merkle_tree *sync;
	struct merkle_tree *async;
};

struct fuzz_case {
	enum fuzz_mode mode;
	unsigned flags;
	struct merkle_params params;
	size_t cache_blocks;
	unsigned ra_blocks;
	uint32_t flip_pos;
	size_t chunk_blocks;
	unsigned past_eof_blocks;	/* zero blocks verified after the data */
	uint8_t root_hash[MERKLE_MAX_DIGEST_SIZE];
	uint8_t *data;			/* data_blocks + past_eof_blocks blocks */
	uint8_t *tree;			/* geometry.tree_size bytes */
	struct merkle_geometry geo;
};

/* read_tree / read_data over memory. */
struct mem_io {
	const uint8_t *bytes;
	uint64_t size;
};

static int mem_read(void *ctx, void *buf, size_t len, uint64_t off)
{
	struct mem_io *io = ctx;

	/* The library must never ask for bytes outside the tree (or data). */
	FUZZ_CHECK(off <= io->size && len <= io->size - off);
	memcpy(buf, io->bytes + off, len);
	return 0;
}

static int mem_write(void *ctx, const void *buf, size_t len, uint64_t off)
{
	struct mem_io *io = ctx;

	FUZZ_CHECK(off <= io->size && len <= io->size - off);
	memcpy((uint8_t *)io->bytes + off, buf, len);
	return 0;
}

/*
 * The header: flags+mode, hash alg, log block size, salt size (1 byte
 * each), data size (le24), cache size in blocks, readahead blocks (1 byte
 * each), flip position (le32), verify chunk in blocks, zero blocks past
 * the end (1 byte each); then the salt.  Params come out valid except in
 * arbitrary mode.
 */
static void parse_case(struct fuzz_input *in, struct fuzz_case *c)
{
	unsigned b0 = (unsigned)fuzz_take_le(in, 1);
	unsigned alg = (unsigned)fuzz_take_le(in, 1);
	unsigned log_bs = (unsigned)fuzz_take_le(in, 1);
	unsigned salt = (unsigned)fuzz_take_le(in, 1);

	c->mode = (enum fuzz_mode)(b0 & 3);
	c->flags = b0;
	if (c->mode == MODE_ARBITRARY) {
		/* Raw enough to reach the parameter checks of open. */
		c->params.hash_alg = alg % 4;
		c->params.log_blocksize = 8 + log_bs % 10;
		c->params.salt_size = salt % 40;
	} else {
		c->params.hash_alg = 1 + alg % 2;
		c->params.log_blocksize = 10 + log_bs % 3;
		c->params.salt_size = salt % (MERKLE_MAX_SALT_SIZE + 1);
	}
	/* Small data unless asked: most runs then take well under 1 ms. */
	if (b0 & FLAG_LARGE)
		c->params.data_size = fuzz_take_le(in, 3) % (MAX_DATA_SIZE + 1);
	else
		c->params.data_size = fuzz_take_le(in, 3) % (SMALL_DATA_SIZE + 1);
	c->cache_blocks = fuzz_take_le(in, 1) % 8;
	c->ra_blocks = (unsigned)fuzz_take_le(in, 1) % 8;
	c->flip_pos = (uint32_t)fuzz_take_le(in, 4);
	c->chunk_blocks = 1 + fuzz_take_le(in, 1) % 16;
	c->past_eof_blocks = (unsigned)fuzz_take_le(in, 1) % 3;
	fuzz_take_bytes(in, c->params.salt,
			c->params.salt_size < MERKLE_MAX_SALT_SIZE ?
			c->params.salt_size : MERKLE_MAX_SALT_SIZE);
}

/* The data: the rest of the input repeated, then zero blocks. */
static bool make_data(struct fuzz_input *in, struct fuzz_case *c)
{
	size_t blocks = c->geo.data_blocks + c->past_eof_blocks;
	size_t pattern = fuzz_remaining(in);

	c->data = calloc(blocks ? blocks : 1, c->geo.block_size);
	if (!c->data)
		return false;
	for (uint64_t i = 0; pattern && i < c->params.data_size; i += pattern)
		memcpy(c->data + i, fuzz_rest(in),
		       c->params.data_size - i < pattern ?
		       (size_t)(c->params.data_size - i) : pattern);
	return true;
}

/* The honest tree and root hash, built from an exact-size copy of the
 * data (ASan catches a read past data_size: the callback contract). */
static void build_honest_tree(struct fuzz_case *c)
{
	size_t n = (size_t)c->params.data_size;
	uint8_t *exact = malloc(n ? n : 1);
	struct mem_io data_io = { .bytes = exact, .size = n };
	struct mem_io tree_io = { .bytes = c->tree, .size = c->geo.tree_size };

	FUZZ_CHECK(exact != NULL);
	memcpy(exact, c->data, n);
	FUZZ_CHECK(merkle_build_tree(&c->params, mem_read, &data_io,
				     mem_write, &tree_io, 1,
				     c->root_hash) == 0);
	free(exact);
}

/* Arbitrary mode: root hash and tree from the data pattern (a file with
 * a tree has more than one block of data). */
static void fill_arbitrary_tree(struct fuzz_case *c)
{
	for (uint64_t i = 0; i < c->geo.tree_size; i++)
		c->tree[i] = c->data[i % c->params.data_size] ^ (uint8_t)i;
	memcpy(c->root_hash, c->data,
	       c->params.data_size < sizeof(c->root_hash) ?
	       (size_t)c->params.data_size : sizeof(c->root_hash));
}

/* Extents a plan returns must be whole blocks inside the tree. */
static void check_extent(const struct fuzz_case *c,
			 const struct merkle_extent *x)
{
	FUZZ_CHECK(x->len > 0 && x->len % c->geo.block_size == 0);
	FUZZ_CHECK(x->len <= MERKLE_MAX_EXTENT_SIZE);
	FUZZ_CHECK(x->off % c->geo.block_size == 0);
	FUZZ_CHECK(x->off <= c->geo.tree_size &&
		   x->len <= c->geo.tree_size - x->off);
}

static void fill_extent(struct merkle_tree *t, const struct fuzz_case *c,
			const struct merkle_extent *x)
{
	check_extent(c, x);
	FUZZ_CHECK(merkle_cache_fill(t, x->off, c->tree + x->off, x->len) == 0);
}

/* The plan for a chunk: what the daemon reads along with the data. */
static void fill_planned(struct merkle_tree *t, const struct fuzz_case *c,
			 uint64_t first, size_t n)
{
	struct merkle_extent x[MAX_EXTENTS];
	int count = merkle_plan_reads(t, first, n, c->ra_blocks, true, x,
				      MAX_EXTENTS);

	FUZZ_CHECK(count >= 0 && count <= MAX_EXTENTS);
	for (int i = 0; i < count; i++)
		fill_extent(t, c, &x[i]);
}

/*
 * One chunk, as the daemon verifies a request: read what the verifier
 * says it lacks, fill it, resume where it stopped (never before where the
 * last call started).  A cache too small to keep a whole path may never
 * finish that way: after MAX_ASYNC_ROUNDS the chunk is verified through
 * the synchronous tree instead, which reads and pins in one walk.
 */
static int verify_chunk(struct merkle_trees *trees, const struct fuzz_case *c,
			uint64_t first, size_t n, uint64_t *bad)
{
	const size_t bs = c->geo.block_size;
	struct merkle_verify_result res;
	uint64_t from = first;
	int err;

	if (trees->async) {
		if (c->flags & FLAG_PLAN)
			fill_planned(trees->async, c, first, n);
		for (unsigned round = 0; round < MAX_ASYNC_ROUNDS; round++) {
			err = merkle_verify_blocks(trees->async, from,
						   c->data + from * bs,
						   n - (from - first),
						   c->ra_blocks, &res);
			*bad = res.block;
			if (err != MERKLE_NEED_TREE)
				return err;
			FUZZ_CHECK(res.block >= from && res.block < first + n);
			fill_extent(trees->async, c, &res.missing);
			from = res.block;
		}
	}
	err = merkle_verify_blocks(trees->sync, from, c->data + from * bs,
				   n - (from - first), c->ra_blocks, &res);
	FUZZ_CHECK(err != MERKLE_NEED_TREE);
	*bad = res.block;
	return err;
}

/*
 * Verify every block in chunks, resuming after each failure as
 * `vublk-verity verify` does.  Returns the first bad block, or UINT64_MAX.
 */
static uint64_t verify_all(struct merkle_trees *trees,
			   const struct fuzz_case *c, unsigned *failures)
{
	uint64_t total = c->geo.data_blocks + c->past_eof_blocks;
	uint64_t first_bad = UINT64_MAX, bad, first = 0;
	size_t n;
	int err;

	*failures = 0;
	while (first < total) {
		n = total - first < c->chunk_blocks ?
		    (size_t)(total - first) : c->chunk_blocks;
		bad = UINT64_MAX;
		err = verify_chunk(trees, c, first, n, &bad);
		if (err == 0) {
			first += n;
			continue;
		}
		FUZZ_CHECK(err == MERKLE_E_CORRUPT);
		FUZZ_CHECK(bad >= first && bad < first + n);
		if (first_bad == UINT64_MAX)
			first_bad = bad;
		(*failures)++;
		first = bad + 1;
	}
	return first_bad;
}

/* Flip tree mode: the first data block whose walk reads tree block tb. */
static uint64_t first_block_under(const struct merkle_geometry *g,
				  uint64_t tb)
{
	for (unsigned level = 0; level < g->num_levels; level++) {
		if (tb >= g->level_start[level] &&
		    tb < g->level_start[level] + g->level_blocks[level])
			return (tb - g->level_start[level])
			       << (g->log_arity * (level + 1));
	}
	FUZZ_CHECK(!"tree block outside every level");
	return 0;
}

/* Apply the mode's damage; returns the block that must fail first. */
static uint64_t damage(struct fuzz_case *c)
{
	uint64_t pos;

	switch (c->mode) {
	case MODE_FLIP_DATA:
		if (c->params.data_size == 0)
			return UINT64_MAX;
		pos = c->flip_pos % c->params.data_size;
		c->data[pos] ^= 0x01;
		return pos >> c->params.log_blocksize;
	case MODE_FLIP_TREE:
		if (c->geo.tree_size == 0)
			return UINT64_MAX;
		pos = c->flip_pos % c->geo.tree_size;
		c->tree[pos] ^= 0x80;
		return first_block_under(&c->geo, pos >> c->params.log_blocksize);
	default:
		return UINT64_MAX;
	}
}

static void run_case(struct fuzz_case *c)
{
	struct mem_io io = { .bytes = c->tree, .size = c->geo.tree_size };
	struct merkle_trees trees = { NULL, NULL };
	struct merkle_cache *cache;
	uint64_t expect_bad, first_bad;
	unsigned failures;

	if (c->mode != MODE_ARBITRARY)
		build_honest_tree(c);
	else
		fill_arbitrary_tree(c);
	expect_bad = damage(c);

	cache = merkle_cache_new(c->cache_blocks * c->geo.block_size);
	FUZZ_CHECK(cache != NULL);
	FUZZ_CHECK(merkle_tree_open(&trees.sync, &c->params, c->root_hash,
				    cache, mem_read, &io) == 0);
	if (c->flags & FLAG_ASYNC)
		FUZZ_CHECK(merkle_tree_open(&trees.async, &c->params,
					    c->root_hash, cache, NULL,
					    NULL) == 0);
	first_bad = verify_all(&trees, c, &failures);
	switch (c->mode) {
	case MODE_HONEST:
		FUZZ_CHECK(first_bad == UINT64_MAX);
		break;
	case MODE_FLIP_DATA:
		FUZZ_CHECK(first_bad == expect_bad);
		FUZZ_CHECK(failures == (expect_bad == UINT64_MAX ? 0 : 1));
		break;
	case MODE_FLIP_TREE:
		FUZZ_CHECK(first_bad == expect_bad);
		break;
	case MODE_ARBITRARY:
		break;
	}
	merkle_tree_close(trees.async);
	merkle_tree_close(trees.sync);
	merkle_cache_free(cache);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_case c = { 0 };
	struct fuzz_input in;
	struct merkle_tree *t;
	struct merkle_cache *cache;
	int err;

	fuzz_input_init(&in, data, size);
	parse_case(&in, &c);
	err = merkle_geometry_init(&c.geo, &c.params);
	if (err) {
		/* Only arbitrary mode makes bad params; open must agree. */
		FUZZ_CHECK(c.mode == MODE_ARBITRARY);
		cache = merkle_cache_new(0);
		FUZZ_CHECK(cache != NULL);
		FUZZ_CHECK(merkle_tree_open(&t, &c.params, c.root_hash, cache,
					    mem_read, NULL) == err);
		merkle_cache_free(cache);
		return 0;
	}
	if (make_data(&in, &c)) {
		c.tree = calloc(1, c.geo.tree_size ? c.geo.tree_size : 1);
		if (c.tree)
			run_case(&c);
	}
	free(c.tree);
	free(c.data);
	return 0;
}
