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
#include <rte_eth_ring.h>
#include <rte_ring.h>

#include "hfi1_test_util.h"
#include "opa16b_fm.h"
#include "opa16b_lmac.h"
#include "opa16b_vnic.h"
#include "vema_agent.h"
#include "vema_mad.h"
#include "test_wait.h"
#include "vnic.h"

#define A_LID 1
#define B_LID 2
#define VNIC_NAME "net_opa_vnic_t0"
#define EM_SRC_QPN 0x77
/*
 * How long to wait for something that must happen (a reply, a link, a
 * frame). Generous: on a loaded machine (busy-polling neighbours on the
 * same CPUs) it may take seconds; a passing test never waits this long.
 */
#define VT_WAIT_MS 10000

struct vtopo {
	struct node a, b;		/* fabric ports: A (owned by the VNIC), B (raw) */
	uint16_t vp[16];		/* VNIC ports */
	unsigned int nb_vports;
	unsigned int nq;		/* queues per VNIC port */
	uint64_t tid;
	unsigned int em_ms;		/* em_call() reply timeout (0: VT_WAIT_MS) */
	uint32_t lid;			/* the agent's LID: A_LID, or lid= (generic) */
	/* Generic fabric (gtopo_create()): a net_ring pair instead of A and B. */
	bool generic;
	uint16_t fab;			/* the VNIC's fabric port */
	uint16_t em;			/* the test's end: EM and remote node */
	uint16_t em_txq;		/* EM queue requests and frames are sent on */
	unsigned int nb_em_rxq;
	struct rte_ring *ring[2][16];	/* [0]: EM -> VNIC, [1]: VNIC -> EM */
	unsigned int nb_ring[2];
};

/* Options of vtopo_create_opts(); zero means the default. */
struct vtopo_opts {
	const char *vnic_extra;		/* more net_opa_vnic devargs */
	const char *a_extra;		/* more net_hfi1 devargs of node A */
	uint16_t rxd, txd;		/* VNIC queue sizes (256) */
	bool lsc;			/* intr_conf.lsc = 1 on the VNIC ports */
	unsigned int dev_queues;	/* queues= devarg when not the queues configured */
};

static inline int
vnic_port_by_index(unsigned int i, uint16_t *port)
{
	char name[64];

	snprintf(name, sizeof(name), "%s_vp%u", VNIC_NAME, i);
	return rte_eth_dev_get_port_by_name(name, port);
}

/* Configure the VNIC ports of @t: @nq queues of @o's sizes, not started. */
static inline void
vtopo_configure_ports(struct vtopo *t, unsigned int nb_vports, unsigned int nq,
		      const struct vtopo_opts *o)
{
	uint16_t rxd = o->rxd != 0 ? o->rxd : 256, txd = o->txd != 0 ? o->txd : 256;
	unsigned int i, q;

	t->nb_vports = nb_vports;
	t->nq = nq;
	for (i = 0; i < nb_vports; i++) {
		struct rte_eth_conf conf = { .txmode.offloads = RTE_ETH_TX_OFFLOAD_MULTI_SEGS };

		conf.intr_conf.lsc = o->lsc;
		assert_int_equal(vnic_port_by_index(i, &t->vp[i]), 0);
		assert_int_equal(rte_eth_dev_configure(t->vp[i], nq, nq, &conf), 0);
		for (q = 0; q < nq; q++) {
			assert_int_equal(rte_eth_rx_queue_setup(t->vp[i], q, rxd, SOCKET_ID_ANY,
								NULL, test_pool), 0);
			assert_int_equal(rte_eth_tx_queue_setup(t->vp[i], q, txd, SOCKET_ID_ANY,
								NULL), 0);
		}
	}
}

/* Create the topology with options; VNIC ports configured, not started. */
static inline void
vtopo_create_opts(struct vtopo *t, unsigned int nb_vports, unsigned int nq,
		  const struct vtopo_opts *o)
{
	const char *extra = o->vnic_extra != NULL ? o->vnic_extra : "";
	char args[256];

	memset(t, 0, sizeof(*t));
	t->tid = 0x100;
	t->lid = A_LID;
	node_create(&t->a, 0, "ring:vw", o->a_extra != NULL ? o->a_extra : "");
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
		 o->dev_queues != 0 ? o->dev_queues : nq, extra[0] ? "," : "", extra);
	assert_int_equal(rte_vdev_init(VNIC_NAME, args), 0);
	vtopo_configure_ports(t, nb_vports, nq, o);
}

/* Create the topology; VNIC ports configured with @nq queues, not started. */
static inline void
vtopo_create(struct vtopo *t, unsigned int nb_vports, unsigned int nq, const char *extra)
{
	struct vtopo_opts o = { .vnic_extra = extra };

	vtopo_create_opts(t, nb_vports, nq, &o);
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

/* ---- generic fabric: a net_ring pair, the test at the other end ---- */

#define GEN_LID 5
#define GEN_FAB "vnicfab"		/* port net_ring_vnicfab: the VNIC's fabric */
#define GEN_EM "vnicem"			/* port net_ring_vnicem: the test's end */
#define GEN_RING_SIZE 1024

static inline struct rte_ring *
gen_ring(unsigned int dir, unsigned int i, bool create)
{
	char name[RTE_RING_NAMESIZE];

	snprintf(name, sizeof(name), "gr%u_%u", dir, i);
	return create ? rte_ring_create(name, GEN_RING_SIZE, SOCKET_ID_ANY, 0) :
		rte_ring_lookup(name);
}

/* Free a ring of the pair and the mbufs left in it. */
static inline void
gen_ring_free(struct rte_ring *r)
{
	struct rte_mbuf *m;

	if (r == NULL)
		return;
	while (rte_ring_dequeue(r, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	rte_ring_free(r);
}

/*
 * A generic fabric: net_ring port GEN_FAB with @nrx RX rings (what the test
 * sends) and @ntx TX rings (what the VNIC sends), the test's port GEN_EM on
 * the other ends; net_opa_vnic on GEN_FAB with lid=GEN_LID and @extra. The
 * test plays the EM and the remote node. VNIC ports configured, not started.
 */
static inline void
gtopo_create(struct vtopo *t, unsigned int nb_vports, unsigned int nq, unsigned int nrx,
	     unsigned int ntx, const char *extra)
{
	struct rte_eth_conf conf = { .txmode.offloads = RTE_ETH_TX_OFFLOAD_MULTI_SEGS };
	struct vtopo_opts o = { 0 };
	char args[256];
	unsigned int i;
	int p;

	memset(t, 0, sizeof(*t));
	t->tid = 0x100;
	t->lid = GEN_LID;
	t->generic = true;
	t->nb_ring[0] = nrx;
	t->nb_ring[1] = ntx;
	for (i = 0; i < nrx; i++)
		assert_non_null(t->ring[0][i] = gen_ring(0, i, true));
	for (i = 0; i < ntx; i++)
		assert_non_null(t->ring[1][i] = gen_ring(1, i, true));
	p = rte_eth_from_rings(GEN_FAB, t->ring[0], nrx, t->ring[1], ntx, SOCKET_ID_ANY);
	assert_true(p >= 0);
	t->fab = (uint16_t)p;
	p = rte_eth_from_rings(GEN_EM, t->ring[1], ntx, t->ring[0], nrx, SOCKET_ID_ANY);
	assert_true(p >= 0);
	t->em = (uint16_t)p;
	t->nb_em_rxq = ntx;
	assert_int_equal(rte_eth_dev_configure(t->em, ntx, nrx, &conf), 0);
	for (i = 0; i < ntx; i++)
		assert_int_equal(rte_eth_rx_queue_setup(t->em, i, 256, SOCKET_ID_ANY, NULL,
							test_pool), 0);
	for (i = 0; i < nrx; i++)
		assert_int_equal(rte_eth_tx_queue_setup(t->em, i, 256, SOCKET_ID_ANY, NULL), 0);
	assert_int_equal(rte_eth_dev_start(t->em), 0);
	snprintf(args, sizeof(args), "fabric=net_ring_%s,vports=%u,queues=%u,lid=%u%s%s",
		 GEN_FAB, nb_vports, nq, GEN_LID, extra[0] ? "," : "", extra);
	assert_int_equal(rte_vdev_init(VNIC_NAME, args), 0);
	vtopo_configure_ports(t, nb_vports, nq, &o);
}

static inline void
gtopo_destroy(struct vtopo *t)
{
	unsigned int i, d;

	for (i = 0; i < t->nb_vports; i++)
		rte_eth_dev_stop(t->vp[i]);
	assert_int_equal(rte_vdev_uninit(VNIC_NAME), 0);
	rte_eth_dev_stop(t->em);
	assert_int_equal(rte_vdev_uninit("net_ring_" GEN_EM), 0);
	/* net_opa_vnic closed the fabric port; its vdev goes without a port */
	rte_vdev_uninit("net_ring_" GEN_FAB);
	for (d = 0; d < 2; d++)
		for (i = 0; i < t->nb_ring[d]; i++)
			gen_ring_free(t->ring[d][i]);
}

static inline int
gtopo_cleanup(void **state)
{
	unsigned int i, d;

	(void)state;
	rte_vdev_uninit(VNIC_NAME);
	rte_vdev_uninit("net_ring_" GEN_EM);
	rte_vdev_uninit("net_ring_" GEN_FAB);
	for (d = 0; d < 2; d++)
		for (i = 0; i < 16; i++)
			gen_ring_free(gen_ring(d, i, false));
	return 0;
}

#define gen_test(f) cmocka_unit_test_teardown(f, gtopo_cleanup)

/* A generic fabric delivers FM packets of its data queues to the agent only
 * when a VNIC queue polls them: poll every VNIC queue, dropping frames. */
static inline void
gen_pump(struct vtopo *t)
{
	struct rte_mbuf *r[32];
	unsigned int i, q;
	uint16_t n;

	for (i = 0; i < t->nb_vports; i++)
		for (q = 0; q < t->nq; q++) {
			n = rte_eth_rx_burst(t->vp[i], q, r, RTE_DIM(r));
			rte_pktmbuf_free_bulk(r, n);
		}
}

/* Send on the remote side (B, or the generic fabric's far end). */
static inline void
peer_tx(struct vtopo *t, struct rte_mbuf **pkts, uint16_t n)
{
	if (t->generic)
		send_all(t->em, t->em_txq, pkts, n);
	else
		send_all(t->b.port, 0, pkts, n);
}

/* Receive on the remote side, every queue (no waiting). */
static inline uint16_t
peer_rx(struct vtopo *t, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t got = 0;
	unsigned int q;

	if (!t->generic)
		return rte_eth_rx_burst(t->b.port, 0, pkts, n);
	for (q = 0; q < t->nb_em_rxq && got < n; q++)
		got += rte_eth_rx_burst(t->em, q, pkts + got, n - got);
	return got;
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

/* The state of both ends' management (diagnosis of a failed test). */
static inline void
em_call_dump(struct vtopo *t)
{
	unsigned int i;

	xstats_dump("vport 0", t->vp[0]);
	if (t->generic)
		return;
	xstats_dump("A", t->a.port);
	xstats_dump("B", t->b.port);
	for (i = 0; i < 2; i++) {
		struct hfi1_model_stats s = node_model_stats(i == 0 ? &t->a : &t->b);

		fprintf(stderr, "model %c: sdma %" PRIu64 " halts %" PRIu64 " wire tx %" PRIu64
			" rx %" PRIu64 " busy %" PRIu64 " rcv %" PRIu64 " rhq_full %" PRIu64
			" egr_full %" PRIu64 " ctxt_off %" PRIu64 " dma_err %" PRIu64 "\n",
			i == 0 ? 'A' : 'B', s.sdma_pkts, s.sdma_halts, s.wire_tx, s.wire_rx,
			s.wire_busy, s.rcv_pkts, s.rcv_rhq_full, s.rcv_egr_full,
			s.rcv_ctxt_disabled, s.rcv_dma_error);
	}
}

/*
 * Take what came back on the remote side until the reply to @tid (a GET_RESP)
 * is found or nothing is left: one turn of em_call()'s wait. True when found;
 * its status goes to @status, its data to @reply_data.
 */
static inline bool
em_reply_take(struct vtopo *t, uint64_t tid, int *status, uint8_t *reply_data)
{
	uint8_t pkt[VEMA_PKT_MAX];
	struct rte_mbuf *r;

	if (t->generic)
		gen_pump(t);
	while (peer_rx(t, &r, 1) != 0) {
		struct opa16b_fm_info info;
		struct vema_hdr h;
		const uint8_t *p;

		p = rte_pktmbuf_read(r, 0, r->pkt_len, pkt);
		if (p != NULL && r->pkt_len <= sizeof(pkt) &&
		    opa16b_fm_parse(p, r->pkt_len, &info) == OPA16B_FM_OK) {
			vema_hdr_decode(info.mad, &h);
			if (h.mad.tid == tid && h.mad.method == VEMA_METHOD_GET_RESP) {
				if (reply_data != NULL)
					memcpy(reply_data, info.mad + VEMA_HDR_LEN, VEMA_DATA_LEN);
				rte_pktmbuf_free(r);
				*status = h.mad.status;
				return true;
			}
		}
		rte_pktmbuf_free(r);	/* VNIC traffic or a trap: not ours */
	}
	return false;
}

/*
 * One EM request from B (or the generic fabric's far end) to the agent;
 * returns the reply status (or -1 when no reply came within t->em_ms).
 * @data is the attribute payload; the reply's data goes to @reply_data.
 */
static inline int
em_call(struct vtopo *t, uint8_t method, uint16_t attr, uint32_t mod, const void *data,
	size_t len, uint8_t *reply_data)
{
	uint8_t mad[VEMA_MAD_SIZE], pkt[VEMA_PKT_MAX];
	struct opa16b_fm_fields f = {
		.slid = B_LID, .dlid = t->lid, .pkey = 0xFFFF, .sc = 0,
		.dest_qpn = OPA16B_QPN_GSI, .src_qpn = EM_SRC_QPN,
	};
	struct vema_hdr h;
	struct rte_mbuf *m;
	uint64_t tid = t->tid++;
	unsigned int ms = t->em_ms != 0 ? t->em_ms : VT_WAIT_MS;
	int n, status = -1;

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
	peer_tx(t, &m, 1);
	if (test_wait_until(em_reply_take(t, tid, &status, reply_data), ms))
		return status;
	/* no reply: what the device saw (diagnosis of a failed test) */
	fprintf(stderr, "em_call: no reply to attr 0x%04x tid %" PRIu64 " in %u ms\n", attr,
		tid, ms);
	em_call_dump(t);
	return -1;
}

/* The vport configuration the tests use: vesw @vesw, MTU @mtu, @state. */
static inline void
em_cfg_lid(struct vnic_vesw_info *v, struct vnic_port_info *p, uint16_t vesw, uint8_t idx,
	   uint16_t mtu, uint8_t state, uint32_t lid)
{
	struct opa16b_lmac l = { .fabric_id = 0x12, .vesw_id = vesw, .lid = lid };

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
	p->encap_slid = lid;
}

static inline void
em_cfg(struct vnic_vesw_info *v, struct vnic_port_info *p, uint16_t vesw, uint8_t idx,
       uint16_t mtu, uint8_t state)
{
	em_cfg_lid(v, p, vesw, idx, mtu, state, A_LID);
}

/* SET VESWPORT_INFO for vport @idx with @v and @p; returns the status. */
static inline int
em_set_cfg(struct vtopo *t, uint8_t idx, const struct vnic_vesw_info *v,
	   const struct vnic_port_info *p)
{
	uint8_t d[VEMA_VESWPORT_INFO_LEN];

	vema_veswport_info_encode(d, v, p);
	return em_call(t, VEMA_METHOD_SET, VEMA_ATTR_VESWPORT_INFO, idx, d, sizeof(d), NULL);
}

/* SET VESWPORT_INFO for vport @idx; asserts success. */
static inline void
em_set_vport(struct vtopo *t, uint8_t idx, uint16_t vesw, uint16_t mtu, uint8_t state)
{
	struct vnic_vesw_info v;
	struct vnic_port_info p;

	em_cfg_lid(&v, &p, vesw, idx, mtu, state, t->lid);
	if (em_set_cfg(t, idx, &v, &p) != 0) {
		if (!t->generic) {
			xstats_dump("A", t->a.port);
			xstats_dump("B", t->b.port);
		}
		xstats_dump("vport 0", t->vp[0]);
		fail_msg("SET VESWPORT_INFO %u: no OK reply", idx);
	}
}

/* GET VESWPORT_INFO of vport @idx; asserts success. */
static inline void
em_get_vport(struct vtopo *t, uint8_t idx, struct vnic_vesw_info *v, struct vnic_port_info *p)
{
	uint8_t d[VEMA_DATA_LEN];

	assert_int_equal(em_call(t, VEMA_METHOD_GET, VEMA_ATTR_VESWPORT_INFO, idx, NULL, 0, d),
			 VEMA_STATUS_OK);
	vema_veswport_info_decode(d, v, p);
}

/* SET VESWPORT_MAC_ENTRIES [@offset, @offset + @n) of vport @idx; returns the status. */
static inline int
em_set_macs(struct vtopo *t, uint8_t idx, uint16_t offset, const struct vnic_mac_entry *e,
	    uint16_t n, uint32_t digest)
{
	struct vema_mac_tbl_hdr h = { .offset = offset, .num_entries = n, .digest = digest };
	uint8_t d[VEMA_MAC_TBL_HDR_LEN + VEMA_MAC_ENTRIES_MAX * VEMA_MAC_ENTRY_LEN];
	unsigned int i;

	assert_true(n <= VEMA_MAC_ENTRIES_MAX);
	vema_mac_tbl_hdr_encode(d, &h);
	for (i = 0; i < n; i++)
		vema_mac_entry_encode(d + VEMA_MAC_TBL_HDR_LEN + VEMA_MAC_ENTRY_LEN * i, &e[i]);
	return em_call(t, VEMA_METHOD_SET, VEMA_ATTR_MAC_ENTRIES, idx, d,
		       VEMA_MAC_TBL_HDR_LEN + (size_t)VEMA_MAC_ENTRY_LEN * n, NULL);
}

/* One MAC table entry: @mac to @dlid. */
static inline void
em_mac_entry(struct vnic_mac_entry *e, const struct rte_ether_addr *mac, uint32_t dlid)
{
	memset(e, 0, sizeof(*e));
	e->mac = *mac;
	memset(&e->mask, 0xFF, sizeof(e->mask));
	e->dlid_sd = dlid << VNIC_DLID_SD_SHIFT;
}

/* The EM's view of vport @idx's counters (GET summary and error counters). */
static inline void
em_counters(struct vtopo *t, uint8_t idx, struct vnic_counters *c)
{
	struct vema_counters_hdr h;
	struct vnic_counters e;
	uint8_t d[VEMA_DATA_LEN];

	memset(c, 0, sizeof(*c));
	memset(&e, 0, sizeof(e));
	assert_int_equal(em_call(t, VEMA_METHOD_GET, VEMA_ATTR_SUMMARY_COUNTERS, idx, NULL, 0, d),
			 VEMA_STATUS_OK);
	vema_summary_decode(d, &h, c);
	assert_int_equal(h.vp_instance, idx);
	assert_int_equal(em_call(t, VEMA_METHOD_GET, VEMA_ATTR_ERROR_COUNTERS, idx, NULL, 0, d),
			 VEMA_STATUS_OK);
	vema_errors_decode(d, &h, &e);
	assert_int_equal(h.vp_instance, idx);
	/* both carry tx_errors and rx_errors: they must agree */
	assert_int_equal(e.tx_errors, c->tx_errors);
	assert_int_equal(e.rx_errors, c->rx_errors);
	c->tx_smac_filt = e.tx_smac_filt;
	c->tx_dlid_zero = e.tx_dlid_zero;
	c->tx_logic = e.tx_logic;
	c->tx_drop_state = e.tx_drop_state;
	c->rx_bad_veswid = e.rx_bad_veswid;
	c->rx_runt = e.rx_runt;
	c->rx_oversize = e.rx_oversize;
	c->rx_eth_down = e.rx_eth_down;
	c->rx_drop_state = e.rx_drop_state;
	c->rx_logic = e.rx_logic;
}

/* SET ClassPortInfo with trap LID @trap_lid (trap SL 0); asserts success. */
static inline void
em_set_trap_lid(struct vtopo *t, uint32_t trap_lid)
{
	struct vema_class_port_info c;
	uint8_t d[VEMA_CPI_LEN];

	memset(&c, 0, sizeof(c));
	c.trap_lid = trap_lid;
	vema_cpi_encode(d, &c);
	assert_int_equal(em_call(t, VEMA_METHOD_SET, VEMA_ATTR_CLASS_PORT_INFO, 0, d, sizeof(d),
				 NULL), VEMA_STATUS_OK);
}

/* Is a port's link @up? */
static inline bool
link_is(uint16_t port, bool up)
{
	struct rte_eth_link l;

	assert_int_equal(rte_eth_link_get_nowait(port, &l), 0);
	return (bool)l.link_status == up;
}

/* Wait (up to VT_WAIT_MS) for a port's link to be @up; says on stderr when it was not. */
static inline bool
link_wait(uint16_t port, bool up)
{
	if (test_wait_until(link_is(port, up), VT_WAIT_MS))
		return true;
	fprintf(stderr, "link_wait: port %u link not %s in %u ms\n", port, up ? "up" : "down",
		VT_WAIT_MS);
	return false;
}

/* LSC events seen per port (lsc_count_cb). */
static inline uint32_t *
lsc_counter(uint16_t port)
{
	static uint32_t n[RTE_MAX_ETHPORTS];

	return &n[port];
}

/* An LSC callback that counts, and records the link it reads then. */
static inline int
lsc_count_cb(uint16_t port, enum rte_eth_event_type type, void *arg, void *ret)
{
	struct rte_eth_link l;
	int *link = arg;

	(void)ret;
	if (type != RTE_ETH_EVENT_INTR_LSC)
		return 0;
	if (link != NULL && rte_eth_link_get_nowait(port, &l) == 0)
		__atomic_store_n(link, l.link_status, __ATOMIC_RELEASE);
	__atomic_fetch_add(lsc_counter(port), 1, __ATOMIC_RELEASE);
	return 0;
}

/* Wait (up to VT_WAIT_MS) for the LSC event count of @port to reach @n; says on stderr
 * when it did not. */
static inline bool
lsc_wait(uint16_t port, uint32_t n)
{
	if (test_wait_until(__atomic_load_n(lsc_counter(port), __ATOMIC_ACQUIRE) >= n,
			    VT_WAIT_MS))
		return true;
	fprintf(stderr, "lsc_wait: port %u saw %u LSC events of %u in %u ms\n", port,
		__atomic_load_n(lsc_counter(port), __ATOMIC_ACQUIRE), n, VT_WAIT_MS);
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

/* The frame eth_fill() makes, as a chain of @pool segments of @seg bytes. */
static inline struct rte_mbuf *
eth_chain(struct rte_mempool *pool, uint32_t seg, uint32_t len,
	  const struct rte_ether_addr *dst, const struct rte_ether_addr *src, uint32_t seq)
{
	static uint8_t buf[16384];

	eth_fill(buf, len, dst, src, seq);
	return chain_of(pool, buf, len, seg);
}

/* The source MAC of the remote node's frames. */
static inline const struct rte_ether_addr *
peer_mac(void)
{
	static const struct rte_ether_addr mac = { { 0x02, 0, 0, 0, 0, 0xBB } };

	return &mac;
}

/* From the remote side: a VNIC packet with frame @seq (@len bytes) on vesw @vesw,
 * entropy @entropy, as a chain of @pool segments of at most @seg bytes. */
static inline void
peer_send_ex(struct vtopo *t, uint16_t vesw, uint32_t len, const struct rte_ether_addr *dst,
	     uint32_t seq, uint16_t entropy, struct rte_mempool *pool, uint32_t seg)
{
	static uint8_t frame[16384], pkt[16400];
	struct opa16b_vnic_fields f = {
		.slid = B_LID, .dlid = t->lid, .pkey = 0x8001, .entropy = entropy,
		.vesw_id = vesw,
	};
	struct rte_mbuf *m;
	int n;

	eth_fill(frame, len, dst, peer_mac(), seq);
	n = opa16b_vnic_encap_buf(pkt, sizeof(pkt), frame, len, &f);
	assert_true(n > 0);
	m = chain_of(pool, pkt, (uint32_t)n, seg);
	peer_tx(t, &m, 1);
}

/* From B: a VNIC packet carrying @len bytes of frame @seq on vesw @vesw. */
static inline void
peer_send(struct vtopo *t, uint16_t vesw, uint32_t len, const struct rte_ether_addr *dst,
	  uint32_t seq)
{
	peer_send_ex(t, vesw, len, dst, seq, (uint16_t)(seq & 0xFF), test_pool, 16384);
}

/* Is @m the frame eth_fill(len, dst, @src, seq) makes? */
static inline bool
frame_is_from(const struct rte_mbuf *m, uint32_t len, const struct rte_ether_addr *dst,
	      const struct rte_ether_addr *src, uint32_t seq)
{
	static uint8_t want[16384], buf[16384];
	const void *p;

	if (m->pkt_len != len || len > sizeof(buf))
		return false;
	eth_fill(want, len, dst, src, seq);
	p = rte_pktmbuf_read(m, 0, len, buf);
	return p != NULL && memcmp(p, want, len) == 0;
}

/* Is @m the frame eth_fill(len, dst, src 02::BB, seq) makes? */
static inline bool
frame_is(const struct rte_mbuf *m, uint32_t len, const struct rte_ether_addr *dst,
	 uint32_t seq)
{
	return frame_is_from(m, len, dst, peer_mac(), seq);
}

/* Receive on a VNIC port, polling up to @ms milliseconds. */
static inline uint16_t
vnic_recv(uint16_t port, uint16_t q, struct rte_mbuf **pkts, uint16_t want, unsigned int ms)
{
	uint16_t got = 0;

	(void)test_wait_until((got += rte_eth_rx_burst(port, q, pkts + got, want - got)) >= want,
			      ms);
	return got;
}

/* Read a VNIC queue until a burst brings nothing (frames already handed
 * over, nothing more coming); returns how many, at most @cap. */
static inline uint16_t
vnic_drain(uint16_t port, uint16_t q, struct rte_mbuf **pkts, uint16_t cap)
{
	uint16_t got = 0, n;

	do {
		n = rte_eth_rx_burst(port, q, pkts + got, RTE_MIN(64, cap - got));
		got += n;
	} while (n != 0 && got < cap);
	return got;
}

/* Poll a VNIC queue for @ms milliseconds: nothing may arrive. */
static inline void
vnic_recv_none(uint16_t port, uint16_t q, unsigned int ms)
{
	struct rte_mbuf *r[32];
	uint16_t n = vnic_recv(port, q, r, RTE_DIM(r), ms);

	rte_pktmbuf_free_bulk(r, n);
	assert_int_equal(n, 0);
}

/* One burst from a VNIC queue: nothing may arrive. True (for a wait's condition). */
static inline bool
vnic_rx_nothing(uint16_t port, uint16_t q)
{
	struct rte_mbuf *r[32];
	uint16_t n = rte_eth_rx_burst(port, q, r, RTE_DIM(r));

	rte_pktmbuf_free_bulk(r, n);
	assert_int_equal(n, 0);
	return true;
}

/* A device-wide xstat's id (the same on every port of the device). */
static inline uint64_t
xstat_id(uint16_t port, const char *name)
{
	uint64_t id;

	assert_int_equal(rte_eth_xstats_get_id_by_name(port, name, &id), 0);
	return id;
}

static inline uint64_t
xstat_by_id(uint16_t port, uint64_t id)
{
	uint64_t v;

	assert_int_equal(rte_eth_xstats_get_by_id(port, &id, &v, 1), 1);
	return v;
}

/* A burst from (@port, @q) kept in @pkts at *@got (asserting it fits in @cap);
 * returns its size. */
static inline uint16_t
vnic_rx_keep(uint16_t port, uint16_t q, struct rte_mbuf **pkts, uint16_t cap, uint16_t *got)
{
	struct rte_mbuf *r[64];
	uint16_t n = rte_eth_rx_burst(port, q, r, RTE_DIM(r));

	assert_true(*got + n <= cap);
	memcpy(pkts + *got, r, n * sizeof(r[0]));
	*got += n;
	return n;
}

/*
 * Drive the dispatcher: poll VNIC queue (@port, @q) until the device has
 * taken @until fabric packets in all (xstat fabric_rx_packets) or @ms
 * milliseconds passed, keeping what the queue returns in @pkts (up to
 * @cap; asserts it does not overflow). Returns the frames kept.
 */
static inline uint16_t
vnic_poll_fabric(uint16_t port, uint16_t q, uint64_t until, struct rte_mbuf **pkts,
		 uint16_t cap, unsigned int ms)
{
	uint64_t id = xstat_id(port, "fabric_rx_packets");
	uint16_t got = 0;

	if (!test_wait_until(vnic_rx_keep(port, q, pkts, cap, &got) == 0 &&
			     xstat_by_id(port, id) >= until, ms))
		/* at the deadline, still keep what is queued */
		while (vnic_rx_keep(port, q, pkts, cap, &got) != 0)
			;
	return got;
}

/* Frames received per VNIC queue: bin [vport * nq + queue]. */
#define RXBIN_MAX 1024
struct rxbins {
	struct rte_mbuf *m[16][RXBIN_MAX];
	uint16_t n[16];
};

/*
 * Poll every queue of every VNIC port, round robin, until the device has
 * taken @until fabric packets and then 20 ms brought nothing more (or
 * @ms passed). Frames are kept in @b by the queue that returned them.
 */
static inline void
vtopo_poll_all(struct vtopo *t, uint64_t until, struct rxbins *b, unsigned int ms)
{
	uint64_t id = xstat_id(t->vp[0], "fabric_rx_packets");
	uint64_t hz = rte_get_timer_hz(), now = rte_get_timer_cycles();
	uint64_t end = now + hz * ms / 1000, quiet = 0;
	unsigned int i, q;

	for (;;) {
		uint16_t moved = 0;

		for (i = 0; i < t->nb_vports; i++)
			for (q = 0; q < t->nq; q++) {
				unsigned int k = i * t->nq + q;
				uint16_t n = rte_eth_rx_burst(t->vp[i], q, b->m[k] + b->n[k],
							      RTE_MIN(64, RXBIN_MAX - b->n[k]));

				b->n[k] += n;
				moved += n;
				assert_true(b->n[k] < RXBIN_MAX);
			}
		now = rte_get_timer_cycles();
		if (moved != 0 || xstat_by_id(t->vp[0], id) < until)
			quiet = now + hz / 50;
		if (now >= quiet || now >= end)
			break;
	}
}

static inline void
rxbins_free(struct rxbins *b)
{
	unsigned int k;

	for (k = 0; k < RTE_DIM(b->n); k++) {
		rte_pktmbuf_free_bulk(b->m[k], b->n[k]);
		b->n[k] = 0;
	}
}

/* One turn of peer_recv(): take up to @want - *@got 16B packets (FM packets are
 * dropped) into @pkts at *@got; true when @want came. */
static inline bool
peer_recv_turn(struct vtopo *t, struct rte_mbuf **pkts, uint16_t want, uint16_t *got)
{
	struct rte_mbuf *r[64];
	uint16_t n, i;

	/* no more than wanted: the rest stays queued for the next call */
	n = peer_rx(t, r, RTE_MIN((uint16_t)RTE_DIM(r), (uint16_t)(want - *got)));
	for (i = 0; i < n; i++) {
		uint8_t hdr[OPA16B_VNIC_HDR_LEN];
		const uint8_t *h = rte_pktmbuf_read(r[i], 0, sizeof(hdr), hdr);

		if (h != NULL && opa16b_get_l4(h) == OPA16B_L4_FM)
			rte_pktmbuf_free(r[i]);
		else
			pkts[(*got)++] = r[i];
	}
	return *got >= want;
}

/* Receive 16B packets on the remote side (skipping FM packets), up to @ms milliseconds. */
static inline uint16_t
peer_recv(struct vtopo *t, struct rte_mbuf **pkts, uint16_t want, unsigned int ms)
{
	uint16_t got = 0;

	(void)test_wait_until(peer_recv_turn(t, pkts, want, &got), ms);
	return got;
}

/* Receive nothing but FM packets on the remote side for @ms milliseconds. */
static inline void
peer_recv_none(struct vtopo *t, unsigned int ms)
{
	struct rte_mbuf *r[4];
	uint16_t n = peer_recv(t, r, RTE_DIM(r), ms);

	rte_pktmbuf_free_bulk(r, n);
	assert_int_equal(n, 0);
}

/* One turn of peer_recv_trap(): read the remote side until the trap is found
 * (true) or nothing is left; other packets are dropped. */
static inline bool
peer_take_trap(struct vtopo *t, uint8_t opcode, uint8_t idx, struct vema_trap *tr,
	       struct vema_hdr *h, struct opa16b_fm_info *fi)
{
	static uint8_t buf[VEMA_PKT_MAX];
	struct rte_mbuf *r;

	while (peer_rx(t, &r, 1) != 0) {
		const uint8_t *p;
		bool found = false;

		p = r->pkt_len <= sizeof(buf) ? rte_pktmbuf_read(r, 0, r->pkt_len, buf) : NULL;
		if (p != NULL && opa16b_fm_parse(p, r->pkt_len, fi) == OPA16B_FM_OK &&
		    fi->mad_len >= VEMA_HDR_LEN + VEMA_NOTICE_LEN) {
			vema_hdr_decode(fi->mad, h);
			found = h->mad.method == VEMA_METHOD_TRAP &&
				h->mad.attr_id == VEMA_ATTR_NOTICE &&
				vema_notice_decode(fi->mad + VEMA_HDR_LEN, tr) == 0 &&
				tr->opcode == opcode && tr->vport_index == idx;
		}
		rte_pktmbuf_free(r);
		if (found)
			return true;
	}
	return false;
}

/*
 * Wait (up to @ms) for a trap with opcode @opcode from vport @idx on the
 * remote side; other packets are dropped. Returns true and fills @tr and
 * @h (its MAD header) when one came.
 */
static inline bool
peer_recv_trap(struct vtopo *t, uint8_t opcode, uint8_t idx, struct vema_trap *tr,
	       struct vema_hdr *h, struct opa16b_fm_info *fi, unsigned int ms)
{
	return test_wait_until(peer_take_trap(t, opcode, idx, tr, h, fi), ms);
}

/* The device's own mbuf pool (frames received from net_hfi1 come from it). */
static inline struct rte_mempool *
vnic_dev_pool(uint16_t fabric_port)
{
	char name[RTE_MEMPOOL_NAMESIZE];

	snprintf(name, sizeof(name), "ovp_%u_%u", fabric_port, (unsigned int)getpid());
	return rte_mempool_lookup(name);
}

/* Start the VNIC ports and put them on vesws 10, 20, 30... FORWARDING, MTU @mtu. */
static inline void
vtopo_forward_all(struct vtopo *t, uint16_t mtu)
{
	unsigned int i;

	vtopo_start(t);
	for (i = 0; i < t->nb_vports; i++)
		em_set_vport(t, (uint8_t)i, (uint16_t)(10 * (i + 1)), mtu, VNIC_STATE_FORWARDING);
	for (i = 0; i < t->nb_vports; i++)
		assert_true(link_wait(t->vp[i], true));
}

/* The MAC of a VNIC port. */
static inline struct rte_ether_addr
port_mac(uint16_t port)
{
	struct rte_ether_addr mac;

	assert_int_equal(rte_eth_macaddr_get(port, &mac), 0);
	return mac;
}

/* The remote node's LMAC (unicast to it: DLID B_LID by rule 2.1.3). */
static inline struct rte_ether_addr
peer_lmac(uint16_t vesw)
{
	struct opa16b_lmac l = { .fabric_id = 0x12, .vesw_id = vesw, .lid = B_LID };
	struct rte_ether_addr mac;

	opa16b_lmac_build(&l, &mac);
	return mac;
}

/* Send on a VNIC queue until every frame is taken (consumed or dropped). */
static inline void
vnic_send(uint16_t port, uint16_t q, struct rte_mbuf **pkts, uint16_t n)
{
	send_all(port, q, pkts, n);
}

#endif /* _OPA_VNIC_TEST_UTIL_H_ */
