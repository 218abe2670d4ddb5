/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * inproc_queue.h - run a target's queue in-process, without ublk.
 *
 * Provides the core's services to targets (vublk_complete_io() and
 * vublk_tgt_stop() of target.h) over the same ring as the server's
 * queues (core/ring.c, set up the same way), and routes the backends'
 * CQEs exactly as core/queue.c does.  Requests come from the caller
 * instead of the kernel: host tests start one and wait for it,
 * vublk-bench keeps a queue full.  Because it defines the core's service
 * functions, a program links either this or the core (vublk_core), never
 * both.
 *
 * One struct inproc_queue is one queue: use it from one thread.
 */
#ifndef VUBLK_INPROC_QUEUE_H
#define VUBLK_INPROC_QUEUE_H

#include "ring.h"
#include "target.h"

struct inproc_queue {
	struct vublk_queue q;		/* what the target sees */
	struct vublk_ring ring;
	int *res;			/* per tag: the last completion result */
	unsigned *completions;		/* per tag: vublk_complete_io calls */
	unsigned in_flight;		/* requests started, not completed */
	/* Tags completed since the last inproc_queue_pop(), in order. */
	unsigned *done_fifo;
	unsigned done_head, done_count;
};

/*
 * Set up queue q_id with depth tags for an initialised target (ops->init
 * done) and run its queue_init.  0 or -errno; on failure nothing is left
 * to release.
 */
int inproc_queue_init(struct inproc_queue *iq, struct vublk_tgt *tgt,
		      unsigned q_id, unsigned depth);
/* Run queue_deinit and free the queue; no request may be in flight.
 * Forgets the target's stop requests. */
void inproc_queue_exit(struct inproc_queue *iq);

/*
 * The caller's request buffers: tag t's is buf_size bytes at bufs + t *
 * buf_size.  Registered with the ring as the core's are, where the
 * target asks (register_buffers): a READ or WRITE whose buf is its tag's
 * buffer then comes VUBLK_REQ_REG_BUF.  They must outlive the queue.
 */
void inproc_queue_set_buffers(struct inproc_queue *iq, void *bufs,
			      size_t buf_size);
/* Start req on a free tag, as the core's dispatch does. */
void inproc_queue_start(struct inproc_queue *iq, unsigned tag,
			const struct vublk_req *req);
/*
 * Submit pending SQEs, wait for at least one CQE (if any request is in
 * flight) and hand every available CQE to its owner.  0 or -errno
 * (-EPROTO: a CQE that is not an event, i.e. a mis-tagged SQE).
 */
int inproc_queue_reap(struct inproc_queue *iq);
/* Next completed tag (oldest first) with its result; false if none. */
bool inproc_queue_pop(struct inproc_queue *iq, unsigned *tag, int *res);
/* Reap until no request is in flight; 0 or -errno. */
int inproc_queue_wait_all(struct inproc_queue *iq);
/* Start one request on tag, wait for it, return its result. */
int inproc_queue_run(struct inproc_queue *iq, unsigned tag,
		     const struct vublk_req *req);

/* Whether the target asked to stop its device (vublk_tgt_stop()) since
 * its queue was set up. */
bool inproc_tgt_stop_requested(const struct vublk_tgt *tgt);

/*
 * The target's report as JSON (what `vublk list --json` shows under the
 * target's name), malloc'd for the caller to free; NULL if the target has
 * no report or the text could not be made.  For host tests and
 * vublk-bench.
 */
char *inproc_tgt_stats(struct vublk_tgt *tgt);
/*
 * The counter 'name' of that text ("name": N), or UINT64_MAX when there is
 * no counter by that name (or no number after it).
 */
uint64_t inproc_tgt_counter(struct vublk_tgt *tgt, const char *name);
/* The setting 'name' of that text ("name": "value") into value, cut to
 * len bytes; "?" when there is none. */
void inproc_tgt_setting(struct vublk_tgt *tgt, const char *name, char *value,
			size_t len);

#endif /* VUBLK_INPROC_QUEUE_H */
