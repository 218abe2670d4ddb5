/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * target.h - the interface between the vublk core and its targets.
 *
 * A target (loop, pmem, verity) decides what a block request means: pass
 * it through to the backing store, or read it and verify it first.  It
 * knows nothing of ublk: not the FETCH/COMMIT commands, not the iod array,
 * not the control plane.  The core hands it requests that are already
 * validated (core/validate.c: in range, length fits the buffer, op known,
 * writes only on a writable device), so a target never re-checks them in
 * its copy path.  The bytes themselves move through a backend (backend.h).
 * Modelled on the kernel selftest server's struct ublk_tgt_ops
 * (tools/testing/selftests/ublk/kublk.h).
 *
 * Threading: each queue runs in its own thread with its own io_uring.
 * queue_init, queue_io and queue_deinit for a queue run in that queue's
 * thread; parse_opt, init, deinit and report run in the main thread
 * (report while queues run: read shared counters atomically).
 *
 * Completion contract: queue_io returns the request's result when it
 * finished within queue_io (bytes done or 0, or -errno, as
 * vublk_complete_io() takes it), and the core completes the request with
 * it; or VUBLK_IO_QUEUED, and the target calls vublk_complete_io()
 * exactly once, later from a completion on the queue's ring or already
 * from queue_io.  A synchronous backend's request (pmem) thus completes
 * with one call less.
 */
#ifndef VUBLK_TARGET_H
#define VUBLK_TARGET_H

#include <getopt.h>
#include <limits.h>
#include <liburing.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "log.h"

enum vublk_op {
	VUBLK_OP_READ,
	VUBLK_OP_WRITE,
	VUBLK_OP_FLUSH,		/* write back the target's volatile cache */
	VUBLK_OP_DISCARD,	/* contents of the range become undefined */
	VUBLK_OP_WRITE_ZEROES,	/* the range reads back as zeroes */
};

/* struct vublk_req flags. */
#define VUBLK_REQ_FUA		(1U << 0) /* write durable before completion */
/*
 * Readahead: the kernel marks readahead bios REQ_RAHEAD, and blk-mq turns
 * that into REQ_FAILFAST_MASK on the request (block/blk-mq.c:
 * blk_mq_bio_to_request(): "if (bio->bi_opf & REQ_RAHEAD) rq->cmd_flags |=
 * REQ_FAILFAST_MASK"), which ublk_drv.c: ublk_req_build_flags() passes on
 * as the three UBLK_IO_F_FAILFAST_* bits.  Set when all three are set.
 */
#define VUBLK_REQ_READAHEAD	(1U << 1)
#define VUBLK_REQ_NOUNMAP	(1U << 2) /* WRITE_ZEROES: keep blocks allocated */
/*
 * Zero copy: no buf; the request's own pages are buffer buf_index of the
 * queue's io_uring (registered by the driver: UBLK_F_AUTO_BUF_REG), which
 * io_uring's READ_FIXED/WRITE_FIXED take at byte offsets from 0.  Only
 * for a target that set zero_copy, and the target cannot see the data.
 */
#define VUBLK_REQ_FIXED_BUF	(1U << 3)
/*
 * buf is also buffer buf_index of the queue's io_uring: the core
 * registered the request buffers (the target set register_buffers), so
 * READ_FIXED/WRITE_FIXED may take buf at its own address and the kernel
 * pins none of its pages for the I/O.  A hint: buf stays valid.
 */
#define VUBLK_REQ_REG_BUF	(1U << 4)

/*
 * queue_io (and a backend's submit, backend.h): not a result, the request
 * is in flight.  No result is this low: bytes are >= 0 and an errno is
 * above -4096.
 */
#define VUBLK_IO_QUEUED INT_MIN

/* One validated block request.  offset and len are in bytes. */
struct vublk_req {
	unsigned op;		/* enum vublk_op */
	unsigned flags;		/* VUBLK_REQ_* */
	uint32_t len;		/* 0 for FLUSH */
	unsigned buf_index;	/* with VUBLK_REQ_FIXED_BUF or _REG_BUF */
	uint64_t offset;
	void *buf;		/* len bytes, page aligned; READ fills, WRITE reads */
};

/* Only a READ or a WRITE has pages (ublk_drv.c: ublk_rq_has_data()). */
static inline bool vublk_req_has_data(const struct vublk_req *req)
{
	return req->op == VUBLK_OP_READ || req->op == VUBLK_OP_WRITE;
}

struct vublk_tgt_ops;
struct vublk_backend;
struct vublk_server;
struct vublk_stats_out;

/* A target's view of its device. */
struct vublk_tgt {
	const struct vublk_tgt_ops *ops;
	void *priv;		/* ops->priv_size zeroed bytes, the target's */

	/* Set by the core before parse_opt/init. */
	const char *backing_file;	/* -f FILE */
	bool read_only;			/* --read-only; init may set it too */
	unsigned nr_queues;
	unsigned queue_depth;
	uint32_t max_io_bytes;		/* buffer per request: max len */

	/* Set by init. */
	uint64_t dev_size;		/* bytes, multiple of the logical bs */
	unsigned logical_bs_shift;	/* 9..12 */
	unsigned physical_bs_shift;	/* >= logical_bs_shift */
	unsigned io_min_shift;
	unsigned io_opt_shift;
	uint32_t max_req_bytes;		/* the largest request; 0: max_io_bytes */
	bool volatile_cache;		/* FLUSH and FUA are meaningful */
	bool discard;			/* DISCARD and WRITE_ZEROES supported */
	uint32_t discard_granularity;	/* bytes, when discard */
	/* The target only moves data, through a backend that can take the
	 * request's own pages: its requests may come VUBLK_REQ_FIXED_BUF
	 * (zero copy, where the driver has it).  dma_align_mask: what the
	 * backend needs of those pages' addresses (4095 for O_DIRECT). */
	bool zero_copy;
	uint32_t dma_align_mask;
	/* Where requests come in our buffers: the backend DMAs into them
	 * (O_DIRECT, be->pins_buffers), so the core registers them with the
	 * queue's io_uring as requests need them (pinned until the queue
	 * ends), and its READs and WRITEs come VUBLK_REQ_REG_BUF. */
	bool register_buffers;
	/* The store the target reads and writes through, if it has one
	 * (for vublk-bench, which measures under the target). */
	struct vublk_backend *backend;

	/* Set by the core once ADD_DEV granted it (after init, before
	 * queue_init): the ublk device id, for the target's log lines. */
	unsigned dev_id;
	struct vublk_server *srv;	/* the core's; see vublk_tgt_stop() */
};

/* A target's view of one queue. */
struct vublk_queue {
	struct vublk_tgt *tgt;
	unsigned q_id;
	unsigned depth;		/* tags are 0 .. depth - 1 */
	void *priv;		/* the target's, e.g. set by queue_init */
	void *backend_priv;	/* its backend's (backend.h: queue_init) */
	struct vublk_ring *ring;	/* the core's (vublk_queue_get_sqe) */
};

struct vublk_tgt_ops {
	const char *name;		/* -t NAME */
	const char *summary;		/* one line for `vublk help` */
	const char *usage;		/* option lines for `vublk NAME --help` */
	size_t priv_size;		/* bytes of tgt->priv */
	/* Target options: long options only, val >= 256. */
	const struct option *options;
	/* One parsed target option; 0 or -EINVAL after printing why. */
	int (*parse_opt)(struct vublk_tgt *t, int opt, const char *arg);
	/* Optional: free what parse_opt kept beyond argv's strings (files
	 * read in the caller's directory).  Called in every process that
	 * parsed the options once it is done with them, whether init ran
	 * or not (a detached add's parent never runs it); safe after
	 * deinit. */
	void (*free_options)(struct vublk_tgt *t);
	/* Open the backing store and set the device shape; 0 or -errno
	 * after printing one error line.  deinit undoes it. */
	int (*init)(struct vublk_tgt *t);
	void (*deinit)(struct vublk_tgt *t);
	/* Per-queue state; queue_init returns 0 or -errno. */
	int (*queue_init)(struct vublk_queue *q);
	void (*queue_deinit)(struct vublk_queue *q);
	/* Start one request: its result or VUBLK_IO_QUEUED (the
	 * completion contract above). */
	int (*queue_io)(struct vublk_queue *q, unsigned tag,
			const struct vublk_req *req);
	/*
	 * Optional: the core has handled one pass over the queue's
	 * completions (requests that arrived, backends' answers) and is
	 * about to wait for more.  A target that set work aside to do it
	 * together does it now (the verity target verifies the requests
	 * whose reads are in, pairing their blocks); nothing may be left
	 * set aside after it returns, as blk-mq's ->commit_rqs() ends a
	 * batch of ->queue_rq() calls.
	 */
	void (*queue_batch_end)(struct vublk_queue *q);
	/*
	 * Optional, main thread, while queues run: the device is to be
	 * *size bytes, or for 0, as large as its store is now (vublk
	 * update-size).  Sets *size to what the device will be (a multiple
	 * of the logical block) and returns 0 once every request up to it
	 * can be served; else -errno with one line in why[len].
	 */
	int (*resize)(struct vublk_tgt *t, uint64_t *size, char *why,
		      size_t len);
	/* Optional: the target's own counters and settings, for the stats
	 * file, `vublk list --json` and the log line at stop. */
	void (*report)(struct vublk_tgt *t, struct vublk_stats_out *out);
};

/*
 * Services of the core (core/, or inproc/ for tests and tools).
 */

/* Finish request tag: res = bytes done (READ/WRITE: req->len) or 0, or
 * -errno.  Exactly once per request whose queue_io returned
 * VUBLK_IO_QUEUED, never for the others. */
void vublk_complete_io(struct vublk_queue *q, unsigned tag, int res);

/*
 * Stop the device, as `vublk del` would (dm-verity's error modes stop a
 * device the same way): the core stops taking requests, finishes those in
 * flight and deletes the device.  Any thread, any number of times.
 */
void vublk_tgt_stop(struct vublk_tgt *t);

/*
 * The queue's io_uring, for backends.  The SQE is never NULL: when the
 * submission queue is full the core keeps the SQE until there is room
 * (core/ring.c), so nothing ever has to handle a shortage.  The core
 * submits it with the next batch.
 */
struct io_uring_sqe *vublk_queue_get_sqe(struct vublk_queue *q);

/*
 * Register fd in the queue's io_uring (in the queue's thread: a backend's
 * queue_init), so that its SQEs can name it by index (IOSQE_FIXED_FILE):
 * io_uring then takes no reference on the file per request (fget()/fput()
 * were 1.4% of a verified random 4 KiB read's CPU time, docs/
 * PERFORMANCE.md).  0 or -errno (the table is full, or the kernel said
 * no): the fd still works unregistered.
 */
int vublk_queue_register_file(struct vublk_queue *q, int fd);
/*
 * Point sqe, prepared with fd, at fd's registered slot if it has one.
 */
void vublk_sqe_use_fixed_file(struct vublk_queue *q, struct io_uring_sqe *sqe,
			      int fd);

/*
 * Where the CQE of an SQE goes: the SQE's user_data points at a struct
 * vublk_ring_event (even-aligned: the core tags its own commands with an
 * odd user_data), whose done() gets the CQE on the queue's thread.  The
 * event must live until then.
 */
struct vublk_ring_event {
	void (*done)(struct vublk_queue *q, struct vublk_ring_event *ev,
		     const struct io_uring_cqe *cqe);
};

static inline void vublk_sqe_set_event(struct io_uring_sqe *sqe,
				       struct vublk_ring_event *ev)
{
	io_uring_sqe_set_data(sqe, ev);
}

/*
 * Reports (ops->report, and a backend's, which its target passes on):
 * named values that the core writes as members of one JSON object named
 * after the target (the stats file, `vublk list --json`) and as "name
 * value" pairs in the log line at stop.
 */
void vublk_stat_u64(struct vublk_stats_out *out, const char *name,
		    uint64_t value);
void vublk_stat_str(struct vublk_stats_out *out, const char *name,
		    const char *value);
void vublk_stat_bool(struct vublk_stats_out *out, const char *name,
		     bool value);

/*
 * What every owner of a target's parsed options does last, whether init
 * ran (and deinit since) or not: free_options, then the private data.
 */
static inline void vublk_tgt_free_priv(struct vublk_tgt *t)
{
	if (t->priv && t->ops->free_options)
		t->ops->free_options(t);
	free(t->priv);
	t->priv = NULL;
}

#endif /* VUBLK_TARGET_H */
