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
	[F2FSLAYOUT_E_TRAILER_MISSING - FIRST_ERROR] =
		"no trailer at its end, but an fs-verity descriptor where a sealed image keeps it: the image was cut short or its trailer damaged (restore it whole; vublk-verity format would seal its old tree as data)",
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
	[F2FSLAYOUT_E_F2FS_NO_SUPER - FIRST_ERROR] =
		"no f2fs superblock (magic 0xF2F52010 at byte 1024 of block 0 or 1): not an f2fs image",
	[F2FSLAYOUT_E_F2FS_SUPER_CHECKSUM - FIRST_ERROR] =
		"f2fs superblock checksum mismatch in both copies: superblock damaged (run fsck.f2fs)",
	[F2FSLAYOUT_E_F2FS_SUPER_INVALID - FIRST_ERROR] =
		"f2fs superblock has a field out of range (block or segment size, counts, area boundaries): damaged, or made by an f2fs this tool does not know",
	[F2FSLAYOUT_E_F2FS_FEATURE - FIRST_ERROR] =
		"f2fs image uses a feature this tool does not understand (zoned or multi-device, or an unknown feature bit): not read, rather than guessed",
	[F2FSLAYOUT_E_F2FS_IMAGE_SHORT - FIRST_ERROR] =
		"image is smaller than the f2fs filesystem it holds: image truncated (copy it whole)",
	[F2FSLAYOUT_E_F2FS_NO_CHECKPOINT - FIRST_ERROR] =
		"no valid f2fs checkpoint pack (checksums or versions disagree in both): filesystem damaged (run fsck.f2fs)",
	[F2FSLAYOUT_E_F2FS_CHECKPOINT_INVALID - FIRST_ERROR] =
		"f2fs checkpoint has a field out of range (bitmap sizes, summary position, NAT journal): filesystem damaged (run fsck.f2fs)",
	[F2FSLAYOUT_E_F2FS_NID_RANGE - FIRST_ERROR] =
		"f2fs node id outside the node address table: filesystem damaged (run fsck.f2fs)",
	[F2FSLAYOUT_E_F2FS_NAT_ENTRY - FIRST_ERROR] =
		"f2fs node address table entry has no block, a block outside the main area, or another inode: filesystem damaged (run fsck.f2fs)",
	[F2FSLAYOUT_E_F2FS_NODE_FOOTER - FIRST_ERROR] =
		"f2fs node block footer names another node, inode or position: filesystem damaged (run fsck.f2fs)",
	[F2FSLAYOUT_E_F2FS_INODE_INVALID - FIRST_ERROR] =
		"f2fs inode has a field out of range (extra size, inline xattr size, inline flags, size): inode damaged (run fsck.f2fs)",
	[F2FSLAYOUT_E_F2FS_BLOCK_ADDR - FIRST_ERROR] =
		"f2fs block address outside the filesystem's main area: filesystem damaged (run fsck.f2fs)",
	[F2FSLAYOUT_E_F2FS_TOO_FRAGMENTED - FIRST_ERROR] =
		"f2fs file maps to more extents than the filesystem has blocks: node tree damaged (run fsck.f2fs)",
	[F2FSLAYOUT_E_F2FS_FILE_TOO_LARGE - FIRST_ERROR] =
		"f2fs file would be larger than its node tree can address: inode damaged (run fsck.f2fs)",
	[F2FSLAYOUT_E_F2FS_XATTR_INVALID - FIRST_ERROR] =
		"f2fs extended attribute entry runs past its area: xattrs damaged (run fsck.f2fs)",
	[F2FSLAYOUT_E_F2FS_DIR_INVALID - FIRST_ERROR] =
		"f2fs directory entry damaged (name too long or past its block, or more blocks than the filesystem): run fsck.f2fs",
	[F2FSLAYOUT_E_F2FS_ENCRYPTED - FIRST_ERROR] =
		"encrypted f2fs file or directory: its blocks and names are ciphertext, which cannot be checked offline",
	[F2FSLAYOUT_E_F2FS_COMPRESSED - FIRST_ERROR] =
		"compressed f2fs file: its blocks are compressed clusters, which this tool does not decompress",
	[F2FSLAYOUT_E_F2FS_NOT_REGULAR - FIRST_ERROR] =
		"not a regular file: only regular files have data and fs-verity",
	[F2FSLAYOUT_E_F2FS_NOT_VERITY - FIRST_ERROR] =
		"regular file without fs-verity: nothing to check (enable it with `fsverity enable`)",
	[F2FSLAYOUT_E_F2FS_INLINE_VERITY - FIRST_ERROR] =
		"fs-verity flag on a file with inline data, which f2fs never writes: inode damaged (run fsck.f2fs)",
	[F2FSLAYOUT_E_F2FS_NO_VERITY_XATTR - FIRST_ERROR] =
		"fs-verity flag set but no verity xattr (index 11, \"v\"): inode damaged, or verity enabling was interrupted",
	[F2FSLAYOUT_E_F2FS_VERITY_XATTR - FIRST_ERROR] =
		"verity xattr is not a version-1 16-byte descriptor location: unknown verity xattr format (newer kernel, or damaged)",
	[F2FSLAYOUT_E_F2FS_VERITY_LOCATION - FIRST_ERROR] =
		"verity xattr gives an invalid descriptor location (size outside 256..16384, position before round_up(i_size, 64 KiB), or past the largest file): xattr damaged",
	[F2FSLAYOUT_E_F2FS_RANGE - FIRST_ERROR] =
		"read outside the mapped blocks of an f2fs file (internal error: please report)",
	[F2FSLAYOUT_E_F2FS_VERITY_DATA_SIZE - FIRST_ERROR] =
		"fs-verity descriptor data size differs from the file size (i_size): file or descriptor damaged",
	[F2FSLAYOUT_E_F2FS_VERITY_TREE - FIRST_ERROR] =
		"Merkle tree does not fit between round_up(i_size, 64 KiB) and the descriptor: verity xattr or descriptor damaged",
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
	case F2FSLAYOUT_E_F2FS_NOT_REGULAR:
	case F2FSLAYOUT_E_F2FS_NOT_VERITY:
	case F2FSLAYOUT_E_F2FS_RANGE:
		return F2FSLAYOUT_ERR_ARGUMENT;
	/* Reported per file and skipped, never guessed at. */
	case F2FSLAYOUT_E_F2FS_FEATURE:
	case F2FSLAYOUT_E_F2FS_ENCRYPTED:
	case F2FSLAYOUT_E_F2FS_COMPRESSED:
		return F2FSLAYOUT_ERR_UNSUPPORTED;
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
