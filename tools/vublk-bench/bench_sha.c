// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_sha.c - the limits a verified read is measured against, on one
 * core over the same data blocks as the read:
 *
 *  - raw SHA-256: OpenSSL, one unsalted block per call, by the fastest
 *    path OpenSSL 3.0 has for a 4 KiB message (see bench_raw_sha256());
 *    the goal "verified read >= 0.9x raw single-core SHA-256" is stated
 *    against this.
 *  - lib/merkle's hashing: merkle_hash_blocks(), the batch call the
 *    verifier makes (salted, two blocks at once where the CPU allows);
 *    a read at this rate would spend nothing but hashing.
 *
 * The two alternate chunk by chunk, so that both see the same load.  Only
 * the hashing is timed; reading the data into memory is not.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/sha.h>

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

/*
 * OpenSSL 3.0's SHA256() one-shot fetches the algorithm from the provider
 * on every call (EVP_Q_digest()), which costs ~10% on 4 KiB here; EVP with
 * a reused context costs 2-4%; the low-level SHA256_* calls, deprecated
 * in 3.0 but still there, go straight to the same assembly (SHA-NI where
 * the CPU has it).  A limit must not be handicapped, so it uses those.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static int bench_raw_sha256(const uint8_t *data, size_t nblocks, size_t bs,
			    uint8_t *out)
{
	SHA256_CTX ctx;

	for (size_t i = 0; i < nblocks; i++) {
		if (SHA256_Init(&ctx) != 1 ||
		    SHA256_Update(&ctx, data + i * bs, bs) != 1 ||
		    SHA256_Final(out + i * SHA256_DIGEST_LENGTH, &ctx) != 1)
			return -EIO;
	}
	return 0;
}
#pragma GCC diagnostic pop

/* Time and CPU time spent by one of the limits, and its bytes. */
struct bench_sha_meter {
	double wall, cpu;
	uint64_t bytes;
};

static void bench_sha_rate(const struct bench_sha_meter *m,
			   struct bench_rate *rate)
{
	*rate = (struct bench_rate){ m->bytes / m->wall, m->bytes / m->cpu };
}

/* Start timing for a meter: the two clocks now. */
static void bench_sha_start(double *t0, double *c0)
{
	*t0 = bench_now();
	*c0 = bench_cpu_now();
}

/* Charge len bytes and the time since bench_sha_start() to m. */
static void bench_sha_stop(struct bench_sha_meter *m, double t0, double c0,
			   size_t len)
{
	m->cpu += bench_cpu_now() - c0;
	m->wall += bench_now() - t0;
	m->bytes += len;
}

/* Hash one chunk with each limit in turn. */
static int bench_sha_chunk(const struct merkle_params *p, const uint8_t *buf,
			   size_t len, uint8_t *digests,
			   struct bench_sha_meter meters[2])
{
	const size_t bs = (size_t)1 << p->log_blocksize;
	double t0, c0;
	int err;

	if (p->hash_alg == MERKLE_HASH_SHA256) {
		bench_sha_start(&t0, &c0);
		err = bench_raw_sha256(buf, len / bs, bs, digests);
		bench_sha_stop(&meters[0], t0, c0, len);
		if (err) {
			bench_error("OpenSSL's SHA256_Update failed");
			return err;
		}
	}
	bench_sha_start(&t0, &c0);
	err = merkle_hash_blocks(p, buf, len / bs, digests);
	bench_sha_stop(&meters[1], t0, c0, len);
	if (err)
		bench_error("merkle_hash_blocks failed: %s", merkle_strerror(err));
	return err;
}

int bench_sha_limits(int fd, const struct merkle_params *p,
		     uint64_t data_size, uint64_t bytes,
		     struct bench_rate *raw, struct bench_rate *merkle)
{
	const size_t bs = (size_t)1 << p->log_blocksize;
	/* Whole blocks of data only: the last, partial one is skipped. */
	uint64_t usable = data_size / bs * bs;
	size_t chunk = BENCH_SHA_CHUNK < usable ? BENCH_SHA_CHUNK : usable;
	uint8_t *buf = malloc(chunk);
	uint8_t *digests = malloc(chunk / bs * MERKLE_MAX_DIGEST_SIZE);
	struct bench_sha_meter meters[2] = { { 0 } };
	uint64_t off = 0;
	int err = 0;

	if (!buf || !digests || chunk == 0) {
		bench_error("cannot measure SHA-256: %s",
			    chunk ? "out of memory" : "no whole data block");
		free(buf);
		free(digests);
		return -ENOMEM;
	}
	while (meters[1].bytes < bytes && !err) {
		size_t len = usable - off < chunk ? usable - off : chunk;
		ssize_t got = bench_sha_load(fd, buf, len, off);

		if (got != (ssize_t)len) {
			bench_error("cannot read the image's data to hash it: %s",
				    got < 0 ? strerror(errno) : "short read");
			err = -EIO;
			break;
		}
		err = bench_sha_chunk(p, buf, len, digests, meters);
		off = off + len >= usable ? 0 : off + len;
	}
	free(buf);
	free(digests);
	if (!err && (meters[1].wall <= 0 || meters[1].cpu <= 0 ||
		     (meters[0].bytes && (meters[0].wall <= 0 ||
					  meters[0].cpu <= 0))))
		err = -ERANGE;	/* too little data to time */
	if (err)
		return err;
	*raw = (struct bench_rate){ 0, 0 };
	if (meters[0].bytes)
		bench_sha_rate(&meters[0], raw);
	bench_sha_rate(&meters[1], merkle);
	return 0;
}
