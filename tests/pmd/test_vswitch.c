/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * vhost-user-rdma's switch (app/vhost-user-rdma/vswitch.c) on crafted
 * frames: where each destination MAC and kind of frame goes, and what the
 * switch stage does with it (rings, copies, counters, no mbuf lost).
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "test_case.h"
#include "test_eal.h"
#include "vsw_test.h"

#define NB_DEVS 2

static struct vsw *sw;
static const uint8_t dev_mac[NB_DEVS][6] = {
	{ 0x02, 0x56, 0x52, 0x44, 0x4d, 0x00 }, { 0x02, 0x56, 0x52, 0x44, 0x4d, 0x01 },
};
static const uint8_t other_mac[6] = { 0x02, 0, 0, 0, 0, 0xaa };
static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t mcast[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };

enum kind { PLAIN, ROCE4, ROCE4_VLAN, ROCE6, UDP_OTHER, ROCE4_VID0, ROCE6_VID100, ND6 };

/* A frame to @p dst from switch port @p port: ARP-like, or UDP in IPv4/IPv6. */
static struct rte_mbuf *
frame(const uint8_t *dst, enum kind k, uint16_t port)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(test_pool);
	uint8_t *p;
	uint32_t l3 = 14, len = 128;

	assert_non_null(m);
	p = (uint8_t *)rte_pktmbuf_append(m, len);
	assert_non_null(p);
	memset(p, 0, len);
	memcpy(p, dst, 6);
	/* from the wire: another host; from device i: its guest, 02:00:00:00:10:0i */
	memcpy(p + 6, other_mac, 6);
	if (port != VSW_WIRE) {
		p[10] = 0x10;
		p[11] = (uint8_t)(port - VSW_DEV0);
	}
	switch (k) {
	case PLAIN:
		p[12] = 0x08;
		p[13] = 0x06; /* ARP */
		break;
	case ROCE4_VLAN:
	case ROCE4_VID0:
		p[12] = 0x81;
		p[13] = 0x00;
		p[14] = 0xa0; /* PCP 5 */
		p[15] = k == ROCE4_VID0 ? 0 : 5;
		l3 += 4;
		/* fall through */
	case ROCE4:
	case UDP_OTHER:
		p[l3 - 2] = 0x08;
		p[l3 - 1] = 0x00;
		p[l3] = 0x45;
		p[l3 + 3] = 100;  /* total length */
		p[l3 + 8] = 64;
		p[l3 + 9] = 17;   /* UDP */
		p[l3 + 20 + 2] = 0x12;
		p[l3 + 20 + 3] = k == UDP_OTHER ? 0xb8 : 0xb7; /* 4792 or 4791 */
		break;
	case ROCE6_VID100:
		p[12] = 0x81;
		p[13] = 0x00;
		p[14] = 0x60; /* PCP 3 */
		p[15] = 100;
		p[16] = 0x86;
		p[17] = 0xdd;
		l3 += 4;
		p[l3] = 0x60;
		p[l3 + 5] = 60;
		p[l3 + 6] = 17;
		p[l3 + 7] = 64;
		p[l3 + 40 + 2] = 0x12;
		p[l3 + 40 + 3] = 0xb7;
		break;
	case ND6:
		/* an IPv6 neighbour solicitation: ICMPv6 (58) type 135 */
		p[12] = 0x86;
		p[13] = 0xdd;
		p[l3] = 0x60;
		p[l3 + 5] = 32;
		p[l3 + 6] = 58;
		p[l3 + 7] = 255;
		p[l3 + 40] = 135;
		break;
	case ROCE6:
		p[12] = 0x86;
		p[13] = 0xdd;
		p[l3] = 0x60;
		p[l3 + 5] = 60;   /* payload length */
		p[l3 + 6] = 17;   /* next header: UDP */
		p[l3 + 7] = 64;
		p[l3 + 40 + 2] = 0x12;
		p[l3 + 40 + 3] = 0xb7;
		break;
	}
	m->port = port;
	return m;
}

static void
expect(const uint8_t *dst, enum kind k, uint16_t port, enum vsw_verdict want, int want_dev)
{
	struct rte_mbuf *m = frame(dst, k, port);
	unsigned int dev = 99;

	assert_int_equal(vsw_classify(sw, m, &dev), want);
	if (want_dev >= 0)
		assert_int_equal(dev, want_dev);
	rte_pktmbuf_free(m);
}

/* Each kind of frame goes where the doc says. */
static void
test_classify_by_destination_and_kind(void **state)
{
	(void)state;
	/* for a device: RoCE v2 to its engine (IPv4, VLAN, IPv6), the rest to its guest */
	expect(dev_mac[1], PLAIN, VSW_WIRE, VSW_TO_GUEST, 1);
	expect(dev_mac[1], ROCE4, VSW_WIRE, VSW_TO_ROCE, 1);
	expect(dev_mac[0], ROCE4_VLAN, VSW_WIRE, VSW_TO_ROCE, 0);
	/* tagged RoCE (--vlan): priority-tagged or any VID to the engine, which judges the VID */
	expect(dev_mac[0], ROCE4_VID0, VSW_WIRE, VSW_TO_ROCE, 0);
	expect(dev_mac[1], ROCE6_VID100, VSW_WIRE, VSW_TO_ROCE, 1);
	expect(dev_mac[1], ROCE4_VID0, VSW_DEV0 + 0, VSW_TO_ROCE, 1);
	expect(dev_mac[0], ROCE6, VSW_WIRE, VSW_TO_ROCE, 0);
	expect(dev_mac[0], UDP_OTHER, VSW_WIRE, VSW_TO_GUEST, 0);
	/* device to device, both ways */
	expect(dev_mac[1], ROCE4, VSW_DEV0 + 0, VSW_TO_ROCE, 1);
	expect(dev_mac[0], PLAIN, VSW_DEV0 + 1, VSW_TO_GUEST, 0);
	/* to itself: dropped, but its engine's RoCE to itself (two of its QPs) goes back in */
	expect(dev_mac[1], PLAIN, VSW_DEV0 + 1, VSW_DROP_SELF, -1);
	expect(dev_mac[1], ROCE4, VSW_DEV0 + 1, VSW_TO_ROCE, 1);
	/* broadcast, multicast: flood from anywhere */
	expect(bcast, PLAIN, VSW_WIRE, VSW_FLOOD, -1);
	expect(mcast, ROCE4, VSW_DEV0 + 1, VSW_FLOOD, -1);
	/* another address: the wire from a device, nowhere from the wire */
	expect(other_mac, PLAIN, VSW_DEV0 + 0, VSW_TO_WIRE, -1);
	expect(other_mac, ROCE4, VSW_WIRE, VSW_DROP_UNKNOWN, -1);
	/* too short for an Ethernet header: dropped */
	{
		struct rte_mbuf *m = frame(dev_mac[0], PLAIN, VSW_WIRE);
		unsigned int dev;

		rte_pktmbuf_trim(m, rte_pktmbuf_pkt_len(m) - 13);
		assert_int_equal(vsw_classify(sw, m, &dev), VSW_DROP_RUNT);
		rte_pktmbuf_free(m);
	}
}

static unsigned int
drain(struct rte_ring *r, uint16_t want_port)
{
	struct rte_mbuf *m;
	unsigned int n = 0;

	while (rte_ring_dequeue(r, (void **)&m) == 0) {
		assert_int_equal(m->port, want_port);
		rte_pktmbuf_free(m);
		n++;
	}
	return n;
}

/*
 * The switch stage: deliveries land in the right rings, a flood from the
 * wire is copied to every device and not sent back, one from a device is
 * copied to the other and goes on to the wire, a full ring counts its drop,
 * and every mbuf comes back.
 */
static void
test_switch_stage_delivers_copies_and_counts(void **state)
{
	struct pipe_ctx ctx = { .lcore_id = rte_lcore_id(), .nb_workers = 1 };
	unsigned int avail = rte_mempool_avail_count(test_pool), i;
	struct rte_mbuf *pkts[8], *fill;
	struct vsw_stats st;
	uint16_t out;

	(void)state;
	memset(sw->lcore, 0, sizeof(sw->lcore));
	pkts[0] = frame(dev_mac[0], ROCE4, VSW_WIRE);
	pkts[1] = frame(dev_mac[1], PLAIN, VSW_WIRE);
	pkts[2] = frame(bcast, PLAIN, VSW_WIRE);
	pkts[3] = frame(bcast, PLAIN, VSW_DEV0 + 0);
	pkts[4] = frame(other_mac, PLAIN, VSW_DEV0 + 1);
	pkts[5] = frame(other_mac, PLAIN, VSW_WIRE);
	pkts[6] = frame(dev_mac[0], PLAIN, VSW_DEV0 + 0);
	out = vsw_switch(sw, pkts, 7, &ctx);
	/* on to the wire, in order: the device's broadcast, then the device's unicast */
	assert_int_equal(out, 2);
	assert_int_equal(pkts[0]->port, VSW_DEV0 + 0);
	assert_memory_equal(rte_pktmbuf_mtod(pkts[0], uint8_t *), bcast, 6);
	assert_int_equal(pkts[1]->port, VSW_DEV0 + 1);
	rte_pktmbuf_free_bulk(pkts, out);
	assert_int_equal(drain(sw->devs[0].roce_rx, VSW_WIRE), 1);
	/* device 0's guest: the wire's broadcast; device 1's: its frame and both broadcasts */
	assert_int_equal(drain(sw->devs[0].net_rx, VSW_WIRE), 1);
	assert_int_equal(rte_ring_count(sw->devs[1].net_rx), 3);
	{
		/* in order: its unicast, the wire's broadcast, device 0's broadcast (a copy) */
		static const uint16_t want_port[3] = { VSW_WIRE, VSW_WIRE, VSW_DEV0 + 0 };
		static const uint8_t *const want_dst[3] = { dev_mac[1], bcast, bcast };
		struct rte_mbuf *m[3] = { NULL };

		for (i = 0; i < 3; i++) {
			assert_int_equal(rte_ring_dequeue(sw->devs[1].net_rx, (void **)&m[i]), 0);
			assert_int_equal(m[i]->port, want_port[i]);
			assert_memory_equal(rte_pktmbuf_mtod(m[i], uint8_t *), want_dst[i], 6);
			assert_int_equal(rte_pktmbuf_pkt_len(m[i]), 128);
		}
		/* copies are mbufs of their own */
		assert_ptr_not_equal(m[1], m[2]);
		assert_int_equal(rte_mbuf_refcnt_read(m[2]), 1);
		rte_pktmbuf_free_bulk(m, 3);
	}
	assert_int_equal(rte_ring_count(sw->devs[1].roce_rx), 0);
	vsw_stats_get(sw, &st);
	assert_int_equal(st.to_roce, 1);
	assert_int_equal(st.to_guest, 4);
	assert_int_equal(st.flooded, 2);
	assert_int_equal(st.to_wire, 2);
	assert_int_equal(st.drop_unknown, 1);
	assert_int_equal(st.drop_self, 1);
	assert_int_equal(st.drop_ring_full, 0);

	/* a full ring: the delivery is dropped, counted and freed */
	while (rte_ring_free_count(sw->devs[1].net_rx) > 0) {
		fill = frame(dev_mac[1], PLAIN, VSW_WIRE);
		assert_int_equal(rte_ring_enqueue(sw->devs[1].net_rx, fill), 0);
	}
	pkts[0] = frame(dev_mac[1], PLAIN, VSW_WIRE);
	assert_int_equal(vsw_switch(sw, pkts, 1, &ctx), 0);
	vsw_stats_get(sw, &st);
	assert_int_equal(st.drop_ring_full, 1);
	drain(sw->devs[1].net_rx, VSW_WIRE);
	assert_int_equal(rte_mempool_avail_count(test_pool), avail);
}

/* Pass one frame from @p port with source @p src through the switch stage. */
static void
send_from(uint16_t port, const uint8_t *src)
{
	struct pipe_ctx ctx = { .lcore_id = rte_lcore_id(), .nb_workers = 1 };
	struct rte_mbuf *m = frame(bcast, PLAIN, port);
	unsigned int i;

	memcpy(rte_pktmbuf_mtod_offset(m, uint8_t *, 6), src, 6);
	if (vsw_switch(sw, &m, 1, &ctx) == 1)
		rte_pktmbuf_free(m);
	for (i = 0; i < NB_DEVS; i++)
		drain(sw->devs[i].net_rx, port);
}

/*
 * A guest's NIC has its own MAC (QEMU's, not the device's): the switch
 * learns it from the guest's frames and delivers to it, follows it when it
 * moves, never lets it take a device's own MAC or, while that host talks,
 * a wire host's, caps what one device holds, and when the table is full
 * forgets the stations unseen for the ageing time.
 */
static void
test_stations_behind_a_device_are_learned(void **state)
{
	static const uint8_t guest[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
	uint64_t age = sw->fdb_age;
	struct vsw_stats st;
	uint8_t mac[6] = { 0x06, 0, 0, 0, 0, 0 };
	unsigned int i;

	(void)state;
	memset(sw->lcore, 0, sizeof(sw->lcore));
	/* unknown before the guest says anything */
	expect(guest, PLAIN, VSW_WIRE, VSW_DROP_UNKNOWN, -1);
	send_from(VSW_DEV0 + 1, guest);
	expect(guest, PLAIN, VSW_WIRE, VSW_TO_GUEST, 1);
	expect(guest, ROCE4, VSW_WIRE, VSW_TO_ROCE, 1);
	expect(guest, ROCE4, VSW_DEV0 + 0, VSW_TO_ROCE, 1);
	expect(guest, PLAIN, VSW_DEV0 + 1, VSW_DROP_SELF, -1);
	expect(guest, ROCE4, VSW_DEV0 + 1, VSW_DROP_SELF, -1);
	/* it moves behind device 0; a device's own MAC is not learned elsewhere */
	send_from(VSW_DEV0 + 0, guest);
	send_from(VSW_DEV0 + 1, dev_mac[0]);
	expect(guest, PLAIN, VSW_WIRE, VSW_TO_GUEST, 0);
	expect(dev_mac[0], PLAIN, VSW_WIRE, VSW_TO_GUEST, 0);
	/* and straight back: device 1 remembering it as its last station must not stop that */
	send_from(VSW_DEV0 + 1, guest);
	expect(guest, PLAIN, VSW_WIRE, VSW_TO_GUEST, 1);
	send_from(VSW_DEV0 + 0, guest);
	expect(guest, PLAIN, VSW_WIRE, VSW_TO_GUEST, 0);
	vsw_stats_get(sw, &st);
	assert_int_equal(st.fdb_learned, 4);
	assert_int_equal(st.fdb_refused, 0);
	/* a wire host's address, while it talks, is not a guest's to take */
	send_from(VSW_WIRE, other_mac);
	send_from(VSW_DEV0 + 1, other_mac);
	expect(other_mac, PLAIN, VSW_DEV0 + 0, VSW_TO_WIRE, -1);
	vsw_stats_get(sw, &st);
	assert_int_equal(st.fdb_refused, 1);
	/* ... once it has been silent for the ageing time, it may move */
	sw->fdb_age = 0;
	send_from(VSW_DEV0 + 1, other_mac);
	expect(other_mac, PLAIN, VSW_DEV0 + 0, VSW_TO_GUEST, 1);
	sw->fdb_age = age;
	/* one device holds at most its share */
	for (i = 0; i < VSW_FDB_PER_DEV + 8; i++) {
		mac[4] = (uint8_t)(i >> 8);
		mac[5] = (uint8_t)i;
		send_from(VSW_DEV0 + 0, mac);
	}
	vsw_stats_get(sw, &st);
	assert_true(st.fdb_refused >= 9);
	mac[5] = 0;
	mac[4] = 0;
	expect(mac, PLAIN, VSW_WIRE, VSW_TO_GUEST, 0);
	mac[4] = (VSW_FDB_PER_DEV + 7) >> 8;
	mac[5] = (uint8_t)(VSW_FDB_PER_DEV + 7);
	expect(mac, PLAIN, VSW_WIRE, VSW_DROP_UNKNOWN, -1);
	/* the wire fills the table; once its stations are stale, a full table forgets them */
	mac[0] = 0x0a;
	for (i = 0; i < VSW_FDB_ENTRIES + 64; i++) {
		mac[3] = (uint8_t)(i >> 16);
		mac[4] = (uint8_t)(i >> 8);
		mac[5] = (uint8_t)i;
		send_from(VSW_WIRE, mac);
	}
	mac[0] = 0x0e;
	send_from(VSW_DEV0 + 1, mac);
	expect(mac, PLAIN, VSW_WIRE, VSW_DROP_UNKNOWN, -1);
	sw->fdb_age = 0;
	sw->fdb_swept = 0;
	send_from(VSW_DEV0 + 1, mac);
	sw->fdb_age = age;
	expect(mac, PLAIN, VSW_WIRE, VSW_TO_GUEST, 1);
}

/* A switch of its own for one test: @p nb devices, a station table. */
static struct vsw *
own_switch(const char *prefix, unsigned int nb)
{
	char name[32];
	struct vsw *s = vsw_test_create(prefix, nb, 64, test_pool);

	assert_non_null(s);
	snprintf(name, sizeof(name), "%s_fdb", prefix);
	assert_int_equal(vsw_fdb_create(s, name), 0);
	return s;
}

/* One frame to @p dst from @p port (source @p src unless NULL) through @p s's switch stage. */
static uint16_t
pass_one(struct vsw *s, const uint8_t *dst, enum kind k, uint16_t port, const uint8_t *src)
{
	struct pipe_ctx ctx = { .lcore_id = rte_lcore_id(), .nb_workers = 1 };
	struct rte_mbuf *m = frame(dst, k, port);
	uint16_t out;

	if (src != NULL)
		memcpy(rte_pktmbuf_mtod_offset(m, uint8_t *, 6), src, 6);
	out = vsw_switch(s, &m, 1, &ctx);
	if (out == 1) {
		assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *), dst, 6);
		rte_pktmbuf_free(m);
	}
	return out;
}

/* Frames in @p r, each checked for destination @p dst and kind @p k's EtherType; freed. */
static unsigned int
take_all(struct rte_ring *r, const uint8_t *dst, uint16_t ethertype)
{
	struct rte_mbuf *m;
	unsigned int n = 0;

	while (rte_ring_dequeue(r, (void **)&m) == 0) {
		const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);

		assert_memory_equal(p, dst, 6);
		assert_int_equal(p[12] << 8 | p[13], ethertype);
		rte_pktmbuf_free(m);
		n++;
	}
	return n;
}

/*
 * ARP and IPv6 neighbour discovery over the wire: an ARP broadcast and an
 * ND solicitation (to its solicited-node multicast group) from the wire
 * reach every device's guest, once each, and do not go back to the wire;
 * the same from a guest reach every other guest and the wire.
 */
static void
test_arp_and_nd_reach_every_guest(void **state)
{
	static const uint8_t nd_mc[6] = { 0x33, 0x33, 0xff, 0x00, 0x00, 0x01 };
	unsigned int avail = rte_mempool_avail_count(test_pool), i, nb = 3;
	struct vsw *s = own_switch("ta", nb);
	struct vsw_stats st;

	(void)state;
	memset(s->lcore, 0, sizeof(s->lcore));
	assert_int_equal(pass_one(s, bcast, PLAIN, VSW_WIRE, NULL), 0);
	for (i = 0; i < nb; i++)
		assert_int_equal(take_all(s->devs[i].net_rx, bcast, 0x0806), 1);
	assert_int_equal(pass_one(s, nd_mc, ND6, VSW_WIRE, NULL), 0);
	for (i = 0; i < nb; i++)
		assert_int_equal(take_all(s->devs[i].net_rx, nd_mc, 0x86dd), 1);
	/* from device 1's guest: the others and the wire */
	assert_int_equal(pass_one(s, bcast, PLAIN, VSW_DEV0 + 1, NULL), 1);
	for (i = 0; i < nb; i++) {
		assert_int_equal(take_all(s->devs[i].net_rx, bcast, 0x0806), i == 1 ? 0 : 1);
		assert_int_equal(rte_ring_count(s->devs[i].roce_rx), 0);
	}
	assert_int_equal(pass_one(s, nd_mc, ND6, VSW_DEV0 + 1, NULL), 1);
	for (i = 0; i < nb; i++)
		assert_int_equal(take_all(s->devs[i].net_rx, nd_mc, 0x86dd), i == 1 ? 0 : 1);
	vsw_stats_get(s, &st);
	assert_int_equal(st.flooded, 4);
	assert_int_equal(st.to_guest, 3 + 3 + 2 + 2);
	assert_int_equal(st.to_wire, 2);
	vsw_test_free(s);
	assert_int_equal(rte_mempool_avail_count(test_pool), avail);
}

/* A wire port's MAC address table, as the wire ops see it. */
static struct {
	struct rte_ether_addr mac[8];
	unsigned int n, cap, adds, removes;
	int fail;            /* every add returns this when non-zero */
} port;

static int
fake_add(uint16_t p, struct rte_ether_addr *mac)
{
	(void)p;
	port.adds++;
	if (port.fail != 0)
		return port.fail;
	if (port.n == port.cap)
		return -ENOSPC;
	port.mac[port.n++] = *mac;
	return 0;
}

static int
fake_remove(uint16_t p, struct rte_ether_addr *mac)
{
	unsigned int i;

	(void)p;
	port.removes++;
	for (i = 0; i < port.n; i++)
		if (rte_is_same_ether_addr(&port.mac[i], mac)) {
			port.mac[i] = port.mac[--port.n];
			return 0;
		}
	return -ENOENT;
}

static const struct vsw_wire_mac_ops fake_ops = { .add = fake_add, .remove = fake_remove };

static bool
on_port(const uint8_t *mac)
{
	unsigned int i;

	for (i = 0; i < port.n; i++)
		if (memcmp(port.mac[i].addr_bytes, mac, 6) == 0)
			return true;
	return false;
}

/*
 * The wire port hears of the devices' MACs at start and of every station
 * learned behind a device, only from vsw_wire_macs_sync() (the main lcore),
 * at most the budget per call; a station moving between devices changes
 * nothing, one moving to the wire is withdrawn; a full port table refuses
 * (counted, asked no more until a removal), as does one without support
 * (asked once); stop withdraws everything.
 */
static void
test_stations_are_announced_on_the_wire_port(void **state)
{
	static const uint8_t g1[6] = { 0x52, 0x54, 0, 0, 0, 1 };
	uint8_t g[6] = { 0x52, 0x54, 0, 0, 1, 0 };
	struct vsw *s = own_switch("tw", 2);
	struct vsw_stats st;
	unsigned int i;

	(void)state;
	memset(&port, 0, sizeof(port));
	port.cap = 4;
	memset(s->lcore, 0, sizeof(s->lcore));
	assert_int_equal(vsw_wire_macs_start(s, &fake_ops, "tw_wev"), 0);
	assert_int_equal(port.n, 2);
	assert_true(on_port(dev_mac[0]) && on_port(dev_mac[1]));
	/* learned by the switch stage; the port hears of it from the main lcore only */
	pass_one(s, bcast, PLAIN, VSW_DEV0 + 0, g1);
	assert_false(on_port(g1));
	assert_int_equal(vsw_wire_macs_sync(s, 64), 1);
	assert_true(on_port(g1));
	assert_int_equal(vsw_wire_macs_sync(s, 64), 0);
	/* behind the other device: no change on the port */
	pass_one(s, bcast, PLAIN, VSW_DEV0 + 1, g1);
	vsw_wire_macs_sync(s, 64);
	assert_int_equal(port.adds, 3);
	assert_int_equal(port.removes, 0);
	/* now a host on the wire: withdrawn */
	pass_one(s, bcast, PLAIN, VSW_WIRE, g1);
	assert_int_equal(vsw_wire_macs_sync(s, 64), 1);
	assert_false(on_port(g1));
	/* three stations, a budget of one per call; the port holds 4: the third is refused */
	for (i = 0; i < 3; i++) {
		g[5] = (uint8_t)i;
		pass_one(s, bcast, PLAIN, VSW_DEV0 + 0, g);
	}
	assert_int_equal(vsw_wire_macs_sync(s, 1), 1);
	assert_int_equal(port.n, 3);
	assert_int_equal(vsw_wire_macs_sync(s, 64), 2);
	assert_int_equal(port.n, 4);
	vsw_stats_get(s, &st);
	assert_int_equal(st.wire_macs, 4);
	assert_int_equal(st.wire_mac_refused, 1);
	/* full: a fourth station is refused without asking the port */
	g[5] = 3;
	pass_one(s, bcast, PLAIN, VSW_DEV0 + 1, g);
	vsw_wire_macs_sync(s, 64);
	assert_int_equal(port.adds, 6);
	vsw_stats_get(s, &st);
	assert_int_equal(st.wire_mac_refused, 2);
	/* station 0 moves to the wire: withdrawn, and the port is asked again */
	g[5] = 0;
	pass_one(s, bcast, PLAIN, VSW_WIRE, g);
	vsw_wire_macs_sync(s, 64);
	assert_false(on_port(g));
	g[5] = 4;
	pass_one(s, bcast, PLAIN, VSW_DEV0 + 1, g);
	vsw_wire_macs_sync(s, 64);
	assert_true(on_port(g));
	vsw_stats_get(s, &st);
	assert_int_equal(st.wire_macs, 4);
	/* stop: nothing left on the port */
	vsw_wire_macs_stop(s);
	assert_int_equal(port.n, 0);
	vsw_stats_get(s, &st);
	assert_int_equal(st.wire_macs, 0);

	/* a port without support is asked once, then every announcement is counted refused */
	memset(&port, 0, sizeof(port));
	port.cap = 4;
	port.fail = -ENOTSUP;
	memset(s->lcore, 0, sizeof(s->lcore));
	assert_int_equal(vsw_wire_macs_start(s, &fake_ops, "tw_wev"), 0);
	g[5] = 9;
	pass_one(s, bcast, PLAIN, VSW_DEV0 + 0, g);
	vsw_wire_macs_sync(s, 64);
	assert_int_equal(port.adds, 1);
	vsw_stats_get(s, &st);
	assert_int_equal(st.wire_mac_refused, 3);
	assert_int_equal(st.wire_macs, 0);
	vsw_wire_macs_stop(s);
	assert_int_equal(port.removes, 0);
	for (i = 0; i < s->nb_devs; i++)
		take_all(s->devs[i].net_rx, bcast, 0x0806);
	vsw_test_free(s);
}

static int
setup(void **state)
{
	if (test_eal_setup(state) != 0)
		return -1;
	sw = vsw_test_create("tv", NB_DEVS, 64, test_pool);
	if (sw == NULL || vsw_fdb_create(sw, "tv_fdb") != 0)
		return -1;
	return 0;
}

static int
teardown(void **state)
{
	vsw_test_free(sw);
	return test_eal_teardown(state);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify_by_destination_and_kind),
		cmocka_unit_test(test_switch_stage_delivers_copies_and_counts),
		cmocka_unit_test(test_stations_behind_a_device_are_learned),
		cmocka_unit_test(test_arp_and_nd_reach_every_guest),
		cmocka_unit_test(test_stations_are_announced_on_the_wire_port),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests(tests, setup, teardown);
}
