/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _TEST_EAL_H_
#define _TEST_EAL_H_

/**
 * @file
 * The one EAL fixture of the test suites.
 *
 * test_eal_setup() is a cmocka group setup: it starts EAL once per process
 * (--no-huge --no-pci, a --file-prefix unique to the process, no shared
 * config, no telemetry) and creates test_pool. test_eal_teardown() frees
 * the pool, cleans EAL up and removes the runtime directory.
 *
 * Benchmarks call test_eal_init_perf() instead: hugepages when mounted and
 * free, else --no-huge, and say which on stderr.
 */

#include <stdint.h>

#include <rte_mempool.h>

/** Data room of test_pool's mbufs: a jumbo frame and headroom fit in one. */
#define TEST_MBUF_DATA_ROOM (RTE_PKTMBUF_HEADROOM + 16384)
/** Number of mbufs in test_pool. */
#define TEST_POOL_SIZE 4095

/** Packet pool of the fixture. */
extern struct rte_mempool *test_pool;
/** Packet pool with small (256-byte) segments, for multi-segment tests. */
extern struct rte_mempool *test_small_pool;

/** cmocka group setup: EAL (--no-huge) and the pools. */
int test_eal_setup(void **state);
/** cmocka group teardown. */
int test_eal_teardown(void **state);

/**
 * Start EAL for a benchmark.
 *
 * @param name
 *   Program name, used in the file prefix.
 * @return
 *   1 with hugepages, 0 without, -1 on failure.
 */
int test_eal_init_perf(const char *name);

/**
 * Start EAL for a benchmark on several lcores (test_eal_init_perf() runs
 * on lcore 0 alone).
 *
 * @param name
 *   Program name, used in the file prefix.
 * @param lcores
 *   An EAL --lcores value, e.g. "0@0,1@1" (lcore@CPU); NULL: lcore 0.
 * @return
 *   1 with hugepages, 0 without, -1 on failure.
 */
int test_eal_init_perf_lcores(const char *name, const char *lcores);

/** End a benchmark's EAL and remove its runtime directory. */
void test_eal_cleanup_perf(void);

/** Deterministic PRNG (xorshift64*) for reproducible random tests. */
static inline uint64_t
test_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

#endif /* _TEST_EAL_H_ */
