/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _RTE_PMD_HFI1_H_
#define _RTE_PMD_HFI1_H_

/**
 * @file
 * net_hfi1 specific API: what a stacked PMD (net_opa_vnic) needs from a
 * fabric port beyond ethdev.
 *
 * - The port's identity: LID, MTU, P_Keys, SC-to-VL table, link state.
 * - Receive steering: which RX queues (receive contexts) get VNIC packets
 *   (L4 0x78, spread by vesw id and entropy through the RSM map) and which
 *   one gets management packets (L4 0x08). Everything else goes to the
 *   default queue.
 *
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 */

#include <stdint.h>

#include <rte_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Largest P_Key table reported. */
#define RTE_PMD_HFI1_PKEYS 16
/** Most RX queues VNIC packets can be spread over (8 map entries). */
#define RTE_PMD_HFI1_VNIC_QUEUES 8

/** Identity and state of an HFI port. */
struct rte_pmd_hfi1_port_info {
	uint32_t lid;			/**< port LID (0: none assigned) */
	uint16_t mtu;			/**< OPA MTU capability, bytes */
	uint8_t link_active;		/**< 1 when the link is active */
	uint8_t nb_pkeys;		/**< valid entries in pkeys */
	uint16_t pkeys[RTE_PMD_HFI1_PKEYS]; /**< non-zero P_Keys */
	uint8_t sc_to_vl[32];		/**< VL each SC is sent on */
	uint16_t nb_rx_contexts;	/**< receive contexts of the device */
	uint16_t nb_sdma_engines;	/**< SDMA engines of the device */
	uint8_t egr_layout;		/**< 0 unknown yet, 1 full packet, 2 split */
};

/**
 * Read a port's identity and state.
 *
 * @param port_id
 *   The port.
 * @param info
 *   Filled on success.
 * @return
 *   0, -ENODEV if port_id is not a net_hfi1 port, -EINVAL if info is NULL.
 */
__rte_experimental
int rte_pmd_hfi1_port_info_get(uint16_t port_id,
		struct rte_pmd_hfi1_port_info *info);

/** Receive steering of a port. */
struct rte_pmd_hfi1_steering {
	/** RX queues for VNIC packets; 0 entries: no VNIC rule. */
	uint16_t vnic_queues[RTE_PMD_HFI1_VNIC_QUEUES];
	uint8_t nb_vnic_queues; /**< valid entries in vnic_queues */
	/** RX queue for management packets; -1: the default queue. */
	int16_t mgmt_queue;
	/** RX queue for everything no rule claims. */
	uint16_t default_queue;
};

/**
 * Set the receive steering. The port must be configured and stopped; the
 * steering applies from the next rte_eth_dev_start(). Without a call, a
 * port with one RX queue has no rules, and a port with n > 1 queues spreads
 * VNIC packets over queues 0..min(n,8)-1 with everything else on queue 0.
 *
 * @param port_id
 *   The port.
 * @param steering
 *   The rules (copied).
 * @return
 *   0; -ENODEV (not a net_hfi1 port), -EBUSY (started), -EINVAL (a queue
 *   out of range, too many queues, or NULL).
 */
__rte_experimental
int rte_pmd_hfi1_steering_set(uint16_t port_id,
		const struct rte_pmd_hfi1_steering *steering);

/**
 * Read the steering the port uses (or will use at start).
 *
 * @param port_id
 *   The port.
 * @param steering
 *   Filled on success.
 * @return
 *   0, -ENODEV or -EINVAL.
 */
__rte_experimental
int rte_pmd_hfi1_steering_get(uint16_t port_id,
		struct rte_pmd_hfi1_steering *steering);

#ifdef __cplusplus
}
#endif

#endif /* _RTE_PMD_HFI1_H_ */
