/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ublk.h - the vublk core (internal): request validation, the ublk control
 * plane, the server (queue threads) and the target table.
 */
#ifndef VUBLK_UBLK_H
#define VUBLK_UBLK_H

#include <liburing.h>
#include <stdbool.h>
#include <stdint.h>

#include "target.h"
#include "ublk_compat.h"

/* ------------------------------------------------------------------ */
/* Request validation (ublk_validate.c). */

/* What a request is checked against; fixed for the device's lifetime. */
struct vublk_io_limits {
	uint64_t dev_sectors;		/* device size in 512-byte sectors */
	uint32_t max_io_bytes;		/* the per-tag buffer */
	unsigned logical_bs_shift;	/* requests are aligned to it */
	bool read_only;
	bool discard;			/* DISCARD / WRITE_ZEROES allowed */
};

/* The limits of a device serving @t with request buffers of @max_io_bytes
 * (the kernel's max_io_buf_bytes). */
struct vublk_io_limits ublk_io_limits(const struct vublk_tgt *t,
				      uint32_t max_io_bytes);

/*
 * Check one iod from the kernel and translate it into *req (all but buf).
 * Returns 0, or -EIO with *why naming the broken rule (*why is left alone
 * on success).
 */
int ublk_validate_iod(const struct ublksrv_io_desc *iod,
		      const struct vublk_io_limits *lim,
		      struct vublk_req *req, const char **why);

/* ------------------------------------------------------------------ */
/* Control plane (ublk_ctrl.c): commands on /dev/ublk-control. */

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

/* ------------------------------------------------------------------ */
/* Logging (log.c); vublk_error()/vublk_info() are in target.h. */

/*
 * While a detached server starts, its error lines must also reach the
 * `vublk add` waiting for it: hook(ctx, line) gets each one.  NULL clears.
 * timestamps: prefix lines with the time (for the log file).
 */
void vublk_log_set_error_hook(void (*hook)(void *ctx, const char *line),
			      void *ctx);
void vublk_log_set_timestamps(bool on);

/* ------------------------------------------------------------------ */
/* Files the server and the CLI replace whole (state.c): state, stats. */

/*
 * Open the temporary sibling of path (path.tmp, its name into tmp) for a
 * new version of the file; NULL with errno set on failure.
 */
FILE *vublk_file_begin(const char *path, char *tmp, size_t tmp_len);
/*
 * Close f and put tmp in place of path, atomically: a reader sees the old
 * file or the whole new one.  A write that failed before fclose() (a
 * buffer flushed early, with ENOSPC) shows only in ferror(): a cut file is
 * never renamed into place.  On failure tmp is removed.  0 or -errno.
 */
int vublk_file_commit(FILE *f, const char *tmp, const char *path);

/* ------------------------------------------------------------------ */
/* Targets (targets.c). */

/* Each target file defines one of these. */
extern const struct vublk_tgt_ops vublk_tgt_loop;
extern const struct vublk_tgt_ops vublk_tgt_verity;
extern const struct vublk_tgt_ops vublk_tgt_pmem;

const struct vublk_tgt_ops *vublk_find_target(const char *name);
/* NULL-terminated table of all targets. */
extern const struct vublk_tgt_ops *const vublk_targets[];

/* ------------------------------------------------------------------ */
/* The server (ublk.c). */

struct vublk_server_cfg {
	struct vublk_tgt *tgt;		/* parsed, not yet initialised */
	unsigned dev_id;		/* or VUBLK_DEV_ID_ANY */
	/* ADD_DEV flags: 0 or UBLK_F_USER_RECOVERY [| _REISSUE | _FAIL_IO];
	 * a flag the kernel does not grant is an error. */
	uint64_t recovery_flags;
	/*
	 * Recover: serve the existing device dev_id, whose server died,
	 * instead of adding one (START/END_USER_RECOVERY).  nr_queues,
	 * queue_depth and max_io_bytes then come from the kernel, and the
	 * target must give the device's shape again.
	 */
	bool recover;
	unsigned nr_queues;
	unsigned queue_depth;
	uint32_t max_io_bytes;
	/*
	 * Progress reports for `vublk add` (any may be NULL): the device id
	 * once ADD_DEV succeeded, then "live" with the block device path.
	 */
	void (*on_added)(void *ctx, unsigned dev_id);
	void (*on_live)(void *ctx, unsigned dev_id, const char *bdev);
	void *report_ctx;
	/* Counters file, rewritten every second while serving and removed
	 * at exit; NULL or "" for none.  Read when serving starts, so
	 * on_added may fill it in. */
	const char *stats_path;
};

/*
 * Set up the target and the ublk device, serve I/O until SIGTERM/SIGINT
 * (or a queue failure), then stop and delete the device.  Returns 0 after
 * a clean stop, or -errno after printing one error line; in every case
 * nothing is left in the kernel, except that a recovery refused before
 * START_USER_RECOVERY leaves the device as it found it (quiesced, for
 * another try).  Blocks SIGTERM, SIGINT and SIGHUP in the
 * calling thread (and so in the queue threads).
 */
int vublk_server_run(const struct vublk_server_cfg *cfg);

#endif /* VUBLK_UBLK_H */
