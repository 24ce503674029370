/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * What opa-em serve's reload compares (app/opa-em/em_config_diff.c), without
 * a node: two configurations vport by vport (em_config_diff()) and two
 * VESWPORT_INFOs field by field (em_vport_info_diff()).
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "em_config.h"
#include "test_case.h"
#include "vema_mad.h"

static void
load(const char *text, struct em_config *cfg)
{
	char err[256] = "";

	if (em_config_parse(text, strlen(text), "t.yaml", cfg, err, sizeof(err)) != 0)
		fail_msg("%s", err);
}

/* Two configurations, vport by vport: matched by (node_lid, index) in any
 * order; a move to another vesw or a vesw's MTU is a VESWPORT_INFO change,
 * static entries a table change; added and removed vports named.
 */
static void
test_config_diff(void **state)
{
	static const char a[] =
		"em: { lid: 1 }\n"
		"vesws:\n"
		"  - { id: 10, pkey: 0x8001, mcast_dlid: 0xf00001, ucast_dlids: [2, 3] }\n"
		"  - { id: 20, pkey: 0x8002, mcast_dlid: 0xf00002 }\n"
		"vports:\n"
		"  - { node_lid: 2, index: 2, vesw: 10 }\n"
		"  - { node_lid: 3, index: 0, vesw: 10, mac_table: [ { mac: \"02:00:00:00:00:99\", dlid: 7 } ] }\n"
		"  - { node_lid: 3, index: 1, vesw: 20 }\n"
		"  - { node_lid: 4, index: 0, vesw: 20 }\n";
	static const char b[] =
		"em: { lid: 1 }\n"
		"vesws:\n"
		"  - { id: 10, pkey: 0x8001, mcast_dlid: 0xf00001, ucast_dlids: [2, 3] }\n"
		"  - { id: 20, pkey: 0x8002, mcast_dlid: 0xf00002, mtu: 9000 }\n"
		"vports:\n"
		"  - { node_lid: 3, index: 0, vesw: 10, mac_table: [ { mac: \"02:00:00:00:00:98\", dlid: 7 } ] }\n"
		"  - { node_lid: 5, index: 0, vesw: 10 }\n"
		"  - { node_lid: 2, index: 2, vesw: 20 }\n"
		"  - { node_lid: 3, index: 1, vesw: 20 }\n";
	uint8_t wa[VEMA_VESWPORT_INFO_LEN], wb[VEMA_VESWPORT_INFO_LEN];
	struct em_config ca, cb;
	struct em_info_diff d[64];
	uint32_t old_of[4], new_of[4];
	uint8_t change[4];
	unsigned int n;

	(void)state;
	load(a, &ca);
	load(b, &cb);
	em_config_diff(&ca, &cb, old_of, change, new_of);
	/* 3/0: only its static entry */
	assert_int_equal(old_of[0], 1);
	assert_int_equal(change[0], EM_VPORT_TABLE);
	/* 5/0: added */
	assert_int_equal(old_of[1], EM_VPORT_GONE);
	assert_int_equal(change[1], EM_VPORT_ADDED);
	/* 2/2: moved to vesw 20 */
	assert_int_equal(old_of[2], 0);
	assert_int_equal(change[2], EM_VPORT_INFO);
	/* 3/1: its vesw's MTU */
	assert_int_equal(old_of[3], 2);
	assert_int_equal(change[3], EM_VPORT_INFO);
	assert_int_equal(new_of[0], 2);
	assert_int_equal(new_of[1], 0);
	assert_int_equal(new_of[2], 3);
	assert_int_equal(new_of[3], EM_VPORT_GONE); /* 4/0: removed */
	/* the fields that differ, in wire order, old -> new */
	em_vport_info_encode(&ca, &ca.vports[2], wa);
	em_vport_info_encode(&cb, &cb.vports[3], wb);
	n = em_vport_info_diff(wa, wb, true, d, RTE_DIM(d));
	assert_int_equal(n, 1);
	assert_string_equal(d[0].name, "vesw.eth_mtu");
	assert_string_equal(d[0].want, "0x5dc");
	assert_string_equal(d[0].got, "0x2328");
	em_vport_info_encode(&ca, &ca.vports[0], wa);
	em_vport_info_encode(&cb, &cb.vports[2], wb);
	n = em_vport_info_diff(wa, wb, false, d, 2);
	assert_int_equal(n, 8);
	assert_string_equal(d[0].name, "vesw.vesw_id");
	assert_string_equal(d[1].name, "vesw.def_port_mask");
	assert_int_equal(em_vport_info_diff(wa, wb, false, NULL, 0), 8);
	/* the digest counts only when asked for: 3/0's changed with its table */
	em_vport_info_encode(&ca, &ca.vports[1], wa);
	em_vport_info_encode(&cb, &cb.vports[0], wb);
	assert_int_equal(em_vport_info_diff(wa, wb, false, NULL, 0), 0);
	n = em_vport_info_diff(wa, wb, true, d, RTE_DIM(d));
	assert_int_equal(n, 1);
	assert_string_equal(d[0].name, "port.mac_tbl_digest");
	/* a configuration against itself: nothing */
	em_config_diff(&cb, &cb, old_of, change, new_of);
	for (n = 0; n < cb.nb_vports; n++) {
		assert_int_equal(old_of[n], n);
		assert_int_equal(new_of[n], n);
		assert_int_equal(change[n], 0);
	}
	em_config_free(&ca);
	em_config_free(&cb);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_diff),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
