/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pmem.h - the pmem backend of vublk: a block device served out of a
 * libpmem2 mapping.  This is the one public header of lib/pmem.
 *
 * What can be mapped: a file on a filesystem mounted with -o dax, a
 * device-DAX node (/dev/daxX.Y), or any regular file (tmpfs, ext4, ...),
 * which libpmem2 maps through the page cache.  A block device such as
 * /dev/pmem0 is refused: libpmem2 maps only files and device-DAX.
 *
 * Store granularity (libpmem2(7)), read back from the mapping after asking
 * for PAGE, the weakest, so that mapping succeeds on any store:
 *  - BYTE or CACHE_LINE: the CPU caches are (or are flushed to) the
 *    persistence domain.  pmem_write() and pmem_zero() flush what they
 *    store before returning, so a write is persistent when it completes and
 *    pmem_flush() has nothing to do.
 *  - PAGE: stores land in the page cache.  Writes do not flush; they record
 *    the 64 KiB chunks they touched, and pmem_flush() msyncs exactly those
 *    chunks.  This mirrors the kernel's drivers/nvdimm/pmem.c, which
 *    completes plain writes without a flush and persists on REQ_PREFLUSH /
 *    REQ_FUA (pmem_submit_bio() -> nvdimm_flush()): the daemon calls
 *    pmem_flush() for FLUSH requests and after FUA writes.
 *
 * CONTRACT ON RANGES: every off/len given to pmem_read(), pmem_write(),
 * pmem_zero() and pmem_is_bad() must satisfy off + len <= pmem_size(dev)
 * without overflow.  The daemon validates each request ONCE at dispatch
 * against the device size; the copy functions take no second look (see
 * copy.c for why).  Built with -Dpmem_checked_copy=true, they re-check and
 * return -EINVAL instead, so the cost of the check can be measured.
 *
 * Errors: functions return 0 or a negative errno.  A read that touches a
 * known bad block, and any request that faults (SIGBUS) while copying --
 * poison, or a backing file truncated under the running device -- fails
 * with -EIO and the process keeps running.  Writes are not refused over
 * known bad blocks: the kernel clears the poison first (drivers/nvdimm/
 * pmem.c: pmem_do_write() -> pmem_clear_poison()); this library does not
 * clear it yet, so such a write may fault and fail with -EIO.
 *
 * Thread safety: after pmem_open(), every function may be called from any
 * number of threads at once (the daemon's queue threads share one
 * struct pmem_dev).  pmem_flush() persists every write and zero that
 * completed, on any thread, before it was called.  pmem_close() must not
 * race with anything.
 *
 * Signals: pmem_open() installs a process-wide SIGBUS handler (once).  A
 * SIGBUS outside a pmem copy gets the default action, as without it.
 */
#ifndef VUBLK_PMEM_H
#define VUBLK_PMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pmem_dev;
struct pmem2_map;

/* The values and order of libpmem2's enum pmem2_granularity. */
enum pmem_granularity {
	PMEM_GRANULARITY_BYTE,
	PMEM_GRANULARITY_CACHE_LINE,
	PMEM_GRANULARITY_PAGE,
};

/* pmem_open() flags */
#define PMEM_OPEN_READONLY (1u << 0)	/* map read-only; writes get -EROFS */

/* Size of the buffer that pmem_open() writes its error message into. */
#define PMEM_ERRBUF_SIZE 512

/* On PAGE granularity, writes are tracked and persisted in chunks of this
 * size (aligned to the start of the device). */
#define PMEM_DIRTY_CHUNK_SHIFT 16
#define PMEM_DIRTY_CHUNK_SIZE (UINT64_C(1) << PMEM_DIRTY_CHUNK_SHIFT)

/*
 * pmem_open - map @path for serving as a block device.
 * On success returns 0 and sets *@devp.  On failure returns a negative
 * errno and writes ONE line (no trailing newline) into @errbuf saying what
 * failed, for which path, why, and what to do instead.
 */
int pmem_open(const char *path, unsigned int flags, struct pmem_dev **devp,
	      char errbuf[PMEM_ERRBUF_SIZE]);

/* pmem_close - unmap and free.  Does not flush: call pmem_flush() first. */
void pmem_close(struct pmem_dev *dev);

/* Size of the mapping (the file or device-DAX size) in bytes. */
uint64_t pmem_size(const struct pmem_dev *dev);

enum pmem_granularity pmem_granularity(const struct pmem_dev *dev);

/* "BYTE", "CACHE_LINE" or "PAGE" (libpmem2's names). */
const char *pmem_granularity_name(enum pmem_granularity granularity);

/*
 * The libpmem2 mapping underneath, for benchmarks that set lib/pmem's copy
 * path against bare libpmem2 calls on the very same mapping (vublk-bench
 * pmem).  Copying through it bypasses everything this header promises.
 */
struct pmem2_map *pmem_map(const struct pmem_dev *dev);

/*
 * The mapping's first byte, for a caller that reads the device in place
 * inside pmem_guarded_read() (the verity target hashes blocks straight
 * out of it); the range contract holds as for pmem_read().
 */
const void *pmem_address(const struct pmem_dev *dev);

/*
 * pmem_guarded_read - call @fn(@ctx) with loads from [@start, @start +
 * @len) guarded, for a caller that reads a mapping in place rather than
 * through pmem_read().  A SIGBUS on a load from that range (poison, or a
 * file truncated under the mapping) abandons @fn where it stands, and
 * this returns -EIO; the process goes on.  So @fn must hold no lock and
 * allocate nothing, and what it wrote is undefined after -EIO.  Known bad
 * blocks are the caller's to keep out (pmem_is_bad()).  Any mapping, not
 * only a pmem_dev's: the first call installs the SIGBUS handler, as
 * pmem_open() does.  Returns 0, -EIO, or an -errno of installing the
 * handler.
 */
int pmem_guarded_read(const void *start, size_t len, void (*fn)(void *ctx),
		      void *ctx);

/* Number of known bad ranges (libpmem2 badblock API) found at open. */
size_t pmem_badblock_count(const struct pmem_dev *dev);

/*
 * pmem_read - copy @len bytes at device offset @off into @dst.
 * Returns 0, or -EIO if the range holds a known bad block or the copy
 * faulted (then @dst holds partial data).
 */
int pmem_read(struct pmem_dev *dev, void *dst, uint64_t off, size_t len);

/*
 * pmem_write - copy @len bytes from @src to device offset @off.
 * Returns 0, -EIO if the copy faulted, -EROFS on a read-only device.
 * Persistent on return on BYTE/CACHE_LINE granularity, after the next
 * pmem_flush() on PAGE granularity.
 */
int pmem_write(struct pmem_dev *dev, uint64_t off, const void *src,
	       size_t len);

/* pmem_zero - zero @len bytes at @off (discard, write-zeroes); otherwise
 * as pmem_write(). */
int pmem_zero(struct pmem_dev *dev, uint64_t off, size_t len);

/*
 * pmem_flush - persist every pmem_write()/pmem_zero() that completed
 * before this call.  Returns 0, or -EIO if the kernel reported a write-back
 * error.  That error is sticky: data may have been lost, so this and every
 * later pmem_flush() of the device return -EIO (nothing is reported
 * persistent that may not be); reopen the device after repairing it.
 */
int pmem_flush(struct pmem_dev *dev);

/* pmem_is_bad - does [off, off + len) overlap a known bad block? */
bool pmem_is_bad(const struct pmem_dev *dev, uint64_t off, size_t len);

/* What pmem_flush() has done so far, to observe the dirty bookkeeping. */
struct pmem_flush_stats {
	uint64_t flushes;		/* pmem_flush() calls */
	uint64_t persisted_ranges;	/* msync() calls that succeeded */
	uint64_t persisted_bytes;	/* bytes those calls covered */
};

/* Zeroes on BYTE/CACHE_LINE granularity, which keep no bookkeeping.
 * Returns 0 or a negative errno. */
int pmem_get_flush_stats(struct pmem_dev *dev, struct pmem_flush_stats *stats);

#endif /* VUBLK_PMEM_H */
