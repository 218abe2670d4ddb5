// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_trailer.c - f2fslayout_trailer_validate() rejects every kind of bad
 * trailer with its own error code, as f2fs_get_verity_descriptor() and
 * fsverity_get_descriptor() reject bad location records; and no damaged
 * byte goes unnoticed.
 */

#include <stdint.h>
#include <string.h>

#include "check.h"
#include "f2fslayout_private.h"

/* A valid image: 65537 data bytes, 8 KiB tree, 1000-byte descriptor. */
static struct f2fslayout_layout base;

static struct f2fslayout_trailer base_trailer(void)
{
	return (struct f2fslayout_trailer){
		.version = F2FSLAYOUT_TRAILER_VERSION,
		.size = F2FSLAYOUT_TRAILER_SIZE,
		.data_size = base.data_size,
		.loc_version = F2FSLAYOUT_LOCATION_VERSION,
		.loc_size = base.desc_size,
		.loc_pos = base.desc_pos,
	};
}

/* Encode t (correctly sealed) and validate it for an image of image_size. */
static int validate(const struct f2fslayout_trailer *t, uint64_t image_size)
{
	uint8_t buf[F2FSLAYOUT_TRAILER_SIZE];
	struct f2fslayout_layout l;

	f2fslayout_trailer_encode(t, buf);
	return f2fslayout_trailer_validate(buf, image_size, &l);
}

static void test_valid(void)
{
	struct f2fslayout_trailer t = base_trailer();

	CHECK_ERR(validate(&t, base.image_size), 0);
	/* extra space between descriptor and trailer is allowed */
	CHECK_ERR(validate(&t, base.image_size + 4096), 0);
}

static void test_image_too_small(void)
{
	uint8_t buf[F2FSLAYOUT_TRAILER_SIZE];
	struct f2fslayout_trailer t = base_trailer();
	struct f2fslayout_layout l;

	f2fslayout_trailer_encode(&t, buf);
	CHECK_ERR(f2fslayout_trailer_validate(buf, 0, &l),
		  F2FSLAYOUT_E_IMAGE_TOO_SMALL);
	CHECK_ERR(f2fslayout_trailer_validate(buf, 63, &l),
		  F2FSLAYOUT_E_IMAGE_TOO_SMALL);
}

/* Flip bits of a byte of a good trailer, optionally resealing it. */
static int validate_damaged(size_t off, uint8_t flip, bool reseal)
{
	uint8_t buf[F2FSLAYOUT_TRAILER_SIZE];
	struct f2fslayout_trailer t = base_trailer();
	struct f2fslayout_layout l;

	f2fslayout_trailer_encode(&t, buf);
	buf[off] ^= flip;
	if (reseal)
		f2fslayout_trailer_seal(buf);
	return f2fslayout_trailer_validate(buf, base.image_size, &l);
}

static void test_framing(void)
{
	struct f2fslayout_trailer t;

	CHECK_ERR(validate_damaged(0, 0x20, true), F2FSLAYOUT_E_NO_TRAILER);
	CHECK_ERR(validate_damaged(7, 'x', true), F2FSLAYOUT_E_NO_TRAILER);
	t = base_trailer();
	t.version = 2;
	CHECK_ERR(validate(&t, base.image_size), F2FSLAYOUT_E_TRAILER_VERSION);
	t = base_trailer();
	t.size = 128;
	CHECK_ERR(validate(&t, base.image_size), F2FSLAYOUT_E_TRAILER_SIZE);
	/* a changed field without a new checksum */
	CHECK_ERR(validate_damaged(16, 0xff, false),
		  F2FSLAYOUT_E_TRAILER_CHECKSUM);
	/* a changed checksum */
	CHECK_ERR(validate_damaged(60, 0x5a, false),
		  F2FSLAYOUT_E_TRAILER_CHECKSUM);
	CHECK_ERR(validate_damaged(40, 1, true),
		  F2FSLAYOUT_E_TRAILER_RESERVED);
	CHECK_ERR(validate_damaged(59, 0x80, true),
		  F2FSLAYOUT_E_TRAILER_RESERVED);
}

static void test_location(void)
{
	struct f2fslayout_trailer t;

	t = base_trailer();
	t.loc_version = 2;
	CHECK_ERR(validate(&t, base.image_size),
		  F2FSLAYOUT_E_LOCATION_VERSION);
	t = base_trailer();
	t.loc_size = MERKLE_DESCRIPTOR_SIZE - 1;
	CHECK_ERR(validate(&t, base.image_size), F2FSLAYOUT_E_DESC_TOO_SMALL);
	t.loc_size = 0;
	CHECK_ERR(validate(&t, base.image_size), F2FSLAYOUT_E_DESC_TOO_SMALL);
	t.loc_size = MERKLE_MAX_DESCRIPTOR_SIZE + 1;
	CHECK_ERR(validate(&t, base.image_size), F2FSLAYOUT_E_DESC_TOO_LARGE);
	t.loc_size = UINT32_MAX;
	CHECK_ERR(validate(&t, base.image_size), F2FSLAYOUT_E_DESC_TOO_LARGE);
	t = base_trailer();
	t.loc_pos = UINT64_MAX - base.desc_size + 1;
	CHECK_ERR(validate(&t, base.image_size),
		  F2FSLAYOUT_E_DESC_POS_OVERFLOW);
	t = base_trailer();
	t.data_size = UINT64_MAX - 1000;
	CHECK_ERR(validate(&t, base.image_size),
		  F2FSLAYOUT_E_DATA_SIZE_TOO_LARGE);
	t = base_trailer();
	t.loc_pos = base.tree_pos - 1;
	CHECK_ERR(validate(&t, base.image_size),
		  F2FSLAYOUT_E_DESC_BEFORE_METADATA);
	/* data grown past the descriptor */
	t = base_trailer();
	t.data_size = base.tree_pos + 1;
	CHECK_ERR(validate(&t, base.image_size),
		  F2FSLAYOUT_E_DESC_BEFORE_METADATA);
}

static void test_descriptor_placement(void)
{
	struct f2fslayout_trailer t = base_trailer();
	uint64_t desc_end = base.desc_pos + base.desc_size;

	/* the trailer of a bigger image moved onto a shorter one */
	CHECK_ERR(validate(&t, desc_end - 1), F2FSLAYOUT_E_DESC_PAST_EOF);
	CHECK_ERR(validate(&t, 64), F2FSLAYOUT_E_DESC_PAST_EOF);
	/* descriptor ends inside the trailer, or right at its end */
	CHECK_ERR(validate(&t, desc_end + 63),
		  F2FSLAYOUT_E_DESC_OVERLAPS_TRAILER);
	CHECK_ERR(validate(&t, desc_end), F2FSLAYOUT_E_DESC_OVERLAPS_TRAILER);
	/* and just fits before it */
	CHECK_ERR(validate(&t, desc_end + 64), 0);
}

/* CRC-32C detects every single-bit error: so must the validation. */
static void test_every_bit_flip_rejected(void)
{
	uint8_t good[F2FSLAYOUT_TRAILER_SIZE];
	struct f2fslayout_trailer t = base_trailer();
	struct f2fslayout_layout l;
	int rejected = 0;

	f2fslayout_trailer_encode(&t, good);
	for (size_t bit = 0; bit < 8 * sizeof(good); bit++) {
		uint8_t buf[F2FSLAYOUT_TRAILER_SIZE];

		memcpy(buf, good, sizeof(buf));
		buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		rejected += f2fslayout_trailer_validate(buf, base.image_size,
							&l) != 0;
	}
	CHECK_U64(rejected, 8 * sizeof(good));
}

/* The CRC catalogue's check value of CRC-32C: crc("123456789"). */
static void test_crc32c_check_value(void)
{
	CHECK_U64(f2fslayout_crc32c((const uint8_t *)"123456789", 9),
		  0xE3069283u);
}

/* Each code has its own message, and the messages are all different. */
static void test_messages_distinct(void)
{
	const int first = F2FSLAYOUT_E_IMAGE_TOO_SMALL;
	const int last = F2FSLAYOUT_E_F2FS_VERITY_TREE;

	for (int a = first; a <= last; a++) {
		CHECK(f2fslayout_strerror(a) != NULL);
		for (int b = a + 1; b <= last; b++)
			CHECK(strcmp(f2fslayout_strerror(a),
				     f2fslayout_strerror(b)) != 0);
	}
	/* lib/merkle's codes and errno pass through */
	CHECK(strcmp(f2fslayout_strerror(MERKLE_E_BAD_VERSION),
		     merkle_strerror(MERKLE_E_BAD_VERSION)) == 0);
}

int main(void)
{
	if (f2fslayout_plan(65537, 8192, 1000, &base)) {
		fprintf(stderr, "cannot plan the base layout\n");
		return 1;
	}
	test_valid();
	test_image_too_small();
	test_framing();
	test_location();
	test_descriptor_placement();
	test_every_bit_flip_rejected();
	test_crc32c_check_value();
	test_messages_distinct();
	return check_failures != 0;
}
