/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * vhost-user-rdma's switch, station learning on, against any frames from
 * any port: the wire's frames are untrusted, and so are a guest's. Input:
 * frames of [selector byte][length byte][bytes]; the selector names the
 * port and, often, puts a device's MAC or one of four stations' MACs in
 * the destination and a station in the source, as real traffic does. Each
 * input starts with an empty station table; each frame goes through the
 * switch stage alone.
 *
 * Oracles: a model of the rules, written again from the doc (learn the
 * source behind its port unless a wire host holds it; then a device's MAC,
 * else a station learned behind a device, else the wire or a drop), gives
 * each frame's fate and the learning counters: where the frame went (the
 * device and ring, the wire, a flood, which drop) and fdb_learned /
 * fdb_refused must agree; RoCE vs not is rte_net's reading
 * (vsw_is_roce_v2). The switch stage loses no mbuf (everything handed on,
 * in a device ring, or freed: the pool is full again after draining).
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

#include "vsw_test.h"

#define NB_DEVS 3
#define MAX_FRAMES 32
#define POOL 1023

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

	(void)argc;
	(void)argv;
	snprintf(prefix, sizeof(prefix), "--file-prefix=fuzz_vswitch_%d", (int)getpid());
	if (rte_eal_init(RTE_DIM(eal) - 1, eal) < 0)
		abort();
	pool = rte_pktmbuf_pool_create("fz_pool", POOL, 0, 0, RTE_PKTMBUF_HEADROOM + 512,
				       SOCKET_ID_ANY);
	/* rings of 16: each frame's deliveries are drained before the next */
	sw = pool != NULL ? vsw_test_create("fz", NB_DEVS, 16, pool) : NULL;
	if (sw == NULL)
		abort();
	return 0;
}

#define STATIONS 64

/* The model's station table: address -> owner (a device, or VSW_FDB_WIRE). */
static struct {
	uint8_t mac[6];
	uint16_t owner;
} model[STATIONS];
static unsigned int nb_model;

static int
own_dev(const uint8_t *mac)
{
	unsigned int i;

	for (i = 0; i < NB_DEVS; i++)
		if (memcmp(mac, sw->devs[i].mac.addr_bytes, 6) == 0)
			return (int)i;
	return -1;
}

static int
model_find(const uint8_t *mac)
{
	unsigned int i;

	for (i = 0; i < nb_model; i++)
		if (memcmp(model[i].mac, mac, 6) == 0)
			return (int)i;
	return -1;
}

/* Learn @p src behind @p port: @return +1 learned (by a device), -1 refused, 0 neither. */
static int
model_learn(const uint8_t *src, uint16_t port)
{
	uint16_t owner = port == VSW_WIRE ? VSW_FDB_WIRE : (uint16_t)(port - VSW_DEV0);
	static const uint8_t zero[6];
	int k;

	if ((src[0] & 1) || memcmp(src, zero, 6) == 0 || own_dev(src) >= 0)
		return 0;
	k = model_find(src);
	if (k >= 0 && model[k].owner == owner)
		return 0;
	/* a wire host's address is not a guest's to take (it spoke just now) */
	if (k >= 0 && model[k].owner == VSW_FDB_WIRE)
		return -1;
	if (k < 0) {
		if (nb_model == STATIONS)
			abort();
		k = (int)nb_model++;
		memcpy(model[k].mac, src, 6);
	}
	model[k].owner = owner;
	return owner == VSW_FDB_WIRE ? 0 : 1;
}

/* The fate of a frame after its source was learned: @return the verdict, with @p dev. */
static enum vsw_verdict
expected(const uint8_t *f, uint32_t len, uint16_t port, bool roce, int *dev)
{
	int d, k;
	bool own;

	if (len < 14)
		return VSW_DROP_RUNT;
	if (f[0] & 1)
		return VSW_FLOOD;
	d = own_dev(f);
	own = d >= 0;
	if (!own) {
		k = model_find(f);
		d = k >= 0 && model[k].owner != VSW_FDB_WIRE ? (int)model[k].owner : -1;
	}
	if (d < 0)
		return port == VSW_WIRE ? VSW_DROP_UNKNOWN : VSW_TO_WIRE;
	*dev = d;
	if (port == VSW_DEV0 + (unsigned int)d)
		return own && roce ? VSW_TO_ROCE : VSW_DROP_SELF;
	return roce ? VSW_TO_ROCE : VSW_TO_GUEST;
}

static void
drain(struct rte_ring *r)
{
	struct rte_mbuf *m;

	while (rte_ring_dequeue(r, (void **)&m) == 0)
		rte_pktmbuf_free(m);
}

/* Counters of the switch's one lcore. */
static struct vsw_stats *
stats(void)
{
	return &sw->lcore[rte_lcore_id()].st;
}

/* Check that the frame just switched met the fate the model gives it. */
static void
check_fate(const struct vsw_stats *b, uint16_t out, enum vsw_verdict want, int dev,
	   uint16_t port)
{
	const struct vsw_stats *a = stats();
	unsigned int i;

	switch (want) {
	case VSW_TO_WIRE:
		if (out != 1 || a->to_wire - b->to_wire != 1)
			abort();
		break;
	case VSW_TO_ROCE:
	case VSW_TO_GUEST:
		if (out != 0 || rte_ring_count(want == VSW_TO_ROCE ? sw->devs[dev].roce_rx :
					       sw->devs[dev].net_rx) != 1)
			abort();
		break;
	case VSW_FLOOD:
		/* a copy to every other guest, and on to the wire unless it came from it */
		for (i = 0; i < NB_DEVS; i++)
			if (rte_ring_count(sw->devs[i].net_rx) !=
			    (port == VSW_DEV0 + i ? 0u : 1u))
				abort();
		if (out != (port == VSW_WIRE ? 0 : 1) || a->flooded - b->flooded != 1)
			abort();
		break;
	case VSW_DROP_UNKNOWN:
		if (out != 0 || a->drop_unknown - b->drop_unknown != 1)
			abort();
		break;
	case VSW_DROP_SELF:
		if (out != 0 || a->drop_self - b->drop_self != 1)
			abort();
		break;
	case VSW_DROP_RUNT:
		if (out != 0 || a->drop_runt - b->drop_runt != 1)
			abort();
		break;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pipe_ctx ctx = { .lcore_id = rte_lcore_id(), .nb_workers = 1 };
	size_t at = 0;
	unsigned int n = 0, i;

	/* a fresh table per input: a finding replays alone */
	vsw_fdb_free(sw);
	memset(sw->fdb_count, 0, sizeof(sw->fdb_count));
	memset(sw->fdb_last, 0, sizeof(sw->fdb_last));
	if (vsw_fdb_create(sw, "fz_fdb") != 0)
		abort();
	nb_model = 0;
	while (n < MAX_FRAMES && at + 2 <= size) {
		uint8_t sel = data[at];
		uint16_t port = sel % (NB_DEVS + 1);
		uint32_t len = RTE_MIN((uint32_t)data[at + 1] * 2, (uint32_t)(size - at - 2));
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		struct vsw_stats before = *stats();
		enum vsw_verdict want;
		int64_t learned;
		int want_dev = -1, l;
		uint16_t out;
		uint8_t *p;

		if (m == NULL)
			abort();
		p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
		if (p == NULL)
			abort();
		memcpy(p, data + at + 2, len);
		/* stations 52:54:00:00:00:0k, and the devices' MACs, often */
		if (len >= 6 && (sel & 0x80))
			memcpy(p, sw->devs[(sel >> 2) % NB_DEVS].mac.addr_bytes, 6);
		else if (len >= 6 && (sel & 0x20))
			memcpy(p, (const uint8_t[]){ 0x52, 0x54, 0, 0, 0, (sel >> 2) & 3 }, 6);
		if (len >= 12 && (sel & 0x40))
			memcpy(p + 6, (const uint8_t[]){ 0x52, 0x54, 0, 0, 0, (sel >> 4) & 3 }, 6);
		m->port = port;
		l = len >= 14 ? model_learn(p + 6, port) : 0;
		want = expected(p, len, port, len >= 14 && vsw_is_roce_v2(m), &want_dev);
		out = vsw_switch(sw, &m, 1, &ctx);
		check_fate(&before, out, want, want_dev, port);
		learned = (int64_t)(stats()->fdb_learned - before.fdb_learned) -
			(int64_t)(stats()->fdb_refused - before.fdb_refused);
		if (learned != l)
			abort();
		if (out > 0)
			rte_pktmbuf_free(m);
		for (i = 0; i < NB_DEVS; i++) {
			drain(sw->devs[i].roce_rx);
			drain(sw->devs[i].net_rx);
		}
		n++;
		at += 2 + len;
	}
	if (rte_mempool_avail_count(pool) != POOL)
		abort();
	return 0;
}
