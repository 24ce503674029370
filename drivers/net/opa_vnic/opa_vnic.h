/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _OPA_VNIC_H_
#define _OPA_VNIC_H_

/**
 * @file
 * net_opa_vnic internals: one vdev (struct opa_vnic_dev) stacked on a
 * fabric port it owns, exposing one ethdev (struct opa_vnic_port) per VNIC
 * vport.
 *
 * Queues. VNIC TX queue q of vport p owns fabric TX queues (SDMA engines)
 * exclusively when the fabric has enough of them, and spreads flows over
 * them by entropy. Fabric RX data queue d is shared by VNIC RX queue d of
 * every vport: whichever of them polls first takes it (a trylock per
 * burst), decapsulates, keeps its own frames and hands the others' to their
 * bounded rings. The control path (an EAL alarm) polls the management
 * queue, runs the VEMA agent, and follows the fabric link.
 *
 * Counting. A frame is judged against its vport's policy (vnic_rx_frame)
 * only by that vport's own queue, so each counter block has one writer:
 * rx_stats[vport][poller] is written by poller's lcore only.
 */

#include <stdbool.h>
#include <stdint.h>

#include <ethdev_driver.h>
#include <rte_ether.h>
#include <rte_log.h>
#include <rte_mempool.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>
#include <rte_spinlock.h>

#include "opa16b_vnic.h"
#include "vema_agent.h"
#include "vnic.h"
#include "vnic_stats.h"

extern int opa_vnic_logtype;
#define OPA_VNIC_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, opa_vnic_logtype, "%s(): " fmt "\n", \
		__func__, ## __VA_ARGS__)

/** Most vports (ethdevs) per device. */
#define OPA_VNIC_MAX_VPORTS 16
/** Most RX/TX queues per vport. */
#define OPA_VNIC_MAX_QUEUES 8
/** Most fabric TX queues (SDMA engines) one VNIC TX queue spreads over. */
#define OPA_VNIC_MAX_ENGINES 8
/** Largest burst handled at once (bigger requests are split). */
#define OPA_VNIC_BURST 64
/** Unicast MACs of a port (the first is its address). */
#define OPA_VNIC_MAX_MACS 16
/** Multicast MACs of a port. */
#define OPA_VNIC_MAX_MC_MACS 128
/** Fabric descriptors per queue. */
#define OPA_VNIC_FABRIC_DESC 1024
/** Most descriptors of a VNIC RX queue: its hand-over ring, budgeted in the pool. */
#define OPA_VNIC_RX_DESC_MAX 1024

/** Per-poller counters of the fabric receive path (not a vport's). */
struct opa_vnic_fabric_rx_stats {
	uint64_t packets;			/**< fabric packets polled */
	uint64_t not_16b;			/**< not a 16B packet */
	uint64_t other_l4;			/**< 16B, neither VNIC nor FM */
	uint64_t decap[OPA16B_VNIC_RX_ERR_MAX];	/**< VNIC decap refusals */
	uint64_t mgmt;				/**< FM packets handed to control */
	uint64_t mgmt_full;			/**< FM packets dropped: ring full */
	uint64_t handed;			/**< frames handed to another vport */
} __rte_cache_aligned;

struct opa_vnic_dev;
struct opa_vnic_port;

/** A VNIC RX queue. */
struct opa_vnic_rxq {
	struct opa_vnic_port *port;
	struct opa_vnic_dev *dev;
	struct rte_ring *ring;		/**< frames handed over by other pollers */
	struct vnic_rxq_stats *st;	/**< &dev->rx_stats[vport][poller] */
	uint16_t qid;
	uint16_t poller;		/**< index among all RX queues of the device */
	int16_t fabric_q;		/**< first fabric RX queue it polls, -1 none;
					 * then every nb_rx_queues-th one */
	uint16_t fabric_rr;		/**< which of them it polls first */
	uint16_t fabric_port;
	unsigned int rcu_id;		/**< RCU reader id */
	struct opa_vnic_fabric_rx_stats fst;
};

/** A VNIC TX queue. */
struct opa_vnic_txq {
	struct opa_vnic_port *port;
	struct opa_vnic_dev *dev;
	struct vnic_txq_stats *st;	/**< &port->tx_stats[qid] */
	uint16_t qid;
	uint16_t fabric_port;
	uint16_t nb_engines;		/**< fabric TX queues it spreads over */
	uint16_t engine_q[OPA_VNIC_MAX_ENGINES]; /**< their ids */
	unsigned int rcu_id;
	uint64_t encap_copy;		/**< frames copied: buffer shared or no room */
	uint64_t encap_fail;		/**< frames dropped: no mbuf for the copy */
	uint64_t requeued;		/**< frames handed back: fabric queue full */
};

/** Baseline of the ethdev view of the counters (stats_reset). */
struct opa_vnic_ethdev_base {
	uint64_t ipackets, ibytes, ierrors, imissed;
	uint64_t opackets, obytes, oerrors;
};

/** One ethdev: a VNIC vport. */
struct opa_vnic_port {
	struct opa_vnic_dev *dev;
	struct rte_eth_dev *eth;
	struct vnic_vport *vp;		/**< owned by the agent */
	uint16_t port_id;
	uint8_t index;			/**< vport index (attr_mod) */
	bool started;
	bool link_up;			/**< as last reported */
	bool lsc_pending;		/**< start/stop changed the link: next tick tells */
	struct rte_ether_addr base_mac;	/**< EM's base MAC as last applied */
	uint16_t applied_mtu;		/**< EM's eth_mtu as last applied */
	struct opa_vnic_rxq *rxq[OPA_VNIC_MAX_QUEUES];
	struct opa_vnic_txq *txq[OPA_VNIC_MAX_QUEUES];
	struct vnic_txq_stats tx_stats[OPA_VNIC_MAX_QUEUES];
	struct rte_ether_addr mc_addrs[OPA_VNIC_MAX_MC_MACS];
	uint16_t nb_mc_addrs;
	struct opa_vnic_ethdev_base base; /**< ethdev stats baseline */
	uint64_t *xstats_base;		/**< xstats baseline */
};

/** A snapshot waiting for its grace period. */
struct opa_vnic_retired {
	struct opa_vnic_retired *next;
	struct vnic_policy *policy;
	uint64_t token;
};

/** The vdev. */
struct opa_vnic_dev {
	char name[RTE_DEV_NAME_MAX_LEN];
	struct rte_vdev_device *vdev;
	int socket;			/**< NUMA node of the vdev */
	uint16_t fabric_port;
	uint64_t owner_id;
	bool fabric_hfi1;		/**< net_hfi1: steering and port info */
	bool fabric_started;
	bool fabric_up;
	bool fabric_gone;		/**< released under us (ctl_lock) */
	bool shut;			/**< ports, control path and fabric released */
	uint32_t lid;
	uint16_t nb_vports;
	uint16_t nb_queues;		/**< per vport */
	uint16_t nb_pollers;		/**< nb_vports * nb_queues */
	uint16_t nb_fabric_rxq;		/**< data queues (shared by VNIC queue index) */
	int16_t mgmt_rxq;		/**< fabric queue of management packets, -1 none */
	uint16_t mgmt_txq;
	uint16_t nb_fabric_txq;
	uint16_t engines_per_txq;
	bool tx_shared;			/**< fabric TX queues shared: take their locks */
	rte_spinlock_t ftx_lock[RTE_MAX_QUEUES_PER_PORT];
	rte_spinlock_t frx_lock[OPA_VNIC_MAX_QUEUES];
	uint32_t ring_size;		/**< default hand-over ring size */
	uint32_t mgmt_period_us;
	struct rte_mempool *pool;
	struct rte_ring *mgmt_ring;	/**< FM packets found on data queues */
	struct vema_agent *agent;
	rte_spinlock_t ctl_lock;	/**< the one writer of vports and agent */
	bool alarm_set;
	bool ctl_stopped;		/**< control path finished: the alarm stops */
	struct rte_rcu_qsbr *qsbr;
	struct opa_vnic_retired *retired;
	/** vesw id -> vport index + 1 (0: none); bytes written one at a time */
	uint8_t vesw_map[VNIC_VESW_ID_MAX + 1];
	struct opa_vnic_port *ports[OPA_VNIC_MAX_VPORTS];
	uint16_t port_ids[OPA_VNIC_MAX_VPORTS];
	bool port_live[OPA_VNIC_MAX_VPORTS];
	/** rx_stats[vport * nb_pollers + poller] */
	struct vnic_rxq_stats *rx_stats;
	/* control path counters */
	uint64_t mgmt_rx;		/**< FM packets given to the agent */
	uint64_t mgmt_tx;		/**< replies and traps sent */
	uint64_t mgmt_tx_fail;		/**< replies and traps not sent */
	uint64_t mgmt_other;		/**< non-FM packets on the management queue */
	uint64_t retired_freed;		/**< snapshots freed after a grace period */
	uint8_t mgmt_buf[VEMA_PKT_MAX];	/**< a management packet, linear */
	uint8_t mgmt_reply[VEMA_PKT_MAX]; /**< a reply or trap */
};

static inline struct opa_vnic_port *
opa_vnic_port_of(const struct rte_eth_dev *eth)
{
	return eth->data->dev_private;
}

/* opa_vnic_ethdev.c */
int opa_vnic_link_update(struct rte_eth_dev *eth, int wait);

/* opa_vnic_rxtx.c */
uint16_t opa_vnic_rx_burst(void *rxq, struct rte_mbuf **pkts, uint16_t n);
uint16_t opa_vnic_tx_burst(void *txq, struct rte_mbuf **pkts, uint16_t n);
void opa_vnic_dispatch(struct opa_vnic_dev *dev, struct opa_vnic_rxq *q);

/* opa_vnic_ctl.c */
int opa_vnic_ctl_init(struct opa_vnic_dev *dev);
int opa_vnic_ctl_start(struct opa_vnic_dev *dev);
void opa_vnic_ctl_fini(struct opa_vnic_dev *dev);
void opa_vnic_ctl_tick(struct opa_vnic_dev *dev);
void opa_vnic_ctl_port_state(struct opa_vnic_dev *dev, struct opa_vnic_port *port);
int opa_vnic_ctl_iface_macs(struct opa_vnic_port *port);
void opa_vnic_ctl_reclaim(struct opa_vnic_dev *dev, bool wait);

#endif /* _OPA_VNIC_H_ */
