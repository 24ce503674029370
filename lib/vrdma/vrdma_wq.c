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

/* The guest's SGEs have lib/roce's layout, little-endian. */
#define SGE_AS_ROCE (RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN && \
		     sizeof(struct vrdma_sge) == sizeof(struct roce_sge) && \
		     offsetof(struct roce_sge, length) == offsetof(struct vrdma_sge, length) && \
		     offsetof(struct roce_sge, lkey) == offsetof(struct vrdma_sge, lkey))

/* Copy @p n SGEs at byte @p off of a request into @p out (@p tmp: room to convert). */
static void
sges_read(const struct vrdma_chain *ch, uint32_t off, struct roce_sge *out, uint32_t n,
	  uint8_t *tmp)
{
	uint32_t i;

	if (SGE_AS_ROCE) {
		/* straight into lib/roce's array: one copy */
		vrdma_chain_read(ch, off, out, n * sizeof(*out));
		return;
	}
	vrdma_chain_read(ch, off, tmp, n * sizeof(struct vrdma_sge));
	for (i = 0; i < n; i++) {
		struct vrdma_sge s;

		memcpy(&s, tmp + i * sizeof(s), sizeof(s));
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
 * Requests to take from a queue's ring in one poll: no more than the queue
 * has room for, so a full queue's requests wait in the ring unread (not read
 * and put back at every poll). A queue of 0 entries never has room: its
 * requests are taken to fail (queue_is_empty_cap()).
 */
static unsigned int
burst_for(struct roce_qp *qp, bool recv)
{
	uint32_t room = roce_qp_room(qp, recv);

	if (room == 0 && queue_is_empty_cap(qp, recv))
		return VRDMA_WQ_BURST;
	return RTE_MIN(room, (uint32_t)VRDMA_WQ_BURST);
}

/* The QP cannot trust its queue any more: it enters ERR (its work is flushed). */
static void
qp_fail(struct roce_qp *qp)
{
	struct roce_qp_attr a = { .qp_state = ROCE_QPS_ERR };

	if (roce_qp_cur_state(qp) != ROCE_QPS_RESET && roce_qp_cur_state(qp) != ROCE_QPS_ERR)
		roce_qp_modify(qp, &a, ROCE_QP_STATE);
}

/*
 * Requests of one ring on their way to lib/roce, posted a burst at a time
 * (one call), their chains returned only once lib/roce took them. An inline
 * send is posted alone: its data lives in the one request buffer.
 */
struct wq_batch {
	bool recv;
	union {
		struct roce_send_wr s[VRDMA_WQ_BURST];
		struct roce_recv_wr r[VRDMA_WQ_BURST];
	} wr;
	uint16_t head[VRDMA_WQ_BURST];
	struct roce_sge sge[VRDMA_WQ_BURST + ROCE_MAX_SGE];
	unsigned int n, nsge;
};

/* Complete request @p wr_id in error (malformed): its QP enters ERR. */
static void
refuse(struct vrdma_wq *w, struct roce_qp *qp, bool recv, uint64_t wr_id, uint8_t opcode)
{
	w->st.wr_refused++;
	roce_post_error(qp, recv, wr_id, opcode, ROCE_WC_LOC_QP_OP_ERR);
}

/*
 * Post the batch. @return 0, or -EAGAIN when lib/roce cannot take the rest
 * now: those chains go back to the ring, unread.
 */
static int
batch_flush(struct vrdma_wq *w, struct roce_qp *qp, struct vrdma_vq *vq, struct wq_batch *b)
{
	unsigned int i = 0;
	int rc = 0;

	while (i < b->n) {
		unsigned int done = 0, k;

		rc = b->recv ? roce_post_recv(qp, &b->wr.r[i], b->n - i, &done) :
			roce_post_send(qp, &b->wr.s[i], b->n - i, &done);
		for (k = 0; k < done; k++)
			vrdma_vq_push(vq, b->head[i + k], 0);
		if (b->recv)
			w->st.rq_posted += done;
		else
			w->st.sq_posted += done;
		i += done;
		if (rc == 0)
			break;
		if ((rc == -ENOMEM && !queue_is_empty_cap(qp, b->recv)) || rc == -EPERM) {
			/* the last ones taken: they wait in the ring */
			vrdma_vq_unpop(vq, (uint16_t)(b->n - i));
			rc = -EAGAIN;
			break;
		}
		/* lib/roce refused this one (opcode, SGEs, length, AH, a queue of 0) */
		if (b->recv)
			refuse(w, qp, true, b->wr.r[i].wr_id, 0);
		else
			refuse(w, qp, false, b->wr.s[i].wr_id, b->wr.s[i].opcode);
		vrdma_vq_push(vq, b->head[i], 0);
		i++;
		rc = 0;
	}
	b->n = 0;
	b->nsge = 0;
	return rc;
}

/*
 * A malformed request: complete it in error after posting those batched
 * before it (completions stay in ring order). @return 0, or -EAGAIN (see
 * batch_flush(); the request goes back to the ring too).
 */
static int
refuse_after_batch(struct vrdma_wq *w, struct roce_qp *qp, struct vrdma_vq *vq,
		   struct wq_batch *b, const struct vrdma_chain *ch, uint64_t wr_id, uint8_t opcode)
{
	if (batch_flush(w, qp, vq, b) != 0) {
		vrdma_vq_unpop(vq, 1);
		return -EAGAIN;
	}
	refuse(w, qp, b->recv, wr_id, opcode);
	vrdma_vq_push(vq, ch->head, 0);
	return 0;
}

/* Room for @p nsge more SGEs (or an inline send: alone), posting the batch if need be. */
static int
batch_room(struct vrdma_wq *w, struct roce_qp *qp, struct vrdma_vq *vq, struct wq_batch *b,
	   uint32_t nsge, bool alone)
{
	if ((alone && b->n > 0) || b->nsge + nsge > RTE_DIM(b->sge)) {
		if (batch_flush(w, qp, vq, b) != 0) {
			vrdma_vq_unpop(vq, 1);
			return -EAGAIN;
		}
	}
	return 0;
}

/* Add one send request to the batch (see rq_request()). */
static int
sq_request(struct vrdma_wq *w, struct roce_qp *qp, struct vrdma_vq *vq, struct wq_batch *b,
	   bool ud, const struct vrdma_chain *ch)
{
	const uint32_t head = offsetof(struct vrdma_sq_req, inline_data);
	const uint32_t tail = offsetof(struct vrdma_sq_req, num_sge);
	/*
	 * The device's own copy of the parts in use: the head, the tail with
	 * num_sge, then the inline data or the SGEs, each read once from
	 * guest memory; the unused inline area is never read.
	 */
	struct vrdma_sq_req *q = (struct vrdma_sq_req *)w->buf;
	struct roce_send_wr *wr;
	uint32_t nsge = 0, want;
	bool inl, atomic;

	vrdma_chain_read(ch, 0, q, head);
	vrdma_chain_read(ch, tail, (uint8_t *)q + tail, sizeof(*q) - tail);
	inl = (q->send_flags & ROCE_SEND_INLINE) != 0;
	if (inl) {
		want = sizeof(*q);
		if (rte_le_to_cpu_16(q->inline_len) > sizeof(q->inline_data))
			goto bad;
	} else {
		nsge = le32(q->num_sge);
		if (nsge > ROCE_MAX_SGE)
			goto bad;
		want = sizeof(*q) + nsge * sizeof(struct vrdma_sge);
	}
	/* exactly the request, nothing device-writable */
	if (ch->rlen != want || ch->wlen != 0 || q->opcode > ROCE_WR_ATOMIC_FETCH_AND_ADD)
		goto bad;
	atomic = q->opcode >= ROCE_WR_ATOMIC_CMP_AND_SWP;
	if (atomic && (inl || nsge != 1 || (rte_le_to_cpu_64(q->atomic.remote_addr) & 7) != 0))
		goto bad;
	if (batch_room(w, qp, vq, b, nsge, inl) != 0)
		return -EAGAIN;
	wr = &b->wr.s[b->n];
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = rte_le_to_cpu_64(q->wr_id);
	wr->opcode = q->opcode;
	wr->send_flags = q->send_flags;
	wr->imm_data = q->imm_data;
	if (inl) {
		wr->inline_len = rte_le_to_cpu_16(q->inline_len);
		wr->inline_data = q->inline_data;
		vrdma_chain_read(ch, head, q->inline_data, wr->inline_len);
	} else {
		sges_read(ch, sizeof(*q), &b->sge[b->nsge], nsge, w->buf + sizeof(*q));
		wr->num_sge = nsge;
		wr->sg_list = &b->sge[b->nsge];
		/*
		 * an atomic's result: exactly 8 bytes, 8-byte aligned (the device's
		 * rule: the original lands as one aligned word), checked on the copy
		 * lib/roce gets; lib/roce checks the count and the length again
		 */
		if (atomic && (wr->sg_list[0].length != 8 || (wr->sg_list[0].addr & 7) != 0))
			goto bad;
	}
	if (ud) {
		/* an AH named by handle (lib/roce checks it is live and of the QP's PD) */
		wr->ud.ah = roce_ah_get(w->r->dev, le32(q->ud.ah));
		wr->ud.remote_qpn = le32(q->ud.remote_qpn);
		wr->ud.remote_qkey = le32(q->ud.remote_qkey);
	} else if (atomic) {
		wr->atomic.remote_addr = rte_le_to_cpu_64(q->atomic.remote_addr);
		wr->atomic.rkey = le32(q->atomic.rkey);
		wr->atomic.compare_add = rte_le_to_cpu_64(q->atomic.compare_add);
		wr->atomic.swap = rte_le_to_cpu_64(q->atomic.swap);
	} else {
		wr->rdma.remote_addr = rte_le_to_cpu_64(q->rdma.remote_addr);
		wr->rdma.rkey = le32(q->rdma.rkey);
	}
	b->head[b->n++] = ch->head;
	b->nsge += nsge;
	/* the inline data is in the request buffer the next request overwrites */
	return inl ? batch_flush(w, qp, vq, b) : 0;
bad:
	return refuse_after_batch(w, qp, vq, b, ch, rte_le_to_cpu_64(q->wr_id), q->opcode);
}

/*
 * Add one receive request to the batch, or complete it in error when it is
 * malformed (after posting those before it). @return 0, or -EAGAIN (see
 * batch_flush()).
 */
static int
rq_request(struct vrdma_wq *w, struct roce_qp *qp, struct vrdma_vq *vq, struct wq_batch *b,
	   const struct vrdma_chain *ch)
{
	struct vrdma_rq_req q;
	uint32_t nsge;

	vrdma_chain_read(ch, 0, &q, sizeof(q));
	nsge = le32(q.num_sge);
	if (nsge > ROCE_MAX_SGE || ch->wlen != 0 ||
	    ch->rlen != sizeof(q) + nsge * sizeof(struct vrdma_sge))
		return refuse_after_batch(w, qp, vq, b, ch, rte_le_to_cpu_64(q.wr_id), 0);
	if (batch_room(w, qp, vq, b, nsge, false) != 0)
		return -EAGAIN;
	sges_read(ch, sizeof(q), &b->sge[b->nsge], nsge, w->buf);
	b->wr.r[b->n].wr_id = rte_le_to_cpu_64(q.wr_id);
	b->wr.r[b->n].num_sge = nsge;
	b->wr.r[b->n].sg_list = &b->sge[b->nsge];
	b->head[b->n++] = ch->head;
	b->nsge += nsge;
	return 0;
}

/* Take up to a burst of requests from one of a QP's rings. */
static unsigned int
wq_serve(struct vrdma_wq *w, struct roce_qp *qp, uint32_t ring, bool recv, uint64_t *call)
{
	struct vrdma_vq *vq = &w->vq[ring];
	/* a receive request's head is smaller: longer chains are refused by the reader */
	const uint32_t cap = recv ? sizeof(struct vrdma_rq_req) + ROCE_MAX_SGE *
		sizeof(struct vrdma_sge) : VRDMA_WQ_MAX_REQ;
	const uint32_t min = recv ? sizeof(struct vrdma_rq_req) : sizeof(struct vrdma_sq_req);
	enum roce_qp_type t = roce_qp_transport(qp);
	bool ud = t == ROCE_QPT_UD || t == ROCE_QPT_GSI;
	const uint16_t used = vq->last_used;
	unsigned int n, max = burst_for(qp, recv);
	struct vrdma_chain ch;
	struct wq_batch b;

	b.recv = recv;
	b.n = 0;
	b.nsge = 0;
	for (n = 0; n < max; n++) {
		/* lazily: only the parts of a request in use are copied out */
		int rc = vrdma_vq_pop(vq, w->mem, NULL, cap, &ch, w->vqst);

		if (rc == 0)
			break;
		if (rc == -2) {
			/* the ring is stopped until the driver sets it up again (counted there) */
			batch_flush(w, qp, vq, &b);
			qp_fail(qp);
			break;
		}
		if (rc < 0 || ch.rlen < min) {
			/* no request to name in a completion */
			if (batch_flush(w, qp, vq, &b) != 0) {
				vrdma_vq_unpop(vq, 1);
				break;
			}
			w->st.wq_bad_chain++;
			qp_fail(qp);
			vrdma_vq_push(vq, ch.head, 0);
		} else if ((recv ? rq_request(w, qp, vq, &b, &ch) :
			    sq_request(w, qp, vq, &b, ud, &ch)) != 0) {
			break;
		}
	}
	if (b.n > 0)
		batch_flush(w, qp, vq, &b);
	/* chains returned (not those put back); a driver that reclaims as it posts turns calls off */
	n = (uint16_t)(vq->last_used - used);
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
 * poller here). Buffers of one piece are gathered and filled from one
 * lib/roce poll; a refused one is returned empty at once (it carries no
 * completion); a buffer in pieces ends the gathering and is filled first
 * next time, so completions keep their order. A CQ owed a
 * notification is signalled each time completions reach its ring, until
 * the one that fired it is there.
 */
static unsigned int
cq_serve(struct vrdma_wq *w, struct roce_cq *cq, uint32_t cqn, uint64_t *call)
{
	uint32_t ring = vrdma_cq_ring(cqn);
	struct vrdma_vq *vq = &w->vq[ring];
	uint32_t *owed = &w->r->cq_owed[cqn];
	uint32_t pending = roce_cq_pending(cq);
	uint8_t *host[VRDMA_WQ_BURST];
	uint16_t head[VRDMA_WQ_BURST];
	struct roce_wc wc[VRDMA_WQ_BURST];
	unsigned int n = 0, done = 0, taken;
	struct vrdma_chain ch;
	int i, got;

	for (taken = 0; done + n < pending && taken < VRDMA_WQ_BURST; taken++) {
		struct vrdma_cq_req e;
		int rc = vrdma_vq_pop(vq, w->mem, w->buf, 0, &ch, w->vqst);

		if (rc == 0 || rc == -2)
			break;
		if (rc < 0 || ch.wlen < sizeof(e)) {
			/* returned empty at once: it carries no completion, so the order holds */
			w->st.cq_bad_chain++;
			vrdma_vq_push(vq, ch.head, 0);
			continue;
		}
		if (ch.nw == 1) {
			host[n] = ch.wseg[0].host;
			head[n++] = ch.head;
			continue;
		}
		/* a buffer in pieces: after those gathered (read again next time), else now */
		if (n > 0) {
			vrdma_vq_unpop(vq, 1);
			break;
		}
		if (roce_cq_poll(cq, wc, 1) != 1) {
			vrdma_vq_unpop(vq, 1);
			break;
		}
		wc_out(&wc[0], &e);
		vrdma_chain_write(&ch, &e, sizeof(e));
		vrdma_vq_push(vq, ch.head, sizeof(e));
		done++;
	}
	/* no other poller: the completions announced are there */
	got = n > 0 ? roce_cq_poll(cq, wc, (int)n) : 0;
	for (i = 0; i < got; i++) {
		/* straight into the buffer: the guest reads it only once it is used */
		wc_out(&wc[i], (struct vrdma_cq_req *)host[i]);
		vrdma_vq_push(vq, head[i], sizeof(struct vrdma_cq_req));
	}
	got = RTE_MAX(got, 0);
	/*
	 * Cannot happen (one poller; the completions were counted first). Were
	 * it to, the buffers left go back empty: refused ones were returned in
	 * between, so they are not the last taken any more.
	 */
	for (i = got; i < (int)n; i++)
		vrdma_vq_push(vq, head[i], 0);
	done += (unsigned int)got;
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
