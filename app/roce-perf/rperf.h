/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _RPERF_H_
#define _RPERF_H_

/**
 * @file
 * The engine of roce-perf, also linked by the perf_roce benchmark: two
 * lib/roce endpoints in one process, A (the requester, which measures) and
 * B (the responder), each device polled by its own lcore (or both by one),
 * joined by rte_rings (A's tx ring is B's rx ring and the other way round),
 * by a wire stage that loses, reorders and duplicates frames, or by two
 * ethdev ports. One call runs one measurement: set-up, connection, traffic,
 * data checks, counters, teardown.
 */

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "roce.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most QPs of a run. */
#define RPERF_QPS_MAX 64
/** Longest failure text. */
#define RPERF_ERR_LEN 256
/** Ethernet MTU = path MTU + this (headers, ICRC; see roce_dev_conf.mtu). */
#define RPERF_MTU_OVERHEAD 80

/** What is measured (as perftest's ib_*_bw and ib_*_lat). */
enum rperf_mode {
	RPERF_SEND_BW,
	RPERF_WRITE_BW,
	RPERF_READ_BW,
	RPERF_SEND_LAT,
	RPERF_WRITE_LAT,
	RPERF_READ_LAT,
	RPERF_MODE_MAX,
};

/** How the two devices' frames travel. */
enum rperf_wire_kind {
	RPERF_WIRE_RING,  /**< rte_rings in the process (a wire stage with injection) */
	RPERF_WIRE_PORTS, /**< two ethdev ports, A on ports[0], B on ports[1] */
};

/** A run's configuration; rperf_conf_init() fills the defaults. */
struct rperf_conf {
	enum rperf_mode mode;
	uint32_t size;              /**< message bytes */
	uint64_t iters;             /**< messages per QP; 0: run for duration seconds */
	double duration;            /**< seconds, when iters is 0 */
	uint32_t qps;               /**< QP pairs (lat modes: 1) */
	uint32_t mtu;               /**< path MTU bytes: 256, 512, 1024, 2048, 4096 */
	uint32_t tx_depth;          /**< send WRs in flight per QP */
	uint32_t rx_depth;          /**< receive WRs posted per QP */
	/**
	 * Message buffers per QP and direction; message seq uses buffer
	 * seq % buffers. 0: one per WR in flight, so no two messages in flight
	 * share one. 1: every message uses the same buffer, as perftest's
	 * ib_*_bw do (the smallest working set).
	 */
	uint32_t buffers;
	uint32_t loss_pm;           /**< frames lost, per mille (each direction) */
	uint32_t reorder_pm;        /**< frames held back behind the next one, per mille */
	uint32_t dup_pm;            /**< frames duplicated, per mille */
	uint64_t seed;              /**< of the injection PRNG */
	bool verify;                /**< check every message, not only the buffers at the end */
	uint8_t timeout;            /**< IBA local ACK timeout code (4.096 us << code), 1..31 */
	uint8_t retry_cnt;          /**< 0..7 (7: for ever) */
	enum rperf_wire_kind wire;
	uint16_t ports[2];          /**< RPERF_WIRE_PORTS: A's and B's port */
	unsigned int lcore[2];      /**< A's and B's lcore; the same: one lcore runs both */
	double stall_secs;          /**< fail when nothing completes for this long */
	volatile sig_atomic_t *stop; /**< optional: turns true to end the run early (a signal) */
	FILE *log;                  /**< counters and notes (NULL: silent) */
};

/** Frames through one direction of the wire stage. */
struct rperf_wire_stats {
	uint64_t carried;
	uint64_t lost;
	uint64_t reordered;
	uint64_t duplicated;
	uint64_t full;              /**< dropped: the next ring or port was full */
};

/** What a run measured. */
struct rperf_result {
	bool ok;                    /**< no failed completion, no data mismatch, no stall */
	bool interrupted;           /**< ended early by conf.stop */
	char err[RPERF_ERR_LEN];    /**< why not ok */
	uint64_t msgs;              /**< messages completed (all QPs) */
	uint64_t bytes;
	double secs;                /**< first post to last completion */
	double gbps;                /**< 10^9 bits per second */
	double mbps;                /**< 10^6 bytes per second */
	double mmsgs;               /**< 10^6 messages per second */
	/* latency modes: microseconds; send/write one way (RTT / 2), read the whole READ */
	uint64_t lat_samples;
	double lat_min, lat_p50, lat_p99, lat_p999, lat_max, lat_avg;
	uint64_t verified;          /**< messages whose data was checked one by one */
	uint64_t checked_slots;     /**< buffers checked at the end */
	uint32_t buffers;           /**< message buffers per QP and direction */
	uint64_t buffer_bytes;      /**< their bytes (the working set of one side's data) */
	uint64_t delivered;         /**< messages B saw complete (SEND, WRITE with imm) */
	struct rperf_wire_stats wire[2]; /**< A->B and B->A */
	struct roce_dev_stats dev[2];
	unsigned int mbufs_free;    /**< in the pool after teardown */
	unsigned int mbufs;         /**< pool size */
};

/** Defaults for @p mode (perftest's where it has one). */
void rperf_conf_init(struct rperf_conf *c, enum rperf_mode mode);

/** "send_bw", ... */
const char *rperf_mode_name(enum rperf_mode m);

/** The mode called @p s, or -1. */
int rperf_mode_parse(const char *s);

/** Whether a mode measures latency. */
static inline bool
rperf_mode_is_lat(enum rperf_mode m)
{
	return m >= RPERF_SEND_LAT;
}

/**
 * Check a configuration against the engine's limits and the lcores and
 * ports of EAL. @return 0, or -EINVAL with a sentence in @p err.
 */
int rperf_conf_check(const struct rperf_conf *c, char *err, size_t errlen);

/**
 * Run one measurement; EAL must be up and the calling thread must be the
 * main lcore. The lcores of conf.lcore other than the caller's are
 * launched (rte_eal_remote_launch) and joined before it returns.
 *
 * @return
 *   0 when the run was ok (r->ok), -1 otherwise (r->err says why).
 */
int rperf_run(const struct rperf_conf *c, struct rperf_result *r);

#ifdef __cplusplus
}
#endif

#endif /* _RPERF_H_ */
