/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _ECORE_MCP_H_
#define _ECORE_MCP_H_

/**
 * @file
 * The management firmware (MFW) interface (the guide's chapter "Management
 * firmware [MFW] interface"): SHMEM discovery, the driver mailbox (one
 * command pending; a reply counts only with the command's sequence number),
 * LOAD_REQ/LOAD_DONE/UNLOAD_REQ/UNLOAD_DONE, INITIATE_PF_FLR, the link
 * (INIT_PHY/LINK_RESET, link_status from SHMEM, asynchronous LINK_CHANGE
 * messages), SET_VERSION, NIG_DRAIN and the resource messages with their
 * fallback to built-in defaults.
 *
 * mcp_info (struct ecore_mcp_info) is allocated by ecore_mcp_cmd_init() and
 * freed by ecore_mcp_free(); every other call needs it.
 */

#include "ecore.h"
#include "ecore_mfw_if.h"

struct ecore_ptt;

/** Mailbox reply timeout by default (the guide's 5 s: 500k polls of 10 us). */
#define ECORE_MCP_DEFAULT_TIMEOUT_MS	5000
/** How long cmd_init waits for sup_msgs != 0 (20 x 50 ms). */
#define ECORE_MCP_SHMEM_READY_MS	1000

/* ---- the mailbox sequence rules (pure: unit-tested without a device) ---- */

/** The sequence number after @p seq (16 bits, wraps 0xffff -> 0). */
uint16_t ecore_mcp_seq_next(uint16_t seq);
/** The drv_mb_header value of @p cmd sent with @p seq. */
uint32_t ecore_mcp_mb_header(uint32_t cmd, uint16_t seq);
/** Whether fw_mb_header @p fw_header answers the command sent with @p seq. */
bool ecore_mcp_reply_matches(uint32_t fw_header, uint16_t seq);
/** The response code of fw_mb_header @p fw_header (FW_MSG_CODE_*). */
uint32_t ecore_mcp_reply_code(uint32_t fw_header);
/**
 * Words for a LOAD_REQ answer: "engine", "port", "function", or the refusal
 * ("refused: PDA", "refused: HSI", "refused: DIAG", "refused: requires force",
 * "refused: REJECT"), else "unknown".
 */
const char *ecore_mcp_load_code_str(uint32_t code);
/** Whether @p code is one of the LOAD_REQ refusals. */
bool ecore_mcp_load_code_is_refusal(uint32_t code);
/** Words for an UNLOAD_REQ answer ("engine", "port", "function", "unknown"). */
const char *ecore_mcp_unload_code_str(uint32_t code);

/* ---- set-up ---- */

/**
 * Find SHMEM and this PF's mailbox: SHARED_MEM_ADDR (0: ECORE_NODEV, "no
 * MFW"), the sections, the mailbox index (MCP_PF_ID), the current sequence
 * number, sup_msgs != 0 within ECORE_MCP_SHMEM_READY_MS (else
 * ECORE_TIMEOUT); reads the MFW version and the PF's MAC into
 * p_hwfn->hw_info and the port's default link configuration (nvm_cfg) into
 * the link parameters. Allocates p_hwfn->mcp_info (freed again on failure).
 */
enum _ecore_status_t ecore_mcp_cmd_init(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt);
/** Free mcp_info (none is fine). */
void ecore_mcp_free(struct ecore_hwfn *p_hwfn);
/** Mailbox reply timeout in ms (default ECORE_MCP_DEFAULT_TIMEOUT_MS); tests shorten it. */
void ecore_mcp_set_timeout_ms(struct ecore_hwfn *p_hwfn, uint32_t ms);

/* ---- the mailbox ---- */

/** One mailbox exchange with union data in and out (either may be NULL). */
struct ecore_mcp_mb_params {
	uint32_t cmd;			/**< DRV_MSG_CODE_* */
	uint32_t param;
	const void *data_in;		/**< written to the union data before the command */
	uint32_t data_in_len;		/**< bytes, <= DRV_MB_UNION_SIZE, multiple of 4 */
	void *data_out;			/**< the union data read back after the reply */
	uint32_t data_out_len;
	uint32_t mcp_resp;		/**< out: FW_MSG_CODE_* */
	uint32_t mcp_param;		/**< out: fw_mb_param */
};

/**
 * Send @p p->cmd and wait for the reply with the same sequence number,
 * polling every 10 us up to the mailbox timeout.
 * @return 0, ECORE_TIMEOUT (no reply: logged with the command), ECORE_INVAL
 *   (bad lengths) or ECORE_NODEV (no MFW).
 */
enum _ecore_status_t ecore_mcp_cmd_and_union(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt,
					     struct ecore_mcp_mb_params *p);
/** One mailbox exchange without union data (the guide's ecore_mcp_cmd). */
enum _ecore_status_t ecore_mcp_cmd(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt,
				   uint32_t cmd, uint32_t param, uint32_t *o_resp,
				   uint32_t *o_param);

/* ---- load / unload ---- */

/** INITIATE_PF_FLR (sent at probe: clears what an unclean exit left loaded). */
enum _ecore_status_t ecore_mcp_initiate_pf_flr(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt);

/** When a LOAD_REQ refused with REQUIRES_FORCE may be sent again with force. */
enum ecore_override_force_load {
	ECORE_OVERRIDE_FORCE_LOAD_NONE,		/**< force only over a preboot/kdump driver */
	ECORE_OVERRIDE_FORCE_LOAD_ALWAYS,	/**< always force */
	ECORE_OVERRIDE_FORCE_LOAD_NEVER,	/**< never force */
};

struct ecore_load_req_params {
	uint8_t drv_role;		/**< DRV_ROLE_* (0: DRV_ROLE_OS) */
	uint8_t timeout_val;		/**< MFW lock timeout, s (0: the MFW's default) */
	bool avoid_eng_reset;
	uint8_t override_force_load;	/**< enum ecore_override_force_load */
	uint32_t load_code;		/**< out: FW_MSG_CODE_DRV_LOAD_* (or the refusal) */
};

/**
 * LOAD_REQ with load_req_stc (role, lock timeout, force, drv_version).
 * @return 0 with p->load_code ENGINE/PORT/FUNCTION (also in
 *   p_hwfn->load_code); ECORE_CANCELED for a refusal (p->load_code is the
 *   refusal, logged in words); ECORE_TIMEOUT; ECORE_IO for an answer that is
 *   neither.
 */
enum _ecore_status_t ecore_mcp_load_req(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt,
					struct ecore_load_req_params *p);
/** LOAD_DONE. */
enum _ecore_status_t ecore_mcp_load_done(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt);
/**
 * UNLOAD_REQ (WoL disabled). The answer (FW_MSG_CODE_DRV_UNLOAD_*) is
 * recorded: ecore_mcp_get_unload_code().
 * @return 0, ECORE_TIMEOUT, or ECORE_IO for an answer that is no UNLOAD_* code.
 */
enum _ecore_status_t ecore_mcp_unload_req(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt);
/** The last UNLOAD_REQ answer (0 before any). */
uint32_t ecore_mcp_get_unload_code(struct ecore_hwfn *p_hwfn);
/** UNLOAD_DONE. */
enum _ecore_status_t ecore_mcp_unload_done(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt);
/** How long NIG_DRAIN asks the MFW to drain (its param, ms). */
#define ECORE_MCP_DRAIN_MS	100
/**
 * NIG_DRAIN: the MFW drains the port's NIG for ECORE_MCP_DRAIN_MS; returns
 * after the reply and that time (+ 20 ms) have passed.
 */
enum _ecore_status_t ecore_mcp_drain(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt);
/** SET_VERSION with drv_version_stc (@p name: up to 12 bytes are sent). */
enum _ecore_status_t ecore_mcp_send_drv_version(struct ecore_hwfn *p_hwfn,
						struct ecore_ptt *p_ptt, uint32_t version,
						const char *name);
/** OV_UPDATE_DRIVER_STATE with @p state (OV_DRIVER_STATE_*). */
enum _ecore_status_t ecore_mcp_ov_update_driver_state(struct ecore_hwfn *p_hwfn,
						      struct ecore_ptt *p_ptt, uint32_t state);

/* ---- link ---- */

/** What INIT_PHY asks for (defaults from nvm_cfg at cmd_init; the caller may change them). */
struct ecore_mcp_link_params {
	bool autoneg;			/**< speed by autonegotiation */
	uint32_t forced_speed;		/**< Mbps when !autoneg */
	uint32_t advertised_speeds;	/**< NVM_SPEED_CAP_* bits */
	uint32_t pause;			/**< PHY_PAUSE_* bits */
	uint32_t loopback_mode;
};

/** The link as the MFW reported it last (link_status). */
struct ecore_mcp_link_state {
	bool link_up;
	uint32_t speed;			/**< Mbps, 0 when down */
	bool full_duplex;
	bool an;			/**< autonegotiation enabled */
	bool an_complete;
	uint32_t raw;			/**< link_status as read */
};

/** The link parameters INIT_PHY sends (change them before ecore_mcp_set_link()). */
struct ecore_mcp_link_params *ecore_mcp_get_link_params(struct ecore_hwfn *p_hwfn);
/** The link state (NULL before cmd_init). */
const struct ecore_mcp_link_state *ecore_mcp_get_link_state(struct ecore_hwfn *p_hwfn);
/**
 * INIT_PHY with the link parameters (@p up) or LINK_RESET (!@p up), then
 * read link_status from SHMEM as after a link-change message.
 */
enum _ecore_status_t ecore_mcp_set_link(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt,
					bool up);
/** Called (from the attention path) on every link change; @p cb NULL removes it. */
void ecore_mcp_set_link_cb(struct ecore_hwfn *p_hwfn,
			   void (*cb)(struct ecore_hwfn *p_hwfn, void *arg), void *arg);
/** Link changes seen (LINK_CHANGE messages and set_link), for tests and stats. */
uint32_t ecore_mcp_link_change_count(struct ecore_hwfn *p_hwfn);

/**
 * Handle the MFW's messages (the MCP-event attention, ECORE_ATTN_BIT_MCP_EVENT):
 * compare mfw_mb msg[] with the acks, handle LINK_CHANGE (re-read
 * link_status, count it, call the link callback), ack them all. The caller
 * then cleans MISC_REG_AEU_GENERAL_ATTN_0 + rel_pf_id * 8.
 * @return 0, or ECORE_INVAL before cmd_init.
 */
enum _ecore_status_t ecore_mcp_handle_events(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt);

/* ---- resources ---- */

/** Where ecore_mcp_get_resources() took the numbers from. */
enum ecore_resc_source {
	ECORE_RESC_SOURCE_NONE,
	ECORE_RESC_SOURCE_MFW,		/**< the MFW answered RESOURCE_ALLOC_OK */
	ECORE_RESC_SOURCE_DEFAULTS,	/**< UNSUPPORTED (or another answer): built-in defaults */
};

/**
 * Ask the MFW for this PF's SBs, L2 queues and vports (GET_RESOURCE_ALLOC_MSG);
 * when it answers UNSUPPORTED (or anything but RESOURCE_ALLOC_OK), use the
 * built-in defaults per chip (its limit divided by its PFs). Fills
 * p_hwfn->hw_info.num_* and logs the source.
 * @return 0, or ECORE_TIMEOUT.
 */
enum _ecore_status_t ecore_mcp_get_resources(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt);
/** The source of the last ecore_mcp_get_resources(). */
enum ecore_resc_source ecore_mcp_resc_source(struct ecore_hwfn *p_hwfn);

/* ---- for tests and logs ---- */

/** The mailbox index (MCP_PF_ID) cmd_init used. */
uint32_t ecore_mcp_get_mb_index(struct ecore_hwfn *p_hwfn);
/** The next sequence number the mailbox will use. */
uint16_t ecore_mcp_get_seq(struct ecore_hwfn *p_hwfn);

#endif /* _ECORE_MCP_H_ */
