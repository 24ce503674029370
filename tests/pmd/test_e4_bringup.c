/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * net_e4's init flow on the model with the real firmware file: a PF comes up
 * (hw_prepare, resc_alloc/setup, hw_init with every phase the MFW's answer
 * asks for, PF_START) and goes down for each load code; two PFs share an
 * engine; link changes reach the driver; every fault switch gives a clear
 * error, leaves nothing allocated and the next bring-up works; an unclean
 * exit is undone by the PF FLR; and hw_init leaves in the device what the
 * file says.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_log.h>

#include "test_case.h"
#include "test_log.h"
#include "test_eal.h"

#include "base/ecore_dev_api.h"
#include "base/ecore_hw.h"
#include "base/ecore_init_fw.h"
#include "base/ecore_init_ops.h"
#include "base/ecore_int.h"
#include "base/ecore_mcp.h"
#include "base/ecore_mfw_if.h"
#include "base/ecore_reg.h"
#include "base/ecore_spq.h"
#include "e4_pf.h"
#include "model/e4_model.h"
#include "model/e4m_sp.h"

/* scripts/setup.sh puts the file there (E4_FW_DIR from meson) */
#define E4_FW_FILE E4_FW_DIR "/qed_init_values_zipped-8.42.2.0.bin"

/* devargs with the test's firmware file and a short MFW timeout */
static void
args_for(struct e4_args *a, const char *more)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "firmware=%s,mfw_timeout_ms=300%s%s", E4_FW_FILE,
		 more && *more ? "," : "", more ? more : "");
	assert_int_equal(e4_args_parse(buf, a), 0);
}

static int
group_setup(void **state)
{
	FILE *f = fopen(E4_FW_FILE, "rb");

	if (f == NULL) {
		fprintf(stderr, "the E4 init-values file %s is missing: run scripts/setup.sh\n",
			E4_FW_FILE);
		return -1;
	}
	fclose(f);
	return test_eal_setup(state);
}

static struct e4m_dev *
model_for(const struct e4_args *a, const char *name)
{
	struct e4m_dev *m = e4m_create(name, &a->model);

	assert_non_null(m);
	return m;
}

/* Open PF @p pfn of @p m and check the MFW's answer. */
static void
open_pf(struct e4_pf *pf, struct e4_args *a, struct e4m_dev *m, unsigned int pfn,
	uint32_t load_code)
{
	char name[16];

	a->pf = pfn;
	snprintf(name, sizeof(name), "e4t%u", pfn);
	assert_int_equal(e4_pf_open(pf, name, a, m), 0);
	assert_int_equal(pf->dev.hwfns[0].load_code, load_code);
	assert_true(pf->dev.hwfns[0].hw_init_done);
	assert_int_equal(pf->dev.hwfns[0].rel_pf_id, pfn);
}

static void
test_bringup_engine_ah(void **state)
{
	unsigned int dma0 = ecore_osal_dma_in_use();
	struct e4m_stats st;
	struct e4_args a;
	struct e4_pf pf;
	struct e4m_dev *m;

	(void)state;
	args_for(&a, NULL);
	m = model_for(&a, "ah1");
	open_pf(&pf, &a, m, 0, FW_MSG_CODE_DRV_LOAD_ENGINE);
	assert_true(ECORE_IS_AH(&pf.dev));
	assert_int_equal(pf.dev.num_ports_in_engine, 1);
	e4m_stats_get(m, &st);
	assert_int_equal(st.loads[0], 1);
	assert_true(st.ramrods >= 1);		/* PF_START */
	assert_int_equal(st.eqes, st.ramrods);
	assert_true(st.dmae_cmds > 0);
	assert_int_equal(st.dma_faults, 0);
	/* SET_VERSION after hw_init: the MFW knows the driver (0.24.0.0) */
	assert_int_equal(e4m_pf_drv_version(m, 0), 0x00180000);
	assert_int_equal(e4_pf_close(&pf, true), 0);
	e4m_stats_get(m, &st);
	assert_int_equal(st.unloads, 1);
	assert_int_equal(st.eqes, st.ramrods);	/* PF_STOP completed too */
	assert_int_equal(ecore_osal_dma_in_use(), dma0);
	e4m_destroy(m);
}

static void
test_bringup_engine_bb(void **state)
{
	unsigned int dma0 = ecore_osal_dma_in_use();
	struct e4_args a;
	struct e4_pf pf;
	struct e4m_dev *m;

	(void)state;
	args_for(&a, "device=0x1656");
	m = model_for(&a, "bb1");
	open_pf(&pf, &a, m, 0, FW_MSG_CODE_DRV_LOAD_ENGINE);
	assert_true(ECORE_IS_BB(&pf.dev));
	assert_int_equal(e4_pf_close(&pf, true), 0);
	assert_int_equal(ecore_osal_dma_in_use(), dma0);
	e4m_destroy(m);
}

/* A 2-port adapter: the second port's PF gets PORT; both come down. */
static void
test_bringup_port(void **state)
{
	unsigned int dma0 = ecore_osal_dma_in_use();
	struct e4_pf pf0, pf1;
	struct e4m_stats st;
	struct e4_args a;
	struct e4m_dev *m;

	(void)state;
	args_for(&a, "ports=2");
	m = model_for(&a, "ah2");
	open_pf(&pf0, &a, m, 0, FW_MSG_CODE_DRV_LOAD_ENGINE);
	open_pf(&pf1, &a, m, 1, FW_MSG_CODE_DRV_LOAD_PORT);
	assert_int_equal(pf1.dev.hwfns[0].port_id, 1);
	assert_int_equal(pf1.dev.num_ports_in_engine, 2);
	assert_int_equal(e4_pf_close(&pf1, true), 0);
	assert_int_equal(e4_pf_close(&pf0, true), 0);
	e4m_stats_get(m, &st);
	assert_int_equal(st.loads[0], 1);
	assert_int_equal(st.loads[1], 1);
	assert_int_equal(st.unloads, 2);
	assert_int_equal(ecore_osal_dma_in_use(), dma0);
	e4m_destroy(m);
}

/* Two PFs on one port: the second gets FUNCTION (and runs the final cleanup);
 * the first goes down before the second; then either comes back as ENGINE. */
static void
test_two_pfs_one_engine(void **state)
{
	unsigned int dma0 = ecore_osal_dma_in_use();
	struct e4_pf pf0, pf1;
	struct e4m_stats st;
	struct e4_args a;
	struct e4m_dev *m;

	(void)state;
	args_for(&a, "pfs=2");
	m = model_for(&a, "fn2");
	open_pf(&pf0, &a, m, 0, FW_MSG_CODE_DRV_LOAD_ENGINE);
	open_pf(&pf1, &a, m, 1, FW_MSG_CODE_DRV_LOAD_FUNCTION);
	/* both slow paths answer at once: a heartbeat on each */
	assert_int_equal(ecore_sp_heartbeat_ramrod(&pf0.dev.hwfns[0]), 0);
	assert_int_equal(ecore_sp_heartbeat_ramrod(&pf1.dev.hwfns[0]), 0);
	assert_int_equal(e4_pf_close(&pf0, true), 0);
	assert_int_equal(e4_pf_close(&pf1, true), 0);
	open_pf(&pf1, &a, m, 1, FW_MSG_CODE_DRV_LOAD_ENGINE);
	assert_int_equal(e4_pf_close(&pf1, true), 0);
	e4m_stats_get(m, &st);
	assert_int_equal(st.loads[0], 2);
	assert_int_equal(st.loads[2], 1);
	assert_int_equal(st.unloads, 3);
	assert_int_equal(ecore_osal_dma_in_use(), dma0);
	e4m_destroy(m);
}

static unsigned int link_events;

static void
count_link(struct ecore_hwfn *p_hwfn, void *arg)
{
	(void)p_hwfn;
	(void)arg;
	link_events++;
}

/* INIT_PHY / LINK_RESET set the link; a cable event reaches the driver as an
 * attention the slow-path DPC turns into a new link state and a callback. */
static void
test_link_up_down(void **state)
{
	const struct ecore_mcp_link_state *ls;
	struct ecore_hwfn *h;
	struct e4_args a;
	struct e4_pf pf;
	struct e4m_dev *m;

	(void)state;
	args_for(&a, NULL);
	m = model_for(&a, "link");
	open_pf(&pf, &a, m, 0, FW_MSG_CODE_DRV_LOAD_ENGINE);
	h = &pf.dev.hwfns[0];
	link_events = 0;
	ecore_mcp_set_link_cb(h, count_link, NULL);
	assert_int_equal(ecore_mcp_set_link(h, h->p_main_ptt, true), 0);
	ls = ecore_mcp_get_link_state(h);
	assert_true(ls->link_up);
	assert_true(ls->speed > 0);
	/* INIT_PHY is itself a link change for the driver (ecore mimics one) */
	assert_int_equal(link_events, 1);
	link_events = 0;

	assert_int_equal(e4m_link_set(m, 0, false, 0), 0);
	ecore_int_sp_dpc(h);
	assert_false(ecore_mcp_get_link_state(h)->link_up);
	assert_int_equal(link_events, 1);
	assert_int_equal(e4m_link_set(m, 0, true, 25000), 0);
	ecore_int_sp_dpc(h);
	ls = ecore_mcp_get_link_state(h);
	assert_true(ls->link_up);
	assert_int_equal(ls->speed, 25000);
	assert_int_equal(link_events, 2);

	assert_int_equal(ecore_mcp_set_link(h, h->p_main_ptt, false), 0);
	assert_false(ecore_mcp_get_link_state(h)->link_up);
	assert_int_equal(e4_pf_close(&pf, true), 0);
	e4m_destroy(m);
}

/*
 * One fault switch, given as a devarg (fault=NAME:ARG0:ARG1): the bring-up
 * fails with @p want, nothing stays allocated, the MFW's load count is back
 * where it was, and with the fault cleared the next bring-up works.
 */
static void
check_fault(const char *name, uint32_t arg0, uint32_t arg1, int want)
{
	unsigned int dma0 = ecore_osal_dma_in_use();
	struct e4_args a, clean;
	struct e4m_stats st;
	char spec[96];
	struct e4_pf pf;
	struct e4m_dev *m;
	int rc;

	snprintf(spec, sizeof(spec), "fault=%s:0x%x:0x%x", name, arg0, arg1);
	args_for(&a, spec);
	assert_int_equal(a.n_faults, 1);
	args_for(&clean, NULL);
	m = model_for(&clean, name);
	rc = e4_pf_open(&pf, "flt", &a, m);
	fprintf(stderr, "fault %s: bring-up returned %d (%s)\n", name, rc, ecore_status_str(rc));
	assert_int_equal(rc, want);
	assert_int_equal(ecore_osal_dma_in_use(), dma0);
	e4m_stats_get(m, &st);
	assert_int_equal(st.loads[0] + st.loads[1] + st.loads[2], st.unloads);
	e4m_fault_clear(m, a.faults[0].fault);
	open_pf(&pf, &clean, m, 0, FW_MSG_CODE_DRV_LOAD_ENGINE);
	assert_int_equal(e4_pf_close(&pf, true), 0);
	assert_int_equal(ecore_osal_dma_in_use(), dma0);
	e4m_destroy(m);
}

static void
test_fault_mfw_silent(void **state)
{
	(void)state;
	check_fault("mfw_silent", 0, 0, ECORE_TIMEOUT);
}

static void
test_fault_load_refused(void **state)
{
	(void)state;
	check_fault("load_refused", FW_MSG_CODE_DRV_LOAD_REFUSED_REJECT, 0, ECORE_CANCELED);
}

static void
test_fault_ramrod_error(void **state)
{
	(void)state;
	/* PF_START (COMMON 8 / cmd 1) fails with return code 3 */
	check_fault("ramrod_error", 3, (8u << 8) | 1, ECORE_IO);
}

static void
test_fault_eqe_never(void **state)
{
	(void)state;
	check_fault("eqe_never", 0, 0, ECORE_TIMEOUT);
}

static void
test_fault_poll_stuck(void **state)
{
	(void)state;
	/* PSWRD2 INIT_DONE, polled in the ENGINE phase */
	check_fault("poll_stuck", 0x29d004, 0, ECORE_TIMEOUT);
}

static void
test_fault_dmae_error(void **state)
{
	(void)state;
	check_fault("dmae_error", 0, 0, ECORE_IO);
}

/* An EQE 50 ms late is within the ramrod wait: the bring-up works. */
static void
test_fault_eqe_late_within_wait(void **state)
{
	struct e4_args a;
	struct e4_pf pf;
	struct e4m_dev *m;

	(void)state;
	args_for(&a, "fault=eqe_late:50");
	m = model_for(&a, "late");
	open_pf(&pf, &a, m, 0, FW_MSG_CODE_DRV_LOAD_ENGINE);
	assert_int_equal(e4_pf_close(&pf, true), 0);
	e4m_destroy(m);
}

/* A driver that exits without unloading leaves the MFW counting it loaded;
 * the next instance's PF FLR clears that and its load is ENGINE again. */
static void
test_unclean_exit_then_flr(void **state)
{
	unsigned int dma0 = ecore_osal_dma_in_use();
	struct e4m_stats st;
	struct e4_args a;
	struct e4_pf pf;
	struct e4m_dev *m;

	(void)state;
	args_for(&a, NULL);
	m = model_for(&a, "crash");
	open_pf(&pf, &a, m, 0, FW_MSG_CODE_DRV_LOAD_ENGINE);
	assert_int_equal(e4_pf_close(&pf, false), 0);	/* no UNLOAD, no PF_STOP */
	e4m_stats_get(m, &st);
	assert_int_equal(st.unloads, 0);
	open_pf(&pf, &a, m, 0, FW_MSG_CODE_DRV_LOAD_ENGINE);
	e4m_stats_get(m, &st);
	assert_int_equal(st.flrs, 2);
	assert_int_equal(e4_pf_close(&pf, true), 0);
	assert_int_equal(ecore_osal_dma_in_use(), dma0);
	e4m_destroy(m);
}

struct open_run {
	struct e4_args *a;
	struct e4m_dev *m;
	int rc;
};

static void
open_run(void *arg)
{
	struct open_run *r = arg;
	struct e4_pf pf;

	r->rc = e4_pf_open(&pf, "nopf", r->a, r->m);
}

/* Opening a PF the adapter does not have fails with -ENODEV and says which. */
static void
test_open_of_a_pf_the_model_lacks_says_so(void **state)
{
	unsigned int dma0 = ecore_osal_dma_in_use();
	struct open_run r;
	struct e4_args a;
	char *log;

	(void)state;
	args_for(&a, NULL);
	r.a = &a;
	r.m = model_for(&a, "nopf");
	a.pf = 3;	/* the model has one */
	log = test_log_of(open_run, &r);
	assert_int_equal(r.rc, -ENODEV);
	if (strstr(log, "PF 3 is not on the adapter") == NULL)
		fail_msg("the log does not name the missing PF:\n%s", log);
	free(log);
	assert_int_equal(ecore_osal_dma_in_use(), dma0);
	e4m_destroy(r.m);
}

/* The model serves the HSI of the firmware LOAD_REQ announces: 8.40.33 (what
 * Debian's net_qede speaks) and 8.42.2 (ours, the default); PF_START's layout is
 * the same 72 bytes in both, so the slow path answers alike. */
static void
test_hsi_8_40_33_load_and_pf_start(void **state)
{
	unsigned int dma0 = ecore_osal_dma_in_use();
	struct e4m_sp_pf_stats sp;
	struct e4m_stats st;
	struct e4_args a;
	struct e4_pf pf;
	struct e4m_dev *m;

	(void)state;
	args_for(&a, NULL);
	a.load_fw_version = 0x08282100;		/* 8.40.33.0 */
	m = model_for(&a, "hsi40");
	assert_int_equal(e4m_pf_hsi(m, 0), E4M_HSI_NONE);
	open_pf(&pf, &a, m, 0, FW_MSG_CODE_DRV_LOAD_ENGINE);
	assert_int_equal(e4m_pf_hsi(m, 0), E4M_HSI_8_40_33);
	assert_int_equal(e4m_pf_fw_version(m, 0), 0x08282100);
	/* PF_START (8.40.33 layout) answered: EQ placed as the ramrod said, EQE in */
	assert_int_equal(e4m_sp_pf_stats_get(m, 0, &sp), 0);
	assert_true(sp.started);
	assert_int_equal(sp.eq_sb, pf.dev.hwfns[0].hw_info.igu_dsb_id);
	assert_int_equal(sp.eq_prod, 1);
	e4m_stats_get(m, &st);
	assert_int_equal(st.eqes, st.ramrods);
	assert_int_equal(st.dma_faults, 0);
	assert_int_equal(ecore_sp_heartbeat_ramrod(&pf.dev.hwfns[0]), 0);
	assert_int_equal(e4_pf_close(&pf, true), 0);
	assert_int_equal(e4m_pf_hsi(m, 0), E4M_HSI_NONE);
	e4m_stats_get(m, &st);
	assert_int_equal(st.eqes, st.ramrods);	/* PF_STOP too */
	assert_int_equal(ecore_osal_dma_in_use(), dma0);
	e4m_destroy(m);
}

static void
test_hsi_8_42_2_is_the_default(void **state)
{
	struct e4_args a;
	struct e4_pf pf;
	struct e4m_dev *m;

	(void)state;
	args_for(&a, NULL);
	m = model_for(&a, "hsi42");
	open_pf(&pf, &a, m, 0, FW_MSG_CODE_DRV_LOAD_ENGINE);
	assert_int_equal(e4m_pf_hsi(m, 0), E4M_HSI_8_42_2);
	assert_int_equal(e4m_pf_fw_version(m, 0), 0x082a0200);
	assert_int_equal(e4_pf_close(&pf, true), 0);
	e4m_destroy(m);
}

/* Where the two differ (e4-firmware.md §5), as the model's table has it. */
static void
test_hsi_layouts(void **state)
{
	const struct e4m_hsi_layout *o = e4m_hsi_layout(E4M_HSI_8_40_33);
	const struct e4m_hsi_layout *n = e4m_hsi_layout(E4M_HSI_8_42_2);

	(void)state;
	assert_non_null(o);
	assert_non_null(n);
	assert_null(e4m_hsi_layout(E4M_HSI_NONE));
	assert_null(e4m_hsi_layout((enum e4m_hsi)7));
	assert_string_equal(o->name, "8.40.33");
	assert_int_equal(o->pf_start_size, 72);
	assert_int_equal(n->pf_start_size, 72);
	assert_int_equal(o->vport_start_size, 64);
	assert_int_equal(n->vport_start_size, 72);
	assert_int_equal(o->eth_ramrod_max, 17);
	assert_int_equal(n->eth_ramrod_max, 22);
	assert_int_equal(o->txq_pmd_mode_bit, 3);
	assert_int_equal(n->txq_pmd_mode_bit, 2);
}

/* Open PF @p pfn announcing @p fw and expect a PDA refusal, logged. */
static void
expect_pda_refusal(struct e4m_dev *m, unsigned int pfn, uint32_t fw, const char *why)
{
	unsigned int dma0 = ecore_osal_dma_in_use();
	struct test_log c;
	struct e4_args a;
	struct e4_pf pf;
	char *log;
	int rc;

	args_for(&a, "pfs=2");
	a.pf = pfn;
	a.load_fw_version = fw;
	test_log_begin(&c);
	rc = e4_pf_open(&pf, "e4hsi", &a, m);
	log = test_log_end(&c);
	assert_int_equal(rc, ECORE_CANCELED);
	if (strstr(log, "refused: PDA") == NULL || strstr(log, why) == NULL)
		fail_msg("the log does not say why (%s):\n%s", why, log);
	free(log);
	assert_int_equal(ecore_osal_dma_in_use(), dma0);
}

/* A firmware the model does not serve, and a second PF announcing another
 * firmware than its engine runs, are refused; the first PF is untouched. */
static void
test_hsi_refusals(void **state)
{
	struct e4m_stats st;
	struct e4_args a;
	struct e4_pf pf0;
	struct e4m_dev *m;

	(void)state;
	args_for(&a, "pfs=2");
	m = model_for(&a, "hsix");
	expect_pda_refusal(m, 0, 0x08250700, "does not serve");	/* 8.37.7.0 */
	a.load_fw_version = 0x08282100;
	open_pf(&pf0, &a, m, 0, FW_MSG_CODE_DRV_LOAD_ENGINE);
	expect_pda_refusal(m, 1, 0x082a0200, "another firmware");
	assert_int_equal(ecore_sp_heartbeat_ramrod(&pf0.dev.hwfns[0]), 0);
	e4m_stats_get(m, &st);
	assert_int_equal(st.load_refusals, 2);
	assert_int_equal(e4_pf_close(&pf0, true), 0);
	/* the engine is free again: 8.42.2 loads as ENGINE */
	a.pf = 1;
	a.load_fw_version = 0;
	open_pf(&pf0, &a, m, 1, FW_MSG_CODE_DRV_LOAD_ENGINE);
	assert_int_equal(e4m_pf_hsi(m, 1), E4M_HSI_8_42_2);
	assert_int_equal(e4_pf_close(&pf0, true), 0);
	e4m_destroy(m);
}

/* mac= and mfw_version= (what vpci's e4 backend is given) reach the MFW's image. */
static void
test_args_mac_and_mfw_version(void **state)
{
	static const uint8_t want[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x50 };
	struct e4_args a;
	struct e4_pf pf;
	struct e4m_dev *m;

	(void)state;
	args_for(&a, "mac=02:11:22:33:44:50,mfw_version=0x08250700");
	assert_memory_equal(a.model.base_mac, want, 6);
	assert_int_equal(a.model.mfw_version, 0x08250700);
	m = model_for(&a, "args");
	open_pf(&pf, &a, m, 0, FW_MSG_CODE_DRV_LOAD_ENGINE);
	assert_memory_equal(pf.dev.hwfns[0].hw_info.mac, want, 6);
	assert_int_equal(pf.dev.hwfns[0].hw_info.mfw_rev, 0x08250700);
	assert_int_equal(e4_pf_close(&pf, true), 0);
	e4m_destroy(m);
	assert_int_equal(e4_args_parse("mac=01:11:22:33:44:50", &a), -EINVAL);	/* multicast */
	assert_int_equal(e4_args_parse("mac=02:11:22:33:44", &a), -EINVAL);
	assert_int_equal(e4_args_parse("mac=02:11:22:33:44:5g", &a), -EINVAL);
	assert_int_equal(e4_args_parse("mac=02:11:22:33:44:50:", &a), -EINVAL);
	assert_int_equal(e4_args_parse("mfw_version=0", &a), -EINVAL);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bringup_engine_ah),
		cmocka_unit_test(test_bringup_engine_bb),
		cmocka_unit_test(test_bringup_port),
		cmocka_unit_test(test_two_pfs_one_engine),
		cmocka_unit_test(test_link_up_down),
		cmocka_unit_test(test_fault_mfw_silent),
		cmocka_unit_test(test_fault_load_refused),
		cmocka_unit_test(test_fault_ramrod_error),
		cmocka_unit_test(test_fault_eqe_never),
		cmocka_unit_test(test_fault_poll_stuck),
		cmocka_unit_test(test_fault_dmae_error),
		cmocka_unit_test(test_fault_eqe_late_within_wait),
		cmocka_unit_test(test_unclean_exit_then_flr),
		cmocka_unit_test(test_open_of_a_pf_the_model_lacks_says_so),
		cmocka_unit_test(test_hsi_8_40_33_load_and_pf_start),
		cmocka_unit_test(test_hsi_8_42_2_is_the_default),
		cmocka_unit_test(test_hsi_layouts),
		cmocka_unit_test(test_hsi_refusals),
		cmocka_unit_test(test_args_mac_and_mfw_version),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests_name("e4_bringup", tests, group_setup, test_eal_teardown);
}
