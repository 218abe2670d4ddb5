// SPDX-License-Identifier: GPL-2.0-only
/*
 * ublk.c - the vublk server: one ublk device, one thread per queue.
 *
 * Mirrors the kernel selftest server (tools/testing/selftests/ublk/kublk.c)
 * and ublksrv (lib/ublksrv.c):
 *  - ADD_DEV, SET_PARAMS, then each queue thread maps its slice of the iod
 *    array read-only from /dev/ublkcN, issues FETCH_REQ for every tag and
 *    reports ready; only then does the main thread issue START_DEV, which
 *    sleeps in the driver until all queues fetched (ublk_drv.c:
 *    ublk_ctrl_start_dev() waits on ub->completion) and then runs
 *    add_disk(), whose partition scan is served by those queues.
 *  - A request arrives as the CQE of its tag's fetch command; it is
 *    validated once (ublk_validate.c), handed to the target, and answered
 *    with COMMIT_AND_FETCH_REQ carrying the result, which also re-arms the
 *    tag.
 *  - Stop: STOP_DEV removes the disk (del_gendisk() drains the queued I/O,
 *    which the queues still serve), then the driver completes every armed
 *    command with UBLK_IO_RES_ABORT (ublk_drv.c: ublk_cancel_dev()).  The
 *    queues finish their target I/O and exit; the char device is closed,
 *    and DEL_DEV, which waits for that close, removes the device.
 *  - A server that dies (kill -9) never gets here: closing its io_urings
 *    cancels the armed commands, and the driver aborts the device's I/O and
 *    stops the disk itself (ublk_drv.c: ublk_uring_cmd_cancel_fn(),
 *    ublk_nosrv_work()); the device stays until someone sends DEL_DEV.
 *    With UBLK_F_USER_RECOVERY the driver instead quiesces the disk
 *    (UBLK_S_DEV_QUIESCED; new I/O waits) and a new server takes over
 *    (cfg->recover): START_USER_RECOVERY, the same queue setup and
 *    fetches, END_USER_RECOVERY with the new pid instead of START_DEV.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ublk.h"

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/* user_data of the stop poll; core commands carry tag | cmd_op << 16. */
#define UBLK_UD_STOP (1ULL << 62)

/* How long the device nodes may take to appear (devtmpfs/udev). */
#define UBLK_NODE_WAIT_MS 5000
/*
 * How long queue threads may take to set up and fetch every tag.  10 s
 * was seen to run out for 2 x 128 tags in a TCG guest on a host at load
 * 20; the bound is there to report a broken kernel, not to be tight.
 */
#define UBLK_QUEUE_READY_MS 30000
/* Stats file refresh period. */
#define UBLK_STATS_PERIOD_MS 1000

enum ublk_stat {
	UBLK_STAT_READ, UBLK_STAT_WRITE, UBLK_STAT_FLUSH, UBLK_STAT_DISCARD,
	UBLK_STAT_WRITE_ZEROES,	/* indexed by enum vublk_op */
	UBLK_STAT_READAHEAD, UBLK_STAT_FUA, UBLK_STAT_ERRORS,
	UBLK_STAT_INVALID, UBLK_STAT_NR
};

static const char *const ublk_stat_names[UBLK_STAT_NR] = {
	"reads", "writes", "flushes", "discards", "write_zeroes",
	"readahead", "fua", "errors", "invalid",
};

struct vublk_server;

struct ublk_queue_ctx {
	struct vublk_queue pub;		/* what the target sees */
	struct vublk_server *srv;
	struct io_uring ring;
	bool ring_ready;
	bool tgt_ready;			/* ops->queue_init succeeded */
	const struct ublksrv_io_desc *iods;
	size_t iods_size;
	char *bufs;			/* depth x max_io_bytes, page aligned */
	size_t bufs_size;
	unsigned cmds_in_kernel;	/* armed FETCH / COMMIT_AND_FETCH */
	unsigned reqs_in_target;	/* passed to queue_io, not completed */
	bool stop_requested;
	int setup_ret;			/* atomic: 0, 1 ready, or -errno */
	bool exited;			/* atomic: the thread is ending */
	pthread_t thread;
	bool thread_started;
	uint64_t stats[UBLK_STAT_NR];	/* atomic, relaxed */
};

struct vublk_server {
	const struct vublk_server_cfg *cfg;
	struct vublk_tgt *tgt;
	struct ublk_ctrl ctrl;
	struct ublksrv_ctrl_dev_info info;
	bool tgt_ready, dev_added, dev_started;
	int cdev_fd;
	struct vublk_io_limits limits;
	struct ublk_queue_ctx *queues;
	int stop_efd;		/* main -> queues: stop when idle */
	int ready_efd;		/* queues -> main: set up (or failed to) */
	int exit_efd;		/* queues -> main: a queue thread ended */
	int signal_fd;
};

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

/* ------------------------------------------------------------------ */
/* Queue side: SQEs, commands, dispatch. */

struct io_uring_sqe *vublk_queue_get_sqe(struct vublk_queue *q)
{
	struct ublk_queue_ctx *qc = container_of(q, struct ublk_queue_ctx, pub);
	struct io_uring_sqe *sqe = io_uring_get_sqe(&qc->ring);

	/* The SQ holds depth x (1 + VUBLK_TGT_SQES_PER_REQ) entries, more
	 * than can be in flight; a full SQ only means "submit first". */
	if (!sqe && io_uring_submit(&qc->ring) >= 0)
		sqe = io_uring_get_sqe(&qc->ring);
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
		.addr = (uint64_t)(uintptr_t)(qc->bufs +
					      (size_t)tag * srv->limits.max_io_bytes),
	};
	struct io_uring_sqe *sqe = vublk_queue_get_sqe(&qc->pub);

	if (!sqe) {	/* impossible by the SQ sizing above */
		vublk_error("queue %u: no free SQE for tag %u", qc->pub.q_id, tag);
		return;
	}
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = srv->cdev_fd;
	sqe->cmd_op = cmd_op;
	sqe->user_data = tag | (uint64_t)cmd_op << 16;
	memcpy(sqe->cmd, &cmd, sizeof(cmd));
	qc->cmds_in_kernel++;
}

void vublk_complete_io(struct vublk_queue *q, unsigned tag, int res)
{
	struct ublk_queue_ctx *qc = container_of(q, struct ublk_queue_ctx, pub);

	qc->reqs_in_target--;
	if (res < 0)
		ublk_stat_add(qc, UBLK_STAT_ERRORS);
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
}

/* A request arrived on tag: validate it once, then give it to the target. */
static void ublk_queue_dispatch(struct ublk_queue_ctx *qc, unsigned tag)
{
	const struct vublk_server *srv = qc->srv;
	/* Copy: the iod is the kernel's, read it exactly once. */
	struct ublksrv_io_desc iod = qc->iods[tag];
	struct vublk_req req;
	const char *why;
	int ret;

	if (ublk_validate_iod(&iod, &srv->limits, &req, &why) < 0) {
		vublk_error("queue %u tag %u: invalid request (op %u, sector %llu, %u sectors): %s; failing it with EIO",
			    qc->pub.q_id, tag, ublksrv_get_op(&iod),
			    (unsigned long long)iod.start_sector,
			    iod.nr_sectors, why);
		ublk_stat_add(qc, UBLK_STAT_INVALID);
		ublk_queue_io_cmd(qc, tag, UBLK_IO_COMMIT_AND_FETCH_REQ, -EIO);
		return;
	}
	req.buf = qc->bufs + (size_t)tag * srv->limits.max_io_bytes;
	ublk_queue_count(qc, &req);
	qc->reqs_in_target++;
	ret = srv->tgt->ops->queue_io(&qc->pub, tag, &req);
	if (ret < 0)
		vublk_complete_io(&qc->pub, tag, ret);
}

static void ublk_queue_handle_cmd_cqe(struct ublk_queue_ctx *qc,
				      unsigned tag, int res)
{
	qc->cmds_in_kernel--;
	if (res == UBLK_IO_RES_OK) {
		ublk_queue_dispatch(qc, tag);
		return;
	}
	/* UBLK_IO_RES_ABORT: the device is stopping, don't re-arm. */
	if (res != UBLK_IO_RES_ABORT)
		vublk_error("queue %u tag %u: ublk I/O command failed: %s",
			    qc->pub.q_id, tag, strerror(-res));
}

static void ublk_queue_handle_cqe(struct ublk_queue_ctx *qc,
				  const struct io_uring_cqe *cqe)
{
	uint64_t ud = cqe->user_data;

	if (vublk_ud_is_tgt_io(ud))
		qc->srv->tgt->ops->io_done(&qc->pub, vublk_ud_tag(ud), cqe);
	else if (ud == UBLK_UD_STOP)
		qc->stop_requested = true;
	else
		ublk_queue_handle_cmd_cqe(qc, vublk_ud_tag(ud), cqe->res);
}

static bool ublk_queue_done(const struct ublk_queue_ctx *qc)
{
	/* Target I/O always finishes; armed commands are either aborted by
	 * the driver or cancelled when the ring closes. */
	return qc->reqs_in_target == 0 &&
	       (qc->cmds_in_kernel == 0 || qc->stop_requested);
}

static int ublk_queue_serve(struct ublk_queue_ctx *qc)
{
	struct io_uring_cqe *cqe;
	unsigned head, n;
	int ret;

	while (!ublk_queue_done(qc)) {
		ret = io_uring_submit_and_wait(&qc->ring, 1);
		if (ret < 0 && ret != -EINTR && ret != -EBUSY) {
			vublk_error("queue %u: io_uring wait failed: %s",
				    qc->pub.q_id, strerror(-ret));
			return ret;
		}
		n = 0;
		io_uring_for_each_cqe(&qc->ring, head, cqe) {
			ublk_queue_handle_cqe(qc, cqe);
			n++;
		}
		io_uring_cq_advance(&qc->ring, n);
	}
	/* Send the last commits (the driver ignores them once aborted). */
	ret = io_uring_submit(&qc->ring);
	return ret < 0 ? ret : 0;
}

/* ------------------------------------------------------------------ */
/* Queue setup and teardown, in the queue's own thread. */

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
	/* Anonymous memory is page aligned (O_DIRECT targets need that) and
	 * only touched pages are backed. */
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
	struct io_uring_params p = {
		/* One issuer (this thread); no IPI for task work: completions
		 * are reaped when we wait anyway (kublk sets the same). */
		.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN,
	};
	unsigned entries = qc->pub.depth * (1 + VUBLK_TGT_SQES_PER_REQ) + 8;
	int ret = io_uring_queue_init_params(entries, &qc->ring, &p);

	if (ret < 0) {
		vublk_error("queue %u: cannot create an io_uring of %u entries: %s",
			    qc->pub.q_id, entries, strerror(-ret));
		return ret;
	}
	qc->ring_ready = true;
	return 0;
}

static int ublk_queue_arm(struct ublk_queue_ctx *qc)
{
	struct io_uring_sqe *sqe;
	unsigned tag;
	int ret;

	for (tag = 0; tag < qc->pub.depth; tag++)
		ublk_queue_io_cmd(qc, tag, UBLK_IO_FETCH_REQ, 0);
	sqe = vublk_queue_get_sqe(&qc->pub);
	if (!sqe)
		return -EBUSY;
	io_uring_prep_poll_add(sqe, qc->srv->stop_efd, POLLIN);
	sqe->user_data = UBLK_UD_STOP;
	ret = io_uring_submit(&qc->ring);
	if (ret < 0) {
		vublk_error("queue %u: cannot submit the fetch commands: %s",
			    qc->pub.q_id, strerror(-ret));
		return ret;
	}
	return 0;
}

static int ublk_queue_setup(struct ublk_queue_ctx *qc)
{
	const struct vublk_tgt_ops *ops = qc->srv->tgt->ops;
	int ret;

	ret = ublk_queue_map_iods(qc);
	if (!ret)
		ret = ublk_queue_alloc_bufs(qc);
	if (!ret)
		ret = ublk_queue_init_ring(qc);
	if (!ret && ops->queue_init) {
		ret = ops->queue_init(&qc->pub);
		qc->tgt_ready = !ret;
	} else if (!ret) {
		qc->tgt_ready = true;
	}
	if (!ret)
		ret = ublk_queue_arm(qc);
	return ret;
}

static void ublk_queue_teardown(struct ublk_queue_ctx *qc)
{
	const struct vublk_tgt_ops *ops = qc->srv->tgt->ops;

	if (qc->tgt_ready && ops->queue_deinit)
		ops->queue_deinit(&qc->pub);
	/* Closing the ring cancels commands still armed in the driver. */
	if (qc->ring_ready)
		io_uring_queue_exit(&qc->ring);
	if (qc->bufs)
		munmap(qc->bufs, qc->bufs_size);
	if (qc->iods)
		munmap((void *)qc->iods, qc->iods_size);
}

static void ublk_notify(int efd)
{
	uint64_t one = 1;

	/* Cannot fail short of a counter overflow (2^64 - 1 events). */
	if (write(efd, &one, sizeof(one)) != sizeof(one))
		vublk_error("eventfd write failed: %s", strerror(errno));
}

static void *ublk_queue_thread(void *arg)
{
	struct ublk_queue_ctx *qc = arg;
	int ret = ublk_queue_setup(qc);

	__atomic_store_n(&qc->setup_ret, ret ? ret : 1, __ATOMIC_RELEASE);
	ublk_notify(qc->srv->ready_efd);
	if (!ret && ublk_queue_serve(qc) < 0)
		vublk_error("queue %u stopped on an error", qc->pub.q_id);
	ublk_queue_teardown(qc);
	__atomic_store_n(&qc->exited, true, __ATOMIC_RELEASE);
	ublk_notify(qc->srv->exit_efd);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Main thread: device lifecycle. */

/* Queue count, depth and buffer size are the kernel's: the driver may
 * lower the queue count (to nr_cpu_ids) and rounds the buffer size down to
 * pages (ublk_ctrl_add_dev()), and a recovered device keeps its own. */
static void ublk_server_take_geometry(struct vublk_server *s)
{
	const struct vublk_server_cfg *cfg = s->cfg;

	s->tgt->nr_queues = s->info.nr_hw_queues;
	s->tgt->queue_depth = s->info.queue_depth;
	s->tgt->max_io_bytes = s->info.max_io_buf_bytes;
	s->tgt->dev_id = s->info.dev_id;
	if (cfg->on_added)
		cfg->on_added(cfg->report_ctx, s->info.dev_id);
}

static int ublk_server_add_dev(struct vublk_server *s)
{
	const struct vublk_server_cfg *cfg = s->cfg;
	int ret;

	s->info = (struct ublksrv_ctrl_dev_info){
		.nr_hw_queues = cfg->nr_queues,
		.queue_depth = cfg->queue_depth,
		.max_io_buf_bytes = cfg->max_io_bytes,
		.dev_id = cfg->dev_id,
		.flags = cfg->recovery_flags,
	};
	ret = ublk_ctrl_add_dev(&s->ctrl, &s->info);
	if (ret == -EEXIST)
		vublk_error("device id %u is busy: a ublk device with that id exists (see: vublk list; free it with: vublk del -n %u)",
			    cfg->dev_id, cfg->dev_id);
	else if (ret < 0 && ret != -ETIMEDOUT)
		vublk_error("cannot add a ublk device: ADD_DEV failed: %s",
			    strerror(-ret));
	if (ret < 0)
		return ret;
	s->dev_added = true;
	/* The driver clears the flags it does not know in the info it
	 * copies back (ublk_ctrl_add_dev(): "flags &= UBLK_F_ALL"). */
	if ((s->info.flags & cfg->recovery_flags) != cfg->recovery_flags) {
		vublk_error("this kernel's ublk driver does not support the recovery mode asked for (flags 0x%llx granted of 0x%llx; --recovery=fail needs UBLK_F_USER_RECOVERY_FAIL_IO, Linux 6.13+): use -r or --recovery=reissue",
			    (unsigned long long)(s->info.flags & cfg->recovery_flags),
			    (unsigned long long)cfg->recovery_flags);
		return -EOPNOTSUPP;
	}
	ublk_server_take_geometry(s);
	return 0;
}


/* The parameters the target's shape gives the device. */
static void ublk_server_build_params(const struct vublk_server *s,
				     struct ublk_params *out)
{
	const struct vublk_tgt *t = s->tgt;
	struct ublk_params p = {
		.types = UBLK_PARAM_TYPE_BASIC,
		.basic = {
			.logical_bs_shift = t->logical_bs_shift,
			.physical_bs_shift = t->physical_bs_shift,
			.io_opt_shift = t->io_opt_shift,
			.io_min_shift = t->io_min_shift,
			.max_sectors = s->info.max_io_buf_bytes >> 9,
			.dev_sectors = t->dev_size >> 9,
		},
	};

	if (t->read_only)
		p.basic.attrs |= UBLK_ATTR_READ_ONLY;
	/* Without VOLATILE_CACHE the block layer drops flushes and FUA
	 * (block/blk-flush.c), so a target with a cache must say so. */
	if (t->volatile_cache && !t->read_only)
		p.basic.attrs |= UBLK_ATTR_VOLATILE_CACHE | UBLK_ATTR_FUA;
	if (t->discard && !t->read_only) {
		p.types |= UBLK_PARAM_TYPE_DISCARD;
		p.discard = (struct ublk_param_discard){
			.discard_granularity = t->discard_granularity,
			/* ublk_validate_params(): only one segment. */
			.max_discard_segments = 1,
			.max_discard_sectors = UINT32_MAX >> 9,
			.max_write_zeroes_sectors = UINT32_MAX >> 9,
		};
	}
	*out = p;
}

static int ublk_server_set_params(struct vublk_server *s)
{
	const struct vublk_tgt *t = s->tgt;
	struct ublk_params p;
	int ret;

	ublk_server_build_params(s, &p);
	ret = ublk_ctrl_set_params(&s->ctrl, s->info.dev_id, &p);
	if (ret < 0 && ret != -ETIMEDOUT)
		vublk_error("device %u: SET_PARAMS failed: %s (size %" PRIu64 " bytes, logical block %u)",
			    s->info.dev_id, strerror(-ret), t->dev_size,
			    1U << t->logical_bs_shift);
	return ret;
}

/* Wait until a device node exists (devtmpfs or udev creates it). */
static int ublk_wait_node(const char *path, bool block)
{
	struct timespec pause = { .tv_nsec = 10 * 1000 * 1000 };
	struct stat st;
	int waited;

	for (waited = 0; waited < UBLK_NODE_WAIT_MS; waited += 10) {
		if (stat(path, &st) == 0 &&
		    (block ? S_ISBLK(st.st_mode) : S_ISCHR(st.st_mode)))
			return 0;
		nanosleep(&pause, NULL);
	}
	vublk_error("%s did not appear within %d s (is devtmpfs mounted on /dev?)",
		    path, UBLK_NODE_WAIT_MS / 1000);
	return -ENOENT;
}

static int ublk_server_open_cdev(struct vublk_server *s)
{
	char path[64];
	int ret;

	snprintf(path, sizeof(path), "/dev/ublkc%u", s->info.dev_id);
	ret = ublk_wait_node(path, false);
	if (ret < 0)
		return ret;
	s->cdev_fd = open(path, O_RDWR | O_CLOEXEC);
	if (s->cdev_fd < 0) {
		ret = -errno;
		vublk_error("cannot open %s: %s", path, strerror(errno));
	}
	return ret;
}

/* 0 while setting up, 1 ready, -errno failed; -ECANCELED once exited
 * (a queue that gave up after getting ready). */
static int ublk_queue_status(const struct ublk_queue_ctx *qc)
{
	if (__atomic_load_n(&qc->exited, __ATOMIC_ACQUIRE))
		return qc->setup_ret < 0 ? qc->setup_ret : -ECANCELED;
	return __atomic_load_n(&qc->setup_ret, __ATOMIC_ACQUIRE);
}

/* 1 when every queue is ready, 0 while some set up, or the first error. */
static int ublk_server_queues_ready(const struct vublk_server *s)
{
	unsigned i;
	int ready = 1;

	for (i = 0; i < s->info.nr_hw_queues; i++) {
		int st = ublk_queue_status(&s->queues[i]);

		if (st < 0)
			return st;
		if (st == 0)
			ready = 0;
	}
	return ready;
}

/* Wait, bounded, until every queue thread is ready or one failed. */
static int ublk_server_wait_ready(struct vublk_server *s)
{
	struct pollfd pfd[2] = {
		{ .fd = s->ready_efd, .events = POLLIN },
		{ .fd = s->exit_efd, .events = POLLIN },
	};
	struct timespec start, now;
	uint64_t v;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &start);
	while ((ret = ublk_server_queues_ready(s)) == 0) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		long left = UBLK_QUEUE_READY_MS -
			((now.tv_sec - start.tv_sec) * 1000 +
			 (now.tv_nsec - start.tv_nsec) / 1000000);

		if (left <= 0) {
			vublk_error("queue threads did not get ready in %d s",
				    UBLK_QUEUE_READY_MS / 1000);
			return -ETIMEDOUT;
		}
		/* An exit is seen through the queue status; the exit
		 * eventfd stays set for ublk_server_wait_stop(). */
		if (poll(pfd, 2, (int)left) > 0 && pfd[0].revents & POLLIN &&
		    read(s->ready_efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			return -errno;
	}
	return ret < 0 ? ret : 0;
}

static int ublk_server_start_queues(struct vublk_server *s)
{
	unsigned i, n = s->info.nr_hw_queues;
	int ret;

	s->queues = calloc(n, sizeof(*s->queues));
	if (!s->queues)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct ublk_queue_ctx *qc = &s->queues[i];

		qc->pub = (struct vublk_queue){ .tgt = s->tgt, .q_id = i,
						.depth = s->info.queue_depth };
		qc->srv = s;
		ret = pthread_create(&qc->thread, NULL, ublk_queue_thread, qc);
		if (ret) {
			vublk_error("cannot start queue thread %u: %s", i,
				    strerror(ret));
			return -ret;
		}
		qc->thread_started = true;
	}
	return ublk_server_wait_ready(s);
}

/* The disk serves I/O through us: wait for its node, say so. */
static int ublk_server_announce_live(struct vublk_server *s, const char *how)
{
	char bdev[64];
	int ret;

	snprintf(bdev, sizeof(bdev), "/dev/ublkb%u", s->info.dev_id);
	ret = ublk_wait_node(bdev, true);
	if (ret < 0)
		return ret;
	vublk_info("%s is %s: target %s, %s, %" PRIu64 " bytes, %u queues of depth %u",
		   bdev, how, s->tgt->ops->name, s->tgt->backing_file,
		   s->tgt->dev_size, s->info.nr_hw_queues,
		   s->info.queue_depth);
	if (s->cfg->on_live)
		s->cfg->on_live(s->cfg->report_ctx, s->info.dev_id, bdev);
	return 0;
}

static int ublk_server_start_dev(struct vublk_server *s)
{
	int ret = ublk_ctrl_start_dev(&s->ctrl, s->info.dev_id, getpid());

	if (ret < 0) {
		if (ret != -ETIMEDOUT)
			vublk_error("device %u: START_DEV failed: %s",
				    s->info.dev_id, strerror(-ret));
		return ret;
	}
	s->dev_started = true;
	return ublk_server_announce_live(s, "live");
}

/* ------------------------------------------------------------------ */
/* Recovery: a new server for a device whose server died. */

/* Find the device and take its geometry from the kernel. */
static int ublk_server_attach_dev(struct vublk_server *s)
{
	unsigned id = s->cfg->dev_id;
	int ret = ublk_ctrl_get_dev_info(&s->ctrl, id, &s->info);

	if (ret == -ENODEV)
		vublk_error("device %u no longer exists: nothing to recover (see: vublk list)",
			    id);
	else if (ret < 0 && ret != -ETIMEDOUT)
		vublk_error("device %u: GET_DEV_INFO failed: %s", id,
			    strerror(-ret));
	if (ret < 0)
		return ret;
	/* ublk_ctrl_start_recovery() refuses such a device (-EINVAL). */
	if (!(s->info.flags & UBLK_F_USER_RECOVERY)) {
		vublk_error("device %u was not added with -r (--recovery): it cannot take a new server; delete it with: vublk del -n %u",
			    id, id);
		return -EINVAL;
	}
	ublk_server_take_geometry(s);
	return 0;
}

/*
 * The device keeps the parameters its first server set (SET_PARAMS is
 * refused once the disk was started): the target, opened again on the
 * same file with the same options, must give the same shape, or the
 * kernel would send requests sized for another device.
 */
static int ublk_server_check_params(struct vublk_server *s)
{
	const struct ublk_param_basic *want;
	struct ublk_params have, p;
	int ret = ublk_ctrl_get_params(&s->ctrl, s->info.dev_id, &have);

	if (ret < 0) {
		if (ret != -ETIMEDOUT)
			vublk_error("device %u: GET_PARAMS failed: %s",
				    s->info.dev_id, strerror(-ret));
		return ret;
	}
	ublk_server_build_params(s, &p);
	want = &p.basic;
	if (have.basic.dev_sectors == want->dev_sectors &&
	    have.basic.logical_bs_shift == want->logical_bs_shift &&
	    have.basic.physical_bs_shift == want->physical_bs_shift &&
	    have.basic.attrs == want->attrs)
		return 0;
	vublk_error("device %u: %s now gives %llu sectors of %u bytes%s, but the device has %llu sectors of %u bytes%s: the backing file or the options changed; restore them and run vublk recover again, or delete the device (vublk del -n %u)",
		    s->info.dev_id, s->tgt->backing_file,
		    (unsigned long long)want->dev_sectors,
		    1U << want->logical_bs_shift,
		    want->attrs & UBLK_ATTR_READ_ONLY ? " read-only" : "",
		    (unsigned long long)have.basic.dev_sectors,
		    1U << have.basic.logical_bs_shift,
		    have.basic.attrs & UBLK_ATTR_READ_ONLY ? " read-only" : "",
		    s->info.dev_id);
	return -EINVAL;
}

static int ublk_server_start_recovery(struct vublk_server *s)
{
	unsigned id = s->info.dev_id;
	int ret = ublk_ctrl_start_user_recovery(&s->ctrl, id);

	if (ret == -EBUSY)
		vublk_error("device %u: START_USER_RECOVERY still busy after %d s: the old server still holds /dev/ublkc%u, or the kernel has not quiesced the device (see: vublk list -n %u; try again)",
			    id, UBLK_RECOVERY_BUSY_WAIT_S, id, id);
	else if (ret == -EINVAL)
		vublk_error("device %u: START_USER_RECOVERY refused (EINVAL): the device never had all its queues running, or an earlier recovery stopped half-way; delete it with: vublk del -n %u",
			    id, id);
	else if (ret < 0 && ret != -ETIMEDOUT)
		vublk_error("device %u: START_USER_RECOVERY failed: %s", id,
			    strerror(-ret));
	if (ret < 0)
		return ret;
	/*
	 * From here the driver expects this server: should we fail before
	 * END_USER_RECOVERY, leaving the device half-recovered would let a
	 * later START_USER_RECOVERY reset queues we never set up
	 * (ublk_queue_reinit() drops each queue's old daemon), so the
	 * teardown stops and deletes it, as for a device we added.
	 */
	s->dev_added = true;
	s->dev_started = true;
	return 0;
}

static int ublk_server_end_recovery(struct vublk_server *s)
{
	int ret = ublk_ctrl_end_user_recovery(&s->ctrl, s->info.dev_id,
					      getpid());

	if (ret < 0) {
		if (ret != -ETIMEDOUT)
			vublk_error("device %u: END_USER_RECOVERY failed: %s",
				    s->info.dev_id, strerror(-ret));
		return ret;
	}
	return ublk_server_announce_live(s, "recovered");
}

/* ------------------------------------------------------------------ */
/* Counters: <run dir>/ID.stats.json, rewritten atomically. */

static void ublk_server_stats_json(const struct vublk_server *s, FILE *f)
{
	uint64_t sum[UBLK_STAT_NR] = { 0 };
	unsigned i, k;

	for (i = 0; i < s->info.nr_hw_queues; i++)
		for (k = 0; k < UBLK_STAT_NR; k++)
			sum[k] += __atomic_load_n(&s->queues[i].stats[k],
						  __ATOMIC_RELAXED);
	fprintf(f, "{\"id\": %u, \"target\": \"%s\"", s->info.dev_id,
		s->tgt->ops->name);
	for (k = 0; k < UBLK_STAT_NR; k++)
		fprintf(f, ", \"%s\": %" PRIu64, ublk_stat_names[k], sum[k]);
	if (s->tgt->ops->stats_json)
		s->tgt->ops->stats_json(s->tgt, f);
	fputs("}\n", f);
}

static void ublk_server_write_stats(const struct vublk_server *s)
{
	const char *path = s->cfg->stats_path;
	char tmp[4096];
	FILE *f;

	if (!path || !path[0])
		return;
	f = vublk_file_begin(path, tmp, sizeof(tmp));
	if (!f)
		return;	/* counters are best effort; I/O goes on */
	ublk_server_stats_json(s, f);
	(void)vublk_file_commit(f, tmp, path);	/* best effort, as above */
}

/* ------------------------------------------------------------------ */

/* Serve until a signal or a queue thread's exit; returns the signal. */
static int ublk_server_wait_stop(struct vublk_server *s)
{
	struct pollfd pfd[2] = {
		{ .fd = s->signal_fd, .events = POLLIN },
		{ .fd = s->exit_efd, .events = POLLIN },
	};
	struct signalfd_siginfo si;

	for (;;) {
		ublk_server_write_stats(s);
		if (poll(pfd, 2, UBLK_STATS_PERIOD_MS) < 0 && errno != EINTR)
			return -errno;
		if (pfd[0].revents & POLLIN &&
		    read(s->signal_fd, &si, sizeof(si)) == sizeof(si)) {
			vublk_info("device %u: signal %u, stopping",
				   s->info.dev_id, si.ssi_signo);
			return 0;
		}
		if (pfd[1].revents & POLLIN) {
			vublk_error("device %u: a queue thread stopped unexpectedly; stopping the device",
				    s->info.dev_id);
			return -EIO;
		}
	}
}

/* Undo whatever of the setup happened, in reverse order. */
static int ublk_server_teardown(struct vublk_server *s)
{
	unsigned i;
	int ret = 0, r;

	if (s->dev_started) {
		r = ublk_ctrl_stop_dev(&s->ctrl, s->info.dev_id);
		if (r < 0 && r != -ETIMEDOUT)
			vublk_error("device %u: STOP_DEV failed: %s",
				    s->info.dev_id, strerror(-r));
		ret = ret ? ret : r;
	}
	if (s->queues) {
		ublk_notify(s->stop_efd);
		for (i = 0; i < s->info.nr_hw_queues; i++)
			if (s->queues[i].thread_started)
				pthread_join(s->queues[i].thread, NULL);
	}
	if (s->tgt_ready && s->tgt->ops->deinit)
		s->tgt->ops->deinit(s->tgt);
	if (s->cdev_fd >= 0)
		close(s->cdev_fd);
	if (s->dev_added) {
		r = ublk_ctrl_del_dev(&s->ctrl, s->info.dev_id);
		if (r < 0 && r != -ETIMEDOUT)
			vublk_error("device %u: DEL_DEV failed: %s",
				    s->info.dev_id, strerror(-r));
		ret = ret ? ret : r;
	}
	if (s->cfg->stats_path && s->cfg->stats_path[0])
		unlink(s->cfg->stats_path);
	free(s->queues);
	ublk_ctrl_close(&s->ctrl);
	return ret;
}

static int ublk_server_init_fds(struct vublk_server *s)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	/* Blocked here, so every queue thread inherits the mask and only
	 * the main thread sees the signals, through the signalfd. */
	if (pthread_sigmask(SIG_BLOCK, &set, NULL))
		return -EINVAL;
	s->signal_fd = signalfd(-1, &set, SFD_CLOEXEC);
	s->stop_efd = eventfd(0, EFD_CLOEXEC);
	s->ready_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	s->exit_efd = eventfd(0, EFD_CLOEXEC);
	if (s->signal_fd < 0 || s->stop_efd < 0 || s->ready_efd < 0 ||
	    s->exit_efd < 0) {
		vublk_error("cannot create signalfd/eventfd: %s",
			    strerror(errno));
		return -errno;
	}
	return 0;
}

static void ublk_server_close_fds(struct vublk_server *s)
{
	if (s->signal_fd >= 0)
		close(s->signal_fd);
	if (s->stop_efd >= 0)
		close(s->stop_efd);
	if (s->ready_efd >= 0)
		close(s->ready_efd);
	if (s->exit_efd >= 0)
		close(s->exit_efd);
}

static void ublk_server_set_limits(struct vublk_server *s)
{
	s->limits = ublk_io_limits(s->tgt, s->info.max_io_buf_bytes);
}

/*
 * Recovery (ublksrv's `ublk recover`, kublk's -r): everything that can be
 * refused (device, flags, target, shape) is checked before
 * START_USER_RECOVERY, so that a refusal leaves the device quiesced for
 * another try.  Then the same queue setup as for a new device, and
 * END_USER_RECOVERY instead of START_DEV: the driver requeues the I/O that
 * waited (and, with REISSUE, the I/O the dead server had taken) to us.
 */
static int ublk_server_setup_recovery(struct vublk_server *s)
{
	struct vublk_tgt *t = s->tgt;
	int ret;

	ret = ublk_ctrl_open(&s->ctrl);
	if (!ret)
		ret = ublk_server_attach_dev(s);
	if (ret)
		return ret;
	ret = t->ops->init(t);
	if (ret)
		return ret;
	s->tgt_ready = true;
	ublk_server_set_limits(s);
	ret = ublk_server_check_params(s);
	if (!ret)
		ret = ublk_server_start_recovery(s);
	if (!ret)
		ret = ublk_server_open_cdev(s);
	if (!ret)
		ret = ublk_server_start_queues(s);
	if (!ret)
		ret = ublk_server_end_recovery(s);
	return ret;
}

static int ublk_server_setup(struct vublk_server *s)
{
	struct vublk_tgt *t = s->tgt;
	int ret;

	ret = ublk_server_init_fds(s);
	if (ret)
		return ret;
	if (s->cfg->recover)
		return ublk_server_setup_recovery(s);
	t->nr_queues = s->cfg->nr_queues;
	t->queue_depth = s->cfg->queue_depth;
	t->max_io_bytes = s->cfg->max_io_bytes;
	/* The target first: a bad backing file must not leave a device. */
	ret = t->ops->init(t);
	if (ret)
		return ret;
	s->tgt_ready = true;
	ret = ublk_ctrl_open(&s->ctrl);
	if (!ret)
		ret = ublk_server_add_dev(s);
	if (!ret) {
		ublk_server_set_limits(s);
		ret = ublk_server_set_params(s);
	}
	if (!ret)
		ret = ublk_server_open_cdev(s);
	if (!ret)
		ret = ublk_server_start_queues(s);
	if (!ret)
		ret = ublk_server_start_dev(s);
	return ret;
}

int vublk_server_run(const struct vublk_server_cfg *cfg)
{
	struct vublk_server s = {
		.cfg = cfg, .tgt = cfg->tgt, .cdev_fd = -1, .ctrl.fd = -1,
		.signal_fd = -1, .stop_efd = -1, .ready_efd = -1,
		.exit_efd = -1,
	};
	int ret, r;

	ret = ublk_server_setup(&s);
	if (!ret)
		ret = ublk_server_wait_stop(&s);
	r = ublk_server_teardown(&s);
	ublk_server_close_fds(&s);
	if (!ret && !r)
		vublk_info("device %u stopped and deleted", s.info.dev_id);
	return ret ? ret : r;
}
