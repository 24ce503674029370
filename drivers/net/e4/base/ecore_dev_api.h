/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _ECORE_DEV_API_H_
#define _ECORE_DEV_API_H_

/**
 * @file
 * The init flow of the guide's chapter "Hardware/Firmware initialization":
 *
 *   ecore_init_struct -> ecore_hw_prepare -> ecore_resc_alloc ->
 *   ecore_resc_setup -> ecore_hw_init
 *   ... the device runs ...
 *   ecore_hw_stop -> ecore_resc_free -> ecore_hw_remove
 *
 * Each step undoes what it did when it fails, so after a failed step the
 * caller runs only the teardown of the steps that succeeded before it
 * (a failed ecore_hw_init: ecore_resc_free, ecore_hw_remove).
 */

#include "ecore.h"

/** What hw_prepare is told. */
struct ecore_hw_prepare_params {
	/** Ask the MFW to reset the function first (INITIATE_PF_FLR): clears what
	 * an earlier driver instance left after an unclean exit. */
	bool initiate_pf_flr;
	/** MFW mailbox timeout in ms (0: ecore's 5 s). */
	uint32_t mfw_timeout_ms;
};

/** What hw_init is told. */
struct ecore_hw_init_params {
	/** Send PF_START (the slow path runs) once the phases ran. */
	bool b_hw_start;
	/** Slow-path interrupt mode (POLL: the caller runs ecore_int_sp_dpc). */
	enum ecore_int_mode int_mode;
	/** Allow inter-PF Tx switching (NPAR). */
	bool allow_npar_tx_switch;
	/** A ramrod's completion wait in ms (0: 1 s). */
	uint32_t spq_timeout_ms;
};

/**
 * Early defaults of a zeroed device (one hwfn, names).
 * @param p_dev  The device, zeroed by the caller.
 * @param name   For logs and memzone names.
 */
void ecore_init_struct(struct ecore_dev *p_dev, const char *name);

/**
 * Open register access (PTT pool, global windows), learn the chip, the
 * function (ME registers), the MFW (SHMEM), the IGU CAM and the resources.
 * The caller has set bar_ops and bar_ctx.
 * @param p_dev   The device.
 * @param params  Options (NULL: none).
 * @return 0, ECORE_NODEV (no device or no MFW), ECORE_NOTIMPL (100G CMT), or the
 *   failing chapter's code; nothing is left allocated on failure.
 */
enum _ecore_status_t ecore_hw_prepare(struct ecore_dev *p_dev,
				      const struct ecore_hw_prepare_params *params);

/**
 * Allocate the ecore memory: runtime array, contexts (ILT), SPQ, EQ, SBs, DMAE.
 * @param p_dev  A prepared device with p_dev->fw set.
 * @return 0, ECORE_INVAL (no firmware image) or ECORE_NOMEM; nothing left on failure.
 */
enum _ecore_status_t ecore_resc_alloc(struct ecore_dev *p_dev);

/**
 * Configure the slow-path elements into the runtime array (the chip may be in reset).
 * @param p_dev  A device after ecore_resc_alloc().
 */
void ecore_resc_setup(struct ecore_dev *p_dev);

/**
 * Initialise the chip: LOAD_REQ, the init file's phases the MFW's answer asks
 * for (ENGINE, PORT, PF, QM_PF), overlays, IGU, PF_START, LOAD_DONE.
 * p_dev->fw must point at a parsed init-values file.
 * @param p_dev   A device after ecore_resc_setup().
 * @param params  Options (NULL: PF_START, POLL mode, default timeouts).
 * @return 0; ECORE_CANCELED (load refused), ECORE_TIMEOUT (MFW, poll or ramrod),
 *   ECORE_IO (ramrod or DMAE error) ...; the load is given back on failure.
 */
enum _ecore_status_t ecore_hw_init(struct ecore_dev *p_dev,
				   const struct ecore_hw_init_params *params);

/**
 * UNLOAD_REQ, PF_STOP, close the function's doors, UNLOAD_DONE (every hwfn that
 * hw_init brought up; it goes on after an error).
 * @param p_dev  The device.
 * @return 0 or the first error.
 */
enum _ecore_status_t ecore_hw_stop(struct ecore_dev *p_dev);

/**
 * Free what ecore_resc_alloc() took (safe after a partial allocation).
 * @param p_dev  The device.
 */
void ecore_resc_free(struct ecore_dev *p_dev);

/**
 * Free what ecore_hw_prepare() took; register access ends.
 * @param p_dev  The device.
 */
void ecore_hw_remove(struct ecore_dev *p_dev);

#endif /* _ECORE_DEV_API_H_ */
