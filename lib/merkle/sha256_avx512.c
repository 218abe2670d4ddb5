// SPDX-License-Identifier: GPL-2.0-only
/*
 * sha256_avx512.c - the SHA-256 compression of 16 equal-length messages at
 * once, one message per 32-bit lane of the AVX-512 registers.
 *
 * sha256_ni.c interleaves up to eight messages on the SHA extensions, and
 * on AMD Zen 5 eight lanes fill the SHA unit: 1.2 us of CPU per 4 KiB
 * message, against 2.4 for one.  The same rounds written with plain
 * vector operations (FIPS 180-4, 6.2.2, for 16 messages side by side)
 * take a little less there, and they do not depend on the SHA unit: on
 * this project's (virtualised) Zen 5 host, eight SHA lanes took anywhere
 * from 1.14 to 2.16 us per message from one minute to the next, while
 * these stayed within 1.06-1.36 (docs/PERFORMANCE.md, "AVX-512
 * lanes").  The two do not add up: run side by side in one loop they
 * share the vector pipes and take as long per message as either alone.
 * So this is one more lane count for sha256_ni.c's timing to choose
 * (merkle_sha256_lanes()), as the kernel's RAID-6 code chooses among its
 * SSE, AVX2 and AVX-512 syndrome functions by timing them
 * (lib/raid6/algos.c).
 *
 * This is the message-parallel form of the multi-buffer SHA-256 code
 * (Intel's "multi-buffer" hashing, as in isa-l_crypto's sha256_mb): each
 * register holds one working variable or schedule word of all 16
 * messages, the messages' 64-byte blocks are transposed into that
 * layout as they are loaded, and AVX-512's rotates and three-input
 * logic (vpternlogd) make a round about 17 operations.  Only the
 * compression is here: sha256_ni.c cuts the messages into blocks, adds
 * the padding and writes the digests, whatever the lane count.
 */
#include <string.h>

#include "merkle_private.h"

#if defined(__x86_64__)

#include <cpuid.h>
#include <immintrin.h>

#define AVX512_TARGET __attribute__((target("avx512f,avx512bw")))

/* XCR0: the OS saves the SSE and AVX state, the opmask registers, the
 * upper halves of ZMM0-15 and ZMM16-31 (Intel SDM vol. 1, 13.3). */
#define XCR0_AVX512_STATE 0xe6

/*
 * Intel CPUs that lower their clock while 512-bit registers are in use,
 * for everything else the core runs too: the kernel's crypto and CRC code
 * prefers its 256-bit versions there (arch/x86/kernel/cpu/intel.c:
 * zmm_exclusion_list, which sets X86_FEATURE_PREFER_YMM), and the timing
 * does not offer the 16 lanes there.  Family 6 models: Skylake-X (and
 * Cascade and Cooper Lake, the same model), Ice Lake-X, -D, client, -L
 * and NNPI, Tiger Lake-L and client.  A short timing of the hashing alone
 * would not see the cost.
 */
static const unsigned char sha256_zmm_downclock_models[] = {
	0x55, 0x6a, 0x6c, 0x7d, 0x7e, 0x9d, 0x8c, 0x8d,
};

static bool sha256_cpu_downclocks_zmm(void)
{
	unsigned a, b, c, d, family, model;

	if (!__get_cpuid(0, &a, &b, &c, &d) || b != signature_INTEL_ebx ||
	    d != signature_INTEL_edx || c != signature_INTEL_ecx)
		return false;
	if (!__get_cpuid(1, &a, &b, &c, &d))
		return false;
	family = (a >> 8) & 0xf;
	model = ((a >> 4) & 0xf) | ((a >> 12) & 0xf0);
	if (family != 6)
		return false;
	return memchr(sha256_zmm_downclock_models, (int)model,
		      sizeof(sha256_zmm_downclock_models)) != NULL;
}

/*
 * The CPU has AVX-512 F (the 32-bit lane operations) and BW (the byte
 * shuffle that turns the big-endian words around), and the OS saves the
 * registers across context switches.  Valgrind does not emulate AVX-512
 * and does not report it.
 */
static bool sha256_cpu_has_avx512(void)
{
	unsigned a, b, c, d, xcr0_lo, xcr0_hi;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE))
		return false;
	__asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
	(void)xcr0_hi;
	if ((xcr0_lo & XCR0_AVX512_STATE) != XCR0_AVX512_STATE)
		return false;
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return false;
	return (b & bit_AVX512F) && (b & bit_AVX512BW);
}

bool merkle_sha256_avx512_usable(void)
{
	static atomic_int known;

	return merkle_cpu_probe_once(&known, sha256_cpu_has_avx512);
}

bool merkle_sha256_avx512_preferable(void)
{
	static atomic_int known;

	return merkle_sha256_avx512_usable() &&
	       !merkle_cpu_probe_once(&known, sha256_cpu_downclocks_zmm);
}

#define ROR(x, n) _mm512_ror_epi32((x), (n))
/* vpternlogd's truth tables: a ^ b ^ c, a ? b : c (Ch), majority (Maj). */
#define XOR3(a, b, c) _mm512_ternarylogic_epi32((a), (b), (c), 0x96)
#define CH(e, f, g) _mm512_ternarylogic_epi32((e), (f), (g), 0xca)
#define MAJ(a, b, c) _mm512_ternarylogic_epi32((a), (b), (c), 0xe8)

/*
 * Rows to columns: r[j] holds the 16 words of message j's block; after
 * this, r[t] holds word t of every message (lane j: message j).  Two
 * rounds of unpacking pair up words and then word pairs, two rounds of
 * 128-bit lane shuffles do the same for the four 128-bit quarters.
 */
AVX512_TARGET static inline void sha256_transpose16(__m512i r[16])
{
	__m512i t[16];

	for (int i = 0; i < 16; i += 2) {
		t[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
		t[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
	}
	for (int i = 0; i < 16; i += 4) {
		r[i] = _mm512_unpacklo_epi64(t[i], t[i + 2]);
		r[i + 1] = _mm512_unpackhi_epi64(t[i], t[i + 2]);
		r[i + 2] = _mm512_unpacklo_epi64(t[i + 1], t[i + 3]);
		r[i + 3] = _mm512_unpackhi_epi64(t[i + 1], t[i + 3]);
	}
	for (int h = 0; h < 16; h += 8) {
		for (int i = 0; i < 4; i++) {
			t[h + i] = _mm512_shuffle_i32x4(r[h + i], r[h + 4 + i],
							0x88);
			t[h + 4 + i] = _mm512_shuffle_i32x4(r[h + i],
							    r[h + 4 + i], 0xdd);
		}
	}
	for (int i = 0; i < 8; i++) {
		r[i] = _mm512_shuffle_i32x4(t[i], t[8 + i], 0x88);
		r[8 + i] = _mm512_shuffle_i32x4(t[i], t[8 + i], 0xdd);
	}
}

/* Word t of every message's current block, t < 16: loaded (and stored as
 * loaded to copy, unless it is NULL), transposed and turned from big
 * endian. */
AVX512_TARGET static inline void sha256_load_words(__m512i w[16],
						   const uint8_t *const data[],
						   uint8_t *const copy[],
						   size_t offset)
{
	const __m512i bswap32 = _mm512_broadcast_i32x4(_mm_set_epi64x(
		0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL));

	if (copy) {
		for (int j = 0; j < MERKLE_SHA256_AVX512_LANES; j++) {
			w[j] = _mm512_loadu_si512(data[j] + offset);
			/* One load for the hash and the copy (sha256_ni.c:
			 * sha256_lane_message()). */
			__asm__("" : "+v"(w[j]));
			_mm512_storeu_si512(copy[j] + offset, w[j]);
		}
	} else {
		/* Without a copy nothing is pinned: the compiler
		 * schedules the loads as it likes. */
		for (int j = 0; j < MERKLE_SHA256_AVX512_LANES; j++)
			w[j] = _mm512_loadu_si512(data[j] + offset);
	}
	sha256_transpose16(w);
	for (int t = 0; t < 16; t++)
		w[t] = _mm512_shuffle_epi8(w[t], bswap32);
}

/*
 * Ask for every message's next block while this one is compressed.  An
 * O_DIRECT read's data is in no cache (DMA wrote it), and 16 streams of
 * 64-byte steps are more than the CPU's own prefetchers keep ahead of:
 * hashing 16 flushed 128 KiB requests took 1.44-1.50 us per 4 KiB block
 * without this and 1.37 with it (tools/bench/sha256-lanes, AMD Zen 5;
 * fetching two or more blocks ahead gained nothing more).  The one past
 * a message's end is harmless: prefetches do not fault.
 */
AVX512_TARGET static inline void
sha256_prefetch_next(const uint8_t *const data[], size_t offset)
{
	for (int j = 0; j < MERKLE_SHA256_AVX512_LANES; j++)
		_mm_prefetch((const char *)data[j] + offset, _MM_HINT_T0);
}

/* FIPS 180-4, 6.2.2 step 1, in place in the 16-word window: W[t] =
 * s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16], for t >= 16. */
AVX512_TARGET static inline __m512i sha256_schedule(__m512i w[16], int t)
{
	__m512i w15 = w[(t - 15) & 15], w2 = w[(t - 2) & 15];
	__m512i s0 = XOR3(ROR(w15, 7), ROR(w15, 18), _mm512_srli_epi32(w15, 3));
	__m512i s1 = XOR3(ROR(w2, 17), ROR(w2, 19), _mm512_srli_epi32(w2, 10));

	w[t & 15] = _mm512_add_epi32(_mm512_add_epi32(w[t & 15], s0),
				     _mm512_add_epi32(w[(t - 7) & 15], s1));
	return w[t & 15];
}

/*
 * One round (FIPS 180-4, 6.2.2 step 3) on v[] = a..h, renamed by the
 * caller's index rather than moved: v[(8 - t) & 7] is a at round t.
 * T1 = h + S1(e) + Ch(e, f, g) + K[t] + W[t] is summed with e's terms
 * last, so that the chain from one round's e to the next is short.
 */
AVX512_TARGET static inline void sha256_round(__m512i v[8], int t, __m512i wt)
{
	__m512i *a = &v[(8 - t) & 7], *b = &v[(9 - t) & 7];
	__m512i *c = &v[(10 - t) & 7], *d = &v[(11 - t) & 7];
	__m512i *e = &v[(12 - t) & 7], *f = &v[(13 - t) & 7];
	__m512i *g = &v[(14 - t) & 7], *h = &v[(15 - t) & 7];
	__m512i hkw = _mm512_add_epi32(*h, _mm512_add_epi32(wt,
				_mm512_set1_epi32((int)merkle_sha256_k[t])));
	__m512i t1 = _mm512_add_epi32(_mm512_add_epi32(hkw, CH(*e, *f, *g)),
				      XOR3(ROR(*e, 6), ROR(*e, 11), ROR(*e, 25)));
	__m512i t2 = _mm512_add_epi32(XOR3(ROR(*a, 2), ROR(*a, 13), ROR(*a, 22)),
				      MAJ(*a, *b, *c));

	/* The new e is d + T1 and the new a T1 + T2; h's register is a's
	 * next round. */
	*d = _mm512_add_epi32(*d, t1);
	*h = _mm512_add_epi32(t1, t2);
}

AVX512_TARGET void merkle_sha256_avx512_blocks(uint32_t state[][8],
					       const uint8_t *const data[],
					       uint8_t *const copy[],
					       size_t nblocks)
{
	uint32_t columns[8][MERKLE_SHA256_AVX512_LANES];
	__m512i s[8], v[8], w[16];

	for (int i = 0; i < 8; i++)
		for (int j = 0; j < MERKLE_SHA256_AVX512_LANES; j++)
			columns[i][j] = state[j][i];
	for (int i = 0; i < 8; i++)
		s[i] = _mm512_loadu_si512(columns[i]);
	for (size_t blk = 0; blk < nblocks; blk++) {
		sha256_prefetch_next(data, 64 * (blk + 1));
		memcpy(v, s, sizeof(v));
		sha256_load_words(w, data, copy, 64 * blk);
		_Pragma("GCC unroll 64")
		for (int t = 0; t < 64; t++)
			sha256_round(v, t, t < 16 ? w[t] : sha256_schedule(w, t));
		/* 64 rounds rename a..h eight times over: v[i] is back to
		 * the variable it started as. */
		for (int i = 0; i < 8; i++)
			s[i] = _mm512_add_epi32(s[i], v[i]);
	}
	for (int i = 0; i < 8; i++)
		_mm512_storeu_si512(columns[i], s[i]);
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < MERKLE_SHA256_AVX512_LANES; j++)
			state[j][i] = columns[i][j];
}

#else /* !__x86_64__ */

bool merkle_sha256_avx512_usable(void)
{
	return false;
}

bool merkle_sha256_avx512_preferable(void)
{
	return false;
}

#endif
