// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_image.c - lib/f2fslayout on real file descriptors: an image written
 * with prepare / tree_write / write_metadata reads back identically, its
 * data is untouched, and damaged or mismatched images are rejected with
 * their own error codes.  Images live in memfds (regular files that need
 * no cleanup).  Tree bytes are a pattern: where they land is this
 * library's business, their hashes are lib/merkle's (and the oracle
 * test's).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"

static uint8_t pattern_byte(uint64_t pos, uint8_t seed)
{
	return (uint8_t)((pos * 2654435761u) >> 13) ^ seed;
}

static void fill_pattern(uint8_t *buf, size_t len, uint64_t pos,
			 uint8_t seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = pattern_byte(pos + i, seed);
}

/* Write len pattern bytes at pos, in 64 KiB pieces. */
static void write_pattern(int fd, uint64_t pos, uint64_t len, uint8_t seed)
{
	static uint8_t chunk[65536];

	while (len) {
		size_t n = len < sizeof(chunk) ? len : sizeof(chunk);

		fill_pattern(chunk, n, pos, seed);
		CHECK(pwrite(fd, chunk, n, (off_t)pos) == (ssize_t)n);
		pos += n;
		len -= n;
	}
}

/* Are the len bytes at pos the pattern (or zero, if zero)? */
static bool bytes_are(int fd, uint64_t pos, uint64_t len, bool zero,
		      uint8_t seed)
{
	static uint8_t want[65536], got[65536];

	while (len) {
		size_t n = len < sizeof(got) ? len : sizeof(got);

		if (zero)
			memset(want, 0, n);
		else
			fill_pattern(want, n, pos, seed);
		if (pread(fd, got, n, (off_t)pos) != (ssize_t)n ||
		    memcmp(got, want, n))
			return false;
		pos += n;
		len -= n;
	}
	return true;
}

static int new_image_fd(void)
{
	int fd = memfd_create("f2fslayout-test", 0);

	if (fd < 0) {
		perror("memfd_create");
		exit(1);
	}
	return fd;
}

static uint64_t file_size(int fd)
{
	off_t end = lseek(fd, 0, SEEK_END);

	CHECK(end >= 0);
	return (uint64_t)end;
}

/* What a test image is made of. */
struct image_spec {
	uint64_t data_size;
	unsigned hash_alg;
	unsigned log_blocksize;
	unsigned salt_size;
	uint32_t sig_size;	/* pattern bytes appended to the descriptor */
};

/* A descriptor (+ signature) for spec; *len gets its size. */
static uint8_t *make_descriptor(const struct image_spec *s,
				struct merkle_params *p, uint32_t *len)
{
	uint8_t root_hash[MERKLE_MAX_DIGEST_SIZE];
	struct merkle_descriptor d;
	uint8_t *buf;

	memset(p, 0, sizeof(*p));
	p->hash_alg = s->hash_alg;
	p->log_blocksize = s->log_blocksize;
	p->salt_size = s->salt_size;
	fill_pattern(p->salt, s->salt_size, 0, 0x5a);
	p->data_size = s->data_size;
	fill_pattern(root_hash, sizeof(root_hash), 0, 0xa5);
	merkle_descriptor_init(&d, p, root_hash);

	*len = MERKLE_DESCRIPTOR_SIZE + s->sig_size;
	buf = malloc(*len);
	if (!buf)
		exit(1);
	memcpy(buf, &d, sizeof(d));
	/* sig_size is le32 at offset 4 of struct fsverity_descriptor */
	for (int i = 0; i < 4; i++)
		buf[4 + i] = (uint8_t)(s->sig_size >> (8 * i));
	fill_pattern(buf + sizeof(d), s->sig_size, 0, 0x3c);
	return buf;
}

/*
 * Format fd as the tool does: data (pattern, seed 1) already there, then
 * prepare, tree (pattern, seed 2) through f2fslayout_tree_write(), then
 * descriptor and trailer.  Returns the layout and the descriptor.
 */
static uint8_t *format_image(int fd, const struct image_spec *s,
			     struct f2fslayout_layout *l)
{
	struct merkle_geometry g;
	struct merkle_params p;
	struct f2fslayout_tree_io io;
	uint8_t *desc, *tree;
	uint32_t desc_size;

	desc = make_descriptor(s, &p, &desc_size);
	CHECK_ERR(merkle_geometry_init(&g, &p), 0);
	CHECK_ERR(f2fslayout_plan(s->data_size, g.tree_size, desc_size, l), 0);
	CHECK_ERR(f2fslayout_prepare(fd, l), 0);
	io = (struct f2fslayout_tree_io){ fd, l->tree_pos, l->tree_size };
	tree = malloc(g.tree_size + 1);
	if (!tree)
		exit(1);
	fill_pattern(tree, g.tree_size, l->tree_pos, 2);
	CHECK_ERR(f2fslayout_tree_write(&io, tree, g.tree_size, 0), 0);
	free(tree);
	CHECK_ERR(f2fslayout_write_metadata(fd, l, desc), 0);
	return desc;
}

static void check_read_back(int fd, const struct image_spec *s,
			    const struct f2fslayout_layout *l,
			    const uint8_t *desc)
{
	struct f2fslayout_image img;
	uint64_t desc_end = l->desc_pos + l->desc_size;

	CHECK_ERR(f2fslayout_read(fd, &img), 0);
	CHECK_U64(img.layout.data_size, l->data_size);
	CHECK_U64(img.layout.tree_pos, l->tree_pos);
	CHECK_U64(img.layout.tree_size, l->tree_size);
	CHECK_U64(img.layout.desc_pos, l->desc_pos);
	CHECK_U64(img.layout.desc_size, l->desc_size);
	CHECK_U64(img.layout.trailer_pos, l->trailer_pos);
	CHECK_U64(img.layout.image_size, l->image_size);
	CHECK_U64(img.geometry.tree_size, l->tree_size);
	CHECK_U64(img.params.hash_alg, s->hash_alg);
	CHECK_U64(img.params.log_blocksize, s->log_blocksize);
	CHECK_U64(img.params.salt_size, s->salt_size);
	CHECK_U64(img.sig_size, s->sig_size);
	CHECK(img.desc && memcmp(img.desc, desc, l->desc_size) == 0);
	CHECK(memcmp(img.root_hash, desc + 16,
		     merkle_digest_size(s->hash_alg)) == 0);
	f2fslayout_image_release(&img);
	CHECK(img.desc == NULL);

	CHECK_U64(file_size(fd), l->image_size);
	CHECK(bytes_are(fd, 0, s->data_size, false, 1));
	CHECK(bytes_are(fd, l->data_size, l->tree_pos - l->data_size, true,
			0));
	CHECK(bytes_are(fd, l->tree_pos, l->tree_size, false, 2));
	CHECK(bytes_are(fd, desc_end, l->trailer_pos - desc_end, true, 0));
	CHECK_U64(f2fslayout_probe(fd), 1);
}

static const struct image_spec specs[] = {
	{ 0, MERKLE_HASH_SHA256, 12, 0, 0 },
	{ 1, MERKLE_HASH_SHA256, 12, 0, 0 },
	{ 65536, MERKLE_HASH_SHA256, 12, 0, 0 },
	{ 200001, MERKLE_HASH_SHA256, 12, 7, 0 },
	{ 300000, MERKLE_HASH_SHA512, 10, 32, 0 },
	{ 1 << 20, MERKLE_HASH_SHA256, 16, 0, 0 },
	/* a signed descriptor, and one at the 16 KiB limit */
	{ 70000, MERKLE_HASH_SHA256, 12, 0, 1234 },
	{ 70000, MERKLE_HASH_SHA256, 12, 0,
	  MERKLE_MAX_DESCRIPTOR_SIZE - MERKLE_DESCRIPTOR_SIZE },
};

static void test_round_trips(void)
{
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		int fd = new_image_fd();
		struct f2fslayout_layout l;
		uint8_t *desc;

		write_pattern(fd, 0, specs[i].data_size, 1);
		/* bytes after the data (not vublk's) must not survive */
		write_pattern(fd, specs[i].data_size, 70000, 3);
		CHECK_U64(f2fslayout_probe(fd), 0);
		desc = format_image(fd, &specs[i], &l);
		check_read_back(fd, &specs[i], &l, desc);
		free(desc);
		CHECK(close(fd) == 0);
	}
}

/* Formatting again over old metadata replaces it, data untouched. */
static void test_reformat(void)
{
	struct image_spec big = { 500000, MERKLE_HASH_SHA256, 10, 0, 4000 };
	struct image_spec small = { 500000, MERKLE_HASH_SHA256, 16, 0, 0 };
	int fd = new_image_fd();
	struct f2fslayout_layout l;
	uint8_t *desc;

	write_pattern(fd, 0, big.data_size, 1);
	free(format_image(fd, &big, &l));
	desc = format_image(fd, &small, &l);
	check_read_back(fd, &small, &l, desc);
	free(desc);
	CHECK(close(fd) == 0);
}

/* A formatted image of spec, for damaging. */
static int good_image(const struct image_spec *spec,
		      struct f2fslayout_layout *l, uint8_t **desc)
{
	int fd = new_image_fd();

	write_pattern(fd, 0, spec->data_size, 1);
	*desc = format_image(fd, spec, l);
	return fd;
}

/*
 * write_metadata() alone over stale bytes past the descriptor: they go,
 * and the padding is zero again.
 */
static void test_rewrite_metadata(void)
{
	struct f2fslayout_layout l;
	uint8_t *desc;
	int fd = good_image(&specs[3], &l, &desc);

	write_pattern(fd, l.desc_pos + l.desc_size, 3 * 4096, 4);
	CHECK_ERR(f2fslayout_write_metadata(fd, &l, desc), 0);
	check_read_back(fd, &specs[3], &l, desc);
	free(desc);
	CHECK(close(fd) == 0);
}

/*
 * A signature added to, replaced in and removed from a sealed image: the
 * result reads back as if it had been formatted signed (data and tree
 * untouched), and a signature over FS_VERITY_MAX_SIGNATURE_SIZE is
 * refused with nothing written.
 */
static void test_write_signature(void)
{
	static const uint32_t sizes[] = {
		1234, MERKLE_MAX_DESCRIPTOR_SIZE - MERKLE_DESCRIPTOR_SIZE, 0,
	};
	struct image_spec spec = specs[3];
	struct f2fslayout_layout l;
	struct f2fslayout_image img;
	uint8_t *desc, *sig = malloc(MERKLE_MAX_DESCRIPTOR_SIZE);
	int fd = good_image(&spec, &l, &desc);

	for (size_t i = 0; sig && i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		free(desc);
		spec.sig_size = sizes[i];
		desc = make_descriptor(&spec, &(struct merkle_params){ 0 },
				       &(uint32_t){ 0 });
		fill_pattern(sig, sizes[i], 0, 0x3c);
		CHECK_ERR(f2fslayout_read(fd, &img), 0);
		CHECK_ERR(f2fslayout_write_signature(fd, &img, sig, sizes[i]), 0);
		CHECK_ERR(f2fslayout_write_signature(fd, &img, sig,
				MERKLE_MAX_DESCRIPTOR_SIZE -
				MERKLE_DESCRIPTOR_SIZE + 1),
			  F2FSLAYOUT_E_DESC_TOO_LARGE);
		f2fslayout_image_release(&img);
		CHECK_ERR(f2fslayout_plan(spec.data_size, l.tree_size,
					  MERKLE_DESCRIPTOR_SIZE + sizes[i], &l),
			  0);
		check_read_back(fd, &spec, &l, desc);
	}
	free(sig);
	free(desc);
	CHECK(close(fd) == 0);
}

static int read_err(int fd)
{
	struct f2fslayout_image img;
	int err = f2fslayout_read(fd, &img);

	if (!err)
		f2fslayout_image_release(&img);
	return err;
}

/* Put a trailer pointing at (desc_pos, desc_size) at the end of fd. */
static void write_trailer(int fd, uint64_t data_size, uint64_t desc_pos,
			  uint32_t desc_size)
{
	const struct f2fslayout_trailer t = {
		.version = F2FSLAYOUT_TRAILER_VERSION,
		.size = F2FSLAYOUT_TRAILER_SIZE,
		.data_size = data_size,
		.loc_version = F2FSLAYOUT_LOCATION_VERSION,
		.loc_size = desc_size,
		.loc_pos = desc_pos,
	};
	uint8_t buf[F2FSLAYOUT_TRAILER_SIZE];

	f2fslayout_trailer_encode(&t, buf);
	CHECK(pwrite(fd, buf, sizeof(buf),
		     (off_t)(file_size(fd) - sizeof(buf))) ==
	      (ssize_t)sizeof(buf));
}

static void test_damaged_descriptor(void)
{
	struct f2fslayout_layout l;
	uint8_t *desc;
	int fd = good_image(&specs[3], &l, &desc);
	uint8_t bad = 2;

	/* descriptor version byte: lib/merkle's verdict passes through */
	CHECK(pwrite(fd, &bad, 1, (off_t)l.desc_pos) == 1);
	CHECK_ERR(read_err(fd), MERKLE_E_BAD_VERSION);
	/* descriptor data_size (le64 at 8) != trailer data_size */
	CHECK(pwrite(fd, desc, l.desc_size, (off_t)l.desc_pos) ==
	      (ssize_t)l.desc_size);
	CHECK_ERR(read_err(fd), 0);
	bad = desc[8] ^ 1;
	CHECK(pwrite(fd, &bad, 1, (off_t)l.desc_pos + 8) == 1);
	CHECK_ERR(read_err(fd), F2FSLAYOUT_E_DATA_SIZE_MISMATCH);
	/* descriptor moved onto the tree: no room left for the tree */
	CHECK(pwrite(fd, desc, l.desc_size, (off_t)l.tree_pos) ==
	      (ssize_t)l.desc_size);
	write_trailer(fd, l.data_size, l.tree_pos, l.desc_size);
	CHECK_ERR(read_err(fd), F2FSLAYOUT_E_TREE_OVERLAPS_DESC);
	free(desc);
	CHECK(close(fd) == 0);
}

static void test_truncated_image(void)
{
	struct f2fslayout_layout l;
	uint8_t *desc;
	int fd = good_image(&specs[3], &l, &desc);

	/* the last page (with the trailer) lost */
	CHECK(ftruncate(fd, (off_t)(l.image_size - 4096)) == 0);
	CHECK_ERR(read_err(fd), F2FSLAYOUT_E_NO_TRAILER);
	CHECK_U64(f2fslayout_probe(fd), 0);
	/* the trailer survives but the descriptor was cut off */
	CHECK(ftruncate(fd, (off_t)(l.desc_pos + 64)) == 0);
	write_trailer(fd, l.data_size, l.desc_pos, l.desc_size);
	CHECK_ERR(read_err(fd), F2FSLAYOUT_E_DESC_PAST_EOF);
	CHECK_U64(f2fslayout_probe(fd), 1);
	CHECK(ftruncate(fd, 63) == 0);
	CHECK_ERR(read_err(fd), F2FSLAYOUT_E_IMAGE_TOO_SMALL);
	CHECK_U64(f2fslayout_probe(fd), 0);
	free(desc);
	CHECK(close(fd) == 0);
}

/* A damaged trailer still counts as metadata for the probe. */
static void test_probe_damaged(void)
{
	struct f2fslayout_layout l;
	uint8_t *desc;
	int fd = good_image(&specs[3], &l, &desc);
	uint8_t bad = 0xff;

	CHECK(pwrite(fd, &bad, 1, (off_t)l.trailer_pos + 60) == 1);
	CHECK_ERR(read_err(fd), F2FSLAYOUT_E_TRAILER_CHECKSUM);
	CHECK_U64(f2fslayout_probe(fd), 1);
	free(desc);
	CHECK(close(fd) == 0);
}

/* An image cut to size bytes: read says the trailer is missing and where
 * the descriptor left is, and probe counts it as sealed. */
static void check_lost_trailer(int fd, const struct f2fslayout_layout *l)
{
	struct f2fslayout_image img;

	CHECK_ERR(f2fslayout_read(fd, &img), F2FSLAYOUT_E_TRAILER_MISSING);
	CHECK_U64(img.layout.data_size, l->data_size);
	CHECK_U64(img.layout.desc_pos, l->desc_pos);
	CHECK_U64(f2fslayout_probe(fd), 1);
}

/*
 * A sealed image that lost its trailer but kept its descriptor, told
 * apart from one that never had metadata: the magic damaged, cut by one
 * byte, cut down to the descriptor's 256 bytes; a signed descriptor at
 * the 16 KiB limit starts farthest from the end.  One byte less of the
 * descriptor and the image is plain data.
 */
static void test_lost_trailer(void)
{
	const struct image_spec *const cases[] = { &specs[3], &specs[4],
						   &specs[6], &specs[7] };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct f2fslayout_layout l;
		uint8_t *desc, magic;
		int fd = good_image(cases[i], &l, &desc);

		CHECK(pread(fd, &magic, 1, (off_t)l.trailer_pos) == 1);
		magic ^= 0x20;
		CHECK(pwrite(fd, &magic, 1, (off_t)l.trailer_pos) == 1);
		check_lost_trailer(fd, &l);
		CHECK(ftruncate(fd, (off_t)(l.image_size - 1)) == 0);
		check_lost_trailer(fd, &l);
		CHECK(ftruncate(fd, (off_t)(l.desc_pos + 256)) == 0);
		check_lost_trailer(fd, &l);
		CHECK(ftruncate(fd, (off_t)(l.desc_pos + 255)) == 0);
		CHECK_ERR(read_err(fd), F2FSLAYOUT_E_NO_TRAILER);
		CHECK_U64(f2fslayout_probe(fd), 0);
		free(desc);
		CHECK(close(fd) == 0);
	}
}

static void test_tree_io(void)
{
	struct f2fslayout_layout l;
	uint8_t *desc, buf[8192];
	/* sha512, 1 KiB blocks: a 22 KiB tree of three levels */
	int fd = good_image(&specs[4], &l, &desc);
	struct f2fslayout_tree_io io = { fd, l.tree_pos, l.tree_size };

	CHECK(l.tree_size >= 2 * 4096);
	CHECK_ERR(f2fslayout_tree_read(&io, buf, 4096, l.tree_size - 4096),
		  0);
	CHECK_ERR(f2fslayout_tree_read(&io, buf, 2, l.tree_size - 1),
		  F2FSLAYOUT_E_TREE_RANGE);
	CHECK_ERR(f2fslayout_tree_read(&io, buf, 1, UINT64_MAX),
		  F2FSLAYOUT_E_TREE_RANGE);
	CHECK_ERR(f2fslayout_tree_write(&io, buf, 1, l.tree_size),
		  F2FSLAYOUT_E_TREE_RANGE);
	/* a tree region past the end of the file */
	io.tree_pos = l.image_size - 100;
	CHECK_ERR(f2fslayout_tree_read(&io, buf, 4096, 0),
		  F2FSLAYOUT_E_TRUNCATED);
	io.fd = -1;
	CHECK_ERR(f2fslayout_tree_read(&io, buf, 1, 0), -EBADF);
	free(desc);
	CHECK(close(fd) == 0);
}

/* Not a file: a pipe.  Reading refuses, writing refuses, nothing hangs. */
static void test_wrong_file_types(void)
{
	struct f2fslayout_image img;
	struct f2fslayout_layout l;
	uint8_t *desc;
	int fd = good_image(&specs[3], &l, &desc);
	int pipefd[2];

	CHECK(pipe(pipefd) == 0);
	CHECK_ERR(f2fslayout_read(pipefd[0], &img),
		  F2FSLAYOUT_E_BAD_FILE_TYPE);
	CHECK_ERR(f2fslayout_probe(pipefd[0]), F2FSLAYOUT_E_BAD_FILE_TYPE);
	CHECK_ERR(f2fslayout_prepare(pipefd[1], &l),
		  F2FSLAYOUT_E_NOT_REGULAR);
	CHECK_ERR(f2fslayout_write_metadata(pipefd[1], &l, desc),
		  F2FSLAYOUT_E_NOT_REGULAR);
	CHECK(close(pipefd[0]) == 0 && close(pipefd[1]) == 0);
	CHECK_ERR(f2fslayout_read(pipefd[0], &img), -EBADF);
	free(desc);
	CHECK(close(fd) == 0);
}

/* write_metadata checks before it writes, and then writes nothing. */
static void test_write_refuses_bad_metadata(void)
{
	struct f2fslayout_layout l, bad;
	uint8_t *desc;
	int fd = good_image(&specs[3], &l, &desc);

	bad = l;
	bad.data_size += 1;
	CHECK_ERR(f2fslayout_write_metadata(fd, &bad, desc),
		  F2FSLAYOUT_E_DATA_SIZE_MISMATCH);
	bad = l;
	bad.desc_pos = l.tree_pos;
	CHECK_ERR(f2fslayout_write_metadata(fd, &bad, desc),
		  F2FSLAYOUT_E_TREE_OVERLAPS_DESC);
	bad = l;
	bad.image_size = l.desc_pos + l.desc_size;
	CHECK_ERR(f2fslayout_write_metadata(fd, &bad, desc),
		  F2FSLAYOUT_E_DESC_OVERLAPS_TRAILER);
	bad = l;
	bad.image_size = UINT64_MAX;
	CHECK_ERR(f2fslayout_write_metadata(fd, &bad, desc),
		  F2FSLAYOUT_E_IMAGE_TOO_LARGE);
	CHECK_ERR(read_err(fd), 0);
	CHECK_U64(file_size(fd), l.image_size);
	free(desc);
	CHECK(close(fd) == 0);
}

/*
 * f2fslayout_error_kind(): each kind from the failure that really produces
 * it, so that callers word "not an image", "damaged", "cannot read" and
 * "bad argument" right.  lib/merkle's codes pass through its classifier.
 */
static void test_error_kinds(void)
{
	struct f2fslayout_layout l;
	uint8_t *desc, bad = 2;
	int fd = good_image(&specs[3], &l, &desc);
	int pipefd[2];

	CHECK(f2fslayout_error_kind(read_err(fd)) == F2FSLAYOUT_ERR_NONE);
	CHECK(pwrite(fd, &bad, 1, (off_t)l.desc_pos) == 1);
	CHECK(f2fslayout_error_kind(read_err(fd)) == F2FSLAYOUT_ERR_DAMAGE);
	CHECK(pwrite(fd, desc, l.desc_size, (off_t)l.desc_pos) ==
	      (ssize_t)l.desc_size);
	bad = 0xff;
	CHECK(pwrite(fd, &bad, 1, (off_t)l.trailer_pos + 60) == 1);
	CHECK(f2fslayout_error_kind(read_err(fd)) == F2FSLAYOUT_ERR_DAMAGE);
	CHECK(ftruncate(fd, (off_t)(l.image_size - 4096)) == 0);
	CHECK(f2fslayout_error_kind(read_err(fd)) ==
	      F2FSLAYOUT_ERR_NOT_SEALED);
	CHECK(pipe(pipefd) == 0);
	CHECK(f2fslayout_error_kind(read_err(pipefd[0])) ==
	      F2FSLAYOUT_ERR_ARGUMENT);
	CHECK(close(pipefd[0]) == 0 && close(pipefd[1]) == 0);
	CHECK(f2fslayout_error_kind(read_err(pipefd[0])) == F2FSLAYOUT_ERR_IO);
	CHECK(f2fslayout_error_kind(MERKLE_E_NOMEM) == F2FSLAYOUT_ERR_NOMEM);
	CHECK(f2fslayout_error_kind(MERKLE_E_DIGEST_SYNTAX) ==
	      F2FSLAYOUT_ERR_ARGUMENT);
	CHECK(f2fslayout_error_kind(F2FSLAYOUT_E_F2FS_COMPRESSED) ==
	      F2FSLAYOUT_ERR_UNSUPPORTED);
	CHECK(f2fslayout_error_kind(F2FSLAYOUT_E_F2FS_NODE_FOOTER) ==
	      F2FSLAYOUT_ERR_DAMAGE);
	free(desc);
	CHECK(close(fd) == 0);
}

int main(void)
{
	test_round_trips();
	test_reformat();
	test_rewrite_metadata();
	test_write_signature();
	test_damaged_descriptor();
	test_truncated_image();
	test_probe_damaged();
	test_lost_trailer();
	test_tree_io();
	test_wrong_file_types();
	test_write_refuses_bad_metadata();
	test_error_kinds();
	return check_failures != 0;
}
