/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* ILT/CDU context memory and CIDs (ecore_cxt.h). */

#include "ecore_cxt.h"
#include "ecore_hw.h"
#include "ecore_init_ops.h"
#include "ecore_mcp.h"
#include "ecore_rt_defs.h"

/* The connection types an L2 PF has, in CID order. */
enum { CXT_CORE, CXT_ETH, CXT_NUM_TYPES };

struct ecore_cxt_mngr {
	ecore_osal_spinlock_t lock;
	uint32_t count[CXT_NUM_TYPES];	/* CIDs per type (aligned) */
	uint32_t start[CXT_NUM_TYPES];	/* first CID of each type */
	uint32_t total_cids;
	uint32_t first_line;		/* absolute ILT line of CID 0 */
	uint32_t max_lines;		/* lines the PF may use */
	uint32_t lines;			/* lines allocated */
	struct ecore_dma_mem *pages;	/* one 64 KiB page per line */
	uint64_t *taken;		/* bitmap of acquired CIDs */
};

static int
cxt_type(int protocol)
{
	switch (protocol) {
	case PROTOCOLID_CORE: return CXT_CORE;
	case PROTOCOLID_ETH: return CXT_ETH;
	}
	return -1;
}

uint32_t
ecore_cxt_cdu_params(void)
{
	uint32_t waste = ILT_PAGE_SIZE - ECORE_CXT_PER_PAGE * ECORE_CONN_CXT_SIZE;

	return ECORE_CONN_CXT_SIZE | waste << 12 | (uint32_t)ECORE_CXT_PER_PAGE << 24;
}

enum _ecore_status_t
ecore_cxt_mngr_alloc(struct ecore_hwfn *p_hwfn)
{
	struct ecore_cxt_mngr *mg = ecore_osal_zalloc(sizeof(*mg));

	if (mg == NULL)
		return ECORE_NOMEM;
	ecore_osal_spin_init(&mg->lock);
	mg->first_line = (uint32_t)p_hwfn->rel_pf_id * ECORE_CXT_DEFAULT_ILT_LINES;
	mg->max_lines = ECORE_CXT_DEFAULT_ILT_LINES;
	p_hwfn->p_cxt_mngr = mg;
	return ECORE_SUCCESS;
}

static void
cxt_tables_free(struct ecore_cxt_mngr *mg)
{
	uint32_t i;

	if (mg->pages != NULL) {
		for (i = 0; i < mg->lines; i++)
			ecore_osal_dma_free(&mg->pages[i]);
		ecore_osal_free(mg->pages);
	}
	mg->pages = NULL;
	mg->lines = 0;
	ecore_osal_free(mg->taken);
	mg->taken = NULL;
}

void
ecore_cxt_mngr_free(struct ecore_hwfn *p_hwfn)
{
	if (p_hwfn->p_cxt_mngr == NULL)
		return;
	cxt_tables_free(p_hwfn->p_cxt_mngr);
	ecore_osal_free(p_hwfn->p_cxt_mngr);
	p_hwfn->p_cxt_mngr = NULL;
}

enum _ecore_status_t
ecore_cxt_set_ilt_range(struct ecore_hwfn *p_hwfn, uint32_t first_line, uint32_t num_lines)
{
	struct ecore_cxt_mngr *mg = p_hwfn->p_cxt_mngr;

	if (num_lines == 0 || first_line + num_lines > PSWRQ2_REG_ILT_MEMORY_LINES ||
	    mg->pages != NULL)
		return ECORE_INVAL;
	mg->first_line = first_line;
	mg->max_lines = num_lines;
	return ECORE_SUCCESS;
}

enum _ecore_status_t
ecore_cxt_set_pf_params(struct ecore_hwfn *p_hwfn, uint32_t num_l2_cons)
{
	struct ecore_cxt_mngr *mg = p_hwfn->p_cxt_mngr;
	uint32_t core = ECORE_ALIGN_CEIL(1u, ECORE_CXT_CID_ALIGN);
	uint32_t eth = ECORE_ALIGN_CEIL(num_l2_cons, ECORE_CXT_CID_ALIGN);

	if (num_l2_cons == 0 || num_l2_cons > 0x10000 ||
	    ECORE_DIV_ROUND_UP(core + eth, ECORE_CXT_PER_PAGE) > mg->max_lines) {
		ECORE_LOG(ERR, "%s: %u L2 connections do not fit in %u ILT lines",
			  p_hwfn->name, num_l2_cons, mg->max_lines);
		return ECORE_INVAL;
	}
	mg->count[CXT_CORE] = core;
	mg->count[CXT_ETH] = eth;
	mg->start[CXT_CORE] = 0;
	mg->start[CXT_ETH] = core;
	mg->total_cids = core + eth;
	return ECORE_SUCCESS;
}

enum _ecore_status_t
ecore_cxt_tables_alloc(struct ecore_hwfn *p_hwfn)
{
	struct ecore_cxt_mngr *mg = p_hwfn->p_cxt_mngr;
	uint32_t i, lines;

	if (mg->total_cids == 0)
		return ECORE_INVAL;	/* set_pf_params first */
	cxt_tables_free(mg);
	lines = ECORE_DIV_ROUND_UP(mg->total_cids, ECORE_CXT_PER_PAGE);
	mg->pages = ecore_osal_zalloc(sizeof(*mg->pages) * lines);
	mg->taken = ecore_osal_zalloc(sizeof(*mg->taken) * ECORE_DIV_ROUND_UP(mg->total_cids, 64));
	if (mg->pages == NULL || mg->taken == NULL)
		goto nomem;
	mg->lines = lines;
	for (i = 0; i < lines; i++)
		if (ecore_osal_dma_alloc(&mg->pages[i], p_hwfn->p_dev->name, "ilt", i,
					 ILT_PAGE_SIZE, 4096) != 0)
			goto nomem;
	return ECORE_SUCCESS;
nomem:
	ECORE_LOG(ERR, "%s: no DMA memory for %u ILT pages", p_hwfn->name, lines);
	cxt_tables_free(mg);
	return ECORE_NOMEM;
}

void
ecore_cxt_mngr_setup(struct ecore_hwfn *p_hwfn)
{
	struct ecore_cxt_mngr *mg = p_hwfn->p_cxt_mngr;
	uint32_t i;

	ecore_osal_spin_lock(&mg->lock);
	if (mg->taken != NULL)
		memset(mg->taken, 0, sizeof(*mg->taken) * ECORE_DIV_ROUND_UP(mg->total_cids, 64));
	for (i = 0; i < mg->lines; i++)
		memset(mg->pages[i].va, 0, ILT_PAGE_SIZE);
	ecore_osal_spin_unlock(&mg->lock);
}

uint32_t
ecore_cxt_ilt_first_line(struct ecore_hwfn *p_hwfn)
{
	return p_hwfn->p_cxt_mngr->first_line;
}

uint32_t
ecore_cxt_ilt_lines_used(struct ecore_hwfn *p_hwfn)
{
	return p_hwfn->p_cxt_mngr->lines;
}

uint64_t
ecore_cxt_ilt_entry(struct ecore_hwfn *p_hwfn, uint32_t i)
{
	struct ecore_cxt_mngr *mg = p_hwfn->p_cxt_mngr;

	if (i >= mg->lines)
		return 0;
	return ((mg->pages[i].iova >> 12) & ILT_ENTRY_ADDR_MASK) | ILT_ENTRY_VALID;
}

void
ecore_cxt_hw_init_pf(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt)
{
	struct ecore_cxt_mngr *mg = p_hwfn->p_cxt_mngr;
	uint32_t i, line[2];
	uint64_t e;

	RTE_SET_USED(p_ptt);
	ecore_init_store_rt_reg(p_hwfn, CDU_REG_CID_ADDR_PARAMS_RT_OFFSET, ecore_cxt_cdu_params());
	ecore_init_store_rt_reg(p_hwfn, PSWRQ2_REG_CDUC_P_SIZE_RT_OFFSET, ILT_PAGE_SIZE_CODE);
	ecore_init_store_rt_reg(p_hwfn, PSWRQ2_REG_CDUC_FIRST_ILT_RT_OFFSET, mg->first_line);
	ecore_init_store_rt_reg(p_hwfn, PSWRQ2_REG_CDUC_LAST_ILT_RT_OFFSET,
				mg->first_line + mg->lines - 1);
	for (i = 0; i < mg->lines; i++) {
		e = ecore_cxt_ilt_entry(p_hwfn, i);
		line[0] = (uint32_t)e;
		line[1] = (uint32_t)(e >> 32);
		ecore_init_store_rt_agg(p_hwfn,
					PSWRQ2_REG_ILT_MEMORY_RT_OFFSET + 2 * (mg->first_line + i),
					line, RTE_DIM(line));
	}
}

enum _ecore_status_t
ecore_cxt_hw_write_pf(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt)
{
	struct ecore_cxt_mngr *mg = p_hwfn->p_cxt_mngr;
	enum _ecore_status_t rc;
	uint32_t i, line[2];
	uint64_t e;

	ecore_wr(p_hwfn, p_ptt, CDU_REG_CID_ADDR_PARAMS, ecore_cxt_cdu_params());
	ecore_wr(p_hwfn, p_ptt, PSWRQ2_REG_CDUC_P_SIZE, ILT_PAGE_SIZE_CODE);
	ecore_wr(p_hwfn, p_ptt, PSWRQ2_REG_CDUC_FIRST_ILT, mg->first_line);
	ecore_wr(p_hwfn, p_ptt, PSWRQ2_REG_CDUC_LAST_ILT, mg->first_line + mg->lines - 1);
	for (i = 0; i < mg->lines; i++) {
		e = ecore_cxt_ilt_entry(p_hwfn, i);
		line[0] = OMNI_LE32((uint32_t)e);	/* DMAE copies LE dwords */
		line[1] = OMNI_LE32((uint32_t)(e >> 32));
		rc = ecore_dmae_host2grc(p_hwfn, p_ptt, line,
					 PSWRQ2_REG_ILT_MEMORY + 8 * (mg->first_line + i), 2);
		if (rc != ECORE_SUCCESS) {
			ECORE_LOG(ERR, "%s: ILT line %u: %s", p_hwfn->name, mg->first_line + i,
				  ecore_status_str(rc));
			return rc;
		}
	}
	return ECORE_SUCCESS;
}

enum _ecore_status_t
ecore_cxt_acquire_cid(struct ecore_hwfn *p_hwfn, int protocol, uint32_t *cid)
{
	struct ecore_cxt_mngr *mg = p_hwfn->p_cxt_mngr;
	int t = cxt_type(protocol);
	uint32_t c;

	if (t < 0 || mg == NULL || mg->taken == NULL) {
		ECORE_LOG(ERR, "%s: no CIDs of protocol %d", p_hwfn->name, protocol);
		return ECORE_INVAL;
	}
	ecore_osal_spin_lock(&mg->lock);
	for (c = mg->start[t]; c < mg->start[t] + mg->count[t]; c++) {
		if (mg->taken[c / 64] & (1ULL << (c % 64)))
			continue;
		mg->taken[c / 64] |= 1ULL << (c % 64);
		ecore_osal_spin_unlock(&mg->lock);
		*cid = c;
		return ECORE_SUCCESS;
	}
	ecore_osal_spin_unlock(&mg->lock);
	ECORE_LOG(ERR, "%s: all %u CIDs of protocol %d taken", p_hwfn->name, mg->count[t],
		  protocol);
	return ECORE_NORESOURCES;
}

enum _ecore_status_t
ecore_cxt_reserve_cid(struct ecore_hwfn *p_hwfn, uint32_t cid)
{
	struct ecore_cxt_mngr *mg = p_hwfn->p_cxt_mngr;
	bool was;

	if (mg == NULL || mg->taken == NULL || cid >= mg->total_cids)
		return ECORE_INVAL;
	ecore_osal_spin_lock(&mg->lock);
	was = mg->taken[cid / 64] & (1ULL << (cid % 64));
	mg->taken[cid / 64] |= 1ULL << (cid % 64);
	ecore_osal_spin_unlock(&mg->lock);
	return was ? ECORE_EXISTS : ECORE_SUCCESS;
}

void
ecore_cxt_release_cid(struct ecore_hwfn *p_hwfn, uint32_t cid)
{
	struct ecore_cxt_mngr *mg = p_hwfn->p_cxt_mngr;
	bool was;

	if (mg == NULL || mg->taken == NULL || cid >= mg->total_cids) {
		ECORE_LOG(WARNING, "%s: release of unknown CID %u", p_hwfn->name, cid);
		return;
	}
	ecore_osal_spin_lock(&mg->lock);
	was = mg->taken[cid / 64] & (1ULL << (cid % 64));
	mg->taken[cid / 64] &= ~(1ULL << (cid % 64));
	ecore_osal_spin_unlock(&mg->lock);
	if (!was)
		ECORE_LOG(WARNING, "%s: release of free CID %u", p_hwfn->name, cid);
}

enum _ecore_status_t
ecore_cxt_get_cid_info(struct ecore_hwfn *p_hwfn, uint32_t cid, void **ctx_virt,
		       uint64_t *ctx_iova)
{
	struct ecore_cxt_mngr *mg = p_hwfn->p_cxt_mngr;
	uint32_t line, off;

	if (mg == NULL || mg->pages == NULL || cid >= mg->total_cids)
		return ECORE_INVAL;
	line = cid / ECORE_CXT_PER_PAGE;
	off = (cid % ECORE_CXT_PER_PAGE) * ECORE_CONN_CXT_SIZE;
	if (ctx_virt != NULL)
		*ctx_virt = (uint8_t *)mg->pages[line].va + off;
	if (ctx_iova != NULL)
		*ctx_iova = mg->pages[line].iova + off;
	return ECORE_SUCCESS;
}
