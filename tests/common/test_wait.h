/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _TEST_WAIT_H_
#define _TEST_WAIT_H_

/**
 * @file
 * Waiting in tests: on a condition, up to a deadline; never a fixed sleep.
 *
 * test_wait_until() evaluates a condition until it holds or its deadline
 * passes, and returns as soon as it holds; TEST_WAIT() fails the cmocka
 * test, naming the condition, when the deadline passes.
 *
 * test_wait_alarm_periods() waits until a periodic EAL alarm (a PMD's link
 * poll, a control tick) has run a given number of times more: what a test
 * waits for before checking that something did NOT happen (no second
 * event, no reply), whatever the machine's load.
 */

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <rte_alarm.h>

/** A deadline for waits that should end at once: generous for a loaded machine. */
#define TEST_WAIT_MS 10000

/** Milliseconds on CLOCK_MONOTONIC. */
static inline uint64_t
test_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/**
 * Evaluate @p cond every 100 us until it is true or @p ms milliseconds have
 * passed (a statement expression).
 *
 * @return
 *   true as soon as @p cond holds; false when it still did not at the deadline.
 */
#define test_wait_until(cond, ms) __extension__ ({				\
	uint64_t test_wait_end_ = test_now_ms() + (ms);				\
	bool test_wait_ok_;							\
										\
	while (!(test_wait_ok_ = !!(cond)) && test_now_ms() < test_wait_end_)	\
		usleep(100);							\
	test_wait_ok_;								\
})

/** test_wait_until(), failing the cmocka test with @p cond's text at the deadline. */
#define TEST_WAIT(cond, ms) do {						\
	if (!test_wait_until(cond, ms))						\
		fail_msg("waited %u ms for: %s", (unsigned int)(ms), #cond);	\
} while (0)

/** State of test_wait_alarm_periods(): alarms still to set, their delay, the end. */
struct test_alarm_periods {
	unsigned int left;
	uint64_t us;
	int done;	/* 1: done, -1: an alarm could not be set */
};

static inline void
test_alarm_periods_cb(void *arg)
{
	struct test_alarm_periods *p = arg;
	int done = 1;

	if (p->left > 0) {
		p->left--;
		if (rte_eal_alarm_set(p->us, test_alarm_periods_cb, p) == 0)
			return;
		done = -1;
	}
	__atomic_store_n(&p->done, done, __ATOMIC_RELEASE);
}

/**
 * Wait until a periodic EAL alarm of period @p period_us, one that re-arms
 * itself as it runs, has run at least @p n more times; @p ms at most.
 *
 * EAL runs alarms one at a time on its interrupt thread, in the order they
 * fall due. A first alarm of ours, due now, runs after any callback running
 * at the call. Each further one, set from the previous one period + 1 ms
 * ahead, falls due after the periodic alarm's next run, which was armed
 * before it: each costs one period.
 *
 * @return
 *   0; -1 (said on stderr) when @p ms passed first or an alarm could not be set.
 */
static inline int
test_wait_alarm_periods(uint64_t period_us, unsigned int n, unsigned int ms)
{
	struct test_alarm_periods p = { .left = n, .us = period_us + 1000 };
	int done;

	if (rte_eal_alarm_set(1, test_alarm_periods_cb, &p) != 0) {
		fprintf(stderr, "test_wait_alarm_periods: cannot set an alarm\n");
		return -1;
	}
	if (!test_wait_until(__atomic_load_n(&p.done, __ATOMIC_ACQUIRE) != 0, ms)) {
		/* p goes with this frame: none of our alarms may run later */
		rte_eal_alarm_cancel(test_alarm_periods_cb, &p);
		fprintf(stderr, "test_wait_alarm_periods: %u periods of %" PRIu64
			" us not over in %u ms\n", n, period_us, ms);
		return -1;
	}
	done = __atomic_load_n(&p.done, __ATOMIC_ACQUIRE);
	if (done != 1)
		fprintf(stderr, "test_wait_alarm_periods: cannot set an alarm\n");
	return done == 1 ? 0 : -1;
}

#endif /* _TEST_WAIT_H_ */
