/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * The wire guard: bursts on a wire port of its own run only while the EAL
 * interrupt thread is parked in a callback of ours.
 *
 * Why: a DPDK 22.11 net_memif port handles its peer's disconnect on the
 * interrupt thread and unmaps the rings right there, with no hand-off to
 * the lcores polling the port; a burst in flight then faults (seen: a
 * node's forwarding lcore killed in memif's transmit copy when the switch
 * took its link down under traffic). opa-switch parks that thread around
 * its own polls (app/opa-switch/sw_park.c); a node's wire is polled from
 * any lcore at once, so here the park is shared: the first burst asks for
 * it, later ones join while it lasts, and the thread is let go after
 * GUARD_WINDOW_US once no burst is in flight. Bursts run on the interrupt
 * thread itself (net_opa_vnic's control tick) need no guard.
 */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include <rte_alarm.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_interrupts.h>
#include <rte_malloc.h>

#include "hfi1_model_priv.h"

/* longest park while bursts keep coming; the other interrupt sources
 * (alarms, memif's own events) are served between two parks */
#define GUARD_WINDOW_US 1000
/* a park ends sooner once no burst is in flight and none began this long */
#define GUARD_IDLE_US 200
/* a burst that cannot have the park in this long is skipped */
#define GUARD_WAIT_MS 200

struct model_guard {
	struct rte_intr_handle *ih;
	int efd;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool requested;		/* the thread was woken for a park */
	bool parked;		/* the thread is in guard_cb: bursts may run */
	bool closing;		/* the window is over: no new burst joins */
	unsigned int inflight;	/* bursts running under the park */
	uint64_t last_enter;	/* CLOCK_MONOTONIC ns of the last burst begun */
};

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

static void
ts_of(struct timespec *ts, uint64_t ns)
{
	ts->tv_sec = (time_t)(ns / 1000000000);
	ts->tv_nsec = (long)(ns % 1000000000);
}

/* On the interrupt thread. */
static void
guard_cb(void *arg)
{
	struct model_guard *g = arg;
	struct timespec ts;
	uint64_t v, now, end;

	if (read(g->efd, &v, sizeof(v)) < 0)
		v = 0;
	pthread_mutex_lock(&g->lock);
	g->requested = false;
	g->parked = true;
	now = mono_ns();
	end = now + GUARD_WINDOW_US * 1000ull;
	g->last_enter = now;	/* the burst that asked is about to begin */
	pthread_cond_broadcast(&g->cond);
	/* until the window ends, or bursts stopped coming (an lcore that
	 * stopped polling must not keep the thread from its other sources) */
	while ((now = mono_ns()) < end) {
		uint64_t idle_end = g->last_enter + GUARD_IDLE_US * 1000ull;

		if (g->inflight == 0 && now >= idle_end)
			break;
		ts_of(&ts, g->inflight == 0 && idle_end < end ? idle_end : end);
		pthread_cond_timedwait(&g->cond, &g->lock, &ts);
	}
	g->closing = true;
	while (g->inflight > 0)
		pthread_cond_wait(&g->cond, &g->lock);
	g->parked = false;
	g->closing = false;
	/* bursts that waited for the window's end ask for the next park */
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

int
model_guard_create(struct hfi1_model *m)
{
	struct model_guard *g = rte_zmalloc("hfi1_model_guard", sizeof(*g), 0);
	pthread_condattr_t ca;

	if (g == NULL)
		return -ENOMEM;
	g->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	g->ih = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	if (g->efd < 0 || g->ih == NULL)
		goto fail;
	pthread_mutex_init(&g->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&g->cond, &ca);
	pthread_condattr_destroy(&ca);
	if (rte_intr_fd_set(g->ih, g->efd) != 0 ||
	    rte_intr_type_set(g->ih, RTE_INTR_HANDLE_EXT) != 0 ||
	    rte_intr_callback_register(g->ih, guard_cb, g) != 0) {
		pthread_cond_destroy(&g->cond);
		pthread_mutex_destroy(&g->lock);
		goto fail;
	}
	m->guard = g;
	return 0;
fail:
	if (g->ih != NULL)
		rte_intr_instance_free(g->ih);
	if (g->efd >= 0)
		close(g->efd);
	rte_free(g);
	return -ENOMEM;
}

void
model_guard_destroy(struct hfi1_model *m)
{
	struct model_guard *g = m->guard;

	if (g == NULL)
		return;
	m->guard = NULL;
	/*
	 * Bus cleanup removed the wire first: were it a net_memif server, its
	 * close freed its listener's interrupt handle without unregistering it
	 * (DPDK 22.11), and the interrupt thread would read it as it rebuilds
	 * its sources after an unregister of ours. The process is ending: the
	 * guard stays registered (nothing wakes it again) and is not freed.
	 */
	if (!rte_eth_dev_is_valid_port((uint16_t)m->wire_port))
		return;
	/* No burst runs any more; the thread may still be in its window. */
	if (rte_thread_is_intr())
		rte_intr_callback_unregister(g->ih, guard_cb, g);
	else
		rte_intr_callback_unregister_sync(g->ih, guard_cb, g);
	rte_intr_instance_free(g->ih);
	close(g->efd);
	pthread_cond_destroy(&g->cond);
	pthread_mutex_destroy(&g->lock);
	rte_free(g);
}

static void
barrier_cb(void *arg)
{
	__atomic_store_n((int *)arg, 1, __ATOMIC_RELEASE);
}

void
model_intr_barrier(void)
{
	uint64_t end;
	int i;

	if (rte_thread_is_intr())
		return;
	/* an alarm runs in a batch of events that may still hold the pipe
	 * event; the next alarm's batch comes after the rebuild */
	for (i = 0; i < 2; i++) {
		int done = 0;

		if (rte_eal_alarm_set(1, barrier_cb, &done) != 0)
			return;
		end = mono_ns() + 1000000000ull;
		while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE) && mono_ns() < end)
			rte_delay_us_sleep(100);
		if (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
			/* the thread is stuck: never let the alarm write here later */
			rte_eal_alarm_cancel(barrier_cb, &done);
			return;
		}
	}
}

bool
model_guard_enter(struct hfi1_model *m)
{
	struct model_guard *g = m->guard;
	const uint64_t one = 1;
	struct timespec end;
	bool ok = true;

	if (g == NULL || rte_thread_is_intr())
		return true;
	ts_of(&end, mono_ns() + GUARD_WAIT_MS * 1000000ull);
	pthread_mutex_lock(&g->lock);
	while (!g->parked || g->closing) {
		if (!g->parked && !g->requested) {
			g->requested = true;
			if (write(g->efd, &one, sizeof(one)) < 0)
				g->requested = false;
		}
		if (pthread_cond_timedwait(&g->cond, &g->lock, &end) == ETIMEDOUT) {
			ok = false;
			break;
		}
	}
	if (ok) {
		g->inflight++;
		g->last_enter = mono_ns();
	}
	pthread_mutex_unlock(&g->lock);
	return ok;
}

void
model_guard_leave(struct hfi1_model *m)
{
	struct model_guard *g = m->guard;

	if (g == NULL || rte_thread_is_intr())
		return;
	pthread_mutex_lock(&g->lock);
	if (--g->inflight == 0)
		pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}
