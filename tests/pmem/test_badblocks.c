// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_badblocks.c - the bad-block list that pmem_read() consults.  No host
 * here has real bad blocks (those need an NVDIMM and ndctl), so the list is
 * filled by hand, the way pmem_badblocks_load() fills it from libpmem2:
 * unsorted, possibly overlapping ranges, then normalized.  The overlap
 * answers are checked against a byte map of the same ranges.  Then the
 * same list is put on a mapped device, whose reads of bad ranges must fail
 * up front while the rest read normally.
 *
 * usage: test_badblocks DIR
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "pmem_internal.h"
#include "pmem_test.h"

#define SPACE 4096

static const struct pmem_bad_range given[] = {
	{ 2048, 512 },
	{ 512, 512 },
	{ 700, 100 },	/* inside the previous one */
	{ 1024, 8 },	/* touches { 512, 512 } */
	{ 2500, 100 },	/* overlaps { 2048, 512 } */
	{ 4000, 96 },	/* up to the end */
};

static void check_normalized(const struct pmem_badblocks *bb)
{
	static const struct pmem_bad_range expect[] = {
		{ 512, 520 }, { 2048, 552 }, { 4000, 96 },
	};

	CHECK(bb->count == sizeof(expect) / sizeof(expect[0]));
	for (size_t i = 0; i < bb->count; i++)
		CHECK(bb->ranges[i].off == expect[i].off &&
		      bb->ranges[i].len == expect[i].len);
}

/* Every (off, len) in a small space, against the byte map. */
static void check_overlap_exhaustively(const struct pmem_badblocks *bb)
{
	static bool bad[SPACE];

	for (size_t i = 0; i < sizeof(given) / sizeof(given[0]); i++)
		memset(bad + given[i].off, 1, given[i].len);
	for (uint64_t off = 0; off < SPACE; off += 7) {
		for (uint64_t len = 0; off + len <= SPACE; len += 13) {
			bool expect = memchr(bad + off, 1, len) != NULL;

			CHECK(pmem_badblocks_overlap(bb, off, len) == expect);
		}
	}
	CHECK(pmem_badblocks_overlap(bb, 1031, 1));
	CHECK(!pmem_badblocks_overlap(bb, 1032, 1016));
}

/* pmem_read() and pmem_is_bad() on a device with the list installed. */
static void check_device_reads(const char *dir, struct pmem_badblocks *bb)
{
	unsigned char buf[SPACE], expect[SPACE];
	struct pmem_badblocks found;
	struct pmem_dev *dev;
	char path[4096];
	int fd = pmem_test_create_file(dir, SPACE, path, sizeof(path));

	dev = pmem_test_open(path, 0);
	pmem_test_fill(expect, sizeof(expect), 3);
	CHECK_OK(pmem_write(dev, 0, expect, sizeof(expect)));
	found = dev->badblocks;	/* what libpmem2 found: none, on a file */
	CHECK(found.count == 0);
	dev->badblocks = *bb;

	CHECK(pmem_badblock_count(dev) == 3);
	CHECK(pmem_read(dev, buf, 0, SPACE) == -EIO);
	CHECK(pmem_read(dev, buf, 1000, 100) == -EIO);
	CHECK(pmem_read(dev, buf, 4095, 1) == -EIO);
	CHECK(pmem_is_bad(dev, 2599, 1) && !pmem_is_bad(dev, 2600, 1400));
	CHECK_OK(pmem_read(dev, buf, 2600, 1400));
	CHECK(memcmp(buf, expect + 2600, 1400) == 0);
	CHECK_OK(pmem_read(dev, buf, 0, 512));
	CHECK(memcmp(buf, expect, 512) == 0);

	dev->badblocks = found;
	pmem_close(dev);
	CHECK(close(fd) == 0);
}

int main(int argc, char **argv)
{
	struct pmem_badblocks bb = { 0 }, none = { 0 };

	CHECK(argc == 2);
	bb.count = sizeof(given) / sizeof(given[0]);
	bb.ranges = malloc(sizeof(given));
	CHECK(bb.ranges);
	memcpy(bb.ranges, given, sizeof(given));
	pmem_badblocks_normalize(&bb);
	check_normalized(&bb);
	check_overlap_exhaustively(&bb);
	check_device_reads(argv[1], &bb);

	pmem_badblocks_normalize(&none);
	CHECK(!pmem_badblocks_overlap(&none, 0, UINT64_MAX));
	pmem_badblocks_free(&bb);
	return 0;
}
