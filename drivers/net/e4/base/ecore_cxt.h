/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _ECORE_CXT_H_
#define _ECORE_CXT_H_

/**
 * @file
 * Context memory (the guide's chapter "Context Management"): the connection
 * contexts of an L2 PF (CORE for the SPQ, ETH for the queues) live in host
 * pages the device finds through the ILT (one 64-bit line per page:
 * address >> 12 and a valid bit) and the CDU parameters (context size,
 * contexts per page). A connection id (CID, per PF) maps to
 * line = first_line + cid / per_page, offset (cid % per_page) * 896.
 *
 * CID ranges are per protocol, each aligned to 16 (the doorbell queue's
 * range granularity): CORE first, then ETH.
 */

#include "ecore.h"
#include "ecore_hsi.h"

/** CID range granularity. */
#define ECORE_CXT_CID_ALIGN 16
/** ILT lines a PF gets by default: the K2 ILT split over 16 PFs. */
#define ECORE_CXT_DEFAULT_ILT_LINES (PSWRQ2_REG_ILT_MEMORY_LINES / 16)
/** Contexts per ILT page: 64 KiB / 896 B. */
#define ECORE_CXT_PER_PAGE (ILT_PAGE_SIZE / ECORE_CONN_CXT_SIZE)

/** Allocate the context manager (no DMA memory yet). */
enum _ecore_status_t ecore_cxt_mngr_alloc(struct ecore_hwfn *p_hwfn);
/** Free the manager and its tables (none is fine). */
void ecore_cxt_mngr_free(struct ecore_hwfn *p_hwfn);
/**
 * The connection counts an L2 PF needs: 1 CORE (the SPQ) and @p num_l2_cons
 * ETH, each range rounded up to ECORE_CXT_CID_ALIGN.
 * @return 0, ECORE_INVAL (0 or too many connections for the PF's ILT lines).
 */
enum _ecore_status_t ecore_cxt_set_pf_params(struct ecore_hwfn *p_hwfn, uint32_t num_l2_cons);
/**
 * Override the PF's ILT range (default: rel_pf_id * ECORE_CXT_DEFAULT_ILT_LINES,
 * ECORE_CXT_DEFAULT_ILT_LINES lines), e.g. from the MFW's resource answer.
 */
enum _ecore_status_t ecore_cxt_set_ilt_range(struct ecore_hwfn *p_hwfn, uint32_t first_line,
					     uint32_t num_lines);
/** Allocate the context pages (64 KiB DMA memory each, zeroed). Undone on failure. */
enum _ecore_status_t ecore_cxt_tables_alloc(struct ecore_hwfn *p_hwfn);
/**
 * Mark every CID free and zero the contexts (after alloc, or for a new
 * bring-up): before ecore_spq_setup(), which writes the SPQ's context.
 */
void ecore_cxt_mngr_setup(struct ecore_hwfn *p_hwfn);
/**
 * Before the PF phase of hw_init: stage in the runtime array the PF's ILT
 * lines, its CDUC first/last line and page size, and the CDU parameters.
 */
void ecore_cxt_hw_init_pf(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt);
/**
 * Write what ecore_cxt_hw_init_pf() stages straight to the registers (ILT
 * lines by DMAE: wide-bus): for a PF whose hw_init does not run the init
 * file's PF phase (tests of the slow path alone, re-programming).
 */
enum _ecore_status_t ecore_cxt_hw_write_pf(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt);

/** Take a free CID of @p protocol (PROTOCOLID_CORE, PROTOCOLID_ETH). */
enum _ecore_status_t ecore_cxt_acquire_cid(struct ecore_hwfn *p_hwfn, int protocol,
					   uint32_t *cid);
/**
 * Mark CID @p cid taken (a CID an owner keeps across ecore_cxt_mngr_setup(),
 * e.g. the SPQ's). @return 0, ECORE_EXISTS (already taken) or ECORE_INVAL.
 */
enum _ecore_status_t ecore_cxt_reserve_cid(struct ecore_hwfn *p_hwfn, uint32_t cid);
/** Give a CID back (an unknown or free CID is logged and ignored). */
void ecore_cxt_release_cid(struct ecore_hwfn *p_hwfn, uint32_t cid);
/** Where CID @p cid's context is (host and device address). @return 0 or ECORE_INVAL. */
enum _ecore_status_t ecore_cxt_get_cid_info(struct ecore_hwfn *p_hwfn, uint32_t cid,
					    void **ctx_virt, uint64_t *ctx_iova);

/** The PF's first ILT line, lines in use (after tables_alloc) and CIDs in total. */
uint32_t ecore_cxt_ilt_first_line(struct ecore_hwfn *p_hwfn);
uint32_t ecore_cxt_ilt_lines_used(struct ecore_hwfn *p_hwfn);
/** The 64-bit ILT entry of the PF's line @p i (0-based, < lines used). */
uint64_t ecore_cxt_ilt_entry(struct ecore_hwfn *p_hwfn, uint32_t i);
/** CDU_REG_CID_ADDR_PARAMS for our context size and page size. */
uint32_t ecore_cxt_cdu_params(void);

#endif /* _ECORE_CXT_H_ */
