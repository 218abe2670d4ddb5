// SPDX-License-Identifier: GPL-2.0-only
/*
 * del.c - `vublk del -n ID` / `vublk del -a` [--safe].
 *
 * A running server is asked to stop with SIGTERM: it stops the device,
 * finishes its in-flight I/O, deletes the device and exits; we wait for
 * that, bounded.  A device whose server is gone (killed) is still in the
 * kernel until someone deletes it: we send STOP_DEV and delete it
 * ourselves, as ublksrv's `ublk del` does for a dead daemon.  A deleted
 * device whose disk is still open stays in the kernel until the last
 * close; del says so and does not wait (core/ctrl.c: ublk_ctrl_del_dev()).
 *
 * `vublk del --safe` stops nothing that is open (mounted, held by another
 * device, or open in a program): a running server is asked to stop
 * through its control socket (core/control.c: TRY_STOP_DEV, or a check
 * of the device's openers before STOP_DEV on kernels before 7.0); for a
 * device without a server we ask the kernel the same way ourselves.
 *
 * Only what is ours is touched (identity.c): the server is signalled
 * through a pidfd on the process identified as the device's vublk server
 * (a pid named by a stale state file may be anyone's now), and the device
 * is removed only while its id still carries its token (once its server
 * deleted it, the kernel may have given the id to a new device).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli.h"
#include "ublk_ctrl.h"

/* A clean stop takes a STOP_DEV and a delete, 10 s bound each (DEL_DEV
 * of a kernel before 6.11; DEL_DEV_ASYNC answers at once). */
#define DEL_SERVER_WAIT_MS 30000

/* What del knows of one device id. */
struct del_target {
	unsigned id;
	bool in_kernel;
	struct ublksrv_ctrl_dev_info info;
	bool have_state;	/* a state file for this id */
	bool state_stale;	/* ... that describes an earlier device */
	struct vublk_state st;
	uint64_t token;		/* the device's: the kernel's, else the file's */
	int pidfd;		/* its vublk server, or -1 */
	pid_t pid;
	bool refused;		/* another program serves it */
};

/* The device's vublk server: the kernel's record first (it knows the
 * server of a live device), else the state file's (a server starting up,
 * or one the kernel no longer names). */
static void del_find_server(struct del_target *d)
{
	d->pidfd = -1;
	if (d->in_kernel) {
		d->pid = d->info.ublksrv_pid;
		d->pidfd = vublk_server_open(d->pid, d->id, 0);
	}
	if (d->pidfd < 0 && d->have_state && !d->state_stale) {
		d->pid = d->st.pid;
		d->pidfd = vublk_server_open(d->pid, d->id, d->st.pid_start);
	}
}

/* 0, or -errno after one error line (the kernel did not answer). */
static int del_probe(struct ublk_ctrl *c, unsigned id, struct del_target *d)
{
	int ret;

	*d = (struct del_target){ .id = id, .pidfd = -1 };
	d->have_state = vublk_state_read(id, &d->st) == 0;
	ret = ublk_ctrl_get_dev_info(c, id, &d->info);
	if (ret < 0 && ret != -ENODEV) {
		if (ret != -ETIMEDOUT)
			vublk_error("device %u: GET_DEV_INFO failed: %s", id,
				    strerror(-ret));
		return ret;
	}
	d->in_kernel = ret == 0;
	d->state_stale = d->have_state && d->in_kernel &&
			 d->st.token != d->info.ublksrv_flags;
	d->token = d->in_kernel ? d->info.ublksrv_flags : d->st.token;
	del_find_server(d);
	return 0;
}

/*
 * A live device whose server is alive but is not a vublk server of it:
 * another program serves it.  (A device whose server died is DEAD or
 * quiesced, so a live pid of a LIVE device is its server.)
 */
static bool del_served_by_other(const struct del_target *d)
{
	return d->in_kernel && d->pidfd < 0 && d->info.ublksrv_pid > 0 &&
	       d->info.state == UBLK_S_DEV_LIVE &&
	       kill(d->info.ublksrv_pid, 0) == 0;
}

/* Ask the server to stop (the signal goes to the process checked). */
static void del_signal(struct del_target *d)
{
	if (d->pidfd >= 0 &&
	    syscall(SYS_pidfd_send_signal, d->pidfd, SIGTERM, NULL, 0) < 0 &&
	    errno != ESRCH)
		vublk_error("device %u: cannot signal server pid %d: %s",
			    d->id, (int)d->pid, strerror(errno));
}

/* --safe: 0 if the device is stopped (or has nothing to stop), -errno
 * after one line if it is in use or the stop failed. */
static int del_stop_safe(struct ublk_ctrl *c, struct del_target *d)
{
	char reply[512];
	int ret;

	if (d->pidfd >= 0) {
		ret = vublk_server_request(d->id, "stop safe", reply,
					   sizeof(reply));
		if (ret < 0) {
			vublk_error("device %u: cannot ask server pid %d to stop safely (%s): is it a vublk of another version? (vublk del without --safe stops it)",
				    d->id, (int)d->pid, strerror(-ret));
			return ret;
		}
		if (strncmp(reply, "OK", 2)) {
			vublk_error("device %u: %s", d->id,
				    strncmp(reply, "ERR ", 4) ? reply : reply + 4);
			return -EBUSY;
		}
		return 0;
	}
	if (!d->in_kernel || d->info.state == UBLK_S_DEV_DEAD)
		return 0;
	ret = ublk_ctrl_try_stop_dev(c, d->id);
	if (ret == -EBUSY)
		vublk_error("device %u is open (mounted, or used by a program or another device): not deleted; close it first, or vublk del without --safe",
			    d->id);
	else if (ret < 0 && ret != -ETIMEDOUT)
		vublk_error("device %u: stopping it failed: %s", d->id,
			    strerror(-ret));
	return ret;
}

/* Wait, bounded, for the signalled server to exit. */
static int del_wait_server(struct del_target *d)
{
	bool exited;

	if (d->pidfd < 0)
		return 0;
	exited = vublk_pidfd_wait(d->pidfd, DEL_SERVER_WAIT_MS);
	close(d->pidfd);
	d->pidfd = -1;
	if (exited)
		return 0;
	vublk_error("device %u: server pid %d did not stop within %d s (see its log; kill -9 %d, then vublk del -n %u)",
		    d->id, (int)d->pid, DEL_SERVER_WAIT_MS / 1000, (int)d->pid,
		    d->id);
	return -ETIMEDOUT;
}

/* The server is gone: whatever it left of this device, we remove. */
static int del_remove(struct ublk_ctrl *c, struct del_target *d)
{
	int ret = 0;

	if (d->in_kernel || !d->state_stale)
		ret = vublk_remove_if_ours(c, d->id, d->token);
	if (ret == -ESTALE) {
		vublk_info("device %u: the id now names another device, which is left alone",
			   d->id);
		ret = 0;
	} else if (ret < 0) {
		if (ret != -ETIMEDOUT)
			vublk_error("device %u: cannot delete it: %s", d->id,
				    strerror(-ret));
		return ret;
	}
	if (d->state_stale)
		vublk_state_remove(d->id);	/* an earlier device's */
	else
		vublk_state_remove_if_ours(d->id, d->token);
	return 0;
}

/* Stop and delete the probed devices: every server is signalled before
 * any is waited for, so that `del -a` stops them together.  Returns the
 * number of failures. */
static int del_devices(struct ublk_ctrl *c, struct del_target *d, int n,
			bool safe)
{
	int failed = 0;

	for (int i = 0; i < n; i++) {
		d[i].refused = del_served_by_other(&d[i]);
		if (d[i].refused)
			vublk_error("device %u is served by pid %d, which is not its vublk server; leaving it alone",
				    d[i].id, (int)d[i].info.ublksrv_pid);
		else if (safe)
			d[i].refused = del_stop_safe(c, &d[i]) < 0;
		else
			del_signal(&d[i]);
	}
	for (int i = 0; i < n; i++) {
		if (d[i].refused || del_wait_server(&d[i]) < 0 ||
		    del_remove(c, &d[i]) < 0)
			failed++;
	}
	return failed;
}

#define DEL_USAGE "usage: vublk del {-n ID | -a} [--safe]"

struct del_args {
	bool all, have_id, safe;
	unsigned id;
};

static int del_option(void *ctx, int opt, const char *arg)
{
	struct del_args *a = ctx;

	switch (opt) {
	case 'a':
		a->all = true;
		return 0;
	case 's':
		a->safe = true;
		return 0;
	default:
		a->have_id = true;
		return vublk_parse_dev_id(arg, &a->id);
	}
}

/* The ids to delete: one, or every known one (state files, kernel). */
static int del_ids(bool all, unsigned *one, unsigned **ids)
{
	if (!all) {
		*ids = one;
		return 1;
	}
	return vublk_known_ids(ids);
}

int vublk_cmd_del(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "number", required_argument, NULL, 'n' },
		{ "all", no_argument, NULL, 'a' },
		{ "safe", no_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct del_args a = { 0 };
	unsigned *ids = NULL;
	struct del_target *d = NULL;
	int n, i, failed = 0;
	struct ublk_ctrl ctrl;

	n = vublk_cli_options("del", DEL_USAGE, argc, argv, ":n:a", opts,
			      del_option, &a);
	if (n)
		return n < 0;
	if (a.all == a.have_id) {
		vublk_error("del: give exactly one of -n ID and -a (" DEL_USAGE ")");
		return 1;
	}
	if (vublk_run_dir_check() < 0 || ublk_ctrl_open(&ctrl) < 0)
		return 1;
	n = del_ids(a.all, &a.id, &ids);
	if (n >= 0)
		d = calloc(n ? n : 1, sizeof(*d));
	for (i = 0; d && i < n; i++)
		if (del_probe(&ctrl, ids[i], &d[i]) < 0)
			break;
	if (!d || i < n) {
		if (!d && n >= 0)
			vublk_error("del: out of memory");
		failed = 1;
	} else if (!a.all && !d[0].in_kernel && !d[0].have_state) {
		vublk_error("del: no device with id %u (see: vublk list)", a.id);
		failed = 1;
	} else {
		failed = del_devices(&ctrl, d, n, a.safe);
	}
	for (i = 0; d && i < n; i++)
		if (d[i].pidfd >= 0)
			close(d[i].pidfd);
	free(d);
	if (a.all)
		free(ids);
	ublk_ctrl_close(&ctrl);
	return failed ? 1 : 0;
}
