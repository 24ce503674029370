/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _OPA_VNIC_TEST_UTIL_H_
#define _OPA_VNIC_TEST_UTIL_H_

/*
 * net_opa_vnic test helpers. Topology: node A is net_hfi1 (model, LID 1)
 * with net_opa_vnic stacked on it; node B is a bare net_hfi1 (LID 2) on the
 * same in-process ring wire, driven by the test: it plays the Ethernet
 * Manager (VEMA MADs to A's QP 1) and a remote VNIC node (16B packets).
 */

#include <inttypes.h>
#include <unistd.h>

#include <rte_cycles.h>

#include "hfi1_test_util.h"
#include "opa16b_fm.h"
#include "opa16b_lmac.h"
#include "opa16b_vnic.h"
#include "vema_agent.h"
#include "vema_mad.h"
#include "vnic.h"

#define A_LID 1
#define B_LID 2
#define VNIC_NAME "net_opa_vnic_t0"
#define EM_SRC_QPN 0x77

struct vtopo {
	struct node a, b;		/* fabric ports: A (owned by the VNIC), B (raw) */
	uint16_t vp[16];		/* VNIC ports */
	unsigned int nb_vports;
	uint64_t tid;
};

static inline int
vnic_port_by_index(unsigned int i, uint16_t *port)
{
	char name[64];

	snprintf(name, sizeof(name), "%s_vp%u", VNIC_NAME, i);
	return rte_eth_dev_get_port_by_name(name, port);
}

/* Create the topology; VNIC ports configured with @nq queues, not started. */
static inline void
vtopo_create(struct vtopo *t, unsigned int nb_vports, unsigned int nq, const char *extra)
{
	char args[256];
	unsigned int i, q;

	memset(t, 0, sizeof(*t));
	t->tid = 0x100;
	node_create(&t->a, 0, "ring:vw", "");
	node_create(&t->b, 1, "ring:vw", "");
	{
		/* B sends 2048-byte MADs: a fabric MTU, not Ethernet's 1500 */
		struct rte_eth_conf bc = {
			.rxmode = { .mtu = 10240, .offloads = RTE_ETH_RX_OFFLOAD_SCATTER },
			.txmode = { .offloads = RTE_ETH_TX_OFFLOAD_MULTI_SEGS },
		};

		node_configure_conf(&t->b, &bc, 1, 1, 512, 512, test_pool);
		assert_int_equal(rte_eth_dev_start(t->b.port), 0);
	}
	snprintf(args, sizeof(args), "fabric=%s,vports=%u,queues=%u%s%s", t->a.name, nb_vports,
		 nq, extra[0] ? "," : "", extra);
	assert_int_equal(rte_vdev_init(VNIC_NAME, args), 0);
	t->nb_vports = nb_vports;
	for (i = 0; i < nb_vports; i++) {
		struct rte_eth_conf conf = { .txmode.offloads = RTE_ETH_TX_OFFLOAD_MULTI_SEGS };

		assert_int_equal(vnic_port_by_index(i, &t->vp[i]), 0);
		assert_int_equal(rte_eth_dev_configure(t->vp[i], nq, nq, &conf), 0);
		for (q = 0; q < nq; q++) {
			assert_int_equal(rte_eth_rx_queue_setup(t->vp[i], q, 256, SOCKET_ID_ANY,
								NULL, test_pool), 0);
			assert_int_equal(rte_eth_tx_queue_setup(t->vp[i], q, 256, SOCKET_ID_ANY,
								NULL), 0);
		}
	}
}

static inline void
vtopo_start(struct vtopo *t)
{
	unsigned int i;

	for (i = 0; i < t->nb_vports; i++)
		assert_int_equal(rte_eth_dev_start(t->vp[i]), 0);
}

static inline void
vtopo_destroy(struct vtopo *t)
{
	unsigned int i;

	for (i = 0; i < t->nb_vports; i++)
		rte_eth_dev_stop(t->vp[i]);
	assert_int_equal(rte_vdev_uninit(VNIC_NAME), 0);
	node_destroy(&t->b);
	/* net_opa_vnic closed A; its vdev goes without a port */
	rte_vdev_uninit(t->a.name);
}

static inline int
vtopo_cleanup(void **state)
{
	(void)state;
	rte_vdev_uninit(VNIC_NAME);
	return nodes_cleanup(state);
}

#define vnic_test(f) cmocka_unit_test_teardown(f, vtopo_cleanup)

/*
 * One EM request from B to A's agent; returns the reply status (or -1 when
 * no reply came within a second). @data is the attribute payload.
 */
static inline int
em_call(struct vtopo *t, uint8_t method, uint16_t attr, uint32_t mod, const void *data,
	size_t len, uint8_t *reply_data)
{
	uint8_t mad[VEMA_MAD_SIZE], pkt[VEMA_PKT_MAX];
	struct opa16b_fm_fields f = {
		.slid = B_LID, .dlid = A_LID, .pkey = 0xFFFF, .sc = 0,
		.dest_qpn = OPA16B_QPN_GSI, .src_qpn = EM_SRC_QPN,
	};
	struct vema_hdr h;
	struct rte_mbuf *m;
	uint64_t tid = t->tid++;
	uint64_t end = rte_get_timer_cycles() + rte_get_timer_hz();
	int n;

	memset(mad, 0, sizeof(mad));
	vema_hdr_request(&h, method, attr, mod, tid);
	vema_hdr_encode(mad, &h);
	if (len != 0)
		memcpy(mad + VEMA_HDR_LEN, data, len);
	n = opa16b_fm_build(pkt, sizeof(pkt), &f, mad, sizeof(mad));
	assert_true(n > 0);
	m = rte_pktmbuf_alloc(test_pool);
	assert_non_null(m);
	memcpy(rte_pktmbuf_append(m, (uint16_t)n), pkt, n);
	send_all(t->b.port, 0, &m, 1);
	while (rte_get_timer_cycles() < end) {
		struct rte_mbuf *r;
		struct opa16b_fm_info info;
		const uint8_t *p;

		if (rte_eth_rx_burst(t->b.port, 0, &r, 1) == 0) {
			usleep(200);
			continue;
		}
		p = rte_pktmbuf_read(r, 0, r->pkt_len, pkt);
		if (p != NULL && opa16b_fm_parse(p, r->pkt_len, &info) == OPA16B_FM_OK) {
			vema_hdr_decode(info.mad, &h);
			if (h.tid == tid) {
				if (reply_data != NULL)
					memcpy(reply_data, info.mad + VEMA_HDR_LEN, VEMA_DATA_LEN);
				rte_pktmbuf_free(r);
				return h.status;
			}
		}
		rte_pktmbuf_free(r);	/* VNIC traffic or a trap: not ours */
	}
	return -1;
}

/* The vport configuration the tests use: vesw @vesw, MTU @mtu, @state. */
static inline void
em_cfg(struct vnic_vesw_info *v, struct vnic_port_info *p, uint16_t vesw, uint8_t idx,
       uint16_t mtu, uint8_t state)
{
	struct opa16b_lmac l = { .fabric_id = 0x12, .vesw_id = vesw, .lid = A_LID };

	vnic_info_defaults(v, p);
	v->fabric_id = 0x12;
	v->vesw_id = vesw;
	v->pkey = 0x8001;
	v->u_mcast_dlid = 0xF00001;
	v->eth_mtu = mtu;
	p->port_num = 100 + idx;
	opa16b_lmac_build(&l, &p->base_mac_addr);
	p->base_mac_addr.addr_bytes[5] ^= idx;	/* one MAC per vport */
	p->config_state = state;
	p->encap_slid = A_LID;
}

/* Print a port's non-zero xstats (diagnosis of a failed test). */
static inline void
xstats_dump(const char *who, uint16_t port)
{
	struct rte_eth_xstat_name names[256];
	struct rte_eth_xstat v[256];
	int n = rte_eth_xstats_get_names(port, names, RTE_DIM(names)), i;

	if (n <= 0 || n > (int)RTE_DIM(names) || rte_eth_xstats_get(port, v, n) != n)
		return;
	for (i = 0; i < n; i++)
		if (v[i].value != 0)
			fprintf(stderr, "%s %s %" PRIu64 "\n", who, names[i].name, v[i].value);
}

/* SET VESWPORT_INFO for vport @idx; asserts success. */
static inline void
em_set_vport(struct vtopo *t, uint8_t idx, uint16_t vesw, uint16_t mtu, uint8_t state)
{
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	uint8_t d[VEMA_VESWPORT_INFO_LEN];

	em_cfg(&v, &p, vesw, idx, mtu, state);
	vema_veswport_info_encode(d, &v, &p);
	if (em_call(t, VEMA_METHOD_SET, VEMA_ATTR_VESWPORT_INFO, idx, d, sizeof(d), NULL) != 0) {
		xstats_dump("A", t->a.port);
		xstats_dump("B", t->b.port);
		xstats_dump("vport 0", t->vp[0]);
		fail_msg("SET VESWPORT_INFO %u: no OK reply", idx);
	}
}

/* Wait (up to 2 s) for a port's link to be @up. */
static inline bool
link_wait(uint16_t port, bool up)
{
	struct rte_eth_link l;
	unsigned int i;

	for (i = 0; i < 2000; i++) {
		assert_int_equal(rte_eth_link_get_nowait(port, &l), 0);
		if ((bool)l.link_status == up)
			return true;
		usleep(1000);
	}
	return false;
}

/* An Ethernet frame of @len bytes, dst @dst, src @src, payload from @seq. */
static inline void
eth_fill(uint8_t *f, uint32_t len, const struct rte_ether_addr *dst,
	 const struct rte_ether_addr *src, uint32_t seq)
{
	uint32_t i;

	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x88;
	f[13] = 0xB5;	/* local experimental EtherType: not IP, not VLAN */
	for (i = 14; i < len; i++)
		f[i] = (uint8_t)(seq * 7 + i);
	if (len >= 18)
		memcpy(f + 14, &seq, 4);
}

static inline struct rte_mbuf *
eth_mbuf(uint32_t len, const struct rte_ether_addr *dst, const struct rte_ether_addr *src,
	 uint32_t seq)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(test_pool);

	assert_non_null(m);
	assert_true(len + 64 <= rte_pktmbuf_tailroom(m));
	eth_fill(rte_pktmbuf_mtod(m, uint8_t *), len, dst, src, seq);
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	return m;
}

/* From B: a VNIC packet carrying @len bytes of frame @seq on vesw @vesw. */
static inline void
peer_send(struct vtopo *t, uint16_t vesw, uint32_t len, const struct rte_ether_addr *dst,
	  uint32_t seq)
{
	struct rte_ether_addr src = { { 0x02, 0, 0, 0, 0, 0xBB } };
	struct opa16b_vnic_fields f = {
		.slid = B_LID, .dlid = A_LID, .pkey = 0x8001, .entropy = (uint16_t)seq,
		.vesw_id = vesw,
	};
	struct rte_mbuf *m = eth_mbuf(len, dst, &src, seq);

	assert_int_equal(opa16b_vnic_encap(m, &f), 0);
	send_all(t->b.port, 0, &m, 1);
}

/* Is @m the frame eth_fill(len, dst, src 02::BB, seq) makes? */
static inline bool
frame_is(const struct rte_mbuf *m, uint32_t len, const struct rte_ether_addr *dst,
	 uint32_t seq)
{
	struct rte_ether_addr src = { { 0x02, 0, 0, 0, 0, 0xBB } };
	static uint8_t want[16384], buf[16384];
	const void *p;

	if (m->pkt_len != len)
		return false;
	eth_fill(want, len, dst, &src, seq);
	p = rte_pktmbuf_read(m, 0, len, buf);
	return p != NULL && memcmp(p, want, len) == 0;
}

/* Receive on a VNIC port, polling up to @ms milliseconds. */
static inline uint16_t
vnic_recv(uint16_t port, uint16_t q, struct rte_mbuf **pkts, uint16_t want, unsigned int ms)
{
	uint64_t end = rte_get_timer_cycles() + rte_get_timer_hz() * ms / 1000;
	uint16_t got = 0;

	while (got < want && rte_get_timer_cycles() < end)
		got += rte_eth_rx_burst(port, q, pkts + got, want - got);
	return got;
}

/* Receive 16B packets on B (skipping FM packets), up to @ms milliseconds. */
static inline uint16_t
peer_recv(struct vtopo *t, struct rte_mbuf **pkts, uint16_t want, unsigned int ms)
{
	uint64_t end = rte_get_timer_cycles() + rte_get_timer_hz() * ms / 1000;
	uint16_t got = 0;

	while (got < want && rte_get_timer_cycles() < end) {
		struct rte_mbuf *m;
		uint8_t hdr[OPA16B_VNIC_HDR_LEN];
		const uint8_t *h;

		if (rte_eth_rx_burst(t->b.port, 0, &m, 1) == 0)
			continue;
		h = rte_pktmbuf_read(m, 0, sizeof(hdr), hdr);
		if (h != NULL && opa16b_get_l4(h) == OPA16B_L4_FM) {
			rte_pktmbuf_free(m);
			continue;
		}
		pkts[got++] = m;
	}
	return got;
}

#endif /* _OPA_VNIC_TEST_UTIL_H_ */
