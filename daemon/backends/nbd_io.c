// SPDX-License-Identifier: GPL-2.0-only
/*
 * nbd_io.c - a queue's bios as NBD commands, on the queue's own
 * connection, and what happens when the server goes away.
 *
 * A bio becomes one NBD command (READ and WRITE are split at the
 * server's maximum block size), sent at once when the queue is connected,
 * else kept until it is.  libnbd answers each command through
 * nbd_cmd_done(), inside one of our calls into it; that only notes the
 * answer, and the bio is finished (end_io) afterwards, from the queue's
 * ring: never inside a target's submit.
 *
 * Faults, with one bounded policy (--retry=N, --timeout=SECONDS):
 *  - The connection goes away (EOF, reset, an error libnbd cannot get
 *    past, or ESHUTDOWN from a server that is stopping): every bio in
 *    flight on it is sent again on a new connection, each at most N more
 *    times.  Reconnecting starts at once, then backs off from 100 ms to
 *    2 s while it fails; a queue with nothing to send does not reconnect
 *    until it has.
 *  - A bio not answered SECONDS after it arrived fails with EIO, whether
 *    it waits for a connection or for the server's answer.  A command
 *    cannot be taken back from NBD (there is no abort), and its buffer is
 *    libnbd's until it is answered, so an answer that is late closes the
 *    connection: the kernel's nbd driver does the same on a timeout
 *    (drivers/block/nbd.c: nbd_xmit_timeout() shuts the socket down).
 *    The other bios of that connection are sent again.
 *  - An error the server answers (EIO from a bad disk, ENOSPC, EPERM...)
 *    is the bio's result, logged with the URI and the range: not retried,
 *    as the kernel's nbd driver does not retry one.
 *  - An operation the export lacks gets what a file that lacks it gets:
 *    DISCARD and WRITE_ZEROES -EOPNOTSUPP, FLUSH succeeds when the server
 *    has no cache to flush, and FUA is a write then a FLUSH when the
 *    server flushes but has no FUA (what the block layer's flush state
 *    machine does for a disk without FUA, block/blk-flush.c).
 *
 * A write acknowledged to the kernel was acknowledged by the server.  One
 * acknowledged into the server's cache (no FUA) and lost with a
 * connection before any FLUSH covered it may be gone with a server that
 * crashed, and a FLUSH sent later on a new connection cannot tell: so the
 * next FLUSH after such a loss fails with EIO (once), and the filesystem
 * learns its data may not be stable, as it would from a disk that lost
 * its cache.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nbd.h"

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/* While anything waits: how often deadlines and reconnections are due. */
#define NBD_TICK_MS 100
#define NBD_BACKOFF_MIN_MS 100
#define NBD_BACKOFF_MAX_MS 2000
/* Log lines per queue and second, then a count of the ones dropped. */
#define NBD_LOG_LINES_PER_SEC 5

static const char *const nbd_op_names[] = {
	[VUBLK_OP_READ] = "READ",
	[VUBLK_OP_WRITE] = "WRITE",
	[VUBLK_OP_FLUSH] = "FLUSH",
	[VUBLK_OP_DISCARD] = "DISCARD",
	[VUBLK_OP_WRITE_ZEROES] = "WRITE_ZEROES",
};

static void nbd_count(atomic_uint_fast64_t *c)
{
	atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
}

/* ---- lists of bios, in deadline order ---- */

static bool nbd_list_empty(const struct nbd_bio_list *l)
{
	return !l->head;
}

static void nbd_list_remove(struct nbd_bio_list *l, struct vublk_bio *bio)
{
	if (bio->prev)
		bio->prev->next = bio->next;
	else
		l->head = bio->next;
	if (bio->next)
		bio->next->prev = bio->prev;
	else
		l->tail = bio->prev;
	bio->next = bio->prev = NULL;
}

static struct vublk_bio *nbd_list_pop(struct nbd_bio_list *l)
{
	struct vublk_bio *bio = l->head;

	if (bio)
		nbd_list_remove(l, bio);
	return bio;
}

/* Where a new bio goes is the tail (deadlines grow with arrival); a
 * resent one walks back to its place. */
static void nbd_list_insert(struct nbd_bio_list *l, struct vublk_bio *bio)
{
	struct vublk_bio *after = l->tail;

	while (after && after->deadline_ns > bio->deadline_ns)
		after = after->prev;
	bio->prev = after;
	bio->next = after ? after->next : l->head;
	if (bio->next)
		bio->next->prev = bio;
	else
		l->tail = bio;
	if (after)
		after->next = bio;
	else
		l->head = bio;
}

/* ---- log lines, a few a second per queue ---- */

static bool nbd_log_allowed(struct nbd_queue *nq)
{
	time_t now = time(NULL);

	if (now != nq->log_second) {
		if (nq->log_suppressed)
			vublk_error("nbd %s: queue %u: %" PRIu64 " more messages suppressed",
				    nq->nb->uri, nq->q->q_id,
				    nq->log_suppressed);
		nq->log_second = now;
		nq->log_lines = 0;
		nq->log_suppressed = 0;
	}
	if (nq->log_lines < NBD_LOG_LINES_PER_SEC) {
		nq->log_lines++;
		return true;
	}
	nq->log_suppressed++;
	return false;
}

/* ---- ring events: the tick, the kick ---- */

static void nbd_queue_arm_tick(struct nbd_queue *nq)
{
	struct io_uring_sqe *sqe;
	bool waiting = !nbd_list_empty(&nq->waiting) ||
		       !nbd_list_empty(&nq->in_flight) ||
		       (nq->conn && !nq->conn->ready);

	if (nq->tick_armed || !waiting)
		return;
	nq->tick_ts = (struct __kernel_timespec){
		.tv_nsec = NBD_TICK_MS * 1000000LL,
	};
	sqe = vublk_queue_get_sqe(nq->q);
	io_uring_prep_timeout(sqe, &nq->tick_ts, 0, 0);
	vublk_sqe_set_event(sqe, &nq->tick_ev);
	nq->tick_armed = true;
}

/* Run the queue from its ring soon: answers found inside a target's
 * submit are finished there, not in the middle of the target's call. */
static void nbd_queue_kick(struct nbd_queue *nq)
{
	struct io_uring_sqe *sqe;

	if (nq->kick_armed)
		return;
	sqe = vublk_queue_get_sqe(nq->q);
	io_uring_prep_nop(sqe);
	vublk_sqe_set_event(sqe, &nq->kick_ev);
	nq->kick_armed = true;
}

/* ---- commands ---- */

/*
 * The errors an NBD server answers with (the protocol's NBD_EPERM ...
 * NBD_EOVERFLOW, as libnbd maps them to errno).  Anything else the
 * completion reports (ENOTCONN for a command libnbd aborted because the
 * connection died, a protocol error) means the connection failed, and
 * so does ESHUTDOWN: the server is stopping and asks to be asked again.
 */
static bool nbd_error_is_answer(int err)
{
	switch (err) {
	case EPERM: case EIO: case ENOMEM: case EINVAL: case ENOSPC:
	case EOVERFLOW: case EOPNOTSUPP:
		return true;
	default:
		return false;
	}
}

/*
 * Writes the server acknowledged into its cache (no FUA), numbered, the
 * connection's last one remembered: they are at risk until a FLUSH
 * covers them (see the top of the file).
 */
static void nbd_bio_acked(struct nbd_queue *nq, const struct vublk_bio *bio)
{
	struct nbd_backend *nb = nq->nb;

	if (bio->req.op == VUBLK_OP_READ || bio->req.op == VUBLK_OP_FLUSH ||
	    !nb->can_flush || ((bio->req.flags & VUBLK_REQ_FUA) && nb->can_fua))
		return;
	nq->conn->last_write_ack = atomic_fetch_add(&nb->write_acks, 1) + 1;
}

/* One reference of bio dropped: a command answered, or its sender done
 * issuing.  The last one moves it to the answered list; a bio answered
 * whole and well was answered by the queue's connection. */
static void nbd_bio_put(struct nbd_queue *nq, struct vublk_bio *bio)
{
	if (--bio->parts)
		return;
	if (!bio->lost && !bio->res && bio->done != bio->req.len)
		nbd_bio_acked(nq, bio);
	nbd_list_remove(&nq->in_flight, bio);
	bio->prev = nq->answered.tail;
	if (bio->prev)
		bio->prev->next = bio;
	else
		nq->answered.head = bio;
	nq->answered.tail = bio;
}

/*
 * libnbd's completion callback (its lock held: no nbd_* call here).  It
 * retires the command (returns 1: nothing will ask for it), except one
 * answered while libnbd is still queueing it: see nbd_issue().
 */
static int nbd_cmd_done(void *user_data, int *error)
{
	struct vublk_bio *bio = user_data;
	struct nbd_queue *nq = bio->q->backend_priv;
	int retire = 1;

	if (*error && nbd_error_is_answer(*error)) {
		if (!bio->res)
			bio->res = -*error;
	} else if (*error) {
		bio->lost = true;
	}
	if (bio == nq->issuing) {
		nq->issuing_answered = true;
		retire = 0;
	}
	nbd_bio_put(nq, bio);
	return retire;
}

/*
 * libnbd's chunk callback of a READ (its lock held): the bytes each
 * answer covers, data or hole, a simple reply's whole buffer included.
 * libnbd checks that they add up to the read only in
 * nbd_aio_command_completed() (lib/aio.c), which retiring commands in
 * nbd_cmd_done() skips; nbd_bio_finish() checks instead.
 */
static int nbd_read_chunk(void *user_data, const void *subbuf, size_t count,
			  uint64_t offset, unsigned status, int *error)
{
	struct vublk_bio *bio = user_data;

	(void)subbuf, (void)offset, (void)error;
	/* Past the length it stays past it (as libnbd's data_seen): no
	 * wrap back to it, whatever the server repeats. */
	if ((status == LIBNBD_READ_DATA || status == LIBNBD_READ_HOLE) &&
	    bio->read_seen <= bio->req.len)
		bio->read_seen += count;
	return 0;
}

/* FUA on a server that flushes but has no FUA: the write, then a FLUSH
 * (bio->done == len marks the second step). */
static bool nbd_bio_fua_by_flush(const struct nbd_backend *nb,
				 const struct vublk_bio *bio)
{
	return bio->req.op == VUBLK_OP_WRITE &&
	       (bio->req.flags & VUBLK_REQ_FUA) && nb->can_flush && !nb->can_fua;
}

/* One command: [off, off + len) of bio, or its FLUSH. */
static int64_t nbd_issue_cmd(struct nbd_queue *nq, struct vublk_bio *bio,
			     uint32_t off, uint32_t len, bool flush)
{
	struct nbd_handle *h = nq->conn->h;
	nbd_completion_callback cb = { .callback = nbd_cmd_done,
				       .user_data = bio };
	nbd_chunk_callback chunk = { .callback = nbd_read_chunk,
				     .user_data = bio };
	char *buf = (char *)bio->req.buf + off;
	uint64_t pos = bio->req.offset + off;

	if (flush)
		return nbd_aio_flush(h, cb, 0);
	switch (bio->req.op) {
	case VUBLK_OP_READ:
		return nbd_aio_pread_structured(h, buf, len, pos, chunk, cb,
						0);
	case VUBLK_OP_WRITE:
		return nbd_aio_pwrite(h, buf, len, pos, cb,
				      (bio->req.flags & VUBLK_REQ_FUA) &&
				      nq->nb->can_fua ? LIBNBD_CMD_FLAG_FUA : 0);
	case VUBLK_OP_DISCARD:
		return nbd_aio_trim(h, len, pos, cb, 0);
	default:	/* VUBLK_OP_WRITE_ZEROES */
		return nbd_aio_zero(h, len, pos, cb,
				    bio->req.flags & VUBLK_REQ_NOUNMAP ?
				    LIBNBD_CMD_FLAG_NO_HOLE : 0);
	}
}

/*
 * Queue one command.  libnbd sends it at once, and when the connection
 * dies in that send it answers every command, this one included, before
 * returning; libnbd 1.14 then reads the cookie of this one from memory
 * that retiring it freed (lib/rw.c: nbd_internal_command_common()
 * returns cmd->cookie after nbd_internal_run()).  So a command answered
 * while it is queued is not retired by its callback, but here, once its
 * cookie is known.  (Another command of the same bio answered then, by
 * the same death, stays in libnbd's list of done commands until the
 * connection is closed, which that death brings soon.)  0, or -1: libnbd
 * refused it.
 */
static int nbd_issue(struct nbd_queue *nq, struct vublk_bio *bio,
		     uint32_t off, uint32_t len, bool flush)
{
	int64_t cookie;

	nq->issuing = bio;
	nq->issuing_answered = false;
	cookie = nbd_issue_cmd(nq, bio, off, len, flush);
	nq->issuing = NULL;
	if (cookie >= 0 && nq->issuing_answered)
		nbd_aio_command_completed(nq->conn->h, cookie);
	return cookie < 0 ? -1 : 0;
}

/*
 * libnbd refused a command: it never reached the wire, so it was not
 * sent.  Its handle is dead, or in a state we did not expect: either way
 * the connection is done for, and the bio goes to the next one.
 */
static void nbd_issue_refused(struct nbd_queue *nq, struct vublk_bio *bio)
{
	nbd_conn_refused(nq->conn);
	bio->lost = true;
	bio->sends--;
	if (nbd_log_allowed(nq))
		vublk_error("nbd %s: %s of %u bytes at byte %" PRIu64 " not sent: %s; reconnecting",
			    nq->nb->uri, nbd_op_names[bio->req.op],
			    bio->req.len, bio->req.offset, nq->conn->why);
}

/* Send bio on the queue's connection (connected). */
static void nbd_send(struct nbd_queue *nq, struct vublk_bio *bio)
{
	const struct nbd_backend *nb = nq->nb;
	bool flush = bio->req.op == VUBLK_OP_FLUSH ||
		     bio->done == bio->req.len;
	bool split = !flush && (bio->req.op == VUBLK_OP_READ ||
				bio->req.op == VUBLK_OP_WRITE);
	uint32_t off = 0;

	if (!bio->done)
		bio->sends++;
	if (flush)
		bio->flush_covers = atomic_load(&nb->write_acks);
	bio->parts = 1;		/* ours while issuing */
	bio->res = 0;
	bio->lost = false;
	bio->read_seen = 0;
	nbd_list_insert(&nq->in_flight, bio);
	do {
		uint32_t len = split && bio->req.len - off > nb->max_payload ?
			       nb->max_payload : bio->req.len - off;

		bio->parts++;
		if (nbd_issue(nq, bio, off, len, flush) < 0) {
			bio->parts--;
			nbd_issue_refused(nq, bio);
			break;
		}
		nbd_count(&nq->nb->counters.commands);
		off += len;
	} while (off < bio->req.len && !flush);
	nbd_bio_put(nq, bio);
}

static bool nbd_queue_can_send(const struct nbd_queue *nq)
{
	return nq->conn && nq->conn->ready && !nq->conn->broken;
}

/* Send bio now if the queue is connected, else when it is. */
static void nbd_dispatch(struct nbd_queue *nq, struct vublk_bio *bio)
{
	if (nbd_queue_can_send(nq))
		nbd_send(nq, bio);
	else
		nbd_list_insert(&nq->waiting, bio);
}

/* ---- answers ---- */

/* EIO for a bio no server answered, said why. */
static void nbd_bio_fail(struct nbd_queue *nq, struct vublk_bio *bio,
			 const char *why)
{
	nbd_count(&nq->nb->counters.requests_failed);
	if (nbd_log_allowed(nq))
		vublk_error("nbd %s: %s of %u bytes at byte %" PRIu64 " failed with EIO: %s (sent %u times; --retry=%u, --timeout=%" PRIu64 ")",
			    nq->nb->uri, nbd_op_names[bio->req.op],
			    bio->req.len, bio->req.offset, why, bio->sends,
			    nq->nb->retries,
			    nq->nb->timeout_ns / VUBLK_NS_PER_S);
	bio->end_io(bio->q, bio, -EIO);
}

/* bio's connection went away before it was answered: again, or EIO. */
static void nbd_bio_lost(struct nbd_queue *nq, struct vublk_bio *bio)
{
	bio->lost = false;
	bio->done = 0;		/* all of it again, FUA's write included */
	if (vublk_now_ns() >= bio->deadline_ns) {
		nbd_count(&nq->nb->counters.timeouts);
		nbd_bio_fail(nq, bio, "no answer within --timeout");
	} else if (bio->sends > nq->nb->retries) {
		nbd_bio_fail(nq, bio,
			     "its connection was lost each time it was sent");
	} else {
		if (bio->sends)
			nbd_count(&nq->nb->counters.resends);
		nbd_dispatch(nq, bio);
	}
}

/*
 * A FLUSH answered: it covers the writes acknowledged before it was
 * sent; unless a connection was lost meanwhile with writes no FLUSH had
 * covered, which this one cannot bring back (see the top of the file).
 */
static int nbd_flush_result(struct nbd_queue *nq, const struct vublk_bio *bio)
{
	struct nbd_backend *nb = nq->nb;
	uint_fast64_t seen = atomic_load(&nb->flushed_acks);

	while (seen < bio->flush_covers &&
	       !atomic_compare_exchange_weak(&nb->flushed_acks, &seen,
					     bio->flush_covers))
		;
	if (!atomic_exchange(&nb->unflushed_lost, 0))
		return 0;
	vublk_error("nbd %s: failing a FLUSH with EIO: writes the server acknowledged into its cache were not flushed before their connection was lost, and may be gone if the server restarted",
		    nb->uri);
	return -EIO;
}

static void nbd_bio_finish(struct nbd_queue *nq, struct vublk_bio *bio)
{
	if (bio->lost) {
		nbd_bio_lost(nq, bio);
		return;
	}
	if (!bio->res && !bio->done && nbd_bio_fua_by_flush(nq->nb, bio)) {
		bio->done = bio->req.len;	/* written: now its FLUSH */
		nbd_dispatch(nq, bio);
		return;
	}
	if (!bio->res && bio->req.op == VUBLK_OP_READ &&
	    bio->read_seen != bio->req.len) {
		/* libnbd's EPROTO: not an error of the store the server has,
		 * but neither a lost connection to resend on. */
		nbd_count(&nq->nb->counters.server_errors);
		if (nbd_log_allowed(nq))
			vublk_error("nbd %s: READ of %u bytes at byte %" PRIu64 ": the server's answer covered %s%u bytes; failing it with EIO",
				    nq->nb->uri, bio->req.len, bio->req.offset,
				    bio->read_seen > bio->req.len ? "more than " : "",
				    bio->read_seen > bio->req.len ? bio->req.len :
				    bio->read_seen);
		bio->res = -EIO;
	} else if (!bio->res) {
		if (bio->req.op == VUBLK_OP_FLUSH || bio->done == bio->req.len)
			bio->res = nbd_flush_result(nq, bio);
	} else {
		nbd_count(&nq->nb->counters.server_errors);
		if (nbd_log_allowed(nq))
			vublk_error("nbd %s: %s of %u bytes at byte %" PRIu64 " (block %" PRIu64 " of 512 bytes): the server answered %s",
				    nq->nb->uri, nbd_op_names[bio->req.op],
				    bio->req.len, bio->req.offset,
				    bio->req.offset >> 9,
				    strerror(-bio->res));
	}
	bio->end_io(bio->q, bio, vublk_bio_result(bio, bio->res));
}

static void nbd_queue_finish_answered(struct nbd_queue *nq)
{
	struct vublk_bio *bio;

	while ((bio = nbd_list_pop(&nq->answered)))
		nbd_bio_finish(nq, bio);
}

/* ---- the connection ---- */

/*
 * The next attempt: after half the backoff plus up to as much again
 * ("equal jitter", the clock's nanoseconds as the dice), so that the
 * many clients of a server that restarts do not all come back in step;
 * the backoff doubles up to 2 s.
 */
static void nbd_queue_attempt_failed(struct nbd_queue *nq, const char *why)
{
	uint64_t now = vublk_now_ns();
	uint64_t half = nq->backoff_ms * VUBLK_NS_PER_MS / 2;

	nbd_count(&nq->nb->counters.connect_failures);
	if (!nq->failed_attempts++ && nbd_log_allowed(nq))
		vublk_error("nbd %s: queue %u cannot connect: %s; trying again, up to 2 s apart, while requests wait (each at most --timeout=%" PRIu64 " s)",
			    nq->nb->uri, nq->q->q_id, why,
			    nq->nb->timeout_ns / VUBLK_NS_PER_S);
	nq->next_connect_ns = now + half + now % half;
	nq->backoff_ms = nq->backoff_ms * 2 > NBD_BACKOFF_MAX_MS ?
			 NBD_BACKOFF_MAX_MS : nq->backoff_ms * 2;
}

/* A connection that worked went away: say so, and remember writes it may
 * have taken with it. */
static void nbd_queue_conn_lost(struct nbd_queue *nq, struct nbd_conn *c)
{
	struct nbd_backend *nb = nq->nb;

	nbd_count(&nb->counters.connections_lost);
	if (c->last_write_ack > atomic_load(&nb->flushed_acks)) {
		nbd_count(&nb->counters.unflushed_losses);
		atomic_fetch_add(&nb->unflushed_lost, 1);
	}
	if (nbd_log_allowed(nq))
		vublk_error("nbd %s: queue %u lost its connection: %s; its requests in flight are sent again (--retry=%u); reconnecting",
			    nb->uri, nq->q->q_id, c->why, nb->retries);
	nq->lost_logged = true;
	nq->next_connect_ns = 0;
	nq->backoff_ms = NBD_BACKOFF_MIN_MS;
}

/* Drop the queue's connection; its bios in flight are answered "lost". */
static void nbd_queue_drop_conn(struct nbd_queue *nq)
{
	struct nbd_conn *c = nq->conn;
	bool polls_done = nbd_conn_close(c, nq->q);
	struct vublk_bio *bio;

	nq->conn = NULL;
	while ((bio = nq->in_flight.head)) {
		bio->parts = 1;
		bio->lost = true;
		nbd_bio_put(nq, bio);
	}
	if (c->ready)
		nbd_queue_conn_lost(nq, c);
	else
		nbd_queue_attempt_failed(nq, c->why);
	if (polls_done) {
		nbd_conn_free(c);
	} else {
		c->next_closed = nq->closed;
		nq->closed = c;
	}
}

/* A new connection finished its handshake: the same export? */
static void nbd_queue_conn_up(struct nbd_queue *nq)
{
	struct nbd_conn *c = nq->conn;

	if (nbd_conn_check_export(nq->nb, c)) {
		nbd_queue_drop_conn(nq);
		return;
	}
	c->ready = true;
	nbd_count(&nq->nb->counters.reconnects);
	vublk_info("nbd %s: queue %u connected again (after %u failed attempts)",
		   nq->nb->uri, nq->q->q_id, nq->failed_attempts);
	nq->failed_attempts = 0;
	nq->lost_logged = false;
	nq->backoff_ms = NBD_BACKOFF_MIN_MS;
}

static void nbd_queue_check_conn(struct nbd_queue *nq)
{
	struct nbd_conn *c = nq->conn;

	if (!c)
		return;
	if (nbd_conn_is_dead(c))
		nbd_queue_drop_conn(nq);
	else if (!c->ready && nbd_aio_is_ready(c->h))
		nbd_queue_conn_up(nq);
}

static void nbd_io_poll_done(struct vublk_queue *q, struct vublk_ring_event *ev,
			     const struct io_uring_cqe *cqe);

/* Bios wait and none is connecting: start a connection, if it is time. */
static void nbd_queue_connect(struct nbd_queue *nq)
{
	char why[sizeof(((struct nbd_conn *)0)->why)];
	struct nbd_conn *c;

	if (nq->conn || nbd_list_empty(&nq->waiting) ||
	    vublk_now_ns() < nq->next_connect_ns)
		return;
	if (nbd_conn_start(nq->nb, &c, why, sizeof(why))) {
		nbd_queue_attempt_failed(nq, why);
		return;
	}
	c->nq = nq;
	c->in.ev.done = c->out.ev.done = nbd_io_poll_done;
	c->connect_deadline_ns = vublk_now_ns() + nq->nb->timeout_ns;
	nq->conn = c;
}

static void nbd_queue_send_waiting(struct nbd_queue *nq)
{
	struct vublk_bio *bio;

	while (nbd_queue_can_send(nq) && (bio = nbd_list_pop(&nq->waiting)))
		nbd_send(nq, bio);
}

/* Why the connection is dropped: bio, the oldest in flight, is late. */
static void nbd_queue_note_stall(struct nbd_queue *nq,
				 const struct vublk_bio *bio)
{
	const struct vublk_bio *b;
	char oldest[160];
	unsigned n = 0;

	for (b = nq->in_flight.head; b; b = b->next)
		n++;
	snprintf(oldest, sizeof(oldest),
		 "the oldest: %s of %u bytes at byte %" PRIu64 ", sent %u time%s; %u in flight here",
		 nbd_op_names[bio->req.op], bio->req.len, bio->req.offset,
		 bio->sends, vublk_plural(bio->sends), n);
	nbd_conn_note_stall(nq->conn, oldest, nq->answering);
}

/* Deadlines: a bio that waited too long for a connection fails; one the
 * server has not answered in time closes the connection (the only way
 * to take its buffer back), and the others are sent again. */
static void nbd_queue_expire(struct nbd_queue *nq)
{
	uint64_t now = vublk_now_ns();
	struct nbd_conn *c = nq->conn;
	struct vublk_bio *bio;

	while ((bio = nq->waiting.head) && bio->deadline_ns <= now) {
		nbd_list_remove(&nq->waiting, bio);
		nbd_count(&nq->nb->counters.timeouts);
		nbd_bio_fail(nq, bio, "no connection to the server within --timeout");
	}
	if (!c || c != nq->conn)
		return;
	if (!c->ready && now >= c->connect_deadline_ns) {
		snprintf(c->why, sizeof(c->why),
			 "no handshake within --timeout");
		nbd_queue_drop_conn(nq);
	} else if ((bio = nq->in_flight.head) && bio->deadline_ns <= now) {
		nbd_queue_note_stall(nq, bio);
		nbd_queue_drop_conn(nq);
	}
}

/* Everything that can happen after an event of the queue's ring. */
static void nbd_queue_run(struct nbd_queue *nq)
{
	do {
		nbd_queue_check_conn(nq);
		nbd_queue_finish_answered(nq);
		nbd_queue_send_waiting(nq);
		nbd_queue_expire(nq);
	} while (!nbd_list_empty(&nq->answered));
	nbd_queue_connect(nq);
	if (nq->conn)
		nbd_conn_arm(nq->conn, nq->q);
	nbd_queue_arm_tick(nq);
}

/* ---- the ring's events ---- */

/* Free the closed connections whose polls have all answered. */
static void nbd_queue_reap_closed(struct nbd_queue *nq)
{
	struct nbd_conn **p = &nq->closed, *c;

	while ((c = *p)) {
		if (nbd_conn_polls_done(c)) {
			*p = c->next_closed;
			nbd_conn_free(c);
		} else {
			p = &c->next_closed;
		}
	}
}

static void nbd_io_poll_done(struct vublk_queue *q, struct vublk_ring_event *ev,
			     const struct io_uring_cqe *cqe)
{
	struct nbd_poll *p = container_of(ev, struct nbd_poll, ev);
	struct nbd_conn *c = p->conn;
	struct nbd_queue *nq = q->backend_priv;

	p->armed = false;
	if (c->closed) {
		nbd_queue_reap_closed(nq);
		return;
	}
	nbd_conn_notify(c, cqe->res);
	nq->answering = p;
	nbd_queue_run(nq);
	nq->answering = NULL;
}

/* The tick or the kick: run the queue. */
static void nbd_io_event_done(struct vublk_queue *q, struct vublk_ring_event *ev,
			      const struct io_uring_cqe *cqe)
{
	struct nbd_queue *nq = q->backend_priv;

	(void)cqe;
	if (ev == &nq->tick_ev)
		nq->tick_armed = false;
	else
		nq->kick_armed = false;
	nbd_queue_run(nq);
}

/* ---- the ops ---- */

/* What the export lacks, answered as for a file that lacks it (a FLUSH
 * with nothing to flush succeeds: its result is 0); else
 * VUBLK_IO_QUEUED. */
static int nbd_bio_check(const struct vublk_backend *be,
			 const struct nbd_backend *nb,
			 const struct vublk_bio *bio)
{
	/* libnbd refuses a command off the server's minimum block itself
	 * (EINVAL, before sending it): failed here, once, as the request's
	 * error, it is not taken for a lost connection and sent again.  A
	 * target whose logical block is smaller than the server's sends
	 * them (loop --block-size, which loop_set_shape() refuses). */
	if (bio->req.op != VUBLK_OP_FLUSH &&
	    ((bio->req.offset | bio->req.len) &
	     ((1ULL << be->block_shift) - 1)))
		return -EINVAL;
	switch (bio->req.op) {
	case VUBLK_OP_READ:
		return VUBLK_IO_QUEUED;
	case VUBLK_OP_FLUSH:
		/* No cache on the server: every write is stable. */
		return nb->can_flush && !nb->read_only ? VUBLK_IO_QUEUED : 0;
	default:
		if (nb->read_only)
			return -EROFS;	/* the core refuses them first */
		if ((bio->req.op == VUBLK_OP_DISCARD && !nb->can_trim) ||
		    (bio->req.op == VUBLK_OP_WRITE_ZEROES && !nb->can_zero))
			return -EOPNOTSUPP;
		return VUBLK_IO_QUEUED;
	}
}

int nbd_io_submit(struct vublk_backend *be, struct vublk_queue *q,
		  struct vublk_bio *bio)
{
	struct nbd_backend *nb = be->priv;
	struct nbd_queue *nq = q->backend_priv;
	int ret = nbd_bio_check(be, nb, bio);

	if (ret != VUBLK_IO_QUEUED)
		return ret;
	bio->q = q;
	bio->done = 0;
	bio->deadline_ns = vublk_now_ns() + nb->timeout_ns;
	bio->sends = 0;
	bio->res = 0;
	bio->lost = false;
	nbd_dispatch(nq, bio);
	if (!nbd_list_empty(&nq->answered) || !nq->conn || !nq->conn->ready) {
		nbd_queue_kick(nq);
		return VUBLK_IO_QUEUED;
	}
	nbd_conn_arm(nq->conn, q);
	nbd_queue_arm_tick(nq);
	return VUBLK_IO_QUEUED;
}

/* A connection for a queue after the first, which took open's. */
static struct nbd_conn *nbd_io_connect_more(const struct nbd_backend *nb,
					    unsigned q_id)
{
	char why[sizeof(((struct nbd_conn *)0)->why)];
	struct nbd_conn *c;
	int err;

	if (!nb->multi_conn) {
		vublk_error("nbd %s: queue %u needs a connection of its own, but the server does not allow several (no multi-conn): serve this export with one queue (vublk add -q 1)",
			    nb->uri, q_id);
		return NULL;
	}
	if (nbd_conn_start(nb, &c, why, sizeof(why))) {
		vublk_error("nbd %s: queue %u cannot connect: %s", nb->uri,
			    q_id, why);
		return NULL;
	}
	err = nbd_conn_wait_ready(c, vublk_now_ns() + nb->timeout_ns);
	if (!err)
		err = nbd_conn_check_export(nb, c);
	if (err) {
		vublk_error("nbd %s: queue %u cannot connect: %s", nb->uri,
			    q_id, c->why);
		nbd_conn_free(c);
		return NULL;
	}
	return c;
}

int nbd_io_queue_init(struct vublk_backend *be, struct vublk_queue *q)
{
	struct nbd_backend *nb = be->priv;
	struct nbd_queue *nq = calloc(1, sizeof(*nq));
	struct nbd_conn *c;

	if (!nq) {
		vublk_error("nbd %s: no memory for queue %u", nb->uri,
			    q->q_id);
		return -ENOMEM;
	}
	c = atomic_exchange(&nb->first_conn, NULL);
	if (!c)
		c = nbd_io_connect_more(nb, q->q_id);
	if (!c) {
		free(nq);
		return -ENOTCONN;
	}
	*nq = (struct nbd_queue){ .nb = nb, .q = q, .conn = c,
				  .backoff_ms = NBD_BACKOFF_MIN_MS };
	nq->tick_ev.done = nq->kick_ev.done = nbd_io_event_done;
	c->nq = nq;
	c->ready = true;
	c->in.ev.done = c->out.ev.done = nbd_io_poll_done;
	q->backend_priv = nq;
	/* Polled from now on, so that a server that goes away while the
	 * queue is idle is noticed (EOF on the socket). */
	nbd_conn_arm(c, q);
	return 0;
}

/* No bio is left (the target waited for each); the ring closes next,
 * with the polls it still holds. */
void nbd_io_queue_deinit(struct vublk_backend *be, struct vublk_queue *q)
{
	struct nbd_queue *nq = q->backend_priv;
	struct nbd_conn *c;

	(void)be;
	if (nq->conn)
		nbd_conn_free(nq->conn);
	while ((c = nq->closed)) {
		nq->closed = c->next_closed;
		nbd_conn_free(c);
	}
	free(nq);
	q->backend_priv = NULL;
}
