// SPDX-License-Identifier: GPL-2.0-only
/*
 * replay_main.c - run a fuzz target's LLVMFuzzerTestOneInput() on saved
 * inputs, without libFuzzer: the seed corpus (fuzz/corpus/NAME) and every
 * input that once crashed it (fuzz/regressions/NAME).  This is how those
 * inputs stay tested in every build, gcc included; libFuzzer itself is
 * only in the clang fuzz build (fuzz/run).
 *
 * Usage: replay-NAME PATH... [--optional PATH...], each PATH a file or a
 * directory of inputs.  A PATH after --optional may be missing (a target
 * with no regression yet); any other must exist.  Fails if nothing at all
 * was replayed, so that a wrong path cannot pass silently.  A broken
 * invariant aborts (the target's FUZZ_CHECK), which fails the test and
 * names the input on the line before.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <sys/stat.h>

#include "fuzz_input.h"

/* The largest saved input; libFuzzer's default -max_len is far below. */
#define REPLAY_MAX_INPUT (1u << 20)

static bool replay_file(const char *path, uint8_t *buf)
{
	FILE *f = fopen(path, "rb");
	size_t len;

	if (!f) {
		fprintf(stderr, "replay: can't open '%s': %s\n", path,
			strerror(errno));
		return false;
	}
	len = fread(buf, 1, REPLAY_MAX_INPUT, f);
	if (ferror(f) || !feof(f)) {
		fprintf(stderr, "replay: can't read '%s' (error, or over %u bytes)\n",
			path, REPLAY_MAX_INPUT);
		fclose(f);
		return false;
	}
	fclose(f);
	fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
	/* An exact-size copy, so that ASan sees reads past the input. */
	uint8_t *exact = malloc(len ? len : 1);
	if (!exact) {
		fprintf(stderr, "replay: out of memory for '%s'\n", path);
		return false;
	}
	memcpy(exact, buf, len);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	return true;
}

static int skip_dots(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* Replays a file, or every file of a directory in name order. */
static bool replay_path(const char *path, bool optional, uint8_t *buf,
			unsigned *count)
{
	struct dirent **names;
	struct stat st;
	char child[4096];
	bool ok = true;
	int n;

	if (stat(path, &st) != 0) {
		if (optional && errno == ENOENT)
			return true;
		fprintf(stderr, "replay: can't stat '%s': %s\n", path,
			strerror(errno));
		return false;
	}
	if (!S_ISDIR(st.st_mode)) {
		(*count)++;
		return replay_file(path, buf);
	}
	n = scandir(path, &names, skip_dots, alphasort);
	if (n < 0) {
		fprintf(stderr, "replay: can't list '%s': %s\n", path,
			strerror(errno));
		return false;
	}
	for (int i = 0; i < n; i++) {
		if (ok && (size_t)snprintf(child, sizeof(child), "%s/%s", path,
					   names[i]->d_name) < sizeof(child)) {
			(*count)++;
			ok = replay_file(child, buf);
		}
		free(names[i]);
	}
	free(names);
	return ok;
}

int main(int argc, char *argv[])
{
	uint8_t *buf = malloc(REPLAY_MAX_INPUT);
	unsigned count = 0;
	bool ok = buf != NULL, optional = false;

	for (int i = 1; i < argc && ok; i++) {
		if (!strcmp(argv[i], "--optional"))
			optional = true;
		else
			ok = replay_path(argv[i], optional, buf, &count);
	}
	free(buf);
	if (ok && count == 0) {
		fprintf(stderr, "replay: no inputs found in the given paths: check the corpus directories\n");
		ok = false;
	}
	if (ok)
		printf("replayed %u inputs\n", count);
	return ok ? 0 : 1;
}
