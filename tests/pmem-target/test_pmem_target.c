// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_pmem_target.c - the pmem target (daemon/tgt_pmem.c) driven through
 * the in-process queue (daemon/inproc_queue), no ublk needed.
 *
 * Each check opens a fresh device on a new backing file in DIR and drives
 * it with block requests as the core would after validation.  The oracle
 * for data is the backing file itself, read with pread() (the mapping is
 * MAP_SHARED, so the page cache shows what the target stored); the oracle
 * for persistence is lib/pmem's msync bookkeeping, seen through the
 * target's stats_json.
 *
 * usage: test_pmem_target DIR
 *   $VUBLK_EXPECT_GRANULARITY: PAGE (default) or CACHE_LINE (with
 *   PMEM2_FORCE_GRANULARITY=CACHE_LINE).  The truncation check takes
 *   SIGBUS: under ASan run with ASAN_OPTIONS=handle_sigbus=0.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inproc_queue.h"
#include "pmem_test.h"
#include "targets.h"	/* vublk_tgt_pmem */

#define DEV_SIZE (1024 * 1024)
#define MAX_IO (256 * 1024)
#define CHUNK PMEM_DIRTY_CHUNK_SIZE

struct pt_dev {
	struct vublk_tgt tgt;
	struct inproc_queue iq;
	char path[4096];
	int fd;			/* the backing file, for pread/ftruncate */
	unsigned char *buf;	/* MAX_IO: the request buffer */
	unsigned char *expect;	/* MAX_IO: what a read must return */
};

static const char *test_dir;

/* Target init on @path; returns its result (the device is not usable
 * unless it is 0). */
static int pt_init(struct pt_dev *d, const char *path, bool read_only)
{
	d->tgt = (struct vublk_tgt){
		.ops = &vublk_tgt_pmem,
		.priv = calloc(1, vublk_tgt_pmem.priv_size),
		.backing_file = path,
		.read_only = read_only,
		.nr_queues = 1,
		.queue_depth = 1,
		.max_io_bytes = MAX_IO,
	};
	CHECK(d->tgt.priv);
	return d->tgt.ops->init(&d->tgt);
}

/* Serve the backing file d->fd / d->path. */
static void pt_start(struct pt_dev *d, bool read_only)
{
	CHECK_OK(pt_init(d, d->path, read_only));
	CHECK_OK(inproc_queue_init(&d->iq, &d->tgt, 0, 1));
	d->buf = aligned_alloc(4096, MAX_IO);
	d->expect = malloc(MAX_IO);
	CHECK(d->buf && d->expect);
}

static void pt_create_file(struct pt_dev *d)
{
	d->fd = pmem_test_create_file(test_dir, DEV_SIZE, d->path,
				      sizeof(d->path));
}

/* A device on a new zeroed backing file. */
static void pt_open(struct pt_dev *d, bool read_only)
{
	pt_create_file(d);
	pt_start(d, read_only);
}

static void pt_close(struct pt_dev *d)
{
	inproc_queue_exit(&d->iq);
	d->tgt.ops->deinit(&d->tgt);
	free(d->tgt.priv);
	free(d->buf);
	free(d->expect);
	CHECK(close(d->fd) == 0);
	pmem_test_remove_file();
}

static int pt_io(struct pt_dev *d, unsigned op, unsigned flags,
		 uint64_t off, uint32_t len)
{
	struct vublk_req req = { .op = op, .flags = flags, .offset = off,
				 .len = len, .buf = d->buf };

	return inproc_queue_run(&d->iq, 0, &req);
}

/* Write @len pattern bytes (@seed) at @off through the target. */
static void pt_write(struct pt_dev *d, unsigned flags, uint64_t off,
		     uint32_t len, uint64_t seed)
{
	pmem_test_fill(d->buf, len, seed);
	CHECK(pt_io(d, VUBLK_OP_WRITE, flags, off, len) == (int)len);
}

/* Read through the target and from the file; both must equal @expect. */
static void pt_check_range(struct pt_dev *d, uint64_t off, uint32_t len,
			   const unsigned char *expect)
{
	memset(d->buf, 0xa5, len);
	CHECK(pt_io(d, VUBLK_OP_READ, 0, off, len) == (int)len);
	CHECK(memcmp(d->buf, expect, len) == 0);
	pmem_test_pread(d->fd, d->buf, len, off);
	CHECK(memcmp(d->buf, expect, len) == 0);
}

/* The target's stats_json text (caller frees). */
static char *pt_stats(struct pt_dev *d)
{
	char *text = inproc_tgt_stats(&d->tgt);

	CHECK(text);
	return text;
}

static uint64_t pt_counter(struct pt_dev *d, const char *name)
{
	uint64_t v = inproc_tgt_counter(&d->tgt, name);
	char *text;

	if (v == UINT64_MAX) {
		text = pt_stats(d);
		fprintf(stderr, "no counter %s in stats: %s\n", name, text);
		exit(1);
	}
	return v;
}

static bool expect_volatile(void)
{
	return pmem_test_expected_granularity() == PMEM_GRANULARITY_PAGE;
}

/* Shape and the granularity the stats report. */
static void check_shape(void)
{
	struct pt_dev d;
	char want[64], *text;

	pt_open(&d, false);
	CHECK(d.tgt.dev_size == DEV_SIZE);
	CHECK(d.tgt.logical_bs_shift == 9);
	CHECK(d.tgt.physical_bs_shift == 12);
	CHECK(d.tgt.volatile_cache == expect_volatile());
	CHECK(d.tgt.discard);
	snprintf(want, sizeof(want), "\"granularity\": \"%s\"",
		 pmem_granularity_name(pmem_test_expected_granularity()));
	text = pt_stats(&d);
	if (!strstr(text, want)) {
		fprintf(stderr, "stats lack %s: %s\n", want, text);
		exit(1);
	}
	free(text);
	pt_close(&d);
}

/* Writes at several offsets and sizes read back, through the target and
 * in the file; a later write does not disturb an earlier one. */
static void check_roundtrip(void)
{
	static const struct { uint64_t off; uint32_t len; } io[] = {
		{ 0, 512 },
		{ 512, 4096 },			/* 512-aligned, not 4K */
		{ 8192, 4096 },
		{ CHUNK - 512, 1024 },		/* across a dirty chunk */
		{ 3 * CHUNK + 1536, MAX_IO },	/* largest request */
		{ DEV_SIZE - 8192, 8192 },	/* the last blocks */
	};
	const size_t n = sizeof(io) / sizeof(io[0]);
	struct pt_dev d;

	pt_open(&d, false);
	for (size_t i = 0; i < n; i++)
		pt_write(&d, 0, io[i].off, io[i].len, i + 1);
	for (size_t i = 0; i < n; i++) {
		pmem_test_fill(d.expect, io[i].len, i + 1);
		pt_check_range(&d, io[i].off, io[i].len, d.expect);
	}
	pt_close(&d);
}

/* PAGE: a write is persisted (msynced) by the next FLUSH, not before;
 * a FLUSH with nothing dirty persists nothing.  CACHE_LINE: writes are
 * persistent on return, FLUSH succeeds and has nothing to do. */
static void check_flush(void)
{
	struct pt_dev d;
	uint64_t flushes, ranges;

	pt_open(&d, false);
	pt_write(&d, 0, 5 * CHUNK, 4096, 11);
	CHECK(pt_counter(&d, "persisted_ranges") == 0);
	CHECK(pt_io(&d, VUBLK_OP_FLUSH, 0, 0, 0) == 0);
	flushes = pt_counter(&d, "pmem_flushes");
	ranges = pt_counter(&d, "persisted_ranges");
	if (expect_volatile()) {
		CHECK(flushes == 1);
		CHECK(ranges == 1);
		CHECK(pt_counter(&d, "persisted_bytes") >= 4096);
		CHECK(pt_io(&d, VUBLK_OP_FLUSH, 0, 0, 0) == 0);
		CHECK(pt_counter(&d, "pmem_flushes") == 2);
		CHECK(pt_counter(&d, "persisted_ranges") == 1);
	} else {
		CHECK(flushes == 0 && ranges == 0);
	}
	pmem_test_fill(d.expect, 4096, 11);
	pt_check_range(&d, 5 * CHUNK, 4096, d.expect);
	pt_close(&d);
}

/* A FUA write is persisted before it completes, without a FLUSH; a plain
 * write is not. */
static void check_fua(void)
{
	struct pt_dev d;

	pt_open(&d, false);
	pt_write(&d, 0, 2 * CHUNK, 4096, 21);
	CHECK(pt_counter(&d, "persisted_ranges") == 0);
	pt_write(&d, VUBLK_REQ_FUA, 7 * CHUNK, 8192, 22);
	if (expect_volatile()) {
		CHECK(pt_counter(&d, "pmem_flushes") == 1);
		/* Both dirty chunks: pmem_flush() persists every completed
		 * write, as nvdimm_flush() does. */
		CHECK(pt_counter(&d, "persisted_ranges") == 2);
	} else {
		CHECK(pt_counter(&d, "pmem_flushes") == 0);
	}
	pmem_test_fill(d.expect, 8192, 22);
	pt_check_range(&d, 7 * CHUNK, 8192, d.expect);
	pt_close(&d);
}

/* DISCARD and WRITE_ZEROES (with and without NOUNMAP) zero exactly their
 * range. */
static void check_zeroes(void)
{
	static const struct { unsigned op, flags; uint32_t off, len; } z[] = {
		{ VUBLK_OP_DISCARD, 0, 4096, 8192 },
		{ VUBLK_OP_WRITE_ZEROES, VUBLK_REQ_NOUNMAP, 32768, 512 },
		{ VUBLK_OP_WRITE_ZEROES, 0, 40960 + 512, 3072 },
	};
	const uint64_t base = 2 * CHUNK;
	const uint32_t span = CHUNK;
	struct pt_dev d;

	pt_open(&d, false);
	pt_write(&d, 0, base, span, 31);
	pmem_test_fill(d.expect, span, 31);
	for (size_t i = 0; i < sizeof(z) / sizeof(z[0]); i++) {
		CHECK(pt_io(&d, z[i].op, z[i].flags, base + z[i].off,
			    z[i].len) == 0);
		memset(d.expect + z[i].off, 0, z[i].len);
	}
	pt_check_range(&d, base, span, d.expect);
	pt_close(&d);
}

/* --read-only: the file's contents read back; no discard; a write that
 * got past the core would be refused by the read-only mapping. */
static void check_read_only(void)
{
	struct pt_dev d;
	unsigned char data[4096];

	pt_create_file(&d);
	pmem_test_fill(data, sizeof(data), 41);
	CHECK(pwrite(d.fd, data, sizeof(data), 12288) == (ssize_t)sizeof(data));
	pt_start(&d, true);
	CHECK(d.tgt.read_only && !d.tgt.discard && !d.tgt.volatile_cache);
	pmem_test_fill(d.expect, 4096, 41);
	pt_check_range(&d, 12288, 4096, d.expect);
	CHECK(pt_io(&d, VUBLK_OP_WRITE, 0, 0, 4096) == -EROFS);
	pt_close(&d);
}

/* The backing file shrinks under the device: I/O past the new end fails
 * with -EIO (SIGBUS caught by lib/pmem), the process lives on, and I/O
 * below the end still works. */
static void check_truncate(void)
{
	const uint64_t cut = DEV_SIZE / 2;
	struct pt_dev d;

	pt_open(&d, false);
	pt_write(&d, 0, cut - 8192, 8192, 51);
	CHECK(ftruncate(d.fd, (off_t)cut) == 0);
	for (int round = 0; round < 2; round++) {
		CHECK(pt_io(&d, VUBLK_OP_READ, 0, cut + 4096, 4096) == -EIO);
		CHECK(pt_io(&d, VUBLK_OP_READ, 0, cut - 4096, 8192) == -EIO);
		CHECK(pt_io(&d, VUBLK_OP_WRITE, 0, cut, 4096) == -EIO);
		CHECK(pt_io(&d, VUBLK_OP_WRITE_ZEROES, 0, DEV_SIZE - 4096,
			    4096) == -EIO);
	}
	pmem_test_fill(d.expect, 8192, 51);
	pt_check_range(&d, cut - 8192, 8192, d.expect);
	pt_write(&d, VUBLK_REQ_FUA, 0, 4096, 52);
	pmem_test_fill(d.expect, 4096, 52);
	pt_check_range(&d, 0, 4096, d.expect);
	pt_close(&d);
}

/* Backing files the target must refuse in init, before any device. */
static void check_refusals(void)
{
	char missing[4096], empty[4096];
	struct pt_dev d;
	int fd;

	CHECK(pt_init(&d, test_dir, false) == -EISDIR);
	free(d.tgt.priv);
	snprintf(missing, sizeof(missing), "%s/vublk-pmem-test-missing.%d",
		 test_dir, (int)getpid());
	CHECK(pt_init(&d, missing, false) == -ENOENT);
	free(d.tgt.priv);
	fd = pmem_test_create_file(test_dir, 0, empty, sizeof(empty));
	CHECK(pt_init(&d, empty, false) == -EINVAL);
	free(d.tgt.priv);
	CHECK(close(fd) == 0);
	pmem_test_remove_file();
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	test_dir = argv[1];
	check_shape();
	check_roundtrip();
	check_flush();
	check_fua();
	check_zeroes();
	check_read_only();
	check_truncate();
	check_refusals();
	printf("pmem target: all checks passed (%s granularity, %s)\n",
	       pmem_granularity_name(pmem_test_expected_granularity()),
	       test_dir);
	return 0;
}
