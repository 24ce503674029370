/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _ECORE_INIT_OPS_H_
#define _ECORE_INIT_OPS_H_

/**
 * @file
 * Running the init-values file (ecore_init_fw.h): phases and mode bits, the
 * runtime array the driver stages values in, the runner (on the device, or
 * on any I/O sink for tests and benchmarks) and the storm overlays.
 *
 * The runner follows the file's rules: a phase's IF_PHASE blocks run when
 * their phase matches and their phase id is the one given or "any"; IF_MODE
 * blocks when their mode expression holds for the mode mask. Wide-bus writes
 * go by DMAE, which the ENGINE phase may use only after its DMAE_READY
 * callback (later phases from the start); non-wide arrays of 16 dwords or
 * more go by DMAE when it is allowed, zero fills when wide-bus or (allowed
 * and) 64 dwords or more; a pattern array makes one transfer per repetition.
 * A poll re-reads up to ECORE_INIT_POLL_TRIES times, ECORE_INIT_POLL_US
 * apart; one that never completes fails the run (ECORE_TIMEOUT, logged with
 * the address, expected value, poll type and phase).
 */

#include "ecore.h"
#include "ecore_init_fw.h"

struct ecore_ptt;

/** Init phases (the file's numbering). */
enum ecore_init_phase {
	PHASE_ENGINE,
	PHASE_PORT,
	PHASE_PF,
	PHASE_VF,
	PHASE_QM_PF,
	PHASE__MAX
};

/** A phase id that matches any (what IF_PHASE ops say for "every engine/port/PF"). */
#define ECORE_INIT_PHASE_ID_ANY 0xffff

/** Mode bits of the mode expressions (the file's numbering: mask bit = 1 << mode). */
enum ecore_init_mode {
	ECORE_MODE_BB_A0,		/**< deprecated */
	ECORE_MODE_BB,
	ECORE_MODE_K2,			/**< AH */
	ECORE_MODE_ASIC,
	ECORE_MODE_EMUL_REDUCED,
	ECORE_MODE_EMUL_FULL,
	ECORE_MODE_FPGA,
	ECORE_MODE_CHIPSIM,
	ECORE_MODE_SF,
	ECORE_MODE_MF_SD,
	ECORE_MODE_MF_SI,
	ECORE_MODE_PORTS_PER_ENG_1,
	ECORE_MODE_PORTS_PER_ENG_2,
	ECORE_MODE_PORTS_PER_ENG_4,
	ECORE_MODE_100G,
	ECORE_MODE_SKIP_PRAM_INIT,
	ECORE_MODE_EMUL_MAC,
	ECORE_MODE__MAX
};

/** Poll retries and their period. */
#define ECORE_INIT_POLL_TRIES 100
#define ECORE_INIT_POLL_US 500
/** Non-wide arrays this long (dwords) go by DMAE when allowed. */
#define ECORE_INIT_DMAE_MIN_ARRAY 16
/** Non-wide zero fills this long (dwords) go by DMAE when allowed. */
#define ECORE_INIT_DMAE_MIN_FILL 64

/**
 * The mode mask of @p p_dev: the chip (BB or K2), ASIC, ports per engine
 * (p_dev->num_ports_in_engine), 100G for a two-engine (CMT) device, and
 * MF_SI, the multi-function mode both drivers use by default (MF_SD is not
 * modelled; SF is never set). 1-port AH = 0x0c0c, 1-port BB = 0x0c0a,
 * 2-port AH = 0x140c.
 */
uint32_t ecore_init_mode_mask(const struct ecore_dev *p_dev);

/* ---- the runtime array ---- */

/** Values staged for the RUNTIME ops, in the file's numbering. */
struct ecore_rt_data {
	uint32_t size;		/**< entries (the profile's) */
	bool *b_valid;		/**< written since the last clear */
	uint32_t *init_val;	/**< host order */
	/** Storm overlay buffers in DMA memory (ecore_init_overlays_load()). */
	struct ecore_dma_mem overlay[ECORE_FW_STORM__MAX];
};

/**
 * Allocate the hwfn's runtime array, sized by the profile of
 * p_hwfn->p_dev->fw (which must be set).
 * @return 0, ECORE_INVAL (no firmware image) or ECORE_NOMEM.
 */
enum _ecore_status_t ecore_init_alloc(struct ecore_hwfn *p_hwfn);
/** Free it and the overlay buffers (none is fine). */
void ecore_init_free(struct ecore_hwfn *p_hwfn);
/** Mark every entry invalid. */
void ecore_init_clear_rt_data(struct ecore_hwfn *p_hwfn);
/**
 * Stage @p val at @p rt_offset, in DPDK 22.11 / 8.42 numbering
 * (ecore_rt_defs.h), translated by the profile. An offset past the array is
 * logged and ignored.
 */
void ecore_init_store_rt_reg(struct ecore_hwfn *p_hwfn, uint32_t rt_offset, uint32_t val);
/** Stage @p n_dw consecutive values from @p rt_offset (as ecore_init_store_rt_reg()). */
void ecore_init_store_rt_agg(struct ecore_hwfn *p_hwfn, uint32_t rt_offset,
			     const uint32_t *vals, size_t n_dw);
/**
 * The file-numbered index of 8.42-numbered @p rt_offset under @p p, or
 * UINT32_MAX when it falls outside the array.
 */
uint32_t ecore_init_rt_index(const struct ecore_fw_profile *p, uint32_t rt_offset);

/* ---- the runner ---- */

/**
 * Where a run's accesses go. The runner decides what goes by DMAE (see the
 * file comment); the sink carries it out. Data are little-endian dwords.
 */
struct ecore_init_sink {
	void *ctx;
	/** One register write. */
	void (*write)(void *ctx, uint32_t addr, uint32_t val);
	/** One register read. */
	uint32_t (*read)(void *ctx, uint32_t addr);
	/** A DMAE write of @p n_dw LE dwords to @p addr. @return 0 or an ecore status. */
	int (*dmae_write)(void *ctx, uint32_t addr, const void *le_data, uint32_t n_dw);
	/** A DMAE fill of @p n_dw dwords of @p val at @p addr. @return 0 or a status. */
	int (*fill)(void *ctx, uint32_t addr, uint32_t val, uint32_t n_dw);
	/** A CALLBACK op (@p id, @p block). @return 0 or a status. */
	int (*callback)(void *ctx, uint16_t id, uint16_t block);
	/** Wait @p us microseconds (polls, DELAY ops); NULL: do not wait. */
	void (*delay)(void *ctx, uint32_t us);
	/**
	 * Optional: carry out a whole poll (dry runs). @return true when it
	 * completed. NULL: the runner reads and retries itself.
	 */
	bool (*poll)(void *ctx, uint32_t addr, uint32_t expected, int poll_type);
};

/** What a run did (added to: zero it before the first phase). */
struct ecore_init_run_stats {
	uint32_t ops;			/**< ops executed (not skipped), IF_* included */
	uint32_t writes;		/**< WRITE ops */
	uint32_t writes_by_src[ECORE_INIT_SRC__MAX];
	uint32_t arrays_by_type[ECORE_INIT_ARR__MAX];	/**< ARRAY writes by array type */
	uint32_t reads;			/**< READ ops */
	uint32_t polls;			/**< READ ops with a poll */
	uint32_t poll_timeouts;
	uint32_t callbacks;
	uint32_t delays;
	uint64_t bytes;			/**< bytes written, all kinds */
	uint64_t bytes_by_src[ECORE_INIT_SRC__MAX];
	uint64_t reg_writes;		/**< single register writes */
	uint32_t dmae_writes;		/**< DMAE transfers (sink->dmae_write) */
	uint32_t dmae_fills;		/**< DMAE fills (sink->fill) */
	uint64_t dmae_bytes;		/**< bytes of those two */
};

/**
 * Run one phase of @p img on @p sink.
 *
 * @param phase     enum ecore_init_phase.
 * @param phase_id  engine / port / PF id, or ECORE_INIT_PHASE_ID_ANY.
 * @param modes     mode mask (ecore_init_mode_mask()).
 * @param rt        staged runtime values (file numbering), or NULL: none valid.
 *                  Its size must be the profile's.
 * @param st        counters (added to), or NULL.
 * @return 0; ECORE_TIMEOUT (a poll never completed); ECORE_INVAL (a wide-bus
 *         write before DMAE_READY, or @p rt of the wrong size); or what the
 *         sink returned.
 */
enum _ecore_status_t ecore_init_run_sink(const struct ecore_fw_image *img,
					 const struct ecore_init_sink *sink, int phase,
					 int phase_id, uint32_t modes,
					 const struct ecore_rt_data *rt,
					 struct ecore_init_run_stats *st);

/**
 * Run one phase of p_hwfn->p_dev->fw on the device: ecore_wr()/ecore_rd()
 * through @p p_ptt, ecore_dmae_host2grc()/ecore_dmae_grc_fill() for DMAE,
 * DMAE_READY = ecore_dmae_sanity(p_hwfn, p_ptt, "engine"); the hwfn's
 * runtime array.
 */
enum _ecore_status_t ecore_init_run(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt,
				    int phase, int phase_id, uint32_t modes);

/** ecore_init_run() with counters (added to @p st). */
enum _ecore_status_t ecore_init_run_stats(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt,
					  int phase, int phase_id, uint32_t modes,
					  struct ecore_init_run_stats *st);

/** Name of a phase ("ENGINE"). */
const char *ecore_init_phase_str(int phase);

/* ---- overlays ---- */

/**
 * Copy each storm's overlay buffer of the file to DMA memory and write its
 * device address (lo, hi) to that storm's RAM at
 * <STORM>SEM fast memory + 0x20000 (internal RAM) + IRO <STORM>_OVERLAY_BUF_ADDR
 * + 8 * rel_pf_id. Called after the QM_PF phase; needs ecore_init_alloc().
 * Buffers of an earlier call are freed first.
 * @return 0, ECORE_INVAL (no runtime array / image) or ECORE_NOMEM (all freed).
 */
enum _ecore_status_t ecore_init_overlays_load(struct ecore_hwfn *p_hwfn,
					      struct ecore_ptt *p_ptt);
/** Free the overlay buffers (none is fine). */
void ecore_init_overlays_free(struct ecore_hwfn *p_hwfn);
/** GRC address of storm @p storm's overlay address for @p rel_pf_id, or 0. */
uint32_t ecore_init_overlay_ram_addr(const struct ecore_fw_image *img,
				     enum ecore_fw_storm storm, uint8_t rel_pf_id);

#endif /* _ECORE_INIT_OPS_H_ */
