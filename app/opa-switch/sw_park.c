/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* Parking the EAL interrupt thread around the data path (see sw_park.h). */

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include <rte_interrupts.h>

#include "sw_park.h"

struct sw_park {
	struct rte_intr_handle *ih;
	int efd;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	/* Requests are numbered: the callback parks for request 'seq' and
	 * leaves once 'released' reaches it, so it always returns to its event
	 * loop between two requests and memif's events are never starved. */
	uint64_t seq;
	uint64_t parked;
	uint64_t released;
};

/* On the interrupt thread. */
static void
park_cb(void *arg)
{
	struct sw_park *p = arg;
	uint64_t v, s;

	/* consume the wake-up; the state below says whether to park */
	if (read(p->efd, &v, sizeof(v)) < 0)
		v = 0;
	pthread_mutex_lock(&p->lock);
	s = p->seq;
	if (p->released != s) {
		p->parked = s;
		pthread_cond_broadcast(&p->cond);
		while (p->released != s)
			pthread_cond_wait(&p->cond, &p->lock);
	}
	pthread_mutex_unlock(&p->lock);
}

struct sw_park *
sw_park_create(void)
{
	struct sw_park *p = calloc(1, sizeof(*p));
	pthread_condattr_t ca;

	if (p == NULL)
		return NULL;
	p->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	p->ih = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	if (p->efd < 0 || p->ih == NULL)
		goto fail;
	pthread_mutex_init(&p->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cond, &ca);
	pthread_condattr_destroy(&ca);
	if (rte_intr_fd_set(p->ih, p->efd) != 0 ||
	    rte_intr_type_set(p->ih, RTE_INTR_HANDLE_EXT) != 0 ||
	    rte_intr_callback_register(p->ih, park_cb, p) != 0) {
		pthread_cond_destroy(&p->cond);
		pthread_mutex_destroy(&p->lock);
		goto fail;
	}
	return p;
fail:
	if (p->ih != NULL)
		rte_intr_instance_free(p->ih);
	if (p->efd >= 0)
		close(p->efd);
	free(p);
	return NULL;
}

static uint64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int
sw_park_hold(struct sw_park *p, const volatile sig_atomic_t *stop, unsigned int timeout_ms)
{
	uint64_t deadline = timeout_ms ? mono_ms() + timeout_ms : UINT64_MAX;
	const uint64_t one = 1;
	struct timespec ts;
	uint64_t s;
	int ret = 0;

	if (p == NULL)
		return 0;	/* nothing registered: nothing to hold */
	pthread_mutex_lock(&p->lock);
	s = ++p->seq;
	pthread_mutex_unlock(&p->lock);
	if (write(p->efd, &one, sizeof(one)) < 0)
		return -1;
	pthread_mutex_lock(&p->lock);
	while (p->parked != s) {
		if ((stop != NULL && *stop) || mono_ms() >= deadline) {
			ret = -1;
			break;
		}
		/* wake now and then to see a stop request from a signal */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 50 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&p->cond, &p->lock, &ts);
	}
	pthread_mutex_unlock(&p->lock);
	return ret;
}

void
sw_park_release(struct sw_park *p)
{
	if (p == NULL)
		return;
	pthread_mutex_lock(&p->lock);
	p->released = p->seq;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}
