/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#include <stdio.h>

#include <rte_io.h>
#include <rte_log.h>
#include <rte_memzone.h>

#include "hfi1_hw.h"
#include "../hfi1_log.h"

static uint64_t
bar_csr_read(struct hfi1_hw *hw, uint32_t off)
{
	return rte_read64((const uint8_t *)hw->dev + off);
}

static void
bar_csr_write(struct hfi1_hw *hw, uint32_t off, uint64_t val)
{
	/* rte_write64 orders it after earlier stores (descriptors, heads). */
	rte_write64(val, (uint8_t *)hw->dev + off);
}

const struct hfi1_hw_ops hfi1_bar_ops = {
	.csr_read = bar_csr_read,
	.csr_write = bar_csr_write,
};

const struct rte_memzone *
hfi1_dma_zone(struct hfi1_hw *hw, const char *what, unsigned int idx,
		size_t len, unsigned int align, bool contig)
{
	char name[RTE_MEMZONE_NAMESIZE];
	const struct rte_memzone *mz;

	if (snprintf(name, sizeof(name), "%.16s_%.6s%u", hw->name, what,
			idx & 0xFFFF) >= (int)sizeof(name))
		return NULL;
	mz = rte_memzone_reserve_aligned(name, len, hw->socket_id,
			contig ? RTE_MEMZONE_IOVA_CONTIG : 0, align);
	if (mz == NULL) {
		HFI1_LOG(ERR, "cannot reserve %zu bytes of DMA memory for %s",
				len, name);
		return NULL;
	}
	memset(mz->addr, 0, len);
	return mz;
}
