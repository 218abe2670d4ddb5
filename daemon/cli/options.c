// SPDX-License-Identifier: GPL-2.0-only
/*
 * options.c - the option loop of the small subcommands (del, list,
 * recover, update-size, features): getopt_long, and one line for what
 * getopt refuses, in the same words everywhere.
 */
#include <errno.h>
#include <stdio.h>

#include "cli.h"
#include "cliopt.h"

int vublk_cli_options(const char *cmd, const char *usage, int argc,
		      char **argv, const char *shortopts,
		      const struct option *opts,
		      int (*one)(void *ctx, int opt, const char *arg),
		      void *ctx)
{
	int c, before = 1;
	char why[160];

	if (vublk_wants_help(argc, argv)) {
		printf("%s\n", usage);
		return 1;
	}
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
		if (c == ':' || c == '?') {
			cliopt_error_text(why, sizeof(why), c, argv, before,
					  opts);
			vublk_error("%s: %s (%s)", cmd, why, usage);
			return -EINVAL;
		}
		if (one(ctx, c, optarg) < 0)
			return -EINVAL;
		before = optind;
	}
	if (optind < argc) {
		vublk_error("%s: unexpected argument '%s' (%s)", cmd,
			    argv[optind], usage);
		return -EINVAL;
	}
	return 0;
}
