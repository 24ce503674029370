/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/**
 * @file
 * Stopping an omniplane application cleanly on SIGINT or SIGTERM: the
 * handler only raises a flag the main loop polls, so ports are stopped
 * and closed by the loop's own exit path.
 */

#ifndef OMNIPLANE_APP_SIGNAL_H
#define OMNIPLANE_APP_SIGNAL_H

#include <signal.h>
#include <stdbool.h>

/** Turns true at the first SIGINT or SIGTERM after app_stop_on_signals(). */
static volatile bool app_stop;

static inline void
app_on_stop_signal(int sig)
{
	(void)sig;
	app_stop = true;
}

/** Make SIGINT and SIGTERM set app_stop instead of killing the process. */
static inline void
app_stop_on_signals(void)
{
	signal(SIGINT, app_on_stop_signal);
	signal(SIGTERM, app_on_stop_signal);
}

#endif /* OMNIPLANE_APP_SIGNAL_H */
