/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * The RDMA queues: a QP's send and receive rings carry requests (copied
 * out of guest memory, checked, posted to lib/roce, and the chain returned
 * at once: lib/roce keeps its own copy), a CQ's ring carries empty
 * 48-byte buffers the device fills with completions, in order.
 */

#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#include "vrdma_wq.h"

/* lib/roce takes the RFC's values: only the checks remain. */
static_assert(ROCE_WR_RDMA_READ == 4 && ROCE_SEND_INLINE == 8, "RFC opcodes and flags");
static_assert(ROCE_WC_RECV_RDMA_WITH_IMM == 4 && ROCE_WC_GENERAL_ERR == 15, "RFC wc values");

static inline uint32_t
le32(uint32_t v)
{
	return rte_le_to_cpu_32(v);
}

/* A chain is available and the ring is served. */
static inline bool
ring_has_work(const struct vrdma_vq *vq)
{
	return vq->live &&
		__atomic_load_n(&vq->avail->idx, __ATOMIC_ACQUIRE) != vq->last_avail;
}

static void
sges_in(struct roce_sge *out, const uint8_t *in, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		struct vrdma_sge s;

		memcpy(&s, in + i * sizeof(s), sizeof(s));
		out[i].addr = rte_le_to_cpu_64(s.addr);
		out[i].length = le32(s.length);
		out[i].lkey = le32(s.lkey);
	}
}

/*
 * A queue of capacity 0 (created with max_send_wr or max_recv_wr 0) is
 * always full: its requests can never be taken and fail instead of waiting.
 */
static bool
queue_is_empty_cap(struct roce_qp *qp, bool recv)
{
	struct roce_qp_init_attr ia;

	roce_qp_query(qp, NULL, &ia);
	return (recv ? ia.cap.max_recv_wr : ia.cap.max_send_wr) == 0;
}

/*
 * Post one send request. @return 0 when it was taken (posted, or failed
 * into a completion), -EAGAIN when lib/roce cannot take it now (queue full,
 * QP not yet able to send): the chain stays in the ring.
 */
static int
sq_request(struct vrdma_wq *w, struct roce_qp *qp, bool ud, const struct vrdma_chain *ch)
{
	const uint32_t head = offsetof(struct vrdma_sq_req, inline_data);
	const uint32_t tail = offsetof(struct vrdma_sq_req, num_sge);
	struct roce_dev *dev = w->r->dev;
	/*
	 * The device's own copy of the parts in use: the head, the tail with
	 * num_sge, then the inline data or the SGEs, each read once from
	 * guest memory; the unused inline area is never read.
	 */
	struct vrdma_sq_req *q = (struct vrdma_sq_req *)w->buf;
	struct roce_sge sge[ROCE_MAX_SGE];
	struct roce_send_wr wr;
	uint32_t nsge = 0, want;
	int rc;

	vrdma_chain_read(ch, 0, q, head);
	vrdma_chain_read(ch, tail, (uint8_t *)q + tail, sizeof(*q) - tail);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = rte_le_to_cpu_64(q->wr_id);
	wr.opcode = q->opcode;
	wr.send_flags = q->send_flags;
	wr.imm_data = q->imm_data;
	if (q->send_flags & ROCE_SEND_INLINE) {
		wr.inline_len = rte_le_to_cpu_16(q->inline_len);
		wr.inline_data = q->inline_data;
		want = sizeof(*q);
		if (wr.inline_len > sizeof(q->inline_data))
			goto refuse;
		vrdma_chain_read(ch, head, q->inline_data, wr.inline_len);
	} else {
		nsge = le32(q->num_sge);
		if (nsge > ROCE_MAX_SGE)
			goto refuse;
		want = sizeof(*q) + nsge * sizeof(struct vrdma_sge);
		vrdma_chain_read(ch, sizeof(*q), w->buf + sizeof(*q),
				 nsge * sizeof(struct vrdma_sge));
		sges_in(sge, w->buf + sizeof(*q), nsge);
		wr.num_sge = nsge;
		wr.sg_list = sge;
	}
	/* exactly the request, nothing device-writable */
	if (ch->rlen != want || ch->wlen != 0 || q->opcode > ROCE_WR_RDMA_READ)
		goto refuse;
	if (roce_qp_cur_state(qp) == ROCE_QPS_RESET || roce_qp_cur_state(qp) == ROCE_QPS_INIT ||
	    roce_qp_cur_state(qp) == ROCE_QPS_RTR)
		return -EAGAIN;
	if (ud) {
		/* an AH named by handle (lib/roce checks it is live and of the QP's PD) */
		wr.ud.ah = roce_ah_get(dev, le32(q->ud.ah));
		wr.ud.remote_qpn = le32(q->ud.remote_qpn);
		wr.ud.remote_qkey = le32(q->ud.remote_qkey);
	} else {
		wr.rdma.remote_addr = rte_le_to_cpu_64(q->rdma.remote_addr);
		wr.rdma.rkey = le32(q->rdma.rkey);
	}
	rc = roce_post_send(qp, &wr, 1, NULL);
	if (rc == -ENOMEM && !queue_is_empty_cap(qp, false))
		return -EAGAIN;
	if (rc == -EPERM)
		return -EAGAIN;
	if (rc == 0) {
		w->st.sq_posted++;
		return 0;
	}
refuse:
	w->st.wr_refused++;
	roce_post_error(qp, false, wr.wr_id, q->opcode, ROCE_WC_LOC_QP_OP_ERR);
	return 0;
}

/* Post one receive request (see sq_request()). */
static int
rq_request(struct vrdma_wq *w, struct roce_qp *qp, const struct vrdma_chain *ch)
{
	struct roce_sge sge[ROCE_MAX_SGE];
	struct vrdma_rq_req q;
	struct roce_recv_wr wr;
	uint32_t nsge;
	int rc;

	vrdma_chain_read(ch, 0, &q, sizeof(q));
	nsge = le32(q.num_sge);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = rte_le_to_cpu_64(q.wr_id);
	if (nsge > ROCE_MAX_SGE || ch->wlen != 0 ||
	    ch->rlen != sizeof(q) + nsge * sizeof(struct vrdma_sge))
		goto refuse;
	if (roce_qp_cur_state(qp) == ROCE_QPS_RESET)
		return -EAGAIN;
	vrdma_chain_read(ch, sizeof(q), w->buf, nsge * sizeof(struct vrdma_sge));
	sges_in(sge, w->buf, nsge);
	wr.num_sge = nsge;
	wr.sg_list = sge;
	rc = roce_post_recv(qp, &wr, 1, NULL);
	if ((rc == -ENOMEM && !queue_is_empty_cap(qp, true)) || rc == -EPERM)
		return -EAGAIN;
	if (rc == 0) {
		w->st.rq_posted++;
		return 0;
	}
refuse:
	w->st.wr_refused++;
	roce_post_error(qp, true, wr.wr_id, 0, ROCE_WC_LOC_QP_OP_ERR);
	return 0;
}

/* The QP cannot trust its queue any more: it enters ERR (its work is flushed). */
static void
qp_fail(struct roce_qp *qp)
{
	struct roce_qp_attr a = { .qp_state = ROCE_QPS_ERR };

	if (roce_qp_cur_state(qp) != ROCE_QPS_RESET && roce_qp_cur_state(qp) != ROCE_QPS_ERR)
		roce_qp_modify(qp, &a, ROCE_QP_STATE);
}

/* Take up to a burst of requests from one of a QP's rings. */
static unsigned int
wq_serve(struct vrdma_wq *w, struct roce_qp *qp, uint32_t ring, bool recv, uint64_t *call)
{
	struct vrdma_vq *vq = &w->vq[ring];
	/* a receive request's head is smaller: longer chains are refused by the reader */
	uint32_t cap = recv ? sizeof(struct vrdma_rq_req) + ROCE_MAX_SGE *
		sizeof(struct vrdma_sge) : VRDMA_WQ_MAX_REQ;
	enum roce_qp_type t = roce_qp_transport(qp);
	bool ud = t == ROCE_QPT_UD || t == ROCE_QPT_GSI;
	struct vrdma_chain ch;
	unsigned int n;

	for (n = 0; n < VRDMA_WQ_BURST; n++) {
		/* lazily: only the parts of a request in use are copied out */
		int rc = vrdma_vq_pop(vq, w->mem, NULL, cap, &ch, w->vqst);

		if (rc == 0)
			break;
		if (rc == -2) {
			/* the ring is stopped until the driver sets it up again (counted there) */
			qp_fail(qp);
			break;
		}
		if (rc < 0 || ch.rlen < (recv ? sizeof(struct vrdma_rq_req) :
					 sizeof(struct vrdma_sq_req))) {
			/* no request to name in a completion */
			w->st.wq_bad_chain++;
			qp_fail(qp);
		} else if ((recv ? rq_request(w, qp, &ch) : sq_request(w, qp, ud, &ch)) ==
			   -EAGAIN) {
			vrdma_vq_unpop(vq, 1);
			break;
		}
		vrdma_vq_push(vq, ch.head, 0);
	}
	/* a driver that reclaims as it posts turns calls off: no rte_vhost call then */
	if (n > 0 && vrdma_vq_wants_calls(vq))
		vrdma_call_set(call, ring);
	return n;
}

static void
wc_out(const struct roce_wc *wc, struct vrdma_cq_req *e)
{
	memset(e, 0, sizeof(*e));
	e->wr_id = rte_cpu_to_le_64(wc->wr_id);
	e->status = wc->status;
	e->opcode = wc->opcode;
	e->vendor_err = rte_cpu_to_le_32(wc->vendor_err);
	e->byte_len = rte_cpu_to_le_32(wc->byte_len);
	e->imm_data = wc->imm_data;
	e->qp_num = rte_cpu_to_le_32(wc->qp_num);
	e->src_qp = rte_cpu_to_le_32(wc->src_qp);
	e->wc_flags = rte_cpu_to_le_32(wc->wc_flags);
}

/*
 * Move a CQ's completions into the buffers of its ring, oldest first, up
 * to a burst of buffers (refused ones count: a guest cannot keep the
 * poller here). A CQ owed a notification is signalled each time
 * completions reach its ring, until the one that fired it is there.
 */
static unsigned int
cq_serve(struct vrdma_wq *w, struct roce_cq *cq, uint32_t cqn, uint64_t *call)
{
	uint32_t ring = vrdma_cq_ring(cqn);
	struct vrdma_vq *vq = &w->vq[ring];
	uint32_t *owed = &w->r->cq_owed[cqn];
	uint32_t pending = roce_cq_pending(cq);
	unsigned int done = 0, taken;
	struct vrdma_chain ch;

	for (taken = 0; pending > 0 && taken < VRDMA_WQ_BURST; taken++) {
		struct vrdma_cq_req e;
		struct roce_wc wc;
		int rc = vrdma_vq_pop(vq, w->mem, w->buf, 0, &ch, w->vqst);

		if (rc == 0 || rc == -2)
			break;
		if (rc < 0 || ch.wlen < sizeof(e)) {
			w->st.cq_bad_chain++;
			vrdma_vq_push(vq, ch.head, 0);
			continue;
		}
		if (roce_cq_poll(cq, &wc, 1) != 1) {
			vrdma_vq_unpop(vq, 1);
			break;
		}
		wc_out(&wc, &e);
		vrdma_chain_write(&ch, &e, sizeof(e));
		vrdma_vq_push(vq, ch.head, sizeof(e));
		pending--;
		done++;
	}
	w->st.cqe_written += done;
	if (done > 0 && *owed > 0) {
		vrdma_call_set(call, ring);
		w->st.cq_notified++;
		*owed = *owed > done ? *owed - done : 0;
	}
	return done;
}

unsigned int
vrdma_wq_poll(struct vrdma_wq *w, uint64_t call[VRDMA_MAX_RINGS / 64])
{
	struct roce_dev *dev = w->r->dev;
	unsigned int work = 0;
	uint32_t i;

	/* QPN = slot; slot 0 (SMI) has no QP */
	for (i = 1; i < w->max_qps; i++) {
		uint32_t sq = vrdma_sq_ring(w->max_cqs, i), rq = sq + 1;
		bool s = ring_has_work(&w->vq[sq]), r = ring_has_work(&w->vq[rq]);
		enum roce_qp_state st;
		struct roce_qp *qp;

		if (!s && !r)
			continue;
		/* chains on the rings of a QP that does not exist wait (the driver resets them) */
		qp = roce_qp_get(dev, i);
		if (qp == NULL)
			continue;
		/* requests the QP cannot take yet wait in their ring, unread */
		st = roce_qp_cur_state(qp);
		if (r && st != ROCE_QPS_RESET)
			work += wq_serve(w, qp, rq, true, call);
		if (s && st != ROCE_QPS_RESET && st != ROCE_QPS_INIT && st != ROCE_QPS_RTR)
			work += wq_serve(w, qp, sq, false, call);
	}
	work += roce_dev_poll(dev);
	for (i = 0; i < w->max_cqs; i++) {
		struct roce_cq *cq;

		if (!ring_has_work(&w->vq[vrdma_cq_ring(i)]))
			continue;
		cq = roce_cq_get(dev, i);
		if (cq != NULL && roce_cq_pending(cq) > 0)
			work += cq_serve(w, cq, i, call);
	}
	return work;
}

unsigned int
vrdma_wq_discard(struct vrdma_wq *w, uint32_t qpn, uint64_t call[VRDMA_MAX_RINGS / 64])
{
	uint32_t ring = vrdma_sq_ring(w->max_cqs, qpn), k;
	unsigned int n = 0;

	if (qpn >= w->max_qps)
		return 0;
	for (k = 0; k < 2; k++, ring++) {
		struct vrdma_vq *vq = &w->vq[ring];
		uint16_t head;

		/* at most a ring's worth: what the driver queued before the reset */
		while (vrdma_vq_skip(vq, &head, w->vqst) == 1) {
			vrdma_vq_push(vq, head, 0);
			vrdma_call_set(call, ring);
			n++;
		}
	}
	w->st.wr_discarded += n;
	return n;
}
