// SPDX-License-Identifier: GPL-2.0-only
/*
 * write.c - lay out a new image: make room for the tree, then finish it
 * with the descriptor, padding and trailer.
 *
 * Mirrors fs/f2fs/verity.c.  f2fs_begin_enable_verity() starts from a
 * file whose blocks past i_size are gone; f2fs_end_enable_verity() writes
 * the descriptor after the tree, writes back every page
 * (filemap_write_and_wait()) and only then sets the "v" xattr that makes
 * the metadata valid.  Our trailer is that xattr, so it is written last,
 * after a flush.
 */

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "f2fslayout_private.h"

static int require_regular_file(int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	return S_ISREG(st.st_mode) ? 0 : F2FSLAYOUT_E_NOT_REGULAR;
}

/* ftruncate() retried on EINTR, returning 0 or -errno. */
static int set_file_size(int fd, uint64_t size)
{
	int ret;

	do
		ret = ftruncate(fd, (off_t)size);
	while (ret && errno == EINTR);
	return ret ? -errno : 0;
}

static int flush_file(int fd)
{
	int ret;

	do
		ret = fdatasync(fd);
	while (ret && errno == EINTR);
	return ret ? -errno : 0;
}

int f2fslayout_prepare(int fd, const struct f2fslayout_layout *l)
{
	int err = require_regular_file(fd);

	if (err)
		return err;
	if (l->tree_pos > INT64_MAX)
		return F2FSLAYOUT_E_IMAGE_TOO_LARGE;
	/* Shrinking then growing leaves [data_size, tree_pos) a zero hole. */
	err = set_file_size(fd, l->data_size);
	return err ? err : set_file_size(fd, l->tree_pos);
}

int f2fslayout_undo_prepare(int fd, const struct f2fslayout_layout *l)
{
	return set_file_size(fd, l->data_size);
}

/*
 * Build the trailer for l and run it, and the descriptor, through the
 * same checks as f2fslayout_read(): never write metadata that reading
 * would reject.  Returns the validated layout in *v.
 */
static int check_before_write(const struct f2fslayout_layout *l,
			      const void *desc,
			      uint8_t trailer[F2FSLAYOUT_TRAILER_SIZE],
			      struct f2fslayout_layout *v)
{
	const struct f2fslayout_trailer t = {
		.version = F2FSLAYOUT_TRAILER_VERSION,
		.size = F2FSLAYOUT_TRAILER_SIZE,
		.data_size = l->data_size,
		.loc_version = F2FSLAYOUT_LOCATION_VERSION,
		.loc_size = l->desc_size,
		.loc_pos = l->desc_pos,
	};
	struct f2fslayout_image img;
	int err;

	if (l->image_size > INT64_MAX)	/* must fit in off_t */
		return F2FSLAYOUT_E_IMAGE_TOO_LARGE;
	f2fslayout_trailer_encode(&t, trailer);
	err = f2fslayout_trailer_validate(trailer, l->image_size, v);
	if (err)
		return err;
	return f2fslayout_check_descriptor(v, desc, &img);
}

int f2fslayout_write_metadata(int fd, const struct f2fslayout_layout *l,
			      const void *desc)
{
	uint8_t trailer[F2FSLAYOUT_TRAILER_SIZE];
	struct f2fslayout_layout v;
	int err;

	err = check_before_write(l, desc, trailer, &v);
	if (!err)
		err = require_regular_file(fd);
	if (!err)
		err = f2fslayout_pwrite_full(fd, desc, v.desc_size, v.desc_pos);
	/* Drop stale bytes past the descriptor; regrowing zero-fills. */
	if (!err)
		err = set_file_size(fd, v.desc_pos + v.desc_size);
	if (!err)
		err = set_file_size(fd, v.image_size);
	if (!err)
		err = flush_file(fd);
	if (!err)
		err = f2fslayout_pwrite_full(fd, trailer, sizeof(trailer),
					     v.trailer_pos);
	return err ? err : flush_file(fd);
}
