/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _TEST_CASE_H_
#define _TEST_CASE_H_

/*
 * The one way a cmocka program of the suites is told to run some of its
 * cases: its first argument, a cmocka glob over case names, e.g.
 *   meson test -C build pmd_roce --test-args 'test_rc_*'
 *   build/tests/pmd/test_pmd_roce test_rc_send_64
 * A filter matching nothing runs no case and passes: check the
 * "N test(s) run" line.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

/** Run only the cases matching argv[1], when given. */
static inline void
test_case_filter(int argc, char **argv)
{
	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
}

#endif /* _TEST_CASE_H_ */
