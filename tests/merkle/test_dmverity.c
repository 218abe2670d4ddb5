// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_dmverity.c - merkle_dmv_sb_parse(), merkle_dmv_tree_offset() and
 * merkle_dmv_open(): a real superblock (the bytes `veritysetup format`
 * wrote) and one built by hand are accepted with the right parameters,
 * and each MERKLE_E_DMV_* code comes from the superblock field or
 * configuration that should produce it, of the kind merkle_error_kind()
 * says, with its own text.  merkle_dmv_open() never reads outside the
 * hash device it is given.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "merkle_test.h"

/*
 * The first 0x68 bytes of what
 *   veritysetup format z zh --uuid=0123abcd-4567-89ab-cdef-0123456789ab \
 *     --salt=000102030405060708090a0b0c0d0e0f
 * wrote on zh for 3 zero blocks of 4096 bytes (cryptsetup 2.6.1); the rest
 * of the 512 bytes are zero.  It printed the root hash below.
 */
static const uint8_t real_sb_head[] = {
	0x76, 0x65, 0x72, 0x69, 0x74, 0x79, 0x00, 0x00,	/* "verity" */
	0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,	/* version, type */
	0x01, 0x23, 0xab, 0xcd, 0x45, 0x67, 0x89, 0xab,	/* uuid */
	0xcd, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab,
	0x73, 0x68, 0x61, 0x32, 0x35, 0x36, 0x00, 0x00,	/* "sha256" */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x10, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00,	/* block sizes */
	0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* data blocks */
	0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* salt size, pad */
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,	/* salt */
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
};
static const char real_root_hex[] =
	"25d3e2b664f309d11c0cc12f5587add9de90632861c0b3b16c17e9ba984509e5";

/* A hash device in memory; reads outside it are a test failure. */
struct mem_dev {
	const uint8_t *bytes;
	uint64_t size;
	int fail_with;		/* non-zero: every read returns it */
	unsigned reads;
};

static int mem_read(void *ctx, void *buf, size_t len, uint64_t off)
{
	struct mem_dev *d = ctx;

	d->reads++;
	if (d->fail_with)
		return d->fail_with;
	CHECK(off <= d->size && len <= d->size - off);
	memcpy(buf, d->bytes + off, len);
	return 0;
}

static int zero_read(void *ctx, void *buf, size_t len, uint64_t off)
{
	(void)ctx;
	(void)off;
	memset(buf, 0, len);
	return 0;
}

/* A valid superblock: sha256, 4096-byte blocks, 1000 data blocks. */
static void good_sb(struct merkle_dmv_sb *sb)
{
	memset(sb, 0, sizeof(*sb));
	memcpy(sb->signature, "verity", 6);
	sb->version = htole32(1);
	sb->hash_type = htole32(1);
	memset(sb->uuid, 0x5a, sizeof(sb->uuid));
	strcpy(sb->algorithm, "sha256");
	sb->data_block_size = htole32(4096);
	sb->hash_block_size = htole32(4096);
	sb->data_blocks = htole64(1000);
	sb->salt_size = htole16(3);
	memcpy(sb->salt, "\x01\x02\x03", 3);
}

static int parse(const struct merkle_dmv_sb *sb, struct merkle_params *p)
{
	return merkle_dmv_sb_parse(sb, sizeof(*sb), p, NULL);
}

/* The error is a superblock's and has a text of its own. */
static void check_named(int err, enum merkle_error_kind kind)
{
	CHECK(err >= MERKLE_E_DMV_MAGIC && err <= MERKLE_E_DMV_OVERLAP);
	CHECK(strcmp(merkle_strerror(err), "unknown error") != 0);
	CHECK(merkle_error_kind(err) == kind);
}

static void test_real_superblock(void)
{
	uint8_t bytes[MERKLE_DMV_SB_SIZE] = { 0 };
	uint8_t root[MERKLE_MAX_DIGEST_SIZE], want[32], uuid[16];
	struct merkle_params p;

	memcpy(bytes, real_sb_head, sizeof(real_sb_head));
	CHECK_RET(merkle_dmv_sb_parse(bytes, sizeof(bytes), &p, uuid), 0);
	CHECK(p.format == MERKLE_FORMAT_DMVERITY);
	CHECK(p.hash_alg == MERKLE_HASH_SHA256);
	CHECK(p.log_blocksize == 12);
	CHECK(p.data_size == 3 * 4096);
	CHECK(p.salt_size == 16);
	for (unsigned i = 0; i < 16; i++)
		CHECK(p.salt[i] == i);
	CHECK(memcmp(uuid, real_sb_head + 16, 16) == 0);
	/* The parameters give the tree veritysetup made: its root hash. */
	CHECK_RET(merkle_build_tree(&p, zero_read, NULL, NULL, NULL, 1, root),
		  0);
	CHECK_RET(merkle_parse_hex(real_root_hex, want, sizeof(want)), 32);
	CHECK(memcmp(root, want, 32) == 0);
	/* A longer buffer is fine, a shorter one is no superblock. */
	CHECK_RET(merkle_dmv_sb_parse(bytes, sizeof(bytes) - 1, &p, NULL),
		  MERKLE_E_DMV_MAGIC);
}

/*
 * The algorithm as veritysetup wrote it: the name given to --hash,
 * lower-cased, which is any of OpenSSL's names for it.
 */
static void test_sb_alg_names(struct merkle_dmv_sb *sb)
{
	static const struct {
		const char *name;
		unsigned alg;
	} names[] = {
		{ "sha2-256", MERKLE_HASH_SHA256 },
		{ "sha-1", MERKLE_HASH_SHA1 },
		{ "ripemd160", MERKLE_HASH_RMD160 },
		{ "1.3.36.3.2.1", MERKLE_HASH_RMD160 },
		{ "blake2b512", MERKLE_HASH_BLAKE2B_512 },
		{ "sha3-224", MERKLE_HASH_SHA3_224 },
		{ "sha-512/256", MERKLE_HASH_SHA512_256 },
		{ "keccak-kmac128", MERKLE_HASH_KECCAK_KMAC128 },
		{ "whirlpool", MERKLE_HASH_WHIRLPOOL },
		{ "md4", MERKLE_HASH_MD4 },
	};
	struct merkle_params p;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		memset(sb->algorithm, 0, sizeof(sb->algorithm));
		strcpy(sb->algorithm, names[i].name);
		CHECK_RET(parse(sb, &p), 0);
		CHECK(p.hash_alg == names[i].alg);
	}
	/* What the user types, in any case; fs-verity's names stay exact. */
	CHECK_RET(merkle_dmv_hash_alg_from_name("SHA256"), MERKLE_HASH_SHA256);
	CHECK_RET(merkle_dmv_hash_alg_from_name("WHIRLPOOL"),
		  MERKLE_HASH_WHIRLPOOL);
	CHECK_RET(merkle_hash_alg_from_name("SHA256"), MERKLE_E_BAD_ALG);
	CHECK_RET(merkle_parse_hash_alg("SHA2-256"), MERKLE_E_BAD_ALG);
}

static void test_hand_built(void)
{
	struct merkle_dmv_sb sb;
	struct merkle_params p;
	uint8_t uuid[16];

	good_sb(&sb);
	CHECK_RET(merkle_dmv_sb_parse(&sb, sizeof(sb), &p, uuid), 0);
	CHECK(p.hash_alg == MERKLE_HASH_SHA256 && p.log_blocksize == 12);
	CHECK(p.data_size == 1000 * 4096ull && p.salt_size == 3);
	CHECK(uuid[0] == 0x5a && uuid[15] == 0x5a);
	/* Every field at its limits. */
	strcpy(sb.algorithm, "sha512");
	sb.data_block_size = sb.hash_block_size = htole32(512);
	sb.salt_size = htole16(256);
	memset(sb.salt, 0xee, sizeof(sb.salt));
	sb.data_blocks = htole64(1);
	CHECK_RET(parse(&sb, &p), 0);
	CHECK(p.hash_alg == MERKLE_HASH_SHA512 && p.log_blocksize == 9);
	CHECK(p.salt_size == 256 && p.salt[255] == 0xee && p.data_size == 512);
	sb.data_block_size = sb.hash_block_size = htole32(512 * 1024);
	CHECK_RET(parse(&sb, &p), 0);
	CHECK(p.log_blocksize == 19 && p.log_data_blocksize == 19);
	/* 8 levels of 8 hashes per 512-byte block: 8^8 blocks, not one more. */
	sb.data_block_size = sb.hash_block_size = htole32(512);
	sb.data_blocks = htole64(1ull << 24);
	CHECK_RET(parse(&sb, &p), 0);
	test_sb_alg_names(&sb);
}

/*
 * good_sb() with FIELD set to each of the values (converted by TO_LE):
 * parsing gives ERR every time.
 */
#define CHECK_FIELD(FIELD, TO_LE, ERR, ...)				\
	do {								\
		static const uint64_t values_[] = { __VA_ARGS__ };	\
		for (size_t i_ = 0; i_ < sizeof(values_) /		\
					 sizeof(values_[0]); i_++) {	\
			good_sb(&sb);					\
			sb.FIELD = TO_LE(values_[i_]);			\
			CHECK_RET(parse(&sb, &p), ERR);			\
		}							\
	} while (0)

/* Each field made bad: the error that names it. */
static void test_superblock_errors(void)
{
	/* The kernel's name of Whirlpool, OpenSSL's digest of nothing,
	 * GOST's (which veritysetup's OpenSSL backend refuses too). */
	static const char *const bad_algs[] = { "", "wp512", "sha256 ",
						"null", "streebog256",
						"stribog512" };
	struct merkle_dmv_sb sb;
	struct merkle_params p;
	size_t i;

	good_sb(&sb);
	sb.signature[0] = 'V';
	CHECK_RET(parse(&sb, &p), MERKLE_E_DMV_MAGIC);
	good_sb(&sb);
	sb.signature[7] = 1;	/* "verity\0\1" */
	CHECK_RET(parse(&sb, &p), MERKLE_E_DMV_MAGIC);
	check_named(MERKLE_E_DMV_MAGIC, MERKLE_ERR_DAMAGE);

	CHECK_FIELD(version, htole32, MERKLE_E_DMV_VERSION, 0, 2, 0xffffffff);
	check_named(MERKLE_E_DMV_VERSION, MERKLE_ERR_DAMAGE);

	/* 0 is Chrome OS's, 1 the usual; cryptsetup knows no other. */
	CHECK_FIELD(hash_type, htole32, MERKLE_E_DMV_HASH_TYPE, 2, 7,
		    0xffffffff);
	check_named(MERKLE_E_DMV_HASH_TYPE, MERKLE_ERR_DAMAGE);
	good_sb(&sb);
	sb.hash_type = htole32(0);
	CHECK_RET(parse(&sb, &p), 0);
	CHECK(p.format == MERKLE_FORMAT_DMVERITY_V0);

	for (i = 0; i < sizeof(bad_algs) / sizeof(bad_algs[0]); i++) {
		good_sb(&sb);
		strcpy(sb.algorithm, bad_algs[i]);
		CHECK_RET(parse(&sb, &p), MERKLE_E_DMV_BAD_ALG);
	}
	good_sb(&sb);
	memset(sb.algorithm, 'a', sizeof(sb.algorithm));	/* no NUL */
	CHECK_RET(parse(&sb, &p), MERKLE_E_DMV_BAD_ALG);
	check_named(MERKLE_E_DMV_BAD_ALG, MERKLE_ERR_ARGUMENT);

#define BAD_SIZES 0, 3, 256, 511, 4097, 1u << 20, 1u << 30, 0xffffffff
	CHECK_FIELD(data_block_size, htole32, MERKLE_E_DMV_BLOCKSIZE,
		    BAD_SIZES);
	CHECK_FIELD(hash_block_size, htole32, MERKLE_E_DMV_BLOCKSIZE,
		    BAD_SIZES);
	check_named(MERKLE_E_DMV_BLOCKSIZE, MERKLE_ERR_DAMAGE);

	/* Data and hash blocks of different sizes are served. */
	good_sb(&sb);
	sb.hash_block_size = htole32(1024);
	CHECK_RET(parse(&sb, &p), 0);
	CHECK(p.log_blocksize == 10 && p.log_data_blocksize == 12);

	CHECK_FIELD(salt_size, htole16, MERKLE_E_DMV_SALT_SIZE, 257, 300,
		    0xffff);
	check_named(MERKLE_E_DMV_SALT_SIZE, MERKLE_ERR_DAMAGE);

	/* None; 2^64 bytes or more (4096-byte blocks). */
	CHECK_FIELD(data_blocks, htole64, MERKLE_E_DMV_DATA_BLOCKS, 0,
		    UINT64_MAX, 1ull << 52);
	/* 9 levels of 8 hashes per 512-byte block. */
	good_sb(&sb);
	sb.data_block_size = sb.hash_block_size = htole32(512);
	strcpy(sb.algorithm, "sha512");
	sb.data_blocks = htole64((1ull << 24) + 1);
	CHECK_RET(parse(&sb, &p), MERKLE_E_DMV_DATA_BLOCKS);
	check_named(MERKLE_E_DMV_DATA_BLOCKS, MERKLE_ERR_DAMAGE);
}

static void test_tree_offset(void)
{
	/* With a superblock: the first block boundary after its 512 bytes. */
	CHECK(merkle_dmv_tree_offset(0, true, 12) == 4096);
	CHECK(merkle_dmv_tree_offset(0, true, 9) == 512);
	CHECK(merkle_dmv_tree_offset(4096, true, 12) == 8192);
	CHECK(merkle_dmv_tree_offset(3584, true, 12) == 4096);
	CHECK(merkle_dmv_tree_offset(1024, true, 10) == 2048);
	/* Without: the offset rounded down to a block. */
	CHECK(merkle_dmv_tree_offset(0, false, 12) == 0);
	CHECK(merkle_dmv_tree_offset(4608, false, 12) == 4096);
	CHECK(merkle_dmv_tree_offset(4608, false, 9) == 4608);
}

/* A hash device: the superblock at sb_off, then zeroes up to size. */
static uint8_t hash_dev[8 << 20];

static struct mem_dev make_dev(const struct merkle_dmv_sb *sb, uint64_t sb_off,
			       uint64_t size)
{
	struct mem_dev d = { .bytes = hash_dev, .size = size };

	CHECK(size <= sizeof(hash_dev));
	memset(hash_dev, 0, sizeof(hash_dev));
	if (sb)
		memcpy(hash_dev + sb_off, sb, sizeof(*sb));
	return d;
}

static int open_dev(const struct merkle_dmv_config *cfg, struct mem_dev *d,
		    uint64_t data_size, struct merkle_params *p,
		    uint64_t *tree_off)
{
	return merkle_dmv_open(cfg, mem_read, d, d->size, data_size, p,
			       tree_off);
}

static void test_open_superblock(void)
{
	struct merkle_dmv_config cfg = { 0 };
	struct merkle_params p;
	struct merkle_geometry g;
	struct merkle_dmv_sb sb;
	struct mem_dev d;
	uint64_t off = 7, tree_size, data = 1000 * 4096ull;

	good_sb(&sb);
	CHECK_RET(parse(&sb, &p), 0);
	CHECK_RET(merkle_geometry_init(&g, &p), 0);
	tree_size = g.tree_size;	/* 8 level-0 blocks and the top */
	CHECK(tree_size == 9 * 4096);

	d = make_dev(&sb, 0, 4096 + tree_size);
	CHECK_RET(open_dev(&cfg, &d, data, &p, &off), 0);
	CHECK(off == 4096 && p.data_size == data && p.salt_size == 3);
	CHECK(p.format == MERKLE_FORMAT_DMVERITY && d.reads == 1);

	/* At an offset, the hash area after the data on one device. */
	cfg.hash_offset = 8192;
	d = make_dev(&sb, 8192, 8192 + 4096 + tree_size);
	CHECK_RET(open_dev(&cfg, &d, data, &p, &off), 0);
	CHECK(off == 12288);
	cfg.hash_offset = data;
	cfg.same_device = true;
	d = make_dev(&sb, data, data + 4096 + tree_size);
	CHECK(d.size <= sizeof(hash_dev));
	CHECK_RET(open_dev(&cfg, &d, d.size, &p, &off), 0);
	CHECK(off == data + 4096);

	/* MERKLE_E_DMV_OVERLAP: the superblock inside the data blocks. */
	cfg.hash_offset = data - 512;
	d = make_dev(&sb, data - 512, data + 4096 + tree_size);
	CHECK_RET(open_dev(&cfg, &d, d.size, &p, &off),
		  MERKLE_E_DMV_OVERLAP);
	check_named(MERKLE_E_DMV_OVERLAP, MERKLE_ERR_ARGUMENT);
	cfg.same_device = false;

	/* MERKLE_E_DMV_HASH_OFFSET: not a multiple of 512; nothing read. */
	cfg.hash_offset = 100;
	d = make_dev(&sb, 0, 4096 + tree_size);
	CHECK_RET(open_dev(&cfg, &d, data, &p, &off), MERKLE_E_DMV_HASH_OFFSET);
	CHECK(d.reads == 0);
	check_named(MERKLE_E_DMV_HASH_OFFSET, MERKLE_ERR_ARGUMENT);

	/* MERKLE_E_DMV_HASH_SHORT: no room for the superblock, or the
	 * tree; the offset past the end; nothing read past the end. */
	cfg.hash_offset = 0;
	d = make_dev(&sb, 0, 511);
	CHECK_RET(open_dev(&cfg, &d, data, &p, &off), MERKLE_E_DMV_HASH_SHORT);
	CHECK(d.reads == 0);
	d = make_dev(&sb, 0, 4096 + tree_size - 1);
	CHECK_RET(open_dev(&cfg, &d, data, &p, &off), MERKLE_E_DMV_HASH_SHORT);
	d = make_dev(&sb, 0, 4096 + tree_size);
	cfg.hash_offset = 1 << 20;
	CHECK_RET(open_dev(&cfg, &d, data, &p, &off), MERKLE_E_DMV_HASH_SHORT);
	cfg.hash_offset = UINT64_MAX / 512 * 512;
	CHECK_RET(open_dev(&cfg, &d, data, &p, &off), MERKLE_E_DMV_HASH_SHORT);
	check_named(MERKLE_E_DMV_HASH_SHORT, MERKLE_ERR_DAMAGE);
	cfg.hash_offset = 0;

	/* MERKLE_E_DMV_DATA_SHORT: the data device one byte short. */
	CHECK_RET(open_dev(&cfg, &d, data - 1, &p, &off),
		  MERKLE_E_DMV_DATA_SHORT);
	check_named(MERKLE_E_DMV_DATA_SHORT, MERKLE_ERR_DAMAGE);

	/* The superblock's own errors come through; so do read errors;
	 * *tree_off is set only on success. */
	off = 7;
	sb.version = htole32(9);
	d = make_dev(&sb, 0, 4096 + tree_size);
	CHECK_RET(open_dev(&cfg, &d, data, &p, &off), MERKLE_E_DMV_VERSION);
	d = make_dev(NULL, 0, 4096 + tree_size);
	CHECK_RET(open_dev(&cfg, &d, data, &p, &off), MERKLE_E_DMV_MAGIC);
	d.fail_with = -EIO;
	CHECK_RET(open_dev(&cfg, &d, data, &p, &off), -EIO);
	CHECK(off == 7);
}

static void test_open_no_superblock(void)
{
	static const struct {
		unsigned alg, log_blocksize, salt_size;
		int err;
	} bad[] = {
		{ 99, 10, 0, MERKLE_E_BAD_ALG },
		{ MERKLE_HASH_SHA256, 8, 0, MERKLE_E_BAD_BLOCKSIZE },
		{ MERKLE_HASH_SHA256, 20, 0, MERKLE_E_BAD_BLOCKSIZE },
		{ MERKLE_HASH_SHA256, 10, 257, MERKLE_E_BAD_SALT_SIZE },
		{ MERKLE_HASH_SHA256, 10, 65535, MERKLE_E_BAD_SALT_SIZE },
	};
	struct merkle_dmv_config cfg = {
		.no_superblock = true,
		.hash_alg = MERKLE_HASH_SHA512,
		.log_blocksize = 10,
		.salt_size = 256,
	};
	struct merkle_params p;
	struct mem_dev d;
	uint64_t off;

	memset(cfg.salt, 0x42, sizeof(cfg.salt));
	/* 100 blocks of 1 KiB, 16 hashes per block: 7 + 1 tree blocks. */
	d = make_dev(NULL, 0, 8 * 1024);
	CHECK_RET(open_dev(&cfg, &d, 100 * 1024 + 1000, &p, &off), 0);
	CHECK(off == 0 && d.reads == 0);
	CHECK(p.data_size == 100 * 1024 && p.salt_size == 256);
	CHECK(p.hash_alg == MERKLE_HASH_SHA512 && p.log_blocksize == 10);
	CHECK(p.format == MERKLE_FORMAT_DMVERITY);
	cfg.hash_type0 = true;
	CHECK_RET(open_dev(&cfg, &d, 100 * 1024, &p, &off), 0);
	CHECK(p.format == MERKLE_FORMAT_DMVERITY_V0);
	cfg.hash_type0 = false;
	d.size--;
	CHECK_RET(open_dev(&cfg, &d, 100 * 1024, &p, &off),
		  MERKLE_E_DMV_HASH_SHORT);
	d.size++;
	/* --data-blocks: fewer than the device holds, not more. */
	cfg.data_blocks = 50;
	CHECK_RET(open_dev(&cfg, &d, 100 * 1024, &p, &off), 0);
	CHECK(p.data_size == 50 * 1024);
	cfg.data_blocks = 101;
	CHECK_RET(open_dev(&cfg, &d, 100 * 1024, &p, &off),
		  MERKLE_E_DMV_DATA_SHORT);
	cfg.data_blocks = 0;
	/* No whole block on the data device. */
	CHECK_RET(open_dev(&cfg, &d, 1023, &p, &off), MERKLE_E_DMV_DATA_BLOCKS);
	/* The tree at an offset that is not a block: rounded down. */
	cfg.hash_offset = 1536;
	d = make_dev(NULL, 0, 1024 + 8 * 1024);
	CHECK_RET(open_dev(&cfg, &d, 100 * 1024, &p, &off), 0);
	CHECK(off == 1024);
	cfg.hash_offset = 0;
	/* Bad parameters are the library's argument errors; a salt size
	 * far over the salt buffer is refused before any copy (ASan). */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cfg.hash_alg = bad[i].alg;
		cfg.log_blocksize = bad[i].log_blocksize;
		cfg.salt_size = bad[i].salt_size;
		CHECK_RET(open_dev(&cfg, &d, 100 * 1024, &p, &off), bad[i].err);
	}
	cfg.salt_size = 0;
	/* Too many levels for 512-byte sha512 blocks. */
	cfg.hash_alg = MERKLE_HASH_SHA512;
	cfg.log_blocksize = 9;
	cfg.data_blocks = (1ull << 24) + 1;
	CHECK_RET(merkle_dmv_open(&cfg, mem_read, &d, UINT64_MAX, UINT64_MAX,
				  &p, &off),
		  MERKLE_E_DMV_DATA_BLOCKS);
	cfg.data_blocks = UINT64_MAX;
	CHECK_RET(merkle_dmv_open(&cfg, mem_read, &d, UINT64_MAX, UINT64_MAX,
				  &p, &off),
		  MERKLE_E_DMV_DATA_BLOCKS);
	/* One data block: no tree at all, any hash device will do. */
	cfg.data_blocks = 1;
	d = make_dev(NULL, 0, 0);
	CHECK_RET(open_dev(&cfg, &d, 512, &p, &off), 0);
	CHECK(off == 0 && p.data_size == 512);
}

/*
 * OPENSSL_MODULES pointing nowhere (merkle-dmverity-no-legacy): MD4 and
 * Whirlpool are named but cannot be hashed with, and say so; the default
 * provider's algorithms are unaffected.
 */
static int test_no_legacy(void)
{
	struct merkle_params p = { .format = MERKLE_FORMAT_DMVERITY,
				   .hash_alg = MERKLE_HASH_WHIRLPOOL,
				   .log_blocksize = 12, .data_size = 8192 };
	struct merkle_geometry g;
	struct merkle_dmv_sb sb;

	CHECK_RET(merkle_geometry_init(&g, &p), MERKLE_E_ALG_UNAVAILABLE);
	CHECK(merkle_error_kind(MERKLE_E_ALG_UNAVAILABLE) ==
	      MERKLE_ERR_ARGUMENT);
	good_sb(&sb);
	strcpy(sb.algorithm, "md4");
	CHECK_RET(parse(&sb, &p), MERKLE_E_ALG_UNAVAILABLE);
	strcpy(sb.algorithm, "sha-256");
	CHECK_RET(parse(&sb, &p), 0);
	p.hash_alg = MERKLE_HASH_KECCAK_KMAC256;
	CHECK_RET(merkle_geometry_init(&g, &p), 0);
	printf("without OpenSSL's legacy provider: all checks passed\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "no-legacy") == 0)
		return test_no_legacy();
	test_real_superblock();
	test_hand_built();
	test_superblock_errors();
	test_tree_offset();
	test_open_superblock();
	test_open_no_superblock();
	printf("dm-verity superblock and open: all checks passed\n");
	return 0;
}
