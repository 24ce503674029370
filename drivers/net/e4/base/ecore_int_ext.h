/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _ECORE_INT_EXT_H_
#define _ECORE_INT_EXT_H_

/*
 * What the slow-path files call in other slices: the runtime array
 * (ecore_init_ops.h) and the MFW event handler (ecore_mcp.h). Until those
 * headers exist in the tree the prototypes are declared here, with the
 * signatures the slices were given; once they exist, theirs are used.
 * Private to base/ (no public header includes it).
 */

#include "ecore.h"

#if __has_include("ecore_init_ops.h")
#include "ecore_init_ops.h"
#else
/*
 * Until the runtime array is in the tree, ecore_int_ext.c records what is
 * staged (process-wide, for tests) so everything linking the layer links.
 */
#define ECORE_RT_STAND_IN 1
/** Stage @p val at runtime-array index @p rt_offset. */
void ecore_init_store_rt_reg(struct ecore_hwfn *p_hwfn, uint32_t rt_offset, uint32_t val);
/** Stage @p size bytes of dwords from @p val at @p rt_offset onwards. */
void ecore_init_store_rt_agg(struct ecore_hwfn *p_hwfn, uint32_t rt_offset, const uint32_t *val,
			     size_t size);
/** The stand-in's value at @p rt_offset, if one was staged. */
bool ecore_rt_stand_in_get(uint32_t rt_offset, uint32_t *val);
/** Forget what the stand-in recorded. */
void ecore_rt_stand_in_clear(void);
#endif

#if __has_include("ecore_mcp.h")
#include "ecore_mcp.h"
#else
/** Handle the MFW's messages (link change, ...) after its attention. */
enum _ecore_status_t ecore_mcp_handle_events(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt);
#endif

#endif /* _ECORE_INT_EXT_H_ */
