/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vublk_bench.h - shared by the files of vublk-bench (not a library
 * header).  vublk-bench runs a target's read path in-process, with the
 * daemon's own target code over daemon/inproc_queue, no kernel involved.
 */
#ifndef VUBLK_BENCH_H
#define VUBLK_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "inproc_queue.h"
#include "merkle.h"

struct option;

enum bench_pattern { BENCH_SEQ, BENCH_RAND };

struct bench_args {
	const char *image;		/* or the URI, for nbd */
	bool nbd;			/* vublk-bench nbd */
	enum bench_pattern pattern;
	uint32_t io_size;		/* bytes per request */
	unsigned depth;			/* requests in flight */
	bool direct;			/* O_DIRECT instead of the page cache */
	const char *readahead;		/* off, completion, submission;
					 * NULL: the target's default */
	uint64_t cache_mb;		/* 0: the target's default */
	const char *verify_thread;	/* on, off, auto; NULL: default */
	const char *read_in_place;	/* on, off; NULL: default (verity) */
	uint64_t seconds;		/* stop after this long, or */
	uint64_t bytes;			/* after this many bytes (0: unset) */
	uint64_t rounds;		/* verity: --rounds (0: unset, one) */
	const char *plot;		/* --plot=FILE.svg, or NULL */
	const char *plot_label;		/* NULL: the I/O (page cache...) */
	bool plot_rate;			/* --plot-rate given */
	bool plot_cpu;			/* --plot-rate=cpu */
};

/* bench_run.c: one target's read path in-process (see the file). */
struct bench_target {
	const struct vublk_tgt_ops *ops;
	const char *path;		/* -f: a file, or a URI */
	const char *const *opts;	/* "name=value" or "name"; NULL-ended */
	bool read_only;
	uint64_t size;			/* bytes the requests cover from 0;
					 * 0: the whole device */
};

struct bench_run {
	struct bench_args args;		/* --bytes defaults to the device */
	const struct bench_args *a;	/* &args */
	struct vublk_tgt tgt;
	struct inproc_queue iq;
	bool queue_ready;
	uint8_t *bufs;			/* depth x io_size */
	uint64_t size;			/* bytes the requests cover */
	uint64_t next_off;		/* seq */
	uint64_t rng;			/* rand: xorshift state */
	uint64_t issued, done;		/* bytes */
	uint64_t requests, errors;	/* completed, of which failed */
	double start, cpu_start;
	double elapsed, cpu;		/* of the loop, once it ran */
};

/* Set up the target of bt and its queue for the workload a; 0, or -errno
 * after saying why (nothing left to close). */
int bench_run_open(struct bench_run *r, const struct bench_args *a,
		   const struct bench_target *bt);
/* Keep the queue full until the workload is done; 0 or -errno. */
int bench_run_loop(struct bench_run *r);
void bench_run_close(struct bench_run *r);

/* "vublk-bench: <message>" on stderr. */
void bench_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A whole number in [min, max] with an optional K/M/G suffix, into *out;
 * else -EINVAL after one line naming opt and the value. */
int bench_number(const char *opt, const char *s, uint64_t min, uint64_t max,
		 uint64_t *out);

/* getopt_long() over long options only, saying in one line what it
 * refused (then '?'); -1 at the end, else the option's value. */
int bench_getopt(int argc, char **argv, const struct option *opts);

/* The verity target's tree readahead modes, NULL-ended (--readahead). */
extern const char *const bench_readahead_modes[];

/* bench_verity.c: run the verity benchmark; returns the exit status. */
int bench_verity(const struct bench_args *a);

/* The verity target's options for one run (struct bench_target.opts). */
struct bench_verity_opts {
	const char *v[6];	/* NULL-ended */
	char readahead[32], cache_mb[32], verify_thread[32];
	char read_in_place[32];
};
/* Fill o: direct if a says so, readahead=MODE (NULL: the target's
 * default), then the tuning the user gave (cache-mb, verify-thread,
 * read-in-place), all checked when parsed, so that they fit. */
void bench_verity_opts_fill(struct bench_verity_opts *o,
			    const struct bench_args *a, const char *readahead);

/* bench_nbd.c: verified and unverified reads of one NBD export; returns
 * the exit status. */
int bench_nbd(const struct bench_args *a);

/* bench_pmem.c: `vublk-bench pmem FILE [OPTIONS]` (argv[0] is "pmem");
 * returns the exit status. */
int bench_pmem(int argc, char **argv);

/* A throughput in bytes per second, by wall clock and by CPU time. */
struct bench_rate {
	double wall;
	double cpu;
};

/*
 * bench_sha.c: single-core throughput over bytes bytes of the image's
 * data (read outside the timed part) of raw SHA-256 (OpenSSL, one block
 * per call; {0, 0} unless the image's hash is SHA-256) and of
 * merkle_hash_blocks().  0, or -errno (after printing why, except for
 * -ERANGE: too little data to time).
 */
int bench_sha_limits(int fd, const struct merkle_params *p,
		     uint64_t data_size, uint64_t bytes,
		     struct bench_rate *raw, struct bench_rate *merkle);

/*
 * bench_plot.c: --plot=FILE.svg.  bench_plot_check(): whether the file
 * name and the label (NULL: none given) will do; 0 or -EINVAL after one
 * line.  bench_plot_result(): add one run's result (label, readahead
 * mode or "unverified", MB/s by wall clock or with cpu per CPU second,
 * tree reads per GiB) to FILE.dat and draw FILE.svg with gnuplot under
 * title; 0, or 1 after one line (gnuplot missing or failing, a FILE.dat
 * of the other measure included).
 */
#define BENCH_PLOT_LABEL_MAX 40
int bench_plot_check(const char *svg, const char *label);
int bench_plot_result(const char *svg, const char *title, const char *label,
		      const char *mode, double mbps, bool cpu,
		      double tree_reads_per_gib);

/* Monotonic seconds. */
double bench_now(void);
/* CPU seconds (user + system) used by this process, all its threads
 * (io_uring's workers included). */
double bench_cpu_now(void);

#endif /* VUBLK_BENCH_H */
