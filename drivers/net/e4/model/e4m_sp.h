/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _E4M_SP_H_
#define _E4M_SP_H_

/**
 * @file
 * What the model's slow-path part (e4m_sp.c) saw, per PF and per status
 * block: for tests.
 */

#include <stdbool.h>
#include <stdint.h>

#include "e4_model.h"

/** IGU SBs the model gives each PF: CAM lines pf * 16 .. pf * 16 + 15, the first its default SB. */
#define E4M_SBS_PER_PF 16

/** One PF's slow path as the model sees it. */
struct e4m_sp_pf_stats {
	uint32_t igu_conf;		/**< IGU_REG_PF_CONFIGURATION last written */
	uint64_t attn_addr;		/**< attention SB address (0: not set) */
	uint32_t atten_bits;		/**< lines asserted now */
	uint32_t atten_ack;		/**< lines the driver acked (ATTN_BIT_SET/CLR) */
	uint16_t attn_index;		/**< attention SB sb_index */
	uint32_t attn_sb_acks;		/**< IGU acks of the attention segment */
	bool started;			/**< PF_START seen, PF_STOP not */
	uint16_t eq_sb;			/**< from PF_START */
	uint8_t eq_pi;
	uint8_t eq_pages;
	uint16_t eq_prod;		/**< EQEs the model produced (u16) */
	uint16_t eq_cons;		/**< the driver's USTORM_EQE_CONS */
	uint16_t spq_cons;		/**< SPQEs the model consumed (u16) */
	uint32_t spq_cid;		/**< CID of the last SPQ doorbell */
	uint64_t ramrods;		/**< SPQEs consumed */
	uint64_t eth_ramrods;		/**< ... of which ETH (completed OK, not executed) */
	uint64_t unknown_ramrods;	/**< ... completed with E4M_RC_UNSUPPORTED */
	uint64_t eqes;			/**< EQEs written */
	uint64_t eqes_late;		/**< ... of which after E4M_FAULT_EQE_LATE's delay */
	uint64_t swallowed;		/**< ramrods never completed (E4M_FAULT_EQE_NEVER) */
	uint64_t eq_drops;		/**< EQEs dropped: EQ full, not started, bad address */
	uint64_t spq_faults;		/**< SPQ doorbells that found no context / ring */
	uint64_t attn_drops;		/**< attentions with no attention SB address */
};

/** One IGU SB as the model sees it. */
struct e4m_sb_stats {
	uint64_t addr;			/**< host address (CAU), 0 if unknown */
	uint32_t prod_index;		/**< last prod_index written */
	uint32_t last_ack;		/**< index of the last ack (register segment) */
	uint8_t last_int_cmd;		/**< enum igu_int_cmd of the last ack */
	uint64_t acks;			/**< IGU ack commands */
	uint64_t updates;		/**< status-block writes */
	uint64_t msgs;			/**< MSI-X messages sent for it */
	bool msg_pending;		/**< sent, not re-enabled by an IGU_INT_ENABLE ack yet */
};

/** Ramrod return code for a ramrod the model does not know. */
#define E4M_RC_UNSUPPORTED 0xfe

/** Copy PF @p pf's slow-path state. @return -EINVAL for a bad PF. */
int e4m_sp_pf_stats_get(struct e4m_dev *m, unsigned int pf, struct e4m_sp_pf_stats *st);
/** Copy IGU SB @p sb's state. @return -EINVAL for a bad SB. */
int e4m_sb_stats_get(struct e4m_dev *m, unsigned int sb, struct e4m_sb_stats *st);
/** Doorbells that were not SPQ doorbells (the L2 part will take them). */
uint64_t e4m_sp_other_doorbells(struct e4m_dev *m);

#endif /* _E4M_SP_H_ */
