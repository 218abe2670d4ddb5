// SPDX-License-Identifier: GPL-2.0-only
/*
 * ctrl.c - the ublk control plane: commands on /dev/ublk-control.
 *
 * Each command is an IORING_OP_URING_CMD whose 32-byte struct
 * ublksrv_ctrl_cmd payload needs a 128-byte SQE: the driver refuses
 * control commands without IO_URING_F_SQE128 (drivers/block/ublk_drv.c:
 * ublk_ctrl_uring_cmd()).  The driver runs them in io-wq (it returns
 * -EAGAIN when issued non-blocking), and START_DEV sleeps there until every
 * queue has fetched all its tags, so each wait is bounded: a driver that
 * does not answer is reported, not waited for forever.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "proc.h"
#include "ublk_ctrl.h"

/* Bounds on a control command: START_DEV runs add_disk() and so reads the
 * partition table through our own queues; the others are quick. */
#define UBLK_CTRL_TIMEOUT_START_S 30
#define UBLK_CTRL_TIMEOUT_S 10
/* START_USER_RECOVERY answers -EBUSY until the dead server is fully gone
 * (its io_uring contexts are freed asynchronously, io_uring/io_uring.c:
 * io_ring_exit_work()) and the driver has quiesced the device; we ask
 * again every 100 ms for UBLK_RECOVERY_BUSY_WAIT_S (ublk_ctrl.h). */
#define UBLK_RECOVERY_BUSY_PAUSE_MS 100
/* How often a deleted device's id is looked up until the kernel frees it. */
#define UBLK_DEL_RELEASE_PAUSE_MS 10

const char *ublk_control_path(void)
{
	const char *p = getenv("VUBLK_CONTROL_DEV");

	return p && *p ? p : "/dev/ublk-control";
}

static void ublk_ctrl_probe(struct ublk_ctrl *c);

/*
 * The kernel's name of character device dev (its DEVNAME in sysfs), or ""
 * where sysfs does not say (not mounted, in a bare chroot).
 */
static void ublk_ctrl_node_name(dev_t dev, char *name, size_t len)
{
	char path[64], line[128];
	FILE *f;

	name[0] = '\0';
	snprintf(path, sizeof(path), "/sys/dev/char/%u:%u/uevent",
		 major(dev), minor(dev));
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "DEVNAME=", 8)) {
			snprintf(name, len, "%.*s",
				 (int)strcspn(line + 8, "\n"), line + 8);
			break;
		}
	fclose(f);
}

/*
 * Another node given as the control device (VUBLK_CONTROL_DEV=/dev/null,
 * a regular file) would take some commands as done and fail others
 * strangely, and `vublk list` would print an empty table: refuse anything
 * but a character device that the kernel calls ublk-control, where sysfs
 * can tell.
 */
static int ublk_ctrl_check_node(int fd, const char *path)
{
	char name[64];
	struct stat st;
	int err;

	if (fstat(fd, &st) < 0) {
		err = errno;	/* vublk_error() may change errno */
		vublk_error("cannot stat %s: %s", path, strerror(err));
		return -err;
	}
	if (S_ISCHR(st.st_mode)) {
		ublk_ctrl_node_name(st.st_rdev, name, sizeof(name));
		if (!name[0] || !strcmp(name, "ublk-control"))
			return 0;
	}
	vublk_error("%s is not the ublk control device (/dev/ublk-control, a character device): check VUBLK_CONTROL_DEV",
		    path);
	return -ENODEV;
}

int ublk_ctrl_open(struct ublk_ctrl *c)
{
	const char *path = ublk_control_path();
	int ret;

	c->encoded = false;
	c->have_features = false;
	c->features = 0;
	c->fd = open(path, O_RDWR | O_CLOEXEC);
	if (c->fd < 0) {
		ret = -errno;
		if (ret == -ENOENT)
			vublk_error("%s not found: the ublk_drv kernel module is not loaded (run: modprobe ublk_drv)",
				    path);
		else
			vublk_error("cannot open %s: %s%s", path,
				    strerror(-ret),
				    ret == -EACCES || ret == -EPERM ?
				    " (vublk needs root)" : "");
		return ret;
	}
	ret = ublk_ctrl_check_node(c->fd, path);
	if (ret) {
		close(c->fd);
		c->fd = -1;
		return ret;
	}
	ret = io_uring_queue_init(4, &c->ring, IORING_SETUP_SQE128);
	if (ret < 0) {
		vublk_error("cannot create the control io_uring: %s (is io_uring disabled, kernel.io_uring_disabled?)",
			    strerror(-ret));
		close(c->fd);
		c->fd = -1;
		return ret;
	}
	ublk_ctrl_probe(c);
	return 0;
}

void ublk_ctrl_close(struct ublk_ctrl *c)
{
	if (c->fd < 0)
		return;
	io_uring_queue_exit(&c->ring);
	close(c->fd);
	c->fd = -1;
}

static const char *ublk_ctrl_cmd_name(unsigned op)
{
	switch (_IOC_NR(op)) {
	case UBLK_CMD_ADD_DEV: return "ADD_DEV";
	case UBLK_CMD_DEL_DEV: return "DEL_DEV";
	case UBLK_CMD_DEL_DEV_ASYNC: return "DEL_DEV_ASYNC";
	case UBLK_CMD_START_DEV: return "START_DEV";
	case UBLK_CMD_STOP_DEV: return "STOP_DEV";
	case UBLK_CMD_SET_PARAMS: return "SET_PARAMS";
	case UBLK_CMD_GET_DEV_INFO: return "GET_DEV_INFO";
	case UBLK_CMD_GET_PARAMS: return "GET_PARAMS";
	case UBLK_CMD_START_USER_RECOVERY: return "START_USER_RECOVERY";
	case UBLK_CMD_END_USER_RECOVERY: return "END_USER_RECOVERY";
	case UBLK_CMD_GET_FEATURES: return "GET_FEATURES";
	case UBLK_CMD_UPDATE_SIZE: return "UPDATE_SIZE";
	case UBLK_CMD_QUIESCE_DEV: return "QUIESCE_DEV";
	case UBLK_CMD_TRY_STOP_DEV: return "TRY_STOP_DEV";
	default: return "?";
	}
}

/*
 * Wait (bounded) for buf's command: 0 with its result in *res once its CQE
 * is seen, else -errno and buf is still the kernel's.  Late CQEs of
 * commands that timed out earlier are skipped and their buffers freed.
 *
 * Why buffers are the kernel's until their CQE: a command's buffer is a
 * heap copy of the caller's, named by the SQE's user_data.  A command we
 * stop waiting for (timeout) is not cancelled: the driver runs it in io-wq
 * (see above) and may still copy its answer out (GET_DEV_INFO, GET_PARAMS,
 * ADD_DEV: copy_to_user() of header->addr) -- into a caller's stack frame
 * that would be gone by then, corrupting whatever runs there.  The copy
 * stays allocated until its late CQE shows up, or until the process exits.
 */
static int ublk_ctrl_wait(struct ublk_ctrl *c, unsigned char *buf,
			  unsigned op, unsigned timeout_s, int *res)
{
	struct __kernel_timespec ts = { .tv_sec = timeout_s };
	unsigned char *done;
	struct io_uring_cqe *cqe;
	int ret;

	for (;;) {
		ret = io_uring_wait_cqe_timeout(&c->ring, &cqe, &ts);
		if (ret == -EINTR)
			continue;
		if (ret == -ETIME) {
			vublk_error("ublk control command %s did not complete in %u s: kernel ublk driver not responding",
				    ublk_ctrl_cmd_name(op), timeout_s);
			return -ETIMEDOUT;
		}
		if (ret < 0)
			return ret;
		done = io_uring_cqe_get_data(cqe);
		*res = cqe->res;
		io_uring_cqe_seen(&c->ring, cqe);
		if (done == buf)
			return 0;
		free(done);	/* the answer of a command that timed out */
	}
}

/*
 * The command as this kernel takes it: the ioctl encoding where the
 * driver has it (6.4+, found by ublk_ctrl_open()), else the plain number.
 * The driver dispatches on the number and checks only the 'u' type
 * (ublk_check_cmd_op()), but the direction and size are the header's, as
 * GET_FEATURES must be exact.
 */
static unsigned ublk_ctrl_encode(const struct ublk_ctrl *c, unsigned nr)
{
	if (!c->encoded)
		return nr;
	switch (nr) {
	case UBLK_CMD_GET_DEV_INFO:
	case UBLK_CMD_GET_PARAMS:
	case UBLK_CMD_GET_FEATURES:
	case UBLK_CMD_DEL_DEV_ASYNC:
		return VUBLK_U_CMD(_IOR, nr);
	default:
		return VUBLK_U_CMD(_IOWR, nr);
	}
}

/* Issue one command and wait (bounded) for its result. */
static int ublk_ctrl_cmd(struct ublk_ctrl *c, unsigned op, unsigned dev_id,
			 void *data, unsigned len, uint64_t data0)
{
	/* END_USER_RECOVERY, like START_DEV, sleeps in the driver until
	 * every queue fetched its tags (ublk_ctrl_end_recovery()). */
	bool waits_for_queues = op == UBLK_CMD_START_DEV ||
				op == UBLK_CMD_END_USER_RECOVERY ||
				op == UBLK_CMD_QUIESCE_DEV;
	/* + 1: a pointer of its own (the CQE's name) even for len 0. */
	unsigned char *buf = malloc(len + 1);
	struct ublksrv_ctrl_cmd cmd = {
		.dev_id = dev_id,
		.queue_id = (uint16_t)-1,	/* not a queue command */
		.len = len,
		.data = { data0 },
	};
	struct io_uring_sqe *sqe = io_uring_get_sqe(&c->ring);
	int ret, res;

	if (!buf)
		return -ENOMEM;
	if (!sqe) {
		free(buf);
		return -EBUSY;	/* one command at a time: cannot happen */
	}
	if (len) {
		memcpy(buf, data, len);
		cmd.addr = (uint64_t)(uintptr_t)buf;
	}
	memset(sqe, 0, 2 * sizeof(*sqe));	/* SQE128: two slots */
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = c->fd;
	sqe->cmd_op = ublk_ctrl_encode(c, op);
	memcpy(sqe->cmd, &cmd, sizeof(cmd));
	io_uring_sqe_set_data(sqe, buf);
	ret = io_uring_submit(&c->ring);
	if (ret < 0) {
		free(buf);
		return ret;
	}
	ret = ublk_ctrl_wait(c, buf, op, waits_for_queues ?
			     UBLK_CTRL_TIMEOUT_START_S : UBLK_CTRL_TIMEOUT_S,
			     &res);
	if (ret < 0)
		return ret;	/* still in flight: buf is the kernel's */
	if (len)
		memcpy(data, buf, len);
	free(buf);
	return res < 0 ? res : 0;
}

/*
 * What the driver speaks, as kublk finds out (tools/testing/selftests/
 * ublk/kublk.c: __cmd_dev_add()): UBLK_U_CMD_GET_FEATURES, which exists
 * only ioctl-encoded (6.5+).  If it answers, every command goes encoded
 * and the feature mask is known; else (6.1 - 6.4) the plain numbers and
 * no mask: a flag is then known only from what ADD_DEV grants.
 * $VUBLK_TEST_LEGACY_OPCODES=1 (tests) keeps the plain numbers, which
 * kernels built with CONFIG_BLKDEV_UBLK_LEGACY_OPCODES still take.
 * $VUBLK_TEST_NO_AUTO_BUF_REG=1 (tests) hides UBLK_F_AUTO_BUF_REG, so that
 * a 6.16+ driver serves zero copy as 6.15's does (explicit registration).
 */
static void ublk_ctrl_probe(struct ublk_ctrl *c)
{
	const char *legacy = getenv("VUBLK_TEST_LEGACY_OPCODES");
	const char *no_auto = getenv("VUBLK_TEST_NO_AUTO_BUF_REG");
	uint64_t features = 0;

	if (legacy && !strcmp(legacy, "1"))
		return;
	c->encoded = true;
	if (ublk_ctrl_cmd(c, UBLK_CMD_GET_FEATURES, (unsigned)-1, &features,
			  VUBLK_FEATURES_LEN, 0) == 0) {
		c->have_features = true;
		c->features = features;
		if (no_auto && !strcmp(no_auto, "1"))
			c->features &= ~UBLK_F_AUTO_BUF_REG;
	} else {
		c->encoded = false;
	}
}

int ublk_ctrl_add_dev(struct ublk_ctrl *c, struct ublksrv_ctrl_dev_info *info)
{
	/* ublk_ctrl_add_dev() requires header dev_id == info dev_id, and
	 * writes the allocated id and the final queue count back. */
	return ublk_ctrl_cmd(c, UBLK_CMD_ADD_DEV, info->dev_id, info,
			     sizeof(*info), 0);
}

int ublk_ctrl_set_params(struct ublk_ctrl *c, unsigned dev_id,
			 struct vublk_ublk_params *p)
{
	/* A driver with a shorter struct takes what it knows
	 * (ublk_ctrl_set_params(): "ph.len = sizeof(struct ublk_params)"). */
	p->head.len = sizeof(*p);
	return ublk_ctrl_cmd(c, UBLK_CMD_SET_PARAMS, dev_id, p, sizeof(*p), 0);
}

int ublk_ctrl_start_dev(struct ublk_ctrl *c, unsigned dev_id, int pid)
{
	return ublk_ctrl_cmd(c, UBLK_CMD_START_DEV, dev_id, NULL, 0,
			     (uint64_t)pid);
}

int ublk_ctrl_stop_dev(struct ublk_ctrl *c, unsigned dev_id)
{
	return ublk_ctrl_cmd(c, UBLK_CMD_STOP_DEV, dev_id, NULL, 0, 0);
}

bool ublk_dev_deleted(unsigned dev_id)
{
	char path[64];

	/* ublk_remove() ran cdev_device_del(): the char device's sysfs entry
	 * goes with it, while GET_DEV_INFO still finds the device until its
	 * last reference is gone.  Without sysfs there is no telling. */
	if (access("/sys/class/ublk-char", F_OK))
		return false;
	snprintf(path, sizeof(path), "/sys/class/ublk-char/ublkc%u", dev_id);
	return access(path, F_OK) && errno == ENOENT;
}

void ublk_say_deleted_in_use(unsigned dev_id)
{
	vublk_info("device %u is deleted, but its disk is still open (mounted, held by another device, or open in a program): the kernel frees id %u when it is closed",
		   dev_id, dev_id);
}

/*
 * Wait, about UBLK_DEL_RELEASE_WAIT_MS, for the kernel to free the id
 * of the deleted device that had token: 0 once the id is free or names
 * another device, -EBUSY if the device is still there, else -errno (the
 * kernel did not answer).
 */
static int ublk_ctrl_wait_released(struct ublk_ctrl *c, unsigned dev_id,
				   uint64_t token)
{
	struct timespec pause = {
		.tv_nsec = UBLK_DEL_RELEASE_PAUSE_MS * 1000 * 1000,
	};
	uint64_t deadline = vublk_now_ns() +
			    UBLK_DEL_RELEASE_WAIT_MS * VUBLK_NS_PER_MS;
	struct ublksrv_ctrl_dev_info info;
	int ret;

	for (;;) {
		ret = ublk_ctrl_get_dev_info(c, dev_id, &info);
		if (ret == -ENODEV || (!ret && info.ublksrv_flags != token))
			return 0;
		if (ret < 0)
			return ret;
		if (vublk_now_ns() >= deadline)
			return -EBUSY;
		nanosleep(&pause, NULL);
	}
}

/*
 * Why not plain DEL_DEV: it removes the device, then waits in the driver
 * until the device's last reference is gone (ublk_ctrl_del_dev():
 * wait_event_interruptible(ublk_idr_wq, ublk_idr_freed(idx))), and the
 * disk holds one until its last opener closes /dev/ublkbN.  A mount, or a
 * program that keeps the dead disk open, holds the command that long:
 * fio, for one, reads 0 bytes from it at full speed until its runtime
 * ends.  DEL_DEV_ASYNC removes the device the same way and returns, as
 * ublksrv's `ublk del --async` and libublk's UBLK_DEV_F_DEL_DEV_ASYNC do.
 * It came in 6.9, but 6.9's and 6.10's driver matched it against the
 * plain numbers and answered -EOPNOTSUPP ("ublk: fix
 * UBLK_CMD_DEL_DEV_ASYNC handling", 6.11); such a driver, and one that
 * takes only the plain numbers, gets DEL_DEV.  We then wait, bounded,
 * for what is quick: the release of our own /dev/ublkcN (the server's
 * io_urings are freed asynchronously) and of a brief opener such as
 * udev's probe, so that the id is free for the next `vublk add -n ID` in
 * the common case.
 */
int ublk_ctrl_del_dev(struct ublk_ctrl *c, unsigned dev_id, uint64_t token)
{
	struct ublksrv_ctrl_dev_info info;
	int ret = ublk_ctrl_get_dev_info(c, dev_id, &info);

	if (ret < 0)
		return ret;
	if (info.ublksrv_flags != token)
		return -ESTALE;
	if (!c->encoded)
		return ublk_ctrl_cmd(c, UBLK_CMD_DEL_DEV, dev_id, NULL, 0, 0);
	ret = ublk_ctrl_cmd(c, UBLK_CMD_DEL_DEV_ASYNC, dev_id, NULL, 0, 0);
	if (ret == -EOPNOTSUPP)
		return ublk_ctrl_cmd(c, UBLK_CMD_DEL_DEV, dev_id, NULL, 0, 0);
	if (ret < 0)
		return ret;
	ret = ublk_ctrl_wait_released(c, dev_id, token);
	if (ret == -EBUSY)
		ublk_say_deleted_in_use(dev_id);
	return ret == -EBUSY ? 0 : ret;
}

int ublk_ctrl_get_dev_info(struct ublk_ctrl *c, unsigned dev_id,
			   struct ublksrv_ctrl_dev_info *info)
{
	memset(info, 0, sizeof(*info));
	return ublk_ctrl_cmd(c, UBLK_CMD_GET_DEV_INFO, dev_id, info,
			     sizeof(*info), 0);
}

int ublk_ctrl_get_params(struct ublk_ctrl *c, unsigned dev_id,
			 struct ublk_params *p)
{
	/* ublk_ctrl_get_params() copies at most the header's len. */
	memset(p, 0, sizeof(*p));
	p->len = sizeof(*p);
	return ublk_ctrl_cmd(c, UBLK_CMD_GET_PARAMS, dev_id, p, sizeof(*p), 0);
}

int ublk_ctrl_start_user_recovery(struct ublk_ctrl *c, unsigned dev_id)
{
	struct timespec pause = {
		.tv_nsec = UBLK_RECOVERY_BUSY_PAUSE_MS * 1000 * 1000,
	};
	uint64_t deadline = vublk_now_ns() +
			    UBLK_RECOVERY_BUSY_WAIT_S * VUBLK_NS_PER_S;
	int ret;

	/* As ublksrv does: the driver's -EBUSY means "not yet" (the dead
	 * server's char device still open, or the device not yet quiesced:
	 * ublk_drv.c: ublk_ctrl_start_recovery()), so ask again, bounded. */
	for (;;) {
		ret = ublk_ctrl_cmd(c, UBLK_CMD_START_USER_RECOVERY, dev_id,
				    NULL, 0, 0);
		if (ret != -EBUSY || vublk_now_ns() >= deadline)
			return ret;
		nanosleep(&pause, NULL);
	}
}

int ublk_ctrl_end_user_recovery(struct ublk_ctrl *c, unsigned dev_id,
				int pid)
{
	return ublk_ctrl_cmd(c, UBLK_CMD_END_USER_RECOVERY, dev_id, NULL, 0,
			     (uint64_t)pid);
}

int ublk_ctrl_update_size(struct ublk_ctrl *c, unsigned dev_id,
			  uint64_t sectors)
{
	/* ublk_ctrl_set_size(): data[0] is the size in 512-byte sectors. */
	return ublk_ctrl_cmd(c, UBLK_CMD_UPDATE_SIZE, dev_id, NULL, 0, sectors);
}

int ublk_ctrl_quiesce_dev(struct ublk_ctrl *c, unsigned dev_id,
			  unsigned timeout_ms)
{
	/* ublk_ctrl_quiesce_dev(): data[0] is how long to wait for every
	 * queue to have an idle command, in ms. */
	return ublk_ctrl_cmd(c, UBLK_CMD_QUIESCE_DEV, dev_id, NULL, 0,
			     timeout_ms);
}

/*
 * Is /dev/ublkbN in use, for a kernel without TRY_STOP_DEV: a holder
 * (device-mapper, md), an exclusive opener (a mount: O_EXCL fails with
 * EBUSY), or any process with it open.  The kernel's disk_openers()
 * counts the same; here there is a moment between the check and STOP_DEV.
 */
static bool ublk_bdev_in_use(unsigned dev_id)
{
	char path[64], holders[96];
	struct dirent *de;
	bool held = false;
	DIR *d;
	int fd;

	snprintf(holders, sizeof(holders), "/sys/block/ublkb%u/holders",
		 dev_id);
	d = opendir(holders);
	while (d && !held && (de = readdir(d)))
		held = de->d_name[0] != '.';
	if (d)
		closedir(d);
	snprintf(path, sizeof(path), "/dev/ublkb%u", dev_id);
	fd = open(path, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0 && errno == EBUSY)
		held = true;
	if (fd >= 0)
		close(fd);
	return held || vublk_any_proc_has_open(path);
}

int ublk_ctrl_try_stop_dev(struct ublk_ctrl *c, unsigned dev_id)
{
	/* ublk_ctrl_try_stop_dev() (7.0): -EBUSY while disk_openers() > 0,
	 * else new opens are refused and the device stops. */
	if (c->features & UBLK_F_SAFE_STOP_DEV)
		return ublk_ctrl_cmd(c, UBLK_CMD_TRY_STOP_DEV, dev_id, NULL, 0,
				     0);
	if (ublk_bdev_in_use(dev_id))
		return -EBUSY;
	return ublk_ctrl_stop_dev(c, dev_id);
}

int ublk_ctrl_remove_dev(struct ublk_ctrl *c, unsigned dev_id,
			 uint64_t token)
{
	int ret = ublk_ctrl_stop_dev(c, dev_id);

	/* STOP_DEV of a device that is already dead is a no-op. */
	if (ret < 0 && ret != -ENODEV)
		return ret;
	ret = ublk_ctrl_del_dev(c, dev_id, token);
	return ret == -ENODEV ? 0 : ret;
}

const char *ublk_dev_state_name(unsigned state)
{
	switch (state) {
	case UBLK_S_DEV_DEAD: return "dead";
	case UBLK_S_DEV_LIVE: return "live";
	case UBLK_S_DEV_QUIESCED: return "quiesced";
	case UBLK_S_DEV_FAIL_IO: return "fail-io";
	default: return "unknown";
	}
}
