/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * validate.h - the one check of every request from the kernel
 * (core/validate.c), for the server and for what measures or fuzzes it.
 */
#ifndef VUBLK_VALIDATE_H
#define VUBLK_VALIDATE_H

#include <stdbool.h>
#include <stdint.h>

#include "target.h"
#include "ublk_compat.h"

/* What a request is checked against; fixed for the device's lifetime. */
struct vublk_io_limits {
	uint64_t dev_sectors;		/* device size in 512-byte sectors */
	uint32_t max_io_bytes;		/* the per-tag buffer */
	unsigned logical_bs_shift;	/* requests are aligned to it */
	bool read_only;
	bool discard;			/* DISCARD / WRITE_ZEROES allowed */
};

/* The limits of a device serving t with request buffers of max_io_bytes
 * (the kernel's max_io_buf_bytes). */
struct vublk_io_limits ublk_io_limits(const struct vublk_tgt *t,
				      uint32_t max_io_bytes);

/*
 * Check one iod from the kernel and translate it into *req (all but buf).
 * Returns 0, or -EIO with *why naming the broken rule (*why is left alone
 * on success).
 */
int ublk_validate_iod(const struct ublksrv_io_desc *iod,
		      const struct vublk_io_limits *lim,
		      struct vublk_req *req, const char **why);

#endif /* VUBLK_VALIDATE_H */
