/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* net_opa_vnic receive side over net_hfi1's model: the dispatcher that
 * shares a fabric queue between vports, vesw isolation, and frames spread
 * over several fabric receive contexts. */

#include "opa_vnic_test_util.h"
#include "test_case.h"

/* The k-th frame of a sequence 0..n-1 that @pick selects (its seq), or -1. */
static int
nth_seq(unsigned int n, unsigned int k, bool (*pick)(unsigned int))
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (pick(i) && k-- == 0)
			return (int)i;
	return -1;
}

static bool
to_vport0(unsigned int i)
{
	return i % 4 == 0;
}

static bool
to_vport1(unsigned int i)
{
	return i % 4 != 0;
}

/* Poll vport 0 until the device took @n more fabric packets, none of
 * them vport 0's own (they are handed over, or dropped and counted). */
static void
dispatch_via_vport0(struct vtopo *t, unsigned int n)
{
	static struct rte_mbuf *r[512];
	uint64_t f = xstat(t->vp[0], "fabric_rx_packets");
	uint16_t got;

	got = vnic_poll_fabric(t->vp[0], 0, f + n, r, RTE_DIM(r), VT_WAIT_MS);
	assert_int_equal(xstat(t->vp[0], "fabric_rx_packets"), f + n);
	assert_int_equal(got, 0);
}

/*
 * Dispatcher under a slow consumer. Frames for vport 1 (vesw 20) arrive
 * while only vport 0 polls the shared fabric queue: vport 0 keeps its own
 * and hands vport 1's into vport 1's ring, which holds the queue's nb_desc
 * rounded up to a power of two (100 -> 128), first come first kept. The
 * overflow is counted on vport 1 as xstat rx_logic, ethdev imissed and the
 * EM's rx_logic; delivered + counted == sent per vport, nothing silent.
 * Hand-over resumes once the ring is read; frames still in the ring when
 * vport 1 stops, and frames for it while stopped, count as rx_drop_state;
 * restarted, it receives again. No mbuf of the test pool or of the
 * device's pool is missing afterwards.
 */
static void
test_slow_consumer_overflow_counted(void **state)
{
	enum { N = 400, RING = 128 };
	static struct rte_mbuf *r0[N], *r1[N];
	struct rte_ether_addr mac0, mac1;
	struct vnic_counters c;
	struct rte_eth_stats st;
	struct rte_mempool *dp;
	unsigned int dp_used, i, n1 = 0, got0 = 0, got1;
	uint64_t f0, handed0, ds;
	struct vtopo t;

	(void)state;
	vtopo_create(&t, 2, 1, "");
	assert_int_equal(rte_eth_rx_queue_setup(t.vp[1], 0, 100, SOCKET_ID_ANY, NULL,
						test_pool), 0);
	vtopo_forward_all(&t, 1500);
	mac0 = port_mac(t.vp[0]);
	mac1 = port_mac(t.vp[1]);
	dp = vnic_dev_pool(t.a.port);
	assert_non_null(dp);
	dp_used = rte_mempool_in_use_count(dp);
	f0 = xstat(t.vp[0], "fabric_rx_packets");
	handed0 = xstat(t.vp[0], "fabric_rx_handed_over");

	/* 1 in 4 for vport 0, the rest for vport 1; B paced by vport 0 */
	for (i = 0; i < N; i++) {
		peer_send(&t, to_vport0(i) ? 10 : 20, 60 + i % 200, to_vport0(i) ? &mac0 : &mac1,
			  i);
		n1 += to_vport1(i);
		if (i % 32 == 31 || i == N - 1)
			got0 += vnic_poll_fabric(t.vp[0], 0, f0 + i + 1, r0 + got0, N - got0,
						 VT_WAIT_MS);
	}
	assert_int_equal(xstat(t.vp[0], "fabric_rx_packets"), f0 + N);
	assert_int_equal(got0, N - n1);
	for (i = 0; i < got0; i++) {
		int seq = nth_seq(N, i, to_vport0);

		assert_true(frame_is(r0[i], 60 + seq % 200, &mac0, seq));
		assert_int_equal(r0[i]->port, t.vp[0]);
	}
	rte_pktmbuf_free_bulk(r0, got0);

	/* vport 1 reads its ring late: the first RING of its frames */
	got1 = vnic_drain(t.vp[1], 0, r1, N);
	assert_int_equal(got1, RING);
	for (i = 0; i < got1; i++) {
		int seq = nth_seq(N, i, to_vport1);

		assert_true(frame_is(r1[i], 60 + seq % 200, &mac1, seq));
		assert_int_equal(r1[i]->port, t.vp[1]);
	}
	rte_pktmbuf_free_bulk(r1, got1);
	assert_int_equal(xstat(t.vp[0], "fabric_rx_handed_over") - handed0, RING);

	/* the overflow, counted on vport 1 only, in every view */
	assert_int_equal(xstat(t.vp[1], "rx_logic"), n1 - RING);
	assert_int_equal(xstat(t.vp[1], "vnic_rx_errors"), n1 - RING);
	assert_int_equal(xstat(t.vp[1], "rx_unicast"), RING);
	assert_int_equal(rte_eth_stats_get(t.vp[1], &st), 0);
	assert_int_equal(st.imissed, n1 - RING);
	assert_int_equal(st.ipackets, RING);
	assert_int_equal(st.ierrors, 0);
	assert_int_equal(xstat(t.vp[0], "rx_logic"), 0);
	assert_int_equal(rte_eth_stats_get(t.vp[0], &st), 0);
	assert_int_equal(st.ipackets, N - n1);
	assert_int_equal(st.imissed, 0);
	em_counters(&t, 1, &c);
	assert_int_equal(c.rx_logic, n1 - RING);
	assert_int_equal(c.rx_packets, RING);
	/* nothing silent: every fabric packet delivered or counted */
	assert_int_equal(got0 + got1 + xstat(t.vp[1], "rx_logic"), N);

	/* read, the ring takes frames again */
	for (i = 0; i < 10; i++)
		peer_send(&t, 20, 100, &mac1, 1000 + i);
	dispatch_via_vport0(&t, 10);
	assert_int_equal(vnic_recv(t.vp[1], 0, r1, 10, VT_WAIT_MS), 10);
	for (i = 0; i < 10; i++)
		assert_true(frame_is(r1[i], 100, &mac1, 1000 + i));
	rte_pktmbuf_free_bulk(r1, 10);

	/* handed over but never read: counted when vport 1 stops */
	ds = xstat(t.vp[1], "rx_drop_state");
	for (i = 0; i < 20; i++)
		peer_send(&t, 20, 100, &mac1, 2000 + i);
	dispatch_via_vport0(&t, 20);
	assert_int_equal(rte_eth_dev_stop(t.vp[1]), 0);
	assert_int_equal(xstat(t.vp[1], "rx_drop_state"), ds + 20);
	/* for a stopped vport: counted there too */
	for (i = 0; i < 5; i++)
		peer_send(&t, 20, 100, &mac1, 3000 + i);
	dispatch_via_vport0(&t, 5);
	assert_int_equal(xstat(t.vp[1], "rx_drop_state"), ds + 25);
	assert_int_equal(xstat(t.vp[1], "rx_logic"), n1 - RING);

	/* restarted: frames again */
	assert_int_equal(rte_eth_dev_start(t.vp[1]), 0);
	assert_true(link_wait(t.vp[1], true));
	for (i = 0; i < 3; i++)
		peer_send(&t, 20, 100, &mac1, 4000 + i);
	dispatch_via_vport0(&t, 3);
	assert_int_equal(vnic_recv(t.vp[1], 0, r1, 3, VT_WAIT_MS), 3);
	for (i = 0; i < 3; i++)
		assert_true(frame_is(r1[i], 100, &mac1, 4000 + i));
	rte_pktmbuf_free_bulk(r1, 3);
	assert_int_equal(xstat(t.vp[1], "rx_unicast"), RING + 13);

	/* every frame went back to the device's pool */
	rte_eth_dev_stop(t.vp[0]);
	rte_eth_dev_stop(t.vp[1]);
	assert_int_equal(rte_mempool_in_use_count(dp), dp_used);
	vtopo_destroy(&t);
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);
}

/* The ring of a queue set up with nb_desc @desc holds the next power of two. */
static void
check_ring_capacity(uint16_t desc, unsigned int want)
{
	static struct rte_mbuf *r[1100];
	struct rte_ether_addr mac1;
	unsigned int i, n = want + 20;
	struct vtopo t;

	vtopo_create(&t, 2, 1, "");
	assert_int_equal(rte_eth_rx_queue_setup(t.vp[1], 0, desc, SOCKET_ID_ANY, NULL,
						test_pool), 0);
	vtopo_forward_all(&t, 1500);
	mac1 = port_mac(t.vp[1]);
	for (i = 0; i < n; i++) {
		peer_send(&t, 20, 60, &mac1, i);
		if (i % 32 == 31 || i == n - 1)
			dispatch_via_vport0(&t, i % 32 + 1);
	}
	assert_int_equal(vnic_drain(t.vp[1], 0, r, RTE_DIM(r)), want);
	rte_pktmbuf_free_bulk(r, want);
	assert_int_equal(xstat(t.vp[1], "rx_logic"), n - want);
	vtopo_destroy(&t);
}

/* A hand-over ring is exactly nb_desc rounded up to a power of two: 128
 * descriptors hold 128 frames (not 127), 129 hold 256, and fewer than 64
 * still get 64. */
static void
test_ring_size_is_nb_desc_pow2(void **state)
{
	(void)state;
	check_ring_capacity(128, 128);
	check_ring_capacity(129, 256);
	check_ring_capacity(32, 64);
}

/*
 * A ring holds at most its queue's share of the device's pool: 1024
 * descriptors are the limit dev_info gives and rx_queue_setup enforces,
 * so a slow queue cannot take the mbufs every other vport receives into.
 */
static void
test_rx_desc_limit_is_the_pool_share(void **state)
{
	struct rte_eth_dev_info info;
	struct vtopo t;

	(void)state;
	vtopo_create(&t, 1, 1, "");
	assert_int_equal(rte_eth_dev_info_get(t.vp[0], &info), 0);
	assert_int_equal(info.rx_desc_lim.nb_max, 1024);
	assert_int_equal(rte_eth_rx_queue_setup(t.vp[0], 0, 2048, SOCKET_ID_ANY, NULL,
						test_pool), -EINVAL);
	vtopo_destroy(&t);
	check_ring_capacity(1024, 1024);
}

static struct rxbins bins;

/* How many frames of bin @k are eth_fill(dst @mac) frames with seq % 5 == @cls. */
static unsigned int
bin_check(unsigned int k, uint16_t port, const struct rte_ether_addr *mac, unsigned int cls)
{
	unsigned int i;

	for (i = 0; i < bins.n[k]; i++) {
		uint32_t seq, buf;
		const void *p = rte_pktmbuf_read(bins.m[k][i], 14, 4, &buf);

		assert_non_null(p);
		memcpy(&seq, p, 4);
		assert_int_equal(seq % 5, cls);
		assert_true(frame_is(bins.m[k][i], 80, mac, seq));
		assert_int_equal(bins.m[k][i]->port, port);
	}
	return bins.n[k];
}

/*
 * vesw isolation. Three vports on vesws 10, 0x10A and 30 (0x10A and 10
 * share their low 8 bits: Linux keys vports by vesw & 0xFF, we must not):
 * each frame reaches only the vport of its vesw; unknown vesws (99, and 0,
 * which no vport can have) are counted as rx_bad_veswid on vport 0, in
 * xstats and in the EM's error counters, and delivered nowhere, whichever
 * vport's queue dispatched them. Moving vport 2 to vesw 40 on a running
 * port moves its traffic with it.
 */
static void
test_vesw_isolation(void **state)
{
	static const uint16_t vesw[5] = { 10, 0x10A, 30, 99, 0 };
	struct rte_ether_addr mac[3];
	struct vnic_counters c;
	struct rte_eth_stats st;
	unsigned int i;
	uint64_t f0;
	struct vtopo t;

	(void)state;
	vtopo_create(&t, 3, 1, "");
	vtopo_start(&t);
	for (i = 0; i < 3; i++)
		em_set_vport(&t, (uint8_t)i, vesw[i], 1500, VNIC_STATE_FORWARDING);
	for (i = 0; i < 3; i++) {
		assert_true(link_wait(t.vp[i], true));
		mac[i] = port_mac(t.vp[i]);
	}
	f0 = xstat(t.vp[0], "fabric_rx_packets");
	for (i = 0; i < 100; i++)
		peer_send(&t, vesw[i % 5], 80, &mac[i % 5 < 3 ? i % 5 : 0], i);
	vtopo_poll_all(&t, f0 + 100, &bins, VT_WAIT_MS);
	assert_int_equal(xstat(t.vp[0], "fabric_rx_packets"), f0 + 100);
	for (i = 0; i < 3; i++)
		assert_int_equal(bin_check(i, t.vp[i], &mac[i], i), 20);
	rxbins_free(&bins);
	assert_int_equal(xstat(t.vp[0], "rx_bad_veswid"), 40);
	assert_int_equal(xstat(t.vp[1], "rx_bad_veswid"), 0);
	assert_int_equal(xstat(t.vp[2], "rx_bad_veswid"), 0);
	assert_int_equal(rte_eth_stats_get(t.vp[0], &st), 0);
	assert_int_equal(st.ierrors, 40);
	assert_int_equal(st.ipackets, 20);
	em_counters(&t, 0, &c);
	assert_int_equal(c.rx_bad_veswid, 40);
	assert_int_equal(c.rx_errors, 40);
	em_counters(&t, 1, &c);
	assert_int_equal(c.rx_bad_veswid, 0);

	/* vport 2 moves to vesw 40: vesw 30 is unknown now */
	em_set_vport(&t, 2, 40, 1500, VNIC_STATE_FORWARDING);
	f0 = xstat(t.vp[0], "fabric_rx_packets");
	for (i = 0; i < 10; i++)
		peer_send(&t, i % 2 ? 40 : 30, 80, &mac[2], 5 * i + 2);
	vtopo_poll_all(&t, f0 + 10, &bins, VT_WAIT_MS);
	assert_int_equal(bin_check(2, t.vp[2], &mac[2], 2), 5);
	assert_int_equal(bins.n[0] + bins.n[1], 0);
	rxbins_free(&bins);
	assert_int_equal(xstat(t.vp[0], "rx_bad_veswid"), 45);

	/* dispatched by vport 2 alone: unknown vesws still count on vport 0 */
	f0 = xstat(t.vp[0], "fabric_rx_packets");
	for (i = 0; i < 5; i++)
		peer_send(&t, 99, 80, &mac[2], 100 + i);
	assert_int_equal(vnic_poll_fabric(t.vp[2], 0, f0 + 5, bins.m[0], RXBIN_MAX, VT_WAIT_MS),
			 0);
	assert_int_equal(xstat(t.vp[0], "rx_bad_veswid"), 50);
	assert_int_equal(xstat(t.vp[2], "rx_bad_veswid"), 0);
	vtopo_destroy(&t);
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);
}

/* A per-queue xstat of node A ("rx_q%u_packets" / "tx_q%u_packets"). */
static uint64_t
a_queue_xstat(struct vtopo *t, const char *fmt, unsigned int q)
{
	char name[RTE_ETH_XSTATS_NAME_SIZE];

	snprintf(name, sizeof(name), fmt, q);
	return xstat(t->a.port, name);
}

/*
 * Multi-queue receive (vports=2, queues=2). net_hfi1 spreads VNIC packets
 * over its two data contexts by vesw and entropy; VNIC RX queue q of every
 * vport is fed from fabric queue q, so: every frame reaches its own vport,
 * both RX queues of each vport get frames, the frames of one (vesw,
 * entropy) flow always land on the same queue, and VNIC queue q's frames
 * over both vports are exactly what fabric queue q received. Per-queue
 * ethdev counters follow.
 */
static void
test_multiqueue_rx_spread(void **state)
{
	enum { FLOWS = 16, REP = 3 };
	struct rte_ether_addr mac[2];
	int flow_q[2][FLOWS];
	uint64_t fq0[2], f0;
	struct rte_eth_stats st;
	unsigned int i, v, q, k;
	struct vtopo t;

	(void)state;
	vtopo_create(&t, 2, 2, "");
	vtopo_forward_all(&t, 1500);
	for (v = 0; v < 2; v++)
		mac[v] = port_mac(t.vp[v]);
	for (q = 0; q < 2; q++)
		fq0[q] = a_queue_xstat(&t, "rx_q%u_packets", q);
	f0 = xstat(t.vp[0], "fabric_rx_packets");
	/* seq encodes vport and flow: seq = (rep * 2 + v) * FLOWS + flow */
	for (k = 0; k < REP; k++)
		for (v = 0; v < 2; v++)
			for (i = 0; i < FLOWS; i++)
				peer_send_ex(&t, (uint16_t)(10 * (v + 1)), 80, &mac[v],
					     (k * 2 + v) * FLOWS + i, (uint16_t)i, test_pool,
					     16384);
	vtopo_poll_all(&t, f0 + REP * 2 * FLOWS, &bins, VT_WAIT_MS);
	memset(flow_q, -1, sizeof(flow_q));
	for (v = 0; v < 2; v++)
		for (q = 0; q < 2; q++) {
			unsigned int b = v * 2 + q;

			assert_true(bins.n[b] > 0);
			for (i = 0; i < bins.n[b]; i++) {
				uint32_t seq;
				unsigned int flow;

				memcpy(&seq, rte_pktmbuf_mtod_offset(bins.m[b][i], void *, 14), 4);
				assert_int_equal(seq / FLOWS % 2, v);
				assert_true(frame_is(bins.m[b][i], 80, &mac[v], seq));
				flow = seq % FLOWS;
				if (flow_q[v][flow] < 0)
					flow_q[v][flow] = (int)q;
				assert_int_equal(flow_q[v][flow], q);
			}
		}
	for (q = 0; q < 2; q++)
		assert_int_equal(a_queue_xstat(&t, "rx_q%u_packets", q) - fq0[q],
				 bins.n[q] + bins.n[2 + q]);
	assert_int_equal(bins.n[0] + bins.n[1] + bins.n[2] + bins.n[3], REP * 2 * FLOWS);
	for (v = 0; v < 2; v++) {
		assert_int_equal(rte_eth_stats_get(t.vp[v], &st), 0);
		assert_int_equal(st.ipackets, REP * FLOWS);
		for (q = 0; q < 2; q++)
			assert_int_equal(st.q_ipackets[q], bins.n[v * 2 + q]);
	}
	rxbins_free(&bins);
	vtopo_destroy(&t);
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);
}

/*
 * queues= is a maximum: with queues=2 the fabric spreads VNIC packets over
 * two data contexts, yet the application configures one RX queue per
 * vport. That queue polls both fabric queues, so no flow is lost: all
 * frames of 32 flows per vport arrive, on their own vport, and net_hfi1
 * received them on both contexts (else the test would prove nothing).
 */
static void
test_fewer_rx_queues_than_fabric_queues(void **state)
{
	enum { FLOWS = 32 };
	struct vtopo_opts o = { .dev_queues = 2 };
	struct rte_ether_addr mac[2];
	uint64_t fq0[2], f0;
	unsigned int i, v, q;
	struct vtopo t;

	(void)state;
	vtopo_create_opts(&t, 2, 1, &o);
	vtopo_forward_all(&t, 1500);
	for (v = 0; v < 2; v++)
		mac[v] = port_mac(t.vp[v]);
	for (q = 0; q < 2; q++)
		fq0[q] = a_queue_xstat(&t, "rx_q%u_packets", q);
	f0 = xstat(t.vp[0], "fabric_rx_packets");
	for (v = 0; v < 2; v++)
		for (i = 0; i < FLOWS; i++)
			peer_send_ex(&t, (uint16_t)(10 * (v + 1)), 80, &mac[v], v * FLOWS + i,
				     (uint16_t)i, test_pool, 16384);
	vtopo_poll_all(&t, f0 + 2 * FLOWS, &bins, VT_WAIT_MS);
	for (q = 0; q < 2; q++)
		assert_true(a_queue_xstat(&t, "rx_q%u_packets", q) > fq0[q]);
	for (v = 0; v < 2; v++) {
		assert_int_equal(bins.n[v], FLOWS);
		for (i = 0; i < bins.n[v]; i++) {
			uint32_t seq;

			memcpy(&seq, rte_pktmbuf_mtod_offset(bins.m[v][i], void *, 14), 4);
			assert_int_equal(seq / FLOWS, v);
			assert_true(frame_is(bins.m[v][i], 80, &mac[v], seq));
		}
	}
	rxbins_free(&bins);
	vtopo_destroy(&t);
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);
}

/*
 * Multi-queue transmit (vports=2, queues=2, engines=2 on a 16-engine HFI).
 * Each VNIC TX queue owns two fabric TX queues of its own, (vport * 2 +
 * queue) * 2 + {0, 1}, and sends each flow on the one its entropy picks
 * (entropy % 2): per fabric queue, the packets counted by net_hfi1 are
 * exactly the frames whose received header carries an entropy mapping
 * there, and every queue pair is used by 32 flows.
 */
static void
test_multiqueue_tx_engines(void **state)
{
	enum { FLOWS = 32 };
	struct vtopo_opts o = { .vnic_extra = "engines=2", .a_extra = "engines=16" };
	static struct rte_mbuf *r[4 * FLOWS];
	uint64_t want[8] = { 0 }, base[8];
	unsigned int i, v, q, n;
	struct vtopo t;

	(void)state;
	vtopo_create_opts(&t, 2, 2, &o);
	vtopo_forward_all(&t, 1500);
	for (i = 0; i < 8; i++)
		base[i] = a_queue_xstat(&t, "tx_q%u_packets", i);
	for (v = 0; v < 2; v++)
		for (q = 0; q < 2; q++)
			for (i = 0; i < FLOWS; i++) {
				struct rte_ether_addr src = port_mac(t.vp[v]), dst = peer_lmac(10);
				struct rte_mbuf *m;

				src.addr_bytes[4] = (uint8_t)i;	/* one flow each */
				m = eth_mbuf(100, &dst, &src, (v * 2 + q) * FLOWS + i);
				vnic_send(t.vp[v], q, &m, 1);
			}
	n = peer_recv(&t, r, RTE_DIM(r), VT_WAIT_MS);
	assert_int_equal(n, 4 * FLOWS);
	for (i = 0; i < n; i++) {
		struct opa16b_vnic_fields f;
		uint32_t seq;
		unsigned int slot;

		opa16b_vnic_hdr_read(rte_pktmbuf_mtod(r[i], void *), &f);
		memcpy(&seq, rte_pktmbuf_mtod_offset(r[i], uint8_t *, OPA16B_VNIC_HDR_LEN + 14), 4);
		slot = seq / FLOWS;	/* vport * 2 + queue */
		assert_true(slot < 4);
		assert_int_equal(f.dlid, B_LID);
		assert_true(f.entropy <= 0xFF);
		want[slot * 2 + f.entropy % 2]++;
	}
	rte_pktmbuf_free_bulk(r, n);
	for (i = 0; i < 8; i++) {
		assert_int_equal(a_queue_xstat(&t, "tx_q%u_packets", i) - base[i], want[i]);
		assert_true(want[i] > 0);
	}
	for (v = 0; v < 2; v++) {
		struct rte_eth_stats st;

		assert_int_equal(rte_eth_stats_get(t.vp[v], &st), 0);
		assert_int_equal(st.q_opackets[0], FLOWS);
		assert_int_equal(st.q_opackets[1], FLOWS);
	}
	vtopo_destroy(&t);
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		vnic_test(test_slow_consumer_overflow_counted),
		vnic_test(test_ring_size_is_nb_desc_pow2),
		vnic_test(test_rx_desc_limit_is_the_pool_share),
		vnic_test(test_vesw_isolation),
		vnic_test(test_multiqueue_rx_spread),
		vnic_test(test_fewer_rx_queues_than_fabric_queues),
		vnic_test(test_multiqueue_tx_engines),
	};

	/* one case: argv[1] names it (a cmocka glob) */
	test_case_filter(argc, argv);
	return cmocka_run_group_tests(tests, test_eal_setup, test_eal_teardown);
}
