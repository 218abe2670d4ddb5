// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_verity.c - `vublk-bench verity`: the verity target's read path,
 * the daemon's own code (vublk_tgt_verity) over daemon/inproc_queue, one
 * queue in this thread, like one queue thread of the server.
 *
 * The tree cache starts cold (a fresh target); the image's pages start
 * warm in the page cache unless --direct.  Sequential requests carry
 * VUBLK_REQ_READAHEAD, as the kernel's readahead requests would; random
 * ones do not.  Every completion is checked (length, no error).
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
#include <sys/mman.h>
#include <unistd.h>

#include "f2fslayout.h"
#include "inproc_queue.h"
#include "targets.h"
#include "vublk_bench.h"

/* The xorshift seed: both runs read the same random offsets. */
#define BENCH_RNG_SEED 0x2545f4914f6cdd1dULL

struct bench_run {
	const struct bench_args *a;
	const struct vublk_tgt_ops *ops;	/* verity, or loop: unverified */
	struct vublk_tgt tgt;
	struct inproc_queue iq;
	bool queue_ready;
	uint8_t *bufs;			/* depth x io_size */
	uint64_t size;			/* bytes the requests cover */
	uint64_t next_off;		/* seq */
	uint64_t rng;			/* rand: xorshift state */
	uint64_t issued, done;		/* bytes */
	uint64_t errors;
	double start, cpu_start;
	double elapsed, cpu;		/* of the whole run */
};

/* Give a target option (by its long name) to the target's parser. */
static int bench_target_opt(struct vublk_tgt *t, const char *name,
			    const char *arg)
{
	for (const struct option *o = t->ops->options; o->name; o++)
		if (!strcmp(o->name, name))
			return t->ops->parse_opt(t, o->val, arg);
	bench_error("the %s target has no --%s option", t->ops->name, name);
	return -EINVAL;
}

/* The target, with the options of the run that it has: the loop target
 * takes --direct only. */
static int bench_target_setup(struct bench_run *r)
{
	const struct bench_args *a = r->a;
	struct vublk_tgt *t = &r->tgt;
	bool verity = r->ops == &vublk_tgt_verity;
	int err = 0;

	*t = (struct vublk_tgt){
		.ops = r->ops,
		.priv = calloc(1, r->ops->priv_size),
		.backing_file = a->image,
		.read_only = true,
		.nr_queues = 1,
		.queue_depth = a->depth,
		.max_io_bytes = a->io_size,
	};
	if (!t->priv)
		return -ENOMEM;
	if (a->direct)
		err = bench_target_opt(t, "direct", NULL);
	if (!err && verity && a->readahead)
		err = bench_target_opt(t, "readahead", a->readahead);
	if (!err && verity && a->cache_mb)
		err = bench_target_opt(t, "cache-mb", a->cache_mb);
	if (!err)
		err = t->ops->init(t);
	if (err) {
		free(t->priv);
		t->priv = NULL;
	}
	return err;
}

static int bench_check_shape(const struct bench_run *r)
{
	uint32_t lbs = 1U << r->tgt.logical_bs_shift;

	if (r->a->io_size % lbs) {
		bench_error("--io-size %u is not a multiple of the device's %u-byte logical block",
			    r->a->io_size, lbs);
		return -EINVAL;
	}
	if (r->a->io_size > r->size) {
		bench_error("--io-size %u is larger than the device (%" PRIu64 " bytes)",
			    r->a->io_size, r->size);
		return -EINVAL;
	}
	return 0;
}

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
	int fd = open(image, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;	/* init opened it; a failure here only means warm */
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

static bool bench_should_stop(const struct bench_run *r)
{
	if (r->a->seconds)
		return bench_now() - r->start >= r->a->seconds;
	return r->issued >= r->a->bytes;
}

static uint64_t bench_next_offset(struct bench_run *r, uint32_t *len)
{
	uint64_t size = r->size, off;

	if (r->a->pattern == BENCH_SEQ) {
		if (r->next_off >= size)
			r->next_off = 0;
		off = r->next_off;
		*len = size - off < r->a->io_size ? size - off : r->a->io_size;
		r->next_off += *len;
		return off;
	}
	r->rng ^= r->rng << 13;
	r->rng ^= r->rng >> 7;
	r->rng ^= r->rng << 17;
	*len = r->a->io_size;
	return r->rng % (size / *len) * *len;
}

static void bench_issue(struct bench_run *r, unsigned tag)
{
	struct vublk_req req = {
		.op = VUBLK_OP_READ,
		.flags = r->a->pattern == BENCH_SEQ ? VUBLK_REQ_READAHEAD : 0,
		.buf = r->bufs + (size_t)tag * r->a->io_size,
	};

	req.offset = bench_next_offset(r, &req.len);
	r->issued += req.len;
	inproc_queue_start(&r->iq, tag, &req);
}

static int bench_loop(struct bench_run *r)
{
	unsigned tag;
	int res, err;

	r->start = bench_now();
	r->cpu_start = bench_cpu_now();
	for (tag = 0; tag < r->a->depth && !bench_should_stop(r); tag++)
		bench_issue(r, tag);
	while (r->iq.in_flight) {
		err = inproc_queue_reap(&r->iq);
		if (err) {
			bench_error("io_uring failed: %s", strerror(-err));
			return err;
		}
		while (inproc_queue_pop(&r->iq, &tag, &res)) {
			if (res < 0)
				r->errors++;
			else
				r->done += (uint64_t)res;
			if (!bench_should_stop(r))
				bench_issue(r, tag);
		}
	}
	r->elapsed = bench_now() - r->start;
	r->cpu = bench_cpu_now() - r->cpu_start;
	return 0;
}

static void bench_teardown(struct bench_run *r)
{
	if (r->queue_ready)
		inproc_queue_exit(&r->iq);
	r->queue_ready = false;
	if (r->bufs && r->bufs != MAP_FAILED)
		munmap(r->bufs, (size_t)r->a->depth * r->a->io_size);
	r->bufs = NULL;
	if (r->tgt.priv) {
		r->tgt.ops->deinit(&r->tgt);
		free(r->tgt.priv);
	}
	r->tgt.priv = NULL;
}

/* Run the requests on r's target (set up): 0 or -errno, after one
 * line.  The target stays, for its counters. */
static int bench_run_target(struct bench_run *r)
{
	const struct bench_args *a = r->a;
	int err = bench_check_shape(r);

	if (err)
		return err;
	r->bufs = mmap(NULL, (size_t)a->depth * a->io_size,
		       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		       0);
	err = r->bufs == MAP_FAILED ? -ENOMEM :
	      inproc_queue_init(&r->iq, &r->tgt, 0, a->depth);
	r->queue_ready = !err;
	if (err) {
		bench_error("cannot set up the in-process queue: %s",
			    strerror(-err));
		return err;
	}
	if (!a->direct)
		bench_warm_page_cache(a->image);
	return bench_loop(r);
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
				const struct bench_rate *merkle)
{
	/* Per CPU second: the unverified read's time and the hashing's,
	 * added, for the same bytes. */
	double bound = 1 / (1 / plain->cpu + 1 / merkle->cpu);

	if (raw->cpu > 0)
		printf("sha256 raw:     %.1f MB/s wall, %.1f MB/s per CPU second (OpenSSL SHA256_Update, one unsalted block per call, one core)\n",
		       raw->wall / 1e6, raw->cpu / 1e6);
	printf("merkle hashing: %.1f MB/s wall, %.1f MB/s per CPU second (merkle_hash_blocks, one core)\n",
	       merkle->wall / 1e6, merkle->cpu / 1e6);
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

/* The readahead mode the target ran in, from its own report. */
static void bench_readahead_mode(struct vublk_tgt *t, char *mode, size_t len)
{
	static const char key[] = "\"readahead_mode\": \"";
	char *text = inproc_tgt_stats(t), *p = text ? strstr(text, key) : NULL;

	if (p)
		p += sizeof(key) - 1;
	snprintf(mode, len, "%.*s", p ? (int)strcspn(p, "\"") : 1, p ? p : "?");
	free(text);
}

/* --plot: this run's point on the chart; 0, or 1 after one line. */
static int bench_plot(struct bench_run *r, double mbps, double reads_per_gib)
{
	const struct bench_args *a = r->a;
	char mode[32];

	bench_readahead_mode(&r->tgt, mode, sizeof(mode));
	return bench_plot_result(a->plot, a->plot_label ? a->plot_label :
				 a->direct ? "O_DIRECT" : "page cache",
				 mode, mbps, reads_per_gib);
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
	       read.wall / 1e6, read.cpu / 1e6, r->done, r->elapsed, r->cpu,
	       r->errors);
	printf("tree reads:     %.1f per GiB (%" PRIu64 " reads, %" PRIu64 " hash blocks, %" PRIu64 " read ahead)\n",
	       gib > 0 ? reads / gib : 0, reads,
	       inproc_tgt_counter(&r->tgt, "tree_blocks_read"),
	       inproc_tgt_counter(&r->tgt, "blocks_read_ahead"));
	printf("unverified read: %.1f MB/s wall, %.1f MB/s per CPU second (the loop target, the same requests, %" PRIu64 " bytes)\n",
	       unverified.wall / 1e6, unverified.cpu / 1e6, plain->done);
	if (!err)
		bench_report_limits(&read, &unverified, &raw, &merkle);
	else if (err == -ERANGE)
		printf("limits:         not measured: too little data to time (read more with --bytes)\n");
	if (r->errors || plain->errors || (err && err != -ERANGE))
		return 1;
	return a->plot ? bench_plot(r, read.wall / 1e6, gib > 0 ? reads / gib : 0) : 0;
}

int bench_verity(const struct bench_args *a)
{
	struct bench_args eff = *a;
	struct bench_run r = { .a = &eff, .ops = &vublk_tgt_verity,
			       .rng = BENCH_RNG_SEED };
	struct bench_run plain = { .a = &eff, .ops = &vublk_tgt_loop,
				   .rng = BENCH_RNG_SEED };
	int err, status = 1;

	if (!a->direct)
		bench_drop_page_cache(a->image);
	err = bench_target_setup(&r);
	if (!err) {
		/* The verity device's bytes, for both runs. */
		r.size = plain.size = r.tgt.dev_size;
		if (!eff.seconds && !eff.bytes)
			eff.bytes = r.size;	/* one pass */
		printf("vublk-bench verity %s: %s, %u-byte requests, depth %u, %s\n",
		       a->image, a->pattern == BENCH_SEQ ? "seq" : "rand",
		       a->io_size, a->depth,
		       a->direct ? "O_DIRECT" : "page cache");
		err = bench_run_target(&r);
	}
	if (!err)
		err = bench_target_setup(&plain);
	if (!err)
		err = bench_run_target(&plain);
	if (!err)
		status = bench_report(&r, &plain);
	bench_teardown(&plain);
	bench_teardown(&r);
	return status;
}
