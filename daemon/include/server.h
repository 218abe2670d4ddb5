/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * server.h - run a ublk server for one device (core/server.c), for
 * `vublk add` and `vublk recover`.
 */
#ifndef VUBLK_SERVER_H
#define VUBLK_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "target.h"

struct vublk_server_cfg {
	struct vublk_tgt *tgt;		/* parsed, not yet initialised */
	unsigned dev_id;		/* or VUBLK_DEV_ID_ANY */
	/* ADD_DEV flags: 0 or UBLK_F_USER_RECOVERY [| _REISSUE | _FAIL_IO];
	 * a flag the kernel does not grant is an error. */
	uint64_t recovery_flags;
	/* Zero copy (UBLK_F_AUTO_BUF_REG, Linux 6.16) for a target that
	 * allows it: where the driver has it (AUTO), always (ON: else an
	 * error), never (OFF: the data is copied, as on older kernels). */
	enum vublk_zero_copy { VUBLK_ZERO_COPY_AUTO, VUBLK_ZERO_COPY_ON,
			       VUBLK_ZERO_COPY_OFF } zero_copy;
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
	 * and its token once ADD_DEV succeeded (or the device to recover was
	 * found), then "live" with the block device path.  The token tells
	 * this device from a later one that gets the same id: it is the
	 * device's dev_info.ublksrv_flags, which GET_DEV_INFO returns.
	 */
	void (*on_added)(void *ctx, unsigned dev_id, uint64_t token);
	void (*on_live)(void *ctx, unsigned dev_id, const char *bdev);
	void *report_ctx;
	/* Counters file, rewritten every second while serving and removed
	 * at exit; NULL or "" for none.  Read when serving starts, so
	 * on_added may fill it in. */
	const char *stats_path;
	/* The control socket (core/control.c), created once serving; NULL
	 * or "" for none.  Read when serving starts, as stats_path. */
	const char *control_path;
};

/*
 * Set up the target and the ublk device, serve I/O until SIGTERM/SIGINT,
 * vublk_tgt_stop() or a queue failure, then stop and delete the device,
 * logging its counters.  Returns 0 after a clean stop, or -errno after
 * printing one error line; in every case nothing is left in the kernel,
 * except that a recovery refused before START_USER_RECOVERY leaves the
 * device as it found it (quiesced, for another try).  Returns
 * VUBLK_SERVER_QUIESCED when a control request handed the device to the
 * next server (`vublk recover --restart`): the device stays, quiesced.  Blocks SIGTERM,
 * SIGINT and SIGHUP in the calling thread (and so in the queue threads).
 */
#define VUBLK_SERVER_QUIESCED 1
int vublk_server_run(const struct vublk_server_cfg *cfg);

#endif /* VUBLK_SERVER_H */
