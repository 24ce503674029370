/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * lib/roce's header accessors (roce_hdr.h) against the IBA layout written
 * out here as numbers (IBA vol. 1, 9.2-9.4; facts roce-vhost.md 2.3): each
 * setter puts its field big-endian at its offset and leaves every other
 * byte alone, each getter reads it back, at an odd address.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "roce_hdr.h"
#include "test_bytes.h"
#include "test_case.h"

/* A header at an odd address inside a buffer of a known fill. */
#define FILL 0xa5
struct buf {
	uint8_t b[64];
	uint8_t *h;
};

static void
buf_init(struct buf *b)
{
	memset(b->b, FILL, sizeof(b->b));
	b->h = b->b + 3;
}

/* Bytes outside [off, off + len) of the header are still the fill. */
static void
expect_untouched(const struct buf *b, size_t off, size_t len, const char *what)
{
	expect_fill(b->b, 0, 3 + off, FILL, what);
	expect_fill(b->b, 3 + off + len, sizeof(b->b), FILL, what);
}

static void
test_lengths_are_iba(void **state)
{
	(void)state;
	assert_int_equal(ROCE_BTH_LEN, 12);
	assert_int_equal(ROCE_RETH_LEN, 16);
	assert_int_equal(ROCE_AETH_LEN, 4);
	assert_int_equal(ROCE_DETH_LEN, 8);
	assert_int_equal(ROCE_IETH_LEN, 4);
	assert_int_equal(ROCE_IMMDT_LEN, 4);
	assert_int_equal(ROCE_ATMETH_LEN, 28);
	assert_int_equal(ROCE_ATMACK_LEN, 8);
	assert_int_equal(ROCE_ICRC_LEN, 4);
}

static void
test_bth_init_writes_every_byte(void **state)
{
	struct buf b;

	(void)state;
	buf_init(&b);
	roce_bth_init(b.h, 0x0a, 1, 3, 0xfffe, 0x123456, 1, 0xabcdef);
	expect_be(b.h, 0, 1, 0x0a, "opcode");
	expect_be(b.h, 1, 1, 0xb0, "SE, M 0, PadCnt 3, TVer 0");
	expect_be(b.h, 2, 2, 0xfffe, "P_Key");
	expect_be(b.h, 4, 1, 0x00, "FECN, BECN, Resv6");
	expect_be(b.h, 5, 3, 0x123456, "DestQP");
	expect_be(b.h, 8, 1, 0x80, "AckReq, Resv7");
	expect_be(b.h, 9, 3, 0xabcdef, "PSN");
	expect_untouched(&b, 0, ROCE_BTH_LEN, "around the BTH");
	assert_int_equal(roce_bth_opcode(b.h), 0x0a);
	assert_int_equal(roce_bth_se(b.h), 1);
	assert_int_equal(roce_bth_mig(b.h), 0);
	assert_int_equal(roce_bth_pad(b.h), 3);
	assert_int_equal(roce_bth_tver(b.h), 0);
	assert_int_equal(roce_bth_pkey(b.h), 0xfffe);
	assert_int_equal(roce_bth_qpn(b.h), 0x123456);
	assert_int_equal(roce_bth_ackreq(b.h), 1);
	assert_int_equal(roce_bth_psn(b.h), 0xabcdef);

	/* over ones: flags and reserved bits cleared, 24-bit fields cut to 24 bits */
	memset(b.h, 0xff, ROCE_BTH_LEN);
	roce_bth_init(b.h, 0x64, 0, 0, 0xffff, 0xff000001, 0, 0x1000002);
	expect_be(b.h, 0, 4, 0x6400ffff, "opcode, flags, P_Key");
	expect_be(b.h, 4, 4, 0x00000001, "FECN byte, DestQP");
	expect_be(b.h, 8, 4, 0x00000002, "AckReq byte, PSN");
	expect_untouched(&b, 0, ROCE_BTH_LEN, "around the BTH");
}

static void
test_bth_getters_read_their_bits_only(void **state)
{
	struct buf b;

	(void)state;
	buf_init(&b);
	/* every bit set: each getter sees only its own field */
	memset(b.h, 0xff, ROCE_BTH_LEN);
	assert_int_equal(roce_bth_opcode(b.h), 0xff);
	assert_int_equal(roce_bth_se(b.h), 1);
	assert_int_equal(roce_bth_mig(b.h), 1);
	assert_int_equal(roce_bth_pad(b.h), 3);
	assert_int_equal(roce_bth_tver(b.h), 0xf);
	assert_int_equal(roce_bth_pkey(b.h), 0xffff);
	assert_int_equal(roce_bth_qpn(b.h), 0xffffff);
	assert_int_equal(roce_bth_ackreq(b.h), 1);
	assert_int_equal(roce_bth_psn(b.h), 0xffffff);
	b.h[1] = 0x40; /* MigReq only */
	assert_int_equal(roce_bth_se(b.h), 0);
	assert_int_equal(roce_bth_mig(b.h), 1);
	assert_int_equal(roce_bth_pad(b.h), 0);
	assert_int_equal(roce_bth_tver(b.h), 0);
	b.h[8] = 0x7f; /* Resv7 only */
	assert_int_equal(roce_bth_ackreq(b.h), 0);
}

static void
test_bth_setters_touch_their_field_only(void **state)
{
	struct buf b;

	(void)state;
	buf_init(&b);
	roce_bth_set_qpn(b.h, 0xff123456);
	expect_be(b.h, 5, 3, 0x123456, "DestQP");
	expect_untouched(&b, 5, 3, "around DestQP");
	buf_init(&b);
	roce_bth_set_psn(b.h, 0x01fedcba);
	expect_be(b.h, 9, 3, 0xfedcba, "PSN");
	expect_untouched(&b, 9, 3, "around the PSN");
	buf_init(&b);
	roce_bth_set_pkey(b.h, 0x8001);
	expect_be(b.h, 2, 2, 0x8001, "P_Key");
	expect_untouched(&b, 2, 2, "around the P_Key");
	buf_init(&b);
	roce_bth_set_flags(b.h, 0, 2);
	expect_be(b.h, 1, 1, 0x20, "PadCnt 2");
	expect_untouched(&b, 1, 1, "around the flags");
	buf_init(&b);
	roce_bth_set_ackreq(b.h, 1);
	expect_be(b.h, 8, 1, 0x80, "AckReq");
	expect_untouched(&b, 8, 1, "around AckReq");
	buf_init(&b);
	roce_bth_set_opcode(b.h, 0x11);
	expect_be(b.h, 0, 1, 0x11, "opcode");
	expect_untouched(&b, 0, 1, "around the opcode");
}

static void
test_reth(void **state)
{
	struct buf b;

	(void)state;
	buf_init(&b);
	roce_reth_set_va(b.h, 0x0102030405060708ull);
	roce_reth_set_rkey(b.h, 0x11223344);
	roce_reth_set_len(b.h, 0x55667788);
	expect_be(b.h, 0, 8, 0x0102030405060708ull, "VA");
	expect_be(b.h, 8, 4, 0x11223344, "R_Key");
	expect_be(b.h, 12, 4, 0x55667788, "DMA length");
	expect_untouched(&b, 0, ROCE_RETH_LEN, "around the RETH");
	assert_true(roce_reth_va(b.h) == 0x0102030405060708ull);
	assert_int_equal(roce_reth_rkey(b.h), 0x11223344);
	assert_int_equal(roce_reth_len(b.h), 0x55667788);
}

static void
test_aeth(void **state)
{
	struct buf b;

	(void)state;
	buf_init(&b);
	roce_aeth_set_syn(b.h, 0x61);
	roce_aeth_set_msn(b.h, 0xff0a0b0c);
	expect_be(b.h, 0, 1, 0x61, "syndrome");
	expect_be(b.h, 1, 3, 0x0a0b0c, "MSN");
	expect_untouched(&b, 0, ROCE_AETH_LEN, "around the AETH");
	assert_int_equal(roce_aeth_syn(b.h), 0x61);
	assert_int_equal(roce_aeth_msn(b.h), 0x0a0b0c);
}

static void
test_atomic_eth_and_ack(void **state)
{
	struct buf b;

	(void)state;
	buf_init(&b);
	roce_atmeth_set_va(b.h, 0x1111222233334444ull);
	roce_atmeth_set_rkey(b.h, 0xdeadbeef);
	roce_atmeth_set_swap_add(b.h, 0x5555666677778888ull);
	roce_atmeth_set_compare(b.h, 0x99990000aaaabbbbull);
	expect_be(b.h, 0, 8, 0x1111222233334444ull, "VA");
	expect_be(b.h, 8, 4, 0xdeadbeef, "R_Key");
	expect_be(b.h, 12, 8, 0x5555666677778888ull, "Swap or Add");
	expect_be(b.h, 20, 8, 0x99990000aaaabbbbull, "Compare");
	expect_untouched(&b, 0, ROCE_ATMETH_LEN, "around the AtomicETH");
	assert_true(roce_atmeth_va(b.h) == 0x1111222233334444ull);
	assert_int_equal(roce_atmeth_rkey(b.h), 0xdeadbeef);
	assert_true(roce_atmeth_swap_add(b.h) == 0x5555666677778888ull);
	assert_true(roce_atmeth_compare(b.h) == 0x99990000aaaabbbbull);

	buf_init(&b);
	roce_atmack_set_orig(b.h, 0x0123456789abcdefull);
	expect_be(b.h, 0, 8, 0x0123456789abcdefull, "original data");
	expect_untouched(&b, 0, ROCE_ATMACK_LEN, "around the AtomicAckETH");
	assert_true(roce_atmack_orig(b.h) == 0x0123456789abcdefull);
}

static void
test_immdt_ieth_deth(void **state)
{
	const uint8_t imm_wire[4] = { 0xca, 0xfe, 0xba, 0xbe };
	struct buf b;
	uint32_t imm;

	(void)state;
	/* ImmDt moves the bytes as they are: the value is in network byte order */
	buf_init(&b);
	memcpy(&imm, imm_wire, sizeof(imm));
	roce_immdt_set_imm(b.h, imm);
	expect_bytes(b.h, 0, imm_wire, sizeof(imm_wire), "ImmDt");
	expect_untouched(&b, 0, ROCE_IMMDT_LEN, "around the ImmDt");
	assert_int_equal(roce_immdt_imm(b.h), imm);

	buf_init(&b);
	roce_ieth_set_rkey(b.h, 0x0badf00d);
	expect_be(b.h, 0, 4, 0x0badf00d, "IETH R_Key");
	expect_untouched(&b, 0, ROCE_IETH_LEN, "around the IETH");
	assert_int_equal(roce_ieth_rkey(b.h), 0x0badf00d);

	buf_init(&b);
	roce_deth_set_qkey(b.h, 0x80010000);
	roce_deth_set_sqp(b.h, 0xff000001);
	expect_be(b.h, 0, 4, 0x80010000, "Q_Key");
	expect_be(b.h, 4, 1, 0, "reserved");
	expect_be(b.h, 5, 3, 0x000001, "source QP");
	expect_untouched(&b, 0, ROCE_DETH_LEN, "around the DETH");
	assert_int_equal(roce_deth_qkey(b.h), 0x80010000);
	assert_int_equal(roce_deth_sqp(b.h), 1);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lengths_are_iba),
		cmocka_unit_test(test_bth_init_writes_every_byte),
		cmocka_unit_test(test_bth_getters_read_their_bits_only),
		cmocka_unit_test(test_bth_setters_touch_their_field_only),
		cmocka_unit_test(test_reth),
		cmocka_unit_test(test_aeth),
		cmocka_unit_test(test_atomic_eth_and_ack),
		cmocka_unit_test(test_immdt_ieth_deth),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests_name("roce_hdr", tests, NULL, NULL);
}
