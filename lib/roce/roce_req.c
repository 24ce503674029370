/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * Requester: send queue -> packets. Go-back-N: on a timeout, a sequence
 * NAK, an RNR NAK or a missing READ response the completer (roce_comp.c)
 * rewinds it (roce_req_rewind()) to the oldest unacknowledged PSN and it
 * sends everything from there again; the segmentation is deterministic, so
 * every packet keeps its PSN.
 */

#include <errno.h>
#include <string.h>

#include "roce_internal.h"

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
int
roce_sge_copy(struct roce_qp *qp, const struct roce_sge *sge, uint32_t nsge, uint32_t off,
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
	if (roce_sge_copy(fa->qp, w->sge, w->num_sge, fa->msg_off + off, dst, len, false,
			  crc) < 0) {
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
		if (roce_wr_is_read_atomic(w->opcode))
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
	if (roce_wr_is_read_atomic(w->opcode)) {
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
	if (!sges_valid(qp, w, roce_wr_is_read_atomic(w->opcode))) {
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
		if (rc && roce_wr_is_read_atomic(w->opcode) &&
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

/* ---------------- rewinding ---------------- */

/*
 * Rewind the requester to comp.psn: the oldest unacknowledged WQE resumes
 * at the offset that PSN stands for, every later one starts again.
 */
void
roce_req_rewind(struct roce_qp *qp)
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
		roce_req_rewind(qp);
}
