/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * lib/common's mbuf walk (omni_mbuf.h) on real chains: every offset and
 * length over chains of several segment sizes (empty segments included),
 * against the flat bytes the chain was built from.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_mbuf.h>

#include "mbuf_test_util.h"
#include "omni_mbuf.h"
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
				assert_memory_equal(out, flat + off, want);
				memset(out, 0, sizeof(out));
				assert_int_equal(omni_mbuf_copy_out(m, off, out, len), want);
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

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_span_pieces_cover_the_range),
		cmocka_unit_test(test_span_skips_empty_segments),
		cmocka_unit_test(test_copy_in_overwrites_in_place),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name("common_mbuf", tests, test_eal_setup,
					   test_eal_teardown);
}
