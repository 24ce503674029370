/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* net_opa_vnic over net_hfi1's model: probe, EM configuration through the
 * in-PMD VEMA agent, and frames both ways. */

#include "opa_vnic_test_util.h"
#include "test_case.h"

/* The VNIC vdev owns its fabric port (hidden from RTE_ETH_FOREACH_DEV) and
 * exposes one port per vport, link down until the EM says FORWARDING. */
static void
test_probe_owns_fabric_and_creates_ports(void **state)
{
	struct rte_eth_dev_owner owner;
	struct rte_eth_link l;
	struct vtopo t;
	uint16_t p;
	bool a_listed = false;
	unsigned int n = 0;

	(void)state;
	vtopo_create(&t, 3, 1, "");
	assert_int_equal(rte_eth_dev_owner_get(t.a.port, &owner), 0);
	assert_string_equal(owner.name, VNIC_NAME);
	RTE_ETH_FOREACH_DEV(p) {
		if (p == t.a.port)
			a_listed = true;
		n++;
	}
	assert_false(a_listed);
	assert_int_equal(n, 3 + 1 /* B */ + 0);
	vtopo_start(&t);
	assert_int_equal(rte_eth_link_get_nowait(t.vp[0], &l), 0);
	assert_int_equal(l.link_status, 0);
	vtopo_destroy(&t);
}

/* After SET VESWPORT_INFO (FORWARDING) the port's link comes up and frames
 * cross the fabric both ways, byte for byte, with the EM's 16B fields. */
static void
test_em_config_then_frames_both_ways(void **state)
{
	struct rte_ether_addr mac, peer;
	struct opa16b_lmac pl = { .fabric_id = 0x12, .vesw_id = 10, .lid = B_LID };
	struct rte_mbuf *r[8];
	struct vtopo t;
	unsigned int i;

	(void)state;
	vtopo_create(&t, 2, 1, "");
	vtopo_start(&t);
	em_set_vport(&t, 0, 10, 1500, VNIC_STATE_FORWARDING);
	assert_true(link_wait(t.vp[0], true));
	assert_int_equal(rte_eth_macaddr_get(t.vp[0], &mac), 0);

	for (i = 0; i < 4; i++)
		peer_send(&t, 10, 60 + i * 400, &mac, i);
	assert_int_equal(vnic_recv(t.vp[0], 0, r, 4, 1000), 4);
	for (i = 0; i < 4; i++) {
		assert_true(frame_is(r[i], 60 + i * 400, &mac, i));
		assert_int_equal(r[i]->port, t.vp[0]);
	}
	rte_pktmbuf_free_bulk(r, 4);
	/* vport 1 has no vesw: it saw nothing */
	assert_int_equal(vnic_recv(t.vp[1], 0, r, 1, 50), 0);

	opa16b_lmac_build(&pl, &peer);
	for (i = 0; i < 4; i++) {
		struct rte_mbuf *m = eth_mbuf(100 + i, &peer, &mac, i);

		assert_int_equal(rte_eth_tx_burst(t.vp[0], 0, &m, 1), 1);
	}
	assert_int_equal(peer_recv(&t, r, 4, 1000), 4);
	for (i = 0; i < 4; i++) {
		struct opa16b_vnic_fields f;
		uint16_t vesw;

		opa16b_vnic_hdr_read(rte_pktmbuf_mtod(r[i], void *), &f);
		assert_int_equal(f.dlid, B_LID);
		assert_int_equal(f.slid, A_LID);
		assert_int_equal(f.vesw_id, 10);
		assert_int_equal(f.pkey, 0x8001);
		assert_int_equal(opa16b_vnic_decap(r[i], VNIC_ETH_MTU_MAX, &vesw),
				 OPA16B_VNIC_RX_OK);
		assert_int_equal(r[i]->pkt_len, 100 + i);
	}
	rte_pktmbuf_free_bulk(r, 4);
	assert_int_equal(xstat(t.vp[0], "tx_unicast"), 4);
	assert_int_equal(xstat(t.vp[0], "rx_unicast"), 4);
	vtopo_destroy(&t);
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);
}

/* Stopping one vport gives the application back the frames it sent, though
 * the fabric port under it goes on running for the other vports (net_hfi1
 * frees sent packets lazily, on its next burst: tx_done_cleanup). */
static void
test_stop_gives_back_sent_frames_while_fabric_runs(void **state)
{
	struct rte_ether_addr mac, peer;
	struct opa16b_lmac pl = { .fabric_id = 0x12, .vesw_id = 10, .lid = B_LID };
	struct rte_mbuf *r[4];
	unsigned int i, avail;
	struct vtopo t;

	(void)state;
	vtopo_create(&t, 2, 1, "");
	vtopo_start(&t);
	em_set_vport(&t, 0, 10, 1500, VNIC_STATE_FORWARDING);
	assert_true(link_wait(t.vp[0], true));
	assert_int_equal(rte_eth_macaddr_get(t.vp[0], &mac), 0);
	opa16b_lmac_build(&pl, &peer);
	avail = rte_mempool_avail_count(test_pool);
	for (i = 0; i < 4; i++) {
		struct rte_mbuf *m = eth_mbuf(100 + i, &peer, &mac, i);

		assert_int_equal(rte_eth_tx_burst(t.vp[0], 0, &m, 1), 1);
	}
	assert_int_equal(rte_eth_dev_stop(t.vp[0]), 0);
	assert_int_equal(rte_mempool_avail_count(test_pool), avail);
	/* they were sent, not dropped */
	assert_int_equal(peer_recv(&t, r, 4, 1000), 4);
	rte_pktmbuf_free_bulk(r, 4);
	assert_int_equal(xstat(t.vp[0], "tx_unicast"), 4);
	vtopo_destroy(&t);
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		vnic_test(test_probe_owns_fabric_and_creates_ports),
		vnic_test(test_em_config_then_frames_both_ways),
		vnic_test(test_stop_gives_back_sent_frames_while_fabric_runs),
	};

	/* one case: argv[1] names it (a cmocka glob) */
	test_case_filter(argc, argv);
	return cmocka_run_group_tests(tests, test_eal_setup, test_eal_teardown);
}
