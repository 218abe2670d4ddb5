/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * merkle_test.h - the little that the lib/merkle unit tests share.
 */
#ifndef VUBLK_MERKLE_TEST_H
#define VUBLK_MERKLE_TEST_H

#include <stdio.h>
#include <stdlib.h>

#include "merkle.h"

/* A failed check ends the test program: later checks would only cascade. */
#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: %s: check failed: %s\n",	\
				__FILE__, __LINE__, __func__, #cond);	\
			exit(1);					\
		}							\
	} while (0)

/* Checks that a call returns the expected code, naming both on failure. */
#define CHECK_RET(call, want)						\
	do {								\
		int got_ = (call), want_ = (want);			\
		if (got_ != want_) {					\
			fprintf(stderr, "%s:%d: %s: %s returned %d (%s), want %d (%s)\n", \
				__FILE__, __LINE__, __func__, #call, got_, \
				merkle_strerror(got_), want_,		\
				merkle_strerror(want_));		\
			exit(1);					\
		}							\
	} while (0)

#endif /* VUBLK_MERKLE_TEST_H */
