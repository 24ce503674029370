/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* net_opa_vnic on a generic fabric port (not net_hfi1): a net_ring pair
 * made with rte_eth_from_rings, the test at the other end playing the EM
 * and the remote node; lid= gives the agent its LID. */

#include "opa_vnic_test_util.h"
#include "test_case.h"
#include "test_wait.h"

static struct rxbins bins;

/* A device xstat, after one gen_pump(). */
static uint64_t
pumped_xstat(struct vtopo *t, const char *name)
{
	gen_pump(t);
	return xstat(t->vp[0], name);
}

/*
 * Management on a generic fabric: there is no management queue, so FM
 * packets arrive on data queues; whichever VNIC queue polls one hands them
 * to the agent (fabric queue 0 and 1 alike), and the reply leaves on the
 * last fabric TX queue (after the 2 engines of each of the 4 VNIC TX
 * queues), from lid=5. A request to another LID gets no reply and is
 * counted as an agent drop.
 */
static void
test_generic_em_on_data_queues(void **state)
{
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct rte_eth_stats st;
	uint64_t tx0, drops;
	struct vtopo t;

	(void)state;
	gtopo_create(&t, 2, 2, 2, 9, "engines=2");
	vtopo_start(&t);
	tx0 = xstat(t.vp[0], "mgmt_tx");
	t.em_txq = 0;
	em_set_vport(&t, 0, 10, 1500, VNIC_STATE_FORWARDING);
	t.em_txq = 1;
	em_set_vport(&t, 1, 20, 1500, VNIC_STATE_FORWARDING);
	em_get_vport(&t, 0, &v, &p);
	assert_int_equal(v.vesw_id, 10);
	assert_int_equal(p.encap_slid, GEN_LID);
	assert_true(link_wait(t.vp[0], true));
	assert_true(link_wait(t.vp[1], true));
	assert_int_equal(xstat(t.vp[0], "mgmt_tx") - tx0, 3);
	assert_int_equal(xstat(t.vp[0], "mgmt_rx"), 3);
	assert_int_equal(xstat(t.vp[0], "fabric_rx_mgmt_full"), 0);
	assert_int_equal(xstat(t.vp[0], "mgmt_rx_not_fm"), 0);
	/* every reply came back on fabric TX queue 8, the management queue */
	assert_int_equal(rte_eth_stats_get(t.em, &st), 0);
	assert_int_equal(st.q_ipackets[8], 3);
	assert_int_equal(st.ipackets, 3);

	drops = xstat(t.vp[0], "vema_drops");
	t.lid = 1;
	t.em_ms = 300;
	assert_int_equal(em_call(&t, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0, NULL, 0, NULL),
			 -1);
	t.lid = GEN_LID;
	t.em_ms = 0;
	TEST_WAIT(pumped_xstat(&t, "vema_drops") != drops, VT_WAIT_MS);
	assert_int_equal(xstat(t.vp[0], "vema_drops"), drops + 1);
	assert_int_equal(xstat(t.vp[0], "mgmt_tx") - tx0, 3);	/* no reply to it */
	gtopo_destroy(&t);
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);
}

/*
 * Frames on a generic fabric, vports=2, queues=2, engines=2. Receive: what
 * the remote side sends on fabric queue q reaches VNIC RX queue q of the
 * vport its vesw names, whole. Transmit: VNIC TX queue q of vport v sends
 * each flow on fabric queue (v * 2 + q) * 2 + entropy % 2, with SLID =
 * the EM's encap_slid (lid=5 here), DLID from the destination LMAC, the
 * vport's vesw, frame intact.
 */
static void
test_generic_frames_both_ways(void **state)
{
	enum { PER = 8, FLOWS = 16 };
	struct rte_ether_addr mac[2], peer = peer_lmac(10);
	unsigned int v, q, i, total = 0;
	uint64_t f0;
	struct vtopo t;

	(void)state;
	gtopo_create(&t, 2, 2, 2, 9, "engines=2");
	vtopo_forward_all(&t, 1500);
	for (v = 0; v < 2; v++)
		mac[v] = port_mac(t.vp[v]);

	f0 = xstat(t.vp[0], "fabric_rx_packets");
	for (q = 0; q < 2; q++) {
		t.em_txq = (uint16_t)q;
		for (v = 0; v < 2; v++)
			for (i = 0; i < PER; i++)
				peer_send_ex(&t, (uint16_t)(10 * (v + 1)), 70 + i, &mac[v],
					     (v * 2 + q) * 100 + i, (uint16_t)i, test_pool, 16384);
	}
	vtopo_poll_all(&t, f0 + 4 * PER, &bins, VT_WAIT_MS);
	for (v = 0; v < 2; v++)
		for (q = 0; q < 2; q++) {
			unsigned int b = v * 2 + q;

			assert_int_equal(bins.n[b], PER);
			for (i = 0; i < PER; i++) {
				assert_true(frame_is(bins.m[b][i], 70 + i, &mac[v], b * 100 + i));
				assert_int_equal(bins.m[b][i]->port, t.vp[v]);
			}
		}
	rxbins_free(&bins);

	for (v = 0; v < 2; v++)
		for (q = 0; q < 2; q++)
			for (i = 0; i < FLOWS; i++) {
				struct rte_ether_addr src = mac[v];
				struct rte_mbuf *m;

				src.addr_bytes[4] = (uint8_t)(i * 37);	/* one flow each */
				m = eth_mbuf(100, &peer, &src, (v * 2 + q) * FLOWS + i);
				vnic_send(t.vp[v], (uint16_t)q, &m, 1);
			}
	for (q = 0; q < 8; q++) {
		struct rte_mbuf *r[64];
		uint16_t n = rte_eth_rx_burst(t.em, (uint16_t)q, r, RTE_DIM(r));

		for (i = 0; i < n; i++) {
			struct opa16b_vnic_fields f;
			uint32_t seq;
			uint16_t vesw;

			opa16b_vnic_hdr_read(rte_pktmbuf_mtod(r[i], void *), &f);
			assert_int_equal(f.slid, GEN_LID);
			assert_int_equal(f.dlid, B_LID);
			assert_int_equal(opa16b_vnic_decap(r[i], VNIC_ETH_MTU_MAX, &vesw),
					 OPA16B_VNIC_RX_OK);
			memcpy(&seq, rte_pktmbuf_mtod_offset(r[i], uint8_t *, 14), 4);
			v = seq / FLOWS / 2;
			assert_int_equal(vesw, 10 * (v + 1));
			{
				struct rte_ether_addr src = mac[v];

				src.addr_bytes[4] = (uint8_t)(seq % FLOWS * 37);
				assert_true(frame_is_from(r[i], 100, &peer, &src, seq));
			}
			assert_int_equal(q, seq / FLOWS * 2 + f.entropy % 2);
			total++;
		}
		rte_pktmbuf_free_bulk(r, n);
	}
	assert_int_equal(total, 4 * FLOWS);
	gtopo_destroy(&t);
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		gen_test(test_generic_em_on_data_queues),
		gen_test(test_generic_frames_both_ways),
	};

	/* one case: argv[1] names it (a cmocka glob) */
	test_case_filter(argc, argv);
	return cmocka_run_group_tests(tests, test_eal_setup, test_eal_teardown);
}
