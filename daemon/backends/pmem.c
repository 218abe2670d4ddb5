// SPDX-License-Identifier: GPL-2.0-only
/*
 * pmem.c - the "pmem" backend: a libpmem2 mapping (lib/pmem: a file on a
 * -o dax filesystem, a device-DAX node, or any regular file through the
 * page cache), copied synchronously.
 *
 * Modelled on the kernel's pmem driver (drivers/nvdimm/pmem.c):
 *  - I/O is a memory copy done in submit, as pmem_submit_bio() copies in
 *    the submitting context and ends the bio at once: no io_uring round
 *    trip; the result is submit's return value.
 *  - No bounds check here or in lib/pmem: the core validated the request
 *    once at dispatch (core/validate.c), and targets stay inside it (a
 *    verity target reads inside the image it sized from this mapping), as
 *    dax_iomap_actor() does for the driver's "no check" copies
 *    ("libnvdimm/pmem: Bypass CONFIG_HARDENED_USERCOPY overhead").
 *  - Write cache: the driver declares a volatile cache (so flushes reach
 *    it) and persists on REQ_PREFLUSH / REQ_FUA (nvdimm_flush()).  Here
 *    that depends on the store granularity libpmem2 found: on PAGE (page
 *    cache) writes are persistent only after pmem_flush(), so the store
 *    has a volatile cache and FLUSH / FUA call it; on CACHE_LINE or BYTE
 *    lib/pmem flushes every store before returning, so there is no
 *    volatile cache and a FLUSH (which the block layer then does not
 *    send, but a caller may) is accepted as a no-op.
 *  - DISCARD and WRITE_ZEROES both zero the range (pmem_zero()): a
 *    mapping cannot punch holes, and zeroes are a valid "undefined".
 *  - A copy that faults (poison, or the file truncated under the device:
 *    SIGBUS, which lib/pmem turns into -EIO) or touches a known bad block
 *    fails that bio with -EIO; the server stays up.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "backend.h"
#include "pmem.h"

struct pmem_backend {
	struct pmem_dev *dev;
};

/* Memory is byte addressable: 512-byte blocks need no read-modify-write,
 * and a page is what the mapping moves efficiently. */
#define PMEM_BACKEND_BLOCK_SHIFT 9
#define PMEM_BACKEND_IO_MIN_SHIFT 12

static int pmem_backend_map(struct vublk_backend *be, struct pmem_backend *pb)
{
	char errbuf[PMEM_ERRBUF_SIZE];
	bool ro = be->flags & VUBLK_BACKEND_READ_ONLY;
	int ret;

	if (be->flags & VUBLK_BACKEND_DIRECT) {
		vublk_error("--direct asks for O_DIRECT I/O on %s, which --backend=pmem does not do: it copies to and from a mapping (drop --direct)",
			    be->path);
		return -EINVAL;
	}
	ret = pmem_open(be->path, ro ? PMEM_OPEN_READONLY : 0, &pb->dev,
			errbuf);
	if (ret == 0)
		return 0;
	if ((ret == -EACCES || ret == -EROFS || ret == -EPERM) && !ro)
		vublk_error("%s (to serve it read-only, add --read-only)",
			    errbuf);
	else
		vublk_error("%s", errbuf);
	return ret;
}

static int pmem_backend_open(struct vublk_backend *be)
{
	struct pmem_backend *pb = be->priv;
	bool ro = be->flags & VUBLK_BACKEND_READ_ONLY;
	enum pmem_granularity g;
	int ret = pmem_backend_map(be, pb);

	if (ret)
		return ret;
	g = pmem_granularity(pb->dev);
	be->size = pmem_size(pb->dev);
	be->block_shift = PMEM_BACKEND_BLOCK_SHIFT;
	be->mem_align = 1;
	be->io_min_shift = PMEM_BACKEND_IO_MIN_SHIFT;
	/* A read-only store has no writes to persist. */
	be->volatile_cache = !ro && g == PMEM_GRANULARITY_PAGE;
	be->map = pmem_address(pb->dev);
	be->map_len = be->size;
	vublk_info("pmem %s: %" PRIu64 " bytes%s, store granularity %s: %s, %zu known bad ranges",
		   be->path, be->size, ro ? " read-only" : "",
		   pmem_granularity_name(g),
		   ro ? "no writes" : be->volatile_cache ?
		   "writes persist on FLUSH/FUA (volatile write cache)" :
		   "writes persistent on completion",
		   pmem_badblock_count(pb->dev));
	return 0;
}

/* Persist what is still only in the page cache, then unmap. */
static void pmem_backend_close(struct vublk_backend *be)
{
	struct pmem_backend *pb = be->priv;
	struct pmem_flush_stats fs = { 0 };
	int ret = be->flags & VUBLK_BACKEND_READ_ONLY ? 0 : pmem_flush(pb->dev);

	if (ret)
		vublk_error("pmem %s: final flush failed: %s; writes since the last successful flush may be lost",
			    be->path, strerror(-ret));
	if (pmem_get_flush_stats(pb->dev, &fs) == 0)
		vublk_info("pmem %s closed: %" PRIu64 " flushes, %" PRIu64 " ranges (%" PRIu64 " bytes) persisted",
			   be->path, fs.flushes, fs.persisted_ranges,
			   fs.persisted_bytes);
	pmem_close(pb->dev);
}

/* A copy like any read: the main thread may use the mapping too. */
static int pmem_backend_read_sync(struct vublk_backend *be, void *buf,
				  size_t len, uint64_t pos)
{
	return pmem_read(((struct pmem_backend *)be->priv)->dev, buf, pos,
			 len);
}

/* Memory: any range but a known bad block's is there to read. */
static const uint8_t *pmem_backend_mapped_at(struct vublk_backend *be,
					     uint64_t pos, uint32_t len)
{
	const struct pmem_backend *pb = be->priv;

	if (pos > be->map_len || len > be->map_len - pos ||
	    pmem_is_bad(pb->dev, pos, len))
		return NULL;
	return be->map + pos;
}

/*
 * One function per op, each working out its request's result from what
 * it read before the copy (the compiler cannot know that the copy leaves
 * the bio alone, and would load it again), and each called last: the
 * switch in pmem_backend_submit() then keeps no frame and the READ, which
 * needs few registers, does not pay for the WRITE's.  Measured:
 * tools/bench/pmem-icount.py, docs/PERFORMANCE.md (issue 12).
 */
static __attribute__((noinline)) int
pmem_backend_read(struct pmem_dev *dev, const struct vublk_req *req)
{
	uint32_t len = req->len;
	int err = pmem_read(dev, req->buf, req->offset, len);

	return err ? err : (int)len;
}

/*
 * FUA: the write must be persistent when it completes.  pmem_flush()
 * persists every completed write, this one included, as nvdimm_flush()
 * after a REQ_FUA write does in pmem_submit_bio().  On CACHE_LINE and
 * BYTE, pmem_flush() returns at once: the write was flushed as it was
 * stored.
 */
static __attribute__((noinline)) int
pmem_backend_write(struct pmem_dev *dev, const struct vublk_req *req)
{
	uint32_t len = req->len;
	bool fua = req->flags & VUBLK_REQ_FUA;
	int err = pmem_write(dev, req->offset, req->buf, len);

	if (!err && fua)
		err = pmem_flush(dev);
	return err ? err : (int)len;
}

/* DISCARD and WRITE_ZEROES. */
static __attribute__((noinline)) int
pmem_backend_zero(struct pmem_dev *dev, const struct vublk_req *req)
{
	return pmem_zero(dev, req->offset, req->len);
}

/* The range was validated at dispatch: copy without a second look. */
static int pmem_backend_submit(struct vublk_backend *be, struct vublk_queue *q,
			       struct vublk_bio *bio)
{
	struct pmem_dev *dev = ((struct pmem_backend *)be->priv)->dev;

	(void)q;
	switch (bio->req.op) {
	case VUBLK_OP_READ:
		return pmem_backend_read(dev, &bio->req);
	case VUBLK_OP_WRITE:
		return pmem_backend_write(dev, &bio->req);
	case VUBLK_OP_FLUSH:
		/* Nothing to do but on PAGE granularity: pmem_flush()
		 * knows. */
		return pmem_flush(dev);
	case VUBLK_OP_DISCARD:
	case VUBLK_OP_WRITE_ZEROES:
		return pmem_backend_zero(dev, &bio->req);
	default:
		return -EOPNOTSUPP;	/* the core passes only the ops above */
	}
}

static void pmem_backend_report(struct vublk_backend *be,
				struct vublk_stats_out *out)
{
	struct pmem_dev *dev = ((struct pmem_backend *)be->priv)->dev;
	struct pmem_flush_stats fs = { 0 };

	/* Best effort: on failure the counters read as zero. */
	(void)pmem_get_flush_stats(dev, &fs);
	vublk_stat_str(out, "granularity",
		       pmem_granularity_name(pmem_granularity(dev)));
	vublk_stat_bool(out, "volatile_cache", be->volatile_cache);
	vublk_stat_u64(out, "bad_ranges", pmem_badblock_count(dev));
	vublk_stat_u64(out, "pmem_flushes", fs.flushes);
	vublk_stat_u64(out, "persisted_ranges", fs.persisted_ranges);
	vublk_stat_u64(out, "persisted_bytes", fs.persisted_bytes);
}

struct pmem_dev *vublk_pmem_backend_device(const struct vublk_backend *be)
{
	return ((const struct pmem_backend *)be->priv)->dev;
}

const struct vublk_backend_ops vublk_backend_pmem = {
	.name = "pmem",
	.summary = "copies to and from a libpmem2 mapping",
	.priv_size = sizeof(struct pmem_backend),
	.open = pmem_backend_open,
	.close = pmem_backend_close,
	.read_sync = pmem_backend_read_sync,
	.submit = pmem_backend_submit,
	.mapped_at = pmem_backend_mapped_at,
	.report = pmem_backend_report,
};
