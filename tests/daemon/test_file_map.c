// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_file_map.c - the file backend's map of the page cache
 * (daemon/backends/file_map.c) at its edges: which ranges it hands out,
 * what mincore's answer and our own reads make of the page bits.
 *
 * The file is ours, so mincore tells the truth about it; its pages are
 * never loaded through the map here (pages mapped in would stay in the
 * page cache: POSIX_FADV_DONTNEED does not drop them).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "file_map.h"

static int failures;

static void check(bool ok, const char *what)
{
	if (!ok) {
		printf("FAIL %s\n", what);
		failures++;
	}
}

/* Pages past the first word of page bits, and a partial last page. */
#define PAGES 130
#define TAIL 100

static void fill_and_cache(int fd, size_t len)
{
	char *buf = malloc(len);

	if (!buf) {
		perror("malloc");
		exit(1);
	}
	for (size_t i = 0; i < len; i++)
		buf[i] = (char)(i * 7);
	if (pwrite(fd, buf, len, 0) != (ssize_t)len || fsync(fd) ||
	    pread(fd, buf, len, 0) != (ssize_t)len) {
		perror("test file");
		exit(1);
	}
	free(buf);
}

/* Drop the file's pages and outwait the map's last look (file_map.c:
 * FILE_MAP_LOOK_MS), so that its next answer is mincore's.  False where
 * the file system keeps them (tmpfs): nothing to test there. */
static bool evict_and_wait(const struct file_map *m, int fd)
{
	const struct timespec wait = { .tv_sec = 1, .tv_nsec = 100000000 };
	int err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	unsigned char first_page;

	if (err) {
		fprintf(stderr, "posix_fadvise: %s\n", strerror(err));
		exit(1);
	}
	if (nanosleep(&wait, NULL) ||
	    mincore((void *)m->addr, 1, &first_page)) {
		perror("evict");
		exit(1);
	}
	if (first_page & 1)
		printf("SKIP eviction checks: the file system keeps the pages\n");
	return !(first_page & 1);
}

static void test_ranges(struct file_map *m, size_t page, uint64_t len)
{
	check(file_map_at(m, 0, (uint32_t)page) == m->addr,
	      "first page: at the map's start");
	check(file_map_at(m, page + 5, 10) == m->addr + page + 5,
	      "bytes inside a page: at their address");
	check(file_map_at(m, len - TAIL, TAIL) == m->addr + len - TAIL,
	      "the partial last page, to the file's end");
	check(file_map_at(m, 0, (uint32_t)len) == m->addr,
	      "the whole file");
	check(!file_map_at(m, len - TAIL, TAIL + 1),
	      "one byte past the end: refused");
	check(!file_map_at(m, len, 1), "at the end: refused");
	check(!file_map_at(m, 0, 0), "an empty range: refused");
	check(!file_map_at(m, UINT64_MAX, 2),
	      "pos + len overflowing: refused");
}

/* After an eviction: nothing is resident until read in, and a read marks
 * exactly its pages, across a word of bits. */
static void test_read_in(struct file_map *m, int fd, size_t page)
{
	if (!evict_and_wait(m, fd))
		return;
	check(!file_map_at(m, 0, 1), "evicted page 0: not handed out");
	check(!file_map_at(m, 64 * page, 1), "evicted page 64: not handed out");

	file_map_read_in(m, 63 * page + 1, (uint32_t)(2 * page));
	check(!file_map_at(m, 62 * page, (uint32_t)page),
	      "page before a read: still out");
	check(file_map_at(m, 63 * page, (uint32_t)(3 * page)) != NULL,
	      "pages 63-65 read in, across two words of bits");
	check(!file_map_at(m, 66 * page, 1), "page after a read: still out");

	file_map_read_in(m, 0, (uint32_t)(64 * page));
	check(file_map_at(m, 0, (uint32_t)(66 * page)) != NULL,
	      "a whole word of bits read in");
	check(!file_map_at(m, 0, (uint32_t)(67 * page)),
	      "the whole word and one page not read: out");
	file_map_read_in(m, UINT64_MAX, 2);	/* refused, no write */
}

/* mincore looks again once its answer is old: what was read (pread) is
 * back, what was not stays out. */
static void test_look_again(struct file_map *m, int fd, size_t page)
{
	char b;

	if (!evict_and_wait(m, fd))
		return;
	if (pread(fd, &b, 1, 100 * (off_t)page) != 1) {
		perror("pread");
		exit(1);
	}
	check(file_map_at(m, 100 * page, 1) != NULL,
	      "a page read by another path: in, by mincore");
	check(!file_map_at(m, 0, 1), "a page not read: out, by mincore");
}

int main(void)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/var/tmp";
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint64_t len = PAGES * page + TAIL;
	struct file_map m;
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/vublk-file-map-XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	unlink(path);
	fill_and_cache(fd, len);
	/* Owned by us: mincore tells, so the map is made. */
	file_map_open(&m, fd, path, len);
	check(m.addr != NULL, "a file of ours: mapped");
	if (m.addr) {
		test_ranges(&m, page, len);
		test_read_in(&m, fd, page);
		test_look_again(&m, fd, page);
	}
	file_map_close(&m);
	check(!m.addr && !file_map_at(&m, 0, 1), "closed: nothing handed out");
	close(fd);
	if (failures)
		printf("%d failure(s)\n", failures);
	else
		printf("file map: all checks passed\n");
	return failures ? 1 : 0;
}
