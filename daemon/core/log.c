// SPDX-License-Identifier: GPL-2.0-only
/*
 * log.c - one-line messages on stderr, and number parsing for options.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"

static void (*log_error_hook)(void *ctx, const char *line);
static void *log_error_ctx;
static bool log_timestamps;

void vublk_log_set_error_hook(void (*hook)(void *ctx, const char *line),
			      void *ctx)
{
	__atomic_store_n(&log_error_ctx, ctx, __ATOMIC_RELAXED);
	__atomic_store_n(&log_error_hook, hook, __ATOMIC_RELEASE);
}

void vublk_log_set_timestamps(bool on)
{
	log_timestamps = on;
}

static void vublk_vlog(bool error, const char *fmt, va_list ap)
{
	void (*hook)(void *, const char *);
	char line[1024], stamp[32] = "";
	time_t now;
	struct tm tm;

	vsnprintf(line, sizeof(line), fmt, ap);
	if (log_timestamps) {
		now = time(NULL);
		if (localtime_r(&now, &tm))
			strftime(stamp, sizeof(stamp), "%F %T ", &tm);
	}
	fprintf(stderr, "%svublk: %s\n", stamp, line);
	hook = __atomic_load_n(&log_error_hook, __ATOMIC_ACQUIRE);
	if (error && hook)
		hook(__atomic_load_n(&log_error_ctx, __ATOMIC_RELAXED), line);
}

void vublk_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vublk_vlog(true, fmt, ap);
	va_end(ap);
}

void vublk_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vublk_vlog(false, fmt, ap);
	va_end(ap);
}

/* Decimal digits, then optionally one of suffixes (each a power of 1024
 * up from K); *out within [min, max]. */
static bool parse_u64_suffixed(const char *s, const char *suffixes,
			       uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	const char *p, *unit;
	char *end;
	unsigned shift = 0;

	/*
	 * Digits only, read as decimal: strtoull's base 0 would take "010"
	 * as octal 8 (so "-n 010" named device 8) and "0x10" as hex, and
	 * any base accepts a sign and leading blanks.
	 */
	for (p = s; p && *p >= '0' && *p <= '9'; p++)
		;
	if (!s || p == s)
		return false;
	if (*p) {
		unit = strchr(suffixes, *p);
		if (!unit || p[1])
			return false;
		shift = 10 * (unsigned)(unit - suffixes + 1);
	}
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end != p || v > (max >> shift))
		return false;
	v <<= shift;
	if (v < min)
		return false;
	*out = v;
	return true;
}

int vublk_parse_u64(const char *what, const char *s, uint64_t min,
		    uint64_t max, uint64_t *out)
{
	if (parse_u64_suffixed(s, "", min, max, out))
		return 0;
	vublk_error("bad %s value '%s': expected a whole number from %" PRIu64 " to %" PRIu64 " in decimal digits",
		    what, s ? s : "", min, max);
	return -EINVAL;
}

int vublk_parse_size(const char *what, const char *s, uint64_t min,
		     uint64_t max, uint64_t *out)
{
	if (parse_u64_suffixed(s, "KMGT", min, max, out))
		return 0;
	vublk_error("bad %s value '%s': expected a number of bytes from %" PRIu64 " to %" PRIu64 ", in decimal digits with an optional K, M, G or T suffix (powers of 1024)",
		    what, s ? s : "", min, max);
	return -EINVAL;
}
