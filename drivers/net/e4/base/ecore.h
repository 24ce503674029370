/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _ECORE_H_
#define _ECORE_H_

/**
 * @file
 * The ecore layer's elementary structures (the guide's ecore.h): the device
 * (struct ecore_dev), its hardware functions (struct ecore_hwfn, one per
 * engine the PCI function drives; two only for 100G CMT), the status codes,
 * and the ops table through which the layer reaches the device.
 *
 * Each chapter's state (PTT pool, MFW mailbox, DMAE, runtime array, ILT,
 * status blocks, SPQ/EQ) is a private structure of its own file, reached
 * from the hwfn by pointer; only what several chapters read is here.
 */

#include "ecore_osal.h"

/** Status codes: 0 or a negative errno (so the PMD can return them as is). */
enum _ecore_status_t {
	ECORE_SUCCESS = 0,
	ECORE_AGAIN = -EAGAIN,		/**< try again (e.g. ramrod still pending) */
	ECORE_NOTIMPL = -ENOTSUP,	/**< not supported (by us or the device) */
	ECORE_NOMEM = -ENOMEM,		/**< no memory (heap or DMA) */
	ECORE_IO = -EIO,		/**< the device answered with an error */
	ECORE_EXISTS = -EEXIST,		/**< already there */
	ECORE_INVAL = -EINVAL,		/**< bad argument or bad input (files) */
	ECORE_BUSY = -EBUSY,		/**< resource taken */
	ECORE_TIMEOUT = -ETIMEDOUT,	/**< the device did not answer in time */
	ECORE_CANCELED = -ECANCELED,	/**< refused (e.g. MFW load refusal) */
	ECORE_NODEV = -ENODEV,		/**< no device / no management firmware */
	ECORE_NORESOURCES = -ENOSPC,	/**< out of a device resource */
};

/**
 * @param rc  A status code.
 * @return Its name, for logs ("ECORE_TIMEOUT").
 */
const char *ecore_status_str(enum _ecore_status_t rc);

/**
 * How the base layer reaches the device: BAR0 (registers: admin window, PTT
 * and GTT windows; 32-bit accesses at byte offsets) and BAR2 (doorbells).
 * On silicon: loads and stores on the mapped BARs. On the model: calls into
 * model/, which handles each access synchronously (a write to a PTT window
 * becomes a GRC write before the call returns).
 */
struct ecore_bar_ops {
	/** Read the 32-bit register at BAR0 + @p offset. */
	uint32_t (*read32)(void *ctx, uint32_t offset);
	/** Write @p val to BAR0 + @p offset (ordered after earlier DMA-memory stores). */
	void (*write32)(void *ctx, uint32_t offset, uint32_t val);
	/** Ring the doorbell at BAR2 + @p offset with @p val. */
	void (*db_write32)(void *ctx, uint32_t offset, uint32_t val);
};

/** Hardware functions behind one PCI function at most (100G CMT: two engines). */
#define ECORE_MAX_HWFNS 2

/** The two E4 chips. */
enum ecore_chip {
	ECORE_CHIP_BB,	/**< QL45000 "Big Bear" (PCI 0x16xx): 2 engines, 2 ports */
	ECORE_CHIP_AH,	/**< QL41000 "AH"/K2 (PCI 0x80xx): 1 engine, up to 4 ports */
};

/** Interrupt mode of the slow path. */
enum ecore_int_mode {
	ECORE_INT_MODE_POLL,	/**< no interrupts: the slow path is polled */
	ECORE_INT_MODE_INTA,
	ECORE_INT_MODE_MSIX,
};

/* Each chapter's private state (defined in its own file). */
struct ecore_ptt;
struct ecore_ptt_pool;
struct ecore_dmae_info;
struct ecore_mcp_info;
struct ecore_rt_data;
struct ecore_cxt_mngr;
struct ecore_sb_sp_info;
struct ecore_sb_attn_info;
struct ecore_spq;
struct ecore_eq;
struct ecore_fw_image;

/** What hw_prepare learns about this function (chip, SHMEM, IGU CAM). */
struct ecore_hw_info {
	uint8_t port_mode;		/**< ports per engine: 1, 2 or 4 */
	uint32_t hw_mode;		/**< init-tool mode bits (1 << ECORE_MODE_*) */
	uint16_t igu_sb_base;		/**< first IGU SB of this PF (CAM) */
	uint16_t igu_sb_cnt;		/**< IGU SBs this PF owns (CAM), the default SB included */
	uint16_t igu_dsb_id;		/**< the default (slow-path) SB: first valid CAM line */
	uint16_t num_l2_queues;		/**< resources (MFW answer or defaults) */
	uint16_t num_vports;		/**< vports */
	uint16_t num_sbs;		/**< status blocks */
	uint16_t num_mac_filters;	/**< MAC filters */
	uint8_t mac[6];			/**< the port's MAC from SHMEM */
	uint32_t mfw_rev;		/**< management firmware version */
};

/** One hardware function: a PF on one engine. */
struct ecore_hwfn {
	struct ecore_dev *p_dev;	/**< the device this hwfn belongs to */
	char name[24];			/**< "<dev>:hwfn<i>" for logs */
	uint8_t my_id;			/**< index in p_dev->hwfns */
	uint8_t rel_pf_id;		/**< PF number on its engine (ME opaque fid) */
	uint8_t abs_pf_id;		/**< absolute PF number */
	uint8_t port_id;		/**< port on the engine */
	uint8_t abs_port_id;		/**< port on the adapter */
	uint8_t path_id;		/**< engine */
	uint16_t opaque_fid;		/**< PXP_PF_ME_OPAQUE */
	uint32_t concrete_fid;		/**< PXP_PF_ME_CONCRETE */
	uint32_t bar0_base;		/**< this hwfn's part of BAR0 (CMT: the second half) */
	uint32_t db_base;		/**< this hwfn's part of BAR2 */
	bool hw_init_done;		/**< hw_init went through for this hwfn */
	uint32_t load_code;		/**< the MFW's LOAD_REQ answer (FW_MSG_CODE_DRV_LOAD_*) */

	struct ecore_hw_info hw_info;	/**< what hw_prepare learnt */

	struct ecore_ptt_pool *p_ptt_pool;	/**< ecore_hw.c */
	struct ecore_ptt *p_main_ptt;		/**< the PTT the init flow uses */
	struct ecore_dmae_info *p_dmae;		/**< ecore_dmae.c */
	struct ecore_mcp_info *mcp_info;	/**< ecore_mcp.c */
	struct ecore_rt_data *rt_data;		/**< ecore_init_ops.c: runtime array */
	struct ecore_cxt_mngr *p_cxt_mngr;	/**< ecore_cxt.c: ILT/CDU */
	struct ecore_sb_sp_info *p_sp_sb;	/**< ecore_int.c: slow-path SB */
	struct ecore_sb_attn_info *p_sb_attn;	/**< ecore_int.c: attention SB */
	struct ecore_spq *p_spq;		/**< ecore_spq.c */
	struct ecore_eq *p_eq;			/**< ecore_spq.c */
};

/** The device: one PCI function and the hwfns behind it. */
struct ecore_dev {
	char name[20];			/**< for logs and memzone names */
	const struct ecore_bar_ops *bar_ops;	/**< how registers are reached */
	void *bar_ctx;			/**< the ops' context (a model PF, a mapped BAR) */
	uint32_t bar0_size;		/**< bytes (PGLUE_B_REG_PF_BAR0_SIZE) */
	uint32_t bar2_size;		/**< bytes (PGLUE_B_REG_PF_BAR1_SIZE) */

	uint16_t vendor_id;		/**< PCI vendor id */
	uint16_t device_id;		/**< PCI device id */
	enum ecore_chip chip;		/**< BB or AH, from the chip number */
	uint16_t chip_num;		/**< MISCS_REG_CHIP_NUM */
	uint8_t chip_rev;		/**< MISCS_REG_CHIP_REV */
	uint8_t chip_metal;		/**< MISCS_REG_CHIP_METAL */

	uint8_t num_hwfns;		/**< hwfns in use (1; 2 only for 100G CMT) */
	uint8_t num_ports_in_engine;	/**< 1, 2 or 4 */
	struct ecore_hwfn hwfns[ECORE_MAX_HWFNS];	/**< the hardware functions */

	enum ecore_int_mode int_mode;	/**< slow-path interrupt mode (hw_init) */
	/** The parsed init-values file (ecore_init_fw.h); set before hw_init. */
	const struct ecore_fw_image *fw;
	uint32_t drv_version;		/**< sent with SET_VERSION and LOAD_REQ */
	/**
	 * The storm firmware LOAD_REQ announces (major << 24 | minor << 16 |
	 * rev << 8 | eng; 0: 8.42.2.0, the init file's). The device serves the
	 * HSI of this version; tests set another to drive the model's choice.
	 */
	uint32_t load_fw_version;
};

/** True for a QL45000 (BB). */
#define ECORE_IS_BB(dev) ((dev)->chip == ECORE_CHIP_BB)
/** True for a QL41000 (AH). */
#define ECORE_IS_AH(dev) ((dev)->chip == ECORE_CHIP_AH)
/** The first hwfn (the one that speaks for the device). */
#define ECORE_LEADING_HWFN(dev) (&(dev)->hwfns[0])
/** Loop @p i over the hwfns in use. */
#define for_each_hwfn(dev, i) for ((i) = 0; (i) < (dev)->num_hwfns; (i)++)

#endif /* _ECORE_H_ */
