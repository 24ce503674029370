/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* lib/pipeline with EAL on several lcores (mapped onto whatever CPUs there
 * are): the placement parser, moving packets through source -> work -> sink
 * with exact counts and per-lcore order, several lcores per stage, ring
 * sync modes, drops on a full ring, back-pressure, stop with packets in
 * flight, and lcores shared by stages. Every test ends with the mbuf pool
 * full again.
 *
 * Callbacks run on worker lcores, where a cmocka assert (a longjmp) must not
 * happen: they record what they see in counters, checked on the main lcore.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_pause.h>

#include "pipeline.h"
#include "test_case.h"
#include "test_eal.h"
#include "test_wait.h"

#define POOL_SIZE 8191
#define MAGIC 0x50495045u
/* generous: sanitizers and other jobs on few CPUs slow the lcores down */
#define WAIT_MS (120 * 1000)

/* What a test packet carries. */
struct tpkt {
	uint32_t magic;
	uint32_t seq;        /* per source worker, from 0 */
	uint16_t src_worker;
	uint16_t mid_worker;
	uint32_t mid_seen;   /* times a middle stage saw it */
};

struct src_state {
	uint32_t quota;      /* packets per source worker; 0: unlimited */
	uint32_t produced[PIPE_STAGE_LCORES_MAX];
	uint64_t alloc_fail[PIPE_STAGE_LCORES_MAX];
};

struct mid_state {
	uint32_t drop_mod;   /* drop packets whose seq % drop_mod == 0 */
	volatile int gate;   /* when gated: spin until opened */
	int gated;
	volatile int waiting; /* set while held at the gate */
	uint32_t delay_us;   /* per burst, to make a slow stage */
	uint64_t bad[PIPE_STAGE_LCORES_MAX];
};

#define MAX_SRC PIPE_STAGE_LCORES_MAX
#define MAX_MID PIPE_STAGE_LCORES_MAX

struct sink_state {
	uint32_t delay_us;   /* per burst, to make a slow consumer */
	uint64_t received;   /* written by sink worker 0 only, read by main */
	uint64_t bad_magic;
	uint64_t order_errors;
	uint64_t dup_mid;
	int64_t last[MAX_SRC][MAX_MID];
};

static struct rte_mempool *pool;
static char runtime_dir[PATH_MAX];
static struct src_state src;
static struct mid_state mid;
static struct sink_state sink;
static struct pipe *cur;   /* the test's pipeline, destroyed by teardown_one() */
static uint32_t idle_us;   /* pipe_conf.idle_sleep_us of make3() */

static uint16_t
src_fn(void *arg, struct rte_mbuf **pkts, uint16_t n, const struct pipe_ctx *ctx)
{
	struct src_state *s = arg;
	uint32_t *produced = &s->produced[ctx->worker];
	uint16_t i;

	if (s->quota != 0 && *produced + n > s->quota)
		n = (uint16_t)(s->quota - *produced);
	if (n == 0)
		return 0;
	if (rte_pktmbuf_alloc_bulk(pool, pkts, n) != 0) {
		s->alloc_fail[ctx->worker]++;
		return 0;
	}
	for (i = 0; i < n; i++) {
		struct tpkt *t = (struct tpkt *)rte_pktmbuf_append(pkts[i], sizeof(*t));

		t->magic = MAGIC;
		t->seq = (*produced)++;
		t->src_worker = ctx->worker;
		t->mid_worker = UINT16_MAX;
		t->mid_seen = 0;
	}
	return n;
}

static uint16_t
mid_fn(void *arg, struct rte_mbuf **pkts, uint16_t n, const struct pipe_ctx *ctx)
{
	struct mid_state *s = arg;
	uint16_t i, k = 0;

	if (s->gated && !s->gate) {
		s->waiting = 1;
		while (!s->gate)
			rte_pause();
	}
	if (s->delay_us != 0)
		rte_delay_us_block(s->delay_us);
	for (i = 0; i < n; i++) {
		struct tpkt *t = rte_pktmbuf_mtod(pkts[i], struct tpkt *);

		if (t->magic != MAGIC)
			s->bad[ctx->worker]++;
		t->mid_worker = ctx->worker;
		t->mid_seen++;
		if (s->drop_mod != 0 && t->seq % s->drop_mod == 0)
			rte_pktmbuf_free(pkts[i]);
		else
			pkts[k++] = pkts[i];
	}
	return k;
}

static uint16_t
sink_fn(void *arg, struct rte_mbuf **pkts, uint16_t n, const struct pipe_ctx *ctx)
{
	struct sink_state *s = arg;
	uint16_t i;

	(void)ctx;
	if (s->delay_us != 0)
		rte_delay_us_block(s->delay_us);
	for (i = 0; i < n; i++) {
		const struct tpkt *t = rte_pktmbuf_mtod(pkts[i], const struct tpkt *);

		if (t->magic != MAGIC || t->src_worker >= MAX_SRC || t->mid_worker >= MAX_MID) {
			s->bad_magic++;
			continue;
		}
		if (t->mid_seen != 1)
			s->dup_mid++;
		/* one source lcore -> one middle lcore keeps its order */
		if ((int64_t)t->seq <= s->last[t->src_worker][t->mid_worker])
			s->order_errors++;
		s->last[t->src_worker][t->mid_worker] = t->seq;
	}
	rte_pktmbuf_free_bulk(pkts, n);
	__atomic_store_n(&s->received, s->received + n, __ATOMIC_RELEASE);
	return n;
}

static void
reset_state(void)
{
	unsigned int a, b;

	memset(&src, 0, sizeof(src));
	memset((void *)&mid, 0, sizeof(mid));
	memset(&sink, 0, sizeof(sink));
	for (a = 0; a < MAX_SRC; a++)
		for (b = 0; b < MAX_MID; b++)
			sink.last[a][b] = -1;
}

/* A source/work/sink pipeline; flags for the source and work stages. */
static struct pipe *
make3(uint32_t flags, uint32_t ring_size, uint16_t burst)
{
	struct pipe_conf pc = { .name = "t", .socket_id = SOCKET_ID_ANY,
				.idle_sleep_us = idle_us };
	struct pipe_stage_conf sc[3] = {
		{ .name = "rx", .fn = src_fn, .arg = &src, .burst = burst, .flags = flags },
		{ .name = "work", .fn = mid_fn, .arg = (void *)&mid, .burst = burst,
		  .ring_size = ring_size, .flags = flags },
		{ .name = "tx", .fn = sink_fn, .arg = &sink, .burst = burst,
		  .ring_size = ring_size },
	};
	struct pipe *p = pipe_create(&pc);
	unsigned int i;

	assert_non_null(p);
	cur = p;
	for (i = 0; i < 3; i++)
		assert_int_equal(pipe_stage_add(p, &sc[i]), (int)i);
	return p;
}

static void
destroy(struct pipe *p)
{
	pipe_destroy(p);
	cur = NULL;
}

/* After a failed test: unblock and stop its pipeline, so that the lcores
 * are free for the next test.
 */
static int
teardown_one(void **state)
{
	(void)state;
	mid.gate = 1;
	destroy(cur);
	return 0;
}

static void
place(struct pipe *p, const char *spec)
{
	char err[PIPE_ERR_LEN];
	int ret = pipe_place(p, spec, err, sizeof(err));

	if (ret != 0)
		fail_msg("pipe_place(%s): %d %s", spec, ret, err);
}

/* Packets the sink has received so far. */
static uint64_t
sink_received(void)
{
	return __atomic_load_n(&sink.received, __ATOMIC_ACQUIRE);
}

static struct pipe_stats
stats(struct pipe *p, unsigned int stage, int worker)
{
	struct pipe_stats st;

	assert_int_equal(pipe_stats_read(p, stage, worker, &st), 0);
	return st;
}

/* Between every two stages: what went out minus ring drops is what came in;
 * inside every non-source stage: in == out + drop_fn; the sink saw what it
 * counted; nothing is left in a ring; the pool is full.
 */
static void
check_conservation(struct pipe *p)
{
	unsigned int s, n = pipe_nb_stages(p);

	for (s = 0; s < n; s++) {
		struct pipe_stats st = stats(p, s, PIPE_ALL_WORKERS);

		if (s > 0) {
			struct pipe_stats up = stats(p, s - 1, PIPE_ALL_WORKERS);

			assert_int_equal(up.pkts_out - up.drop_ring, st.pkts_in);
			assert_int_equal(st.pkts_in, st.pkts_out + st.drop_fn);
			assert_int_equal(rte_ring_count(pipe_stage_ring(p, s)), 0);
		} else {
			assert_int_equal(st.pkts_in, st.pkts_out);
			assert_int_equal(st.drop_fn, 0);
		}
		if (s == n - 1)
			assert_int_equal(st.drop_ring, 0);
	}
	assert_int_equal(stats(p, n - 1, PIPE_ALL_WORKERS).pkts_in, sink.received);
	assert_int_equal(rte_mempool_avail_count(pool), POOL_SIZE);
}

static void
check_clean_sink(void)
{
	unsigned int w;

	assert_int_equal(sink.bad_magic, 0);
	assert_int_equal(sink.order_errors, 0);
	assert_int_equal(sink.dup_mid, 0);
	for (w = 0; w < MAX_MID; w++)
		assert_int_equal(mid.bad[w], 0);
}

/* ---- parser ---- */

/* Well-formed strings parse to the expected stages and lcores (shown in the
 * canonical form pipe_placement_format() writes, which parses back the same).
 */
static void
test_parse_accepts(void **state)
{
	static const struct { const char *in, *canon; } ok[] = {
		{ "rx@1,work@2-3,tx@1", "rx@1,work@(2,3),tx@1" },
		{ "rx@1,work@(2,4-5),tx@3", "rx@1,work@(2,4,5),tx@3" },
		{ "a@0", "a@0" },
		{ "rx@(1),tx@(2)", "rx@1,tx@2" },
		{ "rx@1,tx@1", "rx@1,tx@1" },
		{ "_x9@7-7", "_x9@7" },
		{ "s@(3-1)", NULL }, /* rejected: see below; NULL ends the table */
	};
	struct pipe_placement pl, again;
	char err[PIPE_ERR_LEN], buf[256];
	unsigned int i;

	(void)state;
	for (i = 0; ok[i].canon != NULL; i++) {
		if (pipe_placement_parse(ok[i].in, &pl, err, sizeof(err)) != 0)
			fail_msg("'%s' refused: %s", ok[i].in, err);
		assert_int_equal(err[0], '\0');
		assert_true(pipe_placement_format(&pl, buf, sizeof(buf)) < (int)sizeof(buf));
		assert_string_equal(buf, ok[i].canon);
		assert_int_equal(pipe_placement_parse(buf, &again, NULL, 0), 0);
		assert_memory_equal(&pl, &again, sizeof(pl));
	}
	assert_int_equal(pipe_placement_parse("rx@1,work@2-3,tx@1", &pl, NULL, 0), 0);
	assert_int_equal(pl.nb_entries, 3);
	assert_string_equal(pl.entries[1].name, "work");
	assert_int_equal(pl.entries[1].nb_lcores, 2);
	assert_int_equal(pl.entries[1].lcores[0], 2);
	assert_int_equal(pl.entries[1].lcores[1], 3);
	assert_int_equal(pl.entries[2].lcores[0], 1);
	/* the largest lcore and a full stage */
	snprintf(buf, sizeof(buf), "s@%d", RTE_MAX_LCORE - 1);
	assert_int_equal(pipe_placement_parse(buf, &pl, NULL, 0), 0);
	assert_int_equal(pipe_placement_parse("s@0-15", &pl, NULL, 0), 0);
	assert_int_equal(pl.entries[0].nb_lcores, PIPE_STAGE_LCORES_MAX);
	/* a short format buffer is truncated like snprintf */
	assert_int_equal(pipe_placement_format(&pl, buf, 4), (int)strlen("s@(0,1,2,3,4,5,6,"
		"7,8,9,10,11,12,13,14,15)"));
	assert_string_equal(buf, "s@(");
}

/* Malformed strings are refused with a message saying where and why. */
static void
test_parse_rejects(void **state)
{
	static const struct { const char *in, *msg; } bad[] = {
		{ "", "offset 0: empty placement" },
		{ "rx", "offset 2: expected '@' after stage name 'rx', found end of string" },
		{ "rx@", "offset 3: expected an lcore number, found end of string" },
		{ "rx@1,", "offset 5: expected a stage name, found end of string" },
		{ "rx@1,work@2,4", "offset 12: expected a stage name, found '4' (several "
		  "lcores of one stage go in parentheses: work@(2,4))" },
		{ "rx@1;tx@2", "offset 4: expected ',' or end of string, found ';'" },
		{ "rx@3-1", "offset 3: range 3-1 runs backwards" },
		{ "rx@1-", "offset 5: expected an lcore number" },
		{ "rx@(1,2", "offset 7: expected ',' or ')' in the lcore group, found end" },
		{ "rx@()", "offset 4: expected an lcore number, found ')'" },
		{ "rx@(1,1)", "stage 'rx': lcore 1 listed twice" },
		{ "rx@1-3,tx@2,rx@4", "offset 12: stage 'rx' placed twice" },
		{ "rx@99999999999999999999999", "offset 3: lcore 99999999999999999999 out of "
		  "range" },
		{ "rx@0-16", "stage 'rx': more than 16 lcores" },
		{ "9rx@1", "offset 0: expected a stage name, found '9'" },
		{ "r x@1", "offset 1: expected '@' after stage name 'r', found ' '" },
		{ "abcdefghijklmnop@1", "offset 0: stage name longer than 15 characters" },
		{ "a@1,b@1,c@1,d@1,e@1,f@1,g@1,h@1,i@1", "offset 32: more than 8 stages" },
		{ "rx@\x01", "found byte 0x01" },
		{ "rx@-1", "offset 3: expected an lcore number, found '-'" },
	};
	struct pipe_placement pl;
	char err[PIPE_ERR_LEN], small[8], big[32];
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(bad); i++) {
		memset(err, 'x', sizeof(err));
		assert_int_equal(pipe_placement_parse(bad[i].in, &pl, err, sizeof(err)), -EINVAL);
		if (strstr(err, bad[i].msg) == NULL)
			fail_msg("'%s': message '%s', expected '%s'", bad[i].in, err, bad[i].msg);
	}
	snprintf(big, sizeof(big), "rx@%d", RTE_MAX_LCORE);
	assert_int_equal(pipe_placement_parse(big, &pl, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "out of range 0.."));
	/* NULL and tiny message buffers are safe; the message is cut, terminated */
	assert_int_equal(pipe_placement_parse(NULL, &pl, NULL, 0), -EINVAL);
	memset(small, 'x', sizeof(small));
	assert_int_equal(pipe_placement_parse("rx@", &pl, small, sizeof(small)), -EINVAL);
	assert_string_equal(small, "offset ");
}

/* ---- runtime ---- */

/* 3 stages on 3 lcores, back-pressure: every packet arrives exactly once,
 * in order, and each stage's counters are exact; a second start continues.
 */
static void
test_three_stages_exact(void **state)
{
	const uint32_t n = 100000;
	struct pipe_stats st;
	struct pipe *p;
	unsigned int s;

	(void)state;
	reset_state();
	src.quota = n;
	p = make3(PIPE_STAGE_F_BACKPRESSURE, 256, 32);
	place(p, "rx@1,work@2,tx@3");
	assert_int_equal(pipe_start(p), 0);
	assert_true(pipe_running(p));
	assert_int_equal(pipe_start(p), -EBUSY);
	assert_int_equal(pipe_stats_reset(p), -EBUSY);
	TEST_WAIT(sink_received() >= n, WAIT_MS);
	assert_int_equal(pipe_stop(p), 0);
	assert_false(pipe_running(p));
	check_clean_sink();
	for (s = 0; s < 3; s++) {
		st = stats(p, s, PIPE_ALL_WORKERS);
		assert_int_equal(st.pkts_in, n);
		assert_int_equal(st.pkts_out, n);
		assert_int_equal(st.drop_fn + st.drop_ring, 0);
		assert_true(st.bursts >= n / 32);
		assert_true(st.busy_cycles > 0);
	}
	assert_int_equal(sink.last[0][0], n - 1);
	check_conservation(p);
	/* one lcore per side: single-producer/single-consumer rings */
	for (s = 1; s < 3; s++) {
		assert_int_equal(rte_ring_get_prod_sync_type(pipe_stage_ring(p, s)),
				 RTE_RING_SYNC_ST);
		assert_int_equal(rte_ring_get_cons_sync_type(pipe_stage_ring(p, s)),
				 RTE_RING_SYNC_ST);
		assert_int_equal(rte_ring_get_capacity(pipe_stage_ring(p, s)), 256);
	}
	/* restart: the quota grows, counters carry on */
	src.quota = 2 * n;
	assert_int_equal(pipe_start(p), 0);
	TEST_WAIT(sink_received() >= 2 * n, WAIT_MS);
	assert_int_equal(pipe_stop(p), 0);
	check_clean_sink();
	assert_int_equal(stats(p, 2, PIPE_ALL_WORKERS).pkts_out, 2 * n);
	check_conservation(p);
	assert_int_equal(pipe_stats_reset(p), 0);
	assert_int_equal(stats(p, 0, PIPE_ALL_WORKERS).pkts_in, 0);
	destroy(p);
}

/* A work stage that drops every 10th packet: drop_fn counts exactly those.
 * (Idle lcores sleep 20 us here; elsewhere they yield their shared CPUs.)
 */
static void
test_callback_drops_counted(void **state)
{
	const uint32_t n = 50000;
	struct pipe_stats st;
	struct pipe *p;

	(void)state;
	reset_state();
	src.quota = n;
	mid.drop_mod = 10;
	idle_us = 20;
	p = make3(PIPE_STAGE_F_BACKPRESSURE, 512, 64);
	idle_us = 0;
	place(p, "rx@1,work@2,tx@3");
	assert_int_equal(pipe_start(p), 0);
	TEST_WAIT(sink_received() >= n - n / 10, WAIT_MS);
	assert_int_equal(pipe_stop(p), 0);
	st = stats(p, 1, PIPE_ALL_WORKERS);
	assert_int_equal(st.pkts_in, n);
	assert_int_equal(st.drop_fn, n / 10);
	assert_int_equal(st.pkts_out, n - n / 10);
	check_clean_sink();
	check_conservation(p);
	destroy(p);
}

/* Two lcores on the source and two on the work stage, one sink: every
 * packet once, order kept per (source lcore, work lcore), per-lcore
 * counters add up to the stage's, both work lcores did work, and the rings
 * are multi-producer/-consumer where a side has several lcores (RTS, as the
 * test's lcores share CPUs), single otherwise.
 */
static void
test_multi_worker_stage(void **state)
{
	const uint32_t n = 100000;
	struct pipe_stats st, w0, w1;
	struct rte_ring *r;
	struct pipe *p;

	(void)state;
	reset_state();
	src.quota = n;
	p = make3(PIPE_STAGE_F_BACKPRESSURE, 1024, 32);
	place(p, "rx@(1,2),work@(3,4),tx@1");
	assert_int_equal(pipe_stage_nb_workers(p, 1), 2);
	assert_int_equal(pipe_stage_lcore(p, 1, 1), 4);
	assert_int_equal(pipe_stage_lcore(p, 1, 2), -EINVAL);
	assert_int_equal(pipe_start(p), 0);
	TEST_WAIT(sink_received() >= 2 * (uint64_t)n, WAIT_MS);
	assert_int_equal(pipe_stop(p), 0);
	check_clean_sink();
	assert_int_equal(src.produced[0], n);
	assert_int_equal(src.produced[1], n);
	st = stats(p, 1, PIPE_ALL_WORKERS);
	w0 = stats(p, 1, 0);
	w1 = stats(p, 1, 1);
	assert_int_equal(st.pkts_in, 2 * (uint64_t)n);
	assert_int_equal(w0.pkts_in + w1.pkts_in, st.pkts_in);
	assert_int_equal(w0.bursts + w1.bursts, st.bursts);
	assert_true(w0.pkts_in > 0 && w1.pkts_in > 0);
	assert_int_equal(pipe_stats_read(p, 1, 2, &st), -EINVAL);
	check_conservation(p);
	r = pipe_stage_ring(p, 1);
	assert_int_equal(rte_ring_get_prod_sync_type(r), RTE_RING_SYNC_MT_RTS);
	assert_int_equal(rte_ring_get_cons_sync_type(r), RTE_RING_SYNC_MT_RTS);
	r = pipe_stage_ring(p, 2);
	assert_int_equal(rte_ring_get_prod_sync_type(r), RTE_RING_SYNC_MT_RTS);
	assert_int_equal(rte_ring_get_cons_sync_type(r), RTE_RING_SYNC_ST);
	assert_null(pipe_stage_ring(p, 0));
	destroy(p);
}

/* Without back-pressure a full ring drops: the work stage is held up while
 * the source produces 20000 packets into a 64-packet ring. Drops are counted
 * at the source (at most 64 + one burst got through) and the mbufs freed.
 */
static void
test_ring_full_drops_counted(void **state)
{
	const uint32_t n = 20000;
	struct pipe_stats s0, s1;
	struct pipe *p;

	(void)state;
	reset_state();
	src.quota = n;
	mid.gated = 1;
	p = make3(0, 64, 32);
	place(p, "rx@1,work@2,tx@3");
	assert_int_equal(pipe_start(p), 0);
	/* the source is done once it has produced its quota */
	TEST_WAIT(stats(p, 0, PIPE_ALL_WORKERS).pkts_in == n, WAIT_MS);
	mid.gate = 1;
	/* the work stage may drop too, if the sink lags behind */
	TEST_WAIT(stats(p, 0, PIPE_ALL_WORKERS).drop_ring +
		  stats(p, 1, PIPE_ALL_WORKERS).drop_ring + sink_received() == n, WAIT_MS);
	assert_int_equal(pipe_stop(p), 0);
	s0 = stats(p, 0, PIPE_ALL_WORKERS);
	s1 = stats(p, 1, PIPE_ALL_WORKERS);
	assert_int_equal(s0.pkts_out, n);
	assert_true(s0.drop_ring >= n - 64 - 32);
	assert_int_equal(s1.pkts_in, n - s0.drop_ring);
	assert_true(s1.pkts_in > 0 && s1.pkts_in <= 64 + 32);
	assert_int_equal(s0.stalls, 0);
	check_clean_sink();
	check_conservation(p);
	destroy(p);
}

/* The same blocked work stage with back-pressure: nothing is dropped, the
 * source stalls instead, and every packet arrives once the way is clear.
 */
static void
test_backpressure_no_drops(void **state)
{
	const uint32_t n = 20000;
	struct pipe_stats s0;
	struct pipe *p;

	(void)state;
	reset_state();
	src.quota = n;
	mid.gated = 1;
	p = make3(PIPE_STAGE_F_BACKPRESSURE, 64, 32);
	place(p, "rx@1,work@2,tx@3");
	assert_int_equal(pipe_start(p), 0);
	/* blocked: the work stage holds a burst, its ring is full... */
	TEST_WAIT(mid.waiting && rte_ring_count(pipe_stage_ring(p, 1)) == 64, WAIT_MS);
	s0 = stats(p, 0, PIPE_ALL_WORKERS);
	/* ...and the source keeps stalling, holding back, dropping nothing */
	TEST_WAIT(stats(p, 0, PIPE_ALL_WORKERS).stalls >= s0.stalls + 100, WAIT_MS);
	assert_int_equal(rte_ring_count(pipe_stage_ring(p, 1)), 64);
	s0 = stats(p, 0, PIPE_ALL_WORKERS);
	assert_true(s0.pkts_in < n);
	assert_int_equal(s0.drop_ring, 0);
	mid.gate = 1;
	TEST_WAIT(sink_received() >= n, WAIT_MS);
	assert_int_equal(pipe_stop(p), 0);
	s0 = stats(p, 0, PIPE_ALL_WORKERS);
	assert_int_equal(s0.pkts_out, n);
	assert_int_equal(s0.drop_ring, 0);
	assert_int_equal(stats(p, 1, PIPE_ALL_WORKERS).drop_ring, 0);
	assert_int_equal(sink.received, n);
	check_clean_sink();
	check_conservation(p);
	destroy(p);
}

/* Stop with packets in flight: both rings full behind a slow sink (with
 * and without back-pressure), or the work stage slow with a fast sink (which
 * must not stop on an empty ring while the work stage still sends). The
 * stop drains: nothing left in a ring or held back, every packet accounted
 * for, the pool full.
 */
static void
test_stop_drains_in_flight(void **state)
{
	static const struct {
		uint32_t flags, sink_us, mid_us;
		unsigned int slow_ring; /* the ring that fills */
	} v[] = {
		{ 0, 50, 0, 2 },
		{ PIPE_STAGE_F_BACKPRESSURE, 50, 0, 2 },
		{ PIPE_STAGE_F_BACKPRESSURE, 0, 50, 1 },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(v); i++) {
		struct pipe *p;
		uint64_t drops;

		reset_state();
		sink.delay_us = v[i].sink_us;
		mid.delay_us = v[i].mid_us;
		p = make3(v[i].flags, 512, 32);
		place(p, "rx@1,work@2,tx@3");
		assert_int_equal(pipe_start(p), 0);
		/* packets in flight: the slow stage's ring filling up; without
		 * back-pressure, the work stage dropping on it
		 */
		TEST_WAIT(rte_ring_count(pipe_stage_ring(p, v[i].slow_ring)) >= 400 &&
			  (v[i].flags != 0 || stats(p, 1, PIPE_ALL_WORKERS).drop_ring > 0),
			  WAIT_MS);
		assert_int_equal(pipe_stop(p), 0);
		assert_true(sink.received >= 400);
		check_clean_sink();
		check_conservation(p);
		drops = stats(p, 0, PIPE_ALL_WORKERS).drop_ring +
			stats(p, 1, PIPE_ALL_WORKERS).drop_ring;
		if (v[i].flags == 0)
			assert_true(drops > 0);
		else
			assert_int_equal(drops, 0);
		destroy(p);
	}
}

/* Stages sharing lcores run in turn: all three on one lcore, with rings
 * smaller than a burst and back-pressure (the source holds what did not
 * fit and must let the others run, or it would wait forever); then work
 * split over a shared and an own lcore.
 */
static void
test_shared_lcores(void **state)
{
	const uint32_t n = 30000;
	struct pipe *p;

	(void)state;
	reset_state();
	src.quota = n;
	p = make3(PIPE_STAGE_F_BACKPRESSURE, 16, 64);
	place(p, "rx@2,work@2,tx@2");
	assert_int_equal(pipe_start(p), 0);
	TEST_WAIT(sink_received() >= n, WAIT_MS);
	assert_int_equal(pipe_stop(p), 0);
	/* bursts of 64 went through 16-packet rings in slices, none dropped */
	assert_int_equal(stats(p, 0, PIPE_ALL_WORKERS).drop_ring, 0);
	assert_true(stats(p, 1, PIPE_ALL_WORKERS).bursts >= n / 16);
	assert_int_equal(sink.last[0][0], n - 1);
	check_clean_sink();
	check_conservation(p);
	destroy(p);

	reset_state();
	src.quota = n;
	p = make3(0, 1024, 32);
	place(p, "rx@1,work@(1,3),tx@3");
	assert_int_equal(pipe_start(p), 0);
	/* drops may happen (no back-pressure): stop once the source is done */
	TEST_WAIT(stats(p, 0, PIPE_ALL_WORKERS).pkts_in == n, WAIT_MS);
	assert_int_equal(pipe_stop(p), 0);
	assert_int_equal(sink.received + stats(p, 0, PIPE_ALL_WORKERS).drop_ring +
			 stats(p, 1, PIPE_ALL_WORKERS).drop_ring, n);
	check_clean_sink();
	check_conservation(p);
	destroy(p);
}

/* Configuration errors are refused with a reason and change nothing. */
static void
test_config_errors(void **state)
{
	struct pipe_stage_conf sc = { .name = "x", .fn = src_fn, .arg = &src };
	char err[PIPE_ERR_LEN];
	uint16_t lc[2] = { 1, 1 };
	struct pipe *p;
	unsigned int i;

	(void)state;
	reset_state();
	p = make3(0, 0, 0);
	/* stage_add */
	sc.name = "rx";
	assert_int_equal(pipe_stage_add(p, &sc), -EEXIST);
	sc.name = "1x";
	assert_int_equal(pipe_stage_add(p, &sc), -EINVAL);
	sc.name = "a-b";
	assert_int_equal(pipe_stage_add(p, &sc), -EINVAL);
	sc.name = "x";
	sc.burst = PIPE_BURST_MAX + 1;
	assert_int_equal(pipe_stage_add(p, &sc), -EINVAL);
	sc.burst = 0;
	sc.fn = NULL;
	assert_int_equal(pipe_stage_add(p, &sc), -EINVAL);
	sc.fn = mid_fn;
	/* not placed yet */
	assert_int_equal(pipe_start(p), -EINVAL);
	assert_int_equal(pipe_stage_nb_workers(p, 0), 0);
	/* place: each error with its message; the placement stays as it was */
	place(p, "rx@1,work@2,tx@3");
	assert_int_equal(pipe_place(p, "rx@1,work@2,tx@3,foo@1", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "unknown stage 'foo' (stages: rx, work, tx)");
	assert_int_equal(pipe_place(p, "rx@1,work@2", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "stage 'tx' has no lcore");
	assert_int_equal(pipe_place(p, "rx@0,work@2,tx@3", err, sizeof(err)), -ENODEV);
	assert_string_equal(err, "stage 'rx': lcore 0 is the main lcore; stages run on "
			    "worker lcores");
	assert_int_equal(pipe_place(p, "rx@1,work@(2,9),tx@3", err, sizeof(err)), -ENODEV);
	assert_string_equal(err, "stage 'work': lcore 9 is not enabled (EAL -l/--lcores)");
	assert_int_equal(pipe_place(p, "rx@1,work@2,tx@", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "expected an lcore number"));
	assert_int_equal(pipe_stage_lcore(p, 1, 0), 2);
	assert_int_equal(pipe_stage_nb_workers(p, 1), 1);
	assert_int_equal(pipe_stage_set_lcores(p, 0, lc, 2), -EINVAL);
	assert_int_equal(pipe_stage_set_lcores(p, 0, lc, 0), -EINVAL);
	lc[1] = 0;
	assert_int_equal(pipe_stage_set_lcores(p, 0, lc, 2), -ENODEV);
	assert_int_equal(pipe_stage_set_lcores(p, 7, lc, 1), -EINVAL);
	lc[1] = 4;
	assert_int_equal(pipe_stage_set_lcores(p, 0, lc, 2), 0);
	assert_int_equal(pipe_stage_nb_workers(p, 0), 2);
	assert_int_equal(pipe_stage_lookup(p, "tx"), 2);
	assert_int_equal(pipe_stage_lookup(p, "nope"), -ENOENT);
	assert_string_equal(pipe_stage_name(p, 1), "work");
	assert_null(pipe_stage_name(p, 3));
	/* up to PIPE_STAGES_MAX stages */
	for (i = 3; i < PIPE_STAGES_MAX; i++) {
		char name[8];

		snprintf(name, sizeof(name), "s%u", i);
		sc.name = name;
		assert_int_equal(pipe_stage_add(p, &sc), (int)i);
	}
	sc.name = "more";
	assert_int_equal(pipe_stage_add(p, &sc), -ENOSPC);
	destroy(p);
	pipe_destroy(NULL);

	/* a lone stage is not a pipeline */
	p = pipe_create(NULL);
	cur = p;
	assert_non_null(p);
	sc.name = "only";
	assert_int_equal(pipe_stage_add(p, &sc), 0);
	place(p, "only@1");
	assert_int_equal(pipe_start(p), -EINVAL);
	destroy(p);
}

/* The dump names every stage, its lcores, ring and counters. */
static void
test_dump(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	struct pipe *p;

	(void)state;
	reset_state();
	src.quota = 1000;
	p = make3(PIPE_STAGE_F_BACKPRESSURE, 128, 32);
	place(p, "rx@1,work@(2,3),tx@4");
	assert_int_equal(pipe_start(p), 0);
	TEST_WAIT(sink_received() >= 1000, WAIT_MS);
	assert_int_equal(pipe_stop(p), 0);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	pipe_stats_dump(p, f);
	fclose(f);
	assert_non_null(strstr(buf, "pipeline t: 3 stages, stopped"));
	assert_non_null(strstr(buf, "stage 1 work: burst 32, lcores 2,3; input ring 0/128 "
			       "(enq single, deq multi-rts); back-pressure"));
	assert_non_null(strstr(buf, "  total      in 1000 out 1000 drop_fn 0 drop_ring 0"));
	assert_non_null(strstr(buf, "  lcore 3    in "));
	free(buf);
	check_conservation(p);
	destroy(p);
}

/* EAL with 5 lcores over the CPUs there are (the shared fixture starts one
 * lcore only); otherwise as test_eal_setup().
 */
static int
setup(void **state)
{
	char prefix[64];
	char *argv[] = { "test_pipeline", "--no-huge", "--no-shconf", "-m", "256",
			 "--no-pci", "--no-telemetry", "--log-level=lib.eal:warning",
			 "--lcores", "0@0,1@1,2@0,3@1,4@0", prefix, NULL };

	(void)state;
	snprintf(prefix, sizeof(prefix), "--file-prefix=pipetest-%d", (int)getpid());
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		argv[9] = "0@0,1@0,2@0,3@0,4@0";
	if (rte_eal_init((int)RTE_DIM(argv) - 1, argv) < 0) {
		fprintf(stderr, "rte_eal_init failed\n");
		return -1;
	}
	snprintf(runtime_dir, sizeof(runtime_dir), "%s", rte_eal_get_runtime_dir());
	pool = rte_pktmbuf_pool_create("pipe_pool", POOL_SIZE, 64, 0,
				       RTE_PKTMBUF_HEADROOM + 64, SOCKET_ID_ANY);
	return pool != NULL ? 0 : -1;
}

static int
teardown(void **state)
{
	(void)state;
	rte_mempool_free(pool);
	if (rte_eal_cleanup() != 0)
		return -1;
	rmdir(runtime_dir);
	return 0;
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_parse_accepts, teardown_one),
		cmocka_unit_test_teardown(test_parse_rejects, teardown_one),
		cmocka_unit_test_teardown(test_three_stages_exact, teardown_one),
		cmocka_unit_test_teardown(test_callback_drops_counted, teardown_one),
		cmocka_unit_test_teardown(test_multi_worker_stage, teardown_one),
		cmocka_unit_test_teardown(test_ring_full_drops_counted, teardown_one),
		cmocka_unit_test_teardown(test_backpressure_no_drops, teardown_one),
		cmocka_unit_test_teardown(test_stop_drains_in_flight, teardown_one),
		cmocka_unit_test_teardown(test_shared_lcores, teardown_one),
		cmocka_unit_test_teardown(test_config_errors, teardown_one),
		cmocka_unit_test_teardown(test_dump, teardown_one),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests(tests, setup, teardown);
}
