/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * lib/common without EAL: the number rules (omni_num.h), byte access
 * (omni_bytes.h), counter tables (omni_counters.h) and devargs
 * (omni_kvargs.h).
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "omni_bytes.h"
#include "omni_counters.h"
#include "omni_kvargs.h"
#include "omni_num.h"
#include "test_case.h"

static uint64_t
num_ok(const char *s, uint64_t min, uint64_t max, unsigned int flags)
{
	uint64_t v = 0xdead;

	assert_int_equal(omni_parse_uint(s, min, max, flags, &v), 0);
	return v;
}

static int
num_err(const char *s, uint64_t min, uint64_t max, unsigned int flags)
{
	uint64_t v = 0xdead;
	int rc = omni_parse_uint(s, min, max, flags, &v);

	/* a refusal never writes the output */
	assert_int_equal(v, 0xdead);
	return rc;
}

static void
test_num_decimal_digits_only(void **state)
{
	(void)state;
	assert_int_equal(num_ok("0", 0, 10, OMNI_NUM_DEC), 0);
	assert_int_equal(num_ok("42", 0, 100, OMNI_NUM_DEC), 42);
	/* leading zeros are decimal, never octal */
	assert_int_equal(num_ok("010", 0, 100, OMNI_NUM_DEC), 10);
	assert_int_equal(num_ok("18446744073709551615", 0, UINT64_MAX, OMNI_NUM_DEC), UINT64_MAX);
	assert_int_equal(num_err(NULL, 0, 10, 0), -EINVAL);
	assert_int_equal(num_err("", 0, 10, 0), -EINVAL);
	assert_int_equal(num_err("-1", 0, 10, 0), -EINVAL);
	assert_int_equal(num_err("+1", 0, 10, 0), -EINVAL);
	assert_int_equal(num_err(" 1", 0, 10, 0), -EINVAL);
	assert_int_equal(num_err("1 ", 0, 10, 0), -EINVAL);
	assert_int_equal(num_err("1x", 0, 10, 0), -EINVAL);
	assert_int_equal(num_err("-0", 0, 10, 0), -EINVAL);
	/* hex only where the caller allows it */
	assert_int_equal(num_err("0x10", 0, 100, OMNI_NUM_DEC), -EINVAL);
	assert_int_equal(num_err("1f", 0, 100, OMNI_NUM_DEC), -EINVAL);
}

static void
test_num_range_and_overflow(void **state)
{
	(void)state;
	assert_int_equal(num_ok("5", 5, 5, 0), 5);
	assert_int_equal(num_err("4", 5, 9, 0), -ERANGE);
	assert_int_equal(num_err("10", 5, 9, 0), -ERANGE);
	/* one past 64 bits, and far past: out of range, not wrapped */
	assert_int_equal(num_err("18446744073709551616", 0, UINT64_MAX, 0), -ERANGE);
	assert_int_equal(num_err("99999999999999999999", 0, UINT64_MAX, 0), -ERANGE);
	/* leading zeros do not count against the width; 21 significant digits are out of range */
	assert_int_equal(num_ok("0000000000000000000000007", 0, 10, 0), 7);
	assert_int_equal(num_err("123456789012345678901", 0, UINT64_MAX, 0), -ERANGE);
	assert_int_equal(num_err("123456789012345678901x", 0, UINT64_MAX, 0), -EINVAL);
	assert_int_equal(num_err("0x10000000000000000", 0, UINT64_MAX, OMNI_NUM_HEX), -ERANGE);
}

static void
test_num_hex_forms(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(num_ok("0x1F", 0, 100, OMNI_NUM_HEX), 31);
	assert_int_equal(num_ok("0Xff", 0, 255, OMNI_NUM_HEX), 255);
	assert_int_equal(num_ok("17", 0, 100, OMNI_NUM_HEX), 17);
	assert_int_equal(num_ok("0xffffffffffffffff", 0, UINT64_MAX, OMNI_NUM_HEX), UINT64_MAX);
	assert_int_equal(num_err("0x", 0, 100, OMNI_NUM_HEX), -EINVAL);
	assert_int_equal(num_err("0x-1", 0, 100, OMNI_NUM_HEX), -EINVAL);
	assert_int_equal(num_err("0x 1", 0, 100, OMNI_NUM_HEX), -EINVAL);
	assert_int_equal(num_err("ff", 0, 1000, OMNI_NUM_HEX), -EINVAL);
	/* bare hex: a field that is hex by format, no prefix */
	assert_int_equal(num_ok("00ff", 0, 0xffff, OMNI_NUM_HEX_BARE), 255);
	assert_int_equal(num_err("0x1", 0, 0xffff, OMNI_NUM_HEX_BARE), -EINVAL);
	/* a token inside a longer text */
	assert_int_equal(omni_parse_uint_n("12:34", 2, 0, 99, 0, &v), 0);
	assert_int_equal(v, 12);
	assert_int_equal(omni_parse_uint_n("12:34", 3, 0, 99, 0, &v), -EINVAL);
}

static void
test_num_opt_says_what_was_expected(void **state)
{
	uint64_t v = 7;

	(void)state;
	assert_true(omni_num_opt("prog", "burst", "32", 1, 64, 0, &v));
	assert_int_equal(v, 32);
	assert_false(omni_num_opt("prog", "burst", "65", 1, 64, 0, &v));
	assert_false(omni_num_opt("prog", "burst", NULL, 1, 64, 0, &v));
	assert_int_equal(v, 32);
}

static void
test_bytes_big_endian(void **state)
{
	uint8_t b[10] = { 0 };

	(void)state;
	omni_put_be16(b + 1, 0x1234);
	assert_memory_equal(b + 1, "\x12\x34", 2);
	assert_int_equal(omni_get_be16(b + 1), 0x1234);
	omni_put_be24(b + 1, 0xfe123456);
	assert_memory_equal(b + 1, "\x12\x34\x56", 3);
	assert_int_equal(omni_get_be24(b + 1), 0x123456);
	omni_put_be32(b + 1, 0x89abcdef);
	assert_memory_equal(b + 1, "\x89\xab\xcd\xef", 4);
	assert_int_equal(omni_get_be32(b + 1), 0x89abcdef);
	omni_put_be48(b + 1, 0xffff0a0b0c0d0e0fULL);
	assert_memory_equal(b + 1, "\x0a\x0b\x0c\x0d\x0e\x0f", 6);
	assert_int_equal(omni_get_be48(b + 1), 0x0a0b0c0d0e0fULL);
	omni_put_be64(b + 1, 0x0102030405060708ULL);
	assert_memory_equal(b + 1, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
	assert_int_equal(omni_get_be64(b + 1), 0x0102030405060708ULL);
	assert_int_equal(omni_get_be_n(b + 1, 3), 0x010203);
	assert_int_equal(omni_get_be_n(b + 1, 0), 0);
}

static void
test_bytes_little_endian(void **state)
{
	uint8_t b[9] = { 0 };

	(void)state;
	omni_put_le16(b + 1, 0x1234);
	assert_memory_equal(b + 1, "\x34\x12", 2);
	assert_int_equal(omni_get_le16(b + 1), 0x1234);
	omni_put_le24(b + 1, 0xfe123456);
	assert_memory_equal(b + 1, "\x56\x34\x12", 3);
	assert_int_equal(b[4], 0);
	assert_int_equal(omni_get_le24(b + 1), 0x123456);
	omni_put_le32(b + 1, 0x89abcdef);
	assert_memory_equal(b + 1, "\xef\xcd\xab\x89", 4);
	assert_int_equal(omni_get_le32(b + 1), 0x89abcdef);
	omni_put_le64(b + 1, 0x0102030405060708ULL);
	assert_memory_equal(b + 1, "\x08\x07\x06\x05\x04\x03\x02\x01", 8);
	assert_int_equal(omni_get_le64(b + 1), 0x0102030405060708ULL);
}

struct demo_stats {
	uint64_t rx;
	uint64_t tx;
	uint64_t drop_runt;
};

static const struct omni_ctr demo_ctrs[] = {
	OMNI_CTR(struct demo_stats, rx),
	OMNI_CTR(struct demo_stats, tx),
	OMNI_CTR(struct demo_stats, drop_runt),
};
OMNI_CTR_TABLE_CHECK(demo_ctrs, struct demo_stats);

struct demo_grp {
	uint64_t hits;
	uint64_t size[2];
};

struct demo_nested {
	struct demo_grp tx;
	uint64_t errors;
};

/* Names chosen apart from the fields; nested fields and array elements. */
static const struct omni_ctr demo_nested_ctrs[] = {
	OMNI_CTR_AS(struct demo_nested, errors, "vnic_tx_errors"),
	OMNI_CTR_AS(struct demo_nested, tx.hits, "tx_hits"),
	OMNI_CTR_AS(struct demo_nested, tx.size[1], "tx_big"),
	OMNI_CTR_AS(struct demo_nested, tx.size[0], "tx_small"),
};
OMNI_CTR_TABLE_CHECK(demo_nested_ctrs, struct demo_nested);

static void
test_counter_table_named_apart(void **state)
{
	struct demo_nested a = { .tx = { .hits = 5, .size = { 6, 7 } }, .errors = 8 };
	struct { char name[24]; } names[4];
	uint64_t v[4];

	(void)state;
	assert_int_equal(omni_ctr_names(demo_nested_ctrs, 4, NULL, names, sizeof(names[0]),
					sizeof(names[0].name), 4), 4);
	assert_string_equal(names[0].name, "vnic_tx_errors");
	assert_string_equal(names[1].name, "tx_hits");
	assert_string_equal(names[2].name, "tx_big");
	assert_string_equal(names[3].name, "tx_small");
	assert_int_equal(omni_ctr_values(demo_nested_ctrs, 4, &a, v, 4), 4);
	assert_int_equal(v[0], 8);
	assert_int_equal(v[1], 5);
	assert_int_equal(v[2], 7);
	assert_int_equal(v[3], 6);
}

static void
test_counter_table_names_values_sums(void **state)
{
	struct demo_stats a = { .rx = 1, .tx = 2, .drop_runt = 3 };
	struct demo_stats b = { .rx = 10, .tx = 20, .drop_runt = 30 };
	struct { char name[16]; uint64_t pad; } names[3];
	uint64_t v[3] = { 0 };

	(void)state;
	assert_int_equal(omni_ctr_names(demo_ctrs, 3, "q0_", names, sizeof(names[0]),
					sizeof(names[0].name), 3), 3);
	assert_string_equal(names[0].name, "q0_rx");
	assert_string_equal(names[2].name, "q0_drop_runt");
	/* a short array gets what fits; the count is the table's */
	assert_int_equal(omni_ctr_values(demo_ctrs, 3, &a, v, 2), 3);
	assert_int_equal(v[0], 1);
	assert_int_equal(v[1], 2);
	assert_int_equal(v[2], 0);
	omni_ctr_add(demo_ctrs, 3, &a, &b);
	assert_int_equal(a.rx, 11);
	assert_int_equal(a.tx, 22);
	assert_int_equal(a.drop_runt, 33);
}

struct demo_args {
	uint64_t lid;
	char wire[8];
	int seen_wire;
};

static int
demo_lid(const char *key, const char *val, void *opaque)
{
	struct demo_args *a = opaque;

	return omni_devarg_uint(key, val, 1, 0xBFFF, OMNI_NUM_HEX, &a->lid);
}

static int
demo_wire(const char *key, const char *val, void *opaque)
{
	struct demo_args *a = opaque;

	a->seen_wire++;
	return omni_devarg_str(key, val, a->wire, sizeof(a->wire));
}

static const struct omni_devarg demo_devargs[] = {
	{ "lid", demo_lid, 0 },
	{ "wire", demo_wire, 0 },
};

static void
test_devargs_table(void **state)
{
	struct demo_args a = { .lid = 1 };

	(void)state;
	assert_int_equal(omni_devargs_parse("t", NULL, demo_devargs, 2, &a), 0);
	assert_int_equal(omni_devargs_parse("t", "lid=0x10,wire=p0", demo_devargs, 2, &a), 0);
	assert_int_equal(a.lid, 16);
	assert_string_equal(a.wire, "p0");
	/* an unknown key, a value out of range, a key with no value, too long */
	assert_int_equal(omni_devargs_parse("t", "lid=2,speed=1", demo_devargs, 2, &a), -EINVAL);
	assert_int_equal(omni_devargs_parse("t", "lid=0xC000", demo_devargs, 2, &a), -EINVAL);
	assert_int_equal(omni_devargs_parse("t", "lid=-1", demo_devargs, 2, &a), -EINVAL);
	assert_int_equal(omni_devargs_parse("t", "lid", demo_devargs, 2, &a), -EINVAL);
	assert_int_equal(omni_devargs_parse("t", "wire=12345678", demo_devargs, 2, &a), -EINVAL);
	assert_int_equal(a.lid, 16);
	assert_string_equal(a.wire, "p0");
	/* a key given twice is handled twice: the last wins */
	a.seen_wire = 0;
	assert_int_equal(omni_devargs_parse("t", "wire=a,wire=b", demo_devargs, 2, &a), 0);
	assert_int_equal(a.seen_wire, 2);
	assert_string_equal(a.wire, "b");
}

static const struct omni_devarg demo_devargs_once[] = {
	{ "lid", demo_lid, OMNI_DEVARG_ONCE },
	{ "wire", demo_wire, 0 },
};

static const struct omni_devarg demo_devargs_once_2nd[] = {
	{ "wire", demo_wire, 0 },
	{ "lid", demo_lid, OMNI_DEVARG_ONCE },
};

/* OMNI_DEVARG_ONCE refuses its key given twice, before any handler runs. */
static void
test_devargs_once(void **state)
{
	struct demo_args a = { .lid = 1 };

	(void)state;
	assert_int_equal(omni_devargs_parse("t", "lid=2,wire=a", demo_devargs_once, 2, &a), 0);
	assert_int_equal(a.lid, 2);
	a.seen_wire = 0;
	assert_int_equal(omni_devargs_parse("t", "lid=3,lid=4", demo_devargs_once, 2, &a),
			 -EINVAL);
	assert_int_equal(a.lid, 2);
	/* refused before any handler: the key before it in the table is not handled */
	assert_int_equal(omni_devargs_parse("t", "wire=z,lid=5,lid=6", demo_devargs_once_2nd, 2,
					    &a), -EINVAL);
	assert_int_equal(a.seen_wire, 0);
	assert_int_equal(a.lid, 2);
	/* the flag is per key: wire, without it, is still handled twice */
	assert_int_equal(omni_devargs_parse("t", "wire=b,wire=c", demo_devargs_once, 2, &a), 0);
	assert_int_equal(a.seen_wire, 2);
	assert_string_equal(a.wire, "c");
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_num_decimal_digits_only),
		cmocka_unit_test(test_num_range_and_overflow),
		cmocka_unit_test(test_num_hex_forms),
		cmocka_unit_test(test_num_opt_says_what_was_expected),
		cmocka_unit_test(test_bytes_big_endian),
		cmocka_unit_test(test_bytes_little_endian),
		cmocka_unit_test(test_counter_table_names_values_sums),
		cmocka_unit_test(test_counter_table_named_apart),
		cmocka_unit_test(test_devargs_table),
		cmocka_unit_test(test_devargs_once),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests_name("common", tests, NULL, NULL);
}
