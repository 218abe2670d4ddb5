// SPDX-License-Identifier: GPL-2.0-only
/*
 * loop.c - the loop target: the device is its backing store, request for
 * request, over any backend ("file" by default).  `-t pmem` is the same
 * target over the "pmem" backend, with the kernel pmem driver's shape.
 *
 * Every request becomes one bio on the backend with the same op, flags
 * and range (backend.h says what each op does to a store); the request
 * completes when the bio does, with its result: returned by queue_io
 * when the backend answers at once (pmem), passed on by end_io else.
 *
 * Shape: the logical block is the smallest the backend can do (512, or
 * 4096 for --direct) unless --block-size says otherwise; 4 KiB physical
 * blocks; io_min is the backend's (a page for a mapping, as
 * drivers/nvdimm/pmem.c: pmem_attach_disk() sets PAGE_SIZE physical
 * blocks over 512-byte logical ones).  The device declares a volatile
 * write cache and FUA when the store has one, or the block layer would
 * drop flushes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "targets.h"

enum loop_opt {
	LOOP_OPT_DIRECT = 256,
	LOOP_OPT_BLOCK_SIZE,
};

struct loop_tgt {
	struct vublk_backend be;
	struct vublk_backend_cfg backend;	/* --backend ... */
	bool direct;		/* --direct: bypass the page cache */
	unsigned block_size;	/* --block-size, 0 = the backend's */
};

static const struct option loop_options[] = {
	{ "direct", no_argument, NULL, LOOP_OPT_DIRECT },
	{ "block-size", required_argument, NULL, LOOP_OPT_BLOCK_SIZE },
	VUBLK_BACKEND_OPTIONS,
	{ NULL, 0, NULL, 0 },
};

static int loop_parse_block_size(struct loop_tgt *lt, const char *arg)
{
	uint64_t v;

	/* ublk_validate_params(): 512 .. PAGE_SIZE, a power of 2. */
	if (vublk_parse_u64("--block-size", arg, 512, 4096, &v) < 0)
		return -EINVAL;
	if (v & (v - 1)) {
		vublk_error("bad --block-size value '%s': expected 512, 1024, 2048 or 4096",
			    arg);
		return -EINVAL;
	}
	lt->block_size = (unsigned)v;
	return 0;
}

static int loop_parse_opt(struct vublk_tgt *t, int opt, const char *arg)
{
	struct loop_tgt *lt = t->priv;

	switch (opt) {
	case LOOP_OPT_DIRECT:
		lt->direct = true;
		return 0;
	case LOOP_OPT_BLOCK_SIZE:
		return loop_parse_block_size(lt, arg);
	default:
		return vublk_backend_parse_opt(&lt->backend, opt, arg);
	}
}

static int loop_set_shape(struct vublk_tgt *t, struct loop_tgt *lt)
{
	const struct vublk_backend *be = &lt->be;
	unsigned bs = lt->block_size ? lt->block_size : 1U << be->block_shift;
	unsigned shift = (unsigned)__builtin_ctz(bs);

	if (be->block_size_strict && bs < 1U << be->block_shift) {
		vublk_error("--block-size %u is smaller than the %u-byte blocks %s serves: give --block-size %u or more",
			    bs, 1U << be->block_shift, t->backing_file,
			    1U << be->block_shift);
		return -EINVAL;
	}
	if (be->size < bs) {
		vublk_error("backing file %s is too small: %" PRIu64 " bytes, less than one %u-byte block; grow it first (e.g. truncate -s 1G %s)",
			    t->backing_file, be->size, bs, t->backing_file);
		return -EINVAL;
	}
	t->dev_size = be->size & ~(uint64_t)(bs - 1);
	t->logical_bs_shift = shift;
	t->physical_bs_shift = 12;	/* bs is at most 4096 */
	t->io_min_shift = shift > be->io_min_shift ? shift : be->io_min_shift;
	t->io_opt_shift = 12;
	t->volatile_cache = be->volatile_cache;
	t->discard = !t->read_only;
	t->discard_granularity = 4096;
	/* The loop target never looks at the data: where the backend can
	 * move it to and from the request's own pages, it may. */
	t->zero_copy = be->ops->fixed_buffers;
	t->dma_align_mask = be->mem_align > 1 ? be->mem_align - 1 : 0;
	t->register_buffers = be->pins_buffers;	/* without zero copy */
	return 0;
}

static int loop_init(struct vublk_tgt *t)
{
	struct loop_tgt *lt = t->priv;
	unsigned flags = (t->read_only ? VUBLK_BACKEND_READ_ONLY : 0) |
			 (lt->direct ? VUBLK_BACKEND_DIRECT : 0);
	int ret;

	ret = vublk_backend_open(&lt->be, &lt->backend, t->backing_file,
				 flags);
	if (ret)
		return ret;
	ret = loop_set_shape(t, lt);
	if (ret) {
		vublk_backend_close(&lt->be);
		return ret;
	}
	vublk_backend_fit_queues(&lt->be, &t->nr_queues);
	t->backend = &lt->be;
	return 0;
}

/* -t pmem: the loop target on a libpmem2 mapping. */
static int pmem_init(struct vublk_tgt *t)
{
	struct loop_tgt *lt = t->priv;

	lt->backend.ops = vublk_backend_find("pmem");
	return loop_init(t);
}

/*
 * vublk update-size: the backing store's size now (0), or the size asked
 * for, which must be whole blocks within the store.
 */
static int loop_resize(struct vublk_tgt *t, uint64_t *size, char *why,
		       size_t len)
{
	struct loop_tgt *lt = t->priv;
	struct vublk_backend *be = &lt->be;
	uint64_t bs = 1ULL << t->logical_bs_shift, want;
	int ret;

	if (!be->ops->refresh_size) {
		snprintf(why, len, "the %s backend has a fixed size (delete the device and add it again)",
			 be->ops->name);
		return -EOPNOTSUPP;
	}
	ret = be->ops->refresh_size(be);
	if (ret) {
		snprintf(why, len, "cannot size %s: %s", be->path,
			 strerror(-ret));
		return ret;
	}
	want = *size ? *size : be->size & ~(bs - 1);
	if (want % bs || want < bs || want > be->size) {
		snprintf(why, len, "%" PRIu64 " bytes is not a whole number of %" PRIu64 "-byte blocks from one block up to the %" PRIu64 " bytes of %s (grow the file first, e.g. truncate -s)",
			 want, bs, be->size, be->path);
		return -EINVAL;
	}
	*size = want;
	return 0;
}

static void loop_deinit(struct vublk_tgt *t)
{
	struct loop_tgt *lt = t->priv;

	vublk_backend_close(&lt->be);
}

/* A bio's result is its request's (backend.h). */
static void loop_end_io(struct vublk_queue *q, struct vublk_bio *bio, int res)
{
	vublk_complete_io(q, (unsigned)(bio - (struct vublk_bio *)q->priv),
			  res);
}

/*
 * One bio per tag, bios[tag], each on whole cache lines: a request
 * through a synchronous backend (pmem) touches only the first of its
 * bio's, and nothing that is the same for every request is written per
 * request (loop_queue_io).
 */
_Static_assert(sizeof(struct vublk_bio) % 64 == 0,
	       "a bio on whole cache lines");

static int loop_queue_init(struct vublk_queue *q)
{
	struct loop_tgt *lt = q->tgt->priv;
	size_t size = q->depth * sizeof(struct vublk_bio);
	struct vublk_bio *bios = aligned_alloc(64, size);
	int ret;

	if (!bios)
		return -ENOMEM;
	memset(bios, 0, size);
	for (unsigned tag = 0; tag < q->depth; tag++)
		bios[tag].end_io = loop_end_io;
	ret = vublk_backend_queue_init(&lt->be, q);
	if (ret) {
		free(bios);
		return ret;
	}
	q->priv = bios;
	return 0;
}

static void loop_queue_deinit(struct vublk_queue *q)
{
	struct loop_tgt *lt = q->tgt->priv;

	vublk_backend_queue_deinit(&lt->be, q);
	free(q->priv);
}

/*
 * end_io was set once, by loop_queue_init().  The backend's answer is
 * the request's (a result, or VUBLK_IO_QUEUED): the last call is a tail
 * call.
 *
 * The request is copied field by field, and GCC's SLP vectorizer (on at
 * -O2 since GCC 12) is kept from merging the copies into 16-byte moves:
 * the core has just stored the request field by field, and a 16-byte
 * load of what narrower stores wrote cannot be forwarded from the store
 * buffer, a stall per request.  With `bio->req = *req` (two movdqu) the
 * pmem PAGE read path measured about 10% slower than with this
 * (docs/PERFORMANCE.md, issue 12).  Clang has no such attribute (and
 * warns about it).
 */
#ifdef __clang__
#define LOOP_NO_SLP_VECTORIZE
#else
#define LOOP_NO_SLP_VECTORIZE __attribute__((optimize("no-tree-slp-vectorize")))
#endif
static LOOP_NO_SLP_VECTORIZE int
loop_queue_io(struct vublk_queue *q, unsigned tag, const struct vublk_req *req)
{
	struct loop_tgt *lt = q->tgt->priv;
	struct vublk_bio *bio = (struct vublk_bio *)q->priv + tag;

	bio->req.op = req->op;
	bio->req.flags = req->flags;
	bio->req.len = req->len;
	bio->req.buf_index = req->buf_index;
	bio->req.offset = req->offset;
	bio->req.buf = req->buf;
	return vublk_backend_submit(&lt->be, q, bio);
}

static void loop_report(struct vublk_tgt *t, struct vublk_stats_out *out)
{
	struct loop_tgt *lt = t->priv;

	vublk_stat_str(out, "backend", lt->be.ops->name);
	vublk_backend_report(&lt->be, out);
}

const struct vublk_tgt_ops vublk_tgt_loop = {
	.name = "loop",
	.summary = "a file or block device as a block device",
	.usage =
		"  --direct           open the backing file with O_DIRECT (bypass the page cache;\n"
		"                     the logical block size then defaults to 4096; request\n"
		"                     buffers are registered with io_uring as used, and pinned)\n"
		"  --block-size N     logical block size: 512 (default), 1024, 2048 or 4096\n"
		"  --backend=file|pmem|nbd  how FILE is read and written: file (default: io_uring),\n"
		"                     pmem (copies to and from a libpmem2 mapping; see -t pmem),\n"
		"                     or nbd (FILE is an NBD URI: nbd://HOST[:PORT]/EXPORT,\n"
		"                     nbd+unix:///EXPORT?socket=/PATH, nbds://...; a URI selects it)\n"
		VUBLK_BACKEND_REMOTE_USAGE,
	.priv_size = sizeof(struct loop_tgt),
	.options = loop_options,
	.parse_opt = loop_parse_opt,
	.init = loop_init,
	.deinit = loop_deinit,
	.queue_init = loop_queue_init,
	.queue_deinit = loop_queue_deinit,
	.queue_io = loop_queue_io,
	.resize = loop_resize,
	.report = loop_report,
};

const struct vublk_tgt_ops vublk_tgt_pmem = {
	.name = "pmem",
	.summary = "a libpmem2 mapping (file on a -o dax filesystem, /dev/daxX.Y, or any file) as a block device",
	.usage = "  (none; the store granularity libpmem2 finds decides whether writes persist\n"
		 "   on completion (BYTE, CACHE_LINE) or on FLUSH/FUA (PAGE); --read-only maps\n"
		 "   the file read-only; the same as -t loop --backend=pmem)\n",
	.priv_size = sizeof(struct loop_tgt),
	.init = pmem_init,
	.deinit = loop_deinit,
	.queue_init = loop_queue_init,
	.queue_deinit = loop_queue_deinit,
	.queue_io = loop_queue_io,
	.report = loop_report,
};
