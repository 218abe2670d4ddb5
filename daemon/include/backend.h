/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * backend.h - where a target's bytes come from and go to.
 *
 * Targets decide, backends move bytes: a backend reads, writes, flushes
 * and discards ranges of one backing store on behalf of a target, and
 * knows nothing of what the requests mean.  Three today: "file" (a file or
 * block device through the queue's io_uring, backends/file.c), "pmem"
 * (a libpmem2 mapping, copied synchronously, backends/pmem.c) and "nbd"
 * (an export of a Network Block Device server, through libnbd driven from
 * the queue's io_uring, backends/nbd*.c).  Any target runs over any
 * backend; a new backend is one new file (or a few) and one table entry
 * (backends/table.c).
 *
 * The unit of work is a struct vublk_bio, named after the kernel's: the
 * submitter fills the request part and end_io, the backend moves the
 * bytes, resubmits short transfers itself, and answers exactly once with
 * the bio's result: what the request it serves completes with, so that a
 * target passing requests through (loop) hands it on as it is (the bytes
 * of a READ or WRITE, all of them, or 0 for the other ops: see
 * vublk_bio_result()), or -errno.
 */
#ifndef VUBLK_BACKEND_H
#define VUBLK_BACKEND_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "target.h"

struct vublk_bio;

/*
 * The answer of a bio that did not complete in submit: called once, on
 * the queue's thread.  res is the bio's result (a read that hit the end
 * of the store is -EIO: the store shrank under the device).
 */
typedef void (*vublk_bio_end_fn)(struct vublk_queue *q, struct vublk_bio *bio,
				 int res);

struct vublk_bio {
	/*
	 * The submitter's.  What to move, as a request of the device says
	 * it (target.h): op, flags (VUBLK_REQ_FUA, _NOUNMAP, _FIXED_BUF:
	 * buf_index instead of buf, where the backend has fixed_buffers;
	 * _REG_BUF: buf is also buffer buf_index),
	 * offset in the store, len (0 for FLUSH) and buf (READ fills, WRITE
	 * reads; O_DIRECT-aligned).  One struct, whose fields a target
	 * passing a request through copies as they are (loop_queue_io()).
	 */
	struct vublk_req req;
	vublk_bio_end_fn end_io;
	void *end_io_ctx;	/* the submitter's, for end_io */
	/*
	 * The backend's, while the bio is in flight: each asynchronous
	 * backend's submit sets those it uses.  A synchronous one (pmem)
	 * touches none, so its bios stay in the first cache line.
	 */
	struct vublk_ring_event ev;
	struct vublk_backend *be;
	struct vublk_queue *q;	/* whose thread answers it */
	uint32_t done;		/* bytes moved so far */
	/*
	 * A remote store's (nbd): its place in the queue's lists, when it
	 * must be answered by (CLOCK_MONOTONIC ns), how often it was sent,
	 * its commands not yet answered and their outcome, and for a FLUSH
	 * the writes it covers.
	 */
	struct vublk_bio *next, *prev;
	uint64_t deadline_ns;
	uint64_t flush_covers;
	uint16_t sends;
	uint16_t parts;
	int res;
	bool lost;		/* its connection went away first */
	uint32_t read_seen;	/* a READ's bytes the answers covered */
};

/*
 * The result of a bio whose bytes all moved, or that failed with err
 * (-errno): its length for a READ or WRITE, 0 for the other ops.  In a
 * backend's switch on the op, the compiler folds it to one of the two.
 */
static inline int vublk_bio_result(const struct vublk_bio *bio, int err)
{
	if (err)
		return err;
	return vublk_req_has_data(&bio->req) ? (int)bio->req.len : 0;
}

/* How to open a store (struct vublk_backend_open.flags). */
#define VUBLK_BACKEND_READ_ONLY	(1U << 0)
#define VUBLK_BACKEND_DIRECT	(1U << 1) /* bypass the page cache */


/*
 * Options of the store, common to every target that has one: --backend,
 * and how long and how often a remote store (nbd) is waited for.
 */
struct vublk_backend_cfg {
	const struct vublk_backend_ops *ops;	/* NULL: chosen by the path */
	unsigned retries;	/* --retry: sends after a lost connection */
	unsigned timeout_s;	/* --timeout: seconds a request may wait */
	bool retries_set, timeout_set;
};

/* Their option values: clear of the targets' own, which start at 256. */
enum vublk_backend_opt {
	VUBLK_BACKEND_OPT_BACKEND = 512,
	VUBLK_BACKEND_OPT_RETRY,
	VUBLK_BACKEND_OPT_TIMEOUT,
};

/* For a target's option table and its usage text. */
#define VUBLK_BACKEND_OPTIONS \
	{ "backend", required_argument, NULL, VUBLK_BACKEND_OPT_BACKEND }, \
	{ "retry", required_argument, NULL, VUBLK_BACKEND_OPT_RETRY }, \
	{ "timeout", required_argument, NULL, VUBLK_BACKEND_OPT_TIMEOUT }
#define VUBLK_BACKEND_DEFAULT_RETRIES 3
/* Under the 10 s a `vublk del` gives the kernel's STOP_DEV (core/ctrl.c),
 * which waits for the requests in flight: deleting a device whose server
 * hangs then always finishes. */
#define VUBLK_BACKEND_DEFAULT_TIMEOUT_S 8
#define VUBLK_BACKEND_REMOTE_USAGE \
	"  --retry=N          (NBD) send a request again up to N times after its\n" \
	"                     connection was lost (default 3)\n" \
	"  --timeout=SECONDS  (NBD) a request not answered within SECONDS of its\n" \
	"                     arrival, reconnections and resends included, fails\n" \
	"                     with EIO (default 8)\n"

/* An open backing store.  Its fields are set by open. */
struct vublk_backend {
	const struct vublk_backend_ops *ops;
	void *priv;		/* ops->priv_size zeroed bytes */
	const char *path;
	unsigned flags;		/* VUBLK_BACKEND_* */
	const struct vublk_backend_cfg *cfg;	/* the target's options */
	uint64_t size;		/* bytes */
	/* The smallest block I/O may use (9, or 12 for O_DIRECT) and the
	 * smallest that is efficient (a page, for memory). */
	unsigned block_shift;
	unsigned io_min_shift;
	/* block_shift is the store's own minimum, under which it refuses
	 * I/O (an NBD server's minimum block size), not a default that a
	 * target may go under (O_DIRECT, whose alignment the device
	 * decides: --block-size 512 works on most). */
	bool block_size_strict;
	/* What a buffer's address must be aligned to (a power of 2, at
	 * most a page): 1 but for O_DIRECT (0 is taken as 1). */
	uint32_t mem_align;
	/* Its reads and writes DMA into the submitter's buffers (O_DIRECT):
	 * the kernel pins a buffer's pages for each I/O, unless the bio
	 * comes VUBLK_REQ_REG_BUF, pinned once (target.h:
	 * register_buffers): a third of the read's CPU time, 4% of a
	 * verified read's (docs/PERFORMANCE.md, "Registered request
	 * buffers"). */
	bool pins_buffers;
	/* Writes are durable only after a FLUSH (a page cache, or a
	 * mapping of one). */
	bool volatile_cache;
	/* Queues it can serve; 0: any (an NBD server that does not allow
	 * several connections serves one queue). */
	unsigned max_queues;
	/* Every read is a round trip to a server (NBD): a target does
	 * better with several smaller requests of a readahead window in
	 * flight than with one large one, and with work that overlaps the
	 * wait (docs/PERFORMANCE.md, "VM: a verify thread"). */
	bool remote;
	/* The store mapped for reading in place, [map, map + map_len), or
	 * NULL (vublk_backend_map()); read it only where mapped_at() says
	 * so, inside vublk_backend_read_mapped(). */
	const uint8_t *map;
	uint64_t map_len;
};

struct vublk_backend_ops {
	const char *name;	/* --backend=NAME */
	const char *summary;	/* for --help */
	size_t priv_size;
	/* submit takes VUBLK_REQ_FIXED_BUF bios: a registered buffer of
	 * the queue's io_uring instead of buf (zero copy).  Such a backend
	 * also reads and writes a VUBLK_REQ_REG_BUF bio's buf as one. */
	bool fixed_buffers;
	/* Open path with VUBLK_BACKEND_* flags; 0 or -errno after one error
	 * line (what, which file, why, what to do). */
	int (*open)(struct vublk_backend *be);
	void (*close)(struct vublk_backend *be);
	/*
	 * Read [pos, pos + len) in the main thread, before any queue runs
	 * (a target's own metadata): 0 or -errno.  pos and len are
	 * multiples of 1 << block_shift and buf is 4096-aligned
	 * (vublk_backend_read() sees to it).  Every store a user names has
	 * it; a remap store (its target reads the metadata below it) not.
	 */
	int (*read_sync)(struct vublk_backend *be, void *buf, size_t len,
			 uint64_t pos);
	/*
	 * Optional: the backend's state for queue q (connections, say), in
	 * q's thread before its first bio, and its end after its last one;
	 * queue_init returns 0 or -errno after one error line.
	 */
	int (*queue_init)(struct vublk_backend *be, struct vublk_queue *q);
	void (*queue_deinit)(struct vublk_backend *be, struct vublk_queue *q);
	/*
	 * Start bio on queue q: returns its result when it finished
	 * synchronously, without calling end_io, or VUBLK_IO_QUEUED
	 * (target.h) when end_io will answer.  Being queue_io's return
	 * values, a target passing requests through returns submit's
	 * answer as it is, with a tail call: on the pmem path, which is
	 * measured in instructions (docs/PERFORMANCE.md, pmem), neither
	 * end_io nor a frame of the target's runs.
	 * READ/WRITE of [pos, pos + len) inside the store; FLUSH persists
	 * every completed write; DISCARD and WRITE_ZEROES make the range
	 * read back as zeroes (DISCARD may leave it undefined).
	 */
	int (*submit)(struct vublk_backend *be, struct vublk_queue *q,
		      struct vublk_bio *bio);
	/*
	 * Optional: set map and map_len where the store can be mapped for
	 * reading in place (file: read-only, through the page cache), or
	 * leave them NULL; in init, before any queue runs, for a target that
	 * will read so.  pmem is a map from open on and needs none.
	 */
	void (*map)(struct vublk_backend *be);
	/*
	 * Optional, for a store with a map: the address of byte pos when
	 * all of [pos, pos + len) can be read there now without waiting
	 * for I/O (pmem: no known bad block in it; a file: its pages are
	 * in the page cache), else NULL: read it with a bio.  A target
	 * that only needs the bytes (verity copies them as it hashes them)
	 * then saves the read's copy.
	 */
	const uint8_t *(*mapped_at)(struct vublk_backend *be, uint64_t pos,
				    uint32_t len);
	/* Optional: settings and counters (see target.h: reports). */
	void (*report)(struct vublk_backend *be, struct vublk_stats_out *out);
	/* Optional: the store's size may have changed; set be->size anew.
	 * 0 or -errno.  A store without it has a fixed size. */
	int (*refresh_size)(struct vublk_backend *be);
};

/* path is an NBD URI (nbd://, nbds://, nbd+unix://, ...). */
bool vublk_backend_is_nbd_uri(const char *path);
/* The backend named name ("file", "pmem", "nbd"), or NULL. */
const struct vublk_backend_ops *vublk_backend_find(const char *name);
/* One of VUBLK_BACKEND_OPTIONS into cfg; 0, or -EINVAL after one error
 * line (also for an option that is not one of them). */
int vublk_backend_parse_opt(struct vublk_backend_cfg *cfg, int opt,
			    const char *arg);

/*
 * Open path with flags into *be, through cfg->ops, or when that is NULL
 * the backend the path calls for: "nbd" for an NBD URI (nbd://,
 * nbds://, nbd+unix://, ...), else "file".  0 or -errno (said why).
 */
int vublk_backend_open(struct vublk_backend *be,
		       const struct vublk_backend_cfg *cfg, const char *path,
		       unsigned flags);
void vublk_backend_close(struct vublk_backend *be);

/* Read any [pos, pos + len) inside the store, in the main thread before
 * any queue runs; 0 or -errno. */
int vublk_backend_read(struct vublk_backend *be, void *buf, size_t len,
		       uint64_t pos);

/* Whether be can be read in place: mapped (asking it to map itself,
 * ops->map), with a mapped_at to say where. */
bool vublk_backend_map(struct vublk_backend *be);

/*
 * Run fn(ctx), which reads be's map at addresses mapped_at() gave, on the
 * queue's thread: 0, or -EIO when a load from the map took SIGBUS (a file
 * truncated under the device, pmem poison) and fn was abandoned there,
 * so fn must hold no lock and allocate nothing (lib/pmem:
 * pmem_guarded_read()).
 */
int vublk_backend_read_mapped(struct vublk_backend *be, void (*fn)(void *ctx),
			      void *ctx);

/* Serve at most the queues the store can: lower *nr_queues to
 * be->max_queues, saying so. */
void vublk_backend_fit_queues(const struct vublk_backend *be,
			      unsigned *nr_queues);

/*
 * A read-only store made of pieces of another, open (lower): extent i is
 * bytes [off, off + len) of the new store, read from lower at byte lower,
 * or zeroes where lower is VUBLK_EXTENT_HOLE.  Extents are sorted and
 * contiguous from 0; the store is as large as they are.  backends/remap.c;
 * lower must outlive it.  0 or -errno after one error line.
 */
#define VUBLK_EXTENT_HOLE UINT64_MAX
struct vublk_extent {
	uint64_t off, len, lower;
};
int vublk_remap_open(struct vublk_backend *be, struct vublk_backend *lower,
		     const struct vublk_extent *ext, size_t n);

/*
 * The lib/pmem device of an open pmem backend, for vublk-bench pmem, whose
 * lib/pmem and bare libpmem2 sides must copy through the target's own
 * mapping: each mapping has its own page tables, and on this project's
 * test machines (guests themselves) random 4 KiB copies through two
 * mappings of one file differed by up to 6% in speed.
 */
struct pmem_dev;
struct pmem_dev *vublk_pmem_backend_device(const struct vublk_backend *be);

static inline int vublk_backend_submit(struct vublk_backend *be,
				       struct vublk_queue *q,
				       struct vublk_bio *bio)
{
	return be->ops->submit(be, q, bio);
}

static inline int vublk_backend_queue_init(struct vublk_backend *be,
					   struct vublk_queue *q)
{
	return be->ops->queue_init ? be->ops->queue_init(be, q) : 0;
}

static inline void vublk_backend_queue_deinit(struct vublk_backend *be,
					      struct vublk_queue *q)
{
	if (be->ops->queue_deinit)
		be->ops->queue_deinit(be, q);
}

static inline void vublk_backend_report(struct vublk_backend *be,
					struct vublk_stats_out *out)
{
	if (be->ops->report)
		be->ops->report(be, out);
}

#endif /* VUBLK_BACKEND_H */
