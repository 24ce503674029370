/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * Benchmark of lib/pipeline: what the rings, the stage loop and the counters
 * cost per packet, beside an in-run baseline: the same three callbacks
 * (allocate a burst and write a byte; read and write a byte; free the burst)
 * called one after the other on one worker lcore, no ring.
 *
 * Each figure is wall-clock TSC cycles from start until the sink has seen
 * every packet, divided by the packets (median of passes): on one lcore it
 * is the cost per packet; on several it is the inverse of the throughput.
 * The machine may have fewer CPUs than lcores: the EAL lcores are mapped onto
 * the CPUs there are, and the placement says which share one. Figures never
 * fail the run. OMNIPLANE_PERF_QUICK=1 moves fewer packets.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "pipeline.h"
#include "bench_stats.h"

#define BURST 32
#define PASSES 5

static struct rte_mempool *pool;
static uint64_t quota, produced, received;

static uint16_t
src_fn(void *arg, struct rte_mbuf **pkts, uint16_t n, const struct pipe_ctx *ctx)
{
	uint16_t i;

	(void)arg;
	(void)ctx;
	if (produced >= quota)
		return 0;
	if (rte_pktmbuf_alloc_bulk(pool, pkts, n) != 0)
		return 0;
	for (i = 0; i < n; i++)
		*rte_pktmbuf_mtod(pkts[i], uint8_t *) = (uint8_t)i;
	produced += n;
	return n;
}

static uint16_t
work_fn(void *arg, struct rte_mbuf **pkts, uint16_t n, const struct pipe_ctx *ctx)
{
	uint16_t i;

	(void)arg;
	(void)ctx;
	for (i = 0; i < n; i++)
		*rte_pktmbuf_mtod(pkts[i], uint8_t *) += 1;
	return n;
}

static uint16_t
sink_fn(void *arg, struct rte_mbuf **pkts, uint16_t n, const struct pipe_ctx *ctx)
{
	(void)arg;
	(void)ctx;
	rte_pktmbuf_free_bulk(pkts, n);
	__atomic_store_n(&received, received + n, __ATOMIC_RELEASE);
	return n;
}

/* The baseline, on a worker lcore: the callbacks in a row, no ring. */
static int
baseline_loop(void *arg)
{
	struct rte_mbuf *pkts[BURST];
	struct pipe_ctx ctx = { 0 };
	uint64_t *cycles = arg, t0 = rte_rdtsc();
	uint16_t n;

	while (received < quota) {
		n = src_fn(NULL, pkts, BURST, &ctx);
		n = work_fn(NULL, pkts, n, &ctx);
		sink_fn(NULL, pkts, n, &ctx);
	}
	*cycles = rte_rdtsc() - t0;
	return 0;
}

/* One timed pass; cycles per packet, or a negative value on failure. */
static double
pass(const char *spec)
{
	struct pipe_conf pc = { .name = "bench", .socket_id = SOCKET_ID_ANY };
	const struct pipe_stage_conf sc[3] = {
		{ .name = "rx", .fn = src_fn, .burst = BURST,
		  .flags = PIPE_STAGE_F_BACKPRESSURE },
		{ .name = "work", .fn = work_fn, .burst = BURST,
		  .flags = PIPE_STAGE_F_BACKPRESSURE },
		{ .name = "tx", .fn = sink_fn, .burst = BURST },
	};
	char err[PIPE_ERR_LEN];
	struct pipe *p;
	uint64_t t0, cycles = 0;
	unsigned int i;

	produced = received = 0;
	if (spec == NULL) {
		rte_eal_remote_launch(baseline_loop, &cycles, rte_get_next_lcore(-1, 1, 0));
		rte_eal_mp_wait_lcore();
		return (double)cycles / (double)quota;
	}
	p = pipe_create(&pc);
	for (i = 0; p != NULL && i < 3; i++)
		if (pipe_stage_add(p, &sc[i]) < 0)
			break;
	if (p == NULL || i < 3 || pipe_place(p, spec, err, sizeof(err)) != 0) {
		fprintf(stderr, "bench_pipeline: %s: %s\n", spec, p != NULL ? err : "no memory");
		pipe_destroy(p);
		return -1;
	}
	t0 = rte_rdtsc();
	if (pipe_start(p) != 0) {
		pipe_destroy(p);
		return -1;
	}
	while (__atomic_load_n(&received, __ATOMIC_ACQUIRE) < quota)
		rte_delay_us_sleep(100);
	cycles = rte_rdtsc() - t0;
	pipe_stop(p);
	pipe_destroy(p);
	return (double)cycles / (double)quota;
}

static double
median(const char *spec)
{
	double v[PASSES];
	unsigned int i;

	for (i = 0; i < PASSES; i++) {
		v[i] = pass(spec);
		if (v[i] < 0)
			return -1;
	}
	return bench_median(v, PASSES);
}

int
main(void)
{
	static const struct { const char *spec, *what; } runs[] = {
		{ NULL, "baseline: callbacks in a row, 1 lcore" },
		{ "rx@1,work@1,tx@1", "pipeline, all stages on 1 lcore" },
		{ "rx@1,work@1,tx@2", "pipeline, rx+work | tx" },
		{ "rx@1,work@2,tx@3", "pipeline, 3 lcores" },
	};
	const int quick = getenv("OMNIPLANE_PERF_QUICK") != NULL;
	char prefix[64], cpus[64];
	char *argv[] = { "bench_pipeline", "--no-huge", "--no-shconf", "-m", "256", "--no-pci",
			 "--no-telemetry", "--log-level=lib.eal:warning", "--lcores", cpus,
			 prefix, NULL };
	char runtime_dir[PATH_MAX];
	double base = 0, v;
	unsigned int i;

	/* main on CPU 0; worker lcores 1..3 over CPUs 1, 0, 1 when there are two */
	snprintf(cpus, sizeof(cpus), "%s", sysconf(_SC_NPROCESSORS_ONLN) >= 2 ?
		 "0@0,1@1,2@0,3@1" : "0@0,1@0,2@0,3@0");
	snprintf(prefix, sizeof(prefix), "--file-prefix=bench_pipeline-%d", (int)getpid());
	if (rte_eal_init((int)RTE_DIM(argv) - 1, argv) < 0) {
		fprintf(stderr, "bench_pipeline: EAL init failed\n");
		return 1;
	}
	snprintf(runtime_dir, sizeof(runtime_dir), "%s", rte_eal_get_runtime_dir());
	pool = rte_pktmbuf_pool_create("bench_pipe_pool", 8191, 256, 0,
				       RTE_PKTMBUF_HEADROOM + 64, SOCKET_ID_ANY);
	if (pool == NULL) {
		fprintf(stderr, "bench_pipeline: no pool\n");
		rte_eal_cleanup();
		rmdir(runtime_dir);
		return 1;
	}
	quota = quick ? 200000 : 5000000;
	printf("lib/pipeline benchmark: %" PRIu64 " packets per pass, burst %d, "
	       "back-pressure, median of %d passes, lcores %s (lcore@CPU), 4K pages\n",
	       quota, BURST, PASSES, cpus);
	printf("%-42s %12s %8s\n", "TSC cycles/packet (wall)", "cycles/pkt", "vs base");
	for (i = 0; i < RTE_DIM(runs); i++) {
		v = median(runs[i].spec);
		if (i == 0)
			base = v;
		if (v < 0)
			printf("%-42s %12s\n", runs[i].what, "failed");
		else
			printf("%-42s %12.2f %7.2fx\n", runs[i].what, v, base > 0 ? v / base : 0);
	}
	printf("pool after the runs: %u of 8191 mbufs\n", rte_mempool_avail_count(pool));
	rte_mempool_free(pool);
	rte_eal_cleanup();
	rmdir(runtime_dir);
	return 0;
}
