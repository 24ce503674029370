/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * Benchmark of lib/opa16b on mbufs: encap, decap and round trip, burst 32,
 * 64 B and 1514 B frames, in TSC cycles per packet, beside an in-run
 * baseline: rte_pktmbuf_prepend + a 20-byte header copy + an 8-byte trailer
 * append, the least any encap can do.
 *
 * Each timed pass covers NB_MBUFS mbufs in bursts of 32 and contains only
 * the operation measured; mbufs are restored outside the timed region. The
 * figure printed is the median over passes. Figures never fail the run.
 * OMNIPLANE_PERF_QUICK=1 runs few passes (CI keeps the benchmark working).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_mbuf.h>

#include "opa16b_vnic.h"
#include "test_eal.h"
#include "bench_stats.h"

#define BURST 32
#define NB_MBUFS 256

static struct rte_mbuf *mbufs[NB_MBUFS];
static uint16_t vesw[BURST];
static struct opa16b_vnic_fields fields_each[BURST];
static const struct opa16b_vnic_fields fields = {
	.slid = 1, .dlid = 2, .pkey = 0x8001, .entropy = 0x5A, .vesw_id = 1,
};

static void
restore(uint32_t len, uint16_t data_off)
{
	unsigned int i;

	for (i = 0; i < NB_MBUFS; i++) {
		mbufs[i]->data_off = data_off;
		mbufs[i]->data_len = len;
		mbufs[i]->pkt_len = len;
	}
}

enum op { OP_BASELINE, OP_ENCAP, OP_ENCAP_EACH, OP_DECAP, OP_ROUNDTRIP };

static void
run_pass(enum op op)
{
	static const uint8_t hdr_tmpl[OPA16B_VNIC_HDR_LEN] = { 1, 2, 3 };
	static const uint8_t trailer[8] = { 0, 0, 0, 0, 0, 0, 0, 3 };
	struct opa16b_vnic_rx_stats st;
	unsigned int b, i;

	for (b = 0; b < NB_MBUFS; b += BURST) {
		struct rte_mbuf **p = &mbufs[b];

		switch (op) {
		case OP_BASELINE:
			for (i = 0; i < BURST; i++) {
				char *h = rte_pktmbuf_prepend(p[i], OPA16B_VNIC_HDR_LEN);
				char *t = rte_pktmbuf_append(p[i], sizeof(trailer));

				memcpy(h, hdr_tmpl, sizeof(hdr_tmpl));
				memcpy(t, trailer, sizeof(trailer));
			}
			break;
		case OP_ENCAP:
			opa16b_vnic_encap_burst_same(p, BURST, &fields);
			break;
		case OP_ENCAP_EACH:
			opa16b_vnic_encap_burst(p, BURST, fields_each);
			break;
		case OP_DECAP:
			opa16b_vnic_decap_burst(p, BURST, 9000, vesw, &st);
			break;
		case OP_ROUNDTRIP:
			opa16b_vnic_encap_burst_same(p, BURST, &fields);
			opa16b_vnic_decap_burst(p, BURST, 9000, vesw, &st);
			break;
		}
	}
}

/* Median cycles/packet of @passes timed passes of @op. */
static double
measure(enum op op, uint32_t len, uint16_t off0, unsigned int passes)
{
	double *samples = calloc(passes, sizeof(*samples));
	uint32_t wire = opa16b_vnic_wire_len(len);
	double median;
	unsigned int k;

	if (samples == NULL)
		abort();
	for (k = 0; k < passes; k++) {
		uint64_t t0, t1;

		/* untimed: put the mbufs in the state the operation starts from */
		if (op == OP_DECAP)
			restore(wire, off0 - OPA16B_VNIC_HDR_LEN);
		else
			restore(len, off0);
		t0 = rte_rdtsc_precise();
		run_pass(op);
		t1 = rte_rdtsc_precise();
		samples[k] = (double)(t1 - t0) / NB_MBUFS;
	}
	median = bench_median(samples, passes);
	free(samples);
	return median;
}

int
main(void)
{
	const uint32_t sizes[] = { 64, 1514 };
	const int quick = getenv("OMNIPLANE_PERF_QUICK") != NULL;
	const unsigned int passes = quick ? 500 : 20000;
	struct rte_mempool *pool;
	unsigned int s, i;
	int huge;

	huge = test_eal_init_perf("bench_opa16b");
	if (huge < 0)
		return 1;
	pool = rte_pktmbuf_pool_create("bench_pool", 2 * NB_MBUFS, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	if (pool == NULL || rte_pktmbuf_alloc_bulk(pool, mbufs, NB_MBUFS) != 0) {
		fprintf(stderr, "mbuf allocation failed\n");
		return 1;
	}
	printf("lib/opa16b benchmark: burst %d, %d mbufs per pass, median of %u passes, %s%s\n",
	       BURST, NB_MBUFS, passes, huge ? "hugepages" : "no hugepages",
	       quick ? " (quick mode: figures indicative only)" : "");
	for (i = 0; i < BURST; i++) {
		fields_each[i] = fields;
		fields_each[i].entropy = i;
		fields_each[i].dlid = 2 + i;
	}
	printf("encap: one field set per burst; encap/pkt: a field set per packet (PMD TX)\n");
	printf("TSC cycles/packet   baseline   encap  (ratio)  encap/pkt  (ratio)   decap  roundtrip\n");
	for (s = 0; s < RTE_DIM(sizes); s++) {
		uint16_t off0 = RTE_PKTMBUF_HEADROOM;
		double base, enc, enc_each, dec, rt;

		for (i = 0; i < NB_MBUFS; i++) {
			rte_pktmbuf_reset(mbufs[i]);
			memset(rte_pktmbuf_append(mbufs[i], sizes[s]), 0x11 * (i & 7), sizes[s]);
		}
		/* warm up caches and branch predictors */
		measure(OP_ROUNDTRIP, sizes[s], off0, passes / 10 + 1);
		base = measure(OP_BASELINE, sizes[s], off0, passes);
		enc = measure(OP_ENCAP, sizes[s], off0, passes);
		enc_each = measure(OP_ENCAP_EACH, sizes[s], off0, passes);
		dec = measure(OP_DECAP, sizes[s], off0, passes);
		rt = measure(OP_ROUNDTRIP, sizes[s], off0, passes);
		printf("%4u B frames      %8.2f  %6.2f  (%4.2fx)  %9.2f  (%4.2fx)  %6.2f  %9.2f\n",
		       sizes[s], base, enc, enc / base, enc_each, enc_each / base, dec, rt);
	}
	printf("goals: encap within 1.5x of baseline; decap <= 15 cycles/packet at 64 B\n");
	rte_pktmbuf_free_bulk(mbufs, NB_MBUFS);
	rte_mempool_free(pool);
	test_eal_cleanup_perf();
	return 0;
}
