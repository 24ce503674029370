/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * net_e4's init-values file loader without EAL: the real 8.42.2.0 (and
 * 8.59.1.0) file against the facts' figures (shared/facts/e4-firmware.md),
 * dry runs of a PF load over a recording sink, the mode-tree evaluator,
 * the runner's rules on hand-made images, the runtime array, and hand-made
 * bad files each refused with its reason.
 *
 * The real files come from scripts/setup.sh (E4_FW_DIR, set by meson); a
 * case that needs one fails when it is missing.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "e4_fw_build.h"
#include "ecore_init_fw.h"
#include "ecore_init_ops.h"
#include "ecore_rt_defs.h"
#include "test_case.h"

#define FILE_CAP (1u << 20)

/* ---- the real files ---- */

static struct ecore_fw_image *
load_real(const char *ver)
{
	struct ecore_fw_image *img = NULL;
	char path[512], err[256];

	snprintf(path, sizeof(path), "%s/qed_init_values_zipped-%s.bin", E4_FW_DIR, ver);
	if (access(path, R_OK) != 0)
		fail_msg("%s is missing: run scripts/setup.sh (or scripts/setup.sh --firmware) "
			 "as root to fetch Debian's firmware-qlogic", path);
	if (ecore_fw_load_file(path, &img, err, sizeof(err)) != ECORE_SUCCESS)
		fail_msg("%s refused: %s", path, err);
	return img;
}

/* ---- a recording sink ---- */

struct rec {
	unsigned int n_wr;
	uint32_t wr_addr[64], wr_val[64];
	unsigned int n_dmae;
	uint32_t dmae_addr[64], dmae_n[64], dmae_first[64];
	unsigned int n_fill;
	uint32_t fill_addr[16], fill_n[16];
	unsigned int n_rd, n_delay, n_cb, n_poll;
	uint32_t rd_val;		/* what reads return */
	bool poll_ok;			/* dry runs: polls complete */
	int cb_rc;
};

static void
rec_write(void *ctx, uint32_t addr, uint32_t val)
{
	struct rec *r = ctx;

	if (r->n_wr < 64) {
		r->wr_addr[r->n_wr] = addr;
		r->wr_val[r->n_wr] = val;
	}
	r->n_wr++;
}

static uint32_t
rec_read(void *ctx, uint32_t addr)
{
	struct rec *r = ctx;

	(void)addr;
	r->n_rd++;
	return r->rd_val;
}

static int
rec_dmae(void *ctx, uint32_t addr, const void *le, uint32_t n_dw)
{
	struct rec *r = ctx;

	if (r->n_dmae < 64) {
		r->dmae_addr[r->n_dmae] = addr;
		r->dmae_n[r->n_dmae] = n_dw;
		r->dmae_first[r->n_dmae] = omni_get_le32(le);
	}
	r->n_dmae++;
	return 0;
}

static int
rec_fill(void *ctx, uint32_t addr, uint32_t val, uint32_t n_dw)
{
	struct rec *r = ctx;

	assert_int_equal(val, 0);
	if (r->n_fill < 16) {
		r->fill_addr[r->n_fill] = addr;
		r->fill_n[r->n_fill] = n_dw;
	}
	r->n_fill++;
	return 0;
}

static int
rec_cb(void *ctx, uint16_t id, uint16_t block)
{
	struct rec *r = ctx;

	(void)block;
	assert_int_equal(id, ECORE_INIT_CB_DMAE_READY);
	r->n_cb++;
	return r->cb_rc;
}

static void
rec_delay(void *ctx, uint32_t us)
{
	struct rec *r = ctx;

	(void)us;
	r->n_delay++;
}

static bool
rec_poll(void *ctx, uint32_t addr, uint32_t expected, int type)
{
	struct rec *r = ctx;

	(void)addr;
	(void)expected;
	(void)type;
	r->n_poll++;
	return r->poll_ok;
}

static struct ecore_init_sink
rec_sink(struct rec *r, bool dry)
{
	struct ecore_init_sink s = {
		.ctx = r, .write = rec_write, .read = rec_read, .dmae_write = rec_dmae,
		.fill = rec_fill, .callback = rec_cb, .delay = rec_delay,
		.poll = dry ? rec_poll : NULL,
	};

	r->poll_ok = true;
	return s;
}

/* ENGINE (any), PORT 0, PF 0, QM_PF 0: a PF's load from the ENGINE level. */
static void
dry_pf_load(const struct ecore_fw_image *img, uint32_t modes, struct ecore_init_run_stats *st,
	    struct ecore_init_run_stats per_phase[4])
{
	static const int phases[4] = {
		PHASE_ENGINE, PHASE_PORT, PHASE_PF, PHASE_QM_PF,
	};
	struct rec r;
	struct ecore_init_sink s;
	unsigned int i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < 4; i++) {
		memset(&r, 0, sizeof(r));
		s = rec_sink(&r, true);
		memset(&per_phase[i], 0, sizeof(per_phase[i]));
		assert_int_equal(ecore_init_run_sink(img, &s, phases[i],
						     i == 0 ? ECORE_INIT_PHASE_ID_ANY : 0, modes,
						     NULL, &per_phase[i]), ECORE_SUCCESS);
		assert_int_equal(ecore_init_run_sink(img, &s, phases[i],
						     i == 0 ? ECORE_INIT_PHASE_ID_ANY : 0, modes,
						     NULL, st), ECORE_SUCCESS);
	}
}

static void
test_real_842_layout(void **state)
{
	struct ecore_fw_image *img = load_real("8.42.2.0");
	static const struct {
		enum ecore_iro_name n;
		uint32_t base, m1, m2;
		uint16_t size;
	} l2[] = {
		{ ECORE_IRO_MSTORM_ETH_PF_PRODS, 0x1f8, 4, 0, 4 },
		{ ECORE_IRO_MSTORM_ETH_VF_PRODS, 0x4560, 128, 4, 4 },
		{ ECORE_IRO_USTORM_EQE_CONS, 0x0, 8, 0, 2 },
		{ ECORE_IRO_USTORM_FLR_FINAL_ACK, 0xa80, 8, 0, 4 },
		{ ECORE_IRO_USTORM_VF_PF_CHANNEL_READY, 0xb00, 8, 0, 4 },
		{ ECORE_IRO_USTORM_ETH_QUEUE_ZONE, 0x80, 8, 0, 4 },
		{ ECORE_IRO_USTORM_COMMON_QUEUE_CONS, 0x84, 8, 0, 2 },
		{ ECORE_IRO_XSTORM_ETH_QUEUE_ZONE, 0x1f8, 8, 0, 8 },
		{ ECORE_IRO_TSTORM_ETH_RSS_UPDATE, 0x1c0, 8, 0, 8 },
		{ ECORE_IRO_TSTORM_PORT_STAT, 0x3288, 136, 0, 136 },
		{ ECORE_IRO_MSTORM_QUEUE_STAT, 0x3d20, 128, 0, 64 },
		{ ECORE_IRO_USTORM_QUEUE_STAT, 0x8960, 64, 0, 48 },
		{ ECORE_IRO_MSTORM_ETH_PF_STAT, 0x3d60, 128, 0, 32 },
		{ ECORE_IRO_USTORM_ETH_PF_STAT, 0xe840, 96, 0, 96 },
	};
	unsigned int i;

	(void)state;
	assert_string_equal(img->profile->name, "8.42.2.0");
	assert_int_equal(img->ver.major, 8);
	assert_int_equal(img->ver.minor, 42);
	assert_int_equal(img->ver.rev, 2);
	assert_int_equal(img->ver.eng, 0);
	assert_int_equal(img->n_slots, 7);
	assert_int_equal(img->n_ops, 3493);
	assert_int_equal(img->buf[ECORE_FW_BUF_INIT_CMD].len, 27944);
	assert_int_equal(img->buf[ECORE_FW_BUF_INIT_VAL].len, 574208);
	assert_int_equal(img->buf[ECORE_FW_BUF_MODE_TREE].len, 264);
	assert_int_equal(img->n_iro, 69);
	assert_int_equal(img->buf[ECORE_FW_BUF_OVERLAYS].len, 28712);
	/* 47 WRITE ops reference zipped arrays, all inflated at parse; they
	 * share 44 distinct arrays (three are written twice) */
	assert_int_equal(img->n_array_refs[ECORE_INIT_ARR_ZIPPED], 47);
	assert_int_equal(img->n_arrays[ECORE_INIT_ARR_ZIPPED], 44);
	assert_int_equal(img->n_zipped, 44);
	assert_int_equal(img->n_arrays[ECORE_INIT_ARR_STANDARD], 316);
	assert_int_equal(img->n_arrays[ECORE_INIT_ARR_PATTERN], 47);
	/* the L2 IRO entries of facts section 5, read from the file */
	for (i = 0; i < RTE_DIM(l2); i++) {
		assert_int_equal(ecore_iro_addr(img, l2[i].n, 0, 0, 0), l2[i].base);
		assert_int_equal(ecore_iro_addr(img, l2[i].n, 1, 0, 0), l2[i].base + l2[i].m1);
		assert_int_equal(ecore_iro_addr(img, l2[i].n, 3, 2, 0),
				 l2[i].base + 3 * l2[i].m1 + 2 * l2[i].m2);
		assert_int_equal(ecore_iro_size(img, l2[i].n), l2[i].size);
	}
	/* overlays: T 7072 dwords, U 104 (facts section 6) */
	assert_non_null(img->overlay[ECORE_FW_STORM_T].data);
	assert_int_equal(img->overlay[ECORE_FW_STORM_T].n_dw, 7072);
	assert_non_null(img->overlay[ECORE_FW_STORM_U].data);
	assert_int_equal(img->overlay[ECORE_FW_STORM_U].n_dw, 104);
	assert_null(img->overlay[ECORE_FW_STORM_X].data);
	/* where the overlay addresses go: SEM fast memory + internal RAM + IRO */
	assert_int_equal(ecore_init_overlay_ram_addr(img, ECORE_FW_STORM_T, 0),
			 0x1740000 + 0x20000 + 0x4398);
	assert_int_equal(ecore_init_overlay_ram_addr(img, ECORE_FW_STORM_U, 2),
			 0x1940000 + 0x20000 + 0xbde8 + 16);
	ecore_fw_free(img);
}

static void
test_real_842_dry_runs(void **state)
{
	struct ecore_fw_image *img = load_real("8.42.2.0");
	struct ecore_init_run_stats st, ph[4];

	(void)state;
	/* K2 (AH) 1-port: facts section 4 */
	dry_pf_load(img, 0x0c0c, &st, ph);
	assert_int_equal(st.ops, 3325);
	assert_int_equal(st.writes, 1661);
	assert_int_equal(st.polls, 40);
	assert_int_equal(st.bytes, 2112464);
	assert_int_equal(ph[0].ops, 2041);
	assert_int_equal(ph[0].writes, 1462);
	assert_int_equal(ph[0].callbacks, 1);
	assert_int_equal(ph[1].writes, 58);
	assert_int_equal(ph[2].writes, 117);
	assert_int_equal(ph[2].polls, 1);
	assert_int_equal(ph[3].writes, 24);
	assert_int_equal(ph[3].writes_by_src[ECORE_INIT_SRC_RUNTIME], 24);
	assert_int_equal(st.poll_timeouts, 0);
	/* ≈14,000 8-byte PATTERN transfers in the ENGINE phase */
	assert_true(ph[0].dmae_writes > 14000);

	/* BB 1-port */
	dry_pf_load(img, 0x0c0a, &st, ph);
	assert_int_equal(st.ops, 3265);
	assert_int_equal(st.writes, 1601);
	assert_int_equal(st.polls, 40);
	assert_int_equal(st.bytes, 2079788);
	ecore_fw_free(img);
}

static void
test_real_859(void **state)
{
	struct ecore_fw_image *img = load_real("8.59.1.0");
	struct ecore_init_run_stats st, ph[4];

	(void)state;
	assert_string_equal(img->profile->name, "8.59.1.0");
	assert_int_equal(img->ver.eng, 1);	/* the file says 8.59.1.1 */
	assert_int_equal(img->n_ops, 3544);
	assert_int_equal(img->n_iro, 71);
	assert_int_equal(img->buf[ECORE_FW_BUF_MODE_TREE].len, 263);
	assert_int_equal(img->buf[ECORE_FW_BUF_OVERLAYS].len, 60364);
	assert_int_equal(img->profile->rt_size, 34984);
	/* the L2 entries are the same numbers at their new places */
	assert_int_equal(ecore_iro_addr(img, ECORE_IRO_USTORM_EQE_CONS, 1, 0, 0), 8);
	assert_int_equal(ecore_iro_addr(img, ECORE_IRO_TSTORM_PORT_STAT, 1, 0, 0), 0x3288 + 136);
	assert_int_equal(ecore_iro_addr(img, ECORE_IRO_MSTORM_ETH_VF_PRODS, 1, 1, 0),
			 0x4560 + 128 + 4);
	assert_int_equal(ecore_iro_addr(img, ECORE_IRO_USTORM_ETH_PF_STAT, 0, 0, 0), 0xe840);
	dry_pf_load(img, 0x0c0c, &st, ph);
	assert_int_equal(st.polls, 40);
	assert_int_equal(st.poll_timeouts, 0);
	assert_true(st.writes > 1600);
	ecore_fw_free(img);
}

static void
test_load_file_default_and_missing(void **state)
{
	struct ecore_fw_image *img = NULL;
	char err[256];

	(void)state;
	assert_int_equal(ecore_fw_load_file("/nonexistent/qed.bin", &img, err, sizeof(err)),
			 ECORE_NODEV);
	assert_null(img);
	assert_non_null(strstr(err, "/nonexistent/qed.bin"));
	/* NULL: /lib/firmware/qed, 8.42.2.0 first; found or a message naming both files */
	if (ecore_fw_load_file(NULL, &img, err, sizeof(err)) == ECORE_SUCCESS) {
		assert_true(img->profile != NULL);
		ecore_fw_free(img);
	} else {
		assert_non_null(strstr(err, "qed_init_values_zipped-8.42.2.0.bin"));
		assert_non_null(strstr(err, "qed_init_values_zipped-8.59.1.0.bin"));
	}
	/* a file of another version (8.37.2.0 ships beside ours) is refused by version */
	{
		char path[512];

		snprintf(path, sizeof(path), "%s/qed_init_values_zipped-8.37.2.0.bin", E4_FW_DIR);
		if (access(path, R_OK) != 0)
			fail_msg("%s is missing: run scripts/setup.sh", path);
		assert_int_equal(ecore_fw_load_file(path, &img, err, sizeof(err)), ECORE_INVAL);
		assert_non_null(strstr(err, "firmware 8.37.2.0 has no profile"));
	}
}

/* ---- the mode-tree evaluator ---- */

enum { NOT = 0, OR = 1, AND = 2 };
#define M(bit) ((uint8_t)((bit) + 3))

static void
test_mode_tree(void **state)
{
	const uint8_t t[] = {
		/* 0: K2 */ M(ECORE_MODE_K2),
		/* 1: AND BB NOT PORTS_PER_ENG_2 */
		AND, M(ECORE_MODE_BB), NOT, M(ECORE_MODE_PORTS_PER_ENG_2),
		/* 5: OR AND K2 ASIC NOT NOT MF_SD */
		OR, AND, M(ECORE_MODE_K2), M(ECORE_MODE_ASIC), NOT, NOT, M(ECORE_MODE_MF_SD),
		/* 12: mode bit 31 */ M(31),
		/* 13: mode bit 32: malformed */ M(32),
		/* 14: OR with one operand before the end */ OR, M(ECORE_MODE_BB),
	};
	uint32_t ah1 = 0x0c0c, bb1 = 0x0c0a, bb2 = 1u << ECORE_MODE_BB |
		1u << ECORE_MODE_PORTS_PER_ENG_2;
	uint8_t deep[130];
	unsigned int i;

	(void)state;
	assert_int_equal(ecore_init_mode_eval(t, sizeof(t), 0, ah1), 1);
	assert_int_equal(ecore_init_mode_eval(t, sizeof(t), 0, bb1), 0);
	assert_int_equal(ecore_init_mode_eval(t, sizeof(t), 1, bb1), 1);
	assert_int_equal(ecore_init_mode_eval(t, sizeof(t), 1, bb2), 0);
	assert_int_equal(ecore_init_mode_eval(t, sizeof(t), 1, ah1), 0);
	/* expressions share bytes: 3 is "NOT PORTS_PER_ENG_2" on its own */
	assert_int_equal(ecore_init_mode_eval(t, sizeof(t), 3, ah1), 1);
	assert_int_equal(ecore_init_mode_eval(t, sizeof(t), 5, ah1), 1);
	assert_int_equal(ecore_init_mode_eval(t, sizeof(t), 5, bb1), 0);
	assert_int_equal(ecore_init_mode_eval(t, sizeof(t), 5, 1u << ECORE_MODE_MF_SD), 1);
	assert_int_equal(ecore_init_mode_eval(t, sizeof(t), 5, 1u << ECORE_MODE_K2), 0);
	assert_int_equal(ecore_init_mode_eval(t, sizeof(t), 12, 1u << 31), 1);
	assert_int_equal(ecore_init_mode_eval(t, sizeof(t), 12, ah1), 0);
	assert_int_equal(ecore_init_mode_eval(t, sizeof(t), 13, ah1), -1);
	assert_int_equal(ecore_init_mode_eval(t, sizeof(t), 14, bb1), -1);
	assert_int_equal(ecore_init_mode_eval(t, sizeof(t), sizeof(t), ah1), -1);
	/* 64 pending operands are fine, 65 are refused */
	for (i = 0; i < 64; i++)
		deep[i] = OR;
	for (; i < 129; i++)
		deep[i] = M(ECORE_MODE_K2);
	assert_int_equal(ecore_init_mode_eval(deep, 129, 0, ah1), -1);
	assert_int_equal(ecore_init_mode_eval(deep, 129, 1, ah1), 1);
	assert_int_equal(ecore_init_mode_eval(deep, 129, 1, bb1), 0);
	/* a long NOT chain needs no depth at all */
	memset(deep, NOT, sizeof(deep));
	deep[129] = M(ECORE_MODE_BB);
	assert_int_equal(ecore_init_mode_eval(deep, 130, 0, bb1), 0);	/* 129 NOTs */
	assert_int_equal(ecore_init_mode_eval(deep, 130, 1, bb1), 1);	/* 128 */
}

static void
test_mode_mask(void **state)
{
	struct ecore_dev d;

	(void)state;
	memset(&d, 0, sizeof(d));
	d.chip = ECORE_CHIP_AH;
	d.num_hwfns = 1;
	d.num_ports_in_engine = 1;
	assert_int_equal(ecore_init_mode_mask(&d), 0x0c0c);
	d.num_ports_in_engine = 2;
	assert_int_equal(ecore_init_mode_mask(&d), 0x140c);
	d.num_ports_in_engine = 4;
	assert_int_equal(ecore_init_mode_mask(&d), 0x240c);
	d.chip = ECORE_CHIP_BB;
	d.num_ports_in_engine = 1;
	assert_int_equal(ecore_init_mode_mask(&d), 0x0c0a);
	d.num_hwfns = 2;
	assert_int_equal(ecore_init_mode_mask(&d), 0x4c0a);
}

/* ---- the runner on hand-made images ---- */

static struct fwb *
fwb_new(void)
{
	struct fwb *b = malloc(sizeof(*b));

	assert_non_null(b);
	fwb_init(b);
	return b;
}

static struct ecore_fw_image *
fwb_parse(const struct fwb *b, char *err, size_t err_len, enum _ecore_status_t *rc)
{
	static uint8_t file[FILE_CAP];
	struct ecore_fw_image *img = NULL;
	size_t n = fwb_emit(b, file, sizeof(file));

	assert_true(n > 0);
	*rc = ecore_fw_parse(file, n, &img, err, err_len);
	return img;
}

static struct ecore_fw_image *
fwb_good(const struct fwb *b)
{
	enum _ecore_status_t rc;
	char err[256];
	struct ecore_fw_image *img = fwb_parse(b, err, sizeof(err), &rc);

	if (rc != ECORE_SUCCESS)
		fail_msg("hand-made image refused: %s", err);
	return img;
}

static void
test_run_phases_and_dmae_rules(void **state)
{
	struct fwb *b = fwb_new();
	uint32_t data[20], pat[2] = { 0xa, 0xb }, blk, m, small, big, p;
	struct ecore_init_run_stats st;
	struct ecore_fw_image *img;
	struct rec r;
	struct ecore_init_sink s;
	const uint8_t k2_expr[] = { M(ECORE_MODE_K2) };
	unsigned int i;

	(void)state;
	for (i = 0; i < 20; i++)
		data[i] = 0x100 + i;
	small = fwb_array(b, data, 4);
	big = fwb_array(b, data, 20);
	p = fwb_pattern(b, pat, 2, 3);
	m = fwb_tree(b, k2_expr, 1);
	/* ENGINE (any): inline, small array by registers, zeros 64 by registers
	 * (DMAE not ready), DMAE_READY, then big array and zeros 64 by DMAE */
	blk = fwb_if_phase(b, PHASE_ENGINE, ECORE_INIT_PHASE_ID_ANY, 0);
	fwb_write(b, ECORE_INIT_SRC_INLINE, false, 0x1000, 0x55);
	fwb_write(b, ECORE_INIT_SRC_ARRAY, false, 0x2000, big);
	fwb_write(b, ECORE_INIT_SRC_ZEROS, false, 0x3000, 64);
	fwb_callback(b, ECORE_INIT_CB_DMAE_READY, 22);
	fwb_write(b, ECORE_INIT_SRC_ARRAY, false, 0x4000, big);
	fwb_write(b, ECORE_INIT_SRC_ARRAY, false, 0x5000, small);
	fwb_write(b, ECORE_INIT_SRC_ZEROS, false, 0x6000, 64);
	fwb_write(b, ECORE_INIT_SRC_ZEROS, true, 0x7000, 2);
	fwb_write(b, ECORE_INIT_SRC_ARRAY, true, 0x8000, p);
	fwb_end_block(b, blk);
	/* ENGINE id 1 only */
	blk = fwb_if_phase(b, PHASE_ENGINE, 1, 0);
	fwb_write(b, ECORE_INIT_SRC_INLINE, false, 0x9000, 1);
	fwb_end_block(b, blk);
	/* PF (any): K2 only */
	blk = fwb_if_phase(b, PHASE_PF, ECORE_INIT_PHASE_ID_ANY, 0);
	fwb_if_mode(b, m, 1);
	fwb_write(b, ECORE_INIT_SRC_INLINE, false, 0xa000, 2);
	fwb_write(b, ECORE_INIT_SRC_INLINE, false, 0xa004, 3);
	fwb_end_block(b, blk);
	/* PF: a wide-bus write is fine from the start (DMAE allowed) */
	blk = fwb_if_phase(b, PHASE_PF, 0, 0);
	fwb_write(b, ECORE_INIT_SRC_ZEROS, true, 0xb000, 4);
	fwb_end_block(b, blk);
	img = fwb_good(b);

	memset(&r, 0, sizeof(r));
	s = rec_sink(&r, true);
	memset(&st, 0, sizeof(st));
	assert_int_equal(ecore_init_run_sink(img, &s, PHASE_ENGINE, ECORE_INIT_PHASE_ID_ANY,
					     0x0c0c, NULL, &st), ECORE_SUCCESS);
	/* registers: 1 inline + 20 array + 64 zeros + 4 small array after READY */
	assert_int_equal(r.n_wr, 1 + 20 + 64 + 4);
	assert_int_equal(r.wr_addr[0], 0x1000);
	assert_int_equal(r.wr_val[0], 0x55);
	assert_int_equal(r.wr_addr[1], 0x2000);
	assert_int_equal(r.wr_val[1], 0x100);
	assert_int_equal(r.wr_addr[20], 0x2000 + 19 * 4);
	assert_int_equal(r.wr_val[20], 0x113);
	assert_int_equal(r.n_cb, 1);
	/* DMAE: big array (20), then pattern 3 repetitions of 2 dwords */
	assert_int_equal(r.n_dmae, 4);
	assert_int_equal(r.dmae_addr[0], 0x4000);
	assert_int_equal(r.dmae_n[0], 20);
	assert_int_equal(r.dmae_first[0], 0x100);
	for (i = 0; i < 3; i++) {
		assert_int_equal(r.dmae_addr[1 + i], 0x8000 + 8 * i);
		assert_int_equal(r.dmae_n[1 + i], 2);
		assert_int_equal(r.dmae_first[1 + i], 0xa);
	}
	/* fills: zeros 64 after READY, wide zeros 2 */
	assert_int_equal(r.n_fill, 2);
	assert_int_equal(r.fill_addr[0], 0x6000);
	assert_int_equal(r.fill_n[0], 64);
	assert_int_equal(r.fill_addr[1], 0x7000);
	assert_int_equal(st.writes, 8);
	assert_int_equal(st.bytes, 4 + 80 + 256 + 80 + 16 + 256 + 8 + 24);
	assert_int_equal(st.dmae_writes, 4);
	assert_int_equal(st.dmae_fills, 2);

	/* ENGINE id 1 adds the id-1 block */
	memset(&r, 0, sizeof(r));
	s = rec_sink(&r, true);
	assert_int_equal(ecore_init_run_sink(img, &s, PHASE_ENGINE, 1, 0x0c0c, NULL, NULL),
			 ECORE_SUCCESS);
	assert_int_equal(r.n_wr, 1 + 20 + 64 + 4 + 1);

	/* PF 0 on K2: the mode block and the wide fill; on BB: the fill only */
	memset(&r, 0, sizeof(r));
	s = rec_sink(&r, true);
	assert_int_equal(ecore_init_run_sink(img, &s, PHASE_PF, 0, 0x0c0c, NULL, NULL),
			 ECORE_SUCCESS);
	assert_int_equal(r.n_wr, 2);
	assert_int_equal(r.wr_addr[1], 0xa004);
	assert_int_equal(r.n_fill, 1);
	memset(&r, 0, sizeof(r));
	s = rec_sink(&r, true);
	assert_int_equal(ecore_init_run_sink(img, &s, PHASE_PF, 0, 0x0c0a, NULL, NULL),
			 ECORE_SUCCESS);
	assert_int_equal(r.n_wr, 1);
	assert_int_equal(r.wr_addr[0], 0xa004);
	/* PORT: nothing of it */
	memset(&r, 0, sizeof(r));
	s = rec_sink(&r, true);
	assert_int_equal(ecore_init_run_sink(img, &s, PHASE_PORT, 0, 0x0c0c, NULL, NULL),
			 ECORE_SUCCESS);
	assert_int_equal(r.n_wr + r.n_dmae + r.n_fill, 0);
	/* a failing callback fails the run */
	memset(&r, 0, sizeof(r));
	s = rec_sink(&r, true);
	r.cb_rc = ECORE_TIMEOUT;
	assert_int_equal(ecore_init_run_sink(img, &s, PHASE_ENGINE, ECORE_INIT_PHASE_ID_ANY,
					     0x0c0c, NULL, NULL), ECORE_TIMEOUT);
	assert_int_equal(r.n_dmae, 0);
	ecore_fw_free(img);
	free(b);
}

static void
test_run_zipped(void **state)
{
	struct fwb *b = fwb_new();
	struct ecore_fw_image *img;
	struct rec r;
	struct ecore_init_sink s;
	uint32_t data[256], z, blk, i, n_dw;

	(void)state;
	for (i = 0; i < 256; i++)
		omni_put_le32(&data[i], 0x1000 + i);
	z = fwb_zipped(b, data, sizeof(data));
	blk = fwb_if_phase(b, PHASE_PF, ECORE_INIT_PHASE_ID_ANY, 0);
	fwb_write(b, ECORE_INIT_SRC_ARRAY, false, 0x40000, z);
	fwb_write(b, ECORE_INIT_SRC_ARRAY, false, 0x50000, z);	/* shared */
	fwb_end_block(b, blk);
	img = fwb_good(b);
	assert_int_equal(img->n_zipped, 1);
	assert_int_equal(img->n_array_refs[ECORE_INIT_ARR_ZIPPED], 2);
	assert_non_null(ecore_fw_zipped_data(img, z, &n_dw));
	assert_int_equal(n_dw, 256);
	assert_null(ecore_fw_zipped_data(img, z + 1, &n_dw));
	memset(&r, 0, sizeof(r));
	s = rec_sink(&r, true);
	assert_int_equal(ecore_init_run_sink(img, &s, PHASE_PF, 0, 0, NULL, NULL),
			 ECORE_SUCCESS);
	assert_int_equal(r.n_dmae, 2);
	assert_int_equal(r.dmae_addr[1], 0x50000);
	assert_int_equal(r.dmae_n[0], 256);
	assert_int_equal(r.dmae_first[0], 0x1000);
	ecore_fw_free(img);
	free(b);
}

static void
test_run_wide_before_dmae_ready(void **state)
{
	struct fwb *b = fwb_new();
	struct ecore_fw_image *img;
	struct rec r;
	struct ecore_init_sink s;
	uint32_t blk;

	(void)state;
	blk = fwb_if_phase(b, PHASE_ENGINE, ECORE_INIT_PHASE_ID_ANY, 0);
	fwb_write(b, ECORE_INIT_SRC_INLINE, false, 0x1000, 1);
	fwb_write(b, ECORE_INIT_SRC_ZEROS, true, 0x2000, 8);
	fwb_write(b, ECORE_INIT_SRC_INLINE, false, 0x3000, 1);
	fwb_end_block(b, blk);
	img = fwb_good(b);
	memset(&r, 0, sizeof(r));
	s = rec_sink(&r, true);
	assert_int_equal(ecore_init_run_sink(img, &s, PHASE_ENGINE, ECORE_INIT_PHASE_ID_ANY,
					     0, NULL, NULL), ECORE_INVAL);
	assert_int_equal(r.n_wr, 1);	/* stopped there */
	assert_int_equal(r.n_fill, 0);
	ecore_fw_free(img);
	free(b);
}

static void
test_run_polls(void **state)
{
	struct fwb *b = fwb_new();
	struct ecore_init_run_stats st;
	struct ecore_fw_image *img;
	struct rec r;
	struct ecore_init_sink s;

	(void)state;
	fwb_read(b, ECORE_INIT_POLL_NONE, 0x100, 0);
	fwb_read(b, ECORE_INIT_POLL_EQ, 0x104, 5);
	fwb_read(b, ECORE_INIT_POLL_AND, 0x108, 0x4);
	fwb_read(b, ECORE_INIT_POLL_OR, 0x10c, 0);
	img = fwb_good(b);

	/* reads return 5: EQ 5 and AND 0x4 complete at once, OR 0 too (5 | 0) */
	memset(&r, 0, sizeof(r));
	s = rec_sink(&r, false);
	r.rd_val = 5;
	memset(&st, 0, sizeof(st));
	assert_int_equal(ecore_init_run_sink(img, &s, PHASE_PF, 0, 0, NULL, &st),
			 ECORE_SUCCESS);
	assert_int_equal(r.n_rd, 4);
	assert_int_equal(r.n_delay, 0);
	assert_int_equal(st.reads, 4);
	assert_int_equal(st.polls, 3);

	/* reads return 0: EQ 5 never completes: 1 + 100 reads, 100 waits */
	memset(&r, 0, sizeof(r));
	s = rec_sink(&r, false);
	r.rd_val = 0;
	memset(&st, 0, sizeof(st));
	assert_int_equal(ecore_init_run_sink(img, &s, PHASE_PF, 0, 0, NULL, &st),
			 ECORE_TIMEOUT);
	assert_int_equal(r.n_rd, 1 + 1 + ECORE_INIT_POLL_TRIES);
	assert_int_equal(r.n_delay, ECORE_INIT_POLL_TRIES);
	assert_int_equal(st.poll_timeouts, 1);

	/* reads return 3: AND 0x4 never completes */
	memset(&r, 0, sizeof(r));
	s = rec_sink(&r, false);
	r.rd_val = 3;
	fwb_init(b);
	fwb_read(b, ECORE_INIT_POLL_AND, 0x108, 0x4);
	ecore_fw_free(img);
	img = fwb_good(b);
	assert_int_equal(ecore_init_run_sink(img, &s, PHASE_PF, 0, 0, NULL, NULL),
			 ECORE_TIMEOUT);
	ecore_fw_free(img);
	free(b);
}

/* ---- the runtime array ---- */

static void
test_runtime_array(void **state)
{
	struct fwb *b = fwb_new();
	struct ecore_fw_image *img;
	struct ecore_dev dev;
	struct ecore_hwfn *h = &dev.hwfns[0];
	struct rec r;
	struct ecore_init_sink s;
	struct ecore_init_run_stats st;
	uint32_t agg[3] = { 0x11, 0x22, 0x33 }, blk;

	(void)state;
	blk = fwb_if_phase(b, PHASE_QM_PF, ECORE_INIT_PHASE_ID_ANY, 0);
	/* 8 entries from 100, by registers; 8 from 200 wide (DMAE runs) */
	fwb_write(b, ECORE_INIT_SRC_RUNTIME, false, 0x10000, 100u << 16 | 8);
	fwb_write(b, ECORE_INIT_SRC_RUNTIME, true, 0x20000, 200u << 16 | 8);
	fwb_end_block(b, blk);
	img = fwb_good(b);

	memset(&dev, 0, sizeof(dev));
	h->p_dev = &dev;
	assert_int_equal(ecore_init_alloc(h), ECORE_INVAL);	/* no image yet */
	dev.fw = img;
	assert_int_equal(ecore_init_alloc(h), ECORE_SUCCESS);
	assert_int_equal(h->rt_data->size, 34472);
	ecore_init_store_rt_reg(h, 101, 0xaa);
	ecore_init_store_rt_reg(h, 106, 0xbb);
	ecore_init_store_rt_agg(h, 200, agg, 3);
	ecore_init_store_rt_reg(h, 204, 0x44);
	ecore_init_store_rt_reg(h, 207, 0x77);
	/* out of range: logged and ignored */
	ecore_init_store_rt_reg(h, 34472, 0xdead);
	ecore_init_store_rt_reg(h, UINT32_MAX, 0xdead);
	ecore_init_store_rt_agg(h, 34471, agg, 3);	/* the first fits, the rest not */
	assert_true(h->rt_data->b_valid[34471]);

	memset(&r, 0, sizeof(r));
	s = rec_sink(&r, true);
	memset(&st, 0, sizeof(st));
	assert_int_equal(ecore_init_run_sink(img, &s, PHASE_QM_PF, 0, 0, h->rt_data, &st),
			 ECORE_SUCCESS);
	assert_int_equal(r.n_wr, 2);
	assert_int_equal(r.wr_addr[0], 0x10000 + 4);
	assert_int_equal(r.wr_val[0], 0xaa);
	assert_int_equal(r.wr_addr[1], 0x10000 + 24);
	assert_int_equal(r.wr_val[1], 0xbb);
	/* runs 200-202, 204, 207 */
	assert_int_equal(r.n_dmae, 3);
	assert_int_equal(r.dmae_addr[0], 0x20000);
	assert_int_equal(r.dmae_n[0], 3);
	assert_int_equal(r.dmae_first[0], 0x11);
	assert_int_equal(r.dmae_addr[1], 0x20000 + 16);
	assert_int_equal(r.dmae_n[1], 1);
	assert_int_equal(r.dmae_first[1], 0x44);
	assert_int_equal(r.dmae_addr[2], 0x20000 + 28);
	assert_int_equal(r.dmae_n[2], 1);
	assert_int_equal(st.bytes_by_src[ECORE_INIT_SRC_RUNTIME], 4 * 7);

	/* cleared: nothing is written */
	ecore_init_clear_rt_data(h);
	memset(&r, 0, sizeof(r));
	s = rec_sink(&r, true);
	assert_int_equal(ecore_init_run_sink(img, &s, PHASE_QM_PF, 0, 0, h->rt_data, NULL),
			 ECORE_SUCCESS);
	assert_int_equal(r.n_wr + r.n_dmae, 0);
	ecore_init_free(h);
	assert_null(h->rt_data);
	ecore_init_free(h);	/* twice is fine */
	ecore_fw_free(img);
	free(b);
}

static void
test_runtime_translation(void **state)
{
	const struct ecore_fw_profile *p;
	unsigned int n;

	(void)state;
	p = ecore_fw_profiles(&n);
	assert_int_equal(n, 2);
	assert_string_equal(p[0].name, "8.42.2.0");
	assert_string_equal(p[1].name, "8.59.1.0");
	/* 8.42: identity */
	assert_int_equal(ecore_init_rt_index(&p[0], 0), 0);
	assert_int_equal(ecore_init_rt_index(&p[0], QM_REG_WFQVPCRD_RT_OFFSET),
			 QM_REG_WFQVPCRD_RT_OFFSET);
	assert_int_equal(ecore_init_rt_index(&p[0], XCM_REG_CON_PHY_Q3_RT_OFFSET), 34471);
	assert_int_equal(ecore_init_rt_index(&p[0], ECORE_RT_ARRAY_SIZE_8_42), UINT32_MAX);
	/* 8.59: from 32068 on, +512 */
	assert_int_equal(ecore_init_rt_index(&p[1], QM_REG_WFQVPCRD_RT_OFFSET - 1), 32067);
	assert_int_equal(ecore_init_rt_index(&p[1], QM_REG_WFQVPCRD_RT_OFFSET), 32580);
	assert_int_equal(ecore_init_rt_index(&p[1], XCM_REG_CON_PHY_Q3_RT_OFFSET), 34983);
	assert_int_equal(ecore_init_rt_index(&p[1], ECORE_RT_ARRAY_SIZE_8_42), UINT32_MAX);
	assert_int_equal(ecore_init_rt_index(&p[1], UINT32_MAX - 100), UINT32_MAX);
}

/* ---- bad files ---- */

static void
expect_refusal(const uint8_t *file, size_t len, const char *why)
{
	struct ecore_fw_image *img = (void *)1;
	char err[256];

	assert_int_equal(ecore_fw_parse(file, len, &img, err, sizeof(err)), ECORE_INVAL);
	assert_null(img);
	if (strstr(err, why) == NULL)
		fail_msg("refusal \"%s\" does not say \"%s\"", err, why);
}

static void
expect_fwb_refusal(const struct fwb *b, const char *why)
{
	static uint8_t file[FILE_CAP];
	size_t n = fwb_emit(b, file, sizeof(file));

	assert_true(n > 0);
	expect_refusal(file, n, why);
}

/* A small good image: every op kind, to corrupt field by field. */
static void
fwb_base(struct fwb *b)
{
	uint32_t data[4] = { 1, 2, 3, 4 }, blk, m;
	const uint8_t e[] = { M(ECORE_MODE_K2) };

	fwb_init(b);
	m = fwb_tree(b, e, 1);
	blk = fwb_if_phase(b, PHASE_ENGINE, ECORE_INIT_PHASE_ID_ANY, 0);
	fwb_write(b, ECORE_INIT_SRC_ARRAY, false, 0x1000, fwb_array(b, data, 4));
	fwb_if_mode(b, m, 1);
	fwb_write(b, ECORE_INIT_SRC_INLINE, false, 0x2000, 7);
	fwb_callback(b, ECORE_INIT_CB_DMAE_READY, 22);
	fwb_read(b, ECORE_INIT_POLL_EQ, 0x3000, 1);
	fwb_end_block(b, blk);
	fwb_overlay(b, ECORE_FW_STORM_T, data, 4);
}

static void
test_bad_files(void **state)
{
	static uint8_t file[FILE_CAP];
	struct fwb *b = fwb_new();
	uint8_t big[40000];
	char junk[64];
	size_t n, at;
	uint32_t z, i;

	(void)state;
	fwb_base(b);
	n = fwb_emit(b, file, sizeof(file));
	{
		struct ecore_fw_image *img = NULL;
		char err[256];

		assert_int_equal(ecore_fw_parse(file, n, &img, err, sizeof(err)), ECORE_SUCCESS);
		ecore_fw_free(img);
	}

	/* truncated: the debug offset past the end, then a table past the blob */
	expect_refusal(file, 8, "file of 8 bytes");
	expect_refusal(file, n - 8, "debug-data offset");
	omni_put_le32(file, 40);
	expect_refusal(file, n, "buffer table: first buffer at 0x38");
	n = fwb_emit(b, file, sizeof(file));
	/* a buffer outside the blob */
	omni_put_le32(file + fwb_slot_at(ECORE_FW_BUF_INIT_VAL) + 4, 0x100000);
	expect_refusal(file, n, "buffer INIT_VAL: offset");
	n = fwb_emit(b, file, sizeof(file));
	omni_put_le32(file + fwb_slot_at(ECORE_FW_BUF_INIT_CMD) + 4, 13);
	expect_refusal(file, n, "buffer INIT_CMD: 13 bytes");
	n = fwb_emit(b, file, sizeof(file));
	omni_put_le32(file + fwb_slot_at(ECORE_FW_BUF_IRO) + 4, 12 * 10);
	expect_refusal(file, n, "INIT_IRO: 10 entries, the 8.42.2.0 profile needs 69");

	/* a dword buffer at an offset that is not a multiple of 4 (the same good
	 * INIT_VAL, copied one byte past the blob's end): the runner hands
	 * INIT_VAL's arrays to the DMAE client as dwords */
	fwb_base(b);
	n = fwb_emit(b, file, sizeof(file));
	{
		size_t v = fwb_buf_at(file, ECORE_FW_BUF_INIT_VAL), moved = n - 4 + 1;
		uint32_t vlen = omni_get_le32(file + fwb_slot_at(ECORE_FW_BUF_INIT_VAL) + 4);

		memcpy(file + moved, file + v, vlen);
		memset(file + moved + vlen, 0, 4);	/* the debug section */
		omni_put_le32(file, moved + vlen);
		omni_put_le32(file + fwb_slot_at(ECORE_FW_BUF_INIT_VAL), moved - FWB_BLOB);
		expect_refusal(file, moved + vlen + 4, "buffer INIT_VAL: offset 0x");
		expect_refusal(file, moved + vlen + 4, "is not a multiple of 4");
	}

	/* unknown version, refused by its version */
	fwb_base(b);
	b->minor = 37;
	expect_fwb_refusal(b, "firmware 8.37.2.0 has no profile");

	/* an IRO entry of the wrong size at a named place */
	fwb_base(b);
	n = fwb_emit(b, file, sizeof(file));
	omni_put_le16(file + fwb_buf_at(file, ECORE_FW_BUF_IRO) + 12 * 5 + 10, 4);
	expect_refusal(file, n, "INIT_IRO entry 5 (USTORM_EQE_CONS): size 4");

	/* op fields: bad type, source, poll type, phase, callback, delay */
	fwb_base(b);
	b->ops[2 * 1] = (b->ops[2 * 1] & ~0xfu) | 7;
	expect_fwb_refusal(b, "INIT_CMD op 1: op type 7");
	fwb_base(b);
	b->ops[2 * 1] = (b->ops[2 * 1] & ~0x70u) | 5 << 4;
	expect_fwb_refusal(b, "INIT_CMD op 1: WRITE source 5");
	fwb_base(b);
	b->ops[2 * 5] = (b->ops[2 * 5] & ~0xf0u) | 9 << 4;
	expect_fwb_refusal(b, "INIT_CMD op 5: READ poll type 9");
	fwb_base(b);
	b->ops[1] = 9;
	expect_fwb_refusal(b, "INIT_CMD op 0: IF_PHASE phase 9");
	fwb_base(b);
	b->ops[2 * 4 + 1] = 3;
	expect_fwb_refusal(b, "INIT_CMD op 4: CALLBACK id 3");
	fwb_base(b);
	fwb_op(b, ECORE_INIT_OP_DELAY, 5000000);
	expect_fwb_refusal(b, "INIT_CMD op 6: DELAY of 5000000 us");

	/* skip counts past the end */
	fwb_base(b);
	b->ops[0] = (b->ops[0] & 0xffff) | 6u << 16;
	expect_fwb_refusal(b, "INIT_CMD op 0: IF_PHASE skips 6 ops past the end (6 ops)");
	fwb_base(b);
	b->ops[2 * 2] = (b->ops[2 * 2] & 0xffff) | 4u << 16;
	expect_fwb_refusal(b, "INIT_CMD op 2: IF_MODE skips 4 ops");

	/* mode tree: offset out of range, an expression running past its end */
	fwb_base(b);
	b->ops[2 * 2 + 1] = 300u << 16;
	expect_fwb_refusal(b, "INIT_CMD op 2: mode-tree offset 300 past INIT_MODE_TREE (1 bytes)");
	fwb_base(b);
	b->tree[0] = AND;
	expect_fwb_refusal(b, "INIT_CMD op 2: malformed mode expression at INIT_MODE_TREE "
			   "offset 0");

	/* arrays: offset past INIT_VAL, standard size past it, bad type, empty pattern */
	fwb_base(b);
	b->ops[2 * 1 + 1] = 0x4000;
	expect_fwb_refusal(b, "INIT_CMD op 1: array offset 0x10000 past INIT_VAL (20 bytes)");
	fwb_base(b);
	b->val[0] = ECORE_INIT_ARR_STANDARD | 9u << 4;
	expect_fwb_refusal(b, "INIT_CMD op 1: standard array at 0x0 of 9 dwords past INIT_VAL");
	fwb_base(b);
	b->val[0] = 3;
	expect_fwb_refusal(b, "INIT_CMD op 1: array at 0x0 has type 3");
	fwb_base(b);
	b->val[0] = ECORE_INIT_ARR_PATTERN | 0u << 4 | 5u << 8;
	expect_fwb_refusal(b, "pattern array at 0x0 has 0 dwords");
	fwb_base(b);
	b->val[0] = ECORE_INIT_ARR_ZIPPED | 100u << 4;
	expect_fwb_refusal(b, "zipped array at 0x0 of 100 bytes past INIT_VAL");

	/* zipped: inflating past 32 KiB, corrupt, cut short, not whole dwords */
	memset(big, 0x5a, sizeof(big));
	fwb_init(b);
	z = fwb_zipped(b, big, sizeof(big));
	fwb_write(b, ECORE_INIT_SRC_ARRAY, false, 0x1000, z);
	expect_fwb_refusal(b, "inflates past 32768 bytes");
	fwb_init(b);
	z = fwb_zipped(b, big, 1024);
	fwb_write(b, ECORE_INIT_SRC_ARRAY, false, 0x1000, z);
	n = fwb_emit(b, file, sizeof(file));
	/* the stream's last byte: its Adler-32 */
	at = fwb_buf_at(file, ECORE_FW_BUF_INIT_VAL) + 4 * (z + 1) + (b->val[z] >> 4) - 1;
	file[at] ^= 0xff;
	expect_refusal(file, n, "corrupt zlib stream (incorrect data check)");
	b->val[z] = ECORE_INIT_ARR_ZIPPED | 6u << 4;
	expect_fwb_refusal(b, "zlib stream ends early (6 bytes)");
	fwb_init(b);
	z = fwb_zipped(b, big, 1022);
	fwb_write(b, ECORE_INIT_SRC_ARRAY, false, 0x1000, z);
	expect_fwb_refusal(b, "inflates to 1022 bytes, not whole dwords");

	/* runtime past the array; a write past the GRC space */
	fwb_init(b);
	fwb_write(b, ECORE_INIT_SRC_RUNTIME, false, 0x1000, 34470u << 16 | 4);
	expect_fwb_refusal(b, "runtime entries 34470..34473 past the 8.42.2.0 runtime array");
	fwb_init(b);
	fwb_write(b, ECORE_INIT_SRC_ZEROS, false, 0x1fffff0, 8);
	expect_fwb_refusal(b, "write of 8 dwords at 0x1fffff0 runs past the GRC space");

	/* overlays: past the end, storm id, twice */
	fwb_base(b);
	b->ovl[0] = ECORE_FW_STORM_T | 100u << 8;
	expect_fwb_refusal(b, "INIT_OVERLAYS at byte 0: storm 0 buffer of 100 dwords past the end");
	fwb_base(b);
	b->ovl[0] = 9 | 4u << 8;
	expect_fwb_refusal(b, "INIT_OVERLAYS at byte 0: storm id 9");
	fwb_base(b);
	fwb_overlay(b, ECORE_FW_STORM_T, b->ovl, 1);
	expect_fwb_refusal(b, "INIT_OVERLAYS at byte 20: second buffer for storm 0");

	/* every cut of the good image is refused, never read past */
	fwb_base(b);
	n = fwb_emit(b, file, sizeof(file));
	for (i = 0; i < n - 4; i++) {	/* the last 4 bytes: the debug section */
		struct ecore_fw_image *img = NULL;
		uint8_t *cut = malloc(i ? i : 1);

		memcpy(cut, file, i);
		assert_int_equal(ecore_fw_parse(cut, i, &img, junk, sizeof(junk)), ECORE_INVAL);
		free(cut);
	}
	free(b);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_842_layout),
		cmocka_unit_test(test_real_842_dry_runs),
		cmocka_unit_test(test_real_859),
		cmocka_unit_test(test_load_file_default_and_missing),
		cmocka_unit_test(test_mode_tree),
		cmocka_unit_test(test_mode_mask),
		cmocka_unit_test(test_run_phases_and_dmae_rules),
		cmocka_unit_test(test_run_zipped),
		cmocka_unit_test(test_run_wide_before_dmae_ready),
		cmocka_unit_test(test_run_polls),
		cmocka_unit_test(test_runtime_array),
		cmocka_unit_test(test_runtime_translation),
		cmocka_unit_test(test_bad_files),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
