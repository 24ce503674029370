/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * What the init file's polls wait for: a write to a trigger register makes
 * the device's "done" register(s) read their done value, as the blocks do
 * when their memories are initialised. The table is the facts' "Polls in
 * 8.42.2.0" (shared/facts/e4-firmware.md section 3), checked against a dry
 * run of the file: every poll of an ENGINE (any id, 0 or 1), PORT, PF and
 * QM_PF phase of 1-port AH and BB is answered here or by a value the file
 * writes itself.
 *
 * Fault E4M_FAULT_POLL_STUCK (arg0 = a done register's GRC address): that
 * register reads "not done" for as long as the fault is on.
 */

#include "e4m_priv.h"

struct rule {
	uint32_t trigger;	/* any write here ... */
	uint32_t done;		/* ... makes n_done dwords from here read done_val */
	uint32_t done_val;
	uint8_t n_done;
	const char *what;
};

/* Sorted by trigger address (binary search on every GRC write). */
static const struct rule rules[] = {
	{ 0x1c0410, 0x1c0410, 0, 1, "CAU: self-clearing command" },
	{ 0x1f0004, 0x1f0008, 1, 1, "PRS: init done" },
	{ 0x238804, 0x238804, 0, 1, "RSS_REG_RSS_INIT_EN: self-clearing" },
	{ 0x29d000, 0x29d004, 1, 1, "PSWRD2: INIT_DONE" },
	{ 0x2a0000, 0x2a0004, 1, 1, "0x2a0000 block: init done" },
	/* PGLUE_B init done: ENGINE id 0 polls AND 0x1, id 1 AND 0x2; the model
	 * (one engine) answers for either. */
	{ 0x2a8000, 0x2a8004, 0x3, 1, "PGLUE_B: init done" },
	{ 0x2a8010, 0x2a8014, 0x3, 1, "PGLUE_B: init done" },
	{ 0x2c0000, 0x2c0010, 1, 1, "TM: init done" },
	{ 0x2d0000, 0x2d0004, 1, 4, "TCFC: init done (4)" },
	{ 0x2e0000, 0x2e0004, 1, 4, "CCFC: init done (4)" },
	{ 0x2f5d7c, 0x2f5d80, 1, 1, "QM: init done" },
	{ 0x340004, 0x340008, 3, 1, "BRB: init done" },
	{ 0x560000, 0x560004, 1, 1, "PTU: ATC_INIT_DONE" },
	{ 0x560080, 0x560084, 1, 1, "PTU: PF init done" },
	{ 0xdb0004, 0xdb0008, 3, 1, "BTB: init done" },
	{ 0x1000004, 0x1000008, 1, 1, "XCM: init done" },
	{ XSEM_REG_FAST_MEMORY + 0x658, XSEM_REG_FAST_MEMORY + 0x65c, 0, 1, "XSEM: idle" },
	{ YSEM_REG_FAST_MEMORY + 0x658, YSEM_REG_FAST_MEMORY + 0x65c, 0, 1, "YSEM: idle" },
	{ PSEM_REG_FAST_MEMORY + 0x658, PSEM_REG_FAST_MEMORY + 0x65c, 0, 1, "PSEM: idle" },
	{ PSEM_REG_FAST_MEMORY + 0xa00c, PSEM_REG_FAST_MEMORY + 0xa03c, 7, 1, "PSEM: 7" },
	{ TSEM_REG_FAST_MEMORY + 0x658, TSEM_REG_FAST_MEMORY + 0x65c, 0, 1, "TSEM: idle" },
	{ TSEM_REG_FAST_MEMORY + 0xa00c, TSEM_REG_FAST_MEMORY + 0xa03c, 7, 1, "TSEM: 7" },
	{ MSEM_REG_FAST_MEMORY + 0x658, MSEM_REG_FAST_MEMORY + 0x65c, 0, 1, "MSEM: idle" },
	{ USEM_REG_FAST_MEMORY + 0x658, USEM_REG_FAST_MEMORY + 0x65c, 0, 1, "USEM: idle" },
};

/* Registers that read done from reset (no trigger): the six CMs'
 * GRC_BUF_EMPTY, at CM base + 0xac0/0xab8/0xab0/0xab8/0xabc/0xacc. */
static const struct {
	uint32_t addr, val;
} reset_state[] = {
	{ 0x1000ac0, 1 },	/* XCM */
	{ 0x1080ab8, 1 },	/* YCM */
	{ 0x1100ab0, 1 },	/* PCM */
	{ 0x1180ab8, 1 },	/* TCM */
	{ 0x1200abc, 1 },	/* MCM */
	{ 0x1280acc, 1 },	/* UCM */
};

static const struct rule *
rule_by_trigger(uint32_t addr)
{
	size_t lo = 0, hi = RTE_DIM(rules);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rules[mid].trigger == addr)
			return &rules[mid];
		if (rules[mid].trigger < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static void
rules_wr(struct e4m_dev *m, struct e4m_fn *fn, uint32_t addr, uint32_t val, void *arg)
{
	const struct rule *r = rule_by_trigger(addr);
	unsigned int i;

	RTE_SET_USED(fn);
	RTE_SET_USED(val);
	RTE_SET_USED(arg);
	if (r == NULL)
		return;
	for (i = 0; i < r->n_done; i++)
		e4m_grc_set(m, r->done + 4 * i, r->done_val);
	m->stats.polls_answered++;
}

/* "Not done" for the stuck register: any value its poll does not accept. */
static bool
rules_rd(struct e4m_dev *m, struct e4m_fn *fn, uint32_t addr, uint32_t *val, void *arg)
{
	const struct e4m_fault_state *f = e4m_fault(m, E4M_FAULT_POLL_STUCK);
	unsigned int i, j;

	RTE_SET_USED(fn);
	RTE_SET_USED(arg);
	if (f == NULL || f->arg0 != addr)
		return false;
	for (i = 0; i < RTE_DIM(rules); i++) {
		for (j = 0; j < rules[i].n_done; j++) {
			if (rules[i].done + 4 * j == addr) {
				*val = rules[i].done_val == 0 ? 1 : 0;
				return true;
			}
		}
	}
	for (i = 0; i < RTE_DIM(reset_state); i++) {
		if (reset_state[i].addr == addr) {
			*val = 0;
			return true;
		}
	}
	return false;
}

int
e4m_rules_init(struct e4m_dev *m)
{
	uint32_t lo = UINT32_MAX, hi = 0;
	unsigned int i;
	int rc;

	for (i = 1; i < RTE_DIM(rules); i++) {
		if (rules[i - 1].trigger >= rules[i].trigger) {
			E4M_LOG(m, ERR, "poll rules not sorted at 0x%x", rules[i].trigger);
			return -EINVAL;
		}
	}
	for (i = 0; i < RTE_DIM(reset_state); i++)
		e4m_grc_set(m, reset_state[i].addr, reset_state[i].val);
	for (i = 0; i < RTE_DIM(rules); i++) {
		lo = RTE_MIN(lo, RTE_MIN(rules[i].trigger, rules[i].done));
		hi = RTE_MAX(hi, RTE_MAX(rules[i].trigger, rules[i].done + 4u * rules[i].n_done));
	}
	for (i = 0; i < RTE_DIM(reset_state); i++) {
		lo = RTE_MIN(lo, reset_state[i].addr);
		hi = RTE_MAX(hi, reset_state[i].addr + 4);
	}
	/* One hook over the span: triggers are looked up, reads answered only
	 * while a poll is stuck. */
	rc = e4m_hook_add(m, lo, hi, rules_wr, rules_rd, NULL);
	if (rc != 0)
		E4M_LOG(m, ERR, "no hook left for the init-poll rules");
	return rc;
}

void
e4m_rules_fini(struct e4m_dev *m)
{
	RTE_SET_USED(m);	/* nothing of its own: state is in the GRC file */
}
