/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * The model's core: the adapter, BAR0 decoding (admin window, PTT and GTT
 * windows), the sparse GRC register file and the hooks its parts own.
 */

#include <stdio.h>

#include "e4m_priv.h"

/* The GRC file: 4 KiB pages of dwords, made on first write, each with a
 * bitmap of the dwords ever written (a read of anything else is 0). */
#define GRC_PAGE_DW 1024u
#define GRC_NUM_PAGES (E4M_GRC_SPACE / 4 / GRC_PAGE_DW)

struct grc_page {
	uint32_t val[GRC_PAGE_DW];
	uint64_t written[GRC_PAGE_DW / 64];
};

struct e4m_grc {
	struct grc_page *pages[GRC_NUM_PAGES];
};

/* The defaults (1 port AH 50G). */
static const struct e4m_config default_cfg = {
	.device_id = 0x8070,
	.num_ports = 1,
	.num_pfs = 0,
	.base_mac = { 0x00, 0x0e, 0x1e, 0x00, 0x00, 0x00 },
	.mfw_version = 0x083b1600,
};

static const char *const fault_names[E4M_FAULT__MAX] = {
	[E4M_FAULT_MFW_SILENT] = "mfw_silent",
	[E4M_FAULT_LOAD_REFUSED] = "load_refused",
	[E4M_FAULT_RAMROD_ERROR] = "ramrod_error",
	[E4M_FAULT_EQE_LATE] = "eqe_late",
	[E4M_FAULT_EQE_NEVER] = "eqe_never",
	[E4M_FAULT_POLL_STUCK] = "poll_stuck",
	[E4M_FAULT_DMAE_ERROR] = "dmae_error",
};

/* ---- the GRC file ---- */

bool
e4m_grc_get(struct e4m_dev *m, uint32_t addr, uint32_t *val)
{
	uint32_t dw = addr >> 2;
	struct grc_page *p;

	*val = 0;
	if (addr >= E4M_GRC_SPACE)
		return false;
	p = m->grc->pages[dw / GRC_PAGE_DW];
	if (p == NULL)
		return false;
	dw %= GRC_PAGE_DW;
	if (!(p->written[dw / 64] & (1ULL << (dw % 64))))
		return false;
	*val = p->val[dw];
	return true;
}

void
e4m_grc_set(struct e4m_dev *m, uint32_t addr, uint32_t val)
{
	uint32_t dw = addr >> 2;
	struct grc_page **pp;

	if (addr >= E4M_GRC_SPACE) {
		m->stats.bad_accesses++;
		return;
	}
	pp = &m->grc->pages[dw / GRC_PAGE_DW];
	if (*pp == NULL) {
		*pp = ecore_osal_zalloc(sizeof(**pp));
		if (*pp == NULL) {
			E4M_LOG(m, ERR, "no memory for GRC page 0x%x", addr & ~0xfffu);
			m->stats.bad_accesses++;
			return;
		}
	}
	dw %= GRC_PAGE_DW;
	(*pp)->val[dw] = val;
	(*pp)->written[dw / 64] |= 1ULL << (dw % 64);
}

/* Bytes into a storm's RAM (SEM fast memory, its internal and instruction
 * RAM: the first 0xc0000 bytes from each SEM_REG_FAST_MEMORY). */
static void
count_sem_ram(struct e4m_dev *m, uint32_t addr)
{
	uint32_t rel;

	if (addr < XSEM_REG_FAST_MEMORY || addr >= USEM_REG_FAST_MEMORY + 0x100000)
		return;
	rel = addr - XSEM_REG_FAST_MEMORY;
	if (rel % 0x100000 < 0xc0000)
		m->stats.sem_ram_bytes[rel / 0x100000] += 4;
}

int
e4m_hook_add(struct e4m_dev *m, uint32_t lo, uint32_t hi, e4m_wr_hook_t wr,
	     e4m_rd_hook_t rd, void *arg)
{
	if (m->n_hooks == E4M_MAX_HOOKS || lo >= hi)
		return -ENOSPC;
	m->hooks[m->n_hooks++] = (struct e4m_hook){ lo, hi, wr, rd, arg };
	return 0;
}

void
e4m_grc_write(struct e4m_dev *m, struct e4m_fn *fn, uint32_t addr, uint32_t val)
{
	unsigned int i;

	m->stats.grc_writes++;
	count_sem_ram(m, addr);
	e4m_grc_set(m, addr, val);
	for (i = 0; i < m->n_hooks; i++) {
		const struct e4m_hook *h = &m->hooks[i];

		if (addr >= h->lo && addr < h->hi && h->wr != NULL)
			h->wr(m, fn, addr, val, h->arg);
	}
}

uint32_t
e4m_grc_read(struct e4m_dev *m, struct e4m_fn *fn, uint32_t addr)
{
	unsigned int i;
	uint32_t val;

	m->stats.grc_reads++;
	for (i = 0; i < m->n_hooks; i++) {
		const struct e4m_hook *h = &m->hooks[i];

		if (addr >= h->lo && addr < h->hi && h->rd != NULL &&
		    h->rd(m, fn, addr, &val, h->arg))
			return val;
	}
	e4m_grc_get(m, addr, &val);
	return val;
}

void *
e4m_dma(struct e4m_dev *m, uint64_t iova, size_t len)
{
	void *va = m->cfg.dma != NULL ? m->cfg.dma(m->cfg.dma_ctx, iova, len) :
		ecore_osal_iova2virt(iova, len);

	if (va == NULL) {
		m->stats.dma_faults++;
		E4M_LOG(m, WARNING, "device access to 0x%" PRIx64 " (+%zu) outside DMA memory",
			iova, len);
	}
	return va;
}

const struct e4m_fault_state *
e4m_fault(struct e4m_dev *m, enum e4m_fault f)
{
	return (unsigned int)f < E4M_FAULT__MAX && m->faults[f].on ? &m->faults[f] : NULL;
}

/* ---- BAR0 decoding ---- */

/* The GRC address BAR0 @p off reaches, or false (admin window / nothing). */
static bool
bar_to_grc(struct e4m_fn *fn, uint32_t off, uint32_t *grc)
{
	uint32_t w;

	if (off >= PXP_EXTERNAL_BAR_PF_WINDOW_START && off < PXP_EXTERNAL_BAR_GLOBAL_WINDOW_START) {
		w = (off - PXP_EXTERNAL_BAR_PF_WINDOW_START) / PXP_EXTERNAL_BAR_PF_WINDOW_SINGLE_SIZE;
		*grc = (fn->ptt[w] << 2) + (off & 0xfff);
		return true;
	}
	if (off >= PXP_EXTERNAL_BAR_GLOBAL_WINDOW_START) {
		w = (off - PXP_EXTERNAL_BAR_GLOBAL_WINDOW_START) /
			PXP_EXTERNAL_BAR_GLOBAL_WINDOW_SINGLE_SIZE;
		if (w >= PXP_NUM_GLOBAL_WINDOWS || fn->gtt[w] == 0)
			return false;
		*grc = (fn->gtt[w] << 12) + (off & 0xfff);
		return true;
	}
	return false;
}

static uint32_t
admin_read(struct e4m_fn *fn, uint32_t off)
{
	uint32_t i;

	if (off < PXP_EXTERNAL_BAR_PF_WINDOW_NUM * PXP_PTT_ENTRY_SIZE) {
		i = off / PXP_PTT_ENTRY_SIZE;
		return off % PXP_PTT_ENTRY_SIZE ? fn->pretend[i] : fn->ptt[i];
	}
	if (off == PXP_PF_ME_OPAQUE_ADDR)
		return fn->pf;	/* model choice: opaque fid = PF number */
	if (off == PXP_PF_ME_CONCRETE_ADDR)	/* PFID 0-3, port 4-5, path 6, abs PF 16-19 */
		return fn->pf | (uint32_t)fn->port << 4 | (uint32_t)fn->pf << 16;
	if (off >= PXP_PF_WINDOW_ADMIN_GLOBAL_START &&
	    off < PXP_PF_WINDOW_ADMIN_GLOBAL_START + PXP_NUM_GLOBAL_WINDOWS * 4)
		return fn->gtt[(off - PXP_PF_WINDOW_ADMIN_GLOBAL_START) / 4];
	fn->m->stats.bad_accesses++;
	return 0;
}

static void
admin_write(struct e4m_fn *fn, uint32_t off, uint32_t val)
{
	uint32_t i;

	if (off < PXP_EXTERNAL_BAR_PF_WINDOW_NUM * PXP_PTT_ENTRY_SIZE) {
		i = off / PXP_PTT_ENTRY_SIZE;
		if (off % PXP_PTT_ENTRY_SIZE)
			fn->pretend[i] = val;
		else
			fn->ptt[i] = val & PXP_PTT_ENTRY_OFFSET_MASK;
		return;
	}
	if (off >= PXP_PF_WINDOW_ADMIN_GLOBAL_START &&
	    off < PXP_PF_WINDOW_ADMIN_GLOBAL_START + PXP_NUM_GLOBAL_WINDOWS * 4) {
		fn->gtt[(off - PXP_PF_WINDOW_ADMIN_GLOBAL_START) / 4] = val;
		return;
	}
	fn->m->stats.bad_accesses++;	/* read-only or nothing */
}

static uint32_t
e4m_bar_read32(void *ctx, uint32_t off)
{
	struct e4m_fn *fn = ctx;
	struct e4m_dev *m = fn->m;
	uint32_t grc, val = 0xffffffff;	/* what a read of nothing returns on PCI */

	ecore_osal_spin_lock(&m->lock);
	m->stats.bar_reads++;
	if (off % 4)
		m->stats.bad_accesses++;
	else if (off < PXP_PF_WINDOW_ADMIN_LENGTH)
		val = admin_read(fn, off);
	else if (bar_to_grc(fn, off, &grc))
		val = e4m_grc_read(m, fn, grc);
	else
		m->stats.bad_accesses++;
	ecore_osal_spin_unlock(&m->lock);
	return val;
}

static void
e4m_bar_write32(void *ctx, uint32_t off, uint32_t val)
{
	struct e4m_fn *fn = ctx;
	struct e4m_dev *m = fn->m;
	uint32_t grc;

	ecore_osal_spin_lock(&m->lock);
	m->stats.bar_writes++;
	if (off % 4)
		m->stats.bad_accesses++;
	else if (off < PXP_PF_WINDOW_ADMIN_LENGTH)
		admin_write(fn, off, val);
	else if (bar_to_grc(fn, off, &grc))
		e4m_grc_write(m, fn, grc, val);
	else
		m->stats.bad_accesses++;
	ecore_osal_spin_unlock(&m->lock);
}

static void
e4m_db_write32(void *ctx, uint32_t off, uint32_t val)
{
	struct e4m_fn *fn = ctx;
	struct e4m_dev *m = fn->m;

	ecore_osal_spin_lock(&m->lock);
	m->stats.doorbells++;
	if (m->db_hook != NULL)
		m->db_hook(m, fn, off, val);
	else
		m->stats.bad_accesses++;
	ecore_osal_spin_unlock(&m->lock);
}

const struct ecore_bar_ops e4m_bar_ops = {
	.read32 = e4m_bar_read32,
	.write32 = e4m_bar_write32,
	.db_write32 = e4m_db_write32,
};

/* ---- the adapter ---- */

static void
grc_free(struct e4m_grc *g)
{
	unsigned int i;

	if (g == NULL)
		return;
	for (i = 0; i < GRC_NUM_PAGES; i++)
		ecore_osal_free(g->pages[i]);
	ecore_osal_free(g);
}

/* What the chip registers say before any driver ran. */
static void
set_chip_registers(struct e4m_dev *m)
{
	const struct e4m_config *c = &m->cfg;

	e4m_grc_set(m, MISCS_REG_CHIP_NUM, c->device_id);
	e4m_grc_set(m, MISCS_REG_CHIP_REV, 1);
	e4m_grc_set(m, MISCS_REG_CHIP_METAL, 0);
	e4m_grc_set(m, MISCS_REG_CMT_ENABLED_FOR_PAIR, 0);
	/* 1 << (4 + 15) = 512 KiB for both BARs */
	e4m_grc_set(m, PGLUE_B_REG_PF_BAR0_SIZE, 4);
	e4m_grc_set(m, PGLUE_B_REG_PF_BAR1_SIZE, 4);
	/* ports per engine: 0 = 1, 1 = 2, 2 = 4 */
	e4m_grc_set(m, MISC_REG_PORT_MODE, c->num_ports == 4 ? 2 : c->num_ports == 2 ? 1 : 0);
}

static int
check_config(const struct e4m_config *c)
{
	bool ah = (c->device_id & 0xff00) == 0x8000;
	bool bb = (c->device_id & 0xff00) == 0x1600;

	if (!ah && !bb)
		return -EINVAL;
	if (c->num_ports != 1 && c->num_ports != 2 && !(ah && c->num_ports == 4))
		return -EINVAL;
	if (c->num_pfs < c->num_ports || c->num_pfs > E4M_MAX_PFS)
		return -EINVAL;
	return 0;
}

struct e4m_dev *
e4m_create(const char *name, const struct e4m_config *cfg)
{
	const char *part = "GRC file";
	struct e4m_dev *m;
	unsigned int i;

	m = ecore_osal_zalloc(sizeof(*m));
	if (m == NULL)
		return NULL;
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->cfg = cfg != NULL ? *cfg : default_cfg;
	if (m->cfg.num_pfs == 0)
		m->cfg.num_pfs = m->cfg.num_ports;
	if (check_config(&m->cfg) != 0) {
		E4M_LOG(m, ERR, "unsupported adapter: device 0x%04x, %u ports, %u PFs",
			m->cfg.device_id, m->cfg.num_ports, m->cfg.num_pfs);
		ecore_osal_free(m);
		return NULL;
	}
	ecore_osal_spin_init(&m->lock);
	m->grc = ecore_osal_zalloc(sizeof(*m->grc));
	if (m->grc == NULL)
		goto fail;
	for (i = 0; i < m->cfg.num_pfs; i++) {
		m->fns[i].m = m;
		m->fns[i].pf = i;
		m->fns[i].port = i % m->cfg.num_ports;
	}
	set_chip_registers(m);
	part = "poll rules";
	if (e4m_rules_init(m) != 0)
		goto fail;
	part = "DMAE engine";
	if (e4m_dmae_init(m) != 0)
		goto fail_rules;
	part = "MFW";
	if (e4m_mfw_init(m) != 0)
		goto fail_dmae;
	part = "storms or slow path";
	if (e4m_storm_init(m) != 0 || e4m_sp_init(m) != 0)
		goto fail_mfw;
	return m;
fail_mfw:
	e4m_mfw_fini(m);
fail_dmae:
	e4m_dmae_fini(m);
fail_rules:
	e4m_rules_fini(m);
fail:
	E4M_LOG(m, ERR, "cannot create the model: its %s part failed (memory, or hooks past %u)",
		part, E4M_MAX_HOOKS);
	grc_free(m->grc);
	ecore_osal_free(m);
	return NULL;
}

void
e4m_destroy(struct e4m_dev *m)
{
	if (m == NULL)
		return;
	e4m_sp_fini(m);
	e4m_mfw_fini(m);
	e4m_dmae_fini(m);
	e4m_rules_fini(m);
	grc_free(m->grc);
	ecore_osal_free(m);
}

void *
e4m_pf_ctx(struct e4m_dev *m, unsigned int pf)
{
	return pf < m->cfg.num_pfs ? &m->fns[pf] : NULL;
}

int
e4m_fault_set(struct e4m_dev *m, enum e4m_fault f, uint32_t arg0, uint32_t arg1)
{
	if ((unsigned int)f >= E4M_FAULT__MAX)
		return -EINVAL;
	ecore_osal_spin_lock(&m->lock);
	m->faults[f] = (struct e4m_fault_state){ true, arg0, arg1 };
	ecore_osal_spin_unlock(&m->lock);
	return 0;
}

void
e4m_fault_clear(struct e4m_dev *m, enum e4m_fault f)
{
	if ((unsigned int)f >= E4M_FAULT__MAX)
		return;
	ecore_osal_spin_lock(&m->lock);
	m->faults[f].on = false;
	ecore_osal_spin_unlock(&m->lock);
}

int
e4m_fault_by_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < E4M_FAULT__MAX; i++)
		if (strcmp(name, fault_names[i]) == 0)
			return i;
	return -1;
}

int
e4m_link_set(struct e4m_dev *m, unsigned int port, bool up, uint32_t speed_mbps)
{
	int rc;

	if (port >= m->cfg.num_ports)
		return -EINVAL;
	ecore_osal_spin_lock(&m->lock);
	rc = e4m_mfw_link_set(m, port, up, speed_mbps);
	ecore_osal_spin_unlock(&m->lock);
	return rc;
}

bool
e4m_grc_peek(struct e4m_dev *m, uint32_t addr, uint32_t *val)
{
	bool w;

	ecore_osal_spin_lock(&m->lock);
	w = e4m_grc_get(m, addr, val);
	ecore_osal_spin_unlock(&m->lock);
	return w;
}

void
e4m_grc_poke(struct e4m_dev *m, uint32_t addr, uint32_t val)
{
	ecore_osal_spin_lock(&m->lock);
	e4m_grc_set(m, addr, val);
	ecore_osal_spin_unlock(&m->lock);
}

void
e4m_stats_get(struct e4m_dev *m, struct e4m_stats *st)
{
	ecore_osal_spin_lock(&m->lock);
	*st = m->stats;
	ecore_osal_spin_unlock(&m->lock);
}
