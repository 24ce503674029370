/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _ECORE_INT_H_
#define _ECORE_INT_H_

/**
 * @file
 * Status blocks and interrupts (the guide's chapter "Status Blocks and
 * Interrupts"): the IGU CAM (which SBs the PF owns), the slow-path (default)
 * SB and the attention SB, fast-path SBs, CAU programming (where the device
 * writes each SB), IGU acks, the interrupt mode, and the slow-path DPC that
 * runs the EQ completion and the attentions (MFW events).
 *
 * The device writes an SB's protocol indices and then bumps its prod_index;
 * the DPC runs the SB's callbacks only when prod_index moved since the last
 * ack, so every device update must change prod_index.
 */

#include "ecore.h"
#include "ecore_hsi.h"

/** A status block the driver owns (slow path or one per queue pair). */
struct ecore_sb_info {
	struct status_block *sb_virt;	/**< host copy the device writes */
	uint64_t sb_iova;
	uint32_t sb_ack;		/**< prod_index last seen (and acked) */
	uint16_t igu_sb_id;		/**< IGU SB (CAM line) */
	uint32_t igu_addr;		/**< BAR0 offset of its IGU command */
	struct ecore_hwfn *p_hwfn;
	bool initialized;
};

/** A callback on one protocol index of the slow-path SB (the EQ's). */
typedef void (*ecore_int_comp_cb_t)(struct ecore_hwfn *p_hwfn, void *cookie);

/** The slow-path SB: its memory and the callbacks on its PIs. */
struct ecore_sb_sp_info {
	struct ecore_sb_info sb_info;
	struct ecore_dma_mem mem;
	struct {
		ecore_int_comp_cb_t cb;
		void *cookie;
	} pi_info[ECORE_SB_PI_NUM];
	ecore_osal_spinlock_t dpc_lock;	/**< one DPC at a time */
	uint64_t dpc_runs;		/**< DPCs that found work */
};

/** The attention SB. */
struct ecore_sb_attn_info {
	struct atten_status_block *sb_attn;
	struct ecore_dma_mem mem;
	uint16_t index;			/**< sb_index last seen */
	uint16_t known_attn;		/**< lines asserted and handled, not yet deasserted */
	uint32_t mfw_attn_addr;		/**< MISC_REG_AEU_GENERAL_ATTN_0 + rel_pf_id * 8 */
	uint64_t mcp_events;		/**< ecore_mcp_handle_events() calls */
	uint64_t asserted;		/**< attention lines asserted (each counted) */
	uint64_t deasserted;
	uint64_t unknown;		/**< asserted lines other than the MFW's (logged) */
};

/** What the DPC found (ecore_int_sp_pending()). */
#define ECORE_SB_IDX		0x1	/**< the SP SB's prod_index moved */
#define ECORE_SB_ATT_IDX	0x2	/**< the attention SB's index moved */

/**
 * Read the IGU CAM: the lines whose function is this PF (is_pf, valid).
 * Fills hw_info.igu_sb_base (first line), igu_dsb_id (= the first line: the
 * default SB) and igu_sb_cnt (the contiguous run from it, default included).
 * @return 0, or ECORE_NORESOURCES when the PF owns no line.
 */
enum _ecore_status_t ecore_int_igu_read_cam(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt);

/** Allocate the slow-path SB and the attention SB (DMA memory). Undone on failure. */
enum _ecore_status_t ecore_int_alloc(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt);
/** Free them (none is fine). */
void ecore_int_free(struct ecore_hwfn *p_hwfn);
/**
 * Before hw_init: reset both SBs, stage the default SB's CAU entries and the
 * IGU PF configuration in the runtime array, and write the attention SB's
 * address to the IGU (IGU_REG_ATTN_MSG_ADDR_L/H). On a device already
 * initialized (hw_init_done) the CAU entries go by DMAE and nothing is staged.
 */
void ecore_int_setup(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt);

/**
 * Program the CAU for IGU SB @p igu_sb_id at host address @p sb_iova: its
 * address (CAU_REG_SB_ADDR_MEMORY) and its entry (CAU_REG_SB_VAR_MEMORY).
 * Before hw_init (p_hwfn->hw_init_done false) through the runtime array;
 * after it by DMAE host->GRC (wide-bus registers).
 */
enum _ecore_status_t ecore_int_cau_conf_sb(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt,
					   uint64_t sb_iova, uint16_t igu_sb_id);

/**
 * Set up a fast-path SB: @p sb_id counts the PF's SBs after the default one
 * (IGU SB igu_dsb_id + 1 + sb_id); @p sb_virt / @p sb_iova are the caller's
 * 32 B of DMA memory. Zeroes it and programs the CAU (ecore_int_cau_conf_sb()).
 * @return 0, ECORE_INVAL (sb_id beyond the PF's SBs) or the CAU write's error.
 */
enum _ecore_status_t ecore_int_sb_init(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt,
				       struct ecore_sb_info *sb, void *sb_virt, uint64_t sb_iova,
				       uint16_t sb_id);

/**
 * Turn the PF's IGU on in @p int_mode (also stored in p_dev->int_mode):
 * attention lines enabled and latched, AEU -> IGU unmasked, then
 * IGU_REG_PF_CONFIGURATION = FUNC_EN | ATTN_BIT_EN (+ INT_LINE_EN |
 * SINGLE_ISR_EN for INTA, MSI_MSIX_EN for MSI-X; nothing more for POLL).
 */
void ecore_int_igu_enable(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt,
			  enum ecore_int_mode int_mode);
/** Turn the PF's IGU off (configuration 0, latches cleared). */
void ecore_int_igu_disable_int(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt);

/**
 * Ack an SB to the IGU: its last seen prod_index (when @p update), and what
 * to do with its interrupt line (enum igu_int_cmd).
 */
void ecore_sb_ack(struct ecore_sb_info *sb, int int_cmd, bool update);

/** Re-read an SB's prod_index: @return true (and sb_ack updated) when it moved. */
bool ecore_sb_update_sb_idx(struct ecore_sb_info *sb);

/**
 * Register @p cb on the first free PI of the slow-path SB.
 * @param sb_idx    the PI chosen
 * @param p_fw_cons where the device writes that PI's value
 * @return 0 or ECORE_NORESOURCES.
 */
enum _ecore_status_t ecore_int_register_cb(struct ecore_hwfn *p_hwfn, ecore_int_comp_cb_t cb,
					   void *cookie, uint8_t *sb_idx,
					   volatile uint16_t **p_fw_cons);
/** Remove the callback on PI @p pi. */
void ecore_int_unregister_cb(struct ecore_hwfn *p_hwfn, uint8_t pi);

/** What the DPC would find now (ECORE_SB_IDX | ECORE_SB_ATT_IDX), without acking. */
unsigned int ecore_int_sp_pending(struct ecore_hwfn *p_hwfn);

/**
 * The slow-path DPC: when the SP SB's prod_index moved, run its PI callbacks
 * (the EQ completion); when the attention SB's index moved, handle the
 * attentions (an MFW event: ecore_mcp_handle_events(), then clear the MFW's
 * general attention and ack), again while the index moves (up to 4 rounds:
 * the deassertion that our clean causes); then ack the SB. Takes the DPC PTT.
 */
void ecore_int_sp_dpc(struct ecore_hwfn *p_hwfn);

#endif /* _ECORE_INT_H_ */
