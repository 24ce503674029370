/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _HFI1_TEST_UTIL_H_
#define _HFI1_TEST_UTIL_H_

/* net_hfi1 test helpers: model nodes joined by an in-process ring wire,
 * 16B packet builders, bursts that step until packets arrive. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_bus_vdev.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_memzone.h>

#include "hfi1_ethdev.h"
#include "mbuf_test_util.h"
#include "opa16b.h"
#include "test_eal.h"

/* A model node: a net_hfi1 vdev and its port. */
struct node {
	char name[32];
	uint16_t port;
};

/* Create node @idx on wire @wire with extra devargs @extra ("" for none). */
static inline void
node_create(struct node *n, unsigned int idx, const char *wire,
		const char *extra)
{
	char args[256];

	snprintf(n->name, sizeof(n->name), "net_hfi1_t%u", idx);
	snprintf(args, sizeof(args), "model=1,lid=%u,wire=%s,contexts=8,engines=4%s%s",
			idx + 1, wire, extra[0] ? "," : "", extra);
	assert_int_equal(rte_vdev_init(n->name, args), 0);
	assert_int_equal(rte_eth_dev_get_port_by_name(n->name, &n->port), 0);
}

/* Create a node named @name from complete devargs @args. */
static inline void
node_create_args(struct node *n, const char *name, const char *args)
{
	snprintf(n->name, sizeof(n->name), "%s", name);
	assert_int_equal(rte_vdev_init(n->name, args), 0);
	assert_int_equal(rte_eth_dev_get_port_by_name(n->name, &n->port), 0);
}

/* Configure with @conf and @nrx/@ntx queues of @rxd/@txd descriptors;
 * the port stays stopped. */
static inline void
node_configure_conf(struct node *n, const struct rte_eth_conf *conf,
		uint16_t nrx, uint16_t ntx, uint16_t rxd, uint16_t txd,
		struct rte_mempool *rx_pool)
{
	uint16_t q;

	assert_int_equal(rte_eth_dev_configure(n->port, nrx, ntx, conf), 0);
	for (q = 0; q < nrx; q++)
		assert_int_equal(rte_eth_rx_queue_setup(n->port, q, rxd,
				SOCKET_ID_ANY, NULL, rx_pool), 0);
	for (q = 0; q < ntx; q++)
		assert_int_equal(rte_eth_tx_queue_setup(n->port, q, txd,
				SOCKET_ID_ANY, NULL), 0);
}

/* Configure (multi-segment TX, @rx_offloads) without starting. */
static inline void
node_configure(struct node *n, uint16_t nrx, uint16_t ntx, uint16_t rxd,
		uint16_t txd, struct rte_mempool *rx_pool, uint64_t rx_offloads)
{
	struct rte_eth_conf conf = { .rxmode = { .offloads = rx_offloads } };

	conf.txmode.offloads = RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	node_configure_conf(n, &conf, nrx, ntx, rxd, txd, rx_pool);
}

/* Configure and start with @nrx/@ntx queues of @rxd/@txd descriptors. */
static inline void
node_start(struct node *n, uint16_t nrx, uint16_t ntx, uint16_t rxd,
		uint16_t txd, struct rte_mempool *rx_pool, uint64_t rx_offloads)
{
	node_configure(n, nrx, ntx, rxd, txd, rx_pool, rx_offloads);
	assert_int_equal(rte_eth_dev_start(n->port), 0);
}

static inline void
node_destroy(struct node *n)
{
	rte_eth_dev_stop(n->port);
	assert_int_equal(rte_vdev_uninit(n->name), 0);
}

/* cmocka teardown: a failed test leaves its nodes; remove them so the
 * next test can make its own. */
static inline int
nodes_cleanup(void **state)
{
	char name[32];
	unsigned int i;

	(void)state;
	for (i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "net_hfi1_t%u", i);
		rte_vdev_uninit(name);
	}
	rte_vdev_uninit("net_hfi1_bad");
	return 0;
}

/* A test with nodes_cleanup as its teardown. */
#define hfi1_test(f) cmocka_unit_test_teardown(f, nodes_cleanup)

/* The model behind a node. */
static inline struct hfi1_model *
node_model(const struct node *n)
{
	struct hfi1_model *m = hfi1_port_model(n->port);

	assert_non_null(m);
	return m;
}

static inline struct hfi1_model_stats
node_model_stats(const struct node *n)
{
	struct hfi1_model_stats st;

	hfi1_model_stats_get(node_model(n), &st);
	return st;
}

/* The port of a node's wire (a net_ring port in these tests). */
static inline uint16_t
node_wire_port(const struct node *n)
{
	int p = hfi1_model_wire_port(node_model(n));

	assert_true(p >= 0);
	return (uint16_t)p;
}

static inline struct rte_eth_stats
port_stats(uint16_t port)
{
	struct rte_eth_stats st;

	assert_int_equal(rte_eth_stats_get(port, &st), 0);
	return st;
}

static inline void
memzone_count_one(const struct rte_memzone *mz, void *arg)
{
	/* ethdev reserves its shared data once and never frees it. */
	if (strcmp(mz->name, "rte_eth_dev_data") != 0)
		(*(unsigned int *)arg)++;
}

/* Memzones in use (ethdev's own shared data left out). */
static inline unsigned int
memzone_count(void)
{
	unsigned int n = 0;

	rte_memzone_walk(memzone_count_one, &n);
	return n;
}

static inline void
mempool_count_one(struct rte_mempool *mp __rte_unused, void *arg)
{
	(*(unsigned int *)arg)++;
}

static inline unsigned int
mempool_count(void)
{
	unsigned int n = 0;

	rte_mempool_walk(mempool_count_one, &n);
	return n;
}

/*
 * Fill buf with a valid 16B packet of len bytes (a multiple of 8, >= 24):
 * L2 16B, Length field, L4 @l4, vesw @vesw (bytes 18-19), entropy,
 * SC 0, and a payload pattern numbered by @seq.
 */
static inline void
pkt16b_fill(uint8_t *buf, uint32_t len, uint8_t l4, uint16_t vesw,
		uint16_t entropy, uint32_t seq)
{
	uint32_t i;

	memset(buf, 0, OPA16B_VNIC_HDR_LEN);
	opa16b_set_slid(buf, 1);
	opa16b_set_dlid(buf, 2);
	opa16b_set_len(buf, (uint16_t)(len / 8));
	opa16b_set_l2(buf, OPA16B_L2_16B);
	opa16b_set_l4(buf, l4);
	opa16b_set_pkey(buf, 0xFFFF);
	opa16b_set_entropy(buf, entropy);
	opa16b_set_vesw_id(buf, vesw);
	for (i = OPA16B_VNIC_HDR_LEN; i < len; i++)
		buf[i] = (uint8_t)(seq * 7 + i);
	if (len >= 4)
		memcpy(buf + OPA16B_VNIC_HDR_LEN, &seq,
				RTE_MIN(sizeof(seq), len - OPA16B_VNIC_HDR_LEN));
}

/* A packet as an mbuf chain of segments of at most @seg bytes (0: one). */
static inline struct rte_mbuf *
pkt16b_mbuf(struct rte_mempool *pool, uint32_t len, uint32_t seg, uint8_t l4,
		uint16_t vesw, uint16_t entropy, uint32_t seq)
{
	static uint8_t buf[16384];

	pkt16b_fill(buf, len, l4, vesw, entropy, seq);
	return chain_of(pool, buf, len, seg);
}

/* True if m holds exactly the packet pkt16b_fill(len, l4, vesw, entropy, seq) makes. */
static inline bool
pkt16b_check(const struct rte_mbuf *m, uint32_t len, uint8_t l4, uint16_t vesw,
		uint16_t entropy, uint32_t seq)
{
	static uint8_t want[16384], got[16384];
	const uint8_t *p;

	if (m->pkt_len != len || len > sizeof(got))
		return false;
	p = rte_pktmbuf_read(m, 0, len, got);
	if (p == NULL)
		return false;
	pkt16b_fill(want, len, l4, vesw, entropy, seq);
	return memcmp(want, p, len) == 0;
}

/* Send all of pkts on (port, q), stepping the peer; asserts progress. */
static inline void
send_all(uint16_t port, uint16_t q, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t sent = 0;
	unsigned int tries = 0;

	while (sent < n) {
		sent += rte_eth_tx_burst(port, q, pkts + sent, n - sent);
		assert_true(++tries < 100000);
	}
}

/* Receive up to @want packets on (port, q), polling at most @polls times. */
static inline uint16_t
recv_some(uint16_t port, uint16_t q, struct rte_mbuf **pkts, uint16_t want,
		unsigned int polls)
{
	uint16_t got = 0;

	while (got < want && polls-- > 0)
		got += rte_eth_rx_burst(port, q, pkts + got, want - got);
	return got;
}

/* Send one packet of @len bytes (segments of @seg, 0: one) on (port, q). */
static inline void
send_pkt(uint16_t port, uint16_t q, struct rte_mempool *pool, uint32_t len,
		uint32_t seg, uint8_t l4, uint16_t vesw, uint16_t entropy,
		uint32_t seq)
{
	struct rte_mbuf *m = pkt16b_mbuf(pool, len, seg, l4, vesw, entropy,
			seq);

	send_all(port, q, &m, 1);
}

/* Receive exactly one packet on (port, q), check it is the one
 * pkt16b_fill(len, l4, vesw, entropy, seq) makes, and free it. */
static inline void
recv_check(uint16_t port, uint16_t q, uint32_t len, uint8_t l4, uint16_t vesw,
		uint16_t entropy, uint32_t seq)
{
	struct rte_mbuf *r[2] = { NULL, NULL };

	assert_int_equal(recv_some(port, q, r, 1, 100), 1);
	assert_true(pkt16b_check(r[0], len, l4, vesw, entropy, seq));
	rte_pktmbuf_free(r[0]);
	/* Nothing more behind it. */
	assert_int_equal(rte_eth_rx_burst(port, q, r, 2), 0);
}

/* Poll (port, q) @polls times: nothing may arrive. */
static inline void
recv_none(uint16_t port, uint16_t q, unsigned int polls)
{
	struct rte_mbuf *r[32];
	uint16_t n = 0;

	while (polls-- > 0 && n == 0)
		n = rte_eth_rx_burst(port, q, r, RTE_DIM(r));
	rte_pktmbuf_free_bulk(r, n);
	assert_int_equal(n, 0);
}

/* Put the raw bytes of a wire packet (test_pool mbuf) on a node's wire,
 * past its PMD and its SDMA engines. */
static inline void
wire_send_raw(const struct node *n, const uint8_t *buf, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(test_pool);

	assert_non_null(m);
	assert_true(len <= rte_pktmbuf_tailroom(m));
	memcpy(rte_pktmbuf_append(m, len), buf, len);
	assert_int_equal(rte_eth_tx_burst(node_wire_port(n), 0, &m, 1), 1);
}

/* An xstat's value by name (asserts it exists). */
static inline uint64_t
xstat(uint16_t port, const char *name)
{
	uint64_t id, v;

	assert_int_equal(rte_eth_xstats_get_id_by_name(port, name, &id), 0);
	assert_int_equal(rte_eth_xstats_get_by_id(port, &id, &v, 1), 1);
	return v;
}

#define VNIC OPA16B_L4_ETHR

/* Two started nodes on wire @wire, one queue each way, 256 descriptors. */
static inline void
pair_up(struct node *a, struct node *b, const char *wire)
{
	node_create(a, 0, wire, "");
	node_create(b, 1, wire, "");
	node_start(a, 1, 1, 256, 256, test_pool, 0);
	node_start(b, 1, 1, 256, 256, test_pool, 0);
}

static inline void
pair_down(struct node *a, struct node *b)
{
	node_destroy(a);
	node_destroy(b);
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);
	assert_int_equal(rte_mempool_avail_count(test_small_pool),
			TEST_POOL_SIZE);
}

#endif /* _HFI1_TEST_UTIL_H_ */
