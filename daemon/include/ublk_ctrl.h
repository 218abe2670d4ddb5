/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ublk_ctrl.h - the ublk control plane: commands on /dev/ublk-control
 * (core/ctrl.c), for the server and for the commands that inspect or
 * remove devices (vublk list, del, recover).
 */
#ifndef VUBLK_UBLK_CTRL_H
#define VUBLK_UBLK_CTRL_H

#include <liburing.h>
#include <stdbool.h>
#include <stdint.h>

#include "ublk_compat.h"

struct ublk_ctrl {
	int fd;
	struct io_uring ring;	/* IORING_SETUP_SQE128: the cmd is 32 bytes */
	/* Found by ublk_ctrl_open(): commands go ioctl-encoded (6.4+), and
	 * the driver's UBLK_F_* mask when it answered GET_FEATURES (6.5+). */
	bool encoded;
	bool have_features;
	uint64_t features;
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
			 struct vublk_ublk_params *p);
int ublk_ctrl_start_dev(struct ublk_ctrl *c, unsigned dev_id, int pid);
int ublk_ctrl_stop_dev(struct ublk_ctrl *c, unsigned dev_id);
/*
 * Delete the device that carries token (-ESTALE: the id names another
 * device now, left alone).  Where the driver has DEL_DEV_ASYNC (6.11),
 * then wait about UBLK_DEL_RELEASE_WAIT_MS for the kernel to free the
 * id.  The id stays taken while the disk is still open (mounted, held by
 * another device, or open in a program): then ublk_say_deleted_in_use()
 * says so, and the result is 0 all the same, as the device is deleted;
 * the kernel frees the id at the last close.  An older driver gets
 * DEL_DEV, which waits for that close, bounded as every command is.
 */
#define UBLK_DEL_RELEASE_WAIT_MS 1000
int ublk_ctrl_del_dev(struct ublk_ctrl *c, unsigned dev_id, uint64_t token);
/*
 * Whether device dev_id, which the kernel still has, is deleted and kept
 * only by an opener of its disk until the last close; false where sysfs
 * cannot tell.
 */
bool ublk_dev_deleted(unsigned dev_id);
/* One info line: device dev_id is deleted, its disk still open. */
void ublk_say_deleted_in_use(unsigned dev_id);
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
/* UBLK_F_UPDATE_SIZE (6.16): the device is now sectors x 512 bytes. */
int ublk_ctrl_update_size(struct ublk_ctrl *c, unsigned dev_id,
			  uint64_t sectors);
/*
 * UBLK_F_QUIESCE (6.16): new requests wait (are requeued), and every
 * armed command is aborted once each queue has an idle one (at most
 * timeout_ms): the server may then leave without failing any I/O.
 */
int ublk_ctrl_quiesce_dev(struct ublk_ctrl *c, unsigned dev_id,
			  unsigned timeout_ms);
/*
 * STOP_DEV only if nobody has /dev/ublkbN open (-EBUSY otherwise):
 * TRY_STOP_DEV where the driver has UBLK_F_SAFE_STOP_DEV (7.0), else a
 * check of holders, exclusive and other openers, then STOP_DEV.
 */
int ublk_ctrl_try_stop_dev(struct ublk_ctrl *c, unsigned dev_id);

/* STOP_DEV then ublk_ctrl_del_dev(), for a device whose server is gone. */
int ublk_ctrl_remove_dev(struct ublk_ctrl *c, unsigned dev_id,
			 uint64_t token);
/* "live", "dead", "quiesced", "fail-io" or "unknown". */
const char *ublk_dev_state_name(unsigned state);

/* The driver's feature flags by name (core/features.c). */
struct vublk_feature {
	uint64_t flag;		/* UBLK_F_* */
	const char *name;	/* lower case, without UBLK_F_ */
	const char *since;	/* first Linux release with it */
	const char *what;	/* what it gives, one line */
};

/* Every flag vublk knows, in bit order. */
const struct vublk_feature *vublk_features(size_t *n);
/* One flag's entry, or NULL. */
const struct vublk_feature *vublk_feature(uint64_t flag);
/*
 * 0 if the flags have has every one of want, else one line for the first
 * missing one, "WHAT needs the ublk driver's NAME feature (Linux X+),
 * which this kernel's driver lacks", and -EOPNOTSUPP.  have is what
 * GET_FEATURES answered, or what ADD_DEV granted.
 */
int vublk_require_features(uint64_t have, uint64_t want, const char *what);

#endif /* VUBLK_UBLK_CTRL_H */
