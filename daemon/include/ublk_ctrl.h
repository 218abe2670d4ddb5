/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ublk_ctrl.h - the ublk control plane: commands on /dev/ublk-control
 * (core/ctrl.c), for the server and for the commands that inspect or
 * remove devices (vublk list, del, recover).
 */
#ifndef VUBLK_UBLK_CTRL_H
#define VUBLK_UBLK_CTRL_H

#include <liburing.h>

#include "ublk_compat.h"

struct ublk_ctrl {
	int fd;
	struct io_uring ring;	/* IORING_SETUP_SQE128: the cmd is 32 bytes */
};

/* Path of the control device: $VUBLK_CONTROL_DEV or /dev/ublk-control. */
const char *ublk_control_path(void);
/* Open it; prints one error line (module not loaded, ...) on failure. */
int ublk_ctrl_open(struct ublk_ctrl *c);
void ublk_ctrl_close(struct ublk_ctrl *c);

/*
 * Each returns 0 or -errno; a command the kernel did not answer in time
 * prints "did not complete" and returns -ETIMEDOUT.  Errors other than
 * timeouts are for the caller to report.
 */
int ublk_ctrl_add_dev(struct ublk_ctrl *c, struct ublksrv_ctrl_dev_info *info);
int ublk_ctrl_set_params(struct ublk_ctrl *c, unsigned dev_id,
			 struct ublk_params *p);
int ublk_ctrl_start_dev(struct ublk_ctrl *c, unsigned dev_id, int pid);
int ublk_ctrl_stop_dev(struct ublk_ctrl *c, unsigned dev_id);
int ublk_ctrl_del_dev(struct ublk_ctrl *c, unsigned dev_id);
int ublk_ctrl_get_dev_info(struct ublk_ctrl *c, unsigned dev_id,
			   struct ublksrv_ctrl_dev_info *info);
int ublk_ctrl_get_params(struct ublk_ctrl *c, unsigned dev_id,
			 struct ublk_params *p);
/*
 * User recovery of a device added with UBLK_F_USER_RECOVERY whose server
 * died.  START resets the driver's queues for a new server; it is retried
 * (bounded) while the kernel answers -EBUSY: the dead server's
 * /dev/ublkcN is still held or the device is not quiesced yet.  END waits
 * until the new server fetched every tag, records its pid and restarts
 * the disk's queue.
 */
#define UBLK_RECOVERY_BUSY_WAIT_S 30
int ublk_ctrl_start_user_recovery(struct ublk_ctrl *c, unsigned dev_id);
int ublk_ctrl_end_user_recovery(struct ublk_ctrl *c, unsigned dev_id,
				int pid);
/* STOP_DEV then DEL_DEV, for a device whose server is gone. */
int ublk_ctrl_remove_dev(struct ublk_ctrl *c, unsigned dev_id);
/* "live", "dead", "quiesced", "fail-io" or "unknown". */
const char *ublk_dev_state_name(unsigned state);

#endif /* VUBLK_UBLK_CTRL_H */
