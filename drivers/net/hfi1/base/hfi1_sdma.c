/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#include <errno.h>

#include "hfi1_hw.h"

int
hfi1_sdma_ring_init(struct hfi1_sdma_ring *r, struct hfi1_hw *hw,
		unsigned int engine, uint32_t cnt)
{
	size_t desc_len, pbc_len;

	if (engine >= hw->nb_sdma_engines || !hfi1_osal_is_pow2(cnt) ||
	    cnt < HFI1_SDMA_RING_MIN || cnt > HFI1_SDMA_RING_MAX)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	desc_len = (size_t)cnt * 16;
	pbc_len = (size_t)cnt * sizeof(uint64_t);
	/* One zone: descriptors, then the PBC slots, then the head. */
	if (hfi1_dma_alloc(hw, &r->mem, "sdma", engine,
			desc_len + pbc_len + HFI1_OSAL_CACHE_LINE, 4096, true) != 0)
		return -ENOMEM;
	r->hw = hw;
	r->engine = engine;
	r->cnt = cnt;
	r->mask = cnt - 1;
	r->shift = hfi1_osal_log2(cnt);
	r->descq = r->mem.va;
	r->descq_iova = r->mem.iova;
	r->pbc = HFI1_OSAL_PTR_ADD(r->mem.va, desc_len);
	r->pbc_iova = r->mem.iova + desc_len;
	r->head_wb = HFI1_OSAL_PTR_ADD(r->mem.va, desc_len + pbc_len);
	r->head_wb_iova = r->mem.iova + desc_len + pbc_len;
	return 0;
}

void
hfi1_sdma_ring_free(struct hfi1_sdma_ring *r)
{
	hfi1_osal_dma_free(&r->mem);
}

int
hfi1_sdma_start(struct hfi1_sdma_ring *r)
{
	struct hfi1_hw *hw = r->hw;
	unsigned int e = r->engine;
	uint64_t len = (uint64_t)(r->cnt / 64) << HFI1_SDMA_LEN_GEN_LENGTH_SHIFT;

	r->head = 0;
	r->tail = 0;
	*r->head_wb = 0;
	memset(r->descq, 0, (size_t)r->cnt * 16);
	hfi1_csr_write(hw, HFI1_SDMA(HFI1_SDMA_CTRL, e), 0);
	hfi1_csr_write(hw, HFI1_SDMA(HFI1_SDMA_ENG_ERR_CLEAR, e), UINT64_MAX);
	hfi1_csr_write(hw, HFI1_SDMA(HFI1_SDMA_BASE_ADDR, e), r->descq_iova);
	/* Clear, then set, the generation MSB: loads generation 0 and turns
	 * generation checking on (as hfi1 does). */
	hfi1_csr_write(hw, HFI1_SDMA(HFI1_SDMA_LEN_GEN, e), len);
	hfi1_csr_write(hw, HFI1_SDMA(HFI1_SDMA_LEN_GEN, e),
			len | 4ull << HFI1_SDMA_LEN_GEN_GEN_SHIFT);
	hfi1_csr_write(hw, HFI1_SDMA(HFI1_SDMA_HEAD_ADDR, e), r->head_wb_iova);
	hfi1_csr_write(hw, HFI1_SDMA(HFI1_SDMA_TAIL, e), 0);
	hfi1_csr_write(hw, HFI1_SDMA(HFI1_SDMA_CTRL, e), HFI1_SDMA_CTRL_ENABLE);
	return 0;
}

int
hfi1_sdma_halt(struct hfi1_sdma_ring *r, unsigned int timeout_ms)
{
	struct hfi1_hw *hw = r->hw;
	uint64_t deadline = hfi1_osal_cycles() +
		hfi1_osal_cycles_hz() / 1000 * timeout_ms;

	hfi1_csr_write(hw, HFI1_SDMA(HFI1_SDMA_CTRL, r->engine),
			HFI1_SDMA_CTRL_HALT);
	for (;;) {
		uint64_t st = hfi1_csr_read(hw,
				HFI1_SDMA(HFI1_SDMA_STATUS, r->engine));

		if (st & HFI1_SDMA_STATUS_HALTED)
			return 0;
		if (hfi1_osal_cycles() > deadline) {
			HFI1_OSAL_LOG(ERR, "%s: SDMA engine %u did not halt in %u ms",
					hw->name, r->engine, timeout_ms);
			return -ETIMEDOUT;
		}
		hfi1_osal_usleep(100);
	}
}

bool
hfi1_sdma_halted(struct hfi1_sdma_ring *r, uint64_t *err)
{
	uint64_t st = hfi1_csr_read(r->hw,
			HFI1_SDMA(HFI1_SDMA_STATUS, r->engine));

	if (!(st & HFI1_SDMA_STATUS_HALTED))
		return false;
	*err = hfi1_csr_read(r->hw,
			HFI1_SDMA(HFI1_SDMA_ENG_ERR_STATUS, r->engine));
	return true;
}
