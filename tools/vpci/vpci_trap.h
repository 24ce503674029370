/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _VPCI_TRAP_H_
#define _VPCI_TRAP_H_

/**
 * @file
 * MMIO trapping: address ranges mapped PROT_NONE whose every access faults,
 * is decoded (vpci_decode.h) and performed on a callback, after which the
 * faulting thread resumes at the next instruction.
 *
 * One process-wide SIGSEGV handler (SA_SIGINFO | SA_NODEFER | SA_ONSTACK),
 * installed by the first vpci_trap_add() (and by a later one if another
 * handler has replaced it since; it chains to the one it replaced). It keeps
 * errno. A fault outside
 * every range, or an instruction the decoder refuses, prints one line naming
 * the address and the instruction bytes on stderr and re-raises SIGSEGV with
 * the action that was installed before (default: the process dies as it
 * would have). The range table is read lock-free by the handler, which may
 * run on any thread, including inside another range's callback's caller.
 */

#include <stddef.h>
#include <stdint.h>

#include "vpci_decode.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Ranges trapped at once, at most. */
#define VPCI_TRAP_MAX 32

/**
 * Trap every access to [@p base, @p base + @p len) (page aligned; the caller
 * has mapped it and made it PROT_NONE). Accesses reach @p ops with
 * addresses relative to @p base.
 * @return 0, -EINVAL (unaligned, overlapping), -ENOSPC (table full).
 */
int vpci_trap_add(void *base, size_t len, const struct vpci_mem_ops *ops, void *ctx);

/**
 * Stop trapping the range at @p base (the caller unmaps it afterwards).
 * @return 0 or -ENOENT.
 */
int vpci_trap_remove(void *base);

/** Accesses emulated and refused since load. */
struct vpci_trap_stats {
	uint64_t emulated;
	uint64_t refused;	/**< undecodable: the process was stopped */
	uint64_t foreign;	/**< faults outside every range: passed on */
};

void vpci_trap_stats_get(struct vpci_trap_stats *s);

#ifdef __cplusplus
}
#endif

#endif /* _VPCI_TRAP_H_ */
