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

#include "pmem_internal.h"

enum pmem_copy_op {
	PMEM_COPY_READ,		/* mapping -> caller's buffer */
	PMEM_COPY_WRITE,	/* caller's buffer -> mapping */
	PMEM_COPY_ZERO,		/* zeroes -> mapping */
};

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
 * The one place that touches the mapping, under the SIGBUS guard
 * (poison.c).  sigsetjmp() must be called in the frame that stays live
 * during the copy, hence the switch rather than three wrappers.
 */
static int pmem_copy_guarded(struct pmem_dev *dev, enum pmem_copy_op op,
			     uint64_t off, void *buf, size_t len)
{
	struct pmem_poison_guard guard;
	char *pmem = dev->addr + off;

	if (sigsetjmp(guard.env, 0))
		return -EIO;	/* the handler disarmed the guard */
	pmem_poison_arm(&guard, dev);
	switch (op) {
	case PMEM_COPY_READ:
		memcpy(buf, pmem, len);
		break;
	case PMEM_COPY_WRITE:
		dev->memcpy_fn(pmem, buf, len, dev->store_flags);
		break;
	case PMEM_COPY_ZERO:
		dev->memset_fn(pmem, 0, len, dev->store_flags);
		break;
	}
	pmem_poison_disarm();
	return 0;
}

int pmem_read(struct pmem_dev *dev, void *dst, uint64_t off, size_t len)
{
	int ret = pmem_check_range(dev, off, len);

	if (ret)
		return ret;
	if (dev->badblocks.count &&
	    pmem_badblocks_overlap(&dev->badblocks, off, len))
		return -EIO;
	return pmem_copy_guarded(dev, PMEM_COPY_READ, off, dst, len);
}

/*
 * Record the range even when the copy faulted: what was stored before the
 * fault is in the page cache and must be persisted like the rest.  After
 * the copy, not before: a flush that ran between the mark and the copy
 * would take the chunk and persist it without the data.
 */
static int pmem_store(struct pmem_dev *dev, enum pmem_copy_op op,
		      uint64_t off, const void *src, size_t len)
{
	int ret = pmem_check_range(dev, off, len);

	if (ret)
		return ret;
	if (dev->readonly)
		return -EROFS;
	/* memcpy_fn() takes a const source; the guard's buffer is shared
	 * with the read direction, hence the cast. */
	ret = pmem_copy_guarded(dev, op, off, (void *)src, len);
	if (dev->dirty)
		pmem_dirty_mark(dev->dirty, off, len);
	return ret;
}

int pmem_write(struct pmem_dev *dev, uint64_t off, const void *src,
	       size_t len)
{
	return pmem_store(dev, PMEM_COPY_WRITE, off, src, len);
}

int pmem_zero(struct pmem_dev *dev, uint64_t off, size_t len)
{
	return pmem_store(dev, PMEM_COPY_ZERO, off, NULL, len);
}
