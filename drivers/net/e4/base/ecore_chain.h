/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _ECORE_CHAIN_H_
#define _ECORE_CHAIN_H_

/**
 * @file
 * Chains (the guide's chapter "Chain"): rings of fixed-size elements in 4 KiB
 * pages of DMA memory, walked with u16 running indices that the device copies:
 *
 * - NEXT_PTR: each page ends with a next-page pointer (16 B: the next page's
 *   device address and a host pointer) that takes the last
 *   1 + (16 - 1) / elem_size element slots; the indices skip these slots, so
 *   a page of 8 B elements holds 512 slots and 510 usable ones.
 * - PBL: the pages are listed in a page table (8 B per page, the device
 *   address); no slot is lost.
 * - SINGLE: one page; no slot is lost.
 *
 * Indices are u16 and wrap; a page holds a power of two of slots, so a wrap
 * always falls on a page boundary. The page an index is in is tracked beside
 * it (the page count need not divide the u16 space).
 *
 * The index arithmetic (ecore_chain_geometry(), ecore_chain_*_idx(),
 * ecore_chain_get_elem_used/left()) needs no memory and no EAL; the model
 * uses it too, to walk a chain as the device does.
 */

#include "ecore.h"
#include "ecore_hsi.h"

/** How the pages of a chain are linked. */
enum ecore_chain_mode {
	ECORE_CHAIN_MODE_NEXT_PTR,	/**< next-page pointer in each page's last slots */
	ECORE_CHAIN_MODE_SINGLE,	/**< one page */
	ECORE_CHAIN_MODE_PBL,		/**< a page table */
};

/** The next-page pointer at the end of a NEXT_PTR page (16 B). */
struct ecore_chain_next {
	uint32_t next_lo;	/**< device address of the next page */
	uint32_t next_hi;
	uint64_t next_virt;	/**< host pointer (the driver's own use) */
};

/** Largest u16 index distance a chain may span: its usable capacity is below it. */
#define ECORE_CHAIN_MAX_CAPACITY 32768u

/** A chain: geometry, indices and memory. */
struct ecore_chain {
	enum ecore_chain_mode mode;
	uint16_t elem_size;		/**< bytes */
	uint16_t elem_per_page;		/**< slots per page (power of two) */
	uint16_t usable_per_page;	/**< slots the indices use */
	uint16_t elem_unusable;		/**< next-pointer slots per page (NEXT_PTR) */
	uint16_t page_cnt;
	uint32_t capacity;		/**< usable elements: page_cnt * usable_per_page */
	uint16_t prod_idx;		/**< running producer index */
	uint16_t cons_idx;		/**< running consumer index */
	uint16_t prod_page;		/**< page of prod_idx, 0..page_cnt-1 */
	uint16_t cons_page;		/**< page of cons_idx */
	struct ecore_dma_mem *pages;	/**< page_cnt pages (NULL: geometry only) */
	struct ecore_dma_mem pbl;	/**< PBL mode: page_cnt 8-byte entries */
};

/**
 * Set a chain's geometry and zero its indices (no memory).
 *
 * @param num_elems  usable elements wanted; rounded up to whole pages.
 * @return 0, or ECORE_INVAL (element size 0 or above a page, SINGLE asking
 *         more than a page, capacity above ECORE_CHAIN_MAX_CAPACITY).
 */
enum _ecore_status_t ecore_chain_geometry(struct ecore_chain *c, enum ecore_chain_mode mode,
					  uint16_t elem_size, uint32_t num_elems);

/** The index after @p idx, skipping next-pointer slots; *new_page when it starts a page. */
static inline uint16_t
ecore_chain_idx_next(const struct ecore_chain *c, uint16_t idx, bool *new_page)
{
	uint16_t mask = c->elem_per_page - 1;

	idx++;
	if ((idx & mask) == c->usable_per_page)
		idx += c->elem_unusable;
	*new_page = (idx & mask) == 0;
	return idx;
}

/** Slot number (page * elem_per_page + slot in page) of an index in page @p page. */
static inline uint32_t
ecore_chain_slot(const struct ecore_chain *c, uint16_t page, uint16_t idx)
{
	return (uint32_t)page * c->elem_per_page + (idx & (c->elem_per_page - 1));
}

/** Advance the producer; @return the slot it held (see ecore_chain_slot()). */
static inline uint32_t
ecore_chain_produce_idx(struct ecore_chain *c)
{
	uint32_t slot = ecore_chain_slot(c, c->prod_page, c->prod_idx);
	bool np;

	c->prod_idx = ecore_chain_idx_next(c, c->prod_idx, &np);
	if (np)
		c->prod_page = (c->prod_page + 1) % c->page_cnt;
	return slot;
}

/** Advance the consumer; @return the slot it held. */
static inline uint32_t
ecore_chain_consume_idx(struct ecore_chain *c)
{
	uint32_t slot = ecore_chain_slot(c, c->cons_page, c->cons_idx);
	bool np;

	c->cons_idx = ecore_chain_idx_next(c, c->cons_idx, &np);
	if (np)
		c->cons_page = (c->cons_page + 1) % c->page_cnt;
	return slot;
}

/** Elements between consumer and producer (skipped slots not counted). */
static inline uint32_t
ecore_chain_get_elem_used(const struct ecore_chain *c)
{
	uint16_t used = c->prod_idx - c->cons_idx;

	if (c->elem_unusable != 0) {
		/* pages of the u16 index space crossed from cons to prod */
		uint32_t pages_u16 = 65536u / c->elem_per_page;
		uint32_t crossed = ((uint32_t)(c->prod_idx / c->elem_per_page) + pages_u16 -
				    c->cons_idx / c->elem_per_page) % pages_u16;

		used -= crossed * c->elem_unusable;
	}
	return used;
}

/** Elements that can still be produced. */
static inline uint32_t
ecore_chain_get_elem_left(const struct ecore_chain *c)
{
	return c->capacity - ecore_chain_get_elem_used(c);
}

/** Zero the indices (pages kept). */
static inline void
ecore_chain_reset(struct ecore_chain *c)
{
	c->prod_idx = c->cons_idx = 0;
	c->prod_page = c->cons_page = 0;
}

/** Host pointer of slot @p slot (a chain with memory). */
static inline void *
ecore_chain_slot_virt(const struct ecore_chain *c, uint32_t slot)
{
	return (uint8_t *)c->pages[slot / c->elem_per_page].va +
		(size_t)(slot % c->elem_per_page) * c->elem_size;
}

/** The element at the producer, then advance it. */
static inline void *
ecore_chain_produce(struct ecore_chain *c)
{
	return ecore_chain_slot_virt(c, ecore_chain_produce_idx(c));
}

/** The element at the consumer, then advance it. */
static inline void *
ecore_chain_consume(struct ecore_chain *c)
{
	return ecore_chain_slot_virt(c, ecore_chain_consume_idx(c));
}

/** The element at the consumer, not advancing. */
static inline void *
ecore_chain_peek_cons(const struct ecore_chain *c)
{
	return ecore_chain_slot_virt(c, ecore_chain_slot(c, c->cons_page, c->cons_idx));
}

/** Device address of page 0 (SINGLE/NEXT_PTR: the ring base). */
static inline uint64_t
ecore_chain_base_iova(const struct ecore_chain *c)
{
	return c->pages[0].iova;
}

/**
 * Allocate a chain: geometry (ecore_chain_geometry()), one DMA page per
 * page, the next pointers (NEXT_PTR) or the page table (PBL).
 *
 * @param what  name of the chain for its DMA memory ("eq", "spq", ...).
 * @return 0, ECORE_INVAL (geometry) or ECORE_NOMEM; nothing is kept on failure.
 */
enum _ecore_status_t ecore_chain_alloc(struct ecore_dev *p_dev, const char *what,
				       enum ecore_chain_mode mode, uint16_t elem_size,
				       uint32_t num_elems, struct ecore_chain *c);

/** Free a chain's memory (an empty chain is fine); the chain is zeroed. */
void ecore_chain_free(struct ecore_chain *c);

#endif /* _ECORE_CHAIN_H_ */
