/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * net_e4's SPQ echo bitmap without EAL (base/ecore_spq.h): completions in any
 * order retire SPQ slots in order; duplicate and unknown echoes are counted
 * and ignored; u16 wrap. And the slow path's wire words (SPQ doorbell, IGU
 * ack) against the facts.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ecore_spq.h"
#include "test_case.h"

static void
test_in_order(void **state)
{
	struct ecore_spq_echo_map m;
	uint16_t e, r, i;

	(void)state;
	ecore_spq_echo_init(&m, 256);
	for (i = 0; i < 3; i++) {
		assert_int_equal(ecore_spq_echo_take(&m, &e), 0);
		assert_int_equal(e, i);
	}
	assert_int_equal(ecore_spq_echo_in_flight(&m), 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(ecore_spq_echo_done(&m, i, &r), ECORE_ECHO_OK);
		assert_int_equal(r, 1);
	}
	assert_int_equal(ecore_spq_echo_in_flight(&m), 0);
	assert_int_equal(m.dup + m.unknown, 0);
}

static void
test_out_of_order(void **state)
{
	struct ecore_spq_echo_map m;
	uint16_t e, r, i;

	(void)state;
	ecore_spq_echo_init(&m, 256);
	for (i = 0; i < 4; i++)
		assert_int_equal(ecore_spq_echo_take(&m, &e), 0);
	/* 2 then 3 first: nothing retires while 0 is out */
	assert_int_equal(ecore_spq_echo_done(&m, 2, &r), ECORE_ECHO_OK);
	assert_int_equal(r, 0);
	assert_int_equal(ecore_spq_echo_done(&m, 3, &r), ECORE_ECHO_OK);
	assert_int_equal(r, 0);
	assert_int_equal(ecore_spq_echo_in_flight(&m), 4);
	/* 0 retires itself only (1 is still out) */
	assert_int_equal(ecore_spq_echo_done(&m, 0, &r), ECORE_ECHO_OK);
	assert_int_equal(r, 1);
	assert_int_equal(m.cons, 1);
	/* 1 retires 1, 2 and 3 */
	assert_int_equal(ecore_spq_echo_done(&m, 1, &r), ECORE_ECHO_OK);
	assert_int_equal(r, 3);
	assert_int_equal(m.cons, 4);
	assert_int_equal(ecore_spq_echo_in_flight(&m), 0);
}

static void
test_duplicate_and_unknown(void **state)
{
	struct ecore_spq_echo_map m;
	uint16_t e, r;

	(void)state;
	ecore_spq_echo_init(&m, 256);
	assert_int_equal(ecore_spq_echo_take(&m, &e), 0);	/* 0 */
	assert_int_equal(ecore_spq_echo_take(&m, &e), 0);	/* 1 */
	assert_int_equal(ecore_spq_echo_done(&m, 1, &r), ECORE_ECHO_OK);
	/* 1 again while 0 holds it back: a duplicate */
	assert_int_equal(ecore_spq_echo_done(&m, 1, &r), ECORE_ECHO_DUP);
	assert_int_equal(r, 0);
	assert_int_equal(m.dup, 1);
	/* never handed out */
	assert_int_equal(ecore_spq_echo_done(&m, 7, &r), ECORE_ECHO_UNKNOWN);
	assert_int_equal(ecore_spq_echo_done(&m, 0xffff, &r), ECORE_ECHO_UNKNOWN);
	assert_int_equal(m.unknown, 2);
	assert_int_equal(ecore_spq_echo_done(&m, 0, &r), ECORE_ECHO_OK);
	assert_int_equal(r, 2);
	/* retired echoes are no longer in flight: unknown, not a duplicate */
	assert_int_equal(ecore_spq_echo_done(&m, 0, &r), ECORE_ECHO_UNKNOWN);
	assert_int_equal(m.unknown, 3);
	assert_int_equal(m.dup, 1);
	assert_int_equal(ecore_spq_echo_in_flight(&m), 0);
}

static void
test_full(void **state)
{
	struct ecore_spq_echo_map m;
	uint16_t e, r, i;

	(void)state;
	ecore_spq_echo_init(&m, 8);
	for (i = 0; i < 8; i++)
		assert_int_equal(ecore_spq_echo_take(&m, &e), 0);
	assert_int_equal(ecore_spq_echo_take(&m, &e), ECORE_BUSY);
	/* a completion that does not retire (not the oldest) frees no slot */
	assert_int_equal(ecore_spq_echo_done(&m, 5, &r), ECORE_ECHO_OK);
	assert_int_equal(ecore_spq_echo_take(&m, &e), ECORE_BUSY);
	assert_int_equal(ecore_spq_echo_done(&m, 0, &r), ECORE_ECHO_OK);
	assert_int_equal(ecore_spq_echo_take(&m, &e), 0);
	assert_int_equal(e, 8);
}

/* 70000 echoes completed in swapped pairs: the u16 wrap changes nothing. */
static void
test_u16_wrap(void **state)
{
	struct ecore_spq_echo_map m;
	uint16_t a, b, r;
	uint32_t n;

	(void)state;
	ecore_spq_echo_init(&m, 256);
	for (n = 0; n < 70000; n += 2) {
		assert_int_equal(ecore_spq_echo_take(&m, &a), 0);
		assert_int_equal(ecore_spq_echo_take(&m, &b), 0);
		assert_int_equal(a, n & 0xffff);
		assert_int_equal(ecore_spq_echo_done(&m, b, &r), ECORE_ECHO_OK);
		assert_int_equal(r, 0);
		assert_int_equal(ecore_spq_echo_done(&m, a, &r), ECORE_ECHO_OK);
		assert_int_equal(r, 2);
	}
	assert_int_equal(m.cons, 70000 & 0xffff);
	assert_int_equal(m.dup + m.unknown, 0);
}

/* The words the slow path writes to the device, against the facts (2.5, 2.6). */
static void
test_wire_words(void **state)
{
	(void)state;
	assert_int_equal(ecore_spq_db_value(0), 0x108c);
	assert_int_equal(ecore_spq_db_value(5), 0x5108c);
	assert_int_equal(ecore_spq_db_value(0xffff), 0xffff108cu);
	/* index 0x123456, update, DISABLE, register segment */
	assert_int_equal(ecore_igu_ack_word(0x123456, IGU_INT_DISABLE, true, IGU_SEG_ACCESS_REG),
			 0x123456u | 1u << 24 | 1u << 25);
	/* attention segment, NOP, no update; the index is 24 bits */
	assert_int_equal(ecore_igu_ack_word(0x1000001, IGU_INT_NOP, false, IGU_SEG_ACCESS_ATTN),
			 0x000001u | 2u << 25 | 1u << 27);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_order),
		cmocka_unit_test(test_out_of_order),
		cmocka_unit_test(test_duplicate_and_unknown),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_u16_wrap),
		cmocka_unit_test(test_wire_words),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
