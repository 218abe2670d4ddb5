// SPDX-License-Identifier: GPL-2.0-only
/*
 * name.c - a device's stable name, `vublk add --name=NAME`, for devices
 * set up at boot from /etc/vublktab (systemd/vublk-generator): the kernel
 * numbers ublk devices in the order they come, so fstab and the service
 * need a name that does not depend on that order.
 *
 * The name lives in two places:
 *  - the state file ("name"), so that `vublk list` shows it, and so that
 *    `vublk add --name=NAME` finds the device again: the service manager
 *    restarts a dead server by running the same add line, which must give
 *    the quiesced device a new server (`vublk recover`), not add a second
 *    device beside the one that holds the mounts;
 *  - ID.udev ("VUBLK_NAME=NAME"), from which systemd/60-vublk.rules makes
 *    /dev/disk/by-vublk/NAME.  It is written as soon as ADD_DEV gave the
 *    id, because udev reads it for the disk's "add" uevent, which the
 *    kernel sends from inside START_DEV (add_disk()), before the state
 *    file exists.  vublk_state_remove() removes it with the state files.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "runfile.h"
#include "ublk_ctrl.h"

int vublk_name_check(const char *name)
{
	size_t n = strlen(name), i;
	bool ok = n > 0 && n < VUBLK_NAME_MAX && isalnum((unsigned char)name[0]);

	/* Safe as a file name in /dev/disk/by-vublk, as a udev property and
	 * as a systemd unit instance, without escaping anywhere. */
	for (i = 0; ok && i < n; i++)
		ok = isalnum((unsigned char)name[i]) || strchr("._-", name[i]);
	if (ok)
		return 0;
	vublk_error("add: bad --name value '%s': use 1 to %d letters, digits, '.', '_' or '-', starting with a letter or digit (it becomes /dev/disk/by-vublk/NAME)",
		    name, VUBLK_NAME_MAX - 1);
	return -EINVAL;
}

int vublk_name_publish(unsigned id, const char *name)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	FILE *f;
	int err;

	vublk_run_path(path, sizeof(path), id, ".udev");
	if (!name) {
		/* An earlier device's, which must not name this one. */
		if (unlink(path) < 0 && errno != ENOENT)
			vublk_error("cannot remove %s: %s", path,
				    strerror(errno));
		return 0;
	}
	f = vublk_file_begin(path, tmp, sizeof(tmp));
	if (!f) {
		vublk_error("cannot write %s: %s (no /dev/disk/by-vublk/%s)",
			    tmp, strerror(errno), name);
		return -errno;
	}
	fprintf(f, "VUBLK_NAME=%s\n", name);
	err = vublk_file_commit(f, tmp, path);
	if (err)
		vublk_error("cannot write %s: %s (no /dev/disk/by-vublk/%s)",
			    path, strerror(-err), name);
	return err;
}

/*
 * Whether state file id names a device of the kernel's (its token, see
 * identity.c) called name; *running says whether its server runs.
 */
static bool name_matches(struct ublk_ctrl *c, unsigned id, const char *name,
			 bool *running)
{
	struct ublksrv_ctrl_dev_info info;
	struct vublk_state st;

	if (vublk_state_read(id, &st) < 0 || strcmp(st.name, name) ||
	    ublk_ctrl_get_dev_info(c, id, &info) < 0 ||
	    info.ublksrv_flags != st.token)
		return false;	/* another name, or what is left of a device */
	*running = vublk_server_running(info.ublksrv_pid, id, 0) ||
		   vublk_server_running(st.pid, id, st.pid_start);
	return true;
}

int vublk_name_find(const char *name, unsigned *id)
{
	struct ublk_ctrl c;
	unsigned *ids = NULL;
	bool running = false, found = false;
	int n, i;

	if (ublk_ctrl_open(&c) < 0)
		return -ENODEV;
	n = vublk_known_ids(&ids);
	for (i = 0; i < n && !found; i++) {
		found = name_matches(&c, ids[i], name, &running);
		if (found)
			*id = ids[i];
	}
	ublk_ctrl_close(&c);
	free(ids);
	if (n < 0) {
		vublk_error("add: cannot list the devices to find one named %s: %s",
			    name, strerror(-n));
		return n;
	}
	if (found && running) {
		vublk_error("add: a device named %s is running already: /dev/ublkb%u (to replace it: vublk del -n %u)",
			    name, *id, *id);
		return -EEXIST;
	}
	return found;
}
