/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * merkle.h - fs-verity compatible Merkle trees: build, describe, verify.
 *
 * This is the one public header of lib/merkle.  Everything here is
 * bit-exact with the Linux kernel's fs/verity/ and with fsverity-utils:
 *
 *  - A tree is built over data_size bytes split in blocks of
 *    (1 << log_blocksize) bytes; the last block is zero-padded.  Each hash
 *    is H(salt_padded || block), where the salt is zero-padded to the
 *    hash's input block size (64 bytes for SHA-256, 128 for SHA-512) and
 *    omitted when salt_size is 0.
 *  - Level 0 holds the hashes of the data blocks, level 1 the hashes of
 *    the level-0 blocks, and so on until a level fits in one block; each
 *    hash block is zero-padded.  Levels are stored root level first, each
 *    starting on a block boundary (fs/verity/open.c:
 *    fsverity_init_merkle_tree_params()).
 *  - The root hash is the hash of the single top-level block.  A file of at
 *    most one block has no tree: its root hash is the hash of that block,
 *    or all zeroes for an empty file.
 *  - The 256-byte descriptor (struct merkle_descriptor, the kernel's
 *    struct fsverity_descriptor) and the file digest, which is the hash of
 *    the descriptor with sig_size set to 0 and no signature appended.
 *
 * The same trees in dm-verity's format (hash type 1, as `veritysetup
 * format` writes them, drivers/md/dm-verity-target.c verifies them) differ
 * in the salt, which is hashed as it is, not padded (each hash is
 * H(salt || block), any salt of up to 256 bytes), in the data blocks,
 * which may have a size of their own (params.log_data_blocksize), and in
 * the room a hash takes in a hash block: a power of 2, so that a SHA-1
 * digest of 20 bytes is followed by 12 zero bytes (geometry.hash_stride;
 * for SHA-256 and SHA-512 the digest itself).  The levels, their order
 * and padding, and the root hash are the same.  Such
 * a tree has no descriptor: its root hash is what users trust, and its
 * parameters come from dm-verity's superblock (merkle_dmv_sb_parse()) or
 * from the command line.  Give params.format = MERKLE_FORMAT_DMVERITY.
 * dm-verity's hash type 0 (Chrome OS's original, `veritysetup format
 * --format=0`, MERKLE_FORMAT_DMVERITY_V0) differs from type 1 in two
 * more ways: the salt is hashed after the block, H(block || salt), and
 * the hashes are packed in their block, each right after the other
 * (hash_stride = digest size); the spare end of the block is zero.
 *
 * Errors: functions that can fail return 0 on success or a negative value:
 * either -errno (from the system, or from a caller's callback) or one of
 * the MERKLE_E* codes below; merkle_strerror() names both, and
 * merkle_error_kind() says which kind of failure it is (the image is
 * damaged, an argument was wrong, I/O failed, memory ran out), so that
 * every caller reports it the same way.
 *
 * Thread safety: a struct merkle_cache and a struct merkle_tree may be used
 * from several threads at once (the daemon shares one cache between all its
 * queues); everything else is plain data.
 */
#ifndef VUBLK_MERKLE_H
#define VUBLK_MERKLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Hash algorithm numbers are the kernel's FS_VERITY_HASH_ALG_*; the
 * others are vublk's, for dm-verity trees only. */
#define MERKLE_HASH_SHA256 1
#define MERKLE_HASH_SHA512 2
/* dm-verity only, by their kernel crypto API names: */
#define MERKLE_HASH_SHA1 3
#define MERKLE_HASH_SHA384 4
#define MERKLE_HASH_SHA224 5
#define MERKLE_HASH_SHA3_256 6
#define MERKLE_HASH_SHA3_384 7
#define MERKLE_HASH_SHA3_512 8
#define MERKLE_HASH_BLAKE2B_512 9
#define MERKLE_HASH_BLAKE2S_256 10
#define MERKLE_HASH_SM3 11
#define MERKLE_HASH_MD5 12
#define MERKLE_HASH_RMD160 13
/* dm-verity only, by OpenSSL's names (veritysetup's OpenSSL backend): */
#define MERKLE_HASH_SHA3_224 14
#define MERKLE_HASH_SHA512_224 15
#define MERKLE_HASH_SHA512_256 16
#define MERKLE_HASH_SHAKE128 17
#define MERKLE_HASH_SHAKE256 18
#define MERKLE_HASH_KECCAK_KMAC128 19
#define MERKLE_HASH_KECCAK_KMAC256 20
#define MERKLE_HASH_MD5_SHA1 21
#define MERKLE_HASH_MD4 22		/* OpenSSL's legacy provider */
#define MERKLE_HASH_WHIRLPOOL 23	/* OpenSSL's legacy provider */

#define MERKLE_MAX_DIGEST_SIZE 64
#define MERKLE_MAX_SALT_SIZE 32		/* fs-verity's */
#define MERKLE_DMV_MAX_SALT_SIZE 256	/* dm-verity's (veritysetup) */
#define MERKLE_MAX_LEVELS 8
/* Block sizes that fsverity-utils and the kernel accept: 1 KiB .. 64 KiB. */
#define MERKLE_MIN_LOG_BLOCKSIZE 10
#define MERKLE_MAX_LOG_BLOCKSIZE 16
/*
 * dm-verity's blocks start at 512 bytes (one sector) and end at
 * veritysetup's 512 KiB (cryptsetup's lib/verity/verity.h:
 * VERITY_BLOCK_SIZE_OK()).  The kernel's dm-verity takes no more than a
 * page (verity_ctr()); veritysetup verify and vublk take them all.
 */
#define MERKLE_DMV_MIN_LOG_BLOCKSIZE 9
#define MERKLE_DMV_MAX_LOG_BLOCKSIZE 19
#define MERKLE_DESCRIPTOR_SIZE 256
/* The kernel's FS_VERITY_MAX_DESCRIPTOR_SIZE (descriptor + signature). */
#define MERKLE_MAX_DESCRIPTOR_SIZE 16384
/* The longest tree read the library asks for or plans (struct merkle_extent). */
#define MERKLE_MAX_EXTENT_SIZE (1u << 20)

/*
 * Library-specific errors (negative, below any errno).  The comment says
 * each one's kind (merkle_error_kind()): "damage" means the bytes given as
 * a descriptor, tree or data are not valid; "argument" that a parameter
 * the caller chose is not.
 */
enum merkle_error {
	MERKLE_E_BAD_ALG = -1000,	/* argument: unknown hash algorithm */
	MERKLE_E_BAD_BLOCKSIZE,		/* argument: block size not a power of 2 in range */
	MERKLE_E_BAD_SALT_SIZE,		/* argument: salt longer than 32 (dm-verity: 256) bytes */
	MERKLE_E_BAD_VERSION,		/* damage: descriptor version is not 1 */
	MERKLE_E_RESERVED_NONZERO,	/* damage: descriptor reserved bytes not zero */
	MERKLE_E_DESC_TOO_SHORT,	/* damage: buffer shorter than the descriptor */
	MERKLE_E_SIG_SIZE,		/* damage: sig_size disagrees with buffer size */
	MERKLE_E_TOO_MANY_LEVELS,	/* argument: data too large for MERKLE_MAX_LEVELS */
	MERKLE_E_CORRUPT,		/* damage: hash mismatch, data or tree corrupt */
	MERKLE_E_NOMEM,			/* out of memory */
	MERKLE_E_DIGEST_MISMATCH,	/* damage: descriptor digest != expected digest */
	MERKLE_E_DESC_TOO_LONG,		/* damage: buffer over MERKLE_MAX_DESCRIPTOR_SIZE */
	/* Parsing user input (merkle_parse_hex() and merkle_parse_digest()): */
	MERKLE_E_HEX_ODD,		/* argument: odd number of hex digits */
	MERKLE_E_HEX_CHAR,		/* argument: a character that is not a hex digit */
	MERKLE_E_HEX_TOO_LONG,		/* argument: more bytes than the value may have */
	MERKLE_E_DIGEST_SYNTAX,		/* argument: digest text is not ALG:HEX */
	MERKLE_E_DIGEST_SIZE,		/* argument: HEX length is not ALG's digest size */
	/* A descriptor's parameters (merkle_descriptor_parse()): */
	MERKLE_E_DESC_BAD_ALG,		/* damage: unknown hash algorithm */
	MERKLE_E_DESC_BAD_BLOCKSIZE,	/* damage: block size out of range */
	MERKLE_E_DESC_BAD_SALT_SIZE,	/* damage: salt longer than 32 bytes */
	MERKLE_E_DESC_TOO_MANY_LEVELS,	/* damage: data size needs over 8 levels */
	/* A dm-verity superblock (merkle_dmv_sb_parse()): */
	MERKLE_E_DMV_MAGIC,		/* damage: no "verity" signature */
	MERKLE_E_DMV_VERSION,		/* damage: superblock version is not 1 */
	MERKLE_E_DMV_HASH_TYPE,		/* damage: hash type is neither 0 nor 1 */
	MERKLE_E_DMV_BAD_ALG,		/* argument: algorithm vublk does not serve */
	MERKLE_E_DMV_BLOCKSIZE,		/* damage: not a power of 2, 512..512 KiB */
	MERKLE_E_DMV_SALT_SIZE,		/* damage: salt longer than 256 bytes */
	MERKLE_E_DMV_DATA_BLOCKS,	/* damage: no data blocks, or more than 8 levels */
	MERKLE_E_DMV_HASH_OFFSET,	/* argument: hash offset not a multiple of 512 */
	MERKLE_E_DMV_HASH_SHORT,	/* damage: hash device ends inside the tree */
	MERKLE_E_DMV_DATA_SHORT,	/* damage: data device smaller than its blocks */
	MERKLE_E_DMV_OVERLAP,		/* argument: data and hash areas overlap */
	MERKLE_E_ALG_UNAVAILABLE,	/* argument: OpenSSL's legacy provider,
					 * which has the algorithm, does not load */
};

/* Human-readable text for a negative return value of this library. */
const char *merkle_strerror(int err);

/* The kinds of failure, for reporting (see "Errors" above). */
enum merkle_error_kind {
	MERKLE_ERR_NONE,	/* 0 or a positive status: not a failure */
	MERKLE_ERR_DAMAGE,	/* an image, descriptor, tree or data is invalid */
	MERKLE_ERR_ARGUMENT,	/* a parameter the caller gave is invalid */
	MERKLE_ERR_IO,		/* -errno other than -ENOMEM: the system failed */
	MERKLE_ERR_NOMEM,	/* MERKLE_E_NOMEM or -ENOMEM */
};

/* The kind of a return value of this library; every caller classes
 * failures with this, never by comparing codes. */
enum merkle_error_kind merkle_error_kind(int err);

/* "sha256", "sha512" and dm-verity's ("sha1", "blake2b-512"...) ->
 * MERKLE_HASH_*, or MERKLE_E_BAD_ALG: the names merkle_hash_alg_name()
 * gives, exactly. */
int merkle_hash_alg_from_name(const char *name);
/*
 * A dm-verity algorithm name as veritysetup takes it (--hash, or the
 * superblock's): one of ours, or any other name that OpenSSL gives one of
 * them, in any case ("SHA2-256", "sha-256", "ripemd160", "WHIRLPOOL"),
 * since veritysetup hands the name to OpenSSL's EVP_MD_fetch().  Returns
 * MERKLE_HASH_* or MERKLE_E_BAD_ALG.  Whether OpenSSL can hash with it
 * here is merkle_geometry_init()'s question (MERKLE_E_ALG_UNAVAILABLE).
 */
int merkle_dmv_hash_alg_from_name(const char *name);
/* Whether fs-verity has the algorithm (sha256, sha512). */
bool merkle_hash_alg_fsverity(unsigned hash_alg);
/* MERKLE_HASH_* -> its name, or NULL. */
const char *merkle_hash_alg_name(unsigned hash_alg);
/* Digest size in bytes, or 0 for an unknown algorithm. */
unsigned merkle_digest_size(unsigned hash_alg);

/* How a block is hashed, and which limits apply (see the top). */
enum merkle_format {
	MERKLE_FORMAT_FSVERITY,		/* H(salt zero-padded || block) */
	MERKLE_FORMAT_DMVERITY,		/* H(salt || block): dm-verity type 1 */
	MERKLE_FORMAT_DMVERITY_V0,	/* H(block || salt), packed: type 0 */
};

/* What a tree is built from; the same fields as the descriptor. */
struct merkle_params {
	unsigned hash_alg;		/* MERKLE_HASH_* */
	unsigned log_blocksize;		/* MERKLE_MIN..MAX_LOG_BLOCKSIZE, or
					 * MERKLE_DMV_MIN..MAX_LOG_BLOCKSIZE:
					 * the hash (tree) blocks, and the
					 * data blocks unless: */
	unsigned log_data_blocksize;	/* dm-verity: 0, or the data blocks'
					 * own size, in the same range */
	unsigned salt_size;		/* 0..MERKLE_MAX_SALT_SIZE, or
					 * MERKLE_DMV_MAX_SALT_SIZE */
	uint8_t salt[MERKLE_DMV_MAX_SALT_SIZE];
	uint64_t data_size;		/* bytes of data covered */
	enum merkle_format format;	/* 0: fs-verity */
};

/*
 * How this process hashes the blocks of a tree of valid parameters p,
 * for reports: "SHA extensions, N lanes" for SHA-256 where the CPU has
 * them, "AVX-512, 16 lanes, then SHA extensions, N lanes" where it also
 * has AVX-512 and 16 blocks at once in its registers are faster, else
 * "OpenSSL" (every other algorithm, and dm-verity's hash type 0 with a
 * salt, which follows the block).  N is how many blocks the SHA
 * extensions hash at once at most: $MERKLE_SHA256_LANES if it is 1, 2, 4
 * or 8 (16: AVX-512 first, then 8), else the count found fastest on this
 * CPU, timed (about 1 ms) by the process's first call that needs it:
 * this, merkle_tree_open() or the setting up of a hasher for such a
 * tree.
 */
const char *merkle_hash_impl(const struct merkle_params *p);

/* Whether p is one of dm-verity's hash types. */
static inline bool merkle_format_dmverity(const struct merkle_params *p)
{
	return p->format == MERKLE_FORMAT_DMVERITY ||
	       p->format == MERKLE_FORMAT_DMVERITY_V0;
}

/* log2 of the data block size of p. */
static inline unsigned merkle_log_data_blocksize(const struct merkle_params *p)
{
	return p->log_data_blocksize ? p->log_data_blocksize :
				       p->log_blocksize;
}

/* The shape of a tree, derived from struct merkle_params. */
struct merkle_geometry {
	unsigned digest_size;
	unsigned hash_stride;		/* bytes per hash in a hash block */
	unsigned block_size;		/* hash blocks */
	unsigned data_block_size;	/* data blocks (= block_size for
					 * fs-verity) */
	unsigned log_arity;		/* log2(hashes per block) */
	unsigned hashes_per_block;
	unsigned num_levels;		/* 0: data_size <= block_size, no tree */
	uint64_t data_blocks;		/* DIV_ROUND_UP(data_size,
					 * data_block_size) */
	/* level 0 = the hashes of the data blocks; num_levels-1 = the top. */
	uint64_t level_start[MERKLE_MAX_LEVELS]; /* first block, in the tree */
	uint64_t level_blocks[MERKLE_MAX_LEVELS];
	uint64_t tree_size;		/* bytes; a multiple of block_size */
};

/* Validate params and compute the geometry.  Returns 0 or MERKLE_E_*. */
int merkle_geometry_init(struct merkle_geometry *g,
			 const struct merkle_params *p);

/*
 * The kernel's struct fsverity_descriptor (fs/verity/fsverity_private.h),
 * little endian on disk.  Use merkle_descriptor_init() to fill one.
 */
struct merkle_descriptor {
	uint8_t version;		/* must be 1 */
	uint8_t hash_algorithm;
	uint8_t log_blocksize;
	uint8_t salt_size;
	uint32_t sig_size;		/* le32; bytes of signature after this */
	uint64_t data_size;		/* le64 */
	uint8_t root_hash[64];		/* zero-padded */
	uint8_t salt[32];		/* zero-padded */
	uint8_t reserved[144];		/* must be 0 */
} __attribute__((packed));
_Static_assert(sizeof(struct merkle_descriptor) == MERKLE_DESCRIPTOR_SIZE,
	       "descriptor must be 256 bytes");

/* Fill a version-1 descriptor with sig_size 0. */
void merkle_descriptor_init(struct merkle_descriptor *d,
			    const struct merkle_params *p,
			    const uint8_t *root_hash);

/*
 * Parse and validate a descriptor as fs/verity/open.c does: buf holds the
 * descriptor followed by sig_size bytes of signature (len is the total, at
 * most MERKLE_MAX_DESCRIPTOR_SIZE).  On success fills *p, root_hash
 * (digest_size bytes, the rest zeroed) and *sig_size.  As in the kernel,
 * only a signature running past len is an error (MERKLE_E_SIG_SIZE), not
 * trailing bytes; the data size must not need more than MERKLE_MAX_LEVELS
 * levels.  The caller checks data_size against the real data.
 */
int merkle_descriptor_parse(const void *buf, size_t len,
			    struct merkle_params *p,
			    uint8_t root_hash[MERKLE_MAX_DIGEST_SIZE],
			    uint32_t *sig_size);

/* The fs-verity file digest: hash of the descriptor with sig_size = 0. */
int merkle_descriptor_digest(const struct merkle_descriptor *d,
			     uint8_t digest[MERKLE_MAX_DIGEST_SIZE]);

/*
 * The "FSVerity" formatted digest that fs-verity signatures sign
 * (struct fsverity_formatted_digest: magic "FSVerity", le16 alg, le16 size,
 * digest).  Writes at most 12 + MERKLE_MAX_DIGEST_SIZE bytes; returns the
 * length or MERKLE_E_BAD_ALG.
 */
int merkle_formatted_digest(unsigned hash_alg, const uint8_t *digest,
			    uint8_t *out);

/*
 * Hash nblocks consecutive data blocks (each of the data block size,
 * 1 << merkle_log_data_blocksize(p) bytes) with the salt of p, writing
 * nblocks digests to out, several blocks at once where the CPU allows.
 */
int merkle_hash_blocks(const struct merkle_params *p, const void *data,
		       size_t nblocks, uint8_t *out);

/*
 * I/O callbacks.  Read or write exactly len bytes at off; return 0 or
 * -errno.  A short read past the end of the data is the caller's bug, not
 * zero padding: merkle_build_tree() only asks for bytes below data_size.
 * Callbacks passed to merkle_build_tree() with threads > 1 are called from
 * several threads at once (pread/pwrite are fine).
 */
typedef int (*merkle_read_fn)(void *ctx, void *buf, size_t len, uint64_t off);
typedef int (*merkle_write_fn)(void *ctx, const void *buf, size_t len,
			       uint64_t off);

/*
 * Build the tree of p->data_size bytes read through read_data, write it
 * (tree_size bytes at tree offsets 0..tree_size, root level first) through
 * write_tree unless that is NULL, and return the root hash.  Streamed:
 * memory is O(levels x block size + threads x 1 MiB), not O(data).
 * threads = 0 means one per online CPU; data of at most 1 MiB is hashed
 * on the calling thread alone.  read_data is asked for 1 MiB chunks (in
 * order on one thread); write_tree gets one block per call, each level in
 * order.
 */
int merkle_build_tree(const struct merkle_params *p,
		      merkle_read_fn read_data, void *read_ctx,
		      merkle_write_fn write_tree, void *write_ctx,
		      unsigned threads,
		      uint8_t root_hash[MERKLE_MAX_DIGEST_SIZE]);

/*
 * dm-verity's superblock: the 512 bytes `veritysetup format` writes at
 * --hash-offset of the hash device unless --no-superblock (cryptsetup's
 * lib/verity/verity.c: struct verity_sb), little endian.  The tree starts
 * at the first hash block boundary after it.  The kernel never reads it:
 * it is veritysetup's record of the parameters, and nothing authenticates
 * it, so a superblock that lies gives a tree whose root hash is not the
 * one the user trusts, and every read fails.
 */
#define MERKLE_DMV_SB_SIZE 512

struct merkle_dmv_sb {
	uint8_t signature[8];		/* "verity\0\0" */
	uint32_t version;		/* le32: 1 */
	uint32_t hash_type;		/* le32: 1 (0 is Chrome OS's) */
	uint8_t uuid[16];
	char algorithm[32];		/* "sha256", NUL-padded */
	uint32_t data_block_size;	/* le32 */
	uint32_t hash_block_size;	/* le32 */
	uint64_t data_blocks;		/* le64 */
	uint16_t salt_size;		/* le16 */
	uint8_t pad1[6];
	uint8_t salt[256];
	uint8_t pad2[168];
} __attribute__((packed));
_Static_assert(sizeof(struct merkle_dmv_sb) == MERKLE_DMV_SB_SIZE,
	       "dm-verity superblock must be 512 bytes");

/*
 * Parse a superblock (len >= MERKLE_DMV_SB_SIZE) with the checks of
 * cryptsetup's VERITY_read_sb() (signature, version 1, hash type 0 or 1,
 * block sizes, a known algorithm, salt size) plus what vublk needs to
 * serve it: an algorithm of this library that OpenSSL gives here, at
 * least one data block and at most MERKLE_MAX_LEVELS levels.  Fills *p
 * (format MERKLE_FORMAT_DMVERITY, or _V0 for hash type 0; data_size =
 * data blocks x block size) and uuid unless NULL.  Returns 0,
 * MERKLE_E_DMV_* or MERKLE_E_ALG_UNAVAILABLE.
 */
int merkle_dmv_sb_parse(const void *buf, size_t len, struct merkle_params *p,
			uint8_t uuid[16]);

/*
 * Where the tree starts on the hash device, in bytes: with a superblock at
 * hash_offset, the first hash block boundary after it; without one,
 * hash_offset rounded down to a hash block (cryptsetup's
 * VERITY_hash_offset_block()).
 */
uint64_t merkle_dmv_tree_offset(uint64_t hash_offset, bool superblock,
				unsigned log_blocksize);

/*
 * A dm-verity image as veritysetup's options describe it: where the hash
 * area is, and with no superblock the parameters themselves.
 */
struct merkle_dmv_config {
	uint64_t hash_offset;		/* --hash-offset, bytes */
	bool no_superblock;		/* --no-superblock: then the rest */
	unsigned hash_alg;		/* --hash */
	unsigned log_blocksize;		/* --hash-block-size */
	unsigned log_data_blocksize;	/* --data-block-size; 0: the same */
	uint64_t data_blocks;		/* --data-blocks; 0: the whole data device */
	unsigned salt_size;		/* --salt */
	uint8_t salt[MERKLE_DMV_MAX_SALT_SIZE];
	bool hash_type0;		/* --format=0 (vublk's --hash-type=0) */
	bool same_device;		/* the hash area is in the data device */
};

/*
 * Open a dm-verity image: read the superblock at cfg->hash_offset through
 * read_hash (unless no_superblock), then check what veritysetup and the
 * kernel check: the data device holds the data blocks, the hash device
 * the whole tree, and on one device the two areas do not overlap.  On
 * success fills *p (format MERKLE_FORMAT_DMVERITY) and *tree_off, where
 * the tree starts on the hash device.  Returns 0, MERKLE_E_*, or a
 * read_hash error.
 */
int merkle_dmv_open(const struct merkle_dmv_config *cfg,
		    merkle_read_fn read_hash, void *read_ctx,
		    uint64_t hash_dev_size, uint64_t data_dev_size,
		    struct merkle_params *p, uint64_t *tree_off);

/*
 * Verification.
 *
 * struct merkle_cache holds hash blocks within a byte budget, LRU; each
 * cached block carries a "verified" mark.  An evicted block loses its mark,
 * as a page does in the kernel (fs/verity/verify.c relies on PG_checked /
 * the per-block bitmap that way).  One cache can serve several trees.
 */
struct merkle_cache;

/*
 * budget_bytes counts hash block bytes (not the small per-block overhead).
 * Blocks in use by a running verification are never evicted, so any budget
 * works, 0 included; the cache exceeds it only while those are in use.
 * Returns NULL when out of memory.
 */
struct merkle_cache *merkle_cache_new(size_t budget_bytes);
void merkle_cache_free(struct merkle_cache *c);

/* Counters of one tree, all monotonic. */
struct merkle_stats {
	/* Reads made through the tree's read_tree callback; an asynchronous
	 * caller (no read_tree) reads the tree itself and counts its reads. */
	uint64_t tree_reads;		/* read_tree calls */
	uint64_t tree_blocks_read;	/* hash blocks those reads brought in */
	uint64_t blocks_read_ahead;	/* of which not asked for (readahead) */
	uint64_t cache_hits;
	uint64_t cache_misses;
	uint64_t blocks_verified;	/* data blocks verified */
	uint64_t failures;		/* verify calls that found corruption */
};

struct merkle_tree;

/*
 * Open a tree for verification: p and root_hash come from a validated
 * descriptor.  read_tree reads tree bytes at tree offsets (0 = first byte
 * of the tree, i.e. of the top level) for a synchronous caller; an
 * asynchronous caller passes NULL and reads what merkle_verify_blocks()
 * says is missing itself (MERKLE_NEED_TREE).
 */
int merkle_tree_open(struct merkle_tree **out, const struct merkle_params *p,
		     const uint8_t *root_hash, struct merkle_cache *cache,
		     merkle_read_fn read_tree, void *read_ctx);
void merkle_tree_close(struct merkle_tree *t);
const struct merkle_geometry *merkle_tree_geometry(const struct merkle_tree *t);
void merkle_tree_stats(const struct merkle_tree *t, struct merkle_stats *out);

/*
 * dm-verity's ignore_zero_blocks (drivers/md/dm-verity-target.c:
 * verity_verify_io() with zero_digest): a data block whose expected hash
 * is the hash of a block of zeroes is not hashed but read as zeroes.
 * Here it passes when it is all zeroes (no hash computed) and otherwise
 * stops verification with MERKLE_ZERO_BLOCK.  The expected hash itself
 * still comes from verified hash blocks.  0 or MERKLE_E_NOMEM.
 */
int merkle_tree_ignore_zero_blocks(struct merkle_tree *t);

/* A byte range of the tree, in tree offsets. */
struct merkle_extent {
	uint64_t off;
	uint32_t len;
};

/* merkle_verify_blocks(): the hash blocks in res->missing must be read. */
#define MERKLE_NEED_TREE 1
/*
 * merkle_verify_blocks() of a tree with merkle_tree_ignore_zero_blocks():
 * data block res->block is expected to be zeroes (its hash is that of a
 * zero block) and is not: the caller returns zeroes for it and resumes at
 * the next block, as dm-verity returns zeroes for such a block.
 */
#define MERKLE_ZERO_BLOCK 2

/* How far a merkle_verify_blocks() call got. */
struct merkle_verify_result {
	/*
	 * The first data block not verified; the blocks before it passed.
	 * After MERKLE_E_CORRUPT the bad block, after MERKLE_NEED_TREE the
	 * block whose walk lacks 'missing'; first_block + nblocks on success.
	 */
	uint64_t block;
	/*
	 * After MERKLE_NEED_TREE: the tree bytes to read (one hash block and
	 * its readahead, at most MERKLE_MAX_EXTENT_SIZE) and give to
	 * merkle_cache_fill() before calling again from 'block'.
	 */
	struct merkle_extent missing;
};

/*
 * Verify nblocks data blocks starting at data block first_block, held in
 * data (nblocks data blocks of 1 << merkle_log_data_blocksize() bytes,
 * which for fs-verity is log_blocksize; the last block of the file must be
 * zero-padded by the caller).  Mirrors the kernel's verify_data_block():
 * walk up from level 0 until a hash block already marked verified (or the
 * root), then down, checking and marking each block.  Data blocks at or
 * past the end of the data (data_size rounded up to blocks) must be all
 * zeroes, as the kernel requires past i_size.
 *
 * Returns 0 when every block passed, MERKLE_E_CORRUPT at the first
 * mismatch, MERKLE_NEED_TREE when a hash block is not cached and the tree
 * has no read_tree (res->missing says what to read), or another error
 * (a read_tree error, no memory).  res->block says where it stopped; an
 * asynchronous caller fills res->missing and resumes there, so no data
 * block is hashed twice.  Nothing is marked verified on a failed path;
 * hash blocks checked for earlier blocks keep their marks.  The stats
 * count the blocks that passed on success and after MERKLE_NEED_TREE (a
 * call failing otherwise counts none).  The data is hashed in batches:
 * the tree walks of up to 64 blocks first, then one hash call over their
 * data, two blocks at a time where the CPU can.
 *
 * ra_blocks is the readahead hint: when a level-0 hash block misses the
 * cache, up to ra_blocks following level-0 blocks are read (or asked for)
 * along with it (the kernel's REQ_RAHEAD path reads ahead up to 1/4 of
 * the bio's pages).  0 = no readahead.  Capped so that a miss and its
 * readahead fit in MERKLE_MAX_EXTENT_SIZE bytes.
 */
int merkle_verify_blocks(struct merkle_tree *t, uint64_t first_block,
			 const void *data, size_t nblocks, unsigned ra_blocks,
			 struct merkle_verify_result *res);

/* One range of data blocks for merkle_verify_many(), e.g. one request. */
struct merkle_verify_req {
	uint64_t first_block;
	const void *data;
	size_t nblocks;
	unsigned ra_blocks;
	/* NULL, or the digests of the range's blocks, from
	 * merkle_tree_copy_hash() into data: compared with the tree's
	 * instead of hashing data again. */
	const uint8_t *digests;
	/* Set by merkle_verify_many(): what merkle_verify_blocks() would
	 * return for this range alone, and where it stopped. */
	int status;
	struct merkle_verify_result res;
};

/*
 * merkle_verify_blocks() of several ranges at once: each range gets the
 * status and result it would get alone, but their blocks are hashed
 * together, up to eight at a time across ranges where the CPU can (SHA-256
 * on the SHA extensions; sixteen with AVX-512), as the kernel's fs-verity
 * hashes two pending blocks of a bio together.  A server that has several
 * requests' data in hand verifies them in one call, so that single-block
 * requests are hashed together; a lone block is hashed alone, nothing
 * waits for a partner.  Returns 0 when every range got its status, or an
 * error of the whole call (no memory).
 */
int merkle_verify_many(struct merkle_tree *t, struct merkle_verify_req *reqs,
		       size_t n);

/*
 * Hash data blocks while copying them, for a caller that reads them in
 * place out of a mapping (of the page cache, or of pmem) rather than
 * having them read into its buffer first: block i is loaded once from
 * src[i], stored to dst[i] and hashed as the tree hashes data blocks, its
 * digest written to digests + i * digest_size.  dst then holds exactly
 * the bytes that were hashed, however src changes meanwhile, and a
 * merkle_verify_req whose .digests are these verifies dst without hashing
 * it again.  The copy rides on the loads the hashing makes anyway: the
 * data crosses the memory bus once, where a read into the buffer and a
 * hash of it take it twice.
 *
 * Only where lib/merkle's own SHA-256 code hashes the tree's data blocks
 * (merkle_tree_can_copy_hash(): SHA-256 on a CPU with the x86 SHA
 * extensions, with AVX-512's lanes where they are faster; not for
 * dm-verity's hash type 0 with a salt): that code allocates nothing,
 * takes no lock and writes nothing but dst and digests, so that a call
 * may be abandoned midway, from a signal handler (lib/pmem's guard, when
 * a load from the mapping takes SIGBUS), and any number may run at once.
 * Returns 0, or -EOPNOTSUPP where it cannot (the caller then reads the
 * data into dst first).
 */
bool merkle_tree_can_copy_hash(const struct merkle_tree *t);
int merkle_tree_copy_hash(const struct merkle_tree *t, uint8_t *const dst[],
			  const uint8_t *const src[], size_t n,
			  uint8_t *digests);

/*
 * For asynchronous callers that read ahead of verification: list,
 * coalesced and in tree order, the ranges of hash blocks that verifying
 * data blocks [first_block, first_block + nblocks) needs and that are not
 * in the cache: every level when all_levels, else level 0 only; level-0
 * ranges widened by ra_blocks as in merkle_verify_blocks().  Returns the
 * number of extents written (at most max), or a negative error.  A return
 * of max may mean the list was cut: the verifier asks for the rest.  Only
 * the hash blocks that the verifier's walk would reach are listed: above
 * a block already marked verified, nothing is.
 */
int merkle_plan_reads(struct merkle_tree *t, uint64_t first_block,
		      size_t nblocks, unsigned ra_blocks, bool all_levels,
		      struct merkle_extent *out, size_t max);

/*
 * Put hash blocks that the caller read (an extent from merkle_plan_reads()
 * or res->missing) into the cache, unverified.  They are verified when
 * used.  off and len must be multiples of the block size within the tree
 * (else -EINVAL).
 */
int merkle_cache_fill(struct merkle_tree *t, uint64_t off, const void *buf,
		      size_t len);

/*
 * Whether the hash block at tree offset off is in the cache now: a caller
 * that verified several ranges at once may find that what one range lacks
 * was read meanwhile for another.
 */
bool merkle_tree_cached(struct merkle_tree *t, uint64_t off);

/*
 * Parsing what users type: salts, hash algorithms and expected digests,
 * in the forms fsverity-utils accepts and prints (digest_parse.c).  Every
 * program that takes them on its command line uses these, so that they
 * all accept exactly the same text.  Errors are MERKLE_E_* codes, for
 * merkle_strerror(); the caller's message names the option and the value.
 */

/*
 * Hex text to bytes: two digits per byte, either case, nothing else (no
 * "0x", no blanks); "" is 0 bytes.  Returns the number of bytes written to
 * bin (at most max), or MERKLE_E_HEX_ODD, MERKLE_E_HEX_TOO_LONG (checked
 * before any byte is written) or MERKLE_E_HEX_CHAR (bin partly written).
 */
int merkle_parse_hex(const char *hex, uint8_t *bin, size_t max);

/*
 * A hash algorithm as fsverity-utils' --hash-alg takes it: the name of
 * one of fs-verity's ("sha256", "sha512", lower case) or the kernel's
 * FS_VERITY_HASH_ALG_* number in decimal ("1", "2").  Returns
 * MERKLE_HASH_* or MERKLE_E_BAD_ALG.  dm-verity's names are
 * merkle_hash_alg_from_name()'s.
 */
int merkle_parse_hash_alg(const char *text);

/*
 * An expected file digest "ALG:HEX", the form `fsverity digest`,
 * `fsverity measure` and `vublk-verity format` print: ALG as
 * merkle_parse_hash_alg() takes it, HEX exactly 2 * merkle_digest_size()
 * hex digits of either case.  On success sets *hash_alg and the digest
 * (its first merkle_digest_size() bytes, the rest zeroed) and returns 0;
 * otherwise returns MERKLE_E_DIGEST_SYNTAX (no ':'), MERKLE_E_BAD_ALG,
 * MERKLE_E_DIGEST_SIZE or MERKLE_E_HEX_CHAR and leaves both untouched.
 * Whether the algorithm is the one of the image is for the caller to
 * check: a digest of another algorithm is a mismatch, not bad syntax.
 */
int merkle_parse_digest(const char *text, unsigned *hash_alg,
			uint8_t digest[MERKLE_MAX_DIGEST_SIZE]);

#endif /* VUBLK_MERKLE_H */
