// SPDX-License-Identifier: GPL-2.0-only
/*
 * stats.c - reports as JSON members or as "name value" pairs.
 *
 * Every counter is kept once, where it happens (the core's per-queue
 * request counters, a target's own, lib/merkle's), and reported through
 * these functions to both places that show it: the stats file read by
 * `vublk list --json`, and the log line at stop.
 */
#include <inttypes.h>

#include "stats.h"

static void vublk_stat_name(struct vublk_stats_out *out, const char *name)
{
	if (!out->first)
		fputs(", ", out->f);
	out->first = false;
	fprintf(out->f, out->json ? "\"%s\": " : "%s ", name);
}

void vublk_stat_u64(struct vublk_stats_out *out, const char *name,
		    uint64_t value)
{
	vublk_stat_name(out, name);
	fprintf(out->f, "%" PRIu64, value);
}

/* Values are names the code chose (modes, backends): nothing to escape. */
void vublk_stat_str(struct vublk_stats_out *out, const char *name,
		    const char *value)
{
	vublk_stat_name(out, name);
	fprintf(out->f, out->json ? "\"%s\"" : "%s", value);
}

void vublk_stat_bool(struct vublk_stats_out *out, const char *name,
		     bool value)
{
	vublk_stat_name(out, name);
	fputs(value ? "true" : "false", out->f);
}

void vublk_stats_target(struct vublk_stats_out *out, struct vublk_tgt *t)
{
	if (!t->ops->report)
		return;
	if (out->json) {
		vublk_stat_name(out, t->ops->name);
		fputc('{', out->f);
		out->first = true;
	}
	t->ops->report(t, out);
	if (out->json) {
		fputc('}', out->f);
		out->first = false;
	}
}
