// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_verity.c - `vublk-bench verity`: the verity target's read path
 * (bench_run.c), its tree reads, and two single-core limits to compare it
 * with.  The image's pages start warm in the page cache unless --direct.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "f2fslayout.h"
#include "inproc_queue.h"
#include "targets.h"
#include "vublk_bench.h"

/* Page-cache mode: read the whole image once so that the run is not I/O. */
static void bench_warm_page_cache(const char *image)
{
	static uint8_t buf[1 << 20];
	int fd = open(image, O_RDONLY | O_CLOEXEC);
	uint64_t off = 0;
	ssize_t n;

	if (fd < 0)
		return;	/* init opened it; a failure here only means cold */
	while ((n = pread(fd, buf, sizeof(buf), off)) > 0)
		off += n;
	close(fd);
}

/* The limits and the verified read's ratios to them. */
static void bench_report_limits(const struct bench_rate *read,
				const struct bench_rate *raw,
				const struct bench_rate *merkle)
{
	if (raw->cpu > 0)
		printf("sha256 raw:     %.1f MB/s wall, %.1f MB/s per CPU second (OpenSSL SHA256_Update, one unsalted block per call, one core)\n",
		       raw->wall / 1e6, raw->cpu / 1e6);
	printf("merkle hashing: %.1f MB/s wall, %.1f MB/s per CPU second (merkle_hash_blocks, one core)\n",
	       merkle->wall / 1e6, merkle->cpu / 1e6);
	if (raw->cpu > 0)
		printf("ratio:          %.2f wall, %.2f CPU (to raw SHA-256)\n",
		       read->wall / raw->wall, read->cpu / raw->cpu);
	else
		printf("ratio:          none (raw SHA-256 is measured for SHA-256 images only)\n");
	printf("ratio, hashing: %.2f wall, %.2f CPU (to merkle_hash_blocks)\n",
	       read->wall / merkle->wall, read->cpu / merkle->cpu);
}

static int bench_report(struct bench_run *r)
{
	const struct bench_args *a = r->a;
	double elapsed = r->elapsed, cpu = r->cpu;
	struct f2fslayout_image img;
	struct bench_rate read = { r->done / elapsed, r->done / cpu };
	struct bench_rate raw, merkle;
	double gib = r->done / (double)(1ULL << 30);
	uint64_t reads = inproc_tgt_counter(&r->tgt, "tree_reads");
	int fd = open(a->image, O_RDONLY | O_CLOEXEC), err;

	err = fd < 0 ? -errno : f2fslayout_read(fd, &img);
	if (err) {
		bench_error("cannot re-read %s: %s", a->image,
			    f2fslayout_strerror(err));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	err = bench_sha_limits(fd, &img.params, img.layout.data_size,
			       r->done < (1ULL << 30) ? r->done : 1ULL << 30,
			       &raw, &merkle);
	f2fslayout_image_release(&img);
	close(fd);
	printf("verified read:  %.1f MB/s wall, %.1f MB/s per CPU second (%" PRIu64 " bytes, %.3f s, %.3f CPU s, %" PRIu64 " errors)\n",
	       read.wall / 1e6, read.cpu / 1e6, r->done, elapsed, cpu,
	       r->errors);
	printf("tree reads:     %.1f per GiB (%" PRIu64 " reads, %" PRIu64 " hash blocks, %" PRIu64 " read ahead)\n",
	       gib > 0 ? reads / gib : 0, reads,
	       inproc_tgt_counter(&r->tgt, "tree_blocks_read"),
	       inproc_tgt_counter(&r->tgt, "blocks_read_ahead"));
	if (!err)
		bench_report_limits(&read, &raw, &merkle);
	else if (err == -ERANGE)
		printf("limits:         not measured: too little data to time (read more with --bytes)\n");
	return r->errors || (err && err != -ERANGE) ? 1 : 0;
}

int bench_verity(const struct bench_args *a)
{
	const char *opts[4] = { NULL };
	char ra[64], cache[64];
	const struct bench_target bt = { .ops = &vublk_tgt_verity,
					 .path = a->image, .opts = opts };
	struct bench_run r;
	unsigned n = 0;
	int status = 1;

	if (a->direct)
		opts[n++] = "direct";
	if (a->readahead) {
		snprintf(ra, sizeof(ra), "readahead=%s", a->readahead);
		opts[n++] = ra;
	}
	if (a->cache_mb) {
		snprintf(cache, sizeof(cache), "cache-mb=%s", a->cache_mb);
		opts[n++] = cache;
	}
	if (bench_run_open(&r, a, &bt))
		return 1;
	if (!a->direct)
		bench_warm_page_cache(a->image);
	printf("vublk-bench verity %s: %s, %u-byte requests, depth %u, %s\n",
	       a->image, a->pattern == BENCH_SEQ ? "seq" : "rand",
	       a->io_size, a->depth, a->direct ? "O_DIRECT" : "page cache");
	if (!bench_run_loop(&r))
		status = bench_report(&r);
	bench_run_close(&r);
	return status;
}
