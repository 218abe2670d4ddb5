// SPDX-License-Identifier: GPL-2.0-only
/*
 * oracle_image.c - helper of oracle.sh: lay out an image from the data,
 * tree and descriptor that `fsverity digest --out-merkle-tree
 * --out-descriptor` wrote, using lib/f2fslayout as vublk-verity does, read
 * it back, and print what the reader found, for the script to compare
 * with fsverity's output byte for byte.
 *
 *   oracle_image IMAGE TREE DESC
 *
 * IMAGE holds the data on entry.  Prints one line:
 *   tree_pos tree_size desc_pos desc_size image_size alg:file_digest
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "f2fslayout.h"

static void die(const char *what, const char *path, int err)
{
	fprintf(stderr, "oracle_image: %s %s: %s\n", what, path,
		f2fslayout_strerror(err));
	exit(1);
}

/* The whole of a small file (tree or descriptor), malloc'd. */
static uint8_t *slurp(const char *path, uint64_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	struct stat st;

	if (!f || fstat(fileno(f), &st))
		die("cannot open", path, -errno);
	*size = (uint64_t)st.st_size;
	buf = malloc(*size + 1);
	if (!buf)
		die("cannot hold", path, -ENOMEM);
	if (fread(buf, 1, *size, f) != *size)
		die("cannot read", path, -EIO);
	fclose(f);
	return buf;
}

static void format(int fd, const char *image, const char *tree_path,
		   const char *desc_path)
{
	struct f2fslayout_layout l;
	struct f2fslayout_tree_io io;
	struct merkle_params p;
	uint8_t root_hash[MERKLE_MAX_DIGEST_SIZE];
	uint64_t tree_size, desc_size;
	uint8_t *tree = slurp(tree_path, &tree_size);
	uint8_t *desc = slurp(desc_path, &desc_size);
	uint32_t sig_size;
	int err;

	err = merkle_descriptor_parse(desc, desc_size, &p, root_hash,
				      &sig_size);
	if (err)
		die("bad descriptor", desc_path, err);
	err = f2fslayout_plan(p.data_size, tree_size, (uint32_t)desc_size, &l);
	if (!err)
		err = f2fslayout_prepare(fd, &l);
	io = (struct f2fslayout_tree_io){ fd, l.tree_pos, l.tree_size };
	if (!err)
		err = f2fslayout_tree_write(&io, tree, tree_size, 0);
	if (!err)
		err = f2fslayout_write_metadata(fd, &l, desc);
	if (err)
		die("cannot format", image, err);
	free(tree);
	free(desc);
}

static void print_read_back(int fd, const char *image)
{
	uint8_t digest[MERKLE_MAX_DIGEST_SIZE];
	struct f2fslayout_image img;
	struct merkle_descriptor d;
	int err = f2fslayout_read(fd, &img);

	if (err)
		die("cannot read back", image, err);
	memcpy(&d, img.desc, sizeof(d));
	err = merkle_descriptor_digest(&d, digest);
	if (err)
		die("cannot digest the descriptor of", image, err);
	printf("%llu %llu %llu %u %llu %s:",
	       (unsigned long long)img.layout.tree_pos,
	       (unsigned long long)img.layout.tree_size,
	       (unsigned long long)img.layout.desc_pos,
	       img.layout.desc_size,
	       (unsigned long long)img.layout.image_size,
	       merkle_hash_alg_name(img.params.hash_alg));
	for (unsigned i = 0; i < merkle_digest_size(img.params.hash_alg); i++)
		printf("%02x", digest[i]);
	printf("\n");
	f2fslayout_image_release(&img);
}

int main(int argc, char **argv)
{
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: oracle_image IMAGE TREE DESC\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR);
	if (fd < 0)
		die("cannot open", argv[1], -errno);
	format(fd, argv[1], argv[2], argv[3]);
	print_read_back(fd, argv[1]);
	return close(fd) ? 1 : 0;
}
