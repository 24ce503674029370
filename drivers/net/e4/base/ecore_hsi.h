/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _ECORE_HSI_H_
#define _ECORE_HSI_H_

/**
 * @file
 * The host/firmware interface of the slow path, as the device sees it in
 * host memory and on the bus: status blocks, IGU commands, CAU entries,
 * SPQ elements and ramrod data, event-ring entries, doorbell values, ILT
 * entries and the core connection context. Our own definitions, written from
 * the public facts (shared/facts/e4-ecore.md sections 2.4-2.8, 2.11; the 8.42
 * firmware's layouts). Every multi-byte field is little-endian on the device:
 * read and write them with OMNI_LE16/32/64 (a no-op on x86).
 *
 * Used by the base layer and by the model (one definition for both sides).
 */

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>

/* ---- status blocks ---- */

/** Protocol indices in a status block. */
#define ECORE_SB_PI_NUM 12

/** A status block (32 B): the device writes it; the driver reads it. */
struct status_block {
	uint16_t pi_array[ECORE_SB_PI_NUM];	/**< per protocol index: a running u16 */
	uint32_t sb_num;			/**< bits 0-8: the SB number */
	uint32_t prod_index;			/**< bits 0-23: changes on every update */
};
#define ECORE_SB_NUM_MASK	0x1ffu
#define ECORE_SB_PROD_MASK	0xffffffu
static_assert(sizeof(struct status_block) == 32, "status_block is 32 B");
static_assert(offsetof(struct status_block, sb_num) == 24, "sb_num @24");
static_assert(offsetof(struct status_block, prod_index) == 28, "prod_index @28");

/** The attention status block (16 B). */
struct atten_status_block {
	uint32_t atten_bits;	/**< attention lines now asserted */
	uint32_t atten_ack;	/**< lines the driver acknowledged (IGU ATTN_BIT_SET) */
	uint16_t reserved0;
	uint16_t sb_index;	/**< changes on every update */
	uint32_t reserved1;
};
static_assert(sizeof(struct atten_status_block) == 16, "atten_status_block is 16 B");
static_assert(offsetof(struct atten_status_block, sb_index) == 10, "sb_index @10");

/** The attention lines a PF tracks (12; the low 10 are maskable in the IGU). */
#define ECORE_ATTN_STATE_BITS	0xfffu

/* ---- IGU producer/consumer update (the dword written to an SB's IGU command) ---- */

#define IGU_PROD_CONS_SB_INDEX_MASK	0xffffffu	/**< bits 0-23: the index acked */
#define IGU_PROD_CONS_UPDATE_FLAG	(1u << 24)	/**< update the index */
#define IGU_PROD_CONS_INT_CMD_SHIFT	25		/**< bits 25-26: enum igu_int_cmd */
#define IGU_PROD_CONS_INT_CMD_MASK	0x3u
#define IGU_PROD_CONS_SEGMENT_SHIFT	27		/**< bit 27: enum igu_seg_access */

/** What an ack does to the SB's interrupt line. */
enum igu_int_cmd {
	IGU_INT_ENABLE = 0,
	IGU_INT_DISABLE = 1,
	IGU_INT_NOP = 2,
};

/** Which segment an ack updates: the SB's index, or the attention index. */
enum igu_seg_access {
	IGU_SEG_ACCESS_REG = 0,
	IGU_SEG_ACCESS_ATTN = 1,
};

/** The IGU prod/cons update dword. */
static inline uint32_t
ecore_igu_ack_word(uint32_t index, enum igu_int_cmd cmd, bool update, enum igu_seg_access seg)
{
	return (index & IGU_PROD_CONS_SB_INDEX_MASK) | (update ? IGU_PROD_CONS_UPDATE_FLAG : 0) |
		((uint32_t)cmd << IGU_PROD_CONS_INT_CMD_SHIFT) |
		((uint32_t)seg << IGU_PROD_CONS_SEGMENT_SHIFT);
}

/* ---- IGU CAM line (IGU_REG_MAPPING_MEMORY + 4 * sb) ---- */

#define IGU_MAPPING_LINE_VALID		(1u << 0)
#define IGU_MAPPING_LINE_VECTOR_SHIFT	1	/**< bits 1-8: MSI-X vector (0: default SB) */
#define IGU_MAPPING_LINE_VECTOR_MASK	0xffu
#define IGU_MAPPING_LINE_FUNC_SHIFT	9	/**< bits 9-16: function (PF: relative PF id) */
#define IGU_MAPPING_LINE_FUNC_MASK	0xffu
#define IGU_MAPPING_LINE_PF_VALID	(1u << 17)

/* ---- CAU status-block entry (CAU_REG_SB_VAR_MEMORY + 8 * sb) ---- */

/** One SB's coalescing state in the CAU (8 B). */
struct cau_sb_entry {
	uint32_t data;		/**< bits 0-23 SB producer, 24-27 Rx state, 28-31 Tx state */
	uint32_t params;	/**< timesets, timer resolutions, VF/PF number */
};
static_assert(sizeof(struct cau_sb_entry) == 8, "cau_sb_entry is 8 B");
#define CAU_SB_ENTRY_STATE0_SHIFT	24
#define CAU_SB_ENTRY_STATE1_SHIFT	28
#define CAU_SB_ENTRY_TIMESET0_SHIFT	0	/**< 7 bits */
#define CAU_SB_ENTRY_TIMESET1_SHIFT	7	/**< 7 bits */
#define CAU_SB_ENTRY_TIMER_RES0_SHIFT	14	/**< 2 bits */
#define CAU_SB_ENTRY_TIMER_RES1_SHIFT	16	/**< 2 bits */
#define CAU_SB_ENTRY_VF_NUMBER_SHIFT	18	/**< 8 bits */
#define CAU_SB_ENTRY_VF_VALID_SHIFT	26
#define CAU_SB_ENTRY_PF_NUMBER_SHIFT	27	/**< 4 bits */
/** Host-coalescing state machine states. */
#define CAU_HC_ENABLE_STATE		0
#define CAU_HC_DISABLE_STATE		4

/* ---- protocols, ramrods, event-ring opcodes ---- */

/** Protocol ids of ramrod headers and EQEs. */
enum protocol_type {
	PROTOCOLID_ISCSI = 0,
	PROTOCOLID_FCOE = 1,
	PROTOCOLID_ROCE = 2,
	PROTOCOLID_CORE = 3,
	PROTOCOLID_ETH = 4,
	PROTOCOLID_IWARP = 5,
	PROTOCOLID_TOE = 6,
	PROTOCOLID_PREROCE = 7,
	PROTOCOLID_COMMON = 8,
	PROTOCOLID_TCP = 9,
};

/** COMMON ramrod command ids (in the SPQE header). */
enum common_ramrod_cmd_id {
	COMMON_RAMROD_PF_START = 1,
	COMMON_RAMROD_PF_STOP = 2,
	COMMON_RAMROD_VF_START = 3,
	COMMON_RAMROD_VF_STOP = 4,
	COMMON_RAMROD_PF_UPDATE = 5,
	COMMON_RAMROD_RL_UPDATE = 6,
	COMMON_RAMROD_EMPTY = 7,	/**< heartbeat: no data, completes at once */
};

/** COMMON event-ring opcodes (not the same numbers as the command ids). */
enum common_event_opcode {
	COMMON_EVENT_PF_START = 0,
	COMMON_EVENT_PF_STOP = 1,
	COMMON_EVENT_VF_START = 2,
	COMMON_EVENT_VF_STOP = 3,
	COMMON_EVENT_VF_PF_CHANNEL = 4,
	COMMON_EVENT_VF_FLR = 5,
	COMMON_EVENT_PF_UPDATE = 6,
	COMMON_EVENT_MALICIOUS_VF = 7,
	COMMON_EVENT_RL_UPDATE = 8,
	COMMON_EVENT_EMPTY = 9,
};

/** ETH ramrod command ids. */
enum eth_ramrod_cmd_id {
	ETH_RAMROD_VPORT_START = 1,
	ETH_RAMROD_VPORT_UPDATE = 2,
	ETH_RAMROD_VPORT_STOP = 3,
	ETH_RAMROD_RX_QUEUE_START = 4,
	ETH_RAMROD_RX_QUEUE_STOP = 5,
	ETH_RAMROD_TX_QUEUE_START = 6,
	ETH_RAMROD_TX_QUEUE_STOP = 7,
	ETH_RAMROD_FILTERS_UPDATE = 8,
	ETH_RAMROD_RX_QUEUE_UPDATE = 9,
	ETH_RAMROD_TX_QUEUE_UPDATE = 17,
};

/** ETH event-ring opcodes. */
enum eth_event_opcode {
	ETH_EVENT_UNUSED = 0,
	ETH_EVENT_VPORT_START = 1,
	ETH_EVENT_VPORT_UPDATE = 2,
	ETH_EVENT_VPORT_STOP = 3,
	ETH_EVENT_TX_QUEUE_START = 4,
	ETH_EVENT_TX_QUEUE_STOP = 5,
	ETH_EVENT_RX_QUEUE_START = 6,
	ETH_EVENT_RX_QUEUE_UPDATE = 7,
	ETH_EVENT_RX_QUEUE_STOP = 8,
	ETH_EVENT_FILTERS_UPDATE = 9,
};

/* ---- SPQ element (16 B) ---- */

/** The header of every ramrod. */
struct ramrod_header {
	uint32_t cid;		/**< the connection the ramrod is for */
	uint8_t cmd_id;		/**< enum common/eth_ramrod_cmd_id */
	uint8_t protocol_id;	/**< enum protocol_type */
	uint16_t echo;		/**< the SPQ producer at post time; comes back in the EQE */
};
static_assert(sizeof(struct ramrod_header) == 8, "ramrod_header is 8 B");

/** A slow-path queue element. */
struct slow_path_element {
	struct ramrod_header hdr;
	uint32_t data_lo;	/**< host address of the ramrod data (low dword) */
	uint32_t data_hi;
};
static_assert(sizeof(struct slow_path_element) == 16, "slow_path_element is 16 B");
static_assert(offsetof(struct slow_path_element, hdr.echo) == 6, "echo @6");

/* ---- event ring entry (16 B) ---- */

/** An EQ element: the completion of a ramrod (or an asynchronous event). */
struct event_ring_entry {
	uint8_t protocol_id;
	uint8_t opcode;		/**< enum common/eth_event_opcode */
	uint8_t reserved0;
	uint8_t vf_id;		/**< 0xff for a PF's own event */
	uint16_t echo;		/**< the ramrod's echo */
	uint8_t fw_return_code;	/**< 0 = OK */
	uint8_t flags;		/**< bit 0: asynchronous event */
	uint32_t data_lo;	/**< event data (e.g. a VF message address) */
	uint32_t data_hi;
};
static_assert(sizeof(struct event_ring_entry) == 16, "event_ring_entry is 16 B");
#define EVENT_RING_ENTRY_FLAG_ASYNC	0x1u
#define EVENT_RING_VF_ID_PF		0xffu

/* ---- PF_START ramrod data (72 B in 8.40/8.42; PF_STOP has none) ---- */

/** HSI version the driver speaks, per protocol (ETH = index 0). */
struct hsi_fp_ver {
	uint8_t minor_ver_arr[2];
	uint8_t major_ver_arr[2];
};
#define ETH_VER_KEY		0
#define ETH_HSI_VER_MAJOR	3
#define ETH_HSI_VER_MINOR	11

/** Driver personalities in PF_START. */
enum personality_type {
	PERSONALITY_ISCSI = 1,
	PERSONALITY_FCOE = 2,
	PERSONALITY_RDMA_AND_ETH = 3,
	PERSONALITY_RDMA = 4,
	PERSONALITY_CORE = 5,
	PERSONALITY_ETH = 6,
	PERSONALITY_TOE = 7,
};

struct pf_start_ramrod_data {
	uint32_t event_ring_pbl_lo;	/**< @0: the EQ's page table */
	uint32_t event_ring_pbl_hi;
	uint32_t consolid_q_pbl_lo;	/**< @8: not used by an L2 PF (0) */
	uint32_t consolid_q_pbl_hi;
	uint8_t tunnel_config[20];	/**< @16: tunnel flags and UDP ports (all 0: none) */
	uint16_t event_ring_sb_id;	/**< @36: IGU SB id of the slow-path SB */
	uint8_t base_vf_id;		/**< @38 */
	uint8_t num_vfs;		/**< @39 */
	uint8_t event_ring_num_pages;	/**< @40 */
	uint8_t event_ring_sb_index;	/**< @41: the SB's PI that carries the EQ producer */
	uint8_t path_id;		/**< @42: engine */
	uint8_t warning_as_error;	/**< @43 */
	uint8_t dont_log_ramrods;	/**< @44 */
	uint8_t personality;		/**< @45: enum personality_type */
	uint16_t log_type_mask;		/**< @46 */
	uint8_t mf_mode;		/**< @48 */
	uint8_t integ_phase;		/**< @49 */
	uint8_t allow_npar_tx_switching;	/**< @50 */
	uint8_t reserved0;
	struct hsi_fp_ver hsi_fp_ver;	/**< @52 */
	uint8_t outer_tag_config[16];	/**< @56: S-tag settings (0: none) */
};
static_assert(sizeof(struct pf_start_ramrod_data) == 72, "pf_start_ramrod_data is 72 B");
static_assert(offsetof(struct pf_start_ramrod_data, event_ring_sb_id) == 36, "sb_id @36");
static_assert(offsetof(struct pf_start_ramrod_data, event_ring_num_pages) == 40, "pages @40");
static_assert(offsetof(struct pf_start_ramrod_data, personality) == 45, "personality @45");
static_assert(offsetof(struct pf_start_ramrod_data, hsi_fp_ver) == 52, "hsi_fp_ver @52");

/* ---- doorbells ---- */

/** core/eth doorbell data params: bits 0-1 DEST, 2-3 AGG_CMD, 6-7 AGG_VAL_SEL. */
#define DB_DEST_XCM		0
#define DB_AGG_CMD_SET		1
#define DB_AGG_CMD_MAX		3
#define DB_AGG_VAL_SEL_WORD4	2	/**< SPQ producer (core) / Tx BD producer (eth) */
#define DB_PARAMS_DEST_SHIFT	0
#define DB_PARAMS_AGG_CMD_SHIFT	2
#define DB_PARAMS_AGG_VAL_SEL_SHIFT 6
#define DB_AGG_FLAG_DQ_CF	0x10	/**< DQ_XCM_CORE_DQ_CF_CMD (CF18) */

/** The SPQ doorbell: spq_prod << 16 | agg_flags DQ_CF << 8 | params (XCM, MAX, WORD4). */
static inline uint32_t
ecore_spq_db_value(uint16_t spq_prod)
{
	uint32_t params = DB_DEST_XCM << DB_PARAMS_DEST_SHIFT |
		DB_AGG_CMD_MAX << DB_PARAMS_AGG_CMD_SHIFT |
		DB_AGG_VAL_SEL_WORD4 << DB_PARAMS_AGG_VAL_SEL_SHIFT;

	return (uint32_t)spq_prod << 16 | (uint32_t)DB_AGG_FLAG_DQ_CF << 8 | params;
}
static_assert((DB_DEST_XCM << DB_PARAMS_DEST_SHIFT |
	       DB_AGG_CMD_MAX << DB_PARAMS_AGG_CMD_SHIFT |
	       DB_AGG_VAL_SEL_WORD4 << DB_PARAMS_AGG_VAL_SEL_SHIFT |
	       DB_AGG_FLAG_DQ_CF << 8) == 0x108c,
	      "SPQ doorbell low half is 0x108C");

/* ---- ILT ---- */

/** An ILT line (64 bits): bits 0-51 host address >> 12, bit 52 valid. */
#define ILT_ENTRY_ADDR_MASK	0x000fffffffffffffULL
#define ILT_ENTRY_VALID		(1ULL << 52)
/** The page-size code the PF uses (ILT page = 1 << (code + 12) = 64 KiB). */
#define ILT_PAGE_SIZE_CODE	4
#define ILT_PAGE_SIZE		(1u << (ILT_PAGE_SIZE_CODE + 12))

/* ---- connection contexts ---- */

/** One connection context in ILT memory: union of core (896 B) and eth (800 B). */
#define ECORE_CONN_CXT_SIZE	896
/** xstorm_core_conn_st_ctx inside the core connection context. */
#define CORE_CONN_CXT_XSTORM_ST_OFFSET	128
/** ... its spq_base_lo/hi and spq_cons (the SPQ ring, found by the firmware). */
#define XSTORM_CORE_SPQ_BASE_LO		(CORE_CONN_CXT_XSTORM_ST_OFFSET + 0)
#define XSTORM_CORE_SPQ_BASE_HI		(CORE_CONN_CXT_XSTORM_ST_OFFSET + 4)
#define XSTORM_CORE_SPQ_CONS		(CORE_CONN_CXT_XSTORM_ST_OFFSET + 16)
static_assert(ECORE_CONN_CXT_SIZE % 64 == 0, "connection contexts are cache-aligned");

/* ---- chains (facts 2.4) ---- */

/** Chain page size. */
#define ECORE_CHAIN_PAGE_SIZE	4096u

#endif /* _ECORE_HSI_H_ */
