// SPDX-License-Identifier: GPL-2.0-only
/*
 * f2fs_file.c - a regular file of an f2fs image: its extents, and reads
 * through them.
 *
 * A file's bytes are its inline data (F2FS_INLINE_DATA: inside the inode,
 * after one reserved word, at most MAX_INLINE_DATA bytes; inline.c) or its
 * blocks (f2fs_map.c).  A verity file also has blocks past EOF: the
 * Merkle tree from round_up(i_size, 64 KiB) and then the descriptor
 * (fs/f2fs/verity.c); its map reaches the block holding the descriptor's
 * last byte.  Encrypted and compressed files are not mapped: their blocks
 * do not hold the file's bytes, and reading them as if they did would be
 * a guess.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "f2fs_private.h"

size_t f2fs_find_extent(const struct f2fslayout_extent *v, size_t n,
			uint64_t off)
{
	size_t lo = 0, hi = n;

	if (!n || off >= v[n - 1].file_off + v[n - 1].len)
		return n;
	/* The last extent starting at or before off. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].file_off <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

size_t f2fslayout_file_find_extent(const struct f2fslayout_file *f,
				   uint64_t off)
{
	return f2fs_find_extent(f->extents, f->nr_extents, off);
}

/* Inline data: one extent inside the inode block, size bytes long. */
static int map_inline(const struct f2fs_inode_info *ii,
		      struct f2fslayout_file *f)
{
	if (ii->size > f2fs_max_inline_data(ii))
		return F2FSLAYOUT_E_F2FS_INODE_INVALID;
	f->mapped_size = ii->size;
	if (!ii->size)
		return 0;
	f->extents = malloc(sizeof(*f->extents));
	if (!f->extents)
		return -ENOMEM;
	f->extents[0] = (struct f2fslayout_extent){
		.file_off = 0,
		.len = ii->size,
		.image_off = (uint64_t)ii->node_blkaddr * F2FS_BLKSIZE +
			     f2fs_inline_data_offset(ii),
	};
	f->nr_extents = 1;
	return 0;
}

/*
 * The bytes to map: i_size, and for a verity file up to the end of its
 * descriptor.  A verity location that does not check out maps nothing
 * more; f2fslayout_file_verity() then reports it.
 */
static uint64_t bytes_to_map(const struct f2fslayout_fs *fs,
			     const struct f2fs_inode_info *ii)
{
	uint64_t pos;
	uint32_t size;

	if (!(ii->advise & FADVISE_VERITY_BIT) ||
	    f2fs_verity_location(fs, ii, &pos, &size))
		return ii->size;
	return pos + size > ii->size ? pos + size : ii->size;
}

static int map_file(const struct f2fslayout_fs *fs,
		    const struct f2fs_inode_info *ii,
		    struct f2fslayout_file *f)
{
	struct f2fs_extent_list l = { 0 };
	uint64_t bytes = bytes_to_map(fs, ii);
	uint64_t nblocks = bytes / F2FS_BLKSIZE + !!(bytes % F2FS_BLKSIZE);
	int err;

	err = f2fs_map_blocks(fs, ii, nblocks, &l);
	if (err) {
		free(l.v);
		return err;
	}
	f->extents = l.v;
	f->nr_extents = l.n;
	f->mapped_size = nblocks * F2FS_BLKSIZE;
	return 0;
}

int f2fslayout_file_open(struct f2fslayout_fs *fs, uint32_t ino,
			 struct f2fslayout_file *f)
{
	struct f2fs_inode_info *ii = malloc(sizeof(*ii));
	int err;

	memset(f, 0, sizeof(*f));
	if (!ii)
		return -ENOMEM;
	err = f2fs_read_inode(fs, ino, ii);
	if (!err && !is_reg_mode(ii->mode))
		err = F2FSLAYOUT_E_F2FS_NOT_REGULAR;
	if (!err) {
		f->ino = ino;
		f->mode = ii->mode;
		f->size = ii->size;
		f->flags = (ii->advise & FADVISE_VERITY_BIT ?
				    F2FSLAYOUT_FILE_VERITY : 0) |
			   (ii->inline_flags & F2FS_INLINE_DATA ?
				    F2FSLAYOUT_FILE_INLINE_DATA : 0);
		if (ii->advise & FADVISE_ENCRYPT_BIT)
			err = F2FSLAYOUT_E_F2FS_ENCRYPTED;
		else if (ii->flags & F2FS_COMPR_FL)
			err = F2FSLAYOUT_E_F2FS_COMPRESSED;
		else if (f->flags & F2FSLAYOUT_FILE_INLINE_DATA)
			err = map_inline(ii, f);
		else
			err = map_file(fs, ii, f);
	}
	free(ii);
	if (err) {
		/* What the inode said stays: the caller can tell what it
		 * skipped. */
		free(f->extents);
		f->extents = NULL;
		f->nr_extents = 0;
		f->mapped_size = 0;
	}
	return err;
}

void f2fslayout_file_release(struct f2fslayout_file *f)
{
	free(f->extents);
	memset(f, 0, sizeof(*f));
}

int f2fslayout_file_pread(const struct f2fslayout_fs *fs,
			  const struct f2fslayout_file *f, void *buf,
			  size_t len, uint64_t off)
{
	uint8_t *p = buf;
	size_t i;
	int err;

	if (off > f->mapped_size || len > f->mapped_size - off)
		return F2FSLAYOUT_E_F2FS_RANGE;
	for (i = f2fslayout_file_find_extent(f, off); len; i++) {
		const struct f2fslayout_extent *e = &f->extents[i];
		uint64_t in_extent = off - e->file_off;
		size_t n = e->len - in_extent < len ? e->len - in_extent : len;

		if (e->image_off == F2FSLAYOUT_HOLE) {
			memset(p, 0, n);
		} else {
			err = f2fs_pread(fs, p, n, e->image_off + in_extent);
			if (err)
				return err;
		}
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

int f2fslayout_file_tree_read(void *ctx, void *buf, size_t len, uint64_t off)
{
	const struct f2fslayout_file_tree_io *io = ctx;

	if (off > io->tree_size || len > io->tree_size - off)
		return F2FSLAYOUT_E_TREE_RANGE;
	return f2fslayout_file_pread(io->fs, io->file, buf, len,
				     io->tree_pos + off);
}
