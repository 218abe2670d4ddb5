// SPDX-License-Identifier: GPL-2.0-only
/*
 * tgt_pmem.c - the pmem target: the device is a libpmem2 mapping
 * (lib/pmem: a file on a -o dax filesystem, a device-DAX node, or any
 * regular file through the page cache).
 *
 * Modelled on the kernel's pmem driver (drivers/nvdimm/pmem.c):
 *  - I/O is a memory copy, done synchronously in queue_io, as
 *    pmem_submit_bio() copies in the submitting context and ends the bio
 *    at once: no io_uring round trip, no io_done.
 *  - No bounds check here or in lib/pmem: the core validated the request
 *    once at dispatch (daemon/ublk_validate.c), as dax_iomap_actor() does
 *    for the driver's "no check" copies ("libnvdimm/pmem: Bypass
 *    CONFIG_HARDENED_USERCOPY overhead").
 *  - Shape: 512-byte logical blocks and 4 KiB physical blocks, as
 *    pmem_attach_disk() sets them for a raw namespace (logical =
 *    pmem_sector_size() = 512, physical = PAGE_SIZE).  Memory is byte
 *    addressable, so a 512-byte write needs no read-modify-write; 512
 *    keeps every filesystem and partition tool usable, and the 4 KiB
 *    physical size still steers filesystems to page-sized I/O.
 *  - Write cache: the driver declares a volatile cache (so flushes reach
 *    it) and persists on REQ_PREFLUSH / REQ_FUA (nvdimm_flush()).  Here
 *    that depends on the store granularity libpmem2 found: on PAGE (page
 *    cache) writes are persistent only after pmem_flush(), so the device
 *    has a volatile cache and FLUSH / FUA call it; on CACHE_LINE or BYTE
 *    lib/pmem flushes every store before returning, so there is no
 *    volatile cache and a FLUSH (which the block layer then does not
 *    send, but a caller may) is accepted as a no-op.
 *  - DISCARD and WRITE_ZEROES both zero the range (pmem_zero()): a
 *    mapping cannot punch holes, and zeroes are a valid "undefined".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pmem.h"
#include "target.h"
#include "tgt_pmem.h"

#define PMEM_TGT_LOGICAL_BS_SHIFT 9
#define PMEM_TGT_PHYSICAL_BS_SHIFT 12

struct pmem_tgt {
	struct pmem_dev *dev;
};

/* Open the mapping; lib/pmem's message already says what to do. */
static int pmem_tgt_open(struct vublk_tgt *t, struct pmem_tgt *pt)
{
	char errbuf[PMEM_ERRBUF_SIZE];
	unsigned flags = t->read_only ? PMEM_OPEN_READONLY : 0;
	int ret = pmem_open(t->backing_file, flags, &pt->dev, errbuf);

	if (ret == 0)
		return 0;
	if ((ret == -EACCES || ret == -EROFS || ret == -EPERM) &&
	    !t->read_only)
		vublk_error("%s (to serve it read-only, add --read-only)",
			    errbuf);
	else
		vublk_error("%s", errbuf);
	return ret;
}

static int pmem_tgt_set_shape(struct vublk_tgt *t, struct pmem_tgt *pt)
{
	uint64_t size = pmem_size(pt->dev);
	uint64_t bs = 1ULL << PMEM_TGT_LOGICAL_BS_SHIFT;

	if (size < bs) {
		vublk_error("backing file %s is too small: %" PRIu64 " bytes, less than one %" PRIu64 "-byte block; grow it first (e.g. truncate -s 1G %s)",
			    t->backing_file, size, bs, t->backing_file);
		return -EINVAL;
	}
	t->dev_size = size & ~(bs - 1);
	t->logical_bs_shift = PMEM_TGT_LOGICAL_BS_SHIFT;
	t->physical_bs_shift = PMEM_TGT_PHYSICAL_BS_SHIFT;
	t->io_min_shift = PMEM_TGT_PHYSICAL_BS_SHIFT;
	t->io_opt_shift = PMEM_TGT_PHYSICAL_BS_SHIFT;
	/* A read-only device has no writes to persist. */
	t->volatile_cache = !t->read_only &&
		pmem_granularity(pt->dev) == PMEM_GRANULARITY_PAGE;
	t->discard = !t->read_only;
	t->discard_granularity = 1U << PMEM_TGT_PHYSICAL_BS_SHIFT;
	return 0;
}

static int pmem_tgt_init(struct vublk_tgt *t)
{
	struct pmem_tgt *pt = t->priv;
	enum pmem_granularity g;
	int ret;

	ret = pmem_tgt_open(t, pt);
	if (ret)
		return ret;
	ret = pmem_tgt_set_shape(t, pt);
	if (ret) {
		pmem_close(pt->dev);
		return ret;
	}
	g = pmem_granularity(pt->dev);
	vublk_info("pmem %s: %" PRIu64 " bytes%s, store granularity %s: %s, %zu known bad ranges",
		   t->backing_file, t->dev_size,
		   t->read_only ? " read-only" : "",
		   pmem_granularity_name(g),
		   t->read_only ? "no writes" : t->volatile_cache ?
		   "writes persist on FLUSH/FUA (volatile write cache)" :
		   "writes persistent on completion",
		   pmem_badblock_count(pt->dev));
	return 0;
}

/* Persist what is still only in the page cache, then unmap. */
static void pmem_tgt_deinit(struct vublk_tgt *t)
{
	struct pmem_tgt *pt = t->priv;
	struct pmem_flush_stats fs = { 0 };
	int ret = t->read_only ? 0 : pmem_flush(pt->dev);

	if (ret)
		vublk_error("pmem %s: final flush failed: %s; writes since the last successful flush may be lost",
			    t->backing_file, strerror(-ret));
	if (pmem_get_flush_stats(pt->dev, &fs) == 0)
		vublk_info("pmem %s closed: %" PRIu64 " flushes, %" PRIu64 " ranges (%" PRIu64 " bytes) persisted",
			   t->backing_file, fs.flushes, fs.persisted_ranges,
			   fs.persisted_bytes);
	pmem_close(pt->dev);
}

/*
 * FUA: the write must be persistent when it completes.  pmem_flush()
 * persists every completed write, this one included, as nvdimm_flush()
 * after a REQ_FUA write does in pmem_submit_bio().  On CACHE_LINE and
 * BYTE, pmem_flush() returns at once: the write was flushed as it was
 * stored.
 */
static int pmem_tgt_write(const struct pmem_tgt *pt,
			  const struct vublk_req *req)
{
	int ret = pmem_write(pt->dev, req->offset, req->buf, req->len);

	if (ret == 0 && (req->flags & VUBLK_REQ_FUA))
		ret = pmem_flush(pt->dev);
	return ret;
}

/* One request: bytes done (READ, WRITE), 0 (the rest), or -errno. */
static int pmem_tgt_do_io(const struct pmem_tgt *pt,
			  const struct vublk_req *req)
{
	int ret;

	switch (req->op) {
	case VUBLK_OP_READ:
		ret = pmem_read(pt->dev, req->buf, req->offset, req->len);
		return ret ? ret : (int)req->len;
	case VUBLK_OP_WRITE:
		ret = pmem_tgt_write(pt, req);
		return ret ? ret : (int)req->len;
	case VUBLK_OP_FLUSH:
		/* Nothing to do but on PAGE granularity: pmem_flush()
		 * knows. */
		return pmem_flush(pt->dev);
	case VUBLK_OP_DISCARD:
	case VUBLK_OP_WRITE_ZEROES:
		return pmem_zero(pt->dev, req->offset, req->len);
	default:
		return -EOPNOTSUPP;	/* the core passes only the ops above */
	}
}

/* The request was validated at dispatch: copy without a second look. */
static int pmem_tgt_queue_io(struct vublk_queue *q, unsigned tag,
			     const struct vublk_req *req)
{
	vublk_complete_io(q, tag, pmem_tgt_do_io(q->tgt->priv, req));
	return 0;
}

struct pmem_dev *pmem_tgt_device(const struct vublk_tgt *t)
{
	const struct pmem_tgt *pt = t->priv;

	return pt->dev;
}

static void pmem_tgt_stats_json(struct vublk_tgt *t, FILE *f)
{
	struct pmem_tgt *pt = t->priv;
	struct pmem_flush_stats fs = { 0 };

	/* Best effort: on failure the counters read as zero. */
	(void)pmem_get_flush_stats(pt->dev, &fs);
	fprintf(f, ", \"pmem\": {\"granularity\": \"%s\", \"volatile_cache\": %s, \"bad_ranges\": %zu, \"pmem_flushes\": %" PRIu64 ", \"persisted_ranges\": %" PRIu64 ", \"persisted_bytes\": %" PRIu64 "}",
		pmem_granularity_name(pmem_granularity(pt->dev)),
		t->volatile_cache ? "true" : "false",
		pmem_badblock_count(pt->dev), fs.flushes, fs.persisted_ranges,
		fs.persisted_bytes);
}

const struct vublk_tgt_ops vublk_tgt_pmem = {
	.name = "pmem",
	.summary = "a libpmem2 mapping (file on a -o dax filesystem, /dev/daxX.Y, or any file) as a block device",
	.usage = "  (none; the store granularity libpmem2 finds decides whether writes persist\n"
		 "   on completion (BYTE, CACHE_LINE) or on FLUSH/FUA (PAGE); --read-only maps\n"
		 "   the file read-only)\n",
	.priv_size = sizeof(struct pmem_tgt),
	.init = pmem_tgt_init,
	.deinit = pmem_tgt_deinit,
	.queue_io = pmem_tgt_queue_io,
	.stats_json = pmem_tgt_stats_json,
};
