// SPDX-License-Identifier: GPL-2.0-only
/*
 * cache.c - the hash block cache: LRU within a byte budget, thread-safe.
 *
 * Plays the role of the page cache plus the "verified" bits of
 * fs/verity/verify.c: is_hash_block_verified().  As there, a block's mark
 * lives only as long as the cached copy: an evicted block is forgotten with
 * its mark, and when read again it is verified again.  That is what makes
 * the marks safe to trust: the bytes a mark vouches for never change while
 * the block is cached (entries are immutable once inserted).
 *
 * Blocks in use by a verification are pinned and never evicted, so a budget
 * smaller than one root-to-leaf path still works; the cache then overshoots
 * its budget for as long as the pins last.
 */
#include <stdlib.h>
#include <string.h>

#include "merkle_private.h"

struct merkle_cache_entry {
	struct merkle_cache_entry *hash_next;
	struct merkle_cache_entry *lru_prev, *lru_next;
	uint64_t tree_id;
	uint64_t block;
	size_t size;
	unsigned pins;			/* under the cache lock */
	atomic_bool verified;		/* read without the lock */
	uint8_t data[];
};

struct merkle_cache {
	pthread_mutex_t lock;
	size_t budget;			/* bytes of block data */
	size_t used;
	size_t count;
	size_t nbuckets;		/* a power of 2 */
	struct merkle_cache_entry **buckets;
	struct merkle_cache_entry lru;	/* list head: next = most recent */
};

#define MERKLE_CACHE_MIN_BUCKETS 64

struct merkle_cache *merkle_cache_new(size_t budget_bytes)
{
	struct merkle_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->buckets = calloc(MERKLE_CACHE_MIN_BUCKETS, sizeof(*c->buckets));
	if (!c->buckets || pthread_mutex_init(&c->lock, NULL) != 0) {
		free(c->buckets);
		free(c);
		return NULL;
	}
	c->budget = budget_bytes;
	c->nbuckets = MERKLE_CACHE_MIN_BUCKETS;
	c->lru.lru_next = c->lru.lru_prev = &c->lru;
	return c;
}

void merkle_cache_free(struct merkle_cache *c)
{
	struct merkle_cache_entry *e, *next;

	if (!c)
		return;
	for (e = c->lru.lru_next; e != &c->lru; e = next) {
		next = e->lru_next;
		free(e);
	}
	free(c->buckets);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

const uint8_t *merkle_cache_entry_data(const struct merkle_cache_entry *e)
{
	return e->data;
}

bool merkle_cache_entry_verified(const struct merkle_cache_entry *e)
{
	return atomic_load_explicit(&e->verified, memory_order_acquire);
}

void merkle_cache_entry_set_verified(struct merkle_cache_entry *e)
{
	atomic_store_explicit(&e->verified, true, memory_order_release);
}

/* splitmix64's finaliser: spreads (tree, block) over the buckets. */
static size_t merkle_cache_bucket(const struct merkle_cache *c,
				  uint64_t tree_id, uint64_t block)
{
	uint64_t x = block ^ (tree_id * 0x9e3779b97f4a7c15ull);

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	x ^= x >> 31;
	return (size_t)x & (c->nbuckets - 1);
}

static struct merkle_cache_entry **
merkle_cache_slot(struct merkle_cache *c, uint64_t tree_id, uint64_t block)
{
	struct merkle_cache_entry **slot =
		&c->buckets[merkle_cache_bucket(c, tree_id, block)];

	while (*slot && ((*slot)->tree_id != tree_id || (*slot)->block != block))
		slot = &(*slot)->hash_next;
	return slot;
}

static void merkle_lru_unlink(struct merkle_cache_entry *e)
{
	e->lru_prev->lru_next = e->lru_next;
	e->lru_next->lru_prev = e->lru_prev;
}

static void merkle_lru_push_front(struct merkle_cache *c,
				  struct merkle_cache_entry *e)
{
	e->lru_next = c->lru.lru_next;
	e->lru_prev = &c->lru;
	c->lru.lru_next->lru_prev = e;
	c->lru.lru_next = e;
}

static void merkle_cache_remove(struct merkle_cache *c,
				struct merkle_cache_entry *e)
{
	struct merkle_cache_entry **slot =
		merkle_cache_slot(c, e->tree_id, e->block);

	*slot = e->hash_next;
	merkle_lru_unlink(e);
	c->used -= e->size;
	c->count--;
	free(e);
}

/* Drop unpinned blocks, least recently used first, down to the budget. */
static void merkle_cache_shrink(struct merkle_cache *c)
{
	struct merkle_cache_entry *e = c->lru.lru_prev, *prev;

	while (c->used > c->budget && e != &c->lru) {
		prev = e->lru_prev;
		if (e->pins == 0)
			merkle_cache_remove(c, e);
		e = prev;
	}
}

/*
 * Keep chains short as the cache grows.  A failed allocation only leaves
 * the chains longer, so it is not an error.
 */
static void merkle_cache_grow_buckets(struct merkle_cache *c)
{
	size_t old_n = c->nbuckets;
	struct merkle_cache_entry **old = c->buckets, *e, *next;

	if (c->count <= 2 * old_n)
		return;
	c->buckets = calloc(old_n * 2, sizeof(*c->buckets));
	if (!c->buckets) {
		c->buckets = old;
		return;
	}
	c->nbuckets = old_n * 2;
	for (size_t i = 0; i < old_n; i++) {
		for (e = old[i]; e; e = next) {
			size_t b = merkle_cache_bucket(c, e->tree_id, e->block);

			next = e->hash_next;
			e->hash_next = c->buckets[b];
			c->buckets[b] = e;
		}
	}
	free(old);
}

struct merkle_cache_entry *merkle_cache_get(struct merkle_cache *c,
					    uint64_t tree_id, uint64_t block)
{
	struct merkle_cache_entry *e;

	pthread_mutex_lock(&c->lock);
	e = *merkle_cache_slot(c, tree_id, block);
	if (e) {
		e->pins++;
		merkle_lru_unlink(e);
		merkle_lru_push_front(c, e);
	}
	pthread_mutex_unlock(&c->lock);
	return e;
}

bool merkle_cache_contains(struct merkle_cache *c, uint64_t tree_id,
			   uint64_t block, bool *verified)
{
	struct merkle_cache_entry *e;

	pthread_mutex_lock(&c->lock);
	e = *merkle_cache_slot(c, tree_id, block);
	if (e && verified)
		*verified = merkle_cache_entry_verified(e);
	pthread_mutex_unlock(&c->lock);
	return e != NULL;
}

bool merkle_cache_verified_prefetch(struct merkle_cache *c, uint64_t tree_id,
				    uint64_t block, size_t off, size_t len)
{
	struct merkle_cache_entry *e;
	bool verified = false;

	pthread_mutex_lock(&c->lock);
	e = *merkle_cache_slot(c, tree_id, block);
	if (e) {
		verified = merkle_cache_entry_verified(e);
		/* data[] is not line-aligned: a hash may straddle two lines. */
		__builtin_prefetch(e->data + off);
		__builtin_prefetch(e->data + off + len - 1);
	}
	pthread_mutex_unlock(&c->lock);
	return verified;
}

int merkle_cache_insert(struct merkle_cache *c, uint64_t tree_id,
			uint64_t block, const void *data, size_t size,
			struct merkle_cache_entry **pinned)
{
	struct merkle_cache_entry *e = malloc(sizeof(*e) + size), **slot;

	if (!e)
		return MERKLE_E_NOMEM;
	/* Copy outside the lock; the copy is dropped if the block is there. */
	memcpy(e->data, data, size);
	e->tree_id = tree_id;
	e->block = block;
	e->size = size;
	e->pins = pinned ? 1 : 0;
	atomic_init(&e->verified, false);

	pthread_mutex_lock(&c->lock);
	slot = merkle_cache_slot(c, tree_id, block);
	if (*slot) {
		free(e);
		e = *slot;
		if (pinned)
			e->pins++;
		merkle_lru_unlink(e);
	} else {
		e->hash_next = NULL;
		*slot = e;
		c->used += size;
		c->count++;
	}
	merkle_lru_push_front(c, e);
	merkle_cache_shrink(c);
	merkle_cache_grow_buckets(c);
	pthread_mutex_unlock(&c->lock);
	if (pinned)
		*pinned = e;
	return 0;
}

void merkle_cache_put(struct merkle_cache *c, struct merkle_cache_entry *e)
{
	pthread_mutex_lock(&c->lock);
	e->pins--;
	if (e->pins == 0 && c->used > c->budget)
		merkle_cache_shrink(c);
	pthread_mutex_unlock(&c->lock);
}

void merkle_cache_drop_tree(struct merkle_cache *c, uint64_t tree_id)
{
	struct merkle_cache_entry *e, *next;

	pthread_mutex_lock(&c->lock);
	for (e = c->lru.lru_next; e != &c->lru; e = next) {
		next = e->lru_next;
		if (e->tree_id == tree_id)
			merkle_cache_remove(c, e);
	}
	pthread_mutex_unlock(&c->lock);
}
