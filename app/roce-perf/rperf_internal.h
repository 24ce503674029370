/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _RPERF_INTERNAL_H_
#define _RPERF_INTERNAL_H_

/* Shared by rperf.c (set-up, wire, results) and rperf_traffic.c (the modes' step functions). */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <omni_bytes.h>

#include "rperf.h"

extern int rperf_logtype;
#define RPERF_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, rperf_logtype, "roce-perf: " fmt "\n", ##__VA_ARGS__)

/*
 * Each direction's ring: the requester window (128 PSNs a QP) fills it only
 * with many QPs, and the engine never builds more than its tx ring takes.
 */
#define RING_SIZE 512
#define DEV_RING_PORTS 64       /* rx ring of a device fed by rte_eth_rx_burst instead */
#define POOL_CACHE 256
#define BURST 32
#define AREA_BUDGET (8u << 20)  /* bytes of one "in" or "out" area of a QP */
#define LAT_CAP (1u << 22)      /* latency samples kept (reservoir beyond) */
#define PORT_DESC 1024
#define PORT_PEND 256           /* frames a port did not take yet */
#define LINK_WAIT_MS 5000
#define SEQ_BITS 48
#define SEQ_MASK ((UINT64_C(1) << SEQ_BITS) - 1)
#define GOLDEN UINT64_C(0x9e3779b97f4a7c15)

enum { A, B };

struct wire {
	uint64_t seed;
	struct rte_mbuf *held;      /* reordered: goes after the next frame */
	struct rperf_wire_stats st;
};

struct qpx {
	struct roce_qp *qp;
	uint64_t posted;            /* send WRs posted: seq of the next */
	uint64_t completed;         /* send WRs known complete */
	uint64_t rposted;           /* receive WRs posted */
	uint64_t received;          /* messages delivered (receive completions, stamps) */
	uint64_t t0;                /* latency: start of the iteration in flight */
	bool waiting;               /* latency: an iteration in flight */
};

struct run;

struct ep {
	struct run *run;
	int side;
	const char *name;
	struct roce_dev *dev;
	struct rte_ring *rx;        /* the device's rings */
	struct rte_ring *tx;
	struct rte_ring *out;       /* wire stage: the peer's rx ring; NULL: none */
	bool carry;                 /* a wire stage or a port moves tx frames */
	bool port;
	uint16_t port_id;
	uint16_t npend;
	struct rte_mbuf *pend[PORT_PEND];
	struct wire w;
	struct roce_pd *pd;
	struct roce_cq *scq;
	struct roce_cq *rcq;
	struct roce_mr *mr;
	uint8_t *mem;
	uint64_t mem_len;
	uint32_t lkey;
	uint32_t rkey;
	bool done;
	void (*step)(struct ep *e);
	struct qpx q[RPERF_QPS_MAX];
};

struct run {
	const struct rperf_conf *c;
	struct ep ep[2];
	struct rte_mempool *pool;
	uint32_t stride;            /* bytes between slots */
	uint32_t nslots;            /* slots per area */
	uint32_t depth;             /* send WRs in flight per QP */
	uint32_t rx_depth;          /* receives posted per QP */
	uint32_t sig;               /* every sig-th send WR is signaled */
	uint8_t timeout;
	bool inject;
	uint64_t target;            /* messages per QP; UINT64_MAX: until the time is up */
	uint64_t hz;
	uint64_t stall;             /* cycles */
	uint64_t t_first;           /* first post */
	uint64_t t_last;            /* last completion */
	uint64_t t_end;             /* duration over */
	uint64_t last_progress;
	bool stopping;              /* post no more (time up or stop) */
	bool interrupted;
	int client_done;            /* A finished: B drains and stops */
	int abort;                  /* a failure: every loop stops */
	int err_taken;
	char err[RPERF_ERR_LEN];
	uint64_t verified;          /* by A and B (each only by its own lcore) */
	uint64_t verified_b;
	/* latency samples, TSC cycles of a whole round trip */
	uint64_t *lat;
	uint64_t lat_n;
	uint64_t lat_seen;
	uint64_t lat_min;
	uint64_t lat_max;
	uint64_t lat_sum;
	uint64_t lat_rng;
};

struct lc {
	struct run *run;
	struct ep *ep[2];
	unsigned int nb;
	unsigned int lcore;
};

/* rperf.c: checks, data patterns, slots, completions, the wire */
void __rte_format_printf(2, 3)
rp_fail(struct run *run, const char *fmt, ...);
bool
rp_aborted(const struct run *run);
uint64_t
rp_pat_base(int side, uint32_t qi, uint64_t tag);
void
rp_pat_fill(uint8_t *p, uint32_t len, uint64_t w);
bool
rp_check_data(struct run *run, const char *who, const uint8_t *p, uint32_t len, int side,
	   uint32_t qi, uint64_t tag, uint64_t seq);
uint8_t *
rp_slot(const struct ep *e, uint32_t qi, bool out, uint64_t seq);
uint64_t
rp_slot_iova(const struct ep *e, uint32_t qi, bool out, uint64_t seq);
void
rp_lat_add(struct run *run, uint64_t cycles);
const char *
rp_wc_opcode_str(uint8_t op);
bool
rp_wc_ok(struct ep *e, const struct roce_wc *wc);
int
rp_cq_poll(struct ep *e, struct roce_cq *cq, struct roce_wc *wc);
void
rp_ep_poll(struct ep *e);
/* rperf_traffic.c: posting, the modes' steps, the lcore loop */
bool
rp_post_recvs(struct ep *e, uint32_t qi, uint32_t depth, bool with_buffer);
int
rp_lcore_main(void *arg);

void
rp_bw_client_step(struct ep *a);
void
rp_bw_server_step(struct ep *b);
void
rp_lat_client_step(struct ep *a);
void
rp_lat_server_step(struct ep *b);

#endif /* _RPERF_INTERNAL_H_ */
