// SPDX-License-Identifier: GPL-2.0-only
/*
 * build.c - build a Merkle tree, streamed and in parallel.
 *
 * Mirrors fs/verity/enable.c: build_merkle_tree() and fsverity-utils
 * lib/compute_digest.c: compute_root_hash(): one pending block per level;
 * a full block is written out and its hash goes one level up.  Memory is
 * O(levels x block size), never O(data).
 *
 * Level 0 is where the work is (every data byte is hashed once), so data
 * chunks are hashed by worker threads; the main thread consumes their
 * digests in order and folds the upper levels, which see 1/hashes_per_block
 * as many bytes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "merkle_private.h"

/*
 * Data read per step.  Large reads are what make this faster than reading
 * block by block; 1 MiB still fits in a core's L2 cache while hashed.
 */
#define MERKLE_BUILD_CHUNK_BYTES (1u << 20)

struct merkle_builder {
	const struct merkle_params *params;
	struct merkle_geometry geo;
	size_t chunk_blocks;		/* data blocks per chunk */
	uint64_t nchunks;
	merkle_read_fn read_data;
	void *read_ctx;
	merkle_write_fn write_tree;
	void *write_ctx;
	struct merkle_hasher hasher;	/* the main thread's */
	uint8_t *pending[MERKLE_MAX_LEVELS];	/* one block per level */
	size_t pending_len[MERKLE_MAX_LEVELS];
	uint64_t written[MERKLE_MAX_LEVELS];	/* blocks out, per level */
	uint8_t root_hash[MERKLE_MAX_DIGEST_SIZE];
};

static int merkle_builder_add_digest(struct merkle_builder *b,
				     unsigned level, const uint8_t *digest);

/* Write a level's pending block (zero-padded) and hash it one level up. */
static int merkle_builder_flush_level(struct merkle_builder *b,
				      unsigned level)
{
	const struct merkle_geometry *g = &b->geo;
	uint8_t digest[MERKLE_MAX_DIGEST_SIZE];
	uint64_t block = g->level_start[level] + b->written[level];
	int err;

	memset(b->pending[level] + b->pending_len[level], 0,
	       g->block_size - b->pending_len[level]);
	b->pending_len[level] = 0;
	b->written[level]++;
	if (b->write_tree) {
		err = b->write_tree(b->write_ctx, b->pending[level],
				    g->block_size, merkle_block_offset(g, block));
		if (err)
			return err;
	}
	err = merkle_hasher_hash_tree_block(&b->hasher, b->pending[level],
					    digest);
	if (err)
		return err;
	return merkle_builder_add_digest(b, level + 1, digest);
}

/*
 * A hash of level - 1 (level 0: of a data block) joins level.  Past the
 * top level it is the root hash: the hash of the top block, or of the only
 * data block of a one-block file.
 */
static int merkle_builder_add_digest(struct merkle_builder *b,
				     unsigned level, const uint8_t *digest)
{
	const unsigned ds = b->geo.digest_size;
	uint8_t *slot;

	if (level == b->geo.num_levels) {
		memcpy(b->root_hash, digest, ds);
		return 0;
	}
	/* A hash fills its stride, zero-padded (dm-verity's SHA-1). */
	slot = b->pending[level] + b->pending_len[level];
	memcpy(slot, digest, ds);
	memset(slot + ds, 0, b->geo.hash_stride - ds);
	b->pending_len[level] += b->geo.hash_stride;
	/* Full at hashes_per_block hashes: hash type 0's packed ones may
	 * leave an end of the block spare. */
	if (b->pending_len[level] ==
	    (size_t)b->geo.hashes_per_block * b->geo.hash_stride)
		return merkle_builder_flush_level(b, level);
	return 0;
}

static int merkle_builder_add_digests(struct merkle_builder *b,
				      const uint8_t *digests, size_t count)
{
	int err = 0;

	for (size_t i = 0; i < count && !err; i++)
		err = merkle_builder_add_digest(b, 0,
						digests + i * b->geo.digest_size);
	return err;
}

/* The last, partial blocks of each level, bottom up. */
static int merkle_builder_finish(struct merkle_builder *b)
{
	int err = 0;

	for (unsigned level = 0; level < b->geo.num_levels && !err; level++)
		if (b->pending_len[level])
			err = merkle_builder_flush_level(b, level);
	return err;
}

/*
 * Read and hash one chunk of data blocks into digests; the last block is
 * zero-padded.  Returns the number of blocks hashed or a negative error.
 */
static int64_t merkle_hash_chunk(const struct merkle_builder *b,
				 struct merkle_hasher *h, uint64_t chunk,
				 uint8_t *buf, uint8_t *digests)
{
	const struct merkle_geometry *g = &b->geo;
	uint64_t first = chunk * b->chunk_blocks;
	uint64_t nblocks = g->data_blocks - first;
	uint64_t off = first * g->data_block_size;
	uint64_t len;
	int err;

	if (nblocks > b->chunk_blocks)
		nblocks = b->chunk_blocks;
	len = nblocks * g->data_block_size;
	if (len > b->params->data_size - off)
		len = b->params->data_size - off;
	err = b->read_data(b->read_ctx, buf, len, off);
	if (err)
		return err;
	memset(buf + len, 0, nblocks * g->data_block_size - len);
	err = merkle_hasher_hash_blocks(h, buf, nblocks, digests);
	return err ? err : (int64_t)nblocks;
}

static int merkle_build_serial(struct merkle_builder *b)
{
	uint8_t *buf = malloc(b->chunk_blocks * b->geo.data_block_size);
	uint8_t *digests = malloc(b->chunk_blocks * b->geo.digest_size);
	int64_t n = 0;
	int err = 0;

	if (!buf || !digests)
		err = MERKLE_E_NOMEM;
	for (uint64_t chunk = 0; chunk < b->nchunks && !err; chunk++) {
		n = merkle_hash_chunk(b, &b->hasher, chunk, buf, digests);
		err = n < 0 ? (int)n
			    : merkle_builder_add_digests(b, digests, (size_t)n);
	}
	free(buf);
	free(digests);
	return err;
}

/*
 * Parallel level 0.  Workers claim chunks in order and leave each chunk's
 * digests in slot chunk % nslots; the main thread consumes the slots in
 * chunk order.  A worker claims a chunk only when its slot is free, so at
 * most nslots chunks are in flight and the oldest is never blocked.
 */
struct merkle_build_slot {
	uint8_t *digests;		/* chunk_blocks digests */
	size_t count;
	bool ready;
};

struct merkle_build_pool {
	struct merkle_builder *b;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	uint64_t next_chunk;		/* next to claim */
	uint64_t consumed;		/* chunks folded by the main thread */
	int error;			/* the first error; stops everyone */
	unsigned nslots;
	struct merkle_build_slot *slots;
};

static void merkle_pool_fail(struct merkle_build_pool *pool, int err)
{
	pthread_mutex_lock(&pool->lock);
	if (!pool->error)
		pool->error = err;
	pthread_cond_broadcast(&pool->changed);
	pthread_mutex_unlock(&pool->lock);
}

/* The next chunk to hash, or -1 when there is none or an error stopped us. */
static int64_t merkle_pool_claim(struct merkle_build_pool *pool)
{
	int64_t chunk = -1;

	pthread_mutex_lock(&pool->lock);
	while (!pool->error && pool->next_chunk < pool->b->nchunks &&
	       pool->next_chunk - pool->consumed >= pool->nslots)
		pthread_cond_wait(&pool->changed, &pool->lock);
	if (!pool->error && pool->next_chunk < pool->b->nchunks)
		chunk = (int64_t)pool->next_chunk++;
	pthread_mutex_unlock(&pool->lock);
	return chunk;
}

static int merkle_worker_loop(struct merkle_build_pool *pool,
			      struct merkle_hasher *h, uint8_t *buf)
{
	struct merkle_build_slot *slot;
	int64_t chunk, n;

	while ((chunk = merkle_pool_claim(pool)) >= 0) {
		slot = &pool->slots[chunk % pool->nslots];
		n = merkle_hash_chunk(pool->b, h, (uint64_t)chunk, buf,
				      slot->digests);
		if (n < 0)
			return (int)n;
		pthread_mutex_lock(&pool->lock);
		slot->count = (size_t)n;
		slot->ready = true;
		pthread_cond_broadcast(&pool->changed);
		pthread_mutex_unlock(&pool->lock);
	}
	return 0;
}

static void *merkle_worker(void *arg)
{
	struct merkle_build_pool *pool = arg;
	struct merkle_hasher h;
	uint8_t *buf;
	int err = merkle_hasher_init(&h, pool->b->params);

	if (err) {
		merkle_pool_fail(pool, err);
		return NULL;
	}
	buf = malloc(pool->b->chunk_blocks * pool->b->geo.data_block_size);
	err = buf ? merkle_worker_loop(pool, &h, buf) : MERKLE_E_NOMEM;
	if (err)
		merkle_pool_fail(pool, err);
	free(buf);
	merkle_hasher_destroy(&h);
	return NULL;
}

/* Wait for chunk's digests; NULL if an error stopped the build. */
static struct merkle_build_slot *
merkle_pool_wait_chunk(struct merkle_build_pool *pool, uint64_t chunk)
{
	struct merkle_build_slot *slot = &pool->slots[chunk % pool->nslots];

	pthread_mutex_lock(&pool->lock);
	while (!pool->error && !slot->ready)
		pthread_cond_wait(&pool->changed, &pool->lock);
	if (pool->error)
		slot = NULL;
	pthread_mutex_unlock(&pool->lock);
	return slot;
}

static void merkle_pool_release_slot(struct merkle_build_pool *pool,
				     struct merkle_build_slot *slot)
{
	pthread_mutex_lock(&pool->lock);
	slot->ready = false;
	pool->consumed++;
	pthread_cond_broadcast(&pool->changed);
	pthread_mutex_unlock(&pool->lock);
}

static void merkle_pool_consume(struct merkle_build_pool *pool)
{
	struct merkle_build_slot *slot;
	int err;

	for (uint64_t chunk = 0; chunk < pool->b->nchunks; chunk++) {
		slot = merkle_pool_wait_chunk(pool, chunk);
		if (!slot)
			return;
		err = merkle_builder_add_digests(pool->b, slot->digests,
						 slot->count);
		if (err) {
			merkle_pool_fail(pool, err);
			return;
		}
		merkle_pool_release_slot(pool, slot);
	}
}

static int merkle_pool_init(struct merkle_build_pool *pool,
			    struct merkle_builder *b, unsigned threads)
{
	memset(pool, 0, sizeof(*pool));
	pool->b = b;
	pool->nslots = 2 * threads;
	pool->slots = calloc(pool->nslots, sizeof(*pool->slots));
	if (!pool->slots)
		return MERKLE_E_NOMEM;
	for (unsigned i = 0; i < pool->nslots; i++) {
		pool->slots[i].digests = malloc(b->chunk_blocks *
						b->geo.digest_size);
		if (!pool->slots[i].digests)
			return MERKLE_E_NOMEM;
	}
	if (pthread_mutex_init(&pool->lock, NULL) != 0)
		return MERKLE_E_NOMEM;
	if (pthread_cond_init(&pool->changed, NULL) != 0) {
		pthread_mutex_destroy(&pool->lock);
		return MERKLE_E_NOMEM;
	}
	return 0;
}

static void merkle_pool_destroy(struct merkle_build_pool *pool, bool synced)
{
	if (synced) {
		pthread_cond_destroy(&pool->changed);
		pthread_mutex_destroy(&pool->lock);
	}
	for (unsigned i = 0; pool->slots && i < pool->nslots; i++)
		free(pool->slots[i].digests);
	free(pool->slots);
}

static int merkle_build_parallel(struct merkle_builder *b, unsigned threads)
{
	struct merkle_build_pool pool;
	pthread_t *tids = calloc(threads, sizeof(*tids));
	unsigned started = 0;
	int err = tids ? merkle_pool_init(&pool, b, threads) : MERKLE_E_NOMEM;

	if (err) {
		if (tids)
			merkle_pool_destroy(&pool, false);
		free(tids);
		return err;
	}
	for (; started < threads; started++) {
		err = pthread_create(&tids[started], NULL, merkle_worker, &pool);
		if (err) {
			merkle_pool_fail(&pool, -err);
			break;
		}
	}
	merkle_pool_consume(&pool);
	for (unsigned i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	err = pool.error;
	merkle_pool_destroy(&pool, true);
	free(tids);
	return err;
}

static unsigned merkle_build_threads(unsigned threads, uint64_t nchunks)
{
	long online;

	if (threads == 0) {
		online = sysconf(_SC_NPROCESSORS_ONLN);
		threads = online > 0 ? (unsigned)online : 1;
	}
	if (threads > nchunks)
		threads = (unsigned)nchunks;
	return threads;
}

static int merkle_builder_init(struct merkle_builder *b,
			       const struct merkle_params *p)
{
	int err;

	memset(b, 0, sizeof(*b));
	b->params = p;
	err = merkle_geometry_init(&b->geo, p);
	if (err)
		return err;
	b->chunk_blocks = MERKLE_BUILD_CHUNK_BYTES / b->geo.data_block_size;
	b->nchunks = (b->geo.data_blocks + b->chunk_blocks - 1) /
		     b->chunk_blocks;
	err = merkle_hasher_init(&b->hasher, p);
	if (err)
		return err;
	for (unsigned level = 0; level < b->geo.num_levels; level++) {
		b->pending[level] = malloc(b->geo.block_size);
		if (!b->pending[level])
			return MERKLE_E_NOMEM;
	}
	return 0;
}

static void merkle_builder_destroy(struct merkle_builder *b)
{
	for (unsigned level = 0; level < MERKLE_MAX_LEVELS; level++)
		free(b->pending[level]);
	merkle_hasher_destroy(&b->hasher);
}

int merkle_build_tree(const struct merkle_params *p,
		      merkle_read_fn read_data, void *read_ctx,
		      merkle_write_fn write_tree, void *write_ctx,
		      unsigned threads,
		      uint8_t root_hash[MERKLE_MAX_DIGEST_SIZE])
{
	struct merkle_builder b;
	int err = merkle_builder_init(&b, p);

	b.read_data = read_data;
	b.read_ctx = read_ctx;
	b.write_tree = write_tree;
	b.write_ctx = write_ctx;
	if (!err) {
		threads = merkle_build_threads(threads, b.nchunks);
		err = threads > 1 ? merkle_build_parallel(&b, threads)
				  : merkle_build_serial(&b);
	}
	if (!err)
		err = merkle_builder_finish(&b);
	if (!err) {
		/* An empty file's root hash is all zeroes. */
		memset(root_hash, 0, MERKLE_MAX_DIGEST_SIZE);
		memcpy(root_hash, b.root_hash, b.geo.digest_size);
	}
	merkle_builder_destroy(&b);
	return err;
}
