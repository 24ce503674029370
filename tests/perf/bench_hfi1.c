/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * net_hfi1 + model, back to back, against the same loop over a net_ring
 * pair in the same run.
 *
 * The loop is testpmd's io forwarding engine on one lcore: rx burst of 32
 * from one port, tx burst on the other, unsent packets freed; both
 * directions. 256 packets circulate. With net_hfi1 the path is PMD TX
 * (descriptors, PBC) -> model SDMA (gather, PBC check) -> ring wire ->
 * model receive (RSM, eager copy, RHQ entry) -> PMD RX (RHF checks, copy
 * to mbuf): everything a packet costs on a machine without an HFI. On
 * silicon the model's half is the hardware's.
 *
 * Prints Mpps and TSC cycles per forwarded packet for 64 B and 1520 B 16B
 * packets (1520: a 1514-byte frame's size rounded to whole quadwords), and
 * the ratio to the net_ring baseline. Nothing is gated on time.
 * OMNIPLANE_PERF_QUICK=1 runs short passes (CI keeps it working).
 */

#include <stdio.h>
#include <stdlib.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "bench_io.h"
#include "opa16b.h"
#include "test_eal.h"

#define IN_FLIGHT 256
#define POOL_SIZE 8191

static struct rte_mempool *pool;

static int
port_start(uint16_t port)
{
	struct rte_eth_conf conf = { 0 };

	if (rte_eth_dev_configure(port, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(port, 0, 1024, SOCKET_ID_ANY, NULL, pool) != 0 ||
	    rte_eth_tx_queue_setup(port, 0, 1024, SOCKET_ID_ANY, NULL) != 0 ||
	    rte_eth_dev_set_mtu(port, 10240) < -ENOTSUP ||
	    rte_eth_dev_start(port) != 0)
		return -1;
	return 0;
}

static int
seed(uint16_t port, uint32_t len)
{
	struct rte_mbuf *m[IN_FLIGHT];
	unsigned int i, sent = 0, tries = 0;

	if (rte_pktmbuf_alloc_bulk(pool, m, IN_FLIGHT) != 0)
		return -1;
	for (i = 0; i < IN_FLIGHT; i++) {
		uint8_t *p = (uint8_t *)rte_pktmbuf_append(m[i], len);

		memset(p, 0, len);
		opa16b_set_slid(p, 1);
		opa16b_set_dlid(p, 2);
		opa16b_set_len(p, (uint16_t)(len / 8));
		opa16b_set_l2(p, OPA16B_L2_16B);
		opa16b_set_l4(p, OPA16B_L4_ETHR);
		opa16b_set_entropy(p, (uint16_t)i);
	}
	while (sent < IN_FLIGHT && tries++ < 100000)
		sent += rte_eth_tx_burst(port, 0, m + sent, IN_FLIGHT - sent);
	return sent == IN_FLIGHT ? 0 : -1;
}

static int
ring_pair(uint16_t *a, uint16_t *b)
{
	struct rte_ring *r0 = rte_ring_create("bench_r0", 1024, SOCKET_ID_ANY,
			RING_F_SP_ENQ | RING_F_SC_DEQ);
	struct rte_ring *r1 = rte_ring_create("bench_r1", 1024, SOCKET_ID_ANY,
			RING_F_SP_ENQ | RING_F_SC_DEQ);
	int pa, pb;

	if (r0 == NULL || r1 == NULL)
		return -1;
	pa = rte_eth_from_rings("bench_ring_a", &r0, 1, &r1, 1, SOCKET_ID_ANY);
	pb = rte_eth_from_rings("bench_ring_b", &r1, 1, &r0, 1, SOCKET_ID_ANY);
	if (pa < 0 || pb < 0)
		return -1;
	*a = pa;
	*b = pb;
	return 0;
}

int
main(void)
{
	static const uint32_t sizes[] = { 64, 1520 };
	const int quick = getenv("OMNIPLANE_PERF_QUICK") != NULL;
	const double secs = quick ? 0.2 : 2.0;
	uint16_t ha, hb, ra, rb;
	unsigned int i;
	int huge;

	huge = test_eal_init_perf("bench_hfi1");
	if (huge < 0)
		return 1;
	pool = rte_pktmbuf_pool_create("bench_pool", POOL_SIZE, 256, 0,
			RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (pool == NULL ||
	    rte_vdev_init("net_hfi1_ba", "model=1,lid=1,wire=ring:bench") != 0 ||
	    rte_vdev_init("net_hfi1_bb", "model=1,lid=2,wire=ring:bench") != 0 ||
	    rte_eth_dev_get_port_by_name("net_hfi1_ba", &ha) != 0 ||
	    rte_eth_dev_get_port_by_name("net_hfi1_bb", &hb) != 0 ||
	    ring_pair(&ra, &rb) != 0 ||
	    port_start(ha) || port_start(hb) || port_start(ra) || port_start(rb)) {
		fprintf(stderr, "bench_hfi1: set-up failed\n");
		test_eal_cleanup_perf();
		return 1;
	}
	printf("net_hfi1 benchmark: io forwarding on one lcore, %d packets in flight, %.1f s per figure, %s\n",
			IN_FLIGHT, secs, huge ? "hugepages" : "4K pages (--no-huge)");
	printf("16B size   net_ring pair (baseline)    net_hfi1+model pair         ratio\n");
	printf("           Mpps     cycles/pkt         Mpps     cycles/pkt         (cycles)\n");
	for (i = 0; i < RTE_DIM(sizes); i++) {
		double rm, hm, rc, hc;

		if (seed(ra, sizes[i]) != 0 || seed(ha, sizes[i]) != 0) {
			fprintf(stderr, "bench_hfi1: seeding failed\n");
			return 1;
		}
		rc = bench_run(ra, rb, secs, &rm);
		hc = bench_run(ha, hb, secs, &hm);
		bench_drain(ra, rb, 1000);
		bench_drain(ha, hb, 1000);
		printf("%5u B   %6.2f   %8.1f           %6.2f   %8.1f           %5.1fx\n",
				sizes[i], rm, rc, hm, hc, rc > 0 ? hc / rc : 0);
	}
	rte_eth_dev_stop(ha);
	rte_eth_dev_stop(hb);
	rte_vdev_uninit("net_hfi1_ba");
	rte_vdev_uninit("net_hfi1_bb");
	rte_eth_dev_stop(ra);
	rte_eth_dev_stop(rb);
	rte_eth_dev_close(ra);
	rte_eth_dev_close(rb);
	rte_mempool_free(pool);
	test_eal_cleanup_perf();
	return 0;
}
