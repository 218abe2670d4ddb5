// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_parse - merkle_parse_hex(), merkle_parse_hash_alg() and
 * merkle_parse_digest(), the text forms shared by `vublk-verity` and the
 * daemon's verity target.  The oracle for the accepted forms is printf():
 * bytes printed with "%02x" or "%02X" must parse back to themselves.
 */
#include <string.h>

#include "merkle_test.h"

/* Varied bytes, different for each seed; the values do not matter. */
static void fill_bytes(uint8_t *buf, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(seed * 61 + i * 149);
}

/* Hex in lower, upper or (alternating per byte) mixed case. */
enum hex_case { HEX_LOWER, HEX_UPPER, HEX_MIXED };

static void print_hex(char *out, const uint8_t *bin, size_t len,
		      enum hex_case c)
{
	for (size_t i = 0; i < len; i++) {
		bool upper = c == HEX_UPPER || (c == HEX_MIXED && i % 2);

		sprintf(out + 2 * i, upper ? "%02X" : "%02x", bin[i]);
	}
	out[2 * len] = '\0';
}

/* Every byte value, as printf() writes it in either case. */
static void test_hex_every_byte(void)
{
	static const char *const formats[] = { "%02x", "%02X" };
	char hex[3];
	uint8_t byte;

	for (unsigned v = 0; v < 256; v++) {
		for (size_t f = 0; f < 2; f++) {
			snprintf(hex, sizeof(hex), formats[f], v);
			CHECK_RET(merkle_parse_hex(hex, &byte, 1), 1);
			CHECK(byte == v);
		}
	}
}

static void test_hex_round_trip(void)
{
	uint8_t want[MERKLE_MAX_SALT_SIZE], got[MERKLE_MAX_SALT_SIZE];
	char hex[2 * MERKLE_MAX_SALT_SIZE + 1];

	for (size_t len = 0; len <= MERKLE_MAX_SALT_SIZE; len++) {
		for (int c = HEX_LOWER; c <= HEX_MIXED; c++) {
			fill_bytes(want, len, (unsigned)(len * 3 + c));
			print_hex(hex, want, len, c);
			memset(got, 0xaa, sizeof(got));
			CHECK_RET(merkle_parse_hex(hex, got, sizeof(got)),
				  (int)len);
			CHECK(memcmp(got, want, len) == 0);
			/* Nothing past the parsed bytes is written. */
			for (size_t i = len; i < sizeof(got); i++)
				CHECK(got[i] == 0xaa);
		}
	}
}

static void test_hex_errors(void)
{
	static const struct {
		const char *hex;
		int err;
	} cases[] = {
		{ "abc", MERKLE_E_HEX_ODD },
		{ "0", MERKLE_E_HEX_ODD },
		{ " 00", MERKLE_E_HEX_ODD },
		{ "0g", MERKLE_E_HEX_CHAR },
		{ "g0", MERKLE_E_HEX_CHAR },
		{ " 0", MERKLE_E_HEX_CHAR },
		{ "0x00", MERKLE_E_HEX_CHAR },
		{ "00 ", MERKLE_E_HEX_ODD },
		{ "00-1", MERKLE_E_HEX_CHAR },
		/* 3 bytes, the buffer below takes 2. */
		{ "000000", MERKLE_E_HEX_TOO_LONG },
	};
	uint8_t buf[4];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(buf, 0xaa, sizeof(buf));
		CHECK_RET(merkle_parse_hex(cases[i].hex, buf, 2), cases[i].err);
		/* Too long is refused before anything is written. */
		if (cases[i].err == MERKLE_E_HEX_TOO_LONG)
			CHECK(buf[0] == 0xaa && buf[1] == 0xaa);
		CHECK(buf[2] == 0xaa && buf[3] == 0xaa);
	}
	/* Exactly max bytes is fine. */
	CHECK_RET(merkle_parse_hex("00ff", buf, 2), 2);
	CHECK(buf[0] == 0x00 && buf[1] == 0xff);
}

static void test_hash_alg(void)
{
	static const char *const unknown[] = {
		"", "whirlpool", "SHA256", "Sha512", "sha256 ", " sha256", "sha",
		"sha2566", "0", "3", "255", "256", "-1", "+1", " 1", "1 ",
		"1x", "0x1", "99999999999999999999999",
	};

	CHECK_RET(merkle_parse_hash_alg("sha256"), MERKLE_HASH_SHA256);
	CHECK_RET(merkle_parse_hash_alg("sha512"), MERKLE_HASH_SHA512);
	/* fsverity-utils' --hash-alg also takes the kernel's numbers. */
	CHECK_RET(merkle_parse_hash_alg("1"), MERKLE_HASH_SHA256);
	CHECK_RET(merkle_parse_hash_alg("2"), MERKLE_HASH_SHA512);
	CHECK_RET(merkle_parse_hash_alg("0002"), MERKLE_HASH_SHA512);
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++)
		CHECK_RET(merkle_parse_hash_alg(unknown[i]), MERKLE_E_BAD_ALG);
}

/* prefix ':' hex of want, digest_size bytes, in case c, must parse. */
static void expect_digest(const char *prefix, unsigned alg, enum hex_case c,
			  unsigned seed)
{
	unsigned size = merkle_digest_size(alg);
	uint8_t want[MERKLE_MAX_DIGEST_SIZE], got[MERKLE_MAX_DIGEST_SIZE];
	char text[32 + 2 * MERKLE_MAX_DIGEST_SIZE];
	unsigned got_alg = 0;

	fill_bytes(want, size, seed);
	snprintf(text, sizeof(text), "%s:", prefix);
	print_hex(text + strlen(text), want, size, c);
	memset(got, 0xaa, sizeof(got));
	CHECK_RET(merkle_parse_digest(text, &got_alg, got), 0);
	CHECK(got_alg == alg);
	CHECK(memcmp(got, want, size) == 0);
	for (unsigned i = size; i < MERKLE_MAX_DIGEST_SIZE; i++)
		CHECK(got[i] == 0);
}

static void test_digest_valid(void)
{
	for (int c = HEX_LOWER; c <= HEX_MIXED; c++) {
		expect_digest("sha256", MERKLE_HASH_SHA256, c, 1 + c);
		expect_digest("sha512", MERKLE_HASH_SHA512, c, 7 + c);
	}
	expect_digest("1", MERKLE_HASH_SHA256, HEX_LOWER, 11);
	expect_digest("2", MERKLE_HASH_SHA512, HEX_LOWER, 13);
}

/* text must be refused with err, leaving the outputs alone. */
static void expect_digest_error(const char *text, int err)
{
	uint8_t digest[MERKLE_MAX_DIGEST_SIZE];
	unsigned alg = 77;

	memset(digest, 0xaa, sizeof(digest));
	CHECK_RET(merkle_parse_digest(text, &alg, digest), err);
	CHECK(alg == 77);
	for (size_t i = 0; i < sizeof(digest); i++)
		CHECK(digest[i] == 0xaa);
}

/* "ALG:" followed by ndigits hex digits (all '5'), then suffix. */
static void expect_digits_error(const char *alg, size_t ndigits,
				const char *suffix, int err)
{
	char text[512];
	int len = snprintf(text, sizeof(text), "%s:", alg);

	CHECK(len > 0 && (size_t)len + ndigits + strlen(suffix) < sizeof(text));
	memset(text + len, '5', ndigits);
	strcpy(text + len + ndigits, suffix);
	expect_digest_error(text, err);
}

static void test_digest_errors(void)
{
	char long_alg[64];

	/* Not ALG:HEX at all. */
	expect_digest_error("", MERKLE_E_DIGEST_SYNTAX);
	expect_digest_error("sha256", MERKLE_E_DIGEST_SYNTAX);
	expect_digest_error("5555555555555555555555555555555555555555555555555555555555555555",
			    MERKLE_E_DIGEST_SYNTAX);

	/* Unknown algorithms, whatever the HEX. */
	expect_digits_error("", 64, "", MERKLE_E_BAD_ALG);
	expect_digits_error("md5", 32, "", MERKLE_E_BAD_ALG);
	expect_digits_error("SHA256", 64, "", MERKLE_E_BAD_ALG);
	expect_digits_error("3", 64, "", MERKLE_E_BAD_ALG);
	memset(long_alg, 'a', sizeof(long_alg) - 1);
	long_alg[sizeof(long_alg) - 1] = '\0';
	expect_digits_error(long_alg, 64, "", MERKLE_E_BAD_ALG);

	/* Wrong lengths, including none and the other algorithm's. */
	expect_digits_error("sha256", 0, "", MERKLE_E_DIGEST_SIZE);
	expect_digits_error("sha256", 62, "", MERKLE_E_DIGEST_SIZE);
	expect_digits_error("sha256", 63, "", MERKLE_E_DIGEST_SIZE);
	expect_digits_error("sha256", 65, "", MERKLE_E_DIGEST_SIZE);
	expect_digits_error("sha256", 128, "", MERKLE_E_DIGEST_SIZE);
	expect_digits_error("sha512", 64, "", MERKLE_E_DIGEST_SIZE);
	expect_digits_error("sha512", 127, "", MERKLE_E_DIGEST_SIZE);
	/* A whole `fsverity digest` line, file name and all. */
	expect_digits_error("sha256", 64, " file", MERKLE_E_DIGEST_SIZE);
	expect_digits_error("sha256", 64, "\n", MERKLE_E_DIGEST_SIZE);

	/* A non-hex character at either end, the right length. */
	expect_digits_error("sha256", 63, "g", MERKLE_E_HEX_CHAR);
	expect_digits_error("sha512", 127, " ", MERKLE_E_HEX_CHAR);
	expect_digest_error("sha256:z555555555555555555555555555555555555555555555555555555555555555",
			    MERKLE_E_HEX_CHAR);
	/* A second ':' is part of HEX, not a separator. */
	expect_digits_error("sha256", 63, ":", MERKLE_E_HEX_CHAR);
}

int main(void)
{
	test_hex_every_byte();
	test_hex_round_trip();
	test_hex_errors();
	test_hash_alg();
	test_digest_valid();
	test_digest_errors();
	printf("test_parse: all checks passed\n");
	return 0;
}
