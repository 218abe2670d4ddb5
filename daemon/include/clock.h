/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * clock.h - the monotonic clock of the daemon's deadlines and bounded
 * waits (nbd requests and connects, queue start and drain).
 */
#ifndef VUBLK_CLOCK_H
#define VUBLK_CLOCK_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "log.h"

/* uint64_t, as the clock's values: a quotient prints with PRIu64. */
#define VUBLK_NS_PER_MS ((uint64_t)1000000)
#define VUBLK_NS_PER_S ((uint64_t)1000000000)

/*
 * CLOCK_MONOTONIC in nanoseconds.  clock_gettime() fails only for a clock
 * the kernel lacks or a bad pointer (clock_gettime(2)), and every kernel
 * ublk runs on has this one: a failure is a broken process, and a wait
 * timed by a clock that does not move would never end, so say so and
 * stop, as GLib's g_get_monotonic_time() does.
 */
static inline uint64_t vublk_now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts)) {
		vublk_error("cannot read CLOCK_MONOTONIC, which every deadline needs: stopping");
		abort();
	}
	return (uint64_t)ts.tv_sec * VUBLK_NS_PER_S + (uint64_t)ts.tv_nsec;
}

#endif
