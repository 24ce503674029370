/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * lib/roce through roce-perf's engine (app/roce-perf/rperf.c): two devices
 * in this process, A on lcore 0 (CPU 0) and B on lcore 1 (CPU 1), joined
 * by rte_rings, path MTU 4096, one RC QP.
 *
 *  1. RC WRITE of 64 KiB messages: payload bandwidth beside the bandwidth
 *     of memcpy() on one core over the same working set, measured in the
 *     same rounds, as a ratio (goal: 25% or more). The engine copies each
 *     byte twice (MR -> mbuf, mbuf -> MR) and runs the ICRC over it twice.
 *     Two layouts: one 64 KiB buffer per side, as perftest's ib_write_bw
 *     posts every WRITE from and to the same buffer (beside memcpy() of one
 *     64 KiB buffer, in cache), and roce-perf's default of a buffer per WR
 *     in flight (8 MiB per side, beside memcpy() of 64 KiB pieces through
 *     8 MiB).
 *  2. RC SEND of 64 B messages: messages per second (goal: 2 M/s or more).
 *  3. RC READ of 64 B: latency of a whole READ, p50 and p99.
 *
 * Every figure is the median of several rounds; the goals are printed
 * beside the figures and never fail the run (a failed completion or a data
 * mismatch does). OMNIPLANE_PERF_QUICK=1 runs short rounds. With a single
 * CPU both devices share lcore 0 and the header says so.
 *
 * The figures need two CPUs that really run at once and exchange cache
 * lines quickly. In a VM that changes with the host: on the machine of
 * doc/roce-perf.md the same binary measured WRITE at 85-89 Gb/s, 17-20 and
 * 5-6 within minutes. So each round also measures how much slower a loop on
 * CPU 0 runs while CPU 1 runs one too (1.0: two separate cores; 2.0: the two
 * share one) and the round trip of a cache line between the two CPUs, and
 * the last line prints their medians as the context of the figures.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_pause.h>

#include "rperf.h"
#include "test_eal.h"
#include "bench_stats.h"

#define ROUNDS 5
#define ROUNDS_QUICK 3
#define COPY_LEN (64u * 1024)
#define WRITE_GOAL 0.25
#define SEND_GOAL 2.0

/*
 * memcpy() of COPY_LEN bytes over and over for @p secs, piece k of @p area
 * bytes of @p src to piece k of @p dst, k in turn: bytes per second.
 */
static double
memcpy_rate(uint8_t *dst, const uint8_t *src, uint64_t area, double secs)
{
	uint64_t hz = rte_get_tsc_hz(), start, end, n = 0, off = 0;
	unsigned int i;

	start = rte_rdtsc();
	end = start + (uint64_t)(secs * (double)hz);
	do {
		for (i = 0; i < 16; i++) {
			memcpy(dst + off, src + off, COPY_LEN);
			off = off + 2 * COPY_LEN <= area ? off + COPY_LEN : 0;
			/* the copy must happen: the compiler may not drop it */
			asm volatile("" : : "r"(dst) : "memory");
		}
		n += 16;
	} while (rte_rdtsc() < end);
	return (double)n * COPY_LEN / ((double)(rte_rdtsc() - start) / (double)hz);
}

/* Cache-line ping-pong between the main lcore and @p peer. */
#define PING_ROUNDS 20000
static volatile uint64_t ping __rte_cache_aligned;

static int
pong(void *arg)
{
	uint64_t i;

	(void)arg;
	for (i = 1; i <= PING_ROUNDS; i++) {
		while (ping != 2 * i - 1)
			rte_pause();
		ping = 2 * i;
	}
	return 0;
}

/* Round trip of a cache line between the two lcores, ns; 0 with one lcore. */
static double
xcpu_rtt(unsigned int peer)
{
	uint64_t start, i;

	if (peer == rte_lcore_id())
		return 0;
	ping = 0;
	if (rte_eal_remote_launch(pong, NULL, peer) != 0)
		return 0;
	start = rte_rdtsc();
	for (i = 1; i <= PING_ROUNDS; i++) {
		ping = 2 * i - 1;
		while (ping != 2 * i)
			rte_pause();
	}
	start = rte_rdtsc() - start;
	rte_eal_wait_lcore(peer);
	return (double)start * 1e9 / (double)rte_get_tsc_hz() / PING_ROUNDS;
}

/* A fixed amount of integer work; its result is kept so it is done. */
#define SPIN_ITERS 20000000u
static volatile uint64_t spin_sink;

static int
spin(void *arg)
{
	uint64_t x = 1, y = 3;
	uint32_t i;

	(void)arg;
	for (i = 0; i < SPIN_ITERS; i++) {
		x = x * 6364136223846793005ULL + y;
		y ^= x >> 7;
	}
	spin_sink = x + y;
	return 0;
}

/* How much longer the work takes on this lcore while @p peer does it too; 0 with one lcore. */
static double
pair_slowdown(unsigned int peer)
{
	uint64_t solo, both;

	if (peer == rte_lcore_id())
		return 0;
	solo = rte_rdtsc();
	spin(NULL);
	solo = rte_rdtsc() - solo;
	if (rte_eal_remote_launch(spin, NULL, peer) != 0)
		return 0;
	both = rte_rdtsc();
	spin(NULL);
	both = rte_rdtsc() - both;
	rte_eal_wait_lcore(peer);
	return (double)both / (double)solo;
}

static int
run_one(struct rperf_conf *c, struct rperf_result *r, const char *what)
{
	if (rperf_run(c, r) != 0) {
		fprintf(stderr, "bench_roce: %s: %s\n", what, r->err);
		return -1;
	}
	return 0;
}

int
main(void)
{
	const int quick = getenv("OMNIPLANE_PERF_QUICK") != NULL;
	const unsigned int rounds = quick ? ROUNDS_QUICK : ROUNDS;
	const double secs = quick ? 0.1 : 1.0;
	const bool two = sysconf(_SC_NPROCESSORS_ONLN) >= 2;
	double cp[ROUNDS], wr[ROUNDS], cpn[ROUNDS], wrn[ROUNDS];
	double snd[ROUNDS], p50[ROUNDS], p99[ROUNDS];
	double rtt[3 * ROUNDS], slow[3 * ROUNDS], rtt_min, rtt_max;
	uint8_t *big_src = NULL, *big_dst = NULL;
	uint64_t big = 0;
	uint32_t nbuf = 0;
	unsigned int nrtt = 0;
	struct rperf_conf c;
	struct rperf_result r;
	uint8_t *src, *dst;
	double mc, w, mcn, wn, s;
	unsigned int i;
	int huge, rc = 1;

	huge = test_eal_init_perf_lcores("bench_roce", two ? "0@0,1@1" : NULL);
	if (huge < 0)
		return 1;
	src = rte_malloc("bench_roce_src", COPY_LEN, 4096);
	dst = rte_malloc("bench_roce_dst", COPY_LEN, 4096);
	if (src == NULL || dst == NULL) {
		fprintf(stderr, "bench_roce: no memory\n");
		goto out;
	}
	memset(src, 0x5a, COPY_LEN);
	memset(dst, 0, COPY_LEN);
	rperf_conf_init(&c, RPERF_WRITE_BW);
	printf("lib/roce benchmark (roce-perf's engine): A on lcore %u, B on lcore %u%s, "
	       "rte_ring wire, path MTU %u, 1 RC QP, median of %u rounds of %.1f s, %s\n",
	       c.lcore[0], c.lcore[1], two ? " (CPUs 0 and 1)" :
	       " (one CPU: both devices take turns on it)", c.mtu, rounds, secs,
	       huge ? "hugepages" : "4K pages (--no-huge)");

	/*
	 * 1. WRITE 64 KiB beside memcpy over the same working set, round by
	 * round so both see the same noise: one buffer per side, then
	 * roce-perf's default of one per WR in flight.
	 */
	for (i = 0; i < rounds; i++) {
		cp[i] = memcpy_rate(dst, src, COPY_LEN, secs / 2) * 8 / 1e9;
		slow[nrtt] = pair_slowdown(c.lcore[1]);
		rtt[nrtt++] = xcpu_rtt(c.lcore[1]);
		rperf_conf_init(&c, RPERF_WRITE_BW);
		c.size = COPY_LEN;
		c.iters = 0;
		c.duration = secs;
		c.buffers = 1;
		if (run_one(&c, &r, "RC WRITE 64 KiB, one buffer") != 0)
			goto out;
		wr[i] = r.gbps;

		c.buffers = 0;
		if (run_one(&c, &r, "RC WRITE 64 KiB") != 0)
			goto out;
		wrn[i] = r.gbps;
		if (big_src == NULL) {
			big = r.buffer_bytes;
			nbuf = r.buffers;
			big_src = rte_malloc("bench_roce_big_src", big, 4096);
			big_dst = rte_malloc("bench_roce_big_dst", big, 4096);
			if (big_src == NULL || big_dst == NULL) {
				fprintf(stderr, "bench_roce: no memory for 2 x %" PRIu64 " bytes\n",
					big);
				goto out;
			}
			memset(big_src, 0x5a, big);
			memset(big_dst, 0, big);
		}
		cpn[i] = memcpy_rate(big_dst, big_src, big, secs / 2) * 8 / 1e9;
	}
	mc = bench_median(cp, rounds);
	w = bench_median(wr, rounds);
	mcn = bench_median(cpn, rounds);
	wn = bench_median(wrn, rounds);
	printf("RC WRITE 64 KiB, 1 buffer per side (perftest's layout)   %8.2f Gb/s   "
	       "memcpy 64 KiB, 1 buffer (1 core)           %8.2f Gb/s   ratio %5.1f%%   "
	       "(goal >= %.0f%%)\n", w, mc, mc > 0 ? 100 * w / mc : 0, 100 * WRITE_GOAL);
	printf("RC WRITE 64 KiB, %3u buffers per side (%3" PRIu64 " MiB)         %8.2f Gb/s   "
	       "memcpy 64 KiB, %3u buffers (%3" PRIu64 " MiB, 1 core) %8.2f Gb/s   ratio %5.1f%%   "
	       "(goal >= %.0f%%)\n", nbuf, big >> 20, wn, nbuf, big >> 20, mcn,
	       mcn > 0 ? 100 * wn / mcn : 0, 100 * WRITE_GOAL);

	/* 2. SEND 64 B message rate */
	for (i = 0; i < rounds; i++) {
		slow[nrtt] = pair_slowdown(c.lcore[1]);
		rtt[nrtt++] = xcpu_rtt(c.lcore[1]);
		rperf_conf_init(&c, RPERF_SEND_BW);
		c.size = 64;
		c.iters = 0;
		c.duration = secs;
		if (run_one(&c, &r, "RC SEND 64 B") != 0)
			goto out;
		snd[i] = r.mmsgs;
	}
	s = bench_median(snd, rounds);
	printf("RC SEND 64 B           %8.3f M msg/s  (goal >= %.1f M msg/s)\n", s, SEND_GOAL);

	/* 3. READ 64 B latency */
	for (i = 0; i < rounds; i++) {
		slow[nrtt] = pair_slowdown(c.lcore[1]);
		rtt[nrtt++] = xcpu_rtt(c.lcore[1]);
		rperf_conf_init(&c, RPERF_READ_LAT);
		c.size = 64;
		c.iters = 0;
		c.duration = secs;
		if (run_one(&c, &r, "RC READ 64 B") != 0)
			goto out;
		p50[i] = r.lat_p50;
		p99[i] = r.lat_p99;
	}
	printf("RC READ 64 B latency   p50 %6.2f us   p99 %6.2f us   (whole READ, request to "
	       "response)\n", bench_median(p50, rounds), bench_median(p99, rounds));
	if (rtt[0] > 0) {
		qsort(rtt, nrtt, sizeof(rtt[0]), bench_cmp_double);
		rtt_min = rtt[0];
		rtt_max = rtt[nrtt - 1];
		printf("context (medians of the rounds): work on CPU 0 takes %.2fx as long while "
		       "CPU 1 works too (1.0: two cores, 2.0: one shared); a cache line goes there "
		       "and back in %.0f ns (%.0f..%.0f). The figures above follow both.\n",
		       bench_median(slow, nrtt), bench_median(rtt, nrtt), rtt_min, rtt_max);
	}
	rc = 0;
out:
	rte_free(src);
	rte_free(dst);
	rte_free(big_src);
	rte_free(big_dst);
	test_eal_cleanup_perf();
	return rc;
}
