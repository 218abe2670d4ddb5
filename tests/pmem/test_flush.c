// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_flush.c - the flush bookkeeping: pmem_flush() persists exactly the
 * chunks written since the last flush, in as few msync() calls as the runs
 * of adjacent chunks allow, and nothing when nothing was written; with
 * several threads writing and flushing at once, every chunk written is
 * persisted exactly once.  On CACHE_LINE/BYTE granularity (set
 * PMEM2_FORCE_GRANULARITY and VUBLK_EXPECT_GRANULARITY) writes are
 * persistent on completion and pmem_flush() persists nothing.  Every
 * msync() of the process is counted: writes must make none, a flush one
 * per range it reports.  A failed msync() (injected) makes that flush and
 * every later one fail.
 *
 * usage: test_flush DIR
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pmem_test.h"

#define CHUNK PMEM_DIRTY_CHUNK_SIZE
#define NR_CHUNKS 256
/* The last chunk is partial. */
#define DEV_SIZE (NR_CHUNKS * CHUNK - 8192)

/*
 * This definition takes the place of libc's msync() for the whole process,
 * libpmem2 included (it calls msync() itself on PAGE granularity unless
 * told PMEM2_F_MEM_NOFLUSH), so every call is counted and the latest ones
 * recorded.
 */
#define MAX_RECORDED 64
static struct {
	uintptr_t addr;
	size_t len;
} recorded[MAX_RECORDED];
static atomic_ulong msync_calls;
static unsigned long msync_calls_seen;	/* as of the last flush_expect() */
static atomic_bool msync_fail_next;	/* inject one write-back error */

int msync(void *addr, size_t len, int flags)
{
	unsigned long call = atomic_fetch_add(&msync_calls, 1);

	recorded[call % MAX_RECORDED].addr = (uintptr_t)addr;
	recorded[call % MAX_RECORDED].len = len;
	if (atomic_exchange(&msync_fail_next, false)) {
		errno = EIO;
		return -1;
	}
	return (int)syscall(SYS_msync, addr, len, flags);
}

static uintptr_t mapping_base;	/* of the device under test */

/* A run of chunks that one msync() should cover. */
struct run {
	uint64_t first;
	uint64_t count;
};

/*
 * Flush, and check that the flush made exactly one msync() per expected
 * run, over exactly that run (clipped to the device's end), in order; that
 * the writes since the last check made none; and that the statistics
 * agree.
 */
static void flush_expect_runs(struct pmem_dev *dev, const struct run *runs,
			      size_t nr_runs)
{
	struct pmem_flush_stats before, after;
	uint64_t bytes = 0;

	CHECK(nr_runs <= MAX_RECORDED);
	CHECK(atomic_load(&msync_calls) == msync_calls_seen);
	CHECK_OK(pmem_get_flush_stats(dev, &before));
	CHECK_OK(pmem_flush(dev));
	CHECK_OK(pmem_get_flush_stats(dev, &after));
	CHECK(atomic_load(&msync_calls) - msync_calls_seen == nr_runs);
	for (size_t i = 0; i < nr_runs; i++) {
		uint64_t off = runs[i].first * CHUNK;
		uint64_t len = runs[i].count * CHUNK;

		if (len > DEV_SIZE - off)
			len = DEV_SIZE - off;
		CHECK(recorded[(msync_calls_seen + i) % MAX_RECORDED].addr ==
		      mapping_base + off);
		CHECK(recorded[(msync_calls_seen + i) % MAX_RECORDED].len ==
		      len);
		bytes += len;
	}
	msync_calls_seen = atomic_load(&msync_calls);
	/* Without bookkeeping (CACHE_LINE, BYTE) the statistics stay 0. */
	CHECK(after.flushes - before.flushes ==
	      (pmem_granularity(dev) == PMEM_GRANULARITY_PAGE));
	CHECK(after.persisted_ranges - before.persisted_ranges == nr_runs);
	CHECK(after.persisted_bytes - before.persisted_bytes == bytes);
}

#define flush_expect(dev, ...)						\
	do {								\
		static const struct run runs_[] = { __VA_ARGS__ };	\
		flush_expect_runs(dev, runs_,				\
				  sizeof(runs_) / sizeof(runs_[0]));	\
	} while (0)

static void flush_expect_nothing(struct pmem_dev *dev)
{
	flush_expect_runs(dev, NULL, 0);
}

static void write_at(struct pmem_dev *dev, uint64_t off, size_t len)
{
	static unsigned char buf[3 * CHUNK];

	CHECK(len <= sizeof(buf));
	pmem_test_fill(buf, len, off);
	CHECK_OK(pmem_write(dev, off, buf, len));
}

static void check_page_bookkeeping(struct pmem_dev *dev)
{
	flush_expect_nothing(dev);		/* nothing written yet */

	/* Separate chunks A, B and C, and only them. */
	write_at(dev, 2 * CHUNK + 100, 4096);
	write_at(dev, 20 * CHUNK - 4096, 4096);	/* ends at a chunk's end */
	write_at(dev, 40 * CHUNK, 512);
	write_at(dev, 40 * CHUNK + 4096, 512);	/* same chunk as C */
	flush_expect(dev, { 2, 1 }, { 19, 1 }, { 40, 1 });
	flush_expect_nothing(dev);		/* nothing since */

	/* Adjacent chunks across a bitmap word (63 | 64): one msync. */
	write_at(dev, 63 * CHUNK + CHUNK - 10, 20);
	flush_expect(dev, { 63, 2 });

	/* A zero over chunks 5..7, and a write spanning 100..102. */
	CHECK_OK(pmem_zero(dev, 5 * CHUNK + 1, 2 * CHUNK));
	write_at(dev, 100 * CHUNK + 5, 2 * CHUNK);
	flush_expect(dev, { 5, 3 }, { 100, 3 });

	/* A zero over whole bitmap words and parts of two more: chunks
	 * 60..200 are words 0 (part), 1 and 2 (whole) and 3 (part). */
	CHECK_OK(pmem_zero(dev, 60 * CHUNK + 7, 140 * CHUNK));
	flush_expect(dev, { 60, 141 });

	/* The partial last chunk is persisted up to the device's end only. */
	write_at(dev, DEV_SIZE - 1, 1);
	flush_expect(dev, { NR_CHUNKS - 1, 1 });
	flush_expect_nothing(dev);
}

/*
 * Threads write disjoint chunks and each flushes after each write.  Every
 * chunk's bit is set once, so the flushes together must persist each
 * chunk exactly once: a lost bit or a chunk taken twice changes the total.
 */
#define NR_THREADS 4
#define WRITES_PER_THREAD 48

struct writer {
	pthread_t thread;
	struct pmem_dev *dev;
	unsigned int index;
};

static void *writer_run(void *arg)
{
	struct writer *w = arg;
	unsigned char buf[4096];

	for (unsigned int i = 0; i < WRITES_PER_THREAD; i++) {
		uint64_t chunk = (uint64_t)i * NR_THREADS + w->index;

		pmem_test_fill(buf, sizeof(buf), chunk);
		CHECK_OK(pmem_write(w->dev, chunk * CHUNK + 1024, buf,
				    sizeof(buf)));
		CHECK_OK(pmem_flush(w->dev));
	}
	return NULL;
}

static void check_concurrent_flushes(struct pmem_dev *dev)
{
	struct writer writers[NR_THREADS];
	struct pmem_flush_stats before, after;

	CHECK_OK(pmem_get_flush_stats(dev, &before));
	for (unsigned int i = 0; i < NR_THREADS; i++) {
		writers[i].dev = dev;
		writers[i].index = i;
		CHECK(pthread_create(&writers[i].thread, NULL, writer_run,
				     &writers[i]) == 0);
	}
	for (unsigned int i = 0; i < NR_THREADS; i++)
		CHECK(pthread_join(writers[i].thread, NULL) == 0);
	CHECK_OK(pmem_get_flush_stats(dev, &after));
	CHECK(after.flushes - before.flushes == NR_THREADS * WRITES_PER_THREAD);
	CHECK(after.persisted_bytes - before.persisted_bytes ==
	      (uint64_t)NR_THREADS * WRITES_PER_THREAD * CHUNK);
	CHECK(atomic_load(&msync_calls) - msync_calls_seen ==
	      after.persisted_ranges - before.persisted_ranges);
	msync_calls_seen = atomic_load(&msync_calls);
	flush_expect_nothing(dev);
}

/* Last: the device stays failed. */
static void check_writeback_error_is_sticky(struct pmem_dev *dev)
{
	write_at(dev, 9 * CHUNK, 4096);
	atomic_store(&msync_fail_next, true);
	CHECK(pmem_flush(dev) == -EIO);
	CHECK(pmem_flush(dev) == -EIO);	/* nothing new, still failed */
	write_at(dev, 9 * CHUNK, 4096);
	CHECK(pmem_flush(dev) == -EIO);	/* even though msync works again */
}

/* Writes are persistent on completion: nothing is left for a flush. */
static void check_no_bookkeeping(struct pmem_dev *dev)
{
	write_at(dev, 2 * CHUNK + 100, 4096);
	CHECK_OK(pmem_zero(dev, 7 * CHUNK, CHUNK));
	flush_expect_nothing(dev);
}

int main(int argc, char **argv)
{
	char path[4096];
	struct pmem_dev *dev;
	int fd;

	CHECK(argc == 2);
	fd = pmem_test_create_file(argv[1], DEV_SIZE, path, sizeof(path));
	dev = pmem_test_open(path, 0);
	mapping_base = pmem_test_mapping_base(path);
	printf("%s: granularity %s\n", path,
	       pmem_granularity_name(pmem_granularity(dev)));
	CHECK(pmem_granularity(dev) == pmem_test_expected_granularity());
	if (pmem_granularity(dev) == PMEM_GRANULARITY_PAGE) {
		check_page_bookkeeping(dev);
		check_concurrent_flushes(dev);
		check_writeback_error_is_sticky(dev);
	} else {
		check_no_bookkeeping(dev);
	}
	pmem_close(dev);
	CHECK(close(fd) == 0);
	return 0;
}
