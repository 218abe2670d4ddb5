/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz_input.h - what every fuzz target of fuzz/ shares: the libFuzzer
 * entry point, a cursor that splits the fuzzer's bytes into fields, and
 * the oracle's abort().
 *
 * A cursor never fails: past the end of the input it yields zeroes, so
 * that every input, however short, maps to some well-defined case and the
 * fuzzer spends no time on inputs that are merely "too short".
 *
 * The same targets are replayed without libFuzzer by tests/hostile/
 * replay_main.c (corpus and regressions, in every build), so nothing here
 * may depend on the fuzzer runtime.
 */
#ifndef VUBLK_FUZZ_INPUT_H
#define VUBLK_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fuzz_input {
	const uint8_t *data;
	size_t size;
	size_t pos;
};

static inline void fuzz_input_init(struct fuzz_input *in, const uint8_t *data,
				   size_t size)
{
	in->data = data;
	in->size = size;
	in->pos = 0;
}

/* Copy the next len bytes to out, zero-filling past the end of input. */
static inline void fuzz_take_bytes(struct fuzz_input *in, void *out,
				   size_t len)
{
	size_t avail = in->size - in->pos;
	size_t n = len < avail ? len : avail;

	memcpy(out, in->data + in->pos, n);
	memset((uint8_t *)out + n, 0, len - n);
	in->pos += n;
}

/* The next 'bytes' bytes (at most 8) as a little-endian number. */
static inline uint64_t fuzz_take_le(struct fuzz_input *in, unsigned bytes)
{
	uint8_t b[8];
	uint64_t v = 0;

	fuzz_take_bytes(in, b, bytes);
	while (bytes--)
		v = v << 8 | b[bytes];
	return v;
}

/* Bytes not consumed yet. */
static inline size_t fuzz_remaining(const struct fuzz_input *in)
{
	return in->size - in->pos;
}

static inline const uint8_t *fuzz_rest(const struct fuzz_input *in)
{
	return in->data + in->pos;
}

/*
 * The oracle: a broken invariant is a bug, and abort() is how libFuzzer
 * (and the replay test) learns of it.  Says which invariant, so that a
 * crash report needs no debugger to read.
 */
#define FUZZ_CHECK(cond)                                                     \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "%s:%d: invariant broken: %s\n",     \
				__FILE__, __LINE__, #cond);                  \
			abort();                                             \
		}                                                            \
	} while (0)

#endif /* VUBLK_FUZZ_INPUT_H */
