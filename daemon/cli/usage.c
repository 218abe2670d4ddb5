// SPDX-License-Identifier: GPL-2.0-only
/*
 * usage.c - `vublk help` and `vublk TYPE --help`.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "targets.h"
#include "ublk_compat.h"

void vublk_usage(FILE *f)
{
	const struct vublk_tgt_ops *const *t;

	fprintf(f,
		"usage: vublk add -t TYPE -f FILE [-n ID] [-q QUEUES] [-d DEPTH] [--read-only]\n"
		"                 [-r | --recovery[=queue|reissue|fail]] [--foreground]\n"
		"                 [--zero-copy=auto|on|off] [--name=NAME]\n"
		"                 [target options]\n"
		"         start a server for a new device; prints its path (/dev/ublkbN)\n"
		"       vublk del -n ID | -a [--safe]  stop and delete one or all devices;\n"
		"         --safe: not one that is open or mounted\n"
		"       vublk recover -n ID [--restart] [--foreground]\n"
		"         a new server for a device added with -r whose server died;\n"
		"         --restart: replace a running server, no I/O fails (Linux 6.16+)\n"
		"       vublk list [-n ID] [--json]\n"
		"         devices and their state: live; dead (server gone: vublk del);\n"
		"         quiesced (a -r device whose server died: vublk recover)\n"
		"       vublk update-size -n ID [--size=BYTES]\n"
		"         a live device takes its backing file's size, or BYTES (Linux 6.16+)\n"
		"       vublk features [--json]   what the kernel's ublk driver supports\n"
		"       vublk TYPE --help         target options\n"
		"       vublk help | -h | --help | -V | --version\n"
		"\n"
		"  -t, --type TYPE    the target (below)\n"
		"  -f, --file FILE    the backing file or block device\n"
		"  -n, --number ID    device id (add: default the first free one)\n"
		"  -a, --all          del: every device\n"
		"  -q, --queues QUEUES  queues, one thread each (default and maximum:\n"
		"               online CPUs)\n"
		"  -d, --depth DEPTH  requests in flight per queue, 1..%u (default 128)\n"
		"  --read-only  a read-only device; the backing file is opened read-only\n"
		"  --foreground do not detach; log to stderr; stop with Ctrl-C\n"
		"  -r, --recovery[=MODE]  the device outlives its server until\n"
		"               `vublk recover`: queue (-r: I/O waits; what the dead\n"
		"               server held fails), reissue (that too is retried),\n"
		"               fail (I/O fails meanwhile; Linux 6.13+)\n"
		"  --zero-copy=MODE  the backing file's I/O goes straight to and from\n"
		"               the requests' pages (Linux 6.16+; loop over a file):\n"
		"               auto (default: where the kernel can), on, off (copy)\n"
		"  --name=NAME  a stable name: /dev/disk/by-vublk/NAME (udev), shown by\n"
		"               list; if a device of that name exists whose server is\n"
		"               gone, add gives it a new server as recover does\n"
		"\n"
		"targets:\n", UBLK_MAX_QUEUE_DEPTH);
	for (t = vublk_targets; *t; t++)
		fprintf(f, "  %-8s %s\n", (*t)->name, (*t)->summary);
	fprintf(f,
		"\n"
		"environment: VUBLK_RUN_DIR (state, logs; default /run/vublk),\n"
		"             VUBLK_CONTROL_DEV (default /dev/ublk-control)\n");
}

void vublk_target_usage(FILE *f, const char *name)
{
	const struct vublk_tgt_ops *ops = vublk_find_target(name);

	fprintf(f, "usage: vublk add -t %s -f FILE [common options] [%s options]\n"
		"%s\n\n%s options:\n%s", name, name, ops->summary, name,
		ops->usage && *ops->usage ? ops->usage : "  (none)\n");
}

bool vublk_is_help_option(const char *arg)
{
	return !strcmp(arg, "--help") || !strcmp(arg, "-h");
}

bool vublk_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (vublk_is_help_option(argv[i]))
			return true;
	return false;
}
