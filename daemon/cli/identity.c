// SPDX-License-Identifier: GPL-2.0-only
/*
 * identity.c - is this process the vublk server of that device, and is
 * the device with this id still the one we mean?
 *
 * A pid names a process only while it lives: a stale state file, or the
 * kernel's record of a dead device's server, may name a pid that now
 * belongs to someone else, even to another process called vublk (another
 * device's server, or anything renamed with prctl(PR_SET_NAME)).  Before
 * vublk signals a process, or calls a device's server alive, it checks
 * three things:
 *  - the process is named vublk and has not exited (not a zombie);
 *  - it started when the state file says (field 22 of /proc/PID/stat,
 *    which no later process with the same pid can share), when the state
 *    file says it;
 *  - it holds /dev/ublkcN open: only the device's server does (from
 *    before the device is started until the device is stopped).
 * The checks are made after a pidfd is opened on the pid and the pidfd is
 * then seen still running, so that the process signalled through it is
 * the process checked (a pid reused meanwhile gets a new start time, or
 * leaves the pidfd on the exited process).
 *
 * A device id is reused the same way: the kernel gives the lowest free id
 * to the next ADD_DEV.  Each device carries a random token of its own
 * (dev_info.ublksrv_flags, set at ADD_DEV: core/server.c), recorded in its
 * state file and told to the waiting `vublk add`; an id is acted on only
 * while GET_DEV_INFO still answers with that token.  (What remains is the
 * moment between that answer and the command that follows it, which the
 * driver gives no way to close.)
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli.h"
#include "proc.h"
#include "ublk_ctrl.h"

/* What vublk needs of /proc/PID/stat: "pid (comm) state f4 ... f22 ...". */
struct proc_stat {
	char comm[64];
	char state;
	uint64_t start;		/* field 22: starttime, clock ticks since boot */
};

static int proc_stat_read(pid_t pid, struct proc_stat *ps)
{
	char path[64], buf[1024], *open_paren, *close_paren, *field, *save;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* comm may hold spaces and parentheses: it ends at the last ')'. */
	open_paren = strchr(buf, '(');
	close_paren = strrchr(buf, ')');
	if (!open_paren || !close_paren || close_paren < open_paren ||
	    close_paren[1] != ' ')
		return -EINVAL;
	*close_paren = '\0';
	snprintf(ps->comm, sizeof(ps->comm), "%s", open_paren + 1);
	ps->state = close_paren[2];
	field = strtok_r(close_paren + 2, " ", &save);	/* field 3 */
	for (int i = 3; field && i < 22; i++)
		field = strtok_r(NULL, " ", &save);
	if (!field)
		return -EINVAL;
	ps->start = strtoull(field, NULL, 10);
	return 0;
}

uint64_t vublk_proc_start_time(pid_t pid)
{
	struct proc_stat ps;

	return proc_stat_read(pid, &ps) ? 0 : ps.start;
}

static bool proc_is_server(pid_t pid, unsigned dev_id, uint64_t start)
{
	struct proc_stat ps;

	char cdev[32];

	if (proc_stat_read(pid, &ps) || strcmp(ps.comm, "vublk") ||
	    ps.state == 'Z' || (start && ps.start != start))
		return false;
	snprintf(cdev, sizeof(cdev), "/dev/ublkc%u", dev_id);
	return vublk_proc_has_open(pid, cdev);
}

/* A pidfd is readable once its process has exited. */
bool vublk_pidfd_wait(int pidfd, int timeout_ms)
{
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
	int ret;

	do
		ret = poll(&pfd, 1, timeout_ms);
	while (ret < 0 && errno == EINTR);
	return ret != 0;
}

int vublk_server_open(pid_t pid, unsigned dev_id, uint64_t start)
{
	int pidfd;

	if (pid <= 0)
		return -1;
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0)
		return -1;
	if (proc_is_server(pid, dev_id, start) && !vublk_pidfd_wait(pidfd, 0))
		return pidfd;
	close(pidfd);
	return -1;
}

bool vublk_server_running(pid_t pid, unsigned dev_id, uint64_t start)
{
	int pidfd = vublk_server_open(pid, dev_id, start);

	if (pidfd < 0)
		return false;
	close(pidfd);
	return true;
}

int vublk_remove_if_ours(struct ublk_ctrl *c, unsigned id, uint64_t token)
{
	struct ublksrv_ctrl_dev_info info;
	int ret = ublk_ctrl_get_dev_info(c, id, &info);

	if (ret == -ENODEV)
		return 0;	/* gone already: its server removed it */
	if (ret < 0)
		return ret;
	if (info.ublksrv_flags != token)
		return -ESTALE;	/* another device has the id now */
	if (ublk_dev_deleted(id)) {
		/* Its server deleted it; nothing we send frees the id. */
		ublk_say_deleted_in_use(id);
		return 0;
	}
	return ublk_ctrl_remove_dev(c, id, token);
}

void vublk_state_remove_if_ours(unsigned id, uint64_t token)
{
	struct vublk_state st;
	int ret = vublk_state_read(id, &st);

	/* An unreadable file is nobody's: it describes no device anyone
	 * can find again. */
	if (ret == -EINVAL || (ret == 0 && st.token == token))
		vublk_state_remove(id);
}
