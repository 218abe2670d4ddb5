/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verity_private.h - internals of the verity target, shared by its files:
 *   tgt_verity.c     options, init/deinit (image, digest, shape), counters
 *   verity_read.c    the read path (queue_io / io_done)
 *   verity_report.c  rate-limited corruption reports, --on-corruption
 * Not a public header: the core sees only vublk_tgt_verity (ublk.h).
 *
 * The read path mirrors fs/verity/verify.c: fsverity_verify_bio(): the
 * data is read first (here: asynchronously, IORING_OP_READ into the
 * request buffer), then every block is checked against the Merkle tree
 * before the request completes; one bad block fails the whole request.
 */
#ifndef VUBLK_VERITY_PRIVATE_H
#define VUBLK_VERITY_PRIVATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "f2fslayout.h"
#include "merkle.h"
#include "target.h"

/*
 * --readahead: how hash blocks are fetched (docs/DAEMON.md).  The default
 * is 0 because the core hands us zeroed private data before parse_opt.
 */
enum verity_readahead {
	VERITY_RA_SUBMISSION,	/* plan every level at submission (default) */
	VERITY_RA_COMPLETION,	/* the 2020 seed: level-0 readahead on miss */
	VERITY_RA_OFF,		/* one hash block per miss */
	VERITY_RA_NR,
};

/* --on-corruption, after dm-verity's error modes. */
enum verity_on_corruption {
	VERITY_CORRUPT_EIO,	/* fail the request (dm-verity's default) */
	VERITY_CORRUPT_STOP,	/* ... then stop the device (restart mode) */
	VERITY_CORRUPT_NR,
};

/* Every counter is monotonic and updated with relaxed atomics. */
struct verity_counters {
	atomic_uint_fast64_t requests;		/* READs started */
	atomic_uint_fast64_t readahead_requests; /* of which VUBLK_REQ_READAHEAD */
	atomic_uint_fast64_t blocks_verified;	/* data blocks that passed */
	atomic_uint_fast64_t tree_reads;	/* tree read SQEs (not resubmits) */
	atomic_uint_fast64_t tree_blocks_read;	/* hash blocks they covered */
	atomic_uint_fast64_t blocks_read_ahead;	/* of which not needed yet */
	atomic_uint_fast64_t failures;		/* requests failed: corruption */
	atomic_uint_fast64_t io_errors;		/* requests failed: I/O error */
};

/* At most this many corruption lines per second, like printk_ratelimit. */
#define VERITY_REPORTS_PER_SEC 10

struct verity_ratelimit {
	pthread_mutex_t lock;
	time_t window;		/* the second being counted */
	unsigned printed;	/* lines printed in it */
	uint64_t suppressed;	/* lines dropped since the last summary */
};

struct verity_tgt {
	int fd;				/* the image, read-only */
	bool direct;			/* --direct: O_DIRECT */
	enum verity_readahead readahead;
	enum verity_on_corruption on_corruption;
	uint64_t cache_bytes;		/* --cache-mb; 0 = default */
	uint64_t cache_blocks;		/* --cache-blocks (testing); 0 = unset */
	bool have_digest;		/* --digest given */
	unsigned digest_alg;
	uint8_t digest[MERKLE_MAX_DIGEST_SIZE];

	struct f2fslayout_image img;
	bool img_ready;
	unsigned log_bs;		/* Merkle block size, log2 */
	struct merkle_cache *cache;	/* shared by all queues */
	struct merkle_tree *tree;

	struct verity_counters counters;
	struct verity_ratelimit ratelimit;
	atomic_bool stopping;		/* --on-corruption=stop fired */
};

static inline void verity_count(atomic_uint_fast64_t *c, uint64_t n)
{
	atomic_fetch_add_explicit(c, n, memory_order_relaxed);
}

static inline uint64_t verity_counter(atomic_uint_fast64_t *c)
{
	return atomic_load_explicit(c, memory_order_relaxed);
}

/* verity_read.c: the target's queue ops. */
int verity_queue_init(struct vublk_queue *q);
void verity_queue_deinit(struct vublk_queue *q);
int verity_queue_io(struct vublk_queue *q, unsigned tag,
		    const struct vublk_req *req);
void verity_io_done(struct vublk_queue *q, unsigned tag,
		    const struct io_uring_cqe *cqe);
/* The read_tree callback given to merkle_tree_open() (see verity_read.c). */
int verity_read_tree(void *ctx, void *buf, size_t len, uint64_t off);
/* Hash blocks one request may need at once (cache sizing, buffers). */
unsigned verity_max_tree_blocks(const struct vublk_tgt *t);

/* verity_report.c */
void verity_ratelimit_init(struct verity_ratelimit *rl);
void verity_ratelimit_destroy(struct verity_ratelimit *rl);
/* A data block failed verification in request (offset, len) of queue q:
 * count it, log it (rate-limited) and apply --on-corruption. */
void verity_report_corruption(struct vublk_queue *q, uint64_t data_block,
			      const struct vublk_req *req);

#endif /* VUBLK_VERITY_PRIVATE_H */
