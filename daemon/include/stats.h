/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stats.h - rendering reports (target.h: vublk_stat_*) as JSON members or
 * as "name value" pairs (core/stats.c), for the server's stats file and
 * log line and for the in-process harness.
 */
#ifndef VUBLK_STATS_H
#define VUBLK_STATS_H

#include <stdbool.h>
#include <stdio.h>

#include "target.h"

struct vublk_stats_out {
	FILE *f;
	bool json;		/* "name": value, else name value */
	bool first;		/* no member written yet: no separator */
};

/* The target's report as the member "NAME": {...} (JSON) or as its
 * pairs (text), after whatever out holds. */
void vublk_stats_target(struct vublk_stats_out *out, struct vublk_tgt *t);

#endif /* VUBLK_STATS_H */
