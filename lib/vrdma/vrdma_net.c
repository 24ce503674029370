/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* The virtio-net queues: frames between the guest's rings and the wire's (see vrdma_net.h). */

#include <string.h>

#include <linux/virtio_ring.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ether.h>

#include "omni_mbuf.h"
#include "vrdma_net.h"

/*
 * transmitq: each chain is a header and a frame, copied straight into an
 * mbuf (never used in place), checked and handed to the wire's ring.
 */
static unsigned int
tx_poll(struct vrdma_net *n, struct vrdma_vq *vq, const struct rte_vhost_memory *mem,
	struct vrdma_vq_stats *vqst, uint64_t *call)
{
	struct vrdma_chain *ch = &n->ch[0];
	unsigned int k;

	for (k = 0; k < VRDMA_NET_BURST; k++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(n->pool);
		struct vrdma_net_hdr h;
		uint32_t len;
		int rc;

		if (m == NULL)
			break; /* the chains wait for mbufs */
		rc = vrdma_vq_pop(vq, mem, rte_pktmbuf_mtod(m, uint8_t *), rte_pktmbuf_tailroom(m),
				  ch, vqst);
		if (rc <= 0) {
			rte_pktmbuf_free(m);
			if (rc == -1)
				vrdma_vq_push(vq, ch->head, 0); /* refused and counted by the reader */
			if (rc == -1)
				continue;
			break;
		}
		vrdma_vq_push(vq, ch->head, 0);
		memcpy(&h, rte_pktmbuf_mtod(m, void *), RTE_MIN(sizeof(h), (size_t)ch->rlen));
		/* no offload was offered: a header asking for one is the driver's error */
		if (ch->rlen < n->hdr_len + RTE_ETHER_HDR_LEN || ch->rlen - n->hdr_len > n->max_frame ||
		    ch->wlen != 0 || h.flags != 0 || h.gso_type != 0) {
			n->st.tx_refused++;
			rte_pktmbuf_free(m);
			continue;
		}
		m->data_len = (uint16_t)ch->rlen;
		m->pkt_len = ch->rlen;
		rte_pktmbuf_adj(m, (uint16_t)n->hdr_len);
		len = m->pkt_len; /* the mbuf is the wire's once enqueued */
		if (rte_ring_enqueue(n->tx_ring, m) != 0) {
			n->st.tx_dropped++;
			rte_pktmbuf_free(m);
			continue;
		}
		n->st.tx_frames++;
		n->st.tx_bytes += len;
	}
	if (k > 0 && vrdma_vq_wants_calls(vq))
		vrdma_call_set(call, VRDMA_NET_TXQ);
	return k;
}

/* Copy @p m's bytes from @p off on into a chain at @p at. @return bytes copied. */
static uint32_t
copy_out(const struct vrdma_chain *ch, uint32_t at, const struct rte_mbuf *m, uint32_t off,
	 uint32_t len)
{
	struct omni_mbuf_span s;
	const uint8_t *p;
	uint32_t n, done = 0;

	omni_mbuf_span_init(&s, m, off, len);
	while ((n = omni_mbuf_span_next(&s, &p)) > 0)
		done += vrdma_chain_write_at(ch, at + done, p, n);
	return done;
}

/*
 * Write one frame into the guest's receive buffers: one chain, or with
 * MRG_RXBUF as many as it takes (num_buffers in the header).
 * @return 1 delivered, 0 not enough buffers yet (nothing taken), -1 the
 *   frame cannot be delivered (dropped by the caller). @p pushed is set
 *   when buffers were returned (refused ones included).
 */
static int
rx_one(struct vrdma_net *n, struct vrdma_vq *vq, const struct rte_vhost_memory *mem,
       struct vrdma_vq_stats *vqst, const struct rte_mbuf *m, bool *pushed)
{
	uint32_t need = n->hdr_len + m->pkt_len, room = 0, off = 0;
	struct vrdma_net_hdr h = { 0 };
	unsigned int nb = 0, i;

	unsigned int tries = 0;
	uint8_t none[1];

	/*
	 * Every chain taken is either returned or put back, the last ones
	 * first, so the ring's available index only ever steps back over
	 * chains not yet returned.
	 */
	while (room < need) {
		int rc;

		if (++tries > vq->size) {
			/* a ring's worth of refused buffers: the frame waits for the next poll */
			vrdma_vq_unpop(vq, (uint16_t)nb);
			*pushed = true;
			return 0;
		}
		if (nb == (n->mrg ? VRDMA_NET_MAX_BUFS : 1u)) {
			/* without MRG_RXBUF one chain must hold the whole frame */
			vrdma_vq_unpop(vq, (uint16_t)nb);
			return -1;
		}
		rc = vrdma_vq_pop(vq, mem, none, 0, &n->ch[nb], vqst);
		if (rc == -1 || (rc == 1 && nb == 0 && n->ch[0].wlen < n->hdr_len)) {
			/*
			 * a readable part, a bad address (counted by the reader) or
			 * a first buffer without room for the header: returned
			 * empty, with those taken before it; the frame starts again
			 */
			if (rc == 1)
				n->st.rx_bad_buf++;
			for (i = 0; i <= nb; i++)
				vrdma_vq_push(vq, n->ch[i].head, 0);
			*pushed = true;
			nb = 0;
			room = 0;
			continue;
		}
		if (rc <= 0) {
			/* not enough buffers now: put back what was taken, try later */
			vrdma_vq_unpop(vq, (uint16_t)nb);
			return 0;
		}
		room += n->ch[nb].wlen;
		nb++;
	}
	h.num_buffers = rte_cpu_to_le_16((uint16_t)nb);
	for (i = 0; i < nb; i++) {
		uint32_t at = 0, len;

		if (i == 0)
			at = vrdma_chain_write_at(&n->ch[0], 0, &h, n->hdr_len); /* it fits: checked */
		len = RTE_MIN(n->ch[i].wlen - at, m->pkt_len - off);
		copy_out(&n->ch[i], at, m, off, len);
		off += len;
		vrdma_vq_push(vq, n->ch[i].head, at + len);
	}
	*pushed = true;
	return 1;
}

/* receiveq: frames from the wire's ring into the guest's buffers, in order. */
static unsigned int
rx_poll(struct vrdma_net *n, struct vrdma_vq *vq, const struct rte_vhost_memory *mem,
	struct vrdma_vq_stats *vqst, uint64_t *call)
{
	bool pushed = false;
	unsigned int k;

	for (k = 0; k < VRDMA_NET_BURST; k++) {
		struct rte_mbuf *m = n->pending;
		int rc;

		if (m == NULL && rte_ring_dequeue(n->rx_ring, (void **)&m) != 0)
			break;
		n->pending = NULL;
		rc = rx_one(n, vq, mem, vqst, m, &pushed);
		if (rc == 0) {
			n->pending = m;
			break;
		}
		if (rc < 0) {
			n->st.rx_too_big++;
		} else {
			n->st.rx_frames++;
			n->st.rx_bytes += m->pkt_len;
		}
		rte_pktmbuf_free(m);
	}
	if (pushed && vrdma_vq_wants_calls(vq))
		vrdma_call_set(call, VRDMA_NET_RXQ);
	return k;
}

unsigned int
vrdma_net_poll(struct vrdma_net *n, struct vrdma_vq *vq, const struct rte_vhost_memory *mem,
	       struct vrdma_vq_stats *vqst, uint64_t *call)
{
	unsigned int work = 0;

	if (n->tx_ring != NULL && vq[VRDMA_NET_TXQ].live)
		work += tx_poll(n, &vq[VRDMA_NET_TXQ], mem, vqst, call);
	if (n->rx_ring != NULL && vq[VRDMA_NET_RXQ].live)
		work += rx_poll(n, &vq[VRDMA_NET_RXQ], mem, vqst, call);
	return work;
}

void
vrdma_net_reset(struct vrdma_net *n)
{
	rte_pktmbuf_free(n->pending);
	n->pending = NULL;
}
