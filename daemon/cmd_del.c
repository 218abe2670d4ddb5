// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_del.c - `vublk del -n ID` / `vublk del -a`.
 *
 * A running server is asked to stop with SIGTERM: it stops the device,
 * finishes its in-flight I/O, deletes the device and exits; we wait for
 * that, bounded.  A device whose server is gone (killed) is still in the
 * kernel until someone sends DEL_DEV: we send STOP_DEV and DEL_DEV
 * ourselves, as ublksrv's `ublk del` does for a dead daemon.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli.h"
#include "ublk.h"

/* A clean stop takes a STOP_DEV and a DEL_DEV, 10 s bound each. */
#define DEL_SERVER_WAIT_MS 30000

/* Wait for pid to exit; a pidfd is readable once the process is gone. */
static int del_wait_exit(pid_t pid)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
	int ret;

	if (pidfd < 0)
		return errno == ESRCH ? 0 : -errno;
	do
		ret = poll(&pfd, 1, DEL_SERVER_WAIT_MS);
	while (ret < 0 && errno == EINTR);
	close(pidfd);
	return ret > 0 ? 0 : -ETIMEDOUT;
}

static int del_stop_server(unsigned id, pid_t pid)
{
	if (kill(pid, SIGTERM) < 0)
		return errno == ESRCH ? 0 : -errno;
	if (del_wait_exit(pid) == 0)
		return 0;
	vublk_error("device %u: server pid %d did not stop within %d s (see its log; kill -9 %d, then vublk del -n %u)",
		    id, (int)pid, DEL_SERVER_WAIT_MS / 1000, (int)pid, id);
	return -ETIMEDOUT;
}

/*
 * The running vublk server of device id: its pid, 0 if it has none, or
 * -EBUSY if another program (*other) serves the device.  *found says
 * whether the device exists at all (in the kernel or in our state
 * directory).
 */
static pid_t del_find_server(struct ublk_ctrl *c, unsigned id, bool *found,
			     pid_t *other)
{
	struct ublksrv_ctrl_dev_info info;
	struct vublk_state st;
	bool have_state = vublk_state_read(id, &st) == 0;
	int ret;

	ret = ublk_ctrl_get_dev_info(c, id, &info);
	if (ret < 0 && ret != -ENODEV)
		return ret;
	*found = have_state || ret == 0;
	if (ret == 0 && info.ublksrv_pid > 0 &&
	    !vublk_server_alive(info.ublksrv_pid) &&
	    kill(info.ublksrv_pid, 0) == 0 && info.state == UBLK_S_DEV_LIVE) {
		/* Another ublk server's device (or a reused pid): not ours. */
		*other = info.ublksrv_pid;
		return -EBUSY;
	}
	if (ret == 0 && vublk_server_alive(info.ublksrv_pid))
		return info.ublksrv_pid;
	if (have_state && vublk_server_alive(st.pid))
		return st.pid;	/* still starting up, or the kernel lost it */
	return 0;
}

/* Delete one device; found says whether it existed at all. */
static int del_one(struct ublk_ctrl *c, unsigned id, bool *found)
{
	pid_t other, pid = del_find_server(c, id, found, &other);
	int ret;

	if (pid == -EBUSY)
		vublk_error("device %u is served by pid %d, which is not vublk; leaving it alone",
			    id, (int)other);
	if (pid < 0)
		return pid;
	if (pid > 0) {
		ret = del_stop_server(id, pid);
		if (ret < 0)
			return ret;
	}
	/* The server is gone: whatever it left, we remove. */
	ret = ublk_ctrl_remove_dev(c, id);
	if (ret < 0) {
		if (ret != -ETIMEDOUT)
			vublk_error("device %u: cannot delete it: %s", id,
				    strerror(-ret));
		return ret;
	}
	vublk_state_remove(id);
	return 0;
}

/*
 * del -a: ask every server to stop before waiting for any, so that they
 * stop together (each stop is a STOP_DEV and a DEL_DEV, which wait for the
 * kernel) instead of one after another; del_one() then waits for each and
 * removes what is left.  A refusal is reported there, not here.
 */
static void del_signal_all(struct ublk_ctrl *c, const unsigned *ids, int n)
{
	pid_t other;
	bool found;

	for (int i = 0; i < n; i++) {
		pid_t pid = del_find_server(c, ids[i], &found, &other);

		if (pid > 0)
			(void)kill(pid, SIGTERM);
	}
}

static int del_usage_error(const char *what)
{
	vublk_error("del: %s (usage: vublk del -n ID | vublk del -a)", what);
	return 1;
}

int vublk_cmd_del(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "number", required_argument, NULL, 'n' },
		{ "all", no_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned *ids = NULL, one;
	uint64_t v;
	bool all = false, have_id = false, found;
	int c, n, i, failed = 0;
	struct ublk_ctrl ctrl;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":n:a", opts, NULL)) != -1) {
		if (c == 'a') {
			all = true;
		} else if (c == 'n') {
			if (vublk_parse_u64("-n (device id)", optarg, 0,
					    VUBLK_MAX_DEV_ID, &v) < 0)
				return 1;
			one = v;
			have_id = true;
		} else {
			return del_usage_error(c == ':' ? "missing value for an option" :
					       "unknown option");
		}
	}
	if (optind < argc || all == have_id)
		return del_usage_error("give exactly one of -n ID and -a");
	if (ublk_ctrl_open(&ctrl) < 0)
		return 1;
	if (all) {
		n = vublk_known_ids(&ids);
		if (n < 0) {
			ublk_ctrl_close(&ctrl);
			return 1;
		}
		del_signal_all(&ctrl, ids, n);
	} else {
		ids = &one;
		n = 1;
	}
	for (i = 0; i < n; i++) {
		if (del_one(&ctrl, ids[i], &found) < 0)
			failed++;
		else if (!found && !all) {
			vublk_error("del: no device with id %u (see: vublk list)",
				    ids[i]);
			failed++;
		}
	}
	if (all)
		free(ids);
	ublk_ctrl_close(&ctrl);
	return failed ? 1 : 0;
}
