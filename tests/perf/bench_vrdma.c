/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * The cost of the virtio layer: RC SEND between two devices, side A (sender) on lcore 0 (CPU 0) and side B (receiver) on
 * lcore 1 (CPU 1), joined by rte_rings, measured two ways in alternating
 * rounds of the same run:
 *
 *  - virtio: two lib/vrdma devices, each driven by lib/vufront's vuf_rdma
 *    as its guest in the same thread as the device's poll: requests go
 *    through the send/receive rings, completions through the CQ rings;
 *  - direct: two lib/roce devices, the same loop calling roce_post_send(),
 *    roce_post_recv() and roce_cq_poll() itself.
 *
 * Same workload both ways, two workloads, each on pairs of its own:
 *  - message rate: 64 B, up to 128 SENDs in flight, every 32nd signaled,
 *    256 receives posted;
 *  - bandwidth: 16 KiB (4 packets of 4096), 16 in flight, every 4th
 *    signaled, 64 receives;
 * each receive reposted as it completes; sends and receives are posted as
 * lists (one device notification per list, as a virtio driver batches).
 * The figure is the receiver's message rate (and bandwidth), the median of
 * the rounds, and the virtio rate as a share of the direct one (goal for
 * the message rate: 70% or more; printed, never a failure). A lost or
 * failed completion fails the run.
 * OMNIPLANE_PERF_QUICK=1 runs short rounds.
 */

#include <endian.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "roce.h"
#include "test_eal.h"
#include "test_wait.h"
#include "vrdma.h"
#include "vuf_rdma.h"
#include "bench_stats.h"

#define ROUNDS 5
#define ROUNDS_QUICK 3
#define DEPTH 128      /* most SENDs in flight (array sizes) */
#define RQ_DEPTH 256   /* most receives posted (array sizes) */
#define BURST 32
#define GOAL 0.70

/* One workload: message size, SENDs in flight, 1 in signal signaled, receives posted. */
struct workload {
	const char *name;
	uint32_t msg, depth, signal, rq;
};
static const struct workload wl_rate = { "message rate", 64, 128, 32, 256 };
static const struct workload wl_bw = { "bandwidth", 16384, 16, 4, 64 };
/* the workload of the sides being run or set up */
static const struct workload *wl = &wl_rate;
#define MSG (wl->msg)
#define SIGNAL (wl->signal)

/* One side's verbs, either way. */
struct side {
	bool virtio;
	/* direct */
	struct roce_dev *dev;
	struct roce_qp *qp;
	struct roce_cq *cq;
	uint32_t lkey;
	uint8_t *buf;
	/* virtio */
	struct vrdma_dev *vdev;
	struct vuf_rdma *d;
	uint32_t vqpn, vcqn, vlkey;
	/* both */
	uint8_t mac[6];
	uint8_t gid[16];
	uint64_t done;     /* sender: signaled completions; receiver: receives */
	uint64_t cycles, busy; /* TSC cycles of the loop's turns, and of those that did work */
	uint64_t seq, inflight; /* sender: next id, SENDs not known complete (kept across rounds) */
	int failed;
};

static struct rte_mempool *pool;
static volatile bool stop;
static char sock_dir[64];

static __rte_noreturn void
fail(const char *what)
{
	fprintf(stderr, "bench_vrdma: %s\n", what);
	exit(1);
}

/* ---------------- the two ways ---------------- */

/* @return the work the device's poll did (frames, requests, completions). */
static unsigned int
side_poll(struct side *s)
{
	return s->virtio ? vrdma_dev_poll(s->vdev) : roce_dev_poll(s->dev);
}

/* Count a turn of a side's loop that began at TSC @p t0: busy if anyone did work. */
static void
turn_done(struct side *s, uint64_t t0, bool work)
{
	uint64_t t = rte_rdtsc() - t0;

	s->cycles += t;
	if (work)
		s->busy += t;
}

/*
 * Post @p n SENDs, ids from @p first (every SIGNAL-th signaled), as one
 * list (one notification of the device). @return how many were posted.
 */
static unsigned int
post_sends(struct side *s, uint64_t first, unsigned int n)
{
	unsigned int i, done = 0;

	if (s->virtio) {
		static struct vrdma_sq_req r[DEPTH];
		const struct vrdma_sq_req *rp[DEPTH];
		const struct vrdma_sge *gp[DEPTH];
		struct vrdma_sge g = {
			.addr = htole64(vuf_rdma_gpa(s->d, s->buf)), .length = htole32(MSG),
			.lkey = htole32(s->vlkey),
		};

		for (i = 0; i < n; i++) {
			/* the head only: the inline area is not read without INLINE */
			memset(&r[i], 0, offsetof(struct vrdma_sq_req, inline_data));
			r[i].wr_id = htole64(first + i);
			r[i].opcode = ROCE_WR_SEND;
			r[i].send_flags = (first + i) % SIGNAL == SIGNAL - 1 ? VRDMA_SEND_SIGNALED : 0;
			r[i].num_sge = htole32(1);
			memset(r[i].reserved2, 0, sizeof(r[i].reserved2));
			rp[i] = &r[i];
			gp[i] = &g;
		}
		vuf_rdma_post_send_list(s->d, s->vqpn, rp, gp, n, &done);
	} else {
		struct roce_sge g = { .addr = (uintptr_t)s->buf, .length = MSG, .lkey = s->lkey };
		struct roce_send_wr w[DEPTH];

		for (i = 0; i < n; i++) {
			memset(&w[i], 0, sizeof(w[i]));
			w[i].wr_id = first + i;
			w[i].opcode = ROCE_WR_SEND;
			w[i].num_sge = 1;
			w[i].sg_list = &g;
			w[i].send_flags = (first + i) % SIGNAL == SIGNAL - 1 ? ROCE_SEND_SIGNALED : 0;
		}
		roce_post_send(s->qp, w, n, &done);
	}
	return done;
}

/* Post receives for @p ids as one list. @return 0, or -1 if one was not posted. */
static int
post_recvs(struct side *s, const uint64_t *ids, unsigned int n)
{
	unsigned int i, done = 0;

	if (s->virtio) {
		struct vrdma_sge g[RQ_DEPTH];

		for (i = 0; i < n; i++) {
			g[i].addr = htole64(vuf_rdma_gpa(s->d, s->buf + (ids[i] % wl->rq) * MSG));
			g[i].length = htole32(MSG);
			g[i].lkey = htole32(s->vlkey);
		}
		vuf_rdma_post_recv_list(s->d, s->vqpn, ids, g, 1, n, &done);
	} else {
		struct roce_sge g[RQ_DEPTH];
		struct roce_recv_wr w[RQ_DEPTH];

		for (i = 0; i < n; i++) {
			g[i].addr = (uintptr_t)(s->buf + (ids[i] % wl->rq) * MSG);
			g[i].length = MSG;
			g[i].lkey = s->lkey;
			w[i].wr_id = ids[i];
			w[i].num_sge = 1;
			w[i].sg_list = &g[i];
		}
		roce_post_recv(s->qp, w, n, &done);
	}
	return done == n ? 0 : -1;
}

/* Poll the CQ: @return completions (ids in @p ids), or -1 on a failed one. */
static int
poll_cq(struct side *s, uint64_t *ids)
{
	int n, i;

	if (s->virtio) {
		struct vrdma_cq_req wc[BURST];

		n = vuf_rdma_poll_cq(s->d, s->vcqn, wc, BURST);
		for (i = 0; i < n; i++) {
			if (wc[i].status != ROCE_WC_SUCCESS)
				return -1;
			ids[i] = le64toh(wc[i].wr_id);
		}
	} else {
		struct roce_wc wc[BURST];

		n = roce_cq_poll(s->cq, wc, BURST);
		for (i = 0; i < n; i++) {
			if (wc[i].status != ROCE_WC_SUCCESS)
				return -1;
			ids[i] = wc[i].wr_id;
		}
	}
	return n;
}

/* ---------------- the workload ---------------- */

static int
receiver(void *arg)
{
	struct side *s = arg;
	uint64_t ids[BURST];

	while (!stop) {
		uint64_t t0 = rte_rdtsc();
		unsigned int w = side_poll(s);
		int n, i;

		n = poll_cq(s, ids);
		if (n < 0) {
			s->failed = 1;
			return -1;
		}
		for (i = 0; i < n; i++)
			ids[i] += wl->rq;
		if (n > 0 && post_recvs(s, ids, (unsigned int)n) != 0) {
			s->failed = 1;
			return -1;
		}
		/* read by the sender's lcore */
		__atomic_store_n(&s->done, s->done + (uint64_t)n, __ATOMIC_RELAXED);
		turn_done(s, t0, w > 0 || n > 0);
	}
	return 0;
}

/*
 * Run one round, the sender here and the receiver on the next lcore:
 * @return the receiver's messages per second after 0.1 s of warm-up.
 */
static double
round_rate(struct side *a, struct side *b, double secs)
{
	uint64_t hz = rte_get_timer_hz(), ids[BURST];
	uint64_t t0, t1 = 0, r0 = 0, end, now;
	unsigned int lc = rte_get_next_lcore(rte_lcore_id(), 1, 0);

	stop = false;
	a->done = b->done = 0;
	a->cycles = a->busy = b->cycles = b->busy = 0;
	if (rte_eal_remote_launch(receiver, b, lc) != 0)
		fail("cannot launch the receiver");
	t0 = rte_get_timer_cycles();
	end = t0 + (uint64_t)(secs * hz);
	/* A round ends at its time once the warm-up mark was taken: a host too
	 * loaded to reach the mark in time makes a longer round, not a failure. */
	while ((now = rte_get_timer_cycles()) < end || t1 == 0) {
		uint64_t turn = rte_rdtsc();
		unsigned int w = side_poll(a), k = 0;
		int n;

		n = poll_cq(a, ids);
		if (n < 0) {
			a->failed = 1;
			break;
		}
		a->done += (uint64_t)n;
		/*
		 * every SIGNAL-th SEND is signaled and completes after those
		 * before it; what a round leaves in flight is still counted in
		 * the pair's next round
		 */
		a->inflight -= RTE_MIN(a->inflight, (uint64_t)n * SIGNAL);
		if (a->inflight < wl->depth) {
			k = post_sends(a, a->seq, (unsigned int)(wl->depth - a->inflight));
			a->seq += k;
			a->inflight += k;
		}
		turn_done(a, turn, w > 0 || n > 0 || k > 0);
		if (t1 == 0 && now - t0 > hz / 10) {
			r0 = __atomic_load_n(&b->done, __ATOMIC_RELAXED);
			t1 = now;
		}
	}
	stop = true;
	rte_eal_wait_lcore(lc);
	if (a->failed || b->failed)
		fail("a completion failed");
	return (double)(b->done - r0) * hz / (double)(rte_get_timer_cycles() - t1);
}

/* ---------------- set-up: direct ---------------- */

static void
gid_of(uint8_t *gid, uint8_t last)
{
	memset(gid, 0, 16);
	gid[10] = gid[11] = 0xff;
	gid[12] = 10;
	gid[15] = last;
}

static void
direct_up(struct side *s, uint8_t last, struct rte_ring *rx, struct rte_ring *tx)
{
	struct roce_dev_conf dc = { .name = last % 2 ? "direct_a" : "direct_b", .mtu = 4200,
				    .rx_ring = rx, .tx_ring = tx, .pool = pool,
				    .socket_id = SOCKET_ID_ANY };
	struct roce_cq_conf cc = { .cqe = 1024 };
	struct roce_mr_conf mc = { .length = RQ_DEPTH * 64 + 64 * 16384,
				   .access = ROCE_ACCESS_LOCAL_WRITE };
	struct roce_qp_init_attr ia = {
		.qp_type = ROCE_QPT_RC,
		.cap = { .max_send_wr = 256, .max_recv_wr = wl->rq, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct roce_pd *pd;
	struct roce_mr *mr;
	char err[ROCE_ERR_LEN];

	memset(s, 0, sizeof(*s));
	s->mac[0] = 2;
	s->mac[5] = last;
	memcpy(dc.mac, s->mac, 6);
	gid_of(s->gid, last);
	s->dev = roce_dev_create(&dc, err, sizeof(err));
	if (s->dev == NULL)
		fail(err);
	s->buf = rte_zmalloc("bench_vrdma", (size_t)wl->rq * MSG, 4096);
	mc.length = (uint64_t)wl->rq * MSG;
	mc.host = s->buf;
	mc.iova = (uintptr_t)s->buf;
	pd = roce_pd_alloc(s->dev);
	s->cq = roce_cq_create(s->dev, &cc);
	if (s->buf == NULL || pd == NULL || s->cq == NULL || roce_gid_set(s->dev, 0, s->gid) < 0)
		fail("direct set-up");
	mr = roce_mr_reg(pd, &mc);
	if (mr == NULL)
		fail("direct MR");
	s->lkey = roce_mr_lkey(mr);
	ia.send_cq = ia.recv_cq = s->cq;
	s->qp = roce_qp_create(pd, &ia);
	if (s->qp == NULL)
		fail("direct QP");
}

static void
direct_connect(struct side *s, const struct side *peer)
{
	struct roce_qp_attr at;

	memset(&at, 0, sizeof(at));
	at.qp_state = ROCE_QPS_INIT;
	at.qp_access_flags = ROCE_ACCESS_LOCAL_WRITE;
	if (roce_qp_modify(s->qp, &at, ROCE_QP_STATE | ROCE_QP_ACCESS_FLAGS) < 0)
		fail(roce_dev_last_error(s->dev));
	at.qp_state = ROCE_QPS_RTR;
	at.path_mtu = ROCE_MTU_4096;
	at.dest_qp_num = roce_qp_num(peer->qp);
	at.rq_psn = 100;
	at.max_dest_rd_atomic = 4;
	at.min_rnr_timer = 1;
	memcpy(at.ah_attr.dgid, peer->gid, 16);
	memcpy(at.ah_attr.dmac, peer->mac, 6);
	at.ah_attr.vlan_id = ROCE_VLAN_NONE;
	if (roce_qp_modify(s->qp, &at, ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU |
			   ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN | ROCE_QP_MAX_DEST_RD_ATOMIC |
			   ROCE_QP_MIN_RNR_TIMER) < 0)
		fail(roce_dev_last_error(s->dev));
	at.qp_state = ROCE_QPS_RTS;
	at.sq_psn = 100;
	at.timeout = 14;
	at.retry_cnt = 7;
	at.rnr_retry = 7;
	at.max_rd_atomic = 4;
	if (roce_qp_modify(s->qp, &at, ROCE_QP_STATE | ROCE_QP_SQ_PSN | ROCE_QP_TIMEOUT |
			   ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY | ROCE_QP_MAX_QP_RD_ATOMIC) < 0)
		fail(roce_dev_last_error(s->dev));
}

/* ---------------- set-up: virtio ---------------- */

/* the virtio pair being set up: both devices polled while commands wait */
static struct side *setup_a, *setup_b;

static void
poll_both(void *arg)
{
	(void)arg;
	if (setup_a != NULL && setup_a->vdev != NULL)
		vrdma_dev_poll(setup_a->vdev);
	if (setup_b != NULL && setup_b->vdev != NULL)
		vrdma_dev_poll(setup_b->vdev);
}

static void
poll_own(void *arg)
{
	vrdma_dev_poll(((struct side *)arg)->vdev);
}

static void
virtio_up(struct side *s, uint8_t last, struct rte_ring *rx, struct rte_ring *tx,
	  const char *path)
{
	struct vuf_rdma_conf vc = {
		.path = path, .mem_size = 16u << 20, .gpa_base = 0x40000000, .roce_bit = 55,
		.ctrl_class = 6, .timeout_ms = 5000, .poll = poll_both,
	};
	struct vrdma_cmd_create_qp q = {
		.qp_type = ROCE_QPT_RC,
		.cap = { .max_send_wr = htole32(256), .max_recv_wr = htole32(wl->rq),
			 .max_send_sge = htole32(1), .max_recv_sge = htole32(1) },
	};
	struct vrdma_cmd_add_gid g = { .index = 0 };
	struct vrdma_conf conf;
	uint32_t pdn = 0, rkey;
	char err[160];

	memset(s, 0, sizeof(*s));
	s->virtio = true;
	s->mac[0] = 2;
	s->mac[5] = last;
	gid_of(s->gid, last);
	vrdma_conf_init(&conf, path);
	conf.mtu = 4200;
	conf.roce_rx = rx;
	conf.roce_tx = tx;
	conf.pool = pool;
	memcpy(conf.mac.addr_bytes, s->mac, 6);
	s->vdev = vrdma_dev_create(&conf);
	if (s->vdev == NULL)
		fail("vrdma_dev_create");
	s->d = vuf_rdma_open(&vc, err, sizeof(err));
	if (s->d == NULL)
		fail(err);
	/* the device serves once it saw the connection */
	memcpy(g.gid, s->gid, 16);
	if (!test_wait_until(vuf_rdma_cmd(s->d, VRDMA_CMD_ADD_GID, &g, sizeof(g), NULL, 0) == 0,
			     5000))
		fail("ADD_GID not answered in 5 s");
	s->buf = vuf_mem_alloc(vuf_rdma_mem(s->d), (size_t)wl->rq * MSG, 4096);
	if (s->buf == NULL || vuf_rdma_create_pd(s->d, &pdn) != 0 ||
	    vuf_rdma_create_cq(s->d, 1024, &s->vcqn) != 0 ||
	    vuf_rdma_reg_mr(s->d, pdn, s->buf, (uint64_t)wl->rq * MSG, ROCE_ACCESS_LOCAL_WRITE,
			    &s->vlkey, &rkey) != 0)
		fail("virtio set-up");
	q.pdn = htole32(pdn);
	q.send_cqn = q.recv_cqn = htole32(s->vcqn);
	if (vuf_rdma_create_qp(s->d, &q, &s->vqpn) != 0)
		fail("virtio QP");
}

static void
virtio_modify(struct side *s, uint8_t state, uint32_t mask, struct vrdma_cmd_modify_qp *m)
{
	m->qpn = htole32(s->vqpn);
	m->qp_state = state;
	m->attr_mask = htole32(mask | 1u);
	if (vuf_rdma_modify_qp(s->d, m) != 0)
		fail("virtio MODIFY_QP");
}

static void
virtio_connect(struct side *s, const struct side *peer)
{
	struct vrdma_cmd_modify_qp m;

	memset(&m, 0, sizeof(m));
	m.a.qp_access_flags = htole32(ROCE_ACCESS_LOCAL_WRITE);
	virtio_modify(s, ROCE_QPS_INIT, ROCE_QP_ACCESS_FLAGS, &m);
	memset(&m, 0, sizeof(m));
	m.path_mtu = ROCE_MTU_4096;
	m.max_dest_rd_atomic = 4;
	m.min_rnr_timer = 1;
	m.a.dest_qp_num = htole32(peer->vqpn);
	m.a.rq_psn = htole32(100);
	memcpy(m.a.ah_attr.grh.dgid, peer->gid, 16);
	memcpy(m.a.ah_attr.dmac, peer->mac, 6);
	virtio_modify(s, ROCE_QPS_RTR, ROCE_QP_AV | ROCE_QP_PATH_MTU | ROCE_QP_RQ_PSN |
		      ROCE_QP_MAX_DEST_RD_ATOMIC | ROCE_QP_MIN_RNR_TIMER | ROCE_QP_DEST_QPN, &m);
	memset(&m, 0, sizeof(m));
	m.timeout = 14;
	m.retry_cnt = 7;
	m.rnr_retry = 7;
	m.max_rd_atomic = 4;
	m.a.sq_psn = htole32(100);
	virtio_modify(s, ROCE_QPS_RTS, ROCE_QP_TIMEOUT | ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY |
		      ROCE_QP_SQ_PSN | ROCE_QP_MAX_QP_RD_ATOMIC, &m);
}

/* ---------------- main ---------------- */

/* Share of a side's time in the last round in turns that did work (its device's included). */
static double
busy_pct(const struct side *s)
{
	return s->cycles > 0 ? 100.0 * (double)s->busy / (double)s->cycles : 0;
}

static struct rte_ring *
ring(const char *what, unsigned int k)
{
	char name[RTE_RING_NAMESIZE];
	struct rte_ring *r;

	snprintf(name, sizeof(name), "bench_%s%u", what, k);
	r = rte_ring_create(name, 4096, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (r == NULL)
		fail("no memory for a ring");
	return r;
}

/*
 * One workload: a direct pair and a virtio pair of its own, set up, then
 * measured in alternating rounds. @return the virtio rate as a share of
 * the direct one.
 */
static double
run_workload(const struct workload *w, unsigned int k, unsigned int rounds, double secs,
	     int huge)
{
	struct side da, db, va, vb;
	struct rte_ring *a2b = ring("a2b", k), *b2a = ring("b2a", k);
	struct rte_ring *va2b = ring("va2b", k), *vb2a = ring("vb2a", k);
	double dr[ROUNDS], vr[ROUNDS], d, v;
	uint64_t ids[RQ_DEPTH];
	char pa[96], pb[96];
	unsigned int i;

	wl = w;
	snprintf(pa, sizeof(pa), "%s/a%u.sock", sock_dir, k);
	snprintf(pb, sizeof(pb), "%s/b%u.sock", sock_dir, k);
	/* a wire per pair: what one pair leaves in flight at the end of a round waits for it */
	direct_up(&da, (uint8_t)(1 + 4 * k), b2a, a2b);
	direct_up(&db, (uint8_t)(2 + 4 * k), a2b, b2a);
	direct_connect(&da, &db);
	direct_connect(&db, &da);
	setup_a = &va;
	setup_b = &vb;
	memset(&va, 0, sizeof(va));
	memset(&vb, 0, sizeof(vb));
	virtio_up(&va, (uint8_t)(3 + 4 * k), vb2a, va2b, pa);
	virtio_up(&vb, (uint8_t)(4 + 4 * k), va2b, vb2a, pb);
	virtio_connect(&va, &vb);
	virtio_connect(&vb, &va);
	/* from now on each side's guest polls its own device only (its own lcore) */
	vuf_rdma_set_poll(va.d, poll_own, &va);
	vuf_rdma_set_poll(vb.d, poll_own, &vb);
	setup_a = setup_b = NULL;
	for (i = 0; i < w->rq; i++)
		ids[i] = i;
	if (post_recvs(&db, ids, w->rq) != 0 || post_recvs(&vb, ids, w->rq) != 0)
		fail("initial receives");

	printf("virtio layer cost, %s: RC SEND %u B, %u in flight (1 in %u signaled), %u "
	       "receives posted; sender on lcore 0, receiver on lcore 1, rte_ring wire, %u rounds "
	       "of %.1f s, %s\n", w->name, w->msg, w->depth, w->signal, w->rq, rounds, secs,
	       huge ? "hugepages" : "4K pages (--no-huge)");
	for (i = 0; i < rounds; i++) {
		dr[i] = round_rate(&da, &db, secs) / 1e6;
		vr[i] = round_rate(&va, &vb, secs) / 1e6;
		printf("  round %u: direct %.3f M msg/s (busy: sender %3.0f%%, receiver %3.0f%%), "
		       "virtio %.3f M msg/s (busy: sender %3.0f%%, receiver %3.0f%%)\n", i + 1, dr[i],
		       busy_pct(&da), busy_pct(&db), vr[i], busy_pct(&va), busy_pct(&vb));
	}
	d = bench_median(dr, rounds);
	v = bench_median(vr, rounds);
	printf("RC SEND %u B through vrdma + vuf_rdma %8.3f M msg/s %7.2f Gb/s   lib/roce direct "
	       "%8.3f M msg/s %7.2f Gb/s   ratio %5.1f%%%s\n", w->msg, v, v * w->msg * 8 / 1e3,
	       d, d * w->msg * 8 / 1e3, d > 0 ? 100 * v / d : 0,
	       w == &wl_rate ? "   (goal >= 70%)" : "");
	vuf_rdma_close(va.d);
	vuf_rdma_close(vb.d);
	vrdma_dev_destroy(va.vdev);
	vrdma_dev_destroy(vb.vdev);
	roce_dev_destroy(da.dev);
	roce_dev_destroy(db.dev);
	rte_free(da.buf);
	rte_free(db.buf);
	unlink(pa);
	unlink(pb);
	return d > 0 ? v / d : 0;
}

int
main(void)
{
	bool quick = getenv("OMNIPLANE_PERF_QUICK") != NULL;
	unsigned int rounds = quick ? ROUNDS_QUICK : ROUNDS;
	double secs = quick ? 0.5 : 1.5;
	int huge;

	huge = test_eal_init_perf_lcores("bench_vrdma", "0@0,1@1");
	if (huge < 0)
		return 1;
	if (rte_lcore_count() < 2) {
		printf("SKIP: bench_vrdma needs two lcores (one per side)\n");
		return 77;
	}
	pool = rte_pktmbuf_pool_create("bench_vrdma", 32767, 256, 0, 4096 + 256, SOCKET_ID_ANY);
	snprintf(sock_dir, sizeof(sock_dir), "/tmp/bench-vrdma-XXXXXX");
	if (pool == NULL || mkdtemp(sock_dir) == NULL)
		fail("no memory");
	run_workload(&wl_rate, 0, rounds, secs, huge);
	run_workload(&wl_bw, 1, rounds, secs, huge);
	rmdir(sock_dir);
	return 0;
}
