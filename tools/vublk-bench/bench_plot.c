// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_plot.c - `--plot=FILE.svg`: draw the results with gnuplot.
 *
 * One run measures one readahead mode under one condition (the page
 * cache or O_DIRECT, or a latency that a benchmark script sets up; `nbd`
 * adds its unverified run as the mode "unverified"); a chart compares
 * several.  So each run adds its result to FILE.dat, next
 * to FILE.svg, replacing an earlier result of the same label and mode,
 * and redraws the chart from all of them: FILE.gp, the gnuplot input
 * (the data inline, so that it stands alone), then `gnuplot FILE.gp`.
 * Two charts, one per measure: MB/s (wall clock: what latency changes)
 * and tree reads per GiB, bars per mode with their values on top,
 * grouped by label, a mode's colour the same in every chart.
 *
 * FILE.dat: one result per line, "LABEL<TAB>MODE<TAB>MB/s<TAB>reads per
 * GiB<TAB>wall|cpu", in the order they were first added (the charts'
 * order); the last field says what MB/s is per (--plot-rate: wall clock,
 * what latency changes, or CPU second, steadier on a busy host), the
 * same on every line: a chart has one measure.  A line without it (an
 * earlier vublk-bench's) is wall clock.
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
	bool cpu;			/* mbps per CPU second, not wall clock */
};

struct plot {
	struct plot_result r[PLOT_MAX_RESULTS];
	unsigned n;
	char svg[4096], dat[4096], gp[4096];
	const char *title;	/* the charts' common title */
};

/*
 * The chart's directory takes new files: found before the run, not after
 * it.  A file is made and removed there, since access(2) says yes to root
 * where a write would still fail (/proc, a read-only mount).
 */
static int plot_check_dir(const char *svg)
{
	const char *slash = strrchr(svg, '/');
	int len = slash ? (slash == svg ? 1 : (int)(slash - svg)) : 1;
	char probe[4200];
	int fd, err;

	snprintf(probe, sizeof(probe), "%.*s/.vublk-bench-plot.XXXXXX", len,
		 slash ? svg : ".");
	fd = mkstemp(probe);
	if (fd >= 0) {
		close(fd);
		unlink(probe);
		return 0;
	}
	err = errno;
	bench_error("bad --plot value '%s': cannot write in %.*s: %s", svg,
		    len, slash ? svg : ".", strerror(err));
	return -err;
}

int bench_plot_check(const char *svg, const char *label)
{
	size_t n = strlen(svg);
	const char *p;

	if (n < 5 || strcmp(svg + n - 4, ".svg") || n > 4000) {
		bench_error("bad --plot value '%s': give the chart's file name, ending in .svg",
			    svg);
		return -EINVAL;
	}
	if (plot_check_dir(svg))
		return -EINVAL;
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
	char line[256], rate[8];
	struct plot_result *r;
	int n;

	if (!f && errno == ENOENT)
		return 0;	/* the first result */
	if (!f) {
		bench_error("cannot read %s: %s", pl->dat, strerror(errno));
		return -errno;
	}
	while (fgets(line, sizeof(line), f)) {
		r = &pl->r[pl->n];
		strcpy(rate, "wall");
		n = pl->n == PLOT_MAX_RESULTS ? 0 :
			sscanf(line, "%39[^\t]\t%31[^\t]\t%lf\t%lf\t%7[a-z]", r->label,
			       r->mode, &r->mbps, &r->tree_reads_per_gib, rate);
		r->cpu = !strcmp(rate, "cpu");
		if ((n != 4 && n != 5) || (!r->cpu && strcmp(rate, "wall"))) {
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
	if (pl->n && pl->r[0].cpu != res->cpu) {
		bench_error("%s holds MB/s %s: one chart, one measure; give --plot-rate=%s or delete it to start a new chart",
			    pl->dat, pl->r[0].cpu ? "per CPU second" : "by wall clock",
			    pl->r[0].cpu ? "cpu" : "wall");
		return -EINVAL;
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
		fprintf(f, "%s\t%s\t%.1f\t%.1f\t%s\n", pl->r[i].label,
			pl->r[i].mode, pl->r[i].mbps,
			pl->r[i].tree_reads_per_gib, pl->r[i].cpu ? "cpu" : "wall");
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

/* The result of label and mode, or NULL where that pair was not measured. */
static const struct plot_result *plot_find(const struct plot *pl,
					   const char *label, const char *mode)
{
	for (unsigned i = 0; i < pl->n; i++)
		if (!strcmp(pl->r[i].label, label) && !strcmp(pl->r[i].mode, mode))
			return &pl->r[i];
	return NULL;
}

/* One inline data block: a row per label, a column per mode ("?" where
 * that pair was not measured). */
static void plot_fill_block(FILE *f, const struct plot *pl, const char *name,
			    bool tree, const char **labels, unsigned nl,
			    const char **modes, unsigned nm)
{
	fprintf(f, "$%s << EOD\nlabel", name);
	for (unsigned m = 0; m < nm; m++)
		fprintf(f, "\t%s", modes[m]);
	for (unsigned l = 0; l < nl; l++) {
		fprintf(f, "\n%s", labels[l]);
		for (unsigned m = 0; m < nm; m++) {
			const struct plot_result *r = plot_find(pl, labels[l],
								modes[m]);

			if (!r)
				fputs("\t?", f);
			else
				fprintf(f, "\t%.1f", tree ? r->tree_reads_per_gib :
					r->mbps);
		}
	}
	fprintf(f, "\nEOD\n");
}

/* A mode's colour, the same in every chart (NULL: gnuplot's next). */
static const char *plot_colour(const char *mode)
{
	static const char *const colours[][2] = {
		{ "unverified", "#a0a0a0" }, { "off", "#d95f02" },
		{ "completion", "#1b9e77" }, { "submission", "#386cb0" },
	};

	for (unsigned i = 0; i < sizeof(colours) / sizeof(colours[0]); i++)
		if (!strcmp(mode, colours[i][0]))
			return colours[i][1];
	return NULL;
}

/* One of the two charts: its value on top of each bar (where gnuplot's
 * clustered histogram puts it: bar m of nm in group l is centred at
 * l + (m - (nm - 1) / 2) / (nm + gap), gap 1), then a bar per mode. */
static void plot_fill_chart(FILE *f, const struct plot *pl, const char *block,
			    bool tree, const char **labels, unsigned nl,
			    const char **modes, unsigned nm)
{
	fprintf(f, "unset label\n");
	for (unsigned l = 0; l < nl; l++)
		for (unsigned m = 0; m < nm; m++) {
			const struct plot_result *r = plot_find(pl, labels[l],
								modes[m]);

			if (r)
				fprintf(f, "set label \"%.0f\" at %.4f,%.1f center offset 0,0.7 font \",9\"\n",
					tree ? r->tree_reads_per_gib : r->mbps,
					l + (m - (nm - 1) / 2.0) / (nm + 1.0),
					tree ? r->tree_reads_per_gib : r->mbps);
		}
	fprintf(f, "plot");
	for (unsigned m = 0; m < nm; m++) {
		const char *c = plot_colour(modes[m]);

		fprintf(f, "%s $%s using %u:xtic(1) title columnheader(%u)",
			m ? ", \\\n    " : "", block, m + 2, m + 2);
		if (c)
			fprintf(f, " lc rgb \"%s\"", c);
	}
	fprintf(f, "\n");
}

static void plot_fill_gp(FILE *f, const struct plot *pl)
{
	const char *labels[PLOT_MAX_RESULTS], *modes[PLOT_MAX_MODES];
	unsigned nl = plot_distinct(pl, false, labels, PLOT_MAX_RESULTS);
	unsigned nm = plot_distinct(pl, true, modes, PLOT_MAX_MODES);
	/* Side by side, or one above the other where the groups' labels
	 * and values would not fit in half the width. */
	bool stacked = nl > 2;

	fprintf(f,
		"# vublk-bench --plot: the results of %s, drawn into the chart\n"
		"# (gnuplot %s)\n"
		"set terminal svg size 1000,%u dynamic noenhanced font \"sans,12\"\n"
		"set output \"%s\"\n"
		"set datafile separator \"\\t\"\n"
		"set datafile missing \"?\"\n"
		"set style data histograms\n"
		"set style histogram clustered gap 1\n"
		"set style fill solid 0.9 border -1\n"
		"set xrange [-0.6:%.1f]\n"
		"set yrange [0:*]\n"
		"set offsets 0, 0, graph 0.08, 0\n"
		"set xtics nomirror scale 0\n"
		"set ytics nomirror\n"
		"set border 3\n"
		"set grid ytics\n"
		"set bmargin %u\n"
		"set key at screen 0.5, screen 0.02 center bottom horizontal maxrows 1 maxcols 8 reverse Left samplen 1.5 width -1\n",
		pl->dat, pl->gp, stacked ? 760 : 460, pl->svg, nl - 0.4,
		stacked ? 3 : 5);
	plot_fill_block(f, pl, "rate", false, labels, nl, modes, nm);
	plot_fill_block(f, pl, "tree", true, labels, nl, modes, nm);
	fprintf(f,
		"set multiplot layout %s title \"%s\"\n"
		"set title \"throughput\"\n"
		"set ylabel \"%s\"\n",
		stacked ? "2,1" : "1,2", pl->title, pl->r[0].cpu ? "MB/s per CPU second" : "MB/s (wall clock)");
	plot_fill_chart(f, pl, "rate", false, labels, nl, modes, nm);
	fprintf(f,
		"unset key\n"
		"set bmargin 5\n"
		"set title \"tree reads\"\n"
		"set ylabel \"tree reads per GiB read\"\n");
	plot_fill_chart(f, pl, "tree", true, labels, nl, modes, nm);
	fprintf(f, "unset multiplot\n");
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

/* v as FILE.dat holds it and the report prints it ("%.1f"), so that the
 * bars, the values written on them and the data are the same numbers. */
static double plot_round(double v)
{
	char text[64];

	snprintf(text, sizeof(text), "%.1f", v);
	return strtod(text, NULL);
}

int bench_plot_result(const char *svg, const char *title, const char *label,
		      const char *mode, double mbps, bool cpu,
		      double tree_reads_per_gib)
{
	struct plot *pl = calloc(1, sizeof(*pl));
	struct plot_result res = { .mbps = plot_round(mbps), .cpu = cpu,
				   .tree_reads_per_gib =
					plot_round(tree_reads_per_gib) };
	size_t base = strlen(svg) - 4;		/* without ".svg" */
	int status = 1;

	if (!pl) {
		bench_error("out of memory for the chart");
		return 1;
	}
	snprintf(res.label, sizeof(res.label), "%s", label);
	snprintf(res.mode, sizeof(res.mode), "%s", mode);
	pl->title = title;
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
