/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _E4M_PRIV_H_
#define _E4M_PRIV_H_

/*
 * The model's insides, shared by its parts:
 *   e4m_core.c   adapter, BAR0 decoding, the sparse GRC file, hooks, faults
 *   e4m_rules.c  what the init file's polls wait for (trigger -> done)
 *   e4m_mfw.c    SHMEM image and the MFW mailbox state machine, link
 *   e4m_dmae.c   the DMAE engine
 *   e4m_sp.c     IGU/CAU/status blocks, ILT lookup, SPQ consumer, EQ
 *   e4m_storm.c  the storms' other answers (final cleanup)
 * Each part keeps its state behind one pointer in struct e4m_dev and hooks
 * the GRC addresses it owns (e4m_hook_add()).
 */

#include "base/ecore_reg.h"
#include "e4_model.h"

struct e4m_dev;

/** One PF's view of BAR0: its PTT and GTT windows. */
struct e4m_fn {
	struct e4m_dev *m;
	uint8_t pf;			/**< absolute = relative PF id (one engine) */
	uint8_t port;
	uint32_t ptt[PXP_EXTERNAL_BAR_PF_WINDOW_NUM];	/**< GRC address >> 2 */
	uint32_t pretend[PXP_EXTERNAL_BAR_PF_WINDOW_NUM];
	uint32_t gtt[PXP_NUM_GLOBAL_WINDOWS];		/**< GRC address >> 12 */
};

/**
 * Called after GRC @p addr was written with @p val (the value is stored
 * already). @p fn is the writing PF (the DMAE command's PF for DMAE writes).
 */
typedef void (*e4m_wr_hook_t)(struct e4m_dev *m, struct e4m_fn *fn, uint32_t addr,
			      uint32_t val, void *arg);
/** Called on a GRC read of @p addr: return true and set *val to answer it. */
typedef bool (*e4m_rd_hook_t)(struct e4m_dev *m, struct e4m_fn *fn, uint32_t addr,
			      uint32_t *val, void *arg);
/** Called on a doorbell write (BAR2 offset @p off). */
typedef void (*e4m_db_hook_t)(struct e4m_dev *m, struct e4m_fn *fn, uint32_t off,
			      uint32_t val);

struct e4m_hook {
	uint32_t lo, hi;		/* [lo, hi) GRC byte addresses */
	e4m_wr_hook_t wr;
	e4m_rd_hook_t rd;
	void *arg;
};

#define E4M_MAX_HOOKS 64
/** GRC space the model keeps (byte addresses below this). */
#define E4M_GRC_SPACE 0x2000000u

struct e4m_fault_state {
	bool on;
	uint32_t arg0, arg1;
};

struct e4m_grc;
struct e4m_mfw;
struct e4m_dmae;
struct e4m_sp;
struct e4m_rules;

struct e4m_dev {
	char name[32];
	struct e4m_config cfg;
	ecore_osal_spinlock_t lock;	/* every access, whole */
	struct e4m_grc *grc;
	struct e4m_fn fns[E4M_MAX_PFS];
	struct e4m_hook hooks[E4M_MAX_HOOKS];
	unsigned int n_hooks;
	e4m_db_hook_t db_hook;
	struct e4m_fault_state faults[E4M_FAULT__MAX];
	struct e4m_stats stats;
	struct e4m_rules *rules;
	struct e4m_mfw *mfw;
	struct e4m_dmae *dmae;
	struct e4m_sp *sp;
};

/* ---- core services for the parts (lock held by the caller) ---- */

/** Register hooks for GRC [lo, hi). @return 0 or -ENOSPC. */
int e4m_hook_add(struct e4m_dev *m, uint32_t lo, uint32_t hi, e4m_wr_hook_t wr,
		 e4m_rd_hook_t rd, void *arg);
/** A GRC write as the device bus does it: store, count, run the hooks. */
void e4m_grc_write(struct e4m_dev *m, struct e4m_fn *fn, uint32_t addr, uint32_t val);
/** A GRC read: the hooks' answer, else the stored value (0 if never written). */
uint32_t e4m_grc_read(struct e4m_dev *m, struct e4m_fn *fn, uint32_t addr);
/** The stored value only (no hooks, no counting). */
bool e4m_grc_get(struct e4m_dev *m, uint32_t addr, uint32_t *val);
/** Store only (device-internal state: no hooks, no counting). */
void e4m_grc_set(struct e4m_dev *m, uint32_t addr, uint32_t val);
/** Host memory the device reaches at @p iova, or NULL (counted in dma_faults). */
void *e4m_dma(struct e4m_dev *m, uint64_t iova, size_t len);
/** The fault @p f if it is on, else NULL. */
const struct e4m_fault_state *e4m_fault(struct e4m_dev *m, enum e4m_fault f);

/* ---- the parts (each e4m_<part>.c) ---- */

int e4m_rules_init(struct e4m_dev *m);
void e4m_rules_fini(struct e4m_dev *m);
int e4m_mfw_init(struct e4m_dev *m);
void e4m_mfw_fini(struct e4m_dev *m);
/** The MFW's side of e4m_link_set(). */
int e4m_mfw_link_set(struct e4m_dev *m, unsigned int port, bool up, uint32_t speed_mbps);
/** The HSI PF @p pf was loaded with (E4M_HSI_NONE: not loaded). */
enum e4m_hsi e4m_mfw_pf_hsi(struct e4m_dev *m, unsigned int pf);
int e4m_dmae_init(struct e4m_dev *m);
void e4m_dmae_fini(struct e4m_dev *m);
/** The storms' answers that are not ramrods (final cleanup): e4m_storm.c. */
int e4m_storm_init(struct e4m_dev *m);
int e4m_sp_init(struct e4m_dev *m);
void e4m_sp_fini(struct e4m_dev *m);
/**
 * PF @p pf's function-level state ends (the MFW's UNLOAD_DONE or its FLR): the
 * slow path is not started and EQEs still pending for it (E4M_FAULT_EQE_LATE)
 * are dropped when due, never written to an EQ the driver has freed or remade.
 */
void e4m_sp_pf_reset(struct e4m_dev *m, unsigned int pf);
/** Raise an attention on PF @p pf's attention status block (bits @p bits). */
void e4m_sp_attention(struct e4m_dev *m, unsigned int pf, uint32_t bits);

/** Log through the component's one log type, prefixed with the adapter name. */
#define E4M_LOG(m, level, fmt, ...) \
	ECORE_LOG(level, "model %s: " fmt, (m)->name, ## __VA_ARGS__)

#endif /* _E4M_PRIV_H_ */
