/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * lib/vrdma's RDMA queues: two devices whose wires are joined ring to ring,
 * each driven by lib/vufront's RDMA driver (vuf_rdma) as its guest. RC SEND,
 * WRITE and READ and UD SEND move the bytes and complete as the RFC lays
 * completions out; an armed CQ signals the guest, an unarmed one does not;
 * malformed requests complete with LOC_QP_OP_ERR and put their QP in ERR;
 * a CQ the guest stops draining overflows into QP ERR, never a silent loss
 * of what it holds.
 */

#include <endian.h>
#include <errno.h>
#include <inttypes.h>

#include "roce.h"
#include "test_case.h"
#include "vrdma_test_util.h"
#include "vuf_rdma.h"

#define MEM_SIZE (8u << 20)
#define BUF 8192

struct node {
	struct vrdma_conf conf;
	struct vrdma_dev *dev;
	struct vuf_rdma *d;
	char path[128];
	uint32_t pdn, cqn, qpn, lkey, rkey;
	uint8_t *buf;        /* registered */
	uint8_t gid[16];
	uint8_t mac[6];
};

static struct node na, nb;
static struct rte_ring *a2b, *b2a;
/* the VID of both devices' RoCE frames (setup_vlan()) */
static uint16_t node_vlan = VRDMA_VLAN_NONE;
/* optional: sees (and may change) every frame from A to B before B polls */
static void (*a2b_tap)(struct rte_mbuf *m);

/* Show every frame on a2b to the tap, keeping their order. */
static void
a2b_look(void)
{
	struct rte_mbuf *m[64];
	unsigned int n, i;

	n = rte_ring_dequeue_burst(a2b, (void **)m, RTE_DIM(m), NULL);
	for (i = 0; i < n; i++)
		a2b_tap(m[i]);
	assert_int_equal(rte_ring_enqueue_bulk(a2b, (void **)m, n, NULL), n);
}

static void
poll_both(void *arg)
{
	(void)arg;
	if (na.dev != NULL)
		vrdma_dev_poll(na.dev);
	if (a2b_tap != NULL)
		a2b_look();
	if (nb.dev != NULL)
		vrdma_dev_poll(nb.dev);
}

static void
node_up(struct node *n, const char *name, uint8_t last, struct rte_ring *rx, struct rte_ring *tx)
{
	struct vuf_rdma_conf vc = {
		.mem_size = MEM_SIZE, .gpa_base = 0x40000000, .roce_bit = 55, .ctrl_class = 6,
		.timeout_ms = TIMEOUT_MS, .poll = poll_both,
	};
	struct vrdma_cmd_add_gid g = { .index = 0 };
	struct vrdma_dev_info info;
	char err[128];

	conf_for(&n->conf, n->path, sizeof(n->path), name);
	n->conf.roce_rx = rx;
	n->conf.roce_tx = tx;
	n->conf.mac.addr_bytes[5] = last;
	n->conf.vlan_id = node_vlan;
	memcpy(n->mac, n->conf.mac.addr_bytes, 6);
	n->dev = vrdma_dev_create(&n->conf);
	assert_non_null(n->dev);
	vc.path = n->path;
	n->d = vuf_rdma_open(&vc, err, sizeof(err));
	if (n->d == NULL)
		fail_msg("vuf_rdma_open: %s", err);
	assert_true(wait_info(n->dev, has_vid, NULL, &info));
	/* ::ffff:10.0.0.last */
	memset(n->gid, 0, sizeof(n->gid));
	n->gid[10] = n->gid[11] = 0xff;
	n->gid[12] = 10;
	n->gid[15] = last;
	memcpy(g.gid, n->gid, 16);
	assert_int_equal(vuf_rdma_cmd(n->d, VRDMA_CMD_ADD_GID, &g, sizeof(g), NULL, 0), 0);
	assert_int_equal(vuf_rdma_create_pd(n->d, &n->pdn), 0);
	assert_int_equal(vuf_rdma_create_cq(n->d, 64, &n->cqn), 0);
	n->buf = vuf_mem_alloc(vuf_rdma_mem(n->d), BUF, 4096);
	assert_non_null(n->buf);
	assert_int_equal(vuf_rdma_reg_mr(n->d, n->pdn, n->buf, BUF, 1 | 2 | 4, &n->lkey, &n->rkey),
			 0);
}

static void
node_down(struct node *n)
{
	struct vrdma_dev_info info;

	vuf_rdma_close(n->d);
	assert_true(wait_info(n->dev, no_vid, NULL, &info));
	vrdma_dev_destroy(n->dev);
	unlink(n->path);
}

static int
setup(void **state)
{
	(void)state;
	a2b = rte_ring_create("a2b", 1024, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	b2a = rte_ring_create("b2a", 1024, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (a2b == NULL || b2a == NULL)
		return -1;
	memset(&na, 0, sizeof(na));
	memset(&nb, 0, sizeof(nb));
	node_up(&na, "a.sock", 1, b2a, a2b);
	node_up(&nb, "b.sock", 2, a2b, b2a);
	return 0;
}

/* Both devices' RoCE frames on VLAN 7. */
static int
setup_vlan(void **state)
{
	node_vlan = 7;
	return setup(state);
}

static int
teardown(void **state)
{
	(void)state;
	node_vlan = VRDMA_VLAN_NONE;
	a2b_tap = NULL;
	node_down(&na);
	node_down(&nb);
	rte_ring_free(a2b);
	rte_ring_free(b2a);
	return 0;
}

static struct vrdma_cmd_create_qp
qp_cmd(const struct node *n, uint8_t type, uint32_t cq)
{
	struct vrdma_cmd_create_qp q = {
		.pdn = htole32(n->pdn), .qp_type = type,
		.send_cqn = htole32(cq), .recv_cqn = htole32(cq),
		.cap = { .max_send_wr = htole32(32), .max_recv_wr = htole32(32),
			 .max_send_sge = htole32(4), .max_recv_sge = htole32(4),
			 .max_inline_data = htole32(64) },
	};

	return q;
}

static void
modify(struct node *n, uint32_t qpn, uint8_t state, uint32_t mask, struct vrdma_cmd_modify_qp *m)
{
	m->qpn = htole32(qpn);
	m->qp_state = state;
	m->attr_mask = htole32(mask | 1u);
	assert_int_equal(vuf_rdma_modify_qp(n->d, m), 0);
}

/* RESET -> INIT -> RTR -> RTS of an RC QP of @p n granting @p access, towards @p peer's QP. */
static void
rc_connect_access(struct node *n, uint32_t qpn, const struct node *peer, uint32_t peer_qpn,
		  uint32_t access)
{
	struct vrdma_cmd_modify_qp m;

	memset(&m, 0, sizeof(m));
	m.a.qp_access_flags = htole32(access);
	modify(n, qpn, 1, 1u << 2, &m);                   /* INIT: ACCESS_FLAGS */
	memset(&m, 0, sizeof(m));
	m.path_mtu = 3;                                   /* 1024 */
	m.max_dest_rd_atomic = 4;
	m.min_rnr_timer = 1;
	m.a.dest_qp_num = htole32(peer_qpn);
	m.a.rq_psn = htole32(100);
	memcpy(m.a.ah_attr.grh.dgid, peer->gid, 16);
	m.a.ah_attr.grh.hop_limit = 64;
	memcpy(m.a.ah_attr.dmac, peer->mac, 6);
	/* AV, PATH_MTU, RQ_PSN, MAX_DEST_RD_ATOMIC, MIN_RNR_TIMER, DEST_QPN */
	modify(n, qpn, 2, 1u << 4 | 1u << 5 | 1u << 9 | 1u << 13 | 1u << 11 | 1u << 15, &m);
	memset(&m, 0, sizeof(m));
	m.timeout = 14;
	m.retry_cnt = 7;
	m.rnr_retry = 7;
	m.max_rd_atomic = 4;
	m.a.sq_psn = htole32(100);
	/* TIMEOUT, RETRY_CNT, RNR_RETRY, SQ_PSN, MAX_QP_RD_ATOMIC */
	modify(n, qpn, 3, 1u << 6 | 1u << 7 | 1u << 8 | 1u << 12 | 1u << 10, &m);
}

/* The same, granting local write, remote write and remote read. */
static void
rc_connect(struct node *n, uint32_t qpn, const struct node *peer, uint32_t peer_qpn)
{
	rc_connect_access(n, qpn, peer, peer_qpn, 1 | 2 | 4);
}

/* One turn of wait_wc(): poll both devices, take completions to @p wc at *@p got. */
static bool
wc_take(struct node *n, uint32_t cqn, struct vrdma_cq_req *wc, int want, int *got)
{
	int r;

	poll_both(NULL);
	r = vuf_rdma_poll_cq(n->d, cqn, wc + *got, want - *got);
	assert_true(r >= 0);
	*got += r;
	return *got >= want;
}

/* Poll @p n's CQ until @p want completions came (or fail). */
static void
wait_wc(struct node *n, uint32_t cqn, struct vrdma_cq_req *wc, int want)
{
	int got = 0;

	if (!test_wait_until(wc_take(n, cqn, wc, want, &got), TIMEOUT_MS))
		fail_msg("%d of %d completions in %d ms", got, want, TIMEOUT_MS);
}

static struct vrdma_sge
sge(const struct node *n, uint32_t off, uint32_t len)
{
	struct vrdma_sge s = {
		.addr = htole64(vuf_rdma_gpa(n->d, n->buf + off)),
		.length = htole32(len), .lkey = htole32(n->lkey),
	};

	return s;
}

/* A SEND of 64 bytes from the start of A's buffer on A's QP @p qa. */
static void
send64(uint32_t qa, uint64_t id, uint8_t flags)
{
	struct vrdma_sge s = sge(&na, 0, 64);
	struct vrdma_sq_req r;

	memset(&r, 0, sizeof(r));
	r.wr_id = htole64(id);
	r.opcode = 2; /* SEND */
	r.send_flags = flags;
	r.num_sge = htole32(1);
	assert_int_equal(vuf_rdma_post_send(na.d, qa, &r, &s), 0);
}

static void
assert_wc(const struct vrdma_cq_req *wc, uint64_t wr_id, uint8_t status, uint8_t opcode,
	  uint32_t qpn)
{
	assert_int_equal(le64toh(wc->wr_id), wr_id);
	assert_int_equal(wc->status, status);
	assert_int_equal(wc->opcode, opcode);
	assert_int_equal(le32toh(wc->qp_num), qpn);
}

/* Connected RC QPs on A and B, A's send queue of @p a_send_wr entries. */
static void
rc_pair_sq(uint32_t a_send_wr, uint32_t *qa, uint32_t *qb)
{
	struct vrdma_cmd_create_qp c = qp_cmd(&na, 2, na.cqn);

	c.cap.max_send_wr = htole32(a_send_wr);
	assert_int_equal(vuf_rdma_create_qp(na.d, &c, qa), 0);
	c = qp_cmd(&nb, 2, nb.cqn);
	assert_int_equal(vuf_rdma_create_qp(nb.d, &c, qb), 0);
	rc_connect(&na, *qa, &nb, *qb);
	rc_connect(&nb, *qb, &na, *qa);
}

static void
rc_pair(uint32_t *qa, uint32_t *qb)
{
	rc_pair_sq(32, qa, qb);
}

static void
rc_destroy(uint32_t qa, uint32_t qb)
{
	assert_int_equal(vuf_rdma_destroy_qp(na.d, qa), 0);
	assert_int_equal(vuf_rdma_destroy_qp(nb.d, qb), 0);
}

/* RC SEND (SGEs and inline), WRITE with immediate, READ: bytes and completions. */
static void
test_rc_send_write_read_move_the_bytes(void **state)
{
	struct vrdma_sq_req r;
	struct vrdma_sge s[2];
	struct vrdma_cq_req wc[4];
	struct vrdma_dev_info ia, ib;
	uint32_t qa, qb, i;

	(void)state;
	rc_pair(&qa, &qb);
	for (i = 0; i < BUF; i++) {
		na.buf[i] = (uint8_t)(i * 7 + 1);
		nb.buf[i] = 0;
	}
	/* SEND of 3000 bytes from two SGEs into B's receive of 4096 */
	s[0] = sge(&nb, 0, 4096);
	assert_int_equal(vuf_rdma_post_recv(nb.d, qb, 0xb1, s, 1), 0);
	memset(&r, 0, sizeof(r));
	r.wr_id = htole64(0xa1);
	r.opcode = 2; /* SEND */
	r.send_flags = VRDMA_SEND_SIGNALED;
	r.num_sge = htole32(2);
	s[0] = sge(&na, 0, 1000);
	s[1] = sge(&na, 1000, 2000);
	assert_int_equal(vuf_rdma_post_send(na.d, qa, &r, s), 0);
	wait_wc(&na, na.cqn, wc, 1);
	assert_wc(&wc[0], 0xa1, 0, 0 /* SEND */, qa);
	wait_wc(&nb, nb.cqn, wc, 1);
	assert_wc(&wc[0], 0xb1, 0, 3 /* RECV */, qb);
	assert_int_equal(le32toh(wc[0].byte_len), 3000);
	assert_memory_equal(nb.buf, na.buf, 3000);

	/* inline SEND: the bytes travel in the request */
	assert_int_equal(vuf_rdma_post_recv(nb.d, qb, 0xb2, (s[0] = sge(&nb, 4096, 64), s), 1), 0);
	memset(&r, 0, sizeof(r));
	r.wr_id = htole64(0xa2);
	r.opcode = 2;
	r.send_flags = VRDMA_SEND_SIGNALED | VRDMA_SEND_INLINE;
	r.inline_len = htole16(48);
	memcpy(r.inline_data, "inline bytes travel in the send request itself!", 48);
	assert_int_equal(vuf_rdma_post_send(na.d, qa, &r, NULL), 0);
	wait_wc(&na, na.cqn, wc, 1);
	assert_wc(&wc[0], 0xa2, 0, 0, qa);
	wait_wc(&nb, nb.cqn, wc, 1);
	assert_wc(&wc[0], 0xb2, 0, 3, qb);
	assert_int_equal(le32toh(wc[0].byte_len), 48);
	assert_memory_equal(nb.buf + 4096, "inline bytes travel in the send request itself!", 48);

	/* WRITE_WITH_IMM of 5000 bytes into B's MR at 2048: consumes a receive */
	assert_int_equal(vuf_rdma_post_recv(nb.d, qb, 0xb3, NULL, 0), 0);
	memset(&r, 0, sizeof(r));
	r.wr_id = htole64(0xa3);
	r.opcode = 1; /* WRITE_WITH_IMM */
	r.send_flags = VRDMA_SEND_SIGNALED;
	r.imm_data = htobe32(0x12345678);
	r.rdma.remote_addr = htole64(vuf_rdma_gpa(nb.d, nb.buf + 2048));
	r.rdma.rkey = htole32(nb.rkey);
	r.num_sge = htole32(1);
	s[0] = sge(&na, 100, 5000);
	assert_int_equal(vuf_rdma_post_send(na.d, qa, &r, s), 0);
	wait_wc(&na, na.cqn, wc, 1);
	assert_wc(&wc[0], 0xa3, 0, 1 /* RDMA_WRITE */, qa);
	wait_wc(&nb, nb.cqn, wc, 1);
	assert_wc(&wc[0], 0xb3, 0, 4 /* RECV_RDMA_WITH_IMM */, qb);
	assert_int_equal(be32toh(wc[0].imm_data), 0x12345678);
	assert_true(le32toh(wc[0].wc_flags) & 2 /* WITH_IMM */);
	assert_memory_equal(nb.buf + 2048, na.buf + 100, 5000);

	/* READ 6000 bytes of B's MR back into A's at 0 */
	for (i = 0; i < BUF; i++)
		nb.buf[i] = (uint8_t)(i * 13 + 5);
	memset(na.buf, 0, BUF);
	memset(&r, 0, sizeof(r));
	r.wr_id = htole64(0xa4);
	r.opcode = 4; /* READ */
	r.send_flags = VRDMA_SEND_SIGNALED;
	r.rdma.remote_addr = htole64(vuf_rdma_gpa(nb.d, nb.buf + 1000));
	r.rdma.rkey = htole32(nb.rkey);
	r.num_sge = htole32(1);
	s[0] = sge(&na, 0, 6000);
	assert_int_equal(vuf_rdma_post_send(na.d, qa, &r, s), 0);
	wait_wc(&na, na.cqn, wc, 1);
	assert_wc(&wc[0], 0xa4, 0, 2 /* RDMA_READ */, qa);
	assert_int_equal(le32toh(wc[0].byte_len), 6000);
	assert_memory_equal(na.buf, nb.buf + 1000, 6000);

	vrdma_dev_info_get(na.dev, &ia);
	vrdma_dev_info_get(nb.dev, &ib);
	assert_int_equal(ia.sq_posted, 4);
	assert_int_equal(ib.rq_posted, 3);
	assert_int_equal(ia.cqe_written, 4);
	assert_int_equal(ib.cqe_written, 3);
	assert_int_equal(ia.wr_refused + ib.wr_refused + ia.wq_bad_chain + ib.wq_bad_chain, 0);
	rc_destroy(qa, qb);
}

/* UD SEND through an AH: the receive holds the GRH, the completion names the sender. */
static void
test_ud_send_through_an_ah(void **state)
{
	struct vrdma_cmd_create_ah ah = { .pdn = htole32(na.pdn) };
	struct vrdma_cmd_create_qp c;
	struct vrdma_cmd_modify_qp m;
	struct vrdma_cq_req wc[2];
	struct vrdma_sq_req r;
	struct vrdma_sge s;
	uint32_t qa, qb, ahn, i;
	struct {
		struct node *n;
		uint32_t *q;
	} both[2] = { { &na, &qa }, { &nb, &qb } };

	(void)state;
	for (i = 0; i < 2; i++) {
		struct node *n = both[i].n;

		c = qp_cmd(n, 4, n->cqn);
		assert_int_equal(vuf_rdma_create_qp(n->d, &c, both[i].q), 0);
		memset(&m, 0, sizeof(m));
		m.a.qkey = htole32(0x1111);
		modify(n, *both[i].q, 1, 1u << 3, &m);    /* INIT: QKEY */
		memset(&m, 0, sizeof(m));
		modify(n, *both[i].q, 2, 0, &m);          /* RTR */
		memset(&m, 0, sizeof(m));
		m.a.sq_psn = htole32(7);
		modify(n, *both[i].q, 3, 1u << 12, &m);   /* RTS: SQ_PSN */
	}
	memcpy(ah.ah_attr.grh.dgid, nb.gid, 16);
	ah.ah_attr.grh.hop_limit = 64;
	memcpy(ah.ah_attr.dmac, nb.mac, 6);
	{
		struct vrdma_ack_handle h;

		assert_int_equal(vuf_rdma_cmd(na.d, VRDMA_CMD_CREATE_AH, &ah, sizeof(ah), &h,
					      sizeof(h)), 0);
		ahn = le32toh(h.handle);
	}
	for (i = 0; i < 512; i++)
		na.buf[i] = (uint8_t)(i ^ 0x5a);
	memset(nb.buf, 0, 1024);
	s = sge(&nb, 0, 40 + 512);
	assert_int_equal(vuf_rdma_post_recv(nb.d, qb, 0xd1, &s, 1), 0);
	memset(&r, 0, sizeof(r));
	r.wr_id = htole64(0xc1);
	r.opcode = 2;
	r.send_flags = VRDMA_SEND_SIGNALED;
	r.ud.remote_qpn = htole32(qb);
	r.ud.remote_qkey = htole32(0x1111);
	r.ud.ah = htole32(ahn);
	r.num_sge = htole32(1);
	s = sge(&na, 0, 512);
	assert_int_equal(vuf_rdma_post_send(na.d, qa, &r, &s), 0);
	wait_wc(&na, na.cqn, wc, 1);
	assert_wc(&wc[0], 0xc1, 0, 0, qa);
	wait_wc(&nb, nb.cqn, wc, 1);
	assert_wc(&wc[0], 0xd1, 0, 3, qb);
	assert_int_equal(le32toh(wc[0].byte_len), 40 + 512);
	assert_int_equal(le32toh(wc[0].src_qp), qa);
	assert_true(le32toh(wc[0].wc_flags) & 1 /* GRH */);
	assert_memory_equal(nb.buf + 40, na.buf, 512);
	assert_int_equal(vuf_rdma_destroy_qp(na.d, qa), 0);
	assert_int_equal(vuf_rdma_destroy_qp(nb.d, qb), 0);
}

/*
 * The GSI QP (what the IB CM's MADs travel on): CREATE_QP of type GSI is
 * QPN 1 with its rings at slot 1; a 256-byte MAD sent to QPN 1 with the
 * GSI Q_Key arrives behind its GRH and names the sending QP 1; a datagram
 * with another Q_Key is dropped; a second GSI QP is refused.
 */
static void
test_gsi_qp_is_qp1_and_carries_mads(void **state)
{
	struct vrdma_cmd_create_ah ah = { .pdn = htole32(na.pdn) };
	struct vrdma_cmd_create_qp c;
	struct vrdma_cmd_modify_qp m;
	struct roce_dev_stats est;
	struct vrdma_ack_handle h;
	struct vrdma_cq_req wc[2];
	struct vrdma_sq_req r;
	struct vrdma_sge s;
	uint32_t q[2], extra, ahn, i, k;
	struct node *both[2] = { &na, &nb };

	(void)state;
	for (i = 0; i < 2; i++) {
		c = qp_cmd(both[i], 1 /* GSI */, both[i]->cqn);
		assert_int_equal(vuf_rdma_create_qp(both[i]->d, &c, &q[i]), 0);
		assert_int_equal(q[i], 1);
		memset(&m, 0, sizeof(m));
		m.a.qkey = htole32(0x80010000);
		modify(both[i], 1, 1, 1u << 3, &m);       /* INIT: QKEY */
		memset(&m, 0, sizeof(m));
		modify(both[i], 1, 2, 0, &m);             /* RTR */
		memset(&m, 0, sizeof(m));
		m.a.sq_psn = htole32(0);
		modify(both[i], 1, 3, 1u << 12, &m);      /* RTS: SQ_PSN */
	}
	c = qp_cmd(&na, 1, na.cqn);
	assert_int_not_equal(vuf_rdma_create_qp(na.d, &c, &extra), 0);
	memcpy(ah.ah_attr.grh.dgid, nb.gid, 16);
	ah.ah_attr.grh.hop_limit = 64;
	memcpy(ah.ah_attr.dmac, nb.mac, 6);
	assert_int_equal(vuf_rdma_cmd(na.d, VRDMA_CMD_CREATE_AH, &ah, sizeof(ah), &h, sizeof(h)),
			 0);
	ahn = le32toh(h.handle);
	/* a CM REQ's first bytes: base version 1, class 0x07, class version 2, method Send */
	for (i = 0; i < 256; i++)
		na.buf[i] = (uint8_t)(i * 3);
	na.buf[0] = 1;
	na.buf[1] = 0x07;
	na.buf[2] = 2;
	na.buf[3] = 3;
	memset(nb.buf, 0, 1024);
	s = sge(&nb, 0, 40 + 256);
	assert_int_equal(vuf_rdma_post_recv(nb.d, 1, 0xd1, &s, 1), 0);
	for (k = 0; k < 2; k++) {
		memset(&r, 0, sizeof(r));
		r.wr_id = htole64(0xc1 + k);
		r.opcode = 2;
		r.send_flags = VRDMA_SEND_SIGNALED;
		r.ud.remote_qpn = htole32(1);
		/* the first with a wrong Q_Key: dropped by B */
		r.ud.remote_qkey = htole32(k == 0 ? 0x1111 : 0x80010000);
		r.ud.ah = htole32(ahn);
		r.num_sge = htole32(1);
		s = sge(&na, 0, 256);
		assert_int_equal(vuf_rdma_post_send(na.d, 1, &r, &s), 0);
		wait_wc(&na, na.cqn, wc, 1);
		assert_wc(&wc[0], 0xc1 + k, 0, 0, 1);
	}
	wait_wc(&nb, nb.cqn, wc, 1);
	assert_wc(&wc[0], 0xd1, 0, 3, 1);
	assert_int_equal(le32toh(wc[0].byte_len), 40 + 256);
	assert_int_equal(le32toh(wc[0].src_qp), 1);
	assert_true(le32toh(wc[0].wc_flags) & 1 /* GRH */);
	assert_memory_equal(nb.buf + 40, na.buf, 256);
	/* RoCE v2 over IPv4: the GRH's last 20 bytes are the IPv4 header, A's address its source */
	assert_int_equal(nb.buf[20] >> 4, 4);
	assert_memory_equal(nb.buf + 20 + 12, na.gid + 12, 4);
	assert_memory_equal(nb.buf + 20 + 16, nb.gid + 12, 4);
	assert_int_equal(vrdma_dev_engine_stats(nb.dev, &est), 0);
	assert_int_equal(est.rx_bad_qkey, 1);
	assert_int_equal(vuf_rdma_destroy_qp(na.d, 1), 0);
	assert_int_equal(vuf_rdma_destroy_qp(nb.d, 1), 0);
}

/*
 * REQ_NOTIFY_CQ: the CQ's ring is signalled once a completion is there,
 * only when armed, and once per arm.
 */
static void
test_armed_cq_signals_the_guest_once(void **state)
{
	struct vrdma_cq_req wc[1];
	struct vrdma_sge s;
	uint32_t qa, qb, k;

	(void)state;
	rc_pair(&qa, &qb);
	(void)vuf_rdma_cq_signalled(nb.d, nb.cqn);
	for (k = 0; k < 2; k++) {
		bool armed = k == 1;

		if (armed)
			assert_int_equal(vuf_rdma_req_notify(nb.d, nb.cqn,
							     VRDMA_NOTIFY_NEXT_COMPLETION), 0);
		s = sge(&nb, 0, 64);
		assert_int_equal(vuf_rdma_post_recv(nb.d, qb, 0xe0 + k, &s, 1), 0);
		send64(qa, 0xf0 + k, 0);
		wait_wc(&nb, nb.cqn, wc, 1);
		assert_wc(&wc[0], 0xe0 + k, 0, 3, qb);
		assert_int_equal(vuf_rdma_cq_signalled(nb.d, nb.cqn), armed);
	}
	/* the arm is spent: the next completion is not signalled */
	s = sge(&nb, 0, 64);
	assert_int_equal(vuf_rdma_post_recv(nb.d, qb, 0xe2, &s, 1), 0);
	send64(qa, 0xf2, 0);
	wait_wc(&nb, nb.cqn, wc, 1);
	assert_wc(&wc[0], 0xe2, 0, 3, qb);
	assert_false(vuf_rdma_cq_signalled(nb.d, nb.cqn));
	/* an unsignaled SEND owes A no completion at all */
	poll_both(NULL);
	assert_int_equal(vuf_rdma_poll_cq(na.d, na.cqn, wc, 1), 0);
	rc_destroy(qa, qb);
}

/*
 * REQ_NOTIFY_CQ with SOLICITED: a SEND without the solicited flag completes
 * unsignalled, the next one with it (SE in the last packet) is signalled.
 */
static void
test_solicited_arm_waits_for_a_solicited_send(void **state)
{
	struct vrdma_cq_req wc[1];
	struct vrdma_sge s;
	uint32_t qa, qb, k;

	(void)state;
	rc_pair(&qa, &qb);
	(void)vuf_rdma_cq_signalled(nb.d, nb.cqn);
	assert_int_equal(vuf_rdma_req_notify(nb.d, nb.cqn, VRDMA_NOTIFY_SOLICITED), 0);
	for (k = 0; k < 2; k++) {
		bool solicited = k == 1;

		s = sge(&nb, 0, 64);
		assert_int_equal(vuf_rdma_post_recv(nb.d, qb, 0x70 + k, &s, 1), 0);
		send64(qa, 0x80 + k, solicited ? VRDMA_SEND_SOLICITED : 0);
		wait_wc(&nb, nb.cqn, wc, 1);
		assert_wc(&wc[0], 0x70 + k, 0, 3, qb);
		assert_int_equal(vuf_rdma_cq_signalled(nb.d, nb.cqn), solicited);
	}
	rc_destroy(qa, qb);
}

static uint8_t
qp_state(struct node *n, uint32_t qpn)
{
	struct vrdma_ack_query_qp a;

	assert_int_equal(vuf_rdma_query_qp(n->d, qpn, &a), 0);
	return a.qp_state;
}

/*
 * A send request whose size is not what its num_sge says, or of an unknown opcode,
 * completes with LOC_QP_OP_ERR and the QP enters ERR; the receive it had
 * posted is flushed. A chain with no request in it puts the QP in ERR too.
 */
static void
test_malformed_requests_fail_into_completions(void **state)
{
	struct vrdma_cq_req wc[2];
	struct vrdma_dev_info before, after;
	struct vrdma_sq_req r;
	struct vrdma_sge s[1];
	struct vuf_buf b;
	uint32_t qa, qb, k;
	uint32_t max_qps, max_cqs;

	(void)state;
	for (k = 0; k < 3; k++) {
		rc_pair(&qa, &qb);
		vrdma_dev_info_get(na.dev, &before);
		s[0] = sge(&na, 0, 64);
		assert_int_equal(vuf_rdma_post_recv(na.d, qa, 0x77, s, 1), 0);
		memset(&r, 0, sizeof(r));
		r.wr_id = htole64(0x99);
		r.opcode = 2;
		r.num_sge = htole32(1);
		if (k == 0) {
			r.opcode = 9; /* no such opcode */
			assert_int_equal(vuf_rdma_post_send(na.d, qa, &r, s), 0);
		} else if (k == 1) {
			/*
			 * says 1 SGE, carries 2: a valid request if the device
			 * read only what num_sge names; its size gives it away
			 */
			vuf_rdma_limits(na.d, &max_qps, &max_cqs);
			b.addr = vuf_mem_alloc(vuf_rdma_mem(na.d), sizeof(r) + 2 * sizeof(s), 64);
			memcpy(b.addr, &r, sizeof(r));
			memcpy((uint8_t *)b.addr + sizeof(r), s, sizeof(s));
			memcpy((uint8_t *)b.addr + sizeof(r) + sizeof(s), s, sizeof(s));
			b.len = sizeof(r) + 2 * sizeof(s);
			assert_int_equal(vuf_vq_add(vuf_rdma_ring(na.d, vrdma_sq_ring(max_cqs, qa)),
						    &b, 1, NULL, 0, NULL), 0);
		} else {
			/* 8 bytes: no request to read */
			vuf_rdma_limits(na.d, &max_qps, &max_cqs);
			b.addr = vuf_mem_alloc(vuf_rdma_mem(na.d), 8, 64);
			b.len = 8;
			assert_int_equal(vuf_vq_add(vuf_rdma_ring(na.d, vrdma_sq_ring(max_cqs, qa)),
						    &b, 1, NULL, 0, NULL), 0);
		}
		if (k != 0)
			vuf_vq_kick(vuf_rdma_ring(na.d, vrdma_sq_ring(max_cqs, qa)));
		if (k < 2) {
			/* the flushed receive first, then the bad request */
			wait_wc(&na, na.cqn, wc, 2);
			assert_wc(&wc[0], 0x77, 4 /* WR_FLUSH_ERR */, 3, qa);
			assert_wc(&wc[1], 0x99, 2 /* LOC_QP_OP_ERR */, 0, qa);
		} else {
			wait_wc(&na, na.cqn, wc, 1);
			assert_wc(&wc[0], 0x77, 4, 3, qa);
		}
		assert_int_equal(qp_state(&na, qa), 6 /* ERR */);
		vrdma_dev_info_get(na.dev, &after);
		assert_int_equal(after.wr_refused - before.wr_refused, k < 2 ? 1 : 0);
		assert_int_equal(after.wq_bad_chain - before.wq_bad_chain, k == 2 ? 1 : 0);
		/* the device still serves: the control queue answers */
		assert_int_equal(qp_state(&nb, qb), 3 /* RTS */);
		rc_destroy(qa, qb);
	}
}

/*
 * B stops taking completions: its CQ (4 entries) fills, the next completion
 * overflows it and B's QP enters ERR. What the CQ held is all delivered, in
 * order, once B polls again.
 */
static void
test_cq_overflow_puts_the_qp_in_error(void **state)
{
	struct vrdma_cmd_create_qp c;
	struct vrdma_cq_req wc[64];
	struct vrdma_sge s;
	uint32_t qa, qb, small, k;
	int got = 0, n;

	(void)state;
	/* B's QP completes into a CQ of 4 entries (a 4-buffer ring) */
	assert_int_equal(vuf_rdma_create_cq(nb.d, 4, &small), 0);
	c = qp_cmd(&na, 2, na.cqn);
	assert_int_equal(vuf_rdma_create_qp(na.d, &c, &qa), 0);
	c = qp_cmd(&nb, 2, small);
	assert_int_equal(vuf_rdma_create_qp(nb.d, &c, &qb), 0);
	rc_connect(&na, qa, &nb, qb);
	rc_connect(&nb, qb, &na, qa);
	for (k = 0; k < 12; k++) {
		s = sge(&nb, 64 * k, 64);
		assert_int_equal(vuf_rdma_post_recv(nb.d, qb, 100 + k, &s, 1), 0);
	}
	for (k = 0; k < 12; k++)
		send64(qa, 200 + k, 0);
	/* lib/roce's CQ fills before the engine can move them: the 5th overflows it */
	for (k = 0; k < 2000 && qp_state(&nb, qb) != 6; k++)
		poll_both(NULL);
	assert_int_equal(qp_state(&nb, qb), 6);
	for (k = 0; k < 100; k++) {
		poll_both(NULL);
		n = vuf_rdma_poll_cq(nb.d, small, wc + got, 64 - got);
		assert_true(n >= 0);
		got += n;
	}
	/*
	 * The CQ holds 4 at any instant; its ring's 4 buffers take more only
	 * between two polls of the engine (12 SENDs may land in one).
	 */
	assert_true(got >= 4 && got <= 8);
	for (k = 0; k < (uint32_t)got; k++)
		assert_wc(&wc[k], 100 + k, 0, 3, qb);
	assert_int_equal(vuf_rdma_destroy_qp(nb.d, qb), 0);
	assert_int_equal(vuf_rdma_destroy_qp(na.d, qa), 0);
	assert_int_equal(vuf_rdma_destroy_cq(nb.d, small), 0);
}

/* @p n SENDs of 64 bytes from A's QP to B's, each with a receive posted first. */
static void
sends(uint32_t qa, uint32_t qb, uint64_t id, unsigned int n, bool signaled)
{
	struct vrdma_sge s;
	unsigned int k;

	for (k = 0; k < n; k++) {
		s = sge(&nb, 64 * (k % 64), 64);
		assert_int_equal(vuf_rdma_post_recv(nb.d, qb, id + k, &s, 1), 0);
		send64(qa, id + k, signaled ? VRDMA_SEND_SIGNALED : 0);
	}
}

/*
 * Arming a CQ whose completions have not all reached the guest's ring
 * (its buffers ran out) signals once they do: the guest could not have
 * seen them before it armed, and nothing else would wake it.
 */
static void
test_arming_with_completions_held_back_signals_their_delivery(void **state)
{
	struct vrdma_cmd_create_qp c;
	struct vrdma_cq_req wc[16];
	uint32_t qa, qb, cq8, k;
	struct vrdma_dev_info ib;
	int got;

	(void)state;
	assert_int_equal(vuf_rdma_create_cq(nb.d, 16, &cq8), 0);
	c = qp_cmd(&na, 2, na.cqn);
	assert_int_equal(vuf_rdma_create_qp(na.d, &c, &qa), 0);
	c = qp_cmd(&nb, 2, cq8);
	assert_int_equal(vuf_rdma_create_qp(nb.d, &c, &qb), 0);
	rc_connect(&na, qa, &nb, qb);
	rc_connect(&nb, qb, &na, qa);
	/* 16 buffers on B's CQ ring, 20 completions: 4 stay in lib/roce's CQ (cqe 16) */
	sends(qa, qb, 0x100, 20, true);
	/* A's completions say all 20 arrived (acknowledged) */
	wait_wc(&na, na.cqn, wc, 16);
	wait_wc(&na, na.cqn, wc, 4);
	vrdma_dev_info_get(nb.dev, &ib);
	assert_int_equal(ib.cqe_written, 16);
	assert_int_equal(vuf_rdma_req_notify(nb.d, cq8, VRDMA_NOTIFY_NEXT_COMPLETION), 0);
	assert_false(vuf_rdma_cq_signalled(nb.d, cq8));
	/* taking the 16 gives the ring its buffers back: the 4 come, signalled */
	got = vuf_rdma_poll_cq(nb.d, cq8, wc, 16);
	assert_int_equal(got, 16);
	wait_wc(&nb, cq8, wc, 4);
	for (k = 0; k < 4; k++)
		assert_wc(&wc[k], 0x100 + 16 + k, 0, 3, qb);
	assert_true(vuf_rdma_cq_signalled(nb.d, cq8));
	rc_destroy(qa, qb);
	assert_int_equal(vuf_rdma_destroy_cq(nb.d, cq8), 0);
}

/*
 * A send request posted while its QP cannot send waits in the ring and is
 * taken at RTS; one still waiting when the QP is reset is returned unread
 * and never runs, on the old connection or the next.
 */
static void
test_requests_wait_for_their_qp_and_reset_discards_them(void **state)
{
	struct vrdma_cmd_create_qp c;
	struct vrdma_cmd_modify_qp m;
	struct vrdma_cq_req wc[2];
	struct vrdma_dev_info ia;
	uint32_t qa, qb, k;

	(void)state;
	c = qp_cmd(&na, 2, na.cqn);
	assert_int_equal(vuf_rdma_create_qp(na.d, &c, &qa), 0);
	c = qp_cmd(&nb, 2, nb.cqn);
	assert_int_equal(vuf_rdma_create_qp(nb.d, &c, &qb), 0);
	/* A is in RESET: the SEND waits */
	sends(qa, qb, 0x200, 1, false);
	for (k = 0; k < 50; k++)
		poll_both(NULL);
	vrdma_dev_info_get(na.dev, &ia);
	assert_int_equal(ia.sq_posted, 0);
	assert_int_equal(vuf_vq_in_flight(vuf_rdma_ring(na.d, vrdma_sq_ring(16, qa))), 1);
	/* the connection comes up: the SEND goes */
	rc_connect(&na, qa, &nb, qb);
	rc_connect(&nb, qb, &na, qa);
	wait_wc(&nb, nb.cqn, wc, 1);
	assert_wc(&wc[0], 0x200, 0, 3, qb);
	poll_both(NULL);

	/* to RESET with a SEND waiting in A's ring (A goes to RESET first, then B) */
	memset(&m, 0, sizeof(m));
	modify(&na, qa, 0, 0, &m);
	memset(&m, 0, sizeof(m));
	modify(&nb, qb, 0, 0, &m);
	sends(qa, qb, 0x300, 1, false);
	memset(&m, 0, sizeof(m));
	modify(&na, qa, 0, 0, &m);
	vrdma_dev_info_get(na.dev, &ia);
	assert_int_equal(ia.wr_discarded, 1);
	/* B's receive was posted after its reset: it stays; the discarded SEND never comes */
	rc_connect(&na, qa, &nb, qb);
	rc_connect(&nb, qb, &na, qa);
	for (k = 0; k < 200; k++)
		poll_both(NULL);
	assert_int_equal(vuf_rdma_poll_cq(nb.d, nb.cqn, wc, 2), 0);
	assert_int_equal(vuf_rdma_poll_cq(na.d, na.cqn, wc, 2), 0);
	/* and a new SEND meets that receive */
	send64(qa, 0x400, VRDMA_SEND_SIGNALED);
	wait_wc(&nb, nb.cqn, wc, 1);
	assert_wc(&wc[0], 0x300, 0, 3, qb);
	wait_wc(&na, na.cqn, wc, 1);
	assert_wc(&wc[0], 0x400, 0, 0, qa);
	rc_destroy(qa, qb);
}

/*
 * A QP created without a receive queue (max_recv_wr 0, as for a send-only
 * QP) can never take a receive request: it fails (LOC_QP_OP_ERR, QP in ERR)
 * instead of waiting in the ring for ever.
 */
static void
test_receive_on_a_qp_without_receive_queue_fails(void **state)
{
	struct vrdma_cmd_create_qp c = qp_cmd(&na, 2, na.cqn);
	struct vrdma_cq_req wc[1];
	struct vrdma_sge s = sge(&na, 0, 64);
	uint32_t qa;

	(void)state;
	c.cap.max_recv_wr = 0;
	assert_int_equal(vuf_rdma_create_qp(na.d, &c, &qa), 0);
	{
		struct vrdma_cmd_modify_qp m;

		memset(&m, 0, sizeof(m));
		m.a.qp_access_flags = htole32(1);
		modify(&na, qa, 1, 1u << 2, &m);
	}
	assert_int_equal(vuf_rdma_post_recv(na.d, qa, 0x55, &s, 1), 0);
	wait_wc(&na, na.cqn, wc, 1);
	assert_wc(&wc[0], 0x55, 2 /* LOC_QP_OP_ERR */, 3, qa);
	assert_int_equal(qp_state(&na, qa), 6);
	assert_int_equal(vuf_rdma_destroy_qp(na.d, qa), 0);
}

/*
 * The device takes a ring's requests a burst at a time: a malformed request
 * among them still completes in ring order. A's send ring and B's receive
 * ring each get a good request, a refused one (an unknown opcode; a receive
 * carrying more SGEs than it says) and a good one before the device polls:
 * each QP's completions come in that order, the first flushed by the error
 * the second raises, the third flushed in ERR.
 */
static void
test_a_refused_request_in_a_burst_keeps_ring_order(void **state)
{
	struct vrdma_sge s[2] = { sge(&na, 0, 64), sge(&na, 64, 64) };
	uint32_t max_qps, max_cqs, qa, qb;
	struct vrdma_cq_req wc[3];
	struct vrdma_rq_req q;
	struct vrdma_sq_req r;
	struct vuf_vq *vq;
	struct vuf_buf b;

	(void)state;
	rc_pair(&qa, &qb);
	vuf_rdma_limits(na.d, &max_qps, &max_cqs);
	/* A: SEND 0xa1, a request of no such opcode (0xa2), SEND 0xa3 */
	send64(qa, 0xa1, VRDMA_SEND_SIGNALED);
	memset(&r, 0, sizeof(r));
	r.wr_id = htole64(0xa2);
	r.opcode = 9;
	r.num_sge = htole32(1);
	assert_int_equal(vuf_rdma_post_send(na.d, qa, &r, s), 0);
	send64(qa, 0xa3, VRDMA_SEND_SIGNALED);
	/* B: receive 0xb1, one saying 1 SGE but carrying 2 (0xb2), receive 0xb3 */
	s[0] = sge(&nb, 0, 64);
	s[1] = sge(&nb, 64, 64);
	assert_int_equal(vuf_rdma_post_recv(nb.d, qb, 0xb1, s, 1), 0);
	q = (struct vrdma_rq_req){ .wr_id = htole64(0xb2), .num_sge = htole32(1) };
	b.len = sizeof(q) + sizeof(s);
	b.addr = vuf_mem_alloc(vuf_rdma_mem(nb.d), b.len, 64);
	memcpy(b.addr, &q, sizeof(q));
	memcpy((uint8_t *)b.addr + sizeof(q), s, sizeof(s));
	vq = vuf_rdma_ring(nb.d, vrdma_sq_ring(max_cqs, qb) + 1);
	assert_int_equal(vuf_vq_add(vq, &b, 1, NULL, 0, NULL), 0);
	assert_int_equal(vuf_rdma_post_recv(nb.d, qb, 0xb3, s, 1), 0);

	wait_wc(&na, na.cqn, wc, 3);
	assert_wc(&wc[0], 0xa1, 4 /* WR_FLUSH_ERR */, 0, qa);
	assert_wc(&wc[1], 0xa2, 2 /* LOC_QP_OP_ERR */, 0, qa);
	assert_wc(&wc[2], 0xa3, 4, 0, qa);
	wait_wc(&nb, nb.cqn, wc, 3);
	assert_wc(&wc[0], 0xb1, 4, 3, qb);
	assert_wc(&wc[1], 0xb2, 2, 3, qb);
	assert_wc(&wc[2], 0xb3, 4, 3, qb);
	assert_int_equal(qp_state(&na, qa), 6 /* ERR */);
	assert_int_equal(qp_state(&nb, qb), 6);
	rc_destroy(qa, qb);
}

/*
 * A send ring longer than the QP's send queue (3 requests in a ring of 4):
 * of a burst of 4, the device posts 3 and leaves the 4th in the ring until
 * the queue has room again. All 4 arrive, in order, none lost or doubled.
 */
static void
test_requests_beyond_a_full_queue_wait_in_the_ring(void **state)
{
	struct vrdma_cq_req wc[4];
	struct vrdma_dev_info ia;
	uint32_t qa, qb, k;

	(void)state;
	rc_pair_sq(3, &qa, &qb);
	sends(qa, qb, 0xc0, 4, true);
	/* A alone (B answers nothing): three go, the fourth waits, unread */
	vrdma_dev_poll(na.dev);
	vrdma_dev_info_get(na.dev, &ia);
	assert_int_equal(ia.sq_posted, 3);
	for (k = 0; k < 20; k++)
		assert_int_equal(vrdma_dev_poll(na.dev), 0);
	wait_wc(&nb, nb.cqn, wc, 4);
	for (k = 0; k < 4; k++)
		assert_wc(&wc[k], 0xc0 + k, 0, 3, qb);
	wait_wc(&na, na.cqn, wc, 4);
	for (k = 0; k < 4; k++)
		assert_wc(&wc[k], 0xc0 + k, 0, 0, qa);
	for (k = 0; k < 50; k++)
		poll_both(NULL);
	assert_int_equal(vuf_rdma_poll_cq(nb.d, nb.cqn, wc, 4), 0);
	assert_int_equal(vuf_rdma_poll_cq(na.d, na.cqn, wc, 4), 0);
	vrdma_dev_info_get(na.dev, &ia);
	assert_int_equal(ia.wr_refused, 0);
	assert_int_equal(qp_state(&na, qa), 3 /* RTS */);
	rc_destroy(qa, qb);
}

/*
 * A chain the ring reader refuses (longer than any request), behind a
 * request waiting for room in a full send queue, is read once, when its turn
 * comes: not read, refused and counted again at every poll while the queue
 * is full.
 */
static void
test_a_refused_chain_behind_a_full_queue_is_counted_once(void **state)
{
	uint32_t max_qps, max_cqs, qa, qb, k;
	struct vrdma_dev_info ia;
	struct vrdma_cq_req wc[6];
	struct vuf_vq *vq;
	struct vuf_buf b;

	(void)state;
	rc_pair_sq(5, &qa, &qb);
	/* six SENDs for a queue of five, then a chain of 1089 readable bytes */
	sends(qa, qb, 0xd0, 6, true);
	vuf_rdma_limits(na.d, &max_qps, &max_cqs);
	/* one byte past the longest request: its head and 32 SGEs (lib/roce's most) */
	b.len = sizeof(struct vrdma_sq_req) + 32 * sizeof(struct vrdma_sge) + 1;
	b.addr = vuf_mem_alloc(vuf_rdma_mem(na.d), b.len, 64);
	vq = vuf_rdma_ring(na.d, vrdma_sq_ring(max_cqs, qa));
	assert_int_equal(vuf_vq_add(vq, &b, 1, NULL, 0, NULL), 0);
	/* A alone: five go; the sixth and the long chain wait */
	for (k = 0; k < 20; k++)
		vrdma_dev_poll(na.dev);
	vrdma_dev_info_get(na.dev, &ia);
	assert_int_equal(ia.sq_posted, 5);
	assert_int_equal(ia.vq_too_long, 0);
	assert_int_equal(ia.wq_bad_chain, 0);
	/* room again: the sixth goes, then the long chain is refused (QP in ERR), once */
	wait_wc(&na, na.cqn, wc, 6);
	for (k = 0; k < 6; k++)
		assert_int_equal(le64toh(wc[k].wr_id), 0xd0 + k);
	for (k = 0; k < 20; k++)
		poll_both(NULL);
	vrdma_dev_info_get(na.dev, &ia);
	assert_int_equal(ia.sq_posted, 6);
	assert_int_equal(ia.vq_too_long, 1);
	assert_int_equal(ia.wq_bad_chain, 1);
	assert_int_equal(qp_state(&na, qa), 6 /* ERR */);
	rc_destroy(qa, qb);
}

/* Connected RC QPs on A and B, B's granting @p b_access (A's: every access). */
static void
rc_pair_access(uint32_t b_access, uint32_t *qa, uint32_t *qb)
{
	struct vrdma_cmd_create_qp c = qp_cmd(&na, 2, na.cqn);

	assert_int_equal(vuf_rdma_create_qp(na.d, &c, qa), 0);
	c = qp_cmd(&nb, 2, nb.cqn);
	assert_int_equal(vuf_rdma_create_qp(nb.d, &c, qb), 0);
	rc_connect_access(&na, *qa, &nb, *qb, 1 | 2 | 4 | VRDMA_ACCESS_REMOTE_ATOMIC);
	rc_connect_access(&nb, *qb, &na, *qa, b_access);
}

/* Post an atomic from A's QP @p qa to B's word at @p remote_off of MR @p rkey. */
static void
atomic_post(uint32_t qa, uint64_t id, uint8_t opcode, uint32_t rkey, uint32_t remote_off,
	    uint64_t compare_add, uint64_t swap, const struct vrdma_sge *res)
{
	struct vrdma_sq_req r;

	memset(&r, 0, sizeof(r));
	r.wr_id = htole64(id);
	r.opcode = opcode;
	r.send_flags = VRDMA_SEND_SIGNALED;
	r.atomic.remote_addr = htole64(vuf_rdma_gpa(nb.d, nb.buf + remote_off));
	r.atomic.rkey = htole32(rkey);
	r.atomic.compare_add = htole64(compare_add);
	r.atomic.swap = htole64(swap);
	r.num_sge = htole32(1);
	assert_int_equal(vuf_rdma_post_send(na.d, qa, &r, res), 0);
}

static uint64_t
word_at(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/*
 * The atomics extension: QUERY_DEVICE says HCA; FETCH_AND_ADD and
 * CMP_AND_SWP (hit and miss) between two devices change B's word as verbs
 * says, land each original in A's 8-byte result, and complete as
 * FETCH_ADD / COMP_SWAP (5, 6) with 8 bytes. B's MR registered with
 * REMOTE_ATOMIC on the user MR path (REG_USER_MR), B's QP granting it.
 */
static void
test_rc_atomics_change_the_peer_word_and_return_the_original(void **state)
{
	static const struct {
		uint8_t op;
		uint64_t cmp_add, swap, orig, after;
	} step[] = {
		{ VRDMA_WR_ATOMIC_FETCH_AND_ADD, 5, 0, 100, 105 },
		{ VRDMA_WR_ATOMIC_FETCH_AND_ADD, 5, 0, 105, 110 },
		{ VRDMA_WR_ATOMIC_FETCH_AND_ADD, UINT64_MAX, 0, 110, 109 },   /* wraps: -1 */
		{ VRDMA_WR_ATOMIC_CMP_AND_SWP, 109, 0x1122334455667788ull, 109,
		  0x1122334455667788ull },                                      /* hit */
		{ VRDMA_WR_ATOMIC_CMP_AND_SWP, 109, 7, 0x1122334455667788ull,
		  0x1122334455667788ull },                                      /* miss */
	};
	struct vrdma_ack_query_device qd;
	struct vrdma_dev_info ia, ib;
	struct vrdma_cq_req wc[1];
	struct vrdma_sge res;
	uint32_t qa, qb, lk, rk, k;
	uint64_t v = 100;

	(void)state;
	assert_int_equal(vuf_rdma_cmd(na.d, VRDMA_CMD_QUERY_DEVICE, NULL, 0, &qd, sizeof(qd)), 0);
	assert_int_equal(qd.atomic_cap, VRDMA_ATOMIC_HCA);
	/* B's second MR, over the upper half of its buffer, grants remote atomics */
	assert_int_equal(vuf_rdma_reg_mr(nb.d, nb.pdn, nb.buf + 4096, 4096,
					 1 | VRDMA_ACCESS_REMOTE_ATOMIC, &lk, &rk), 0);
	rc_pair_access(1 | 2 | 4 | VRDMA_ACCESS_REMOTE_ATOMIC, &qa, &qb);
	memset(nb.buf, 0xee, BUF);
	memcpy(nb.buf + 4096 + 64, &v, 8);
	memset(na.buf, 0xee, BUF);
	for (k = 0; k < RTE_DIM(step); k++) {
		res = sge(&na, 8 * k, 8);
		atomic_post(qa, 0xa0 + k, step[k].op, rk, 4096 + 64, step[k].cmp_add, step[k].swap,
			    &res);
		wait_wc(&na, na.cqn, wc, 1);
		assert_wc(&wc[0], 0xa0 + k, 0, step[k].op == VRDMA_WR_ATOMIC_CMP_AND_SWP ?
			  VRDMA_WC_COMP_SWAP : VRDMA_WC_FETCH_ADD, qa);
		assert_int_equal(le32toh(wc[0].byte_len), 8);
		assert_int_equal(word_at(na.buf + 8 * k), step[k].orig);
		assert_int_equal(word_at(nb.buf + 4096 + 64), step[k].after);
	}
	/* nothing around the word or the results moved */
	assert_int_equal(word_at(nb.buf + 4096 + 56), 0xeeeeeeeeeeeeeeeeull);
	assert_int_equal(word_at(nb.buf + 4096 + 72), 0xeeeeeeeeeeeeeeeeull);
	assert_int_equal(word_at(na.buf + 8 * RTE_DIM(step)), 0xeeeeeeeeeeeeeeeeull);
	/* B saw no receive, no completion: the atomics are A's alone */
	poll_both(NULL);
	assert_int_equal(vuf_rdma_poll_cq(nb.d, nb.cqn, wc, 1), 0);
	vrdma_dev_info_get(na.dev, &ia);
	vrdma_dev_info_get(nb.dev, &ib);
	assert_int_equal(ia.sq_posted, RTE_DIM(step));
	assert_int_equal(ia.cqe_written, RTE_DIM(step));
	assert_int_equal(ib.cqe_written, 0);
	assert_int_equal(ia.wr_refused + ib.wr_refused, 0);
	assert_int_equal(qp_state(&na, qa), 3 /* RTS */);
	assert_int_equal(qp_state(&nb, qb), 3);
	rc_destroy(qa, qb);
	assert_int_equal(vuf_rdma_cmd(nb.d, VRDMA_CMD_DEREG_MR, &(uint32_t){ htole32(lk) }, 4,
				      NULL, 0), 0);
}

/*
 * Malformed atomics: a result SGE of 4 bytes, a misaligned one, two SGEs,
 * a misaligned remote address, inline data, an atomic on a UD QP: each
 * completes with LOC_QP_OP_ERR (A's QP in ERR, counted in wr_refused) and
 * never reaches B. Then the responder's refusals: an MR without
 * REMOTE_ATOMIC, and a QP without it, each complete with REM_ACCESS_ERR
 * (counted by B's engine, send_rem_access_err) and leave B's word as it was.
 */
static void
test_malformed_or_unauthorized_atomics_fail_into_completions(void **state)
{
	enum { SHORT, MISALIGNED, TWO_SGES, REMOTE_MISALIGNED, INLINE, UD, NO_MR_ACCESS,
	       NO_QP_ACCESS, CASES };
	struct roce_dev_stats e0, e1;
	struct vrdma_dev_info a0, a1, b0, b1;
	struct vrdma_cq_req wc[1];
	struct vrdma_sge res[2];
	uint32_t qa, qb, lk, rk, k, want;
	uint64_t v = 42;

	(void)state;
	assert_int_equal(vuf_rdma_reg_mr(nb.d, nb.pdn, nb.buf + 4096, 4096,
					 1 | VRDMA_ACCESS_REMOTE_ATOMIC, &lk, &rk), 0);
	for (k = 0; k < CASES; k++) {
		struct vrdma_sq_req r;

		if (k == UD) {
			struct vrdma_cmd_create_qp c = qp_cmd(&na, 4, na.cqn);
			struct vrdma_cmd_modify_qp m;

			assert_int_equal(vuf_rdma_create_qp(na.d, &c, &qa), 0);
			memset(&m, 0, sizeof(m));
			m.a.qkey = htole32(0x1111);
			modify(&na, qa, 1, 1u << 3, &m);
			memset(&m, 0, sizeof(m));
			modify(&na, qa, 2, 0, &m);
			memset(&m, 0, sizeof(m));
			modify(&na, qa, 3, 1u << 12, &m);  /* RTS: SQ_PSN */
			qb = 0;
		} else {
			rc_pair_access(1 | 2 | 4 | (k == NO_QP_ACCESS ? 0 :
				       VRDMA_ACCESS_REMOTE_ATOMIC), &qa, &qb);
		}
		memcpy(nb.buf + 4096 + 64, &v, 8);
		vrdma_dev_info_get(na.dev, &a0);
		vrdma_dev_info_get(nb.dev, &b0);
		assert_int_equal(vrdma_dev_engine_stats(nb.dev, &e0), 0);
		memset(&r, 0, sizeof(r));
		r.wr_id = htole64(0x50 + k);
		r.opcode = VRDMA_WR_ATOMIC_FETCH_AND_ADD;
		r.send_flags = VRDMA_SEND_SIGNALED;
		r.atomic.remote_addr = htole64(vuf_rdma_gpa(nb.d, nb.buf + 4096 + 64));
		r.atomic.rkey = htole32(k == NO_MR_ACCESS ? nb.rkey : rk);
		r.atomic.compare_add = htole64(1);
		r.num_sge = htole32(1);
		res[0] = sge(&na, 0, 8);
		res[1] = sge(&na, 4, 4);
		if (k == SHORT)
			res[0] = sge(&na, 0, 4);
		else if (k == MISALIGNED)
			res[0] = sge(&na, 4, 8);
		else if (k == TWO_SGES)
			res[0] = sge(&na, 0, 4), r.num_sge = htole32(2);
		else if (k == REMOTE_MISALIGNED)
			r.atomic.remote_addr = htole64(vuf_rdma_gpa(nb.d, nb.buf + 4096 + 68));
		else if (k == INLINE)
			r.send_flags |= VRDMA_SEND_INLINE, r.inline_len = htole16(8);
		else if (k == NO_MR_ACCESS)
			/* B's first MR, registered without REMOTE_ATOMIC, over the same word */
			r.atomic.remote_addr = htole64(vuf_rdma_gpa(nb.d, nb.buf + 4096 + 64));
		assert_int_equal(vuf_rdma_post_send(na.d, qa, &r, k == INLINE ? NULL : res), 0);
		wait_wc(&na, na.cqn, wc, 1);
		want = k >= NO_MR_ACCESS ? VRDMA_WC_REM_ACCESS_ERR : VRDMA_WC_LOC_QP_OP_ERR;
		if (le64toh(wc[0].wr_id) != 0x50 + k || wc[0].status != want)
			fail_msg("case %u: wr_id 0x%" PRIx64 " status %s, expected %s", k,
				 le64toh(wc[0].wr_id), vrdma_wc_status_str(wc[0].status),
				 vrdma_wc_status_str((uint8_t)want));
		assert_int_equal(wc[0].opcode, VRDMA_WC_FETCH_ADD);
		assert_int_equal(qp_state(&na, qa), 6 /* ERR */);
		vrdma_dev_info_get(na.dev, &a1);
		vrdma_dev_info_get(nb.dev, &b1);
		assert_int_equal(vrdma_dev_engine_stats(nb.dev, &e1), 0);
		assert_int_equal(a1.wr_refused - a0.wr_refused, k < NO_MR_ACCESS ? 1 : 0);
		assert_int_equal(a1.sq_posted - a0.sq_posted, k < NO_MR_ACCESS ? 0 : 1);
		assert_int_equal(e1.send_rem_access_err - e0.send_rem_access_err,
				 k < NO_MR_ACCESS ? 0 : 1);
		/* B's word, B's queues: as they were */
		assert_int_equal(word_at(nb.buf + 4096 + 64), 42);
		assert_int_equal(b1.wr_refused - b0.wr_refused, 0);
		assert_int_equal(b1.cqe_written - b0.cqe_written, 0);
		if (k == UD) {
			assert_int_equal(vuf_rdma_destroy_qp(na.d, qa), 0);
			continue;
		}
		/* the responder refuses by NAK and its QP enters ERR (IBA); else it never heard */
		assert_int_equal(qp_state(&nb, qb), k < NO_MR_ACCESS ? 3 : 6);
		rc_destroy(qa, qb);
	}
	assert_int_equal(vuf_rdma_cmd(nb.d, VRDMA_CMD_DEREG_MR, &(uint32_t){ htole32(lk) }, 4,
				      NULL, 0), 0);
}

/* The ABI header names completion statuses as lib/roce does (vrdma-perf prints them so). */
/* What the VLAN test's tap saw, and the VIDs it puts on A's datagrams in turn. */
static struct {
	unsigned int frames, tagged, datagrams;
	uint16_t tci[8];
} vt;
static const uint16_t vt_vid[3] = { 9, 0, 7 };

static void
vlan_tap(struct rte_mbuf *m)
{
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);

	vt.frames++;
	if (p[12] != 0x81 || p[13] != 0x00)
		return;
	if (vt.tagged < RTE_DIM(vt.tci))
		vt.tci[vt.tagged] = (uint16_t)(p[14] << 8 | p[15]);
	vt.tagged++;
	/* A's UD datagrams: another VID, a priority tag, ours */
	if (vt.datagrams < RTE_DIM(vt_vid)) {
		p[14] = (uint8_t)((p[14] & 0xf0) | vt_vid[vt.datagrams] >> 8);
		p[15] = (uint8_t)vt_vid[vt.datagrams];
		vt.datagrams++;
	}
}

/*
 * --vlan (vrdma_conf.vlan_id 7): the frames an AH sends are tagged with VID
 * 7 and the PCP of the traffic class's top 3 bits (0xa0: 5); the receiving
 * engine takes VID 7 and VID 0 (a priority tag) and drops another VID,
 * counting it (rx_bad_vlan).
 */
static void
test_roce_frames_carry_the_vlan_and_its_pcp(void **state)
{
	struct vrdma_cmd_create_ah ah = { .pdn = htole32(na.pdn) };
	struct vrdma_cmd_create_qp c;
	struct vrdma_cmd_modify_qp m;
	struct roce_dev_stats est;
	struct vrdma_cq_req wc[3];
	struct vrdma_ack_handle h;
	struct vrdma_sq_req r;
	struct vrdma_sge s;
	uint32_t qa, qb, ahn, i;
	struct {
		struct node *n;
		uint32_t *q;
	} both[2] = { { &na, &qa }, { &nb, &qb } };

	(void)state;
	memset(&vt, 0, sizeof(vt));
	for (i = 0; i < 2; i++) {
		struct node *n = both[i].n;

		c = qp_cmd(n, 4, n->cqn);
		assert_int_equal(vuf_rdma_create_qp(n->d, &c, both[i].q), 0);
		memset(&m, 0, sizeof(m));
		m.a.qkey = htole32(0x1111);
		modify(n, *both[i].q, 1, 1u << 3, &m);    /* INIT: QKEY */
		memset(&m, 0, sizeof(m));
		modify(n, *both[i].q, 2, 0, &m);          /* RTR */
		memset(&m, 0, sizeof(m));
		m.a.sq_psn = htole32(7);
		modify(n, *both[i].q, 3, 1u << 12, &m);   /* RTS: SQ_PSN */
	}
	memcpy(ah.ah_attr.grh.dgid, nb.gid, 16);
	ah.ah_attr.grh.hop_limit = 64;
	ah.ah_attr.grh.traffic_class = 0xa0;
	memcpy(ah.ah_attr.dmac, nb.mac, 6);
	assert_int_equal(vuf_rdma_cmd(na.d, VRDMA_CMD_CREATE_AH, &ah, sizeof(ah), &h, sizeof(h)),
			 0);
	ahn = le32toh(h.handle);
	for (i = 0; i < 3; i++) {
		s = sge(&nb, 128 * i, 40 + 64);
		assert_int_equal(vuf_rdma_post_recv(nb.d, qb, 0xd0 + i, &s, 1), 0);
	}
	a2b_tap = vlan_tap;
	for (i = 0; i < 3; i++) {
		memset(&r, 0, sizeof(r));
		r.wr_id = htole64(0xc0 + i);
		r.opcode = 2;
		r.send_flags = VRDMA_SEND_SIGNALED;
		r.ud.remote_qpn = htole32(qb);
		r.ud.remote_qkey = htole32(0x1111);
		r.ud.ah = htole32(ahn);
		r.num_sge = htole32(1);
		s = sge(&na, 0, 64);
		assert_int_equal(vuf_rdma_post_send(na.d, qa, &r, &s), 0);
		wait_wc(&na, na.cqn, wc, 1);
		assert_wc(&wc[0], 0xc0 + i, 0, 0, qa);
	}
	/* the datagrams of VID 0 and 7 arrive, in order; VID 9's is dropped */
	wait_wc(&nb, nb.cqn, wc, 2);
	assert_wc(&wc[0], 0xd0, 0, 3, qb);
	assert_wc(&wc[1], 0xd1, 0, 3, qb);
	a2b_tap = NULL;
	assert_int_equal(vt.frames, 3);
	assert_int_equal(vt.tagged, 3);
	for (i = 0; i < 3; i++)
		assert_int_equal(vt.tci[i], 5u << 13 | 7);
	assert_int_equal(vrdma_dev_engine_stats(nb.dev, &est), 0);
	assert_int_equal(est.rx_bad_vlan, 1);
	assert_int_equal(est.rcvd_pkts, 2);
	assert_int_equal(vuf_rdma_destroy_qp(na.d, qa), 0);
	assert_int_equal(vuf_rdma_destroy_qp(nb.d, qb), 0);
}

static void
test_status_names_are_lib_roce_s(void **state)
{
	unsigned int st;

	(void)state;
	for (st = 0; st <= VRDMA_WC_GENERAL_ERR + 1; st++)
		assert_string_equal(vrdma_wc_status_str((uint8_t)st),
				    roce_wc_status_str((enum roce_wc_status)st));
	assert_string_equal(vrdma_wc_status_str(VRDMA_WC_WR_FLUSH_ERR), "WR_FLUSH_ERR");
	assert_string_equal(vrdma_wc_status_str(255), "?");
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rc_send_write_read_move_the_bytes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_ud_send_through_an_ah, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gsi_qp_is_qp1_and_carries_mads, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_armed_cq_signals_the_guest_once, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_solicited_arm_waits_for_a_solicited_send,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed_requests_fail_into_completions,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_cq_overflow_puts_the_qp_in_error, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_arming_with_completions_held_back_signals_their_delivery, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_requests_wait_for_their_qp_and_reset_discards_them, setup, teardown),
		cmocka_unit_test_setup_teardown(test_receive_on_a_qp_without_receive_queue_fails,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_refused_request_in_a_burst_keeps_ring_order,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_requests_beyond_a_full_queue_wait_in_the_ring,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_a_refused_chain_behind_a_full_queue_is_counted_once, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_rc_atomics_change_the_peer_word_and_return_the_original, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_malformed_or_unauthorized_atomics_fail_into_completions, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_roce_frames_carry_the_vlan_and_its_pcp,
						setup_vlan, teardown),
		cmocka_unit_test(test_status_names_are_lib_roce_s),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests(tests, group_up, group_down);
}
