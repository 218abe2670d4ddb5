// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_cli_numbers.c - the daemon's number parsers (core/log.c):
 * vublk_parse_u64() for every count and id on the command line (-n, -q,
 * -d, --cache-mb...) and vublk_parse_size() for sizes (--size).  "-n 010"
 * once named device 8 (strtoull's base 0 read it as octal).
 *
 * Input: one byte choosing the parser (bit 0: size), min le64, max le64,
 * then the argument (the rest of the input, up to its first NUL).
 *
 * Oracle (abort() otherwise), computed here without strtoull: an argument
 * is accepted exactly when it is one or more decimal digits, for sizes
 * optionally followed by one of K, M, G, T (powers of 1024), and its value
 * fits in 64 bits and lies in [min, max]; then *out is that value.  A
 * refusal returns -EINVAL and leaves *out alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "fuzz_input.h"
#include "log.h"

#define ARG_MAX_LEN 64

/* The value the oracle expects, or false if the argument is refused. */
static bool expected(const char *s, bool size, uint64_t min, uint64_t max,
		     uint64_t *v)
{
	static const char units[] = "KMGT";
	unsigned __int128 n = 0;
	const char *p = s;
	unsigned shift = 0;

	for (; *p >= '0' && *p <= '9'; p++) {
		n = n * 10 + (unsigned)(*p - '0');
		if (n > UINT64_MAX)
			return false;
	}
	if (p == s)
		return false;
	if (*p) {
		const char *u = size ? memchr(units, *p, 4) : NULL;

		if (!u || p[1])
			return false;
		shift = 10 * (unsigned)(u - units + 1);
	}
	n <<= shift;
	if (n > UINT64_MAX || n < min || n > max)
		return false;
	*v = (uint64_t)n;
	return true;
}

/*
 * Refusals print one line each: not millions of them.  Only the parser's
 * own call runs with stderr on /dev/null: libFuzzer prints its final
 * statistics there, and fuzz/run reads them.
 */
static int stderr_silence(void)
{
	static int null_fd = -1;
	int saved = dup(STDERR_FILENO);

	if (null_fd < 0)
		null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (saved < 0 || null_fd < 0 || dup2(null_fd, STDERR_FILENO) < 0)
		abort();
	return saved;
}

static void stderr_restore(int saved)
{
	if (dup2(saved, STDERR_FILENO) < 0 || close(saved) < 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in;
	char arg[ARG_MAX_LEN + 1];
	uint64_t min, max, out = 0xdeadbeef, want = 0;
	bool is_size, ok;
	int ret, saved;

	fuzz_input_init(&in, data, size);
	is_size = fuzz_take_le(&in, 1) & 1;
	min = fuzz_take_le(&in, 8);
	max = fuzz_take_le(&in, 8);
	memset(arg, 0, sizeof(arg));
	fuzz_take_bytes(&in, arg, ARG_MAX_LEN);
	saved = stderr_silence();
	ret = is_size ? vublk_parse_size("--size", arg, min, max, &out) :
			vublk_parse_u64("-n", arg, min, max, &out);
	stderr_restore(saved);
	ok = expected(arg, is_size, min, max, &want);
	if (ok != (ret == 0))
		abort();
	if (ok ? out != want : (ret != -EINVAL || out != 0xdeadbeef))
		abort();
	return 0;
}
