// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmverity.c - the dm-verity images of verify and dump: a data file and
 * the hash area `veritysetup format` wrote (a superblock, unless
 * --no-superblock, then the tree), in a file of its own or in the data
 * file at --hash-offset.
 *
 * lib/merkle does the checking (merkle_dmv_open(), merkle_dmv_sb_parse(),
 * the checks of cryptsetup's lib/verity/verity.c and of the kernel); this
 * file opens the files and says, in one line, which file is wrong and why.
 * Nothing here trusts the superblock: it only says how to read the tree,
 * whose root hash the user gives.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vublk_verity.h"

/* "... at offset N": where a superblock was looked for. */
static void report_sb_error(const char *name, uint64_t offset, int err)
{
	vv_error("'%s': %s (superblock at offset %llu)", name,
		 merkle_strerror(err), (unsigned long long)offset);
}

/* The superblock at offset does not fit in size bytes: say how. */
static void report_no_sb_room(const char *name, uint64_t size,
			      uint64_t offset)
{
	if (offset >= size)
		vv_error("--hash-offset %llu is past the end of '%s' (%llu bytes): give the offset veritysetup format was given",
			 (unsigned long long)offset, name,
			 (unsigned long long)size);
	else
		vv_error("'%s' ends %llu bytes into the dm-verity superblock at offset %llu: it is truncated, or not that hash device",
			 name, (unsigned long long)(size - offset),
			 (unsigned long long)offset);
}

int vv_dmv_read_sb(const struct vv_file *f, uint64_t size, uint64_t offset,
		   struct merkle_params *params, uint8_t uuid[16])
{
	uint8_t sb[MERKLE_DMV_SB_SIZE];
	int err;

	if (offset > size || size - offset < sizeof(sb)) {
		report_no_sb_room(f->name, size, offset);
		return VV_EXIT_USAGE;
	}
	err = vv_pread_full(f->fd, sb, sizeof(sb), offset);
	if (err) {
		vv_error("error reading the dm-verity superblock of '%s' at offset %llu: %s",
			 f->name, (unsigned long long)offset,
			 vv_io_error_text(err));
		return VV_EXIT_USAGE;
	}
	err = merkle_dmv_sb_parse(sb, sizeof(sb), params, uuid);
	if (err) {
		report_sb_error(f->name, offset, err);
		return VV_EXIT_USAGE;
	}
	return VV_EXIT_OK;
}

/* Whether a and b are the same file (veritysetup format DATA DATA). */
static bool same_file(const struct vv_file *a, const struct vv_file *b)
{
	struct stat sa, sb;

	/* fstat() of an open file fails only on a kernel bug; then the
	 * files are taken as two, and only the overlap check is lost. */
	if (fstat(a->fd, &sa) || fstat(b->fd, &sb))
		return false;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* One line for a failed merkle_dmv_open() of img with cfg. */
static void report_open_error(const struct vv_dmv_image *img,
			      const struct merkle_dmv_config *cfg,
			      const struct vv_region *hash, int err)
{
	const char *hash_name = img->hash_file->name;
	const struct merkle_params *p = &img->params;
	struct merkle_geometry g;

	if (hash->error) {
		vv_error("error reading the dm-verity superblock of '%s' at offset %llu: %s",
			 hash_name, (unsigned long long)hash->error_off,
			 vv_io_error_text(hash->error));
		return;
	}
	switch (err) {
	case MERKLE_E_DMV_HASH_SHORT:
		if (!cfg->no_superblock &&
		    (cfg->hash_offset > img->hash_size ||
		     img->hash_size - cfg->hash_offset < MERKLE_DMV_SB_SIZE)) {
			report_no_sb_room(hash_name, img->hash_size,
					  cfg->hash_offset);
			return;
		}
		/* The parameters were read: name what the tree needs. */
		if (merkle_geometry_init(&g, p) == 0) {
			vv_error("'%s' (%llu bytes) is too small for the dm-verity tree of %llu bytes at offset %llu: truncated, or not that hash device",
				 hash_name, (unsigned long long)img->hash_size,
				 (unsigned long long)g.tree_size,
				 (unsigned long long)merkle_dmv_tree_offset(
					 cfg->hash_offset, !cfg->no_superblock,
					 p->log_blocksize));
			return;
		}
		break;
	case MERKLE_E_DMV_DATA_SHORT:
		vv_error("'%s' (%llu bytes) is smaller than its %llu dm-verity data blocks of %u bytes",
			 img->data.name, (unsigned long long)img->data_size,
			 (unsigned long long)(p->data_size >>
					      merkle_log_data_blocksize(p)),
			 1U << merkle_log_data_blocksize(p));
		return;
	case MERKLE_E_DMV_OVERLAP:
		vv_error("'%s': %s", img->data.name, merkle_strerror(err));
		return;
	case MERKLE_E_DMV_DATA_BLOCKS:
		if (cfg->no_superblock) {
			vv_error("'%s' (%llu bytes): %s", img->data.name,
				 (unsigned long long)img->data_size,
				 merkle_strerror(err));
			return;
		}
		break;
	default:
		break;
	}
	if (cfg->no_superblock)
		vv_error("'%s': %s", hash_name, merkle_strerror(err));
	else
		report_sb_error(hash_name, cfg->hash_offset, err);
}

int vv_dmv_open(const struct vv_dmv_options *o, const char *data_name,
		struct vv_dmv_image *img)
{
	struct merkle_dmv_config cfg = o->cfg;
	struct vv_region hash;
	int err;

	memset(img, 0, sizeof(*img));
	img->data.fd = -1;
	img->hash.fd = -1;
	img->hash_file = &img->data;
	if (!vv_open_sized(&img->data, data_name, &img->data_size))
		return VV_EXIT_USAGE;
	img->hash_size = img->data_size;
	if (o->hash_device) {
		if (!vv_open_sized(&img->hash, o->hash_device,
				   &img->hash_size)) {
			vv_close(&img->data);
			return VV_EXIT_USAGE;
		}
		if (!same_file(&img->data, &img->hash)) {
			img->hash_file = &img->hash;
		} else if (!vv_close(&img->hash)) {
			vv_close(&img->data);
			return VV_EXIT_USAGE;
		}
	}
	cfg.same_device = img->hash_file == &img->data;
	vv_region_init(&hash, img->hash_file, 0);
	err = merkle_dmv_open(&cfg, vv_region_read, &hash, img->hash_size,
			      img->data_size, &img->params, &img->tree_off);
	if (err) {
		report_open_error(img, &cfg, &hash, err);
		(void)vv_dmv_close(img);
		return VV_EXIT_USAGE;
	}
	return VV_EXIT_OK;
}

bool vv_dmv_close(struct vv_dmv_image *img)
{
	bool ok = vv_close(&img->hash);

	return vv_close(&img->data) && ok;
}

/*
 * Past the last hash in the last block of each level, the slots are
 * zeroes (veritysetup writes them so).  The root hash does not cover how
 * many data blocks there are, only the tree's bytes: a superblock that
 * says fewer blocks than the tree was made for would have its tree verify
 * all the same, with a hash in what should be spare slots.
 * `veritysetup verify` refuses that ("Spare area is not zeroed"); so does
 * this, once every data block has passed.  Returns VV_EXIT_OK,
 * VV_EXIT_FAILURE (a slot not zero) or VV_EXIT_USAGE (read error).
 */
int vv_dmv_check_spare(const struct vv_dmv_image *img, const char *data_name)
{
	struct merkle_geometry g;
	uint64_t below, used, last, off;
	uint8_t *buf;
	size_t spare, i;
	unsigned level;
	int err, status = VV_EXIT_OK;

	err = merkle_geometry_init(&g, &img->params);
	if (err) {
		vv_error("'%s': %s", data_name, merkle_strerror(err));
		return VV_EXIT_USAGE;
	}
	buf = malloc(g.block_size);
	if (!buf) {
		vv_error("out of memory checking the tree of '%s'", data_name);
		return VV_EXIT_USAGE;
	}
	below = g.data_blocks;
	for (level = 0; level < g.num_levels && status == VV_EXIT_OK; level++) {
		/* Hashes in the level's last block, and the bytes after. */
		used = below - (g.level_blocks[level] - 1) * g.hashes_per_block;
		spare = g.block_size - used * g.hash_stride;
		last = g.level_start[level] + g.level_blocks[level] - 1;
		off = img->tree_off + last * g.block_size +
		      used * g.hash_stride;
		below = g.level_blocks[level];
		if (!spare)
			continue;
		err = vv_pread_full(img->hash_file->fd, buf, spare, off);
		if (err) {
			vv_error("error reading the dm-verity tree of '%s' from '%s' at offset %llu: %s",
				 data_name, img->hash_file->name,
				 (unsigned long long)off, vv_io_error_text(err));
			status = VV_EXIT_USAGE;
			break;
		}
		for (i = 0; i < spare && !buf[i]; i++)
			;
		if (i < spare) {
			vv_error("'%s': the spare hash slots of level %u at offset %llu are not zero (as veritysetup verify says): the tree was made for more than the superblock's %llu data blocks, or is damaged",
				 img->hash_file->name, level,
				 (unsigned long long)(off + i),
				 (unsigned long long)g.data_blocks);
			status = VV_EXIT_FAILURE;
		}
	}
	free(buf);
	return status;
}
