/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _E4_SP_SHIM_H_
#define _E4_SP_SHIM_H_

/*
 * Stand-ins for what the slow-path tests link against while other slices of
 * net_e4 are not in the tree: the MFW event handler (ecore_mcp.h: counted)
 * and the DMAE host->GRC copy (ecore_dmae.c: dword GRC writes through the
 * PTT, which the model sees as the same GRC writes); and access to the
 * library's stand-in of the runtime array (base/ecore_int_ext.c). Each
 * disappears by itself once its real header/file exists (__has_include).
 */

#include <stdbool.h>
#include <stdint.h>

#include "ecore_int_ext.h"

#ifdef ECORE_RT_STAND_IN
/* the runtime array's stand-in in the library records what was staged */
#define E4_TEST_RT_SHIM 1
#define e4_test_rt_get(off, val) ecore_rt_stand_in_get(off, val)
#define e4_test_rt_clear() ecore_rt_stand_in_clear()
#endif

#if !__has_include("ecore_mcp.h")
#define E4_TEST_MCP_SHIM 1
/** ecore_mcp_handle_events() calls. */
extern unsigned int e4_test_mcp_events;
#endif

#if !__has_include("ecore_dmae.c")
/** DMAE host->GRC is the shim's (no DMAE client to allocate). */
#define E4_TEST_DMAE_SHIM 1
#endif

#endif /* _E4_SP_SHIM_H_ */
