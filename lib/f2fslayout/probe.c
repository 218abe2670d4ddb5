// SPDX-License-Identifier: GPL-2.0-only
/*
 * probe.c - does an image already end with vublk verity metadata, or
 * with what is left of it?
 *
 * The magic is enough: a damaged trailer still means the end of the
 * file is metadata, not data, and formatting over it would hash the old
 * tree as if it were data.  Without the magic, a descriptor right after
 * the tree its own data size calls for means the same: an image that
 * lost its trailer (cut short, or the magic damaged).
 */

#include <string.h>

#include "f2fslayout_private.h"

int f2fslayout_probe(int fd)
{
	uint8_t trailer[F2FSLAYOUT_TRAILER_SIZE];
	uint64_t image_size, desc_pos, data_size;
	int err = f2fslayout_read_trailer(fd, trailer, &image_size);

	if (err == F2FSLAYOUT_E_IMAGE_TOO_SMALL)
		return 0;
	if (err)
		return err;
	if (!memcmp(trailer + TRAILER_OFF_MAGIC, F2FSLAYOUT_MAGIC,
		    TRAILER_MAGIC_SIZE))
		return 1;
	return f2fslayout_find_lone_descriptor(f2fslayout_read_fd, &fd,
					       image_size, &desc_pos,
					       &data_size);
}

/*
 * Whether buf holds a valid fs-verity descriptor that the layout would put
 * at pos: right after the tree its own data size calls for, which starts
 * at round_up(data size, 64 KiB).  Its signature is not looked at (it may
 * be what the cut took).
 */
static bool descriptor_fits_at(const uint8_t buf[MERKLE_DESCRIPTOR_SIZE],
			       uint64_t pos, uint64_t *data_size)
{
	struct merkle_descriptor d;
	struct merkle_geometry g;
	struct merkle_params p;
	uint8_t root[MERKLE_MAX_DIGEST_SIZE];
	uint64_t tree_pos, tree_end;
	uint32_t sig_size;

	memcpy(&d, buf, sizeof(d));
	d.sig_size = 0;
	if (merkle_descriptor_parse(&d, sizeof(d), &p, root, &sig_size) ||
	    merkle_geometry_init(&g, &p) ||
	    f2fslayout_metadata_pos(p.data_size, &tree_pos) ||
	    __builtin_add_overflow(tree_pos, g.tree_size, &tree_end) ||
	    tree_end != pos)
		return false;
	*data_size = p.data_size;
	return true;
}

/*
 * A sealed image ends at the first 4 KiB boundary after its descriptor,
 * signature and trailer: a descriptor that survived the cut starts less
 * than that span before the new end, on a tree block boundary (a multiple
 * of 1024 bytes, the smallest fs-verity block).
 */
#define LONE_DESC_SPAN (MERKLE_MAX_DESCRIPTOR_SIZE + F2FSLAYOUT_TRAILER_SIZE + \
		       F2FSLAYOUT_IMAGE_ALIGN)
#define LONE_DESC_STEP 1024

int f2fslayout_find_lone_descriptor(f2fslayout_read_fn read_fn, void *ctx,
				    uint64_t image_size, uint64_t *desc_pos,
				    uint64_t *data_size)
{
	uint8_t buf[MERKLE_DESCRIPTOR_SIZE];
	uint64_t pos, lowest;
	int err;

	if (image_size < MERKLE_DESCRIPTOR_SIZE)
		return 0;
	lowest = image_size > LONE_DESC_SPAN ? image_size - LONE_DESC_SPAN : 0;
	for (pos = (image_size - MERKLE_DESCRIPTOR_SIZE) & ~(uint64_t)
	     (LONE_DESC_STEP - 1); pos >= lowest; pos -= LONE_DESC_STEP) {
		err = read_fn(ctx, buf, sizeof(buf), pos);
		if (err)
			return err;
		if (descriptor_fits_at(buf, pos, data_size)) {
			*desc_pos = pos;
			return 1;
		}
		if (pos < LONE_DESC_STEP)
			break;
	}
	return 0;
}
