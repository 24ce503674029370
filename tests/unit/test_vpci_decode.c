/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * tools/vpci's x86-64 access emulator (vpci_decode.h) against the CPU: each
 * case's bytes run once through vpci_emulate() on a shadow of a data page
 * and once natively on the page itself (an executable page holding the
 * instruction and a jump back to a trampoline that loads and saves every
 * gpr, the arithmetic flags and xmm0-15); registers, flags and memory must
 * agree. Then the refusals (-ENOTSUP naming the bytes) and truncations.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_case.h"
#include "vpci_decode.h"

#define FL_ARITH 0x8d5ull
#define DATA_MID 0x800	/* base registers point here, in the middle of the data page */
#define SEEDS 6

/*
 * native_run(regs, code): load regs (rsp included) and jump to code, which
 * ends with a jump to native_ret; save them back and return to the caller.
 * struct vpci_regs: gpr at 0, rip at 128, rflags at 136, xmm at 144.
 */
void native_run(struct vpci_regs *r, const void *code);
extern char native_ret[];
__asm__(
	".data\n"
	".balign 8\n"
	"nat_regs: .quad 0\n"
	"nat_code: .quad 0\n"
	"nat_rsp: .quad 0\n"
	"nat_tmp: .quad 0\n"
	".text\n"
	".globl native_run\n"
	".hidden native_run\n"
	".type native_run, @function\n"
	"native_run:\n"
	"push %rbx\n push %rbp\n push %r12\n push %r13\n push %r14\n push %r15\n"
	"mov %rdi, nat_regs(%rip)\n"
	"mov %rsi, nat_code(%rip)\n"
	"mov %rsp, nat_rsp(%rip)\n"
	".irp n,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
	"movdqu 144+16*\\n(%rdi), %xmm\\n\n"
	".endr\n"
	"pushq 136(%rdi)\n popfq\n"
	"mov 0(%rdi), %rax\n mov 8(%rdi), %rcx\n mov 16(%rdi), %rdx\n mov 24(%rdi), %rbx\n"
	"mov 40(%rdi), %rbp\n mov 48(%rdi), %rsi\n"
	"mov 64(%rdi), %r8\n mov 72(%rdi), %r9\n mov 80(%rdi), %r10\n mov 88(%rdi), %r11\n"
	"mov 96(%rdi), %r12\n mov 104(%rdi), %r13\n mov 112(%rdi), %r14\n mov 120(%rdi), %r15\n"
	"mov 32(%rdi), %rsp\n"
	"mov 56(%rdi), %rdi\n"
	"jmp *nat_code(%rip)\n"
	".globl native_ret\n"
	".hidden native_ret\n"
	"native_ret:\n"
	"mov %rsp, nat_tmp(%rip)\n"
	"mov nat_rsp(%rip), %rsp\n"
	"pushfq\n push %rax\n"
	"mov nat_regs(%rip), %rax\n"
	"mov %rcx, 8(%rax)\n mov %rdx, 16(%rax)\n mov %rbx, 24(%rax)\n mov %rbp, 40(%rax)\n"
	"mov %rsi, 48(%rax)\n mov %rdi, 56(%rax)\n"
	"mov %r8, 64(%rax)\n mov %r9, 72(%rax)\n mov %r10, 80(%rax)\n mov %r11, 88(%rax)\n"
	"mov %r12, 96(%rax)\n mov %r13, 104(%rax)\n mov %r14, 112(%rax)\n mov %r15, 120(%rax)\n"
	"pop %rcx\n mov %rcx, 0(%rax)\n"
	"mov nat_tmp(%rip), %rcx\n mov %rcx, 32(%rax)\n"
	"pop %rcx\n mov %rcx, 136(%rax)\n"
	".irp n,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
	"movdqu %xmm\\n, 144+16*\\n(%rax)\n"
	".endr\n"
	"pop %r15\n pop %r14\n pop %r13\n pop %r12\n pop %rbp\n pop %rbx\n"
	"ret\n"
	".size native_run, .-native_run\n");

enum { NONE = -1 };

struct tcase {
	uint8_t b[VPCI_INSN_MAX];
	uint8_t len;
	int8_t base, index;	/* registers set to point into the data page */
	uint8_t scale;
	int8_t rel;		/* offset of a RIP-relative disp32, or -1 */
	uint8_t alt[VPCI_INSN_MAX];	/* run natively instead (the CPU lacks the form) */
	uint8_t alt_len;
	char text[64];
};

static struct tcase cases[512];
static unsigned int ncases;
static uint8_t *code_page, *data_page;
static long page;

/* Parse "48 8b 04 8b" ("rel" = a 4-byte RIP-relative placeholder). */
static unsigned int
parse_hex(const char *hex, uint8_t *b, int8_t *rel)
{
	unsigned int n = 0;
	char *end;

	if (rel != NULL)
		*rel = -1;
	while (*hex != '\0') {
		if (*hex == ' ') {
			hex++;
			continue;
		}
		if (strncmp(hex, "rel", 3) == 0) {
			assert_non_null(rel);
			*rel = (int8_t)n;
			memset(b + n, 0, 4);
			n += 4;
			hex += 3;
			continue;
		}
		b[n++] = (uint8_t)strtoul(hex, &end, 16);
		assert_true(end == hex + 2);
		hex = end;
		assert_true(n <= VPCI_INSN_MAX);
	}
	return n;
}

static void
add_case(const char *hex, int base, int index, int scale, const char *alt)
{
	struct tcase *c = &cases[ncases++];

	assert_true(ncases <= sizeof(cases) / sizeof(cases[0]));
	memset(c, 0, sizeof(*c));
	c->len = (uint8_t)parse_hex(hex, c->b, &c->rel);
	c->base = (int8_t)base;
	c->index = (int8_t)index;
	c->scale = (uint8_t)scale;
	if (alt != NULL)
		c->alt_len = (uint8_t)parse_hex(alt, c->alt, NULL);
	snprintf(c->text, sizeof(c->text), "%s", hex);
}

/* An ALU opcode byte and the rest of its bytes, as hex. */
static void
add_alu(const char *pfx, unsigned int op, const char *rest, int base)
{
	char hex[64];

	snprintf(hex, sizeof(hex), "%s%s%02x %s", pfx, pfx[0] ? " " : "", op, rest);
	add_case(hex, base, NONE, 0, NULL);
}

static void
build_cases(void)
{
	static const char *const imm_forms[] = {
		/* /r in bits 5:3 of the ModRM byte is filled in below */
		"80 %02x 81", "81 %02x 78 56 34 92", "66 81 %02x 34 92", "48 81 %02x 78 56 34 92",
		"83 %02x 7f", "83 %02x 80", "48 83 %02x ff", "66 83 %02x 01", "41 83 (r12+8)",
		"f0 83 %02x 03",
	};
	unsigned int op, i, r;
	char hex[64];

	ncases = 0;
	/* mov stores: every register class, every addressing form */
	add_case("88 03", 3, NONE, 0, NULL);			/* [rbx], al */
	add_case("88 23", 3, NONE, 0, NULL);			/* [rbx], ah */
	add_case("88 3b", 3, NONE, 0, NULL);			/* [rbx], bh */
	add_case("40 88 33", 3, NONE, 0, NULL);			/* [rbx], sil */
	add_case("40 88 3b", 3, NONE, 0, NULL);			/* [rbx], dil */
	add_case("44 88 03", 3, NONE, 0, NULL);			/* [rbx], r8b */
	add_case("45 88 7d 10", 13, NONE, 0, NULL);		/* [r13+0x10], r15b */
	add_case("66 89 03", 3, NONE, 0, NULL);
	add_case("89 43 08", 3, NONE, 0, NULL);
	add_case("48 89 43 f8", 3, NONE, 0, NULL);
	add_case("4c 89 a4 24 10 01 00 00", 4, NONE, 0, NULL);	/* [rsp+0x110], r12 */
	add_case("48 89 04 8b", 3, 1, 2, NULL);			/* [rbx+rcx*4], rax */
	add_case("4a 89 44 e5 10", 5, 12, 3, NULL);		/* [rbp+r12*8+0x10], rax */
	add_case("43 89 04 2c", 12, 13, 0, NULL);		/* [r12+r13], eax */
	add_case("41 89 45 00", 13, NONE, 0, NULL);		/* [r13+0], eax */
	add_case("41 89 04 24", 12, NONE, 0, NULL);		/* [r12], eax */
	add_case("89 04 8d 10 00 00 00", NONE, 1, 2, NULL);	/* [rcx*4+0x10], eax */
	add_case("4a 89 0c 3d f0 ff ff ff", NONE, 15, 0, NULL);	/* [r15*1-0x10], rcx */
	add_case("89 45 80", 5, NONE, 0, NULL);			/* [rbp-0x80], eax */
	add_case("89 85 00 fc ff ff", 5, NONE, 0, NULL);	/* [rbp-0x400], eax */
	add_case("89 05 rel", NONE, NONE, 0, NULL);		/* [rip+x], eax */
	add_case("66 44 89 15 rel", NONE, NONE, 0, NULL);	/* [rip+x], r10w */
	add_case("89 34 24", 4, NONE, 0, NULL);			/* [rsp], esi */
	/* mov loads */
	add_case("8a 03", 3, NONE, 0, NULL);
	add_case("8a 23", 3, NONE, 0, NULL);			/* ah, [rbx] */
	add_case("8a 3b", 3, NONE, 0, NULL);			/* bh, [rbx] */
	add_case("40 8a 3b", 3, NONE, 0, NULL);			/* dil, [rbx] */
	add_case("40 8a 23", 3, NONE, 0, NULL);			/* spl: rsp's low byte */
	add_case("45 8a 44 24 07", 12, NONE, 0, NULL);		/* r8b, [r12+7] */
	add_case("66 8b 03", 3, NONE, 0, NULL);
	add_case("66 45 8b 0c 24", 12, NONE, 0, NULL);		/* r9w, [r12] */
	add_case("8b 03", 3, NONE, 0, NULL);
	add_case("48 8b 03", 3, NONE, 0, NULL);
	add_case("4c 8b 7b 40", 3, NONE, 0, NULL);		/* r15, [rbx+0x40] */
	add_case("44 8b 4c 8b 10", 3, 1, 2, NULL);		/* r9d, [rbx+rcx*4+0x10] */
	add_case("48 8b 05 rel", NONE, NONE, 0, NULL);
	add_case("8b 84 b6 00 01 00 00", 6, 6, 2, NULL);	/* [rsi+rsi*4+0x100] */
	add_case("4f 8b 54 f5 c0", 13, 14, 3, NULL);		/* r10, [r13+r14*8-0x40] */
	add_case("66 66 2e 8b 03", 3, NONE, 0, NULL);		/* repeated 66, cs ignored */
	add_case("f3 8b 03", 3, NONE, 0, NULL);			/* rep on mov: ignored */
	add_case("48 40 8b 03", 3, NONE, 0, NULL);		/* the last REX counts */
	add_case("48 66 8b 03", 3, NONE, 0, NULL);		/* REX before 66: dropped */
	/* mov immediate */
	add_case("c6 03 85", 3, NONE, 0, NULL);
	add_case("41 c6 04 24 7f", 12, NONE, 0, NULL);
	add_case("66 c7 03 34 92", 3, NONE, 0, NULL);
	add_case("c7 43 04 78 56 34 92", 3, NONE, 0, NULL);
	add_case("48 c7 03 00 00 00 80", 3, NONE, 0, NULL);	/* sign-extended to 64 */
	add_case("48 c7 03 ff ff ff 7f", 3, NONE, 0, NULL);
	add_case("c7 05 rel 11 22 33 44", NONE, NONE, 0, NULL);	/* rip after the imm */
	add_case("c6 05 rel 5a", NONE, NONE, 0, NULL);
	/* movzx movsx movsxd */
	add_case("0f b6 03", 3, NONE, 0, NULL);
	add_case("48 0f b6 03", 3, NONE, 0, NULL);
	add_case("66 0f b6 03", 3, NONE, 0, NULL);
	add_case("44 0f b6 3b", 3, NONE, 0, NULL);
	add_case("0f b7 03", 3, NONE, 0, NULL);
	add_case("48 0f b7 43 02", 3, NONE, 0, NULL);
	add_case("0f be 03", 3, NONE, 0, NULL);
	add_case("48 0f be 03", 3, NONE, 0, NULL);
	add_case("66 0f be 03", 3, NONE, 0, NULL);
	add_case("0f bf 03", 3, NONE, 0, NULL);
	add_case("4c 0f bf 43 02", 3, NONE, 0, NULL);
	add_case("66 0f bf 03", 3, NONE, 0, NULL);
	add_case("48 63 03", 3, NONE, 0, NULL);
	add_case("63 03", 3, NONE, 0, NULL);
	add_case("66 63 03", 3, NONE, 0, NULL);
	add_case("4c 63 04 8b", 3, 1, 2, NULL);
	add_case("0f b6 05 rel", NONE, NONE, 0, NULL);
	/* movnti, movdiri (this CPU may lack movdiri: the CPU runs the plain mov) */
	add_case("0f c3 03", 3, NONE, 0, NULL);
	add_case("48 0f c3 43 08", 3, NONE, 0, NULL);
	add_case("4c 0f c3 04 8b", 3, 1, 2, NULL);
	add_case("0f 38 f9 03", 3, NONE, 0, "89 03");
	add_case("49 0f 38 f9 44 24 08", 12, NONE, 0, "49 89 44 24 08");
	/* ALU, both directions, every operation and size */
	for (op = 0; op < 0x40; op += 8) {
		add_alu("", op + 0, "03", 3);
		add_alu("", op + 0, "23", 3);
		add_alu("40", op + 0, "33", 3);
		add_alu("", op + 1, "03", 3);
		add_alu("66", op + 1, "03", 3);
		add_alu("48", op + 1, "43 10", 3);
		add_alu("4c", op + 1, "04 8b", 3);
		add_alu("", op + 2, "03", 3);
		add_alu("", op + 2, "3b", 3);
		add_alu("", op + 3, "43 08", 3);
		add_alu("48", op + 3, "03", 3);
		add_alu("66", op + 3, "03", 3);
		add_alu("44", op + 3, "03", 3);
		add_alu("41", op + 3, "45 f0", 13);
		if (op != 0x38) {
			add_alu("f0", op + 1, "03", 3);
			add_alu("f0 48", op + 1, "03", 3);
		}
		snprintf(hex, sizeof(hex), "%02x 05 rel", op + 3);
		add_case(hex, NONE, NONE, 0, NULL);
	}
	/* the rbx+rcx*4 ALU forms need rcx as an index */
	for (i = 0; i < ncases; i++)
		if (cases[i].len >= 3 && cases[i].b[cases[i].len - 2] == 0x04 &&
				cases[i].b[cases[i].len - 1] == 0x8b && cases[i].base == 3) {
			cases[i].index = 1;
			cases[i].scale = 2;
		}
	for (i = 0; i < sizeof(imm_forms) / sizeof(imm_forms[0]); i++)
		for (r = 0; r < 8; r++) {
			if (strncmp(imm_forms[i], "f0", 2) == 0 && r == 7)
				continue; /* lock cmp: #UD */
			if (strncmp(imm_forms[i], "41", 2) == 0) {
				/* 41 83 /r with [r12+8]: ModRM 44 SIB 24 disp 08 */
				snprintf(hex, sizeof(hex), "41 83 %02x 24 08 05", 0x44 | (r << 3));
				add_case(hex, 12, NONE, 0, NULL);
				continue;
			}
			snprintf(hex, sizeof(hex), imm_forms[i], 0x03 | (r << 3));
			add_case(hex, 3, NONE, 0, NULL);
		}
	/* test, xchg, inc dec not neg */
	add_case("84 03", 3, NONE, 0, NULL);
	add_case("84 23", 3, NONE, 0, NULL);
	add_case("85 03", 3, NONE, 0, NULL);
	add_case("48 85 03", 3, NONE, 0, NULL);
	add_case("66 85 03", 3, NONE, 0, NULL);
	add_case("f6 03 81", 3, NONE, 0, NULL);
	add_case("f6 43 01 40", 3, NONE, 0, NULL);
	add_case("f7 03 00 01 00 80", 3, NONE, 0, NULL);
	add_case("48 f7 03 ff ff ff ff", 3, NONE, 0, NULL);
	add_case("66 f7 03 34 92", 3, NONE, 0, NULL);
	add_case("86 03", 3, NONE, 0, NULL);
	add_case("86 23", 3, NONE, 0, NULL);
	add_case("87 03", 3, NONE, 0, NULL);
	add_case("48 87 03", 3, NONE, 0, NULL);
	add_case("66 87 03", 3, NONE, 0, NULL);
	add_case("4c 87 23", 3, NONE, 0, NULL);
	add_case("f0 87 03", 3, NONE, 0, NULL);
	add_case("fe 03", 3, NONE, 0, NULL);
	add_case("fe 0b", 3, NONE, 0, NULL);
	add_case("ff 03", 3, NONE, 0, NULL);
	add_case("ff 0b", 3, NONE, 0, NULL);
	add_case("48 ff 03", 3, NONE, 0, NULL);
	add_case("66 ff 0b", 3, NONE, 0, NULL);
	add_case("f0 ff 03", 3, NONE, 0, NULL);
	add_case("f6 13", 3, NONE, 0, NULL);
	add_case("f7 13", 3, NONE, 0, NULL);
	add_case("48 f7 13", 3, NONE, 0, NULL);
	add_case("f6 1b", 3, NONE, 0, NULL);
	add_case("f7 1b", 3, NONE, 0, NULL);
	add_case("48 f7 1b", 3, NONE, 0, NULL);
	add_case("66 f7 1b", 3, NONE, 0, NULL);
	add_case("f0 f7 1b", 3, NONE, 0, NULL);
	add_case("0f af 03", 3, NONE, 0, NULL);			/* imul eax, [rbx] */
	add_case("48 0f af 47 08", 7, NONE, 0, NULL);
	add_case("66 0f af 03", 3, NONE, 0, NULL);
	add_case("4c 0f af 3c 8b", 3, 1, 2, NULL);
	add_case("6b 03 07", 3, NONE, 0, NULL);			/* imul eax, [rbx], 7 */
	add_case("48 6b 43 08 f9", 3, NONE, 0, NULL);
	add_case("66 6b 03 80", 3, NONE, 0, NULL);
	add_case("69 03 78 56 34 12", 3, NONE, 0, NULL);
	add_case("4d 69 04 24 00 00 00 80", 12, NONE, 0, NULL);
	add_case("66 69 0b 34 92", 3, NONE, 0, NULL);
	add_case("69 05 rel 11 00 00 00", NONE, NONE, 0, NULL);
	add_case("0f c1 03", 3, NONE, 0, NULL);			/* xadd */
	add_case("f0 0f c1 03", 3, NONE, 0, NULL);
	add_case("f0 48 0f c1 43 08", 3, NONE, 0, NULL);
	add_case("66 0f c1 03", 3, NONE, 0, NULL);
	add_case("0f c0 23", 3, NONE, 0, NULL);
	add_case("f0 45 0f c0 04 24", 12, NONE, 0, NULL);
	add_case("0f b1 0b", 3, NONE, 0, NULL);			/* cmpxchg */
	add_case("f0 0f b1 0b", 3, NONE, 0, NULL);
	add_case("f0 48 0f b1 0b", 3, NONE, 0, NULL);
	add_case("66 0f b1 0b", 3, NONE, 0, NULL);
	add_case("0f b0 0b", 3, NONE, 0, NULL);
	add_case("f0 0f b0 23", 3, NONE, 0, NULL);
	add_case("4c 0f b1 04 8b", 3, 1, 2, NULL);
	/* SSE moves */
	add_case("66 0f 6e 03", 3, NONE, 0, NULL);		/* movd xmm0, [rbx] */
	add_case("66 44 0f 6e 3b", 3, NONE, 0, NULL);		/* movd xmm15 */
	add_case("66 48 0f 6e 03", 3, NONE, 0, NULL);		/* movq xmm0, [rbx] */
	add_case("66 0f 7e 0b", 3, NONE, 0, NULL);		/* movd [rbx], xmm1 */
	add_case("66 48 0f 7e 0b", 3, NONE, 0, NULL);
	add_case("f3 0f 7e 13", 3, NONE, 0, NULL);		/* movq xmm2, [rbx] */
	add_case("f3 44 0f 7e 43 10", 3, NONE, 0, NULL);
	add_case("66 0f d6 1b", 3, NONE, 0, NULL);		/* movq [rbx], xmm3 */
	add_case("66 45 0f d6 0c 24", 12, NONE, 0, NULL);	/* movq [r12], xmm9 */
	add_case("f3 0f 6f 03", 3, NONE, 0, NULL);
	add_case("f3 0f 7f 43 01", 3, NONE, 0, NULL);
	add_case("66 0f 6f 43 10", 3, NONE, 0, NULL);
	add_case("66 0f 7f 43 20", 3, NONE, 0, NULL);
	add_case("0f 10 03", 3, NONE, 0, NULL);
	add_case("0f 11 43 03", 3, NONE, 0, NULL);
	add_case("0f 28 43 10", 3, NONE, 0, NULL);
	add_case("0f 29 43 10", 3, NONE, 0, NULL);
	add_case("66 0f 10 03", 3, NONE, 0, NULL);
	add_case("66 0f 11 03", 3, NONE, 0, NULL);
	add_case("66 0f 28 03", 3, NONE, 0, NULL);
	add_case("66 0f 29 03", 3, NONE, 0, NULL);
	add_case("f3 45 0f 6f 7c 24 08", 12, NONE, 0, NULL);	/* movdqu xmm15, [r12+8] */
	add_case("f3 0f 6f 05 rel", NONE, NONE, 0, NULL);
	add_case("44 0f 11 3c 8b", 3, 1, 2, NULL);		/* movups [rbx+rcx*4], xmm15 */
	/* VEX.128 */
	add_case("c5 f9 6e 03", 3, NONE, 0, NULL);		/* vmovd xmm0, [rbx] */
	add_case("c5 f9 7e 0b", 3, NONE, 0, NULL);		/* vmovd [rbx], xmm1 */
	add_case("c4 e1 f9 6e 03", 3, NONE, 0, NULL);		/* vmovq xmm0, [rbx] */
	add_case("c4 e1 f9 7e 23", 3, NONE, 0, NULL);		/* vmovq [rbx], xmm4 */
	add_case("c5 fa 7e 03", 3, NONE, 0, NULL);		/* vmovq xmm0, m64 */
	add_case("c5 f9 d6 03", 3, NONE, 0, NULL);		/* vmovq m64, xmm0 */
	add_case("c5 fa 6f 03", 3, NONE, 0, NULL);		/* vmovdqu xmm0, [rbx] */
	add_case("c5 fa 7f 0b", 3, NONE, 0, NULL);
	add_case("c5 7a 6f 3b", 3, NONE, 0, NULL);		/* xmm15 */
	add_case("c4 c1 7a 6f 45 10", 13, NONE, 0, NULL);	/* [r13+0x10] */
	add_case("c4 e1 7a 7f 0c 8b", 3, 1, 2, NULL);		/* [rbx+rcx*4] */
	add_case("c4 a1 7a 7f 0c 8b", 3, 9, 2, NULL);		/* [rbx+r9*4] (VEX.X) */
	add_case("c4 41 7a 7f 3c 24", 12, NONE, 0, NULL);	/* [r12], xmm15 */
	add_case("c5 f9 6f 43 10", 3, NONE, 0, NULL);		/* vmovdqa */
	add_case("c5 f9 7f 43 10", 3, NONE, 0, NULL);
	add_case("c5 f8 10 03", 3, NONE, 0, NULL);		/* vmovups */
	add_case("c5 f8 11 03", 3, NONE, 0, NULL);
	add_case("c5 f8 28 43 10", 3, NONE, 0, NULL);		/* vmovaps */
	add_case("c5 f9 29 43 10", 3, NONE, 0, NULL);		/* vmovapd */
	add_case("c5 f9 10 03", 3, NONE, 0, NULL);		/* vmovupd */
	add_case("c5 fa 6f 05 rel", NONE, NONE, 0, NULL);
}

static uint64_t rng;

static uint64_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* The emulator's memory: a shadow of the data page at the same addresses. */
struct shadow {
	uint8_t mem[4096];
	uint64_t base;
	unsigned int calls;
	unsigned int sizes[8];
	uint64_t addrs[8];
};

static const char *cur_case = "";

static void
check_access(const struct shadow *s, uint64_t addr, unsigned int size)
{
	if (!(size == 1 || size == 2 || size == 4 || size == 8) || addr < s->base ||
			addr + size > s->base + sizeof(s->mem))
		fail_msg("case %s: access of %u at 0x%llx, data page 0x%llx", cur_case, size,
			 (unsigned long long)addr, (unsigned long long)s->base);
}

static int
sh_read(void *ctx, uint64_t addr, unsigned int size, uint64_t *v)
{
	struct shadow *s = ctx;

	check_access(s, addr, size);
	if (s->calls < 8) {
		s->sizes[s->calls] = size;
		s->addrs[s->calls] = addr;
	}
	s->calls++;
	*v = 0;
	memcpy(v, s->mem + (addr - s->base), size);
	return 0;
}

static int
sh_write(void *ctx, uint64_t addr, unsigned int size, uint64_t v)
{
	struct shadow *s = ctx;

	check_access(s, addr, size);
	if (s->calls < 8) {
		s->sizes[s->calls] = size;
		s->addrs[s->calls] = addr;
	}
	s->calls++;
	memcpy(s->mem + (addr - s->base), &v, size);
	return 0;
}

static const struct vpci_mem_ops sh_ops = { sh_read, sh_write };

/* Place @p b at the code page, followed by a jump to native_ret. */
static void
place_code(const uint8_t *b, unsigned int len)
{
	uint64_t ret = (uint64_t)(uintptr_t)native_ret;
	static const uint8_t jmp[6] = { 0xff, 0x25, 0, 0, 0, 0 }; /* jmp [rip+0] */

	assert_int_equal(mprotect(code_page, page, PROT_READ | PROT_WRITE), 0);
	memset(code_page, 0xcc, page);
	memcpy(code_page, b, len);
	memcpy(code_page + len, jmp, sizeof(jmp));
	memcpy(code_page + len + sizeof(jmp), &ret, sizeof(ret));
	assert_int_equal(mprotect(code_page, page, PROT_READ | PROT_EXEC), 0);
}

static void
set_rel(uint8_t *b, unsigned int len, int rel)
{
	int32_t d;

	if (rel < 0)
		return;
	d = (int32_t)((int64_t)(uintptr_t)(data_page + DATA_MID + 0x18) -
		      (int64_t)(uintptr_t)(code_page + len));
	memcpy(b + rel, &d, 4);
}

static void
run_case(struct tcase *c, unsigned int seed)
{
	static struct shadow sh;
	struct vpci_regs init, emu, nat;
	struct vpci_insn insn;
	uint8_t bytes[VPCI_INSN_MAX], alt[VPCI_INSN_MAX];
	char err[160];
	unsigned int i;
	int rc;

	cur_case = c->text;
	memcpy(bytes, c->b, c->len);
	set_rel(bytes, c->len, c->rel);
	memcpy(alt, c->alt, c->alt_len);
	rng = 0x9e3779b97f4a7c15ull * (seed + 1) + (uint64_t)(c - cases);
	for (i = 0; i < 16; i++) {
		init.gpr[i] = rnd();
		if (seed & 1)
			init.gpr[i] &= 0xff00ff00ff00ffull; /* small values, carries differ */
	}
	for (i = 0; i < 16 * 16; i++)
		init.xmm[i / 16][i % 16] = (uint8_t)rnd();
	/* never a value at, above or below the data page that looks like an address */
	init.gpr[4] = (uint64_t)(uintptr_t)(data_page + DATA_MID); /* rsp: a harmless value */
	if (c->base >= 0)
		init.gpr[c->base] = (uint64_t)(uintptr_t)(data_page + DATA_MID);
	if (c->index >= 0 && c->index != c->base)
		init.gpr[c->index] = c->base >= 0 ? 3 :
			(uint64_t)(uintptr_t)(data_page + DATA_MID) >> c->scale;
	if (c->index >= 0 && c->index == c->base) /* [rsi+rsi*4]: rsi = mid/5 */
		init.gpr[c->index] = (uint64_t)(uintptr_t)(data_page + DATA_MID) /
			(1u + (1u << c->scale));
	init.rflags = 0x202 | (rnd() & FL_ARITH);
	init.rip = (uint64_t)(uintptr_t)code_page;
	for (i = 0; i < (unsigned int)page; i++)
		data_page[i] = (uint8_t)rnd();
	if (seed == 2) /* carries and zeroes */
		memset(data_page + DATA_MID - 0x400, 0xff, 0x800);
	if (seed == 3)
		memset(data_page + DATA_MID - 0x400, 0, 0x800);

	/* seed 5: rax holds what is in memory (cmpxchg's match, cmp's equal) */
	if (seed == 5 && vpci_decode(bytes, c->len, &init, &insn, err, sizeof(err)) == 0 &&
			insn.ea >= (uint64_t)(uintptr_t)data_page &&
			insn.ea + 8 <= (uint64_t)(uintptr_t)data_page + page)
		memcpy(&init.gpr[0], (void *)(uintptr_t)insn.ea, 8);
	/* the emulator on the shadow */
	memcpy(sh.mem, data_page, sizeof(sh.mem));
	sh.base = (uint64_t)(uintptr_t)data_page;
	sh.calls = 0;
	emu = init;
	rc = vpci_decode(bytes, c->len, &init, &insn, err, sizeof(err));
	if (rc != 0)
		fail_msg("case %s: decode %d: %s", c->text, rc, err);
	assert_int_equal(insn.len, c->len);
	rc = vpci_emulate(bytes, c->len, &emu, &sh_ops, &sh, err, sizeof(err));
	if (rc != 0)
		fail_msg("case %s: emulate %d: %s", c->text, rc, err);
	/* 16-byte accesses: two 8-byte ones, low address first */
	if (insn.size == 16) {
		assert_true(sh.calls == 2);
		assert_true(sh.sizes[0] == 8 && sh.sizes[1] == 8);
		assert_true(sh.addrs[1] == sh.addrs[0] + 8);
	} else {
		assert_true(sh.calls >= 1 && sh.calls <= 2);
		assert_true(sh.sizes[0] == insn.size);
	}
	assert_true(sh.addrs[0] == insn.ea);

	/* the CPU on the page (or the equivalent it runs) */
	nat = init;
	if (c->alt_len)
		place_code(alt, c->alt_len);
	else
		place_code(bytes, c->len);
	native_run(&nat, code_page);

	assert_true(emu.rip == init.rip + c->len);
	for (i = 0; i < 16; i++)
		if (emu.gpr[i] != nat.gpr[i])
			fail_msg("case %s seed %u: gpr %u: emulated 0x%llx, cpu 0x%llx, was 0x%llx",
				 c->text, seed, i, (unsigned long long)emu.gpr[i],
				 (unsigned long long)nat.gpr[i], (unsigned long long)init.gpr[i]);
	if ((emu.rflags & FL_ARITH) != (nat.rflags & FL_ARITH))
		fail_msg("case %s seed %u: flags emulated 0x%llx, cpu 0x%llx (was 0x%llx)",
			 c->text, seed, (unsigned long long)emu.rflags,
			 (unsigned long long)nat.rflags, (unsigned long long)init.rflags);
	assert_true((emu.rflags & ~FL_ARITH) == (init.rflags & ~FL_ARITH));
	for (i = 0; i < 16; i++)
		if (memcmp(emu.xmm[i], nat.xmm[i], 16) != 0)
			fail_msg("case %s seed %u: xmm%u differs", c->text, seed, i);
	if (memcmp(sh.mem, data_page, sizeof(sh.mem)) != 0) {
		for (i = 0; i < sizeof(sh.mem); i++)
			if (sh.mem[i] != data_page[i])
				break;
		fail_msg("case %s seed %u: memory at +0x%x: emulated %02x, cpu %02x", c->text,
			 seed, i, sh.mem[i], data_page[i]);
	}
}

static void
test_forms_against_the_cpu(void **state)
{
	unsigned int i, s;

	(void)state;
	build_cases();
	for (i = 0; i < ncases; i++)
		for (s = 0; s < SEEDS; s++)
			run_case(&cases[i], s);
	printf("[ info ] %u instruction forms x %u register/memory seeds agree with the CPU\n",
	       ncases, SEEDS);
}

static void
test_decode_reports(void **state)
{
	struct vpci_regs r;
	struct vpci_insn insn;
	uint8_t b[VPCI_INSN_MAX];
	char err[160];
	unsigned int n;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.gpr[3] = 0x1000;
	r.gpr[1] = 0x10;
	r.rip = 0x400000;
	n = parse_hex("48 89 44 8b 08", b, NULL);
	assert_int_equal(vpci_decode(b, n, &r, &insn, err, sizeof(err)), 0);
	assert_int_equal(insn.len, 5);
	assert_int_equal(insn.size, 8);
	assert_int_equal(insn.writes, 1);
	assert_int_equal(insn.reads, 0);
	assert_true(insn.ea == 0x1000 + 0x40 + 8);
	assert_string_equal(insn.mnemonic, "mov");
	assert_int_equal(insn.vex_xmm, -1);
	n = parse_hex("41 03 04 24", b, NULL); /* add eax, [r12]: read only */
	r.gpr[12] = 0x2000;
	assert_int_equal(vpci_decode(b, n, &r, &insn, err, sizeof(err)), 0);
	assert_true(insn.reads == 1 && insn.writes == 0 && insn.size == 4 && insn.ea == 0x2000);
	assert_string_equal(insn.mnemonic, "add");
	n = parse_hex("83 03 01", b, NULL); /* add dword [rbx], 1: both */
	assert_int_equal(vpci_decode(b, n, &r, &insn, err, sizeof(err)), 0);
	assert_true(insn.reads == 1 && insn.writes == 1 && insn.len == 3);
	n = parse_hex("39 03", b, NULL); /* cmp: no write */
	assert_int_equal(vpci_decode(b, n, &r, &insn, err, sizeof(err)), 0);
	assert_true(insn.reads == 1 && insn.writes == 0);
	assert_string_equal(insn.mnemonic, "cmp");
	n = parse_hex("8b 05 10 00 00 00", b, NULL); /* RIP-relative: from the next insn */
	assert_int_equal(vpci_decode(b, n, &r, &insn, err, sizeof(err)), 0);
	assert_true(insn.ea == 0x400000 + 6 + 0x10);
	n = parse_hex("c4 41 7a 6f 3c 24", b, NULL); /* vmovdqu xmm15, [r12] */
	assert_int_equal(vpci_decode(b, n, &r, &insn, err, sizeof(err)), 0);
	assert_string_equal(insn.mnemonic, "vmovdqu");
	assert_int_equal(insn.vex_xmm, 15);
	assert_int_equal(insn.size, 16);
	n = parse_hex("c4 41 7a 7f 3c 24", b, NULL); /* a VEX store zeroes nothing */
	assert_int_equal(vpci_decode(b, n, &r, &insn, err, sizeof(err)), 0);
	assert_int_equal(insn.vex_xmm, -1);
}

static int
fail_read(void *ctx, uint64_t addr, unsigned int size, uint64_t *v)
{
	(void)ctx;
	(void)addr;
	(void)size;
	*v = 0x1234;
	return EIO; /* positive: still an errno */
}

static int
fail_write(void *ctx, uint64_t addr, unsigned int size, uint64_t v)
{
	(void)ctx;
	(void)addr;
	(void)size;
	(void)v;
	return -ENXIO;
}

static int
zero_read(void *ctx, uint64_t addr, unsigned int size, uint64_t *v)
{
	(void)ctx;
	(void)addr;
	(void)size;
	*v = 0;
	return 0;
}

static void
test_callback_errors_leave_registers(void **state)
{
	static const struct vpci_mem_ops ops = { fail_read, fail_write };
	static const struct vpci_mem_ops ops_w = { zero_read, fail_write };
	struct vpci_regs r, before;
	uint8_t b[VPCI_INSN_MAX];
	char err[160];
	unsigned int n;

	(void)state;
	memset(&r, 0x5a, sizeof(r));
	before = r;
	n = parse_hex("8b 03", b, NULL);
	assert_int_equal(vpci_emulate(b, n, &r, &ops, NULL, err, sizeof(err)), -EIO);
	assert_memory_equal(&r, &before, sizeof(r));
	assert_non_null(strstr(err, "8b 03"));
	n = parse_hex("89 03", b, NULL);
	assert_int_equal(vpci_emulate(b, n, &r, &ops, NULL, err, sizeof(err)), -ENXIO);
	assert_memory_equal(&r, &before, sizeof(r));
	n = parse_hex("01 03", b, NULL); /* read then write: the write fails */
	assert_int_equal(vpci_emulate(b, n, &r, &ops_w, NULL, err, sizeof(err)), -ENXIO);
	assert_memory_equal(&r, &before, sizeof(r));
	n = parse_hex("f3 0f 7f 03", b, NULL); /* 16 bytes: the first half fails */
	assert_int_equal(vpci_emulate(b, n, &r, &ops_w, NULL, err, sizeof(err)), -ENXIO);
	assert_memory_equal(&r, &before, sizeof(r));
}

static void
test_refusals_name_the_bytes(void **state)
{
	static const struct {
		const char *hex, *named;
	} refused[] = {
		{ "0f 0b", "0f 0b" },				/* ud2 */
		{ "ff 13", "ff 13" },				/* call [rbx] */
		{ "ff 23", "ff 23" },				/* jmp [rbx] */
		{ "ff 33", "ff 33" },				/* push [rbx] */
		{ "f3 48 a5", "f3 48 a5" },			/* rep movsq */
		{ "a4", "a4" },					/* movsb */
		{ "c5 fe 6f 03", "c5 fe 6f" },			/* vmovdqu ymm0, [rbx] */
		{ "c5 fc 11 03", "c5 fc 11" },			/* vmovups [rbx], ymm0 */
		{ "62 f1 7e 48 6f 03", "62" },			/* vmovdqu32 zmm0, [rbx] */
		{ "62 e1 fe 08 6f 03", "62" },			/* vmovdqu64 xmm16 */
		{ "01 c3", "01 c3" },				/* add ebx, eax: no memory */
		{ "c5 f9 6e c0", "c5 f9 6e c0" },		/* vmovd xmm0, eax */
		{ "f7 23", "f7 23" },				/* mul dword [rbx] */
		{ "f7 3b", "f7 3b" },				/* idiv */
		{ "64 8b 03", "64" },				/* fs: */
		{ "65 48 8b 04 25 28 00 00 00", "65" },		/* gs: (TLS) */
		{ "67 8b 03", "67" },				/* addr32 */
		{ "f0 8b 03", "f0 8b 03" },			/* lock mov */
		{ "f0 39 03", "f0 39 03" },			/* lock cmp */
		{ "f0 03 03", "f0 03 03" },			/* lock add to a register */
		{ "f3 0f 10 03", "f3 0f 10" },			/* movss */
		{ "0f 38 00 03", "0f 38 00" },			/* pshufb */
		{ "66 0f 38 f8 03", "66 0f 38 f8" },		/* movdir64b */
		{ "d9 03", "d9" },				/* fld */
		{ "c4 e2 79 18 03", "c4 e2 79 18" },		/* vbroadcastss: map 0f38 */
		{ "c5 f1 6f 03", "c5 f1 6f" },		/* vvvv not 1111 */
		{ "66 c5 f9 6e 03", "66 c5" },			/* a prefix before VEX */
		{ "0f 6f 03", "0f 6f" },			/* MMX movq */
		{ "0f c7 0b", "0f c7" },			/* cmpxchg8b */
		{ "0f b1 c3", "0f b1 c3" },			/* cmpxchg ebx, eax: no memory */
		{ "0f c7 4b 08", "0f c7" },		/* cmpxchg8b [rbx+8] */
		{ "c7 4b 04 00 00 00 00", "c7 4b" },		/* c7 /1 */
		{ "8d 03", "8d" },				/* lea: no access */
		{ "d1 23", "d1" },				/* shl */
		{ "e8 00 00 00 00", "e8" },			/* call rel32 */
	};
	struct vpci_regs r;
	struct vpci_insn insn;
	uint8_t b[VPCI_INSN_MAX];
	char err[160], want[80];
	unsigned int i, n;
	int rc;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.rip = 0xabcdef;
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		n = parse_hex(refused[i].hex, b, NULL);
		err[0] = '\0';
		rc = vpci_decode(b, n, &r, &insn, err, sizeof(err));
		if (rc != -ENOTSUP)
			fail_msg("%s: %d, want -ENOTSUP (%s)", refused[i].hex, rc, err);
		snprintf(want, sizeof(want), "vpci: cannot emulate %s", refused[i].named);
		if (strstr(err, want) == NULL || strstr(err, "at rip 0xabcdef") == NULL)
			fail_msg("%s: message '%s'", refused[i].hex, err);
		rc = vpci_emulate(b, n, &r, &sh_ops, NULL, err, sizeof(err));
		assert_int_equal(rc, -ENOTSUP);
		assert_non_null(strstr(err, want));
	}
	/* a short buffer still ends the message */
	n = parse_hex("0f 0b", b, NULL);
	assert_int_equal(vpci_decode(b, n, &r, NULL, err, 12), -ENOTSUP);
	assert_int_equal(strlen(err), 11);
	assert_int_equal(vpci_decode(b, n, &r, NULL, NULL, 0), -ENOTSUP);
}

static void
test_truncated_never_reads_past(void **state)
{
	static const char *const cut[] = {
		"48", "66", "f0", "8b", "8b 43", "8b 83 00 00", "8b 04", "8b 44 24",
		"c7 03 00 00", "66 c7 03 00", "48 c7 03 00 00 00", "81 03 01 02 03", "83 03",
		"c5", "c5 f9", "c5 f9 6e", "c4 e1", "c4 e1 f9", "0f", "0f 38", "0f 38 f9",
		"0f b6", "f3 0f 6f", "f6 03", "89 05 00 00 00", "8b 04 25 00 00",
	};
	uint8_t *guard, *at;
	struct vpci_regs r;
	struct vpci_insn insn;
	uint8_t b[VPCI_INSN_MAX + 8];
	char err[160];
	unsigned int i, n;
	int rc;

	(void)state;
	/* bytes end exactly at a page followed by PROT_NONE: reading past faults */
	guard = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(guard != MAP_FAILED);
	assert_int_equal(mprotect(guard + page, page, PROT_NONE), 0);
	memset(&r, 0, sizeof(r));
	for (i = 0; i < sizeof(cut) / sizeof(cut[0]); i++) {
		n = parse_hex(cut[i], b, NULL);
		at = guard + page - n;
		memcpy(at, b, n);
		rc = vpci_decode(at, n, &r, &insn, err, sizeof(err));
		if (rc != -EINVAL)
			fail_msg("'%s': %d, want -EINVAL (%s)", cut[i], rc, err);
		assert_non_null(strstr(err, "truncated"));
		assert_int_equal(vpci_emulate(at, n, &r, &sh_ops, NULL, err, sizeof(err)),
				 -EINVAL);
	}
	assert_int_equal(vpci_decode(guard + page, 0, &r, &insn, err, sizeof(err)), -EINVAL);
	/* 15 bytes at most: 14 prefixes and an opcode with a ModRM is too long */
	memset(b, 0x66, 14);
	b[14] = 0x8b;
	b[15] = 0x03;
	assert_int_equal(vpci_decode(b, 16, &r, &insn, err, sizeof(err)), -EINVAL);
	/* 13 prefixes + 8b 03 = 15: fine */
	memset(b, 0x66, 13);
	b[13] = 0x8b;
	b[14] = 0x03;
	assert_int_equal(vpci_decode(b, 15, &r, &insn, err, sizeof(err)), 0);
	assert_int_equal(insn.len, 15);
	munmap(guard, 2 * page);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms_against_the_cpu),
		cmocka_unit_test(test_decode_reports),
		cmocka_unit_test(test_callback_errors_leave_registers),
		cmocka_unit_test(test_refusals_name_the_bytes),
		cmocka_unit_test(test_truncated_never_reads_past),
	};

	page = sysconf(_SC_PAGESIZE);
	/* code and data adjacent: RIP-relative displacements reach */
	code_page = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	if (code_page == MAP_FAILED)
		return 1;
	data_page = code_page + page;
	test_case_filter(argc, argv);
	return cmocka_run_group_tests_name("vpci_decode", tests, NULL, NULL);
}
