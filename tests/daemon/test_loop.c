// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_loop.c - the loop target's ops on an in-process queue (daemon/
 * inproc_queue.c) over a temp file; every result is checked by reading
 * the file itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inproc_queue.h"
#include "targets.h"

#define FILE_SIZE (1024 * 1024 + 100)	/* not a multiple of 512 */
#define DEPTH 32
#define BUF (64 * 1024)

static int failures;
static char path[] = "/tmp/vublk-test-loop-XXXXXX";

#define CHECK(cond, ...) do { if (!(cond)) { printf("FAIL %s:%d: ", \
	__FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); \
	failures++; } } while (0)

static void fill(void *buf, size_t len, unsigned seed)
{
	unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(seed * 131 + i * 7 + (i >> 9));
}

static int file_equals(uint64_t off, const void *want, size_t len)
{
	char *got = malloc(len);
	int fd = open(path, O_RDONLY);
	int eq = fd >= 0 && got &&
		 pread(fd, got, len, off) == (ssize_t)len &&
		 !memcmp(got, want, len);

	if (fd >= 0)
		close(fd);
	free(got);
	return eq;
}

static int file_is_zero(uint64_t off, size_t len)
{
	void *z = calloc(1, len);
	int eq = z && file_equals(off, z, len);

	free(z);
	return eq;
}

static void make_file(void)
{
	void *buf = malloc(FILE_SIZE);
	int fd = mkstemp(path);

	if (fd < 0 || !buf) {
		perror("mkstemp");
		exit(1);
	}
	fill(buf, FILE_SIZE, 1);
	if (pwrite(fd, buf, FILE_SIZE, 0) != FILE_SIZE) {
		perror("pwrite");
		exit(1);
	}
	close(fd);
	free(buf);
}

static void *alloc_buf(void)
{
	void *p = mmap(NULL, BUF, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		exit(1);
	return p;
}

static struct vublk_tgt new_tgt(bool read_only)
{
	struct vublk_tgt t = {
		.ops = &vublk_tgt_loop,
		.priv = calloc(1, vublk_tgt_loop.priv_size),
		.backing_file = path,
		.read_only = read_only,
		.nr_queues = 1,
		.queue_depth = DEPTH,
		.max_io_bytes = BUF,
	};
	return t;
}

static void test_rw(struct inproc_queue *fq)
{
	char *buf = alloc_buf(), *want = malloc(BUF);
	struct vublk_req req = { .op = VUBLK_OP_READ, .offset = 4096,
				 .len = BUF, .buf = buf };
	int ret;

	ret = inproc_queue_run(fq, 0, &req);
	CHECK(ret == BUF, "read returned %d", ret);
	CHECK(file_equals(4096, buf, BUF), "read data differs from the file");

	fill(buf, 8192, 7);
	memcpy(want, buf, 8192);
	req = (struct vublk_req){ .op = VUBLK_OP_WRITE, .offset = 8192,
				  .len = 8192, .buf = buf };
	ret = inproc_queue_run(fq, 1, &req);
	CHECK(ret == 8192, "write returned %d", ret);
	CHECK(file_equals(8192, want, 8192), "written data not in the file");

	fill(buf, 4096, 9);
	memcpy(want, buf, 4096);
	req = (struct vublk_req){ .op = VUBLK_OP_WRITE, .flags = VUBLK_REQ_FUA,
				  .offset = 65536, .len = 4096, .buf = buf };
	ret = inproc_queue_run(fq, 2, &req);
	CHECK(ret == 4096, "FUA write returned %d", ret);
	CHECK(file_equals(65536, want, 4096), "FUA data not in the file");

	req = (struct vublk_req){ .op = VUBLK_OP_FLUSH };
	ret = inproc_queue_run(fq, 3, &req);
	CHECK(ret == 0, "flush returned %d", ret);
	munmap(buf, BUF);
	free(want);
}

static void test_discard(struct inproc_queue *fq)
{
	struct vublk_req req = { .op = VUBLK_OP_DISCARD, .offset = 128 * 1024,
				 .len = 64 * 1024 };
	struct stat before, after;
	int ret;

	CHECK(stat(path, &before) == 0, "stat");
	ret = inproc_queue_run(fq, 4, &req);
	CHECK(ret == 0, "discard returned %d", ret);
	CHECK(file_is_zero(128 * 1024, 64 * 1024), "discarded range not zero");
	CHECK(stat(path, &after) == 0 && after.st_size == before.st_size &&
	      after.st_blocks < before.st_blocks,
	      "discard did not punch a hole (blocks %lld -> %lld) or changed the size",
	      (long long)before.st_blocks, (long long)after.st_blocks);
	CHECK(!file_is_zero(192 * 1024, 4096), "discard went past its range");

	req = (struct vublk_req){ .op = VUBLK_OP_WRITE_ZEROES,
				  .flags = VUBLK_REQ_NOUNMAP,
				  .offset = 256 * 1024, .len = 8192 };
	CHECK(stat(path, &before) == 0, "stat");
	ret = inproc_queue_run(fq, 5, &req);
	CHECK(ret == 0, "write-zeroes (NOUNMAP) returned %d", ret);
	CHECK(file_is_zero(256 * 1024, 8192), "write-zeroes range not zero");
	CHECK(stat(path, &after) == 0 && after.st_blocks == before.st_blocks,
	      "NOUNMAP write-zeroes deallocated blocks");

	req.flags = 0;
	req.offset = 512 * 1024;
	ret = inproc_queue_run(fq, 6, &req);
	CHECK(ret == 0, "write-zeroes returned %d", ret);
	CHECK(file_is_zero(512 * 1024, 8192), "write-zeroes range not zero");
}

/* DEPTH writes in flight at once, each to its own block. */
static void test_many_in_flight(struct inproc_queue *fq)
{
	char *bufs = mmap(NULL, DEPTH * 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned tag;
	int ret;

	CHECK(bufs != MAP_FAILED, "mmap");
	for (tag = 0; tag < DEPTH; tag++) {
		struct vublk_req req = { .op = VUBLK_OP_WRITE,
					 .offset = 768 * 1024 + tag * 4096,
					 .len = 4096, .buf = bufs + tag * 4096 };

		fill(req.buf, 4096, 100 + tag);
		inproc_queue_start(fq, tag, &req);
	}
	ret = inproc_queue_wait_all(fq);
	CHECK(ret == 0, "wait_all returned %d", ret);
	for (tag = 0; tag < DEPTH; tag++) {
		CHECK(fq->res[tag] == 4096 && fq->completions[tag] >= 1,
		      "tag %u: result %d", tag, fq->res[tag]);
		CHECK(file_equals(768 * 1024 + tag * 4096, bufs + tag * 4096,
				  4096), "tag %u: data not in the file", tag);
	}
	munmap(bufs, DEPTH * 4096);
}

/*
 * A write the backing filesystem takes only part of: RLIMIT_FSIZE makes
 * the kernel shorten it to the limit and fail the rest with -EFBIG
 * (generic_write_check_limits()), as a full filesystem shortens a write
 * and fails the rest with -ENOSPC.  The target must continue the short
 * write and fail the request with the error, never complete it as done.
 */
static void test_short_write(struct inproc_queue *fq)
{
	const uint64_t limit = 40 * 1024;
	char *buf = alloc_buf();
	struct vublk_req req = { .op = VUBLK_OP_WRITE, .offset = limit - 4096,
				 .len = 8192, .buf = buf };
	struct rlimit old, small;
	int ret;

	fill(buf, 8192, 11);
	CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0, "getrlimit");
	small = (struct rlimit){ .rlim_cur = limit, .rlim_max = old.rlim_max };
	/* The kernel also sends SIGXFSZ, whose default action kills. */
	CHECK(signal(SIGXFSZ, SIG_IGN) != SIG_ERR, "signal");
	CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0, "setrlimit");
	ret = inproc_queue_run(fq, 8, &req);
	CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0, "setrlimit");
	CHECK(ret == -EFBIG, "write across the size limit returned %d, want -EFBIG",
	      ret);
	CHECK(file_equals(limit - 4096, buf, 4096),
	      "the part below the limit was not written");
	munmap(buf, BUF);
}

/* A backing file that shrank: the read must fail, never come back short. */
static void test_short_read(struct inproc_queue *fq, uint64_t dev_size)
{
	char *buf = alloc_buf();
	struct vublk_req req = { .op = VUBLK_OP_READ, .offset = dev_size - 8192,
				 .len = 8192, .buf = buf };
	int ret;

	CHECK(truncate(path, dev_size - 4096) == 0, "truncate");
	ret = inproc_queue_run(fq, 7, &req);
	CHECK(ret == -EIO, "read across the new EOF returned %d, want -EIO",
	      ret);
	munmap(buf, BUF);
}

/* The option value the target gives a long option. */
/*
 * The file backend registered its file in the queue's ring at queue_init
 * (vublk_queue_register_file()): SQEs for it name its slot, every request
 * above went through it.  A full table refuses more, and an fd that is
 * not in it stays an fd; requests still go right after that.
 */
static void test_fixed_files(struct inproc_queue *fq)
{
	struct io_uring_sqe sqe = { .fd = fq->ring.files[0] };
	int fds[VUBLK_RING_MAX_FILES], n, ret = 0;

	CHECK(fq->ring.nr_files == 1, "%u files registered, not the backing file alone",
	      fq->ring.nr_files);
	vublk_sqe_use_fixed_file(&fq->q, &sqe, sqe.fd);
	CHECK(sqe.fd == 0 && (sqe.flags & IOSQE_FIXED_FILE),
	      "backing file's SQE: fd %d flags %#x, not fixed file 0", sqe.fd,
	      sqe.flags);
	for (n = 0; n < VUBLK_RING_MAX_FILES; n++) {
		fds[n] = open("/dev/null", O_RDONLY | O_CLOEXEC);
		CHECK(fds[n] >= 0, "open /dev/null: %s", strerror(errno));
		ret = vublk_queue_register_file(&fq->q, fds[n]);
		if (ret)
			break;
	}
	CHECK(n == VUBLK_RING_MAX_FILES - 1 && ret == -ENFILE,
	      "a table of %d files took %d more, then said %d", VUBLK_RING_MAX_FILES,
	      n, ret);
	sqe = (struct io_uring_sqe){ .fd = fds[n] };
	vublk_sqe_use_fixed_file(&fq->q, &sqe, fds[n]);
	CHECK(sqe.fd == fds[n] && !(sqe.flags & IOSQE_FIXED_FILE),
	      "an fd not in the table was changed to %d, flags %#x", sqe.fd,
	      sqe.flags);
	test_rw(fq);
	for (int i = 0; i <= n && i < VUBLK_RING_MAX_FILES; i++)
		close(fds[i]);
}

static int loop_opt(const char *name)
{
	const struct option *o;

	for (o = vublk_tgt_loop.options; o->name; o++)
		if (!strcmp(o->name, name))
			return o->val;
	return -1;
}

static void test_init_errors(void)
{
	struct vublk_tgt t = new_tgt(false);
	char small[] = "/tmp/vublk-test-small-XXXXXX";
	int fd = mkstemp(small);
	int bs = loop_opt("block-size");

	char hundred[100] = { 0 };

	CHECK(fd >= 0 && write(fd, hundred, 100) == 100, "small file");
	close(fd);
	t.backing_file = small;
	CHECK(vublk_tgt_loop.init(&t) == -EINVAL, "100-byte file accepted");
	unlink(small);
	t.backing_file = "/nonexistent/vublk";
	CHECK(vublk_tgt_loop.init(&t) == -ENOENT, "missing file accepted");
	CHECK(vublk_tgt_loop.parse_opt(&t, bs, "1000") == -EINVAL,
	      "--block-size 1000 accepted");
	CHECK(vublk_tgt_loop.parse_opt(&t, bs, "8192") == -EINVAL,
	      "--block-size 8192 accepted");
	free(t.priv);
}

static void test_block_size_and_read_only(void)
{
	struct vublk_tgt t = new_tgt(true);
	struct stat st;
	int ret;

	CHECK(stat(path, &st) == 0, "stat");
	CHECK(vublk_tgt_loop.parse_opt(&t, loop_opt("block-size"), "4096") == 0,
	      "--block-size 4096 refused");
	ret = vublk_tgt_loop.init(&t);
	CHECK(ret == 0, "read-only init returned %d", ret);
	if (ret)
		return;
	CHECK(t.dev_size == ((uint64_t)st.st_size & ~4095ULL) &&
	      t.logical_bs_shift == 12,
	      "4096 block size: size %llu shift %u",
	      (unsigned long long)t.dev_size, t.logical_bs_shift);
	CHECK(!t.discard, "read-only device offers discard");
	vublk_tgt_loop.deinit(&t);
	free(t.priv);
}

/*
 * --direct: the target asks for its request buffers registered, and the
 * backend then moves a tag's data through the tag's registered buffer
 * (READ_FIXED/WRITE_FIXED): the pages are pinned once, not per I/O.
 */
static void test_registered_buffers(void)
{
	struct vublk_tgt t = new_tgt(false);
	struct inproc_queue fq;
	char *bufs, *want = malloc(8192);
	struct vublk_req req;
	int ret;

	CHECK(vublk_tgt_loop.parse_opt(&t, loop_opt("direct"), NULL) == 0,
	      "--direct refused");
	ret = vublk_tgt_loop.init(&t);
	CHECK(ret == 0, "--direct init returned %d", ret);
	if (ret) {
		free(t.priv);
		free(want);
		return;
	}
	CHECK(t.register_buffers, "--direct: request buffers not asked for registered");
	bufs = mmap(NULL, (size_t)DEPTH * BUF, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(bufs != MAP_FAILED && want, "no memory");
	if (bufs == MAP_FAILED || !want)
		goto out;
	ret = inproc_queue_init(&fq, &t, 0, DEPTH);
	CHECK(ret == 0, "--direct queue init returned %d", ret);
	if (ret)
		goto out;
	inproc_queue_set_buffers(&fq, bufs, BUF);
	CHECK(fq.ring.bufs == bufs, "--direct: no table for the request buffers");

	req = (struct vublk_req){ .op = VUBLK_OP_READ, .offset = 4096,
				  .len = BUF, .buf = bufs + 3 * BUF };
	ret = inproc_queue_run(&fq, 3, &req);
	CHECK(ret == BUF && file_equals(4096, bufs + 3 * BUF, BUF),
	      "read into a registered buffer: %d, or data differs", ret);
	/* Refused (an unprivileged run under a low RLIMIT_MEMLOCK): the
	 * data still moves, unregistered; the rest is not for this run. */
	if (fq.ring.bufs_refused) {
		printf("# request buffers not registered (RLIMIT_MEMLOCK?): their checks skipped\n");
		goto done;
	}
	CHECK(fq.ring.buf_registered[3] == BUF,
	      "tag 3's buffer: %u bytes registered after a read of %u",
	      fq.ring.buf_registered[3], BUF);
	fill(bufs + 5 * BUF, 8192, 11);
	memcpy(want, bufs + 5 * BUF, 8192);
	req = (struct vublk_req){ .op = VUBLK_OP_WRITE, .flags = VUBLK_REQ_FUA,
				  .offset = 8192, .len = 8192,
				  .buf = bufs + 5 * BUF };
	ret = inproc_queue_run(&fq, 5, &req);
	CHECK(ret == 8192 && file_equals(8192, want, 8192),
	      "FUA write from a registered buffer: %d, or not in the file", ret);
	CHECK(fq.ring.buf_registered[5] == BUF && !fq.ring.buf_registered[0],
	      "registered: tag 5 %u bytes after a write, unused tag 0 %u",
	      fq.ring.buf_registered[5], fq.ring.buf_registered[0]);
	/* Proof that the data went through buffer buf_index: a range that
	 * runs past its end is refused by io_uring (rsrc.c:
	 * io_import_fixed()), where a plain read would work. */
	req = (struct vublk_req){ .op = VUBLK_OP_READ, .flags = VUBLK_REQ_REG_BUF,
				  .buf_index = 3, .offset = 0, .len = 8192,
				  .buf = bufs + 4 * BUF - 4096 };
	ret = inproc_queue_run(&fq, 0, &req);
	CHECK(ret == -EFAULT, "a read past registered buffer 3 returned %d, not EFAULT",
	      ret);
done:
	test_rw(&fq);		/* buffers of no tag: not registered */
	CHECK(!fq.ring.buf_registered[0] && !fq.ring.buf_registered[1],
	      "buffers of no tag were registered");
	inproc_queue_exit(&fq);
out:
	vublk_tgt_loop.deinit(&t);
	free(t.priv);
	free(want);
	if (bufs != MAP_FAILED)
		munmap(bufs, (size_t)DEPTH * BUF);
}

int main(void)
{
	struct vublk_tgt t;
	struct inproc_queue fq;
	int ret;

	make_file();
	t = new_tgt(false);
	ret = vublk_tgt_loop.init(&t);
	CHECK(ret == 0, "init returned %d", ret);
	if (ret)
		goto out;
	CHECK(t.dev_size == (FILE_SIZE & ~511ULL), "size %llu",
	      (unsigned long long)t.dev_size);
	CHECK(t.logical_bs_shift == 9 && t.discard && t.volatile_cache,
	      "shape: shift %u discard %d cache %d", t.logical_bs_shift,
	      t.discard, t.volatile_cache);
	ret = inproc_queue_init(&fq, &t, 0, DEPTH);
	CHECK(ret == 0, "in-process queue init returned %d", ret);
	if (ret)
		goto out;
	test_rw(&fq);
	test_discard(&fq);
	test_many_in_flight(&fq);
	test_short_write(&fq);
	test_short_read(&fq, t.dev_size);
	test_fixed_files(&fq);
	inproc_queue_exit(&fq);
	vublk_tgt_loop.deinit(&t);
	free(t.priv);
	test_init_errors();
	test_block_size_and_read_only();
	test_registered_buffers();
out:
	unlink(path);
	if (failures) {
		printf("%d failure(s)\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
