/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* The tests' own waits (tests/common/test_wait.h): test_wait_until returns
 * as soon as its condition holds and not before its deadline otherwise;
 * test_wait_alarm_periods lets a periodic EAL alarm run the number of
 * times asked, however long each run takes, and leaves no alarm behind
 * when it gives up. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include <rte_alarm.h>
#include <rte_common.h>
#include <rte_errno.h>

#include "test_case.h"
#include "test_eal.h"
#include "test_wait.h"

/* ---- test_wait_until ---- */

static int evaluations;

static bool
count_and_say(bool v)
{
	evaluations++;
	return v;
}

static void
test_wait_until_true_at_once_returns_at_once(void **state)
{
	uint64_t t0 = test_now_ms();

	(void)state;
	evaluations = 0;
	assert_true(test_wait_until(count_and_say(true), 5000));
	assert_int_equal(evaluations, 1);
	assert_true(test_now_ms() - t0 < 1000);
}

static void
test_wait_until_never_true_returns_false_at_the_deadline(void **state)
{
	uint64_t t0 = test_now_ms(), spent;

	(void)state;
	evaluations = 0;
	assert_false(test_wait_until(count_and_say(false), 50));
	spent = test_now_ms() - t0;
	assert_true(spent >= 50);
	assert_true(spent < 5000);
	assert_true(evaluations >= 2);
}

static int flag;

static void
set_flag(void *arg)
{
	(void)arg;
	__atomic_store_n(&flag, 1, __ATOMIC_RELEASE);
}

/* A condition another thread makes true (an alarm 20 ms on) ends the wait
 * well before its deadline. */
static void
test_wait_until_sees_another_thread(void **state)
{
	uint64_t t0 = test_now_ms();

	(void)state;
	flag = 0;
	assert_int_equal(rte_eal_alarm_set(20 * 1000, set_flag, NULL), 0);
	TEST_WAIT(__atomic_load_n(&flag, __ATOMIC_ACQUIRE) == 1, TEST_WAIT_MS);
	assert_true(test_now_ms() - t0 >= 20);
	assert_true(test_now_ms() - t0 < TEST_WAIT_MS);
}

/* ---- test_wait_alarm_periods ---- */

struct ticker {
	uint64_t period_us;
	unsigned int busy_us;	/* each run takes this long */
	int runs;
	int stop;
	int rearm_failed;
};

static void
tick(void *arg)
{
	struct ticker *t = arg;

	if (__atomic_load_n(&t->stop, __ATOMIC_ACQUIRE))
		return;
	__atomic_fetch_add(&t->runs, 1, __ATOMIC_RELEASE);
	if (t->busy_us != 0)
		usleep(t->busy_us);
	/* no cmocka assert off the test's thread */
	if (rte_eal_alarm_set(t->period_us, tick, t) != 0)
		__atomic_store_n(&t->rearm_failed, 1, __ATOMIC_RELEASE);
}

static void
ticker_stop(struct ticker *t)
{
	__atomic_store_n(&t->stop, 1, __ATOMIC_RELEASE);
	rte_eal_alarm_cancel(tick, t);
}

/* After the wait the periodic alarm ran at least n more times: with quick
 * runs, and with runs that take most of the period. */
static void
test_alarm_periods_run_the_periodic_alarm_n_times(void **state)
{
	static struct ticker quick = { .period_us = 5000 };
	static struct ticker slow = { .period_us = 5000, .busy_us = 4000 };
	struct ticker *t[] = { &quick, &slow };
	unsigned int i, n;

	(void)state;
	for (i = 0; i < RTE_DIM(t); i++) {
		assert_int_equal(rte_eal_alarm_set(t[i]->period_us, tick, t[i]), 0);
		for (n = 1; n <= 4; n++) {
			int before = __atomic_load_n(&t[i]->runs, __ATOMIC_ACQUIRE);

			assert_int_equal(test_wait_alarm_periods(t[i]->period_us, n,
								 TEST_WAIT_MS), 0);
			assert_true(__atomic_load_n(&t[i]->runs, __ATOMIC_ACQUIRE) >=
				    before + (int)n);
		}
		ticker_stop(t[i]);
		assert_int_equal(t[i]->rearm_failed, 0);
	}
}

/* Given too little time, it says so and leaves none of its alarms set. */
static void
test_alarm_periods_give_up_at_the_deadline_leaving_no_alarm(void **state)
{
	uint64_t t0 = test_now_ms();

	(void)state;
	assert_int_equal(test_wait_alarm_periods(200 * 1000, 3, 50), -1);
	assert_true(test_now_ms() - t0 >= 50);
	rte_errno = 0;
	assert_int_equal(rte_eal_alarm_cancel(test_alarm_periods_cb, (void *)-1), 0);
	assert_int_equal(rte_errno, ENOENT);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wait_until_true_at_once_returns_at_once),
		cmocka_unit_test(test_wait_until_never_true_returns_false_at_the_deadline),
		cmocka_unit_test(test_wait_until_sees_another_thread),
		cmocka_unit_test(test_alarm_periods_run_the_periodic_alarm_n_times),
		cmocka_unit_test(test_alarm_periods_give_up_at_the_deadline_leaving_no_alarm),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests_name("wait", tests, test_eal_setup, test_eal_teardown);
}
