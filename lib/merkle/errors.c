// SPDX-License-Identifier: GPL-2.0-only
/*
 * errors.c - text for the library's negative return values.
 */
#include <errno.h>
#include <string.h>

#include "merkle_private.h"

static const char *const merkle_error_text[] = {
	[MERKLE_E_BAD_ALG - MERKLE_E_BAD_ALG] =
		"unknown fs-verity hash algorithm (known: sha256, sha512)",
	[MERKLE_E_BAD_BLOCKSIZE - MERKLE_E_BAD_ALG] =
		"Merkle tree block size must be a power of 2 from 1024 to 65536 (dm-verity's: from 512 to 524288)",
	[MERKLE_E_BAD_SALT_SIZE - MERKLE_E_BAD_ALG] =
		"salt is longer than 32 bytes (dm-verity's: than 256)",
	[MERKLE_E_BAD_VERSION - MERKLE_E_BAD_ALG] =
		"fs-verity descriptor version is not 1",
	[MERKLE_E_RESERVED_NONZERO - MERKLE_E_BAD_ALG] =
		"fs-verity descriptor has non-zero reserved bytes",
	[MERKLE_E_DESC_TOO_SHORT - MERKLE_E_BAD_ALG] =
		"fs-verity descriptor is shorter than 256 bytes",
	[MERKLE_E_SIG_SIZE - MERKLE_E_BAD_ALG] =
		"fs-verity descriptor's sig_size overflows the descriptor buffer",
	[MERKLE_E_TOO_MANY_LEVELS - MERKLE_E_BAD_ALG] =
		"data too large: Merkle tree would need more than 8 levels",
	[MERKLE_E_CORRUPT - MERKLE_E_BAD_ALG] =
		"hash mismatch: data or Merkle tree is corrupt",
	[MERKLE_E_NOMEM - MERKLE_E_BAD_ALG] =
		"out of memory (or the crypto library failed to hash)",
	[MERKLE_E_DIGEST_MISMATCH - MERKLE_E_BAD_ALG] =
		"fs-verity file digest differs from the expected digest",
	[MERKLE_E_DESC_TOO_LONG - MERKLE_E_BAD_ALG] =
		"fs-verity descriptor plus signature is longer than 16384 bytes",
	[MERKLE_E_HEX_ODD - MERKLE_E_BAD_ALG] =
		"odd number of hex digits, give 2 per byte",
	[MERKLE_E_HEX_CHAR - MERKLE_E_BAD_ALG] =
		"not a hex string: use only the digits 0-9, a-f, A-F",
	[MERKLE_E_HEX_TOO_LONG - MERKLE_E_BAD_ALG] =
		"hex string too long for the value it gives",
	[MERKLE_E_DIGEST_SYNTAX - MERKLE_E_BAD_ALG] =
		"expected ALG:HEX as printed by 'fsverity digest', e.g. sha256:<64 hex digits>",
	[MERKLE_E_DIGEST_SIZE - MERKLE_E_BAD_ALG] =
		"wrong number of hex digits for the digest's algorithm: sha256 digests have 64, sha512 digests 128",
	[MERKLE_E_DESC_BAD_ALG - MERKLE_E_BAD_ALG] =
		"fs-verity descriptor names an unknown fs-verity hash algorithm (known: sha256, sha512)",
	[MERKLE_E_DESC_BAD_BLOCKSIZE - MERKLE_E_BAD_ALG] =
		"fs-verity descriptor's Merkle tree block size must be a power of 2 from 1024 to 65536",
	[MERKLE_E_DESC_BAD_SALT_SIZE - MERKLE_E_BAD_ALG] =
		"fs-verity descriptor's salt is longer than 32 bytes",
	[MERKLE_E_DESC_TOO_MANY_LEVELS - MERKLE_E_BAD_ALG] =
		"fs-verity descriptor's data size needs a Merkle tree of more than 8 levels",
	[MERKLE_E_DMV_MAGIC - MERKLE_E_BAD_ALG] =
		"no dm-verity superblock (\"verity\" signature) at the hash offset",
	[MERKLE_E_DMV_VERSION - MERKLE_E_BAD_ALG] =
		"dm-verity superblock version is not 1",
	[MERKLE_E_DMV_HASH_TYPE - MERKLE_E_BAD_ALG] =
		"dm-verity hash type is neither 1 nor 0 (Chrome OS's), the only ones there are",
	[MERKLE_E_DMV_BAD_ALG - MERKLE_E_BAD_ALG] =
		"dm-verity hash algorithm not served: vublk serves what veritysetup's OpenSSL backend formats (sha1, sha224, sha256, sha384, sha512, sha512-224, sha512-256, sha3-224, sha3-256, sha3-384, sha3-512, shake128, shake256, keccak-kmac-128, keccak-kmac-256, blake2b-512, blake2s-256, sm3, md5, md5-sha1, md4, rmd160, whirlpool, and OpenSSL's other names of these), not GOST's streebog, which that veritysetup refuses too",
	[MERKLE_E_DMV_BLOCKSIZE - MERKLE_E_BAD_ALG] =
		"dm-verity block size must be a power of 2 from 512 to 524288",
	[MERKLE_E_DMV_SALT_SIZE - MERKLE_E_BAD_ALG] =
		"dm-verity salt is longer than 256 bytes",
	[MERKLE_E_DMV_DATA_BLOCKS - MERKLE_E_BAD_ALG] =
		"dm-verity data block count is 0, or needs a tree of more than 8 levels",
	[MERKLE_E_DMV_HASH_OFFSET - MERKLE_E_BAD_ALG] =
		"dm-verity hash offset is not a multiple of 512 bytes",
	[MERKLE_E_DMV_HASH_SHORT - MERKLE_E_BAD_ALG] =
		"dm-verity hash device is too small for the superblock and the tree its parameters need",
	[MERKLE_E_DMV_DATA_SHORT - MERKLE_E_BAD_ALG] =
		"dm-verity data device is smaller than its data blocks",
	[MERKLE_E_DMV_OVERLAP - MERKLE_E_BAD_ALG] =
		"dm-verity data blocks and hash area overlap on one device (give --data-blocks, or a --hash-offset past the data)",
	[MERKLE_E_ALG_UNAVAILABLE - MERKLE_E_BAD_ALG] =
		"hash algorithm needs OpenSSL's legacy provider (md4, whirlpool), which did not load: install it (Debian: libssl3's ossl-modules/legacy.so)",
};

#define MERKLE_NR_ERRORS \
	(sizeof(merkle_error_text) / sizeof(merkle_error_text[0]))

/* Whether err is one of the MERKLE_E_* codes. */
static bool merkle_is_own_error(int err)
{
	return err >= MERKLE_E_BAD_ALG &&
	       (size_t)(err - MERKLE_E_BAD_ALG) < MERKLE_NR_ERRORS;
}

const char *merkle_strerror(int err)
{
	const char *text;

	if (merkle_is_own_error(err))
		return merkle_error_text[err - MERKLE_E_BAD_ALG];
	if (err < 0 && err > MERKLE_E_BAD_ALG) {
		/* strerrordesc_np() is the thread-safe strerror(). */
		text = strerrordesc_np(-err);
		if (text)
			return text;
	}
	return err == 0 ? "success" : "unknown error";
}

enum merkle_error_kind merkle_error_kind(int err)
{
	if (err >= 0)
		return MERKLE_ERR_NONE;
	if (err == MERKLE_E_NOMEM || err == -ENOMEM)
		return MERKLE_ERR_NOMEM;
	if (!merkle_is_own_error(err))
		return MERKLE_ERR_IO;	/* -errno, from the system or a callback */
	switch (err) {
	case MERKLE_E_BAD_ALG:
	case MERKLE_E_BAD_BLOCKSIZE:
	case MERKLE_E_BAD_SALT_SIZE:
	case MERKLE_E_TOO_MANY_LEVELS:
	case MERKLE_E_HEX_ODD:
	case MERKLE_E_HEX_CHAR:
	case MERKLE_E_HEX_TOO_LONG:
	case MERKLE_E_DIGEST_SYNTAX:
	case MERKLE_E_DIGEST_SIZE:
	case MERKLE_E_DMV_BAD_ALG:
	case MERKLE_E_DMV_HASH_OFFSET:
	case MERKLE_E_DMV_OVERLAP:
	case MERKLE_E_ALG_UNAVAILABLE:
		return MERKLE_ERR_ARGUMENT;
	default:
		return MERKLE_ERR_DAMAGE;
	}
}
