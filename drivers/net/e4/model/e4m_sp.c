/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * The model's slow path: the IGU (CAM lines, commands, PF configuration,
 * attention SB), the CAU (where each status block lives), the ILT/CDU lookup
 * of a CID's context, and the SPQ consumer: an SPQ doorbell makes the model
 * read the ring (found in the CORE connection's xstorm context), run each
 * ramrod (COMMON PF_START/PF_STOP/EMPTY; ETH ones complete OK unexecuted),
 * write an EQE through the EQ's PBL and the EQ producer into the slow-path
 * SB's PI, bumping its prod_index.
 */

#include <rte_alarm.h>

#include "base/ecore_chain.h"
#include "base/ecore_hsi.h"
#include "e4m_priv.h"
#include "e4m_sp.h"

#define NUM_SBS (IGU_REG_MAPPING_MEMORY_SIZE / 4)
/** IGU command slots below this are SB acks (one per SB). */
#define IGU_CMD_SB_SLOTS 0x1f0
/** The SPQ ring: one page of 16 B elements (the driver's ECORE_SPQ_RING_SIZE). */
#define E4M_SPQ_RING_SIZE 256

struct e4m_sb {
	struct e4m_sb_stats st;
};

struct e4m_sp_pf {
	struct e4m_sp_pf_stats st;
	uint32_t attn_lo, attn_hi;
	bool cduc_first_set, cduc_last_set;
	uint32_t cduc_first, cduc_last;
	uint64_t eq_pbl;
	struct ecore_chain eq;		/* geometry and the model's producer */
};

struct e4m_late {
	struct e4m_late *next;
	unsigned int pf;
	bool dropped;		/* its PF was reset since: drop it when due */
	struct event_ring_entry eqe;
};

struct e4m_sp {
	struct e4m_sb sbs[NUM_SBS];
	struct e4m_sp_pf pfs[E4M_MAX_PFS];
	struct e4m_late *late_head, *late_tail;
	uint64_t other_dbs;
};

/* ---- status blocks ---- */

/*
 * The IGU's message for SB @p sb after its status block changed: one MSI-X
 * message when the PF has MSI-X on and the SB's interrupt is enabled (its
 * last ack was not IGU_INT_DISABLE), then none until the driver re-enables it
 * with an IGU_INT_ENABLE ack (igu_cmd_wr() sends again if the SB moved past
 * the index that ack carries). The vector is the SB's CAM vector number.
 */
static void
sb_msg(struct e4m_dev *m, unsigned int sb)
{
	struct e4m_sb_stats *s = &m->sp->sbs[sb].st;
	unsigned int pf = sb / E4M_SBS_PER_PF;
	uint32_t conf;

	if (m->cfg.irq == NULL || pf >= m->cfg.num_pfs)
		return;
	conf = m->sp->pfs[pf].st.igu_conf;
	if (!(conf & IGU_PF_CONF_FUNC_EN) || !(conf & IGU_PF_CONF_MSI_MSIX_EN) ||
	    s->last_int_cmd == IGU_INT_DISABLE || s->msg_pending)
		return;
	s->msg_pending = true;
	s->msgs++;
	m->cfg.irq(m->cfg.irq_ctx, pf, sb % E4M_SBS_PER_PF);
}

/* Write PI @p pi (-1: none) of IGU SB @p sb and bump its prod_index. */
static bool
sb_update(struct e4m_dev *m, unsigned int sb, int pi, uint16_t val)
{
	struct e4m_sb_stats *s;
	struct status_block *b;

	if (sb >= NUM_SBS || m->sp->sbs[sb].st.addr == 0)
		return false;
	s = &m->sp->sbs[sb].st;
	b = e4m_dma(m, s->addr, sizeof(*b));
	if (b == NULL)
		return false;
	if (pi >= 0)
		__atomic_store_n(&b->pi_array[pi], OMNI_LE16(val), __ATOMIC_RELEASE);
	b->sb_num = OMNI_LE32(sb);
	s->prod_index = (s->prod_index + 1) & ECORE_SB_PROD_MASK;
	/* the PI before the index that announces it */
	__atomic_store_n(&b->prod_index, OMNI_LE32(s->prod_index), __ATOMIC_RELEASE);
	s->updates++;
	sb_msg(m, sb);
	return true;
}

static bool
attn_sb_write(struct e4m_dev *m, unsigned int pf)
{
	struct e4m_sp_pf_stats *st = &m->sp->pfs[pf].st;
	struct atten_status_block *a;

	if (st->attn_addr == 0)
		return false;
	a = e4m_dma(m, st->attn_addr, sizeof(*a));
	if (a == NULL)
		return false;
	a->atten_bits = OMNI_LE32(st->atten_bits);
	a->atten_ack = OMNI_LE32(st->atten_ack);
	__atomic_store_n(&a->sb_index, OMNI_LE16(st->attn_index), __ATOMIC_RELEASE);
	return true;
}

void
e4m_sp_attention(struct e4m_dev *m, unsigned int pf, uint32_t bits)
{
	struct e4m_sp_pf_stats *st;

	if (pf >= m->cfg.num_pfs || m->sp == NULL)
		return;
	st = &m->sp->pfs[pf].st;
	st->atten_bits |= bits & ECORE_ATTN_STATE_BITS;
	st->attn_index++;
	if (bits & ECORE_ATTN_BIT_MCP_EVENT)
		e4m_grc_set(m, MISC_REG_AEU_GENERAL_ATTN_0 + pf * 8, 1);
	if (!attn_sb_write(m, pf)) {
		st->attn_drops++;
		E4M_LOG(m, WARNING, "PF %u: attention 0x%x with no attention SB", pf, bits);
		return;
	}
	m->stats.attentions++;
	/* the attention segment belongs to the PF's default SB (vector 0) */
	sb_msg(m, pf * E4M_SBS_PER_PF);
}

/* ---- GRC hooks ---- */

static void
igu_cmd_wr(struct e4m_dev *m, struct e4m_fn *fn, uint32_t addr, uint32_t val, void *arg)
{
	uint32_t slot = (addr - IGU_CMD_GRC_BASE) / 8;
	struct e4m_sp_pf_stats *st;

	RTE_SET_USED(arg);
	if ((addr - IGU_CMD_GRC_BASE) % 8 != 0 || fn == NULL)
		return;
	st = &m->sp->pfs[fn->pf].st;
	if (slot < IGU_CMD_SB_SLOTS) {
		struct e4m_sb_stats *s;

		if (slot >= NUM_SBS) {
			m->stats.bad_accesses++;
			return;
		}
		s = &m->sp->sbs[slot].st;
		s->acks++;
		if ((val >> IGU_PROD_CONS_SEGMENT_SHIFT) & 1) {
			st->attn_sb_acks++;
			return;
		}
		if (val & IGU_PROD_CONS_UPDATE_FLAG)
			s->last_ack = val & IGU_PROD_CONS_SB_INDEX_MASK;
		s->last_int_cmd = (val >> IGU_PROD_CONS_INT_CMD_SHIFT) & IGU_PROD_CONS_INT_CMD_MASK;
		if (s->last_int_cmd == IGU_INT_ENABLE && s->msg_pending) {
			s->msg_pending = false;
			if (s->last_ack != (s->prod_index & IGU_PROD_CONS_SB_INDEX_MASK))
				sb_msg(m, slot);
		}
		return;
	}
	switch (slot + IGU_CMD_INT_ACK_BASE) {
	case IGU_CMD_ATTN_BIT_SET_UPPER:
		st->atten_ack |= val & ECORE_ATTN_STATE_BITS;
		attn_sb_write(m, fn->pf);
		break;
	case IGU_CMD_ATTN_BIT_CLR_UPPER:
		st->atten_ack &= val;
		attn_sb_write(m, fn->pf);
		break;
	default:
		break;
	}
}

static void
pf_msgs_clear(struct e4m_dev *m, unsigned int pf)
{
	unsigned int sb;

	for (sb = pf * E4M_SBS_PER_PF; sb < (pf + 1) * E4M_SBS_PER_PF && sb < NUM_SBS; sb++)
		m->sp->sbs[sb].st.msg_pending = false;
}

static void
igu_reg_wr(struct e4m_dev *m, struct e4m_fn *fn, uint32_t addr, uint32_t val, void *arg)
{
	struct e4m_sp_pf *p;

	RTE_SET_USED(arg);
	if (fn == NULL)
		return;
	p = &m->sp->pfs[fn->pf];
	switch (addr) {
	case IGU_REG_PF_CONFIGURATION:
		p->st.igu_conf = val;
		/* interrupts off: no message outstanding (the next enable starts afresh) */
		if (!(val & IGU_PF_CONF_FUNC_EN) || !(val & IGU_PF_CONF_MSI_MSIX_EN))
			pf_msgs_clear(m, fn->pf);
		break;
	case IGU_REG_ATTN_MSG_ADDR_L:
		p->attn_lo = val;
		p->st.attn_addr = (uint64_t)p->attn_hi << 32 | p->attn_lo;
		break;
	case IGU_REG_ATTN_MSG_ADDR_H:
		p->attn_hi = val;
		p->st.attn_addr = (uint64_t)p->attn_hi << 32 | p->attn_lo;
		break;
	default:
		break;
	}
}

/*
 * The IGU command register: the cleanup of one SB (qede cleans every SB of
 * its PF at hw_init and again at close, and waits up to 5 s per SB for the
 * status bit). The model keeps no IGU-internal SB state to clean: the
 * command completes at once, its status bit follows the set/clear.
 */
static void
igu_ctrl_wr(struct e4m_dev *m, struct e4m_fn *fn, uint32_t addr, uint32_t val, void *arg)
{
	uint32_t cmd, data = 0, type, sb, st_addr, st = 0;

	RTE_SET_USED(fn);
	RTE_SET_USED(arg);
	if (addr != IGU_REG_COMMAND_REG_CTRL)
		return;
	cmd = (val >> IGU_CTRL_ADDR_SHIFT) & IGU_CTRL_ADDR_MASK;
	e4m_grc_get(m, IGU_REG_COMMAND_REG_32LSB_DATA, &data);
	type = (data >> IGU_CLEANUP_TYPE_SHIFT) & IGU_CLEANUP_TYPE_MASK;
	if (!(val & IGU_CTRL_WRITE) || !(data & IGU_CLEANUP_CMD_SET) ||
	    cmd < IGU_CMD_INT_ACK_BASE || cmd - IGU_CMD_INT_ACK_BASE >= NUM_SBS ||
	    type >= IGU_CLEANUP_TYPES) {
		m->stats.bad_accesses++;
		return;
	}
	sb = cmd - IGU_CMD_INT_ACK_BASE;
	st_addr = IGU_REG_CLEANUP_STATUS_0 + 0x80 * type + sb / 32 * 4;
	e4m_grc_get(m, st_addr, &st);
	if (data & IGU_CLEANUP_SET)
		st |= 1u << (sb % 32);
	else
		st &= ~(1u << (sb % 32));
	e4m_grc_set(m, st_addr, st);
}

static void
cau_addr_wr(struct e4m_dev *m, struct e4m_fn *fn, uint32_t addr, uint32_t val, void *arg)
{
	uint32_t sb = (addr - CAU_REG_SB_ADDR_MEMORY) / 8, lo, hi;

	RTE_SET_USED(fn);
	RTE_SET_USED(val);
	RTE_SET_USED(arg);
	e4m_grc_get(m, CAU_REG_SB_ADDR_MEMORY + sb * 8, &lo);
	e4m_grc_get(m, CAU_REG_SB_ADDR_MEMORY + sb * 8 + 4, &hi);
	m->sp->sbs[sb].st.addr = (uint64_t)hi << 32 | lo;
}

static void
cau_var_wr(struct e4m_dev *m, struct e4m_fn *fn, uint32_t addr, uint32_t val, void *arg)
{
	uint32_t sb = (addr - CAU_REG_SB_VAR_MEMORY) / 8;

	RTE_SET_USED(fn);
	RTE_SET_USED(arg);
	/* the entry's first dword carries the SB's producer: the driver sets it (to 0) */
	if ((addr - CAU_REG_SB_VAR_MEMORY) % 8 == 0)
		m->sp->sbs[sb].st.prod_index = val & ECORE_SB_PROD_MASK;
}

static void
aeu_attn_wr(struct e4m_dev *m, struct e4m_fn *fn, uint32_t addr, uint32_t val, void *arg)
{
	uint32_t pf = (addr - MISC_REG_AEU_GENERAL_ATTN_0) / 8;
	struct e4m_sp_pf_stats *st;

	RTE_SET_USED(fn);
	RTE_SET_USED(arg);
	if ((addr - MISC_REG_AEU_GENERAL_ATTN_0) % 8 != 0 || pf >= m->cfg.num_pfs || val != 0)
		return;
	/* the driver cleaned the MFW's attention: the line drops */
	st = &m->sp->pfs[pf].st;
	if (!(st->atten_bits & ECORE_ATTN_BIT_MCP_EVENT))
		return;
	st->atten_bits &= ~ECORE_ATTN_BIT_MCP_EVENT;
	st->attn_index++;
	attn_sb_write(m, pf);
}

static void
cduc_wr(struct e4m_dev *m, struct e4m_fn *fn, uint32_t addr, uint32_t val, void *arg)
{
	struct e4m_sp_pf *p;

	RTE_SET_USED(arg);
	if (fn == NULL)
		return;
	p = &m->sp->pfs[fn->pf];
	if (addr == PSWRQ2_REG_CDUC_FIRST_ILT) {
		p->cduc_first = val;
		p->cduc_first_set = true;
	} else if (addr == PSWRQ2_REG_CDUC_LAST_ILT) {
		p->cduc_last = val;
		p->cduc_last_set = true;
	}
}

static void
eqe_cons_wr(struct e4m_dev *m, struct e4m_fn *fn, uint32_t addr, uint32_t val, void *arg)
{
	uint32_t pf = (addr - USDM_GRC_BASE) / 8;

	RTE_SET_USED(fn);
	RTE_SET_USED(arg);
	if ((addr - USDM_GRC_BASE) % 8 == 0 && pf < m->cfg.num_pfs)
		m->sp->pfs[pf].st.eq_cons = val & 0xffff;
}

/* ---- ILT lookup ---- */

/*
 * The context of PF @p pf's CID @p cid in host memory, or NULL (why: logged).
 * @p need: the bytes of it the caller touches; a context size (the driver's
 * CDU programming) below that is refused, so nothing past the bytes checked
 * as host memory is read or written.
 */
static uint8_t *
cid_context(struct e4m_dev *m, unsigned int pf, uint32_t cid, uint32_t need)
{
	struct e4m_sp_pf *p = &m->sp->pfs[pf];
	uint32_t params, size, per_page, lo, hi;
	uint64_t e, line;

	e4m_grc_get(m, CDU_REG_CID_ADDR_PARAMS, &params);
	size = params & 0xfff;
	per_page = params >> 24;
	if (size == 0 || per_page == 0 || !p->cduc_first_set || !p->cduc_last_set) {
		E4M_LOG(m, WARNING, "PF %u CID %u: CDU/ILT not programmed", pf, cid);
		return NULL;
	}
	if (size < need) {
		E4M_LOG(m, WARNING, "PF %u CID %u: CDU context size %u is below the %u bytes used",
			pf, cid, size, need);
		return NULL;
	}
	/* 64 bits: a first line near 2^32 must not wrap to a low line */
	line = (uint64_t)p->cduc_first + cid / per_page;
	if (line > p->cduc_last || line >= PSWRQ2_REG_ILT_MEMORY_LINES) {
		E4M_LOG(m, WARNING, "PF %u CID %u: ILT line %" PRIu64 " beyond the PF's last (%u)",
			pf, cid, line, p->cduc_last);
		return NULL;
	}
	e4m_grc_get(m, PSWRQ2_REG_ILT_MEMORY + (uint32_t)line * 8, &lo);
	e4m_grc_get(m, PSWRQ2_REG_ILT_MEMORY + (uint32_t)line * 8 + 4, &hi);
	e = (uint64_t)hi << 32 | lo;
	if (!(e & ILT_ENTRY_VALID)) {
		E4M_LOG(m, WARNING, "PF %u CID %u: ILT line %" PRIu64 " not valid", pf, cid,
			line);
		return NULL;
	}
	return e4m_dma(m, ((e & ILT_ENTRY_ADDR_MASK) << 12) + (uint64_t)(cid % per_page) * size,
		       size);
}

/* ---- EQ ---- */

static void
eq_post(struct e4m_dev *m, unsigned int pf, const struct event_ring_entry *eqe)
{
	struct e4m_sp_pf *p = &m->sp->pfs[pf];
	uint32_t slot;
	uint8_t *pbl, *dst;

	if (!p->st.started) {
		p->st.eq_drops++;
		E4M_LOG(m, WARNING, "PF %u: EQE %u/%u with no EQ (no PF_START)", pf,
			eqe->protocol_id, eqe->opcode);
		return;
	}
	if ((uint16_t)(p->eq.prod_idx - p->st.eq_cons) >= p->eq.capacity) {
		p->st.eq_drops++;
		E4M_LOG(m, WARNING, "PF %u: EQ full (producer %u, driver %u)", pf, p->eq.prod_idx,
			p->st.eq_cons);
		return;
	}
	slot = ecore_chain_produce_idx(&p->eq);
	pbl = e4m_dma(m, p->eq_pbl + 8ULL * (slot / p->eq.elem_per_page), 8);
	dst = pbl == NULL ? NULL :
		e4m_dma(m, omni_get_le64(pbl) +
			(uint64_t)(slot % p->eq.elem_per_page) * sizeof(*eqe), sizeof(*eqe));
	if (dst == NULL) {
		p->st.eq_drops++;
		return;
	}
	memcpy(dst, eqe, sizeof(*eqe));
	p->st.eq_prod = p->eq.prod_idx;
	p->st.eqes++;
	m->stats.eqes++;
	if (!sb_update(m, p->st.eq_sb, p->st.eq_pi, p->eq.prod_idx))
		E4M_LOG(m, WARNING, "PF %u: slow-path SB %u unknown (CAU)", pf, p->st.eq_sb);
	/* a failed PF_STOP leaves the PF started (a failed PF_START keeps its EQ too:
	 * its completion has to reach the driver) */
	if (eqe->protocol_id == PROTOCOLID_COMMON && eqe->opcode == COMMON_EVENT_PF_STOP &&
	    eqe->fw_return_code == 0)
		p->st.started = false;
}

static void
late_cb(void *arg)
{
	struct e4m_dev *m = arg;
	struct e4m_late *l;

	ecore_osal_spin_lock(&m->lock);
	l = m->sp->late_head;
	if (l != NULL) {
		m->sp->late_head = l->next;
		if (m->sp->late_head == NULL)
			m->sp->late_tail = NULL;
		m->sp->pfs[l->pf].st.eqes_late++;
		if (l->dropped) {
			m->sp->pfs[l->pf].st.eq_drops++;
			E4M_LOG(m, WARNING, "PF %u: late EQE %u/%u echo %u dropped (the PF "
				"was unloaded or reset since)", l->pf, l->eqe.protocol_id,
				l->eqe.opcode, OMNI_LE16(l->eqe.echo));
		} else {
			eq_post(m, l->pf, &l->eqe);
		}
	}
	ecore_osal_spin_unlock(&m->lock);
	ecore_osal_free(l);
}

static void
eq_post_late(struct e4m_dev *m, unsigned int pf, const struct event_ring_entry *eqe,
	     uint32_t ms)
{
	struct e4m_late *l = ecore_osal_zalloc(sizeof(*l));

	if (l == NULL) {
		eq_post(m, pf, eqe);
		return;
	}
	l->pf = pf;
	l->eqe = *eqe;
	if (rte_eal_alarm_set((uint64_t)ms * 1000, late_cb, m) != 0) {
		E4M_LOG(m, WARNING, "no alarm for a late EQE: posting it now");
		ecore_osal_free(l);
		eq_post(m, pf, eqe);
		return;
	}
	if (m->sp->late_tail != NULL)
		m->sp->late_tail->next = l;
	else
		m->sp->late_head = l;
	m->sp->late_tail = l;
}

void
e4m_sp_pf_reset(struct e4m_dev *m, unsigned int pf)
{
	struct e4m_late *l;

	if (m->sp == NULL || pf >= E4M_MAX_PFS)
		return;
	m->sp->pfs[pf].st.started = false;
	/* marked, not unlinked: each pending alarm pops one entry */
	for (l = m->sp->late_head; l != NULL; l = l->next)
		if (l->pf == pf)
			l->dropped = true;
}

/* ---- ramrods ---- */

static int
pf_start(struct e4m_dev *m, unsigned int pf, uint64_t data)
{
	const struct e4m_hsi_layout *hl = e4m_hsi_layout(e4m_mfw_pf_hsi(m, pf));
	struct e4m_sp_pf *p = &m->sp->pfs[pf];
	const struct pf_start_ramrod_data *d;
	uint16_t sb;

	/* the data as the PF's HSI lays it out (a PF never loaded: 8.42.2's); the
	 * fields read are at the same offsets in every served HSI */
	if (hl == NULL)
		hl = e4m_hsi_layout(E4M_HSI_8_42_2);
	RTE_BUILD_BUG_ON(sizeof(*d) > 72);
	d = e4m_dma(m, data, RTE_MAX(hl->pf_start_size, sizeof(*d)));
	if (d == NULL)
		return -EFAULT;
	sb = OMNI_LE16(d->event_ring_sb_id);
	if (d->event_ring_num_pages == 0 || d->event_ring_sb_index >= ECORE_SB_PI_NUM ||
	    sb >= NUM_SBS) {
		E4M_LOG(m, WARNING, "PF %u: PF_START with a bad EQ (%u pages, SB %u PI %u)", pf,
			d->event_ring_num_pages, sb, d->event_ring_sb_index);
		return -EINVAL;
	}
	if (ecore_chain_geometry(&p->eq, ECORE_CHAIN_MODE_PBL, sizeof(struct event_ring_entry),
				 (uint32_t)d->event_ring_num_pages *
				 (ECORE_CHAIN_PAGE_SIZE / sizeof(struct event_ring_entry))) != 0)
		return -EINVAL;
	p->eq_pbl = (uint64_t)OMNI_LE32(d->event_ring_pbl_hi) << 32 |
		OMNI_LE32(d->event_ring_pbl_lo);
	p->st.eq_pages = d->event_ring_num_pages;
	p->st.eq_sb = sb;
	p->st.eq_pi = d->event_ring_sb_index;
	p->st.eq_prod = 0;
	p->st.eq_cons = 0;
	p->st.started = true;
	return 0;
}

static uint8_t
common_opcode(uint8_t cmd, bool *known)
{
	*known = true;
	switch (cmd) {
	case COMMON_RAMROD_PF_START: return COMMON_EVENT_PF_START;
	case COMMON_RAMROD_PF_STOP: return COMMON_EVENT_PF_STOP;
	case COMMON_RAMROD_VF_START: return COMMON_EVENT_VF_START;
	case COMMON_RAMROD_VF_STOP: return COMMON_EVENT_VF_STOP;
	case COMMON_RAMROD_PF_UPDATE: return COMMON_EVENT_PF_UPDATE;
	case COMMON_RAMROD_RL_UPDATE: return COMMON_EVENT_RL_UPDATE;
	case COMMON_RAMROD_EMPTY: return COMMON_EVENT_EMPTY;
	}
	*known = false;
	return cmd;
}

static uint8_t
eth_opcode(uint8_t cmd, bool *known)
{
	*known = true;
	switch (cmd) {
	case ETH_RAMROD_VPORT_START: return ETH_EVENT_VPORT_START;
	case ETH_RAMROD_VPORT_UPDATE: return ETH_EVENT_VPORT_UPDATE;
	case ETH_RAMROD_VPORT_STOP: return ETH_EVENT_VPORT_STOP;
	case ETH_RAMROD_RX_QUEUE_START: return ETH_EVENT_RX_QUEUE_START;
	case ETH_RAMROD_RX_QUEUE_STOP: return ETH_EVENT_RX_QUEUE_STOP;
	case ETH_RAMROD_TX_QUEUE_START: return ETH_EVENT_TX_QUEUE_START;
	case ETH_RAMROD_TX_QUEUE_STOP: return ETH_EVENT_TX_QUEUE_STOP;
	case ETH_RAMROD_FILTERS_UPDATE: return ETH_EVENT_FILTERS_UPDATE;
	case ETH_RAMROD_RX_QUEUE_UPDATE: return ETH_EVENT_RX_QUEUE_UPDATE;
	}
	*known = false;
	return cmd;
}

static void
ramrod(struct e4m_dev *m, unsigned int pf, const struct slow_path_element *e)
{
	struct e4m_sp_pf *p = &m->sp->pfs[pf];
	const struct e4m_fault_state *f;
	struct event_ring_entry eqe;
	uint8_t proto = e->hdr.protocol_id, cmd = e->hdr.cmd_id, rc = 0, opcode;
	uint64_t data = (uint64_t)OMNI_LE32(e->data_hi) << 32 | OMNI_LE32(e->data_lo);
	bool known = false;

	p->st.ramrods++;
	m->stats.ramrods++;
	if (proto == PROTOCOLID_COMMON) {
		opcode = common_opcode(cmd, &known);
		if (cmd == COMMON_RAMROD_PF_START && pf_start(m, pf, data) != 0) {
			/* no EQ to complete on: the driver times out */
			p->st.eq_drops++;
			return;
		}
	} else if (proto == PROTOCOLID_ETH) {
		opcode = eth_opcode(cmd, &known);
		if (known)
			p->st.eth_ramrods++;
	} else {
		opcode = cmd;
	}
	if (!known) {
		p->st.unknown_ramrods++;
		rc = E4M_RC_UNSUPPORTED;
		E4M_LOG(m, WARNING, "PF %u: ramrod %u/%u unknown", pf, proto, cmd);
	}
	if (e4m_fault(m, E4M_FAULT_EQE_NEVER) != NULL) {
		p->st.swallowed++;
		return;
	}
	f = e4m_fault(m, E4M_FAULT_RAMROD_ERROR);
	if (f != NULL && (f->arg1 == E4M_RAMROD_ANY || f->arg1 == ((uint32_t)proto << 8 | cmd)))
		rc = (uint8_t)f->arg0;
	memset(&eqe, 0, sizeof(eqe));
	eqe.protocol_id = proto;
	eqe.opcode = opcode;
	eqe.vf_id = EVENT_RING_VF_ID_PF;
	eqe.echo = e->hdr.echo;
	eqe.fw_return_code = rc;
	f = e4m_fault(m, E4M_FAULT_EQE_LATE);
	if (f != NULL)
		eq_post_late(m, pf, &eqe, f->arg0);
	else
		eq_post(m, pf, &eqe);
}

/* An SPQ doorbell: consume the ring from the context's consumer to @p prod. */
static void
spq_doorbell(struct e4m_dev *m, unsigned int pf, uint32_t cid, uint16_t prod)
{
	struct e4m_sp_pf *p = &m->sp->pfs[pf];
	struct slow_path_element e;
	const uint8_t *ring;
	uint8_t *ctx;
	uint64_t base;
	uint16_t cons;

	ctx = cid_context(m, pf, cid, XSTORM_CORE_SPQ_CONS + 2);
	if (ctx == NULL) {
		p->st.spq_faults++;
		return;
	}
	base = (uint64_t)omni_get_le32(ctx + XSTORM_CORE_SPQ_BASE_HI) << 32 |
		omni_get_le32(ctx + XSTORM_CORE_SPQ_BASE_LO);
	ring = base == 0 ? NULL : e4m_dma(m, base, ECORE_CHAIN_PAGE_SIZE);
	if (ring == NULL) {
		p->st.spq_faults++;
		E4M_LOG(m, WARNING, "PF %u CID %u: SPQ doorbell with no SPQ base", pf, cid);
		return;
	}
	/* the firmware keeps its consumer in the context (the driver zeroes it at setup) */
	cons = omni_get_le16(ctx + XSTORM_CORE_SPQ_CONS);
	if ((uint16_t)(prod - cons) > E4M_SPQ_RING_SIZE) {
		p->st.spq_faults++;
		E4M_LOG(m, WARNING, "PF %u: SPQ producer %u runs past the ring (consumer %u)", pf,
			prod, cons);
		return;
	}
	p->st.spq_cid = cid;
	while (cons != prod) {
		memcpy(&e, ring + (size_t)(cons % E4M_SPQ_RING_SIZE) * sizeof(e), sizeof(e));
		cons++;
		omni_put_le16(ctx + XSTORM_CORE_SPQ_CONS, cons);
		p->st.spq_cons = cons;
		ramrod(m, pf, &e);
	}
}

static void
sp_db_hook(struct e4m_dev *m, struct e4m_fn *fn, uint32_t off, uint32_t val)
{
	if ((val & 0xffff) != (ecore_spq_db_value(0) & 0xffff)) {
		m->sp->other_dbs++;
		return;
	}
	spq_doorbell(m, fn->pf, off / 4, val >> 16);
}

/* ---- life ---- */

int
e4m_sp_init(struct e4m_dev *m)
{
	struct e4m_sp *sp = ecore_osal_zalloc(sizeof(*sp));
	unsigned int pf, v, line;
	int rc = 0;

	if (sp == NULL)
		return -ENOMEM;
	m->sp = sp;
	/* IGU CAM: a run of SBs per PF, its first the default SB (vector 0) */
	for (pf = 0; pf < m->cfg.num_pfs; pf++)
		for (v = 0; v < E4M_SBS_PER_PF; v++) {
			line = pf * E4M_SBS_PER_PF + v;
			if (line >= NUM_SBS)
				break;
			e4m_grc_set(m, IGU_REG_MAPPING_MEMORY + 4 * line,
				    IGU_MAPPING_LINE_VALID | v << IGU_MAPPING_LINE_VECTOR_SHIFT |
				    pf << IGU_MAPPING_LINE_FUNC_SHIFT | IGU_MAPPING_LINE_PF_VALID);
		}
	rc |= e4m_hook_add(m, IGU_CMD_GRC_BASE, IGU_CMD_GRC_BASE + 0x1000, igu_cmd_wr, NULL, NULL);
	rc |= e4m_hook_add(m, IGU_REG_PF_CONFIGURATION, IGU_REG_ATTN_MSG_ADDR_H + 4, igu_reg_wr,
			   NULL, NULL);
	rc |= e4m_hook_add(m, IGU_REG_COMMAND_REG_CTRL, IGU_REG_COMMAND_REG_CTRL + 4, igu_ctrl_wr,
			   NULL, NULL);
	rc |= e4m_hook_add(m, CAU_REG_SB_ADDR_MEMORY, CAU_REG_SB_ADDR_MEMORY + NUM_SBS * 8,
			   cau_addr_wr, NULL, NULL);
	rc |= e4m_hook_add(m, CAU_REG_SB_VAR_MEMORY, CAU_REG_SB_VAR_MEMORY + NUM_SBS * 8,
			   cau_var_wr, NULL, NULL);
	rc |= e4m_hook_add(m, MISC_REG_AEU_GENERAL_ATTN_0,
			   MISC_REG_AEU_GENERAL_ATTN_0 + E4M_MAX_PFS * 8, aeu_attn_wr, NULL, NULL);
	rc |= e4m_hook_add(m, PSWRQ2_REG_CDUC_FIRST_ILT, PSWRQ2_REG_CDUC_LAST_ILT + 4, cduc_wr,
			   NULL, NULL);
	rc |= e4m_hook_add(m, USDM_GRC_BASE, USDM_GRC_BASE + E4M_MAX_PFS * 8, eqe_cons_wr, NULL,
			   NULL);
	if (rc != 0) {
		E4M_LOG(m, ERR, "no room for the slow path's GRC hooks");
		ecore_osal_free(sp);
		m->sp = NULL;
		return -ENOSPC;
	}
	m->db_hook = sp_db_hook;
	return 0;
}

void
e4m_sp_fini(struct e4m_dev *m)
{
	struct e4m_late *l;

	if (m->sp == NULL)
		return;
	/* waits for a callback that is running */
	rte_eal_alarm_cancel(late_cb, m);
	while ((l = m->sp->late_head) != NULL) {
		m->sp->late_head = l->next;
		ecore_osal_free(l);
	}
	m->db_hook = NULL;
	ecore_osal_free(m->sp);
	m->sp = NULL;
}

int
e4m_sp_pf_stats_get(struct e4m_dev *m, unsigned int pf, struct e4m_sp_pf_stats *st)
{
	if (pf >= m->cfg.num_pfs)
		return -EINVAL;
	ecore_osal_spin_lock(&m->lock);
	*st = m->sp->pfs[pf].st;
	ecore_osal_spin_unlock(&m->lock);
	return 0;
}

int
e4m_sb_stats_get(struct e4m_dev *m, unsigned int sb, struct e4m_sb_stats *st)
{
	if (sb >= NUM_SBS)
		return -EINVAL;
	ecore_osal_spin_lock(&m->lock);
	*st = m->sp->sbs[sb].st;
	ecore_osal_spin_unlock(&m->lock);
	return 0;
}

uint64_t
e4m_sp_other_doorbells(struct e4m_dev *m)
{
	uint64_t n;

	ecore_osal_spin_lock(&m->lock);
	n = m->sp->other_dbs;
	ecore_osal_spin_unlock(&m->lock);
	return n;
}
