/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * lib/vema's agent without EAL: drops and status codes, the EM's
 * configuration flow, state preservation on rejected requests, reply
 * addressing, traps. The codec: test_vema_codec.c.
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

static struct vema_agent *
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
static void
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

static uint8_t *
req_data(struct req *q)
{
	return q->mad + VEMA_HDR_LEN;
}

/*
 * Send a request. Returns the reply status, or -1 when dropped. Every reply
 * is checked: 2048-byte MAD in a valid FM packet, GetResp, header copied
 * from the request (apart from method and status), no data on error.
 */
static int
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
	assert_int_equal(r->h.method, VEMA_METHOD_GET_RESP);
	expect_bytes(r->info.mad, 0, q->mad, 3, "reply header bytes 0..2");
	expect_bytes(r->info.mad, 6, q->mad + 6, VEMA_HDR_LEN - 6, "reply header bytes 6..39");
	if (r->h.status != VEMA_STATUS_OK)
		expect_fill(r->data, 0, VEMA_DATA_LEN, 0, "error reply data");
	return r->h.status;
}

/* Send a request with a payload; return the status (or -1). */
static int
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
static void
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
			 vema_drop_name(why), r.h.status);
	for (d = 0; d < VEMA_DROP_MAX; d++)
		if (st->drops[d] != drops[d] + (d == (unsigned int)why))
			fail_msg("expected drop %s, counted %s", vema_drop_name(why),
				 vema_drop_name(d));
	assert_int_equal(st->replies, replies);
	assert_int_equal(st->rx, rx + 1);
}

/* The request gets a reply with @p status, counted as such. */
static void
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
static void
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
static int
set_vport(struct vema_agent *a, uint32_t mod, const struct vnic_vesw_info *v,
	  const struct vnic_port_info *p, struct reply *r)
{
	uint8_t d[VEMA_VESWPORT_INFO_LEN];

	vema_veswport_info_encode(d, v, p);
	return do_req(a, VEMA_METHOD_SET, VEMA_ATTR_VESWPORT_INFO, mod, d, sizeof(d), r);
}

/* Configure vport @p idx (vesw @p vesw_id) with @p state; must succeed. */
static struct vnic_vport *
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
static int
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
static void
mac_entry(unsigned int i, struct vnic_mac_entry *e)
{
	e->mac = (struct rte_ether_addr){ { 0x02, 0x10, 0x20, 0x30, i >> 8, i & 0xFF } };
	e->mask = (struct rte_ether_addr){ { 0xFF, 0xFF, 0xFF, 0xF0, 0x0F, i & 0xFF } };
	e->dlid_sd = (0x1000u + i) << VNIC_DLID_SD_SHIFT | (i % 7 == 0 ? VNIC_DLID_SD_SMAC : 0);
}

/* A MAC_ENTRIES payload: header and entries first..first+n-1 of mac_entry(). */
static size_t
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

static size_t
drain_traps(struct vema_agent *a, uint64_t now)
{
	uint8_t pkt[VEMA_PKT_MAX];
	size_t n = 0;

	while (vema_agent_poll(a, now, pkt, sizeof(pkt)) != 0)
		n++;
	return n;
}

/* --- 2. drops --- */

/* Packets that are not valid 16B FM packets are dropped as not_fm. */
static void
test_drop_invalid_fm_packet(void **state)
{
	struct vema_agent *a = agent_new();
	const struct vema_agent_stats *st = vema_agent_stats(a);
	uint8_t pkt[VEMA_PKT_MAX], out[VEMA_PKT_MAX];
	struct req q;
	int n;

	(void)state;
	req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0);
	q.bad_l4 = true;
	expect_drop(a, &q, VEMA_DROP_NOT_FM);

	n = opa16b_fm_build(pkt, sizeof(pkt), &q.f, q.mad, q.mad_len);
	assert_true(n > 0);
	/* truncated, bad tail pad, garbage, empty */
	assert_int_equal(vema_agent_rx(a, pkt, (size_t)n - 8, out, sizeof(out)), 0);
	pkt[n - 1] = 0;
	assert_int_equal(vema_agent_rx(a, pkt, (size_t)n, out, sizeof(out)), 0);
	memset(pkt, 0xFF, 64);
	assert_int_equal(vema_agent_rx(a, pkt, 64, out, sizeof(out)), 0);
	assert_int_equal(vema_agent_rx(a, pkt, 0, out, sizeof(out)), 0);
	assert_int_equal(st->drops[VEMA_DROP_NOT_FM], 5);
	assert_int_equal(st->replies, 0);
	vema_agent_free(a);
}

/* FM packets for another QP or another LID are dropped as wrong_dest. */
static void
test_drop_wrong_destination(void **state)
{
	const uint32_t qpns[] = { 0, 2, 0x000100, OPA16B_QPN_MAX };
	const uint32_t lids[] = { 0, AGENT_LID + 1, AGENT_LID ^ 0x800000, EM_LID };
	struct vema_agent *a = agent_new();
	struct req q;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(qpns) / sizeof(qpns[0]); i++) {
		req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0);
		q.f.dest_qpn = qpns[i];
		expect_drop(a, &q, VEMA_DROP_WRONG_DEST);
	}
	for (i = 0; i < sizeof(lids) / sizeof(lids[0]); i++) {
		req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0);
		q.f.dlid = lids[i];
		expect_drop(a, &q, VEMA_DROP_WRONG_DEST);
	}
	vema_agent_free(a);
}

/* MADs shorter than the 40-byte header are dropped; 40 bytes is answered. */
static void
test_drop_mad_shorter_than_header(void **state)
{
	struct vema_agent *a = agent_new();
	struct req q;

	(void)state;
	req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0);
	q.mad_len = 8;
	expect_drop(a, &q, VEMA_DROP_SHORT);
	q.mad_len = 32;
	expect_drop(a, &q, VEMA_DROP_SHORT);
	q.mad_len = VEMA_HDR_LEN;
	expect_status(a, &q, VEMA_STATUS_OK, "GET CPI, header only");
	vema_agent_free(a);
}

/* MADs whose base version is not 0x80 are dropped. */
static void
test_drop_base_version(void **state)
{
	const uint8_t versions[] = { 0x00, 0x01, 0x7F, 0x81, 0xFF };
	struct vema_agent *a = agent_new();
	struct req q;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(versions); i++) {
		req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0);
		q.mad[0] = versions[i];
		expect_drop(a, &q, VEMA_DROP_BASE_VERSION);
	}
	vema_agent_free(a);
}

/* Responses (method bit 7) and TrapRepress are dropped, in any class. */
static void
test_drop_responses_and_trap_repress(void **state)
{
	const uint8_t methods[] = { 0x81, 0x82, 0x85, 0x86, 0xFF, 0x07 };
	struct vema_agent *a = agent_new();
	struct req q;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(methods); i++) {
		req_init(&q, methods[i], VEMA_ATTR_CLASS_PORT_INFO, 0);
		expect_drop(a, &q, VEMA_DROP_RESPONSE);
		req_init(&q, methods[i], VEMA_ATTR_CLASS_PORT_INFO, 0);
		q.mad[1] = 0x04; /* another class */
		expect_drop(a, &q, VEMA_DROP_RESPONSE);
	}
	vema_agent_free(a);
}

/* Non-Get/Set methods of another class are dropped. */
static void
test_drop_other_class_other_method(void **state)
{
	const uint8_t methods[] = { 0x03, 0x05, 0x06, 0x7F };
	const uint8_t classes[] = { 0x01, 0x04, 0x35 };
	struct vema_agent *a = agent_new();
	struct req q;
	unsigned int i, j;

	(void)state;
	for (i = 0; i < sizeof(methods); i++) {
		for (j = 0; j < sizeof(classes); j++) {
			req_init(&q, methods[i], VEMA_ATTR_CLASS_PORT_INFO, 0);
			q.mad[1] = classes[j];
			expect_drop(a, &q, VEMA_DROP_METHOD);
		}
	}
	vema_agent_free(a);
}

/* MADs with the RMPP active flag (byte 26 bit 0) are dropped. */
static void
test_drop_rmpp_active(void **state)
{
	const uint8_t flags[] = { 0x01, 0x11, 0xFF };
	struct vema_agent *a = agent_new();
	struct req q;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(flags); i++) {
		req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0);
		q.mad[26] = flags[i];
		expect_drop(a, &q, VEMA_DROP_RMPP);
		req_init(&q, VEMA_METHOD_SET, VEMA_ATTR_VESWPORT_INFO, 0);
		q.mad[26] = flags[i];
		expect_drop(a, &q, VEMA_DROP_RMPP);
	}
	assert_int_equal(vema_agent_nb_vports(a), 0);
	vema_agent_free(a);
}

/* A reply buffer smaller than VEMA_PKT_MAX drops the request; drop names. */
static void
test_drop_no_room(void **state)
{
	struct vema_agent *a = agent_new();
	struct req q;
	unsigned int i, j;

	(void)state;
	req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0);
	q.cap = VEMA_PKT_MAX - 1;
	expect_drop(a, &q, VEMA_DROP_NO_ROOM);
	q.cap = 0;
	expect_drop(a, &q, VEMA_DROP_NO_ROOM);
	for (i = 0; i < VEMA_DROP_MAX; i++) {
		assert_non_null(vema_drop_name(i));
		for (j = 0; j < i; j++)
			assert_string_not_equal(vema_drop_name(i), vema_drop_name(j));
	}
	assert_string_equal(vema_drop_name(VEMA_DROP_MAX), "unknown");
	vema_agent_free(a);
}

/* --- 2. status codes --- */

/* Get/Set of another class or another OUI is answered 0x000C. */
static void
test_status_other_class_or_oui_unsupported(void **state)
{
	const uint8_t classes[] = { 0x01, 0x04, 0x30, 0x35, 0x4F };
	const uint32_t ouis[] = { 0x000000, 0x00066B, 0x01066A, 0xFFFFFF };
	struct vema_agent *a = agent_new();
	struct req q;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(classes); i++) {
		req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0);
		q.mad[1] = classes[i];
		expect_status(a, &q, VEMA_STATUS_UNSUPPORTED, "other class");
	}
	for (i = 0; i < sizeof(ouis) / sizeof(ouis[0]); i++) {
		req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0);
		q.mad[37] = ouis[i] >> 16;
		q.mad[38] = ouis[i] >> 8;
		q.mad[39] = ouis[i];
		expect_status(a, &q, VEMA_STATUS_UNSUPPORTED, "other OUI");
	}
	vema_agent_free(a);
}

/* A class version other than 0x80 is answered 0x0004. */
static void
test_status_bad_class_version(void **state)
{
	const uint8_t versions[] = { 0x00, 0x01, 0x7F, 0x81 };
	struct vema_agent *a = agent_new();
	struct req q;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(versions); i++) {
		req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0);
		q.mad[2] = versions[i];
		expect_status(a, &q, VEMA_STATUS_BAD_VERSION, "class version");
	}
	vema_agent_free(a);
}

/* Methods other than Get/Set of class 0x34 are answered 0x000C. */
static void
test_status_other_methods_unsupported(void **state)
{
	const uint8_t methods[] = { 0x00, 0x03, 0x04, 0x05, 0x06, 0x08, 0x12, 0x7F };
	struct vema_agent *a = agent_new();
	struct req q;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(methods); i++) {
		req_init(&q, methods[i], VEMA_ATTR_CLASS_PORT_INFO, 0);
		expect_status(a, &q, VEMA_STATUS_UNSUPPORTED, "method");
	}
	vema_agent_free(a);
}

/* Non-zero reserved header fields (status, class_specific, resv, RMPP bytes
 * 25..35 other than the active flag, byte 36) are answered 0x001C.
 */
static void
test_status_reserved_header_fields_invalid(void **state)
{
	const struct {
		size_t off;
		uint8_t v;
	} rs[] = {
		{ 4, 0x80 }, { 5, 0x01 }, { 6, 0x01 }, { 7, 0x80 }, { 18, 0x01 }, { 19, 0x80 },
		{ 25, 0x01 }, { 26, 0x02 }, { 26, 0x80 }, { 27, 0x01 }, { 28, 0x80 },
		{ 31, 0x01 }, { 32, 0x01 }, { 35, 0x80 }, { 36, 0x01 }, { 36, 0xFF },
	};
	struct vema_agent *a = agent_new();
	struct req q;
	unsigned int i;
	char what[64];

	(void)state;
	for (i = 0; i < sizeof(rs) / sizeof(rs[0]); i++) {
		snprintf(what, sizeof(what), "byte %zu = 0x%02x", rs[i].off, rs[i].v);
		req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0);
		q.mad[rs[i].off] = rs[i].v;
		expect_status(a, &q, VEMA_STATUS_INVALID, what);
		req_init(&q, VEMA_METHOD_SET, VEMA_ATTR_CLASS_PORT_INFO, 0);
		q.mad[rs[i].off] = rs[i].v;
		expect_status(a, &q, VEMA_STATUS_INVALID, what);
	}
	vema_agent_free(a);
}

/* Attribute/method combinations the table does not allow, and unknown
 * attributes, are answered 0x000C.
 */
static void
test_status_attr_method_not_allowed(void **state)
{
	const struct {
		uint8_t method;
		uint16_t attr;
	} bad[] = {
		{ VEMA_METHOD_GET, VEMA_ATTR_DELETE_VESW },
		{ VEMA_METHOD_SET, VEMA_ATTR_IFACE_UCAST_MACS },
		{ VEMA_METHOD_SET, VEMA_ATTR_IFACE_MCAST_MACS },
		{ VEMA_METHOD_SET, VEMA_ATTR_SUMMARY_COUNTERS },
		{ VEMA_METHOD_SET, VEMA_ATTR_ERROR_COUNTERS },
		{ VEMA_METHOD_GET, VEMA_ATTR_NOTICE }, { VEMA_METHOD_SET, VEMA_ATTR_NOTICE },
		{ VEMA_METHOD_GET, 0x0000 }, { VEMA_METHOD_GET, 0x0003 },
		{ VEMA_METHOD_GET, 0x0010 }, { VEMA_METHOD_SET, 0x0016 },
		{ VEMA_METHOD_GET, 0x0021 }, { VEMA_METHOD_GET, 0x0023 },
		{ VEMA_METHOD_SET, 0xFFFF },
	};
	struct vema_agent *a = agent_new();
	struct req q;
	unsigned int i;
	char what[64];

	(void)state;
	add_vport(a, 0, 0x10, VNIC_STATE_FORWARDING);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(what, sizeof(what), "method 0x%02x attr 0x%04x", bad[i].method,
			 bad[i].attr);
		req_init(&q, bad[i].method, bad[i].attr, 0);
		expect_status(a, &q, VEMA_STATUS_UNSUPPORTED, what);
	}
	vema_agent_free(a);
}

/* attr_mod bits above 7:0 are answered 0x001C; ClassPortInfo needs 0. */
static void
test_status_attr_mod_reserved_bits_invalid(void **state)
{
	const struct {
		uint8_t method;
		uint16_t attr;
	} ok[] = {
		{ VEMA_METHOD_GET, VEMA_ATTR_VESWPORT_INFO },
		{ VEMA_METHOD_SET, VEMA_ATTR_VESWPORT_INFO },
		{ VEMA_METHOD_GET, VEMA_ATTR_MAC_ENTRIES },
		{ VEMA_METHOD_SET, VEMA_ATTR_MAC_ENTRIES },
		{ VEMA_METHOD_GET, VEMA_ATTR_IFACE_UCAST_MACS },
		{ VEMA_METHOD_GET, VEMA_ATTR_IFACE_MCAST_MACS },
		{ VEMA_METHOD_SET, VEMA_ATTR_DELETE_VESW },
		{ VEMA_METHOD_GET, VEMA_ATTR_SUMMARY_COUNTERS },
		{ VEMA_METHOD_GET, VEMA_ATTR_ERROR_COUNTERS },
	};
	const uint32_t mods[] = { 0x100, 0x101, 0x8000, 0x80000000, 0xFFFFFF00 };
	const uint32_t cpi_mods[] = { 1, 0xFF, 0x100, 0x80000000 };
	struct vema_agent *a = agent_new();
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct req q;
	unsigned int i, j;
	char what[64];

	(void)state;
	add_vport(a, 0, 0x10, VNIC_STATE_FORWARDING);
	add_vport(a, 1, 0x11, VNIC_STATE_FORWARDING);
	vport_cfg(&v, &p, 0x20, 0, VNIC_STATE_FORWARDING);
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		for (j = 0; j < sizeof(mods) / sizeof(mods[0]); j++) {
			snprintf(what, sizeof(what), "method 0x%02x attr 0x%04x mod 0x%x",
				 ok[i].method, ok[i].attr, mods[j]);
			req_init(&q, ok[i].method, ok[i].attr, mods[j]);
			if (ok[i].attr == VEMA_ATTR_VESWPORT_INFO)
				vema_veswport_info_encode(req_data(&q), &v, &p);
			expect_status(a, &q, VEMA_STATUS_INVALID, what);
		}
	}
	for (j = 0; j < sizeof(cpi_mods) / sizeof(cpi_mods[0]); j++) {
		req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, cpi_mods[j]);
		expect_status(a, &q, VEMA_STATUS_INVALID, "GET CPI attr_mod");
		req_init(&q, VEMA_METHOD_SET, VEMA_ATTR_CLASS_PORT_INFO, cpi_mods[j]);
		expect_status(a, &q, VEMA_STATUS_INVALID, "SET CPI attr_mod");
	}
	assert_int_equal(vema_agent_nb_vports(a), 2);
	vema_agent_free(a);
}

/* Vport-scoped attributes of an absent vport are answered 0x001C and
 * create nothing.
 */
static void
test_status_absent_vport_invalid(void **state)
{
	const struct {
		uint8_t method;
		uint16_t attr;
	} ops[] = {
		{ VEMA_METHOD_GET, VEMA_ATTR_MAC_ENTRIES },
		{ VEMA_METHOD_SET, VEMA_ATTR_MAC_ENTRIES },
		{ VEMA_METHOD_GET, VEMA_ATTR_IFACE_UCAST_MACS },
		{ VEMA_METHOD_GET, VEMA_ATTR_IFACE_MCAST_MACS },
		{ VEMA_METHOD_SET, VEMA_ATTR_DELETE_VESW },
		{ VEMA_METHOD_GET, VEMA_ATTR_SUMMARY_COUNTERS },
		{ VEMA_METHOD_GET, VEMA_ATTR_ERROR_COUNTERS },
	};
	const uint8_t idx[] = { 0, 7, 255 };
	struct vema_agent *a = agent_new();
	struct req q;
	unsigned int i, j;

	(void)state;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		for (j = 0; j < sizeof(idx); j++) {
			req_init(&q, ops[i].method, ops[i].attr, idx[j]);
			mac_payload(req_data(&q), 0, 2, 0x1234, 0);
			expect_status(a, &q, VEMA_STATUS_INVALID, vema_attr_name(ops[i].attr));
		}
	}
	assert_int_equal(vema_agent_nb_vports(a), 0);
	vema_agent_free(a);
}

/* GET VESWPORT_INFO of an absent vport returns the power-on defaults of
 * 3.4 with status 0, and creates nothing.
 */
static void
test_get_absent_vport_info_returns_defaults(void **state)
{
	struct vema_agent *a = agent_new();
	const uint8_t *q;
	struct reply r;

	(void)state;
	assert_int_equal(do_req(a, VEMA_METHOD_GET, VEMA_ATTR_VESWPORT_INFO, 9, NULL, 0, &r),
			 VEMA_STATUS_OK);
	q = r.data + 152;
	expect_fill(r.data, 0, 148, 0, "vesw_info before eth_mtu");
	expect_be(r.data, 148, 2, 1500, "eth_mtu");
	expect_fill(r.data, 150, 152, 0, "vesw rsvd4");
	expect_fill(q, 0, 4, 0, "port_num");
	expect_be(q, 4, 1, VNIC_LINK_DOWN, "eth_link_status");
	expect_fill(q, 5, 14, 0, "rsvd0, base_mac_addr");
	expect_be(q, 14, 1, VNIC_STATE_DROP_ALL, "config_state");
	expect_be(q, 15, 1, VNIC_STATE_DROP_ALL, "oper_state");
	expect_be(q, 16, 2, 2048, "max_mac_tbl_ent");
	expect_be(q, 18, 2, 256, "max_smac_ent");
	expect_fill(q, 20, 128, 0, "rest of per_veswport_info");
	expect_fill(r.data, VEMA_VESWPORT_INFO_LEN, VEMA_DATA_LEN, 0, "past VESWPORT_INFO");
	assert_int_equal(vema_agent_nb_vports(a), 0);
	assert_null(vema_agent_vport(a, 9));
	vema_agent_free(a);
}

static unsigned int new_calls;
static struct vnic_vport *new_vp;

static void
on_new(void *arg, struct vnic_vport *vp)
{
	assert_ptr_equal(arg, &new_calls);
	new_calls++;
	new_vp = vp;
}

/* SET VESWPORT_INFO creates the vport and replies with the resulting GET:
 * EM fields applied, read-only fields the agent's, reserved bytes echoed.
 */
static void
test_set_vport_info_creates_vport_and_returns_get(void **state)
{
	struct vema_agent_conf conf = {
		.lid = AGENT_LID, .port_num = AGENT_PORT, .on_new = on_new, .cb_arg = &new_calls,
	};
	struct vema_agent *a = vema_agent_create(&conf);
	struct vnic_vesw_info v, vb;
	struct vnic_port_info p, pb, exp;
	const struct vnic_policy *pol;
	uint8_t first[VEMA_VESWPORT_INFO_LEN];
	struct reply r;
	unsigned int i;

	(void)state;
	assert_non_null(a);
	new_calls = 0;
	vport_cfg(&v, &p, 0x123, 4, VNIC_STATE_FORWARDING);
	for (i = 0; i < 56; i++)
		v.rsvd3[i] = 0x80 | i;
	memset(v.rsvd0, 0xA0, sizeof(v.rsvd0));
	memset(v.rsvd1, 0xA1, sizeof(v.rsvd1));
	memset(v.rsvd2, 0xA2, sizeof(v.rsvd2));
	memset(v.rsvd4, 0xA4, sizeof(v.rsvd4));
	memset(p.rsvd0, 0xB0, sizeof(p.rsvd0));
	memset(p.rsvd1, 0xB1, sizeof(p.rsvd1));
	for (i = 0; i < 48; i++)
		p.rsvd2[i] = 0xC0 ^ i;
	memset(p.rsvd3, 0xB3, sizeof(p.rsvd3));
	/* read-only fields: ignored */
	p.eth_link_status = VNIC_LINK_UP;
	p.oper_state = VNIC_STATE_FORWARDING;
	p.max_mac_tbl_ent = 7;
	p.max_smac_ent = 8;
	p.mac_tbl_digest = 0xDEADBEEF;
	p.uc_macs_gen_count = 5;
	p.mc_macs_gen_count = 6;

	assert_int_equal(set_vport(a, 4, &v, &p, &r), VEMA_STATUS_OK);
	assert_int_equal(vema_agent_nb_vports(a), 1);
	assert_non_null(vema_agent_vport(a, 4));
	assert_int_equal(new_calls, 1);
	assert_ptr_equal(new_vp, vema_agent_vport(a, 4));
	assert_int_equal(vnic_vport_index(new_vp), 4);

	vema_veswport_info_decode(r.data, &vb, &pb);
	assert_memory_equal(&vb, &v, sizeof(v));
	exp = p;
	exp.eth_link_status = VNIC_LINK_DOWN; /* no carrier */
	exp.oper_state = VNIC_STATE_DROP_ALL;
	exp.max_mac_tbl_ent = 2048;
	exp.max_smac_ent = 256;
	exp.mac_tbl_digest = 0;
	exp.uc_macs_gen_count = 0;
	exp.mc_macs_gen_count = 0;
	assert_memory_equal(&pb, &exp, sizeof(exp));
	expect_fill(r.data, VEMA_VESWPORT_INFO_LEN, VEMA_DATA_LEN, 0, "past VESWPORT_INFO");

	pol = vnic_vport_policy(vema_agent_vport(a, 4));
	assert_memory_equal(&pol->vesw, &v, sizeof(v));
	assert_memory_equal(&pol->port, &exp, sizeof(exp));

	/* GET returns the same bytes; a second SET updates without creating */
	memcpy(first, r.data, sizeof(first));
	assert_int_equal(do_req(a, VEMA_METHOD_GET, VEMA_ATTR_VESWPORT_INFO, 4, NULL, 0, &r),
			 VEMA_STATUS_OK);
	expect_bytes(r.data, 0, first, sizeof(first), "GET after SET");
	v.eth_mtu = 1500;
	assert_int_equal(set_vport(a, 4, &v, &p, &r), VEMA_STATUS_OK);
	expect_be(r.data, 148, 2, 1500, "eth_mtu after update");
	assert_int_equal(vema_agent_nb_vports(a), 1);
	assert_int_equal(new_calls, 1);
	vema_agent_free(a);
}

/* A configuration vnic_info_check_reason() refuses */
typedef void (*cfg_mut_t)(struct vnic_vesw_info *v, struct vnic_port_info *p);
#define MUT(name, body) \
	static void mut_##name(struct vnic_vesw_info *v, struct vnic_port_info *p) \
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

/* Invalid VESWPORT_INFO values are answered 0x001C: nothing created or
 * changed; the valid extremes are accepted.
 */
static void
test_status_invalid_vport_info_values(void **state)
{
	struct vema_agent *a = agent_new();
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct vnic_policy *before = malloc(sizeof(*before));
	struct reply r;
	unsigned int i;

	(void)state;
	assert_non_null(before);
	add_vport(a, 0, 0x10, VNIC_STATE_FORWARDING);
	memcpy(before, vnic_vport_policy(vema_agent_vport(a, 0)), sizeof(*before));
	for (i = 0; i < NB_BAD_CFGS; i++) {
		vport_cfg(&v, &p, 0x20, 0, VNIC_STATE_FORWARDING);
		bad_cfgs[i].fn(&v, &p);
		if (set_vport(a, 0, &v, &p, &r) != VEMA_STATUS_INVALID)
			fail_msg("%s on vport 0: status 0x%04x", bad_cfgs[i].name, r.h.status);
		if (memcmp(before, vnic_vport_policy(vema_agent_vport(a, 0)),
			   sizeof(*before)) != 0)
			fail_msg("%s changed vport 0", bad_cfgs[i].name);
		if (set_vport(a, 6, &v, &p, &r) != VEMA_STATUS_INVALID)
			fail_msg("%s on vport 6: status 0x%04x", bad_cfgs[i].name, r.h.status);
		assert_null(vema_agent_vport(a, 6));
		assert_int_equal(vema_agent_nb_vports(a), 1);
	}
	vport_cfg(&v, &p, 0x20, 6, VNIC_STATE_FORWARDING);
	mut_ok_extremes(&v, &p);
	assert_int_equal(set_vport(a, 6, &v, &p, &r), VEMA_STATUS_OK);
	vport_cfg(&v, &p, 0x20, 7, VNIC_STATE_FORWARDING);
	mut_ok_min(&v, &p);
	assert_int_equal(set_vport(a, 7, &v, &p, &r), VEMA_STATUS_OK);
	assert_int_equal(vema_agent_nb_vports(a), 3);
	free(before);
	vema_agent_free(a);
}

/* MAC entries with num > 125 or offset + num > 2048 are answered 0x001C for
 * GET and SET; the largest valid range is answered.
 */
static void
test_status_mac_entries_range_invalid(void **state)
{
	const struct {
		uint16_t off, n;
	} bad[] = {
		{ 0, 126 }, { 0, 0xFFFF }, { 1924, 125 }, { 2047, 2 }, { 2048, 1 },
		{ 0xFFFF, 1 }, { 0xFFFF, 0 }, { 2049, 0 },
	};
	struct vema_agent *a = agent_new();
	struct vema_mac_tbl_hdr th;
	struct req q;
	struct reply r;
	unsigned int i;
	char what[64];

	(void)state;
	add_vport(a, 0, 0x10, VNIC_STATE_FORWARDING);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(what, sizeof(what), "offset %u num %u", bad[i].off, bad[i].n);
		req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_MAC_ENTRIES, 0);
		mac_payload(req_data(&q), bad[i].off, 0, 0, 0);
		req_data(&q)[2] = bad[i].n >> 8;
		req_data(&q)[3] = bad[i].n & 0xFF;
		expect_status(a, &q, VEMA_STATUS_INVALID, what);
		q.mad[3] = VEMA_METHOD_SET;
		expect_status(a, &q, VEMA_STATUS_INVALID, what);
	}
	/* [1923, 2048): 125 entries at the end of the table */
	req_init(&q, VEMA_METHOD_SET, VEMA_ATTR_MAC_ENTRIES, 0);
	mac_payload(req_data(&q), 1923, 125, 0xABCD, 0);
	assert_int_equal(req_send(a, &q, &r), VEMA_STATUS_OK);
	vema_mac_tbl_hdr_decode(r.data, &th);
	assert_int_equal(th.offset, 1923);
	assert_int_equal(th.num_entries, 125);
	assert_int_equal(th.digest, 0xABCD);
	expect_bytes(r.data, 8, req_data(&q) + 8, 125 * 16, "entries 1923..2047");
	req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_MAC_ENTRIES, 0);
	mac_payload(req_data(&q), 2048, 0, 0, 0);
	assert_int_equal(req_send(a, &q, &r), VEMA_STATUS_OK);
	vema_agent_free(a);
}

/* A SET shorter than its payload is answered 0x001C and changes nothing;
 * exactly long enough is accepted.
 */
static void
test_status_set_too_short_invalid(void **state)
{
	struct vema_agent *a = agent_new();
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct vema_class_port_info c;
	struct req q;

	(void)state;
	vport_cfg(&v, &p, 0x10, 0, VNIC_STATE_FORWARDING);
	req_init(&q, VEMA_METHOD_SET, VEMA_ATTR_VESWPORT_INFO, 0);
	vema_veswport_info_encode(req_data(&q), &v, &p);
	q.mad_len = VEMA_HDR_LEN + 272;
	expect_status(a, &q, VEMA_STATUS_INVALID, "VESWPORT_INFO of 272 bytes");
	assert_int_equal(vema_agent_nb_vports(a), 0);
	q.mad_len = VEMA_HDR_LEN + 280;
	expect_status(a, &q, VEMA_STATUS_OK, "VESWPORT_INFO of 280 bytes");
	assert_int_equal(vema_agent_nb_vports(a), 1);

	memset(&c, 0, sizeof(c));
	c.trap_lid = TRAP_LID;
	req_init(&q, VEMA_METHOD_SET, VEMA_ATTR_CLASS_PORT_INFO, 0);
	vema_cpi_encode(req_data(&q), &c);
	q.mad_len = VEMA_HDR_LEN + 72;
	expect_status(a, &q, VEMA_STATUS_INVALID, "CPI of 72 bytes");
	q.mad_len = VEMA_HDR_LEN;
	expect_status(a, &q, VEMA_STATUS_INVALID, "CPI of 0 bytes");
	vema_agent_cpi(a, &c);
	assert_int_equal(c.trap_lid, 0);
	q.mad_len = VEMA_HDR_LEN + 80;
	expect_status(a, &q, VEMA_STATUS_OK, "CPI of 80 bytes");
	vema_agent_cpi(a, &c);
	assert_int_equal(c.trap_lid, TRAP_LID);

	req_init(&q, VEMA_METHOD_SET, VEMA_ATTR_MAC_ENTRIES, 0);
	mac_payload(req_data(&q), 0, 3, 0x77, 1);
	q.mad_len = VEMA_HDR_LEN + 8 + 32;
	expect_status(a, &q, VEMA_STATUS_INVALID, "3 MAC entries in 40 bytes");
	q.mad_len = VEMA_HDR_LEN;
	expect_status(a, &q, VEMA_STATUS_INVALID, "MAC entries without header");
	assert_int_equal(vnic_vport_policy(vema_agent_vport(a, 0))->mac.nb_entries, 0);
	q.mad_len = VEMA_HDR_LEN + 8 + 48;
	expect_status(a, &q, VEMA_STATUS_OK, "3 MAC entries in 56 bytes");
	assert_int_equal(vnic_vport_policy(vema_agent_vport(a, 0))->mac.nb_entries, 3);
	vema_agent_free(a);
}

/* Interface MAC lists: num_macs_in_msg 0 means 333, > 333 or start_idx
 * beyond the list is 0x001C; header carries total and generation.
 */
static void
test_status_iface_list_bounds(void **state)
{
	struct vema_agent *a = agent_new();
	struct rte_ether_addr macs[400];
	struct vema_iface_hdr ih;
	struct vnic_vport *vp;
	struct req q;
	struct reply r;
	unsigned int i;
	const struct {
		uint16_t start, num;
		uint16_t got; /* MACs in the reply; 0xFFFF = 0x001C */
	} uc[] = {
		{ 0, 0, 333 }, { 333, 0, 67 }, { 395, 10, 5 }, { 10, 333, 333 },
		{ 400, 0, 0 }, { 0, 1, 1 }, { 401, 0, 0xFFFF }, { 0, 334, 0xFFFF },
		{ 0xFFFF, 1, 0xFFFF }, { 0, 0xFFFF, 0xFFFF },
	};

	(void)state;
	vp = add_vport(a, 0, 0x10, VNIC_STATE_FORWARDING);
	for (i = 0; i < 400; i++)
		macs[i] = (struct rte_ether_addr){ { 0x02, 0xAA, 0, 0, i >> 8, i & 0xFF } };
	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_UCAST, macs, 400), 1);
	for (i = 0; i < 3; i++)
		macs[i].addr_bytes[0] = 0x01;
	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_MCAST, macs, 3), 1);
	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_MCAST, macs, 2), 1);
	macs[0].addr_bytes[0] = 0x02;
	macs[1].addr_bytes[0] = 0x02;
	macs[2].addr_bytes[0] = 0x02;

	for (i = 0; i < sizeof(uc) / sizeof(uc[0]); i++) {
		req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_IFACE_UCAST_MACS, 0);
		ih = (struct vema_iface_hdr){ .start_idx = uc[i].start,
					      .num_macs_in_msg = uc[i].num };
		vema_iface_hdr_encode(req_data(&q), &ih);
		if (uc[i].got == 0xFFFF) {
			expect_status(a, &q, VEMA_STATUS_INVALID, "iface list bounds");
			continue;
		}
		assert_int_equal(req_send(a, &q, &r), VEMA_STATUS_OK);
		expect_be(r.data, 0, 2, uc[i].start, "start_idx");
		expect_be(r.data, 2, 2, uc[i].got, "num_macs_in_msg");
		expect_be(r.data, 4, 2, 400, "tot_macs_in_lst");
		expect_be(r.data, 6, 2, 1, "gen_count");
		expect_bytes(r.data, 8, &macs[uc[i].start], 6u * uc[i].got, "MACs");
		expect_fill(r.data, 8 + 6u * uc[i].got, VEMA_DATA_LEN, 0, "past the MACs");
	}
	req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_IFACE_MCAST_MACS, 0);
	assert_int_equal(req_send(a, &q, &r), VEMA_STATUS_OK);
	expect_be(r.data, 0, 8, 0x0000000200020002ull, "mcast header");
	expect_be(r.data, 8, 6, 0x01AA00000000ull, "mcast MAC 0");
	expect_be(r.data, 14, 6, 0x01AA00000001ull, "mcast MAC 1");
	expect_fill(r.data, 20, VEMA_DATA_LEN, 0, "past the mcast MACs");
	vema_agent_free(a);
}

/* ClassPortInfo: GET overrides versions, cap_mask and resp time; SET stores
 * the EM's fields; 24-bit trap LID and SL bits 2:0 zero are enforced.
 */
static void
test_cpi_get_overrides_and_set_stores(void **state)
{
	struct vema_agent *a = agent_new();
	struct vema_class_port_info c, got;
	uint8_t d[VEMA_CPI_LEN], exp[VEMA_CPI_LEN];
	struct reply r;
	unsigned int i;

	(void)state;
	assert_int_equal(do_req(a, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0, NULL, 0, &r),
			 VEMA_STATUS_OK);
	expect_be(r.data, 0, 1, 0x80, "base_version");
	expect_be(r.data, 1, 1, 0x80, "class_version");
	expect_be(r.data, 2, 2, 0xFF01, "cap_mask");
	expect_be(r.data, 4, 4, 18, "cap_mask2_resp_time");
	expect_fill(r.data, 8, VEMA_DATA_LEN, 0, "rest of a fresh CPI");

	memset(&c, 0, sizeof(c));
	c.base_version = 0x01;
	c.class_version = 0x02;
	c.cap_mask = 0x1234;
	c.cap_mask2_resp_time = 0x5678;
	for (i = 0; i < 16; i++) {
		c.redirect_gid[i] = i + 1;
		c.trap_gid[i] = 0xF0 + i;
	}
	c.redirect_tc_fl = 0x11;
	c.redirect_lid = 0x22;
	c.redirect_sl_qp = 0x33;
	c.redirect_qkey = 0x44;
	c.trap_tc_fl = 0x55;
	c.trap_lid = TRAP_LID;
	c.trap_hl_qp = 0x66;
	c.trap_qkey = 0x77;
	c.trap_pkey = 0xFFFF;
	c.redirect_pkey = 0x8888;
	c.trap_sl_rsvd = TRAP_SL << 3;
	vema_cpi_encode(d, &c);
	assert_int_equal(do_req(a, VEMA_METHOD_SET, VEMA_ATTR_CLASS_PORT_INFO, 0, d, sizeof(d),
				&r), VEMA_STATUS_OK);
	memcpy(exp, d, sizeof(exp));
	exp[0] = 0x80;
	exp[1] = 0x80;
	exp[2] = 0xFF;
	exp[3] = 0x01;
	exp[4] = 0;
	exp[5] = 0;
	exp[6] = 0;
	exp[7] = 18;
	expect_bytes(r.data, 0, exp, sizeof(exp), "SET CPI reply");
	expect_fill(r.data, VEMA_CPI_LEN, VEMA_DATA_LEN, 0, "past CPI");
	assert_int_equal(do_req(a, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0, NULL, 0, &r),
			 VEMA_STATUS_OK);
	expect_bytes(r.data, 0, exp, sizeof(exp), "GET CPI after SET");
	vema_agent_cpi(a, &got);
	vema_cpi_encode(d, &got);
	assert_memory_equal(d, exp, sizeof(exp));

	/* refused: nothing stored */
	assert_int_equal(set_cpi(a, 0x1000000, 0, &r), VEMA_STATUS_INVALID);
	assert_int_equal(set_cpi(a, 0xFFFFFFFF, 0, &r), VEMA_STATUS_INVALID);
	assert_int_equal(set_cpi(a, 0x999, 0x01, &r), VEMA_STATUS_INVALID);
	assert_int_equal(set_cpi(a, 0x999, 0x04, &r), VEMA_STATUS_INVALID);
	assert_int_equal(set_cpi(a, 0x999, 0x5F, &r), VEMA_STATUS_INVALID);
	vema_agent_cpi(a, &got);
	vema_cpi_encode(d, &got);
	assert_memory_equal(d, exp, sizeof(exp));
	/* the largest LID and SL are accepted */
	assert_int_equal(set_cpi(a, 0xFFFFFF, 0xF8, &r), VEMA_STATUS_OK);
	vema_agent_cpi(a, &got);
	assert_int_equal(got.trap_lid, 0xFFFFFF);
	assert_int_equal(got.trap_sl_rsvd, 0xF8);
	assert_string_equal(vema_attr_name(VEMA_ATTR_CLASS_PORT_INFO), "ClassPortInfo");
	assert_string_equal(vema_attr_name(0x7777), "unknown");
	vema_agent_free(a);
}

/* --- 3. the EM flow --- */

/* GET/SET CPI, SET VESWPORT_INFO, 300 MAC entries in chunks of 125, GET
 * them back, counters at their offsets, DELETE_VESW resets the vport.
 */
static void
test_em_flow_end_to_end(void **state)
{
	struct vema_agent *a = agent_new();
	struct vnic_txq_stats txq[2];
	struct vnic_rxq_stats rxq[1];
	struct vnic_vesw_info v, vb;
	struct vnic_port_info p, pb;
	struct vema_class_port_info cpi;
	struct vema_mac_tbl_hdr th;
	struct vnic_mac_entry e;
	const struct vnic_policy *pol;
	struct vnic_vport *vp;
	uint8_t d[VEMA_DATA_LEN];
	struct reply r;
	unsigned int off, n, i;
	size_t len;

	(void)state;
	/* 1-2: ClassPortInfo */
	assert_int_equal(do_req(a, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0, NULL, 0, &r),
			 VEMA_STATUS_OK);
	expect_be(r.data, 60, 4, 0, "trap_lid before SET");
	assert_int_equal(set_cpi(a, TRAP_LID, TRAP_SL << 3, &r), VEMA_STATUS_OK);
	expect_be(r.data, 60, 4, TRAP_LID, "trap_lid");
	expect_be(r.data, 76, 1, TRAP_SL << 3, "trap_sl_rsvd");
	vema_agent_cpi(a, &cpi);
	assert_int_equal(cpi.trap_lid, TRAP_LID);

	/* 3: VESWPORT_INFO, FORWARDING */
	vport_cfg(&v, &p, 0x2AB, 3, VNIC_STATE_FORWARDING);
	assert_int_equal(set_vport(a, 3, &v, &p, &r), VEMA_STATUS_OK);
	vema_veswport_info_decode(r.data, &vb, &pb);
	assert_int_equal(vb.vesw_id, 0x2AB);
	assert_int_equal(pb.config_state, VNIC_STATE_FORWARDING);
	assert_int_equal(pb.oper_state, VNIC_STATE_DROP_ALL);
	vp = vema_agent_vport(a, 3);
	assert_non_null(vp);
	assert_int_equal(vema_agent_nb_vports(a), 1);

	/* 4: 300 MAC entries in chunks of 125; each reply is a GET of the range */
	for (off = 0; off < 300; off += n) {
		n = 300 - off < VEMA_MAC_ENTRIES_MAX ? 300 - off : VEMA_MAC_ENTRIES_MAX;
		len = mac_payload(d, off, n, 0xD1600000u + off, off);
		assert_int_equal(do_req(a, VEMA_METHOD_SET, VEMA_ATTR_MAC_ENTRIES, 3, d, len, &r),
				 VEMA_STATUS_OK);
		expect_bytes(r.data, 0, d, len, "SET MAC entries reply");
		expect_fill(r.data, len, VEMA_DATA_LEN, 0, "past the entries");
	}
	/* GET them back, in other chunks */
	for (off = 0; off < 400; off += n) {
		n = 100;
		memset(d, 0, sizeof(d));
		mac_payload(d, off, 0, 0, 0);
		d[3] = n;
		assert_int_equal(do_req(a, VEMA_METHOD_GET, VEMA_ATTR_MAC_ENTRIES, 3, d, 8, &r),
				 VEMA_STATUS_OK);
		vema_mac_tbl_hdr_decode(r.data, &th);
		assert_int_equal(th.offset, off);
		assert_int_equal(th.num_entries, n);
		assert_int_equal(th.digest, 0xD1600000u + 250);
		for (i = 0; i < n; i++) {
			uint8_t ent[16];

			if (off + i < 300) {
				mac_entry(off + i, &e);
				vema_mac_entry_encode(ent, &e);
			} else {
				memset(ent, 0, sizeof(ent));
			}
			expect_bytes(r.data, 8 + 16 * i, ent, 16, "MAC entry");
		}
	}
	pol = vnic_vport_policy(vp);
	assert_int_equal(pol->mac.nb_entries, 300);
	assert_int_equal(pol->port.mac_tbl_digest, 0xD1600000u + 250);
	mac_entry(1, &e);
	assert_int_equal(vnic_mac_tbl_lookup(&pol->mac, &e.mac), 0x1001);
	mac_entry(299, &e);
	assert_int_equal(vnic_mac_tbl_lookup(&pol->mac, &e.mac), 0x1000 + 299);
	assert_int_equal(do_req(a, VEMA_METHOD_GET, VEMA_ATTR_VESWPORT_INFO, 3, NULL, 0, &r),
			 VEMA_STATUS_OK);
	expect_be(r.data, 152 + 20, 4, 0xD1600000u + 250, "mac_tbl_digest");

	/* 5: counters, with per-queue counters attached */
	memset(txq, 0, sizeof(txq));
	memset(rxq, 0, sizeof(rxq));
	txq[0].packets = 100;
	txq[0].bytes = 6400;
	txq[0].grp = (struct vnic_grp_stats){ 60, 40, 70, 30, { 10, 11, 12, 13, 14, 15, 16 } };
	txq[0].dlid_zero = 3;
	txq[0].drop_state = 4;
	txq[0].fifo = 5;
	txq[0].carrier = 6;
	txq[1].packets = 1000;
	txq[1].bytes = 1000000;
	txq[1].grp = (struct vnic_grp_stats){ 900, 100, 500, 500,
					      { 100, 101, 102, 103, 104, 105, 106 } };
	txq[1].dlid_zero = 30;
	txq[1].drop_state = 40;
	txq[1].fifo = 50;
	txq[1].carrier = 60;
	rxq[0].packets = 7777;
	rxq[0].bytes = 0x123456789Aull;
	rxq[0].grp = (struct vnic_grp_stats){ 7000, 777, 7700, 77,
					      { 1, 1001, 2001, 3001, 4001, 5001, 6001 } };
	rxq[0].drop_state = 11;
	rxq[0].runt = 12;
	rxq[0].oversize = 13;
	rxq[0].fifo = 14;
	rxq[0].bad_veswid = 15;
	vnic_vport_attach_stats(vp, txq, 2, rxq, 1);

	assert_int_equal(do_req(a, VEMA_METHOD_GET, VEMA_ATTR_SUMMARY_COUNTERS, 3, NULL, 0, &r),
			 VEMA_STATUS_OK);
	expect_be(r.data, 0, 2, 3, "vp_instance");
	expect_be(r.data, 2, 2, 0x2AB, "vesw_id");
	expect_be(r.data, 4, 4, 0x1003, "veswport_num = port_num");
	expect_be(r.data, 8, 8, 198, "tx_errors");
	expect_be(r.data, 16, 8, 65, "rx_errors");
	expect_be(r.data, 24, 8, 1100, "tx_packets");
	expect_be(r.data, 32, 8, 7777, "rx_packets");
	expect_be(r.data, 40, 8, 1006400, "tx_bytes");
	expect_be(r.data, 48, 8, 0x123456789Aull, "rx_bytes");
	expect_be(r.data, 56, 8, 960, "tx_unicast");
	expect_be(r.data, 64, 8, 140, "tx_mcastbcast");
	expect_be(r.data, 72, 8, 570, "tx_untagged");
	expect_be(r.data, 80, 8, 530, "tx_vlan");
	for (i = 0; i < 7; i++)
		expect_be(r.data, 88 + 8 * i, 8, 110 + 2 * i, "tx size bucket");
	expect_be(r.data, 144, 8, 7000, "rx_unicast");
	expect_be(r.data, 152, 8, 777, "rx_mcastbcast");
	expect_be(r.data, 160, 8, 7700, "rx_untagged");
	expect_be(r.data, 168, 8, 77, "rx_vlan");
	for (i = 0; i < 7; i++)
		expect_be(r.data, 176 + 8 * i, 8, 1000 * i + 1, "rx size bucket");
	expect_fill(r.data, 232, VEMA_DATA_LEN, 0, "past the summary counters");

	assert_int_equal(do_req(a, VEMA_METHOD_GET, VEMA_ATTR_ERROR_COUNTERS, 3, NULL, 0, &r),
			 VEMA_STATUS_OK);
	expect_be(r.data, 0, 8, 0x000302AB00001003ull, "error counters header");
	expect_be(r.data, 8, 8, 198, "tx_errors");
	expect_be(r.data, 16, 8, 65, "rx_errors");
	expect_be(r.data, 24, 8, 0, "reserved 24");
	expect_be(r.data, 32, 8, 0, "tx_smac_filt");
	expect_be(r.data, 64, 8, 33, "tx_dlid_zero");
	expect_be(r.data, 80, 8, 121, "tx_logic");
	expect_be(r.data, 96, 8, 44, "tx_drop_state");
	expect_be(r.data, 104, 8, 15, "rx_bad_veswid");
	expect_be(r.data, 120, 8, 12, "rx_runt");
	expect_be(r.data, 128, 8, 13, "rx_oversize");
	expect_be(r.data, 144, 8, 0, "rx_eth_down");
	expect_be(r.data, 152, 8, 11, "rx_drop_state");
	expect_be(r.data, 160, 8, 14, "rx_logic");
	expect_fill(r.data, 168, VEMA_DATA_LEN, 0, "past the error counters");

	/* 6: DELETE_VESW resets to power-on and clears the MAC table */
	assert_int_equal(do_req(a, VEMA_METHOD_SET, VEMA_ATTR_DELETE_VESW, 3, NULL, 0, &r),
			 VEMA_STATUS_OK);
	assert_int_equal(vema_agent_nb_vports(a), 1);
	assert_ptr_equal(vema_agent_vport(a, 3), vp);
	assert_int_equal(do_req(a, VEMA_METHOD_GET, VEMA_ATTR_VESWPORT_INFO, 3, NULL, 0, &r),
			 VEMA_STATUS_OK);
	vema_veswport_info_decode(r.data, &vb, &pb);
	vnic_info_defaults(&v, &p);
	assert_memory_equal(&vb, &v, sizeof(v));
	assert_memory_equal(&pb, &p, sizeof(p));
	memset(d, 0, sizeof(d));
	d[3] = 125;
	assert_int_equal(do_req(a, VEMA_METHOD_GET, VEMA_ATTR_MAC_ENTRIES, 3, d, 8, &r),
			 VEMA_STATUS_OK);
	expect_be(r.data, 0, 8, 0x007D00000000ull, "MAC header after DELETE_VESW");
	expect_fill(r.data, 8, VEMA_DATA_LEN, 0, "MAC entries after DELETE_VESW");
	assert_int_equal(vnic_vport_policy(vp)->mac.nb_entries, 0);
	vema_agent_cpi(a, &cpi);
	assert_int_equal(cpi.trap_lid, TRAP_LID);

	vnic_vport_attach_stats(vp, NULL, 0, NULL, 0);
	vema_agent_free(a);
}

/* --- 4. rejected requests change nothing --- */

struct snap {
	unsigned int nb;
	struct vnic_policy *pol[VEMA_VPORTS_MAX];
	struct vema_class_port_info cpi;
};

static void
snap_take(const struct vema_agent *a, struct snap *s)
{
	unsigned int i;

	s->nb = vema_agent_nb_vports(a);
	for (i = 0; i < VEMA_VPORTS_MAX; i++) {
		struct vnic_vport *vp = vema_agent_vport(a, i);

		s->pol[i] = NULL;
		if (vp == NULL)
			continue;
		s->pol[i] = malloc(sizeof(*s->pol[i]));
		assert_non_null(s->pol[i]);
		memcpy(s->pol[i], vnic_vport_policy(vp), sizeof(*s->pol[i]));
	}
	memset(&s->cpi, 0, sizeof(s->cpi));
	vema_agent_cpi(a, &s->cpi);
}

static void
snap_check(const struct vema_agent *a, const struct snap *s, const char *what)
{
	struct vema_class_port_info cpi;
	unsigned int i;

	if (vema_agent_nb_vports(a) != s->nb)
		fail_msg("%s: vport count %u, was %u", what, vema_agent_nb_vports(a), s->nb);
	for (i = 0; i < VEMA_VPORTS_MAX; i++) {
		struct vnic_vport *vp = vema_agent_vport(a, i);

		if ((vp == NULL) != (s->pol[i] == NULL))
			fail_msg("%s: vport %u appeared or vanished", what, i);
		if (vp != NULL &&
		    memcmp(vnic_vport_policy(vp), s->pol[i], sizeof(*s->pol[i])) != 0)
			fail_msg("%s: vport %u policy changed", what, i);
	}
	memset(&cpi, 0, sizeof(cpi));
	vema_agent_cpi(a, &cpi);
	if (memcmp(&cpi, &s->cpi, sizeof(cpi)) != 0)
		fail_msg("%s: ClassPortInfo changed", what);
}

static void
snap_free(struct snap *s)
{
	unsigned int i;

	for (i = 0; i < VEMA_VPORTS_MAX; i++)
		free(s->pol[i]);
}

/* Valid state-changing requests, to be spoiled. */
static void
good_set_vport(struct req *q, uint32_t mod)
{
	struct vnic_vesw_info v;
	struct vnic_port_info p;

	vport_cfg(&v, &p, 0x321, mod & 0xFF, VNIC_STATE_DROP_ALL);
	v.eth_mtu = 4000;
	p.base_mac_addr.addr_bytes[1] = 0x99;
	req_init(q, VEMA_METHOD_SET, VEMA_ATTR_VESWPORT_INFO, mod);
	vema_veswport_info_encode(req_data(q), &v, &p);
}

static void
good_set_mac(struct req *q, uint32_t mod)
{
	req_init(q, VEMA_METHOD_SET, VEMA_ATTR_MAC_ENTRIES, mod);
	mac_payload(req_data(q), 10, 5, 0x5E75E7, 500);
}

static void
good_set_cpi(struct req *q, uint32_t mod)
{
	struct vema_class_port_info c;

	memset(&c, 0, sizeof(c));
	c.trap_lid = 0x999;
	c.trap_sl_rsvd = 3 << 3;
	req_init(q, VEMA_METHOD_SET, VEMA_ATTR_CLASS_PORT_INFO, mod);
	vema_cpi_encode(req_data(q), &c);
}

static void
good_delete(struct req *q, uint32_t mod)
{
	req_init(q, VEMA_METHOD_SET, VEMA_ATTR_DELETE_VESW, mod);
}

typedef void (*good_fn)(struct req *q, uint32_t mod);

/*
 * Rejected request number @p i (false past the last): a valid SET spoiled
 * one way. @p drop is set when it must be dropped rather than answered.
 */
static bool
rejected_req(unsigned int i, struct req *q, bool *drop)
{
	static const good_fn goods[] = { good_set_vport, good_set_mac, good_set_cpi,
					 good_delete };
	static const struct {
		size_t off;
		uint8_t v;
	} hdr_spoil[] = {
		/* drops */
		{ 0, 0x01 }, { 3, 0x82 }, { 3, 0x07 }, { 26, 0x01 },
		/* 0x000C / 0x0004 / 0x001C */
		{ 1, 0x35 }, { 39, 0x6B }, { 2, 0x81 }, { 3, 0x03 }, { 3, 0x05 },
		{ 5, 0x01 }, { 7, 0x01 }, { 19, 0x01 }, { 25, 0x01 }, { 26, 0x02 },
		{ 27, 0x01 }, { 31, 0x01 }, { 35, 0x01 }, { 36, 0x01 },
	};
	const unsigned int nh = sizeof(hdr_spoil) / sizeof(hdr_spoil[0]);
	struct vnic_vesw_info v;
	struct vnic_port_info p;

	*drop = false;
	/* every header spoil on every kind of SET */
	if (i < nh * 4) {
		goods[i % 4](q, 0);
		q->mad[hdr_spoil[i / 4].off] = hdr_spoil[i / 4].v;
		*drop = i / 4 < 4;
		return true;
	}
	i -= nh * 4;
	/* packet-level drops */
	if (i < 4 * 4) {
		goods[i % 4](q, 0);
		switch (i / 4) {
		case 0:
			q->bad_l4 = true;
			break;
		case 1:
			q->f.dest_qpn = 0;
			break;
		case 2:
			q->f.dlid = AGENT_LID + 1;
			break;
		default:
			q->cap = VEMA_PKT_MAX - 8;
			break;
		}
		*drop = true;
		return true;
	}
	i -= 4 * 4;
	/* reserved attr_mod bits, on a vport that exists and one that does not */
	if (i < 4 * 2) {
		goods[i % 4](q, i / 4 == 0 ? 0x100 : 0x102);
		return true;
	}
	i -= 4 * 2;
	/* invalid VESWPORT_INFO values, on vport 0 and on absent vport 2 */
	if (i < NB_BAD_CFGS * 2) {
		vport_cfg(&v, &p, 0x321, 0, VNIC_STATE_FORWARDING);
		bad_cfgs[i / 2].fn(&v, &p);
		req_init(q, VEMA_METHOD_SET, VEMA_ATTR_VESWPORT_INFO, i % 2 ? 2 : 0);
		vema_veswport_info_encode(req_data(q), &v, &p);
		return true;
	}
	i -= NB_BAD_CFGS * 2;
	switch (i) {
	case 0: /* MAD shorter than its header */
		good_set_vport(q, 0);
		q->mad_len = 32;
		*drop = true;
		return true;
	case 1: /* another class, another method */
		good_set_vport(q, 0);
		q->mad[1] = 0x04;
		q->mad[3] = 0x05;
		*drop = true;
		return true;
	case 2:
		good_set_mac(q, 2); /* absent vport */
		return true;
	case 3:
		good_delete(q, 2);
		return true;
	case 4:
		good_set_cpi(q, 1);
		return true;
	case 5:
		good_set_mac(q, 0);
		req_data(q)[3] = 126;
		return true;
	case 6:
		good_set_mac(q, 0);
		req_data(q)[0] = 2000 >> 8;
		req_data(q)[1] = 2000 & 0xFF;
		req_data(q)[3] = 49;
		return true;
	case 7:
		good_set_mac(q, 0);
		q->mad_len = VEMA_HDR_LEN + 8 + 4 * 16;
		return true;
	case 8:
		good_set_vport(q, 0);
		q->mad_len = VEMA_HDR_LEN + 272;
		return true;
	case 9:
		good_set_vport(q, 2);
		q->mad_len = VEMA_HDR_LEN + 272;
		return true;
	case 10:
		good_set_cpi(q, 0);
		req_data(q)[60] = 0x01; /* trap_lid bit 24 */
		return true;
	case 11:
		good_set_cpi(q, 0);
		req_data(q)[76] |= 0x04;
		return true;
	case 12:
		good_set_cpi(q, 0);
		q->mad_len = VEMA_HDR_LEN + 72;
		return true;
	case 13:
		good_set_vport(q, 0);
		q->mad[3] = VEMA_METHOD_GET;
		q->mad[17] = VEMA_ATTR_DELETE_VESW;
		return true;
	case 14:
		req_init(q, VEMA_METHOD_SET, VEMA_ATTR_SUMMARY_COUNTERS, 0);
		memset(req_data(q), 0xFF, VEMA_SUMMARY_LEN);
		return true;
	case 15:
		req_init(q, VEMA_METHOD_SET, VEMA_ATTR_IFACE_UCAST_MACS, 0);
		memset(req_data(q), 0x02, 64);
		return true;
	case 16:
		good_set_vport(q, 0);
		q->mad[17] = 0x19; /* unknown attribute */
		return true;
	default:
		return false;
	}
}

/* No rejected request (dropped or answered with an error) changes any
 * vport's policy, the vport count or the ClassPortInfo.
 */
static void
test_rejected_requests_leave_state_unchanged(void **state)
{
	struct vema_agent *a = agent_new();
	struct vnic_vport *vp;
	struct rte_ether_addr uc = { { 0x02, 0, 0, 0, 0, 0x55 } };
	uint8_t d[VEMA_DATA_LEN];
	struct snap s;
	struct req q;
	struct reply r;
	unsigned int i, n = 0;
	bool drop;
	int st;
	char what[64];

	(void)state;
	assert_int_equal(set_cpi(a, TRAP_LID, TRAP_SL << 3, &r), VEMA_STATUS_OK);
	vp = add_vport(a, 0, 0x10, VNIC_STATE_FORWARDING);
	assert_int_equal(vnic_vport_set_carrier(vp, true), 0);
	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_UCAST, &uc, 1), 1);
	add_vport(a, 1, 0x11, VNIC_STATE_FORWARDING);
	for (i = 0; i < 2; i++) {
		size_t len = mac_payload(d, 0, 20, 0xAB00 + i, 40 * i);

		assert_int_equal(do_req(a, VEMA_METHOD_SET, VEMA_ATTR_MAC_ENTRIES, i, d, len, &r),
				 VEMA_STATUS_OK);
	}
	snap_take(a, &s);
	for (i = 0; rejected_req(i, &q, &drop); i++) {
		snprintf(what, sizeof(what), "rejected request %u", i);
		st = req_send(a, &q, &r);
		if (drop && st != -1)
			fail_msg("%s: expected a drop, got status 0x%04x", what, st);
		if (!drop && st <= 0)
			fail_msg("%s: expected an error status, got %d", what, st);
		snap_check(a, &s, what);
		n++;
	}
	assert_true(n > 100);
	snap_free(&s);
	vema_agent_free(a);
}

/* --- 5. addressing --- */

/* Replies go from the agent's LID and QP 1 to the requester's LID and QP,
 * with the request's P_Key; error replies too.
 */
static void
test_reply_addressing(void **state)
{
	const uint32_t src_qpns[] = { 1, EM_QPN, OPA16B_QPN_MAX };
	struct vema_agent *a = agent_new();
	struct req q;
	struct reply r;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(src_qpns) / sizeof(src_qpns[0]); i++) {
		req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0);
		q.f.src_qpn = src_qpns[i];
		q.f.slid = EM_LID + i * 0x100000;
		q.f.pkey = EM_PKEY + i;
		if (i == 2)
			q.mad[1] = 0x35; /* an error reply */
		assert_true(req_send(a, &q, &r) >= 0);
		assert_int_equal(r.info.f.slid, AGENT_LID);
		assert_int_equal(r.info.f.dlid, EM_LID + i * 0x100000);
		assert_int_equal(r.info.f.dest_qpn, src_qpns[i]);
		assert_int_equal(r.info.f.src_qpn, OPA16B_QPN_GSI);
		assert_int_equal(r.info.f.pkey, EM_PKEY + i);
		assert_int_equal(opa16b_get_l4(r.pkt), OPA16B_L4_FM);
		assert_int_equal(opa16b_get_len(r.pkt) * 8, REPLY_LEN);
		expect_be(r.info.mad, 8, 8, next_tid - 1, "reply TID");
	}
	vema_agent_free(a);
}

/* --- 6. traps --- */

/* A trap packet: addressing (3.5) and Notice content; returns its TID. */
static uint64_t
check_trap(const uint8_t *pkt, size_t len, struct vnic_vport *vp, uint8_t opcode)
{
	const struct vnic_policy *p = vnic_vport_policy(vp);
	struct opa16b_fm_info info;
	struct vema_trap t;
	const uint8_t *m, *n;

	assert_int_equal(len, TRAP_PKT_LEN);
	assert_int_equal(opa16b_fm_parse(pkt, len, &info), OPA16B_FM_OK);
	assert_int_equal(info.f.slid, AGENT_LID);
	assert_int_equal(info.f.dlid, TRAP_LID);
	assert_int_equal(info.f.sc, TRAP_SL);
	assert_int_equal(info.f.pkey, MGMT_PKEY);
	assert_int_equal(info.f.dest_qpn, 1);
	assert_int_equal(info.f.src_qpn, 1);
	assert_int_equal(info.mad_len, 272);
	m = info.mad;
	expect_be(m, 0, 4, 0x80348005, "trap versions, class, method");
	expect_be(m, 4, 4, 0, "trap status, class_specific");
	expect_be(m, 16, 2, 0x0002, "trap attr_id");
	expect_be(m, 18, 6, 0, "trap resv, attr_mod");
	expect_fill(m, 24, 37, 0, "trap RMPP and reserved");
	expect_be(m, 37, 3, 0x00066A, "trap OUI");
	n = m + 40;
	expect_be(n, 0, 1, 0x08, "gen_type");
	expect_be(n, 1, 3, 0x00066A, "notice OUI");
	expect_be(n, 4, 4, 0, "trap_num, toggle_count");
	expect_be(n, 8, 4, p->port.encap_slid, "issuer_lid");
	expect_fill(n, 12, 32, 0, "issuer_gid");
	expect_be(n, 32, 2, p->vesw.fabric_id, "fabric_id");
	expect_be(n, 34, 2, p->vesw.vesw_id, "veswid");
	expect_be(n, 36, 4, p->port.port_num, "veswportnum");
	expect_be(n, 40, 2, AGENT_PORT, "opaportnum");
	expect_be(n, 42, 1, vnic_vport_index(vp), "veswportindex");
	expect_be(n, 43, 1, opcode, "opcode");
	expect_fill(n, 44, 232, 0, "rest of the trap data");
	assert_int_equal(vema_notice_decode(n, &t), 0);
	assert_int_equal(t.opcode, opcode);
	return be_at(m, 8, 8);
}

/* A trap agent: trap LID set, events of the setup drained. */
static struct vema_agent *
trap_agent(void)
{
	struct vema_agent *a = agent_new();
	struct reply r;

	assert_int_equal(set_cpi(a, TRAP_LID, TRAP_SL << 3, &r), VEMA_STATUS_OK);
	return a;
}

/* SET VESWPORT_INFO FORWARDING with carrier up brings the link up: one
 * ETH_LINK_STATUS_CHANGE trap; carrier loss sends another.
 */
static void
test_trap_link_change_on_forwarding(void **state)
{
	struct vema_agent *a = trap_agent();
	const struct vema_agent_stats *st = vema_agent_stats(a);
	uint8_t pkt[VEMA_PKT_MAX];
	struct vnic_vport *vp;
	struct reply r;
	uint64_t tid;
	size_t n;

	(void)state;
	vp = add_vport(a, 5, 0x55, VNIC_STATE_DROP_ALL);
	assert_int_equal(vnic_vport_set_carrier(vp, true), 0);
	assert_int_equal(vema_agent_poll(a, 1, pkt, sizeof(pkt)), 0); /* link still down */
	assert_int_equal(st->traps, 0);

	add_vport(a, 5, 0x55, VNIC_STATE_FORWARDING);
	assert_int_equal(do_req(a, VEMA_METHOD_GET, VEMA_ATTR_VESWPORT_INFO, 5, NULL, 0, &r),
			 VEMA_STATUS_OK);
	expect_be(r.data, 152 + 4, 1, VNIC_LINK_UP, "eth_link_status");
	expect_be(r.data, 152 + 15, 1, VNIC_STATE_FORWARDING, "oper_state");
	n = vema_agent_poll(a, 2, pkt, sizeof(pkt));
	tid = check_trap(pkt, n, vp, VEMA_TRAP_LINK_STATUS_CHANGE);
	assert_int_equal(vema_agent_poll(a, 3, pkt, sizeof(pkt)), 0);
	assert_int_equal(st->traps, 1);

	assert_int_equal(vnic_vport_set_carrier(vp, false), 0);
	n = vema_agent_poll(a, 4, pkt, sizeof(pkt));
	assert_int_equal(check_trap(pkt, n, vp, VEMA_TRAP_LINK_STATUS_CHANGE), tid + 1);
	assert_int_equal(vema_agent_poll(a, 5, pkt, sizeof(pkt)), 0);
	assert_int_equal(st->traps, 2);
	vema_agent_free(a);
}

/* Interface list changes send UCAST/MCAST_MAC_CHANGE traps with increasing
 * TIDs; setting an unchanged list sends nothing.
 */
static void
test_trap_mac_change_after_iface_macs(void **state)
{
	struct vema_agent *a = trap_agent();
	struct rte_ether_addr uc[2] = { { { 0x02, 1, 2, 3, 4, 5 } }, { { 0x02, 1, 2, 3, 4, 6 } } };
	struct rte_ether_addr mc = { { 0x01, 0x00, 0x5E, 0, 0, 1 } };
	uint8_t pkt[VEMA_PKT_MAX];
	struct vnic_vport *vp;
	uint64_t tid;
	size_t n;

	(void)state;
	vp = add_vport(a, 1, 0x77, VNIC_STATE_FORWARDING);
	assert_int_equal(vema_agent_poll(a, 1, pkt, sizeof(pkt)), 0);

	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_UCAST, uc, 2), 1);
	n = vema_agent_poll(a, 2, pkt, sizeof(pkt));
	tid = check_trap(pkt, n, vp, VEMA_TRAP_UCAST_MAC_CHANGE);
	assert_int_equal(vema_agent_poll(a, 2, pkt, sizeof(pkt)), 0);

	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_MCAST, &mc, 1), 1);
	n = vema_agent_poll(a, 3, pkt, sizeof(pkt));
	assert_int_equal(check_trap(pkt, n, vp, VEMA_TRAP_MCAST_MAC_CHANGE), tid + 1);

	/* unchanged lists: no event, no trap */
	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_UCAST, uc, 2), 0);
	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_MCAST, &mc, 1), 0);
	assert_int_equal(vema_agent_poll(a, 4, pkt, sizeof(pkt)), 0);

	/* both lists at once: two traps, unicast first */
	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_MCAST, NULL, 0), 1);
	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_UCAST, uc, 1), 1);
	n = vema_agent_poll(a, 5, pkt, sizeof(pkt));
	assert_int_equal(check_trap(pkt, n, vp, VEMA_TRAP_UCAST_MAC_CHANGE), tid + 2);
	n = vema_agent_poll(a, 5, pkt, sizeof(pkt));
	assert_int_equal(check_trap(pkt, n, vp, VEMA_TRAP_MCAST_MAC_CHANGE), tid + 3);
	assert_int_equal(vema_agent_poll(a, 5, pkt, sizeof(pkt)), 0);
	assert_int_equal(vema_agent_stats(a)->traps, 4);
	vema_agent_free(a);
}

/* Without a trap LID nothing is sent and events are counted in
 * traps_no_lid (not kept for later); once set, new events are sent.
 */
static void
test_trap_none_without_trap_lid(void **state)
{
	struct vema_agent *a = agent_new();
	const struct vema_agent_stats *st = vema_agent_stats(a);
	struct rte_ether_addr uc = { { 0x02, 1, 2, 3, 4, 5 } };
	uint8_t pkt[VEMA_PKT_MAX];
	struct vnic_vport *vp;
	struct reply r;
	size_t n;

	(void)state;
	vp = add_vport(a, 0, 0x10, VNIC_STATE_FORWARDING);
	assert_int_equal(vnic_vport_set_carrier(vp, true), 0);
	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_UCAST, &uc, 1), 1);
	assert_int_equal(vema_agent_poll(a, 1, pkt, sizeof(pkt)), 0);
	assert_int_equal(st->traps, 0);
	assert_int_equal(st->traps_no_lid, 2);

	assert_int_equal(set_cpi(a, TRAP_LID, TRAP_SL << 3, &r), VEMA_STATUS_OK);
	assert_int_equal(vema_agent_poll(a, 2, pkt, sizeof(pkt)), 0);
	assert_int_equal(st->traps, 0);

	assert_int_equal(vnic_vport_set_carrier(vp, false), 0);
	n = vema_agent_poll(a, 3, pkt, sizeof(pkt));
	check_trap(pkt, n, vp, VEMA_TRAP_LINK_STATUS_CHANGE);
	assert_int_equal(st->traps, 1);
	assert_int_equal(st->traps_no_lid, 2);
	vema_agent_free(a);
}

/* At most 4 traps per window and vport (as Linux): 6 link changes on one
 * vport give 4 traps now and the other 2 once now_ns has advanced by
 * VEMA_TRAP_WINDOW_NS, none lost, TIDs in order; a second vport's traps are
 * not held back by the first one's full window.
 */
static void
test_trap_rate_limit_defers_not_loses(void **state)
{
	struct vema_agent *a = trap_agent();
	const struct vema_agent_stats *st = vema_agent_stats(a);
	const uint64_t t0 = 1000000;
	uint8_t pkt[VEMA_PKT_MAX];
	struct vnic_vport *vp[2];
	uint64_t tid = 0, t;
	unsigned int k;
	size_t n;

	(void)state;
	vp[0] = add_vport(a, 0, 0x10, VNIC_STATE_FORWARDING);
	vp[1] = add_vport(a, 1, 0x11, VNIC_STATE_FORWARDING);
	assert_int_equal(drain_traps(a, 0), 0);
	/* four link changes on vport 0, each sent at once */
	for (k = 0; k < 4; k++) {
		assert_int_equal(vnic_vport_set_carrier(vp[0], k % 2 == 0), 0);
		n = vema_agent_poll(a, t0, pkt, sizeof(pkt));
		t = check_trap(pkt, n, vp[0], VEMA_TRAP_LINK_STATUS_CHANGE);
		if (k > 0)
			assert_int_equal(t, tid + 1);
		tid = t;
	}
	/* the fifth and sixth wait for the next window... */
	assert_int_equal(vnic_vport_set_carrier(vp[0], true), 0);
	assert_int_equal(vnic_vport_set_iface_macs(vp[0], VNIC_LIST_UCAST,
						   &vnic_vport_policy(vp[1])->port.base_mac_addr, 1),
			 1);
	assert_int_equal(vema_agent_poll(a, t0, pkt, sizeof(pkt)), 0);
	assert_int_equal(vema_agent_poll(a, t0 + VEMA_TRAP_WINDOW_NS - 1, pkt, sizeof(pkt)), 0);
	assert_int_equal(st->traps, 4);
	assert_true(st->traps_deferred >= 2);
	/* ...while vport 1 still sends in this window */
	assert_int_equal(vnic_vport_set_carrier(vp[1], true), 0);
	n = vema_agent_poll(a, t0 + 1, pkt, sizeof(pkt));
	tid = check_trap(pkt, n, vp[1], VEMA_TRAP_LINK_STATUS_CHANGE);
	/* next window: both held traps, unicast MAC change first */
	n = vema_agent_poll(a, t0 + VEMA_TRAP_WINDOW_NS, pkt, sizeof(pkt));
	assert_int_equal(check_trap(pkt, n, vp[0], VEMA_TRAP_UCAST_MAC_CHANGE), tid + 1);
	n = vema_agent_poll(a, t0 + VEMA_TRAP_WINDOW_NS, pkt, sizeof(pkt));
	assert_int_equal(check_trap(pkt, n, vp[0], VEMA_TRAP_LINK_STATUS_CHANGE), tid + 2);
	assert_int_equal(vema_agent_poll(a, t0 + VEMA_TRAP_WINDOW_NS, pkt, sizeof(pkt)), 0);
	assert_int_equal(st->traps, 7);
	assert_int_equal(st->traps_no_lid, 0);
	vema_agent_free(a);
}

/* The unicast interface list leaves out the EM's base MAC of the moment:
 * when the EM changes the base MAC, the old one shows and the new one hides.
 */
static void
test_iface_list_hides_current_base_mac(void **state)
{
	struct vema_agent *a = agent_new();
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct rte_ether_addr macs[3];
	struct vema_iface_hdr ih;
	uint8_t req[VEMA_IFACE_HDR_LEN];
	struct reply r;
	struct vnic_vport *vp;

	(void)state;
	vport_cfg(&v, &p, 0x30, 2, VNIC_STATE_FORWARDING);
	assert_int_equal(set_vport(a, 2, &v, &p, &r), VEMA_STATUS_OK);
	vp = vema_agent_vport(a, 2);
	macs[0] = p.base_mac_addr;
	macs[1] = (struct rte_ether_addr){ { 0x02, 0, 0, 0, 0xAA, 1 } };
	macs[2] = (struct rte_ether_addr){ { 0x02, 0, 0, 0, 0xAA, 2 } };
	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_UCAST, macs, 3), 1);
	memset(&ih, 0, sizeof(ih));
	vema_iface_hdr_encode(req, &ih);
	assert_int_equal(do_req(a, VEMA_METHOD_GET, VEMA_ATTR_IFACE_UCAST_MACS, 2, req,
				sizeof(req), &r), VEMA_STATUS_OK);
	vema_iface_hdr_decode(r.data, &ih);
	assert_int_equal(ih.tot_macs_in_lst, 2);
	assert_int_equal(ih.num_macs_in_msg, 2);
	assert_memory_equal(r.data + 8, macs[1].addr_bytes, 6);
	assert_memory_equal(r.data + 14, macs[2].addr_bytes, 6);
	/* the EM moves the base MAC to macs[1] */
	p.base_mac_addr = macs[1];
	assert_int_equal(set_vport(a, 2, &v, &p, &r), VEMA_STATUS_OK);
	memset(&ih, 0, sizeof(ih));
	vema_iface_hdr_encode(req, &ih);
	assert_int_equal(do_req(a, VEMA_METHOD_GET, VEMA_ATTR_IFACE_UCAST_MACS, 2, req,
				sizeof(req), &r), VEMA_STATUS_OK);
	vema_iface_hdr_decode(r.data, &ih);
	assert_int_equal(ih.tot_macs_in_lst, 2);
	assert_memory_equal(r.data + 8, macs[0].addr_bytes, 6);
	assert_memory_equal(r.data + 14, macs[2].addr_bytes, 6);
	vema_agent_free(a);
}

/* DELETE_VESW answers, as Linux does, with the resulting VESWPORT_INFO:
 * the power-on values, and the vport stays.
 */
static void
test_delete_vesw_replies_with_defaults(void **state)
{
	struct vema_agent *a = agent_new();
	uint8_t want[VEMA_VESWPORT_INFO_LEN];
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct reply r;

	(void)state;
	(void)add_vport(a, 4, 0x44, VNIC_STATE_FORWARDING);
	assert_int_equal(do_req(a, VEMA_METHOD_SET, VEMA_ATTR_DELETE_VESW, 4, NULL, 0, &r),
			 VEMA_STATUS_OK);
	vnic_info_defaults(&v, &p);
	vema_veswport_info_encode(want, &v, &p);
	assert_memory_equal(r.data, want, sizeof(want));
	expect_fill(r.data, VEMA_VESWPORT_INFO_LEN, VEMA_DATA_LEN, 0, "after VESWPORT_INFO");
	assert_non_null(vema_agent_vport(a, 4));
	vema_agent_free(a);
}

/* An agent without a LID of its own (lid 0) takes any DLID, answers from the
 * LID it was asked as, and sends no traps (counted as traps_no_lid).
 */
static void
test_lid0_agent_answers_as_asked_no_traps(void **state)
{
	struct vema_agent_conf conf = { .lid = 0, .port_num = AGENT_PORT };
	struct vema_agent *a = vema_agent_create(&conf);
	uint8_t pkt[VEMA_PKT_MAX];
	struct vnic_vport *vp;
	struct reply r;
	struct req q;

	(void)state;
	assert_non_null(a);
	assert_int_equal(set_cpi(a, TRAP_LID, TRAP_SL << 3, &r), VEMA_STATUS_OK);
	assert_int_equal(r.info.f.slid, AGENT_LID);
	req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0);
	q.f.dlid = 0x123456;
	assert_int_equal(req_send(a, &q, &r), VEMA_STATUS_OK);
	assert_int_equal(r.info.f.slid, 0x123456);
	vp = add_vport(a, 0, 0x10, VNIC_STATE_FORWARDING);
	assert_int_equal(vnic_vport_set_carrier(vp, true), 0);
	assert_int_equal(vema_agent_poll(a, 1, pkt, sizeof(pkt)), 0);
	assert_int_equal(vema_agent_stats(a)->traps, 0);
	assert_int_equal(vema_agent_stats(a)->traps_no_lid, 1);
	vema_agent_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drop_invalid_fm_packet),
		cmocka_unit_test(test_drop_wrong_destination),
		cmocka_unit_test(test_drop_mad_shorter_than_header),
		cmocka_unit_test(test_drop_base_version),
		cmocka_unit_test(test_drop_responses_and_trap_repress),
		cmocka_unit_test(test_drop_other_class_other_method),
		cmocka_unit_test(test_drop_rmpp_active),
		cmocka_unit_test(test_drop_no_room),
		cmocka_unit_test(test_status_other_class_or_oui_unsupported),
		cmocka_unit_test(test_status_bad_class_version),
		cmocka_unit_test(test_status_other_methods_unsupported),
		cmocka_unit_test(test_status_reserved_header_fields_invalid),
		cmocka_unit_test(test_status_attr_method_not_allowed),
		cmocka_unit_test(test_status_attr_mod_reserved_bits_invalid),
		cmocka_unit_test(test_status_absent_vport_invalid),
		cmocka_unit_test(test_get_absent_vport_info_returns_defaults),
		cmocka_unit_test(test_set_vport_info_creates_vport_and_returns_get),
		cmocka_unit_test(test_status_invalid_vport_info_values),
		cmocka_unit_test(test_status_mac_entries_range_invalid),
		cmocka_unit_test(test_status_set_too_short_invalid),
		cmocka_unit_test(test_status_iface_list_bounds),
		cmocka_unit_test(test_cpi_get_overrides_and_set_stores),
		cmocka_unit_test(test_em_flow_end_to_end),
		cmocka_unit_test(test_rejected_requests_leave_state_unchanged),
		cmocka_unit_test(test_reply_addressing),
		cmocka_unit_test(test_trap_link_change_on_forwarding),
		cmocka_unit_test(test_trap_mac_change_after_iface_macs),
		cmocka_unit_test(test_trap_none_without_trap_lid),
		cmocka_unit_test(test_trap_rate_limit_defers_not_loses),
		cmocka_unit_test(test_iface_list_hides_current_base_mac),
		cmocka_unit_test(test_delete_vesw_replies_with_defaults),
		cmocka_unit_test(test_lid0_agent_answers_as_asked_no_traps),
	};

	return cmocka_run_group_tests_name("vema", tests, NULL, NULL);
}
