// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_dump.c - `vublk-verity dump`: show what an image's metadata says:
 * the descriptor (fs/verity/fsverity_private.h: struct
 * fsverity_descriptor), where the trailer puts it (f2fs's struct
 * fsverity_descriptor_location) and where each tree level lies in the
 * image (levels are stored top level first, fs/verity/open.c:
 * fsverity_init_merkle_tree_params()).  Text for people, --json for
 * scripts; both print the same fields.
 *
 * With --format=dm-verity: the fields of the superblock `veritysetup
 * format` wrote on a hash device (the ones `veritysetup dump` shows),
 * where the tree starts after it and where its levels are, which are
 * stored in the same order.
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "f2fslayout.h"
#include "vublk_verity.h"

enum {
	OPT_JSON = VV_OPT_SALT + 1,
};

static const struct option dump_longopts[] = {
	{ "json",	no_argument,	NULL, OPT_JSON },
	VV_DMV_DUMP_LONGOPTS,
	{ NULL, 0, NULL, 0 }
};

struct dump_options {
	bool json;
	struct vv_dmv_options dmv;	/* --format, --hash-offset */
};

/* Everything printed, gathered once for both output formats. */
struct dump_info {
	const char *name;
	const struct f2fslayout_image *img;
	const struct merkle_descriptor *desc;
	const char *alg_name;
	char salt_hex[2 * MERKLE_MAX_SALT_SIZE + 1];
	char root_hash_hex[2 * MERKLE_MAX_DIGEST_SIZE + 1];
	char digest_hex[2 * MERKLE_MAX_DIGEST_SIZE + 1];
};

/* Level i's first byte in the file, whose tree starts at tree_pos. */
static uint64_t level_offset(const struct merkle_geometry *g,
			     uint64_t tree_pos, unsigned i)
{
	return tree_pos + g->level_start[i] * g->block_size;
}

static uint64_t level_size(const struct merkle_geometry *g, unsigned i)
{
	return g->level_blocks[i] * g->block_size;
}

/* The tree's shape and its levels, as text. */
static void print_text_tree(const struct merkle_geometry *g,
			    uint64_t tree_pos)
{
	unsigned i;

	printf("tree: %u levels, %u hashes of %u bytes per block, %llu data blocks\n",
	       g->num_levels, g->hashes_per_block, g->digest_size,
	       (unsigned long long)g->data_blocks);
	for (i = 0; i < g->num_levels; i++)
		printf("  level %u: %llu blocks at offset %llu, %llu bytes\n",
		       i, (unsigned long long)g->level_blocks[i],
		       (unsigned long long)level_offset(g, tree_pos, i),
		       (unsigned long long)level_size(g, i));
}

static void print_text(const struct dump_info *d)
{
	const struct f2fslayout_image *img = d->img;
	const struct f2fslayout_layout *l = &img->layout;
	const struct merkle_geometry *g = &img->geometry;

	printf("descriptor:\n");
	printf("  version:          %u\n", d->desc->version);
	printf("  hash algorithm:   %s (%u)\n", d->alg_name,
	       img->params.hash_alg);
	printf("  block size:       %u\n", g->block_size);
	printf("  salt:             %s\n", *d->salt_hex ? d->salt_hex : "(none)");
	printf("  sig size:         %u\n", img->sig_size);
	printf("  data size:        %llu\n",
	       (unsigned long long)img->params.data_size);
	printf("  root hash:        %s\n", d->root_hash_hex);
	printf("  file digest:      %s:%s\n", d->alg_name, d->digest_hex);
	printf("location:\n");
	printf("  data size:        %llu\n", (unsigned long long)l->data_size);
	printf("  tree position:    %llu\n", (unsigned long long)l->tree_pos);
	printf("  tree size:        %llu\n", (unsigned long long)l->tree_size);
	printf("  desc position:    %llu\n", (unsigned long long)l->desc_pos);
	printf("  desc size:        %u\n", l->desc_size);
	printf("  trailer position: %llu\n", (unsigned long long)l->trailer_pos);
	printf("  image size:       %llu\n", (unsigned long long)l->image_size);
	print_text_tree(g, l->tree_pos);
}

/* The "tree" object: the tree's shape and its levels. */
static void print_json_tree(const struct merkle_geometry *g,
			    uint64_t tree_pos)
{
	unsigned i;

	printf("  \"tree\": {\n");
	printf("    \"num_levels\": %u,\n", g->num_levels);
	printf("    \"digest_size\": %u,\n", g->digest_size);
	printf("    \"hashes_per_block\": %u,\n", g->hashes_per_block);
	printf("    \"data_blocks\": %llu,\n",
	       (unsigned long long)g->data_blocks);
	printf("    \"levels\": [");
	for (i = 0; i < g->num_levels; i++)
		printf("%s\n      {\"level\": %u, \"blocks\": %llu, \"offset\": %llu, \"size\": %llu}",
		       i ? "," : "", i,
		       (unsigned long long)g->level_blocks[i],
		       (unsigned long long)level_offset(g, tree_pos, i),
		       (unsigned long long)level_size(g, i));
	printf("%s]\n  }\n", g->num_levels ? "\n    " : "");
}

static void print_json(const struct dump_info *d)
{
	const struct f2fslayout_image *img = d->img;
	const struct f2fslayout_layout *l = &img->layout;
	const struct merkle_geometry *g = &img->geometry;

	printf("{\n  \"image\": ");
	vv_print_json_string(d->name);
	printf(",\n  \"descriptor\": {\n");
	printf("    \"version\": %u,\n", d->desc->version);
	printf("    \"hash_algorithm\": \"%s\",\n", d->alg_name);
	printf("    \"hash_algorithm_number\": %u,\n", img->params.hash_alg);
	printf("    \"block_size\": %u,\n", g->block_size);
	printf("    \"salt\": \"%s\",\n", d->salt_hex);
	printf("    \"sig_size\": %u,\n", img->sig_size);
	printf("    \"data_size\": %llu,\n",
	       (unsigned long long)img->params.data_size);
	printf("    \"root_hash\": \"%s\",\n", d->root_hash_hex);
	printf("    \"file_digest\": \"%s:%s\"\n", d->alg_name, d->digest_hex);
	printf("  },\n  \"location\": {\n");
	printf("    \"data_size\": %llu,\n", (unsigned long long)l->data_size);
	printf("    \"tree_pos\": %llu,\n", (unsigned long long)l->tree_pos);
	printf("    \"tree_size\": %llu,\n", (unsigned long long)l->tree_size);
	printf("    \"desc_pos\": %llu,\n", (unsigned long long)l->desc_pos);
	printf("    \"desc_size\": %u,\n", l->desc_size);
	printf("    \"trailer_pos\": %llu,\n",
	       (unsigned long long)l->trailer_pos);
	printf("    \"image_size\": %llu\n", (unsigned long long)l->image_size);
	printf("  },\n");
	print_json_tree(g, l->tree_pos);
	printf("}\n");
}

static int dump_image(const char *name, bool json)
{
	uint8_t digest[MERKLE_MAX_DIGEST_SIZE];
	struct f2fslayout_image img;
	struct dump_info d = { .name = name, .img = &img };
	struct vv_file f;
	int status;
	int err;

	status = vv_open_image(name, O_RDONLY, &f, &img);
	if (status != VV_EXIT_OK)
		return status;
	d.desc = (const struct merkle_descriptor *)img.desc;
	d.alg_name = merkle_hash_alg_name(img.params.hash_alg);
	err = merkle_descriptor_digest(d.desc, digest);
	if (err) {
		vv_error("can't hash the descriptor of '%s': %s", name,
			 merkle_strerror(err));
		status = VV_EXIT_FAILURE;
	} else {
		vv_bin2hex(img.params.salt, img.params.salt_size, d.salt_hex);
		vv_bin2hex(img.root_hash, img.geometry.digest_size,
			   d.root_hash_hex);
		vv_bin2hex(digest, img.geometry.digest_size, d.digest_hex);
		if (json)
			print_json(&d);
		else
			print_text(&d);
	}
	f2fslayout_image_release(&img);
	if (!vv_close(&f))
		status = VV_EXIT_FAILURE;
	return status;
}

/* What a dm-verity dump prints, gathered once for both output formats. */
struct dmv_dump_info {
	const char *name;
	uint64_t sb_offset;
	uint64_t hash_size;
	const struct merkle_params *params;
	const struct merkle_geometry *geometry;
	uint64_t tree_pos;
	char uuid[37];
	char salt_hex[2 * MERKLE_DMV_MAX_SALT_SIZE + 1];
};

/* The UUID as veritysetup prints it: 8-4-4-4-12 hex digits. */
static void format_uuid(const uint8_t uuid[16], char out[37])
{
	static const unsigned group_end[] = { 4, 6, 8, 10, 16 };
	unsigned i, start = 0;

	for (i = 0; i < sizeof(group_end) / sizeof(group_end[0]); i++) {
		vv_bin2hex(uuid + start, group_end[i] - start, out);
		out += 2 * (group_end[i] - start);
		*out++ = i < 4 ? '-' : '\0';
		start = group_end[i];
	}
}

/* The superblock's hash_type: 1, or 0 (Chrome OS's). */
static unsigned dmv_hash_type(const struct dmv_dump_info *d)
{
	return d->params->format == MERKLE_FORMAT_DMVERITY_V0 ? 0 : 1;
}

static void print_dmv_text(const struct dmv_dump_info *d)
{
	const struct merkle_geometry *g = d->geometry;

	printf("dm-verity superblock at offset %llu:\n",
	       (unsigned long long)d->sb_offset);
	printf("  version:          1\n");
	printf("  uuid:             %s\n", d->uuid);
	printf("  hash type:        %u\n", dmv_hash_type(d));
	printf("  data blocks:      %llu\n", (unsigned long long)g->data_blocks);
	printf("  data block size:  %u\n", g->data_block_size);
	printf("  hash blocks:      %llu\n",
	       (unsigned long long)(g->tree_size / g->block_size));
	printf("  hash block size:  %u\n", g->block_size);
	printf("  hash algorithm:   %s\n",
	       merkle_hash_alg_name(d->params->hash_alg));
	printf("  salt:             %s\n", *d->salt_hex ? d->salt_hex : "(none)");
	printf("location:\n");
	printf("  tree position:    %llu\n", (unsigned long long)d->tree_pos);
	printf("  tree size:        %llu\n", (unsigned long long)g->tree_size);
	printf("  hash device size: %llu\n", (unsigned long long)d->hash_size);
	print_text_tree(g, d->tree_pos);
}

static void print_dmv_json(const struct dmv_dump_info *d)
{
	const struct merkle_geometry *g = d->geometry;

	printf("{\n  \"hash_device\": ");
	vv_print_json_string(d->name);
	printf(",\n  \"superblock\": {\n");
	printf("    \"offset\": %llu,\n", (unsigned long long)d->sb_offset);
	printf("    \"version\": 1,\n");
	printf("    \"uuid\": \"%s\",\n", d->uuid);
	printf("    \"hash_type\": %u,\n", dmv_hash_type(d));
	printf("    \"data_blocks\": %llu,\n",
	       (unsigned long long)g->data_blocks);
	printf("    \"data_block_size\": %u,\n", g->data_block_size);
	printf("    \"hash_blocks\": %llu,\n",
	       (unsigned long long)(g->tree_size / g->block_size));
	printf("    \"hash_block_size\": %u,\n", g->block_size);
	printf("    \"hash_algorithm\": \"%s\",\n",
	       merkle_hash_alg_name(d->params->hash_alg));
	printf("    \"salt\": \"%s\"\n", d->salt_hex);
	printf("  },\n  \"location\": {\n");
	printf("    \"tree_pos\": %llu,\n", (unsigned long long)d->tree_pos);
	printf("    \"tree_size\": %llu,\n", (unsigned long long)g->tree_size);
	printf("    \"hash_device_size\": %llu\n",
	       (unsigned long long)d->hash_size);
	printf("  },\n");
	print_json_tree(g, d->tree_pos);
	printf("}\n");
}

/*
 * The superblock at --hash-offset of the hash device name.  The data
 * device is not needed (nor read), as for `veritysetup dump`; whether the
 * hash device holds the whole tree is verify's question.
 */
static int dump_dmverity(const struct dump_options *o, const char *name)
{
	struct dmv_dump_info d = {
		.name = name,
		.sb_offset = o->dmv.cfg.hash_offset,
	};
	struct merkle_params params;
	struct merkle_geometry g;
	uint8_t uuid[16];
	struct vv_file f;
	int status, err;

	if (o->dmv.cfg.no_superblock)
		return vv_usage_error("--no-superblock: there is no superblock to dump; without one the parameters are only those given to veritysetup");
	if (!vv_open_sized(&f, name, &d.hash_size))
		return VV_EXIT_USAGE;
	status = vv_dmv_read_sb(&f, d.hash_size, d.sb_offset, &params, uuid);
	if (status == VV_EXIT_OK) {
		/* merkle_dmv_sb_parse() has checked the geometry. */
		err = merkle_geometry_init(&g, &params);
		if (err) {
			vv_error("'%s': %s", name, merkle_strerror(err));
			status = VV_EXIT_USAGE;
		}
	}
	if (status == VV_EXIT_OK) {
		d.params = &params;
		d.geometry = &g;
		d.tree_pos = merkle_dmv_tree_offset(d.sb_offset, true,
						    params.log_blocksize);
		format_uuid(uuid, d.uuid);
		vv_bin2hex(params.salt, params.salt_size, d.salt_hex);
		if (o->json)
			print_dmv_json(&d);
		else
			print_dmv_text(&d);
	}
	if (!vv_close(&f))
		status = VV_EXIT_USAGE;
	return status;
}

/* A vv_option_fn: --json, --format and --hash-offset. */
static bool parse_dump_option(int c, const char *arg, void *ctx)
{
	struct dump_options *o = ctx;

	if (vv_is_dmv_option(c))
		return vv_parse_dmv_option(c, arg, &o->dmv);
	o->json = true;
	return true;
}

int vv_cmd_dump(int argc, char *argv[])
{
	struct dump_options o = { 0 };
	int status;

	vv_dmv_options_init(&o.dmv);
	if (!vv_parse_options(&argc, &argv, "", dump_longopts, NULL,
			      parse_dump_option, &o))
		return VV_EXIT_USAGE;
	if (argc != 1)
		return vv_usage_error("expected exactly one %s, %d given",
				      o.dmv.format == VV_FORMAT_DMVERITY ?
				      "HASH device" : "IMAGE", argc);
	status = vv_dmv_options_check(&o.dmv, false);
	if (status != VV_EXIT_OK)
		return status;
	if (o.dmv.format == VV_FORMAT_DMVERITY)
		return dump_dmverity(&o, argv[0]);
	return dump_image(argv[0], o.json);
}
