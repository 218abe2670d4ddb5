// SPDX-License-Identifier: GPL-2.0-only
/*
 * copy.c - the data path: pmem_read, pmem_write, pmem_zero.
 *
 * No bounds check here.  The kernel's pmem driver copies with the "no
 * check" _copy_from_iter_flushcache() / _copy_mc_to_iter() because
 * dax_iomap_actor() has already validated the range against the file and
 * the device ("libnvdimm/pmem: Bypass CONFIG_HARDENED_USERCOPY overhead",
 * 2019: psync writes went from 375K to 519K IOPS).  Likewise here: the
 * daemon validates each request against the device size once, at dispatch,
 * and a second look per copy would only cost time on the hottest path.
 * -Dpmem_checked_copy=true (PMEM_CHECKED_COPY) compiles the check back in,
 * to measure what it costs.
 *
 * No lock either: a write takes only the dirty bitmap's atomic bit-sets
 * (dirty.c), and only on PAGE granularity.
 */
#include <errno.h>
#include <string.h>
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#endif

#include "pmem_internal.h"

static inline int pmem_check_range(const struct pmem_dev *dev, uint64_t off,
				   size_t len)
{
#ifdef PMEM_CHECKED_COPY
	if (off > dev->size || len > dev->size - off)
		return -EINVAL;
#else
	(void)dev;
	(void)off;
	(void)len;
#endif
	return 0;
}

/*
 * Writes and zeroing copy with libpmem2's functions, which flush on
 * CACHE_LINE and BYTE granularity: fn(pmem, src, len, store flags) as a
 * guarded call (guard.h), so that a SIGBUS in it fails this request with
 * -EIO instead of killing the server (poison.c).
 */
static int pmem_store_guarded(struct pmem_dev *dev, pmem_guarded_fn fn,
			      char *pmem, const void *src, size_t len)
{
	struct pmem_guard *guard = &pmem_thread_guard;

	guard->start = dev->addr;
	guard->end = dev->addr + dev->size;
	return pmem_guarded_call(guard, fn, pmem, src, len, dev->store_flags) ?
		-EIO : 0;
}

/*
 * fn's frames, abandoned below ours, left their ASan redzones poisoned
 * (libpmem2's copies, the other guarded calls, have none), where later
 * calls will put their own frames: unpoison that stretch of the stack,
 * from the abandoned stack pointer (and the 128-byte red zone below it,
 * which a leaf function may use) up to our frame, all of it dead.
 * __asan_handle_no_return(), which ASan calls for a longjmp, cannot: its
 * own frame lands on the poisoned stretch, and ASan reports its locals.
 */
static void pmem_asan_unpoison_abandoned(const struct pmem_guard *guard)
{
#ifdef __SANITIZE_ADDRESS__
	uintptr_t lo = guard->fault_sp - 128;
	uintptr_t hi = (uintptr_t)__builtin_frame_address(0);

	if (lo < hi)
		__asan_unpoison_memory_region((void *)lo, hi - lo);
#else
	(void)guard;
#endif
}

int pmem_guarded_read(const void *start, size_t len, void (*fn)(void *ctx),
		      void *ctx)
{
	struct pmem_guard *guard = &pmem_thread_guard;
	int ret = pmem_poison_handler_install();

	if (ret)
		return ret;
	guard->start = start;
	guard->end = (const char *)start + len;
	if (!pmem_guarded_call(guard, (pmem_guarded_fn)fn, ctx, NULL, 0, 0))
		return 0;
	pmem_asan_unpoison_abandoned(guard);
	return -EIO;
}

/*
 * ASan does not see inside pmem_copy_mc(): check the destination as its
 * memcpy() interceptor would.
 */
static void pmem_asan_check_dst(void *dst, size_t len)
{
#ifdef __SANITIZE_ADDRESS__
	void *bad = __asan_region_is_poisoned(dst, len);

	if (bad)
		__asan_report_error(__builtin_return_address(0),
				    __builtin_frame_address(0),
				    __builtin_frame_address(0), bad, 1, len);
#else
	(void)dst;
	(void)len;
#endif
}

/* Reads copy with our own copy_mc (copy_mc_x86_64.S), no guard to arm. */
static int pmem_read_copy(struct pmem_dev *dev, void *dst, uint64_t off,
			  size_t len)
{
	pmem_asan_check_dst(dst, len);
	return pmem_copy_mc(dst, dev->addr + off, len) ? -EIO : 0;
}

/*
 * Known bad blocks fail their reads up front, as is_bad_pmem() makes the
 * kernel's pmem_do_read() do.  A function of its own so that the common
 * read, on a device without bad blocks, makes no call that needs registers
 * saved: every instruction between two copies counts here (see
 * docs/PERFORMANCE.md, pmem).
 */
static __attribute__((noinline)) int
pmem_read_badblocks(struct pmem_dev *dev, void *dst, uint64_t off, size_t len)
{
	if (pmem_badblocks_overlap(&dev->badblocks, off, len))
		return -EIO;
	return pmem_read_copy(dev, dst, off, len);
}

int pmem_read(struct pmem_dev *dev, void *dst, uint64_t off, size_t len)
{
	int ret = pmem_check_range(dev, off, len);

	if (ret)
		return ret;
	if (dev->badblocks.count)
		return pmem_read_badblocks(dev, dst, off, len);
	return pmem_read_copy(dev, dst, off, len);
}

/*
 * Record the range even when the copy faulted: what was stored before the
 * fault is in the page cache and must be persisted like the rest.  After
 * the copy, not before: a flush that ran between the mark and the copy
 * would take the chunk and persist it without the data.
 */
static int pmem_store(struct pmem_dev *dev, pmem_guarded_fn fn,
		      uint64_t off, const void *src, size_t len)
{
	int ret = pmem_check_range(dev, off, len);

	if (ret)
		return ret;
	if (dev->readonly)
		return -EROFS;
	ret = pmem_store_guarded(dev, fn, dev->addr + off, src, len);
	if (dev->dirty)
		pmem_dirty_mark(dev->dirty, off, len);
	return ret;
}

int pmem_write(struct pmem_dev *dev, uint64_t off, const void *src,
	       size_t len)
{
	return pmem_store(dev, (pmem_guarded_fn)dev->memcpy_fn, off, src, len);
}

int pmem_zero(struct pmem_dev *dev, uint64_t off, size_t len)
{
	/* memset_fn(pmem, c, len, flags): the NULL source is c = 0. */
	return pmem_store(dev, (pmem_guarded_fn)dev->memset_fn, off, NULL, len);
}
