// SPDX-License-Identifier: GPL-2.0-only
/*
 * verity_dmv.c - --format=dm-verity: serve what `veritysetup format`
 * wrote, with the fs-verity format's read path.
 *
 * The options are veritysetup's (`veritysetup open DATA NAME HASH ROOT`
 * and its --hash-offset, --no-superblock, --hash, --data-block-size,
 * --hash-block-size, --data-blocks, --salt, and --format=N as
 * --hash-type=N, vublk's --format being fs-verity|dm-verity), IMAGE being
 * the data device and --hash-device the hash device (default: IMAGE
 * itself, the hash area at --hash-offset past the data).  lib/merkle
 * reads the superblock and checks the areas (merkle_dmv_open()); the tree
 * is then what the fs-verity format's tree is, read from the hash device,
 * and the root hash the user gives is the trust anchor, as in dm-verity's
 * table.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "verity.h"

/* Options seen, for the checks of verity_dmv_check_options(). */
enum {
	VERITY_DMV_GIVEN_OFFSET = 1u << 0,
	VERITY_DMV_GIVEN_PARAMS = 1u << 1,	/* only with --no-superblock */
	VERITY_DMV_GIVEN_OTHER = 1u << 2,	/* any dm-verity option */
	VERITY_DMV_GIVEN_DATA_BS = 1u << 3,
	VERITY_DMV_GIVEN_HASH_BS = 1u << 4,
};

/* A block size option: a power of 2, as veritysetup takes them. */
static int verity_dmv_block_size(const char *opt, const char *arg,
				 unsigned *log)
{
	uint64_t v;

	if (vublk_parse_u64(opt, arg, 1u << MERKLE_DMV_MIN_LOG_BLOCKSIZE,
			    1u << MERKLE_DMV_MAX_LOG_BLOCKSIZE, &v) < 0)
		return -EINVAL;
	if (v & (v - 1)) {
		vublk_error("bad %s value '%s': not a power of 2 (veritysetup's block sizes are 512, 1024, 2048, 4096...)",
			    opt, arg);
		return -EINVAL;
	}
	*log = (unsigned)__builtin_ctzll(v);
	return 0;
}

/* --hash-type: veritysetup's --format=0|1, the superblock's hash_type. */
static int verity_dmv_hash_type(const char *arg, bool *type0)
{
	if (strcmp(arg, "0") && strcmp(arg, "1")) {
		vublk_error("bad --hash-type value '%s': 1 (veritysetup's default) or 0 (Chrome OS's, veritysetup format --format=0)",
			    arg);
		return -EINVAL;
	}
	*type0 = arg[0] == '0';
	return 0;
}

static int verity_dmv_hex(const char *opt, const char *arg, uint8_t *out,
			  size_t max, int *len)
{
	int n = merkle_parse_hex(arg, out, max);

	if (n < 0) {
		vublk_error("bad %s value '%s': %s", opt, arg,
			    merkle_strerror(n));
		return -EINVAL;
	}
	*len = n;
	return 0;
}

static int verity_dmv_hash_device(struct verity_dmv *d, const char *arg)
{
	/* Absolute, as -f is: the detached server runs in /. */
	if (!realpath(arg, d->hash_device)) {
		vublk_error("bad --hash-device value '%s': %s (give the hash file or device that veritysetup format wrote)",
			    arg, strerror(errno));
		return -EINVAL;
	}
	return 0;
}

static int verity_dmv_parse_param(struct verity_dmv *d, int opt,
				  const char *arg)
{
	struct merkle_dmv_config *c = &d->cfg;
	int alg, len;

	d->given |= VERITY_DMV_GIVEN_PARAMS;
	switch (opt) {
	case VERITY_OPT_HASH:
		alg = merkle_dmv_hash_alg_from_name(arg);
		if (alg < 0) {
			vublk_error("bad --hash value '%s': %s", arg,
				    merkle_strerror(MERKLE_E_DMV_BAD_ALG));
			return -EINVAL;
		}
		c->hash_alg = (unsigned)alg;
		return 0;
	case VERITY_OPT_DATA_BLOCK_SIZE:
		d->given |= VERITY_DMV_GIVEN_DATA_BS;
		return verity_dmv_block_size("--data-block-size", arg,
					     &c->log_data_blocksize);
	case VERITY_OPT_HASH_BLOCK_SIZE:
		d->given |= VERITY_DMV_GIVEN_HASH_BS;
		return verity_dmv_block_size("--hash-block-size", arg,
					     &c->log_blocksize);
	case VERITY_OPT_DATA_BLOCKS:
		return vublk_parse_u64("--data-blocks", arg, 1, UINT64_MAX,
				       &c->data_blocks) < 0 ? -EINVAL : 0;
	case VERITY_OPT_HASH_TYPE:
		return verity_dmv_hash_type(arg, &c->hash_type0);
	default:	/* VERITY_OPT_SALT */
		/* veritysetup's "-" is no salt. */
		if (!strcmp(arg, "-")) {
			c->salt_size = 0;
			return 0;
		}
		if (verity_dmv_hex("--salt", arg, c->salt, sizeof(c->salt),
				   &len))
			return -EINVAL;
		c->salt_size = (unsigned)len;
		return 0;
	}
}

int verity_dmv_parse_opt(struct verity_tgt *vt, int opt, const char *arg)
{
	struct verity_dmv *d = &vt->dmv;

	if (opt == VERITY_OPT_FORMAT) {
		if (!strcmp(arg, "dm-verity") || !strcmp(arg, "fs-verity")) {
			d->on = !strcmp(arg, "dm-verity");
			return 0;
		}
		vublk_error("bad --format value '%s': expected fs-verity (an image sealed by vublk-verity format) or dm-verity (one veritysetup format wrote)",
			    arg);
		return -EINVAL;
	}
	d->given |= VERITY_DMV_GIVEN_OTHER;
	switch (opt) {
	case VERITY_OPT_HASH_DEVICE:
		return verity_dmv_hash_device(d, arg);
	case VERITY_OPT_HASH_OFFSET:
		d->given |= VERITY_DMV_GIVEN_OFFSET;
		return vublk_parse_size("--hash-offset", arg, 0, UINT64_MAX,
					&d->cfg.hash_offset) < 0 ? -EINVAL : 0;
	case VERITY_OPT_ROOT_HASH:
		return verity_dmv_hex("--root-hash", arg, d->root_hash,
				      sizeof(d->root_hash), &d->root_len);
	case VERITY_OPT_NO_SUPERBLOCK:
		d->cfg.no_superblock = true;
		return 0;
	case VERITY_OPT_ROOT_HASH_SIGNATURE:
		return verity_read_signature(vt, "--root-hash-signature", arg);
	default:
		return verity_dmv_parse_param(d, opt, arg);
	}
}

/* What does not go together, before anything is opened. */
static int verity_dmv_check_options(struct vublk_tgt *t,
				    struct verity_tgt *vt)
{
	struct verity_dmv *d = &vt->dmv;

	if (!d->on) {
		if (d->given)
			vublk_error("--hash-device, --hash-offset, --root-hash, --root-hash-signature, --no-superblock, --hash, --hash-type, --salt and the block options describe a dm-verity image: add --format=dm-verity");
		return d->given ? -EINVAL : 0;
	}
	if (vt->have_digest || vt->f2fs_file ||
	    (vt->sig.given && !vt->sig.given_option)) {
		vublk_error("--digest, --f2fs-file and --signature are for fs-verity images, not --format=dm-verity (its trust is --root-hash, and --root-hash-signature with --trusted-cert)");
		return -EINVAL;
	}
	if (!d->root_len) {
		vublk_error("--format=dm-verity needs --root-hash=HEX: the root hash veritysetup format printed");
		return -EINVAL;
	}
	if (!d->hash_device[0] && !(d->given & VERITY_DMV_GIVEN_OFFSET)) {
		vublk_error("--format=dm-verity needs --hash-device=HASH (the hash file veritysetup format wrote) or --hash-offset=BYTES (where the hash area is in %s)",
			    t->backing_file);
		return -EINVAL;
	}
	if (!d->cfg.no_superblock && (d->given & VERITY_DMV_GIVEN_PARAMS)) {
		vublk_error("--hash, --hash-type, --salt, --data-block-size, --hash-block-size and --data-blocks are read from the image's dm-verity superblock: give them only with --no-superblock");
		return -EINVAL;
	}
	/* veritysetup's defaults */
	if (!d->cfg.hash_alg)
		d->cfg.hash_alg = MERKLE_HASH_SHA256;
	if (!(d->given & VERITY_DMV_GIVEN_DATA_BS))
		d->cfg.log_data_blocksize = 12;
	if (!(d->given & VERITY_DMV_GIVEN_HASH_BS))
		d->cfg.log_blocksize = 12;
	return 0;
}

static int verity_dmv_read(void *ctx, void *buf, size_t len, uint64_t off)
{
	return vublk_backend_read(ctx, buf, len, off);
}

/* One line for what merkle_dmv_open() refused. */
static int verity_dmv_error(struct vublk_tgt *t, struct verity_tgt *vt,
			    int err)
{
	const char *hash = vt->dmv.hash_device[0] ? vt->dmv.hash_device :
			   t->backing_file;

	if (merkle_error_kind(err) == MERKLE_ERR_NOMEM) {
		vublk_error("cannot open dm-verity image %s: out of memory",
			    t->backing_file);
		return -ENOMEM;
	}
	if (merkle_error_kind(err) == MERKLE_ERR_IO) {
		vublk_error("cannot read the dm-verity superblock of %s at byte %" PRIu64 ": %s",
			    hash, vt->dmv.cfg.hash_offset, strerror(-err));
		return err;
	}
	vublk_error("cannot serve dm-verity image %s (hash device %s, --hash-offset=%" PRIu64 "): %s",
		    t->backing_file, hash, vt->dmv.cfg.hash_offset,
		    merkle_strerror(err));
	return -EINVAL;
}

/* The image's parameters and root hash, in the fs-verity format's place. */
static int verity_dmv_fill(struct vublk_tgt *t, struct verity_tgt *vt,
			   const struct merkle_params *p, uint64_t tree_off)
{
	struct verity_dmv *d = &vt->dmv;
	unsigned ds = merkle_digest_size(p->hash_alg);
	int err;

	if ((unsigned)d->root_len != ds) {
		vublk_error("--root-hash has %d bytes, and the %s root hash of dm-verity image %s has %u (%u hex digits)",
			    d->root_len, merkle_hash_alg_name(p->hash_alg),
			    t->backing_file, ds, 2 * ds);
		return -EINVAL;
	}
	vt->img.params = *p;
	err = merkle_geometry_init(&vt->img.geometry, p);
	if (err)
		return verity_dmv_error(t, vt, err);
	memcpy(vt->img.root_hash, d->root_hash, ds);
	vt->img.layout.data_size = p->data_size;
	vt->img.layout.tree_size = vt->img.geometry.tree_size;
	vt->img.layout.image_size = vt->image.size;
	vt->tree_pos = tree_off;
	return 0;
}

int verity_dmv_read_image(struct vublk_tgt *t, struct verity_tgt *vt)
{
	struct verity_dmv *d = &vt->dmv;
	struct vublk_backend *hash = &vt->image;
	struct merkle_params p;
	uint64_t tree_off;
	int err = verity_dmv_check_options(t, vt);

	if (err || !d->on)
		return err;
	if (d->hash_device[0]) {
		err = vublk_backend_open(&d->hash, &vt->backend,
					 d->hash_device,
					 VUBLK_BACKEND_READ_ONLY);
		if (err)
			return err;
		hash = &d->hash;
	}
	d->cfg.same_device = hash == &vt->image;
	err = merkle_dmv_open(&d->cfg, verity_dmv_read, hash, hash->size,
			      vt->image.size, &p, &tree_off);
	if (err)
		return verity_dmv_error(t, vt, err);
	vt->tree_be = hash;
	return verity_dmv_fill(t, vt, &p, tree_off);
}

void verity_dmv_close(struct verity_tgt *vt)
{
	vublk_backend_close(&vt->dmv.hash);
}
