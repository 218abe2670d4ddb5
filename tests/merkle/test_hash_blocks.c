// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_hash_blocks - merkle_hash_blocks() against OpenSSL's EVP one block
 * at a time: H(salt zero-padded to the hash's input block size || block),
 * fs/verity/hash_algs.c's fsverity_hash_block().  lib/merkle hashes SHA-256
 * blocks up to eight at a time on CPUs with the x86 SHA extensions
 * (lib/merkle/sha256_ni.c), or sixteen with AVX-512 (sha256_avx512.c),
 * as many as are fastest on the CPU, so meson runs this once per count
 * ($MERKLE_SHA256_LANES=1, 2, 4, 8, 16: the test checks that the library
 * took it) and once as measured; the batch sizes (1 to 17, 24 and 31)
 * take every lane count, alone and after the larger ones, and the data
 * starts misaligned as well as aligned.  Whole trees and digests are
 * compared with fsverity-utils by oracle_test.sh.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include <openssl/evp.h>

#include "merkle_private.h"
#include "merkle_test.h"

#define MAX_BLOCKS 31
#define MAX_BLOCK_SIZE (1u << MERKLE_MAX_LOG_BLOCKSIZE)

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint8_t next_byte(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint8_t)(rng_state >> 32);
}

/* The oracle: one EVP digest of the salt (padded for fs-verity, as it is
 * for dm-verity) and the block; for dm-verity's hash type 0, of the block
 * and then the salt. */
static void evp_hash_block(const struct merkle_params *p, const uint8_t *block,
			   uint8_t *out)
{
	const EVP_MD *md = p->hash_alg == MERKLE_HASH_SHA256 ? EVP_sha256() :
							       EVP_sha512();
	size_t input_block = p->hash_alg == MERKLE_HASH_SHA256 ? 64 : 128;
	uint8_t padded[MERKLE_DMV_MAX_SALT_SIZE] = { 0 };
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	CHECK(ctx);
	memcpy(padded, p->salt, p->salt_size);
	CHECK(EVP_DigestInit_ex(ctx, md, NULL) == 1);
	if (merkle_format_dmverity(p))
		input_block = p->salt_size;
	if (p->salt_size && p->format != MERKLE_FORMAT_DMVERITY_V0)
		CHECK(EVP_DigestUpdate(ctx, padded, input_block) == 1);
	CHECK(EVP_DigestUpdate(ctx, block, (size_t)1 << p->log_blocksize) == 1);
	if (p->salt_size && p->format == MERKLE_FORMAT_DMVERITY_V0)
		CHECK(EVP_DigestUpdate(ctx, padded, input_block) == 1);
	CHECK(EVP_DigestFinal_ex(ctx, out, NULL) == 1);
	EVP_MD_CTX_free(ctx);
}

/* got holds the digests of the nblocks blocks at data, each the oracle's;
 * 'how' names the path that hashed them, in the message of a mismatch. */
static void check_digests(const struct merkle_params *p, const uint8_t *data,
			  size_t nblocks, const uint8_t *got, const char *how)
{
	uint8_t want[MERKLE_MAX_DIGEST_SIZE];
	unsigned ds = merkle_digest_size(p->hash_alg);
	size_t bs = (size_t)1 << p->log_blocksize;

	for (size_t i = 0; i < nblocks; i++) {
		evp_hash_block(p, data + i * bs, want);
		if (memcmp(got + i * ds, want, ds) != 0) {
			fprintf(stderr, "%s%s, %zu-byte blocks, %u-byte salt: block %zu of %zu hashes wrong\n",
				how, merkle_hash_alg_name(p->hash_alg), bs,
				p->salt_size, i, nblocks);
			exit(1);
		}
	}
}

/*
 * copies[i] (blocks of bs bytes, one after the other from one byte into
 * copy_buf, which was filled with 0x5a) hold the nblocks blocks at data,
 * and nothing around them was written.
 */
static void check_copies(const uint8_t *data, size_t nblocks, size_t bs,
			 const uint8_t *copy_buf, const char *how)
{
	if (memcmp(copy_buf + 1, data, nblocks * bs) != 0 ||
	    copy_buf[0] != 0x5a || copy_buf[1 + nblocks * bs] != 0x5a) {
		fprintf(stderr, "%scopy of %zu blocks of %zu bytes is wrong\n",
			how, nblocks, bs);
		exit(1);
	}
}

/* Pointers to nblocks blocks of bs bytes from base on. */
static void block_ptrs(uint8_t *base, size_t nblocks, size_t bs,
		       uint8_t **ptrs)
{
	for (size_t i = 0; i < nblocks; i++)
		ptrs[i] = base + i * bs;
}

/*
 * merkle_tree_copy_hash() of the same blocks, into buffers that start at
 * an odd address: the same digests, and the copies, wherever lib/merkle
 * hashes with its own SHA-256 code (which is where it copies); elsewhere
 * -EOPNOTSUPP.
 */
static void check_copy_hash(const struct merkle_params *p, const uint8_t *data,
			    size_t nblocks)
{
	static uint8_t copy_buf[MAX_BLOCKS * MAX_BLOCK_SIZE + 2];
	static uint8_t got[MAX_BLOCKS * MERKLE_MAX_DIGEST_SIZE];
	const uint8_t *src[MAX_BLOCKS];
	uint8_t *dst[MAX_BLOCKS];
	size_t bs = (size_t)1 << p->log_blocksize;
	struct merkle_params tp = *p;
	uint8_t root[MERKLE_MAX_DIGEST_SIZE] = { 0 };
	struct merkle_cache *cache = merkle_cache_new(1 << 20);
	struct merkle_hasher h;
	struct merkle_tree *t;

	CHECK(cache);
	tp.data_size = nblocks * bs;
	CHECK_RET(merkle_tree_open(&t, &tp, root, cache, NULL, NULL), 0);
	CHECK_RET(merkle_hasher_init(&h, p), 0);
	CHECK(merkle_tree_can_copy_hash(t) == h.sha_ni);
	merkle_hasher_destroy(&h);
	memset(copy_buf, 0x5a, sizeof(copy_buf));
	block_ptrs(copy_buf + 1, nblocks, bs, dst);
	for (size_t i = 0; i < nblocks; i++)
		src[i] = data + i * bs;
	if (!merkle_tree_can_copy_hash(t)) {
		CHECK_RET(merkle_tree_copy_hash(t, dst, src, nblocks, got),
			  -EOPNOTSUPP);
	} else {
		CHECK_RET(merkle_tree_copy_hash(t, dst, src, nblocks, got), 0);
		check_digests(p, data, nblocks, got, "copying, ");
		check_copies(data, nblocks, bs, copy_buf, "");
	}
	merkle_tree_close(t);
	merkle_cache_free(cache);
}

static void check_batch(const struct merkle_params *p, const uint8_t *data,
			size_t nblocks)
{
	static uint8_t got[(MAX_BLOCKS + 1) * MERKLE_MAX_DIGEST_SIZE];
	unsigned ds = merkle_digest_size(p->hash_alg);

	memset(got, 0xa5, sizeof(got));
	CHECK_RET(merkle_hash_blocks(p, data, nblocks, got), 0);
	check_digests(p, data, nblocks, got, "");
	/* Nothing written past the last digest. */
	CHECK(got[nblocks * ds] == 0xa5);
	check_copy_hash(p, data, nblocks);
}

/* The counts the library timed: the SHA extensions' 1, 2, 4 or 8, and
 * the same or AVX-512's 16 first, where it runs. */
static void check_timed_lanes(const struct merkle_params *p)
{
	struct merkle_hasher h;
	size_t ni;

	CHECK_RET(merkle_hasher_init(&h, p), 0);
	ni = h.sha256_ni_lanes;
	if (!h.sha_ni)
		CHECK(h.sha256_lanes == 1 && ni == 1);
	else
		CHECK((ni == 1 || ni == 2 || ni == 4 || ni == 8) &&
		      (h.sha256_lanes == ni ||
		       (h.sha256_lanes == MERKLE_SHA256_AVX512_LANES &&
			merkle_sha256_avx512_usable())));
	merkle_hasher_destroy(&h);
}

/*
 * AVX-512's groups of 16, then each count the SHA extensions may have
 * after them (the timing may pick any; $MERKLE_SHA256_LANES=16 takes 8):
 * the hasher's counts set by hand, every batch size up to MAX_BLOCKS,
 * for fs-verity's padded salt and dm-verity's salt tail, against
 * OpenSSL.  Returns how many batches matched; none where the CPU cannot
 * run the 16 lanes.
 */
static unsigned check_avx512_then_sha_lanes(const uint8_t *buf)
{
	static const struct merkle_params params[] = {
		{ .hash_alg = MERKLE_HASH_SHA256, .log_blocksize = 12,
		  .salt_size = 5, .salt = "salt" },
		{ .hash_alg = MERKLE_HASH_SHA256, .log_blocksize = 12,
		  .salt_size = 32, .format = MERKLE_FORMAT_DMVERITY },
	};
	static uint8_t got[MAX_BLOCKS * MERKLE_MAX_DIGEST_SIZE];
	static uint8_t copy_buf[MAX_BLOCKS * 4096 + 2];
	const uint8_t *blocks[MAX_BLOCKS];
	uint8_t *copies[MAX_BLOCKS];
	unsigned checked = 0;
	char how[48];

	if (!merkle_sha256_ni_usable() || !merkle_sha256_avx512_usable())
		return 0;
	for (size_t k = 0; k < sizeof(params) / sizeof(params[0]); k++)
	for (size_t ni = 1; ni <= SHA256_NI_MAX_LANES; ni *= 2)
	for (size_t n = 1; n <= MAX_BLOCKS; n++) {
		struct merkle_hasher h;

		CHECK_RET(merkle_hasher_init(&h, &params[k]), 0);
		h.sha256_lanes = MERKLE_SHA256_AVX512_LANES;
		h.sha256_ni_lanes = ni;
		for (size_t i = 0; i < n; i++)
			blocks[i] = buf + 1 + i * 4096;
		CHECK_RET(merkle_hasher_hash_ptrs(&h, blocks, n, got), 0);
		snprintf(how, sizeof(how), "16 AVX-512 lanes, then %zu SHA lanes, ",
			 ni);
		check_digests(&params[k], buf + 1, n, got, how);
		/* And copying as it hashes (merkle_tree_copy_hash()). */
		memset(copy_buf, 0x5a, sizeof(copy_buf));
		block_ptrs(copy_buf + 1, n, 4096, copies);
		merkle_hasher_sha256_ptrs(&h, blocks, copies, n, got);
		check_digests(&params[k], buf + 1, n, got, how);
		check_copies(buf + 1, n, 4096, copy_buf, how);
		merkle_hasher_destroy(&h);
		checked++;
	}
	return checked;
}

/* A thread that keeps changing bytes of len at buf until stop. */
struct changer {
	pthread_t thread;
	uint8_t *buf;
	size_t len;
	atomic_bool stop;
};

static void *changer_run(void *arg)
{
	struct changer *c = arg;
	uint8_t v = 0;

	while (!atomic_load(&c->stop))
		for (size_t i = 0; i < c->len; i += 61)
			__atomic_store_n(&c->buf[i], v++, __ATOMIC_RELAXED);
	return NULL;
}

/*
 * Copying while the source changes (a mapping of the page cache that
 * someone writes): each copy must still hash to its digest, for the
 * groups of 16, 8 and 1 and with salt tails that cut a block's first and
 * last 64 bytes anywhere (1, 32, 55, 63 bytes: sha256_ni.c's first[] and
 * last[]).  Returns how many batches matched; none without the SHA
 * extensions.
 */
static unsigned check_copy_while_changing(uint8_t *src_buf)
{
	static const unsigned salts[] = { 1, 32, 55, 63 };
	static uint8_t copy_buf[17 * 4096 + 2];
	static uint8_t got[17 * MERKLE_MAX_DIGEST_SIZE];
	uint8_t want[MERKLE_MAX_DIGEST_SIZE];
	const uint8_t *blocks[17];
	uint8_t *copies[17];
	struct changer c = { .buf = src_buf, .len = 17 * 4096 };
	unsigned checked = 0;

	if (!merkle_sha256_ni_usable())
		return 0;
	block_ptrs(copy_buf + 1, 17, 4096, copies);
	for (size_t i = 0; i < 17; i++)
		blocks[i] = src_buf + i * 4096;
	CHECK(pthread_create(&c.thread, NULL, changer_run, &c) == 0);
	for (size_t k = 0; k < sizeof(salts) / sizeof(salts[0]); k++)
	for (size_t lanes = 1; lanes <= MERKLE_SHA256_AVX512_LANES; lanes *= 2) {
		struct merkle_params p = {
			.hash_alg = MERKLE_HASH_SHA256, .log_blocksize = 12,
			.salt_size = salts[k], .format = MERKLE_FORMAT_DMVERITY,
		};
		struct merkle_hasher h;

		if ((lanes == MERKLE_SHA256_AVX512_LANES &&
		     !merkle_sha256_avx512_usable()) || lanes == 2 || lanes == 4)
			continue;
		memset(p.salt, 0x3c, p.salt_size);
		CHECK_RET(merkle_hasher_init(&h, &p), 0);
		h.sha256_lanes = lanes;
		h.sha256_ni_lanes = lanes == MERKLE_SHA256_AVX512_LANES ? 1 :
								       lanes;
		for (int round = 0; round < 100; round++) {
			merkle_hasher_sha256_ptrs(&h, blocks, copies, 17, got);
			for (size_t i = 0; i < 17; i++) {
				evp_hash_block(&p, copies[i], want);
				CHECK(memcmp(want, got + i * 32, 32) == 0);
			}
			checked++;
		}
		merkle_hasher_destroy(&h);
	}
	atomic_store(&c.stop, true);
	CHECK(pthread_join(c.thread, NULL) == 0);
	return checked;
}

/*
 * Where the CPU has the SHA extensions, $MERKLE_SHA256_LANES=N (1, 2, 4
 * or 8, as the library takes it, or 16 with AVX-512, then 8) makes a
 * hasher hash N blocks at a time at most: the batches go through that
 * path.  Without the extensions or AVX-512 (valgrind hides both), a run
 * asked for N lanes has nothing of its own to test: skip it before the
 * batches.  Without the variable, the timed counts must be ones the
 * hasher takes.
 */
static void check_lanes_taken(void)
{
	const char *lanes = getenv("MERKLE_SHA256_LANES");
	const struct merkle_params p = { .hash_alg = MERKLE_HASH_SHA256,
					 .log_blocksize = 12 };
	const char *impl = merkle_hash_impl(&p);
	struct merkle_hasher h;
	size_t n = lanes ? merkle_sha256_lanes_named(lanes) : 0;
	char want[80];

	printf("SHA-256 blocks hashed with: %s\n", impl);
	if (!n) {
		check_timed_lanes(&p);
		return;
	}
	if (!strcmp(impl, "OpenSSL")) {
		printf("no SHA extensions: MERKLE_SHA256_LANES=%s has no path to test\n",
		       lanes);
		exit(77);
	}
	if (n == MERKLE_SHA256_AVX512_LANES && !merkle_sha256_avx512_usable()) {
		printf("no AVX-512: MERKLE_SHA256_LANES=%s has no path to test\n",
		       lanes);
		exit(77);
	}
	CHECK_RET(merkle_hasher_init(&h, &p), 0);
	if (h.sha256_lanes != n ||
	    h.sha256_ni_lanes != (n == MERKLE_SHA256_AVX512_LANES ?
				  SHA256_NI_MAX_LANES : n)) {
		fprintf(stderr, "MERKLE_SHA256_LANES=%s, but the hasher takes %zu lanes, then %zu\n",
			lanes, h.sha256_lanes, h.sha256_ni_lanes);
		exit(1);
	}
	merkle_hasher_destroy(&h);
	if (n == MERKLE_SHA256_AVX512_LANES)
		snprintf(want, sizeof(want),
			 "AVX-512, 16 lanes, then SHA extensions, 8 lanes");
	else
		snprintf(want, sizeof(want), "SHA extensions, %zu lane%s", n,
			 n == 1 ? "" : "s");
	if (strcmp(impl, want) != 0) {
		fprintf(stderr, "MERKLE_SHA256_LANES=%s, but the library reports %s\n",
			lanes, impl);
		exit(1);
	}
}

int main(void)
{
	static const unsigned salt_sizes[] = { 0, 1, 31, MERKLE_MAX_SALT_SIZE };
	static const unsigned log_sizes[] = { MERKLE_MIN_LOG_BLOCKSIZE, 12,
					      MERKLE_MAX_LOG_BLOCKSIZE };
	static const unsigned algs[] = { MERKLE_HASH_SHA256, MERKLE_HASH_SHA512 };
	/* Every mix of 8, 4, 2 and 1 lanes, and 16 alone, with one more, with
	 * 8 more and with every smaller count after it. */
	static const size_t batch_sizes[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
					      12, 13, 14, 15, 16, 17, 24,
					      MAX_BLOCKS };
	/* One spare byte in front: the data may start at an odd address. */
	uint8_t *buf = malloc(MAX_BLOCKS * MAX_BLOCK_SIZE + 1);
	unsigned checked = 0;

	check_lanes_taken();
	CHECK(buf);
	for (size_t i = 0; i < MAX_BLOCKS * MAX_BLOCK_SIZE + 1; i++)
		buf[i] = next_byte();
	for (unsigned a = 0; a < 2; a++)
	for (unsigned s = 0; s < 4; s++)
	for (unsigned l = 0; l < 3; l++)
	for (size_t b = 0; b < sizeof(batch_sizes) / sizeof(batch_sizes[0]); b++) {
		struct merkle_params p = {
			.hash_alg = algs[a],
			.log_blocksize = log_sizes[l],
			.salt_size = salt_sizes[s],
		};

		for (unsigned i = 0; i < p.salt_size; i++)
			p.salt[i] = next_byte();
		check_batch(&p, buf, batch_sizes[b]);
		check_batch(&p, buf + 1, batch_sizes[b]);
		checked += 2;
	}
	/* dm-verity's salts, hashed as they are: every tail length of the
	 * SHA-256 prefix that matters (sha256_ni.c: 0, short, 55 and 56
	 * around the one/two last blocks boundary, 63, several blocks); and
	 * after the block for hash type 0, which no group of blocks may take
	 * the prefix path for.  Batches of 1-4, 9-11 and 17-19 blocks:
	 * every lane count of the SHA extensions' path and AVX-512's with a
	 * salt tail. */
	for (unsigned f = 0; f < 2; f++)
	for (unsigned a = 0; a < 2; a++)
	for (unsigned salt = 0; salt <= 256; salt += salt < 72 ? 1 : 61)
	for (size_t n = 1; n <= 3; n++) {
		struct merkle_params p = {
			.format = f ? MERKLE_FORMAT_DMVERITY_V0 :
				      MERKLE_FORMAT_DMVERITY,
			.hash_alg = algs[a],
			.log_blocksize = 9 + (unsigned)n,
			.salt_size = salt,
		};

		for (unsigned i = 0; i < p.salt_size; i++)
			p.salt[i] = next_byte();
		check_batch(&p, buf, n);
		check_batch(&p, buf + 1, n + 1);
		check_batch(&p, buf + 1, n + 8);
		check_batch(&p, buf + 1, n + 16);
		checked += 4;
	}
	checked += check_avx512_then_sha_lanes(buf);
	checked += check_copy_while_changing(buf);
	free(buf);
	printf("test_hash_blocks: %u batches match OpenSSL\n", checked);
	return 0;
}
