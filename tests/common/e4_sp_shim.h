/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _E4_SP_SHIM_H_
#define _E4_SP_SHIM_H_

/*
 * Stand-ins for what the slow-path tests link against while other slices of
 * net_e4 are not in the tree: the runtime array (ecore_init_ops.h: recorded,
 * so a test can see what was staged), the MFW event handler (ecore_mcp.h:
 * counted) and the DMAE host->GRC copy (ecore_dmae.c: dword GRC writes
 * through the PTT, which the model sees as the same GRC writes). Each
 * disappears by itself once its real header/file exists (__has_include).
 */

#include <stdbool.h>
#include <stdint.h>

#if !__has_include("ecore_init_ops.h")
#define E4_TEST_RT_SHIM 1
/** The value staged at runtime-array index @p off, if any. */
bool e4_test_rt_get(uint32_t off, uint32_t *val);
/** Forget everything staged. */
void e4_test_rt_clear(void);
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
