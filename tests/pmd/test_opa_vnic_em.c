/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* net_opa_vnic under an Ethernet Manager that changes a running port:
 * config state and link (LSC), MAC table and DLIDs, base MAC, MTU and
 * jumbo frames, TX drop reasons against the EM's counters, management
 * attributes and traps. Node B plays the EM and the remote node. */

#include "opa_vnic_test_util.h"
#include "test_case.h"
#include "test_wait.h"

/* net_opa_vnic's control tick (devargs mgmt_ms, 5 by default), an EAL alarm. */
#define CTL_PERIOD_US 5000

/* A global (not locally administered) unicast MAC: no LID in it. */
static const struct rte_ether_addr gmac = { { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 } };

/* Send @n frames of @len bytes to @dst on vport port @port, seq from @seq. */
static void
vnic_tx_frames(uint16_t port, const struct rte_ether_addr *dst, uint32_t len, unsigned int n,
	       uint32_t seq)
{
	struct rte_ether_addr src = port_mac(port);
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = eth_mbuf(len, dst, &src, seq + i);

		vnic_send(port, 0, &m, 1);
	}
}

/*
 * Receive one VNIC packet on B; check it carries the frame vport @port
 * sent (@len bytes to @dst, @seq) with DLID @dlid; return its header.
 */
static struct opa16b_vnic_fields
peer_expect(struct vtopo *t, uint16_t port, const struct rte_ether_addr *dst, uint32_t len,
	    uint32_t seq, uint32_t dlid)
{
	struct rte_ether_addr src = port_mac(port);
	struct opa16b_vnic_fields f;
	struct rte_mbuf *r;
	uint16_t vesw;

	assert_int_equal(peer_recv(t, &r, 1, VT_WAIT_MS), 1);
	opa16b_vnic_hdr_read(rte_pktmbuf_mtod(r, void *), &f);
	assert_int_equal(f.dlid, dlid);
	assert_int_equal(f.slid, A_LID);
	assert_int_equal(opa16b_vnic_decap(r, VNIC_ETH_MTU_MAX, &vesw), OPA16B_VNIC_RX_OK);
	assert_int_equal(vesw, f.vesw_id);
	assert_true(frame_is_from(r, len, dst, &src, seq));
	rte_pktmbuf_free(r);
	return f;
}

/* From B, @n frames to vport 0 (vesw @vesw); poll it until the device took
 * them; returns how many vport 0 delivered (checked and freed). */
static unsigned int
peer_to_vport0(struct vtopo *t, uint16_t vesw, uint32_t len, unsigned int n, uint32_t seq)
{
	static struct rte_mbuf *r[64];
	struct rte_ether_addr mac = port_mac(t->vp[0]);
	uint64_t f = xstat(t->vp[0], "fabric_rx_packets");
	unsigned int i, got;

	for (i = 0; i < n; i++)
		peer_send(t, vesw, len, &mac, seq + i);
	got = vnic_poll_fabric(t->vp[0], 0, f + n, r, RTE_DIM(r), VT_WAIT_MS);
	assert_int_equal(xstat(t->vp[0], "fabric_rx_packets"), f + n);
	for (i = 0; i < got; i++)
		assert_true(frame_is(r[i], len, &mac, seq + i));
	rte_pktmbuf_free_bulk(r, got);
	return got;
}

/*
 * config_state on a running port, with intr_conf.lsc set (link read from
 * what the LSC events publish): FORWARDING raises the link and an LSC event
 * whose callback already reads link up; DROP_ALL takes it down with an
 * event, and then frames both ways are dropped and counted as
 * tx_drop_state / rx_drop_state (xstats and EM counters), nothing reaches
 * B; FORWARDING again restores link and traffic.
 */
static void
test_drop_all_link_down_lsc(void **state)
{
	struct vtopo_opts o = { .lsc = true };
	struct rte_ether_addr peer = peer_lmac(10);
	struct vnic_counters c;
	struct rte_eth_link l;
	int seen = -1;
	struct vtopo t;

	(void)state;
	vtopo_create_opts(&t, 1, 1, &o);
	*lsc_counter(t.vp[0]) = 0;
	assert_int_equal(rte_eth_dev_callback_register(t.vp[0], RTE_ETH_EVENT_INTR_LSC,
						       lsc_count_cb, &seen), 0);
	vtopo_start(&t);
	assert_int_equal(rte_eth_link_get_nowait(t.vp[0], &l), 0);
	assert_int_equal(l.link_status, RTE_ETH_LINK_DOWN);

	em_set_vport(&t, 0, 10, 1500, VNIC_STATE_FORWARDING);
	assert_true(lsc_wait(t.vp[0], 1));
	assert_int_equal(__atomic_load_n(&seen, __ATOMIC_ACQUIRE), RTE_ETH_LINK_UP);
	assert_true(link_wait(t.vp[0], true));
	assert_int_equal(rte_eth_link_get(t.vp[0], &l), 0);
	assert_int_equal(l.link_speed, RTE_ETH_SPEED_NUM_100G);
	vnic_tx_frames(t.vp[0], &peer, 80, 3, 0);
	peer_expect(&t, t.vp[0], &peer, 80, 0, B_LID);
	peer_expect(&t, t.vp[0], &peer, 80, 1, B_LID);
	peer_expect(&t, t.vp[0], &peer, 80, 2, B_LID);
	assert_int_equal(peer_to_vport0(&t, 10, 80, 3, 10), 3);

	em_set_vport(&t, 0, 10, 1500, VNIC_STATE_DROP_ALL);
	assert_true(lsc_wait(t.vp[0], 2));
	assert_int_equal(__atomic_load_n(&seen, __ATOMIC_ACQUIRE), RTE_ETH_LINK_DOWN);
	assert_true(link_wait(t.vp[0], false));
	vnic_tx_frames(t.vp[0], &peer, 80, 5, 100);
	assert_int_equal(xstat(t.vp[0], "tx_drop_state"), 5);
	peer_recv_none(&t, 50);
	assert_int_equal(peer_to_vport0(&t, 10, 80, 4, 200), 0);
	assert_int_equal(xstat(t.vp[0], "rx_drop_state"), 4);
	em_counters(&t, 0, &c);
	assert_int_equal(c.tx_drop_state, 5);
	assert_int_equal(c.rx_drop_state, 4);
	assert_int_equal(c.tx_packets, 3);
	assert_int_equal(c.rx_packets, 3);

	em_set_vport(&t, 0, 10, 1500, VNIC_STATE_FORWARDING);
	assert_true(lsc_wait(t.vp[0], 3));
	assert_int_equal(__atomic_load_n(&seen, __ATOMIC_ACQUIRE), RTE_ETH_LINK_UP);
	assert_true(link_wait(t.vp[0], true));
	vnic_tx_frames(t.vp[0], &peer, 80, 2, 300);
	peer_expect(&t, t.vp[0], &peer, 80, 300, B_LID);
	peer_expect(&t, t.vp[0], &peer, 80, 301, B_LID);
	assert_int_equal(peer_to_vport0(&t, 10, 80, 2, 400), 2);
	assert_int_equal(xstat(t.vp[0], "tx_drop_state"), 5);
	assert_int_equal(xstat(t.vp[0], "rx_drop_state"), 4);
	/* three transitions, three events, no more in the ticks after them */
	assert_int_equal(test_wait_alarm_periods(CTL_PERIOD_US, 2, TEST_WAIT_MS), 0);
	assert_int_equal(__atomic_load_n(lsc_counter(t.vp[0]), __ATOMIC_ACQUIRE), 3);
	assert_int_equal(rte_eth_dev_callback_unregister(t.vp[0], RTE_ETH_EVENT_INTR_LSC,
							 lsc_count_cb, &seen), 0);
	vtopo_destroy(&t);
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);
}

static int closed_in_cb;
static int close_armed;

/*
 * An LSC callback that closes its port, as an application may decide to;
 * once only: ethdev keeps the callback of a released port id, which the
 * next test's port may reuse.
 */
static int
close_on_lsc_cb(uint16_t port, enum rte_eth_event_type type, void *arg, void *ret)
{
	(void)arg;
	(void)ret;
	if (type != RTE_ETH_EVENT_INTR_LSC ||
	    !__atomic_exchange_n(&close_armed, 0, __ATOMIC_ACQ_REL))
		return 0;
	rte_eth_dev_stop(port);
	if (rte_eth_dev_close(port) == 0)
		__atomic_store_n(&closed_in_cb, 1, __ATOMIC_RELEASE);
	return 0;
}

/*
 * The application closes the device's last port from an LSC callback,
 * which runs in the control path's own alarm: here the link-down of
 * rte_eth_dev_stop(), which the next control tick announces. The control
 * path finishes there: no later tick runs on the released agent and rings
 * (ASan would see it), and the device still goes cleanly. (The EM's SET
 * brings the link up first, with the callback not yet armed: a reply still
 * on the wire when the fabric port closes would be lost with it.)
 */
static void
test_last_port_closed_from_lsc_callback(void **state)
{
	struct vtopo_opts o = { .lsc = true };
	struct vtopo t;

	(void)state;
	closed_in_cb = 0;
	close_armed = 0;
	vtopo_create_opts(&t, 1, 1, &o);
	assert_int_equal(rte_eth_dev_callback_register(t.vp[0], RTE_ETH_EVENT_INTR_LSC,
						       close_on_lsc_cb, NULL), 0);
	vtopo_start(&t);
	em_set_vport(&t, 0, 10, 1500, VNIC_STATE_FORWARDING);
	assert_true(link_wait(t.vp[0], true));
	__atomic_store_n(&close_armed, 1, __ATOMIC_RELEASE);
	assert_int_equal(rte_eth_dev_stop(t.vp[0]), 0);
	TEST_WAIT(__atomic_load_n(&closed_in_cb, __ATOMIC_ACQUIRE) == 1, VT_WAIT_MS);
	assert_false(rte_eth_dev_is_valid_port(t.vp[0]));
	/* a re-armed control alarm would have run by the end of these */
	assert_int_equal(test_wait_alarm_periods(CTL_PERIOD_US, 2, TEST_WAIT_MS), 0);
	assert_int_equal(rte_vdev_uninit(VNIC_NAME), 0);
	node_destroy(&t.b);
	rte_vdev_uninit(t.a.name);
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);
}

/*
 * The MAC table on a running port decides DLIDs: a global unicast MAC with
 * no entry and no default ports is dropped (tx_dlid_zero); an entry sends
 * it to its DLID, a changed entry to the new one; an entry beats the LMAC
 * rule; a source-MAC entry (dlid_sd bit 5) is not a destination; an
 * all-zero MAC deletes; broadcast goes to u_mcast_dlid; with a default
 * port, unknown unicast goes there. GET returns the table and its digest.
 */
static void
test_mac_table_sets_dlid(void **state)
{
	struct rte_ether_addr peer = peer_lmac(10), bcast;
	struct vnic_mac_entry e[2];
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct vema_mac_tbl_hdr h;
	struct vnic_mac_entry got;
	uint8_t d[VEMA_DATA_LEN], q[VEMA_MAC_TBL_HDR_LEN];
	struct vtopo t;

	(void)state;
	memset(&bcast, 0xFF, sizeof(bcast));
	vtopo_create(&t, 1, 1, "");
	vtopo_forward_all(&t, 1500);

	vnic_tx_frames(t.vp[0], &gmac, 70, 1, 0);
	assert_int_equal(xstat(t.vp[0], "tx_dlid_zero"), 1);
	peer_recv_none(&t, 30);

	em_mac_entry(&e[0], &gmac, B_LID);
	assert_int_equal(em_set_macs(&t, 0, 0, e, 1, 0xD1), VEMA_STATUS_OK);
	vnic_tx_frames(t.vp[0], &gmac, 70, 1, 1);
	peer_expect(&t, t.vp[0], &gmac, 70, 1, B_LID);

	em_mac_entry(&e[0], &gmac, 0x77);
	em_mac_entry(&e[1], &peer, 0x55);
	assert_int_equal(em_set_macs(&t, 0, 0, e, 2, 0xD2), VEMA_STATUS_OK);
	vnic_tx_frames(t.vp[0], &gmac, 70, 1, 2);
	peer_expect(&t, t.vp[0], &gmac, 70, 2, 0x77);
	vnic_tx_frames(t.vp[0], &peer, 70, 1, 3);
	peer_expect(&t, t.vp[0], &peer, 70, 3, 0x55);

	/* GET echoes the entries and the digest */
	memset(q, 0, sizeof(q));
	h = (struct vema_mac_tbl_hdr){ .offset = 0, .num_entries = 2 };
	vema_mac_tbl_hdr_encode(q, &h);
	assert_int_equal(em_call(&t, VEMA_METHOD_GET, VEMA_ATTR_MAC_ENTRIES, 0, q, sizeof(q), d),
			 VEMA_STATUS_OK);
	vema_mac_tbl_hdr_decode(d, &h);
	assert_int_equal(h.num_entries, 2);
	assert_int_equal(h.digest, 0xD2);
	vema_mac_entry_decode(d + VEMA_MAC_TBL_HDR_LEN + VEMA_MAC_ENTRY_LEN, &got);
	assert_true(rte_is_same_ether_addr(&got.mac, &peer));
	assert_int_equal(got.dlid_sd, 0x55u << VNIC_DLID_SD_SHIFT);

	/* a source-MAC entry is no destination; a zero MAC deletes */
	e[0].dlid_sd |= VNIC_DLID_SD_SMAC;
	memset(&e[1].mac, 0, sizeof(e[1].mac));
	assert_int_equal(em_set_macs(&t, 0, 0, e, 2, 0xD3), VEMA_STATUS_OK);
	vnic_tx_frames(t.vp[0], &gmac, 70, 1, 4);
	assert_int_equal(xstat(t.vp[0], "tx_dlid_zero"), 2);
	vnic_tx_frames(t.vp[0], &peer, 70, 1, 5);
	peer_expect(&t, t.vp[0], &peer, 70, 5, B_LID);

	vnic_tx_frames(t.vp[0], &bcast, 70, 1, 6);
	peer_expect(&t, t.vp[0], &bcast, 70, 6, 0xF00001);
	assert_int_equal(xstat(t.vp[0], "tx_mcastbcast"), 1);

	/* a default port for unknown unicast */
	em_cfg(&v, &p, 10, 0, 1500, VNIC_STATE_FORWARDING);
	v.def_port_mask = 1;
	v.u_ucast_dlid[0] = 0x66;
	assert_int_equal(em_set_cfg(&t, 0, &v, &p), VEMA_STATUS_OK);
	vnic_tx_frames(t.vp[0], &gmac, 70, 1, 7);
	peer_expect(&t, t.vp[0], &gmac, 70, 7, 0x66);
	assert_int_equal(xstat(t.vp[0], "tx_dlid_zero"), 2);
	assert_int_equal(xstat(t.vp[0], "tx_unicast"), 5);
	vtopo_destroy(&t);
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);
}

/* A port's MAC is @mac. */
static bool
mac_is(uint16_t port, const struct rte_ether_addr *mac)
{
	struct rte_ether_addr now = port_mac(port);

	return rte_is_same_ether_addr(&now, mac);
}

/* GET the interface unicast MAC list of vport @idx; returns its length. */
static uint16_t
em_iface_ucast(struct vtopo *t, uint8_t idx, struct rte_ether_addr *macs)
{
	struct vema_iface_hdr h = { 0 };
	uint8_t q[VEMA_IFACE_HDR_LEN], d[VEMA_DATA_LEN];
	unsigned int i;

	vema_iface_hdr_encode(q, &h);
	assert_int_equal(em_call(t, VEMA_METHOD_GET, VEMA_ATTR_IFACE_UCAST_MACS, idx, q,
				 sizeof(q), d), VEMA_STATUS_OK);
	vema_iface_hdr_decode(d, &h);
	for (i = 0; i < h.num_macs_in_msg; i++)
		memcpy(&macs[i], d + VEMA_IFACE_HDR_LEN + 6 * i, 6);
	return h.num_macs_in_msg;
}

/*
 * The EM's base MAC becomes the port's MAC, on a running port and again
 * when the EM changes it; frames from B to it are received; the EM's own
 * base MAC is not reported back in the interface unicast list, while a
 * MAC the application adds is.
 */
static void
test_base_mac_from_em(void **state)
{
	const struct rte_ether_addr other = { { 0x02, 0xAA, 0xBB, 0xCC, 0xDD, 0x01 } };
	const struct rte_ether_addr extra = { { 0x02, 0x77, 0, 0, 0, 0x01 } };
	struct rte_ether_addr want, macs[8];
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct vtopo t;

	(void)state;
	vtopo_create(&t, 2, 1, "");
	vtopo_start(&t);
	em_cfg(&v, &p, 10, 1, 1500, VNIC_STATE_FORWARDING);
	want = p.base_mac_addr;
	assert_false(rte_is_same_ether_addr(&want, &(struct rte_ether_addr){ 0 }));
	em_set_vport(&t, 1, 10, 1500, VNIC_STATE_FORWARDING);
	TEST_WAIT(mac_is(t.vp[1], &want), VT_WAIT_MS);
	assert_true(link_wait(t.vp[1], true));

	p.base_mac_addr = other;
	assert_int_equal(em_set_cfg(&t, 1, &v, &p), VEMA_STATUS_OK);
	TEST_WAIT(mac_is(t.vp[1], &other), VT_WAIT_MS);
	{
		static struct rte_mbuf *r[4];
		uint64_t f = xstat(t.vp[1], "fabric_rx_packets");

		peer_send(&t, 10, 64, &other, 9);
		assert_int_equal(vnic_poll_fabric(t.vp[1], 0, f + 1, r, RTE_DIM(r), VT_WAIT_MS), 1);
		assert_true(frame_is(r[0], 64, &other, 9));
		rte_pktmbuf_free(r[0]);
	}
	assert_int_equal(em_iface_ucast(&t, 1, macs), 0);
	assert_int_equal(rte_eth_dev_mac_addr_add(t.vp[1], (struct rte_ether_addr *)&extra, 0),
			 0);
	assert_int_equal(em_iface_ucast(&t, 1, macs), 1);
	assert_true(rte_is_same_ether_addr(&macs[0], &extra));
	vtopo_destroy(&t);
}

/* A port's MTU is @want. */
static bool
mtu_is(uint16_t port, uint16_t want)
{
	uint16_t mtu = 0;

	assert_int_equal(rte_eth_dev_get_mtu(port, &mtu), 0);
	return mtu == want;
}

/* Send one frame of @len (chain of @pool segments of @seg) and expect it at B. */
static void
tx_check_one(struct vtopo *t, struct rte_mempool *pool, uint32_t seg, uint32_t len,
	     uint32_t seq)
{
	struct rte_ether_addr src = port_mac(t->vp[0]), dst = peer_lmac(10);
	struct rte_mbuf *m = eth_chain(pool, seg, len, &dst, &src, seq);

	vnic_send(t->vp[0], 0, &m, 1);
	peer_expect(t, t->vp[0], &dst, len, seq, B_LID);
}

/* From B, a frame of @len as a chain of @pool/@seg; it reaches vport 0 whole. */
static void
rx_check_one(struct vtopo *t, struct rte_mempool *pool, uint32_t seg, uint32_t len,
	     uint32_t seq, bool multi)
{
	struct rte_ether_addr mac = port_mac(t->vp[0]);
	uint64_t f = xstat(t->vp[0], "fabric_rx_packets");
	struct rte_mbuf *r[2];

	peer_send_ex(t, 10, len, &mac, seq, 1, pool, seg);
	assert_int_equal(vnic_poll_fabric(t->vp[0], 0, f + 1, r, RTE_DIM(r), VT_WAIT_MS), 1);
	assert_true(frame_is(r[0], len, &mac, seq));
	assert_int_equal(r[0]->nb_segs > 1, multi);
	rte_pktmbuf_free(r[0]);
}

/*
 * eth_mtu from the EM: frames over MTU + 18 are dropped both ways
 * (tx_oversize, rx_oversize), frames of MTU + 18 cross; the ethdev MTU
 * follows the EM's on a running port and cannot be raised above it. At
 * MTU 9000, 9018-byte frames cross end to end both ways: from a one-segment
 * mbuf, from chains of 256-byte segments (in place when the last segment
 * has room, through a copy when it is full), and arrive as multi-segment
 * mbufs; back to 1500, 1519 bytes are oversize again.
 */
static void
test_mtu_and_jumbo_frames(void **state)
{
	struct rte_ether_addr dst = peer_lmac(10);
	uint16_t mtu;
	uint64_t copies;
	struct vtopo t;

	(void)state;
	vtopo_create(&t, 1, 1, "");
	vtopo_forward_all(&t, 1500);
	assert_int_equal(rte_eth_dev_get_mtu(t.vp[0], &mtu), 0);
	assert_int_equal(mtu, 1500);
	tx_check_one(&t, test_pool, 16384, 1518, 1);
	vnic_tx_frames(t.vp[0], &dst, 1519, 1, 2);
	assert_int_equal(xstat(t.vp[0], "tx_oversize"), 1);
	rx_check_one(&t, test_pool, 16384, 1518, 3, false);
	assert_int_equal(peer_to_vport0(&t, 10, 1519, 1, 4), 0);
	assert_int_equal(xstat(t.vp[0], "rx_oversize"), 1);
	peer_recv_none(&t, 20);

	em_set_vport(&t, 0, 10, 9000, VNIC_STATE_FORWARDING);
	TEST_WAIT(mtu_is(t.vp[0], 9000), VT_WAIT_MS);
	assert_int_not_equal(rte_eth_dev_set_mtu(t.vp[0], 9001), 0);
	assert_int_equal(rte_eth_dev_set_mtu(t.vp[0], 8000), 0);

	copies = xstat(t.vp[0], "tx_encap_copies");
	tx_check_one(&t, test_pool, 16384, 9018, 10);
	tx_check_one(&t, test_small_pool, 256, 9018, 11);
	assert_int_equal(xstat(t.vp[0], "tx_encap_copies"), copies);
	tx_check_one(&t, test_small_pool, 256, 35 * 256, 12);
	assert_int_equal(xstat(t.vp[0], "tx_encap_copies"), copies + 1);
	vnic_tx_frames(t.vp[0], &dst, 9019, 1, 13);
	assert_int_equal(xstat(t.vp[0], "tx_oversize"), 2);
	rx_check_one(&t, test_pool, 16384, 9018, 14, true);
	rx_check_one(&t, test_small_pool, 256, 9018, 15, true);
	assert_int_equal(peer_to_vport0(&t, 10, 9019, 1, 16), 0);
	assert_int_equal(xstat(t.vp[0], "rx_oversize"), 2);
	assert_int_equal(xstat(t.vp[0], "tx_1519_max"), 4);	/* 1518 is one */
	assert_int_equal(xstat(t.vp[0], "rx_1519_max"), 3);

	em_set_vport(&t, 0, 10, 1500, VNIC_STATE_FORWARDING);
	TEST_WAIT(mtu_is(t.vp[0], 1500), VT_WAIT_MS);
	vnic_tx_frames(t.vp[0], &dst, 1519, 1, 20);
	assert_int_equal(xstat(t.vp[0], "tx_oversize"), 3);
	assert_int_equal(peer_to_vport0(&t, 10, 1519, 1, 21), 0);
	assert_int_equal(xstat(t.vp[0], "rx_oversize"), 3);
	peer_recv_none(&t, 20);
	vtopo_destroy(&t);
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);
	assert_int_equal(rte_mempool_avail_count(test_small_pool), TEST_POOL_SIZE);
}

/*
 * TX drop reasons, each counted once in its own counter: DLID 0 (global
 * unicast, no MAC entry, no default port) as tx_dlid_zero, DROP_ALL as
 * tx_drop_state, over MTU + 18 as tx_oversize; the xstats, the ethdev
 * counters and the EM's summary and error counters agree. Resetting the
 * xstats or the stats restarts the application's view only: the EM keeps
 * counting from power-on.
 */
static void
test_tx_drop_reasons_agree_with_em(void **state)
{
	struct rte_ether_addr peer = peer_lmac(10);
	struct vnic_counters c;
	struct rte_eth_stats st;
	unsigned int i;
	struct vtopo t;

	(void)state;
	vtopo_create(&t, 1, 1, "");
	vtopo_forward_all(&t, 1500);
	vnic_tx_frames(t.vp[0], &gmac, 100, 3, 0);
	vnic_tx_frames(t.vp[0], &peer, 1600, 2, 10);
	vnic_tx_frames(t.vp[0], &peer, 100, 4, 20);
	for (i = 0; i < 4; i++)
		peer_expect(&t, t.vp[0], &peer, 100, 20 + i, B_LID);
	em_set_vport(&t, 0, 10, 1500, VNIC_STATE_DROP_ALL);
	assert_true(link_wait(t.vp[0], false));
	vnic_tx_frames(t.vp[0], &peer, 100, 5, 30);
	em_set_vport(&t, 0, 10, 1500, VNIC_STATE_FORWARDING);
	peer_recv_none(&t, 20);

	assert_int_equal(xstat(t.vp[0], "tx_dlid_zero"), 3);
	assert_int_equal(xstat(t.vp[0], "tx_oversize"), 2);
	assert_int_equal(xstat(t.vp[0], "tx_drop_state"), 5);
	assert_int_equal(xstat(t.vp[0], "tx_logic"), 0);
	assert_int_equal(xstat(t.vp[0], "vnic_tx_errors"), 10);
	assert_int_equal(xstat(t.vp[0], "tx_unicast"), 4);
	assert_int_equal(xstat(t.vp[0], "tx_65_127"), 4);
	assert_int_equal(rte_eth_stats_get(t.vp[0], &st), 0);
	assert_int_equal(st.opackets, 4);
	assert_int_equal(st.obytes, 400);
	assert_int_equal(st.oerrors, 10);

	em_counters(&t, 0, &c);
	assert_int_equal(c.tx_dlid_zero, 3);
	assert_int_equal(c.tx_drop_state, 5);
	assert_int_equal(c.tx_errors, 10);
	assert_int_equal(c.tx_logic, 0);
	assert_int_equal(c.tx_smac_filt, 0);
	assert_int_equal(c.tx_packets, 4);
	assert_int_equal(c.tx_bytes, 4 * (100 + RTE_ETHER_CRC_LEN));
	assert_int_equal(c.tx.unicast, 4);
	assert_int_equal(c.tx.untagged, 4);
	assert_int_equal(c.tx.size[VNIC_SIZE_65_127], 4);

	assert_int_equal(rte_eth_xstats_reset(t.vp[0]), 0);
	assert_int_equal(rte_eth_stats_reset(t.vp[0]), 0);
	assert_int_equal(xstat(t.vp[0], "tx_dlid_zero"), 0);
	assert_int_equal(rte_eth_stats_get(t.vp[0], &st), 0);
	assert_int_equal(st.opackets, 0);
	assert_int_equal(st.oerrors, 0);
	vnic_tx_frames(t.vp[0], &gmac, 100, 1, 40);
	assert_int_equal(xstat(t.vp[0], "tx_dlid_zero"), 1);
	em_counters(&t, 0, &c);
	assert_int_equal(c.tx_dlid_zero, 4);
	assert_int_equal(c.tx_packets, 4);
	vtopo_destroy(&t);
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);
}

/*
 * Management through the agent: GET ClassPortInfo gives the agent's fixed
 * fields and what SET stored (trap LID and SL); GET VESWPORT_INFO returns
 * every field SET gave, with the read-only state the port is in
 * (FORWARDING and link up while started, DROP_ALL and down once stopped,
 * config_state kept); an index without a port reads as power-on defaults.
 */
static void
test_mgmt_get_what_was_set(void **state)
{
	struct vema_class_port_info cpi;
	struct vnic_vesw_info v, gv;
	struct vnic_port_info p, gp;
	uint8_t d[VEMA_DATA_LEN];
	unsigned int i;
	struct vtopo t;

	(void)state;
	vtopo_create(&t, 1, 1, "");
	vtopo_start(&t);
	assert_int_equal(em_call(&t, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0, NULL, 0, d),
			 VEMA_STATUS_OK);
	vema_cpi_decode(d, &cpi);
	assert_int_equal(cpi.base_version, VEMA_BASE_VERSION);
	assert_int_equal(cpi.class_version, VEMA_CLASS_VERSION);
	assert_int_equal(cpi.cap_mask, VEMA_CPI_CAP_MASK);
	assert_int_equal(cpi.cap_mask2_resp_time & 0x1F, VEMA_CPI_RESP_TIME);
	assert_int_equal(cpi.trap_lid, 0);

	memset(&cpi, 0, sizeof(cpi));
	cpi.trap_lid = B_LID;
	cpi.trap_sl_rsvd = 5 << 3;
	cpi.trap_pkey = 0x7FFF;
	vema_cpi_encode(d, &cpi);
	assert_int_equal(em_call(&t, VEMA_METHOD_SET, VEMA_ATTR_CLASS_PORT_INFO, 0, d,
				 VEMA_CPI_LEN, NULL), VEMA_STATUS_OK);
	assert_int_equal(em_call(&t, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0, NULL, 0, d),
			 VEMA_STATUS_OK);
	vema_cpi_decode(d, &cpi);
	assert_int_equal(cpi.trap_lid, B_LID);
	assert_int_equal(cpi.trap_sl_rsvd, 5 << 3);
	assert_int_equal(cpi.trap_pkey, 0x7FFF);
	assert_int_equal(cpi.cap_mask, VEMA_CPI_CAP_MASK);

	em_cfg(&v, &p, 0x123, 0, 4000, VNIC_STATE_FORWARDING);
	v.def_port_mask = 3;
	v.u_ucast_dlid[0] = 0x21;
	v.u_ucast_dlid[1] = 0x22;
	v.rc = 0x01234567;
	v.pkey = 0x8123;
	p.port_num = 77;
	for (i = 0; i < 8; i++) {
		p.pcp_to_sc_uc[i] = (uint8_t)i;
		p.pcp_to_vl_uc[i] = (uint8_t)i;
		p.pcp_to_sc_mc[i] = (uint8_t)(8 + i);
		p.pcp_to_vl_mc[i] = (uint8_t)(7 - i);
	}
	p.non_vlan_sc_uc = 3;
	p.non_vlan_vl_mc = 4;
	assert_int_equal(em_set_cfg(&t, 0, &v, &p), VEMA_STATUS_OK);
	assert_true(link_wait(t.vp[0], true));
	em_get_vport(&t, 0, &gv, &gp);
	assert_memory_equal(&gv, &v, sizeof(v));
	assert_int_equal(gp.port_num, 77);
	assert_true(rte_is_same_ether_addr(&gp.base_mac_addr, &p.base_mac_addr));
	assert_int_equal(gp.config_state, VNIC_STATE_FORWARDING);
	assert_int_equal(gp.oper_state, VNIC_STATE_FORWARDING);
	assert_int_equal(gp.eth_link_status, VNIC_LINK_UP);
	assert_int_equal(gp.encap_slid, A_LID);
	assert_int_equal(gp.max_mac_tbl_ent, VNIC_MAC_TBL_MAX);
	assert_int_equal(gp.max_smac_ent, VNIC_SMAC_MAX);
	assert_memory_equal(gp.pcp_to_sc_mc, p.pcp_to_sc_mc, 8);
	assert_memory_equal(gp.pcp_to_vl_mc, p.pcp_to_vl_mc, 8);
	assert_int_equal(gp.non_vlan_sc_uc, 3);
	assert_int_equal(gp.non_vlan_vl_mc, 4);

	assert_int_equal(rte_eth_dev_stop(t.vp[0]), 0);
	em_get_vport(&t, 0, &gv, &gp);
	assert_int_equal(gp.config_state, VNIC_STATE_FORWARDING);
	assert_int_equal(gp.oper_state, VNIC_STATE_DROP_ALL);
	assert_int_equal(gp.eth_link_status, VNIC_LINK_DOWN);

	em_get_vport(&t, 7, &gv, &gp);
	assert_int_equal(gv.vesw_id, 0);
	assert_int_equal(gv.eth_mtu, VNIC_ETH_MTU_DEFAULT);
	assert_int_equal(gp.config_state, VNIC_STATE_DROP_ALL);
	assert_int_equal(gp.max_mac_tbl_ent, VNIC_MAC_TBL_MAX);
	vtopo_destroy(&t);
}

/*
 * Traps reach the EM: with ClassPortInfo's trap LID set to B, an
 * application adding a MAC to a running port makes the agent send B an FM
 * packet (to QP 1, from A's LID) with a Trap of the Notice attribute whose
 * payload names the vport (fabric, vesw, port number, index) and opcode
 * UCAST_MAC_CHANGE; a new multicast list gives MCAST_MAC_CHANGE.
 */
static void
test_trap_on_mac_change_reaches_em(void **state)
{
	struct rte_ether_addr add = { { 0x02, 0x77, 0, 0, 0, 0x02 } };
	struct rte_ether_addr mc = { { 0x01, 0x00, 0x5E, 0, 0, 0x09 } };
	struct opa16b_fm_info fi;
	struct vema_trap tr;
	struct vema_hdr h;
	struct vtopo t;

	(void)state;
	vtopo_create(&t, 1, 1, "");
	vtopo_forward_all(&t, 1500);
	em_set_trap_lid(&t, B_LID);
	assert_int_equal(rte_eth_dev_mac_addr_add(t.vp[0], &add, 0), 0);
	assert_true(peer_recv_trap(&t, VEMA_TRAP_UCAST_MAC_CHANGE, 0, &tr, &h, &fi, VT_WAIT_MS));
	assert_int_equal(h.mad.base_version, VEMA_BASE_VERSION);
	assert_int_equal(h.mad.mgmt_class, VEMA_MGMT_CLASS);
	assert_int_equal(h.mad.class_version, VEMA_CLASS_VERSION);
	assert_int_equal(h.oui, VEMA_OUI);
	assert_int_equal(fi.f.dlid, B_LID);
	assert_int_equal(fi.f.slid, A_LID);
	assert_int_equal(fi.f.dest_qpn, OPA16B_QPN_GSI);
	assert_int_equal(tr.issuer_lid, A_LID);
	assert_int_equal(tr.fabric_id, 0x12);
	assert_int_equal(tr.vesw_id, 10);
	assert_int_equal(tr.veswport_num, 100);
	assert_int_equal(tr.vport_index, 0);
	assert_true(xstat(t.vp[0], "vema_traps") >= 1);

	assert_int_equal(rte_eth_dev_set_mc_addr_list(t.vp[0], &mc, 1), 0);
	assert_true(peer_recv_trap(&t, VEMA_TRAP_MCAST_MAC_CHANGE, 0, &tr, &h, &fi, VT_WAIT_MS));
	assert_int_equal(tr.vesw_id, 10);
	vtopo_destroy(&t);
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);
}

/* An FM packet with a request MAD (@data: its payload) from B to A's agent. */
static struct rte_mbuf *
em_request(struct vtopo *t, uint8_t method, uint16_t attr, uint32_t mod, const void *data,
	   size_t len, uint64_t tid)
{
	static uint8_t mad[VEMA_MAD_SIZE], pkt[VEMA_PKT_MAX];
	struct opa16b_fm_fields f = {
		.slid = B_LID, .dlid = t->lid, .pkey = 0xFFFF,
		.dest_qpn = OPA16B_QPN_GSI, .src_qpn = EM_SRC_QPN,
	};
	struct vema_hdr h;
	struct rte_mbuf *m;
	int n;

	memset(mad, 0, sizeof(mad));
	vema_hdr_request(&h, method, attr, mod, tid);
	vema_hdr_encode(mad, &h);
	memcpy(mad + VEMA_HDR_LEN, data, len);
	n = opa16b_fm_build(pkt, sizeof(pkt), &f, mad, sizeof(mad));
	assert_true(n > 0);
	m = rte_pktmbuf_alloc(test_pool);
	assert_non_null(m);
	memcpy(rte_pktmbuf_append(m, (uint16_t)n), pkt, n);
	return m;
}

/* Take up to @n packets on the remote side and free them; returns how many. */
static unsigned int
peer_free_upto(struct vtopo *t, unsigned int n)
{
	struct rte_mbuf *r[32];
	uint16_t got = peer_rx(t, r, (uint16_t)RTE_MIN(n, RTE_DIM(r)));

	rte_pktmbuf_free_bulk(r, got);
	return got;
}

/*
 * When the EM has the reply to a SET VESWPORT_INFO, the vport already
 * receives on its new vesw: a frame sent the moment the reply arrives is
 * delivered, never counted as rx_bad_veswid. The SET is followed by 31
 * GETs in the same burst, so the control path is still busy answering
 * them while the frame comes in. Twenty moves of vport 0 between vesws.
 */
static void
test_set_reply_means_vesw_live(void **state)
{
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	uint8_t d[VEMA_VESWPORT_INFO_LEN];
	struct rte_ether_addr mac;
	unsigned int k, i;
	struct vtopo t;

	(void)state;
	vtopo_create(&t, 1, 1, "");
	vtopo_forward_all(&t, 1500);
	mac = port_mac(t.vp[0]);
	for (k = 0; k < 20; k++) {
		uint16_t vesw = (uint16_t)(100 + k);
		struct rte_mbuf *burst[32], *r;
		uint64_t set_tid = t.tid, f;
		int status = -1;

		em_cfg(&v, &p, vesw, 0, 1500, VNIC_STATE_FORWARDING);
		vema_veswport_info_encode(d, &v, &p);
		burst[0] = em_request(&t, VEMA_METHOD_SET, VEMA_ATTR_VESWPORT_INFO, 0, d,
				      sizeof(d), t.tid++);
		for (i = 1; i < RTE_DIM(burst); i++)
			burst[i] = em_request(&t, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0,
					      d, 0, t.tid++);
		peer_tx(&t, burst, RTE_DIM(burst));
		TEST_WAIT(em_reply_take(&t, set_tid, &status, NULL), VT_WAIT_MS);
		assert_int_equal(status, VEMA_STATUS_OK);
		/* at once: the other 31 replies are still being made */
		f = xstat(t.vp[0], "fabric_rx_packets");
		peer_send(&t, vesw, 64, &mac, k);
		assert_int_equal(vnic_poll_fabric(t.vp[0], 0, f + 1, &r, 1, VT_WAIT_MS), 1);
		assert_true(frame_is(r, 64, &mac, k));
		rte_pktmbuf_free(r);
		/* the other replies */
		i = 1;
		TEST_WAIT((i += peer_free_upto(&t, RTE_DIM(burst) - i)) == RTE_DIM(burst),
			  VT_WAIT_MS);
		assert_int_equal(i, RTE_DIM(burst));
	}
	assert_int_equal(xstat(t.vp[0], "rx_bad_veswid"), 0);
	vtopo_destroy(&t);
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		vnic_test(test_drop_all_link_down_lsc),
		vnic_test(test_last_port_closed_from_lsc_callback),
		vnic_test(test_mac_table_sets_dlid),
		vnic_test(test_base_mac_from_em),
		vnic_test(test_mtu_and_jumbo_frames),
		vnic_test(test_tx_drop_reasons_agree_with_em),
		vnic_test(test_mgmt_get_what_was_set),
		vnic_test(test_trap_on_mac_change_reaches_em),
		vnic_test(test_set_reply_means_vesw_live),
	};

	/* one case: argv[1] names it (a cmocka glob) */
	test_case_filter(argc, argv);
	return cmocka_run_group_tests(tests, test_eal_setup, test_eal_teardown);
}
