/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * tools/vpci's MMIO trapping (vpci_trap.h) with the accessors gcc and clang
 * compile at -O0 -O1 -O2 -O3 -Os (vpci_accessors.c): each runs on plain
 * memory and on a PROT_NONE range whose accesses reach a memory-backed
 * model; results and memory must agree. Then what the handler promises:
 * errno kept, any thread, a foreign fault and an undecodable access still
 * kill the process (with a line naming the address and bytes), VEX loads
 * zero the upper ymm bits, and the range table's limits.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_case.h"
#include "vpci_accessors.h"
#include "vpci_trap.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

#define OFF 0x100	/* where the accessors work, inside the range */

static long page;
/* SIGSEGV's action before cmocka's (which it installs around each case): SIG_DFL or ASan's */
static struct sigaction orig_segv;

/* The model: memory behind the trapped range. */
struct dev {
	uint8_t *mem;
	size_t len;
	uint64_t reads, writes;
	int clobber_errno;	/* the callback sets errno: the handler must restore it */
};

static int
dev_read(void *ctx, uint64_t off, unsigned int size, uint64_t *v)
{
	struct dev *d = ctx;

	if (off + size > d->len)
		return -EFAULT;
	*v = 0;
	memcpy(v, d->mem + off, size);
	__atomic_fetch_add(&d->reads, 1, __ATOMIC_RELAXED);
	if (d->clobber_errno)
		errno = EIO;
	return 0;
}

static int
dev_write(void *ctx, uint64_t off, unsigned int size, uint64_t v)
{
	struct dev *d = ctx;

	if (off + size > d->len)
		return -EFAULT;
	memcpy(d->mem + off, &v, size);
	__atomic_fetch_add(&d->writes, 1, __ATOMIC_RELAXED);
	if (d->clobber_errno)
		errno = EIO;
	return 0;
}

static const struct vpci_mem_ops dev_ops = { dev_read, dev_write };

static uint8_t *
map_none(size_t len)
{
	void *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	return p;
}

/* A trapped range of @p len and its model. */
static uint8_t *
trap_new(struct dev *d, size_t len)
{
	uint8_t *base = map_none(len);

	memset(d, 0, sizeof(*d));
	d->mem = calloc(1, len);
	d->len = len;
	assert_non_null(d->mem);
	assert_int_equal(vpci_trap_add(base, len, &dev_ops, d), 0);
	return base;
}

static void
trap_free(struct dev *d, uint8_t *base)
{
	assert_int_equal(vpci_trap_remove(base), 0);
	munmap(base, d->len);
	free(d->mem);
}

/* ---- the encodings the handler saw: a recorder chained in front of it ---- */

#define ENC_MAX 1024
static struct {
	uint8_t b[VPCI_INSN_MAX];
	uint8_t len;
	char form[24];
} enc[ENC_MAX];
static unsigned int n_enc;
static struct sigaction vpci_action;

static void
record_segv(int sig, siginfo_t *si, void *uctx)
{
	ucontext_t *uc = uctx;
	const uint8_t *rip = (const uint8_t *)uc->uc_mcontext.gregs[REG_RIP];
	struct vpci_regs r;
	struct vpci_insn insn;
	uint8_t code[VPCI_INSN_MAX];
	unsigned int i;

	memset(&r, 0, sizeof(r));
	memcpy(code, rip, sizeof(code)); /* our accessors: never at a text end */
	if (vpci_decode(code, sizeof(code), &r, &insn, NULL, 0) == 0 && n_enc < ENC_MAX) {
		for (i = 0; i < n_enc; i++)
			if (enc[i].len == insn.len && memcmp(enc[i].b, code, insn.len) == 0)
				break;
		if (i == n_enc) {
			memcpy(enc[n_enc].b, code, insn.len);
			enc[n_enc].len = insn.len;
			snprintf(enc[n_enc].form, sizeof(enc[n_enc].form), "%s/%u", insn.mnemonic,
				 insn.size);
			n_enc++;
		}
	}
	vpci_action.sa_sigaction(sig, si, uctx);
}

static unsigned int
distinct_forms(void)
{
	unsigned int i, j, n = 0;

	for (i = 0; i < n_enc; i++) {
		for (j = 0; j < i; j++)
			if (strcmp(enc[i].form, enc[j].form) == 0)
				break;
		n += j == i;
	}
	return n;
}

/* ---- the accessors, plain and trapped ---- */

static const struct {
	const char *name;
	const struct vpci_acc *t;
} builds[] = {
#define VPCI_ACC_ROW(cc, lvl) { #cc " -" #lvl, vpci_acc_##cc##_##lvl },
	VPCI_ACC_BUILDS(VPCI_ACC_ROW)
};

static const struct {
	uint64_t v, i;
} args[] = {
	{ 0x1234567890abcdefull, 2 }, { 0xff, 0 }, { 0x80000000ull, 5 }, { 0, 1 },
};

static void
fill(uint8_t *a, uint8_t *b, size_t len, uint64_t seed)
{
	size_t k;

	for (k = 0; k < len; k++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		a[k] = b[k] = (uint8_t)(seed >> 56);
	}
}

/* Run every accessor of @p t plain and trapped; 0 or the first mismatch. */
static const char *
run_table(const struct vpci_acc *t, uint8_t *plain, uint8_t *trap, struct dev *d,
		uint64_t *runs)
{
	struct vpci_trap_stats s0, s1;
	uint64_t r1, r2;
	unsigned int k, a;

	for (k = 0; t[k].name != NULL; k++) {
		if (t[k].avx && !__builtin_cpu_supports("avx"))
			continue;
		for (a = 0; a < sizeof(args) / sizeof(args[0]); a++) {
			fill(plain, d->mem, d->len, k * 16 + a);
			r1 = t[k].fn(plain + OFF, args[a].v, args[a].i);
			vpci_trap_stats_get(&s0);
			r2 = t[k].fn(trap + OFF, args[a].v, args[a].i);
			vpci_trap_stats_get(&s1);
			if (r1 != r2 || memcmp(plain, d->mem, d->len) != 0 ||
					s1.emulated == s0.emulated)
				return t[k].name;
			(*runs)++;
		}
	}
	return NULL;
}

static void
test_accessors_every_compiler_and_level(void **state)
{
	struct sigaction rec;
	struct dev d;
	struct vpci_trap_stats s0, s1;
	uint8_t *trap = trap_new(&d, 2 * page);
	uint8_t *plain = aligned_alloc(page, 2 * page);
	const char *bad;
	uint64_t runs = 0;
	unsigned int b;

	(void)state;
	assert_non_null(plain);
	/* the recorder in front of vpci's handler (installed by trap_new) */
	memset(&rec, 0, sizeof(rec));
	rec.sa_sigaction = record_segv;
	rec.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
	sigemptyset(&rec.sa_mask);
	assert_int_equal(sigaction(SIGSEGV, &rec, &vpci_action), 0);
	assert_true(vpci_action.sa_flags & SA_SIGINFO);
	vpci_trap_stats_get(&s0);
	for (b = 0; b < sizeof(builds) / sizeof(builds[0]); b++) {
		bad = run_table(builds[b].t, plain, trap, &d, &runs);
		if (bad != NULL) {
			sigaction(SIGSEGV, &vpci_action, NULL);
			fail_msg("%s: accessor %s differs between plain and trapped memory",
				 builds[b].name, bad);
		}
	}
	vpci_trap_stats_get(&s1);
	assert_int_equal(sigaction(SIGSEGV, &vpci_action, NULL), 0);
	printf("[ info ] %u builds, %llu accessor runs, %llu trapped accesses (%llu reads, "
	       "%llu writes): %u distinct instruction encodings, %u forms (mnemonic/size)\n",
	       (unsigned int)(sizeof(builds) / sizeof(builds[0])), (unsigned long long)runs,
	       (unsigned long long)(s1.emulated - s0.emulated), (unsigned long long)d.reads,
	       (unsigned long long)d.writes, n_enc, distinct_forms());
	assert_int_equal(s1.refused, s0.refused);
	/* every form class of the header appears among what compilers emitted */
	assert_true(n_enc >= 100);
	trap_free(&d, trap);
	free(plain);
}

static void
test_errno_kept(void **state)
{
	struct dev d;
	uint8_t *trap = trap_new(&d, page);
	uint32_t v;

	(void)state;
	d.clobber_errno = 1;
	memset(d.mem, 0x5a, page);
	errno = 4321;
	v = *(volatile uint32_t *)(trap + 8);
	assert_int_equal(errno, 4321);
	*(volatile uint32_t *)(trap + 12) = 7;
	assert_int_equal(errno, 4321);
	assert_int_equal(v, 0x5a5a5a5a);
	assert_true(d.reads == 1 && d.writes == 1);
	trap_free(&d, trap);
}

struct thr {
	uint8_t *trap, *plain;
	struct dev *d;
	uint64_t runs;
	const char *bad;
};

static void *
thread_main(void *arg)
{
	struct thr *t = arg;
	unsigned int round;

	for (round = 0; round < 20 && t->bad == NULL; round++)
		t->bad = run_table(vpci_acc_clang_O2, t->plain, t->trap, t->d, &t->runs);
	return NULL;
}

static void
test_two_threads_two_ranges(void **state)
{
	struct dev d1, d2;
	struct thr t1, t2;
	pthread_t th;

	(void)state;
	t1.trap = trap_new(&d1, page);
	t2.trap = trap_new(&d2, page);
	t1.plain = aligned_alloc(page, page);
	t2.plain = aligned_alloc(page, page);
	t1.d = &d1;
	t2.d = &d2;
	t1.runs = t2.runs = 0;
	t1.bad = t2.bad = NULL;
	assert_int_equal(pthread_create(&th, NULL, thread_main, &t2), 0);
	thread_main(&t1);
	assert_int_equal(pthread_join(th, NULL), 0);
	if (t1.bad != NULL || t2.bad != NULL)
		fail_msg("accessor %s differs", t1.bad ? t1.bad : t2.bad);
	assert_true(t1.runs > 0 && t1.runs == t2.runs);
	assert_true(d2.reads > 0 && d2.writes > 0);
	trap_free(&d1, t1.trap);
	trap_free(&d2, t2.trap);
	free(t1.plain);
	free(t2.plain);
}

/* ---- faults that must still kill ---- */

/* Run @p fn in a child with stderr captured; its wait status and output. */
static int
in_child(void (*fn)(void *), void *arg, char *out, size_t out_len)
{
	int fds[2], status = 0;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct dev d;

		close(fds[0]);
		dup2(fds[1], STDERR_FILENO);
		/* as in a program: vpci's handler on top of the original action */
		sigaction(SIGSEGV, &orig_segv, NULL);
		trap_new(&d, page);
		fn(arg);
		_exit(0); /* survived: the caller fails */
	}
	close(fds[1]);
	while (got + 1 < out_len && (n = read(fds[0], out + got, out_len - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = '\0';
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

/* Died as it would have without us: SIGSEGV, or ASan's report of a SEGV. */
static void
assert_died_of_segv(int status, const char *out)
{
	if (UNDER_ASAN) {
		if (!(WIFEXITED(status) && WEXITSTATUS(status) != 0) ||
				strstr(out, "AddressSanitizer: SEGV") == NULL)
			fail_msg("status 0x%x, stderr: %s", status, out);
	} else if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGSEGV) {
		fail_msg("status 0x%x, stderr: %s", status, out);
	}
}

static void
touch_unmapped(void *arg)
{
	*(volatile uint32_t *)arg = 1;
}

static void
mul_trapped(void *arg)
{
	/* mul dword [reg]: a memory access vpci refuses */
	__asm__ volatile("mull (%0)" : : "r"(arg) : "rax", "rdx", "cc", "memory");
}

static void
send_segv(void *arg)
{
	(void)arg;
	kill(getpid(), SIGSEGV);
}

static void
test_foreign_and_refused_faults_kill(void **state)
{
	struct dev d;
	uint8_t *trap = trap_new(&d, page);
	uint8_t *other = map_none(page);
	char out[8192], want[64];
	int status;

	(void)state;
	/* a fault outside every range takes the action from before (default, or ASan's) */
	status = in_child(touch_unmapped, other + 16, out, sizeof(out));
	assert_died_of_segv(status, out);
	snprintf(want, sizeof(want), "vpci: SIGSEGV at %p outside every trapped range",
		 (void *)(other + 16));
	if (strstr(out, want) == NULL || strstr(out, "bytes ") == NULL)
		fail_msg("stderr: %s", out);
	/* an access in a range the decoder refuses: the bytes are named */
	status = in_child(mul_trapped, trap + 64, out, sizeof(out));
	assert_died_of_segv(status, out);
	if (strstr(out, "in a trapped range") == NULL ||
			strstr(out, "vpci: cannot emulate f7") == NULL)
		fail_msg("stderr: %s", out);
	/* a SIGSEGV sent, not caused, is passed on too */
	status = in_child(send_segv, NULL, out, sizeof(out));
	if (!UNDER_ASAN && (!WIFSIGNALED(status) || WTERMSIG(status) != SIGSEGV))
		fail_msg("status 0x%x, stderr: %s", status, out);
	if (UNDER_ASAN && WIFEXITED(status) && WEXITSTATUS(status) == 0)
		fail_msg("survived a SIGSEGV: %s", out);
	/* and this process traps as before */
	memset(d.mem, 0x11, page);
	assert_int_equal(*(volatile uint8_t *)(trap + 3), 0x11);
	munmap(other, page);
	trap_free(&d, trap);
}

/* ---- a VEX load zeroes the upper half of its ymm register ---- */

__attribute__((target("avx"))) static void
vex_load(const void *p, uint8_t lo[16], uint8_t hi[16])
{
	__asm__ volatile(
		"vpcmpeqd %%xmm1, %%xmm1, %%xmm1\n\t"
		"vinsertf128 $1, %%xmm1, %%ymm1, %%ymm1\n\t"	/* ymm1: all ones */
		"vmovdqu (%[p]), %%xmm1\n\t"			/* the trapped VEX.128 load */
		"vextractf128 $1, %%ymm1, %%xmm2\n\t"
		"vmovdqu %%xmm1, (%[lo])\n\t"
		"vmovdqu %%xmm2, (%[hi])\n\t"
		"vzeroupper"
		: : [p] "r"(p), [lo] "r"(lo), [hi] "r"(hi) : "xmm1", "xmm2", "memory");
}

static void
test_vex_load_zeroes_upper_ymm(void **state)
{
	static const uint8_t zero[16];
	struct dev d;
	uint8_t *trap, lo[16], hi[16];
	unsigned int k;

	(void)state;
	if (!__builtin_cpu_supports("avx")) {
		printf("[ info ] no AVX on this CPU: VEX loads cannot occur\n");
		return;
	}
	trap = trap_new(&d, page);
	for (k = 0; k < 32; k++)
		d.mem[k] = (uint8_t)(k * 7 + 1);
	/* plain memory first: what the CPU does */
	vex_load(d.mem + 16, lo, hi);
	assert_memory_equal(hi, zero, 16);
	memset(hi, 0xee, sizeof(hi));
	vex_load(trap + 16, lo, hi);
	assert_memory_equal(lo, d.mem + 16, 16);
	assert_memory_equal(hi, zero, 16);
	trap_free(&d, trap);
}

static void
test_range_table_limits(void **state)
{
	static const struct vpci_mem_ops no_read = { NULL, dev_write };
	struct dev d;
	uint8_t *area = map_none((VPCI_TRAP_MAX + 2) * page);
	unsigned int k;
	int rc;

	(void)state;
	memset(&d, 0, sizeof(d));
	assert_int_equal(vpci_trap_add(area + 1, page, &dev_ops, &d), -EINVAL);
	assert_int_equal(vpci_trap_add(area, page + 1, &dev_ops, &d), -EINVAL);
	assert_int_equal(vpci_trap_add(area, 0, &dev_ops, &d), -EINVAL);
	assert_int_equal(vpci_trap_add(area, page, NULL, &d), -EINVAL);
	assert_int_equal(vpci_trap_add(area, page, &no_read, &d), -EINVAL);
	assert_int_equal(vpci_trap_add(area, 2 * page, &dev_ops, &d), 0);
	/* overlapping from either side */
	assert_int_equal(vpci_trap_add(area + page, page, &dev_ops, &d), -EINVAL);
	assert_int_equal(vpci_trap_add(area, page, &dev_ops, &d), -EINVAL);
	assert_int_equal(vpci_trap_remove(area + page), -ENOENT);
	assert_int_equal(vpci_trap_remove(area), 0);
	assert_int_equal(vpci_trap_remove(area), -ENOENT);
	/* the table holds VPCI_TRAP_MAX ranges (none are left by the other cases) */
	for (k = 0; k < VPCI_TRAP_MAX; k++)
		assert_int_equal(vpci_trap_add(area + k * page, page, &dev_ops, &d), 0);
	rc = vpci_trap_add(area + VPCI_TRAP_MAX * page, page, &dev_ops, &d);
	assert_int_equal(rc, -ENOSPC);
	assert_int_equal(vpci_trap_remove(area + 5 * page), 0);
	assert_int_equal(vpci_trap_add(area + VPCI_TRAP_MAX * page, page, &dev_ops, &d), 0);
	for (k = 0; k <= VPCI_TRAP_MAX; k++)
		if (k != 5)
			assert_int_equal(vpci_trap_remove(area + k * page), 0);
	munmap(area, (VPCI_TRAP_MAX + 2) * page);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accessors_every_compiler_and_level),
		cmocka_unit_test(test_errno_kept),
		cmocka_unit_test(test_two_threads_two_ranges),
		cmocka_unit_test(test_foreign_and_refused_faults_kill),
		cmocka_unit_test(test_vex_load_zeroes_upper_ymm),
		cmocka_unit_test(test_range_table_limits),
	};

	page = sysconf(_SC_PAGESIZE);
	sigaction(SIGSEGV, NULL, &orig_segv);
	test_case_filter(argc, argv);
	return cmocka_run_group_tests_name("vpci_trap", tests, NULL, NULL);
}
