/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* Chains: geometry, and their pages in DMA memory (ecore_chain.h). */

#include "ecore_chain.h"

enum _ecore_status_t
ecore_chain_geometry(struct ecore_chain *c, enum ecore_chain_mode mode, uint16_t elem_size,
		     uint32_t num_elems)
{
	uint32_t per_page, unusable = 0, pages;

	memset(c, 0, sizeof(*c));
	if (elem_size == 0 || elem_size > ECORE_CHAIN_PAGE_SIZE || num_elems == 0)
		return ECORE_INVAL;
	/* slots per page: the largest power of two that fits */
	per_page = ECORE_CHAIN_PAGE_SIZE / elem_size;
	while (per_page & (per_page - 1))
		per_page &= per_page - 1;
	if (mode == ECORE_CHAIN_MODE_NEXT_PTR) {
		unusable = 1 + (sizeof(struct ecore_chain_next) - 1) / elem_size;
		if (unusable >= per_page)
			return ECORE_INVAL;
	}
	pages = ECORE_DIV_ROUND_UP(num_elems, per_page - unusable);
	if (mode == ECORE_CHAIN_MODE_SINGLE && pages > 1)
		return ECORE_INVAL;
	if ((uint64_t)pages * (per_page - unusable) > ECORE_CHAIN_MAX_CAPACITY)
		return ECORE_INVAL;
	c->mode = mode;
	c->elem_size = elem_size;
	c->elem_per_page = per_page;
	c->elem_unusable = unusable;
	c->usable_per_page = per_page - unusable;
	c->page_cnt = pages;
	c->capacity = pages * c->usable_per_page;
	return ECORE_SUCCESS;
}

void
ecore_chain_free(struct ecore_chain *c)
{
	unsigned int i;

	if (c->pages != NULL) {
		for (i = 0; i < c->page_cnt; i++)
			ecore_osal_dma_free(&c->pages[i]);
		ecore_osal_free(c->pages);
	}
	ecore_osal_dma_free(&c->pbl);
	memset(c, 0, sizeof(*c));
}

enum _ecore_status_t
ecore_chain_alloc(struct ecore_dev *p_dev, const char *what, enum ecore_chain_mode mode,
		  uint16_t elem_size, uint32_t num_elems, struct ecore_chain *c)
{
	enum _ecore_status_t rc;
	unsigned int i;

	rc = ecore_chain_geometry(c, mode, elem_size, num_elems);
	if (rc != ECORE_SUCCESS) {
		ECORE_LOG(ERR, "%s: bad %s chain: %u elements of %u bytes, mode %d",
			  p_dev->name, what, num_elems, elem_size, mode);
		return rc;
	}
	c->pages = ecore_osal_zalloc(sizeof(*c->pages) * c->page_cnt);
	if (c->pages == NULL)
		goto nomem;
	for (i = 0; i < c->page_cnt; i++)
		if (ecore_osal_dma_alloc(&c->pages[i], p_dev->name, what, i,
					 ECORE_CHAIN_PAGE_SIZE, ECORE_CHAIN_PAGE_SIZE) != 0)
			goto nomem;
	if (mode == ECORE_CHAIN_MODE_PBL) {
		if (ecore_osal_dma_alloc(&c->pbl, p_dev->name, what, 0xffff,
					 (size_t)c->page_cnt * 8, ECORE_CHAIN_PAGE_SIZE) != 0)
			goto nomem;
		for (i = 0; i < c->page_cnt; i++)
			omni_put_le64((uint8_t *)c->pbl.va + 8 * i, c->pages[i].iova);
	} else if (mode == ECORE_CHAIN_MODE_NEXT_PTR) {
		for (i = 0; i < c->page_cnt; i++) {
			const struct ecore_dma_mem *next = &c->pages[(i + 1) % c->page_cnt];
			uint8_t *p = (uint8_t *)c->pages[i].va +
				(size_t)c->usable_per_page * elem_size;

			omni_put_le32(p, (uint32_t)next->iova);
			omni_put_le32(p + 4, (uint32_t)(next->iova >> 32));
			omni_put_le64(p + 8, (uint64_t)(uintptr_t)next->va);
		}
	}
	return ECORE_SUCCESS;
nomem:
	ECORE_LOG(ERR, "%s: no DMA memory for the %s chain (%u pages)", p_dev->name, what,
		  c->page_cnt);
	ecore_chain_free(c);
	return ECORE_NOMEM;
}
