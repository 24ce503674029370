/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* net_e4's MFW mailbox rules without a device: sequence numbers (next,
 * 16-bit wrap), the header a command is sent with, which reply matches,
 * response codes and their words; and the SHMEM helpers driver and model
 * share (offsizes, the mailbox index, message counters, link speeds). */

#include "test_case.h"

#include "base/ecore_mcp.h"
#include "base/ecore_reg.h"

static void
test_seq_next_counts_up_and_wraps_at_16_bits(void **state)
{
	(void)state;
	assert_int_equal(ecore_mcp_seq_next(0), 1);
	assert_int_equal(ecore_mcp_seq_next(0x1234), 0x1235);
	assert_int_equal(ecore_mcp_seq_next(0xfffe), 0xffff);
	assert_int_equal(ecore_mcp_seq_next(0xffff), 0);
}

static void
test_header_is_the_command_with_the_sequence_number(void **state)
{
	(void)state;
	assert_int_equal(ecore_mcp_mb_header(DRV_MSG_CODE_LOAD_REQ, 5), 0x10000005);
	assert_int_equal(ecore_mcp_mb_header(DRV_MSG_CODE_INITIATE_PF_FLR, 0xffff), 0x0201ffff);
	/* low command bits never spill into the sequence number */
	assert_int_equal(ecore_mcp_mb_header(0x2000abcd, 7), 0x20000007);
}

static void
test_reply_matches_only_with_the_same_sequence_number(void **state)
{
	uint16_t seq = 0xffff, next = ecore_mcp_seq_next(seq);

	(void)state;
	assert_true(ecore_mcp_reply_matches(FW_MSG_CODE_DRV_LOAD_ENGINE | 0xffff, seq));
	/* the previous command's reply (stale) and a later one are not replies */
	assert_false(ecore_mcp_reply_matches(FW_MSG_CODE_DRV_LOAD_ENGINE | 0xfffe, seq));
	assert_false(ecore_mcp_reply_matches(FW_MSG_CODE_DRV_LOAD_ENGINE | 0x0000, seq));
	/* across the wrap: seq 0 answers with 0 */
	assert_int_equal(next, 0);
	assert_true(ecore_mcp_reply_matches(FW_MSG_CODE_OK | 0x0000, next));
	assert_false(ecore_mcp_reply_matches(FW_MSG_CODE_OK | 0xffff, next));
	/* UNSUPPORTED (code 0) is still a reply when the number matches */
	assert_true(ecore_mcp_reply_matches(FW_MSG_CODE_UNSUPPORTED | 0x0042, 0x42));
}

static void
test_reply_code_is_the_upper_half(void **state)
{
	(void)state;
	assert_int_equal(ecore_mcp_reply_code(0x10110007), FW_MSG_CODE_DRV_LOAD_PORT);
	assert_int_equal(ecore_mcp_reply_code(0x0016ffff), FW_MSG_CODE_OK);
	assert_int_equal(ecore_mcp_reply_code(0x00000003), FW_MSG_CODE_UNSUPPORTED);
}

static void
test_load_codes_have_words_and_refusals_are_known(void **state)
{
	static const struct {
		uint32_t code;
		const char *words;
		bool refusal;
	} c[] = {
		{ FW_MSG_CODE_DRV_LOAD_ENGINE, "engine", false },
		{ FW_MSG_CODE_DRV_LOAD_PORT, "port", false },
		{ FW_MSG_CODE_DRV_LOAD_FUNCTION, "function", false },
		{ FW_MSG_CODE_DRV_LOAD_REFUSED_PDA, "refused: PDA", true },
		{ FW_MSG_CODE_DRV_LOAD_REFUSED_HSI_1, "refused: HSI", true },
		{ FW_MSG_CODE_DRV_LOAD_REFUSED_HSI, "refused: HSI", true },
		{ FW_MSG_CODE_DRV_LOAD_REFUSED_DIAG, "refused: DIAG", true },
		{ FW_MSG_CODE_DRV_LOAD_REFUSED_REQUIRES_FORCE, "refused: requires force", true },
		{ FW_MSG_CODE_DRV_LOAD_REFUSED_REJECT, "refused: REJECT", true },
		{ FW_MSG_CODE_OK, "unknown", false },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		assert_string_equal(ecore_mcp_load_code_str(c[i].code), c[i].words);
		assert_int_equal(ecore_mcp_load_code_is_refusal(c[i].code), c[i].refusal);
	}
	assert_string_equal(ecore_mcp_unload_code_str(FW_MSG_CODE_DRV_UNLOAD_ENGINE), "engine");
	assert_string_equal(ecore_mcp_unload_code_str(FW_MSG_CODE_DRV_UNLOAD_PORT), "port");
	assert_string_equal(ecore_mcp_unload_code_str(FW_MSG_CODE_DRV_UNLOAD_FUNCTION),
			    "function");
	assert_string_equal(ecore_mcp_unload_code_str(FW_MSG_CODE_DRV_LOAD_ENGINE), "unknown");
}

static void
test_offsize_gives_section_addresses(void **state)
{
	uint32_t os = mfw_offsize(0x408, DRV_MB_SIZE / 4);

	(void)state;
	assert_int_equal(os, 0x000e0408);
	assert_int_equal(mfw_section_addr(MCP_REG_SCRATCH, os, 0), 0xe20000 + 0x408 * 4);
	assert_int_equal(mfw_section_addr(MCP_REG_SCRATCH, os, 3), 0xe20000 + 0x408 * 4 + 3 * 56);
}

static void
test_mailbox_index_per_chip(void **state)
{
	(void)state;
	/* AH: the relative PF */
	assert_int_equal(mfw_mcp_pf_id(false, 5, 5), 5);
	assert_int_equal(mfw_mcp_pf_id(false, 15, 15), 15);
	/* BB: the relative PF, the absolute PF's low bit in bit 3 */
	assert_int_equal(mfw_mcp_pf_id(true, 0, 0), 0);
	assert_int_equal(mfw_mcp_pf_id(true, 0, 1), 8);
	assert_int_equal(mfw_mcp_pf_id(true, 3, 6), 3);
	assert_int_equal(mfw_mcp_pf_id(true, 3, 7), 11);
}

static void
test_message_counters_are_bytes_that_wrap_alone(void **state)
{
	uint32_t msg[MFW_MB_MAX_DWORDS] = { 0x000000ff, 0, 0, 0, 0 };
	unsigned int i;

	(void)state;
	assert_int_equal(mfw_msg_dwords(MFW_DRV_MSG_MAX), 5);
	assert_int_equal(mfw_msg_dwords(1), 1);
	assert_int_equal(mfw_msg_dwords(4), 1);
	assert_int_equal(mfw_msg_dwords(5), 2);
	assert_int_equal(mfw_mb_ack_off(MFW_DRV_MSG_MAX), 24);
	/* LINK_CHANGE is byte 0: 0xff + 1 wraps to 0 without touching byte 1 */
	mfw_msg_bump(msg, MFW_DRV_MSG_LINK_CHANGE);
	assert_int_equal(msg[0], 0);
	for (i = 0; i < 3; i++)
		mfw_msg_bump(msg, 6);	/* dword 1, byte 2 */
	assert_int_equal(msg[1], 0x00030000);
	assert_int_equal(mfw_msg_count(msg, 6), 3);
	assert_int_equal(mfw_msg_count(msg, 5), 0);
	assert_int_equal(mfw_msg_count(msg, 7), 0);
}

static void
test_link_speed_codes_round_trip(void **state)
{
	static const uint32_t mbps[] = { 1000, 10000, 20000, 25000, 40000, 50000, 100000 };
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(mbps) / sizeof(mbps[0]); i++)
		assert_int_equal(mfw_link_speed_mbps(mfw_link_speed_code(mbps[i])), mbps[i]);
	assert_int_equal(mfw_link_speed_code(25000), LINK_STATUS_SPEED_25G);
	assert_int_equal(mfw_link_speed_code(100000), LINK_STATUS_SPEED_100G);
	assert_int_equal(mfw_link_speed_code(12345), 0);
	assert_int_equal(mfw_link_speed_mbps(LINK_STATUS_SPEED_1000THD), 1000);
	assert_int_equal(mfw_link_speed_mbps(0), 0);
	assert_int_equal(mfw_link_speed_mbps(15), 0);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seq_next_counts_up_and_wraps_at_16_bits),
		cmocka_unit_test(test_header_is_the_command_with_the_sequence_number),
		cmocka_unit_test(test_reply_matches_only_with_the_same_sequence_number),
		cmocka_unit_test(test_reply_code_is_the_upper_half),
		cmocka_unit_test(test_load_codes_have_words_and_refusals_are_known),
		cmocka_unit_test(test_offsize_gives_section_addresses),
		cmocka_unit_test(test_mailbox_index_per_chip),
		cmocka_unit_test(test_message_counters_are_bytes_that_wrap_alone),
		cmocka_unit_test(test_link_speed_codes_round_trip),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests_name("e4_mcp", tests, NULL, NULL);
}
