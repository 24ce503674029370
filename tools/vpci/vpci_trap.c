/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * MMIO trapping (vpci_trap.h): one SIGSEGV handler for every range. The
 * handler runs on whichever thread faults, so everything it touches is
 * lock-free: the range table is published slot by slot with release stores,
 * the counters are atomics, messages are written with write(2).
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <cpuid.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

#include "vpci_trap.h"

struct trap_slot {
	uintptr_t base;		/* 0: free; written last (release), read first (acquire) */
	size_t len;
	const struct vpci_mem_ops *ops;
	void *ctx;
};

static struct trap_slot slots[VPCI_TRAP_MAX];
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER; /* add/remove only */
static struct sigaction prev_action;
static uint64_t st_emulated, st_refused, st_foreign;
/* XSAVE layout of the signal frame: where the upper ymm/zmm halves live */
static uint32_t ymm_off, zmm_off;
static uintptr_t page_size;

/* ucontext greg index of each vpci_regs.gpr[] */
static const int gpr_of[16] = {
	REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
	REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15,
};

/* What the handler passes to the decoder: a slot, addresses made relative. */
struct trap_ctx {
	const struct trap_slot *slot;
	uintptr_t base;
	size_t len;
};

static int
in_range(const struct trap_ctx *t, uint64_t addr, unsigned int size)
{
	return addr >= t->base && addr - t->base < t->len && size <= t->len - (addr - t->base);
}

static int
trap_read(void *ctx, uint64_t addr, unsigned int size, uint64_t *value)
{
	struct trap_ctx *t = ctx;

	if (!in_range(t, addr, size))
		return -EFAULT;
	return t->slot->ops->read(t->slot->ctx, addr - t->base, size, value);
}

static int
trap_write(void *ctx, uint64_t addr, unsigned int size, uint64_t value)
{
	struct trap_ctx *t = ctx;

	if (!in_range(t, addr, size))
		return -EFAULT;
	return t->slot->ops->write(t->slot->ctx, addr - t->base, size, value);
}

static const struct vpci_mem_ops trap_ops = { trap_read, trap_write };

/* ---- messages by hand (async-signal-safe) ---- */

static size_t
put_str(char *b, size_t pos, size_t len, const char *s)
{
	while (*s != '\0' && pos + 1 < len)
		b[pos++] = *s++;
	b[pos] = '\0';
	return pos;
}

static size_t
put_hex(char *b, size_t pos, size_t len, uint64_t v, unsigned int digits)
{
	char t[17];
	unsigned int n = 0;

	do {
		t[16 - ++n] = "0123456789abcdef"[v & 0xf];
		v >>= 4;
	} while (v != 0 || n < digits);
	t[16] = '\0';
	return put_str(b, pos, len, t + 16 - n);
}

static void
say(const char *s)
{
	size_t n = strlen(s);
	ssize_t w;

	while (n > 0) {
		w = write(STDERR_FILENO, s, n);
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

/*
 * The instruction bytes at @p rip, up to 15: what lies on rip's page is
 * readable (the CPU fetched from it); past the page end, only what
 * process_vm_readv() says is mapped and readable.
 */
static size_t
code_bytes(uintptr_t rip, uint8_t *buf, int fetched)
{
	size_t first = page_size - (rip & (page_size - 1));
	struct iovec local, remote[2];
	ssize_t n;

	if (first > VPCI_INSN_MAX)
		first = VPCI_INSN_MAX;
	if (fetched && first == VPCI_INSN_MAX) {
		memcpy(buf, (const void *)rip, first);
		return first;
	}
	local.iov_base = buf;
	local.iov_len = VPCI_INSN_MAX;
	remote[0].iov_base = (void *)rip;
	remote[0].iov_len = first;
	remote[1].iov_base = (void *)(rip + first);
	remote[1].iov_len = VPCI_INSN_MAX - first;
	n = process_vm_readv(getpid(), &local, 1, remote, first < VPCI_INSN_MAX ? 2 : 1, 0);
	if (n >= 0)
		return (size_t)n;
	if (!fetched)
		return 0;
	/* process_vm_readv refused (seccomp?): the fetched page is enough */
	memcpy(buf, (const void *)rip, first);
	return first;
}

/* Give the fault back to whoever had SIGSEGV before: it re-executes and takes that action. */
static void
pass_on(const siginfo_t *si)
{
	struct sigaction sa = prev_action;

	if (!(sa.sa_flags & SA_SIGINFO) && sa.sa_handler == SIG_IGN)
		sa.sa_handler = SIG_DFL; /* the kernel would not ignore a fault either */
	sigaction(SIGSEGV, &sa, NULL);
	/* sent, not a fault: nothing re-executes, so send it again */
	if (si->si_code <= 0)
		raise(SIGSEGV);
}

static void
report(const char *what, uint64_t addr, uintptr_t rip, const uint8_t *code, size_t n,
		const char *detail)
{
	char b[320];
	size_t pos = 0, i;

	pos = put_str(b, pos, sizeof(b), "vpci: SIGSEGV at 0x");
	pos = put_hex(b, pos, sizeof(b), addr, 1);
	pos = put_str(b, pos, sizeof(b), what);
	pos = put_str(b, pos, sizeof(b), ", rip 0x");
	pos = put_hex(b, pos, sizeof(b), rip, 1);
	pos = put_str(b, pos, sizeof(b), ", bytes");
	for (i = 0; i < n; i++) {
		pos = put_str(b, pos, sizeof(b), " ");
		pos = put_hex(b, pos, sizeof(b), code[i], 2);
	}
	if (n == 0)
		pos = put_str(b, pos, sizeof(b), " (unreadable)");
	if (detail != NULL) {
		pos = put_str(b, pos, sizeof(b), ": ");
		pos = put_str(b, pos, sizeof(b), detail);
	}
	put_str(b, pos, sizeof(b), "\n");
	say(b);
}

static void
regs_from(const ucontext_t *uc, struct vpci_regs *r)
{
	const greg_t *g = uc->uc_mcontext.gregs;
	unsigned int i;

	for (i = 0; i < 16; i++)
		r->gpr[i] = (uint64_t)g[gpr_of[i]];
	r->rip = (uint64_t)g[REG_RIP];
	r->rflags = (uint64_t)g[REG_EFL];
	if (uc->uc_mcontext.fpregs != NULL)
		memcpy(r->xmm, uc->uc_mcontext.fpregs->_xmm, sizeof(r->xmm));
	else
		memset(r->xmm, 0, sizeof(r->xmm));
}

static void
regs_to(ucontext_t *uc, const struct vpci_regs *r, int vex_xmm)
{
	greg_t *g = uc->uc_mcontext.gregs;
	struct _libc_fpstate *fp = uc->uc_mcontext.fpregs;
	unsigned int i;

	for (i = 0; i < 16; i++)
		g[gpr_of[i]] = (greg_t)r->gpr[i];
	g[REG_RIP] = (greg_t)r->rip;
	g[REG_EFL] = (greg_t)r->rflags;
	if (fp == NULL)
		return;
	memcpy(fp->_xmm, r->xmm, sizeof(r->xmm));
	if (vex_xmm >= 0) {
		/*
		 * A VEX load zeroes its register above bit 127. The frame is
		 * XSAVE's standard format when sw_reserved says so (Linux's
		 * FP_XSTATE_MAGIC1): header at 512, xstate_bv its first word.
		 */
		const uint32_t *sw = (const uint32_t *)((const uint8_t *)fp + 464);
		uint8_t *x = (uint8_t *)fp;
		uint64_t bv;
		uint32_t size = sw[1];

		if (sw[0] != 0x46505853u)
			return;
		memcpy(&bv, x + 512, sizeof(bv));
		if ((bv & (1u << 2)) && ymm_off && ymm_off + 16u * (vex_xmm + 1) <= size)
			memset(x + ymm_off + 16 * vex_xmm, 0, 16);
		if ((bv & (1u << 6)) && zmm_off && zmm_off + 32u * (vex_xmm + 1) <= size)
			memset(x + zmm_off + 32 * vex_xmm, 0, 32);
	}
}

static const struct trap_slot *
find_slot(uintptr_t addr, struct trap_ctx *t)
{
	unsigned int i;
	uintptr_t base;

	for (i = 0; i < VPCI_TRAP_MAX; i++) {
		base = __atomic_load_n(&slots[i].base, __ATOMIC_ACQUIRE);
		if (base != 0 && addr >= base && addr - base < slots[i].len) {
			t->slot = &slots[i];
			t->base = base;
			t->len = slots[i].len;
			return t->slot;
		}
	}
	return NULL;
}

static void
on_segv(int sig, siginfo_t *si, void *uctx)
{
	ucontext_t *uc = uctx;
	int saved_errno = errno;
	uintptr_t addr = (uintptr_t)si->si_addr;
	uintptr_t rip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	struct vpci_regs regs;
	struct vpci_insn insn;
	struct trap_ctx t;
	uint8_t code[VPCI_INSN_MAX];
	char err[200];
	size_t n;
	int rc;

	(void)sig;
	if (si->si_code <= 0 || find_slot(addr, &t) == NULL) {
		__atomic_fetch_add(&st_foreign, 1, __ATOMIC_RELAXED);
		/* a fetch fault at rip (a jump to nowhere): no bytes to read there */
		n = si->si_code > 0 && addr != rip ? code_bytes(rip, code, 0) : 0;
		report(" outside every trapped range", addr, rip, code, n, NULL);
		pass_on(si);
		errno = saved_errno;
		return;
	}
	if (addr == rip) {
		rc = -ENOTSUP;
		n = 0;
		strcpy(err, "instruction fetch from a trapped range");
		goto refuse;
	}
	n = code_bytes(rip, code, 1);
	regs_from(uc, &regs);
	rc = vpci_decode(code, n, &regs, &insn, err, sizeof(err));
	if (rc == 0)
		rc = vpci_emulate(code, n, &regs, &trap_ops, &t, err, sizeof(err));
	if (rc == 0) {
		regs_to(uc, &regs, insn.vex_xmm);
		__atomic_fetch_add(&st_emulated, 1, __ATOMIC_RELAXED);
		errno = saved_errno;
		return;
	}
refuse:
	__atomic_fetch_add(&st_refused, 1, __ATOMIC_RELAXED);
	report(" in a trapped range", addr, rip, code, n, err);
	pass_on(si);
	errno = saved_errno;
}

static void
xsave_layout(void)
{
	unsigned int a, b, c, d;

	/* CPUID 0xd, sub-leaf i: EBX = offset of state component i in XSAVE's standard format */
	if (__get_cpuid_count(0xd, 2, &a, &b, &c, &d) && a != 0)
		ymm_off = b;
	if (__get_cpuid_count(0xd, 6, &a, &b, &c, &d) && a != 0)
		zmm_off = b;
}

/*
 * Install the handler unless it is the current one: the first add, or one
 * after something else took SIGSEGV over (a test harness that installs and
 * restores its own around each case), chains to whatever is current.
 */
static int
install(void)
{
	struct sigaction sa, cur;

	if (sigaction(SIGSEGV, NULL, &cur) != 0)
		return -errno;
	if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_segv)
		return 0;
	page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
	xsave_layout();
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, &prev_action) != 0)
		return -errno;
	return 0;
}

int
vpci_trap_add(void *base, size_t len, const struct vpci_mem_ops *ops, void *ctx)
{
	uintptr_t b = (uintptr_t)base, page = (uintptr_t)sysconf(_SC_PAGESIZE), s;
	int i, free_slot = -1, rc;

	if (b == 0 || len == 0 || (b & (page - 1)) || (len & (page - 1)) || b + len < b ||
			ops == NULL || ops->read == NULL || ops->write == NULL)
		return -EINVAL;
	pthread_mutex_lock(&slots_lock);
	for (i = 0; i < VPCI_TRAP_MAX; i++) {
		s = slots[i].base;
		if (s == 0) {
			if (free_slot < 0)
				free_slot = i;
			continue;
		}
		if (b < s + slots[i].len && s < b + len) {
			pthread_mutex_unlock(&slots_lock);
			return -EINVAL;
		}
	}
	if (free_slot < 0) {
		pthread_mutex_unlock(&slots_lock);
		return -ENOSPC;
	}
	rc = install();
	if (rc == 0) {
		slots[free_slot].len = len;
		slots[free_slot].ops = ops;
		slots[free_slot].ctx = ctx;
		__atomic_store_n(&slots[free_slot].base, b, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&slots_lock);
	return rc;
}

int
vpci_trap_remove(void *base)
{
	int i, rc = -ENOENT;

	pthread_mutex_lock(&slots_lock);
	for (i = 0; i < VPCI_TRAP_MAX; i++) {
		if (base != NULL && slots[i].base == (uintptr_t)base) {
			__atomic_store_n(&slots[i].base, 0, __ATOMIC_RELEASE);
			rc = 0;
			break;
		}
	}
	pthread_mutex_unlock(&slots_lock);
	return rc;
}

void
vpci_trap_stats_get(struct vpci_trap_stats *s)
{
	s->emulated = __atomic_load_n(&st_emulated, __ATOMIC_RELAXED);
	s->refused = __atomic_load_n(&st_refused, __ATOMIC_RELAXED);
	s->foreign = __atomic_load_n(&st_foreign, __ATOMIC_RELAXED);
}
