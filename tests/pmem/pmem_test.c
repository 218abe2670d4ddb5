// SPDX-License-Identifier: GPL-2.0-only
/*
 * pmem_test.c - helpers shared by the lib/pmem tests (see pmem_test.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "pmem_test.h"

static char pmem_test_path[4096];

void pmem_test_remove_file(void)
{
	if (pmem_test_path[0] && unlink(pmem_test_path) != 0)
		fprintf(stderr, "cannot remove the test file %s: %s\n",
			pmem_test_path, strerror(errno));
	pmem_test_path[0] = '\0';
}

int pmem_test_create_file(const char *dir, uint64_t size, char *path,
			  size_t path_size)
{
	int fd;

	CHECK(pmem_test_path[0] == '\0');	/* one file per test */
	CHECK((size_t)snprintf(path, path_size, "%s/vublk-pmem-test.XXXXXX",
			       dir) < path_size);
	fd = mkstemp(path);
	if (fd < 0) {
		fprintf(stderr, "cannot create a test file in %s: %s\n", dir,
			strerror(errno));
		exit(1);
	}
	snprintf(pmem_test_path, sizeof(pmem_test_path), "%s", path);
	CHECK(atexit(pmem_test_remove_file) == 0);
	CHECK(ftruncate(fd, (off_t)size) == 0);
	return fd;
}

struct pmem_dev *pmem_test_open(const char *path, unsigned int flags)
{
	char errbuf[PMEM_ERRBUF_SIZE];
	struct pmem_dev *dev;
	int rc = pmem_open(path, flags, &dev, errbuf);

	if (rc) {
		fprintf(stderr, "pmem_open(%s) = %d: %s\n", path, rc, errbuf);
		exit(1);
	}
	return dev;
}

void pmem_test_fill(void *buf, size_t len, uint64_t seed)
{
	unsigned char *p = buf;
	uint64_t x = seed * 0x9e3779b97f4a7c15u + 1;

	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (unsigned char)x;
	}
}

void pmem_test_pread(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n = pread(fd, buf, len, (off_t)off);

	CHECK(n >= 0 && (size_t)n == len);
}

uintptr_t pmem_test_mapping_base(const char *path)
{
	FILE *maps = fopen("/proc/self/maps", "r");
	uintptr_t base = 0;
	char line[4096 + 256];

	CHECK(maps);
	while (fgets(line, sizeof(line), maps)) {
		unsigned long start, offset;
		int name_at = 0;

		if (sscanf(line, "%lx-%*x %*s %lx %*s %*s %n", &start, &offset,
			   &name_at) != 2 || name_at == 0)
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (offset == 0 && strcmp(line + name_at, path) == 0) {
			base = start;
			break;
		}
	}
	CHECK(fclose(maps) == 0);
	CHECK(base != 0);
	return base;
}

enum pmem_granularity pmem_test_expected_granularity(void)
{
	const char *want = getenv("VUBLK_EXPECT_GRANULARITY");

	if (!want || strcmp(want, "PAGE") == 0)
		return PMEM_GRANULARITY_PAGE;
	if (strcmp(want, "CACHE_LINE") == 0)
		return PMEM_GRANULARITY_CACHE_LINE;
	CHECK(strcmp(want, "BYTE") == 0);
	return PMEM_GRANULARITY_BYTE;
}
