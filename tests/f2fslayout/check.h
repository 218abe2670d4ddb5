/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * check.h - assertions for the lib/f2fslayout unit tests.  A failed check
 * prints where and what, and the test goes on so that one run shows every
 * failure; main() returns check_failures != 0.
 */
#ifndef VUBLK_TESTS_F2FSLAYOUT_CHECK_H
#define VUBLK_TESTS_F2FSLAYOUT_CHECK_H

#include <inttypes.h>
#include <stdio.h>

#include "f2fslayout.h"

static int check_failures;

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: check failed: %s\n",	\
				__FILE__, __LINE__, #cond);		\
			check_failures++;				\
		}							\
	} while (0)

#define CHECK_U64(got, want)						\
	do {								\
		uint64_t got_ = (got), want_ = (want);			\
		if (got_ != want_) {					\
			fprintf(stderr,					\
				"%s:%d: %s = %" PRIu64 ", want %" PRIu64 "\n", \
				__FILE__, __LINE__, #got, got_, want_);	\
			check_failures++;				\
		}							\
	} while (0)

/* An error code, shown with its message when it is not the expected one. */
#define CHECK_ERR(got, want)						\
	do {								\
		int got_ = (got), want_ = (want);			\
		if (got_ != want_) {					\
			fprintf(stderr,					\
				"%s:%d: %s = %d (%s), want %d (%s)\n",	\
				__FILE__, __LINE__, #got, got_,		\
				got_ ? f2fslayout_strerror(got_) : "ok", \
				want_,					\
				want_ ? f2fslayout_strerror(want_) : "ok"); \
			check_failures++;				\
		}							\
	} while (0)

#endif /* VUBLK_TESTS_F2FSLAYOUT_CHECK_H */
