/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * lib/common's mbuf walk (omni_mbuf.h) on real chains: every offset and
 * length over chains of several segment sizes (empty segments included),
 * against the flat bytes the chain was built from. And the exit path's
 * helpers (omni_port.h) on real ports (net_null vdevs) and a real pool.
 */

#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_bus_vdev.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "mbuf_test_util.h"
#include "omni_mbuf.h"
#include "omni_port.h"
#include "test_case.h"
#include "test_eal.h"

#define FLAT_LEN 700

static uint8_t flat[FLAT_LEN];

static void
fill_flat(void)
{
	unsigned int i;

	for (i = 0; i < FLAT_LEN; i++)
		flat[i] = (uint8_t)(i * 7 + 3);
}

/* The span yields [off, off + len) clipped to the chain, in order, no empty piece. */
static void
test_span_pieces_cover_the_range(void **state)
{
	const uint32_t segs[] = { 0, 1, 13, 64, 256 };
	uint8_t out[FLAT_LEN];
	unsigned int s;

	(void)state;
	fill_flat();
	for (s = 0; s < RTE_DIM(segs); s++) {
		struct rte_mempool *pool = segs[s] != 0 && segs[s] <= 256 ? test_small_pool :
									    test_pool;
		struct rte_mbuf *m = chain_of(pool, flat, FLAT_LEN, segs[s]);
		uint32_t off, len;

		for (off = 0; off <= FLAT_LEN + 3; off += 37) {
			for (len = 0; len <= FLAT_LEN + 10; len += 53) {
				uint32_t want = off >= FLAT_LEN ? 0 : RTE_MIN(len, FLAT_LEN - off);
				struct omni_mbuf_span sp;
				const uint8_t *p;
				uint32_t n, got = 0;

				omni_mbuf_span_init(&sp, m, off, len);
				while ((n = omni_mbuf_span_next(&sp, &p)) > 0) {
					assert_true(got + n <= want);
					memcpy(out + got, p, n);
					got += n;
				}
				assert_int_equal(got, want);
				if (want > 0)
					assert_memory_equal(out, flat + off, want);
				memset(out, 0, sizeof(out));
				assert_int_equal(omni_mbuf_copy_out(m, off, out, len), want);
				if (want > 0)
					assert_memory_equal(out, flat + off, want);
			}
		}
		rte_pktmbuf_free(m);
	}
}

/* An empty segment in the middle of a chain is stepped over. */
static void
test_span_skips_empty_segments(void **state)
{
	struct rte_mbuf *a = chain_of(test_pool, flat, 10, 0);
	struct rte_mbuf *empty = rte_pktmbuf_alloc(test_pool);
	struct rte_mbuf *b = chain_of(test_pool, flat + 10, 10, 0);
	uint8_t out[20];

	(void)state;
	fill_flat();
	memcpy(rte_pktmbuf_mtod(a, uint8_t *), flat, 10);
	memcpy(rte_pktmbuf_mtod(b, uint8_t *), flat + 10, 10);
	assert_non_null(empty);
	assert_int_equal(rte_pktmbuf_chain(a, empty), 0);
	assert_int_equal(rte_pktmbuf_chain(a, b), 0);
	assert_int_equal(omni_mbuf_copy_out(a, 5, out, 15), 15);
	assert_memory_equal(out, flat + 5, 15);
	/* an offset exactly at the empty segment's place */
	assert_int_equal(omni_mbuf_copy_out(a, 10, out, 10), 10);
	assert_memory_equal(out, flat + 10, 10);
	rte_pktmbuf_free(a);
}

/* copy_in writes over the chain's data at any offset and changes no length. */
static void
test_copy_in_overwrites_in_place(void **state)
{
	uint8_t src[FLAT_LEN], out[FLAT_LEN];
	struct rte_mbuf *m;
	unsigned int i;

	(void)state;
	fill_flat();
	for (i = 0; i < FLAT_LEN; i++)
		src[i] = (uint8_t)~flat[i];
	m = chain_of(test_small_pool, flat, FLAT_LEN, 100);
	assert_int_equal(omni_mbuf_copy_in(m, 150, src, 300), 300);
	assert_int_equal(m->pkt_len, FLAT_LEN);
	assert_int_equal(omni_mbuf_copy_out(m, 0, out, FLAT_LEN), FLAT_LEN);
	assert_memory_equal(out, flat, 150);
	assert_memory_equal(out + 150, src, 300);
	assert_memory_equal(out + 450, flat + 450, FLAT_LEN - 450);
	/* past the end: only what the chain holds */
	assert_int_equal(omni_mbuf_copy_in(m, FLAT_LEN - 5, src, 50), 5);
	assert_int_equal(m->pkt_len, FLAT_LEN);
	rte_pktmbuf_free(m);
}

/* A net_null port named @p name, configured and (when @p start) started. */
static uint16_t
null_port(const char *name, bool start)
{
	struct rte_eth_conf conf;
	uint16_t port;

	memset(&conf, 0, sizeof(conf));
	assert_int_equal(rte_vdev_init(name, NULL), 0);
	assert_int_equal(rte_eth_dev_get_port_by_name(name, &port), 0);
	assert_int_equal(rte_eth_dev_configure(port, 1, 1, &conf), 0);
	assert_int_equal(rte_eth_rx_queue_setup(port, 0, 64, SOCKET_ID_ANY, NULL, test_pool), 0);
	assert_int_equal(rte_eth_tx_queue_setup(port, 0, 64, SOCKET_ID_ANY, NULL), 0);
	if (start)
		assert_int_equal(rte_eth_dev_start(port), 0);
	return port;
}

/*
 * omni_port_close() stops a started port before closing it (ethdev refuses
 * to close a started one) and closes a stopped one; omni_ports_close_all()
 * leaves no port behind, started or not.
 */
static void
test_port_close(void **state)
{
	uint16_t a, b, c;

	(void)state;
	a = null_port("net_null_omni0", true);
	omni_port_close(a, true);
	assert_false(rte_eth_dev_is_valid_port(a));
	b = null_port("net_null_omni1", false);
	omni_port_close(b, false);
	assert_false(rte_eth_dev_is_valid_port(b));
	/* an id no longer valid does nothing */
	omni_port_close(b, true);
	b = null_port("net_null_omni2", true);
	c = null_port("net_null_omni3", false);
	omni_ports_close_all();
	assert_false(rte_eth_dev_is_valid_port(b));
	assert_false(rte_eth_dev_is_valid_port(c));
	assert_int_equal(rte_eth_dev_count_avail(), 0);
	assert_int_equal(rte_vdev_uninit("net_null_omni0"), 0);
	assert_int_equal(rte_vdev_uninit("net_null_omni1"), 0);
	assert_int_equal(rte_vdev_uninit("net_null_omni2"), 0);
	assert_int_equal(rte_vdev_uninit("net_null_omni3"), 0);
}

/* omni_pool_release() is false only when it reports and an mbuf is missing. */
static void
test_pool_release(void **state)
{
	struct rte_mempool *p;
	struct rte_mbuf *m;

	(void)state;
	assert_true(omni_pool_release(NULL, 8, true));
	p = rte_pktmbuf_pool_create("omni_rel0", 8, 0, 0, 256, SOCKET_ID_ANY);
	assert_non_null(p);
	m = rte_pktmbuf_alloc(p);
	assert_non_null(m);
	rte_pktmbuf_free(m);
	assert_true(omni_pool_release(p, 8, true));
	p = rte_pktmbuf_pool_create("omni_rel1", 8, 0, 0, 256, SOCKET_ID_ANY);
	assert_non_null(p);
	assert_non_null(rte_pktmbuf_alloc(p));
	assert_false(omni_pool_release(p, 8, true));
	p = rte_pktmbuf_pool_create("omni_rel2", 8, 0, 0, 256, SOCKET_ID_ANY);
	assert_non_null(p);
	assert_non_null(rte_pktmbuf_alloc(p));
	/* an exit path that already failed: no check, the pool is still freed */
	assert_true(omni_pool_release(p, 8, false));
	assert_null(rte_mempool_lookup("omni_rel2"));
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_span_pieces_cover_the_range),
		cmocka_unit_test(test_span_skips_empty_segments),
		cmocka_unit_test(test_copy_in_overwrites_in_place),
		cmocka_unit_test(test_port_close),
		cmocka_unit_test(test_pool_release),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests_name("common_mbuf", tests, test_eal_setup,
					   test_eal_teardown);
}
