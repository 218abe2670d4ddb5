// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_recover.c - `vublk recover -n ID [--foreground]`: start a new server
 * for a device added with -r (--recovery) whose server died.
 *
 * The kernel keeps such a device (ublk_drv.c: ublk_nosrv_work() quiesces
 * it instead of stopping it); I/O sent to it waits.  This command checks
 * that recovery makes sense (the device exists, was added with recovery,
 * and its server is really gone), rebuilds the `vublk add` command line
 * from the state file the first server wrote (target, backing file, target
 * options, read-only), and hands it to vublk_add_recover(), which runs the
 * server like `vublk add` does, re-attached to the device (ublk.c:
 * ublk_server_setup_recovery()).  ublksrv's `ublk recover` works the same
 * way from its own per-device json.
 *
 * --restart replaces a running server (a new vublk binary, say) without
 * failing any I/O: the server is asked to quiesce the device
 * (core/control.c: QUIESCE_DEV, Linux 6.16; requests wait in the kernel
 * meanwhile), it answers what it holds and exits leaving the device
 * quiesced, and the new server recovers it as above.  kublk's test of the
 * same: 7.3 tools/testing/selftests/ublk/test_recover_03.sh.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "ublk_ctrl.h"

/* "add", -t, -f, -n, --read-only, --recovery=, --foreground, --name=:
 * 11 words, and the target options. */
#define RECOVER_MAX_TARGET_ARGS 64
#define RECOVER_MAX_ARGS (12 + RECOVER_MAX_TARGET_ARGS)
/* QUIESCE_DEV waits up to 10 s for idle queues; then the server ends. */
#define RECOVER_RESTART_WAIT_MS 30000
#define RECOVER_USAGE "usage: vublk recover -n ID [--restart] [--foreground]"

struct recover_cmd {
	unsigned id;
	bool have_id;
	bool foreground;
	bool restart;
	struct vublk_state st;
	struct ublksrv_ctrl_dev_info info;
	char id_arg[16];
	char recovery_arg[32];
	char name_arg[VUBLK_NAME_MAX + 8];
	char log[PATH_MAX];
	char *argv[RECOVER_MAX_ARGS + 1];
	int argc;
};

static int recover_option(void *ctx, int opt, const char *arg)
{
	struct recover_cmd *rc = ctx;

	switch (opt) {
	case 'F':
		rc->foreground = true;
		return 0;
	case 'R':
		rc->restart = true;
		return 0;
	default:
		rc->have_id = true;
		return vublk_parse_dev_id(arg, &rc->id);
	}
}

static int recover_parse(struct recover_cmd *rc, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "number", required_argument, NULL, 'n' },
		{ "foreground", no_argument, NULL, 'F' },
		{ "restart", no_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 },
	};

	int ret = vublk_cli_options("recover", RECOVER_USAGE, argc, argv,
				    ":n:", opts, recover_option, rc);

	if (ret)
		return ret;	/* -EINVAL, or 1: the usage printed */
	if (!rc->have_id) {
		vublk_error("recover: give the device with -n ID (" RECOVER_USAGE ")");
		return -EINVAL;
	}
	return 0;
}

/* The kernel's record of the device, or -errno after one line. */
static int recover_get_info(struct recover_cmd *rc)
{
	struct ublk_ctrl ctrl;
	unsigned id = rc->id;
	int ret;

	if (ublk_ctrl_open(&ctrl) < 0)
		return -ENODEV;
	ret = ublk_ctrl_get_dev_info(&ctrl, id, &rc->info);
	ublk_ctrl_close(&ctrl);
	if (ret == -ENODEV) {
		vublk_error("recover: no device with id %u (see: vublk list)",
			    id);
		return ret;
	}
	if (ret < 0) {
		if (ret != -ETIMEDOUT)
			vublk_error("recover: device %u: GET_DEV_INFO failed: %s",
				    id, strerror(-ret));
		return ret;
	}
	return 0;
}

/* The device is known to the kernel, and may be recovered. */
static int recover_check_kernel(struct recover_cmd *rc)
{
	unsigned id = rc->id;
	int ret = recover_get_info(rc);

	if (ret < 0)
		return ret;
	if (!(rc->info.flags & UBLK_F_USER_RECOVERY)) {
		vublk_error("recover: device %u was not added with -r (--recovery): the kernel failed its I/O when its server died and cannot give it a new server; delete it with: vublk del -n %u",
			    id, id);
		return -EINVAL;
	}
	if (vublk_server_running(rc->info.ublksrv_pid, id, 0)) {
		vublk_error("recover: device %u: server pid %d is alive: nothing to recover",
			    id, rc->info.ublksrv_pid);
		return -EBUSY;
	}
	/* ublk_detach_disk(): a stopped device has no disk left to serve. */
	if (rc->info.state == UBLK_S_DEV_DEAD) {
		vublk_error("recover: device %u is stopped (no /dev/ublkb%u): nothing to recover; delete it with: vublk del -n %u",
			    id, id, id);
		return -EINVAL;
	}
	return 0;
}

/* The first server's state file says how to serve the device again. */
static int recover_read_state(struct recover_cmd *rc)
{
	char path[PATH_MAX];
	int ret = vublk_state_read(rc->id, &rc->st);

	if (ret == -ENOENT) {
		vublk_run_path(path, sizeof(path), rc->id, ".json");
		vublk_error("recover: device %u has no state file %s, so its target and backing file are unknown; delete it with: vublk del -n %u",
			    rc->id, path, rc->id);
	}
	if (ret < 0)
		return ret;	/* unreadable: vublk_state_read() said so */
	if (rc->st.token != rc->info.ublksrv_flags) {
		vublk_run_path(path, sizeof(path), rc->id, ".json");
		vublk_error("recover: device %u: the state file %s describes an earlier device with that id, so this one's target and backing file are unknown; delete it with: vublk del -n %u",
			    rc->id, path, rc->id);
		return -ESTALE;
	}
	/* A starting server is alive too, and not in the kernel's info. */
	if (vublk_server_running(rc->st.pid, rc->id, rc->st.pid_start)) {
		vublk_error("recover: device %u: server pid %d is alive: nothing to recover",
			    rc->id, rc->st.pid);
		return -EBUSY;
	}
	if (rc->st.log[0])
		snprintf(rc->log, sizeof(rc->log), "%s", rc->st.log);
	else
		vublk_run_path(rc->log, sizeof(rc->log), rc->id, ".log");
	return 0;
}

static void recover_push(struct recover_cmd *rc, char *arg)
{
	rc->argv[rc->argc++] = arg;
}

/* The `vublk add` line of the first server, for the same device. */
static int recover_build_argv(struct recover_cmd *rc)
{
	int n;

	snprintf(rc->id_arg, sizeof(rc->id_arg), "%u", rc->id);
	/* The kernel's flags are the truth about the mode. */
	snprintf(rc->recovery_arg, sizeof(rc->recovery_arg), "--recovery=%s",
		 vublk_recovery_name(rc->info.flags));
	recover_push(rc, "recover");
	recover_push(rc, "-t");
	recover_push(rc, rc->st.target);
	recover_push(rc, "-f");
	recover_push(rc, rc->st.backing_file);
	recover_push(rc, "-n");
	recover_push(rc, rc->id_arg);
	recover_push(rc, rc->recovery_arg);
	if (rc->st.read_only)
		recover_push(rc, "--read-only");
	if (rc->foreground)
		recover_push(rc, "--foreground");
	if (rc->st.name[0]) {
		snprintf(rc->name_arg, sizeof(rc->name_arg), "--name=%s",
			 rc->st.name);
		recover_push(rc, rc->name_arg);
	}
	n = vublk_split_target_args(rc->st.target_args, rc->argv + rc->argc,
				    RECOVER_MAX_TARGET_ARGS);
	if (n < 0) {
		vublk_error("recover: device %u: more than %d target options in its state file",
			    rc->id, RECOVER_MAX_TARGET_ARGS);
		return n;
	}
	rc->argc += n;
	rc->argv[rc->argc] = NULL;
	return 0;
}

/* Wait, bounded, for the quiesced server to exit. */
static int recover_wait_exit(struct recover_cmd *rc, int pidfd)
{
	if (vublk_pidfd_wait(pidfd, RECOVER_RESTART_WAIT_MS))
		return 0;
	vublk_error("recover: device %u is quiesced, but server pid %d did not exit within %d s (see its log; kill -9 %d, then vublk recover -n %u)",
		    rc->id, (int)rc->info.ublksrv_pid,
		    RECOVER_RESTART_WAIT_MS / 1000, (int)rc->info.ublksrv_pid,
		    rc->id);
	return -ETIMEDOUT;
}

/* --restart: the running server hands the device over and exits. */
static int recover_quiesce_server(struct recover_cmd *rc)
{
	char reply[512];
	int pidfd, ret = recover_get_info(rc);

	if (ret < 0)
		return ret;
	pidfd = vublk_server_open(rc->info.ublksrv_pid, rc->id, 0);
	if (pidfd < 0) {
		vublk_error("recover: device %u has no running vublk server to restart (see: vublk list -n %u; vublk recover without --restart serves a device whose server died)",
			    rc->id, rc->id);
		return -ESRCH;
	}
	ret = vublk_server_request(rc->id, "quiesce", reply, sizeof(reply));
	if (ret < 0)
		vublk_error("recover: device %u: cannot ask server pid %d to quiesce (%s): is it a vublk of another version?",
			    rc->id, (int)rc->info.ublksrv_pid, strerror(-ret));
	else if (strncmp(reply, "OK", 2))
		vublk_error("recover: device %u: %s", rc->id,
			    strncmp(reply, "ERR ", 4) ? reply : reply + 4);
	if (!ret && strncmp(reply, "OK", 2))
		ret = -EINVAL;
	if (!ret)
		ret = recover_wait_exit(rc, pidfd);
	close(pidfd);
	return ret;
}

int vublk_cmd_recover(int argc, char **argv)
{
	struct recover_cmd rc = { 0 };

	int ret = recover_parse(&rc, argc, argv);

	if (ret == 1)
		return 0;
	if (ret < 0 || vublk_run_dir_check() < 0 ||
	    (rc.restart && recover_quiesce_server(&rc) < 0) ||
	    recover_check_kernel(&rc) < 0 || recover_read_state(&rc) < 0 ||
	    recover_build_argv(&rc) < 0)
		return 1;
	return vublk_add_recover(rc.argc, rc.argv, rc.log);
}
