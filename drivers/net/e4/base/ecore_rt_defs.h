/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _ECORE_RT_DEFS_H_
#define _ECORE_RT_DEFS_H_

/**
 * @file
 * Runtime-array offsets (indices the init file's RUNTIME ops read), DPDK
 * 22.11 / firmware 8.42.2.0 numbering (shared/facts/e4-firmware.md).
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

#endif /* _ECORE_RT_DEFS_H_ */
