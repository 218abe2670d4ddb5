// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_dump.c - `vublk-verity dump`: show what an image's metadata says:
 * the descriptor (fs/verity/fsverity_private.h: struct
 * fsverity_descriptor), where the trailer puts it (f2fs's struct
 * fsverity_descriptor_location) and where each tree level lies in the
 * image (levels are stored top level first, fs/verity/open.c:
 * fsverity_init_merkle_tree_params()).  Text for people, --json for
 * scripts; both print the same fields.
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>

#include "f2fslayout.h"
#include "vublk_verity.h"

enum {
	OPT_JSON = VV_OPT_SALT + 1,
};

static const struct option dump_longopts[] = {
	{ "json",	no_argument,	NULL, OPT_JSON },
	{ NULL, 0, NULL, 0 }
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

/* Level i's first byte in the image. */
static uint64_t level_offset(const struct f2fslayout_image *img, unsigned i)
{
	const struct merkle_geometry *g = &img->geometry;

	return img->layout.tree_pos + (g->level_start[i] << img->params.log_blocksize);
}

static uint64_t level_size(const struct f2fslayout_image *img, unsigned i)
{
	return img->geometry.level_blocks[i] << img->params.log_blocksize;
}

static void print_text(const struct dump_info *d)
{
	const struct f2fslayout_image *img = d->img;
	const struct f2fslayout_layout *l = &img->layout;
	const struct merkle_geometry *g = &img->geometry;
	unsigned i;

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
	printf("tree: %u levels, %u hashes of %u bytes per block, %llu data blocks\n",
	       g->num_levels, g->hashes_per_block, g->digest_size,
	       (unsigned long long)g->data_blocks);
	for (i = 0; i < g->num_levels; i++)
		printf("  level %u: %llu blocks at offset %llu, %llu bytes\n",
		       i, (unsigned long long)g->level_blocks[i],
		       (unsigned long long)level_offset(img, i),
		       (unsigned long long)level_size(img, i));
}

static void print_json_levels(const struct f2fslayout_image *img)
{
	const struct merkle_geometry *g = &img->geometry;
	unsigned i;

	printf("    \"levels\": [");
	for (i = 0; i < g->num_levels; i++)
		printf("%s\n      {\"level\": %u, \"blocks\": %llu, \"offset\": %llu, \"size\": %llu}",
		       i ? "," : "", i,
		       (unsigned long long)g->level_blocks[i],
		       (unsigned long long)level_offset(img, i),
		       (unsigned long long)level_size(img, i));
	printf("%s]\n", g->num_levels ? "\n    " : "");
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
	printf("  },\n  \"tree\": {\n");
	printf("    \"num_levels\": %u,\n", g->num_levels);
	printf("    \"digest_size\": %u,\n", g->digest_size);
	printf("    \"hashes_per_block\": %u,\n", g->hashes_per_block);
	printf("    \"data_blocks\": %llu,\n",
	       (unsigned long long)g->data_blocks);
	print_json_levels(img);
	printf("  }\n}\n");
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

/* A vv_option_fn: --json, the only option. */
static bool parse_dump_option(int c, const char *arg, void *ctx)
{
	bool *json = ctx;

	(void)c;
	(void)arg;
	*json = true;
	return true;
}

int vv_cmd_dump(int argc, char *argv[])
{
	bool json = false;

	if (!vv_parse_options(&argc, &argv, "", dump_longopts, NULL,
			      parse_dump_option, &json))
		return VV_EXIT_USAGE;

	if (argc != 1)
		return vv_usage_error("expected exactly one IMAGE, %d given",
				      argc);
	return dump_image(argv[0], json);
}
