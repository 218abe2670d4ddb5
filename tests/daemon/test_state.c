// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_state.c - run-directory state files (daemon/state.c): a round trip
 * through the JSON writer and reader with awkward names, listing, removal,
 * and refusal of damaged files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "ublk.h"

static int failures;

#define CHECK(cond, ...) do { if (!(cond)) { printf("FAIL %s:%d: ", \
	__FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); \
	failures++; } } while (0)

static void test_round_trip(void)
{
	struct vublk_state in = {
		.id = 42, .size = 1ULL << 40, .block_size = 4096, .queues = 3,
		.depth = 4096, .pid = 12345, .read_only = true,
	}, out;
	unsigned *ids = NULL;
	int n;

	snprintf(in.target, sizeof(in.target), "verity");
	snprintf(in.backing_file, sizeof(in.backing_file),
		 "/data/a \"quoted\" back\\slash\ttab\nnewline/\x01.img");
	snprintf(in.log, sizeof(in.log), "/run/vublk/42.log");
	snprintf(in.target_args, sizeof(in.target_args), "--salt 00ff --x \"y\"");
	CHECK(vublk_state_write(&in) == 0, "write");
	CHECK(vublk_state_read(42, &out) == 0, "read back");
	CHECK(!strcmp(in.backing_file, out.backing_file), "backing file '%s'",
	      out.backing_file);
	CHECK(out.id == 42 && out.size == 1ULL << 40 && out.block_size == 4096 &&
	      out.queues == 3 && out.depth == 4096 && out.pid == 12345 &&
	      out.read_only && !strcmp(out.target, "verity") &&
	      !strcmp(out.log, in.log) && !strcmp(out.target_args, in.target_args),
	      "numbers or names changed");

	n = vublk_known_ids(&ids);
	CHECK(n >= 1 && ids[0] == 42, "known ids: %d", n);
	free(ids);
	vublk_state_remove(42);
	CHECK(vublk_state_read(42, &out) == -ENOENT, "state left after remove");
}

static void test_damaged(const char *dir)
{
	static const char *const bad[] = {
		"", "{", "{\"id\": 7, \"target\": \"loop\"",
		"{\"id\": 7, \"target\": loop}", "[1, 2]", "{\"id\": 7x}",
		"{\"id\": -}", "{\"id\": 7 \"pid\": 1}",
		"{\"id\": 8}",	/* the wrong device's file */
	};
	struct vublk_state st;
	char path[4096];
	size_t i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/7.json", dir);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		f = fopen(path, "w");
		if (!f || fputs(bad[i], f) < 0 || fclose(f)) {
			CHECK(0, "cannot write %s", path);
			return;
		}
		CHECK(vublk_state_read(7, &st) == -EINVAL,
		      "damaged state file accepted: '%s'", bad[i]);
	}
	unlink(path);
}

int main(void)
{
	char dir[] = "/tmp/vublk-test-state-XXXXXX";

	if (!mkdtemp(dir) || setenv("VUBLK_RUN_DIR", dir, 1)) {
		perror("mkdtemp");
		return 1;
	}
	test_round_trip();
	test_damaged(dir);
	/* Not a vublk server: this process, and no process at all. */
	CHECK(!vublk_server_alive(getpid()), "the test claims to be a server");
	CHECK(!vublk_server_alive(0) && !vublk_server_alive(-1),
	      "pid 0 / -1 alive");
	rmdir(dir);
	if (failures) {
		printf("%d failure(s)\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
