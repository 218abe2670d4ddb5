// SPDX-License-Identifier: GPL-2.0-only
/*
 * verity_worker.c - --verify-thread: a queue's hashing on a thread of its
 * own, so that the queue receives the next request's data while the last
 * one's is hashed.
 *
 * By default a queue verifies on its own thread, at the end of its pass
 * over the completions (verity_read.c).  A sequential reader's requests
 * all reach one queue (blk-mq maps the submitting CPU to it), so that
 * receiving, hashing and completing its data take turns on one CPU.
 * dm-verity does not serialize them: nbd's receive worker (an unbound
 * work item, drivers/block/nbd.c: recv_work()) completes a bio, and
 * verity_end_io() queues its verification on kverityd, which hashes it
 * while the receive worker goes on with the next reply
 * (drivers/md/dm-verity-target.c).  In a 2-vCPU guest reading over NBD,
 * perf sees dm-verity hash on both CPUs (docs/PERFORMANCE.md).
 *
 * This is that workqueue for one queue: one batch at a time goes to the
 * thread, which calls merkle_verify_many() (safe from several threads at
 * once: merkle.h) and answers through an eventfd that the queue's ring
 * polls, so that the answer is read as any other completion, on the
 * queue's thread.  The requests of a batch are the thread's until then:
 * the queue touches neither their buffers nor the batch's ranges.  Only
 * a batch of readahead size goes to the thread; a few random reads are
 * hashed at once on the queue's (verity_read.c), where the hand-off
 * would only add its two wakeups to their latency.  A batch that is
 * ready while the thread holds one is hashed on the queue's thread, so
 * that where hashing is the bottleneck two CPUs share it, as kverityd's
 * work items run side by side.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "log.h"
#include "verity.h"

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

struct verity_worker {
	struct vublk_queue *q;
	struct merkle_tree *tree;
	verity_worker_done_fn done;
	pthread_t thread;
	int efd;			/* the thread's answer: count 1 */
	struct vublk_ring_event ev;	/* the ring's poll on it */
	bool busy;			/* a batch is with the thread */

	pthread_mutex_t lock;		/* guards what follows */
	pthread_cond_t wake;
	bool has_batch, stop;
	struct merkle_verify_req *reqs;
	unsigned n;
	int err;			/* merkle_verify_many()'s */
};

/* write(2) to an eventfd fails only for a short buffer or a count at its
 * limit (eventfd(2)); the count here is at most 1. */
static void verity_worker_signal(struct verity_worker *w)
{
	uint64_t one = 1;
	ssize_t n;

	do
		n = write(w->efd, &one, sizeof(one));
	while (n < 0 && errno == EINTR);
	if (n != sizeof(one))
		vublk_error("queue %u: verify thread: cannot signal its queue: %s",
			    w->q->q_id, n < 0 ? strerror(errno) : "short write");
}

static void *verity_worker_main(void *arg)
{
	struct verity_worker *w = arg;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		struct merkle_verify_req *reqs;
		unsigned n;
		int err;

		while (!w->has_batch && !w->stop)
			pthread_cond_wait(&w->wake, &w->lock);
		if (w->stop)
			break;
		reqs = w->reqs;
		n = w->n;
		pthread_mutex_unlock(&w->lock);
		err = merkle_verify_many(w->tree, reqs, n);
		pthread_mutex_lock(&w->lock);
		w->err = err;
		w->has_batch = false;
		verity_worker_signal(w);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

static void verity_worker_arm(struct verity_worker *w)
{
	struct io_uring_sqe *sqe = vublk_queue_get_sqe(w->q);

	io_uring_prep_poll_add(sqe, w->efd, POLLIN);
	vublk_sqe_set_event(sqe, &w->ev);
}

/* The ring's poll answered: the thread is done with its batch. */
static void verity_worker_answered(struct vublk_queue *q,
				   struct vublk_ring_event *ev,
				   const struct io_uring_cqe *cqe)
{
	struct verity_worker *w = container_of(ev, struct verity_worker, ev);
	uint64_t count;
	bool done;
	int err;

	(void)cqe;
	if (read(w->efd, &count, sizeof(count)) < 0 && errno != EAGAIN)
		vublk_error("queue %u: verify thread: reading its eventfd: %s",
			    q->q_id, strerror(errno));
	verity_worker_arm(w);
	pthread_mutex_lock(&w->lock);
	done = w->busy && !w->has_batch;
	err = w->err;
	pthread_mutex_unlock(&w->lock);
	if (!done)
		return;
	w->busy = false;
	w->done(q, err);
}

int verity_worker_start(struct vublk_queue *q, struct merkle_tree *tree,
			verity_worker_done_fn done, struct verity_worker **out)
{
	struct verity_worker *w = calloc(1, sizeof(*w));
	char name[16];
	int ret;

	if (!w)
		return -ENOMEM;
	*w = (struct verity_worker){
		.q = q,
		.tree = tree,
		.done = done,
		.ev.done = verity_worker_answered,
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.wake = PTHREAD_COND_INITIALIZER,
	};
	w->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->efd < 0) {
		ret = -errno;
		free(w);
		vublk_error("queue %u: verify thread: eventfd: %s", q->q_id,
			    strerror(-ret));
		return ret;
	}
	ret = -pthread_create(&w->thread, NULL, verity_worker_main, w);
	if (ret) {
		vublk_error("queue %u: cannot start its verify thread: %s",
			    q->q_id, strerror(-ret));
		close(w->efd);
		free(w);
		return ret;
	}
	/* For top and perf (a name is at most 15 characters); without it
	 * the thread is still the queue's verifier. */
	snprintf(name, sizeof(name), "vublk-verify%u", q->q_id % 100);
	(void)pthread_setname_np(w->thread, name);
	verity_worker_arm(w);
	*out = w;
	return 0;
}

void verity_worker_submit(struct verity_worker *w,
			  struct merkle_verify_req *reqs, unsigned n)
{
	pthread_mutex_lock(&w->lock);
	w->reqs = reqs;
	w->n = n;
	w->has_batch = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	w->busy = true;
}

/* No batch is left (the queue waited for every request); the ring, which
 * still polls the eventfd, closes after this. */
void verity_worker_stop(struct verity_worker *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	close(w->efd);
	free(w);
}
