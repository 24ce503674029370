/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * net_e4 chains without EAL (base/ecore_chain.h): the geometry of NEXT_PTR,
 * PBL and SINGLE chains and their u16 index arithmetic, which the device
 * copies: next-pointer slots skipped at page ends, the page tracked beside
 * the index across u16 wraps, used/left counts.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ecore_chain.h"
#include "test_case.h"

/* NEXT_PTR with 8 B elements: 512 slots a page, the last 2 are the next pointer. */
static void
test_next_ptr_geometry(void **state)
{
	struct ecore_chain c;

	(void)state;
	assert_int_equal(ecore_chain_geometry(&c, ECORE_CHAIN_MODE_NEXT_PTR, 8, 1020), 0);
	assert_int_equal(c.elem_per_page, 512);
	assert_int_equal(c.elem_unusable, 2);
	assert_int_equal(c.usable_per_page, 510);
	assert_int_equal(c.page_cnt, 2);
	assert_int_equal(c.capacity, 1020);
	/* one more element takes a third page */
	assert_int_equal(ecore_chain_geometry(&c, ECORE_CHAIN_MODE_NEXT_PTR, 8, 1021), 0);
	assert_int_equal(c.page_cnt, 3);
	/* 32 B elements (Rx CQE size): one slot is the pointer */
	assert_int_equal(ecore_chain_geometry(&c, ECORE_CHAIN_MODE_NEXT_PTR, 32, 127), 0);
	assert_int_equal(c.elem_per_page, 128);
	assert_int_equal(c.elem_unusable, 1);
	assert_int_equal(c.capacity, 127);
}

/* The producer skips the two pointer slots at each page end. */
static void
test_next_ptr_skips(void **state)
{
	struct ecore_chain c;
	uint32_t i, slot;

	(void)state;
	assert_int_equal(ecore_chain_geometry(&c, ECORE_CHAIN_MODE_NEXT_PTR, 8, 1020), 0);
	for (i = 0; i < 510; i++) {
		slot = ecore_chain_produce_idx(&c);
		assert_int_equal(slot, i);
	}
	/* index 510 and 511 are the next pointer: the producer is at page 1 now */
	assert_int_equal(c.prod_idx, 512);
	assert_int_equal(c.prod_page, 1);
	assert_int_equal(ecore_chain_get_elem_used(&c), 510);
	slot = ecore_chain_produce_idx(&c);
	assert_int_equal(slot, 512);	/* page 1, slot 0 */
	for (i = 1; i < 510; i++)
		ecore_chain_produce_idx(&c);
	/* 1020 produced: full; the index went on to 1024, the page back to 0 */
	assert_int_equal(c.prod_idx, 1024);
	assert_int_equal(c.prod_page, 0);
	assert_int_equal(ecore_chain_get_elem_used(&c), 1020);
	assert_int_equal(ecore_chain_get_elem_left(&c), 0);
	/* consuming follows the same path */
	for (i = 0; i < 511; i++)
		ecore_chain_consume_idx(&c);
	assert_int_equal(c.cons_idx, 513);
	assert_int_equal(c.cons_page, 1);
	assert_int_equal(ecore_chain_get_elem_used(&c), 509);
	assert_int_equal(ecore_chain_get_elem_left(&c), 511);
}

/*
 * Many laps with 3 pages (3 does not divide the 128 pages of the u16 index
 * space): each produced slot is the expected page and slot, indices never
 * land on a pointer slot, and the counts hold across u16 wraps.
 */
static void
test_next_ptr_u16_wrap(void **state)
{
	struct ecore_chain c;
	uint32_t n, consumed = 0, slot, expect, wraps = 0;
	uint16_t last = 0;

	(void)state;
	assert_int_equal(ecore_chain_geometry(&c, ECORE_CHAIN_MODE_NEXT_PTR, 8, 1530), 0);
	assert_int_equal(c.page_cnt, 3);
	for (n = 0; n < 300000; n++) {
		expect = (n / 510 % 3) * 512 + n % 510;
		slot = ecore_chain_produce_idx(&c);
		assert_int_equal(slot, expect);
		assert_true((c.prod_idx & 511) < 510);
		if (c.prod_idx < last)
			wraps++;
		last = c.prod_idx;
		/* keep 700 in flight: more than a page, less than the ring */
		if (n >= 700) {
			expect = (consumed / 510 % 3) * 512 + consumed % 510;
			assert_int_equal(ecore_chain_consume_idx(&c), expect);
			consumed++;
		}
		assert_int_equal(ecore_chain_get_elem_used(&c), n + 1 - consumed);
	}
	assert_true(wraps >= 4);
	assert_int_equal(ecore_chain_get_elem_left(&c), 1530 - 700);
}

/* PBL: no slot lost; the index is the count mod 2^16. */
static void
test_pbl(void **state)
{
	struct ecore_chain c;
	uint32_t n;

	(void)state;
	/* Rx CQEs: 32 B, 128 a page */
	assert_int_equal(ecore_chain_geometry(&c, ECORE_CHAIN_MODE_PBL, 32, 500), 0);
	assert_int_equal(c.elem_per_page, 128);
	assert_int_equal(c.elem_unusable, 0);
	assert_int_equal(c.page_cnt, 4);
	assert_int_equal(c.capacity, 512);
	for (n = 0; n < 70000; n++) {
		assert_int_equal(ecore_chain_produce_idx(&c), n % 512);
		assert_int_equal(c.prod_idx, (n + 1) & 0xffff);
		if (n >= 511)
			assert_int_equal(ecore_chain_consume_idx(&c), (n - 511) % 512);
	}
	assert_int_equal(ecore_chain_get_elem_used(&c), 511);
	assert_int_equal(ecore_chain_get_elem_left(&c), 1);
	/* EQ: 16 B, 256 a page */
	assert_int_equal(ecore_chain_geometry(&c, ECORE_CHAIN_MODE_PBL, 16, 256), 0);
	assert_int_equal(c.page_cnt, 1);
	assert_int_equal(c.capacity, 256);
}

/* SINGLE: one page; a bigger ring or bad sizes are refused. */
static void
test_single_and_refusals(void **state)
{
	struct ecore_chain c;
	uint32_t n;

	(void)state;
	assert_int_equal(ecore_chain_geometry(&c, ECORE_CHAIN_MODE_SINGLE, 16, 256), 0);
	assert_int_equal(c.page_cnt, 1);
	assert_int_equal(c.capacity, 256);
	for (n = 0; n < 256; n++)
		assert_int_equal(ecore_chain_produce_idx(&c), n);
	assert_int_equal(c.prod_page, 0);
	assert_int_equal(ecore_chain_get_elem_left(&c), 0);
	assert_int_equal(ecore_chain_produce_idx(&c), 0);	/* the ring goes round */
	ecore_chain_reset(&c);
	assert_int_equal(c.prod_idx, 0);
	assert_int_equal(ecore_chain_get_elem_used(&c), 0);

	assert_int_equal(ecore_chain_geometry(&c, ECORE_CHAIN_MODE_SINGLE, 16, 257), ECORE_INVAL);
	assert_int_equal(ecore_chain_geometry(&c, ECORE_CHAIN_MODE_PBL, 0, 10), ECORE_INVAL);
	assert_int_equal(ecore_chain_geometry(&c, ECORE_CHAIN_MODE_PBL, 8192, 1), ECORE_INVAL);
	assert_int_equal(ecore_chain_geometry(&c, ECORE_CHAIN_MODE_PBL, 8, 0), ECORE_INVAL);
	/* capacity above half the u16 space: used/left would be ambiguous */
	assert_int_equal(ecore_chain_geometry(&c, ECORE_CHAIN_MODE_PBL, 8, 40000), ECORE_INVAL);
	assert_int_equal(ecore_chain_geometry(&c, ECORE_CHAIN_MODE_PBL, 8, 32768), 0);
	/* a pointer as big as the page */
	assert_int_equal(ecore_chain_geometry(&c, ECORE_CHAIN_MODE_NEXT_PTR, 4096, 1),
			 ECORE_INVAL);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_next_ptr_geometry),
		cmocka_unit_test(test_next_ptr_skips),
		cmocka_unit_test(test_next_ptr_u16_wrap),
		cmocka_unit_test(test_pbl),
		cmocka_unit_test(test_single_and_refusals),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
