// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_roundtrip.c - pmem_write / pmem_zero / pmem_read at various offsets,
 * checked against pread() of the backing file (an independent view of the
 * same bytes) and again after closing and reopening the mapping; the
 * granularity reported; read-only mappings.
 *
 * usage: test_roundtrip DIR
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "pmem_test.h"

/* Not a multiple of the 64 KiB dirty chunk, so the last chunk is partial. */
#define DEV_SIZE (UINT64_C(8) * 1024 * 1024 + 12 * 1024)

struct extent {
	uint64_t off;
	size_t len;
};

/* Aligned, unaligned, one byte, across a chunk, across a 64-chunk bitmap
 * word (4 MiB), the very end. */
static const struct extent writes[] = {
	{ 0, 4096 },
	{ 513, 1 },
	{ 65535, 2 },
	{ 3 * 1024 * 1024 + 17, 2 * 1024 * 1024 },
	{ DEV_SIZE - 4096, 4096 },
	{ DEV_SIZE - 1, 1 },
};

static const struct extent zeroes[] = {
	{ 8192, 4096 },
	{ 4 * 1024 * 1024 - 100, 200 },
};

/* Compare what pmem_read and the file both say against @expect. */
static void check_contents(struct pmem_dev *dev, int fd,
			   const unsigned char *expect)
{
	unsigned char *via_pmem = malloc(DEV_SIZE), *via_file = malloc(DEV_SIZE);

	CHECK(via_pmem && via_file);
	CHECK_OK(pmem_read(dev, via_pmem, 0, DEV_SIZE));
	CHECK(memcmp(via_pmem, expect, DEV_SIZE) == 0);
	pmem_test_pread(fd, via_file, DEV_SIZE, 0);
	CHECK(memcmp(via_file, expect, DEV_SIZE) == 0);
	/* A small unaligned read in the middle of a written extent. */
	CHECK_OK(pmem_read(dev, via_pmem, 3 * 1024 * 1024 + 1000, 3));
	CHECK(memcmp(via_pmem, expect + 3 * 1024 * 1024 + 1000, 3) == 0);
	free(via_pmem);
	free(via_file);
}

static void write_and_zero(struct pmem_dev *dev, unsigned char *expect)
{
	for (size_t i = 0; i < sizeof(writes) / sizeof(writes[0]); i++) {
		unsigned char *buf = malloc(writes[i].len);

		CHECK(buf);
		pmem_test_fill(buf, writes[i].len, i + 1);
		CHECK_OK(pmem_write(dev, writes[i].off, buf, writes[i].len));
		memcpy(expect + writes[i].off, buf, writes[i].len);
		free(buf);
	}
	for (size_t i = 0; i < sizeof(zeroes) / sizeof(zeroes[0]); i++) {
		CHECK_OK(pmem_zero(dev, zeroes[i].off, zeroes[i].len));
		memset(expect + zeroes[i].off, 0, zeroes[i].len);
	}
}

static void check_readonly(const char *path, const unsigned char *expect)
{
	struct pmem_dev *dev = pmem_test_open(path, PMEM_OPEN_READONLY);
	unsigned char buf[4096];

	CHECK(pmem_write(dev, 0, buf, sizeof(buf)) == -EROFS);
	CHECK(pmem_zero(dev, 0, sizeof(buf)) == -EROFS);
	CHECK_OK(pmem_read(dev, buf, 0, sizeof(buf)));
	CHECK(memcmp(buf, expect, sizeof(buf)) == 0);
	CHECK_OK(pmem_flush(dev));
	pmem_close(dev);
}

int main(int argc, char **argv)
{
	char path[4096];
	unsigned char *expect = calloc(1, DEV_SIZE);
	struct pmem_dev *dev;
	int fd;

	CHECK(argc == 2 && expect);
	fd = pmem_test_create_file(argv[1], DEV_SIZE, path, sizeof(path));
	dev = pmem_test_open(path, 0);
	printf("%s: granularity %s\n", path,
	       pmem_granularity_name(pmem_granularity(dev)));
	CHECK(pmem_granularity(dev) == pmem_test_expected_granularity());
	CHECK(pmem_size(dev) == DEV_SIZE);
	CHECK(pmem_badblock_count(dev) == 0);
	CHECK(!pmem_is_bad(dev, 0, DEV_SIZE));

	check_contents(dev, fd, expect);	/* a new file reads as zeroes */
	write_and_zero(dev, expect);
	check_contents(dev, fd, expect);
	CHECK_OK(pmem_flush(dev));
	pmem_close(dev);

	dev = pmem_test_open(path, 0);
	check_contents(dev, fd, expect);
	pmem_close(dev);
	check_readonly(path, expect);
	CHECK(close(fd) == 0);
	free(expect);
	return 0;
}
