/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#include "hfi1_hw.h"

static uint64_t
bar_csr_read(struct hfi1_hw *hw, uint32_t off)
{
	return hfi1_osal_read64((const uint8_t *)hw->dev + off);
}

static void
bar_csr_write(struct hfi1_hw *hw, uint32_t off, uint64_t val)
{
	/* ordered after earlier stores (descriptors, heads) */
	hfi1_osal_write64(val, (uint8_t *)hw->dev + off);
}

const struct hfi1_hw_ops hfi1_bar_ops = {
	.csr_read = bar_csr_read,
	.csr_write = bar_csr_write,
};
