/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef VSWITCH_H
#define VSWITCH_H

/**
 * @file
 * The backend's switch: one wire (an ethdev port) and the vhost-user-rdma
 * devices, joined as an Ethernet switch by destination MAC: the devices' own
 * MACs, and the stations it learns behind each device and on the wire
 * (vsw_learn(): a guest's NIC has QEMU's MAC, not the device's).
 *
 * Three pipeline stages (lib/pipeline) run it:
 *  - ingress (source): receives from the wire, serves its devices
 *    (vrdma_dev_poll()) and takes the frames they send;
 *  - switch (middle): delivers each frame by destination MAC: to a device
 *    (RoCE v2 to its engine, the rest to its receiveq1), to every device
 *    and the wire (broadcast, multicast), or on to the wire;
 *  - egress (sink): sends to the wire.
 *
 * A frame's switch port is kept in mbuf->port between the stages:
 * VSW_WIRE, or VSW_DEV0 + i for device i.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_ether.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "pipeline.h"
#include "vrdma.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most devices (sockets) one backend serves. */
#define VSW_MAX_DEVS 32
/** Switch port of the wire. */
#define VSW_WIRE 0
/** Switch port of device 0; device i is VSW_DEV0 + i. */
#define VSW_DEV0 1
/** Stations the switch learns behind its devices. */
#define VSW_FDB_ENTRIES 4096
/** Most stations learned behind one device (a guest cannot fill the table alone). */
#define VSW_FDB_PER_DEV 256
/** Seconds after which an unseen station may be forgotten (a Linux bridge's default). */
#define VSW_FDB_AGE_S 300
/** Owner of a station table entry: a host on the wire. */
#define VSW_FDB_WIRE UINT16_MAX

/** One device as the switch sees it. */
struct vsw_dev {
	struct vrdma_dev *dev;     /**< NULL until created */
	struct rte_ether_addr mac; /**< its virtio-net MAC */
	struct rte_ring *roce_rx;  /**< RoCE v2 frames for it */
	struct rte_ring *roce_tx;  /**< frames its RoCE engine sends */
	struct rte_ring *net_rx;   /**< other frames for its guest */
	struct rte_ring *net_tx;   /**< frames its guest sends */
};

/** Where the switch sent frames (per lcore, summed by vsw_stats_get()). */
struct vsw_stats {
	uint64_t wire_rx;        /**< frames received from the wire */
	uint64_t dev_tx;         /**< frames the devices sent (RoCE and guest) */
	uint64_t to_wire;        /**< frames handed to the egress stage */
	uint64_t to_roce;        /**< frames delivered to a device's RoCE engine */
	uint64_t to_guest;       /**< frames delivered to a device's receiveq1 */
	uint64_t flooded;        /**< broadcast and multicast frames (each counted once) */
	uint64_t drop_unknown;   /**< wire frames for no device's MAC */
	uint64_t drop_self;      /**< device frames addressed to their own MAC */
	uint64_t drop_runt;      /**< frames whose first segment holds no Ethernet header */
	uint64_t drop_ring_full; /**< deliveries lost: the device's ring was full */
	uint64_t drop_no_mbuf;   /**< flood copies that got no mbuf */
	uint64_t fdb_learned;    /**< stations learned behind a device, or moved to another */
	uint64_t fdb_refused;    /**< stations not learned: table or device share full, or
				  *   the address is a wire host's */
	uint64_t wire_tx;        /**< frames the wire port took */
	uint64_t wire_tx_drop;   /**< frames the wire port refused (freed) */
	uint64_t wire_macs;      /**< addresses announced on the wire port now (the devices'
				  *   own and the stations behind them; main lcore) */
	uint64_t wire_mac_refused; /**< announcements the wire port refused (no support, full) */
};

/** How addresses are announced on the wire port (the ethdev calls; tests give their own). */
struct vsw_wire_mac_ops {
	/** Add @p mac to port @p port's MAC addresses: 0 or a negative errno. */
	int (*add)(uint16_t port, struct rte_ether_addr *mac);
	/** Remove it: 0 or a negative errno. */
	int (*remove)(uint16_t port, struct rte_ether_addr *mac);
};

/** The ethdev calls: rte_eth_dev_mac_addr_add() (pool 0) and rte_eth_dev_mac_addr_remove(). */
extern const struct vsw_wire_mac_ops vsw_wire_mac_ethdev;

/** The station a port's last frame came from, its table entry refreshed at @p at. */
struct vsw_fdb_last {
	struct rte_ether_addr src;
	uint32_t gen;            /**< sw->fdb_gen then: a move or deletion since voids it */
	uint64_t at;
};

/** The switch. */
struct vsw {
	uint16_t wire_port;      /**< ethdev port of the wire */
	uint16_t wire_rxq;       /**< rx queues: ingress worker q polls queue q */
	struct rte_mempool *pool; /**< mbufs of flood copies */
	unsigned int nb_devs;
	struct vsw_dev devs[VSW_MAX_DEVS];
	/*
	 * Stations learned from their frames' source addresses: behind the
	 * devices (a QEMU guest's NIC has its own MAC, not the device's), and
	 * on the wire (so no guest can take a wire host's address): key
	 * position -> owner (device, or VSW_FDB_WIRE) and when last seen. Read
	 * and written by the switch stage only, on its one lcore; NULL: no
	 * learning.
	 */
	struct rte_hash *fdb;
	uint16_t *fdb_dev;
	uint64_t *fdb_seen;
	uint16_t fdb_count[VSW_MAX_DEVS]; /**< stations behind each device */
	uint64_t fdb_age;        /**< TSC ticks before an unseen station may be forgotten */
	uint64_t fdb_swept;      /**< TSC of the last sweep of a full table */
	uint64_t fdb_refresh;    /**< TSC ticks a port's last station skips the table */
	uint32_t fdb_gen;        /**< bumped at every move and deletion */
	struct vsw_fdb_last fdb_last[VSW_MAX_DEVS + 1]; /**< per device, then the wire */
	uint64_t now;            /**< TSC of the switch stage's current burst */
	/*
	 * The stations behind the devices, announced on the wire port by the
	 * main lcore (vsw_wire_macs_sync()): the switch stage writes what each
	 * station table position should announce (wire_want: the MAC with
	 * VSW_WIRE_MAC_ON, or 0) and queues the position once (wire_queued) in
	 * wire_ev, which holds every position, so it never overflows; the main
	 * lcore takes positions, reads their wish and makes the port agree
	 * (wire_have: what it announced). NULL wire_ev: nothing announced.
	 */
	struct rte_ring *wire_ev;
	uint64_t *wire_want;
	uint8_t *wire_queued;
	uint64_t *wire_have;     /**< main lcore only */
	uint32_t wire_positions; /**< entries of the three arrays */
	uint64_t wire_dev_have[VSW_MAX_DEVS]; /**< the devices' own MACs announced (main) */
	const struct vsw_wire_mac_ops *wire_ops;
	bool wire_unsupported;   /**< the port took no address (-ENOTSUP): stop asking */
	bool wire_full;          /**< the port's table is full: ask again after a removal */
	bool wire_said_other;    /**< another refusal was logged */
	struct {
		struct vsw_stats st;
		uint64_t turn;   /* ingress calls: which device goes first */
	} __rte_cache_aligned lcore[RTE_MAX_LCORE];
};

/**
 * Make the station table (learning on).
 * @param sw
 *   The switch.
 * @param name
 *   Unique name of its rte_hash.
 * @return 0, or a negative errno.
 */
int vsw_fdb_create(struct vsw *sw, const char *name);

/** Free the station table (none is fine). */
void vsw_fdb_free(struct vsw *sw);

/** vsw.wire_want bit: the position's station is behind a device (announce it). */
#define VSW_WIRE_MAC_ON (1ull << 48)

/**
 * Announce the devices' MACs on the wire port now, and the stations the
 * switch learns behind them from then on (vsw_wire_macs_sync()). Call it
 * from the main lcore before the pipeline starts, after vsw_fdb_create()
 * (without a station table only the devices' MACs are announced).
 * @param sw
 *   The switch (wire_port and devices set).
 * @param ops
 *   How (&vsw_wire_mac_ethdev on a real port).
 * @param name
 *   Unique name of the event ring.
 * @return 0, or -ENOMEM.
 */
int vsw_wire_macs_start(struct vsw *sw, const struct vsw_wire_mac_ops *ops, const char *name);

/**
 * Make the wire port's addresses follow the stations learned or forgotten
 * since the last call, at most @p budget of them (main lcore; the switch
 * stage keeps running). A port without support (-ENOTSUP) or with a full
 * table is fine (it is promiscuous): the refusal is counted
 * (wire_mac_refused) and logged once.
 * @return Positions handled (0: nothing new).
 */
unsigned int vsw_wire_macs_sync(struct vsw *sw, unsigned int budget);

/**
 * Remove every address announced and free the event ring (main lcore,
 * after the pipeline stopped and before the port closes).
 */
void vsw_wire_macs_stop(struct vsw *sw);

/**
 * Learn a frame's source address behind the switch port it came from
 * (unicast only; the devices' own MACs are fixed). A device may hold at most
 * VSW_FDB_PER_DEV stations, and may not take an address a wire host used
 * within the ageing time; a full table forgets the stations unseen that
 * long (one sweep a second at most).
 * @param sw
 *   The switch.
 * @param m
 *   A frame with an Ethernet header in its first segment.
 * @param port
 *   Its switch port: VSW_WIRE or VSW_DEV0 + device.
 * @param st
 *   Counters of the calling lcore.
 */
void vsw_learn(struct vsw *sw, const struct rte_mbuf *m, uint16_t port, struct vsw_stats *st);

/** What the switch does with one frame (vsw_classify()). */
enum vsw_verdict {
	VSW_TO_WIRE,      /**< a device's frame for an address not here */
	VSW_TO_ROCE,      /**< RoCE v2 (UDP 4791) for device @p dev (its MAC or a station
			   *   learned behind it; also a device's RoCE to its own MAC) */
	VSW_TO_GUEST,     /**< anything else for device @p dev */
	VSW_FLOOD,        /**< broadcast or multicast: every other port */
	VSW_DROP_UNKNOWN, /**< a wire frame for no device */
	VSW_DROP_SELF,    /**< a device's frame, not RoCE, for itself or a station behind it */
	VSW_DROP_RUNT,    /**< shorter than an Ethernet header (in its first segment) */
};

/**
 * Decide where one frame goes. Reads the frame, the devices' MACs and the
 * stations learned behind them.
 * @param sw
 *   The switch.
 * @param m
 *   The frame; m->port is its switch port.
 * @param[out] dev
 *   With VSW_TO_ROCE and VSW_TO_GUEST: the device's index.
 * @return The verdict.
 */
enum vsw_verdict vsw_classify(const struct vsw *sw, struct rte_mbuf *m, unsigned int *dev);

/**
 * @param m
 *   A frame.
 * @return true if it is IPv4 or IPv6 (optionally VLAN tagged) UDP to port
 *   4791: a RoCE v2 frame, for lib/roce to judge further.
 */
bool vsw_is_roce_v2(const struct rte_mbuf *m);

/** Stage "ingress" (source); arg is the struct vsw. */
uint16_t vsw_ingress(void *arg, struct rte_mbuf **pkts, uint16_t n, const struct pipe_ctx *ctx);
/** Stage "switch" (middle); arg is the struct vsw. */
uint16_t vsw_switch(void *arg, struct rte_mbuf **pkts, uint16_t n, const struct pipe_ctx *ctx);
/** Stage "egress" (sink); arg is the struct vsw. */
uint16_t vsw_egress(void *arg, struct rte_mbuf **pkts, uint16_t n, const struct pipe_ctx *ctx);

/**
 * Sum the per-lcore counters.
 * @param sw
 *   The switch.
 * @param st
 *   Filled on return.
 */
void vsw_stats_get(const struct vsw *sw, struct vsw_stats *st);

/**
 * Print the switch's counters and each device's state and non-zero
 * counters.
 * @param sw
 *   The switch.
 * @param f
 *   Where.
 */
void vsw_stats_dump(const struct vsw *sw, FILE *f);

/**
 * Serve the counters over DPDK telemetry (dpdk-telemetry.py):
 * /vhost_user_rdma/stats (the switch), /vhost_user_rdma/devs (device
 * numbers) and /vhost_user_rdma/dev,ID (a device and its RoCE engine).
 * @param sw
 *   The switch (read by telemetry's thread until vsw_telemetry_detach()).
 * @return 0, or -EEXIST when the commands are taken.
 */
int vsw_telemetry_register(struct vsw *sw);

/**
 * Read a device number (telemetry's `/vhost_user_rdma/dev,ID` parameter): 1 to
 * 5 decimal digits, nothing else, below @p nb_devs.
 * @return 0 with @p id set, or -EINVAL.
 */
int vsw_parse_dev_id(const char *s, unsigned int nb_devs, unsigned int *id);

/** Stop serving @p sw to telemetry (before its devices are destroyed). */
void vsw_telemetry_detach(void);

#ifdef __cplusplus
}
#endif

#endif /* VSWITCH_H */
