// SPDX-License-Identifier: GPL-2.0-only
/*
 * open.c - open a tree for verification.
 *
 * Mirrors fs/verity/open.c: fsverity_create_info() (the per-file verity
 * info that verify.c works from).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "merkle_private.h"

/* An idle hasher of a tree, on its free list. */
struct merkle_hasher_slot {
	struct merkle_hasher hasher;	/* first: slots are found from it */
	struct merkle_hasher_slot *next;
};

/* Distinguishes the blocks of trees sharing one cache. */
static atomic_uint_fast64_t merkle_next_tree_id = 1;

int merkle_tree_open(struct merkle_tree **out, const struct merkle_params *p,
		     const uint8_t *root_hash, struct merkle_cache *cache,
		     merkle_read_fn read_tree, void *read_ctx)
{
	struct merkle_tree *t;
	int err;

	if (!cache)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return MERKLE_E_NOMEM;
	err = merkle_geometry_init(&t->geo, p);
	if (err) {
		free(t);
		return err;
	}
	if (pthread_mutex_init(&t->hashers_lock, NULL) != 0) {
		free(t);
		return MERKLE_E_NOMEM;
	}
	t->params = *p;
	/* Its hasher also times the SHA-256 lane count (sha256_ni.c), where
	 * there is one to time: here, on the opening thread, rather than on
	 * the first read. */
	err = merkle_tree_copy_hash_init(t);
	if (err) {
		pthread_mutex_destroy(&t->hashers_lock);
		free(t);
		return err;
	}
	memcpy(t->root_hash, root_hash, t->geo.digest_size);
	t->cache = cache;
	t->id = atomic_fetch_add(&merkle_next_tree_id, 1);
	t->read_tree = read_tree;
	t->read_ctx = read_ctx;
	*out = t;
	return 0;
}

void merkle_tree_close(struct merkle_tree *t)
{
	struct merkle_hasher_slot *slot, *next;

	if (!t)
		return;
	merkle_cache_drop_tree(t->cache, t->id);
	for (slot = t->idle_hashers; slot; slot = next) {
		next = slot->next;
		merkle_hasher_destroy(&slot->hasher);
		free(slot);
	}
	merkle_tree_copy_hash_exit(t);
	pthread_mutex_destroy(&t->hashers_lock);
	free(t);
}

int merkle_tree_ignore_zero_blocks(struct merkle_tree *t)
{
	uint8_t *zero = calloc(1, t->geo.data_block_size);
	int err;

	if (!zero)
		return MERKLE_E_NOMEM;
	err = merkle_hash_blocks(&t->params, zero, 1, t->zero_digest);
	free(zero);
	if (!err)
		t->zero_blocks = true;
	return err;
}

const struct merkle_geometry *merkle_tree_geometry(const struct merkle_tree *t)
{
	return &t->geo;
}

void merkle_tree_stats(const struct merkle_tree *t, struct merkle_stats *out)
{
	out->tree_reads = atomic_load(&t->stats.tree_reads);
	out->tree_blocks_read = atomic_load(&t->stats.tree_blocks_read);
	out->blocks_read_ahead = atomic_load(&t->stats.blocks_read_ahead);
	out->cache_hits = atomic_load(&t->stats.cache_hits);
	out->cache_misses = atomic_load(&t->stats.cache_misses);
	out->blocks_verified = atomic_load(&t->stats.blocks_verified);
	out->failures = atomic_load(&t->stats.failures);
}

/*
 * Verify calls run concurrently, each needing its own EVP state; keeping
 * idle hashers saves re-hashing the salt and allocating on every call.
 */
struct merkle_hasher *merkle_tree_get_hasher(struct merkle_tree *t)
{
	struct merkle_hasher_slot *slot;

	pthread_mutex_lock(&t->hashers_lock);
	slot = t->idle_hashers;
	if (slot)
		t->idle_hashers = slot->next;
	pthread_mutex_unlock(&t->hashers_lock);
	if (slot)
		return &slot->hasher;

	slot = malloc(sizeof(*slot));
	if (!slot)
		return NULL;
	if (merkle_hasher_init(&slot->hasher, &t->params) != 0) {
		free(slot);
		return NULL;
	}
	return &slot->hasher;
}

void merkle_tree_put_hasher(struct merkle_tree *t, struct merkle_hasher *h)
{
	struct merkle_hasher_slot *slot = (struct merkle_hasher_slot *)h;

	pthread_mutex_lock(&t->hashers_lock);
	slot->next = t->idle_hashers;
	t->idle_hashers = slot;
	pthread_mutex_unlock(&t->hashers_lock);
}
