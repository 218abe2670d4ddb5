// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_checked_copy.c - built only with -Dpmem_checked_copy=true: the copy
 * path's re-check refuses ranges past the device's end (which the daemon
 * never sends) with -EINVAL, touches nothing and records nothing dirty.
 *
 * usage: test_checked_copy DIR
 */
#include <errno.h>
#include <unistd.h>

#include "pmem_test.h"

#define DEV_SIZE (256 * 1024)

static void check_refused(struct pmem_dev *dev, uint64_t off, size_t len)
{
	static unsigned char buf[2 * 4096];

	CHECK(len <= sizeof(buf));
	CHECK(pmem_read(dev, buf, off, len) == -EINVAL);
	CHECK(pmem_write(dev, off, buf, len) == -EINVAL);
	CHECK(pmem_zero(dev, off, len) == -EINVAL);
}

int main(int argc, char **argv)
{
	struct pmem_flush_stats stats;
	unsigned char byte = 0x5a;
	char path[4096];
	struct pmem_dev *dev;
	int fd;

	CHECK(argc == 2);
	fd = pmem_test_create_file(argv[1], DEV_SIZE, path, sizeof(path));
	dev = pmem_test_open(path, 0);
	check_refused(dev, DEV_SIZE, 1);
	check_refused(dev, DEV_SIZE - 1, 2);
	check_refused(dev, DEV_SIZE + 4096, 4096);
	check_refused(dev, UINT64_MAX - 1, 4096);	/* off + len wraps */
	CHECK_OK(pmem_flush(dev));
	CHECK_OK(pmem_get_flush_stats(dev, &stats));
	CHECK(stats.persisted_ranges == 0);

	/* The last byte is still in range. */
	CHECK_OK(pmem_write(dev, DEV_SIZE - 1, &byte, 1));
	byte = 0;
	CHECK_OK(pmem_read(dev, &byte, DEV_SIZE - 1, 1));
	CHECK(byte == 0x5a);
	pmem_close(dev);
	CHECK(close(fd) == 0);
	return 0;
}
