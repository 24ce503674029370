/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* net_hfi1 over its model: faults and refusals. Every RHF error bit,
 * broken wire packets, the model's injected faults, a real RHQ overflow,
 * TX refusals, a bad head write-back, running out of mbufs, and teardown
 * with packets in flight. */

#include <rte_cycles.h>

#include "hfi1_test_util.h"
#include "test_case.h"

/* Every RX drop counter, in xstats order. */
static const char *const rx_drop_xstats[] = {
	"rx_err_icrc", "rx_err_len", "rx_err_ecc", "rx_err_tid",
	"rx_err_rcv_type", "rx_err_dc", "rx_err_dc_unc", "rx_err_khdr_len",
	"rx_bad_rcv_type", "rx_bad_egr_index", "rx_bad_egr_offset",
	"rx_bad_hdrq_offset", "rx_runt", "rx_too_long", "rx_nombuf",
};

static void
rx_drops_get(uint16_t port, uint64_t *v)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(rx_drop_xstats); i++)
		v[i] = xstat(port, rx_drop_xstats[i]);
}

/* Since @before, the drop counter @name went up by @n and no other moved. */
static void
rx_drops_check(uint16_t port, const uint64_t *before, const char *name,
		uint64_t n)
{
	uint64_t after[RTE_DIM(rx_drop_xstats)];
	unsigned int i;

	rx_drops_get(port, after);
	for (i = 0; i < RTE_DIM(rx_drop_xstats); i++) {
		uint64_t want = before[i] +
			(name != NULL && strcmp(name, rx_drop_xstats[i]) == 0 ?
			 n : 0);

		if (after[i] != want) {
			print_error("%s: %" PRIu64 ", expected %" PRIu64 "\n",
					rx_drop_xstats[i], after[i], want);
			fail();
		}
	}
}

/* ---- RHF errors ---- */

/* Each RHF error bit (all three RcvTypeErr bits too) drops exactly its
 * packet, counts it once in its own xstat and in ierrors, and the next
 * packet arrives intact. */
static void
test_each_rhf_error_drops_the_packet_and_counts_it_once(void **state)
{
	static const struct {
		uint64_t bit;
		const char *xstat;
	} c[] = {
		{ HFI1_RHF_ICRC_ERR, "rx_err_icrc" },
		{ HFI1_RHF_LEN_ERR, "rx_err_len" },
		{ HFI1_RHF_ECC_ERR, "rx_err_ecc" },
		{ HFI1_RHF_TID_ERR, "rx_err_tid" },
		{ 1ull << 56, "rx_err_rcv_type" },
		{ 1ull << 57, "rx_err_rcv_type" },
		{ 1ull << 58, "rx_err_rcv_type" },
		{ HFI1_RHF_DC_ERR, "rx_err_dc" },
		{ HFI1_RHF_DC_UNC_ERR, "rx_err_dc_unc" },
		{ HFI1_RHF_K_HDR_LEN_ERR, "rx_err_khdr_len" },
	};
	uint64_t before[RTE_DIM(rx_drop_xstats)];
	struct rte_eth_stats s0, s1;
	struct node a, b;
	unsigned int i;

	(void)state;
	pair_up(&a, &b, "ring:rh");
	for (i = 0; i < RTE_DIM(c); i++) {
		uint64_t rcv = node_model_stats(&b).rcv_pkts;

		rx_drops_get(b.port, before);
		s0 = port_stats(b.port);
		hfi1_model_fault(node_model(&b), HFI1_FAULT_RHF_ERR, 1,
				c[i].bit);
		send_pkt(a.port, 0, test_pool, 200, 0, VNIC, 1, 2, 2 * i);
		recv_none(b.port, 0, 5);
		/* The device delivered it: the driver dropped it. */
		assert_int_equal(node_model_stats(&b).rcv_pkts, rcv + 1);
		rx_drops_check(b.port, before, c[i].xstat, 1);
		s1 = port_stats(b.port);
		assert_int_equal(s1.ierrors, s0.ierrors + 1);
		assert_int_equal(s1.ipackets, s0.ipackets);
		send_pkt(a.port, 0, test_pool, 208, 0, VNIC, 1, 2, 2 * i + 1);
		recv_check(b.port, 0, 208, VNIC, 1, 2, 2 * i + 1);
	}
	assert_int_equal(port_stats(b.port).ierrors, RTE_DIM(c));
	assert_int_equal(port_stats(b.port).ipackets, RTE_DIM(c));
	pair_down(&a, &b);
}

/* Raw packets put straight on A's wire, past A's TX checks: a Length field
 * that disagrees with the size (longer, shorter, size not whole quadwords)
 * or a size above MTU + 124 makes the device set LenErr by itself. */
static void
test_length_mismatch_on_the_wire_sets_len_err(void **state)
{
	static const struct {
		uint32_t len;
		uint16_t len_field;	/* quadwords; 0: the right one */
		bool good;
	} c[] = {
		{ 64, 9, false }, { 72, 8, false }, { 60, 0, false },
		{ 61, 0, false }, { 64, 0, true }, { 10368, 0, false },
		{ 10360, 0, true }, { 2048, 255, false }, { 24, 0, true },
	};
	static uint8_t buf[10400];
	uint64_t before[RTE_DIM(rx_drop_xstats)];
	uint64_t bad = 0;
	struct node a, b;
	unsigned int i;

	(void)state;
	pair_up(&a, &b, "ring:le");
	for (i = 0; i < RTE_DIM(c); i++) {
		pkt16b_fill(buf, c[i].len, VNIC, 3, 3, i);
		opa16b_set_len(buf, c[i].len_field ? c[i].len_field :
				(uint16_t)(c[i].len / 8));
		rx_drops_get(b.port, before);
		wire_send_raw(&a, buf, c[i].len);
		if (c[i].good) {
			recv_check(b.port, 0, c[i].len, VNIC, 3, 3, i);
			rx_drops_check(b.port, before, NULL, 0);
		} else {
			recv_none(b.port, 0, 5);
			rx_drops_check(b.port, before, "rx_err_len", 1);
			bad++;
		}
	}
	assert_int_equal(port_stats(b.port).ierrors, bad);
	/* A's own traffic still flows. */
	send_pkt(a.port, 0, test_pool, 64, 0, VNIC, 3, 3, 99);
	recv_check(b.port, 0, 64, VNIC, 3, 3, 99);
	pair_down(&a, &b);
}

/* Wire packets too short for a 16B header, or not 16B, never reach a
 * context (rcv_not_bypass); a 16-byte packet with a matching Length field
 * does, and the driver drops it as a runt. */
static void
test_runts_and_non_16b_packets_are_dropped(void **state)
{
	uint64_t before[RTE_DIM(rx_drop_xstats)];
	struct hfi1_model_stats st0, st;
	uint8_t buf[64];
	struct node a, b;

	(void)state;
	pair_up(&a, &b, "ring:ru");
	st0 = node_model_stats(&b);
	rx_drops_get(b.port, before);
	pkt16b_fill(buf, 64, VNIC, 1, 1, 1);
	opa16b_set_len(buf, 1);
	wire_send_raw(&a, buf, 8);
	pkt16b_fill(buf, 64, VNIC, 1, 1, 1);
	opa16b_set_l2(buf, 1);
	wire_send_raw(&a, buf, 64);
	recv_none(b.port, 0, 5);
	st = node_model_stats(&b);
	assert_int_equal(st.rcv_not_bypass, st0.rcv_not_bypass + 2);
	assert_int_equal(st.rcv_pkts, st0.rcv_pkts);
	rx_drops_check(b.port, before, NULL, 0);

	pkt16b_fill(buf, 24, VNIC, 1, 1, 1);
	opa16b_set_len(buf, 2);
	wire_send_raw(&a, buf, 16);
	recv_none(b.port, 0, 5);
	assert_int_equal(node_model_stats(&b).rcv_pkts, st0.rcv_pkts + 1);
	rx_drops_check(b.port, before, "rx_runt", 1);
	send_pkt(a.port, 0, test_pool, 24, 0, VNIC, 1, 1, 2);
	recv_check(b.port, 0, 24, VNIC, 1, 1, 2);
	pair_down(&a, &b);
}

/* ---- model faults ---- */

/* An RHF naming an eager buffer the queue does not have is counted in
 * rx_bad_egr_index and skipped; nothing breaks and the next packets,
 * in the same eager buffer, arrive. */
static void
test_bad_egr_index_counted_and_next_packet_fine(void **state)
{
	uint64_t before[RTE_DIM(rx_drop_xstats)];
	struct node a, b;
	uint32_t k;

	(void)state;
	pair_up(&a, &b, "ring:be");
	rx_drops_get(b.port, before);
	hfi1_model_fault(node_model(&b), HFI1_FAULT_BAD_EGR_INDEX, 1, 0);
	send_pkt(a.port, 0, test_pool, 296, 0, VNIC, 1, 1, 1);
	recv_none(b.port, 0, 5);
	rx_drops_check(b.port, before, "rx_bad_egr_index", 1);
	assert_int_equal(port_stats(b.port).ierrors, 1);
	for (k = 2; k < 200; k++) {
		send_pkt(a.port, 0, test_pool, 296 + 8 * (k % 50), 0, VNIC, 1,
				1, k);
		recv_check(b.port, 0, 296 + 8 * (k % 50), VNIC, 1, 1, k);
	}
	pair_down(&a, &b);
}

/* A packet that finds the RHQ full is lost in the device: imissed and
 * rx_q0_rhq_overflows count it, ierrors does not; a stats reset clears
 * both; the next packet is fine. */
static void
test_rhq_full_fault_counts_imissed_and_overflow_xstat(void **state)
{
	struct rte_eth_stats st;
	struct node a, b;

	(void)state;
	pair_up(&a, &b, "ring:rf");
	hfi1_model_fault(node_model(&b), HFI1_FAULT_RHQ_FULL, 2, 0);
	send_pkt(a.port, 0, test_pool, 128, 0, VNIC, 1, 1, 1);
	send_pkt(a.port, 0, test_pool, 128, 0, VNIC, 1, 1, 2);
	recv_none(b.port, 0, 5);
	st = port_stats(b.port);
	assert_int_equal(st.imissed, 2);
	assert_int_equal(st.ierrors, 0);
	assert_int_equal(st.ipackets, 0);
	assert_int_equal(xstat(b.port, "rx_q0_rhq_overflows"), 2);
	assert_int_equal(node_model_stats(&b).rcv_rhq_full, 2);
	send_pkt(a.port, 0, test_pool, 128, 0, VNIC, 1, 1, 3);
	recv_check(b.port, 0, 128, VNIC, 1, 1, 3);
	assert_int_equal(rte_eth_stats_reset(b.port), 0);
	assert_int_equal(port_stats(b.port).imissed, 0);
	assert_int_equal(xstat(b.port, "rx_q0_rhq_overflows"), 0);
	hfi1_model_fault(node_model(&b), HFI1_FAULT_RHQ_FULL, 1, 0);
	send_pkt(a.port, 0, test_pool, 128, 0, VNIC, 1, 1, 4);
	recv_none(b.port, 0, 5);
	assert_int_equal(port_stats(b.port).imissed, 1);
	assert_int_equal(xstat(b.port, "rx_q0_rhq_overflows"), 1);
	pair_down(&a, &b);
}

/* A packet that finds no eager space is lost in the device
 * (rcv_egr_full); no driver counter moves; the next packet is fine. */
static void
test_egr_full_fault_loses_the_packet_in_the_device(void **state)
{
	uint64_t before[RTE_DIM(rx_drop_xstats)];
	struct hfi1_model_stats st0;
	struct node a, b;

	(void)state;
	pair_up(&a, &b, "ring:ef");
	st0 = node_model_stats(&b);
	rx_drops_get(b.port, before);
	hfi1_model_fault(node_model(&b), HFI1_FAULT_EGR_FULL, 1, 0);
	send_pkt(a.port, 0, test_pool, 1000, 0, VNIC, 1, 1, 1);
	recv_none(b.port, 0, 5);
	assert_int_equal(node_model_stats(&b).rcv_egr_full,
			st0.rcv_egr_full + 1);
	assert_int_equal(node_model_stats(&b).rcv_pkts, st0.rcv_pkts);
	rx_drops_check(b.port, before, NULL, 0);
	send_pkt(a.port, 0, test_pool, 1000, 0, VNIC, 1, 1, 2);
	recv_check(b.port, 0, 1000, VNIC, 1, 1, 2);
	assert_int_equal(port_stats(b.port).ipackets, 1);
	pair_down(&a, &b);
}

/* HFI1_FAULT_DROP: packets vanish on the link (rcv_dropped_fault) and
 * nothing is delivered or counted by the driver. */
static void
test_drop_fault_delivers_nothing(void **state)
{
	uint64_t before[RTE_DIM(rx_drop_xstats)];
	struct rte_eth_stats st;
	struct node a, b;
	uint32_t k;

	(void)state;
	pair_up(&a, &b, "ring:dr");
	rx_drops_get(b.port, before);
	hfi1_model_fault(node_model(&b), HFI1_FAULT_DROP, 3, 0);
	for (k = 0; k < 3; k++)
		send_pkt(a.port, 0, test_pool, 64, 0, VNIC, 1, 1, k);
	recv_none(b.port, 0, 5);
	assert_int_equal(node_model_stats(&b).rcv_dropped_fault, 3);
	assert_int_equal(node_model_stats(&b).rcv_pkts, 0);
	st = port_stats(b.port);
	assert_int_equal(st.ipackets + st.ierrors + st.imissed, 0);
	rx_drops_check(b.port, before, NULL, 0);
	send_pkt(a.port, 0, test_pool, 64, 0, VNIC, 1, 1, 3);
	recv_check(b.port, 0, 64, VNIC, 1, 1, 3);
	pair_down(&a, &b);
}

/* ---- real RHQ overflow ---- */

static uint32_t
pkt_seq(const struct rte_mbuf *m)
{
	uint32_t buf, seq;
	const void *p = rte_pktmbuf_read(m, OPA16B_VNIC_HDR_LEN, sizeof(seq),
			&buf);

	assert_non_null(p);
	memcpy(&seq, p, sizeof(seq));
	return seq;
}

/* Without fault injection: A puts 128 packets on the wire; B's driver
 * takes one packet per poll while each poll lets the device move a burst
 * into the 64-entry RHQ, so it fills and the device drops the rest. What
 * arrives is in order and intact; delivered + imissed = sent; then
 * traffic flows again. */
static void
test_rhq_overflows_when_the_driver_falls_behind(void **state)
{
	const uint32_t n = 128;
	struct rte_mbuf *r[32];
	struct rte_eth_stats st;
	struct node a, b;
	uint32_t seq, got = 0;
	int64_t last = -1;
	unsigned int idle = 0, k;

	(void)state;
	node_create(&a, 0, "ring:ov", "");
	node_create(&b, 1, "ring:ov", "");
	node_start(&a, 1, 1, 256, 512, test_pool, 0);
	node_start(&b, 1, 1, 64, 64, test_pool, 0);
	for (seq = 0; seq < n; seq++)
		send_pkt(a.port, 0, test_pool, 128, 0, VNIC, 1, 1, seq);
	assert_int_equal(node_model_stats(&a).wire_tx, n);
	for (k = 0; k < 8; k++) {
		assert_int_equal(rte_eth_rx_burst(b.port, 0, r, 1), 1);
		assert_true(pkt16b_check(r[0], 128, VNIC, 1, 1, got));
		rte_pktmbuf_free(r[0]);
		last = got++;
	}
	while (idle < 5) {
		uint16_t i, m = rte_eth_rx_burst(b.port, 0, r, RTE_DIM(r));

		idle = m == 0 ? idle + 1 : 0;
		for (i = 0; i < m; i++) {
			seq = pkt_seq(r[i]);
			assert_true((int64_t)seq > last && seq < n);
			assert_true(pkt16b_check(r[i], 128, VNIC, 1, 1, seq));
			last = seq;
			got++;
		}
		rte_pktmbuf_free_bulk(r, m);
	}
	st = port_stats(b.port);
	assert_true(st.imissed > 0);
	assert_int_equal(st.ipackets, got);
	assert_int_equal(st.ipackets + st.imissed, n);
	assert_int_equal(st.ierrors, 0);
	assert_int_equal(xstat(b.port, "rx_q0_rhq_overflows"), st.imissed);
	assert_int_equal(node_model_stats(&b).rcv_rhq_full, st.imissed);
	for (seq = n; seq < n + 100; seq++) {
		send_pkt(a.port, 0, test_pool, 136, 0, VNIC, 1, 1, seq);
		recv_check(b.port, 0, 136, VNIC, 1, 1, seq);
	}
	pair_down(&a, &b);
}

/* ---- TX refusals ---- */

/* Malformed packets in one burst with good ones: each bad one is
 * consumed (the burst returns them all), freed at once, counted in its
 * xstat and oerrors; the good ones, the limits included (MTU + 124 bytes,
 * 63 segments), arrive in order. */
static void
test_tx_refuses_malformed_packets_counts_and_frees_them(void **state)
{
	enum { GOOD, BAD_LEN, NOT_16B, TOO_LONG, TOO_MANY_SEGS };
	static const char *const names[] = {
		[BAD_LEN] = "tx_bad_length", [NOT_16B] = "tx_not_16b",
		[TOO_LONG] = "tx_too_long", [TOO_MANY_SEGS] = "tx_too_many_segs",
	};
	static const struct {
		uint32_t len, seg;
		int why;
		uint16_t len_field;	/* 0: right */
		uint8_t l2;		/* 0: 16B */
	} c[] = {
		{ 64, 0, GOOD, 0, 0 },
		{ 60, 0, BAD_LEN, 0, 0 },		/* not whole quadwords */
		{ 64, 0, BAD_LEN, 9, 0 },		/* Length field too big */
		{ 72, 0, BAD_LEN, 8, 0 },		/* ... too small */
		{ 16, 0, BAD_LEN, 0, 0 },		/* runt */
		{ 64, 8, BAD_LEN, 0, 0 },		/* header split */
		{ 128, 0, GOOD, 0, 0 },
		{ 64, 0, NOT_16B, 0, 1 },
		{ 64, 0, NOT_16B, 0, 3 },
		{ 2176, 0, TOO_LONG, 0, 0 },		/* MTU 2048 + 128 */
		{ 10360, 0, TOO_LONG, 0, 0 },
		{ 2168, 0, GOOD, 0, 0 },		/* MTU 2048 + 120 */
		{ 1024, 16, TOO_MANY_SEGS, 0, 0 },	/* 64 segments */
		{ 1008, 16, GOOD, 0, 0 },		/* 63 segments */
		{ 2168, 40, GOOD, 0, 0 },		/* 55 segments */
		{ 24, 0, GOOD, 0, 0 },
	};
	struct rte_mbuf *p[RTE_DIM(c)];
	uint64_t want[RTE_DIM(names)] = { 0 };
	unsigned int big, small, i, k, good = 0;
	struct rte_eth_stats st;
	struct node a, b;

	(void)state;
	pair_up(&a, &b, "ring:tx");
	assert_int_equal(rte_eth_dev_set_mtu(a.port, 2048), 0);
	for (i = 0; i < RTE_DIM(c); i++) {
		static uint8_t buf[16384];
		struct rte_mbuf *m;

		p[i] = pkt16b_mbuf(c[i].seg ? test_small_pool : test_pool,
				c[i].len, c[i].seg, VNIC, 1, 1, i);
		m = p[i];
		/* Patch the header in place (it is in the first segment
		 * unless the segment is shorter). */
		pkt16b_fill(buf, c[i].len, VNIC, 1, 1, i);
		if (c[i].len_field)
			opa16b_set_len(buf, c[i].len_field);
		if (c[i].l2)
			opa16b_set_l2(buf, c[i].l2);
		memcpy(rte_pktmbuf_mtod(m, uint8_t *), buf,
				RTE_MIN(m->data_len, (uint16_t)16));
		want[c[i].why]++;
		good += c[i].why == GOOD;
	}
	big = rte_mempool_avail_count(test_pool);
	small = rte_mempool_avail_count(test_small_pool);
	assert_int_equal(rte_eth_tx_burst(a.port, 0, p, RTE_DIM(c)),
			RTE_DIM(c));
	/* The refused ones are back already; the sent ones wait for their
	 * completion. */
	for (i = 0; i < RTE_DIM(c); i++) {
		if (c[i].why == GOOD)
			continue;
		if (c[i].seg)
			small += (c[i].len + c[i].seg - 1) / c[i].seg;
		else
			big++;
	}
	assert_int_equal(rte_mempool_avail_count(test_pool), big);
	assert_int_equal(rte_mempool_avail_count(test_small_pool), small);
	for (i = 1; i < RTE_DIM(names); i++)
		assert_int_equal(xstat(a.port, names[i]), want[i]);
	st = port_stats(a.port);
	assert_int_equal(st.oerrors, RTE_DIM(c) - good);
	assert_int_equal(st.opackets, good);
	assert_int_equal(recv_some(b.port, 0, p, good, 100), good);
	for (i = 0, k = 0; i < RTE_DIM(c); i++)
		if (c[i].why == GOOD)
			assert_true(pkt16b_check(p[k++], c[i].len, VNIC, 1, 1,
					i));
	rte_pktmbuf_free_bulk(p, good);
	recv_none(b.port, 0, 5);
	assert_int_equal(rte_eth_tx_burst(a.port, 0, NULL, 0), 0);
	pair_down(&a, &b);
}

/* A 63-segment packet needs 64 descriptors: the smallest TX ring (64)
 * must still take it, again and again, instead of refusing it forever. */
static void
test_tx_63_segment_packets_fit_the_smallest_ring(void **state)
{
	struct node a, b;
	uint32_t k;

	(void)state;
	node_create(&a, 0, "ring:63", "");
	node_create(&b, 1, "ring:63", "");
	node_start(&a, 1, 1, 256, 64, test_pool, 0);
	node_start(&b, 1, 1, 256, 256, test_pool, 0);
	for (k = 0; k < 5; k++) {
		struct rte_mbuf *m = pkt16b_mbuf(test_small_pool, 1008, 16,
				VNIC, 1, 1, k);
		unsigned int tries = 0;

		assert_int_equal(m->nb_segs, 63);
		while (rte_eth_tx_burst(a.port, 0, &m, 1) == 0) {
			if (++tries == 1000) {
				rte_pktmbuf_free(m);
				fail_msg("a 63-segment packet never fits");
			}
		}
		recv_check(b.port, 0, 1008, VNIC, 1, 1, k);
	}
	assert_int_equal(xstat(a.port, "tx_too_many_segs"), 0);
	pair_down(&a, &b);
}

/* Chain @m's segments: [head][empty][rest...], or an empty segment at the
 * end (@at_end). */
static void
chain_add_empty(struct rte_mbuf *m, bool at_end)
{
	struct rte_mbuf *e = rte_pktmbuf_alloc(test_small_pool), *s;

	assert_non_null(e);
	if (at_end) {
		assert_int_equal(rte_pktmbuf_chain(m, e), 0);
		return;
	}
	s = m->next;
	m->next = e;
	e->next = s;
	m->nb_segs++;
}

/* Empty segments take a descriptor each: a chain with empty segments
 * arrives intact, and one whose empty segment makes it 65 descriptors is
 * refused as too many segments instead of halting the engine. */
static void
test_tx_empty_segments_count_as_descriptors(void **state)
{
	struct rte_mbuf *m;
	struct node a, b;
	uint32_t k;

	(void)state;
	pair_up(&a, &b, "ring:es");
	m = pkt16b_mbuf(test_small_pool, 512, 128, VNIC, 1, 1, 1);
	chain_add_empty(m, false);
	chain_add_empty(m, true);
	assert_int_equal(m->nb_segs, 6);
	send_all(a.port, 0, &m, 1);
	recv_check(b.port, 0, 512, VNIC, 1, 1, 1);

	m = pkt16b_mbuf(test_small_pool, 1008, 16, VNIC, 1, 1, 2);
	chain_add_empty(m, true);
	assert_int_equal(rte_eth_tx_burst(a.port, 0, &m, 1), 1);
	assert_int_equal(xstat(a.port, "tx_too_many_segs"), 1);
	recv_none(b.port, 0, 5);
	for (k = 3; k < 100; k++) {
		send_pkt(a.port, 0, test_pool, 64, 0, VNIC, 1, 1, k);
		recv_check(b.port, 0, 64, VNIC, 1, 1, k);
	}
	assert_int_equal(xstat(a.port, "tx_sdma_halts"), 0);
	assert_int_equal(node_model_stats(&a).sdma_halts, 0);
	assert_int_equal(rte_eth_tx_burst(a.port, 0, NULL, 0), 0);
	pair_down(&a, &b);
}

/* ---- SDMA head ---- */

/* A head written back out of range is counted in tx_bad_head (not as a
 * packet error) and ignored; the queue keeps working, and the packets
 * complete and are freed once good heads come back. */
static void
test_bad_head_counted_and_queue_keeps_working(void **state)
{
	struct node a, b;
	uint64_t bad;
	uint32_t k;

	(void)state;
	pair_up(&a, &b, "ring:bh");
	hfi1_model_fault(node_model(&a), HFI1_FAULT_BAD_HEAD, 1, 0);
	send_pkt(a.port, 0, test_pool, 64, 0, VNIC, 1, 1, 0);
	recv_check(b.port, 0, 64, VNIC, 1, 1, 0);
	assert_int_equal(rte_eth_tx_burst(a.port, 0, NULL, 0), 0);
	assert_true(xstat(a.port, "tx_bad_head") >= 1);
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE - 1);
	for (k = 1; k <= 300; k++) {
		send_pkt(a.port, 0, test_pool, 64, 0, VNIC, 1, 1, k);
		recv_check(b.port, 0, 64, VNIC, 1, 1, k);
	}
	bad = xstat(a.port, "tx_bad_head");
	assert_int_equal(rte_eth_tx_burst(a.port, 0, NULL, 0), 0);
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);
	assert_int_equal(xstat(a.port, "tx_bad_head"), bad);
	assert_int_equal(port_stats(a.port).oerrors, 0);
	assert_int_equal(port_stats(a.port).opackets, 301);
	pair_down(&a, &b);
}

/* ---- mbufs ---- */

/* With no mbuf to copy into, the packet is counted in rx_nombuf (not in
 * ierrors); a chain that runs out half way is given back whole; with
 * mbufs again, packets arrive. */
static void
test_rx_without_mbufs_counts_nombuf_and_recovers(void **state)
{
	struct rte_mempool *mp;
	struct rte_mbuf *held[8];
	struct node a, b;

	(void)state;
	mp = rte_pktmbuf_pool_create("hfi1_nombuf", 8, 0, 0,
			RTE_PKTMBUF_HEADROOM + 256, SOCKET_ID_ANY);
	assert_non_null(mp);
	node_create(&a, 0, "ring:nb", "");
	node_create(&b, 1, "ring:nb", "");
	node_start(&a, 1, 1, 256, 256, test_pool, 0);
	node_start(&b, 1, 1, 64, 64, mp, RTE_ETH_RX_OFFLOAD_SCATTER);
	assert_int_equal(rte_pktmbuf_alloc_bulk(mp, held, 8), 0);
	send_pkt(a.port, 0, test_pool, 104, 0, VNIC, 1, 1, 1);
	recv_none(b.port, 0, 5);
	assert_int_equal(port_stats(b.port).rx_nombuf, 1);
	assert_int_equal(xstat(b.port, "rx_nombuf"), 1);
	assert_int_equal(port_stats(b.port).ierrors, 0);
	/* Two mbufs for a packet that needs four. */
	rte_pktmbuf_free_bulk(held, 2);
	send_pkt(a.port, 0, test_pool, 1000, 0, VNIC, 1, 1, 2);
	recv_none(b.port, 0, 5);
	assert_int_equal(port_stats(b.port).rx_nombuf, 2);
	assert_int_equal(rte_mempool_avail_count(mp), 2);
	rte_pktmbuf_free_bulk(held + 2, 6);
	send_pkt(a.port, 0, test_pool, 1000, 0, VNIC, 1, 1, 3);
	recv_check(b.port, 0, 1000, VNIC, 1, 1, 3);
	assert_int_equal(rte_mempool_avail_count(mp), 8);
	pair_down(&a, &b);
	rte_mempool_free(mp);
}

/* ---- teardown with packets in flight ---- */

/* A's engine sent 40 packets but never reported it (head write-back held
 * back): stop and close A give its mbufs back; B's copies are B's. */
static void
test_close_with_completions_pending_returns_every_mbuf(void **state)
{
	struct rte_mbuf *p[40], *r[40];
	struct node a, b;
	unsigned int i;

	(void)state;
	pair_up(&a, &b, "ring:ci");
	hfi1_model_fault(node_model(&a), HFI1_FAULT_DELAY_HEAD, 1, 1000000);
	for (i = 0; i < RTE_DIM(p); i++)
		p[i] = pkt16b_mbuf(test_pool, 512, 0, VNIC, 1, 1, i);
	send_all(a.port, 0, p, RTE_DIM(p));
	assert_int_equal(recv_some(b.port, 0, r, RTE_DIM(r), 100), RTE_DIM(r));
	assert_int_equal(rte_eth_tx_burst(a.port, 0, NULL, 0), 0);
	assert_int_equal(rte_mempool_avail_count(test_pool),
			TEST_POOL_SIZE - 2 * RTE_DIM(p));
	assert_int_equal(rte_eth_dev_stop(a.port), 0);
	assert_int_equal(rte_eth_dev_close(a.port), 0);
	assert_int_equal(rte_mempool_avail_count(test_pool),
			TEST_POOL_SIZE - RTE_DIM(r));
	for (i = 0; i < RTE_DIM(r); i++)
		assert_true(pkt16b_check(r[i], 512, VNIC, 1, 1, i));
	rte_pktmbuf_free_bulk(r, RTE_DIM(r));
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);
	assert_int_equal(rte_vdev_uninit(a.name), 0);
	node_destroy(&b);
}

/* A's engine never ran (service mode, not stepped): uninit of the started
 * port takes back every queued mbuf. */
static void
test_uninit_started_port_with_unsent_packets_returns_every_mbuf(void **state)
{
	struct rte_mbuf *p[40];
	struct node a, b;
	unsigned int i;

	(void)state;
	node_create(&a, 0, "ring:un", "service=1");
	node_create(&b, 1, "ring:un", "");
	node_start(&a, 1, 1, 256, 256, test_pool, 0);
	node_start(&b, 1, 1, 256, 256, test_pool, 0);
	for (i = 0; i < RTE_DIM(p); i++)
		p[i] = pkt16b_mbuf(test_pool, 512, 0, VNIC, 1, 1, i);
	send_all(a.port, 0, p, RTE_DIM(p));
	assert_int_equal(node_model_stats(&a).sdma_pkts, 0);
	assert_int_equal(rte_mempool_avail_count(test_pool),
			TEST_POOL_SIZE - RTE_DIM(p));
	assert_int_equal(rte_vdev_uninit(a.name), 0);
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);
	recv_none(b.port, 0, 5);
	node_destroy(&b);
}

static void
pool_collect(struct rte_mempool *mp, void *arg)
{
	struct rte_mempool **live = arg;
	unsigned int i;

	for (i = 0; i < 63 && live[i] != NULL; i++)
		;
	live[i] = mp;
}

/* Packets A left on the wire when it goes (its engines' copies, from its
 * own pool, and packets put there raw) go with A: nothing on the wire may
 * point into a freed pool, and every test mbuf comes back. */
static void
test_node_going_takes_its_wire_packets_with_it(void **state)
{
	struct rte_mempool *live[64] = { NULL };
	struct rte_mbuf *r[32];
	struct node a, b;
	uint8_t buf[64];
	uint16_t n, i, k;

	(void)state;
	pair_up(&a, &b, "ring:gw");
	for (i = 0; i < 10; i++)
		send_pkt(a.port, 0, test_pool, 64, 0, VNIC, 1, 1, i);
	for (i = 0; i < 5; i++) {
		pkt16b_fill(buf, 64, VNIC, 1, 1, 100 + i);
		wire_send_raw(&a, buf, 64);
	}
	assert_int_equal(node_model_stats(&a).wire_tx, 10);
	assert_int_equal(rte_vdev_uninit(a.name), 0);

	rte_mempool_walk(pool_collect, live);
	n = rte_eth_rx_burst(node_wire_port(&b), 0, r, RTE_DIM(r));
	for (i = 0; i < n; i++) {
		for (k = 0; live[k] != NULL && live[k] != r[i]->pool; k++)
			;
		/* A dead pool: leave the mbuf alone. */
		if (live[k] == NULL)
			fail_msg("wire packet %u of %u is in a freed pool", i,
					n);
	}
	rte_pktmbuf_free_bulk(r, n);
	recv_none(b.port, 0, 5);
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);
	node_destroy(&b);

	/* The same when B, the receiver, goes first and then A. */
	pair_up(&a, &b, "ring:gw");
	for (i = 0; i < 5; i++) {
		pkt16b_fill(buf, 64, VNIC, 1, 1, 200 + i);
		wire_send_raw(&a, buf, 64);
		wire_send_raw(&b, buf, 64);
	}
	node_destroy(&b);
	node_destroy(&a);
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		hfi1_test(test_each_rhf_error_drops_the_packet_and_counts_it_once),
		hfi1_test(test_length_mismatch_on_the_wire_sets_len_err),
		hfi1_test(test_runts_and_non_16b_packets_are_dropped),
		hfi1_test(test_bad_egr_index_counted_and_next_packet_fine),
		hfi1_test(test_rhq_full_fault_counts_imissed_and_overflow_xstat),
		hfi1_test(test_egr_full_fault_loses_the_packet_in_the_device),
		hfi1_test(test_drop_fault_delivers_nothing),
		hfi1_test(test_rhq_overflows_when_the_driver_falls_behind),
		hfi1_test(test_tx_refuses_malformed_packets_counts_and_frees_them),
		hfi1_test(test_tx_63_segment_packets_fit_the_smallest_ring),
		hfi1_test(test_tx_empty_segments_count_as_descriptors),
		hfi1_test(test_bad_head_counted_and_queue_keeps_working),
		hfi1_test(test_rx_without_mbufs_counts_nombuf_and_recovers),
		hfi1_test(test_close_with_completions_pending_returns_every_mbuf),
		hfi1_test(test_uninit_started_port_with_unsent_packets_returns_every_mbuf),
		hfi1_test(test_node_going_takes_its_wire_packets_with_it),
	};

	/* one case: argv[1] names it (a cmocka glob) */
	test_case_filter(argc, argv);
	return cmocka_run_group_tests_name("hfi1_faults", tests,
			test_eal_setup, test_eal_teardown);
}
