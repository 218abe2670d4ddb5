// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_verify.c - `vublk-verity verify`: check an image's metadata, its
 * file digest if one is expected, and every data block against the
 * stored Merkle tree.
 *
 * The data blocks go through lib/merkle's verifier exactly as the daemon's
 * reads do (the kernel's fsverity_verify_blocks() path of
 * fs/verity/verify.c): the tree is trusted only through the root hash in
 * the descriptor, and hash blocks are read from the image on demand.
 * Unlike a read, which stops at the first bad block with -EIO, verify
 * carries on after a mismatch so that every bad data block is named.
 *
 * With --trusted-cert, --signature or --require-signature the image's
 * builtin signature is checked too (lib/sig: sig_check()), after the
 * digest and before the data, as `vublk add -t verity` checks it.
 *
 * With --format=dm-verity the image is a data file and the hash area
 * `veritysetup format` wrote (dmverity.c opens them), and the root hash
 * the user gives is the only trust: the same pass over the data then
 * checks what `veritysetup verify` checks.
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "f2fslayout.h"
#include "sig.h"
#include "vublk_verity.h"

enum {
	OPT_DIGEST = VV_OPT_SALT + 1,
	OPT_TRUSTED_CERT,
	OPT_SIGNATURE,
	OPT_REQUIRE_SIGNATURE,
	OPT_VERBOSE = 'v',
};

static const struct option verify_longopts[] = {
	{ "digest",	required_argument, NULL, OPT_DIGEST },
	{ "trusted-cert", required_argument, NULL, OPT_TRUSTED_CERT },
	{ "signature",	required_argument, NULL, OPT_SIGNATURE },
	{ "require-signature", no_argument, NULL, OPT_REQUIRE_SIGNATURE },
	{ "verbose",	no_argument,	   NULL, OPT_VERBOSE },
	VV_DMV_VERIFY_LONGOPTS,
	{ NULL, 0, NULL, 0 }
};

struct verify_options {
	bool digest_set;
	unsigned digest_alg;
	uint8_t digest[MERKLE_MAX_DIGEST_SIZE];
	bool verbose;
	struct sig_policy sig;		/* --trusted-cert, --signature,
					 * --require-signature */
	const char *first_fsverity_option; /* of those and --digest */
	struct vv_dmv_options dmv;	/* --format and dm-verity's */
};

/* "ALG:HEX", the form `fsverity digest` prints (lib/merkle's syntax). */
static bool parse_expected_digest(const char *arg, struct verify_options *o)
{
	int err = merkle_parse_digest(arg, &o->digest_alg, o->digest);

	if (err) {
		vv_usage_error("invalid --digest '%s': %s", arg,
			       merkle_strerror(err));
		return false;
	}
	o->digest_set = true;
	return true;
}

/* --trusted-cert=FILE: one certificate, PEM or DER, loaded now. */
static bool add_trusted_cert(struct verify_options *o, const char *arg)
{
	int err = sig_policy_add_cert(&o->sig, arg);

	if (err >= 0)
		return true;
	vv_usage_error("invalid --trusted-cert '%s': %s", arg,
		       sig_strerror(err));
	return false;
}

/* --signature=FILE: a detached signature, read now. */
static bool read_signature(struct verify_options *o, const char *arg)
{
	int err;

	if (!vv_option_once(o->sig.given != NULL, "--signature"))
		return false;
	err = sig_policy_read_signature(&o->sig, arg);
	if (!err)
		return true;
	vv_usage_error("invalid --signature '%s': %s", arg, sig_strerror(err));
	return false;
}

/* --digest and the signature options, by name, for a refusal. */
static const char *fsverity_option_name(int c)
{
	switch (c) {
	case OPT_DIGEST:
		return "--digest";
	case OPT_TRUSTED_CERT:
		return "--trusted-cert";
	case OPT_SIGNATURE:
		return "--signature";
	default:
		return "--require-signature";
	}
}

/* A vv_option_fn: -v, --digest, the signature and dm-verity options. */
static bool parse_verify_option(int c, const char *arg, void *ctx)
{
	struct verify_options *o = ctx;

	if (vv_is_dmv_option(c))
		return vv_parse_dmv_option(c, arg, &o->dmv);
	if (c != OPT_VERBOSE && !o->first_fsverity_option)
		o->first_fsverity_option = fsverity_option_name(c);
	switch (c) {
	case OPT_VERBOSE:
		o->verbose = true;
		return true;
	case OPT_TRUSTED_CERT:
		return add_trusted_cert(o, arg);
	case OPT_SIGNATURE:
		return read_signature(o, arg);
	case OPT_REQUIRE_SIGNATURE:
		o->sig.require = true;
		return true;
	default:	/* OPT_DIGEST */
		if (!vv_option_once(o->digest_set, "--digest"))
			return false;
		return parse_expected_digest(arg, o);
	}
}

/*
 * The builtin signature (lib/sig: sig_check()): one line for a refusal
 * or a warning, the verdict with -v.  Returns an exit status.
 */
static int check_signature(const struct verify_options *o, const char *name,
			   const struct f2fslayout_image *img,
			   const uint8_t *digest)
{
	struct sig_result res;
	char line[1024];
	int ret;

	ret = sig_check(&o->sig, img->params.hash_alg, digest,
			img->desc + MERKLE_DESCRIPTOR_SIZE, img->sig_size, &res);
	switch (sig_explain(ret, &o->sig, &res, line, sizeof(line))) {
	case SIG_NOTE_ERROR:
		vv_error("'%s': %s", name, line);
		return ret == SIG_E_NO_TRUST ? VV_EXIT_USAGE : VV_EXIT_FAILURE;
	case SIG_NOTE_WARNING:
		vv_error("warning: '%s': %s", name, line);
		break;
	case SIG_NOTE_INFO:
		if (o->verbose)
			printf("%s: %s\n", name, line);
		break;
	default:
		break;
	}
	return VV_EXIT_OK;
}

/*
 * Compare the descriptor's file digest, the value FS_IOC_MEASURE_VERITY
 * would report, with the one the user trusts.  Returns an exit status.
 */
static int check_file_digest(const struct verify_options *o,
			     const char *name,
			     const struct f2fslayout_image *img,
			     uint8_t digest[MERKLE_MAX_DIGEST_SIZE])
{
	unsigned alg = img->params.hash_alg;
	char want[2 * MERKLE_MAX_DIGEST_SIZE + 1];
	char have[2 * MERKLE_MAX_DIGEST_SIZE + 1];
	int err;

	err = merkle_descriptor_digest((const void *)img->desc, digest);
	if (err) {
		vv_error("can't hash the descriptor of '%s': %s", name,
			 merkle_strerror(err));
		return VV_EXIT_USAGE;
	}
	if (!o->digest_set ||
	    (o->digest_alg == alg &&
	     memcmp(o->digest, digest, merkle_digest_size(alg)) == 0))
		return VV_EXIT_OK;

	vv_bin2hex(o->digest, merkle_digest_size(o->digest_alg), want);
	vv_bin2hex(digest, merkle_digest_size(alg), have);
	vv_error("'%s': file digest %s:%s does not match the expected %s:%s",
		 name, merkle_hash_alg_name(alg), have,
		 merkle_hash_alg_name(o->digest_alg), want);
	return VV_EXIT_FAILURE;
}

/* Every data block against the tree in the image's tree region. */
static int verify_data(const struct verify_options *o, const char *name,
		       int fd, const struct f2fslayout_image *img)
{
	struct f2fslayout_tree_io io = {
		.fd = fd,
		.tree_pos = img->layout.tree_pos,
		.tree_size = img->layout.tree_size,
	};
	struct vv_verify_pass v = {
		.name = name,
		.fd = fd,
		.params = &img->params,
		.root_hash = img->root_hash,
		.read_tree = f2fslayout_tree_read,
		.read_ctx = &io,
		.verbose = o->verbose,
	};

	return vv_verify_data(&v);
}

static int verify_image(const struct verify_options *o, const char *name)
{
	uint8_t digest[MERKLE_MAX_DIGEST_SIZE];
	struct f2fslayout_image img;
	struct vv_file f;
	int status;

	status = vv_open_image(name, O_RDONLY, &f, &img);
	if (status != VV_EXIT_OK)
		return status;
	status = check_file_digest(o, name, &img, digest);
	if (status == VV_EXIT_OK)
		status = check_signature(o, name, &img, digest);
	if (status == VV_EXIT_OK)
		status = verify_data(o, name, f.fd, &img);
	f2fslayout_image_release(&img);
	if (!vv_close(&f) && status == VV_EXIT_OK)
		status = VV_EXIT_USAGE;
	if (status == VV_EXIT_OK)
		vv_print_digest(img.params.hash_alg, digest, name);
	return status;
}

/*
 * A dm-verity image: DATA against the tree of its hash area, trusting
 * the root hash given.  Quiet when it holds, as `veritysetup verify`.
 */
static int verify_dmverity(const struct verify_options *o, const char *name)
{
	struct vv_dmv_image img;
	struct vv_region tree;
	struct vv_verify_pass v = {
		.name = name,
		.root_hash = o->dmv.root_hash,
		.read_tree = vv_region_read,
		.read_ctx = &tree,
		.tree_region = &tree,
		.verbose = o->verbose,
	};
	unsigned digest_size;
	int status;

	status = vv_dmv_open(&o->dmv, name, &img);
	if (status != VV_EXIT_OK)
		return status;
	digest_size = merkle_digest_size(img.params.hash_alg);
	if (o->dmv.root_hash_size != digest_size) {
		status = vv_usage_error("invalid --root-hash: %zu bytes, but %s root hashes have %u (%u hex digits)",
					o->dmv.root_hash_size,
					merkle_hash_alg_name(img.params.hash_alg),
					digest_size, 2 * digest_size);
	} else {
		vv_region_init(&tree, img.hash_file, img.tree_off);
		v.fd = img.data.fd;
		v.params = &img.params;
		status = vv_verify_data(&v);
		if (status == VV_EXIT_OK)
			status = vv_dmv_check_spare(&img, name);
	}
	if (!vv_dmv_close(&img) && status == VV_EXIT_OK)
		status = VV_EXIT_USAGE;
	return status;
}

/* Verify name in its --format; the options of one format only are
 * refused with the other. */
static int verify_one(const struct verify_options *o, const char *name)
{
	int status = vv_dmv_options_check(&o->dmv, true);

	if (status != VV_EXIT_OK)
		return status;
	if (o->dmv.format == VV_FORMAT_FSVERITY)
		return verify_image(o, name);
	if (o->first_fsverity_option)
		return vv_usage_error("%s is for fs-verity images: a dm-verity image is trusted through --root-hash",
				      o->first_fsverity_option);
	return verify_dmverity(o, name);
}

int vv_cmd_verify(int argc, char *argv[])
{
	struct verify_options o = { 0 };
	int status;

	vv_dmv_options_init(&o.dmv);
	if (!vv_parse_options(&argc, &argv, "v", verify_longopts, NULL,
			      parse_verify_option, &o))
		status = VV_EXIT_USAGE;
	else if (argc != 1)
		status = vv_usage_error("expected exactly one %s, %d given",
					o.dmv.format == VV_FORMAT_DMVERITY ?
					"DATA" : "IMAGE", argc);
	else
		status = verify_one(&o, argv[0]);
	sig_policy_release(&o.sig);
	return status;
}
