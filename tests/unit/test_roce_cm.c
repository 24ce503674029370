/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * lib/roce's connection manager (roce_cm.h) without EAL or a wire:
 * - every CM message encoded against bytes worked out by hand from IBA
 *   vol. 1 tables 106-113 (as Linux include/rdma/ibta_vol1_c12.h places
 *   them: byte offset after the 24-byte MAD header, bits from the MSB), the
 *   RDMA CM header (Linux cma.c struct cma_hdr) and the IP service IDs
 *   (rdma-core rdma_cma.h), and decoded back;
 * - two CMs, A (active) and B (passive, listening), joined by outboxes the
 *   test carries across, a fake clock and recorded QP transitions: the
 *   handshake, disconnect and time wait, every message in every state
 *   (a table), retries and timeouts, MRA, duplicate REQ/REP, stale
 *   connections, REQs nobody listens to, malformed MADs.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "roce_cm.h"
#include "test_case.h"

/* ---------------- encodings ---------------- */

static void
test_hdr_bytes(void **state)
{
	uint8_t mad[ROCE_CM_MAD_LEN];
	static const uint8_t want[24] = {
		0x01, 0x07, 0x02, 0x03, 0x00, 0x00, 0x00, 0x00,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	struct omni_mad_hdr h;
	unsigned int i;

	(void)state;
	memset(mad, 0xa5, sizeof(mad));
	roce_cm_hdr_init(mad, ROCE_CM_ATTR_REQ, 0x0102030405060708ull);
	assert_memory_equal(mad, want, sizeof(want));
	for (i = 24; i < ROCE_CM_MAD_LEN; i++)
		assert_int_equal(mad[i], 0);
	omni_mad_hdr_decode(mad, &h);
	assert_int_equal(h.base_version, 1);
	assert_int_equal(h.mgmt_class, 7);
	assert_int_equal(h.class_version, 2);
	assert_int_equal(h.method, 3);
	assert_int_equal(h.attr_id, 0x10);
	assert_true(h.tid == 0x0102030405060708ull);
}

static void
fill_gid(uint8_t *g, uint8_t base)
{
	unsigned int i;

	for (i = 0; i < 16; i++)
		g[i] = (uint8_t)(base + i);
}

static void
test_req_bytes(void **state)
{
	uint8_t mad[ROCE_CM_MAD_LEN], again[ROCE_CM_MAD_LEN] = { 0 };
	struct roce_cm_req r, d;
	unsigned int i;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.local_comm_id = 0x11223344;
	r.service_id = 0x0000000001061d2full;
	r.local_ca_guid = 0xa1a2a3a4a5a6a7a8ull;
	r.local_qkey = 0x80010000;
	r.local_qpn = 0xabcdef;
	r.responder_resources = 0x12;
	r.local_eecn = 0x345678;
	r.initiator_depth = 0x9a;
	r.remote_eecn = 0x010203;
	r.remote_cm_response_timeout = 0x14;
	r.transport = ROCE_CM_TRANSPORT_UC;
	r.e2e_flow_control = 1;
	r.starting_psn = 0xfedcba;
	r.local_cm_response_timeout = 0x11;
	r.retry_count = 5;
	r.pkey = 0xffff;
	r.path_mtu = 5;
	r.rdc_exists = 0;
	r.rnr_retry_count = 6;
	r.max_cm_retries = 15;
	r.srq = 1;
	r.ext_transport = 0;
	r.primary.local_lid = 0xffff;
	r.primary.remote_lid = 0xfffe;
	fill_gid(r.primary.local_gid, 0x20);
	fill_gid(r.primary.remote_gid, 0x40);
	r.primary.flow_label = 0x12345;
	r.primary.packet_rate = 0x2a;
	r.primary.traffic_class = 0x60;
	r.primary.hop_limit = 64;
	r.primary.sl = 3;
	r.primary.subnet_local = 1;
	r.primary.local_ack_timeout = 0x0e;
	for (i = 0; i < ROCE_CM_REQ_PDATA; i++)
		r.private_data[i] = (uint8_t)(0x80 + i);
	roce_cm_hdr_init(mad, ROCE_CM_ATTR_REQ, 1);
	roce_cm_req_encode(mad, &r);

	/* table 106, + 24 for the header */
	static const uint8_t w24[] = { 0x11, 0x22, 0x33, 0x44, 0, 0, 0, 0,
		0x00, 0x00, 0x00, 0x00, 0x01, 0x06, 0x1d, 0x2f,
		0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8,
		0, 0, 0, 0, 0x80, 0x01, 0x00, 0x00,
		0xab, 0xcd, 0xef, 0x12, 0x34, 0x56, 0x78, 0x9a,
		0x01, 0x02, 0x03, (0x14 << 3) | (1 << 1) | 1,
		0xfe, 0xdc, 0xba, (0x11 << 3) | 5,
		0xff, 0xff, (5 << 4) | 6, (15 << 4) | (1 << 3),
		0xff, 0xff, 0xff, 0xfe };
	assert_memory_equal(mad + 24, w24, sizeof(w24));
	for (i = 0; i < 16; i++) {
		assert_int_equal(mad[80 + i], 0x20 + i);
		assert_int_equal(mad[96 + i], 0x40 + i);
	}
	/* flow label 20 bits, 6 reserved, packet rate 6 */
	static const uint8_t w112[] = { 0x12, 0x34, 0x50, 0x2a, 0x60, 64, (3 << 4) | (1 << 3),
		0x0e << 3 };
	assert_memory_equal(mad + 112, w112, sizeof(w112));
	/* no alternate path: all zero */
	for (i = 120; i < 164; i++)
		assert_int_equal(mad[i], 0);
	for (i = 0; i < ROCE_CM_REQ_PDATA; i++)
		assert_int_equal(mad[164 + i], 0x80 + i);

	roce_cm_req_decode(mad, &d);
	roce_cm_req_encode(again, &d);
	assert_memory_equal(again + 24, mad + 24, ROCE_CM_MAD_LEN - 24);
	assert_true(d.service_id == r.service_id && d.local_qpn == r.local_qpn);
	assert_true(d.primary.flow_label == 0x12345 && d.primary.packet_rate == 0x2a);
	assert_true(d.max_cm_retries == 15 && d.srq == 1 && d.rnr_retry_count == 6);
}

static void
test_mra_rej_bytes(void **state)
{
	uint8_t mad[ROCE_CM_MAD_LEN], again[ROCE_CM_MAD_LEN] = { 0 };
	struct roce_cm_mra m = { .local_comm_id = 0x01020304, .remote_comm_id = 0x05060708,
				 .msg_mraed = ROCE_CM_MSG_REP, .service_timeout = 0x1f };
	struct roce_cm_rej j = { .local_comm_id = 0x0a0b0c0d, .remote_comm_id = 0x0e0f1011,
				 .msg_rejected = ROCE_CM_MSG_OTHER, .ari_length = 8,
				 .reason = ROCE_CM_REJ_INVALID_SERVICE_ID };
	struct roce_cm_mra md;
	struct roce_cm_rej jd;

	(void)state;
	m.private_data[0] = 0xaa;
	m.private_data[ROCE_CM_MRA_PDATA - 1] = 0xbb;
	roce_cm_hdr_init(mad, ROCE_CM_ATTR_MRA, 2);
	roce_cm_mra_encode(mad, &m);
	static const uint8_t wm[] = { 1, 2, 3, 4, 5, 6, 7, 8, 1 << 6, 0x1f << 3, 0xaa };
	assert_memory_equal(mad + 24, wm, sizeof(wm));
	assert_int_equal(mad[255], 0xbb);
	roce_cm_mra_decode(mad, &md);
	roce_cm_mra_encode(again, &md);
	assert_memory_equal(again + 24, mad + 24, ROCE_CM_MAD_LEN - 24);
	assert_true(md.msg_mraed == ROCE_CM_MSG_REP && md.service_timeout == 0x1f);

	j.ari[0] = 0x51;
	j.ari[71] = 0x52;
	j.private_data[0] = 0x53;
	j.private_data[147] = 0x54;
	roce_cm_hdr_init(mad, ROCE_CM_ATTR_REJ, 3);
	roce_cm_rej_encode(mad, &j);
	static const uint8_t wj[] = { 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11,
		2 << 6, 8 << 1, 0x00, 0x08, 0x51 };
	assert_memory_equal(mad + 24, wj, sizeof(wj));
	assert_int_equal(mad[36 + 71], 0x52);
	assert_int_equal(mad[108], 0x53);
	assert_int_equal(mad[255], 0x54);
	roce_cm_rej_decode(mad, &jd);
	roce_cm_rej_encode(again, &jd);
	assert_memory_equal(again + 24, mad + 24, ROCE_CM_MAD_LEN - 24);
	assert_true(jd.reason == 8 && jd.ari_length == 8 && jd.msg_rejected == 2);
}

static void
test_rep_rtu_dreq_bytes(void **state)
{
	uint8_t mad[ROCE_CM_MAD_LEN], again[ROCE_CM_MAD_LEN] = { 0 };
	struct roce_cm_rep p = {
		.local_comm_id = 0x01020304, .remote_comm_id = 0x05060708, .local_qkey = 0x1234,
		.local_qpn = 0x000011, .local_eecn = 0x222222, .starting_psn = 0x333333,
		.responder_resources = 4, .initiator_depth = 5, .target_ack_delay = 0x10,
		.failover_accepted = 1, .e2e_flow_control = 1, .rnr_retry_count = 7, .srq = 1,
		.local_ca_guid = 0x1112131415161718ull,
	};
	struct roce_cm_rtu u = { .local_comm_id = 0xdeadbeef, .remote_comm_id = 0xcafef00d };
	struct roce_cm_dreq q = { .local_comm_id = 0x0badf00d, .remote_comm_id = 0x00c0ffee,
				  .remote_qpn = 0x000022 };
	struct roce_cm_rep pd;
	struct roce_cm_rtu ud;
	struct roce_cm_dreq qd;

	(void)state;
	p.private_data[0] = 0x61;
	p.private_data[195] = 0x62;
	roce_cm_hdr_init(mad, ROCE_CM_ATTR_REP, 4);
	roce_cm_rep_encode(mad, &p);
	/* table 110 */
	static const uint8_t wp[] = { 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0x12, 0x34,
		0x00, 0x00, 0x11, 0x00, 0x22, 0x22, 0x22, 0x00, 0x33, 0x33, 0x33, 0x00,
		4, 5, (0x10 << 3) | (1 << 1) | 1, (7 << 5) | (1 << 4),
		0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x61 };
	assert_memory_equal(mad + 24, wp, sizeof(wp));
	assert_int_equal(mad[255], 0x62);
	roce_cm_rep_decode(mad, &pd);
	roce_cm_rep_encode(again, &pd);
	assert_memory_equal(again + 24, mad + 24, ROCE_CM_MAD_LEN - 24);
	assert_true(pd.local_qpn == 0x11 && pd.starting_psn == 0x333333 &&
		    pd.target_ack_delay == 0x10 && pd.failover_accepted == 1 &&
		    pd.rnr_retry_count == 7 && pd.local_ca_guid == 0x1112131415161718ull);

	u.private_data[0] = 0x71;
	roce_cm_hdr_init(mad, ROCE_CM_ATTR_RTU, 5);
	roce_cm_rtu_encode(mad, &u);
	static const uint8_t wu[] = { 0xde, 0xad, 0xbe, 0xef, 0xca, 0xfe, 0xf0, 0x0d, 0x71 };
	assert_memory_equal(mad + 24, wu, sizeof(wu));
	assert_int_equal(mad[17], ROCE_CM_ATTR_RTU);
	roce_cm_rtu_decode(mad, &ud);
	roce_cm_rtu_encode(again, &ud);
	assert_memory_equal(again + 24, mad + 24, ROCE_CM_MAD_LEN - 24);
	assert_true(ud.local_comm_id == 0xdeadbeef && ud.remote_comm_id == 0xcafef00d);
	/* DREP: the same layout, attribute 0x16 */
	roce_cm_hdr_init(mad, ROCE_CM_ATTR_DREP, 6);
	roce_cm_drep_encode(mad, &u);
	assert_memory_equal(mad + 24, wu, sizeof(wu));
	assert_int_equal(mad[17], 0x16);

	q.private_data[219] = 0x81;
	roce_cm_hdr_init(mad, ROCE_CM_ATTR_DREQ, 7);
	roce_cm_dreq_encode(mad, &q);
	static const uint8_t wq[] = { 0x0b, 0xad, 0xf0, 0x0d, 0x00, 0xc0, 0xff, 0xee,
		0x00, 0x00, 0x22, 0x00, 0x00 };
	assert_memory_equal(mad + 24, wq, sizeof(wq));
	assert_int_equal(mad[255], 0x81);
	roce_cm_dreq_decode(mad, &qd);
	roce_cm_dreq_encode(again, &qd);
	assert_memory_equal(again + 24, mad + 24, ROCE_CM_MAD_LEN - 24);
	assert_true(qd.remote_qpn == 0x22 && qd.local_comm_id == 0x0badf00d);
}

static void
test_ip_hdr_and_service_ids(void **state)
{
	uint8_t b[ROCE_CM_IP_HDR_LEN + 4];
	struct roce_cm_ip_hdr h = { .ip_version = 4, .src_port = 0xc001 };
	struct roce_cm_ip_hdr d;
	static const uint8_t w4[] = { 0x00, 0x40, 0xc0, 0x01,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 1,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 2 };

	(void)state;
	/* ::ffff:10.0.0.1 -> ::ffff:10.0.0.2 */
	h.src_addr[10] = h.src_addr[11] = 0xff;
	h.src_addr[12] = 10;
	h.src_addr[15] = 1;
	h.dst_addr[10] = h.dst_addr[11] = 0xff;
	h.dst_addr[12] = 10;
	h.dst_addr[15] = 2;
	assert_int_equal(roce_cm_ip_hdr_encode(b, &h), 0);
	assert_memory_equal(b, w4, sizeof(w4));
	assert_int_equal(roce_cm_ip_hdr_decode(b, ROCE_CM_IP_HDR_LEN, &d), 0);
	assert_memory_equal(&d, &h, sizeof(h));

	h.ip_version = 6;
	fill_gid(h.src_addr, 0xfe);
	fill_gid(h.dst_addr, 0x10);
	assert_int_equal(roce_cm_ip_hdr_encode(b, &h), 0);
	assert_int_equal(b[1], 0x60);
	assert_memory_equal(b + 4, h.src_addr, 16);
	assert_memory_equal(b + 20, h.dst_addr, 16);
	assert_int_equal(roce_cm_ip_hdr_decode(b, ROCE_CM_IP_HDR_LEN, &d), 0);
	assert_memory_equal(&d, &h, sizeof(h));

	/* refused: short, version 1, IP version 5; and encoding IP version 0 */
	assert_int_equal(roce_cm_ip_hdr_decode(b, ROCE_CM_IP_HDR_LEN - 1, &d), -EINVAL);
	b[0] = 1;
	assert_int_equal(roce_cm_ip_hdr_decode(b, ROCE_CM_IP_HDR_LEN, &d), -EINVAL);
	b[0] = 0;
	b[1] = 0x50;
	assert_int_equal(roce_cm_ip_hdr_decode(b, ROCE_CM_IP_HDR_LEN, &d), -EINVAL);
	h.ip_version = 0;
	assert_int_equal(roce_cm_ip_hdr_encode(b, &h), -EINVAL);

	/* rping's default port 7174 in the TCP port space */
	assert_true(roce_cm_ip_service_id(ROCE_CM_PS_TCP, 7174) == 0x0000000001061c06ull);
	assert_true(roce_cm_ip_service_id(ROCE_CM_PS_UDP, 1) == 0x0000000001110001ull);
	assert_true(roce_cm_service_is_ip(0x0000000001061c06ull));
	assert_true(roce_cm_service_is_ip(0x000000000111ffffull));
	assert_false(roce_cm_service_is_ip(0x00000000013f0001ull));
	assert_false(roce_cm_service_is_ip(0x1000000001061c06ull));
	assert_true(roce_cm_time_ns(0) == 4096 && roce_cm_time_ns(20) == 4096ull << 20);
}

/* ---------------- two CMs on a test-carried wire ---------------- */

#define SID 0x0000000001061c06ull /* TCP port 7174 */
#define A_QPN 0x11
#define B_QPN 0x22
#define A_GUID 0xa000000000000001ull
#define B_GUID 0xb000000000000002ull
#define MAXQ 32

enum req_action { ACT_NONE, ACT_ACCEPT, ACT_MRA, ACT_REFUSE };

struct out {
	struct roce_cm_addr to;
	uint8_t mad[ROCE_CM_MAD_LEN];
};

struct ev {
	enum roce_cm_event_type type;
	struct roce_cm_conn *conn;
	int status;
	bool final;
	uint16_t reason;
	bool had_ip;
	enum roce_cm_state state_in_cb;
};

struct mod {
	uint32_t qpn;
	struct roce_qp_attr a;
	uint32_t mask;
	enum roce_cm_state state_in_cb;
};

struct side {
	const char *name;
	struct roce_cm *cm;
	uint8_t gid[16];
	uint64_t guid;
	uint32_t qpn;
	struct out out[MAXQ];
	unsigned int nout;
	struct ev ev[MAXQ];
	unsigned int nev;
	struct mod mod[MAXQ];
	unsigned int nmod;
	int fail_state;          /* qp_modify fails entering this state; -1: never */
	enum req_action action;
	struct roce_cm_conn *conn; /* the last connection it made or was given */
};

static struct side A, B;
static uint64_t clock_ns;

static int
t_send(void *ctx, const struct roce_cm_addr *to, const uint8_t *mad)
{
	struct side *s = ctx;

	assert_true(s->nout < MAXQ);
	s->out[s->nout].to = *to;
	memcpy(s->out[s->nout].mad, mad, ROCE_CM_MAD_LEN);
	s->nout++;
	return 0;
}

static uint64_t
t_now(void *ctx)
{
	(void)ctx;
	return clock_ns;
}

static int
t_modify(void *ctx, struct roce_cm_conn *conn, uint32_t qpn, struct roce_qp_attr *a,
	 uint32_t mask)
{
	struct side *s = ctx;

	assert_true(s->nmod < MAXQ);
	s->mod[s->nmod] = (struct mod){ .qpn = qpn, .a = *a, .mask = mask,
					.state_in_cb = roce_cm_conn_state(conn) };
	s->nmod++;
	return (int)a->qp_state == s->fail_state ? -EINVAL : 0;
}

static int
t_event(void *ctx, const struct roce_cm_event *e)
{
	struct side *s = ctx;
	struct roce_cm_accept_param ap = {
		.qpn = s->qpn, .starting_psn = 0x654321, .responder_resources = 16,
		.initiator_depth = 16, .rnr_retry_count = 7, .min_rnr_timer = 12,
		.private_data = "rep", .private_data_len = 3,
	};

	assert_true(s->nev < MAXQ);
	s->ev[s->nev] = (struct ev){ .type = e->type, .conn = e->conn, .status = e->status,
				     .final = e->final, .reason = e->rej_reason,
				     .had_ip = e->ip != NULL,
				     .state_in_cb = roce_cm_conn_state(e->conn) };
	s->nev++;
	if (e->type != ROCE_CM_EV_REQ)
		return 0;
	s->conn = e->conn;
	assert_int_equal(roce_cm_conn_state(e->conn), ROCE_CM_REQ_RCVD);
	switch (s->action) {
	case ACT_ACCEPT:
		/* refused when the test makes the QP refuse (test_refusals) */
		if (roce_cm_accept(e->conn, &ap) != 0)
			assert_true(s->fail_state >= 0);
		return 0;
	case ACT_MRA:
		assert_int_equal(roce_cm_mra(e->conn, 20), 0);
		return 0;
	case ACT_REFUSE:
		return 1;
	default:
		return 0;
	}
}

static void
v4gid(uint8_t *g, uint8_t last)
{
	memset(g, 0, 16);
	g[10] = g[11] = 0xff;
	g[12] = 10;
	g[15] = last;
}

static void
side_init(struct side *s, const char *name, uint8_t last, uint64_t guid, uint32_t qpn,
	  uint32_t salt)
{
	struct roce_cm_conf conf = {
		.ca_guid = guid, .tid_hi = (uint32_t)(guid >> 32), .comm_id_salt = salt,
		.max_conns = 16, .send = t_send, .now = t_now, .qp_modify = t_modify,
		.event = t_event, .ctx = s,
	};

	memset(s, 0, sizeof(*s));
	s->name = name;
	v4gid(s->gid, last);
	s->guid = guid;
	s->qpn = qpn;
	s->fail_state = -1;
	s->cm = roce_cm_create(&conf);
	assert_non_null(s->cm);
}

static int
setup(void **state)
{
	(void)state;
	clock_ns = 1000000000ull;
	side_init(&A, "A", 1, A_GUID, A_QPN, 0x5a5a0000);
	side_init(&B, "B", 2, B_GUID, B_QPN, 0x0000a5a5);
	assert_int_equal(roce_cm_listen(B.cm, SID, &B), 0);
	B.action = ACT_ACCEPT;
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	roce_cm_destroy(A.cm);
	roce_cm_destroy(B.cm);
	return 0;
}

/* Carry every MAD @p from sent to @p to; @return how many. */
static unsigned int
pump(struct side *from, struct side *to)
{
	unsigned int i, n = from->nout;
	struct out q[MAXQ];

	memcpy(q, from->out, sizeof(q[0]) * n);
	from->nout = 0;
	for (i = 0; i < n; i++) {
		struct roce_cm_addr src = { .qpn = 1 };

		assert_memory_equal(q[i].to.gid, to->gid, 16);
		assert_memory_equal(q[i].to.sgid, from->gid, 16);
		memcpy(src.gid, from->gid, 16);
		memcpy(src.sgid, to->gid, 16);
		roce_cm_rx(to->cm, &src, q[i].mad, ROCE_CM_MAD_LEN);
	}
	return n;
}

static uint16_t
out_attr(const struct side *s, unsigned int i)
{
	struct omni_mad_hdr h;

	omni_mad_hdr_decode(s->out[i].mad, &h);
	return h.attr_id;
}

static struct roce_cm_connect_param
cparam(void)
{
	static uint8_t pdata[ROCE_CM_IP_HDR_LEN];
	struct roce_cm_ip_hdr ip = { .ip_version = 4, .src_port = 40000 };
	struct roce_cm_connect_param p = {
		.service_id = SID, .qpn = A_QPN, .qp_type = ROCE_QPT_RC,
		.starting_psn = 0x123456, .path_mtu = ROCE_MTU_1024,
		.responder_resources = 4, .initiator_depth = 8, .retry_count = 7,
		.rnr_retry_count = 6, .local_ack_timeout = 10, .min_rnr_timer = 5,
		.remote_cm_response_timeout = 10, .local_cm_response_timeout = 12,
		.max_cm_retries = 2, .private_data = pdata,
		.private_data_len = sizeof(pdata), .ctx = &A,
	};

	memcpy(p.sgid, A.gid, 16);
	memcpy(p.dgid, B.gid, 16);
	memcpy(ip.src_addr, A.gid, 16);
	memcpy(ip.dst_addr, B.gid, 16);
	assert_int_equal(roce_cm_ip_hdr_encode(pdata, &ip), 0);
	return p;
}

static void
connect_a(void)
{
	struct roce_cm_connect_param p = cparam();

	assert_int_equal(roce_cm_connect(A.cm, &p, &A.conn), 0);
	assert_int_equal(roce_cm_conn_state(A.conn), ROCE_CM_REQ_SENT);
}

/* A and B connected; outboxes empty. */
static void
establish(void)
{
	connect_a();
	assert_int_equal(pump(&A, &B), 1);  /* REQ */
	assert_int_equal(pump(&B, &A), 1);  /* REP */
	assert_int_equal(pump(&A, &B), 1);  /* RTU */
	assert_int_equal(roce_cm_conn_state(A.conn), ROCE_CM_ESTABLISHED);
	assert_int_equal(roce_cm_conn_state(B.conn), ROCE_CM_ESTABLISHED);
}

static void
test_handshake_and_disconnect(void **state)
{
	struct roce_cm_stats sa, sb;
	struct roce_cm_req req;
	const struct mod *m;

	(void)state;
	connect_a();
	assert_int_equal(A.nout, 1);
	assert_int_equal(out_attr(&A, 0), ROCE_CM_ATTR_REQ);
	roce_cm_req_decode(A.out[0].mad, &req);
	assert_true(req.local_comm_id == roce_cm_conn_local_id(A.conn));
	assert_true(req.service_id == SID && req.local_ca_guid == A_GUID);
	assert_int_equal(req.local_qpn, A_QPN);
	assert_int_equal(req.starting_psn, 0x123456);
	assert_int_equal(req.pkey, 0xffff);
	assert_int_equal(req.path_mtu, ROCE_MTU_1024);
	assert_int_equal(req.max_cm_retries, 2);
	/* routed: permissive LIDs, not subnet local, hop limit 64 */
	assert_int_equal(req.primary.local_lid, 0xffff);
	assert_int_equal(req.primary.remote_lid, 0xffff);
	assert_int_equal(req.primary.subnet_local, 0);
	assert_int_equal(req.primary.hop_limit, 64);
	assert_memory_equal(req.primary.local_gid, A.gid, 16);
	assert_memory_equal(req.primary.remote_gid, B.gid, 16);

	assert_int_equal(pump(&A, &B), 1);
	/* B: REQ event with the RDMA CM header, accepted: QP to RTR then RTS, REP */
	assert_int_equal(B.nev, 1);
	assert_int_equal(B.ev[0].type, ROCE_CM_EV_REQ);
	assert_true(B.ev[0].had_ip);
	assert_int_equal(B.nmod, 2);
	m = &B.mod[0];
	assert_int_equal(m->qpn, B_QPN);
	assert_int_equal(m->a.qp_state, ROCE_QPS_RTR);
	assert_int_equal(m->mask, ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU |
			 ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN | ROCE_QP_MAX_DEST_RD_ATOMIC |
			 ROCE_QP_MIN_RNR_TIMER);
	assert_int_equal(m->a.dest_qp_num, A_QPN);
	/* each side's starting PSN is its receive PSN, the other's send PSN (Linux's cm.c) */
	assert_int_equal(m->a.rq_psn, 0x654321);
	assert_int_equal(m->a.path_mtu, ROCE_MTU_1024);
	assert_memory_equal(m->a.ah_attr.dgid, A.gid, 16);
	/* B's resources cut to what A asked: 16 -> A's initiator depth 8 */
	assert_int_equal(m->a.max_dest_rd_atomic, 8);
	assert_int_equal(m->a.min_rnr_timer, 12);
	m = &B.mod[1];
	assert_int_equal(m->a.qp_state, ROCE_QPS_RTS);
	assert_int_equal(m->mask, ROCE_QP_STATE | ROCE_QP_SQ_PSN | ROCE_QP_TIMEOUT |
			 ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY | ROCE_QP_MAX_QP_RD_ATOMIC);
	assert_int_equal(m->a.sq_psn, 0x123456);
	assert_int_equal(m->a.timeout, 10);
	assert_int_equal(m->a.retry_cnt, 7);
	assert_int_equal(m->a.rnr_retry, 6);      /* the REQ's */
	assert_int_equal(m->a.max_rd_atomic, 4);  /* 16 cut to A's responder resources */
	assert_int_equal(roce_cm_conn_state(B.conn), ROCE_CM_REP_SENT);
	assert_int_equal(B.nout, 1);
	assert_int_equal(out_attr(&B, 0), ROCE_CM_ATTR_REP);

	assert_int_equal(pump(&B, &A), 1);
	/* A: REP -> QP RTR, RTS (seen in REP_RCVD), RTU, ESTABLISHED */
	assert_int_equal(A.nmod, 2);
	assert_int_equal(A.mod[0].state_in_cb, ROCE_CM_REP_RCVD);
	assert_int_equal(A.mod[0].a.dest_qp_num, B_QPN);
	assert_int_equal(A.mod[0].a.rq_psn, 0x123456);
	assert_int_equal(A.mod[0].a.max_dest_rd_atomic, 4);
	assert_int_equal(A.mod[1].a.sq_psn, 0x654321);
	assert_int_equal(A.mod[1].a.rnr_retry, 7);      /* the REP's */
	assert_int_equal(A.mod[1].a.max_rd_atomic, 8); /* cut to the REP's resources (8) */
	assert_int_equal(A.nev, 1);
	assert_int_equal(A.ev[0].type, ROCE_CM_EV_ESTABLISHED);
	assert_ptr_equal(roce_cm_conn_ctx(A.conn), &A);
	assert_int_equal(A.nout, 1);
	assert_int_equal(out_attr(&A, 0), ROCE_CM_ATTR_RTU);
	assert_int_equal(roce_cm_conn_remote_id(A.conn), roce_cm_conn_local_id(B.conn));
	assert_int_equal(roce_cm_conn_remote_qpn(A.conn), B_QPN);

	assert_int_equal(pump(&A, &B), 1);
	assert_int_equal(B.nev, 2);
	assert_int_equal(B.ev[1].type, ROCE_CM_EV_ESTABLISHED);
	assert_int_equal(roce_cm_conn_state(B.conn), ROCE_CM_ESTABLISHED);

	/* A disconnects: QP to ERR, DREQ; B: ERR, DISCONNECTED, DREP; A: DISCONNECTED */
	assert_int_equal(roce_cm_disconnect(A.conn), 0);
	assert_int_equal(A.mod[2].a.qp_state, ROCE_QPS_ERR);
	assert_int_equal(roce_cm_conn_state(A.conn), ROCE_CM_DREQ_SENT);
	assert_int_equal(out_attr(&A, 0), ROCE_CM_ATTR_DREQ);
	assert_int_equal(pump(&A, &B), 1);
	assert_int_equal(B.mod[2].a.qp_state, ROCE_QPS_ERR);
	assert_int_equal(B.ev[2].type, ROCE_CM_EV_DISCONNECTED);
	assert_int_equal(B.ev[2].state_in_cb, ROCE_CM_DREQ_RCVD);
	assert_int_equal(roce_cm_conn_state(B.conn), ROCE_CM_TIMEWAIT);
	assert_int_equal(out_attr(&B, 0), ROCE_CM_ATTR_DREP);
	assert_int_equal(pump(&B, &A), 1);
	assert_int_equal(A.ev[1].type, ROCE_CM_EV_DISCONNECTED);
	assert_int_equal(A.ev[1].status, 0);
	assert_int_equal(roce_cm_conn_state(A.conn), ROCE_CM_TIMEWAIT);

	/* time wait: 2 x the response timeout, then the last event, slots free */
	assert_int_equal(roce_cm_poll(A.cm), 0);
	clock_ns = roce_cm_next_deadline(A.cm) - 1;
	assert_int_equal(roce_cm_poll(A.cm), 0);
	clock_ns += 1 + 2 * roce_cm_time_ns(20); /* past B's too */
	assert_int_equal(roce_cm_poll(A.cm), 1);
	assert_int_equal(roce_cm_poll(B.cm), 1);
	assert_int_equal(A.ev[2].type, ROCE_CM_EV_TIMEWAIT_EXIT);
	assert_true(A.ev[2].final);
	assert_int_equal(B.ev[3].type, ROCE_CM_EV_TIMEWAIT_EXIT);
	assert_int_equal(roce_cm_conn_count(A.cm), 0);
	assert_int_equal(roce_cm_conn_count(B.cm), 0);
	assert_true(roce_cm_next_deadline(A.cm) == UINT64_MAX);
	assert_int_equal(A.nout + B.nout, 0);

	roce_cm_stats_get(A.cm, &sa);
	roce_cm_stats_get(B.cm, &sb);
	assert_int_equal(sa.tx_mads, 3);  /* REQ RTU DREQ */
	assert_int_equal(sb.tx_mads, 2);  /* REP DREP */
	assert_int_equal(sa.rx_rep + sa.rx_drep, 2);
	assert_int_equal(sb.rx_req + sb.rx_rtu + sb.rx_dreq, 3);
	assert_int_equal(sa.rx_mads + sb.rx_mads, 5);
}

static void
test_no_listener_rej(void **state)
{
	struct roce_cm_connect_param p = cparam();
	struct roce_cm_stats sb;
	struct roce_cm_req req;
	struct roce_cm_rej rej;
	struct omni_mad_hdr hq, hj;

	(void)state;
	p.service_id = roce_cm_ip_service_id(ROCE_CM_PS_TCP, 9999);
	assert_int_equal(roce_cm_connect(A.cm, &p, &A.conn), 0);
	roce_cm_req_decode(A.out[0].mad, &req);
	omni_mad_hdr_decode(A.out[0].mad, &hq);
	pump(&A, &B);
	assert_int_equal(B.nev, 0);
	assert_int_equal(roce_cm_conn_count(B.cm), 0);
	assert_int_equal(B.nout, 1);
	omni_mad_hdr_decode(B.out[0].mad, &hj);
	roce_cm_rej_decode(B.out[0].mad, &rej);
	assert_int_equal(hj.attr_id, ROCE_CM_ATTR_REJ);
	assert_true(hj.tid == hq.tid);
	assert_int_equal(rej.reason, ROCE_CM_REJ_INVALID_SERVICE_ID);
	assert_int_equal(rej.msg_rejected, ROCE_CM_MSG_REQ);
	assert_int_equal(rej.remote_comm_id, req.local_comm_id);
	assert_int_equal(rej.local_comm_id, 0);
	roce_cm_stats_get(B.cm, &sb);
	assert_int_equal(sb.rej_no_listener, 1);
	assert_int_equal(sb.tx_rej, 1);
	/* A: REJECTED with the reason, final; nothing left to time out */
	pump(&B, &A);
	assert_int_equal(A.nev, 1);
	assert_int_equal(A.ev[0].type, ROCE_CM_EV_REJECTED);
	assert_int_equal(A.ev[0].reason, ROCE_CM_REJ_INVALID_SERVICE_ID);
	assert_true(A.ev[0].final);
	assert_int_equal(roce_cm_conn_count(A.cm), 0);
	assert_true(roce_cm_next_deadline(A.cm) == UINT64_MAX);
}

static void
test_req_retries_then_timeout(void **state)
{
	uint64_t t0 = clock_ns, to = roce_cm_time_ns(10) * 2;
	struct roce_cm_stats sa;
	struct roce_cm_rej rej;
	uint8_t first[ROCE_CM_MAD_LEN];

	(void)state;
	connect_a();
	memcpy(first, A.out[0].mad, sizeof(first));
	A.nout = 0;
	assert_true(roce_cm_next_deadline(A.cm) == t0 + to);
	/* two resends of the same bytes (max_cm_retries 2), each a timeout apart */
	clock_ns = t0 + to - 1;
	assert_int_equal(roce_cm_poll(A.cm), 0);
	clock_ns = t0 + to;
	assert_int_equal(roce_cm_poll(A.cm), 1);
	assert_int_equal(A.nout, 1);
	assert_memory_equal(A.out[0].mad, first, sizeof(first));
	clock_ns += to;
	assert_int_equal(roce_cm_poll(A.cm), 1);
	assert_int_equal(A.nout, 2);
	assert_memory_equal(A.out[1].mad, first, sizeof(first));
	assert_int_equal(A.nev, 0);
	/* then the REJ (timeout, our GUID in the ARI) and CONNECT_ERROR */
	clock_ns += to;
	assert_int_equal(roce_cm_poll(A.cm), 1);
	assert_int_equal(A.nout, 3);
	assert_int_equal(out_attr(&A, 2), ROCE_CM_ATTR_REJ);
	roce_cm_rej_decode(A.out[2].mad, &rej);
	assert_int_equal(rej.reason, ROCE_CM_REJ_TIMEOUT);
	assert_int_equal(rej.ari_length, 8);
	assert_true(rej.ari[0] == 0xa0 && rej.ari[7] == 0x01);
	assert_int_equal(A.nev, 1);
	assert_int_equal(A.ev[0].type, ROCE_CM_EV_CONNECT_ERROR);
	assert_int_equal(A.ev[0].status, -ETIMEDOUT);
	assert_true(A.ev[0].final);
	assert_int_equal(roce_cm_conn_count(A.cm), 0);
	roce_cm_stats_get(A.cm, &sa);
	assert_int_equal(sa.retransmits, 2);
	assert_int_equal(sa.timeouts, 1);
	clock_ns += 100 * to;
	assert_int_equal(roce_cm_poll(A.cm), 0);
}

static void
test_rep_retries_then_timeout(void **state)
{
	uint64_t to = roce_cm_time_ns(12); /* the REQ's local CM response timeout */
	struct roce_cm_addr fb = { .qpn = 1 };
	struct roce_cm_rej rej;
	struct roce_cm_stats sb;
	unsigned int i;

	(void)state;
	connect_a();
	pump(&A, &B);
	assert_int_equal(roce_cm_conn_state(B.conn), ROCE_CM_REP_SENT);
	B.nout = 0;
	for (i = 0; i < 2; i++) {
		clock_ns += to;
		assert_int_equal(roce_cm_poll(B.cm), 1);
		assert_int_equal(out_attr(&B, i), ROCE_CM_ATTR_REP);
	}
	clock_ns += to;
	assert_int_equal(roce_cm_poll(B.cm), 1);
	assert_int_equal(out_attr(&B, 2), ROCE_CM_ATTR_REJ);
	roce_cm_rej_decode(B.out[2].mad, &rej);
	assert_int_equal(rej.reason, ROCE_CM_REJ_TIMEOUT);
	/* B's QP to ERR, CONNECT_ERROR, then time wait */
	assert_int_equal(B.mod[B.nmod - 1].a.qp_state, ROCE_QPS_ERR);
	assert_int_equal(B.ev[B.nev - 1].type, ROCE_CM_EV_CONNECT_ERROR);
	assert_false(B.ev[B.nev - 1].final);
	assert_int_equal(roce_cm_conn_state(B.conn), ROCE_CM_TIMEWAIT);
	roce_cm_stats_get(B.cm, &sb);
	assert_int_equal(sb.retransmits, 2);
	assert_int_equal(sb.timeouts, 1);
	/* A never saw the REP: its REQ_SENT connection has no remote ID, so the
	 * REJ (about the REP, naming B's ID) is unknown to it (counted) and A
	 * times out on its own
	 */
	memcpy(fb.gid, B.gid, 16);
	memcpy(fb.sgid, A.gid, 16);
	assert_int_equal(roce_cm_rx(A.cm, &fb, B.out[2].mad, ROCE_CM_MAD_LEN), -ENOENT);
	roce_cm_stats_get(A.cm, &sb);
	assert_int_equal(sb.rx_unknown_conn, 1);
	assert_int_equal(roce_cm_conn_state(A.conn), ROCE_CM_REQ_SENT);
}

static void
test_mra_extends_wait(void **state)
{
	uint64_t to = 2 * roce_cm_time_ns(10);
	struct roce_cm_accept_param ap = { .qpn = B_QPN, .starting_psn = 1 };
	struct roce_cm_mra mra;

	(void)state;
	B.action = ACT_MRA;
	connect_a();
	assert_int_equal(pump(&A, &B), 1);
	assert_int_equal(roce_cm_conn_state(B.conn), ROCE_CM_MRA_REQ_SENT);
	assert_int_equal(out_attr(&B, 0), ROCE_CM_ATTR_MRA);
	roce_cm_mra_decode(B.out[0].mad, &mra);
	assert_int_equal(mra.msg_mraed, ROCE_CM_MSG_REQ);
	assert_int_equal(mra.service_timeout, 20);
	assert_int_equal(mra.remote_comm_id, roce_cm_conn_local_id(A.conn));
	pump(&B, &A);
	assert_int_equal(roce_cm_conn_state(A.conn), ROCE_CM_MRA_REQ_RCVD);
	/* the wait is now the service time plus a response timeout */
	assert_true(roce_cm_next_deadline(A.cm) == clock_ns + roce_cm_time_ns(20) + to);
	clock_ns += roce_cm_time_ns(20);
	assert_int_equal(roce_cm_poll(A.cm), 0);
	/* a duplicate REQ (A's resend) gets the MRA again */
	clock_ns += to;
	assert_int_equal(roce_cm_poll(A.cm), 1);
	assert_int_equal(pump(&A, &B), 1);
	assert_int_equal(B.nout, 1);
	assert_int_equal(out_attr(&B, 0), ROCE_CM_ATTR_MRA);
	assert_int_equal(B.nev, 1);
	B.nout = 0;
	/* B accepts later: REP, A establishes */
	assert_int_equal(roce_cm_accept(B.conn, &ap), 0);
	pump(&B, &A);
	assert_int_equal(roce_cm_conn_state(A.conn), ROCE_CM_ESTABLISHED);
	pump(&A, &B);
	assert_int_equal(roce_cm_conn_state(B.conn), ROCE_CM_ESTABLISHED);
}

static void
test_duplicate_req_and_rep(void **state)
{
	uint8_t req[ROCE_CM_MAD_LEN], rep[ROCE_CM_MAD_LEN];
	struct roce_cm_accept_param ap = { .qpn = B_QPN, .starting_psn = 9 };
	struct roce_cm_addr fa = { .qpn = 1 }, fb = { .qpn = 1 };
	struct roce_cm_stats sa, sb;

	(void)state;
	memcpy(fa.gid, A.gid, 16);
	memcpy(fa.sgid, B.gid, 16);
	memcpy(fb.gid, B.gid, 16);
	memcpy(fb.sgid, A.gid, 16);
	B.action = ACT_NONE;
	connect_a();
	memcpy(req, A.out[0].mad, sizeof(req));
	pump(&A, &B);
	/* REQ_RCVD: a duplicate is dropped, no second event or connection */
	assert_int_equal(roce_cm_rx(B.cm, &fa, req, sizeof(req)), -EALREADY);
	assert_int_equal(B.nev, 1);
	assert_int_equal(roce_cm_conn_count(B.cm), 1);
	assert_int_equal(B.nout, 0);
	assert_int_equal(roce_cm_accept(B.conn, &ap), 0);
	memcpy(rep, B.out[0].mad, sizeof(rep));
	pump(&B, &A);
	pump(&A, &B);
	assert_int_equal(roce_cm_conn_state(B.conn), ROCE_CM_ESTABLISHED);
	/* ESTABLISHED: a REP again (our RTU lost) gets the RTU again */
	assert_int_equal(roce_cm_rx(A.cm, &fb, rep, sizeof(rep)), 0);
	assert_int_equal(A.nout, 1);
	assert_int_equal(out_attr(&A, 0), ROCE_CM_ATTR_RTU);
	assert_int_equal(A.nev, 1);
	/* a REQ again to the established B: dropped */
	assert_int_equal(roce_cm_rx(B.cm, &fa, req, sizeof(req)), -EALREADY);
	assert_int_equal(B.nout, 0);
	roce_cm_stats_get(A.cm, &sa);
	roce_cm_stats_get(B.cm, &sb);
	assert_int_equal(sa.rx_duplicate, 1);
	assert_int_equal(sb.rx_duplicate, 2);
	assert_int_equal(roce_cm_conn_state(A.conn), ROCE_CM_ESTABLISHED);
	assert_int_equal(roce_cm_conn_state(B.conn), ROCE_CM_ESTABLISHED);
}

static void
test_stale_connection(void **state)
{
	struct roce_cm_connect_param p;
	struct side A2;
	struct roce_cm_conn *old_b;
	struct roce_cm_stats sb;
	struct roce_cm_rej rej;

	(void)state;
	establish();
	old_b = B.conn;
	/* A restarts (same GUID, same QPN, new CM state) and connects again */
	side_init(&A2, "A2", 1, A_GUID, A_QPN, 0x12345678);
	p = cparam();
	p.ctx = &A2;
	assert_int_equal(roce_cm_connect(A2.cm, &p, &A2.conn), 0);
	pump(&A2, &B);
	/* B: REJ stale to the REQ, DREQ on the old connection */
	assert_int_equal(B.nout, 2);
	assert_int_equal(out_attr(&B, 0), ROCE_CM_ATTR_REJ);
	roce_cm_rej_decode(B.out[0].mad, &rej);
	assert_int_equal(rej.reason, ROCE_CM_REJ_STALE_CONN);
	assert_int_equal(out_attr(&B, 1), ROCE_CM_ATTR_DREQ);
	assert_int_equal(roce_cm_conn_state(old_b), ROCE_CM_DREQ_SENT);
	roce_cm_stats_get(B.cm, &sb);
	assert_int_equal(sb.rej_stale, 1);
	assert_int_equal(roce_cm_conn_count(B.cm), 1);
	/* A2: the stale REJ puts its connection in time wait */
	B.nout = 1;
	pump(&B, &A2);
	assert_int_equal(A2.ev[0].type, ROCE_CM_EV_REJECTED);
	assert_int_equal(A2.ev[0].reason, ROCE_CM_REJ_STALE_CONN);
	assert_int_equal(roce_cm_conn_state(A2.conn), ROCE_CM_TIMEWAIT);
	roce_cm_destroy(A2.cm);
}

static void
test_refusals(void **state)
{
	struct roce_cm_connect_param p = cparam();
	struct roce_cm_conn *c = NULL;
	struct roce_cm_stats sb;
	struct roce_cm_rej rej;

	(void)state;
	/* out-of-range connect parameters send nothing */
	p.path_mtu = 6;
	assert_int_equal(roce_cm_connect(A.cm, &p, &c), -EINVAL);
	p = cparam();
	p.qpn = 1;
	assert_int_equal(roce_cm_connect(A.cm, &p, &c), -EINVAL);
	p = cparam();
	p.private_data_len = ROCE_CM_REQ_PDATA + 1;
	assert_int_equal(roce_cm_connect(A.cm, &p, &c), -EINVAL);
	assert_int_equal(A.nout, 0);
	assert_int_equal(roce_cm_listen(B.cm, SID, NULL), -EEXIST);
	assert_int_equal(roce_cm_unlisten(B.cm, SID + 1), -ENOENT);

	/* the consumer refuses: REJ consumer defined, slot freed */
	B.action = ACT_REFUSE;
	connect_a();
	pump(&A, &B);
	roce_cm_rej_decode(B.out[0].mad, &rej);
	assert_int_equal(rej.reason, ROCE_CM_REJ_CONSUMER_DEFINED);
	assert_int_equal(roce_cm_conn_count(B.cm), 0);
	pump(&B, &A);
	assert_int_equal(A.ev[0].type, ROCE_CM_EV_REJECTED);

	/* a REQ without the RDMA CM header on an IP service: consumer defined */
	B.action = ACT_ACCEPT;
	p = cparam();
	p.private_data_len = 0;
	assert_int_equal(roce_cm_connect(A.cm, &p, &c), 0);
	pump(&A, &B);
	roce_cm_rej_decode(B.out[0].mad, &rej);
	assert_int_equal(rej.reason, ROCE_CM_REJ_CONSUMER_DEFINED);
	B.nout = 0;

	/* the QP refuses RTR at accept: REJ, nothing left */
	B.fail_state = ROCE_QPS_RTR;
	connect_a();
	pump(&A, &B);
	assert_int_equal(out_attr(&B, 0), ROCE_CM_ATTR_REJ);
	assert_int_equal(roce_cm_conn_count(B.cm), 0);
	roce_cm_stats_get(B.cm, &sb);
	assert_int_equal(sb.qp_modify_errors, 1);
	assert_int_equal(sb.rej_invalid_req, 1);
	B.nout = 0;
	B.fail_state = -1;

	/* A's QP refuses RTS on the REP: REJ to B, CONNECT_ERROR -EIO */
	A.fail_state = ROCE_QPS_RTS;
	A.nev = 0;
	connect_a();
	pump(&A, &B);
	pump(&B, &A);
	assert_int_equal(out_attr(&A, 0), ROCE_CM_ATTR_REJ);
	assert_int_equal(A.ev[A.nev - 1].type, ROCE_CM_EV_CONNECT_ERROR);
	assert_int_equal(A.ev[A.nev - 1].status, -EIO);
	pump(&A, &B);
	assert_int_equal(B.ev[B.nev - 1].type, ROCE_CM_EV_REJECTED);
	assert_int_equal(roce_cm_conn_state(B.conn), ROCE_CM_IDLE);
}

/* A REQ (as A would send one) with one field changed, to B. */
static uint16_t
bad_req_reason(void (*edit)(struct roce_cm_req *))
{
	struct roce_cm_addr fa = { .qpn = 1 };
	struct roce_cm_req req;
	struct roce_cm_rej rej;
	uint8_t mad[ROCE_CM_MAD_LEN];

	connect_a();
	memcpy(mad, A.out[0].mad, sizeof(mad));
	A.nout = 0;
	roce_cm_req_decode(mad, &req);
	edit(&req);
	roce_cm_req_encode(mad, &req);
	memcpy(fa.gid, A.gid, 16);
	memcpy(fa.sgid, B.gid, 16);
	B.nout = 0;
	roce_cm_rx(B.cm, &fa, mad, sizeof(mad));
	if (B.nout == 0)
		return 0;
	assert_int_equal(out_attr(&B, 0), ROCE_CM_ATTR_REJ);
	roce_cm_rej_decode(B.out[0].mad, &rej);
	return rej.reason;
}

static void e_xrc(struct roce_cm_req *r) { r->transport = ROCE_CM_TRANSPORT_XRC; }
static void e_rd(struct roce_cm_req *r) { r->transport = ROCE_CM_TRANSPORT_RD; }
static void e_mtu0(struct roce_cm_req *r) { r->path_mtu = 0; }
static void e_mtu6(struct roce_cm_req *r) { r->path_mtu = 6; }
static void e_gid(struct roce_cm_req *r) { r->primary.remote_gid[15] ^= 1; }
static void e_lgid(struct roce_cm_req *r) { r->primary.local_gid[15] ^= 1; }
static void e_pkey(struct roce_cm_req *r) { r->pkey = 0x8001; }
static void e_id0(struct roce_cm_req *r) { r->local_comm_id = 0; }
static void e_qpn1(struct roce_cm_req *r) { r->local_qpn = 1; }

static void
test_req_field_checks(void **state)
{
	struct roce_cm_stats sb;

	(void)state;
	assert_int_equal(bad_req_reason(e_xrc), ROCE_CM_REJ_INVALID_TRANSPORT_TYPE);
	assert_int_equal(bad_req_reason(e_rd), ROCE_CM_REJ_INVALID_TRANSPORT_TYPE);
	assert_int_equal(bad_req_reason(e_mtu0), ROCE_CM_REJ_INVALID_MTU);
	assert_int_equal(bad_req_reason(e_mtu6), ROCE_CM_REJ_INVALID_MTU);
	assert_int_equal(bad_req_reason(e_gid), ROCE_CM_REJ_INVALID_GID);
	assert_int_equal(bad_req_reason(e_lgid), ROCE_CM_REJ_INVALID_GID);
	assert_int_equal(bad_req_reason(e_pkey), ROCE_CM_REJ_UNSUPPORTED);
	assert_int_equal(bad_req_reason(e_id0), 0);
	assert_int_equal(bad_req_reason(e_qpn1), 0);
	roce_cm_stats_get(B.cm, &sb);
	assert_int_equal(sb.rej_invalid_req, 7);
	assert_int_equal(sb.rx_malformed, 2);
	assert_int_equal(roce_cm_conn_count(B.cm), 0);
	assert_int_equal(B.nev, 0);
}

static void
test_bad_mads_dropped(void **state)
{
	struct roce_cm_addr fa = { .qpn = 1 };
	struct roce_cm_stats s0, s1;
	struct roce_cm_rtu rtu = { 0 };
	struct roce_cm_dreq dq = { .remote_qpn = B_QPN + 1 };
	uint8_t mad[ROCE_CM_MAD_LEN + 1];
	unsigned int i;
	static const struct { unsigned int off; uint8_t val; } hdr_edits[] = {
		{ 0, 2 }, { 1, 0x06 }, { 2, 1 }, { 3, 0x01 }, { 3, 0x83 }, { 5, 1 },
	};

	(void)state;
	establish();
	memcpy(fa.gid, A.gid, 16);
	memcpy(fa.sgid, B.gid, 16);
	roce_cm_stats_get(B.cm, &s0);
	/* the RTU again, spoiled each way: nothing changes */
	roce_cm_hdr_init(mad, ROCE_CM_ATTR_RTU, 1);
	rtu.local_comm_id = roce_cm_conn_local_id(A.conn);
	rtu.remote_comm_id = roce_cm_conn_local_id(B.conn);
	roce_cm_rtu_encode(mad, &rtu);
	assert_int_equal(roce_cm_rx(B.cm, &fa, mad, ROCE_CM_MAD_LEN - 1), -EINVAL);
	assert_int_equal(roce_cm_rx(B.cm, &fa, mad, ROCE_CM_MAD_LEN + 1), -EINVAL);
	for (i = 0; i < (sizeof(hdr_edits) / sizeof(hdr_edits[0])); i++) {
		uint8_t keep = mad[hdr_edits[i].off];

		mad[hdr_edits[i].off] = hdr_edits[i].val;
		assert_int_equal(roce_cm_rx(B.cm, &fa, mad, ROCE_CM_MAD_LEN), -EINVAL);
		mad[hdr_edits[i].off] = keep;
	}
	/* SIDR_REQ, LAP, ClassPortInfo: not handled */
	mad[17] = ROCE_CM_ATTR_SIDR_REQ;
	assert_int_equal(roce_cm_rx(B.cm, &fa, mad, ROCE_CM_MAD_LEN), -ENOTSUP);
	mad[17] = ROCE_CM_ATTR_LAP;
	assert_int_equal(roce_cm_rx(B.cm, &fa, mad, ROCE_CM_MAD_LEN), -ENOTSUP);
	mad[17] = ROCE_CM_ATTR_CPI;
	assert_int_equal(roce_cm_rx(B.cm, &fa, mad, ROCE_CM_MAD_LEN), -ENOTSUP);
	mad[17] = ROCE_CM_ATTR_RTU;
	/* another source */
	fa.gid[15] ^= 1;
	assert_int_equal(roce_cm_rx(B.cm, &fa, mad, ROCE_CM_MAD_LEN), -EPERM);
	fa.gid[15] ^= 1;
	/* another connection's IDs */
	mad[27] ^= 0x40;
	assert_int_equal(roce_cm_rx(B.cm, &fa, mad, ROCE_CM_MAD_LEN), -ENOENT);
	mad[27] ^= 0x40;
	/* a DREQ naming another QP */
	dq.local_comm_id = rtu.local_comm_id;
	dq.remote_comm_id = rtu.remote_comm_id;
	roce_cm_hdr_init(mad, ROCE_CM_ATTR_DREQ, 2);
	roce_cm_dreq_encode(mad, &dq);
	assert_int_equal(roce_cm_rx(B.cm, &fa, mad, ROCE_CM_MAD_LEN), -EINVAL);
	roce_cm_stats_get(B.cm, &s1);
	assert_int_equal(s1.rx_bad_length - s0.rx_bad_length, 2);
	assert_int_equal(s1.rx_bad_header - s0.rx_bad_header,
			 sizeof(hdr_edits) / sizeof(hdr_edits[0]));
	assert_int_equal(s1.rx_unsupported - s0.rx_unsupported, 3);
	assert_int_equal(s1.rx_bad_source - s0.rx_bad_source, 1);
	assert_int_equal(s1.rx_unknown_conn - s0.rx_unknown_conn, 1);
	assert_int_equal(s1.rx_malformed - s0.rx_malformed, 1);
	assert_int_equal(s1.tx_mads, s0.tx_mads);
	assert_int_equal(roce_cm_conn_state(B.conn), ROCE_CM_ESTABLISHED);
	assert_int_equal(B.nev, 2);
	assert_int_equal(B.nout, 0);
}

/* ---------------- every message in every state ---------------- */

enum st {
	A_REQ_SENT, A_MRA_REQ_RCVD, A_ESTABLISHED, A_DREQ_SENT, A_TIMEWAIT,
	B_REQ_RCVD, B_MRA_REQ_SENT, B_REP_SENT, B_MRA_REP_RCVD, B_ESTABLISHED, B_DREQ_SENT,
	B_TIMEWAIT, ST_N,
};

enum msg { M_REQ, M_MRA_REQ, M_MRA_REP, M_REJ, M_REP, M_RTU, M_DREQ, M_DREP, M_N };

static const char *const st_names[ST_N] = {
	"A REQ_SENT", "A MRA_REQ_RCVD", "A ESTABLISHED", "A DREQ_SENT", "A TIMEWAIT",
	"B REQ_RCVD", "B MRA_REQ_SENT", "B REP_SENT", "B MRA_REP_RCVD", "B ESTABLISHED",
	"B DREQ_SENT", "B TIMEWAIT",
};
static const char *const msg_names[M_N] = {
	"REQ", "MRA(REQ)", "MRA(REP)", "REJ", "REP", "RTU", "DREQ", "DREP",
};

/* the outcome: the state after, and the one drop counter that moves (T: taken) */
#define T SIZE_MAX
#define C(f) offsetof(struct roce_cm_stats, f)
#define DUP C(rx_duplicate)
#define BAD C(rx_bad_state)
#define UNK C(rx_unknown_conn)
#define NOL C(rej_no_listener) /* taken, answered with a REJ */

struct outcome {
	enum roce_cm_state after;
	size_t ctr;
};

#define S(x) ROCE_CM_##x
static const struct outcome table[ST_N][M_N] = {
	/*             REQ                MRA(REQ)                 MRA(REP)            REJ
	 *             REP                RTU                      DREQ                DREP */
	[A_REQ_SENT] = {
		{ S(REQ_SENT), NOL }, { S(MRA_REQ_RCVD), T }, { S(REQ_SENT), UNK }, { S(IDLE), T },
		{ S(ESTABLISHED), T }, { S(REQ_SENT), UNK }, { S(REQ_SENT), UNK },
		{ S(REQ_SENT), UNK } },
	[A_MRA_REQ_RCVD] = {
		{ S(MRA_REQ_RCVD), NOL }, { S(MRA_REQ_RCVD), DUP }, { S(MRA_REQ_RCVD), UNK },
		{ S(IDLE), T }, { S(ESTABLISHED), T }, { S(MRA_REQ_RCVD), UNK },
		{ S(MRA_REQ_RCVD), UNK }, { S(MRA_REQ_RCVD), UNK } },
	[A_ESTABLISHED] = {
		{ S(ESTABLISHED), DUP }, { S(ESTABLISHED), BAD }, { S(ESTABLISHED), BAD },
		{ S(TIMEWAIT), T }, { S(ESTABLISHED), DUP }, { S(ESTABLISHED), DUP },
		{ S(TIMEWAIT), T }, { S(ESTABLISHED), BAD } },
	[A_DREQ_SENT] = {
		{ S(DREQ_SENT), DUP }, { S(DREQ_SENT), BAD }, { S(DREQ_SENT), BAD },
		{ S(TIMEWAIT), T }, { S(DREQ_SENT), DUP }, { S(DREQ_SENT), BAD },
		{ S(TIMEWAIT), T }, { S(TIMEWAIT), T } },
	[A_TIMEWAIT] = {
		{ S(TIMEWAIT), NOL }, { S(TIMEWAIT), BAD }, { S(TIMEWAIT), BAD },
		{ S(TIMEWAIT), BAD }, { S(TIMEWAIT), DUP }, { S(TIMEWAIT), BAD },
		{ S(TIMEWAIT), DUP }, { S(TIMEWAIT), DUP } },
	[B_REQ_RCVD] = {
		{ S(REQ_RCVD), DUP }, { S(REQ_RCVD), BAD }, { S(REQ_RCVD), BAD }, { S(IDLE), T },
		{ S(REQ_RCVD), DUP }, { S(REQ_RCVD), BAD }, { S(REQ_RCVD), BAD },
		{ S(REQ_RCVD), BAD } },
	[B_MRA_REQ_SENT] = {
		{ S(MRA_REQ_SENT), DUP }, { S(MRA_REQ_SENT), BAD }, { S(MRA_REQ_SENT), BAD },
		{ S(IDLE), T }, { S(MRA_REQ_SENT), DUP }, { S(MRA_REQ_SENT), BAD },
		{ S(MRA_REQ_SENT), BAD }, { S(MRA_REQ_SENT), BAD } },
	[B_REP_SENT] = {
		{ S(REP_SENT), DUP }, { S(REP_SENT), BAD }, { S(MRA_REP_RCVD), T }, { S(IDLE), T },
		{ S(REP_SENT), DUP }, { S(ESTABLISHED), T }, { S(TIMEWAIT), T },
		{ S(REP_SENT), BAD } },
	[B_MRA_REP_RCVD] = {
		{ S(MRA_REP_RCVD), DUP }, { S(MRA_REP_RCVD), BAD }, { S(MRA_REP_RCVD), DUP },
		{ S(IDLE), T }, { S(MRA_REP_RCVD), DUP }, { S(ESTABLISHED), T },
		{ S(TIMEWAIT), T }, { S(MRA_REP_RCVD), BAD } },
	[B_ESTABLISHED] = {
		{ S(ESTABLISHED), DUP }, { S(ESTABLISHED), BAD }, { S(ESTABLISHED), BAD },
		{ S(TIMEWAIT), T }, { S(ESTABLISHED), DUP }, { S(ESTABLISHED), DUP },
		{ S(TIMEWAIT), T }, { S(ESTABLISHED), BAD } },
	[B_DREQ_SENT] = {
		{ S(DREQ_SENT), DUP }, { S(DREQ_SENT), BAD }, { S(DREQ_SENT), BAD },
		{ S(TIMEWAIT), T }, { S(DREQ_SENT), DUP }, { S(DREQ_SENT), BAD },
		{ S(TIMEWAIT), T }, { S(TIMEWAIT), T } },
	/* a REQ again after time wait began is a new connection (T: another slot) */
	[B_TIMEWAIT] = {
		{ S(TIMEWAIT), T }, { S(TIMEWAIT), BAD }, { S(TIMEWAIT), BAD },
		{ S(TIMEWAIT), BAD }, { S(TIMEWAIT), DUP }, { S(TIMEWAIT), BAD },
		{ S(TIMEWAIT), DUP }, { S(TIMEWAIT), DUP } },
};

/* Bring A and B to @p s; @return the side whose connection is in it. */
static struct side *
reach(enum st s)
{
	struct roce_cm_addr fa = { .qpn = 1 };
	struct roce_cm_mra mra;
	uint8_t mad[ROCE_CM_MAD_LEN];

	switch (s) {
	case A_REQ_SENT:
		connect_a();
		A.nout = 0;
		return &A;
	case A_MRA_REQ_RCVD:
		B.action = ACT_MRA;
		connect_a();
		pump(&A, &B);
		pump(&B, &A);
		return &A;
	case B_REQ_RCVD:
	case B_MRA_REQ_SENT:
	case B_REP_SENT:
	case B_MRA_REP_RCVD:
		B.action = s == B_REQ_RCVD ? ACT_NONE : s == B_MRA_REQ_SENT ? ACT_MRA : ACT_ACCEPT;
		connect_a();
		pump(&A, &B);
		B.nout = 0;
		if (s == B_MRA_REP_RCVD) {
			/* this CM never MRAs a REP: A's would look like this */
			mra = (struct roce_cm_mra){
				.local_comm_id = roce_cm_conn_local_id(A.conn),
				.remote_comm_id = roce_cm_conn_local_id(B.conn),
				.msg_mraed = ROCE_CM_MSG_REP, .service_timeout = 5 };
			roce_cm_hdr_init(mad, ROCE_CM_ATTR_MRA, 9);
			roce_cm_mra_encode(mad, &mra);
			memcpy(fa.gid, A.gid, 16);
			memcpy(fa.sgid, B.gid, 16);
			assert_int_equal(roce_cm_rx(B.cm, &fa, mad, sizeof(mad)), 0);
		}
		return &B;
	case A_ESTABLISHED:
	case B_ESTABLISHED:
		establish();
		return s == A_ESTABLISHED ? &A : &B;
	case A_DREQ_SENT:
	case B_DREQ_SENT:
		establish();
		assert_int_equal(roce_cm_disconnect(s == A_DREQ_SENT ? A.conn : B.conn), 0);
		A.nout = B.nout = 0;
		return s == A_DREQ_SENT ? &A : &B;
	case A_TIMEWAIT:
	case B_TIMEWAIT:
		establish();
		assert_int_equal(roce_cm_disconnect(A.conn), 0);
		pump(&A, &B);
		pump(&B, &A);
		assert_int_equal(roce_cm_conn_state(A.conn), ROCE_CM_TIMEWAIT);
		assert_int_equal(roce_cm_conn_state(B.conn), ROCE_CM_TIMEWAIT);
		return s == A_TIMEWAIT ? &A : &B;
	default:
		fail();
		return NULL;
	}
}

/* Message @p m as the peer of @p me would send it on @p me's connection. */
static void
craft(enum msg m, struct side *me, uint8_t *mad)
{
	struct side *peer = me == &A ? &B : &A;
	struct roce_cm_conn *c = me->conn;
	uint32_t mine = roce_cm_conn_local_id(c);
	uint32_t theirs = roce_cm_conn_remote_id(c) != 0 ? roce_cm_conn_remote_id(c) : 0x5555;

	switch (m) {
	case M_REQ: {
		struct roce_cm_connect_param p = cparam();
		struct roce_cm_req r = {
			.local_comm_id = theirs, .service_id = SID, .local_ca_guid = peer->guid,
			.local_qpn = peer->qpn, .transport = ROCE_CM_TRANSPORT_RC,
			.path_mtu = ROCE_MTU_1024, .pkey = 0xffff, .max_cm_retries = 1,
		};

		memcpy(r.primary.local_gid, peer->gid, 16);
		memcpy(r.primary.remote_gid, me->gid, 16);
		memcpy(r.private_data, p.private_data, p.private_data_len);
		roce_cm_hdr_init(mad, ROCE_CM_ATTR_REQ, 0x77);
		roce_cm_req_encode(mad, &r);
		break;
	}
	case M_MRA_REQ:
	case M_MRA_REP: {
		struct roce_cm_mra r = { .local_comm_id = theirs, .remote_comm_id = mine,
			.msg_mraed = m == M_MRA_REQ ? ROCE_CM_MSG_REQ : ROCE_CM_MSG_REP,
			.service_timeout = 3 };

		roce_cm_hdr_init(mad, ROCE_CM_ATTR_MRA, 0x77);
		roce_cm_mra_encode(mad, &r);
		break;
	}
	case M_REJ: {
		struct roce_cm_rej r = { .local_comm_id = theirs, .remote_comm_id = mine,
			.msg_rejected = ROCE_CM_MSG_REQ, .reason = ROCE_CM_REJ_CONSUMER_DEFINED };

		roce_cm_hdr_init(mad, ROCE_CM_ATTR_REJ, 0x77);
		roce_cm_rej_encode(mad, &r);
		break;
	}
	case M_REP: {
		struct roce_cm_rep r = { .local_comm_id = theirs, .remote_comm_id = mine,
			.local_qpn = peer->qpn, .starting_psn = 5, .local_ca_guid = peer->guid };

		roce_cm_hdr_init(mad, ROCE_CM_ATTR_REP, 0x77);
		roce_cm_rep_encode(mad, &r);
		break;
	}
	case M_RTU:
	case M_DREP: {
		struct roce_cm_rtu r = { .local_comm_id = theirs, .remote_comm_id = mine };

		roce_cm_hdr_init(mad, m == M_RTU ? ROCE_CM_ATTR_RTU : ROCE_CM_ATTR_DREP, 0x77);
		roce_cm_rtu_encode(mad, &r);
		break;
	}
	case M_DREQ: {
		struct roce_cm_dreq r = { .local_comm_id = theirs, .remote_comm_id = mine,
			.remote_qpn = me->qpn };

		roce_cm_hdr_init(mad, ROCE_CM_ATTR_DREQ, 0x77);
		roce_cm_dreq_encode(mad, &r);
		break;
	}
	default:
		fail();
	}
}

static uint64_t
drops(const struct roce_cm_stats *s)
{
	return s->rx_bad_length + s->rx_bad_header + s->rx_unsupported + s->rx_malformed +
	       s->rx_unknown_conn + s->rx_bad_source + s->rx_bad_state + s->rx_duplicate;
}

static void
test_every_message_in_every_state(void **state)
{
	unsigned int s, m;

	for (s = 0; s < ST_N; s++) {
		for (m = 0; m < M_N; m++) {
			const struct outcome *o = &table[s][m];
			struct roce_cm_addr from = { .qpn = 1 };
			struct roce_cm_stats s0, s1;
			uint8_t mad[ROCE_CM_MAD_LEN];
			struct side *me, *peer;
			struct roce_cm_conn *c;
			unsigned int nev, conns;

			setup(state);
			me = reach(s);
			peer = me == &A ? &B : &A;
			craft(m, me, mad);
			memcpy(from.gid, peer->gid, 16);
			memcpy(from.sgid, me->gid, 16);
			roce_cm_stats_get(me->cm, &s0);
			nev = me->nev;
			conns = roce_cm_conn_count(me->cm);
			me->nout = 0;
			c = me->conn;
			roce_cm_rx(me->cm, &from, mad, sizeof(mad));
			roce_cm_stats_get(me->cm, &s1);
			print_message("%s + %s -> %s\n", st_names[s], msg_names[m],
				      roce_cm_state_str(roce_cm_conn_state(c)));
			assert_int_equal(roce_cm_conn_state(c), o->after);
			assert_int_equal(s1.rx_mads, s0.rx_mads + 1);
			if (o->ctr == T) {
				assert_true(drops(&s1) == drops(&s0));
			} else if (o->ctr == NOL) {
				assert_true(drops(&s1) == drops(&s0));
				assert_true(s1.rej_no_listener == s0.rej_no_listener + 1);
				assert_int_equal(me->nout, 1);
			} else {
				uint64_t a, b;

				memcpy(&a, (const uint8_t *)&s0 + o->ctr, 8);
				memcpy(&b, (const uint8_t *)&s1 + o->ctr, 8);
				assert_true(b == a + 1);
				assert_true(drops(&s1) == drops(&s0) + 1);
			}
			/* a dropped message (not a duplicate answered) changes nothing */
			if (o->ctr != T && o->ctr != NOL && o->ctr != DUP) {
				assert_int_equal(me->nev, nev);
				assert_int_equal(roce_cm_conn_count(me->cm), conns);
			}
			/* a REQ after time wait is a new connection, reported */
			if (s == B_TIMEWAIT && m == M_REQ) {
				assert_int_equal(roce_cm_conn_count(me->cm), conns + 1);
				assert_int_equal(me->ev[me->nev - 1].type, ROCE_CM_EV_REQ);
			}
			teardown(state);
		}
	}
}

static void
test_stats_names(void **state)
{
	const char *names[64];
	uint64_t values[64];
	unsigned int n;

	(void)state;
	n = roce_cm_stats_names(names, values, 64, A.cm);
	assert_int_equal(n, sizeof(struct roce_cm_stats) / sizeof(uint64_t));
	assert_string_equal(names[0], "rx_mads");
	assert_string_equal(names[n - 1], "qp_modify_errors");
	assert_string_equal(roce_cm_state_str(ROCE_CM_TIMEWAIT), "TIMEWAIT");
	assert_string_equal(roce_cm_state_str(ROCE_CM_STATE_COUNT), "?");
	assert_string_equal(roce_cm_event_str(ROCE_CM_EV_TIMEWAIT_EXIT), "TIMEWAIT_EXIT");
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hdr_bytes),
		cmocka_unit_test(test_req_bytes),
		cmocka_unit_test(test_mra_rej_bytes),
		cmocka_unit_test(test_rep_rtu_dreq_bytes),
		cmocka_unit_test(test_ip_hdr_and_service_ids),
		cmocka_unit_test_setup_teardown(test_handshake_and_disconnect, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_listener_rej, setup, teardown),
		cmocka_unit_test_setup_teardown(test_req_retries_then_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rep_retries_then_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mra_extends_wait, setup, teardown),
		cmocka_unit_test_setup_teardown(test_duplicate_req_and_rep, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_connection, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_req_field_checks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_mads_dropped, setup, teardown),
		cmocka_unit_test(test_every_message_in_every_state),
		cmocka_unit_test_setup_teardown(test_stats_names, setup, teardown),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
