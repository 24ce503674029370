/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _E4_PF_H_
#define _E4_PF_H_

/**
 * @file
 * A PF brought up on the base layer: the devargs of net_e4 and the whole
 * init flow behind one open/close, for the PMD (#26) and the tests. On the
 * model (no silicon here) the PF reaches its BARs through the model's ops.
 *
 * Devargs (omni_kvargs rules):
 * - firmware=PATH     the init-values file (default: /lib/firmware/qed/,
 *                     qed_init_values_zipped-8.42.2.0.bin or a later profile)
 * - device=0xNNNN     modelled PCI device id (default 0x8070, AH)
 * - ports=N           modelled ports on the engine (1, 2, 4)
 * - pfs=N             modelled PFs (default = ports)
 * - pf=N              which PF this port drives (default 0)
 * - mfw_timeout_ms=N  MFW mailbox timeout (default 5000)
 * - fault=NAME[:A0[:A1]]  a model fault switch (repeatable), e.g.
 *                     fault=load_refused:0x10310000, fault=poll_stuck:0x2a0004
 */

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/ecore.h"
#include "model/e4_model.h"

/** Fault switches one devargs string can carry. */
#define E4_MAX_ARG_FAULTS 4

/** Parsed devargs. */
struct e4_args {
	char firmware[PATH_MAX];	/**< "" = the default directory */
	struct e4m_config model;	/**< the adapter to model */
	uint8_t pf;			/**< the PF this port drives */
	uint32_t mfw_timeout_ms;	/**< MFW mailbox timeout (0: 5 s) */
	/** Storm firmware LOAD_REQ announces (0: 8.42.2.0; not a devarg: tests). */
	uint32_t load_fw_version;
	unsigned int n_faults;		/**< entries of faults[] */
	/** Fault switches to set on the model (fault=NAME[:A0[:A1]]). */
	struct {
		int fault;		/**< enum e4m_fault */
		uint32_t arg0;		/**< its first argument */
		uint32_t arg1;		/**< its second argument */
	} faults[E4_MAX_ARG_FAULTS];
};

/**
 * Parse devargs into their struct.
 * @param devargs  "key=value,..." (NULL: the defaults).
 * @param a        Filled (defaults first).
 * @return 0 or -EINVAL (an error message names the key).
 */
int e4_args_parse(const char *devargs, struct e4_args *a);

/** A PF brought up. */
struct e4_pf {
	struct ecore_dev dev;		/**< the ecore device (one hwfn) */
	struct e4m_dev *model;		/**< the adapter the PF lives on */
	bool own_model;			/**< created by e4_pf_open (destroyed by close) */
	struct ecore_fw_image *fw;	/**< the parsed init-values file */
	bool prepared;			/**< hw_prepare went through */
	bool allocated;			/**< resc_alloc went through */
	bool started;			/**< hw_init went through */
};

/**
 * Bring up PF @p a->pf: model (when @p model is NULL, a new one from @p a),
 * firmware file, hw_prepare (with PF FLR), resc_alloc/setup, hw_init
 * (PF_START, POLL mode), SET_VERSION. On failure everything taken is released.
 * @param pf     Filled.
 * @param name   For logs and memzones.
 * @param a      Parsed devargs (their fault switches are set on the model).
 * @param model  The adapter (NULL: a new one from @p a, owned by @p pf).
 * @return 0 or a negative errno (enum _ecore_status_t).
 */
int e4_pf_open(struct e4_pf *pf, const char *name, const struct e4_args *a,
	       struct e4m_dev *model);

/**
 * Tear down: hw_stop (when @p clean; false leaves the device as a crashed
 * driver would), resc_free, hw_remove, the model if owned.
 * @param pf     A PF e4_pf_open() filled (after success or failure).
 * @param clean  Unload from the device first.
 * @return 0 or the first error of hw_stop.
 */
int e4_pf_close(struct e4_pf *pf, bool clean);

#endif /* _E4_PF_H_ */
