/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * Responder: requests -> receive completions, RDMA WRITE/READ/atomic
 * execution, ACKs and NAKs (the receive checks and dispatch before it are
 * roce_recv.c's).
 *
 * Responder output stays in PSN order: READ responses and atomic ACKs are
 * served from the QP's resources in age order, and an ACK or NAK that would
 * overtake them waits until they are out.
 */

#include <errno.h>
#include <string.h>

#include "roce_internal.h"

/* ---------------- responses ---------------- */

/* Build and stage an ACK or NAK. */
static void
send_ack(struct roce_qp *qp, uint8_t syn, uint32_t psn)
{
	struct roce_hdr_desc d;
	struct rte_mbuf *m;

	roce_hdr_fill(qp, &qp->attr.ah_attr, &d);
	d.opcode = ROCE_OP_ACK;
	d.dest_qpn = qp->attr.dest_qp_num;
	d.psn = psn;
	d.aeth_syn = syn;
	d.msn = qp->resp.msn;
	m = roce_frame_build(qp->dev, &d, NULL, NULL);
	if (m == NULL)
		return;
	roce_tx_stage(qp->dev, qp, m);
	qp->st.acks_sent++;
}

/* Ask for an ACK of everything through @p psn, sent once per burst. */
static void
ack_later(struct roce_qp *qp, uint32_t psn)
{
	if (qp->resp.ack_pending)
		qp->dev->st.ack_deferred++;
	qp->resp.ack_pending = true;
	qp->resp.ack_psn = psn;
	if (!qp->on_ack) {
		TAILQ_INSERT_TAIL(&qp->dev->acks, qp, ack_next);
		qp->on_ack = true;
	}
}

void
roce_resp_send_acks(struct roce_dev *dev)
{
	struct roce_qp *qp;

	while ((qp = TAILQ_FIRST(&dev->acks)) != NULL) {
		TAILQ_REMOVE(&dev->acks, qp, ack_next);
		qp->on_ack = false;
		/* behind pending READ responses: roce_resp_run() sends it after them */
		if (qp->resp.ack_pending && qp->resp.res_pending == 0) {
			qp->resp.ack_pending = false;
			send_ack(qp, ROCE_AETH_CREDITS_UNLIMITED, qp->resp.ack_psn);
		}
	}
}

/* A NAK goes out now; a pending ACK it covers is dropped. */
static void
send_nak(struct roce_qp *qp, uint8_t syn, uint32_t psn)
{
	qp->resp.ack_pending = false;
	send_ack(qp, syn, psn);
}

struct read_arg {
	const struct roce_mr *mr;
	uint64_t va;
};

static int
fill_read(void *arg, uint8_t *dst, uint32_t off, uint32_t len, uint32_t *crc)
{
	struct read_arg *ra = arg;

	roce_mr_read(ra->mr, ra->va + off, dst, len, crc);
	return 0;
}

/* Send the responses of one resource. @return packets sent; *done when it has no more. */
static unsigned int
serve_res(struct roce_qp *qp, struct roce_rdres *r, unsigned int budget, bool *done)
{
	struct roce_dev *dev = qp->dev;
	unsigned int n = 0;

	*done = false;
	while (n < budget) {
		struct roce_hdr_desc d;
		struct read_arg ra = { 0 };
		struct rte_mbuf *m;
		uint32_t paylen;
		bool first, last;

		roce_hdr_fill(qp, &qp->attr.ah_attr, &d);
		d.dest_qpn = qp->attr.dest_qp_num;
		d.psn = r->cur_psn;
		d.aeth_syn = ROCE_AETH_CREDITS_UNLIMITED;
		d.msn = r->msn;
		if (r->atomic) {
			d.opcode = ROCE_OP_ATOMIC_ACK;
			d.atomic_ack = r->atomic_orig;
			paylen = 0;
			last = true;
		} else {
			paylen = RTE_MIN(r->left, qp->mtu);
			first = r->cur_psn == r->first_psn || r->pending == 2;
			last = paylen == r->left;
			d.opcode = first && last ? ROCE_OP_READ_RESP_ONLY :
				   first ? ROCE_OP_READ_RESP_FIRST :
				   last ? ROCE_OP_READ_RESP_LAST : ROCE_OP_READ_RESP_MIDDLE;
			d.paylen = paylen;
			if (paylen > 0) {
				ra.mr = roce_mr_lookup(dev, r->rkey, true);
				ra.va = r->va;
				/* the MR went away since the request: stop answering */
				if (ra.mr == NULL || !roce_mr_covers(ra.mr, r->va, r->left)) {
					*done = true;
					return n;
				}
			}
		}
		m = roce_frame_build(dev, &d, fill_read, &ra);
		if (m == NULL)
			return n;
		roce_tx_stage(dev, qp, m);
		qp->st.sent_bytes += paylen;
		n++;
		r->pending = 1;
		r->va += paylen;
		r->left -= paylen;
		r->cur_psn = roce_psn_add(r->cur_psn, 1);
		if (last) {
			*done = true;
			return n;
		}
	}
	return n;
}

unsigned int
roce_resp_run(struct roce_qp *qp, unsigned int budget)
{
	unsigned int n = 0, k;

	if (qp->state == ROCE_QPS_ERR || qp->state == ROCE_QPS_RESET) {
		qp->resp.res_pending = 0;
		return 0;
	}
	for (k = 0; k < qp->resp.nb_res && qp->resp.res_pending > 0; k++) {
		struct roce_rdres *r = &qp->resp.res[(qp->resp.res_next + k) % qp->resp.nb_res];
		bool done;

		if (!r->valid || !r->pending)
			continue;
		n += serve_res(qp, r, budget - n, &done);
		if (!done)
			break;
		r->pending = 0;
		qp->resp.res_pending--;
	}
	if (qp->resp.res_pending > 0) {
		roce_qp_activate(qp);
	} else if (qp->resp.ack_pending) {
		qp->resp.ack_pending = false;
		send_ack(qp, ROCE_AETH_CREDITS_UNLIMITED, qp->resp.ack_psn);
		n++;
	}
	return n;
}

/* ---------------- responder ---------------- */

/* A class C/D error of an RC or UC request: NAK (RC) and the QP fails. */
static void
resp_fatal(struct roce_qp *qp, struct roce_pkt *pkt, uint8_t nak, enum roce_wc_status st)
{
	struct roce_dev *dev = qp->dev;

	qp->st.drops++;
	if (qp->type == ROCE_QPT_UC) {
		/* UC has no NAKs: the message is dropped */
		qp->resp.uc_drop = true;
		qp->resp.rwqe_open = false;
		qp->resp.in_msg = false;
		return;
	}
	send_nak(qp, ROCE_AETH_NAK | nak, pkt->psn);
	if (nak == ROCE_NAK_REM_ACCESS)
		dev->st.send_rem_access_err++;
	ROCE_LOG(DEBUG, "%s: QP %u: %s at PSN %u (%u bytes, last %s%s): NAK 0x%x", dev->name,
		 qp->qpn, roce_opcode_name(pkt->opcode), pkt->psn, pkt->paylen,
		 roce_opcode_name((uint8_t)qp->resp.last_op), qp->resp.in_msg ? " open" : "", nak);
	/* the receive WQE being filled completes with the error */
	if (qp->resp.rwqe_open && qp->rq.tail != qp->rq.head) {
		struct roce_rwqe *r = roce_wq_at(&qp->rq, qp->rq.tail);
		struct roce_wc wc = {
			.wr_id = r->wr_id, .status = st, .opcode = ROCE_WC_RECV, .qp_num = qp->qpn,
		};

		qp->rq.tail++;
		qp->resp.rwqe_open = false;
		roce_cq_push(qp->recv_cq, &wc, false);
	}
	roce_qp_error(qp, st == ROCE_WC_LOC_LEN_ERR || st == ROCE_WC_LOC_PROT_ERR ?
			  ROCE_WC_WR_FLUSH_ERR : st);
}

/*
 * Copy @p len bytes (from the flat buffer @p flat, or from mbuf @p m at
 * @p src_off) into receive WQE @p r at message offset @p off.
 * @return 0, -EFAULT (SGE not usable), -EMSGSIZE (WQE too short).
 */
static int
recv_place(struct roce_qp *qp, const struct roce_rwqe *r, uint32_t off, const uint8_t *flat,
	   const struct rte_mbuf *m, uint32_t src_off, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < r->num_sge && len > 0; i++) {
		const struct roce_sge *s = &r->sge[i];
		struct roce_mr *mr;
		uint32_t n;

		if (off >= s->length) {
			off -= s->length;
			continue;
		}
		n = RTE_MIN(s->length - off, len);
		mr = roce_mr_lookup(qp->dev, s->lkey, false);
		if (mr == NULL || mr->pd != qp->pd || !(mr->access & ROCE_ACCESS_LOCAL_WRITE) ||
		    !roce_mr_covers(mr, s->addr + off, n))
			return -EFAULT;
		if (flat != NULL) {
			roce_mr_write(mr, s->addr + off, flat, n);
			flat += n;
		} else {
			roce_mr_write_mbuf(mr, s->addr + off, m, src_off, n);
			src_off += n;
		}
		len -= n;
		off = 0;
	}
	return len == 0 ? 0 : -EMSGSIZE;
}

static void
recv_complete(struct roce_qp *qp, struct roce_pkt *pkt, uint32_t byte_len, bool imm,
	      enum roce_wc_opcode op)
{
	struct roce_rwqe *r = roce_wq_at(&qp->rq, qp->rq.tail);
	const bool ud = qp->type == ROCE_QPT_UD || qp->type == ROCE_QPT_GSI;
	struct roce_wc wc = {
		.wr_id = r->wr_id,
		.status = ROCE_WC_SUCCESS,
		.opcode = op,
		.byte_len = byte_len,
		.qp_num = qp->qpn,
	};

	if (imm) {
		wc.wc_flags |= ROCE_WC_WITH_IMM;
		wc.imm_data = pkt->imm;
	}
	if (ud) {
		wc.wc_flags |= ROCE_WC_GRH;
		wc.src_qp = pkt->src_qpn;
	}
	qp->rq.tail++;
	qp->resp.rwqe_open = false;
	qp->dev->st.rdma_recvs += op == ROCE_WC_RECV;
	roce_cq_push(qp->recv_cq, &wc, pkt->se);
}

static void
resp_ud(struct roce_qp *qp, struct roce_pkt *pkt)
{
	struct roce_rwqe *r;
	const bool imm = roce_opcode_table[pkt->opcode].flags & ROCE_OPF_IMM;

	if (pkt->paylen > qp->mtu) {
		/* counted by the QP: rcvd_pkts already has the frame */
		qp->st.drops++;
		return;
	}
	if (qp->rq.tail == qp->rq.head) {
		/* no receive posted: a datagram is simply lost */
		qp->st.drops++;
		return;
	}
	r = roce_wq_at(&qp->rq, qp->rq.tail);
	if (ROCE_GRH_LEN + pkt->paylen > r->length) {
		struct roce_wc wc = { .wr_id = r->wr_id, .status = ROCE_WC_LOC_LEN_ERR,
				      .opcode = ROCE_WC_RECV, .qp_num = qp->qpn };

		qp->rq.tail++;
		roce_cq_push(qp->recv_cq, &wc, false);
		return;
	}
	if (recv_place(qp, r, 0, pkt->grh, NULL, 0, ROCE_GRH_LEN) < 0 ||
	    recv_place(qp, r, ROCE_GRH_LEN, NULL, pkt->m, pkt->pay_off, pkt->paylen) < 0) {
		struct roce_wc wc = { .wr_id = r->wr_id, .status = ROCE_WC_LOC_PROT_ERR,
				      .opcode = ROCE_WC_RECV, .qp_num = qp->qpn };

		qp->rq.tail++;
		roce_cq_push(qp->recv_cq, &wc, false);
		return;
	}
	qp->st.rcvd_bytes += pkt->paylen;
	recv_complete(qp, pkt, ROCE_GRH_LEN + pkt->paylen, imm, ROCE_WC_RECV);
}

/* Check an RETH or AtomicETH target. @return 0 or the NAK code. */
static int
check_remote(struct roce_qp *qp, struct roce_pkt *pkt, uint32_t access, uint64_t len,
	     struct roce_mr **out)
{
	struct roce_mr *mr;

	*out = NULL;
	if (!(qp->attr.qp_access_flags & access))
		return ROCE_NAK_REM_ACCESS;
	if (len == 0)
		return 0;
	mr = roce_mr_lookup(qp->dev, pkt->rkey, true);
	if (mr == NULL || mr->pd != qp->pd || !(mr->access & access) ||
	    !roce_mr_covers(mr, pkt->va, len))
		return ROCE_NAK_REM_ACCESS;
	*out = mr;
	return 0;
}

/* Is @p op a legal next opcode after @p last in a connected QP's request stream? */
static bool
op_in_sequence(struct roce_qp *qp, uint32_t flags)
{
	if (!qp->resp.in_msg)
		return (flags & ROCE_OPF_FIRST) != 0;
	if (flags & ROCE_OPF_FIRST)
		return false;
	return (flags & (ROCE_OPF_SEND | ROCE_OPF_WRITE)) ==
	       (roce_opcode_table[qp->resp.last_op].flags & (ROCE_OPF_SEND | ROCE_OPF_WRITE));
}

static struct roce_rdres *
res_take(struct roce_qp *qp)
{
	struct roce_rdres *r;

	if (qp->resp.nb_res == 0)
		return NULL;
	r = &qp->resp.res[qp->resp.res_next];
	if (r->valid && r->pending)
		qp->resp.res_pending--; /* overwritten: the requester exceeded its limit */
	qp->resp.res_next = (qp->resp.res_next + 1) % qp->resp.nb_res;
	memset(r, 0, sizeof(*r));
	return r;
}

static void
res_queue(struct roce_qp *qp, struct roce_rdres *r, uint8_t how)
{
	if (!r->pending)
		qp->resp.res_pending++;
	r->pending = how;
	roce_qp_activate(qp);
}

static void
resp_duplicate(struct roce_qp *qp, struct roce_pkt *pkt, uint32_t flags)
{
	struct roce_dev *dev = qp->dev;
	uint32_t k;

	dev->st.duplicate_request++;
	qp->st.duplicates++;
	if (qp->type == ROCE_QPT_UC)
		return;
	if (flags & (ROCE_OPF_READ | ROCE_OPF_ATOMIC)) {
		for (k = 0; k < qp->resp.nb_res; k++) {
			struct roce_rdres *r = &qp->resp.res[k];
			struct roce_mr *mr;

			if (!r->valid || !!r->atomic != !!(flags & ROCE_OPF_ATOMIC))
				continue;
			if (roce_psn_diff(pkt->psn, r->first_psn) < 0 ||
			    roce_psn_diff(pkt->psn, r->last_psn) > 0)
				continue;
			if (r->atomic) {
				/* replayed from the saved result, never executed again */
				if (pkt->psn == r->first_psn) {
					r->cur_psn = r->first_psn;
					res_queue(qp, r, 1);
				}
				return;
			}
			/* a READ is executed again from the PSN asked for */
			if (check_remote(qp, pkt, ROCE_ACCESS_REMOTE_READ, pkt->dma_len, &mr) != 0 ||
			    (uint64_t)roce_psn_diff(r->last_psn, pkt->psn) + 1 !=
			    (pkt->dma_len == 0 ? 1 : (pkt->dma_len + qp->mtu - 1) / qp->mtu))
				return;
			r->cur_psn = pkt->psn;
			r->va = pkt->va;
			r->rkey = pkt->rkey;
			r->left = pkt->dma_len;
			res_queue(qp, r, 2); /* 2: the next response is a FIRST */
			return;
		}
		return; /* too old: dropped, the requester will time out */
	}
	/* SEND or WRITE seen before: acknowledge again, C9-105 */
	ack_later(qp, roce_psn_add(qp->resp.psn, ROCE_PSN_MASK));
}

static void
resp_read(struct roce_qp *qp, struct roce_pkt *pkt)
{
	struct roce_rdres *r;
	struct roce_mr *mr;
	uint32_t n;
	int nak;

	if (pkt->dma_len > ROCE_MAX_MSG_SIZE) {
		resp_fatal(qp, pkt, ROCE_NAK_INVALID_REQ, ROCE_WC_REM_INV_REQ_ERR);
		return;
	}
	nak = check_remote(qp, pkt, ROCE_ACCESS_REMOTE_READ, pkt->dma_len, &mr);
	if (nak) {
		resp_fatal(qp, pkt, nak, ROCE_WC_REM_ACCESS_ERR);
		return;
	}
	r = res_take(qp);
	if (r == NULL) {
		/* max_dest_rd_atomic is 0: no READ may come */
		resp_fatal(qp, pkt, ROCE_NAK_INVALID_REQ, ROCE_WC_REM_INV_REQ_ERR);
		return;
	}
	n = pkt->dma_len == 0 ? 1 : (pkt->dma_len + qp->mtu - 1) / qp->mtu;
	qp->resp.msn = (qp->resp.msn + 1) & ROCE_PSN_MASK;
	r->valid = 1;
	r->first_psn = pkt->psn;
	r->last_psn = roce_psn_add(pkt->psn, n - 1);
	r->cur_psn = pkt->psn;
	r->va = pkt->va;
	r->rkey = pkt->rkey;
	r->left = pkt->dma_len;
	r->msn = qp->resp.msn;
	qp->resp.psn = roce_psn_add(pkt->psn, n);
	res_queue(qp, r, 1);
}

static void
resp_atomic(struct roce_qp *qp, struct roce_pkt *pkt)
{
	struct roce_rdres *r;
	struct roce_mr *mr;
	uint64_t *p, orig;
	uint32_t contig;
	int nak;

	if (pkt->va & 7) {
		resp_fatal(qp, pkt, ROCE_NAK_INVALID_REQ, ROCE_WC_REM_INV_REQ_ERR);
		return;
	}
	nak = check_remote(qp, pkt, ROCE_ACCESS_REMOTE_ATOMIC, 8, &mr);
	if (nak) {
		resp_fatal(qp, pkt, nak, ROCE_WC_REM_ACCESS_ERR);
		return;
	}
	p = (uint64_t *)roce_mr_ptr(mr, pkt->va, 8, &contig);
	if (contig < 8 || ((uintptr_t)p & 7)) {
		resp_fatal(qp, pkt, ROCE_NAK_INVALID_REQ, ROCE_WC_REM_INV_REQ_ERR);
		return;
	}
	r = res_take(qp);
	if (r == NULL) {
		resp_fatal(qp, pkt, ROCE_NAK_INVALID_REQ, ROCE_WC_REM_INV_REQ_ERR);
		return;
	}
	/* atomic against other users of that memory (a guest's CPUs, say) */
	if (pkt->opcode == ROCE_OP_CMP_SWAP) {
		orig = pkt->compare;
		__atomic_compare_exchange_n(p, &orig, pkt->swap_add, false, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST);
	} else {
		orig = __atomic_fetch_add(p, pkt->swap_add, __ATOMIC_SEQ_CST);
	}
	qp->resp.msn = (qp->resp.msn + 1) & ROCE_PSN_MASK;
	r->valid = 1;
	r->atomic = 1;
	r->first_psn = r->last_psn = r->cur_psn = pkt->psn;
	r->atomic_orig = orig;
	r->msn = qp->resp.msn;
	qp->resp.psn = roce_psn_add(pkt->psn, 1);
	res_queue(qp, r, 1);
}

/* The verdict of sw_check() on a SEND or WRITE packet. */
enum sw_verdict {
	SW_OK,     /* sw_apply() places it */
	SW_NO_WQE, /* no receive WQE posted: RNR NAK (RC) or the message dropped (UC) */
	SW_FATAL,  /* resp_fatal() with the plan's NAK and status */
};

/* What sw_check() found for sw_apply() (or for the refusal). */
struct sw_plan {
	bool claim;                /* the packet takes (or keeps) a receive WQE */
	bool late;                 /* refused by a check ranked after taking the WQE */
	bool mr_checked;           /* WRITE: mr was checked by this packet (first, or again) */
	uint8_t nak;               /* SW_FATAL: the NAK code */
	enum roce_wc_status st;    /* SW_FATAL: the completion status */
	struct roce_mr *mr;        /* WRITE: the MR the payload goes to */
	struct roce_rwqe *r;       /* SEND: the receive WQE */
};

static enum sw_verdict
sw_fatal(struct sw_plan *p, uint8_t nak, enum roce_wc_status st)
{
	p->nak = nak;
	p->st = st;
	return SW_FATAL;
}

/*
 * Every check of a SEND or WRITE packet, in the order IBA ranks them, with
 * no change to the QP: sizes against the MTU, the WRITE's target (at its
 * first packet: length, access, MR; later: the MR still there), a receive
 * WQE to take, the SEND's room in it.
 */
static enum sw_verdict
sw_check(struct roce_qp *qp, struct roce_pkt *pkt, uint32_t flags, struct sw_plan *p)
{
	const bool last = flags & ROCE_OPF_LAST;
	const bool first_write = (flags & ROCE_OPF_WRITE) && (flags & ROCE_OPF_FIRST);

	p->claim = (flags & ROCE_OPF_RECV_WQE) || ((flags & ROCE_OPF_SEND) && !qp->resp.rwqe_open);
	p->late = false;
	p->mr_checked = first_write;
	p->mr = first_write ? NULL : qp->resp.wr_mr;
	p->r = NULL;
	/* every packet but the last is a full MTU */
	if (pkt->paylen > qp->mtu || (!last && pkt->paylen != qp->mtu))
		return sw_fatal(p, ROCE_NAK_INVALID_REQ, ROCE_WC_REM_INV_REQ_ERR);
	if (flags & ROCE_OPF_WRITE) {
		uint32_t left = first_write ? pkt->dma_len : qp->resp.wr_left;

		if (first_write) {
			int nak;

			if (pkt->dma_len > ROCE_MAX_MSG_SIZE)
				return sw_fatal(p, ROCE_NAK_INVALID_REQ, ROCE_WC_REM_INV_REQ_ERR);
			nak = check_remote(qp, pkt, ROCE_ACCESS_REMOTE_WRITE, pkt->dma_len, &p->mr);
			if (nak)
				return sw_fatal(p, (uint8_t)nak, ROCE_WC_REM_ACCESS_ERR);
		}
		if (pkt->paylen > left || (last && pkt->paylen != left))
			return sw_fatal(p, ROCE_NAK_INVALID_REQ, ROCE_WC_REM_INV_REQ_ERR);
	}
	/* a receive WQE: at the first packet of a SEND, the last of a WRITE with imm */
	if (p->claim && !qp->resp.rwqe_open && qp->rq.tail == qp->rq.head)
		return SW_NO_WQE;
	p->late = true;
	if (flags & ROCE_OPF_SEND) {
		uint32_t off = qp->resp.rwqe_open ? qp->resp.offset : 0;

		p->r = roce_wq_at(&qp->rq, qp->rq.tail);
		if (off + pkt->paylen > p->r->length)
			return sw_fatal(p, ROCE_NAK_INVALID_REQ, ROCE_WC_LOC_LEN_ERR);
	} else if (pkt->paylen > 0) {
		/*
		 * The MR checked at the first packet, unless an MR was deregistered
		 * since (then looked up again: it may be gone). A DMA MR's pages
		 * are checked each time (guest memory may have changed).
		 */
		if (!first_write && qp->dev->mr_deregs != qp->resp.wr_deregs) {
			p->mr = roce_mr_lookup(qp->dev, qp->resp.wr_rkey, true);
			if (p->mr == NULL || p->mr->pd != qp->pd ||
			    !(p->mr->access & ROCE_ACCESS_REMOTE_WRITE))
				return sw_fatal(p, ROCE_NAK_REM_ACCESS, ROCE_WC_REM_ACCESS_ERR);
			p->mr_checked = true;
		}
		if (p->mr->dma && !roce_mr_covers(p->mr, first_write ? pkt->va : qp->resp.wr_va,
						  pkt->paylen))
			return sw_fatal(p, ROCE_NAK_REM_ACCESS, ROCE_WC_REM_ACCESS_ERR);
	}
	return SW_OK;
}

/* Take (or keep) the receive WQE the packet fills. */
static void
sw_claim(struct roce_qp *qp, uint32_t flags)
{
	if ((flags & ROCE_OPF_SEND) && !qp->resp.rwqe_open)
		qp->resp.offset = 0;
	qp->resp.rwqe_open = true;
}

/* Place a checked SEND or WRITE packet and move the responder on. */
static void
sw_apply(struct roce_qp *qp, struct roce_pkt *pkt, uint32_t flags, const struct sw_plan *p)
{
	const bool last = flags & ROCE_OPF_LAST;

	if ((flags & ROCE_OPF_WRITE) && (flags & ROCE_OPF_FIRST)) {
		qp->resp.wr_rkey = pkt->rkey;
		qp->resp.wr_va = pkt->va;
		qp->resp.wr_left = pkt->dma_len;
		qp->resp.offset = 0;
	}
	if (p->mr_checked) {
		qp->resp.wr_mr = p->mr;
		qp->resp.wr_deregs = qp->dev->mr_deregs;
	}
	if (p->claim)
		sw_claim(qp, flags);
	if (flags & ROCE_OPF_SEND) {
		if (recv_place(qp, p->r, qp->resp.offset, NULL, pkt->m, pkt->pay_off,
			       pkt->paylen) < 0) {
			/* an SGE's MR is not usable: found as the bytes are placed */
			resp_fatal(qp, pkt, ROCE_NAK_REM_OP, ROCE_WC_LOC_PROT_ERR);
			return;
		}
	} else if (pkt->paylen > 0) {
		roce_mr_write_mbuf(p->mr, qp->resp.wr_va, pkt->m, pkt->pay_off, pkt->paylen);
		qp->resp.wr_va += pkt->paylen;
		qp->resp.wr_left -= pkt->paylen;
	}
	qp->resp.offset += pkt->paylen;
	qp->st.rcvd_bytes += pkt->paylen;
	qp->resp.psn = roce_psn_add(pkt->psn, 1);
	qp->resp.last_op = pkt->opcode;
	qp->resp.in_msg = !last;
	if (last) {
		qp->resp.msn = (qp->resp.msn + 1) & ROCE_PSN_MASK;
		if (flags & ROCE_OPF_SEND)
			recv_complete(qp, pkt, qp->resp.offset,
				      (flags & ROCE_OPF_IMM) != 0, ROCE_WC_RECV);
		else if (flags & ROCE_OPF_IMM)
			recv_complete(qp, pkt, qp->resp.offset, true, ROCE_WC_RECV_RDMA_WITH_IMM);
	}
	if (qp->type == ROCE_QPT_RC && pkt->ackreq)
		ack_later(qp, pkt->psn);
}

/* SEND and WRITE packets of RC and UC: every check, then the placement. */
static void
resp_send_write(struct roce_qp *qp, struct roce_pkt *pkt, uint32_t flags)
{
	struct sw_plan plan;

	switch (sw_check(qp, pkt, flags, &plan)) {
	case SW_OK:
		sw_apply(qp, pkt, flags, &plan);
		break;
	case SW_NO_WQE:
		if (qp->type != ROCE_QPT_RC) {
			qp->resp.uc_drop = true;
			qp->st.drops++;
			break;
		}
		qp->dev->st.send_rnr_err++;
		qp->st.rnr_naks_sent++;
		/* the RNR NAK must not overtake READ responses still queued */
		if (qp->resp.res_pending == 0)
			send_nak(qp, ROCE_AETH_RNR | qp->attr.min_rnr_timer, pkt->psn);
		break;
	case SW_FATAL:
		/* refused after taking a receive WQE: resp_fatal() completes it in error */
		if (plan.claim && plan.late)
			sw_claim(qp, flags);
		resp_fatal(qp, pkt, plan.nak, plan.st);
		break;
	}
}

void
roce_resp_rx(struct roce_qp *qp, struct roce_pkt *pkt)
{
	const uint32_t flags = roce_opcode_table[pkt->opcode].flags;
	int32_t diff;

	if (qp->type == ROCE_QPT_UD || qp->type == ROCE_QPT_GSI) {
		resp_ud(qp, pkt);
		return;
	}
	diff = roce_psn_diff(pkt->psn, qp->resp.psn);
	if (qp->type == ROCE_QPT_UC) {
		/* UC: a gap loses the open message; resynchronize on any PSN */
		if (diff != 0) {
			qp->dev->st.out_of_seq_request++;
			if (qp->resp.in_msg)
				qp->resp.uc_drop = true;
			qp->resp.in_msg = false;
			qp->resp.rwqe_open = false;
		}
		if (qp->resp.uc_drop || diff != 0) {
			if (!(flags & ROCE_OPF_FIRST)) {
				qp->resp.psn = roce_psn_add(pkt->psn, 1);
				qp->st.drops++;
				return;
			}
			qp->resp.uc_drop = false;
		}
		if (!op_in_sequence(qp, flags)) {
			qp->resp.psn = roce_psn_add(pkt->psn, 1);
			qp->resp.uc_drop = !(flags & ROCE_OPF_LAST);
			qp->resp.in_msg = false;
			qp->resp.rwqe_open = false;
			qp->st.drops++;
			return;
		}
		resp_send_write(qp, pkt, flags);
		if (qp->resp.uc_drop)
			qp->resp.psn = roce_psn_add(pkt->psn, 1);
		return;
	}
	/* RC */
	if (diff > 0) {
		qp->dev->st.out_of_seq_request++;
		if (!qp->resp.nak_sent && qp->resp.res_pending == 0) {
			qp->resp.nak_sent = true;
			qp->st.seq_naks_sent++;
			send_nak(qp, ROCE_AETH_NAK | ROCE_NAK_PSN_SEQ, qp->resp.psn);
		}
		return;
	}
	if (diff < 0) {
		resp_duplicate(qp, pkt, flags);
		return;
	}
	qp->resp.nak_sent = false;
	if (!(flags & ROCE_OPF_VALID) || !op_in_sequence(qp, flags)) {
		resp_fatal(qp, pkt, ROCE_NAK_INVALID_REQ, ROCE_WC_REM_INV_REQ_ERR);
		return;
	}
	if (flags & ROCE_OPF_READ)
		resp_read(qp, pkt);
	else if (flags & ROCE_OPF_ATOMIC)
		resp_atomic(qp, pkt);
	else
		resp_send_write(qp, pkt, flags);
}
