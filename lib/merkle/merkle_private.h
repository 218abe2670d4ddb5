/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * merkle_private.h - internals shared by the files of lib/merkle.
 *
 * Not a public header: code outside lib/merkle uses merkle.h only.  This
 * plays the role of the kernel's fs/verity/fsverity_private.h.
 */
#ifndef VUBLK_MERKLE_PRIVATE_H
#define VUBLK_MERKLE_PRIVATE_H

#include <pthread.h>
#include <stdatomic.h>

#include <openssl/evp.h>

#include "merkle.h"

/*
 * SHA-256 on the x86 SHA extensions (sha256_ni.c): of one message, or of
 * 2, 4 or 8 at once, interleaved (the kernel's sha256_finup_2x(), and
 * more), or of 16 at once in AVX-512 registers (sha256_avx512.c), where
 * the CPU has both.  A prefix is the state after the whole 64-byte
 * blocks of the salt, and the salt's last bytes that do not fill one
 * (none for fs-verity's padded salt; dm-verity's usual 32-byte salt is
 * all tail).
 */
struct merkle_sha256_prefix {
	uint32_t state[8];
	uint64_t bytes;		/* of the prefix, tail included */
	uint8_t tail[64];
	size_t tail_len;	/* < 64 */
};

/*
 * probe()'s answer, asked once and kept in *known (0: not asked yet, 1:
 * no, 2: yes; racing first callers compute the same value).  For CPU
 * features, asked once per hasher: CPUID traps to the hypervisor in a VM.
 * x86 only (sha256_ni.c).
 */
bool merkle_cpu_probe_once(atomic_int *known, bool (*probe)(void));
/* Whether this CPU can run merkle_sha256_ni_*() and merkle_sha256_finup()
 * (whose 16 lanes need merkle_sha256_avx512_usable() too). */
bool merkle_sha256_ni_usable(void);
/* The prefix of len bytes of data (any length). */
void merkle_sha256_ni_init(struct merkle_sha256_prefix *prefix,
			   const uint8_t *data, size_t len);
/* Most messages the SHA extensions' own code interleaves. */
#define SHA256_NI_MAX_LANES 8
/* Messages sha256_avx512.c compresses at once, one per 32-bit lane. */
#define MERKLE_SHA256_AVX512_LANES 16
/* Most messages merkle_sha256_finup() hashes at once. */
#define MERKLE_SHA256_MAX_LANES MERKLE_SHA256_AVX512_LANES
/*
 * How many messages at once the SHA extensions hash fastest on this CPU
 * (1, 2, 4 or 8), and how many at once to hash first: 16 where AVX-512's
 * lanes beat that count (merkle_sha256_avx512_preferable()), else the
 * same.  Timed on the first call, or $MERKLE_SHA256_LANES when it names
 * one of those counts that the CPU runs (for tests, which run each, and
 * benchmarks); 16 then takes 8 SHA lanes for the smaller groups.
 */
size_t merkle_sha256_ni_lanes(void);
size_t merkle_sha256_lanes(void);
/* The count "1", "2", "4", "8" or "16" names (the values of
 * $MERKLE_SHA256_LANES), else 0. */
size_t merkle_sha256_lanes_named(const char *name);
/* SHA-256(prefix || data[j]) into out + 32 * j, for j < lanes (1 or a
 * count merkle_sha256_ni_lanes() or merkle_sha256_lanes() may return on
 * this CPU, or half of one); each message len bytes, len a multiple of 64
 * and at least 64.  Unless copy is NULL, data[j] is copied to copy[j] as
 * it is hashed (sha256_blocks_fn). */
void merkle_sha256_finup(const struct merkle_sha256_prefix *prefix,
			 const uint8_t *const data[], uint8_t *const copy[],
			 size_t lanes, size_t len, uint8_t *out);

/* FIPS 180-4, 4.2.2: SHA-256's round constants. */
extern const uint32_t merkle_sha256_k[64];
/* Whether this CPU (and OS) can run merkle_sha256_avx512_blocks(), and
 * whether the timing may choose it (not where 512-bit registers slow the
 * core down: some Intel models). */
bool merkle_sha256_avx512_usable(void);
bool merkle_sha256_avx512_preferable(void);
/*
 * The SHA-256 compression of nblocks 64-byte blocks of each of a number
 * of messages (the lane count), data[j] + 64 * i for block i of message
 * j, into state[j].  Unless copy is NULL, each block is also stored at
 * copy[j] + 64 * i as it was loaded: what copy holds is what was hashed,
 * however data changes meanwhile (merkle_tree_copy_hash()).
 */
typedef void sha256_blocks_fn(uint32_t state[][8], const uint8_t *const data[],
			      uint8_t *const copy[], size_t nblocks);
/* That of MERKLE_SHA256_AVX512_LANES messages (sha256_avx512.c). */
sha256_blocks_fn merkle_sha256_avx512_blocks;

/*
 * A salted block hasher (hash_algs.c).  The padded salt is hashed once into
 * 'salted'; each block then starts from a copy of that state, as
 * fsverity-utils does with its salted hash_init.  Both contexts are reused
 * for every block, so hashing a block allocates nothing of ours.  For
 * SHA-256 on a CPU with the SHA extensions, blocks go up to 16 at a
 * time (as many as are fastest on the CPU) through merkle_sha256_finup()
 * from sha256_salted instead (the kernel's
 * fsverity_verify_pending_blocks() hashes two at once), and a lone one
 * alone.
 */
struct merkle_hasher {
	EVP_MD_CTX *salted;	/* state after the salt prefix */
	EVP_MD_CTX *work;	/* per-block working state */
	unsigned digest_size;
	size_t block_size;	/* data blocks */
	size_t tree_block_size;	/* hash blocks (dm-verity: may differ) */
	bool sha_ni;		/* merkle_sha256_ni_usable() and SHA-256 */
	size_t sha256_lanes;	/* merkle_sha256_lanes() if sha_ni */
	size_t sha256_ni_lanes;	/* merkle_sha256_ni_lanes() if sha_ni */
	bool xof;		/* an extendable-output function (SHAKE) */
	/* dm-verity hash type 0: the salt, hashed after each block. */
	uint8_t suffix[MERKLE_DMV_MAX_SALT_SIZE];
	size_t suffix_len;
	struct merkle_sha256_prefix sha256_salted;
};

/* Whether a hasher of p takes the SHA extensions' path (sha_ni). */
bool merkle_params_sha_ni(const struct merkle_params *p);
int merkle_hasher_init(struct merkle_hasher *h, const struct merkle_params *p);
void merkle_hasher_destroy(struct merkle_hasher *h);
/* Hash nblocks data blocks of h->block_size bytes each; digests go to
 * out. */
int merkle_hasher_hash_blocks(struct merkle_hasher *h, const void *data,
			      size_t nblocks, uint8_t *out);
/* Hash one hash block (h->tree_block_size bytes). */
int merkle_hasher_hash_tree_block(struct merkle_hasher *h,
				  const uint8_t *block, uint8_t *out);
/* The same for n blocks anywhere in memory (blocks[i]): pairs are formed
 * across them, e.g. across the requests of one verify call. */
int merkle_hasher_hash_ptrs(struct merkle_hasher *h,
			    const uint8_t *const *blocks, size_t n,
			    uint8_t *out);
/* Those of a hasher whose sha_ni is set, copying block i to copies[i] as
 * it is hashed unless copies is NULL: only our own code runs, which
 * allocates nothing and writes nothing of h (merkle_tree_copy_hash()). */
void merkle_hasher_sha256_ptrs(const struct merkle_hasher *h,
			       const uint8_t *const *blocks,
			       uint8_t *const *copies, size_t n, uint8_t *out);
/* Unsalted hash of len bytes (the descriptor digest): fs-verity's
 * algorithms only. */
int merkle_hash_buffer(unsigned hash_alg, const void *buf, size_t len,
		       uint8_t *out);
/* Whether OpenSSL gives the algorithm here (the legacy provider's need
 * that provider to load). */
bool merkle_hash_alg_usable(unsigned hash_alg);
/* Validate alg, block size and salt size of p; returns 0 or MERKLE_E_*. */
int merkle_params_check(const struct merkle_params *p);

/*
 * The hash block cache (cache.c).  Entries are keyed by (tree id, block
 * index in the tree).  An entry handed out by get/insert is pinned (cannot
 * be evicted) until merkle_cache_put(); its data never changes while it is
 * cached, so a pinned entry's data may be read without the cache lock.
 */
struct merkle_cache_entry;

const uint8_t *merkle_cache_entry_data(const struct merkle_cache_entry *e);
bool merkle_cache_entry_verified(const struct merkle_cache_entry *e);
void merkle_cache_entry_set_verified(struct merkle_cache_entry *e);

/* Pinned entry or NULL; refreshes its LRU position. */
struct merkle_cache_entry *merkle_cache_get(struct merkle_cache *c,
					    uint64_t tree_id, uint64_t block);
/* Whether a block is cached; if so and verified != NULL, its mark. */
bool merkle_cache_contains(struct merkle_cache *c, uint64_t tree_id,
			   uint64_t block, bool *verified);
/*
 * Whether a block is cached and marked verified; if it is cached, also
 * start loading the hash at [off, off + len) of its data (at most a
 * cache line long, inside the block) into the CPU's cache for a
 * verification to come: a hint, nothing is pinned.
 */
bool merkle_cache_verified_prefetch(struct merkle_cache *c, uint64_t tree_id,
				    uint64_t block, size_t off, size_t len);
/*
 * Insert an unverified copy of data (size bytes) unless the block is
 * already cached.  If pinned is not NULL it receives the pinned entry (the
 * one already cached, if any).  Returns 0 or MERKLE_E_NOMEM.
 */
int merkle_cache_insert(struct merkle_cache *c, uint64_t tree_id,
			uint64_t block, const void *data, size_t size,
			struct merkle_cache_entry **pinned);
void merkle_cache_put(struct merkle_cache *c, struct merkle_cache_entry *e);
/* Forget every block of a tree (merkle_tree_close()). */
void merkle_cache_drop_tree(struct merkle_cache *c, uint64_t tree_id);

/* A tree opened for verification (open.c). */
struct merkle_tree {
	struct merkle_params params;
	struct merkle_geometry geo;
	uint8_t root_hash[MERKLE_MAX_DIGEST_SIZE];
	struct merkle_cache *cache;
	uint64_t id;			/* key of its blocks in the cache */
	merkle_read_fn read_tree;
	void *read_ctx;
	/* merkle_tree_ignore_zero_blocks(): the hash of a zero block. */
	bool zero_blocks;
	uint8_t zero_digest[MERKLE_MAX_DIGEST_SIZE];

	/* merkle_tree_copy_hash()'s, where copy_hash: never written after
	 * the open, so that calls may run at once and be abandoned. */
	bool copy_hash;
	struct merkle_hasher copy_hasher;

	/* Idle hashers, reused by concurrent verify calls. */
	pthread_mutex_t hashers_lock;
	struct merkle_hasher_slot *idle_hashers;

	struct {
		atomic_uint_fast64_t tree_reads;
		atomic_uint_fast64_t tree_blocks_read;
		atomic_uint_fast64_t blocks_read_ahead;
		atomic_uint_fast64_t cache_hits;
		atomic_uint_fast64_t cache_misses;
		atomic_uint_fast64_t blocks_verified;
		atomic_uint_fast64_t failures;
	} stats;
};

/* copy_hash.c: t's copy_hasher, set up at open (0 or MERKLE_E_NOMEM)
 * and torn down at close. */
int merkle_tree_copy_hash_init(struct merkle_tree *t);
void merkle_tree_copy_hash_exit(struct merkle_tree *t);

/* Borrow a hasher of t for one call; NULL means ENOMEM. */
struct merkle_hasher *merkle_tree_get_hasher(struct merkle_tree *t);
void merkle_tree_put_hasher(struct merkle_tree *t, struct merkle_hasher *h);

static inline void merkle_stat_add(atomic_uint_fast64_t *counter, uint64_t n)
{
	atomic_fetch_add_explicit(counter, n, memory_order_relaxed);
}

/*
 * Byte offset, within its hash block, of the hash of the block 'idx'
 * of the level below (a data block for level 0).
 */
static inline size_t merkle_hash_offset(const struct merkle_geometry *g,
					uint64_t idx)
{
	return (size_t)(idx & (g->hashes_per_block - 1)) * g->hash_stride;
}

/* Tree offset of hash block 'block' (index in the whole tree). */
static inline uint64_t merkle_block_offset(const struct merkle_geometry *g,
					   uint64_t block)
{
	return block * g->block_size;
}

/*
 * Readahead is capped so that a miss and its readahead fit one extent
 * (one buffer of MERKLE_MAX_EXTENT_SIZE), whatever hint a caller passes.
 */
static inline unsigned merkle_readahead_limit(const struct merkle_geometry *g,
					      unsigned ra_blocks)
{
	unsigned max = MERKLE_MAX_EXTENT_SIZE / g->block_size - 1;

	return ra_blocks < max ? ra_blocks : max;
}

#endif /* VUBLK_MERKLE_PRIVATE_H */
