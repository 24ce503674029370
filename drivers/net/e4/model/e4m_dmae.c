/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * The model's DMAE engine. A write to GO register i (DMAE_REG_GO_C0 + 4 i)
 * runs the command in DMAE_REG_CMD_MEM + 56 i before the write returns:
 * host -> GRC, GRC -> host, host -> host (GRC -> GRC too). GRC writes go
 * through e4m_grc_write() as the command's destination PF, so the parts'
 * hooks fire (CAU, ILT, ...); GRC reads through e4m_grc_read(). Host memory
 * is reached only through e4m_dma(): an address outside the process's DMA
 * memory moves nothing and completes with the error bit (and counts a
 * dma_fault). The completion value goes to the host or GRC address the
 * command names; E4M_FAULT_DMAE_ERROR completes every command with the
 * error bit and moves nothing. The endianness field is not modelled: host
 * memory is little-endian dwords.
 */

#include "e4m_priv.h"

struct e4m_dmae {
	bool busy;	/* a command is running (a DMAE into GO is refused) */
};

static struct e4m_fn *
cmd_fn(struct e4m_dev *m, struct e4m_fn *writer, uint32_t pf)
{
	return pf < m->cfg.num_pfs ? &m->fns[pf] : writer;
}

/* Whether GRC dwords [dw, dw + len) are in the GRC space: the command's
 * 64-bit address field is the driver's, so its high bits are checked, never
 * truncated into an alias of a low address (nor let to wrap the sum). */
static bool
grc_range_ok(struct e4m_dev *m, uint64_t dw, uint32_t len)
{
	if (dw < E4M_GRC_SPACE / 4 && len <= E4M_GRC_SPACE / 4 - dw)
		return true;
	m->stats.bad_accesses++;
	E4M_LOG(m, WARNING, "DMAE GRC address 0x%" PRIx64 " (dwords, +%u) outside the GRC space",
		dw, len);
	return false;
}

/* Move the data; false on an error (nothing or part moved). */
static bool
dmae_move(struct e4m_dev *m, struct e4m_fn *fn, const uint32_t *c)
{
	uint32_t op = c[DMAE_CMD_OPCODE_DW], len = c[DMAE_CMD_LEN_DW] & 0xffff, i, v;
	uint32_t dst_t = (op >> DMAE_CMD_DST_SHIFT) & DMAE_CMD_DST_MASK;
	uint64_t src = (uint64_t)c[DMAE_CMD_SRC_HI_DW] << 32 | c[DMAE_CMD_SRC_LO_DW];
	uint64_t dst = (uint64_t)c[DMAE_CMD_DST_HI_DW] << 32 | c[DMAE_CMD_DST_LO_DW];
	struct e4m_fn *sfn = cmd_fn(m, fn, (op >> DMAE_CMD_SRC_PF_SHIFT) & DMAE_CMD_PF_MASK);
	struct e4m_fn *dfn = cmd_fn(m, fn, (op >> DMAE_CMD_DST_PF_SHIFT) & DMAE_CMD_PF_MASK);
	bool src_grc = (op & DMAE_CMD_SRC_GRC) != 0;
	uint8_t *s = NULL, *d = NULL;

	if (dst_t != DMAE_CMD_DST_PCIE && dst_t != DMAE_CMD_DST_GRC) {
		E4M_LOG(m, WARNING, "DMAE command with no destination (opcode 0x%08x)", op);
		return false;
	}
	if (len == 0)
		return true;
	/* Check both ends before moving anything. */
	if (src_grc ? !grc_range_ok(m, src, len) : (s = e4m_dma(m, src, len * 4ull)) == NULL)
		return false;
	if (dst_t == DMAE_CMD_DST_GRC ? !grc_range_ok(m, dst, len) :
	    (d = e4m_dma(m, dst, len * 4ull)) == NULL)
		return false;
	if (!src_grc && d != NULL) {
		memmove(d, s, len * 4ull);
	} else {
		for (i = 0; i < len; i++) {
			v = src_grc ? e4m_grc_read(m, sfn, (uint32_t)(src + i) * 4) :
				omni_get_le32(s + 4 * i);
			if (d != NULL)
				omni_put_le32(d + 4 * i, v);
			else
				e4m_grc_write(m, dfn, (uint32_t)(dst + i) * 4, v);
		}
	}
	m->stats.dmae_dwords += len;
	return true;
}

static void
dmae_complete(struct e4m_dev *m, struct e4m_fn *fn, const uint32_t *c, bool ok)
{
	uint32_t op = c[DMAE_CMD_OPCODE_DW];
	uint32_t handling = (op >> DMAE_CMD_ERR_HANDLING_SHIFT) & DMAE_CMD_ERR_HANDLING_MASK;
	uint64_t ca = (uint64_t)c[DMAE_CMD_COMP_HI_DW] << 32 | c[DMAE_CMD_COMP_LO_DW];
	uint32_t val = c[DMAE_CMD_COMP_VAL_DW];
	uint8_t *p;

	if (!ok) {
		m->stats.dmae_errors++;
		if (handling == DMAE_CMD_ERR_HANDLING_NO_COMP)
			return;
		if (handling == DMAE_CMD_ERR_HANDLING_COMP_WITH_ERR)
			val |= DMAE_COMPLETION_ERROR_BIT;
	}
	if (!(op & DMAE_CMD_COMP_WORD_EN))
		return;
	if (op & DMAE_CMD_C_DST_GRC) {
		if (grc_range_ok(m, ca, 1))
			e4m_grc_write(m, fn, (uint32_t)ca * 4, val);
		return;
	}
	p = e4m_dma(m, ca, 4);
	if (p != NULL)
		omni_put_le32(p, val);
}

static void
go_hook(struct e4m_dev *m, struct e4m_fn *fn, uint32_t addr, uint32_t val, void *arg)
{
	struct e4m_dmae *e = m->dmae;
	uint32_t ch = (addr - DMAE_REG_GO_C0) / 4, c[DMAE_CMD_SIZE_DW], i;
	bool ok;

	RTE_SET_USED(arg);
	if (val == 0)
		return;
	if (e->busy) {
		E4M_LOG(m, WARNING, "DMAE GO %u written by a DMAE command: ignored", ch);
		m->stats.bad_accesses++;
		return;
	}
	for (i = 0; i < DMAE_CMD_SIZE_DW; i++)
		e4m_grc_get(m, DMAE_REG_CMD_MEM + (ch * DMAE_CMD_SIZE_DW + i) * 4, &c[i]);
	m->stats.dmae_cmds++;
	e->busy = true;
	if (e4m_fault(m, E4M_FAULT_DMAE_ERROR) != NULL)
		ok = false;
	else
		ok = dmae_move(m, fn, c);
	dmae_complete(m, fn, c, ok);
	e->busy = false;
}

int
e4m_dmae_init(struct e4m_dev *m)
{
	int rc;

	m->dmae = ecore_osal_zalloc(sizeof(*m->dmae));
	if (m->dmae == NULL)
		return -ENOMEM;
	rc = e4m_hook_add(m, DMAE_REG_GO_C0, DMAE_REG_GO_C0 + DMAE_NUM_CHANNELS * 4, go_hook,
			  NULL, NULL);
	if (rc != 0) {
		ecore_osal_free(m->dmae);
		m->dmae = NULL;
	}
	return rc;
}

void
e4m_dmae_fini(struct e4m_dev *m)
{
	ecore_osal_free(m->dmae);
	m->dmae = NULL;
}
