// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_sha.c - the limit a verified read is measured against: how fast
 * one core hashes the same data blocks with merkle_hash_blocks(), the
 * batch call the verifier uses.  Only the hashing is timed; reading the
 * data into memory is not.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vublk_bench.h"

#define BENCH_SHA_CHUNK (4u << 20)

/* Read up to len bytes of data at off (whole blocks); bytes read, or -1. */
static ssize_t bench_sha_load(int fd, uint8_t *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, buf + done, len - done, off + done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -1 : (ssize_t)done;
		done += n;
	}
	return (ssize_t)done;
}

int bench_sha_throughput(int fd, const struct merkle_params *p,
			 uint64_t data_size, uint64_t bytes,
			 struct bench_rate *rate)
{
	const size_t bs = (size_t)1 << p->log_blocksize;
	/* Whole blocks of data only: the last, partial one is skipped. */
	uint64_t usable = data_size / bs * bs;
	size_t chunk = BENCH_SHA_CHUNK < usable ? BENCH_SHA_CHUNK : usable;
	uint8_t *buf = malloc(chunk);
	uint8_t *digests = malloc(chunk / bs * MERKLE_MAX_DIGEST_SIZE);
	uint64_t off = 0, hashed = 0;
	double spent = 0, cpu = 0;
	int err = 0;

	if (!buf || !digests || chunk == 0) {
		bench_error("cannot measure SHA-256: %s",
			    chunk ? "out of memory" : "no whole data block");
		free(buf);
		free(digests);
		return -ENOMEM;
	}
	while (hashed < bytes && !err) {
		size_t len = usable - off < chunk ? usable - off : chunk;
		ssize_t got = bench_sha_load(fd, buf, len, off);
		double t0, c0;

		if (got != (ssize_t)len) {
			bench_error("cannot read the image's data to hash it: %s",
				    got < 0 ? strerror(errno) : "short read");
			err = -EIO;
			break;
		}
		t0 = bench_now();
		c0 = bench_cpu_now();
		err = merkle_hash_blocks(p, buf, len / bs, digests);
		cpu += bench_cpu_now() - c0;
		spent += bench_now() - t0;
		hashed += len;
		off = off + len >= usable ? 0 : off + len;
	}
	if (err && err != -EIO)
		bench_error("merkle_hash_blocks failed: %s", merkle_strerror(err));
	free(buf);
	free(digests);
	if (!err && (spent <= 0 || cpu <= 0))
		err = -ERANGE;	/* too little data to time */
	if (!err)
		*rate = (struct bench_rate){ hashed / spent, hashed / cpu };
	return err;
}
