// SPDX-License-Identifier: GPL-2.0-only
/*
 * remap.c - a read-only store made of pieces of another: each extent of
 * it is a range of the lower store, or a hole that reads as zeroes, as
 * device-mapper's dm-linear stacks a device on ranges of others.
 *
 * It serves one file inside a filesystem image as a store of its own
 * (the verity target's --f2fs-file: the file's blocks, wherever f2fs put
 * them).  A bio is split at extent boundaries into bios on the lower
 * store; it completes once they all have, with the first error.  Holes
 * are zero-filled at once.  Not a backend users pick by name: a target
 * opens it over a backend it opened itself (vublk_remap_open()).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

struct remap_backend {
	struct vublk_backend *lower;
	struct vublk_extent *ext;	/* sorted, contiguous from 0 */
	size_t n;
};

/* One bio in flight: its pieces on the lower store. */
struct remap_split {
	struct vublk_bio *bio;
	unsigned remaining;	/* pieces, and one while submitting */
	int err;		/* the first error */
	struct vublk_bio piece[];
};

/* The extent holding byte pos (pos is inside the store). */
static size_t remap_find(const struct remap_backend *rb, uint64_t pos)
{
	size_t lo = 0, hi = rb->n;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (rb->ext[mid].off <= pos)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The pieces of [pos, pos + len) that are not holes. */
static unsigned remap_count_pieces(const struct remap_backend *rb,
				   uint64_t pos, uint64_t len)
{
	unsigned n = 0;

	for (size_t i = remap_find(rb, pos);
	     i < rb->n && rb->ext[i].off < pos + len; i++)
		n += rb->ext[i].lower != VUBLK_EXTENT_HOLE;
	return n;
}

/* A piece's result: the first error is the bio's. */
static void remap_piece_result(struct remap_split *split, int res)
{
	if (res < 0 && !split->err)
		split->err = res;
}

/* The last piece answered: the bio's answer.  Returns the result when
 * the bio is done, else VUBLK_IO_QUEUED. */
static int remap_put(struct remap_split *split)
{
	int res = vublk_bio_result(split->bio, split->err);

	if (--split->remaining)
		return VUBLK_IO_QUEUED;
	free(split);
	return res;
}

static void remap_piece_end(struct vublk_queue *q, struct vublk_bio *piece,
			    int res)
{
	struct remap_split *split = piece->end_io_ctx;
	struct vublk_bio *bio = split->bio;

	remap_piece_result(split, res);
	res = remap_put(split);
	if (res != VUBLK_IO_QUEUED)
		bio->end_io(q, bio, res);
}

static int remap_submit(struct vublk_backend *be, struct vublk_queue *q,
			struct vublk_bio *bio)
{
	struct remap_backend *rb = be->priv;
	uint64_t pos = bio->req.offset, end = bio->req.offset + bio->req.len;
	unsigned n = remap_count_pieces(rb, pos, bio->req.len), k = 0;
	struct remap_split *split;
	int res;

	if (bio->req.op != VUBLK_OP_READ)
		return -EROFS;
	split = malloc(sizeof(*split) + n * sizeof(split->piece[0]));
	if (!split)
		return -ENOMEM;
	*split = (struct remap_split){ .bio = bio, .remaining = 1 };
	for (size_t i = remap_find(rb, pos); pos < end; i++) {
		const struct vublk_extent *e = &rb->ext[i];
		uint64_t len = e->off + e->len - pos;
		uint8_t *buf = (uint8_t *)bio->req.buf + (pos - bio->req.offset);

		if (len > end - pos)
			len = end - pos;
		if (e->lower == VUBLK_EXTENT_HOLE) {
			memset(buf, 0, len);
		} else {
			struct vublk_bio *piece = &split->piece[k++];

			/* A piece of a registered buffer is in it too. */
			*piece = (struct vublk_bio){
				.req = { .op = VUBLK_OP_READ,
					 .flags = bio->req.flags &
						  VUBLK_REQ_REG_BUF,
					 .buf_index = bio->req.buf_index,
					 .offset = e->lower + (pos - e->off),
					 .len = (uint32_t)len, .buf = buf },
				.end_io = remap_piece_end, .end_io_ctx = split,
			};
			split->remaining++;
			res = vublk_backend_submit(rb->lower, q, piece);
			if (res != VUBLK_IO_QUEUED) {
				remap_piece_result(split, res);
				split->remaining--;
			}
		}
		pos += len;
	}
	return remap_put(split);
}

static int remap_open(struct vublk_backend *be)
{
	(void)be;	/* everything is set by vublk_remap_open() */
	return 0;
}

static void remap_close(struct vublk_backend *be)
{
	struct remap_backend *rb = be->priv;

	free(rb->ext);
}

/* The lower store's state for queue q (an NBD connection, say) is what
 * this store's bios use. */
static int remap_queue_init(struct vublk_backend *be, struct vublk_queue *q)
{
	struct remap_backend *rb = be->priv;

	return vublk_backend_queue_init(rb->lower, q);
}

static void remap_queue_deinit(struct vublk_backend *be, struct vublk_queue *q)
{
	struct remap_backend *rb = be->priv;

	vublk_backend_queue_deinit(rb->lower, q);
}

static void remap_report(struct vublk_backend *be, struct vublk_stats_out *out)
{
	struct remap_backend *rb = be->priv;

	vublk_stat_u64(out, "extents", rb->n);
	vublk_backend_report(rb->lower, out);
}

static const struct vublk_backend_ops vublk_backend_remap = {
	.name = "remap",
	.summary = "pieces of another store, read-only",
	.priv_size = sizeof(struct remap_backend),
	.open = remap_open,
	.close = remap_close,
	.queue_init = remap_queue_init,
	.queue_deinit = remap_queue_deinit,
	.submit = remap_submit,
	.report = remap_report,
};

static const struct vublk_backend_cfg remap_cfg = {
	.ops = &vublk_backend_remap,
};

int vublk_remap_open(struct vublk_backend *be, struct vublk_backend *lower,
		     const struct vublk_extent *ext, size_t n)
{
	struct remap_backend *rb;
	uint64_t size = 0;
	int ret;

	for (size_t i = 0; i < n; i++) {
		if (ext[i].off != size || !ext[i].len ||
		    (ext[i].lower != VUBLK_EXTENT_HOLE &&
		     (ext[i].lower > lower->size ||
		      ext[i].len > lower->size - ext[i].lower))) {
			vublk_error("%s: piece %zu of the file lies outside the image or out of order",
				    lower->path, i);
			return -EINVAL;
		}
		size += ext[i].len;
	}
	ret = vublk_backend_open(be, &remap_cfg, lower->path,
				 VUBLK_BACKEND_READ_ONLY);
	if (ret)
		return ret;
	rb = be->priv;
	rb->ext = malloc((n ? n : 1) * sizeof(*ext));
	if (!rb->ext) {
		vublk_backend_close(be);
		vublk_error("%s: no memory for the file's %zu extents",
			    lower->path, n);
		return -ENOMEM;
	}
	memcpy(rb->ext, ext, n * sizeof(*ext));
	rb->lower = lower;
	rb->n = n;
	be->size = size;
	be->block_shift = lower->block_shift;
	be->block_size_strict = lower->block_size_strict;
	be->mem_align = lower->mem_align;
	be->pins_buffers = lower->pins_buffers;
	be->io_min_shift = lower->io_min_shift;
	be->remote = lower->remote;
	return 0;
}
