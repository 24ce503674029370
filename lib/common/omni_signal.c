/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#include <string.h>

#include "omni_signal.h"

volatile sig_atomic_t omni_stop;

static void
on_stop_signal(int sig)
{
	(void)sig;
	omni_stop = 1;
}

void
omni_stop_on_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	/* as signal() does on glibc: interrupted reads and writes restart */
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}
