// SPDX-License-Identifier: GPL-2.0-only
/*
 * ring.c - a queue's io_uring: set-up, SQEs without shortage, submission.
 *
 * Shared by the server's queue threads (queue.c) and the in-process
 * harness (inproc/), so that host tests run the ring exactly as
 * production does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "ring.h"

/* Backlog slots allocated up front; it doubles when a burst needs more. */
#define VUBLK_RING_BACKLOG_MIN 64

static unsigned vublk_ring_entries(unsigned depth)
{
	const char *forced = getenv("VUBLK_TEST_RING_ENTRIES");
	uint64_t n;

	if (forced && *forced &&
	    vublk_parse_u64("VUBLK_TEST_RING_ENTRIES", forced, 1, 32768,
			    &n) == 0)
		return (unsigned)n;
	return depth * (1 + VUBLK_RING_SQES_PER_REQ) + 8;
}

int vublk_ring_init(struct vublk_ring *r, unsigned q_id, unsigned depth)
{
	struct io_uring_params p = {
		/* One issuer (the queue's thread); no IPI for task work:
		 * completions are reaped when we wait anyway (kublk sets
		 * the same). */
		.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN,
	};
	unsigned entries = vublk_ring_entries(depth);
	int ret;

	memset(r, 0, sizeof(*r));
	r->backlog_cap = VUBLK_RING_BACKLOG_MIN;
	r->backlog = calloc(r->backlog_cap, sizeof(*r->backlog));
	if (!r->backlog) {
		vublk_error("queue %u: no memory for its ring", q_id);
		return -ENOMEM;
	}
	ret = io_uring_queue_init_params(entries, &r->ring, &p);
	if (ret < 0) {
		vublk_error("queue %u: cannot create an io_uring of %u entries: %s",
			    q_id, entries, strerror(-ret));
		free(r->backlog);
		r->backlog = NULL;
	}
	return ret;
}

void vublk_ring_exit(struct vublk_ring *r)
{
	io_uring_queue_exit(&r->ring);
	free(r->backlog);
	r->backlog = NULL;
	free(r->buf_registered);
	r->buf_registered = NULL;
}

int vublk_ring_register_buffers(struct vublk_ring *r, unsigned q_id,
				void *bufs, unsigned n, size_t size)
{
	/* An empty table pins nothing (io_uring rsrc.c: a sparse slot). */
	int ret = io_uring_register_buffers_sparse(&r->ring, n);

	r->buf_registered = ret ? NULL : calloc(n, sizeof(*r->buf_registered));
	if (!ret && !r->buf_registered)
		ret = -ENOMEM;
	if (ret) {
		vublk_info("queue %u: no io_uring table for its request buffers (%s): each direct I/O pins its pages",
			   q_id, strerror(-ret));
		return ret;
	}
	r->bufs = bufs;
	r->buf_size = size;
	r->nr_bufs = n;
	return 0;
}

/* What to register for a request of len bytes: len rounded up to a power
 * of two, from 64 KiB to the whole buffer, so that a tag's buffer grows
 * at most a few times. */
static size_t vublk_ring_buffer_span(const struct vublk_ring *r, uint32_t len)
{
	size_t span = 64 * 1024;

	while (span < len)
		span *= 2;
	return span < r->buf_size ? span : r->buf_size;
}

bool vublk_ring_buffer_ready(struct vublk_ring *r, unsigned q_id,
			     unsigned tag, uint32_t len)
{
	struct iovec iov;
	int ret;

	if (!r->buf_registered || tag >= r->nr_bufs || len > r->buf_size)
		return false;
	if (r->buf_registered[tag] >= len)
		return true;
	if (r->bufs_refused)
		return false;
	/*
	 * Replacing slot tag is safe: a tag's request is its only one, and
	 * no target ends one before its backend I/O has (so nothing in
	 * flight uses the slot); were one still queued, io_uring holds the
	 * old buffer for a request that looked it up, and one that did not
	 * finds the same start, only longer (a slot grows, never moves).
	 * The pages count against RLIMIT_MEMLOCK without CAP_IPC_LOCK
	 * (io_account_mem()).  A failure is said once per queue; the slots
	 * registered stay in use.
	 */
	iov = (struct iovec){ r->bufs + (size_t)tag * r->buf_size,
			      vublk_ring_buffer_span(r, len) };
	ret = io_uring_register_buffers_update_tag(&r->ring, tag, &iov, NULL,
						   1);
	if (ret < 0) {
		vublk_info("queue %u: cannot register a request buffer of %zu bytes with io_uring (%s): direct I/O pins its pages itself from now on%s",
			   q_id, iov.iov_len, strerror(-ret),
			   ret == -ENOMEM ? " (raise RLIMIT_MEMLOCK, LimitMEMLOCK= in a unit, to register them)" : "");
		r->bufs_refused = true;
		return false;
	}
	r->buf_registered[tag] = (uint32_t)iov.iov_len;
	return true;
}

/* A backlog slot, zeroed as a ring SQE's fields are by the prep helpers. */
static struct io_uring_sqe *vublk_ring_backlog_slot(struct vublk_ring *r)
{
	struct io_uring_sqe *grown;

	if (r->backlog_count == r->backlog_cap) {
		grown = realloc(r->backlog,
				2 * r->backlog_cap * sizeof(*r->backlog));
		if (!grown) {
			if (!r->broken)
				vublk_error("no memory to queue an io_uring request: stopping the queue");
			r->broken = true;
			return memset(&r->lost, 0, sizeof(r->lost));
		}
		r->backlog = grown;
		r->backlog_cap *= 2;
	}
	return memset(&r->backlog[r->backlog_count++], 0,
		      sizeof(*r->backlog));
}

/*
 * A full submission queue sends the SQE to the backlog, which the queue's
 * next vublk_ring_submit() empties: one path for every shortage, whatever
 * its cause (a burst, or a submission the kernel could not take), and no
 * system call in the middle of handling a CQE.
 */
struct io_uring_sqe *vublk_ring_get_sqe(struct vublk_ring *r)
{
	struct io_uring_sqe *sqe;

	/* Behind a backlog, a new SQE waits its turn: order is kept. */
	if (r->backlog_count)
		return vublk_ring_backlog_slot(r);
	sqe = io_uring_get_sqe(&r->ring);
	return sqe ? sqe : vublk_ring_backlog_slot(r);
}

struct io_uring_sqe *vublk_queue_get_sqe(struct vublk_queue *q)
{
	return vublk_ring_get_sqe(q->ring);
}

int vublk_queue_register_file(struct vublk_queue *q, int fd)
{
	struct vublk_ring *r = q->ring;
	int ret;

	if (r->nr_files == VUBLK_RING_MAX_FILES)
		return -ENFILE;
	if (!r->nr_files) {
		ret = io_uring_register_files_sparse(&r->ring,
						     VUBLK_RING_MAX_FILES);
		if (ret)
			return ret;
	}
	ret = io_uring_register_files_update(&r->ring, r->nr_files, &fd, 1);
	if (ret < 0)
		return ret;
	r->files[r->nr_files++] = fd;
	return 0;
}

void vublk_sqe_use_fixed_file(struct vublk_queue *q, struct io_uring_sqe *sqe,
			      int fd)
{
	const struct vublk_ring *r = q->ring;

	for (unsigned i = 0; i < r->nr_files; i++) {
		if (r->files[i] == fd) {
			sqe->fd = (int)i;
			sqe->flags |= IOSQE_FIXED_FILE;
			return;
		}
	}
}

/* As much of the backlog as the submission queue has room for. */
static void vublk_ring_move_backlog(struct vublk_ring *r)
{
	struct io_uring_sqe *sqe;
	unsigned n = 0;

	while (n < r->backlog_count && (sqe = io_uring_get_sqe(&r->ring)))
		*sqe = r->backlog[n++];
	r->backlog_count -= n;
	memmove(r->backlog, r->backlog + n,
		r->backlog_count * sizeof(*r->backlog));
}

int vublk_ring_submit(struct vublk_ring *r, unsigned wait_nr,
		      struct __kernel_timespec *ts)
{
	struct io_uring_cqe *cqe;
	int ret;

	for (;;) {
		vublk_ring_move_backlog(r);
		if (!r->backlog_count)
			break;
		/* A full submission queue is consumed whole (a failing
		 * SQE too: it completes with its error), so this ends. */
		ret = io_uring_submit(&r->ring);
		if (ret <= 0)
			return ret < 0 ? ret : -EBUSY;
	}
	if (!wait_nr)
		return io_uring_submit(&r->ring);
	if (ts)
		return io_uring_submit_and_wait_timeout(&r->ring, &cqe, wait_nr,
							ts, NULL);
	return io_uring_submit_and_wait(&r->ring, wait_nr);
}
