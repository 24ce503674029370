/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* The MFW interface: SHMEM, the driver mailbox, load/unload, link, resources. */

#include "ecore_hw.h"
#include "ecore_mcp.h"
#include "ecore_reg.h"

/* The firmware the load request names by default (the init file's 8.42.2.0);
 * the PDA component version is its major | minor << 8. */
#define ECORE_FW_VERSION	0x082a0200u

/* Mailbox poll interval, and the SHMEM-ready poll (sup_msgs). */
#define MCP_POLL_US		10
#define MCP_SHMEM_POLL_MS	50

struct ecore_mcp_info {
	ecore_osal_spinlock_t cmd_lock;		/* one command pending */
	ecore_osal_spinlock_t link_lock;	/* link_state */
	uint32_t public_base;			/* GRC address of mcp_public_data */
	uint32_t mb_index;			/* MCP_PF_ID */
	uint32_t drv_mb_addr;
	uint32_t mfw_mb_addr;
	uint32_t global_addr;
	uint32_t port_addr;
	uint32_t func_addr;
	uint32_t mfw_mb_length;			/* sup_msgs: message types */
	uint16_t drv_mb_seq;			/* the last sequence number used */
	uint32_t timeout_us;
	uint32_t unload_code;
	enum ecore_resc_source resc_source;
	struct ecore_mcp_link_params link_params;
	struct ecore_mcp_link_state link_state;
	uint32_t link_changes;
	void (*link_cb)(struct ecore_hwfn *p_hwfn, void *arg);
	void *link_cb_arg;
};

/* ---- pure rules ---- */

uint16_t
ecore_mcp_seq_next(uint16_t seq)
{
	return (uint16_t)((seq + 1u) & DRV_MSG_SEQ_NUMBER_MASK);
}

uint32_t
ecore_mcp_mb_header(uint32_t cmd, uint16_t seq)
{
	return (cmd & DRV_MSG_CODE_MASK) | (seq & DRV_MSG_SEQ_NUMBER_MASK);
}

bool
ecore_mcp_reply_matches(uint32_t fw_header, uint16_t seq)
{
	return (fw_header & FW_MSG_SEQ_NUMBER_MASK) == seq;
}

uint32_t
ecore_mcp_reply_code(uint32_t fw_header)
{
	return fw_header & FW_MSG_CODE_MASK;
}

const char *
ecore_mcp_load_code_str(uint32_t code)
{
	switch (code) {
	case FW_MSG_CODE_DRV_LOAD_ENGINE: return "engine";
	case FW_MSG_CODE_DRV_LOAD_PORT: return "port";
	case FW_MSG_CODE_DRV_LOAD_FUNCTION: return "function";
	case FW_MSG_CODE_DRV_LOAD_REFUSED_PDA: return "refused: PDA";
	case FW_MSG_CODE_DRV_LOAD_REFUSED_HSI_1:
	case FW_MSG_CODE_DRV_LOAD_REFUSED_HSI: return "refused: HSI";
	case FW_MSG_CODE_DRV_LOAD_REFUSED_DIAG: return "refused: DIAG";
	case FW_MSG_CODE_DRV_LOAD_REFUSED_REQUIRES_FORCE: return "refused: requires force";
	case FW_MSG_CODE_DRV_LOAD_REFUSED_REJECT: return "refused: REJECT";
	}
	return "unknown";
}

bool
ecore_mcp_load_code_is_refusal(uint32_t code)
{
	switch (code) {
	case FW_MSG_CODE_DRV_LOAD_REFUSED_PDA:
	case FW_MSG_CODE_DRV_LOAD_REFUSED_HSI_1:
	case FW_MSG_CODE_DRV_LOAD_REFUSED_HSI:
	case FW_MSG_CODE_DRV_LOAD_REFUSED_DIAG:
	case FW_MSG_CODE_DRV_LOAD_REFUSED_REQUIRES_FORCE:
	case FW_MSG_CODE_DRV_LOAD_REFUSED_REJECT:
		return true;
	}
	return false;
}

const char *
ecore_mcp_unload_code_str(uint32_t code)
{
	switch (code) {
	case FW_MSG_CODE_DRV_UNLOAD_ENGINE: return "engine";
	case FW_MSG_CODE_DRV_UNLOAD_PORT: return "port";
	case FW_MSG_CODE_DRV_UNLOAD_FUNCTION: return "function";
	}
	return "unknown";
}

/* ---- set-up ---- */

void
ecore_mcp_free(struct ecore_hwfn *p_hwfn)
{
	ecore_osal_free(p_hwfn->mcp_info);
	p_hwfn->mcp_info = NULL;
}

void
ecore_mcp_set_timeout_ms(struct ecore_hwfn *p_hwfn, uint32_t ms)
{
	if (p_hwfn->mcp_info != NULL)
		p_hwfn->mcp_info->timeout_us = ms * 1000;
}

/* The GRC address of element @p idx of @p section, or 0 when the offsize
 * points outside the scratchpad (SHMEM is the MFW's: checked, not trusted). */
static uint32_t
section_addr(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt, enum mfw_section section,
	     uint32_t idx, uint32_t min_size)
{
	struct ecore_mcp_info *info = p_hwfn->mcp_info;
	uint32_t offsize, off, size;

	offsize = ecore_rd(p_hwfn, p_ptt,
			   info->public_base + MFW_PUBLIC_SECTIONS_OFF + 4 * (uint32_t)section);
	off = (offsize & 0xffff) * 4;
	size = (offsize >> 16) * 4;
	if (size < min_size || off + (uint64_t)size * (idx + 1) > MCP_REG_SCRATCH_SIZE) {
		ECORE_LOG(ERR, "%s: SHMEM section %u (offsize 0x%08x) element %u is outside the scratchpad",
			  p_hwfn->name, section, offsize, idx);
		return 0;
	}
	return mfw_section_addr(MCP_REG_SCRATCH, offsize, idx);
}

/* Default link parameters from nvm_cfg (the port's speed capabilities and
 * link settings); autoneg over every speed when the MFW gave no nvm_cfg. */
static void
read_link_config(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt)
{
	struct ecore_mcp_link_params *lp = &p_hwfn->mcp_info->link_params;
	uint32_t nvm_cfg, nvm1, port, caps, settings;

	lp->autoneg = true;
	lp->advertised_speeds = NVM_SPEED_CAP_1G | NVM_SPEED_CAP_10G | NVM_SPEED_CAP_25G |
		NVM_SPEED_CAP_40G | NVM_SPEED_CAP_50G | NVM_SPEED_CAP_100G;
	lp->pause = PHY_PAUSE_AUTONEG | PHY_PAUSE_RX | PHY_PAUSE_TX;

	nvm_cfg = ecore_rd(p_hwfn, p_ptt, MISC_REG_GEN_PURP_CR0);
	if (nvm_cfg == 0) {
		ECORE_LOG(WARNING, "%s: no nvm_cfg (GEN_PURP_CR0 is 0): link defaults to autoneg",
			  p_hwfn->name);
		return;
	}
	nvm1 = ecore_rd(p_hwfn, p_ptt, nvm_cfg + NVM_CFG_NVM_CFG1_OFFSET_OFF);
	port = nvm1 + NVM_CFG1_PORT_OFF + NVM_CFG1_PORT_SIZE * (uint32_t)p_hwfn->port_id;
	if ((uint64_t)port + NVM_CFG1_PORT_SIZE > MCP_REG_SCRATCH_SIZE) {
		ECORE_LOG(WARNING, "%s: nvm_cfg1 offset 0x%x is outside the scratchpad",
			  p_hwfn->name, nvm1);
		return;
	}
	caps = ecore_rd(p_hwfn, p_ptt, MCP_REG_SCRATCH + port + NVM_CFG1_PORT_SPEED_CAP_OFF);
	settings = ecore_rd(p_hwfn, p_ptt,
			    MCP_REG_SCRATCH + port + NVM_CFG1_PORT_LINK_SETTINGS_OFF);
	if ((caps & 0xffff) != 0)
		lp->advertised_speeds = caps & 0xffff;
	lp->pause = (settings >> NVM_PAUSE_SHIFT) & NVM_PAUSE_MASK;
	switch (settings & NVM_LINK_SPEED_MASK) {
	case NVM_LINK_SPEED_1G: lp->forced_speed = 1000; break;
	case NVM_LINK_SPEED_10G: lp->forced_speed = 10000; break;
	case NVM_LINK_SPEED_25G: lp->forced_speed = 25000; break;
	case NVM_LINK_SPEED_40G: lp->forced_speed = 40000; break;
	case NVM_LINK_SPEED_50G: lp->forced_speed = 50000; break;
	case NVM_LINK_SPEED_100G: lp->forced_speed = 100000; break;
	default: lp->forced_speed = 0; break;
	}
	lp->autoneg = lp->forced_speed == 0;
}

/* link_status -> link_state (link_lock held). */
static void
link_state_parse(struct ecore_mcp_link_state *ls, uint32_t status)
{
	uint32_t code = (status & LINK_STATUS_SPEED_AND_DUPLEX_MASK) >>
		LINK_STATUS_SPEED_AND_DUPLEX_SHIFT;

	memset(ls, 0, sizeof(*ls));
	ls->raw = status;
	ls->link_up = (status & LINK_STATUS_LINK_UP) != 0;
	ls->an = (status & LINK_STATUS_AUTO_NEGOTIATE_ENABLED) != 0;
	ls->an_complete = (status & LINK_STATUS_AUTO_NEGOTIATE_COMPLETE) != 0;
	if (ls->link_up) {
		ls->speed = mfw_link_speed_mbps(code);
		ls->full_duplex = code != LINK_STATUS_SPEED_1000THD;
	}
}

static void
link_read(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt)
{
	struct ecore_mcp_info *info = p_hwfn->mcp_info;
	uint32_t status = ecore_rd(p_hwfn, p_ptt, info->port_addr + MFW_PORT_LINK_STATUS_OFF);

	ecore_osal_spin_lock(&info->link_lock);
	link_state_parse(&info->link_state, status);
	ecore_osal_spin_unlock(&info->link_lock);
}

enum _ecore_status_t
ecore_mcp_cmd_init(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt)
{
	struct ecore_dev *p_dev = p_hwfn->p_dev;
	struct ecore_mcp_info *info;
	enum _ecore_status_t rc;
	uint32_t base, upper, lower, waited = 0;

	if (p_hwfn->mcp_info != NULL)
		return ECORE_EXISTS;
	base = ecore_rd(p_hwfn, p_ptt, MISC_REG_SHARED_MEM_ADDR);
	if (base == 0) {
		ECORE_LOG(ERR, "%s: no MFW (SHARED_MEM_ADDR is 0)", p_hwfn->name);
		return ECORE_NODEV;
	}
	info = ecore_osal_zalloc(sizeof(*info));
	if (info == NULL)
		return ECORE_NOMEM;
	ecore_osal_spin_init(&info->cmd_lock);
	ecore_osal_spin_init(&info->link_lock);
	info->timeout_us = ECORE_MCP_DEFAULT_TIMEOUT_MS * 1000;
	info->public_base = base | MFW_PUBLIC_BASE_OR;
	info->mb_index = mfw_mcp_pf_id(ECORE_IS_BB(p_dev), p_hwfn->rel_pf_id, p_hwfn->abs_pf_id);
	p_hwfn->mcp_info = info;

	rc = ECORE_INVAL;
	info->mfw_mb_addr = section_addr(p_hwfn, p_ptt, MFW_SECTION_MFW_MB, info->mb_index, 4);
	if (info->mfw_mb_addr == 0)
		goto fail;
	/* sup_msgs turns non-zero once the MFW has SHMEM ready. */
	for (;;) {
		info->mfw_mb_length = ecore_rd(p_hwfn, p_ptt,
					       info->mfw_mb_addr + MFW_MB_SUP_MSGS_OFF) & 0xffff;
		if (info->mfw_mb_length != 0 || waited >= ECORE_MCP_SHMEM_READY_MS)
			break;
		ecore_osal_udelay(MCP_SHMEM_POLL_MS * 1000);
		waited += MCP_SHMEM_POLL_MS;
	}
	if (info->mfw_mb_length == 0) {
		ECORE_LOG(ERR, "%s: SHMEM not ready (sup_msgs still 0 after %u ms)",
			  p_hwfn->name, waited);
		rc = ECORE_TIMEOUT;
		goto fail;
	}
	if (mfw_msg_dwords(info->mfw_mb_length) > MFW_MB_MAX_DWORDS) {
		ECORE_LOG(WARNING, "%s: MFW supports %u message types; handling the first %u",
			  p_hwfn->name, info->mfw_mb_length, MFW_MB_MAX_DWORDS * 4);
		info->mfw_mb_length = MFW_MB_MAX_DWORDS * 4;
	}
	info->drv_mb_addr = section_addr(p_hwfn, p_ptt, MFW_SECTION_DRV_MB, info->mb_index,
					 DRV_MB_SIZE);
	info->global_addr = section_addr(p_hwfn, p_ptt, MFW_SECTION_GLOBAL, 0,
					 MFW_GLOBAL_MFW_VER_OFF + 4);
	info->port_addr = section_addr(p_hwfn, p_ptt, MFW_SECTION_PORT, p_hwfn->port_id,
				       MFW_PORT_LINK_STATUS_OFF + 4);
	info->func_addr = section_addr(p_hwfn, p_ptt, MFW_SECTION_FUNC, info->mb_index,
				       MFW_FUNC_MAC_LOWER_OFF + 4);
	if (info->drv_mb_addr == 0 || info->global_addr == 0 || info->port_addr == 0 ||
	    info->func_addr == 0)
		goto fail;

	info->drv_mb_seq = ecore_rd(p_hwfn, p_ptt, info->drv_mb_addr + DRV_MB_HEADER_OFF) &
		DRV_MSG_SEQ_NUMBER_MASK;
	p_hwfn->hw_info.mfw_rev = ecore_rd(p_hwfn, p_ptt,
					   info->global_addr + MFW_GLOBAL_MFW_VER_OFF);
	upper = ecore_rd(p_hwfn, p_ptt, info->func_addr + MFW_FUNC_MAC_UPPER_OFF);
	lower = ecore_rd(p_hwfn, p_ptt, info->func_addr + MFW_FUNC_MAC_LOWER_OFF);
	p_hwfn->hw_info.mac[0] = upper >> 8;
	p_hwfn->hw_info.mac[1] = upper;
	p_hwfn->hw_info.mac[2] = lower >> 24;
	p_hwfn->hw_info.mac[3] = lower >> 16;
	p_hwfn->hw_info.mac[4] = lower >> 8;
	p_hwfn->hw_info.mac[5] = lower;
	if ((upper & 0xffff) == 0xffff && lower == 0xffffffff)
		ECORE_LOG(WARNING, "%s: the MFW gave this PF no MAC address", p_hwfn->name);
	read_link_config(p_hwfn, p_ptt);
	link_read(p_hwfn, p_ptt);
	ECORE_LOG(INFO, "%s: MFW %u.%u.%u.%u, mailbox %u, seq %u, %u message types",
		  p_hwfn->name, p_hwfn->hw_info.mfw_rev >> 24, (p_hwfn->hw_info.mfw_rev >> 16) & 0xff,
		  (p_hwfn->hw_info.mfw_rev >> 8) & 0xff, p_hwfn->hw_info.mfw_rev & 0xff,
		  info->mb_index, info->drv_mb_seq, info->mfw_mb_length);
	return ECORE_SUCCESS;
fail:
	ecore_mcp_free(p_hwfn);
	return rc;
}

/* ---- the mailbox ---- */

static const char *
cmd_name(uint32_t cmd)
{
	switch (cmd & DRV_MSG_CODE_MASK) {
	case DRV_MSG_CODE_LOAD_REQ: return "LOAD_REQ";
	case DRV_MSG_CODE_LOAD_DONE: return "LOAD_DONE";
	case DRV_MSG_CODE_CANCEL_LOAD_REQ: return "CANCEL_LOAD_REQ";
	case DRV_MSG_CODE_UNLOAD_REQ: return "UNLOAD_REQ";
	case DRV_MSG_CODE_UNLOAD_DONE: return "UNLOAD_DONE";
	case DRV_MSG_CODE_INIT_PHY: return "INIT_PHY";
	case DRV_MSG_CODE_LINK_RESET: return "LINK_RESET";
	case DRV_MSG_CODE_NIG_DRAIN: return "NIG_DRAIN";
	case DRV_MSG_CODE_OV_UPDATE_DRIVER_STATE: return "OV_UPDATE_DRIVER_STATE";
	case DRV_MSG_CODE_GET_RESOURCE_ALLOC_MSG: return "GET_RESOURCE_ALLOC_MSG";
	case DRV_MSG_CODE_INITIATE_PF_FLR: return "INITIATE_PF_FLR";
	case DRV_MSG_CODE_SET_VERSION: return "SET_VERSION";
	}
	return "command";
}

enum _ecore_status_t
ecore_mcp_cmd_and_union(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt,
			struct ecore_mcp_mb_params *p)
{
	struct ecore_mcp_info *info = p_hwfn->mcp_info;
	uint32_t fw_header = 0;
	uint64_t deadline;
	uint16_t seq;
	bool answered = false;

	if (info == NULL)
		return ECORE_NODEV;
	if ((p->data_in != NULL && (p->data_in_len > DRV_MB_UNION_SIZE || p->data_in_len % 4)) ||
	    (p->data_out != NULL && (p->data_out_len > DRV_MB_UNION_SIZE ||
				     p->data_out_len % 4)))
		return ECORE_INVAL;

	ecore_osal_spin_lock(&info->cmd_lock);
	if (p->data_in != NULL)
		ecore_memcpy_to(p_hwfn, p_ptt, info->drv_mb_addr + DRV_MB_UNION_OFF, p->data_in,
				p->data_in_len);
	seq = ecore_mcp_seq_next(info->drv_mb_seq);
	info->drv_mb_seq = seq;
	ecore_wr(p_hwfn, p_ptt, info->drv_mb_addr + DRV_MB_PARAM_OFF, p->param);
	ecore_wr(p_hwfn, p_ptt, info->drv_mb_addr + DRV_MB_HEADER_OFF,
		 ecore_mcp_mb_header(p->cmd, seq));

	/* A reply carrying another sequence number is a stale one: keep waiting. */
	deadline = ecore_osal_time_us() + info->timeout_us;
	for (;;) {
		fw_header = ecore_rd(p_hwfn, p_ptt, info->drv_mb_addr + DRV_MB_FW_HEADER_OFF);
		if (ecore_mcp_reply_matches(fw_header, seq)) {
			answered = true;
			break;
		}
		if (ecore_osal_time_us() >= deadline)
			break;
		ecore_osal_udelay(MCP_POLL_US);
	}
	if (answered) {
		p->mcp_resp = ecore_mcp_reply_code(fw_header);
		p->mcp_param = ecore_rd(p_hwfn, p_ptt, info->drv_mb_addr + DRV_MB_FW_PARAM_OFF);
		if (p->data_out != NULL)
			ecore_memcpy_from(p_hwfn, p_ptt, p->data_out,
					  info->drv_mb_addr + DRV_MB_UNION_OFF, p->data_out_len);
	}
	ecore_osal_spin_unlock(&info->cmd_lock);

	if (!answered) {
		ECORE_LOG(ERR, "%s: the MFW did not answer %s (0x%08x, param 0x%08x, seq %u) in %u ms (last fw_mb_header 0x%08x)",
			  p_hwfn->name, cmd_name(p->cmd), p->cmd, p->param, seq,
			  info->timeout_us / 1000, fw_header);
		p->mcp_resp = 0;
		p->mcp_param = 0;
		return ECORE_TIMEOUT;
	}
	return ECORE_SUCCESS;
}

enum _ecore_status_t
ecore_mcp_cmd(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt, uint32_t cmd, uint32_t param,
	      uint32_t *o_resp, uint32_t *o_param)
{
	struct ecore_mcp_mb_params mb = { .cmd = cmd, .param = param };
	enum _ecore_status_t rc;

	rc = ecore_mcp_cmd_and_union(p_hwfn, p_ptt, &mb);
	if (o_resp != NULL)
		*o_resp = mb.mcp_resp;
	if (o_param != NULL)
		*o_param = mb.mcp_param;
	return rc;
}

/* ---- load / unload ---- */

enum _ecore_status_t
ecore_mcp_initiate_pf_flr(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt)
{
	enum _ecore_status_t rc;
	uint32_t resp;

	rc = ecore_mcp_cmd(p_hwfn, p_ptt, DRV_MSG_CODE_INITIATE_PF_FLR, 0, &resp, NULL);
	if (rc != ECORE_SUCCESS)
		return rc;
	if (resp == FW_MSG_CODE_UNSUPPORTED)
		ECORE_LOG(NOTICE, "%s: the MFW does not support INITIATE_PF_FLR", p_hwfn->name);
	return ECORE_SUCCESS;
}

static enum _ecore_status_t
load_req_send(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt,
	      const struct ecore_load_req_params *p, uint32_t force, uint32_t *resp,
	      uint32_t *rsp_misc0)
{
	uint8_t req[16], rsp[16];
	struct ecore_mcp_mb_params mb = {
		.cmd = DRV_MSG_CODE_LOAD_REQ,
		.param = LOAD_REQ_HSI_VERSION << LOAD_REQ_PARAM_HSI_SHIFT |
			LOAD_REQ_DRV_TYPE_LINUX << LOAD_REQ_PARAM_DRV_TYPE_SHIFT |
			LOAD_REQ_PARAM_INIT_HW,
		.data_in = req, .data_in_len = sizeof(req),
		.data_out = rsp, .data_out_len = sizeof(rsp),
	};
	uint32_t fw_ver = p_hwfn->p_dev->load_fw_version != 0 ?
		p_hwfn->p_dev->load_fw_version : ECORE_FW_VERSION;
	enum _ecore_status_t rc;
	uint32_t misc0;

	/* the PDA component version is the announced firmware's major | minor << 8 */
	mb.param |= ((fw_ver >> 24) | ((fw_ver >> 16) & 0xff) << 8) & LOAD_REQ_PARAM_PDA_MASK;
	misc0 = (uint32_t)(p->drv_role != 0 ? p->drv_role : DRV_ROLE_OS) <<
		LOAD_REQ_MISC0_ROLE_SHIFT;
	misc0 |= (uint32_t)p->timeout_val << LOAD_REQ_MISC0_LOCK_TO_SHIFT;
	misc0 |= force << LOAD_REQ_MISC0_FORCE_SHIFT;
	if (p->avoid_eng_reset)
		misc0 |= (uint32_t)LOAD_REQ_FLAGS0_AVOID_RESET << LOAD_REQ_MISC0_FLAGS0_SHIFT;
	omni_put_le32(req + LOAD_REQ_DRV_VER_0_OFF, p_hwfn->p_dev->drv_version);
	omni_put_le32(req + LOAD_REQ_DRV_VER_1_OFF, 0);
	omni_put_le32(req + LOAD_REQ_FW_VER_OFF, fw_ver);
	omni_put_le32(req + LOAD_REQ_MISC0_OFF, misc0);
	rc = ecore_mcp_cmd_and_union(p_hwfn, p_ptt, &mb);
	*resp = mb.mcp_resp;
	*rsp_misc0 = omni_get_le32(rsp + LOAD_RSP_MISC0_OFF);
	return rc;
}

/* Whether a REQUIRES_FORCE refusal is answered by forcing the load. */
static bool
load_should_force(const struct ecore_load_req_params *p, uint32_t existing_role)
{
	switch (p->override_force_load) {
	case ECORE_OVERRIDE_FORCE_LOAD_ALWAYS:
		return true;
	case ECORE_OVERRIDE_FORCE_LOAD_NEVER:
		return false;
	}
	/* A preboot or crash-dump driver left behind is overridden; an OS driver is not. */
	return existing_role == DRV_ROLE_PREBOOT || existing_role == DRV_ROLE_KDUMP;
}

enum _ecore_status_t
ecore_mcp_load_req(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt,
		   struct ecore_load_req_params *p)
{
	enum _ecore_status_t rc;
	uint32_t resp, rsp_misc0, role;

	p->load_code = 0;
	rc = load_req_send(p_hwfn, p_ptt, p, LOAD_REQ_FORCE_NONE, &resp, &rsp_misc0);
	if (rc != ECORE_SUCCESS)
		return rc;
	if (resp == FW_MSG_CODE_DRV_LOAD_REFUSED_REQUIRES_FORCE) {
		role = rsp_misc0 & 0xff;
		if (load_should_force(p, role)) {
			ECORE_LOG(NOTICE, "%s: a driver (role %u) is loaded on this function: forcing the load",
				  p_hwfn->name, role);
			rc = load_req_send(p_hwfn, p_ptt, p, LOAD_REQ_FORCE_ALL, &resp, &rsp_misc0);
			if (rc != ECORE_SUCCESS)
				return rc;
		}
	}
	p->load_code = resp;
	switch (resp) {
	case FW_MSG_CODE_DRV_LOAD_ENGINE:
	case FW_MSG_CODE_DRV_LOAD_PORT:
	case FW_MSG_CODE_DRV_LOAD_FUNCTION:
		p_hwfn->load_code = resp;
		ECORE_LOG(INFO, "%s: load: %s", p_hwfn->name, ecore_mcp_load_code_str(resp));
		return ECORE_SUCCESS;
	}
	if (ecore_mcp_load_code_is_refusal(resp)) {
		ECORE_LOG(ERR, "%s: the MFW refused the load: %s (0x%08x)", p_hwfn->name,
			  ecore_mcp_load_code_str(resp), resp);
		return ECORE_CANCELED;
	}
	ECORE_LOG(ERR, "%s: unexpected LOAD_REQ answer 0x%08x", p_hwfn->name, resp);
	return ECORE_IO;
}

enum _ecore_status_t
ecore_mcp_load_done(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt)
{
	enum _ecore_status_t rc;
	uint32_t resp;

	rc = ecore_mcp_cmd(p_hwfn, p_ptt, DRV_MSG_CODE_LOAD_DONE, 0, &resp, NULL);
	if (rc != ECORE_SUCCESS)
		return rc;
	if (resp != FW_MSG_CODE_DRV_LOAD_DONE) {
		ECORE_LOG(ERR, "%s: unexpected LOAD_DONE answer 0x%08x", p_hwfn->name, resp);
		return ECORE_IO;
	}
	return ECORE_SUCCESS;
}

enum _ecore_status_t
ecore_mcp_unload_req(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt)
{
	enum _ecore_status_t rc;
	uint32_t resp;

	rc = ecore_mcp_cmd(p_hwfn, p_ptt, DRV_MSG_CODE_UNLOAD_REQ, UNLOAD_REQ_WOL_DISABLED, &resp,
			   NULL);
	if (rc != ECORE_SUCCESS)
		return rc;
	p_hwfn->mcp_info->unload_code = resp;
	if (resp != FW_MSG_CODE_DRV_UNLOAD_ENGINE && resp != FW_MSG_CODE_DRV_UNLOAD_PORT &&
	    resp != FW_MSG_CODE_DRV_UNLOAD_FUNCTION) {
		ECORE_LOG(ERR, "%s: unexpected UNLOAD_REQ answer 0x%08x", p_hwfn->name, resp);
		return ECORE_IO;
	}
	ECORE_LOG(INFO, "%s: unload: %s", p_hwfn->name, ecore_mcp_unload_code_str(resp));
	return ECORE_SUCCESS;
}

uint32_t
ecore_mcp_get_unload_code(struct ecore_hwfn *p_hwfn)
{
	return p_hwfn->mcp_info != NULL ? p_hwfn->mcp_info->unload_code : 0;
}

enum _ecore_status_t
ecore_mcp_unload_done(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt)
{
	return ecore_mcp_cmd(p_hwfn, p_ptt, DRV_MSG_CODE_UNLOAD_DONE, 0, NULL, NULL);
}

enum _ecore_status_t
ecore_mcp_drain(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt)
{
	enum _ecore_status_t rc;

	rc = ecore_mcp_cmd(p_hwfn, p_ptt, DRV_MSG_CODE_NIG_DRAIN, ECORE_MCP_DRAIN_MS, NULL, NULL);
	if (rc != ECORE_SUCCESS)
		return rc;
	/* The MFW answers at once and drains for the time asked. */
	ecore_osal_udelay((ECORE_MCP_DRAIN_MS + 20) * 1000);
	return ECORE_SUCCESS;
}

enum _ecore_status_t
ecore_mcp_send_drv_version(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt, uint32_t version,
			   const char *name)
{
	uint8_t data[DRV_VERSION_NAME_OFF + DRV_VERSION_NAME_SIZE] = { 0 };
	struct ecore_mcp_mb_params mb = {
		.cmd = DRV_MSG_CODE_SET_VERSION, .data_in = data, .data_in_len = sizeof(data),
	};
	enum _ecore_status_t rc;

	omni_put_le32(data + DRV_VERSION_VERSION_OFF, version);
	/* The name field need not end in a NUL. */
	if (name != NULL)
		memcpy(data + DRV_VERSION_NAME_OFF, name,
		       RTE_MIN(strlen(name), (size_t)DRV_VERSION_NAME_SIZE));
	rc = ecore_mcp_cmd_and_union(p_hwfn, p_ptt, &mb);
	if (rc != ECORE_SUCCESS)
		return rc;
	if (mb.mcp_resp == FW_MSG_CODE_UNSUPPORTED)
		return ECORE_NOTIMPL;
	return ECORE_SUCCESS;
}

enum _ecore_status_t
ecore_mcp_ov_update_driver_state(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt,
				 uint32_t state)
{
	enum _ecore_status_t rc;
	uint32_t resp;

	rc = ecore_mcp_cmd(p_hwfn, p_ptt, DRV_MSG_CODE_OV_UPDATE_DRIVER_STATE, state, &resp, NULL);
	if (rc != ECORE_SUCCESS)
		return rc;
	return resp == FW_MSG_CODE_UNSUPPORTED ? ECORE_NOTIMPL : ECORE_SUCCESS;
}

/* ---- link ---- */

struct ecore_mcp_link_params *
ecore_mcp_get_link_params(struct ecore_hwfn *p_hwfn)
{
	return p_hwfn->mcp_info != NULL ? &p_hwfn->mcp_info->link_params : NULL;
}

const struct ecore_mcp_link_state *
ecore_mcp_get_link_state(struct ecore_hwfn *p_hwfn)
{
	return p_hwfn->mcp_info != NULL ? &p_hwfn->mcp_info->link_state : NULL;
}

void
ecore_mcp_set_link_cb(struct ecore_hwfn *p_hwfn, void (*cb)(struct ecore_hwfn *p_hwfn, void *arg),
		      void *arg)
{
	struct ecore_mcp_info *info = p_hwfn->mcp_info;

	if (info == NULL)
		return;
	ecore_osal_spin_lock(&info->link_lock);
	info->link_cb = cb;
	info->link_cb_arg = arg;
	ecore_osal_spin_unlock(&info->link_lock);
}

uint32_t
ecore_mcp_link_change_count(struct ecore_hwfn *p_hwfn)
{
	return p_hwfn->mcp_info != NULL ? p_hwfn->mcp_info->link_changes : 0;
}

/* A link change: re-read link_status, count it, tell the upper layer. */
static void
link_changed(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt)
{
	struct ecore_mcp_info *info = p_hwfn->mcp_info;
	void (*cb)(struct ecore_hwfn *p_hwfn, void *arg);
	void *arg;

	link_read(p_hwfn, p_ptt);
	ecore_osal_spin_lock(&info->link_lock);
	info->link_changes++;
	cb = info->link_cb;
	arg = info->link_cb_arg;
	ecore_osal_spin_unlock(&info->link_lock);
	ECORE_LOG(INFO, "%s: link %s, %u Mbps", p_hwfn->name,
		  info->link_state.link_up ? "up" : "down", info->link_state.speed);
	if (cb != NULL)
		cb(p_hwfn, arg);
}

enum _ecore_status_t
ecore_mcp_set_link(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt, bool up)
{
	struct ecore_mcp_info *info = p_hwfn->mcp_info;
	uint8_t cfg[PHY_CFG_SIZE] = { 0 };
	struct ecore_mcp_mb_params mb = { 0 };
	enum _ecore_status_t rc;

	if (info == NULL)
		return ECORE_NODEV;
	if (up) {
		const struct ecore_mcp_link_params *lp = &info->link_params;

		omni_put_le32(cfg + PHY_CFG_SPEED_OFF, lp->autoneg ? 0 : lp->forced_speed);
		omni_put_le32(cfg + PHY_CFG_PAUSE_OFF, lp->pause);
		omni_put_le32(cfg + PHY_CFG_ADV_SPEED_OFF, lp->advertised_speeds);
		omni_put_le32(cfg + PHY_CFG_LOOPBACK_OFF, lp->loopback_mode);
		mb.cmd = DRV_MSG_CODE_INIT_PHY;
		mb.data_in = cfg;
		mb.data_in_len = sizeof(cfg);
	} else {
		mb.cmd = DRV_MSG_CODE_LINK_RESET;
	}
	rc = ecore_mcp_cmd_and_union(p_hwfn, p_ptt, &mb);
	if (rc != ECORE_SUCCESS)
		return rc;
	if (mb.mcp_resp == FW_MSG_CODE_UNSUPPORTED) {
		ECORE_LOG(ERR, "%s: the MFW does not support %s", p_hwfn->name, cmd_name(mb.cmd));
		return ECORE_NOTIMPL;
	}
	/* The MFW sends no message for a change the driver asked for: read the
	 * result as if it had. */
	link_changed(p_hwfn, p_ptt);
	return ECORE_SUCCESS;
}

enum _ecore_status_t
ecore_mcp_handle_events(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt)
{
	struct ecore_mcp_info *info = p_hwfn->mcp_info;
	uint32_t msg[MFW_MB_MAX_DWORDS], ack[MFW_MB_MAX_DWORDS];
	uint32_t n_dw, ack_off, i;

	if (info == NULL)
		return ECORE_INVAL;
	n_dw = mfw_msg_dwords(info->mfw_mb_length);
	ack_off = mfw_mb_ack_off(info->mfw_mb_length);
	for (i = 0; i < n_dw; i++) {
		msg[i] = ecore_rd(p_hwfn, p_ptt, info->mfw_mb_addr + MFW_MB_MSG_OFF + 4 * i);
		ack[i] = ecore_rd(p_hwfn, p_ptt, info->mfw_mb_addr + ack_off + 4 * i);
	}
	for (i = 0; i < info->mfw_mb_length; i++) {
		if (mfw_msg_count(msg, i) == mfw_msg_count(ack, i))
			continue;
		switch (i) {
		case MFW_DRV_MSG_LINK_CHANGE:
			link_changed(p_hwfn, p_ptt);
			break;
		default:
			ECORE_LOG(DEBUG, "%s: MFW message %u not handled", p_hwfn->name, i);
			break;
		}
	}
	/* Ack every message seen, handled or not. */
	for (i = 0; i < n_dw; i++)
		if (msg[i] != ack[i])
			ecore_wr(p_hwfn, p_ptt, info->mfw_mb_addr + ack_off + 4 * i, msg[i]);
	return ECORE_SUCCESS;
}

/* ---- resources ---- */

enum _ecore_status_t
ecore_mcp_get_resources(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt)
{
	static const uint32_t ids[] = {
		MFW_RESOURCE_NUM_SB, MFW_RESOURCE_NUM_L2_QUEUE, MFW_RESOURCE_NUM_VPORT,
	};
	struct ecore_hw_info *hw = &p_hwfn->hw_info;
	struct ecore_mcp_info *info = p_hwfn->mcp_info;
	uint32_t got[ECORE_ARRAY_SIZE(ids)] = { 0 };
	uint32_t pfs, resp = FW_MSG_CODE_UNSUPPORTED;
	bool bb = ECORE_IS_BB(p_hwfn->p_dev);
	enum _ecore_status_t rc;
	unsigned int i;

	if (info == NULL)
		return ECORE_NODEV;
	for (i = 0; i < ECORE_ARRAY_SIZE(ids); i++) {
		uint8_t in[RESOURCE_INFO_LEN] = { 0 }, out[RESOURCE_INFO_LEN];
		struct ecore_mcp_mb_params mb = {
			.cmd = DRV_MSG_CODE_GET_RESOURCE_ALLOC_MSG,
			.param = RESOURCE_ALLOC_VERSION,
			.data_in = in, .data_in_len = sizeof(in),
			.data_out = out, .data_out_len = sizeof(out),
		};

		omni_put_le32(in + RESOURCE_INFO_RES_ID_OFF, ids[i]);
		rc = ecore_mcp_cmd_and_union(p_hwfn, p_ptt, &mb);
		if (rc != ECORE_SUCCESS)
			return rc;
		resp = mb.mcp_resp;
		/* Anything but OK (UNSUPPORTED on an MFW without the message)
		 * means the built-in defaults, for every resource. */
		if (resp != FW_MSG_CODE_RESOURCE_ALLOC_OK)
			break;
		got[i] = omni_get_le32(out + RESOURCE_INFO_SIZE_OFF);
	}

	/* Defaults: the chip's limits shared by its PFs (BB 8, AH 16). */
	pfs = bb ? 8 : 16;
	hw->num_mac_filters = 512 / pfs;
	if (resp == FW_MSG_CODE_RESOURCE_ALLOC_OK) {
		/* The MFW's answer, never past the chip's own limits. */
		hw->num_sbs = RTE_MIN(got[0], bb ? 288u : 368u);
		hw->num_l2_queues = RTE_MIN(got[1], bb ? 256u : 320u);
		hw->num_vports = RTE_MIN(got[2], bb ? 160u : 208u);
		info->resc_source = ECORE_RESC_SOURCE_MFW;
	} else {
		hw->num_sbs = (bb ? 288 : 368) / pfs;
		hw->num_l2_queues = (bb ? 256 : 320) / pfs;
		hw->num_vports = (bb ? 160 : 208) / pfs;
		info->resc_source = ECORE_RESC_SOURCE_DEFAULTS;
	}
	/* Never more SBs than the IGU CAM gave this PF (when hw_prepare read it). */
	if (hw->igu_sb_cnt != 0 && hw->num_sbs > hw->igu_sb_cnt)
		hw->num_sbs = hw->igu_sb_cnt;
	ECORE_LOG(INFO, "%s: resources from %s (MFW answer 0x%08x): %u SBs, %u L2 queues, %u vports, %u MAC filters",
		  p_hwfn->name,
		  info->resc_source == ECORE_RESC_SOURCE_MFW ? "the MFW" : "the built-in defaults",
		  resp, hw->num_sbs, hw->num_l2_queues, hw->num_vports, hw->num_mac_filters);
	return ECORE_SUCCESS;
}

enum ecore_resc_source
ecore_mcp_resc_source(struct ecore_hwfn *p_hwfn)
{
	return p_hwfn->mcp_info != NULL ? p_hwfn->mcp_info->resc_source : ECORE_RESC_SOURCE_NONE;
}

uint32_t
ecore_mcp_get_mb_index(struct ecore_hwfn *p_hwfn)
{
	return p_hwfn->mcp_info != NULL ? p_hwfn->mcp_info->mb_index : 0;
}

uint16_t
ecore_mcp_get_seq(struct ecore_hwfn *p_hwfn)
{
	return p_hwfn->mcp_info != NULL ? ecore_mcp_seq_next(p_hwfn->mcp_info->drv_mb_seq) : 0;
}
