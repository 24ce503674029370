/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#include <stdio.h>

#include <rte_ethdev.h>

#include "omni_port.h"

void
omni_port_close(uint16_t port_id, bool started)
{
	if (!rte_eth_dev_is_valid_port(port_id))
		return;
	if (started)
		(void)rte_eth_dev_stop(port_id);
	(void)rte_eth_dev_close(port_id);
}

void
omni_ports_close_all(void)
{
	uint16_t p;

	/*
	 * Stop, then close: ethdev cannot say whether a port is started, and
	 * closing a started one is refused with an error line; stopping a
	 * stopped one logs only at INFO ("already stopped").
	 */
	RTE_ETH_FOREACH_DEV(p)
		omni_port_close(p, true);
}

bool
omni_pool_release(struct rte_mempool *pool, unsigned int nb_mbufs, bool report)
{
	unsigned int avail;
	bool ok = true;

	if (pool == NULL)
		return true;
	if (report) {
		avail = rte_mempool_avail_count(pool);
		printf("mbufs: %u of %u in the pool%s\n", avail, nb_mbufs,
		       avail == nb_mbufs ? "" : " (LEAK)");
		ok = avail == nb_mbufs;
	}
	rte_mempool_free(pool);
	return ok;
}
