// SPDX-License-Identifier: GPL-2.0-only
/*
 * validate.c - check a request from the kernel once, at dispatch.
 *
 * The iod array is written by the kernel, but the server must not trust it
 * blindly: a bug (ours in SET_PARAMS, or the driver's) must turn into -EIO,
 * never into a read or write outside the backing store or the tag's
 * buffer.  It is checked here, once, and nowhere else: targets copy
 * without re-checking.  That is the principle of the pmem driver's "Bypass
 * CONFIG_HARDENED_USERCOPY overhead" change (drivers/nvdimm/pmem.c, commit
 * "libnvdimm/pmem: Bypass CONFIG_HARDENED_USERCOPY overhead"): the range
 * was already validated by dax_iomap_actor(), so the copy path need not
 * validate it again.
 */
#include <errno.h>

#include "validate.h"

struct vublk_io_limits ublk_io_limits(const struct vublk_tgt *t,
				      uint32_t max_io_bytes)
{
	return (struct vublk_io_limits){
		.dev_sectors = t->dev_size >> 9,
		.max_io_bytes = max_io_bytes,
		.logical_bs_shift = t->logical_bs_shift,
		.read_only = t->read_only,
		.discard = t->discard && !t->read_only,
	};
}

/* The op byte of the iod -> enum vublk_op, or -1 for an op we don't do. */
static int ublk_op_to_vublk(unsigned ublk_op)
{
	switch (ublk_op) {
	case UBLK_IO_OP_READ:
		return VUBLK_OP_READ;
	case UBLK_IO_OP_WRITE:
		return VUBLK_OP_WRITE;
	case UBLK_IO_OP_FLUSH:
		return VUBLK_OP_FLUSH;
	case UBLK_IO_OP_DISCARD:
		return VUBLK_OP_DISCARD;
	case UBLK_IO_OP_WRITE_ZEROES:
		return VUBLK_OP_WRITE_ZEROES;
	default:
		return -1;	/* WRITE_SAME, zoned ops, unknown */
	}
}

/* ublk_drv.c: ublk_req_build_flags() -> VUBLK_REQ_*. */
static unsigned ublk_flags_to_vublk(unsigned ublk_flags)
{
	const unsigned failfast_all = UBLK_IO_F_FAILFAST_DEV |
		UBLK_IO_F_FAILFAST_TRANSPORT | UBLK_IO_F_FAILFAST_DRIVER;
	unsigned flags = 0;

	if (ublk_flags & UBLK_IO_F_FUA)
		flags |= VUBLK_REQ_FUA;
	if ((ublk_flags & failfast_all) == failfast_all)
		flags |= VUBLK_REQ_READAHEAD;
	if (ublk_flags & UBLK_IO_F_NOUNMAP)
		flags |= VUBLK_REQ_NOUNMAP;
	return flags;
}

/* Range and length rules of the ops that carry a sector range. */
static const char *ublk_check_range(const struct ublksrv_io_desc *iod,
				    const struct vublk_io_limits *lim,
				    int op)
{
	uint64_t start = iod->start_sector, n = iod->nr_sectors;
	/* vublk update-size moves it while queues run (control.c). */
	uint64_t dev_sectors = __atomic_load_n(&lim->dev_sectors,
					       __ATOMIC_ACQUIRE);
	uint64_t align = (1ULL << (lim->logical_bs_shift - 9)) - 1;

	if (n == 0)
		return "zero length";
	/* start + n <= dev_sectors, written so it cannot overflow. */
	if (start > dev_sectors || n > dev_sectors - start)
		return "range past the end of the device";
	if ((start | n) & align)
		return "range not aligned to the logical block size";
	if (op == VUBLK_OP_READ || op == VUBLK_OP_WRITE) {
		if (n > lim->max_io_bytes >> 9)
			return "longer than the request buffer";
	} else if (n > UINT32_MAX >> 9) {
		return "longer than 4 GiB";	/* req->len is 32 bits */
	}
	return NULL;
}

/* Rules of the op itself, against what the device allows. */
static const char *ublk_check_op(int op, const struct vublk_io_limits *lim)
{
	if (op < 0)
		return "unknown or unsupported op";
	if (op != VUBLK_OP_READ && op != VUBLK_OP_FLUSH && lim->read_only)
		return "write to a read-only device";
	if ((op == VUBLK_OP_DISCARD || op == VUBLK_OP_WRITE_ZEROES) &&
	    !lim->discard)
		return "discard/write-zeroes on a device without discard";
	return NULL;
}

/* *why is written only on failure: this runs for every request. */
int ublk_validate_iod(const struct ublksrv_io_desc *iod,
		      const struct vublk_io_limits *lim,
		      struct vublk_req *req, const char **why)
{
	int op = ublk_op_to_vublk(ublksrv_get_op(iod));
	const char *broken = ublk_check_op(op, lim);

	/* FLUSH carries no range (blk_rq_sectors() is 0). */
	if (!broken && op != VUBLK_OP_FLUSH)
		broken = ublk_check_range(iod, lim, op);
	if (broken) {
		*why = broken;
		return -EIO;
	}

	req->op = op;
	/* UBLK_IO_F_* are defined at their bit position in op_flags. */
	req->flags = ublk_flags_to_vublk(iod->op_flags);
	req->offset = op == VUBLK_OP_FLUSH ? 0 : iod->start_sector << 9;
	req->len = op == VUBLK_OP_FLUSH ? 0 : iod->nr_sectors << 9;
	req->buf = NULL;
	return 0;
}
