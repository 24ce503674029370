/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * net_e4's init-values file (8.42.2.0): the time to parse it (median and
 * minimum of N rounds, ms) and, beside it, the time of a dry run of a 1-port
 * AH PF load (ENGINE, PORT 0, PF 0, QM_PF 0) over a sink that only counts.
 * The bring-up on the model is timed by the init flow's benchmark, which
 * prints bench_e4_parse() beside its own figure. Never pass/fail on time;
 * OMNIPLANE_PERF_QUICK=1 runs few rounds.
 */

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_e4_init.h"

static uint64_t dry_count;

static void
c_write(void *ctx, uint32_t addr, uint32_t val)
{
	(void)ctx;
	dry_count += addr ^ val;
}

static uint32_t
c_read(void *ctx, uint32_t addr)
{
	(void)ctx;
	return addr;
}

static int
c_dmae(void *ctx, uint32_t addr, const void *le, uint32_t n_dw)
{
	(void)ctx;
	(void)le;
	dry_count += addr + n_dw;
	return 0;
}

static int
c_fill(void *ctx, uint32_t addr, uint32_t val, uint32_t n_dw)
{
	(void)ctx;
	dry_count += addr + val + n_dw;
	return 0;
}

static bool
c_poll(void *ctx, uint32_t addr, uint32_t expected, int type)
{
	(void)ctx;
	(void)addr;
	(void)expected;
	(void)type;
	return true;
}

int
main(void)
{
	static const int phases[4] = {
		PHASE_ENGINE, PHASE_PORT, PHASE_PF, PHASE_QM_PF,
	};
	const struct ecore_init_sink sink = {
		.write = c_write, .read = c_read, .dmae_write = c_dmae, .fill = c_fill,
		.poll = c_poll,
	};
	unsigned int rounds = getenv("OMNIPLANE_PERF_QUICK") != NULL ? 5 : 51, i, p;
	const char *path = E4_FW_DIR "/qed_init_values_zipped-8.42.2.0.bin";
	struct ecore_init_run_stats st;
	struct ecore_fw_image *img;
	struct bench_e4_ms parse, dry;
	double *t;
	char err[256];

	if (bench_e4_parse(path, rounds, &parse) != 0)
		return 1;
	printf("e4 init file parse (8.42.2.0): median %.3f ms, min %.3f ms over %u rounds\n",
	       parse.median, parse.min, parse.rounds);

	if (ecore_fw_load_file(path, &img, err, sizeof(err)) != ECORE_SUCCESS) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	t = calloc(rounds, sizeof(*t));
	if (t == NULL)
		return 1;
	for (i = 0; i < rounds; i++) {
		double t0 = bench_e4_now_ms();

		memset(&st, 0, sizeof(st));
		for (p = 0; p < 4; p++)
			if (ecore_init_run_sink(img, &sink, phases[p],
						p == 0 ? ECORE_INIT_PHASE_ID_ANY : 0, 0x0c0c, NULL,
						&st) != ECORE_SUCCESS)
				return 1;
		t[i] = bench_e4_now_ms() - t0;
	}
	bench_e4_summarise(t, rounds, &dry);
	printf("e4 init dry run, 1-port AH PF load (%u ops, %u writes, %" PRIu64 " bytes, "
	       "%u DMAE transfers): median %.3f ms, min %.3f ms over %u rounds\n", st.ops,
	       st.writes, st.bytes, st.dmae_writes, dry.median, dry.min, dry.rounds);
	free(t);
	ecore_fw_free(img);
	return dry_count == 0;	/* the sink saw the load */
}
