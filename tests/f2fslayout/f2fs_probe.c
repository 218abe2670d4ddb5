// SPDX-License-Identifier: GPL-2.0-only
/*
 * f2fs_probe.c - look into a real f2fs image through lib/f2fslayout, for
 * the tests (host: test_f2fs_fixtures.sh; VM: tests/kernel-tests/f2fs).
 *
 *   f2fs_probe sums IMAGE        sha256sum-style line ("HEX  /path") of
 *                                every regular file, read through its
 *                                extents; the path is first looked up by
 *                                name (hashed dentries) and must give the
 *                                inode the walk found.  Files that cannot
 *                                be read: "SKIP /path: reason".
 *   f2fs_probe offset IMAGE PATH OFF       image offset of file byte OFF
 *   f2fs_probe tree-offset IMAGE PATH OFF  image offset of tree byte OFF
 *   f2fs_probe info IMAGE        the superblock and checkpoint chosen
 *   f2fs_probe cat IMAGE PATH    the file's bytes, to stdout (for the
 *                                benchmark's sealed copy of the same data)
 *
 * The expected values come from elsewhere (sha256sum in the VM, the
 * kernel's EIO), so this is a reader, not an oracle.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "f2fslayout.h"

#define CHUNK (1u << 20)

static int die(const char *what, int err)
{
	fprintf(stderr, "f2fs_probe: %s: %s\n", what, f2fslayout_strerror(err));
	return 1;
}

struct sums {
	struct f2fslayout_fs *fs;
	uint8_t *buf;
	int failed;
};

static int sha256_file(struct sums *s, const struct f2fslayout_file *f,
		       uint8_t digest[32])
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	int err = md && EVP_DigestInit_ex(md, EVP_sha256(), NULL) ? 0 : -ENOMEM;

	for (uint64_t off = 0; !err && off < f->size; off += CHUNK) {
		size_t n = f->size - off < CHUNK ? f->size - off : CHUNK;

		err = f2fslayout_file_pread(s->fs, f, s->buf, n, off);
		if (!err && !EVP_DigestUpdate(md, s->buf, n))
			err = -EIO;
	}
	if (!err && !EVP_DigestFinal_ex(md, digest, NULL))
		err = -EIO;
	EVP_MD_CTX_free(md);
	return err;
}

/* An f2fslayout_walk_fn: one line per regular file. */
static int sum_entry(void *ctx, const struct f2fslayout_dirent *e)
{
	struct sums *s = ctx;
	struct f2fslayout_file f;
	uint8_t digest[32];
	uint32_t ino;
	int err;

	if (e->err) {
		printf("SKIP %s: %s\n", e->path, f2fslayout_strerror(e->err));
		return 0;
	}
	if (e->type != F2FSLAYOUT_FT_REG_FILE)
		return 0;
	err = f2fslayout_fs_lookup(s->fs, e->path, &ino);
	if (err || ino != e->ino) {
		fprintf(stderr, "f2fs_probe: lookup of %s gives inode %" PRIu32 " (%s), the walk found %" PRIu32 "\n",
			e->path, ino, err ? f2fslayout_strerror(err) : "ok",
			e->ino);
		s->failed = 1;
		return 0;
	}
	err = f2fslayout_file_open(s->fs, ino, &f);
	if (err) {
		printf("SKIP %s: %s\n", e->path, f2fslayout_strerror(err));
		return 0;
	}
	err = sha256_file(s, &f, digest);
	f2fslayout_file_release(&f);
	if (err) {
		fprintf(stderr, "f2fs_probe: reading %s: %s\n", e->path,
			f2fslayout_strerror(err));
		s->failed = 1;
		return 0;
	}
	for (int i = 0; i < 32; i++)
		printf("%02x", digest[i]);
	printf("  %s\n", e->path);
	return 0;
}

static int cmd_sums(struct f2fslayout_fs *fs)
{
	struct sums s = { .fs = fs, .buf = malloc(CHUNK) };
	int err;

	if (!s.buf)
		return die("sums", -ENOMEM);
	err = f2fslayout_fs_walk(fs, "/", sum_entry, &s);
	free(s.buf);
	if (err)
		return die("walk", err);
	return s.failed;
}

static int cmd_offset(struct f2fslayout_fs *fs, const char *path,
		      const char *off_text, bool tree)
{
	struct f2fslayout_image img = { 0 };
	struct f2fslayout_file f;
	uint64_t off = strtoull(off_text, NULL, 0);
	uint32_t ino;
	size_t i;
	int err;

	err = f2fslayout_fs_lookup(fs, path, &ino);
	if (!err)
		err = f2fslayout_file_open(fs, ino, &f);
	if (err)
		return die(path, err);
	if (tree) {
		err = f2fslayout_file_verity(fs, &f, &img);
		off += img.layout.tree_pos;
	}
	i = f2fslayout_file_find_extent(&f, off);
	if (!err && (i == f.nr_extents ||
		     f.extents[i].image_off == F2FSLAYOUT_HOLE))
		err = F2FSLAYOUT_E_F2FS_RANGE;
	if (!err)
		printf("%" PRIu64 "\n",
		       f.extents[i].image_off + off - f.extents[i].file_off);
	f2fslayout_image_release(&img);
	f2fslayout_file_release(&f);
	return err ? die(path, err) : 0;
}

static int cmd_cat(struct f2fslayout_fs *fs, const char *path)
{
	struct f2fslayout_file f = { 0 };
	uint8_t *buf = malloc(CHUNK);
	uint32_t ino;
	int err;

	if (!buf)
		return die(path, -ENOMEM);
	err = f2fslayout_fs_lookup(fs, path, &ino);
	if (!err)
		err = f2fslayout_file_open(fs, ino, &f);
	for (uint64_t off = 0; !err && off < f.size; off += CHUNK) {
		size_t n = f.size - off < CHUNK ? f.size - off : CHUNK;

		err = f2fslayout_file_pread(fs, &f, buf, n, off);
		if (!err && fwrite(buf, 1, n, stdout) != n)
			err = -EIO;
	}
	f2fslayout_file_release(&f);	/* no extents after a failure */
	free(buf);
	return err ? die(path, err) : 0;
}

static int cmd_info(struct f2fslayout_fs *fs)
{
	struct f2fslayout_fs_info info;

	f2fslayout_fs_get_info(fs, &info);
	printf("super_copy=%u\nother_super_valid=%d\nfeatures=0x%x\n"
	       "block_count=%" PRIu64 "\ncheckpoint_pack=%u\n"
	       "checkpoint_version=%" PRIu64 "\nclean=%d\nroot_ino=%" PRIu32 "\n",
	       info.super_copy, info.other_super_valid, info.features,
	       info.block_count, info.checkpoint_pack,
	       info.checkpoint_version, info.clean, info.root_ino);
	return 0;
}

int main(int argc, char *argv[])
{
	struct f2fslayout_fs *fs;
	int fd, err, status;

	if (argc < 3 || ((!strcmp(argv[1], "offset") ||
			  !strcmp(argv[1], "tree-offset")) && argc != 5) ||
	    (!strcmp(argv[1], "cat") && argc != 4)) {
		fprintf(stderr, "usage: f2fs_probe sums|info IMAGE | cat IMAGE PATH | offset|tree-offset IMAGE PATH OFF\n");
		return 2;
	}
	fd = open(argv[2], O_RDONLY);
	if (fd < 0) {
		perror(argv[2]);
		return 2;
	}
	err = f2fslayout_fs_open(fd, &fs);
	if (err) {
		close(fd);
		return die(argv[2], err);
	}
	if (!strcmp(argv[1], "sums"))
		status = cmd_sums(fs);
	else if (!strcmp(argv[1], "info"))
		status = cmd_info(fs);
	else if (!strcmp(argv[1], "cat"))
		status = cmd_cat(fs, argv[3]);
	else
		status = cmd_offset(fs, argv[3], argv[4],
				    !strcmp(argv[1], "tree-offset"));
	f2fslayout_fs_close(fs);
	close(fd);
	return status;
}
