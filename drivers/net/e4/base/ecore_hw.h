/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _ECORE_HW_H_
#define _ECORE_HW_H_

/**
 * @file
 * Register access (the guide's chapter "Register Access"): BAR0 direct
 * accesses, the PTT pool and its windows, GRC reads and writes through a PTT,
 * the GTT (global) windows; and the DMAE client (ecore_dmae.c).
 *
 * A PTT is a 4 KiB window of BAR0 that the admin window points at any GRC
 * address; ecore_rd()/ecore_wr() move the window when an address falls
 * outside it. A PTT belongs to one user at a time (acquire/release).
 */

#include "ecore.h"
#include "ecore_reg.h"

/* ---- BAR0 / BAR2 direct ---- */

/** Read BAR0 + @p offset of this hwfn's part of the BAR. */
static inline uint32_t
ecore_bar0_rd(struct ecore_hwfn *p_hwfn, uint32_t offset)
{
	struct ecore_dev *d = p_hwfn->p_dev;

	return d->bar_ops->read32(d->bar_ctx, p_hwfn->bar0_base + offset);
}

/** Write BAR0 + @p offset of this hwfn's part of the BAR. */
static inline void
ecore_bar0_wr(struct ecore_hwfn *p_hwfn, uint32_t offset, uint32_t val)
{
	struct ecore_dev *d = p_hwfn->p_dev;

	d->bar_ops->write32(d->bar_ctx, p_hwfn->bar0_base + offset, val);
}

/** Ring the doorbell at BAR2 + @p offset of this hwfn's part. */
static inline void
ecore_db_wr(struct ecore_hwfn *p_hwfn, uint32_t offset, uint32_t val)
{
	struct ecore_dev *d = p_hwfn->p_dev;

	d->bar_ops->db_write32(d->bar_ctx, p_hwfn->db_base + offset, val);
}

/* ---- PTT pool ---- */

/** Allocate the hwfn's PTT pool (12 windows, 4 reserved) and point them nowhere. */
enum _ecore_status_t ecore_ptt_pool_alloc(struct ecore_hwfn *p_hwfn);
/** Free the pool (NULL pool is fine). */
void ecore_ptt_pool_free(struct ecore_hwfn *p_hwfn);
/** Forget what every window points at (after a reset the admin window is unknown). */
void ecore_ptt_invalidate(struct ecore_hwfn *p_hwfn);
/**
 * Take a free PTT from the pool, waiting up to 1 s for one.
 * @return the PTT, or NULL (logged) when none came free.
 */
struct ecore_ptt *ecore_ptt_acquire(struct ecore_hwfn *p_hwfn);
/** Give a PTT back to the pool. */
void ecore_ptt_release(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt);
/** One of the reserved PTTs (MAIN, DPC, ...). */
struct ecore_ptt *ecore_get_reserved_ptt(struct ecore_hwfn *p_hwfn, enum reserved_ptts idx);
/** The BAR0 offset of @p p_ptt's window. */
uint32_t ecore_ptt_get_bar_addr(const struct ecore_ptt *p_ptt);
/** Free PTTs now in the pool (tests). */
unsigned int ecore_ptt_pool_free_count(struct ecore_hwfn *p_hwfn);

/* ---- GRC through a PTT ---- */

/** Read the GRC register at byte address @p hw_addr. */
uint32_t ecore_rd(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt, uint32_t hw_addr);
/** Write @p val to the GRC register at byte address @p hw_addr. */
void ecore_wr(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt, uint32_t hw_addr,
	      uint32_t val);
/** Read @p n bytes (a multiple of 4) of GRC from @p hw_addr into @p dest. */
void ecore_memcpy_from(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt, void *dest,
		       uint32_t hw_addr, size_t n);
/** Write @p n bytes (a multiple of 4) of @p src to GRC at @p hw_addr. */
void ecore_memcpy_to(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt, uint32_t hw_addr,
		     const void *src, size_t n);

/** Program the global windows 2..14 (IGU commands, the SDM RAMs). */
void ecore_gtt_init(struct ecore_hwfn *p_hwfn);

/* ---- DMAE (ecore_dmae.c) ---- */

/** Completion value the DMAE writes to the completion word. */
#define DMAE_COMPLETION_VAL 0xD1AE

/** Allocate the DMAE client: completion word, command, bounce buffer (DMA memory). */
enum _ecore_status_t ecore_dmae_info_alloc(struct ecore_hwfn *p_hwfn);
/** Free it (none is fine). */
void ecore_dmae_info_free(struct ecore_hwfn *p_hwfn);
/**
 * Copy @p size_dw dwords from the CPU buffer @p src to GRC byte address
 * @p grc_addr (through the client's DMA bounce buffer, in chunks).
 * @return 0, ECORE_TIMEOUT (no completion in time) or ECORE_IO (error completion).
 */
enum _ecore_status_t ecore_dmae_host2grc(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt,
					 const void *src, uint32_t grc_addr, uint32_t size_dw);
/** Fill @p size_dw dwords at GRC @p grc_addr with @p value (wide-bus zero fills). */
enum _ecore_status_t ecore_dmae_grc_fill(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt,
					 uint32_t grc_addr, uint32_t value, uint32_t size_dw);
/** Copy @p size_dw dwords from GRC @p grc_addr to the CPU buffer @p dst. */
enum _ecore_status_t ecore_dmae_grc2host(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt,
					 uint32_t grc_addr, void *dst, uint32_t size_dw);
/** Copy @p size_dw dwords between two device addresses of host memory. */
enum _ecore_status_t ecore_dmae_host2host(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt,
					  uint64_t src_iova, uint64_t dst_iova, uint32_t size_dw);
/**
 * The DMAE self-test hw_init runs (host -> host, pattern checked).
 * @param phase  for the log ("engine", "pf").
 */
enum _ecore_status_t ecore_dmae_sanity(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt,
				       const char *phase);

#endif /* _ECORE_HW_H_ */
