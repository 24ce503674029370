/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * net_opa_vnic against the bare fabric port under it, same run.
 *
 * Two net_hfi1 model nodes back to back on a ring wire, twice: once bare
 * (16B packets forwarded between the two HFI ports), once with
 * net_opa_vnic on each (Ethernet frames forwarded between the two VNIC
 * ports, each frame encapsulated by one node and decapsulated by the
 * other). The loop is testpmd's io forwarding engine on one lcore (rx
 * burst of 32 on one port, tx burst on the other, both directions), 256
 * packets in flight. The 16B packets of the bare run have exactly the wire
 * size the VNIC run's frames get, so the difference is the VNIC layer:
 * classify, flow hash, policy decisions, encap, decap, vesw demux, counters.
 *
 * Prints Mpps per forwarding core and cycles per packet for 64 B and
 * 1514 B frames (medians of rounds that alternate the two pairs), and VNIC
 * as a share of bare (median of the rounds' shares, with their range).
 * Nothing is gated on time.
 * OMNIPLANE_PERF_QUICK=1 runs short passes.
 */

#include <stdio.h>
#include <stdlib.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "bench_io.h"
#include "hfi1_ethdev.h"
#include "opa16b.h"
#include "opa16b_fm.h"
#include "opa16b_lmac.h"
#include "opa16b_vnic.h"
#include "test_eal.h"
#include "test_wait.h"
#include "vema_agent.h"
#include "vema_mad.h"
#include "vnic.h"
#include "bench_stats.h"

#define IN_FLIGHT 256
#define POOL_SIZE 16383
#define FABRIC_ID 0x301
#define VESW 1

static struct rte_mempool *pool;

static int
port_start(uint16_t port, uint16_t mtu)
{
	struct rte_eth_conf conf = { .rxmode.mtu = mtu };

	if (rte_eth_dev_configure(port, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(port, 0, 1024, SOCKET_ID_ANY, NULL, pool) != 0 ||
	    rte_eth_tx_queue_setup(port, 0, 1024, SOCKET_ID_ANY, NULL) != 0 ||
	    rte_eth_dev_start(port) != 0)
		return -1;
	return 0;
}

/* Put an EM request on a wire port: SET VESWPORT_INFO of vport 0 of @lid. */
static int
configure_vport(uint16_t wire_port, uint32_t lid)
{
	uint8_t mad[VEMA_MAD_SIZE], pkt[VEMA_PKT_MAX];
	struct opa16b_fm_fields f = {
		.slid = 100, .dlid = lid, .pkey = 0xFFFF,
		.dest_qpn = OPA16B_QPN_GSI, .src_qpn = 1,
	};
	struct opa16b_lmac l = { .fabric_id = FABRIC_ID, .vesw_id = VESW, .lid = lid };
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct vema_hdr h;
	struct rte_mbuf *m;
	int n;

	vnic_info_defaults(&v, &p);
	v.fabric_id = FABRIC_ID;
	v.vesw_id = VESW;
	v.pkey = 0x8001;
	v.u_mcast_dlid = 0xF00001;
	v.eth_mtu = 1500;
	p.port_num = lid;
	opa16b_lmac_build(&l, &p.base_mac_addr);
	p.config_state = VNIC_STATE_FORWARDING;
	p.encap_slid = lid;
	memset(mad, 0, sizeof(mad));
	vema_hdr_request(&h, VEMA_METHOD_SET, VEMA_ATTR_VESWPORT_INFO, 0, lid);
	vema_hdr_encode(mad, &h);
	vema_veswport_info_encode(mad + VEMA_HDR_LEN, &v, &p);
	n = opa16b_fm_build(pkt, sizeof(pkt), &f, mad, sizeof(mad));
	m = rte_pktmbuf_alloc(pool);
	if (n < 0 || m == NULL || rte_pktmbuf_tailroom(m) < (uint16_t)n)
		return -1;
	memcpy(rte_pktmbuf_append(m, (uint16_t)n), pkt, n);
	return rte_eth_tx_burst(wire_port, 0, &m, 1) == 1 ? 0 : -1;
}

static bool
link_is_up(uint16_t port)
{
	struct rte_eth_link l;

	return rte_eth_link_get_nowait(port, &l) == 0 && l.link_status;
}

/* Wait (up to 2 s) for @port's link to be up. */
static bool
link_up(uint16_t port)
{
	return test_wait_until(link_is_up(port), 2000);
}

/* IN_FLIGHT packets on @port: Ethernet frames of @len (vnic) or the 16B
 * packets such frames become. */
static int
seed(uint16_t port, uint32_t len, bool vnic)
{
	struct opa16b_lmac la = { .fabric_id = FABRIC_ID, .vesw_id = VESW, .lid = 1 };
	struct opa16b_lmac lb = { .fabric_id = FABRIC_ID, .vesw_id = VESW, .lid = 2 };
	struct opa16b_vnic_fields f = { .slid = 1, .dlid = 2, .pkey = 0x8001, .vesw_id = VESW };
	struct rte_mbuf *m[IN_FLIGHT];
	unsigned int i, sent = 0, tries = 0;

	if (rte_pktmbuf_alloc_bulk(pool, m, IN_FLIGHT) != 0)
		return -1;
	for (i = 0; i < IN_FLIGHT; i++) {
		uint8_t *p = (uint8_t *)rte_pktmbuf_append(m[i], len);
		struct rte_ether_hdr *eh;
		struct rte_ipv4_hdr *ip;

		if (p == NULL)
			goto fail;
		eh = (struct rte_ether_hdr *)p;
		ip = (struct rte_ipv4_hdr *)(eh + 1);
		memset(p, 0, len);
		/* IPv4/UDP between two LMAC hosts, one flow per packet */
		opa16b_lmac_build(&lb, &eh->dst_addr);
		opa16b_lmac_build(&la, &eh->src_addr);
		eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->total_length = rte_cpu_to_be_16((uint16_t)(len - sizeof(*eh)));
		ip->next_proto_id = IPPROTO_UDP;
		ip->src_addr = rte_cpu_to_be_32(0x0A000001 + i);
		ip->dst_addr = rte_cpu_to_be_32(0x0A000101);
		if (!vnic) {
			f.entropy = (uint16_t)i;
			if (opa16b_vnic_encap(m[i], &f) != 0)
				goto fail;
		}
	}
	while (sent < IN_FLIGHT && tries++ < 100000)
		sent += rte_eth_tx_burst(port, 0, m + sent, IN_FLIGHT - sent);
	rte_pktmbuf_free_bulk(m + sent, IN_FLIGHT - sent);
	return sent == IN_FLIGHT ? 0 : -1;
fail:
	rte_pktmbuf_free_bulk(m, IN_FLIGHT);
	return -1;
}

static int
setup(uint16_t *ba, uint16_t *bb, uint16_t *va, uint16_t *vb)
{
	uint16_t ha, hb;

	pool = rte_pktmbuf_pool_create("bench_pool", POOL_SIZE, 256, 0,
				       RTE_PKTMBUF_HEADROOM + 4096, SOCKET_ID_ANY);
	if (pool == NULL ||
	    rte_vdev_init("net_hfi1_b0", "model=1,lid=1,wire=ring:bvb") != 0 ||
	    rte_vdev_init("net_hfi1_b1", "model=1,lid=2,wire=ring:bvb") != 0 ||
	    rte_eth_dev_get_port_by_name("net_hfi1_b0", ba) != 0 ||
	    rte_eth_dev_get_port_by_name("net_hfi1_b1", bb) != 0 ||
	    port_start(*ba, 10240) != 0 || port_start(*bb, 10240) != 0)
		return -1;
	if (rte_vdev_init("net_hfi1_v0", "model=1,lid=1,wire=ring:bvv") != 0 ||
	    rte_vdev_init("net_hfi1_v1", "model=1,lid=2,wire=ring:bvv") != 0 ||
	    rte_eth_dev_get_port_by_name("net_hfi1_v0", &ha) != 0 ||
	    rte_eth_dev_get_port_by_name("net_hfi1_v1", &hb) != 0 ||
	    rte_vdev_init("net_opa_vnic_v0", "fabric=net_hfi1_v0,engines=1") != 0 ||
	    rte_vdev_init("net_opa_vnic_v1", "fabric=net_hfi1_v1,engines=1") != 0 ||
	    rte_eth_dev_get_port_by_name("net_opa_vnic_v0_vp0", va) != 0 ||
	    rte_eth_dev_get_port_by_name("net_opa_vnic_v1_vp0", vb) != 0 ||
	    port_start(*va, 1500) != 0 || port_start(*vb, 1500) != 0)
		return -1;
	/* The EM's SETs, put on the wire by hand: node 2's wire reaches node 1. */
	if (configure_vport((uint16_t)hfi1_model_wire_port(hfi1_port_model(hb)), 1) != 0) {
		fprintf(stderr, "bench_opa_vnic: cannot send the EM's SET to node 1\n");
		return -1;
	}
	/*
	 * Node 1's control tick answers the SET on its fabric port, then
	 * applies it: its VNIC link up means it did both. Only then the
	 * second SET, which goes out on the wire port of that same node.
	 */
	if (!link_up(*va)) {
		fprintf(stderr, "bench_opa_vnic: node 1 did not apply the EM's SET\n");
		return -1;
	}
	if (configure_vport((uint16_t)hfi1_model_wire_port(hfi1_port_model(ha)), 2) != 0) {
		fprintf(stderr, "bench_opa_vnic: cannot send the EM's SET to node 2\n");
		return -1;
	}
	if (!link_up(*va) || !link_up(*vb)) {
		fprintf(stderr, "bench_opa_vnic: VNIC links not up\n");
		return -1;
	}
	return 0;
}

#define ROUNDS_MAX 9

int
main(void)
{
	static const uint32_t sizes[] = { 64, 1514 };
	const int quick = getenv("OMNIPLANE_PERF_QUICK") != NULL;
	/* Rounds alternate bare and VNIC passes: a slow spell of a shared
	 * host hits both sides of a round, and medians drop outliers.
	 */
	const unsigned int rounds = quick ? 1 : ROUNDS_MAX;
	const double secs = quick ? 0.2 : 0.5;
	uint16_t ba, bb, va, vb;
	unsigned int i, r;
	int huge;

	huge = test_eal_init_perf("bench_opa_vnic");
	if (huge < 0)
		return 1;
	if (setup(&ba, &bb, &va, &vb) != 0) {
		fprintf(stderr, "bench_opa_vnic: set-up failed\n");
		test_eal_cleanup_perf();
		return 1;
	}
	printf("net_opa_vnic benchmark: io forwarding on one lcore, %d packets in flight, "
	       "%u rounds of %.1f s per side (medians), %s\n",
	       IN_FLIGHT, rounds, secs, huge ? "hugepages" : "4K pages (--no-huge)");
	printf("frame     bare net_hfi1 pair (baseline)   net_opa_vnic pair            VNIC/bare (Mpps)\n");
	printf("          Mpps     cycles/pkt             Mpps     cycles/pkt          median  [min-max]\n");
	for (i = 0; i < RTE_DIM(sizes); i++) {
		double bm[ROUNDS_MAX], vm[ROUNDS_MAX], bc[ROUNDS_MAX], vc[ROUNDS_MAX];
		double ratio[ROUNDS_MAX], lo, hi;

		if (seed(ba, sizes[i], false) != 0 || seed(va, sizes[i], true) != 0) {
			fprintf(stderr, "bench_opa_vnic: seeding failed\n");
			return 1;
		}
		for (r = 0; r < rounds; r++) {
			bc[r] = bench_run(ba, bb, secs, &bm[r]);
			vc[r] = bench_run(va, vb, secs, &vm[r]);
			ratio[r] = bm[r] > 0 ? 100.0 * vm[r] / bm[r] : 0;
		}
		bench_drain(ba, bb, 2000);
		bench_drain(va, vb, 2000);
		lo = hi = ratio[0];
		for (r = 1; r < rounds; r++) {
			lo = RTE_MIN(lo, ratio[r]);
			hi = RTE_MAX(hi, ratio[r]);
		}
		printf("%5u B   %6.2f   %8.1f               %6.2f   %8.1f            %4.0f%%  [%.0f-%.0f%%]\n",
		       sizes[i], bench_median(bm, rounds), bench_median(bc, rounds), bench_median(vm, rounds),
		       bench_median(vc, rounds), bench_median(ratio, rounds), lo, hi);
	}
	rte_eth_dev_stop(va);
	rte_eth_dev_stop(vb);
	rte_vdev_uninit("net_opa_vnic_v0");
	rte_vdev_uninit("net_opa_vnic_v1");
	rte_vdev_uninit("net_hfi1_v0");
	rte_vdev_uninit("net_hfi1_v1");
	rte_eth_dev_stop(ba);
	rte_eth_dev_stop(bb);
	rte_vdev_uninit("net_hfi1_b0");
	rte_vdev_uninit("net_hfi1_b1");
	rte_mempool_free(pool);
	test_eal_cleanup_perf();
	return 0;
}
