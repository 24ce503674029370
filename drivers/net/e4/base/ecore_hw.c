/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* Register access: the PTT pool and GRC reads/writes through its windows. */

#include "ecore_hw.h"
#include "ecore_reg.h"

/** A window's GRC address when it points nowhere yet (forces a reprogram). */
#define PTT_INVALID_ADDR 0xffffffffu

struct ecore_ptt {
	uint8_t idx;		/**< window number, 0..11 */
	bool taken;		/**< reserved PTTs are always taken */
	uint32_t hw_addr;	/**< GRC byte address the window starts at */
};

struct ecore_ptt_pool {
	ecore_osal_spinlock_t lock;
	struct ecore_ptt ptts[PXP_EXTERNAL_BAR_PF_WINDOW_NUM];
};

const char *
ecore_status_str(enum _ecore_status_t rc)
{
	switch (rc) {
	case ECORE_SUCCESS: return "ECORE_SUCCESS";
	case ECORE_AGAIN: return "ECORE_AGAIN";
	case ECORE_NOTIMPL: return "ECORE_NOTIMPL";
	case ECORE_NOMEM: return "ECORE_NOMEM";
	case ECORE_IO: return "ECORE_IO";
	case ECORE_EXISTS: return "ECORE_EXISTS";
	case ECORE_INVAL: return "ECORE_INVAL";
	case ECORE_BUSY: return "ECORE_BUSY";
	case ECORE_TIMEOUT: return "ECORE_TIMEOUT";
	case ECORE_CANCELED: return "ECORE_CANCELED";
	case ECORE_NODEV: return "ECORE_NODEV";
	case ECORE_NORESOURCES: return "ECORE_NORESOURCES";
	}
	return "ECORE_?";
}

enum _ecore_status_t
ecore_ptt_pool_alloc(struct ecore_hwfn *p_hwfn)
{
	struct ecore_ptt_pool *pool;
	unsigned int i;

	pool = ecore_osal_zalloc(sizeof(*pool));
	if (pool == NULL)
		return ECORE_NOMEM;
	ecore_osal_spin_init(&pool->lock);
	for (i = 0; i < PXP_EXTERNAL_BAR_PF_WINDOW_NUM; i++) {
		pool->ptts[i].idx = i;
		pool->ptts[i].taken = i < RESERVED_PTT_MAX;
		pool->ptts[i].hw_addr = PTT_INVALID_ADDR;
	}
	p_hwfn->p_ptt_pool = pool;
	p_hwfn->p_main_ptt = &pool->ptts[RESERVED_PTT_MAIN];
	return ECORE_SUCCESS;
}

void
ecore_ptt_pool_free(struct ecore_hwfn *p_hwfn)
{
	ecore_osal_free(p_hwfn->p_ptt_pool);
	p_hwfn->p_ptt_pool = NULL;
	p_hwfn->p_main_ptt = NULL;
}

void
ecore_ptt_invalidate(struct ecore_hwfn *p_hwfn)
{
	unsigned int i;

	for (i = 0; i < PXP_EXTERNAL_BAR_PF_WINDOW_NUM; i++)
		p_hwfn->p_ptt_pool->ptts[i].hw_addr = PTT_INVALID_ADDR;
}

struct ecore_ptt *
ecore_ptt_acquire(struct ecore_hwfn *p_hwfn)
{
	struct ecore_ptt_pool *pool = p_hwfn->p_ptt_pool;
	unsigned int i, tries;

	/* 1000 tries 1 ms apart: a PTT is held only for a short flow. */
	for (tries = 0; tries < 1000; tries++) {
		ecore_osal_spin_lock(&pool->lock);
		for (i = RESERVED_PTT_MAX; i < PXP_EXTERNAL_BAR_PF_WINDOW_NUM; i++) {
			if (!pool->ptts[i].taken) {
				pool->ptts[i].taken = true;
				ecore_osal_spin_unlock(&pool->lock);
				return &pool->ptts[i];
			}
		}
		ecore_osal_spin_unlock(&pool->lock);
		ecore_osal_udelay(1000);
	}
	ECORE_LOG(ERR, "%s: no PTT came free in 1 s", p_hwfn->name);
	return NULL;
}

void
ecore_ptt_release(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt)
{
	if (p_ptt == NULL || p_ptt->idx < RESERVED_PTT_MAX)
		return;
	ecore_osal_spin_lock(&p_hwfn->p_ptt_pool->lock);
	p_ptt->taken = false;
	ecore_osal_spin_unlock(&p_hwfn->p_ptt_pool->lock);
}

struct ecore_ptt *
ecore_get_reserved_ptt(struct ecore_hwfn *p_hwfn, enum reserved_ptts idx)
{
	if (idx >= RESERVED_PTT_MAX)
		return NULL;
	return &p_hwfn->p_ptt_pool->ptts[idx];
}

unsigned int
ecore_ptt_pool_free_count(struct ecore_hwfn *p_hwfn)
{
	unsigned int i, n = 0;

	ecore_osal_spin_lock(&p_hwfn->p_ptt_pool->lock);
	for (i = RESERVED_PTT_MAX; i < PXP_EXTERNAL_BAR_PF_WINDOW_NUM; i++)
		n += !p_hwfn->p_ptt_pool->ptts[i].taken;
	ecore_osal_spin_unlock(&p_hwfn->p_ptt_pool->lock);
	return n;
}

uint32_t
ecore_ptt_get_bar_addr(const struct ecore_ptt *p_ptt)
{
	return PXP_EXTERNAL_BAR_PF_WINDOW_START +
		p_ptt->idx * PXP_EXTERNAL_BAR_PF_WINDOW_SINGLE_SIZE;
}

/* The BAR0 offset that reaches GRC @p hw_addr, moving the window if needed. */
static uint32_t
ptt_bar_offset(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt, uint32_t hw_addr)
{
	if (p_ptt->hw_addr == PTT_INVALID_ADDR || hw_addr < p_ptt->hw_addr ||
	    hw_addr - p_ptt->hw_addr >= PXP_EXTERNAL_BAR_PF_WINDOW_SINGLE_SIZE) {
		p_ptt->hw_addr = hw_addr & ~3u;
		ecore_bar0_wr(p_hwfn, PXP_PF_WINDOW_ADMIN_PER_PF_START +
			      p_ptt->idx * PXP_PTT_ENTRY_SIZE,
			      (p_ptt->hw_addr >> 2) & PXP_PTT_ENTRY_OFFSET_MASK);
	}
	return ecore_ptt_get_bar_addr(p_ptt) + (hw_addr - p_ptt->hw_addr);
}

uint32_t
ecore_rd(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt, uint32_t hw_addr)
{
	return ecore_bar0_rd(p_hwfn, ptt_bar_offset(p_hwfn, p_ptt, hw_addr));
}

void
ecore_wr(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt, uint32_t hw_addr, uint32_t val)
{
	ecore_bar0_wr(p_hwfn, ptt_bar_offset(p_hwfn, p_ptt, hw_addr), val);
}

void
ecore_memcpy_from(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt, void *dest,
		  uint32_t hw_addr, size_t n)
{
	uint8_t *d = dest;
	size_t i;

	for (i = 0; i + 4 <= n; i += 4)
		omni_put_le32(d + i, ecore_rd(p_hwfn, p_ptt, hw_addr + i));
}

void
ecore_memcpy_to(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt, uint32_t hw_addr,
		const void *src, size_t n)
{
	const uint8_t *s = src;
	size_t i;

	for (i = 0; i + 4 <= n; i += 4)
		ecore_wr(p_hwfn, p_ptt, hw_addr + i, omni_get_le32(s + i));
}

/* GRC address >> 12 of global windows 0..14 (0: not programmed). */
static const uint32_t pxp_global_win[] = {
	0, 0, 0x1c02, 0x1c80, 0x1d00, 0x1d01, 0x1d02, 0x1d80, 0x1d81, 0x1d82,
	0x1e00, 0x1e01, 0x1e80, 0x1f00, 0x1c08,
};

void
ecore_gtt_init(struct ecore_hwfn *p_hwfn)
{
	unsigned int i;

	for (i = 0; i < ECORE_ARRAY_SIZE(pxp_global_win); i++)
		if (pxp_global_win[i] != 0)
			ecore_bar0_wr(p_hwfn, PXP_PF_WINDOW_ADMIN_GLOBAL_START +
				      i * PXP_GLOBAL_ENTRY_SIZE, pxp_global_win[i]);
}
