// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_descriptor - descriptor parsing (the checks of the kernel's
 * fs/verity/open.c), the file digest's sig_size rule, the formatted
 * digest, geometry limits and error texts.  The descriptor and digest bytes
 * themselves are checked against fsverity-utils by oracle_test.sh.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "merkle_test.h"

static void sample_params(struct merkle_params *p)
{
	memset(p, 0, sizeof(*p));
	p->hash_alg = MERKLE_HASH_SHA512;
	p->log_blocksize = 12;
	p->salt_size = 5;
	memcpy(p->salt, "\x01\x02\x03\x04\x05", 5);
	p->data_size = 123456789;
}

static void sample_descriptor(uint8_t *buf, size_t len)
{
	struct merkle_params p;
	uint8_t root[MERKLE_MAX_DIGEST_SIZE];

	sample_params(&p);
	for (unsigned i = 0; i < sizeof(root); i++)
		root[i] = (uint8_t)(i + 1);
	memset(buf, 0, len);
	merkle_descriptor_init((struct merkle_descriptor *)buf, &p, root);
}

static void test_round_trip(void)
{
	uint8_t buf[MERKLE_DESCRIPTOR_SIZE + 100], root[MERKLE_MAX_DIGEST_SIZE];
	struct merkle_params want, got;
	uint32_t sig_size = 99;

	sample_params(&want);
	sample_descriptor(buf, sizeof(buf));
	CHECK_RET(merkle_descriptor_parse(buf, MERKLE_DESCRIPTOR_SIZE, &got,
					  root, &sig_size),
		  0);
	CHECK(sig_size == 0);
	CHECK(memcmp(&want, &got, sizeof(want)) == 0);
	for (unsigned i = 0; i < 64; i++)
		CHECK(root[i] == i + 1);

	/* A signature may follow; a longer buffer is fine, as in the kernel. */
	((struct merkle_descriptor *)buf)->sig_size = htole32(100);
	CHECK_RET(merkle_descriptor_parse(buf, sizeof(buf), &got, root,
					  &sig_size),
		  0);
	CHECK(sig_size == 100);
}

/* Parse buf after corrupt() changed it; expect err. */
static void expect_parse_error(void (*corrupt)(struct merkle_descriptor *),
			       size_t len, int err)
{
	static uint8_t buf[MERKLE_MAX_DESCRIPTOR_SIZE + 1];
	uint8_t root[MERKLE_MAX_DIGEST_SIZE];
	struct merkle_params p;
	uint32_t sig_size;

	sample_descriptor(buf, sizeof(buf));
	if (corrupt)
		corrupt((struct merkle_descriptor *)buf);
	CHECK_RET(merkle_descriptor_parse(buf, len, &p, root, &sig_size), err);
}

static void set_version_2(struct merkle_descriptor *d) { d->version = 2; }
static void set_alg_3(struct merkle_descriptor *d) { d->hash_algorithm = 3; }
static void set_alg_0(struct merkle_descriptor *d) { d->hash_algorithm = 0; }
static void set_log_bs_9(struct merkle_descriptor *d) { d->log_blocksize = 9; }
static void set_log_bs_17(struct merkle_descriptor *d) { d->log_blocksize = 17; }
static void set_salt_33(struct merkle_descriptor *d) { d->salt_size = 33; }
static void set_reserved(struct merkle_descriptor *d) { d->reserved[143] = 1; }
static void set_sig_1(struct merkle_descriptor *d) { d->sig_size = htole32(1); }

/* 2^63 bytes in 1 KiB blocks of SHA-512 needs 14 levels. */
static void set_huge(struct merkle_descriptor *d)
{
	d->log_blocksize = 10;
	d->data_size = htole64(1ull << 63);
}

static void test_parse_errors(void)
{
	expect_parse_error(NULL, MERKLE_DESCRIPTOR_SIZE - 1,
			   MERKLE_E_DESC_TOO_SHORT);
	expect_parse_error(NULL, 0, MERKLE_E_DESC_TOO_SHORT);
	expect_parse_error(NULL, MERKLE_MAX_DESCRIPTOR_SIZE + 1,
			   MERKLE_E_DESC_TOO_LONG);
	expect_parse_error(NULL, MERKLE_MAX_DESCRIPTOR_SIZE, 0);
	expect_parse_error(set_version_2, MERKLE_DESCRIPTOR_SIZE,
			   MERKLE_E_BAD_VERSION);
	expect_parse_error(set_alg_3, MERKLE_DESCRIPTOR_SIZE,
			   MERKLE_E_DESC_BAD_ALG);
	expect_parse_error(set_alg_0, MERKLE_DESCRIPTOR_SIZE,
			   MERKLE_E_DESC_BAD_ALG);
	expect_parse_error(set_log_bs_9, MERKLE_DESCRIPTOR_SIZE,
			   MERKLE_E_DESC_BAD_BLOCKSIZE);
	expect_parse_error(set_log_bs_17, MERKLE_DESCRIPTOR_SIZE,
			   MERKLE_E_DESC_BAD_BLOCKSIZE);
	expect_parse_error(set_salt_33, MERKLE_DESCRIPTOR_SIZE,
			   MERKLE_E_DESC_BAD_SALT_SIZE);
	expect_parse_error(set_reserved, MERKLE_DESCRIPTOR_SIZE,
			   MERKLE_E_RESERVED_NONZERO);
	expect_parse_error(set_sig_1, MERKLE_DESCRIPTOR_SIZE, MERKLE_E_SIG_SIZE);
	expect_parse_error(set_sig_1, MERKLE_DESCRIPTOR_SIZE + 1, 0);
	expect_parse_error(set_huge, MERKLE_DESCRIPTOR_SIZE,
			   MERKLE_E_DESC_TOO_MANY_LEVELS);
}

static void test_digest_ignores_sig_size(void)
{
	uint8_t buf[MERKLE_DESCRIPTOR_SIZE];
	uint8_t a[MERKLE_MAX_DIGEST_SIZE], b[MERKLE_MAX_DIGEST_SIZE];
	struct merkle_descriptor *d = (struct merkle_descriptor *)buf;

	sample_descriptor(buf, sizeof(buf));
	CHECK_RET(merkle_descriptor_digest(d, a), 0);
	d->sig_size = htole32(77);
	CHECK_RET(merkle_descriptor_digest(d, b), 0);
	CHECK(memcmp(a, b, 64) == 0);
	CHECK(le32toh(d->sig_size) == 77);
	d->data_size ^= 1;
	CHECK_RET(merkle_descriptor_digest(d, b), 0);
	CHECK(memcmp(a, b, 64) != 0);
	d->hash_algorithm = 99;
	CHECK_RET(merkle_descriptor_digest(d, b), MERKLE_E_BAD_ALG);
	/* dm-verity's algorithms are no fs-verity descriptor's. */
	d->hash_algorithm = MERKLE_HASH_BLAKE2B_512;
	CHECK_RET(merkle_descriptor_digest(d, b), MERKLE_E_BAD_ALG);
}

static void test_formatted_digest(void)
{
	uint8_t digest[MERKLE_MAX_DIGEST_SIZE], out[12 + MERKLE_MAX_DIGEST_SIZE];
	static const uint8_t header[12] = { 'F', 'S', 'V', 'e', 'r', 'i', 't',
					    'y', 1, 0, 32, 0 };

	memset(digest, 0xab, sizeof(digest));
	CHECK_RET(merkle_formatted_digest(MERKLE_HASH_SHA256, digest, out),
		  12 + 32);
	CHECK(memcmp(out, header, 12) == 0);
	CHECK(memcmp(out + 12, digest, 32) == 0);
	CHECK_RET(merkle_formatted_digest(MERKLE_HASH_SHA512, digest, out),
		  12 + 64);
	CHECK(out[8] == 2 && out[9] == 0 && out[10] == 64 && out[11] == 0);
	CHECK_RET(merkle_formatted_digest(7, digest, out), MERKLE_E_BAD_ALG);
}

static void test_algs(void)
{
	CHECK_RET(merkle_hash_alg_from_name("sha256"), MERKLE_HASH_SHA256);
	CHECK_RET(merkle_hash_alg_from_name("sha512"), MERKLE_HASH_SHA512);
	CHECK_RET(merkle_hash_alg_from_name("wp512"), MERKLE_E_BAD_ALG);
	CHECK(strcmp(merkle_hash_alg_name(MERKLE_HASH_SHA512), "sha512") == 0);
	CHECK(merkle_hash_alg_name(0) == NULL);
	CHECK(merkle_hash_alg_name(MERKLE_HASH_WHIRLPOOL + 1) == NULL);
	CHECK(merkle_digest_size(MERKLE_HASH_SHA256) == 32);
	CHECK(merkle_digest_size(MERKLE_HASH_SHA512) == 64);
	CHECK(merkle_digest_size(MERKLE_HASH_WHIRLPOOL + 1) == 0);
	/* dm-verity's: named, but not fs-verity's, in any form. */
	CHECK_RET(merkle_hash_alg_from_name("sha1"), MERKLE_HASH_SHA1);
	CHECK(merkle_digest_size(MERKLE_HASH_SHA384) == 48);
	CHECK(merkle_hash_alg_fsverity(MERKLE_HASH_SHA256) &&
	      merkle_hash_alg_fsverity(MERKLE_HASH_SHA512) &&
	      !merkle_hash_alg_fsverity(MERKLE_HASH_SHA1) &&
	      !merkle_hash_alg_fsverity(MERKLE_HASH_SHA384));
	CHECK_RET(merkle_parse_hash_alg("3"), MERKLE_E_BAD_ALG);
	CHECK_RET(merkle_parse_hash_alg("sha1"), MERKLE_E_BAD_ALG);
	CHECK_RET(merkle_parse_hash_alg("md5"), MERKLE_E_BAD_ALG);
	{
		struct merkle_params p = { .hash_alg = MERKLE_HASH_SHA1,
					   .log_blocksize = 12,
					   .data_size = 8192 };
		struct merkle_geometry g;

		CHECK_RET(merkle_geometry_init(&g, &p), MERKLE_E_BAD_ALG);
		p.format = MERKLE_FORMAT_DMVERITY;
		CHECK_RET(merkle_geometry_init(&g, &p), 0);
		/* 4096 / 20 = 204 -> 128 hashes of 32 bytes per block. */
		CHECK(g.hashes_per_block == 128 && g.hash_stride == 32);
		/* Hash type 0 packs the same 128 in 20 bytes each. */
		p.format = MERKLE_FORMAT_DMVERITY_V0;
		CHECK_RET(merkle_geometry_init(&g, &p), 0);
		CHECK(g.hashes_per_block == 128 && g.hash_stride == 20);
	}
}

/* Shapes that can be counted by hand. */
static void test_geometry(void)
{
	struct merkle_params p;
	struct merkle_geometry g;

	memset(&p, 0, sizeof(p));
	p.hash_alg = MERKLE_HASH_SHA256;
	p.log_blocksize = 12;
	p.data_size = 4096;
	CHECK_RET(merkle_geometry_init(&g, &p), 0);
	CHECK(g.num_levels == 0 && g.tree_size == 0 && g.data_blocks == 1);

	/* 128 * 128 + 1 blocks: levels of 129, 2 and 1 blocks. */
	p.data_size = (128 * 128 + 1) * 4096ull - 4095;
	CHECK_RET(merkle_geometry_init(&g, &p), 0);
	CHECK(g.hashes_per_block == 128 && g.log_arity == 7);
	CHECK(g.num_levels == 3 && g.data_blocks == 128 * 128 + 1);
	CHECK(g.level_blocks[0] == 129 && g.level_blocks[1] == 2 &&
	      g.level_blocks[2] == 1);
	CHECK(g.level_start[2] == 0 && g.level_start[1] == 1 &&
	      g.level_start[0] == 3);
	CHECK(g.tree_size == 132 * 4096);

	p.salt_size = 33;
	CHECK_RET(merkle_geometry_init(&g, &p), MERKLE_E_BAD_SALT_SIZE);
}

int main(void)
{
	test_round_trip();
	test_parse_errors();
	test_digest_ignores_sig_size();
	test_formatted_digest();
	test_algs();
	test_geometry();
	printf("test_descriptor: all checks passed\n");
	return 0;
}
