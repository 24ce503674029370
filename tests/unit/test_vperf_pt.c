/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * vrdma-perf --perftest's messages (app/vrdma-perf/pt_wire.c) against
 * perftest 4.5's layouts written down here by hand: the 108-byte connection
 * data (KEY_PRINT_FMT_GID and its NUL) read field by field and written back
 * byte for byte; anything off the layout refused with nothing set; the
 * version ("6.06") and path MTU ("3" and a NUL) messages; the bandwidth
 * report's integers and doubles in network order.
 */

#include <string.h>

#include <rte_common.h>

#include "test_case.h"
#include "pt_wire.h"

/* LID 0, out_reads 16, QPN 0x11, PSN 0xabcdef, rkey 0x1234, vaddr, GID ::ffff:10.0.0.1, SRQN 0 */
static const char key[PT_KEY_LEN] =
	"0000:0010:000011:abcdef:00001234:000055d0c0a8b000:"
	"00:00:00:00:00:00:00:00:00:00:ff:ff:0a:00:00:01:00000000:";

static void
test_key_read_and_written_back(void **state)
{
	static const uint8_t gid[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 1 };
	struct pt_dest d;
	char again[PT_KEY_LEN];

	(void)state;
	assert_int_equal(strlen(key), PT_KEY_LEN - 1);
	assert_int_equal(pt_dest_parse(key, sizeof(key), &d), 0);
	assert_int_equal(d.lid, 0);
	assert_int_equal(d.out_reads, 16);
	assert_int_equal(d.qpn, 0x11);
	assert_int_equal(d.psn, 0xabcdef);
	assert_int_equal(d.rkey, 0x1234);
	assert_true(d.vaddr == 0x000055d0c0a8b000ull);
	assert_memory_equal(d.gid, gid, 16);
	assert_int_equal(d.srqn, 0);
	memset(again, 0x7f, sizeof(again));
	pt_dest_format(again, &d);
	assert_memory_equal(again, key, sizeof(key));
}

/* Each change of the layout: refused, and nothing of the output touched. */
static void
test_key_off_layout_refused(void **state)
{
	static const struct {
		unsigned int at;
		char c;
	} bad[] = {
		{ 4, '-' },    /* a separator moved */
		{ 0, 'g' },    /* not hex */
		{ 10, '+' },   /* a sign */
		{ 17, ' ' },   /* a blank */
		{ 34, 'x' },   /* 0x inside the address */
		{ 50, ':' },   /* a GID byte short */
		{ 97, '0' },   /* the last GID separator */
		{ 106, '0' },  /* the SRQN's separator */
		{ 107, '1' },  /* no NUL */
	};
	struct pt_dest d, before;
	char m[PT_KEY_LEN];
	unsigned int k;

	(void)state;
	memset(&d, 0x5a, sizeof(d));
	before = d;
	for (k = 0; k < RTE_DIM(bad); k++) {
		memcpy(m, key, sizeof(m));
		m[bad[k].at] = bad[k].c;
		assert_int_equal(pt_dest_parse(m, sizeof(m), &d), -1);
		assert_memory_equal(&d, &before, sizeof(d));
	}
	/* the message without a GID (KEY_PRINT_FMT, 59 bytes), and one byte short */
	assert_int_equal(pt_dest_parse(key, 59, &d), -1);
	assert_int_equal(pt_dest_parse(key, sizeof(key) - 1, &d), -1);
	/* a QPN or PSN above 24 bits cannot be written in 6 digits: the layout refuses it */
	memcpy(m, key, sizeof(m));
	memcpy(m + 10, "1000000", 7);
	assert_int_equal(pt_dest_parse(m, sizeof(m), &d), -1);
	assert_memory_equal(&d, &before, sizeof(d));
}

static void
test_version_and_mtu(void **state)
{
	char v[PT_VERSION_LEN];
	char m[PT_MTU_LEN];
	unsigned int k;
	static const char *const bad[] = { "", "6.", ".5", "6.06x", "v6.06", "6 .06", "-6.06" };

	(void)state;
	pt_version_format(v);
	assert_string_equal(v, "6.06");
	for (k = 5; k < PT_VERSION_LEN; k++)
		assert_int_equal(v[k], 0);
	assert_int_equal(pt_version_parse(v, sizeof(v)), 606);
	memset(v, 0, sizeof(v));
	strcpy(v, "5.7");
	assert_int_equal(pt_version_parse(v, sizeof(v)), 570);
	strcpy(v, "5.70");
	assert_int_equal(pt_version_parse(v, sizeof(v)), 570);
	strcpy(v, "5.333");
	assert_int_equal(pt_version_parse(v, sizeof(v)), 533);
	strcpy(v, "7");
	assert_int_equal(pt_version_parse(v, sizeof(v)), 700);
	for (k = 0; k < RTE_DIM(bad); k++) {
		memset(v, 0, sizeof(v));
		strcpy(v, bad[k]);
		assert_int_equal(pt_version_parse(v, sizeof(v)), -1);
	}
	memset(v, '6', sizeof(v)); /* no NUL */
	assert_int_equal(pt_version_parse(v, sizeof(v)), -1);
	assert_int_equal(pt_version_parse("6.06", 5), -1);

	pt_mtu_format(m, 3);
	assert_memory_equal(m, "3", 2);
	assert_int_equal(pt_mtu_parse(m, sizeof(m)), 3);
	assert_int_equal(pt_mtu_parse("5", 2), 5);
	assert_int_equal(pt_mtu_parse("0", 2), -1);
	assert_int_equal(pt_mtu_parse("6", 2), -1);
	assert_int_equal(pt_mtu_parse("3x", 2), -1);
	assert_int_equal(pt_mtu_parse("3", 1), -1);
}

static void
test_report_in_network_order(void **state)
{
	static const uint8_t want[PT_REPORT_LEN] = {
		0, 0, 0, 0, 0, 0, 0x10, 0,              /* 4096 */
		0, 0, 0, 0, 0, 0, 0, 200,               /* 200 */
		0x3f, 0xf0, 0, 0, 0, 0, 0, 0,           /* 1.0 */
		0x40, 0, 0, 0, 0, 0, 0, 0,              /* 2.0 */
		0x3f, 0xe0, 0, 0, 0, 0, 0, 0,           /* 0.5 */
	};
	struct pt_report r = { .size = 4096, .iters = 200, .bw_peak = 1.0, .bw_avg = 2.0,
			       .msg_rate = 0.5 }, back;
	uint8_t m[PT_REPORT_LEN];

	(void)state;
	pt_report_format(m, &r);
	assert_memory_equal(m, want, sizeof(want));
	assert_int_equal(pt_report_parse(m, sizeof(m), &back), 0);
	assert_true(back.size == 4096 && back.iters == 200);
	assert_true(back.bw_peak == 1.0 && back.bw_avg == 2.0 && back.msg_rate == 0.5);
	assert_int_equal(pt_report_parse(m, sizeof(m) - 1, &back), -1);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_read_and_written_back),
		cmocka_unit_test(test_key_off_layout_refused),
		cmocka_unit_test(test_version_and_mtu),
		cmocka_unit_test(test_report_in_network_order),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
