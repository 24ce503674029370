/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * lib/vema's agent without EAL: every drop reason and every status code.
 * The codec: test_vema_codec.c; the EM flow and traps: test_vema_agent.c.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "test_case.h"
#include "vema_test_util.h"

/* --- 2. drops --- */

/* Packets that are not valid 16B FM packets are dropped as not_fm. */
static void
test_drop_invalid_fm_packet(void **state)
{
	struct vema_agent *a = agent_new();
	const struct vema_agent_stats *st = vema_agent_stats(a);
	uint8_t pkt[VEMA_PKT_MAX], out[VEMA_PKT_MAX];
	struct req q;
	int n;

	(void)state;
	req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0);
	q.bad_l4 = true;
	expect_drop(a, &q, VEMA_DROP_NOT_FM);

	n = opa16b_fm_build(pkt, sizeof(pkt), &q.f, q.mad, q.mad_len);
	assert_true(n > 0);
	/* truncated, bad tail pad, garbage, empty */
	assert_int_equal(vema_agent_rx(a, pkt, (size_t)n - 8, out, sizeof(out)), 0);
	pkt[n - 1] = 0;
	assert_int_equal(vema_agent_rx(a, pkt, (size_t)n, out, sizeof(out)), 0);
	memset(pkt, 0xFF, 64);
	assert_int_equal(vema_agent_rx(a, pkt, 64, out, sizeof(out)), 0);
	assert_int_equal(vema_agent_rx(a, pkt, 0, out, sizeof(out)), 0);
	assert_int_equal(st->drops[VEMA_DROP_NOT_FM], 5);
	assert_int_equal(st->replies, 0);
	vema_agent_free(a);
}

/* FM packets for another QP or another LID are dropped as wrong_dest. */
static void
test_drop_wrong_destination(void **state)
{
	const uint32_t qpns[] = { 0, 2, 0x000100, OPA16B_QPN_MAX };
	const uint32_t lids[] = { 0, AGENT_LID + 1, AGENT_LID ^ 0x800000, EM_LID };
	struct vema_agent *a = agent_new();
	struct req q;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(qpns) / sizeof(qpns[0]); i++) {
		req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0);
		q.f.dest_qpn = qpns[i];
		expect_drop(a, &q, VEMA_DROP_WRONG_DEST);
	}
	for (i = 0; i < sizeof(lids) / sizeof(lids[0]); i++) {
		req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0);
		q.f.dlid = lids[i];
		expect_drop(a, &q, VEMA_DROP_WRONG_DEST);
	}
	vema_agent_free(a);
}

/* MADs shorter than the 40-byte header are dropped; 40 bytes is answered. */
static void
test_drop_mad_shorter_than_header(void **state)
{
	struct vema_agent *a = agent_new();
	struct req q;

	(void)state;
	req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0);
	q.mad_len = 8;
	expect_drop(a, &q, VEMA_DROP_SHORT);
	q.mad_len = 32;
	expect_drop(a, &q, VEMA_DROP_SHORT);
	q.mad_len = VEMA_HDR_LEN;
	expect_status(a, &q, VEMA_STATUS_OK, "GET CPI, header only");
	vema_agent_free(a);
}

/* MADs whose base version is not 0x80 are dropped. */
static void
test_drop_base_version(void **state)
{
	const uint8_t versions[] = { 0x00, 0x01, 0x7F, 0x81, 0xFF };
	struct vema_agent *a = agent_new();
	struct req q;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(versions); i++) {
		req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0);
		q.mad[0] = versions[i];
		expect_drop(a, &q, VEMA_DROP_BASE_VERSION);
	}
	vema_agent_free(a);
}

/* Responses (method bit 7) and TrapRepress are dropped, in any class. */
static void
test_drop_responses_and_trap_repress(void **state)
{
	const uint8_t methods[] = { 0x81, 0x82, 0x85, 0x86, 0xFF, 0x07 };
	struct vema_agent *a = agent_new();
	struct req q;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(methods); i++) {
		req_init(&q, methods[i], VEMA_ATTR_CLASS_PORT_INFO, 0);
		expect_drop(a, &q, VEMA_DROP_RESPONSE);
		req_init(&q, methods[i], VEMA_ATTR_CLASS_PORT_INFO, 0);
		q.mad[1] = 0x04; /* another class */
		expect_drop(a, &q, VEMA_DROP_RESPONSE);
	}
	vema_agent_free(a);
}

/* Non-Get/Set methods of another class are dropped. */
static void
test_drop_other_class_other_method(void **state)
{
	const uint8_t methods[] = { 0x03, 0x05, 0x06, 0x7F };
	const uint8_t classes[] = { 0x01, 0x04, 0x35 };
	struct vema_agent *a = agent_new();
	struct req q;
	unsigned int i, j;

	(void)state;
	for (i = 0; i < sizeof(methods); i++) {
		for (j = 0; j < sizeof(classes); j++) {
			req_init(&q, methods[i], VEMA_ATTR_CLASS_PORT_INFO, 0);
			q.mad[1] = classes[j];
			expect_drop(a, &q, VEMA_DROP_METHOD);
		}
	}
	vema_agent_free(a);
}

/* MADs with the RMPP active flag (byte 26 bit 0) are dropped. */
static void
test_drop_rmpp_active(void **state)
{
	const uint8_t flags[] = { 0x01, 0x11, 0xFF };
	struct vema_agent *a = agent_new();
	struct req q;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(flags); i++) {
		req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0);
		q.mad[26] = flags[i];
		expect_drop(a, &q, VEMA_DROP_RMPP);
		req_init(&q, VEMA_METHOD_SET, VEMA_ATTR_VESWPORT_INFO, 0);
		q.mad[26] = flags[i];
		expect_drop(a, &q, VEMA_DROP_RMPP);
	}
	assert_int_equal(vema_agent_nb_vports(a), 0);
	vema_agent_free(a);
}

/* A reply buffer smaller than VEMA_PKT_MAX drops the request; drop names. */
static void
test_drop_no_room(void **state)
{
	struct vema_agent *a = agent_new();
	struct req q;
	unsigned int i, j;

	(void)state;
	req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0);
	q.cap = VEMA_PKT_MAX - 1;
	expect_drop(a, &q, VEMA_DROP_NO_ROOM);
	q.cap = 0;
	expect_drop(a, &q, VEMA_DROP_NO_ROOM);
	for (i = 0; i < VEMA_DROP_MAX; i++) {
		assert_non_null(vema_drop_name(i));
		for (j = 0; j < i; j++)
			assert_string_not_equal(vema_drop_name(i), vema_drop_name(j));
	}
	assert_string_equal(vema_drop_name(VEMA_DROP_MAX), "unknown");
	vema_agent_free(a);
}

/* --- 2. status codes --- */

/* Get/Set of another class or another OUI is answered 0x000C. */
static void
test_status_other_class_or_oui_unsupported(void **state)
{
	const uint8_t classes[] = { 0x01, 0x04, 0x30, 0x35, 0x4F };
	const uint32_t ouis[] = { 0x000000, 0x00066B, 0x01066A, 0xFFFFFF };
	struct vema_agent *a = agent_new();
	struct req q;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(classes); i++) {
		req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0);
		q.mad[1] = classes[i];
		expect_status(a, &q, VEMA_STATUS_UNSUPPORTED, "other class");
	}
	for (i = 0; i < sizeof(ouis) / sizeof(ouis[0]); i++) {
		req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0);
		q.mad[37] = ouis[i] >> 16;
		q.mad[38] = ouis[i] >> 8;
		q.mad[39] = ouis[i];
		expect_status(a, &q, VEMA_STATUS_UNSUPPORTED, "other OUI");
	}
	vema_agent_free(a);
}

/* A class version other than 0x80 is answered 0x0004. */
static void
test_status_bad_class_version(void **state)
{
	const uint8_t versions[] = { 0x00, 0x01, 0x7F, 0x81 };
	struct vema_agent *a = agent_new();
	struct req q;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(versions); i++) {
		req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0);
		q.mad[2] = versions[i];
		expect_status(a, &q, VEMA_STATUS_BAD_VERSION, "class version");
	}
	vema_agent_free(a);
}

/* Methods other than Get/Set of class 0x34 are answered 0x000C. */
static void
test_status_other_methods_unsupported(void **state)
{
	const uint8_t methods[] = { 0x00, 0x03, 0x04, 0x05, 0x06, 0x08, 0x12, 0x7F };
	struct vema_agent *a = agent_new();
	struct req q;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(methods); i++) {
		req_init(&q, methods[i], VEMA_ATTR_CLASS_PORT_INFO, 0);
		expect_status(a, &q, VEMA_STATUS_UNSUPPORTED, "method");
	}
	vema_agent_free(a);
}

/* Non-zero reserved header fields (status, class_specific, resv, RMPP bytes
 * 25..35 other than the active flag, byte 36) are answered 0x001C.
 */
static void
test_status_reserved_header_fields_invalid(void **state)
{
	const struct {
		size_t off;
		uint8_t v;
	} rs[] = {
		{ 4, 0x80 }, { 5, 0x01 }, { 6, 0x01 }, { 7, 0x80 }, { 18, 0x01 }, { 19, 0x80 },
		{ 25, 0x01 }, { 26, 0x02 }, { 26, 0x80 }, { 27, 0x01 }, { 28, 0x80 },
		{ 31, 0x01 }, { 32, 0x01 }, { 35, 0x80 }, { 36, 0x01 }, { 36, 0xFF },
	};
	struct vema_agent *a = agent_new();
	struct req q;
	unsigned int i;
	char what[64];

	(void)state;
	for (i = 0; i < sizeof(rs) / sizeof(rs[0]); i++) {
		snprintf(what, sizeof(what), "byte %zu = 0x%02x", rs[i].off, rs[i].v);
		req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0);
		q.mad[rs[i].off] = rs[i].v;
		expect_status(a, &q, VEMA_STATUS_INVALID, what);
		req_init(&q, VEMA_METHOD_SET, VEMA_ATTR_CLASS_PORT_INFO, 0);
		q.mad[rs[i].off] = rs[i].v;
		expect_status(a, &q, VEMA_STATUS_INVALID, what);
	}
	vema_agent_free(a);
}

/* Attribute/method combinations the table does not allow, and unknown
 * attributes, are answered 0x000C.
 */
static void
test_status_attr_method_not_allowed(void **state)
{
	const struct {
		uint8_t method;
		uint16_t attr;
	} bad[] = {
		{ VEMA_METHOD_GET, VEMA_ATTR_DELETE_VESW },
		{ VEMA_METHOD_SET, VEMA_ATTR_IFACE_UCAST_MACS },
		{ VEMA_METHOD_SET, VEMA_ATTR_IFACE_MCAST_MACS },
		{ VEMA_METHOD_SET, VEMA_ATTR_SUMMARY_COUNTERS },
		{ VEMA_METHOD_SET, VEMA_ATTR_ERROR_COUNTERS },
		{ VEMA_METHOD_GET, VEMA_ATTR_NOTICE }, { VEMA_METHOD_SET, VEMA_ATTR_NOTICE },
		{ VEMA_METHOD_GET, 0x0000 }, { VEMA_METHOD_GET, 0x0003 },
		{ VEMA_METHOD_GET, 0x0010 }, { VEMA_METHOD_SET, 0x0016 },
		{ VEMA_METHOD_GET, 0x0021 }, { VEMA_METHOD_GET, 0x0023 },
		{ VEMA_METHOD_SET, 0xFFFF },
	};
	struct vema_agent *a = agent_new();
	struct req q;
	unsigned int i;
	char what[64];

	(void)state;
	add_vport(a, 0, 0x10, VNIC_STATE_FORWARDING);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(what, sizeof(what), "method 0x%02x attr 0x%04x", bad[i].method,
			 bad[i].attr);
		req_init(&q, bad[i].method, bad[i].attr, 0);
		expect_status(a, &q, VEMA_STATUS_UNSUPPORTED, what);
	}
	vema_agent_free(a);
}

/* attr_mod bits above 7:0 are answered 0x001C; ClassPortInfo needs 0. */
static void
test_status_attr_mod_reserved_bits_invalid(void **state)
{
	const struct {
		uint8_t method;
		uint16_t attr;
	} ok[] = {
		{ VEMA_METHOD_GET, VEMA_ATTR_VESWPORT_INFO },
		{ VEMA_METHOD_SET, VEMA_ATTR_VESWPORT_INFO },
		{ VEMA_METHOD_GET, VEMA_ATTR_MAC_ENTRIES },
		{ VEMA_METHOD_SET, VEMA_ATTR_MAC_ENTRIES },
		{ VEMA_METHOD_GET, VEMA_ATTR_IFACE_UCAST_MACS },
		{ VEMA_METHOD_GET, VEMA_ATTR_IFACE_MCAST_MACS },
		{ VEMA_METHOD_SET, VEMA_ATTR_DELETE_VESW },
		{ VEMA_METHOD_GET, VEMA_ATTR_SUMMARY_COUNTERS },
		{ VEMA_METHOD_GET, VEMA_ATTR_ERROR_COUNTERS },
	};
	const uint32_t mods[] = { 0x100, 0x101, 0x8000, 0x80000000, 0xFFFFFF00 };
	const uint32_t cpi_mods[] = { 1, 0xFF, 0x100, 0x80000000 };
	struct vema_agent *a = agent_new();
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct req q;
	unsigned int i, j;
	char what[64];

	(void)state;
	add_vport(a, 0, 0x10, VNIC_STATE_FORWARDING);
	add_vport(a, 1, 0x11, VNIC_STATE_FORWARDING);
	vport_cfg(&v, &p, 0x20, 0, VNIC_STATE_FORWARDING);
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		for (j = 0; j < sizeof(mods) / sizeof(mods[0]); j++) {
			snprintf(what, sizeof(what), "method 0x%02x attr 0x%04x mod 0x%x",
				 ok[i].method, ok[i].attr, mods[j]);
			req_init(&q, ok[i].method, ok[i].attr, mods[j]);
			if (ok[i].attr == VEMA_ATTR_VESWPORT_INFO)
				vema_veswport_info_encode(req_data(&q), &v, &p);
			expect_status(a, &q, VEMA_STATUS_INVALID, what);
		}
	}
	for (j = 0; j < sizeof(cpi_mods) / sizeof(cpi_mods[0]); j++) {
		req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, cpi_mods[j]);
		expect_status(a, &q, VEMA_STATUS_INVALID, "GET CPI attr_mod");
		req_init(&q, VEMA_METHOD_SET, VEMA_ATTR_CLASS_PORT_INFO, cpi_mods[j]);
		expect_status(a, &q, VEMA_STATUS_INVALID, "SET CPI attr_mod");
	}
	assert_int_equal(vema_agent_nb_vports(a), 2);
	vema_agent_free(a);
}

/* Vport-scoped attributes of an absent vport are answered 0x001C and
 * create nothing.
 */
static void
test_status_absent_vport_invalid(void **state)
{
	const struct {
		uint8_t method;
		uint16_t attr;
	} ops[] = {
		{ VEMA_METHOD_GET, VEMA_ATTR_MAC_ENTRIES },
		{ VEMA_METHOD_SET, VEMA_ATTR_MAC_ENTRIES },
		{ VEMA_METHOD_GET, VEMA_ATTR_IFACE_UCAST_MACS },
		{ VEMA_METHOD_GET, VEMA_ATTR_IFACE_MCAST_MACS },
		{ VEMA_METHOD_SET, VEMA_ATTR_DELETE_VESW },
		{ VEMA_METHOD_GET, VEMA_ATTR_SUMMARY_COUNTERS },
		{ VEMA_METHOD_GET, VEMA_ATTR_ERROR_COUNTERS },
	};
	const uint8_t idx[] = { 0, 7, 255 };
	struct vema_agent *a = agent_new();
	struct req q;
	unsigned int i, j;

	(void)state;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		for (j = 0; j < sizeof(idx); j++) {
			req_init(&q, ops[i].method, ops[i].attr, idx[j]);
			mac_payload(req_data(&q), 0, 2, 0x1234, 0);
			expect_status(a, &q, VEMA_STATUS_INVALID, vema_attr_name(ops[i].attr));
		}
	}
	assert_int_equal(vema_agent_nb_vports(a), 0);
	vema_agent_free(a);
}

/* GET VESWPORT_INFO of an absent vport returns the power-on defaults of
 * 3.4 with status 0, and creates nothing.
 */
static void
test_get_absent_vport_info_returns_defaults(void **state)
{
	struct vema_agent *a = agent_new();
	const uint8_t *q;
	struct reply r;

	(void)state;
	assert_int_equal(do_req(a, VEMA_METHOD_GET, VEMA_ATTR_VESWPORT_INFO, 9, NULL, 0, &r),
			 VEMA_STATUS_OK);
	q = r.data + 152;
	expect_fill(r.data, 0, 148, 0, "vesw_info before eth_mtu");
	expect_be(r.data, 148, 2, 1500, "eth_mtu");
	expect_fill(r.data, 150, 152, 0, "vesw rsvd4");
	expect_fill(q, 0, 4, 0, "port_num");
	expect_be(q, 4, 1, VNIC_LINK_DOWN, "eth_link_status");
	expect_fill(q, 5, 14, 0, "rsvd0, base_mac_addr");
	expect_be(q, 14, 1, VNIC_STATE_DROP_ALL, "config_state");
	expect_be(q, 15, 1, VNIC_STATE_DROP_ALL, "oper_state");
	expect_be(q, 16, 2, 2048, "max_mac_tbl_ent");
	expect_be(q, 18, 2, 256, "max_smac_ent");
	expect_fill(q, 20, 128, 0, "rest of per_veswport_info");
	expect_fill(r.data, VEMA_VESWPORT_INFO_LEN, VEMA_DATA_LEN, 0, "past VESWPORT_INFO");
	assert_int_equal(vema_agent_nb_vports(a), 0);
	assert_null(vema_agent_vport(a, 9));
	vema_agent_free(a);
}

static unsigned int new_calls;
static struct vnic_vport *new_vp;

static void
on_new(void *arg, struct vnic_vport *vp)
{
	assert_ptr_equal(arg, &new_calls);
	new_calls++;
	new_vp = vp;
}

/* SET VESWPORT_INFO creates the vport and replies with the resulting GET:
 * EM fields applied, read-only fields the agent's, reserved bytes echoed.
 */
static void
test_set_vport_info_creates_vport_and_returns_get(void **state)
{
	struct vema_agent_conf conf = {
		.lid = AGENT_LID, .port_num = AGENT_PORT, .on_new = on_new, .cb_arg = &new_calls,
	};
	struct vema_agent *a = vema_agent_create(&conf);
	struct vnic_vesw_info v, vb;
	struct vnic_port_info p, pb, exp;
	const struct vnic_policy *pol;
	uint8_t first[VEMA_VESWPORT_INFO_LEN];
	struct reply r;
	unsigned int i;

	(void)state;
	assert_non_null(a);
	new_calls = 0;
	vport_cfg(&v, &p, 0x123, 4, VNIC_STATE_FORWARDING);
	for (i = 0; i < 56; i++)
		v.rsvd3[i] = 0x80 | i;
	memset(v.rsvd0, 0xA0, sizeof(v.rsvd0));
	memset(v.rsvd1, 0xA1, sizeof(v.rsvd1));
	memset(v.rsvd2, 0xA2, sizeof(v.rsvd2));
	memset(v.rsvd4, 0xA4, sizeof(v.rsvd4));
	memset(p.rsvd0, 0xB0, sizeof(p.rsvd0));
	memset(p.rsvd1, 0xB1, sizeof(p.rsvd1));
	for (i = 0; i < 48; i++)
		p.rsvd2[i] = 0xC0 ^ i;
	memset(p.rsvd3, 0xB3, sizeof(p.rsvd3));
	/* read-only fields: ignored */
	p.eth_link_status = VNIC_LINK_UP;
	p.oper_state = VNIC_STATE_FORWARDING;
	p.max_mac_tbl_ent = 7;
	p.max_smac_ent = 8;
	p.mac_tbl_digest = 0xDEADBEEF;
	p.uc_macs_gen_count = 5;
	p.mc_macs_gen_count = 6;

	assert_int_equal(set_vport(a, 4, &v, &p, &r), VEMA_STATUS_OK);
	assert_int_equal(vema_agent_nb_vports(a), 1);
	assert_non_null(vema_agent_vport(a, 4));
	assert_int_equal(new_calls, 1);
	assert_ptr_equal(new_vp, vema_agent_vport(a, 4));
	assert_int_equal(vnic_vport_index(new_vp), 4);

	vema_veswport_info_decode(r.data, &vb, &pb);
	assert_memory_equal(&vb, &v, sizeof(v));
	exp = p;
	exp.eth_link_status = VNIC_LINK_DOWN; /* no carrier */
	exp.oper_state = VNIC_STATE_DROP_ALL;
	exp.max_mac_tbl_ent = 2048;
	exp.max_smac_ent = 256;
	exp.mac_tbl_digest = 0;
	exp.uc_macs_gen_count = 0;
	exp.mc_macs_gen_count = 0;
	assert_memory_equal(&pb, &exp, sizeof(exp));
	expect_fill(r.data, VEMA_VESWPORT_INFO_LEN, VEMA_DATA_LEN, 0, "past VESWPORT_INFO");

	pol = vnic_vport_policy(vema_agent_vport(a, 4));
	assert_memory_equal(&pol->vesw, &v, sizeof(v));
	assert_memory_equal(&pol->port, &exp, sizeof(exp));

	/* GET returns the same bytes; a second SET updates without creating */
	memcpy(first, r.data, sizeof(first));
	assert_int_equal(do_req(a, VEMA_METHOD_GET, VEMA_ATTR_VESWPORT_INFO, 4, NULL, 0, &r),
			 VEMA_STATUS_OK);
	expect_bytes(r.data, 0, first, sizeof(first), "GET after SET");
	v.eth_mtu = 1500;
	assert_int_equal(set_vport(a, 4, &v, &p, &r), VEMA_STATUS_OK);
	expect_be(r.data, 148, 2, 1500, "eth_mtu after update");
	assert_int_equal(vema_agent_nb_vports(a), 1);
	assert_int_equal(new_calls, 1);
	vema_agent_free(a);
}


/* Invalid VESWPORT_INFO values are answered 0x001C: nothing created or
 * changed; the valid extremes are accepted.
 */
static void
test_status_invalid_vport_info_values(void **state)
{
	struct vema_agent *a = agent_new();
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct vnic_policy *before = malloc(sizeof(*before));
	struct reply r;
	unsigned int i;

	(void)state;
	assert_non_null(before);
	add_vport(a, 0, 0x10, VNIC_STATE_FORWARDING);
	memcpy(before, vnic_vport_policy(vema_agent_vport(a, 0)), sizeof(*before));
	for (i = 0; i < NB_BAD_CFGS; i++) {
		vport_cfg(&v, &p, 0x20, 0, VNIC_STATE_FORWARDING);
		bad_cfgs[i].fn(&v, &p);
		if (set_vport(a, 0, &v, &p, &r) != VEMA_STATUS_INVALID)
			fail_msg("%s on vport 0: status 0x%04x", bad_cfgs[i].name, r.h.mad.status);
		if (memcmp(before, vnic_vport_policy(vema_agent_vport(a, 0)),
			   sizeof(*before)) != 0)
			fail_msg("%s changed vport 0", bad_cfgs[i].name);
		if (set_vport(a, 6, &v, &p, &r) != VEMA_STATUS_INVALID)
			fail_msg("%s on vport 6: status 0x%04x", bad_cfgs[i].name, r.h.mad.status);
		assert_null(vema_agent_vport(a, 6));
		assert_int_equal(vema_agent_nb_vports(a), 1);
	}
	vport_cfg(&v, &p, 0x20, 6, VNIC_STATE_FORWARDING);
	mut_ok_extremes(&v, &p);
	assert_int_equal(set_vport(a, 6, &v, &p, &r), VEMA_STATUS_OK);
	vport_cfg(&v, &p, 0x20, 7, VNIC_STATE_FORWARDING);
	mut_ok_min(&v, &p);
	assert_int_equal(set_vport(a, 7, &v, &p, &r), VEMA_STATUS_OK);
	assert_int_equal(vema_agent_nb_vports(a), 3);
	free(before);
	vema_agent_free(a);
}

/* MAC entries with num > 125 or offset + num > 2048 are answered 0x001C for
 * GET and SET; the largest valid range is answered.
 */
static void
test_status_mac_entries_range_invalid(void **state)
{
	const struct {
		uint16_t off, n;
	} bad[] = {
		{ 0, 126 }, { 0, 0xFFFF }, { 1924, 125 }, { 2047, 2 }, { 2048, 1 },
		{ 0xFFFF, 1 }, { 0xFFFF, 0 }, { 2049, 0 },
	};
	struct vema_agent *a = agent_new();
	struct vema_mac_tbl_hdr th;
	struct req q;
	struct reply r;
	unsigned int i;
	char what[64];

	(void)state;
	add_vport(a, 0, 0x10, VNIC_STATE_FORWARDING);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(what, sizeof(what), "offset %u num %u", bad[i].off, bad[i].n);
		req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_MAC_ENTRIES, 0);
		mac_payload(req_data(&q), bad[i].off, 0, 0, 0);
		req_data(&q)[2] = bad[i].n >> 8;
		req_data(&q)[3] = bad[i].n & 0xFF;
		expect_status(a, &q, VEMA_STATUS_INVALID, what);
		q.mad[3] = VEMA_METHOD_SET;
		expect_status(a, &q, VEMA_STATUS_INVALID, what);
	}
	/* [1923, 2048): 125 entries at the end of the table */
	req_init(&q, VEMA_METHOD_SET, VEMA_ATTR_MAC_ENTRIES, 0);
	mac_payload(req_data(&q), 1923, 125, 0xABCD, 0);
	assert_int_equal(req_send(a, &q, &r), VEMA_STATUS_OK);
	vema_mac_tbl_hdr_decode(r.data, &th);
	assert_int_equal(th.offset, 1923);
	assert_int_equal(th.num_entries, 125);
	assert_int_equal(th.digest, 0xABCD);
	expect_bytes(r.data, 8, req_data(&q) + 8, 125 * 16, "entries 1923..2047");
	req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_MAC_ENTRIES, 0);
	mac_payload(req_data(&q), 2048, 0, 0, 0);
	assert_int_equal(req_send(a, &q, &r), VEMA_STATUS_OK);
	vema_agent_free(a);
}

/* A SET shorter than its payload is answered 0x001C and changes nothing;
 * exactly long enough is accepted.
 */
static void
test_status_set_too_short_invalid(void **state)
{
	struct vema_agent *a = agent_new();
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct vema_class_port_info c;
	struct req q;

	(void)state;
	vport_cfg(&v, &p, 0x10, 0, VNIC_STATE_FORWARDING);
	req_init(&q, VEMA_METHOD_SET, VEMA_ATTR_VESWPORT_INFO, 0);
	vema_veswport_info_encode(req_data(&q), &v, &p);
	q.mad_len = VEMA_HDR_LEN + 272;
	expect_status(a, &q, VEMA_STATUS_INVALID, "VESWPORT_INFO of 272 bytes");
	assert_int_equal(vema_agent_nb_vports(a), 0);
	q.mad_len = VEMA_HDR_LEN + 280;
	expect_status(a, &q, VEMA_STATUS_OK, "VESWPORT_INFO of 280 bytes");
	assert_int_equal(vema_agent_nb_vports(a), 1);

	memset(&c, 0, sizeof(c));
	c.trap_lid = TRAP_LID;
	req_init(&q, VEMA_METHOD_SET, VEMA_ATTR_CLASS_PORT_INFO, 0);
	vema_cpi_encode(req_data(&q), &c);
	q.mad_len = VEMA_HDR_LEN + 72;
	expect_status(a, &q, VEMA_STATUS_INVALID, "CPI of 72 bytes");
	q.mad_len = VEMA_HDR_LEN;
	expect_status(a, &q, VEMA_STATUS_INVALID, "CPI of 0 bytes");
	vema_agent_cpi(a, &c);
	assert_int_equal(c.trap_lid, 0);
	q.mad_len = VEMA_HDR_LEN + 80;
	expect_status(a, &q, VEMA_STATUS_OK, "CPI of 80 bytes");
	vema_agent_cpi(a, &c);
	assert_int_equal(c.trap_lid, TRAP_LID);

	req_init(&q, VEMA_METHOD_SET, VEMA_ATTR_MAC_ENTRIES, 0);
	mac_payload(req_data(&q), 0, 3, 0x77, 1);
	q.mad_len = VEMA_HDR_LEN + 8 + 32;
	expect_status(a, &q, VEMA_STATUS_INVALID, "3 MAC entries in 40 bytes");
	q.mad_len = VEMA_HDR_LEN;
	expect_status(a, &q, VEMA_STATUS_INVALID, "MAC entries without header");
	assert_int_equal(vnic_vport_policy(vema_agent_vport(a, 0))->mac.nb_entries, 0);
	q.mad_len = VEMA_HDR_LEN + 8 + 48;
	expect_status(a, &q, VEMA_STATUS_OK, "3 MAC entries in 56 bytes");
	assert_int_equal(vnic_vport_policy(vema_agent_vport(a, 0))->mac.nb_entries, 3);
	vema_agent_free(a);
}

/* Interface MAC lists: num_macs_in_msg 0 means 333, > 333 or start_idx
 * beyond the list is 0x001C; header carries total and generation.
 */
static void
test_status_iface_list_bounds(void **state)
{
	struct vema_agent *a = agent_new();
	struct rte_ether_addr macs[400];
	struct vema_iface_hdr ih;
	struct vnic_vport *vp;
	struct req q;
	struct reply r;
	unsigned int i;
	const struct {
		uint16_t start, num;
		uint16_t got; /* MACs in the reply; 0xFFFF = 0x001C */
	} uc[] = {
		{ 0, 0, 333 }, { 333, 0, 67 }, { 395, 10, 5 }, { 10, 333, 333 },
		{ 400, 0, 0 }, { 0, 1, 1 }, { 401, 0, 0xFFFF }, { 0, 334, 0xFFFF },
		{ 0xFFFF, 1, 0xFFFF }, { 0, 0xFFFF, 0xFFFF },
	};

	(void)state;
	vp = add_vport(a, 0, 0x10, VNIC_STATE_FORWARDING);
	for (i = 0; i < 400; i++)
		macs[i] = (struct rte_ether_addr){ { 0x02, 0xAA, 0, 0, i >> 8, i & 0xFF } };
	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_UCAST, macs, 400), 1);
	for (i = 0; i < 3; i++)
		macs[i].addr_bytes[0] = 0x01;
	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_MCAST, macs, 3), 1);
	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_MCAST, macs, 2), 1);
	macs[0].addr_bytes[0] = 0x02;
	macs[1].addr_bytes[0] = 0x02;
	macs[2].addr_bytes[0] = 0x02;

	for (i = 0; i < sizeof(uc) / sizeof(uc[0]); i++) {
		req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_IFACE_UCAST_MACS, 0);
		ih = (struct vema_iface_hdr){ .start_idx = uc[i].start,
					      .num_macs_in_msg = uc[i].num };
		vema_iface_hdr_encode(req_data(&q), &ih);
		if (uc[i].got == 0xFFFF) {
			expect_status(a, &q, VEMA_STATUS_INVALID, "iface list bounds");
			continue;
		}
		assert_int_equal(req_send(a, &q, &r), VEMA_STATUS_OK);
		expect_be(r.data, 0, 2, uc[i].start, "start_idx");
		expect_be(r.data, 2, 2, uc[i].got, "num_macs_in_msg");
		expect_be(r.data, 4, 2, 400, "tot_macs_in_lst");
		expect_be(r.data, 6, 2, 1, "gen_count");
		expect_bytes(r.data, 8, &macs[uc[i].start], 6u * uc[i].got, "MACs");
		expect_fill(r.data, 8 + 6u * uc[i].got, VEMA_DATA_LEN, 0, "past the MACs");
	}
	req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_IFACE_MCAST_MACS, 0);
	assert_int_equal(req_send(a, &q, &r), VEMA_STATUS_OK);
	expect_be(r.data, 0, 8, 0x0000000200020002ull, "mcast header");
	expect_be(r.data, 8, 6, 0x01AA00000000ull, "mcast MAC 0");
	expect_be(r.data, 14, 6, 0x01AA00000001ull, "mcast MAC 1");
	expect_fill(r.data, 20, VEMA_DATA_LEN, 0, "past the mcast MACs");
	vema_agent_free(a);
}

/* ClassPortInfo: GET overrides versions, cap_mask and resp time; SET stores
 * the EM's fields; 24-bit trap LID and SL bits 2:0 zero are enforced.
 */
static void
test_cpi_get_overrides_and_set_stores(void **state)
{
	struct vema_agent *a = agent_new();
	struct vema_class_port_info c, got;
	uint8_t d[VEMA_CPI_LEN], exp[VEMA_CPI_LEN];
	struct reply r;
	unsigned int i;

	(void)state;
	assert_int_equal(do_req(a, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0, NULL, 0, &r),
			 VEMA_STATUS_OK);
	expect_be(r.data, 0, 1, 0x80, "base_version");
	expect_be(r.data, 1, 1, 0x80, "class_version");
	expect_be(r.data, 2, 2, 0xFF01, "cap_mask");
	expect_be(r.data, 4, 4, 18, "cap_mask2_resp_time");
	expect_fill(r.data, 8, VEMA_DATA_LEN, 0, "rest of a fresh CPI");

	memset(&c, 0, sizeof(c));
	c.base_version = 0x01;
	c.class_version = 0x02;
	c.cap_mask = 0x1234;
	c.cap_mask2_resp_time = 0x5678;
	for (i = 0; i < 16; i++) {
		c.redirect_gid[i] = i + 1;
		c.trap_gid[i] = 0xF0 + i;
	}
	c.redirect_tc_fl = 0x11;
	c.redirect_lid = 0x22;
	c.redirect_sl_qp = 0x33;
	c.redirect_qkey = 0x44;
	c.trap_tc_fl = 0x55;
	c.trap_lid = TRAP_LID;
	c.trap_hl_qp = 0x66;
	c.trap_qkey = 0x77;
	c.trap_pkey = 0xFFFF;
	c.redirect_pkey = 0x8888;
	c.trap_sl_rsvd = TRAP_SL << 3;
	vema_cpi_encode(d, &c);
	assert_int_equal(do_req(a, VEMA_METHOD_SET, VEMA_ATTR_CLASS_PORT_INFO, 0, d, sizeof(d),
				&r), VEMA_STATUS_OK);
	memcpy(exp, d, sizeof(exp));
	exp[0] = 0x80;
	exp[1] = 0x80;
	exp[2] = 0xFF;
	exp[3] = 0x01;
	exp[4] = 0;
	exp[5] = 0;
	exp[6] = 0;
	exp[7] = 18;
	expect_bytes(r.data, 0, exp, sizeof(exp), "SET CPI reply");
	expect_fill(r.data, VEMA_CPI_LEN, VEMA_DATA_LEN, 0, "past CPI");
	assert_int_equal(do_req(a, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0, NULL, 0, &r),
			 VEMA_STATUS_OK);
	expect_bytes(r.data, 0, exp, sizeof(exp), "GET CPI after SET");
	vema_agent_cpi(a, &got);
	vema_cpi_encode(d, &got);
	assert_memory_equal(d, exp, sizeof(exp));

	/* refused: nothing stored */
	assert_int_equal(set_cpi(a, 0x1000000, 0, &r), VEMA_STATUS_INVALID);
	assert_int_equal(set_cpi(a, 0xFFFFFFFF, 0, &r), VEMA_STATUS_INVALID);
	assert_int_equal(set_cpi(a, 0x999, 0x01, &r), VEMA_STATUS_INVALID);
	assert_int_equal(set_cpi(a, 0x999, 0x04, &r), VEMA_STATUS_INVALID);
	assert_int_equal(set_cpi(a, 0x999, 0x5F, &r), VEMA_STATUS_INVALID);
	vema_agent_cpi(a, &got);
	vema_cpi_encode(d, &got);
	assert_memory_equal(d, exp, sizeof(exp));
	/* the largest LID and SL are accepted */
	assert_int_equal(set_cpi(a, 0xFFFFFF, 0xF8, &r), VEMA_STATUS_OK);
	vema_agent_cpi(a, &got);
	assert_int_equal(got.trap_lid, 0xFFFFFF);
	assert_int_equal(got.trap_sl_rsvd, 0xF8);
	assert_string_equal(vema_attr_name(VEMA_ATTR_CLASS_PORT_INFO), "ClassPortInfo");
	assert_string_equal(vema_attr_name(0x7777), "unknown");
	vema_agent_free(a);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drop_invalid_fm_packet),
		cmocka_unit_test(test_drop_wrong_destination),
		cmocka_unit_test(test_drop_mad_shorter_than_header),
		cmocka_unit_test(test_drop_base_version),
		cmocka_unit_test(test_drop_responses_and_trap_repress),
		cmocka_unit_test(test_drop_other_class_other_method),
		cmocka_unit_test(test_drop_rmpp_active),
		cmocka_unit_test(test_drop_no_room),
		cmocka_unit_test(test_status_other_class_or_oui_unsupported),
		cmocka_unit_test(test_status_bad_class_version),
		cmocka_unit_test(test_status_other_methods_unsupported),
		cmocka_unit_test(test_status_reserved_header_fields_invalid),
		cmocka_unit_test(test_status_attr_method_not_allowed),
		cmocka_unit_test(test_status_attr_mod_reserved_bits_invalid),
		cmocka_unit_test(test_status_absent_vport_invalid),
		cmocka_unit_test(test_get_absent_vport_info_returns_defaults),
		cmocka_unit_test(test_set_vport_info_creates_vport_and_returns_get),
		cmocka_unit_test(test_status_invalid_vport_info_values),
		cmocka_unit_test(test_status_mac_entries_range_invalid),
		cmocka_unit_test(test_status_set_too_short_invalid),
		cmocka_unit_test(test_status_iface_list_bounds),
		cmocka_unit_test(test_cpi_get_overrides_and_set_stores),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests_name("vema", tests, NULL, NULL);
}
