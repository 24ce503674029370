/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _SW_PARK_H_
#define _SW_PARK_H_

/*
 * Parks the EAL interrupt thread while the data path polls its ports.
 *
 * Why: net_memif (DPDK 22.11) handles a peer's disconnect on the EAL
 * interrupt thread, unmapping the shared rings with no hand-off to the
 * lcore that polls them; an rx or tx burst in flight then faults. Every
 * asynchronous memif action (connect, disconnect, link state) runs on that
 * thread, so holding it in a callback of ours while the ports are polled,
 * and releasing it in between, serialises the two. Link states read while
 * it is held cannot change under the reader either.
 */

#include <signal.h>
#include <stdbool.h>

struct sw_park;

/** Register the parking callback with the interrupt thread. NULL on failure. */
struct sw_park *sw_park_create(void);

/**
 * Wait until the interrupt thread is parked.
 *
 * @param stop
 *   Checked while waiting (may be NULL); when it becomes true the wait is
 *   abandoned.
 * @param timeout_ms
 *   Give up after this long (0: no limit).
 * @return 0 when parked (or @p p is NULL), -1 when @p stop or the timeout
 *   ended the wait.
 */
int sw_park_hold(struct sw_park *p, const volatile sig_atomic_t *stop, unsigned int timeout_ms);

/** Let the interrupt thread go (also ends an abandoned request). */
void sw_park_release(struct sw_park *p);

/*
 * There is no free: at exit the thread is held (never released) through
 * port close and EAL cleanup, and the process ends with it parked.
 */

#endif /* _SW_PARK_H_ */
