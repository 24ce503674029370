/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _VNIC_STATS_H_
#define _VNIC_STATS_H_

/**
 * @file
 * VNIC counters with the EM's counting rules.
 *
 * Each queue has its own struct vnic_txq_stats / vnic_rxq_stats, written by
 * one lcore without atomics; readers sum them with vnic_stats_sum(). Rules:
 * byte counters add 4 bytes of FCS per frame; the size buckets use the frame
 * length without FCS against thresholds shifted by 4 (64 = up to 60 bytes,
 * 65-127 = 61..123, ... 1519-max = 1515 and up); unicast/multicast and
 * VLAN/untagged are counted for good frames only. Dropped frames are counted
 * in their reason only (no bytes; Linux added 24 bytes of header to them).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>

#include <omni_bytes.h>

#include "vnic.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Frame-size buckets, named by their FCS-inclusive ranges. */
enum vnic_size_bucket {
	VNIC_SIZE_64 = 0,    /**< up to 64 */
	VNIC_SIZE_65_127,    /**< 65-127 */
	VNIC_SIZE_128_255,   /**< 128-255 */
	VNIC_SIZE_256_511,   /**< 256-511 */
	VNIC_SIZE_512_1023,  /**< 512-1023 */
	VNIC_SIZE_1024_1518, /**< 1024-1518 */
	VNIC_SIZE_1519_MAX,  /**< 1519 and up */
	VNIC_SIZE_BUCKETS    /**< number of buckets */
};

/** Per-direction group counters (good frames). */
struct vnic_grp_stats {
	uint64_t unicast;                    /**< unicast destination */
	uint64_t mcastbcast;                 /**< multicast or broadcast */
	uint64_t untagged;                   /**< no VLAN tag */
	uint64_t vlan;                       /**< VLAN tagged */
	uint64_t size[VNIC_SIZE_BUCKETS];    /**< by enum vnic_size_bucket */
};

/** One transmit queue's counters. */
struct vnic_txq_stats {
	uint64_t packets;       /**< frames sent */
	uint64_t bytes;         /**< their bytes, FCS included */
	struct vnic_grp_stats grp; /**< classes and sizes */
	uint64_t dlid_zero;     /**< dropped: no DLID */
	uint64_t drop_state;    /**< dropped: vport not forwarding */
	uint64_t fifo;          /**< dropped: no room on the fabric port */
	uint64_t carrier;       /**< dropped: fabric port down */
	uint64_t oversize;      /**< dropped: over MTU + 18 */
} __rte_cache_aligned;

/** One receive queue's counters. */
struct vnic_rxq_stats {
	uint64_t packets;       /**< frames received */
	uint64_t bytes;         /**< their bytes, FCS included */
	struct vnic_grp_stats grp; /**< classes and sizes */
	uint64_t drop_state;    /**< dropped: vport not forwarding */
	uint64_t runt;          /**< dropped: under 60 bytes */
	uint64_t oversize;      /**< dropped: over MTU + 18 */
	uint64_t fifo;          /**< dropped: no mbuf or ring full */
	uint64_t bad_veswid;    /**< dropped: no vport for the vesw id */
} __rte_cache_aligned;

/** The EM's view: summary and error counters of one vport. */
struct vnic_counters {
	/* summary */
	uint64_t tx_errors;      /**< fifo + carrier + drop_state + dlid_zero + oversize */
	uint64_t rx_errors;      /**< fifo + bad_veswid + drop_state + oversize + runt */
	uint64_t tx_packets;     /**< good frames sent */
	uint64_t rx_packets;     /**< good frames received */
	uint64_t tx_bytes;       /**< FCS included */
	uint64_t rx_bytes;       /**< FCS included */
	struct vnic_grp_stats tx; /**< transmit classes and sizes */
	struct vnic_grp_stats rx; /**< receive classes and sizes */
	/* errors */
	uint64_t tx_smac_filt;   /**< always 0 (no source-MAC filter) */
	uint64_t tx_dlid_zero;   /**< no DLID */
	uint64_t tx_logic;       /**< fifo + carrier */
	uint64_t tx_drop_state;  /**< not forwarding */
	uint64_t tx_oversize;    /**< over MTU + 18 (ours: not in the EM's MAD) */
	uint64_t rx_bad_veswid;  /**< unknown vesw id */
	uint64_t rx_runt;        /**< under 60 bytes */
	uint64_t rx_oversize;    /**< over MTU + 18 */
	uint64_t rx_eth_down;    /**< always 0 (counted as drop_state) */
	uint64_t rx_drop_state;  /**< not forwarding */
	uint64_t rx_logic;       /**< fifo */
};

/**
 * The size bucket of a frame.
 *
 * @param len
 *   Frame length without FCS.
 * @return
 *   Its bucket.
 */
static inline enum vnic_size_bucket
vnic_size_bucket(uint32_t len)
{
	if (len >= 1515)
		return VNIC_SIZE_1519_MAX;
	if (len >= 1020)
		return VNIC_SIZE_1024_1518;
	if (len >= 508)
		return VNIC_SIZE_512_1023;
	if (len >= 252)
		return VNIC_SIZE_256_511;
	if (len >= 124)
		return VNIC_SIZE_128_255;
	if (len >= 61)
		return VNIC_SIZE_65_127;
	return VNIC_SIZE_64;
}

/**
 * Count one good frame in a group.
 *
 * @param g
 *   The group.
 * @param cls
 *   The frame's class.
 * @param len
 *   Frame length without FCS.
 */
static inline void
vnic_grp_count(struct vnic_grp_stats *g, const struct vnic_frame_class *cls, uint32_t len)
{
	if (cls->mcast)
		g->mcastbcast++;
	else
		g->unicast++;
	if (cls->vlan)
		g->vlan++;
	else
		g->untagged++;
	g->size[vnic_size_bucket(len)]++;
}

/**
 * Count a frame sent.
 *
 * @param q
 *   The queue's counters.
 * @param cls
 *   The frame's class.
 * @param len
 *   Frame length without FCS.
 */
static inline void
vnic_txq_count(struct vnic_txq_stats *q, const struct vnic_frame_class *cls, uint32_t len)
{
	q->packets++;
	q->bytes += len + RTE_ETHER_CRC_LEN;
	vnic_grp_count(&q->grp, cls, len);
}

/**
 * Count a frame received.
 *
 * @param q
 *   The queue's counters.
 * @param cls
 *   The frame's class.
 * @param len
 *   Frame length without FCS.
 */
static inline void
vnic_rxq_count(struct vnic_rxq_stats *q, const struct vnic_frame_class *cls, uint32_t len)
{
	q->packets++;
	q->bytes += len + RTE_ETHER_CRC_LEN;
	vnic_grp_count(&q->grp, cls, len);
}

/** What the policy says about a frame to transmit. */
enum vnic_tx_verdict {
	VNIC_TX_SEND = 0,   /**< send it with the decided fields */
	VNIC_TX_DROP_STATE, /**< the vport is not forwarding */
	VNIC_TX_OVERSIZE,   /**< longer than MTU + 18 */
	VNIC_TX_DLID_ZERO,  /**< no DLID for its destination */
};

/**
 * Decide a frame's fate and, when it is to be sent, its 16B fields, without
 * counting anything: for a host that counts only once the fabric port took
 * the packet (vnic_txq_count()) or the drop (vnic_txq_count_drop()).
 *
 * @param p
 *   The policy.
 * @param frame
 *   The Ethernet frame (no FCS).
 * @param len
 *   Its length.
 * @param hash
 *   Its flow hash.
 * @param f
 *   Filled with the 16B fields when the verdict is VNIC_TX_SEND.
 * @param vl
 *   Filled with the VL then (may be NULL).
 * @param cls
 *   Filled with the frame's class then (for vnic_txq_count()).
 * @return
 *   The verdict.
 */
enum vnic_tx_verdict vnic_tx_decide(const struct vnic_policy *p, const void *frame,
				    uint32_t len, uint32_t hash, struct opa16b_vnic_fields *f,
				    uint8_t *vl, struct vnic_frame_class *cls);

/**
 * vnic_tx_decide() for a frame without a NIC's flow hash: the flow hash is
 * vnic_flow_hash(), computed in the same walk over the headers as the class.
 *
 * @param p
 *   The policy.
 * @param frame
 *   The Ethernet frame (no FCS).
 * @param len
 *   Its length.
 * @param f
 *   Filled with the 16B fields when the verdict is VNIC_TX_SEND.
 * @param vl
 *   Filled with the VL then (may be NULL).
 * @param cls
 *   Filled with the frame's class then (for vnic_txq_count()).
 * @return
 *   The verdict.
 */
enum vnic_tx_verdict vnic_tx_decide_flow(const struct vnic_policy *p, const void *frame,
					 uint32_t len, struct opa16b_vnic_fields *f,
					 uint8_t *vl, struct vnic_frame_class *cls);

/**
 * Count a frame dropped by a verdict.
 *
 * @param q
 *   The queue's counters.
 * @param v
 *   A verdict other than VNIC_TX_SEND.
 */
static inline void
vnic_txq_count_drop(struct vnic_txq_stats *q, enum vnic_tx_verdict v)
{
	if (v == VNIC_TX_DROP_STATE)
		q->drop_state++;
	else if (v == VNIC_TX_OVERSIZE)
		q->oversize++;
	else
		q->dlid_zero++;
}

/**
 * Transmit one frame through the policy, counting it: a vport that is not
 * forwarding drops it (drop_state), a frame over MTU + 18 drops (oversize),
 * no DLID drops it (dlid_zero), else its 16B fields are decided and it
 * counts as sent (vnic_tx_decide() with the counting). Pad frames shorter than 60
 * bytes first, as the encap does, so that they count as 60.
 *
 * @param p
 *   The policy.
 * @param q
 *   The queue's counters.
 * @param frame
 *   The Ethernet frame (no FCS).
 * @param len
 *   Its length.
 * @param hash
 *   Its flow hash (vnic_flow_hash() or an RSS hash).
 * @param f
 *   Filled with the 16B fields when sent.
 * @param vl
 *   Filled with the VL when sent (may be NULL).
 * @return
 *   true to send, false when dropped (and counted).
 */
bool vnic_tx_frame(const struct vnic_policy *p, struct vnic_txq_stats *q, const void *frame,
		   uint32_t len, uint32_t hash, struct opa16b_vnic_fields *f, uint8_t *vl);

/**
 * Receive one decapsulated frame, counting it: a vport that is not
 * forwarding drops it (drop_state), then frames under 60 bytes (runt) and
 * over MTU + 18 (oversize); else it counts as received.
 *
 * @param p
 *   The policy.
 * @param q
 *   The queue's counters.
 * @param frame
 *   The Ethernet frame (no FCS).
 * @param len
 *   Its length.
 * @return
 *   true to deliver, false when dropped (and counted).
 */
static inline bool
vnic_rx_frame(const struct vnic_policy *p, struct vnic_rxq_stats *q, const void *frame,
	      uint32_t len)
{
	const uint8_t *b = frame;
	struct vnic_frame_class cls = { 0 };
	uint16_t type;

	if (!vnic_forwarding(p)) {
		q->drop_state++;
		return false;
	}
	if (len < OPA16B_VNIC_ETH_ZLEN) {
		q->runt++;
		return false;
	}
	if (len > (uint32_t)p->vesw.eth_mtu + OPA16B_VNIC_ETH_OVERHEAD) {
		q->oversize++;
		return false;
	}
	/* The receive counters need only what the first 14 bytes say (len is
	 * at least 60 here): no L3 parse, which only TX needs for RC. Inline:
	 * it runs once per received frame.
	 */
	cls.mcast = b[0] & 1;
	type = omni_get_be16(b + 12);
	cls.vlan = type == RTE_ETHER_TYPE_VLAN || type == RTE_ETHER_TYPE_QINQ;
	vnic_rxq_count(q, &cls, len);
	return true;
}

/**
 * Sum per-queue counters into the EM's summary and error view.
 *
 * @param txq
 *   Transmit queue counters.
 * @param nb_txq
 *   How many.
 * @param rxq
 *   Receive queue counters.
 * @param nb_rxq
 *   How many.
 * @param out
 *   Filled (overwritten).
 */
void vnic_stats_sum(const struct vnic_txq_stats *txq, unsigned int nb_txq,
		    const struct vnic_rxq_stats *rxq, unsigned int nb_rxq,
		    struct vnic_counters *out);

#ifdef __cplusplus
}
#endif

#endif /* _VNIC_STATS_H_ */
