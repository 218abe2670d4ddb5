// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_digest.c - `vublk-verity digest`: the fs-verity digest of files,
 * output and --out-* files byte-identical to fsverity-utils'
 * programs/cmd_digest.c (and so to what the kernel's
 * FS_IOC_MEASURE_VERITY reports after FS_IOC_ENABLE_VERITY with the same
 * parameters).
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>

#include "vublk_verity.h"

enum {
	OPT_OUT_MERKLE_TREE = VV_OPT_SALT + 1,
	OPT_OUT_DESCRIPTOR,
	OPT_COMPACT,
	OPT_FOR_BUILTIN_SIG,
};

static const struct option digest_longopts[] = {
	VV_TREE_LONGOPTS,
	{ "out-merkle-tree",	required_argument, NULL, OPT_OUT_MERKLE_TREE },
	{ "out-descriptor",	required_argument, NULL, OPT_OUT_DESCRIPTOR },
	{ "compact",		no_argument,	   NULL, OPT_COMPACT },
	{ "for-builtin-sig",	no_argument,	   NULL, OPT_FOR_BUILTIN_SIG },
	{ NULL, 0, NULL, 0 }
};

struct digest_options {
	struct vv_tree_options tree;
	const char *out_tree_name;
	const char *out_descriptor_name;
	bool compact;
	bool for_builtin_sig;
};

static bool set_out_name(const char **name, const char *opt, const char *arg)
{
	if (!vv_option_once(*name != NULL, opt))
		return false;
	*name = arg;
	return true;
}

/* A vv_option_fn: the options of digest_longopts past the tree options. */
static bool parse_digest_option(int c, const char *arg, void *ctx)
{
	struct digest_options *o = ctx;

	switch (c) {
	case OPT_OUT_MERKLE_TREE:
		return set_out_name(&o->out_tree_name, "--out-merkle-tree",
				    arg);
	case OPT_OUT_DESCRIPTOR:
		return set_out_name(&o->out_descriptor_name,
				    "--out-descriptor", arg);
	case OPT_COMPACT:
		o->compact = true;
		return true;
	default:	/* OPT_FOR_BUILTIN_SIG, the last one */
		o->for_builtin_sig = true;
		return true;
	}
}

/* Build the tree of the open file, writing it to out_tree_name if set. */
static bool build_tree(const struct digest_options *o, struct vv_file *in,
		       struct merkle_params *p,
		       uint8_t root_hash[MERKLE_MAX_DIGEST_SIZE])
{
	struct vv_file out = { .fd = -1 };
	struct vv_tree_writer writer;
	struct vv_region data, tree;
	int err;

	vv_region_init(&data, in, 0);
	if (o->out_tree_name) {
		if (!vv_open(&out, o->out_tree_name,
			     O_WRONLY | O_CREAT | O_TRUNC, 0644))
			return false;
		vv_region_init(&tree, &out, 0);
	}
	vv_tree_writer_init(&writer, vv_region_write, &tree);
	err = merkle_build_tree(p, vv_region_read, &data,
				o->out_tree_name ? vv_tree_writer_write : NULL,
				&writer, o->tree.threads, root_hash);
	if (!err)
		err = vv_tree_writer_flush(&writer);
	vv_tree_writer_destroy(&writer);
	if (err) {
		vv_report_build_error(in->name, &data,
				      o->out_tree_name ? &tree : NULL,
				      merkle_strerror(err));
		vv_close(&out);
		return false;
	}
	return vv_close(&out);
}

/* fsverity-utils' output: "ALG:HEX FILE", "HEX" (--compact), or the
 * formatted digest that built-in signatures sign (--for-builtin-sig). */
static void print_file_digest(const struct digest_options *o,
			      unsigned hash_alg, const uint8_t *digest,
			      const char *name)
{
	uint8_t formatted[12 + MERKLE_MAX_DIGEST_SIZE];
	char hex[2 * sizeof(formatted) + 1];
	int len;

	if (!o->for_builtin_sig && !o->compact) {
		vv_print_digest(hash_alg, digest, name);
		return;
	}
	if (o->for_builtin_sig) {
		/* hash_alg was validated by merkle_build_tree(). */
		len = merkle_formatted_digest(hash_alg, digest, formatted);
		vv_bin2hex(formatted, len, hex);
	} else {
		vv_bin2hex(digest, merkle_digest_size(hash_alg), hex);
	}
	if (o->compact)
		printf("%s\n", hex);
	else
		printf("%s %s\n", hex, name);
}

static bool digest_one_file(const struct digest_options *o, const char *name)
{
	struct merkle_params p = o->tree.params;
	uint8_t root_hash[MERKLE_MAX_DIGEST_SIZE];
	uint8_t digest[MERKLE_MAX_DIGEST_SIZE];
	struct merkle_descriptor desc;
	struct vv_file in;
	bool ok;
	int err;

	if (!vv_output_not_input("--out-merkle-tree", o->out_tree_name,
				 "the input", name) ||
	    !vv_output_not_input("--out-descriptor", o->out_descriptor_name,
				 "the input", name) ||
	    !vv_output_not_input("--out-descriptor", o->out_descriptor_name,
				 "--out-merkle-tree", o->out_tree_name) ||
	    !vv_open_regular(&in, name, O_RDONLY, &p.data_size))
		return false;
	ok = build_tree(o, &in, &p, root_hash);
	if (!vv_close(&in) || !ok)
		return false;

	merkle_descriptor_init(&desc, &p, root_hash);
	err = merkle_descriptor_digest(&desc, digest);
	if (err) {
		vv_error("can't hash the descriptor of '%s': %s", name,
			 merkle_strerror(err));
		return false;
	}
	if (o->out_descriptor_name &&
	    !vv_write_new_file(o->out_descriptor_name, "descriptor", &desc,
			       sizeof(desc)))
		return false;
	print_file_digest(o, p.hash_alg, digest, name);
	return true;
}

int vv_cmd_digest(int argc, char *argv[])
{
	struct digest_options o = { 0 };
	int i;

	if (!vv_parse_options(&argc, &argv, "", digest_longopts, &o.tree,
			      parse_digest_option, &o))
		return VV_EXIT_USAGE;

	if (argc < 1)
		return vv_usage_error("no FILE given");
	/*
	 * fsverity-utils 1.5 would let each FILE overwrite the previous
	 * one's tree and descriptor; refuse instead of writing useless files.
	 */
	if ((o.out_tree_name || o.out_descriptor_name) && argc > 1)
		return vv_usage_error(
			"--out-merkle-tree and --out-descriptor take exactly one FILE, %d given",
				      argc);

	for (i = 0; i < argc; i++)
		if (!digest_one_file(&o, argv[i]))
			return VV_EXIT_FAILURE;
	return VV_EXIT_OK;
}
