// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_request_validation.c - the daemon's check of ublk requests.
 *
 * ublk_validate_iod() (daemon/ublk_validate.c) is the only thing between
 * an iod written by the kernel (or by a buggy driver) and targets that
 * copy without re-checking.  Here the iod is arbitrary and the device
 * limits are any the server could set up.
 *
 * Input: the iod (op_flags le32, nr_sectors le32, start_sector le64,
 * addr le64), then dev_sectors le64, max_io_bytes le32, one byte of
 * logical block size shift (9..12) and one of read_only / discard bits.
 *
 * Oracle (abort() otherwise): a rejected request says why and returns
 * -EIO; an accepted one has a known op, is allowed on this device, and
 * for the ops with a range: non-empty, aligned to the logical block size,
 * offset + len <= device size without overflow, len exactly
 * nr_sectors * 512, and len <= the request buffer for READ and WRITE.
 */
#include <errno.h>

#include "fuzz_input.h"
#include "validate.h"

/* The limits a server can have: vublk_tgt.dev_size is in bytes (64-bit),
 * so dev_sectors < 2^55; logical_bs_shift is 9..12 (target.h). */
static void take_limits(struct fuzz_input *in, struct vublk_io_limits *lim)
{
	unsigned bits;

	lim->dev_sectors = fuzz_take_le(in, 8) >> 9;
	lim->max_io_bytes = (uint32_t)fuzz_take_le(in, 4);
	lim->logical_bs_shift = 9 + (unsigned)fuzz_take_le(in, 1) % 4;
	bits = (unsigned)fuzz_take_le(in, 1);
	lim->read_only = bits & 1;
	lim->discard = bits & 2;
}

static bool op_known(unsigned op)
{
	return op == VUBLK_OP_READ || op == VUBLK_OP_WRITE ||
	       op == VUBLK_OP_FLUSH || op == VUBLK_OP_DISCARD ||
	       op == VUBLK_OP_WRITE_ZEROES;
}

static void check_accepted(const struct ublksrv_io_desc *iod,
			   const struct vublk_io_limits *lim,
			   const struct vublk_req *req)
{
	unsigned __int128 end, dev_bytes = (unsigned __int128)lim->dev_sectors
					   << 9;
	uint32_t lbs = 1u << lim->logical_bs_shift;

	FUZZ_CHECK(op_known(req->op));
	if (lim->read_only)
		FUZZ_CHECK(req->op == VUBLK_OP_READ ||
			   req->op == VUBLK_OP_FLUSH);
	if (req->op == VUBLK_OP_DISCARD || req->op == VUBLK_OP_WRITE_ZEROES)
		FUZZ_CHECK(lim->discard);
	if (req->op == VUBLK_OP_FLUSH) {
		FUZZ_CHECK(req->len == 0);
		return;
	}
	FUZZ_CHECK(req->len > 0);
	FUZZ_CHECK((uint64_t)req->len == (uint64_t)iod->nr_sectors << 9);
	FUZZ_CHECK((unsigned __int128)req->offset ==
		   (unsigned __int128)iod->start_sector << 9);
	end = (unsigned __int128)req->offset + req->len;
	FUZZ_CHECK(end <= dev_bytes);
	FUZZ_CHECK(req->offset % lbs == 0 && req->len % lbs == 0);
	if (req->op == VUBLK_OP_READ || req->op == VUBLK_OP_WRITE)
		FUZZ_CHECK(req->len <= lim->max_io_bytes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ublksrv_io_desc iod;
	struct vublk_io_limits lim;
	struct vublk_req req;
	struct fuzz_input in;
	const char *why = NULL;
	int err;

	fuzz_input_init(&in, data, size);
	iod.op_flags = (uint32_t)fuzz_take_le(&in, 4);
	iod.nr_sectors = (uint32_t)fuzz_take_le(&in, 4);
	iod.start_sector = fuzz_take_le(&in, 8);
	iod.addr = fuzz_take_le(&in, 8);
	take_limits(&in, &lim);

	err = ublk_validate_iod(&iod, &lim, &req, &why);
	if (err) {
		FUZZ_CHECK(err == -EIO);
		FUZZ_CHECK(why != NULL && why[0] != '\0');
	} else {
		FUZZ_CHECK(why == NULL);
		check_accepted(&iod, &lim, &req);
	}
	return 0;
}
