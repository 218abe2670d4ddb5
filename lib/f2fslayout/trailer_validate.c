// SPDX-License-Identifier: GPL-2.0-only
/*
 * trailer_validate.c - check the trailer at the end of an image.
 *
 * A pure function of the trailer bytes and the image size, so that it can
 * be fuzzed.  Strict in the way f2fs_get_verity_descriptor()
 * (fs/f2fs/verity.c) is with its xattr: unknown location version -> error;
 * pos + size must not wrap, must stay within the file and pos must not be
 * before f2fs_verity_metadata_pos(); and in the way
 * fsverity_get_descriptor() (fs/verity/open.c) is with the size: at least
 * a descriptor, at most FS_VERITY_MAX_DESCRIPTOR_SIZE.  On top of that the
 * trailer has its own magic, version, size, reserved bytes and checksum,
 * which an xattr does not need.  Every failure has its own error code.
 */

#include <string.h>

#include "f2fslayout_private.h"

static bool all_zero(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

/* The trailer's own framing: magic, version, size, checksum, reserved. */
static int check_framing(const uint8_t *buf)
{
	if (memcmp(buf + TRAILER_OFF_MAGIC, F2FSLAYOUT_MAGIC,
		   TRAILER_MAGIC_SIZE))
		return F2FSLAYOUT_E_NO_TRAILER;
	/*
	 * Version and size before the checksum: a future version may
	 * checksum differently, and "unsupported version" is the more useful
	 * message for it.
	 */
	if (get_le32(buf + TRAILER_OFF_VERSION) != F2FSLAYOUT_TRAILER_VERSION)
		return F2FSLAYOUT_E_TRAILER_VERSION;
	if (get_le32(buf + TRAILER_OFF_SIZE) != F2FSLAYOUT_TRAILER_SIZE)
		return F2FSLAYOUT_E_TRAILER_SIZE;
	if (get_le32(buf + TRAILER_OFF_CHECKSUM) !=
	    f2fslayout_crc32c(buf, TRAILER_OFF_CHECKSUM))
		return F2FSLAYOUT_E_TRAILER_CHECKSUM;
	if (!all_zero(buf + TRAILER_OFF_RESERVED, TRAILER_RESERVED_SIZE))
		return F2FSLAYOUT_E_TRAILER_RESERVED;
	return 0;
}

/* The location record, as f2fs_get_verity_descriptor() checks it. */
static int check_location(const uint8_t *buf, uint64_t image_size,
			  struct f2fslayout_layout *l)
{
	uint64_t desc_end;
	int err;

	if (get_le32(buf + TRAILER_OFF_LOC_VERSION) !=
	    F2FSLAYOUT_LOCATION_VERSION)
		return F2FSLAYOUT_E_LOCATION_VERSION;
	if (get_le32(buf + TRAILER_OFF_LOC_SIZE) < MERKLE_DESCRIPTOR_SIZE)
		return F2FSLAYOUT_E_DESC_TOO_SMALL;
	if (get_le32(buf + TRAILER_OFF_LOC_SIZE) > MERKLE_MAX_DESCRIPTOR_SIZE)
		return F2FSLAYOUT_E_DESC_TOO_LARGE;
	l->desc_size = get_le32(buf + TRAILER_OFF_LOC_SIZE);
	l->desc_pos = get_le64(buf + TRAILER_OFF_LOC_POS);
	if (__builtin_add_overflow(l->desc_pos, l->desc_size, &desc_end))
		return F2FSLAYOUT_E_DESC_POS_OVERFLOW;

	l->data_size = get_le64(buf + TRAILER_OFF_DATA_SIZE);
	err = f2fslayout_metadata_pos(l->data_size, &l->tree_pos);
	if (err)
		return err;
	if (l->desc_pos < l->tree_pos)
		return F2FSLAYOUT_E_DESC_BEFORE_METADATA;
	if (desc_end > image_size)
		return F2FSLAYOUT_E_DESC_PAST_EOF;
	if (desc_end > l->trailer_pos)
		return F2FSLAYOUT_E_DESC_OVERLAPS_TRAILER;
	return 0;
}

int f2fslayout_trailer_validate(const uint8_t buf[F2FSLAYOUT_TRAILER_SIZE],
				uint64_t image_size,
				struct f2fslayout_layout *l)
{
	int err;

	if (image_size < F2FSLAYOUT_TRAILER_SIZE)
		return F2FSLAYOUT_E_IMAGE_TOO_SMALL;
	err = check_framing(buf);
	if (err)
		return err;

	memset(l, 0, sizeof(*l));
	l->image_size = image_size;
	l->trailer_pos = image_size - F2FSLAYOUT_TRAILER_SIZE;
	/* tree_size stays 0 until f2fslayout_check_descriptor(). */
	return check_location(buf, image_size, l);
}
