// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_add.c - `vublk add`: parse, start a server, report its device.
 *
 * Like ublksrv's `ublk add`, the server detaches by default: the command
 * forks; the child starts a new session, sends its stdout/stderr to a log
 * file and runs the server, while the parent waits on a pipe for one of:
 *   "ID n TOKEN"    ADD_DEV gave id n to the device of TOKEN (hex; the
 *                   child owns the device now)
 *   "ERR message"   an error line
 *   "LIVE /dev/ublkbN"  the device is live: print it and exit 0
 * EOF without LIVE means the server failed: print its error and exit 1.
 * The server deletes whatever it created on failure; should it die
 * without doing so, the parent removes the announced device itself, but
 * only if id n still names the device of TOKEN: once the server deleted
 * it, the kernel may have given n to someone else's new device.
 *
 * `vublk recover` (cmd_recover.c) runs the same way through
 * vublk_add_recover(): the server re-attaches to an existing device, logs
 * to the device's log (appending), and the device is never removed by
 * the waiting parent: it is the user's, with the I/O that waits on it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "cliopt.h"
#include "runfile.h"
#include "server.h"
#include "targets.h"
#include "ublk_ctrl.h"

#define ADD_DEFAULT_DEPTH 128
/*
 * Per-tag buffer, hence the device's max_sectors.  1 MiB as the kernel's
 * selftest server (kublk) uses: with ublksrv's 512 KiB every 1 MiB read
 * was split in two requests, and one 1 MiB request measured 1.15-1.40x
 * the throughput in the VM lab (docs/PERFORMANCE.md, loop section).  The
 * buffers are anonymous mappings: untouched pages cost no memory.
 */
#define ADD_MAX_IO_BYTES (1024 * 1024)

enum add_opt {
	ADD_OPT_READ_ONLY = 1,
	ADD_OPT_FOREGROUND,
	ADD_OPT_RECOVERY,
	ADD_OPT_ZERO_COPY,
	ADD_OPT_NAME,
};

/* --recovery=MODE and what each asks of the driver at ADD_DEV. */
static const struct {
	const char *name;
	uint64_t flags;
} add_recovery_modes[] = {
	{ "none", 0 },
	/* I/O waits while there is no server; what the dead server had
	 * taken fails (ublk_drv.c: ublk_nosrv_dev_should_queue_io()). */
	{ "queue", UBLK_F_USER_RECOVERY },
	/* ... and what it had taken is requeued for the next server
	 * (ublk_nosrv_should_reissue_outstanding()). */
	{ "reissue", UBLK_F_USER_RECOVERY | UBLK_F_USER_RECOVERY_REISSUE },
	/* I/O fails while there is no server (Linux 6.13+). */
	{ "fail", UBLK_F_USER_RECOVERY | UBLK_F_USER_RECOVERY_FAIL_IO },
};
#define ADD_NR_RECOVERY_MODES \
	(sizeof(add_recovery_modes) / sizeof(add_recovery_modes[0]))

const char *vublk_recovery_name(uint64_t flags)
{
	uint64_t mask = UBLK_F_USER_RECOVERY | UBLK_F_USER_RECOVERY_REISSUE |
			UBLK_F_USER_RECOVERY_FAIL_IO;
	size_t i;

	for (i = 0; i < ADD_NR_RECOVERY_MODES; i++)
		if (add_recovery_modes[i].flags == (flags & mask))
			return add_recovery_modes[i].name;
	return "unknown";
}

static int add_parse_recovery(const char *arg, uint64_t *flags)
{
	size_t i;

	for (i = 0; i < ADD_NR_RECOVERY_MODES; i++) {
		if (!strcmp(arg, add_recovery_modes[i].name)) {
			*flags = add_recovery_modes[i].flags;
			return 0;
		}
	}
	vublk_error("add: bad --recovery value '%s': expected queue (the same as -r), reissue, fail or none",
		    arg);
	return -EINVAL;
}

static int add_parse_zero_copy(const char *arg, enum vublk_zero_copy *mode)
{
	if (!strcmp(arg, "auto"))
		*mode = VUBLK_ZERO_COPY_AUTO;
	else if (!strcmp(arg, "on"))
		*mode = VUBLK_ZERO_COPY_ON;
	else if (!strcmp(arg, "off"))
		*mode = VUBLK_ZERO_COPY_OFF;
	else {
		vublk_error("add: bad --zero-copy value '%s': expected auto, on or off",
			    arg);
		return -EINVAL;
	}
	return 0;
}

struct add_args {
	const struct vublk_tgt_ops *ops;
	struct vublk_tgt tgt;
	const char *file;
	char file_abs[PATH_MAX];
	unsigned dev_id;
	unsigned nr_queues;
	unsigned depth;
	bool foreground;
	uint64_t recovery_flags;	/* UBLK_F_USER_RECOVERY* */
	enum vublk_zero_copy zero_copy;
	const char *name;		/* --name, or NULL (name.c) */
	char target_args[1024];
	/* `vublk recover`: the device to take over and its log. */
	bool recover;
	const char *recover_log;
};

/* What the server reports back, through the pipe or to the terminal. */
struct add_report {
	int fd;				/* pipe to the parent, -1 foreground */
	const struct add_args *args;
	char log_path[PATH_MAX];	/* "" in the foreground */
	char stats_path[PATH_MAX];	/* set once the id is known */
	char control_path[PATH_MAX];	/* likewise */
	unsigned dev_id;
	uint64_t token;			/* the device's (server.h) */
	bool live;
};

static const struct option add_core_options[] = {
	{ "type", required_argument, NULL, 't' },
	{ "file", required_argument, NULL, 'f' },
	{ "number", required_argument, NULL, 'n' },
	{ "queues", required_argument, NULL, 'q' },
	{ "depth", required_argument, NULL, 'd' },
	{ "read-only", no_argument, NULL, ADD_OPT_READ_ONLY },
	{ "foreground", no_argument, NULL, ADD_OPT_FOREGROUND },
	{ "recovery", optional_argument, NULL, ADD_OPT_RECOVERY },
	{ "zero-copy", required_argument, NULL, ADD_OPT_ZERO_COPY },
	{ "name", required_argument, NULL, ADD_OPT_NAME },
	{ "help", no_argument, NULL, 'h' },
};
#define ADD_NR_CORE_OPTIONS (sizeof(add_core_options) / sizeof(add_core_options[0]))

/* The short options of add, for both passes. */
#define ADD_SHORT_OPTIONS ":t:f:n:q:d:hr"

/*
 * -t is needed before parsing: it decides which options exist.  So a
 * first pass of getopt over the core options alone finds it in any form
 * getopt takes (-t T, -tT, -rt T, --type=T, --ty T); the target's options
 * are skipped as unknown, and the leading '-' makes getopt return the
 * other arguments in place instead of moving them (moved, a target
 * option's separate value would no longer follow it in the second pass).
 * Given twice, -t must name the same type.  *type: the type, or NULL if
 * none; 0, or -EINVAL after saying why it is refused.
 */
static int add_find_type(int argc, char **argv, const char **type)
{
	int c;

	*type = NULL;
	opterr = 0;
	optind = 0;	/* glibc: start afresh, reading the '-' */
	while ((c = getopt_long(argc, argv, "-" ADD_SHORT_OPTIONS,
				add_core_options, NULL)) != -1) {
		if (c != 't')
			continue;
		if (*type && strcmp(*type, optarg)) {
			vublk_error("add: -t given twice ('%s', then '%s'): give one target type",
				    *type, optarg);
			return -EINVAL;
		}
		*type = optarg;
	}
	return 0;
}

static unsigned online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned)n : 1;
}

static int add_parse_num(const char *what, const char *arg, uint64_t min,
			 uint64_t max, unsigned *out)
{
	uint64_t v;

	if (vublk_parse_u64(what, arg, min, max, &v) < 0)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

/*
 * Target options are kept as given, "--name=value" (the form getopt takes
 * for any option), separated by spaces, for `vublk list` and for
 * `vublk recover`, which splits them again (vublk_split_target_args()):
 * a space or backslash in a value is escaped with a backslash.
 */
static int add_record_target_arg(struct add_args *a, const char *name,
				 const char *arg)
{
	size_t n = strlen(a->target_args), cap = sizeof(a->target_args);
	const char *p;

	n += snprintf(a->target_args + n, cap - n, "%s--%s%s", n ? " " : "",
		      name, arg ? "=" : "");
	for (p = arg; p && *p && n + 2 < cap; p++) {
		if (*p == ' ' || *p == '\\')
			a->target_args[n++] = '\\';
		a->target_args[n++] = *p;
	}
	if (n + 2 >= cap) {
		vublk_error("add: the target options are too long to record (%zu bytes at most): shorten them",
			    cap - 2);
		return -EINVAL;
	}
	a->target_args[n] = '\0';
	return 0;
}

int vublk_split_target_args(char *args, char **argv, int max)
{
	char *r = args, *w = args;
	int n = 0;

	while (*r) {
		while (*r == ' ')
			r++;
		if (!*r)
			break;
		if (n == max)
			return -E2BIG;
		argv[n++] = w;
		for (; *r && *r != ' '; r++) {
			if (*r == '\\' && r[1])
				r++;
			*w++ = *r;
		}
		if (*r)
			r++;
		*w++ = '\0';
	}
	return n;
}

/* One option; 0, or -EINVAL after printing why. */
static int add_parse_one(struct add_args *a, int c, const char *arg,
			 const struct option *opts, int longindex)
{
	switch (c) {
	case 't':
		return 0;	/* found by add_find_type() */
	case 'f':
		a->file = arg;
		return 0;
	case 'n':
		return vublk_parse_dev_id(arg, &a->dev_id);
	case 'q':
		return add_parse_num("-q (queues)", arg, 1, UBLK_MAX_NR_QUEUES,
				     &a->nr_queues);
	case 'd':
		return add_parse_num("-d (queue depth)", arg, 1,
				     UBLK_MAX_QUEUE_DEPTH, &a->depth);
	case ADD_OPT_READ_ONLY:
		a->tgt.read_only = true;
		return 0;
	case ADD_OPT_FOREGROUND:
		a->foreground = true;
		return 0;
	case 'r':
		a->recovery_flags = UBLK_F_USER_RECOVERY;
		return 0;
	case ADD_OPT_RECOVERY:
		if (!arg) {
			a->recovery_flags = UBLK_F_USER_RECOVERY;
			return 0;
		}
		return add_parse_recovery(arg, &a->recovery_flags);
	case ADD_OPT_ZERO_COPY:
		return add_parse_zero_copy(arg, &a->zero_copy);
	case ADD_OPT_NAME:
		a->name = arg;
		return vublk_name_check(arg);
	default:
		if (c < 256 || !a->ops->parse_opt)
			return -EINVAL;
		if (add_record_target_arg(a, opts[longindex].name, arg) < 0)
			return -EINVAL;
		return a->ops->parse_opt(&a->tgt, c, arg);
	}
}

/* Core options followed by the target's. */
static struct option *add_build_options(const struct vublk_tgt_ops *ops)
{
	size_t nt = 0, i;
	struct option *opts;

	while (ops->options && ops->options[nt].name)
		nt++;
	opts = calloc(ADD_NR_CORE_OPTIONS + nt + 1, sizeof(*opts));
	if (!opts)
		return NULL;
	memcpy(opts, add_core_options, sizeof(add_core_options));
	for (i = 0; i < nt; i++)
		opts[ADD_NR_CORE_OPTIONS + i] = ops->options[i];
	return opts;
}

static int add_getopt(struct add_args *a, int argc, char **argv,
		      const struct option *opts)
{
	int c, longindex = 0, before = 1;
	char why[160];

	opterr = 0;
	optind = 0;	/* glibc: start afresh, after add_find_type() */
	while ((c = getopt_long(argc, argv, ADD_SHORT_OPTIONS, opts,
				&longindex)) != -1) {
		if (c == 'h')
			return 1;	/* help wanted */
		if (c == '?' || c == ':') {
			cliopt_error_text(why, sizeof(why), c, argv, before,
					  opts);
			vublk_error("add: %s (see: vublk %s --help)", why,
				    a->ops->name);
			return -EINVAL;
		}
		if (add_parse_one(a, c, optarg, opts, longindex) < 0)
			return -EINVAL;
		before = optind;
	}
	if (optind < argc) {
		vublk_error("add: unexpected argument '%s' (see: vublk %s --help)",
			    argv[optind], a->ops->name);
		return -EINVAL;
	}
	return 0;
}

/* 0, 1 when --help was asked for with a type, 2 when without one (the
 * general help printed), or -errno after printing why. */
static int add_parse(struct add_args *a, int argc, char **argv)
{
	const char *type;
	struct option *opts;
	int ret = add_find_type(argc, argv, &type);

	if (ret)
		return ret;
	if (!type) {
		if (vublk_wants_help(argc, argv)) {
			vublk_usage(stdout);
			return 2;
		}
		vublk_error("add: no target type given: use -t TYPE (see: vublk help)");
		return -EINVAL;
	}
	a->ops = vublk_find_target(type);
	if (!a->ops) {
		vublk_error("add: unknown target type '%s' (see: vublk help for the list)",
			    type);
		return -EINVAL;
	}
	a->tgt.ops = a->ops;
	a->tgt.priv = calloc(1, a->ops->priv_size ? a->ops->priv_size : 1);
	opts = add_build_options(a->ops);
	if (!a->tgt.priv || !opts) {
		free(opts);
		return -ENOMEM;
	}
	ret = add_getopt(a, argc, argv, opts);
	free(opts);
	if (ret)
		return ret;	/* error, or 1: help */
	if (!a->file || !a->file[0]) {
		vublk_error("add: no backing file given%s: use -f FILE (a file, a block device or an NBD URI)",
			    a->file ? " (-f is empty)" : "");
		return -EINVAL;
	}
	/* Absolute, since the detached server leaves the caller's directory
	 * (so as not to keep its filesystem busy); a missing file keeps the
	 * name as given for the target's error message. */
	if (a->file[0] != '/' && realpath(a->file, a->file_abs))
		a->file = a->file_abs;
	a->tgt.backing_file = a->file;
	/* More queues than CPUs buys nothing: the driver caps them at
	 * nr_cpu_ids (ublk_ctrl_add_dev()). */
	if (a->nr_queues > online_cpus())
		a->nr_queues = online_cpus();
	return 0;
}

/* ---- reporting, from the server's side ---- */

static void add_report_line(const struct add_report *r, const char *kind,
			    const char *text)
{
	char line[1200];
	size_t n = snprintf(line, sizeof(line), "%s %s\n", kind, text);

	if (n >= sizeof(line)) {	/* cut, but still one line */
		n = sizeof(line) - 1;
		line[n - 1] = '\n';
	}
	/* One write() of less than PIPE_BUF: atomic between threads. */
	if (r->fd >= 0 && write(r->fd, line, n) < 0)
		return;	/* the parent is gone; nothing to tell */
}

static void add_on_error(void *ctx, const char *line)
{
	add_report_line(ctx, "ERR", line);
}

static void add_on_added(void *ctx, unsigned dev_id, uint64_t token)
{
	struct add_report *r = ctx;
	char text[48], log[PATH_MAX];

	r->dev_id = dev_id;
	r->token = token;
	vublk_run_path(r->stats_path, sizeof(r->stats_path), dev_id,
		       ".stats.json");
	vublk_run_path(r->control_path, sizeof(r->control_path), dev_id,
		       ".ctl");
	snprintf(text, sizeof(text), "%u %016" PRIx64, dev_id, token);
	add_report_line(r, "ID", text);
	/* Before START_DEV: udev reads it for the disk's "add" uevent. */
	vublk_name_publish(dev_id, r->args->name);
	if (!r->log_path[0])
		return;
	/* The log was named before the id was known. */
	vublk_run_path(log, sizeof(log), dev_id, ".log");
	if (rename(r->log_path, log) == 0)
		snprintf(r->log_path, sizeof(r->log_path), "%s", log);
}

static void add_on_live(void *ctx, unsigned dev_id, const char *bdev)
{
	struct add_report *r = ctx;
	const struct add_args *a = r->args;
	struct vublk_state st = {
		.id = dev_id,
		.size = a->tgt.dev_size,
		.block_size = 1U << a->tgt.logical_bs_shift,
		.queues = a->tgt.nr_queues,
		.depth = a->tgt.queue_depth,
		.pid = getpid(),
		.pid_start = vublk_proc_start_time(getpid()),
		.token = r->token,
		.read_only = a->tgt.read_only,
	};

	snprintf(st.target, sizeof(st.target), "%s", a->ops->name);
	snprintf(st.backing_file, sizeof(st.backing_file), "%s", a->file);
	snprintf(st.log, sizeof(st.log), "%s", r->log_path);
	snprintf(st.target_args, sizeof(st.target_args), "%s", a->target_args);
	snprintf(st.recovery, sizeof(st.recovery), "%s",
		 vublk_recovery_name(a->recovery_flags));
	snprintf(st.name, sizeof(st.name), "%s", a->name ? a->name : "");
	/* The state file first, so `vublk list` knows the device as soon as
	 * `vublk add` returns.  Without it `vublk del` can still find the
	 * device through the kernel, so a failure is not fatal. */
	vublk_state_write(&st);
	r->live = true;
	if (r->fd < 0) {
		printf("%s\n", bdev);
		fflush(stdout);
		vublk_notify_ready();
		return;
	}
	/* Queue threads may be inside the hook right now: the pipe stays
	 * open (writes to it fail with EPIPE once `vublk add` is gone) and
	 * is closed when the server has stopped. */
	vublk_log_set_error_hook(NULL, NULL);
	add_report_line(r, "LIVE", bdev);
}

static int add_run_server(struct add_args *a, struct add_report *r)
{
	struct vublk_server_cfg cfg = {
		.tgt = &a->tgt,
		.dev_id = a->dev_id,
		.nr_queues = a->nr_queues,
		.queue_depth = a->depth,
		.max_io_bytes = ADD_MAX_IO_BYTES,
		.recovery_flags = a->recovery_flags,
		.zero_copy = a->zero_copy,
		.recover = a->recover,
		.on_added = add_on_added,
		.on_live = add_on_live,
		.report_ctx = r,
		.stats_path = r->stats_path,
		.control_path = r->control_path,
	};
	int ret;

	ret = vublk_server_run(&cfg);
	if (r->fd >= 0)
		close(r->fd);
	if (ret == VUBLK_SERVER_QUIESCED)
		return 0;	/* the state file is the next server's */
	if (r->live)
		vublk_state_remove(r->dev_id);
	else if (!a->recover && r->dev_id != VUBLK_DEV_ID_ANY)
		vublk_name_publish(r->dev_id, NULL);	/* the device is gone */
	if (!r->live && r->log_path[0] && !a->recover)
		unlink(r->log_path);	/* its errors went to `vublk add` */
	return ret ? 1 : 0;
}

/* ---- the detached server (child) ---- */

static int add_child_redirect(const struct add_args *a, struct add_report *r)
{
	int fd, null_fd;

	/* A recovering server continues the device's log; a new one
	 * starts its own (whatever an earlier process of this pid left
	 * there, a planted symlink included, is removed, not followed). */
	if (a->recover) {
		snprintf(r->log_path, sizeof(r->log_path), "%s",
			 a->recover_log);
	} else {
		snprintf(r->log_path, sizeof(r->log_path), "%s/add-%d.log",
			 vublk_run_dir(), (int)getpid());
		if (unlink(r->log_path) < 0 && errno != ENOENT)
			return -errno;
	}
	fd = vublk_file_append(r->log_path);
	if (fd < 0) {
		vublk_error("cannot create log file %s: %s", r->log_path,
			    strerror(-fd));
		return fd;
	}
	null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null_fd < 0) {
		close(fd);
		return -errno;
	}
	fflush(stdout);
	fflush(stderr);
	if (dup2(null_fd, STDIN_FILENO) < 0 || dup2(fd, STDOUT_FILENO) < 0 ||
	    dup2(fd, STDERR_FILENO) < 0)
		return -errno;
	close(fd);
	close(null_fd);
	setvbuf(stderr, NULL, _IOLBF, 0);
	vublk_log_set_timestamps(true);
	return 0;
}

static int add_child(struct add_args *a, int pipe_fd)
{
	struct add_report r = { .fd = pipe_fd, .args = a,
				.dev_id = VUBLK_DEV_ID_ANY };

	vublk_log_set_error_hook(add_on_error, &r);
	if (setsid() < 0 || chdir("/") < 0 || add_child_redirect(a, &r) < 0) {
		vublk_error("cannot detach the server: %s", strerror(errno));
		return 1;
	}
	return add_run_server(a, &r);
}

/* ---- the waiting parent ---- */

/* The device the child announced, while it has not said it is live. */
struct add_announced {
	unsigned dev_id;		/* VUBLK_DEV_ID_ANY: none yet */
	uint64_t token;
};

/* The child ended without cleaning up: remove what it announced, if the
 * id still names that device. */
static void add_cleanup_orphan(const struct add_announced *dev)
{
	struct ublk_ctrl c;

	if (ublk_ctrl_open(&c) < 0)
		return;
	if (vublk_remove_if_ours(&c, dev->dev_id, dev->token) == -ESTALE)
		vublk_info("device %u is another device now: left alone",
			   dev->dev_id);
	else
		vublk_name_publish(dev->dev_id, NULL);
	ublk_ctrl_close(&c);
	vublk_state_remove_if_ours(dev->dev_id, dev->token);
}

/* Handle one line from the child; returns true on LIVE. */
static bool add_parent_line(char *line, struct add_announced *dev,
			    int *errors)
{
	char *end;

	if (!strncmp(line, "LIVE ", 5)) {
		printf("%s\n", line + 5);
		return true;
	}
	if (!strncmp(line, "ID ", 3)) {
		dev->dev_id = (unsigned)strtoul(line + 3, &end, 10);
		dev->token = strtoull(end, NULL, 16);
	} else if (!strncmp(line, "ERR ", 4)) {
		fprintf(stderr, "vublk: %s\n", line + 4);
		(*errors)++;
	}
	return false;
}

static int add_parent(const struct add_args *a, pid_t child, int pipe_fd)
{
	char buf[8192];
	size_t used = 0;
	struct add_announced dev = { .dev_id = VUBLK_DEV_ID_ANY };
	int errors = 0, status;
	ssize_t n;
	char *nl;

	while ((n = read(pipe_fd, buf + used, sizeof(buf) - 1 - used)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		used += n;
		buf[used] = '\0';
		while ((nl = strchr(buf, '\n'))) {
			*nl = '\0';
			if (add_parent_line(buf, &dev, &errors))
				return 0;	/* the server runs on */
			used -= nl + 1 - buf;
			memmove(buf, nl + 1, used + 1);
		}
		if (used == sizeof(buf) - 1)
			used = 0;	/* an absurd line: drop it */
	}
	close(pipe_fd);
	waitpid(child, &status, 0);
	if (!errors && WIFSIGNALED(status))
		fprintf(stderr, "vublk: the server was killed by signal %d before the device was live\n",
			WTERMSIG(status));
	else if (!errors)
		fprintf(stderr, "vublk: the server exited with status %d before the device was live\n",
			WEXITSTATUS(status));
	/* A device being recovered is the user's: never removed here. */
	if (dev.dev_id != VUBLK_DEV_ID_ANY && !a->recover)
		add_cleanup_orphan(&dev);
	return 1;
}

static int add_detach(struct add_args *a)
{
	int pfd[2];
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) < 0) {
		vublk_error("cannot create a pipe: %s", strerror(errno));
		return 1;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		vublk_error("cannot fork the server: %s", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		close(pfd[0]);
		_exit(add_child(a, pfd[1]));
	}
	close(pfd[1]);
	return add_parent(a, pid, pfd[0]);
}

/*
 * A device named a->name exists and its server is gone: a service manager
 * restarting the server runs this same add line again (vublk@.service,
 * Restart=), and the device, which may hold mounts and waiting I/O, needs
 * a new server, not a second device beside it.  So this process becomes
 * `vublk recover -n ID`, which checks the device and serves it from its
 * state file: an exec, not a call, so that add and recover do not call
 * each other (recover runs its server through vublk_add_recover()), and
 * in the same process, which the service manager watches.
 */
static int add_recover_named(const struct add_args *a, unsigned id)
{
	char id_arg[16], self[PATH_MAX];
	char *argv[] = { "vublk", "recover", "-n", id_arg, "--foreground",
			 NULL };
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	snprintf(id_arg, sizeof(id_arg), "%u", id);
	vublk_info("device %u is named %s and has no server: vublk recover -n %u%s",
		   id, a->name, id, a->foreground ? " --foreground" : "");
	if (!a->foreground)
		argv[4] = NULL;
	fflush(stdout);
	fflush(stderr);
	/* By its path, not as /proc/self/exe: the process takes its name
	 * from the file, and a server is known by the name vublk
	 * (identity.c). */
	if (n > 0) {
		self[n] = '\0';
		execv(self, argv);
	}
	vublk_error("add: cannot run vublk recover -n %u: %s", id,
		    strerror(errno));
	return 1;
}

/* Parse, then run the server detached or in the foreground. */
static int add_main(struct add_args *a, int argc, char **argv)
{
	struct add_report r = { .fd = -1, .args = a,
				.dev_id = VUBLK_DEV_ID_ANY };
	int ret = add_parse(a, argc, argv);
	unsigned named_id;

	if (ret == 1)
		vublk_target_usage(stdout, a->ops->name);
	if (ret)
		ret = ret < 0;
	else if (vublk_run_dir_create() < 0)
		ret = 1;
	else if (a->name && !a->recover &&
		 (ret = vublk_name_find(a->name, &named_id)) != 0)
		ret = ret < 0 ? 1 : add_recover_named(a, named_id);
	else if (!a->foreground)
		ret = add_detach(a);
	else
		ret = add_run_server(a, &r);
	vublk_tgt_free_priv(&a->tgt);
	return ret;
}

int vublk_cmd_add(int argc, char **argv)
{
	struct add_args a = {
		.dev_id = VUBLK_DEV_ID_ANY,
		.nr_queues = online_cpus(),
		.depth = ADD_DEFAULT_DEPTH,
	};

	return add_main(&a, argc, argv);
}

int vublk_add_recover(int argc, char **argv, const char *log_path)
{
	struct add_args a = {
		.dev_id = VUBLK_DEV_ID_ANY,
		.nr_queues = online_cpus(),
		.depth = ADD_DEFAULT_DEPTH,
		.recover = true,
		.recover_log = log_path,
	};

	return add_main(&a, argc, argv);
}
