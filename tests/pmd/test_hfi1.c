/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* net_hfi1 over its model: two nodes on an in-process ring wire. Life
 * cycle, the datapath at every size, steering, ring wrap-around, queue
 * start/stop, eager layouts, service mode, link state, devargs and the
 * specific API. Faults and refusals are in test_hfi1_faults.c. */

#include <rte_cycles.h>
#include <rte_eth_ring.h>
#include <rte_service.h>

#include "hfi1_test_util.h"
#include "test_case.h"
#include "test_wait.h"

#define MGMT OPA16B_L4_FM

/* ---- life cycle ---- */

/* 20 bring-ups of a pair: traffic both ways, then stop/close/uninit (even
 * rounds) or uninit of the started ports (odd rounds). Every mbuf, memzone,
 * mempool and port comes back. */
static void
test_bringup_teardown_20_times_leaves_nothing_behind(void **state)
{
	unsigned int mz = memzone_count(), mp = mempool_count(), i;
	uint16_t ports = rte_eth_dev_count_total();

	(void)state;
	for (i = 0; i < 20; i++) {
		struct node a, b;

		node_create(&a, 0, "ring:bu", "");
		node_create(&b, 1, "ring:bu", "");
		assert_int_equal(rte_eth_dev_count_total(), ports + 4);
		node_start(&a, 2, 2, 64 << (i % 3), 64 << (i % 4), test_pool, 0);
		node_start(&b, 2, 2, 128, 128, test_pool, 0);
		send_pkt(a.port, i % 2, test_pool, 64 + 8 * i, 0, 0x09, 0, 0, i);
		recv_check(b.port, 0, 64 + 8 * i, 0x09, 0, 0, i);
		send_pkt(b.port, 1, test_pool, 72, 0, 0x09, 0, 0, i);
		recv_check(a.port, 0, 72, 0x09, 0, 0, i);
		if (i % 2 == 0) {
			assert_int_equal(rte_eth_dev_stop(a.port), 0);
			assert_int_equal(rte_eth_dev_stop(b.port), 0);
			assert_int_equal(rte_eth_dev_close(a.port), 0);
			assert_int_equal(rte_eth_dev_close(b.port), 0);
		}
		assert_int_equal(rte_vdev_uninit(a.name), 0);
		assert_int_equal(rte_vdev_uninit(b.name), 0);
		assert_int_equal(rte_eth_dev_count_total(), ports);
		assert_int_equal(rte_mempool_avail_count(test_pool),
				TEST_POOL_SIZE);
	}
	assert_int_equal(memzone_count(), mz);
	assert_int_equal(mempool_count(), mp);
}

/* A node that goes and comes back on the same ring wire while its peer
 * stays talks to that peer again, both ways, whichever of the two went. */
static void
test_node_rejoining_a_wire_talks_to_the_peer_that_stayed(void **state)
{
	struct node a, b;
	unsigned int round;

	(void)state;
	pair_up(&a, &b, "ring:rj");
	for (round = 0; round < 4; round++) {
		struct node *gone = round % 2 ? &a : &b;

		node_destroy(gone);
		node_create(gone, round % 2 ? 0 : 1, "ring:rj", "");
		node_start(gone, 1, 1, 256, 256, test_pool, 0);
		send_pkt(a.port, 0, test_pool, 64, 0, 0x09, 0, 0, 2 * round);
		recv_check(b.port, 0, 64, 0x09, 0, 0, 2 * round);
		send_pkt(b.port, 0, test_pool, 64, 0, 0x09, 0, 0, 2 * round + 1);
		recv_check(a.port, 0, 64, 0x09, 0, 0, 2 * round + 1);
	}
	pair_down(&a, &b);
}

/* ---- datapath at every size ---- */

/* Every 16B size from the smallest (24) to MTU 10240 + 120 crosses A -> B
 * unchanged in one segment; the counters add up. */
static void
test_roundtrip_every_size_single_segment(void **state)
{
	struct rte_eth_stats sa, sb;
	struct node a, b;
	uint64_t bytes = 0;
	uint32_t len, n = 0;

	(void)state;
	pair_up(&a, &b, "ring:ss");
	assert_int_equal(rte_eth_dev_set_mtu(a.port, 10240), 0);
	for (len = 24; len <= 10360; len += 8, n++) {
		struct rte_mbuf *r = NULL;

		send_pkt(a.port, 0, test_pool, len, 0, VNIC, n & 0xFFF,
				(uint16_t)n, n);
		assert_int_equal(recv_some(b.port, 0, &r, 1, 100), 1);
		assert_int_equal(r->nb_segs, 1);
		assert_true(pkt16b_check(r, len, VNIC, n & 0xFFF, (uint16_t)n,
				n));
		rte_pktmbuf_free(r);
		bytes += len;
	}
	sa = port_stats(a.port);
	sb = port_stats(b.port);
	assert_int_equal(sa.opackets, n);
	assert_int_equal(sa.obytes, bytes);
	assert_int_equal(sa.oerrors, 0);
	assert_int_equal(sb.ipackets, n);
	assert_int_equal(sb.ibytes, bytes);
	assert_int_equal(sb.ierrors + sb.imissed + sb.rx_nombuf, 0);
	pair_down(&a, &b);
}

/* Every size again, sent as chains of small segments (three segment
 * sizes, 63 segments at most) and received with scatter into 256-byte
 * mbufs, with either eager layout: each received chain is valid, full
 * mbufs first, and intact. */
static void
test_roundtrip_every_size_multi_segment_with_scatter(void **state)
{
	static const uint32_t seg_sizes[] = { 256, 168, 100 };
	static const char *const layouts[] = { "layout=full", "layout=split" };
	unsigned int l;

	(void)state;
	for (l = 0; l < RTE_DIM(layouts); l++) {
		struct node a, b;
		uint32_t len, n = 0;

		node_create(&a, 0, "ring:ms", "");
		node_create(&b, 1, "ring:ms", layouts[l]);
		node_start(&a, 1, 1, 256, 1024, test_pool, 0);
		node_start(&b, 1, 1, 256, 256, test_small_pool,
				RTE_ETH_RX_OFFLOAD_SCATTER);
		assert_int_equal(rte_eth_dev_set_mtu(a.port, 10240), 0);
		for (len = 24; len <= 10360; len += 8, n++) {
			uint32_t seg = seg_sizes[n % RTE_DIM(seg_sizes)];
			struct rte_mbuf *r = NULL, *s;
			const char *why = NULL;

			if ((len + seg - 1) / seg > 63)
				seg = 256;
			send_pkt(a.port, 0, test_small_pool, len, seg, VNIC, 7,
					3, n);
			assert_int_equal(recv_some(b.port, 0, &r, 1, 100), 1);
			assert_int_equal(rte_mbuf_check(r, 1, &why), 0);
			assert_int_equal(r->nb_segs, (len + 255) / 256);
			for (s = r; s->next != NULL; s = s->next)
				assert_int_equal(s->data_len, 256);
			assert_true(pkt16b_check(r, len, VNIC, 7, 3, n));
			rte_pktmbuf_free(r);
		}
		assert_int_equal(port_stats(b.port).ipackets, n);
		pair_down(&a, &b);
	}
}

/* Without scatter, a packet longer than the RX mbuf's data room is
 * dropped and counted in rx_too_long; a packet that just fits arrives. */
static void
test_rx_without_scatter_drops_packets_longer_than_the_mbuf(void **state)
{
	static const struct {
		uint32_t len;
		bool fits;
	} c[] = {
		{ 248, true }, { 256, true }, { 264, false }, { 24, true },
		{ 10360, false }, { 1024, false }, { 128, true },
	};
	struct rte_eth_stats st;
	struct node a, b;
	uint64_t dropped = 0;
	unsigned int i;

	(void)state;
	node_create(&a, 0, "ring:sc", "");
	node_create(&b, 1, "ring:sc", "");
	node_start(&a, 1, 1, 256, 256, test_pool, 0);
	node_start(&b, 1, 1, 256, 256, test_small_pool, 0);
	assert_int_equal(rte_eth_dev_set_mtu(a.port, 10240), 0);
	for (i = 0; i < RTE_DIM(c); i++) {
		send_pkt(a.port, 0, test_pool, c[i].len, 0, VNIC, 1, 1, i);
		if (c[i].fits) {
			recv_check(b.port, 0, c[i].len, VNIC, 1, 1, i);
		} else {
			recv_none(b.port, 0, 5);
			dropped++;
		}
		assert_int_equal(xstat(b.port, "rx_too_long"), dropped);
		assert_int_equal(port_stats(b.port).ierrors, dropped);
	}
	st = port_stats(b.port);
	assert_int_equal(st.ipackets, RTE_DIM(c) - dropped);
	assert_int_equal(node_model_stats(&b).rcv_pkts, RTE_DIM(c));
	pair_down(&a, &b);
}

/* One tx_burst of 200 packets, more than the device moves in one step,
 * is sent whole without another call to tx_burst. */
static void
test_tx_burst_larger_than_a_device_step_is_sent_whole(void **state)
{
	struct rte_mbuf *p[200], *r[200];
	struct node a, b;
	unsigned int i;

	(void)state;
	node_create(&a, 0, "ring:bb", "");
	node_create(&b, 1, "ring:bb", "");
	node_start(&a, 1, 1, 256, 512, test_pool, 0);
	node_start(&b, 1, 1, 256, 256, test_pool, 0);
	for (i = 0; i < RTE_DIM(p); i++)
		p[i] = pkt16b_mbuf(test_pool, 64 + 8 * (i % 32), 0, VNIC, 1, 1,
				i);
	assert_int_equal(rte_eth_tx_burst(a.port, 0, p, RTE_DIM(p)),
			RTE_DIM(p));
	assert_int_equal(node_model_stats(&a).wire_tx, RTE_DIM(p));
	assert_int_equal(recv_some(b.port, 0, r, RTE_DIM(r), 100), RTE_DIM(r));
	for (i = 0; i < RTE_DIM(r); i++)
		assert_true(pkt16b_check(r[i], 64 + 8 * (i % 32), VNIC, 1, 1,
				i));
	rte_pktmbuf_free_bulk(r, RTE_DIM(r));
	pair_down(&a, &b);
}

/* ---- steering ---- */

/* Send one packet A -> B; it must arrive on B's queue @want and no other. */
static void
expect_on_queue(const struct node *a, const struct node *b, uint16_t nq,
		uint16_t want, uint8_t l4, uint16_t vesw, uint16_t entropy,
		uint32_t seq)
{
	uint16_t q;

	send_pkt(a->port, 0, test_pool, 96, 0, l4, vesw, entropy, seq);
	recv_check(b->port, want, 96, l4, vesw, entropy, seq);
	for (q = 0; q < nq; q++)
		if (q != want)
			recv_none(b->port, q, 2);
}

/* Every vesw id x entropy combination of the low 3 bits (higher bits
 * varied), management and other L4 types land where steering @s says. */
static void
check_steering(const struct node *a, const struct node *b, uint16_t nq,
		const struct rte_pmd_hfi1_steering *s)
{
	static const uint8_t others[] = { 0x09, 0x0A, 0x79, 0x00, 0xF8 };
	uint64_t per_q[RTE_ETHDEV_QUEUE_STAT_CNTRS] = { 0 };
	struct rte_eth_stats st0 = port_stats(b->port), st;
	uint16_t v, e, want;
	uint32_t seq = 0;
	unsigned int i;

	for (v = 0; v < 8; v++) {
		for (e = 0; e < 8; e++) {
			uint16_t vesw = ((v * 37u) << 3 | v) & 0xFFF;
			uint16_t ent = (uint16_t)((e * 91u) << 3 | e);

			want = s->nb_vnic_queues == 0 ? s->default_queue :
				s->vnic_queues[((v ^ e) & 7) %
				s->nb_vnic_queues];
			expect_on_queue(a, b, nq, want, VNIC, vesw, ent, seq++);
			per_q[want]++;
		}
	}
	want = s->mgmt_queue >= 0 ? (uint16_t)s->mgmt_queue : s->default_queue;
	expect_on_queue(a, b, nq, want, MGMT, 3, 5, seq++);
	per_q[want]++;
	for (i = 0; i < RTE_DIM(others); i++) {
		expect_on_queue(a, b, nq, s->default_queue, others[i], 3, 5,
				seq++);
		per_q[s->default_queue]++;
	}
	/* The per-queue counters saw the same. */
	st = port_stats(b->port);
	for (i = 0; i < nq; i++)
		assert_int_equal(st.q_ipackets[i] - st0.q_ipackets[i], per_q[i]);
	assert_int_equal(st.ipackets - st0.ipackets, seq);
}

static bool
steering_equal(const struct rte_pmd_hfi1_steering *x,
		const struct rte_pmd_hfi1_steering *y)
{
	return x->nb_vnic_queues == y->nb_vnic_queues &&
		memcmp(x->vnic_queues, y->vnic_queues,
			x->nb_vnic_queues * sizeof(x->vnic_queues[0])) == 0 &&
		x->mgmt_queue == y->mgmt_queue &&
		x->default_queue == y->default_queue;
}

/* rte_pmd_hfi1_steering_set before start: VNIC packets spread over the
 * given queues by (vesw ^ entropy) & 7 through 8 round-robin map entries,
 * management to its queue, the rest to the default queue. */
static void
test_rsm_steering_set_spreads_vnic_and_routes_mgmt_and_default(void **state)
{
	static const struct rte_pmd_hfi1_steering cases[] = {
		{ .vnic_queues = { 1, 2, 3 }, .nb_vnic_queues = 3,
		  .mgmt_queue = 0, .default_queue = 0 },
		{ .vnic_queues = { 3, 1 }, .nb_vnic_queues = 2,
		  .mgmt_queue = 2, .default_queue = 1 },
		{ .vnic_queues = { 2 }, .nb_vnic_queues = 1,
		  .mgmt_queue = -1, .default_queue = 3 },
		{ .nb_vnic_queues = 0, .mgmt_queue = 3, .default_queue = 2 },
		{ .vnic_queues = { 0, 1, 2, 3, 3, 2, 1, 0 },
		  .nb_vnic_queues = 8, .mgmt_queue = 1, .default_queue = 2 },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(cases); i++) {
		struct rte_pmd_hfi1_steering got;
		struct node a, b;

		node_create(&a, 0, "ring:st", "");
		node_create(&b, 1, "ring:st", "");
		node_start(&a, 1, 1, 256, 256, test_pool, 0);
		node_configure(&b, 4, 1, 256, 256, test_pool, 0);
		assert_int_equal(rte_pmd_hfi1_steering_set(b.port, &cases[i]),
				0);
		assert_int_equal(rte_pmd_hfi1_steering_get(b.port, &got), 0);
		assert_true(steering_equal(&got, &cases[i]));
		assert_int_equal(rte_eth_dev_start(b.port), 0);
		check_steering(&a, &b, 4, &cases[i]);
		/* Kept over a stop and start. */
		assert_int_equal(rte_eth_dev_stop(b.port), 0);
		assert_int_equal(rte_eth_dev_start(b.port), 0);
		expect_on_queue(&a, &b, 4, cases[i].default_queue, 0x09, 0, 0,
				1000);
		pair_down(&a, &b);
	}
}

/* Without a steering_set call, n > 1 queues spread VNIC packets over
 * queues 0..min(n,8)-1 (map entry i -> queue i % n) and everything else
 * goes to queue 0. */
static void
test_rsm_default_steering_spreads_vnic_over_all_queues(void **state)
{
	static const uint16_t nqs[] = { 4, 6, 8 };
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(nqs); i++) {
		struct rte_pmd_hfi1_steering s = { .mgmt_queue = -1 }, got;
		struct node a, b;
		uint16_t q;

		for (q = 0; q < nqs[i]; q++)
			s.vnic_queues[q] = q;
		s.nb_vnic_queues = (uint8_t)nqs[i];
		node_create(&a, 0, "ring:ds", "");
		node_create(&b, 1, "ring:ds", "");
		node_start(&a, 1, 1, 256, 256, test_pool, 0);
		node_start(&b, nqs[i], 1, 64, 64, test_pool, 0);
		assert_int_equal(rte_pmd_hfi1_steering_get(b.port, &got), 0);
		assert_true(steering_equal(&got, &s));
		check_steering(&a, &b, nqs[i], &s);
		pair_down(&a, &b);
	}
}

/* steering_set refuses queues the port lacks, a started port and ports
 * that are not net_hfi1; a refusal leaves the steering as it was. */
static void
test_steering_set_refuses_bad_queues_started_and_foreign_ports(void **state)
{
	const struct rte_pmd_hfi1_steering ok = {
		.vnic_queues = { 1, 2, 3 }, .nb_vnic_queues = 3,
		.mgmt_queue = 0, .default_queue = 0,
	};
	struct rte_pmd_hfi1_steering bad, got;
	struct node a, b;

	(void)state;
	node_create(&a, 0, "ring:sr", "");
	node_create(&b, 1, "ring:sr", "");
	node_start(&a, 1, 1, 256, 256, test_pool, 0);
	node_configure(&b, 4, 1, 256, 256, test_pool, 0);
	assert_int_equal(rte_pmd_hfi1_steering_set(b.port, &ok), 0);
	bad = ok;
	bad.vnic_queues[2] = 4;
	assert_int_equal(rte_pmd_hfi1_steering_set(b.port, &bad), -EINVAL);
	bad = ok;
	bad.mgmt_queue = 4;
	assert_int_equal(rte_pmd_hfi1_steering_set(b.port, &bad), -EINVAL);
	bad = ok;
	bad.mgmt_queue = -2;
	assert_int_equal(rte_pmd_hfi1_steering_set(b.port, &bad), -EINVAL);
	bad = ok;
	bad.default_queue = 4;
	assert_int_equal(rte_pmd_hfi1_steering_set(b.port, &bad), -EINVAL);
	bad = ok;
	bad.nb_vnic_queues = 9;
	assert_int_equal(rte_pmd_hfi1_steering_set(b.port, &bad), -EINVAL);
	assert_int_equal(rte_pmd_hfi1_steering_set(b.port, NULL), -EINVAL);
	assert_int_equal(rte_pmd_hfi1_steering_get(b.port, NULL), -EINVAL);
	assert_int_equal(rte_pmd_hfi1_steering_get(b.port, &got), 0);
	assert_true(steering_equal(&got, &ok));

	assert_int_equal(rte_eth_dev_start(b.port), 0);
	bad = ok;
	bad.default_queue = 3;
	assert_int_equal(rte_pmd_hfi1_steering_set(b.port, &bad), -EBUSY);
	assert_int_equal(rte_pmd_hfi1_steering_get(b.port, &got), 0);
	assert_true(steering_equal(&got, &ok));
	expect_on_queue(&a, &b, 4, 0, 0x09, 0, 0, 1);
	assert_int_equal(rte_eth_dev_stop(b.port), 0);
	assert_int_equal(rte_pmd_hfi1_steering_set(b.port, &bad), 0);
	assert_int_equal(rte_eth_dev_start(b.port), 0);
	expect_on_queue(&a, &b, 4, 3, 0x09, 0, 0, 2);

	/* Reconfigured with fewer queues, the port refuses to start with a
	 * steering that names a queue it lost. */
	assert_int_equal(rte_eth_dev_stop(b.port), 0);
	assert_int_equal(rte_pmd_hfi1_steering_set(b.port, &ok), 0);
	node_configure(&b, 2, 1, 256, 256, test_pool, 0);
	assert_int_not_equal(rte_eth_dev_start(b.port), 0);
	bad = ok;
	bad.nb_vnic_queues = 1;
	assert_int_equal(rte_pmd_hfi1_steering_set(b.port, &bad), 0);
	assert_int_equal(rte_eth_dev_start(b.port), 0);
	expect_on_queue(&a, &b, 2, 1, VNIC, 0, 0, 3);

	assert_int_equal(rte_pmd_hfi1_steering_set(node_wire_port(&b), &ok),
			-ENODEV);
	assert_int_equal(rte_pmd_hfi1_steering_get(node_wire_port(&b), &got),
			-ENODEV);
	assert_int_equal(rte_pmd_hfi1_steering_set(RTE_MAX_ETHPORTS, &ok),
			-ENODEV);
	pair_down(&a, &b);
}

/* ---- ring wrap-around ---- */

static uint32_t
wrap_len(uint32_t seq)
{
	return 24 + 8 * ((seq * 37) % 512);
}

/* Send @bursts bursts of 32 numbered packets A -> B, receiving each burst
 * before the next: each packet arrives once, in order, intact, and nothing
 * arrives after a burst. */
static void
stream_in_order(const struct node *a, const struct node *b,
		unsigned int bursts, uint64_t *bytes)
{
	uint32_t seq = 0, got = 0;
	unsigned int k;

	for (k = 0; k < bursts; k++) {
		struct rte_mbuf *p[32], *r[32];
		uint16_t i, n;

		for (i = 0; i < 32; i++, seq++) {
			p[i] = pkt16b_mbuf(test_pool, wrap_len(seq), 0, VNIC,
					1, 2, seq);
			*bytes += wrap_len(seq);
		}
		send_all(a->port, 0, p, 32);
		n = recv_some(b->port, 0, r, 32, 100);
		assert_int_equal(n, 32);
		for (i = 0; i < n; i++, got++)
			assert_true(pkt16b_check(r[i], wrap_len(got), VNIC, 1,
					2, got));
		rte_pktmbuf_free_bulk(r, n);
		recv_none(b->port, 0, 1);
	}
}

/* With the smallest rings (64 RHQ entries, 64 SDMA descriptors), 20 times
 * the ring size in bursts of 32, sizes up to 4 KiB: the SDMA ring, the RHQ,
 * RcvSeq and the eager buffers all wrap many times. */
static void
test_smallest_rings_wrap_20_times_in_order(void **state)
{
	struct rte_eth_stats st;
	struct node a, b;
	uint64_t bytes = 0;

	(void)state;
	node_create(&a, 0, "ring:wr", "");
	node_create(&b, 1, "ring:wr", "");
	node_start(&a, 1, 1, 64, 64, test_pool, 0);
	node_start(&b, 1, 1, 64, 64, test_pool, 0);
	assert_int_equal(rte_eth_dev_set_mtu(a.port, 9000), 0);
	stream_in_order(&a, &b, 20 * 64 / 32, &bytes);
	st = port_stats(b.port);
	assert_int_equal(st.ipackets, 20 * 64);
	assert_int_equal(st.ibytes, bytes);
	assert_int_equal(st.ierrors + st.imissed, 0);
	assert_int_equal(port_stats(a.port).opackets, 20 * 64);
	pair_down(&a, &b);
}

/* RcvSeq runs 1..13: in an RHQ of 416 entries (13 x 32) an entry one lap
 * old carries the very sequence number the driver expects there next.
 * Polling after a lap must not deliver such an entry a second time. */
static void
test_rhq_of_416_entries_never_delivers_an_entry_twice(void **state)
{
	struct node a, b;
	uint64_t bytes = 0;

	(void)state;
	node_create(&a, 0, "ring:13", "");
	node_create(&b, 1, "ring:13", "");
	node_start(&a, 1, 1, 256, 256, test_pool, 0);
	node_start(&b, 1, 1, 416, 64, test_pool, 0);
	assert_int_equal(rte_eth_dev_set_mtu(a.port, 9000), 0);
	stream_in_order(&a, &b, 3 * 416 / 32 + 1, &bytes);
	assert_int_equal(port_stats(b.port).ipackets, 3 * 416 + 32);
	pair_down(&a, &b);
}

/* ---- queue stop and start ---- */

/* A stopped RX queue's context is disabled: the model drops what is
 * steered to it (rcv_ctxt_disabled) while other queues go on; started
 * again, it receives new packets only, in order, across RcvSeq wraps. */
static void
test_rx_queue_stop_drops_in_the_device_and_start_resumes(void **state)
{
	struct node a, b;
	uint32_t seq = 0, round, k;

	(void)state;
	node_create(&a, 0, "ring:rq", "");
	node_create(&b, 1, "ring:rq", "");
	node_start(&a, 1, 1, 256, 256, test_pool, 0);
	node_start(&b, 2, 1, 64, 64, test_pool, 0);
	for (round = 0; round < 3; round++) {
		struct hfi1_model_stats st0 = node_model_stats(&b), st;

		/* Three packets wait unread in queue 0 when it stops. */
		for (k = 0; k < 3; k++)
			send_pkt(a.port, 0, test_pool, 64, 0, 0x09, 0, 0, seq++);
		recv_none(b.port, 1, 1);
		assert_int_equal(node_model_stats(&b).rcv_pkts,
				st0.rcv_pkts + 3);
		assert_int_equal(rte_eth_dev_rx_queue_stop(b.port, 0), 0);
		recv_none(b.port, 0, 3);
		for (k = 0; k < 2; k++)
			send_pkt(a.port, 0, test_pool, 64, 0, 0x09, 0, 0, seq++);
		recv_none(b.port, 1, 2);
		st = node_model_stats(&b);
		assert_int_equal(st.rcv_ctxt_disabled,
				st0.rcv_ctxt_disabled + 2);
		assert_int_equal(st.rcv_pkts, st0.rcv_pkts + 3);
		/* Queue 1 is not affected: (vesw 1 ^ entropy 0) % 2 = 1. */
		send_pkt(a.port, 0, test_pool, 64, 0, VNIC, 1, 0, seq);
		recv_check(b.port, 1, 64, VNIC, 1, 0, seq++);
		assert_int_equal(rte_eth_dev_rx_queue_start(b.port, 0), 0);
		for (k = 0; k < 40; k++, seq++) {
			send_pkt(a.port, 0, test_pool, 64 + 8 * k, 0, 0x09, 0,
					0, seq);
			recv_check(b.port, 0, 64 + 8 * k, 0x09, 0, 0, seq);
		}
	}
	assert_int_equal(port_stats(b.port).ipackets, 3 * 41);
	pair_down(&a, &b);
}

/* A stopped TX queue takes no packets and gives back those it held
 * (completion never reported); started again it sends from a clean ring,
 * wrapping it; the other TX queue is not affected. */
static void
test_tx_queue_stop_returns_mbufs_and_start_resumes(void **state)
{
	struct node a, b;
	uint32_t seq = 0, round, k;

	(void)state;
	node_create(&a, 0, "ring:tq", "");
	node_create(&b, 1, "ring:tq", "");
	node_start(&a, 1, 2, 256, 64, test_pool, 0);
	node_start(&b, 1, 1, 256, 256, test_pool, 0);
	for (round = 0; round < 3; round++) {
		struct rte_mbuf *m;

		/* Completions are reported: empty bursts reclaim them all. */
		assert_int_equal(rte_eth_tx_burst(a.port, 0, NULL, 0), 0);
		assert_int_equal(rte_eth_tx_burst(a.port, 1, NULL, 0), 0);
		assert_int_equal(rte_mempool_avail_count(test_pool),
				TEST_POOL_SIZE);
		hfi1_model_fault(node_model(&a), HFI1_FAULT_DELAY_HEAD, 1,
				1000000);
		for (k = 0; k < 5; k++, seq++) {
			send_pkt(a.port, 1, test_pool, 128, 0, 0x09, 0, 0, seq);
			recv_check(b.port, 0, 128, 0x09, 0, 0, seq);
		}
		assert_int_equal(rte_mempool_avail_count(test_pool),
				TEST_POOL_SIZE - 5);
		assert_int_equal(rte_eth_dev_tx_queue_stop(a.port, 1), 0);
		assert_int_equal(rte_mempool_avail_count(test_pool),
				TEST_POOL_SIZE);
		m = pkt16b_mbuf(test_pool, 128, 0, 0x09, 0, 0, seq);
		assert_int_equal(rte_eth_tx_burst(a.port, 1, &m, 1), 0);
		rte_pktmbuf_free(m);
		send_pkt(a.port, 0, test_pool, 128, 0, 0x09, 0, 0, seq);
		recv_check(b.port, 0, 128, 0x09, 0, 0, seq++);
		assert_int_equal(rte_eth_dev_tx_queue_start(a.port, 1), 0);
		for (k = 0; k < 70; k++, seq++) {
			send_pkt(a.port, 1, test_pool, 128, 0, 0x09, 0, 0, seq);
			recv_check(b.port, 0, 128, 0x09, 0, 0, seq);
		}
	}
	assert_int_equal(rte_eth_tx_burst(a.port, 1, NULL, 0), 0);
	assert_int_equal(rte_eth_tx_burst(a.port, 0, NULL, 0), 0);
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);
	pair_down(&a, &b);
}

/* ---- eager layout ---- */

static uint8_t
egr_layout(uint16_t port)
{
	struct rte_pmd_hfi1_port_info info;

	assert_int_equal(rte_pmd_hfi1_port_info_get(port, &info), 0);
	return info.egr_layout;
}

/* rx_layout=auto learns what the model writes (layout=split or full) from
 * the first packet and every size arrives intact. */
static void
test_rx_layout_auto_detects_split_and_full(void **state)
{
	static const uint32_t sizes[] = { 24, 32, 40, 64, 1000, 4096, 10360 };
	static const char *const layouts[] = { "layout=split", "layout=full" };
	static const uint8_t want[] = { 2, 1 };
	unsigned int l, i;

	(void)state;
	for (l = 0; l < RTE_DIM(layouts); l++) {
		struct node a, b;

		node_create(&a, 0, "ring:la", "");
		node_create(&b, 1, "ring:la", layouts[l]);
		node_start(&a, 1, 1, 256, 256, test_pool, 0);
		node_start(&b, 1, 1, 256, 256, test_pool, 0);
		assert_int_equal(rte_eth_dev_set_mtu(a.port, 10240), 0);
		assert_int_equal(egr_layout(b.port), 0);
		for (i = 0; i < RTE_DIM(sizes); i++) {
			send_pkt(a.port, 0, test_pool, sizes[i], 0, VNIC, 4, 4,
					i);
			recv_check(b.port, 0, sizes[i], VNIC, 4, 4, i);
			assert_int_equal(egr_layout(b.port), want[l]);
		}
		pair_down(&a, &b);
	}
}

/* A sender cannot fix the detected layout with a crafted first packet:
 * under the split layout a packet whose bytes 16..31 repeat its header
 * looks like the full layout, but the next ordinary packet shows the
 * difference and is delivered intact, and the layout stays split. */
static void
test_rx_layout_auto_recovers_from_a_crafted_first_packet(void **state)
{
	static uint8_t crafted[256];
	struct rte_mbuf *m, *r = NULL;
	struct node a, b;
	unsigned int i;

	(void)state;
	node_create(&a, 0, "ring:lc", "");
	node_create(&b, 1, "ring:lc", "layout=split");
	node_start(&a, 1, 1, 256, 256, test_pool, 0);
	node_start(&b, 1, 1, 256, 256, test_pool, 0);
	pkt16b_fill(crafted, sizeof(crafted), VNIC, 3, 3, 1);
	memcpy(crafted + 16, crafted, 16);
	m = rte_pktmbuf_alloc(test_pool);
	assert_non_null(m);
	memcpy(rte_pktmbuf_append(m, sizeof(crafted)), crafted, sizeof(crafted));
	send_all(a.port, 0, &m, 1);
	assert_int_equal(recv_some(b.port, 0, &r, 1, 100), 1);
	rte_pktmbuf_free(r);
	assert_int_equal(egr_layout(b.port), 1);	/* fooled, for now */
	for (i = 0; i < 3; i++) {
		send_pkt(a.port, 0, test_pool, 512, 0, VNIC, 4, 4, i);
		recv_check(b.port, 0, 512, VNIC, 4, 4, i);
		assert_int_equal(egr_layout(b.port), 2);
	}
	/* Another crafted packet no longer moves it. */
	m = rte_pktmbuf_alloc(test_pool);
	assert_non_null(m);
	memcpy(rte_pktmbuf_append(m, sizeof(crafted)), crafted, sizeof(crafted));
	send_all(a.port, 0, &m, 1);
	assert_int_equal(recv_some(b.port, 0, &r, 1, 100), 1);
	assert_true(pkt16b_check(r, 0, 0, 0, 0, 0) == false);
	assert_memory_equal(rte_pktmbuf_mtod(r, uint8_t *), crafted,
			sizeof(crafted));
	rte_pktmbuf_free(r);
	assert_int_equal(egr_layout(b.port), 2);
	pair_down(&a, &b);
}

/* A forced rx_layout is used as given, even against a model writing the
 * other layout: full over split reads the packet from byte 16 on; split
 * over full puts the RHQ copy in front of the packet's start. */
static void
test_rx_layout_forced_is_honoured_against_the_other_layout(void **state)
{
	static uint8_t want[1000], got[1000];
	struct rte_mbuf *r = NULL;
	struct node a, b;
	const uint8_t *p;

	(void)state;
	pkt16b_fill(want, sizeof(want), VNIC, 6, 6, 77);

	node_create(&a, 0, "ring:lf", "");
	node_create(&b, 1, "ring:lf", "layout=split,rx_layout=full");
	node_start(&a, 1, 1, 256, 256, test_pool, 0);
	node_start(&b, 1, 1, 256, 256, test_pool, 0);
	assert_int_equal(egr_layout(b.port), 1);
	send_pkt(a.port, 0, test_pool, sizeof(want), 0, VNIC, 6, 6, 77);
	assert_int_equal(recv_some(b.port, 0, &r, 1, 100), 1);
	assert_int_equal(r->pkt_len, sizeof(want));
	p = rte_pktmbuf_read(r, 0, sizeof(got), got);
	assert_memory_equal(p, want + 16, sizeof(want) - 16);
	rte_pktmbuf_free(r);
	assert_int_equal(egr_layout(b.port), 1);
	pair_down(&a, &b);

	node_create(&a, 0, "ring:lf", "");
	node_create(&b, 1, "ring:lf", "layout=full,rx_layout=split");
	node_start(&a, 1, 1, 256, 256, test_pool, 0);
	node_start(&b, 1, 1, 256, 256, test_pool, 0);
	assert_int_equal(egr_layout(b.port), 2);
	send_pkt(a.port, 0, test_pool, sizeof(want), 0, VNIC, 6, 6, 77);
	assert_int_equal(recv_some(b.port, 0, &r, 1, 100), 1);
	assert_int_equal(r->pkt_len, sizeof(want));
	p = rte_pktmbuf_read(r, 0, sizeof(got), got);
	assert_memory_equal(p, want, 16);
	assert_memory_equal(p + 16, want, sizeof(want) - 16);
	rte_pktmbuf_free(r);
	pair_down(&a, &b);
}

/* ---- service mode ---- */

/* service=1: the PMD never steps the model. Nothing moves until the test
 * steps it, with hfi1_model_step or through the registered service; the
 * service goes away with the port. */
static void
test_service_mode_moves_packets_only_when_the_model_runs(void **state)
{
	struct hfi1_model_stats st;
	uint32_t ida, idb;
	struct node a, b;

	(void)state;
	node_create(&a, 0, "ring:sv", "service=1");
	node_create(&b, 1, "ring:sv", "service=1");
	node_start(&a, 1, 1, 256, 256, test_pool, 0);
	node_start(&b, 1, 1, 256, 256, test_pool, 0);

	send_pkt(a.port, 0, test_pool, 200, 0, VNIC, 1, 1, 1);
	recv_none(b.port, 0, 50);
	assert_int_equal(node_model_stats(&a).sdma_pkts, 0);
	hfi1_model_step(node_model(&a));
	st = node_model_stats(&a);
	assert_int_equal(st.sdma_pkts, 1);
	assert_int_equal(st.wire_tx, 1);
	recv_none(b.port, 0, 50);
	assert_int_equal(node_model_stats(&b).wire_rx, 0);
	hfi1_model_step(node_model(&b));
	assert_int_equal(node_model_stats(&b).rcv_pkts, 1);
	recv_check(b.port, 0, 200, VNIC, 1, 1, 1);

	assert_int_equal(rte_service_get_by_name("net_hfi1_t0_model", &ida), 0);
	assert_int_equal(rte_service_get_by_name("net_hfi1_t1_model", &idb), 0);
	assert_int_equal(rte_service_runstate_set(ida, 1), 0);
	assert_int_equal(rte_service_runstate_set(idb, 1), 0);
	send_pkt(a.port, 0, test_pool, 208, 0, VNIC, 1, 1, 2);
	recv_none(b.port, 0, 10);
	assert_int_equal(rte_service_run_iter_on_app_lcore(ida, 1), 0);
	recv_none(b.port, 0, 10);
	assert_int_equal(rte_service_run_iter_on_app_lcore(idb, 1), 0);
	recv_check(b.port, 0, 208, VNIC, 1, 1, 2);
	/* Both sends completed: an empty burst reclaims them. */
	rte_eth_tx_burst(a.port, 0, NULL, 0);
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);

	pair_down(&a, &b);
	assert_int_not_equal(rte_service_get_by_name("net_hfi1_t0_model", &ida),
			0);
	assert_int_not_equal(rte_service_get_by_name("net_hfi1_t1_model", &idb),
			0);
}

/* ---- link ---- */

static int lsc_events;

static int
lsc_cb(uint16_t port_id __rte_unused, enum rte_eth_event_type type,
		void *arg __rte_unused, void *ret __rte_unused)
{
	if (type == RTE_ETH_EVENT_INTR_LSC)
		__atomic_fetch_add(&lsc_events, 1, __ATOMIC_RELEASE);
	return 0;
}

/* net_hfi1's link poll period (HFI1_LSC_POLL_US), an EAL alarm. */
#define LSC_POLL_US 100000

static int
lsc_count(void)
{
	return __atomic_load_n(&lsc_events, __ATOMIC_ACQUIRE);
}

static uint16_t
link_status(uint16_t port)
{
	struct rte_eth_link link;

	assert_int_equal(rte_eth_link_get_nowait(port, &link), 0);
	return link.link_status;
}

/* The link follows the wire. With intr_conf.lsc the PMD's 100 ms poll
 * reports each change once through the LSC callback; without it every
 * query reads the device. A stopped port is down. */
static void
test_link_follows_the_wire_and_lsc_reports_each_change(void **state)
{
	struct rte_eth_conf conf = { .intr_conf = { .lsc = 1 } };
	struct rte_eth_link link;
	struct node a, b;

	(void)state;
	node_create(&a, 0, "ring:ls", "");
	node_create(&b, 1, "ring:ls", "");
	node_start(&a, 1, 1, 256, 256, test_pool, 0);
	node_configure_conf(&b, &conf, 1, 1, 256, 256, test_pool);
	assert_int_equal(link_status(b.port), RTE_ETH_LINK_DOWN);
	assert_int_equal(rte_eth_dev_callback_register(b.port,
			RTE_ETH_EVENT_INTR_LSC, lsc_cb, NULL), 0);
	__atomic_store_n(&lsc_events, 0, __ATOMIC_RELEASE);
	assert_int_equal(rte_eth_dev_start(b.port), 0);
	assert_int_equal(rte_eth_link_get_nowait(b.port, &link), 0);
	assert_int_equal(link.link_status, RTE_ETH_LINK_UP);
	assert_int_equal(link.link_speed, RTE_ETH_SPEED_NUM_100G);
	assert_int_equal(link.link_duplex, RTE_ETH_LINK_FULL_DUPLEX);

	/* Each change: one event, and no second one in the polls after it. */
	assert_int_equal(rte_eth_dev_set_link_down(node_wire_port(&b)), 0);
	TEST_WAIT(lsc_count() >= 1, 1000);
	assert_int_equal(link_status(b.port), RTE_ETH_LINK_DOWN);
	assert_int_equal(test_wait_alarm_periods(LSC_POLL_US, 2, TEST_WAIT_MS), 0);
	assert_int_equal(lsc_count(), 1);
	assert_int_equal(rte_eth_dev_set_link_up(node_wire_port(&b)), 0);
	TEST_WAIT(lsc_count() >= 2, 1000);
	assert_int_equal(link_status(b.port), RTE_ETH_LINK_UP);
	assert_int_equal(test_wait_alarm_periods(LSC_POLL_US, 2, TEST_WAIT_MS), 0);
	assert_int_equal(lsc_count(), 2);
	send_pkt(a.port, 0, test_pool, 64, 0, 0x09, 0, 0, 1);
	recv_check(b.port, 0, 64, 0x09, 0, 0, 1);

	/* A, without lsc, reads the device at each query. */
	assert_int_equal(link_status(a.port), RTE_ETH_LINK_UP);
	assert_int_equal(rte_eth_dev_set_link_down(node_wire_port(&a)), 0);
	assert_int_equal(link_status(a.port), RTE_ETH_LINK_DOWN);
	assert_int_equal(rte_eth_dev_set_link_up(node_wire_port(&a)), 0);
	assert_int_equal(link_status(a.port), RTE_ETH_LINK_UP);
	assert_int_equal(rte_eth_dev_stop(a.port), 0);
	assert_int_equal(link_status(a.port), RTE_ETH_LINK_DOWN);

	assert_int_equal(rte_eth_dev_stop(b.port), 0);
	assert_int_equal(link_status(b.port), RTE_ETH_LINK_DOWN);
	assert_int_equal(rte_eth_dev_callback_unregister(b.port,
			RTE_ETH_EVENT_INTR_LSC, lsc_cb, NULL), 0);
	/* Uninit of a started port with its LSC poll armed: no poll may run
	 * on the freed port afterwards. */
	assert_int_equal(rte_eth_dev_start(b.port), 0);
	assert_int_equal(rte_vdev_uninit(b.name), 0);
	/* past the time the next poll was due */
	assert_int_equal(test_wait_alarm_periods(LSC_POLL_US, 1, TEST_WAIT_MS), 0);
	node_destroy(&a);
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);
}

/* ---- devargs and configuration ---- */

/* Each bad devargs string makes rte_vdev_init fail and leaves no port,
 * memzone or mempool; the name is free for a good node afterwards. */
static void
test_devargs_refused_leave_nothing_behind(void **state)
{
	static const char *const bad[] = {
		"lid=1,wire=ring:da",
		"model=0,wire=ring:da",
		"model=2",
		"model",
		"model=1,lid=0",
		"model=1,lid=0x10000",
		"model=1,lid=0xc000",
		"model=1,lid=-1",
		"model=1,lid",
		"model=1,mtu=3000",
		"model=1,mtu=1024",
		"model=1,mtu=abc",
		"model=1,contexts=0",
		"model=1,contexts=161",
		"model=1,engines=0",
		"model=1,engines=17",
		"model=1,wire=no_such_port",
		"model=1,wire=ring:",
		"model=1,wire=ring:abcdefghijklmnopqrstu",
		"model=1,layout=bogus",
		"model=1,layout=auto",
		"model=1,rx_layout=bogus",
		"model=1,pkeys=0x10000",
		"model=1,pkeys=0",
		"model=1,pkeys=:",
		"model=1,pkeys=1:2:3:4:5:6:7:8:9:10:11:12:13:14:15:16:17",
		"model=1,service=2",
		"model=1,bogus=1",
		"model=1,lid=2,wire=ring:da,unknown_key=3",
	};
	unsigned int mz = memzone_count(), mp = mempool_count(), i;
	uint16_t ports = rte_eth_dev_count_total(), port;
	struct node n;

	(void)state;
	for (i = 0; i < RTE_DIM(bad); i++) {
		if (rte_vdev_init("net_hfi1_bad", bad[i]) == 0) {
			print_error("devargs accepted: %s\n", bad[i]);
			rte_vdev_uninit("net_hfi1_bad");
			fail();
		}
		assert_int_equal(rte_eth_dev_count_total(), ports);
		assert_int_equal(memzone_count(), mz);
		assert_int_equal(mempool_count(), mp);
	}
	assert_int_not_equal(rte_eth_dev_get_port_by_name("net_hfi1_bad",
			&port), 0);
	/* The limits themselves are accepted; a pair name of 20 characters
	 * too. */
	node_create_args(&n, "net_hfi1_bad",
			"model=1,lid=0xbfff,pkeys=0x7fff,mtu=2048,contexts=160,"
			"engines=16,wire=ring:abcdefghijklmnopqrst,layout=split,"
			"rx_layout=auto,service=0");
	assert_int_equal(rte_vdev_uninit("net_hfi1_bad"), 0);
	assert_int_equal(rte_eth_dev_count_total(), ports);
	assert_int_equal(memzone_count(), mz);
	assert_int_equal(mempool_count(), mp);
}

/* A ring wire joins two nodes, no more; an owned wire port is not taken
 * over. The refused node leaves nothing and the pair keeps working. */
static void
test_wire_refused_when_full_or_owned(void **state)
{
	char args[128], wire[RTE_ETH_NAME_MAX_LEN];
	unsigned int mz, mp;
	struct node a, b;
	uint16_t ports;

	(void)state;
	pair_up(&a, &b, "ring:wf");
	mz = memzone_count();
	mp = mempool_count();
	ports = rte_eth_dev_count_total();
	assert_int_not_equal(rte_vdev_init("net_hfi1_t2",
			"model=1,lid=3,wire=ring:wf"), 0);
	assert_int_equal(rte_eth_dev_get_name_by_port(node_wire_port(&a),
			wire), 0);
	snprintf(args, sizeof(args), "model=1,lid=3,wire=%s", wire);
	assert_int_not_equal(rte_vdev_init("net_hfi1_t2", args), 0);
	assert_int_equal(memzone_count(), mz);
	assert_int_equal(mempool_count(), mp);
	assert_int_equal(rte_eth_dev_count_total(), ports);
	send_pkt(a.port, 0, test_pool, 64, 0, 0x09, 0, 0, 1);
	recv_check(b.port, 0, 64, 0x09, 0, 0, 1);
	send_pkt(b.port, 0, test_pool, 64, 0, 0x09, 0, 0, 2);
	recv_check(a.port, 0, 64, 0x09, 0, 0, 2);
	pair_down(&a, &b);
}

/* A node whose ring wire port cannot be made (the name is taken, or too
 * long for net_ring) fails, and the ring pair it reserved goes too. */
static void
test_wire_port_that_cannot_be_made_leaves_no_ring_pair(void **state)
{
	unsigned int mz, mp;
	struct rte_ring *r;
	uint16_t ports;

	(void)state;
	r = rte_ring_create("hfi1_clash", 64, SOCKET_ID_ANY, 0);
	assert_non_null(r);
	assert_true(rte_eth_from_rings("net_hfi1_t7_wire", &r, 1, &r, 1,
			SOCKET_ID_ANY) >= 0);
	mz = memzone_count();
	mp = mempool_count();
	ports = rte_eth_dev_count_total();
	assert_int_not_equal(rte_vdev_init("net_hfi1_t7",
			"model=1,wire=ring:cl"), 0);
	assert_int_equal(memzone_count(), mz);
	assert_int_not_equal(rte_vdev_init("net_hfi1_a_rather_long",
			"model=1,wire=ring:cl"), 0);
	assert_int_equal(memzone_count(), mz);
	assert_int_equal(mempool_count(), mp);
	assert_int_equal(rte_eth_dev_count_total(), ports);
	assert_int_equal(rte_vdev_uninit("net_ring_net_hfi1_t7_wire"), 0);
	rte_ring_free(r);
}

/* A named wire port (here a net_ring pair made by the test) is used and
 * handed back unowned when the node goes. */
static void
test_named_wire_port_is_used_and_released(void **state)
{
	struct rte_eth_dev_owner owner;
	struct rte_ring *r[2];
	struct node a, b;
	int px, py;

	(void)state;
	r[0] = rte_ring_create("hfi1_nw0", 1024, SOCKET_ID_ANY, 0);
	r[1] = rte_ring_create("hfi1_nw1", 1024, SOCKET_ID_ANY, 0);
	assert_non_null(r[0]);
	assert_non_null(r[1]);
	px = rte_eth_from_rings("nwx", &r[0], 1, &r[1], 1, SOCKET_ID_ANY);
	py = rte_eth_from_rings("nwy", &r[1], 1, &r[0], 1, SOCKET_ID_ANY);
	assert_true(px >= 0 && py >= 0);
	node_create(&a, 0, "net_ring_nwx", "");
	node_create(&b, 1, "net_ring_nwy", "");
	assert_int_equal(node_wire_port(&a), px);
	assert_int_equal(rte_eth_dev_owner_get(px, &owner), 0);
	assert_int_not_equal(owner.id, 0);
	node_start(&a, 1, 1, 256, 256, test_pool, 0);
	node_start(&b, 1, 1, 256, 256, test_pool, 0);
	send_pkt(a.port, 0, test_pool, 512, 0, VNIC, 2, 2, 1);
	recv_check(b.port, 0, 512, VNIC, 2, 2, 1);
	send_pkt(b.port, 0, test_pool, 520, 0, VNIC, 2, 2, 2);
	recv_check(a.port, 0, 520, VNIC, 2, 2, 2);
	pair_down(&a, &b);
	assert_true(rte_eth_dev_is_valid_port(px));
	assert_int_equal(rte_eth_dev_owner_get(px, &owner), 0);
	assert_int_equal(owner.id, 0);
	assert_int_equal(rte_eth_dev_owner_get(py, &owner), 0);
	assert_int_equal(owner.id, 0);
	assert_int_equal(rte_vdev_uninit("net_ring_nwx"), 0);
	assert_int_equal(rte_vdev_uninit("net_ring_nwy"), 0);
	rte_ring_free(r[0]);
	rte_ring_free(r[1]);
}

/* net_hfi1's model link tick (LINK_TICK_US), an EAL alarm. */
#define LINK_TICK_US 100000

/*
 * A wire port of its own whose link is lost (its port stopped, as a memif
 * peer's disconnect does) is seen lost by the model's next tick and
 * restarted (re-dialled) about 0.5 s later; the HFI link is Active again
 * only after two more ticks saw the wire up: down at once, still down right
 * after the re-dial, up after training, with traffic both ways and one loss
 * and one re-dial counted.
 */
static void
test_named_wire_lost_is_redialled_and_active_after_two_ticks(void **state)
{
	struct hfi1_model_stats st;
	struct rte_ring *r[2];
	struct node a, b;
	int px, py;

	(void)state;
	r[0] = rte_ring_create("hfi1_rd0", 1024, SOCKET_ID_ANY, 0);
	r[1] = rte_ring_create("hfi1_rd1", 1024, SOCKET_ID_ANY, 0);
	assert_non_null(r[0]);
	assert_non_null(r[1]);
	px = rte_eth_from_rings("rdx", &r[0], 1, &r[1], 1, SOCKET_ID_ANY);
	py = rte_eth_from_rings("rdy", &r[1], 1, &r[0], 1, SOCKET_ID_ANY);
	assert_true(px >= 0 && py >= 0);
	node_create(&a, 0, "net_ring_rdx", "");
	node_create(&b, 1, "net_ring_rdy", "");
	node_start(&a, 1, 1, 256, 256, test_pool, 0);
	node_start(&b, 1, 1, 256, 256, test_pool, 0);
	/* the tick has seen the wire up (it re-dials only a link it had) */
	assert_int_equal(test_wait_alarm_periods(LINK_TICK_US, 1, TEST_WAIT_MS), 0);
	assert_int_equal(link_status(a.port), RTE_ETH_LINK_UP);

	assert_int_equal(rte_eth_dev_stop((uint16_t)px), 0);
	assert_int_equal(link_status(a.port), RTE_ETH_LINK_DOWN);
	/* the next tick sees the loss; the re-dial comes later (0.5 s) */
	assert_int_equal(test_wait_alarm_periods(LINK_TICK_US, 1, TEST_WAIT_MS), 0);
	st = node_model_stats(&a);
	assert_int_equal(st.wire_lost, 1);
	assert_int_equal(st.wire_redials, 0);
	assert_int_equal(link_status((uint16_t)px), RTE_ETH_LINK_DOWN);
	/* restarted (at once up, a net_ring), and not Active yet: training
	 * takes two more ticks, 100 ms each */
	TEST_WAIT(node_model_stats(&a).wire_redials == 1, TEST_WAIT_MS);
	assert_int_equal(link_status(a.port), RTE_ETH_LINK_DOWN);
	assert_int_equal(link_status((uint16_t)px), RTE_ETH_LINK_UP);
	/* two ticks up in a row: Active, and no further re-dial */
	assert_int_equal(test_wait_alarm_periods(LINK_TICK_US, 2, TEST_WAIT_MS), 0);
	assert_int_equal(link_status(a.port), RTE_ETH_LINK_UP);
	st = node_model_stats(&a);
	assert_int_equal(st.wire_lost, 1);
	assert_int_equal(st.wire_redials, 1);
	assert_int_equal(node_model_stats(&b).wire_lost, 0);
	send_pkt(a.port, 0, test_pool, 512, 0, VNIC, 2, 2, 1);
	recv_check(b.port, 0, 512, VNIC, 2, 2, 1);
	send_pkt(b.port, 0, test_pool, 520, 0, VNIC, 2, 2, 2);
	recv_check(a.port, 0, 520, VNIC, 2, 2, 2);
	pair_down(&a, &b);
	assert_int_equal(rte_vdev_uninit("net_ring_rdx"), 0);
	assert_int_equal(rte_vdev_uninit("net_ring_rdy"), 0);
	rte_ring_free(r[0]);
	rte_ring_free(r[1]);
}

/* What ethdev asks of the port that it cannot do is refused: RSS, deferred
 * start, more queues than contexts or engines, RHQ sizes off hfi1's
 * limits, an MTU above the port's. */
static void
test_configure_refuses_what_the_port_cannot_do(void **state)
{
	struct rte_eth_conf conf = { .rxmode = { .mq_mode = RTE_ETH_MQ_RX_RSS } };
	struct rte_eth_rxconf rxc = { .rx_deferred_start = 1 };
	struct rte_eth_txconf txc = { .tx_deferred_start = 1 };
	struct node a, b;

	(void)state;
	node_create(&a, 0, "ring:cf", "");
	node_create(&b, 1, "ring:cf", "mtu=4096");
	assert_int_not_equal(rte_eth_dev_configure(a.port, 1, 1, &conf), 0);
	conf.rxmode.mq_mode = RTE_ETH_MQ_RX_NONE;
	assert_int_not_equal(rte_eth_dev_configure(a.port, 9, 1, &conf), 0);
	assert_int_not_equal(rte_eth_dev_configure(a.port, 1, 5, &conf), 0);
	assert_int_equal(rte_eth_dev_configure(a.port, 1, 1, &conf), 0);
	assert_int_not_equal(rte_eth_rx_queue_setup(a.port, 0, 256,
			SOCKET_ID_ANY, &rxc, test_pool), 0);
	assert_int_not_equal(rte_eth_tx_queue_setup(a.port, 0, 256,
			SOCKET_ID_ANY, &txc), 0);
	assert_int_not_equal(rte_eth_rx_queue_setup(a.port, 0, 32,
			SOCKET_ID_ANY, NULL, test_pool), 0);
	assert_int_not_equal(rte_eth_rx_queue_setup(a.port, 0, 100,
			SOCKET_ID_ANY, NULL, test_pool), 0);
	assert_int_not_equal(rte_eth_rx_queue_setup(a.port, 0, 16384,
			SOCKET_ID_ANY, NULL, test_pool), 0);
	assert_int_equal(rte_eth_rx_queue_setup(a.port, 0, 16352,
			SOCKET_ID_ANY, NULL, test_pool), 0);
	assert_int_equal(rte_eth_tx_queue_setup(a.port, 0, 4096,
			SOCKET_ID_ANY, NULL), 0);
	assert_int_equal(rte_eth_dev_start(a.port), 0);
	assert_int_not_equal(rte_eth_dev_set_mtu(a.port, 10241), 0);
	assert_int_equal(rte_eth_dev_set_mtu(a.port, 10240), 0);
	node_start(&b, 1, 1, 256, 256, test_pool, 0);
	assert_int_not_equal(rte_eth_dev_set_mtu(b.port, 4097), 0);
	assert_int_equal(rte_eth_dev_set_mtu(b.port, 4096), 0);
	send_pkt(a.port, 0, test_pool, 4096 + 120, 0, VNIC, 1, 1, 1);
	recv_check(b.port, 0, 4096 + 120, VNIC, 1, 1, 1);
	pair_down(&a, &b);
}

/* ---- specific API ---- */

/* port_info_get reports the devargs: LID, MTU, P_Keys, shape; SC n -> VL n
 * for SC 0..7; the link; the MAC comes from the LID. */
static void
test_port_info_reports_identity_from_devargs(void **state)
{
	struct rte_pmd_hfi1_port_info info;
	struct rte_eth_dev_info dev_info;
	struct rte_ether_addr mac;
	struct node a, b;
	unsigned int sc;

	(void)state;
	node_create_args(&a, "net_hfi1_t0",
			"model=1,lid=0x1234,mtu=4096,pkeys=0xffff:0x8001,"
			"contexts=5,engines=3,wire=ring:pi");
	node_create(&b, 1, "ring:pi", "");
	assert_int_equal(rte_pmd_hfi1_port_info_get(a.port, &info), 0);
	assert_int_equal(info.lid, 0x1234);
	assert_int_equal(info.mtu, 4096);
	assert_int_equal(info.nb_pkeys, 2);
	assert_int_equal(info.pkeys[0], 0xFFFF);
	assert_int_equal(info.pkeys[1], 0x8001);
	for (sc = 0; sc < 8; sc++)
		assert_int_equal(info.sc_to_vl[sc], sc);
	assert_int_equal(info.sc_to_vl[15], 15);
	assert_int_equal(info.nb_rx_contexts, 5);
	assert_int_equal(info.nb_sdma_engines, 3);
	assert_int_equal(info.link_active, 1);
	assert_int_equal(info.egr_layout, 0);
	assert_int_equal(rte_eth_dev_info_get(a.port, &dev_info), 0);
	assert_int_equal(dev_info.max_mtu, 4096);
	assert_int_equal(dev_info.max_rx_pktlen, 4096 + 124);
	assert_int_equal(dev_info.max_rx_queues, 5);
	assert_int_equal(dev_info.max_tx_queues, 3);
	assert_int_equal(rte_eth_macaddr_get(a.port, &mac), 0);
	assert_int_equal(mac.addr_bytes[0], 0x02);
	assert_int_equal(mac.addr_bytes[4], 0x12);
	assert_int_equal(mac.addr_bytes[5], 0x34);

	assert_int_equal(rte_pmd_hfi1_port_info_get(b.port, &info), 0);
	assert_int_equal(info.lid, 2);
	assert_int_equal(info.mtu, 10240);
	assert_int_equal(info.nb_pkeys, 1);
	assert_int_equal(info.pkeys[0], 0xFFFF);
	assert_int_equal(rte_pmd_hfi1_port_info_get(b.port, NULL), -EINVAL);
	assert_int_equal(rte_pmd_hfi1_port_info_get(node_wire_port(&b), &info),
			-ENODEV);
	assert_int_equal(rte_pmd_hfi1_port_info_get(RTE_MAX_ETHPORTS, &info),
			-ENODEV);
	/* The wire goes down: the port says so. */
	assert_int_equal(rte_eth_dev_set_link_down(node_wire_port(&b)), 0);
	assert_int_equal(rte_pmd_hfi1_port_info_get(b.port, &info), 0);
	assert_int_equal(info.link_active, 0);
	assert_int_equal(rte_eth_dev_set_link_up(node_wire_port(&b)), 0);
	node_destroy(&a);
	node_destroy(&b);
}

/* After a full bring-up with every feature the PMD has (steering, several
 * queues, traffic, stats, queue stop/start, link, port info, stop), the
 * model saw no access to a CSR it does not model. */
static void
test_pmd_touches_only_modelled_csrs(void **state)
{
	const struct rte_pmd_hfi1_steering s = {
		.vnic_queues = { 1, 2 }, .nb_vnic_queues = 2,
		.mgmt_queue = 3, .default_queue = 0,
	};
	struct rte_eth_conf conf = { .intr_conf = { .lsc = 1 } };
	struct rte_eth_xstat xs[128];
	struct rte_pmd_hfi1_port_info info;
	struct rte_eth_link link;
	struct node a, b;
	uint32_t seq = 0, q;

	(void)state;
	node_create(&a, 0, "ring:cs", "");
	node_create(&b, 1, "ring:cs", "layout=split");
	node_configure_conf(&a, &conf, 2, 2, 64, 64, test_pool);
	node_configure(&b, 4, 2, 64, 64, test_pool, 0);
	assert_int_equal(rte_pmd_hfi1_steering_set(b.port, &s), 0);
	assert_int_equal(rte_eth_dev_start(a.port), 0);
	assert_int_equal(rte_eth_dev_start(b.port), 0);
	for (q = 0; q < 4; q++, seq++)
		expect_on_queue(&a, &b, 4, (uint16_t[]){ 1, 2, 3, 0 }[q],
				(uint8_t[]){ VNIC, VNIC, MGMT, 0x09 }[q],
				(uint16_t)q, 0, seq);
	send_pkt(b.port, 1, test_pool, 64, 0, 0x09, 0, 0, seq);
	recv_check(a.port, 0, 64, 0x09, 0, 0, seq++);
	assert_int_equal(rte_eth_dev_rx_queue_stop(b.port, 2), 0);
	assert_int_equal(rte_eth_dev_rx_queue_start(b.port, 2), 0);
	assert_int_equal(rte_eth_dev_tx_queue_stop(a.port, 1), 0);
	assert_int_equal(rte_eth_dev_tx_queue_start(a.port, 1), 0);
	port_stats(a.port);
	port_stats(b.port);
	assert_true(rte_eth_xstats_get(b.port, xs, RTE_DIM(xs)) > 0);
	assert_int_equal(rte_eth_stats_reset(b.port), 0);
	assert_int_equal(rte_eth_xstats_reset(a.port), 0);
	assert_int_equal(rte_eth_link_get_nowait(a.port, &link), 0);
	assert_int_equal(rte_eth_link_get_nowait(b.port, &link), 0);
	assert_int_equal(rte_pmd_hfi1_port_info_get(b.port, &info), 0);
	/* a few LSC polls */
	assert_int_equal(test_wait_alarm_periods(LSC_POLL_US, 2, TEST_WAIT_MS), 0);
	assert_int_equal(rte_eth_dev_stop(a.port), 0);
	assert_int_equal(rte_eth_dev_stop(b.port), 0);
	assert_int_equal(node_model_stats(&a).csr_unknown, 0);
	assert_int_equal(node_model_stats(&b).csr_unknown, 0);
	assert_true(node_model_stats(&b).rcv_pkts >= 4);
	pair_down(&a, &b);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		hfi1_test(test_bringup_teardown_20_times_leaves_nothing_behind),
		hfi1_test(test_node_rejoining_a_wire_talks_to_the_peer_that_stayed),
		hfi1_test(test_roundtrip_every_size_single_segment),
		hfi1_test(test_roundtrip_every_size_multi_segment_with_scatter),
		hfi1_test(test_rx_without_scatter_drops_packets_longer_than_the_mbuf),
		hfi1_test(test_tx_burst_larger_than_a_device_step_is_sent_whole),
		hfi1_test(test_rsm_steering_set_spreads_vnic_and_routes_mgmt_and_default),
		hfi1_test(test_rsm_default_steering_spreads_vnic_over_all_queues),
		hfi1_test(test_steering_set_refuses_bad_queues_started_and_foreign_ports),
		hfi1_test(test_smallest_rings_wrap_20_times_in_order),
		hfi1_test(test_rhq_of_416_entries_never_delivers_an_entry_twice),
		hfi1_test(test_rx_queue_stop_drops_in_the_device_and_start_resumes),
		hfi1_test(test_tx_queue_stop_returns_mbufs_and_start_resumes),
		hfi1_test(test_rx_layout_auto_detects_split_and_full),
		hfi1_test(test_rx_layout_auto_recovers_from_a_crafted_first_packet),
		hfi1_test(test_rx_layout_forced_is_honoured_against_the_other_layout),
		hfi1_test(test_service_mode_moves_packets_only_when_the_model_runs),
		hfi1_test(test_link_follows_the_wire_and_lsc_reports_each_change),
		hfi1_test(test_devargs_refused_leave_nothing_behind),
		hfi1_test(test_wire_refused_when_full_or_owned),
		hfi1_test(test_wire_port_that_cannot_be_made_leaves_no_ring_pair),
		hfi1_test(test_named_wire_port_is_used_and_released),
		hfi1_test(test_named_wire_lost_is_redialled_and_active_after_two_ticks),
		hfi1_test(test_configure_refuses_what_the_port_cannot_do),
		hfi1_test(test_port_info_reports_identity_from_devargs),
		hfi1_test(test_pmd_touches_only_modelled_csrs),
	};

	/* one case: argv[1] names it (a cmocka glob) */
	test_case_filter(argc, argv);
	return cmocka_run_group_tests_name("hfi1", tests, test_eal_setup,
			test_eal_teardown);
}
