/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * lib/vema's MAD codec without EAL: every payload byte-exact at the
 * offsets of the facts (3.1, 3.3, 3.5), and back.
 */

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "opa16b.h"
#include "opa16b_fm.h"
#include "test_case.h"
#include "vema_agent.h"
#include "vema_mad.h"
#include "vnic.h"
#include "vnic_stats.h"

#include "test_bytes.h"

/* --- 1. codec, byte-exact at the facts' offsets --- */

/* The vendor header: every field at its 3.1 offset, big-endian; round trip. */
static void
test_codec_vendor_header(void **state)
{
	struct vema_hdr h = {
		.mad = { .base_version = 0x81, .mgmt_class = 0x82, .class_version = 0x83,
			 .method = 0x84, .status = 0x0506, .class_specific = 0x0708,
			 .tid = 0x090A0B0C0D0E0F10ull, .attr_id = 0x1112, .resv = 0x1314,
			 .attr_mod = 0x15161718 },
		.rmpp_version = 0x19, .rmpp_type = 0x1A,
		.rmpp_rtime_flags = 0x1B, .rmpp_status = 0x1C, .seg_num = 0x1D1E1F20,
		.paylen_newwin = 0x21222324, .reserved = 0x25, .oui = 0x262728,
	};
	struct vema_hdr back;
	uint8_t m[VEMA_HDR_LEN + 8];

	(void)state;
	memset(m, 0xEE, sizeof(m));
	vema_hdr_encode(m, &h);
	expect_be(m, 0, 1, 0x81, "base_version");
	expect_be(m, 1, 1, 0x82, "mgmt_class");
	expect_be(m, 2, 1, 0x83, "class_version");
	expect_be(m, 3, 1, 0x84, "method");
	expect_be(m, 4, 2, 0x0506, "status");
	expect_be(m, 6, 2, 0x0708, "class_specific");
	expect_be(m, 8, 8, 0x090A0B0C0D0E0F10ull, "tid");
	expect_be(m, 16, 2, 0x1112, "attr_id");
	expect_be(m, 18, 2, 0x1314, "resv");
	expect_be(m, 20, 4, 0x15161718, "attr_mod");
	expect_be(m, 24, 1, 0x19, "rmpp_version");
	expect_be(m, 25, 1, 0x1A, "rmpp_type");
	expect_be(m, 26, 1, 0x1B, "rmpp_rtime_flags");
	expect_be(m, 27, 1, 0x1C, "rmpp_status");
	expect_be(m, 28, 4, 0x1D1E1F20, "seg_num");
	expect_be(m, 32, 4, 0x21222324, "paylen_newwin");
	expect_be(m, 36, 1, 0x25, "reserved");
	expect_be(m, 37, 3, 0x262728, "oui");
	expect_fill(m, VEMA_HDR_LEN, sizeof(m), 0xEE, "past the header");

	memset(&back, 0, sizeof(back));
	vema_hdr_decode(m, &back);
	assert_memory_equal(&back, &h, sizeof(h));

	/* a request header: versions, class, OUI, method, attr, mod, tid; rest 0 */
	vema_hdr_request(&back, VEMA_METHOD_SET, VEMA_ATTR_MAC_ENTRIES, 0x42, 0x77);
	memset(m, 0xEE, sizeof(m));
	vema_hdr_encode(m, &back);
	expect_be(m, 0, 4, 0x80348002, "request versions, class, method");
	expect_be(m, 4, 4, 0, "request status, class_specific");
	expect_be(m, 8, 8, 0x77, "request tid");
	expect_be(m, 16, 2, VEMA_ATTR_MAC_ENTRIES, "request attr_id");
	expect_be(m, 18, 2, 0, "request resv");
	expect_be(m, 20, 4, 0x42, "request attr_mod");
	expect_fill(m, 24, 37, 0, "request RMPP and reserved");
	expect_be(m, 37, 3, 0x00066A, "request oui");
}

/* ClassPortInfo: every field at its 3.3 offset, 80 bytes exactly; round trip. */
static void
test_codec_class_port_info(void **state)
{
	struct vema_class_port_info c, back;
	uint8_t d[VEMA_CPI_LEN + 8], gid[16];
	unsigned int i;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.base_version = 0x11;
	c.class_version = 0x12;
	c.cap_mask = 0x1314;
	c.cap_mask2_resp_time = 0x15161718;
	for (i = 0; i < 16; i++) {
		c.redirect_gid[i] = 0x20 + i;
		c.trap_gid[i] = 0x40 + i;
	}
	c.redirect_tc_fl = 0x30313233;
	c.redirect_lid = 0x34353637;
	c.redirect_sl_qp = 0x38393A3B;
	c.redirect_qkey = 0x3C3D3E3F;
	c.trap_tc_fl = 0x50515253;
	c.trap_lid = 0x54555657;
	c.trap_hl_qp = 0x58595A5B;
	c.trap_qkey = 0x5C5D5E5F;
	c.trap_pkey = 0x6061;
	c.redirect_pkey = 0x6263;
	c.trap_sl_rsvd = 0x64;
	c.rsvd[0] = 0x65;
	c.rsvd[1] = 0x66;
	c.rsvd[2] = 0x67;

	memset(d, 0xEE, sizeof(d));
	vema_cpi_encode(d, &c);
	expect_be(d, 0, 1, 0x11, "base_version");
	expect_be(d, 1, 1, 0x12, "class_version");
	expect_be(d, 2, 2, 0x1314, "cap_mask");
	expect_be(d, 4, 4, 0x15161718, "cap_mask2_resp_time");
	for (i = 0; i < 16; i++)
		gid[i] = 0x20 + i;
	expect_bytes(d, 8, gid, 16, "redirect_gid");
	expect_be(d, 24, 4, 0x30313233, "redirect_tc_fl");
	expect_be(d, 28, 4, 0x34353637, "redirect_lid");
	expect_be(d, 32, 4, 0x38393A3B, "redirect_sl_qp");
	expect_be(d, 36, 4, 0x3C3D3E3F, "redirect_qkey");
	for (i = 0; i < 16; i++)
		gid[i] = 0x40 + i;
	expect_bytes(d, 40, gid, 16, "trap_gid");
	expect_be(d, 56, 4, 0x50515253, "trap_tc_fl");
	expect_be(d, 60, 4, 0x54555657, "trap_lid");
	expect_be(d, 64, 4, 0x58595A5B, "trap_hl_qp");
	expect_be(d, 68, 4, 0x5C5D5E5F, "trap_qkey");
	expect_be(d, 72, 2, 0x6061, "trap_pkey");
	expect_be(d, 74, 2, 0x6263, "redirect_pkey");
	expect_be(d, 76, 1, 0x64, "trap_sl_rsvd");
	expect_be(d, 77, 3, 0x656667, "reserved");
	expect_fill(d, VEMA_CPI_LEN, sizeof(d), 0xEE, "past ClassPortInfo");

	memset(&back, 0, sizeof(back));
	vema_cpi_decode(d, &back);
	assert_memory_equal(&back, &c, sizeof(c));
}

/* vesw_info + per_veswport_info: every field (reserved ones too) at its 3.3
 * offset, 280 bytes exactly; decoding gives every field back, reserved
 * bytes included.
 */
static void
test_codec_veswport_info(void **state)
{
	struct vnic_vesw_info v, vb;
	struct vnic_port_info p, pb;
	uint8_t d[VEMA_VESWPORT_INFO_LEN + 8], exp[64];
	const uint8_t *q = d + 152; /* per_veswport_info follows the 152-byte vesw_info */
	unsigned int i;

	(void)state;
	memset(&v, 0, sizeof(v));
	memset(&p, 0, sizeof(p));
	v.fabric_id = 0x0102;
	v.vesw_id = 0x0304;
	for (i = 0; i < 6; i++)
		v.rsvd0[i] = 0x05 + i;
	v.def_port_mask = 0x0B0C;
	v.rsvd1[0] = 0x0D;
	v.rsvd1[1] = 0x0E;
	v.pkey = 0x0F10;
	for (i = 0; i < 4; i++)
		v.rsvd2[i] = 0x11 + i;
	v.u_mcast_dlid = 0x15161718;
	for (i = 0; i < VNIC_UCAST_DLID_MAX; i++)
		v.u_ucast_dlid[i] = 0x20000011u + i * 0x00010203u;
	v.rc = 0x31323334;
	for (i = 0; i < 56; i++)
		v.rsvd3[i] = 0x40 + i;
	v.eth_mtu = 0x7879;
	v.rsvd4[0] = 0x7A;
	v.rsvd4[1] = 0x7B;

	p.port_num = 0x81828384;
	p.eth_link_status = 0x85;
	for (i = 0; i < 3; i++)
		p.rsvd0[i] = 0x86 + i;
	for (i = 0; i < 6; i++)
		p.base_mac_addr.addr_bytes[i] = 0x89 + i;
	p.config_state = 0x8F;
	p.oper_state = 0x90;
	p.max_mac_tbl_ent = 0x9192;
	p.max_smac_ent = 0x9394;
	p.mac_tbl_digest = 0x95969798;
	for (i = 0; i < 4; i++)
		p.rsvd1[i] = 0x99 + i;
	p.encap_slid = 0x9D9E9FA0;
	for (i = 0; i < 8; i++) {
		p.pcp_to_sc_uc[i] = 0xA1 + i;
		p.pcp_to_vl_uc[i] = 0xA9 + i;
		p.pcp_to_sc_mc[i] = 0xB1 + i;
		p.pcp_to_vl_mc[i] = 0xB9 + i;
	}
	p.non_vlan_sc_uc = 0xC1;
	p.non_vlan_vl_uc = 0xC2;
	p.non_vlan_sc_mc = 0xC3;
	p.non_vlan_vl_mc = 0xC4;
	for (i = 0; i < 48; i++)
		p.rsvd2[i] = 0xC5 + i;
	p.uc_macs_gen_count = 0xF5F6;
	p.mc_macs_gen_count = 0xF7F8;
	for (i = 0; i < 8; i++)
		p.rsvd3[i] = 0x10 + i;

	memset(d, 0xEE, sizeof(d));
	vema_veswport_info_encode(d, &v, &p);

	/* vesw_info */
	expect_be(d, 0, 2, 0x0102, "fabric_id");
	expect_be(d, 2, 2, 0x0304, "vesw_id");
	expect_be(d, 4, 6, 0x05060708090Aull, "vesw rsvd0");
	expect_be(d, 10, 2, 0x0B0C, "def_port_mask");
	expect_be(d, 12, 2, 0x0D0E, "vesw rsvd1");
	expect_be(d, 14, 2, 0x0F10, "pkey");
	expect_be(d, 16, 4, 0x11121314, "vesw rsvd2");
	expect_be(d, 20, 4, 0x15161718, "u_mcast_dlid");
	for (i = 0; i < 16; i++)
		expect_be(d, 24 + 4 * i, 4, 0x20000011u + i * 0x00010203u, "u_ucast_dlid[i]");
	expect_be(d, 88, 4, 0x31323334, "rc");
	for (i = 0; i < 56; i++)
		exp[i] = 0x40 + i;
	expect_bytes(d, 92, exp, 56, "vesw rsvd3");
	expect_be(d, 148, 2, 0x7879, "eth_mtu");
	expect_be(d, 150, 2, 0x7A7B, "vesw rsvd4");

	/* per_veswport_info, at 152 */
	expect_be(q, 0, 4, 0x81828384, "port_num");
	expect_be(q, 4, 1, 0x85, "eth_link_status");
	expect_be(q, 5, 3, 0x868788, "port rsvd0");
	expect_be(q, 8, 6, 0x898A8B8C8D8Eull, "base_mac_addr");
	expect_be(q, 14, 1, 0x8F, "config_state");
	expect_be(q, 15, 1, 0x90, "oper_state");
	expect_be(q, 16, 2, 0x9192, "max_mac_tbl_ent");
	expect_be(q, 18, 2, 0x9394, "max_smac_ent");
	expect_be(q, 20, 4, 0x95969798, "mac_tbl_digest");
	expect_be(q, 24, 4, 0x999A9B9C, "port rsvd1");
	expect_be(q, 28, 4, 0x9D9E9FA0, "encap_slid");
	expect_be(q, 32, 8, 0xA1A2A3A4A5A6A7A8ull, "pcp_to_sc_uc");
	expect_be(q, 40, 8, 0xA9AAABACADAEAFB0ull, "pcp_to_vl_uc");
	expect_be(q, 48, 8, 0xB1B2B3B4B5B6B7B8ull, "pcp_to_sc_mc");
	expect_be(q, 56, 8, 0xB9BABBBCBDBEBFC0ull, "pcp_to_vl_mc");
	expect_be(q, 64, 1, 0xC1, "non_vlan_sc_uc");
	expect_be(q, 65, 1, 0xC2, "non_vlan_vl_uc");
	expect_be(q, 66, 1, 0xC3, "non_vlan_sc_mc");
	expect_be(q, 67, 1, 0xC4, "non_vlan_vl_mc");
	for (i = 0; i < 48; i++)
		exp[i] = 0xC5 + i;
	expect_bytes(q, 68, exp, 48, "port rsvd2");
	expect_be(q, 116, 2, 0xF5F6, "uc_macs_gen_count");
	expect_be(q, 118, 2, 0xF7F8, "mc_macs_gen_count");
	expect_be(q, 120, 8, 0x1011121314151617ull, "port rsvd3");
	expect_fill(d, VEMA_VESWPORT_INFO_LEN, sizeof(d), 0xEE, "past VESWPORT_INFO");

	memset(&vb, 0, sizeof(vb));
	memset(&pb, 0, sizeof(pb));
	vema_veswport_info_decode(d, &vb, &pb);
	assert_memory_equal(&vb, &v, sizeof(v));
	assert_memory_equal(&pb, &p, sizeof(p));
}

/* MAC table header and 16-byte entries at their 3.3 offsets; round trip. */
static void
test_codec_mac_table(void **state)
{
	struct vema_mac_tbl_hdr h = { .offset = 0x0102, .num_entries = 0x0304,
				      .digest = 0x05060708 }, hb;
	struct vnic_mac_entry e = {
		.mac = { { 0x11, 0x12, 0x13, 0x14, 0x15, 0x16 } },
		.mask = { { 0x21, 0x22, 0x23, 0x24, 0x25, 0x26 } },
		.dlid_sd = 0x31323334,
	}, eb;
	uint8_t d[VEMA_MAC_ENTRY_LEN + 8];

	(void)state;
	memset(d, 0xEE, sizeof(d));
	vema_mac_tbl_hdr_encode(d, &h);
	expect_be(d, 0, 2, 0x0102, "offset");
	expect_be(d, 2, 2, 0x0304, "num_entries");
	expect_be(d, 4, 4, 0x05060708, "mac_tbl_digest");
	expect_fill(d, 8, sizeof(d), 0xEE, "past the MAC table header");
	memset(&hb, 0, sizeof(hb));
	vema_mac_tbl_hdr_decode(d, &hb);
	assert_memory_equal(&hb, &h, sizeof(h));

	memset(d, 0xEE, sizeof(d));
	vema_mac_entry_encode(d, &e);
	expect_be(d, 0, 6, 0x111213141516ull, "mac");
	expect_be(d, 6, 6, 0x212223242526ull, "mac_mask");
	expect_be(d, 12, 4, 0x31323334, "dlid_sd");
	expect_fill(d, 16, sizeof(d), 0xEE, "past the MAC entry");
	memset(&eb, 0, sizeof(eb));
	vema_mac_entry_decode(d, &eb);
	assert_memory_equal(&eb, &e, sizeof(e));
}

/* Interface MAC list header at its 3.3 offsets; round trip. */
static void
test_codec_iface_header(void **state)
{
	struct vema_iface_hdr h = { .start_idx = 0x0102, .num_macs_in_msg = 0x0304,
				    .tot_macs_in_lst = 0x0506, .gen_count = 0x0708 }, hb;
	uint8_t d[VEMA_IFACE_HDR_LEN + 8];

	(void)state;
	memset(d, 0xEE, sizeof(d));
	vema_iface_hdr_encode(d, &h);
	expect_be(d, 0, 2, 0x0102, "start_idx");
	expect_be(d, 2, 2, 0x0304, "num_macs_in_msg");
	expect_be(d, 4, 2, 0x0506, "tot_macs_in_lst");
	expect_be(d, 6, 2, 0x0708, "gen_count");
	expect_fill(d, 8, sizeof(d), 0xEE, "past the iface header");
	memset(&hb, 0, sizeof(hb));
	vema_iface_hdr_decode(d, &hb);
	assert_memory_equal(&hb, &h, sizeof(h));
}

/* Summary counters: header, the 28 counters at 8..231 in the facts' order,
 * 128 reserved zero bytes at 232, 360 bytes exactly; round trip.
 */
static void
test_codec_summary_counters(void **state)
{
	struct vnic_counters c, b;
	struct vema_counters_hdr h = { .vp_instance = 0x0102, .vesw_id = 0x0304,
				       .veswport_num = 0x05060708 }, hb;
	struct {
		size_t off;
		uint64_t *v;
		const char *name;
	} tbl[] = {
		{ 8, &c.tx_errors, "tx_errors" }, { 16, &c.rx_errors, "rx_errors" },
		{ 24, &c.tx_packets, "tx_packets" }, { 32, &c.rx_packets, "rx_packets" },
		{ 40, &c.tx_bytes, "tx_bytes" }, { 48, &c.rx_bytes, "rx_bytes" },
		{ 56, &c.tx.unicast, "tx_unicast" }, { 64, &c.tx.mcastbcast, "tx_mcastbcast" },
		{ 72, &c.tx.untagged, "tx_untagged" }, { 80, &c.tx.vlan, "tx_vlan" },
		{ 88, &c.tx.size[VNIC_SIZE_64], "tx_64" },
		{ 96, &c.tx.size[VNIC_SIZE_65_127], "tx_65_127" },
		{ 104, &c.tx.size[VNIC_SIZE_128_255], "tx_128_255" },
		{ 112, &c.tx.size[VNIC_SIZE_256_511], "tx_256_511" },
		{ 120, &c.tx.size[VNIC_SIZE_512_1023], "tx_512_1023" },
		{ 128, &c.tx.size[VNIC_SIZE_1024_1518], "tx_1024_1518" },
		{ 136, &c.tx.size[VNIC_SIZE_1519_MAX], "tx_1519_max" },
		{ 144, &c.rx.unicast, "rx_unicast" }, { 152, &c.rx.mcastbcast, "rx_mcastbcast" },
		{ 160, &c.rx.untagged, "rx_untagged" }, { 168, &c.rx.vlan, "rx_vlan" },
		{ 176, &c.rx.size[VNIC_SIZE_64], "rx_64" },
		{ 184, &c.rx.size[VNIC_SIZE_65_127], "rx_65_127" },
		{ 192, &c.rx.size[VNIC_SIZE_128_255], "rx_128_255" },
		{ 200, &c.rx.size[VNIC_SIZE_256_511], "rx_256_511" },
		{ 208, &c.rx.size[VNIC_SIZE_512_1023], "rx_512_1023" },
		{ 216, &c.rx.size[VNIC_SIZE_1024_1518], "rx_1024_1518" },
		{ 224, &c.rx.size[VNIC_SIZE_1519_MAX], "rx_1519_max" },
	};
	uint8_t d[VEMA_SUMMARY_LEN + 8];
	unsigned int i;

	(void)state;
	assert_int_equal(sizeof(tbl) / sizeof(tbl[0]), 28);
	/* error-only fields are set too: they must not appear */
	memset(&c, 0x5A, sizeof(c));
	for (i = 0; i < 28; i++)
		*tbl[i].v = 0x1100000000000000ull + i * 0x0001010101010101ull + 1;
	memset(d, 0xEE, sizeof(d));
	vema_summary_encode(d, &h, &c);
	expect_be(d, 0, 2, 0x0102, "vp_instance");
	expect_be(d, 2, 2, 0x0304, "vesw_id");
	expect_be(d, 4, 4, 0x05060708, "veswport_num");
	for (i = 0; i < 28; i++)
		expect_be(d, tbl[i].off, 8, *tbl[i].v, tbl[i].name);
	expect_fill(d, 232, VEMA_SUMMARY_LEN, 0, "summary reserved");
	expect_fill(d, VEMA_SUMMARY_LEN, sizeof(d), 0xEE, "past the summary");

	memset(&b, 0, sizeof(b));
	memset(&hb, 0, sizeof(hb));
	vema_summary_decode(d, &hb, &b);
	assert_memory_equal(&hb, &h, sizeof(h));
	for (i = 0; i < 28; i++) {
		uint64_t got = *(uint64_t *)((uint8_t *)&b + ((uint8_t *)tbl[i].v - (uint8_t *)&c));

		if (got != *tbl[i].v)
			fail_msg("decoded %s: 0x%" PRIx64, tbl[i].name, got);
	}
}

/* Error counters: header, the 12 counters at the facts' offsets, every
 * other 8-byte slot zero, 304 bytes exactly; round trip.
 */
static void
test_codec_error_counters(void **state)
{
	struct vnic_counters c, b;
	struct vema_counters_hdr h = { .vp_instance = 0x0A0B, .vesw_id = 0x0C0D,
				       .veswport_num = 0x0E0F1011 }, hb;
	struct {
		size_t off;
		uint64_t *v;
		const char *name;
	} tbl[] = {
		{ 8, &c.tx_errors, "tx_errors" }, { 16, &c.rx_errors, "rx_errors" },
		{ 32, &c.tx_smac_filt, "tx_smac_filt" }, { 64, &c.tx_dlid_zero, "tx_dlid_zero" },
		{ 80, &c.tx_logic, "tx_logic" }, { 96, &c.tx_drop_state, "tx_drop_state" },
		{ 104, &c.rx_bad_veswid, "rx_bad_veswid" }, { 120, &c.rx_runt, "rx_runt" },
		{ 128, &c.rx_oversize, "rx_oversize" }, { 144, &c.rx_eth_down, "rx_eth_down" },
		{ 152, &c.rx_drop_state, "rx_drop_state" }, { 160, &c.rx_logic, "rx_logic" },
	};
	uint8_t d[VEMA_ERROR_LEN + 8];
	unsigned int i, j;
	size_t off;

	(void)state;
	memset(&c, 0x5A, sizeof(c)); /* summary-only fields must not appear */
	for (i = 0; i < 12; i++)
		*tbl[i].v = 0x2200000000000000ull + i * 0x0001010101010101ull + 1;
	memset(d, 0xEE, sizeof(d));
	vema_errors_encode(d, &h, &c);
	expect_be(d, 0, 2, 0x0A0B, "vp_instance");
	expect_be(d, 2, 2, 0x0C0D, "vesw_id");
	expect_be(d, 4, 4, 0x0E0F1011, "veswport_num");
	for (off = 8; off < VEMA_ERROR_LEN; off += 8) {
		for (j = 0; j < 12 && tbl[j].off != off; j++)
			;
		if (j < 12)
			expect_be(d, off, 8, *tbl[j].v, tbl[j].name);
		else
			expect_be(d, off, 8, 0, "reserved error slot");
	}
	expect_fill(d, VEMA_ERROR_LEN, sizeof(d), 0xEE, "past the error counters");

	memset(&b, 0, sizeof(b));
	memset(&hb, 0, sizeof(hb));
	vema_errors_decode(d, &hb, &b);
	assert_memory_equal(&hb, &h, sizeof(h));
	for (i = 0; i < 12; i++) {
		uint64_t got = *(uint64_t *)((uint8_t *)&b + ((uint8_t *)tbl[i].v - (uint8_t *)&c));

		if (got != *tbl[i].v)
			fail_msg("decoded %s: 0x%" PRIx64, tbl[i].name, got);
	}
}

/* Notice: INFO gen_type, Intel OUI, issuer LID and the 16-byte trap payload
 * at the 3.5 offsets, 96 bytes exactly; round trip; non-INFO refused.
 */
static void
test_codec_notice(void **state)
{
	struct vema_trap t = {
		.issuer_lid = 0x01020304, .fabric_id = 0x0506, .vesw_id = 0x0708,
		.veswport_num = 0x090A0B0C, .opa_port_num = 0x0D0E, .vport_index = 0x0F,
		.opcode = 0x10,
	}, tb;
	uint8_t d[VEMA_NOTICE_LEN + 8];

	(void)state;
	memset(d, 0xEE, sizeof(d));
	vema_notice_encode(d, &t);
	expect_be(d, 0, 1, 0x08, "gen_type");
	expect_be(d, 1, 3, 0x00066A, "producer OUI");
	expect_be(d, 4, 2, 0, "trap_num");
	expect_be(d, 6, 2, 0, "toggle_count");
	expect_be(d, 8, 4, 0x01020304, "issuer_lid");
	expect_fill(d, 12, 32, 0, "reserved and issuer_gid");
	expect_be(d, 32, 2, 0x0506, "fabric_id");
	expect_be(d, 34, 2, 0x0708, "veswid");
	expect_be(d, 36, 4, 0x090A0B0C, "veswportnum");
	expect_be(d, 40, 2, 0x0D0E, "opaportnum");
	expect_be(d, 42, 1, 0x0F, "veswportindex");
	expect_be(d, 43, 1, 0x10, "opcode");
	expect_fill(d, 44, VEMA_NOTICE_LEN, 0, "rest of the notice");
	expect_fill(d, VEMA_NOTICE_LEN, sizeof(d), 0xEE, "past the notice");

	memset(&tb, 0, sizeof(tb));
	assert_int_equal(vema_notice_decode(d, &tb), 0);
	assert_memory_equal(&tb, &t, sizeof(t));
	d[0] = 0x02;
	assert_int_not_equal(vema_notice_decode(d, &tb), 0);
	d[0] = 0x08;
	d[3] = 0x6B;
	assert_int_not_equal(vema_notice_decode(d, &tb), 0);
}


int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codec_vendor_header),
		cmocka_unit_test(test_codec_class_port_info),
		cmocka_unit_test(test_codec_veswport_info),
		cmocka_unit_test(test_codec_mac_table),
		cmocka_unit_test(test_codec_iface_header),
		cmocka_unit_test(test_codec_summary_counters),
		cmocka_unit_test(test_codec_error_counters),
		cmocka_unit_test(test_codec_notice),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
