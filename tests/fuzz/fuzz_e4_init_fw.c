/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * net_e4's init-values file loader (ecore_fw_parse()) on any input: the file
 * is untrusted. Each input is parsed; a refusal must name what is wrong (a
 * non-empty, one-line reason); an accepted image must then run every phase
 * (ENGINE with any id, 0 and 1; PORT, PF, VF, QM_PF 0) over a sink that
 * reads every byte the runner hands it, with a runtime array of staged
 * values, without a crash or an over-read (ASan: the parser works on its own
 * heap copy), and its IRO and overlay views must stay inside the image.
 *
 * Seeds: small hand-made images (tests/unit/e4_fw_build.h), never the real
 * file or pieces of it.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ecore_init_fw.h"
#include "ecore_init_ops.h"

/* Images writing more than this are parsed but not run (a run's time is
 * its volume; the checks on volume are the parser's). */
#define RUN_MAX_DW (1u << 18)

static volatile uint32_t sink_sum;

static void
f_write(void *ctx, uint32_t addr, uint32_t val)
{
	(void)ctx;
	sink_sum += addr ^ val;
}

static uint32_t
f_read(void *ctx, uint32_t addr)
{
	(void)ctx;
	return addr * 2654435761u;	/* some polls complete, some never */
}

static int
f_dmae(void *ctx, uint32_t addr, const void *le, uint32_t n_dw)
{
	const uint8_t *p = le;
	uint32_t i, s = addr;

	(void)ctx;
	for (i = 0; i < 4 * n_dw; i++)
		s += p[i];
	sink_sum += s;
	return 0;
}

static int
f_fill(void *ctx, uint32_t addr, uint32_t val, uint32_t n_dw)
{
	(void)ctx;
	sink_sum += addr + val + n_dw;
	return 0;
}

static int
f_callback(void *ctx, uint16_t id, uint16_t block)
{
	(void)ctx;
	sink_sum += id + block;
	return 0;
}

static const struct ecore_init_sink sink = {
	.write = f_write, .read = f_read, .dmae_write = f_dmae, .fill = f_fill,
	.callback = f_callback,
};

static void
run_all(const struct ecore_fw_image *img)
{
	static const struct {
		int phase, id;
	} runs[] = {
		{ PHASE_ENGINE, ECORE_INIT_PHASE_ID_ANY }, { PHASE_ENGINE, 0 },
		{ PHASE_ENGINE, 1 }, { PHASE_PORT, 0 }, { PHASE_PF, 0 },
		{ PHASE_VF, 0 }, { PHASE_QM_PF, 0 },
	};
	/* staged values, made once: the largest profile's size, cut to the image's */
	static bool *valid;
	static uint32_t *vals;
	static uint32_t cap;
	struct ecore_rt_data rt;
	unsigned int i;

	if (valid == NULL) {
		unsigned int n;
		const struct ecore_fw_profile *p = ecore_fw_profiles(&n);

		for (i = 0; i < n; i++)
			cap = p[i].rt_size > cap ? p[i].rt_size : cap;
		valid = calloc(cap, sizeof(*valid));
		vals = calloc(cap, sizeof(*vals));
		if (valid == NULL || vals == NULL)
			abort();
		for (i = 0; i < cap; i++) {
			valid[i] = (i % 3) != 0;	/* runs of two, then a gap */
			vals[i] = i;
		}
	}
	if (img->profile->rt_size > cap)
		abort();
	memset(&rt, 0, sizeof(rt));
	rt.size = img->profile->rt_size;
	rt.b_valid = valid;
	rt.init_val = vals;
	for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		ecore_init_run_sink(img, &sink, runs[i].phase, runs[i].id, 0x0c0c, &rt, NULL);
		ecore_init_run_sink(img, &sink, runs[i].phase, runs[i].id, 0x0c0a, NULL, NULL);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ecore_fw_image *img = NULL;
	char err[256];
	unsigned int i;
	int rc;

	rc = ecore_fw_parse(data, size, &img, err, sizeof(err));
	if (rc != ECORE_SUCCESS) {
		if (img != NULL || err[0] == '\0' || strchr(err, '\n') != NULL)
			abort();	/* a refusal says why, on one line, and leaves nothing */
		return 0;
	}
	for (i = 0; i < ECORE_IRO__MAX; i++)
		sink_sum += ecore_iro_addr(img, i, 1, 2, 3) + ecore_iro_size(img, i);
	for (i = 0; i < ECORE_FW_STORM__MAX; i++) {
		const struct ecore_fw_overlay *ov = &img->overlay[i];
		uint32_t j;

		for (j = 0; ov->data != NULL && j < 4 * ov->n_dw; j++)
			sink_sum += ov->data[j];
		sink_sum += ecore_init_overlay_ram_addr(img, i, 3);
	}
	if (img->max_write_dw <= RUN_MAX_DW)
		run_all(img);
	ecore_fw_free(img);
	return 0;
}
