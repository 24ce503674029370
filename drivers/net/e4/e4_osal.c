/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* The ecore layer's environment on DPDK (base/ecore_osal.h): the log type,
 * DMA memory as EAL memzones (counted), and IOVA lookups for the model. */

#include <inttypes.h>
#include <stdio.h>

#include <rte_memory.h>
#include <rte_memzone.h>

#include "base/ecore_osal.h"

RTE_LOG_REGISTER(e4_logtype, pmd.net.e4, NOTICE);

static unsigned int dma_in_use;
static unsigned int dma_seq;

int
ecore_osal_dma_alloc(struct ecore_dma_mem *m, const char *dev, const char *what,
		     unsigned int idx, size_t len, unsigned int align)
{
	char name[RTE_MEMZONE_NAMESIZE];
	const struct rte_memzone *mz;

	memset(m, 0, sizeof(*m));
	/* A sequence number keeps names unique across re-allocations. */
	if (snprintf(name, sizeof(name), "%.12s_%.8s%u_%u", dev, what, idx & 0xffff,
		     __atomic_fetch_add(&dma_seq, 1, __ATOMIC_RELAXED)) >= (int)sizeof(name))
		return -ENAMETOOLONG;
	mz = rte_memzone_reserve_aligned(name, len, SOCKET_ID_ANY, RTE_MEMZONE_IOVA_CONTIG,
					 align ? align : RTE_CACHE_LINE_SIZE);
	if (mz == NULL) {
		ECORE_LOG(ERR, "cannot reserve %zu bytes of DMA memory for %s", len, name);
		return -ENOMEM;
	}
	if (mz->iova == RTE_BAD_IOVA) {
		ECORE_LOG(ERR, "DMA memory %s has no device address (IOVA mode?)", name);
		rte_memzone_free(mz);
		return -EFAULT;
	}
	memset(mz->addr, 0, len);
	m->va = mz->addr;
	m->iova = mz->iova;
	m->len = len;
	m->priv = mz;
	__atomic_fetch_add(&dma_in_use, 1, __ATOMIC_RELAXED);
	return 0;
}

void
ecore_osal_dma_free(struct ecore_dma_mem *m)
{
	if (m->priv != NULL) {
		rte_memzone_free(m->priv);
		__atomic_fetch_sub(&dma_in_use, 1, __ATOMIC_RELAXED);
	}
	memset(m, 0, sizeof(*m));
}

unsigned int
ecore_osal_dma_in_use(void)
{
	return __atomic_load_n(&dma_in_use, __ATOMIC_RELAXED);
}

void *
ecore_osal_iova2virt(uint64_t iova, size_t len)
{
	uint8_t *va;

	if (len == 0 || iova + len < iova)
		return NULL;
	va = rte_mem_iova2virt(iova);
	if (va == NULL)
		return NULL;
	/* The whole range must be one contiguous block. */
	if (rte_mem_virt2iova(va + len - 1) != iova + len - 1)
		return NULL;
	return va;
}
