/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * The stand-in qed_init_values-8.40.33.0.bin (e4-fw-standin, built): the
 * container layout net_qede reads, version 8.40.33.0, the debug section where
 * qede looks, one overlay buffer, and no op but RUNTIME writes inside one
 * IF_PHASE(PF, any) block (the --empty variant: none).
 */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "test_case.h"
#include "omni_bytes.h"
#include "base/ecore_reg.h"
#include "base/ecore_rt_defs.h"

static uint8_t *
load(const char *path, long *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	*len = ftell(f);
	rewind(f);
	buf = malloc(*len);
	assert_non_null(buf);
	assert_int_equal(fread(buf, *len, 1, f), 1);
	fclose(f);
	return buf;
}

/* Checks what both variants share; returns INIT_CMD's offset and length. */
static void
check_container(const uint8_t *img, long len, uint32_t *cmd_off, uint32_t *cmd_len)
{
	const uint8_t *blob = img + 4;
	uint32_t i, ov;

	assert_int_equal(omni_get_le32(img), 1337296);
	assert_true(len >= 1337296 + 64 * 1024);		/* qede's debug buffers: zeros */
	for (i = 1337296; i < (uint32_t)len; i++)
		assert_int_equal(img[i], 0);
	assert_int_equal(omni_get_le32(blob), 7 * 8);		/* 7 slots */
	assert_int_equal(omni_get_le32(blob + 4), 16);		/* FW_VER_INFO */
	assert_int_equal(blob[7 * 8 + 4], 8);
	assert_int_equal(blob[7 * 8 + 5], 40);
	assert_int_equal(blob[7 * 8 + 6], 33);
	*cmd_off = omni_get_le32(blob + 8);
	*cmd_len = omni_get_le32(blob + 12);
	assert_int_equal(*cmd_len % 8, 0);
	for (i = 0; i < 5; i++)	/* buffers 0..5 follow each other in the blob */
		assert_int_equal(omni_get_le32(blob + 8 * (i + 1)),
				 omni_get_le32(blob + 8 * i) + omni_get_le32(blob + 8 * i + 4));
	assert_int_equal(omni_get_le32(blob + 6 * 8), 0xffffffff);
	ov = omni_get_le32(blob + 5 * 8);
	assert_int_equal(omni_get_le32(blob + 5 * 8 + 4), 8);	/* one T buffer, 1 dword */
	assert_int_equal(omni_get_le32(blob + ov), 0u | 1u << 8);
}

static void
test_standin_runtime_ops_only(void **state)
{
	uint32_t off, n, i, d0, d1, rt, size, addr;
	bool ilt = false, cau = false, cduc = false;
	const uint8_t *ops;
	uint8_t *img;
	long len;

	(void)state;
	img = load(E4_STANDIN, &len);
	check_container(img, len, &off, &n);
	ops = img + 4 + off;
	assert_true(n >= 16);
	/* IF_PHASE(PF, any) skipping all the others */
	assert_int_equal(omni_get_le32(ops) & 0xf, 3);
	assert_int_equal(omni_get_le32(ops) >> 16, n / 8 - 1);
	assert_int_equal(omni_get_le32(ops + 4), 2u | 0xffffu << 16);
	for (i = 1; i < n / 8; i++) {
		d0 = omni_get_le32(ops + 8 * i);
		d1 = omni_get_le32(ops + 8 * i + 4);
		assert_int_equal(d0 & 0xf, 1);			/* WRITE */
		assert_int_equal((d0 >> 4) & 7, 3);		/* from the runtime array */
		size = d1 & 0xffff;
		rt = d1 >> 16;
		addr = (d0 >> 9) << 2;
		assert_true(size > 0 && rt + size <= 34472);
		if (addr == PSWRQ2_REG_ILT_MEMORY) {
			ilt = true;
			assert_int_equal(rt, PSWRQ2_REG_ILT_MEMORY_RT_OFFSET);
			assert_true(d0 & 0x100);		/* wide-bus: by DMAE */
		}
		if (addr == CAU_REG_SB_ADDR_MEMORY) {
			cau = true;
			assert_int_equal(rt, CAU_REG_SB_ADDR_MEMORY_RT_OFFSET);
		}
		if (addr == PSWRQ2_REG_CDUC_FIRST_ILT) {
			cduc = true;
			assert_int_equal(size, 2);
		}
	}
	assert_true(ilt && cau && cduc);
	free(img);
}

static void
test_standin_empty_has_no_ops(void **state)
{
	uint32_t off, n;
	uint8_t *img;
	long len;

	(void)state;
	img = load(E4_STANDIN_EMPTY, &len);
	check_container(img, len, &off, &n);
	assert_int_equal(n, 0);
	free(img);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_standin_runtime_ops_only),
		cmocka_unit_test(test_standin_empty_has_no_ops),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests_name("e4_fw_standin", tests, NULL, NULL);
}
