// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_pmem.c - `vublk-bench pmem FILE`: what the pmem target's copy path
 * costs next to the bare libpmem2 copy it is built on.
 *
 * Workload: 4 KiB random writes, then 4 KiB random reads, one request at a
 * time (fio's psync at depth 1), over the first --size MiB of FILE, which
 * the benchmark creates and removes.
 *
 * Target path: each request is a ublk iod checked by the core's
 * ublk_validate_iod() (the one bounds check, at dispatch), then given to
 * the pmem target's queue_io through daemon/inproc_queue, which copies
 * with lib/pmem and completes synchronously.  inproc_queue adds no io_uring
 * round trip for a synchronous target (queue_io returns the result, and
 * inproc_queue_start() completes the request with it before it returns,
 * as the core's dispatch does), so it stays on the path.  What is
 * left out is the kernel's ublk round trip, which is the same for any copy
 * path and is measured in the VM (docs/PERFORMANCE.md).
 *
 * Limit: the same 4 KiB copies with bare libpmem2: memcpy() for reads,
 * pmem2_memcpy_fn with the flags lib/pmem uses for writes
 * (PMEM2_F_MEM_NOFLUSH on PAGE granularity, where persistence waits for a
 * FLUSH; flushing stores on CACHE_LINE and BYTE).
 *
 * Between the two, to split the difference: lib/pmem alone (pmem_read /
 * pmem_write), i.e. the copy with its fault handling and, on PAGE, its
 * dirty-chunk bookkeeping, without the request validation and queue_io
 * around it.
 *
 * All three sides copy through ONE mapping, the target's (backend.h,
 * pmem_map()).  With a mapping per side, the same bare copy ran up to 6%
 * slower through one mapping than through another (an A/A/A run on this
 * project's machines, which are guests: a TLB miss walks each mapping's
 * own page tables, and the host's tables under them).  A benchmark whose
 * sides differ by their mapping measures the mappings.
 *
 * The three sides alternate in batches of 1024 requests (about a
 * millisecond), the order rotated every round, and each side's time is
 * summed: whatever else the machine does hits all sides alike, which
 * rounds of seconds each did not achieve on a shared, loaded host.  Time
 * is this thread's CPU time (CLOCK_THREAD_CPUTIME_ID), not wall-clock
 * time: both sides are pure CPU work (copies between memory, no sleeping),
 * and the time other processes run would otherwise be charged to whichever
 * side they preempted.  IOPS are therefore per CPU-second of one core.
 * Every side walks the same list of random offsets, each starting a third
 * of the list apart from the others, so that an offset one side copies
 * was last copied by another some 21 rounds (~64,000 copies) earlier:
 * no side finds the pages (or their TLB entries) that another side's batch
 * has just brought in, and every copy is a cold random 4 KiB access, for
 * each side alike.  Before timing, every page is written
 * once, so that no page fault is timed.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <libpmem2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "inproc_queue.h"
#include "pmem.h"
#include "targets.h"
#include "validate.h"
#include "vublk_bench.h"

#define BP_IO_SIZE 4096
#define BP_BATCH 1024			/* requests per timed batch */
#define BP_OFFSETS (1U << 16)		/* precomputed random offsets */

enum bp_opt { BP_OPT_SECONDS = 256, BP_OPT_SIZE, BP_OPT_CALIBRATE,
	      BP_OPT_HELP };

static const struct option bp_options[] = {
	{ "seconds", required_argument, NULL, BP_OPT_SECONDS },
	{ "size", required_argument, NULL, BP_OPT_SIZE },
	{ "calibrate", no_argument, NULL, BP_OPT_CALIBRATE },
	{ "help", no_argument, NULL, BP_OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

static const char bp_usage[] =
"Usage: vublk-bench pmem FILE [--seconds N] [--size N] [--calibrate]\n"
"4 KiB random write and read IOPS at depth 1 through the pmem target's\n"
"copy path (request validation + queue_io + lib/pmem) and through lib/pmem\n"
"alone, against bare libpmem2 copies of the same sizes at the same offsets;\n"
"prints the ratios.\n"
"FILE must not exist: it is created, written over and removed.  On a\n"
"-o dax filesystem it maps with CACHE_LINE granularity, elsewhere PAGE.\n"
"  --seconds N   CPU seconds for each of the three sides (default 2)\n"
"  --size N      MiB of FILE to create and address (default 256)\n"
"  --calibrate   every side does the bare copy: checks that the harness\n"
"                favours no side (the ratios should all be about 1)\n";

struct bp_args {
	const char *file;
	uint64_t seconds;
	uint64_t size_mb;
	bool calibrate;
};

/* Per workload, the sides in this order: bare, lib, target. */
enum bp_phase { BP_BARE_WRITE, BP_LIB_WRITE, BP_TGT_WRITE,
		BP_BARE_READ, BP_LIB_READ, BP_TGT_READ, BP_NR_PHASES };
#define BP_SIDES 3

static const char *const bp_phase_names[BP_NR_PHASES] = {
	"bare write", "lib/pmem write", "target write",
	"bare read", "lib/pmem read", "target read",
};

struct bp_run {
	const struct bp_args *a;
	uint64_t size;
	/* The bare side: libpmem2 directly, on the target's mapping. */
	char *base;
	pmem2_memcpy_fn memcpy_fn;
	unsigned store_flags;
	/* lib/pmem alone: the target's device. */
	struct pmem_dev *lib_dev;
	/* The target side. */
	struct vublk_tgt tgt;
	bool tgt_ready, queue_ready;
	struct inproc_queue iq;
	struct vublk_io_limits limits;
	/* Shared. */
	size_t io_size;			/* BP_IO_SIZE, see bp_op() */
	void *buf;			/* the request buffer, 4 KiB aligned */
	uint64_t *offsets;		/* BP_OFFSETS random 4 KiB offsets */
	uint64_t ops[BP_NR_PHASES];	/* timed requests */
	double cpu[BP_NR_PHASES];	/* their CPU seconds */
};

static int bp_parse(struct bp_args *a, int argc, char **argv)
{
	int opt;

	while ((opt = bench_getopt(argc, argv, bp_options)) != -1) {
		switch (opt) {
		case BP_OPT_SECONDS:
			if (bench_number("--seconds", optarg, 1, 3600,
					 &a->seconds))
				return -EINVAL;
			break;
		case BP_OPT_SIZE:
			if (bench_number("--size (MiB)", optarg, 1, 1U << 20,
					 &a->size_mb))
				return -EINVAL;
			break;
		case BP_OPT_CALIBRATE:
			a->calibrate = true;
			break;
		case BP_OPT_HELP:
			fputs(bp_usage, stdout);
			exit(0);
		default:
			return -EINVAL;
		}
	}
	if (optind + 1 != argc) {
		bench_error("expected: vublk-bench pmem FILE [--seconds N] [--size N] [--calibrate] (see --help)");
		return -EINVAL;
	}
	a->file = argv[optind];
	return 0;
}

/* FILE is new: the benchmark writes over all of it.  0 or -1. */
static int bp_create_file(const struct bp_args *a, uint64_t size)
{
	int fd = open(a->file, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd < 0) {
		bench_error(errno == EEXIST ?
			    "%s exists: the benchmark writes over its file; give a new path (it is removed afterwards)" :
			    "cannot create %s: %s", a->file, strerror(errno));
		return -1;
	}
	if (posix_fallocate(fd, 0, (off_t)size) != 0 &&
	    ftruncate(fd, (off_t)size) != 0) {
		bench_error("cannot size %s to %" PRIu64 " bytes: %s", a->file,
			    size, strerror(errno));
		close(fd);
		unlink(a->file);
		return -1;
	}
	close(fd);	/* the target maps it by name */
	return 0;
}

/* The bare side copies through the target's mapping (see the top). */
static void bp_bind_bare(struct bp_run *r)
{
	struct pmem2_map *map = pmem_map(r->lib_dev);

	r->base = pmem2_map_get_address(map);
	r->memcpy_fn = pmem2_get_memcpy_fn(map);
	r->store_flags = pmem_granularity(r->lib_dev) ==
			 PMEM_GRANULARITY_PAGE ? PMEM2_F_MEM_NOFLUSH : 0;
}

static int bp_start_target(struct bp_run *r)
{
	struct vublk_tgt *t = &r->tgt;
	int ret;

	*t = (struct vublk_tgt){
		.ops = &vublk_tgt_pmem,
		.priv = calloc(1, vublk_tgt_pmem.priv_size),
		.backing_file = r->a->file,
		.nr_queues = 1,
		.queue_depth = 1,
		.max_io_bytes = BP_IO_SIZE,
	};
	if (!t->priv)
		return -ENOMEM;
	ret = t->ops->init(t);
	if (ret)
		return ret;
	r->tgt_ready = true;
	ret = inproc_queue_init(&r->iq, t, 0, 1);
	if (ret) {
		bench_error("cannot set up the in-process queue: %s",
			    strerror(-ret));
		return ret;
	}
	r->queue_ready = true;
	r->lib_dev = vublk_pmem_backend_device(t->backend);
	r->limits = ublk_io_limits(t, t->max_io_bytes);
	return 0;
}

/* One request the way the server handles it: validate the iod, then
 * queue_io; returns the completion result. */
static int bp_target_io(struct bp_run *r, unsigned ublk_op, uint64_t off)
{
	const struct ublksrv_io_desc iod = {
		.op_flags = ublk_op,
		.nr_sectors = BP_IO_SIZE >> 9,
		.start_sector = off >> 9,
	};
	struct vublk_req req;
	const char *why;
	unsigned tag;
	int res;

	if (ublk_validate_iod(&iod, &r->limits, &req, &why) < 0) {
		bench_error("request at %" PRIu64 " refused: %s", off, why);
		return -EIO;
	}
	req.buf = r->buf;
	inproc_queue_start(&r->iq, 0, &req);
	if (!inproc_queue_pop(&r->iq, &tag, &res))
		return -EPROTO;	/* the target did not complete at once */
	return res;
}

/* One operation of @phase at @off; 0 or a negative errno. */
static int bp_op(struct bp_run *r, enum bp_phase phase, uint64_t off)
{
	int res;

	if (r->a->calibrate)
		phase = phase < BP_BARE_READ ? BP_BARE_WRITE : BP_BARE_READ;
	/* The bare copies take their length from memory, as lib/pmem's do:
	 * a constant 4096 would let the compiler inline memcpy() as rep
	 * movsq instead of calling glibc's.  (lib/pmem reads with its own
	 * rep movsb, pmem_copy_mc(): 0.97x of glibc's memcpy in a stand-alone
	 * loop, docs/PERFORMANCE.md; that difference is the target's.) */
	switch (phase) {
	case BP_BARE_WRITE:
		r->memcpy_fn(r->base + off, r->buf, r->io_size, r->store_flags);
		return 0;
	case BP_BARE_READ:
		memcpy(r->buf, r->base + off, r->io_size);
		return 0;
	case BP_LIB_WRITE:
		return pmem_write(r->lib_dev, off, r->buf, r->io_size);
	case BP_LIB_READ:
		return pmem_read(r->lib_dev, r->buf, off, r->io_size);
	case BP_TGT_WRITE:
	case BP_TGT_READ:
		res = bp_target_io(r, phase == BP_TGT_WRITE ? UBLK_IO_OP_WRITE :
				   UBLK_IO_OP_READ, off);
		return res == BP_IO_SIZE ? 0 : res < 0 ? res : -EIO;
	default:
		return -EINVAL;
	}
}

static double bp_cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One timed batch of @phase, continuing its walk of the offsets from its
 * own starting point (see the top). */
static int bp_run_batch(struct bp_run *r, enum bp_phase phase)
{
	double start = bp_cpu_now();
	uint64_t first = r->ops[phase] + phase % BP_SIDES * (BP_OFFSETS / BP_SIDES);

	for (uint64_t i = first; i < first + BP_BATCH; i++) {
		uint64_t off = r->offsets[i % BP_OFFSETS];
		int ret = bp_op(r, phase, off);

		if (ret) {
			bench_error("%s at offset %" PRIu64 " failed: %s",
				    bp_phase_names[phase], off, strerror(-ret));
			return ret;
		}
	}
	r->cpu[phase] += bp_cpu_now() - start;
	r->ops[phase] += BP_BATCH;
	return 0;
}

/* Alternate the sides of one workload, from @first (its bare side). */
static int bp_compare(struct bp_run *r, enum bp_phase first)
{
	double seconds = (double)r->a->seconds;

	for (unsigned round = 0;; round++) {
		unsigned side, done = 0;

		for (side = 0; side < BP_SIDES; side++)
			done += r->cpu[first + side] >= seconds;
		if (done == BP_SIDES)
			return 0;
		for (side = 0; side < BP_SIDES; side++) {
			int ret = bp_run_batch(r, first +
					       (round + side) % BP_SIDES);

			if (ret)
				return ret;
		}
	}
}

/* Write every page once, so that no page fault is timed. */
static void bp_prefault(struct bp_run *r)
{
	for (uint64_t off = 0; off < r->size; off += BP_IO_SIZE)
		(void)bp_op(r, BP_BARE_WRITE, off);	/* cannot fail */
}

static void bp_random_offsets(struct bp_run *r)
{
	uint64_t x = 0x9e3779b97f4a7c15u, blocks = r->size / BP_IO_SIZE;

	for (unsigned i = 0; i < BP_OFFSETS; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		r->offsets[i] = (x % blocks) * BP_IO_SIZE;
	}
}

static int bp_measure(struct bp_run *r)
{
	int ret = bp_compare(r, BP_BARE_WRITE);

	return ret ? ret : bp_compare(r, BP_BARE_READ);
}

static double bp_iops(const struct bp_run *r, enum bp_phase p)
{
	return r->ops[p] / r->cpu[p];
}

/* One line: the target, then lib/pmem alone, as IOPS and ratios to bare. */
static void bp_report_workload(const struct bp_run *r, const char *name,
			       enum bp_phase bare)
{
	double b = bp_iops(r, bare), l = bp_iops(r, bare + 1),
	       t = bp_iops(r, bare + 2);

	printf("%s target %.0f IOPS, ratio %.3f | lib/pmem alone %.0f IOPS, ratio %.3f | bare libpmem2 %.0f IOPS\n",
	       name, t, t / b, l, l / b, b);
}

static void bp_report(const struct bp_run *r)
{
	printf("vublk-bench pmem %s: %" PRIu64 " MiB, store granularity %s, 4 KiB random, depth 1, %s copy path (%s), %" PRIu64 " CPU-s per side, interleaved batches of %u\n",
	       r->a->file, r->a->size_mb,
	       pmem_granularity_name(pmem_granularity(r->lib_dev)),
#ifdef VUBLK_BENCH_PMEM_CHECKED_COPY
	       "checked", "-Dpmem_checked_copy=true",
#else
	       "unchecked", "default build",
#endif
	       r->a->seconds, BP_BATCH);
	if (r->a->calibrate)
		printf("--calibrate: every side below did the bare copy\n");
	bp_report_workload(r, "write:", BP_BARE_WRITE);
	bp_report_workload(r, "read: ", BP_BARE_READ);
}

static void bp_release(struct bp_run *r)
{
	if (r->queue_ready)
		inproc_queue_exit(&r->iq);
	if (r->tgt_ready)
		r->tgt.ops->deinit(&r->tgt);
	free(r->tgt.priv);
	free(r->buf);
	free(r->offsets);
}

static int bp_setup(struct bp_run *r)
{
	int ret;

	r->buf = aligned_alloc(BP_IO_SIZE, BP_IO_SIZE);
	r->offsets = calloc(BP_OFFSETS, sizeof(*r->offsets));
	if (!r->buf || !r->offsets) {
		bench_error("out of memory");
		return -ENOMEM;
	}
	memset(r->buf, 0x5a, BP_IO_SIZE);
	bp_random_offsets(r);
	ret = bp_start_target(r);
	if (ret)
		return ret;
	bp_bind_bare(r);
	bp_prefault(r);
	return 0;
}

int bench_pmem(int argc, char **argv)
{
	struct bp_args a = { .seconds = 2, .size_mb = 256 };
	struct bp_run r = { .a = &a, .io_size = BP_IO_SIZE };
	int ret;

	if (bp_parse(&a, argc, argv))
		return 2;
	r.size = a.size_mb << 20;
	if (bp_create_file(&a, r.size))
		return 1;
	ret = bp_setup(&r);
	if (!ret)
		ret = bp_measure(&r);
	if (!ret)
		bp_report(&r);
	bp_release(&r);
	if (unlink(a.file) != 0)
		bench_error("cannot remove %s: %s", a.file, strerror(errno));
	return ret ? 1 : 0;
}
