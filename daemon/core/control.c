// SPDX-License-Identifier: GPL-2.0-only
/*
 * control.c - the server's control socket: requests from `vublk` commands
 * that only the running server can carry out, because they change what it
 * checks or how it ends.
 *
 *   "resize BYTES"  (vublk update-size) the device becomes BYTES long, or,
 *                   for 0, as long as its backing store is now: the
 *                   target checks the size, and the server's request
 *                   bound moves before the kernel's when the device grows,
 *                   after it when it shrinks (UBLK_F_UPDATE_SIZE, 6.16)
 *   "stop safe"     (vublk del --safe) stop only if nobody has the device
 *                   open (TRY_STOP_DEV, 7.0, or a check before STOP_DEV)
 *   "quiesce"       (vublk recover --restart) hand the device to a new
 *                   server without failing any I/O (QUIESCE_DEV, 6.16):
 *                   new requests wait, this server finishes what it has
 *                   and leaves the device quiesced
 *
 * A request is one SOCK_SEQPACKET message; the answer is one too, "OK
 * text" or "ERR one line".  The socket is $VUBLK_RUN_DIR/ID.ctl, mode
 * 0600, and a peer must run as the server's user (SO_PEERCRED).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "control.h"
#include "core.h"

/* How long QUIESCE_DEV may wait for every queue to have an idle command. */
#define UBLK_QUIESCE_TIMEOUT_MS 10000

int ublk_control_listen(struct vublk_server *s)
{
	const char *path = s->cfg->control_path;
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd;

	s->control_fd = -1;
	if (!path || !path[0])
		return 0;
	if (strlen(path) >= sizeof(addr.sun_path)) {
		vublk_error("control socket path %s is too long", path);
		return -ENAMETOOLONG;
	}
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		goto fail;
	/* Whatever an earlier server of this id left there (the run
	 * directory is ours: runfile.h). */
	if (unlink(path) < 0 && errno != ENOENT)
		goto fail;
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    chmod(path, 0600) < 0 || listen(fd, 4) < 0)
		goto fail;
	s->control_fd = fd;
	return 0;
fail:
	vublk_error("cannot create the control socket %s: %s", path,
		    strerror(errno));
	if (fd >= 0)
		close(fd);
	return -errno;
}

void ublk_control_close(struct vublk_server *s)
{
	if (s->control_fd < 0)
		return;
	close(s->control_fd);
	unlink(s->cfg->control_path);
	s->control_fd = -1;
}

/* "resize BYTES": see the top of the file. */
static int ublk_control_resize(struct vublk_server *s, uint64_t want,
			       char *reply, size_t len)
{
	struct vublk_tgt *t = s->tgt;
	uint64_t old = t->dev_size, size = want;
	int ret;

	if (!(s->ctrl.features & UBLK_F_UPDATE_SIZE)) {
		snprintf(reply, len, "ERR update-size needs the ublk driver's update_size feature (Linux 6.16+), which this kernel's driver lacks");
		return -EOPNOTSUPP;
	}
	if (!t->ops->resize) {
		snprintf(reply, len, "ERR the %s target cannot change its size (delete the device and add it again)",
			 t->ops->name);
		return -EOPNOTSUPP;
	}
	ret = t->ops->resize(t, &size, reply + 4, len - 4);
	if (ret) {
		memcpy(reply, "ERR ", 4);
		return ret;
	}
	if (size > old)
		__atomic_store_n(&s->limits.dev_sectors, size >> 9,
				 __ATOMIC_RELEASE);
	ret = ublk_ctrl_update_size(&s->ctrl, s->info.dev_id, size >> 9);
	if (ret < 0) {
		__atomic_store_n(&s->limits.dev_sectors, old >> 9,
				 __ATOMIC_RELEASE);
		snprintf(reply, len, "ERR UPDATE_SIZE failed: %s",
			 strerror(-ret));
		return ret;
	}
	/* Shrunk: what was queued before still gets its range checked
	 * against the old size until now. */
	__atomic_store_n(&s->limits.dev_sectors, size >> 9, __ATOMIC_RELEASE);
	t->dev_size = size;
	vublk_info("device %u: size %" PRIu64 " -> %" PRIu64 " bytes",
		   s->info.dev_id, old, size);
	snprintf(reply, len, "OK %" PRIu64, size);
	return 0;
}

/* "stop safe": stopped (the server then ends), or refused. */
static int ublk_control_stop_safe(struct vublk_server *s, char *reply,
				  size_t len)
{
	int ret = ublk_ctrl_try_stop_dev(&s->ctrl, s->info.dev_id);

	if (ret == -EBUSY) {
		snprintf(reply, len, "ERR device %u is open (mounted, or used by a program or another device): not stopped; close it first, or vublk del without --safe",
			 s->info.dev_id);
		return ret;
	}
	if (ret < 0) {
		snprintf(reply, len, "ERR stopping device %u failed: %s",
			 s->info.dev_id, strerror(-ret));
		return ret;
	}
	s->dev_started = false;		/* stopped already */
	snprintf(reply, len, "OK stopped");
	return UBLK_CONTROL_STOP;
}

/* "quiesce": every request answered, the device left to a new server. */
static int ublk_control_quiesce(struct vublk_server *s, char *reply,
				size_t len)
{
	int ret;

	if (!(s->info.flags & UBLK_F_QUIESCE)) {
		snprintf(reply, len, "ERR device %u was not added with quiesce support: a planned restart needs -r (--recovery) and the ublk driver's quiesce feature (Linux 6.16+); use vublk del, or kill the server and vublk recover",
			 s->info.dev_id);
		return -EOPNOTSUPP;
	}
	/* FAIL_IO: the driver fails new I/O while no server runs, and a
	 * planned restart is there so that none fails. */
	if (s->info.flags & UBLK_F_USER_RECOVERY_FAIL_IO) {
		snprintf(reply, len, "ERR device %u was added with --recovery=fail: its I/O would fail while the server restarts; stop it with vublk del and add it again with -r",
			 s->info.dev_id);
		return -EINVAL;
	}
	ret = ublk_ctrl_quiesce_dev(&s->ctrl, s->info.dev_id,
				    UBLK_QUIESCE_TIMEOUT_MS);
	if (ret < 0) {
		snprintf(reply, len, "ERR QUIESCE_DEV failed: %s",
			 strerror(-ret));
		return ret;
	}
	/* Leave the device to the next server: no STOP_DEV, no DEL_DEV. */
	s->dev_started = false;
	s->dev_added = false;
	snprintf(reply, len, "OK quiesced");
	return UBLK_CONTROL_QUIESCED;
}

static int ublk_control_handle(struct vublk_server *s, const char *req,
			       char *reply, size_t len)
{
	char *end;
	uint64_t size;

	if (!strncmp(req, "resize ", 7)) {
		size = strtoull(req + 7, &end, 10);
		if (*end == '\0')
			return ublk_control_resize(s, size, reply, len);
	} else if (!strcmp(req, "stop safe")) {
		return ublk_control_stop_safe(s, reply, len);
	} else if (!strcmp(req, "quiesce")) {
		return ublk_control_quiesce(s, reply, len);
	}
	snprintf(reply, len, "ERR unknown request '%.64s' (a vublk of another version?)",
		 req);
	return -EINVAL;
}

/*
 * How long the main thread waits for a client that connected to send its
 * request, or to take the answer: vublk sends at once, but a client that
 * connects and says nothing (stopped with ^Z, a stray script) would
 * otherwise hold the thread that answers the queues' deaths, signals and
 * every other request.
 */
static const struct timeval control_patience = { .tv_sec = 1 };

int ublk_control_serve(struct vublk_server *s)
{
	char req[256], reply[512];
	struct ucred cred;
	socklen_t cred_len = sizeof(cred);
	ssize_t n;
	int fd = accept4(s->control_fd, NULL, NULL, SOCK_CLOEXEC), ret;

	if (fd < 0)
		return 0;	/* gone before we looked: nothing asked */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cred_len) < 0 ||
	    cred.uid != geteuid() ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &control_patience,
		       sizeof(control_patience)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &control_patience,
		       sizeof(control_patience)) < 0) {
		close(fd);
		return 0;
	}
	n = recv(fd, req, sizeof(req) - 1, 0);
	if (n <= 0) {
		close(fd);
		return 0;
	}
	req[n] = '\0';
	ret = ublk_control_handle(s, req, reply, sizeof(reply));
	if (send(fd, reply, strlen(reply), MSG_NOSIGNAL) < 0)
		vublk_error("device %u: cannot answer a control request: %s",
			    s->info.dev_id, strerror(errno));
	close(fd);
	if (ret < 0)
		vublk_error("device %u: %s: %s", s->info.dev_id, req,
			    reply + 4);
	return ret < 0 ? 0 : ret;
}
