/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * Requester (send queue -> packets) and completer (responses -> send
 * completions, retransmission). Go-back-N: on a timeout, a sequence NAK, an
 * RNR NAK or a missing READ response, the requester is rewound to the
 * oldest unacknowledged PSN and sends everything from there again; the
 * segmentation is deterministic, so every packet keeps its PSN.
 */

#include <errno.h>
#include <string.h>

#include "roce_internal.h"

static inline bool
is_read_atomic(uint8_t op)
{
	return op == ROCE_WR_RDMA_READ || op >= ROCE_WR_ATOMIC_CMP_AND_SWP;
}

static inline uint32_t
npkts(uint32_t len, uint32_t mtu)
{
	return len == 0 ? 1 : (len + mtu - 1) / mtu;
}

/* ---------------- local memory of a WQE ---------------- */

/* Check every SGE of a WQE against its MR (key, PD, bounds, access). */
static bool
sges_valid(struct roce_qp *qp, const struct roce_swqe *w, bool write)
{
	uint32_t i;

	if (w->flags & ROCE_SEND_INLINE)
		return true;
	for (i = 0; i < w->num_sge; i++) {
		const struct roce_sge *s = &w->sge[i];
		struct roce_mr *mr;

		if (s->length == 0)
			continue;
		mr = roce_mr_lookup(qp->dev, s->lkey, false);
		if (mr == NULL || mr->pd != qp->pd || !roce_mr_covers(mr, s->addr, s->length) ||
		    (write && !(mr->access & ROCE_ACCESS_LOCAL_WRITE)))
			return false;
	}
	return true;
}

/*
 * Copy @p len bytes at message offset @p off between a WQE's SGEs and @p buf;
 * from the SGEs, continue *crc over the bytes when it is not NULL.
 * @return 0, or -EFAULT when an MR went away since the WQE was checked.
 */
static int
sge_copy(struct roce_qp *qp, const struct roce_sge *sge, uint32_t nsge, uint32_t off,
	 uint8_t *buf, uint32_t len, bool to_sge, uint32_t *crc)
{
	uint32_t i;

	for (i = 0; i < nsge && len > 0; i++) {
		const struct roce_sge *s = &sge[i];
		struct roce_mr *mr;
		uint32_t n;

		if (off >= s->length) {
			off -= s->length;
			continue;
		}
		n = RTE_MIN(s->length - off, len);
		mr = roce_mr_lookup(qp->dev, s->lkey, false);
		if (mr == NULL || !roce_mr_covers(mr, s->addr + off, n))
			return -EFAULT;
		if (to_sge)
			roce_mr_write(mr, s->addr + off, buf, n);
		else
			roce_mr_read(mr, s->addr + off, buf, n, crc);
		buf += n;
		len -= n;
		off = 0;
	}
	return len == 0 ? 0 : -EFAULT;
}

struct fill_arg {
	struct roce_qp *qp;
	const struct roce_swqe *w;
	uint32_t msg_off;
	bool fault;
};

static int
fill_payload(void *arg, uint8_t *dst, uint32_t off, uint32_t len, uint32_t *crc)
{
	struct fill_arg *fa = arg;
	const struct roce_swqe *w = fa->w;

	if (w->flags & ROCE_SEND_INLINE) {
		const uint8_t *src = (const uint8_t *)w->sge + fa->msg_off + off;

		*crc = roce_crc32(*crc, src, len);
		memcpy(dst, src, len);
		return 0;
	}
	if (sge_copy(fa->qp, w->sge, w->num_sge, fa->msg_off + off, dst, len, false, crc) < 0) {
		fa->fault = true;
		return -EFAULT;
	}
	return 0;
}

/* ---------------- requester ---------------- */

static uint8_t
send_opcode(const struct roce_qp *qp, const struct roce_swqe *w, bool first, bool last)
{
	uint8_t base = qp->type == ROCE_QPT_UC ? ROCE_TR_UC : ROCE_TR_RC;
	bool imm = w->opcode == ROCE_WR_SEND_WITH_IMM || w->opcode == ROCE_WR_RDMA_WRITE_WITH_IMM;

	if (qp->type == ROCE_QPT_UD || qp->type == ROCE_QPT_GSI)
		return imm ? ROCE_OP_UD_SEND_ONLY_IMM : ROCE_OP_UD_SEND_ONLY;
	if (w->opcode == ROCE_WR_SEND || w->opcode == ROCE_WR_SEND_WITH_IMM) {
		if (first && last)
			return base | (imm ? ROCE_OP_SEND_ONLY_IMM : ROCE_OP_SEND_ONLY);
		if (first)
			return base | ROCE_OP_SEND_FIRST;
		if (last)
			return base | (imm ? ROCE_OP_SEND_LAST_IMM : ROCE_OP_SEND_LAST);
		return base | ROCE_OP_SEND_MIDDLE;
	}
	if (first && last)
		return base | (imm ? ROCE_OP_WRITE_ONLY_IMM : ROCE_OP_WRITE_ONLY);
	if (first)
		return base | ROCE_OP_WRITE_FIRST;
	if (last)
		return base | (imm ? ROCE_OP_WRITE_LAST_IMM : ROCE_OP_WRITE_LAST);
	return base | ROCE_OP_WRITE_MIDDLE;
}

/* Build and stage the next packet of WQE @p w. @return 1 sent, 0 not now, -1 QP failed. */
static int
req_one(struct roce_qp *qp, struct roce_swqe *w)
{
	struct roce_dev *dev = qp->dev;
	struct roce_hdr_desc d;
	struct fill_arg fa = { .qp = qp, .w = w, .msg_off = qp->req.offset };
	const bool rc = qp->type == ROCE_QPT_RC;
	const bool ud = qp->type == ROCE_QPT_UD || qp->type == ROCE_QPT_GSI;
	uint32_t pkts_used = 1, paylen = 0;
	struct rte_mbuf *m;
	bool last = true;

	roce_hdr_fill(qp, ud ? &w->av : &qp->attr.ah_attr, &d);
	d.psn = qp->req.psn;
	d.dest_qpn = ud ? w->remote_qpn : qp->attr.dest_qp_num;
	switch (w->opcode) {
	case ROCE_WR_RDMA_READ:
		d.opcode = ROCE_OP_READ_REQUEST;
		d.va = w->remote_addr + qp->req.offset;
		d.rkey = w->rkey;
		d.dma_len = w->length - qp->req.offset;
		pkts_used = npkts(d.dma_len, qp->mtu);
		break;
	case ROCE_WR_ATOMIC_CMP_AND_SWP:
	case ROCE_WR_ATOMIC_FETCH_AND_ADD:
		d.opcode = w->opcode == ROCE_WR_ATOMIC_CMP_AND_SWP ? ROCE_OP_CMP_SWAP :
								      ROCE_OP_FETCH_ADD;
		d.va = w->remote_addr;
		d.rkey = w->rkey;
		d.swap_add = w->opcode == ROCE_WR_ATOMIC_CMP_AND_SWP ? w->swap : w->compare_add;
		d.compare = w->compare_add;
		break;
	default:
		paylen = RTE_MIN(w->length - qp->req.offset, qp->mtu);
		last = qp->req.offset + paylen == w->length;
		d.opcode = send_opcode(qp, w, qp->req.offset == 0, last);
		d.paylen = paylen;
		d.va = w->remote_addr;
		d.rkey = w->rkey;
		d.dma_len = w->length;
		d.imm = w->imm;
		d.se = last && (w->flags & ROCE_SEND_SOLICITED) &&
		       w->opcode != ROCE_WR_RDMA_WRITE;
		if (ud) {
			/* a Q_Key with the high bit set means "use the QP's own" */
			d.qkey = (w->remote_qkey & 0x80000000u) ? qp->attr.qkey : w->remote_qkey;
			d.src_qpn = qp->qpn;
		}
		break;
	}
	if (rc) {
		d.ackreq = last || qp->req.noack >= ROCE_MAX_PKT_PER_ACK;
		if (is_read_atomic(w->opcode))
			d.ackreq = 1;
	}
	m = roce_frame_build(dev, &d, fill_payload, &fa);
	if (m == NULL) {
		if (fa.fault) {
			roce_qp_error(qp, ROCE_WC_LOC_PROT_ERR);
			return -1;
		}
		return 0;
	}
	roce_tx_stage(dev, qp, m);
	qp->st.sent_bytes += paylen;
	if (rc && roce_psn_diff(qp->req.psn, qp->req.psn_hi) < 0) {
		qp->st.retransmits++;
		dev->st.retransmits++;
	}
	qp->req.noack = d.ackreq ? 0 : qp->req.noack + 1;
	qp->req.psn = roce_psn_add(qp->req.psn, pkts_used);
	if (!rc || roce_psn_diff(qp->req.psn, qp->req.psn_hi) > 0)
		qp->req.psn_hi = qp->req.psn;
	if (is_read_atomic(w->opcode)) {
		qp->req.rd_atomic++;
		last = true;
	} else {
		qp->req.offset += paylen;
	}
	if (last) {
		qp->req.wqe++;
		qp->req.offset = 0;
		if (rc) {
			w->state = SWQE_SENT;
		} else {
			/* UC and UD complete when sent */
			w->status = ROCE_WC_SUCCESS;
			roce_qp_send_complete(qp, w);
		}
	} else {
		w->state = SWQE_SENDING;
	}
	if (rc && qp->attr.timeout != 0 && !qp->comp.retry_timer.armed)
		roce_comp_timer_start(qp);
	return 1;
}

/* Start WQE @p w: PSNs and a check of its local memory. @return false when the QP failed. */
static bool
req_start(struct roce_qp *qp, struct roce_swqe *w)
{
	if (w->started) {
		/* resent after a rewind: same PSNs as the first time */
		w->state = SWQE_SENDING;
		return true;
	}
	w->started = 1;
	w->first_psn = qp->req.psn;
	if (w->opcode >= ROCE_WR_ATOMIC_CMP_AND_SWP)
		w->last_psn = w->first_psn;
	else
		w->last_psn = roce_psn_add(w->first_psn, npkts(w->length, qp->mtu) - 1);
	if (!sges_valid(qp, w, is_read_atomic(w->opcode))) {
		if (qp->type == ROCE_QPT_RC) {
			roce_qp_error(qp, ROCE_WC_LOC_PROT_ERR);
		} else {
			/* UC/UD: this WR fails, the QP goes on */
			w->status = ROCE_WC_LOC_PROT_ERR;
			qp->req.wqe++;
			roce_qp_send_complete(qp, w);
		}
		return false;
	}
	w->state = SWQE_SENDING;
	return true;
}

unsigned int
roce_req_run(struct roce_qp *qp, unsigned int budget)
{
	const bool rc = qp->type == ROCE_QPT_RC;
	unsigned int n = 0;

	if (qp->state != ROCE_QPS_RTS && qp->state != ROCE_QPS_SQD)
		return 0;
	if (qp->comp.rnr_wait)
		return 0;
	while (n < budget && qp->req.wqe != qp->sq.head) {
		struct roce_swqe *w = roce_wq_at(&qp->sq, qp->req.wqe);
		int r;

		if (rc && roce_psn_diff(qp->req.psn, qp->comp.psn) >= ROCE_MAX_UNACKED_PSNS)
			break;
		if (w->state == SWQE_POSTED) {
			/* SQD: no new message */
			if (qp->state == ROCE_QPS_SQD)
				break;
			if (rc && (w->flags & ROCE_SEND_FENCE) && qp->req.rd_atomic > 0)
				break;
			if (!req_start(qp, w)) {
				if (qp->state == ROCE_QPS_ERR)
					return n;
				continue;
			}
		}
		if (rc && is_read_atomic(w->opcode) &&
		    qp->req.rd_atomic >= RTE_MAX((uint32_t)qp->attr.max_rd_atomic, 1u))
			break;
		r = req_one(qp, w);
		if (r < 0)
			return n;
		if (r == 0) {
			/* no mbuf: try again on the next poll */
			roce_qp_activate(qp);
			break;
		}
		n++;
	}
	if (qp->state == ROCE_QPS_SQD)
		roce_qp_retire(qp);
	return n;
}

/* ---------------- completer ---------------- */

void
roce_comp_timer_start(struct roce_qp *qp)
{
	if (qp->attr.timeout == 0)
		return;
	roce_timer_arm(&qp->dev->wheel, &qp->comp.retry_timer,
		       roce_timeout_cycles(qp->dev, qp->attr.timeout));
}

/*
 * Rewind the requester to comp.psn: the oldest unacknowledged WQE resumes
 * at the offset that PSN stands for, every later one starts again.
 */
static void
req_rewind(struct roce_qp *qp)
{
	struct roce_swqe *w;
	uint32_t i;

	qp->req.rd_atomic = 0;
	qp->req.noack = 0;
	/* every WQE started after the oldest starts again from scratch */
	for (i = qp->sq.tail + 1; i != qp->sq.head; i++) {
		w = roce_wq_at(&qp->sq, i);
		if (w->state == SWQE_POSTED)
			break;
		w->state = SWQE_POSTED;
	}
	ROCE_LOG(DEBUG, "%s: QP %u rewind to %u (wqe %u, was %u psn %u)", qp->dev->name, qp->qpn,
		 qp->comp.psn, qp->sq.tail, qp->req.wqe, qp->req.psn);
	qp->req.wqe = qp->sq.tail;
	qp->req.psn = qp->comp.psn;
	qp->req.offset = 0;
	if (qp->sq.tail == qp->sq.head)
		return;
	w = roce_wq_at(&qp->sq, qp->sq.tail);
	if (w->started) {
		uint32_t done = (uint32_t)roce_psn_diff(qp->comp.psn, w->first_psn);

		w->state = SWQE_SENDING;
		if (w->opcode == ROCE_WR_RDMA_READ)
			qp->req.offset = qp->comp.read_off;
		else if (w->opcode < ROCE_WR_ATOMIC_CMP_AND_SWP)
			qp->req.offset = RTE_MIN(done * qp->mtu, w->length);
	}
	roce_qp_activate(qp);
}

/*
 * Keep the requester consistent with the completer: when completions moved
 * the oldest WQE past the requester's position (the peer acknowledged
 * packets of an earlier transmission while they were being resent), resume
 * from the first unacknowledged PSN.
 */
void
roce_req_sync(struct roce_qp *qp)
{
	if ((int32_t)(qp->req.wqe - qp->sq.tail) < 0 ||
	    roce_psn_diff(qp->comp.psn, qp->req.psn) > 0)
		req_rewind(qp);
}

/*
 * Go back N because of a loss. A NAK or a missing response asks once per
 * gap: while the resend of comp.psn is under way, later signs of the same
 * gap (responses of the old stream, duplicate ACKs) change nothing; only
 * the timer retries it again. @return false when the budget is exhausted
 * (the QP failed).
 */
static bool
comp_retry(struct roce_qp *qp, bool timeout)
{
	struct roce_dev *dev = qp->dev;

	if (!timeout && qp->comp.retry_armed && qp->comp.retry_psn == qp->comp.psn)
		return true;
	if (qp->comp.retry_left == 0) {
		dev->st.completer_retry_err++;
		dev->st.retry_exceeded_err++;
		roce_qp_error(qp, ROCE_WC_RETRY_EXC_ERR);
		return false;
	}
	if (qp->attr.retry_cnt != 7)
		qp->comp.retry_left--;
	qp->comp.retry_armed = true;
	qp->comp.retry_psn = qp->comp.psn;
	req_rewind(qp);
	return true;
}

void
roce_comp_retry_timeout(struct roce_timer *t)
{
	struct roce_qp *qp = container_of(t, struct roce_qp, comp.retry_timer);

	if (qp->state != ROCE_QPS_RTS && qp->state != ROCE_QPS_SQD)
		return;
	if (qp->comp.psn == qp->req.psn_hi || qp->comp.rnr_wait)
		return; /* nothing outstanding */
	qp->st.timeouts++;
	qp->dev->st.timeouts++;
	if (comp_retry(qp, true))
		roce_comp_timer_start(qp);
}

void
roce_comp_rnr_timeout(struct roce_timer *t)
{
	struct roce_qp *qp = container_of(t, struct roce_qp, comp.rnr_timer);

	if (!qp->comp.rnr_wait)
		return;
	qp->comp.rnr_wait = false;
	qp->comp.retry_armed = false;
	req_rewind(qp);
	roce_comp_timer_start(qp);
}

/* Progress: the peer acknowledged something, so the retry budgets refill. */
static void
comp_progress(struct roce_qp *qp)
{
	qp->comp.retry_left = qp->attr.retry_cnt;
	qp->comp.rnr_left = qp->attr.rnr_retry;
	qp->comp.retry_armed = false;
	if (qp->comp.psn != qp->req.psn_hi)
		roce_comp_timer_start(qp);
	else
		roce_timer_cancel(&qp->dev->wheel, &qp->comp.retry_timer);
}

static void
wqe_done(struct roce_qp *qp, struct roce_swqe *w, enum roce_wc_status st)
{
	if (is_read_atomic(w->opcode) && qp->req.rd_atomic > 0)
		qp->req.rd_atomic--;
	w->status = st;
	qp->comp.read_off = 0;
	roce_qp_send_complete(qp, w);
}

/*
 * Everything up to @p psn is acknowledged. @return false when a READ or
 * atomic before it has not had its response: those were lost (an
 * implicit NAK), so the caller resends.
 */
static bool
ack_through(struct roce_qp *qp, uint32_t psn)
{
	bool moved = false;

	while (qp->sq.tail != qp->sq.head) {
		struct roce_swqe *w = roce_wq_at(&qp->sq, qp->sq.tail);

		if (!w->started)
			break;
		if (is_read_atomic(w->opcode)) {
			if (roce_psn_diff(psn, w->first_psn) >= 0)
				return false;
			break;
		}
		/* its last packet went out once (psn < psn_hi), even if it is being resent */
		if (roce_psn_diff(psn, w->last_psn) >= 0) {
			qp->comp.psn = roce_psn_add(w->last_psn, 1);
			moved = true;
			wqe_done(qp, w, ROCE_WC_SUCCESS);
			continue;
		}
		if (roce_psn_diff(psn, qp->comp.psn) >= 0) {
			qp->comp.psn = roce_psn_add(psn, 1);
			moved = true;
		}
		break;
	}
	if (moved) {
		comp_progress(qp);
		/* an ACK beyond the resend point: skip what the peer has */
		if (roce_psn_diff(qp->comp.psn, qp->req.psn) > 0)
			req_rewind(qp);
		roce_qp_activate(qp);
	}
	return true;
}

/* The oldest WQE fails with @p st after an error NAK. */
static void
comp_fail(struct roce_qp *qp, enum roce_wc_status st)
{
	roce_qp_error(qp, st);
}

static void
comp_nak(struct roce_qp *qp, struct roce_pkt *pkt)
{
	struct roce_dev *dev = qp->dev;
	uint8_t syn = pkt->aeth_syn;
	uint32_t before = roce_psn_add(pkt->psn, ROCE_PSN_MASK); /* psn - 1 */

	if ((syn & ROCE_AETH_TYPE_MASK) == ROCE_AETH_RNR) {
		dev->st.rcvd_rnr_err++;
		qp->st.rnr_naks_rcvd++;
		if (!ack_through(qp, before)) {
			comp_retry(qp, false);
			return;
		}
		if (qp->comp.rnr_left == 0) {
			dev->st.retry_rnr_exceeded_err++;
			roce_qp_error(qp, ROCE_WC_RNR_RETRY_EXC_ERR);
			return;
		}
		if (qp->attr.rnr_retry != 7)
			qp->comp.rnr_left--;
		qp->comp.psn = pkt->psn;
		qp->comp.rnr_wait = true;
		roce_timer_cancel(&dev->wheel, &qp->comp.retry_timer);
		roce_timer_arm(&dev->wheel, &qp->comp.rnr_timer,
			       dev->tsc_hz / 1000000 * roce_rnr_timer_us(syn & 0x1f));
		return;
	}
	/* NAK */
	if (!ack_through(qp, before)) {
		comp_retry(qp, false);
		return;
	}
	switch (syn & 0x1f) {
	case ROCE_NAK_PSN_SEQ:
		dev->st.rcvd_seq_err++;
		qp->st.seq_naks_rcvd++;
		/* packets that were in flight behind an RNR NAK: the RNR timer resends */
		if (qp->comp.rnr_wait && pkt->psn == qp->comp.psn)
			break;
		qp->comp.psn = pkt->psn;
		comp_retry(qp, false);
		break;
	case ROCE_NAK_INVALID_REQ:
		comp_fail(qp, ROCE_WC_REM_INV_REQ_ERR);
		break;
	case ROCE_NAK_REM_ACCESS:
		comp_fail(qp, ROCE_WC_REM_ACCESS_ERR);
		break;
	case ROCE_NAK_REM_OP:
		comp_fail(qp, ROCE_WC_REM_OP_ERR);
		break;
	default:
		comp_fail(qp, ROCE_WC_BAD_RESP_ERR);
		break;
	}
}

static void
comp_read_resp(struct roce_qp *qp, struct roce_pkt *pkt)
{
	const struct roce_opcode_info *info = &roce_opcode_table[pkt->opcode];
	struct roce_swqe *w;
	uint8_t buf[4096];
	uint32_t left;

	/* it acknowledges everything before it */
	if (!ack_through(qp, roce_psn_add(pkt->psn, ROCE_PSN_MASK))) {
		w = roce_wq_at(&qp->sq, qp->sq.tail);
		if (w->opcode != ROCE_WR_RDMA_READ ||
		    roce_psn_diff(pkt->psn, w->first_psn) < 0 ||
		    roce_psn_diff(pkt->psn, w->last_psn) > 0)
			goto resend;
	}
	if (qp->sq.tail == qp->sq.head)
		goto drop;
	w = roce_wq_at(&qp->sq, qp->sq.tail);
	if (w->opcode != ROCE_WR_RDMA_READ || !w->started)
		goto drop;
	if (pkt->psn != qp->comp.psn)
		goto resend; /* a response is missing */
	left = w->length - qp->comp.read_off;
	/* sizes: every packet but the last is exactly one MTU */
	if (pkt->paylen > left || pkt->paylen > qp->mtu ||
	    (!(info->flags & ROCE_OPF_LAST) && pkt->paylen != qp->mtu) ||
	    ((info->flags & ROCE_OPF_LAST) && pkt->paylen != left)) {
		roce_qp_error(qp, ROCE_WC_BAD_RESP_ERR);
		return;
	}
	if (pkt->paylen > 0) {
		const uint8_t *src = rte_pktmbuf_read(pkt->m, pkt->pay_off, pkt->paylen, buf);

		if (src == NULL)
			goto drop;
		if (sge_copy(qp, w->sge, w->num_sge, qp->comp.read_off,
			     (uint8_t *)(uintptr_t)src, pkt->paylen, true, NULL) < 0) {
			roce_qp_error(qp, ROCE_WC_LOC_PROT_ERR);
			return;
		}
	}
	qp->comp.read_off += pkt->paylen;
	qp->comp.psn = roce_psn_add(qp->comp.psn, 1);
	qp->st.rcvd_bytes += pkt->paylen;
	comp_progress(qp);
	if (info->flags & ROCE_OPF_LAST) {
		wqe_done(qp, w, ROCE_WC_SUCCESS);
		roce_qp_activate(qp);
	}
	return;
resend:
	comp_retry(qp, false);
	return;
drop:
	qp->st.drops++;
}

static void
comp_atomic_ack(struct roce_qp *qp, struct roce_pkt *pkt)
{
	struct roce_swqe *w;

	if (!ack_through(qp, roce_psn_add(pkt->psn, ROCE_PSN_MASK))) {
		w = roce_wq_at(&qp->sq, qp->sq.tail);
		if (w->opcode < ROCE_WR_ATOMIC_CMP_AND_SWP || w->first_psn != pkt->psn) {
			comp_retry(qp, false);
			return;
		}
	}
	if (qp->sq.tail == qp->sq.head)
		return;
	w = roce_wq_at(&qp->sq, qp->sq.tail);
	if (w->opcode < ROCE_WR_ATOMIC_CMP_AND_SWP || w->first_psn != pkt->psn || !w->started) {
		qp->st.drops++;
		return;
	}
	w->atomic_orig = pkt->atomic_ack;
	if (sge_copy(qp, w->sge, 1, 0, (uint8_t *)&w->atomic_orig, 8, true, NULL) < 0) {
		roce_qp_error(qp, ROCE_WC_LOC_PROT_ERR);
		return;
	}
	qp->comp.psn = roce_psn_add(pkt->psn, 1);
	comp_progress(qp);
	wqe_done(qp, w, ROCE_WC_SUCCESS);
	roce_qp_activate(qp);
}

void
roce_comp_rx(struct roce_qp *qp, struct roce_pkt *pkt)
{
	/* only PSNs sent and not yet acknowledged are news */
	if (roce_psn_diff(pkt->psn, qp->comp.psn) < 0 ||
	    roce_psn_diff(pkt->psn, qp->req.psn_hi) >= 0) {
		qp->st.duplicates++;
		return;
	}
	qp->st.acks_rcvd++;
	switch (pkt->opcode) {
	case ROCE_OP_ACK:
		if ((pkt->aeth_syn & ROCE_AETH_TYPE_MASK) == ROCE_AETH_ACK) {
			if (!ack_through(qp, pkt->psn))
				comp_retry(qp, false);
		} else if ((pkt->aeth_syn & ROCE_AETH_TYPE_MASK) == ROCE_AETH_RNR ||
			   (pkt->aeth_syn & ROCE_AETH_TYPE_MASK) == ROCE_AETH_NAK) {
			comp_nak(qp, pkt);
		} else {
			/* reserved AETH type: counted by the QP (rcvd_pkts already has it) */
			qp->st.drops++;
		}
		break;
	case ROCE_OP_ATOMIC_ACK:
		comp_atomic_ack(qp, pkt);
		break;
	default:
		comp_read_resp(qp, pkt);
		break;
	}
}

/* IBA table 45: RNR NAK timer field to microseconds. */
uint32_t
roce_rnr_timer_us(uint8_t code)
{
	static const uint32_t us[32] = {
		655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280,
		1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440,
		81920, 122880, 163840, 245760, 327680, 491520,
	};

	return us[code & 0x1f];
}
