/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _HFI1_MODEL_H_
#define _HFI1_MODEL_H_

/**
 * @file
 * Behavioural model of the HFI interfaces net_hfi1 uses.
 *
 * The model is a device: the PMD reaches it only through the CSR ops that
 * hfi1_model_attach() installs, and the model reads descriptors and writes
 * packets, RHQ entries and heads in host DMA memory, translating IOVAs as
 * an IOMMU would. Its link is another DPDK port, the wire: whole 16B
 * packets cross it.
 *
 * Modelled: SDMA engines (descriptor generation check, PBC check and strip,
 * head write-back, halt on error), receive contexts (RSM rules, default
 * bypass context, RHQ entries with RHF and RcvSeq, eager buffers from the
 * RcvArray packed at 64-byte offsets, RHQ/eager full drops), link state,
 * LID, P_Keys, SC-to-VL table, MTU. Not modelled: PIO, 9B packets, the
 * 8051, interrupts, the ICRC (not public; its error is injected).
 *
 * Link bring-up, on a wire that is a port of its own (not ring:NAME): an
 * EAL alarm looks at the wire every 100 ms; once its link is lost, the
 * model restarts the port (re-dials: a net_memif client does not reconnect
 * by itself) until it is up again, and reports the link Active only when
 * two ticks in a row saw it up.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_ethdev.h>

#include "../base/hfi1_hw.h"

/** Largest P_Key table the model keeps (4 CSRs of 4). */
#define HFI1_MODEL_PKEYS 16

/** Node identity and shape, from devargs. */
struct hfi1_model_conf {
	uint32_t lid;
	uint16_t pkeys[HFI1_MODEL_PKEYS];
	uint8_t nb_pkeys;
	uint16_t mtu;			/**< OPA MTU: 2048, 4096, 8192, 10240 */
	uint16_t nb_ctxts;		/**< receive contexts */
	uint16_t nb_engines;		/**< SDMA engines */
	enum hfi1_egr_layout layout;	/**< what the model writes: FULL or SPLIT */
	/** "" (no link), "ring:NAME" (in-process pair) or an ethdev name. */
	char wire[RTE_ETH_NAME_MAX_LEN];
};

struct hfi1_model;

/** Defaults: LID 1, P_Key 0xffff, MTU 10240, 16 contexts, 16 engines, FULL, no wire. */
void hfi1_model_conf_init(struct hfi1_model_conf *mc);

/** @name Devarg handlers (omni_kvargs.h) storing into the struct hfi1_model_conf opaque */
/**@{*/
int hfi1_model_arg_lid(const char *key, const char *val, void *opaque);
int hfi1_model_arg_pkeys(const char *key, const char *val, void *opaque);
int hfi1_model_arg_mtu(const char *key, const char *val, void *opaque);
int hfi1_model_arg_contexts(const char *key, const char *val, void *opaque);
int hfi1_model_arg_engines(const char *key, const char *val, void *opaque);
int hfi1_model_arg_wire(const char *key, const char *val, void *opaque);
int hfi1_model_arg_layout(const char *key, const char *val, void *opaque);
/**@}*/

/** The table entries of the handlers above (struct omni_devarg). */
#define HFI1_MODEL_DEVARGS \
	{ "lid", hfi1_model_arg_lid, 0 }, \
	{ "pkeys", hfi1_model_arg_pkeys, 0 }, \
	{ "mtu", hfi1_model_arg_mtu, 0 }, \
	{ "contexts", hfi1_model_arg_contexts, 0 }, \
	{ "engines", hfi1_model_arg_engines, 0 }, \
	{ "wire", hfi1_model_arg_wire, 0 }, \
	{ "layout", hfi1_model_arg_layout, 0 }

/**
 * "full", "split" (and "auto" when @p allow_auto) into @p out.
 * @return 0 or -EINVAL after a message naming @p key.
 */
int hfi1_model_parse_layout(const char *key, const char *val, enum hfi1_egr_layout *out,
		bool allow_auto);

/**
 * Host memory behind a device DMA: the default (NULL hook) checks the IOVA
 * is DPDK memory, as an IOMMU would; vpci's backend looks it up in the vfio
 * container's maps instead.
 */
typedef void *(*hfi1_model_dma_fn)(void *ctx, uint64_t iova, size_t len, bool write);

/** Translate the model's DMAs with @p fn(@p ctx, ...) from now on (before traffic). */
void hfi1_model_set_dma(struct hfi1_model *m, hfi1_model_dma_fn fn, void *ctx);

/**
 * The CSR ops run from a signal handler (vpci's MMIO trap): from now on they
 * answer the link state from the link tick's last look at the wire (every
 * 100 ms) instead of asking the wire's driver, which must not be called
 * there. A ring pair's link is always up.
 */
void hfi1_model_set_trapped(struct hfi1_model *m);

/** Faults a test can ask for; each applies to the next count events. */
enum hfi1_model_fault {
	HFI1_FAULT_DROP,	/**< received packets vanish on the link */
	HFI1_FAULT_RHF_ERR,	/**< received packets get RHF error bits (arg) */
	HFI1_FAULT_BAD_EGR_INDEX, /**< RHFs name an eager index out of range */
	HFI1_FAULT_RHQ_FULL,	/**< received packets find the RHQ full */
	HFI1_FAULT_EGR_FULL,	/**< received packets find no eager space */
	HFI1_FAULT_DELAY_HEAD,	/**< SDMA head write-back held for count steps */
	HFI1_FAULT_BAD_HEAD,	/**< SDMA head written back out of range */
	HFI1_FAULT_MAX
};

/** What the model counted. */
struct hfi1_model_stats {
	uint64_t sdma_pkts;		/**< packets sent by the engines */
	uint64_t sdma_bytes;		/**< bytes without PBC */
	uint64_t sdma_halts;		/**< engines halted on an error */
	uint64_t sdma_not_bypass;	/**< PBC without PacketBypass: dropped */
	uint64_t wire_tx;
	uint64_t wire_rx;
	uint64_t wire_busy;		/**< sends held back: wire full */
	uint64_t no_wire;		/**< sent with no link: dropped */
	uint64_t rcv_pkts;		/**< delivered to a context */
	uint64_t rcv_dropped_fault;
	uint64_t rcv_not_bypass;	/**< not a 16B packet */
	uint64_t rcv_port_disabled;
	uint64_t rcv_ctxt_disabled;
	uint64_t rcv_rhq_full;
	uint64_t rcv_egr_full;
	uint64_t rcv_dma_error;		/**< RcvArray entry or address invalid */
	uint64_t csr_unknown;		/**< accesses to CSRs the model lacks */
	uint64_t wire_lost;		/**< times the wire's link was seen lost */
	uint64_t wire_redials;		/**< wire restarts to bring the link up */
};

struct hfi1_model;

/**
 * What a PMD does for a model that has no thread of its own: its poll paths
 * run it (hfi1_model_sdma_step(), hfi1_model_rcv_step()). Silicon runs by
 * itself, so these are not base-layer ops.
 */
struct hfi1_model_poll {
	struct hfi1_model *model;	/**< the model to run, or NULL: none */
};

/**
 * Attach the model to a base-layer device: its CSR ops (hw->ops, hw->dev)
 * and its shape (hfi1_model_caps()).
 *
 * @param polled
 *   The model has no service lcore: @p poll names it, for the PMD's poll
 *   paths to run; else @p poll is emptied.
 */
void hfi1_model_attach(struct hfi1_model *m, struct hfi1_hw *hw, bool polled,
		struct hfi1_model_poll *poll);
/** Let the model process an SDMA engine's ring now (polled model). */
void hfi1_model_sdma_step(struct hfi1_model *m, unsigned int engine);
/** Let the model receive from its link now (polled model). */
void hfi1_model_rcv_step(struct hfi1_model *m);

/**
 * Create a model node and attach its wire (configured and started).
 *
 * @return
 *   The model, or NULL with rte_errno set.
 */
struct hfi1_model *hfi1_model_create(const char *name,
		const struct hfi1_model_conf *conf, int socket_id);
/** Stop the wire, release it, free the model. */
void hfi1_model_destroy(struct hfi1_model *m);
/** Shape of the device, for struct hfi1_hw. */
void hfi1_model_caps(const struct hfi1_model *m, uint32_t *nb_ctxts,
		uint32_t *nb_engines, uint32_t *rcv_array_cnt);
/** Run every engine and the receive side once (service or test). */
void hfi1_model_step(struct hfi1_model *m);
/**
 * Register an rte_service that steps the model; the application maps it
 * to a service lcore.
 *
 * @return
 *   The service id, or a negative errno.
 */
int hfi1_model_service_register(struct hfi1_model *m);
/** Arm a fault for the next count events; arg: RHF error bits. */
void hfi1_model_fault(struct hfi1_model *m, enum hfi1_model_fault f,
		uint32_t count, uint64_t arg);
void hfi1_model_stats_get(const struct hfi1_model *m,
		struct hfi1_model_stats *s);
/** Port id of the wire, or -1. */
int hfi1_model_wire_port(const struct hfi1_model *m);

#endif /* _HFI1_MODEL_H_ */
