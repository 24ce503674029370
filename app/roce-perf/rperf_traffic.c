/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * The step functions of roce-perf's modes: posting, the bandwidth and
 * latency clients and servers, and the lcore loop that runs them.
 */

#include "rperf_internal.h"

/* ---------------- posting ---------------- */

static inline bool
signaled(const struct run *run, uint64_t seq)
{
	return run->sig == 1 || (seq + 1) % run->sig == 0 || seq + 1 == run->target;
}

static bool
post_send(struct ep *e, uint32_t qi, struct roce_send_wr *wr, unsigned int n)
{
	unsigned int bad = 0;
	int rc = roce_post_send(e->q[qi].qp, wr, n, &bad);

	if (rc < 0) {
		rp_fail(e->run, "%s: QP %u: post_send of WR %" PRIu64 ": %s (%s)", e->name, qi,
		     wr[bad].wr_id & SEQ_MASK, strerror(-rc), roce_dev_last_error(e->dev));
		return false;
	}
	return true;
}

/* Post receives until @p depth are outstanding on QP @p qi. */
bool
rp_post_recvs(struct ep *e, uint32_t qi, uint32_t depth, bool with_buffer)
{
	struct run *run = e->run;
	struct qpx *q = &e->q[qi];
	struct roce_recv_wr wr[BURST];
	struct roce_sge sge[BURST];
	unsigned int k = 0, bad = 0;
	int rc;

	while (q->rposted - q->received < depth) {
		k = 0;
		while (k < BURST && q->rposted + k - q->received < depth) {
			uint64_t idx = q->rposted + k;

			sge[k].addr = rp_slot_iova(e, qi, false, idx);
			sge[k].length = run->c->size;
			sge[k].lkey = e->lkey;
			wr[k].wr_id = (uint64_t)qi << SEQ_BITS | idx;
			wr[k].num_sge = with_buffer ? 1 : 0;
			wr[k].sg_list = with_buffer ? &sge[k] : NULL;
			k++;
		}
		rc = roce_post_recv(q->qp, wr, k, &bad);
		if (rc < 0) {
			rp_fail(run, "%s: QP %u: post_recv: %s (%s)", e->name, qi, strerror(-rc),
			     roce_dev_last_error(e->dev));
			return false;
		}
		q->rposted += k;
	}
	return true;
}

/* ---------------- A in the bandwidth modes ---------------- */

static void
bw_post(struct ep *a, uint32_t qi)
{
	struct run *run = a->run;
	const struct rperf_conf *c = run->c;
	const struct ep *b = &run->ep[B];
	struct qpx *q = &a->q[qi];
	struct roce_send_wr wr[BURST];
	struct roce_sge sge[BURST];
	unsigned int k = 0;

	while (k < BURST && q->posted + k < run->target &&
	       q->posted + k - q->completed < run->depth) {
		uint64_t seq = q->posted + k;
		struct roce_send_wr *w = &wr[k];

		/* stopping: only up to a signaled WR, so the drain sees the end */
		if (run->stopping && seq % run->sig == 0)
			break;
		memset(w, 0, sizeof(*w));
		w->wr_id = (uint64_t)qi << SEQ_BITS | seq;
		w->num_sge = 1;
		w->sg_list = &sge[k];
		w->send_flags = signaled(run, seq) ? ROCE_SEND_SIGNALED : 0;
		sge[k].length = c->size;
		sge[k].lkey = a->lkey;
		switch (c->mode) {
		case RPERF_SEND_BW:
			w->opcode = ROCE_WR_SEND;
			sge[k].addr = rp_slot_iova(a, qi, true, seq);
			if (c->verify)
				rp_pat_fill(rp_slot(a, qi, true, seq), c->size, rp_pat_base(A, qi, seq));
			break;
		case RPERF_WRITE_BW:
			/* --verify: the immediate tells B which message completed */
			w->opcode = c->verify ? ROCE_WR_RDMA_WRITE_WITH_IMM : ROCE_WR_RDMA_WRITE;
			w->imm_data = rte_cpu_to_be_32((uint32_t)seq);
			sge[k].addr = rp_slot_iova(a, qi, true, seq);
			w->rdma.remote_addr = rp_slot_iova(b, qi, false, seq);
			w->rdma.rkey = b->rkey;
			if (c->verify)
				rp_pat_fill(rp_slot(a, qi, true, seq), c->size, rp_pat_base(A, qi, seq));
			break;
		default: /* READ_BW */
			w->opcode = ROCE_WR_RDMA_READ;
			sge[k].addr = rp_slot_iova(a, qi, false, seq);
			w->rdma.remote_addr = rp_slot_iova(b, qi, true, seq);
			w->rdma.rkey = b->rkey;
			if (c->verify)
				memset(rp_slot(a, qi, false, seq), 0, c->size);
			break;
		}
		k++;
	}
	if (k == 0)
		return;
	if (run->t_first == 0) {
		run->t_first = rte_rdtsc();
		run->last_progress = run->t_first;
		if (run->target == UINT64_MAX)
			run->t_end = run->t_first + (uint64_t)(c->duration * run->hz);
	}
	if (post_send(a, qi, wr, k))
		q->posted += k;
}

/* A posting no more: time up or stop asked. */
static void
check_stopping(struct run *run, uint64_t now)
{
	const struct rperf_conf *c = run->c;

	if (run->stopping)
		return;
	if (c->stop != NULL && *c->stop) {
		run->stopping = true;
		run->interrupted = true;
	} else if (run->t_end != 0 && now >= run->t_end) {
		run->stopping = true;
	}
}

/* A's stall watchdog. @return true when the run failed. */
static bool
stalled(struct ep *a, uint64_t now)
{
	struct run *run = a->run;
	struct roce_qp_attr at;
	struct roce_qp_init_attr ia;
	uint32_t qi;

	/* signed: progress may have been stamped after @p now was read */
	if (run->last_progress == 0 || (int64_t)(now - run->last_progress) < (int64_t)run->stall)
		return false;
	for (qi = 0; qi < run->c->qps; qi++) {
		struct qpx *q = &a->q[qi];

		if (q->posted == q->completed && !q->waiting)
			continue;
		roce_qp_query(q->qp, &at, &ia);
		rp_fail(run, "A: QP %u: nothing completed for %.0f s (posted %" PRIu64 ", completed %"
		     PRIu64 ", QP state %s)", qi, run->c->stall_secs, q->posted, q->completed,
		     roce_qp_state_str(at.qp_state));
		return true;
	}
	rp_fail(run, "A: nothing completed for %.0f s", run->c->stall_secs);
	return true;
}

static void
client_finish(struct ep *a)
{
	a->done = true;
	__atomic_store_n(&a->run->client_done, 1, __ATOMIC_RELEASE);
}

void
rp_bw_client_step(struct ep *a)
{
	struct run *run = a->run;
	const struct rperf_conf *c = run->c;
	struct roce_wc wc[BURST];
	uint64_t now;
	bool all = true;
	uint32_t qi;
	int n, i;

	n = rp_cq_poll(a, a->scq, wc);
	now = rte_rdtsc();
	for (i = 0; i < n; i++) {
		uint64_t seq = wc[i].wr_id & SEQ_MASK;
		struct qpx *q;

		qi = (uint32_t)(wc[i].wr_id >> SEQ_BITS);
		q = &a->q[qi];
		if (!rp_wc_ok(a, &wc[i]))
			return;
		if (c->verify) {
			if (seq != q->completed) {
				rp_fail(run, "A: QP %u: completion of WR %" PRIu64 ", expected %"
				     PRIu64, qi, seq, q->completed);
				return;
			}
			if (c->mode == RPERF_READ_BW) {
				if (!rp_check_data(run, "A", rp_slot(a, qi, false, seq), c->size, B, qi,
						seq % run->nslots, seq))
					return;
				run->verified++;
			}
		}
		q->completed = seq + 1;
		run->t_last = now;
		run->last_progress = now;
	}
	check_stopping(run, now);
	for (qi = 0; qi < c->qps; qi++) {
		struct qpx *q = &a->q[qi];

		bw_post(a, qi);
		if (q->completed != q->posted || (!run->stopping && q->posted < run->target))
			all = false;
	}
	if (all) {
		client_finish(a);
		return;
	}
	stalled(a, now);
}

/* ---------------- B in the bandwidth modes ---------------- */

static bool
bw_server_recv(struct ep *b, const struct roce_wc *wc)
{
	struct run *run = b->run;
	const struct rperf_conf *c = run->c;
	uint32_t qi = (uint32_t)(wc->wr_id >> SEQ_BITS);
	uint64_t k = wc->wr_id & SEQ_MASK;
	struct qpx *q = &b->q[qi];
	const bool imm = c->mode == RPERF_WRITE_BW;

	if (!rp_wc_ok(b, wc))
		return false;
	if (k != q->received) {
		rp_fail(run, "B: QP %u: receive WR %" PRIu64 " completed, expected %" PRIu64,
		     qi, k, q->received);
		return false;
	}
	if (wc->opcode != (imm ? ROCE_WC_RECV_RDMA_WITH_IMM : ROCE_WC_RECV) ||
	    wc->byte_len != c->size) {
		rp_fail(run, "B: QP %u message %" PRIu64 ": %s of %u bytes, expected %s of %u", qi,
		     k, rp_wc_opcode_str(wc->opcode), wc->byte_len,
		     imm ? "RECV_RDMA_WITH_IMM" : "RECV", c->size);
		return false;
	}
	if (imm && rte_be_to_cpu_32(wc->imm_data) != (uint32_t)k) {
		rp_fail(run, "B: QP %u: WRITE with immediate %u arrived as message %" PRIu64
		     " (a message lost, repeated or out of order)", qi,
		     rte_be_to_cpu_32(wc->imm_data), k);
		return false;
	}
	if (c->verify) {
		if (!rp_check_data(run, "B", rp_slot(b, qi, false, k), c->size, A, qi, k, k))
			return false;
		run->verified_b++;
	}
	q->received++;
	return true;
}

void
rp_bw_server_step(struct ep *b)
{
	struct run *run = b->run;
	const struct rperf_conf *c = run->c;
	const bool recvs = c->mode == RPERF_SEND_BW || (c->mode == RPERF_WRITE_BW && c->verify);
	const bool finishing = __atomic_load_n(&run->client_done, __ATOMIC_ACQUIRE) != 0;
	struct roce_wc wc[BURST];
	uint32_t qi;
	int n, i;

	if (recvs) {
		do {
			n = rp_cq_poll(b, b->rcq, wc);
			for (i = 0; i < n; i++)
				if (!bw_server_recv(b, &wc[i]))
					return;
		} while (finishing && n > 0);
		for (qi = 0; qi < c->qps && !finishing; qi++)
			if (!rp_post_recvs(b, qi, run->rx_depth, c->mode == RPERF_SEND_BW))
				return;
	}
	if (finishing)
		b->done = true;
}

/* ---------------- the latency modes ---------------- */

/* Fill the source of a write_lat message: pattern, then the stamp seq + 1. */
static void
stamp_fill(struct ep *e, uint64_t seq)
{
	struct run *run = e->run;
	uint32_t size = run->c->size;
	uint8_t *p = rp_slot(e, 0, true, 0);
	uint64_t stamp = seq + 1;

	if (run->c->verify)
		rp_pat_fill(p, size - 8, rp_pat_base(e->side, 0, seq));
	omni_put_le64(p + size - 8, stamp);
}

static inline uint64_t
stamp_read(const struct ep *e)
{
	return omni_get_le64(rp_slot(e, 0, false, 0) + e->run->c->size - 8);
}

/* Post iteration @p seq's message from endpoint @p e to its peer. */
static bool
lat_post(struct ep *e, uint64_t seq)
{
	struct run *run = e->run;
	const struct rperf_conf *c = run->c;
	const struct ep *peer = &run->ep[!e->side];
	struct roce_send_wr w;
	struct roce_sge sge;

	memset(&w, 0, sizeof(w));
	w.wr_id = seq;
	w.num_sge = 1;
	w.sg_list = &sge;
	w.send_flags = ROCE_SEND_SIGNALED;
	sge.length = c->size;
	sge.lkey = e->lkey;
	switch (c->mode) {
	case RPERF_SEND_LAT:
		w.opcode = ROCE_WR_SEND;
		sge.addr = rp_slot_iova(e, 0, true, seq);
		if (c->verify)
			rp_pat_fill(rp_slot(e, 0, true, seq), c->size, rp_pat_base(e->side, 0, seq));
		break;
	case RPERF_WRITE_LAT:
		w.opcode = ROCE_WR_RDMA_WRITE;
		sge.addr = rp_slot_iova(e, 0, true, 0);
		w.rdma.remote_addr = rp_slot_iova(peer, 0, false, 0);
		w.rdma.rkey = peer->rkey;
		stamp_fill(e, seq);
		break;
	default: /* READ_LAT */
		w.opcode = ROCE_WR_RDMA_READ;
		sge.addr = rp_slot_iova(e, 0, false, 0);
		w.rdma.remote_addr = rp_slot_iova(peer, 0, true, seq);
		w.rdma.rkey = peer->rkey;
		if (c->verify)
			memset(rp_slot(e, 0, false, 0), 0, c->size);
		break;
	}
	return post_send(e, 0, &w, 1);
}

/* A received iteration @p seq's answer (pong, stamp or READ data) at @p now. */
static bool
lat_answer(struct ep *a, uint64_t seq, uint64_t now)
{
	struct run *run = a->run;
	const struct rperf_conf *c = run->c;
	struct qpx *q = &a->q[0];

	if (c->verify) {
		bool ok;

		if (c->mode == RPERF_SEND_LAT)
			ok = rp_check_data(run, "A", rp_slot(a, 0, false, seq), c->size, B, 0, seq, seq);
		else if (c->mode == RPERF_WRITE_LAT)
			ok = rp_check_data(run, "A", rp_slot(a, 0, false, 0), c->size - 8, B, 0, seq,
					seq);
		else
			ok = rp_check_data(run, "A", rp_slot(a, 0, false, 0), c->size, B, 0,
					seq % run->nslots, seq);
		if (!ok)
			return false;
		run->verified++;
	}
	rp_lat_add(run, now - q->t0);
	q->waiting = false;
	q->received++;
	run->t_last = now;
	run->last_progress = now;
	return true;
}

void
rp_lat_client_step(struct ep *a)
{
	struct run *run = a->run;
	const struct rperf_conf *c = run->c;
	struct qpx *q = &a->q[0];
	struct roce_wc wc[BURST];
	uint64_t now = rte_rdtsc();
	int n, i;

	n = rp_cq_poll(a, a->scq, wc);
	for (i = 0; i < n; i++) {
		if (!rp_wc_ok(a, &wc[i]))
			return;
		if (wc[i].wr_id != q->completed) {
			rp_fail(run, "A: completion of WR %" PRIu64 ", expected %" PRIu64,
			     wc[i].wr_id, q->completed);
			return;
		}
		q->completed++;
		if (c->mode == RPERF_READ_LAT && !lat_answer(a, wc[i].wr_id, now))
			return;
		run->last_progress = now;
	}
	if (c->mode == RPERF_SEND_LAT) {
		n = rp_cq_poll(a, a->rcq, wc);
		for (i = 0; i < n; i++) {
			if (!rp_wc_ok(a, &wc[i]))
				return;
			if ((wc[i].wr_id & SEQ_MASK) != q->received || !q->waiting ||
			    wc[i].byte_len != c->size) {
				rp_fail(run, "A: answer %" PRIu64 " of %u bytes, expected answer %"
				     PRIu64 " of %u", wc[i].wr_id & SEQ_MASK, wc[i].byte_len,
				     q->received, c->size);
				return;
			}
			if (!lat_answer(a, q->received, now) ||
			    !rp_post_recvs(a, 0, run->rx_depth, true))
				return;
		}
	} else if (c->mode == RPERF_WRITE_LAT && q->waiting && stamp_read(a) == q->posted) {
		if (!lat_answer(a, q->posted - 1, now))
			return;
	}
	check_stopping(run, now);
	if (!q->waiting) {
		/* the next message waits for the send queue (and its buffer) */
		if (q->posted < run->target && !run->stopping &&
		    q->posted - q->completed < run->depth) {
			if (run->t_first == 0) {
				run->t_first = now;
				if (run->target == UINT64_MAX)
					run->t_end = now + (uint64_t)(c->duration * run->hz);
			}
			q->waiting = true;
			q->t0 = rte_rdtsc();
			if (lat_post(a, q->posted))
				q->posted++;
			return;
		}
		if ((q->posted >= run->target || run->stopping) && q->completed == q->posted) {
			client_finish(a);
			return;
		}
	}
	if (run->last_progress == 0)
		run->last_progress = now;
	stalled(a, now);
}

void
rp_lat_server_step(struct ep *b)
{
	struct run *run = b->run;
	const struct rperf_conf *c = run->c;
	struct qpx *q = &b->q[0];
	struct roce_wc wc[BURST];
	int n, i;

	if (__atomic_load_n(&run->client_done, __ATOMIC_ACQUIRE)) {
		b->done = true;
		return;
	}
	if (c->mode == RPERF_READ_LAT)
		return;
	n = rp_cq_poll(b, b->scq, wc);
	for (i = 0; i < n; i++) {
		if (!rp_wc_ok(b, &wc[i]))
			return;
		q->completed++;
	}
	if (c->mode == RPERF_SEND_LAT) {
		n = rp_cq_poll(b, b->rcq, wc);
		for (i = 0; i < n; i++) {
			uint64_t k = wc[i].wr_id & SEQ_MASK;

			if (!rp_wc_ok(b, &wc[i]))
				return;
			if (k != q->received || wc[i].byte_len != c->size) {
				rp_fail(run, "B: message %" PRIu64 " of %u bytes, expected message %"
				     PRIu64 " of %u", k, wc[i].byte_len, q->received, c->size);
				return;
			}
			if (c->verify) {
				if (!rp_check_data(run, "B", rp_slot(b, 0, false, k), c->size, A, 0,
						k, k))
					return;
				run->verified_b++;
			}
			q->received++;
		}
		if (!rp_post_recvs(b, 0, run->rx_depth, true))
			return;
	} else if (stamp_read(b) == q->received + 1) {
		if (c->verify) {
			if (!rp_check_data(run, "B", rp_slot(b, 0, false, 0), c->size - 8, A, 0,
					q->received, q->received))
				return;
			run->verified_b++;
		}
		q->received++;
	}
	/* answer every message received, as the send queue allows */
	while (q->posted < q->received && q->posted - q->completed < run->depth) {
		if (!lat_post(b, q->posted))
			return;
		q->posted++;
	}
}

/* ---------------- lcores ---------------- */

int
rp_lcore_main(void *arg)
{
	struct lc *l = arg;
	struct run *run = l->run;
	unsigned int i;

	while (!rp_aborted(run)) {
		bool busy = false;

		for (i = 0; i < l->nb; i++) {
			struct ep *e = l->ep[i];

			if (e->done)
				continue;
			busy = true;
			rp_ep_poll(e);
			e->step(e);
		}
		if (!busy)
			break;
	}
	return 0;
}
