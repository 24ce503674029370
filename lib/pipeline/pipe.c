/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* Pipeline runtime: rings between stages, the per-lcore loop that runs the
 * stages placed on it in turn, the staged stop, and the counters.
 */

/* rte_cpuset_t and the CPU_* macros */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include "pipeline.h"

RTE_LOG_REGISTER_DEFAULT(pipe_logtype, NOTICE);
#define PIPE_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, pipe_logtype, "pipeline: " fmt "\n", ##__VA_ARGS__)

/* One stage on one lcore. Written by that lcore only while running. */
struct pipe_worker {
	struct pipe_stats stats;
	struct pipe_stage *st;
	struct rte_ring *in;       /* NULL for the source */
	struct rte_ring *out;      /* NULL for the sink */
	struct pipe_ctx ctx;
	uint16_t pend_off;         /* held back by a full ring: burst[pend_off..+pend_n) */
	uint16_t pend_n;
	uint8_t done;              /* finished draining (release store, main reads) */
	struct rte_mbuf *burst[];  /* stage burst size */
} __rte_cache_aligned;

struct pipe_stage {
	char name[PIPE_NAME_MAX];
	pipe_stage_fn fn;
	void *arg;
	uint16_t burst;
	uint32_t ring_size;
	uint32_t flags;
	uint8_t stop;              /* set by pipe_stop(), read by the workers */
	uint16_t nb_workers;
	uint16_t lcores[PIPE_STAGE_LCORES_MAX];
	struct pipe_worker *workers[PIPE_STAGE_LCORES_MAX];
	struct rte_ring *in;       /* input ring, NULL for the source */
	struct pipe_stats retired; /* counters of workers replaced by a placement */
};

/* The stages placed on one lcore, run in stage order. */
struct pipe_lcore {
	struct pipe *p;
	unsigned int lcore_id;
	bool shared_cpu;           /* idle: give the CPU to the other threads */
	uint16_t nb_slots;
	struct pipe_worker *slots[PIPE_STAGES_MAX];
};

struct pipe {
	char name[32];
	int socket_id;
	uint32_t idle_sleep_us;
	uint32_t serial;
	bool running;
	uint16_t nb_stages;
	struct pipe_stage stages[PIPE_STAGES_MAX];
	uint16_t nb_lcores;
	struct pipe_lcore lcores[RTE_MAX_LCORE];
};

static uint32_t pipe_serial;

static void
stats_add(struct pipe_stats *sum, const struct pipe_stats *s)
{
	/* relaxed loads: the owner lcore may be writing; 64-bit loads don't tear */
	sum->bursts += __atomic_load_n(&s->bursts, __ATOMIC_RELAXED);
	sum->idle += __atomic_load_n(&s->idle, __ATOMIC_RELAXED);
	sum->pkts_in += __atomic_load_n(&s->pkts_in, __ATOMIC_RELAXED);
	sum->pkts_out += __atomic_load_n(&s->pkts_out, __ATOMIC_RELAXED);
	sum->drop_fn += __atomic_load_n(&s->drop_fn, __ATOMIC_RELAXED);
	sum->drop_ring += __atomic_load_n(&s->drop_ring, __ATOMIC_RELAXED);
	sum->stalls += __atomic_load_n(&s->stalls, __ATOMIC_RELAXED);
	sum->busy_cycles += __atomic_load_n(&s->busy_cycles, __ATOMIC_RELAXED);
}

/* Hand @n packets of w->burst from @off to the next ring. In back-pressure
 * mode what does not fit stays in the burst array as pending; otherwise it
 * is freed and counted.
 */
static inline void
emit(struct pipe_worker *w, uint16_t off, uint16_t n)
{
	unsigned int k;

	k = rte_ring_enqueue_burst(w->out, (void * const *)&w->burst[off], n, NULL);
	if (likely(k == n))
		return;
	if (w->st->flags & PIPE_STAGE_F_BACKPRESSURE) {
		w->pend_off = off + k;
		w->pend_n = n - k;
		return;
	}
	rte_pktmbuf_free_bulk(&w->burst[off + k], n - k);
	w->stats.drop_ring += n - k;
}

/* One turn of a stage on this lcore.
 * Returns 1 if it moved packets, 0 if idle, -1 once it has finished.
 */
static int
worker_step(struct pipe_worker *w)
{
	struct pipe_stage *st = w->st;
	uint64_t t0 = rte_rdtsc();
	uint16_t n, k;
	uint8_t stop;

	if (unlikely(w->pend_n != 0)) {
		uint16_t left = w->pend_n;

		/* back-pressure: no new input until the held packets are out */
		w->pend_n = 0;
		emit(w, w->pend_off, left);
		if (w->pend_n == left) {
			w->stats.stalls++;
			return 0;
		}
		w->stats.busy_cycles += rte_rdtsc() - t0;
		return 1;
	}
	/* Read the flag before polling the ring: once it is set upstream has
	 * finished, so an empty ring seen after it stays empty.
	 */
	stop = __atomic_load_n(&st->stop, __ATOMIC_ACQUIRE);
	if (w->in == NULL) {
		if (stop)
			return -1;
		n = st->fn(st->arg, w->burst, st->burst, &w->ctx);
		if (n == 0) {
			w->stats.idle++;
			return 0;
		}
		if (unlikely(n > st->burst))
			n = st->burst; /* a callback bug: never read past the array */
		w->stats.bursts++;
		w->stats.pkts_in += n;
		w->stats.pkts_out += n;
		emit(w, 0, n);
	} else {
		n = (uint16_t)rte_ring_dequeue_burst(w->in, (void **)w->burst, st->burst, NULL);
		if (n == 0) {
			if (stop)
				return -1;
			w->stats.idle++;
			return 0;
		}
		k = st->fn(st->arg, w->burst, n, &w->ctx);
		if (unlikely(k > n))
			k = n;
		w->stats.bursts++;
		w->stats.pkts_in += n;
		w->stats.pkts_out += k;
		w->stats.drop_fn += n - k;
		if (w->out != NULL && k != 0)
			emit(w, 0, k);
	}
	w->stats.busy_cycles += rte_rdtsc() - t0;
	return 1;
}

static int
lcore_loop(void *arg)
{
	struct pipe_lcore *lc = arg;
	uint32_t sleep_us = lc->p->idle_sleep_us;
	uint16_t live = lc->nb_slots, i;

	while (live > 0) {
		int work = 0;

		for (i = 0; i < lc->nb_slots; i++) {
			struct pipe_worker *w = lc->slots[i];
			int r;

			if (w->done)
				continue;
			r = worker_step(w);
			if (r < 0) {
				__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
				live--;
			} else {
				work |= r;
			}
		}
		if (!work) {
			/* A thread sharing its CPU would spin away its time slice
			 * while the thread it waits for cannot run.
			 */
			if (sleep_us != 0)
				rte_delay_us_sleep(sleep_us);
			else if (lc->shared_cpu)
				sched_yield();
			else
				rte_pause();
		}
	}
	return 0;
}

struct pipe *
pipe_create(const struct pipe_conf *conf)
{
	struct pipe *p;
	int socket = conf != NULL ? conf->socket_id : SOCKET_ID_ANY;

	p = rte_zmalloc_socket("pipe", sizeof(*p), RTE_CACHE_LINE_SIZE, socket);
	if (p == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	snprintf(p->name, sizeof(p->name), "%s",
		 conf != NULL && conf->name != NULL ? conf->name : "pipe");
	p->socket_id = socket;
	p->idle_sleep_us = conf != NULL ? conf->idle_sleep_us : 0;
	p->serial = __atomic_fetch_add(&pipe_serial, 1, __ATOMIC_RELAXED);
	return p;
}

static int
name_ok(const char *name)
{
	size_t i, len;

	if (name == NULL)
		return 0;
	len = strnlen(name, PIPE_NAME_MAX);
	if (len == 0 || len >= PIPE_NAME_MAX || (name[0] >= '0' && name[0] <= '9'))
		return 0;
	for (i = 0; i < len; i++) {
		char c = name[i];

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		      (c >= '0' && c <= '9') || c == '_'))
			return 0;
	}
	return 1;
}

int
pipe_stage_add(struct pipe *p, const struct pipe_stage_conf *conf)
{
	struct pipe_stage *st;

	if (p == NULL || conf == NULL || conf->fn == NULL || !name_ok(conf->name) ||
	    conf->burst > PIPE_BURST_MAX || conf->ring_size >= RTE_RING_SZ_MASK)
		return -EINVAL;
	if (p->running)
		return -EBUSY;
	if (pipe_stage_lookup(p, conf->name) >= 0)
		return -EEXIST;
	if (p->nb_stages == PIPE_STAGES_MAX)
		return -ENOSPC;
	st = &p->stages[p->nb_stages];
	memset(st, 0, sizeof(*st));
	snprintf(st->name, sizeof(st->name), "%s", conf->name);
	st->fn = conf->fn;
	st->arg = conf->arg;
	st->burst = conf->burst != 0 ? conf->burst : PIPE_BURST_DEFAULT;
	st->ring_size = conf->ring_size != 0 ? conf->ring_size : PIPE_RING_SIZE_DEFAULT;
	st->flags = conf->flags;
	return p->nb_stages++;
}

static int
lcore_usable(unsigned int lcore)
{
	return lcore < RTE_MAX_LCORE && rte_lcore_is_enabled(lcore) &&
	       lcore != rte_get_main_lcore();
}

/* Replace a stage's workers; their counters are kept in st->retired. */
static int
stage_place(struct pipe *p, struct pipe_stage *st, const uint16_t *lcores, uint16_t nb)
{
	struct pipe_worker *nw[PIPE_STAGE_LCORES_MAX];
	uint16_t i;

	for (i = 0; i < nb; i++) {
		nw[i] = rte_zmalloc_socket("pipe_worker", sizeof(struct pipe_worker) +
					   st->burst * sizeof(struct rte_mbuf *),
					   RTE_CACHE_LINE_SIZE, p->socket_id);
		if (nw[i] == NULL) {
			while (i-- > 0)
				rte_free(nw[i]);
			return -ENOMEM;
		}
		nw[i]->st = st;
		nw[i]->ctx.stage = (uint16_t)(st - p->stages);
		nw[i]->ctx.worker = i;
		nw[i]->ctx.nb_workers = nb;
		nw[i]->ctx.lcore_id = lcores[i];
	}
	for (i = 0; i < st->nb_workers; i++) {
		stats_add(&st->retired, &st->workers[i]->stats);
		rte_free(st->workers[i]);
	}
	memcpy(st->workers, nw, nb * sizeof(nw[0]));
	memcpy(st->lcores, lcores, nb * sizeof(lcores[0]));
	st->nb_workers = nb;
	return 0;
}

static int
check_lcores(const uint16_t *lcores, uint16_t nb)
{
	uint16_t i, j;

	if (nb == 0 || nb > PIPE_STAGE_LCORES_MAX)
		return -EINVAL;
	for (i = 0; i < nb; i++) {
		if (!lcore_usable(lcores[i]))
			return -ENODEV;
		for (j = 0; j < i; j++)
			if (lcores[j] == lcores[i])
				return -EINVAL;
	}
	return 0;
}

int
pipe_stage_set_lcores(struct pipe *p, unsigned int stage, const uint16_t *lcores,
		      uint16_t nb_lcores)
{
	int ret;

	if (p == NULL || stage >= p->nb_stages || lcores == NULL)
		return -EINVAL;
	if (p->running)
		return -EBUSY;
	ret = check_lcores(lcores, nb_lcores);
	if (ret != 0)
		return ret;
	return stage_place(p, &p->stages[stage], lcores, nb_lcores);
}

static int __rte_format_printf(3, 4)
place_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

int
pipe_place(struct pipe *p, const char *spec, char *err, size_t errlen)
{
	struct pipe_placement pl;
	int idx[PIPE_STAGES_MAX];
	uint16_t i, j;
	int ret;

	if (p == NULL)
		return -EINVAL;
	if (p->running) {
		place_fail(err, errlen, "pipeline '%s' is running", p->name);
		return -EBUSY;
	}
	ret = pipe_placement_parse(spec, &pl, err, errlen);
	if (ret != 0)
		return ret;
	/* validate everything before changing anything */
	for (i = 0; i < pl.nb_entries; i++) {
		const struct pipe_placement_entry *e = &pl.entries[i];

		idx[i] = pipe_stage_lookup(p, e->name);
		if (idx[i] < 0) {
			char names[PIPE_STAGES_MAX * PIPE_NAME_MAX] = "";
			size_t off = 0;

			for (j = 0; j < p->nb_stages; j++)
				off += snprintf(names + off, sizeof(names) - off, "%s%s",
						j ? ", " : "", p->stages[j].name);
			return place_fail(err, errlen, "unknown stage '%s' (stages: %s)",
					  e->name, names);
		}
		for (j = 0; j < e->nb_lcores; j++) {
			unsigned int l = e->lcores[j];

			if (l == rte_get_main_lcore()) {
				place_fail(err, errlen, "stage '%s': lcore %u is the main "
					   "lcore; stages run on worker lcores", e->name, l);
				return -ENODEV;
			}
			if (!lcore_usable(l)) {
				place_fail(err, errlen, "stage '%s': lcore %u is not enabled "
					   "(EAL -l/--lcores)", e->name, l);
				return -ENODEV;
			}
		}
	}
	for (j = 0; j < p->nb_stages; j++) {
		for (i = 0; i < pl.nb_entries; i++)
			if (idx[i] == j)
				break;
		if (i == pl.nb_entries)
			return place_fail(err, errlen, "stage '%s' has no lcore",
					  p->stages[j].name);
	}
	for (i = 0; i < pl.nb_entries; i++) {
		ret = stage_place(p, &p->stages[idx[i]], pl.entries[i].lcores,
				  pl.entries[i].nb_lcores);
		if (ret != 0) {
			place_fail(err, errlen, "out of memory");
			return ret;
		}
	}
	return 0;
}

/* Whether @lcore shares a CPU with another enabled lcore, or may move
 * between CPUs: a thread that can be preempted while other threads of the
 * same ring side spin on it.
 */
static bool
lcore_overcommitted(unsigned int lcore)
{
	rte_cpuset_t set = rte_lcore_cpuset(lcore), other, both;
	unsigned int l;

	if (CPU_COUNT(&set) != 1)
		return true;
	RTE_LCORE_FOREACH(l) {
		if (l == lcore)
			continue;
		other = rte_lcore_cpuset(l);
		CPU_AND(&both, &set, &other);
		if (CPU_COUNT(&both) != 0)
			return true;
	}
	return false;
}

static bool
side_overcommitted(const struct pipe_stage *st)
{
	uint16_t i;

	for (i = 0; i < st->nb_workers; i++)
		if (lcore_overcommitted(st->lcores[i]))
			return true;
	return false;
}

static int
rings_create(struct pipe *p)
{
	uint16_t s;

	for (s = 1; s < p->nb_stages; s++) {
		struct pipe_stage *prod = &p->stages[s - 1], *cons = &p->stages[s];
		char name[RTE_RING_NAMESIZE];
		unsigned int flags = RING_F_EXACT_SZ;

		if (prod->nb_workers == 1)
			flags |= RING_F_SP_ENQ;
		else if (side_overcommitted(prod))
			flags |= RING_F_MP_RTS_ENQ;
		if (cons->nb_workers == 1)
			flags |= RING_F_SC_DEQ;
		else if (side_overcommitted(cons))
			flags |= RING_F_MC_RTS_DEQ;
		/* rings are empty after a stop: recreate them for the new placement */
		rte_ring_free(cons->in);
		snprintf(name, sizeof(name), "pipe%" PRIu32 "_%u", p->serial, s);
		cons->in = rte_ring_create(name, cons->ring_size, p->socket_id, flags);
		if (cons->in == NULL) {
			PIPE_LOG(ERR, "%s: ring of stage '%s': %s", p->name, cons->name,
				 rte_strerror(rte_errno));
			return -ENOMEM;
		}
	}
	return 0;
}

/* Group the workers by lcore, in stage order. */
static void
lcores_build(struct pipe *p)
{
	uint16_t s, i, k;

	p->nb_lcores = 0;
	for (s = 0; s < p->nb_stages; s++) {
		struct pipe_stage *st = &p->stages[s];

		for (i = 0; i < st->nb_workers; i++) {
			struct pipe_worker *w = st->workers[i];
			struct pipe_lcore *lc = NULL;

			for (k = 0; k < p->nb_lcores; k++)
				if (p->lcores[k].lcore_id == st->lcores[i])
					lc = &p->lcores[k];
			if (lc == NULL) {
				lc = &p->lcores[p->nb_lcores++];
				lc->p = p;
				lc->lcore_id = st->lcores[i];
				lc->shared_cpu = lcore_overcommitted(lc->lcore_id);
				lc->nb_slots = 0;
			}
			lc->slots[lc->nb_slots++] = w;
			w->in = st->in;
			w->out = s + 1 < p->nb_stages ? p->stages[s + 1].in : NULL;
			w->pend_n = 0;
			w->done = 0;
		}
	}
}

int
pipe_start(struct pipe *p)
{
	uint16_t s, k;
	int ret;

	if (p == NULL)
		return -EINVAL;
	if (p->running)
		return -EBUSY;
	if (p->nb_stages < 2) {
		PIPE_LOG(ERR, "%s: a pipeline needs a source and a sink", p->name);
		return -EINVAL;
	}
	for (s = 0; s < p->nb_stages; s++) {
		if (p->stages[s].nb_workers == 0) {
			PIPE_LOG(ERR, "%s: stage '%s' has no lcore", p->name,
				 p->stages[s].name);
			return -EINVAL;
		}
		p->stages[s].stop = 0;
	}
	ret = rings_create(p);
	if (ret != 0)
		return ret;
	lcores_build(p);
	for (k = 0; k < p->nb_lcores; k++) {
		if (rte_eal_get_lcore_state(p->lcores[k].lcore_id) != WAIT) {
			PIPE_LOG(ERR, "%s: lcore %u is busy", p->name, p->lcores[k].lcore_id);
			return -EBUSY;
		}
	}
	for (k = 0; k < p->nb_lcores; k++) {
		ret = rte_eal_remote_launch(lcore_loop, &p->lcores[k], p->lcores[k].lcore_id);
		if (ret != 0) {
			uint16_t j, i;

			/* not after the state check, barring a race: stop what runs;
			 * the workers that never ran count as finished
			 */
			PIPE_LOG(ERR, "%s: launch on lcore %u: %d", p->name,
				 p->lcores[k].lcore_id, ret);
			for (j = k; j < p->nb_lcores; j++)
				for (i = 0; i < p->lcores[j].nb_slots; i++)
					p->lcores[j].slots[i]->done = 1;
			p->nb_lcores = k;
			p->running = true;
			pipe_stop(p);
			return -EBUSY;
		}
	}
	p->running = true;
	PIPE_LOG(DEBUG, "%s: started %u stages on %u lcores", p->name, p->nb_stages,
		 p->nb_lcores);
	return 0;
}

int
pipe_stop(struct pipe *p)
{
	uint16_t s, i, k;

	if (p == NULL || !p->running)
		return 0;
	for (s = 0; s < p->nb_stages; s++) {
		struct pipe_stage *st = &p->stages[s];

		/* every worker of the stages upstream has finished: what is in
		 * this stage's input ring is all that will ever be
		 */
		__atomic_store_n(&st->stop, 1, __ATOMIC_RELEASE);
		for (i = 0; i < st->nb_workers; i++)
			while (!__atomic_load_n(&st->workers[i]->done, __ATOMIC_ACQUIRE))
				rte_delay_us_sleep(50);
	}
	for (k = 0; k < p->nb_lcores; k++)
		rte_eal_wait_lcore(p->lcores[k].lcore_id);
	p->running = false;
	PIPE_LOG(DEBUG, "%s: stopped", p->name);
	return 0;
}

bool
pipe_running(const struct pipe *p)
{
	return p != NULL && p->running;
}

void
pipe_destroy(struct pipe *p)
{
	uint16_t s, i;

	if (p == NULL)
		return;
	pipe_stop(p);
	for (s = 0; s < p->nb_stages; s++) {
		struct pipe_stage *st = &p->stages[s];

		if (st->in != NULL) {
			struct rte_mbuf *m;
			unsigned int left = 0;

			/* never after a stop; a safety net for a start that failed */
			while (rte_ring_dequeue(st->in, (void **)&m) == 0) {
				rte_pktmbuf_free(m);
				left++;
			}
			if (left != 0)
				PIPE_LOG(WARNING, "%s: %u packets left in ring of '%s'",
					 p->name, left, st->name);
			rte_ring_free(st->in);
		}
		for (i = 0; i < st->nb_workers; i++)
			rte_free(st->workers[i]);
	}
	rte_free(p);
}

unsigned int
pipe_nb_stages(const struct pipe *p)
{
	return p != NULL ? p->nb_stages : 0;
}

int
pipe_stage_lookup(const struct pipe *p, const char *name)
{
	uint16_t s;

	if (p == NULL || name == NULL)
		return -ENOENT;
	for (s = 0; s < p->nb_stages; s++)
		if (strcmp(p->stages[s].name, name) == 0)
			return s;
	return -ENOENT;
}

const char *
pipe_stage_name(const struct pipe *p, unsigned int stage)
{
	return p != NULL && stage < p->nb_stages ? p->stages[stage].name : NULL;
}

uint16_t
pipe_stage_nb_workers(const struct pipe *p, unsigned int stage)
{
	return p != NULL && stage < p->nb_stages ? p->stages[stage].nb_workers : 0;
}

int
pipe_stage_lcore(const struct pipe *p, unsigned int stage, uint16_t worker)
{
	if (p == NULL || stage >= p->nb_stages || worker >= p->stages[stage].nb_workers)
		return -EINVAL;
	return p->stages[stage].lcores[worker];
}

struct rte_ring *
pipe_stage_ring(const struct pipe *p, unsigned int stage)
{
	return p != NULL && stage < p->nb_stages ? p->stages[stage].in : NULL;
}

int
pipe_stats_read(const struct pipe *p, unsigned int stage, int worker, struct pipe_stats *out)
{
	const struct pipe_stage *st;
	uint16_t i;

	if (p == NULL || out == NULL || stage >= p->nb_stages)
		return -EINVAL;
	st = &p->stages[stage];
	memset(out, 0, sizeof(*out));
	if (worker == PIPE_ALL_WORKERS) {
		*out = st->retired;
		for (i = 0; i < st->nb_workers; i++)
			stats_add(out, &st->workers[i]->stats);
		return 0;
	}
	if (worker < 0 || worker >= st->nb_workers)
		return -EINVAL;
	stats_add(out, &st->workers[worker]->stats);
	return 0;
}

int
pipe_stats_reset(struct pipe *p)
{
	uint16_t s, i;

	if (p == NULL)
		return -EINVAL;
	if (p->running)
		return -EBUSY;
	for (s = 0; s < p->nb_stages; s++) {
		memset(&p->stages[s].retired, 0, sizeof(p->stages[s].retired));
		for (i = 0; i < p->stages[s].nb_workers; i++)
			memset(&p->stages[s].workers[i]->stats, 0,
			       sizeof(p->stages[s].workers[i]->stats));
	}
	return 0;
}

static void
stats_line(FILE *f, const char *label, const struct pipe_stats *st)
{
	double cpp = st->pkts_in != 0 ? (double)st->busy_cycles / (double)st->pkts_in : 0;

	fprintf(f, "  %-10s in %" PRIu64 " out %" PRIu64 " drop_fn %" PRIu64
		" drop_ring %" PRIu64 " bursts %" PRIu64 " idle %" PRIu64 " stalls %"
		PRIu64 " busy_cycles %" PRIu64 " (%.1f/pkt)\n", label, st->pkts_in,
		st->pkts_out, st->drop_fn, st->drop_ring, st->bursts, st->idle, st->stalls,
		st->busy_cycles, cpp);
}

static const char *
sync_name(enum rte_ring_sync_type t)
{
	switch (t) {
	case RTE_RING_SYNC_ST: return "single";
	case RTE_RING_SYNC_MT: return "multi";
	case RTE_RING_SYNC_MT_RTS: return "multi-rts";
	case RTE_RING_SYNC_MT_HTS: return "multi-hts";
	}
	return "?";
}

void
pipe_stats_dump(const struct pipe *p, FILE *f)
{
	struct pipe_stats st;
	uint16_t s, i;

	if (p == NULL || f == NULL)
		return;
	fprintf(f, "pipeline %s: %u stages, %s\n", p->name, p->nb_stages,
		p->running ? "running" : "stopped");
	for (s = 0; s < p->nb_stages; s++) {
		const struct pipe_stage *ps = &p->stages[s];
		char label[32];

		fprintf(f, "stage %u %s: burst %u, lcores", s, ps->name, ps->burst);
		for (i = 0; i < ps->nb_workers; i++)
			fprintf(f, "%s%u", i ? "," : " ", ps->lcores[i]);
		if (ps->in != NULL)
			fprintf(f, "; input ring %u/%u (enq %s, deq %s)",
				rte_ring_count(ps->in), rte_ring_get_capacity(ps->in),
				sync_name(rte_ring_get_prod_sync_type(ps->in)),
				sync_name(rte_ring_get_cons_sync_type(ps->in)));
		fprintf(f, "%s\n", ps->flags & PIPE_STAGE_F_BACKPRESSURE ?
			"; back-pressure" : "");
		pipe_stats_read(p, s, PIPE_ALL_WORKERS, &st);
		stats_line(f, "total", &st);
		for (i = 0; ps->nb_workers > 1 && i < ps->nb_workers; i++) {
			pipe_stats_read(p, s, i, &st);
			snprintf(label, sizeof(label), "lcore %u", ps->lcores[i]);
			stats_line(f, label, &st);
		}
	}
}
