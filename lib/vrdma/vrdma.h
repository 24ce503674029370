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

#ifdef __cplusplus
extern "C" {
#endif

/** The RFC's feature bit for RoCE (VIRTIO_NET_F_ROCE); upstream: GUEST_USO6. */
#define VRDMA_ROCE_BIT_RFC 55
/** The RFC's control class for RoCE; upstream: VIRTIO_NET_CTRL_NOTF_COAL. */
#define VRDMA_CTRL_CLASS_RFC 6
/** vhost-user's ring ceiling in DPDK 22.11 (VHOST_MAX_VRING). */
#define VRDMA_MAX_RINGS 256
/** Rings before the completion queues: net rx, net tx, control. */
#define VRDMA_FIRST_CQ_RING 3

/** Device configuration; vrdma_conf_init() fills the defaults. */
struct vrdma_conf {
	const char *path;        /**< vhost-user socket (server mode) */
	unsigned int roce_bit;   /**< feature bit offered for RoCE */
	unsigned int ctrl_class; /**< control-queue class of the RoCE commands */
	uint32_t max_qps;        /**< max_rdma_qps: send/receive ring pairs */
	uint32_t max_cqs;        /**< max_rdma_cqs: completion rings */
	uint16_t mtu;            /**< virtio-net mtu (VIRTIO_NET_F_MTU) */
	struct rte_ether_addr mac; /**< virtio-net mac (VIRTIO_NET_F_MAC) */
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
 * doc/vrdma.md); the class not one of virtio-net's own (0-5); and
 * 3 + max_cqs + 2 * max_qps rings must fit vhost-user's 256.
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
};

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
