/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* Status blocks, IGU and CAU, the slow-path DPC (ecore_int.h). */

#include "ecore_hw.h"
#include "ecore_int.h"
#include "ecore_init_ops.h"
#include "ecore_mcp.h"
#include "ecore_rt_defs.h"

/* Attention lines the IGU can mask (the upper two cannot). */
#define ATTN_BITS_MASKABLE 0x3ffu

enum _ecore_status_t
ecore_int_igu_read_cam(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt)
{
	struct ecore_hw_info *hi = &p_hwfn->hw_info;
	unsigned int sb, lines = IGU_REG_MAPPING_MEMORY_SIZE / 4;
	bool found = false, run_over = false;
	uint32_t line, func;

	hi->igu_sb_base = 0;
	hi->igu_sb_cnt = 0;
	hi->igu_dsb_id = 0;
	for (sb = 0; sb < lines; sb++) {
		line = ecore_rd(p_hwfn, p_ptt, IGU_REG_MAPPING_MEMORY + 4 * sb);
		func = (line >> IGU_MAPPING_LINE_FUNC_SHIFT) & IGU_MAPPING_LINE_FUNC_MASK;
		if (!(line & IGU_MAPPING_LINE_VALID) || !(line & IGU_MAPPING_LINE_PF_VALID) ||
		    func != p_hwfn->rel_pf_id) {
			run_over = found;
			continue;
		}
		if (!found) {
			found = true;
			hi->igu_sb_base = sb;
			hi->igu_dsb_id = sb;
		} else if (run_over) {
			/* we address SBs as base + n: a line after a gap is not used */
			ECORE_LOG(WARNING, "%s: IGU CAM line %u of this PF after a gap: not used",
				  p_hwfn->name, sb);
			continue;
		}
		hi->igu_sb_cnt++;
	}
	if (!found) {
		ECORE_LOG(ERR, "%s: no IGU CAM line for PF %u", p_hwfn->name, p_hwfn->rel_pf_id);
		return ECORE_NORESOURCES;
	}
	return ECORE_SUCCESS;
}

/* ---- acks ---- */

void
ecore_sb_ack(struct ecore_sb_info *sb, int int_cmd, bool update)
{
	ecore_osal_wmb();
	ecore_bar0_wr(sb->p_hwfn, sb->igu_addr,
		      ecore_igu_ack_word(sb->sb_ack, (enum igu_int_cmd)int_cmd, update,
					 IGU_SEG_ACCESS_REG));
}

bool
ecore_sb_update_sb_idx(struct ecore_sb_info *sb)
{
	uint32_t prod;

	ecore_osal_rmb();
	prod = OMNI_LE32(__atomic_load_n(&sb->sb_virt->prod_index, __ATOMIC_ACQUIRE)) &
		ECORE_SB_PROD_MASK;
	if (prod == sb->sb_ack)
		return false;
	sb->sb_ack = prod;
	return true;
}

/* ---- CAU ---- */

static void
cau_sb_entry_init(struct ecore_hwfn *p_hwfn, struct cau_sb_entry *e)
{
	uint32_t params = 0, data = 0;

	params |= (uint32_t)p_hwfn->rel_pf_id << CAU_SB_ENTRY_PF_NUMBER_SHIFT;
	params |= 0x7fu << CAU_SB_ENTRY_TIMESET0_SHIFT;
	params |= 0x7fu << CAU_SB_ENTRY_TIMESET1_SHIFT;
	/* no interrupt coalescing: the PMD polls */
	data |= (uint32_t)CAU_HC_DISABLE_STATE << CAU_SB_ENTRY_STATE0_SHIFT;
	data |= (uint32_t)CAU_HC_DISABLE_STATE << CAU_SB_ENTRY_STATE1_SHIFT;
	e->params = OMNI_LE32(params);
	e->data = OMNI_LE32(data);
}

enum _ecore_status_t
ecore_int_cau_conf_sb(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt, uint64_t sb_iova,
		      uint16_t igu_sb_id)
{
	uint32_t addr[2] = { (uint32_t)sb_iova, (uint32_t)(sb_iova >> 32) };
	uint32_t entry[2];
	struct cau_sb_entry e;
	enum _ecore_status_t rc;

	cau_sb_entry_init(p_hwfn, &e);
	entry[0] = OMNI_LE32(e.data);
	entry[1] = OMNI_LE32(e.params);
	if (!p_hwfn->hw_init_done) {
		ecore_init_store_rt_agg(p_hwfn, CAU_REG_SB_ADDR_MEMORY_RT_OFFSET + igu_sb_id * 2,
					addr, RTE_DIM(addr));
		ecore_init_store_rt_agg(p_hwfn, CAU_REG_SB_VAR_MEMORY_RT_OFFSET + igu_sb_id * 2,
					entry, RTE_DIM(entry));
		return ECORE_SUCCESS;
	}
	/* wide-bus registers: DMAE, not two GRC writes; DMAE copies LE dwords */
	addr[0] = OMNI_LE32(addr[0]);
	addr[1] = OMNI_LE32(addr[1]);
	entry[0] = e.data;
	entry[1] = e.params;
	rc = ecore_dmae_host2grc(p_hwfn, p_ptt, addr, CAU_REG_SB_ADDR_MEMORY + igu_sb_id * 8, 2);
	if (rc == ECORE_SUCCESS)
		rc = ecore_dmae_host2grc(p_hwfn, p_ptt, entry,
					 CAU_REG_SB_VAR_MEMORY + igu_sb_id * 8, 2);
	if (rc != ECORE_SUCCESS)
		ECORE_LOG(ERR, "%s: CAU for SB %u: %s", p_hwfn->name, igu_sb_id,
			  ecore_status_str(rc));
	return rc;
}

static void
sb_info_init(struct ecore_hwfn *p_hwfn, struct ecore_sb_info *sb, void *virt, uint64_t iova,
	     uint16_t igu_sb_id)
{
	memset(virt, 0, sizeof(struct status_block));
	sb->sb_virt = virt;
	sb->sb_iova = iova;
	sb->sb_ack = 0;
	sb->igu_sb_id = igu_sb_id;
	sb->igu_addr = GTT_BAR0_MAP_REG_IGU_CMD + (uint32_t)igu_sb_id * 8;
	sb->p_hwfn = p_hwfn;
	sb->initialized = true;
}

enum _ecore_status_t
ecore_int_sb_init(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt, struct ecore_sb_info *sb,
		  void *sb_virt, uint64_t sb_iova, uint16_t sb_id)
{
	const struct ecore_hw_info *hi = &p_hwfn->hw_info;
	uint32_t igu = (uint32_t)hi->igu_dsb_id + 1 + sb_id;

	if (sb_virt == NULL || igu >= (uint32_t)hi->igu_sb_base + hi->igu_sb_cnt) {
		ECORE_LOG(ERR, "%s: fast-path SB %u: the PF has %u SBs after the default one",
			  p_hwfn->name, sb_id, hi->igu_sb_cnt ? hi->igu_sb_cnt - 1 : 0);
		return ECORE_INVAL;
	}
	sb_info_init(p_hwfn, sb, sb_virt, sb_iova, igu);
	return ecore_int_cau_conf_sb(p_hwfn, p_ptt, sb_iova, igu);
}

/* ---- alloc / setup ---- */

void
ecore_int_free(struct ecore_hwfn *p_hwfn)
{
	if (p_hwfn->p_sp_sb != NULL) {
		ecore_osal_dma_free(&p_hwfn->p_sp_sb->mem);
		ecore_osal_free(p_hwfn->p_sp_sb);
		p_hwfn->p_sp_sb = NULL;
	}
	if (p_hwfn->p_sb_attn != NULL) {
		ecore_osal_dma_free(&p_hwfn->p_sb_attn->mem);
		ecore_osal_free(p_hwfn->p_sb_attn);
		p_hwfn->p_sb_attn = NULL;
	}
}

enum _ecore_status_t
ecore_int_alloc(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt)
{
	struct ecore_sb_attn_info *at;
	struct ecore_sb_sp_info *sp;

	RTE_SET_USED(p_ptt);
	sp = ecore_osal_zalloc(sizeof(*sp));
	at = ecore_osal_zalloc(sizeof(*at));
	p_hwfn->p_sp_sb = sp;
	p_hwfn->p_sb_attn = at;
	if (sp == NULL || at == NULL)
		goto fail;
	if (ecore_osal_dma_alloc(&sp->mem, p_hwfn->p_dev->name, "spsb", p_hwfn->my_id,
				 sizeof(struct status_block), 64) != 0)
		goto fail;
	if (ecore_osal_dma_alloc(&at->mem, p_hwfn->p_dev->name, "attnsb", p_hwfn->my_id,
				 sizeof(struct atten_status_block), 64) != 0)
		goto fail;
	ecore_osal_spin_init(&sp->dpc_lock);
	sb_info_init(p_hwfn, &sp->sb_info, sp->mem.va, sp->mem.iova, p_hwfn->hw_info.igu_dsb_id);
	at->sb_attn = at->mem.va;
	at->mfw_attn_addr = MISC_REG_AEU_GENERAL_ATTN_0 + (uint32_t)p_hwfn->rel_pf_id * 8;
	return ECORE_SUCCESS;
fail:
	ECORE_LOG(ERR, "%s: no memory for the slow-path status blocks", p_hwfn->name);
	ecore_int_free(p_hwfn);
	return ECORE_NOMEM;
}

void
ecore_int_setup(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt)
{
	struct ecore_sb_sp_info *sp = p_hwfn->p_sp_sb;
	struct ecore_sb_attn_info *at = p_hwfn->p_sb_attn;

	/* the default SB: CAU through the runtime array (hw_init writes it), or
	 * by DMAE on a device already initialized */
	sb_info_init(p_hwfn, &sp->sb_info, sp->mem.va, sp->mem.iova, p_hwfn->hw_info.igu_dsb_id);
	ecore_int_cau_conf_sb(p_hwfn, p_ptt, sp->mem.iova, sp->sb_info.igu_sb_id);
	if (!p_hwfn->hw_init_done)
		ecore_init_store_rt_reg(p_hwfn, IGU_REG_PF_CONFIGURATION_RT_OFFSET,
					IGU_PF_CONF_FUNC_EN);

	/* the attention SB: its address goes straight to the IGU */
	memset(at->sb_attn, 0, sizeof(*at->sb_attn));
	at->index = 0;
	at->known_attn = 0;
	ecore_wr(p_hwfn, p_ptt, IGU_REG_ATTN_MSG_ADDR_L, (uint32_t)at->mem.iova);
	ecore_wr(p_hwfn, p_ptt, IGU_REG_ATTN_MSG_ADDR_H, (uint32_t)(at->mem.iova >> 32));
}

/* ---- interrupt mode ---- */

void
ecore_int_igu_enable(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt,
		     enum ecore_int_mode int_mode)
{
	uint32_t conf = IGU_PF_CONF_FUNC_EN | IGU_PF_CONF_ATTN_BIT_EN;

	/* attentions: latch both edges of every line, then unmask them */
	ecore_wr(p_hwfn, p_ptt, IGU_REG_ATTENTION_ENABLE, 0);
	ecore_wr(p_hwfn, p_ptt, IGU_REG_LEADING_EDGE_LATCH, ECORE_ATTN_STATE_BITS);
	ecore_wr(p_hwfn, p_ptt, IGU_REG_TRAILING_EDGE_LATCH, ECORE_ATTN_STATE_BITS);
	ecore_wr(p_hwfn, p_ptt, IGU_REG_ATTENTION_ENABLE, ECORE_ATTN_STATE_BITS);
	ecore_wr(p_hwfn, p_ptt, MISC_REG_AEU_MASK_ATTN_IGU, 0xff);

	p_hwfn->p_dev->int_mode = int_mode;
	switch (int_mode) {
	case ECORE_INT_MODE_INTA:
		conf |= IGU_PF_CONF_INT_LINE_EN | IGU_PF_CONF_SINGLE_ISR_EN;
		break;
	case ECORE_INT_MODE_MSIX:
		conf |= IGU_PF_CONF_MSI_MSIX_EN;
		break;
	case ECORE_INT_MODE_POLL:
		break;
	}
	ecore_wr(p_hwfn, p_ptt, IGU_REG_PF_CONFIGURATION, conf);
}

void
ecore_int_igu_disable_int(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt)
{
	ecore_wr(p_hwfn, p_ptt, IGU_REG_LEADING_EDGE_LATCH, 0);
	ecore_wr(p_hwfn, p_ptt, IGU_REG_TRAILING_EDGE_LATCH, 0);
	ecore_wr(p_hwfn, p_ptt, IGU_REG_PF_CONFIGURATION, 0);
}

/* ---- PI callbacks ---- */

enum _ecore_status_t
ecore_int_register_cb(struct ecore_hwfn *p_hwfn, ecore_int_comp_cb_t cb, void *cookie,
		      uint8_t *sb_idx, volatile uint16_t **p_fw_cons)
{
	struct ecore_sb_sp_info *sp = p_hwfn->p_sp_sb;
	uint8_t pi;

	for (pi = 0; pi < ECORE_SB_PI_NUM; pi++) {
		if (sp->pi_info[pi].cb != NULL)
			continue;
		sp->pi_info[pi].cb = cb;
		sp->pi_info[pi].cookie = cookie;
		*sb_idx = pi;
		*p_fw_cons = &sp->sb_info.sb_virt->pi_array[pi];
		return ECORE_SUCCESS;
	}
	return ECORE_NORESOURCES;
}

void
ecore_int_unregister_cb(struct ecore_hwfn *p_hwfn, uint8_t pi)
{
	if (p_hwfn->p_sp_sb == NULL || pi >= ECORE_SB_PI_NUM)
		return;
	p_hwfn->p_sp_sb->pi_info[pi].cb = NULL;
	p_hwfn->p_sp_sb->pi_info[pi].cookie = NULL;
}

/* ---- the DPC ---- */

unsigned int
ecore_int_sp_pending(struct ecore_hwfn *p_hwfn)
{
	struct ecore_sb_sp_info *sp = p_hwfn->p_sp_sb;
	struct ecore_sb_attn_info *at = p_hwfn->p_sb_attn;
	unsigned int rc = 0;

	if (sp == NULL || at == NULL)
		return 0;
	ecore_osal_rmb();
	if ((OMNI_LE32(__atomic_load_n(&sp->sb_info.sb_virt->prod_index, __ATOMIC_ACQUIRE)) &
	     ECORE_SB_PROD_MASK) != sp->sb_info.sb_ack)
		rc |= ECORE_SB_IDX;
	if (OMNI_LE16(__atomic_load_n(&at->sb_attn->sb_index, __ATOMIC_ACQUIRE)) != at->index)
		rc |= ECORE_SB_ATT_IDX;
	return rc;
}

/* The IGU command at BAR0 for attention-bit commands. */
static void
igu_attn_cmd(struct ecore_hwfn *p_hwfn, uint32_t cmd, uint32_t val)
{
	ecore_bar0_wr(p_hwfn, IGU_CMD_BAR_ADDR(cmd), val);
}

static void
int_assertion(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt, uint16_t asserted)
{
	struct ecore_sb_attn_info *at = p_hwfn->p_sb_attn;
	uint32_t mask;

	/* mask the lines while they are handled */
	mask = ecore_rd(p_hwfn, p_ptt, IGU_REG_ATTENTION_ENABLE);
	ecore_wr(p_hwfn, p_ptt, IGU_REG_ATTENTION_ENABLE, mask & ~(asserted & ATTN_BITS_MASKABLE));
	at->known_attn |= asserted;
	at->asserted += __builtin_popcount(asserted);
	if (asserted & ECORE_ATTN_BIT_MCP_EVENT) {
		at->mcp_events++;
		ecore_mcp_handle_events(p_hwfn, p_ptt);
		/* the MFW raised its general attention to us: clear it */
		ecore_wr(p_hwfn, p_ptt, at->mfw_attn_addr, 0);
	}
	if (asserted & ~ECORE_ATTN_BIT_MCP_EVENT) {
		at->unknown += __builtin_popcount(asserted & ~ECORE_ATTN_BIT_MCP_EVENT);
		ECORE_LOG(WARNING, "%s: attention lines 0x%03x asserted: not handled",
			  p_hwfn->name, asserted & ~ECORE_ATTN_BIT_MCP_EVENT);
	}
	igu_attn_cmd(p_hwfn, IGU_CMD_ATTN_BIT_SET_UPPER, asserted);
}

static void
int_deassertion(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt, uint16_t deasserted)
{
	struct ecore_sb_attn_info *at = p_hwfn->p_sb_attn;
	uint32_t mask;

	at->deasserted += __builtin_popcount(deasserted);
	igu_attn_cmd(p_hwfn, IGU_CMD_ATTN_BIT_CLR_UPPER, ~(uint32_t)deasserted);
	mask = ecore_rd(p_hwfn, p_ptt, IGU_REG_ATTENTION_ENABLE);
	ecore_wr(p_hwfn, p_ptt, IGU_REG_ATTENTION_ENABLE, mask | (deasserted & ATTN_BITS_MASKABLE));
	at->known_attn &= ~deasserted;
}

static void
int_attentions(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt)
{
	struct ecore_sb_attn_info *at = p_hwfn->p_sb_attn;
	uint32_t bits, acks;
	uint16_t index, asserted, deasserted;

	/* a consistent snapshot: the index did not move while reading */
	do {
		index = OMNI_LE16(__atomic_load_n(&at->sb_attn->sb_index, __ATOMIC_ACQUIRE));
		bits = OMNI_LE32(at->sb_attn->atten_bits);
		acks = OMNI_LE32(at->sb_attn->atten_ack);
		ecore_osal_rmb();
	} while (index != OMNI_LE16(__atomic_load_n(&at->sb_attn->sb_index, __ATOMIC_ACQUIRE)));
	at->index = index;

	asserted = bits & ~acks & ECORE_ATTN_STATE_BITS & ~at->known_attn;
	deasserted = ~bits & acks & ECORE_ATTN_STATE_BITS & at->known_attn;
	if (asserted)
		int_assertion(p_hwfn, p_ptt, asserted);
	if (deasserted)
		int_deassertion(p_hwfn, p_ptt, deasserted);
}

void
ecore_int_sp_dpc(struct ecore_hwfn *p_hwfn)
{
	struct ecore_sb_sp_info *sp = p_hwfn->p_sp_sb;
	struct ecore_sb_attn_info *at = p_hwfn->p_sb_attn;
	struct ecore_ptt *p_ptt;
	unsigned int rc = 0, round;
	uint8_t pi;

	if (sp == NULL || at == NULL || !sp->sb_info.initialized)
		return;
	ecore_osal_spin_lock(&sp->dpc_lock);
	/* no interrupt from this SB while we look */
	ecore_sb_ack(&sp->sb_info, IGU_INT_DISABLE, false);
	if (ecore_sb_update_sb_idx(&sp->sb_info))
		rc |= ECORE_SB_IDX;
	if (OMNI_LE16(__atomic_load_n(&at->sb_attn->sb_index, __ATOMIC_ACQUIRE)) != at->index)
		rc |= ECORE_SB_ATT_IDX;
	if (rc == 0)
		goto ack;
	sp->dpc_runs++;
	p_ptt = ecore_get_reserved_ptt(p_hwfn, RESERVED_PTT_DPC);
	/* Cleaning the MFW's attention drops its line at once (the device's
	 * answer to our write): handle that deassertion now too, so one DPC
	 * leaves the line ready for the next event (bounded). */
	for (round = 0; (rc & ECORE_SB_ATT_IDX) && round < 4; round++) {
		int_attentions(p_hwfn, p_ptt);
		if (OMNI_LE16(__atomic_load_n(&at->sb_attn->sb_index, __ATOMIC_ACQUIRE)) ==
		    at->index)
			break;
	}
	if (rc & ECORE_SB_IDX)
		for (pi = 0; pi < ECORE_SB_PI_NUM; pi++)
			if (sp->pi_info[pi].cb != NULL)
				sp->pi_info[pi].cb(p_hwfn, sp->pi_info[pi].cookie);
	if (rc & ECORE_SB_ATT_IDX)
		/* before the line is re-enabled, else the IGU raises it again */
		ecore_bar0_wr(p_hwfn, sp->sb_info.igu_addr,
			      ecore_igu_ack_word(at->index, IGU_INT_NOP, true,
						 IGU_SEG_ACCESS_ATTN));
ack:
	ecore_sb_ack(&sp->sb_info, IGU_INT_ENABLE, true);
	ecore_osal_spin_unlock(&sp->dpc_lock);
}
