// SPDX-License-Identifier: GPL-2.0-only
/*
 * features.c - the ublk driver's feature flags by name, with the first
 * Linux release that has each (the 6.12 and 7.3 trees; the ones between
 * from the history of include/uapi/linux/ublk_cmd.h).
 */
#include <stddef.h>

#include "log.h"
#include "ublk_ctrl.h"

static const struct vublk_feature vublk_feature_table[] = {
	{ UBLK_F_SUPPORT_ZERO_COPY, "zero_copy", "6.15",
	  "zero copy, buffers registered explicitly" },
	{ UBLK_F_URING_CMD_COMP_IN_TASK, "comp_in_task", "6.0",
	  "commands completed in the server's task" },
	{ UBLK_F_NEED_GET_DATA, "need_get_data", "6.0",
	  "write data fetched on request" },
	{ UBLK_F_USER_RECOVERY, "user_recovery", "6.0",
	  "a new server for a device whose server died" },
	{ UBLK_F_USER_RECOVERY_REISSUE, "user_recovery_reissue", "6.0",
	  "recovery re-issues what the dead server held" },
	{ UBLK_F_UNPRIVILEGED_DEV, "unprivileged_dev", "6.2",
	  "devices of unprivileged users" },
	{ UBLK_F_CMD_IOCTL_ENCODE, "cmd_ioctl_encode", "6.4",
	  "ioctl-encoded commands" },
	{ UBLK_F_USER_COPY, "user_copy", "6.5",
	  "the server copies with pread/pwrite on /dev/ublkcN" },
	{ UBLK_F_ZONED, "zoned", "6.6", "zoned devices" },
	{ UBLK_F_USER_RECOVERY_FAIL_IO, "user_recovery_fail_io", "6.13",
	  "I/O fails while no server runs (--recovery=fail)" },
	{ UBLK_F_UPDATE_SIZE, "update_size", "6.16",
	  "a live device changes its size (vublk update-size)" },
	{ UBLK_F_AUTO_BUF_REG, "auto_buf_reg", "6.16",
	  "zero copy, buffers registered with each fetch" },
	{ UBLK_F_QUIESCE, "quiesce", "6.16",
	  "a server stops without failing I/O (vublk recover --restart)" },
	{ UBLK_F_PER_IO_DAEMON, "per_io_daemon", "6.16",
	  "any thread may serve any tag" },
	{ UBLK_F_BUF_REG_OFF_DAEMON, "buf_reg_off_daemon", "6.17",
	  "buffers registered from any thread" },
	{ UBLK_F_BATCH_IO, "batch_io", "7.0",
	  "requests fetched and committed in batches" },
	{ UBLK_F_INTEGRITY, "integrity", "7.0",
	  "T10 protection information" },
	{ UBLK_F_SAFE_STOP_DEV, "safe_stop_dev", "7.0",
	  "a device stops only if nobody has it open (vublk del --safe)" },
	{ UBLK_F_NO_AUTO_PART_SCAN, "no_auto_part_scan", "7.0",
	  "no partition scan at start" },
	{ UBLK_F_SHMEM_ZC, "shmem_zc", "7.1",
	  "zero copy from shared memory the server registered" },
	{ UBLK_F_IO_DESC_SIZE, "io_desc_size", "7.3",
	  "request descriptors of a size the server chooses" },
};

const struct vublk_feature *vublk_features(size_t *n)
{
	*n = sizeof(vublk_feature_table) / sizeof(vublk_feature_table[0]);
	return vublk_feature_table;
}

const struct vublk_feature *vublk_feature(uint64_t flag)
{
	size_t n;
	const struct vublk_feature *f = vublk_features(&n);

	for (size_t i = 0; i < n; i++)
		if (f[i].flag == flag)
			return &f[i];
	return NULL;
}

int vublk_require_features(uint64_t have, uint64_t want, const char *what)
{
	size_t n;
	const struct vublk_feature *f = vublk_features(&n);

	for (size_t i = 0; i < n; i++) {
		if (!(want & f[i].flag) || (have & f[i].flag))
			continue;
		vublk_error("%s needs the ublk driver's %s feature (Linux %s+), which this kernel's driver lacks",
			    what, f[i].name, f[i].since);
		return -EOPNOTSUPP;
	}
	return 0;
}
