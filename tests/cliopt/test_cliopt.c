// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_cliopt.c - lib/cliopt names the argument getopt_long() refused, as
 * typed, wherever glibc's getopt leaves optind: groups of short options,
 * words it skips (and moves after the options), long options with a
 * value, abbreviations.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cliopt.h"

static const struct option test_opts[] = {
	{ "read-only", no_argument, NULL, 'R' },
	{ "readahead", required_argument, NULL, 'A' },
	{ "depth", required_argument, NULL, 'd' },
	{ "json", no_argument, NULL, 'j' },
	{ "type", required_argument, NULL, 't' },
	{ NULL, 0, NULL, 0 },
};

struct cliopt_case {
	const char *argv[6];
	const char *want;
};

static const struct cliopt_case cases[] = {
	{ { "p", "-t", "x", "-r=queue" }, "unknown option '-=' in '-r=queue'" },
	{ { "p", "img", "-xv" }, "unknown option '-x' in '-xv'" },
	{ { "p", "img", "-vx" }, "unknown option '-x' in '-vx'" },
	{ { "p", "-x", "-xv" }, "unknown option '-x'" },
	{ { "p", "img", "-x" }, "unknown option '-x'" },
	{ { "p", "--bogus", "-" }, "unknown option '--bogus'" },
	{ { "p", "img", "-", "--bogus" }, "unknown option '--bogus'" },
	{ { "p", "--type=x", "--bogus=3" }, "unknown option '--bogus=3'" },
	{ { "p", "--json=1" }, "option '--json' takes no value: '--json=1'" },
	{ { "p", "img", "--js=1" }, "option '--js' takes no value: '--js=1'" },
	{ { "p", "--read" }, "ambiguous option '--read': give more of its name" },
	{ { "p", "img", "--depth" }, "missing value for option '--depth'" },
	{ { "p", "-d" }, "missing value for option '-d'" },
	{ { "p", "-vd" }, "missing value for option '-d' in '-vd'" },
};

/* Parse argv as a command would (optind reset, opterr off); the text of
 * its first refusal, or "" when there is none. */
static void first_refusal(const struct cliopt_case *tc, char *buf, size_t len)
{
	char *argv[6];
	int argc = 0, before = 1, c;

	while (argc < 5 && tc->argv[argc]) {
		argv[argc] = (char *)tc->argv[argc];
		argc++;
	}
	argv[argc] = NULL;
	buf[0] = '\0';
	optind = 0;	/* glibc: start afresh, permutation state too */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:d:vr", test_opts, NULL)) != -1) {
		if (c == '?' || c == ':') {
			cliopt_error_text(buf, len, c, argv, before, test_opts);
			return;
		}
		before = optind;
	}
}

int main(void)
{
	unsigned failed = 0;
	char got[200];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		first_refusal(&cases[i], got, sizeof(got));
		if (strcmp(got, cases[i].want)) {
			printf("FAIL: case %zu: got \"%s\", want \"%s\"\n", i,
			       got, cases[i].want);
			failed++;
		}
	}
	printf("%zu cases, %u failed\n", sizeof(cases) / sizeof(cases[0]),
	       failed);
	return failed != 0;
}
