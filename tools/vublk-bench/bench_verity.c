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
 * verifier's own cost, what lies above it is the read's.  A verified
 * read that takes its blocks in place, out of a map of the page cache
 * (verity_read.c), does not pay the read's copy and can go beyond it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
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

/*
 * What one round measured: the verified read, the same requests through
 * the loop target, and the limits over the same bytes, one after the
 * other, so that the ratios between them are of the same moment.
 */
struct bench_round {
	struct bench_rate read, plain, raw, merkle;
	uint64_t done, plain_done;
	uint64_t errors, plain_errors;	/* failed requests */
	double elapsed, cpu;
	uint64_t tree_reads, tree_blocks, read_ahead;
	uint64_t verified, in_place;	/* data blocks */
	char verify_thread[8], readahead_mode[32];
	int limits_err;		/* 0, or -ERANGE: too little data to time */
};

/* The verified read's ratios to the limits; raw_* are 0 unless the image
 * is SHA-256, as the raw limit is then not measured. */
struct bench_ratios {
	double raw_wall, raw_cpu, merkle_wall, merkle_cpu, bound_cpu;
};

/* Per CPU second: the unverified read's time and the hashing's, added,
 * for the same bytes. */
static double bench_bound(const struct bench_round *o)
{
	return 1 / (1 / o->plain.cpu + 1 / o->merkle.cpu);
}

static struct bench_ratios bench_round_ratios(const struct bench_round *o)
{
	bool raw = o->raw.cpu > 0;

	return (struct bench_ratios){
		.raw_wall = raw ? o->read.wall / o->raw.wall : 0,
		.raw_cpu = raw ? o->read.cpu / o->raw.cpu : 0,
		.merkle_wall = o->read.wall / o->merkle.wall,
		.merkle_cpu = o->read.cpu / o->merkle.cpu,
		.bound_cpu = o->read.cpu / bench_bound(o),
	};
}

/* The limits and the verified read's ratios to them. */
static void bench_report_limits(const struct bench_round *o,
				const struct bench_ratios *q,
				const char *hash_impl)
{
	double bound = bench_bound(o);

	if (o->raw.cpu > 0)
		printf("sha256 raw:     %.1f MB/s wall, %.1f MB/s per CPU second (OpenSSL SHA256_Update, one unsalted block per call, one core)\n",
		       o->raw.wall / 1e6, o->raw.cpu / 1e6);
	printf("merkle hashing: %.1f MB/s wall, %.1f MB/s per CPU second (merkle_hash_blocks, one core, %s)\n",
	       o->merkle.wall / 1e6, o->merkle.cpu / 1e6, hash_impl);
	printf("read + hashing: %.1f MB/s per CPU second (the unverified read's time plus merkle_hash_blocks' for the same bytes: the most a verified read that reads its blocks can reach)\n",
	       bound / 1e6);
	if (o->raw.cpu > 0)
		printf("ratio:          %.2f wall, %.2f CPU (to raw SHA-256)\n",
		       q->raw_wall, q->raw_cpu);
	else
		printf("ratio:          none (raw SHA-256 is measured for SHA-256 images only)\n");
	printf("ratio, hashing: %.2f wall, %.2f CPU (to merkle_hash_blocks)\n",
	       q->merkle_wall, q->merkle_cpu);
	printf("ratio, bound:   %.2f CPU (to read + hashing", q->bound_cpu);
	if (o->raw.cpu > 0)
		printf("; read + hashing is %.2fx raw SHA-256", bound / o->raw.cpu);
	printf(")\n");
}

static double bench_reads_per_gib(const struct bench_round *o)
{
	double gib = o->done / (double)(1ULL << 30);

	return gib > 0 ? o->tree_reads / gib : 0;
}

/* --plot: this run's point on the chart; 0, or 1 after one line. */
static int bench_plot(const struct bench_args *a, const struct bench_round *o)
{
	return bench_plot_result(a->plot, "vublk-bench verity: verified reads by tree readahead mode",
				 a->plot_label ? a->plot_label :
				 a->direct ? "O_DIRECT" : "page cache",
				 o->readahead_mode,
				 (a->plot_cpu ? o->read.cpu : o->read.wall) / 1e6,
				 a->plot_cpu, bench_reads_per_gib(o));
}

/* The report of a run: one round, or the medians of --rounds (each
 * of --seconds if given, else of the same bytes). */
static void bench_report(const struct bench_round *o,
			 const struct bench_ratios *q, unsigned rounds,
			 uint64_t seconds, const char *hash_impl)
{
	printf("verified read:  %.1f MB/s wall, %.1f MB/s per CPU second (",
	       o->read.wall / 1e6, o->read.cpu / 1e6);
	if (rounds > 1 && seconds)
		printf("medians of %u rounds of %" PRIu64 " s, %" PRIu64 " errors)\n",
		       rounds, seconds, o->errors);
	else if (rounds > 1)
		printf("medians of %u rounds of %" PRIu64 " bytes, %" PRIu64 " errors)\n",
		       rounds, o->done, o->errors);
	else
		printf("%" PRIu64 " bytes, %.3f s, %.3f CPU s, %" PRIu64 " errors)\n",
		       o->done, o->elapsed, o->cpu, o->errors);
	printf("tree reads:     %.1f per GiB (%" PRIu64 " reads, %" PRIu64 " hash blocks, %" PRIu64 " read ahead)\n",
	       bench_reads_per_gib(o), o->tree_reads, o->tree_blocks,
	       o->read_ahead);
	printf("verify thread:  %s\n", o->verify_thread);
	printf("read in place:  %.1f%% of the data blocks (hashed as they were copied out of the page cache's map; the rest were read)\n",
	       o->verified ? 100.0 * (double)o->in_place / (double)o->verified :
	       0.0);
	printf("unverified read: %.1f MB/s wall, %.1f MB/s per CPU second (the loop target, the same requests, %" PRIu64 " bytes)\n",
	       o->plain.wall / 1e6, o->plain.cpu / 1e6, o->plain_done);
	if (!o->limits_err)
		bench_report_limits(o, q, hash_impl);
	else
		printf("limits:         not measured: too little data to time (read more with --bytes)\n");
}

/* One line per round of --rounds, as it ends. */
static void bench_report_round(unsigned i, const struct bench_round *o,
			       const struct bench_ratios *q)
{
	printf("round %u: MB/s per CPU second: verified %.1f, unverified %.1f",
	       i + 1, o->read.cpu / 1e6, o->plain.cpu / 1e6);
	if (o->limits_err) {
		printf(" (limits not measured)\n");
		return;
	}
	printf(", merkle_hash_blocks %.1f", o->merkle.cpu / 1e6);
	if (o->raw.cpu > 0)
		printf(", raw %.1f", o->raw.cpu / 1e6);
	printf("; ratios: hashing %.3f, bound %.3f", q->merkle_cpu,
	       q->bound_cpu);
	if (o->raw.cpu > 0)
		printf(", raw %.3f", q->raw_cpu);
	printf("\n");
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
	if (a->read_in_place) {
		snprintf(o->read_in_place, sizeof(o->read_in_place),
			 "read-in-place=%s", a->read_in_place);
		o->v[n++] = o->read_in_place;
	}
	o->v[n] = NULL;
}

/* The verified run's results into o. */
static void bench_round_verified(struct bench_round *o, struct bench_run *r)
{
	o->read = bench_run_rate(r);
	o->done = r->done;
	o->errors = r->errors;
	o->elapsed = r->elapsed;
	o->cpu = r->cpu;
	o->tree_reads = inproc_tgt_counter(&r->tgt, "tree_reads");
	o->tree_blocks = inproc_tgt_counter(&r->tgt, "tree_blocks_read");
	o->read_ahead = inproc_tgt_counter(&r->tgt, "blocks_read_ahead");
	o->verified = inproc_tgt_counter(&r->tgt, "blocks_verified");
	o->in_place = inproc_tgt_counter(&r->tgt, "blocks_read_in_place");
	inproc_tgt_setting(&r->tgt, "verify_thread", o->verify_thread,
			   sizeof(o->verify_thread));
	inproc_tgt_setting(&r->tgt, "readahead_mode", o->readahead_mode,
			   sizeof(o->readahead_mode));
}

/* The same requests through the loop target; 0, or 1 after one line. */
static int bench_round_unverified(struct bench_round *o,
				  const struct bench_args *a, uint64_t size)
{
	/* The loop target takes --direct only. */
	const char *lopts[2] = { a->direct ? "direct" : NULL, NULL };
	const struct bench_target plain = { .ops = &vublk_tgt_loop,
					    .path = a->image, .opts = lopts,
					    .read_only = true, .size = size };
	struct bench_run u;

	if (bench_run_open(&u, a, &plain) || bench_verity_read(&u, a))
		return 1;
	o->plain = bench_run_rate(&u);
	o->plain_done = u.done;
	o->plain_errors = u.errors;
	bench_run_close(&u);
	return 0;
}

/* The image as the limits read it: opened once, at the first round's
 * limits (after the verity target has accepted it), kept for the rest. */
struct bench_limits_image {
	int fd;			/* -1 until opened */
	struct f2fslayout_image img;
};

/* 0, or 1 after one line. */
static int bench_limits_image_open(struct bench_limits_image *li,
				   const char *image)
{
	int err;

	li->fd = open(image, O_RDONLY | O_CLOEXEC);
	err = li->fd < 0 ? -errno : f2fslayout_read(li->fd, &li->img);
	if (!err)
		return 0;
	bench_error("cannot re-read %s: %s", image, f2fslayout_strerror(err));
	if (li->fd >= 0)
		close(li->fd);
	li->fd = -1;
	return 1;
}

static void bench_limits_image_close(struct bench_limits_image *li)
{
	if (li->fd < 0)
		return;
	f2fslayout_image_release(&li->img);
	close(li->fd);
}

/* The limits over the bytes the verified read read (up to 1 GiB); 0, or
 * 1 after one line. */
static int bench_round_limits(struct bench_round *o, const char *image,
			      struct bench_limits_image *li)
{
	int err;

	if (li->fd < 0 && bench_limits_image_open(li, image))
		return 1;
	err = bench_sha_limits(li->fd, &li->img.params,
			       li->img.layout.data_size,
			       o->done < (1ULL << 30) ? o->done : 1ULL << 30,
			       &o->raw, &o->merkle);
	o->limits_err = err;
	return err && err != -ERANGE;
}

/* One round: the verified read (with a cold tree cache), then the rest;
 * 0, or 1 after one line.  The header goes out once the image is known
 * to be one: a refused image gets its one line and nothing on stdout. */
static int bench_verity_round(struct bench_round *o, const struct bench_args *a,
			      const char *const *vopts, bool header,
			      struct bench_limits_image *li)
{
	const struct bench_target verified = { .ops = &vublk_tgt_verity,
					       .path = a->image,
					       .opts = vopts,
					       .read_only = true };
	struct bench_run r;
	uint64_t size;

	*o = (struct bench_round){ 0 };
	if (bench_run_open(&r, a, &verified))
		return 1;
	if (header)
		printf("vublk-bench verity %s: %s, %u-byte requests, depth %u, %s\n",
		       a->image, a->pattern == BENCH_SEQ ? "seq" : "rand",
		       a->io_size, a->depth,
		       a->direct ? "O_DIRECT" : "page cache");
	if (bench_verity_read(&r, a))
		return 1;
	bench_round_verified(o, &r);
	/* The verity device's bytes, for both runs. */
	size = r.tgt.dev_size;
	bench_run_close(&r);
	if (bench_round_unverified(o, a, size))
		return 1;
	return bench_round_limits(o, a->image, li);
}

static int bench_cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/*
 * For each of the double fields at offs[] of the n items of size bytes at
 * items: their median, into the same field of *out (whose other fields
 * are left as they are).  tmp holds n doubles.
 */
static void bench_medians(const void *items, size_t size, unsigned n,
			  const size_t *offs, size_t noffs, void *out,
			  double *tmp)
{
	for (size_t f = 0; f < noffs; f++) {
		double m;

		for (unsigned i = 0; i < n; i++)
			memcpy(&tmp[i], (const char *)items + i * size + offs[f],
			       sizeof(double));
		qsort(tmp, n, sizeof(*tmp), bench_cmp_double);
		m = n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
		memcpy((char *)out + offs[f], &m, sizeof(m));
	}
}

#define BENCH_RATE_FIELDS(T, rate) \
	offsetof(T, rate.wall), offsetof(T, rate.cpu)

static const size_t bench_round_rates[] = {
	BENCH_RATE_FIELDS(struct bench_round, read),
	BENCH_RATE_FIELDS(struct bench_round, plain),
	BENCH_RATE_FIELDS(struct bench_round, raw),
	BENCH_RATE_FIELDS(struct bench_round, merkle),
};

static const size_t bench_ratio_fields[] = {
	offsetof(struct bench_ratios, raw_wall),
	offsetof(struct bench_ratios, raw_cpu),
	offsetof(struct bench_ratios, merkle_wall),
	offsetof(struct bench_ratios, merkle_cpu),
	offsetof(struct bench_ratios, bound_cpu),
};

#define BENCH_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * --rounds: the median of each rate and of each ratio over the rounds.
 * Each ratio is the median of the rounds' own ratios, not the ratio of
 * the medians: a ratio of two measures taken a second apart is what
 * stays steady on a host whose load comes and goes (docs/PERFORMANCE.md,
 * "Verified reads at the hashing limit").  The tree reads, the settings
 * and the byte counts are the last round's (every round reads the same
 * requests from a cold tree cache); the errors are all the rounds'.
 */
static void bench_round_medians(const struct bench_round *rounds,
				const struct bench_ratios *ratios, unsigned n,
				struct bench_round *o, struct bench_ratios *q,
				double *tmp)
{
	*o = rounds[n - 1];
	*q = ratios[n - 1];
	o->errors = o->plain_errors = 0;
	for (unsigned i = 0; i < n; i++) {
		o->errors += rounds[i].errors;
		o->plain_errors += rounds[i].plain_errors;
		if (rounds[i].limits_err)
			o->limits_err = rounds[i].limits_err;
	}
	bench_medians(rounds, sizeof(*rounds), n, bench_round_rates,
		      BENCH_ARRAY_SIZE(bench_round_rates), o, tmp);
	bench_medians(ratios, sizeof(*ratios), n, bench_ratio_fields,
		      BENCH_ARRAY_SIZE(bench_ratio_fields), q, tmp);
}

int bench_verity(const struct bench_args *a)
{
	unsigned n = a->rounds ? a->rounds : 1;
	struct bench_round *rounds = calloc(n, sizeof(*rounds)), o;
	struct bench_ratios *ratios = calloc(n, sizeof(*ratios)), q;
	double *tmp = calloc(n, sizeof(*tmp));
	struct bench_verity_opts vopts;
	struct bench_limits_image li = { .fd = -1 };
	int status = 1;

	if (!rounds || !ratios || !tmp) {
		bench_error("out of memory for %u rounds", n);
		goto out;
	}
	bench_verity_opts_fill(&vopts, a, a->readahead);
	if (!a->direct)
		bench_drop_page_cache(a->image);
	for (unsigned i = 0; i < n; i++) {
		if (bench_verity_round(&rounds[i], a, vopts.v, i == 0, &li))
			goto out;
		if (!rounds[i].limits_err)
			ratios[i] = bench_round_ratios(&rounds[i]);
		if (n > 1)
			bench_report_round(i, &rounds[i], &ratios[i]);
		/* A read error will not go away: report the rounds so far. */
		if (rounds[i].errors || rounds[i].plain_errors)
			n = i + 1;
	}
	bench_round_medians(rounds, ratios, n, &o, &q, tmp);
	bench_report(&o, &q, n, a->seconds, merkle_hash_impl(&li.img.params));
	if (o.errors || o.plain_errors)
		goto out;
	status = a->plot ? bench_plot(a, &o) : 0;
out:
	bench_limits_image_close(&li);
	free(rounds);
	free(ratios);
	free(tmp);
	return status;
}
