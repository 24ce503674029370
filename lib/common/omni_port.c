/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

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

void
omni_port_xstats_print(uint16_t port_id)
{
	char name[RTE_ETH_NAME_MAX_LEN];
	struct rte_eth_xstat_name *names = NULL;
	struct rte_eth_xstat *vals = NULL;
	int n, i;

	if (!rte_eth_dev_is_valid_port(port_id) ||
	    rte_eth_dev_get_name_by_port(port_id, name) != 0)
		return;
	n = rte_eth_xstats_get_names(port_id, NULL, 0);
	if (n <= 0)
		return;
	names = calloc(n, sizeof(*names));
	vals = calloc(n, sizeof(*vals));
	if (names != NULL && vals != NULL &&
	    rte_eth_xstats_get_names(port_id, names, n) == n &&
	    rte_eth_xstats_get(port_id, vals, n) == n) {
		printf("xstats port %u (%s):\n", port_id, name);
		for (i = 0; i < n; i++)
			if (vals[i].value != 0 && vals[i].id < (uint64_t)n)
				printf("  %s: %" PRIu64 "\n", names[vals[i].id].name,
				       vals[i].value);
	}
	free(names);
	free(vals);
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
