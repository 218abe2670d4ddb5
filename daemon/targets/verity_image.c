// SPDX-License-Identifier: GPL-2.0-only
/*
 * verity_image.c - the verity target's image: its fs-verity metadata and
 * the backend its bytes are read through.
 *
 * Two kinds of image:
 *  - a sealed image (`vublk-verity format`): data, then tree and
 *    descriptor past it, found by the trailer (lib/f2fslayout:
 *    f2fslayout_read(), as f2fs_get_verity_descriptor() and
 *    fsverity_create_info() validate a verity file before it opens);
 *  - with --f2fs-file=PATH, a real f2fs image and one of its fs-verity
 *    files: its metadata from its "v" xattr and its blocks past EOF
 *    (f2fslayout_file_verity()), read in file offsets through a remap
 *    store (backends/remap.c) made of the file's extents, so that the
 *    read path sees the file as it sees a sealed image.
 * Either image's metadata is read through the backend that then reads
 * its tree and data, so that all of them come from one image wherever it
 * is (a file, a mapping, an NBD export).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "verity.h"

/* One line for a metadata error, worded by its kind. */
static int verity_image_error(const char *file, int err)
{
	/* Not damage: an image that is not f2fs given --f2fs-file. */
	if (err == F2FSLAYOUT_E_F2FS_NO_SUPER) {
		vublk_error("cannot serve --f2fs-file from %s: %s", file,
			    f2fslayout_strerror(err));
		return -EINVAL;
	}
	switch (f2fslayout_error_kind(err)) {
	case F2FSLAYOUT_ERR_NOT_SEALED:
		vublk_error("%s is not a sealed verity image: %s",
			    file, f2fslayout_strerror(err));
		return -EINVAL;
	case F2FSLAYOUT_ERR_DAMAGE:
		vublk_error("verity image %s is damaged: %s",
			    file, f2fslayout_strerror(err));
		return -EINVAL;
	case F2FSLAYOUT_ERR_UNSUPPORTED:
	case F2FSLAYOUT_ERR_ARGUMENT:
		vublk_error("cannot serve %s: %s", file,
			    f2fslayout_strerror(err));
		return -EINVAL;
	case F2FSLAYOUT_ERR_NOMEM:
		vublk_error("cannot read verity image %s: out of memory", file);
		return -ENOMEM;
	default:
		vublk_error("cannot read verity image %s: %s", file,
			    f2fslayout_strerror(err));
		return -EIO;
	}
}

/* The file's extents, in the remap store's terms. */
static int verity_take_extents(struct verity_tgt *vt,
			       const struct f2fslayout_file *f)
{
	vt->extents = calloc(f->nr_extents ? f->nr_extents : 1,
			     sizeof(*vt->extents));
	if (!vt->extents)
		return MERKLE_E_NOMEM;
	for (size_t i = 0; i < f->nr_extents; i++) {
		const struct f2fslayout_extent *e = &f->extents[i];

		vt->extents[i] = (struct vublk_extent){
			.off = e->file_off, .len = e->len,
			.lower = e->image_off == F2FSLAYOUT_HOLE ?
				 VUBLK_EXTENT_HOLE : e->image_off,
		};
	}
	vt->nr_extents = f->nr_extents;
	return 0;
}

/* lib/f2fslayout reads an image's metadata through the backend. */
static int verity_read_backend(void *ctx, void *buf, size_t len, uint64_t off)
{
	return vublk_backend_read(ctx, buf, len, off);
}

/* --f2fs-file: the file's metadata, in file offsets, and its extents. */
static int verity_read_f2fs_file(struct verity_tgt *vt)
{
	struct f2fslayout_file f = { 0 };
	struct f2fslayout_fs *fs;
	uint32_t ino;
	int err = f2fslayout_fs_open_from(verity_read_backend, &vt->image,
					  vt->image.size, &fs);

	if (err)
		return err;
	err = f2fslayout_fs_lookup(fs, vt->f2fs_file, &ino);
	if (!err)
		err = f2fslayout_file_open(fs, ino, &f);
	if (!err) {
		err = f2fslayout_file_verity(fs, &f, &vt->img);
		if (!err) {
			vt->img_ready = true;
			err = verity_take_extents(vt, &f);
		}
		f2fslayout_file_release(&f);
	}
	f2fslayout_fs_close(fs);
	return err;
}

int verity_read_image(struct vublk_tgt *t, struct verity_tgt *vt)
{
	int err;

	if (vt->dmv.on || vt->dmv.given)
		return verity_dmv_read_image(t, vt);
	if (vt->f2fs_file) {
		err = verity_read_f2fs_file(vt);
	} else {
		err = f2fslayout_read_from(verity_read_backend, &vt->image,
					   vt->image.size, &vt->img);
		vt->img_ready = !err;
	}
	if (err)
		err = verity_image_error(t->backing_file, err);
	vt->tree_pos = vt->img.layout.tree_pos;
	return err;
}

/* The image through the backend --backend chose (or the path calls for),
 * read-only, before its metadata is read through it. */
int verity_open_backend(struct vublk_tgt *t, struct verity_tgt *vt)
{
	int err = vublk_backend_open(&vt->image, &vt->backend, t->backing_file,
				     VUBLK_BACKEND_READ_ONLY |
				     (vt->direct ? VUBLK_BACKEND_DIRECT : 0));

	if (err)
		return err;
	vublk_backend_fit_queues(&vt->image, &t->nr_queues);
	vt->be = &vt->image;
	t->backend = vt->be;
	return 0;
}

/*
 * What the reads go through once the metadata is known: with --f2fs-file,
 * the file's extents of the image.  --direct: O_DIRECT reads must be
 * block-aligned, hence 4 KiB Merkle blocks.  The reads must see the image
 * the metadata described: every read stays inside it.
 */
int verity_open_file(struct vublk_tgt *t, struct verity_tgt *vt)
{
	uint64_t want = vt->img.layout.image_size;
	int err;

	if (vt->direct && (vt->log_bs < 12 || vt->log_tree_bs < 12)) {
		vublk_error("verity image %s has %u-byte data and %u-byte hash blocks: --direct needs at least 4096 (drop --direct)",
			    t->backing_file, 1U << vt->log_bs,
			    1U << vt->log_tree_bs);
		return -EINVAL;
	}
	if (vt->f2fs_file) {
		err = vublk_remap_open(&vt->file, &vt->image, vt->extents,
				       vt->nr_extents);
		if (err)
			return err;
		vt->be = &vt->file;
		t->backend = vt->be;
	}
	/* The tree is in the image, unless a dm-verity hash device has it. */
	if (!vt->tree_be)
		vt->tree_be = vt->be;
	if (vt->be->size == want)
		return 0;
	vublk_error("verity image %s is %" PRIu64 " bytes now, %" PRIu64 " when its metadata was read: it changed while being opened (retry once nothing writes it)",
		    t->backing_file, vt->be->size, want);
	return -EINVAL;
}

void verity_close_image(struct verity_tgt *vt)
{
	vublk_backend_close(&vt->file);
	vublk_backend_close(&vt->image);
	free(vt->extents);
	if (vt->img_ready)
		f2fslayout_image_release(&vt->img);
}
