/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _PIPELINE_H_
#define _PIPELINE_H_

/**
 * @file
 * Packet pipelines: an ordered list of stages joined by bounded rte_rings,
 * each stage run by one or more worker lcores.
 *
 *     source --ring--> stage --ring--> ... --ring--> sink
 *
 * The first stage is a source: its callback produces packets (e.g.
 * rte_eth_rx_burst()). Middle stages transform a burst in place and may drop
 * packets. The last stage is a sink: its callback consumes the burst (e.g.
 * rte_eth_tx_burst()). The library moves the bursts between rings, counts
 * what every stage took in, handed on and dropped, and stops a pipeline
 * without stranding a packet in a ring: upstream stages stop first and each
 * downstream stage runs until its input ring is empty.
 *
 * Lcore placement comes from a string such as "rx@1,work@(2-3),tx@1"
 * (pipe_placement_parse(), pipe_place()). Several stages may share an lcore,
 * which then runs them in turn, in stage order.
 *
 * Threading: the control functions (create, stage_add, place, start, stop,
 * destroy, stats_reset) run on one control thread, normally the main lcore,
 * which never runs a stage. pipe_stats_read() and pipe_stats_dump() may run
 * at any time on any thread. See doc/pipeline.md.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_mbuf.h>
#include <rte_ring.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Longest stage name plus its NUL. */
#define PIPE_NAME_MAX 16
/** Most stages in a pipeline (and entries in a placement string). */
#define PIPE_STAGES_MAX 8
/** Most lcores running one stage. */
#define PIPE_STAGE_LCORES_MAX 16
/** Largest burst of a stage. */
#define PIPE_BURST_MAX 512
/** Burst of a stage whose configuration says 0. */
#define PIPE_BURST_DEFAULT 32
/** Input ring size of a stage whose configuration says 0. */
#define PIPE_RING_SIZE_DEFAULT 1024
/** A size for error message buffers that holds every message whole. */
#define PIPE_ERR_LEN 160
/** pipe_stats_read() worker value: the sum over the stage's lcores. */
#define PIPE_ALL_WORKERS (-1)

/**
 * Stage flag: back-pressure instead of drops. When the next ring is full the
 * stage keeps the packets that did not fit, retries them on its next turn
 * and takes no new input until they are all enqueued, so a slow consumer
 * slows its producers down to the source (whose port then drops, counted by
 * the NIC as imissed). Without the flag they are freed and counted in
 * pipe_stats.drop_ring. Ignored on the sink, which has no next ring.
 */
#define PIPE_STAGE_F_BACKPRESSURE (1u << 0)

/** Where a stage callback runs. */
struct pipe_ctx {
	uint16_t stage;       /**< stage index, 0 for the source */
	uint16_t worker;      /**< index of this lcore among the stage's, 0..nb_workers-1 */
	uint16_t nb_workers;  /**< lcores running the stage */
	unsigned int lcore_id; /**< this lcore */
};

/**
 * The work of a stage on one burst.
 *
 * Source (stage 0): @p pkts is empty room for @p n packets; the callback
 * fills pkts[0..k) and returns k <= n.
 *
 * Middle stage: pkts[0..n) holds the input burst; the callback processes it,
 * moves the packets it keeps to pkts[0..k) in the order it wants them sent
 * on, frees the ones it drops, and returns k <= n.
 *
 * Sink (last stage): pkts[0..n) holds the input burst; the callback consumes
 * every packet (sends, frees) and returns the number it sent successfully;
 * the other n - k are its drops, freed by it.
 *
 * In every case the packets a callback does not return are its own: the
 * library never frees pkts[k..n). A callback must return: pipe_stop()
 * waits for it.
 *
 * @param arg
 *   The stage's pipe_stage_conf.arg.
 * @param pkts
 *   The burst.
 * @param n
 *   Packets in the burst (source: room).
 * @param ctx
 *   Which stage and which of its lcores is calling.
 * @return
 *   Packets handed on (source: produced).
 */
typedef uint16_t (*pipe_stage_fn)(void *arg, struct rte_mbuf **pkts, uint16_t n,
				  const struct pipe_ctx *ctx);

/** Configuration of a stage (pipe_stage_add()). */
struct pipe_stage_conf {
	const char *name;     /**< unique in the pipeline, [A-Za-z_][A-Za-z0-9_]*, < 16 chars */
	pipe_stage_fn fn;     /**< the work */
	void *arg;            /**< first argument of fn */
	uint16_t burst;       /**< packets per call, 1..PIPE_BURST_MAX; 0: 32 */
	uint32_t ring_size;   /**< packets the input ring holds (exactly); 0: 1024;
			       *   ignored for the source */
	uint32_t flags;       /**< PIPE_STAGE_F_* */
};

/** Configuration of a pipeline (pipe_create()). */
struct pipe_conf {
	const char *name;       /**< for logs and dumps; NULL: "pipe" */
	int socket_id;          /**< memory of the rings and workers; SOCKET_ID_ANY */
	uint32_t idle_sleep_us; /**< after a round with no work on an lcore: sleep
				 *   this long; 0: busy polling, with rte_pause(),
				 *   or sched_yield() on an lcore that shares its
				 *   CPU with another EAL lcore */
};

/**
 * Counters of a stage on one lcore, or summed over its lcores. Written by
 * that lcore only (no atomics); read at any time.
 *
 * For a stage other than the sink, after pipe_stop():
 *   next stage's pkts_in == pkts_out - drop_ring.
 * For every stage but the source: pkts_out == pkts_in - drop_fn.
 */
struct pipe_stats {
	uint64_t bursts;      /**< calls that had packets (source: produced some) */
	uint64_t idle;        /**< polls that found no packet (source: produced none) */
	uint64_t pkts_in;     /**< packets taken in (source: produced) */
	uint64_t pkts_out;    /**< packets the callback handed on (sink: sent) */
	uint64_t drop_fn;     /**< packets the callback dropped (pkts_in - pkts_out) */
	uint64_t drop_ring;   /**< packets freed because the next ring was full */
	uint64_t stalls;      /**< turns spent waiting on a full next ring
			       *   (PIPE_STAGE_F_BACKPRESSURE) */
	uint64_t busy_cycles; /**< TSC cycles of the turns that moved packets */
};

/** One stage of a parsed placement string. */
struct pipe_placement_entry {
	char name[PIPE_NAME_MAX];                /**< stage name */
	uint16_t nb_lcores;                      /**< 1..PIPE_STAGE_LCORES_MAX */
	uint16_t lcores[PIPE_STAGE_LCORES_MAX];  /**< as written, ranges expanded */
};

/** A parsed placement string. */
struct pipe_placement {
	uint16_t nb_entries;                                  /**< 1..PIPE_STAGES_MAX */
	struct pipe_placement_entry entries[PIPE_STAGES_MAX]; /**< in the string's order */
};

/** A pipeline (opaque). */
struct pipe;

/**
 * Parse a placement string. Pure function: no EAL needed.
 *
 * Grammar (no spaces):
 *
 *     spec   := entry (',' entry)*
 *     entry  := name '@' lcores
 *     lcores := item | '(' item (',' item)* ')'
 *     item   := lcore | lcore '-' lcore
 *     name   := [A-Za-z_][A-Za-z0-9_]{0,14}
 *
 * e.g. "rx@1,work@2-3,tx@1" or "rx@1,work@(2,4-5),tx@1". A stage appears
 * once; an lcore appears at most once per stage (several stages may share
 * it); lcore ids are below RTE_MAX_LCORE.
 *
 * @param spec
 *   The string.
 * @param pl
 *   Filled on success (unspecified on failure).
 * @param err
 *   On failure, one line saying where and why, e.g. "offset 9: expected a
 *   stage name, found '4' (several lcores: work@(2,4))". May be NULL.
 * @param errlen
 *   Size of @p err; PIPE_ERR_LEN holds any message whole (longer ones are
 *   truncated, always NUL-terminated).
 * @return
 *   0, or -EINVAL.
 */
int pipe_placement_parse(const char *spec, struct pipe_placement *pl, char *err,
			 size_t errlen);

/**
 * Write a placement back as a string that parses to the same placement
 * (one lcore per item, groups in parentheses).
 *
 * @param pl
 *   The placement.
 * @param buf
 *   Where to write the string.
 * @param len
 *   Size of @p buf.
 * @return
 *   The length of the string, as snprintf(); >= @p len means truncated.
 */
int pipe_placement_format(const struct pipe_placement *pl, char *buf, size_t len);

/**
 * Create an empty pipeline.
 *
 * @param conf
 *   Its configuration (copied).
 * @return
 *   The pipeline, or NULL with rte_errno set (ENOMEM).
 */
struct pipe *pipe_create(const struct pipe_conf *conf);

/**
 * Append a stage (the first added is the source, the last the sink).
 *
 * @param p
 *   The pipeline.
 * @param conf
 *   The stage (copied).
 * @return
 *   The stage index, or -EINVAL (bad name, NULL fn, burst or ring size out
 *   of range), -EEXIST (name taken), -ENOSPC (PIPE_STAGES_MAX stages),
 *   -EBUSY (running).
 */
int pipe_stage_add(struct pipe *p, const struct pipe_stage_conf *conf);

/**
 * Place a stage on lcores. Every lcore must be an enabled worker lcore
 * (not the main lcore), listed once. The stage's counters so far stay in
 * its sum (PIPE_ALL_WORKERS); the per-lcore ones start from zero.
 *
 * @param p
 *   The pipeline.
 * @param stage
 *   The stage's index.
 * @param lcores
 *   The lcore ids.
 * @param nb_lcores
 *   How many.
 * @return
 *   0, or -EINVAL, -ENODEV (an lcore not usable), -EBUSY (running).
 */
int pipe_stage_set_lcores(struct pipe *p, unsigned int stage, const uint16_t *lcores,
			  uint16_t nb_lcores);

/**
 * Parse a placement string and place every stage of the pipeline by it.
 * Every stage must appear, and only stages of the pipeline. Nothing changes
 * on failure.
 *
 * @param p
 *   The pipeline.
 * @param spec
 *   The placement string (see pipe_placement_parse()).
 * @param err
 *   On failure, one line saying why (see pipe_placement_parse()).
 * @param errlen
 *   Size of @p err.
 * @return
 *   0, or -EINVAL (syntax, unknown or missing stage), -ENODEV (an lcore is
 *   not an enabled worker lcore), -EBUSY (running).
 */
int pipe_place(struct pipe *p, const char *spec, char *err, size_t errlen);

/**
 * Create the rings and launch the stage loops on their lcores. Ring sync
 * modes follow the lcore counts: single-producer/-consumer on a side run by
 * one lcore; multi otherwise, in RTS mode (rte_ring_rts.h) when one of
 * those lcores shares a CPU with another lcore, where a preempted thread
 * would otherwise hold up the others.
 *
 * @param p
 *   The pipeline.
 * @return
 *   0, or -EINVAL (fewer than 2 stages, a stage not placed), -EBUSY (running,
 *   or an lcore is busy with other work), -ENOMEM.
 */
int pipe_start(struct pipe *p);

/**
 * Stop and drain: the source stops producing (after flushing what it
 * holds); then, stage by stage, each stage runs until its input ring is empty
 * and its upstream has finished, and stops. Returns once every lcore has
 * been joined; every packet that left the source has then reached the sink,
 * or been counted as dropped.
 *
 * @param p
 *   The pipeline.
 * @return
 *   0 (also when not running).
 */
int pipe_stop(struct pipe *p);

/**
 * @param p  The pipeline.
 * @return Whether it runs (started and not stopped).
 */
bool pipe_running(const struct pipe *p);

/**
 * Stop the pipeline if running, free its rings and memory.
 *
 * @param p  The pipeline; NULL is a no-op.
 */
void pipe_destroy(struct pipe *p);

/**
 * @param p  The pipeline.
 * @return Its number of stages.
 */
unsigned int pipe_nb_stages(const struct pipe *p);

/**
 * @param p     The pipeline.
 * @param name  A stage name.
 * @return Index of the stage called @p name, or -ENOENT.
 */
int pipe_stage_lookup(const struct pipe *p, const char *name);

/**
 * @param p      The pipeline.
 * @param stage  The stage's index.
 * @return Name of the stage, or NULL (bad index).
 */
const char *pipe_stage_name(const struct pipe *p, unsigned int stage);

/**
 * @param p      The pipeline.
 * @param stage  The stage's index.
 * @return Lcores placed on the stage (0 before placement or for a bad index).
 */
uint16_t pipe_stage_nb_workers(const struct pipe *p, unsigned int stage);

/**
 * @param p       The pipeline.
 * @param stage   The stage's index.
 * @param worker  The worker's index in the stage, 0..pipe_stage_nb_workers() - 1.
 * @return The lcore of the stage's worker, or -EINVAL.
 */
int pipe_stage_lcore(const struct pipe *p, unsigned int stage, uint16_t worker);

/**
 * The input ring of a stage, for inspection: rte_ring_count(), sync types.
 *
 * @param p      The pipeline.
 * @param stage  The stage's index.
 * @return The ring; NULL for the source, a bad index, or before the first
 *   pipe_start().
 */
struct rte_ring *pipe_stage_ring(const struct pipe *p, unsigned int stage);

/**
 * Read a stage's counters.
 *
 * @param p
 *   The pipeline.
 * @param stage
 *   The stage's index.
 * @param worker
 *   Index of one of its lcores, or PIPE_ALL_WORKERS for the sum.
 * @param st
 *   Filled with the counters.
 * @return
 *   0, or -EINVAL (bad stage or worker).
 */
int pipe_stats_read(const struct pipe *p, unsigned int stage, int worker,
		    struct pipe_stats *st);

/**
 * Zero every counter.
 *
 * @param p  The pipeline.
 * @return 0, or -EBUSY while running.
 */
int pipe_stats_reset(struct pipe *p);

/**
 * Print every stage's counters, summed and per lcore, with its placement,
 * input ring and its fill level.
 *
 * @param p  The pipeline.
 * @param f  Where to print.
 */
void pipe_stats_dump(const struct pipe *p, FILE *f);

#ifdef __cplusplus
}
#endif

#endif /* _PIPELINE_H_ */
