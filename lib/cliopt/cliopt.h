/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cliopt.h - the words for a command-line option getopt_long() refused.
 *
 * getopt's own messages name the program by its path and give no hint,
 * and the argument before optind is not always the one refused; each
 * command prints these words in its own one-line format instead.
 */
#ifndef CLIOPT_H
#define CLIOPT_H

#include <stddef.h>

struct option;

/*
 * Into buf: what getopt_long() over opts refused (called with opterr =
 * 0; c its ':' or '?'), naming the argument as typed: "unknown option
 * '--bogus'", "missing value for option '-t'", "unknown option '-=' in
 * '-r=queue'", "option '--json' takes no value: '--json=1'", "ambiguous
 * option '--ver': give more of its name".  before is optind as it was
 * before that getopt_long() call.
 */
void cliopt_error_text(char *buf, size_t len, int c, char *const argv[],
		       int before, const struct option *opts);

#endif /* CLIOPT_H */
