/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verity_private.h - internals of the verity target, shared by its files:
 *   tgt_verity.c       options, init/deinit (image, digest, shape), counters
 *   verity_read.c      the read path: request set-up, verification,
 *                      completion (queue_io), for every backend
 *   verity_read_file.c --backend=file: io_uring reads of the image (io_done)
 *   verity_read_pmem.c --backend=pmem: copies out of a libpmem2 mapping
 *   verity_report.c    rate-limited corruption reports, --on-corruption
 * Not a public header: the core sees only vublk_tgt_verity (ublk.h).
 *
 * The read path mirrors fs/verity/verify.c: fsverity_verify_bio(): the
 * data is read first (by the backend, into the request buffer), then every
 * block is checked against the Merkle tree before the request completes;
 * one bad block fails the whole request.
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

/* --backend: where the image's bytes come from. */
enum verity_backend_kind {
	VERITY_BACKEND_FILE,	/* io_uring reads of the file (default) */
	VERITY_BACKEND_PMEM,	/* copies out of a libpmem2 mapping */
	VERITY_BACKEND_NR,
};

/* At most this many corruption lines per second, like printk_ratelimit. */
#define VERITY_REPORTS_PER_SEC 10

struct verity_ratelimit {
	pthread_mutex_t lock;
	time_t window;		/* the second being counted */
	unsigned printed;	/* lines printed in it */
	uint64_t suppressed;	/* lines dropped since the last summary */
};

struct verity_backend;
struct pmem_dev;

struct verity_tgt {
	int fd;				/* the image, read-only */
	bool direct;			/* --direct: O_DIRECT */
	enum verity_backend_kind backend_kind;
	const struct verity_backend *backend;	/* set by init */
	bool backend_open;		/* backend->open succeeded */
	struct pmem_dev *pmem;		/* --backend=pmem: the mapping */
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

/* Planned tree extents per request; more are fetched on demand. */
#define VERITY_MAX_TREE_READS 16

/* One read from the image by the file backend: the data (slot 0) or a
 * tree extent. */
struct verity_read {
	uint8_t *buf;
	uint64_t pos;		/* byte offset in the image */
	uint32_t len;
	uint32_t done;		/* bytes read so far (short reads resume) */
	uint64_t tree_off;	/* tree reads: offset in the tree */
	uint64_t id;		/* tree reads: unique in the queue */
	bool submitted;		/* an SQE for the rest is in flight */
	bool finished;		/* read (and cached) or failed */
};

/* The state of one tag's request. */
struct verity_io {
	struct vublk_req req;
	uint64_t first_block;	/* Merkle blocks covering the request */
	uint64_t end_block;	/* exclusive */
	uint64_t next_block;	/* first block not yet verified */
	uint8_t *data;		/* the covering blocks: req.buf or bounce */
	unsigned ra_blocks;	/* level-0 readahead for the verifier */
	uint8_t *tbuf, *bounce;	/* tree extents; unaligned requests */
	size_t tbuf_size, bounce_size;

	/* The file backend's reads (verity_read_file.c). */
	unsigned in_flight;	/* SQEs */
	unsigned rounds;	/* tree fetches on demand, for this request */
	int error;		/* first read error */
	unsigned nreads;	/* reads[0] data, [1, nreads) tree */
	struct verity_read reads[1 + VERITY_MAX_TREE_READS];
	/* Tree reads of other tags this request waits for (by id). */
	unsigned waits;
	uint64_t wait_ids[VERITY_MAX_TREE_READS];
	size_t tbuf_used;
	struct merkle_extent want;	/* set by its read_tree */
};

/* A queue's requests; only its own thread touches it. */
struct verity_queue {
	uint64_t next_read_id;		/* file backend: tree read ids */
	struct verity_io ios[];		/* one per tag */
};

static inline struct verity_io *verity_io_of(struct vublk_queue *q,
					     unsigned tag)
{
	return &((struct verity_queue *)q->priv)->ios[tag];
}

/*
 * The seam between the read path and where the bytes come from.  The read
 * path (verity_read.c) sets a request up and verifies it; a backend only
 * reads.  An asynchronous backend (file) completes from io_done, a
 * synchronous one (pmem) inline, from read_data; both end in
 * verity_verify(), so verification is written once.
 */
struct verity_backend {
	/* init, after the metadata was read through vt->fd: make the image
	 * readable this way; 0 or -errno after one error line. */
	int (*open)(struct vublk_tgt *t, struct verity_tgt *vt);
	/* Undo open; optional. */
	void (*close)(struct verity_tgt *vt);
	/*
	 * Read the request's covering blocks into io->data (and, with
	 * --readahead=submission, the hash blocks verity_plan_tree_reads()
	 * lists), then call verity_verify() or verity_fail_io().  Returns
	 * -errno only if it started nothing (the core then fails the request).
	 */
	int (*read_data)(struct vublk_queue *q, unsigned tag,
			 struct verity_io *io);
	/*
	 * The verifier lacks tree bytes [off, off + len): copy them into buf
	 * and count them (0 or -errno), or record them in io->want and answer
	 * -EAGAIN; verity_verify() then calls fetch_tree.
	 */
	int (*read_tree)(struct verity_tgt *vt, struct verity_io *io,
			 void *buf, size_t len, uint64_t off);
	/* After -EAGAIN: read io->want, then verify again.  Asynchronous
	 * backends only. */
	void (*fetch_tree)(struct vublk_queue *q, unsigned tag,
			   struct verity_io *io);
	/* The request completes: nothing may wait on its reads any more.
	 * Optional. */
	void (*release)(struct vublk_queue *q, struct verity_io *io);
};

extern const struct verity_backend verity_backend_file;
extern const struct verity_backend verity_backend_pmem;

/* verity_read.c: the target's queue ops and the backends' services. */
int verity_queue_init(struct vublk_queue *q);
void verity_queue_deinit(struct vublk_queue *q);
int verity_queue_io(struct vublk_queue *q, unsigned tag,
		    const struct vublk_req *req);
/* The read_tree callback given to merkle_tree_open(): the backend's. */
int verity_read_tree(void *ctx, void *buf, size_t len, uint64_t off);
/* Hash blocks one request may need at once (cache sizing, buffers). */
unsigned verity_max_tree_blocks(const struct vublk_tgt *t);
/* Make *buf hold need bytes; only while no read into it is in flight. */
int verity_reserve(uint8_t **buf, size_t *size, size_t need);
/* Image offset and length of the blocks covering io. */
uint64_t verity_data_pos(const struct verity_tgt *vt,
			 const struct verity_io *io);
size_t verity_data_len(const struct verity_tgt *vt,
		       const struct verity_io *io);
/* Count one tree read of [off, off + len) for io (tree_reads,
 * tree_blocks_read, blocks_read_ahead). */
void verity_count_tree_read(struct verity_tgt *vt, const struct verity_io *io,
			    uint64_t off, uint32_t len);
/* --readahead=submission: the uncached hash blocks io needs, at every
 * level, into plan[VERITY_MAX_TREE_READS], with io->tbuf reserved for
 * all of them; the number of extents or a negative error. */
int verity_plan_tree_reads(struct verity_tgt *vt, struct verity_io *io,
			   struct merkle_extent *plan);
/* Verify io->data from io->next_block on, then complete the request (or
 * ask the backend for a missing hash block). */
void verity_verify(struct vublk_queue *q, unsigned tag, struct verity_io *io);
/* Count an I/O error, log it (what failed, err) and fail io with -EIO. */
void verity_fail_io(struct vublk_queue *q, unsigned tag, struct verity_io *io,
		    const char *what, int err);

/* verity_read_file.c */
void verity_io_done(struct vublk_queue *q, unsigned tag,
		    const struct io_uring_cqe *cqe);

/* verity_report.c */
void verity_ratelimit_init(struct verity_ratelimit *rl);
void verity_ratelimit_destroy(struct verity_ratelimit *rl);
/* A data block failed verification in request (offset, len) of queue q:
 * count it, log it (rate-limited) and apply --on-corruption. */
void verity_report_corruption(struct vublk_queue *q, uint64_t data_block,
			      const struct vublk_req *req);

#endif /* VUBLK_VERITY_PRIVATE_H */
