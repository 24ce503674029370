/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_malloc.h>
#include <rte_telemetry.h>
#include <rte_net.h>
#include <rte_udp.h>

#include "omni_bytes.h"
#include "omni_counters.h"
#include "omni_num.h"
#include "roce.h"
#include "vswitch.h"

/* RoCE v2's UDP destination port (IANA). */
#define ROCE_V2_UDP_PORT 4791

RTE_LOG_REGISTER_DEFAULT(vsw_logtype, NOTICE);
#define VSW_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, vsw_logtype, "vhost-user-rdma: " fmt "\n", ##__VA_ARGS__)

bool
vsw_is_roce_v2(const struct rte_mbuf *m)
{
	struct rte_net_hdr_lens hl;
	struct rte_udp_hdr copy;
	const struct rte_udp_hdr *udp;
	uint32_t ptype;

	ptype = rte_net_get_ptype(m, &hl, RTE_PTYPE_L2_MASK | RTE_PTYPE_L3_MASK |
				  RTE_PTYPE_L4_MASK);
	if ((ptype & RTE_PTYPE_L4_MASK) != RTE_PTYPE_L4_UDP)
		return false;
	udp = rte_pktmbuf_read(m, hl.l2_len + hl.l3_len, sizeof(copy), &copy);
	return udp != NULL && udp->dst_port == RTE_BE16(ROCE_V2_UDP_PORT);
}

/*
 * The station table's hash over a MAC address. A frame's source address sits
 * 2 bytes past a 4-byte boundary, and rte_jhash's word loads need 4-byte
 * alignment (UBSan: misaligned load), so the address is read with byte-safe
 * loads into CRC32-C steps.
 */
static uint32_t
mac_hash(const void *key, uint32_t len, uint32_t init)
{
	const uint8_t *k = key;

	RTE_SET_USED(len); /* always RTE_ETHER_ADDR_LEN */
	return rte_hash_crc_2byte(omni_get_le16(k + 4), rte_hash_crc_4byte(omni_get_le32(k), init));
}

int
vsw_fdb_create(struct vsw *sw, const char *name)
{
	/* one writer and reader: the switch stage, on one lcore */
	struct rte_hash_parameters hp = {
		.name = name,
		.entries = VSW_FDB_ENTRIES,
		.key_len = RTE_ETHER_ADDR_LEN,
		.hash_func = mac_hash,
		.socket_id = (int)rte_socket_id(),
	};
	int32_t max;

	sw->fdb = rte_hash_create(&hp);
	if (sw->fdb == NULL)
		return -rte_errno;
	max = rte_hash_max_key_id(sw->fdb);
	sw->fdb_dev = rte_zmalloc("vsw_fdb_dev", ((size_t)max + 1) * sizeof(*sw->fdb_dev), 0);
	sw->fdb_seen = rte_zmalloc("vsw_fdb_seen", ((size_t)max + 1) * sizeof(*sw->fdb_seen), 0);
	if (max < 0 || sw->fdb_dev == NULL || sw->fdb_seen == NULL) {
		vsw_fdb_free(sw);
		return -ENOMEM;
	}
	sw->fdb_age = VSW_FDB_AGE_S * rte_get_tsc_hz();
	sw->fdb_refresh = rte_get_tsc_hz();
	/* nothing remembered yet */
	sw->fdb_gen = 1;
	return 0;
}

void
vsw_fdb_free(struct vsw *sw)
{
	rte_hash_free(sw->fdb);
	rte_free(sw->fdb_dev);
	rte_free(sw->fdb_seen);
	sw->fdb = NULL;
	sw->fdb_dev = NULL;
	sw->fdb_seen = NULL;
}

/* A device's own MAC: @return its index, or -1. */
static int
own_mac(const struct vsw *sw, const struct rte_ether_addr *a)
{
	unsigned int i;

	/* a handful of devices: a scan of their MACs beats a hash lookup */
	for (i = 0; i < sw->nb_devs; i++)
		if (rte_is_same_ether_addr(a, &sw->devs[i].mac))
			return (int)i;
	return -1;
}

/* Stations behind device @p dev (VSW_FDB_WIRE: the wire's are not counted). */
static void
count_station(struct vsw *sw, uint16_t dev, int delta)
{
	if (dev != VSW_FDB_WIRE)
		sw->fdb_count[dev] = (uint16_t)(sw->fdb_count[dev] + delta);
}

static uint64_t
mac_word(const struct rte_ether_addr *a)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < RTE_ETHER_ADDR_LEN; i++)
		v |= (uint64_t)a->addr_bytes[i] << (8 * i);
	return v;
}

static void
word_mac(uint64_t v, struct rte_ether_addr *a)
{
	unsigned int i;

	for (i = 0; i < RTE_ETHER_ADDR_LEN; i++)
		a->addr_bytes[i] = (uint8_t)(v >> (8 * i));
}

/*
 * Station table position @p pos now holds @p a behind a device (@p on), or
 * nothing the wire should hear of: tell the main lcore, once per position
 * until it has looked (vsw_wire_macs_sync()).
 */
static void
wire_note(struct vsw *sw, int32_t pos, const struct rte_ether_addr *a, bool on)
{
	uint64_t want = on ? mac_word(a) | VSW_WIRE_MAC_ON : 0;
	uint32_t p = (uint32_t)pos;

	if (sw->wire_ev == NULL || p >= sw->wire_positions || sw->wire_want[p] == want)
		return;
	/* the wish before the flag: a main lcore that cleared it reads this one */
	__atomic_store_n(&sw->wire_want[p], want, __ATOMIC_SEQ_CST);
	if (__atomic_exchange_n(&sw->wire_queued[p], 1, __ATOMIC_SEQ_CST) == 0 &&
	    rte_ring_sp_enqueue_elem(sw->wire_ev, &p, sizeof(p)) != 0)
		/* cannot happen (the ring holds every position): try again next change */
		__atomic_store_n(&sw->wire_queued[p], 0, __ATOMIC_SEQ_CST);
}

/*
 * The table is full: forget every station not seen for the ageing time,
 * at most once per second (a sweep reads the whole table).
 */
static void
fdb_reclaim(struct vsw *sw)
{
	const void *key;
	void *data;
	uint32_t next = 0;
	int32_t pos;

	if (sw->now - sw->fdb_swept < rte_get_tsc_hz())
		return;
	sw->fdb_swept = sw->now;
	/* deleting the entry just read is safe: without EXT_TABLE no entry moves */
	while ((pos = rte_hash_iterate(sw->fdb, &key, &data, &next)) >= 0) {
		if (sw->now - sw->fdb_seen[pos] <= sw->fdb_age)
			continue;
		count_station(sw, sw->fdb_dev[pos], -1);
		wire_note(sw, pos, key, false);
		rte_hash_del_key(sw->fdb, key);
		sw->fdb_gen++;
	}
}

void
vsw_learn(struct vsw *sw, const struct rte_mbuf *m, uint16_t port, struct vsw_stats *st)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	uint16_t dev = port == VSW_WIRE ? VSW_FDB_WIRE : (uint16_t)(port - VSW_DEV0);
	struct vsw_fdb_last *last = &sw->fdb_last[port == VSW_WIRE ? VSW_MAX_DEVS : dev];
	int32_t pos;

	if (sw->fdb == NULL)
		return;
	/*
	 * A port's frames mostly come from one station: its entry, still
	 * its own (no move or deletion since), was refreshed under a second
	 * ago. Saves the table lookup per frame.
	 */
	if (last->gen == sw->fdb_gen && rte_is_same_ether_addr(&eth->src_addr, &last->src) &&
	    sw->now - last->at < sw->fdb_refresh)
		return;
	if (!rte_is_unicast_ether_addr(&eth->src_addr) ||
	    rte_is_zero_ether_addr(&eth->src_addr) || own_mac(sw, &eth->src_addr) >= 0)
		return;
	pos = rte_hash_lookup(sw->fdb, &eth->src_addr);
	if (pos >= 0 && sw->fdb_dev[pos] == dev) {
		sw->fdb_seen[pos] = sw->now;
		goto remember;
	}
	/*
	 * A guest may not take an address a host on the wire uses (it would
	 * receive the other guests' traffic for that host) until the host has
	 * been silent for the ageing time; nor hold more than its share.
	 */
	if (pos >= 0 && sw->fdb_dev[pos] == VSW_FDB_WIRE && dev != VSW_FDB_WIRE &&
	    sw->now - sw->fdb_seen[pos] <= sw->fdb_age) {
		st->fdb_refused++;
		return;
	}
	if (dev != VSW_FDB_WIRE && sw->fdb_count[dev] >= VSW_FDB_PER_DEV) {
		st->fdb_refused++;
		return;
	}
	if (pos < 0) {
		pos = rte_hash_add_key(sw->fdb, &eth->src_addr);
		if (pos < 0) {
			fdb_reclaim(sw);
			pos = rte_hash_add_key(sw->fdb, &eth->src_addr);
		}
		if (pos < 0) {
			st->fdb_refused++;
			return;
		}
	} else {
		count_station(sw, sw->fdb_dev[pos], -1);
		sw->fdb_gen++; /* it moved: no port's remembered station stands */
	}
	if (dev != VSW_FDB_WIRE)
		st->fdb_learned++;
	count_station(sw, dev, 1);
	sw->fdb_dev[pos] = dev;
	sw->fdb_seen[pos] = sw->now;
	/* learned behind a device, or moved (a move between devices changes nothing) */
	wire_note(sw, pos, &eth->src_addr, dev != VSW_FDB_WIRE);
remember:
	last->src = eth->src_addr;
	last->gen = sw->fdb_gen;
	last->at = sw->now;
}

/* ---------------- the stations on the wire port (main lcore) ---------------- */

/* A port's own address is no extra one: ethdev would refuse to remove it. */
static bool
port_own(uint16_t port, const struct rte_ether_addr *mac)
{
	struct rte_ether_addr own;

	return rte_eth_macaddr_get(port, &own) == 0 && rte_is_same_ether_addr(&own, mac);
}

static int
ethdev_mac_add(uint16_t port, struct rte_ether_addr *mac)
{
	if (port_own(port, mac))
		return 0;
	return rte_eth_dev_mac_addr_add(port, mac, 0);
}

static int
ethdev_mac_remove(uint16_t port, struct rte_ether_addr *mac)
{
	if (port_own(port, mac))
		return 0;
	return rte_eth_dev_mac_addr_remove(port, mac);
}

const struct vsw_wire_mac_ops vsw_wire_mac_ethdev = {
	.add = ethdev_mac_add,
	.remove = ethdev_mac_remove,
};

/* Counters of the calling (main) lcore: it alone writes these two. */
static struct vsw_stats *
main_stats(struct vsw *sw)
{
	unsigned int l = rte_lcore_id();

	return &sw->lcore[l < RTE_MAX_LCORE ? l : rte_get_main_lcore()].st;
}

/* Announce @p mac (a vsw_wire_want word). @return true if the port took it. */
static bool
wire_add(struct vsw *sw, uint64_t word)
{
	struct vsw_stats *st = main_stats(sw);
	struct rte_ether_addr mac;
	char buf[RTE_ETHER_ADDR_FMT_SIZE];
	int rc;

	word_mac(word, &mac);
	if (sw->wire_unsupported || sw->wire_full) {
		st->wire_mac_refused++;
		return false;
	}
	rc = sw->wire_ops->add(sw->wire_port, &mac);
	if (rc == 0) {
		st->wire_macs++;
		return true;
	}
	st->wire_mac_refused++;
	rte_ether_format_addr(buf, sizeof(buf), &mac);
	if (rc == -ENOTSUP) {
		sw->wire_unsupported = true;
		VSW_LOG(NOTICE, "port %u takes no extra MAC address (%s: %s): the stations "
			"behind the devices are not announced on it; it stays promiscuous",
			sw->wire_port, buf, rte_strerror(-rc));
	} else if (rc == -ENOSPC) {
		sw->wire_full = true;
		VSW_LOG(NOTICE, "port %u: its MAC address table is full at %" PRIu64 " of ours "
			"(%s not announced, nor others until one is removed); it stays promiscuous",
			sw->wire_port, st->wire_macs, buf);
	} else if (!sw->wire_said_other) {
		sw->wire_said_other = true;
		VSW_LOG(WARNING, "port %u: MAC address %s not announced: %s (said once)",
			sw->wire_port, buf, rte_strerror(-rc));
	}
	return false;
}

static void
wire_remove(struct vsw *sw, uint64_t word)
{
	struct vsw_stats *st = main_stats(sw);
	struct rte_ether_addr mac;
	int rc;

	word_mac(word, &mac);
	rc = sw->wire_ops->remove(sw->wire_port, &mac);
	st->wire_macs--;
	/* a slot is free again */
	sw->wire_full = false;
	if (rc != 0) {
		char buf[RTE_ETHER_ADDR_FMT_SIZE];

		rte_ether_format_addr(buf, sizeof(buf), &mac);
		VSW_LOG(WARNING, "port %u: MAC address %s not removed: %s", sw->wire_port, buf,
			rte_strerror(-rc));
	}
}

int
vsw_wire_macs_start(struct vsw *sw, const struct vsw_wire_mac_ops *ops, const char *name)
{
	uint32_t n = 0, i;

	sw->wire_ops = ops;
	if (sw->fdb != NULL) {
		n = (uint32_t)rte_hash_max_key_id(sw->fdb) + 1;
		sw->wire_ev = rte_ring_create_elem(name, sizeof(uint32_t), n, (int)rte_socket_id(),
						   RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ);
		sw->wire_want = rte_zmalloc("vsw_wire_want", n * sizeof(uint64_t), 0);
		sw->wire_have = rte_zmalloc("vsw_wire_have", n * sizeof(uint64_t), 0);
		sw->wire_queued = rte_zmalloc("vsw_wire_queued", n, 0);
		if (sw->wire_ev == NULL || sw->wire_want == NULL || sw->wire_have == NULL ||
		    sw->wire_queued == NULL) {
			vsw_wire_macs_stop(sw);
			return -ENOMEM;
		}
		sw->wire_positions = n;
	}
	for (i = 0; i < sw->nb_devs; i++) {
		uint64_t w = mac_word(&sw->devs[i].mac) | VSW_WIRE_MAC_ON;

		sw->wire_dev_have[i] = wire_add(sw, w) ? w : 0;
	}
	return 0;
}

unsigned int
vsw_wire_macs_sync(struct vsw *sw, unsigned int budget)
{
	uint32_t pos[64];
	unsigned int done = 0, n, i;

	if (sw->wire_ev == NULL)
		return 0;
	while (done < budget) {
		n = rte_ring_sc_dequeue_burst_elem(sw->wire_ev, pos, sizeof(pos[0]),
						   RTE_MIN(budget - done, RTE_DIM(pos)), NULL);
		if (n == 0)
			break;
		for (i = 0; i < n; i++) {
			uint32_t p = pos[i];
			uint64_t want;

			/* the flag before the wish: a later change queues the position again */
			__atomic_store_n(&sw->wire_queued[p], 0, __ATOMIC_SEQ_CST);
			want = __atomic_load_n(&sw->wire_want[p], __ATOMIC_SEQ_CST);
			if (want == sw->wire_have[p])
				continue;
			if (sw->wire_have[p] != 0)
				wire_remove(sw, sw->wire_have[p]);
			sw->wire_have[p] = want != 0 && wire_add(sw, want) ? want : 0;
		}
		done += n;
	}
	return done;
}

void
vsw_wire_macs_stop(struct vsw *sw)
{
	uint32_t i;

	for (i = 0; sw->wire_have != NULL && i < sw->wire_positions; i++)
		if (sw->wire_have[i] != 0)
			wire_remove(sw, sw->wire_have[i]);
	for (i = 0; sw->wire_ops != NULL && i < sw->nb_devs; i++)
		if (sw->wire_dev_have[i] != 0)
			wire_remove(sw, sw->wire_dev_have[i]);
	memset(sw->wire_dev_have, 0, sizeof(sw->wire_dev_have));
	rte_ring_free(sw->wire_ev);
	rte_free(sw->wire_want);
	rte_free(sw->wire_have);
	rte_free(sw->wire_queued);
	sw->wire_ev = NULL;
	sw->wire_want = NULL;
	sw->wire_have = NULL;
	sw->wire_queued = NULL;
	sw->wire_positions = 0;
}

/*
 * A station behind a device: @return the device, or -1 (unknown, or a
 * host on the wire). Entries stay until a full table reclaims them: a
 * guest quiet for a while stays reachable.
 */
static int
learned(const struct vsw *sw, const struct rte_ether_addr *a)
{
	int32_t pos;

	if (sw->fdb == NULL)
		return -1;
	pos = rte_hash_lookup(sw->fdb, a);
	if (pos < 0 || sw->fdb_dev[pos] == VSW_FDB_WIRE)
		return -1;
	return sw->fdb_dev[pos];
}

enum vsw_verdict
vsw_classify(const struct vsw *sw, struct rte_mbuf *m, unsigned int *dev)
{
	const struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	bool own;
	int d;

	/* the header in the first segment, as every reader here assumes */
	if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN)
		return VSW_DROP_RUNT;
	if (rte_is_multicast_ether_addr(&eth->dst_addr))
		return VSW_FLOOD;
	d = own_mac(sw, &eth->dst_addr);
	own = d >= 0;
	if (!own)
		d = learned(sw, &eth->dst_addr);
	if (d < 0)
		return m->port == VSW_WIRE ? VSW_DROP_UNKNOWN : VSW_TO_WIRE;
	*dev = (unsigned int)d;
	if (m->port == VSW_DEV0 + (unsigned int)d)
		/* a device's engine talking to itself (two of its QPs) goes back in */
		return own && vsw_is_roce_v2(m) ? VSW_TO_ROCE : VSW_DROP_SELF;
	return vsw_is_roce_v2(m) ? VSW_TO_ROCE : VSW_TO_GUEST;
}

/* Frames from @p r into pkts[got..n), tagged with switch port @p port. */
static uint16_t
take(struct rte_ring *r, struct rte_mbuf **pkts, uint16_t got, uint16_t n, uint16_t port)
{
	unsigned int k, i;

	if (got >= n)
		return got;
	k = rte_ring_dequeue_burst(r, (void **)(pkts + got), n - got, NULL);
	for (i = 0; i < k; i++)
		pkts[got + i]->port = port;
	return (uint16_t)(got + k);
}

static uint16_t
wire_rx(struct vsw *sw, struct rte_mbuf **pkts, uint16_t got, uint16_t n, uint16_t q)
{
	uint16_t k, i;

	if (got >= n || q >= sw->wire_rxq)
		return got;
	k = rte_eth_rx_burst(sw->wire_port, q, pkts + got, n - got);
	for (i = 0; i < k; i++)
		pkts[got + i]->port = VSW_WIRE;
	sw->lcore[rte_lcore_id()].st.wire_rx += k;
	return got + k;
}

/*
 * Half the burst for the wire first, then this worker's devices from the
 * one after the device served first last time (each is polled, whether or
 * not its frames fit), then the wire again: no side starves another.
 */
uint16_t
vsw_ingress(void *arg, struct rte_mbuf **pkts, uint16_t n, const struct pipe_ctx *ctx)
{
	struct vsw *sw = arg;
	struct vsw_stats *st = &sw->lcore[ctx->lcore_id].st;
	unsigned int mine = 0, k, i, first;
	uint16_t got, before;

	for (i = ctx->worker; i < sw->nb_devs; i += ctx->nb_workers)
		mine++;
	got = wire_rx(sw, pkts, 0, n > 1 ? n / 2 : (uint16_t)(sw->lcore[ctx->lcore_id].turn & 1),
		      ctx->worker);
	before = got;
	first = mine > 0 ? sw->lcore[ctx->lcore_id].turn % mine : 0;
	for (k = 0; k < mine; k++) {
		i = ctx->worker + ((first + k) % mine) * ctx->nb_workers;
		vrdma_dev_poll(sw->devs[i].dev);
		got = take(sw->devs[i].roce_tx, pkts, got, n, VSW_DEV0 + i);
		got = take(sw->devs[i].net_tx, pkts, got, n, VSW_DEV0 + i);
	}
	sw->lcore[ctx->lcore_id].turn++;
	st->dev_tx += got - before;
	return wire_rx(sw, pkts, got, n, ctx->worker);
}

static void
deliver(struct vsw_stats *st, struct rte_ring *r, struct rte_mbuf *m, uint64_t *counter)
{
	if (rte_ring_enqueue(r, m) == 0) {
		(*counter)++;
	} else {
		rte_pktmbuf_free(m);
		st->drop_ring_full++;
	}
}

/*
 * Broadcast and multicast: a copy to every other device's guest, and the
 * frame itself on to the wire unless it came from there. Copies, not
 * shared references: a reference count on a chained mbuf covers only its
 * first segment.
 */
static bool
flood(struct vsw *sw, struct vsw_stats *st, struct rte_mbuf *m)
{
	unsigned int i;

	st->flooded++;
	for (i = 0; i < sw->nb_devs; i++) {
		struct rte_mbuf *c;

		if (m->port == VSW_DEV0 + i)
			continue;
		c = rte_pktmbuf_copy(m, sw->pool, 0, UINT32_MAX);
		if (c == NULL) {
			st->drop_no_mbuf++;
			continue;
		}
		deliver(st, sw->devs[i].net_rx, c, &st->to_guest);
	}
	if (m->port != VSW_WIRE)
		return true;
	rte_pktmbuf_free(m);
	return false;
}

uint16_t
vsw_switch(void *arg, struct rte_mbuf **pkts, uint16_t n, const struct pipe_ctx *ctx)
{
	struct vsw *sw = arg;
	struct vsw_stats *st = &sw->lcore[ctx->lcore_id].st;
	uint16_t i, out = 0;
	unsigned int d = 0;

	sw->now = rte_get_tsc_cycles();
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		if (rte_pktmbuf_data_len(m) >= RTE_ETHER_HDR_LEN)
			vsw_learn(sw, m, m->port, st);

		switch (vsw_classify(sw, m, &d)) {
		case VSW_TO_WIRE:
			pkts[out++] = m;
			break;
		case VSW_TO_ROCE:
			deliver(st, sw->devs[d].roce_rx, m, &st->to_roce);
			break;
		case VSW_TO_GUEST:
			deliver(st, sw->devs[d].net_rx, m, &st->to_guest);
			break;
		case VSW_FLOOD:
			if (flood(sw, st, m))
				pkts[out++] = m;
			break;
		case VSW_DROP_UNKNOWN:
			st->drop_unknown++;
			rte_pktmbuf_free(m);
			break;
		case VSW_DROP_SELF:
			st->drop_self++;
			rte_pktmbuf_free(m);
			break;
		case VSW_DROP_RUNT:
			st->drop_runt++;
			rte_pktmbuf_free(m);
			break;
		}
	}
	st->to_wire += out;
	return out;
}

uint16_t
vsw_egress(void *arg, struct rte_mbuf **pkts, uint16_t n, const struct pipe_ctx *ctx)
{
	struct vsw *sw = arg;
	struct vsw_stats *st = &sw->lcore[ctx->lcore_id].st;
	uint16_t sent = rte_eth_tx_burst(sw->wire_port, ctx->worker, pkts, n);

	if (sent < n)
		rte_pktmbuf_free_bulk(pkts + sent, n - sent);
	st->wire_tx += sent;
	st->wire_tx_drop += n - sent;
	return sent;
}

void
vsw_stats_get(const struct vsw *sw, struct vsw_stats *st)
{
	unsigned int l, k;

	memset(st, 0, sizeof(*st));
	for (l = 0; l < RTE_MAX_LCORE; l++) {
		const uint64_t *src = (const uint64_t *)&sw->lcore[l].st;
		uint64_t *dst = (uint64_t *)st;

		for (k = 0; k < sizeof(*st) / sizeof(uint64_t); k++)
			dst[k] += __atomic_load_n(&src[k], __ATOMIC_RELAXED);
	}
}

#define F(x) OMNI_CTR(struct vsw_stats, x)
static const struct omni_ctr sw_fields[] = {
	F(wire_rx), F(dev_tx), F(to_wire), F(to_roce), F(to_guest), F(flooded),
	F(drop_unknown), F(drop_self), F(drop_runt), F(drop_ring_full), F(drop_no_mbuf),
	F(fdb_learned), F(fdb_refused), F(wire_tx),
	F(wire_tx_drop), F(wire_macs), F(wire_mac_refused),
};
#undef F
OMNI_CTR_TABLE_CHECK(sw_fields, struct vsw_stats);

/* vrdma_dev_info's counters; it also holds state (vid, features, ready
 * bits), so this table cannot be checked for completeness.
 */
#define F(x) OMNI_CTR(struct vrdma_dev_info, x)
static const struct omni_ctr dev_fields[] = {
	F(connections), F(config_reads), F(config_refused), F(features_refused),
	F(ring_changes), F(ctrl_ok), F(ctrl_refused), F(ctrl_bad_chain), F(vq_bad_index),
	F(vq_bad_desc), F(vq_bad_addr), F(vq_too_long), F(mrs_lost), F(rx_unserved),
	F(rdma_resets), F(sq_posted), F(rq_posted), F(wr_refused), F(wq_bad_chain),
	F(cqe_written), F(cq_bad_chain), F(cq_notified), F(wr_discarded), F(net_rx_frames),
	F(net_rx_bytes), F(net_rx_too_big), F(net_rx_bad_buf), F(net_tx_frames),
	F(net_tx_bytes), F(net_tx_refused), F(net_tx_dropped), F(path_mtu_clamped),
};
#undef F

/* The device's RoCE engine since it was created: its non-zero counters, as lib/roce names them. */
static void
engine_dump(struct vrdma_dev *dev, unsigned int i, FILE *f)
{
	const char *names[64];
	uint64_t values[64];
	struct roce_dev_stats st;
	unsigned int n, k;

	if (vrdma_dev_engine_stats(dev, &st) != 0) {
		fprintf(f, "device %u engine: busy (a message is being handled)\n", i);
		return;
	}
	n = RTE_MIN(roce_stats_table(&st, names, values, RTE_DIM(names)), RTE_DIM(names));
	fprintf(f, "device %u engine:", i);
	for (k = 0; k < n; k++)
		if (values[k] != 0)
			fprintf(f, " %s=%" PRIu64, names[k], values[k]);
	fprintf(f, "\n");
}

void
vsw_stats_dump(const struct vsw *sw, FILE *f)
{
	struct vsw_stats st;
	unsigned int i, k;

	vsw_stats_get(sw, &st);
	fprintf(f, "switch:");
	for (k = 0; k < RTE_DIM(sw_fields); k++)
		fprintf(f, " %s=%" PRIu64, sw_fields[k].name, omni_ctr_value(&sw_fields[k], &st));
	fprintf(f, "\n");
	for (i = 0; i < sw->nb_devs; i++) {
		struct vrdma_dev_info info;
		char mac[RTE_ETHER_ADDR_FMT_SIZE];
		unsigned int ready = 0;

		vrdma_dev_info_get(sw->devs[i].dev, &info);
		for (k = 0; k < RTE_DIM(info.ready); k++)
			ready += (unsigned int)__builtin_popcountll(info.ready[k]);
		rte_ether_format_addr(mac, sizeof(mac), &sw->devs[i].mac);
		fprintf(f, "device %u (%s): %s, roce %s, %u rings ready:", i, mac,
			info.vid >= 0 ? "connected" : "no frontend", info.roce ? "yes" : "no",
			ready);
		for (k = 0; k < RTE_DIM(dev_fields); k++) {
			uint64_t v = omni_ctr_value(&dev_fields[k], &info);

			if (v != 0)
				fprintf(f, " %s=%" PRIu64, dev_fields[k].name, v);
		}
		fprintf(f, "\n");
		engine_dump(sw->devs[i].dev, i, f);
	}
	fflush(f);
}

/* ---------------- telemetry ---------------- */

int
vsw_parse_dev_id(const char *s, unsigned int nb_devs, unsigned int *id)
{
	size_t len = strnlen(s, 6);
	uint64_t v;

	/* 1 to 5 decimal digits: a longer text is refused before it is read */
	if (len == 0 || len > 5 || nb_devs == 0 ||
	    omni_parse_uint_n(s, len, 0, nb_devs - 1, OMNI_NUM_DEC, &v) != 0)
		return -EINVAL;
	*id = (unsigned int)v;
	return 0;
}

/* The switch the endpoints read; NULL once it is being torn down. */
static struct vsw *tel_sw;
static pthread_mutex_t tel_lock = PTHREAD_MUTEX_INITIALIZER;

static int
tel_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct vsw_stats st;
	unsigned int k;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	pthread_mutex_lock(&tel_lock);
	if (tel_sw == NULL) {
		pthread_mutex_unlock(&tel_lock);
		return -ENODEV;
	}
	vsw_stats_get(tel_sw, &st);
	pthread_mutex_unlock(&tel_lock);
	rte_tel_data_start_dict(d);
	for (k = 0; k < RTE_DIM(sw_fields); k++)
		rte_tel_data_add_dict_u64(d, sw_fields[k].name, omni_ctr_value(&sw_fields[k], &st));
	return 0;
}

static int
tel_devs(const char *cmd, const char *params, struct rte_tel_data *d)
{
	unsigned int i;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_array(d, RTE_TEL_INT_VAL);
	pthread_mutex_lock(&tel_lock);
	for (i = 0; tel_sw != NULL && i < tel_sw->nb_devs; i++)
		rte_tel_data_add_array_int(d, (int)i);
	pthread_mutex_unlock(&tel_lock);
	return 0;
}

/* /vhost_user_rdma/dev,ID: a device's state, counters and its engine's. */
static int
tel_dev(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const char *names[64];
	uint64_t values[64];
	struct vrdma_dev_info info;
	struct roce_dev_stats est;
	char key[RTE_TEL_MAX_STRING_LEN];
	unsigned int k, n = 0, id;
	bool engine;

	RTE_SET_USED(cmd);
	pthread_mutex_lock(&tel_lock);
	if (tel_sw == NULL || params == NULL ||
	    vsw_parse_dev_id(params, tel_sw->nb_devs, &id) != 0) {
		pthread_mutex_unlock(&tel_lock);
		return -EINVAL;
	}
	vrdma_dev_info_get(tel_sw->devs[id].dev, &info);
	engine = vrdma_dev_engine_stats(tel_sw->devs[id].dev, &est) == 0;
	pthread_mutex_unlock(&tel_lock);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "connected", info.vid >= 0);
	rte_tel_data_add_dict_int(d, "roce", info.roce);
	rte_tel_data_add_dict_int(d, "path_mtu", 128 << info.path_mtu);
	for (k = 0; k < RTE_DIM(dev_fields); k++)
		rte_tel_data_add_dict_u64(d, dev_fields[k].name,
					  omni_ctr_value(&dev_fields[k], &info));
	if (engine)
		n = RTE_MIN(roce_stats_table(&est, names, values, RTE_DIM(names)), RTE_DIM(names));
	for (k = 0; k < n; k++) {
		snprintf(key, sizeof(key), "engine_%s", names[k]);
		rte_tel_data_add_dict_u64(d, key, values[k]);
	}
	return 0;
}

int
vsw_telemetry_register(struct vsw *sw)
{
	pthread_mutex_lock(&tel_lock);
	tel_sw = sw;
	pthread_mutex_unlock(&tel_lock);
	if (rte_telemetry_register_cmd("/vhost_user_rdma/stats", tel_stats,
				       "The switch's counters. No parameters") != 0 ||
	    rte_telemetry_register_cmd("/vhost_user_rdma/devs", tel_devs,
				       "The devices' numbers. No parameters") != 0 ||
	    rte_telemetry_register_cmd("/vhost_user_rdma/dev", tel_dev,
				       "A device's state, counters and RoCE engine counters. "
				       "Parameters: int device") != 0)
		return -EEXIST;
	return 0;
}

void
vsw_telemetry_detach(void)
{
	/* a request in flight finishes first: the devices may go after this */
	pthread_mutex_lock(&tel_lock);
	tel_sw = NULL;
	pthread_mutex_unlock(&tel_lock);
}
