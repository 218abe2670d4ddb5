// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_verify - lib/merkle's verifier, cache, readahead and read planning,
 * on trees built in memory by merkle_build_tree() (whose bytes the oracle
 * test checks against fsverity-utils).
 *
 * Expected results come from the tree's shape, not from the library: a
 * flipped byte in a data block fails that block only; in hash block j of
 * level L it fails the data blocks that block covers,
 * [j * hpb^(L+1), (j+1) * hpb^(L+1)).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "merkle_test.h"

struct image {
	struct merkle_params params;
	struct merkle_geometry geo;
	uint8_t *data;		/* data_blocks + 2 blocks, zero-padded */
	uint8_t *tree;
	uint8_t root[MERKLE_MAX_DIGEST_SIZE];
};

/* xorshift64: reproducible data without a seed file. */
static void fill_random(uint8_t *buf, size_t len, uint64_t seed)
{
	uint64_t x = seed | 1;

	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[i] = (uint8_t)(x >> 32);
	}
}

static int image_read_data(void *ctx, void *buf, size_t len, uint64_t off)
{
	struct image *im = ctx;

	CHECK(off + len <= im->params.data_size);
	memcpy(buf, im->data + off, len);
	return 0;
}

static int image_write_tree(void *ctx, const void *buf, size_t len,
			    uint64_t off)
{
	struct image *im = ctx;

	CHECK(off + len <= im->geo.tree_size);
	memcpy(im->tree + off, buf, len);
	return 0;
}

static int image_read_tree(void *ctx, void *buf, size_t len, uint64_t off)
{
	struct image *im = ctx;

	/* Readahead must stay inside the tree (level 0 ends it). */
	CHECK(off + len <= im->geo.tree_size);
	memcpy(buf, im->tree + off, len);
	return 0;
}

static void image_init(struct image *im, unsigned alg, unsigned log_bs,
		       unsigned salt_size, uint64_t data_size,
		       unsigned threads)
{
	memset(im, 0, sizeof(*im));
	im->params.hash_alg = alg;
	im->params.log_blocksize = log_bs;
	im->params.salt_size = salt_size;
	fill_random(im->params.salt, salt_size, 42);
	im->params.data_size = data_size;
	CHECK_RET(merkle_geometry_init(&im->geo, &im->params), 0);
	im->data = calloc(im->geo.data_blocks + 2, im->geo.block_size);
	im->tree = calloc(1, im->geo.tree_size + 1);
	CHECK(im->data && im->tree);
	fill_random(im->data, data_size, data_size);
	CHECK_RET(merkle_build_tree(&im->params, image_read_data, im,
				    image_write_tree, im, threads, im->root),
		  0);
}

static void image_free(struct image *im)
{
	free(im->data);
	free(im->tree);
}

static struct merkle_tree *image_open(struct image *im,
				      struct merkle_cache *cache)
{
	struct merkle_tree *t;

	CHECK_RET(merkle_tree_open(&t, &im->params, im->root, cache,
				   image_read_tree, im),
		  0);
	return t;
}

/* An asynchronous caller's tree: no read_tree, the verifier says what
 * it lacks. */
static struct merkle_tree *image_open_async(struct image *im,
					    struct merkle_cache *cache)
{
	struct merkle_tree *t;

	CHECK_RET(merkle_tree_open(&t, &im->params, im->root, cache, NULL,
				   NULL),
		  0);
	return t;
}

static int verify_result(struct merkle_tree *t, struct image *im,
			 uint64_t first, size_t n, unsigned ra,
			 struct merkle_verify_result *res)
{
	return merkle_verify_blocks(t, first,
				    im->data + first * im->geo.block_size, n,
				    ra, res);
}

/* *bad: where the call stopped (the bad block after MERKLE_E_CORRUPT). */
static int verify(struct merkle_tree *t, struct image *im, uint64_t first,
		  size_t n, unsigned ra, uint64_t *bad)
{
	struct merkle_verify_result res;
	int err = verify_result(t, im, first, n, ra, &res);

	*bad = res.block;
	return err;
}

/* Configurations: 3 levels, 2 levels, no tree, empty. */
static void image_3_levels(struct image *im)
{
	/* 301 data blocks, 16 hashes per block: levels of 19, 2, 1 blocks. */
	image_init(im, MERKLE_HASH_SHA512, 10, 7, 300 * 1024 + 123, 1);
	CHECK(im->geo.num_levels == 3 && im->geo.level_blocks[0] == 19);
}

static void image_2_levels(struct image *im)
{
	image_init(im, MERKLE_HASH_SHA256, 12, 0, 2 * 128 * 4096 + 5000, 1);
	CHECK(im->geo.num_levels == 2 && im->geo.level_blocks[0] == 3);
}

static void test_all_blocks_verify(struct image *im)
{
	struct merkle_cache *cache = merkle_cache_new(1 << 20);
	struct merkle_tree *t = image_open(im, cache);
	uint64_t nblocks = im->geo.data_blocks, bad = ~0ull;
	struct merkle_stats st;

	/* Whole range in one call, then again block by block (cached). */
	CHECK_RET(verify(t, im, 0, nblocks, 0, &bad), 0);
	for (uint64_t b = 0; b < nblocks; b++)
		CHECK_RET(verify(t, im, b, 1, 0, &bad), 0);
	/* Past the end of the data: zeroes pass, anything else fails. */
	CHECK_RET(verify(t, im, nblocks, 1, 0, &bad), 0);
	im->data[nblocks * im->geo.block_size + 5] = 1;
	CHECK_RET(verify(t, im, nblocks, 1, 0, &bad), MERKLE_E_CORRUPT);
	CHECK(bad == nblocks);
	im->data[nblocks * im->geo.block_size + 5] = 0;

	merkle_tree_stats(t, &st);
	CHECK(st.blocks_verified == 2 * nblocks + 1);
	CHECK(st.failures == 1);
	/* Every hash block read exactly once: the cache holds the tree. */
	CHECK(st.tree_blocks_read == im->geo.tree_size / im->geo.block_size);
	CHECK(st.cache_misses == st.tree_blocks_read);
	merkle_tree_close(t);
	merkle_cache_free(cache);
}

/* Per-block results of a fresh tree, each block verified on its own. */
static void scan_blocks(struct image *im, size_t budget, unsigned ra,
			int *results)
{
	struct merkle_cache *cache = merkle_cache_new(budget);
	struct merkle_tree *t;
	uint64_t bad;

	CHECK(cache);
	t = image_open(im, cache);
	for (uint64_t b = 0; b < im->geo.data_blocks; b++) {
		bad = ~0ull;
		results[b] = verify(t, im, b, 1, ra, &bad);
		CHECK(results[b] == 0 || bad == b);
	}
	merkle_tree_close(t);
	merkle_cache_free(cache);
}

/*
 * Check every budget (none, one block, a few, all) and readahead gives the
 * expected per-block answers, and a whole-range call the first bad block.
 */
static void check_answers(struct image *im, uint64_t bad_first,
			  uint64_t bad_end)
{
	const size_t bs = im->geo.block_size;
	const size_t budgets[] = { 0, bs, 3 * bs, 1 << 20 };
	int *results = calloc(im->geo.data_blocks, sizeof(*results));
	struct merkle_cache *cache = merkle_cache_new(1 << 20);
	struct merkle_tree *t = image_open(im, cache);
	uint64_t bad = ~0ull;

	CHECK(results && cache);
	if (bad_end > im->geo.data_blocks)
		bad_end = im->geo.data_blocks;
	for (size_t i = 0; i < sizeof(budgets) / sizeof(budgets[0]); i++) {
		for (unsigned ra = 0; ra <= 4; ra += 4) {
			scan_blocks(im, budgets[i], ra, results);
			for (uint64_t b = 0; b < im->geo.data_blocks; b++)
				CHECK(results[b] == (b >= bad_first && b < bad_end
						     ? MERKLE_E_CORRUPT : 0));
		}
	}
	CHECK_RET(verify(t, im, 0, im->geo.data_blocks, 2, &bad),
		  bad_first == ~0ull ? 0 : MERKLE_E_CORRUPT);
	CHECK(bad_first == ~0ull || bad == bad_first);
	merkle_tree_close(t);
	merkle_cache_free(cache);
	free(results);
}

/* Data blocks under hash block idx of level (level-relative index). */
static void covered_blocks(const struct image *im, unsigned level,
			   uint64_t idx, uint64_t *first, uint64_t *end)
{
	unsigned shift = im->geo.log_arity * (level + 1);

	*first = idx << shift;
	*end = (idx + 1) << shift;
}

static void flip_tree_byte(struct image *im, unsigned level, uint64_t idx,
			   size_t byte)
{
	uint64_t off = (im->geo.level_start[level] + idx) * im->geo.block_size;

	im->tree[off + byte] ^= 0x40;
}

static void test_corruption(struct image *im)
{
	const size_t bs = im->geo.block_size;
	const uint64_t last = im->geo.data_blocks - 1;
	const size_t tail = im->params.data_size - last * bs;
	uint64_t first, end;

	check_answers(im, ~0ull, ~0ull);

	/* A data byte, in the middle and in the last block's padding. */
	im->data[37 * bs + 11] ^= 1;
	check_answers(im, 37, 38);
	im->data[37 * bs + 11] ^= 1;
	im->data[last * bs + tail] ^= 1;
	check_answers(im, last, last + 1);
	im->data[last * bs + tail] ^= 1;

	/* Each hash level: a digest byte, then the last block's padding. */
	for (unsigned level = 0; level < im->geo.num_levels; level++) {
		uint64_t idx = im->geo.level_blocks[level] / 2;

		flip_tree_byte(im, level, idx, im->geo.digest_size + 3);
		covered_blocks(im, level, idx, &first, &end);
		check_answers(im, first, end);
		flip_tree_byte(im, level, idx, im->geo.digest_size + 3);

		idx = im->geo.level_blocks[level] - 1;
		flip_tree_byte(im, level, idx, bs - 1);
		covered_blocks(im, level, idx, &first, &end);
		check_answers(im, first, end);
		flip_tree_byte(im, level, idx, bs - 1);
	}
}

/* Files of at most one block have no tree: the root hash is checked. */
static void test_no_tree(uint64_t data_size)
{
	struct image im;
	struct merkle_cache *cache;
	struct merkle_tree *t;
	uint64_t bad = ~0ull;
	struct merkle_stats st;

	image_init(&im, MERKLE_HASH_SHA256, 12, 5, data_size, 1);
	CHECK(im.geo.num_levels == 0 && im.geo.tree_size == 0);
	cache = merkle_cache_new(0);
	t = image_open(&im, cache);
	CHECK_RET(verify(t, &im, 0, 2, 0, &bad), 0);
	im.data[data_size ? data_size - 1 : 0] ^= 1;
	CHECK_RET(verify(t, &im, 0, 2, 0, &bad), MERKLE_E_CORRUPT);
	CHECK(bad == 0);
	im.data[data_size ? data_size - 1 : 0] ^= 1;
	im.data[im.geo.block_size + 7] = 9;
	CHECK_RET(verify(t, &im, 0, 2, 0, &bad), MERKLE_E_CORRUPT);
	CHECK(bad == 1);
	merkle_tree_stats(t, &st);
	CHECK(st.tree_reads == 0 && st.blocks_verified == 2 &&
	      st.failures == 2);
	merkle_tree_close(t);
	merkle_cache_free(cache);
	image_free(&im);
}

/* Sequential pass, one block per call, over a 19/2/1-block tree. */
static void sequential_pass(struct image *im, unsigned ra,
			    struct merkle_stats *st)
{
	struct merkle_cache *cache = merkle_cache_new(1 << 20);
	struct merkle_tree *t = image_open(im, cache);
	uint64_t bad;

	for (uint64_t b = 0; b < im->geo.data_blocks; b++)
		CHECK_RET(verify(t, im, b, 1, ra, &bad), 0);
	merkle_tree_stats(t, st);
	merkle_tree_close(t);
	merkle_cache_free(cache);
}

static void test_readahead(struct image *im)
{
	struct merkle_stats plain, ahead, far;

	sequential_pass(im, 0, &plain);
	CHECK(plain.tree_reads == 22 && plain.tree_blocks_read == 22);
	CHECK(plain.blocks_read_ahead == 0 && plain.cache_misses == 22);

	/* Level-0 misses at blocks 0, 5, 10, 15; blocks 16-18 end level 0. */
	sequential_pass(im, 4, &ahead);
	CHECK(ahead.tree_reads < plain.tree_reads);
	CHECK(ahead.tree_reads == 4 + 3 && ahead.tree_blocks_read == 22);
	CHECK(ahead.blocks_read_ahead == 15);
	CHECK(ahead.blocks_verified == plain.blocks_verified);

	/* Readahead past the end of level 0 is cut there. */
	sequential_pass(im, 1000, &far);
	CHECK(far.tree_reads == 1 + 3 && far.blocks_read_ahead == 18);
}

static void check_same_tree(struct image *a, struct image *b)
{
	CHECK(memcmp(a->root, b->root, MERKLE_MAX_DIGEST_SIZE) == 0);
	CHECK(a->geo.tree_size == b->geo.tree_size);
	CHECK(memcmp(a->tree, b->tree, a->geo.tree_size) == 0);
}

static void test_threads_same_tree(void)
{
	/* Several of the builder's 1 MiB chunks, the last one partial. */
	const uint64_t size = 5 * 1024 * 1024 + 4096 * 3 + 17;
	const unsigned threads[] = { 2, 0, 7 };
	struct image one, many;

	image_init(&one, MERKLE_HASH_SHA256, 12, 32, size, 1);
	for (size_t i = 0; i < sizeof(threads) / sizeof(threads[0]); i++) {
		image_init(&many, MERKLE_HASH_SHA256, 12, 32, size, threads[i]);
		check_same_tree(&one, &many);
		image_free(&many);
	}
	image_free(&one);
}

static void fill_extents(struct merkle_tree *t, struct image *im,
			 const struct merkle_extent *x, int n)
{
	for (int i = 0; i < n; i++)
		CHECK_RET(merkle_cache_fill(t, x[i].off, im->tree + x[i].off,
					    x[i].len),
			  0);
}

static void check_extent(const struct merkle_extent *x, uint64_t block,
			 uint64_t blocks, size_t bs)
{
	CHECK(x->off == block * bs && x->len == blocks * bs);
}

/* Tree blocks of the 19/2/1 tree: 0 = top, 1-2 = level 1, 3-21 = level 0. */
static void test_plan_and_fill(struct image *im)
{
	const size_t bs = im->geo.block_size;
	struct merkle_cache *cache = merkle_cache_new(1 << 20);
	struct merkle_tree *t = image_open_async(im, cache);
	struct merkle_verify_result res;
	struct merkle_extent x[8];
	struct merkle_stats st;
	uint64_t bad;

	/* Nothing cached: the verifier names the level-0 block of data
	 * block 40 (level-0 index 2), where its walk starts. */
	CHECK_RET(verify_result(t, im, 40, 10, 0, &res), MERKLE_NEED_TREE);
	CHECK(res.block == 40);
	check_extent(&res.missing, 3 + 2, 1, bs);

	/* Data 40-49: level-0 blocks 2-3, level-1 block 0, the top. */
	CHECK_RET(merkle_plan_reads(t, 40, 10, 0, true, x, 8), 2);
	check_extent(&x[0], 0, 2, bs);
	check_extent(&x[1], 3 + 2, 2, bs);
	/* Readahead as the verifier does it: 2 blocks after the miss at 2. */
	CHECK_RET(merkle_plan_reads(t, 40, 10, 2, false, x, 8), 1);
	check_extent(&x[0], 3 + 2, 3, bs);
	CHECK_RET(verify_result(t, im, 40, 10, 2, &res), MERKLE_NEED_TREE);
	check_extent(&res.missing, 3 + 2, 3, bs);
	CHECK_RET(merkle_plan_reads(t, 40, 10, 0, true, x, 1), 1);
	check_extent(&x[0], 0, 2, bs);

	CHECK_RET(merkle_plan_reads(t, 40, 10, 0, true, x, 8), 2);
	fill_extents(t, im, x, 2);
	CHECK_RET(verify(t, im, 40, 10, 0, &bad), 0);
	CHECK(bad == 50);
	CHECK_RET(merkle_plan_reads(t, 40, 10, 0, true, x, 8), 0);

	/* Data 100-109 need level-0 block 6 only: its parent is verified. */
	CHECK_RET(merkle_plan_reads(t, 100, 10, 0, true, x, 8), 1);
	check_extent(&x[0], 3 + 6, 1, bs);
	fill_extents(t, im, x, 1);
	CHECK_RET(verify(t, im, 100, 10, 0, &bad), 0);

	/* Filled blocks are unverified: a bad one is caught when used. */
	CHECK_RET(merkle_plan_reads(t, 200, 1, 0, true, x, 8), 1);
	check_extent(&x[0], 3 + 200 / 16, 1, bs);
	im->tree[x[0].off + 1] ^= 1;
	fill_extents(t, im, x, 1);
	im->tree[x[0].off + 1] ^= 1;
	CHECK_RET(verify(t, im, 200, 1, 0, &bad), MERKLE_E_CORRUPT);
	CHECK(bad == 200);

	CHECK_RET(merkle_cache_fill(t, bs / 2, im->tree, bs), -EINVAL);
	CHECK_RET(merkle_cache_fill(t, im->geo.tree_size, im->tree, bs),
		  -EINVAL);
	merkle_tree_stats(t, &st);
	CHECK(st.tree_reads == 0);
	merkle_tree_close(t);
	merkle_cache_free(cache);
}

/*
 * The asynchronous loop a server runs: verify, read what is missing, fill
 * it, resume where it stopped.  Each answer is a block the walk needs, so
 * the whole range takes one round per hash block of the tree (no
 * readahead), resumes never go backwards, and every data block is
 * verified exactly once.
 */
static void test_async_rounds(struct image *im)
{
	struct merkle_cache *cache = merkle_cache_new(1 << 20);
	struct merkle_tree *t = image_open_async(im, cache);
	struct merkle_verify_result res = { .block = 0 };
	uint64_t n = im->geo.data_blocks, from = 0;
	unsigned rounds = 0;
	struct merkle_stats st;
	int err;

	while ((err = verify_result(t, im, from, n - from, 0, &res)) ==
	       MERKLE_NEED_TREE) {
		CHECK(res.block >= from && res.block < n);
		CHECK(res.missing.len == im->geo.block_size);
		CHECK_RET(merkle_cache_fill(t, res.missing.off,
					    im->tree + res.missing.off,
					    res.missing.len),
			  0);
		from = res.block;
		rounds++;
	}
	CHECK_RET(err, 0);
	CHECK(res.block == n);
	CHECK(rounds == im->geo.tree_size / im->geo.block_size);
	merkle_tree_stats(t, &st);
	CHECK(st.blocks_verified == n && st.tree_reads == 0);

	/* A corrupt hash block is found on the asynchronous path too. */
	merkle_tree_close(t);
	t = image_open_async(im, cache);
	im->tree[im->geo.level_start[0] * im->geo.block_size + 3] ^= 1;
	from = 0;
	while ((err = verify_result(t, im, from, n - from, 0, &res)) ==
	       MERKLE_NEED_TREE) {
		CHECK_RET(merkle_cache_fill(t, res.missing.off,
					    im->tree + res.missing.off,
					    res.missing.len),
			  0);
		from = res.block;
	}
	im->tree[im->geo.level_start[0] * im->geo.block_size + 3] ^= 1;
	CHECK_RET(err, MERKLE_E_CORRUPT);
	CHECK(res.block == 0);
	merkle_tree_close(t);
	merkle_cache_free(cache);
}

/* A huge readahead hint is cut to one MERKLE_MAX_EXTENT_SIZE read. */
static void test_readahead_cap(void)
{
	/* 2 GiB of 4 KiB blocks: 4096 level-0 blocks, no data needed. */
	struct merkle_params p = { .hash_alg = MERKLE_HASH_SHA256,
				   .log_blocksize = 12,
				   .data_size = 2ull << 30 };
	uint8_t root[MERKLE_MAX_DIGEST_SIZE] = { 0 };
	struct merkle_cache *cache = merkle_cache_new(0);
	const struct merkle_geometry *g;
	struct merkle_extent x[2];
	struct merkle_tree *t;

	CHECK_RET(merkle_tree_open(&t, &p, root, cache, NULL, NULL), 0);
	g = merkle_tree_geometry(t);
	CHECK(g->level_blocks[0] == 4096);
	CHECK_RET(merkle_plan_reads(t, 0, 1, 100000, false, x, 2), 1);
	CHECK(x[0].off == g->level_start[0] * 4096);
	CHECK(x[0].len == MERKLE_MAX_EXTENT_SIZE);
	merkle_tree_close(t);
	merkle_cache_free(cache);
}

/* Two threads share a two-block cache and must both get every answer. */
struct scan_job {
	struct image *im;
	struct merkle_tree *t;
	uint64_t bad_first, bad_end;
};

static void *scan_thread(void *arg)
{
	struct scan_job *job = arg;
	uint64_t bad;
	int want;

	for (int pass = 0; pass < 3; pass++) {
		for (uint64_t b = 0; b < job->im->geo.data_blocks; b++) {
			want = b >= job->bad_first && b < job->bad_end
			       ? MERKLE_E_CORRUPT : 0;
			CHECK_RET(verify(job->t, job->im, b, 1, 2, &bad), want);
		}
	}
	return NULL;
}

static void test_concurrent(struct image *im)
{
	struct merkle_cache *cache = merkle_cache_new(2 * im->geo.block_size);
	struct merkle_tree *t = image_open(im, cache);
	struct scan_job job = { .im = im, .t = t };
	pthread_t tids[2];
	struct merkle_stats st;

	flip_tree_byte(im, 0, 4, 0);
	covered_blocks(im, 0, 4, &job.bad_first, &job.bad_end);
	for (int i = 0; i < 2; i++)
		CHECK(pthread_create(&tids[i], NULL, scan_thread, &job) == 0);
	for (int i = 0; i < 2; i++)
		CHECK(pthread_join(tids[i], NULL) == 0);
	flip_tree_byte(im, 0, 4, 0);
	merkle_tree_stats(t, &st);
	CHECK(st.failures == 2 * 3 * (job.bad_end - job.bad_first));
	CHECK(st.blocks_verified + st.failures == 2 * 3 * im->geo.data_blocks);
	merkle_tree_close(t);
	merkle_cache_free(cache);
}

/*
 * A verified mark lives as long as the cached copy: corrupting the stored
 * tree after a pass goes unnoticed while the blocks stay cached (as with
 * the kernel's page cache) and is caught once they were evicted.
 */
static void test_eviction_forgets_marks(struct image *im)
{
	const size_t sizes[] = { im->geo.block_size, 1 << 20 };
	uint64_t first, end, bad;

	covered_blocks(im, 0, 3, &first, &end);
	for (size_t i = 0; i < 2; i++) {
		struct merkle_cache *cache = merkle_cache_new(sizes[i]);
		struct merkle_tree *t = image_open(im, cache);

		CHECK_RET(verify(t, im, 0, im->geo.data_blocks, 0, &bad), 0);
		flip_tree_byte(im, 0, 3, 9);
		CHECK_RET(verify(t, im, 0, im->geo.data_blocks, 0, &bad),
			  i == 0 ? MERKLE_E_CORRUPT : 0);
		CHECK(i != 0 || bad == first);
		flip_tree_byte(im, 0, 3, 9);
		merkle_tree_close(t);
		merkle_cache_free(cache);
	}
}

/* Two trees in one cache do not see each other's blocks. */
static void test_shared_cache(struct image *a, struct image *b)
{
	struct merkle_cache *cache = merkle_cache_new(1 << 20);
	struct merkle_tree *ta = image_open(a, cache);
	struct merkle_tree *tb = image_open(b, cache);
	uint64_t bad;

	CHECK_RET(verify(ta, a, 0, a->geo.data_blocks, 0, &bad), 0);
	CHECK_RET(verify(tb, b, 0, b->geo.data_blocks, 0, &bad), 0);
	merkle_tree_close(ta);
	CHECK_RET(verify(tb, b, 0, b->geo.data_blocks, 0, &bad), 0);
	merkle_tree_close(tb);
	merkle_cache_free(cache);
}

/*
 * merkle_verify_many(): ranges verified together get exactly the status
 * and result each gets alone, with blocks paired across ranges: 1-block
 * ranges (random 4 KiB reads), a 3-block one, one past the data, a
 * tampered block in the middle of the list, and (async tree) ranges that
 * stop for a missing hash block while others go on.
 */
static void test_verify_many(struct image *im)
{
	const size_t bs = im->geo.block_size;
	/* Spread over the data, out of order; 42 is tampered with. */
	const uint64_t blocks[] = { 7, 150, 3, 257, 42, 43, 44, 0, 151, 200 };
	enum { N = sizeof(blocks) / sizeof(blocks[0]) };
	struct merkle_cache *cache = merkle_cache_new(1 << 20);
	struct merkle_tree *t = image_open(im, cache);
	struct merkle_verify_req reqs[N + 2];
	struct merkle_verify_result res;
	uint64_t bad = blocks[4];

	CHECK(im->geo.data_blocks > 257);
	for (size_t i = 0; i < N; i++)
		reqs[i] = (struct merkle_verify_req){
			.first_block = blocks[i], .nblocks = 1,
			.data = im->data + blocks[i] * bs };
	reqs[N] = (struct merkle_verify_req){	/* 3 blocks */
		.first_block = 10, .nblocks = 3, .data = im->data + 10 * bs };
	reqs[N + 1] = (struct merkle_verify_req){	/* past the data */
		.first_block = im->geo.data_blocks, .nblocks = 1,
		.data = im->data + im->geo.data_blocks * bs };
	im->data[bad * bs + 9] ^= 1;
	CHECK_RET(merkle_verify_many(t, reqs, N + 2), 0);
	for (size_t i = 0; i < N + 2; i++) {
		int alone = merkle_verify_blocks(t, reqs[i].first_block,
						 reqs[i].data, reqs[i].nblocks,
						 0, &res);

		CHECK_RET(reqs[i].status, alone);
		CHECK(reqs[i].res.block == res.block);
		CHECK(reqs[i].status == (reqs[i].first_block == bad ?
					 MERKLE_E_CORRUPT : 0));
	}
	im->data[bad * bs + 9] ^= 1;
	merkle_tree_close(t);

	/* Asynchronous: every range lacks its level-0 block, and each says
	 * so for itself. */
	t = image_open_async(im, cache);
	CHECK_RET(merkle_verify_many(t, reqs, N), 0);
	for (size_t i = 0; i < N; i++) {
		CHECK_RET(reqs[i].status, MERKLE_NEED_TREE);
		CHECK(reqs[i].res.block == blocks[i]);
		CHECK(reqs[i].res.missing.len == bs);
	}
	merkle_tree_close(t);
	merkle_cache_free(cache);
}

/*
 * Ranges that come with their digests (.digests, from
 * merkle_tree_copy_hash() or any hashing of the blocks) are checked
 * against them and not hashed again: the right digests pass, a wrong one
 * fails its block, in the middle of a range too.  Where lib/merkle can
 * copy while hashing, its copies and digests verify the same way.
 */
static void test_verify_digests(struct image *im)
{
	const size_t bs = im->geo.block_size, ds = im->geo.digest_size;
	const uint64_t n = im->geo.data_blocks;
	struct merkle_cache *cache = merkle_cache_new(1 << 20);
	struct merkle_tree *t = image_open(im, cache);
	uint8_t *digests = malloc(n * ds), *copy = malloc(n * bs);
	struct merkle_verify_req reqs[3];
	const uint64_t bad = n / 2 + 1;

	CHECK(digests && copy && n > 4);
	CHECK_RET(merkle_hash_blocks(&im->params, im->data, n, digests), 0);
	/* Blocks 0 .. 2, n/2 .. n-2 (bad is its second), n-1. */
	reqs[0] = (struct merkle_verify_req){ .first_block = 0, .nblocks = 3 };
	reqs[1] = (struct merkle_verify_req){ .first_block = n / 2,
					      .nblocks = n - 1 - n / 2 };
	reqs[2] = (struct merkle_verify_req){ .first_block = n - 1,
					      .nblocks = 1 };
	for (int i = 0; i < 3; i++) {
		reqs[i].data = im->data + reqs[i].first_block * bs;
		reqs[i].digests = digests + reqs[i].first_block * ds;
	}
	CHECK_RET(merkle_verify_many(t, reqs, 3), 0);
	for (int i = 0; i < 3; i++)
		CHECK_RET(reqs[i].status, 0);
	digests[bad * ds + 3] ^= 0x10;
	CHECK_RET(merkle_verify_many(t, reqs, 3), 0);
	CHECK_RET(reqs[0].status, 0);
	CHECK_RET(reqs[1].status, MERKLE_E_CORRUPT);
	CHECK(reqs[1].res.block == bad);
	CHECK_RET(reqs[2].status, 0);

	if (merkle_tree_can_copy_hash(t)) {
		uint8_t **dst = malloc(n * sizeof(*dst));
		const uint8_t **src = malloc(n * sizeof(*src));

		CHECK(dst && src);
		for (uint64_t b = 0; b < n; b++) {
			dst[b] = copy + b * bs;
			src[b] = im->data + b * bs;
		}
		CHECK_RET(merkle_tree_copy_hash(t, dst, src, n, digests), 0);
		CHECK(memcmp(copy, im->data, n * bs) == 0);
		for (int i = 0; i < 3; i++)
			reqs[i].data = copy + reqs[i].first_block * bs;
		CHECK_RET(merkle_verify_many(t, reqs, 3), 0);
		for (int i = 0; i < 3; i++)
			CHECK_RET(reqs[i].status, 0);
		free(dst);
		free(src);
	} else {
		CHECK_RET(merkle_tree_copy_hash(t, NULL, NULL, 0, digests),
			  -EOPNOTSUPP);
	}
	free(digests);
	free(copy);
	merkle_tree_close(t);
	merkle_cache_free(cache);
}

int main(void)
{
	struct image three, two;

	image_3_levels(&three);
	image_2_levels(&two);

	test_all_blocks_verify(&three);
	test_all_blocks_verify(&two);
	test_corruption(&three);
	test_corruption(&two);
	test_no_tree(0);
	test_no_tree(1);
	test_no_tree(4095);
	test_no_tree(4096);
	test_readahead(&three);
	test_readahead_cap();
	test_threads_same_tree();
	test_plan_and_fill(&three);
	test_async_rounds(&three);
	test_verify_many(&three);
	test_verify_many(&two);
	test_verify_digests(&three);
	test_verify_digests(&two);
	test_async_rounds(&two);
	test_concurrent(&three);
	test_eviction_forgets_marks(&three);
	test_shared_cache(&three, &two);

	image_free(&three);
	image_free(&two);
	printf("test_verify: all checks passed\n");
	return 0;
}
