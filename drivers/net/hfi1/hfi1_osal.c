/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* The base layer's environment on DPDK: DMA memory as EAL memzones (see
 * base/hfi1_osal.h for the rest of the seam, inline there).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_memzone.h>

#include "base/hfi1_osal.h"

int
hfi1_osal_dma_alloc(struct hfi1_dma_mem *m, const char *dev, const char *what,
		    unsigned int idx, size_t len, unsigned int align, int socket, bool contig)
{
	char name[RTE_MEMZONE_NAMESIZE];
	const struct rte_memzone *mz;

	memset(m, 0, sizeof(*m));
	if (snprintf(name, sizeof(name), "%.16s_%.6s%u", dev, what,
			idx & 0xFFFF) >= (int)sizeof(name))
		return -ENAMETOOLONG;
	mz = rte_memzone_reserve_aligned(name, len, socket,
			contig ? RTE_MEMZONE_IOVA_CONTIG : 0, align);
	if (mz == NULL) {
		HFI1_OSAL_LOG(ERR, "cannot reserve %zu bytes of DMA memory for %s",
				len, name);
		return -ENOMEM;
	}
	memset(mz->addr, 0, len);
	m->va = mz->addr;
	m->iova = mz->iova;
	m->priv = mz;
	return 0;
}

void
hfi1_osal_dma_free(struct hfi1_dma_mem *m)
{
	rte_memzone_free(m->priv);
	memset(m, 0, sizeof(*m));
}
