// SPDX-License-Identifier: GPL-2.0-only
/*
 * verify_blocks.c - check a run of data blocks and name every bad one.
 *
 * merkle_verify_blocks() stops at the first mismatch, as a read does in
 * the kernel (fs/verity/verify.c fails the whole bio).  A checker wants
 * all of them: report the bad block and resume right after it; no block
 * is hashed twice.
 */
#include "vublk_verity.h"

int vv_verify_blocks(struct merkle_tree *t, uint64_t first_block,
		     const uint8_t *buf, size_t nblocks, unsigned ra_blocks,
		     vv_bad_block_fn bad, void *ctx)
{
	/* block_size is a power of 2 from 1 KiB: its log is its ctz. */
	unsigned log_bs =
		(unsigned)__builtin_ctz(merkle_tree_geometry(t)->block_size);
	struct merkle_verify_result res;
	size_t done = 0;
	int err;

	while (done < nblocks) {
		err = merkle_verify_blocks(t, first_block + done,
					   buf + (done << log_bs),
					   nblocks - done, ra_blocks, &res);
		if (err != MERKLE_E_CORRUPT)
			return err;
		bad(ctx, res.block);
		done = res.block - first_block + 1;
	}
	return 0;
}
