/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * The cost of vhost-user-rdma's switch stage per frame (TSC cycles, one
 * lcore), bursts of 32 plain frames from four devices to each other:
 *
 *  - baseline: no station table, destinations are the devices' own MACs
 *    (the scan the switch always does);
 *  - learning: the same frames with the table on, one guest MAC per
 *    device (a port's last station skips the table), then 8 per device
 *    interleaved (every frame looked up);
 *  - learned destinations: frames to the guests' own MACs, found by the
 *    table.
 *
 * The frames are delivered into the devices' rings and taken back out
 * between bursts (not timed). Figures beside the baseline of the same run;
 * never a pass/fail. OMNIPLANE_PERF_QUICK=1 runs fewer bursts.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "test_eal.h"
#include "vsw_test.h"

#define NB_DEVS 4
#define BURST 32
#define STATIONS 64

static struct vsw *sw;
static struct rte_mbuf *pkts[BURST];

/*
 * Frame i of a burst: from device i % 4, source one of @p stations guests
 * behind it, to the next device's MAC or (@p learned_dst) a station learned
 * behind it.
 */
static void
fill(unsigned int stations, bool learned_dst)
{
	unsigned int i;

	for (i = 0; i < BURST; i++) {
		uint8_t *p = rte_pktmbuf_mtod(pkts[i], uint8_t *);
		unsigned int from = i % NB_DEVS, to = (i + 1) % NB_DEVS;

		/* source: station (i / 4) % stations behind device `from` (02:99:00:00:dd:ss) */
		p[6] = 0x02;
		p[7] = 0x99;
		p[10] = (uint8_t)from;
		p[11] = (uint8_t)((i / NB_DEVS) % stations);
		if (learned_dst) {
			/* station 0 behind device `to`, learned from its own frames */
			memcpy(p, p + 6, 6);
			p[4] = (uint8_t)to;
			p[5] = 0;
		} else {
			memcpy(p, sw->devs[to].mac.addr_bytes, 6);
		}
		pkts[i]->port = VSW_DEV0 + from;
	}
}

/* Take the delivered frames back from the rings, in the burst's slots. */
static void
collect(uint16_t out)
{
	unsigned int i, n = out;

	for (i = 0; i < NB_DEVS; i++)
		n += rte_ring_dequeue_burst(sw->devs[i].net_rx, (void **)(pkts + n), BURST - n,
					    NULL);
	if (n != BURST) {
		fprintf(stderr, "bench_vswitch: %u of %u frames came back\n", n, BURST);
		exit(1);
	}
}

/* Cycles per frame over @p bursts bursts. */
static double
run(unsigned int bursts, unsigned int stations, bool learned_dst)
{
	struct pipe_ctx ctx = { .lcore_id = rte_lcore_id(), .nb_workers = 1 };
	uint64_t cycles = 0;
	unsigned int b;

	for (b = 0; b < bursts; b++) {
		uint64_t t0;
		uint16_t out;

		fill(stations, learned_dst);
		t0 = rte_rdtsc_precise();
		out = vsw_switch(sw, pkts, BURST, &ctx);
		cycles += rte_rdtsc_precise() - t0;
		collect(out);
	}
	return (double)cycles / ((double)bursts * BURST);
}

int
main(void)
{
	unsigned int bursts = getenv("OMNIPLANE_PERF_QUICK") != NULL ? 20000 : 400000, i;
	struct rte_mempool *pool;
	double base, one, many, dst;

	if (test_eal_init_perf("bench_vswitch") < 0)
		return 1;
	pool = rte_pktmbuf_pool_create("bench_vsw", 1023, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	sw = pool != NULL ? vsw_test_create("bv", NB_DEVS, 256, pool) : NULL;
	if (sw == NULL)
		return 1;
	for (i = 0; i < BURST; i++) {
		pkts[i] = rte_pktmbuf_alloc(pool);
		if (pkts[i] == NULL || rte_pktmbuf_append(pkts[i], 64) == NULL)
			return 1;
		memset(rte_pktmbuf_mtod(pkts[i], uint8_t *), 0, 64);
		rte_pktmbuf_mtod(pkts[i], uint8_t *)[12] = 0x08; /* IPv4, no UDP: plain */
	}
	base = run(bursts, 1, false);
	if (vsw_fdb_create(sw, "bench_vsw_fdb") != 0)
		return 1;
	one = run(bursts, 1, false);
	many = run(bursts, STATIONS / NB_DEVS, false);
	dst = run(bursts, 1, true);
	printf("vhost-user-rdma switch stage, %u bursts of %u frames, 4 devices, TSC cycles/frame\n",
	       bursts, BURST);
	printf("  %-52s %8.1f\n", "baseline: devices' own MACs, no station table", base);
	printf("  %-52s %8.1f  %5.2fx\n", "learning, one guest MAC per device", one, one / base);
	printf("  %-52s %8.1f  %5.2fx\n", "learning, 8 guest MACs per device, interleaved", many,
	       many / base);
	printf("  %-52s %8.1f  %5.2fx\n", "learned destinations, one guest MAC per device", dst,
	       dst / base);
	vsw_fdb_free(sw);
	test_eal_cleanup_perf();
	return 0;
}
