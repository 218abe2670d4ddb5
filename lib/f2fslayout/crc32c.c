// SPDX-License-Identifier: GPL-2.0-only
/*
 * crc32c.c - the two reflected CRC-32s the library checks.
 *
 * CRC-32C (Castagnoli), as the kernel's crc32c() used for ext4 metadata
 * computes it: reflected polynomial 0x82F63B78, initial value and final
 * xor ~0; the vublk trailer uses it.  And f2fs's own checksum,
 * f2fs_crc32() (fs/f2fs/f2fs.h): the kernel's "crc32" shash, i.e.
 * crc32_le() with the IEEE polynomial (reflected 0xEDB88320), seeded with
 * F2FS_SUPER_MAGIC and with no final xor; superblocks and checkpoints
 * carry it.  Bitwise: at most a few blocks are checked per open, so a
 * table buys nothing.
 */

#include <stddef.h>
#include <stdint.h>

#include "f2fs_private.h"
#include "f2fslayout_private.h"

#define CRC32C_POLY_REFLECTED 0x82F63B78u
#define CRC32_IEEE_POLY_REFLECTED 0xEDB88320u

static uint32_t crc32_reflected(uint32_t poly, uint32_t crc,
				const uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		crc ^= buf[i];
		for (int bit = 0; bit < 8; bit++)
			crc = (crc >> 1) ^ (poly & -(crc & 1));
	}
	return crc;
}

uint32_t f2fslayout_crc32c(const uint8_t *buf, size_t len)
{
	return ~crc32_reflected(CRC32C_POLY_REFLECTED, ~0u, buf, len);
}

uint32_t f2fs_crc32(uint32_t crc, const uint8_t *buf, size_t len)
{
	return crc32_reflected(CRC32_IEEE_POLY_REFLECTED, crc, buf, len);
}
