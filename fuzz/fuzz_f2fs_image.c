// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_f2fs_image.c - lib/f2fslayout's f2fs parser against hostile
 * images.
 *
 * Whoever hands us an image controls every byte of it: superblocks,
 * checkpoints, NAT, nodes, inodes, xattrs, dentries and the verity
 * metadata past EOF.  Each input is laid out as a sparse image file in
 * memory and read as `vublk-verity f2fs list` and `check` read it:
 * f2fslayout_fs_open(), a walk of the whole tree, a lookup of the paths
 * walked, f2fslayout_file_open() of the regular files with reads through
 * their extents, and for verity files f2fslayout_file_verity() and the
 * verification of their first blocks (the first so many of each, so that
 * one input stays fast).
 *
 * Input: le32 image size in blocks (at least 2, at most 2^15: 128 MiB,
 * sparse), then records up to the end: le32 byte offset, le16 length (at
 * most 4096), that many bytes written there (cut at the image's end).
 * fuzz/make-corpus turns the fixtures of tests/f2fslayout into seeds this
 * way: their runs of non-zero metadata bytes.
 *
 * Oracle: no crash, hang or out-of-bounds access (ASan, UBSan); every
 * error has a message; a mapped file's extents are sorted, contiguous,
 * cover exactly [0, mapped_size) and lie inside the image; a verity
 * file's layout is the one docs/FORMAT.md gives for f2fs.
 */
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "f2fslayout.h"
#include "fuzz_input.h"

#define BLOCK 4096u
#define MAX_IMAGE_BLOCKS (1u << 15)
/* Bounds that keep one input fast. */
#define MAX_ENTRIES 2000
#define MAX_LOOKUPS 128
#define MAX_FILES 24
#define READ_SPAN (64u << 10)
#define VERIFY_BLOCKS 64

struct walked {
	struct f2fslayout_fs *fs;
	uint64_t image_size;
	size_t entries, files;
};

static void check_error_named(int err)
{
	FUZZ_CHECK(err < 0);
	FUZZ_CHECK(strcmp(f2fslayout_strerror(err), "unknown error") != 0);
}

/* The extents contract of f2fslayout.h. */
static void check_extents(const struct f2fslayout_file *f,
			  uint64_t image_size)
{
	uint64_t next = 0;

	for (size_t i = 0; i < f->nr_extents; i++) {
		const struct f2fslayout_extent *e = &f->extents[i];

		FUZZ_CHECK(e->file_off == next && e->len > 0);
		FUZZ_CHECK(e->image_off == F2FSLAYOUT_HOLE ||
			   (e->image_off <= image_size &&
			    e->len <= image_size - e->image_off));
		FUZZ_CHECK(f2fslayout_file_find_extent(f, e->file_off) == i);
		next += e->len;
	}
	FUZZ_CHECK(next == f->mapped_size);
	FUZZ_CHECK(f2fslayout_file_find_extent(f, f->mapped_size) ==
		   f->nr_extents);
	FUZZ_CHECK(f->mapped_size >= f->size);
}

/* Read the start and the end of the mapped range, and one byte past it. */
static void read_file(struct f2fslayout_fs *fs,
		      const struct f2fslayout_file *f, uint8_t *buf)
{
	uint64_t len = f->mapped_size < READ_SPAN ? f->mapped_size : READ_SPAN;
	int err;

	err = f2fslayout_file_pread(fs, f, buf, len, 0);
	FUZZ_CHECK(err == 0);
	err = f2fslayout_file_pread(fs, f, buf, len, f->mapped_size - len);
	FUZZ_CHECK(err == 0);
	FUZZ_CHECK(f2fslayout_file_pread(fs, f, buf, 1, f->mapped_size) ==
		   F2FSLAYOUT_E_F2FS_RANGE);
}

/* Open the tree and verify the first blocks: any answer but a crash. */
static void verify_start(struct f2fslayout_fs *fs,
			 const struct f2fslayout_file *f,
			 const struct f2fslayout_image *img, uint8_t *buf)
{
	struct f2fslayout_file_tree_io io = {
		.fs = fs, .file = f,
		.tree_pos = img->layout.tree_pos,
		.tree_size = img->layout.tree_size,
	};
	struct merkle_cache *cache = merkle_cache_new(0);
	uint64_t n = img->geometry.data_blocks;
	struct merkle_verify_result res;
	unsigned log_bs = img->params.log_blocksize;
	struct merkle_tree *tree;

	FUZZ_CHECK(cache != NULL);
	if (n > VERIFY_BLOCKS)
		n = VERIFY_BLOCKS;
	if (n << log_bs > READ_SPAN)
		n = READ_SPAN >> log_bs;
	if (!merkle_tree_open(&tree, &img->params, img->root_hash, cache,
			      f2fslayout_file_tree_read, &io)) {
		if (!f2fslayout_file_pread(fs, f, buf, n << log_bs, 0))
			merkle_verify_blocks(tree, 0, buf, n, 4, &res);
		merkle_tree_close(tree);
	}
	merkle_cache_free(cache);
}

/* The f2fs layout of docs/FORMAT.md, in file offsets. */
static void check_verity(struct f2fslayout_fs *fs,
			 const struct f2fslayout_file *f, uint8_t *buf)
{
	struct f2fslayout_image img;
	const struct f2fslayout_layout *l = &img.layout;
	int err = f2fslayout_file_verity(fs, f, &img);

	if (err) {
		check_error_named(err);
		return;
	}
	FUZZ_CHECK(l->data_size == f->size && img.params.data_size == f->size);
	FUZZ_CHECK(l->tree_pos % F2FSLAYOUT_METADATA_ALIGN == 0 &&
		   l->tree_pos >= f->size &&
		   l->tree_pos - f->size < F2FSLAYOUT_METADATA_ALIGN);
	FUZZ_CHECK(l->tree_size == img.geometry.tree_size);
	FUZZ_CHECK(l->tree_pos + l->tree_size <= l->desc_pos);
	FUZZ_CHECK(l->desc_pos + l->desc_size <= f->mapped_size);
	verify_start(fs, f, &img, buf);
	f2fslayout_image_release(&img);
}

static void check_file(struct walked *w, const struct f2fslayout_dirent *e)
{
	static uint8_t buf[READ_SPAN];
	struct f2fslayout_file f;
	int err = f2fslayout_file_open(w->fs, e->ino, &f);

	if (err) {
		check_error_named(err);
		FUZZ_CHECK(f.extents == NULL && f.nr_extents == 0);
		return;
	}
	check_extents(&f, w->image_size);
	read_file(w->fs, &f, buf);
	check_verity(w->fs, &f, buf);
	f2fslayout_file_release(&f);
}

/* An f2fslayout_walk_fn. */
static int visit(void *ctx, const struct f2fslayout_dirent *e)
{
	struct walked *w = ctx;
	uint32_t ino;
	int err;

	FUZZ_CHECK(e->path[0] == '/');
	if (e->err) {
		check_error_named(e->err);
		return 0;
	}
	if (w->entries < MAX_LOOKUPS) {
		err = f2fslayout_fs_lookup(w->fs, e->path, &ino);
		if (err)
			check_error_named(err);
	}
	if (e->type == F2FSLAYOUT_FT_REG_FILE && w->files++ < MAX_FILES)
		check_file(w, e);
	return ++w->entries >= MAX_ENTRIES;
}

/* The input's records, written into a sparse in-memory image. */
static int make_image(struct fuzz_input *in, uint64_t *size)
{
	uint64_t blocks = fuzz_take_le(in, 4);
	uint8_t bytes[BLOCK];
	int fd;

	if (blocks < 2)
		blocks = 2;
	if (blocks > MAX_IMAGE_BLOCKS)
		blocks = MAX_IMAGE_BLOCKS;
	*size = blocks * BLOCK;
	fd = memfd_create("fuzz-f2fs", MFD_CLOEXEC);
	FUZZ_CHECK(fd >= 0);
	FUZZ_CHECK(ftruncate(fd, (off_t)*size) == 0);
	while (fuzz_remaining(in) >= 6) {
		uint64_t off = fuzz_take_le(in, 4);
		size_t len = (size_t)fuzz_take_le(in, 2);

		if (len > BLOCK)
			len = BLOCK;
		if (len > fuzz_remaining(in))
			len = fuzz_remaining(in);
		fuzz_take_bytes(in, bytes, len);
		if (off >= *size)
			continue;
		if (len > *size - off)
			len = (size_t)(*size - off);
		FUZZ_CHECK(pwrite(fd, bytes, len, (off_t)off) == (ssize_t)len);
	}
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct walked w = { 0 };
	struct f2fslayout_fs_info info;
	struct fuzz_input in;
	int fd, err;

	fuzz_input_init(&in, data, size);
	fd = make_image(&in, &w.image_size);
	err = f2fslayout_fs_open(fd, &w.fs);
	if (err) {
		check_error_named(err);
		FUZZ_CHECK(w.fs == NULL);
	} else {
		f2fslayout_fs_get_info(w.fs, &info);
		FUZZ_CHECK(info.block_count * BLOCK <= w.image_size);
		err = f2fslayout_fs_walk(w.fs, "/", visit, &w);
		FUZZ_CHECK(err >= 0 || strcmp(f2fslayout_strerror(err),
					      "unknown error") != 0);
		f2fslayout_fs_close(w.fs);
	}
	close(fd);
	return 0;
}
