// SPDX-License-Identifier: GPL-2.0-only
/*
 * queue.c - one queue thread of the server: it owns one io_uring, arms a
 * FETCH_REQ for every tag, and turns each fetched request into a call of
 * the target, whose answer goes back as COMMIT_AND_FETCH_REQ (which also
 * re-arms the tag).
 *
 * Mirrors the kernel selftest server (tools/testing/selftests/ublk/kublk.c:
 * ublk_queue_io_cmd(), ublk_handle_cqe(), ublk_process_io()) and ublksrv
 * (lib/ublksrv.c).  A request is validated once, here (validate.c), before
 * the target sees it.  CQEs of the target's backends carry a struct
 * vublk_ring_event and go straight to it (ring.h).
 */
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "clock.h"
#include "core.h"

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/* user_data of the core's SQEs (odd, ring.h): a tag's FETCH or COMMIT, a
 * tag's buffer (un)registration, or the poll on the stop eventfd. */
enum ublk_ud_kind { UBLK_UD_CMD, UBLK_UD_REG, UBLK_UD_UNREG };
#define UBLK_UD_STOP UINT64_MAX

static uint64_t ublk_ud(enum ublk_ud_kind kind, unsigned tag)
{
	return 1 | (uint64_t)kind << 1 | (uint64_t)tag << 3;
}

static enum ublk_ud_kind ublk_ud_kind(uint64_t ud)
{
	return (enum ublk_ud_kind)(ud >> 1 & 3);
}

static unsigned ublk_ud_tag(uint64_t ud)
{
	return (unsigned)(ud >> 3);
}

const char *const ublk_stat_names[UBLK_STAT_NR] = {
	"reads", "writes", "flushes", "discards", "write_zeroes",
	"readahead", "fua", "errors", "invalid", "registered_buffer_ios",
};
_Static_assert(sizeof(ublk_stat_names) / sizeof(ublk_stat_names[0]) ==
	       UBLK_STAT_NR, "a name for every counter");

static size_t ublk_page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

static size_t round_up_size(size_t n, size_t align)
{
	return (n + align - 1) / align * align;
}

static void ublk_stat_add(struct ublk_queue_ctx *qc, enum ublk_stat s)
{
	__atomic_fetch_add(&qc->stats[s], 1, __ATOMIC_RELAXED);
}

void ublk_notify(int efd)
{
	uint64_t one = 1;

	/* Cannot fail short of a counter overflow (2^64 - 1 events). */
	if (write(efd, &one, sizeof(one)) != sizeof(one))
		vublk_error("eventfd write failed: %s", strerror(errno));
}

/* ---- commands and dispatch ---- */

static char *ublk_queue_buf(const struct ublk_queue_ctx *qc, unsigned tag)
{
	return qc->bufs + (size_t)tag * qc->srv->limits.max_io_bytes;
}

/* A uring_cmd SQE for /dev/ublkcN: op (encoded already), cmd, user_data. */
static struct io_uring_sqe *ublk_queue_uring_cmd(struct ublk_queue_ctx *qc,
						 unsigned op,
						 const struct ublksrv_io_cmd *cmd,
						 uint64_t user_data)
{
	/* Never NULL: a full ring keeps it for later (ring.c), so no
	 * commit is ever dropped and no kernel request left waiting. */
	struct io_uring_sqe *sqe = vublk_ring_get_sqe(&qc->ring);

	/* No prep helper for a uring_cmd in liburing 2.3: every field that
	 * the slot's previous SQE set (rw_flags is uring_cmd_flags here)
	 * must be cleared by hand. */
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = qc->srv->cdev_fd;
	sqe->cmd_op = op;
	sqe->user_data = user_data;
	memcpy(sqe->cmd, cmd, sizeof(*cmd));
	return sqe;
}

/* Arm tag: FETCH_REQ, or COMMIT_AND_FETCH_REQ with the previous result. */
static void ublk_queue_io_cmd(struct ublk_queue_ctx *qc, unsigned tag,
			      unsigned cmd_op, int result)
{
	const struct vublk_server *srv = qc->srv;
	struct ublksrv_io_cmd cmd = {
		.q_id = qc->pub.q_id,
		.tag = tag,
		.result = result,
	};
	struct io_uring_sqe *sqe;

	/*
	 * Where the request's data goes: our buffer for the tag, which the
	 * driver copies to or from the request's pages; or, zero copy, the
	 * tag's slot of the ring's buffer table, where the driver registers
	 * those pages (struct ublk_auto_buf_reg in sqe->addr: index = tag,
	 * no flags) or we do (ublk_queue_buf_cmd()); cmd.addr must then
	 * be 0 (ublk_check_fetch_buf()).
	 */
	if (!ublk_server_zero_copy(srv))
		cmd.addr = (uint64_t)(uintptr_t)ublk_queue_buf(qc, tag);
	/* Encoded as the control commands are (ctrl.c: ublk_ctrl_probe()). */
	sqe = ublk_queue_uring_cmd(qc, srv->ctrl.encoded ? VUBLK_U_IO(cmd_op) :
							  cmd_op,
				   &cmd, ublk_ud(UBLK_UD_CMD, tag));
	if (ublk_server_zero_copy(srv) && !ublk_server_explicit_buf_reg(srv))
		sqe->addr = tag;
	qc->cmds_in_kernel++;
}

/*
 * Explicit zero copy (UBLK_F_SUPPORT_ZERO_COPY without AUTO_BUF_REG,
 * 6.15): the request's pages become buffer tag of the ring before the
 * target gets the request, and stop being one when it completes, as
 * kublk's loop does (tools/testing/selftests/ublk/file_backed.c:
 * loop_queue_tgt_rw_io()).  The registration is waited for (its CQE)
 * rather than linked to the backend's SQE, which the core does not make.
 */
static void ublk_queue_buf_cmd(struct ublk_queue_ctx *qc, unsigned tag,
			       bool reg)
{
	struct ublksrv_io_cmd cmd = {
		.q_id = qc->pub.q_id,
		.tag = tag,
		.addr = tag,		/* the buffer table's index */
	};
	struct io_uring_sqe *sqe;

	sqe = ublk_queue_uring_cmd(qc, reg ? UBLK_U_IO_REGISTER_IO_BUF :
					     UBLK_U_IO_UNREGISTER_IO_BUF,
				   &cmd, ublk_ud(reg ? UBLK_UD_REG : UBLK_UD_UNREG,
						 tag));
	/* An unregistration is heard of only if it fails. */
	if (!reg)
		sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
}

void vublk_complete_io(struct vublk_queue *q, unsigned tag, int res)
{
	struct ublk_queue_ctx *qc = container_of(q, struct ublk_queue_ctx, pub);

	qc->reqs_in_target--;
	if (res < 0)
		ublk_stat_add(qc, UBLK_STAT_ERRORS);
	/* The request completes once both are done, in either order. */
	if (qc->registered && qc->registered[tag]) {
		qc->registered[tag] = false;
		ublk_queue_buf_cmd(qc, tag, false);
	}
	ublk_queue_io_cmd(qc, tag, UBLK_IO_COMMIT_AND_FETCH_REQ, res);
}

static void ublk_queue_count(struct ublk_queue_ctx *qc,
			     const struct vublk_req *req)
{
	ublk_stat_add(qc, (enum ublk_stat)req->op);
	if (req->flags & VUBLK_REQ_READAHEAD)
		ublk_stat_add(qc, UBLK_STAT_READAHEAD);
	if (req->flags & VUBLK_REQ_FUA)
		ublk_stat_add(qc, UBLK_STAT_FUA);
	if (req->flags & VUBLK_REQ_REG_BUF)
		ublk_stat_add(qc, UBLK_STAT_REG_BUF);
}

static void ublk_queue_to_target(struct ublk_queue_ctx *qc, unsigned tag,
				 struct vublk_req *req)
{
	int ret = qc->srv->tgt->ops->queue_io(&qc->pub, tag, req);

	if (ret != VUBLK_IO_QUEUED)
		vublk_complete_io(&qc->pub, tag, ret);
}

static void ublk_queue_stop_refused(struct ublk_queue_ctx *qc, unsigned tag,
				    const char *what, int res);

/* A request arrived on tag: validate it once, then give it to the target. */
static void ublk_queue_dispatch(struct ublk_queue_ctx *qc, unsigned tag)
{
	const struct vublk_server *srv = qc->srv;
	/* Copy: the iod is the kernel's, read it exactly once. */
	struct ublksrv_io_desc iod = qc->iods[tag];
	struct vublk_req req;
	const char *why;

	if (ublk_validate_iod(&iod, &srv->limits, &req, &why) < 0) {
		vublk_error("queue %u tag %u: invalid request (op %u, sector %llu, %u sectors): %s; failing it with EIO",
			    qc->pub.q_id, tag, ublksrv_get_op(&iod),
			    (unsigned long long)iod.start_sector,
			    iod.nr_sectors, why);
		ublk_stat_add(qc, UBLK_STAT_INVALID);
		ublk_queue_io_cmd(qc, tag, UBLK_IO_COMMIT_AND_FETCH_REQ, -EIO);
		return;
	}
	if (ublk_server_zero_copy(srv)) {
		req.flags |= VUBLK_REQ_FIXED_BUF;
		req.buf_index = tag;
	} else {
		req.buf = ublk_queue_buf(qc, tag);
		if (vublk_req_has_data(&req) &&
		    vublk_ring_buffer_ready(&qc->ring, qc->pub.q_id, tag,
					    req.len)) {
			req.flags |= VUBLK_REQ_REG_BUF;
			req.buf_index = tag;
		}
	}
	ublk_queue_count(qc, &req);
	qc->reqs_in_target++;
	if (qc->test_fail_after && ++qc->dispatched == qc->test_fail_after)
		ublk_queue_stop_refused(qc, tag,
					"a command (VUBLK_TEST_FAIL_QUEUE_AFTER)",
					-EIO);
	if (ublk_server_explicit_buf_reg(srv) && vublk_req_has_data(&req)) {
		qc->registering[tag] = req;
		ublk_queue_buf_cmd(qc, tag, true);
		return;
	}
	ublk_queue_to_target(qc, tag, &req);
}

/* Its buffer registered (or not), the request goes to the target. */
static void ublk_queue_handle_reg_cqe(struct ublk_queue_ctx *qc,
				      unsigned tag, int res)
{
	if (res < 0) {
		vublk_error("queue %u tag %u: the ublk driver refused to register the request's pages (zero copy): %s; failing it with EIO",
			    qc->pub.q_id, tag, strerror(-res));
		vublk_complete_io(&qc->pub, tag, -EIO);
		return;
	}
	qc->registered[tag] = true;
	if (qc->failing) {
		vublk_complete_io(&qc->pub, tag, -EIO);
		return;
	}
	ublk_queue_to_target(qc, tag, &qc->registering[tag]);
}

/*
 * The driver refused what a tag needed (what: "a command", ...): the
 * queue stops, and the device with it, which fails whatever waits.  One
 * line per queue: a driver that refuses one tag's command usually
 * refuses every tag's, and 128 lines would hide the first.
 */
static void ublk_queue_stop_refused(struct ublk_queue_ctx *qc, unsigned tag,
				    const char *what, int res)
{
	if (!qc->failed)
		vublk_error("queue %u tag %u: the ublk driver refused %s: %s; stopping the device so that no request waits forever",
			    qc->pub.q_id, tag, what, strerror(-res));
	qc->failed = true;
}

static void ublk_queue_handle_cmd_cqe(struct ublk_queue_ctx *qc,
				      unsigned tag, int res)
{
	qc->cmds_in_kernel--;
	if (res == UBLK_IO_RES_OK) {
		if (!qc->failing) {
			ublk_queue_dispatch(qc, tag);
			return;
		}
		/* Failing: nothing new for the target.  Failed at once,
		 * and the tag armed again: closing the ring aborts the
		 * queue's requests only by cancelling an armed command
		 * (ublk_uring_cmd_cancel_fn()), and a tag left holding a
		 * request would leave it to the block layer's timeout. */
		ublk_stat_add(qc, UBLK_STAT_ERRORS);
		ublk_queue_io_cmd(qc, tag, UBLK_IO_COMMIT_AND_FETCH_REQ, -EIO);
		return;
	}
	/* UBLK_IO_RES_ABORT: the device is stopping, don't re-arm. */
	if (res == UBLK_IO_RES_ABORT)
		return;
	/*
	 * The driver refused the command: the tag is no longer armed, and
	 * if a request was committed with it, that request still waits in
	 * the kernel.  Nothing can re-arm it safely, so the queue stops.
	 */
	ublk_queue_stop_refused(qc, tag, "a command", res);
}

/*
 * Only a failed unregistration has a CQE.  The request it belongs to
 * completes only once its pages are released, so it would wait in the
 * kernel forever: stop, as for a refused command.
 */
static void ublk_queue_handle_unreg_cqe(struct ublk_queue_ctx *qc,
					unsigned tag, int res)
{
	ublk_queue_stop_refused(qc, tag,
				"to release the request's pages (zero copy)", res);
}

static void ublk_queue_handle_cqe(struct ublk_queue_ctx *qc,
				  const struct io_uring_cqe *cqe)
{
	uint64_t ud = cqe->user_data;

	if (!vublk_ud_is_core(ud))
		vublk_ring_event_done(&qc->pub, cqe);
	else if (ud == UBLK_UD_STOP)
		qc->stop_requested = true;
	else if (ublk_ud_kind(ud) == UBLK_UD_REG)
		ublk_queue_handle_reg_cqe(qc, ublk_ud_tag(ud), cqe->res);
	else if (ublk_ud_kind(ud) == UBLK_UD_UNREG)
		ublk_queue_handle_unreg_cqe(qc, ublk_ud_tag(ud), cqe->res);
	else
		ublk_queue_handle_cmd_cqe(qc, ublk_ud_tag(ud), cqe->res);
}

static bool ublk_queue_done(const struct ublk_queue_ctx *qc)
{
	/* Target I/O always finishes; armed commands are either aborted by
	 * the driver or cancelled when the ring closes. */
	return qc->reqs_in_target == 0 &&
	       (qc->cmds_in_kernel == 0 || qc->stop_requested);
}

/*
 * Submit what is queued, wait for a CQE (at most *ts if ts), and handle
 * every CQE there is, even when the wait failed; 0, or the wait's -errno.
 */
static int ublk_queue_run_once(struct ublk_queue_ctx *qc,
			       struct __kernel_timespec *ts)
{
	const struct vublk_tgt_ops *ops = qc->srv->tgt->ops;
	struct io_uring_cqe *cqe;
	unsigned head, n = 0;
	int ret = vublk_ring_submit(&qc->ring, 1, ts);

	io_uring_for_each_cqe(&qc->ring.ring, head, cqe) {
		ublk_queue_handle_cqe(qc, cqe);
		n++;
	}
	io_uring_cq_advance(&qc->ring.ring, n);
	if (ops->queue_batch_end)
		ops->queue_batch_end(&qc->pub);
	if (ret == -EINTR || ret == -EBUSY || ret == -ETIME)
		return 0;
	return ret < 0 ? ret : 0;
}

/*
 * The driver refused a command, or the ring lost an SQE: a request may
 * wait in the kernel that this queue can no longer answer, so the device
 * must stop.  Until it does, the queue goes on serving, but not as
 * before: the requests in its target finish and are committed (a read
 * may still be writing into a tag buffer, which teardown would free),
 * and every new request fails at once with EIO, its tag armed again.  A
 * request the queue held when its thread ended would wait for the block
 * layer's timeout: closing the ring aborts only what is armed
 * (ublk_uring_cmd_cancel_fn()), and the device's stop (STOP_DEV) waits
 * for every request.  The queue then ends as at any stop, once the
 * driver has aborted its commands (ublk_queue_done()), as the kernel's
 * ublk selftest server leaves its loop only when its queue is idle
 * (kublk.c: ublk_queue_is_done()).
 */
static void ublk_queue_fail(struct ublk_queue_ctx *qc)
{
	unsigned n = qc->reqs_in_target;

	qc->failing = true;
	vublk_info("queue %u: failing new requests until the device stops (%u request%s still in the target)",
		   qc->pub.q_id, n, vublk_plural(n));
	__atomic_store_n(&qc->srv->queue_failed, true, __ATOMIC_RELEASE);
	ublk_notify(qc->srv->stop_req_efd);
}

static int ublk_queue_serve(struct ublk_queue_ctx *qc)
{
	int ret;

	while (!ublk_queue_done(qc)) {
		ret = ublk_queue_run_once(qc, NULL);
		if (ret < 0) {
			vublk_error("queue %u: io_uring wait failed: %s",
				    qc->pub.q_id, strerror(-ret));
			return ret;
		}
		if ((qc->failed || qc->ring.broken) && !qc->failing)
			ublk_queue_fail(qc);
	}
	/* Send the last commits (the driver ignores them once aborted). */
	ret = vublk_ring_submit(&qc->ring, 0, NULL);
	if (ret < 0)
		return ret;
	return qc->failing ? -EIO : 0;
}

/* How long a queue whose wait failed waits for its target's I/O. */
#define UBLK_QUEUE_DRAIN_SECONDS 30

/*
 * The queue's io_uring wait itself failed: it cannot serve on.  The
 * requests still in its target may be writing into a tag buffer or the
 * target's memory, which teardown frees, so wait for them first, as
 * ublk_queue_fail() does while serving, reaping CQEs ten times a second.
 * Bounded: a wait that keeps failing may never deliver them; teardown
 * then goes ahead, and says so.
 */
static void ublk_queue_drain(struct ublk_queue_ctx *qc)
{
	struct __kernel_timespec tick = { .tv_sec = 1 };
	uint64_t start = vublk_now_ns(), waited_ns = 0;
	unsigned n = qc->reqs_in_target;
	int ret = 0, sent;

	qc->failing = true;
	if (!n)
		return;
	vublk_info("queue %u: waiting for %u request%s still in the target before stopping",
		   qc->pub.q_id, n, vublk_plural(n));
	while (qc->reqs_in_target &&
	       waited_ns < UBLK_QUEUE_DRAIN_SECONDS * VUBLK_NS_PER_S) {
		ret = ublk_queue_run_once(qc, &tick);
		/* A wait that fails returns at once: the CQEs that come
		 * are still reaped, ten times a second. */
		if (ret < 0)
			usleep(100 * 1000);
		waited_ns = vublk_now_ns() - start;
	}
	/* The last batch's commits, which the loop queued but did not
	 * send (as at the end of ublk_queue_serve()). */
	sent = vublk_ring_submit(&qc->ring, 0, NULL);
	if (sent < 0)
		vublk_error("queue %u: cannot send the last commits: %s",
			    qc->pub.q_id, strerror(-sent));
	n = qc->reqs_in_target;
	if (n)
		vublk_error("queue %u: %u request%s still in the target after %ld s%s%s; stopping anyway",
			    qc->pub.q_id, n, vublk_plural(n),
			    (long)(waited_ns / VUBLK_NS_PER_S),
			    ret < 0 ? ", io_uring wait failing: " : "",
			    ret < 0 ? strerror(-ret) : "");
}

/* ---- setup and teardown, in the queue's own thread ---- */

static int ublk_queue_map_iods(struct ublk_queue_ctx *qc)
{
	size_t page = ublk_page_size();
	/* ublk_drv.c: queue q's iods are at q * ublk_max_cmd_buf_size(),
	 * ublk_queue_cmd_buf_size() bytes long, and must be mapped
	 * read-only (ublk_ch_mmap() refuses VM_WRITE). */
	size_t max_cmd_buf = round_up_size(UBLK_MAX_QUEUE_DEPTH *
					   sizeof(struct ublksrv_io_desc), page);
	off_t off = UBLKSRV_CMD_BUF_OFFSET + (off_t)qc->pub.q_id * max_cmd_buf;
	void *p;

	qc->iods_size = round_up_size(qc->pub.depth *
				      sizeof(struct ublksrv_io_desc), page);
	p = mmap(NULL, qc->iods_size, PROT_READ, MAP_SHARED | MAP_POPULATE,
		 qc->srv->cdev_fd, off);
	if (p == MAP_FAILED) {
		vublk_error("queue %u: cannot map the request descriptors of /dev/ublkc%u: %s",
			    qc->pub.q_id, qc->srv->info.dev_id, strerror(errno));
		return -errno;
	}
	qc->iods = p;
	return 0;
}

static int ublk_queue_alloc_bufs(struct ublk_queue_ctx *qc)
{
	/* Anonymous memory is page aligned (O_DIRECT backends need that)
	 * and only touched pages are backed, unless the target asked for
	 * the buffers registered (ublk_queue_init_ring()). */
	void *p;

	qc->bufs_size = (size_t)qc->pub.depth * qc->srv->limits.max_io_bytes;
	p = mmap(NULL, qc->bufs_size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		vublk_error("queue %u: cannot allocate %zu bytes of request buffers: %s",
			    qc->pub.q_id, qc->bufs_size, strerror(errno));
		return -errno;
	}
	qc->bufs = p;
	return 0;
}

static int ublk_queue_init_ring(struct ublk_queue_ctx *qc)
{
	const struct vublk_server *srv = qc->srv;
	int ret = vublk_ring_init(&qc->ring, qc->pub.q_id, qc->pub.depth);

	qc->ring_ready = !ret;
	qc->pub.ring = &qc->ring;
	if (ret)
		return ret;
	if (!ublk_server_zero_copy(srv)) {
		/* Our buffers: registered where the backend DMAs into them;
		 * the queue runs as well without. */
		if (srv->tgt->register_buffers)
			vublk_ring_register_buffers(&qc->ring, qc->pub.q_id,
						    qc->bufs, qc->pub.depth,
						    srv->limits.max_io_bytes);
		return 0;
	}
	/* Zero copy: an empty buffer table, one slot per tag, for the
	 * driver to fill (kublk: ublk_thread_init()).  Kernel pages pin
	 * nothing of ours, so RLIMIT_MEMLOCK does not apply. */
	ret = io_uring_register_buffers_sparse(&qc->ring.ring, qc->pub.depth);
	if (ret < 0)
		vublk_error("queue %u: cannot register a buffer table of %u slots for zero copy: %s",
			    qc->pub.q_id, qc->pub.depth, strerror(-ret));
	return ret;
}

static int ublk_queue_arm(struct ublk_queue_ctx *qc)
{
	struct io_uring_sqe *sqe;
	unsigned tag;
	int ret;

	for (tag = 0; tag < qc->pub.depth; tag++)
		ublk_queue_io_cmd(qc, tag, UBLK_IO_FETCH_REQ, 0);
	sqe = vublk_ring_get_sqe(&qc->ring);
	io_uring_prep_poll_add(sqe, qc->srv->stop_efd, POLLIN);
	sqe->user_data = UBLK_UD_STOP;
	ret = vublk_ring_submit(&qc->ring, 0, NULL);
	if (ret < 0) {
		vublk_error("queue %u: cannot submit the fetch commands: %s",
			    qc->pub.q_id, strerror(-ret));
		return ret;
	}
	return qc->ring.broken ? -ENOMEM : 0;
}

/* Explicit zero copy: where a request waits for its registration. */
static int ublk_queue_alloc_reg(struct ublk_queue_ctx *qc)
{
	qc->registering = calloc(qc->pub.depth, sizeof(*qc->registering));
	qc->registered = calloc(qc->pub.depth, sizeof(*qc->registered));
	if (qc->registering && qc->registered)
		return 0;
	vublk_error("queue %u: no memory for its zero copy state",
		    qc->pub.q_id);
	return -ENOMEM;
}

/* $VUBLK_TEST_FAIL_QUEUE_AFTER=N (tests of ublk_queue_fail()). */
static void ublk_queue_test_hooks(struct ublk_queue_ctx *qc)
{
	const char *v = getenv("VUBLK_TEST_FAIL_QUEUE_AFTER");

	if (v && *v &&
	    vublk_parse_u64("VUBLK_TEST_FAIL_QUEUE_AFTER", v, 1, UINT64_MAX,
			    &qc->test_fail_after))
		qc->test_fail_after = 0;
}

/* What needs no device: buffers, ring, the target's queue state. */
static int ublk_queue_prepare(struct ublk_queue_ctx *qc)
{
	const struct vublk_tgt_ops *ops = qc->srv->tgt->ops;
	int ret;

	ublk_queue_test_hooks(qc);
	if (!ublk_server_zero_copy(qc->srv))
		ret = ublk_queue_alloc_bufs(qc);
	else if (ublk_server_explicit_buf_reg(qc->srv))
		ret = ublk_queue_alloc_reg(qc);
	else
		ret = 0;
	if (!ret)
		ret = ublk_queue_init_ring(qc);
	if (!ret) {
		ret = ops->queue_init(&qc->pub);
		qc->tgt_ready = !ret;
	}
	return ret;
}

/* Wait for the main thread to open /dev/ublkcN (or to give up). */
static int ublk_queue_wait_go(struct ublk_queue_ctx *qc)
{
	uint64_t v;

	while (read(qc->srv->go_efd, &v, sizeof(v)) < 0)
		if (errno != EINTR)
			return -errno;
	return __atomic_load_n(&qc->srv->queues_go, __ATOMIC_ACQUIRE) ?
	       0 : -ECANCELED;
}

static void ublk_queue_set_stage(struct ublk_queue_ctx *qc, int stage)
{
	__atomic_store_n(&qc->setup_ret, stage, __ATOMIC_RELEASE);
	ublk_notify(qc->srv->ready_efd);
}

/* Prepare, wait to be released, then map and fetch: the stage reached
 * is published at each step; 0 when serving may begin. */
static int ublk_queue_setup(struct ublk_queue_ctx *qc)
{
	int ret = ublk_queue_prepare(qc);

	ublk_queue_set_stage(qc, ret ? ret : UBLK_QUEUE_PREPARED);
	if (ret)
		return ret;
	ret = ublk_queue_wait_go(qc);
	if (!ret)
		ret = ublk_queue_map_iods(qc);
	if (!ret)
		ret = ublk_queue_arm(qc);
	ublk_queue_set_stage(qc, ret ? ret : UBLK_QUEUE_READY);
	return ret;
}

static void ublk_queue_teardown(struct ublk_queue_ctx *qc)
{
	const struct vublk_tgt_ops *ops = qc->srv->tgt->ops;

	if (qc->tgt_ready)
		ops->queue_deinit(&qc->pub);
	/* Closing the ring cancels commands still armed in the driver. */
	if (qc->ring_ready)
		vublk_ring_exit(&qc->ring);
	if (qc->bufs)
		munmap(qc->bufs, qc->bufs_size);
	free(qc->registering);
	free(qc->registered);
	if (qc->iods)
		munmap((void *)qc->iods, qc->iods_size);
}

void *ublk_queue_thread(void *arg)
{
	struct ublk_queue_ctx *qc = arg;
	int ret = ublk_queue_setup(qc);

	if (!ret && ublk_queue_serve(qc) < 0) {
		vublk_error("queue %u stopped on an error", qc->pub.q_id);
		ublk_queue_drain(qc);
	}
	ublk_queue_teardown(qc);
	__atomic_store_n(&qc->exited, true, __ATOMIC_RELEASE);
	ublk_notify(qc->srv->exit_efd);
	return NULL;
}

int ublk_queue_status(const struct ublk_queue_ctx *qc)
{
	if (__atomic_load_n(&qc->exited, __ATOMIC_ACQUIRE))
		return qc->setup_ret < 0 ? qc->setup_ret : -ECANCELED;
	return __atomic_load_n(&qc->setup_ret, __ATOMIC_ACQUIRE);
}
