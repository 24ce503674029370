/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* Stand-ins until the other net_e4 slices are merged: see e4_sp_shim.h. */

#include "ecore_hw.h"
#include "e4_sp_shim.h"

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
