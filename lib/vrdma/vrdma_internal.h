/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef VRDMA_INTERNAL_H
#define VRDMA_INTERNAL_H

/*
 * Internal to lib/vrdma, not part of its API (vrdma.h and vrdma_abi.h are).
 *
 * The device object and what its three parts share. vrdma_dev.c configures,
 * creates and destroys devices; vrdma_vhost.c holds rte_vhost's callbacks
 * (connections, messages, ring readiness); vrdma_poll.c serves a device
 * from its polling lcore.
 */

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <rte_log.h>
#include <rte_spinlock.h>
#include <rte_vhost.h>

#include "vrdma.h"
#include "vrdma_cmd.h"
#include "vrdma_net.h"
#include "vrdma_virtio.h"
#include "vrdma_vq.h"
#include "vrdma_wq.h"

extern int vrdma_logtype;
#define VRDMA_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, vrdma_logtype, "vrdma: " fmt "\n", ##__VA_ARGS__)

struct vrdma_dev {
	TAILQ_ENTRY(vrdma_dev) next;
	struct vrdma_conf conf;
	char path[PATH_MAX];
	uint64_t features;            /* offered */
	struct vrdma_net_config config; /* little-endian, as sent */
	/* below: written by rte_vhost's thread, read by anyone, under lock */
	pthread_mutex_t lock;
	struct vrdma_dev_info info;
	/*
	 * The serving state, owned by whoever holds poll_lock: the polling
	 * lcore (trylock, never waits) or rte_vhost's thread while a message
	 * changes memory or rings (from the pre-handler to the post-handler).
	 */
	rte_spinlock_t poll_lock;
	bool msg_holds;               /* rte_vhost's thread holds poll_lock */
	int vid;
	bool roce;
	struct rte_vhost_memory *mem; /* guest memory (rte_vhost's copy) */
	struct vrdma_rdma *rdma;
	struct vrdma_vq vq[VRDMA_MAX_RINGS];
	struct vrdma_vq_stats vqst;
	uint64_t ctrl_ok, ctrl_refused, ctrl_bad_chain, rdma_resets, mrs_lost;
	uint64_t rx_unserved;         /* wire frames dropped: no guest queue to take them */
	uint64_t path_mtu_clamped;    /* MODIFY_QP path MTUs clamped to the ceiling */
	uint16_t wire_mtu;            /* the wire's MTU (atomic; 0: not told) */
	struct roce_dev_stats engine_past; /* counters of the engines destroyed so far */
	uint64_t resume[VRDMA_MAX_RINGS / 64]; /* rings to restart after SET_MEM_TABLE */
	bool calling;                 /* the poller is notifying the guest (outside the lock) */
	uint8_t *ctrl_buf;            /* a command copied out of guest memory */
	struct vrdma_wq wq;           /* the RDMA queues */
	struct vrdma_net net;         /* the virtio-net queues */
};

/* ---------------- vrdma_dev.c ---------------- */

/*
 * The device whose socket serves connection @p vid, or NULL. Only for
 * rte_vhost's callbacks: the device stays valid while one runs, since
 * vrdma_dev_destroy() waits for them (rte_vhost_driver_unregister()).
 */
struct vrdma_dev *vrdma_dev_of_vid(int vid);

/* The Ethernet MTU RoCE may use: conf.mtu bounded by the wire's, 336 at least. */
uint16_t vrdma_dev_roce_mtu(struct vrdma_dev *d);

/* ---------------- vrdma_vhost.c ---------------- */

/* rte_vhost's connection and ring callbacks of every device's socket. */
extern const struct rte_vhost_device_ops vrdma_vhost_ops;

/* ---------------- vrdma_poll.c (the caller holds poll_lock) ---------------- */

/* Destroy every RDMA object (a new, empty lib/roce device when @p connected). */
void vrdma_dev_rdma_reset(struct vrdma_dev *d, bool connected);

/* Forget the frontend: every RDMA object, ring and mapping goes. */
void vrdma_dev_disconnect(struct vrdma_dev *d);

#endif /* VRDMA_INTERNAL_H */
