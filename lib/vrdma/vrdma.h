/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef VRDMA_H
#define VRDMA_H

/**
 * @file
 * A virtio-net device with RoCE queues (the virtio-net RoCE RFC), served over
 * vhost-user with rte_vhost: one device per socket. This layer owns the
 * device contract: the offered features (the RoCE bit is configurable,
 * because upstream virtio gave bit 55 to GUEST_USO6), the configuration
 * space answered to GET_CONFIG, the queue map, and the per-ring readiness
 * the engine is driven from (rte_vhost's new_device may never fire).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The RFC's feature bit for RoCE (VIRTIO_NET_F_ROCE); upstream: GUEST_USO6. */
#define VRDMA_ROCE_BIT_RFC 55
/** The RFC's control class for RoCE; upstream: VIRTIO_NET_CTRL_NOTF_COAL. */
#define VRDMA_CTRL_CLASS_RFC 6
/** vhost-user's ring ceiling in DPDK 22.11 (VHOST_MAX_VRING). */
#define VRDMA_MAX_RINGS 256
/** Smallest MTU: a RoCE frame with a 256-byte payload (IB MTU 256 + 80). */
#define VRDMA_MIN_MTU 336
/** Rings before the completion queues: net rx, net tx, control. */
#define VRDMA_FIRST_CQ_RING 3
/** vrdma_conf.vlan_id: the RoCE frames are untagged. */
#define VRDMA_VLAN_NONE 0xffff

/** Device configuration; vrdma_conf_init() fills the defaults. */
struct vrdma_conf {
	const char *path;        /**< vhost-user socket (server mode) */
	unsigned int roce_bit;   /**< feature bit offered for RoCE */
	unsigned int ctrl_class; /**< control-queue class of the RoCE commands */
	uint32_t max_qps;        /**< max_rdma_qps: send/receive ring pairs */
	uint32_t max_cqs;        /**< max_rdma_cqs: completion rings */
	uint16_t mtu;            /**< virtio-net mtu (VIRTIO_NET_F_MTU) */
	struct rte_ether_addr mac; /**< virtio-net mac (VIRTIO_NET_F_MAC) */
	struct rte_ring *roce_rx;  /**< RoCE v2 frames for the device, from the wire (required);
				    *   those not for its GIDs go on to net_rx (a guest's own
				    *   RoCE stack), or are freed without it */
	struct rte_ring *roce_tx;  /**< RoCE v2 frames the device sends to the wire (required) */
	struct rte_mempool *pool;  /**< mbufs of the frames the device builds (required) */
	struct rte_ring *net_rx;   /**< other frames for the guest, from the wire
				    *   (NULL: receiveq1 not served) */
	struct rte_ring *net_tx;   /**< frames the guest sends (NULL: transmitq1 not served) */
	/**
	 * 802.1Q VID of the RoCE frames the device builds (0..4094; 0: priority
	 * tagged), or VRDMA_VLAN_NONE (untagged, the default). Tagged frames
	 * carry the traffic class's top 3 bits as their PCP. With a VID set, the
	 * engine takes RoCE frames for its GIDs untagged or tagged with VID 0 or
	 * this VID, and drops (counts) those of another VID.
	 */
	uint16_t vlan_id;
};

/**
 * Fill @p conf with the defaults: RFC bit and class, 16 QPs, 16 CQs, MTU
 * 1500, a locally administered MAC.
 * @param conf
 *   Configuration to fill.
 * @param path
 *   Socket path, kept by reference until vrdma_dev_create() copies it.
 */
void vrdma_conf_init(struct vrdma_conf *conf, const char *path);

/**
 * Check a configuration. The RoCE bit must be a device bit (not 24-41)
 * that virtio-net does not assign (55, the RFC's, excepted: see
 * doc/vrdma.md); the class not one of virtio-net's own (0-5);
 * 3 + max_cqs + 2 * max_qps rings must fit vhost-user's 256, with at least
 * 3 QP slots (QPN 0 is SMI, unused in RoCE; 1 is GSI) and one CQ; the MTU
 * must carry a 256-byte RoCE payload (336); the VLAN is 0..4094 or
 * VRDMA_VLAN_NONE; the RoCE wire rings and pool
 * are required, and with a net transmit ring the pool's mbufs must hold a
 * header and a frame of the MTU in one segment.
 * @param conf
 *   Configuration to check.
 * @param err
 *   Receives the reason of a refusal.
 * @param errlen
 *   Size of @p err.
 * @return 0, or -EINVAL.
 */
int vrdma_conf_check(const struct vrdma_conf *conf, char *err, size_t errlen);

/** One device: a vhost-user socket. */
struct vrdma_dev;

/**
 * Register the socket and start listening. Needs EAL.
 * @param conf
 *   Device configuration (copied).
 * @return The device, or NULL with rte_errno set: EINVAL (see
 *   vrdma_conf_check()), ENOMEM, or EIO when rte_vhost refuses the socket.
 */
struct vrdma_dev *vrdma_dev_create(const struct vrdma_conf *conf);

/**
 * Stop listening, drop the connection, free the device (NULL is ignored).
 * Never call it from an rte_vhost callback: it waits for them to finish.
 * @param dev
 *   Device to destroy.
 */
void vrdma_dev_destroy(struct vrdma_dev *dev);

/**
 * Bound the device's RoCE path MTU by the wire's MTU, which may change at run
 * time (a net_opa_vnic port's is its vesw's eth_mtu, set by the EM). The
 * ceiling becomes the largest IB MTU within min(conf.mtu, @p wire_mtu) - 80
 * (256 at least): a MODIFY_QP asking for a larger path MTU is clamped to it
 * (counted in path_mtu_clamped, logged once per QP), QPs created from then
 * on get it, and QUERY_QP reports the path MTU in use. QPs already past
 * INIT keep theirs. Any thread may call it; the device's polling lcore
 * applies it at its next poll (the control commands run there).
 * @param dev
 *   A device.
 * @param wire_mtu
 *   The wire's MTU (rte_eth_dev_get_mtu()).
 * @return The ceiling's path MTU code (1..5: 256..4096 bytes).
 */
int vrdma_dev_wire_mtu_set(struct vrdma_dev *dev, uint16_t wire_mtu);

/**
 * @param dev
 *   A device.
 * @return The features offered to the frontend.
 */
uint64_t vrdma_dev_features(const struct vrdma_dev *dev);

/** A snapshot of a device's state and counters. */
struct vrdma_dev_info {
	int vid;                  /**< connection's vhost id, -1 when none */
	uint64_t features;        /**< negotiated features (0 before SET_FEATURES) */
	bool roce;                /**< RoCE negotiated */
	uint64_t ready[VRDMA_MAX_RINGS / 64]; /**< rings ready (bit per ring) */
	uint64_t connections;     /**< frontends that connected */
	uint64_t config_reads;    /**< GET_CONFIG answered */
	uint64_t config_refused;  /**< GET_CONFIG malformed (answered empty) */
	uint64_t features_refused; /**< SET_FEATURES refused (RoCE without CTRL_VQ) */
	uint64_t ring_changes;    /**< ring readiness changes */
	uint64_t ctrl_ok;         /**< RoCE control commands answered VIRTIO_NET_OK */
	uint64_t ctrl_refused;    /**< control commands answered VIRTIO_NET_ERR (any class) */
	uint64_t ctrl_bad_chain;  /**< control chains refused before reading a command */
	uint64_t vq_bad_index;    /**< rings stopped: avail index or head out of range */
	uint64_t vq_bad_desc;     /**< chains with a bad next, loop, or bad indirect table */
	uint64_t vq_bad_addr;     /**< chains naming memory outside the guest's */
	uint64_t vq_too_long;     /**< chains longer than the device takes */
	uint64_t mrs_lost;        /**< MRs dropped: a page vanished from guest memory */
	uint64_t rx_unserved;     /**< wire frames dropped: no driver, or receiveq1 not ready */
	uint64_t rdma_resets;     /**< RDMA state destroyed (disconnect, reset) */
	uint64_t sq_posted;       /**< send queue requests posted */
	uint64_t rq_posted;       /**< receive queue requests posted */
	uint64_t wr_refused;      /**< malformed SQ/RQ requests: completed with LOC_QP_OP_ERR, QP in ERR */
	uint64_t wq_bad_chain;    /**< SQ/RQ chains without a readable request: QP in ERR */
	uint64_t cqe_written;     /**< completions written to completion queue buffers */
	uint64_t cq_bad_chain;    /**< completion buffers refused (readable part, under 48 bytes) */
	uint64_t cq_notified;     /**< armed CQs signalled */
	uint64_t wr_discarded;    /**< SQ/RQ requests returned unread: their QP was reset or destroyed */
	uint64_t net_rx_frames;   /**< frames written to the guest's receive buffers */
	uint64_t net_rx_bytes;    /**< bytes of those frames */
	uint64_t net_rx_too_big;  /**< frames the guest's receive buffers could not hold: dropped */
	uint64_t net_rx_bad_buf;  /**< receive buffers too small for the virtio-net header */
	uint64_t net_tx_frames;   /**< guest frames handed to net_tx */
	uint64_t net_tx_bytes;    /**< bytes of those frames */
	uint64_t net_tx_refused;  /**< guest frames asking for an offload, too short or too long */
	uint64_t net_tx_dropped;  /**< guest frames lost: net_tx full */
	uint64_t path_mtu_clamped; /**< MODIFY_QP path MTUs above the ceiling, clamped to it */
	uint8_t path_mtu;         /**< the path MTU ceiling now (1..5: 256..4096 bytes) */
};

/**
 * Serve the device once: run the control commands the driver queued, take
 * the send and receive queues' requests, run the RoCE engine and write
 * completions to the completion queues. Call it from one lcore per device; it never blocks (it
 * returns 0 at once while rte_vhost is changing the device) and notifies
 * the guest after dropping its lock.
 * @param dev
 *   A device.
 * @return Work done (0: nothing to do).
 */
unsigned int vrdma_dev_poll(struct vrdma_dev *dev);

struct roce_dev_stats;

/**
 * The counters of the device's RoCE engine (lib/roce's, as named there:
 * packets, retransmissions, drops by reason, rx_passed...), since the
 * device was created: the engine is replaced at each connection and reset,
 * and its counters carried over. Waits a little for the device's poll,
 * never longer (a message being handled may hold the device).
 * @param dev
 *   A device.
 * @param st
 *   Filled on success.
 * @return 0, or -EBUSY when the device stayed busy.
 */
int vrdma_dev_engine_stats(struct vrdma_dev *dev, struct roce_dev_stats *st);

/**
 * Take a consistent snapshot of a device's state.
 * @param dev
 *   A device.
 * @param info
 *   Filled on return.
 */
void vrdma_dev_info_get(struct vrdma_dev *dev, struct vrdma_dev_info *info);

/**
 * @param cq
 *   Completion queue number.
 * @return Its ring index.
 */
static inline uint32_t
vrdma_cq_ring(uint32_t cq)
{
	return VRDMA_FIRST_CQ_RING + cq;
}

/**
 * @param max_cqs
 *   The device's max_rdma_cqs.
 * @param qp
 *   QP slot.
 * @return The ring index of the slot's send queue.
 */
static inline uint32_t
vrdma_sq_ring(uint32_t max_cqs, uint32_t qp)
{
	return VRDMA_FIRST_CQ_RING + max_cqs + 2 * qp;
}

/**
 * @param max_cqs
 *   The device's max_rdma_cqs.
 * @param qp
 *   QP slot.
 * @return The ring index of the slot's receive queue.
 */
static inline uint32_t
vrdma_rq_ring(uint32_t max_cqs, uint32_t qp)
{
	return vrdma_sq_ring(max_cqs, qp) + 1;
}

#ifdef __cplusplus
}
#endif

#endif /* VRDMA_H */
