// SPDX-License-Identifier: GPL-2.0-only
/*
 * dirty.c - on PAGE granularity, which chunks were written since the last
 * flush (pmem_dirty_mark), and persisting exactly those (pmem_flush).
 *
 * The kernel's pmem driver completes a write without flushing and makes
 * it durable on REQ_PREFLUSH / REQ_FUA (drivers/nvdimm/pmem.c:
 * pmem_submit_bio() -> nvdimm_flush()).  On a page-cache mapping the
 * durable step is msync(), which is far too slow per 4 KiB write; and
 * msync() of the whole device per FLUSH walks every page of it.  So writes
 * set bits, lock-free, in a bitmap of 64 KiB chunks, and a flush msyncs the
 * runs of set bits.
 *
 * Ordering: a writer copies, then sets its bits with a release RMW; the
 * flusher takes bits with an acquire exchange, then msyncs.  So a flush
 * that finds a bit also sees the data, and a write that completed before
 * the flush started has set its bit by then.  Flushes are serialised:
 * otherwise a second flush could find the bitmap empty and return while
 * the first still had the chunks in hand, not yet persisted.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "pmem_internal.h"

#define BITS_PER_WORD 64

static size_t pmem_div_round_up(uint64_t n, uint64_t d)
{
	return (size_t)((n + d - 1) / d);
}

int pmem_dirty_init(struct pmem_dev *dev)
{
	size_t nr_chunks = pmem_div_round_up(dev->size, PMEM_DIRTY_CHUNK_SIZE);
	size_t nr_words = pmem_div_round_up(nr_chunks, BITS_PER_WORD);
	struct pmem_dirty_map *dirty = calloc(1, sizeof(*dirty));
	int rc;

	if (!dirty)
		return -ENOMEM;
	dirty->nr_summary_words = pmem_div_round_up(nr_words, BITS_PER_WORD);
	dirty->chunk_words = calloc(nr_words, sizeof(*dirty->chunk_words));
	dirty->summary_words = calloc(dirty->nr_summary_words,
				      sizeof(*dirty->summary_words));
	rc = pthread_mutex_init(&dirty->flush_lock, NULL);
	if (rc || !dirty->chunk_words || !dirty->summary_words) {
		free(dirty->chunk_words);
		free(dirty->summary_words);
		if (rc == 0)
			pthread_mutex_destroy(&dirty->flush_lock);
		free(dirty);
		return rc ? -rc : -ENOMEM;
	}
	dev->dirty = dirty;
	return 0;
}

void pmem_dirty_free(struct pmem_dev *dev)
{
	struct pmem_dirty_map *dirty = dev->dirty;

	if (!dirty)
		return;
	pthread_mutex_destroy(&dirty->flush_lock);
	free(dirty->chunk_words);
	free(dirty->summary_words);
	free(dirty);
	dev->dirty = NULL;
}

/* Bits [from, to] of one word, 0 <= from <= to < 64. */
static uint64_t pmem_bit_span(unsigned int from, unsigned int to)
{
	return (~UINT64_C(0) >> (BITS_PER_WORD - 1 - to)) &
		(~UINT64_C(0) << from);
}

/* Set @bits in chunk word @w, then its summary bit (see the ordering
 * above: release, after the copy). */
static void pmem_dirty_mark_word(struct pmem_dirty_map *dirty, uint64_t w,
				 uint64_t bits)
{
	atomic_fetch_or_explicit(&dirty->chunk_words[w], bits,
				 memory_order_release);
	atomic_fetch_or_explicit(&dirty->summary_words[w / BITS_PER_WORD],
				 UINT64_C(1) << (w % BITS_PER_WORD),
				 memory_order_release);
}

/*
 * A request of up to a few MiB lies within one chunk word (64 chunks,
 * 4 MiB), so the common case is one pair of bit-sets, without the loop.
 * Every request still takes both atomics, even when its chunk is already
 * dirty: skipping them after a plain load would let a concurrent flush
 * take the bit before this write's stores were visible to it (the
 * store-buffering pattern; the kernel's mark_buffer_dirty() needs an
 * smp_mb() before its own "already dirty?" test for the same reason), and
 * a full fence costs what the atomic costs.  See docs/PERFORMANCE.md.
 */
void pmem_dirty_mark(struct pmem_dirty_map *dirty, uint64_t off,
		     uint64_t len)
{
	uint64_t first, last, first_word, last_word;

	if (len == 0)
		return;
	first = off >> PMEM_DIRTY_CHUNK_SHIFT;
	last = (off + len - 1) >> PMEM_DIRTY_CHUNK_SHIFT;
	first_word = first / BITS_PER_WORD;
	last_word = last / BITS_PER_WORD;
	if (first_word == last_word) {
		pmem_dirty_mark_word(dirty, first_word,
				     pmem_bit_span(first % BITS_PER_WORD,
						   last % BITS_PER_WORD));
		return;
	}
	pmem_dirty_mark_word(dirty, first_word,
			     pmem_bit_span(first % BITS_PER_WORD,
					   BITS_PER_WORD - 1));
	for (uint64_t w = first_word + 1; w < last_word; w++)
		pmem_dirty_mark_word(dirty, w, ~UINT64_C(0));
	pmem_dirty_mark_word(dirty, last_word,
			     pmem_bit_span(0, last % BITS_PER_WORD));
}

/* A run of dirty chunks being gathered into one msync() call. */
struct pmem_flush_run {
	uint64_t first;		/* chunk index */
	uint64_t count;		/* 0: no run open */
};

/*
 * msync() rather than libpmem2's persist function: on PAGE granularity the
 * latter (pmem2_persist_pages) abort()s the process on a write-back error,
 * where we must fail the FLUSH with -EIO and go on serving.
 */
static void pmem_flush_run_persist(struct pmem_dev *dev,
				   struct pmem_flush_run *run)
{
	struct pmem_dirty_map *dirty = dev->dirty;
	uint64_t off = run->first << PMEM_DIRTY_CHUNK_SHIFT;
	uint64_t len = run->count << PMEM_DIRTY_CHUNK_SHIFT;

	if (run->count == 0)
		return;
	run->count = 0;
	if (len > dev->size - off)	/* the last chunk may be partial */
		len = dev->size - off;
	if (msync(dev->addr + off, len, MS_SYNC)) {
		dirty->writeback_failed = true;
		return;
	}
	dirty->stats.persisted_ranges++;
	dirty->stats.persisted_bytes += len;
}

static void pmem_flush_run_add(struct pmem_dev *dev,
			       struct pmem_flush_run *run, uint64_t chunk)
{
	if (run->count && run->first + run->count == chunk) {
		run->count++;
		return;
	}
	pmem_flush_run_persist(dev, run);
	run->first = chunk;
	run->count = 1;
}

static void pmem_flush_word(struct pmem_dev *dev, struct pmem_flush_run *run,
			    size_t w)
{
	uint64_t bits = atomic_exchange_explicit(&dev->dirty->chunk_words[w], 0,
						 memory_order_acquire);

	while (bits) {
		unsigned int b = (unsigned int)__builtin_ctzll(bits);

		bits &= bits - 1;
		pmem_flush_run_add(dev, run, (uint64_t)w * BITS_PER_WORD + b);
	}
}

/*
 * A write-back error is sticky.  After msync() fails, the kernel may have
 * marked the pages clean with their data lost (mm/filemap.c:
 * mapping_set_error(); the "fsyncgate" lesson), so a later msync() that
 * succeeds proves nothing: every flush from then on fails with -EIO, and
 * nothing is reported persistent that may not be.
 */
int pmem_flush(struct pmem_dev *dev)
{
	struct pmem_dirty_map *dirty = dev->dirty;
	struct pmem_flush_run run = { 0 };
	int rc;

	/* BYTE / CACHE_LINE: every write was flushed before it completed. */
	if (!dirty)
		return 0;
	rc = pthread_mutex_lock(&dirty->flush_lock);
	if (rc)
		return -rc;
	dirty->stats.flushes++;
	for (size_t s = 0; s < dirty->nr_summary_words; s++) {
		uint64_t words = atomic_exchange_explicit(
			&dirty->summary_words[s], 0, memory_order_acquire);

		while (words) {
			unsigned int b = (unsigned int)__builtin_ctzll(words);

			words &= words - 1;
			pmem_flush_word(dev, &run, s * BITS_PER_WORD + b);
		}
	}
	pmem_flush_run_persist(dev, &run);
	rc = dirty->writeback_failed ? -EIO : 0;
	pthread_mutex_unlock(&dirty->flush_lock);
	return rc;
}

int pmem_get_flush_stats(struct pmem_dev *dev, struct pmem_flush_stats *stats)
{
	struct pmem_dirty_map *dirty = dev->dirty;
	int rc;

	*stats = (struct pmem_flush_stats){ 0 };
	if (!dirty)
		return 0;
	rc = pthread_mutex_lock(&dirty->flush_lock);
	if (rc)
		return -rc;
	*stats = dirty->stats;
	pthread_mutex_unlock(&dirty->flush_lock);
	return 0;
}
