/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _ECORE_MFW_IF_H_
#define _ECORE_MFW_IF_H_

/**
 * @file
 * The management firmware's interface as the driver and the model both see
 * it: the SHMEM layout (the public data header and its sections, the driver
 * and MFW mailboxes, the global/port/function sections, nvm_cfg), the
 * mailbox command and response codes, the LOAD_REQ parameter and the
 * load_req/load_rsp records, the link_status bits and the eth_phy_cfg record
 * INIT_PHY carries.
 *
 * Everything is a byte offset inside a section (the SHMEM is reached a dword
 * at a time through GRC, little-endian), written from the public facts
 * (shared/facts/e4-ecore.md 2.1 and 2.9). Offsets the facts do not name were
 * read off the public mcp_public.h / nvm_cfg.h layouts and are marked
 * "assumption" in doc/e4.md's list of things to confirm on silicon.
 */

#include <stdbool.h>
#include <stdint.h>

/* ---- SHMEM discovery ---- */

/**
 * MISC_REG_SHARED_MEM_ADDR holds the public data's address; the driver ORs
 * in the MCP block base. 0 means "no MFW".
 */
#define MFW_PUBLIC_BASE_OR		0xe00000	/* GRCBASE_MCP */

/** mcp_public_data: num_sections at +0, then one offsize per section. */
#define MFW_PUBLIC_NUM_SECTIONS_OFF	0
#define MFW_PUBLIC_SECTIONS_OFF		4

/** The sections of the public data, in offsize-table order. */
enum mfw_section {
	MFW_SECTION_DRV_MB,	/**< one public_drv_mb per mailbox */
	MFW_SECTION_MFW_MB,	/**< one public_mfw_mb per mailbox */
	MFW_SECTION_GLOBAL,
	MFW_SECTION_PATH,	/**< per engine */
	MFW_SECTION_PORT,	/**< per port (MFW port) */
	MFW_SECTION_FUNC,	/**< per PF (MCP_PF_ID) */
	MFW_SECTION_MAX
};

/**
 * An offsize: b0-15 the section's offset from MCP_REG_SCRATCH in dwords,
 * b16-31 one element's size in dwords.
 */
static inline uint32_t
mfw_offsize(uint32_t off_dw, uint32_t size_dw)
{
	return (off_dw & 0xffff) | (size_dw << 16);
}

/** GRC address of element @p idx of the section @p offsize describes. */
static inline uint32_t
mfw_section_addr(uint32_t scratch, uint32_t offsize, uint32_t idx)
{
	return scratch + (offsize & 0xffff) * 4 + (offsize >> 16) * 4 * idx;
}

/** Mailboxes (and func sections) in SHMEM: one per PF of the adapter. */
#define MFW_MAX_MAILBOXES		16
#define MFW_MAX_PORTS			4
#define MFW_MAX_PATHS			2

/**
 * The mailbox index of a PF (MCP_PF_ID): on BB the relative PF with the
 * absolute PF's low bit in bit 3, on AH the relative PF.
 */
static inline uint32_t
mfw_mcp_pf_id(bool bb, uint32_t rel_pf_id, uint32_t abs_pf_id)
{
	return bb ? ((rel_pf_id & 0x7) | (abs_pf_id & 1) << 3) : rel_pf_id;
}

/* ---- public_drv_mb: the driver's mailbox (56 bytes) ---- */

#define DRV_MB_HEADER_OFF		0	/**< command | seq (driver writes) */
#define DRV_MB_PARAM_OFF		4
#define DRV_MB_FW_HEADER_OFF		8	/**< response code | seq (MFW writes) */
#define DRV_MB_FW_PARAM_OFF		12
#define DRV_MB_DRV_PULSE_OFF		16
#define DRV_MB_MCP_PULSE_OFF		20
#define DRV_MB_UNION_OFF		24	/**< union data in and out */
#define DRV_MB_UNION_SIZE		32
#define DRV_MB_SIZE			56

/** Header split: command (or response code) and sequence number. */
#define DRV_MSG_CODE_MASK		0xffff0000u
#define DRV_MSG_SEQ_NUMBER_MASK		0x0000ffffu
#define FW_MSG_CODE_MASK		0xffff0000u
#define FW_MSG_SEQ_NUMBER_MASK		0x0000ffffu

/* ---- public_mfw_mb: the MFW's message counters (44 bytes) ---- */

/** Number of message types the MFW supports; 0 until SHMEM is ready. */
#define MFW_MB_SUP_MSGS_OFF		0
/** msg[5]: one byte counter per message type, 4 per dword. */
#define MFW_MB_MSG_OFF			4
/** ack[]: the driver's copy of msg[] once handled, right after msg[] (see mfw_mb_ack_off()). */
#define MFW_MB_SIZE			44
#define MFW_MB_MAX_DWORDS		5
/** Message types the model supports (sup_msgs). */
#define MFW_DRV_MSG_MAX			20
/** The message types we handle. */
#define MFW_DRV_MSG_LINK_CHANGE		0

/** Dwords of msg[] for @p n message types. */
static inline uint32_t
mfw_msg_dwords(uint32_t n)
{
	return n == 0 ? 0 : ((n - 1) >> 2) + 1;
}

/** Offset of ack[] in public_mfw_mb when the MFW supports @p n message types. */
static inline uint32_t
mfw_mb_ack_off(uint32_t n)
{
	return MFW_MB_MSG_OFF + mfw_msg_dwords(n) * 4;
}

/** Message @p id's byte counter in @p dwords (msg[] or ack[]). */
static inline uint8_t
mfw_msg_count(const uint32_t *dwords, uint32_t id)
{
	return (uint8_t)(dwords[id >> 2] >> ((id & 3) * 8));
}

/** Add one to message @p id's byte counter (wraps at 256). */
static inline void
mfw_msg_bump(uint32_t *dwords, uint32_t id)
{
	uint32_t sh = (id & 3) * 8;
	uint32_t v = (uint8_t)((dwords[id >> 2] >> sh) + 1);

	dwords[id >> 2] = (dwords[id >> 2] & ~(0xffu << sh)) | v << sh;
}

/* ---- public_global, public_port, public_func (the fields we use) ---- */

#define MFW_GLOBAL_MAX_PATH_OFF		0
#define MFW_GLOBAL_MAX_PORTS_OFF	4
#define MFW_GLOBAL_MFW_VER_OFF		0x18
#define MFW_GLOBAL_SIZE			0x40

#define MFW_PATH_SIZE			0x40

/** public_port: link_status at +4. */
#define MFW_PORT_LINK_STATUS_OFF	4
#define MFW_PORT_SIZE			3200

/** public_func: the PF's MAC (upper: b0-15 = bytes 0-1; lower: bytes 2-5). */
#define MFW_FUNC_MAC_UPPER_OFF		0x30
#define MFW_FUNC_MAC_LOWER_OFF		0x34
#define MFW_FUNC_SIZE			120

/* ---- link_status ---- */

#define LINK_STATUS_LINK_UP			0x00000001u
#define LINK_STATUS_SPEED_AND_DUPLEX_MASK	0x0000001eu
#define LINK_STATUS_SPEED_AND_DUPLEX_SHIFT	1
#define LINK_STATUS_SPEED_1000THD		1	/* half duplex */
#define LINK_STATUS_SPEED_1000TFD		2
#define LINK_STATUS_SPEED_10G			3
#define LINK_STATUS_SPEED_20G			4
#define LINK_STATUS_SPEED_40G			5
#define LINK_STATUS_SPEED_50G			6
#define LINK_STATUS_SPEED_100G			7
#define LINK_STATUS_SPEED_25G			8
#define LINK_STATUS_AUTO_NEGOTIATE_ENABLED	0x00000020u
#define LINK_STATUS_AUTO_NEGOTIATE_COMPLETE	0x00000040u

/* ---- nvm_cfg (what hw_prepare reads: MISC_REG_GEN_PURP_CR0 points at it) ---- */

/** The dword at nvm_cfg + 4: nvm_cfg1's offset from MCP_REG_SCRATCH. */
#define NVM_CFG_NVM_CFG1_OFFSET_OFF	4
/** nvm_cfg1.glob.core_cfg: b0-7 network port mode. */
#define NVM_CFG1_GLOB_CORE_CFG_OFF	0x2c
#define NVM_CFG1_NETWORK_PORT_MODE_MASK	0xffu
/** nvm_cfg1.port[i] (per MFW port). */
#define NVM_CFG1_PORT_OFF		0x230
#define NVM_CFG1_PORT_SIZE		0x258
/** port speed_cap_mask: b0-15 the driver's advertised speeds (NVM_SPEED_CAP_*). */
#define NVM_CFG1_PORT_SPEED_CAP_OFF	0x14
/** port link_settings: b0-3 the driver's link speed (NVM_LINK_SPEED_*), b4-6 pause. */
#define NVM_CFG1_PORT_LINK_SETTINGS_OFF	0x18
#define NVM_CFG1_SIZE			0xc00

#define NVM_SPEED_CAP_1G		0x01
#define NVM_SPEED_CAP_10G		0x02
#define NVM_SPEED_CAP_25G		0x08
#define NVM_SPEED_CAP_40G		0x10
#define NVM_SPEED_CAP_50G		0x20
#define NVM_SPEED_CAP_100G		0x40

#define NVM_LINK_SPEED_MASK		0xfu
#define NVM_LINK_SPEED_AUTONEG		0x0
#define NVM_LINK_SPEED_1G		0x1
#define NVM_LINK_SPEED_10G		0x2
#define NVM_LINK_SPEED_25G		0x4
#define NVM_LINK_SPEED_40G		0x5
#define NVM_LINK_SPEED_50G		0x6
#define NVM_LINK_SPEED_100G		0x7
#define NVM_PAUSE_SHIFT			4
#define NVM_PAUSE_MASK			0x7u

/* ---- driver commands ---- */

#define DRV_MSG_CODE_LOAD_REQ			0x10000000u
#define DRV_MSG_CODE_LOAD_DONE			0x11000000u
#define DRV_MSG_CODE_INIT_HW			0x12000000u
#define DRV_MSG_CODE_CANCEL_LOAD_REQ		0x13000000u
#define DRV_MSG_CODE_UNLOAD_REQ			0x20000000u
#define DRV_MSG_CODE_UNLOAD_DONE		0x21000000u
#define DRV_MSG_CODE_INIT_PHY			0x22000000u
#define DRV_MSG_CODE_LINK_RESET			0x23000000u
#define DRV_MSG_CODE_NIG_DRAIN			0x30000000u
#define DRV_MSG_CODE_OV_UPDATE_DRIVER_STATE	0x31000000u
#define DRV_MSG_CODE_GET_RESOURCE_ALLOC_MSG	0x34000000u
#define DRV_MSG_CODE_VF_DISABLED_DONE		0xc0000000u
#define DRV_MSG_CODE_INITIATE_PF_FLR		0x02010000u
#define DRV_MSG_CODE_MCP_RESET			0x00090000u
#define DRV_MSG_CODE_SET_VERSION		0x000f0000u
#define DRV_MSG_CODE_RESOURCE_CMD		0x00230000u
#define DRV_MSG_CODE_FEATURE_SUPPORT		0x00300000u
#define DRV_MSG_CODE_GET_MFW_FEATURE_SUPPORT	0x00310000u

/* ---- MFW responses ---- */

#define FW_MSG_CODE_UNSUPPORTED			0x00000000u
#define FW_MSG_CODE_OK				0x00160000u
#define FW_MSG_CODE_DRV_LOAD_ENGINE		0x10100000u
#define FW_MSG_CODE_DRV_LOAD_PORT		0x10110000u
#define FW_MSG_CODE_DRV_LOAD_FUNCTION		0x10120000u
#define FW_MSG_CODE_DRV_LOAD_REFUSED_PDA	0x10200000u
#define FW_MSG_CODE_DRV_LOAD_REFUSED_HSI_1	0x10210000u
#define FW_MSG_CODE_DRV_LOAD_REFUSED_DIAG	0x10220000u
#define FW_MSG_CODE_DRV_LOAD_REFUSED_HSI	0x10230000u
#define FW_MSG_CODE_DRV_LOAD_REFUSED_REQUIRES_FORCE 0x10300000u
#define FW_MSG_CODE_DRV_LOAD_REFUSED_REJECT	0x10310000u
#define FW_MSG_CODE_DRV_LOAD_DONE		0x11100000u
#define FW_MSG_CODE_DRV_UNLOAD_ENGINE		0x20110000u
#define FW_MSG_CODE_DRV_UNLOAD_PORT		0x20120000u
#define FW_MSG_CODE_DRV_UNLOAD_FUNCTION		0x20130000u
#define FW_MSG_CODE_DRV_UNLOAD_DONE		0x21100000u
#define FW_MSG_CODE_RESOURCE_ALLOC_OK		0x34000000u

/* ---- LOAD_REQ ---- */

/** param: b0-15 PDA comp version, b16-23 MCP HSI version, b24-30 driver type, b31 INIT_HW. */
#define LOAD_REQ_PARAM_PDA_MASK		0x0000ffffu
#define LOAD_REQ_PARAM_HSI_SHIFT	16
#define LOAD_REQ_HSI_VERSION		2
#define LOAD_REQ_PARAM_DRV_TYPE_SHIFT	24
#define LOAD_REQ_DRV_TYPE_LINUX		1	/* what DPDK's driver says */
#define LOAD_REQ_PARAM_INIT_HW		0x80000000u

/** load_req_stc in the union data (16 bytes). */
#define LOAD_REQ_DRV_VER_0_OFF		0
#define LOAD_REQ_DRV_VER_1_OFF		4
#define LOAD_REQ_FW_VER_OFF		8
#define LOAD_REQ_MISC0_OFF		12
/** misc0: b0-7 role, b8-15 lock timeout, b16-19 force, b20-23 flags0. */
#define LOAD_REQ_MISC0_ROLE_SHIFT	0
#define LOAD_REQ_MISC0_LOCK_TO_SHIFT	8
#define LOAD_REQ_MISC0_FORCE_SHIFT	16
#define LOAD_REQ_MISC0_FLAGS0_SHIFT	20
#define LOAD_REQ_FORCE_NONE		0
#define LOAD_REQ_FORCE_PF		1
#define LOAD_REQ_FORCE_ALL		2
#define LOAD_REQ_FLAGS0_AVOID_RESET	0x1

/** Driver roles (load_req misc0 role). */
#define DRV_ROLE_NONE			0
#define DRV_ROLE_PREBOOT		1
#define DRV_ROLE_OS			2
#define DRV_ROLE_KDUMP			3

/** load_rsp_stc in the union data: misc0 b0-7 role (of the loaded driver), b8-15 HSI, b16-19 flags0. */
#define LOAD_RSP_DRV_VER_0_OFF		0
#define LOAD_RSP_DRV_VER_1_OFF		4
#define LOAD_RSP_FW_VER_OFF		8
#define LOAD_RSP_MISC0_OFF		12
#define LOAD_RSP_MISC0_HSI_SHIFT	8
#define LOAD_RSP_MISC0_FLAGS0_SHIFT	16
#define LOAD_RSP_FLAGS0_DRV_EXISTS	0x1

/* ---- UNLOAD_REQ param ---- */

#define UNLOAD_REQ_WOL_DISABLED		0x2

/* ---- OV_UPDATE_DRIVER_STATE param ---- */

#define OV_DRIVER_STATE_NOT_LOADED	0x2
#define OV_DRIVER_STATE_DISABLED	0x4
#define OV_DRIVER_STATE_ACTIVE		0x5

/* ---- eth_phy_cfg (INIT_PHY's union data, 24 bytes) ---- */

#define PHY_CFG_SPEED_OFF		0	/**< Mbps, 0 = autoneg */
#define PHY_CFG_PAUSE_OFF		4	/**< PHY_PAUSE_* */
#define PHY_CFG_ADV_SPEED_OFF		8	/**< NVM_SPEED_CAP_* bits */
#define PHY_CFG_LOOPBACK_OFF		12
#define PHY_CFG_EEE_OFF			16
#define PHY_CFG_LINK_MODES_OFF		20
#define PHY_CFG_SIZE			24
#define PHY_PAUSE_AUTONEG		0x1
#define PHY_PAUSE_RX			0x2
#define PHY_PAUSE_TX			0x4

/* ---- SET_VERSION's drv_version_stc (16 bytes) ---- */

#define DRV_VERSION_VERSION_OFF		0
#define DRV_VERSION_NAME_OFF		4
#define DRV_VERSION_NAME_SIZE		12

/* ---- GET_RESOURCE_ALLOC_MSG: resource_info in the union data (24 bytes) ---- */

#define RESOURCE_INFO_RES_ID_OFF	0
#define RESOURCE_INFO_SIZE_OFF		4
#define RESOURCE_INFO_OFFSET_OFF	8
#define RESOURCE_INFO_VF_SIZE_OFF	12
#define RESOURCE_INFO_VF_OFFSET_OFF	16
#define RESOURCE_INFO_FLAGS_OFF		20
#define RESOURCE_INFO_LEN		24
/** param: the resource-allocation HSI version, major.minor = 2.0. */
#define RESOURCE_ALLOC_VERSION		0x00020000u

/** Resource ids (resource_info.res_id) we ask for. */
#define MFW_RESOURCE_NUM_SB		0
#define MFW_RESOURCE_NUM_L2_QUEUE	1
#define MFW_RESOURCE_NUM_VPORT		2

/* ---- link speed codes <-> Mbps (shared, so both sides agree) ---- */

/** Mbps of a link_status speed/duplex code (0 if unknown). */
static inline uint32_t
mfw_link_speed_mbps(uint32_t code)
{
	switch (code) {
	case LINK_STATUS_SPEED_1000THD:
	case LINK_STATUS_SPEED_1000TFD: return 1000;
	case LINK_STATUS_SPEED_10G: return 10000;
	case LINK_STATUS_SPEED_20G: return 20000;
	case LINK_STATUS_SPEED_25G: return 25000;
	case LINK_STATUS_SPEED_40G: return 40000;
	case LINK_STATUS_SPEED_50G: return 50000;
	case LINK_STATUS_SPEED_100G: return 100000;
	}
	return 0;
}

/** The link_status speed/duplex code (full duplex) of @p mbps, 0 if none. */
static inline uint32_t
mfw_link_speed_code(uint32_t mbps)
{
	switch (mbps) {
	case 1000: return LINK_STATUS_SPEED_1000TFD;
	case 10000: return LINK_STATUS_SPEED_10G;
	case 20000: return LINK_STATUS_SPEED_20G;
	case 25000: return LINK_STATUS_SPEED_25G;
	case 40000: return LINK_STATUS_SPEED_40G;
	case 50000: return LINK_STATUS_SPEED_50G;
	case 100000: return LINK_STATUS_SPEED_100G;
	}
	return 0;
}

#endif /* _ECORE_MFW_IF_H_ */
