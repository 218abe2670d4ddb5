// SPDX-License-Identifier: GPL-2.0-only
/*
 * inproc_queue.c - the core's queue services without ublk (see the header).
 *
 * Like core/queue.c, every CQE is an event of a backend and goes to its
 * owner; a completion is recorded (result, count, FIFO of finished tags)
 * instead of being committed to the driver.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inproc_queue.h"
#include "stats.h"

/* No CQE for this long while requests are in flight: the target hung. */
#define INPROC_QUEUE_STALL_S 60

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/* vublk_tgt_stop() calls, by target: tests check them. */
struct inproc_stop {
	const struct vublk_tgt *tgt;
	struct inproc_stop *next;
};

static struct inproc_stop *inproc_stops;

void vublk_tgt_stop(struct vublk_tgt *t)
{
	struct inproc_stop *s;

	if (inproc_tgt_stop_requested(t))
		return;
	s = malloc(sizeof(*s));
	if (!s)
		abort();	/* a test harness: fail loudly */
	*s = (struct inproc_stop){ .tgt = t, .next = inproc_stops };
	inproc_stops = s;
}

/* A target's requests end with its queue (the next one may reuse the
 * address). */
static void inproc_forget_stops(const struct vublk_tgt *t)
{
	struct inproc_stop **p = &inproc_stops, *s;

	while ((s = *p)) {
		if (s->tgt == t) {
			*p = s->next;
			free(s);
		} else {
			p = &s->next;
		}
	}
}

bool inproc_tgt_stop_requested(const struct vublk_tgt *tgt)
{
	for (const struct inproc_stop *s = inproc_stops; s; s = s->next)
		if (s->tgt == tgt)
			return true;
	return false;
}

void vublk_complete_io(struct vublk_queue *q, unsigned tag, int res)
{
	struct inproc_queue *iq = container_of(q, struct inproc_queue, q);
	unsigned slot = iq->done_head + iq->done_count;

	iq->res[tag] = res;
	iq->completions[tag]++;
	iq->in_flight--;
	/* A tag is in the FIFO at most once while the caller follows the
	 * contract (restart a tag only after popping it), so depth slots
	 * suffice; a target that completes twice shows up in completions. */
	if (iq->done_count < q->depth) {
		/* A ring: wrap without a division, which vublk-bench would
		 * charge to the target on every request. */
		if (slot >= q->depth)
			slot -= q->depth;
		iq->done_fifo[slot] = tag;
		iq->done_count++;
	}
}

static void inproc_queue_free(struct inproc_queue *iq)
{
	free(iq->res);
	free(iq->completions);
	free(iq->done_fifo);
}

int inproc_queue_init(struct inproc_queue *iq, struct vublk_tgt *tgt,
		      unsigned q_id, unsigned depth)
{
	int ret;

	memset(iq, 0, sizeof(*iq));
	iq->q = (struct vublk_queue){ .tgt = tgt, .q_id = q_id,
				      .depth = depth };
	iq->res = calloc(depth, sizeof(*iq->res));
	iq->completions = calloc(depth, sizeof(*iq->completions));
	iq->done_fifo = calloc(depth, sizeof(*iq->done_fifo));
	if (!iq->res || !iq->completions || !iq->done_fifo) {
		inproc_queue_free(iq);
		return -ENOMEM;
	}
	ret = vublk_ring_init(&iq->ring, q_id, depth);
	if (ret < 0) {
		inproc_queue_free(iq);
		return ret;
	}
	iq->q.ring = &iq->ring;
	ret = tgt->ops->queue_init(&iq->q);
	if (ret < 0) {
		vublk_ring_exit(&iq->ring);
		inproc_queue_free(iq);
	}
	return ret;
}

void inproc_queue_exit(struct inproc_queue *iq)
{
	iq->q.tgt->ops->queue_deinit(&iq->q);
	inproc_forget_stops(iq->q.tgt);
	vublk_ring_exit(&iq->ring);
	inproc_queue_free(iq);
}

void inproc_queue_set_buffers(struct inproc_queue *iq, void *bufs,
			      size_t buf_size)
{
	if (iq->q.tgt->register_buffers)
		vublk_ring_register_buffers(&iq->ring, iq->q.q_id, bufs,
					    iq->q.depth, buf_size);
}

/* req in its tag's buffer, registered (as core/queue.c dispatches). */
static bool inproc_in_registered_buffer(struct inproc_queue *iq,
					unsigned tag,
					const struct vublk_req *req)
{
	struct vublk_ring *r = &iq->ring;

	return r->bufs && req->buf == r->bufs + tag * r->buf_size &&
	       vublk_req_has_data(req) &&
	       vublk_ring_buffer_ready(r, iq->q.q_id, tag, req->len);
}

void inproc_queue_start(struct inproc_queue *iq, unsigned tag,
			const struct vublk_req *req)
{
	struct vublk_req reg;
	int ret;

	if (inproc_in_registered_buffer(iq, tag, req)) {
		reg = *req;
		reg.flags |= VUBLK_REQ_REG_BUF;
		reg.buf_index = tag;
		req = &reg;
	}
	iq->in_flight++;
	ret = iq->q.tgt->ops->queue_io(&iq->q, tag, req);
	if (ret != VUBLK_IO_QUEUED)
		vublk_complete_io(&iq->q, tag, ret);
}

int inproc_queue_reap(struct inproc_queue *iq)
{
	/* A target that leaves a request without any I/O in flight would
	 * make us wait forever: give up, so that a test fails instead of
	 * hanging. */
	struct __kernel_timespec limit = { .tv_sec = INPROC_QUEUE_STALL_S };
	void (*batch_end)(struct vublk_queue *) = iq->q.tgt->ops->queue_batch_end;
	struct io_uring_cqe *cqe;
	int ret;

	/* The requests started since the last pass end a batch too (as
	 * the core's dispatch happens within its pass). */
	if (batch_end)
		batch_end(&iq->q);
	ret = vublk_ring_submit(&iq->ring, iq->in_flight ? 1 : 0,
				iq->in_flight ? &limit : NULL);
	if (ret == -ETIME)
		return -ETIMEDOUT;
	if (ret < 0 && ret != -EINTR)
		return ret;
	while (io_uring_peek_cqe(&iq->ring.ring, &cqe) == 0) {
		/* Copy and release first: the owner may queue new SQEs. */
		struct io_uring_cqe copy = *cqe;

		io_uring_cqe_seen(&iq->ring.ring, cqe);
		if (vublk_ud_is_core(copy.user_data))
			return -EPROTO;
		vublk_ring_event_done(&iq->q, &copy);
	}
	if (batch_end)
		batch_end(&iq->q);
	return iq->ring.broken ? -ENOMEM : 0;
}

bool inproc_queue_pop(struct inproc_queue *iq, unsigned *tag, int *res)
{
	if (!iq->done_count)
		return false;
	*tag = iq->done_fifo[iq->done_head];
	*res = iq->res[*tag];
	if (++iq->done_head == iq->q.depth)
		iq->done_head = 0;
	iq->done_count--;
	return true;
}

int inproc_queue_wait_all(struct inproc_queue *iq)
{
	int ret;

	while (iq->in_flight) {
		ret = inproc_queue_reap(iq);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int inproc_queue_run(struct inproc_queue *iq, unsigned tag,
		     const struct vublk_req *req)
{
	unsigned done;
	int ret, res;

	inproc_queue_start(iq, tag, req);
	ret = inproc_queue_wait_all(iq);
	if (ret < 0)
		return ret;
	while (inproc_queue_pop(iq, &done, &res))
		;	/* only tag ran; drain the FIFO for the next run */
	return iq->res[tag];
}

char *inproc_tgt_stats(struct vublk_tgt *tgt)
{
	struct vublk_stats_out out = { .json = true, .first = true };
	char *text = NULL;
	size_t size = 0;

	if (!tgt->ops->report)
		return NULL;
	out.f = open_memstream(&text, &size);
	if (!out.f)
		return NULL;
	fputc('{', out.f);
	vublk_stats_target(&out, tgt);
	fputc('}', out.f);
	if (fclose(out.f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* In a report's text, where the value of "name" starts (inside the
 * quotes of a string when quoted), or NULL. */
static const char *inproc_stats_find(const char *text, const char *name,
				     bool quoted)
{
	char key[80];
	const char *p;

	snprintf(key, sizeof(key), "\"%s\": %s", name, quoted ? "\"" : "");
	p = strstr(text, key);
	return p ? p + strlen(key) : NULL;
}

uint64_t inproc_tgt_counter(struct vublk_tgt *tgt, const char *name)
{
	char *text = inproc_tgt_stats(tgt), *end;
	const char *p = text ? inproc_stats_find(text, name, false) : NULL;
	uint64_t v = UINT64_MAX;

	if (p) {
		v = strtoull(p, &end, 10);
		if (end == p)
			v = UINT64_MAX;
	}
	free(text);
	return v;
}

void inproc_tgt_setting(struct vublk_tgt *tgt, const char *name, char *value,
			size_t len)
{
	char *text = inproc_tgt_stats(tgt);
	const char *p = text ? inproc_stats_find(text, name, true) : NULL;

	snprintf(value, len, "%.*s", p ? (int)strcspn(p, "\"") : 1,
		 p ? p : "?");
	free(text);
}
