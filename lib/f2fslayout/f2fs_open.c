// SPDX-License-Identifier: GPL-2.0-only
/*
 * f2fs_open.c - open an f2fs image: superblock, then checkpoint (the
 * order of f2fs_fill_super()), and the block reads everything else uses.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "f2fs_private.h"

int f2fs_read_block(const struct f2fslayout_fs *fs, uint32_t blkaddr,
		    uint8_t *block)
{
	if (blkaddr >= fs->info.block_count)
		return F2FSLAYOUT_E_F2FS_BLOCK_ADDR;
	return f2fs_pread(fs, block, F2FS_BLKSIZE,
			  (uint64_t)blkaddr * F2FS_BLKSIZE);
}

/* f2fs_is_valid_blkaddr(DATA_GENERIC): MAIN_BLKADDR <= a < MAX_BLKADDR. */
bool f2fs_valid_main_blkaddr(const struct f2fslayout_fs *fs,
			     uint32_t blkaddr)
{
	return blkaddr >= fs->main_blkaddr && blkaddr < fs->max_blkaddr;
}

/* fs, allocated and given its reads, has its superblock and checkpoint
 * read; *out is fs then, or NULL and fs freed. */
static int f2fs_open(struct f2fslayout_fs *fs, uint64_t image_size,
		     struct f2fslayout_fs **out)
{
	int err = f2fs_read_super(fs, image_size);

	if (err) {
		f2fslayout_fs_close(fs);
		return err;
	}
	*out = fs;
	return 0;
}

int f2fslayout_fs_open(int fd, struct f2fslayout_fs **out)
{
	struct f2fslayout_fs *fs;
	uint64_t image_size;
	int err;

	*out = NULL;
	err = f2fslayout_image_size(fd, &image_size);
	if (err)
		return err;
	fs = calloc(1, sizeof(*fs));
	if (!fs)
		return -ENOMEM;
	fs->fd = fd;
	fs->read = f2fslayout_read_fd;
	fs->read_ctx = &fs->fd;
	return f2fs_open(fs, image_size, out);
}

int f2fslayout_fs_open_from(f2fslayout_read_fn read_fn, void *ctx,
			    uint64_t image_size, struct f2fslayout_fs **out)
{
	struct f2fslayout_fs *fs = calloc(1, sizeof(*fs));

	*out = NULL;
	if (!fs)
		return -ENOMEM;
	fs->fd = -1;
	fs->read = read_fn;
	fs->read_ctx = ctx;
	return f2fs_open(fs, image_size, out);
}

void f2fslayout_fs_close(struct f2fslayout_fs *fs)
{
	if (!fs)
		return;
	free(fs->nat_bitmap);
	free(fs);
}

void f2fslayout_fs_get_info(const struct f2fslayout_fs *fs,
			    struct f2fslayout_fs_info *info)
{
	*info = fs->info;
}
