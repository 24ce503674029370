/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * The forwarding loop of the port-pair benchmarks: testpmd's io engine on
 * one lcore (an rx burst on one port sent as is on the other, both ways),
 * timed with the TSC. Both sides of a comparison run this same loop.
 */

#ifndef OMNIPLANE_BENCH_IO_H
#define OMNIPLANE_BENCH_IO_H

#include <stdint.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#define BENCH_BURST 32

/* One io round from @from to @to on queue 0; returns the packets sent. */
static inline uint64_t
bench_fwd(uint16_t from, uint16_t to)
{
	struct rte_mbuf *m[BENCH_BURST];
	uint16_t n = rte_eth_rx_burst(from, 0, m, BENCH_BURST), sent;

	if (n == 0)
		return 0;
	sent = rte_eth_tx_burst(to, 0, m, n);
	if (unlikely(sent < n))
		rte_pktmbuf_free_bulk(m + sent, n - sent);
	return sent;
}

/*
 * Forward between @a and @b both ways for about @seconds after a 50 ms
 * warm-up; returns cycles per packet (0 when nothing moved), *mpps the rate.
 */
static inline double
bench_run(uint16_t a, uint16_t b, double seconds, double *mpps)
{
	uint64_t hz = rte_get_tsc_hz(), pkts = 0, start, end;

	start = rte_rdtsc();
	while (rte_rdtsc() - start < hz / 20) {
		bench_fwd(a, b);
		bench_fwd(b, a);
	}
	start = rte_rdtsc();
	end = start + (uint64_t)(seconds * hz);
	while (rte_rdtsc() < end)
		pkts += bench_fwd(a, b) + bench_fwd(b, a);
	end = rte_rdtsc();
	*mpps = pkts / ((double)(end - start) / hz) / 1e6;
	return pkts ? (double)(end - start) / pkts : 0;
}

/* Free what is still in flight between @a and @b (@rounds rx polls each). */
static inline void
bench_drain(uint16_t a, uint16_t b, unsigned int rounds)
{
	struct rte_mbuf *m[BENCH_BURST];
	unsigned int i, n;

	for (i = 0; i < rounds; i++) {
		n = rte_eth_rx_burst(a, 0, m, BENCH_BURST);
		rte_pktmbuf_free_bulk(m, n);
		n = rte_eth_rx_burst(b, 0, m, BENCH_BURST);
		rte_pktmbuf_free_bulk(m, n);
	}
}

#endif /* OMNIPLANE_BENCH_IO_H */
