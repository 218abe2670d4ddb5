/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ring.h - a queue's io_uring, as the server (core/queue.c) and the
 * in-process harness (inproc/) both set it up and drive it (core/ring.c).
 *
 * One ring per queue thread.  Two kinds of user_data share it: the core's
 * own commands (FETCH/COMMIT, the stop poll), always odd, and pointers to
 * struct vublk_ring_event (target.h), always even, whose done() the CQE
 * goes to.
 *
 * No SQE shortage reaches anyone: when the submission queue is full,
 * vublk_ring_get_sqe() hands out a slot of a backlog that the next
 * vublk_ring_submit() moves into the ring, in order.  A ring of a few
 * entries therefore only means more submissions (tested with
 * VUBLK_TEST_RING_ENTRIES).
 */
#ifndef VUBLK_RING_H
#define VUBLK_RING_H

#include <liburing.h>
#include <stdbool.h>

#include "target.h"

/* Backing files a queue's ring can hold registered: a target's stores
 * (data, tree), with room to spare. */
#define VUBLK_RING_MAX_FILES 4

struct vublk_ring {
	struct io_uring ring;
	/* SQEs that found the submission queue full, oldest first. */
	struct io_uring_sqe *backlog;
	unsigned backlog_count, backlog_cap;
	/*
	 * The backlog could not grow (no memory): an SQE was lost, so the
	 * queue must stop; the device then stops and the kernel fails what
	 * was in flight rather than leaving a request waiting forever.
	 */
	bool broken;
	struct io_uring_sqe lost;	/* where such an SQE went */
	/* Files registered in the ring (vublk_queue_register_file()): fd
	 * files[i] is fixed file i. */
	int files[VUBLK_RING_MAX_FILES];
	unsigned nr_files;
	/* Request buffers registered as requests need them
	 * (vublk_ring_register_buffers()): per tag, the bytes registered
	 * from bufs + tag * buf_size (0: none); NULL without a table. */
	char *bufs;
	size_t buf_size;
	unsigned nr_bufs;
	uint32_t *buf_registered;
	bool bufs_refused;	/* a registration failed: no more tries */
};

/* SQEs a request is expected to use at once: the ring's sizing, not a
 * limit (a request may use more; they wait in the backlog). */
#define VUBLK_RING_SQES_PER_REQ 4

/*
 * The ring of a queue of depth tags: one command per tag, up to
 * VUBLK_RING_SQES_PER_REQ backend SQEs per request, a few spare; flags as
 * kublk sets them.  $VUBLK_TEST_RING_ENTRIES (tests only) forces another
 * size.  0 or -errno after one error line.
 */
int vublk_ring_init(struct vublk_ring *r, unsigned q_id, unsigned depth);
void vublk_ring_exit(struct vublk_ring *r);

/*
 * The request buffers of a queue whose target asked (register_buffers):
 * n tags' buffers of size bytes from bufs.  Sets up an empty table of n
 * slots, which pins nothing; a tag's buffer becomes slot tag the first
 * time a request needs it (vublk_ring_buffer_ready()).  0, or -errno
 * after an info line: the queue then runs without, its I/O pinning the
 * pages itself.
 */
int vublk_ring_register_buffers(struct vublk_ring *r, unsigned q_id,
				void *bufs, unsigned n, size_t size);

/*
 * Whether tag's buffer is registered for a request of len bytes,
 * registering it now if it is not: len rounded up to a power of two,
 * from 64 KiB to the whole buffer, so that what stays pinned is about
 * what requests touch anyway.  False without a table, and once
 * registering failed (said once; the slots registered stay in use).
 * On the queue's thread, for a request of that tag.
 */
bool vublk_ring_buffer_ready(struct vublk_ring *r, unsigned q_id,
			     unsigned tag, uint32_t len);

struct io_uring_sqe *vublk_ring_get_sqe(struct vublk_ring *r);

/*
 * Move the backlog into the ring and submit everything; then, if wait_nr,
 * wait for that many CQEs (at most *ts when ts is given: -ETIME).
 * Returns >= 0 or -errno (-EINTR, -EBUSY: try again after reaping).
 */
int vublk_ring_submit(struct vublk_ring *r, unsigned wait_nr,
		      struct __kernel_timespec *ts);

/* user_data of the core's own SQEs: odd. */
static inline bool vublk_ud_is_core(uint64_t ud)
{
	return ud & 1;
}

/* A CQE whose user_data is an event: to its owner. */
static inline void vublk_ring_event_done(struct vublk_queue *q,
					 const struct io_uring_cqe *cqe)
{
	struct vublk_ring_event *ev = io_uring_cqe_get_data(cqe);

	ev->done(q, ev, cqe);
}

#endif /* VUBLK_RING_H */
