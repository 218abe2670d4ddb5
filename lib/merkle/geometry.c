// SPDX-License-Identifier: GPL-2.0-only
/*
 * geometry.c - the shape of a Merkle tree.
 *
 * Mirrors fs/verity/open.c: fsverity_init_merkle_tree_params().
 */
#include <string.h>

#include "merkle_private.h"

int merkle_geometry_init(struct merkle_geometry *g,
			 const struct merkle_params *p)
{
	uint64_t blocks_in_level[MERKLE_MAX_LEVELS];
	uint64_t blocks, offset;
	int err = merkle_params_check(p);

	if (err)
		return err;
	memset(g, 0, sizeof(*g));
	g->digest_size = merkle_digest_size(p->hash_alg);
	g->block_size = 1u << p->log_blocksize;
	g->data_block_size = p->log_data_blocksize ?
			     1u << p->log_data_blocksize : g->block_size;
	/*
	 * A power of 2 of hashes per block, each in an equal stride
	 * (drivers/md/dm-verity-target.c: hash_per_block_bits =
	 * __fls(block size / digest size)); fs-verity's digest sizes are
	 * powers of 2, so there the stride is the digest.  Hash type 0
	 * packs them (verity_hash_at_level(): offset = idx * digest_size
	 * when !v->version).
	 */
	g->log_arity = 31 - (unsigned)__builtin_clz(g->block_size /
						    g->digest_size);
	g->hashes_per_block = 1u << g->log_arity;
	g->hash_stride = p->format == MERKLE_FORMAT_DMVERITY_V0 ?
			 g->digest_size : g->block_size >> g->log_arity;
	g->data_blocks = p->data_size / g->data_block_size +
			 (p->data_size % g->data_block_size != 0);

	/*
	 * Each level hashes the one below until a level fits in one block.
	 * The kernel refuses trees deeper than FS_VERITY_MAX_LEVELS (-EFBIG).
	 */
	blocks = g->data_blocks;
	while (blocks > 1) {
		if (g->num_levels >= MERKLE_MAX_LEVELS)
			return MERKLE_E_TOO_MANY_LEVELS;
		blocks = (blocks + g->hashes_per_block - 1) >> g->log_arity;
		blocks_in_level[g->num_levels++] = blocks;
	}

	/* The top level is stored first, level 0 last. */
	offset = 0;
	for (int level = (int)g->num_levels - 1; level >= 0; level--) {
		g->level_start[level] = offset;
		g->level_blocks[level] = blocks_in_level[level];
		offset += blocks_in_level[level];
	}
	g->tree_size = offset << p->log_blocksize;
	return 0;
}
