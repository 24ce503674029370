/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * The init flow (the guide's chapter "Hardware/Firmware initialization"):
 * each step calls the chapters' own calls in the order the guide and the
 * facts give, and undoes its own work when a later part of it fails.
 */

#include <stdio.h>

#include "ecore_cxt.h"
#include "ecore_dev_api.h"
#include "ecore_hw.h"
#include "ecore_init_fw.h"
#include "ecore_init_ops.h"
#include "ecore_int.h"
#include "ecore_mcp.h"
#include "ecore_mfw_if.h"
#include "ecore_reg.h"
#include "ecore_spq.h"

/* Event-queue elements (one 4 KiB page of 16-byte elements). */
#define ECORE_EQ_ELEMS 256
/* L2 connections an L2 PF asks the context manager for. */
#define ECORE_L2_CONNS 64

/* Final cleanup: "aggregated interrupt" completion of the PF's id, as the
 * facts give the command (SDM_OP_GEN with COMP_TYPE_AGG_INT). */
#define FINAL_CLEANUP_AGG_INT_INDEX	1
#define FINAL_CLEANUP_VECTOR_ENABLE	(1u << 6)
#define FINAL_CLEANUP_VECTOR_BIT_SHIFT	7
#define FINAL_CLEANUP_COMP_TYPE_AGG_INT	(2u << 16)
#define FINAL_CLEANUP_POLLS		100	/* 10 ms apart: 1 s */

void
ecore_init_struct(struct ecore_dev *p_dev, const char *name)
{
	unsigned int i;

	snprintf(p_dev->name, sizeof(p_dev->name), "%s", name);
	p_dev->num_hwfns = 1;
	for (i = 0; i < ECORE_MAX_HWFNS; i++) {
		struct ecore_hwfn *h = &p_dev->hwfns[i];

		h->p_dev = p_dev;
		h->my_id = i;
		snprintf(h->name, sizeof(h->name), "%.16s:%u", name, i);
	}
}

/* ---- hw_prepare ---- */

static enum _ecore_status_t
get_chip_info(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt)
{
	struct ecore_dev *p_dev = p_hwfn->p_dev;
	uint32_t port_mode, bar_size;

	p_dev->chip_num = ecore_rd(p_hwfn, p_ptt, MISCS_REG_CHIP_NUM) & 0xffff;
	p_dev->chip_rev = ecore_rd(p_hwfn, p_ptt, MISCS_REG_CHIP_REV) & 0xf;
	p_dev->chip_metal = ecore_rd(p_hwfn, p_ptt, MISCS_REG_CHIP_METAL) & 0xff;
	switch (p_dev->chip_num & 0xff00) {
	case 0x1600:
		p_dev->chip = ECORE_CHIP_BB;
		break;
	case 0x8000:
		p_dev->chip = ECORE_CHIP_AH;
		break;
	default:
		ECORE_LOG(ERR, "%s: unknown chip number 0x%04x", p_dev->name, p_dev->chip_num);
		return ECORE_NODEV;
	}
	if (ecore_rd(p_hwfn, p_ptt, MISCS_REG_CMT_ENABLED_FOR_PAIR) & (1u << p_hwfn->rel_pf_id)) {
		ECORE_LOG(ERR, "%s: 100G CMT (two engines behind one function) is not supported",
			  p_dev->name);
		return ECORE_NOTIMPL;
	}
	port_mode = ecore_rd(p_hwfn, p_ptt, MISC_REG_PORT_MODE);
	if (port_mode > 2 || (port_mode == 2 && ECORE_IS_BB(p_dev))) {
		ECORE_LOG(ERR, "%s: unknown port mode %u", p_dev->name, port_mode);
		return ECORE_INVAL;
	}
	p_dev->num_ports_in_engine = 1u << port_mode;
	p_hwfn->hw_info.port_mode = p_dev->num_ports_in_engine;
	/* BAR sizes: 1 << (value + 15); 0 means an older MFW's 512 KiB. */
	bar_size = ecore_rd(p_hwfn, p_ptt, PGLUE_B_REG_PF_BAR0_SIZE);
	p_dev->bar0_size = bar_size ? 1u << (bar_size + 15) : 512 * 1024;
	bar_size = ecore_rd(p_hwfn, p_ptt, PGLUE_B_REG_PF_BAR1_SIZE);
	p_dev->bar2_size = bar_size ? 1u << (bar_size + 15) : 512 * 1024;
	ECORE_LOG(INFO, "%s: chip %s 0x%04x rev %u metal %u, %u port(s), BAR0 %u KiB",
		  p_dev->name, ECORE_IS_BB(p_dev) ? "BB" : "AH", p_dev->chip_num,
		  p_dev->chip_rev, p_dev->chip_metal, p_dev->num_ports_in_engine,
		  p_dev->bar0_size / 1024);
	return ECORE_SUCCESS;
}

static enum _ecore_status_t
hw_prepare_single(struct ecore_hwfn *p_hwfn, const struct ecore_hw_prepare_params *params)
{
	struct ecore_ptt *p_ptt;
	enum _ecore_status_t rc;
	uint32_t opaque;

	rc = ecore_ptt_pool_alloc(p_hwfn);
	if (rc != ECORE_SUCCESS)
		return rc;
	p_ptt = p_hwfn->p_main_ptt;
	ecore_gtt_init(p_hwfn);

	/* The ME registers say who we are; all-ones: the BAR reaches nothing. */
	opaque = ecore_bar0_rd(p_hwfn, PXP_PF_ME_OPAQUE_ADDR);
	if (opaque == 0xffffffff) {
		ECORE_LOG(ERR, "%s: device not accessible (ME register reads all-ones)",
			  p_hwfn->name);
		rc = ECORE_NODEV;
		goto fail_ptt;
	}
	p_hwfn->opaque_fid = opaque & 0xffff;
	p_hwfn->concrete_fid = ecore_bar0_rd(p_hwfn, PXP_PF_ME_CONCRETE_ADDR);
	p_hwfn->rel_pf_id = p_hwfn->concrete_fid & 0xf;
	p_hwfn->port_id = (p_hwfn->concrete_fid >> 4) & 0x3;
	p_hwfn->path_id = (p_hwfn->concrete_fid >> 6) & 0x1;
	p_hwfn->abs_pf_id = (p_hwfn->concrete_fid >> 16) & 0xf;
	p_hwfn->abs_port_id = p_hwfn->port_id;

	rc = get_chip_info(p_hwfn, p_ptt);
	if (rc != ECORE_SUCCESS)
		goto fail_ptt;

	rc = ecore_mcp_cmd_init(p_hwfn, p_ptt);
	if (rc != ECORE_SUCCESS)
		goto fail_ptt;
	if (params != NULL && params->mfw_timeout_ms != 0)
		ecore_mcp_set_timeout_ms(p_hwfn, params->mfw_timeout_ms);
	if (params != NULL && params->initiate_pf_flr) {
		rc = ecore_mcp_initiate_pf_flr(p_hwfn, p_ptt);
		if (rc != ECORE_SUCCESS)
			goto fail_mcp;
		/* The reset forgot where the windows point. */
		ecore_ptt_invalidate(p_hwfn);
		ecore_gtt_init(p_hwfn);
	}
	rc = ecore_int_igu_read_cam(p_hwfn, p_ptt);
	if (rc != ECORE_SUCCESS)
		goto fail_mcp;
	rc = ecore_mcp_get_resources(p_hwfn, p_ptt);
	if (rc != ECORE_SUCCESS)
		goto fail_mcp;
	p_hwfn->hw_info.hw_mode = ecore_init_mode_mask(p_hwfn->p_dev);
	return ECORE_SUCCESS;

fail_mcp:
	ecore_mcp_free(p_hwfn);
fail_ptt:
	ecore_ptt_pool_free(p_hwfn);
	return rc;
}

enum _ecore_status_t
ecore_hw_prepare(struct ecore_dev *p_dev, const struct ecore_hw_prepare_params *params)
{
	enum _ecore_status_t rc;
	unsigned int i;

	if (p_dev->bar_ops == NULL) {
		ECORE_LOG(ERR, "%s: no BAR access", p_dev->name);
		return ECORE_INVAL;
	}
	for_each_hwfn(p_dev, i) {
		rc = hw_prepare_single(&p_dev->hwfns[i], params);
		if (rc != ECORE_SUCCESS) {
			while (i-- > 0) {
				ecore_mcp_free(&p_dev->hwfns[i]);
				ecore_ptt_pool_free(&p_dev->hwfns[i]);
			}
			return rc;
		}
	}
	return ECORE_SUCCESS;
}

void
ecore_hw_remove(struct ecore_dev *p_dev)
{
	unsigned int i;

	for_each_hwfn(p_dev, i) {
		ecore_mcp_free(&p_dev->hwfns[i]);
		ecore_ptt_pool_free(&p_dev->hwfns[i]);
	}
}

/* ---- resources ---- */

void
ecore_resc_free(struct ecore_dev *p_dev)
{
	unsigned int i;

	for_each_hwfn(p_dev, i) {
		struct ecore_hwfn *h = &p_dev->hwfns[i];

		ecore_init_overlays_free(h);
		ecore_dmae_info_free(h);
		ecore_eq_free(h);
		ecore_int_free(h);
		ecore_spq_free(h);
		ecore_cxt_mngr_free(h);
		ecore_init_free(h);
	}
}

static enum _ecore_status_t
resc_alloc_single(struct ecore_hwfn *p_hwfn)
{
	enum _ecore_status_t rc;

	rc = ecore_init_alloc(p_hwfn);
	if (rc == ECORE_SUCCESS)
		rc = ecore_cxt_mngr_alloc(p_hwfn);
	if (rc == ECORE_SUCCESS)
		rc = ecore_cxt_set_pf_params(p_hwfn, ECORE_L2_CONNS);
	if (rc == ECORE_SUCCESS)
		rc = ecore_cxt_tables_alloc(p_hwfn);
	if (rc == ECORE_SUCCESS)
		rc = ecore_spq_alloc(p_hwfn);
	if (rc == ECORE_SUCCESS)
		rc = ecore_int_alloc(p_hwfn, p_hwfn->p_main_ptt);
	if (rc == ECORE_SUCCESS)
		rc = ecore_eq_alloc(p_hwfn, ECORE_EQ_ELEMS);
	if (rc == ECORE_SUCCESS)
		rc = ecore_dmae_info_alloc(p_hwfn);
	return rc;
}

enum _ecore_status_t
ecore_resc_alloc(struct ecore_dev *p_dev)
{
	enum _ecore_status_t rc;
	unsigned int i;

	if (p_dev->fw == NULL) {
		ECORE_LOG(ERR, "%s: no firmware image (the init-values file) to size the runtime array",
			  p_dev->name);
		return ECORE_INVAL;
	}
	for_each_hwfn(p_dev, i) {
		rc = resc_alloc_single(&p_dev->hwfns[i]);
		if (rc != ECORE_SUCCESS) {
			ECORE_LOG(ERR, "%s: cannot allocate resources: %s", p_dev->hwfns[i].name,
				  ecore_status_str(rc));
			ecore_resc_free(p_dev);
			return rc;
		}
	}
	return ECORE_SUCCESS;
}

void
ecore_resc_setup(struct ecore_dev *p_dev)
{
	unsigned int i;

	for_each_hwfn(p_dev, i) {
		struct ecore_hwfn *h = &p_dev->hwfns[i];

		ecore_init_clear_rt_data(h);
		ecore_cxt_mngr_setup(h);
		ecore_spq_setup(h);
		ecore_eq_setup(h);
		ecore_int_setup(h, h->p_main_ptt);
	}
}

/* ---- hw_init ---- */

static enum _ecore_status_t
final_cleanup(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt)
{
	uint32_t ack = USDM_GRC_BASE + ecore_iro_addr(p_hwfn->p_dev->fw,
			ECORE_IRO_USTORM_FLR_FINAL_ACK, p_hwfn->rel_pf_id, 0, 0);
	uint32_t cmd;
	unsigned int i;

	if (ecore_rd(p_hwfn, p_ptt, ack) != 0) {
		ECORE_LOG(NOTICE, "%s: stale final-cleanup ack found, cleared", p_hwfn->name);
		ecore_wr(p_hwfn, p_ptt, ack, 0);
	}
	cmd = FINAL_CLEANUP_AGG_INT_INDEX | FINAL_CLEANUP_VECTOR_ENABLE |
		(uint32_t)p_hwfn->rel_pf_id << FINAL_CLEANUP_VECTOR_BIT_SHIFT |
		FINAL_CLEANUP_COMP_TYPE_AGG_INT;
	ecore_wr(p_hwfn, p_ptt, XSDM_REG_OPERATION_GEN, cmd);
	for (i = 0; i < FINAL_CLEANUP_POLLS; i++) {
		if (ecore_rd(p_hwfn, p_ptt, ack) != 0) {
			ecore_wr(p_hwfn, p_ptt, ack, 0);
			return ECORE_SUCCESS;
		}
		ecore_osal_udelay(10000);
	}
	ECORE_LOG(ERR, "%s: final cleanup of PF %u not acknowledged in 1 s", p_hwfn->name,
		  p_hwfn->rel_pf_id);
	return ECORE_TIMEOUT;
}

static const char *
load_code_str(uint32_t load_code)
{
	switch (load_code) {
	case FW_MSG_CODE_DRV_LOAD_ENGINE: return "ENGINE";
	case FW_MSG_CODE_DRV_LOAD_PORT: return "PORT";
	case FW_MSG_CODE_DRV_LOAD_FUNCTION: return "FUNCTION";
	}
	return "?";
}

/* The phases a load code asks for, run in order; each names itself in errors. */
static enum _ecore_status_t
run_phases(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt, uint32_t load_code)
{
	uint32_t modes = p_hwfn->hw_info.hw_mode;
	enum _ecore_status_t rc = ECORE_SUCCESS;

	/* Stage the context manager's registers first: the ENGINE phase
	 * consumes the CDU's (engine-wide), the PF phase the PF's ILT lines. */
	ecore_cxt_hw_init_pf(p_hwfn, p_ptt);
	switch (load_code) {
	case FW_MSG_CODE_DRV_LOAD_ENGINE:
		rc = ecore_init_run(p_hwfn, p_ptt, PHASE_ENGINE, ECORE_INIT_PHASE_ID_ANY, modes);
		if (rc != ECORE_SUCCESS)
			return rc;
		/* fall through */
	case FW_MSG_CODE_DRV_LOAD_PORT:
		rc = ecore_init_run(p_hwfn, p_ptt, PHASE_PORT, p_hwfn->port_id, modes);
		if (rc != ECORE_SUCCESS)
			return rc;
		/* fall through */
	case FW_MSG_CODE_DRV_LOAD_FUNCTION:
		rc = ecore_init_run(p_hwfn, p_ptt, PHASE_PF, p_hwfn->rel_pf_id, modes);
		if (rc != ECORE_SUCCESS)
			return rc;
		rc = ecore_init_run(p_hwfn, p_ptt, PHASE_QM_PF, p_hwfn->rel_pf_id, modes);
		break;
	default:
		ECORE_LOG(ERR, "%s: unexpected load code 0x%08x", p_hwfn->name, load_code);
		return ECORE_INVAL;
	}
	return rc;
}

static enum _ecore_status_t
hw_init_single(struct ecore_hwfn *p_hwfn, const struct ecore_hw_init_params *params)
{
	struct ecore_ptt *p_ptt = p_hwfn->p_main_ptt;
	struct ecore_load_req_params load = { 0 };
	bool pf_started = false;
	enum _ecore_status_t rc;

	if (params->spq_timeout_ms != 0)
		ecore_spq_set_block_timeout_ms(p_hwfn, params->spq_timeout_ms);
	rc = ecore_mcp_load_req(p_hwfn, p_ptt, &load);
	if (rc != ECORE_SUCCESS)
		return rc;	/* nothing loaded: nothing to undo */
	p_hwfn->load_code = load.load_code;
	ECORE_LOG(INFO, "%s: MFW load answer %s", p_hwfn->name, load_code_str(load.load_code));

	/* A function joining an engine or port someone set up cleans its own
	 * state in the firmware first. */
	if (load.load_code != FW_MSG_CODE_DRV_LOAD_ENGINE) {
		rc = final_cleanup(p_hwfn, p_ptt);
		if (rc != ECORE_SUCCESS)
			goto unload;
	}
	rc = run_phases(p_hwfn, p_ptt, load.load_code);
	if (rc != ECORE_SUCCESS)
		goto unload;
	rc = ecore_init_overlays_load(p_hwfn, p_ptt);
	if (rc != ECORE_SUCCESS)
		goto unload;
	rc = ecore_dmae_sanity(p_hwfn, p_ptt, "pf");
	if (rc != ECORE_SUCCESS)
		goto unload;
	ecore_int_igu_enable(p_hwfn, p_ptt, params->int_mode);
	ecore_wr(p_hwfn, p_ptt, DORQ_REG_PF_DB_ENABLE, 1);
	if (params->b_hw_start) {
		rc = ecore_sp_pf_start(p_hwfn, p_ptt, 0, params->allow_npar_tx_switch);
		if (rc != ECORE_SUCCESS)
			goto close;
		pf_started = true;
	}
	rc = ecore_mcp_load_done(p_hwfn, p_ptt);
	if (rc != ECORE_SUCCESS)
		goto stop;
	p_hwfn->hw_init_done = true;
	return ECORE_SUCCESS;

stop:
	if (pf_started)
		ecore_sp_pf_stop(p_hwfn);
close:
	ecore_wr(p_hwfn, p_ptt, DORQ_REG_PF_DB_ENABLE, 0);
	ecore_int_igu_disable_int(p_hwfn, p_ptt);
unload:
	/* Give the load back so the MFW's counts stay true for the next try. */
	if (ecore_mcp_unload_req(p_hwfn, p_ptt) == ECORE_SUCCESS)
		ecore_mcp_unload_done(p_hwfn, p_ptt);
	ECORE_LOG(ERR, "%s: hw_init failed: %s", p_hwfn->name, ecore_status_str(rc));
	return rc;
}

enum _ecore_status_t
ecore_hw_init(struct ecore_dev *p_dev, const struct ecore_hw_init_params *params)
{
	static const struct ecore_hw_init_params defaults = { .b_hw_start = true };
	enum _ecore_status_t rc;
	unsigned int i;

	if (params == NULL)
		params = &defaults;
	if (p_dev->fw == NULL) {
		ECORE_LOG(ERR, "%s: no firmware image (the init-values file)", p_dev->name);
		return ECORE_INVAL;
	}
	p_dev->int_mode = params->int_mode;
	for_each_hwfn(p_dev, i) {
		rc = hw_init_single(&p_dev->hwfns[i], params);
		if (rc != ECORE_SUCCESS) {
			ecore_hw_stop(p_dev);	/* the hwfns that came up before */
			return rc;
		}
	}
	return ECORE_SUCCESS;
}

/* ---- hw_stop ---- */

static enum _ecore_status_t
hw_stop_single(struct ecore_hwfn *p_hwfn)
{
	struct ecore_ptt *p_ptt = p_hwfn->p_main_ptt;
	enum _ecore_status_t rc, first = ECORE_SUCCESS;

	if (!p_hwfn->hw_init_done)
		return ECORE_SUCCESS;
	rc = ecore_mcp_unload_req(p_hwfn, p_ptt);
	if (rc != ECORE_SUCCESS) {
		ECORE_LOG(ERR, "%s: UNLOAD_REQ failed: %s (stopping anyway)", p_hwfn->name,
			  ecore_status_str(rc));
		first = rc;
	}
	rc = ecore_sp_pf_stop(p_hwfn);
	if (rc != ECORE_SUCCESS && first == ECORE_SUCCESS)
		first = rc;
	ecore_wr(p_hwfn, p_ptt, DORQ_REG_PF_DB_ENABLE, 0);
	ecore_int_igu_disable_int(p_hwfn, p_ptt);
	rc = ecore_mcp_unload_done(p_hwfn, p_ptt);
	if (rc != ECORE_SUCCESS && first == ECORE_SUCCESS)
		first = rc;
	p_hwfn->hw_init_done = false;
	return first;
}

enum _ecore_status_t
ecore_hw_stop(struct ecore_dev *p_dev)
{
	enum _ecore_status_t rc, first = ECORE_SUCCESS;
	unsigned int i;

	for_each_hwfn(p_dev, i) {
		rc = hw_stop_single(&p_dev->hwfns[i]);
		if (rc != ECORE_SUCCESS && first == ECORE_SUCCESS)
			first = rc;
	}
	return first;
}
