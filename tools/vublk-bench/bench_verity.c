// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_verity.c - `vublk-bench verity`: the verity target's read path
 * (bench_run.c), its tree reads, and the limits to compare it with.
 * The image's pages start warm in the page cache unless --direct.
 *
 * The same requests (same offsets, same sizes, same page cache) then go
 * through the loop target on the same image: the read without any
 * verification.  Its time plus merkle_hash_blocks()' time for the same
 * bytes is the most a verified read can reach on this path ("read +
 * hashing"): what lies between that and the verified read is the
 * verifier's own cost, what lies above it is the read's.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "f2fslayout.h"
#include "inproc_queue.h"
#include "openinput.h"
#include "targets.h"
#include "vublk_bench.h"

/*
 * Page-cache mode: the image's pages are dropped once, then read whole
 * before each run, so that the runs are not I/O.  Dropped first because
 * the kernel's cost of a read depends on how the pages got into the
 * cache: a file written in small pieces (head, cp from a pipe, the
 * format's tree writes) is cached in small folios, and a random 4 KiB
 * read then spends twice the time looking them up
 * (filemap_get_read_batch(), xas_load()) that it does when readahead
 * brought them in as large folios, which is how a server's image gets
 * there.  The result would depend on how the image was made.
 */
static void bench_drop_page_cache(const char *image)
{
	/* A FIFO opens at once (openinput.h); the target's open, next,
	 * refuses anything but a file or a block device. */
	int fd = open_input(image, O_RDONLY);

	if (fd < 0)
		return;	/* the target's open, next, says why */
	/* Dirty pages are not dropped: write them first. */
	if (fdatasync(fd) == 0)
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
}

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

/* The rate of a run, by wall clock and per CPU second. */
static struct bench_rate bench_run_rate(const struct bench_run *r)
{
	return (struct bench_rate){ r->done / r->elapsed, r->done / r->cpu };
}

/* The limits and the verified read's ratios to them. */
static void bench_report_limits(const struct bench_rate *read,
				const struct bench_rate *plain,
				const struct bench_rate *raw,
				const struct bench_rate *merkle,
				const char *hash_impl)
{
	/* Per CPU second: the unverified read's time and the hashing's,
	 * added, for the same bytes. */
	double bound = 1 / (1 / plain->cpu + 1 / merkle->cpu);

	if (raw->cpu > 0)
		printf("sha256 raw:     %.1f MB/s wall, %.1f MB/s per CPU second (OpenSSL SHA256_Update, one unsalted block per call, one core)\n",
		       raw->wall / 1e6, raw->cpu / 1e6);
	printf("merkle hashing: %.1f MB/s wall, %.1f MB/s per CPU second (merkle_hash_blocks, one core, %s)\n",
	       merkle->wall / 1e6, merkle->cpu / 1e6,
	       hash_impl);
	printf("read + hashing: %.1f MB/s per CPU second (the unverified read's time plus merkle_hash_blocks' for the same bytes: the most a verified read can reach)\n",
	       bound / 1e6);
	if (raw->cpu > 0)
		printf("ratio:          %.2f wall, %.2f CPU (to raw SHA-256)\n",
		       read->wall / raw->wall, read->cpu / raw->cpu);
	else
		printf("ratio:          none (raw SHA-256 is measured for SHA-256 images only)\n");
	printf("ratio, hashing: %.2f wall, %.2f CPU (to merkle_hash_blocks)\n",
	       read->wall / merkle->wall, read->cpu / merkle->cpu);
	printf("ratio, bound:   %.2f CPU (to read + hashing", read->cpu / bound);
	if (raw->cpu > 0)
		printf("; read + hashing is %.2fx raw SHA-256", bound / raw->cpu);
	printf(")\n");
}

/* --plot: this run's point on the chart; 0, or 1 after one line. */
static int bench_plot(struct bench_run *r, const struct bench_rate *read,
		      double reads_per_gib)
{
	const struct bench_args *a = r->a;
	char mode[32];

	inproc_tgt_setting(&r->tgt, "readahead_mode", mode, sizeof(mode));
	return bench_plot_result(a->plot, "vublk-bench verity: verified reads by tree readahead mode",
				 a->plot_label ? a->plot_label :
				 a->direct ? "O_DIRECT" : "page cache",
				 mode, (a->plot_cpu ? read->cpu : read->wall) / 1e6,
				 a->plot_cpu, reads_per_gib);
}

/* The verified read: its rate, its tree reads, where it hashed. */
static void bench_report_verified(struct bench_run *r,
				  const struct bench_rate *read,
				  uint64_t reads, double reads_per_gib)
{
	char thread[8];

	printf("verified read:  %.1f MB/s wall, %.1f MB/s per CPU second (%" PRIu64 " bytes, %.3f s, %.3f CPU s, %" PRIu64 " errors)\n",
	       read->wall / 1e6, read->cpu / 1e6, r->done, r->elapsed, r->cpu,
	       r->errors);
	printf("tree reads:     %.1f per GiB (%" PRIu64 " reads, %" PRIu64 " hash blocks, %" PRIu64 " read ahead)\n",
	       reads_per_gib, reads,
	       inproc_tgt_counter(&r->tgt, "tree_blocks_read"),
	       inproc_tgt_counter(&r->tgt, "blocks_read_ahead"));
	inproc_tgt_setting(&r->tgt, "verify_thread", thread, sizeof(thread));
	printf("verify thread:  %s\n", thread);
}

static int bench_report(struct bench_run *r, const struct bench_run *plain)
{
	const struct bench_args *a = r->a;
	struct f2fslayout_image img;
	struct bench_rate read = bench_run_rate(r);
	struct bench_rate unverified = bench_run_rate(plain);
	struct bench_rate raw, merkle;
	double gib = r->done / (double)(1ULL << 30);
	uint64_t reads = inproc_tgt_counter(&r->tgt, "tree_reads");
	double reads_per_gib = gib > 0 ? reads / gib : 0;
	int fd = open(a->image, O_RDONLY | O_CLOEXEC), err;
	const char *hash_impl;

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
	hash_impl = merkle_hash_impl(&img.params);
	f2fslayout_image_release(&img);
	close(fd);
	bench_report_verified(r, &read, reads, reads_per_gib);
	printf("unverified read: %.1f MB/s wall, %.1f MB/s per CPU second (the loop target, the same requests, %" PRIu64 " bytes)\n",
	       unverified.wall / 1e6, unverified.cpu / 1e6, plain->done);
	if (!err)
		bench_report_limits(&read, &unverified, &raw, &merkle,
				    hash_impl);
	else if (err == -ERANGE)
		printf("limits:         not measured: too little data to time (read more with --bytes)\n");
	if (r->errors || plain->errors || (err && err != -ERANGE))
		return 1;
	return a->plot ? bench_plot(r, &read, reads_per_gib) : 0;
}

/* Read an open run's workload with the page cache warm (unless
 * --direct); 0, or 1 after one line (r is then closed). */
static int bench_verity_read(struct bench_run *r, const struct bench_args *a)
{
	if (!a->direct)
		bench_warm_page_cache(a->image);
	if (!bench_run_loop(r))
		return 0;
	bench_run_close(r);
	return 1;
}

void bench_verity_opts_fill(struct bench_verity_opts *o,
			    const struct bench_args *a, const char *readahead)
{
	unsigned n = 0;

	if (a->direct)
		o->v[n++] = "direct";
	if (readahead) {
		snprintf(o->readahead, sizeof(o->readahead), "readahead=%s",
			 readahead);
		o->v[n++] = o->readahead;
	}
	if (a->cache_mb) {
		snprintf(o->cache_mb, sizeof(o->cache_mb),
			 "cache-mb=%" PRIu64, a->cache_mb);
		o->v[n++] = o->cache_mb;
	}
	if (a->verify_thread) {
		snprintf(o->verify_thread, sizeof(o->verify_thread),
			 "verify-thread=%s", a->verify_thread);
		o->v[n++] = o->verify_thread;
	}
	o->v[n] = NULL;
}

int bench_verity(const struct bench_args *a)
{
	/* The loop target takes --direct only. */
	const char *lopts[2] = { a->direct ? "direct" : NULL, NULL };
	struct bench_verity_opts vopts;
	const struct bench_target verified = { .ops = &vublk_tgt_verity,
					       .path = a->image,
					       .opts = vopts.v,
					       .read_only = true };
	struct bench_target plain = { .ops = &vublk_tgt_loop,
				      .path = a->image, .opts = lopts,
				      .read_only = true };
	struct bench_run r, unverified;
	int status = 1;

	bench_verity_opts_fill(&vopts, a, a->readahead);
	if (!a->direct)
		bench_drop_page_cache(a->image);
	/* The header once the image is known to be one: a refused image
	 * gets its one line and nothing on stdout. */
	if (bench_run_open(&r, a, &verified))
		return 1;
	printf("vublk-bench verity %s: %s, %u-byte requests, depth %u, %s\n",
	       a->image, a->pattern == BENCH_SEQ ? "seq" : "rand",
	       a->io_size, a->depth, a->direct ? "O_DIRECT" : "page cache");
	if (bench_verity_read(&r, a))
		return 1;
	/* The verity device's bytes, for both runs. */
	plain.size = r.tgt.dev_size;
	if (!bench_run_open(&unverified, a, &plain) &&
	    !bench_verity_read(&unverified, a)) {
		status = bench_report(&r, &unverified);
		bench_run_close(&unverified);
	}
	bench_run_close(&r);
	return status;
}
