/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _ECORE_REG_H_
#define _ECORE_REG_H_

/**
 * @file
 * E4 addresses: the PF's BAR0 layout (admin window, PTT and GTT windows) and
 * the GRC registers the base layer and the model both use. Numbers from the
 * public facts (shared/facts/e4-ecore.md section 2.1, e4-firmware.md); one
 * table for both sides, so the driver and the model cannot disagree on an
 * address. GRC addresses are byte addresses unless a name says _DW.
 */

/* ---- PF BAR0: the admin window (0x0000-0x0fff) ---- */

/** PTT entry i (struct pxp_ptt_entry, 8 bytes): dword 0 = GRC address >> 2 (bits 0-22). */
#define PXP_PF_WINDOW_ADMIN_PER_PF_START	0x0
#define PXP_PTT_ENTRY_SIZE			8
#define PXP_PTT_ENTRY_OFFSET_MASK		0x7FFFFF
/** Global (GTT) window table: entry i = GRC address >> 12 of window i. */
#define PXP_PF_WINDOW_ADMIN_GLOBAL_START	0x200
#define PXP_GLOBAL_ENTRY_SIZE			4
#define PXP_NUM_GLOBAL_WINDOWS			243
/** The PF's opaque and concrete function ids (read-only). */
#define PXP_PF_ME_OPAQUE_ADDR			0x1f8
#define PXP_PF_ME_CONCRETE_ADDR			0x1fc
#define PXP_PF_WINDOW_ADMIN_LENGTH		0x1000

/* ---- PF BAR0: PTT windows (0x1000-0xcfff) and GTT windows (0xd000-) ---- */

#define PXP_EXTERNAL_BAR_PF_WINDOW_START	0x1000
#define PXP_EXTERNAL_BAR_PF_WINDOW_NUM		12
#define PXP_EXTERNAL_BAR_PF_WINDOW_SINGLE_SIZE	0x1000
#define PXP_EXTERNAL_BAR_GLOBAL_WINDOW_START	0xd000
#define PXP_EXTERNAL_BAR_GLOBAL_WINDOW_SINGLE_SIZE 0x1000

/** Reserved PTTs (the rest are the pool). */
enum reserved_ptts {
	RESERVED_PTT_EDIAG,
	RESERVED_PTT_USER_SPACE,
	RESERVED_PTT_MAIN,
	RESERVED_PTT_DPC,
	RESERVED_PTT_MAX
};

/* Fixed GTT mappings that follow from the windows ecore programs (2..14). */
#define GTT_BAR0_MAP_REG_IGU_CMD	0x00f000
#define GTT_BAR0_MAP_REG_TSDM_RAM	0x010000
#define GTT_BAR0_MAP_REG_MSDM_RAM	0x011000
#define GTT_BAR0_MAP_REG_MSDM_RAM_1024	0x012000
#define GTT_BAR0_MAP_REG_MSDM_RAM_2048	0x013000
#define GTT_BAR0_MAP_REG_USDM_RAM	0x014000
#define GTT_BAR0_MAP_REG_USDM_RAM_1024	0x015000
#define GTT_BAR0_MAP_REG_USDM_RAM_2048	0x016000
#define GTT_BAR0_MAP_REG_XSDM_RAM	0x017000
#define GTT_BAR0_MAP_REG_XSDM_RAM_1024	0x018000
#define GTT_BAR0_MAP_REG_YSDM_RAM	0x019000
#define GTT_BAR0_MAP_REG_PSDM_RAM	0x01a000

/* ---- GRC block bases ---- */

#define GRCBASE_MCP		0xe00000
#define GRCBASE_IGU		0x180000
#define IGU_CMD_GRC_BASE	0x1c02000	/**< what GTT window 2 maps */
#define TSDM_GRC_BASE		0x1c80000	/**< SDM RAM windows (GTT) */
#define MSDM_GRC_BASE		0x1d00000
#define USDM_GRC_BASE		0x1d80000
#define XSDM_GRC_BASE		0x1e00000
#define YSDM_GRC_BASE		0x1e80000
#define PSDM_GRC_BASE		0x1f00000

/** SEM fast memory per storm (storm RAM the init file loads). */
#define XSEM_REG_FAST_MEMORY	0x1440000
#define YSEM_REG_FAST_MEMORY	0x1540000
#define PSEM_REG_FAST_MEMORY	0x1640000
#define TSEM_REG_FAST_MEMORY	0x1740000
#define MSEM_REG_FAST_MEMORY	0x1840000
#define USEM_REG_FAST_MEMORY	0x1940000
/** A storm's internal RAM, from its SEM fast memory (IRO offsets are into it). */
#define SEM_FAST_REG_INT_RAM	0x20000

/* ---- registers hw_prepare reads ---- */

#define MISCS_REG_CHIP_NUM			0x976c
#define MISCS_REG_CHIP_REV			0x9770
#define MISCS_REG_CHIP_METAL			0x9774
#define MISCS_REG_CHIP_TEST_REG			0x9778
#define MISCS_REG_CMT_ENABLED_FOR_PAIR		0x971c
#define MISCS_REG_GENERIC_POR_0			0x96d4
#define MISC_REG_SHARED_MEM_ADDR		0x8c20
#define MISC_REG_GEN_PURP_CR0			0x8c80
#define MCP_REG_SCRATCH				0xe20000
#define MCP_REG_SCRATCH_SIZE			0xe000
/** BAR sizes: 1 << (value + 15) bytes; 0 means "512 KiB" (older MFW). */
#define PGLUE_B_REG_PF_BAR0_SIZE		0x2aae60
#define PGLUE_B_REG_PF_BAR1_SIZE		0x2aae64
/** Ports per engine: 0 = 1, 1 = 2, 2 = 4 (AH). */
#define MISC_REG_PORT_MODE			0x8c00

/* ---- IGU ---- */

/** CAM line per SB: bit 0 valid, bits 1-8 vector, bits 9-16 function, bit 17 is_pf. */
#define IGU_REG_MAPPING_MEMORY			0x184000
#define IGU_REG_MAPPING_MEMORY_SIZE		(368 * 4)
#define IGU_REG_PF_CONFIGURATION		0x180800
/** IGU_REG_PF_CONFIGURATION bits. */
#define IGU_PF_CONF_FUNC_EN			(1u << 0)
#define IGU_PF_CONF_MSI_MSIX_EN			(1u << 1)
#define IGU_PF_CONF_INT_LINE_EN			(1u << 2)
#define IGU_PF_CONF_ATTN_BIT_EN			(1u << 3)
#define IGU_PF_CONF_SINGLE_ISR_EN		(1u << 4)
/** Host address (lo, hi) of the PF's attention status block. */
#define IGU_REG_ATTN_MSG_ADDR_L			0x180820
#define IGU_REG_ATTN_MSG_ADDR_H			0x180824
#define IGU_REG_LEADING_EDGE_LATCH		0x18082c
#define IGU_REG_TRAILING_EDGE_LATCH		0x180830
#define IGU_REG_ATTENTION_ENABLE		0x18083c
/**
 * The IGU's command register pair: a write to CTRL runs the command whose
 * data was written to 32LSB_DATA before. A cleanup (SET command on an SB's
 * INT_ACK address) reports done in CLEANUP_STATUS_0 + 0x80 * type, one bit
 * per SB (set by a cleanup-set, cleared by a cleanup-clear).
 */
#define IGU_REG_COMMAND_REG_32LSB_DATA		0x180840
#define IGU_REG_COMMAND_REG_CTRL		0x180848
#define IGU_REG_CLEANUP_STATUS_0		0x180980
/** IGU_REG_COMMAND_REG_CTRL: opaque FID, command address, read/write. */
#define IGU_CTRL_FID_MASK			0xffffu
#define IGU_CTRL_ADDR_SHIFT			16
#define IGU_CTRL_ADDR_MASK			0xfffu
#define IGU_CTRL_WRITE				(1u << 31)
/** IGU_REG_COMMAND_REG_32LSB_DATA of a cleanup. */
#define IGU_CLEANUP_SET				(1u << 27)
#define IGU_CLEANUP_TYPE_SHIFT			28
#define IGU_CLEANUP_TYPE_MASK			0x7u
#define IGU_CLEANUP_CMD_SET			(1u << 31)
/** Cleanup types (status register groups). */
#define IGU_CLEANUP_TYPES			5
/** IGU commands (GRC IGU_CMD_GRC_BASE + (cmd - IGU_CMD_INT_ACK_BASE) * 8, GTT window 2). */
#define IGU_CMD_INT_ACK_BASE			0x400
#define IGU_CMD_ATTN_BIT_SET_UPPER		0x5f1
#define IGU_CMD_ATTN_BIT_CLR_UPPER		0x5f2
/** The BAR0 (GTT) offset of IGU command @p cmd. */
#define IGU_CMD_BAR_ADDR(cmd)	(GTT_BAR0_MAP_REG_IGU_CMD + ((cmd) - IGU_CMD_INT_ACK_BASE) * 8)
/** AEU signals toward the IGU (0xff: unmasked). */
#define MISC_REG_AEU_MASK_ATTN_IGU		0x8494

/* ---- DMAE ---- */

/** Command i: 14 dwords at DMAE_REG_CMD_MEM + i * 56; go: DMAE_REG_GO_C0 + i * 4 := 1. */
#define DMAE_REG_CMD_MEM			0xc800
#define DMAE_REG_CMD_MEM_SIZE_DW		448
#define DMAE_REG_GO_C0				0xc048
#define DMAE_CMD_SIZE_DW			14
#define DMAE_NUM_CHANNELS			32
/** What the driver writes to a GO register. */
#define DMAE_GO_VALUE				1

/*
 * The DMAE command (dmae_cmd, 14 dwords; the driver fills the first 9):
 * dword 0 opcode, 1/2 source address lo/hi, 3/4 destination lo/hi (a host
 * address in bytes, a GRC address in DWORDS), 5 length_dw (b0-15) and
 * opcode_b (b16-31: source VF id b0-7, destination VF id b8-15; 0xff = PF),
 * 6/7 completion address lo/hi, 8 completion value.
 */
#define DMAE_CMD_OPCODE_DW			0
#define DMAE_CMD_SRC_LO_DW			1
#define DMAE_CMD_SRC_HI_DW			2
#define DMAE_CMD_DST_LO_DW			3
#define DMAE_CMD_DST_HI_DW			4
#define DMAE_CMD_LEN_DW				5
#define DMAE_CMD_COMP_LO_DW			6
#define DMAE_CMD_COMP_HI_DW			7
#define DMAE_CMD_COMP_VAL_DW			8
#define DMAE_CMD_FILLED_DW			9

/* opcode bits */
#define DMAE_CMD_SRC_GRC			0x1u		/**< b0: 0 PCIe, 1 GRC */
#define DMAE_CMD_DST_SHIFT			1		/**< b1-2: 1 PCIe, 2 GRC */
#define DMAE_CMD_DST_MASK			0x3u
#define DMAE_CMD_DST_PCIE			1
#define DMAE_CMD_DST_GRC			2
#define DMAE_CMD_C_DST_GRC			(1u << 3)	/**< completion to GRC */
#define DMAE_CMD_SRC_ADDR_RESET			(1u << 5)
#define DMAE_CMD_DST_ADDR_RESET			(1u << 6)
#define DMAE_CMD_COMP_WORD_EN			(1u << 8)
#define DMAE_CMD_ENDIANITY_SHIFT		14
#define DMAE_CMD_ENDIANITY_LE			2		/**< what a LE host sets */
/** b16-17: on a source read error: 0 regular completion, 1 completion with
 * the error bit, 2 no completion. */
#define DMAE_CMD_ERR_HANDLING_SHIFT		16
#define DMAE_CMD_ERR_HANDLING_MASK		0x3u
#define DMAE_CMD_ERR_HANDLING_COMP_WITH_ERR	1
#define DMAE_CMD_ERR_HANDLING_NO_COMP		2
#define DMAE_CMD_PORT_SHIFT			18
#define DMAE_CMD_SRC_PF_SHIFT			20
#define DMAE_CMD_DST_PF_SHIFT			24
#define DMAE_CMD_PF_MASK			0xfu
/** The error indication in a completion word. */
#define DMAE_COMPLETION_ERROR_BIT		0x80000000u
/** Dwords one command moves at most (the driver's chunk). */
#define DMAE_MAX_RW_DW				0x2000

/* ---- CAU (status block addresses and variables) ---- */

#define CAU_REG_SB_VAR_MEMORY			0x1c6000
#define CAU_REG_SB_ADDR_MEMORY			0x1c8000
#define CAU_REG_PI_MEMORY			0x1d0000

/* ---- ILT ---- */

/** ILT lines, 64-bit each: bits 0-51 physical address >> 12, bit 52 valid. */
#define PSWRQ2_REG_ILT_MEMORY			0x260000
/** ILT lines K2 (AH) has: 22000 dwords of the runtime array = 11000 lines. */
#define PSWRQ2_REG_ILT_MEMORY_LINES		11000
/**
 * The PF's first/last ILT line of the CDUC (connection context) client and
 * the CDUC page size (1 << (v + 12) bytes). Per PF (the PF phase writes them
 * from the runtime array). Addresses from the 8.42.2.0 init file's RUNTIME ops.
 */
#define PSWRQ2_REG_CDUC_P_SIZE			0x240010
#define PSWRQ2_REG_CDUC_FIRST_ILT		0x240048
#define PSWRQ2_REG_CDUC_LAST_ILT		0x24004c

/* ---- CDU ---- */

/** Connection contexts: bits 0-11 size (bytes), 12-23 block waste, 24-31 contexts per page. */
#define CDU_REG_CID_ADDR_PARAMS			0x580900

/* ---- attentions ---- */

/** The MFW's general attention to PF n: write 0 to + n * 8 to clean it. */
#define MISC_REG_AEU_GENERAL_ATTN_0		0x8400
/** Attention status-block bit of an MFW event (mailbox message, link change). */
#define ECORE_ATTN_BIT_MCP_EVENT		0x100

/* ---- doorbells, cleanup ---- */

#define DORQ_REG_PF_DB_ENABLE			0x100508
/** PF normal doorbell region: 4 bytes per CID (DEMS legacy = 0). */
#define ECORE_DB_ADDR(cid)			((cid) * 4u)
/** Final-cleanup command; the firmware answers in USTORM_FLR_FINAL_ACK. */
#define XSDM_REG_OPERATION_GEN			0xf80408

#endif /* _ECORE_REG_H_ */
