/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* Stand-ins until the other net_e4 slices are merged: see e4_sp_shim.h. */

#include "ecore_hw.h"
#include "e4_sp_shim.h"

#ifdef E4_TEST_RT_SHIM
#define RT_ENTRIES 40000
static uint32_t rt_val[RT_ENTRIES];
static bool rt_valid[RT_ENTRIES];

void
ecore_init_store_rt_reg(struct ecore_hwfn *p_hwfn, uint32_t rt_offset, uint32_t val)
{
	RTE_SET_USED(p_hwfn);
	if (rt_offset < RT_ENTRIES) {
		rt_val[rt_offset] = val;
		rt_valid[rt_offset] = true;
	}
}

void
ecore_init_store_rt_agg(struct ecore_hwfn *p_hwfn, uint32_t rt_offset, const uint32_t *val,
			size_t size)
{
	size_t i;

	for (i = 0; i < size / 4; i++)
		ecore_init_store_rt_reg(p_hwfn, rt_offset + i, val[i]);
}

bool
e4_test_rt_get(uint32_t off, uint32_t *val)
{
	*val = off < RT_ENTRIES ? rt_val[off] : 0;
	return off < RT_ENTRIES && rt_valid[off];
}

void
e4_test_rt_clear(void)
{
	memset(rt_valid, 0, sizeof(rt_valid));
}
#endif

#ifdef E4_TEST_MCP_SHIM
unsigned int e4_test_mcp_events;

enum _ecore_status_t
ecore_mcp_handle_events(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt)
{
	RTE_SET_USED(p_hwfn);
	RTE_SET_USED(p_ptt);
	e4_test_mcp_events++;
	return ECORE_SUCCESS;
}
#endif

#ifdef E4_TEST_DMAE_SHIM
enum _ecore_status_t
ecore_dmae_host2grc(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt, const void *src,
		    uint32_t grc_addr, uint32_t size_dw)
{
	const uint8_t *s = src;
	uint32_t i;

	for (i = 0; i < size_dw; i++)
		ecore_wr(p_hwfn, p_ptt, grc_addr + 4 * i, omni_get_le32(s + 4 * i));
	return ECORE_SUCCESS;
}
#endif
