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
#include <dirent.h>
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

/* pid has /dev/ublkcN open (one of its fds links to it). */
static bool proc_holds_cdev(pid_t pid, unsigned dev_id)
{
	/* link: room for any d_name, or gcc (-O0, sanitizers) refuses the
	 * snprintf under -Werror=format-truncation. */
	char dir[64], link[64 + sizeof(((struct dirent *)0)->d_name)];
	char target[64], want[32];
	struct dirent *de;
	bool found = false;
	ssize_t n;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	snprintf(want, sizeof(want), "/dev/ublkc%u", dev_id);
	d = opendir(dir);
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "%s/%s", dir, de->d_name);
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		found = !strcmp(target, want);
	}
	closedir(d);
	return found;
}

static bool proc_is_server(pid_t pid, unsigned dev_id, uint64_t start)
{
	struct proc_stat ps;

	if (proc_stat_read(pid, &ps) || strcmp(ps.comm, "vublk") ||
	    ps.state == 'Z' || (start && ps.start != start))
		return false;
	return proc_holds_cdev(pid, dev_id);
}

/* A pidfd is readable once its process has exited. */
static bool pidfd_exited(int pidfd)
{
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };

	return poll(&pfd, 1, 0) != 0;
}

int vublk_server_open(pid_t pid, unsigned dev_id, uint64_t start)
{
	int pidfd;

	if (pid <= 0)
		return -1;
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0)
		return -1;
	if (proc_is_server(pid, dev_id, start) && !pidfd_exited(pidfd))
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
	return ublk_ctrl_remove_dev(c, id);
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
