/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _VPCI_DECODE_H_
#define _VPCI_DECODE_H_

/**
 * @file
 * x86-64 instruction decoding and emulation for trapped MMIO: given the
 * bytes at the faulting RIP and the thread's registers, perform the one
 * memory access the instruction makes through callbacks (the model), update
 * the destination register or flags as the CPU would, and advance RIP.
 *
 * A pure core: no signals, no DPDK. The SIGSEGV handler converts its
 * ucontext to struct vpci_regs and back; tests run it on plain memory.
 *
 * Forms (with legacy prefixes 66/f2/f3, REX, ModRM, SIB, disp8/disp32,
 * RIP-relative addressing; register numbers 0..15 and AH..BH):
 * - mov r/m<->r 8/16/32/64 (88 89 8a 8b), mov r/m, imm (c6 c7),
 *   movzx/movsx (0f b6 b7 be bf), movsxd (63), movnti (0f c3),
 *   movdiri (0f 38 f9);
 * - ALU with a memory operand, either direction, and the immediate group
 *   (00-3b: add or adc sbb and sub xor cmp; 80 81 83), test (84 85 f6/0 f7/0),
 *   imul r, r/m (0f af) and r, r/m, imm (69 6b),
 *   xchg (86 87), inc/dec/not/neg (fe ff f6 f7 groups), xadd (0f c0 c1) and
 *   cmpxchg (0f b0 b1; on a mismatch it writes the old value back, as the
 *   CPU's locked cycle does), which compilers emit for atomics;
 * - SSE/VEX moves of 4, 8 or 16 bytes between memory and xmm: movd/movq
 *   (66 0f 6e/7e, f3 0f 7e, 66 0f d6), movdqu/movdqa/movups/movaps/movupd/
 *   movapd (f3/66 0f 6f 7f, 0f 10 11 28 29, 66 0f 10 11 28 29), and their
 *   VEX.128 forms.
 * A VEX.128 load also zeroes bits 128..255 (and up) of its ymm/zmm register;
 * struct vpci_regs holds no ymm, so vpci_emulate() cannot: it reports the
 * register in vpci_insn.vex_xmm and the caller zeroes the upper part where it
 * can (vpci_trap does, in the signal frame's XSAVE area).
 * Prefixes 64/65 (fs/gs), 67 (32-bit addresses), EVEX, VEX.256 and every
 * other opcode are refused, as is a lock prefix where the CPU would fault.
 * Anything else is refused: vpci_emulate() returns -ENOTSUP and writes a
 * message naming the bytes.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Longest x86 instruction. */
#define VPCI_INSN_MAX 15

/** The registers an emulated instruction may read or write. */
struct vpci_regs {
	uint64_t gpr[16];	/**< rax rcx rdx rbx rsp rbp rsi rdi r8..r15 */
	uint64_t rip;
	uint64_t rflags;
	uint8_t xmm[16][16];	/**< xmm0..xmm15, little-endian */
};

/** What one decoded instruction does (for tests and messages). */
struct vpci_insn {
	uint8_t len;		/**< bytes the instruction takes */
	uint8_t size;		/**< bytes of memory it accesses: 1, 2, 4, 8, 16 */
	uint8_t reads;		/**< 1: it reads memory */
	uint8_t writes;		/**< 1: it writes memory */
	uint64_t ea;		/**< effective address (given the registers) */
	char mnemonic[12];	/**< "mov", "movzx", "add", "movdqu", ... */
	int8_t vex_xmm;		/**< VEX load: its xmm (upper ymm bits to zero), else -1 */
};

/**
 * Memory access callbacks. @p size: 1, 2, 4 or 8 (16-byte accesses come as
 * two 8-byte ones, low address first). A read fills *value; a non-zero
 * return aborts the instruction (registers unchanged) with that errno.
 */
struct vpci_mem_ops {
	int (*read)(void *ctx, uint64_t addr, unsigned int size, uint64_t *value);
	int (*write)(void *ctx, uint64_t addr, unsigned int size, uint64_t value);
};

/**
 * Decode the instruction in @p code (at most @p avail bytes) given @p regs.
 * @return 0, -ENOTSUP (not a form above; @p err says which bytes), or
 *   -EINVAL (truncated or malformed).
 */
int vpci_decode(const uint8_t *code, size_t avail, const struct vpci_regs *regs,
		struct vpci_insn *insn, char *err, size_t err_len);

/**
 * Decode and perform the instruction at @p code: the memory access through
 * @p ops, then registers and flags, then rip += length.
 * @return 0, or a negative errno (registers unchanged; @p err says why).
 */
int vpci_emulate(const uint8_t *code, size_t avail, struct vpci_regs *regs,
		const struct vpci_mem_ops *ops, void *ctx, char *err, size_t err_len);

#ifdef __cplusplus
}
#endif

#endif /* _VPCI_DECODE_H_ */
