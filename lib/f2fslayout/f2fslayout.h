/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * f2fslayout.h - where a vublk image keeps its fs-verity metadata.
 *
 * This is the one public header of lib/f2fslayout.  The layout mirrors how
 * f2fs stores a verity file's metadata past the end of the file
 * (fs/f2fs/verity.c), applied to a block device image:
 *
 *   [0, data_size)               the block device's data ("i_size")
 *   [data_size, tree_pos)        zeroes (a hole), tree_pos =
 *                                round_up(data_size, 64 KiB), as
 *                                f2fs_verity_metadata_pos()
 *   [tree_pos, +tree_size)       the Merkle tree, top level first
 *                                (f2fs_write_merkle_tree_block())
 *   [desc_pos, +desc_size)       descriptor (+ signature), desc_pos =
 *                                tree_pos + tree_size, as
 *                                f2fs_end_enable_verity()
 *   [desc_end, trailer_pos)      zeroes
 *   [trailer_pos, image_size)    the 64-byte trailer; image_size is a
 *                                multiple of 4096
 *
 * An image has no xattrs, so the 16-byte location record that f2fs keeps in
 * its "v" xattr (struct fsverity_descriptor_location) lives in the trailer,
 * the last 64 bytes of the image file.  docs/FORMAT.md describes every byte.
 *
 * Errors: functions that can fail return 0 (or a documented non-negative
 * value) on success, or a negative value: -errno, one of the F2FSLAYOUT_E_*
 * codes below, or a MERKLE_E_* code from lib/merkle (descriptor
 * validation).  f2fslayout_strerror() names all three.
 *
 * Thread safety: everything is plain data or stateless.
 */
#ifndef VUBLK_F2FSLAYOUT_H
#define VUBLK_F2FSLAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "merkle.h"

/* The tree starts at the first 64 KiB boundary at or after data_size. */
#define F2FSLAYOUT_METADATA_ALIGN 65536
/* The image size is a multiple of this; the trailer ends the image. */
#define F2FSLAYOUT_IMAGE_ALIGN 4096
#define F2FSLAYOUT_TRAILER_SIZE 64
#define F2FSLAYOUT_TRAILER_VERSION 1
/* f2fs's F2FS_VERIFY_VER: the version of the location record. */
#define F2FSLAYOUT_LOCATION_VERSION 1
#define F2FSLAYOUT_MAGIC "vublkVT"	/* 8 bytes with the NUL */

/* Library-specific errors (negative, below lib/merkle's and any errno). */
enum f2fslayout_error {
	F2FSLAYOUT_E_IMAGE_TOO_SMALL = -2000, /* smaller than a trailer */
	F2FSLAYOUT_E_NO_TRAILER,	/* magic not at the end of the image */
	F2FSLAYOUT_E_TRAILER_VERSION,	/* trailer version is not 1 */
	F2FSLAYOUT_E_TRAILER_SIZE,	/* trailer size field is not 64 */
	F2FSLAYOUT_E_TRAILER_CHECKSUM,	/* trailer checksum mismatch */
	F2FSLAYOUT_E_TRAILER_RESERVED,	/* trailer reserved bytes not zero */
	F2FSLAYOUT_E_LOCATION_VERSION,	/* location record version not 1 */
	F2FSLAYOUT_E_DESC_TOO_SMALL,	/* descriptor size < 256 */
	F2FSLAYOUT_E_DESC_TOO_LARGE,	/* descriptor size > 16384 */
	F2FSLAYOUT_E_DESC_POS_OVERFLOW,	/* desc pos + size wraps 64 bits */
	F2FSLAYOUT_E_DATA_SIZE_TOO_LARGE, /* metadata area past the image */
	F2FSLAYOUT_E_DESC_BEFORE_METADATA, /* desc pos < round_up(data, 64K) */
	F2FSLAYOUT_E_DESC_PAST_EOF,	/* descriptor past the end of image */
	F2FSLAYOUT_E_DESC_OVERLAPS_TRAILER, /* descriptor runs into trailer */
	F2FSLAYOUT_E_DATA_SIZE_MISMATCH, /* descriptor vs trailer data_size */
	F2FSLAYOUT_E_TREE_OVERLAPS_DESC, /* tree too big for its region */
	F2FSLAYOUT_E_TRUNCATED,		/* image shrank while being read */
	F2FSLAYOUT_E_BAD_FILE_TYPE,	/* neither regular file nor blkdev */
	F2FSLAYOUT_E_NOT_REGULAR,	/* writing needs a regular file */
	F2FSLAYOUT_E_IMAGE_TOO_LARGE,	/* planned image exceeds off_t */
	F2FSLAYOUT_E_TREE_RANGE,	/* tree I/O outside the tree */
};

/*
 * Human-readable, one-line text for a negative return value of this
 * library (including lib/merkle's codes and -errno).
 */
const char *f2fslayout_strerror(int err);

/* The kinds of failure, for reporting. */
enum f2fslayout_error_kind {
	F2FSLAYOUT_ERR_NONE,		/* not a failure */
	F2FSLAYOUT_ERR_NOT_SEALED,	/* no vublk metadata at all */
	F2FSLAYOUT_ERR_DAMAGE,		/* metadata present but invalid */
	F2FSLAYOUT_ERR_ARGUMENT,	/* the caller's file or sizes won't do */
	F2FSLAYOUT_ERR_IO,		/* -errno, or the image changed meanwhile */
	F2FSLAYOUT_ERR_NOMEM,		/* out of memory */
};

/*
 * The kind of a return value of this library (lib/merkle's codes
 * included, through merkle_error_kind()); every caller classes failures
 * with this, never by comparing codes.
 */
enum f2fslayout_error_kind f2fslayout_error_kind(int err);

/* Where everything is, in bytes from the start of the image file. */
struct f2fslayout_layout {
	uint64_t data_size;	/* bytes of block device data */
	uint64_t tree_pos;	/* round_up(data_size, 64 KiB) */
	uint64_t tree_size;	/* from merkle_geometry.tree_size */
	uint64_t desc_pos;
	uint32_t desc_size;	/* descriptor + signature */
	uint64_t trailer_pos;	/* image_size - F2FSLAYOUT_TRAILER_SIZE */
	uint64_t image_size;	/* size of the whole image file */
};

/*
 * round_up(data_size, 64 KiB), f2fs_verity_metadata_pos().  Fails with
 * F2FSLAYOUT_E_DATA_SIZE_TOO_LARGE if that does not fit in 64 bits.
 */
int f2fslayout_metadata_pos(uint64_t data_size, uint64_t *pos);

/*
 * Plan the layout of a new image: where the tree, descriptor and trailer
 * go for data_size bytes of data, a tree of tree_size bytes and a
 * descriptor (+ signature) of desc_size bytes (256..16384).
 */
int f2fslayout_plan(uint64_t data_size, uint64_t tree_size,
		    uint32_t desc_size, struct f2fslayout_layout *l);

/*
 * The trailer, decoded.  Byte format (all little endian), see FORMAT.md:
 *   0  magic[8]     "vublkVT\0"
 *   8  version      le32, 1
 *  12  size         le32, 64
 *  16  data_size    le64, the "i_size" the descriptor must match
 *  24  loc.version  le32, 1     \  f2fs's struct
 *  28  loc.size     le32        |  fsverity_descriptor_location,
 *  32  loc.pos      le64        /  verbatim (16 bytes)
 *  40  reserved[20] zero
 *  60  checksum     le32, CRC-32C (Castagnoli) of bytes 0..59
 * The checksum detects accidental damage only; authenticity comes from
 * the root hash or file digest that the user trusts.
 */
struct f2fslayout_trailer {
	uint32_t version;
	uint32_t size;
	uint64_t data_size;
	uint32_t loc_version;	/* struct fsverity_descriptor_location */
	uint32_t loc_size;
	uint64_t loc_pos;
};

/*
 * Encode *t into buf (magic, fields, zero reserved bytes) and seal it with
 * its checksum.  Encodes any values, valid or not (tests and fuzzers rely
 * on that).
 */
void f2fslayout_trailer_encode(const struct f2fslayout_trailer *t,
			       uint8_t buf[F2FSLAYOUT_TRAILER_SIZE]);

/* Recompute and store the checksum of buf (bytes 60..63). */
void f2fslayout_trailer_seal(uint8_t buf[F2FSLAYOUT_TRAILER_SIZE]);

/*
 * Pure validation of the last F2FSLAYOUT_TRAILER_SIZE bytes of an image of
 * image_size bytes, as f2fs_get_verity_descriptor() validates its xattr:
 * magic, trailer version, size, checksum and reserved bytes, location
 * version, descriptor size (256..16384), pos + size overflow,
 * pos >= round_up(data_size, 64 KiB), descriptor inside the image and
 * before the trailer.  On success fills *l except tree_size (0; it needs
 * the descriptor, see f2fslayout_check_descriptor()).
 */
int f2fslayout_trailer_validate(const uint8_t buf[F2FSLAYOUT_TRAILER_SIZE],
				uint64_t image_size,
				struct f2fslayout_layout *l);

/* What an image's verity metadata says, after full validation. */
struct f2fslayout_image {
	struct f2fslayout_layout layout;
	struct merkle_params params;
	struct merkle_geometry geometry;
	uint8_t root_hash[MERKLE_MAX_DIGEST_SIZE];
	uint32_t sig_size;
	uint8_t *desc;		/* layout.desc_size bytes; malloc'd */
};

/*
 * Pure validation of the descriptor bytes (layout.desc_size of them) found
 * at a layout that f2fslayout_trailer_validate() accepted: the checks of
 * fs/verity/open.c (merkle_descriptor_parse()), descriptor data_size equal
 * to the trailer's (the kernel's "Wrong data_size" check against i_size),
 * and a tree region [tree_pos, desc_pos) large enough for the geometry.
 * Fills everything in *img but img->desc, and sets img->layout.tree_size.
 */
int f2fslayout_check_descriptor(const struct f2fslayout_layout *l,
				const void *desc, struct f2fslayout_image *img);

/*
 * Read and fully validate the metadata of the image open on fd (a regular
 * file or a block device).  On success img->desc is malloc'd; release it
 * with f2fslayout_image_release().
 */
int f2fslayout_read(int fd, struct f2fslayout_image *img);
void f2fslayout_image_release(struct f2fslayout_image *img);

/*
 * Does the image end with a vublk trailer magic?  Returns 1 if yes (valid
 * or damaged: either way the end of the file is not plain data), 0 if not
 * (or the file is smaller than a trailer), or -errno.
 */
int f2fslayout_probe(int fd);

/*
 * Start a new image on fd, a regular file holding l->data_size bytes of
 * data (and possibly old metadata or other bytes after them): cut the file
 * to l->data_size, then extend it to l->tree_pos so that the gap before
 * the tree is a zero hole.  Everything past data_size is discarded, like
 * the blocks past i_size that f2fs truncates when enabling fails.  Then
 * write the tree (f2fslayout_tree_write()), then call
 * f2fslayout_write_metadata().
 */
int f2fslayout_prepare(int fd, const struct f2fslayout_layout *l);

/*
 * Finish a new image on fd, a regular file whose tree is already written
 * at l->tree_pos: check that the trailer for l and desc (l->desc_size
 * bytes) pass the same validation as f2fslayout_read() (so that nothing
 * unreadable is ever written), write the descriptor at l->desc_pos, cut
 * the file after it and extend it to l->image_size (zero padding), flush,
 * and only then write and flush the trailer.  The order mirrors
 * f2fs_end_enable_verity(), which writes back the tree and descriptor
 * before setting the xattr that points at them: a crash never leaves a
 * valid trailer over missing metadata.
 */
int f2fslayout_write_metadata(int fd, const struct f2fslayout_layout *l,
			      const void *desc);

/*
 * Give the sealed image on fd, whose metadata f2fslayout_read() returned
 * as img, the builtin signature sig (sig_size bytes; 0 removes it): the
 * descriptor's sig_size is set, the signature follows the descriptor,
 * and the trailer's location record covers both, as f2fs stores the
 * signature given to FS_IOC_ENABLE_VERITY.  The data, the tree and the
 * file digest are unchanged.  Written by f2fslayout_write_metadata()
 * (regular files only), so the same checks and order apply, and a crash
 * before the new trailer is written leaves an image that every reader
 * refuses (no trailer, or one whose size disagrees with sig_size), as
 * a crash during format does.
 * F2FSLAYOUT_E_DESC_TOO_LARGE when sig_size is over 16128 (the kernel's
 * FS_VERITY_MAX_SIGNATURE_SIZE).
 */
int f2fslayout_write_signature(int fd, const struct f2fslayout_image *img,
			       const void *sig, uint32_t sig_size);

/*
 * Tree I/O in tree offsets (0 = first byte of the top level), for
 * merkle_build_tree() (write) and merkle_tree_open() (read): ctx is a
 * struct f2fslayout_tree_io.  Ranges outside [0, tree_size) fail with
 * F2FSLAYOUT_E_TREE_RANGE; short transfers are retried; an unexpected end
 * of file is F2FSLAYOUT_E_TRUNCATED.
 */
struct f2fslayout_tree_io {
	int fd;
	uint64_t tree_pos;
	uint64_t tree_size;
};

int f2fslayout_tree_read(void *ctx, void *buf, size_t len, uint64_t off);
int f2fslayout_tree_write(void *ctx, const void *buf, size_t len,
			  uint64_t off);

#endif /* VUBLK_F2FSLAYOUT_H */
