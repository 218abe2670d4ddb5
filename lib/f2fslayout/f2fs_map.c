// SPDX-License-Identifier: GPL-2.0-only
/*
 * f2fs_map.c - a file's block addresses, through its node tree, as runs.
 *
 * get_node_path() (fs/f2fs/node.c) lays a file's blocks out as: the
 * inode's own addrs_per_inode addresses, then two direct nodes (1018
 * addresses each), two indirect nodes (1018 direct nodes each) and one
 * double indirect node.  Each node block carries its offset in that tree
 * in its footer: 0 for the inode, 1 and 2 for the direct nodes, 3 and
 * 4 + 1018 for the indirect ones, 5 + 2 x 1018 for the double indirect;
 * below an indirect node at offset P, child i is at P + 1 + i x (nodes
 * in a child's subtree).  f2fs_read_node() checks every footer against
 * that, so that each node can only stand at its own place.
 *
 * A node id of 0 is a hole over its whole subtree; NULL_ADDR and NEW_ADDR
 * are holes of one block (the read path zero-fills both:
 * __is_valid_data_blkaddr()); any other address must be in the main area
 * (f2fs_is_valid_blkaddr(DATA_GENERIC)).  COMPRESS_ADDR only belongs in
 * compressed files, which are not mapped.
 */

#include <errno.h>
#include <stdlib.h>

#include "f2fs_private.h"

/* Nodes in the subtree of a direct, indirect and double indirect node. */
static const uint64_t subtree_nodes[] = { 1, 1 + NIDS_PER_BLOCK };

struct map_ctx {
	const struct f2fslayout_fs *fs;
	uint32_t ino;
	uint64_t nblocks;	/* map [0, nblocks) */
	uint64_t next;		/* the next block to map */
	struct f2fs_extent_list *out;
};

static int grow(struct f2fs_extent_list *l)
{
	size_t cap = l->cap ? 2 * l->cap : 16;
	struct f2fslayout_extent *v;

	if (l->n == l->max)
		return F2FSLAYOUT_E_F2FS_TOO_FRAGMENTED;
	if (cap > l->max)
		cap = l->max;
	v = realloc(l->v, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	l->v = v;
	l->cap = cap;
	return 0;
}

/* Append blocks file blocks at image_off (or a hole), merging runs. */
static int push(struct map_ctx *c, uint64_t blocks, uint64_t image_off)
{
	struct f2fs_extent_list *l = c->out;
	struct f2fslayout_extent *last = l->n ? &l->v[l->n - 1] : NULL;
	uint64_t len;
	int err;

	if (blocks > c->nblocks - c->next)
		blocks = c->nblocks - c->next;
	len = blocks * F2FS_BLKSIZE;
	c->next += blocks;
	if (last && (last->image_off == F2FSLAYOUT_HOLE ?
			     image_off == F2FSLAYOUT_HOLE :
			     image_off == last->image_off + last->len)) {
		last->len += len;
		return 0;
	}
	if (l->n == l->cap) {
		err = grow(l);
		if (err)
			return err;
	}
	l->v[l->n++] = (struct f2fslayout_extent){
		.file_off = (c->next - blocks) * F2FS_BLKSIZE,
		.len = len,
		.image_off = image_off,
	};
	return 0;
}

static int map_addrs(struct map_ctx *c, const uint8_t *addrs, unsigned count)
{
	int err = 0;

	for (unsigned i = 0; i < count && c->next < c->nblocks && !err; i++) {
		uint32_t a = get_le32(addrs + 4 * i);

		if (a == NULL_ADDR || a == NEW_ADDR)
			err = push(c, 1, F2FSLAYOUT_HOLE);
		else if (!f2fs_valid_main_blkaddr(c->fs, a))
			err = F2FSLAYOUT_E_F2FS_BLOCK_ADDR;
		else
			err = push(c, 1, (uint64_t)a * F2FS_BLKSIZE);
	}
	return err;
}

/*
 * Node nid at node offset ofs: a direct node (depth 0) or an indirect
 * node whose children are depth - 1; span is the blocks it covers.
 */
static int map_node(struct map_ctx *c, uint32_t nid, unsigned depth,
		    uint64_t ofs, uint64_t span)
{
	uint8_t block[F2FS_BLKSIZE];
	uint64_t child_span = span / NIDS_PER_BLOCK;
	int err;

	if (nid == 0)
		return push(c, span, F2FSLAYOUT_HOLE);
	err = f2fs_read_node(c->fs, nid, c->ino, (uint32_t)ofs, block, NULL);
	if (err)
		return err;
	if (depth == 0)
		return map_addrs(c, block, ADDRS_PER_BLOCK);
	for (unsigned i = 0; i < NIDS_PER_BLOCK && c->next < c->nblocks &&
			     !err; i++)
		err = map_node(c, get_le32(block + 4 * i), depth - 1,
			       ofs + 1 + i * subtree_nodes[depth - 1],
			       child_span);
	return err;
}

int f2fs_map_blocks(const struct f2fslayout_fs *fs,
		    const struct f2fs_inode_info *ii, uint64_t nblocks,
		    struct f2fs_extent_list *out)
{
	/* i_nid[]: two direct, two indirect, one double indirect node. */
	static const unsigned depth[DEF_NIDS_PER_INODE] = { 0, 0, 1, 1, 2 };
	static const uint64_t ofs[DEF_NIDS_PER_INODE] = {
		1, 2, 3, 4 + NIDS_PER_BLOCK, 5 + 2 * NIDS_PER_BLOCK,
	};
	uint64_t span = ADDRS_PER_BLOCK;
	struct map_ctx c = {
		.fs = fs, .ino = ii->ino, .nblocks = nblocks, .out = out,
	};
	int err;

	/* Alternating holes and runs: no honest file has more extents. */
	out->max = 2 * (size_t)fs->info.block_count + 2;
	if (nblocks > f2fs_max_file_blocks(ii))
		return F2FSLAYOUT_E_F2FS_FILE_TOO_LARGE;
	err = map_addrs(&c, ii->block + I_ADDR + 4 * ii->extra_words,
			ii->addrs_per_inode);
	for (unsigned i = 0; i < DEF_NIDS_PER_INODE && c.next < nblocks &&
			     !err; i++) {
		if (i == 2 || i == 4)
			span *= NIDS_PER_BLOCK;
		err = map_node(&c, ii->nids[i], depth[i], ofs[i], span);
	}
	return err;
}
