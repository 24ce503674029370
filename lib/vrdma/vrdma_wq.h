/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef VRDMA_WQ_H
#define VRDMA_WQ_H

/*
 * Internal to lib/vrdma, not part of its API (vrdma.h and vrdma_abi.h are).
 *
 * The RDMA queues of a device: send and receive queue requests
 * copied out of guest memory and posted to lib/roce, completions written
 * into the completion queues' buffers, armed CQs notified.
 */

#include <stdint.h>

#include <rte_vhost.h>

#include "vrdma.h"
#include "vrdma_abi.h"
#include "vrdma_cmd.h"
#include "vrdma_vq.h"

/* The largest request: a send queue head and ROCE_MAX_SGE SGEs. */
#define VRDMA_WQ_MAX_REQ (sizeof(struct vrdma_sq_req) + ROCE_MAX_SGE * sizeof(struct vrdma_sge))

/* Requests taken from one ring in one poll. */
#define VRDMA_WQ_BURST 32

struct vrdma_wq_stats {
	uint64_t sq_posted;     /* send requests posted to lib/roce */
	uint64_t rq_posted;     /* receive requests posted */
	uint64_t wr_refused;    /* malformed requests: completed in error, the QP in ERR */
	uint64_t wq_bad_chain;  /* SQ/RQ chains the ring reader refused: returned empty, QP in ERR */
	uint64_t cqe_written;   /* completions written to completion queue buffers */
	uint64_t cq_bad_chain;  /* completion buffers refused (readable, or under 48 bytes) */
	uint64_t cq_notified;   /* notifications of armed CQs */
	uint64_t wr_discarded;  /* requests returned unread: their QP was reset or destroyed */
};

struct vrdma_wq {
	/* set by the device before each poll */
	struct vrdma_rdma *r;
	struct vrdma_vq *vq;                /* every ring, by index */
	const struct rte_vhost_memory *mem;
	struct vrdma_vq_stats *vqst;
	uint32_t max_qps;
	uint32_t max_cqs;
	/* own state */
	struct vrdma_wq_stats st;
	uint8_t buf[VRDMA_WQ_MAX_REQ];        /* one request, copied out */
};

/*
 * Serve every QP's send and receive ring, run lib/roce, then move
 * completions to the CQ rings. Rings the guest should hear about are set
 * in @p call (a bit per ring). @return work done.
 */
unsigned int vrdma_wq_poll(struct vrdma_wq *w, uint64_t call[VRDMA_MAX_RINGS / 64]);

/*
 * Return every request waiting on QP @p qpn's rings unread (the QP was
 * reset or destroyed: IBA discards its outstanding work). @return how many.
 */
unsigned int vrdma_wq_discard(struct vrdma_wq *w, uint32_t qpn,
			      uint64_t call[VRDMA_MAX_RINGS / 64]);

#endif /* VRDMA_WQ_H */
