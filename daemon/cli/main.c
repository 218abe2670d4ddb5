// SPDX-License-Identifier: GPL-2.0-only
/*
 * main.c - `vublk`: a table of commands, each in its own file, as
 * fsverity-utils' programs/fsverity.c dispatches its subcommands.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "targets.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} vublk_commands[] = {
	{ "add", vublk_cmd_add },
	{ "del", vublk_cmd_del },
	{ "list", vublk_cmd_list },
	{ "recover", vublk_cmd_recover },
	{ "features", vublk_cmd_features },
	{ "update-size", vublk_cmd_update_size },
};

#define VUBLK_NR_COMMANDS (sizeof(vublk_commands) / sizeof(vublk_commands[0]))

/* `vublk help TOPIC`: a target's options, or a command's usage (its own
 * --help), as `vublk TYPE --help` and `vublk CMD --help` give them. */
static int vublk_help_topic(const char *topic)
{
	char help[] = "--help";

	for (size_t i = 0; i < VUBLK_NR_COMMANDS; i++) {
		char *argv[] = { (char *)topic, help, NULL };

		if (!strcmp(topic, vublk_commands[i].name))
			return vublk_commands[i].run(2, argv);
	}
	if (vublk_find_target(topic)) {
		vublk_target_usage(stdout, topic);
		return 0;
	}
	vublk_error("help: no help on '%s': name a command (add, del, list, recover, features, update-size) or a target type (see: vublk help)",
		    topic);
	return 1;
}

int main(int argc, char **argv)
{
	const char *cmd;

	/* A detached server's `vublk add` may be gone: no SIGPIPE death. */
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2) {
		/* Nothing was asked: the usage, as a failure (as for an
		 * unknown command), so a script that forgot it finds out. */
		vublk_usage(stderr);
		return 1;
	}
	cmd = argv[1];
	for (size_t i = 0; i < VUBLK_NR_COMMANDS; i++)
		if (!strcmp(cmd, vublk_commands[i].name))
			return vublk_commands[i].run(argc - 1, argv + 1);
	if (!strcmp(cmd, "help") && argc > 2)
		return vublk_help_topic(argv[2]);
	if (!strcmp(cmd, "help") || vublk_is_help_option(cmd)) {
		vublk_usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
		printf("vublk %s\n", VUBLK_VERSION);
		return 0;
	}
	if (vublk_find_target(cmd) && argc > 2 &&
	    vublk_is_help_option(argv[2])) {
		vublk_target_usage(stdout, cmd);
		return 0;
	}
	vublk_error("unknown command '%s': expected add, del, list, recover, features, update-size, help or TYPE --help (see: vublk help)",
		    cmd);
	return 1;
}
