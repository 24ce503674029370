/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * Bursts. RX: walk the context's RHQ while the RcvSeq matches, check every
 * RHF field against what we gave the device, copy each packet out of its
 * eager buffer, hand both heads back once per burst. TX: a PBC descriptor
 * and one descriptor per segment chunk, one tail write per burst,
 * completions from the written-back head, bulk free.
 */

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "hfi1_ethdev.h"
#include "hfi1_log.h"
#include "opa16b.h"

/* RHQ entries looked at per burst at most (errors included). */
#define HFI1_RX_SCAN_FACTOR 4

static const uint64_t rhf_err_bit[] = {
	[HFI1_RX_ERR_ICRC] = HFI1_RHF_ICRC_ERR,
	[HFI1_RX_ERR_LEN] = HFI1_RHF_LEN_ERR,
	[HFI1_RX_ERR_ECC] = HFI1_RHF_ECC_ERR,
	[HFI1_RX_ERR_TID] = HFI1_RHF_TID_ERR,
	[HFI1_RX_ERR_RCV_TYPE] = HFI1_RHF_RCV_TYPE_ERR_MASK <<
		HFI1_RHF_RCV_TYPE_ERR_SHIFT,
	[HFI1_RX_ERR_DC] = HFI1_RHF_DC_ERR,
	[HFI1_RX_ERR_DC_UNC] = HFI1_RHF_DC_UNC_ERR,
	[HFI1_RX_ERR_K_HDR_LEN] = HFI1_RHF_K_HDR_LEN_ERR,
};

static __rte_noinline void
rx_count_errors(struct hfi1_rx_queue *q, uint64_t rhf)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(rhf_err_bit); i++)
		if (rhf & rhf_err_bit[i])
			q->err[i]++;
}

/* Copy len bytes into a new mbuf (chained if needed), or NULL. */
static struct rte_mbuf *
rx_copy(struct hfi1_rx_queue *q, const uint8_t *hdr, uint32_t hdr_len,
		const uint8_t *data, uint32_t len)
{
	struct rte_mbuf *head, *seg;
	uint32_t total = hdr_len + len;

	if (total > q->buf_len && !q->scatter) {
		q->err[HFI1_RX_TOO_LONG]++;
		return NULL;
	}
	head = rte_pktmbuf_alloc(q->mp);
	if (unlikely(head == NULL))
		goto nombuf;
	seg = head;
	for (;;) {
		uint32_t room = rte_pktmbuf_tailroom(seg);
		uint8_t *dst = rte_pktmbuf_mtod_offset(seg, uint8_t *,
				seg->data_len);
		uint32_t n;

		if (hdr_len > 0) {
			/* The RHQ copy is 16 bytes: it fits any first mbuf. */
			memcpy(dst, hdr, hdr_len);
			seg->data_len += hdr_len;
			dst += hdr_len;
			room -= hdr_len;
			hdr_len = 0;
		}
		n = RTE_MIN(room, len);
		memcpy(dst, data, n);
		seg->data_len += n;
		data += n;
		len -= n;
		if (len == 0)
			break;
		seg->next = rte_pktmbuf_alloc(q->mp);
		if (unlikely(seg->next == NULL)) {
			rte_pktmbuf_free(head);
			goto nombuf;
		}
		seg = seg->next;
		head->nb_segs++;
	}
	head->pkt_len = total;
	head->port = q->port_id;
	return head;
nombuf:
	q->err[HFI1_RX_NOMBUF]++;
	return NULL;
}

/*
 * Run-time detection of the bypass eager layout (facts section 4). With the
 * whole packet in the eager buffer, its first 16 bytes always equal the RHQ
 * copy; with the split layout they are the packet's bytes 16..31 and equal
 * only if a sender crafted them so. So: full until a packet shows a
 * difference, then split for good. Checked on every packet until split is
 * known: a crafted first packet cannot fool the port for longer than the
 * sender keeps crafting.
 */
static __rte_noinline enum hfi1_egr_layout
rx_layout_learn(struct hfi1_rx_queue *q, const uint8_t *hdr,
		const uint8_t *egr)
{
	struct hfi1_adapter *ad = q->ad;
	enum hfi1_egr_layout seen = hfi1_egr_layout_detect(hdr, egr);

	if (seen != ad->layout) {
		if (ad->layout == HFI1_EGR_LAYOUT_FULL)
			HFI1_LOG(WARNING, "port %u: a packet's eager buffer does not start with its header: the layout is split after all",
					q->port_id);
		else
			HFI1_LOG(INFO, "port %u: bypass eager buffers hold the %s",
					q->port_id, seen == HFI1_EGR_LAYOUT_FULL ?
					"whole packet" :
					"packet after its first 16 bytes");
		ad->layout = seen;
	}
	return seen;
}

static struct rte_mbuf *
rx_one(struct hfi1_rx_queue *q, uint64_t rhf, const uint8_t *ent,
		uint32_t *egr_index)
{
	struct hfi1_rcv_ctxt *c = &q->rc;
	struct hfi1_adapter *ad = q->ad;
	uint32_t len = hfi1_rhf_pkt_bytes(rhf);
	uint32_t idx = hfi1_rhf_egr_index(rhf);
	uint32_t off = hfi1_rhf_egr_offset(rhf);
	uint32_t hoff = hfi1_rhf_hdrq_offset(rhf);
	uint32_t data_len, skip;
	const uint8_t *hdr, *egr;
	enum hfi1_egr_layout layout;

	/* Every index the device gives is checked before it is used. */
	if (unlikely(idx >= c->egr_cnt)) {
		q->err[HFI1_RX_BAD_EGR_INDEX]++;
		return NULL;
	}
	if (rhf & HFI1_RHF_USE_EGR_BFR)
		*egr_index = idx;
	if (unlikely(rhf & HFI1_RHF_ERR_MASK)) {
		rx_count_errors(q, rhf);
		return NULL;
	}
	if (unlikely(hfi1_rhf_rcv_type(rhf) != HFI1_RHF_RCV_TYPE_BYPASS ||
		     !(rhf & HFI1_RHF_USE_EGR_BFR))) {
		q->err[HFI1_RX_BAD_TYPE]++;
		return NULL;
	}
	if (unlikely(len < HFI1_MIN_PKT_LEN)) {
		q->err[HFI1_RX_RUNT]++;
		return NULL;
	}
	if (unlikely(hoff + HFI1_BYPASS_HDR_LEN > (c->ent_dws - 2) * 4)) {
		q->err[HFI1_RX_BAD_HDRQ_OFFSET]++;
		return NULL;
	}
	hdr = ent + hoff;
	egr = c->egr + (size_t)idx * c->egr_size + off;
	layout = ad->layout;
	if (ad->layout_auto && layout != HFI1_EGR_LAYOUT_SPLIT) {
		if (off + HFI1_BYPASS_HDR_LEN > c->egr_size) {
			q->err[HFI1_RX_BAD_EGR_OFFSET]++;
			return NULL;
		}
		layout = rx_layout_learn(q, hdr, egr);
	}
	skip = layout == HFI1_EGR_LAYOUT_FULL ? 0 : HFI1_BYPASS_HDR_LEN;
	data_len = len - skip;
	if (unlikely(off + data_len > c->egr_size)) {
		q->err[HFI1_RX_BAD_EGR_OFFSET]++;
		return NULL;
	}
	return rx_copy(q, hdr, skip, egr, data_len);
}

uint16_t
hfi1_rx_burst(void *rxq, struct rte_mbuf **pkts, uint16_t nb)
{
	struct hfi1_rx_queue *q = rxq;
	struct hfi1_rcv_ctxt *c = &q->rc;
	uint32_t n = 0, seen = 0, egr_index = UINT32_MAX;
	uint32_t scan_max = (uint32_t)nb * HFI1_RX_SCAN_FACTOR;
	uint64_t bytes = 0;

	if (unlikely(!q->started))
		return 0;
	if (q->ad->poll.model != NULL) {
		/* A device runs by itself; the model runs when polled. RX polls
		 * run the engines too, so sends complete even when the
		 * application has nothing more to send. */
		uint16_t e, nb_eng = q->ad->dev->data->nb_tx_queues;

		for (e = 0; e < nb_eng; e++)
			hfi1_model_sdma_step(q->ad->poll.model, e);
		hfi1_model_rcv_step(q->ad->poll.model);
	}
	while (n < nb && seen < scan_max) {
		uint64_t rhf = hfi1_rhf_get(c, c->head);
		const uint8_t *ent;
		struct rte_mbuf *m;

		if (hfi1_rhf_seq(rhf) != c->seq)
			break;
		ent = c->rhq + (size_t)c->head * c->ent_dws * 4;
		hfi1_rhf_clear(c, c->head);
		if (++c->head == c->rhq_cnt)
			c->head = 0;
		c->seq = hfi1_seq_next(c->seq);
		seen++;
		m = rx_one(q, rhf, ent, &egr_index);
		if (m == NULL)
			continue;
		bytes += m->pkt_len;
		pkts[n++] = m;
	}
	if (seen > 0) {
		if (egr_index != UINT32_MAX)
			q->egr_head = egr_index;
		hfi1_rcv_ctxt_update_heads(c, q->egr_head);
	}
	q->pkts += n;
	q->bytes += bytes;
	return n;
}

/* ---- TX ---- */

/* Free the packets of descriptors up to @upto. @return packets freed. */
static __rte_always_inline unsigned int
tx_free_upto(struct hfi1_tx_queue *q, uint32_t upto)
{
	struct hfi1_sdma_ring *r = &q->ring;
	struct rte_mbuf *done[64];
	unsigned int nf = 0, total = 0;

	while (r->head != upto) {
		struct rte_mbuf **slot = &q->sw_ring[r->head & r->mask];

		if (*slot != NULL) {
			done[nf++] = *slot;
			*slot = NULL;
			if (nf == RTE_DIM(done)) {
				rte_pktmbuf_free_bulk(done, nf);
				total += nf;
				nf = 0;
			}
		}
		r->head++;
	}
	if (nf > 0)
		rte_pktmbuf_free_bulk(done, nf);
	return total + nf;
}

unsigned int
hfi1_tx_reclaim(struct hfi1_tx_queue *q)
{
	uint64_t head = hfi1_sdma_hw_head(&q->ring);

	if (unlikely(head == UINT64_MAX)) {
		q->err[HFI1_TX_BAD_HEAD]++;
		return 0;
	}
	return tx_free_upto(q, (uint32_t)head);
}

/*
 * Stepped device: it moves at most a burst per step, so step until it has
 * taken every descriptor or stops moving (wire full, halted).
 */
static void
tx_step(struct hfi1_tx_queue *q)
{
	struct hfi1_sdma_ring *r = &q->ring;
	struct hfi1_hw *hw = r->hw;
	uint32_t reg = HFI1_SDMA(HFI1_SDMA_HEAD, r->engine);
	uint64_t head = hfi1_csr_read(hw, reg), prev;

	while (head != (r->tail & r->mask)) {
		prev = head;
		hfi1_model_sdma_step(q->ad->poll.model, r->engine);
		head = hfi1_csr_read(hw, reg);
		if (head == prev)
			break;
	}
}

/*
 * rte_eth_tx_done_cleanup: free what the engine has sent. A stacked PMD
 * (net_opa_vnic) stopping one of its ports calls it so that the
 * application's mbufs come back while the fabric port goes on running.
 * Every completed packet is freed, whatever free_cnt asks (as other PMDs
 * that free in whole batches); same threading rules as tx_burst.
 */
int
hfi1_tx_done_cleanup(void *txq, uint32_t free_cnt)
{
	struct hfi1_tx_queue *q = txq;

	RTE_SET_USED(free_cnt);
	if (q == NULL || !q->started)
		return 0;
	if (q->ad->poll.model != NULL)
		tx_step(q);
	return (int)hfi1_tx_reclaim(q);
}

/*
 * A full ring that does not move: has the engine stopped on an error? At
 * most every HFI1_HALT_CHECK_US while the ring stays full: the status is a
 * CSR read (a PCIe round trip on silicon, a trapped fault of microseconds on
 * vpci's virtual HFI), and an application that retries a full ring at once
 * would otherwise spend its lcore reading it (seen through vfio-pci: 52
 * trapped reads per packet sent, and the rate fell 1000-fold).
 */
#define HFI1_HALT_CHECK_US 100

static __rte_noinline void
tx_check_halt(struct hfi1_tx_queue *q)
{
	uint64_t err = 0, now = rte_get_timer_cycles();

	if (now - q->halt_checked < rte_get_timer_hz() / (1000000 / HFI1_HALT_CHECK_US))
		return;
	q->halt_checked = now;
	if (!hfi1_sdma_halted(&q->ring, &err))
		return;
	q->err[HFI1_TX_SDMA_HALTS]++;
	HFI1_LOG(ERR, "port %u txq %u: SDMA engine %u halted (error 0x%" PRIx64
			"); its packets are dropped and the engine restarted",
			q->port_id, q->queue_id, q->ring.engine, err);
	tx_free_upto(q, q->ring.tail);
	hfi1_sdma_start(&q->ring);
}

/* 0 if m can be sent, else the reason to drop it. */
static __rte_always_inline int
tx_check(const struct hfi1_tx_queue *q, const struct rte_mbuf *m,
		const uint8_t *hdr)
{
	uint32_t len = m->pkt_len;

	if (unlikely(len < HFI1_MIN_PKT_LEN || len % 8 != 0 ||
		     m->data_len < OPA16B_LRH_LEN ||
		     (uint32_t)opa16b_get_len(hdr) * 8 != len))
		return HFI1_TX_BAD_LENGTH + 1;
	if (unlikely(opa16b_get_l2(hdr) != OPA16B_L2_16B))
		return HFI1_TX_NOT_16B + 1;
	if (unlikely(len > q->ad->dev->data->mtu + (uint32_t)HFI1_MAX_HDR_BYTES ||
		     len / 4 + 2 > HFI1_PBC_LEN_DWS_MASK))
		return HFI1_TX_TOO_LONG + 1;
	return 0;
}

static __rte_always_inline uint32_t
tx_descs(const struct rte_mbuf *m)
{
	uint32_t n = 1;	/* the PBC */

	/* An empty segment still takes one (zero-length) descriptor. */
	for (; m != NULL; m = m->next)
		n += RTE_MAX(1u, (m->data_len + HFI1_SDMA_DESC0_LEN_MAX - 1) /
				HFI1_SDMA_DESC0_LEN_MAX);
	return n;
}

uint16_t
hfi1_tx_burst(void *txq, struct rte_mbuf **pkts, uint16_t nb)
{
	struct hfi1_tx_queue *q = txq;
	struct hfi1_sdma_ring *r = &q->ring;
	uint32_t start = r->tail;
	uint64_t bytes = 0;
	uint16_t i, queued = 0;

	if (unlikely(!q->started))
		return 0;
	hfi1_tx_reclaim(q);
	for (i = 0; i < nb; i++) {
		struct rte_mbuf *m = pkts[i], *seg;
		const uint8_t *hdr = rte_pktmbuf_mtod(m, const uint8_t *);
		uint32_t pos = r->tail, slot, ndesc;
		int bad = tx_check(q, m, hdr);

		if (unlikely(bad)) {
			q->err[bad - 1]++;
			rte_pktmbuf_free(m);
			continue;
		}
		ndesc = tx_descs(m);
		if (unlikely(ndesc > HFI1_SDMA_MAX_DESC_PER_PKT)) {
			q->err[HFI1_TX_TOO_MANY_SEGS]++;
			rte_pktmbuf_free(m);
			continue;
		}
		if (unlikely(ndesc > hfi1_sdma_free_descs(r))) {
			if (r->tail == start)
				tx_check_halt(q);
			break;
		}
		slot = pos & r->mask;
		r->pbc[slot] = rte_cpu_to_le_64(hfi1_pbc_bypass(m->pkt_len,
				q->ad->sc_to_vl[opa16b_get_sc(hdr)]));
		hfi1_sdma_desc_write(r, pos, r->pbc_iova + slot * 8ull,
				HFI1_PBC_LEN, HFI1_SDMA_DESC0_FIRST, 0);
		pos++;
		for (seg = m; seg != NULL; seg = seg->next) {
			uint32_t left = seg->data_len;
			rte_iova_t iova = rte_mbuf_data_iova(seg);

			do {
				uint32_t n = RTE_MIN(left,
						(uint32_t)HFI1_SDMA_DESC0_LEN_MAX);
				bool last = n == left && seg->next == NULL;

				hfi1_sdma_desc_write(r, pos, iova, n,
						last ? HFI1_SDMA_DESC0_LAST : 0,
						last ? HFI1_SDMA_DESC1_HEAD_TO_HOST : 0);
				q->sw_ring[pos & r->mask] = last ? m : NULL;
				iova += n;
				left -= n;
				pos++;
			} while (left > 0);
		}
		r->tail = pos;
		bytes += m->pkt_len;
		queued++;
	}
	if (r->tail != start)
		hfi1_sdma_kick(r);
	if (q->ad->poll.model != NULL)
		tx_step(q);
	q->pkts += queued;
	q->bytes += bytes;
	return i;
}

void
hfi1_tx_queue_flush(struct hfi1_tx_queue *q)
{
	uint64_t deadline = rte_get_timer_cycles() + rte_get_timer_hz() / 10;

	/* Let the engine finish what it has (100 ms at most), then stop it
	 * and take back whatever it did not complete. */
	while (q->ring.head != q->ring.tail &&
	       rte_get_timer_cycles() < deadline) {
		if (q->ad->poll.model != NULL)
			hfi1_model_sdma_step(q->ad->poll.model, q->ring.engine);
		hfi1_tx_reclaim(q);
		if (q->ring.head != q->ring.tail)
			rte_delay_us_sleep(100);
	}
	hfi1_sdma_halt(&q->ring, 100);
	tx_free_upto(q, q->ring.tail);
}
