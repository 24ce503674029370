/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * net_e4 on the model: the time of a full PF bring-up (e4_pf_open(): the
 * init-values file read and parsed, hw_prepare, resc_alloc/setup, hw_init
 * running ENGINE, PORT, PF and QM_PF, PF_START) and of its teardown
 * (e4_pf_close(): UNLOAD, PF_STOP, frees), beside the time to merely parse
 * the file, all in one run (median and minimum of N rounds, ms). What the
 * model saw per bring-up is printed too. Never pass/fail on time;
 * OMNIPLANE_PERF_QUICK=1 runs few rounds.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_eal.h>

#include "bench_e4_init.h"
#include "e4_pf.h"
#include "test_eal.h"

#define E4_FW_FILE E4_FW_DIR "/qed_init_values_zipped-8.42.2.0.bin"

int
main(void)
{
	unsigned int rounds = getenv("OMNIPLANE_PERF_QUICK") != NULL ? 5 : 31, i;
	struct bench_e4_ms parse, up, down;
	double *t_up, *t_down, t0;
	struct e4m_stats st;
	struct e4m_dev *m;
	struct e4_args a;
	struct e4_pf pf;
	int huge;

	huge = test_eal_init_perf("bench_e4_bringup");
	if (huge < 0)
		return 1;
	if (bench_e4_parse(E4_FW_FILE, rounds, &parse) != 0)
		return 1;
	if (e4_args_parse("firmware=" E4_FW_FILE, &a) != 0)
		return 1;
	m = e4m_create("bench", &a.model);
	t_up = calloc(rounds, sizeof(*t_up));
	t_down = calloc(rounds, sizeof(*t_down));
	if (m == NULL || t_up == NULL || t_down == NULL)
		return 1;
	for (i = 0; i < rounds; i++) {
		t0 = bench_e4_now_ms();
		if (e4_pf_open(&pf, "bench", &a, m) != 0) {
			fprintf(stderr, "bring-up %u failed\n", i);
			return 1;
		}
		t_up[i] = bench_e4_now_ms() - t0;
		t0 = bench_e4_now_ms();
		if (e4_pf_close(&pf, true) != 0) {
			fprintf(stderr, "teardown %u failed\n", i);
			return 1;
		}
		t_down[i] = bench_e4_now_ms() - t0;
	}
	e4m_stats_get(m, &st);
	bench_e4_summarise(t_up, rounds, &up);
	bench_e4_summarise(t_down, rounds, &down);
	printf("e4 init file parse (8.42.2.0):            median %8.3f ms, min %8.3f ms\n",
	       parse.median, parse.min);
	printf("e4 PF bring-up on the model (1-port AH):  median %8.3f ms, min %8.3f ms "
	       "(%.1fx the parse)\n", up.median, up.min, up.median / parse.median);
	printf("e4 PF teardown on the model:              median %8.3f ms, min %8.3f ms\n",
	       down.median, down.min);
	printf("per bring-up the model saw: %" PRIu64 " BAR writes, %" PRIu64 " GRC writes, "
	       "%" PRIu64 " DMAE commands (%" PRIu64 " dwords), %" PRIu64 " polls answered, "
	       "%" PRIu64 " ramrods; %u rounds, %s\n",
	       st.bar_writes / rounds, st.grc_writes / rounds, st.dmae_cmds / rounds,
	       st.dmae_dwords / rounds, st.polls_answered / rounds, st.ramrods / rounds, rounds,
	       huge ? "hugepages" : "4K pages (--no-huge)");
	e4m_destroy(m);
	free(t_up);
	free(t_down);
	rte_eal_cleanup();
	return 0;
}
