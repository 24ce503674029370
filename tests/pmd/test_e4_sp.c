/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * net_e4's slow path against the model: the IGU CAM, the slow-path and
 * attention SBs, ILT/CDU context memory, the SPQ and EQ; PF_START, PF_STOP
 * and heartbeats in EBLOCK and CB modes, out-of-order completion, the ramrod
 * faults, an MFW attention through the DPC, fast-path SBs, CIDs; every DMA
 * block released at the end of each bring-up.
 *
 * The slow path alone, without the init file's phases (pmd_e4_bringup runs
 * the whole flow): what ecore_int_setup()/ecore_cxt_hw_init_pf() stage in
 * the runtime array is checked there, and the registers hw_init would write
 * from it are written directly: ecore_cxt_hw_write_pf() (ILT lines by DMAE,
 * CDUC range and CDU parameters by GRC writes) and ecore_int_cau_conf_sb()
 * with hw_init_done set (the default SB's CAU entries by DMAE).
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ecore_cxt.h"
#include "ecore_hw.h"
#include "ecore_init_fw.h"
#include "ecore_init_ops.h"
#include "ecore_mcp.h"
#include "ecore_int.h"
#include "ecore_rt_defs.h"
#include "ecore_spq.h"
#include "model/e4m_priv.h"
#include "model/e4m_sp.h"
#include "test_case.h"
#include "test_eal.h"
#include "test_wait.h"

struct fx {
	struct e4m_dev *m;
	struct ecore_dev dev;
	struct ecore_hwfn *h;
	struct ecore_ptt *ptt;
	unsigned int dma0;	/* DMA blocks before the fixture */
	unsigned int dma_idle;	/* ... with the fixture, before a bring-up */
	struct ecore_fw_image *fw;	/* sizes the runtime array */
	char err[256];
};

/* What the driver staged at runtime-array offset @p off (8.42 numbering). */
static bool
rt_get(struct ecore_hwfn *h, uint32_t off, uint32_t *val)
{
	uint32_t i = ecore_init_rt_index(h->p_dev->fw->profile, off);

	if (i >= h->rt_data->size || !h->rt_data->b_valid[i])
		return false;
	*val = h->rt_data->init_val[i];
	return true;
}

/* The MSI-X messages the model sent (its irq hook). */
static struct {
	unsigned int n;
	unsigned int pf, vector;
} msgs;

static void
msg_count(void *ctx, unsigned int pf, unsigned int vector)
{
	(void)ctx;
	msgs.n++;
	msgs.pf = pf;
	msgs.vector = vector;
}

static void
fx_create(struct fx *f, unsigned int pf)
{
	struct e4m_config cfg = {
		.device_id = 0x8070, .num_ports = 1, .num_pfs = 2,
		.base_mac = { 0x00, 0x0e, 0x1e, 0, 0, 0 }, .mfw_version = 0x083b1600,
		.irq = msg_count,
	};

	memset(f, 0, sizeof(*f));
	f->dma0 = ecore_osal_dma_in_use();
	f->m = e4m_create("sp", &cfg);
	assert_non_null(f->m);
	snprintf(f->dev.name, sizeof(f->dev.name), "e4sp%u", pf);
	f->dev.bar_ops = &e4m_bar_ops;
	f->dev.bar_ctx = e4m_pf_ctx(f->m, pf);
	f->dev.num_hwfns = 1;
	f->dev.int_mode = ECORE_INT_MODE_POLL;
	f->h = &f->dev.hwfns[0];
	f->h->p_dev = &f->dev;
	snprintf(f->h->name, sizeof(f->h->name), "e4sp%u:hwfn0", pf);
	f->h->rel_pf_id = pf;
	f->h->abs_pf_id = pf;
	assert_int_equal(ecore_ptt_pool_alloc(f->h), 0);
	ecore_gtt_init(f->h);
	f->ptt = f->h->p_main_ptt;
	assert_int_equal(ecore_dmae_info_alloc(f->h), 0);
	/* the runtime array is sized by the init file; the MFW handler needs SHMEM */
	assert_int_equal(ecore_fw_load_file(E4_FW_DIR "/qed_init_values_zipped-8.42.2.0.bin",
					    &f->fw, f->err, sizeof(f->err)), 0);
	f->dev.fw = f->fw;
	assert_int_equal(ecore_init_alloc(f->h), 0);
	assert_int_equal(ecore_mcp_cmd_init(f->h, f->ptt), 0);
	f->dma_idle = ecore_osal_dma_in_use();
}

/* resc_alloc + resc_setup + the part of hw_init the slow path needs. */
static void
fx_up(struct fx *f, uint32_t timeout_ms)
{
	struct ecore_hwfn *h = f->h;

	ecore_init_clear_rt_data(h);
	h->hw_init_done = false;
	assert_int_equal(ecore_int_igu_read_cam(h, f->ptt), 0);
	assert_int_equal(ecore_cxt_mngr_alloc(h), 0);
	assert_int_equal(ecore_cxt_set_pf_params(h, 100), 0);
	assert_int_equal(ecore_cxt_tables_alloc(h), 0);
	assert_int_equal(ecore_int_alloc(h, f->ptt), 0);
	assert_int_equal(ecore_spq_alloc(h), 0);
	assert_int_equal(ecore_eq_alloc(h, 256), 0);
	ecore_cxt_mngr_setup(h);
	ecore_int_setup(h, f->ptt);
	ecore_spq_setup(h);
	ecore_eq_setup(h);
	ecore_cxt_hw_init_pf(h, f->ptt);
	/* hw_init: what the runtime array would carry, written directly */
	h->hw_init_done = true;
	assert_int_equal(ecore_cxt_hw_write_pf(h, f->ptt), 0);
	assert_int_equal(ecore_int_cau_conf_sb(h, f->ptt, h->p_sp_sb->sb_info.sb_iova,
					       h->hw_info.igu_dsb_id), 0);
	ecore_int_igu_enable(h, f->ptt, ECORE_INT_MODE_POLL);
	ecore_spq_set_block_timeout_ms(h, timeout_ms);
}

static void
fx_down(struct fx *f)
{
	ecore_int_igu_disable_int(f->h, f->ptt);
	ecore_eq_free(f->h);
	ecore_spq_free(f->h);
	ecore_int_free(f->h);
	ecore_cxt_mngr_free(f->h);
	f->h->hw_init_done = false;
	assert_int_equal(ecore_osal_dma_in_use(), f->dma_idle);
}

static void
fx_destroy(struct fx *f)
{
	ecore_mcp_free(f->h);
	ecore_init_free(f->h);
	ecore_fw_free(f->fw);
	ecore_dmae_info_free(f->h);
	ecore_ptt_pool_free(f->h);
	e4m_destroy(f->m);
	assert_int_equal(ecore_osal_dma_in_use(), f->dma0);
}

static uint64_t
ms_since(uint64_t t0)
{
	return test_now_ms() - t0;
}

/* PF_START, heartbeats and PF_STOP in EBLOCK mode; what the model learned. */
static void
test_pf_start_stop(void **state)
{
	struct e4m_sp_pf_stats ps;
	struct e4m_sb_stats sbs;
	struct ecore_spq_stats ss;
	struct e4m_stats st;
	struct fx f;
	int i;

	(void)state;
	fx_create(&f, 1);
	fx_up(&f, 1000);
	/* PF 1 owns CAM lines 16..31: its default SB is 16 */
	assert_int_equal(f.h->hw_info.igu_dsb_id, 16);
	assert_int_equal(f.h->hw_info.igu_sb_base, 16);
	assert_int_equal(f.h->hw_info.igu_sb_cnt, E4M_SBS_PER_PF);
	{
		uint64_t sb = f.h->p_sp_sb->sb_info.sb_iova;
		uint32_t first = ecore_cxt_ilt_first_line(f.h), v;

		assert_true(rt_get(f.h, CAU_REG_SB_ADDR_MEMORY_RT_OFFSET + 2 * 16, &v));
		assert_int_equal(v, (uint32_t)sb);
		assert_true(rt_get(f.h, CAU_REG_SB_ADDR_MEMORY_RT_OFFSET + 2 * 16 + 1, &v));
		assert_int_equal(v, (uint32_t)(sb >> 32));
		assert_true(rt_get(f.h, IGU_REG_PF_CONFIGURATION_RT_OFFSET, &v));
		assert_int_equal(v, IGU_PF_CONF_FUNC_EN);
		assert_true(rt_get(f.h, CDU_REG_CID_ADDR_PARAMS_RT_OFFSET, &v));
		assert_int_equal(v, ecore_cxt_cdu_params());
		assert_true(rt_get(f.h, PSWRQ2_REG_CDUC_FIRST_ILT_RT_OFFSET, &v));
		assert_int_equal(v, first);
		assert_true(rt_get(f.h, PSWRQ2_REG_ILT_MEMORY_RT_OFFSET + 2 * first + 1, &v));
		assert_int_equal(v, (uint32_t)(ecore_cxt_ilt_entry(f.h, 0) >> 32));
		assert_true(v & (1u << 20));	/* valid: bit 52 */
	}
	/* 896 B contexts, 73 a 64 KiB page, 128 B wasted */
	assert_int_equal(ecore_cxt_cdu_params(), 896u | 128u << 12 | 73u << 24);
	assert_int_equal(ecore_cxt_ilt_first_line(f.h), 1 * ECORE_CXT_DEFAULT_ILT_LINES);
	assert_int_equal(ecore_cxt_ilt_lines_used(f.h), 2);	/* 16 core + 112 eth CIDs */

	assert_int_equal(ecore_sp_pf_start(f.h, f.ptt, 0, false), 0);
	assert_int_equal(e4m_sp_pf_stats_get(f.m, 1, &ps), 0);
	assert_true(ps.started);
	assert_int_equal(ps.eq_sb, 16);
	assert_int_equal(ps.eq_pages, 1);
	assert_int_equal(ps.eq_pi, 0);
	assert_int_equal(ps.spq_cid, ecore_spq_get_cid(f.h));
	assert_int_equal(ps.eqes, 1);
	for (i = 0; i < 5; i++)
		assert_int_equal(ecore_sp_heartbeat_ramrod(f.h), 0);
	assert_int_equal(ecore_sp_pf_stop(f.h), 0);
	assert_int_equal(e4m_sp_pf_stats_get(f.m, 1, &ps), 0);
	assert_false(ps.started);
	assert_int_equal(ps.ramrods, 7);
	assert_int_equal(ps.eqes, 7);
	assert_int_equal(ps.spq_cons, 7);
	/* the driver gave every EQ slot back */
	assert_int_equal(ps.eq_cons, 7);
	assert_int_equal(ps.igu_conf, IGU_PF_CONF_FUNC_EN | IGU_PF_CONF_ATTN_BIT_EN);
	assert_int_equal(ps.attn_addr, f.h->p_sb_attn->mem.iova);
	e4m_stats_get(f.m, &st);
	assert_int_equal(st.ramrods, 7);
	assert_int_equal(st.eqes, 7);
	assert_int_equal(st.dma_faults, 0);
	/* the DPC acked the SP SB: its last ack is the last prod_index */
	assert_int_equal(e4m_sb_stats_get(f.m, 16, &sbs), 0);
	assert_int_equal(sbs.addr, f.h->p_sp_sb->sb_info.sb_iova);
	assert_int_equal(sbs.updates, 7);
	assert_int_equal(sbs.last_ack, sbs.prod_index);
	assert_int_equal(sbs.last_int_cmd, IGU_INT_ENABLE);
	assert_true(sbs.acks >= 14);
	ecore_spq_stats(f.h, &ss);
	assert_int_equal(ss.posted, 7);
	assert_int_equal(ss.completed, 7);
	assert_int_equal(ss.eqes, 7);
	assert_int_equal(ss.timeouts + ss.fw_errors + ss.dup_echo + ss.unknown_echo, 0);
	fx_down(&f);
	fx_destroy(&f);
}

struct cb_log {
	unsigned int n;
	uintptr_t order[8];
	uint8_t codes[8];
};

static void
cb_record(struct ecore_hwfn *p_hwfn, void *cookie, uint8_t code)
{
	struct cb_log *log = cookie;

	RTE_SET_USED(p_hwfn);
	log->codes[log->n] = code;
	log->n++;
}

struct cb_tag {
	struct cb_log *log;
	uintptr_t id;
};

static void
cb_tagged(struct ecore_hwfn *p_hwfn, void *cookie, uint8_t code)
{
	struct cb_tag *t = cookie;

	RTE_SET_USED(p_hwfn);
	t->log->order[t->log->n] = t->id;
	t->log->codes[t->log->n] = code;
	t->log->n++;
}

static void
post_cb(struct fx *f, uint8_t proto, uint8_t cmd, const struct ecore_spq_comp_cb *cb)
{
	struct ecore_sp_init_data init = {
		.cid = ecore_spq_get_cid(f->h), .comp_mode = ECORE_SPQ_MODE_CB, .p_comp_data = cb,
	};
	struct ecore_spq_entry *ent;

	assert_int_equal(ecore_sp_init_request(f->h, &ent, cmd, proto, &init), 0);
	assert_int_equal(ecore_spq_post(f->h, ent, NULL), 0);
}

/* CB mode; a late completion overtaken by a later ramrod's. */
static void
test_cb_out_of_order(void **state)
{
	struct cb_log log = { 0 };
	struct cb_tag a = { &log, 1 }, b = { &log, 2 };
	const struct ecore_spq_comp_cb cba = { cb_tagged, &a }, cbb = { cb_tagged, &b };
	struct e4m_sp_pf_stats ps;
	struct ecore_spq_stats ss;
	struct fx f;

	(void)state;
	fx_create(&f, 0);
	fx_up(&f, 1000);
	assert_int_equal(f.h->hw_info.igu_dsb_id, 0);
	assert_int_equal(ecore_sp_pf_start(f.h, f.ptt, 0, false), 0);
	/* A's EQE comes 50 ms late; B (an ETH ramrod: completed, not run) at once */
	assert_int_equal(e4m_fault_set(f.m, E4M_FAULT_EQE_LATE, 50, 0), 0);
	post_cb(&f, PROTOCOLID_COMMON, COMMON_RAMROD_EMPTY, &cba);
	e4m_fault_clear(f.m, E4M_FAULT_EQE_LATE);
	post_cb(&f, PROTOCOLID_ETH, ETH_RAMROD_VPORT_START, &cbb);
	TEST_WAIT((ecore_int_sp_dpc(f.h), log.n == 2), TEST_WAIT_MS);
	assert_int_equal(log.order[0], 2);
	assert_int_equal(log.order[1], 1);
	assert_int_equal(log.codes[0], 0);
	assert_int_equal(log.codes[1], 0);
	assert_int_equal(e4m_sp_pf_stats_get(f.m, 0, &ps), 0);
	assert_int_equal(ps.eqes_late, 1);
	assert_int_equal(ps.eth_ramrods, 1);
	/* both retired: the ring is empty again and EBLOCK still works */
	assert_int_equal(ecore_sp_heartbeat_ramrod(f.h), 0);
	ecore_spq_stats(f.h, &ss);
	assert_int_equal(ss.completed, 4);
	assert_int_equal(ss.dup_echo + ss.unknown_echo, 0);
	/* an unknown ramrod completes with the model's "unsupported" code */
	log.n = 0;
	post_cb(&f, PROTOCOLID_ETH, 99, &cba);
	TEST_WAIT((ecore_int_sp_dpc(f.h), log.n == 1), TEST_WAIT_MS);
	assert_int_equal(log.codes[0], E4M_RC_UNSUPPORTED);
	assert_int_equal(ecore_sp_pf_stop(f.h), 0);
	fx_down(&f);
	fx_destroy(&f);
}

/* RAMROD_ERROR: ECORE_IO with the code, for the matching ramrods only. */
static void
test_ramrod_error(void **state)
{
	struct ecore_sp_init_data init = { .comp_mode = ECORE_SPQ_MODE_EBLOCK };
	struct cb_log log = { 0 };
	const struct ecore_spq_comp_cb cb = { cb_record, &log };
	struct ecore_spq_entry *ent;
	struct ecore_spq_stats ss;
	uint8_t code = 0;
	struct fx f;

	(void)state;
	fx_create(&f, 0);
	fx_up(&f, 1000);
	assert_int_equal(e4m_fault_set(f.m, E4M_FAULT_RAMROD_ERROR, 0x23,
				       PROTOCOLID_COMMON << 8 | COMMON_RAMROD_EMPTY), 0);
	/* PF_START does not match */
	assert_int_equal(ecore_sp_pf_start(f.h, f.ptt, 0, false), 0);
	assert_int_equal(ecore_sp_heartbeat_ramrod(f.h), ECORE_IO);
	init.cid = ecore_spq_get_cid(f.h);
	assert_int_equal(ecore_sp_init_request(f.h, &ent, COMMON_RAMROD_EMPTY, PROTOCOLID_COMMON,
					       &init), 0);
	assert_int_equal(ecore_spq_post(f.h, ent, &code), ECORE_IO);
	assert_int_equal(code, 0x23);
	/* CB mode: the callback gets the code */
	post_cb(&f, PROTOCOLID_COMMON, COMMON_RAMROD_EMPTY, &cb);
	TEST_WAIT((ecore_int_sp_dpc(f.h), log.n == 1), TEST_WAIT_MS);
	assert_int_equal(log.codes[0], 0x23);
	/* any ramrod */
	assert_int_equal(e4m_fault_set(f.m, E4M_FAULT_RAMROD_ERROR, 7, E4M_RAMROD_ANY), 0);
	assert_int_equal(ecore_sp_pf_stop(f.h), ECORE_IO);
	e4m_fault_clear(f.m, E4M_FAULT_RAMROD_ERROR);
	assert_int_equal(ecore_sp_heartbeat_ramrod(f.h), 0);
	ecore_spq_stats(f.h, &ss);
	assert_int_equal(ss.fw_errors, 4);
	fx_down(&f);
	/* a following bring-up is clean */
	fx_up(&f, 1000);
	assert_int_equal(ecore_sp_pf_start(f.h, f.ptt, 0, false), 0);
	assert_int_equal(ecore_sp_pf_stop(f.h), 0);
	fx_down(&f);
	fx_destroy(&f);
}

/* EQE_NEVER: ECORE_TIMEOUT within the set time; the SPQ stays usable. */
static void
test_eqe_never(void **state)
{
	struct e4m_sp_pf_stats ps;
	struct ecore_spq_stats ss;
	uint64_t t0, took;
	struct fx f;

	(void)state;
	fx_create(&f, 0);
	fx_up(&f, 150);
	assert_int_equal(ecore_sp_pf_start(f.h, f.ptt, 0, false), 0);
	assert_int_equal(e4m_fault_set(f.m, E4M_FAULT_EQE_NEVER, 0, 0), 0);
	t0 = test_now_ms();
	assert_int_equal(ecore_sp_heartbeat_ramrod(f.h), ECORE_TIMEOUT);
	took = ms_since(t0);
	assert_true(took >= 150);
	assert_true(took < 150 + TEST_WAIT_MS);
	e4m_fault_clear(f.m, E4M_FAULT_EQE_NEVER);
	/* the next ramrods complete; the stuck one keeps its slot */
	assert_int_equal(ecore_sp_heartbeat_ramrod(f.h), 0);
	ecore_spq_stats(f.h, &ss);
	assert_int_equal(ss.timeouts, 1);
	assert_int_equal(e4m_sp_pf_stats_get(f.m, 0, &ps), 0);
	assert_int_equal(ps.swallowed, 1);
	/* PF_STOP stuck too: the teardown still frees everything */
	assert_int_equal(e4m_fault_set(f.m, E4M_FAULT_EQE_NEVER, 0, 0), 0);
	assert_int_equal(ecore_sp_pf_stop(f.h), ECORE_TIMEOUT);
	e4m_fault_clear(f.m, E4M_FAULT_EQE_NEVER);
	fx_down(&f);
	/* the next bring-up after free/alloc */
	fx_up(&f, 1000);
	assert_int_equal(ecore_sp_pf_start(f.h, f.ptt, 0, false), 0);
	assert_int_equal(ecore_sp_heartbeat_ramrod(f.h), 0);
	assert_int_equal(ecore_sp_pf_stop(f.h), 0);
	ecore_spq_stats(f.h, &ss);
	assert_int_equal(ss.timeouts, 0);
	fx_down(&f);
	fx_destroy(&f);
}

/* EQE_LATE: shorter than the wait => success; longer => timeout, then a late completion. */
static void
test_eqe_late(void **state)
{
	struct ecore_spq_stats ss;
	uint64_t t0;
	struct fx f;

	(void)state;
	fx_create(&f, 0);
	fx_up(&f, 2000);
	assert_int_equal(ecore_sp_pf_start(f.h, f.ptt, 0, false), 0);
	assert_int_equal(e4m_fault_set(f.m, E4M_FAULT_EQE_LATE, 30, 0), 0);
	t0 = test_now_ms();
	assert_int_equal(ecore_sp_heartbeat_ramrod(f.h), 0);
	assert_true(ms_since(t0) >= 30);
	/* 300 ms late, 60 ms wait */
	ecore_spq_set_block_timeout_ms(f.h, 60);
	assert_int_equal(e4m_fault_set(f.m, E4M_FAULT_EQE_LATE, 300, 0), 0);
	assert_int_equal(ecore_sp_heartbeat_ramrod(f.h), ECORE_TIMEOUT);
	e4m_fault_clear(f.m, E4M_FAULT_EQE_LATE);
	TEST_WAIT((ecore_int_sp_dpc(f.h), ecore_spq_stats(f.h, &ss), ss.late == 1), TEST_WAIT_MS);
	ecore_spq_set_block_timeout_ms(f.h, 1000);
	assert_int_equal(ecore_sp_pf_stop(f.h), 0);
	ecore_spq_stats(f.h, &ss);
	assert_int_equal(ss.timeouts, 1);
	assert_int_equal(ss.completed, 4);
	fx_down(&f);
	/* a late EQE still pending at teardown: the model drops its alarm on destroy */
	fx_up(&f, 50);
	assert_int_equal(ecore_sp_pf_start(f.h, f.ptt, 0, false), 0);
	assert_int_equal(e4m_fault_set(f.m, E4M_FAULT_EQE_LATE, 5000, 0), 0);
	assert_int_equal(ecore_sp_heartbeat_ramrod(f.h), ECORE_TIMEOUT);
	fx_down(&f);
	fx_destroy(&f);
}

/*
 * A late EQE whose PF gave up (PF_START timed out, the load given back with
 * UNLOAD_REQ/UNLOAD_DONE as hw_init's unwind does, the EQ freed) is dropped
 * and counted when its delay ends, even when the PF is up again by then with
 * a new EQ: the stale completion must not be written into memory the driver
 * freed, nor into the new EQ as if it answered the new PF_START.
 */
static void
test_late_eqe_after_unload_is_dropped(void **state)
{
	struct e4m_sp_pf_stats ps0, ps;
	struct fx f;

	(void)state;
	fx_create(&f, 0);
	fx_up(&f, 50);
	assert_int_equal(e4m_sp_pf_stats_get(f.m, 0, &ps0), 0);
	assert_int_equal(e4m_fault_set(f.m, E4M_FAULT_EQE_LATE, 300, 0), 0);
	assert_int_equal(ecore_sp_pf_start(f.h, f.ptt, 0, false), ECORE_TIMEOUT);
	e4m_fault_clear(f.m, E4M_FAULT_EQE_LATE);
	assert_int_equal(ecore_mcp_unload_req(f.h, f.ptt), 0);
	assert_int_equal(ecore_mcp_unload_done(f.h, f.ptt), 0);
	fx_down(&f);
	/* up again before the late EQE's 300 ms are over */
	fx_up(&f, 1000);
	assert_int_equal(ecore_sp_pf_start(f.h, f.ptt, 0, false), 0);
	TEST_WAIT((e4m_sp_pf_stats_get(f.m, 0, &ps), ps.eqes_late == ps0.eqes_late + 1),
		  TEST_WAIT_MS);
	assert_int_equal(ps.eqes, ps0.eqes + 1);	/* the new PF_START's only */
	assert_int_equal(ps.eq_drops, ps0.eq_drops + 1);
	assert_int_equal(ecore_sp_pf_stop(f.h), 0);
	fx_down(&f);
	fx_destroy(&f);
}

/* What the MFW does on a link change, to the attention side: e4m_priv.h's call, under the lock. */
static void
raise_mcp_attention(struct e4m_dev *m, unsigned int pf)
{
	ecore_osal_spin_lock(&m->lock);
	e4m_sp_attention(m, pf, ECORE_ATTN_BIT_MCP_EVENT);
	ecore_osal_spin_unlock(&m->lock);
}

/* An MFW attention reaches the DPC and the MFW handler; the line is cleaned and acked. */
static void
test_mcp_attention(void **state)
{
	struct e4m_sp_pf_stats ps;
	struct e4m_stats st;
	uint32_t v = 0xdead;
	struct fx f;

	(void)state;
	fx_create(&f, 1);
	fx_up(&f, 1000);
	assert_int_equal(ecore_sp_pf_start(f.h, f.ptt, 0, false), 0);
	raise_mcp_attention(f.m, 1);
	assert_true(ecore_int_sp_pending(f.h) & ECORE_SB_ATT_IDX);
	/* one DPC: the assertion handled, the MFW's line cleaned, the deassertion handled */
	ecore_int_sp_dpc(f.h);
	assert_int_equal(f.h->p_sb_attn->mcp_events, 1);
	assert_int_equal(f.h->p_sb_attn->asserted, 1);
	assert_int_equal(f.h->p_sb_attn->deasserted, 1);
	assert_int_equal(f.h->p_sb_attn->unknown, 0);
	assert_int_equal(f.h->p_sb_attn->known_attn, 0);
	assert_true(e4m_grc_peek(f.m, MISC_REG_AEU_GENERAL_ATTN_0 + 1 * 8, &v));
	assert_int_equal(v, 0);
	assert_int_equal(e4m_sp_pf_stats_get(f.m, 1, &ps), 0);
	assert_int_equal(ps.atten_bits, 0);
	assert_int_equal(ps.atten_ack, 0);
	assert_int_equal(ps.attn_index, 2);
	assert_int_equal(ps.attn_sb_acks, 1);
	/* the attention lines are unmasked again */
	assert_true(e4m_grc_peek(f.m, IGU_REG_ATTENTION_ENABLE, &v));
	assert_int_equal(v, ECORE_ATTN_STATE_BITS);
	/* nothing more to do */
	assert_int_equal(ecore_int_sp_pending(f.h), 0);
	ecore_int_sp_dpc(f.h);
	assert_int_equal(f.h->p_sb_attn->mcp_events, 1);
	/* the next event (a link flap) is a new assertion: one DPC again */
	raise_mcp_attention(f.m, 1);
	ecore_int_sp_dpc(f.h);
	assert_int_equal(f.h->p_sb_attn->mcp_events, 2);
	assert_int_equal(f.h->p_sb_attn->deasserted, 2);
	assert_int_equal(e4m_sp_pf_stats_get(f.m, 1, &ps), 0);
	assert_int_equal(ps.attn_index, 4);
	assert_int_equal(ps.attn_sb_acks, 2);
	e4m_stats_get(f.m, &st);
	assert_int_equal(st.attentions, 2);
	/* PF 0 saw nothing */
	assert_int_equal(e4m_sp_pf_stats_get(f.m, 0, &ps), 0);
	assert_int_equal(ps.attn_index, 0);
	/* ramrods still complete */
	assert_int_equal(ecore_sp_pf_stop(f.h), 0);
	fx_down(&f);
	fx_destroy(&f);
}

/* Fast-path SBs: the CAU learns their address (DMAE after hw_init); acks reach the IGU. */
static void
test_fastpath_sb(void **state)
{
	struct ecore_sb_info sb = { 0 };
	struct ecore_dma_mem mem;
	struct e4m_sb_stats sbs;
	struct fx f;

	(void)state;
	fx_create(&f, 0);
	fx_up(&f, 1000);
	assert_int_equal(ecore_osal_dma_alloc(&mem, f.dev.name, "fpsb", 0,
					      sizeof(struct status_block), 64), 0);
	assert_int_equal(ecore_int_sb_init(f.h, f.ptt, &sb, mem.va, mem.iova, 0), 0);
	assert_int_equal(sb.igu_sb_id, 1);
	assert_int_equal(e4m_sb_stats_get(f.m, 1, &sbs), 0);
	assert_int_equal(sbs.addr, mem.iova);
	ecore_sb_ack(&sb, IGU_INT_DISABLE, true);
	assert_int_equal(e4m_sb_stats_get(f.m, 1, &sbs), 0);
	assert_int_equal(sbs.acks, 1);
	assert_int_equal(sbs.last_int_cmd, IGU_INT_DISABLE);
	/* 15 SBs after the default one: ids 0..14 */
	assert_int_equal(ecore_int_sb_init(f.h, f.ptt, &sb, mem.va, mem.iova, 14), 0);
	assert_int_equal(sb.igu_sb_id, 15);
	assert_int_equal(ecore_int_sb_init(f.h, f.ptt, &sb, mem.va, mem.iova, 15), ECORE_INVAL);
	ecore_osal_dma_free(&mem);
	/* interrupt modes */
	ecore_int_igu_enable(f.h, f.ptt, ECORE_INT_MODE_INTA);
	assert_true(e4m_grc_peek(f.m, IGU_REG_PF_CONFIGURATION, &sbs.last_ack));
	assert_int_equal(sbs.last_ack, IGU_PF_CONF_FUNC_EN | IGU_PF_CONF_ATTN_BIT_EN |
			 IGU_PF_CONF_INT_LINE_EN | IGU_PF_CONF_SINGLE_ISR_EN);
	ecore_int_igu_enable(f.h, f.ptt, ECORE_INT_MODE_MSIX);
	assert_true(e4m_grc_peek(f.m, IGU_REG_PF_CONFIGURATION, &sbs.last_ack));
	assert_int_equal(sbs.last_ack, IGU_PF_CONF_FUNC_EN | IGU_PF_CONF_ATTN_BIT_EN |
			 IGU_PF_CONF_MSI_MSIX_EN);
	assert_int_equal(f.dev.int_mode, ECORE_INT_MODE_MSIX);
	fx_down(&f);
	assert_true(e4m_grc_peek(f.m, IGU_REG_PF_CONFIGURATION, &sbs.last_ack));
	assert_int_equal(sbs.last_ack, 0);
	fx_destroy(&f);
}

/* CIDs and where their contexts are. */
static void
test_cids(void **state)
{
	uint32_t cid, first = 0, i;
	uint64_t iova0, iova;
	void *va0, *va;
	struct fx f;

	(void)state;
	fx_create(&f, 0);
	fx_up(&f, 1000);
	/* the SPQ has CID 0 (CORE range 0..15); ETH starts at 16 */
	assert_int_equal(ecore_spq_get_cid(f.h), 0);
	for (i = 0; i < 112; i++) {
		assert_int_equal(ecore_cxt_acquire_cid(f.h, PROTOCOLID_ETH, &cid), 0);
		assert_int_equal(cid, 16 + i);
		if (i == 0)
			first = cid;
	}
	assert_int_equal(ecore_cxt_acquire_cid(f.h, PROTOCOLID_ETH, &cid), ECORE_NORESOURCES);
	ecore_cxt_release_cid(f.h, first + 5);
	assert_int_equal(ecore_cxt_acquire_cid(f.h, PROTOCOLID_ETH, &cid), 0);
	assert_int_equal(cid, first + 5);
	assert_int_equal(ecore_cxt_acquire_cid(f.h, PROTOCOLID_ROCE, &cid), ECORE_INVAL);
	/* a new setup round frees every CID but the SPQ's, which it marks again */
	ecore_cxt_mngr_setup(f.h);
	ecore_spq_setup(f.h);
	assert_int_equal(ecore_spq_get_cid(f.h), 0);
	assert_int_equal(ecore_cxt_acquire_cid(f.h, PROTOCOLID_CORE, &cid), 0);
	assert_int_equal(cid, 1);
	assert_int_equal(ecore_cxt_reserve_cid(f.h, 1), ECORE_EXISTS);
	assert_int_equal(ecore_cxt_reserve_cid(f.h, 128), ECORE_INVAL);
	ecore_cxt_release_cid(f.h, 1);
	assert_int_equal(ecore_cxt_acquire_cid(f.h, PROTOCOLID_ETH, &cid), 0);
	assert_int_equal(cid, 16);
	/* 73 contexts a page: CID 72 ends page 0, CID 73 starts page 1 */
	assert_int_equal(ecore_cxt_get_cid_info(f.h, 0, &va0, &iova0), 0);
	assert_int_equal(ecore_cxt_get_cid_info(f.h, 72, &va, &iova), 0);
	assert_int_equal(iova - iova0, 72 * 896);
	assert_ptr_equal((uint8_t *)va - (uint8_t *)va0, 72 * 896);
	assert_int_equal(ecore_cxt_get_cid_info(f.h, 73, &va, &iova), 0);
	assert_int_equal(iova & 0xfff, 0);
	assert_int_equal(ecore_cxt_ilt_entry(f.h, 1), (iova >> 12) | (1ULL << 52));
	assert_int_equal(ecore_cxt_get_cid_info(f.h, 128, &va, &iova), ECORE_INVAL);
	/* the SPQ's ring base is in CID 0's xstorm context: a page of DMA memory */
	iova = omni_get_le32((uint8_t *)va0 + XSTORM_CORE_SPQ_BASE_LO) |
		(uint64_t)omni_get_le32((uint8_t *)va0 + XSTORM_CORE_SPQ_BASE_HI) << 32;
	assert_int_not_equal(iova, 0);
	assert_int_equal(iova & 0xfff, 0);
	assert_non_null(ecore_osal_iova2virt(iova, 4096));
	fx_down(&f);
	fx_destroy(&f);
}

/* Chains in DMA memory: NEXT_PTR pages point at each other, PBL lists its pages. */
static void
test_chain_memory(void **state)
{
	unsigned int dma0 = ecore_osal_dma_in_use(), i;
	struct ecore_dev dev = { .name = "e4chain" };
	struct ecore_chain c;
	const uint8_t *p;
	uint32_t n;

	(void)state;
	assert_int_equal(ecore_chain_alloc(&dev, "rxbd", ECORE_CHAIN_MODE_NEXT_PTR, 8, 1530, &c),
			 0);
	assert_int_equal(c.page_cnt, 3);
	assert_int_equal(ecore_osal_dma_in_use(), dma0 + 3);
	for (i = 0; i < 3; i++) {
		p = (const uint8_t *)c.pages[i].va + 510 * 8;
		assert_int_equal(omni_get_le32(p) | (uint64_t)omni_get_le32(p + 4) << 32,
				 c.pages[(i + 1) % 3].iova);
		assert_ptr_equal((void *)(uintptr_t)omni_get_le64(p + 8), c.pages[(i + 1) % 3].va);
	}
	/* produced elements land in the pages in order, never on the pointers */
	for (n = 0; n < 1530; n++)
		*(uint64_t *)ecore_chain_produce(&c) = n + 1;
	for (i = 0; i < 3; i++) {
		p = c.pages[i].va;
		assert_int_equal(*(const uint64_t *)p, i * 510 + 1);
		assert_int_equal(*(const uint64_t *)(p + 509 * 8), i * 510 + 510);
	}
	assert_int_equal(*(uint64_t *)ecore_chain_consume(&c), 1);
	assert_int_equal(*(uint64_t *)ecore_chain_peek_cons(&c), 2);
	ecore_chain_free(&c);
	assert_int_equal(ecore_osal_dma_in_use(), dma0);

	assert_int_equal(ecore_chain_alloc(&dev, "txbd", ECORE_CHAIN_MODE_PBL, 16, 600, &c), 0);
	assert_int_equal(c.page_cnt, 3);
	assert_int_equal(ecore_osal_dma_in_use(), dma0 + 4);	/* 3 pages + the PBL */
	for (i = 0; i < 3; i++)
		assert_int_equal(omni_get_le64((uint8_t *)c.pbl.va + 8 * i), c.pages[i].iova);
	ecore_chain_free(&c);
	assert_int_equal(ecore_osal_dma_in_use(), dma0);
	/* bad geometry: nothing allocated */
	assert_int_equal(ecore_chain_alloc(&dev, "bad", ECORE_CHAIN_MODE_SINGLE, 16, 300, &c),
			 ECORE_INVAL);
	assert_int_equal(ecore_osal_dma_in_use(), dma0);
}

/*
 * The CDU's context size is the driver's (CDU_REG_CID_ADDR_PARAMS): when it is
 * smaller than the core context's SPQ fields the model reads and writes (base,
 * consumer), the doorbell is a counted fault, not an access past the bytes the
 * model checked as host memory.
 */
static void
test_spq_context_smaller_than_its_fields(void **state)
{
	struct e4m_sp_pf_stats ps0, ps;
	uint32_t params;
	struct fx f;

	(void)state;
	fx_create(&f, 0);
	fx_up(&f, 1000);
	assert_int_equal(ecore_sp_pf_start(f.h, f.ptt, 0, false), 0);
	assert_int_equal(e4m_sp_pf_stats_get(f.m, 0, &ps0), 0);
	assert_true(e4m_grc_peek(f.m, CDU_REG_CID_ADDR_PARAMS, &params));
	/* 16-byte contexts, same count a page: the SPQ fields sit past the context */
	ecore_wr(f.h, f.ptt, CDU_REG_CID_ADDR_PARAMS, (params & ~0xfffu) | 16);
	ecore_spq_set_block_timeout_ms(f.h, 50);
	assert_int_equal(ecore_sp_heartbeat_ramrod(f.h), ECORE_TIMEOUT);
	assert_int_equal(e4m_sp_pf_stats_get(f.m, 0, &ps), 0);
	assert_int_equal(ps.spq_faults, ps0.spq_faults + 1);
	assert_int_equal(ps.ramrods, ps0.ramrods);
	/* the right size again: the next doorbell finds the ring and runs both */
	ecore_wr(f.h, f.ptt, CDU_REG_CID_ADDR_PARAMS, params);
	ecore_spq_set_block_timeout_ms(f.h, 1000);
	assert_int_equal(ecore_sp_pf_stop(f.h), 0);
	assert_int_equal(e4m_sp_pf_stats_get(f.m, 0, &ps), 0);
	assert_int_equal(ps.ramrods, ps0.ramrods + 2);
	fx_down(&f);
	fx_destroy(&f);
}

/* A PF with no CAM line; an SPQ doorbell before the ILT is programmed. */
static void
test_refusals(void **state)
{
	struct e4m_sp_pf_stats ps;
	unsigned int i;
	struct fx f;

	(void)state;
	fx_create(&f, 0);
	for (i = 0; i < E4M_SBS_PER_PF; i++)
		e4m_grc_poke(f.m, IGU_REG_MAPPING_MEMORY + 4 * i, 0);
	assert_int_equal(ecore_int_igu_read_cam(f.h, f.ptt), ECORE_NORESOURCES);
	/* an SPQ doorbell the model cannot place: counted, no completion */
	f.dev.bar_ops->db_write32(f.dev.bar_ctx, ECORE_DB_ADDR(0), ecore_spq_db_value(1));
	assert_int_equal(e4m_sp_pf_stats_get(f.m, 0, &ps), 0);
	assert_int_equal(ps.spq_faults, 1);
	assert_int_equal(ps.ramrods, 0);
	/* a Tx-style doorbell is not the slow path's */
	f.dev.bar_ops->db_write32(f.dev.bar_ctx, ECORE_DB_ADDR(20), 5u << 16 | 0x1084);
	assert_int_equal(e4m_sp_other_doorbells(f.m), 1);
	fx_destroy(&f);
}

/*
 * The IGU's cleanup command (qede's ecore_int_igu_cleanup_sb): data, then the
 * control write; the SB's bit in the cleanup status follows set and clear.
 * A control write that is no cleanup is counted and changes nothing.
 */
static void
test_igu_cleanup(void **state)
{
	const uint32_t st5 = IGU_REG_CLEANUP_STATUS_0 + 5 / 32 * 4;
	const uint32_t st37 = IGU_REG_CLEANUP_STATUS_0 + 37 / 32 * 4;
	const uint32_t ctrl5 = IGU_CTRL_WRITE | (IGU_CMD_INT_ACK_BASE + 5) << IGU_CTRL_ADDR_SHIFT;
	struct e4m_stats st0, st;
	struct fx f;

	(void)state;
	fx_create(&f, 0);
	e4m_stats_get(f.m, &st0);
	assert_int_equal(ecore_rd(f.h, f.ptt, st5), 0);
	ecore_wr(f.h, f.ptt, IGU_REG_COMMAND_REG_32LSB_DATA, IGU_CLEANUP_CMD_SET | IGU_CLEANUP_SET);
	ecore_wr(f.h, f.ptt, IGU_REG_COMMAND_REG_CTRL, ctrl5);
	assert_int_equal(ecore_rd(f.h, f.ptt, st5), 1u << 5);
	/* another SB in the next status word, then SB 5 cleared */
	ecore_wr(f.h, f.ptt, IGU_REG_COMMAND_REG_CTRL,
		 IGU_CTRL_WRITE | (IGU_CMD_INT_ACK_BASE + 37) << IGU_CTRL_ADDR_SHIFT);
	assert_int_equal(ecore_rd(f.h, f.ptt, st37), 1u << (37 % 32));
	ecore_wr(f.h, f.ptt, IGU_REG_COMMAND_REG_32LSB_DATA, IGU_CLEANUP_CMD_SET);
	ecore_wr(f.h, f.ptt, IGU_REG_COMMAND_REG_CTRL, ctrl5);
	assert_int_equal(ecore_rd(f.h, f.ptt, st5), 0);
	assert_int_equal(ecore_rd(f.h, f.ptt, st37), 1u << (37 % 32));
	e4m_stats_get(f.m, &st);
	assert_int_equal(st.bad_accesses, st0.bad_accesses);
	/* not a cleanup: a read command, a command past the SBs, a bad type */
	ecore_wr(f.h, f.ptt, IGU_REG_COMMAND_REG_32LSB_DATA, IGU_CLEANUP_CMD_SET | IGU_CLEANUP_SET);
	ecore_wr(f.h, f.ptt, IGU_REG_COMMAND_REG_CTRL, ctrl5 & ~IGU_CTRL_WRITE);
	ecore_wr(f.h, f.ptt, IGU_REG_COMMAND_REG_CTRL,
		 IGU_CTRL_WRITE | (IGU_CMD_INT_ACK_BASE + IGU_REG_MAPPING_MEMORY_SIZE / 4) <<
		 IGU_CTRL_ADDR_SHIFT);
	ecore_wr(f.h, f.ptt, IGU_REG_COMMAND_REG_32LSB_DATA,
		 IGU_CLEANUP_CMD_SET | IGU_CLEANUP_SET | 7u << IGU_CLEANUP_TYPE_SHIFT);
	ecore_wr(f.h, f.ptt, IGU_REG_COMMAND_REG_CTRL, ctrl5);
	assert_int_equal(ecore_rd(f.h, f.ptt, st5), 0);
	e4m_stats_get(f.m, &st);
	assert_int_equal(st.bad_accesses, st0.bad_accesses + 3);
	fx_destroy(&f);
}

/*
 * MSI-X messages: none in POLL mode; in MSI-X mode one per SB change while the
 * SB is enabled, none while a message is outstanding or the SB is disabled;
 * re-enabling with an index behind the SB's sends again. Vector = the SB's
 * CAM vector (0: the default SB, which also carries the attentions).
 */
static void
test_msix_messages(void **state)
{
	struct ecore_sb_info *sp;
	struct e4m_sb_stats sbs;
	struct fx f;

	(void)state;
	fx_create(&f, 1);
	fx_up(&f, 1000);
	sp = &f.h->p_sp_sb->sb_info;
	memset(&msgs, 0, sizeof(msgs));
	assert_int_equal(ecore_sp_pf_start(f.h, f.ptt, 0, false), 0);
	assert_int_equal(msgs.n, 0);
	ecore_int_igu_enable(f.h, f.ptt, ECORE_INT_MODE_MSIX);
	/* the EQE's SB update sends; the DPC's ENABLE ack at its end re-arms */
	assert_int_equal(ecore_sp_heartbeat_ramrod(f.h), 0);
	assert_int_equal(msgs.n, 1);
	assert_int_equal(msgs.pf, 1);
	assert_int_equal(msgs.vector, 0);
	assert_int_equal(e4m_sb_stats_get(f.m, sp->igu_sb_id, &sbs), 0);
	assert_int_equal(sbs.msgs, 1);
	assert_false(sbs.msg_pending);
	/* disabled: the SB changes, no message */
	ecore_sb_ack(sp, IGU_INT_DISABLE, false);
	assert_int_equal(ecore_sp_heartbeat_ramrod(f.h), 0);
	assert_int_equal(msgs.n, 1);
	/* an attention goes by the default SB; a second one waits for the ack */
	raise_mcp_attention(f.m, 1);
	assert_int_equal(msgs.n, 2);
	raise_mcp_attention(f.m, 1);
	assert_int_equal(msgs.n, 2);
	assert_int_equal(e4m_sb_stats_get(f.m, sp->igu_sb_id, &sbs), 0);
	assert_true(sbs.msg_pending);
	/* re-enabled with an index behind the SB's: sent again */
	sp->sb_ack = (sbs.prod_index - 1) & ECORE_SB_PROD_MASK;
	ecore_sb_ack(sp, IGU_INT_ENABLE, true);
	assert_int_equal(msgs.n, 3);
	/* re-enabled up to date: nothing */
	sp->sb_ack = sbs.prod_index;
	ecore_sb_ack(sp, IGU_INT_ENABLE, true);
	assert_int_equal(msgs.n, 3);
	/* outstanding, then the PF's interrupts off and on: the next change sends */
	raise_mcp_attention(f.m, 1);
	assert_int_equal(msgs.n, 4);
	ecore_int_sp_dpc(f.h);
	raise_mcp_attention(f.m, 1);
	assert_int_equal(msgs.n, 5);
	ecore_int_igu_enable(f.h, f.ptt, ECORE_INT_MODE_POLL);
	ecore_int_igu_enable(f.h, f.ptt, ECORE_INT_MODE_MSIX);
	assert_int_equal(e4m_sb_stats_get(f.m, sp->igu_sb_id, &sbs), 0);
	assert_false(sbs.msg_pending);
	ecore_int_sp_dpc(f.h);
	assert_int_equal(ecore_sp_pf_stop(f.h), 0);
	fx_down(&f);
	fx_destroy(&f);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pf_start_stop),
		cmocka_unit_test(test_cb_out_of_order),
		cmocka_unit_test(test_ramrod_error),
		cmocka_unit_test(test_eqe_never),
		cmocka_unit_test(test_eqe_late),
		cmocka_unit_test(test_late_eqe_after_unload_is_dropped),
		cmocka_unit_test(test_mcp_attention),
		cmocka_unit_test(test_fastpath_sb),
		cmocka_unit_test(test_cids),
		cmocka_unit_test(test_chain_memory),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_spq_context_smaller_than_its_fields),
		cmocka_unit_test(test_igu_cleanup),
		cmocka_unit_test(test_msix_messages),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests_name("e4_sp", tests, test_eal_setup, test_eal_teardown);
}
