/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* lib/opa16b on rte_mbuf with EAL: single/multi-segment encap and decap,
 * bursts, rejections, no leaks, and a net_ring wire between encap and decap.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_bus_vdev.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "mbuf_test_util.h"
#include "opa16b_vnic.h"
#include "opa16b_vectors.h"
#include "test_case.h"
#include "test_eal.h"

/* Copy the whole packet out, checking the chain is consistent. */
static uint32_t
flatten(const struct rte_mbuf *m, uint8_t *out, uint32_t cap)
{
	const struct rte_mbuf *s;
	uint32_t len = 0, segs = 0;

	for (s = m; s != NULL; s = s->next) {
		assert_true(len + s->data_len <= cap);
		memcpy(out + len, rte_pktmbuf_mtod(s, const uint8_t *), s->data_len);
		len += s->data_len;
		segs++;
	}
	assert_int_equal(len, m->pkt_len);
	assert_int_equal(segs, m->nb_segs);
	return len;
}

/* TV1 and TV3 through mbuf encap are byte-exact, and decap restores them. */
static void
test_vectors_mbuf_byte_exact(void **state)
{
	const struct opa16b_vector *tvs[] = { &opa16b_tv1, &opa16b_tv3 };
	uint8_t out[256];
	unsigned int i, seg;

	(void)state;
	for (i = 0; i < 2; i++) {
		for (seg = 0; seg <= 16; seg += 16) {
			const struct opa16b_vector *tv = tvs[i];
			struct rte_mempool *pool = seg ? test_small_pool : test_pool;
			struct rte_mbuf *m = chain_of(pool, tv->eth, tv->eth_len, seg);
			uint16_t vesw = 0;

			assert_int_equal(opa16b_vnic_encap(m, &tv->f), 0);
			assert_int_equal(flatten(m, out, sizeof(out)), tv->wire_len);
			assert_memory_equal(out, tv->wire, tv->wire_len);
			assert_int_equal(opa16b_vnic_decap(m, 1500, &vesw), OPA16B_VNIC_RX_OK);
			assert_int_equal(vesw, tv->f.vesw_id);
			assert_int_equal(flatten(m, out, sizeof(out)), RTE_MAX(tv->eth_len, 60u));
			assert_memory_equal(out, tv->eth, tv->eth_len);
			rte_pktmbuf_free(m);
		}
	}
}

/* Random frames of 14..9000 bytes, single and multi-segment (random segment
 * sizes), survive encap + decap; every mbuf goes back to its pool.
 */
static void
test_random_roundtrip_mbuf(void **state)
{
	static uint8_t frame[9000], out[9200];
	unsigned int avail = rte_mempool_avail_count(test_pool);
	unsigned int avail_small = rte_mempool_avail_count(test_small_pool);
	uint64_t seed = 7;
	unsigned int iter, k;

	(void)state;
	for (iter = 0; iter < 2000; iter++) {
		uint32_t len = 14 + test_rand(&seed) % (9000 - 14 + 1);
		/* segments leave tailroom (>= 66 B) for the largest trailer */
		uint32_t seg = (iter & 1) ? 1 + test_rand(&seed) % 190 : 0;
		struct opa16b_vnic_fields f = {
			.slid = test_rand(&seed) & OPA16B_LID_MAX,
			.dlid = test_rand(&seed) & OPA16B_LID_MAX,
			.pkey = test_rand(&seed), .entropy = test_rand(&seed) & 0xFF,
			.vesw_id = test_rand(&seed) & OPA16B_VESW_ID_MAX,
			.sc = test_rand(&seed) & OPA16B_SC_MAX,
			.rc = test_rand(&seed) & OPA16B_RC_MAX,
		};
		struct rte_mbuf *m;
		uint16_t vesw = 0;
		uint32_t n;

		if (iter < 120)
			len = 14 + iter / 2;
		/* a chain of small segments cannot exceed the small pool */
		if (seg != 0 && len / seg > TEST_POOL_SIZE / 4)
			seg = 190;
		for (k = 0; k < len; k++)
			frame[k] = test_rand(&seed);
		m = chain_of(seg ? test_small_pool : test_pool, frame, len, seg);
		assert_int_equal(opa16b_vnic_encap(m, &f), 0);
		n = flatten(m, out, sizeof(out));
		assert_int_equal(n, opa16b_vnic_wire_len(len));
		assert_memory_equal(out + OPA16B_VNIC_HDR_LEN, frame, len);
		assert_int_equal(opa16b_get_dlid(out), f.dlid);
		assert_int_equal(opa16b_get_entropy(out), f.entropy);
		assert_int_equal(opa16b_vnic_decap(m, 9000, &vesw), OPA16B_VNIC_RX_OK);
		assert_int_equal(vesw, f.vesw_id);
		n = flatten(m, out, sizeof(out));
		assert_int_equal(n, RTE_MAX(len, 60u));
		assert_memory_equal(out, frame, len);
		rte_pktmbuf_free(m);
	}
	assert_int_equal(rte_mempool_avail_count(test_pool), avail);
	assert_int_equal(rte_mempool_avail_count(test_small_pool), avail_small);
}

/* Decap of a chain whose header and trailer are split across segments, with
 * segments that end up empty: trailing empty ones are freed.
 */
static void
test_decap_split_header_and_trailer(void **state)
{
	unsigned int avail = rte_mempool_avail_count(test_small_pool);
	uint8_t out[128];
	unsigned int seg;

	(void)state;
	for (seg = 1; seg <= 30; seg++) {
		struct rte_mbuf *m = chain_of(test_small_pool, opa16b_tv1.wire,
						opa16b_tv1.wire_len, seg);
		uint16_t vesw = 0;

		const struct rte_mbuf *s;

		assert_int_equal(opa16b_vnic_decap(m, 1500, &vesw), OPA16B_VNIC_RX_OK);
		assert_int_equal(vesw, 1);
		assert_int_equal(flatten(m, out, sizeof(out)), 60);
		assert_memory_equal(out, opa16b_tv1.eth, 60);
		/* no empty segment remains, the first one included */
		for (s = m; s != NULL; s = s->next)
			assert_true(s->data_len > 0);
		assert_int_equal(rte_mbuf_check(m, 1, NULL), 0);
		rte_pktmbuf_free(m);
	}
	assert_int_equal(rte_mempool_avail_count(test_small_pool), avail);
}

/* opa16b_mbuf_strip refuses more than the packet holds, changing nothing. */
static void
test_strip_refuses_too_much(void **state)
{
	struct rte_mbuf *m = chain_of(test_small_pool, opa16b_tv1.wire, 88, 30);

	(void)state;
	assert_int_equal(opa16b_mbuf_strip(m, 60, 29), -EINVAL);
	assert_int_equal(opa16b_mbuf_strip(m, 89, 0), -EINVAL);
	assert_int_equal(opa16b_mbuf_strip(m, 0, UINT32_MAX), -EINVAL);
	assert_int_equal(m->pkt_len, 88);
	assert_int_equal(m->nb_segs, 3);
	assert_int_equal(opa16b_mbuf_strip(m, 60, 28), 0);
	assert_int_equal(m->pkt_len, 0);
	rte_pktmbuf_free(m);
}

/* Encap refuses a shared buffer (a clone, or an mbuf with two references):
 * writing its headroom would change the other user's packet.
 */
static void
test_encap_refuses_shared_buffers(void **state)
{
	struct rte_mbuf *m = chain_of(test_pool, opa16b_tv1.eth, 60, 0), *c;

	(void)state;
	c = rte_pktmbuf_clone(m, test_pool);
	assert_non_null(c);
	assert_int_equal(opa16b_vnic_encap(c, &opa16b_tv1.f), -EPERM); /* indirect */
	assert_int_equal(opa16b_vnic_encap(m, &opa16b_tv1.f), -EPERM); /* buffer shared */
	assert_int_equal(m->pkt_len, 60);
	rte_pktmbuf_free(c);
	rte_mbuf_refcnt_update(m, 1);
	assert_int_equal(opa16b_vnic_encap(m, &opa16b_tv1.f), -EPERM); /* two references */
	rte_mbuf_refcnt_update(m, -1);
	assert_int_equal(opa16b_vnic_encap(m, &opa16b_tv1.f), 0);
	rte_pktmbuf_free(m);
}

/* A rejected packet is left exactly as it was, for each reason. */
static void
test_decap_rejection_leaves_mbuf_unchanged(void **state)
{
	struct { uint32_t off; uint8_t val; uint32_t len; enum opa16b_vnic_rx_err err; } cases[] = {
		{ 0, 0x01, 24, OPA16B_VNIC_RX_TRUNCATED },
		{ 7, 0xa0, 88, OPA16B_VNIC_RX_BAD_L2 },     /* L2 = 1 */
		{ 8, 0x08, 88, OPA16B_VNIC_RX_BAD_L4 },
		{ 2, 0xc0, 88, OPA16B_VNIC_RX_BAD_LENGTH }, /* Length 12 */
		{ 87, 0x09, 88, OPA16B_VNIC_RX_BAD_PAD },
		{ 87, 0x05, 88, OPA16B_VNIC_RX_RUNT },
	};
	uint8_t pkt[88], before[88], after[88];
	unsigned int i, seg;

	(void)state;
	for (i = 0; i < RTE_DIM(cases); i++) {
		for (seg = 0; seg <= 10; seg += 10) {
			struct rte_mbuf *m;
			uint16_t vesw = 0xBEEF;

			memcpy(pkt, opa16b_tv1.wire, sizeof(pkt));
			pkt[cases[i].off] = cases[i].val;
			m = chain_of(seg ? test_small_pool : test_pool, pkt, cases[i].len, seg);
			flatten(m, before, sizeof(before));
			assert_int_equal(opa16b_vnic_decap(m, 1500, &vesw), cases[i].err);
			assert_int_equal(vesw, 0xBEEF);
			assert_int_equal(flatten(m, after, sizeof(after)), cases[i].len);
			assert_memory_equal(before, after, cases[i].len);
			rte_pktmbuf_free(m);
		}
	}
	/* oversize: TV1's 60-byte frame against MTU 41 */
	{
		struct rte_mbuf *m = chain_of(test_pool, opa16b_tv1.wire, 88, 0);
		uint16_t vesw;

		assert_int_equal(opa16b_vnic_decap(m, 41, &vesw), OPA16B_VNIC_RX_OVERSIZE);
		assert_int_equal(opa16b_vnic_decap(m, 42, &vesw), OPA16B_VNIC_RX_OK);
		rte_pktmbuf_free(m);
	}
}

/* Encap refuses what it cannot do and leaves the mbuf unchanged. */
static void
test_encap_refusals_leave_mbuf_unchanged(void **state)
{
	static uint8_t frame[OPA16B_VNIC_ETH_MAX + 1];
	const struct opa16b_vnic_fields f = { .slid = 1, .dlid = 2, .vesw_id = 1 };
	struct rte_mbuf *m;
	uint16_t off;

	(void)state;
	m = chain_of(test_pool, frame, 13, 0);
	assert_int_equal(opa16b_vnic_encap(m, &f), -EINVAL);
	assert_int_equal(m->pkt_len, 13);
	rte_pktmbuf_free(m);

	m = chain_of(test_pool, frame, OPA16B_VNIC_ETH_MAX + 1, 0);
	assert_int_equal(opa16b_vnic_encap(m, &f), -EMSGSIZE);
	rte_pktmbuf_free(m);

	/* no headroom */
	m = chain_of(test_pool, frame, 100, 0);
	off = m->data_off;
	rte_pktmbuf_adj(m, 0);
	m->data_off = 10;
	assert_int_equal(opa16b_vnic_encap(m, &f), -ENOSPC);
	assert_int_equal(m->data_off, 10);
	assert_int_equal(m->pkt_len, 100);
	m->data_off = off;
	rte_pktmbuf_free(m);

	/* no tailroom in the last segment for pad + ICRC + tail */
	m = rte_pktmbuf_alloc(test_small_pool);
	assert_non_null(rte_pktmbuf_append(m, rte_pktmbuf_tailroom(m) - 4));
	assert_int_equal(opa16b_vnic_encap(m, &f), -ENOSPC);
	assert_int_equal(m->data_len, 252);
	rte_pktmbuf_free(m);
}

/* Burst encap stops at the first refusal with rte_errno; burst decap keeps
 * accepted packets in order, frees and counts the rejected ones.
 */
static void
test_bursts(void **state)
{
	unsigned int avail = rte_mempool_avail_count(test_pool);
	struct opa16b_vnic_fields fs[8];
	struct opa16b_vnic_rx_stats st;
	struct rte_mbuf *pkts[8];
	uint16_t vesw[8];
	unsigned int i;

	(void)state;
	memset(&st, 0, sizeof(st));
	for (i = 0; i < 8; i++) {
		uint8_t frame[64];

		memset(frame, i, sizeof(frame));
		pkts[i] = chain_of(test_pool, frame, i == 5 ? 10 : 64, 0);
		fs[i] = opa16b_tv1.f;
		fs[i].vesw_id = 100 + i;
	}
	rte_errno = 0;
	assert_int_equal(opa16b_vnic_encap_burst(pkts, 8, fs), 5);
	assert_int_equal(rte_errno, EINVAL);
	assert_int_equal(pkts[5]->pkt_len, 10);
	assert_int_equal(pkts[6]->pkt_len, 64);
	assert_int_equal(opa16b_vnic_encap_burst_same(&pkts[6], 2, &fs[0]), 2);
	/* pkts[5] is a bare 10-byte frame: truncated; corrupt pkts[1]'s L4 */
	rte_pktmbuf_mtod(pkts[1], uint8_t *)[8] = 0x77;
	assert_int_equal(opa16b_vnic_decap_burst(pkts, 8, 1500, vesw, &st), 6);
	assert_int_equal(st.packets, 6);
	assert_int_equal(st.bytes, 6 * 64);
	assert_int_equal(st.errors[OPA16B_VNIC_RX_BAD_L4], 1);
	assert_int_equal(st.errors[OPA16B_VNIC_RX_TRUNCATED], 1);
	{
		const uint16_t expect_vesw[6] = { 100, 102, 103, 104, 100, 100 };
		const uint8_t expect_fill[6] = { 0, 2, 3, 4, 6, 7 };

		for (i = 0; i < 6; i++) {
			assert_int_equal(vesw[i], expect_vesw[i]);
			assert_int_equal(rte_pktmbuf_mtod(pkts[i], uint8_t *)[0], expect_fill[i]);
		}
	}
	rte_pktmbuf_free_bulk(pkts, 6);
	assert_int_equal(rte_mempool_avail_count(test_pool), avail);
}

/* Frames cross a net_ring "wire" as 16B packets: encap, tx, rx, decap. */
static void
test_net_ring_wire(void **state)
{
	struct rte_eth_conf conf = { 0 };
	struct rte_mbuf *tx[32], *rx[32];
	struct opa16b_vnic_rx_stats st = { 0 };
	uint16_t port, vesw[32], n, i;
	uint8_t frame[1514], out[1600];

	(void)state;
	assert_int_equal(rte_vdev_init("net_ring_wire0", NULL), 0);
	assert_int_equal(rte_eth_dev_get_port_by_name("net_ring_wire0", &port), 0);
	assert_int_equal(rte_eth_dev_configure(port, 1, 1, &conf), 0);
	assert_int_equal(rte_eth_rx_queue_setup(port, 0, 64, SOCKET_ID_ANY, NULL, test_pool), 0);
	assert_int_equal(rte_eth_tx_queue_setup(port, 0, 64, SOCKET_ID_ANY, NULL), 0);
	assert_int_equal(rte_eth_dev_start(port), 0);

	for (i = 0; i < 32; i++) {
		uint32_t len = 60 + i * 45;

		memset(frame, 0xA0 + i, sizeof(frame));
		tx[i] = chain_of(test_pool, frame, len, 0);
	}
	assert_int_equal(opa16b_vnic_encap_burst_same(tx, 32, &opa16b_tv3.f), 32);
	assert_int_equal(rte_eth_tx_burst(port, 0, tx, 32), 32);
	n = rte_eth_rx_burst(port, 0, rx, 32);
	assert_int_equal(n, 32);
	assert_int_equal(opa16b_vnic_decap_burst(rx, n, 1500, vesw, &st), 32);
	for (i = 0; i < 32; i++) {
		memset(frame, 0xA0 + i, sizeof(frame));
		assert_int_equal(flatten(rx[i], out, sizeof(out)), 60 + i * 45);
		assert_memory_equal(out, frame, 60 + i * 45);
		assert_int_equal(vesw[i], 0xFFF);
	}
	rte_pktmbuf_free_bulk(rx, 32);
	assert_int_equal(rte_eth_dev_stop(port), 0);
	assert_int_equal(rte_eth_dev_close(port), 0);
	assert_int_equal(rte_vdev_uninit("net_ring_wire0"), 0);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors_mbuf_byte_exact),
		cmocka_unit_test(test_random_roundtrip_mbuf),
		cmocka_unit_test(test_decap_split_header_and_trailer),
		cmocka_unit_test(test_strip_refuses_too_much),
		cmocka_unit_test(test_encap_refuses_shared_buffers),
		cmocka_unit_test(test_decap_rejection_leaves_mbuf_unchanged),
		cmocka_unit_test(test_encap_refusals_leave_mbuf_unchanged),
		cmocka_unit_test(test_bursts),
		cmocka_unit_test(test_net_ring_wire),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests_name("opa16b_mbuf", tests, test_eal_setup,
					   test_eal_teardown);
}
