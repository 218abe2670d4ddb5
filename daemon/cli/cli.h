/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cli.h - the `vublk` command line (internal): commands and the device
 * state files that let any process list and delete devices.
 *
 * State lives in the run directory ($VUBLK_RUN_DIR, default /run/vublk):
 *   ID.json        written by the server once the device is live, removed
 *                  when it stops: target, backing file, size, queues, pid...
 *   ID.stats.json  the server's counters, rewritten every second
 *   ID.log         the detached server's stderr
 *   ID.udev        VUBLK_NAME=NAME for udev, for a device added with
 *                  --name (name.c)
 */
#ifndef VUBLK_CLI_H
#define VUBLK_CLI_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <getopt.h>
#include <stdio.h>
#include <sys/types.h>

#include "log.h"

#define VUBLK_VERSION "0.1.0"
/* --name=NAME: at most this many bytes with the NUL. */
#define VUBLK_NAME_MAX 64

struct vublk_state {
	unsigned id;
	char target[32];
	char backing_file[PATH_MAX];
	char log[PATH_MAX];		/* "" when the server logs to a tty */
	char target_args[1024];		/* target options as given */
	uint64_t size;			/* bytes */
	unsigned block_size;		/* logical */
	unsigned queues;
	unsigned depth;
	int pid;			/* server */
	uint64_t pid_start;		/* its start time (/proc/PID/stat) */
	uint64_t token;			/* the device's (server.h: on_added) */
	bool read_only;
	char recovery[16];		/* --recovery mode: none, queue... */
	char name[VUBLK_NAME_MAX];	/* --name, "" without */
};

/* -n ID: a device id the kernel can give, in decimal; 0, or -EINVAL after
 * one error line. */
int vublk_parse_dev_id(const char *arg, unsigned *id);

const char *vublk_run_dir(void);
/*
 * Create the run directory if missing (mode 0755), and check that it is a
 * directory of ours that nobody else may write; 0, or -errno after one
 * error line.  vublk_run_dir_check() only checks (a missing one is fine).
 */
int vublk_run_dir_create(void);
int vublk_run_dir_check(void);
/* <run dir>/<id><suffix>, e.g. suffix ".json". */
void vublk_run_path(char *buf, size_t len, unsigned id, const char *suffix);

int vublk_state_write(const struct vublk_state *st);
/* 0, -ENOENT when there is no state file, -EINVAL when unreadable. */
int vublk_state_read(unsigned id, struct vublk_state *st);
void vublk_state_remove(unsigned id);
/*
 * Every device id known from state files or from the kernel
 * (/sys/class/ublk-char/ublkcN), sorted, no duplicates.  *ids is
 * malloc'ed.  Returns the count or -errno.
 */
int vublk_known_ids(unsigned **ids);

/*
 * options.c: parse a subcommand's options with getopt_long (shortopts
 * starting with ':'); one(ctx, opt, optarg) takes each, returning 0 or
 * -EINVAL after its own line.  An unknown option, a missing value or an
 * argument left over gets one line "CMD: ... (USAGE)".  -h or --help
 * anywhere prints USAGE on stdout instead, and returns 1 (the command then
 * exits 0).  0, 1 or -EINVAL.
 */
int vublk_cli_options(const char *cmd, const char *usage, int argc,
		      char **argv, const char *shortopts,
		      const struct option *opts,
		      int (*one)(void *ctx, int opt, const char *arg),
		      void *ctx);

/*
 * name.c: --name=NAME.  vublk_name_check(): 0, or -EINVAL after one line
 * saying which names are allowed.  vublk_name_publish(): write ID.udev
 * for udev's /dev/disk/by-vublk/NAME, or remove a stale one (name NULL);
 * 0 or -errno after one line.  vublk_name_find(): 0 when no device has
 * the name, 1 with *id when one has and its server is gone (it may be
 * recovered), else -errno after one line (-EEXIST: its server runs).
 */
int vublk_name_check(const char *name);
int vublk_name_publish(unsigned id, const char *name);
int vublk_name_find(const char *name, unsigned *id);
/* notify.c: "READY=1" to $NOTIFY_SOCKET, if set (sd_notify(3)). */
void vublk_notify_ready(void);

/*
 * server_id.c: whether pid is the running vublk server of device dev_id
 * (named vublk, not exited, started at start unless start is 0, holding
 * /dev/ublkcN open).  vublk_server_open() returns a pidfd on exactly that
 * process, to signal it (pidfd_send_signal) and wait for it, or -1 when
 * pid is not that server.
 */
int vublk_server_open(pid_t pid, unsigned dev_id, uint64_t start);
bool vublk_server_running(pid_t pid, unsigned dev_id, uint64_t start);
/* Whether pidfd's process exits within timeout_ms (0: has it exited). */
bool vublk_pidfd_wait(int pidfd, int timeout_ms);
/* The start time of pid (clock ticks since boot), 0 if none: recorded in
 * the state file with the pid. */
uint64_t vublk_proc_start_time(pid_t pid);
/*
 * STOP_DEV and delete device id only while it carries token (it may be
 * another device by now): 0 when it is gone or deleted (its disk still
 * open: one line says so), -ESTALE when the id belongs to another device
 * (left alone), else what removing it gave.
 */
struct ublk_ctrl;
int vublk_remove_if_ours(struct ublk_ctrl *c, unsigned id, uint64_t token);
/* Remove id's state files only if they describe the device of token (or
 * cannot be read at all). */
void vublk_state_remove_if_ours(unsigned id, uint64_t token);

int vublk_cmd_add(int argc, char **argv);
/*
 * `vublk recover`'s server: argv is the `vublk add` command line that
 * recreates the device's settings (with -n ID); the new server takes over
 * the existing device (ublk.h: vublk_server_cfg.recover) and appends to
 * log_path.  Returns the exit status.
 */
int vublk_add_recover(int argc, char **argv, const char *log_path);
int vublk_cmd_recover(int argc, char **argv);
/* The --recovery mode name of UBLK_F_USER_RECOVERY* flags ("none"...). */
const char *vublk_recovery_name(uint64_t flags);
/*
 * Split a state file's target_args (cmd_add.c records them) in place into
 * at most max arguments, undoing the backslash escapes; returns the count
 * or -E2BIG.
 */
int vublk_split_target_args(char *args, char **argv, int max);
int vublk_cmd_del(int argc, char **argv);
int vublk_cmd_list(int argc, char **argv);
int vublk_cmd_features(int argc, char **argv);
int vublk_cmd_update_size(int argc, char **argv);
/*
 * request.c: send req to device id's running server (its control socket,
 * daemon/core/control.c) and read its answer, "OK ..." or "ERR ...", into
 * reply.  0, or -errno when the server could not be asked (-ENOENT,
 * -ECONNREFUSED: none runs).
 */
int vublk_server_request(unsigned id, const char *req, char *reply,
			 size_t len);
/* The names of the UBLK_F_* flags set in mask, "a,b,c", into buf. */
void vublk_feature_names(uint64_t mask, char *buf, size_t len);

/* usage.c: `vublk help` and `vublk TYPE --help`. */
void vublk_usage(FILE *f);
/* --help or -h; vublk_wants_help(): one among argv[1..argc). */
bool vublk_is_help_option(const char *arg);
bool vublk_wants_help(int argc, char **argv);
void vublk_target_usage(FILE *f, const char *name);

#endif /* VUBLK_CLI_H */
