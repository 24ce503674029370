/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef OMNI_SIGNAL_H
#define OMNI_SIGNAL_H

/**
 * @file
 * Stopping an omniplane program cleanly on SIGINT or SIGTERM: the handler
 * only raises a flag the loops poll, so ports are stopped and closed by the
 * program's own exit path. The flag is defined once, in omni_signal.c, so
 * every file of a program reads the flag the handler sets.
 */

#include <signal.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Non-zero from the first SIGINT or SIGTERM after omni_stop_on_signals(). */
extern volatile sig_atomic_t omni_stop;

/** Make SIGINT and SIGTERM set ::omni_stop instead of killing the process. */
void omni_stop_on_signals(void);

#ifdef __cplusplus
}
#endif

#endif /* OMNI_SIGNAL_H */
