/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#include "hfi1_hw.h"

void
hfi1_rsm_rule_write(struct hfi1_hw *hw, unsigned int slot,
		const struct hfi1_rsm_rule *r)
{
	hfi1_csr_write(hw, HFI1_RCV_RSM_CFG(slot), 0);
	hfi1_csr_write(hw, HFI1_RCV_RSM_SELECT(slot),
			(uint64_t)r->field1_off << HFI1_RCV_RSM_SELECT_FIELD1_SHIFT |
			(uint64_t)r->field2_off << HFI1_RCV_RSM_SELECT_FIELD2_SHIFT |
			(uint64_t)r->index1_off << HFI1_RCV_RSM_SELECT_INDEX1_OFF_SHIFT |
			(uint64_t)r->index1_width << HFI1_RCV_RSM_SELECT_INDEX1_WIDTH_SHIFT |
			(uint64_t)r->index2_off << HFI1_RCV_RSM_SELECT_INDEX2_OFF_SHIFT |
			(uint64_t)r->index2_width << HFI1_RCV_RSM_SELECT_INDEX2_WIDTH_SHIFT);
	hfi1_csr_write(hw, HFI1_RCV_RSM_MATCH(slot),
			(uint64_t)r->mask1 << HFI1_RCV_RSM_MATCH_MASK1_SHIFT |
			(uint64_t)r->value1 << HFI1_RCV_RSM_MATCH_VALUE1_SHIFT |
			(uint64_t)r->mask2 << HFI1_RCV_RSM_MATCH_MASK2_SHIFT |
			(uint64_t)r->value2 << HFI1_RCV_RSM_MATCH_VALUE2_SHIFT);
	/* Enable last, once the rule is whole. */
	hfi1_csr_write(hw, HFI1_RCV_RSM_CFG(slot),
			(uint64_t)r->pkt_type << HFI1_RCV_RSM_CFG_PKT_TYPE_SHIFT |
			(uint64_t)r->map_offset << HFI1_RCV_RSM_CFG_OFFSET_SHIFT |
			HFI1_RCV_RSM_CFG_ENABLE);
}

void
hfi1_rsm_rule_clear(struct hfi1_hw *hw, unsigned int slot)
{
	hfi1_csr_write(hw, HFI1_RCV_RSM_CFG(slot), 0);
}

void
hfi1_rsm_map_fill(struct hfi1_hw *hw, unsigned int first, unsigned int n,
		const uint8_t *ctxts, unsigned int nb)
{
	unsigned int reg, i;

	/* Read-modify-write whole CSRs: other rules own the other bytes. */
	for (reg = first / 8; reg <= (first + n - 1) / 8 &&
	     reg < HFI1_RSM_MAP_ENTRIES / 8; reg++) {
		uint64_t v = hfi1_csr_read(hw, HFI1_RCV_RSM_MAP_TABLE(reg));

		for (i = 0; i < 8; i++) {
			unsigned int e = reg * 8 + i;

			if (e < first || e >= first + n)
				continue;
			v &= ~(0xFFull << (8 * i));
			v |= (uint64_t)ctxts[(e - first) % nb] << (8 * i);
		}
		hfi1_csr_write(hw, HFI1_RCV_RSM_MAP_TABLE(reg), v);
	}
}

void
hfi1_rsm_rule_vnic(struct hfi1_rsm_rule *r, uint8_t map_offset)
{
	*r = (struct hfi1_rsm_rule){
		.pkt_type = HFI1_RHF_RCV_TYPE_BYPASS,
		.map_offset = map_offset,
		.field1_off = 61, .mask1 = 0x3, .value1 = 2,	/* L2 = 16B */
		.field2_off = 64, .mask2 = 0xFF, .value2 = 0x78,	/* L4 */
		.index1_off = 144, .index1_width = 3,	/* vesw id */
		.index2_off = 96, .index2_width = 3,	/* entropy */
	};
}

void
hfi1_rsm_rule_mgmt(struct hfi1_rsm_rule *r, uint8_t map_offset)
{
	*r = (struct hfi1_rsm_rule){
		.pkt_type = HFI1_RHF_RCV_TYPE_BYPASS,
		.map_offset = map_offset,
		.field1_off = 61, .mask1 = 0x3, .value1 = 2,
		.field2_off = 64, .mask2 = 0xFF, .value2 = 0x08,
	};
}
