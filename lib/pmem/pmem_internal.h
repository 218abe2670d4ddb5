/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pmem_internal.h - what the files of lib/pmem share.  Not for other code:
 * use pmem.h.  (tests/pmem/test_badblocks.c uses the bad-block list below
 * directly, since no host has real bad blocks to test with.)
 */
#ifndef VUBLK_PMEM_INTERNAL_H
#define VUBLK_PMEM_INTERNAL_H

#include <libpmem2.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <ucontext.h>

#include "guard.h"
#include "pmem.h"

/* A known bad range, in bytes from the start of the device. */
struct pmem_bad_range {
	uint64_t off;
	uint64_t len;
};

/* Sorted by offset, no two ranges overlapping or touching. */
struct pmem_badblocks {
	struct pmem_bad_range *ranges;
	size_t count;
};

/*
 * Chunks written since the last flush (PAGE granularity only).  Bit c of
 * chunk_words is chunk c; bit w of summary_words says that chunk_words[w]
 * may be non-zero, so that a flush on a large, mostly clean device scans
 * 1/4096 of the chunk bitmap.
 */
struct pmem_dirty_map {
	_Atomic uint64_t *chunk_words;
	_Atomic uint64_t *summary_words;
	size_t nr_summary_words;
	/* Serialises flushes: a flush must not return while an earlier one
	 * still holds, unpersisted, chunks it took out of the bitmap. */
	pthread_mutex_t flush_lock;
	struct pmem_flush_stats stats;	/* under flush_lock */
	bool writeback_failed;		/* under flush_lock; see pmem_flush */
};

struct pmem_dev {
	char *addr;
	uint64_t size;
	struct pmem2_map *map;
	pmem2_memcpy_fn memcpy_fn;
	pmem2_memset_fn memset_fn;
	unsigned int store_flags;	/* PMEM2_F_MEM_* for writes */
	enum pmem_granularity granularity;
	bool readonly;
	struct pmem_dirty_map *dirty;	/* NULL unless PAGE granularity */
	struct pmem_badblocks badblocks;
};

/* badblocks.c */
int pmem_badblocks_load(struct pmem_badblocks *bb, struct pmem2_source *src,
			const char *path, char *errbuf);
void pmem_badblocks_normalize(struct pmem_badblocks *bb);
bool pmem_badblocks_overlap(const struct pmem_badblocks *bb, uint64_t off,
			    uint64_t len);
void pmem_badblocks_free(struct pmem_badblocks *bb);

/* dirty.c */
int pmem_dirty_init(struct pmem_dev *dev);
void pmem_dirty_free(struct pmem_dev *dev);
void pmem_dirty_mark(struct pmem_dirty_map *dirty, uint64_t off,
		     uint64_t len);

/* poison.c: recovery from SIGBUS inside a copy (see guard.h). */
int pmem_poison_handler_install(void);
/* The handler's two recoveries: true if the fault was ours, and then @uc
 * is set to resume at the fixup.  Exposed for tests/pmem/test_guard.c,
 * which feeds them the memory-error faults no host test can raise. */
bool pmem_copy_mc_recover(const siginfo_t *info, ucontext_t *uc);
bool pmem_guard_recover(const siginfo_t *info, ucontext_t *uc);

/* open.c: one error line into the caller's buffer. */
void pmem_set_error(char *errbuf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
const char *pmem_libpmem2_reason(int rc);

#endif /* VUBLK_PMEM_INTERNAL_H */
