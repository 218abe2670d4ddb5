// SPDX-License-Identifier: GPL-2.0-only
/*
 * strerror.c - one line per failure: what is wrong, and what to do; and
 * what kind of failure it is.
 */

#include "f2fslayout_private.h"

#define FIRST_ERROR F2FSLAYOUT_E_IMAGE_TOO_SMALL

static const char *const messages[] = {
	[F2FSLAYOUT_E_IMAGE_TOO_SMALL - FIRST_ERROR] =
		"image too small to hold a vublk trailer (64 bytes): it has no vublk verity metadata (run vublk-verity format)",
	[F2FSLAYOUT_E_NO_TRAILER - FIRST_ERROR] =
		"trailer magic not found: image has no vublk verity metadata (run vublk-verity format)",
	[F2FSLAYOUT_E_TRAILER_VERSION - FIRST_ERROR] =
		"trailer version unsupported (only version 1 is known): image written by a newer vublk, or damaged",
	[F2FSLAYOUT_E_TRAILER_SIZE - FIRST_ERROR] =
		"trailer size field is not 64: trailer damaged (re-run vublk-verity format)",
	[F2FSLAYOUT_E_TRAILER_CHECKSUM - FIRST_ERROR] =
		"trailer checksum mismatch: trailer damaged (re-run vublk-verity format)",
	[F2FSLAYOUT_E_TRAILER_RESERVED - FIRST_ERROR] =
		"trailer reserved bytes are not zero: image written by a newer vublk, or damaged",
	[F2FSLAYOUT_E_LOCATION_VERSION - FIRST_ERROR] =
		"descriptor location version unsupported (only version 1, as f2fs's F2FS_VERIFY_VER): image written by a newer vublk, or damaged",
	[F2FSLAYOUT_E_DESC_TOO_SMALL - FIRST_ERROR] =
		"descriptor size below 256 bytes: trailer damaged (re-run vublk-verity format)",
	[F2FSLAYOUT_E_DESC_TOO_LARGE - FIRST_ERROR] =
		"descriptor size above 16384 bytes (FS_VERITY_MAX_DESCRIPTOR_SIZE): trailer damaged or signature too large",
	[F2FSLAYOUT_E_DESC_POS_OVERFLOW - FIRST_ERROR] =
		"descriptor position + size overflows 64 bits: trailer damaged (re-run vublk-verity format)",
	[F2FSLAYOUT_E_DATA_SIZE_TOO_LARGE - FIRST_ERROR] =
		"data size too large: rounding it up to 64 KiB overflows 64 bits (trailer damaged, or data size wrong)",
	[F2FSLAYOUT_E_DESC_BEFORE_METADATA - FIRST_ERROR] =
		"descriptor position before the metadata area (round_up(data size, 64 KiB)): trailer damaged (re-run vublk-verity format)",
	[F2FSLAYOUT_E_DESC_PAST_EOF - FIRST_ERROR] =
		"descriptor extends past the end of the image: image truncated, or trailer damaged (re-run vublk-verity format)",
	[F2FSLAYOUT_E_DESC_OVERLAPS_TRAILER - FIRST_ERROR] =
		"descriptor overlaps the trailer: trailer damaged (re-run vublk-verity format)",
	[F2FSLAYOUT_E_DATA_SIZE_MISMATCH - FIRST_ERROR] =
		"descriptor data size differs from the trailer's data size: metadata damaged or mixed up (re-run vublk-verity format)",
	[F2FSLAYOUT_E_TREE_OVERLAPS_DESC - FIRST_ERROR] =
		"Merkle tree does not fit between the metadata area start and the descriptor: metadata damaged (re-run vublk-verity format)",
	[F2FSLAYOUT_E_TRUNCATED - FIRST_ERROR] =
		"image ended early while reading: was it truncated or changed during the read?",
	[F2FSLAYOUT_E_BAD_FILE_TYPE - FIRST_ERROR] =
		"image is neither a regular file nor a block device: give the path of an image file",
	[F2FSLAYOUT_E_NOT_REGULAR - FIRST_ERROR] =
		"image is not a regular file: vublk-verity writes metadata (format, sign --embed) into image files only",
	[F2FSLAYOUT_E_IMAGE_TOO_LARGE - FIRST_ERROR] =
		"image with its metadata would exceed the largest file size (2^63 - 1 bytes): data size too large",
	[F2FSLAYOUT_E_TREE_RANGE - FIRST_ERROR] =
		"Merkle tree access outside the tree region (internal error: please report)",
};

/* Whether err is one of the F2FSLAYOUT_E_* codes. */
static bool f2fslayout_is_own_error(int err)
{
	return err >= FIRST_ERROR &&
	       err < FIRST_ERROR + (int)(sizeof(messages) / sizeof(messages[0]));
}

const char *f2fslayout_strerror(int err)
{
	if (f2fslayout_is_own_error(err))
		return messages[err - FIRST_ERROR];
	return merkle_strerror(err);
}

enum f2fslayout_error_kind f2fslayout_error_kind(int err)
{
	switch (err) {
	case F2FSLAYOUT_E_IMAGE_TOO_SMALL:
	case F2FSLAYOUT_E_NO_TRAILER:
		return F2FSLAYOUT_ERR_NOT_SEALED;
	case F2FSLAYOUT_E_TRUNCATED:
		return F2FSLAYOUT_ERR_IO;
	case F2FSLAYOUT_E_BAD_FILE_TYPE:
	case F2FSLAYOUT_E_NOT_REGULAR:
	case F2FSLAYOUT_E_IMAGE_TOO_LARGE:
	case F2FSLAYOUT_E_TREE_RANGE:
		return F2FSLAYOUT_ERR_ARGUMENT;
	default:
		break;
	}
	if (f2fslayout_is_own_error(err))
		return F2FSLAYOUT_ERR_DAMAGE;	/* the trailer's checks */
	switch (merkle_error_kind(err)) {
	case MERKLE_ERR_NONE:
		return F2FSLAYOUT_ERR_NONE;
	case MERKLE_ERR_DAMAGE:
		return F2FSLAYOUT_ERR_DAMAGE;
	case MERKLE_ERR_ARGUMENT:
		return F2FSLAYOUT_ERR_ARGUMENT;
	case MERKLE_ERR_NOMEM:
		return F2FSLAYOUT_ERR_NOMEM;
	default:
		return F2FSLAYOUT_ERR_IO;
	}
}
