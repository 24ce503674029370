/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * tools/vpci's x86-64 access emulator (vpci_emulate) on any bytes with any
 * registers. Input: [16 bytes: register seed, error choice][code]. The code
 * is copied to a buffer of exactly its length, so ASan catches a read past
 * `avail`. Checks: only 0, -ENOTSUP, -EINVAL or the callback's error; the
 * callbacks see sizes 1/2/4/8 only, at most two calls, the first at the
 * decoded effective address; a failure leaves the registers as they were;
 * a success advances rip by the decoded length (at most 15 and at most
 * `avail`) and touches no flag outside the arithmetic ones; the message
 * always ends inside its buffer.
 */

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vpci_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fctx {
	unsigned int calls;
	uint64_t first;
	int fail_at;		/* fail the call with this index (-1: none) */
};

static void
check_size(unsigned int size)
{
	if (size != 1 && size != 2 && size != 4 && size != 8)
		abort();
}

static int
f_read(void *ctx, uint64_t addr, unsigned int size, uint64_t *v)
{
	struct fctx *c = ctx;

	check_size(size);
	if (c->calls == 0)
		c->first = addr;
	if (++c->calls > 2)
		abort();
	/* deliberately more bits than asked for: the emulator masks */
	*v = addr * 0x9e3779b97f4a7c15ull;
	return (int)c->calls - 1 == c->fail_at ? -EIO : 0;
}

static int
f_write(void *ctx, uint64_t addr, unsigned int size, uint64_t v)
{
	struct fctx *c = ctx;

	(void)v;
	check_size(size);
	if (c->calls == 0)
		c->first = addr;
	if (++c->calls > 2)
		abort();
	return (int)c->calls - 1 == c->fail_at ? -ENXIO : 0;
}

static uint64_t
mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct vpci_mem_ops ops = { f_read, f_write };
	struct vpci_regs regs, before;
	struct vpci_insn insn;
	struct fctx c = { 0, 0, -1 };
	uint64_t seed = 0;
	size_t n, err_len;
	uint8_t *code;
	char err[96];
	unsigned int i;
	int rc, drc;

	if (size < 16)
		return 0;
	memcpy(&seed, data, 8);
	for (i = 0; i < 16; i++)
		regs.gpr[i] = mix(&seed);
	regs.rip = mix(&seed);
	regs.rflags = mix(&seed);
	for (i = 0; i < 16; i++) {
		uint64_t a = mix(&seed), b = mix(&seed);

		memcpy(regs.xmm[i], &a, 8);
		memcpy(regs.xmm[i] + 8, &b, 8);
	}
	c.fail_at = data[8] < 32 ? data[8] % 2 : -1;
	err_len = data[9] % sizeof(err);
	n = size - 16;
	code = malloc(n ? n : 1);
	if (code == NULL)
		return 0;
	memcpy(code, data + 16, n);
	before = regs;

	memset(err, 0x7f, sizeof(err));
	drc = vpci_decode(code, n, &regs, &insn, err, err_len);
	if (drc != 0 && err_len && memchr(err, '\0', err_len) == NULL)
		abort();
	if (drc != 0 && drc != -ENOTSUP && drc != -EINVAL)
		abort();
	if (drc == 0) {
		if (insn.len == 0 || insn.len > VPCI_INSN_MAX || insn.len > n)
			abort();
		if (insn.size != 1 && insn.size != 2 && insn.size != 4 && insn.size != 8 &&
				insn.size != 16)
			abort();
		if (!insn.reads && !insn.writes)
			abort();
		if (memchr(insn.mnemonic, '\0', sizeof(insn.mnemonic)) == NULL)
			abort();
	}

	memset(err, 0x7f, sizeof(err));
	rc = vpci_emulate(code, n, &regs, &ops, &c, err, err_len);
	if (err_len && rc != 0 && memchr(err, '\0', err_len) == NULL)
		abort();
	if (drc != 0) {
		/* the same verdict, nothing called, nothing changed */
		if (rc != drc || c.calls != 0)
			abort();
	} else if (rc != 0) {
		if ((rc != -EIO && rc != -ENXIO) || c.fail_at < 0)
			abort();
	} else {
		if (c.calls == 0 || c.first != insn.ea)
			abort();
		if (c.fail_at >= 0 && c.fail_at < (int)c.calls)
			abort();
		if (regs.rip != before.rip + insn.len)
			abort();
		if ((regs.rflags ^ before.rflags) & ~0x8d5ull)
			abort();
	}
	if (rc != 0 && memcmp(&regs, &before, sizeof(regs)) != 0)
		abort();
	free(code);
	return 0;
}
