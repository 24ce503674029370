/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * The model's datapath: SDMA engines read descriptors from host memory and
 * put packets on the wire; the receive side takes packets off the wire,
 * steers them with the RSM rules and writes eager data, RHQ entries and
 * RHFs into host memory.
 */

#include <string.h>

#include <rte_eal.h>
#include <rte_memory.h>

#include "hfi1_model_priv.h"
#include "omni_mbuf.h"
#include "opa16b.h"

/*
 * Host memory at iova for len bytes, or NULL if it is not DPDK memory (or,
 * with a DMA hook, not in the IOMMU's maps: vpci looks them up every time).
 */
static uint8_t *
model_va(const struct hfi1_model *m, struct model_xlate *xl, rte_iova_t iova, size_t len,
		bool write)
{
	const struct rte_memseg *ms;
	unsigned int way;
	void *va;

	if (m->dma_fn != NULL)
		return m->dma_fn(m->dma_ctx, iova, len, write);
	if (rte_eal_iova_mode() == RTE_IOVA_VA) {
		/* IOVA is VA: only check it is DPDK memory, page by page. */
		way = (iova >> 12) % MODEL_XLATE_WAYS;
		if (iova >= xl->e[way].iova &&
		    iova - xl->e[way].iova + len <= xl->e[way].len)
			return (uint8_t *)(uintptr_t)iova;
		va = (void *)(uintptr_t)iova;
	} else {
		/* Physical addresses: memsegs are hugepages (2 MiB or more). */
		way = (iova >> 21) % MODEL_XLATE_WAYS;
		if (iova >= xl->e[way].iova &&
		    iova - xl->e[way].iova + len <= xl->e[way].len)
			return xl->e[way].va + (iova - xl->e[way].iova);
		va = rte_mem_iova2virt(iova);
		if (va == NULL)
			return NULL;
	}
	ms = rte_mem_virt2memseg(va, NULL);
	if (ms == NULL)
		return NULL;
	if (iova >= ms->iova && iova - ms->iova + len <= ms->len) {
		way = rte_eal_iova_mode() == RTE_IOVA_VA ?
			(iova >> 12) % MODEL_XLATE_WAYS :
			(iova >> 21) % MODEL_XLATE_WAYS;
		xl->e[way].iova = ms->iova;
		xl->e[way].len = ms->len;
		xl->e[way].va = ms->addr;
		return va;
	}
	/* Spans memsegs (a buffer across a page boundary): fine if the last
	 * byte is DPDK memory at the same distance in both address spaces. */
	if (rte_eal_iova_mode() == RTE_IOVA_VA)
		return rte_mem_virt2memseg(RTE_PTR_ADD(va, len - 1), NULL) ==
			NULL ? NULL : va;
	return rte_mem_iova2virt(iova + len - 1) == RTE_PTR_ADD(va, len - 1) ?
		va : NULL;
}

/* ---- SDMA ---- */

static void
engine_halt(struct hfi1_model *m, struct model_engine *e, uint64_t err)
{
	e->halted = true;
	e->err |= err;
	m->st.sdma_halts++;
	HFI1_OSAL_LOG(DEBUG, "%s: SDMA engine halted, error 0x%" PRIx64, m->name,
			err);
}

/* Copy len bytes from host memory into the chain ending at *last. */
static int
chain_append(struct hfi1_model *m, struct rte_mbuf *head,
		struct rte_mbuf **last, const uint8_t *src, uint32_t len)
{
	while (len > 0) {
		struct rte_mbuf *seg = *last;
		uint32_t room = rte_pktmbuf_tailroom(seg);
		uint32_t n;

		if (room == 0) {
			seg = rte_pktmbuf_alloc(m->pool);
			if (seg == NULL)
				return -1;
			(*last)->next = seg;
			*last = seg;
			head->nb_segs++;
			continue;
		}
		n = RTE_MIN(room, len);
		memcpy(rte_pktmbuf_mtod_offset(seg, uint8_t *, seg->data_len),
				src, n);
		seg->data_len += n;
		head->pkt_len += n;
		src += n;
		len -= n;
	}
	return 0;
}

/*
 * Read one packet's descriptors starting at the engine's head. Returns the
 * number of descriptors it used, 0 if the packet is not whole yet, -1 if
 * the engine halted. *pkt gets the packet without PBC (NULL if dropped).
 */
static int
engine_gather(struct hfi1_model *m, struct model_engine *e, uint32_t idx,
		uint32_t pos, uint32_t tail, struct rte_mbuf **pkt, bool *wb)
{
	uint64_t pbc = 0, total = 0;
	uint32_t n = 0;
	struct rte_mbuf *head = NULL, *last = NULL;
	uint32_t skip = HFI1_PBC_LEN;

	*pkt = NULL;
	for (;;) {
		const uint64_t *d;
		uint64_t d0, d1, len, gen;
		const uint8_t *src;

		if (idx == tail) {
			rte_pktmbuf_free(head);
			return 0;
		}
		d = (const uint64_t *)model_va(m, &e->xl, e->base + 16ull * idx, 16, false);
		if (d == NULL)
			goto mem_err;
		d0 = rte_le_to_cpu_64(d[0]);
		d1 = rte_le_to_cpu_64(d[1]);
		gen = ((pos + n) / e->cnt) & HFI1_SDMA_DESC1_GEN_MASK;
		if (((d1 >> HFI1_SDMA_DESC1_GEN_SHIFT) &
		     HFI1_SDMA_DESC1_GEN_MASK) != gen) {
			rte_pktmbuf_free(head);
			engine_halt(m, e, HFI1_SDMA_ERR_GEN_MISMATCH);
			return -1;
		}
		if ((n == 0) != ((d0 & HFI1_SDMA_DESC0_FIRST) != 0) ||
		    n >= HFI1_SDMA_MAX_DESC_PER_PKT) {
			rte_pktmbuf_free(head);
			engine_halt(m, e, HFI1_SDMA_ERR_FIRST_DESC);
			return -1;
		}
		len = (d0 >> HFI1_SDMA_DESC0_LEN_SHIFT) & HFI1_SDMA_DESC0_LEN_MAX;
		src = model_va(m, &e->xl, d0 & HFI1_SDMA_DESC0_ADDR_MASK, len, false);
		if (src == NULL && len > 0)
			goto mem_err;
		if (n == 0) {
			head = rte_pktmbuf_alloc(m->pool);
			if (head == NULL)
				return 0;	/* out of wire buffers: retry */
			last = head;
		}
		/* The PBC: the first 8 bytes of the stream. */
		while (skip > 0 && len > 0) {
			pbc |= (uint64_t)*src << (8 * (HFI1_PBC_LEN - skip));
			src++;
			len--;
			skip--;
			total++;
		}
		if (chain_append(m, head, &last, src, len) != 0) {
			rte_pktmbuf_free(head);
			return 0;
		}
		total += len;
		n++;
		idx = (idx + 1) % e->cnt;
		if (d1 & HFI1_SDMA_DESC1_HEAD_TO_HOST)
			*wb = true;
		if (d0 & HFI1_SDMA_DESC0_LAST)
			break;
	}
	if (skip > 0 || (pbc & HFI1_PBC_LEN_DWS_MASK) * 4 != total) {
		rte_pktmbuf_free(head);
		engine_halt(m, e, HFI1_SDMA_ERR_LENGTH_MISMATCH);
		return -1;
	}
	if (!(pbc & HFI1_PBC_PACKET_BYPASS)) {
		m->st.sdma_not_bypass++;
		rte_pktmbuf_free(head);
		return n;
	}
	*pkt = head;
	return n;
mem_err:
	rte_pktmbuf_free(head);
	engine_halt(m, e, HFI1_SDMA_ERR_MEM_READ);
	return -1;
}

static void
engine_write_back(struct hfi1_model *m, struct model_engine *e)
{
	uint64_t *wb;
	uint64_t head = e->head;

	if (e->wb_delay > 0) {
		e->wb_delay--;
		return;
	}
	if (model_fault_take(m, HFI1_FAULT_DELAY_HEAD)) {
		e->wb_delay = (uint32_t)m->fault_arg[HFI1_FAULT_DELAY_HEAD];
		return;
	}
	if (model_fault_take(m, HFI1_FAULT_BAD_HEAD))
		head = e->cnt + 7;	/* a broken device */
	wb = (uint64_t *)model_va(m, &e->xl, e->head_addr, sizeof(*wb), true);
	if (wb != NULL)
		__atomic_store_n(wb, rte_cpu_to_le_64(head), __ATOMIC_RELEASE);
}

static void sdma_step_locked(struct hfi1_model *m, struct model_engine *e);

void
model_sdma_step(struct hfi1_model *m, unsigned int ei)
{
	struct model_engine *e = &m->eng[ei];

	/* One engine, one processor: whoever polls first runs it. */
	if (!rte_spinlock_trylock(&e->lock))
		return;
	sdma_step_locked(m, e);
	rte_spinlock_unlock(&e->lock);
}

static void
sdma_step_locked(struct hfi1_model *m, struct model_engine *e)
{
	struct rte_mbuf *pkts[MODEL_BURST], *tx[MODEL_BURST];
	uint32_t used[MODEL_BURST], len[MODEL_BURST];
	bool wb = false, wb_flag[MODEL_BURST];
	uint32_t tail, idx, n = 0, nt = 0, done = 0, i;
	bool link = m->wire_port >= 0 &&
		(m->send_ctrl & HFI1_SEND_CTRL_SEND_ENABLE);
	uint16_t ok = 0;

	if (!(e->ctrl & HFI1_SDMA_CTRL_ENABLE) || e->halted || e->cnt == 0)
		return;
	tail = __atomic_load_n(&e->tail, __ATOMIC_ACQUIRE);
	if (tail >= e->cnt) {
		engine_halt(m, e, HFI1_SDMA_ERR_TAIL_OOB);
		return;
	}
	/* Gather a burst without moving the head: the wire may refuse some. */
	for (idx = e->head; n < MODEL_BURST && idx != tail; n++) {
		int r;

		wb_flag[n] = false;
		r = engine_gather(m, e, idx, e->pos + (idx - e->head + e->cnt) %
				e->cnt, tail, &pkts[n], &wb_flag[n]);
		if (r <= 0)
			break;	/* halted, or the packet is not whole yet */
		used[n] = r;
		idx = (idx + r) % e->cnt;
		if (pkts[n] == NULL)
			continue;	/* dropped by the engine */
		len[n] = pkts[n]->pkt_len;	/* the wire owns it once sent */
		if (!link) {
			m->st.no_wire++;
			rte_pktmbuf_free(pkts[n]);
			pkts[n] = NULL;
			continue;
		}
		tx[nt++] = pkts[n];
	}
	if (nt > 0) {
		/* a wire a re-dial could not start refuses, as a link down */
		if (model_guard_enter(m)) {
			rte_spinlock_lock(&m->wire_tx_lock);
			if (__atomic_load_n(&m->wire_started, __ATOMIC_ACQUIRE))
				ok = rte_eth_tx_burst(m->wire_port, 0, tx, nt);
			rte_spinlock_unlock(&m->wire_tx_lock);
			model_guard_leave(m);
		}
	}
	/* Consume descriptors up to the first packet the link refused; that
	 * one and the rest stay queued: the fabric is lossless. */
	for (i = 0; i < n; i++) {
		if (pkts[i] != NULL) {
			if (done == ok)
				break;
			done++;
			m->st.sdma_pkts++;
			m->st.sdma_bytes += len[i];
			m->st.wire_tx++;
		}
		e->head = (e->head + used[i]) % e->cnt;
		e->pos += used[i];
		wb |= wb_flag[i];
	}
	if (ok < nt) {
		m->st.wire_busy += nt - ok;
		rte_pktmbuf_free_bulk(tx + ok, nt - ok);
	}
	if (wb || e->halted)
		engine_write_back(m, e);
}

/* ---- Receive ---- */

/* width bits at bit offset off of the packet as little-endian qwords. */
static uint32_t
pkt_bits(const uint8_t *hdr, uint32_t off, uint32_t width)
{
	uint32_t shift = off % 8;
	uint16_t v;

	memcpy(&v, hdr + off / 8, sizeof(v));	/* one load; x86 is little-endian */
	v = rte_le_to_cpu_16(v);

	return (v >> shift) & ((1u << width) - 1);
}

#define RSM_HDR_BYTES 40	/* covers every offset a rule can name */

void
model_rsm_decode(struct hfi1_model *m)
{
	unsigned int r, n = 0;

	if (m->rcv_ctrl & HFI1_RCV_CTRL_RSM_ENABLE) {
		for (r = 0; r < HFI1_RSM_RULES; r++) {
			uint64_t cfg = m->rsm_cfg[r], sel = m->rsm_select[r];
			uint64_t match = m->rsm_match[r];
			struct model_rsm_rule *d = &m->rsm_rule[n];

			if (!(cfg & HFI1_RCV_RSM_CFG_ENABLE) ||
			    ((cfg >> HFI1_RCV_RSM_CFG_PKT_TYPE_SHIFT) & 0x7) !=
			    HFI1_RHF_RCV_TYPE_BYPASS)
				continue;
			d->one_ctxt = -1;	/* the index path until the map is decoded */
			d->field1 = (uint8_t)(sel >> HFI1_RCV_RSM_SELECT_FIELD1_SHIFT);
			d->field2 = (uint8_t)(sel >> HFI1_RCV_RSM_SELECT_FIELD2_SHIFT);
			d->mask1 = (uint8_t)match;
			d->value1 = (uint8_t)(match >> 8);
			d->mask2 = (uint8_t)(match >> 16);
			d->value2 = (uint8_t)(match >> 24);
			d->index1 = (uint8_t)(sel >> HFI1_RCV_RSM_SELECT_INDEX1_OFF_SHIFT);
			d->width1 = (sel >> HFI1_RCV_RSM_SELECT_INDEX1_WIDTH_SHIFT) & 0xF;
			d->index2 = (uint8_t)(sel >> HFI1_RCV_RSM_SELECT_INDEX2_OFF_SHIFT);
			d->width2 = (sel >> HFI1_RCV_RSM_SELECT_INDEX2_WIDTH_SHIFT) & 0xF;
			d->offset = (uint8_t)(cfg >> HFI1_RCV_RSM_CFG_OFFSET_SHIFT);
			n++;
		}
	}
	m->rsm_nb_rules = n;
	for (r = 0; r < HFI1_RSM_MAP_ENTRIES; r++)
		m->rsm_map_byte[r] = (uint8_t)(m->rsm_map[r / 8] >> (8 * (r % 8)));
	/*
	 * A rule whose reachable entries (offset + an index below
	 * 2^max(width)) all name one context needs no index: the model then
	 * skips the packet-dependent map lookup hardware does for free.
	 */
	for (r = 0; r < n; r++) {
		struct model_rsm_rule *d = &m->rsm_rule[r];
		unsigned int span = 1u << RTE_MAX(d->width1, d->width2);
		uint8_t first = m->rsm_map_byte[d->offset];
		int16_t one = first;
		unsigned int i;

		for (i = 1; i < span && i < HFI1_RSM_MAP_ENTRIES; i++) {
			uint8_t ctxt = m->rsm_map_byte[(d->offset + i) & (HFI1_RSM_MAP_ENTRIES - 1)];

			if (ctxt != first) {
				one = -1;
				break;
			}
		}
		d->one_ctxt = one;	/* one store: a receive step sees old or new */
	}
}

static int
rsm_steer(const struct hfi1_model *m, const uint8_t *hdr)
{
	unsigned int r;

	for (r = 0; r < m->rsm_nb_rules; r++) {
		const struct model_rsm_rule *d = &m->rsm_rule[r];
		uint32_t entry;

		if ((pkt_bits(hdr, d->field1, 8) & d->mask1) != d->value1 ||
		    (pkt_bits(hdr, d->field2, 8) & d->mask2) != d->value2)
			continue;
		if (d->one_ctxt >= 0)
			return d->one_ctxt;
		/* ASSUMPTION (facts section 4): the two indexes are XORed. */
		entry = d->offset +
			((d->width1 ? pkt_bits(hdr, d->index1, d->width1) : 0) ^
			 (d->width2 ? pkt_bits(hdr, d->index2, d->width2) : 0));
		return m->rsm_map_byte[entry & (HFI1_RSM_MAP_ENTRIES - 1)];
	}
	return -1;
}

static void
rcv_deliver(struct hfi1_model *m, struct rte_mbuf *pkt)
{
	uint8_t hdr[RSM_HDR_BYTES] = { 0 };
	uint32_t len = pkt->pkt_len, data_len, egr_size, egr_cnt, egr_base;
	uint32_t ent_dws, rhq_cnt, head, off, cur;
	uint64_t err = 0, entry, rhf;
	struct model_ctxt *c;
	uint8_t *rhq, *egr;
	const uint8_t *p;
	int ctxt;

	/*
	 * Read the header where it lies when the first segment holds all the
	 * bytes a rule can name; copy it (zero-padded) only otherwise. A copy
	 * read back at once at unaligned offsets stalls store forwarding, a
	 * cost per steered packet that hardware does not have.
	 */
	if (likely(pkt->data_len >= sizeof(hdr))) {
		p = rte_pktmbuf_mtod(pkt, const uint8_t *);
	} else {
		p = rte_pktmbuf_read(pkt, 0, RTE_MIN(len, sizeof(hdr)), hdr);
		/* rte_pktmbuf_read copies only when the bytes span segments. */
		if (p != NULL && p != hdr)
			memcpy(hdr, p, RTE_MIN(len, sizeof(hdr)));
		p = hdr;
	}
	if (model_fault_take(m, HFI1_FAULT_DROP)) {
		m->st.rcv_dropped_fault++;
		return;
	}
	if (!(m->rcv_ctrl & HFI1_RCV_CTRL_PORT_ENABLE) ||
	    !(m->rcv_ctrl & HFI1_RCV_CTRL_BYPASS_ENABLE)) {
		m->st.rcv_port_disabled++;
		return;
	}
	if (len < OPA16B_LRH_LEN || opa16b_get_l2(p) != OPA16B_L2_16B) {
		m->st.rcv_not_bypass++;
		return;
	}
	ctxt = rsm_steer(m, p);
	if (ctxt < 0)
		ctxt = m->rcv_bypass & HFI1_RCV_BYPASS_CONTEXT_MASK;
	c = ctxt < m->conf.nb_ctxts ? &m->ctx[ctxt] : NULL;
	if (c == NULL || !(__atomic_load_n(&c->ctrl, __ATOMIC_ACQUIRE) &
			HFI1_RCV_CTXT_CTRL_ENABLE)) {
		m->st.rcv_ctxt_disabled++;
		return;
	}
	/* The length check hardware does: Length field against the bytes,
	 * and the port MTU plus the largest header. */
	if (len % 8 != 0 || (uint32_t)opa16b_get_len(p) * 8 != len ||
	    len > (uint32_t)m->conf.mtu + 124u)
		err |= HFI1_RHF_LEN_ERR;
	if (model_fault_take(m, HFI1_FAULT_RHF_ERR))
		err |= m->fault_arg[HFI1_FAULT_RHF_ERR] & HFI1_RHF_ERR_MASK;

	ent_dws = (c->ent_size & 7) == 1 ? 2 : (c->ent_size & 7) == 2 ? 16 : 32;
	rhq_cnt = (uint32_t)(c->hdr_cnt & 0x1FF) * HFI1_RCV_HDR_CNT_UNIT;
	head = (uint32_t)(__atomic_load_n(&c->hdr_head, __ATOMIC_ACQUIRE) &
			HFI1_RCV_HDR_HEAD_MASK) / ent_dws;
	if (rhq_cnt == 0 || (c->tail + 1) % rhq_cnt == head % rhq_cnt ||
	    model_fault_take(m, HFI1_FAULT_RHQ_FULL)) {
		c->ovfl_cnt++;
		m->st.rcv_rhq_full++;
		return;
	}
	/* Eager placement: pack at 64-byte offsets, move on when full. */
	egr_size = hfi1_egr_size_dec((c->ctrl >> HFI1_RCV_CTXT_CTRL_EGR_SIZE_SHIFT)
			& 0x7);
	egr_cnt = (uint32_t)((c->egr_ctrl >> HFI1_RCV_EGR_CTRL_CNT_SHIFT) & 0x1FF) *
		HFI1_RCV_EGR_UNIT;
	egr_base = (uint32_t)(c->egr_ctrl & 0x1FFF) * HFI1_RCV_EGR_UNIT;
	data_len = m->conf.layout == HFI1_EGR_LAYOUT_SPLIT ?
		len - HFI1_BYPASS_HDR_LEN : len;
	if (egr_cnt == 0 || data_len > egr_size ||
	    egr_base + egr_cnt > MODEL_RCV_ARRAY_CNT) {
		m->st.rcv_dma_error++;
		return;
	}
	cur = c->egr_cur;
	off = RTE_ALIGN_CEIL(c->egr_off, 64);
	if (!c->egr_started) {
		off = 0;
	} else if (off + data_len > egr_size) {
		uint32_t next = (cur + 1) % egr_cnt;

		if (next == (uint32_t)(__atomic_load_n(&c->egr_head,
				__ATOMIC_ACQUIRE) % egr_cnt)) {
			m->st.rcv_egr_full++;
			return;
		}
		cur = next;
		off = 0;
	}
	if (model_fault_take(m, HFI1_FAULT_EGR_FULL)) {
		m->st.rcv_egr_full++;
		return;
	}
	entry = m->rcv_array[egr_base + cur];
	if (!(entry & HFI1_RCV_ARRAY_WRITE_ENABLE) ||
	    hfi1_egr_size_dec((entry >> HFI1_RCV_ARRAY_SIZE_SHIFT) & 0xF) !=
	    egr_size) {
		m->st.rcv_dma_error++;
		return;
	}
	egr = model_va(m, &m->rx_xl, (entry & HFI1_RCV_ARRAY_ADDR_MASK) <<
			HFI1_RCV_ARRAY_ADDR_SHIFT, egr_size, true);
	rhq = model_va(m, &m->rx_xl, c->hdr_addr + (uint64_t)c->tail * ent_dws * 4,
			ent_dws * 4, true);
	if (egr == NULL || rhq == NULL || ent_dws < MODEL_HDRQ_OFFSET_DWS +
	    HFI1_BYPASS_HDR_DWS + 2) {
		m->st.rcv_dma_error++;
		return;
	}
	omni_mbuf_copy_out(pkt, len - data_len, egr + off, data_len);
	memcpy(rhq + MODEL_HDRQ_OFFSET_DWS * 4, p, HFI1_BYPASS_HDR_LEN);
	c->egr_cur = cur;
	c->egr_off = off + data_len;
	c->egr_started = true;
	if (model_fault_take(m, HFI1_FAULT_BAD_EGR_INDEX))
		cur = egr_cnt + 5;
	rhf = (uint64_t)(len / 4) |
		(uint64_t)HFI1_RHF_RCV_TYPE_BYPASS << HFI1_RHF_RCV_TYPE_SHIFT |
		HFI1_RHF_USE_EGR_BFR |
		(uint64_t)(cur & HFI1_RHF_EGR_INDEX_MASK) << HFI1_RHF_EGR_INDEX_SHIFT |
		(uint64_t)c->seq << HFI1_RHF_SEQ_SHIFT |
		(uint64_t)(off / 64) << HFI1_RHF_EGR_OFFSET_SHIFT |
		(uint64_t)MODEL_HDRQ_OFFSET_DWS << HFI1_RHF_HDRQ_OFFSET_SHIFT |
		err;
	/* The RHF last: it tells the driver the entry is whole. */
	__atomic_store_n((uint64_t *)(rhq + (ent_dws - 2) * 4),
			rte_cpu_to_le_64(rhf), __ATOMIC_RELEASE);
	c->tail = (c->tail + 1) % rhq_cnt;
	c->seq = hfi1_seq_next(c->seq);
	m->st.rcv_pkts++;
}

void
model_rcv_step(struct hfi1_model *m)
{
	struct rte_mbuf *pkts[MODEL_BURST];
	uint16_t n = 0, i;

	/* the guard first: waiting for it, a poll holds no lock a re-dial takes */
	if (m->wire_port < 0 || !model_guard_enter(m))
		return;
	if (!rte_spinlock_trylock(&m->wire_rx_lock)) {
		model_guard_leave(m);
		return;
	}
	if (__atomic_load_n(&m->wire_started, __ATOMIC_ACQUIRE))
		n = rte_eth_rx_burst(m->wire_port, 0, pkts, MODEL_BURST);
	for (i = 0; i < n; i++) {
		/* Steering reads the header first thing: have the next one near. */
		if (i + 1 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 1], void *));
		m->st.wire_rx++;
		rcv_deliver(m, pkts[i]);
	}
	rte_spinlock_unlock(&m->wire_rx_lock);
	model_guard_leave(m);
	rte_pktmbuf_free_bulk(pkts, n);
}
