// SPDX-License-Identifier: GPL-2.0-only
/*
 * f2fs_hash.c - the hash that picks a filename's dentry bucket.
 *
 * fs/f2fs/hash.c: TEA_hash_name(), the ext3 "TEA" directory hash with the
 * MD4 initial values as seed: the name is cut into 16-byte pieces, each
 * packed into four words padded with a length pattern (str2hashbuf()) and
 * mixed into the state by 16 TEA rounds; the hash is the first word.
 * "." and ".." hash to 0 (f2fs_hash_filename()).  Casefolded and
 * encrypted directories hash other bytes; callers do not hash names there.
 */

#include "f2fs_private.h"

#define TEA_DELTA 0x9E3779B9u
#define TEA_ROUNDS 16
#define HASH_PIECE 16	/* bytes of name per TEA transform */

static void tea_transform(uint32_t state[4], const uint32_t in[4])
{
	uint32_t sum = 0, b0 = state[0], b1 = state[1];

	for (int n = 0; n < TEA_ROUNDS; n++) {
		sum += TEA_DELTA;
		b0 += ((b1 << 4) + in[0]) ^ (b1 + sum) ^ ((b1 >> 5) + in[1]);
		b1 += ((b0 << 4) + in[2]) ^ (b0 + sum) ^ ((b0 >> 5) + in[3]);
	}
	state[0] += b0;
	state[1] += b1;
}

/*
 * str2hashbuf(): up to 16 bytes, big-endian within each word, into four
 * words; missing bytes and words take the pattern of len (the length of
 * what is left of the whole name, as the kernel passes it).
 */
static void pack_piece(const uint8_t *msg, size_t len, uint32_t out[4])
{
	uint32_t pad = (uint32_t)len | (uint32_t)len << 8;
	uint32_t val = 0;
	unsigned words = 0;

	pad |= pad << 16;
	if (len > HASH_PIECE)
		len = HASH_PIECE;
	for (size_t i = 0; i < len; i++) {
		if (i % 4 == 0)
			val = pad;
		val = msg[i] + (val << 8);
		if (i % 4 == 3)
			out[words++] = val;
	}
	if (len % 4)
		out[words++] = val;
	while (words < 4)
		out[words++] = pad;
}

uint32_t f2fs_dentry_hash(const uint8_t *name, size_t len)
{
	uint32_t state[4] = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476 };
	uint32_t in[4];

	if ((len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return 0;
	for (;;) {
		pack_piece(name, len, in);
		tea_transform(state, in);
		if (len <= HASH_PIECE)
			break;
		name += HASH_PIECE;
		len -= HASH_PIECE;
	}
	return state[0];
}
