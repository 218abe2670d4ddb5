// SPDX-License-Identifier: GPL-2.0-only
/*
 * sha256_ni.c - SHA-256 on the x86 SHA extensions, of one message, or of
 * 2, 4 or 8 equal-length messages at once, interleaved; and the choice
 * of how many at once, 16 included (AVX-512, sha256_avx512.c).
 *
 * The kernel's sha256_finup_2x() (lib/crypto; x86: sha256_ni_finup2x()
 * in lib/crypto/x86/sha256-ni-asm.S), which fs/verity/verify.c uses since
 * Linux 6.18 ("fsverity: Use 2-way interleaved SHA-256 hashing when
 * supported"): one message is a chain of dependent sha256rnds2
 * instructions, bound by their latency, and leaves the SHA unit idle
 * between them; the rounds of a second, independent message fill those
 * gaps.  Its commit measured +64% (AMD Zen 5) to +98% (Zen 4) for 4 KiB
 * messages, +4..38% on Intel.  fs-verity's data blocks are all hashed from
 * the same salted state and have the same length, which is all this needs.
 *
 * Two lanes still leave the unit idle part of the time on AMD Zen 5: per
 * 4 KiB block, one lane takes 2.37 us of CPU, two 1.59, four 1.32, eight
 * 1.21 (docs/PERFORMANCE.md, "More SHA-256 lanes"), although more than
 * two lanes' state does not fit the 16 XMM registers that the SHA
 * instructions can name.  A server has many requests' blocks in hand at
 * once, so large groups are common (random 4 KiB reads at depth 16
 * complete 16 at a time).  On an Intel Xeon (model 207) eight lanes lose
 * to two instead (2.40 us against 2.13), so the count is the CPU's,
 * measured once per process: merkle_sha256_ni_lanes().  Where the CPU
 * has AVX-512, 16 messages at once without the SHA unit
 * (sha256_avx512.c) compete with that count, and go first where they
 * win (merkle_sha256_lanes()); smaller groups still take the SHA lanes.
 *
 * A lone message (a block without a partner: a 4 KiB random read, an odd
 * last block) goes through one lane of the same code: as fast as
 * OpenSSL's own SHA-NI code, without EVP_MD_CTX_copy_ex(), which in
 * OpenSSL 3.0 allocates the provider's state for every block.
 *
 * The message layout is FIPS 180-4's.  fs-verity's salted prefix is a
 * whole number of 64-byte blocks (merkle.h: the salt is padded to the
 * input block size), and so are Merkle blocks, so after the data comes
 * exactly one padding block: 0x80, zeroes, the bit length.  dm-verity's
 * salt is hashed as it is (32 bytes by veritysetup's default): its last
 * t < 64 bytes and the first 64 - t data bytes make each message's first
 * block, the data's whole blocks follow from there (unaligned loads), and
 * its last t bytes and the padding make one or two last blocks.
 */
#include <stdio.h>
#include <string.h>

#include "merkle_private.h"

/* The lane counts merkle_sha256_finup() takes: the SHA extensions'
 * (SHA256_NI_LANE_COUNTS of them), then AVX-512's, last. */
static const size_t sha256_lane_counts[] = {
	1, 2, 4, 8, MERKLE_SHA256_AVX512_LANES
};
#define SHA256_LANE_COUNTS \
	(sizeof(sha256_lane_counts) / sizeof(sha256_lane_counts[0]))
#define SHA256_NI_LANE_COUNTS (SHA256_LANE_COUNTS - 1)
#define SHA256_AVX512_COUNT SHA256_NI_LANE_COUNTS	/* its index */

#if defined(__x86_64__)

#include <cpuid.h>
#include <immintrin.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#define SHA256_TARGET __attribute__((target("sha,ssse3,sse4.1")))

/* FIPS 180-4, 4.2.2: the round constants (sha256_avx512.c's too). */
const uint32_t merkle_sha256_k[64] __attribute__((aligned(16))) = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/* FIPS 180-4, 5.3.3: the initial hash value. */
static const uint32_t sha256_h0[8] = {
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

/*
 * The CPU has the SHA extensions and the SSSE3/SSE4.1 shuffles used
 * around them.  Under valgrind (which does not emulate SHA) CPUID does
 * not report them, as for OpenSSL's own SHA-NI path.
 */
static bool sha256_cpu_has_sha_ni(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(1, &a, &b, &c, &d) ||
	    !(c & bit_SSSE3) || !(c & bit_SSE4_1))
		return false;
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return false;
	return b & bit_SHA;
}

bool merkle_cpu_probe_once(atomic_int *known, bool (*probe)(void))
{
	int v = atomic_load_explicit(known, memory_order_relaxed);

	if (!v) {
		v = probe() ? 2 : 1;
		atomic_store_explicit(known, v, memory_order_relaxed);
	}
	return v == 2;
}

bool merkle_sha256_ni_usable(void)
{
	static atomic_int known;

	return merkle_cpu_probe_once(&known, sha256_cpu_has_sha_ni);
}

/*
 * One message's working state in the layout sha256rnds2 wants: abef holds
 * the words A, B, E, F (A in the top lane), cdgh holds C, D, G, H.
 */
struct sha256_lane {
	__m128i abef, cdgh;
	__m128i w[4];		/* the next 16 message schedule words */
};

SHA256_TARGET static inline void sha256_lane_load(struct sha256_lane *l,
						  const uint32_t state[8])
{
	__m128i abcd = _mm_loadu_si128((const __m128i *)&state[0]);
	__m128i efgh = _mm_loadu_si128((const __m128i *)&state[4]);

	abcd = _mm_shuffle_epi32(abcd, 0xb1);		/* B A D C */
	efgh = _mm_shuffle_epi32(efgh, 0x1b);		/* H G F E */
	l->abef = _mm_alignr_epi8(abcd, efgh, 8);	/* F E B A */
	l->cdgh = _mm_blend_epi16(efgh, abcd, 0xf0);	/* H G D C */
}

SHA256_TARGET static inline void sha256_lane_store(const struct sha256_lane *l,
						   uint32_t state[8])
{
	__m128i feba = _mm_shuffle_epi32(l->abef, 0x1b);	/* A B E F */
	__m128i dchg = _mm_shuffle_epi32(l->cdgh, 0xb1);	/* G H C D */

	_mm_storeu_si128((__m128i *)&state[0],
			 _mm_blend_epi16(feba, dchg, 0xf0));	/* A B C D */
	_mm_storeu_si128((__m128i *)&state[4],
			 _mm_alignr_epi8(dchg, feba, 8));	/* E F G H */
}

/* The 16 words of a 64-byte block, big endian on the wire; stored as
 * loaded to copy too, unless it is NULL. */
SHA256_TARGET static inline void sha256_lane_message(struct sha256_lane *l,
						     const uint8_t *block,
						     uint8_t *copy)
{
	const __m128i bswap32 = _mm_set_epi64x(0x0c0d0e0f08090a0bULL,
					       0x0405060700010203ULL);

	for (int i = 0; i < 4; i++) {
		__m128i m = _mm_loadu_si128((const __m128i *)(block + 16 * i));

		/* m is what is hashed and what is copied: the compiler may
		 * not load the block a second time for either (copy may
		 * alias block today; this holds without that).  Only a copy
		 * needs the pin. */
		if (copy) {
			__asm__("" : "+x"(m));
			_mm_storeu_si128((__m128i *)(copy + 16 * i), m);
		}
		l->w[i] = _mm_shuffle_epi8(m, bswap32);
	}
}

/*
 * Rounds 4g .. 4g+3.  w[g % 4] holds their schedule words; for g < 12 it
 * is then replaced by the words of rounds 4g+16 .. 4g+19 (FIPS 180-4,
 * 6.2.2 step 1: W[t] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16]).
 */
SHA256_TARGET static inline void sha256_lane_4rounds(struct sha256_lane *l,
						     int g)
{
	__m128i *w0 = &l->w[g & 3], *w1 = &l->w[(g + 1) & 3];
	__m128i *w2 = &l->w[(g + 2) & 3], *w3 = &l->w[(g + 3) & 3];
	__m128i wk = _mm_add_epi32(*w0,
		_mm_load_si128((const __m128i *)&merkle_sha256_k[4 * g]));

	l->cdgh = _mm_sha256rnds2_epu32(l->cdgh, l->abef, wk);
	l->abef = _mm_sha256rnds2_epu32(l->abef, l->cdgh,
					_mm_shuffle_epi32(wk, 0x0e));
	if (g < 12) {
		__m128i t = _mm_add_epi32(_mm_sha256msg1_epu32(*w0, *w1),
					  _mm_alignr_epi8(*w3, *w2, 4));

		*w0 = _mm_sha256msg2_epu32(t, *w3);
	}
}

/*
 * SHA256_BLOCKS_LANES(name, N) defines name(state, data, copy, nblocks):
 * compress nblocks 64-byte blocks of each of N messages into their states
 * (and store each block, as it was loaded, at copy[j] + 64 * i, unless
 * copy is NULL: sha256_blocks_fn).  The
 * lanes' instructions alternate so that the CPU can run them side by
 * side; the loops are unrolled so that the lanes stay in registers as far
 * as they fit (more than two lanes do not fit the 16 XMM registers that
 * the SHA instructions can name: the compiler keeps some state and
 * message words on the stack).  A macro, not an inline function of a
 * constant lane count: GCC then keeps four lanes' arrays in registers
 * only when their size is a literal (tools/bench/sha256-lanes: 1.33 us
 * per 4 KiB block against 1.57 through an always_inline function).
 */
#define SHA256_BLOCKS_LANES(name, N)					\
SHA256_TARGET static void name(uint32_t state[][8],			\
			       const uint8_t *const data[],		\
			       uint8_t *const copy[], size_t nblocks)	\
{									\
	struct sha256_lane l[N];					\
	__m128i abef[N], cdgh[N];					\
									\
	for (int j = 0; j < N; j++)					\
		sha256_lane_load(&l[j], state[j]);			\
	for (size_t i = 0; i < nblocks; i++) {				\
		_Pragma("GCC unroll 8")					\
		for (int j = 0; j < N; j++) {				\
			abef[j] = l[j].abef;				\
			cdgh[j] = l[j].cdgh;				\
		}							\
		/* Two loops, so that the one without copies tests	\
		 * nothing per load (GCC -O2 does not unswitch). */	\
		if (copy) {						\
			_Pragma("GCC unroll 8")				\
			for (int j = 0; j < N; j++)			\
				sha256_lane_message(&l[j], data[j] + 64 * i, \
						    copy[j] + 64 * i);	\
		} else {						\
			_Pragma("GCC unroll 8")				\
			for (int j = 0; j < N; j++)			\
				sha256_lane_message(&l[j], data[j] + 64 * i, \
						    NULL);		\
		}							\
		_Pragma("GCC unroll 16")				\
		for (int g = 0; g < 16; g++) {				\
			_Pragma("GCC unroll 8")				\
			for (int j = 0; j < N; j++)			\
				sha256_lane_4rounds(&l[j], g);		\
		}							\
		_Pragma("GCC unroll 8")					\
		for (int j = 0; j < N; j++) {				\
			l[j].abef = _mm_add_epi32(l[j].abef, abef[j]);	\
			l[j].cdgh = _mm_add_epi32(l[j].cdgh, cdgh[j]);	\
		}							\
	}								\
	for (int j = 0; j < N; j++)					\
		sha256_lane_store(&l[j], state[j]);			\
}

SHA256_BLOCKS_LANES(sha256_blocks_1x, 1)
SHA256_BLOCKS_LANES(sha256_blocks_2x, 2)
SHA256_BLOCKS_LANES(sha256_blocks_4x, 4)
SHA256_BLOCKS_LANES(sha256_blocks_8x, 8)

/* By lane count: the counts merkle_sha256_finup() takes; 16 is
 * sha256_avx512.c's, where merkle_sha256_avx512_usable(). */
static sha256_blocks_fn *const sha256_blocks_by_lanes[] = {
	[1] = sha256_blocks_1x,
	[2] = sha256_blocks_2x,
	[4] = sha256_blocks_4x,
	[8] = sha256_blocks_8x,
	[MERKLE_SHA256_AVX512_LANES] = merkle_sha256_avx512_blocks,
};

/* How many timed passes each lane count gets. */
#define SHA256_TIMED_PASSES 5
/* Where nothing can be timed: the kernel's choice, two. */
#define SHA256_NI_UNTIMED_LANES 2

/* What the timed passes computed, every lane of it, kept so that no lane
 * is optimized away. */
static volatile uint32_t sha256_timing_sink;

/* CLOCK_MONOTONIC in ns into *ns; false if the clock failed. */
static bool sha256_now_ns(uint64_t *ns)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		return false;
	*ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	return true;
}

/* Whether this CPU runs n lanes at once: the AVX-512 ones need it. */
static bool sha256_lanes_runnable(size_t n)
{
	return n != MERKLE_SHA256_AVX512_LANES ||
	       merkle_sha256_avx512_usable();
}

/* Whether the timing tries the count of index c: AVX-512's only where
 * it does not slow the core down. */
static bool sha256_lanes_timed(size_t c)
{
	return c != SHA256_AVX512_COUNT || merkle_sha256_avx512_preferable();
}

/* Hash MERKLE_SHA256_MAX_LANES messages of 4 KiB, n at a time: the same
 * work whatever n.  Its time into *ns; false if the clock failed. */
static bool sha256_time_pass(size_t n, uint64_t *ns)
{
	/* Zeroes: the SHA instructions and AVX-512's take as long whatever
	 * the bytes, and the compression, not the loads, is what is
	 * timed. */
	static const uint8_t messages[MERKLE_SHA256_MAX_LANES][4096];
	uint32_t state[MERKLE_SHA256_MAX_LANES][8] = { { 0 } };
	const uint8_t *data[MERKLE_SHA256_MAX_LANES];
	uint64_t t0, t1;
	uint32_t sink = 0;

	if (!sha256_now_ns(&t0))
		return false;
	for (size_t k = 0; k < MERKLE_SHA256_MAX_LANES; k += n) {
		for (size_t j = 0; j < n; j++)
			data[j] = messages[k + j];
		sha256_blocks_by_lanes[n](state + k, data, NULL,
					  sizeof(messages[0]) / 64);
	}
	if (!sha256_now_ns(&t1))
		return false;
	for (size_t j = 0; j < MERKLE_SHA256_MAX_LANES; j++)
		sink ^= state[j][0];
	sha256_timing_sink = sink;
	*ns = t1 - t0;
	return true;
}

static size_t sha256_ni_lanes;		/* the SHA extensions' fastest */
static bool sha256_avx512_first;	/* AVX-512's 16 lanes beat them */
static pthread_once_t sha256_lanes_once = PTHREAD_ONCE_INIT;

/*
 * Take $MERKLE_SHA256_LANES, if it names a count this CPU runs; false if
 * not.  16 takes the SHA extensions' 8 for the smaller groups: a fixed
 * choice, so that a test or a fuzzer's input runs the same path every
 * time.
 */
static bool sha256_take_lanes_from_env(void)
{
	const char *v = getenv("MERKLE_SHA256_LANES");
	size_t n = v ? merkle_sha256_lanes_named(v) : 0;

	if (!n || !sha256_lanes_runnable(n))
		return false;
	sha256_avx512_first = n == MERKLE_SHA256_AVX512_LANES;
	sha256_ni_lanes = sha256_avx512_first ? SHA256_NI_MAX_LANES : n;
	return true;
}

/*
 * The fastest count of the SHA extensions, and whether AVX-512's 16
 * lanes beat it, as the kernel's RAID-6 code times each syndrome
 * function at boot and keeps the fastest (lib/raid6/algos.c:
 * raid6_choose_gen()): about 1 ms, once.  The SHA count is kept apart
 * from AVX-512's: groups of fewer than 16 blocks take it, and it need
 * not be 8 (two lanes win on an Intel Xeon, four on a busy Zen 5).  The
 * counts take turns pass by pass, in one order and then the other, so
 * that a CPU still raising its clock favours neither the first nor the
 * last, and each keeps its fastest pass (an interrupted pass only ever
 * looks slower); the first round warms up and is not counted.
 */
static void sha256_choose_lanes(void)
{
	uint64_t best[SHA256_LANE_COUNTS], fastest = UINT64_MAX, t;

	if (sha256_take_lanes_from_env())
		return;
	sha256_ni_lanes = SHA256_NI_UNTIMED_LANES;
	for (size_t c = 0; c < SHA256_LANE_COUNTS; c++)
		best[c] = UINT64_MAX;
	for (int pass = 0; pass <= SHA256_TIMED_PASSES; pass++) {
		for (size_t i = 0; i < SHA256_LANE_COUNTS; i++) {
			size_t c = pass % 2 ? SHA256_LANE_COUNTS - 1 - i : i;

			if (!sha256_lanes_timed(c))
				continue;
			if (!sha256_time_pass(sha256_lane_counts[c], &t))
				return;
			if (pass && t < best[c])
				best[c] = t;
		}
	}
	for (size_t c = 0; c < SHA256_NI_LANE_COUNTS; c++) {
		if (best[c] < fastest) {
			fastest = best[c];
			sha256_ni_lanes = sha256_lane_counts[c];
		}
	}
	sha256_avx512_first = best[SHA256_AVX512_COUNT] < fastest;
}

size_t merkle_sha256_ni_lanes(void)
{
	/* pthread_once() fails only on invalid arguments. */
	(void)pthread_once(&sha256_lanes_once, sha256_choose_lanes);
	return sha256_ni_lanes;
}

size_t merkle_sha256_lanes(void)
{
	size_t ni = merkle_sha256_ni_lanes();

	return sha256_avx512_first ? MERKLE_SHA256_AVX512_LANES : ni;
}

void merkle_sha256_ni_init(struct merkle_sha256_prefix *prefix,
			   const uint8_t *data, size_t len)
{
	memcpy(prefix->state, sha256_h0, sizeof(sha256_h0));
	sha256_blocks_1x(&prefix->state, &data, NULL, len / 64);
	prefix->bytes = len;
	prefix->tail_len = len % 64;
	memcpy(prefix->tail, data + len - prefix->tail_len,
	       prefix->tail_len);
}

static void sha256_put_be32(uint8_t *out, uint32_t v)
{
	out[0] = (uint8_t)(v >> 24);
	out[1] = (uint8_t)(v >> 16);
	out[2] = (uint8_t)(v >> 8);
	out[3] = (uint8_t)v;
}

/*
 * The last blocks of a message of 'bytes' bytes whose last r < 64 bytes
 * are rest: rest, 0x80, zeroes, the bit length (FIPS 180-4, 5.1.1).
 * Returns how many blocks (1, or 2 when r > 55).
 */
static size_t sha256_last_blocks(uint8_t out[128], const uint8_t *rest,
				 size_t r, uint64_t bytes)
{
	uint64_t bits = bytes * 8;
	size_t n = r + 9 > 64 ? 2 : 1;

	memset(out, 0, 64 * n);
	memcpy(out, rest, r);
	out[r] = 0x80;
	for (int i = 0; i < 8; i++)
		out[64 * n - 8 + i] = (uint8_t)(bits >> (56 - 8 * i));
	return n;
}

/*
 * How a message prefix || data (len bytes) is cut: its first block when
 * the prefix has a tail, made in first[]; whole blocks of data from
 * data + head; its last blocks, made in last[].
 */
struct sha256_cut {
	size_t head;		/* data bytes in the first block */
	size_t whole;		/* whole blocks of data after them */
	size_t nlast;
};

static struct sha256_cut sha256_cut(const struct merkle_sha256_prefix *p,
				    const uint8_t *data, size_t len,
				    uint8_t first[64], uint8_t last[128])
{
	struct sha256_cut c = { .head = p->tail_len ? 64 - p->tail_len : 0 };
	size_t r;

	memcpy(first, p->tail, p->tail_len);
	memcpy(first + p->tail_len, data, c.head);
	c.whole = (len - c.head) / 64;
	r = (len - c.head) % 64;
	c.nlast = sha256_last_blocks(last, data + len - r, r, p->bytes + len);
	return c;
}

static void sha256_put_digest(uint8_t out[32], const uint32_t state[8])
{
	for (int i = 0; i < 8; i++)
		sha256_put_be32(out + 4 * i, state[i]);
}

/*
 * Copying as well: the whole blocks are stored as they are loaded
 * (sha256_blocks_fn); the bytes of the first and last blocks were
 * copied into first[] and last[] by sha256_cut() and are hashed from
 * there, so they go to copy from there.
 */
static void sha256_copy_cut(uint8_t *copy, const struct sha256_cut *c,
			    const uint8_t first[64], size_t tail_len,
			    const uint8_t last[128], size_t len)
{
	size_t r = len - c->head - 64 * c->whole;

	memcpy(copy, first + tail_len, c->head);
	memcpy(copy + len - r, last, r);
}

void merkle_sha256_finup(const struct merkle_sha256_prefix *prefix,
			 const uint8_t *const data[], uint8_t *const copy[],
			 size_t lanes, size_t len, uint8_t *out)
{
	uint8_t first[MERKLE_SHA256_MAX_LANES][64];
	uint8_t last[MERKLE_SHA256_MAX_LANES][128];
	const uint8_t *firsts[MERKLE_SHA256_MAX_LANES];
	/* Initialized only for GCC's -Wmaybe-uninitialized without LTO:
	 * lanes >= 1 fills what is read. */
	const uint8_t *wholes[MERKLE_SHA256_MAX_LANES] = { NULL };
	uint8_t *whole_copies[MERKLE_SHA256_MAX_LANES] = { NULL };
	const uint8_t *lasts[MERKLE_SHA256_MAX_LANES];
	uint32_t state[MERKLE_SHA256_MAX_LANES][8];
	sha256_blocks_fn *blocks = sha256_blocks_by_lanes[lanes];
	struct sha256_cut c = { 0 };

	for (size_t j = 0; j < lanes; j++) {
		c = sha256_cut(prefix, data[j], len, first[j], last[j]);
		firsts[j] = first[j];
		wholes[j] = data[j] + c.head;
		lasts[j] = last[j];
		memcpy(state[j], prefix->state, sizeof(prefix->state));
		if (copy) {
			/* first[] and last[] are what is hashed: the copy is
			 * made from them, never from a second load of data
			 * (a compiler may forward a memcpy's source). */
			__asm__("" : : "r"(first[j]), "r"(last[j]) : "memory");
			sha256_copy_cut(copy[j], &c, first[j],
					prefix->tail_len, last[j], len);
			whole_copies[j] = copy[j] + c.head;
		}
	}
	if (c.head)
		blocks(state, firsts, NULL, 1);
	blocks(state, wholes, copy ? whole_copies : NULL, c.whole);
	blocks(state, lasts, NULL, c.nlast);
	for (size_t j = 0; j < lanes; j++)
		sha256_put_digest(out + 32 * j, state[j]);
}

#else /* !__x86_64__: no SHA extensions; the callers use OpenSSL alone. */

bool merkle_sha256_ni_usable(void)
{
	return false;
}

size_t merkle_sha256_ni_lanes(void)
{
	return 1;
}

size_t merkle_sha256_lanes(void)
{
	return 1;
}

void merkle_sha256_ni_init(struct merkle_sha256_prefix *prefix,
			   const uint8_t *data, size_t len)
{
	(void)data;
	memset(prefix, 0, sizeof(*prefix));
	prefix->bytes = len;
}

void merkle_sha256_finup(const struct merkle_sha256_prefix *prefix,
			 const uint8_t *const data[], uint8_t *const copy[],
			 size_t lanes, size_t len, uint8_t *out)
{
	(void)prefix, (void)data, (void)copy, (void)lanes, (void)len,
	(void)out;
}

#endif

size_t merkle_sha256_lanes_named(const char *name)
{
	char count[8];

	for (size_t c = 0; c < SHA256_LANE_COUNTS; c++) {
		snprintf(count, sizeof(count), "%zu", sha256_lane_counts[c]);
		if (!strcmp(name, count))
			return sha256_lane_counts[c];
	}
	return 0;
}
