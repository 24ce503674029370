/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _HFI1_ETHDEV_H_
#define _HFI1_ETHDEV_H_

/* net_hfi1 internals shared by the ethdev glue, the bursts and tests. */

#include <stdbool.h>
#include <stdint.h>

#include <ethdev_driver.h>
#include <rte_mbuf.h>

#include "base/hfi1_hw.h"
#include "model/hfi1_model.h"
#include "rte_pmd_hfi1.h"

/** Receive drops, by reason. */
enum hfi1_rx_err {
	HFI1_RX_ERR_ICRC,
	HFI1_RX_ERR_LEN,
	HFI1_RX_ERR_ECC,
	HFI1_RX_ERR_TID,
	HFI1_RX_ERR_RCV_TYPE,
	HFI1_RX_ERR_DC,
	HFI1_RX_ERR_DC_UNC,
	HFI1_RX_ERR_K_HDR_LEN,
	HFI1_RX_BAD_TYPE,	/**< RcvType other than bypass */
	HFI1_RX_BAD_EGR_INDEX,	/**< device named an eager buffer we lack */
	HFI1_RX_BAD_EGR_OFFSET,	/**< data would run past the eager buffer */
	HFI1_RX_BAD_HDRQ_OFFSET,
	HFI1_RX_RUNT,		/**< shorter than a 16B header and tail */
	HFI1_RX_TOO_LONG,	/**< does not fit the mbufs (no scatter) */
	HFI1_RX_NOMBUF,
	HFI1_RX_ERR_MAX
};

/** Transmit drops and events, by reason. */
enum hfi1_tx_err {
	HFI1_TX_BAD_LENGTH,	/**< not whole quadwords, or Length field wrong */
	HFI1_TX_NOT_16B,	/**< L2 type is not 16B */
	HFI1_TX_TOO_LONG,	/**< above MTU + 124, or the PBC's 12 bits */
	HFI1_TX_TOO_MANY_SEGS,	/**< more than 63 data descriptors */
	HFI1_TX_BAD_HEAD,	/**< head written back out of range */
	HFI1_TX_SDMA_HALTS,	/**< engine halted on an error; recovered */
	HFI1_TX_ERR_MAX
};

struct hfi1_adapter;

struct hfi1_rx_queue {
	struct hfi1_rcv_ctxt rc;
	struct hfi1_adapter *ad;
	struct rte_mempool *mp;
	uint16_t port_id;
	uint16_t queue_id;
	bool scatter;
	bool started;
	uint32_t egr_head;		/**< last eager index handed back */
	uint32_t buf_len;		/**< data room of mp's mbufs */
	uint64_t pkts;
	uint64_t bytes;
	uint64_t err[HFI1_RX_ERR_MAX];
	uint64_t ovfl_base;		/**< RcvHdrOvflCnt at the last reset */
} __rte_cache_aligned;

struct hfi1_tx_queue {
	struct hfi1_sdma_ring ring;
	struct hfi1_adapter *ad;
	struct rte_mbuf **sw_ring;	/**< packet at its last descriptor */
	uint16_t port_id;
	uint16_t queue_id;
	bool started;
	uint64_t halt_checked;		/**< timer cycles of the last SDMA status read */
	uint64_t pkts;
	uint64_t bytes;
	uint64_t err[HFI1_TX_ERR_MAX];
} __rte_cache_aligned;

struct hfi1_adapter {
	struct hfi1_hw hw;
	struct hfi1_model *model;	/**< NULL on silicon */
	struct hfi1_model_poll poll;	/**< the model the polls run, if any */
	struct rte_eth_dev *dev;
	enum hfi1_egr_layout layout;	/**< known, or AUTO until detected */
	bool layout_auto;		/**< rx_layout=auto: keep checking */
	struct rte_pmd_hfi1_steering steering;
	bool steering_set;		/**< by rte_pmd_hfi1_steering_set */
	bool lsc_alarm;
	uint8_t sc_to_vl[32];
	uint32_t mtu_cap;
	struct rte_ether_addr mac;
};

/** RX queues may not exceed contexts nor 8-bit map entries. */
#define HFI1_MAX_QUEUES 16
/** Eager buffers per context and their size (holds a 10240 MTU packet). */
#define HFI1_EGR_CNT 64
#define HFI1_EGR_SIZE 32768
/** Bytes a packet may have beyond the MTU: the largest header (facts 1.6). */
#define HFI1_MAX_HDR_BYTES 124
/** Smallest 16B packet: LRH and one quadword (ICRC and tail). */
#define HFI1_MIN_PKT_LEN 24

uint16_t hfi1_rx_burst(void *rxq, struct rte_mbuf **pkts, uint16_t nb);
uint16_t hfi1_tx_burst(void *txq, struct rte_mbuf **pkts, uint16_t nb);
/** Free completed transmissions. @return packets freed. */
unsigned int hfi1_tx_reclaim(struct hfi1_tx_queue *q);
/** The tx_done_cleanup op: run a model's engine, free what it sent. @return packets freed. */
int hfi1_tx_done_cleanup(void *txq, uint32_t free_cnt);
/** Drain, halt and empty a TX queue; every mbuf goes back. */
void hfi1_tx_queue_flush(struct hfi1_tx_queue *q);

/** The model behind a net_hfi1 port (tests), or NULL. */
struct hfi1_model *hfi1_port_model(uint16_t port_id);

#endif /* _HFI1_ETHDEV_H_ */
