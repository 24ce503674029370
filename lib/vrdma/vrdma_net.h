/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef VRDMA_NET_H
#define VRDMA_NET_H

/*
 * Internal to lib/vrdma, not part of its API (vrdma.h and vrdma_abi.h are).
 *
 * The virtio-net queues of a device: receiveq1 takes frames from
 * the wire into the guest's buffers (mergeable when MRG_RXBUF was
 * negotiated), transmitq1 hands the guest's frames to the wire. No offload
 * is offered, so a header must ask for none.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_vhost.h>

#include "vrdma_vq.h"

#define VRDMA_NET_RXQ 0
#define VRDMA_NET_TXQ 1
/* Frames moved per queue per poll. */
#define VRDMA_NET_BURST 32
/* Receive buffers (chains) one frame may take with MRG_RXBUF. */
#define VRDMA_NET_MAX_BUFS 32

/* virtio_net_hdr_mrg_rxbuf (num_buffers only with MRG_RXBUF or VERSION_1) */
struct vrdma_net_hdr {
	uint8_t flags;
	uint8_t gso_type;
	uint16_t hdr_len;
	uint16_t gso_size;
	uint16_t csum_start;
	uint16_t csum_offset;
	uint16_t num_buffers;
} __rte_packed;

struct vrdma_net_stats {
	uint64_t rx_frames;     /* frames written to the guest */
	uint64_t rx_bytes;
	uint64_t rx_too_big;    /* frames the guest's buffers could not hold: dropped */
	uint64_t rx_bad_buf;    /* receive buffers too small for the header: returned empty */
	uint64_t tx_frames;     /* guest frames handed to the wire */
	uint64_t tx_bytes;
	uint64_t tx_refused;    /* guest frames with an offload asked for, or a bad length */
	uint64_t tx_dropped;    /* guest frames lost: the wire's ring was full */
};

struct vrdma_net {
	/* set by the device */
	struct rte_ring *rx_ring;     /* frames for the guest (NULL: receiveq not served) */
	struct rte_ring *tx_ring;     /* the guest's frames (NULL: transmitq not served) */
	struct rte_mempool *pool;
	uint32_t max_frame;           /* Ethernet frame without FCS: MTU + 14 + 4 (a VLAN tag) */
	uint32_t hdr_len;             /* 12, or 10 for a legacy driver without MRG_RXBUF */
	bool mrg;                     /* MRG_RXBUF negotiated */
	/* own state */
	struct rte_mbuf *pending;     /* a frame waiting for receive buffers */
	struct vrdma_net_stats st;
	struct vrdma_chain ch[VRDMA_NET_MAX_BUFS];
};

/*
 * Serve both queues once. Rings the guest should hear about are set in
 * @p call. @return work done.
 */
unsigned int vrdma_net_poll(struct vrdma_net *n, struct vrdma_vq *vq,
			    const struct rte_vhost_memory *mem, struct vrdma_vq_stats *vqst,
			    uint64_t *call);

/* Drop the frame waiting for buffers (the guest went away or reset). */
void vrdma_net_reset(struct vrdma_net *n);

#endif /* VRDMA_NET_H */
