/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _E4_MODEL_H_
#define _E4_MODEL_H_

/**
 * @file
 * A behavioural model of one E4 adapter (one engine, its ports and PFs),
 * reached by the base layer only through struct ecore_bar_ops: BAR0 decoding
 * (admin window, PTT and GTT windows, IGU commands, SDM RAM), a sparse GRC
 * register file that keeps what the init file writes and answers its polls,
 * the management firmware (SHMEM image and mailbox), DMAE, the ILT lookup and
 * the slow-path queue consumer (ramrod -> EQE + status-block index).
 *
 * The model does not run storm microcode: it stores what is written and
 * counts it. Every access runs synchronously in the caller's thread under the
 * adapter's lock (the device's answer is ready when the access returns).
 * Device memory accesses (DMAE, EQ, status blocks) go through the config's
 * dma hook (default ecore_osal_iova2virt()); an address it does not map is a
 * counted fault, never a wild access.
 */

#include <stdbool.h>
#include <stdint.h>

#include "base/ecore.h"

#ifdef __cplusplus
extern "C" {
#endif

/** PFs one model adapter has at most. */
#define E4M_MAX_PFS 16

/** What adapter to model. */
struct e4m_config {
	uint16_t device_id;	/**< PCI device id: 0x80xx AH (default 0x8070), 0x16xx BB */
	uint8_t num_ports;	/**< ports on the engine: AH 1, 2 or 4; BB 1 or 2 (default 1) */
	uint8_t num_pfs;	/**< PFs (default = num_ports); PF i is on port i % num_ports */
	uint8_t base_mac[6];	/**< port p's MAC = base_mac + p (default 00:0e:1e:00:00:00) */
	uint32_t mfw_version;	/**< reported MFW version (default 8.59.22.0 = 0x083b1600) */
	/**
	 * How the device reaches host memory (DMAE, SPQ, EQ, status blocks):
	 * the memory behind @p len bytes at @p iova, or NULL (a fault). NULL
	 * hook: ecore_osal_iova2virt() (the process's DMA memory). vpci sets
	 * its container lookup here.
	 */
	void *(*dma)(void *ctx, uint64_t iova, size_t len);
	void *dma_ctx;		/**< the hook's context */
	/**
	 * How the device sends an MSI-X message: vector @p vector of PF @p pf
	 * (its IGU CAM vector number). Called with the adapter's lock held, on
	 * whichever thread made the access that produced it (possibly in a
	 * signal handler: async-signal-safe only). NULL: no messages (the
	 * driver polls). vpci sets vpci_irq_raise() here.
	 */
	void (*irq)(void *ctx, unsigned int pf, unsigned int vector);
	void *irq_ctx;		/**< the hook's context */
};

/**
 * The firmware interfaces (HSIs) the model serves, chosen per engine by the
 * storm firmware version the first driver announces in LOAD_REQ (fw_ver):
 * the device runs whatever microcode that driver's init file loads.
 */
enum e4m_hsi {
	E4M_HSI_NONE,		/**< nothing loaded */
	E4M_HSI_8_40_33,	/**< FW 8.40.33: what DPDK 22.11's net_qede speaks */
	E4M_HSI_8_42_2,		/**< FW 8.42.2: the real init file's, our base layer's */
};

/** Where the served HSIs differ, for what the model reads (e4-firmware.md §5). */
struct e4m_hsi_layout {
	const char *name;		/**< "8.40.33" */
	uint32_t fw_version;		/**< major << 24 | minor << 16 | rev << 8 */
	uint16_t pf_start_size;		/**< pf_start_ramrod_data bytes */
	uint16_t vport_start_size;	/**< vport_start_ramrod_data bytes */
	uint8_t eth_ramrod_max;		/**< highest ETH ramrod / EQE id */
	uint8_t txq_pmd_mode_bit;	/**< tx_queue_start flags: PMD_MODE bit */
};

/**
 * @param hsi  An HSI.
 * @return Its layout, or NULL for E4M_HSI_NONE / an unknown value.
 */
const struct e4m_hsi_layout *e4m_hsi_layout(enum e4m_hsi hsi);

/** Fault switches (e4m_fault_set()); each stays on until cleared. */
enum e4m_fault {
	E4M_FAULT_MFW_SILENT,	/**< the MFW answers no mailbox command */
	E4M_FAULT_LOAD_REFUSED,	/**< LOAD_REQ is answered with @c arg0 (a REFUSED code) */
	E4M_FAULT_RAMROD_ERROR,	/**< ramrods matching @c arg1 complete with return code @c arg0 */
	E4M_FAULT_EQE_LATE,	/**< EQEs are posted @c arg0 ms late */
	E4M_FAULT_EQE_NEVER,	/**< ramrods are consumed and never completed */
	E4M_FAULT_POLL_STUCK,	/**< the GRC register @c arg0 never reaches its "done" value */
	E4M_FAULT_DMAE_ERROR,	/**< DMAE commands complete with the error bit set */
	E4M_FAULT__MAX
};

/**
 * E4M_FAULT_RAMROD_ERROR's @c arg1: which ramrods fail:
 * (protocol id << 8) | command id, or E4M_RAMROD_ANY.
 */
#define E4M_RAMROD_ANY 0xffffffffu

/** Counters of what the model saw (e4m_stats_get()). */
struct e4m_stats {
	uint64_t bar_reads;		/**< BAR0 reads */
	uint64_t bar_writes;		/**< BAR0 writes */
	uint64_t bad_accesses;		/**< BAR/GRC accesses to nothing (counted, ignored) */
	uint64_t grc_writes;		/**< GRC dword writes (BAR or DMAE) */
	uint64_t grc_reads;		/**< GRC dword reads */
	uint64_t sem_ram_bytes[6];	/**< bytes written to each storm's RAM (X,Y,P,T,M,U SEM) */
	uint64_t polls_answered;	/**< trigger -> done rules that fired */
	uint64_t dma_faults;		/**< device accesses to host memory that was not DMA memory */
	uint64_t dmae_cmds;		/**< DMAE commands executed */
	uint64_t dmae_dwords;		/**< dwords they moved */
	uint64_t dmae_errors;		/**< completed with the error bit (fault or bad address) */
	uint64_t mb_cmds;		/**< MFW mailbox commands answered */
	uint64_t mb_unanswered;		/**< ... ignored (MFW silent) */
	uint64_t loads[3];		/**< LOAD_REQ answered ENGINE, PORT, FUNCTION */
	uint64_t load_refusals;		/**< LOAD_REQ refused (fault) */
	uint64_t unloads;		/**< UNLOAD_DONE */
	uint64_t flrs;			/**< INITIATE_PF_FLR */
	uint64_t doorbells;		/**< BAR2 writes */
	uint64_t ramrods;		/**< SPQ elements consumed */
	uint64_t eqes;			/**< EQ elements posted */
	uint64_t attentions;		/**< attention status-block updates */
};

/**
 * Create an adapter.
 * @param name  For logs.
 * @param cfg   What to model (NULL: the defaults).
 * @return The adapter, or NULL on error (logged).
 */
struct e4m_dev *e4m_create(const char *name, const struct e4m_config *cfg);
/**
 * Destroy an adapter.
 * @param m  The adapter (NULL is fine).
 */
void e4m_destroy(struct e4m_dev *m);

/** The ops table the base layer reaches the model through. */
extern const struct ecore_bar_ops e4m_bar_ops;
/**
 * @param m   The adapter.
 * @param pf  A PF of it.
 * @return The bar_ctx of PF @p pf (for struct ecore_dev.bar_ctx), or NULL.
 */
void *e4m_pf_ctx(struct e4m_dev *m, unsigned int pf);

/**
 * Turn a fault on.
 * @param m     The adapter.
 * @param f     Which (enum e4m_fault says what its arguments mean).
 * @param arg0  First argument.
 * @param arg1  Second argument.
 * @return 0 or -EINVAL.
 */
int e4m_fault_set(struct e4m_dev *m, enum e4m_fault f, uint32_t arg0, uint32_t arg1);
/**
 * Turn a fault off.
 * @param m  The adapter.
 * @param f  Which.
 */
void e4m_fault_clear(struct e4m_dev *m, enum e4m_fault f);
/**
 * @param name  A fault's name ("mfw_silent", "load_refused", ...).
 * @return Its enum e4m_fault value, or -1.
 */
int e4m_fault_by_name(const char *name);

/**
 * Change port @p port's link as the MFW would on a cable event: SHMEM's
 * link_status, the MFW's LINK_CHANGE message counter and an attention to
 * every PF on the port.
 * @param m           The adapter.
 * @param port        The port.
 * @param up          Cable in.
 * @param speed_mbps  Line speed when up (0: the port's default).
 * @return 0 or -EINVAL.
 */
int e4m_link_set(struct e4m_dev *m, unsigned int port, bool up, uint32_t speed_mbps);

/**
 * Read a GRC register as the device has it (no side effect).
 * @param m     The adapter.
 * @param addr  GRC byte address.
 * @param val   Its value (0 if never written).
 * @return false if never written.
 */
bool e4m_grc_peek(struct e4m_dev *m, uint32_t addr, uint32_t *val);
/**
 * Set a GRC register as device state (tests; no rule fires).
 * @param m     The adapter.
 * @param addr  GRC byte address.
 * @param val   Value.
 */
void e4m_grc_poke(struct e4m_dev *m, uint32_t addr, uint32_t val);
/**
 * @param m   The adapter.
 * @param pf  A PF of it.
 * @return The driver version the PF told the MFW (LOAD_REQ, SET_VERSION), 0 if none.
 */
uint32_t e4m_pf_drv_version(struct e4m_dev *m, unsigned int pf);
/**
 * @param m   The adapter.
 * @param pf  A PF of it.
 * @return The HSI PF @p pf was loaded with (E4M_HSI_NONE: not loaded).
 */
enum e4m_hsi e4m_pf_hsi(struct e4m_dev *m, unsigned int pf);
/**
 * @param m   The adapter.
 * @param pf  A PF of it.
 * @return The storm firmware version PF @p pf announced in LOAD_REQ, 0 if none.
 */
uint32_t e4m_pf_fw_version(struct e4m_dev *m, unsigned int pf);
/**
 * Copy the counters.
 * @param m   The adapter.
 * @param st  Filled.
 */
void e4m_stats_get(struct e4m_dev *m, struct e4m_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* _E4_MODEL_H_ */
