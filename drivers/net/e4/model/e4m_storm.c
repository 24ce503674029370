/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * What the storms' firmware answers outside ramrods. Final cleanup: a write
 * of an "aggregated interrupt" operation to XSDM_REG_OPERATION_GEN for a PF
 * (vector bit = its id, below 0x10; VFs are 0x10 + id) is acknowledged by a
 * non-zero USTORM_FLR_FINAL_ACK of that PF in USDM RAM, which the driver
 * polls and clears (facts: e4-ecore.md 2.1).
 */

#include "e4m_priv.h"

#define OP_GEN_COMP_TYPE(cmd) (((cmd) >> 16) & 0xf)
#define OP_GEN_COMP_TYPE_AGG_INT 2
#define OP_GEN_VECTOR_BIT(cmd) (((cmd) >> 7) & 0x1ff)
#define USTORM_FLR_FINAL_ACK(id) (USDM_GRC_BASE + 0xa80 + 8 * (id))

static void
op_gen_write(struct e4m_dev *m, struct e4m_fn *fn, uint32_t addr, uint32_t val, void *arg)
{
	uint32_t id = OP_GEN_VECTOR_BIT(val);

	RTE_SET_USED(fn);
	RTE_SET_USED(addr);
	RTE_SET_USED(arg);
	if (OP_GEN_COMP_TYPE(val) != OP_GEN_COMP_TYPE_AGG_INT || id >= m->cfg.num_pfs) {
		m->stats.bad_accesses++;	/* VF cleanup comes with SR-IOV */
		return;
	}
	e4m_grc_set(m, USTORM_FLR_FINAL_ACK(id), 1);
}

int
e4m_storm_init(struct e4m_dev *m)
{
	return e4m_hook_add(m, XSDM_REG_OPERATION_GEN, XSDM_REG_OPERATION_GEN + 4,
			    op_gen_write, NULL, NULL);
}
