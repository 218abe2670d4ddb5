// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_trailer_descriptor.c - hostile trailers and descriptors.
 *
 * What an attacker who can write the image controls completely: its size,
 * the 64-byte trailer at its end and the bytes the trailer points at as
 * the descriptor.  They go through the same pure validators that
 * f2fslayout_read() runs (f2fslayout_trailer_validate(),
 * f2fslayout_check_descriptor()) and through merkle_descriptor_parse() on
 * its own, as fs/verity/open.c: fsverity_get_descriptor() would see them.
 *
 * Input:
 *   0      flags: bit 0 = re-seal the trailer checksum (a fuzzer cannot
 *          forge a CRC-32C, so without this it would never get past the
 *          checksum); bit 1 = derive the image size from the location
 *          record (round_up(pos + size + 64, 4096), as
 *          f2fslayout_plan() does), so that most layouts are in bounds;
 *          bit 2 = also lay the bytes out as a real (sparse, in-memory)
 *          image file and read it with f2fslayout_read(), which must
 *          give the same answer as the pure validators
 *   1..8   image size, le64 (unless bit 1)
 *   9..72  the trailer
 *   73..   the descriptor (+ signature): parsed as is, and, when the
 *          trailer is valid, zero-padded or cut to its loc.size
 *
 * Oracle: no crash or out-of-bounds access (ASan), every error has its
 * own message, and whatever is accepted obeys the layout rules of
 * docs/FORMAT.md, so that the readers can trust it without re-checking.
 */
#include <endian.h>
#include <sys/mman.h>
#include <unistd.h>

#include "f2fslayout.h"
#include "fuzz_input.h"

#define FLAG_RESEAL (1u << 0)
#define FLAG_DERIVE_IMAGE_SIZE (1u << 1)
#define FLAG_IMAGE_FILE (1u << 2)
/* Image files beyond this are not laid out (sparse, but off_t-bound). */
#define MAX_IMAGE_FILE_SIZE (1ull << 40)

/* Every error the validators return must have its own message. */
static void check_error_named(int err)
{
	FUZZ_CHECK(err < 0);
	FUZZ_CHECK(strcmp(f2fslayout_strerror(err), "unknown error") != 0);
}

/* Accepted parameters are ones the tree code can use. */
static void check_params(const struct merkle_params *p)
{
	struct merkle_geometry g;

	FUZZ_CHECK(merkle_digest_size(p->hash_alg) != 0);
	FUZZ_CHECK(p->log_blocksize >= MERKLE_MIN_LOG_BLOCKSIZE &&
		   p->log_blocksize <= MERKLE_MAX_LOG_BLOCKSIZE);
	FUZZ_CHECK(p->salt_size <= MERKLE_MAX_SALT_SIZE);
	FUZZ_CHECK(merkle_geometry_init(&g, p) == 0);
	FUZZ_CHECK(g.num_levels <= MERKLE_MAX_LEVELS);
}

/* merkle_descriptor_parse() alone, on a buffer of exactly len bytes. */
static void fuzz_descriptor_parse(const uint8_t *bytes, size_t len)
{
	uint8_t root_hash[MERKLE_MAX_DIGEST_SIZE];
	uint8_t digest[MERKLE_MAX_DIGEST_SIZE];
	struct merkle_params p;
	uint32_t sig_size;
	/* An exact-size copy: ASan then catches any read past len. */
	uint8_t *buf = malloc(len ? len : 1);
	int err;

	if (!buf)
		return;
	memcpy(buf, bytes, len);
	err = merkle_descriptor_parse(buf, len, &p, root_hash, &sig_size);
	if (err) {
		check_error_named(err);
	} else {
		FUZZ_CHECK(len >= MERKLE_DESCRIPTOR_SIZE &&
			   len <= MERKLE_MAX_DESCRIPTOR_SIZE);
		FUZZ_CHECK(sig_size <= len - MERKLE_DESCRIPTOR_SIZE);
		check_params(&p);
		FUZZ_CHECK(merkle_descriptor_digest((const void *)buf,
						    digest) == 0);
	}
	free(buf);
}

/* The rules of docs/FORMAT.md, "Validation", steps 1..11. */
static void check_layout(const struct f2fslayout_layout *l,
			 uint64_t image_size)
{
	FUZZ_CHECK(l->image_size == image_size);
	FUZZ_CHECK(image_size >= F2FSLAYOUT_TRAILER_SIZE);
	FUZZ_CHECK(l->trailer_pos == image_size - F2FSLAYOUT_TRAILER_SIZE);
	FUZZ_CHECK(l->desc_size >= MERKLE_DESCRIPTOR_SIZE &&
		   l->desc_size <= MERKLE_MAX_DESCRIPTOR_SIZE);
	FUZZ_CHECK(l->tree_pos >= l->data_size &&
		   l->tree_pos - l->data_size < F2FSLAYOUT_METADATA_ALIGN &&
		   l->tree_pos % F2FSLAYOUT_METADATA_ALIGN == 0);
	FUZZ_CHECK(l->desc_pos >= l->tree_pos);
	/* desc_pos + desc_size <= trailer_pos, without overflow. */
	FUZZ_CHECK(l->desc_pos <= l->trailer_pos &&
		   l->desc_size <= l->trailer_pos - l->desc_pos);
}

/* Steps 12..14 on desc, the l->desc_size bytes the trailer points at. */
static int fuzz_check_descriptor(const struct f2fslayout_layout *l,
				 const uint8_t *desc)
{
	struct f2fslayout_image img;
	int err = f2fslayout_check_descriptor(l, desc, &img);

	if (err) {
		check_error_named(err);
	} else {
		check_params(&img.params);
		FUZZ_CHECK(img.params.data_size == l->data_size);
		FUZZ_CHECK(img.sig_size <=
			   l->desc_size - MERKLE_DESCRIPTOR_SIZE);
		FUZZ_CHECK(img.layout.tree_size == img.geometry.tree_size);
		/* The tree lies in [tree_pos, desc_pos): no overlap. */
		FUZZ_CHECK(img.layout.tree_size <=
			   l->desc_pos - l->tree_pos);
	}
	return err;
}

/*
 * The image as a file: the trailer at its end and, if the trailer is
 * valid, the descriptor where it points; everything else a hole.
 * f2fslayout_read() must agree with the pure validators (expect).
 */
static void fuzz_read_image(const uint8_t *trailer, uint64_t image_size,
			    const struct f2fslayout_layout *l,
			    const uint8_t *desc, int expect)
{
	struct f2fslayout_image img;
	int fd, err;

	if (image_size > MAX_IMAGE_FILE_SIZE)
		return;
	fd = memfd_create("fuzz-image", MFD_CLOEXEC);
	FUZZ_CHECK(fd >= 0);
	FUZZ_CHECK(ftruncate(fd, (off_t)image_size) == 0);
	if (image_size >= F2FSLAYOUT_TRAILER_SIZE)
		FUZZ_CHECK(pwrite(fd, trailer, F2FSLAYOUT_TRAILER_SIZE,
				  (off_t)(image_size -
					  F2FSLAYOUT_TRAILER_SIZE)) ==
			   F2FSLAYOUT_TRAILER_SIZE);
	if (desc)
		FUZZ_CHECK(pwrite(fd, desc, l->desc_size, (off_t)l->desc_pos) ==
			   (ssize_t)l->desc_size);
	err = f2fslayout_read(fd, &img);
	FUZZ_CHECK(err == expect);
	if (!err)
		f2fslayout_image_release(&img);
	close(fd);
}

/* round_up(loc.pos + loc.size + 64, 4096), saturating at 2^64 - 4096. */
static uint64_t derived_image_size(const uint8_t *trailer)
{
	uint32_t loc_size;
	uint64_t loc_pos, end;

	memcpy(&loc_size, trailer + 28, sizeof(loc_size));
	memcpy(&loc_pos, trailer + 32, sizeof(loc_pos));
	end = le64toh(loc_pos) + le32toh(loc_size) + F2FSLAYOUT_TRAILER_SIZE;
	if (end < le64toh(loc_pos) || end > UINT64_MAX - F2FSLAYOUT_IMAGE_ALIGN)
		return UINT64_MAX - F2FSLAYOUT_IMAGE_ALIGN + 1;
	return (end + F2FSLAYOUT_IMAGE_ALIGN - 1) &
	       ~(uint64_t)(F2FSLAYOUT_IMAGE_ALIGN - 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t trailer[F2FSLAYOUT_TRAILER_SIZE];
	struct f2fslayout_layout l;
	struct fuzz_input in;
	uint64_t image_size;
	uint8_t *desc = NULL;
	unsigned flags;
	int err;

	fuzz_input_init(&in, data, size);
	flags = (unsigned)fuzz_take_le(&in, 1);
	image_size = fuzz_take_le(&in, 8);
	fuzz_take_bytes(&in, trailer, sizeof(trailer));
	if (flags & FLAG_RESEAL)
		f2fslayout_trailer_seal(trailer);
	if (flags & FLAG_DERIVE_IMAGE_SIZE)
		image_size = derived_image_size(trailer);

	fuzz_descriptor_parse(fuzz_rest(&in), fuzz_remaining(&in));

	err = f2fslayout_trailer_validate(trailer, image_size, &l);
	if (err) {
		check_error_named(err);
	} else {
		check_layout(&l, image_size);
		/* The descriptor: the rest of the input, cut or zero-padded
		 * to the size the trailer gives it. */
		desc = calloc(1, l.desc_size);
		FUZZ_CHECK(desc != NULL);
		fuzz_take_bytes(&in, desc, l.desc_size);
		err = fuzz_check_descriptor(&l, desc);
	}
	if (flags & FLAG_IMAGE_FILE)
		fuzz_read_image(trailer, image_size, &l, desc, err);
	free(desc);
	return 0;
}
