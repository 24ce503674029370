/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _HFI1_MODEL_PRIV_H_
#define _HFI1_MODEL_PRIV_H_

/* The model's state: CSR contents and the engines' progress. */

#include <rte_mempool.h>
#include <rte_spinlock.h>

#include "hfi1_model.h"

/** IOVA translation cache of one device-side user (an engine, the
 * receive side): direct-mapped by page, pages as long as their memseg. */
#define MODEL_XLATE_WAYS 128
struct model_xlate {
	struct {
		rte_iova_t iova;	/**< start of the cached memseg */
		size_t len;
		uint8_t *va;
	} e[MODEL_XLATE_WAYS];
};

struct model_engine {
	uint64_t ctrl;
	uint64_t base;
	uint64_t len_gen;
	uint64_t head_addr;
	uint64_t err;
	uint32_t tail;		/**< written by the driver (atomic) */
	uint32_t head;		/**< ring index */
	uint32_t pos;		/**< descriptors consumed (generation) */
	uint32_t cnt;		/**< ring size from LEN_GEN */
	bool halted;
	uint32_t wb_delay;	/**< steps left before the next write-back */
	rte_spinlock_t lock;	/**< held while the engine runs */
	struct model_xlate xl;
};

struct model_ctxt {
	uint64_t ctrl;
	uint64_t egr_ctrl;
	uint64_t hdr_addr;
	uint64_t hdr_cnt;
	uint64_t ent_size;
	uint64_t hdr_size;
	uint64_t tail_addr;
	uint64_t ovfl_cnt;
	uint64_t hdr_head;	/**< DWs, written by the driver (atomic) */
	uint64_t egr_head;	/**< eager index, written by the driver */
	uint32_t tail;		/**< next RHQ entry the device writes */
	uint32_t seq;
	uint32_t egr_cur;	/**< eager buffer being filled */
	uint32_t egr_off;	/**< bytes used in it */
	bool egr_started;	/**< egr_cur holds data */
};

#define MODEL_RCV_ARRAY_CNT 32768u
#define MODEL_BURST 32
/** HdrqOffset the model writes, in DWs: not 0, so the driver must honour it. */
#define MODEL_HDRQ_OFFSET_DWS 2

/*
 * An enabled bypass RSM rule, decoded from its CSRs when they are written
 * (the driver writes them with the port stopped), so that steering a
 * packet costs a few byte loads instead of decoding three registers.
 */
struct model_rsm_rule {
	uint8_t field1, mask1, value1;
	uint8_t field2, mask2, value2;
	uint8_t index1, width1, index2, width2;
	uint8_t offset;
	/** the context of every map entry the rule can reach, -1 if several */
	int16_t one_ctxt;
};

struct hfi1_model {
	char name[32];
	struct hfi1_model_conf conf;
	int socket_id;
	uint64_t rcv_ctrl;
	uint64_t rcv_bypass;
	uint64_t send_ctrl;
	uint64_t rsm_cfg[HFI1_RSM_RULES];
	uint64_t rsm_select[HFI1_RSM_RULES];
	uint64_t rsm_match[HFI1_RSM_RULES];
	uint64_t rsm_map[HFI1_RSM_MAP_ENTRIES / 8];
	struct model_rsm_rule rsm_rule[HFI1_RSM_RULES];	/**< enabled, in order */
	unsigned int rsm_nb_rules;
	uint8_t rsm_map_byte[HFI1_RSM_MAP_ENTRIES];	/**< rsm_map, one context a byte */
	uint64_t pkey[HFI1_MODEL_PKEYS / 4];
	uint64_t sc_vl[2];
	uint64_t *rcv_array;
	struct model_engine *eng;
	struct model_ctxt *ctx;
	/* Wire. */
	int wire_port;
	uint64_t wire_owner;
	void *wire_pair;		/**< ring pair shared with the peer */
	int wire_side;			/**< our transmit ring in the pair */
	struct rte_mempool *pool;
	rte_spinlock_t wire_tx_lock;	/**< engines share the link */
	rte_spinlock_t wire_rx_lock;
	struct model_xlate rx_xl;
	hfi1_model_dma_fn dma_fn;	/**< NULL: DPDK memory checks (model_va) */
	void *dma_ctx;
	/* Link bring-up on a wire port of its own (see model_link_tick()). */
	bool link_tick;			/**< the tick alarm runs */
	bool wire_started;		/**< a re-dial left it started (atomic; locks) */
	struct model_guard *guard;	/**< bursts park the interrupt thread (own wire) */
	bool wire_trained;		/**< the link may be Active (atomic) */
	bool wire_seen_up;		/**< a tick saw the wire up once */
	bool wire_up;			/**< the wire's link at the last tick (atomic) */
	bool trapped;			/**< CSR ops in a signal handler: no ethdev calls */
	unsigned int up_ticks;		/**< ticks in a row that saw it up */
	unsigned int dial_wait;		/**< ticks before the next re-dial */
	uint64_t dials_lost;		/**< re-dials since the link was lost */
	uint64_t lost_at;		/**< timer cycles when a tick saw it lost */
	/* Faults. */
	uint32_t fault_count[HFI1_FAULT_MAX];
	uint64_t fault_arg[HFI1_FAULT_MAX];
	struct hfi1_model_stats st;
	uint32_t service_id;
	bool service;
};

/* hfi1_model_guard.c: wire bursts of lcores run with the EAL interrupt
 * thread parked (a net_memif peer's disconnect unmaps the rings there). */
struct model_guard;
int model_guard_create(struct hfi1_model *m);
void model_guard_destroy(struct hfi1_model *m);
/** Before a wire burst: false when the park could not be had (skip it). */
bool model_guard_enter(struct hfi1_model *m);
/** After a burst model_guard_enter() allowed. */
void model_guard_leave(struct hfi1_model *m);
/**
 * Return once the EAL interrupt thread has rebuilt its sources after an
 * unregister made before the call (not on that thread; 2 s at most).
 */
void model_intr_barrier(void);

/* hfi1_model_dp.c */
void model_sdma_step(struct hfi1_model *m, unsigned int e);
void model_rcv_step(struct hfi1_model *m);
/** Decode the enabled RSM rules after their CSRs (or RcvCtrl) changed. */
void model_rsm_decode(struct hfi1_model *m);
/** Consume one armed fault event of kind f. */
static inline bool
model_fault_take(struct hfi1_model *m, enum hfi1_model_fault f)
{
	if (__atomic_load_n(&m->fault_count[f], __ATOMIC_RELAXED) == 0)
		return false;
	__atomic_fetch_sub(&m->fault_count[f], 1, __ATOMIC_RELAXED);
	return true;
}

#endif /* _HFI1_MODEL_PRIV_H_ */
