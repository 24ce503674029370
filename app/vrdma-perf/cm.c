/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * --cm: one device of ours connects its RC QP through the IB CM, as the
 * Linux RDMA CM does (rdma_connect(), rdma_listen()), then runs
 * rdmacm-utils' rping protocol over it, as server or client.
 *
 * The glue: lib/roce's roce_cm (no I/O of its own) sends its MADs as UD
 * datagrams from the device's GSI QP (QPN 1, Q_Key 0x80010000) through one
 * AH per peer; every GSI receive goes to roce_cm_rx() with the source and
 * destination GIDs read from its GRH; its QP transitions are the device's
 * MODIFY_QP; its clock is the timer cycles. The RDMA CM's service ID for
 * the TCP port space and the port, and its private-data header (addresses
 * and the active side's port) in the REQ, are what a Linux peer matches.
 *
 * rping (facts from rdma-core's librdmacm/examples/rping.c): a 16-byte
 * message {be64 address, be32 rkey, be32 size} by SEND. The client fills
 * its source buffer with "rdma-ping-N: " and a rotating run of 'A'..'z'
 * (NUL last), advertises it; the server READs it, answers "go ahead" by
 * SEND; the client advertises its sink buffer; the server WRITEs the
 * string back (its length and NUL) and says "go ahead" again; with -V the
 * client compares both buffers. The server serves until the client
 * disconnects (its -C counts nothing).
 */

#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_random.h>

#include <omni_bytes.h>
#include <omni_signal.h>
#include "roce_cm.h"
#include "vperf.h"
#include "vperf_arp.h"

#define GSI_QPN 1
#define GSI_QKEY 0x80010000u
#define GSI_RECVS 32
#define GSI_SENDS 32
#define GSI_SLOT 320                 /* GRH + a MAD, 64-byte aligned */
#define MAX_PEERS 8
#define RPING_MSG 16                 /* struct rping_rdma_info */
#define RPING_MIN 26                 /* RPING_MIN_BUFSIZE: room for "rdma-ping-2147483647: " */
#define RPING_MAX 65535              /* RPING_BUFSIZE - 1 */
#define CM_RESPONSE_TIMEOUT 20       /* as Linux's CMA_CM_RESPONSE_TIMEOUT (4.096 us << 20) */
#define DISCONNECT_SECS 10           /* a DREQ's answer (or its timeout) */

/* slots of the RC side's buffer (side_open(): tx-depth of them) */
enum { SLOT_START, SLOT_SINK, SLOT_SEND, SLOT_RECV, SLOTS };
/* RC wr_ids */
enum { WR_RECV = 1, WR_SEND, WR_READ, WR_WRITE };

enum conn_st { CS_IDLE, CS_CONNECTING, CS_ESTABLISHED, CS_REJECTED, CS_FAILED,
	       CS_DISCONNECTED };

struct peer_ent {
	uint8_t gid[16];
	uint8_t mac[6];
	uint32_t ahn;
};

static struct side me;
static struct roce_cm *cm;
static uint32_t gsi_cqn, gsi_lkey;
static uint8_t *gsi_buf;             /* GSI_RECVS receive slots, then GSI_SENDS send slots */
static bool gsi_up;
static unsigned int gsi_next, gsi_busy;
static uint64_t gsi_send_errors, gsi_rx_short;
static struct peer_ent peers[MAX_PEERS];
static unsigned int npeers;
static struct roce_cm_conn *conn;
static enum conn_st cst;
static uint16_t rej_reason;
static int conn_status;
static bool in_req;                  /* inside the REQ event: accept() is ours */

/* ---------------- the device's GSI QP ---------------- */

static int
gsi_modify(uint8_t state, uint32_t mask, struct vrdma_cmd_modify_qp *m)
{
	m->qpn = htole32(GSI_QPN);
	m->qp_state = state;
	m->attr_mask = htole32(mask | VRDMA_QP_ATTR_STATE);
	return vuf_rdma_modify_qp(me.d, m);
}

static int
gsi_post_recv(uint32_t k)
{
	struct vrdma_sge g = {
		.addr = htole64(vuf_rdma_gpa(me.d, gsi_buf + (size_t)k * GSI_SLOT)),
		.length = htole32(GRH_LEN + ROCE_CM_MAD_LEN), .lkey = htole32(gsi_lkey),
	};

	return vuf_rdma_post_recv(me.d, GSI_QPN, k, &g, 1);
}

/* The GSI QP on its own CQ, in RTS, its receives posted. */
static int
gsi_open(void)
{
	struct vrdma_cmd_create_qp q = {
		.pdn = htole32(me.pdn), .qp_type = VRDMA_QPT_GSI,
		.cap = { .max_send_wr = htole32(GSI_SENDS), .max_recv_wr = htole32(GSI_RECVS),
			 .max_send_sge = htole32(1), .max_recv_sge = htole32(1) },
	};
	struct vrdma_cmd_modify_qp m;
	uint32_t qpn, rkey, k;
	int rc;

	gsi_buf = vuf_mem_alloc(vuf_rdma_mem(me.d), (size_t)(GSI_RECVS + GSI_SENDS) * GSI_SLOT,
				4096);
	if (gsi_buf == NULL)
		return side_fail(&me, "GSI buffers", -ENOMEM);
	rc = vuf_rdma_reg_mr(me.d, me.pdn, gsi_buf, (uint64_t)(GSI_RECVS + GSI_SENDS) * GSI_SLOT,
			     VRDMA_ACCESS_LOCAL_WRITE, &gsi_lkey, &rkey);
	if (rc == 0)
		rc = vuf_rdma_create_cq(me.d, 2 * (GSI_RECVS + GSI_SENDS), &gsi_cqn);
	if (rc != 0)
		return side_fail(&me, "GSI MR or CQ", rc);
	q.send_cqn = q.recv_cqn = htole32(gsi_cqn);
	rc = vuf_rdma_create_qp(me.d, &q, &qpn);
	if (rc == 0 && qpn != GSI_QPN)
		rc = -EPROTO;
	if (rc != 0)
		return side_fail(&me, "CREATE_QP GSI", rc);
	gsi_up = true;
	memset(&m, 0, sizeof(m));
	m.a.qkey = htole32(GSI_QKEY);
	rc = gsi_modify(VRDMA_QPS_INIT, VRDMA_QP_ATTR_QKEY, &m);
	memset(&m, 0, sizeof(m));
	if (rc == 0)
		rc = gsi_modify(VRDMA_QPS_RTR, 0, &m);
	if (rc == 0)
		rc = gsi_modify(VRDMA_QPS_RTS, VRDMA_QP_ATTR_SQ_PSN, &m);
	for (k = 0; rc == 0 && k < GSI_RECVS; k++)
		rc = gsi_post_recv(k);
	return rc == 0 ? 0 : side_fail(&me, "GSI QP to RTS", rc);
}

/* Our GID and the peer's from a GSI receive's GRH (RoCE v2: an IPv6 header, or IPv4's last). */
static void
grh_gids(const uint8_t *grh, uint8_t src[16], uint8_t dst[16])
{
	if ((grh[0] >> 4) == 6) {
		memcpy(src, grh + 8, 16);
		memcpy(dst, grh + 24, 16);
		return;
	}
	vperf_gid_v4(src, 0);
	vperf_gid_v4(dst, 0);
	memcpy(src + 12, grh + 20 + 12, 4);
	memcpy(dst + 12, grh + 20 + 16, 4);
}

/* Take the GSI CQ's completions: MADs to the CM (receives posted again), sends retired. */
static void
gsi_poll(void)
{
	struct vrdma_cq_req wc[16];
	int n, i;

	n = vuf_rdma_poll_cq(me.d, gsi_cqn, wc, RTE_DIM(wc));
	for (i = 0; i < n; i++) {
		uint64_t id = le64toh(wc[i].wr_id);
		struct roce_cm_addr from;
		const uint8_t *p;

		if (wc[i].opcode != VRDMA_WC_RECV) {
			gsi_busy--;
			if (wc[i].status != VRDMA_WC_SUCCESS)
				gsi_send_errors++;
			continue;
		}
		if (wc[i].status == VRDMA_WC_SUCCESS && id < GSI_RECVS) {
			p = gsi_buf + id * GSI_SLOT;
			if (le32toh(wc[i].byte_len) < GRH_LEN) {
				gsi_rx_short++;
			} else {
				grh_gids(p, from.gid, from.sgid);
				from.qpn = le32toh(wc[i].src_qp);
				/* the CM checks and counts everything past the GRH */
				roce_cm_rx(cm, &from, p + GRH_LEN,
					   le32toh(wc[i].byte_len) - GRH_LEN);
			}
		}
		if (id < GSI_RECVS && gsi_post_recv((uint32_t)id) != 0)
			gsi_send_errors++;
	}
}

/* The peer of @p gid: its MAC (--peer-mac, learned or asked for) and an AH to it. */
static struct peer_ent *
peer_get(const uint8_t gid[16])
{
	struct vrdma_cmd_create_ah ah = { .pdn = htole32(me.pdn) };
	struct vrdma_ack_handle h;
	struct vperf_peer vp;
	struct peer_ent *e;
	unsigned int k;

	for (k = 0; k < npeers; k++)
		if (memcmp(peers[k].gid, gid, 16) == 0)
			return &peers[k];
	if (npeers == MAX_PEERS)
		return NULL;
	memset(&vp, 0, sizeof(vp));
	memcpy(vp.gid, gid, 16);
	if (vnet_resolve("cm", "peer", &vp) != 0)
		return NULL;
	memcpy(ah.ah_attr.grh.dgid, gid, 16);
	ah.ah_attr.grh.hop_limit = 64;
	ah.ah_attr.grh.traffic_class = opt.tclass;
	memcpy(ah.ah_attr.dmac, vp.mac, 6);
	if (vuf_rdma_cmd(me.d, VRDMA_CMD_CREATE_AH, &ah, sizeof(ah), &h, sizeof(h)) != 0) {
		fprintf(stderr, "vrdma-perf: cm: CREATE_AH for the peer failed\n");
		return NULL;
	}
	e = &peers[npeers++];
	memcpy(e->gid, gid, 16);
	memcpy(e->mac, vp.mac, 6);
	e->ahn = le32toh(h.handle);
	return e;
}

/* ---------------- the CM's callbacks ---------------- */

static int
cm_send(void *ctx, const struct roce_cm_addr *to, const uint8_t *mad)
{
	struct peer_ent *e = peer_get(to->gid);
	struct vrdma_sq_req r;
	struct vrdma_sge g;
	uint32_t k;
	uint8_t *p;

	(void)ctx;
	if (e == NULL)
		return -EHOSTUNREACH;
	if (gsi_busy == GSI_SENDS)
		gsi_poll();
	if (gsi_busy == GSI_SENDS)
		return -EAGAIN;
	k = GSI_RECVS + gsi_next;
	p = gsi_buf + (size_t)k * GSI_SLOT;
	memcpy(p, mad, ROCE_CM_MAD_LEN);
	g.addr = htole64(vuf_rdma_gpa(me.d, p));
	g.length = htole32(ROCE_CM_MAD_LEN);
	g.lkey = htole32(gsi_lkey);
	memset(&r, 0, sizeof(r));
	r.wr_id = htole64(k);
	r.opcode = VRDMA_WR_SEND;
	r.send_flags = VRDMA_SEND_SIGNALED;
	r.ud.remote_qpn = htole32(to->qpn);
	r.ud.remote_qkey = htole32(GSI_QKEY);
	r.ud.ah = htole32(e->ahn);
	r.num_sge = htole32(1);
	if (vuf_rdma_post_send(me.d, GSI_QPN, &r, &g) != 0)
		return -EAGAIN;
	gsi_next = (gsi_next + 1) % GSI_SENDS;
	gsi_busy++;
	return 0;
}

static uint64_t
cm_now(void *ctx)
{
	uint64_t c = rte_get_timer_cycles(), hz = rte_get_timer_hz();

	(void)ctx;
	return c / hz * 1000000000ull + c % hz * 1000000000ull / hz;
}

/* The CM's transitions of our RC QP as MODIFY_QP: the same attributes, our GID 0 and the MAC. */
static int
cm_qp_modify(void *ctx, struct roce_cm_conn *c, uint32_t qpn, struct roce_qp_attr *a,
	     uint32_t mask)
{
	struct vrdma_cmd_modify_qp m;
	struct peer_ent *e;

	(void)ctx;
	(void)c;
	memset(&m, 0, sizeof(m));
	m.qpn = htole32(qpn);
	/* one P_Key and one port: the device takes index 0 and port 1 without asking */
	m.attr_mask = htole32(mask & VRDMA_QP_ATTR_MASK_ALL);
	m.qp_state = (uint8_t)a->qp_state;
	m.cur_qp_state = (uint8_t)a->cur_qp_state;
	m.path_mtu = a->path_mtu;
	m.max_rd_atomic = a->max_rd_atomic;
	m.max_dest_rd_atomic = a->max_dest_rd_atomic;
	m.min_rnr_timer = a->min_rnr_timer;
	m.timeout = a->timeout;
	m.retry_cnt = a->retry_cnt;
	m.rnr_retry = a->rnr_retry;
	m.a.qkey = htole32(a->qkey);
	m.a.rq_psn = htole32(a->rq_psn);
	m.a.sq_psn = htole32(a->sq_psn);
	m.a.dest_qp_num = htole32(a->dest_qp_num);
	m.a.qp_access_flags = htole32(a->qp_access_flags);
	if (mask & ROCE_QP_AV) {
		e = peer_get(a->ah_attr.dgid);
		if (e == NULL)
			return -EHOSTUNREACH;
		memcpy(m.a.ah_attr.grh.dgid, a->ah_attr.dgid, 16);
		m.a.ah_attr.grh.flow_label = htole32(a->ah_attr.flow_label);
		m.a.ah_attr.grh.hop_limit = a->ah_attr.hop_limit;
		m.a.ah_attr.grh.traffic_class = a->ah_attr.traffic_class;
		memcpy(m.a.ah_attr.dmac, e->mac, 6);
	}
	return vuf_rdma_modify_qp(me.d, &m);
}

static void
gid_str(char s[40], const uint8_t *g)
{
	static const uint8_t v4[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	if (memcmp(g, v4, 12) == 0)
		snprintf(s, 40, "%u.%u.%u.%u", g[12], g[13], g[14], g[15]);
	else
		snprintf(s, 40, "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:"
			 "%02x%02x:%02x%02x", g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7],
			 g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
}

/* Passive side: one connection at a time, accepted on our RC QP (in INIT, a receive posted). */
static int
on_req(const struct roce_cm_event *ev)
{
	struct roce_cm_accept_param ap = {
		.qpn = me.qpn, .starting_psn = me.psn,
		/* rping's (and rdma_accept()'s defaults): one READ each way */
		.responder_resources = 1, .initiator_depth = 1,
		.rnr_retry_count = 7, .min_rnr_timer = 12, .target_ack_delay = 15,
	};
	char s[40];
	int rc;

	gid_str(s, ev->from->gid);
	printf("cm: REQ from %s (QPN 0x%06x, port %u)\n", s, ev->req->local_qpn,
	       ev->ip != NULL ? ev->ip->src_port : 0);
	if (conn != NULL || cst != CS_IDLE) {
		printf("cm: busy, rejected\n");
		return 1;
	}
	if (peer_get(ev->from->gid) == NULL)
		return 1;
	conn = ev->conn;
	cst = CS_CONNECTING;
	in_req = true;
	rc = roce_cm_accept(ev->conn, &ap);
	in_req = false;
	if (rc != 0) {
		fprintf(stderr, "vrdma-perf: cm: accept failed: %s\n", strerror(-rc));
		conn = NULL;
		cst = CS_FAILED;
	}
	return 0;
}

static int
cm_event(void *ctx, const struct roce_cm_event *ev)
{
	int rc = 0;

	(void)ctx;
	switch (ev->type) {
	case ROCE_CM_EV_REQ:
		return on_req(ev);
	case ROCE_CM_EV_ESTABLISHED:
		if (ev->conn == conn)
			cst = CS_ESTABLISHED;
		break;
	case ROCE_CM_EV_REJECTED:
		if (ev->conn == conn) {
			cst = CS_REJECTED;
			rej_reason = ev->rej_reason;
		}
		break;
	case ROCE_CM_EV_CONNECT_ERROR:
		if (ev->conn == conn) {
			cst = CS_FAILED;
			conn_status = ev->status;
		}
		break;
	case ROCE_CM_EV_DISCONNECTED:
		if (ev->conn == conn) {
			cst = CS_DISCONNECTED;
			conn_status = ev->status;
		}
		break;
	case ROCE_CM_EV_TIMEWAIT_EXIT:
		break;
	}
	if (ev->final && ev->conn == conn && !in_req)
		conn = NULL;
	return rc;
}

/* One turn of every wait: the Ethernet side, the GSI QP, the CM's timers. */
static void
pump(void)
{
	vnet_serve(NULL);
	gsi_poll();
	roce_cm_poll(cm);
}

/* ---------------- rping over the RC QP ---------------- */

static uint8_t *
slot(uint32_t k)
{
	return me.buf + (size_t)k * me.slot;
}

static int
rc_post(uint64_t id, uint8_t opcode, uint32_t k, uint32_t len, uint64_t raddr, uint32_t rkey)
{
	struct vrdma_sge g = side_sge(&me, k, len);
	struct vrdma_sq_req r;

	memset(&r, 0, sizeof(r));
	r.wr_id = htole64(id);
	r.opcode = opcode;
	r.send_flags = VRDMA_SEND_SIGNALED;
	r.num_sge = htole32(1);
	r.rdma.remote_addr = htole64(raddr);
	r.rdma.rkey = htole32(rkey);
	return vuf_rdma_post_send(me.d, me.qpn, &r, &g);
}

static int
rc_post_recv(void)
{
	struct vrdma_sge g = side_sge(&me, SLOT_RECV, RPING_MSG);

	return vuf_rdma_post_recv(me.d, me.qpn, WR_RECV, &g, 1);
}

/* SEND rping's message naming slot @p k: its address, our rkey, @p size. */
static int
send_info(uint32_t k, uint32_t size)
{
	uint8_t *p = slot(SLOT_SEND);

	omni_put_be64(p, vuf_rdma_gpa(me.d, slot(k)));
	omni_put_be32(p + 8, me.rkey);
	omni_put_be32(p + 12, size);
	return rc_post(WR_SEND, VRDMA_WR_SEND, SLOT_SEND, RPING_MSG, 0, 0);
}

/*
 * Wait for the completion of @p want (WR_RECV, WR_READ, WR_WRITE; a SEND's
 * is taken on the way); a receive is posted again at once, as rping does.
 * @return 0, 1 when the peer disconnected first, -1 on an error (said).
 */
static int
rc_wait(uint64_t want)
{
	uint64_t hz = rte_get_timer_hz(), last = rte_get_timer_cycles();
	struct vrdma_cq_req wc;
	int n;

	while (!omni_stop) {
		pump();
		if (cst == CS_DISCONNECTED)
			return 1;
		if (cst != CS_ESTABLISHED && cst != CS_CONNECTING) {
			fprintf(stderr, "vrdma-perf: cm: the connection failed\n");
			return -1;
		}
		n = vuf_rdma_poll_cq(me.d, me.cqn, &wc, 1);
		if (n < 0)
			return -1;
		if (n == 0) {
			if (rte_get_timer_cycles() - last > stall_secs() * hz) {
				fprintf(stderr, "vrdma-perf: no progress for %u s\n",
					stall_secs());
				return -1;
			}
			continue;
		}
		last = rte_get_timer_cycles();
		/* flushed by the peer's disconnect: its DREQ moved the QP to ERR */
		if (wc.status == VRDMA_WC_WR_FLUSH_ERR && cst == CS_DISCONNECTED)
			return 1;
		if (!vperf_wc_ok(&wc, NULL))
			return -1;
		if (le64toh(wc.wr_id) == WR_RECV) {
			if (le32toh(wc.byte_len) != RPING_MSG) {
				fprintf(stderr, "vrdma-perf: rping: a message of %u bytes, "
					"not %u\n", le32toh(wc.byte_len), RPING_MSG);
				return -1;
			}
			if (rc_post_recv() != 0)
				return -1;
		}
		if (le64toh(wc.wr_id) == want)
			return 0;
	}
	return -1;
}

/* rping's ping @p ping of @p size bytes: "rdma-ping-N: ", then 'A'..'z' from its start, a NUL. */
static void
rping_fill(uint8_t *p, uint32_t size, uint64_t ping)
{
	unsigned int c = 65 + (unsigned int)(ping % 58);
	uint32_t i;
	int cc;

	cc = snprintf((char *)p, size, "rdma-ping-%d: ", (int)ping);
	for (i = (uint32_t)RTE_MIN((uint32_t)cc, size); i < size; i++) {
		p[i] = (uint8_t)c;
		if (++c > 122)
			c = 65;
	}
	p[size - 1] = 0;
}

static int
rping_client(void)
{
	uint64_t ping;
	int rc;

	for (ping = 0; ping < opt.iters; ping++) {
		rping_fill(slot(SLOT_START), opt.size, ping);
		memset(slot(SLOT_SINK), 0, opt.size);
		if (send_info(SLOT_START, opt.size) != 0 || (rc = rc_wait(WR_RECV)) != 0)
			goto stop;
		if (send_info(SLOT_SINK, opt.size) != 0 || (rc = rc_wait(WR_RECV)) != 0)
			goto stop;
		if (opt.verify && memcmp(slot(SLOT_START), slot(SLOT_SINK), opt.size) != 0) {
			fprintf(stderr, "vrdma-perf: rping: ping %" PRIu64 ": the data written "
				"back differs from the data read\n", ping);
			return -1;
		}
	}
	printf("rping client: %" PRIu64 " pings of %u bytes%s\n", ping, opt.size,
	       opt.verify ? ", every one written back verified" : "");
	return 0;
stop:
	if (rc > 0)
		fprintf(stderr, "vrdma-perf: rping: the server disconnected after %" PRIu64
			" pings\n", ping);
	return -1;
}

static int
rping_server(void)
{
	uint64_t addr, pings = 0;
	uint32_t rkey, len, wlen;
	const uint8_t *m = slot(SLOT_RECV);
	int rc;

	memset(slot(SLOT_SEND), 0, RPING_MSG);
	for (;;) {
		/* the client's source, or its disconnect */
		rc = rc_wait(WR_RECV);
		if (rc != 0)
			break;
		addr = omni_get_be64(m);
		rkey = omni_get_be32(m + 8);
		len = omni_get_be32(m + 12);
		if (len == 0 || len > opt.size) {
			fprintf(stderr, "vrdma-perf: rping: the client's size %u is not 1..%u "
				"(--size)\n", len, opt.size);
			return -1;
		}
		if (rc_post(WR_READ, VRDMA_WR_RDMA_READ, SLOT_START, len, addr, rkey) != 0 ||
		    rc_wait(WR_READ) != 0)
			return -1;
		if (opt.verify) {
			rping_fill(slot(SLOT_SINK), len, pings);
			if (memcmp(slot(SLOT_SINK), slot(SLOT_START), len) != 0) {
				fprintf(stderr, "vrdma-perf: rping: ping %" PRIu64 ": the data "
					"read is not rping's\n", pings);
				return -1;
			}
		}
		memset(slot(SLOT_SEND), 0, RPING_MSG);
		if (rc_post(WR_SEND, VRDMA_WR_SEND, SLOT_SEND, RPING_MSG, 0, 0) != 0 ||
		    rc_wait(WR_RECV) != 0)
			return -1;
		addr = omni_get_be64(m);
		rkey = omni_get_be32(m + 8);
		/* rping writes the string back: its length and the NUL */
		wlen = (uint32_t)strnlen((const char *)slot(SLOT_START), len - 1) + 1;
		if (rc_post(WR_WRITE, VRDMA_WR_RDMA_WRITE, SLOT_START, wlen, addr, rkey) != 0 ||
		    rc_wait(WR_WRITE) != 0 ||
		    rc_post(WR_SEND, VRDMA_WR_SEND, SLOT_SEND, RPING_MSG, 0, 0) != 0)
			return -1;
		pings++;
	}
	if (rc < 0)
		return -1;
	printf("rping server: %" PRIu64 " pings of up to %u bytes served%s; the client "
	       "disconnected\n", pings, opt.size, opt.verify ? ", every one read verified" : "");
	if (opt.iters != 0 && pings != opt.iters) {
		fprintf(stderr, "vrdma-perf: rping: %" PRIu64 " pings, not --iters %" PRIu64 "\n",
			pings, opt.iters);
		return -1;
	}
	return 0;
}

/* ---------------- set-up and the two sides ---------------- */

static int
rc_init(void)
{
	struct vrdma_cmd_modify_qp m;

	memset(&m, 0, sizeof(m));
	m.qpn = htole32(me.qpn);
	m.qp_state = VRDMA_QPS_INIT;
	m.attr_mask = htole32(VRDMA_QP_ATTR_STATE | VRDMA_QP_ATTR_ACCESS_FLAGS);
	m.a.qp_access_flags = htole32(VRDMA_ACCESS_LOCAL_WRITE | VRDMA_ACCESS_REMOTE_WRITE |
				      VRDMA_ACCESS_REMOTE_READ);
	if (vuf_rdma_modify_qp(me.d, &m) != 0 || rc_post_recv() != 0) {
		fprintf(stderr, "vrdma-perf: cannot move the RC QP to INIT\n");
		return -1;
	}
	return 0;
}

/* Wait until the connection leaves CONNECTING, within @p secs. */
static void
wait_connected(unsigned int secs)
{
	uint64_t until = rte_get_timer_cycles() + (uint64_t)secs * rte_get_timer_hz();

	while (!omni_stop && (cst == CS_CONNECTING || cst == CS_IDLE) &&
	       rte_get_timer_cycles() < until)
		pump();
}

static const char *
rej_str(uint16_t r)
{
	switch (r) {
	case ROCE_CM_REJ_INVALID_SERVICE_ID:
		return "invalid service ID: nobody listens on that port";
	case ROCE_CM_REJ_CONSUMER_DEFINED:
		return "consumer defined: the server refused";
	case ROCE_CM_REJ_STALE_CONN:
		return "stale connection";
	case ROCE_CM_REJ_TIMEOUT:
		return "timeout";
	case ROCE_CM_REJ_NO_RESOURCES:
		return "no resources";
	default:
		return "see IBA table 109";
	}
}

/* Our side ends a live connection (as rping does, done or failed): DREQ, then the DREP. */
static void
disconnect(void)
{
	uint64_t until = rte_get_timer_cycles() + DISCONNECT_SECS * rte_get_timer_hz();

	if (cst != CS_ESTABLISHED || conn == NULL)
		return;
	roce_cm_disconnect(conn);
	while (!omni_stop && cst == CS_ESTABLISHED && rte_get_timer_cycles() < until)
		pump();
	printf("cm: disconnected (%s)\n", cst == CS_DISCONNECTED && conn_status == 0 ?
	       "DREP received" : "no DREP");
}

static int
client(void)
{
	struct roce_cm_connect_param p = {
		.service_id = roce_cm_ip_service_id(ROCE_CM_PS_TCP, opt.connect_port),
		.qpn = me.qpn, .qp_type = ROCE_QPT_RC, .starting_psn = me.psn,
		.hop_limit = 64, .traffic_class = opt.tclass,
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7, .local_ack_timeout = opt.qp_timeout,
		.min_rnr_timer = 12,
		.remote_cm_response_timeout = CM_RESPONSE_TIMEOUT,
		.local_cm_response_timeout = CM_RESPONSE_TIMEOUT,
		.max_cm_retries = opt.cm_retries,
	};
	struct roce_cm_ip_hdr ih = { .ip_version = 4 };
	uint64_t hz = rte_get_timer_hz(), until, t;
	uint8_t pd[ROCE_CM_IP_HDR_LEN];
	bool retried = false;
	uint32_t mtu_bytes;
	char s[40];
	int code, rc;

	code = peer_path_mtu(me.mtu, &mtu_bytes);
	if (code < 0)
		return EXIT_USAGE;
	p.path_mtu = (uint8_t)code;
	memcpy(p.sgid, me.gid, 16);
	vperf_gid_v4(p.dgid, opt.connect_ip);
	/* the RDMA CM header: our address and an ephemeral port, the server's address */
	ih.src_port = (uint16_t)(32768 + rte_rand() % 28232);
	memcpy(ih.src_addr, me.gid, 16);
	memcpy(ih.dst_addr, p.dgid, 16);
	if (roce_cm_ip_hdr_encode(pd, &ih) != 0) {
		fprintf(stderr, "vrdma-perf: --cm --connect needs an IPv4 --gid-ip\n");
		return EXIT_USAGE;
	}
	p.private_data = pd;
	p.private_data_len = sizeof(pd);
	until = rte_get_timer_cycles() + opt.accept_secs * hz;
	if (peer_get(p.dgid) == NULL)
		return EXIT_FAIL;
	gid_str(s, p.dgid);
	for (;;) {
		cst = CS_CONNECTING;
		conn_status = 0;
		rc = roce_cm_connect(cm, &p, &conn);
		if (rc != 0) {
			fprintf(stderr, "vrdma-perf: cm: connect: %s\n", strerror(-rc));
			return EXIT_FAIL;
		}
		if (!retried)
			printf("cm: REQ to %s port %u (service ID 0x%016" PRIx64 "), QPN 0x%06x, "
			       "path MTU %u\n", s, opt.connect_port, p.service_id, me.qpn,
			       mtu_bytes);
		fflush(stdout);
		/* the CM's own resends and timeout end it, if no answer does */
		while (!omni_stop && cst == CS_CONNECTING)
			pump();
		/* nobody listens yet, or nobody answers yet: as a client waiting for its server */
		if (omni_stop || rte_get_timer_cycles() + hz > until ||
		    !((cst == CS_REJECTED && rej_reason == ROCE_CM_REJ_INVALID_SERVICE_ID) ||
		      (cst == CS_FAILED && conn_status == -ETIMEDOUT)))
			break;
		if (!retried)
			printf("cm: %s; trying again until --accept-timeout\n",
			       cst == CS_REJECTED ? "nobody listens there yet (REJ)" :
			       "no answer");
		retried = true;
		for (t = rte_get_timer_cycles() + hz; rte_get_timer_cycles() < t && !omni_stop;)
			pump();
	}
	if (cst == CS_REJECTED) {
		fprintf(stderr, "vrdma-perf: cm: the server rejected the connection: reason %u "
			"(%s)\n", rej_reason, rej_str(rej_reason));
		return EXIT_FAIL;
	}
	if (cst != CS_ESTABLISHED) {
		fprintf(stderr, "vrdma-perf: cm: no connection (%s)\n",
			conn_status != 0 ? strerror(-conn_status) : "interrupted");
		return EXIT_FAIL;
	}
	printf("cm: connected: server QPN 0x%06x\n", roce_cm_conn_remote_qpn(conn));
	fflush(stdout);
	rc = rping_client();
	disconnect();
	return rc == 0 ? 0 : EXIT_FAIL;
}

static int
server(void)
{
	uint64_t sid = roce_cm_ip_service_id(ROCE_CM_PS_TCP, opt.listen_port);
	int rc;

	rc = roce_cm_listen(cm, sid, NULL);
	if (rc != 0) {
		fprintf(stderr, "vrdma-perf: cm: listen: %s\n", strerror(-rc));
		return EXIT_FAIL;
	}
	printf("cm: listening on port %u (service ID 0x%016" PRIx64 "), QPN 0x%06x\n",
	       opt.listen_port, sid, me.qpn);
	fflush(stdout);
	cst = CS_IDLE;
	for (;;) {
		wait_connected(opt.accept_secs);
		/* a REQ we could not take leaves us listening for the next */
		if (cst != CS_FAILED)
			break;
		cst = CS_IDLE;
	}
	if (cst != CS_ESTABLISHED) {
		fprintf(stderr, "vrdma-perf: cm: no connection within %u s\n", opt.accept_secs);
		return EXIT_FAIL;
	}
	printf("cm: connected: client QPN 0x%06x\n", roce_cm_conn_remote_qpn(conn));
	fflush(stdout);
	rc = rping_server();
	/* after a failure the client hears of it; else the CM answered its DREQ already */
	disconnect();
	pump();
	return rc == 0 ? 0 : EXIT_FAIL;
}

int
cm_run(void)
{
	struct roce_cm_conf cc = {
		.tid_hi = (uint32_t)rte_rand(), .comm_id_salt = (uint32_t)rte_rand(),
		.send = cm_send, .now = cm_now, .qp_modify = cm_qp_modify, .event = cm_event,
	};
	int status = EXIT_FAIL;

	me.name = opt.connect_ip != 0 ? "client" : "server";
	if (side_open(&me, opt.sock[0], opt.gid) != 0)
		goto out;
	if (vnet_start(&me) != 0)
		goto out;
	if (gsi_open() != 0)
		goto out;
	me.psn = (uint32_t)rte_rand() & 0xffffff;
	/* the CA GUID: the MAC's EUI-64 */
	cc.ca_guid = (uint64_t)(me.mac[0] ^ 2) << 56 | (uint64_t)me.mac[1] << 48 |
		(uint64_t)me.mac[2] << 40 | 0xfffeull << 24 | (uint64_t)me.mac[3] << 16 |
		(uint64_t)me.mac[4] << 8 | me.mac[5];
	cm = roce_cm_create(&cc);
	if (cm == NULL) {
		fprintf(stderr, "vrdma-perf: cm: %s\n", strerror(errno));
		goto out;
	}
	if (rc_init() != 0)
		goto out;
	status = opt.connect_ip != 0 ? client() : server();
out:
	if (cm != NULL) {
		printf("cm: counters: ");
		roce_cm_stats_dump(cm, stdout);
		if (gsi_send_errors + gsi_rx_short != 0)
			printf("cm: GSI send errors %" PRIu64 ", short receives %" PRIu64 "\n",
			       gsi_send_errors, gsi_rx_short);
		roce_cm_destroy(cm);
	}
	vnet_report("cm");
	vnet_stop();
	if (me.d != NULL && me.qpn != 0)
		vuf_rdma_destroy_qp(me.d, me.qpn);
	if (gsi_up)
		vuf_rdma_destroy_qp(me.d, GSI_QPN);
	vuf_rdma_close(me.d);
	return status;
}
