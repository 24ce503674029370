/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * lib/vrdma's virtio-net queues. Driven by lib/vufront as the guest: a
 * guest frame reaches the wire's ring byte for byte and one asking for an
 * offload, too short or too long is refused and counted; a wire frame fills
 * the guest's mergeable buffers (num_buffers in the header, the bytes in
 * order), waits for buffers when there are none, and without MRG_RXBUF is
 * dropped when no buffer holds it. Driven by DPDK's own virtio-user PMD
 * (net_virtio_user) as the frontend: frames both ways between its port and
 * the device's wire rings. Driven by lib/vufront's RDMA driver (vuf_rdma),
 * whose Ethernet queues a guest stack on top of the RDMA driver uses:
 * frames both ways, buffers recycled, drops and a full ring counted.
 */

#include <errno.h>

#include <rte_bus_vdev.h>
#include <rte_ethdev.h>
#include <rte_ip.h>

#include "test_case.h"
#include "vrdma_test_util.h"
#include "vuf_rdma.h"

#define F_MRG_RXBUF 15
#define F_VERSION_1 32
#define MEM_GPA 0x100000
#define MEM_SIZE (4u << 20)
#define HDR 12
#define RXBUF 256

static struct rte_ring *net_rx, *net_tx;

struct guest {
	struct vrdma_conf conf;
	struct vrdma_dev *dev;
	struct vuf_conn *c;
	struct vuf_mem *mem;
	struct vuf_vq rx, tx;
	uint8_t *bufs;   /* receive buffers, RXBUF bytes each */
	uint8_t *out;    /* a frame to send */
	uint32_t hdr;    /* virtio-net header bytes: 12, or 10 for a legacy driver without MRG_RXBUF */
	char path[128];
};

static void
guest_up(struct guest *g, const char *name, uint64_t features)
{
	struct vrdma_dev_info info;
	int up[2] = { 1, 1 };

	g->hdr = features & ((1ull << F_VERSION_1) | (1ull << F_MRG_RXBUF)) ? 12 : 10;
	conf_for(&g->conf, g->path, sizeof(g->path), name);
	g->conf.net_rx = net_rx;
	g->conf.net_tx = net_tx;
	g->dev = attach(&g->conf, &g->c, &info);
	g->mem = vuf_mem_create(MEM_SIZE, MEM_GPA);
	assert_non_null(g->mem);
	assert_int_equal(vuf_set_protocol_features(g->c, 1ull << VUF_PROTOCOL_F_REPLY_ACK), 0);
	assert_int_equal(vuf_set_owner(g->c), 0);
	assert_int_equal(vuf_set_features(g->c, features | (1ull << VUF_F_PROTOCOL_FEATURES)), 0);
	assert_int_equal(vuf_set_mem_table(g->c, g->mem), 0);
	assert_int_equal(vuf_vq_init(&g->rx, g->mem, 0, 64), 0);
	assert_int_equal(vuf_vq_init(&g->tx, g->mem, 1, 64), 0);
	assert_int_equal(vuf_vq_start(g->c, &g->rx, true), 0);
	assert_int_equal(vuf_vq_start(g->c, &g->tx, true), 0);
	assert_true(wait_info(g->dev, ring_is, up, &info));
	g->bufs = vuf_mem_alloc(g->mem, 64 * RXBUF, 64);
	g->out = vuf_mem_alloc(g->mem, 16384, 64);
	assert_non_null(g->bufs);
	assert_non_null(g->out);
}

static void
guest_down(struct guest *g)
{
	struct rte_mbuf *m = NULL;

	detach(g->dev, g->c, g->path);
	vuf_vq_fini(&g->rx);
	vuf_vq_fini(&g->tx);
	vuf_mem_destroy(g->mem);
	while (rte_ring_dequeue(net_tx, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	while (rte_ring_dequeue(net_rx, (void **)&m) == 0)
		rte_pktmbuf_free(m);
}

static void
give_rx_buffers(struct guest *g, unsigned int first, unsigned int n)
{
	unsigned int i;

	for (i = first; i < first + n; i++) {
		struct vuf_buf b = { g->bufs + i * RXBUF, RXBUF };

		assert_int_equal(vuf_vq_add(&g->rx, NULL, 0, &b, 1, b.addr), 0);
	}
	vuf_vq_kick(&g->rx);
}

/* A frame of @p len bytes: destination, source, type, then a pattern. */
static void
frame_fill(uint8_t *f, uint32_t len, uint8_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		f[i] = (uint8_t)(i * 31 + seed);
	f[12] = 0x08;
	f[13] = 0x00;
}

/* One turn of a wait on @p vq: true when a chain came back used, else the device is polled. */
static bool
used_or_poll(struct guest *g, struct vuf_vq *vq, void **cookie, uint32_t *len)
{
	if (vuf_vq_get_used(vq, cookie, len) == 1)
		return true;
	vrdma_dev_poll(g->dev);
	return false;
}

/* The guest sends one frame of @p len bytes after a header; @return what the device counted. */
static void
guest_send(struct guest *g, uint32_t len, uint8_t hdr_flags)
{
	struct vuf_buf b = { g->out, g->hdr + len };
	uint32_t used;
	void *cookie;

	memset(g->out, 0, g->hdr);
	g->out[0] = hdr_flags;
	frame_fill(g->out + g->hdr, len, (uint8_t)len);
	assert_int_equal(vuf_vq_add(&g->tx, &b, 1, NULL, 0, g), 0);
	vuf_vq_kick(&g->tx);
	if (!test_wait_until(used_or_poll(g, &g->tx, &cookie, &used), TIMEOUT_MS))
		fail_msg("the transmit chain was never returned");
}

/* Guest frames reach net_tx byte for byte; bad ones are refused and counted. */
static void
test_guest_frames_reach_the_wire(void **state)
{
	struct vrdma_dev_info info;
	struct rte_mbuf *m = NULL;
	struct guest g;
	uint8_t want[2000];

	(void)state;
	guest_up(&g, "tx.sock", (1ull << F_VERSION_1) | (1ull << F_MRG_RXBUF));
	guest_send(&g, 1000, 0);
	assert_int_equal(rte_ring_dequeue(net_tx, (void **)&m), 0);
	assert_int_equal(m->pkt_len, 1000);
	frame_fill(want, 1000, (uint8_t)1000);
	assert_memory_equal(rte_pktmbuf_mtod(m, void *), want, 1000);
	rte_pktmbuf_free(m);
	/* a 1518-byte frame (MTU 1500 and a VLAN tag) passes; 1519 does not */
	guest_send(&g, 1518, 0);
	assert_int_equal(rte_ring_dequeue(net_tx, (void **)&m), 0);
	assert_int_equal(m->pkt_len, 1518);
	rte_pktmbuf_free(m);
	guest_send(&g, 1519, 0);
	guest_send(&g, 10, 0);                  /* shorter than an Ethernet header */
	guest_send(&g, 100, 1);                 /* NEEDS_CSUM: no checksum offload offered */
	assert_int_equal(rte_ring_count(net_tx), 0);
	vrdma_dev_info_get(g.dev, &info);
	assert_int_equal(info.net_tx_frames, 2);
	assert_int_equal(info.net_tx_bytes, 1000 + 1518);
	assert_int_equal(info.net_tx_refused, 3);
	guest_down(&g);
}

static struct rte_mbuf *
wire_frame(uint32_t len, uint8_t seed)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(test_pool);

	assert_non_null(m);
	assert_non_null(rte_pktmbuf_append(m, (uint16_t)len));
	frame_fill(rte_pktmbuf_mtod(m, uint8_t *), len, seed);
	return m;
}

/* Take one used receive buffer (polling the device). @return its used length. */
static uint32_t
rx_used(struct guest *g, uint8_t **buf)
{
	uint32_t len;
	void *cookie;

	if (!test_wait_until(used_or_poll(g, &g->rx, &cookie, &len), TIMEOUT_MS))
		fail_msg("no receive buffer was used");
	*buf = cookie;
	return len;
}

/*
 * A wire frame of 1000 bytes fills 4 mergeable buffers of 256 (header
 * num_buffers 4), in order; with no buffer it waits, and comes once there
 * are some.
 */
static void
test_wire_frames_fill_mergeable_buffers(void **state)
{
	struct vrdma_dev_info info;
	uint8_t got[2048], want[2048], *b;
	uint32_t len, at = 0, i;
	struct guest g;
	uint16_t nb;

	(void)state;
	guest_up(&g, "rx.sock", (1ull << F_VERSION_1) | (1ull << F_MRG_RXBUF));
	/* no buffers yet: the frame waits */
	assert_int_equal(rte_ring_enqueue(net_rx, wire_frame(1000, 7)), 0);
	for (i = 0; i < 50; i++)
		vrdma_dev_poll(g.dev);
	vrdma_dev_info_get(g.dev, &info);
	assert_int_equal(info.net_rx_frames, 0);
	assert_int_equal(info.net_rx_too_big, 0);
	give_rx_buffers(&g, 0, 8);
	for (i = 0; i < 4; i++) {
		len = rx_used(&g, &b);
		assert_ptr_equal(b, g.bufs + i * RXBUF);
		assert_int_equal(len, i < 3 ? RXBUF : HDR + 1000 - 3 * RXBUF);
		if (i == 0) {
			memcpy(&nb, b + 10, 2);
			assert_int_equal(nb, 4);
			assert_int_equal(b[0] | b[1], 0); /* no flags, no GSO */
			memcpy(got, b + HDR, len - HDR);
			at = len - HDR;
		} else {
			memcpy(got + at, b, len);
			at += len;
		}
	}
	assert_int_equal(at, 1000);
	frame_fill(want, 1000, 7);
	assert_memory_equal(got, want, 1000);
	vrdma_dev_info_get(g.dev, &info);
	assert_int_equal(info.net_rx_frames, 1);
	assert_int_equal(info.net_rx_bytes, 1000);
	/* a short frame takes one buffer */
	assert_int_equal(rte_ring_enqueue(net_rx, wire_frame(60, 9)), 0);
	len = rx_used(&g, &b);
	assert_int_equal(len, HDR + 60);
	memcpy(&nb, b + 10, 2);
	assert_int_equal(nb, 1);
	frame_fill(want, 60, 9);
	assert_memory_equal(b + HDR, want, 60);
	guest_down(&g);
}

/* Without MRG_RXBUF a frame no single buffer holds is dropped and counted; a small one passes. */
static void
test_without_mergeable_buffers_a_big_frame_is_dropped(void **state)
{
	struct vrdma_dev_info info;
	struct guest g;
	uint8_t *b, want[128];
	uint32_t len, i;

	(void)state;
	guest_up(&g, "nomrg.sock", 1ull << F_VERSION_1);
	give_rx_buffers(&g, 0, 2);
	assert_int_equal(rte_ring_enqueue(net_rx, wire_frame(1000, 3)), 0);
	assert_int_equal(rte_ring_enqueue(net_rx, wire_frame(100, 4)), 0);
	len = rx_used(&g, &b);
	/* the first buffer went to the small frame: the big one took none */
	assert_ptr_equal(b, g.bufs);
	assert_int_equal(len, HDR + 100);
	frame_fill(want, 100, 4);
	assert_memory_equal(b + HDR, want, 100);
	for (i = 0; i < 10; i++)
		vrdma_dev_poll(g.dev);
	vrdma_dev_info_get(g.dev, &info);
	assert_int_equal(info.net_rx_too_big, 1);
	assert_int_equal(info.net_rx_frames, 1);
	assert_int_equal(vuf_vq_in_flight(&g.rx), 1);
	guest_down(&g);
}

/*
 * DPDK's virtio-user PMD as the frontend of the net queues (it handles its
 * control queue itself and never asks for RoCE): frames both ways.
 */
static void
test_virtio_user_frames_both_ways(void **state)
{
	struct rte_eth_conf ec = { 0 };
	struct rte_mbuf *tx[4], *rx[8], *m = NULL;
	struct vrdma_conf conf;
	struct vrdma_dev *dev;
	struct vrdma_dev_info info;
	char path[128], args[200];
	uint16_t port, n = 0, i;
	uint8_t want[600];

	(void)state;
	conf_for(&conf, path, sizeof(path), "vu.sock");
	conf.net_rx = net_rx;
	conf.net_tx = net_tx;
	dev = vrdma_dev_create(&conf);
	assert_non_null(dev);
	snprintf(args, sizeof(args), "path=%s,queues=1,queue_size=256", path);
	if (rte_vdev_init("net_virtio_user_t", args) != 0)
		fail_msg("net_virtio_user could not attach to %s", path);
	assert_int_equal(rte_eth_dev_get_port_by_name("net_virtio_user_t", &port), 0);
	assert_int_equal(rte_eth_dev_configure(port, 1, 1, &ec), 0);
	assert_int_equal(rte_eth_rx_queue_setup(port, 0, 256, SOCKET_ID_ANY, NULL, test_pool), 0);
	assert_int_equal(rte_eth_tx_queue_setup(port, 0, 256, SOCKET_ID_ANY, NULL), 0);
	assert_int_equal(rte_eth_dev_start(port), 0);
	vrdma_dev_info_get(dev, &info);
	assert_false(info.roce);
	assert_true(info.features & (1ull << F_MRG_RXBUF));

	/* port -> wire */
	for (i = 0; i < 4; i++)
		tx[i] = wire_frame(100 + 100 * i, (uint8_t)i);
	assert_int_equal(rte_eth_tx_burst(port, 0, tx, 4), 4);
	TEST_WAIT((vrdma_dev_poll(dev), rte_ring_count(net_tx) >= 4), TIMEOUT_MS);
	assert_int_equal(rte_ring_count(net_tx), 4);
	for (i = 0; i < 4; i++) {
		assert_int_equal(rte_ring_dequeue(net_tx, (void **)&m), 0);
		assert_int_equal(m->pkt_len, 100 + 100 * i);
		frame_fill(want, m->pkt_len, (uint8_t)i);
		assert_memory_equal(rte_pktmbuf_mtod(m, void *), want, m->pkt_len);
		rte_pktmbuf_free(m);
	}
	/* wire -> port */
	for (i = 0; i < 3; i++)
		assert_int_equal(rte_ring_enqueue(net_rx, wire_frame(64 + 200 * i, (uint8_t)(i + 10))),
				 0);
	TEST_WAIT((vrdma_dev_poll(dev),
		   n += rte_eth_rx_burst(port, 0, rx + n, (uint16_t)(8 - n))) >= 3, TIMEOUT_MS);
	assert_int_equal(n, 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(rx[i]->pkt_len, 64 + 200 * i);
		frame_fill(want, rx[i]->pkt_len, (uint8_t)(i + 10));
		assert_memory_equal(rte_pktmbuf_mtod(rx[i], void *), want, rx[i]->pkt_len);
		rte_pktmbuf_free(rx[i]);
	}
	vrdma_dev_info_get(dev, &info);
	assert_int_equal(info.net_tx_frames, 4);
	assert_int_equal(info.net_rx_frames, 3);
	assert_int_equal(rte_eth_dev_stop(port), 0);
	assert_int_equal(rte_eth_dev_close(port), 0);
	assert_int_equal(rte_vdev_uninit("net_virtio_user_t"), 0);
	vrdma_dev_destroy(dev);
	unlink(path);
}

/* A legacy driver (no VERSION_1, no MRG_RXBUF) has a 10-byte header both ways. */
/*
 * A RoCE v2 frame (UDP 4791) for a GID the device does not hold, on the
 * device's RoCE ring, is the guest's own (an rxe in the guest): it reaches
 * receiveq1 byte for byte. Its ICRC is wrong on purpose: only frames for
 * the device's GIDs are checked.
 */
static void
test_roce_frames_for_other_gids_reach_the_guest(void **state)
{
	static const uint8_t ip_udp_bth[] = {
		0x45, 0, 0, 60, 0, 0, 0x40, 0, 64, 17, 0, 0, /* IPv4, 60 bytes, DF, UDP */
		10, 0, 0, 1, 10, 0, 0, 9,                      /* 10.0.0.1 -> 10.0.0.9 */
		0xc0, 0x00, 0x12, 0xb7, 0, 40, 0, 0,           /* UDP -> 4791, 40 bytes */
		0x04, 0, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 0 /* BTH: RC SEND_ONLY to QP 0x11 */
	};
	uint8_t want[74], *b;
	struct vrdma_dev_info info;
	uint16_t cksum;
	struct rte_mbuf *m;
	struct guest g;
	uint32_t len;

	(void)state;
	guest_up(&g, "pass.sock", 1ull << F_VERSION_1);
	memcpy(want, g.conf.mac.addr_bytes, 6);
	memcpy(want + 6, "\x02\x00\x00\x00\x00\x07\x08\x00", 8);
	memcpy(want + 14, ip_udp_bth, sizeof(ip_udp_bth));
	memset(want + 14 + sizeof(ip_udp_bth), 0x5a, 16 + 4); /* payload, a wrong ICRC */
	cksum = rte_ipv4_cksum((const struct rte_ipv4_hdr *)(want + 14));
	memcpy(want + 14 + 10, &cksum, 2);
	m = rte_pktmbuf_alloc(test_pool);
	assert_non_null(m);
	memcpy(rte_pktmbuf_append(m, sizeof(want)), want, sizeof(want));
	assert_int_equal(rte_ring_enqueue(g.conf.roce_rx, m), 0);
	give_rx_buffers(&g, 0, 2);
	len = rx_used(&g, &b);
	assert_int_equal(len, HDR + sizeof(want));
	assert_memory_equal(b + HDR, want, sizeof(want));
	vrdma_dev_info_get(g.dev, &info);
	assert_int_equal(info.net_rx_frames, 1);
	guest_down(&g);
}

/*
 * Frames from the wire with no guest queue to take them (no driver yet)
 * are dropped and counted, as a NIC with its link down drops them: they
 * hold no mbufs for a guest that may never come.
 */
static void
test_frames_with_no_guest_queue_are_dropped(void **state)
{
	struct vrdma_dev_info info;
	struct vrdma_dev *dev;
	struct vrdma_conf conf;
	char path[128];
	unsigned int i;

	(void)state;
	conf_for(&conf, path, sizeof(path), "unserved.sock");
	conf.net_rx = net_rx;
	conf.net_tx = net_tx;
	dev = vrdma_dev_create(&conf);
	assert_non_null(dev);
	assert_int_equal(rte_ring_enqueue(net_rx, wire_frame(100, 1)), 0);
	assert_int_equal(rte_ring_enqueue(net_rx, wire_frame(200, 2)), 0);
	assert_int_equal(rte_ring_enqueue(conf.roce_rx, wire_frame(300, 3)), 0);
	for (i = 0; i < 4; i++)
		vrdma_dev_poll(dev);
	assert_int_equal(rte_ring_count(net_rx), 0);
	assert_int_equal(rte_ring_count(conf.roce_rx), 0);
	vrdma_dev_info_get(dev, &info);
	assert_int_equal(info.rx_unserved, 3);
	assert_int_equal(info.net_rx_frames, 0);
	vrdma_dev_destroy(dev);
}

static void
test_legacy_driver_has_a_10_byte_header(void **state)
{
	struct rte_mbuf *m = NULL;
	uint8_t want[200], *b;
	struct guest g;
	uint32_t len;

	(void)state;
	guest_up(&g, "legacy.sock", 0);
	guest_send(&g, 200, 0);
	assert_int_equal(rte_ring_dequeue(net_tx, (void **)&m), 0);
	assert_int_equal(m->pkt_len, 200);
	frame_fill(want, 200, 200);
	assert_memory_equal(rte_pktmbuf_mtod(m, void *), want, 200);
	rte_pktmbuf_free(m);
	give_rx_buffers(&g, 0, 1);
	assert_int_equal(rte_ring_enqueue(net_rx, wire_frame(150, 5)), 0);
	len = rx_used(&g, &b);
	assert_int_equal(len, 10 + 150);
	frame_fill(want, 150, 5);
	assert_memory_equal(b + 10, want, 150);
	guest_down(&g);
}

/* With a transmit ring, the pool's mbufs must hold a header and a frame of the MTU. */
static void
test_pool_too_small_for_the_mtu_is_refused(void **state)
{
	struct rte_mempool *small = rte_pktmbuf_pool_create("vt_small", 63, 0, 0,
							    RTE_PKTMBUF_HEADROOM + 1024,
							    SOCKET_ID_ANY);
	struct vrdma_conf conf;
	char path[128], err[160];

	(void)state;
	assert_non_null(small);
	conf_for(&conf, path, sizeof(path), "small.sock");
	conf.pool = small;
	assert_int_equal(vrdma_conf_check(&conf, err, sizeof(err)), 0);
	conf.net_tx = net_tx;
	assert_int_equal(vrdma_conf_check(&conf, err, sizeof(err)), -EINVAL);
	conf.mtu = 900;
	assert_int_equal(vrdma_conf_check(&conf, err, sizeof(err)), 0);
	rte_mempool_free(small);
}

static struct vrdma_dev *vr_dev;

static void
vr_poll(void *arg)
{
	(void)arg;
	vrdma_dev_poll(vr_dev);
}

/* vuf_rdma_net_recv() polling the device until a frame comes. @return its result. */
static int
vr_recv(struct vuf_rdma *d, uint8_t *frame, uint32_t room, uint32_t *len)
{
	int rc = 0;

	test_wait_until((vr_poll(NULL), (rc = vuf_rdma_net_recv(d, frame, room, len)) != 0),
			TIMEOUT_MS);
	return rc;
}

/*
 * vuf_rdma's Ethernet queues: wire frames come to the caller byte for byte
 * (the 12-byte header taken off), 20 of them through 4 receive buffers that
 * go back as they are read; one longer than the caller's room is dropped and
 * counted and the next one comes; the guest's frames reach the wire whole; a
 * transmit ring with every buffer in flight refuses (counted) until the
 * device returns them; lengths out of range and a second start are refused.
 */
static void
test_vuf_rdma_net_queues_carry_frames_both_ways(void **state)
{
	struct vuf_rdma_conf vc = {
		.mem_size = MEM_SIZE, .gpa_base = MEM_GPA, .roce_bit = 55, .ctrl_class = 6,
		.timeout_ms = TIMEOUT_MS, .poll = vr_poll,
	};
	uint8_t got[2048], want[2048];
	struct vuf_rdma_net_stats st;
	struct vrdma_dev_info info;
	int rx_up[2] = { 0, 1 }, tx_up[2] = { 1, 1 };
	struct rte_mbuf *m = NULL;
	struct vrdma_conf conf;
	char path[128], err[128];
	struct vuf_rdma *d;
	uint32_t len, i;

	(void)state;
	conf_for(&conf, path, sizeof(path), "vrnet.sock");
	conf.net_rx = net_rx;
	conf.net_tx = net_tx;
	vr_dev = vrdma_dev_create(&conf);
	assert_non_null(vr_dev);
	vc.path = path;
	d = vuf_rdma_open(&vc, err, sizeof(err));
	if (d == NULL)
		fail_msg("vuf_rdma_open: %s", err);
	assert_int_equal(vuf_rdma_net_recv(d, got, sizeof(got), &len), -ENODEV);
	assert_int_equal(vuf_rdma_net_send(d, want, 60), -ENODEV);
	assert_null(vuf_rdma_ring(d, 0));
	assert_int_equal(vuf_rdma_net_start(d, 0, 2), -EINVAL);
	assert_int_equal(vuf_rdma_net_start(d, 2, 257), -EINVAL);
	/* 3 receive buffers are a ring of 4; 2 transmit buffers */
	assert_int_equal(vuf_rdma_net_start(d, 3, 2), 0);
	assert_int_equal(vuf_rdma_net_start(d, 3, 2), -EALREADY);
	assert_non_null(vuf_rdma_ring(d, 0));
	assert_int_equal(vuf_vq_in_flight(vuf_rdma_ring(d, 0)), 4);
	assert_true(wait_info(vr_dev, ring_is, rx_up, &info));
	assert_true(wait_info(vr_dev, ring_is, tx_up, &info));
	assert_int_equal(vuf_rdma_net_frame_max(d), 1518);
	for (i = 0; i < 20; i++) {
		assert_int_equal(rte_ring_enqueue(net_rx, wire_frame(60 + i, (uint8_t)i)), 0);
		assert_int_equal(vr_recv(d, got, sizeof(got), &len), 1);
		assert_int_equal(len, 60 + i);
		frame_fill(want, len, (uint8_t)i);
		assert_memory_equal(got, want, len);
	}
	/* every buffer is back with the device */
	assert_int_equal(vuf_vq_in_flight(vuf_rdma_ring(d, 0)), 4);
	assert_int_equal(rte_ring_enqueue(net_rx, wire_frame(200, 1)), 0);
	assert_int_equal(rte_ring_enqueue(net_rx, wire_frame(100, 2)), 0);
	assert_int_equal(vr_recv(d, got, 150, &len), 1);
	assert_int_equal(len, 100);
	frame_fill(want, 100, 2);
	assert_memory_equal(got, want, 100);
	vuf_rdma_net_stats(d, &st);
	assert_int_equal(st.rx_frames, 21);
	assert_int_equal(st.rx_dropped, 1);
	/* the guest's frames, whole, to the wire */
	frame_fill(want, 1518, 5);
	assert_int_equal(vuf_rdma_net_send(d, want, 1518), 0);
	assert_true(test_wait_until((vr_poll(NULL), rte_ring_count(net_tx) == 1), TIMEOUT_MS));
	assert_int_equal(rte_ring_dequeue(net_tx, (void **)&m), 0);
	assert_int_equal(m->pkt_len, 1518);
	assert_memory_equal(rte_pktmbuf_mtod(m, void *), want, 1518);
	rte_pktmbuf_free(m);
	/* both transmit buffers in flight (the device not polled): the third is refused */
	assert_int_equal(vuf_rdma_net_send(d, want, 60), 0);
	assert_int_equal(vuf_rdma_net_send(d, want, 61), 0);
	assert_int_equal(vuf_rdma_net_send(d, want, 62), -ENOSPC);
	assert_true(test_wait_until((vr_poll(NULL), rte_ring_count(net_tx) == 2), TIMEOUT_MS));
	assert_int_equal(vuf_rdma_net_send(d, want, 63), 0);
	assert_true(test_wait_until((vr_poll(NULL), rte_ring_count(net_tx) == 3), TIMEOUT_MS));
	for (i = 0; i < 3; i++) {
		assert_int_equal(rte_ring_dequeue(net_tx, (void **)&m), 0);
		assert_int_equal(m->pkt_len, 60 + (i == 2 ? 3 : i));
		rte_pktmbuf_free(m);
	}
	assert_int_equal(vuf_rdma_net_send(d, want, 13), -EINVAL);
	assert_int_equal(vuf_rdma_net_send(d, want, 1519), -EINVAL);
	vuf_rdma_net_stats(d, &st);
	assert_int_equal(st.tx_frames, 4);
	assert_int_equal(st.tx_full, 1);
	vrdma_dev_info_get(vr_dev, &info);
	assert_int_equal(info.net_tx_frames, 4);
	/* the device delivered the long one too: the driver dropped it */
	assert_int_equal(info.net_rx_frames, 22);
	vuf_rdma_close(d);
	assert_true(wait_info(vr_dev, no_vid, NULL, &info));
	vrdma_dev_destroy(vr_dev);
	unlink(path);
}

static int
net_up(void **state)
{
	if (group_up(state) != 0)
		return -1;
	net_rx = rte_ring_create("vt_net_rx", 256, SOCKET_ID_ANY, 0);
	net_tx = rte_ring_create("vt_net_tx", 256, SOCKET_ID_ANY, 0);
	return net_rx == NULL || net_tx == NULL ? -1 : 0;
}

static int
net_down(void **state)
{
	rte_ring_free(net_rx);
	rte_ring_free(net_tx);
	return group_down(state);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_guest_frames_reach_the_wire),
		cmocka_unit_test(test_wire_frames_fill_mergeable_buffers),
		cmocka_unit_test(test_without_mergeable_buffers_a_big_frame_is_dropped),
		cmocka_unit_test(test_legacy_driver_has_a_10_byte_header),
		cmocka_unit_test(test_pool_too_small_for_the_mtu_is_refused),
		cmocka_unit_test(test_virtio_user_frames_both_ways),
		cmocka_unit_test(test_roce_frames_for_other_gids_reach_the_guest),
		cmocka_unit_test(test_frames_with_no_guest_queue_are_dropped),
		cmocka_unit_test(test_vuf_rdma_net_queues_carry_frames_both_ways),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests(tests, net_up, net_down);
}
