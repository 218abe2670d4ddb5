/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * log.h - one-line messages and number parsing, for every part of the
 * daemon (core/log.c).
 *
 * A message is one line "vublk: ..." on stderr: the terminal, or the
 * server's log file once it is detached.
 */
#ifndef VUBLK_LOG_H
#define VUBLK_LOG_H

#include <stdbool.h>
#include <stdint.h>

void vublk_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void vublk_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * While a detached server starts, its error lines must also reach the
 * `vublk add` waiting for it: hook(ctx, line) gets each vublk_error() line.
 * NULL clears.  Safe to change while other threads log.
 */
void vublk_log_set_error_hook(void (*hook)(void *ctx, const char *line),
			      void *ctx);
/* Prefix lines with the local time (for a log file). */
void vublk_log_set_timestamps(bool on);

/* The value of hex digit c (either case), or -1 if c is not one. */
static inline int vublk_hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* "s" after a count other than one: "%u request%s", n, vublk_plural(n). */
static inline const char *vublk_plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/*
 * A whole number in [min, max] into *out, in decimal digits only: "010"
 * is ten, never octal eight, and "0x10", "+1", " 1" or "1k" are refused
 * (no option takes a hex value).  On failure prints "bad WHAT value 'S':
 * expected a whole number from MIN to MAX" and returns -EINVAL.
 */
int vublk_parse_u64(const char *what, const char *s, uint64_t min,
		    uint64_t max, uint64_t *out);
/* The same for a number of bytes, which may end in K, M, G or T (powers
 * of 1024, as fio and truncate take them): "48M" is 50331648. */
int vublk_parse_size(const char *what, const char *s, uint64_t min,
		     uint64_t max, uint64_t *out);

#endif /* VUBLK_LOG_H */
