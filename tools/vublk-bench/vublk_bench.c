// SPDX-License-Identifier: GPL-2.0-only
/*
 * vublk-bench - measure a target's read path in-process on the host.
 *
 *   vublk-bench verity IMAGE [--pattern=seq|rand] [--io-size=N] [--depth=N]
 *               [--direct] [--readahead=MODE] [--cache-mb=N]
 *               [--verify-thread=on|off|auto] [--read-in-place=on|off]
 *               [--seconds=N | --bytes=N] [--rounds=N]
 *               [--plot=FILE.svg [--plot-label=L] [--plot-rate=wall|cpu]]
 *   vublk-bench nbd URI [the same options but --direct and --rounds]
 *
 * See docs/PERFORMANCE.md for what it reports and how to read it.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "backend.h"
#include "cliopt.h"
#include "vublk_bench.h"

#define BENCH_MAX_IO (512 * 1024)	/* the daemon's request buffer */
#define BENCH_MAX_DEPTH 1024

enum bench_opt {
	OPT_PATTERN = 256, OPT_IO_SIZE, OPT_DEPTH, OPT_DIRECT, OPT_READAHEAD,
	OPT_CACHE_MB, OPT_VERIFY_THREAD, OPT_READ_IN_PLACE, OPT_SECONDS,
	OPT_BYTES, OPT_ROUNDS, OPT_PLOT, OPT_PLOT_LABEL, OPT_PLOT_RATE,
	OPT_HELP,
};

static const struct option bench_options[] = {
	{ "pattern", required_argument, NULL, OPT_PATTERN },
	{ "io-size", required_argument, NULL, OPT_IO_SIZE },
	{ "depth", required_argument, NULL, OPT_DEPTH },
	{ "direct", no_argument, NULL, OPT_DIRECT },
	{ "readahead", required_argument, NULL, OPT_READAHEAD },
	{ "cache-mb", required_argument, NULL, OPT_CACHE_MB },
	{ "verify-thread", required_argument, NULL, OPT_VERIFY_THREAD },
	{ "read-in-place", required_argument, NULL, OPT_READ_IN_PLACE },
	{ "seconds", required_argument, NULL, OPT_SECONDS },
	{ "bytes", required_argument, NULL, OPT_BYTES },
	{ "rounds", required_argument, NULL, OPT_ROUNDS },
	{ "plot", required_argument, NULL, OPT_PLOT },
	{ "plot-label", required_argument, NULL, OPT_PLOT_LABEL },
	{ "plot-rate", required_argument, NULL, OPT_PLOT_RATE },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

/* The options of the workload, for both modes' help. */
#define BENCH_USAGE_WORKLOAD \
"  --pattern=seq|rand  sequential (readahead-flagged, as the kernel's\n" \
"                      readahead would be) or random requests (default seq)\n" \
"  --io-size=N         bytes per request, up to 524288 (default 131072)\n" \
"  --depth=N           requests in flight (default 16)\n"
#define BENCH_USAGE_PLOT_RATE \
"  --plot-rate=wall|cpu  chart MB/s by wall clock (default) or per CPU second\n" \
"                      (steadier on a busy machine; one measure per chart)\n"
#define BENCH_USAGE_AMOUNT \
"  --cache-mb=N        tree cache size in MiB (the target's default)\n" \
"  --verify-thread=on|off|auto  hash on a thread beside the queue's (the\n" \
"                      target's default: auto, on for an NBD image)\n" \
"  --seconds=N         run this long, or\n" \
"  --bytes=N           read this many bytes (default: the whole device once)\n"

static const char bench_usage[] =
"Usage: vublk-bench verity IMAGE [OPTIONS]\n"
"Read a sealed image through the verity target's read path, in-process\n"
"(the daemon's code over a plain io_uring, no ublk), with a cold tree cache.\n"
BENCH_USAGE_WORKLOAD
"  --direct            read the image with O_DIRECT (default: page cache,\n"
"                      warmed before the run)\n"
"  --readahead=MODE    off, completion or submission (the target's default)\n"
"  --read-in-place=on|off  hash blocks of the page cache as they are copied\n"
"                      out of its map (the target's default: on, where it\n"
"                      can), or read them all\n"
BENCH_USAGE_AMOUNT
"  --rounds=N          measure N times in turn (each the verified read, the\n"
"                      unverified one and the limits) and report the medians:\n"
"                      each round's ratios are of the same moment\n"
"  --plot=FILE.svg     add the result to FILE.dat (replacing one of the same\n"
"                      label and mode) and draw them all with gnuplot: MB/s\n"
"                      and tree reads per GiB, per mode, grouped by label\n"
"  --plot-label=L      the result's group (default: page cache or O_DIRECT)\n"
BENCH_USAGE_PLOT_RATE
"Prints MB/s, tree reads per GiB, the share of blocks read in place (hashed\n"
"as they were copied out of a map of the page cache), and two single-core\n"
"limits over the same data with the ratios to them: raw SHA-256 (OpenSSL,\n"
"one block per call) and lib/merkle's own hashing (merkle_hash_blocks); each\n"
"by wall clock and by CPU time (steadier on a busy machine).  Then the same\n"
"requests through the loop target (the read without verification) and the\n"
"ratio to \"read + hashing\": that read's CPU time plus merkle_hash_blocks'\n"
"for the same bytes.\n"
"In page-cache mode the image's pages are dropped first (fadvise), then\n"
"read whole before each run.\n"
"The other modes: a sealed image on an NBD server, vublk-bench nbd URI\n"
"(see vublk-bench nbd --help); the pmem target's copy path, vublk-bench pmem\n"
"FILE (see vublk-bench pmem --help).\n";

static const char bench_nbd_usage[] =
"Usage: vublk-bench nbd URI [OPTIONS]\n"
"Read a sealed image on an NBD server (URI: nbd://..., nbd+unix://...)\n"
"in-process, unverified (the loop target, read-only) and then verified (the\n"
"verity target, a cold tree cache each run) with the same requests, in each\n"
"readahead mode or the one given: MB/s, IOPS, and the verified/unverified\n"
"ratio.\n"
BENCH_USAGE_WORKLOAD
"  --readahead=MODE    off, completion or submission (default: each in turn)\n"
BENCH_USAGE_AMOUNT
"  --plot=FILE.svg     add the results to FILE.dat (replacing those of the same\n"
"                      label and mode; the unverified run as mode unverified)\n"
"                      and draw them all with gnuplot: MB/s and tree reads\n"
"                      per GiB, per mode, grouped by label\n"
"  --plot-label=L      the results' group, such as the server's latency\n"
"                      (default: seq or rand)\n"
BENCH_USAGE_PLOT_RATE;

void bench_error(const char *fmt, ...)
{
	va_list ap;

	fputs("vublk-bench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int bench_getopt(int argc, char **argv, const struct option *opts)
{
	int before = optind, c;
	char why[160];

	opterr = 0;
	c = getopt_long(argc, argv, ":", opts, NULL);
	if (c != '?' && c != ':')
		return c;
	cliopt_error_text(why, sizeof(why), c, argv, before, opts);
	bench_error("%s (see --help)", why);
	return '?';
}

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

double bench_cpu_now(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

int bench_number(const char *opt, const char *s, uint64_t min,
		 uint64_t max, uint64_t *out)
{
	unsigned shift = 0;
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end == 'K' || *end == 'k')
		shift = 10, end++;
	else if (*end == 'M' || *end == 'm')
		shift = 20, end++;
	else if (*end == 'G' || *end == 'g')
		shift = 30, end++;
	/* A suffix must not shift the number past 64 bits. */
	if (v > UINT64_MAX >> shift)
		errno = ERANGE;
	v <<= shift;
	if (errno || end == s || *end || *s == '-' || v < min || v > max) {
		bench_error("bad %s value '%s': expected a whole number from %" PRIu64 " to %" PRIu64 " (K, M, G suffixes allowed)",
			    opt, s, min, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

const char *const bench_readahead_modes[] = { "off", "completion",
					     "submission", NULL };

/* arg as one of names (NULL-ended): its index, or -EINVAL after one line
 * that lists them. */
static int bench_keyword(const char *opt, const char *arg,
			 const char *const names[])
{
	char list[80] = "";
	int i;

	for (i = 0; names[i]; i++)
		if (!strcmp(arg, names[i]))
			return i;
	for (i = 0; names[i]; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
			 "%s%s", i ? (names[i + 1] ? ", " : " or ") : "",
			 names[i]);
	bench_error("bad %s value '%s': %s", opt, arg, list);
	return -EINVAL;
}

/* An option whose value is one of names, kept as given in *value (the
 * target's own option takes the same word). */
static int bench_keyword_value(const char *opt, const char *arg,
			       const char *const names[], const char **value)
{
	int k = bench_keyword(opt, arg, names);

	if (k >= 0)
		*value = arg;
	return k < 0 ? k : 0;
}

static int bench_parse_one(struct bench_args *a, int opt, const char *arg)
{
	static const char *const patterns[] = { "seq", "rand", NULL };
	static const char *const thread_modes[] = { "on", "off", "auto",
						    NULL };
	static const char *const rates[] = { "wall", "cpu", NULL };
	static const char *const on_off[] = { "on", "off", NULL };
	uint64_t v;
	int k;

	switch (opt) {
	case OPT_PATTERN:
		k = bench_keyword("--pattern", arg, patterns);
		if (k < 0)
			return k;
		a->pattern = k ? BENCH_RAND : BENCH_SEQ;
		return 0;
	case OPT_IO_SIZE:
		if (bench_number("--io-size", arg, 512, BENCH_MAX_IO, &v))
			return -EINVAL;
		/* A request is whole sectors on any device: said before the
		 * target is set up (the device's own block, later). */
		if (v % 512) {
			bench_error("bad --io-size value '%s': not a multiple of 512 bytes",
				    arg);
			return -EINVAL;
		}
		a->io_size = (uint32_t)v;
		return 0;
	case OPT_DEPTH:
		if (bench_number("--depth", arg, 1, BENCH_MAX_DEPTH, &v))
			return -EINVAL;
		a->depth = (unsigned)v;
		return 0;
	case OPT_DIRECT:
		a->direct = true;
		return 0;
	case OPT_READAHEAD:
		return bench_keyword_value("--readahead", arg, bench_readahead_modes,
					   &a->readahead);
	case OPT_CACHE_MB:
		/* The verity target's range (--cache-mb, in MiB). */
		return bench_number("--cache-mb", arg, 1, 1 << 20,
				    &a->cache_mb);
	case OPT_VERIFY_THREAD:
		return bench_keyword_value("--verify-thread", arg, thread_modes,
					   &a->verify_thread);
	case OPT_READ_IN_PLACE:
		return bench_keyword_value("--read-in-place", arg, on_off,
					   &a->read_in_place);
	case OPT_SECONDS:
		return bench_number("--seconds", arg, 1, 86400, &a->seconds);
	case OPT_BYTES:
		return bench_number("--bytes", arg, 1, UINT64_MAX >> 1,
				    &a->bytes);
	case OPT_ROUNDS:
		return bench_number("--rounds", arg, 1, 1000, &a->rounds);
	case OPT_PLOT:
		a->plot = arg;
		return 0;
	case OPT_PLOT_LABEL:
		a->plot_label = arg;
		return 0;
	case OPT_PLOT_RATE:
		k = bench_keyword("--plot-rate", arg, rates);
		if (k < 0)
			return k;
		a->plot_cpu = k == 1;
		a->plot_rate = true;
		return 0;
	default:
		return -EINVAL;
	}
}

static int bench_parse(struct bench_args *a, int argc, char **argv)
{
	int opt;

	while ((opt = bench_getopt(argc, argv, bench_options)) != -1) {
		if (opt == OPT_HELP) {
			/* The mode's help, as `vublk-bench pmem --help`:
			 * the mode is the first word. */
			fputs(argc > 1 && !strcmp(argv[1], "nbd") ?
			      bench_nbd_usage : bench_usage, stdout);
			exit(0);
		}
		if (opt == '?' || bench_parse_one(a, opt, optarg))
			return -EINVAL;
	}
	if (a->seconds && a->bytes) {
		bench_error("--seconds and --bytes given: give one of them");
		return -EINVAL;
	}
	if ((a->plot_label || a->plot_rate) && !a->plot) {
		bench_error("--plot-%s without --plot: give the chart's file too",
			    a->plot_label ? "label" : "rate");
		return -EINVAL;
	}
	if (a->plot && bench_plot_check(a->plot, a->plot_label))
		return -EINVAL;
	if (optind + 2 != argc || (strcmp(argv[optind], "verity") &&
				   strcmp(argv[optind], "nbd"))) {
		bench_error("expected: vublk-bench verity IMAGE or nbd URI [OPTIONS] (see --help)");
		return -EINVAL;
	}
	a->nbd = !strcmp(argv[optind], "nbd");
	if (a->nbd != vublk_backend_is_nbd_uri(argv[optind + 1])) {
		bench_error(a->nbd ? "'%s' is not an NBD URI (nbd://..., nbd+unix://...): a local image is vublk-bench verity IMAGE" :
				     "'%s' is an NBD URI: vublk-bench nbd URI reads it",
			    argv[optind + 1]);
		return -EINVAL;
	}
	if (a->nbd && a->rounds) {
		bench_error("--rounds repeats vublk-bench verity's measures: not with nbd");
		return -EINVAL;
	}
	if (a->nbd && a->direct) {
		bench_error("--direct reads a local image with O_DIRECT: not with nbd");
		return -EINVAL;
	}
	a->image = argv[optind + 1];
	return 0;
}

int main(int argc, char **argv)
{
	struct bench_args a = { .pattern = BENCH_SEQ, .io_size = 131072,
				.depth = 16 };

	if (argc > 1 && !strcmp(argv[1], "pmem"))
		return bench_pmem(argc - 1, argv + 1);	/* bench_pmem.c */
	if (bench_parse(&a, argc, argv))
		return 2;
	return a.nbd ? bench_nbd(&a) : bench_verity(&a);
}
