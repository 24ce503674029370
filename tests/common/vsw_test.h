/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * A vhost-user-rdma switch for the tests, fuzz targets and benchmarks: its
 * devices numbered as the backend numbers them, each with a RoCE and a
 * guest receive ring the test reads, and no wire port.
 */

#ifndef VSW_TEST_H
#define VSW_TEST_H

#include <stdio.h>

#include <rte_malloc.h>
#include <rte_ring.h>

#include "vswitch.h"

/* Free a switch made by vsw_test_create() (its rings and station table). */
static inline void
vsw_test_free(struct vsw *sw)
{
	unsigned int i;

	if (sw == NULL)
		return;
	for (i = 0; i < sw->nb_devs; i++) {
		rte_ring_free(sw->devs[i].roce_rx);
		rte_ring_free(sw->devs[i].net_rx);
	}
	vsw_fdb_free(sw);
	rte_free(sw);
}

/*
 * A switch of @p nb devices with MACs 02:56:52:44:4d:0i and rings of
 * @p ring entries named "<prefix>_roce_rx<i>" / "<prefix>_net_rx<i>"; flood
 * copies come from @p pool. No station table. @return NULL on failure.
 */
static inline struct vsw *
vsw_test_create(const char *prefix, unsigned int nb, unsigned int ring,
		struct rte_mempool *pool)
{
	struct vsw *sw = rte_zmalloc(prefix, sizeof(*sw), RTE_CACHE_LINE_SIZE);
	unsigned int i;

	if (sw == NULL || nb > VSW_MAX_DEVS) {
		rte_free(sw);
		return NULL;
	}
	sw->pool = pool;
	sw->nb_devs = nb;
	for (i = 0; i < nb; i++) {
		char name[RTE_RING_NAMESIZE];

		sw->devs[i].mac = (struct rte_ether_addr){ { 0x02, 0x56, 0x52, 0x44, 0x4d,
							     (uint8_t)i } };
		snprintf(name, sizeof(name), "%s_roce_rx%u", prefix, i);
		sw->devs[i].roce_rx = rte_ring_create(name, ring, SOCKET_ID_ANY, 0);
		snprintf(name, sizeof(name), "%s_net_rx%u", prefix, i);
		sw->devs[i].net_rx = rte_ring_create(name, ring, SOCKET_ID_ANY, 0);
		if (sw->devs[i].roce_rx == NULL || sw->devs[i].net_rx == NULL) {
			vsw_test_free(sw);
			return NULL;
		}
	}
	return sw;
}

#endif /* VSW_TEST_H */
