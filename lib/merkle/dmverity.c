// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmverity.c - dm-verity's superblock and where its tree starts.
 *
 * Mirrors cryptsetup's lib/verity/verity.c: VERITY_read_sb() and
 * VERITY_hash_offset_block(); the tree itself is the one merkle.h
 * describes, hashed as drivers/md/dm-verity-target.c hashes it (hash
 * type 1: the salt first, as it is; type 0: the salt after the block).
 */
#include <endian.h>
#include <string.h>

#include "merkle_private.h"

/* cryptsetup's VERITY_BLOCK_SIZE_OK(): a power of 2, 512 B..512 KiB. */
static int merkle_dmv_log_blocksize(uint32_t size)
{
	if (size < (1u << MERKLE_DMV_MIN_LOG_BLOCKSIZE) ||
	    size > (1u << MERKLE_DMV_MAX_LOG_BLOCKSIZE) || (size & (size - 1)))
		return -1;
	return __builtin_ctz(size);
}

/*
 * The algorithm, by its NUL-padded name: one of ours (under any name
 * veritysetup's OpenSSL takes), usable here, or an error.
 */
static int merkle_dmv_alg(const struct merkle_dmv_sb *sb)
{
	char name[sizeof(sb->algorithm) + 1];
	int alg;

	memcpy(name, sb->algorithm, sizeof(sb->algorithm));
	name[sizeof(sb->algorithm)] = '\0';
	alg = merkle_dmv_hash_alg_from_name(name);
	if (alg < 0)
		return MERKLE_E_DMV_BAD_ALG;
	return merkle_hash_alg_usable((unsigned)alg) ? alg :
	       MERKLE_E_ALG_UNAVAILABLE;
}

/* Hash type 1, or Chrome OS's 0 (dm-verity-target.c: v->version). */
static enum merkle_format merkle_dmv_format(bool hash_type0)
{
	return hash_type0 ? MERKLE_FORMAT_DMVERITY_V0 : MERKLE_FORMAT_DMVERITY;
}

int merkle_dmv_sb_parse(const void *buf, size_t len, struct merkle_params *p,
			uint8_t uuid[16])
{
	struct merkle_dmv_sb sb;
	struct merkle_geometry g;
	int log_data, log_hash, alg;
	uint64_t blocks;

	if (len < sizeof(sb))
		return MERKLE_E_DMV_MAGIC;
	memcpy(&sb, buf, sizeof(sb));
	if (memcmp(sb.signature, "verity\0\0", sizeof(sb.signature)))
		return MERKLE_E_DMV_MAGIC;
	if (le32toh(sb.version) != 1)
		return MERKLE_E_DMV_VERSION;
	/* cryptsetup's VERITY_MAX_HASH_TYPE is 1. */
	if (le32toh(sb.hash_type) > 1)
		return MERKLE_E_DMV_HASH_TYPE;
	log_data = merkle_dmv_log_blocksize(le32toh(sb.data_block_size));
	log_hash = merkle_dmv_log_blocksize(le32toh(sb.hash_block_size));
	if (log_data < 0 || log_hash < 0)
		return MERKLE_E_DMV_BLOCKSIZE;
	alg = merkle_dmv_alg(&sb);
	if (alg < 0)
		return alg;
	if (le16toh(sb.salt_size) > sizeof(sb.salt))
		return MERKLE_E_DMV_SALT_SIZE;
	blocks = le64toh(sb.data_blocks);
	if (!blocks || blocks > UINT64_MAX >> log_data)
		return MERKLE_E_DMV_DATA_BLOCKS;

	memset(p, 0, sizeof(*p));
	p->format = merkle_dmv_format(le32toh(sb.hash_type) == 0);
	p->hash_alg = (unsigned)alg;
	p->log_blocksize = (unsigned)log_hash;
	p->log_data_blocksize = (unsigned)log_data;
	p->salt_size = le16toh(sb.salt_size);
	memcpy(p->salt, sb.salt, p->salt_size);
	p->data_size = blocks << log_data;
	if (merkle_geometry_init(&g, p))
		return MERKLE_E_DMV_DATA_BLOCKS;
	if (uuid)
		memcpy(uuid, sb.uuid, sizeof(sb.uuid));
	return 0;
}

uint64_t merkle_dmv_tree_offset(uint64_t hash_offset, bool superblock,
				unsigned log_blocksize)
{
	uint64_t bs = 1ull << log_blocksize;

	if (superblock)
		hash_offset += MERKLE_DMV_SB_SIZE + bs - 1;
	return hash_offset / bs * bs;
}

/* --no-superblock: the parameters as given, checked as a superblock's. */
static int merkle_dmv_from_config(const struct merkle_dmv_config *cfg,
				  uint64_t data_dev_size,
				  struct merkle_params *p)
{
	struct merkle_geometry g;
	uint64_t blocks;
	int err;

	/* Before the copy: cfg->salt holds no more than p->salt. */
	if (cfg->salt_size > sizeof(cfg->salt))
		return MERKLE_E_BAD_SALT_SIZE;
	memset(p, 0, sizeof(*p));
	p->format = merkle_dmv_format(cfg->hash_type0);
	p->hash_alg = cfg->hash_alg;
	p->log_blocksize = cfg->log_blocksize;
	p->log_data_blocksize = cfg->log_data_blocksize ?
				cfg->log_data_blocksize : cfg->log_blocksize;
	p->salt_size = cfg->salt_size;
	memcpy(p->salt, cfg->salt, cfg->salt_size);
	err = merkle_params_check(p);
	if (err)
		return err;
	blocks = cfg->data_blocks ? cfg->data_blocks :
		 data_dev_size >> p->log_data_blocksize;
	if (!blocks || blocks > UINT64_MAX >> p->log_data_blocksize)
		return MERKLE_E_DMV_DATA_BLOCKS;
	p->data_size = blocks << p->log_data_blocksize;
	return merkle_geometry_init(&g, p) ? MERKLE_E_DMV_DATA_BLOCKS : 0;
}

int merkle_dmv_open(const struct merkle_dmv_config *cfg,
		    merkle_read_fn read_hash, void *read_ctx,
		    uint64_t hash_dev_size, uint64_t data_dev_size,
		    struct merkle_params *p, uint64_t *tree_off)
{
	uint8_t sb[MERKLE_DMV_SB_SIZE];
	struct merkle_geometry g;
	uint64_t off;
	int err;

	if (cfg->hash_offset % 512)
		return MERKLE_E_DMV_HASH_OFFSET;
	if (cfg->no_superblock) {
		err = merkle_dmv_from_config(cfg, data_dev_size, p);
	} else {
		if (cfg->hash_offset > hash_dev_size ||
		    hash_dev_size - cfg->hash_offset < sizeof(sb))
			return MERKLE_E_DMV_HASH_SHORT;
		err = read_hash(read_ctx, sb, sizeof(sb), cfg->hash_offset);
		if (!err)
			err = merkle_dmv_sb_parse(sb, sizeof(sb), p, NULL);
	}
	if (!err)
		err = merkle_geometry_init(&g, p);
	if (err)
		return err;
	if (p->data_size > data_dev_size)
		return MERKLE_E_DMV_DATA_SHORT;
	off = merkle_dmv_tree_offset(cfg->hash_offset, !cfg->no_superblock,
				     p->log_blocksize);
	if (off > hash_dev_size || hash_dev_size - off < g.tree_size)
		return MERKLE_E_DMV_HASH_SHORT;
	/* dm-verity reads the hash area from hash_start on; on the data
	 * device it must lie past the data (veritysetup's own check). */
	if (cfg->same_device && p->data_size > cfg->hash_offset)
		return MERKLE_E_DMV_OVERLAP;
	*tree_off = off;
	return 0;
}
