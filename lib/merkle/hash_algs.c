// SPDX-License-Identifier: GPL-2.0-only
/*
 * hash_algs.c - the hash algorithms and salted block hashing.
 *
 * Mirrors fs/verity/hash_algs.c (fsverity_hash_algs[],
 * fsverity_prepare_hash_state(), fsverity_hash_block()) on OpenSSL EVP.
 */
#include <pthread.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/provider.h>

#include "merkle_private.h"

struct merkle_hash_alg {
	const char *name;
	/* OpenSSL's default provider, through the process's library context
	 * (fs-verity's algorithms and most of dm-verity's), or else: */
	const EVP_MD *(*md)(void);
	/* fetched by this name from vublk's own library context, which has
	 * the legacy provider too (merkle_ossl_ctx()) */
	const char *fetch;
	bool fsverity;			/* fs-verity has it (else dm-verity) */
	unsigned digest_size;
	/*
	 * The hash's input block size: the salt is zero-padded to it so that
	 * the salted state is a whole number of compression rounds
	 * (fs/verity/hash_algs.c: fsverity_prepare_hash_state()).
	 */
	unsigned input_block_size;
};

/* Indexed by the kernel's FS_VERITY_HASH_ALG_* numbers, then ours. */
static const struct merkle_hash_alg merkle_hash_algs[] = {
	[MERKLE_HASH_SHA256] = { "sha256", EVP_sha256, NULL, true, 32, 64 },
	[MERKLE_HASH_SHA512] = { "sha512", EVP_sha512, NULL, true, 64, 128 },
	/* What veritysetup formats, the kernel's dm-verity opens (its
	 * crypto API names) and OpenSSL's default provider has. */
	[MERKLE_HASH_SHA1] = { "sha1", EVP_sha1, NULL, false, 20, 64 },
	[MERKLE_HASH_SHA384] = { "sha384", EVP_sha384, NULL, false, 48, 128 },
	[MERKLE_HASH_SHA224] = { "sha224", EVP_sha224, NULL, false, 28, 64 },
	[MERKLE_HASH_SHA3_256] = { "sha3-256", EVP_sha3_256, NULL, false, 32,
				   136 },
	[MERKLE_HASH_SHA3_384] = { "sha3-384", EVP_sha3_384, NULL, false, 48,
				   104 },
	[MERKLE_HASH_SHA3_512] = { "sha3-512", EVP_sha3_512, NULL, false, 64,
				   72 },
	[MERKLE_HASH_BLAKE2B_512] = { "blake2b-512", EVP_blake2b512, NULL,
				      false, 64, 128 },
	[MERKLE_HASH_BLAKE2S_256] = { "blake2s-256", EVP_blake2s256, NULL,
				      false, 32, 64 },
	[MERKLE_HASH_SM3] = { "sm3", EVP_sm3, NULL, false, 32, 64 },
	[MERKLE_HASH_MD5] = { "md5", EVP_md5, NULL, false, 16, 64 },
	[MERKLE_HASH_RMD160] = { "rmd160", EVP_ripemd160, NULL, false, 20,
				 64 },
	/*
	 * The rest of what veritysetup formats with its OpenSSL backend
	 * (cryptsetup's lib/crypto_backend/crypto_openssl.c fetches any
	 * digest of its library context, which has the default and the
	 * legacy providers), by OpenSSL's names.  Of these the kernel's
	 * crypto API has sha3-224, md4 and (as wp512) Whirlpool.  The
	 * SHAKEs and Keccak-KMACs are extendable-output functions: OpenSSL
	 * 3.0's EVP_DigestFinal_ex() gives their default length, which is
	 * what veritysetup stores.
	 */
	[MERKLE_HASH_SHA3_224] = { "sha3-224", EVP_sha3_224, NULL, false, 28,
				   144 },
	[MERKLE_HASH_SHA512_224] = { "sha512-224", EVP_sha512_224, NULL,
				     false, 28, 128 },
	[MERKLE_HASH_SHA512_256] = { "sha512-256", EVP_sha512_256, NULL,
				     false, 32, 128 },
	[MERKLE_HASH_SHAKE128] = { "shake128", EVP_shake128, NULL, false, 16,
				   168 },
	[MERKLE_HASH_SHAKE256] = { "shake256", EVP_shake256, NULL, false, 32,
				   136 },
	[MERKLE_HASH_KECCAK_KMAC128] = { "keccak-kmac-128", NULL,
					 "KECCAK-KMAC-128", false, 32, 168 },
	[MERKLE_HASH_KECCAK_KMAC256] = { "keccak-kmac-256", NULL,
					 "KECCAK-KMAC-256", false, 64, 136 },
	[MERKLE_HASH_MD5_SHA1] = { "md5-sha1", EVP_md5_sha1, NULL, false, 36,
				   64 },
	/* The legacy provider's (OpenSSL 3 moved them out of the default). */
	[MERKLE_HASH_MD4] = { "md4", NULL, "MD4", false, 16, 64 },
	[MERKLE_HASH_WHIRLPOOL] = { "whirlpool", NULL, "WHIRLPOOL", false, 64,
				    64 },
};

#define MERKLE_NR_ALGS (sizeof(merkle_hash_algs) / sizeof(merkle_hash_algs[0]))

static const struct merkle_hash_alg *merkle_find_alg(unsigned hash_alg)
{
	if (hash_alg >= MERKLE_NR_ALGS || !merkle_hash_algs[hash_alg].name)
		return NULL;
	return &merkle_hash_algs[hash_alg];
}

int merkle_hash_alg_from_name(const char *name)
{
	for (unsigned i = 0; i < MERKLE_NR_ALGS; i++) {
		if (merkle_hash_algs[i].name &&
		    strcmp(merkle_hash_algs[i].name, name) == 0)
			return (int)i;
	}
	return MERKLE_E_BAD_ALG;
}

/*
 * vublk's own OpenSSL library context, made when first needed, as
 * cryptsetup's openssl_backend_init() makes veritysetup's: the default
 * provider and, if it loads, the legacy one.  A context of its own keeps
 * the legacy algorithms (MD4 among them) out of the process's default
 * context, where lib/sig checks signatures with the default provider
 * only, as before.  The algorithms fetched from it are kept for the
 * process's life.
 */
static OSSL_LIB_CTX *merkle_ossl;
static EVP_MD *merkle_fetched[MERKLE_NR_ALGS];
static pthread_once_t merkle_ossl_once = PTHREAD_ONCE_INIT;

static void merkle_ossl_init(void)
{
	OSSL_LIB_CTX *ctx = OSSL_LIB_CTX_new();

	/* What fails here is said by what it leaves NULL, not in OpenSSL's
	 * error queue, which the callers' own OpenSSL calls read. */
	ERR_set_mark();
	/* A context with a provider loaded on purpose loads no other by
	 * itself: the default one is loaded explicitly. */
	if (ctx && !OSSL_PROVIDER_load(ctx, "default")) {
		OSSL_LIB_CTX_free(ctx);
		ctx = NULL;
	}
	/* Optional, as in cryptsetup: without it its algorithms are not
	 * fetched, and merkle_alg_md() says so (MERKLE_E_ALG_UNAVAILABLE). */
	if (ctx)
		(void)OSSL_PROVIDER_load(ctx, "legacy");
	for (unsigned i = 0; ctx && i < MERKLE_NR_ALGS; i++)
		if (merkle_hash_algs[i].fetch)
			merkle_fetched[i] = EVP_MD_fetch(ctx,
						merkle_hash_algs[i].fetch,
						NULL);
	ERR_pop_to_mark();
	merkle_ossl = ctx;
}

static OSSL_LIB_CTX *merkle_ossl_ctx(void)
{
	/* pthread_once() fails only on invalid arguments. */
	(void)pthread_once(&merkle_ossl_once, merkle_ossl_init);
	return merkle_ossl;
}

/* The algorithm's EVP_MD, or NULL when OpenSSL cannot give it. */
static const EVP_MD *merkle_alg_md(const struct merkle_hash_alg *alg)
{
	if (alg->md)
		return alg->md();
	(void)merkle_ossl_ctx();
	return merkle_fetched[alg - merkle_hash_algs];
}

/*
 * Whether md is alg: OpenSSL's name of alg is the fetch name, or that of
 * its default-provider method (EVP_sha256(): "SHA256").
 */
static bool merkle_md_is(const EVP_MD *md, const struct merkle_hash_alg *alg)
{
	return EVP_MD_is_a(md, alg->fetch ? alg->fetch :
				EVP_MD_get0_name(alg->md()));
}

/*
 * Another name of one of ours, by OpenSSL: veritysetup gives --hash to
 * EVP_MD_fetch() (crypto_openssl.c: crypt_hash_init()), which takes any
 * of OpenSSL's names for a digest, in any case ("SHA2-256", "sha-256",
 * "ripemd160", even OIDs), and stores it as given, lower-cased.
 */
static int merkle_alg_from_openssl(const char *name)
{
	OSSL_LIB_CTX *ctx = merkle_ossl_ctx();
	EVP_MD *md;
	int alg = MERKLE_E_BAD_ALG;

	if (!ctx)
		return MERKLE_E_BAD_ALG;
	ERR_set_mark();
	md = EVP_MD_fetch(ctx, name, NULL);
	ERR_pop_to_mark();
	for (unsigned i = 0; md && i < MERKLE_NR_ALGS && alg < 0; i++)
		if (merkle_hash_algs[i].name &&
		    merkle_md_is(md, &merkle_hash_algs[i]))
			alg = (int)i;
	EVP_MD_free(md);
	return alg;
}

int merkle_dmv_hash_alg_from_name(const char *name)
{
	int alg = merkle_hash_alg_from_name(name);

	return alg < 0 ? merkle_alg_from_openssl(name) : alg;
}

bool merkle_hash_alg_usable(unsigned hash_alg)
{
	const struct merkle_hash_alg *alg = merkle_find_alg(hash_alg);

	return alg && merkle_alg_md(alg);
}

bool merkle_hash_alg_fsverity(unsigned hash_alg)
{
	const struct merkle_hash_alg *alg = merkle_find_alg(hash_alg);

	return alg && alg->fsverity;
}

const char *merkle_hash_alg_name(unsigned hash_alg)
{
	const struct merkle_hash_alg *alg = merkle_find_alg(hash_alg);

	return alg ? alg->name : NULL;
}

bool merkle_params_sha_ni(const struct merkle_params *p)
{
	return p->hash_alg == MERKLE_HASH_SHA256 &&
	       !(p->format == MERKLE_FORMAT_DMVERITY_V0 && p->salt_size) &&
	       merkle_sha256_ni_usable();
}

const char *merkle_hash_impl(const struct merkle_params *p)
{
	/* By whether AVX-512 goes first, and the SHA extensions' count. */
	static const char *const names[2][SHA256_NI_MAX_LANES + 1] = {
		{ [1] = "SHA extensions, 1 lane",
		  [2] = "SHA extensions, 2 lanes",
		  [4] = "SHA extensions, 4 lanes",
		  [8] = "SHA extensions, 8 lanes" },
		{ [1] = "AVX-512, 16 lanes, then SHA extensions, 1 lane",
		  [2] = "AVX-512, 16 lanes, then SHA extensions, 2 lanes",
		  [4] = "AVX-512, 16 lanes, then SHA extensions, 4 lanes",
		  [8] = "AVX-512, 16 lanes, then SHA extensions, 8 lanes" },
	};

	if (!merkle_params_sha_ni(p))
		return "OpenSSL";
	return names[merkle_sha256_lanes() == MERKLE_SHA256_AVX512_LANES]
		    [merkle_sha256_ni_lanes()];
}

unsigned merkle_digest_size(unsigned hash_alg)
{
	const struct merkle_hash_alg *alg = merkle_find_alg(hash_alg);

	return alg ? alg->digest_size : 0;
}

/*
 * The checks of fs/verity/open.c: fsverity_init_merkle_tree_params() on the
 * parameters themselves (the data size is checked by the geometry).
 */
int merkle_params_check(const struct merkle_params *p)
{
	bool dmv = merkle_format_dmverity(p);
	unsigned min_log = dmv ? MERKLE_DMV_MIN_LOG_BLOCKSIZE :
				 MERKLE_MIN_LOG_BLOCKSIZE;
	unsigned max_log = dmv ? MERKLE_DMV_MAX_LOG_BLOCKSIZE :
				 MERKLE_MAX_LOG_BLOCKSIZE;

	if (p->format != MERKLE_FORMAT_FSVERITY && !dmv)
		return MERKLE_E_BAD_ALG;
	if (!merkle_find_alg(p->hash_alg) ||
	    (!dmv && !merkle_hash_alg_fsverity(p->hash_alg)))
		return MERKLE_E_BAD_ALG;
	if (!merkle_hash_alg_usable(p->hash_alg))
		return MERKLE_E_ALG_UNAVAILABLE;
	if (p->log_blocksize < min_log || p->log_blocksize > max_log)
		return MERKLE_E_BAD_BLOCKSIZE;
	/* fs-verity's data blocks are its tree blocks. */
	if (p->log_data_blocksize && (!dmv || p->log_data_blocksize < min_log ||
				      p->log_data_blocksize > max_log))
		return MERKLE_E_BAD_BLOCKSIZE;
	if (p->salt_size > (dmv ? MERKLE_DMV_MAX_SALT_SIZE :
				  MERKLE_MAX_SALT_SIZE))
		return MERKLE_E_BAD_SALT_SIZE;
	return 0;
}

/*
 * The bytes hashed before each block: fs-verity's salt zero-padded to the
 * hash's input block, dm-verity's salt as it is
 * (drivers/md/dm-verity-target.c: verity_hash_update() of the salt, then
 * the block), nothing for hash type 0, whose salt comes after the block
 * (verity_hash_final() when !v->version; cryptsetup's
 * verify_hash_block() when version == 0).  Returns their length.
 */
static size_t merkle_salt_prefix(const struct merkle_hash_alg *alg,
				 const struct merkle_params *p, uint8_t *out)
{
	size_t len = p->salt_size;

	if (p->format == MERKLE_FORMAT_DMVERITY_V0)
		return 0;
	if (p->format == MERKLE_FORMAT_FSVERITY)
		len = (len + alg->input_block_size - 1) /
		      alg->input_block_size * alg->input_block_size;
	memset(out, 0, len);
	memcpy(out, p->salt, p->salt_size);
	return len;
}

/*
 * Hash the salt prefix into h->salted (and h->sha256_salted when blocks
 * go through the SHA extensions); nothing for an empty salt.
 */
static int merkle_hasher_prepare_salt(struct merkle_hasher *h,
				      const struct merkle_hash_alg *alg,
				      const struct merkle_params *p)
{
	uint8_t padded[MERKLE_DMV_MAX_SALT_SIZE + 128];
	size_t padded_size = merkle_salt_prefix(alg, p, padded);

	if (h->sha_ni)
		merkle_sha256_ni_init(&h->sha256_salted, padded, padded_size);
	if (EVP_DigestInit_ex(h->salted, merkle_alg_md(alg), NULL) != 1)
		return MERKLE_E_NOMEM;
	if (padded_size && EVP_DigestUpdate(h->salted, padded, padded_size) != 1)
		return MERKLE_E_NOMEM;
	return 0;
}

int merkle_hasher_init(struct merkle_hasher *h, const struct merkle_params *p)
{
	const struct merkle_hash_alg *alg;
	int err = merkle_params_check(p);

	if (err)
		return err;
	alg = merkle_find_alg(p->hash_alg);
	h->digest_size = alg->digest_size;
	h->tree_block_size = (size_t)1 << p->log_blocksize;
	h->block_size = p->log_data_blocksize ?
			(size_t)1 << p->log_data_blocksize : h->tree_block_size;
	/* Hash type 0: the salt is hashed after each block. */
	h->suffix_len = p->format == MERKLE_FORMAT_DMVERITY_V0 ?
			p->salt_size : 0;
	memcpy(h->suffix, p->salt, h->suffix_len);
	/* The SHA extensions path hashes a prefix, then the block. */
	h->sha_ni = merkle_params_sha_ni(p);
	h->sha256_lanes = h->sha_ni ? merkle_sha256_lanes() : 1;
	h->sha256_ni_lanes = h->sha_ni ? merkle_sha256_ni_lanes() : 1;
	h->xof = EVP_MD_get_flags(merkle_alg_md(alg)) & EVP_MD_FLAG_XOF;
	h->salted = EVP_MD_CTX_new();
	h->work = EVP_MD_CTX_new();
	if (!h->salted || !h->work) {
		merkle_hasher_destroy(h);
		return MERKLE_E_NOMEM;
	}
	err = merkle_hasher_prepare_salt(h, alg, p);
	if (err)
		merkle_hasher_destroy(h);
	return err;
}

void merkle_hasher_destroy(struct merkle_hasher *h)
{
	EVP_MD_CTX_free(h->salted);
	EVP_MD_CTX_free(h->work);
	h->salted = NULL;
	h->work = NULL;
}

/*
 * An extendable-output function gives the bytes asked for: the table's
 * digest size, which is OpenSSL 3.0's default length that veritysetup
 * got from EVP_DigestFinal_ex() (OpenSSL 3.4 has no default length).
 */
static int merkle_final(EVP_MD_CTX *ctx, bool xof, unsigned digest_size,
			uint8_t *out)
{
	if (xof)
		return EVP_DigestFinalXOF(ctx, out, digest_size);
	return EVP_DigestFinal_ex(ctx, out, NULL);
}

/*
 * fs/verity/hash_algs.c: fsverity_hash_block(): start from the salted
 * state, absorb one block (and hash type 0's salt), finish.  The caller
 * zero-pads partial blocks.
 * EVP calls on a valid context fail only when OpenSSL cannot allocate
 * (EVP_MD_CTX_copy_ex() duplicates the provider state), hence
 * MERKLE_E_NOMEM.
 */
static int merkle_hasher_hash_one(struct merkle_hasher *h,
				  const uint8_t *block, size_t len,
				  uint8_t *out)
{
	if (h->sha_ni) {
		merkle_sha256_finup(&h->sha256_salted, &block, NULL, 1, len,
				    out);
		return 0;
	}
	if (EVP_MD_CTX_copy_ex(h->work, h->salted) != 1 ||
	    EVP_DigestUpdate(h->work, block, len) != 1 ||
	    (h->suffix_len &&
	     EVP_DigestUpdate(h->work, h->suffix, h->suffix_len) != 1) ||
	    merkle_final(h->work, h->xof, h->digest_size, out) != 1)
		return MERKLE_E_NOMEM;
	return 0;
}

/* The group size after groups of 'lanes': AVX-512's 16 give way to the
 * SHA extensions' fastest count, which halves down to 1. */
static size_t merkle_hasher_fewer_lanes(const struct merkle_hasher *h,
					size_t lanes)
{
	return lanes == MERKLE_SHA256_AVX512_LANES ? h->sha256_ni_lanes :
						     lanes / 2;
}

/*
 * With the SHA extensions, blocks go through merkle_sha256_finup() as
 * many at a time as are fastest on this CPU (up to eight, or sixteen on
 * AVX-512), then fewer, down to a lone last one.  fs/verity/verify.c:
 * fsverity_verify_pending_blocks() hashes two pending data blocks with
 * sha256_finup_2x(); more lanes keep the SHA unit busier still where one
 * lane's rounds are latency-bound (sha256_ni.c: 1.21 us per 4 KiB block
 * with eight lanes, 1.59 with two, on AMD Zen 5), but not on every CPU.
 * Unless copies is NULL, block i is copied to copies[i] as it is hashed.
 */
void merkle_hasher_sha256_ptrs(const struct merkle_hasher *h,
			       const uint8_t *const *blocks,
			       uint8_t *const *copies, size_t n, uint8_t *out)
{
	size_t i = 0;

	for (size_t lanes = h->sha256_lanes; lanes;
	     lanes = merkle_hasher_fewer_lanes(h, lanes))
		for (; i + lanes <= n; i += lanes)
			merkle_sha256_finup(&h->sha256_salted, blocks + i,
					    copies ? copies + i : NULL, lanes,
					    h->block_size, out + i * 32);
}

int merkle_hasher_hash_ptrs(struct merkle_hasher *h,
			    const uint8_t *const *blocks, size_t n,
			    uint8_t *out)
{
	int err = 0;

	if (h->sha_ni) {
		merkle_hasher_sha256_ptrs(h, blocks, NULL, n, out);
		return 0;
	}
	for (size_t i = 0; i < n && !err; i++)
		err = merkle_hasher_hash_one(h, blocks[i], h->block_size,
					     out + i * h->digest_size);
	return err;
}

int merkle_hasher_hash_tree_block(struct merkle_hasher *h,
				  const uint8_t *block, uint8_t *out)
{
	return merkle_hasher_hash_one(h, block, h->tree_block_size, out);
}

/* Contiguous blocks, in chunks of pointers. */
int merkle_hasher_hash_blocks(struct merkle_hasher *h, const void *data,
			      size_t nblocks, uint8_t *out)
{
	enum { CHUNK = 64 };
	const uint8_t *ptrs[CHUNK];
	const uint8_t *block = data;
	int err = 0;

	while (nblocks && !err) {
		size_t n = nblocks < CHUNK ? nblocks : CHUNK;

		for (size_t i = 0; i < n; i++, block += h->block_size)
			ptrs[i] = block;
		err = merkle_hasher_hash_ptrs(h, ptrs, n, out);
		out += n * h->digest_size;
		nblocks -= n;
	}
	return err;
}

int merkle_hash_blocks(const struct merkle_params *p, const void *data,
		       size_t nblocks, uint8_t *out)
{
	struct merkle_hasher h;
	int err = merkle_hasher_init(&h, p);

	if (err)
		return err;
	err = merkle_hasher_hash_blocks(&h, data, nblocks, out);
	merkle_hasher_destroy(&h);
	return err;
}

int merkle_hash_buffer(unsigned hash_alg, const void *buf, size_t len,
		       uint8_t *out)
{
	const struct merkle_hash_alg *alg = merkle_find_alg(hash_alg);

	/* fs-verity's algorithms all have an EVP_*() (alg->md). */
	if (!alg || !alg->fsverity)
		return MERKLE_E_BAD_ALG;
	if (EVP_Digest(buf, len, out, NULL, alg->md(), NULL) != 1)
		return MERKLE_E_NOMEM;
	return 0;
}
