// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_plan.c - f2fslayout_plan() puts the tree at round_up(data_size,
 * 64 KiB) (f2fs_verity_metadata_pos()), the descriptor right after the
 * tree (f2fs_end_enable_verity()), and the trailer at the end of a 4 KiB
 * aligned image; every planned layout reads back through the trailer.
 *
 * The expected positions were worked out by hand from docs/FORMAT.md.
 */

#include <stdint.h>
#include <string.h>

#include "check.h"

struct plan_case {
	uint64_t data_size, tree_size;
	uint32_t desc_size;
	uint64_t tree_pos, desc_pos, trailer_pos, image_size;
};

static const struct plan_case cases[] = {
	/* empty: no tree, everything at 0, one 4 KiB page */
	{ 0, 0, 256, 0, 0, 4032, 4096 },
	/* one byte: no tree (one block), metadata at the next 64 KiB */
	{ 1, 0, 256, 65536, 65536, 69568, 69632 },
	{ 65535, 4096, 256, 65536, 69632, 73664, 73728 },
	{ 65536, 4096, 256, 65536, 69632, 73664, 73728 },
	{ 65537, 8192, 1000, 131072, 139264, 143296, 143360 },
	/* descriptor + trailer fill the last page exactly: no padding */
	{ 65536, 4096, 4032, 65536, 69632, 73664, 73728 },
	/* one byte more spills into a new page */
	{ 65536, 4096, 4033, 65536, 69632, 77760, 77824 },
	/* 1 TiB + 1 with an 8 GiB + 4 KiB tree and the largest descriptor */
	{ (1ULL << 40) + 1, (8ULL << 30) + 4096, 16384, 1099511693312ULL,
	  1108101632000ULL, 1108101652416ULL, 1108101652480ULL },
	/* the largest data whose image still fits in off_t */
	{ (1ULL << 63) - 65536, 0, 256, (1ULL << 63) - 65536,
	  (1ULL << 63) - 65536, (1ULL << 63) - 65536 + 4096 - 64,
	  (1ULL << 63) - 65536 + 4096 },
};

/* What every planned layout satisfies, whatever the inputs. */
static void check_invariants(const struct f2fslayout_layout *l)
{
	CHECK(l->tree_pos % F2FSLAYOUT_METADATA_ALIGN == 0);
	CHECK(l->tree_pos >= l->data_size);
	CHECK(l->tree_pos - l->data_size < F2FSLAYOUT_METADATA_ALIGN);
	CHECK(l->desc_pos == l->tree_pos + l->tree_size);
	CHECK(l->image_size % F2FSLAYOUT_IMAGE_ALIGN == 0);
	CHECK(l->trailer_pos + F2FSLAYOUT_TRAILER_SIZE == l->image_size);
	CHECK(l->desc_pos + l->desc_size <= l->trailer_pos);
	/* padding is shorter than a page: nothing is wasted */
	CHECK(l->trailer_pos - (l->desc_pos + l->desc_size) <
	      F2FSLAYOUT_IMAGE_ALIGN);
}

/* The trailer for a planned layout validates back to the same layout. */
static void check_trailer_round_trip(const struct f2fslayout_layout *l)
{
	const struct f2fslayout_trailer t = {
		.version = F2FSLAYOUT_TRAILER_VERSION,
		.size = F2FSLAYOUT_TRAILER_SIZE,
		.data_size = l->data_size,
		.loc_version = F2FSLAYOUT_LOCATION_VERSION,
		.loc_size = l->desc_size,
		.loc_pos = l->desc_pos,
	};
	uint8_t buf[F2FSLAYOUT_TRAILER_SIZE];
	struct f2fslayout_layout back;

	f2fslayout_trailer_encode(&t, buf);
	CHECK_ERR(f2fslayout_trailer_validate(buf, l->image_size, &back), 0);
	CHECK_U64(back.data_size, l->data_size);
	CHECK_U64(back.tree_pos, l->tree_pos);
	CHECK_U64(back.tree_size, 0);	/* known only from the descriptor */
	CHECK_U64(back.desc_pos, l->desc_pos);
	CHECK_U64(back.desc_size, l->desc_size);
	CHECK_U64(back.trailer_pos, l->trailer_pos);
	CHECK_U64(back.image_size, l->image_size);
}

static void test_positions(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct plan_case *c = &cases[i];
		struct f2fslayout_layout l;

		CHECK_ERR(f2fslayout_plan(c->data_size, c->tree_size,
					  c->desc_size, &l), 0);
		CHECK_U64(l.data_size, c->data_size);
		CHECK_U64(l.tree_pos, c->tree_pos);
		CHECK_U64(l.tree_size, c->tree_size);
		CHECK_U64(l.desc_pos, c->desc_pos);
		CHECK_U64(l.desc_size, c->desc_size);
		CHECK_U64(l.trailer_pos, c->trailer_pos);
		CHECK_U64(l.image_size, c->image_size);
		check_invariants(&l);
		check_trailer_round_trip(&l);
	}
}

static void test_metadata_pos(void)
{
	uint64_t pos;

	CHECK_ERR(f2fslayout_metadata_pos(0, &pos), 0);
	CHECK_U64(pos, 0);
	CHECK_ERR(f2fslayout_metadata_pos(65537, &pos), 0);
	CHECK_U64(pos, 131072);
	CHECK_ERR(f2fslayout_metadata_pos(UINT64_MAX - 65535, &pos), 0);
	CHECK_U64(pos, UINT64_MAX - 65535);
	CHECK_ERR(f2fslayout_metadata_pos(UINT64_MAX - 65534, &pos),
		  F2FSLAYOUT_E_DATA_SIZE_TOO_LARGE);
}

static void test_bad_inputs(void)
{
	struct f2fslayout_layout l;

	CHECK_ERR(f2fslayout_plan(4096, 0, 255, &l),
		  F2FSLAYOUT_E_DESC_TOO_SMALL);
	CHECK_ERR(f2fslayout_plan(4096, 0, 16385, &l),
		  F2FSLAYOUT_E_DESC_TOO_LARGE);
	CHECK_ERR(f2fslayout_plan(UINT64_MAX, 0, 256, &l),
		  F2FSLAYOUT_E_DATA_SIZE_TOO_LARGE);
	/* tree_pos + tree_size wraps */
	CHECK_ERR(f2fslayout_plan(UINT64_MAX - 65535, 65536, 256, &l),
		  F2FSLAYOUT_E_IMAGE_TOO_LARGE);
	/* fits in 64 bits but not in off_t */
	CHECK_ERR(f2fslayout_plan(1ULL << 63, 0, 256, &l),
		  F2FSLAYOUT_E_IMAGE_TOO_LARGE);
	/* the descriptor would start at 2^63 */
	CHECK_ERR(f2fslayout_plan((1ULL << 63) - 65536, 65536, 256, &l),
		  F2FSLAYOUT_E_IMAGE_TOO_LARGE);
}

int main(void)
{
	test_positions();
	test_metadata_pos();
	test_bad_inputs();
	return check_failures != 0;
}
