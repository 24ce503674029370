/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* net_opa_vnic transmit side over net_hfi1's model: back-pressure from a
 * full fabric queue, and buffers the VNIC may not write into. */

#include "opa_vnic_test_util.h"
#include "test_case.h"

/* What the caller knows of an mbuf before handing it to tx_burst. */
struct mbuf_snap {
	struct rte_mbuf *m;
	uint16_t data_off, data_len, nb_segs, refcnt;
	uint32_t pkt_len;
	uint32_t seq;
};

static void
snap_take(struct mbuf_snap *s, struct rte_mbuf *m, uint32_t seq)
{
	s->m = m;
	s->data_off = m->data_off;
	s->data_len = m->data_len;
	s->nb_segs = m->nb_segs;
	s->refcnt = rte_mbuf_refcnt_read(m);
	s->pkt_len = m->pkt_len;
	s->seq = seq;
}

/* @m is the very mbuf of @s, untouched: same layout, same frame. */
static void
snap_check(const struct mbuf_snap *s, struct rte_mbuf *m, const struct rte_ether_addr *dst,
	   const struct rte_ether_addr *src)
{
	assert_ptr_equal(m, s->m);
	assert_int_equal(m->data_off, s->data_off);
	assert_int_equal(m->data_len, s->data_len);
	assert_int_equal(m->pkt_len, s->pkt_len);
	assert_int_equal(m->nb_segs, s->nb_segs);
	assert_int_equal(rte_mbuf_refcnt_read(m), s->refcnt);
	assert_true(frame_is_from(m, s->pkt_len, dst, src, s->seq));
}

/*
 * Read VNIC packets on B until @want came (or VT_WAIT_MS passed), then
 * 20 ms more: each must be the frame with the next seq from *@next (60 +
 * seq % 40 bytes), decapsulated whole. Returns how many came.
 */
static unsigned int
peer_drain_in_order(struct vtopo *t, const struct rte_ether_addr *dst,
		    const struct rte_ether_addr *src, uint32_t *next, unsigned int want)
{
	uint64_t hz = rte_get_timer_hz(), start = rte_get_timer_cycles();
	uint64_t end = start + hz * VT_WAIT_MS / 1000;
	unsigned int n = 0;

	for (;;) {
		struct rte_mbuf *r[64];
		uint16_t got = peer_rx(t, r, RTE_DIM(r)), i;
		uint64_t now = rte_get_timer_cycles();

		if (n == want && end > now + hz / 50)
			end = now + hz / 50;	/* all here: 20 ms to see no more */
		if (got == 0 && now >= end)
			break;
		for (i = 0; i < got; i++) {
			uint8_t hdr[OPA16B_VNIC_HDR_LEN];
			const uint8_t *h = rte_pktmbuf_read(r[i], 0, sizeof(hdr), hdr);
			uint16_t vesw;

			if (h != NULL && opa16b_get_l4(h) == OPA16B_L4_FM) {
				rte_pktmbuf_free(r[i]);
				continue;
			}
			assert_int_equal(opa16b_vnic_decap(r[i], VNIC_ETH_MTU_MAX, &vesw),
					 OPA16B_VNIC_RX_OK);
			if (!frame_is_from(r[i], 60 + *next % 40, dst, src, *next))
				fail_msg("frame %u: not the one expected next", *next);
			(*next)++;
			n++;
			rte_pktmbuf_free(r[i]);
		}
	}
	return n;
}

/*
 * TX back-pressure (engines=1: one fabric queue, one order). B stops
 * reading, so the model's wire and then the fabric queue's descriptors
 * fill: rte_eth_tx_burst returns fewer, and the frames it did not take
 * come back after the taken ones, in order, each the caller's own mbuf
 * unchanged (same pointer, layout, length and bytes, no 16B header or
 * trailer left on it), counted as tx_requeued and not as sent; a shared
 * mbuf, a chain and a short frame (padded on the wire) come back the same
 * way. Once B reads again, resending them works and B gets every frame
 * exactly once, in order.
 */
static void
test_tx_backpressure_returns_unsent_unchanged(void **state)
{
	struct vtopo_opts o = { .vnic_extra = "engines=1" };
	struct rte_ether_addr src, dst = peer_lmac(10);
	static struct mbuf_snap snap[64];
	struct rte_mbuf *pkts[64], *extra[3];
	struct mbuf_snap esnap[3];
	uint32_t seq = 0, next = 0;
	unsigned int burst, i, k = 64, unsent, recvd;
	uint64_t requeued;
	struct vtopo t;

	(void)state;
	vtopo_create_opts(&t, 1, 1, &o);
	vtopo_forward_all(&t, 1500);
	src = port_mac(t.vp[0]);
	requeued = xstat(t.vp[0], "tx_requeued");

	for (burst = 0; burst < 200 && k == 64; burst++) {
		for (i = 0; i < 64; i++) {
			pkts[i] = eth_mbuf(60 + (seq + i) % 40, &dst, &src, seq + i);
			snap_take(&snap[i], pkts[i], seq + i);
		}
		k = rte_eth_tx_burst(t.vp[0], 0, pkts, 64);
		seq += k;
	}
	assert_true(k < 64);	/* the fabric pushed back */
	unsent = 64 - k;
	for (i = 0; i < unsent; i++)
		snap_check(&snap[k + i], pkts[k + i], &dst, &src);
	assert_int_equal(xstat(t.vp[0], "tx_requeued") - requeued, unsent);
	assert_int_equal(xstat(t.vp[0], "tx_unicast"), seq);
	assert_int_equal(xstat(t.vp[0], "vnic_tx_errors"), 0);

	/* a shared mbuf, a chain and a 42-byte frame: refused, unchanged */
	extra[0] = eth_mbuf(90, &dst, &src, 90000);
	rte_mbuf_refcnt_update(extra[0], 1);
	extra[1] = eth_chain(test_small_pool, 100, 300, &dst, &src, 90001);
	extra[2] = eth_mbuf(42, &dst, &src, 90002);
	for (i = 0; i < 3; i++)
		snap_take(&esnap[i], extra[i], 90000 + i);
	assert_int_equal(rte_eth_tx_burst(t.vp[0], 0, extra, 3), 0);
	for (i = 0; i < 3; i++)
		snap_check(&esnap[i], extra[i], &dst, &src);
	assert_int_equal(rte_mbuf_refcnt_read(extra[0]), 2);
	rte_mbuf_refcnt_update(extra[0], -1);
	rte_pktmbuf_free_bulk(extra, 3);
	assert_int_equal(xstat(t.vp[0], "tx_unicast"), seq);

	/* B reads: what was taken arrives in order, nothing else */
	recvd = peer_drain_in_order(&t, &dst, &src, &next, seq);
	assert_int_equal(recvd, seq);
	/* the caller resends what came back */
	send_all(t.vp[0], 0, pkts + k, (uint16_t)unsent);
	recvd = peer_drain_in_order(&t, &dst, &src, &next, unsent);
	assert_int_equal(recvd, unsent);
	assert_int_equal(next, seq + unsent);
	assert_int_equal(xstat(t.vp[0], "tx_unicast"), seq + unsent);
	vtopo_destroy(&t);
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);
	assert_int_equal(rte_mempool_avail_count(test_small_pool), TEST_POOL_SIZE);
}

/* Fill everything around @m's data in its buffer with 0xEE. */
static void
buf_mark(struct rte_mbuf *m)
{
	uint8_t *b = m->buf_addr;

	memset(b, 0xEE, m->data_off);
	memset(b + m->data_off + m->data_len, 0xEE, m->buf_len - m->data_off - m->data_len);
}

/* Expect one frame at B and check it (any DLID), freeing it. */
static void
peer_expect_frame(struct vtopo *t, uint32_t len, const struct rte_ether_addr *dst,
		  const struct rte_ether_addr *src, uint32_t seq)
{
	struct rte_mbuf *r;
	uint16_t vesw;

	assert_int_equal(peer_recv(t, &r, 1, VT_WAIT_MS), 1);
	assert_int_equal(opa16b_vnic_decap(r, VNIC_ETH_MTU_MAX, &vesw), OPA16B_VNIC_RX_OK);
	assert_int_equal(vesw, 10);
	assert_true(frame_is_from(r, len, dst, src, seq));
	rte_pktmbuf_free(r);
}

/*
 * Shared buffers are copied, never written: a frame whose mbuf has refcnt
 * 2, or an indirect clone of another mbuf, is sent from a copy (xstat
 * tx_encap_copies counts it) and the caller's other reference still holds
 * the original frame, its buffer untouched byte for byte (no header in the
 * headroom, no pad or tail after the data). A frame with no headroom is
 * copied too; a plain mbuf is encapsulated in place (no copy counted).
 */
static void
test_tx_shared_buffers_copied(void **state)
{
	static uint8_t before[TEST_MBUF_DATA_ROOM];
	struct rte_ether_addr src, dst = peer_lmac(10);
	struct rte_mbuf *m, *c;
	uint64_t copies;
	struct vtopo t;

	(void)state;
	vtopo_create(&t, 1, 1, "");
	vtopo_forward_all(&t, 1500);
	src = port_mac(t.vp[0]);
	copies = xstat(t.vp[0], "tx_encap_copies");

	/* refcnt 2 */
	m = eth_mbuf(100, &dst, &src, 1);
	buf_mark(m);
	memcpy(before, m->buf_addr, m->buf_len);
	rte_mbuf_refcnt_update(m, 1);
	c = m;
	assert_int_equal(rte_eth_tx_burst(t.vp[0], 0, &c, 1), 1);
	peer_expect_frame(&t, 100, &dst, &src, 1);
	assert_int_equal(rte_mbuf_refcnt_read(m), 1);
	assert_int_equal(m->data_len, 100);
	assert_int_equal(m->pkt_len, 100);
	assert_memory_equal(m->buf_addr, before, m->buf_len);
	assert_int_equal(xstat(t.vp[0], "tx_encap_copies"), copies + 1);

	/* an indirect clone of m */
	c = rte_pktmbuf_clone(m, test_pool);
	assert_non_null(c);
	assert_int_equal(rte_mbuf_refcnt_read(m), 2);
	assert_int_equal(rte_eth_tx_burst(t.vp[0], 0, &c, 1), 1);
	peer_expect_frame(&t, 100, &dst, &src, 1);
	assert_int_equal(rte_mbuf_refcnt_read(m), 1);
	assert_memory_equal(m->buf_addr, before, m->buf_len);
	assert_int_equal(xstat(t.vp[0], "tx_encap_copies"), copies + 2);
	rte_pktmbuf_free(m);

	/* no headroom for the 16B header */
	m = rte_pktmbuf_alloc(test_pool);
	assert_non_null(m);
	m->data_off = 0;
	eth_fill(rte_pktmbuf_mtod(m, uint8_t *), 80, &dst, &src, 2);
	m->data_len = 80;
	m->pkt_len = 80;
	assert_int_equal(rte_eth_tx_burst(t.vp[0], 0, &m, 1), 1);
	peer_expect_frame(&t, 80, &dst, &src, 2);
	assert_int_equal(xstat(t.vp[0], "tx_encap_copies"), copies + 3);

	/* a plain mbuf: in place */
	m = eth_mbuf(80, &dst, &src, 3);
	assert_int_equal(rte_eth_tx_burst(t.vp[0], 0, &m, 1), 1);
	peer_expect_frame(&t, 80, &dst, &src, 3);
	assert_int_equal(xstat(t.vp[0], "tx_encap_copies"), copies + 3);
	assert_int_equal(xstat(t.vp[0], "tx_encap_failed"), 0);
	vtopo_destroy(&t);
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);
}

/*
 * Short frames: a 42-byte frame is zero-padded to 60 bytes on the wire
 * (B decapsulates 60 bytes: the frame, then zeros) and counted as one
 * frame of the 64-byte bucket; a 10-byte "frame", shorter than an
 * Ethernet header, cannot be encapsulated: it is consumed, counted
 * (tx_encap_failed, and as a TX error), and nothing reaches B.
 */
static void
test_tx_short_frames(void **state)
{
	struct rte_ether_addr src, dst = peer_lmac(10);
	uint8_t want[60], got[60];
	struct rte_mbuf *m, *r;
	uint16_t vesw;
	struct vtopo t;

	(void)state;
	vtopo_create(&t, 1, 1, "");
	vtopo_forward_all(&t, 1500);
	src = port_mac(t.vp[0]);
	m = eth_mbuf(42, &dst, &src, 5);
	memset(want, 0, sizeof(want));
	memcpy(want, rte_pktmbuf_mtod(m, void *), 42);
	assert_int_equal(rte_eth_tx_burst(t.vp[0], 0, &m, 1), 1);
	assert_int_equal(peer_recv(&t, &r, 1, VT_WAIT_MS), 1);
	assert_int_equal(opa16b_vnic_decap(r, VNIC_ETH_MTU_MAX, &vesw), OPA16B_VNIC_RX_OK);
	assert_int_equal(r->pkt_len, 60);
	assert_memory_equal(rte_pktmbuf_read(r, 0, 60, got), want, 60);
	rte_pktmbuf_free(r);
	assert_int_equal(xstat(t.vp[0], "tx_64_size"), 1);
	assert_int_equal(xstat(t.vp[0], "tx_unicast"), 1);

	m = eth_mbuf(10, &dst, &src, 6);
	assert_int_equal(rte_eth_tx_burst(t.vp[0], 0, &m, 1), 1);
	assert_int_equal(xstat(t.vp[0], "tx_encap_failed"), 1);
	assert_int_equal(xstat(t.vp[0], "vnic_tx_errors"), 1);
	assert_int_equal(xstat(t.vp[0], "tx_unicast"), 1);
	peer_recv_none(&t, 20);
	vtopo_destroy(&t);
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		vnic_test(test_tx_backpressure_returns_unsent_unchanged),
		vnic_test(test_tx_shared_buffers_copied),
		vnic_test(test_tx_short_frames),
	};

	/* one case: argv[1] names it (a cmocka glob) */
	test_case_filter(argc, argv);
	return cmocka_run_group_tests(tests, test_eal_setup, test_eal_teardown);
}
