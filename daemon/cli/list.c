// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_list.c - `vublk list [-n ID] [--json]`.
 *
 * Merges what the state file says (target, backing file...) with what the
 * kernel says (GET_DEV_INFO: state, flags, server pid).  States: live;
 * dead (the server process is gone: the driver aborted its I/O, which
 * fails until `vublk del` removes it); quiesced or fail-io (the server of
 * a device added with -r is gone and the kernel kept the device for a new
 * one: ublk_drv.c quiesces it, or fails its I/O in fail mode, instead of
 * stopping it -- `vublk recover` gives it one); stopped (server alive,
 * disk not started or already stopped); gone (a state file without a
 * kernel device).  Each state that needs the user says what to run (the
 * hint).  With --json the server's counters (ID.stats.json) are included
 * as "stats".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "jsonout.h"
#include "ublk_ctrl.h"

struct list_entry {
	struct vublk_state st;
	bool have_state;
	bool in_kernel;
	struct ublksrv_ctrl_dev_info info;
	const char *state;
	const char *hint;	/* "run: vublk ..." or NULL */
	char hint_text[64];
	int pid;
};

/*
 * The server of a device added with -r is gone and the kernel holds the
 * device for a new one.  Any state but DEAD: ublk_drv.c quiesces the
 * device (or sets FAIL_IO) once it sees the char device released, so
 * there is a moment when it is still LIVE; `vublk recover` waits for it.
 */
static bool list_recoverable(const struct list_entry *e)
{
	return e->in_kernel && e->info.flags & UBLK_F_USER_RECOVERY &&
	       e->info.state != UBLK_S_DEV_DEAD;
}

static void list_set_hint(struct list_entry *e, const char *cmd)
{
	snprintf(e->hint_text, sizeof(e->hint_text), "run: vublk %s -n %u",
		 cmd, e->st.id);
	e->hint = e->hint_text;
}

/* The device's vublk server runs: the kernel's record of it, or the state
 * file's (identity.c: the name alone proves nothing). */
static bool list_server_running(const struct list_entry *e, unsigned id)
{
	if (e->in_kernel && vublk_server_running(e->info.ublksrv_pid, id, 0))
		return true;
	return e->have_state &&
	       vublk_server_running(e->st.pid, id, e->st.pid_start);
}

static void list_probe(struct ublk_ctrl *c, unsigned id, struct list_entry *e)
{
	bool running;

	memset(e, 0, sizeof(*e));
	e->have_state = vublk_state_read(id, &e->st) == 0;
	e->in_kernel = ublk_ctrl_get_dev_info(c, id, &e->info) == 0;
	/* A state file of an earlier device with this id describes nothing
	 * that exists: the kernel's device is another one. */
	if (e->have_state && e->in_kernel &&
	    e->st.token != e->info.ublksrv_flags) {
		e->have_state = false;
		memset(&e->st, 0, sizeof(e->st));
	}
	if (!e->have_state)
		e->st.id = id;
	e->pid = e->in_kernel && e->info.ublksrv_pid > 0 ?
		 e->info.ublksrv_pid : e->st.pid;
	running = list_server_running(e, id);
	if (!e->in_kernel) {
		e->state = "gone";		/* stale state file */
	} else if (!running && list_recoverable(e)) {
		e->state = e->info.state == UBLK_S_DEV_FAIL_IO ? "fail-io" :
			   "quiesced";
		list_set_hint(e, "recover");
	} else if (!running && ublk_dev_deleted(id)) {
		e->state = "deleted";		/* its disk still open */
	} else if (!running) {
		e->state = "dead";		/* server gone */
		list_set_hint(e, "del");
	} else if (e->info.state == UBLK_S_DEV_DEAD)
		e->state = "stopped";		/* starting or stopping */
	else
		e->state = ublk_dev_state_name(e->info.state);
	if (!e->have_state && e->in_kernel) {
		e->st.queues = e->info.nr_hw_queues;
		e->st.depth = e->info.queue_depth;
	}
}

/* Copy the stats file, a JSON object, or print null. */
static void list_print_stats(FILE *f, unsigned id)
{
	char path[PATH_MAX], buf[4096];
	size_t n = 0;
	FILE *s;

	vublk_run_path(path, sizeof(path), id, ".stats.json");
	s = fopen(path, "re");
	if (s) {
		n = fread(buf, 1, sizeof(buf) - 1, s);
		fclose(s);
	}
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	if (n && buf[0] == '{' && buf[n - 1] == '}')
		fwrite(buf, 1, n, f);
	else
		fputs("null", f);
}

/* The device's negotiated flags (ADD_DEV's answer) as JSON strings. */
static void list_print_feature_list(const struct list_entry *e)
{
	size_t n;
	const struct vublk_feature *f = vublk_features(&n);
	bool first = true;

	for (size_t i = 0; e->in_kernel && i < n; i++) {
		if (!(e->info.flags & f[i].flag))
			continue;
		printf("%s\"%s\"", first ? "" : ", ", f[i].name);
		first = false;
	}
}

/* A report stays valid JSON whatever bytes a path holds (jsonout.h). */
static void list_json_string(const char *s)
{
	jsonout_string(stdout, s, JSONOUT_UTF8);
}

static void list_print_json(const struct list_entry *e, bool first)
{
	char dev[32];

	snprintf(dev, sizeof(dev), "/dev/ublkb%u", e->st.id);
	printf("%s{\"id\": %u, \"device\": ", first ? "" : ",\n ", e->st.id);
	list_json_string(dev);
	printf(", \"name\": ");
	if (e->st.name[0])
		list_json_string(e->st.name);
	else
		printf("null");
	printf(", \"state\": \"%s\", \"pid\": %d, \"target\": ", e->state,
	       e->pid);
	list_json_string(e->st.target);
	printf(", \"backing_file\": ");
	list_json_string(e->st.backing_file);
	printf(", \"size\": %" PRIu64 ", \"block_size\": %u, \"queues\": %u, \"depth\": %u, \"read_only\": %s, \"log\": ",
	       e->st.size, e->st.block_size, e->st.queues, e->st.depth,
	       e->st.read_only ? "true" : "false");
	list_json_string(e->st.log);
	printf(", \"target_args\": ");
	list_json_string(e->st.target_args);
	printf(", \"recovery\": ");
	list_json_string(e->in_kernel ? vublk_recovery_name(e->info.flags) :
			 e->st.recovery[0] ? e->st.recovery : "none");
	printf(", \"features\": [");
	list_print_feature_list(e);
	printf("], \"hint\": ");
	if (e->hint)
		list_json_string(e->hint);
	else
		printf("null");
	printf(", \"stats\": ");
	list_print_stats(stdout, e->st.id);
	printf("}");
}

static void list_print_row(const struct list_entry *e)
{
	char dev[32], features[512];

	snprintf(dev, sizeof(dev), "/dev/ublkb%u", e->st.id);
	vublk_feature_names(e->in_kernel ? e->info.flags : 0, features,
			    sizeof(features));
	printf("%-4u %-13s %-8s %-6s %14" PRIu64 " %6u %6u %8d  %s%s%s%s%s%s%s%s%s\n",
	       e->st.id, dev, e->state, e->st.target[0] ? e->st.target : "?",
	       e->st.size, e->st.queues, e->st.depth, e->pid,
	       e->st.backing_file[0] ? e->st.backing_file : "?",
	       e->st.name[0] ? "  name " : "", e->st.name,
	       e->st.log[0] ? "  log " : "", e->st.log,
	       features[0] ? "  features " : "", features,
	       e->hint ? "  " : "", e->hint ? e->hint : "");
}

struct list_args {
	bool json;
	bool have_id;
	unsigned id;
};

static int list_option(void *ctx, int opt, const char *arg)
{
	struct list_args *a = ctx;

	if (opt == 'j') {
		a->json = true;
		return 0;
	}
	a->have_id = true;
	return vublk_parse_dev_id(arg, &a->id);
}

int vublk_cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "number", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct list_args a = { 0 };
	unsigned *ids = NULL;
	struct list_entry e;
	struct ublk_ctrl ctrl;
	int n, i;

	n = vublk_cli_options("list", "usage: vublk list [-n ID] [--json]",
			      argc, argv, ":n:j", opts, list_option, &a);
	if (n)
		return n < 0;
	if (vublk_run_dir_check() < 0 || ublk_ctrl_open(&ctrl) < 0)
		return 1;
	n = a.have_id ? 1 : vublk_known_ids(&ids);
	if (a.have_id)
		ids = &a.id;
	if (n < 0) {
		ublk_ctrl_close(&ctrl);
		return 1;
	}
	if (a.json)
		printf("[");
	else
		printf("%-4s %-13s %-8s %-6s %14s %6s %6s %8s  %s\n", "ID",
		       "DEVICE", "STATE", "TARGET", "SIZE", "QUEUES", "DEPTH",
		       "PID", "BACKING FILE");
	for (i = 0; i < n; i++) {
		list_probe(&ctrl, ids[i], &e);
		if (a.have_id && !e.have_state && !e.in_kernel) {
			vublk_error("list: no device with id %u", a.id);
			ublk_ctrl_close(&ctrl);
			return 1;
		}
		if (a.json)
			list_print_json(&e, i == 0);
		else
			list_print_row(&e);
	}
	if (a.json)
		printf("]\n");
	if (!a.have_id)
		free(ids);
	ublk_ctrl_close(&ctrl);
	return 0;
}
