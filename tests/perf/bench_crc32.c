/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * Benchmark of the standard CRC-32 (IEEE 802.3 / zlib: reflected polynomial
 * 0x04C11DB7, init ~0, final xor ~0) that the RoCE v2 ICRC needs, chained
 * over several pieces (a masked pseudo-header copy, then mbuf segments):
 * zlib crc32() (the in-run baseline), ISA-L crc32_gzip_refl(),
 * DPDK rte_net_crc_calc() (SSE4.2/PCLMULQDQ) and a byte-wise table CRC.
 *
 * First a correctness check, which fails the run: the four agree on every
 * length 0..300 at four alignments and on the check value of "123456789",
 * and crc(A||B||C) == crc(crc(crc(A), B), C) for zlib, ISA-L and the table.
 * Then TSC cycles/byte and GB/s, median over rounds, beside zlib. Figures
 * never fail the run. OMNIPLANE_PERF_QUICK=1 runs short rounds.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isa-l/crc.h>
#include <zlib.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_net_crc.h>

#include "test_eal.h"
#include "bench_stats.h"

#define MAX_LEN 4096
#define CHECK_LEN 300
#define MAX_ROUNDS 101

typedef uint32_t (*crc_fn)(const uint8_t *buf, uint32_t len);

static uint8_t data[MAX_LEN + 64] __rte_aligned(64);
static uint32_t table[256];
static double samples[MAX_ROUNDS];
static volatile uint32_t sink;

static void
table_init(void)
{
	uint32_t i, j, c;

	for (i = 0; i < 256; i++) {
		for (c = i, j = 0; j < 8; j++)
			c = (c & 1) ? 0xEDB88320 ^ (c >> 1) : c >> 1;
		table[i] = c;
	}
}

/* The naive baseline; zlib's calling convention (chainable, 0 to start). */
static uint32_t
table_crc32(uint32_t crc, const uint8_t *buf, uint32_t len)
{
	crc = ~crc;
	while (len--)
		crc = table[(crc ^ *buf++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static uint32_t
run_zlib(const uint8_t *buf, uint32_t len)
{
	return crc32(0, buf, len);
}

static uint32_t
run_isal(const uint8_t *buf, uint32_t len)
{
	return crc32_gzip_refl(0, buf, len);
}

static uint32_t
run_dpdk(const uint8_t *buf, uint32_t len)
{
	return rte_net_crc_calc(buf, len, RTE_NET_CRC32_ETH);
}

static uint32_t
run_table(const uint8_t *buf, uint32_t len)
{
	return table_crc32(0, buf, len);
}

static const struct {
	const char *name;
	crc_fn fn;
} impls[] = {
	{ "zlib crc32", run_zlib },
	{ "ISA-L gzip_refl", run_isal },
	{ "rte_net_crc SSE42", run_dpdk },
	{ "byte table", run_table },
};

static void
fail(const char *what, uint32_t len, uint32_t got, uint32_t want)
{
	fprintf(stderr, "bench_crc32: FAIL: %s, length %u: 0x%08x, want 0x%08x\n",
		what, len, got, want);
	test_eal_cleanup_perf();
	exit(1);
}

/* The correctness check: any mismatch ends the run with status 1. */
static void
verify(void)
{
	static const uint32_t cuts[] = { 0, 1, 7, 8, 40, 64, 255, 1000, 4095, MAX_LEN };
	const uint8_t *d = data;
	uint32_t len, off, a, b, want, got;
	unsigned int i;

	for (i = 0; i < RTE_DIM(impls); i++) {
		got = impls[i].fn((const uint8_t *)"123456789", 9);
		if (got != 0xCBF43926)
			fail(impls[i].name, 9, got, 0xCBF43926);
	}
	for (off = 0; off < 4; off++)
		for (len = 0; len <= CHECK_LEN; len++) {
			want = crc32(0, d + off, len);
			for (i = 1; i < RTE_DIM(impls); i++) {
				got = impls[i].fn(d + off, len);
				if (got != want)
					fail(impls[i].name, len, got, want);
			}
		}
	/* chained over three pieces [0,a) [a,b) [b,MAX_LEN) */
	want = crc32(0, d, MAX_LEN);
	for (i = 0; i < RTE_DIM(cuts) * RTE_DIM(cuts); i++) {
		a = cuts[i / RTE_DIM(cuts)];
		b = cuts[i % RTE_DIM(cuts)];
		if (b < a)
			continue;
		got = crc32(crc32(crc32(0, d, a), d + a, b - a), d + b, MAX_LEN - b);
		if (got != want)
			fail("zlib chained", MAX_LEN, got, want);
		got = crc32_gzip_refl(crc32_gzip_refl(crc32_gzip_refl(0, d, a),
						      d + a, b - a), d + b, MAX_LEN - b);
		if (got != want)
			fail("ISA-L chained", MAX_LEN, got, want);
		got = table_crc32(table_crc32(table_crc32(0, d, a), d + a, b - a),
				  d + b, MAX_LEN - b);
		if (got != want)
			fail("byte table chained", MAX_LEN, got, want);
	}
}

/* Median TSC cycles/byte of @rounds rounds of @reps calls on @len bytes. */
static double
measure(crc_fn fn, uint32_t len, unsigned int reps, unsigned int rounds)
{
	uint32_t acc = 0;
	unsigned int k, r;

	for (k = 0; k < rounds; k++) {
		uint64_t t0 = rte_rdtsc_precise(), t1;

		for (r = 0; r < reps; r++) {
			acc ^= fn(data, len);
			/* the calls are pure: keep the compiler from merging them */
			rte_compiler_barrier();
		}
		t1 = rte_rdtsc_precise();
		samples[k] = (double)(t1 - t0) / ((double)reps * len);
	}
	sink = acc;
	return bench_median(samples, rounds);
}

int
main(void)
{
	static const uint32_t sizes[] = { 64, 256, 1024, MAX_LEN };
	const int quick = getenv("OMNIPLANE_PERF_QUICK") != NULL;
	const unsigned int rounds = quick ? 11 : MAX_ROUNDS;
	const uint32_t round_bytes = quick ? 64 << 10 : 1 << 20;
	uint64_t seed = 0x0C1CC0FFEEULL;
	double hz, cpb[RTE_DIM(impls)];
	unsigned int s, i, best;

	if (test_eal_init_perf("bench_crc32") < 0)
		return 1;
	/*
	 * After EAL: before rte_eal_init() the max SIMD bitwidth reads 0 and
	 * rte_net_crc_set_alg(RTE_NET_CRC_SSE42) silently picks the scalar code.
	 */
	rte_net_crc_set_alg(RTE_NET_CRC_SSE42);
	table_init();
	for (i = 0; i < sizeof(data); i++)
		data[i] = test_rand(&seed) >> 56;
	verify();
	hz = rte_get_tsc_hz();
	printf("CRC-32 (IEEE 802.3 / zlib) benchmark: "
	       "median of %u rounds of %u KiB, TSC %.2f GHz%s\n",
	       rounds, round_bytes >> 10, hz / 1e9,
	       quick ? " (quick mode: figures indicative only)" : "");
	printf("verified: the four agree "
	       "(lengths 0..%d, 4 alignments, \"123456789\" = cbf43926);\n"
	       "  chaining crc(A||B||C) == crc(crc(crc(A), B), C) holds "
	       "for zlib, ISA-L, byte table\n",
	       CHECK_LEN);
	printf("note: rte_net_crc_calc(buf, len, type) takes no seed: it cannot chain over a\n"
	       "  pseudo-header copy and mbuf segments, so it cannot compute the ICRC as is\n");
	printf("TSC cycles/byte, GB/s and speed vs zlib (x > 1: faster than zlib)\n");
	printf("size  ");
	for (i = 0; i < RTE_DIM(impls); i++)
		printf(" | %-24s", impls[i].name);
	printf(" | fastest\n");
	for (s = 0; s < RTE_DIM(sizes); s++) {
		unsigned int reps = round_bytes / sizes[s];

		best = 0;
		for (i = 0; i < RTE_DIM(impls); i++) {
			measure(impls[i].fn, sizes[s], reps / 10 + 1, 3); /* warm-up */
			cpb[i] = measure(impls[i].fn, sizes[s], reps, rounds);
			if (cpb[i] < cpb[best])
				best = i;
		}
		printf("%4u B", sizes[s]);
		for (i = 0; i < RTE_DIM(impls); i++)
			printf(" | %5.3f %6.2f GB/s %5.2fx", cpb[i], hz / cpb[i] / 1e9,
			       cpb[0] / cpb[i]);
		printf(" | %s\n", impls[best].name);
	}
	test_eal_cleanup_perf();
	return 0;
}
