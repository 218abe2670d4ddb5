// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_dmverity_sb.c - hostile dm-verity superblocks and hash areas.
 *
 * What a user's hash device (or whoever wrote it) controls: the 512-byte
 * superblock `veritysetup format` writes at --hash-offset, the device's
 * size, and, with --no-superblock, what the command line says instead.
 * The bytes go through merkle_dmv_sb_parse() on their own and through
 * merkle_dmv_open() over an in-memory hash device, as `vublk-verity
 * verify --format=dm-verity` opens one; an image that opens then has its
 * first data block verified against its tree (all zeroes but what the
 * input put there), as the tool's pass would start.
 *
 * Input:
 *   0       flags: bit 0 = --no-superblock (the parameters below), bit 1 =
 *           the hash area is on the data device, bit 2 = derive the device
 *           sizes from the parameters (so that most inputs get past the
 *           size checks), bit 3 = add byte 3 to the hash offset (not a
 *           multiple of 512 unless it is 0)
 *   1..2    hash offset in 512-byte sectors, le16
 *   3       see bit 3
 *   4..11   hash device size, le64; with bit 2 its low bit is taken off
 *           the derived size (one byte short of the tree)
 *   12..19  data device size, le64; with bit 2 the low byte is added to
 *           the derived size
 *   20      --no-superblock's algorithm (MERKLE_HASH_*, raw)
 *   21      --no-superblock's log2 of the block size (raw)
 *   22..29  --no-superblock's data blocks, le64 (0: the whole device)
 *   30..31  --no-superblock's salt size, le16, any (its bytes: a pattern;
 *           a size over 256 must be refused before they are copied)
 *   32..    the hash device from the hash offset on (the superblock, then
 *           the tree); every other byte of the device reads as zero
 *
 * Oracle: no crash, no read outside the hash device, every error has its
 * own message, the superblock parser and merkle_dmv_open() agree, and
 * whatever is accepted lies within the devices: the tree on the hash
 * device past the superblock, the data blocks on the data device, apart
 * from each other on one device, with parameters the tree code can use.
 */
#include <endian.h>

#include "fuzz_input.h"
#include "merkle.h"

#define FLAG_NO_SUPERBLOCK (1u << 0)
#define FLAG_SAME_DEVICE (1u << 1)
#define FLAG_DERIVE_SIZES (1u << 2)
#define FLAG_UNALIGNED_OFFSET (1u << 3)
#define FLAG_HASH_TYPE0 (1u << 4)
/* Trees up to this size get their first data block verified. */
#define MAX_VERIFIED_TREE (1u << 20)

/* The hash device: bytes at offset 'at', zeroes elsewhere, 'size' long. */
struct mem_dev {
	const uint8_t *bytes;
	size_t len;
	uint64_t at;
	uint64_t size;
	uint64_t base;		/* added to each read's offset (the tree's) */
};

static int mem_read(void *ctx, void *buf, size_t len, uint64_t off)
{
	const struct mem_dev *d = ctx;
	uint8_t *out = buf;
	uint64_t pos, end;

	/* Nothing outside the device, without overflow. */
	FUZZ_CHECK(!__builtin_add_overflow(d->base, off, &pos));
	FUZZ_CHECK(!__builtin_add_overflow(pos, len, &end));
	FUZZ_CHECK(end <= d->size);
	for (size_t i = 0; i < len; i++) {
		uint64_t p = pos + i;

		out[i] = p >= d->at && p - d->at < d->len ?
			 d->bytes[p - d->at] : 0;
	}
	return 0;
}

/* An error the library named, of one of its kinds. */
static void check_error(int err)
{
	FUZZ_CHECK(err < 0);
	FUZZ_CHECK(strcmp(merkle_strerror(err), "unknown error") != 0);
	FUZZ_CHECK(merkle_error_kind(err) == MERKLE_ERR_DAMAGE ||
		   merkle_error_kind(err) == MERKLE_ERR_ARGUMENT);
}

/* Parameters the tree code can use, in dm-verity's ranges. */
static void check_params(const struct merkle_params *p,
			 struct merkle_geometry *g)
{
	FUZZ_CHECK(merkle_format_dmverity(p));
	FUZZ_CHECK(merkle_digest_size(p->hash_alg) != 0);
	FUZZ_CHECK(p->log_blocksize >= MERKLE_DMV_MIN_LOG_BLOCKSIZE &&
		   p->log_blocksize <= MERKLE_DMV_MAX_LOG_BLOCKSIZE);
	FUZZ_CHECK(p->salt_size <= MERKLE_DMV_MAX_SALT_SIZE);
	FUZZ_CHECK(merkle_log_data_blocksize(p) >=
		   MERKLE_DMV_MIN_LOG_BLOCKSIZE &&
		   merkle_log_data_blocksize(p) <=
		   MERKLE_DMV_MAX_LOG_BLOCKSIZE);
	FUZZ_CHECK(p->data_size &&
		   p->data_size % (1u << merkle_log_data_blocksize(p)) == 0);
	FUZZ_CHECK(merkle_geometry_init(g, p) == 0);
	FUZZ_CHECK(g->num_levels <= MERKLE_MAX_LEVELS);
}

/* merkle_dmv_sb_parse() on exactly the bytes given. */
static int fuzz_sb_parse(const uint8_t *bytes, size_t len,
			 struct merkle_params *p)
{
	/* An exact-size copy: ASan then catches any read past len. */
	uint8_t *buf = malloc(len ? len : 1);
	struct merkle_geometry g;
	struct merkle_dmv_sb sb;
	char name[sizeof(sb.algorithm) + 1];
	uint8_t uuid[16];
	int err;

	FUZZ_CHECK(buf != NULL);
	memcpy(buf, bytes, len);
	err = merkle_dmv_sb_parse(buf, len, p, uuid);
	if (err) {
		check_error(err);
		FUZZ_CHECK((err >= MERKLE_E_DMV_MAGIC &&
			    err <= MERKLE_E_DMV_DATA_BLOCKS) ||
			   err == MERKLE_E_ALG_UNAVAILABLE);
	} else {
		FUZZ_CHECK(len >= sizeof(sb));
		memcpy(&sb, buf, sizeof(sb));
		check_params(p, &g);
		/* What was accepted is what the superblock says. */
		FUZZ_CHECK(le32toh(sb.version) == 1 &&
			   le32toh(sb.hash_type) <= 1);
		FUZZ_CHECK((p->format == MERKLE_FORMAT_DMVERITY_V0) ==
			   (le32toh(sb.hash_type) == 0));
		FUZZ_CHECK(le32toh(sb.data_block_size) ==
			   1u << merkle_log_data_blocksize(p));
		FUZZ_CHECK(le32toh(sb.hash_block_size) ==
			   1u << p->log_blocksize);
		FUZZ_CHECK(le64toh(sb.data_blocks) == g.data_blocks);
		FUZZ_CHECK(le16toh(sb.salt_size) == p->salt_size);
		FUZZ_CHECK(memcmp(sb.salt, p->salt, p->salt_size) == 0);
		FUZZ_CHECK(memcmp(sb.uuid, uuid, sizeof(uuid)) == 0);
		memcpy(name, sb.algorithm, sizeof(sb.algorithm));
		name[sizeof(sb.algorithm)] = '\0';
		FUZZ_CHECK(merkle_dmv_hash_alg_from_name(name) ==
			   (int)p->hash_alg);
	}
	free(buf);
	return err;
}

/* The parameters --no-superblock gives, for deriving sizes. */
static int config_params(const struct merkle_dmv_config *cfg,
			 struct merkle_params *p)
{
	memset(p, 0, sizeof(*p));
	p->format = cfg->hash_type0 ? MERKLE_FORMAT_DMVERITY_V0 :
				      MERKLE_FORMAT_DMVERITY;
	p->hash_alg = cfg->hash_alg;
	p->log_blocksize = cfg->log_blocksize;
	p->salt_size = cfg->salt_size;
	if (cfg->log_blocksize > MERKLE_DMV_MAX_LOG_BLOCKSIZE ||
	    !cfg->data_blocks ||
	    cfg->data_blocks > UINT64_MAX >> cfg->log_blocksize)
		return -1;
	p->data_size = cfg->data_blocks << cfg->log_blocksize;
	return 0;
}

/*
 * Device sizes that fit the parameters (known) exactly, give or take the
 * input's slack, so that the checks after the size checks are reached.
 */
static void derive_sizes(const struct merkle_dmv_config *cfg,
			 const struct merkle_params *known, uint64_t raw_hash,
			 uint64_t raw_data, uint64_t *hash_size,
			 uint64_t *data_size)
{
	struct merkle_geometry g;
	uint64_t off;

	if (merkle_geometry_init(&g, known))
		return;
	off = merkle_dmv_tree_offset(cfg->hash_offset, !cfg->no_superblock,
				     known->log_blocksize);
	if (__builtin_add_overflow(off, g.tree_size, hash_size))
		*hash_size = UINT64_MAX;
	if (*hash_size && (raw_hash & 1))
		(*hash_size)--;
	if (__builtin_add_overflow(known->data_size, raw_data & 0xff,
				   data_size))
		*data_size = UINT64_MAX;
}

/* What an accepted image must be. */
static void check_opened(const struct merkle_dmv_config *cfg,
			 const struct merkle_params *p, uint64_t tree_off,
			 uint64_t hash_size, uint64_t data_size,
			 int sb_err, const struct merkle_params *sb_params)
{
	struct merkle_geometry g;
	uint64_t bs, end;

	check_params(p, &g);
	bs = g.block_size;
	FUZZ_CHECK(cfg->hash_offset % 512 == 0);
	FUZZ_CHECK(tree_off % bs == 0);
	FUZZ_CHECK(!__builtin_add_overflow(tree_off, g.tree_size, &end));
	FUZZ_CHECK(end <= hash_size);
	FUZZ_CHECK(p->data_size <= data_size);
	if (cfg->no_superblock) {
		FUZZ_CHECK(tree_off <= cfg->hash_offset &&
			   cfg->hash_offset - tree_off < bs);
		FUZZ_CHECK(p->hash_alg == cfg->hash_alg &&
			   (p->format == MERKLE_FORMAT_DMVERITY_V0) ==
			   cfg->hash_type0 &&
			   p->log_blocksize == cfg->log_blocksize &&
			   p->salt_size == cfg->salt_size &&
			   memcmp(p->salt, cfg->salt, p->salt_size) == 0);
		FUZZ_CHECK(!cfg->data_blocks ||
			   p->data_size == cfg->data_blocks <<
					   merkle_log_data_blocksize(p));
	} else {
		/* The superblock whole, then the first block boundary. */
		FUZZ_CHECK(tree_off >= cfg->hash_offset + MERKLE_DMV_SB_SIZE &&
			   tree_off - cfg->hash_offset < MERKLE_DMV_SB_SIZE + bs);
		FUZZ_CHECK(sb_err == 0);
		FUZZ_CHECK(memcmp(p, sb_params, sizeof(*p)) == 0);
	}
	if (cfg->same_device)
		FUZZ_CHECK(p->data_size <= cfg->hash_offset);
}

/* The first data block (zeroes) against the tree on the device. */
static void verify_first_block(const struct merkle_params *p,
			       struct mem_dev *dev, uint64_t tree_off)
{
	uint8_t root[MERKLE_MAX_DIGEST_SIZE] = { 0 };
	const struct merkle_geometry *g;
	struct merkle_verify_result res;
	struct merkle_cache *cache;
	struct merkle_tree *tree;
	uint8_t *block;
	int err;

	cache = merkle_cache_new(0);
	FUZZ_CHECK(cache != NULL);
	dev->base = tree_off;
	FUZZ_CHECK(merkle_tree_open(&tree, p, root, cache, mem_read, dev) == 0);
	g = merkle_tree_geometry(tree);
	block = calloc(1, g->data_block_size);
	FUZZ_CHECK(block != NULL);
	err = merkle_verify_blocks(tree, 0, block, 1, 1, &res);
	/* A root hash of zeroes matches nothing a hash gives. */
	FUZZ_CHECK(err == MERKLE_E_CORRUPT && res.block == 0);
	free(block);
	merkle_tree_close(tree);
	merkle_cache_free(cache);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct merkle_params p, sb_params, known;
	uint8_t dev_sb[MERKLE_DMV_SB_SIZE];
	struct merkle_dmv_config cfg;
	struct merkle_geometry g;
	struct fuzz_input in;
	struct mem_dev dev;
	uint64_t hash_size, data_size, raw_hash, raw_data, tree_off;
	unsigned flags, unaligned;
	int sb_err, err;

	fuzz_input_init(&in, data, size);
	memset(&cfg, 0, sizeof(cfg));
	flags = (unsigned)fuzz_take_le(&in, 1);
	cfg.hash_offset = fuzz_take_le(&in, 2) * 512;
	unaligned = (unsigned)fuzz_take_le(&in, 1);
	if (flags & FLAG_UNALIGNED_OFFSET)
		cfg.hash_offset += unaligned;
	raw_hash = fuzz_take_le(&in, 8);
	raw_data = fuzz_take_le(&in, 8);
	cfg.no_superblock = flags & FLAG_NO_SUPERBLOCK;
	cfg.same_device = flags & FLAG_SAME_DEVICE;
	cfg.hash_type0 = flags & FLAG_HASH_TYPE0;
	cfg.hash_alg = (unsigned)fuzz_take_le(&in, 1);
	cfg.log_blocksize = (unsigned)fuzz_take_le(&in, 1);
	cfg.data_blocks = fuzz_take_le(&in, 8);
	cfg.salt_size = (unsigned)fuzz_take_le(&in, 2);
	for (size_t i = 0; i < sizeof(cfg.salt); i++)
		cfg.salt[i] = (uint8_t)(i * 37 + 11);

	/* The bytes as given (exact size, for ASan), then the superblock as
	 * the device reads it: those bytes, zero-padded. */
	(void)fuzz_sb_parse(fuzz_rest(&in), fuzz_remaining(&in), &sb_params);
	memset(dev_sb, 0, sizeof(dev_sb));
	memcpy(dev_sb, fuzz_rest(&in),
	       fuzz_remaining(&in) < sizeof(dev_sb) ? fuzz_remaining(&in) :
						      sizeof(dev_sb));
	sb_err = fuzz_sb_parse(dev_sb, sizeof(dev_sb), &sb_params);

	hash_size = raw_hash;
	data_size = raw_data;
	if (flags & FLAG_DERIVE_SIZES) {
		hash_size = data_size = 0;
		if (!cfg.no_superblock && !sb_err)
			derive_sizes(&cfg, &sb_params, raw_hash, raw_data,
				     &hash_size, &data_size);
		else if (cfg.no_superblock && !config_params(&cfg, &known))
			derive_sizes(&cfg, &known, raw_hash, raw_data,
				     &hash_size, &data_size);
	}
	if (cfg.same_device) {
		/* One device: one size, the larger of the two. */
		if (data_size > hash_size)
			hash_size = data_size;
		data_size = hash_size;
	}

	dev = (struct mem_dev){
		.bytes = fuzz_rest(&in),
		.len = fuzz_remaining(&in),
		.at = cfg.hash_offset,
		.size = hash_size,
	};
	tree_off = 0;
	err = merkle_dmv_open(&cfg, mem_read, &dev, hash_size, data_size, &p,
			      &tree_off);
	if (err) {
		check_error(err);
		/* A superblock it read and refused, it refused as the parser
		 * does: both saw the same 512 bytes. */
		if (!cfg.no_superblock && err >= MERKLE_E_DMV_MAGIC &&
		    err <= MERKLE_E_DMV_DATA_BLOCKS)
			FUZZ_CHECK(err == sb_err);
		return 0;
	}
	check_opened(&cfg, &p, tree_off, hash_size, data_size, sb_err,
		     &sb_params);
	FUZZ_CHECK(merkle_geometry_init(&g, &p) == 0);
	if (g.tree_size <= MAX_VERIFIED_TREE)
		verify_first_block(&p, &dev, tree_off);
	return 0;
}
