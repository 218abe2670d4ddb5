// SPDX-License-Identifier: GPL-2.0-only
/*
 * badblocks.c - known bad blocks of the mapped device, failed up front.
 *
 * The kernel's pmem driver fails a read of a known bad sector before
 * touching the media (drivers/nvdimm/pmem.c: pmem_do_read() ->
 * is_bad_pmem() -> BLK_STS_IOERR): consuming poison costs a machine check.
 * We do the same with the list libpmem2 reads at open (from ndctl for
 * device-DAX, from the file's extents for a file on a DAX filesystem).
 * The list is read once: poison found later is caught by the SIGBUS
 * recovery of the copies (poison.c) instead.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pmem_internal.h"

static int pmem_bad_range_cmp(const void *a, const void *b)
{
	const struct pmem_bad_range *x = a, *y = b;

	return (x->off > y->off) - (x->off < y->off);
}

/*
 * Sort and merge overlapping or touching ranges, so that both the starts
 * and the ends increase and pmem_badblocks_overlap() can bisect.
 */
void pmem_badblocks_normalize(struct pmem_badblocks *bb)
{
	size_t out = 0;

	if (bb->count == 0)
		return;
	qsort(bb->ranges, bb->count, sizeof(bb->ranges[0]),
	      pmem_bad_range_cmp);
	for (size_t i = 1; i < bb->count; i++) {
		struct pmem_bad_range *last = &bb->ranges[out];
		const struct pmem_bad_range *r = &bb->ranges[i];

		if (r->off <= last->off + last->len) {
			if (r->off + r->len > last->off + last->len)
				last->len = r->off + r->len - last->off;
		} else {
			bb->ranges[++out] = *r;
		}
	}
	bb->count = out + 1;
}

bool pmem_badblocks_overlap(const struct pmem_badblocks *bb, uint64_t off,
			    uint64_t len)
{
	size_t lo = 0, hi = bb->count;

	if (len == 0)
		return false;
	/* Find the first range that ends after @off. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct pmem_bad_range *r = &bb->ranges[mid];

		if (r->off + r->len <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < bb->count && bb->ranges[lo].off < off + len;
}

static int pmem_badblocks_append(struct pmem_badblocks *bb, size_t *capacity,
				 const struct pmem2_badblock *b)
{
	if (bb->count == *capacity) {
		size_t cap = *capacity ? 2 * *capacity : 16;
		struct pmem_bad_range *r = reallocarray(bb->ranges, cap,
							sizeof(*r));

		if (!r)
			return -ENOMEM;
		bb->ranges = r;
		*capacity = cap;
	}
	bb->ranges[bb->count].off = b->offset;
	bb->ranges[bb->count].len = b->length;
	bb->count++;
	return 0;
}

/*
 * Where the store keeps no bad-block list -- a file on tmpfs or on a
 * non-DAX filesystem -- libpmem2 either refuses the context (NOSUPP) or
 * finds no matching device: both mean "none known", not an error.
 */
static bool pmem_badblocks_unsupported(int rc)
{
	return rc == PMEM2_E_NOSUPP || rc == -ENOTSUP || rc == -EOPNOTSUPP ||
		rc == PMEM2_E_NO_BAD_BLOCK_FOUND;
}

int pmem_badblocks_load(struct pmem_badblocks *bb, struct pmem2_source *src,
			const char *path, char *errbuf)
{
	struct pmem2_badblock_context *ctx;
	struct pmem2_badblock b;
	size_t capacity = 0;
	int rc;

	rc = pmem2_badblock_context_new(&ctx, src);
	if (rc) {
		if (pmem_badblocks_unsupported(rc))
			return 0;
		pmem_set_error(errbuf, "cannot read the bad blocks of %s: libpmem2: %s; check that ndctl can list them",
			       path, pmem_libpmem2_reason(rc));
		return rc > PMEM2_E_UNKNOWN ? rc : -EIO;
	}
	while ((rc = pmem2_badblock_next(ctx, &b)) == 0) {
		rc = pmem_badblocks_append(bb, &capacity, &b);
		if (rc)
			break;
	}
	pmem2_badblock_context_delete(&ctx);
	if (rc == PMEM2_E_NO_BAD_BLOCK_FOUND) {	/* the end of the list */
		pmem_badblocks_normalize(bb);
		return 0;
	}
	pmem_set_error(errbuf, "cannot read the bad blocks of %s: %s", path,
		       rc == -ENOMEM ? strerror(ENOMEM) :
		       pmem_libpmem2_reason(rc));
	return rc > PMEM2_E_UNKNOWN ? rc : -EIO;
}

void pmem_badblocks_free(struct pmem_badblocks *bb)
{
	free(bb->ranges);
	bb->ranges = NULL;
	bb->count = 0;
}

bool pmem_is_bad(const struct pmem_dev *dev, uint64_t off, size_t len)
{
	return pmem_badblocks_overlap(&dev->badblocks, off, len);
}

size_t pmem_badblock_count(const struct pmem_dev *dev)
{
	return dev->badblocks.count;
}
