// SPDX-License-Identifier: GPL-2.0-only
/*
 * trailer_encode.c - turn a struct f2fslayout_trailer into its 64 bytes.
 *
 * The trailer carries what f2fs keeps outside the file data: i_size (the
 * inode) and the "v" xattr, struct fsverity_descriptor_location, which
 * f2fs_end_enable_verity() fills with version F2FS_VERIFY_VER, the
 * descriptor size and its position.
 */

#include <string.h>

#include "f2fslayout_private.h"

void f2fslayout_trailer_seal(uint8_t buf[F2FSLAYOUT_TRAILER_SIZE])
{
	put_le32(buf + TRAILER_OFF_CHECKSUM,
		 f2fslayout_crc32c(buf, TRAILER_OFF_CHECKSUM));
}

void f2fslayout_trailer_encode(const struct f2fslayout_trailer *t,
			       uint8_t buf[F2FSLAYOUT_TRAILER_SIZE])
{
	memset(buf, 0, F2FSLAYOUT_TRAILER_SIZE);
	memcpy(buf + TRAILER_OFF_MAGIC, F2FSLAYOUT_MAGIC, TRAILER_MAGIC_SIZE);
	put_le32(buf + TRAILER_OFF_VERSION, t->version);
	put_le32(buf + TRAILER_OFF_SIZE, t->size);
	put_le64(buf + TRAILER_OFF_DATA_SIZE, t->data_size);
	put_le32(buf + TRAILER_OFF_LOC_VERSION, t->loc_version);
	put_le32(buf + TRAILER_OFF_LOC_SIZE, t->loc_size);
	put_le64(buf + TRAILER_OFF_LOC_POS, t->loc_pos);
	f2fslayout_trailer_seal(buf);
}
