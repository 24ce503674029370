/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * The runtime array's stand-in (see ecore_int_ext.h): compiled to nothing
 * once base/ecore_init_ops.h exists.
 */

#include "ecore_int_ext.h"

#ifdef ECORE_RT_STAND_IN
/* The largest runtime array (8.59: 34984 entries). */
#define RT_STAND_IN_ENTRIES 34984u

static uint32_t rt_val[RT_STAND_IN_ENTRIES];
static bool rt_valid[RT_STAND_IN_ENTRIES];

void
ecore_init_store_rt_reg(struct ecore_hwfn *p_hwfn, uint32_t rt_offset, uint32_t val)
{
	if (rt_offset >= RT_STAND_IN_ENTRIES) {
		ECORE_LOG(ERR, "%s: runtime-array index %u out of range", p_hwfn->name, rt_offset);
		return;
	}
	rt_val[rt_offset] = val;
	rt_valid[rt_offset] = true;
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
ecore_rt_stand_in_get(uint32_t rt_offset, uint32_t *val)
{
	*val = rt_offset < RT_STAND_IN_ENTRIES ? rt_val[rt_offset] : 0;
	return rt_offset < RT_STAND_IN_ENTRIES && rt_valid[rt_offset];
}

void
ecore_rt_stand_in_clear(void)
{
	memset(rt_valid, 0, sizeof(rt_valid));
}
#endif
