/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verity.h - internals of the verity target, shared by its files:
 *   verity.c         options, init/deinit (shape), report
 *   verity_image.c   the image's metadata and its backend
 *   verity_dmv.c     --format=dm-verity: veritysetup's images
 *   verity_trust.c   --digest and the builtin signature (lib/sig)
 *   verity_read.c    a READ, top to bottom
 *   verity_worker.c  --verify-thread: a queue's hashing on a thread
 *   verity_report.c  rate-limited corruption reports, --on-corruption
 * Included only by those files.
 *
 * The read path mirrors fs/verity/verify.c: fsverity_verify_bio(): the
 * data is read first (by the backend, into the request buffer), then every
 * block is checked against the Merkle tree before the request completes;
 * one bad block fails the whole request.
 */
#ifndef VUBLK_VERITY_H
#define VUBLK_VERITY_H

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "backend.h"
#include "f2fslayout.h"
#include "merkle.h"
#include "sig.h"

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

/* --verify-thread: auto (0, the default) is on for a remote image. */
enum verity_thread_opt {
	VERITY_THREAD_AUTO,
	VERITY_THREAD_ON,
	VERITY_THREAD_OFF,
	VERITY_THREAD_NR,
};

/* --on-corruption, after dm-verity's error modes. */
enum verity_on_corruption {
	VERITY_CORRUPT_EIO,	/* fail the request (dm-verity's default) */
	VERITY_CORRUPT_STOP,	/* ... then stop the device (restart mode) */
	VERITY_CORRUPT_LOG,	/* log it, return the data (ignore_corruption) */
	VERITY_CORRUPT_NR,
};

/*
 * What only the target knows, each counted here and nowhere else: the
 * core counts requests, lib/merkle counts verification (blocks verified,
 * failures, cache hits and misses).  Monotonic, relaxed atomics.
 */
struct verity_counters {
	atomic_uint_fast64_t tree_reads;	/* tree bios issued */
	atomic_uint_fast64_t tree_blocks_read;	/* hash blocks they covered */
	atomic_uint_fast64_t blocks_read_ahead;	/* of which not needed yet */
	atomic_uint_fast64_t io_errors;		/* requests failed: I/O error */
	atomic_uint_fast64_t corrupt_served;	/* --on-corruption=log */
	atomic_uint_fast64_t zero_blocks;	/* --ignore-zero-blocks: zeroed */
	atomic_uint_fast64_t blocks_in_place;	/* hashed out of the map */
	atomic_uint_fast64_t in_place_faults;	/* passes read again */
};

/*
 * --format=dm-verity: an image that `veritysetup format` wrote, described
 * by veritysetup's options (verity_dmv.c).
 */
struct verity_dmv {
	bool on;			/* --format=dm-verity */
	char hash_device[4096];		/* --hash-device, absolute; "" = IMAGE */
	struct merkle_dmv_config cfg;	/* --hash-offset, --no-superblock... */
	unsigned given;			/* VERITY_DMV_GIVEN_*: options seen */
	int root_len;			/* --root-hash bytes; 0 = not given */
	uint8_t root_hash[MERKLE_MAX_DIGEST_SIZE];
	struct vublk_backend hash;	/* the hash device, when not IMAGE */
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
	struct vublk_backend *be;	/* what reads go through: one of */
	struct vublk_backend image;	/*   the image (--backend) */
	struct vublk_backend file;	/*   a file of it (--f2fs-file) */
	struct vublk_backend_cfg backend;	/* --backend, --retry, ... */
	const char *f2fs_file;		/* --f2fs-file */
	struct vublk_extent *extents;	/* the file's, for file */
	size_t nr_extents;
	bool direct;			/* --direct: O_DIRECT */
	enum verity_readahead readahead;
	enum verity_on_corruption on_corruption;
	bool ignore_zero_blocks;	/* --ignore-zero-blocks */
	enum verity_thread_opt verify_thread_opt;	/* --verify-thread */
	bool verify_thread;		/* ... as init resolved it */
	bool no_read_in_place;		/* --read-in-place=off */
	/* --check-at-most-once: a bit per data block verified once. */
	bool check_at_most_once;
	_Atomic uint64_t *checked;
	uint64_t cache_bytes;		/* --cache-mb; 0 = default */
	uint64_t cache_blocks;		/* --cache-blocks (testing); 0 = unset */
	bool have_digest;		/* --digest given */
	unsigned digest_alg;
	uint8_t digest[MERKLE_MAX_DIGEST_SIZE];
	struct sig_policy sig;		/* --trusted-cert, --signature,
					 * --require-signature */
	int sig_status;			/* sig_check()'s, once init passed */

	struct verity_dmv dmv;		/* --format=dm-verity */
	struct vublk_backend *tree_be;	/* what tree reads go through */
	uint64_t tree_pos;		/* where the tree starts in it */

	struct f2fslayout_image img;	/* the metadata, either format's */
	bool img_ready;
	unsigned log_bs;		/* data block size, log2 */
	unsigned log_tree_bs;		/* hash block size, log2 (dm-verity:
					 * may differ) */
	struct merkle_cache *cache;	/* shared by all queues */
	struct merkle_tree *tree;	/* opened without read_tree */
	/* Cached blocks read in place out of the backend's map, copied into
	 * the request as they are hashed (verity_read.c). */
	bool in_place;

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

/* The largest request whose blocks are read in place (verity_read.c:
 * verity_take_from_map()). */
#define VERITY_IN_PLACE_MAX_BYTES (64u << 10)

/* Tree reads one request has in flight at once: a plan's extents, or
 * the one extent the verifier said it lacks. */
#define VERITY_MAX_TREE_READS 16

struct verity_io;

/* One read of tree bytes, by the request that issued it, into the cache. */
struct verity_tree_read {
	struct vublk_bio bio;
	struct verity_io *io;	/* whose buffer it fills */
	uint64_t off;		/* tree offset */
	uint64_t id;		/* unique in the queue: others wait by it */
	bool busy;		/* in flight */
};

/* One tag's READ, from arrival to completion. */
struct verity_io {
	unsigned tag;
	struct vublk_req req;
	uint64_t first_block;	/* Merkle blocks covering the request */
	uint64_t end_block;	/* exclusive */
	uint64_t next_block;	/* first block not yet verified */
	uint8_t *data;		/* the covering blocks: req.buf or bounce */
	unsigned ra_blocks;	/* level-0 readahead for the verifier */
	unsigned rounds;	/* MERKLE_NEED_TREE answers so far */

	/* Reads it waits for: its own and other requests' tree reads, plus
	 * one while it is still issuing them. */
	unsigned pending;
	int error;		/* first error of its own reads */
	const char *error_what;	/* which read */
	struct vublk_bio data_bio;
	unsigned nreads;
	struct verity_tree_read reads[VERITY_MAX_TREE_READS];
	unsigned waits;
	uint64_t wait_ids[VERITY_MAX_TREE_READS];

	uint8_t *tbuf, *bounce;	/* tree bytes; unaligned requests */
	size_t tbuf_size, bounce_size, tbuf_used;

	/* Read in place: where the blocks are in the backend's map until
	 * they are copied (NULL after), and their digests once they are. */
	const uint8_t *src;
	bool have_digests;
	uint8_t *digests;
	size_t digests_size;
};

/* Requests verified together by one merkle_verify_many() call, with its
 * ranges; depth entries each. */
struct verity_batch {
	struct verity_io **ios;
	struct merkle_verify_req *reqs;
	unsigned n;
};

/* A queue's requests; only its own thread touches it. */
struct verity_queue {
	uint64_t next_read_id;
	/* Requests whose reads are in, to verify at the end of the pass
	 * over the completions (depth entries). */
	struct verity_io **ready;
	unsigned nready;
	/* The batch this thread verifies, and (--verify-thread) the one the
	 * queue's verify thread holds: n is 0 when it holds none and may be
	 * handed the next. */
	struct verity_batch own, handed;
	struct verity_worker *worker;
	struct verity_io ios[];		/* one per tag */
};

/*
 * verity_worker.c: a thread that runs merkle_verify_many() on a queue's
 * batches, one at a time, and calls done(q, its result) on the queue's
 * thread, from the queue's ring, when it is through.  start: 0 or -errno
 * after one error line (in the queue's thread: it arms a poll in its
 * ring).  stop: only when no batch is with the thread; NULL is nothing.
 */
struct verity_worker;
/* The least data a batch hands to the thread: a readahead request's
 * (128 KiB, the kernel's default window); random reads are smaller. */
#define VERITY_WORKER_MIN_BYTES (128u << 10)
typedef void (*verity_worker_done_fn)(struct vublk_queue *q, int err);
int verity_worker_start(struct vublk_queue *q, struct merkle_tree *tree,
			verity_worker_done_fn done, struct verity_worker **out);
void verity_worker_submit(struct verity_worker *w,
			  struct merkle_verify_req *reqs, unsigned n);
void verity_worker_stop(struct verity_worker *w);

/* verity_image.c, in this order: the image's backend, the metadata into
 * vt->img, and with --f2fs-file the file's store as vt->be; each 0 or
 * -errno after one error line.  verity_close_image() undoes them all. */
int verity_open_backend(struct vublk_tgt *t, struct verity_tgt *vt);
int verity_read_image(struct vublk_tgt *t, struct verity_tgt *vt);
int verity_open_file(struct vublk_tgt *t, struct verity_tgt *vt);
void verity_close_image(struct verity_tgt *vt);

/* verity_dmv.c: the dm-verity options, each 0 or -EINVAL after one
 * line; the image's parameters into vt->img and its hash device as
 * vt->tree_be (0 or -errno after one line); whether an option that only
 * the fs-verity format takes was given with it. */
int verity_dmv_parse_opt(struct verity_tgt *vt, int opt, const char *arg);
int verity_dmv_read_image(struct vublk_tgt *t, struct verity_tgt *vt);
void verity_dmv_close(struct verity_tgt *vt);

/* Option ids of verity_dmv_parse_opt(), shared with verity.c's table. */
enum verity_dmv_opt {
	VERITY_OPT_FORMAT = 768,	/* past VUBLK_BACKEND_OPT_* */
	VERITY_OPT_HASH_DEVICE,
	VERITY_OPT_HASH_OFFSET,
	VERITY_OPT_ROOT_HASH,
	VERITY_OPT_NO_SUPERBLOCK,
	VERITY_OPT_HASH,
	VERITY_OPT_DATA_BLOCK_SIZE,
	VERITY_OPT_HASH_BLOCK_SIZE,
	VERITY_OPT_DATA_BLOCKS,
	VERITY_OPT_SALT,
	VERITY_OPT_HASH_TYPE,
	VERITY_OPT_ROOT_HASH_SIGNATURE,
};

#define VERITY_DMV_OPTIONS \
	{ "format", required_argument, NULL, VERITY_OPT_FORMAT }, \
	{ "hash-device", required_argument, NULL, VERITY_OPT_HASH_DEVICE }, \
	{ "hash-offset", required_argument, NULL, VERITY_OPT_HASH_OFFSET }, \
	{ "root-hash", required_argument, NULL, VERITY_OPT_ROOT_HASH }, \
	{ "no-superblock", no_argument, NULL, VERITY_OPT_NO_SUPERBLOCK }, \
	{ "hash", required_argument, NULL, VERITY_OPT_HASH }, \
	{ "data-block-size", required_argument, NULL, \
	  VERITY_OPT_DATA_BLOCK_SIZE }, \
	{ "hash-block-size", required_argument, NULL, \
	  VERITY_OPT_HASH_BLOCK_SIZE }, \
	{ "data-blocks", required_argument, NULL, VERITY_OPT_DATA_BLOCKS }, \
	{ "salt", required_argument, NULL, VERITY_OPT_SALT }, \
	{ "hash-type", required_argument, NULL, VERITY_OPT_HASH_TYPE }, \
	{ "root-hash-signature", required_argument, NULL, \
	  VERITY_OPT_ROOT_HASH_SIGNATURE }

/* verity_read.c: the target's queue ops. */
int verity_queue_init(struct vublk_queue *q);
void verity_queue_deinit(struct vublk_queue *q);
int verity_queue_io(struct vublk_queue *q, unsigned tag,
		    const struct vublk_req *req);
void verity_queue_batch_end(struct vublk_queue *q);
/* Hash blocks one request may need at once (cache sizing, round bound). */
unsigned verity_max_tree_blocks(const struct vublk_tgt *t);

/* verity_trust.c: the options read when parsed (in the caller's
 * directory: the server runs in /), each 0 or -EINVAL after one line;
 * the checks of init; what the options hold, freed. */
int verity_parse_digest(struct verity_tgt *vt, const char *arg);
int verity_add_trusted_cert(struct verity_tgt *vt, const char *arg);
int verity_read_signature(struct verity_tgt *vt, const char *option,
			  const char *arg);
int verity_check_trust(struct vublk_tgt *t, struct verity_tgt *vt);
const char *verity_signature_status(const struct verity_tgt *vt);
void verity_trust_release(struct verity_tgt *vt);

/* verity_report.c */
void verity_ratelimit_init(struct verity_ratelimit *rl);
void verity_ratelimit_destroy(struct verity_ratelimit *rl);
/* A data block failed verification in request req of queue q: log it
 * (rate-limited) and apply --on-corruption. */
void verity_report_corruption(struct vublk_queue *q, uint64_t data_block,
			      const struct vublk_req *req);

#endif /* VUBLK_VERITY_H */
