// SPDX-License-Identifier: GPL-2.0-only
/*
 * nbd_conn.c - one connection to the NBD server: a libnbd handle whose
 * socket is polled from the queue's io_uring (or, before any queue runs,
 * with poll(2)).
 *
 * libnbd keeps the protocol's state machine; all it needs from its caller
 * is to be told when its socket can be read or written
 * (nbd_aio_notify_read/write) and which of the two it waits for
 * (nbd_aio_get_direction).  A connection arms at most one POLLIN and one
 * POLLOUT poll at a time in the ring, each re-armed after its CQE if
 * libnbd still waits for that direction.
 *
 * Closing: nbd_close() frees the commands still in flight without calling
 * their completion callbacks (lib/handle.c: free_cmd_list() only retires
 * them), so the queue answers those bios itself (nbd_io.c).  A poll still
 * armed on the socket keeps its file alive and might never fire: it is
 * cancelled (IORING_OP_ASYNC_CANCEL), and the connection is freed only
 * once both polls have answered, because their SQEs point into it.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/sockios.h>

#include "nbd.h"

/* The answer to a cancel: nothing to do (the poll it cancels answers
 * too). */
static void nbd_conn_cancel_done(struct vublk_queue *q,
				 struct vublk_ring_event *ev,
				 const struct io_uring_cqe *cqe)
{
	(void)q;
	(void)ev;
	(void)cqe;
}

static struct vublk_ring_event nbd_conn_cancel_ev = {
	.done = nbd_conn_cancel_done,
};

/* libnbd's own words for what just failed, kept with the connection. */
static void nbd_conn_note_error(struct nbd_conn *c)
{
	const char *msg = nbd_get_error();

	snprintf(c->why, sizeof(c->why), "%s",
		 msg ? msg : "the connection failed");
	c->err = nbd_get_errno();
}

/* A poll's state for the log: armed, or answered and not armed again
 * yet (the queue runs from its answer), or not armed. */
static const char *nbd_poll_state(const struct nbd_poll *p,
				  const struct nbd_poll *answering)
{
	return p->armed ? "armed" : p == answering ? "answering now" :
						    "not armed";
}

/*
 * The bytes sent on fd that the other side has not taken: on a Unix
 * socket those the server has not read, on TCP those it has not
 * acknowledged (its kernel acknowledges what its process never read).
 * -1 when unknown.
 */
static int nbd_conn_unsent(int fd, const char **what)
{
	int domain, n;
	socklen_t len = sizeof(domain);

	*what = "not yet acknowledged by the server's host";
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) == 0 &&
	    domain == AF_UNIX)
		*what = "not yet read by the server";
	return ioctl(fd, SIOCOUTQ, &n) == 0 ? n : -1;
}

/*
 * A request of c's went unanswered for --timeout: say where libnbd
 * stands, what the ring waits for and what sits on the socket, so that
 * the log tells a server that never read the request (bytes not read by
 * the server), one that read it and never answered (READY, nothing
 * either way), an answer nobody read (bytes unread here, POLLIN armed)
 * and a send that never finished (libnbd in ISSUE_COMMAND).
 */
void nbd_conn_note_stall(struct nbd_conn *c, const char *oldest,
			 const struct nbd_poll *answering)
{
	const char *state = nbd_connection_state(c->h), *unsent_what = "";
	unsigned dir = nbd_aio_get_direction(c->h);
	int fd = nbd_aio_get_fd(c->h), unread = -1, unsent = -1;

	if (!state)
		state = "?";
	if (fd >= 0) {
		if (ioctl(fd, FIONREAD, &unread) == -1)
			unread = -1;
		unsent = nbd_conn_unsent(fd, &unsent_what);
	}
	snprintf(c->why, sizeof(c->why),
		 "a request had no answer within --timeout (%s; libnbd %.*s, wants%s%s, %d in flight; POLLIN %s, POLLOUT %s; %d bytes unread here, %d sent and %s)",
		 oldest, (int)strcspn(state, ":"), state,
		 dir & LIBNBD_AIO_DIRECTION_READ ? " read" : "",
		 dir & LIBNBD_AIO_DIRECTION_WRITE ? " write" : "",
		 nbd_aio_in_flight(c->h), nbd_poll_state(&c->in, answering),
		 nbd_poll_state(&c->out, answering), unread, unsent,
		 unsent_what);
}

void nbd_conn_refused(struct nbd_conn *c)
{
	nbd_conn_note_error(c);
	c->broken = true;
}

/* libnbd's last error, as -errno with its text in why. */
static int nbd_conn_failed(char *why, size_t why_size)
{
	int err = nbd_get_errno();

	snprintf(why, why_size, "%s", nbd_get_error());
	return err ? -err : -ENOTCONN;
}

int nbd_conn_start(const struct nbd_backend *nb, struct nbd_conn **out,
		   char *why, size_t why_size)
{
	struct nbd_conn *c = calloc(1, sizeof(*c));
	int err;

	if (!c) {
		snprintf(why, why_size, "out of memory");
		return -ENOMEM;
	}
	c->h = nbd_create();
	if (!c->h) {
		err = nbd_conn_failed(why, why_size);
		free(c);
		return err;
	}
	c->in.conn = c->out.conn = c;
	/* libnbd zeroes every read buffer before the read (its default,
	 * pread_initialize, kept): a server that answers a READ with the
	 * same bytes twice and others never leaves zeroes there, not what
	 * the tag's buffer held from an earlier request, which may be
	 * another file's.  A short answer fails (nbd_io.c). */
	/* nbds:// names its TLS credentials in the URI (tls-certificates=DIR,
	 * tls-psk-file=FILE), files libnbd opens only when allowed to; the
	 * URI is the administrator's own (the command line, vublktab), as it
	 * is nbdinfo's and nbdcopy's, which allow it too. */
	if (nbd_set_uri_allow_local_file(c->h, true) == -1 ||
	    nbd_aio_connect_uri(c->h, nb->uri) == -1) {
		err = nbd_conn_failed(why, why_size);
		nbd_close(c->h);
		free(c);
		return err;
	}
	*out = c;
	return 0;
}

bool nbd_conn_is_dead(struct nbd_conn *c)
{
	if (!c->broken && !nbd_aio_is_dead(c->h) && !nbd_aio_is_closed(c->h))
		return false;
	if (!c->why[0])
		snprintf(c->why, sizeof(c->why),
			 "the server closed the connection");
	return true;
}

void nbd_conn_notify(struct nbd_conn *c, int revents)
{
	bool failed = revents < 0 || (revents & (POLLERR | POLLHUP));
	unsigned dir = nbd_aio_get_direction(c->h);

	if ((failed || (revents & POLLIN)) &&
	    (dir & LIBNBD_AIO_DIRECTION_READ) &&
	    nbd_aio_notify_read(c->h) == -1) {
		nbd_conn_note_error(c);
		return;
	}
	/* Reading may have moved it on (a reply done, the next command to
	 * send): ask again. */
	dir = nbd_aio_get_direction(c->h);
	if ((failed || (revents & POLLOUT)) &&
	    (dir & LIBNBD_AIO_DIRECTION_WRITE) &&
	    nbd_aio_notify_write(c->h) == -1)
		nbd_conn_note_error(c);
}

/* One poll(2) on c's socket for what libnbd waits for, then notify. */
static int nbd_conn_poll_once(struct nbd_conn *c, uint64_t deadline_ns)
{
	uint64_t now = vublk_now_ns(), wait_ms;
	unsigned dir = nbd_aio_get_direction(c->h);
	struct pollfd pfd = {
		.fd = nbd_aio_get_fd(c->h),
		.events = (dir & LIBNBD_AIO_DIRECTION_READ ? POLLIN : 0) |
			  (dir & LIBNBD_AIO_DIRECTION_WRITE ? POLLOUT : 0),
	};
	int n;

	if (pfd.fd < 0) {
		nbd_conn_note_error(c);
		return -ENOTCONN;
	}
	if (now >= deadline_ns) {
		snprintf(c->why, sizeof(c->why),
			 "no answer within the timeout");
		return -ETIMEDOUT;
	}
	wait_ms = (deadline_ns - now + 999999) / 1000000;
	n = poll(&pfd, 1, wait_ms > INT_MAX ? INT_MAX : (int)wait_ms);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	if (n > 0)
		nbd_conn_notify(c, pfd.revents);
	return 0;
}

int nbd_conn_wait_ready(struct nbd_conn *c, uint64_t deadline_ns)
{
	int err;

	while (!nbd_aio_is_ready(c->h)) {
		if (nbd_conn_is_dead(c))
			return c->err ? -c->err : -ECONNREFUSED;
		err = nbd_conn_poll_once(c, deadline_ns);
		if (err)
			return err;
	}
	return 0;
}

int nbd_conn_pread_sync(struct nbd_conn *c, void *buf, size_t len,
			uint64_t pos, uint32_t max_payload,
			uint64_t deadline_ns)
{
	char *p = buf;

	while (len) {
		size_t n = len < max_payload ? len : max_payload;
		int64_t cookie = nbd_aio_pread(c->h, p, n, pos,
					       NBD_NULL_COMPLETION, 0);
		int done = cookie < 0 ? -1 : 0, err;

		while (!done) {
			err = nbd_conn_poll_once(c, deadline_ns);
			if (err)
				return err;
			done = nbd_aio_command_completed(c->h, cookie);
		}
		if (done < 0) {
			err = nbd_get_errno();
			nbd_conn_note_error(c);
			return err ? -err : -EIO;
		}
		p += n;
		pos += n;
		len -= n;
	}
	return 0;
}

/* The flag the export offered at open is still offered. */
static bool nbd_conn_kept(bool had, int has)
{
	return !had || has == 1;
}

int nbd_conn_check_export(const struct nbd_backend *nb, struct nbd_conn *c)
{
	int64_t size = nbd_get_size(c->h);

	if (size < 0 || (uint64_t)size != nb->size) {
		snprintf(c->why, sizeof(c->why),
			 "the export is %lld bytes now, not %llu as when the device was added",
			 (long long)size, (unsigned long long)nb->size);
		return -EPROTO;
	}
	if ((!nb->read_only && nbd_is_read_only(c->h) != 0) ||
	    !nbd_conn_kept(nb->can_flush, nbd_can_flush(c->h)) ||
	    !nbd_conn_kept(nb->can_fua, nbd_can_fua(c->h)) ||
	    !nbd_conn_kept(nb->can_trim, nbd_can_trim(c->h)) ||
	    !nbd_conn_kept(nb->can_zero, nbd_can_zero(c->h)) ||
	    !nbd_conn_kept(nb->multi_conn, nbd_can_multi_conn(c->h))) {
		snprintf(c->why, sizeof(c->why),
			 "the export no longer offers what it did when the device was added (writes, flush, FUA, trim, zero or multi-conn)");
		return -EPROTO;
	}
	return 0;
}

static void nbd_conn_arm_poll(struct nbd_poll *p, struct vublk_queue *q,
			      int fd, unsigned mask)
{
	struct io_uring_sqe *sqe = vublk_queue_get_sqe(q);

	io_uring_prep_poll_add(sqe, fd, mask);
	vublk_sqe_set_event(sqe, &p->ev);
	p->armed = true;
}

void nbd_conn_arm(struct nbd_conn *c, struct vublk_queue *q)
{
	unsigned dir;
	int fd;

	if (c->closed)
		return;
	dir = nbd_aio_get_direction(c->h);
	fd = nbd_aio_get_fd(c->h);
	if (fd < 0)
		return;	/* dead: the queue closes it */
	if ((dir & LIBNBD_AIO_DIRECTION_READ) && !c->in.armed)
		nbd_conn_arm_poll(&c->in, q, fd, POLLIN);
	if ((dir & LIBNBD_AIO_DIRECTION_WRITE) && !c->out.armed)
		nbd_conn_arm_poll(&c->out, q, fd, POLLOUT);
}

bool nbd_conn_polls_done(const struct nbd_conn *c)
{
	return !c->in.armed && !c->out.armed;
}

bool nbd_conn_close(struct nbd_conn *c, struct vublk_queue *q)
{
	struct nbd_poll *polls[] = { &c->in, &c->out };

	nbd_close(c->h);
	c->h = NULL;
	c->closed = true;
	for (unsigned i = 0; i < 2; i++) {
		struct io_uring_sqe *sqe;

		if (!polls[i]->armed)
			continue;
		sqe = vublk_queue_get_sqe(q);
		io_uring_prep_cancel(sqe, &polls[i]->ev, 0);
		vublk_sqe_set_event(sqe, &nbd_conn_cancel_ev);
	}
	return nbd_conn_polls_done(c);
}

void nbd_conn_free(struct nbd_conn *c)
{
	if (c->h)
		nbd_close(c->h);
	free(c);
}
