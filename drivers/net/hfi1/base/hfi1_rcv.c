/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#include <errno.h>

#include "hfi1_hw.h"

/* hfi1's RcvHdrSize for 9B packets; bypass packets use RcvBypass.HdrSize. */
#define HFI1_DEFAULT_RCVHDRSIZE 9
/* Entry size: the bypass header copy (4 DW) and the RHF (2 DW) fit in 16. */
#define HFI1_RHQ_ENT_DWS 16

static uint32_t
egr_entries_per_ctxt(const struct hfi1_hw *hw)
{
	return (hw->rcv_array_cnt / hw->nb_rcv_ctxts) &
		~(HFI1_RCV_EGR_UNIT - 1);
}

int
hfi1_rcv_ctxt_init(struct hfi1_rcv_ctxt *c, struct hfi1_hw *hw,
		unsigned int ctxt, uint32_t rhq_cnt, uint32_t egr_cnt,
		uint32_t egr_size)
{
	size_t rhq_len, egr_len;

	if (ctxt >= hw->nb_rcv_ctxts || rhq_cnt < HFI1_RHQ_MIN ||
	    rhq_cnt > HFI1_RHQ_MAX || rhq_cnt % HFI1_RCV_HDR_CNT_UNIT != 0 ||
	    egr_cnt < HFI1_RCV_EGR_UNIT || egr_cnt % HFI1_RCV_EGR_UNIT != 0 ||
	    egr_cnt > egr_entries_per_ctxt(hw) ||
	    egr_cnt > HFI1_RHF_EGR_INDEX_MASK + 1 ||
	    hfi1_egr_size_dec(hfi1_egr_size_enc(egr_size)) != egr_size)
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	rhq_len = HFI1_OSAL_ALIGN_CEIL((size_t)rhq_cnt * HFI1_RHQ_ENT_DWS * 4, 4096);
	egr_len = (size_t)egr_cnt * egr_size;
	if (hfi1_dma_alloc(hw, &c->mem, "rhq", ctxt, rhq_len + 64, 4096, true) != 0)
		return -ENOMEM;
	/* Eager buffers are aligned to their size, so none crosses a page
	 * of 4 KiB or of a hugepage: each is IOVA-contiguous by itself. */
	if (hfi1_dma_alloc(hw, &c->egr_mem, "egr", ctxt, egr_len, egr_size, false) != 0) {
		hfi1_osal_dma_free(&c->mem);
		return -ENOMEM;
	}
	c->hw = hw;
	c->ctxt = ctxt;
	c->rhq_cnt = rhq_cnt;
	c->ent_dws = HFI1_RHQ_ENT_DWS;
	c->egr_cnt = egr_cnt;
	c->egr_size = egr_size;
	c->egr_base = ctxt * egr_entries_per_ctxt(hw);
	c->rhq = c->mem.va;
	c->rhq_iova = c->mem.iova;
	c->tail_iova = c->mem.iova + rhq_len;
	c->egr = c->egr_mem.va;
	return 0;
}

void
hfi1_rcv_ctxt_free(struct hfi1_rcv_ctxt *c)
{
	hfi1_osal_dma_free(&c->egr_mem);
	hfi1_osal_dma_free(&c->mem);
}

int
hfi1_rcv_ctxt_enable(struct hfi1_rcv_ctxt *c)
{
	struct hfi1_hw *hw = c->hw;
	unsigned int k = c->ctxt;
	uint64_t order = hfi1_egr_size_enc(c->egr_size);
	uint32_t i;

	/* Stale RHFs could carry the expected RcvSeq: start from zeros. */
	memset(c->rhq, 0, (size_t)c->rhq_cnt * c->ent_dws * 4);
	c->head = 0;
	c->seq = 1;
	hfi1_csr_write(hw, HFI1_KCTXT(HFI1_RCV_CTXT_CTRL, k), 0);
	hfi1_csr_write(hw, HFI1_KCTXT(HFI1_RCV_HDR_ADDR, k), c->rhq_iova);
	hfi1_csr_write(hw, HFI1_KCTXT(HFI1_RCV_HDR_CNT, k),
			c->rhq_cnt / HFI1_RCV_HDR_CNT_UNIT);
	hfi1_csr_write(hw, HFI1_KCTXT(HFI1_RCV_HDR_ENT_SIZE, k),
			hfi1_hdr_ent_size_enc(c->ent_dws));
	hfi1_csr_write(hw, HFI1_KCTXT(HFI1_RCV_HDR_SIZE, k),
			HFI1_DEFAULT_RCVHDRSIZE);
	hfi1_csr_write(hw, HFI1_KCTXT(HFI1_RCV_HDR_TAIL_ADDR, k), c->tail_iova);
	for (i = 0; i < c->egr_cnt; i++) {
		hfi1_iova_t pa = hfi1_osal_virt2iova(c->egr +
				(size_t)i * c->egr_size);

		if (pa == HFI1_OSAL_BAD_IOVA)
			return -EFAULT;

		hfi1_csr_write(hw, HFI1_RCV_ARRAY + 8u * (c->egr_base + i),
				HFI1_RCV_ARRAY_WRITE_ENABLE |
				order << HFI1_RCV_ARRAY_SIZE_SHIFT |
				((pa >> HFI1_RCV_ARRAY_ADDR_SHIFT) &
				 HFI1_RCV_ARRAY_ADDR_MASK));
	}
	hfi1_csr_write(hw, HFI1_KCTXT(HFI1_RCV_EGR_CTRL, k),
			(uint64_t)(c->egr_cnt / HFI1_RCV_EGR_UNIT) <<
			HFI1_RCV_EGR_CTRL_CNT_SHIFT |
			(uint64_t)(c->egr_base / HFI1_RCV_EGR_UNIT) <<
			HFI1_RCV_EGR_CTRL_BASE_SHIFT);
	hfi1_csr_write(hw, HFI1_UCTXT(HFI1_RCV_HDR_HEAD, k), 0);
	hfi1_csr_write(hw, HFI1_UCTXT(HFI1_RCV_EGR_INDEX_HEAD, k), 0);
	hfi1_csr_write(hw, HFI1_KCTXT(HFI1_RCV_CTXT_CTRL, k),
			HFI1_RCV_CTXT_CTRL_ENABLE |
			order << HFI1_RCV_CTXT_CTRL_EGR_SIZE_SHIFT);
	return 0;
}

void
hfi1_rcv_ctxt_disable(struct hfi1_rcv_ctxt *c)
{
	uint32_t i;

	hfi1_csr_write(c->hw, HFI1_KCTXT(HFI1_RCV_CTXT_CTRL, c->ctxt), 0);
	for (i = 0; i < c->egr_cnt; i++)
		hfi1_csr_write(c->hw, HFI1_RCV_ARRAY + 8u * (c->egr_base + i),
				0);
}

void
hfi1_rcv_ctxt_update_heads(struct hfi1_rcv_ctxt *c, uint32_t egr_index)
{
	hfi1_csr_write(c->hw, HFI1_UCTXT(HFI1_RCV_EGR_INDEX_HEAD, c->ctxt),
			egr_index & HFI1_RCV_EGR_INDEX_HEAD_MASK);
	hfi1_csr_write(c->hw, HFI1_UCTXT(HFI1_RCV_HDR_HEAD, c->ctxt),
			((uint64_t)c->head * c->ent_dws) &
			HFI1_RCV_HDR_HEAD_MASK);
}

void
hfi1_port_enable(struct hfi1_hw *hw, unsigned int default_ctxt, bool rsm)
{
	hfi1_csr_write(hw, HFI1_RCV_BYPASS,
			(uint64_t)HFI1_BYPASS_HDR_DWS <<
			HFI1_RCV_BYPASS_HDR_SIZE_SHIFT |
			(default_ctxt & HFI1_RCV_BYPASS_CONTEXT_MASK));
	hfi1_csr_write(hw, HFI1_RCV_CTRL, HFI1_RCV_CTRL_PORT_ENABLE |
			HFI1_RCV_CTRL_BYPASS_ENABLE |
			(rsm ? HFI1_RCV_CTRL_RSM_ENABLE : 0));
	hfi1_csr_write(hw, HFI1_SEND_CTRL, HFI1_SEND_CTRL_SEND_ENABLE);
}

void
hfi1_port_disable(struct hfi1_hw *hw)
{
	hfi1_csr_write(hw, HFI1_SEND_CTRL, 0);
	hfi1_csr_write(hw, HFI1_RCV_CTRL, 0);
}
