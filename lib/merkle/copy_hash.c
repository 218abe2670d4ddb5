// SPDX-License-Identifier: GPL-2.0-only
/*
 * copy_hash.c - hash data blocks as they are copied out of a mapping.
 *
 * A server that has the image mapped (pmem, or the page cache) can hand
 * lib/merkle the mapped blocks themselves instead of reading them into its
 * buffer first: SHA-256's loads carry the copy (sha256_blocks_fn), so the
 * bytes cross the memory bus once, and what lands in the buffer is what
 * was hashed even if the mapping changes meanwhile (the kernel's
 * fs-verity never has that question: it verifies the page cache's own
 * pages, which nothing else writes while they are locked for the read).
 * docs/PERFORMANCE.md, "Hashing while copying", has the measurement.
 *
 * Mapped memory may fault (a file truncated under the server, pmem
 * poison), and the caller's SIGBUS guard then abandons the call where it
 * stands: hence the tree's own hasher, set up at open and only read here,
 * and only our own SHA-256 code, which neither allocates nor locks.
 */
#include <errno.h>

#include "merkle_private.h"

bool merkle_tree_can_copy_hash(const struct merkle_tree *t)
{
	return t->copy_hash;
}

int merkle_tree_copy_hash(const struct merkle_tree *t, uint8_t *const dst[],
			  const uint8_t *const src[], size_t n,
			  uint8_t *digests)
{
	if (!t->copy_hash)
		return -EOPNOTSUPP;
	merkle_hasher_sha256_ptrs(&t->copy_hasher, src, dst, n, digests);
	return 0;
}

/* At open: where t's data blocks go through our SHA-256 code, its
 * hasher. */
int merkle_tree_copy_hash_init(struct merkle_tree *t)
{
	int err;

	if (!merkle_params_sha_ni(&t->params))
		return 0;
	err = merkle_hasher_init(&t->copy_hasher, &t->params);
	t->copy_hash = !err;
	return err;
}

void merkle_tree_copy_hash_exit(struct merkle_tree *t)
{
	if (t->copy_hash)
		merkle_hasher_destroy(&t->copy_hasher);
	t->copy_hash = false;
}
