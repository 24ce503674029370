/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* net_e4's MFW interface (base/ecore_mcp.c) against the model's MFW
 * (model/e4m_mfw.c): SHMEM discovery, the three load codes and their
 * mirrors at unload, each refusal, a silent MFW, an unclean exit cleared by
 * FLR, the link (asked for and asynchronous), and the resource fallback. */

#include <stdio.h>

#include "test_case.h"
#include "test_log.h"
#include "test_eal.h"

#include "base/ecore_hw.h"
#include "base/ecore_mcp.h"
#include "model/e4_model.h"

/* One PF's ecore_dev on a model adapter, set up by hand (no init flow). */
struct pf {
	struct ecore_dev dev;
	struct ecore_hwfn *hwfn;
	struct ecore_ptt *ptt;
};

static struct e4m_dev *
model(uint16_t device_id, uint8_t ports, uint8_t pfs)
{
	struct e4m_config c = {
		.device_id = device_id, .num_ports = ports, .num_pfs = pfs,
		.base_mac = { 0x00, 0x0e, 0x1e, 0x00, 0x00, 0x00 },
		.mfw_version = 0x083b1600,
	};
	struct e4m_dev *m = e4m_create("mfw", &c);

	assert_non_null(m);
	return m;
}

static void
pf_open(struct pf *p, struct e4m_dev *m, unsigned int pf, unsigned int ports, bool bb)
{
	struct ecore_hwfn *h;

	memset(p, 0, sizeof(*p));
	snprintf(p->dev.name, sizeof(p->dev.name), "e4pf%u", pf);
	p->dev.bar_ops = &e4m_bar_ops;
	p->dev.bar_ctx = e4m_pf_ctx(m, pf);
	assert_non_null(p->dev.bar_ctx);
	p->dev.chip = bb ? ECORE_CHIP_BB : ECORE_CHIP_AH;
	p->dev.num_hwfns = 1;
	p->dev.drv_version = 0x16000100;
	h = &p->dev.hwfns[0];
	h->p_dev = &p->dev;
	snprintf(h->name, sizeof(h->name), "e4pf%u:hwfn0", pf);
	h->rel_pf_id = pf;
	h->abs_pf_id = pf;
	h->port_id = pf % ports;
	assert_int_equal(ecore_ptt_pool_alloc(h), ECORE_SUCCESS);
	ecore_gtt_init(h);
	p->hwfn = h;
	p->ptt = h->p_main_ptt;
}

static void
pf_open_init(struct pf *p, struct e4m_dev *m, unsigned int pf, unsigned int ports)
{
	pf_open(p, m, pf, ports, false);
	assert_int_equal(ecore_mcp_cmd_init(p->hwfn, p->ptt), ECORE_SUCCESS);
}

static void
pf_close(struct pf *p)
{
	ecore_mcp_free(p->hwfn);
	ecore_ptt_pool_free(p->hwfn);
}

static uint32_t
load(struct pf *p, enum _ecore_status_t want_rc)
{
	struct ecore_load_req_params lp = { 0 };

	assert_int_equal(ecore_mcp_load_req(p->hwfn, p->ptt, &lp), want_rc);
	if (want_rc == ECORE_SUCCESS)
		assert_int_equal(ecore_mcp_load_done(p->hwfn, p->ptt), ECORE_SUCCESS);
	return lp.load_code;
}

static uint32_t
unload(struct pf *p)
{
	uint32_t code;

	assert_int_equal(ecore_mcp_unload_req(p->hwfn, p->ptt), ECORE_SUCCESS);
	code = ecore_mcp_get_unload_code(p->hwfn);
	assert_int_equal(ecore_mcp_unload_done(p->hwfn, p->ptt), ECORE_SUCCESS);
	return code;
}

/* ---- SHMEM ---- */

static void
test_cmd_init_finds_shmem_mac_version_and_link_defaults(void **state)
{
	static const uint8_t mac1[6] = { 0x00, 0x0e, 0x1e, 0x00, 0x00, 0x01 };
	struct e4m_dev *m = model(0x8070, 2, 2);
	const struct ecore_mcp_link_params *lp;
	struct pf p;

	(void)state;
	pf_open_init(&p, m, 1, 2);
	assert_memory_equal(p.hwfn->hw_info.mac, mac1, 6);
	assert_int_equal(p.hwfn->hw_info.mfw_rev, 0x083b1600);
	assert_int_equal(ecore_mcp_get_mb_index(p.hwfn), 1);
	/* the model's mailboxes start at 0xfffd: the next command is 0xfffe */
	assert_int_equal(ecore_mcp_get_seq(p.hwfn), 0xfffe);
	lp = ecore_mcp_get_link_params(p.hwfn);
	assert_true(lp->autoneg);
	assert_int_equal(lp->advertised_speeds, NVM_SPEED_CAP_1G | NVM_SPEED_CAP_10G |
			 NVM_SPEED_CAP_25G | NVM_SPEED_CAP_40G | NVM_SPEED_CAP_50G);
	assert_false(ecore_mcp_get_link_state(p.hwfn)->link_up);
	/* a second init is refused and keeps the first */
	assert_int_equal(ecore_mcp_cmd_init(p.hwfn, p.ptt), ECORE_EXISTS);
	pf_close(&p);
	assert_null(p.hwfn->mcp_info);
	e4m_destroy(m);
}

static void
test_bb_mailbox_index_carries_the_absolute_pf_bit(void **state)
{
	struct e4m_dev *m = model(0x1656, 2, 2);
	struct e4m_stats st;
	struct pf p;

	(void)state;
	pf_open(&p, m, 1, 2, true);
	assert_int_equal(ecore_mcp_cmd_init(p.hwfn, p.ptt), ECORE_SUCCESS);
	assert_int_equal(ecore_mcp_get_mb_index(p.hwfn), 9);
	assert_int_equal(p.hwfn->hw_info.mac[5], 1);
	assert_int_equal(load(&p, ECORE_SUCCESS), FW_MSG_CODE_DRV_LOAD_ENGINE);
	e4m_stats_get(m, &st);
	assert_int_equal(st.mb_cmds, 2);
	assert_int_equal(st.bad_accesses, 0);
	pf_close(&p);
	e4m_destroy(m);
}

static void
test_no_mfw_and_shmem_never_ready_fail_and_free(void **state)
{
	struct e4m_dev *m = model(0x8070, 1, 1);
	uint64_t t0;
	struct pf p;

	(void)state;
	pf_open(&p, m, 0, 1, false);
	e4m_grc_poke(m, MISC_REG_SHARED_MEM_ADDR, 0);
	assert_int_equal(ecore_mcp_cmd_init(p.hwfn, p.ptt), ECORE_NODEV);
	assert_null(p.hwfn->mcp_info);
	pf_close(&p);
	e4m_destroy(m);

	/* sup_msgs stays 0: SHMEM never ready, ECORE_TIMEOUT after ~1 s */
	m = model(0x8070, 1, 1);
	pf_open(&p, m, 0, 1, false);
	{
		/* find PF 0's mfw_mb through the public data, as the driver does */
		uint32_t base, os;

		assert_true(e4m_grc_peek(m, MISC_REG_SHARED_MEM_ADDR, &base));
		assert_true(e4m_grc_peek(m, (base | MFW_PUBLIC_BASE_OR) + MFW_PUBLIC_SECTIONS_OFF +
					 4 * MFW_SECTION_MFW_MB, &os));
		e4m_grc_poke(m, mfw_section_addr(MCP_REG_SCRATCH, os, 0) + MFW_MB_SUP_MSGS_OFF, 0);
	}
	t0 = ecore_osal_time_us();
	assert_int_equal(ecore_mcp_cmd_init(p.hwfn, p.ptt), ECORE_TIMEOUT);
	assert_true(ecore_osal_time_us() - t0 >= ECORE_MCP_SHMEM_READY_MS * 1000);
	assert_null(p.hwfn->mcp_info);
	pf_close(&p);
	e4m_destroy(m);
}

/* ---- load / unload ---- */

static void
test_two_pfs_on_one_port_load_engine_then_function(void **state)
{
	struct e4m_dev *m = model(0x8070, 1, 2);
	struct e4m_stats st;
	struct pf a, b;

	(void)state;
	pf_open_init(&a, m, 0, 1);
	pf_open_init(&b, m, 1, 1);
	assert_int_equal(load(&a, ECORE_SUCCESS), FW_MSG_CODE_DRV_LOAD_ENGINE);
	assert_int_equal(a.hwfn->load_code, FW_MSG_CODE_DRV_LOAD_ENGINE);
	assert_int_equal(load(&b, ECORE_SUCCESS), FW_MSG_CODE_DRV_LOAD_FUNCTION);
	e4m_stats_get(m, &st);
	assert_int_equal(st.loads[0], 1);
	assert_int_equal(st.loads[1], 0);
	assert_int_equal(st.loads[2], 1);
	/* the mirror: the first to go is not the last on the port */
	assert_int_equal(unload(&a), FW_MSG_CODE_DRV_UNLOAD_FUNCTION);
	assert_int_equal(unload(&b), FW_MSG_CODE_DRV_UNLOAD_ENGINE);
	/* all gone: the next load is the engine's again */
	assert_int_equal(load(&b, ECORE_SUCCESS), FW_MSG_CODE_DRV_LOAD_ENGINE);
	assert_int_equal(unload(&b), FW_MSG_CODE_DRV_UNLOAD_ENGINE);
	e4m_stats_get(m, &st);
	assert_int_equal(st.unloads, 3);
	pf_close(&a);
	pf_close(&b);
	e4m_destroy(m);
}

static void
test_two_port_adapter_loads_engine_port_function_and_unloads_the_mirror(void **state)
{
	struct e4m_dev *m = model(0x8070, 2, 4);
	struct pf p[4];
	struct e4m_stats st;
	unsigned int i;

	(void)state;
	for (i = 0; i < 4; i++)
		pf_open_init(&p[i], m, i, 2);
	/* PF0 port 0, PF1 port 1, PF2 port 0, PF3 port 1 */
	assert_int_equal(load(&p[0], ECORE_SUCCESS), FW_MSG_CODE_DRV_LOAD_ENGINE);
	assert_int_equal(load(&p[1], ECORE_SUCCESS), FW_MSG_CODE_DRV_LOAD_PORT);
	assert_int_equal(load(&p[2], ECORE_SUCCESS), FW_MSG_CODE_DRV_LOAD_FUNCTION);
	assert_int_equal(load(&p[3], ECORE_SUCCESS), FW_MSG_CODE_DRV_LOAD_FUNCTION);
	e4m_stats_get(m, &st);
	assert_int_equal(st.loads[0], 1);
	assert_int_equal(st.loads[1], 1);
	assert_int_equal(st.loads[2], 2);
	assert_int_equal(unload(&p[3]), FW_MSG_CODE_DRV_UNLOAD_FUNCTION);
	assert_int_equal(unload(&p[1]), FW_MSG_CODE_DRV_UNLOAD_PORT);
	assert_int_equal(unload(&p[2]), FW_MSG_CODE_DRV_UNLOAD_FUNCTION);
	assert_int_equal(unload(&p[0]), FW_MSG_CODE_DRV_UNLOAD_ENGINE);
	/* port 1 first now: it is the engine's first again */
	assert_int_equal(load(&p[1], ECORE_SUCCESS), FW_MSG_CODE_DRV_LOAD_ENGINE);
	assert_int_equal(load(&p[0], ECORE_SUCCESS), FW_MSG_CODE_DRV_LOAD_PORT);
	for (i = 0; i < 4; i++)
		pf_close(&p[i]);
	e4m_destroy(m);
}

struct refuse_run {
	struct pf *p;
	uint32_t code;
	enum _ecore_status_t rc;
};

static void
refuse_load(void *arg)
{
	struct refuse_run *r = arg;
	struct ecore_load_req_params lp = { 0 };

	r->rc = ecore_mcp_load_req(r->p->hwfn, r->p->ptt, &lp);
	r->code = lp.load_code;
}

static void
test_each_refusal_is_canceled_and_named_in_the_log(void **state)
{
	static const struct {
		uint32_t code;
		const char *words;
	} c[] = {
		{ FW_MSG_CODE_DRV_LOAD_REFUSED_PDA, "refused the load: refused: PDA" },
		{ FW_MSG_CODE_DRV_LOAD_REFUSED_HSI, "refused the load: refused: HSI" },
		{ FW_MSG_CODE_DRV_LOAD_REFUSED_HSI_1, "refused the load: refused: HSI" },
		{ FW_MSG_CODE_DRV_LOAD_REFUSED_DIAG, "refused the load: refused: DIAG" },
		{ FW_MSG_CODE_DRV_LOAD_REFUSED_REQUIRES_FORCE,
		  "refused the load: refused: requires force" },
		{ FW_MSG_CODE_DRV_LOAD_REFUSED_REJECT, "refused the load: refused: REJECT" },
	};
	struct e4m_dev *m = model(0x8070, 1, 1);
	struct refuse_run r;
	struct e4m_stats st;
	struct pf p;
	unsigned int i;
	char *log;

	(void)state;
	pf_open_init(&p, m, 0, 1);
	for (i = 0; i < RTE_DIM(c); i++) {
		assert_int_equal(e4m_fault_set(m, E4M_FAULT_LOAD_REFUSED, c[i].code, 0), 0);
		r = (struct refuse_run){ .p = &p };
		log = test_log_of(refuse_load, &r);
		assert_int_equal(r.rc, ECORE_CANCELED);
		assert_int_equal(r.code, c[i].code);
		if (strstr(log, c[i].words) == NULL)
			fail_msg("log for 0x%08x lacks \"%s\": %s", c[i].code, c[i].words, log);
		free(log);
	}
	e4m_fault_clear(m, E4M_FAULT_LOAD_REFUSED);
	e4m_stats_get(m, &st);
	assert_int_equal(st.load_refusals, RTE_DIM(c));
	/* refusals left nothing loaded: the next load is the engine's */
	assert_int_equal(load(&p, ECORE_SUCCESS), FW_MSG_CODE_DRV_LOAD_ENGINE);
	pf_close(&p);
	e4m_destroy(m);
}

static void
test_second_load_without_unload_requires_force(void **state)
{
	struct e4m_dev *m = model(0x8070, 1, 2);
	struct ecore_load_req_params lp = { 0 };
	struct pf a, b;

	(void)state;
	pf_open_init(&a, m, 0, 1);
	pf_open_init(&b, m, 1, 1);
	assert_int_equal(load(&a, ECORE_SUCCESS), FW_MSG_CODE_DRV_LOAD_ENGINE);
	assert_int_equal(load(&b, ECORE_SUCCESS), FW_MSG_CODE_DRV_LOAD_FUNCTION);
	/* an OS driver is there: the default policy does not force */
	assert_int_equal(load(&b, ECORE_CANCELED), FW_MSG_CODE_DRV_LOAD_REFUSED_REQUIRES_FORCE);
	lp.override_force_load = ECORE_OVERRIDE_FORCE_LOAD_NEVER;
	assert_int_equal(ecore_mcp_load_req(b.hwfn, b.ptt, &lp), ECORE_CANCELED);
	/* forced: the old load is cleared and the new one answered afresh */
	lp.override_force_load = ECORE_OVERRIDE_FORCE_LOAD_ALWAYS;
	assert_int_equal(ecore_mcp_load_req(b.hwfn, b.ptt, &lp), ECORE_SUCCESS);
	assert_int_equal(lp.load_code, FW_MSG_CODE_DRV_LOAD_FUNCTION);
	assert_int_equal(unload(&a), FW_MSG_CODE_DRV_UNLOAD_FUNCTION);
	assert_int_equal(unload(&b), FW_MSG_CODE_DRV_UNLOAD_ENGINE);
	pf_close(&a);
	pf_close(&b);
	e4m_destroy(m);
}

static void
test_unclean_exit_then_flr_then_load_is_engine(void **state)
{
	struct e4m_dev *m = model(0x8070, 1, 1);
	struct e4m_stats st;
	struct pf p;

	(void)state;
	pf_open_init(&p, m, 0, 1);
	assert_int_equal(load(&p, ECORE_SUCCESS), FW_MSG_CODE_DRV_LOAD_ENGINE);
	/* the process dies: no UNLOAD; a new driver instance probes */
	pf_close(&p);
	pf_open_init(&p, m, 0, 1);
	assert_int_equal(load(&p, ECORE_CANCELED), FW_MSG_CODE_DRV_LOAD_REFUSED_REQUIRES_FORCE);
	assert_int_equal(ecore_mcp_initiate_pf_flr(p.hwfn, p.ptt), ECORE_SUCCESS);
	assert_int_equal(load(&p, ECORE_SUCCESS), FW_MSG_CODE_DRV_LOAD_ENGINE);
	e4m_stats_get(m, &st);
	assert_int_equal(st.flrs, 1);
	assert_int_equal(st.loads[0], 2);
	assert_int_equal(unload(&p), FW_MSG_CODE_DRV_UNLOAD_ENGINE);
	pf_close(&p);
	e4m_destroy(m);
}

/* ---- the mailbox itself ---- */

static void
test_silent_mfw_times_out_in_the_set_time_and_leaks_nothing(void **state)
{
	unsigned int dma0 = ecore_osal_dma_in_use();
	struct e4m_dev *m = model(0x8070, 1, 1);
	struct ecore_load_req_params lp = { 0 };
	uint32_t resp = 1, param = 1;
	uint64_t t0, dt;
	struct e4m_stats st;
	struct pf p;

	(void)state;
	pf_open_init(&p, m, 0, 1);
	assert_int_equal(ecore_dmae_info_alloc(p.hwfn), ECORE_SUCCESS);
	ecore_mcp_set_timeout_ms(p.hwfn, 50);
	assert_int_equal(e4m_fault_set(m, E4M_FAULT_MFW_SILENT, 0, 0), 0);
	t0 = ecore_osal_time_us();
	assert_int_equal(ecore_mcp_load_req(p.hwfn, p.ptt, &lp), ECORE_TIMEOUT);
	dt = ecore_osal_time_us() - t0;
	assert_true(dt >= 50000);
	assert_true(dt < 1000000);
	assert_int_equal(lp.load_code, 0);
	assert_int_equal(ecore_mcp_cmd(p.hwfn, p.ptt, DRV_MSG_CODE_NIG_DRAIN, 0, &resp, &param),
			 ECORE_TIMEOUT);
	assert_int_equal(resp, 0);
	assert_int_equal(param, 0);
	e4m_stats_get(m, &st);
	assert_int_equal(st.mb_unanswered, 2);
	assert_int_equal(st.loads[0], 0);
	/* the MFW is back: the next command (next seq) is answered */
	e4m_fault_clear(m, E4M_FAULT_MFW_SILENT);
	assert_int_equal(load(&p, ECORE_SUCCESS), FW_MSG_CODE_DRV_LOAD_ENGINE);
	ecore_dmae_info_free(p.hwfn);
	pf_close(&p);
	assert_int_equal(ecore_osal_dma_in_use(), dma0);
	e4m_destroy(m);
}

static void
test_reply_with_another_sequence_number_is_not_a_reply(void **state)
{
	struct e4m_dev *m = model(0x8070, 1, 1);
	uint32_t base, os, fw_hdr, resp;
	uint16_t seq;
	struct pf p;

	(void)state;
	pf_open_init(&p, m, 0, 1);
	ecore_mcp_set_timeout_ms(p.hwfn, 30);
	assert_true(e4m_grc_peek(m, MISC_REG_SHARED_MEM_ADDR, &base));
	assert_true(e4m_grc_peek(m, (base | MFW_PUBLIC_BASE_OR) + MFW_PUBLIC_SECTIONS_OFF +
				 4 * MFW_SECTION_DRV_MB, &os));
	fw_hdr = mfw_section_addr(MCP_REG_SCRATCH, os, 0) + DRV_MB_FW_HEADER_OFF;
	/* the MFW is silent, and the header carries a later seq's "reply" */
	seq = ecore_mcp_get_seq(p.hwfn);
	e4m_fault_set(m, E4M_FAULT_MFW_SILENT, 0, 0);
	e4m_grc_poke(m, fw_hdr, FW_MSG_CODE_OK | ecore_mcp_seq_next(seq));
	assert_int_equal(ecore_mcp_cmd(p.hwfn, p.ptt, DRV_MSG_CODE_SET_VERSION, 0, &resp, NULL),
			 ECORE_TIMEOUT);
	e4m_fault_clear(m, E4M_FAULT_MFW_SILENT);
	/* the sequence moved on past the lost command; the model answers the next */
	assert_int_equal(ecore_mcp_get_seq(p.hwfn), ecore_mcp_seq_next(seq));
	assert_int_equal(ecore_mcp_cmd(p.hwfn, p.ptt, DRV_MSG_CODE_SET_VERSION, 0, &resp, NULL),
			 ECORE_SUCCESS);
	assert_int_equal(resp, FW_MSG_CODE_OK);
	assert_true(e4m_grc_peek(m, fw_hdr, &os));
	assert_int_equal(os, FW_MSG_CODE_OK | ecore_mcp_seq_next(seq));
	pf_close(&p);
	e4m_destroy(m);
}

static void
test_sequence_numbers_cross_the_wrap(void **state)
{
	struct e4m_dev *m = model(0x8070, 1, 1);
	unsigned int i;
	uint32_t resp;
	struct pf p;

	(void)state;
	pf_open_init(&p, m, 0, 1);
	/* 0xfffe, 0xffff, 0, 1, 2 */
	for (i = 0; i < 5; i++) {
		assert_int_equal(ecore_mcp_cmd(p.hwfn, p.ptt, DRV_MSG_CODE_OV_UPDATE_DRIVER_STATE,
					       OV_DRIVER_STATE_ACTIVE, &resp, NULL),
				 ECORE_SUCCESS);
		assert_int_equal(resp, FW_MSG_CODE_OK);
	}
	assert_int_equal(ecore_mcp_get_seq(p.hwfn), 3);
	/* unknown commands are answered UNSUPPORTED */
	assert_int_equal(ecore_mcp_cmd(p.hwfn, p.ptt, DRV_MSG_CODE_MCP_RESET, 0, &resp, NULL),
			 ECORE_SUCCESS);
	assert_int_equal(resp, FW_MSG_CODE_UNSUPPORTED);
	pf_close(&p);
	e4m_destroy(m);
}

static void
test_version_drain_and_driver_state_are_accepted(void **state)
{
	struct e4m_dev *m = model(0x8070, 1, 1);
	struct e4m_stats s0, s1;
	uint64_t t0;
	struct pf p;

	(void)state;
	pf_open_init(&p, m, 0, 1);
	e4m_stats_get(m, &s0);
	assert_int_equal(ecore_mcp_send_drv_version(p.hwfn, p.ptt, 0x16000100, "omniplane-e4"),
			 ECORE_SUCCESS);
	assert_int_equal(ecore_mcp_ov_update_driver_state(p.hwfn, p.ptt, OV_DRIVER_STATE_ACTIVE),
			 ECORE_SUCCESS);
	t0 = ecore_osal_time_us();
	assert_int_equal(ecore_mcp_drain(p.hwfn, p.ptt), ECORE_SUCCESS);
	assert_true(ecore_osal_time_us() - t0 >= ECORE_MCP_DRAIN_MS * 1000);
	e4m_stats_get(m, &s1);
	assert_int_equal(s1.mb_cmds - s0.mb_cmds, 3);
	pf_close(&p);
	e4m_destroy(m);
}

/* ---- link ---- */

static void
count_cb(struct ecore_hwfn *p_hwfn, void *arg)
{
	(void)p_hwfn;
	(*(unsigned int *)arg)++;
}

static void
test_set_link_up_and_down_is_reflected_in_the_link_state(void **state)
{
	struct e4m_dev *m = model(0x8070, 1, 1);
	const struct ecore_mcp_link_state *ls;
	struct ecore_mcp_link_params *lp;
	unsigned int calls = 0;
	struct pf p;

	(void)state;
	pf_open_init(&p, m, 0, 1);
	ecore_mcp_set_link_cb(p.hwfn, count_cb, &calls);
	ls = ecore_mcp_get_link_state(p.hwfn);
	assert_int_equal(ecore_mcp_set_link(p.hwfn, p.ptt, true), ECORE_SUCCESS);
	assert_true(ls->link_up);
	assert_int_equal(ls->speed, 50000);
	assert_true(ls->full_duplex);
	assert_true(ls->an);
	assert_true(ls->an_complete);
	assert_int_equal(calls, 1);
	assert_int_equal(ecore_mcp_set_link(p.hwfn, p.ptt, false), ECORE_SUCCESS);
	assert_false(ls->link_up);
	assert_int_equal(ls->speed, 0);
	/* a forced speed */
	lp = ecore_mcp_get_link_params(p.hwfn);
	lp->autoneg = false;
	lp->forced_speed = 25000;
	assert_int_equal(ecore_mcp_set_link(p.hwfn, p.ptt, true), ECORE_SUCCESS);
	assert_true(ls->link_up);
	assert_int_equal(ls->speed, 25000);
	assert_false(ls->an);
	assert_int_equal(calls, 3);
	assert_int_equal(ecore_mcp_link_change_count(p.hwfn), 3);
	pf_close(&p);
	e4m_destroy(m);
}

static void
test_async_link_change_is_seen_by_handle_events_on_each_pf_of_the_port(void **state)
{
	struct e4m_dev *m = model(0x8070, 2, 3);
	unsigned int calls[3] = { 0 }, i;
	struct pf p[3];
	uint32_t attn;

	(void)state;
	for (i = 0; i < 3; i++) {
		pf_open_init(&p[i], m, i, 2);
		ecore_mcp_set_link_cb(p[i].hwfn, count_cb, &calls[i]);
	}
	assert_int_equal(ecore_mcp_set_link(p[0].hwfn, p[0].ptt, true), ECORE_SUCCESS);
	assert_int_equal(calls[0], 1);
	/* nothing pending: handling finds no message */
	assert_int_equal(ecore_mcp_handle_events(p[0].hwfn, p[0].ptt), ECORE_SUCCESS);
	assert_int_equal(calls[0], 1);

	/* cable out on port 0 (PF0 and PF2) */
	assert_int_equal(e4m_link_set(m, 0, false, 0), 0);
	assert_true(e4m_grc_peek(m, MISC_REG_AEU_GENERAL_ATTN_0 + 0 * 8, &attn));
	assert_int_equal(attn, 1);
	assert_true(e4m_grc_peek(m, MISC_REG_AEU_GENERAL_ATTN_0 + 2 * 8, &attn));
	assert_false(e4m_grc_peek(m, MISC_REG_AEU_GENERAL_ATTN_0 + 1 * 8, &attn));
	for (i = 0; i < 3; i++)
		assert_int_equal(ecore_mcp_handle_events(p[i].hwfn, p[i].ptt), ECORE_SUCCESS);
	assert_int_equal(calls[0], 2);
	assert_int_equal(calls[1], 0);
	assert_int_equal(calls[2], 1);
	assert_false(ecore_mcp_get_link_state(p[0].hwfn)->link_up);
	/* acked: handling again finds nothing */
	assert_int_equal(ecore_mcp_handle_events(p[0].hwfn, p[0].ptt), ECORE_SUCCESS);
	assert_int_equal(calls[0], 2);

	/* cable in at 25G: up again, at the cable's speed */
	assert_int_equal(e4m_link_set(m, 0, true, 25000), 0);
	assert_int_equal(ecore_mcp_handle_events(p[0].hwfn, p[0].ptt), ECORE_SUCCESS);
	assert_true(ecore_mcp_get_link_state(p[0].hwfn)->link_up);
	assert_int_equal(ecore_mcp_get_link_state(p[0].hwfn)->speed, 25000);
	assert_int_equal(calls[0], 3);
	assert_int_equal(ecore_mcp_link_change_count(p[0].hwfn), 3);
	/* PF2 never asked for the link and sees the port as PF0 left it */
	assert_int_equal(ecore_mcp_handle_events(p[2].hwfn, p[2].ptt), ECORE_SUCCESS);
	assert_int_equal(calls[2], 2);
	assert_true(ecore_mcp_get_link_state(p[2].hwfn)->link_up);
	/* the model refuses a port or speed it does not have */
	assert_int_equal(e4m_link_set(m, 2, true, 0), -EINVAL);
	assert_int_equal(e4m_link_set(m, 0, true, 12345), -EINVAL);
	for (i = 0; i < 3; i++)
		pf_close(&p[i]);
	e4m_destroy(m);
}

/* ---- resources ---- */

static void
test_resources_fall_back_to_defaults_per_chip(void **state)
{
	static const struct {
		uint16_t device_id;
		bool bb;
		uint16_t sbs, queues, vports, macs;
	} c[] = {
		{ 0x8070, false, 23, 20, 13, 32 },
		{ 0x1656, true, 36, 32, 20, 64 },
	};
	struct e4m_stats s0, s1;
	unsigned int i;
	struct pf p;

	(void)state;
	for (i = 0; i < RTE_DIM(c); i++) {
		struct e4m_dev *m = model(c[i].device_id, 1, 1);

		pf_open(&p, m, 0, 1, c[i].bb);
		assert_int_equal(ecore_mcp_cmd_init(p.hwfn, p.ptt), ECORE_SUCCESS);
		assert_int_equal(ecore_mcp_resc_source(p.hwfn), ECORE_RESC_SOURCE_NONE);
		e4m_stats_get(m, &s0);
		assert_int_equal(ecore_mcp_get_resources(p.hwfn, p.ptt), ECORE_SUCCESS);
		e4m_stats_get(m, &s1);
		/* the first UNSUPPORTED answer ends the questions */
		assert_int_equal(s1.mb_cmds - s0.mb_cmds, 1);
		assert_int_equal(ecore_mcp_resc_source(p.hwfn), ECORE_RESC_SOURCE_DEFAULTS);
		assert_int_equal(p.hwfn->hw_info.num_sbs, c[i].sbs);
		assert_int_equal(p.hwfn->hw_info.num_l2_queues, c[i].queues);
		assert_int_equal(p.hwfn->hw_info.num_vports, c[i].vports);
		assert_int_equal(p.hwfn->hw_info.num_mac_filters, c[i].macs);
		/* never more SBs than the IGU CAM gave */
		p.hwfn->hw_info.igu_sb_cnt = 9;
		assert_int_equal(ecore_mcp_get_resources(p.hwfn, p.ptt), ECORE_SUCCESS);
		assert_int_equal(p.hwfn->hw_info.num_sbs, 9);
		/* a silent MFW is an error, not a fallback */
		ecore_mcp_set_timeout_ms(p.hwfn, 20);
		e4m_fault_set(m, E4M_FAULT_MFW_SILENT, 0, 0);
		assert_int_equal(ecore_mcp_get_resources(p.hwfn, p.ptt), ECORE_TIMEOUT);
		pf_close(&p);
		e4m_destroy(m);
	}
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cmd_init_finds_shmem_mac_version_and_link_defaults),
		cmocka_unit_test(test_bb_mailbox_index_carries_the_absolute_pf_bit),
		cmocka_unit_test(test_no_mfw_and_shmem_never_ready_fail_and_free),
		cmocka_unit_test(test_two_pfs_on_one_port_load_engine_then_function),
		cmocka_unit_test(test_two_port_adapter_loads_engine_port_function_and_unloads_the_mirror),
		cmocka_unit_test(test_each_refusal_is_canceled_and_named_in_the_log),
		cmocka_unit_test(test_second_load_without_unload_requires_force),
		cmocka_unit_test(test_unclean_exit_then_flr_then_load_is_engine),
		cmocka_unit_test(test_silent_mfw_times_out_in_the_set_time_and_leaks_nothing),
		cmocka_unit_test(test_reply_with_another_sequence_number_is_not_a_reply),
		cmocka_unit_test(test_sequence_numbers_cross_the_wrap),
		cmocka_unit_test(test_version_drain_and_driver_state_are_accepted),
		cmocka_unit_test(test_set_link_up_and_down_is_reflected_in_the_link_state),
		cmocka_unit_test(test_async_link_change_is_seen_by_handle_events_on_each_pf_of_the_port),
		cmocka_unit_test(test_resources_fall_back_to_defaults_per_chip),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests_name("e4_mfw", tests, test_eal_setup, test_eal_teardown);
}
