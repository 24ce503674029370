/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * vhost-user-rdma's switch against any frames from any port: the wire's
 * frames are untrusted, and so are a guest's. Input: frames of
 * [port byte][length byte][bytes]. No station learning (it is tested in
 * pmd_vswitch). Oracles: the verdict agrees with the destination MAC and the
 * source port (an independent reading of the rules), a RoCE verdict only
 * for a device's MAC; the switch stage loses no
 * mbuf (everything handed on, in a device ring, or freed: the pool is full
 * again after draining).
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "vswitch.h"

#define NB_DEVS 3
#define MAX_FRAMES 32
#define POOL 1023
#define VSW_DEV0u ((unsigned int)VSW_DEV0)

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct vsw *sw;
static struct rte_mempool *pool;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char prefix[64];
	char *eal[] = { "fuzz_vswitch", "--no-huge", "-m", "128", "--no-pci", "--no-shconf",
			"--no-telemetry", "-l", "0", "--log-level=lib.eal:error", prefix, NULL };
	unsigned int i;

	(void)argc;
	(void)argv;
	snprintf(prefix, sizeof(prefix), "--file-prefix=fuzz_vswitch_%d", (int)getpid());
	if (rte_eal_init(RTE_DIM(eal) - 1, eal) < 0)
		abort();
	pool = rte_pktmbuf_pool_create("fz_pool", POOL, 0, 0, RTE_PKTMBUF_HEADROOM + 512,
				       SOCKET_ID_ANY);
	sw = rte_zmalloc("fz_vsw", sizeof(*sw), RTE_CACHE_LINE_SIZE);
	if (pool == NULL || sw == NULL)
		abort();
	sw->pool = pool;
	sw->nb_devs = NB_DEVS;
	for (i = 0; i < NB_DEVS; i++) {
		char name[32];

		/* 02:56:52:44:4d:0i, as the backend numbers them */
		sw->devs[i].mac = (struct rte_ether_addr){ { 0x02, 0x56, 0x52, 0x44, 0x4d,
							     (uint8_t)i } };
		snprintf(name, sizeof(name), "fz_roce_rx%u", i);
		sw->devs[i].roce_rx = rte_ring_create(name, 16, SOCKET_ID_ANY, 0);
		snprintf(name, sizeof(name), "fz_net_rx%u", i);
		sw->devs[i].net_rx = rte_ring_create(name, 16, SOCKET_ID_ANY, 0);
		if (sw->devs[i].roce_rx == NULL || sw->devs[i].net_rx == NULL)
			abort();
	}
	return 0;
}

/* The rules, read again from the doc: @return the verdict expected, ignoring RoCE vs guest. */
static enum vsw_verdict
expected(const uint8_t *f, uint32_t len, uint16_t port, int *dev)
{
	unsigned int i;

	if (len < 14)
		return VSW_DROP_RUNT;
	if (f[0] & 1)
		return VSW_FLOOD;
	for (i = 0; i < NB_DEVS; i++) {
		if (memcmp(f, sw->devs[i].mac.addr_bytes, 6) != 0)
			continue;
		if (port == VSW_DEV0 + i)
			return VSW_DROP_SELF;
		*dev = (int)i;
		return VSW_TO_GUEST;
	}
	return port == VSW_WIRE ? VSW_DROP_UNKNOWN : VSW_TO_WIRE;
}

static void
drain(struct rte_ring *r)
{
	struct rte_mbuf *m;

	while (rte_ring_dequeue(r, (void **)&m) == 0)
		rte_pktmbuf_free(m);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pipe_ctx ctx = { .lcore_id = rte_lcore_id(), .nb_workers = 1 };
	struct rte_mbuf *pkts[MAX_FRAMES];
	unsigned int n = 0, i;
	size_t at = 0;
	uint16_t out;

	while (n < MAX_FRAMES && at + 2 <= size) {
		uint16_t port = data[at] % (NB_DEVS + 1);
		uint32_t len = RTE_MIN((uint32_t)data[at + 1] * 2, (uint32_t)(size - at - 2));
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		enum vsw_verdict want, got;
		unsigned int dev = 99;
		int want_dev = -1;
		char *p;

		if (m == NULL)
			abort();
		p = rte_pktmbuf_append(m, (uint16_t)len);
		if (p == NULL)
			abort();
		memcpy(p, data + at + 2, len);
		/* make the destination a device's MAC often, as real traffic is */
		if (len >= 6 && data[at] >= 0x80)
			memcpy(p, sw->devs[data[at] % NB_DEVS].mac.addr_bytes, 6);
		m->port = port;
		want = expected((const uint8_t *)p, len, port, &want_dev);
		got = vsw_classify(sw, m, &dev);
		/* a device's RoCE to its own MAC goes back to its engine */
		if (want == VSW_DROP_SELF && got == VSW_TO_ROCE && dev == port - VSW_DEV0u)
			got = want;
		if (got == VSW_TO_ROCE)
			got = VSW_TO_GUEST; /* the RoCE reading is rte_net's */
		if (got != want || (want == VSW_TO_GUEST && (int)dev != want_dev))
			abort();
		pkts[n++] = m;
		at += 2 + len;
	}
	out = vsw_switch(sw, pkts, (uint16_t)n, &ctx);
	if (out > n)
		abort();
	rte_pktmbuf_free_bulk(pkts, out);
	for (i = 0; i < NB_DEVS; i++) {
		drain(sw->devs[i].roce_rx);
		drain(sw->devs[i].net_rx);
	}
	if (rte_mempool_avail_count(pool) != POOL)
		abort();
	return 0;
}
