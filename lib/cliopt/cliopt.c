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

/* An argument getopt_long() takes for an option ("-x", "--x"), not a
 * word it skips ("img", "-"). */
static bool cliopt_is_option(const char *arg)
{
	return arg[0] == '-' && arg[1];
}

/*
 * Which argument getopt_long() refused.  It moves optind past an
 * argument once done with it, and moves arguments that are not options
 * out of its way, skipping them.  So optind is still on the argument
 * when a bad letter is not the last of its group ("-r=queue"): either
 * the one before the call, or one reached by skipping, which leaves a
 * skipped word just before it.  Otherwise it is the one before optind.
 */
static const char *cliopt_culprit(char *const argv[], int before)
{
	if (optind == before || !cliopt_is_option(argv[optind - 1]))
		return argv[optind];
	return argv[optind - 1];
}

/* How many of opts' names begin with the n characters of name. */
static unsigned cliopt_prefix_matches(const struct option *opts,
				      const char *name, size_t n)
{
	unsigned matches = 0;

	for (; opts && opts->name; opts++)
		if (!strncmp(opts->name, name, n))
			matches++;
	return matches;
}

void cliopt_error_text(char *buf, size_t len, int c, char *const argv[],
		       int before, const struct option *opts)
{
	const char *arg = cliopt_culprit(argv, before);
	bool is_long = !strncmp(arg, "--", 2);
	size_t name_len = strcspn(arg, "=");

	if (!is_long && strlen(arg) > 2 && optopt > ' ' && optopt < 127)
		snprintf(buf, len, "%s '-%c' in '%s'",
			 c == ':' ? "missing value for option" :
				    "unknown option", optopt, arg);
	else if (c == ':')
		snprintf(buf, len, "missing value for option '%s'", arg);
	/* A long option given a value it takes none of: glibc names it in
	 * optopt (its val); unknown and ambiguous ones leave 0. */
	else if (is_long && arg[name_len] == '=' && optopt)
		snprintf(buf, len, "option '%.*s' takes no value: '%s'",
			 (int)name_len, arg, arg);
	else if (is_long &&
		 cliopt_prefix_matches(opts, arg + 2, name_len - 2) > 1)
		snprintf(buf, len, "ambiguous option '%.*s': give more of its name",
			 (int)name_len, arg);
	else
		snprintf(buf, len, "unknown option '%s'", arg);
}
