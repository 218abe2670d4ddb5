/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pmem_test.h - helpers shared by the lib/pmem tests.
 *
 * Each test program takes the directory to put its backing files in
 * (/var/tmp for a disk filesystem, /dev/shm for tmpfs) and exits 0 on
 * success, 1 on a failed check (after printing it), 77 when skipped.
 */
#ifndef VUBLK_PMEM_TEST_H
#define VUBLK_PMEM_TEST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "pmem.h"

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: check failed: %s\n",	\
				__FILE__, __LINE__, #cond);		\
			exit(1);					\
		}							\
	} while (0)

/* Like CHECK for a call returning 0 or a negative errno. */
#define CHECK_OK(call)							\
	do {								\
		int check_ok_rc_ = (call);				\
		if (check_ok_rc_ != 0) {				\
			fprintf(stderr, "%s:%d: %s returned %d\n",	\
				__FILE__, __LINE__, #call, check_ok_rc_); \
			exit(1);					\
		}							\
	} while (0)

/*
 * Create a file of @size bytes in @dir (removed when the test exits) and
 * return its path in @path.  Returns an fd open read-write.
 */
int pmem_test_create_file(const char *dir, uint64_t size, char *path,
			  size_t path_size);

/* Remove that file now (it lives on while open or mapped), so that a test
 * that may crash leaves nothing behind. */
void pmem_test_remove_file(void);

/* pmem_open() that fails the test, printing the library's message. */
struct pmem_dev *pmem_test_open(const char *path, unsigned int flags);

/* Fill @buf with a pattern that depends on @seed and the byte's position. */
void pmem_test_fill(void *buf, size_t len, uint64_t seed);

/* pread() exactly @len bytes at @off from @fd, failing the test otherwise. */
void pmem_test_pread(int fd, void *buf, size_t len, uint64_t off);

/* Where @path is mapped in this process (from /proc/self/maps). */
uintptr_t pmem_test_mapping_base(const char *path);

/* The granularity the test expects: $VUBLK_EXPECT_GRANULARITY, else PAGE. */
enum pmem_granularity pmem_test_expected_granularity(void);

#endif /* VUBLK_PMEM_TEST_H */
