// SPDX-License-Identifier: GPL-2.0-only
/*
 * options.c - the option loop of the small subcommands (del, list,
 * recover, update-size, features): getopt_long, and one line for what
 * getopt refuses, in the same words everywhere.
 */
#include <errno.h>

#include "cli.h"

int vublk_cli_options(const char *cmd, const char *usage, int argc,
		      char **argv, const char *shortopts,
		      const struct option *opts,
		      int (*one)(void *ctx, int opt, const char *arg),
		      void *ctx)
{
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
		if (c == ':' || c == '?') {
			vublk_error("%s: %s '%s' (%s)", cmd,
				    c == ':' ? "missing value for option" :
				    "unknown option", argv[optind - 1], usage);
			return -EINVAL;
		}
		if (one(ctx, c, optarg) < 0)
			return -EINVAL;
	}
	if (optind < argc) {
		vublk_error("%s: unexpected argument '%s' (%s)", cmd,
			    argv[optind], usage);
		return -EINVAL;
	}
	return 0;
}
