/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * The VNIC datapath: TX decides every 16B field with lib/vnic, encapsulates
 * in place and spreads flows over the queue's fabric TX queues by entropy;
 * RX takes frames handed over by other pollers, polls the shared fabric
 * queue when nobody else is, and judges its own frames against its policy.
 */

#include <string.h>

#include <rte_mbuf.h>

#include "opa16b.h"
#include "opa_vnic.h"

/* vnic_classify_hash() reads at most this much of a frame. */
#define VIEW_LEN 128

/* A contiguous view of the first bytes of a frame (copied when split). */
static inline const void *
frame_view(const struct rte_mbuf *m, uint8_t *buf)
{
	uint32_t want = RTE_MIN(m->pkt_len, (uint32_t)VIEW_LEN);

	if (likely(m->data_len >= want))
		return rte_pktmbuf_mtod(m, const void *);
	return rte_pktmbuf_read(m, 0, want, buf);
}

/* ---- RX ---- */

static inline struct vnic_rxq_stats *
rx_stats(struct opa_vnic_dev *dev, unsigned int vport, unsigned int poller)
{
	return &dev->rx_stats[vport * dev->nb_pollers + poller];
}

/* The vport a VNIC packet's header names (length errors are its to count). */
static inline int
vport_of_hdr(const struct opa_vnic_dev *dev, const void *hdr)
{
	struct opa16b_vnic_fields f;

	opa16b_vnic_hdr_read(hdr, &f);
	return (int)dev->vesw_map[f.vesw_id & VNIC_VESW_ID_MAX] - 1;
}

/*
 * The policy snapshot of an RX burst, read once the burst has a frame to
 * judge: an idle poll never goes RCU-online (a full fence on x86).
 */
struct rx_reader {
	const struct vnic_policy *p;	/* NULL: not online yet */
};

static __rte_always_inline const struct vnic_policy *
rx_policy(struct opa_vnic_rxq *q, struct rx_reader *r)
{
	if (unlikely(r->p == NULL)) {
		rte_rcu_qsbr_thread_online(q->dev->qsbr, q->rcu_id);
		r->p = vnic_vport_policy(q->port->vp);
	}
	return r->p;
}

/*
 * Judge a frame of q's own vport against its policy: deliver (true) or
 * drop, counted either way on q's counters (their only writer).
 */
static __rte_always_inline bool
rx_judge(struct opa_vnic_rxq *q, struct rx_reader *r, struct rte_mbuf *m)
{
	uint8_t view[VIEW_LEN];
	const void *frame = frame_view(m, view);

	if (likely(vnic_rx_frame(rx_policy(q, r), q->st, frame, m->pkt_len))) {
		m->port = q->port->port_id;
		m->ol_flags = 0;
		m->packet_type = 0;
		return true;
	}
	rte_pktmbuf_free(m);
	return false;
}

/*
 * Poll fabric RX queue @p fq for q (the caller holds its lock): FM packets
 * go to the control path, VNIC frames of q's vport are judged against its
 * policy and delivered to @p out, other vports' frames go to the ring of their RX
 * queue fq mod their queue count (a flow stays on one queue), to be judged
 * there. Returns the frames put in @p out (at most room).
 */
static uint16_t
poll_fabric(struct opa_vnic_dev *dev, struct opa_vnic_rxq *q, uint16_t fq,
	    struct rx_reader *r, struct rte_mbuf **out, uint16_t room)
{
	struct rte_mbuf *in[OPA_VNIC_BURST];
	struct rte_mbuf *hand[OPA_VNIC_MAX_VPORTS][OPA_VNIC_BURST];
	uint16_t nb_hand[OPA_VNIC_MAX_VPORTS];
	uint32_t targets = 0;
	struct opa_vnic_fabric_rx_stats *fst = &q->fst;
	uint8_t copy[OPA16B_VNIC_HDR_LEN];
	uint16_t nb, i, kept = 0, own = q->port->index;

	nb = rte_eth_rx_burst(q->fabric_port, fq, in, room);
	if (nb == 0)
		return 0;
	fst->packets += nb;
	for (i = 0; i < nb; i++) {
		struct rte_mbuf *m = in[i];
		const uint8_t *hdr;
		enum opa16b_vnic_rx_err err;
		uint16_t vesw = 0;
		int vport;

		if (i + 1 < nb)
			rte_prefetch0(rte_pktmbuf_mtod(in[i + 1], void *));
		hdr = rte_pktmbuf_read(m, 0, OPA16B_VNIC_HDR_LEN, copy);
		if (unlikely(hdr == NULL || opa16b_get_l2(hdr) != OPA16B_L2_16B)) {
			fst->not_16b++;
			rte_pktmbuf_free(m);
			continue;
		}
		if (unlikely(opa16b_get_l4(hdr) == OPA16B_L4_FM)) {
			if (rte_ring_mp_enqueue(dev->mgmt_ring, m) == 0) {
				fst->mgmt++;
			} else {
				fst->mgmt_full++;
				rte_pktmbuf_free(m);
			}
			continue;
		}
		if (unlikely(opa16b_get_l4(hdr) != OPA16B_L4_ETHR)) {
			fst->other_l4++;
			rte_pktmbuf_free(m);
			continue;
		}
		err = opa16b_vnic_decap(m, VNIC_ETH_MTU_MAX, &vesw);
		if (unlikely(err != OPA16B_VNIC_RX_OK)) {
			/* Length errors of a known vport are the vport's (EM counters). */
			vport = err == OPA16B_VNIC_RX_RUNT || err == OPA16B_VNIC_RX_OVERSIZE ?
				vport_of_hdr(dev, hdr) : -1;
			if (vport >= 0 && err == OPA16B_VNIC_RX_RUNT)
				rx_stats(dev, vport, q->poller)->runt++;
			else if (vport >= 0)
				rx_stats(dev, vport, q->poller)->oversize++;
			else
				fst->decap[err]++;
			rte_pktmbuf_free(m);
			continue;
		}
		vport = (int)dev->vesw_map[vesw & VNIC_VESW_ID_MAX] - 1;
		if (unlikely(vport < 0)) {
			/* Linux counts unknown vesws on its first vport. */
			rx_stats(dev, 0, q->poller)->bad_veswid++;
			rte_pktmbuf_free(m);
			continue;
		}
		if (vport == own) {
			if (rx_judge(q, r, m))
				out[kept++] = m;
			continue;
		}
		if (!(targets & (1u << vport))) {
			targets |= 1u << vport;
			nb_hand[vport] = 0;
		}
		hand[vport][nb_hand[vport]++] = m;
	}

	while (targets != 0) {
		unsigned int v = rte_bsf32(targets);
		struct opa_vnic_port *t = dev->ports[v];
		struct opa_vnic_rxq *tq = NULL;
		unsigned int n = nb_hand[v], done = 0;

		targets &= targets - 1;
		/* A stopped port drops its frames; stop waits for this lock. */
		if (t != NULL && __atomic_load_n(&t->started, __ATOMIC_ACQUIRE) &&
		    t->eth->data->nb_rx_queues > 0)
			tq = t->rxq[fq % t->eth->data->nb_rx_queues];
		if (tq != NULL)
			done = rte_ring_mp_enqueue_burst(tq->ring, (void **)hand[v], n, NULL);
		else
			rx_stats(dev, v, q->poller)->drop_state += n;
		if (tq != NULL && done < n)
			rx_stats(dev, v, q->poller)->fifo += n - done;
		fst->handed += done;
		if (done < n)
			rte_pktmbuf_free_bulk(&hand[v][done], n - done);
	}
	return kept;
}

uint16_t
opa_vnic_rx_burst(void *queue, struct rte_mbuf **pkts, uint16_t n)
{
	struct opa_vnic_rxq *q = queue;
	struct opa_vnic_dev *dev = q->dev;
	struct rx_reader r = { NULL };
	uint16_t got, i, kept = 0;

	if (n > OPA_VNIC_BURST)
		n = OPA_VNIC_BURST;
	/* Frames other pollers handed over, judged here like our own. */
	got = rte_ring_sc_dequeue_burst(q->ring, (void **)pkts, n, NULL);
	for (i = 0; i < got; i++)
		if (rx_judge(q, &r, pkts[i]))
			pkts[kept++] = pkts[i];
	/*
	 * Fabric queues fabric_q, fabric_q + nb_rx_queues, ...: with fewer VNIC
	 * queues than fabric queues (queues= is a maximum) none goes unpolled.
	 */
	if (q->fabric_q >= 0) {
		unsigned int stride = RTE_MAX(q->port->eth->data->nb_rx_queues, (uint16_t)1);
		unsigned int k = (dev->nb_fabric_rxq - q->fabric_q + stride - 1) / stride;

		/* Start one further each burst: a busy queue starves no other. */
		q->fabric_rr = (uint16_t)(q->fabric_rr + 1u < k ? q->fabric_rr + 1 : 0);
		for (i = 0; i < k && kept < n; i++) {
			uint16_t fq = (uint16_t)(q->fabric_q + ((q->fabric_rr + i) % k) * stride);

			if (!rte_spinlock_trylock(&dev->frx_lock[fq]))
				continue;
			kept += poll_fabric(dev, q, fq, &r, pkts + kept, n - kept);
			rte_spinlock_unlock(&dev->frx_lock[fq]);
		}
	}
	if (r.p != NULL)
		rte_rcu_qsbr_thread_offline(dev->qsbr, q->rcu_id);
	return kept;
}

/* ---- TX ---- */

/*
 * Encapsulate a copy when the frame's buffer cannot take the header and
 * trailer in place (shared, or no headroom/tailroom). @p m stays the
 * caller's: it is freed only once the fabric took the copy. Returns the
 * packet to send, or NULL (m untouched).
 */
static struct rte_mbuf *
encap_copy(struct opa_vnic_txq *q, struct rte_mbuf *m, const struct opa16b_vnic_fields *f)
{
	struct rte_mbuf *c, *tail;
	int err;

	c = rte_pktmbuf_copy(m, q->dev->pool, 0, UINT32_MAX);
	if (c == NULL)
		return NULL;
	err = opa16b_vnic_encap(c, f);
	if (err == -ENOSPC) {
		/* the copy filled its last segment: the trailer gets its own */
		tail = rte_pktmbuf_alloc(q->dev->pool);
		if (tail == NULL || rte_pktmbuf_chain(c, tail) != 0) {
			rte_pktmbuf_free(tail);
			rte_pktmbuf_free(c);
			return NULL;
		}
		err = opa16b_vnic_encap(c, f);
	}
	if (err != 0) {
		rte_pktmbuf_free(c);
		return NULL;
	}
	q->encap_copy++;
	return c;
}

/*
 * Give a packet encapsulated in place back its frame: the fabric did not
 * take it. In-place encapsulation never adds a segment (a frame without
 * room is copied), so every segment stays the caller's, even an empty last
 * one that held the trailer.
 */
static void
encap_undo(struct rte_mbuf *m, uint32_t eth_len)
{
	struct rte_mbuf *last = rte_pktmbuf_lastseg(m);
	uint32_t trailer = m->pkt_len - OPA16B_VNIC_HDR_LEN - eth_len;

	m->data_off += OPA16B_VNIC_HDR_LEN;
	m->data_len -= OPA16B_VNIC_HDR_LEN;
	last->data_len -= trailer;
	m->pkt_len = eth_len;
}

/* One chunk of at most OPA_VNIC_BURST packets; see opa_vnic_tx_burst(). */
static uint16_t
tx_chunk(struct opa_vnic_txq *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct opa_vnic_dev *dev = q->dev;
	struct vnic_txq_stats *st = q->st;
	struct rte_mbuf *eng[OPA_VNIC_MAX_ENGINES][OPA_VNIC_BURST];
	uint8_t eng_idx[OPA_VNIC_MAX_ENGINES][OPA_VNIC_BURST];
	uint16_t nb_eng[OPA_VNIC_MAX_ENGINES] = { 0 };
	struct vnic_frame_class cls[OPA_VNIC_BURST];
	uint32_t eth_len[OPA_VNIC_BURST];
	struct rte_mbuf *unsent[OPA_VNIC_BURST];
	/* the caller's mbuf when a copy is sent in its place, else NULL */
	struct rte_mbuf *orig[OPA_VNIC_BURST];
	const struct vnic_policy *p;
	uint8_t view[VIEW_LEN];
	uint16_t i, e, nb_unsent = 0;

	rte_rcu_qsbr_thread_online(dev->qsbr, q->rcu_id);
	p = vnic_vport_policy(q->port->vp);
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct opa16b_vnic_fields f;
		enum vnic_tx_verdict v;
		const void *frame;

		if (i + 1 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 1], void *));
		frame = frame_view(m, view);
		if (unlikely(frame == NULL)) {
			/* pkt_len says more than the chain holds */
			st->oversize++;
			rte_pktmbuf_free(m);
			pkts[i] = NULL;
			continue;
		}
		/* A NIC's RSS hash serves as the flow hash; else one walk over
		 * the headers gives both the class and the hash. */
		if (m->ol_flags & RTE_MBUF_F_RX_RSS_HASH)
			v = vnic_tx_decide(p, frame, m->pkt_len, m->hash.rss, &f, NULL, &cls[i]);
		else
			v = vnic_tx_decide_flow(p, frame, m->pkt_len, &f, NULL, &cls[i]);
		if (unlikely(v != VNIC_TX_SEND)) {
			vnic_txq_count_drop(st, v);
			rte_pktmbuf_free(m);
			pkts[i] = NULL;
			continue;
		}
		eth_len[i] = m->pkt_len;
		orig[i] = NULL;
		if (unlikely(opa16b_vnic_encap(m, &f) != 0)) {
			struct rte_mbuf *c = encap_copy(q, m, &f);

			if (c == NULL) {
				q->encap_fail++;
				st->fifo++;
				rte_pktmbuf_free(m);
				pkts[i] = NULL;
				continue;
			}
			/* pkts[i] keeps the caller's mbuf: if the fabric refuses
			 * the copy, the caller gets back its own mbuf (same
			 * pointer, same references), not the copy.
			 */
			orig[i] = m;
			m = c;
		}
		e = q->nb_engines == 1 ? 0 : f.entropy % q->nb_engines;
		eng_idx[e][nb_eng[e]] = (uint8_t)i;
		eng[e][nb_eng[e]++] = m;
	}
	rte_rcu_qsbr_thread_offline(dev->qsbr, q->rcu_id);

	for (e = 0; e < q->nb_engines; e++) {
		uint16_t fq = q->engine_q[e], sent, j;

		if (nb_eng[e] == 0)
			continue;
		if (dev->tx_shared)
			rte_spinlock_lock(&dev->ftx_lock[fq]);
		sent = rte_eth_tx_burst(q->fabric_port, fq, eng[e], nb_eng[e]);
		if (dev->tx_shared)
			rte_spinlock_unlock(&dev->ftx_lock[fq]);
		for (j = 0; j < sent; j++) {
			i = eng_idx[e][j];
			vnic_txq_count(st, &cls[i], eth_len[i]);
			if (orig[i] != NULL)
				rte_pktmbuf_free(orig[i]);	/* its copy went */
			pkts[i] = NULL;
		}
		for (; j < nb_eng[e]; j++) {
			i = eng_idx[e][j];
			if (orig[i] != NULL)
				rte_pktmbuf_free(eng[e][j]);	/* the copy */
			else
				encap_undo(eng[e][j], eth_len[i]);
		}
	}

	/* What the fabric refused goes back to the caller, in order, at the end. */
	for (i = 0; i < n; i++)
		if (pkts[i] != NULL)
			unsent[nb_unsent++] = pkts[i];
	if (nb_unsent != 0) {
		q->requeued += nb_unsent;
		memcpy(&pkts[n - nb_unsent], unsent, nb_unsent * sizeof(unsent[0]));
	}
	return n - nb_unsent;
}

/*
 * Packets dropped by the policy are consumed (counted by reason); packets
 * the fabric queue cannot take now are returned unchanged, after the
 * consumed ones, in their order, so a caller's retry keeps each flow's order.
 */
uint16_t
opa_vnic_tx_burst(void *queue, struct rte_mbuf **pkts, uint16_t n)
{
	struct opa_vnic_txq *q = queue;
	uint16_t done = 0;

	while (done < n) {
		uint16_t chunk = RTE_MIN((uint16_t)(n - done), (uint16_t)OPA_VNIC_BURST);
		uint16_t k = tx_chunk(q, pkts + done, chunk);

		done += k;
		if (k < chunk)
			break;
	}
	return done;
}
