// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_validate.c - every rule of daemon/ublk_validate.c at its boundary.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "validate.h"

static int failures;

#define DEV_SECTORS 2048ULL		/* 1 MiB device */
#define BUF_BYTES (64 * 1024)

static const struct vublk_io_limits lim = {
	.dev_sectors = DEV_SECTORS,
	.max_io_bytes = BUF_BYTES,
	.logical_bs_shift = 9,
	.read_only = false,
	.discard = true,
};

struct vcase {
	const char *name;
	unsigned op_flags;
	uint64_t start;
	uint32_t nr;
	int expect;			/* 0 or -EIO */
	const struct vublk_io_limits *lim;
};

static void run_case(const struct vcase *c)
{
	struct ublksrv_io_desc iod = {
		.op_flags = c->op_flags,
		.nr_sectors = c->nr,
		.start_sector = c->start,
	};
	struct vublk_req req;
	const char *why = NULL;
	int ret = ublk_validate_iod(&iod, c->lim ? c->lim : &lim, &req, &why);

	if (ret != c->expect || (ret && !why)) {
		printf("FAIL %s: got %d (%s), want %d\n", c->name, ret,
		       why ? why : "no reason", c->expect);
		failures++;
	}
}

static void check(bool ok, const char *what)
{
	if (!ok) {
		printf("FAIL %s\n", what);
		failures++;
	}
}

static void test_table(void)
{
	static const struct vublk_io_limits ro = {
		.dev_sectors = DEV_SECTORS, .max_io_bytes = BUF_BYTES,
		.logical_bs_shift = 9, .read_only = true, .discard = false,
	};
	static const struct vublk_io_limits bs4k = {
		.dev_sectors = DEV_SECTORS, .max_io_bytes = BUF_BYTES,
		.logical_bs_shift = 12, .discard = true,
	};
	static const struct vublk_io_limits huge = {
		.dev_sectors = UINT64_MAX, .max_io_bytes = BUF_BYTES,
		.logical_bs_shift = 9, .discard = true,
	};
	const unsigned R = UBLK_IO_OP_READ, W = UBLK_IO_OP_WRITE;
	const struct vcase cases[] = {
		{ "read sector 0", R, 0, 1, 0, NULL },
		{ "read last sector", R, DEV_SECTORS - 1, 1, 0, NULL },
		{ "read one past the end", R, DEV_SECTORS, 1, -EIO, NULL },
		{ "read straddling the end", R, DEV_SECTORS - 1, 2, -EIO, NULL },
		{ "read start far past the end", R, 1ULL << 40, 1, -EIO, NULL },
		{ "read start + n overflows u64", R, UINT64_MAX, 2, -EIO, NULL },
		{ "overflow on a huge device", R, UINT64_MAX - 1, 8, -EIO, &huge },
		{ "read whole buffer", R, 0, BUF_BYTES / 512, 0, NULL },
		{ "read buffer + 1 sector", R, 0, BUF_BYTES / 512 + 1, -EIO, NULL },
		{ "read zero length", R, 0, 0, -EIO, NULL },
		{ "write zero length", W, 5, 0, -EIO, NULL },
		{ "write last sector", W, DEV_SECTORS - 1, 1, 0, NULL },
		{ "write one past the end", W, DEV_SECTORS, 1, -EIO, NULL },
		{ "write buffer + 1 sector", W, 0, BUF_BYTES / 512 + 1, -EIO, NULL },
		{ "flush", UBLK_IO_OP_FLUSH, 0, 0, 0, NULL },
		{ "flush on read-only", UBLK_IO_OP_FLUSH, 0, 0, 0, &ro },
		{ "discard whole device (beyond buffer)", UBLK_IO_OP_DISCARD, 0,
		  DEV_SECTORS, 0, NULL },
		{ "discard zero length", UBLK_IO_OP_DISCARD, 0, 0, -EIO, NULL },
		{ "discard past the end", UBLK_IO_OP_DISCARD, 1, DEV_SECTORS,
		  -EIO, NULL },
		{ "discard > 4 GiB", UBLK_IO_OP_DISCARD, 0, (UINT32_MAX >> 9) + 1,
		  -EIO, &huge },
		{ "discard 4 GiB - 512", UBLK_IO_OP_DISCARD, 0, UINT32_MAX >> 9,
		  0, &huge },
		{ "write zeroes", UBLK_IO_OP_WRITE_ZEROES, 8, 8, 0, NULL },
		{ "write same (unsupported)", UBLK_IO_OP_WRITE_SAME, 0, 1, -EIO,
		  NULL },
		{ "unknown op 6", 6, 0, 1, -EIO, NULL },
		{ "unknown op 0xff", 0xff, 0, 1, -EIO, NULL },
		{ "read on read-only", R, 0, 1, 0, &ro },
		{ "write on read-only", W, 0, 1, -EIO, &ro },
		{ "discard on read-only", UBLK_IO_OP_DISCARD, 0, 1, -EIO, &ro },
		{ "write zeroes on read-only", UBLK_IO_OP_WRITE_ZEROES, 0, 1,
		  -EIO, &ro },
		{ "4k: aligned", R, 8, 8, 0, &bs4k },
		{ "4k: unaligned start", R, 1, 8, -EIO, &bs4k },
		{ "4k: unaligned length", R, 8, 7, -EIO, &bs4k },
		{ "4k: last block", R, DEV_SECTORS - 8, 8, 0, &bs4k },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
}

/* The translation into struct vublk_req. */
static void test_translation(void)
{
	const unsigned ff = UBLK_IO_F_FAILFAST_DEV |
		UBLK_IO_F_FAILFAST_TRANSPORT | UBLK_IO_F_FAILFAST_DRIVER;
	struct ublksrv_io_desc iod = {
		.op_flags = UBLK_IO_OP_READ | ff, .nr_sectors = 16,
		.start_sector = 100,
	};
	struct vublk_req req;
	const char *why;

	check(ublk_validate_iod(&iod, &lim, &req, &why) == 0 &&
	      req.op == VUBLK_OP_READ && req.offset == 100 * 512 &&
	      req.len == 16 * 512 && req.flags == VUBLK_REQ_READAHEAD,
	      "readahead read translated");
	/* Two of the three failfast bits: not readahead. */
	iod.op_flags = UBLK_IO_OP_READ | UBLK_IO_F_FAILFAST_DEV |
		       UBLK_IO_F_FAILFAST_DRIVER;
	check(ublk_validate_iod(&iod, &lim, &req, &why) == 0 && req.flags == 0,
	      "partial failfast is not readahead");
	iod.op_flags = UBLK_IO_OP_WRITE | UBLK_IO_F_FUA;
	check(ublk_validate_iod(&iod, &lim, &req, &why) == 0 &&
	      req.op == VUBLK_OP_WRITE && req.flags == VUBLK_REQ_FUA,
	      "FUA write translated");
	iod.op_flags = UBLK_IO_OP_WRITE_ZEROES | UBLK_IO_F_NOUNMAP;
	check(ublk_validate_iod(&iod, &lim, &req, &why) == 0 &&
	      req.op == VUBLK_OP_WRITE_ZEROES && req.flags == VUBLK_REQ_NOUNMAP,
	      "NOUNMAP write-zeroes translated");
	/* FLUSH carries no range, whatever start_sector says. */
	iod = (struct ublksrv_io_desc){ .op_flags = UBLK_IO_OP_FLUSH,
					.start_sector = 1ULL << 60 };
	check(ublk_validate_iod(&iod, &lim, &req, &why) == 0 &&
	      req.op == VUBLK_OP_FLUSH && req.len == 0 && req.offset == 0,
	      "flush translated");
}

/* xorshift64: deterministic, so a failure reproduces. */
static uint64_t rnd(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* A value near one of the interesting boundaries, or anything. */
static uint64_t near(uint64_t *state, uint64_t edge)
{
	switch (rnd(state) % 4) {
	case 0: return edge + rnd(state) % 3 - 1;
	case 1: return rnd(state) % (edge + 2);
	case 2: return UINT64_MAX - rnd(state) % 4;
	default: return rnd(state);
	}
}

/*
 * Random descriptors around the edges: whatever is accepted must be safe
 * to execute without another check (the promise targets rely on).
 */
static void test_random(void)
{
	static const struct vublk_io_limits lims[] = {
		{ DEV_SECTORS, BUF_BYTES, 9, false, true },
		{ DEV_SECTORS, BUF_BYTES, 12, true, false },
		{ UINT64_MAX >> 9, 512 * 1024, 9, false, true },
	};
	uint64_t state = 0x9e3779b97f4a7c15ULL;
	unsigned i, accepted = 0;

	for (i = 0; i < 1000000; i++) {
		const struct vublk_io_limits *l = &lims[i % 3];
		struct ublksrv_io_desc iod = {
			.op_flags = (uint32_t)rnd(&state) & 0xffff0007U,
			.start_sector = near(&state, l->dev_sectors),
			.nr_sectors = (uint32_t)near(&state, l->max_io_bytes >> 9),
		};
		struct vublk_req req;
		const char *why;
		uint64_t dev_bytes = l->dev_sectors << 9;

		if (ublk_validate_iod(&iod, l, &req, &why) < 0)
			continue;
		accepted++;
		if (req.op > VUBLK_OP_WRITE_ZEROES ||
		    (req.op != VUBLK_OP_READ && req.op != VUBLK_OP_FLUSH &&
		     l->read_only) ||
		    (req.op != VUBLK_OP_FLUSH &&
		     (req.len == 0 || req.offset > dev_bytes ||
		      req.len > dev_bytes - req.offset ||
		      (req.offset | req.len) & ((1U << l->logical_bs_shift) - 1))) ||
		    ((req.op == VUBLK_OP_READ || req.op == VUBLK_OP_WRITE) &&
		     req.len > l->max_io_bytes)) {
			printf("FAIL random case %u: accepted op_flags %#x sector %llu nr %u\n",
			       i, iod.op_flags,
			       (unsigned long long)iod.start_sector, iod.nr_sectors);
			failures++;
			return;
		}
	}
	check(accepted > 1000, "random descriptors: almost none accepted");
}

int main(void)
{
	test_table();
	test_translation();
	test_random();
	if (failures) {
		printf("%d failure(s)\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
