// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_open_errors.c - what pmem_open() refuses, and how it says so: one
 * line naming the path, the reason and what to use instead.
 *
 * usage: test_open_errors DIR [BLOCKDEV]
 * BLOCKDEV defaults to /dev/loop0; without any block device node the block
 * device case is skipped (exit 77 after the other checks pass).
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmem_test.h"

#define SKIP 77

/* pmem_open(@path) must fail with @err and a message holding all @words. */
static void expect_refusal(const char *path, int err,
			   const char *const *words)
{
	char errbuf[PMEM_ERRBUF_SIZE];
	struct pmem_dev *dev = NULL;
	int rc = pmem_open(path, 0, &dev, errbuf);

	printf("%s: %d: %s\n", path, rc, errbuf);
	CHECK(rc == err);
	CHECK(dev == NULL);
	CHECK(strchr(errbuf, '\n') == NULL);
	CHECK(strstr(errbuf, path) != NULL);
	for (; *words; words++)
		CHECK(strstr(errbuf, *words) != NULL);
}

static void check_block_device(const char *blockdev, bool *skipped)
{
	static const char *const words[] = { "block device", "-o dax",
					     "/dev/dax", NULL };
	struct stat st;

	if (stat(blockdev, &st) || !S_ISBLK(st.st_mode)) {
		printf("SKIP: %s is not a block device node\n", blockdev);
		*skipped = true;
		return;
	}
	expect_refusal(blockdev, -ENOTSUP, words);
}

int main(int argc, char **argv)
{
	static const char *const chardev[] = { "character device",
					       "not a device-DAX", NULL };
	static const char *const dir[] = { "directory", NULL };
	static const char *const empty[] = { "empty", "truncate -s", NULL };
	const char *const missing[] = { "cannot open", strerror(ENOENT),
					NULL };
	char path[4096], gone[4096 + 16];
	bool skipped = false;
	int fd;

	CHECK(argc == 2 || argc == 3);
	expect_refusal("/dev/null", -ENOTSUP, chardev);
	expect_refusal(argv[1], -EISDIR, dir);

	fd = pmem_test_create_file(argv[1], 0, path, sizeof(path));
	expect_refusal(path, -EINVAL, empty);
	snprintf(gone, sizeof(gone), "%s.missing", path);
	expect_refusal(gone, -ENOENT, missing);
	CHECK(close(fd) == 0);

	check_block_device(argc == 3 ? argv[2] : "/dev/loop0", &skipped);
	return skipped ? SKIP : 0;
}
