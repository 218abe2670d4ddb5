// SPDX-License-Identifier: GPL-2.0-only
/*
 * verity_report.c - what happens when a data block fails verification.
 *
 * Like dm-verity (drivers/md/dm-verity-target.c: verity_handle_err()):
 * log it with the block number (rate-limited, as
 * DMERR_LIMIT / printk_ratelimit do, so that a scan of a damaged image
 * cannot flood the log), and apply the configured mode: fail the request
 * only (eio), or also stop the device (stop, dm-verity's
 * restart_on_corruption without the reboot), or serve the block anyway
 * (log, dm-verity's ignore_corruption).
 */
#include <inttypes.h>

#include "verity.h"

void verity_ratelimit_init(struct verity_ratelimit *rl)
{
	*rl = (struct verity_ratelimit){ .window = 0 };
	/* Cannot fail for a default mutex on Linux (glibc returns 0). */
	pthread_mutex_init(&rl->lock, NULL);
}

void verity_ratelimit_destroy(struct verity_ratelimit *rl)
{
	pthread_mutex_destroy(&rl->lock);
}

/*
 * May a line be printed now?  At most VERITY_REPORTS_PER_SEC per second;
 * the first line of a new second also reports how many were dropped
 * (*suppressed), as ___ratelimit() prints "N callbacks suppressed".
 */
static bool verity_ratelimit_allow(struct verity_ratelimit *rl,
				   uint64_t *suppressed)
{
	time_t now = time(NULL);
	bool allow;

	pthread_mutex_lock(&rl->lock);
	*suppressed = 0;
	if (now != rl->window) {
		rl->window = now;
		rl->printed = 0;
		*suppressed = rl->suppressed;
		rl->suppressed = 0;
	}
	allow = rl->printed < VERITY_REPORTS_PER_SEC;
	if (allow)
		rl->printed++;
	else
		rl->suppressed++;
	pthread_mutex_unlock(&rl->lock);
	return allow;
}

/*
 * --on-corruption=stop: the device stops the way `vublk del` stops it
 * (the core: STOP_DEV, drain, delete).  Only once.
 */
static void verity_stop_device(struct vublk_tgt *t, struct verity_tgt *vt)
{
	if (atomic_exchange(&vt->stopping, true))
		return;
	vublk_error("device %u: stopping the device: --on-corruption=stop",
		    t->dev_id);
	vublk_tgt_stop(t);
}

void verity_report_corruption(struct vublk_queue *q, uint64_t data_block,
			      const struct vublk_req *req)
{
	struct vublk_tgt *t = q->tgt;
	struct verity_tgt *vt = t->priv;
	uint64_t suppressed;

	if (verity_ratelimit_allow(&vt->ratelimit, &suppressed)) {
		if (suppressed)
			vublk_error("device %u: %" PRIu64 " corruption reports suppressed",
				    t->dev_id, suppressed);
		vublk_error("device %u: data block %" PRIu64 " (%u bytes at byte %" PRIu64 ") of %s failed verification: %s the read of %u bytes at byte %" PRIu64 "%s",
			    t->dev_id, data_block, 1U << vt->log_bs,
			    data_block << vt->log_bs, t->backing_file,
			    vt->on_corruption == VERITY_CORRUPT_LOG ?
			    "serving it unverified in" : "failing",
			    req->len, req->offset,
			    vt->on_corruption == VERITY_CORRUPT_LOG ?
			    " (--on-corruption=log)" : " with EIO");
	}
	if (vt->on_corruption == VERITY_CORRUPT_STOP)
		verity_stop_device(t, vt);
}
