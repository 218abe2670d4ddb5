// SPDX-License-Identifier: GPL-2.0-only
/*
 * update_size.c - `vublk update-size -n ID [--size=BYTES]`: a live device
 * takes its backing file's new size, or the size given, without stopping
 * its I/O (UBLK_F_UPDATE_SIZE, Linux 6.16).  The running server does it
 * (daemon/core/control.c: it moves its own bound on requests before the
 * kernel's when the device grows, after it when it shrinks); this asks it
 * and records the new size in the state file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define UPDATE_SIZE_USAGE "usage: vublk update-size -n ID [--size=BYTES]"

struct update_size_args {
	unsigned id;
	bool have_id;
	uint64_t size;		/* 0: the backing store's */
};

static int update_size_option(void *ctx, int opt, const char *arg)
{
	struct update_size_args *a = ctx;

	if (opt == 's')
		return vublk_parse_size("--size", arg, 512, INT64_MAX,
					&a->size);
	a->have_id = true;
	return vublk_parse_dev_id(arg, &a->id);
}

static int update_size_parse(int argc, char **argv,
			     struct update_size_args *a)
{
	static const struct option opts[] = {
		{ "number", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};

	int ret = vublk_cli_options("update-size", UPDATE_SIZE_USAGE, argc,
				    argv, ":n:", opts, update_size_option, a);

	if (ret)
		return ret;	/* -EINVAL, or 1: the usage printed */
	if (!a->have_id) {
		vublk_error("update-size: give the device with -n ID (" UPDATE_SIZE_USAGE ")");
		return -EINVAL;
	}
	return 0;
}

/* The state file says the new size too, for vublk list and recover. */
static void update_size_record(unsigned id, uint64_t size)
{
	struct vublk_state st;

	if (vublk_state_read(id, &st) == 0) {
		st.size = size;
		vublk_state_write(&st);
	}
}

int vublk_cmd_update_size(int argc, char **argv)
{
	struct update_size_args a = { 0 };
	char req[64], reply[512];
	unsigned id;
	uint64_t size;
	int ret;

	ret = update_size_parse(argc, argv, &a);
	if (ret)
		return ret < 0;
	if (vublk_run_dir_check() < 0)
		return 1;
	id = a.id;
	snprintf(req, sizeof(req), "resize %" PRIu64, a.size);
	ret = vublk_server_request(id, req, reply, sizeof(reply));
	if (ret < 0) {
		vublk_error("update-size: device %u has no running server to ask (%s): see vublk list",
			    id, strerror(-ret));
		return 1;
	}
	if (strncmp(reply, "OK ", 3)) {
		vublk_error("update-size: device %u: %s", id,
			    strncmp(reply, "ERR ", 4) ? reply : reply + 4);
		return 1;
	}
	size = strtoull(reply + 3, NULL, 10);
	update_size_record(id, size);
	printf("/dev/ublkb%u %" PRIu64 "\n", id, size);
	return 0;
}
