// SPDX-License-Identifier: GPL-2.0-only
/*
 * verify_blocks.c - check data blocks against a Merkle tree and name
 * every bad one: a run of blocks (vv_verify_blocks(), also used by
 * `f2fs check`), and a whole pass over a file's data (vv_verify_data(),
 * the data half of `verify` for both of its formats).
 *
 * merkle_verify_blocks() stops at the first mismatch, as a read does in
 * the kernel (fs/verity/verify.c fails the whole bio).  A checker wants
 * all of them: report the bad block and resume right after it; no block
 * is hashed twice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "f2fslayout.h"
#include "vublk_verity.h"

/* Data read and verified per call: few syscalls, cache-friendly. */
#define VERIFY_BATCH_BYTES (1U << 20)
/* Hash blocks kept; a sequential pass needs one path plus readahead. */
#define VERIFY_CACHE_BYTES (16U << 20)
/* Level-0 blocks read ahead on a miss (sequential: always useful). */
#define VERIFY_READAHEAD_BLOCKS 32
/* Bad blocks listed without -v; a bad hash block can hide thousands. */
#define VERIFY_LISTED_BAD_BLOCKS 20

int vv_verify_blocks(struct merkle_tree *t, uint64_t first_block,
		     const uint8_t *buf, size_t nblocks, unsigned ra_blocks,
		     vv_bad_block_fn bad, void *ctx)
{
	/* data_block_size is a power of 2: its log is its ctz. */
	unsigned log_bs = (unsigned)__builtin_ctz(
		merkle_tree_geometry(t)->data_block_size);
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

/* A vv_bad_block_fn: name the block (the first few unless -v). */
static void report_bad_block(void *ctx, uint64_t block)
{
	struct vv_verify_pass *v = ctx;
	unsigned log_bs = merkle_log_data_blocksize(v->params);

	v->bad_blocks++;
	if (v->verbose || v->bad_blocks <= VERIFY_LISTED_BAD_BLOCKS)
		fprintf(stderr,
			"%s: data block %llu (offset %llu) does not match the Merkle tree\n",
			v->name, (unsigned long long)block,
			(unsigned long long)block << log_bs);
}

/* One line for a failed tree read or verification at data block first. */
static void report_verify_error(const struct vv_verify_pass *v,
				uint64_t first, int err)
{
	const struct vv_region *r = v->tree_region;

	if (r && r->error)
		vv_error("error reading the Merkle tree of '%s' from '%s' at offset %llu: %s",
			 v->name, r->name, (unsigned long long)r->error_off,
			 vv_io_error_text(r->error));
	else
		vv_error("can't verify '%s' at data block %llu: %s", v->name,
			 (unsigned long long)first, f2fslayout_strerror(err));
}

/* Read the data in batches, zero-padding the last block as the kernel
 * does for the page past i_size, and verify each batch. */
static bool verify_all_blocks(struct vv_verify_pass *v,
			      struct merkle_tree *tree, uint8_t *buf)
{
	uint64_t data_size = v->params->data_size;
	unsigned log_bs = merkle_log_data_blocksize(v->params);
	size_t batch_blocks = VERIFY_BATCH_BYTES >> log_bs;
	uint64_t first, off;
	size_t nblocks, len;
	int err;

	for (first = 0; first < v->data_blocks; first += nblocks) {
		nblocks = batch_blocks;
		if (nblocks > v->data_blocks - first)
			nblocks = v->data_blocks - first;
		off = first << log_bs;
		len = (size_t)nblocks << log_bs;
		if (len > data_size - off)
			len = data_size - off;
		err = vv_pread_full(v->fd, buf, len, off);
		if (err) {
			vv_error("error reading '%s' at offset %llu: %s",
				 v->name, (unsigned long long)off,
				 vv_io_error_text(err));
			return false;
		}
		memset(buf + len, 0, ((size_t)nblocks << log_bs) - len);
		err = vv_verify_blocks(tree, first, buf, nblocks,
				       VERIFY_READAHEAD_BLOCKS,
				       report_bad_block, v);
		if (err) {
			report_verify_error(v, first, err);
			return false;
		}
	}
	return true;
}

static void print_tree_stats(const struct vv_verify_pass *v,
			     const struct merkle_tree *tree)
{
	struct merkle_stats s;

	merkle_tree_stats(tree, &s);
	printf("%s: %llu data blocks verified, %llu failed; %llu tree reads of %llu hash blocks (%llu read ahead); cache %llu hits, %llu misses\n",
	       v->name, (unsigned long long)s.blocks_verified,
	       (unsigned long long)s.failures,
	       (unsigned long long)s.tree_reads,
	       (unsigned long long)s.tree_blocks_read,
	       (unsigned long long)s.blocks_read_ahead,
	       (unsigned long long)s.cache_hits,
	       (unsigned long long)s.cache_misses);
}

/*
 * Bad blocks found: when the tree's top block does not hash to the root
 * hash, say so, since then every block fails for that one reason (a wrong
 * root hash, or a damaged top block), not for its own data.  buf has room
 * for a block.  Only a diagnosis: when the block cannot be read or hashed,
 * the bad blocks already named stand on their own and nothing is added.
 */
static void report_root_mismatch(const struct vv_verify_pass *v,
				  const struct merkle_geometry *g,
				  uint8_t *buf)
{
	uint8_t top[MERKLE_MAX_DIGEST_SIZE];
	char want[2 * MERKLE_MAX_DIGEST_SIZE + 1];
	char have[2 * MERKLE_MAX_DIGEST_SIZE + 1];

	if (!g->num_levels ||
	    v->read_tree(v->read_ctx, buf, g->block_size, 0) ||
	    merkle_hash_blocks(v->params, buf, 1, top) ||
	    !memcmp(top, v->root_hash, g->digest_size))
		return;
	vv_bin2hex(v->root_hash, g->digest_size, want);
	vv_bin2hex(top, g->digest_size, have);
	vv_error("'%s': the root hash %s does not match the Merkle tree, whose top block hashes to %s: a wrong root hash, or a damaged top block",
		 v->name, want, have);
}

/* The end of the report of bad blocks; buf has room for a tree block. */
static int summarize_bad_blocks(const struct vv_verify_pass *v,
				const struct merkle_geometry *g, uint8_t *buf)
{
	if (!v->verbose && v->bad_blocks > VERIFY_LISTED_BAD_BLOCKS)
		fprintf(stderr,
			"%s: ... and %llu more bad data blocks (use -v to list them all)\n",
			v->name,
			(unsigned long long)(v->bad_blocks -
					     VERIFY_LISTED_BAD_BLOCKS));
	report_root_mismatch(v, g, buf);
	vv_error("'%s': %llu of %llu data blocks do not match the Merkle tree",
		 v->name, (unsigned long long)v->bad_blocks,
		 (unsigned long long)v->data_blocks);
	return VV_EXIT_FAILURE;
}

int vv_verify_data(struct vv_verify_pass *v)
{
	struct merkle_cache *cache = merkle_cache_new(VERIFY_CACHE_BYTES);
	uint8_t *buf = malloc(VERIFY_BATCH_BYTES);
	struct merkle_tree *tree = NULL;
	int status = VV_EXIT_USAGE;
	int err;

	v->bad_blocks = 0;
	if (!cache || !buf) {
		vv_error("out of memory verifying '%s'", v->name);
		goto out;
	}
	err = merkle_tree_open(&tree, v->params, v->root_hash, cache,
			       v->read_tree, v->read_ctx);
	if (err) {
		vv_error("can't open the Merkle tree of '%s': %s", v->name,
			 f2fslayout_strerror(err));
		goto out;
	}
	v->data_blocks = merkle_tree_geometry(tree)->data_blocks;
	if (verify_all_blocks(v, tree, buf)) {
		if (v->verbose)
			print_tree_stats(v, tree);
		status = v->bad_blocks ?
			 summarize_bad_blocks(v, merkle_tree_geometry(tree),
					      buf) :
			 VV_EXIT_OK;
	}
	merkle_tree_close(tree);
out:
	free(buf);
	merkle_cache_free(cache);
	return status;
}
