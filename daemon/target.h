/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * target.h - the interface between the vublk core and its targets.
 *
 * A target (loop, verity, pmem) turns block requests into I/O on its
 * backing store.  It knows nothing of ublk: not the FETCH/COMMIT commands,
 * not the iod array, not the control plane.  The core hands it requests
 * that are already validated (daemon/ublk_validate.c: in range, length
 * fits the buffer, op known, writes only on a writable device), so a
 * target never re-checks them in its copy path.  Modelled on the kernel
 * selftest server's struct ublk_tgt_ops (tools/testing/selftests/ublk/
 * kublk.h).
 *
 * Threading: each queue runs in its own thread with its own io_uring.
 * queue_init, queue_io, io_done and queue_deinit for a queue run in that
 * queue's thread; init, deinit, parse_opt and stats_json run in the main
 * thread (stats_json while queues run: read shared counters atomically).
 *
 * Completion contract: for every request passed to queue_io, the target
 * calls vublk_complete_io() exactly once, after every SQE it issued for
 * that request has completed (its CQE was given to io_done).  It may do so
 * from queue_io itself (a synchronous target) or from io_done.  queue_io
 * may instead return a negative errno without calling vublk_complete_io():
 * the core then completes the request with that error.
 */
#ifndef VUBLK_TARGET_H
#define VUBLK_TARGET_H

#include <getopt.h>
#include <liburing.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

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

/* One validated block request.  offset and len are in bytes. */
struct vublk_req {
	unsigned op;		/* enum vublk_op */
	unsigned flags;		/* VUBLK_REQ_* */
	uint64_t offset;
	uint32_t len;		/* 0 for FLUSH */
	void *buf;		/* len bytes, page aligned; READ fills, WRITE reads */
};

struct vublk_tgt_ops;

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
	bool volatile_cache;		/* FLUSH and FUA are meaningful */
	bool discard;			/* DISCARD and WRITE_ZEROES supported */
	uint32_t discard_granularity;	/* bytes, when discard */

	/* Set by the core once ADD_DEV granted it (after init, before
	 * queue_init): the ublk device id, for the target's log lines. */
	unsigned dev_id;
};

/* A target's view of one queue. */
struct vublk_queue {
	struct vublk_tgt *tgt;
	unsigned q_id;
	unsigned depth;		/* tags are 0 .. depth - 1 */
	void *priv;		/* the target's, e.g. set by queue_init */
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
	/* Open the backing store and set the device shape; 0 or -errno
	 * after printing one error line.  deinit undoes it. */
	int (*init)(struct vublk_tgt *t);
	void (*deinit)(struct vublk_tgt *t);
	/* Optional per-queue state; queue_init returns 0 or -errno. */
	int (*queue_init)(struct vublk_queue *q);
	void (*queue_deinit)(struct vublk_queue *q);
	/* Start one request; see the completion contract above. */
	int (*queue_io)(struct vublk_queue *q, unsigned tag,
			const struct vublk_req *req);
	/* A CQE of an SQE the target tagged with vublk_tgt_user_data(). */
	void (*io_done)(struct vublk_queue *q, unsigned tag,
			const struct io_uring_cqe *cqe);
	/* Optional: write the target's counters as JSON members
	 * ("name": value, ...), each preceded by ", ". */
	void (*stats_json)(struct vublk_tgt *t, FILE *f);
};

/*
 * Services of the core (or of daemon/inproc_queue.c, for tests and tools).
 *
 * vublk_queue_get_sqe: an SQE on the queue's io_uring, never NULL while the
 * target keeps at most VUBLK_TGT_SQES_PER_REQ SQEs in flight per request.
 * The core submits it with the next batch.
 */
#define VUBLK_TGT_SQES_PER_REQ 4
struct io_uring_sqe *vublk_queue_get_sqe(struct vublk_queue *q);
/* Finish request tag: res = bytes done (READ/WRITE: req->len) or 0, or
 * -errno.  Exactly once per request. */
void vublk_complete_io(struct vublk_queue *q, unsigned tag, int res);

/*
 * user_data of target SQEs: bit 63 marks target I/O, so that the core
 * routes the CQE to ops->io_done; then the tag, a target-defined op and a
 * target-defined index (e.g. which part of a split request).
 */
#define VUBLK_UD_TGT_IO (1ULL << 63)

static inline uint64_t vublk_tgt_user_data(unsigned tag, unsigned tgt_op,
					   unsigned index)
{
	return VUBLK_UD_TGT_IO | (uint64_t)(tag & 0xffff) |
	       (uint64_t)(tgt_op & 0xff) << 16 |
	       (uint64_t)(index & 0xffffff) << 24;
}

static inline unsigned vublk_ud_tag(uint64_t ud) { return ud & 0xffff; }
static inline unsigned vublk_ud_tgt_op(uint64_t ud) { return (ud >> 16) & 0xff; }
static inline unsigned vublk_ud_index(uint64_t ud) { return (ud >> 24) & 0xffffff; }
static inline bool vublk_ud_is_tgt_io(uint64_t ud) { return ud & VUBLK_UD_TGT_IO; }

/*
 * Logging, for the core and targets: one line "vublk: ..." on stderr
 * (the terminal, or the server's log file once detached).  vublk_error()
 * lines also reach the `vublk add` that started a server that is still
 * starting up.
 */
void vublk_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void vublk_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Parse a whole decimal (or 0x hex) number in [min, max] into *out; on
 * failure print "bad WHAT value 'S': expected ..." and return -EINVAL.
 */
int vublk_parse_u64(const char *what, const char *s, uint64_t min,
		    uint64_t max, uint64_t *out);

#endif /* VUBLK_TARGET_H */
