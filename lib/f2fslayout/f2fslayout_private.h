/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * f2fslayout_private.h - helpers shared by the files of lib/f2fslayout.
 * Not part of the contract; other code uses f2fslayout.h only.
 */
#ifndef VUBLK_F2FSLAYOUT_PRIVATE_H
#define VUBLK_F2FSLAYOUT_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "f2fslayout.h"

/* Byte offsets inside the trailer (see f2fslayout.h and docs/FORMAT.md). */
#define TRAILER_OFF_MAGIC 0
#define TRAILER_OFF_VERSION 8
#define TRAILER_OFF_SIZE 12
#define TRAILER_OFF_DATA_SIZE 16
#define TRAILER_OFF_LOC_VERSION 24
#define TRAILER_OFF_LOC_SIZE 28
#define TRAILER_OFF_LOC_POS 32
#define TRAILER_OFF_RESERVED 40
#define TRAILER_RESERVED_SIZE 20
#define TRAILER_OFF_CHECKSUM 60
#define TRAILER_CHECKSUM_SIZE 4
#define TRAILER_MAGIC_SIZE 8

_Static_assert(TRAILER_OFF_CHECKSUM + TRAILER_CHECKSUM_SIZE ==
	       F2FSLAYOUT_TRAILER_SIZE, "trailer fields must fill 64 bytes");
_Static_assert(sizeof(F2FSLAYOUT_MAGIC) == TRAILER_MAGIC_SIZE,
	       "magic is 8 bytes including its NUL");

/* Little-endian field access, independent of host byte order. */
static inline uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t get_le64(const uint8_t *p)
{
	return (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

static inline void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}

/* round_up(v, align) for a power-of-2 align; false if it overflows. */
static inline bool round_up_checked(uint64_t v, uint64_t align, uint64_t *out)
{
	uint64_t sum;

	if (__builtin_add_overflow(v, align - 1, &sum))
		return false;
	*out = sum & ~(align - 1);
	return true;
}

/* CRC-32C (Castagnoli, reflected, init and final xor ~0) of buf. */
uint32_t f2fslayout_crc32c(const uint8_t *buf, size_t len);

/*
 * Transfer exactly len bytes at off, retrying short transfers and EINTR.
 * Return 0, -errno, or F2FSLAYOUT_E_TRUNCATED if the file ends first.
 */
int f2fslayout_pread_full(int fd, void *buf, size_t len, uint64_t off);
/* An f2fslayout_read_fn over the descriptor *(int *)ctx. */
int f2fslayout_read_fd(void *ctx, void *buf, size_t len, uint64_t off);
int f2fslayout_pwrite_full(int fd, const void *buf, size_t len,
			   uint64_t off);

/*
 * Size of the image open on fd: a regular file or a block device, else
 * F2FSLAYOUT_E_BAD_FILE_TYPE.
 */
int f2fslayout_image_size(int fd, uint64_t *size);

/*
 * probe.c: is an image without a trailer a sealed image that lost it (cut
 * short by a copy stopped early or a truncate, or its magic damaged) and
 * still holds its fs-verity descriptor where the layout puts it for the
 * descriptor's own data size?
 * 1 and the descriptor's position and data size, 0 if not, or a negative
 * error of read_fn.
 */
int f2fslayout_find_lone_descriptor(f2fslayout_read_fn read_fn, void *ctx,
				    uint64_t image_size, uint64_t *desc_pos,
				    uint64_t *data_size);

/*
 * Read the last F2FSLAYOUT_TRAILER_SIZE bytes of the image and its size;
 * F2FSLAYOUT_E_IMAGE_TOO_SMALL if it is shorter than a trailer.
 */
int f2fslayout_read_trailer(int fd, uint8_t buf[F2FSLAYOUT_TRAILER_SIZE],
			    uint64_t *image_size);

#endif /* VUBLK_F2FSLAYOUT_PRIVATE_H */
