/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * The model's management firmware: the SHMEM image in the MCP scratchpad
 * (nvm_cfg, the public data and its sections, base/ecore_mfw_if.h) and the
 * mailbox state machine. A write of a drv_mb_header is a command: the MFW
 * answers inside that write (fw_mb_param, union data, then fw_mb_header with
 * the command's sequence number), so the driver's first poll sees it.
 *
 * Load bookkeeping: the functions loaded per engine and per port. LOAD_REQ
 * answers ENGINE for the first function on the engine, PORT for the first on
 * its port, else FUNCTION, and counts the function loaded at once (the real
 * MFW holds a lock until LOAD_DONE; one model thread needs none).
 * UNLOAD_REQ answers the mirror code (the last on the engine ENGINE, the last
 * on its port PORT, else FUNCTION); the counts go down at UNLOAD_DONE.
 * INITIATE_PF_FLR clears a function left loaded (an unclean exit), so its
 * next LOAD_REQ is answered as if it had unloaded. UNLOAD_DONE and
 * INITIATE_PF_FLR also end the function's slow path (e4m_sp_pf_reset()).
 *
 * Model choices (doc/e4.md lists them):
 * - a LOAD_REQ from a function that is loaded already (no UNLOAD, no FLR) is
 *   refused with REQUIRES_FORCE and the loaded driver's role in load_rsp;
 *   the same request with force (load_req misc0 force != NONE) clears the
 *   old load and is answered as a fresh one;
 * - the resource messages (GET_RESOURCE_ALLOC_MSG) are answered UNSUPPORTED,
 *   so the driver's documented fallback to built-in defaults runs; unknown
 *   commands are UNSUPPORTED too;
 * - the link is up when the driver asked for it (INIT_PHY, not LINK_RESET)
 *   and the cable is in (e4m_link_set(), in by default); PF n's MAC is
 *   base_mac + n (PF n < num_ports sits on port n);
 * - every mailbox starts at sequence number 0xfffd, as a previous driver
 *   could have left it, so each bring-up crosses the 16-bit wrap;
 * - LOAD_REQ's fw_ver picks the HSI the engine serves (enum e4m_hsi): the
 *   engine's first load sets it; a storm firmware the model does not serve,
 *   or a later load announcing another firmware than the engine runs, is
 *   refused PDA (the PDA component version is that firmware's major.minor).
 */

#include "base/ecore_mfw_if.h"
#include "e4m_priv.h"

/* Where things sit in the scratchpad (offsets from MCP_REG_SCRATCH). */
#define SPAD_NVM_CFG		0x0
#define SPAD_NVM_CFG1		0x10
#define SPAD_PUBLIC		0x1000
#define PUBLIC_HDR_SIZE		0x20
#define INITIAL_SEQ		0xfffdu

enum fn_state { FN_NONE, FN_LOADING, FN_LOADED, FN_UNLOADING };

struct mfw_fn {
	enum fn_state state;
	uint8_t role;
	uint32_t drv_version;
	uint32_t fw_version;	/* LOAD_REQ's fw_ver */
	enum e4m_hsi hsi;
};

struct mfw_port {
	bool phy_on;		/* the driver asked for the link (INIT_PHY) */
	bool carrier;		/* cable in (e4m_link_set) */
	uint32_t line_mbps;	/* what the cable gives */
	uint32_t forced_mbps;	/* INIT_PHY's forced speed, 0 = autoneg */
};

struct e4m_mfw {
	uint32_t sec_addr[MFW_SECTION_MAX];	/* GRC address of element 0 */
	uint32_t sec_size[MFW_SECTION_MAX];	/* bytes */
	uint8_t mb_pf[MFW_MAX_MAILBOXES];	/* mailbox -> PF, 0xff: none */
	uint8_t pf_mb[E4M_MAX_PFS];		/* PF -> mailbox, 0xff: none */
	struct mfw_fn fn[E4M_MAX_PFS];
	struct mfw_port port[MFW_MAX_PORTS];
	unsigned int engine_loads;
	unsigned int port_loads[MFW_MAX_PORTS];
	uint32_t engine_fw;		/* the firmware the engine runs (while loaded) */
};

static const struct e4m_hsi_layout hsi_layouts[] = {
	[E4M_HSI_8_40_33] = { .name = "8.40.33", .fw_version = 0x08282100,
		.pf_start_size = 72, .vport_start_size = 64, .eth_ramrod_max = 17,
		.txq_pmd_mode_bit = 3 },
	[E4M_HSI_8_42_2] = { .name = "8.42.2", .fw_version = 0x082a0200,
		.pf_start_size = 72, .vport_start_size = 72, .eth_ramrod_max = 22,
		.txq_pmd_mode_bit = 2 },
};

const struct e4m_hsi_layout *
e4m_hsi_layout(enum e4m_hsi hsi)
{
	if (hsi <= E4M_HSI_NONE || (unsigned int)hsi >= RTE_DIM(hsi_layouts))
		return NULL;
	return &hsi_layouts[hsi];
}

/* The HSI of storm firmware @p fw_ver (major.minor.rev; eng ignored). */
static enum e4m_hsi
hsi_of(uint32_t fw_ver)
{
	unsigned int h;

	for (h = E4M_HSI_NONE + 1; h < RTE_DIM(hsi_layouts); h++)
		if ((fw_ver & ~0xffu) == hsi_layouts[h].fw_version)
			return h;
	return E4M_HSI_NONE;
}

static bool
is_bb(const struct e4m_dev *m)
{
	return (m->cfg.device_id & 0xff00) == 0x1600;
}

/* The line rate of a port of this adapter (from the PCI device id). */
static uint32_t
port_line_mbps(const struct e4m_dev *m)
{
	uint32_t mbps;

	switch (m->cfg.device_id) {
	case 0x8070: case 0x1654: mbps = 50000; break;
	case 0x8071: mbps = 10000; break;
	case 0x8072: case 0x1634: case 0x1629: mbps = 40000; break;
	case 0x1644: mbps = 100000; break;
	default: mbps = 25000; break;
	}
	return m->cfg.num_ports == 4 && mbps > 25000 ? 25000 : mbps;
}

static uint32_t
sec(const struct e4m_mfw *f, enum mfw_section s, uint32_t idx)
{
	return f->sec_addr[s] + f->sec_size[s] * idx;
}

static uint32_t
mb_rd(struct e4m_dev *m, uint32_t mb, uint32_t off)
{
	uint32_t v;

	e4m_grc_get(m, sec(m->mfw, MFW_SECTION_DRV_MB, mb) + off, &v);
	return v;
}

static void
mb_wr(struct e4m_dev *m, uint32_t mb, uint32_t off, uint32_t v)
{
	e4m_grc_set(m, sec(m->mfw, MFW_SECTION_DRV_MB, mb) + off, v);
}

/* ---- link ---- */

static void
port_link_update(struct e4m_dev *m, unsigned int port)
{
	struct mfw_port *p = &m->mfw->port[port];
	uint32_t status = 0, mbps;

	if (p->phy_on && p->carrier) {
		mbps = p->forced_mbps != 0 && p->forced_mbps <= p->line_mbps ?
			p->forced_mbps : p->line_mbps;
		status = LINK_STATUS_LINK_UP |
			mfw_link_speed_code(mbps) << LINK_STATUS_SPEED_AND_DUPLEX_SHIFT;
		if (p->forced_mbps == 0)
			status |= LINK_STATUS_AUTO_NEGOTIATE_ENABLED |
				LINK_STATUS_AUTO_NEGOTIATE_COMPLETE;
	}
	e4m_grc_set(m, sec(m->mfw, MFW_SECTION_PORT, port) + MFW_PORT_LINK_STATUS_OFF, status);
}

uint32_t
e4m_pf_drv_version(struct e4m_dev *m, unsigned int pf)
{
	uint32_t v = 0;

	ecore_osal_spin_lock(&m->lock);
	if (pf < m->cfg.num_pfs && m->mfw != NULL)
		v = m->mfw->fn[pf].drv_version;
	ecore_osal_spin_unlock(&m->lock);
	return v;
}

enum e4m_hsi
e4m_pf_hsi(struct e4m_dev *m, unsigned int pf)
{
	enum e4m_hsi h = E4M_HSI_NONE;

	ecore_osal_spin_lock(&m->lock);
	if (pf < m->cfg.num_pfs && m->mfw != NULL)
		h = m->mfw->fn[pf].hsi;
	ecore_osal_spin_unlock(&m->lock);
	return h;
}

uint32_t
e4m_pf_fw_version(struct e4m_dev *m, unsigned int pf)
{
	uint32_t v = 0;

	ecore_osal_spin_lock(&m->lock);
	if (pf < m->cfg.num_pfs && m->mfw != NULL)
		v = m->mfw->fn[pf].fw_version;
	ecore_osal_spin_unlock(&m->lock);
	return v;
}

/* The HSI PF @p pf runs (lock held; E4M_HSI_NONE: not loaded). */
enum e4m_hsi
e4m_mfw_pf_hsi(struct e4m_dev *m, unsigned int pf)
{
	return m->mfw != NULL && pf < E4M_MAX_PFS ? m->mfw->fn[pf].hsi : E4M_HSI_NONE;
}

int
e4m_mfw_link_set(struct e4m_dev *m, unsigned int port, bool up, uint32_t speed_mbps)
{
	struct e4m_mfw *f = m->mfw;
	uint32_t addr, msg[MFW_MB_MAX_DWORDS], i;
	unsigned int pf;

	if (f == NULL || port >= m->cfg.num_ports)
		return -EINVAL;
	if (speed_mbps != 0 && mfw_link_speed_code(speed_mbps) == 0)
		return -EINVAL;
	f->port[port].carrier = up;
	if (speed_mbps != 0)
		f->port[port].line_mbps = speed_mbps;
	port_link_update(m, port);
	/* A LINK_CHANGE message and the general attention, to each PF on the port. */
	for (pf = 0; pf < m->cfg.num_pfs; pf++) {
		if (m->fns[pf].port != port || f->pf_mb[pf] == 0xff)
			continue;
		addr = sec(f, MFW_SECTION_MFW_MB, f->pf_mb[pf]) + MFW_MB_MSG_OFF;
		for (i = 0; i < MFW_MB_MAX_DWORDS; i++)
			e4m_grc_get(m, addr + 4 * i, &msg[i]);
		mfw_msg_bump(msg, MFW_DRV_MSG_LINK_CHANGE);
		for (i = 0; i < MFW_MB_MAX_DWORDS; i++)
			e4m_grc_set(m, addr + 4 * i, msg[i]);
		e4m_grc_set(m, MISC_REG_AEU_GENERAL_ATTN_0 + pf * 8, 1);
		e4m_sp_attention(m, pf, ECORE_ATTN_BIT_MCP_EVENT);
	}
	return 0;
}

/* ---- load bookkeeping ---- */

/* Forget a function's load (UNLOAD_DONE, FLR, forced reload). */
static void
fn_release(struct e4m_dev *m, unsigned int pf)
{
	struct e4m_mfw *f = m->mfw;

	if (f->fn[pf].state == FN_NONE)
		return;
	f->fn[pf].state = FN_NONE;
	f->fn[pf].hsi = E4M_HSI_NONE;
	f->fn[pf].fw_version = 0;
	f->engine_loads--;
	f->port_loads[m->fns[pf].port]--;
}

static uint32_t
do_load_req(struct e4m_dev *m, unsigned int pf, uint32_t mb, uint32_t param)
{
	const struct e4m_fault_state *fault = e4m_fault(m, E4M_FAULT_LOAD_REFUSED);
	struct e4m_mfw *f = m->mfw;
	uint32_t u = DRV_MB_UNION_OFF, misc0, force, code, fw_ver;
	unsigned int port = m->fns[pf].port;
	enum e4m_hsi hsi;

	misc0 = mb_rd(m, mb, u + LOAD_REQ_MISC0_OFF);
	fw_ver = mb_rd(m, mb, u + LOAD_REQ_FW_VER_OFF);
	force = (misc0 >> LOAD_REQ_MISC0_FORCE_SHIFT) & 0xf;
	if (fault != NULL) {
		m->stats.load_refusals++;
		return fault->arg0;
	}
	if (((param >> LOAD_REQ_PARAM_HSI_SHIFT) & 0xff) != LOAD_REQ_HSI_VERSION) {
		m->stats.load_refusals++;
		return FW_MSG_CODE_DRV_LOAD_REFUSED_HSI;
	}
	if (f->fn[pf].state != FN_NONE) {
		if (force == LOAD_REQ_FORCE_NONE) {
			/* Tell the driver who is there. */
			mb_wr(m, mb, u + LOAD_RSP_FW_VER_OFF, f->fn[pf].fw_version);
			mb_wr(m, mb, u + LOAD_RSP_MISC0_OFF, f->fn[pf].role |
			      LOAD_REQ_HSI_VERSION << LOAD_RSP_MISC0_HSI_SHIFT |
			      LOAD_RSP_FLAGS0_DRV_EXISTS << LOAD_RSP_MISC0_FLAGS0_SHIFT);
			m->stats.load_refusals++;
			return FW_MSG_CODE_DRV_LOAD_REFUSED_REQUIRES_FORCE;
		}
		E4M_LOG(m, INFO, "PF %u: forced load over a loaded driver (role %u)", pf,
			f->fn[pf].role);
		fn_release(m, pf);
	}
	hsi = hsi_of(fw_ver);
	if (hsi == E4M_HSI_NONE || (f->engine_loads != 0 && (fw_ver & ~0xffu) != f->engine_fw)) {
		E4M_LOG(m, WARNING, "PF %u: LOAD_REQ for storm firmware %u.%u.%u.%u refused: %s",
			pf, fw_ver >> 24, (fw_ver >> 16) & 0xff, (fw_ver >> 8) & 0xff,
			fw_ver & 0xff, hsi == E4M_HSI_NONE ? "an HSI the model does not serve" :
			"the engine runs another firmware");
		mb_wr(m, mb, u + LOAD_RSP_FW_VER_OFF, f->engine_fw);
		m->stats.load_refusals++;
		return FW_MSG_CODE_DRV_LOAD_REFUSED_PDA;
	}
	if (f->engine_loads == 0) {
		f->engine_fw = fw_ver & ~0xffu;
		code = FW_MSG_CODE_DRV_LOAD_ENGINE;
		m->stats.loads[0]++;
	} else if (f->port_loads[port] == 0) {
		code = FW_MSG_CODE_DRV_LOAD_PORT;
		m->stats.loads[1]++;
	} else {
		code = FW_MSG_CODE_DRV_LOAD_FUNCTION;
		m->stats.loads[2]++;
	}
	f->engine_loads++;
	f->port_loads[port]++;
	f->fn[pf].state = FN_LOADING;
	f->fn[pf].role = (misc0 >> LOAD_REQ_MISC0_ROLE_SHIFT) & 0xff;
	f->fn[pf].drv_version = mb_rd(m, mb, u + LOAD_REQ_DRV_VER_0_OFF);
	f->fn[pf].fw_version = fw_ver;
	f->fn[pf].hsi = hsi;
	mb_wr(m, mb, u + LOAD_RSP_FW_VER_OFF, fw_ver);
	/* load_rsp: the request's versions back, our role and HSI. */
	mb_wr(m, mb, u + LOAD_RSP_MISC0_OFF, f->fn[pf].role |
	      LOAD_REQ_HSI_VERSION << LOAD_RSP_MISC0_HSI_SHIFT);
	return code;
}

static uint32_t
do_unload_req(struct e4m_dev *m, unsigned int pf)
{
	struct e4m_mfw *f = m->mfw;
	unsigned int port = m->fns[pf].port;

	m->stats.unloads++;
	if (f->fn[pf].state == FN_NONE) {
		E4M_LOG(m, WARNING, "PF %u: UNLOAD_REQ while not loaded", pf);
		return FW_MSG_CODE_DRV_UNLOAD_FUNCTION;
	}
	f->fn[pf].state = FN_UNLOADING;
	if (f->engine_loads == 1)
		return FW_MSG_CODE_DRV_UNLOAD_ENGINE;
	if (f->port_loads[port] == 1)
		return FW_MSG_CODE_DRV_UNLOAD_PORT;
	return FW_MSG_CODE_DRV_UNLOAD_FUNCTION;
}

static uint32_t
do_init_phy(struct e4m_dev *m, unsigned int pf, uint32_t mb)
{
	struct mfw_port *p = &m->mfw->port[m->fns[pf].port];
	uint32_t speed = mb_rd(m, mb, DRV_MB_UNION_OFF + PHY_CFG_SPEED_OFF);

	p->phy_on = true;
	p->forced_mbps = mfw_link_speed_code(speed) != 0 ? speed : 0;
	port_link_update(m, m->fns[pf].port);
	return FW_MSG_CODE_OK;
}

/* A command from mailbox @p mb (PF @p pf); returns the response code. */
static uint32_t
mfw_command(struct e4m_dev *m, unsigned int pf, uint32_t mb, uint32_t cmd, uint32_t param,
	    uint32_t *fw_param)
{
	struct e4m_mfw *f = m->mfw;

	*fw_param = 0;
	switch (cmd) {
	case DRV_MSG_CODE_LOAD_REQ:
		return do_load_req(m, pf, mb, param);
	case DRV_MSG_CODE_LOAD_DONE:
		if (f->fn[pf].state == FN_LOADING)
			f->fn[pf].state = FN_LOADED;
		return FW_MSG_CODE_DRV_LOAD_DONE;
	case DRV_MSG_CODE_CANCEL_LOAD_REQ:
		if (f->fn[pf].state == FN_LOADING)
			fn_release(m, pf);
		return FW_MSG_CODE_OK;
	case DRV_MSG_CODE_UNLOAD_REQ:
		return do_unload_req(m, pf);
	case DRV_MSG_CODE_UNLOAD_DONE:
		fn_release(m, pf);
		e4m_sp_pf_reset(m, pf);
		return FW_MSG_CODE_DRV_UNLOAD_DONE;
	case DRV_MSG_CODE_INITIATE_PF_FLR:
		m->stats.flrs++;
		if (f->fn[pf].state != FN_NONE)
			E4M_LOG(m, INFO, "PF %u: FLR clears a load never unloaded", pf);
		fn_release(m, pf);
		e4m_sp_pf_reset(m, pf);
		return FW_MSG_CODE_OK;
	case DRV_MSG_CODE_INIT_PHY:
		return do_init_phy(m, pf, mb);
	case DRV_MSG_CODE_LINK_RESET:
		f->port[m->fns[pf].port].phy_on = false;
		port_link_update(m, m->fns[pf].port);
		return FW_MSG_CODE_OK;
	case DRV_MSG_CODE_SET_VERSION:
		f->fn[pf].drv_version = mb_rd(m, mb, DRV_MB_UNION_OFF + DRV_VERSION_VERSION_OFF);
		return FW_MSG_CODE_OK;
	case DRV_MSG_CODE_NIG_DRAIN:
	case DRV_MSG_CODE_OV_UPDATE_DRIVER_STATE:
		return FW_MSG_CODE_OK;
	case DRV_MSG_CODE_GET_RESOURCE_ALLOC_MSG:
		/* Deliberately unsupported: the driver falls back to its defaults. */
		return FW_MSG_CODE_UNSUPPORTED;
	}
	return FW_MSG_CODE_UNSUPPORTED;
}

/* A write into the drv_mb section: only a header write is a command. */
static void
mb_hook(struct e4m_dev *m, struct e4m_fn *fn, uint32_t addr, uint32_t val, void *arg)
{
	struct e4m_mfw *f = m->mfw;
	uint32_t rel = addr - f->sec_addr[MFW_SECTION_DRV_MB];
	uint32_t mb = rel / DRV_MB_SIZE, resp, fw_param, pf;

	RTE_SET_USED(fn);
	RTE_SET_USED(arg);
	if (rel % DRV_MB_SIZE != DRV_MB_HEADER_OFF)
		return;
	pf = f->mb_pf[mb];
	if (pf == 0xff) {
		E4M_LOG(m, WARNING, "command 0x%08x in mailbox %u, which no PF owns", val, mb);
		m->stats.bad_accesses++;
		return;
	}
	if (e4m_fault(m, E4M_FAULT_MFW_SILENT) != NULL) {
		m->stats.mb_unanswered++;
		return;
	}
	resp = mfw_command(m, pf, mb, val & DRV_MSG_CODE_MASK, mb_rd(m, mb, DRV_MB_PARAM_OFF),
			   &fw_param);
	mb_wr(m, mb, DRV_MB_FW_PARAM_OFF, fw_param);
	mb_wr(m, mb, DRV_MB_FW_HEADER_OFF, (resp & FW_MSG_CODE_MASK) |
	      (val & DRV_MSG_SEQ_NUMBER_MASK));
	m->stats.mb_cmds++;
}

/* ---- the image ---- */

/* nvm_cfg1's network port mode for this adapter's ports and speed. */
static uint32_t
nvm_port_mode(const struct e4m_dev *m, uint32_t mbps)
{
	switch (m->cfg.num_ports) {
	case 4: return mbps == 10000 ? 0x3 /* 4X10G_F */ : 0xe /* 4X25G */;
	case 2:
		switch (mbps) {
		case 10000: return 0xf;		/* 2X10G */
		case 40000: return 0x0;		/* BB_2X40G */
		case 50000: return 0x1;		/* 2X50G */
		}
		return 0xc;			/* 2X25G */
	}
	switch (mbps) {
	case 40000: return 0xb;			/* 1X40G */
	case 100000: return 0x2;		/* BB_1X100G */
	}
	return 0xd;				/* 1X25G */
}

static uint32_t
nvm_speed_caps(uint32_t mbps)
{
	uint32_t caps = NVM_SPEED_CAP_1G | NVM_SPEED_CAP_10G;

	if (mbps >= 25000)
		caps |= NVM_SPEED_CAP_25G;
	if (mbps >= 40000)
		caps |= NVM_SPEED_CAP_40G;
	if (mbps >= 50000)
		caps |= NVM_SPEED_CAP_50G;
	if (mbps >= 100000)
		caps |= NVM_SPEED_CAP_100G;
	return caps;
}

static void
build_image(struct e4m_dev *m)
{
	static const uint32_t sizes[MFW_SECTION_MAX] = {
		[MFW_SECTION_DRV_MB] = DRV_MB_SIZE, [MFW_SECTION_MFW_MB] = MFW_MB_SIZE,
		[MFW_SECTION_GLOBAL] = MFW_GLOBAL_SIZE, [MFW_SECTION_PATH] = MFW_PATH_SIZE,
		[MFW_SECTION_PORT] = MFW_PORT_SIZE, [MFW_SECTION_FUNC] = MFW_FUNC_SIZE,
	};
	static const uint32_t counts[MFW_SECTION_MAX] = {
		[MFW_SECTION_DRV_MB] = MFW_MAX_MAILBOXES, [MFW_SECTION_MFW_MB] = MFW_MAX_MAILBOXES,
		[MFW_SECTION_GLOBAL] = 1, [MFW_SECTION_PATH] = MFW_MAX_PATHS,
		[MFW_SECTION_PORT] = MFW_MAX_PORTS, [MFW_SECTION_FUNC] = MFW_MAX_MAILBOXES,
	};
	struct e4m_mfw *f = m->mfw;
	uint32_t pub = MCP_REG_SCRATCH + SPAD_PUBLIC, off = SPAD_PUBLIC + PUBLIC_HDR_SIZE;
	uint32_t mbps = port_line_mbps(m), i, a;
	uint64_t mac;
	unsigned int s, pf;

	/* nvm_cfg: GEN_PURP_CR0 points at it, its dword +4 at nvm_cfg1. */
	e4m_grc_set(m, MISC_REG_GEN_PURP_CR0, MCP_REG_SCRATCH + SPAD_NVM_CFG);
	e4m_grc_set(m, MCP_REG_SCRATCH + SPAD_NVM_CFG, 1);
	e4m_grc_set(m, MCP_REG_SCRATCH + SPAD_NVM_CFG + NVM_CFG_NVM_CFG1_OFFSET_OFF,
		    SPAD_NVM_CFG1);
	e4m_grc_set(m, MCP_REG_SCRATCH + SPAD_NVM_CFG1 + NVM_CFG1_GLOB_CORE_CFG_OFF,
		    nvm_port_mode(m, mbps));
	for (i = 0; i < MFW_MAX_PORTS; i++) {
		a = MCP_REG_SCRATCH + SPAD_NVM_CFG1 + NVM_CFG1_PORT_OFF + i * NVM_CFG1_PORT_SIZE;
		e4m_grc_set(m, a + NVM_CFG1_PORT_SPEED_CAP_OFF, nvm_speed_caps(mbps));
		e4m_grc_set(m, a + NVM_CFG1_PORT_LINK_SETTINGS_OFF, NVM_LINK_SPEED_AUTONEG |
			    (PHY_PAUSE_AUTONEG | PHY_PAUSE_RX | PHY_PAUSE_TX) << NVM_PAUSE_SHIFT);
	}

	/* The public data: the header, then the sections one after another. */
	e4m_grc_set(m, MISC_REG_SHARED_MEM_ADDR, pub & ~(uint32_t)MFW_PUBLIC_BASE_OR);
	e4m_grc_set(m, pub + MFW_PUBLIC_NUM_SECTIONS_OFF, MFW_SECTION_MAX);
	for (s = 0; s < MFW_SECTION_MAX; s++) {
		f->sec_addr[s] = MCP_REG_SCRATCH + off;
		f->sec_size[s] = sizes[s];
		e4m_grc_set(m, pub + MFW_PUBLIC_SECTIONS_OFF + 4 * s,
			    mfw_offsize(off / 4, sizes[s] / 4));
		off += sizes[s] * counts[s];
	}
	RTE_VERIFY(off <= MCP_REG_SCRATCH_SIZE);

	/* Mailboxes and func sections: unowned ones keep the "no MAC" value. */
	memset(f->mb_pf, 0xff, sizeof(f->mb_pf));
	memset(f->pf_mb, 0xff, sizeof(f->pf_mb));
	for (i = 0; i < MFW_MAX_MAILBOXES; i++) {
		mb_wr(m, i, DRV_MB_HEADER_OFF, INITIAL_SEQ);
		mb_wr(m, i, DRV_MB_FW_HEADER_OFF, FW_MSG_CODE_OK | INITIAL_SEQ);
		e4m_grc_set(m, sec(f, MFW_SECTION_MFW_MB, i) + MFW_MB_SUP_MSGS_OFF,
			    MFW_DRV_MSG_MAX);
		e4m_grc_set(m, sec(f, MFW_SECTION_FUNC, i) + MFW_FUNC_MAC_UPPER_OFF, 0xffff);
		e4m_grc_set(m, sec(f, MFW_SECTION_FUNC, i) + MFW_FUNC_MAC_LOWER_OFF, 0xffffffff);
	}
	mac = 0;
	for (i = 0; i < 6; i++)
		mac = mac << 8 | m->cfg.base_mac[i];
	for (pf = 0; pf < m->cfg.num_pfs; pf++) {
		uint32_t mb = mfw_mcp_pf_id(is_bb(m), pf, pf);
		uint64_t pf_mac = (mac + pf) & 0xffffffffffffull;

		if (f->mb_pf[mb] != 0xff) {
			E4M_LOG(m, WARNING, "PF %u has no mailbox (PF %u has %u)", pf,
				f->mb_pf[mb], mb);
			continue;
		}
		f->mb_pf[mb] = pf;
		f->pf_mb[pf] = mb;
		e4m_grc_set(m, sec(f, MFW_SECTION_FUNC, mb) + MFW_FUNC_MAC_UPPER_OFF,
			    (uint32_t)(pf_mac >> 32));
		e4m_grc_set(m, sec(f, MFW_SECTION_FUNC, mb) + MFW_FUNC_MAC_LOWER_OFF,
			    (uint32_t)pf_mac);
	}
	e4m_grc_set(m, sec(f, MFW_SECTION_GLOBAL, 0) + MFW_GLOBAL_MAX_PATH_OFF, 1);
	e4m_grc_set(m, sec(f, MFW_SECTION_GLOBAL, 0) + MFW_GLOBAL_MAX_PORTS_OFF, m->cfg.num_ports);
	e4m_grc_set(m, sec(f, MFW_SECTION_GLOBAL, 0) + MFW_GLOBAL_MFW_VER_OFF, m->cfg.mfw_version);
	for (i = 0; i < MFW_MAX_PORTS; i++) {
		f->port[i].carrier = true;
		f->port[i].line_mbps = mbps;
		port_link_update(m, i);
	}
}

int
e4m_mfw_init(struct e4m_dev *m)
{
	int rc;

	m->mfw = ecore_osal_zalloc(sizeof(*m->mfw));
	if (m->mfw == NULL)
		return -ENOMEM;
	build_image(m);
	rc = e4m_hook_add(m, m->mfw->sec_addr[MFW_SECTION_DRV_MB],
			  m->mfw->sec_addr[MFW_SECTION_DRV_MB] + MFW_MAX_MAILBOXES * DRV_MB_SIZE,
			  mb_hook, NULL, NULL);
	if (rc != 0) {
		ecore_osal_free(m->mfw);
		m->mfw = NULL;
	}
	return rc;
}

void
e4m_mfw_fini(struct e4m_dev *m)
{
	ecore_osal_free(m->mfw);
	m->mfw = NULL;
}
