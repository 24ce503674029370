/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef VRDMA_CMD_H
#define VRDMA_CMD_H

/*
 * Internal to lib/vrdma, not part of its API (vrdma.h and vrdma_abi.h are).
 *
 * The RDMA side of one device: a lib/roce device and the RFC's control
 * commands run on it. Belongs to the thread that polls the device.
 */

#include <stdint.h>

#include <rte_ether.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "roce.h"

/* User MRs: 4 KiB pages, at most this many (1 GiB; the RFC driver's 512 x 512). */
#define VRDMA_PAGE_SIZE 4096u
#define VRDMA_MAX_MR_PAGES 262144u
/* Pages all of a device's user MRs may hold (4 GiB: 16 MiB of page tables). */
#define VRDMA_MR_PAGE_BUDGET (1u << 20)
/* Largest control command: REG_USER_MR with every page. */
#define VRDMA_CTRL_MAX_IN (2u + 32u + 8u * VRDMA_MAX_MR_PAGES)

/* QPNs are ring-pair indices: fewer than 128 fit vhost-user's 256 rings. */
#define VRDMA_QP_STALE_WORDS 2

struct vrdma_rdma_conf {
	const char *name;
	struct rte_ether_addr mac;
	uint16_t mtu;
	uint32_t max_qps;          /* QPNs 0..max_qps-1: 0 unused (SMI), 1 GSI */
	uint32_t max_cqs;
	struct rte_ring *rx_ring;  /* RoCE frames from the wire */
	struct rte_ring *tx_ring;  /* RoCE frames to the wire */
	struct rte_ring *pass_ring; /* frames on rx_ring not RoCE for the device (NULL: freed) */
	struct rte_mempool *pool;
	roce_xlate_fn xlate;       /* guest-physical to host */
	void *xlate_ctx;
	uint16_t vlan_id;          /* VID of the RoCE frames, or ROCE_VLAN_NONE */
};

struct vrdma_rdma {
	struct roce_dev *dev;
	roce_xlate_fn xlate;
	void *xlate_ctx;
	struct roce_mr **mrs;        /* every MR by lkey >> 8, for remapping */
	uint32_t *mr_pages;          /* pages of each user MR (0: a DMA MR) */
	uint32_t pages;              /* pages of all user MRs, within VRDMA_MR_PAGE_BUDGET */
	uint32_t *ah_pd;             /* PD of each AH handle */
	uint32_t max_cqs;
	/*
	 * Per CQ number: completions lib/roce holds that must reach the guest's
	 * ring before an armed notification is owed no more (0: none owed).
	 */
	uint32_t *cq_owed;
	/* QPs reset or destroyed by the last command: their rings' requests are stale */
	uint64_t qp_stale[VRDMA_QP_STALE_WORDS];
	uint16_t vlan_id;            /* VID every AV gets (ROCE_VLAN_NONE: untagged) */
	uint16_t eth_mtu;            /* the Ethernet MTU lib/roce's device has now */
	uint64_t path_mtu_clamped;   /* MODIFY_QPs whose path MTU was clamped */
	/* QPs whose clamp was already said (once per QP, until it is destroyed) */
	uint64_t mtu_said[VRDMA_QP_STALE_WORDS];
	char note[160];              /* a command's remark for the log ("" when none) */
	char why[160];               /* the last refusal, for logs */
};

/* NULL with rte_errno set; @p err says why. */
struct vrdma_rdma *vrdma_rdma_create(const struct vrdma_rdma_conf *c, char *err, size_t errlen);
void vrdma_rdma_destroy(struct vrdma_rdma *r);

/*
 * Run one control command. @p in is the driver-readable part: class,
 * command, command-specific data (exactly its size). @p out receives the
 * ack byte and the ack-specific data. A refused command is answered
 * VRDMA_NET_ERR and changes nothing.
 * @return bytes written to @p out (0 when @p outcap is 0).
 */
uint32_t vrdma_cmd_exec(struct vrdma_rdma *r, const uint8_t *in, uint32_t inlen, uint8_t *out,
			uint32_t outcap);

/*
 * The Ethernet MTU RoCE may use now (the wire's changed): bounds the path
 * MTU of later MODIFY_QPs (clamped) and QPs created later. @return 0 or
 * -EINVAL (below 336).
 */
int vrdma_rdma_mtu_set(struct vrdma_rdma *r, uint16_t eth_mtu);

/* Translate every user MR again (guest memory changed). @return MRs dropped. */
unsigned int vrdma_rdma_remap(struct vrdma_rdma *r);

#endif /* VRDMA_CMD_H */
