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
 */
#ifndef VUBLK_CLI_H
#define VUBLK_CLI_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define VUBLK_VERSION "0.1.0"

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
	bool read_only;
	char recovery[16];		/* --recovery mode: none, queue... */
};

const char *vublk_run_dir(void);
/* mkdir -p the run directory; prints the error. */
int vublk_run_dir_create(void);
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

/* Write s as a JSON string, quoted and escaped. */
void vublk_json_string(FILE *f, const char *s);
/*
 * pid is a live (not zombie) vublk server.  The name check keeps us from
 * signalling an unrelated process that reused a dead server's pid.
 */
bool vublk_server_alive(pid_t pid);

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
void vublk_usage(FILE *f);
void vublk_target_usage(FILE *f, const char *name);

#endif /* VUBLK_CLI_H */
