/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * Completer: responses -> send completions, and the retransmission it
 * decides (go-back-N through roce_req_rewind()): ACKs and NAKs, READ
 * responses, atomic ACKs, the retry and RNR timers.
 */

#include <errno.h>
#include <string.h>

#include "roce_internal.h"

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
	roce_req_rewind(qp);
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
	roce_req_rewind(qp);
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
	if (roce_wr_is_read_atomic(w->opcode) && qp->req.rd_atomic > 0)
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
		if (roce_wr_is_read_atomic(w->opcode)) {
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
			roce_req_rewind(qp);
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
		if (roce_sge_copy(qp, w->sge, w->num_sge, qp->comp.read_off,
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
	if (roce_sge_copy(qp, w->sge, 1, 0, (uint8_t *)&w->atomic_orig, 8, true, NULL) < 0) {
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
