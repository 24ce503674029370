/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* net_e4's DMAE client (base/ecore_dmae.c) against the model's engine
 * (model/e4m_dmae.c): each direction moves the right dwords, fills, chunks
 * beyond the bounce buffer, the sanity test, an error completion, and a bad
 * host address (an error, not a crash). */

#include <stdio.h>

#include "test_case.h"
#include "test_eal.h"

#include "base/ecore_hw.h"
#include "model/e4_model.h"

/* GRC space no model part hooks: what the engine writes there stays. */
#define GRC_AREA	0x340000u
/* The client's bounce buffer and the largest command (dwords). */
#define CHUNK_DW	DMAE_MAX_RW_DW

struct rig {
	struct e4m_dev *m;
	struct ecore_dev dev;
	struct ecore_hwfn *h;
	struct ecore_ptt *ptt;
	unsigned int dma0;
};

static void
rig_open(struct rig *r)
{
	memset(r, 0, sizeof(*r));
	r->dma0 = ecore_osal_dma_in_use();
	r->m = e4m_create("dmae", NULL);
	assert_non_null(r->m);
	snprintf(r->dev.name, sizeof(r->dev.name), "e4dmae");
	r->dev.bar_ops = &e4m_bar_ops;
	r->dev.bar_ctx = e4m_pf_ctx(r->m, 0);
	r->dev.chip = ECORE_CHIP_AH;
	r->dev.num_hwfns = 1;
	r->h = &r->dev.hwfns[0];
	r->h->p_dev = &r->dev;
	snprintf(r->h->name, sizeof(r->h->name), "e4dmae:hwfn0");
	assert_int_equal(ecore_ptt_pool_alloc(r->h), ECORE_SUCCESS);
	ecore_gtt_init(r->h);
	r->ptt = r->h->p_main_ptt;
	assert_int_equal(ecore_dmae_info_alloc(r->h), ECORE_SUCCESS);
	/* completion word and bounce buffer */
	assert_int_equal(ecore_osal_dma_in_use(), r->dma0 + 2);
}

static void
rig_close(struct rig *r)
{
	ecore_dmae_info_free(r->h);
	ecore_dmae_info_free(r->h);	/* twice is fine */
	ecore_ptt_pool_free(r->h);
	assert_int_equal(ecore_osal_dma_in_use(), r->dma0);
	e4m_destroy(r->m);
}

static struct e4m_stats
stats(struct rig *r)
{
	struct e4m_stats st;

	e4m_stats_get(r->m, &st);
	return st;
}

static uint32_t
pattern(uint32_t i)
{
	return 0xa5000000u ^ (i * 2654435761u);
}

/* GRC [addr, addr + n dwords) holds pattern(seed + i). */
static void
grc_check(struct rig *r, uint32_t addr, uint32_t n, uint32_t seed)
{
	uint32_t i, v;

	for (i = 0; i < n; i++) {
		if (!e4m_grc_peek(r->m, addr + 4 * i, &v) || v != pattern(seed + i))
			fail_msg("GRC 0x%x: 0x%08x, expected 0x%08x", addr + 4 * i, v,
				 pattern(seed + i));
	}
}

static void
test_host2grc_moves_each_dword_to_its_address(void **state)
{
	uint32_t buf[100], i, v;
	struct e4m_stats st;
	struct rig r;

	(void)state;
	rig_open(&r);
	for (i = 0; i < RTE_DIM(buf); i++)
		buf[i] = pattern(i);
	assert_int_equal(ecore_dmae_host2grc(r.h, r.ptt, buf, GRC_AREA, RTE_DIM(buf)),
			 ECORE_SUCCESS);
	grc_check(&r, GRC_AREA, RTE_DIM(buf), 0);
	/* nothing past the end */
	assert_false(e4m_grc_peek(r.m, GRC_AREA + 4 * RTE_DIM(buf), &v));
	assert_false(e4m_grc_peek(r.m, GRC_AREA - 4, &v));
	st = stats(&r);
	assert_int_equal(st.dmae_cmds, 1);
	assert_int_equal(st.dmae_dwords, RTE_DIM(buf));
	assert_int_equal(st.dmae_errors, 0);
	rig_close(&r);
}

static void
test_grc2host_reads_what_grc_holds(void **state)
{
	uint32_t buf[64], i;
	struct rig r;

	(void)state;
	rig_open(&r);
	for (i = 0; i < RTE_DIM(buf); i++) {
		e4m_grc_poke(r.m, GRC_AREA + 4 * i, pattern(100 + i));
		buf[i] = 0;
	}
	assert_int_equal(ecore_dmae_grc2host(r.h, r.ptt, GRC_AREA, buf, RTE_DIM(buf)),
			 ECORE_SUCCESS);
	for (i = 0; i < RTE_DIM(buf); i++)
		assert_int_equal(buf[i], pattern(100 + i));
	rig_close(&r);
}

static void
test_host2host_copies_between_device_addresses(void **state)
{
	struct ecore_dma_mem a, b;
	struct rig r;
	uint32_t i;

	(void)state;
	rig_open(&r);
	assert_int_equal(ecore_osal_dma_alloc(&a, "dmaet", "a", 0, 4096, 64), 0);
	assert_int_equal(ecore_osal_dma_alloc(&b, "dmaet", "b", 0, 4096, 64), 0);
	for (i = 0; i < 1024; i++)
		omni_put_le32((uint8_t *)a.va + 4 * i, pattern(i));
	/* 1000 dwords from a to b + 8: the rest of b stays zero */
	assert_int_equal(ecore_dmae_host2host(r.h, r.ptt, a.iova, b.iova + 8, 1000),
			 ECORE_SUCCESS);
	assert_int_equal(omni_get_le32(b.va), 0);
	assert_int_equal(omni_get_le32((uint8_t *)b.va + 4), 0);
	for (i = 0; i < 1000; i++)
		assert_int_equal(omni_get_le32((uint8_t *)b.va + 8 + 4 * i), pattern(i));
	assert_int_equal(omni_get_le32((uint8_t *)b.va + 8 + 4000), 0);
	ecore_osal_dma_free(&a);
	ecore_osal_dma_free(&b);
	rig_close(&r);
}

static void
test_fill_writes_the_value_and_nothing_else(void **state)
{
	struct rig r;
	uint32_t i, v;

	(void)state;
	rig_open(&r);
	assert_int_equal(ecore_dmae_grc_fill(r.h, r.ptt, GRC_AREA + 0x100, 0xdeadbeef, 300),
			 ECORE_SUCCESS);
	for (i = 0; i < 300; i++) {
		assert_true(e4m_grc_peek(r.m, GRC_AREA + 0x100 + 4 * i, &v));
		assert_int_equal(v, 0xdeadbeef);
	}
	assert_false(e4m_grc_peek(r.m, GRC_AREA + 0x100 + 4 * 300, &v));
	assert_false(e4m_grc_peek(r.m, GRC_AREA + 0xfc, &v));
	/* zero-length: nothing sent */
	assert_int_equal(ecore_dmae_grc_fill(r.h, r.ptt, GRC_AREA, 1, 0), ECORE_SUCCESS);
	assert_int_equal(stats(&r).dmae_cmds, 1);
	rig_close(&r);
}

static void
test_transfers_beyond_the_bounce_buffer_go_in_chunks(void **state)
{
	uint32_t n = 2 * CHUNK_DW + 5, i, v;
	uint32_t *buf = calloc(n, 4);
	struct e4m_stats st;
	struct rig r;

	(void)state;
	assert_non_null(buf);
	rig_open(&r);
	for (i = 0; i < n; i++)
		buf[i] = pattern(7 + i);
	assert_int_equal(ecore_dmae_host2grc(r.h, r.ptt, buf, GRC_AREA, n), ECORE_SUCCESS);
	grc_check(&r, GRC_AREA, n, 7);
	st = stats(&r);
	assert_int_equal(st.dmae_cmds, 3);
	assert_int_equal(st.dmae_dwords, n);
	/* and back */
	memset(buf, 0, n * 4);
	assert_int_equal(ecore_dmae_grc2host(r.h, r.ptt, GRC_AREA, buf, n), ECORE_SUCCESS);
	for (i = 0; i < n; i++)
		assert_int_equal(buf[i], pattern(7 + i));
	assert_int_equal(stats(&r).dmae_cmds, 6);
	/* a fill of three chunks reuses one bounce buffer of the value */
	assert_int_equal(ecore_dmae_grc_fill(r.h, r.ptt, GRC_AREA, 0, n), ECORE_SUCCESS);
	for (i = 0; i < n; i += 997) {
		assert_true(e4m_grc_peek(r.m, GRC_AREA + 4 * i, &v));
		assert_int_equal(v, 0);
	}
	assert_true(e4m_grc_peek(r.m, GRC_AREA + 4 * (n - 1), &v));
	assert_int_equal(v, 0);
	assert_int_equal(stats(&r).dmae_cmds, 9);
	free(buf);
	rig_close(&r);
}

static void
test_sanity_passes_and_fails_on_error_completion(void **state)
{
	unsigned int in_use;
	struct rig r;

	(void)state;
	rig_open(&r);
	in_use = ecore_osal_dma_in_use();
	assert_int_equal(ecore_dmae_sanity(r.h, r.ptt, "engine"), ECORE_SUCCESS);
	assert_int_equal(stats(&r).dmae_cmds, 1);
	assert_int_equal(e4m_fault_set(r.m, E4M_FAULT_DMAE_ERROR, 0, 0), 0);
	assert_int_equal(ecore_dmae_sanity(r.h, r.ptt, "pf"), ECORE_IO);
	e4m_fault_clear(r.m, E4M_FAULT_DMAE_ERROR);
	/* the test buffer went back either way */
	assert_int_equal(ecore_osal_dma_in_use(), in_use);
	rig_close(&r);
}

static void
test_dmae_error_fault_gives_ecore_io_and_moves_nothing(void **state)
{
	uint32_t buf[16] = { 1, 2, 3 }, v;
	struct e4m_stats st;
	struct rig r;

	(void)state;
	rig_open(&r);
	assert_int_equal(e4m_fault_set(r.m, E4M_FAULT_DMAE_ERROR, 0, 0), 0);
	assert_int_equal(ecore_dmae_host2grc(r.h, r.ptt, buf, GRC_AREA, RTE_DIM(buf)), ECORE_IO);
	assert_false(e4m_grc_peek(r.m, GRC_AREA, &v));
	assert_int_equal(ecore_dmae_grc_fill(r.h, r.ptt, GRC_AREA, 5, 4), ECORE_IO);
	st = stats(&r);
	assert_int_equal(st.dmae_errors, 2);
	assert_int_equal(st.dmae_dwords, 0);
	/* cleared: the engine works again */
	e4m_fault_clear(r.m, E4M_FAULT_DMAE_ERROR);
	assert_int_equal(ecore_dmae_host2grc(r.h, r.ptt, buf, GRC_AREA, RTE_DIM(buf)),
			 ECORE_SUCCESS);
	assert_true(e4m_grc_peek(r.m, GRC_AREA + 8, &v));
	assert_int_equal(v, 3);
	rig_close(&r);
}

static void
test_bad_host_address_is_an_error_and_a_counted_fault(void **state)
{
	struct ecore_dma_mem b;
	struct e4m_stats st;
	struct rig r;
	uint32_t i;

	(void)state;
	rig_open(&r);
	assert_int_equal(ecore_osal_dma_alloc(&b, "dmaet", "b", 0, 4096, 64), 0);
	memset(b.va, 0x77, 4096);
	/* from an address no DMA memory has, into a good buffer */
	assert_int_equal(ecore_dmae_host2host(r.h, r.ptt, 0x10, b.iova, 64), ECORE_IO);
	for (i = 0; i < 64; i++)
		assert_int_equal(omni_get_le32((uint8_t *)b.va + 4 * i), 0x77777777);
	/* from a good buffer to an address no DMA memory has */
	assert_int_equal(ecore_dmae_host2host(r.h, r.ptt, b.iova, 0xdead00000000ull, 64),
			 ECORE_IO);
	st = stats(&r);
	assert_int_equal(st.dma_faults, 2);
	assert_int_equal(st.dmae_errors, 2);
	assert_int_equal(st.dmae_dwords, 0);
	ecore_osal_dma_free(&b);
	rig_close(&r);
}

/* Post one raw command on channel @p ch (a test's own, not the client's). */
static void
raw_cmd(struct rig *r, unsigned int ch, const uint32_t *c)
{
	unsigned int i;

	for (i = 0; i < DMAE_CMD_SIZE_DW; i++)
		ecore_wr(r->h, r->ptt, DMAE_REG_CMD_MEM + (ch * DMAE_CMD_SIZE_DW + i) * 4, c[i]);
	ecore_wr(r->h, r->ptt, DMAE_REG_GO_C0 + 4 * ch, DMAE_GO_VALUE);
}

/*
 * GRC addresses in a command are dwords with the high word 0: a command whose
 * GRC address has high bits set (bits the engine's GRC side does not have)
 * moves nothing and completes with the error bit; it must not land at the
 * address its low 32 bits alias to (nor may its GRC completion).
 */
static void
test_grc_address_high_bits_are_an_error_not_an_alias(void **state)
{
	struct ecore_dma_mem b;
	uint32_t c[DMAE_CMD_SIZE_DW] = { 0 }, v;
	struct e4m_stats st;
	struct rig r;

	(void)state;
	rig_open(&r);
	assert_int_equal(ecore_osal_dma_alloc(&b, "dmaet", "hi", 0, 4096, 64), 0);
	memset(b.va, 0x5a, 4096);
	/* host -> GRC, GRC address 0x40000000_xxxxxxxx: (dst + len) * 4 wraps */
	c[DMAE_CMD_OPCODE_DW] = DMAE_CMD_DST_GRC << DMAE_CMD_DST_SHIFT | DMAE_CMD_COMP_WORD_EN |
		DMAE_CMD_ERR_HANDLING_COMP_WITH_ERR << DMAE_CMD_ERR_HANDLING_SHIFT;
	c[DMAE_CMD_SRC_LO_DW] = (uint32_t)b.iova;
	c[DMAE_CMD_SRC_HI_DW] = (uint32_t)(b.iova >> 32);
	c[DMAE_CMD_DST_LO_DW] = GRC_AREA / 4;
	c[DMAE_CMD_DST_HI_DW] = 0x40000000;
	c[DMAE_CMD_LEN_DW] = 4;
	c[DMAE_CMD_COMP_LO_DW] = (uint32_t)(b.iova + 2048);
	c[DMAE_CMD_COMP_HI_DW] = (uint32_t)((b.iova + 2048) >> 32);
	c[DMAE_CMD_COMP_VAL_DW] = 0x1234;
	raw_cmd(&r, DMAE_NUM_CHANNELS - 1, c);
	assert_false(e4m_grc_peek(r.m, GRC_AREA, &v));
	assert_int_equal(omni_get_le32((uint8_t *)b.va + 2048),
			 0x1234 | DMAE_COMPLETION_ERROR_BIT);
	/* GRC -> host from such an address: nothing read, the buffer untouched */
	c[DMAE_CMD_OPCODE_DW] = DMAE_CMD_SRC_GRC | DMAE_CMD_DST_PCIE << DMAE_CMD_DST_SHIFT |
		DMAE_CMD_COMP_WORD_EN |
		DMAE_CMD_ERR_HANDLING_COMP_WITH_ERR << DMAE_CMD_ERR_HANDLING_SHIFT;
	c[DMAE_CMD_SRC_LO_DW] = (GRC_AREA + 0x200) / 4;
	c[DMAE_CMD_SRC_HI_DW] = 0xffffffff;
	c[DMAE_CMD_DST_LO_DW] = (uint32_t)(b.iova + 512);
	c[DMAE_CMD_DST_HI_DW] = (uint32_t)((b.iova + 512) >> 32);
	raw_cmd(&r, DMAE_NUM_CHANNELS - 1, c);
	assert_int_equal(omni_get_le32((uint8_t *)b.va + 512), 0x5a5a5a5a);
	/* a GRC completion address with high bits: no write at its alias */
	c[DMAE_CMD_OPCODE_DW] = DMAE_CMD_DST_PCIE << DMAE_CMD_DST_SHIFT | DMAE_CMD_COMP_WORD_EN |
		DMAE_CMD_C_DST_GRC;
	c[DMAE_CMD_SRC_LO_DW] = (uint32_t)b.iova;
	c[DMAE_CMD_SRC_HI_DW] = (uint32_t)(b.iova >> 32);
	c[DMAE_CMD_DST_LO_DW] = (uint32_t)(b.iova + 1024);
	c[DMAE_CMD_DST_HI_DW] = (uint32_t)((b.iova + 1024) >> 32);
	c[DMAE_CMD_COMP_LO_DW] = (GRC_AREA + 0x100) / 4;
	c[DMAE_CMD_COMP_HI_DW] = 0x40000000;
	raw_cmd(&r, DMAE_NUM_CHANNELS - 1, c);
	assert_false(e4m_grc_peek(r.m, GRC_AREA + 0x100, &v));
	st = stats(&r);
	assert_int_equal(st.dmae_errors, 2);
	assert_true(st.bad_accesses >= 3);
	ecore_osal_dma_free(&b);
	rig_close(&r);
}

static void
test_misuse_is_refused(void **state)
{
	struct ecore_dev dev = { .name = "e4none" };
	struct ecore_hwfn *h = &dev.hwfns[0];
	uint32_t buf[4] = { 0 };
	struct rig r;

	(void)state;
	h->p_dev = &dev;
	/* before ecore_dmae_info_alloc() */
	assert_int_equal(ecore_dmae_host2grc(h, NULL, buf, GRC_AREA, 4), ECORE_INVAL);
	rig_open(&r);
	assert_int_equal(ecore_dmae_info_alloc(r.h), ECORE_EXISTS);
	/* GRC addresses are dword addresses to the engine */
	assert_int_equal(ecore_dmae_host2grc(r.h, r.ptt, buf, GRC_AREA + 2, 4), ECORE_INVAL);
	assert_int_equal(ecore_dmae_grc2host(r.h, r.ptt, GRC_AREA + 1, buf, 4), ECORE_INVAL);
	assert_int_equal(stats(&r).dmae_cmds, 0);
	rig_close(&r);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host2grc_moves_each_dword_to_its_address),
		cmocka_unit_test(test_grc2host_reads_what_grc_holds),
		cmocka_unit_test(test_host2host_copies_between_device_addresses),
		cmocka_unit_test(test_fill_writes_the_value_and_nothing_else),
		cmocka_unit_test(test_transfers_beyond_the_bounce_buffer_go_in_chunks),
		cmocka_unit_test(test_sanity_passes_and_fails_on_error_completion),
		cmocka_unit_test(test_dmae_error_fault_gives_ecore_io_and_moves_nothing),
		cmocka_unit_test(test_bad_host_address_is_an_error_and_a_counted_fault),
		cmocka_unit_test(test_grc_address_high_bits_are_an_error_not_an_alias),
		cmocka_unit_test(test_misuse_is_refused),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests_name("e4_dmae", tests, test_eal_setup, test_eal_teardown);
}
