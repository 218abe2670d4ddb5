// SPDX-License-Identifier: GPL-2.0-only
/*
 * crc32c.c - the trailer checksum.
 *
 * CRC-32C (Castagnoli), as the kernel's crc32c() used for ext4 and f2fs
 * metadata checksums computes it: reflected polynomial 0x82F63B78, initial
 * value and final xor ~0.  Bitwise: the trailer is 60 bytes and is checked
 * once per open, so a table buys nothing.
 */

#include <stddef.h>
#include <stdint.h>

#include "f2fslayout_private.h"

#define CRC32C_POLY_REFLECTED 0x82F63B78u

uint32_t f2fslayout_crc32c(const uint8_t *buf, size_t len)
{
	uint32_t crc = ~0u;

	for (size_t i = 0; i < len; i++) {
		crc ^= buf[i];
		for (int bit = 0; bit < 8; bit++)
			crc = (crc >> 1) ^ (CRC32C_POLY_REFLECTED & -(crc & 1));
	}
	return ~crc;
}
