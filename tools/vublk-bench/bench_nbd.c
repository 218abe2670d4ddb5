// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_nbd.c - `vublk-bench nbd URI`: a sealed image on an NBD server,
 * read verified (the verity target) next to unverified (the loop target
 * on the same export, read-only), the same workload one after the other,
 * each target fresh: the verity target's tree cache starts cold, so its
 * tree reads are part of the cost, as on a device just added.
 *
 * With --readahead, one verified run in that mode; without, one per mode
 * (off, completion, submission).  The network is whatever the server
 * adds: the benchmark script (tools/bench/nbd-latency.sh) puts nbdkit's
 * delay filter in front of the image to play a remote server, and labels
 * each latency's results in the --plot chart.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "targets.h"
#include "vublk_bench.h"


/* One run of bt, in readahead mode (NULL: the unverified run); 0 with
 * *rate (bytes per second) set and, with --plot, its result in the
 * chart, else 1. */
static int bench_nbd_run(const struct bench_args *a,
			 const struct bench_target *bt, const char *mode,
			 double *rate)
{
	struct bench_run r;
	char label[64];
	uint64_t reads = 0;
	int status = 1;

	if (mode)
		snprintf(label, sizeof(label), "verified (readahead %s)", mode);
	else
		snprintf(label, sizeof(label), "unverified (loop, read-only)");
	if (bench_run_open(&r, a, bt))
		return 1;
	if (!bench_run_loop(&r)) {
		*rate = r.done / r.elapsed;
		/* CPU: this process's, i.e. the whole client (the queue
		 * runs in the bench's thread), none of the server's. */
		printf("%-34s %9.1f MB/s %9.0f IOPS (%" PRIu64 " requests, %.2f s, %.2f s CPU",
		       label, *rate / 1e6, r.requests / r.elapsed, r.requests,
		       r.elapsed, r.cpu);
		if (mode) {
			reads = inproc_tgt_counter(&r.tgt, "tree_reads");
			printf(", %" PRIu64 " tree reads", reads);
		}
		printf(", %" PRIu64 " errors)\n", r.errors);
		status = r.errors ? 1 : 0;
	}
	bench_run_close(&r);
	if (!status && a->plot)
		status = bench_plot_result(a->plot,
			"vublk-bench nbd: reads unverified and verified, by tree readahead mode",
			a->plot_label ? a->plot_label :
			a->pattern == BENCH_SEQ ? "seq" : "rand",
			mode ? mode : "unverified",
			(a->plot_cpu ? (r.cpu > 0 ? r.done / r.cpu : 0) : *rate) / 1e6,
			a->plot_cpu,
			r.done ? reads / (r.done / (double)(1ULL << 30)) : 0);
	return status;
}

/* The verified device's size: what both runs read. */
static int bench_nbd_data_size(const struct bench_args *a,
			       const struct bench_target *verified,
			       uint64_t *size)
{
	struct bench_run r;

	if (bench_run_open(&r, a, verified))
		return 1;
	*size = r.tgt.dev_size;
	bench_run_close(&r);
	return 0;
}

int bench_nbd(const struct bench_args *a)
{
	struct bench_verity_opts vopts;
	struct bench_target verified = { .ops = &vublk_tgt_verity,
					 .path = a->image, .opts = vopts.v };
	struct bench_target plain = { .ops = &vublk_tgt_loop,
				      .path = a->image, .read_only = true };
	struct bench_args eff = *a;
	double unverified_rate, rate;
	int status = 0;

	bench_verity_opts_fill(&vopts, a, NULL);
	/* Both runs cover the verified device's bytes: the same requests. */
	if (bench_nbd_data_size(a, &verified, &plain.size))
		return 1;
	if (!eff.seconds && !eff.bytes)
		eff.bytes = plain.size;
	printf("vublk-bench nbd %s: %s, %u-byte requests, depth %u, %" PRIu64 " bytes%s\n",
	       a->image, a->pattern == BENCH_SEQ ? "seq" : "rand", a->io_size,
	       a->depth, eff.seconds ? 0 : eff.bytes,
	       eff.seconds ? " (timed)" : "");
	if (bench_nbd_run(&eff, &plain, NULL, &unverified_rate))
		return 1;
	for (unsigned m = 0; bench_readahead_modes[m]; m++) {
		const char *mode = bench_readahead_modes[m];

		if (a->readahead && strcmp(a->readahead, mode))
			continue;
		bench_verity_opts_fill(&vopts, a, mode);
		if (bench_nbd_run(&eff, &verified, mode, &rate)) {
			status = 1;
			continue;
		}
		printf("%-34s %9.2f x unverified\n", "", rate / unverified_rate);
	}
	return status;
}
