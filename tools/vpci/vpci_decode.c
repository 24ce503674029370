/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * x86-64 access emulation for trapped MMIO (vpci_decode.h). Written to run
 * inside a SIGSEGV handler: no allocation, no locks, no stdio (messages are
 * formatted by hand). The arithmetic flags come from running the same
 * operation natively on the values (alu_native()), so they are exactly what
 * this CPU computes, undefined ones included.
 */

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "vpci_decode.h"

#define FL_ARITH 0x8d5u /* CF PF AF ZF SF OF */

enum kind {
	K_STORE,	/* mem <- reg (or imm) */
	K_LOAD,		/* reg <- mem, size = msize */
	K_MOVZX,	/* reg <- zero-extended mem */
	K_MOVSX,	/* reg <- sign-extended mem */
	K_ALU,		/* mem op= src, or reg op= mem */
	K_XCHG,
	K_UNARY,	/* inc dec not neg on mem */
	K_XMM_LOAD,	/* xmm <- mem, zero-extended to 128 */
	K_XMM_STORE,	/* mem <- low msize bytes of xmm */
	K_XADD,
	K_CMPXCHG,
};

enum alu_op {
	A_ADD, A_OR, A_ADC, A_SBB, A_AND, A_SUB, A_XOR, A_CMP,
	A_TEST, A_INC, A_DEC, A_NOT, A_NEG, A_IMUL,
};

static const char *const alu_names[] = {
	"add", "or", "adc", "sbb", "and", "sub", "xor", "cmp",
	"test", "inc", "dec", "not", "neg", "imul",
};

struct dec {
	const uint8_t *code;
	size_t avail;
	unsigned int pos;
	/* prefixes */
	uint8_t p66, pf2, pf3, lock, rex, vex;
	uint8_t vex_l, vex_v, vex_pp;
	/* ModRM */
	uint8_t mod, reg, rm;
	uint8_t rip_rel;
	int64_t disp;
	uint64_t base_ea;	/* ea without the RIP term */
	/* what it does */
	enum kind kind;
	enum alu_op alu;
	uint8_t opsize;		/* register operand bytes */
	uint8_t msize;		/* memory operand bytes */
	uint8_t mem_dst;	/* K_ALU: 1 = memory is the destination */
	uint8_t has_imm;
	uint64_t imm;
	uint8_t xmm;		/* the xmm of SSE forms */
	const char *mn;
};

/* ---- messages (no stdio: this runs in a signal handler) ---- */

struct msg {
	char *buf;
	size_t len, pos;
};

static void
msg_str(struct msg *m, const char *s)
{
	while (*s != '\0' && m->pos + 1 < m->len)
		m->buf[m->pos++] = *s++;
	if (m->len)
		m->buf[m->pos < m->len ? m->pos : m->len - 1] = '\0';
}

static void
msg_hex(struct msg *m, uint64_t v, unsigned int min_digits)
{
	char t[17];
	unsigned int n = 0;

	do {
		t[16 - ++n] = "0123456789abcdef"[v & 0xf];
		v >>= 4;
	} while (v != 0 || n < min_digits);
	t[16] = '\0';
	msg_str(m, t + 16 - n);
}

static void
msg_bytes(struct msg *m, const uint8_t *code, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (i)
			msg_str(m, " ");
		msg_hex(m, code[i], 2);
	}
}

/* "vpci: <what> <bytes> (<why>) at rip 0x..." */
static int
fail(struct dec *d, int rc, const char *why, const struct vpci_regs *regs, char *err,
		size_t err_len)
{
	struct msg m = { err, err_len, 0 };
	size_t n = d->avail < VPCI_INSN_MAX ? d->avail : VPCI_INSN_MAX;

	if (err == NULL || err_len == 0)
		return rc;
	/* the bytes decoded so far, at least up to the opcode */
	if (rc == -ENOTSUP && d->pos > 0 && d->pos < n)
		n = d->pos;
	msg_str(&m, rc == -ENOTSUP ? "vpci: cannot emulate " : "vpci: truncated instruction ");
	msg_bytes(&m, d->code, n);
	msg_str(&m, " (");
	msg_str(&m, why);
	msg_str(&m, ") at rip 0x");
	msg_hex(&m, regs->rip, 1);
	return rc;
}

/* ---- byte fetch ---- */

static int
fetch(struct dec *d, unsigned int n, uint64_t *v)
{
	unsigned int i;

	if (d->pos + n > d->avail || d->pos + n > VPCI_INSN_MAX)
		return -EINVAL;
	*v = 0;
	for (i = 0; i < n; i++)
		*v |= (uint64_t)d->code[d->pos + i] << (8 * i);
	d->pos += n;
	return 0;
}

static int
fetch8(struct dec *d, uint8_t *b)
{
	uint64_t v;
	int rc = fetch(d, 1, &v);

	*b = (uint8_t)v;
	return rc;
}

static int64_t
sext(uint64_t v, unsigned int bytes)
{
	unsigned int sh = 64 - 8 * bytes;

	return (int64_t)(v << sh) >> sh;
}

static uint64_t
mask(unsigned int bytes)
{
	return bytes >= 8 ? ~0ull : (1ull << (8 * bytes)) - 1;
}

/* ---- registers ---- */

/* Byte registers 4..7 without REX are AH CH DH BH. */
static uint64_t
reg_get(const struct vpci_regs *r, unsigned int n, unsigned int size, int rex)
{
	if (size == 1 && !rex && n >= 4 && n < 8)
		return (r->gpr[n - 4] >> 8) & 0xff;
	return r->gpr[n] & mask(size);
}

/* As the CPU: 32-bit writes zero-extend, 8/16-bit writes keep the rest. */
static void
reg_set(struct vpci_regs *r, unsigned int n, unsigned int size, uint64_t v, int rex)
{
	if (size == 1 && !rex && n >= 4 && n < 8) {
		r->gpr[n - 4] = (r->gpr[n - 4] & ~0xff00ull) | ((v & 0xff) << 8);
		return;
	}
	if (size == 4)
		r->gpr[n] = v & 0xffffffffull;
	else if (size == 8)
		r->gpr[n] = v;
	else
		r->gpr[n] = (r->gpr[n] & ~mask(size)) | (v & mask(size));
}

/* ---- ALU: the operation run natively for its result and flags ---- */

/*
 * The asm pushes on the stack: step over the red zone the compiler may use.
 * Only the arithmetic flags are loaded (never TF, DF, AC).
 */
#define ALU_BIN(insn, sz)						\
	__asm__ volatile("sub $128, %%rsp\n\tpush %[f]\n\tpopfq\n\t"	\
		insn " %" sz "[b], %" sz "[a]\n\t"			\
		"pushfq\n\tpop %[f]\n\tadd $128, %%rsp"			\
		: [a] "+q" (a), [f] "+r" (f) : [b] "q" (b) : "cc", "memory")
#define ALU_UN(insn, sz)						\
	__asm__ volatile("sub $128, %%rsp\n\tpush %[f]\n\tpopfq\n\t"	\
		insn " %" sz "[a]\n\t"					\
		"pushfq\n\tpop %[f]\n\tadd $128, %%rsp"			\
		: [a] "+q" (a), [f] "+r" (f) : : "cc", "memory")
#define ALU_SIZES(mac, insn)						\
	do {								\
		switch (size) {						\
		case 1: mac(insn "b", "b"); break;			\
		case 2: mac(insn "w", "w"); break;			\
		case 4: mac(insn "l", "k"); break;			\
		default: mac(insn "q", "q"); break;			\
		}							\
	} while (0)

static uint64_t
alu_native(enum alu_op op, unsigned int size, uint64_t a, uint64_t b, uint64_t *flags)
{
	uint64_t f = (*flags & FL_ARITH) | 0x2;

	switch (op) {
	case A_ADD: ALU_SIZES(ALU_BIN, "add"); break;
	case A_OR: ALU_SIZES(ALU_BIN, "or"); break;
	case A_ADC: ALU_SIZES(ALU_BIN, "adc"); break;
	case A_SBB: ALU_SIZES(ALU_BIN, "sbb"); break;
	case A_AND: case A_TEST: ALU_SIZES(ALU_BIN, "and"); break;
	case A_SUB: case A_CMP: ALU_SIZES(ALU_BIN, "sub"); break;
	case A_XOR: ALU_SIZES(ALU_BIN, "xor"); break;
	case A_INC: ALU_SIZES(ALU_UN, "inc"); break;
	case A_DEC: ALU_SIZES(ALU_UN, "dec"); break;
	case A_NEG: ALU_SIZES(ALU_UN, "neg"); break;
	case A_NOT: ALU_SIZES(ALU_UN, "not"); break;
	case A_IMUL: /* no 8-bit two-operand form */
		if (size == 2)
			ALU_BIN("imulw", "w");
		else if (size == 4)
			ALU_BIN("imull", "k");
		else
			ALU_BIN("imulq", "q");
		break;
	}
	*flags = (*flags & ~(uint64_t)FL_ARITH) | (f & FL_ARITH);
	return a & mask(size);
}

/* ---- decoding ---- */

static int
decode_modrm(struct dec *d, const struct vpci_regs *regs)
{
	uint8_t modrm, sib, base, index, scale;
	uint64_t v = 0, ea = 0;
	int rc;

	rc = fetch8(d, &modrm);
	if (rc)
		return rc;
	d->mod = modrm >> 6;
	d->reg = ((modrm >> 3) & 7) | ((d->rex & 4) << 1);
	d->rm = modrm & 7;
	if (d->mod == 3)
		return -ENOTSUP; /* a register operand: no memory access */
	if (d->rm == 4) {
		rc = fetch8(d, &sib);
		if (rc)
			return rc;
		scale = sib >> 6;
		index = ((sib >> 3) & 7) | ((d->rex & 2) << 2);
		base = (sib & 7) | ((d->rex & 1) << 3);
		if (index != 4) /* rsp: no index (r12 is one) */
			ea += regs->gpr[index] << scale;
		if ((base & 7) == 5 && d->mod == 0)
			d->mod = 4; /* marker: disp32 and no base (rbp/r13 need mod 1 or 2) */
		else
			ea += regs->gpr[base];
	} else if (d->rm == 5 && d->mod == 0) {
		d->rip_rel = 1;
	} else {
		ea += regs->gpr[d->rm | ((d->rex & 1) << 3)];
	}
	if (d->mod == 1) {
		rc = fetch(d, 1, &v);
		d->disp = sext(v, 1);
	} else if (d->mod == 2 || d->mod == 4 || d->rip_rel) {
		rc = fetch(d, 4, &v);
		d->disp = sext(v, 4);
	}
	if (rc)
		return rc;
	d->base_ea = ea + (uint64_t)d->disp;
	return 0;
}

static int
decode_imm(struct dec *d, unsigned int bytes, unsigned int to)
{
	uint64_t v;
	int rc = fetch(d, bytes, &v);

	if (rc)
		return rc;
	d->imm = (uint64_t)sext(v, bytes) & mask(to);
	d->has_imm = 1;
	return 0;
}

/* Operand size of the non-byte integer forms. */
static unsigned int
opsize(const struct dec *d)
{
	return (d->rex & 8) ? 8 : d->p66 ? 2 : 4;
}

/* One-byte opcode map. */
static int
decode_map1(struct dec *d, uint8_t op, const char **why)
{
	unsigned int osz = opsize(d);
	int rc;

	if (op < 0x40 && (op & 7) < 4) {
		/* 00-3b: ALU r/m,r (0 1) and r,r/m (2 3) */
		d->kind = K_ALU;
		d->alu = (enum alu_op)(op >> 3);
		d->msize = d->opsize = (op & 1) ? osz : 1;
		d->mem_dst = !(op & 2);
		d->mn = alu_names[d->alu];
		return 0;
	}
	switch (op) {
	case 0x63: /* movsxd r, r/m32 */
		d->kind = K_MOVSX;
		d->opsize = osz;
		d->msize = osz < 4 ? osz : 4;
		d->mn = "movsxd";
		return 0;
	case 0x69: case 0x6b: /* imul r, r/m, imm */
		d->kind = K_ALU;
		d->alu = A_IMUL;
		d->msize = d->opsize = osz;
		d->mn = "imul";
		return decode_imm(d, op == 0x6b ? 1 : osz == 2 ? 2 : 4, osz);
	case 0x80: case 0x81: case 0x83:
		d->kind = K_ALU;
		d->alu = (enum alu_op)(d->reg & 7);
		d->msize = d->opsize = op == 0x80 ? 1 : osz;
		d->mem_dst = 1;
		d->mn = alu_names[d->alu];
		if (op == 0x81)
			return decode_imm(d, osz == 2 ? 2 : 4, d->msize);
		return decode_imm(d, 1, d->msize);
	case 0x84: case 0x85:
		d->kind = K_ALU;
		d->alu = A_TEST;
		d->msize = d->opsize = op == 0x84 ? 1 : osz;
		d->mn = "test";
		return 0;
	case 0x86: case 0x87:
		d->kind = K_XCHG;
		d->msize = d->opsize = op == 0x86 ? 1 : osz;
		d->mn = "xchg";
		return 0;
	case 0x88: case 0x89:
		d->kind = K_STORE;
		d->msize = d->opsize = op == 0x88 ? 1 : osz;
		d->mn = "mov";
		return 0;
	case 0x8a: case 0x8b:
		d->kind = K_LOAD;
		d->msize = d->opsize = op == 0x8a ? 1 : osz;
		d->mn = "mov";
		return 0;
	case 0xc6: case 0xc7:
		if ((d->reg & 7) != 0)
			break;
		d->kind = K_STORE;
		d->msize = op == 0xc6 ? 1 : osz;
		d->mn = "mov";
		rc = decode_imm(d, op == 0xc6 ? 1 : osz == 2 ? 2 : 4, d->msize);
		return rc;
	case 0xf6: case 0xf7:
		d->msize = d->opsize = op == 0xf6 ? 1 : osz;
		switch (d->reg & 7) {
		case 0: case 1: /* test (/1: the alias the CPU runs too) */
			d->kind = K_ALU;
			d->alu = A_TEST;
			d->mn = "test";
			return decode_imm(d, op == 0xf6 ? 1 : osz == 2 ? 2 : 4, d->msize);
		case 2: case 3:
			d->kind = K_UNARY;
			d->alu = (d->reg & 7) == 2 ? A_NOT : A_NEG;
			d->mem_dst = 1;
			d->mn = alu_names[d->alu];
			return 0;
		}
		*why = "mul/div group";
		return -ENOTSUP;
	case 0xfe: case 0xff:
		if ((d->reg & 7) > 1) {
			*why = op == 0xff ? "call/jmp/push through memory" : "undefined";
			return -ENOTSUP;
		}
		d->kind = K_UNARY;
		d->msize = d->opsize = op == 0xfe ? 1 : osz;
		d->alu = (d->reg & 7) == 0 ? A_INC : A_DEC;
		d->mem_dst = 1;
		d->mn = alu_names[d->alu];
		return 0;
	}
	*why = "not a supported opcode";
	return -ENOTSUP;
}

/*
 * SSE moves (0f map), legacy or VEX.128 (pp: 0 none, 1 66, 2 f3, 3 f2).
 * Returns 0 when @p op with @p pp is one of them.
 */
static int
decode_sse(struct dec *d, uint8_t op, unsigned int pp, int w)
{
	switch (op) {
	case 0x10: case 0x11: case 0x28: case 0x29:
		if (pp > 1)
			return -ENOTSUP; /* movss/movsd */
		d->msize = 16;
		d->kind = (op & 1) ? K_XMM_STORE : K_XMM_LOAD;
		d->mn = op < 0x28 ? (pp ? "movupd" : "movups") : (pp ? "movapd" : "movaps");
		return 0;
	case 0x6f: case 0x7f:
		if (pp != 1 && pp != 2)
			return -ENOTSUP; /* MMX movq */
		d->msize = 16;
		d->kind = op == 0x7f ? K_XMM_STORE : K_XMM_LOAD;
		d->mn = pp == 2 ? "movdqu" : "movdqa";
		return 0;
	case 0x6e: case 0x7e:
		if (op == 0x7e && pp == 2) { /* movq xmm, m64 */
			d->msize = 8;
			d->kind = K_XMM_LOAD;
			d->mn = "movq";
			return 0;
		}
		if (pp != 1)
			return -ENOTSUP;
		d->msize = w ? 8 : 4;
		d->kind = op == 0x6e ? K_XMM_LOAD : K_XMM_STORE;
		d->mn = w ? "movq" : "movd";
		return 0;
	case 0xd6:
		if (pp != 1)
			return -ENOTSUP;
		d->msize = 8;
		d->kind = K_XMM_STORE;
		d->mn = "movq";
		return 0;
	}
	return -ENOTSUP;
}

static int
decode(struct dec *d, const struct vpci_regs *regs, const char **why)
{
	uint8_t b, op, b1, b2;
	int rc;

	*why = "truncated";
	for (;;) {
		rc = fetch8(d, &b);
		if (rc)
			return rc;
		switch (b) {
		case 0x66: d->p66 = 1; d->rex = 0; continue;
		case 0xf2: d->pf2 = 1; d->pf3 = 0; d->rex = 0; continue;
		case 0xf3: d->pf3 = 1; d->pf2 = 0; d->rex = 0; continue;
		case 0xf0: d->lock = 1; d->rex = 0; continue;
		/* es cs ss ds overrides: no effect in 64-bit mode */
		case 0x26: case 0x2e: case 0x36: case 0x3e: d->rex = 0; continue;
		case 0x64: case 0x65:
			*why = "fs/gs segment override";
			return -ENOTSUP;
		case 0x67:
			*why = "32-bit address size";
			return -ENOTSUP;
		}
		if ((b & 0xf0) == 0x40) {
			d->rex = b;
			continue;
		}
		break;
	}
	op = b;
		if (op == 0x62) {
		*why = "EVEX (AVX-512)";
		return -ENOTSUP;
	}
	if (op == 0xc4 || op == 0xc5) {
		unsigned int map = 1, w = 0;

		if (d->p66 || d->pf2 || d->pf3 || d->rex || d->lock) {
			*why = "prefix before VEX";
			return -ENOTSUP;
		}
		rc = fetch8(d, &b1);
		if (rc)
			return rc;
		d->vex = 1;
		if (op == 0xc5) {
			d->rex = 0x40 | ((~b1 & 0x80) >> 5);
			b2 = b1;
		} else {
			rc = fetch8(d, &b2);
			if (rc)
				return rc;
			d->rex = 0x40 | ((~b1 & 0xe0) >> 5) | ((b2 & 0x80) >> 4);
			map = b1 & 0x1f;
			w = b2 >> 7;
		}
		d->vex_v = (~b2 >> 3) & 0xf;
		d->vex_l = (b2 >> 2) & 1;
		d->vex_pp = b2 & 3;
		rc = fetch8(d, &op);
		if (rc)
			return rc;
		if (map != 1) {
			*why = "VEX map other than 0f";
			return -ENOTSUP;
		}
		if (d->vex_l) {
			*why = "VEX.256";
			return -ENOTSUP;
		}
		if (decode_sse(d, op, d->vex_pp, w) != 0) {
			*why = "not a VEX move";
			return -ENOTSUP;
		}
		if (d->vex_v != 0) {
			*why = "VEX.vvvv not 1111";
			return -ENOTSUP;
		}
		rc = decode_modrm(d, regs);
		d->xmm = d->reg;
		if (rc == -ENOTSUP)
			*why = "register operand";
		return rc;
	}
	if (op == 0x0f) {
		/* the mandatory prefix: f2/f3 take precedence over 66 */
		unsigned int pp = d->pf3 ? 2 : d->pf2 ? 3 : d->p66 ? 1 : 0;

		rc = fetch8(d, &op);
		if (rc)
			return rc;
		if (op == 0x38) {
			rc = fetch8(d, &op);
			if (rc)
				return rc;
			if (op != 0xf9 || pp != 0) {
				*why = "0f 38 opcode";
				return -ENOTSUP;
			}
			d->kind = K_STORE;
			d->msize = d->opsize = (d->rex & 8) ? 8 : 4;
			d->mn = "movdiri";
		} else if (op == 0xb6 || op == 0xb7 || op == 0xbe || op == 0xbf) {
			d->kind = (op & 8) ? K_MOVSX : K_MOVZX;
			d->opsize = opsize(d);
			d->msize = (op & 1) ? 2 : 1;
			d->mn = (op & 8) ? "movsx" : "movzx";
		} else if (op == 0xaf) {
			d->kind = K_ALU;
			d->alu = A_IMUL;
			d->msize = d->opsize = opsize(d);
			d->mn = "imul";
		} else if (op == 0xb0 || op == 0xb1 || op == 0xc0 || op == 0xc1) {
			d->kind = op >= 0xc0 ? K_XADD : K_CMPXCHG;
			d->msize = d->opsize = (op & 1) ? opsize(d) : 1;
			d->mn = op >= 0xc0 ? "xadd" : "cmpxchg";
			rc = decode_modrm(d, regs);
			if (rc == -ENOTSUP)
				*why = "register operand";
			return rc;
		} else if (op == 0xc3) {
			if (pp != 0) {
				*why = "movnti with a prefix";
				return -ENOTSUP;
			}
			d->kind = K_STORE;
			d->msize = d->opsize = (d->rex & 8) ? 8 : 4;
			d->mn = "movnti";
		} else if (decode_sse(d, op, pp, !!(d->rex & 8)) == 0) {
			/* 66 beside f2/f3: refused rather than guessed */
			if (d->p66 && (d->pf2 || d->pf3)) {
				*why = "conflicting prefixes";
				return -ENOTSUP;
			}
		} else {
			*why = "0f opcode";
			return -ENOTSUP;
		}
		rc = decode_modrm(d, regs);
		d->xmm = d->reg;
		if (rc == -ENOTSUP)
			*why = "register operand";
		if (rc == 0 && d->lock) {
			*why = "lock prefix";
			return -ENOTSUP;
		}
		return rc;
	}
	if (op >= 0x40 && op < 0x63 && op != 0x62) {
		*why = "not a memory form";
		return -ENOTSUP;
	}
	/* opcodes with a ModRM in map 1 that we handle; others fail in decode_map1 */
	if (!((op < 0x40 && (op & 7) < 4) || op == 0x63 || op == 0x69 || op == 0x6b ||
			(op >= 0x80 && op <= 0x8b && op != 0x82) || op == 0xc6 || op == 0xc7 ||
			op >= 0xf6)) {
		*why = "not a supported opcode";
		return -ENOTSUP;
	}
	rc = decode_modrm(d, regs);
	if (rc == -ENOTSUP)
		*why = "register operand";
	if (rc)
		return rc;
	rc = decode_map1(d, op, why);
	if (rc)
		return rc;
	if (d->lock && !(d->mem_dst && (d->kind == K_ALU || d->kind == K_UNARY) &&
			d->alu != A_CMP && d->alu != A_TEST) && d->kind != K_XCHG) {
		*why = "lock prefix";
		return -ENOTSUP;
	}
	/* f2/f3 on these are ignored by the CPU (or xacquire/xrelease hints) */
	return 0;
}

static int
decode_all(const uint8_t *code, size_t avail, const struct vpci_regs *regs, struct dec *d,
		char *err, size_t err_len)
{
	const char *why = "";
	int rc;

	memset(d, 0, sizeof(*d));
	d->code = code;
	d->avail = avail;
	if (code == NULL || regs == NULL)
		return -EINVAL;
	rc = decode(d, regs, &why);
	if (rc == -EINVAL)
		return fail(d, rc, d->pos >= VPCI_INSN_MAX ? "longer than 15 bytes" : "truncated",
				regs, err, err_len);
	if (rc)
		return fail(d, rc, why, regs, err, err_len);
	if (d->rip_rel)
		d->base_ea = regs->rip + d->pos + (uint64_t)d->disp;
	return 0;
}

int
vpci_decode(const uint8_t *code, size_t avail, const struct vpci_regs *regs,
		struct vpci_insn *insn, char *err, size_t err_len)
{
	struct dec d;
	int rc = decode_all(code, avail, regs, &d, err, err_len);

	if (rc)
		return rc;
	if (insn != NULL) {
		memset(insn, 0, sizeof(*insn));
		insn->len = (uint8_t)d.pos;
		insn->size = d.msize;
		insn->ea = d.base_ea;
		insn->reads = d.kind != K_STORE && d.kind != K_XMM_STORE;
		insn->writes = d.kind == K_STORE || d.kind == K_XMM_STORE || d.kind == K_XCHG ||
			d.kind == K_XADD || d.kind == K_CMPXCHG ||
			d.kind == K_UNARY || (d.kind == K_ALU && d.mem_dst && d.alu != A_CMP &&
					      d.alu != A_TEST);
		if (d.vex) {
			insn->mnemonic[0] = 'v';
			strncpy(insn->mnemonic + 1, d.mn, sizeof(insn->mnemonic) - 2);
		} else {
			strncpy(insn->mnemonic, d.mn, sizeof(insn->mnemonic) - 1);
		}
		insn->vex_xmm = d.vex && d.kind == K_XMM_LOAD ? (int8_t)d.xmm : -1;
	}
	return 0;
}

static int
errno_of(int rc)
{
	return rc < 0 ? rc : -rc;
}

static int
mem_read(const struct vpci_mem_ops *ops, void *ctx, uint64_t ea, unsigned int size,
		uint64_t v[2])
{
	int rc;

	v[1] = 0;
	if (size == 16) {
		rc = ops->read(ctx, ea, 8, &v[0]);
		if (rc == 0)
			rc = ops->read(ctx, ea + 8, 8, &v[1]);
	} else {
		rc = ops->read(ctx, ea, size, &v[0]);
		v[0] &= mask(size);
	}
	return rc ? errno_of(rc) : 0;
}

static int
mem_write(const struct vpci_mem_ops *ops, void *ctx, uint64_t ea, unsigned int size,
		const uint64_t v[2])
{
	int rc;

	if (size == 16) {
		rc = ops->write(ctx, ea, 8, v[0]);
		if (rc == 0)
			rc = ops->write(ctx, ea + 8, 8, v[1]);
	} else {
		rc = ops->write(ctx, ea, size, v[0] & mask(size));
	}
	return rc ? errno_of(rc) : 0;
}

static int
op_fail(struct dec *d, int rc, const char *what, const struct vpci_regs *regs, char *err,
		size_t err_len)
{
	struct msg m = { err, err_len, 0 };

	if (err == NULL || err_len == 0)
		return rc;
	msg_str(&m, "vpci: ");
	msg_str(&m, what);
	msg_str(&m, " of ");
	msg_bytes(&m, d->code, d->pos);
	msg_str(&m, " at 0x");
	msg_hex(&m, d->base_ea, 1);
	msg_str(&m, " failed (errno ");
	msg_hex(&m, (uint64_t)-rc, 1);
	msg_str(&m, " hex) at rip 0x");
	msg_hex(&m, regs->rip, 1);
	return rc;
}

int
vpci_emulate(const uint8_t *code, size_t avail, struct vpci_regs *regs,
		const struct vpci_mem_ops *ops, void *ctx, char *err, size_t err_len)
{
	struct dec d;
	uint64_t mv[2] = { 0, 0 }, wv[2] = { 0, 0 }, flags, res = 0;
	int rc, rex, write_mem = 0, write_reg = 0, cmpxchg_fail = 0;
	unsigned int i;

	if (ops == NULL || ops->read == NULL || ops->write == NULL)
		return -EINVAL;
	rc = decode_all(code, avail, regs, &d, err, err_len);
	if (rc)
		return rc;
	rex = d.rex != 0;
	flags = regs->rflags;

	/* 1. read memory */
	if (d.kind != K_STORE && d.kind != K_XMM_STORE) {
		rc = mem_read(ops, ctx, d.base_ea, d.msize, mv);
		if (rc)
			return op_fail(&d, rc, "read", regs, err, err_len);
	}
	/* 2. compute */
	switch (d.kind) {
	case K_STORE:
		wv[0] = d.has_imm ? d.imm : reg_get(regs, d.reg, d.msize, rex);
		write_mem = 1;
		break;
	case K_LOAD:
		res = mv[0];
		write_reg = 1;
		break;
	case K_MOVZX:
		res = mv[0];
		write_reg = 1;
		break;
	case K_MOVSX:
		res = (uint64_t)sext(mv[0], d.msize) & mask(d.opsize);
		write_reg = 1;
		break;
	case K_ALU: {
		uint64_t src = d.has_imm ? d.imm : reg_get(regs, d.reg, d.opsize, rex);

		if (d.alu == A_IMUL && d.has_imm) {
			res = alu_native(A_IMUL, d.opsize, mv[0], d.imm, &flags);
			write_reg = 1;
		} else if (d.mem_dst || d.alu == A_TEST) {
			res = alu_native(d.alu, d.msize, mv[0], src, &flags);
			if (d.alu != A_CMP && d.alu != A_TEST) {
				wv[0] = res;
				write_mem = 1;
			}
		} else {
			res = alu_native(d.alu, d.opsize, src, mv[0], &flags);
			write_reg = d.alu != A_CMP;
		}
		break;
	}
	case K_XCHG:
		wv[0] = reg_get(regs, d.reg, d.msize, rex);
		res = mv[0];
		write_mem = write_reg = 1;
		break;
	case K_UNARY:
		wv[0] = alu_native(d.alu, d.msize, mv[0], 0, &flags);
		write_mem = 1;
		break;
	case K_XADD:
		wv[0] = alu_native(A_ADD, d.msize, mv[0], reg_get(regs, d.reg, d.msize, rex),
				   &flags);
		res = mv[0];
		write_mem = write_reg = 1;
		break;
	case K_CMPXCHG: {
		/* flags of cmp acc, mem; equal: mem <- reg; else acc <- mem */
		uint64_t acc = reg_get(regs, 0, d.msize, 1);

		alu_native(A_CMP, d.msize, acc, mv[0], &flags);
		write_mem = 1;
		if (acc == mv[0]) {
			wv[0] = reg_get(regs, d.reg, d.msize, rex);
		} else {
			/* the CPU writes the old value back (a locked cycle) */
			wv[0] = mv[0];
			cmpxchg_fail = 1;
		}
		break;
	}
	case K_XMM_LOAD:
		break;
	case K_XMM_STORE:
		memcpy(wv, regs->xmm[d.xmm], d.msize);
		write_mem = 1;
		break;
	}
	/* 3. write memory */
	if (write_mem) {
		rc = mem_write(ops, ctx, d.base_ea, d.msize, wv);
		if (rc)
			return op_fail(&d, rc, "write", regs, err, err_len);
	}
	/* 4. registers, flags, rip */
	if (write_reg)
		reg_set(regs, d.reg, d.opsize, res, rex);
	if (cmpxchg_fail)
		reg_set(regs, 0, d.opsize, mv[0], 1);
	if (d.kind == K_XMM_LOAD) {
		memset(regs->xmm[d.xmm], 0, sizeof(regs->xmm[d.xmm]));
		for (i = 0; i < d.msize; i++)
			regs->xmm[d.xmm][i] = (uint8_t)(mv[i / 8] >> (8 * (i % 8)));
	}
	regs->rflags = flags;
	regs->rip += d.pos;
	return 0;
}
