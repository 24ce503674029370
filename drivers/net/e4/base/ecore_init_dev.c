/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * The init runner's device sink: GRC through a PTT, DMAE through the DMAE
 * client (ecore_dmae.c), the DMAE_READY callback as its self-test.
 */

#include "ecore_hw.h"
#include "ecore_init_ops.h"

struct dev_sink {
	struct ecore_hwfn *p_hwfn;
	struct ecore_ptt *p_ptt;
};

static void
dev_write(void *ctx, uint32_t addr, uint32_t val)
{
	struct dev_sink *d = ctx;

	ecore_wr(d->p_hwfn, d->p_ptt, addr, val);
}

static uint32_t
dev_read(void *ctx, uint32_t addr)
{
	struct dev_sink *d = ctx;

	return ecore_rd(d->p_hwfn, d->p_ptt, addr);
}

static int
dev_dmae_write(void *ctx, uint32_t addr, const void *le_data, uint32_t n_dw)
{
	struct dev_sink *d = ctx;

	return ecore_dmae_host2grc(d->p_hwfn, d->p_ptt, le_data, addr, n_dw);
}

static int
dev_fill(void *ctx, uint32_t addr, uint32_t val, uint32_t n_dw)
{
	struct dev_sink *d = ctx;

	return ecore_dmae_grc_fill(d->p_hwfn, d->p_ptt, addr, val, n_dw);
}

static int
dev_callback(void *ctx, uint16_t id, uint16_t block)
{
	struct dev_sink *d = ctx;

	RTE_SET_USED(id);	/* DMAE_READY: the only id the parser accepts */
	RTE_SET_USED(block);
	return ecore_dmae_sanity(d->p_hwfn, d->p_ptt, "engine");
}

static void
dev_delay(void *ctx, uint32_t us)
{
	RTE_SET_USED(ctx);
	ecore_osal_udelay(us);
}

enum _ecore_status_t
ecore_init_run_stats(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt, int phase,
		     int phase_id, uint32_t modes, struct ecore_init_run_stats *st)
{
	struct dev_sink d = { .p_hwfn = p_hwfn, .p_ptt = p_ptt };
	const struct ecore_init_sink sink = {
		.ctx = &d,
		.write = dev_write,
		.read = dev_read,
		.dmae_write = dev_dmae_write,
		.fill = dev_fill,
		.callback = dev_callback,
		.delay = dev_delay,
	};
	enum _ecore_status_t rc;

	if (p_hwfn->p_dev->fw == NULL) {
		ECORE_LOG(ERR, "%s: no firmware image to run", p_hwfn->name);
		return ECORE_INVAL;
	}
	rc = ecore_init_run_sink(p_hwfn->p_dev->fw, &sink, phase, phase_id, modes,
				 p_hwfn->rt_data, st);
	if (rc != ECORE_SUCCESS)
		ECORE_LOG(ERR, "%s: init phase %s (id %d, modes 0x%x) failed: %s", p_hwfn->name,
			  ecore_init_phase_str(phase), phase_id, modes, ecore_status_str(rc));
	return rc;
}

enum _ecore_status_t
ecore_init_run(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt, int phase, int phase_id,
	       uint32_t modes)
{
	return ecore_init_run_stats(p_hwfn, p_ptt, phase, phase_id, modes, NULL);
}
