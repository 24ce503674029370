/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _ECORE_RT_DEFS_H_
#define _ECORE_RT_DEFS_H_

/**
 * @file
 * Runtime-array offsets (ecore_init_store_rt_reg()): the index of a
 * register's staged value, in DPDK 22.11 / firmware 8.42 numbering (the
 * profile of the firmware in use translates it; 8.59 moves every offset from
 * 32068 on by 512). Numbers from the facts (e4-firmware.md, DPDK's
 * ecore_rt_defs.h); each chapter adds the offsets it stages.
 */

/* ---- status blocks, IGU, CAU, ILT, CDU (ecore_int.c, ecore_cxt.c) ---- */
#define IGU_REG_PF_CONFIGURATION_RT_OFFSET		19
#define IGU_REG_ATTN_MSG_ADDR_L_RT_OFFSET		21
#define IGU_REG_ATTN_MSG_ADDR_H_RT_OFFSET		22
#define CAU_REG_SB_VAR_MEMORY_RT_OFFSET			26
#define CAU_REG_SB_VAR_MEMORY_RT_SIZE			736
#define CAU_REG_SB_ADDR_MEMORY_RT_OFFSET		762
#define CAU_REG_SB_ADDR_MEMORY_RT_SIZE			736
#define PSWRQ2_REG_CDUC_P_SIZE_RT_OFFSET		5937
#define PSWRQ2_REG_CDUC_FIRST_ILT_RT_OFFSET		5948
#define PSWRQ2_REG_CDUC_LAST_ILT_RT_OFFSET		5949
#define PSWRQ2_REG_ILT_MEMORY_RT_OFFSET			5967
#define PSWRQ2_REG_ILT_MEMORY_RT_SIZE			22000
#define CDU_REG_CID_ADDR_PARAMS_RT_OFFSET		34396

/* ---- init (ecore_init_ops.c, its tests) ---- */

/** The first offset 8.59.1.0 moves (+512): QM's WFQ VP credit table. */
#define QM_REG_WFQVPCRD_RT_OFFSET 32068
/** The last entry of the 8.42 array. */
#define XCM_REG_CON_PHY_Q3_RT_OFFSET 34471
/** Entries of the runtime array in 8.42 numbering. */
#define ECORE_RT_ARRAY_SIZE_8_42 34472

#endif /* _ECORE_RT_DEFS_H_ */
