/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _ROCE_TEST_UTIL_H_
#define _ROCE_TEST_UTIL_H_

/*
 * Two lib/roce endpoints joined by a simulated wire: each device's tx ring
 * is carried to the other's rx ring by rt_pump(), which can lose, duplicate,
 * reorder and corrupt frames with given per-mille rates (deterministic
 * PRNG), and can show every frame to a tap (pcap writers, counters).
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "roce.h"
#include "test_eal.h"

#define RT_MEM_SIZE (4u << 20)
#define RT_HELD_MAX 64

struct rt_node {
	struct roce_dev *dev;
	struct rte_ring *rx;
	struct rte_ring *tx;
	struct roce_pd *pd;
	struct roce_cq *scq;
	struct roce_cq *rcq;
	struct roce_mr *mr;
	uint8_t *mem;
	uint8_t mac[6];
	uint8_t gid[ROCE_GID_LEN];
};

struct rt_wire {
	uint32_t loss_pm;     /* per mille */
	uint32_t dup_pm;
	uint32_t reorder_pm;  /* held back and sent after the next frame */
	uint32_t corrupt_pm;  /* one byte flipped */
	uint64_t seed;
	uint64_t carried, lost, duplicated, reordered, corrupted;
	/* optional tap: sees every frame as it enters the wire */
	void (*tap)(void *arg, int from, const struct rte_mbuf *m);
	void *tap_arg;
	/* optional filter: return false to drop a frame (counted as lost) */
	bool (*filter)(void *arg, int from, struct rte_mbuf *m);
	void *filter_arg;
	struct rte_mbuf *held[2];
};

struct rt_pair {
	struct rt_node n[2];
	struct rt_wire wire;
};

static inline void
rt_gid_v4(uint8_t *gid, uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	memset(gid, 0, ROCE_GID_LEN);
	gid[10] = gid[11] = 0xff;
	gid[12] = a;
	gid[13] = b;
	gid[14] = c;
	gid[15] = d;
}

static inline int
rt_node_init(struct rt_node *n, int idx, const char *tag, uint16_t mtu, bool ipv6)
{
	struct roce_dev_conf conf;
	struct roce_cq_conf cqc = { .cqe = 4096 };
	struct roce_mr_conf mrc;
	char name[RTE_RING_NAMESIZE];
	char err[ROCE_ERR_LEN];

	memset(n, 0, sizeof(*n));
	snprintf(name, sizeof(name), "rt_%s_rx%d", tag, idx);
	n->rx = rte_ring_create(name, 4096, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "rt_%s_tx%d", tag, idx);
	n->tx = rte_ring_create(name, 4096, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (n->rx == NULL || n->tx == NULL)
		return -1;
	n->mac[0] = 0x02;
	n->mac[5] = (uint8_t)(idx + 1);
	memset(&conf, 0, sizeof(conf));
	conf.name = idx ? "B" : "A";
	memcpy(conf.mac, n->mac, 6);
	conf.mtu = mtu;
	conf.rx_ring = n->rx;
	conf.tx_ring = n->tx;
	conf.pool = test_pool;
	conf.socket_id = SOCKET_ID_ANY;
	n->dev = roce_dev_create(&conf, err, sizeof(err));
	if (n->dev == NULL) {
		fprintf(stderr, "roce_dev_create: %s\n", err);
		return -1;
	}
	if (ipv6) {
		memset(n->gid, 0, sizeof(n->gid));
		n->gid[0] = 0xfd;
		n->gid[15] = (uint8_t)(idx + 1);
	} else {
		rt_gid_v4(n->gid, 10, 0, 0, (uint8_t)(idx + 1));
	}
	if (roce_gid_set(n->dev, 1, n->gid) < 0)
		return -1;
	n->pd = roce_pd_alloc(n->dev);
	n->scq = roce_cq_create(n->dev, &cqc);
	n->rcq = roce_cq_create(n->dev, &cqc);
	n->mem = rte_zmalloc("rt_mem", RT_MEM_SIZE, 64);
	if (n->pd == NULL || n->scq == NULL || n->rcq == NULL || n->mem == NULL)
		return -1;
	memset(&mrc, 0, sizeof(mrc));
	mrc.iova = 0x10000000;
	mrc.length = RT_MEM_SIZE;
	mrc.access = ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
		     ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC;
	mrc.host = n->mem;
	n->mr = roce_mr_reg(n->pd, &mrc);
	return n->mr == NULL ? -1 : 0;
}

static inline void
rt_node_fini(struct rt_node *n)
{
	struct rte_mbuf *m;

	roce_dev_destroy(n->dev);
	while (n->rx != NULL && rte_ring_dequeue(n->rx, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	while (n->tx != NULL && rte_ring_dequeue(n->tx, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	rte_ring_free(n->rx);
	rte_ring_free(n->tx);
	rte_free(n->mem);
	memset(n, 0, sizeof(*n));
}

static inline int
rt_pair_init(struct rt_pair *p, const char *tag, uint16_t mtu, bool ipv6)
{
	memset(p, 0, sizeof(*p));
	p->wire.seed = 0x5eed;
	if (rt_node_init(&p->n[0], 0, tag, mtu, ipv6) < 0 ||
	    rt_node_init(&p->n[1], 1, tag, mtu, ipv6) < 0)
		return -1;
	return 0;
}

static inline void
rt_pair_fini(struct rt_pair *p)
{
	rte_pktmbuf_free(p->wire.held[0]);
	rte_pktmbuf_free(p->wire.held[1]);
	rt_node_fini(&p->n[0]);
	rt_node_fini(&p->n[1]);
}

static inline bool
rt_chance(struct rt_wire *w, uint32_t pm)
{
	return pm != 0 && test_rand(&w->seed) % 1000 < pm;
}

/* Carry frames of node @p from to the other node. @return frames moved. */
static inline unsigned int
rt_carry(struct rt_pair *p, int from)
{
	struct rt_wire *w = &p->wire;
	struct rte_ring *dst = p->n[!from].rx;
	struct rte_mbuf *pkts[64];
	unsigned int n, i;

	n = rte_ring_dequeue_burst(p->n[from].tx, (void **)pkts, RTE_DIM(pkts), NULL);
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		if (w->tap != NULL)
			w->tap(w->tap_arg, from, m);
		if ((w->filter != NULL && !w->filter(w->filter_arg, from, m)) ||
		    rt_chance(w, w->loss_pm)) {
			w->lost++;
			rte_pktmbuf_free(m);
			continue;
		}
		if (rt_chance(w, w->corrupt_pm)) {
			uint32_t off = (uint32_t)(test_rand(&w->seed) % rte_pktmbuf_data_len(m));

			rte_pktmbuf_mtod(m, uint8_t *)[off] ^= 0x10;
			w->corrupted++;
		}
		if (rt_chance(w, w->dup_pm)) {
			struct rte_mbuf *c = rte_pktmbuf_copy(m, test_pool, 0, UINT32_MAX);

			if (c != NULL && rte_ring_enqueue(dst, c) == 0)
				w->duplicated++;
			else
				rte_pktmbuf_free(c);
		}
		if (w->held[from] == NULL && rt_chance(w, w->reorder_pm)) {
			w->held[from] = m;
			w->reordered++;
			continue;
		}
		if (rte_ring_enqueue(dst, m) != 0) {
			w->lost++;
			rte_pktmbuf_free(m);
			continue;
		}
		w->carried++;
		if (w->held[from] != NULL) {
			if (rte_ring_enqueue(dst, w->held[from]) != 0)
				rte_pktmbuf_free(w->held[from]);
			w->held[from] = NULL;
		}
	}
	/* a held frame is not kept for ever when nothing follows it */
	if (n == 0 && w->held[from] != NULL) {
		if (rte_ring_enqueue(dst, w->held[from]) != 0)
			rte_pktmbuf_free(w->held[from]);
		w->held[from] = NULL;
	}
	return n;
}

/* One round: both devices poll, the wire carries. @return work done. */
static inline unsigned int
rt_round(struct rt_pair *p)
{
	unsigned int work = 0;

	work += roce_dev_poll(p->n[0].dev);
	work += roce_dev_poll(p->n[1].dev);
	work += rt_carry(p, 0);
	work += rt_carry(p, 1);
	return work;
}

/* Run until @p done says so or @p ms milliseconds pass. @return true when done. */
static inline bool
rt_run_until(struct rt_pair *p, bool (*done)(void *arg), void *arg, unsigned int ms)
{
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() / 1000 * ms;

	while (rte_get_tsc_cycles() < end) {
		rt_round(p);
		if (done != NULL && done(arg))
			return true;
	}
	return done == NULL;
}

/* Connect QP a of node 0 with QP b of node 1 (RC or UC) up to RTS. */
static inline int
rt_connect(struct rt_pair *p, struct roce_qp *a, struct roce_qp *b, uint8_t timeout,
	   uint8_t retry_cnt, uint8_t rnr_retry, uint8_t min_rnr_timer)
{
	struct roce_qp *qp[2] = { a, b };
	int i;

	for (i = 0; i < 2; i++) {
		struct roce_qp_attr at;
		struct roce_qp_init_attr ia;
		bool rc;
		int r;

		roce_qp_query(qp[i], NULL, &ia);
		rc = ia.qp_type == ROCE_QPT_RC;
		memset(&at, 0, sizeof(at));
		at.qp_state = ROCE_QPS_INIT;
		at.qp_access_flags = ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ |
				     ROCE_ACCESS_REMOTE_ATOMIC;
		r = roce_qp_modify(qp[i], &at, ROCE_QP_STATE | ROCE_QP_ACCESS_FLAGS);
		if (r < 0)
			return r;
		at.qp_state = ROCE_QPS_RTR;
		at.path_mtu = roce_dev_active_mtu(p->n[i].dev);
		at.dest_qp_num = roce_qp_num(qp[!i]);
		at.rq_psn = 0x100 * (uint32_t)(!i + 1);
		at.max_dest_rd_atomic = 16;
		at.min_rnr_timer = min_rnr_timer;
		memcpy(at.ah_attr.dgid, p->n[!i].gid, ROCE_GID_LEN);
		memcpy(at.ah_attr.dmac, p->n[!i].mac, 6);
		at.ah_attr.sgid_index = 1;
		at.ah_attr.vlan_id = ROCE_VLAN_NONE;
		r = roce_qp_modify(qp[i], &at, ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU |
				   ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN |
				   (rc ? ROCE_QP_MAX_DEST_RD_ATOMIC | ROCE_QP_MIN_RNR_TIMER : 0));
		if (r < 0)
			return r;
	}
	for (i = 0; i < 2; i++) {
		struct roce_qp_attr at;
		struct roce_qp_init_attr ia;
		bool rc;
		int r;

		roce_qp_query(qp[i], NULL, &ia);
		rc = ia.qp_type == ROCE_QPT_RC;
		memset(&at, 0, sizeof(at));
		at.qp_state = ROCE_QPS_RTS;
		at.sq_psn = 0x100 * (uint32_t)(i + 1);
		at.timeout = timeout;
		at.retry_cnt = retry_cnt;
		at.rnr_retry = rnr_retry;
		at.max_rd_atomic = 16;
		r = roce_qp_modify(qp[i], &at, ROCE_QP_STATE | ROCE_QP_SQ_PSN |
				   (rc ? ROCE_QP_TIMEOUT | ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY |
				    ROCE_QP_MAX_QP_RD_ATOMIC : 0));
		if (r < 0)
			return r;
	}
	return 0;
}

static inline struct roce_qp *
rt_qp(struct rt_node *n, enum roce_qp_type type, uint32_t wr)
{
	struct roce_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.qp_type = type;
	ia.send_cq = n->scq;
	ia.recv_cq = n->rcq;
	ia.cap.max_send_wr = wr;
	ia.cap.max_recv_wr = wr;
	ia.cap.max_send_sge = 4;
	ia.cap.max_recv_sge = 4;
	ia.cap.max_inline_data = 256;
	return roce_qp_create(n->pd, &ia);
}

/* A UD or GSI QP of node @p n with Q_Key @p qkey, taken to RTS at send PSN @p sq_psn. */
static inline struct roce_qp *
rt_ud_qp(struct rt_node *n, enum roce_qp_type type, uint32_t qkey, uint32_t sq_psn)
{
	struct roce_qp *qp = rt_qp(n, type, 16);
	struct roce_qp_attr at = { .qp_state = ROCE_QPS_INIT, .qkey = qkey };

	assert_non_null(qp);
	assert_int_equal(roce_qp_modify(qp, &at, ROCE_QP_STATE | ROCE_QP_QKEY), 0);
	at.qp_state = ROCE_QPS_RTR;
	assert_int_equal(roce_qp_modify(qp, &at, ROCE_QP_STATE), 0);
	at.qp_state = ROCE_QPS_RTS;
	at.sq_psn = sq_psn;
	assert_int_equal(roce_qp_modify(qp, &at, ROCE_QP_STATE | ROCE_QP_SQ_PSN), 0);
	return qp;
}

/* An SGE of node @p n's MR at offset @p off. */
static inline struct roce_sge
rt_sge(const struct rt_node *n, uint32_t off, uint32_t len)
{
	struct roce_sge s = {
		.addr = 0x10000000ull + off, .length = len, .lkey = roce_mr_lkey(n->mr),
	};

	return s;
}

/* Post one receive of @p len bytes at offset @p off of the node's MR (0: no SGE). */
static inline int
post_recv_at(struct roce_qp *qp, const struct rt_node *n, uint64_t id, uint32_t off,
	     uint32_t len)
{
	struct roce_sge s = rt_sge(n, off, len);
	struct roce_recv_wr wr = { .wr_id = id, .num_sge = len ? 1 : 0, .sg_list = &s };

	return roce_post_recv(qp, &wr, 1, NULL);
}

/* Post one signaled SEND/WRITE of @p len bytes at offset @p off (remote: same offset). */
static inline int
post_send_at(struct roce_qp *qp, const struct rt_node *n, uint64_t id, uint8_t op,
	     uint32_t off, uint32_t len)
{
	struct roce_sge s = rt_sge(n, off, len);
	struct roce_send_wr wr = {
		.wr_id = id, .opcode = op, .send_flags = ROCE_SEND_SIGNALED,
		.num_sge = 1, .sg_list = &s,
	};

	wr.rdma.remote_addr = 0x10000000ull + off;
	return roce_post_send(qp, &wr, 1, NULL);
}

/* Poll a CQ until @p want completions arrived (running the pair). @return how many. */
static inline int
rt_wait_wc(struct rt_pair *p, struct roce_cq *cq, struct roce_wc *wc, int want,
	   unsigned int ms)
{
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() / 1000 * ms;
	int got = 0;

	while (got < want && rte_get_tsc_cycles() < end) {
		int r;

		rt_round(p);
		r = roce_cq_poll(cq, wc + got, want - got);
		if (r < 0)
			return r;
		got += r;
	}
	return got;
}

#endif /* _ROCE_TEST_UTIL_H_ */
