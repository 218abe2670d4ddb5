// SPDX-License-Identifier: GPL-2.0-only
/*
 * file_map.c - the "file" backend's map of the page cache.
 *
 * A target that only needs a read's bytes (verity hashes them as it copies
 * them into the request) takes them from a mapping of the store where
 * they are in the page cache, and saves the read's copy out of it
 * (docs/PERFORMANCE.md, "Hashing while copying").  Where they are not, a
 * load from the map would wait for the disk on the queue's thread: that
 * range is read with a bio, as before.
 *
 * Which pages are in the page cache is what mincore(2) says, but a
 * syscall per request costs as much as the copy it saves (on this
 * project's virtualised test host, 1.9 us against 4 KiB reads of 2 us in
 * all).  So mincore looks at a whole chunk of FILE_MAP_CHUNK_PAGES pages
 * at once, at most once per FILE_MAP_LOOK_MS per chunk, into a bit per
 * page, and a read of ours that went through the page cache sets the bits
 * of its pages.  A page the kernel evicted since then is read in by the
 * load's fault, on the queue's thread: a wait, rare (it was just looked
 * at, or read), never wrong bytes; and one gone from the file (truncated)
 * faults with SIGBUS, which the caller's guard turns into -EIO
 * (vublk_backend_read_mapped()).  Pages a process has mapped in are not
 * dropped by fadvise(POSIX_FADV_DONTNEED) or drop_caches while it runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "file_map.h"
#include "log.h"

/* 2 MiB of 4 KiB pages: one mincore call per chunk, its answer on the
 * stack. */
#define FILE_MAP_CHUNK_PAGES 512
/* How long mincore's answer for a chunk stands. */
#define FILE_MAP_LOOK_MS 1000

/* CAP_FOWNER in this process's effective set (capget(2): glibc has no
 * wrapper). */
static bool file_map_cap_fowner(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];

	return syscall(SYS_capget, &hdr, data) == 0 &&
	       (data[0].effective >> CAP_FOWNER & 1);
}

/*
 * mincore tells a process about the page cache of a file only if it owns
 * the file, may write it, or has CAP_FOWNER; to any other it says that
 * every page is resident (mm/mincore.c: can_do_mincore(), do_mincore()),
 * and reading in place would wait for the disk on the queue's thread.
 */
static bool file_map_mincore_tells(int fd, const char *path)
{
	struct stat st;

	if (fstat(fd, &st) == 0 && st.st_uid == geteuid())
		return true;
	return faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0 ||
	       file_map_cap_fowner();
}

void file_map_open(struct file_map *m, int fd, const char *path,
		   uint64_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t pages, chunks;
	void *addr;

	*m = (struct file_map){ 0 };
	if (page <= 0 || !len || !file_map_mincore_tells(fd, path))
		return;
	pages = (len + (uint64_t)page - 1) / (uint64_t)page;
	chunks = (pages + FILE_MAP_CHUNK_PAGES - 1) / FILE_MAP_CHUNK_PAGES;
	m->resident = calloc((pages + 63) / 64, sizeof(*m->resident));
	m->looked = calloc(chunks, sizeof(*m->looked));
	addr = m->resident && m->looked ?
	       mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
	if (addr == MAP_FAILED) {
		file_map_close(m);
		return;
	}
	m->addr = addr;
	m->len = len;
	m->page_size = (size_t)page;
}

void file_map_close(struct file_map *m)
{
	if (m->addr && munmap((void *)m->addr, m->len))
		vublk_error("cannot unmap the page cache's map: %s",
			    strerror(errno));
	free(m->resident);
	free(m->looked);
	*m = (struct file_map){ 0 };
}

/* Milliseconds, never 0 (looked's "never"); wraps after 49 days, which
 * only makes one chunk looked at again early.  0 when the clock fails:
 * every chunk is then looked at again. */
static uint32_t file_map_now(void)
{
	struct timespec ts;
	uint32_t ms;

	/* The coarse clock is read without a syscall (vDSO). */
	if (clock_gettime(CLOCK_MONOTONIC_COARSE, &ts))
		return 0;
	ms = (uint32_t)((uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
	return ms ? ms : 1;
}

/* Set (in) or clear the bits of mask in word w of the page bits. */
static void file_map_mark(struct file_map *m, uint64_t w, uint64_t mask,
			  bool in)
{
	if (in)
		atomic_fetch_or_explicit(&m->resident[w], mask,
					 memory_order_relaxed);
	else
		atomic_fetch_and_explicit(&m->resident[w], ~mask,
					  memory_order_relaxed);
}

static bool file_map_resident(const struct file_map *m, uint64_t page)
{
	return atomic_load_explicit(&m->resident[page / 64],
				    memory_order_relaxed) >> (page % 64) & 1;
}

/* mincore's answer for chunk c, unless it is fresh.  Threads that look at
 * once each ask: the answers agree. */
static void file_map_look(struct file_map *m, uint64_t c, uint32_t now)
{
	unsigned char vec[FILE_MAP_CHUNK_PAGES];
	uint64_t first = c * FILE_MAP_CHUNK_PAGES;
	uint64_t end = (m->len + m->page_size - 1) / m->page_size;
	uint32_t then = atomic_load_explicit(&m->looked[c],
					     memory_order_relaxed);

	if (now && then && now - then < FILE_MAP_LOOK_MS)
		return;
	if (end > first + FILE_MAP_CHUNK_PAGES)
		end = first + FILE_MAP_CHUNK_PAGES;
	if (mincore((void *)(m->addr + first * m->page_size),
		    (end - first) * m->page_size, vec))
		return;		/* nothing known: bits stay, look next time */
	for (uint64_t p = first; p < end; p++)
		file_map_mark(m, p / 64, 1ULL << (p % 64), vec[p - first] & 1);
	atomic_store_explicit(&m->looked[c], now, memory_order_relaxed);
}

/* The pages [*first, *end) that hold [pos, pos + len); false when the
 * range is empty or not all inside the map (or nothing is mapped). */
static bool file_map_pages(const struct file_map *m, uint64_t pos,
			   uint32_t len, uint64_t *first, uint64_t *end)
{
	if (!m->addr || !len || pos > m->len || len > m->len - pos)
		return false;
	*first = pos / m->page_size;
	*end = (pos + len + m->page_size - 1) / m->page_size;
	return true;
}

const uint8_t *file_map_at(struct file_map *m, uint64_t pos, uint32_t len)
{
	uint64_t first, end;
	uint32_t now;

	if (!file_map_pages(m, pos, len, &first, &end))
		return NULL;
	now = file_map_now();
	for (uint64_t c = first / FILE_MAP_CHUNK_PAGES;
	     c <= (end - 1) / FILE_MAP_CHUNK_PAGES; c++)
		file_map_look(m, c, now);
	for (uint64_t p = first; p < end; p++)
		if (!file_map_resident(m, p))
			return NULL;
	return m->addr + pos;
}

/* A word of page bits at a time. */
void file_map_read_in(struct file_map *m, uint64_t pos, uint32_t len)
{
	uint64_t first, end;

	if (!file_map_pages(m, pos, len, &first, &end))
		return;
	while (first < end) {
		uint64_t w = first / 64, stop = (w + 1) * 64;
		uint64_t n = (end < stop ? end : stop) - first;
		uint64_t mask = (n == 64 ? ~0ULL : (1ULL << n) - 1) <<
				(first % 64);

		file_map_mark(m, w, mask, true);
		first += n;
	}
}
