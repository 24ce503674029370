/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * A hashed timer wheel: ROCE_WHEEL_SLOTS slots of tick_cycles each. A timer
 * further away than one turn stays in its slot until its tick comes round.
 * Arming, re-arming and cancelling are O(1); the poll loop pays only when a
 * tick has passed. Cheaper than rte_timer for the one-lcore engine: no
 * per-lcore lists, no atomics.
 */

#include "roce_internal.h"

void
roce_wheel_init(struct roce_wheel *w, uint64_t tick_cycles)
{
	unsigned int i;

	for (i = 0; i < ROCE_WHEEL_SLOTS; i++)
		TAILQ_INIT(&w->slot[i]);
	w->tick_cycles = tick_cycles ? tick_cycles : 1;
	w->base_tsc = rte_get_tsc_cycles();
	w->cur_tick = 0;
	w->armed = 0;
}

void
roce_timer_cancel(struct roce_wheel *w, struct roce_timer *t)
{
	if (!t->armed)
		return;
	TAILQ_REMOVE(&w->slot[t->expire_tick % ROCE_WHEEL_SLOTS], t, next);
	t->armed = false;
	w->armed--;
}

void
roce_timer_arm(struct roce_wheel *w, struct roce_timer *t, uint64_t cycles)
{
	uint64_t now = rte_get_tsc_cycles() - w->base_tsc;
	/* round up: a timer never fires early */
	uint64_t tick = (now + cycles + w->tick_cycles - 1) / w->tick_cycles;

	roce_timer_cancel(w, t);
	/* never into the tick being processed: a re-arm from a callback waits */
	if (tick <= w->cur_tick)
		tick = w->cur_tick + 1;
	t->expire_tick = tick;
	TAILQ_INSERT_TAIL(&w->slot[tick % ROCE_WHEEL_SLOTS], t, next);
	t->armed = true;
	w->armed++;
}

unsigned int
roce_wheel_run(struct roce_wheel *w, uint64_t now_tsc)
{
	uint64_t now_tick = (now_tsc - w->base_tsc) / w->tick_cycles;
	unsigned int fired = 0, steps = 0;

	if (w->armed == 0) {
		w->cur_tick = now_tick + 1;
		return 0;
	}
	while (w->cur_tick <= now_tick && w->armed > 0) {
		struct roce_timer_list *s = &w->slot[w->cur_tick % ROCE_WHEEL_SLOTS];
		struct roce_timer *t, *tn;

		for (t = TAILQ_FIRST(s); t != NULL; t = tn) {
			tn = TAILQ_NEXT(t, next);
			if (t->expire_tick > now_tick)
				continue;
			TAILQ_REMOVE(s, t, next);
			t->armed = false;
			w->armed--;
			fired++;
			t->fn(t);
			/* the callback may have re-armed or cancelled others */
			tn = TAILQ_FIRST(s);
		}
		/* after a long pause one pass over the slots is enough */
		if (++steps >= ROCE_WHEEL_SLOTS)
			w->cur_tick = now_tick;
		w->cur_tick++;
	}
	if (w->armed == 0)
		w->cur_tick = now_tick + 1;
	return fired;
}
