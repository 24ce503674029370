/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * The cost of one trapped MMIO access (tools/vpci/vpci_trap.h): a 32-bit
 * read and a 32-bit write on a PROT_NONE range served by a memory-backed
 * model (fault, SIGSEGV delivery, decode, callback, sigreturn), beside the
 * same load and store on plain memory measured in the same run. First a
 * check, which fails the run: the trapped accesses read and write what the
 * model holds. Figures (median over rounds, ns and TSC cycles per access)
 * never fail the run. OMNIPLANE_PERF_QUICK=1 runs few rounds.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "bench_stats.h"
#include "vpci_trap.h"

#define MAX_ROUNDS 51

static uint8_t model[4096];

static int
m_read(void *ctx, uint64_t off, unsigned int size, uint64_t *v)
{
	(void)ctx;
	*v = 0;
	memcpy(v, model + off, size);
	return 0;
}

static int
m_write(void *ctx, uint64_t off, unsigned int size, uint64_t v)
{
	(void)ctx;
	memcpy(model + off, &v, size);
	return 0;
}

static const struct vpci_mem_ops m_ops = { m_read, m_write };

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

enum { READ, WRITE };

/* One round of @p n accesses at @p p; ns and TSC cycles per access. */
static void
round_of(volatile uint32_t *p, int op, unsigned int n, double *ns, double *cyc)
{
	uint64_t c0, c1;
	double t0, t1;
	uint32_t sum = 0;
	unsigned int i;

	t0 = now_ns();
	c0 = __rdtsc();
	if (op == READ)
		for (i = 0; i < n; i++)
			sum += p[i & 15];
	else
		for (i = 0; i < n; i++)
			p[i & 15] = i;
	c1 = __rdtsc();
	t1 = now_ns();
	*ns = (t1 - t0) / n;
	*cyc = (double)(c1 - c0) / n;
	if (sum == 0x5a5a5a5a)
		printf(" "); /* keeps the loads */
}

static void
measure(volatile uint32_t *p, int op, unsigned int n, unsigned int rounds, double *ns,
		double *cyc)
{
	static double s_ns[MAX_ROUNDS], s_cyc[MAX_ROUNDS];
	unsigned int r;

	round_of(p, op, n / 10 + 1, &s_ns[0], &s_cyc[0]); /* warm-up */
	for (r = 0; r < rounds; r++)
		round_of(p, op, n, &s_ns[r], &s_cyc[r]);
	*ns = bench_median(s_ns, rounds);
	*cyc = bench_median(s_cyc, rounds);
}

int
main(void)
{
	unsigned int rounds = getenv("OMNIPLANE_PERF_QUICK") != NULL ? 5 : MAX_ROUNDS;
	long page = sysconf(_SC_PAGESIZE);
	uint32_t *plain = aligned_alloc(64, 64);
	struct vpci_trap_stats s0, s1;
	double pn[2], pc[2], tn[2], tc[2];
	volatile uint32_t *trap;
	uint8_t *base;
	int op;

	base = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED || plain == NULL || vpci_trap_add(base, page, &m_ops, NULL) != 0) {
		fprintf(stderr, "bench_vpci_trap: FAIL: cannot set up a trapped range\n");
		return 1;
	}
	trap = (volatile uint32_t *)(base + 0x40);
	memset(plain, 0, 64);

	/* check: the trapped accesses reach the model */
	model[0x44] = 0x78;
	model[0x45] = 0x56;
	if (trap[1] != 0x5678) {
		fprintf(stderr, "bench_vpci_trap: FAIL: trapped read 0x%x, want 0x5678\n", trap[1]);
		return 1;
	}
	trap[2] = 0xabcd1234;
	if (memcmp(model + 0x48, "\x34\x12\xcd\xab", 4) != 0) {
		fprintf(stderr, "bench_vpci_trap: FAIL: the trapped write missed the model\n");
		return 1;
	}

	vpci_trap_stats_get(&s0);
	for (op = READ; op <= WRITE; op++) {
		measure(plain, op, 10000000, rounds, &pn[op], &pc[op]);
		measure(trap, op, 20000, rounds, &tn[op], &tc[op]);
	}
	vpci_trap_stats_get(&s1);
	if (s1.refused != s0.refused || s1.emulated - s0.emulated <
			(uint64_t)rounds * 20000 * 2) {
		fprintf(stderr, "bench_vpci_trap: FAIL: %llu accesses emulated, %llu refused\n",
			(unsigned long long)(s1.emulated - s0.emulated),
			(unsigned long long)(s1.refused - s0.refused));
		return 1;
	}

	printf("vpci trapped MMIO access (fault, SIGSEGV, decode, model callback, return) "
	       "beside plain memory; median of %u rounds\n", rounds);
	printf("verified: trapped reads and writes reach the model; %llu accesses emulated\n",
	       (unsigned long long)(s1.emulated - s0.emulated));
	printf("access         | plain ns  cycles | trapped ns    cycles | x plain\n");
	for (op = READ; op <= WRITE; op++)
		printf("%-14s | %8.2f %7.1f | %10.1f %9.0f | %7.0fx\n",
		       op == READ ? "32-bit read" : "32-bit write", pn[op], pc[op], tn[op], tc[op],
		       tn[op] / pn[op]);
	printf("(cycles: TSC cycles per access)\n");
	vpci_trap_remove(base);
	munmap(base, page);
	free(plain);
	return 0;
}
