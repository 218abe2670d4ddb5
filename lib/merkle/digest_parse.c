// SPDX-License-Identifier: GPL-2.0-only
/*
 * digest_parse.c - salts, hash algorithms and expected digests as users
 * type them.
 *
 * The kernel takes these as binary (struct fsverity_enable_arg); the text
 * forms are fsverity-utils': hex2bin() of programs/utils.c for --salt,
 * parse_hash_alg_option() of programs/fsverity.c for --hash-alg, and the
 * "ALG:HEX" that `fsverity digest` and `fsverity measure` print.  The
 * vublk-verity tool and the daemon's verity target both parse through
 * here, so a digest one accepts the other accepts too.
 */
#include <string.h>

#include "merkle_private.h"

/* Longest ALG accepted before ':'; the names and numbers are far shorter. */
#define HASH_ALG_TEXT_MAX 16

static int hex_digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int merkle_parse_hex(const char *hex, uint8_t *bin, size_t max)
{
	size_t len = strlen(hex);

	if (len % 2)
		return MERKLE_E_HEX_ODD;
	if (len / 2 > max)
		return MERKLE_E_HEX_TOO_LONG;
	for (size_t i = 0; i < len / 2; i++) {
		int hi = hex_digit_value(hex[2 * i]);
		int lo = hex_digit_value(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return MERKLE_E_HEX_CHAR;
		bin[i] = (uint8_t)(hi << 4 | lo);
	}
	return (int)(len / 2);
}

/*
 * Digits only, as fsverity-utils' strtoul() with the *end check, minus
 * the blanks and signs strtoul() would skip.  The numbers are the
 * descriptor's 8-bit hash_algorithm, so anything larger is unknown (and
 * never overflows).
 */
static int parse_hash_alg_number(const char *text)
{
	unsigned n = 0;

	for (; *text >= '0' && *text <= '9'; text++) {
		n = n * 10 + (unsigned)(*text - '0');
		if (n > UINT8_MAX)
			return MERKLE_E_BAD_ALG;
	}
	if (*text != '\0' || !merkle_hash_alg_fsverity(n))
		return MERKLE_E_BAD_ALG;
	return (int)n;
}

int merkle_parse_hash_alg(const char *text)
{
	int alg;

	if (*text >= '0' && *text <= '9')
		return parse_hash_alg_number(text);
	alg = merkle_hash_alg_from_name(text);
	return alg < 0 || !merkle_hash_alg_fsverity((unsigned)alg) ?
	       MERKLE_E_BAD_ALG : alg;
}

int merkle_parse_digest(const char *text, unsigned *hash_alg,
			uint8_t digest[MERKLE_MAX_DIGEST_SIZE])
{
	const char *colon = strchr(text, ':');
	uint8_t bytes[MERKLE_MAX_DIGEST_SIZE] = { 0 };
	char alg_text[HASH_ALG_TEXT_MAX];
	size_t alg_len;
	int alg, len;

	if (!colon)
		return MERKLE_E_DIGEST_SYNTAX;
	alg_len = (size_t)(colon - text);
	if (alg_len >= sizeof(alg_text))
		return MERKLE_E_BAD_ALG;
	memcpy(alg_text, text, alg_len);
	alg_text[alg_len] = '\0';
	alg = merkle_parse_hash_alg(alg_text);
	if (alg < 0)
		return alg;
	/*
	 * Length before content: a digest cut short, or pasted with more
	 * (a whole "ALG:HEX FILE" line), is the likelier mistake.
	 */
	if (strlen(colon + 1) != 2 * merkle_digest_size((unsigned)alg))
		return MERKLE_E_DIGEST_SIZE;
	len = merkle_parse_hex(colon + 1, bytes, sizeof(bytes));
	if (len < 0)
		return len;
	*hash_alg = (unsigned)alg;
	memcpy(digest, bytes, sizeof(bytes));
	return 0;
}
