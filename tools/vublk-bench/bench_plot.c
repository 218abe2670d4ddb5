// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_plot.c - `--plot=FILE.svg`: draw the results with gnuplot.
 *
 * One run measures one readahead mode under one condition (the page
 * cache or O_DIRECT, or a latency that a benchmark script sets up); a
 * chart compares several.  So each run adds its result to FILE.dat, next
 * to FILE.svg, replacing an earlier result of the same label and mode,
 * and redraws the chart from all of them: FILE.gp, the gnuplot input
 * (the data inline, so that it stands alone), then `gnuplot FILE.gp`.
 * Two charts, one per measure: verified MB/s (wall clock: what latency
 * changes) and tree reads per GiB, bars per mode, grouped by label.
 *
 * FILE.dat: one result per line, "LABEL<TAB>MODE<TAB>MB/s<TAB>reads per
 * GiB", in the order they were first added (the charts' order).
 */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vublk_bench.h"

#define PLOT_MAX_RESULTS 64
#define PLOT_MAX_MODES 8
/* The widths in plot_read()'s sscanf format. */
_Static_assert(BENCH_PLOT_LABEL_MAX == 40, "plot_read() reads %39[^\\t]");
#define PLOT_MODE_MAX 32

struct plot_result {
	char label[BENCH_PLOT_LABEL_MAX];
	char mode[PLOT_MODE_MAX];
	double mbps;
	double tree_reads_per_gib;
};

struct plot {
	struct plot_result r[PLOT_MAX_RESULTS];
	unsigned n;
	char svg[4096], dat[4096], gp[4096];
};

int bench_plot_check(const char *svg, const char *label)
{
	size_t n = strlen(svg);
	const char *p;

	if (n < 5 || strcmp(svg + n - 4, ".svg") || n > 4000) {
		bench_error("bad --plot value '%s': give the chart's file name, ending in .svg",
			    svg);
		return -EINVAL;
	}
	if (!label)
		return 0;
	for (p = label; *p && *p >= ' ' && *p != '"' && *p != '\\' && *p != 127;
	     p++)
		;
	if (!*label || *p || p - label >= BENCH_PLOT_LABEL_MAX) {
		bench_error("bad --plot-label value '%s': 1 to %d printable characters, no quote or backslash",
			    label, BENCH_PLOT_LABEL_MAX - 1);
		return -EINVAL;
	}
	return 0;
}

/* The earlier results, if any; 0 or -errno after one line. */
static int plot_read(struct plot *pl)
{
	FILE *f = fopen(pl->dat, "re");
	char line[256];
	struct plot_result *r;

	if (!f && errno == ENOENT)
		return 0;	/* the first result */
	if (!f) {
		bench_error("cannot read %s: %s", pl->dat, strerror(errno));
		return -errno;
	}
	while (fgets(line, sizeof(line), f)) {
		r = &pl->r[pl->n];
		if (pl->n == PLOT_MAX_RESULTS ||
		    sscanf(line, "%39[^\t]\t%31[^\t]\t%lf\t%lf", r->label, r->mode,
			   &r->mbps, &r->tree_reads_per_gib) != 4) {
			bench_error("%s, line %u: not a result of vublk-bench --plot (or more than %d results): delete it to start a new chart",
				    pl->dat, pl->n + 1, PLOT_MAX_RESULTS);
			fclose(f);
			return -EINVAL;
		}
		pl->n++;
	}
	fclose(f);
	return 0;
}

/* Put res in place of the result of the same label and mode, or last. */
static int plot_add(struct plot *pl, const struct plot_result *res)
{
	unsigned i;

	for (i = 0; i < pl->n; i++)
		if (!strcmp(pl->r[i].label, res->label) &&
		    !strcmp(pl->r[i].mode, res->mode))
			break;
	if (i == PLOT_MAX_RESULTS) {
		bench_error("%s holds %d results already: delete it to start a new chart",
			    pl->dat, PLOT_MAX_RESULTS);
		return -E2BIG;
	}
	pl->r[i] = *res;
	if (i == pl->n)
		pl->n++;
	return 0;
}

/* Write path whole (path.tmp renamed over it); 0 or -errno after a line. */
static int plot_write(const char *path, void (*fill)(FILE *, const struct plot *),
		      const struct plot *pl)
{
	char tmp[4200];
	FILE *f;
	int err = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "we");
	if (!f) {
		bench_error("cannot write %s: %s", tmp, strerror(errno));
		return -errno;
	}
	fill(f, pl);
	if (ferror(f)) {
		fclose(f);
		err = -EIO;
	} else if (fclose(f) || rename(tmp, path)) {
		err = -errno;
	}
	if (err) {
		bench_error("cannot write %s: %s", path, strerror(-err));
		unlink(tmp);
	}
	return err;
}

static void plot_fill_dat(FILE *f, const struct plot *pl)
{
	for (unsigned i = 0; i < pl->n; i++)
		fprintf(f, "%s\t%s\t%.1f\t%.1f\n", pl->r[i].label,
			pl->r[i].mode, pl->r[i].mbps,
			pl->r[i].tree_reads_per_gib);
}

/* Distinct labels (or modes) in order of first appearance. */
static unsigned plot_distinct(const struct plot *pl, bool modes,
			      const char **out, unsigned max)
{
	unsigned n = 0, i, j;

	for (i = 0; i < pl->n; i++) {
		const char *s = modes ? pl->r[i].mode : pl->r[i].label;

		for (j = 0; j < n && strcmp(out[j], s); j++)
			;
		if (j == n && n < max)
			out[n++] = s;
	}
	return n;
}

/* One inline data block: a row per label, a column per mode ("?" where
 * that pair was not measured). */
static void plot_fill_block(FILE *f, const struct plot *pl, const char *name,
			    bool tree)
{
	const char *labels[PLOT_MAX_RESULTS], *modes[PLOT_MAX_MODES];
	unsigned nl = plot_distinct(pl, false, labels, PLOT_MAX_RESULTS);
	unsigned nm = plot_distinct(pl, true, modes, PLOT_MAX_MODES);

	fprintf(f, "$%s << EOD\nlabel", name);
	for (unsigned m = 0; m < nm; m++)
		fprintf(f, "\t%s", modes[m]);
	for (unsigned l = 0; l < nl; l++) {
		fprintf(f, "\n%s", labels[l]);
		for (unsigned m = 0; m < nm; m++) {
			unsigned i;

			for (i = 0; i < pl->n; i++)
				if (!strcmp(pl->r[i].label, labels[l]) &&
				    !strcmp(pl->r[i].mode, modes[m]))
					break;
			if (i == pl->n)
				fputs("\t?", f);
			else
				fprintf(f, "\t%.1f", tree ?
					pl->r[i].tree_reads_per_gib :
					pl->r[i].mbps);
		}
	}
	fprintf(f, "\nEOD\n");
}

static void plot_fill_gp(FILE *f, const struct plot *pl)
{
	fprintf(f,
		"# vublk-bench --plot: the results of %s, drawn into the chart\n"
		"# (gnuplot %s)\n"
		"set terminal svg size 1000,420 dynamic noenhanced font \"sans,11\"\n"
		"set output \"%s\"\n"
		"set datafile separator \"\\t\"\n"
		"set datafile missing \"?\"\n"
		"set style data histograms\n"
		"set style histogram clustered gap 1\n"
		"set style fill solid 0.85 border -1\n"
		"set key below\n"
		"set yrange [0:*]\n"
		"set grid ytics\n",
		pl->dat, pl->gp, pl->svg);
	plot_fill_block(f, pl, "rate", false);
	plot_fill_block(f, pl, "tree", true);
	fprintf(f,
		"set multiplot layout 1,2 title \"vublk-bench verity: by readahead mode\"\n"
		"set title \"verified read, MB/s (wall clock)\"\n"
		"plot for [m=2:*] $rate using m:xtic(1) title columnheader(m)\n"
		"set title \"tree reads per GiB\"\n"
		"plot for [m=2:*] $tree using m:xtic(1) title columnheader(m)\n"
		"unset multiplot\n");
}

/* gnuplot FILE.gp; 0, or 1 after one line (also when there is none). */
static int plot_draw(const struct plot *pl)
{
	char *argv[] = { "gnuplot", (char *)pl->gp, NULL };
	int status, err;
	pid_t pid;

	err = posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ);
	if (err == ENOENT) {
		bench_error("gnuplot is not installed: %s not drawn; its input is %s (apt-get install gnuplot-nox, then: gnuplot %s)",
			    pl->svg, pl->gp, pl->gp);
		return 1;
	}
	if (err || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		bench_error("gnuplot %s failed (%s): %s not drawn", pl->gp,
			    err ? strerror(err) : "see its message above",
			    pl->svg);
		return 1;
	}
	printf("chart:          %s (%u results; data %s)\n", pl->svg, pl->n,
	       pl->dat);
	return 0;
}

int bench_plot_result(const char *svg, const char *label, const char *mode,
		      double mbps, double tree_reads_per_gib)
{
	struct plot *pl = calloc(1, sizeof(*pl));
	struct plot_result res = { .mbps = mbps,
				   .tree_reads_per_gib = tree_reads_per_gib };
	size_t base = strlen(svg) - 4;		/* without ".svg" */
	int status = 1;

	if (!pl) {
		bench_error("out of memory for the chart");
		return 1;
	}
	snprintf(res.label, sizeof(res.label), "%s", label);
	snprintf(res.mode, sizeof(res.mode), "%s", mode);
	snprintf(pl->svg, sizeof(pl->svg), "%s", svg);
	snprintf(pl->dat, sizeof(pl->dat), "%.*s.dat", (int)base, svg);
	snprintf(pl->gp, sizeof(pl->gp), "%.*s.gp", (int)base, svg);
	if (!plot_read(pl) && !plot_add(pl, &res) &&
	    !plot_write(pl->dat, plot_fill_dat, pl) &&
	    !plot_write(pl->gp, plot_fill_gp, pl))
		status = plot_draw(pl);
	free(pl);
	return status;
}
