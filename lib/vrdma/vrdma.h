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

/** Defaults: RFC bit and class, 16 QPs, 16 CQs, MTU 1500, a locally administered MAC. */
void vrdma_conf_init(struct vrdma_conf *conf, const char *path);

/**
 * Check @p conf: the RoCE bit must be a device-specific bit not otherwise
 * offered (0-23 or 41-63), the class not one of virtio-net's own (0-5), and
 * 3 + max_cqs + 2 * max_qps rings must fit vhost-user's 256.
 * @return 0, or -EINVAL with the reason in @p err.
 */
int vrdma_conf_check(const struct vrdma_conf *conf, char *err, size_t errlen);

/** One device: a vhost-user socket. */
struct vrdma_dev;

/**
 * Register the socket and start listening. Needs EAL.
 * @return NULL with rte_errno set (EINVAL: see vrdma_conf_check(); others
 *   from rte_vhost).
 */
struct vrdma_dev *vrdma_dev_create(const struct vrdma_conf *conf);

/** Stop listening, drop the connection, free the device (NULL is ignored). */
void vrdma_dev_destroy(struct vrdma_dev *dev);

/** Features offered to the frontend. */
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

/** Fill @p info. */
void vrdma_dev_info_get(struct vrdma_dev *dev, struct vrdma_dev_info *info);

/** Ring index of completion queue @p cq. */
static inline uint32_t
vrdma_cq_ring(uint32_t cq)
{
	return VRDMA_FIRST_CQ_RING + cq;
}

/** Ring index of the send queue of QP slot @p qp on a device with @p max_cqs. */
static inline uint32_t
vrdma_sq_ring(uint32_t max_cqs, uint32_t qp)
{
	return VRDMA_FIRST_CQ_RING + max_cqs + 2 * qp;
}

/** Ring index of the receive queue of QP slot @p qp. */
static inline uint32_t
vrdma_rq_ring(uint32_t max_cqs, uint32_t qp)
{
	return vrdma_sq_ring(max_cqs, qp) + 1;
}

#ifdef __cplusplus
}
#endif

#endif /* VRDMA_H */
