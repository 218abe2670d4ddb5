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
#include "runfile.h"

static int failures;

#define CHECK(cond, ...) do { if (!(cond)) { printf("FAIL %s:%d: ", \
	__FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); \
	failures++; } } while (0)

static void test_round_trip(void)
{
	struct vublk_state in = {
		.id = 42, .size = 1ULL << 40, .block_size = 4096, .queues = 3,
		.depth = 4096, .pid = 12345, .pid_start = 987654321,
		.token = 0xfedcba9876543210ULL, .read_only = true,
	}, out;
	unsigned *ids = NULL;
	int n;

	snprintf(in.target, sizeof(in.target), "verity");
	snprintf(in.backing_file, sizeof(in.backing_file),
		 "/data/a \"quoted\" back\\slash\ttab\nnewline/\x01\xe9\xff.img");
	snprintf(in.log, sizeof(in.log), "/run/vublk/42.log");
	snprintf(in.target_args, sizeof(in.target_args), "--salt 00ff --x \"y\"");
	snprintf(in.recovery, sizeof(in.recovery), "reissue");
	CHECK(vublk_state_write(&in) == 0, "write");
	CHECK(vublk_state_read(42, &out) == 0, "read back");
	CHECK(!strcmp(in.backing_file, out.backing_file), "backing file '%s'",
	      out.backing_file);
	CHECK(out.id == 42 && out.size == 1ULL << 40 && out.block_size == 4096 &&
	      out.queues == 3 && out.depth == 4096 && out.pid == 12345 &&
	      out.read_only && !strcmp(out.target, "verity") &&
	      !strcmp(out.log, in.log) && !strcmp(out.target_args, in.target_args),
	      "numbers or names changed");
	CHECK(!strcmp(out.recovery, "reissue"), "recovery mode '%s'",
	      out.recovery);
	CHECK(out.pid_start == 987654321 && out.token == in.token,
	      "identity changed: start %llu, token %llx",
	      (unsigned long long)out.pid_start,
	      (unsigned long long)out.token);

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

/* Write text to dir/7.json; the state reader must refuse it. */
static void expect_refused(const char *dir, const char *text, size_t len,
			   const char *what)
{
	struct vublk_state st;
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/7.json", dir);
	f = fopen(path, "w");
	if (!f || fwrite(text, 1, len, f) != len || fclose(f)) {
		CHECK(0, "cannot write %s", path);
		return;
	}
	CHECK(vublk_state_read(7, &st) == -EINVAL, "%s accepted: '%.*s'", what,
	      (int)len, text);
	unlink(path);
}

/*
 * A state file cut short (a reader racing a writer that does not rename,
 * a full disk, a crash): every prefix of a good file short of its closing
 * brace is refused.  The escapes are the hard part: an escape cut
 * anywhere, and one that ends exactly at the end of the reader's 8 KiB
 * buffer (an over-read there is what a sanitizer build would see).
 */
static void test_truncated(const char *dir)
{
	static const char *const cut_escapes[] = {
		"\\", "\\u", "\\u0", "\\u00", "\\u007", "\\u5",
	};
	struct vublk_state in = { .id = 7, .pid = 1 };
	char path[4096], good[8192], text[8191];
	size_t len, k, i, pad;
	FILE *f;

	snprintf(in.target, sizeof(in.target), "loop");
	snprintf(in.backing_file, sizeof(in.backing_file), "/a\x01\"b");
	CHECK(vublk_state_write(&in) == 0, "write");
	snprintf(path, sizeof(path), "%s/7.json", dir);
	f = fopen(path, "r");
	len = f ? fread(good, 1, sizeof(good) - 1, f) : 0;
	if (f)
		fclose(f);
	CHECK(len > 2 && good[len - 2] == '}', "unexpected state file");
	for (k = 0; k + 2 < len; k++)
		expect_refused(dir, good, k, "truncated state file");
	for (i = 0; i < sizeof(cut_escapes) / sizeof(cut_escapes[0]); i++) {
		len = snprintf(good, sizeof(good), "{\"id\": 7, \"target\": \"%s",
			       cut_escapes[i]);
		expect_refused(dir, good, len, "cut escape");
		pad = sizeof(text) - len;
		memset(text, ' ', pad);
		memcpy(text + pad, good, len);
		expect_refused(dir, text, sizeof(text),
			       "cut escape at the end of the read buffer");
	}
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
	test_truncated(dir);
	/* Not a vublk server: this process, and no process at all (the
	 * kernel tests add a process named vublk that holds no device). */
	CHECK(vublk_proc_start_time(getpid()) > 0, "no start time");
	CHECK(!vublk_server_running(getpid(), 0, 0),
	      "the test claims to be a server");
	CHECK(vublk_server_open(getpid(), 0, 0) < 0, "a pidfd on the test");
	CHECK(!vublk_server_running(0, 0, 0) && !vublk_server_running(-1, 0, 0),
	      "pid 0 / -1 alive");
	rmdir(dir);
	if (failures) {
		printf("%d failure(s)\n", failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
