// SPDX-License-Identifier: GPL-2.0-only
/*
 * sha256-lanes - CPU time per 4 KiB message of lib/merkle's SHA-256
 * compression on the x86 SHA extensions with 1 to 8 interleaved lanes,
 * and on AVX-512 with 16 where the CPU has it: the measurement behind
 * SHA256_NI_MAX_LANES (docs/PERFORMANCE.md, "More SHA-256 lanes" and
 * "AVX-512 lanes"), and the counts that the library's own quick timing
 * (merkle_sha256_lanes(), merkle_sha256_ni_lanes()) picks on this CPU,
 * after this load.  A benchmark, not a test: build/tools/sha256-lanes
 * [ROUNDS] (without $MERKLE_SHA256_LANES, which would replace the pick).  It compiles
 * lib/merkle/sha256_ni.c and sha256_avx512.c itself, so that it times
 * the very code the library runs, with lane counts the library does not
 * instantiate.
 *
 * Then the library's pick over data in the CPU's caches and over data
 * flushed from them, as a device's DMA leaves an O_DIRECT read's buffer:
 * what the "read + hashing" bound of vublk-bench verity (hashing measured
 * on cached data) does not charge an O_DIRECT read (docs/PERFORMANCE.md,
 * "O_DIRECT: hashing what DMA wrote").
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../../lib/merkle/sha256_avx512.c"
#include "../../lib/merkle/sha256_ni.c"

#define MESSAGE_BLOCKS 64	/* 4 KiB */
/* Not a constant to the compiler, as in the library's calls. */
static volatile size_t message_blocks = MESSAGE_BLOCKS;


static uint8_t messages[MERKLE_SHA256_MAX_LANES][MESSAGE_BLOCKS * 64];
static uint32_t states[MERKLE_SHA256_MAX_LANES][8];

SHA256_BLOCKS_LANES(blocks_3x, 3)
SHA256_BLOCKS_LANES(blocks_5x, 5)
SHA256_BLOCKS_LANES(blocks_6x, 6)
SHA256_BLOCKS_LANES(blocks_7x, 7)

/* The library's own lane counts and the others. */
static sha256_blocks_fn *const blocks_by_lanes[] = {
	NULL, sha256_blocks_1x, sha256_blocks_2x, blocks_3x, sha256_blocks_4x,
	blocks_5x, blocks_6x, blocks_7x, sha256_blocks_8x,
	[MERKLE_SHA256_AVX512_LANES] = merkle_sha256_avx512_blocks,
};

/* As vublk-bench verity's default: 16 requests of 128 KiB in flight. */
#define RING_REQUESTS 16
#define REQUEST_BYTES (128u << 10)

static uint8_t ring[RING_REQUESTS][REQUEST_BYTES] __attribute__((aligned(64)));

static double cpu_seconds(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)) {
		perror("sha256-lanes: clock_gettime");
		exit(1);
	}
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Evict a request's bytes from every cache level (clflush: SSE2). */
static void flush_request(const uint8_t *r)
{
	for (size_t off = 0; off < REQUEST_BYTES; off += 64)
		_mm_clflush(r + off);
	_mm_mfence();
}

/*
 * us of CPU per 4 KiB block hashing the ring's requests lanes blocks at a
 * time, each request flushed from the caches before it is hashed, or not;
 * only the hashing is timed.
 */
static double ring_us_per_block(size_t lanes, bool flushed, int passes)
{
	const size_t blocks = REQUEST_BYTES / 4096;
	const uint8_t *data[MERKLE_SHA256_MAX_LANES];
	double spent = 0;

	for (int p = 0; p < passes; p++) {
		for (int q = 0; q < RING_REQUESTS; q++) {
			double t0;

			if (flushed)
				flush_request(ring[q]);
			t0 = cpu_seconds();
			for (size_t b = 0; b + lanes <= blocks; b += lanes) {
				for (size_t j = 0; j < lanes; j++)
					data[j] = ring[q] + (b + j) * 4096;
				sha256_blocks_by_lanes[lanes](states, data,
							      NULL,
							      message_blocks);
			}
			spent += cpu_seconds() - t0;
		}
	}
	return spent / ((double)passes * RING_REQUESTS * blocks) * 1e6;
}

static void print_cached_and_flushed(size_t lanes, int rounds)
{
	for (size_t q = 0; q < RING_REQUESTS; q++)
		for (size_t i = 0; i < REQUEST_BYTES; i++)
			ring[q][i] = (uint8_t)(q * 7 + i * 13);
	printf("%zu lanes over %d requests of %u KiB, us of CPU per 4 KiB block\n",
	       lanes, RING_REQUESTS, REQUEST_BYTES >> 10);
	for (int r = 0; r < rounds; r++) {
		double cached = ring_us_per_block(lanes, false, 200);
		double flushed = ring_us_per_block(lanes, true, 200);

		printf("  cached %6.3f  flushed %6.3f  flushed/cached %.3f\n",
		       cached, flushed, flushed / cached);
	}
}

int main(int argc, char **argv)
{
	const uint8_t *data[MERKLE_SHA256_MAX_LANES];
	int rounds = argc > 1 ? atoi(argv[1]) : 3;

	if (!merkle_sha256_ni_usable()) {
		fprintf(stderr, "sha256-lanes: this CPU has no SHA extensions: nothing to measure\n");
		return 77;
	}
	if (rounds < 1) {
		fprintf(stderr, "sha256-lanes: ROUNDS must be a positive number, not '%s'\n",
			argv[1]);
		return 2;
	}
	for (int j = 0; j < MERKLE_SHA256_MAX_LANES; j++) {
		for (size_t i = 0; i < sizeof(messages[j]); i++)
			messages[j][i] = (uint8_t)(j * 7 + i * 13);
		data[j] = messages[j];
	}
	printf("lanes  us of CPU per 4 KiB message, %d rounds\n", rounds);
	for (int n = 1; n <= MERKLE_SHA256_MAX_LANES; n++) {
		int iterations = 40000 / n;

		if (!blocks_by_lanes[n] || !sha256_lanes_runnable((size_t)n))
			continue;

		printf("%5d ", n);
		for (int r = 0; r < rounds; r++) {
			double t0 = cpu_seconds();

			for (int i = 0; i < iterations; i++)
				blocks_by_lanes[n](states, data, NULL,
						   message_blocks);
			printf(" %6.3f", (cpu_seconds() - t0) / (iterations * n) * 1e6);
		}
		printf("\n");
	}
	printf("the library picks %zu lanes first and %zu SHA lanes after them here (merkle_sha256_lanes(), merkle_sha256_ni_lanes())\n",
	       merkle_sha256_lanes(), merkle_sha256_ni_lanes());
	print_cached_and_flushed(merkle_sha256_lanes(), rounds);
	return states[0][0] == 0x5eed ? 3 : 0;	/* keep the work */
}
