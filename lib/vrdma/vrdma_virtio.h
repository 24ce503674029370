/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef VRDMA_VIRTIO_H
#define VRDMA_VIRTIO_H

/*
 * virtio-net and vhost-user numbers this device uses (virtio 1.2, the
 * vhost-user specification and the RoCE RFC), written out here rather than
 * taken from linux/virtio_net.h, whose bit 55 and class 6 mean other things.
 */

#include <stdint.h>

#define VRDMA_NET_F_MTU 3
#define VRDMA_NET_F_MAC 5
#define VRDMA_NET_F_STATUS 16
#define VRDMA_NET_F_CTRL_VQ 17
#define VRDMA_V_F_RING_INDIRECT_DESC 28
#define VRDMA_VU_F_PROTOCOL_FEATURES 30
#define VRDMA_V_F_VERSION_1 32

/* Feature bits 24-40 belong to the transport: a device bit lies outside. */
#define VRDMA_V_TRANSPORT_F_START 24
#define VRDMA_V_TRANSPORT_F_END 40

#define VRDMA_NET_S_LINK_UP 1

/* virtio-net's own control classes: RX, MAC, VLAN, ANNOUNCE, MQ, GUEST_OFFLOADS */
#define VRDMA_NET_CTRL_NET_CLASSES 6

/* virtio_net_config with the RFC's two fields, little-endian */
struct vrdma_net_config {
	uint8_t mac[6];
	uint16_t status;
	uint16_t max_virtqueue_pairs;
	uint16_t mtu;
	uint32_t speed;
	uint8_t duplex;
	uint8_t rss_max_key_size;
	uint16_t rss_max_indirection_table_length;
	uint32_t supported_hash_types;
	uint32_t max_rdma_qps;
	uint32_t max_rdma_cqs;
} __attribute__((packed));

/* vhost-user requests handled ahead of rte_vhost */
#define VRDMA_VU_SET_FEATURES 2
#define VRDMA_VU_GET_CONFIG 24
#define VRDMA_VU_PROTOCOL_F_CONFIG 9
#define VRDMA_VU_CONFIG_MAX 256

/* The head of rte_vhost's message as a pre-handler sees it (vhost-user wire layout). */
struct vrdma_vu_msg {
	uint32_t request;
	uint32_t flags;
	uint32_t size;
	union {
		uint64_t u64;
		struct {
			uint32_t offset;
			uint32_t size;
			uint32_t flags;
			uint8_t region[VRDMA_VU_CONFIG_MAX];
		} __attribute__((packed)) cfg;
	} payload;
} __attribute__((packed));

#define VRDMA_VU_CONFIG_HDR 12u

#endif /* VRDMA_VIRTIO_H */
