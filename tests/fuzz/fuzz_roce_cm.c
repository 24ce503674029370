/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * libFuzzer target: lib/roce's connection manager fed arbitrary MADs.
 *
 * Each input gets two fresh CMs on a wire the target carries: A (active)
 * and B (passive, listening on an RDMA CM TCP service), with one connection
 * established between them and a second REQ from A that B has not seen.
 * Input byte 0: bits 1:0 how B answers a REQ (accept, MRA, nothing,
 * refuse). Then records of a control byte and up to 256 MAD bytes:
 *   ctl bits 1:0  0: the bytes as they are; 1: a valid CM header put on
 *                 them; 2: and the IDs (and DREQ QPN) of a live
 *                 connection; 3: and the attribute from a table;
 *   bits 4:2      the attribute (mode 3);
 *   bit 5         the clock jumps ahead by 2^(MAD byte 0 & 31) us and both
 *                 CMs poll their timers;
 *   bit 6         from another source GID;
 *   bit 7         to A instead of B.
 * What the CMs send is carried to the other side, a few rounds.
 *
 * Checked: every MAD taken is counted once (rx_mads = each message's count
 * + the length, header and attribute drops); a MAD refused (negative
 * return) changes no connection's state nor their number; everything sent
 * is a 256-byte CM MAD (version 1, class 7, class version 2, Send, status
 * 0, a REQ..DREP attribute); connections never exceed the table; the QP
 * callback is asked about the connection's own QP; events carry a
 * connection, and a REQ event its message and source.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "roce_cm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SID 0x0000000001061c06ull
#define MAXQ 64
#define MAXCONN 8
#define KNOWN 64

struct out {
	struct roce_cm_addr to;
	uint8_t mad[ROCE_CM_MAD_LEN];
};

struct side {
	struct roce_cm *cm;
	uint8_t gid[16];
	uint32_t qpn;
	struct out out[MAXQ];
	unsigned int nout;
	struct roce_cm_conn *known[KNOWN];
	unsigned int nknown;
	unsigned int action;
};

static struct side A, B;
static uint64_t clock_ns;

static void
check(bool ok)
{
	if (!ok)
		abort();
}

static void
remember(struct side *s, struct roce_cm_conn *c)
{
	unsigned int i;

	for (i = 0; i < s->nknown; i++)
		if (s->known[i] == c)
			return;
	if (s->nknown < KNOWN)
		s->known[s->nknown++] = c;
}

static int
f_send(void *ctx, const struct roce_cm_addr *to, const uint8_t *mad)
{
	struct side *s = ctx;
	struct omni_mad_hdr h;

	omni_mad_hdr_decode(mad, &h);
	check(h.base_version == 1 && h.mgmt_class == 7 && h.class_version == 2 &&
	      h.method == 3 && h.status == 0 && h.attr_id >= ROCE_CM_ATTR_REQ &&
	      h.attr_id <= ROCE_CM_ATTR_DREP);
	if (s->nout < MAXQ) {
		s->out[s->nout].to = *to;
		memcpy(s->out[s->nout].mad, mad, ROCE_CM_MAD_LEN);
		s->nout++;
	}
	return 0;
}

static uint64_t
f_now(void *ctx)
{
	(void)ctx;
	return clock_ns;
}

static int
f_modify(void *ctx, struct roce_cm_conn *conn, uint32_t qpn, struct roce_qp_attr *a,
	 uint32_t mask)
{
	struct side *s = ctx;

	(void)mask;
	check(qpn == s->qpn);
	check(conn != NULL);
	/* a QP refusing now and then: every 7th RTS */
	return a->qp_state == ROCE_QPS_RTS && (clock_ns / 1000) % 7 == 3 ? -EINVAL : 0;
}

static int
f_event(void *ctx, const struct roce_cm_event *e)
{
	struct side *s = ctx;
	struct roce_cm_accept_param ap = { .qpn = s->qpn, .starting_psn = 77,
					   .responder_resources = 4, .initiator_depth = 4 };

	check(e->conn != NULL);
	remember(s, e->conn);
	if (e->type != ROCE_CM_EV_REQ)
		return 0;
	check(e->req != NULL && e->from != NULL);
	switch (s->action) {
	case 0:
		roce_cm_accept(e->conn, &ap);
		return 0;
	case 1:
		roce_cm_mra(e->conn, 3);
		return 0;
	case 2:
		return 0;
	default:
		return 1;
	}
}

static void
side_init(struct side *s, uint8_t last, uint64_t guid, uint32_t qpn)
{
	struct roce_cm_conf conf = {
		.ca_guid = guid, .tid_hi = 7, .comm_id_salt = (uint32_t)guid,
		.max_conns = MAXCONN, .send = f_send, .now = f_now, .qp_modify = f_modify,
		.event = f_event, .ctx = s,
	};

	memset(s, 0, sizeof(*s));
	s->gid[10] = s->gid[11] = 0xff;
	s->gid[12] = 10;
	s->gid[15] = last;
	s->qpn = qpn;
	s->cm = roce_cm_create(&conf);
	check(s->cm != NULL);
}

static void
pump(struct side *from, struct side *to)
{
	struct out q[MAXQ];
	unsigned int i, n = from->nout;

	memcpy(q, from->out, sizeof(q[0]) * n);
	from->nout = 0;
	for (i = 0; i < n; i++) {
		struct roce_cm_addr src = { .qpn = 1 };

		memcpy(src.gid, from->gid, 16);
		memcpy(src.sgid, to->gid, 16);
		roce_cm_rx(to->cm, &src, q[i].mad, ROCE_CM_MAD_LEN);
	}
}

static void
settle(void)
{
	unsigned int r;

	for (r = 0; r < 4 && (A.nout != 0 || B.nout != 0); r++) {
		pump(&A, &B);
		pump(&B, &A);
	}
	A.nout = B.nout = 0;
}

static void
start(unsigned int action)
{
	static uint8_t pdata[ROCE_CM_IP_HDR_LEN];
	struct roce_cm_ip_hdr ip = { .ip_version = 4, .src_port = 5000 };
	struct roce_cm_connect_param p = {
		.service_id = SID, .qpn = 0x11, .qp_type = ROCE_QPT_RC, .starting_psn = 1,
		.path_mtu = ROCE_MTU_1024, .responder_resources = 2, .initiator_depth = 2,
		.retry_count = 7, .rnr_retry_count = 7, .local_ack_timeout = 14,
		.remote_cm_response_timeout = 16, .local_cm_response_timeout = 16,
		.max_cm_retries = 3, .private_data = pdata, .private_data_len = sizeof(pdata),
	};
	struct roce_cm_conn *c;

	clock_ns = 1000;
	side_init(&A, 1, 0xa1, 0x11);
	side_init(&B, 2, 0xb2, 0x22);
	check(roce_cm_listen(B.cm, SID, &B) == 0);
	memcpy(p.sgid, A.gid, 16);
	memcpy(p.dgid, B.gid, 16);
	memcpy(ip.src_addr, A.gid, 16);
	memcpy(ip.dst_addr, B.gid, 16);
	check(roce_cm_ip_hdr_encode(pdata, &ip) == 0);
	check(roce_cm_connect(A.cm, &p, &c) == 0);
	remember(&A, c);
	settle();
	check(roce_cm_conn_state(c) == ROCE_CM_ESTABLISHED);
	p.starting_psn = 2;
	check(roce_cm_connect(A.cm, &p, &c) == 0);
	remember(&A, c);
	A.nout = 0;
	B.action = action;
}

static void
snapshot(const struct side *s, enum roce_cm_state *st)
{
	unsigned int i;

	for (i = 0; i < s->nknown; i++)
		st[i] = roce_cm_conn_state(s->known[i]);
}

static void
check_counts(const struct side *s)
{
	struct roce_cm_stats st;

	roce_cm_stats_get(s->cm, &st);
	check(st.rx_mads == st.rx_req + st.rx_mra + st.rx_rej + st.rx_rep + st.rx_rtu +
	      st.rx_dreq + st.rx_drep + st.rx_bad_length + st.rx_bad_header +
	      st.rx_unsupported);
	check(roce_cm_conn_count(s->cm) <= MAXCONN);
}

static const uint16_t attrs[8] = {
	ROCE_CM_ATTR_REQ, ROCE_CM_ATTR_MRA, ROCE_CM_ATTR_REJ, ROCE_CM_ATTR_REP,
	ROCE_CM_ATTR_RTU, ROCE_CM_ATTR_DREQ, ROCE_CM_ATTR_DREP, ROCE_CM_ATTR_LAP,
};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off = 1;

	if (size < 1)
		return 0;
	start(data[0] & 3);
	while (off < size) {
		uint8_t ctl = data[off++];
		size_t len = size - off < ROCE_CM_MAD_LEN ? size - off : ROCE_CM_MAD_LEN;
		uint8_t mad[ROCE_CM_MAD_LEN] = { 0 };
		struct side *to = (ctl & 0x80) ? &A : &B;
		struct side *peer = to == &A ? &B : &A;
		enum roce_cm_state before[KNOWN];
		struct roce_cm_addr from = { .qpn = 1 };
		unsigned int i, mode = ctl & 3, nconn;
		int ret;

		memcpy(mad, data + off, len);
		off += len;
		if (mode >= 1) {
			struct omni_mad_hdr h;

			omni_mad_hdr_decode(mad, &h);
			h.base_version = 1;
			h.mgmt_class = 7;
			h.class_version = 2;
			h.method = 3;
			h.status = 0;
			if (mode == 3)
				h.attr_id = attrs[(ctl >> 2) & 7];
			omni_mad_hdr_encode(mad, &h);
		}
		if (mode >= 2 && to->nknown > 0) {
			struct roce_cm_conn *c = to->known[mad[24] % to->nknown];

			/* the peer's ID first, ours second, as the peer sends them */
			mad[24] = (uint8_t)(roce_cm_conn_remote_id(c) >> 24);
			mad[25] = (uint8_t)(roce_cm_conn_remote_id(c) >> 16);
			mad[26] = (uint8_t)(roce_cm_conn_remote_id(c) >> 8);
			mad[27] = (uint8_t)roce_cm_conn_remote_id(c);
			mad[28] = (uint8_t)(roce_cm_conn_local_id(c) >> 24);
			mad[29] = (uint8_t)(roce_cm_conn_local_id(c) >> 16);
			mad[30] = (uint8_t)(roce_cm_conn_local_id(c) >> 8);
			mad[31] = (uint8_t)roce_cm_conn_local_id(c);
			if (mad[17] == ROCE_CM_ATTR_DREQ) {
				mad[32] = 0;
				mad[33] = 0;
				mad[34] = (uint8_t)to->qpn;
			}
		}
		memcpy(from.gid, peer->gid, 16);
		memcpy(from.sgid, to->gid, 16);
		if (ctl & 0x40)
			from.gid[15] ^= 0x80;
		snapshot(to, before);
		nconn = roce_cm_conn_count(to->cm);
		ret = roce_cm_rx(to->cm, &from, mad, len);
		if (ret < 0) {
			/* nothing changed on a refused MAD */
			for (i = 0; i < to->nknown && i < KNOWN; i++)
				check(roce_cm_conn_state(to->known[i]) == before[i]);
			check(roce_cm_conn_count(to->cm) == nconn);
		}
		check_counts(to);
		if (ctl & 0x20) {
			clock_ns += 1000ull << (mad[0] & 31);
			roce_cm_poll(A.cm);
			roce_cm_poll(B.cm);
		}
		settle();
		check_counts(&A);
		check_counts(&B);
	}
	roce_cm_destroy(A.cm);
	roce_cm_destroy(B.cm);
	return 0;
}
