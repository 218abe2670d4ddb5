/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * core.h - internals of the core, shared by server.c (the device's life)
 * and queue.c (a queue thread: FETCH/COMMIT and dispatch).  Not included
 * outside core/.
 */
#ifndef VUBLK_CORE_H
#define VUBLK_CORE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "ring.h"
#include "server.h"
#include "ublk_ctrl.h"
#include "validate.h"

/* The core's request counters, per queue; the first five are indexed by
 * enum vublk_op. */
enum ublk_stat {
	UBLK_STAT_READ, UBLK_STAT_WRITE, UBLK_STAT_FLUSH, UBLK_STAT_DISCARD,
	UBLK_STAT_WRITE_ZEROES,
	UBLK_STAT_READAHEAD, UBLK_STAT_FUA, UBLK_STAT_ERRORS,
	UBLK_STAT_INVALID, UBLK_STAT_REG_BUF, UBLK_STAT_NR
};

extern const char *const ublk_stat_names[UBLK_STAT_NR];

struct ublk_queue_ctx {
	struct vublk_queue pub;		/* what the target sees */
	struct vublk_server *srv;
	struct vublk_ring ring;
	bool ring_ready;
	bool tgt_ready;			/* ops->queue_init succeeded */
	const struct ublksrv_io_desc *iods;
	size_t iods_size;
	char *bufs;			/* depth x max_io_bytes, page aligned */
	size_t bufs_size;
	/* Explicit zero copy: each request waiting for its buffer's
	 * registration (depth entries), and which tags hold one. */
	struct vublk_req *registering;
	bool *registered;
	unsigned cmds_in_kernel;	/* armed FETCH / COMMIT_AND_FETCH */
	unsigned reqs_in_target;	/* passed to queue_io, not completed */
	bool stop_requested;
	bool failed;			/* a command was refused: the queue
					 * must fail (ublk_queue_serve) */
	bool failing;			/* it has: new requests fail at once,
					 * those in the target finish
					 * (ublk_queue_fail, ublk_queue_drain) */
	/* $VUBLK_TEST_FAIL_QUEUE_AFTER (tests): the queue fails as if a
	 * command were refused once it has given this many requests to
	 * the target; 0: never. */
	uint64_t test_fail_after, dispatched;
	int setup_ret;			/* atomic: enum ublk_queue_stage or -errno */
	bool exited;			/* atomic: the thread is ending */
	pthread_t thread;
	bool thread_started;
	uint64_t stats[UBLK_STAT_NR];	/* atomic, relaxed */
};

/*
 * A queue thread sets itself up in two steps: first what needs no device
 * (buffers, ring, the target's queue state: everything that can fail for
 * want of resources), then, once the main thread released it, what needs
 * /dev/ublkcN (the iod mapping, the FETCH commands).  A recovery touches
 * the device (START_USER_RECOVERY) only once every queue is prepared.
 */
enum ublk_queue_stage {
	UBLK_QUEUE_SETTING_UP,
	UBLK_QUEUE_PREPARED,
	UBLK_QUEUE_READY,
};

struct vublk_server {
	const struct vublk_server_cfg *cfg;
	struct vublk_tgt *tgt;
	struct ublk_ctrl ctrl;
	struct ublksrv_ctrl_dev_info info;
	bool tgt_ready, dev_added, dev_started;
	bool recovering;	/* START_USER_RECOVERY done, END not yet */
	bool quiesced;		/* left to a new server (control.c) */
	int control_fd;		/* the control socket, or -1 */
	int cdev_fd;
	struct vublk_io_limits limits;
	struct ublk_queue_ctx *queues;
	int stop_efd;		/* main -> queues: stop when idle */
	int ready_efd;		/* queues -> main: a stage reached (or failed) */
	int go_efd;		/* main -> queues: attach now (semaphore) */
	bool queues_go;		/* atomic: attach (else give up) */
	bool queues_released;	/* go_efd written */
	int exit_efd;		/* queues -> main: a queue thread ended */
	int stop_req_efd;	/* target -> main: vublk_tgt_stop(); or a
				 * queue failed (queue_failed) */
	bool queue_failed;	/* atomic: a queue failed (queue.c) */
	int signal_fd;
};

/* The device moves data in the requests' own pages (queue.c): registered
 * by the driver (UBLK_F_AUTO_BUF_REG, 6.16), or by the server for each
 * request (UBLK_F_SUPPORT_ZERO_COPY alone, 6.15). */
static inline bool ublk_server_zero_copy(const struct vublk_server *s)
{
	return s->info.flags & (UBLK_F_AUTO_BUF_REG | UBLK_F_SUPPORT_ZERO_COPY);
}

static inline bool ublk_server_explicit_buf_reg(const struct vublk_server *s)
{
	return (s->info.flags & UBLK_F_SUPPORT_ZERO_COPY) &&
	       !(s->info.flags & UBLK_F_AUTO_BUF_REG);
}

/* queue.c: the thread of one queue (arg: its struct ublk_queue_ctx). */
void *ublk_queue_thread(void *arg);
/* The stage a queue reached, or -errno if it failed; -ECANCELED once it
 * exited (a queue that gave up after getting ready). */
int ublk_queue_status(const struct ublk_queue_ctx *qc);
/* Wake an eventfd (queues and main thread signal each other). */
void ublk_notify(int efd);

#endif /* VUBLK_CORE_H */
