// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_sigbus.c - a backing file truncated under a mapped device: reads and
 * writes past the new end fail with -EIO (the copy takes SIGBUS), the
 * process lives on, and the part below the end still works.  A SIGBUS
 * outside any pmem copy still kills the process (checked in a child).
 * Faults in a row are each caught, and leave SIGBUS unblocked.
 * The guard is per thread: one thread's faults do not disturb another's
 * good reads running at the same time.  pmem_guarded_read() recovers a
 * load of its caller's own, from any mapping.
 *
 * usage: test_sigbus DIR
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmem_test.h"

#define DEV_SIZE (1024 * 1024)
#define CUT (DEV_SIZE / 2)

static bool sigbus_blocked(void)
{
	sigset_t mask;

	CHECK(pthread_sigmask(SIG_BLOCK, NULL, &mask) == 0);
	return sigismember(&mask, SIGBUS) == 1;
}

/*
 * Faults in a row, each caught: the handler stays installed after
 * recovering, and the recovery (a return from the handler into a fixed-up
 * context, poison.c) leaves SIGBUS unblocked: were it left blocked, the
 * kernel would kill the process on the next fault (a synchronous signal
 * that is blocked gets SIG_DFL, kernel/signal.c: force_sig_info_to_task()).
 */
static void check_faults_fail(struct pmem_dev *dev)
{
	unsigned char buf[8192];

	CHECK(!sigbus_blocked());
	for (int round = 0; round < 2; round++) {
		CHECK(pmem_read(dev, buf, CUT + CUT / 2, 4096) == -EIO);
		CHECK(!sigbus_blocked());
		CHECK(pmem_read(dev, buf, CUT - 4096, 8192) == -EIO);
		CHECK(pmem_write(dev, CUT + 4096, buf, 4096) == -EIO);
		CHECK(pmem_zero(dev, DEV_SIZE - 4096, 4096) == -EIO);
		CHECK(!sigbus_blocked());
	}
}

static void check_below_cut_works(struct pmem_dev *dev, int fd)
{
	unsigned char data[4096], back[4096];

	pmem_test_fill(data, sizeof(data), 7);
	CHECK_OK(pmem_write(dev, CUT - 4096, data, sizeof(data)));
	CHECK_OK(pmem_read(dev, back, CUT - 4096, sizeof(back)));
	CHECK(memcmp(back, data, sizeof(data)) == 0);
	pmem_test_pread(fd, back, sizeof(back), CUT - 4096);
	CHECK(memcmp(back, data, sizeof(data)) == 0);
	CHECK_OK(pmem_flush(dev));
}

#define THREAD_ROUNDS 200

struct reader {
	pthread_t thread;
	struct pmem_dev *dev;
	uint64_t off;		/* where to read: below or past CUT */
	int expect;		/* 0 or -EIO */
};

static void *reader_run(void *arg)
{
	struct reader *r = arg;
	unsigned char buf[4096], data[4096];

	pmem_test_fill(data, sizeof(data), 7);	/* written below the cut */
	for (int i = 0; i < THREAD_ROUNDS; i++) {
		CHECK(pmem_read(r->dev, buf, r->off, sizeof(buf)) == r->expect);
		if (r->expect == 0)
			CHECK(memcmp(buf, data, sizeof(buf)) == 0);
	}
	return NULL;
}

static void check_threads_independent(struct pmem_dev *dev)
{
	struct reader readers[] = {
		{ .dev = dev, .off = CUT + 8192, .expect = -EIO },
		{ .dev = dev, .off = CUT - 4096, .expect = 0 },
		{ .dev = dev, .off = DEV_SIZE - 4096, .expect = -EIO },
		{ .dev = dev, .off = CUT - 4096, .expect = 0 },
	};
	size_t n = sizeof(readers) / sizeof(readers[0]);

	for (size_t i = 0; i < n; i++)
		CHECK(pthread_create(&readers[i].thread, NULL, reader_run,
				     &readers[i]) == 0);
	for (size_t i = 0; i < n; i++)
		CHECK(pthread_join(readers[i].thread, NULL) == 0);
}

struct guarded_load {
	const volatile unsigned char *p;
	unsigned char got;
};

static void guarded_load(void *arg)
{
	struct guarded_load *l = arg;

	l->got = *l->p;
}

/*
 * pmem_guarded_read(): a load past the cut inside it returns -EIO, one
 * below it gives the byte, on the device's own mapping and on any other
 * (the file backend's mapping of the page cache), and the process lives
 * on with SIGBUS unblocked.
 */
static void check_guarded_read(struct pmem_dev *dev, int fd)
{
	const unsigned char *own = pmem_address(dev);
	unsigned char *other = mmap(NULL, DEV_SIZE, PROT_READ, MAP_SHARED, fd,
				    0);
	unsigned char data[4096];

	CHECK(other != MAP_FAILED);
	pmem_test_fill(data, sizeof(data), 11);
	CHECK_OK(pmem_write(dev, CUT - 8192, data, sizeof(data)));
	for (int m = 0; m < 2; m++) {
		const unsigned char *base = m ? other : own;
		struct guarded_load past = { .p = base + CUT + 4096 };
		struct guarded_load below = { .p = base + CUT - 8192 + 5 };

		CHECK(pmem_guarded_read(base, DEV_SIZE, guarded_load, &past) ==
		      -EIO);
		CHECK(!sigbus_blocked());
		CHECK_OK(pmem_guarded_read(base, DEV_SIZE, guarded_load,
					   &below));
		CHECK(below.got == data[5]);
	}
	CHECK(munmap(other, DEV_SIZE) == 0);
}

/*
 * In a child: touch a truncated mapping that is not a pmem device.  The
 * handler must not swallow that SIGBUS: the child dies of it.
 */
static void check_foreign_sigbus_kills(int fd)
{
	pid_t pid = fork();
	int status;

	CHECK(pid >= 0);
	if (pid == 0) {
		volatile char *p = mmap(NULL, DEV_SIZE, PROT_READ, MAP_SHARED,
					fd, 0);

		if (p == MAP_FAILED)
			_exit(2);
		/* fd's file is CUT bytes long now. */
		(void)p[CUT + 8192];
		_exit(3);
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS);
}

int main(int argc, char **argv)
{
	char path[4096];
	struct pmem_dev *dev;
	int fd;

	CHECK(argc == 2);
	fd = pmem_test_create_file(argv[1], DEV_SIZE, path, sizeof(path));
	dev = pmem_test_open(path, 0);
	pmem_test_remove_file();	/* a crash here is a failure to report */
	CHECK(ftruncate(fd, CUT) == 0);

	check_faults_fail(dev);
	check_below_cut_works(dev, fd);
	check_threads_independent(dev);
	check_guarded_read(dev, fd);
	check_foreign_sigbus_kills(fd);
	check_faults_fail(dev);

	pmem_close(dev);
	CHECK(close(fd) == 0);
	return 0;
}
