// SPDX-License-Identifier: GPL-2.0-only
/*
 * merkle_oracle_tool - lib/merkle's answer to `fsverity digest`, for the
 * oracle test (oracle_test.sh), which compares the two byte for byte.
 *
 *   merkle_oracle_tool FILE --hash-alg=A --block-size=B [--salt=HEX]
 *                      [--threads=N] [--out-merkle-tree=T]
 *                      [--out-descriptor=D]
 *
 * Prints "ALG:FILE_DIGEST FILE" as `fsverity digest` does.  Also the
 * micro-benchmark hook: `time merkle_oracle_tool BIGFILE --threads=N`.
 *
 * With --format=dm-verity, the tree is dm-verity's (salt of up to 256
 * bytes, hashed unpadded; --data-block-size=N for data blocks of another
 * size than --block-size, the hash blocks'; every algorithm veritysetup
 * takes; --hash-type=0 for Chrome OS's hash type 0, 1 the default) and
 * the line printed is "Root hash: HEX", as `veritysetup format
 * --no-superblock` prints it; dmverity_oracle.sh compares the two.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "merkle.h"

struct oracle_args {
	const char *file;
	const char *tree_out;
	const char *desc_out;
	const char *salt_hex;
	struct merkle_params params;
	unsigned threads;
	bool hash_type0;
};

static int pread_full(void *ctx, void *buf, size_t len, uint64_t off)
{
	int fd = *(int *)ctx;

	while (len) {
		ssize_t n = pread(fd, buf, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf = (char *)buf + n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

static int pwrite_full(void *ctx, const void *buf, size_t len, uint64_t off)
{
	int fd = *(int *)ctx;

	while (len) {
		ssize_t n = pwrite(fd, buf, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf = (const char *)buf + n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

static int parse_salt(const char *hex, struct merkle_params *p)
{
	size_t len = strlen(hex);

	if (len % 2 || len / 2 > MERKLE_DMV_MAX_SALT_SIZE)
		return -1;
	for (size_t i = 0; i < len / 2; i++) {
		unsigned byte;

		if (sscanf(hex + 2 * i, "%2x", &byte) != 1)
			return -1;
		p->salt[i] = (uint8_t)byte;
	}
	p->salt_size = (unsigned)(len / 2);
	return 0;
}

static int parse_block_size(const char *text, struct merkle_params *p)
{
	unsigned long bs = strtoul(text, NULL, 10);

	if (bs == 0 || (bs & (bs - 1)))
		return -1;
	p->log_blocksize = (unsigned)__builtin_ctzl(bs);
	return 0;
}

static int parse_option(const char *arg, struct oracle_args *a)
{
	int alg;

	if (strncmp(arg, "--hash-alg=", 11) == 0) {
		alg = merkle_dmv_hash_alg_from_name(arg + 11);
		a->params.hash_alg = (unsigned)alg;
		return alg < 0 ? -1 : 0;
	}
	if (strncmp(arg, "--block-size=", 13) == 0)
		return parse_block_size(arg + 13, &a->params);
	if (strncmp(arg, "--data-block-size=", 18) == 0) {
		struct merkle_params p;

		if (parse_block_size(arg + 18, &p))
			return -1;
		a->params.log_data_blocksize = p.log_blocksize;
		return 0;
	}
	if (strcmp(arg, "--format=dm-verity") == 0) {
		a->params.format = MERKLE_FORMAT_DMVERITY;
		return 0;
	}
	if (strncmp(arg, "--hash-type=", 12) == 0) {
		a->hash_type0 = strcmp(arg + 12, "0") == 0;
		return a->hash_type0 || strcmp(arg + 12, "1") == 0 ? 0 : -1;
	}
	if (strncmp(arg, "--salt=", 7) == 0)
		return parse_salt(arg + 7, &a->params);
	if (strncmp(arg, "--threads=", 10) == 0) {
		a->threads = (unsigned)strtoul(arg + 10, NULL, 10);
		return 0;
	}
	if (strncmp(arg, "--out-merkle-tree=", 18) == 0) {
		a->tree_out = arg + 18;
		return 0;
	}
	if (strncmp(arg, "--out-descriptor=", 17) == 0) {
		a->desc_out = arg + 17;
		return 0;
	}
	if (arg[0] == '-' || a->file)
		return -1;
	a->file = arg;
	return 0;
}

static int parse_args(int argc, char **argv, struct oracle_args *a)
{
	memset(a, 0, sizeof(*a));
	a->params.hash_alg = MERKLE_HASH_SHA256;
	a->params.log_blocksize = 12;
	a->threads = 1;
	for (int i = 1; i < argc; i++) {
		if (parse_option(argv[i], a) != 0) {
			fprintf(stderr, "merkle_oracle_tool: bad argument '%s'\n",
				argv[i]);
			return -1;
		}
	}
	if (a->hash_type0 && a->params.format == MERKLE_FORMAT_DMVERITY)
		a->params.format = MERKLE_FORMAT_DMVERITY_V0;
	if (!a->file) {
		fprintf(stderr, "usage: merkle_oracle_tool FILE [--hash-alg=A] [--block-size=B] [--salt=HEX] [--threads=N] [--out-merkle-tree=T] [--out-descriptor=D]\n");
		return -1;
	}
	return 0;
}

static int write_file(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int err;

	if (fd < 0)
		return -errno;
	err = pwrite_full(&fd, buf, len, 0);
	if (close(fd) != 0 && !err)
		err = -errno;
	return err;
}

static int build(struct oracle_args *a, int data_fd, int tree_fd)
{
	uint8_t root[MERKLE_MAX_DIGEST_SIZE], digest[MERKLE_MAX_DIGEST_SIZE];
	struct merkle_descriptor desc;
	unsigned ds = merkle_digest_size(a->params.hash_alg);
	int err;

	err = merkle_build_tree(&a->params, pread_full, &data_fd,
				tree_fd >= 0 ? pwrite_full : NULL, &tree_fd,
				a->threads, root);
	if (err)
		return err;
	if (merkle_format_dmverity(&a->params)) {
		printf("Root hash: ");
		for (unsigned i = 0; i < ds; i++)
			printf("%02x", root[i]);
		printf("\n");
		return 0;
	}
	merkle_descriptor_init(&desc, &a->params, root);
	err = merkle_descriptor_digest(&desc, digest);
	if (err)
		return err;
	if (a->desc_out) {
		err = write_file(a->desc_out, &desc, sizeof(desc));
		if (err)
			return err;
	}
	printf("%s:", merkle_hash_alg_name(a->params.hash_alg));
	for (unsigned i = 0; i < ds; i++)
		printf("%02x", digest[i]);
	printf(" %s\n", a->file);
	return 0;
}

int main(int argc, char **argv)
{
	struct oracle_args a;
	struct stat st;
	int data_fd, tree_fd = -1, err;

	if (parse_args(argc, argv, &a) != 0)
		return 2;
	data_fd = open(a.file, O_RDONLY);
	if (data_fd < 0 || fstat(data_fd, &st) != 0) {
		perror(a.file);
		return 1;
	}
	a.params.data_size = (uint64_t)st.st_size;
	if (a.tree_out) {
		tree_fd = open(a.tree_out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (tree_fd < 0) {
			perror(a.tree_out);
			return 1;
		}
	}
	err = build(&a, data_fd, tree_fd);
	if (tree_fd >= 0 && close(tree_fd) != 0 && !err)
		err = -errno;
	close(data_fd);
	if (err) {
		fprintf(stderr, "merkle_oracle_tool: %s: %s\n", a.file,
			merkle_strerror(err));
		return 1;
	}
	return 0;
}
