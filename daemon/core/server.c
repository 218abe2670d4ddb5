// SPDX-License-Identifier: GPL-2.0-only
/*
 * server.c - the vublk server: one ublk device, one thread per queue
 * (queue.c); this file is the device's life, in the main thread.
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
 *    validated once (validate.c), handed to the target, and answered
 *    with COMMIT_AND_FETCH_REQ carrying the result, which also re-arms the
 *    tag.
 *  - Stop: STOP_DEV removes the disk (del_gendisk() drains the queued I/O,
 *    which the queues still serve), then the driver completes every armed
 *    command with UBLK_IO_RES_ABORT (ublk_drv.c: ublk_cancel_dev()).  The
 *    queues finish their target I/O and exit; the char device is closed,
 *    and the device is deleted (ctrl.c: ublk_ctrl_del_dev()).
 *  - A server that dies (kill -9) never gets here: closing its io_urings
 *    cancels the armed commands, and the driver aborts the device's I/O and
 *    stops the disk itself (ublk_drv.c: ublk_uring_cmd_cancel_fn(),
 *    ublk_nosrv_work()); the device stays until someone deletes it.
 *    With UBLK_F_USER_RECOVERY the driver instead quiesces the disk
 *    (UBLK_S_DEV_QUIESCED; new I/O waits) and a new server takes over
 *    (cfg->recover): START_USER_RECOVERY, the same queue setup and
 *    fetches, END_USER_RECOVERY with the new pid instead of START_DEV.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "control.h"
#include "core.h"
#include "runfile.h"
#include "stats.h"

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
		cfg->on_added(cfg->report_ctx, s->info.dev_id,
			      s->info.ublksrv_flags);
}

/*
 * A device id is reused: the kernel gives the lowest free one to the next
 * ADD_DEV.  So that nobody acts on an id after the device it meant is gone
 * (vublk del, the waiting vublk add), each device carries a token of its
 * own in dev_info.ublksrv_flags, which the driver keeps and returns
 * without looking at it ("for ublksrv internal use, invisible to ublk
 * driver", <linux/ublk_cmd.h>): random, never 0.
 */
static uint64_t ublk_server_new_token(void)
{
	uint64_t token = 0;

	while (!token)
		if (getrandom(&token, sizeof(token), 0) != sizeof(token))
			token = (uint64_t)getpid() << 32 | (uint64_t)time(NULL);
	return token;
}

/*
 * A device that outlives its server may also be handed to a new one
 * without failing I/O (`vublk recover --restart`, control.c): ask for
 * QUIESCE_DEV wherever the driver has it, as kublk does (7.3
 * tools/testing/selftests/ublk/kublk.c: __cmd_dev_add()).  The driver
 * takes it only with USER_RECOVERY.
 */
static uint64_t ublk_server_quiesce_flag(const struct vublk_server *s)
{
	if ((s->cfg->recovery_flags & UBLK_F_USER_RECOVERY) &&
	    (s->ctrl.features & UBLK_F_QUIESCE))
		return UBLK_F_QUIESCE;
	return 0;
}

/*
 * Zero copy for a target that only moves data: the driver registers each
 * request's pages as a buffer of the queue's io_uring before it hands the
 * request over, and unregisters them at the commit (UBLK_F_AUTO_BUF_REG,
 * 6.16; ublk_drv.c: ublk_auto_buf_register()), so the backend reads and
 * writes them directly; on a driver with zero copy but not that (6.15),
 * the queue registers them itself (UBLK_F_SUPPORT_ZERO_COPY, queue.c).  A target that must see the bytes (verity hashes
 * them) cannot: a READ's pages are a write-only destination for the
 * server (io_uring rsrc.c: io_import_fixed() checks the direction).  0,
 * the flag, or -errno after one line.
 */
static int ublk_server_zero_copy_flag(const struct vublk_server *s,
				      uint64_t *flag)
{
	const struct vublk_server_cfg *cfg = s->cfg;

	*flag = 0;
	if (cfg->zero_copy == VUBLK_ZERO_COPY_OFF)
		return 0;
	if (!s->tgt->zero_copy) {
		if (cfg->zero_copy == VUBLK_ZERO_COPY_AUTO)
			return 0;
		vublk_error("--zero-copy=on: this %s device cannot leave its data in the requests' pages (verity must see the bytes it verifies; the pmem backend copies them by design); use --zero-copy=off",
			    s->tgt->ops->name);
		return -EINVAL;
	}
	if (s->ctrl.features & UBLK_F_AUTO_BUF_REG)
		*flag = UBLK_F_AUTO_BUF_REG;
	else if (s->ctrl.features & UBLK_F_SUPPORT_ZERO_COPY)
		*flag = UBLK_F_SUPPORT_ZERO_COPY;
	else if (cfg->zero_copy == VUBLK_ZERO_COPY_ON)
		return vublk_require_features(s->ctrl.features,
					      UBLK_F_SUPPORT_ZERO_COPY,
					      "--zero-copy=on");
	return 0;
}

static int ublk_server_add_dev(struct vublk_server *s)
{
	const struct vublk_server_cfg *cfg = s->cfg;
	uint64_t zero_copy;
	int ret;

	/* Asked for and not there: say so before a device exists. */
	if (s->ctrl.have_features) {
		ret = vublk_require_features(s->ctrl.features,
					     cfg->recovery_flags, "--recovery");
		if (ret)
			return ret;
	}
	ret = ublk_server_zero_copy_flag(s, &zero_copy);
	if (ret)
		return ret;
	s->info = (struct ublksrv_ctrl_dev_info){
		/* The target's: init may lower it to what its store
		 * serves (an NBD export allowing one connection). */
		.nr_hw_queues = s->tgt->nr_queues,
		.queue_depth = cfg->queue_depth,
		.max_io_buf_bytes = cfg->max_io_bytes,
		.dev_id = cfg->dev_id,
		.flags = cfg->recovery_flags | ublk_server_quiesce_flag(s) |
			 zero_copy,
		.ublksrv_flags = ublk_server_new_token(),
	};
	ret = ublk_ctrl_add_dev(&s->ctrl, &s->info);
	if (ret == -EEXIST && ublk_dev_deleted(cfg->dev_id))
		vublk_error("device id %u is busy: the device deleted with that id has its disk still open (mounted, held by another device, or open in a program), and the kernel frees the id when it is closed",
			    cfg->dev_id);
	else if (ret == -EEXIST)
		vublk_error("device id %u is busy: a ublk device with that id exists (see: vublk list; free it with: vublk del -n %u)",
			    cfg->dev_id, cfg->dev_id);
	else if (ret < 0 && ret != -ETIMEDOUT)
		vublk_error("cannot add a ublk device: ADD_DEV failed: %s",
			    strerror(-ret));
	if (ret < 0)
		return ret;
	s->dev_added = true;
	/* A driver without GET_FEATURES: it clears the flags it does not
	 * know in the info it copies back (ublk_ctrl_add_dev(): "flags &=
	 * UBLK_F_ALL"). */
	ret = vublk_require_features(s->info.flags, cfg->recovery_flags,
				     "--recovery");
	if (ret)
		return ret;
	ublk_server_take_geometry(s);
	return 0;
}


/* The largest request: the buffer, or less if the target asks. */
static uint32_t ublk_server_max_sectors(const struct vublk_server *s)
{
	uint32_t max = s->info.max_io_buf_bytes;

	if (s->tgt->max_req_bytes && s->tgt->max_req_bytes < max)
		max = s->tgt->max_req_bytes;
	return max >> 9;
}

/* The parameters the target's shape gives the device. */
static void ublk_server_build_params(const struct vublk_server *s,
				     struct vublk_ublk_params *out)
{
	const struct vublk_tgt *t = s->tgt;
	struct vublk_ublk_params p = { .head = {
		.types = UBLK_PARAM_TYPE_BASIC,
		.basic = {
			.logical_bs_shift = t->logical_bs_shift,
			.physical_bs_shift = t->physical_bs_shift,
			.io_opt_shift = t->io_opt_shift,
			.io_min_shift = t->io_min_shift,
			.max_sectors = ublk_server_max_sectors(s),
			.dev_sectors = t->dev_size >> 9,
		},
	} };

	if (t->read_only)
		p.head.basic.attrs |= UBLK_ATTR_READ_ONLY;
	/* Without VOLATILE_CACHE the block layer drops flushes and FUA
	 * (block/blk-flush.c), so a target with a cache must say so. */
	if (t->volatile_cache && !t->read_only)
		p.head.basic.attrs |= UBLK_ATTR_VOLATILE_CACHE | UBLK_ATTR_FUA;
	if (t->discard && !t->read_only) {
		p.head.types |= UBLK_PARAM_TYPE_DISCARD;
		p.head.discard = (struct ublk_param_discard){
			.discard_granularity = t->discard_granularity,
			/* ublk_validate_params(): only one segment. */
			.max_discard_segments = 1,
			.max_discard_sectors = UINT32_MAX >> 9,
			.max_write_zeroes_sectors = UINT32_MAX >> 9,
		};
	}
	/*
	 * Zero copy hands the client's pages to the backend as they are; the
	 * driver's default alignment for them is 4 bytes (ublk_drv.c:
	 * ublk_ctrl_start_dev(): .dma_alignment = 3), which O_DIRECT on the
	 * backing file refuses.  Ask for what the backend needs, as kublk's
	 * loop asks for 511 (7.3 tools/testing/selftests/ublk/file_backed.c).
	 */
	if (ublk_server_zero_copy(s) && t->dma_align_mask) {
		p.head.types |= UBLK_PARAM_TYPE_DMA_ALIGN;
		p.dma.alignment = t->dma_align_mask;
	}
	*out = p;
}

static int ublk_server_set_params(struct vublk_server *s)
{
	const struct vublk_tgt *t = s->tgt;
	struct vublk_ublk_params p;
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

/* 1 when every queue reached stage, 0 while some have not, or the first
 * error. */
static int ublk_server_queues_at(const struct vublk_server *s, int stage)
{
	unsigned i;
	int reached = 1;

	for (i = 0; i < s->info.nr_hw_queues; i++) {
		int st = ublk_queue_status(&s->queues[i]);

		if (st < 0)
			return st;
		if (st < stage)
			reached = 0;
	}
	return reached;
}

/* Wait, bounded, until every queue thread reached stage or one failed. */
static int ublk_server_wait_queues(struct vublk_server *s, int stage)
{
	struct pollfd pfd[2] = {
		{ .fd = s->ready_efd, .events = POLLIN },
		{ .fd = s->exit_efd, .events = POLLIN },
	};
	uint64_t deadline = vublk_now_ns() +
			    UBLK_QUEUE_READY_MS * VUBLK_NS_PER_MS;
	uint64_t v;
	int ret;

	while ((ret = ublk_server_queues_at(s, stage)) == 0) {
		uint64_t now = vublk_now_ns();
		int left;

		if (now >= deadline) {
			vublk_error("queue threads did not get ready in %d s",
				    UBLK_QUEUE_READY_MS / 1000);
			return -ETIMEDOUT;
		}
		/* An exit is seen through the queue status; the exit
		 * eventfd stays set for ublk_server_wait_stop().  Rounded
		 * up: a poll of 0 ms before the deadline would spin. */
		left = (int)((deadline - now + VUBLK_NS_PER_MS - 1) /
			     VUBLK_NS_PER_MS);
		if (poll(pfd, 2, left) > 0 && pfd[0].revents & POLLIN &&
		    read(s->ready_efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			return -errno;
	}
	return ret < 0 ? ret : 0;
}

/* One thread per queue, each prepared (buffers, ring, target state): all
 * that can fail for want of resources, before the device is touched. */
static int ublk_server_prepare_queues(struct vublk_server *s)
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
	return ublk_server_wait_queues(s, UBLK_QUEUE_PREPARED);
}

/* Let the prepared queues go on (attach) or give up. */
static void ublk_server_release_queues(struct vublk_server *s, bool attach)
{
	uint64_t n = s->info.nr_hw_queues;

	if (!s->queues || s->queues_released)
		return;
	__atomic_store_n(&s->queues_go, attach, __ATOMIC_RELEASE);
	s->queues_released = true;
	if (write(s->go_efd, &n, sizeof(n)) != sizeof(n))
		vublk_error("eventfd write failed: %s", strerror(errno));
}

/* /dev/ublkcN is open: every queue maps its iods and fetches its tags. */
static int ublk_server_attach_queues(struct vublk_server *s)
{
	ublk_server_release_queues(s, true);
	return ublk_server_wait_queues(s, UBLK_QUEUE_READY);
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
 * A device that `vublk update-size` gave another size than its backing
 * file's keeps it under its next server, where the target can take it
 * (control.c: "resize"); the check below then finds the sizes equal.
 */
static void ublk_server_adopt_size(struct vublk_server *s, uint64_t sectors)
{
	struct vublk_tgt *t = s->tgt;
	uint64_t size = sectors << 9;
	char why[256];

	if (size == t->dev_size || !t->ops->resize ||
	    t->ops->resize(t, &size, why, sizeof(why)))
		return;
	t->dev_size = size;
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
	struct vublk_ublk_params p;
	struct ublk_params have;
	int ret = ublk_ctrl_get_params(&s->ctrl, s->info.dev_id, &have);

	if (ret < 0) {
		if (ret != -ETIMEDOUT)
			vublk_error("device %u: GET_PARAMS failed: %s",
				    s->info.dev_id, strerror(-ret));
		return ret;
	}
	/* The device's zero copy was the first server's choice. */
	if (ublk_server_zero_copy(s) && !s->tgt->zero_copy) {
		vublk_error("device %u moves data in the requests' own pages (zero copy), which the %s target now cannot: its options changed; restore them and run vublk recover again, or delete the device (vublk del -n %u)",
			    s->info.dev_id, s->tgt->ops->name, s->info.dev_id);
		return -EINVAL;
	}
	ublk_server_adopt_size(s, have.basic.dev_sectors);
	ublk_server_build_params(s, &p);
	want = &p.head.basic;
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
	 * From here the driver expects this server.  Should we fail before
	 * END_USER_RECOVERY, the device is left as it was, quiesced with its
	 * mounts and the I/O that waits (the teardown closes /dev/ublkcN and
	 * our rings, as a server that died would): the user may run
	 * `vublk recover` again, or `vublk del`.  Every queue was prepared
	 * before this point, so what can still fail (mapping the iods,
	 * fetching, END itself) is rare.  One 6.12 limit remains: if some
	 * queue fetched and another did not, that driver's next
	 * START_USER_RECOVERY meets a queue without a daemon
	 * (ublk_queue_reinit() puts a NULL task); 7.x handles it.
	 */
	s->recovering = true;
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
	/* Ours now, as a device we added: stopped and deleted at the end. */
	s->recovering = false;
	s->dev_added = true;
	s->dev_started = true;
	return ublk_server_announce_live(s, "recovered");
}

/* ------------------------------------------------------------------ */
/* Counters: <run dir>/ID.stats.json, rewritten atomically, and the log
 * line at stop. */

/* The core's counters summed over the queues, then the target's report. */
static void ublk_server_report(const struct vublk_server *s,
			       struct vublk_stats_out *out)
{
	uint64_t sum[UBLK_STAT_NR] = { 0 };
	unsigned i, k;

	for (i = 0; s->queues && i < s->info.nr_hw_queues; i++)
		for (k = 0; k < UBLK_STAT_NR; k++)
			sum[k] += __atomic_load_n(&s->queues[i].stats[k],
						  __ATOMIC_RELAXED);
	for (k = 0; k < UBLK_STAT_NR; k++)
		vublk_stat_u64(out, ublk_stat_names[k], sum[k]);
	vublk_stats_target(out, s->tgt);
}

static void ublk_server_write_stats(const struct vublk_server *s)
{
	const char *path = s->cfg->stats_path;
	struct vublk_stats_out out = { .json = true };
	char tmp[4096];

	if (!path || !path[0])
		return;
	out.f = vublk_file_begin(path, tmp, sizeof(tmp));
	if (!out.f)
		return;	/* counters are best effort; I/O goes on */
	fprintf(out.f, "{\"id\": %u, \"target\": \"%s\"", s->info.dev_id,
		s->tgt->ops->name);
	ublk_server_report(s, &out);
	fputs("}\n", out.f);
	(void)vublk_file_commit(out.f, tmp, path);	/* best effort, as above */
}

/* The final counters, as "name value" pairs in one log line. */
static void ublk_server_log_counters(const struct vublk_server *s)
{
	struct vublk_stats_out out = { .first = true };
	char *line = NULL;
	size_t len = 0;

	out.f = open_memstream(&line, &len);
	if (!out.f)
		return;	/* no memory for a log line: nothing more to say */
	ublk_server_report(s, &out);
	if (fclose(out.f) == 0)
		vublk_info("device %u (%s %s) counters: %s", s->info.dev_id,
			   s->tgt->ops->name, s->tgt->backing_file, line);
	free(line);
}

/* ------------------------------------------------------------------ */

void vublk_tgt_stop(struct vublk_tgt *t)
{
	ublk_notify(t->srv->stop_req_efd);
}

/* Serve until a signal, a stop request or a queue thread's exit; answer
 * control requests meanwhile (control.c). */
static int ublk_server_wait_stop(struct vublk_server *s)
{
	struct pollfd pfd[4] = {
		{ .fd = s->signal_fd, .events = POLLIN },
		{ .fd = s->stop_req_efd, .events = POLLIN },
		{ .fd = s->exit_efd, .events = POLLIN },
		{ .fd = s->control_fd, .events = POLLIN },
	};
	struct signalfd_siginfo si;
	int r;

	for (;;) {
		ublk_server_write_stats(s);
		if (poll(pfd, 4, UBLK_STATS_PERIOD_MS) < 0 && errno != EINTR)
			return -errno;
		if (pfd[3].revents & POLLIN) {
			r = ublk_control_serve(s);
			if (r == UBLK_CONTROL_QUIESCED)
				s->quiesced = true;
			if (r)
				return 0;
		}
		if (pfd[0].revents & POLLIN &&
		    read(s->signal_fd, &si, sizeof(si)) == sizeof(si)) {
			vublk_info("device %u: signal %u, stopping",
				   s->info.dev_id, si.ssi_signo);
			return 0;
		}
		if (pfd[1].revents & POLLIN &&
		    __atomic_load_n(&s->queue_failed, __ATOMIC_ACQUIRE)) {
			vublk_error("device %u: a queue failed; stopping the device",
				    s->info.dev_id);
			return -EIO;
		}
		if (pfd[1].revents & POLLIN) {
			vublk_info("device %u: the %s target asked to stop the device",
				   s->info.dev_id, s->tgt->ops->name);
			return 0;
		}
		if (pfd[2].revents & POLLIN) {
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
		ublk_server_release_queues(s, false);
		ublk_notify(s->stop_efd);
		for (i = 0; i < s->info.nr_hw_queues; i++)
			if (s->queues[i].thread_started)
				pthread_join(s->queues[i].thread, NULL);
	}
	if (s->queues)
		ublk_server_log_counters(s);
	if (s->tgt_ready)
		s->tgt->ops->deinit(s->tgt);
	if (s->cdev_fd >= 0)
		close(s->cdev_fd);
	if (s->dev_added) {
		r = ublk_ctrl_del_dev(&s->ctrl, s->info.dev_id,
				      s->info.ublksrv_flags);
		if (r < 0 && r != -ETIMEDOUT)
			vublk_error("device %u: deleting it failed: %s",
				    s->info.dev_id, strerror(-r));
		ret = ret ? ret : r;
	}
	if (s->recovering)
		vublk_error("device %u is left quiesced, as it was, with the I/O that waits for a server: run vublk recover -n %u again, or delete it with vublk del -n %u",
			    s->info.dev_id, s->info.dev_id, s->info.dev_id);
	ublk_control_close(s);
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
	s->stop_req_efd = eventfd(0, EFD_CLOEXEC);
	s->go_efd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	if (s->signal_fd < 0 || s->stop_efd < 0 || s->ready_efd < 0 ||
	    s->exit_efd < 0 || s->stop_req_efd < 0 || s->go_efd < 0) {
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
	if (s->stop_req_efd >= 0)
		close(s->stop_req_efd);
	if (s->go_efd >= 0)
		close(s->go_efd);
}

static void ublk_server_set_limits(struct vublk_server *s)
{
	s->limits = ublk_io_limits(s->tgt, s->info.max_io_buf_bytes);
}

/*
 * Recovery (ublksrv's `ublk recover`, kublk's -r): everything that can be
 * refused (device, flags, target, shape) is checked, and every queue
 * prepared, before START_USER_RECOVERY, so that a refusal leaves the
 * device quiesced for another try.  Then the same attach as for a new
 * device, and END_USER_RECOVERY instead of START_DEV: the driver requeues
 * the I/O that waited (and, with REISSUE, the I/O the dead server had
 * taken) to us.
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
	ret = ublk_server_check_params(s);
	ublk_server_set_limits(s);
	if (!ret)
		ret = ublk_server_prepare_queues(s);
	if (!ret)
		ret = ublk_server_start_recovery(s);
	if (!ret)
		ret = ublk_server_open_cdev(s);
	if (!ret)
		ret = ublk_server_attach_queues(s);
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
		ret = ublk_server_prepare_queues(s);
	if (!ret)
		ret = ublk_server_open_cdev(s);
	if (!ret)
		ret = ublk_server_attach_queues(s);
	if (!ret)
		ret = ublk_server_start_dev(s);
	return ret;
}

int vublk_server_run(const struct vublk_server_cfg *cfg)
{
	struct vublk_server s = {
		.cfg = cfg, .tgt = cfg->tgt, .cdev_fd = -1, .ctrl.fd = -1,
		.signal_fd = -1, .stop_efd = -1, .ready_efd = -1,
		.exit_efd = -1, .stop_req_efd = -1, .go_efd = -1,
		.control_fd = -1,
	};
	int ret, r;

	cfg->tgt->srv = &s;
	ret = ublk_server_setup(&s);
	if (!ret)
		ret = ublk_control_listen(&s);
	if (!ret)
		ret = ublk_server_wait_stop(&s);
	r = ublk_server_teardown(&s);
	ublk_server_close_fds(&s);
	if (ret || r)
		return ret ? ret : r;
	if (s.quiesced) {
		vublk_info("device %u is quiesced: its I/O waits for the next server (vublk recover)",
			   s.info.dev_id);
		return VUBLK_SERVER_QUIESCED;
	}
	vublk_info("device %u stopped and deleted", s.info.dev_id);
	return 0;
}

