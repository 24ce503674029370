/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _VEMA_TEST_UTIL_H_
#define _VEMA_TEST_UTIL_H_

/*
 * Shared by the lib/vema agent unit tests: addresses, an agent, requests
 * built as FM packets, replies checked (2048-byte GetResp, header copied,
 * zeroed data on error), vport and ClassPortInfo fixtures.
 */

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "opa16b.h"
#include "opa16b_fm.h"
#include "vema_agent.h"
#include "vema_mad.h"
#include "vnic.h"
#include "vnic_stats.h"

#define AGENT_LID 0x0A0B0Cu  /* the agent's port LID (uses all 24 bits) */
#define AGENT_PORT 2         /* OPA port number */
#define MGMT_PKEY 0x7FFFu    /* P_Key of traps */
#define EM_LID 0x000203u     /* the EM's LID */
#define EM_QPN 0x000ABCu     /* the EM's source QP */
#define EM_PKEY 0x8001u      /* P_Key of the EM's requests */
#define TRAP_LID 0x000777u   /* trap LID the EM sets */
#define TRAP_SL 11           /* trap SL the EM sets (trap_sl_rsvd bits 7:3) */
#define REPLY_LEN (VEMA_MAD_SIZE + OPA16B_FM_OVERHEAD)
#define TRAP_PKT_LEN (VEMA_TRAP_MAD_LEN + OPA16B_FM_OVERHEAD)

#include "test_bytes.h"

/* --- agent, requests, replies --- */

static inline struct vema_agent *
agent_new(void)
{
	struct vema_agent_conf conf = {
		.lid = AGENT_LID,
		.port_num = AGENT_PORT,
		.mgmt_pkey = MGMT_PKEY,
	};
	struct vema_agent *a = vema_agent_create(&conf);

	assert_non_null(a);
	return a;
}

/* A request: its MAD and how it is sent. */
struct req {
	uint8_t mad[VEMA_MAD_SIZE];
	size_t mad_len;
	struct opa16b_fm_fields f;
	size_t cap;     /* reply buffer size given to the agent */
	bool bad_l4;    /* send it with L4 != FM */
};

/* A reply, parsed. */
struct reply {
	uint8_t pkt[VEMA_PKT_MAX];
	size_t len;
	struct opa16b_fm_info info;
	struct vema_hdr h;
	const uint8_t *data;
};

static uint64_t next_tid = 0x0102030405060000ull;

/* A well-formed request: 2048-byte MAD to the agent's LID and QP 1. */
static inline void
req_init(struct req *q, uint8_t method, uint16_t attr, uint32_t mod)
{
	struct vema_hdr h;

	memset(q, 0, sizeof(*q));
	vema_hdr_request(&h, method, attr, mod, next_tid++);
	vema_hdr_encode(q->mad, &h);
	q->mad_len = VEMA_MAD_SIZE;
	q->f = (struct opa16b_fm_fields){
		.slid = EM_LID,
		.dlid = AGENT_LID,
		.pkey = EM_PKEY,
		.entropy = 0x1234,
		.sc = 5,
		.rc = 2,
		.dest_qpn = OPA16B_QPN_GSI,
		.src_qpn = EM_QPN,
	};
	q->cap = VEMA_PKT_MAX;
}

static inline uint8_t *
req_data(struct req *q)
{
	return q->mad + VEMA_HDR_LEN;
}

/*
 * Send a request. Returns the reply status, or -1 when dropped. Every reply
 * is checked: 2048-byte MAD in a valid FM packet, GetResp, header copied
 * from the request (apart from method and status), no data on error.
 */
static inline int
req_send(struct vema_agent *a, const struct req *q, struct reply *r)
{
	uint8_t pkt[VEMA_PKT_MAX];
	int n;

	n = opa16b_fm_build(pkt, sizeof(pkt), &q->f, q->mad, q->mad_len);
	assert_true(n > 0);
	if (q->bad_l4)
		opa16b_set_l4(pkt, OPA16B_L4_ETHR);
	memset(r->pkt, 0xA5, sizeof(r->pkt));
	r->len = vema_agent_rx(a, pkt, (size_t)n, r->pkt, q->cap);
	if (r->len == 0)
		return -1;
	assert_int_equal(r->len, REPLY_LEN);
	assert_int_equal(opa16b_fm_parse(r->pkt, r->len, &r->info), OPA16B_FM_OK);
	assert_int_equal(r->info.mad_len, VEMA_MAD_SIZE);
	vema_hdr_decode(r->info.mad, &r->h);
	r->data = r->info.mad + VEMA_HDR_LEN;
	assert_int_equal(r->h.mad.method, VEMA_METHOD_GET_RESP);
	expect_bytes(r->info.mad, 0, q->mad, 3, "reply header bytes 0..2");
	expect_bytes(r->info.mad, 6, q->mad + 6, VEMA_HDR_LEN - 6, "reply header bytes 6..39");
	if (r->h.mad.status != VEMA_STATUS_OK)
		expect_fill(r->data, 0, VEMA_DATA_LEN, 0, "error reply data");
	return r->h.mad.status;
}

/* Send a request with a payload; return the status (or -1). */
static inline int
do_req(struct vema_agent *a, uint8_t method, uint16_t attr, uint32_t mod, const void *payload,
       size_t plen, struct reply *r)
{
	struct req q;

	req_init(&q, method, attr, mod);
	if (plen != 0)
		memcpy(req_data(&q), payload, plen);
	return req_send(a, &q, r);
}

/* The request is dropped for @p why, counted, and nothing else is counted. */
static inline void
expect_drop(struct vema_agent *a, const struct req *q, enum vema_drop why)
{
	const struct vema_agent_stats *st = vema_agent_stats(a);
	uint64_t drops[VEMA_DROP_MAX];
	uint64_t replies = st->replies, rx = st->rx;
	struct reply r;
	unsigned int d;

	memcpy(drops, st->drops, sizeof(drops));
	if (req_send(a, q, &r) != -1)
		fail_msg("expected drop %s, got a reply with status 0x%04x",
			 vema_drop_name(why), r.h.mad.status);
	for (d = 0; d < VEMA_DROP_MAX; d++)
		if (st->drops[d] != drops[d] + (d == (unsigned int)why))
			fail_msg("expected drop %s, counted %s", vema_drop_name(why),
				 vema_drop_name(d));
	assert_int_equal(st->replies, replies);
	assert_int_equal(st->rx, rx + 1);
}

/* The request gets a reply with @p status, counted as such. */
static inline void
expect_status(struct vema_agent *a, const struct req *q, uint16_t status, const char *what)
{
	const struct vema_agent_stats *st = vema_agent_stats(a);
	uint64_t replies = st->replies, errors = st->replies_error;
	struct reply r;
	int s = req_send(a, q, &r);

	if (s != status)
		fail_msg("%s: status %d, expected 0x%04x", what, s, status);
	assert_int_equal(st->replies, replies + 1);
	assert_int_equal(st->replies_error, errors + (status != VEMA_STATUS_OK));
}

/* A valid configuration: vesw @p vesw_id, vport @p idx, config @p state. */
static inline void
vport_cfg(struct vnic_vesw_info *v, struct vnic_port_info *p, uint16_t vesw_id, uint8_t idx,
	  uint8_t state)
{
	unsigned int i;

	vnic_info_defaults(v, p);
	v->fabric_id = 0x155;
	v->vesw_id = vesw_id;
	v->def_port_mask = 0x0003;
	v->pkey = 0x8001;
	v->u_mcast_dlid = 0xF00010;
	v->u_ucast_dlid[0] = 0x100 + idx;
	v->u_ucast_dlid[1] = 0x200 + idx;
	v->rc = 0x01234567;
	v->eth_mtu = 9000;
	p->port_num = 0x1000u + idx;
	p->base_mac_addr = (struct rte_ether_addr){ { 0x02, 0x11, 0x22, 0x33, 0x44, idx } };
	p->config_state = state;
	p->encap_slid = 0x0C0000u + idx;
	for (i = 0; i < 8; i++) {
		p->pcp_to_sc_uc[i] = i;
		p->pcp_to_vl_uc[i] = i;
		p->pcp_to_sc_mc[i] = 8 + i;
		p->pcp_to_vl_mc[i] = 8 + i;
	}
	p->non_vlan_sc_uc = 1;
	p->non_vlan_vl_uc = 1;
	p->non_vlan_sc_mc = 9;
	p->non_vlan_vl_mc = 9;
}

/* SET VESWPORT_INFO; returns the status. */
static inline int
set_vport(struct vema_agent *a, uint32_t mod, const struct vnic_vesw_info *v,
	  const struct vnic_port_info *p, struct reply *r)
{
	uint8_t d[VEMA_VESWPORT_INFO_LEN];

	vema_veswport_info_encode(d, v, p);
	return do_req(a, VEMA_METHOD_SET, VEMA_ATTR_VESWPORT_INFO, mod, d, sizeof(d), r);
}

/* Configure vport @p idx (vesw @p vesw_id) with @p state; must succeed. */
static inline struct vnic_vport *
add_vport(struct vema_agent *a, uint8_t idx, uint16_t vesw_id, uint8_t state)
{
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct reply r;

	vport_cfg(&v, &p, vesw_id, idx, state);
	assert_int_equal(set_vport(a, idx, &v, &p, &r), VEMA_STATUS_OK);
	assert_non_null(vema_agent_vport(a, idx));
	return vema_agent_vport(a, idx);
}

/* SET ClassPortInfo with a trap LID and trap_sl_rsvd; returns the status. */
static inline int
set_cpi(struct vema_agent *a, uint32_t trap_lid, uint8_t trap_sl_rsvd, struct reply *r)
{
	struct vema_class_port_info c;
	uint8_t d[VEMA_CPI_LEN];

	memset(&c, 0, sizeof(c));
	c.trap_lid = trap_lid;
	c.trap_sl_rsvd = trap_sl_rsvd;
	vema_cpi_encode(d, &c);
	return do_req(a, VEMA_METHOD_SET, VEMA_ATTR_CLASS_PORT_INFO, 0, d, sizeof(d), r);
}

/* MAC table entry @p i of the tests. */
static inline void
mac_entry(unsigned int i, struct vnic_mac_entry *e)
{
	e->mac = (struct rte_ether_addr){ { 0x02, 0x10, 0x20, 0x30, i >> 8, i & 0xFF } };
	e->mask = (struct rte_ether_addr){ { 0xFF, 0xFF, 0xFF, 0xF0, 0x0F, i & 0xFF } };
	e->dlid_sd = (0x1000u + i) << VNIC_DLID_SD_SHIFT | (i % 7 == 0 ? VNIC_DLID_SD_SMAC : 0);
}

/* A MAC_ENTRIES payload: header and entries first..first+n-1 of mac_entry(). */
static inline size_t
mac_payload(uint8_t *d, uint16_t offset, uint16_t n, uint32_t digest, unsigned int first)
{
	struct vema_mac_tbl_hdr h = { .offset = offset, .num_entries = n, .digest = digest };
	struct vnic_mac_entry e;
	unsigned int i;

	vema_mac_tbl_hdr_encode(d, &h);
	for (i = 0; i < n; i++) {
		mac_entry(first + i, &e);
		vema_mac_entry_encode(d + VEMA_MAC_TBL_HDR_LEN + VEMA_MAC_ENTRY_LEN * i, &e);
	}
	return VEMA_MAC_TBL_HDR_LEN + (size_t)VEMA_MAC_ENTRY_LEN * n;
}

static inline size_t
drain_traps(struct vema_agent *a, uint64_t now)
{
	uint8_t pkt[VEMA_PKT_MAX];
	size_t n = 0;

	while (vema_agent_poll(a, now, pkt, sizeof(pkt)) != 0)
		n++;
	return n;
}

/* A configuration vnic_info_check_reason() refuses */
typedef void (*cfg_mut_t)(struct vnic_vesw_info *v, struct vnic_port_info *p);
#define MUT(name, body) \
	static inline void mut_##name(struct vnic_vesw_info *v, struct vnic_port_info *p) \
	{ (void)v; (void)p; body; }
MUT(vesw_id_0, v->vesw_id = 0)
MUT(vesw_id_4096, v->vesw_id = 0x1000)
MUT(vesw_id_ffff, v->vesw_id = 0xFFFF)
MUT(fabric_id_wide, v->fabric_id = 0x400)
MUT(mcast_dlid_wide, v->u_mcast_dlid = 0x1000000)
MUT(ucast_dlid0_wide, v->u_ucast_dlid[0] = 0x1000000)
MUT(ucast_dlid15_wide, v->u_ucast_dlid[15] = 0xFFFFFFFF)
MUT(rc_bit3, v->rc = 0x8)
MUT(rc_bit28, v->rc = 0x10000000)
MUT(mtu_0, v->eth_mtu = 0)
MUT(mtu_67, v->eth_mtu = VNIC_ETH_MTU_MIN - 1)
MUT(mtu_over, v->eth_mtu = VNIC_ETH_MTU_MAX + 1)
MUT(config_0, p->config_state = 0)
MUT(config_2, p->config_state = 2)
MUT(config_4, p->config_state = 4)
MUT(mac_mcast, p->base_mac_addr.addr_bytes[0] = 0x01)
MUT(mac_bcast, memset(p->base_mac_addr.addr_bytes, 0xFF, 6))
MUT(encap_slid_wide, p->encap_slid = 0x1000000)
MUT(sc_uc_32, p->pcp_to_sc_uc[7] = 32)
MUT(sc_mc_32, p->pcp_to_sc_mc[0] = 32)
MUT(nv_sc_uc_32, p->non_vlan_sc_uc = 32)
MUT(nv_sc_mc_ff, p->non_vlan_sc_mc = 0xFF)
MUT(vl_uc_16, p->pcp_to_vl_uc[3] = 16)
MUT(vl_mc_ff, p->pcp_to_vl_mc[7] = 0xFF)
MUT(nv_vl_uc_16, p->non_vlan_vl_uc = 16)
MUT(nv_vl_mc_16, p->non_vlan_vl_mc = 16)
/* valid extremes */
MUT(ok_extremes, v->vesw_id = 0xFFF; v->fabric_id = 0x3FF; v->u_mcast_dlid = 0xFFFFFF;
    v->u_ucast_dlid[15] = 0xFFFFFF; v->rc = 0x07777777; v->eth_mtu = VNIC_ETH_MTU_MAX;
    p->encap_slid = 0xFFFFFF; p->pcp_to_sc_uc[7] = 31; p->non_vlan_vl_mc = 15)
MUT(ok_min, v->vesw_id = 1; v->eth_mtu = VNIC_ETH_MTU_MIN; p->config_state = 1)
#undef MUT

static const struct {
	const char *name;
	cfg_mut_t fn;
} bad_cfgs[] = {
#define M(n) { #n, mut_##n }
	M(vesw_id_0), M(vesw_id_4096), M(vesw_id_ffff), M(fabric_id_wide),
	M(mcast_dlid_wide), M(ucast_dlid0_wide), M(ucast_dlid15_wide), M(rc_bit3),
	M(rc_bit28), M(mtu_0), M(mtu_67), M(mtu_over), M(config_0), M(config_2),
	M(config_4), M(mac_mcast), M(mac_bcast), M(encap_slid_wide), M(sc_uc_32),
	M(sc_mc_32), M(nv_sc_uc_32), M(nv_sc_mc_ff), M(vl_uc_16), M(vl_mc_ff),
	M(nv_vl_uc_16), M(nv_vl_mc_16),
#undef M
};
#define NB_BAD_CFGS (sizeof(bad_cfgs) / sizeof(bad_cfgs[0]))

#endif /* _VEMA_TEST_UTIL_H_ */
