// SPDX-License-Identifier: GPL-2.0-only
/*
 * cliopt.c - the words for an option getopt_long() refused, the same in
 * every command (vublk, vublk-verity, vublk-bench).
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cliopt.h"

/*
 * Which argument getopt_long() refused.  It moves optind past an
 * argument once done with it, and skips arguments that are not options
 * (it moves them after the options).  So a bad letter that is not the
 * last of its group ("-r=queue") leaves optind on the group: the one
 * being read before the call, or, after skipped arguments, one whose
 * first letter is the bad one.  Otherwise it is the one before optind.
 */
static const char *cliopt_culprit(int c, char *const argv[], int before)
{
	const char *cur = argv[optind];

	if (optind == before ||
	    (c == '?' && cur && cur[0] == '-' && cur[1] != '-' &&
	     cur[1] == optopt))
		return cur;
	return argv[optind - 1];
}

/* arg, "--NAME=VALUE", names one of opts that takes no value. */
static bool cliopt_takes_none(const struct option *opts, const char *arg)
{
	size_t n = strcspn(arg + 2, "=");

	for (; opts && opts->name; opts++)
		if (strlen(opts->name) == n && !strncmp(opts->name, arg + 2, n))
			return opts->has_arg == no_argument;
	return false;
}

void cliopt_error_text(char *buf, size_t len, int c, char *const argv[],
		       int before, const struct option *opts)
{
	const char *arg = cliopt_culprit(c, argv, before);
	bool is_long = !strncmp(arg, "--", 2);

	if (c == ':')
		snprintf(buf, len, "missing value for option '%s'", arg);
	else if (is_long && strchr(arg, '=') && cliopt_takes_none(opts, arg))
		snprintf(buf, len, "option '%.*s' takes no value: '%s'",
			 (int)strcspn(arg, "="), arg, arg);
	else if (!is_long && strlen(arg) > 2 && optopt > ' ' && optopt < 127)
		snprintf(buf, len, "unknown option '-%c' in '%s'", optopt, arg);
	else
		snprintf(buf, len, "unknown option '%s'", arg);
}
