/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _HFI1_REGS_H_
#define _HFI1_REGS_H_

/**
 * @file
 * hfi1 (Omni-Path HFI, "WFR") CSR offsets and fields used by net_hfi1.
 *
 * Offsets are BAR0 byte offsets; every CSR is 64 bits wide. The numbers are
 * the public ones of Linux's hfi1 driver (chip_registers.h, chip.h, sdma.h,
 * common.h), collected in shared/facts/opa-vnic.md section 4. Fields whose
 * meaning is inferred rather than published are marked ASSUMPTION and
 * listed in doc/hfi1.md.
 */

#include <stdint.h>

/* BAR0 blocks. */
#define HFI1_CCE		0x0000000u
#define HFI1_DCC		0x0600000u
#define HFI1_RXE		0x1000000u
#define HFI1_TXE		0x1800000u
/** BAR0 size; it must equal TXE_PIO_SEND + 32 MiB. */
#define HFI1_BAR0_SIZE		(64u << 20)

/* Chip resources. */
#define HFI1_CHIP_RCV_CONTEXTS	160
#define HFI1_CHIP_SDMA_ENGINES	16

/* ---- DCC: port configuration written by the SMA ---- */
#define HFI1_DCC_PORT_CONFIG		(HFI1_DCC + 0x08)
#define HFI1_DCC_PORT_CONFIG_MTU_CAP_SHIFT	32	/**< OPA MTU enum, 3 bits */
#define HFI1_DCC_PORT_CONFIG_LINK_STATE_SHIFT	48	/**< 3 bits */
#define HFI1_DCC_PORT_CONFIG1		(HFI1_DCC + 0x10)
#define HFI1_DCC_PORT_CONFIG1_TARGET_DLID_MASK	0xFFFFull
#define HFI1_DCC_SC_VL_TABLE_15_0	(HFI1_DCC + 0x28)	/**< 4 bits per SC */
#define HFI1_DCC_SC_VL_TABLE_31_16	(HFI1_DCC + 0x30)
/** Link state value meaning "active" (IB PortState encoding). ASSUMPTION. */
#define HFI1_LINK_STATE_ACTIVE	4

/* ---- RXE global ---- */
#define HFI1_RCV_CTRL			(HFI1_RXE + 0x000)
#define HFI1_RCV_CTRL_PORT_ENABLE	0x1ull
#define HFI1_RCV_CTRL_PKEY_ENABLE	0x4ull
#define HFI1_RCV_CTRL_BYPASS_ENABLE	0x10ull
#define HFI1_RCV_CTRL_RSM_ENABLE	0x20ull
#define HFI1_RCV_ARRAY_CNT		(HFI1_RXE + 0x018)
#define HFI1_RCV_BYPASS			(HFI1_RXE + 0x038)
#define HFI1_RCV_BYPASS_HDR_SIZE_SHIFT	16	/**< DWs to the RHQ, 5 bits */
#define HFI1_RCV_BYPASS_CONTEXT_MASK	0xFFull
#define HFI1_RCV_PARTITION_KEY		(HFI1_RXE + 0x200)	/**< 4 keys per CSR */
#define HFI1_RCV_RSM_CFG(rule)		(HFI1_RXE + 0x600 + 8u * (rule))
#define HFI1_RCV_RSM_CFG_ENABLE		0x1ull
#define HFI1_RCV_RSM_CFG_OFFSET_SHIFT	32
#define HFI1_RCV_RSM_CFG_PKT_TYPE_SHIFT	60
#define HFI1_RCV_RSM_SELECT(rule)	(HFI1_RXE + 0x700 + 8u * (rule))
#define HFI1_RCV_RSM_SELECT_FIELD1_SHIFT	0
#define HFI1_RCV_RSM_SELECT_FIELD2_SHIFT	16
#define HFI1_RCV_RSM_SELECT_INDEX1_OFF_SHIFT	32
#define HFI1_RCV_RSM_SELECT_INDEX1_WIDTH_SHIFT	44
#define HFI1_RCV_RSM_SELECT_INDEX2_OFF_SHIFT	48
#define HFI1_RCV_RSM_SELECT_INDEX2_WIDTH_SHIFT	60
#define HFI1_RCV_RSM_MATCH(rule)	(HFI1_RXE + 0x800 + 8u * (rule))
#define HFI1_RCV_RSM_MATCH_MASK1_SHIFT	0
#define HFI1_RCV_RSM_MATCH_VALUE1_SHIFT	8
#define HFI1_RCV_RSM_MATCH_MASK2_SHIFT	16
#define HFI1_RCV_RSM_MATCH_VALUE2_SHIFT	24
/** 32 CSRs of 8 one-byte context numbers: 256 map entries. */
#define HFI1_RCV_RSM_MAP_TABLE(i)	(HFI1_RXE + 0x900 + 8u * (i))
#define HFI1_RSM_RULES			4
#define HFI1_RSM_MAP_ENTRIES		256

/* ---- RXE per receive context, kernel view: stride 0x100 ---- */
#define HFI1_KCTXT(base, ctxt)		((base) + 0x100u * (ctxt))
#define HFI1_RCV_CTXT_CTRL		(HFI1_RXE + 0x100000)
#define HFI1_RCV_CTXT_CTRL_ENABLE	0x1ull
#define HFI1_RCV_CTXT_CTRL_EGR_SIZE_SHIFT 8	/**< 3 bits: 1 = 4 KiB ... */
#define HFI1_RCV_EGR_CTRL		(HFI1_RXE + 0x100010)
#define HFI1_RCV_EGR_CTRL_BASE_SHIFT	0	/**< in units of 8 entries */
#define HFI1_RCV_EGR_CTRL_CNT_SHIFT	32	/**< in units of 8 entries */
#define HFI1_RCV_HDR_ADDR		(HFI1_RXE + 0x100028)
#define HFI1_RCV_HDR_CNT		(HFI1_RXE + 0x100030)	/**< units of 32 */
#define HFI1_RCV_HDR_ENT_SIZE		(HFI1_RXE + 0x100038)	/**< encoded */
#define HFI1_RCV_HDR_SIZE		(HFI1_RXE + 0x100040)
#define HFI1_RCV_HDR_TAIL_ADDR		(HFI1_RXE + 0x100048)
#define HFI1_RCV_HDR_OVFL_CNT		(HFI1_RXE + 0x100058)
/** Units of the RcvEgrCtrl fields (RCV_SHIFT) and of RcvHdrCnt. */
#define HFI1_RCV_EGR_UNIT		8u
#define HFI1_RCV_HDR_CNT_UNIT		32u

/* ---- RXE per receive context, user view: stride 0x1000 ---- */
#define HFI1_UCTXT(base, ctxt)		((base) + 0x1000u * (ctxt))
#define HFI1_RCV_HDR_TAIL		(HFI1_RXE + 0x300000)
#define HFI1_RCV_HDR_HEAD		(HFI1_RXE + 0x300008)	/**< in DWs */
#define HFI1_RCV_HDR_HEAD_MASK		0x7FFFFull
#define HFI1_RCV_EGR_INDEX_HEAD		(HFI1_RXE + 0x300018)
#define HFI1_RCV_EGR_INDEX_HEAD_MASK	0x7FFull

/* ---- RcvArray: 8-byte entries, write-combining ---- */
#define HFI1_RCV_ARRAY			(HFI1_RXE + 0x200000)
#define HFI1_RCV_ARRAY_WRITE_ENABLE	(1ull << 63)
#define HFI1_RCV_ARRAY_SIZE_SHIFT	36
#define HFI1_RCV_ARRAY_ADDR_MASK	0xFFFFFFFFFull	/**< pa >> 12 */
#define HFI1_RCV_ARRAY_ADDR_SHIFT	12

/* ---- TXE ---- */
#define HFI1_SEND_CTRL			(HFI1_TXE + 0x000)
#define HFI1_SEND_CTRL_SEND_ENABLE	0x1ull
/* Per SDMA engine: stride 0x100. */
#define HFI1_SDMA(reg, eng)		((reg) + 0x100u * (eng))
#define HFI1_SDMA_CTRL			(HFI1_TXE + 0x200000)
#define HFI1_SDMA_CTRL_ENABLE		0x1ull
#define HFI1_SDMA_CTRL_HALT		0x2ull
#define HFI1_SDMA_CTRL_CLEANUP		0x4ull
#define HFI1_SDMA_STATUS		(HFI1_TXE + 0x200008)
#define HFI1_SDMA_STATUS_HALTED		(1ull << 56)
#define HFI1_SDMA_STATUS_CLEANED_UP	(1ull << 57)
#define HFI1_SDMA_BASE_ADDR		(HFI1_TXE + 0x200010)
#define HFI1_SDMA_LEN_GEN		(HFI1_TXE + 0x200018)
#define HFI1_SDMA_LEN_GEN_LENGTH_SHIFT	6	/**< value: descq_cnt / 64 << 6 */
#define HFI1_SDMA_LEN_GEN_GEN_SHIFT	16
#define HFI1_SDMA_TAIL			(HFI1_TXE + 0x200020)
#define HFI1_SDMA_HEAD			(HFI1_TXE + 0x200028)
#define HFI1_SDMA_HEAD_ADDR		(HFI1_TXE + 0x200030)
#define HFI1_SDMA_ENG_ERR_STATUS	(HFI1_TXE + 0x200060)
#define HFI1_SDMA_ERR_WRONG_DW		0x1ull
#define HFI1_SDMA_ERR_GEN_MISMATCH	0x2ull
#define HFI1_SDMA_ERR_TOO_LONG		0x4ull
#define HFI1_SDMA_ERR_TAIL_OOB		0x8ull
#define HFI1_SDMA_ERR_FIRST_DESC	0x10ull
#define HFI1_SDMA_ERR_MEM_READ		0x20ull
#define HFI1_SDMA_ERR_LENGTH_MISMATCH	0x80ull
#define HFI1_SDMA_ENG_ERR_CLEAR		(HFI1_TXE + 0x200070)

/* ---- SDMA descriptor (16 bytes, little-endian) ---- */
#define HFI1_SDMA_DESC0_ADDR_MASK	((1ull << 48) - 1)
#define HFI1_SDMA_DESC0_LEN_SHIFT	48
#define HFI1_SDMA_DESC0_LEN_MAX		((1u << 14) - 1)
#define HFI1_SDMA_DESC0_LAST		(1ull << 62)
#define HFI1_SDMA_DESC0_FIRST		(1ull << 63)
#define HFI1_SDMA_DESC1_HEAD_TO_HOST	(1ull << 0)
#define HFI1_SDMA_DESC1_INT_REQ		(1ull << 1)
#define HFI1_SDMA_DESC1_GEN_SHIFT	2
#define HFI1_SDMA_DESC1_GEN_MASK	0x3ull
/** Descriptors one packet may use (hfi1's MAX_DESC). */
#define HFI1_SDMA_MAX_DESC_PER_PKT	64

/* ---- PBC (8 bytes, little-endian, in front of every SDMA packet) ---- */
#define HFI1_PBC_LEN_DWS_MASK		0xFFFull
#define HFI1_PBC_VL_SHIFT		12
#define HFI1_PBC_VL_MASK		0xFull
#define HFI1_PBC_INSERT_BYPASS_ICRC	(1ull << 24)
#define HFI1_PBC_CREDIT_RETURN		(1ull << 25)
#define HFI1_PBC_INSERT_HCRC_SHIFT	26
#define HFI1_PBC_INSERT_HCRC_NONE	2ull
#define HFI1_PBC_PACKET_BYPASS		(1ull << 28)
#define HFI1_PBC_LEN			8u

/* ---- RHF: the last 8 bytes of each RHQ entry ---- */
#define HFI1_RHF_PKT_LEN_MASK		0xFFFull	/**< DWs */
#define HFI1_RHF_RCV_TYPE_SHIFT		12
#define HFI1_RHF_RCV_TYPE_MASK		0x7ull
#define HFI1_RHF_RCV_TYPE_BYPASS	4
#define HFI1_RHF_USE_EGR_BFR		(1ull << 15)
#define HFI1_RHF_EGR_INDEX_SHIFT	16
#define HFI1_RHF_EGR_INDEX_MASK		0x7FFull
#define HFI1_RHF_DC_INFO		(1ull << 27)
#define HFI1_RHF_SEQ_SHIFT		28
#define HFI1_RHF_SEQ_MASK		0xFull
#define HFI1_RHF_SEQ_MAX		13	/**< RcvSeq runs 1..13 */
#define HFI1_RHF_EGR_OFFSET_SHIFT	32
#define HFI1_RHF_EGR_OFFSET_MASK	0xFFFull	/**< 64-byte units */
#define HFI1_RHF_HDRQ_OFFSET_SHIFT	44
#define HFI1_RHF_HDRQ_OFFSET_MASK	0x1FFull	/**< DWs */
#define HFI1_RHF_K_HDR_LEN_ERR		(1ull << 53)
#define HFI1_RHF_DC_UNC_ERR		(1ull << 54)
#define HFI1_RHF_DC_ERR			(1ull << 55)
#define HFI1_RHF_RCV_TYPE_ERR_SHIFT	56
#define HFI1_RHF_RCV_TYPE_ERR_MASK	0x7ull
#define HFI1_RHF_TID_ERR		(1ull << 59)
#define HFI1_RHF_LEN_ERR		(1ull << 60)
#define HFI1_RHF_ECC_ERR		(1ull << 61)
#define HFI1_RHF_ICRC_ERR		(1ull << 63)
#define HFI1_RHF_ERR_MASK		(HFI1_RHF_K_HDR_LEN_ERR | \
					 HFI1_RHF_DC_UNC_ERR | HFI1_RHF_DC_ERR | \
					 (HFI1_RHF_RCV_TYPE_ERR_MASK << \
					  HFI1_RHF_RCV_TYPE_ERR_SHIFT) | \
					 HFI1_RHF_TID_ERR | HFI1_RHF_LEN_ERR | \
					 HFI1_RHF_ECC_ERR | HFI1_RHF_ICRC_ERR)

/** RcvHdrEntSize encoding of an entry size in DWs; 0 when invalid. */
static inline uint64_t
hfi1_hdr_ent_size_enc(unsigned int dws)
{
	return dws == 2 ? 1 : dws == 16 ? 2 : dws == 32 ? 4 : 0;
}

/** Eager buffer size encoding (RcvCtxtCtrl, RcvArray): 4 KiB = 1, doubling. */
static inline uint64_t
hfi1_egr_size_enc(uint32_t bytes)
{
	uint64_t enc = 1;

	while (enc < 10 && (4096u << (enc - 1)) < bytes)
		enc++;
	return enc;
}

/** Bytes of an eager buffer size encoding (inverse of hfi1_egr_size_enc). */
static inline uint32_t
hfi1_egr_size_dec(uint64_t enc)
{
	return enc == 0 || enc > 10 ? 0 : 4096u << (enc - 1);
}

#endif /* _HFI1_REGS_H_ */
