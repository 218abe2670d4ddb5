// SPDX-License-Identifier: GPL-2.0-only
/*
 * hash_algs.c - the hash algorithms and salted block hashing.
 *
 * Mirrors fs/verity/hash_algs.c (fsverity_hash_algs[],
 * fsverity_prepare_hash_state(), fsverity_hash_block()) on OpenSSL EVP.
 */
#include <string.h>

#include "merkle_private.h"

struct merkle_hash_alg {
	const char *name;
	const EVP_MD *(*md)(void);
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
	[MERKLE_HASH_SHA256] = { "sha256", EVP_sha256, true, 32, 64 },
	[MERKLE_HASH_SHA512] = { "sha512", EVP_sha512, true, 64, 128 },
	/* What veritysetup formats, the kernel's dm-verity opens (its
	 * crypto API names) and OpenSSL's default provider has. */
	[MERKLE_HASH_SHA1] = { "sha1", EVP_sha1, false, 20, 64 },
	[MERKLE_HASH_SHA384] = { "sha384", EVP_sha384, false, 48, 128 },
	[MERKLE_HASH_SHA224] = { "sha224", EVP_sha224, false, 28, 64 },
	[MERKLE_HASH_SHA3_256] = { "sha3-256", EVP_sha3_256, false, 32, 136 },
	[MERKLE_HASH_SHA3_384] = { "sha3-384", EVP_sha3_384, false, 48, 104 },
	[MERKLE_HASH_SHA3_512] = { "sha3-512", EVP_sha3_512, false, 64, 72 },
	[MERKLE_HASH_BLAKE2B_512] = { "blake2b-512", EVP_blake2b512, false,
				      64, 128 },
	[MERKLE_HASH_BLAKE2S_256] = { "blake2s-256", EVP_blake2s256, false,
				      32, 64 },
	[MERKLE_HASH_SM3] = { "sm3", EVP_sm3, false, 32, 64 },
	[MERKLE_HASH_MD5] = { "md5", EVP_md5, false, 16, 64 },
	[MERKLE_HASH_RMD160] = { "rmd160", EVP_ripemd160, false, 20, 64 },
};

static const struct merkle_hash_alg *merkle_find_alg(unsigned hash_alg)
{
	if (hash_alg >= sizeof(merkle_hash_algs) / sizeof(merkle_hash_algs[0]) ||
	    !merkle_hash_algs[hash_alg].name)
		return NULL;
	return &merkle_hash_algs[hash_alg];
}

int merkle_hash_alg_from_name(const char *name)
{
	for (unsigned i = 0;
	     i < sizeof(merkle_hash_algs) / sizeof(merkle_hash_algs[0]); i++) {
		if (merkle_hash_algs[i].name &&
		    strcmp(merkle_hash_algs[i].name, name) == 0)
			return (int)i;
	}
	return MERKLE_E_BAD_ALG;
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
	bool dmv = p->format == MERKLE_FORMAT_DMVERITY;
	unsigned min_log = dmv ? MERKLE_DMV_MIN_LOG_BLOCKSIZE :
				 MERKLE_MIN_LOG_BLOCKSIZE;

	if (p->format != MERKLE_FORMAT_FSVERITY && !dmv)
		return MERKLE_E_BAD_ALG;
	if (!merkle_find_alg(p->hash_alg) ||
	    (!dmv && !merkle_hash_alg_fsverity(p->hash_alg)))
		return MERKLE_E_BAD_ALG;
	if (p->log_blocksize < min_log ||
	    p->log_blocksize > MERKLE_MAX_LOG_BLOCKSIZE)
		return MERKLE_E_BAD_BLOCKSIZE;
	/* fs-verity's data blocks are its tree blocks. */
	if (p->log_data_blocksize && (!dmv || p->log_data_blocksize < min_log ||
				      p->log_data_blocksize >
				      MERKLE_MAX_LOG_BLOCKSIZE))
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
 * the block).  Returns their length.
 */
static size_t merkle_salt_prefix(const struct merkle_hash_alg *alg,
				 const struct merkle_params *p, uint8_t *out)
{
	size_t len = p->salt_size;

	if (p->format == MERKLE_FORMAT_FSVERITY)
		len = (len + alg->input_block_size - 1) /
		      alg->input_block_size * alg->input_block_size;
	memset(out, 0, len);
	memcpy(out, p->salt, p->salt_size);
	return len;
}

/*
 * Hash the salt prefix into h->salted (and h->sha256_salted when blocks
 * go two at a time); nothing for an empty salt.
 */
static int merkle_hasher_prepare_salt(struct merkle_hasher *h,
				      const struct merkle_hash_alg *alg,
				      const struct merkle_params *p)
{
	uint8_t padded[MERKLE_DMV_MAX_SALT_SIZE + 128];
	size_t padded_size = merkle_salt_prefix(alg, p, padded);

	if (h->sha_ni)
		merkle_sha256_ni_init(&h->sha256_salted, padded, padded_size);
	if (EVP_DigestInit_ex(h->salted, alg->md(), NULL) != 1)
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
	h->sha_ni = p->hash_alg == MERKLE_HASH_SHA256 &&
		    merkle_sha256_ni_usable();
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
 * fs/verity/hash_algs.c: fsverity_hash_block(): start from the salted
 * state, absorb one block, finish.  The caller zero-pads partial blocks.
 * EVP calls on a valid context fail only when OpenSSL cannot allocate
 * (EVP_MD_CTX_copy_ex() duplicates the provider state), hence
 * MERKLE_E_NOMEM.
 */
static int merkle_hasher_hash_one(struct merkle_hasher *h,
				  const uint8_t *block, size_t len,
				  uint8_t *out)
{
	if (h->sha_ni) {
		merkle_sha256_ni_finup1(&h->sha256_salted, block, len, out);
		return 0;
	}
	if (EVP_MD_CTX_copy_ex(h->work, h->salted) != 1 ||
	    EVP_DigestUpdate(h->work, block, len) != 1 ||
	    EVP_DigestFinal_ex(h->work, out, NULL) != 1)
		return MERKLE_E_NOMEM;
	return 0;
}

/*
 * With the SHA extensions, blocks go through merkle_sha256_ni_finup2() in
 * pairs, as fs/verity/verify.c: fsverity_verify_pending_blocks() hashes
 * two pending data blocks with sha256_finup_2x(), and a lone last one
 * alone.
 */
int merkle_hasher_hash_ptrs(struct merkle_hasher *h,
			    const uint8_t *const *blocks, size_t n,
			    uint8_t *out)
{
	const unsigned ds = h->digest_size;
	size_t i = 0;
	int err = 0;

	for (; h->sha_ni && i + 2 <= n; i += 2)
		merkle_sha256_ni_finup2(&h->sha256_salted, blocks[i],
					blocks[i + 1], h->block_size,
					out + i * ds, out + (i + 1) * ds);
	for (; i < n && !err; i++)
		err = merkle_hasher_hash_one(h, blocks[i], h->block_size,
					     out + i * ds);
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

	if (!alg)
		return MERKLE_E_BAD_ALG;
	if (EVP_Digest(buf, len, out, NULL, alg->md(), NULL) != 1)
		return MERKLE_E_NOMEM;
	return 0;
}
