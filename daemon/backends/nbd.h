/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * nbd.h - internals of the "nbd" backend, shared by its files:
 *   nbd.c       open (the first connection, what the export offers),
 *               close, init-time reads, report, the ops
 *   nbd_conn.c  one connection: a libnbd handle, connected asynchronously
 *               and driven from the queue's io_uring (polls on its socket)
 *   nbd_io.c    a queue: bios as NBD commands, their answers, and what
 *               happens when the server goes away (resend, reconnect,
 *               time out)
 * Included only by those files.
 *
 * libnbd's asynchronous API is the kernel's nbd driver turned inside out:
 * instead of a socket owned by the kernel and a thread that sleeps in
 * recvmsg() (drivers/block/nbd.c: recv_work()), each queue thread owns a
 * connection, polls its socket from its own io_uring, and lets libnbd read
 * or write whatever the socket is ready for (nbd_aio_notify_read/write).
 * No thread per request or per connection.
 */
#ifndef VUBLK_NBD_H
#define VUBLK_NBD_H

#include <libnbd.h>
#include <stdatomic.h>
#include <time.h>

#include "backend.h"
#include "clock.h"

/*
 * What happened to the requests, counted once, here (relaxed atomics:
 * the main thread reports while queues run).
 */
struct nbd_counters {
	atomic_uint_fast64_t commands;		/* NBD commands sent */
	atomic_uint_fast64_t resends;		/* bios sent again */
	atomic_uint_fast64_t connections_lost;	/* while connected */
	atomic_uint_fast64_t connect_failures;	/* attempts that failed */
	atomic_uint_fast64_t reconnects;	/* attempts that worked */
	atomic_uint_fast64_t timeouts;		/* bios past --timeout */
	atomic_uint_fast64_t server_errors;	/* bios the server failed */
	atomic_uint_fast64_t requests_failed;	/* bios failed: no server */
	atomic_uint_fast64_t unflushed_losses;	/* see nbd_io.c: flushes */
};

/* One export, shared by the queues; set at open, then read-only but for
 * the atomics. */
struct nbd_backend {
	const char *uri;
	unsigned retries;		/* --retry */
	uint64_t timeout_ns;		/* --timeout */
	bool read_only;
	/* What the export offered at open; a reconnection must offer it
	 * again (nbd_conn_check_export()). */
	uint64_t size;
	bool can_flush, can_fua, can_trim, can_zero, multi_conn;
	uint32_t max_payload;		/* largest READ or WRITE command */
	/* The main thread's connection (open, read_sync), taken over by
	 * the first queue (a server without multi-conn takes only one). */
	struct nbd_conn *_Atomic first_conn;
	struct nbd_counters counters;
	/*
	 * Writes acknowledged by the server (a count), the count the last
	 * successful FLUSH covered, and connections lost since with writes
	 * acknowledged on them that no FLUSH covered: nbd_io.c.
	 */
	atomic_uint_fast64_t write_acks;
	atomic_uint_fast64_t flushed_acks;
	atomic_uint_fast64_t unflushed_lost;
};

/* A poll on a connection's socket, in the queue's ring. */
struct nbd_poll {
	struct vublk_ring_event ev;
	struct nbd_conn *conn;
	bool armed;		/* its SQE is in the ring, no CQE yet */
};

/* One connection: a libnbd handle, connecting or connected. */
struct nbd_conn {
	struct nbd_handle *h;
	struct nbd_queue *nq;		/* whose ring polls it */
	struct nbd_poll in, out;
	bool ready;			/* handshake done, export checked */
	bool broken;			/* libnbd refused a command */
	bool closed;			/* h closed; freed once polls end */
	uint64_t connect_deadline_ns;
	/* nbd_backend.write_acks after its last acknowledged write that
	 * may sit in the server's cache. */
	uint64_t last_write_ack;
	char why[400];			/* what made it fail */
	int err;			/* and its errno */
	struct nbd_conn *next_closed;	/* nbd_queue.closed */
};

/* Bios in order of deadline (struct vublk_bio next, prev). */
struct nbd_bio_list {
	struct vublk_bio *head, *tail;
};

/* A queue's part of the backend (q->backend_priv), its thread only. */
struct nbd_queue {
	struct nbd_backend *nb;
	struct vublk_queue *q;
	struct nbd_conn *conn;		/* NULL while down */
	struct nbd_conn *closed;	/* closed, polls not answered yet */
	struct nbd_bio_list waiting;	/* for a connection */
	struct nbd_bio_list in_flight;	/* commands on conn */
	struct nbd_bio_list answered;	/* by a libnbd callback: to finish */
	/* The bio whose command libnbd is queueing, and whether that
	 * command was answered already (nbd_io.c: nbd_issue()). */
	struct vublk_bio *issuing;
	bool issuing_answered;
	/* The poll whose answer the queue is running from (not armed again
	 * yet), or NULL: only compared, never followed. */
	const struct nbd_poll *answering;
	struct vublk_ring_event tick_ev, kick_ev;
	bool tick_armed, kick_armed;
	struct __kernel_timespec tick_ts;
	uint64_t next_connect_ns;	/* no attempt before */
	unsigned backoff_ms;		/* after the next failed attempt */
	unsigned failed_attempts;	/* since the connection was lost */
	bool lost_logged;		/* said so since it was lost */
	time_t log_second;		/* log lines: this second's count */
	unsigned log_lines;
	uint64_t log_suppressed;
};

/* nbd_conn.c */
/* A handle connecting to nb's URI (asynchronously) into *out; 0, or
 * -errno with why. */
int nbd_conn_start(const struct nbd_backend *nb, struct nbd_conn **out,
		   char *why, size_t why_size);
/* Drive c with poll(2) until it is connected or deadline; 0 or -errno
 * with c->why.  For the main thread and queue set-up only. */
int nbd_conn_wait_ready(struct nbd_conn *c, uint64_t deadline_ns);
/* Read [pos, pos + len) through c with poll(2), bounded by deadline. */
int nbd_conn_pread_sync(struct nbd_conn *c, void *buf, size_t len,
			uint64_t pos, uint32_t max_payload,
			uint64_t deadline_ns);
/* Does c's export offer what nb found at open?  0, or -EPROTO with
 * c->why. */
int nbd_conn_check_export(const struct nbd_backend *nb, struct nbd_conn *c);
/* Dead: it never will serve again (closed, failed, or refused a
 * command); says why in c->why. */
bool nbd_conn_is_dead(struct nbd_conn *c);
/* libnbd refused a command on c: note why, and that c is broken. */
void nbd_conn_refused(struct nbd_conn *c);
/* A request on c had no answer within --timeout: say so in c->why, with
 * the queue's view (oldest: which request, how many in flight), libnbd's
 * state, the polls armed (answering: the one whose answer is running,
 * or NULL) and the bytes waiting on either side of the socket. */
void nbd_conn_note_stall(struct nbd_conn *c, const char *oldest,
			 const struct nbd_poll *answering);
/* The socket said ready (revents of a poll on it, or -errno): let
 * libnbd read or write what it can. */
void nbd_conn_notify(struct nbd_conn *c, int revents);
/* Arm the polls libnbd's state wants (their ev.done set by the queue). */
void nbd_conn_arm(struct nbd_conn *c, struct vublk_queue *q);
/* Close the handle (no callback runs for its commands) and cancel its
 * polls; true if it can be freed now, false until its polls answer. */
bool nbd_conn_close(struct nbd_conn *c, struct vublk_queue *q);
/* Whether a closed connection's polls have all answered. */
bool nbd_conn_polls_done(const struct nbd_conn *c);
/* Free a connection whose polls ended or will never be reaped (the ring
 * is about to close), closing its handle if still open. */
void nbd_conn_free(struct nbd_conn *c);

/* nbd_io.c: the ops that run on a queue. */
int nbd_io_queue_init(struct vublk_backend *be, struct vublk_queue *q);
void nbd_io_queue_deinit(struct vublk_backend *be, struct vublk_queue *q);
int nbd_io_submit(struct vublk_backend *be, struct vublk_queue *q,
		  struct vublk_bio *bio);

#endif /* VUBLK_NBD_H */
