/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef VRDMA_VIRTIO_H
#define VRDMA_VIRTIO_H

/*
 * Internal to lib/vrdma, not part of its API (vrdma.h and vrdma_abi.h are).
 *
 * virtio-net and vhost-user numbers this device uses (virtio 1.2, the
 * vhost-user specification and the RoCE RFC), written out here rather than
 * taken from linux/virtio_net.h, whose bit 55 and class 6 mean other things.
 */

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>

#define VRDMA_NET_F_MTU 3
#define VRDMA_NET_F_MRG_RXBUF 15
#define VRDMA_NET_F_MAC 5
#define VRDMA_NET_F_STATUS 16
#define VRDMA_NET_F_CTRL_VQ 17
#define VRDMA_V_F_RING_INDIRECT_DESC 28
#define VRDMA_VU_F_PROTOCOL_FEATURES 30
#define VRDMA_V_F_VERSION_1 32

/* Feature bits 24-41 belong to the transport (virtio 1.3): a device bit lies outside. */
#define VRDMA_V_TRANSPORT_F_START 24
#define VRDMA_V_TRANSPORT_F_END 41

/*
 * virtio-net bits assigned upstream (virtio 1.3, Linux uapi): 0-3, 5-23,
 * DEVICE_STATS 50, VQ_NOTF_COAL 52, NOTF_COAL 53, GUEST_USO4 54, GUEST_USO6
 * 55, HOST_USO 56, HASH_REPORT 57, GUEST_HDRLEN 59, RSS 60, RSC_EXT 61,
 * STANDBY 62, SPEED_DUPLEX 63. 55 stays allowed as the RFC's RoCE bit.
 */
#define VRDMA_NET_F_ASSIGNED (0xffffffull & ~(1ull << 4)) | \
	(1ull << 50) | (0x3full << 52) | (0x1full << 59)

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
} __rte_packed;

static_assert(sizeof(struct vrdma_net_config) == 32, "virtio_net_config + RoCE: 32 bytes");
static_assert(offsetof(struct vrdma_net_config, max_rdma_qps) == 24, "max_rdma_qps at 24");

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
		} __rte_packed cfg;
	} payload;
} __rte_packed;

#define VRDMA_VU_CONFIG_HDR 12u

/*
 * Answer GET_CONFIG in place from @p cfg (vrdma_msg.c). @p msg->size is the
 * payload the frontend sent, at most sizeof(msg->payload) (rte_vhost drops
 * larger messages before any handler). A malformed request (a payload not
 * 12 + length, a read past the 256-byte region) gets the 12-byte header
 * with length 0. Returns false for such a refusal.
 */
bool vrdma_config_answer(const struct vrdma_net_config *cfg, struct vrdma_vu_msg *msg);

/* SET_FEATURES @p msg is acceptable: RoCE (@p roce_bit) requires CTRL_VQ. */
bool vrdma_features_acceptable(unsigned int roce_bit, const struct vrdma_vu_msg *msg);

#endif /* VRDMA_VIRTIO_H */
