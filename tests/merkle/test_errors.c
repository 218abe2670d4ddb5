// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_errors.c - merkle_error_kind(): each kind of failure, produced by
 * the call that really produces it, is classed as that kind; and every
 * code has its own text.
 *
 * Callers (the daemon, vublk-verity) word their message by the kind: "the
 * image is damaged" for a descriptor the library refused, "bad value" for
 * a digest the user typed, "cannot read" for an I/O error, "out of memory"
 * for no memory.  A code in the wrong kind prints the wrong advice.
 */
#include <errno.h>
#include <string.h>

#include "merkle_test.h"

/* A damaged image: a descriptor with an unknown algorithm and one whose
 * tree is corrupt.  A parameter from the image is damage, not argument. */
static void test_damage(void)
{
	struct merkle_params p;
	struct merkle_descriptor d;
	uint8_t root[MERKLE_MAX_DIGEST_SIZE] = { 0 };
	uint32_t sig;
	int err;

	memset(&p, 0, sizeof(p));
	p.hash_alg = MERKLE_HASH_SHA256;
	p.log_blocksize = 12;
	p.data_size = 4096;
	merkle_descriptor_init(&d, &p, root);
	d.hash_algorithm = 9;
	err = merkle_descriptor_parse(&d, sizeof(d), &p, root, &sig);
	CHECK(err < 0);
	CHECK(merkle_error_kind(err) == MERKLE_ERR_DAMAGE);
	d.hash_algorithm = MERKLE_HASH_SHA256;
	d.log_blocksize = 20;
	err = merkle_descriptor_parse(&d, sizeof(d), &p, root, &sig);
	CHECK(merkle_error_kind(err) == MERKLE_ERR_DAMAGE);
	d.log_blocksize = 12;
	d.version = 2;
	err = merkle_descriptor_parse(&d, sizeof(d), &p, root, &sig);
	CHECK(merkle_error_kind(err) == MERKLE_ERR_DAMAGE);
	CHECK(merkle_error_kind(MERKLE_E_CORRUPT) == MERKLE_ERR_DAMAGE);
	CHECK(merkle_error_kind(MERKLE_E_DIGEST_MISMATCH) == MERKLE_ERR_DAMAGE);
}

/* A bad argument: what a user typed, or parameters a caller chose. */
static void test_argument(void)
{
	struct merkle_params p = { .hash_alg = MERKLE_HASH_SHA256,
				   .log_blocksize = 9 };
	struct merkle_geometry g;
	uint8_t digest[MERKLE_MAX_DIGEST_SIZE];
	unsigned alg;

	CHECK(merkle_error_kind(merkle_parse_digest("sha256:zz", &alg,
						    digest)) ==
	      MERKLE_ERR_ARGUMENT);
	CHECK(merkle_error_kind(merkle_parse_digest("nonsense", &alg,
						    digest)) ==
	      MERKLE_ERR_ARGUMENT);
	CHECK(merkle_error_kind(merkle_geometry_init(&g, &p)) ==
	      MERKLE_ERR_ARGUMENT);
	CHECK(merkle_error_kind(merkle_hash_alg_from_name("wp512")) ==
	      MERKLE_ERR_ARGUMENT);
}

static int read_fails(void *ctx, void *buf, size_t len, uint64_t off)
{
	(void)ctx, (void)buf, (void)len, (void)off;
	return -EIO;
}

/* An I/O error: the tree's read callback fails during verification. */
static void test_io(void)
{
	struct merkle_params p = { .hash_alg = MERKLE_HASH_SHA256,
				   .log_blocksize = 12,
				   .data_size = 3 * 4096 };
	uint8_t root[MERKLE_MAX_DIGEST_SIZE] = { 0 };
	static uint8_t data[3 * 4096];
	struct merkle_cache *cache = merkle_cache_new(1 << 20);
	struct merkle_verify_result res;
	struct merkle_tree *t;
	int err;

	CHECK(cache);
	CHECK_RET(merkle_tree_open(&t, &p, root, cache, read_fails, NULL), 0);
	err = merkle_verify_blocks(t, 0, data, 3, 0, &res);
	CHECK_RET(err, -EIO);
	CHECK(merkle_error_kind(err) == MERKLE_ERR_IO);
	CHECK(merkle_error_kind(-ENODATA) == MERKLE_ERR_IO);
	merkle_tree_close(t);
	merkle_cache_free(cache);
}

/* No memory, from the library or from the system. */
static void test_nomem(void)
{
	CHECK(merkle_error_kind(MERKLE_E_NOMEM) == MERKLE_ERR_NOMEM);
	CHECK(merkle_error_kind(-ENOMEM) == MERKLE_ERR_NOMEM);
}

/* Success, MERKLE_NEED_TREE and MERKLE_ZERO_BLOCK are not failures. */
static void test_not_failures(void)
{
	CHECK(merkle_error_kind(0) == MERKLE_ERR_NONE);
	CHECK(merkle_error_kind(MERKLE_NEED_TREE) == MERKLE_ERR_NONE);
	CHECK(merkle_error_kind(MERKLE_ZERO_BLOCK) == MERKLE_ERR_NONE);
}

/* Every code of the enum has a text of its own and a kind. */
static void test_every_code(void)
{
	for (int err = MERKLE_E_BAD_ALG; err <= MERKLE_E_ALG_UNAVAILABLE;
	     err++) {
		CHECK(strcmp(merkle_strerror(err), "unknown error") != 0);
		CHECK(merkle_error_kind(err) != MERKLE_ERR_NONE &&
		      merkle_error_kind(err) != MERKLE_ERR_IO);
		for (int other = MERKLE_E_BAD_ALG; other < err; other++)
			CHECK(strcmp(merkle_strerror(err),
				     merkle_strerror(other)) != 0);
	}
	CHECK(strcmp(merkle_strerror(MERKLE_E_ALG_UNAVAILABLE + 1),
		     "unknown error") == 0);
	CHECK(strcmp(merkle_strerror(-ENOENT), "No such file or directory") == 0);
	CHECK(strcmp(merkle_strerror(-100000), "unknown error") == 0);
}

int main(void)
{
	test_damage();
	test_argument();
	test_io();
	test_nomem();
	test_not_failures();
	test_every_code();
	printf("test_errors: all checks passed\n");
	return 0;
}
