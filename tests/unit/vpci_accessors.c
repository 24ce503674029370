/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * Register accessors as drivers write them, for unit_vpci_trap: this file is
 * compiled by gcc and by clang at -O0 -O1 -O2 -O3 -Os (tests/unit/meson.build),
 * each object's table named by ACC(), e.g. -DACC(n)=n##_gcc_O2, so that the
 * test runs the instruction forms real compilers pick, once on plain memory
 * and once on a trapped page. Each accessor takes the memory @p p, a value
 * @p v and an index @p i, and returns what it read.
 */

#include <stdint.h>
#include <string.h>

#include "vpci_accessors.h"

#ifndef ACC
#define ACC(n) n
#endif

#define V8(p) (*(volatile uint8_t *)(p))
#define V16(p) (*(volatile uint16_t *)(p))
#define V32(p) (*(volatile uint32_t *)(p))
#define V64(p) (*(volatile uint64_t *)(p))

/* loads, plain, zero- and sign-extending */
static uint64_t
ld8(void *p, uint64_t v, uint64_t i)
{
	(void)v;
	(void)i;
	return V8(p);
}

static uint64_t
ld16(void *p, uint64_t v, uint64_t i)
{
	(void)v;
	(void)i;
	return V16(p);
}

static uint64_t
ld32(void *p, uint64_t v, uint64_t i)
{
	(void)v;
	(void)i;
	return V32(p);
}

static uint64_t
ld64(void *p, uint64_t v, uint64_t i)
{
	(void)v;
	(void)i;
	return V64(p);
}

static uint64_t
ld8s64(void *p, uint64_t v, uint64_t i)
{
	(void)v;
	(void)i;
	return (uint64_t)(int64_t)*(volatile int8_t *)p;
}

static uint64_t
ld16s64(void *p, uint64_t v, uint64_t i)
{
	(void)v;
	(void)i;
	return (uint64_t)(int64_t)*(volatile int16_t *)((char *)p + 2);
}

static uint64_t
ld32s64(void *p, uint64_t v, uint64_t i)
{
	(void)v;
	(void)i;
	return (uint64_t)(int64_t)*(volatile int32_t *)((char *)p + 4);
}

static uint64_t
ld8s32(void *p, uint64_t v, uint64_t i)
{
	(void)v;
	(void)i;
	return (uint32_t)(int32_t)*(volatile int8_t *)((char *)p + 1);
}

static uint64_t
ld16s32(void *p, uint64_t v, uint64_t i)
{
	(void)v;
	(void)i;
	return (uint32_t)(int32_t)*(volatile int16_t *)p;
}

static uint64_t
ld8z32_add(void *p, uint64_t v, uint64_t i)
{
	(void)i;
	return (uint32_t)v + V8((char *)p + 3);
}

static uint64_t
ld16z64_mul(void *p, uint64_t v, uint64_t i)
{
	(void)i;
	return v * V16((char *)p + 6);
}

/* stores of registers and immediates */
static uint64_t
st8(void *p, uint64_t v, uint64_t i)
{
	(void)i;
	V8(p) = (uint8_t)v;
	return 0;
}

static uint64_t
st16(void *p, uint64_t v, uint64_t i)
{
	(void)i;
	V16(p) = (uint16_t)v;
	return 0;
}

static uint64_t
st32(void *p, uint64_t v, uint64_t i)
{
	(void)i;
	V32(p) = (uint32_t)v;
	return 0;
}

static uint64_t
st64(void *p, uint64_t v, uint64_t i)
{
	(void)i;
	V64(p) = v;
	return 0;
}

static uint64_t
st8_hi(void *p, uint64_t v, uint64_t i)
{
	(void)i;
	V8((char *)p + 1) = (uint8_t)(v >> 8);
	return 0;
}

static uint64_t
st_imm(void *p, uint64_t v, uint64_t i)
{
	(void)v;
	(void)i;
	V8(p) = 0xa5;
	V16((char *)p + 2) = 0x1234;
	V32((char *)p + 4) = 0xdeadbeef;
	V64((char *)p + 8) = 0xffffffff80000001ull;
	V64((char *)p + 16) = 0x7fffffffull;
	V64((char *)p + 24) = 0x123456789abcdef0ull;
	return 0;
}

/* read-modify-write, register and immediate operands */
#define RMW(name, V, T, op)						\
	static uint64_t							\
	name(void *p, uint64_t v, uint64_t i)				\
	{								\
		(void)i;						\
		V(p) op (T)v;						\
		return V(p);						\
	}
RMW(add8, V8, uint8_t, +=)
RMW(add16, V16, uint16_t, +=)
RMW(add32, V32, uint32_t, +=)
RMW(add64, V64, uint64_t, +=)
RMW(or8, V8, uint8_t, |=)
RMW(or16, V16, uint16_t, |=)
RMW(or32, V32, uint32_t, |=)
RMW(or64, V64, uint64_t, |=)
RMW(and8, V8, uint8_t, &=)
RMW(and16, V16, uint16_t, &=)
RMW(and32, V32, uint32_t, &=)
RMW(and64, V64, uint64_t, &=)
RMW(xor8, V8, uint8_t, ^=)
RMW(xor16, V16, uint16_t, ^=)
RMW(xor32, V32, uint32_t, ^=)
RMW(xor64, V64, uint64_t, ^=)
RMW(sub8, V8, uint8_t, -=)
RMW(sub16, V16, uint16_t, -=)
RMW(sub32, V32, uint32_t, -=)
RMW(sub64, V64, uint64_t, -=)

static uint64_t
rmw_imm(void *p, uint64_t v, uint64_t i)
{
	(void)v;
	(void)i;
	V32(p) += 1;
	V32((char *)p + 4) -= 1;
	V32((char *)p + 8) |= 0x80;
	V32((char *)p + 12) &= ~4u;
	V64((char *)p + 16) ^= 0x100;
	V8((char *)p + 24) += 3;
	V16((char *)p + 26) |= 0x8000;
	V64((char *)p + 32) += 0x12345678;
	V64((char *)p + 40) &= 0xffffffff0000ffffull;
	return V64(p);
}

static uint64_t
neg_not(void *p, uint64_t v, uint64_t i)
{
	(void)v;
	(void)i;
	V32(p) = -V32(p);
	V64((char *)p + 8) = ~V64((char *)p + 8);
	V8((char *)p + 16) = (uint8_t)-V8((char *)p + 16);
	return V32(p);
}

/* a volatile load folded into arithmetic, compares and tests */
static uint64_t
fold_add(void *p, uint64_t v, uint64_t i)
{
	(void)i;
	return (uint32_t)v + V32(p);
}

static uint64_t
fold_and(void *p, uint64_t v, uint64_t i)
{
	(void)i;
	return v & V64(p);
}

static uint64_t
fold_or(void *p, uint64_t v, uint64_t i)
{
	(void)i;
	return (uint16_t)v | V16(p);
}

static uint64_t
fold_sub(void *p, uint64_t v, uint64_t i)
{
	(void)i;
	return v - V64(p);
}

static uint64_t
fold_xor(void *p, uint64_t v, uint64_t i)
{
	(void)i;
	return (uint8_t)v ^ V8(p);
}

static uint64_t
fold_eq(void *p, uint64_t v, uint64_t i)
{
	(void)i;
	return V32(p) == (uint32_t)v;
}

static uint64_t
fold_gt(void *p, uint64_t v, uint64_t i)
{
	(void)i;
	return V64(p) > v ? 7 : 9;
}

static uint64_t
fold_test(void *p, uint64_t v, uint64_t i)
{
	(void)v;
	(void)i;
	return ((V32(p) & 0x40) ? 1 : 0) | ((V8((char *)p + 5) & 1) ? 2 : 0) |
		((V64((char *)p + 8) & 0x100000000ull) ? 4 : 0);
}

static uint64_t
fold_cmp_imm(void *p, uint64_t v, uint64_t i)
{
	(void)v;
	(void)i;
	return (V32(p) == 0x1234 ? 1 : 0) | (V8((char *)p + 4) > 0x80 ? 2 : 0) |
		(V16((char *)p + 6) != 7 ? 4 : 0);
}

/* computed indexes: base + index * scale + disp */
struct regs_block {
	uint32_t ctrl;
	uint32_t status;
	uint32_t q[16];
	uint64_t ring[8];
};

static uint64_t
idx32(void *p, uint64_t v, uint64_t i)
{
	volatile struct regs_block *r = p;

	r->q[i] = (uint32_t)v;
	return r->q[i + 1];
}

static uint64_t
idx64(void *p, uint64_t v, uint64_t i)
{
	volatile struct regs_block *r = p;

	r->ring[i + 1] = v;
	return r->ring[i];
}

static uint64_t
idx16(void *p, uint64_t v, uint64_t i)
{
	volatile uint16_t *w = p;

	w[i * 2 + 1] = (uint16_t)v;
	return w[i * 2 + 3];
}

static uint64_t
idx8(void *p, uint64_t v, uint64_t i)
{
	volatile uint8_t *b = p;

	b[i + 40] = (uint8_t)v;
	return b[i + 41];
}

static uint64_t
idx_rmw(void *p, uint64_t v, uint64_t i)
{
	volatile struct regs_block *r = p;

	r->q[i] += (uint32_t)v;
	r->ring[i] |= v;
	return r->q[i];
}

/* copies compilers turn into SSE moves; memcpy of 4/8/16 bytes both ways */
struct s16 {
	uint64_t a, b;
};

static uint64_t
copy16(void *p, uint64_t v, uint64_t i)
{
	struct s16 *s = p;

	(void)v;
	(void)i;
	s[2] = s[0];
	return s[2].a ^ s[2].b;
}

static uint64_t
copy16_out(void *p, uint64_t v, uint64_t i)
{
	struct s16 t;

	(void)i;
	memcpy(&t, p, sizeof(t));
	return t.a + t.b * v;
}

static uint64_t
copy16_in(void *p, uint64_t v, uint64_t i)
{
	struct s16 t = { v, v * 3 + i };

	memcpy((char *)p + 48, &t, sizeof(t));
	return 0;
}

static uint64_t
copy8(void *p, uint64_t v, uint64_t i)
{
	uint64_t t;

	(void)i;
	memcpy(&t, p, 8);
	t += v;
	memcpy((char *)p + 64, &t, 8);
	return t;
}

static uint64_t
copy4(void *p, uint64_t v, uint64_t i)
{
	uint32_t t;

	(void)i;
	memcpy(&t, (char *)p + 4, 4);
	t ^= (uint32_t)v;
	memcpy((char *)p + 72, &t, 4);
	return t;
}

/* atomics drivers use on device memory: xchg and the lock-prefixed ALU forms */
static uint64_t
atomics(void *p, uint64_t v, uint64_t i)
{
	uint32_t *w = p;
	uint64_t *q = (uint64_t *)((char *)p + 16);
	uint64_t old;

	(void)i;
	old = __atomic_exchange_n(w, (uint32_t)v, __ATOMIC_SEQ_CST);
	old += __atomic_exchange_n(q, v, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(w + 1, 5, __ATOMIC_SEQ_CST);
	__atomic_fetch_or(w + 2, (uint32_t)v, __ATOMIC_SEQ_CST);
	__atomic_fetch_and(q + 1, ~v, __ATOMIC_SEQ_CST);
	__atomic_fetch_sub(q + 2, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(w + 3, 0x11, __ATOMIC_RELEASE);
	return old + __atomic_load_n(q + 1, __ATOMIC_ACQUIRE);
}

/* VEX.128 moves, as an AVX build of a 16-byte copy emits them */
__attribute__((target("avx"))) static uint64_t
copy16_avx(void *p, uint64_t v, uint64_t i)
{
	struct s16 *s = p;

	(void)v;
	(void)i;
	s[3] = s[1];
	return s[3].a;
}

#define E(n) { #n, n, 0 }
const struct vpci_acc ACC(vpci_acc)[] = {
	E(ld8), E(ld16), E(ld32), E(ld64), E(ld8s64), E(ld16s64), E(ld32s64), E(ld8s32),
	E(ld16s32), E(ld8z32_add), E(ld16z64_mul),
	E(st8), E(st16), E(st32), E(st64), E(st8_hi), E(st_imm),
	E(add8), E(add16), E(add32), E(add64), E(or8), E(or16), E(or32), E(or64),
	E(and8), E(and16), E(and32), E(and64), E(xor8), E(xor16), E(xor32), E(xor64),
	E(sub8), E(sub16), E(sub32), E(sub64), E(rmw_imm), E(neg_not),
	E(fold_add), E(fold_and), E(fold_or), E(fold_sub), E(fold_xor), E(fold_eq), E(fold_gt),
	E(fold_test), E(fold_cmp_imm),
	E(idx32), E(idx64), E(idx16), E(idx8), E(idx_rmw),
	E(copy16), E(copy16_out), E(copy16_in), E(copy8), E(copy4), E(atomics),
	{ "copy16_avx", copy16_avx, 1 },
	{ NULL, NULL, 0 },
};
