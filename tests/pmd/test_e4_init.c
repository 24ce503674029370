/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * The real init file (8.42.2.0) run on the E4 model: a PF's load from the
 * ENGINE level (ENGINE any, PORT 0, PF 0, QM_PF 0) for 1-port AH and 1-port
 * BB through ecore_init_run(), every poll answered by the model's rules;
 * registers the file writes read back from the model, staged runtime values
 * land where the file says, the storms' RAM byte counts equal a dry run's,
 * the overlays' addresses reach the storms' RAM, and a stuck poll fails the
 * run with ECORE_TIMEOUT (and a following run succeeds).
 *
 * The ecore layer is set up by hand (the init flow comes later): the model,
 * one hwfn, its PTT pool and GTT windows, the runtime array.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "model/e4_model.h"
#include "ecore_hw.h"
#include "ecore_init_fw.h"
#include "ecore_init_ops.h"
#include "ecore_rt_defs.h"
#include "test_case.h"
#include "test_eal.h"

/* Bytes a 1-port PF load writes to the storms' RAM (dry runs of 8.42.2.0). */
#define SEM_BYTES_AH 1882000ull
#define SEM_BYTES_BB 1881976ull

/* ---- fixture ---- */

struct bench {
	struct e4m_dev *m;
	struct ecore_dev dev;
	struct ecore_fw_image *img;
};

static struct ecore_fw_image *
load_842(void)
{
	struct ecore_fw_image *img = NULL;
	char path[512], err[256];

	snprintf(path, sizeof(path), "%s/qed_init_values_zipped-8.42.2.0.bin", E4_FW_DIR);
	if (access(path, R_OK) != 0)
		fail_msg("%s is missing: run scripts/setup.sh (or scripts/setup.sh --firmware) "
			 "as root to fetch Debian's firmware-qlogic", path);
	if (ecore_fw_load_file(path, &img, err, sizeof(err)) != ECORE_SUCCESS)
		fail_msg("%s refused: %s", path, err);
	return img;
}

static void
bench_up(struct bench *b, uint16_t device_id)
{
	struct e4m_config cfg = {
		.device_id = device_id, .num_ports = 1, .num_pfs = 1,
		.base_mac = { 0x00, 0x0e, 0x1e, 0x00, 0x00, 0x00 },
		.mfw_version = 0x083b1600,
	};
	struct ecore_hwfn *h = &b->dev.hwfns[0];

	memset(b, 0, sizeof(*b));
	b->m = e4m_create("e4init", &cfg);
	assert_non_null(b->m);
	snprintf(b->dev.name, sizeof(b->dev.name), "e4init");
	b->dev.bar_ops = &e4m_bar_ops;
	b->dev.bar_ctx = e4m_pf_ctx(b->m, 0);
	b->dev.chip = (device_id & 0xff00) == 0x1600 ? ECORE_CHIP_BB : ECORE_CHIP_AH;
	b->dev.num_hwfns = 1;
	b->dev.num_ports_in_engine = 1;
	h->p_dev = &b->dev;
	snprintf(h->name, sizeof(h->name), "e4init:hwfn0");
	assert_int_equal(ecore_ptt_pool_alloc(h), ECORE_SUCCESS);
	ecore_gtt_init(h);
	assert_int_equal(ecore_dmae_info_alloc(h), ECORE_SUCCESS);
	b->img = load_842();
	b->dev.fw = b->img;
	assert_int_equal(ecore_init_alloc(h), ECORE_SUCCESS);
}

static void
bench_down(struct bench *b)
{
	struct ecore_hwfn *h = &b->dev.hwfns[0];

	ecore_init_free(h);
	ecore_dmae_info_free(h);
	ecore_ptt_pool_free(h);
	ecore_fw_free(b->img);
	e4m_destroy(b->m);
}

/* ---- dry-run figures: storm RAM bytes as the model counts them ---- */

struct ram_count {
	uint64_t bytes[6];	/* X, Y, P, T, M, U SEM */
};

static void
ram_add(struct ram_count *c, uint32_t addr, uint32_t n_dw)
{
	uint32_t i;

	for (i = 0; i < n_dw; i++) {
		uint32_t a = addr + 4 * i, rel;

		if (a < XSEM_REG_FAST_MEMORY || a >= USEM_REG_FAST_MEMORY + 0x100000)
			continue;
		rel = a - XSEM_REG_FAST_MEMORY;
		if (rel % 0x100000 < 0xc0000)
			c->bytes[rel / 0x100000] += 4;
	}
}

static void
ram_write(void *ctx, uint32_t addr, uint32_t val)
{
	RTE_SET_USED(val);
	ram_add(ctx, addr, 1);
}

static uint32_t
ram_read(void *ctx, uint32_t addr)
{
	RTE_SET_USED(ctx);
	RTE_SET_USED(addr);
	return 0;
}

static int
ram_dmae(void *ctx, uint32_t addr, const void *le, uint32_t n_dw)
{
	RTE_SET_USED(le);
	ram_add(ctx, addr, n_dw);
	return 0;
}

static int
ram_fill(void *ctx, uint32_t addr, uint32_t val, uint32_t n_dw)
{
	RTE_SET_USED(val);
	ram_add(ctx, addr, n_dw);
	return 0;
}

static bool
ram_poll(void *ctx, uint32_t addr, uint32_t expected, int type)
{
	RTE_SET_USED(ctx);
	RTE_SET_USED(addr);
	RTE_SET_USED(expected);
	RTE_SET_USED(type);
	return true;
}

static const int phases[4] = {
	PHASE_ENGINE, PHASE_PORT, PHASE_PF, PHASE_QM_PF,
};

static void
dry_ram(const struct ecore_fw_image *img, uint32_t modes, struct ram_count *c)
{
	const struct ecore_init_sink s = {
		.ctx = c, .write = ram_write, .read = ram_read, .dmae_write = ram_dmae,
		.fill = ram_fill, .poll = ram_poll,
	};
	unsigned int i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < 4; i++)
		assert_int_equal(ecore_init_run_sink(img, &s, phases[i],
						     i == 0 ? ECORE_INIT_PHASE_ID_ANY : 0, modes,
						     NULL, NULL), ECORE_SUCCESS);
}

/* ---- the load on the model ---- */

static void
run_pf_load(struct bench *b, struct ecore_init_run_stats *st)
{
	struct ecore_hwfn *h = &b->dev.hwfns[0];
	uint32_t modes = ecore_init_mode_mask(&b->dev);
	unsigned int i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < 4; i++)
		assert_int_equal(ecore_init_run_stats(h, h->p_main_ptt, phases[i],
						      i == 0 ? ECORE_INIT_PHASE_ID_ANY : 0, modes,
						      st), ECORE_SUCCESS);
}

static uint32_t
peek(struct bench *b, uint32_t addr)
{
	uint32_t v;

	if (!e4m_grc_peek(b->m, addr, &v))
		fail_msg("GRC 0x%x was never written", addr);
	return v;
}

/* What differs between the chips' loads (dry runs of 8.42.2.0). */
struct chip_case {
	uint16_t device_id;
	uint32_t modes;
	uint64_t sem_total;	/* bytes to the storms' RAM */
	uint32_t ilt_dw;	/* the ILT zero fill at 0x260000 (dwords) */
	bool k2;		/* K2-only writes (BRB 0x340d74) */
};

static void
check_load(const struct chip_case *cc)
{
	uint16_t device_id = cc->device_id;
	uint32_t modes = cc->modes, v;
	uint64_t sem_total = cc->sem_total;
	struct bench b;
	struct ecore_hwfn *h = &b.dev.hwfns[0];
	struct ecore_init_run_stats st;
	struct e4m_stats ms;
	struct ram_count dry;
	uint64_t total = 0;
	unsigned int i, dma0;

	bench_up(&b, device_id);
	assert_int_equal(ecore_init_mode_mask(&b.dev), modes);
	dry_ram(b.img, modes, &dry);
	for (i = 0; i < 6; i++)
		total += dry.bytes[i];
	assert_int_equal(total, sem_total);

	/* staged runtime values (8.42 numbering): QM's max PQ size 0, WFQ VP credit */
	ecore_init_store_rt_reg(h, 28907, 0x12345678);	/* QM_REG_MAXPQSIZE_0 */
	ecore_init_store_rt_reg(h, QM_REG_WFQVPCRD_RT_OFFSET, 0xabc);
	run_pf_load(&b, &st);
	assert_int_equal(st.polls, 40);
	assert_int_equal(st.poll_timeouts, 0);
	e4m_stats_get(b.m, &ms);
	assert_true(ms.polls_answered >= 20);
	/* every byte the dry run sent to the storms' RAM reached the model's */
	for (i = 0; i < 6; i++)
		assert_int_equal(ms.sem_ram_bytes[i], dry.bytes[i]);
	assert_int_equal(ms.bad_accesses, 0);

	/* spot registers the file writes */
	assert_int_equal(peek(&b, 0x2a0400), 0x50c0007);	/* ENGINE */
	assert_int_equal(peek(&b, 0x1000854), 8);
	assert_int_equal(peek(&b, 0x340840), 0xe1);
	if (cc->k2)
		assert_int_equal(peek(&b, 0x340d74), 0x1e01);
	else
		assert_false(e4m_grc_peek(b.m, 0x340d74, &v));	/* the mode tree said no */
	assert_int_equal(peek(&b, 0x2e0000), 0x1e7f);		/* CCFC init ... */
	assert_int_equal(peek(&b, 0x2e0010), 1);		/* ... and its done */
	assert_int_equal(peek(&b, 0x1c0410), 0);		/* CAU: self-cleared */
	assert_int_equal(peek(&b, 0x260000 + 4 * (cc->ilt_dw - 1)), 0);	/* the ILT zero fill */
	assert_false(e4m_grc_peek(b.m, 0x260000 + 4 * cc->ilt_dw, &v));
	assert_int_equal(peek(&b, 0x1f0738), 0x12b5);		/* PORT 0 */
	assert_int_equal(peek(&b, 0x56007c), 0xf00000);		/* PF 0 */
	assert_int_equal(peek(&b, 0x560084), 1);
	assert_int_equal(peek(&b, 0x2f0434), 0x12345678);	/* QM_PF 0, runtime */
	assert_int_equal(peek(&b, 0x2fc000), 0xabc);		/* QM_PF 0, runtime by DMAE */

	/* overlays: T and U buffers in DMA memory, their addresses in storm RAM */
	dma0 = ecore_osal_dma_in_use();
	assert_int_equal(ecore_init_overlays_load(h, h->p_main_ptt), ECORE_SUCCESS);
	assert_int_equal(ecore_osal_dma_in_use(), dma0 + 2);
	{
		const struct ecore_dma_mem *t = &h->rt_data->overlay[ECORE_FW_STORM_T];
		uint32_t ram = ecore_init_overlay_ram_addr(b.img, ECORE_FW_STORM_T, 0);

		assert_int_equal(ram, TSEM_REG_FAST_MEMORY + 0x20000 + 0x4398);
		assert_int_equal(peek(&b, ram), (uint32_t)t->iova);
		assert_int_equal(peek(&b, ram + 4), (uint32_t)(t->iova >> 32));
		assert_int_equal(t->len, 4 * 7072);
		assert_memory_equal(t->va, b.img->overlay[ECORE_FW_STORM_T].data, t->len);
	}
	/* a second load replaces the buffers */
	assert_int_equal(ecore_init_overlays_load(h, h->p_main_ptt), ECORE_SUCCESS);
	assert_int_equal(ecore_osal_dma_in_use(), dma0 + 2);
	ecore_init_overlays_free(h);
	assert_int_equal(ecore_osal_dma_in_use(), dma0);
	bench_down(&b);
}

static void
test_pf_load_ah_1port(void **state)
{
	static const struct chip_case ah = {
		.device_id = 0x8070, .modes = 0x0c0c, .sem_total = SEM_BYTES_AH,
		.ilt_dw = 22000, .k2 = true,
	};

	RTE_SET_USED(state);
	check_load(&ah);
}

static void
test_pf_load_bb_1port(void **state)
{
	static const struct chip_case bb = {
		.device_id = 0x1634, .modes = 0x0c0a, .sem_total = SEM_BYTES_BB,
		.ilt_dw = 15200, .k2 = false,
	};

	RTE_SET_USED(state);
	check_load(&bb);
}

/* ENGINE with the engine's own id: the PGLUE_B init-done polls too. */
static void
test_engine_id0(void **state)
{
	struct bench b;
	struct ecore_hwfn *h = &b.dev.hwfns[0];
	struct ecore_init_run_stats st;

	RTE_SET_USED(state);
	bench_up(&b, 0x8070);
	memset(&st, 0, sizeof(st));
	assert_int_equal(ecore_init_run_stats(h, h->p_main_ptt, PHASE_ENGINE, 0, 0x0c0c,
					      &st), ECORE_SUCCESS);
	assert_int_equal(st.polls, 41);
	assert_int_equal(peek(&b, 0x2a8004) & 0x1, 0x1);
	bench_down(&b);
}

/* A poll that never completes fails the phase; with the fault off it passes. */
static void
test_poll_stuck(void **state)
{
	struct bench b;
	struct ecore_hwfn *h = &b.dev.hwfns[0];
	struct ecore_init_run_stats st;
	uint64_t t0;

	RTE_SET_USED(state);
	bench_up(&b, 0x8070);
	assert_int_equal(e4m_fault_set(b.m, E4M_FAULT_POLL_STUCK, 0x2f5d80, 0), 0);	/* QM */
	memset(&st, 0, sizeof(st));
	t0 = ecore_osal_time_us();
	assert_int_equal(ecore_init_run_stats(h, h->p_main_ptt, PHASE_ENGINE,
					      ECORE_INIT_PHASE_ID_ANY, 0x0c0c, &st),
			 ECORE_TIMEOUT);
	/* bounded: 100 retries 500 us apart, then it gave up */
	assert_true(ecore_osal_time_us() - t0 >= ECORE_INIT_POLL_TRIES * ECORE_INIT_POLL_US);
	assert_int_equal(st.poll_timeouts, 1);
	assert_int_equal(st.polls, 5);	/* the fifth poll of the phase is QM's */
	e4m_fault_clear(b.m, E4M_FAULT_POLL_STUCK);
	assert_int_equal(ecore_init_run(h, h->p_main_ptt, PHASE_ENGINE,
					ECORE_INIT_PHASE_ID_ANY, 0x0c0c), ECORE_SUCCESS);
	/* the same for a done register that reads done from reset (a CM's buffers) */
	assert_int_equal(e4m_fault_set(b.m, E4M_FAULT_POLL_STUCK, 0x1280acc, 0), 0);
	assert_int_equal(ecore_init_run(h, h->p_main_ptt, PHASE_ENGINE,
					ECORE_INIT_PHASE_ID_ANY, 0x0c0c), ECORE_TIMEOUT);
	bench_down(&b);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pf_load_ah_1port),
		cmocka_unit_test(test_pf_load_bb_1port),
		cmocka_unit_test(test_engine_id0),
		cmocka_unit_test(test_poll_stuck),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests_name("e4_init", tests, test_eal_setup, test_eal_teardown);
}
