/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _VPCI_ACCESSORS_H_
#define _VPCI_ACCESSORS_H_

/*
 * The accessor tables of vpci_accessors.c, one per compiler and level
 * (tests/unit/meson.build compiles it ten times).
 */

#include <stdint.h>

struct vpci_acc {
	const char *name;	/* NULL ends a table */
	uint64_t (*fn)(void *p, uint64_t v, uint64_t i);
	int avx;		/* needs a CPU with AVX */
};

/* X(compiler, level) for each object */
#define VPCI_ACC_BUILDS(X)						\
	X(gcc, O0) X(gcc, O1) X(gcc, O2) X(gcc, O3) X(gcc, Os)		\
	X(clang, O0) X(clang, O1) X(clang, O2) X(clang, O3) X(clang, Os)

#define VPCI_ACC_DECLARE(cc, lvl) extern const struct vpci_acc vpci_acc_##cc##_##lvl[];
VPCI_ACC_BUILDS(VPCI_ACC_DECLARE)

#endif /* _VPCI_ACCESSORS_H_ */
