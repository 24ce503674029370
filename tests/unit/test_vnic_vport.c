/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* lib/vnic without EAL: vport states and events, validation, interface
 * MAC lists, counters and verdicts, copy-on-write snapshots. */

#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_case.h"
#include "vnic_test_util.h"
/* 7. States and events */

/* A new vport holds exactly the power-on defaults of facts 3.4. */
static void
test_power_on_defaults(void **state)
{
	struct vnic_vesw_info ev, v;
	struct vnic_port_info ep, p;
	struct vnic_vport *vp = vnic_vport_create(42, NULL, NULL);
	const struct vnic_policy *pol;
	struct rte_ether_addr m;
	unsigned int e;

	(void)state;
	assert_non_null(vp);
	assert_int_equal(vnic_vport_index(vp), 42);
	expected_defaults(&ev, &ep);
	pol = vnic_vport_policy(vp);
	assert_memory_equal(&pol->vesw, &ev, sizeof(ev));
	assert_memory_equal(&pol->port, &ep, sizeof(ep));
	assert_int_equal(pol->port.max_mac_tbl_ent, 2048);
	assert_int_equal(pol->port.max_smac_ent, 256);
	assert_int_equal(pol->port.config_state, VNIC_STATE_DROP_ALL);
	assert_int_equal(pol->port.oper_state, 1);
	assert_int_equal(pol->port.eth_link_status, 2);
	assert_int_equal(pol->vesw.eth_mtu, 1500);
	assert_false(vnic_forwarding(pol));
	assert_int_equal(pol->mac.nb_entries, 0);
	assert_int_equal(pol->mac.nb_indexed, 0);
	mac_set(&m, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55);
	for (e = 0; e < 256; e++)
		assert_int_equal(vnic_tx_dlid(pol, &m, e), 0);
	assert_int_equal(vnic_vport_take_events(vp), 0);
	/* vnic_info_defaults() writes the same, over garbage */
	memset(&v, 0xA5, sizeof(v));
	memset(&p, 0xA5, sizeof(p));
	vnic_info_defaults(&v, &p);
	assert_memory_equal(&v, &ev, sizeof(ev));
	assert_memory_equal(&p, &ep, sizeof(ep));
	vnic_vport_free(vp);
	vnic_vport_free(NULL);
}

/* Put a vport in (config_state, carrier) and check oper_state, link and forwarding. */
static void
set_and_check_state(struct vnic_vport *vp, const struct vnic_vesw_info *v,
		    struct vnic_port_info *p, unsigned int cfg, unsigned int car)
{
	const struct vnic_policy *pol;
	bool up = cfg && car;

	p->config_state = cfg ? 3 : 1;
	assert_int_equal(vnic_vport_configure(vp, v, p), 0);
	assert_int_equal(vnic_vport_set_carrier(vp, car), 0);
	pol = vnic_vport_policy(vp);
	CHECK_EQ(pol->port.config_state, cfg ? 3 : 1, "cfg %u car %u", cfg, car);
	CHECK_EQ(pol->port.oper_state, up ? 3 : 1, "cfg %u car %u", cfg, car);
	CHECK_EQ(pol->port.eth_link_status, up ? 1 : 2, "cfg %u car %u", cfg, car);
	CHECK_EQ(vnic_forwarding(pol), up, "cfg %u car %u", cfg, car);
}

/* oper_state is FORWARDING only with config_state FORWARDING and carrier up; link follows. */
static void
test_oper_state_and_link(void **state)
{
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct vnic_vport *vp = vnic_vport_create(0, NULL, NULL);
	unsigned int from, to;

	(void)state;
	assert_non_null(vp);
	base_config(&v, &p);
	/* every transition between the four (config, carrier) combinations */
	for (from = 0; from < 4; from++)
		for (to = 0; to < 4; to++) {
			unsigned int cfg0 = from >> 1, car0 = from & 1, cfg = to >> 1, car = to & 1;
			/* configure first, then the carrier: up to two link steps */
			bool was_up = cfg0 && car0, mid = cfg && car0, up = cfg && car;

			set_and_check_state(vp, &v, &p, cfg0, car0);
			vnic_vport_take_events(vp);
			set_and_check_state(vp, &v, &p, cfg, car);
			CHECK_EQ(!!(vnic_vport_take_events(vp) & VNIC_EV_LINK_CHANGE),
				 was_up != mid || mid != up, "from %u to %u", from, to);
			assert_int_equal(vnic_vport_take_events(vp), 0);
		}
	vnic_vport_free(vp);
}

/* Events: link, vesw_id, base MAC and MTU changes each raise theirs; take clears them. */
static void
test_events_on_change(void **state)
{
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct vnic_vport *vp = vnic_vport_create(0, NULL, NULL);

	(void)state;
	assert_non_null(vp);
	base_config(&v, &p);
	assert_int_equal(vnic_vport_configure(vp, &v, &p), 0);
	/* vesw_id 0 -> 2 and base MAC 0 -> 06:2c:..: no link change (carrier down) */
	assert_int_equal(vnic_vport_take_events(vp),
			 VNIC_EV_VESW_CHANGE | VNIC_EV_MAC_ADDR_CHANGE);
	assert_int_equal(vnic_vport_take_events(vp), 0);
	/* the same configuration again raises nothing */
	assert_int_equal(vnic_vport_configure(vp, &v, &p), 0);
	assert_int_equal(vnic_vport_take_events(vp), 0);
	/* carrier up: link up */
	assert_int_equal(vnic_vport_set_carrier(vp, true), 0);
	assert_int_equal(vnic_vport_take_events(vp), VNIC_EV_LINK_CHANGE);
	assert_int_equal(vnic_vport_set_carrier(vp, true), 0);
	assert_int_equal(vnic_vport_take_events(vp), 0);
	/* vesw_id alone */
	v.vesw_id = 0xFFF;
	assert_int_equal(vnic_vport_configure(vp, &v, &p), 0);
	assert_int_equal(vnic_vport_take_events(vp), VNIC_EV_VESW_CHANGE);
	/* base MAC alone */
	mac_set(&p.base_mac_addr, 0x00, 0x11, 0x22, 0x33, 0x44, 0x56);
	assert_int_equal(vnic_vport_configure(vp, &v, &p), 0);
	assert_int_equal(vnic_vport_take_events(vp), VNIC_EV_MAC_ADDR_CHANGE);
	assert_memory_equal(&vnic_vport_policy(vp)->port.base_mac_addr, &p.base_mac_addr, 6);
	/* MTU alone */
	v.eth_mtu = 9000;
	assert_int_equal(vnic_vport_configure(vp, &v, &p), 0);
	assert_int_equal(vnic_vport_take_events(vp), VNIC_EV_MTU_CHANGE);
	/* other fields raise nothing */
	v.pkey = 0xFFFF;
	v.def_port_mask = 0xFFFF;
	v.rc = RC_VALID_MASK;
	p.encap_slid = 77;
	p.pcp_to_sc_uc[3] = 0;
	assert_int_equal(vnic_vport_configure(vp, &v, &p), 0);
	assert_int_equal(vnic_vport_take_events(vp), 0);
	/* drop-all: link down */
	p.config_state = 1;
	assert_int_equal(vnic_vport_configure(vp, &v, &p), 0);
	assert_int_equal(vnic_vport_take_events(vp), VNIC_EV_LINK_CHANGE);
	/* events accumulate until taken */
	p.config_state = 3;
	assert_int_equal(vnic_vport_configure(vp, &v, &p), 0);
	v.vesw_id = 5;
	assert_int_equal(vnic_vport_configure(vp, &v, &p), 0);
	assert_int_equal(vnic_vport_set_carrier(vp, false), 0);
	assert_int_equal(vnic_vport_take_events(vp), VNIC_EV_LINK_CHANGE | VNIC_EV_VESW_CHANGE);
	assert_int_equal(vnic_vport_take_events(vp), 0);
	vnic_vport_free(vp);
}

/* Read-only fields of a configure are ignored; reserved bytes are stored and echoed. */
static void
test_configure_ignores_read_only(void **state)
{
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct vnic_vport *vp = vnic_vport_create(0, NULL, NULL);
	const struct vnic_policy *pol;
	struct rte_ether_addr m;
	struct vnic_mac_entry e;
	unsigned int i;

	(void)state;
	assert_non_null(vp);
	base_config(&v, &p);
	assert_int_equal(vnic_vport_configure(vp, &v, &p), 0);
	mac_set(&m, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55);
	e = mac_entry(&m, 0x33, 0);
	assert_int_equal(vnic_vport_set_mac_entries(vp, 0, 1, &e, 0xD16E57), 0);
	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_UCAST, &m, 1), 1);
	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_MCAST, &m, 0), 0);
	/* garbage in every read-only field, carrier down */
	p.eth_link_status = 1;
	p.oper_state = 3;
	p.max_mac_tbl_ent = 5;
	p.max_smac_ent = 6;
	p.mac_tbl_digest = 0xBAD;
	p.uc_macs_gen_count = 77;
	p.mc_macs_gen_count = 88;
	for (i = 0; i < sizeof(v.rsvd3); i++)
		v.rsvd3[i] = (uint8_t)(i + 1);
	memset(v.rsvd0, 0x10, sizeof(v.rsvd0));
	memset(v.rsvd1, 0x11, sizeof(v.rsvd1));
	memset(v.rsvd2, 0x12, sizeof(v.rsvd2));
	memset(v.rsvd4, 0x14, sizeof(v.rsvd4));
	memset(p.rsvd0, 0x20, sizeof(p.rsvd0));
	memset(p.rsvd1, 0x21, sizeof(p.rsvd1));
	memset(p.rsvd2, 0x22, sizeof(p.rsvd2));
	memset(p.rsvd3, 0x23, sizeof(p.rsvd3));
	assert_int_equal(vnic_info_check(&v, &p), 0);
	assert_null(vnic_info_check_reason(&v, &p));
	assert_int_equal(vnic_vport_configure(vp, &v, &p), 0);
	pol = vnic_vport_policy(vp);
	assert_int_equal(pol->port.eth_link_status, 2);
	assert_int_equal(pol->port.oper_state, 1);
	assert_int_equal(pol->port.max_mac_tbl_ent, 2048);
	assert_int_equal(pol->port.max_smac_ent, 256);
	assert_int_equal(pol->port.mac_tbl_digest, 0xD16E57);
	assert_int_equal(pol->port.uc_macs_gen_count, 1);
	assert_int_equal(pol->port.mc_macs_gen_count, 0);
	assert_false(vnic_forwarding(pol));
	/* the writable fields and reserved bytes are taken as given */
	assert_memory_equal(&pol->vesw, &v, sizeof(v));
	assert_int_equal(pol->port.port_num, p.port_num);
	assert_int_equal(pol->port.config_state, 3);
	assert_int_equal(pol->port.encap_slid, p.encap_slid);
	assert_memory_equal(pol->port.rsvd0, p.rsvd0, sizeof(p.rsvd0));
	assert_memory_equal(pol->port.rsvd1, p.rsvd1, sizeof(p.rsvd1));
	assert_memory_equal(pol->port.rsvd2, p.rsvd2, sizeof(p.rsvd2));
	assert_memory_equal(pol->port.rsvd3, p.rsvd3, sizeof(p.rsvd3));
	assert_memory_equal(pol->port.pcp_to_sc_uc, p.pcp_to_sc_uc, 8);
	assert_memory_equal(pol->port.pcp_to_vl_uc, p.pcp_to_vl_uc, 8);
	assert_memory_equal(pol->port.pcp_to_sc_mc, p.pcp_to_sc_mc, 8);
	assert_memory_equal(pol->port.pcp_to_vl_mc, p.pcp_to_vl_mc, 8);
	/* the MAC table survives a configure */
	assert_int_equal(vnic_mac_tbl_lookup(&pol->mac, &m), 0x33);
	/* carrier up, then a configure claiming link down does not take it down */
	assert_int_equal(vnic_vport_set_carrier(vp, true), 0);
	p.eth_link_status = 2;
	p.oper_state = 1;
	assert_int_equal(vnic_vport_configure(vp, &v, &p), 0);
	assert_int_equal(vnic_vport_policy(vp)->port.oper_state, 3);
	assert_int_equal(vnic_vport_policy(vp)->port.eth_link_status, 1);
	vnic_vport_free(vp);
}

/* vnic_vport_reset returns to the power-on state and clears the MAC table and digest. */
static void
test_reset_returns_to_defaults(void **state)
{
	struct vnic_vesw_info v, ev;
	struct vnic_port_info p, ep;
	struct vnic_vport *vp = vnic_vport_create(9, NULL, NULL);
	struct vnic_mac_entry e[16];
	const struct vnic_policy *pol;
	uint64_t seed = 0x4e5e7;
	unsigned int i;
	uint32_t evs;

	(void)state;
	assert_non_null(vp);
	base_config(&v, &p);
	assert_int_equal(vnic_vport_configure(vp, &v, &p), 0);
	assert_int_equal(vnic_vport_set_carrier(vp, true), 0);
	for (i = 0; i < 16; i++) {
		struct rte_ether_addr m;

		mac_random_global(&m, &seed);
		e[i] = mac_entry(&m, 0x10 + i, 0);
	}
	assert_int_equal(vnic_vport_set_mac_entries(vp, 2032, 16, e, 0xABCD), 0);
	assert_true(vnic_forwarding(vnic_vport_policy(vp)));
	vnic_vport_take_events(vp);

	assert_int_equal(vnic_vport_reset(vp), 0);
	pol = vnic_vport_policy(vp);
	expected_defaults(&ev, &ep);
	assert_memory_equal(&pol->vesw, &ev, sizeof(ev));
	assert_memory_equal(&pol->port, &ep, sizeof(ep));
	assert_int_equal(pol->port.mac_tbl_digest, 0);
	assert_int_equal(pol->mac.nb_entries, 0);
	for (i = 0; i < 16; i++) {
		struct vnic_mac_entry empty;

		memset(&empty, 0, sizeof(empty));
		assert_int_equal(vnic_mac_tbl_lookup(&pol->mac, &e[i].mac), 0);
		assert_memory_equal(&pol->mac.ent[2032 + i], &empty, sizeof(empty));
		assert_int_equal(vnic_tx_dlid(pol, &e[i].mac, 0), 0);
	}
	assert_false(vnic_forwarding(pol));
	assert_int_equal(vnic_vport_index(vp), 9);
	evs = vnic_vport_take_events(vp);
	assert_true(evs & VNIC_EV_LINK_CHANGE);
	assert_true(evs & VNIC_EV_VESW_CHANGE);
	/* the carrier is the host's: configuring again forwards at once */
	assert_int_equal(vnic_vport_configure(vp, &v, &p), 0);
	assert_true(vnic_forwarding(vnic_vport_policy(vp)));
	assert_int_equal(vnic_mac_tbl_lookup(&vnic_vport_policy(vp)->mac, &e[0].mac), 0);
	/* a reset of a reset vport raises no link change */
	assert_int_equal(vnic_vport_reset(vp), 0);
	vnic_vport_take_events(vp);
	assert_int_equal(vnic_vport_reset(vp), 0);
	assert_int_equal(vnic_vport_take_events(vp) & VNIC_EV_LINK_CHANGE, 0);
	vnic_vport_free(vp);
}

/* ---------------------------------------------------------------------- */
/* 8. Validation */

/* The n-th invalid change of a valid configuration; NULL past the last. */
static const char *
invalid_change(unsigned int n, struct vnic_vesw_info *v, struct vnic_port_info *p)
{
	uint8_t *sc[2] = { p->pcp_to_sc_uc, p->pcp_to_sc_mc };
	uint8_t *vl[2] = { p->pcp_to_vl_uc, p->pcp_to_vl_mc };
	unsigned int k;

	switch (n) {
	case 0: v->vesw_id = 0; return "vesw_id 0";
	case 1: v->vesw_id = 4096; return "vesw_id 4096";
	case 2: v->vesw_id = 0xFFFF; return "vesw_id 0xffff";
	case 3: v->fabric_id = 0x400; return "fabric_id 0x400";
	case 4: v->fabric_id = 0xFFFF; return "fabric_id 0xffff";
	case 5: v->u_mcast_dlid = 0x1000000; return "u_mcast_dlid 2^24";
	case 6: v->u_mcast_dlid = 0xFFFFFFFF; return "u_mcast_dlid ~0";
	case 7: v->eth_mtu = 67; return "eth_mtu 67";
	case 8: v->eth_mtu = VNIC_ETH_MTU_MAX + 1; return "eth_mtu max + 1";
	case 9: v->eth_mtu = 0; return "eth_mtu 0";
	case 10: v->eth_mtu = 0xFFFF; return "eth_mtu 0xffff";
	case 11: p->config_state = 2; return "config_state 2";
	case 12: p->config_state = 0; return "config_state 0";
	case 13: p->config_state = 4; return "config_state 4";
	case 14: p->config_state = 0xFF; return "config_state 0xff";
	case 15:
		mac_set(&p->base_mac_addr, 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01);
		return "base MAC multicast";
	case 16:
		memset(&p->base_mac_addr, 0xff, sizeof(p->base_mac_addr));
		return "base MAC broadcast";
	case 17:
		mac_set(&p->base_mac_addr, 0x07, 0x2c, 0x00, 0x05, 0x00, 0x00);
		return "base MAC LMAC with I/G";
	case 18: p->encap_slid = 0x1000000; return "encap_slid 2^24";
	case 19: p->encap_slid = 0xFFFFFFFF; return "encap_slid ~0";
	default:
		break;
	}
	n -= 20;
	if (n < 16) {
		v->u_ucast_dlid[n] = 0x1000000;
		return "u_ucast_dlid[] 2^24";
	}
	n -= 16;
	for (k = 0; k < 32; k++) {
		if (RC_VALID_MASK & (1u << k))
			continue;
		if (n-- == 0) {
			v->rc |= 1u << k;
			return "rc reserved bit";
		}
	}
	/* 8 PCP rows x 2 tables + 2 non-VLAN values, SC then VL */
	if (n < 18) {
		if (n < 16)
			sc[n / 8][n % 8] = 32;
		else if (n == 16)
			p->non_vlan_sc_uc = 32;
		else
			p->non_vlan_sc_mc = 32;
		return "SC 32";
	}
	n -= 18;
	if (n < 18) {
		if (n < 16)
			vl[n / 8][n % 8] = 16;
		else if (n == 16)
			p->non_vlan_vl_uc = 16;
		else
			p->non_vlan_vl_mc = 16;
		return "VL 16";
	}
	n -= 18;
	if (n < 2) {
		if (n == 0)
			p->pcp_to_sc_uc[7] = 0xFF;
		else
			p->non_vlan_vl_mc = 0xFF;
		return "SC/VL 0xff";
	}
	return NULL;
}

/* Each invalid value is refused with -EINVAL and a reason; nothing changes. */
static void
test_configure_rejects_invalid(void **state)
{
	struct vnic_vesw_info v0, v;
	struct vnic_port_info p0, p;
	struct retire_log log = { .n = 0 };
	struct vnic_vport *vp = vnic_vport_create(0, retire_keep, &log);
	const struct vnic_policy *before;
	struct vnic_policy *copy;
	const char *what;
	unsigned int n, nb = 0;

	(void)state;
	assert_non_null(vp);
	base_config(&v0, &p0);
	v0.rc = 0x01234567 & RC_VALID_MASK;
	assert_int_equal(vnic_vport_configure(vp, &v0, &p0), 0);
	assert_int_equal(vnic_vport_set_carrier(vp, true), 0);
	vnic_vport_take_events(vp);
	retire_log_free(&log);
	before = vnic_vport_policy(vp);
	copy = policy_dup(before);
	for (n = 0;; n++) {
		const char *reason;

		v = v0;
		p = p0;
		what = invalid_change(n, &v, &p);
		if (what == NULL)
			break;
		nb++;
		reason = vnic_info_check_reason(&v, &p);
		if (reason == NULL)
			print_error("case %u (%s) accepted\n", n, what);
		assert_non_null(reason);
		assert_true(strlen(reason) > 0);
		CHECK_EQ(vnic_info_check(&v, &p), -EINVAL, "case %u (%s)", n, what);
		CHECK_EQ(vnic_vport_configure(vp, &v, &p), -EINVAL, "case %u (%s)", n, what);
		assert_ptr_equal(vnic_vport_policy(vp), before);
		assert_memory_equal(vnic_vport_policy(vp), copy, sizeof(*copy));
		CHECK_EQ(log.n, 0, "case %u (%s)", n, what);
		CHECK_EQ(vnic_vport_take_events(vp), 0, "case %u (%s)", n, what);
	}
	/* 20 scalar cases, 16 DLIDs, 11 reserved rc bits, 18 SC, 18 VL, 2 wide */
	assert_int_equal(nb, 20 + 16 + 11 + 18 + 18 + 2);
	assert_non_null(vnic_vport_policy(vp));
	free(copy);
	vnic_vport_free(vp);
	retire_log_free(&log);
}

/* The extremes of every range are accepted. */
static void
test_configure_accepts_boundaries(void **state)
{
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct vnic_vport *vp = vnic_vport_create(0, NULL, NULL);
	const struct vnic_policy *pol;
	unsigned int i;

	(void)state;
	assert_non_null(vp);
	base_config(&v, &p);
	v.vesw_id = 1;
	v.fabric_id = 0;
	v.u_mcast_dlid = 0;
	v.eth_mtu = 68;
	p.config_state = 1;
	p.encap_slid = 0;
	memset(&p.base_mac_addr, 0, sizeof(p.base_mac_addr));
	assert_null(vnic_info_check_reason(&v, &p));
	assert_int_equal(vnic_vport_configure(vp, &v, &p), 0);
	v.vesw_id = 4095;
	v.fabric_id = 0x3FF;
	v.u_mcast_dlid = LID24_MAX;
	for (i = 0; i < VNIC_UCAST_DLID_MAX; i++)
		v.u_ucast_dlid[i] = LID24_MAX;
	v.rc = RC_VALID_MASK;
	v.eth_mtu = VNIC_ETH_MTU_MAX;
	v.pkey = 0xFFFF;
	v.def_port_mask = 0xFFFF;
	p.config_state = 3;
	p.encap_slid = LID24_MAX;
	mac_set(&p.base_mac_addr, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff);
	memset(p.pcp_to_sc_uc, 31, sizeof(p.pcp_to_sc_uc));
	memset(p.pcp_to_vl_uc, 15, sizeof(p.pcp_to_vl_uc));
	memset(p.pcp_to_sc_mc, 31, sizeof(p.pcp_to_sc_mc));
	memset(p.pcp_to_vl_mc, 15, sizeof(p.pcp_to_vl_mc));
	p.non_vlan_sc_uc = 31;
	p.non_vlan_vl_uc = 15;
	p.non_vlan_sc_mc = 31;
	p.non_vlan_vl_mc = 15;
	assert_null(vnic_info_check_reason(&v, &p));
	assert_int_equal(vnic_info_check(&v, &p), 0);
	assert_int_equal(vnic_vport_configure(vp, &v, &p), 0);
	pol = vnic_vport_policy(vp);
	assert_memory_equal(&pol->vesw, &v, sizeof(v));
	assert_int_equal(pol->port.encap_slid, LID24_MAX);
	/* VNIC_ETH_MTU_MAX: a maximal frame (MTU + 18) fits the 11-bit Length */
	assert_int_equal(VNIC_ETH_MTU_MAX + 18 + 20 + 5, 2047 * 8);
	vnic_vport_free(vp);
}

/* ---------------------------------------------------------------------- */
/* 9. Interface MAC lists */

/* The gen count of a list in the current snapshot. */
static uint16_t
list_gen(const struct vnic_vport *vp, enum vnic_mac_list which)
{
	const struct vnic_policy *pol = vnic_vport_policy(vp);

	return which == VNIC_LIST_UCAST ? pol->port.uc_macs_gen_count :
		pol->port.mc_macs_gen_count;
}

/* Changes step the gen count and raise the event; the same list again does not. */
static void
test_iface_macs_gen_and_events(void **state)
{
	const struct {
		enum vnic_mac_list which;
		uint32_t event;
	} lists[] = {
		{ VNIC_LIST_UCAST, VNIC_EV_UCAST_MAC_CHANGE },
		{ VNIC_LIST_MCAST, VNIC_EV_MCAST_MAC_CHANGE },
	};
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct retire_log log = { .n = 0 };
	struct vnic_vport *vp = vnic_vport_create(0, retire_keep, &log);
	struct rte_ether_addr macs[4];
	const struct rte_ether_addr *got;
	uint64_t seed = 0x115;
	unsigned int l, i;
	uint16_t n;

	(void)state;
	assert_non_null(vp);
	base_config(&v, &p);
	assert_int_equal(vnic_vport_configure(vp, &v, &p), 0);
	vnic_vport_take_events(vp);
	retire_log_free(&log);
	for (l = 0; l < 2; l++) {
		enum vnic_mac_list which = lists[l].which;
		enum vnic_mac_list other = l == 0 ? VNIC_LIST_MCAST : VNIC_LIST_UCAST;
		uint16_t other_gen = list_gen(vp, other);

		for (i = 0; i < 4; i++) {
			mac_random_global(&macs[i], &seed);
			if (lists[l].which == VNIC_LIST_MCAST)
				macs[i].addr_bytes[0] |= 0x01;
		}
		assert_int_equal(list_gen(vp, which), 0);

		assert_int_equal(vnic_vport_set_iface_macs(vp, which, macs, 3), 1);
		assert_int_equal(vnic_vport_take_events(vp), lists[l].event);
		assert_int_equal(list_gen(vp, which), 1);
		assert_int_equal(list_gen(vp, other), other_gen);
		got = vnic_vport_iface_macs(vp, which, &n);
		assert_int_equal(n, 3);
		assert_memory_equal(got, macs, 3 * sizeof(macs[0]));
		retire_log_free(&log);

		/* the same list again: 0, no step, no event, no new snapshot */
		assert_int_equal(vnic_vport_set_iface_macs(vp, which, macs, 3), 0);
		assert_int_equal(vnic_vport_take_events(vp), 0);
		assert_int_equal(log.n, 0);
		assert_int_equal(list_gen(vp, which), 1);

		/* another order is another list */
		assert_int_equal(vnic_vport_set_iface_macs(vp, which, macs + 1, 3), 1);
		assert_int_equal(vnic_vport_take_events(vp), lists[l].event);
		assert_int_equal(list_gen(vp, which), 2);

		/* emptying it is a change; emptying it again is not */
		assert_int_equal(vnic_vport_set_iface_macs(vp, which, NULL, 0), 1);
		assert_int_equal(vnic_vport_take_events(vp), lists[l].event);
		got = vnic_vport_iface_macs(vp, which, &n);
		assert_int_equal(n, 0);
		assert_int_equal(vnic_vport_set_iface_macs(vp, which, NULL, 0), 0);
		assert_int_equal(vnic_vport_take_events(vp), 0);
		assert_int_equal(list_gen(vp, which), 3);
		retire_log_free(&log);
	}
	vnic_vport_free(vp);
	retire_log_free(&log);
}

/* The base MAC is left out of the unicast list; lists over VNIC_IFACE_MACS_MAX are refused. */
static void
test_iface_macs_stored_and_limit(void **state)
{
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct vnic_vport *vp = vnic_vport_create(0, NULL, NULL);
	struct rte_ether_addr *macs = calloc(VNIC_IFACE_MACS_MAX + 1, sizeof(*macs));
	struct rte_ether_addr ab[2];
	const struct rte_ether_addr *got;
	const struct vnic_policy *before;
	uint64_t seed = 0xba5e;
	unsigned int i;
	uint16_t n;

	(void)state;
	assert_non_null(vp);
	assert_non_null(macs);
	base_config(&v, &p);
	assert_int_equal(vnic_vport_configure(vp, &v, &p), 0);
	vnic_vport_take_events(vp);
	/* stored as the host gives it (the agent leaves the base MAC out when
	 * it reports, against the base MAC of that moment)
	 */
	macs[0] = p.base_mac_addr;
	mac_random_global(&macs[1], &seed);
	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_UCAST, macs, 2), 1);
	got = vnic_vport_iface_macs(vp, VNIC_LIST_UCAST, &n);
	assert_int_equal(n, 2);
	assert_memory_equal(got, macs, 2 * sizeof(macs[0]));
	assert_int_equal(vnic_vport_policy(vp)->port.uc_macs_gen_count, 1);
	assert_int_equal(vnic_vport_take_events(vp), VNIC_EV_UCAST_MAC_CHANGE);
	/* the same list again: no change, no event */
	ab[0] = macs[0];
	ab[1] = macs[1];
	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_UCAST, ab, 2), 0);
	assert_int_equal(vnic_vport_take_events(vp), 0);
	assert_int_equal(vnic_vport_policy(vp)->port.uc_macs_gen_count, 1);
	/* empty */
	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_UCAST, NULL, 0), 1);
	got = vnic_vport_iface_macs(vp, VNIC_LIST_UCAST, &n);
	assert_int_equal(n, 0);
	vnic_vport_take_events(vp);

	/* the limit: VNIC_IFACE_MACS_MAX is accepted, one more refused */
	for (i = 0; i < VNIC_IFACE_MACS_MAX + 1; i++) {
		mac_random_global(&macs[i], &seed);
		macs[i].addr_bytes[0] |= 0x01;
	}
	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_MCAST, macs,
						   VNIC_IFACE_MACS_MAX), 1);
	got = vnic_vport_iface_macs(vp, VNIC_LIST_MCAST, &n);
	assert_int_equal(n, VNIC_IFACE_MACS_MAX);
	assert_memory_equal(got, macs, VNIC_IFACE_MACS_MAX * sizeof(macs[0]));
	vnic_vport_take_events(vp);
	before = vnic_vport_policy(vp);
	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_MCAST, macs + 1,
						   VNIC_IFACE_MACS_MAX + 1), -EINVAL);
	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_UCAST, macs,
						   VNIC_IFACE_MACS_MAX + 1), -EINVAL);
	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_UCAST, macs, 0xFFFF), -EINVAL);
	assert_ptr_equal(vnic_vport_policy(vp), before);
	assert_int_equal(vnic_vport_take_events(vp), 0);
	got = vnic_vport_iface_macs(vp, VNIC_LIST_MCAST, &n);
	assert_int_equal(n, VNIC_IFACE_MACS_MAX);
	assert_memory_equal(got, macs, VNIC_IFACE_MACS_MAX * sizeof(macs[0]));
	vnic_vport_iface_macs(vp, VNIC_LIST_UCAST, &n);
	assert_int_equal(n, 0);
	free(macs);
	vnic_vport_free(vp);
}

/* ---------------------------------------------------------------------- */
/* 10. Counters */

/* Size buckets: 64 up to 60 bytes, then 61/124/252/508/1020/1515 (thresholds shifted by FCS). */
static void
test_size_bucket_boundaries(void **state)
{
	const struct { uint32_t len; unsigned int bucket; } vec[] = {
		{ 0, VNIC_SIZE_64 }, { 14, VNIC_SIZE_64 }, { 60, VNIC_SIZE_64 },
		{ 61, VNIC_SIZE_65_127 }, { 123, VNIC_SIZE_65_127 },
		{ 124, VNIC_SIZE_128_255 }, { 251, VNIC_SIZE_128_255 },
		{ 252, VNIC_SIZE_256_511 }, { 507, VNIC_SIZE_256_511 },
		{ 508, VNIC_SIZE_512_1023 }, { 1019, VNIC_SIZE_512_1023 },
		{ 1020, VNIC_SIZE_1024_1518 }, { 1514, VNIC_SIZE_1024_1518 },
		{ 1515, VNIC_SIZE_1519_MAX }, { 9000, VNIC_SIZE_1519_MAX },
		{ 16351, VNIC_SIZE_1519_MAX }, { UINT32_MAX, VNIC_SIZE_1519_MAX },
	};
	uint32_t len;
	unsigned int i;

	(void)state;
	assert_int_equal(VNIC_SIZE_BUCKETS, 7);
	for (i = 0; i < ARRAY_LEN(vec); i++) {
		CHECK_EQ(vnic_size_bucket(vec[i].len), vec[i].bucket, "len %u", vec[i].len);
		CHECK_EQ(model_bucket(vec[i].len), vec[i].bucket, "model len %u", vec[i].len);
	}
	for (len = 0; len <= 17000; len++)
		CHECK_EQ(vnic_size_bucket(len), model_bucket(len), "len %u", len);
}

/* Per-queue counting: bytes include 4 FCS per frame; classes and sizes per frame. */
static void
test_queue_count_rules(void **state)
{
	struct vnic_txq_stats tq;
	struct vnic_rxq_stats rq;
	uint64_t seed = 0xc0c0, bytes = 0, uc = 0, mc = 0, vlan = 0, untagged = 0;
	uint64_t size[VNIC_SIZE_BUCKETS] = { 0 };
	unsigned int i;

	(void)state;
	memset(&tq, 0, sizeof(tq));
	memset(&rq, 0, sizeof(rq));
	for (i = 0; i < 5000; i++) {
		struct vnic_frame_class cls;
		uint32_t len = 14 + (uint32_t)(test_rand(&seed) % 9100);

		memset(&cls, 0, sizeof(cls));
		cls.mcast = (i % 3) == 0;
		cls.vlan = (i % 5) < 2;
		cls.pcp = cls.vlan ? (uint8_t)(i & 7) : 0;
		cls.rc_shift = RC_SHIFT_IPV4_TCP;
		vnic_txq_count(&tq, &cls, len);
		vnic_rxq_count(&rq, &cls, len);
		bytes += len + 4;
		uc += !cls.mcast;
		mc += cls.mcast;
		vlan += cls.vlan;
		untagged += !cls.vlan;
		size[model_bucket(len)]++;
	}
	assert_int_equal(tq.packets, 5000);
	assert_int_equal(tq.bytes, bytes);
	assert_int_equal(tq.grp.unicast, uc);
	assert_int_equal(tq.grp.mcastbcast, mc);
	assert_int_equal(tq.grp.vlan, vlan);
	assert_int_equal(tq.grp.untagged, untagged);
	for (i = 0; i < VNIC_SIZE_BUCKETS; i++)
		CHECK_EQ(tq.grp.size[i], size[i], "tx bucket %u", i);
	assert_int_equal(rq.packets, 5000);
	assert_int_equal(rq.bytes, bytes);
	assert_memory_equal(&rq.grp, &tq.grp, sizeof(tq.grp));
	/* no drop counter moves when counting good frames */
	assert_int_equal(tq.dlid_zero + tq.drop_state + tq.fifo + tq.carrier, 0);
	assert_int_equal(rq.drop_state + rq.runt + rq.oversize + rq.fifo + rq.bad_veswid, 0);
	/* one 60-byte frame: 64 bytes, the 64 bucket */
	memset(&tq, 0, sizeof(tq));
	{
		struct vnic_frame_class cls = { .mcast = 1, .vlan = 0, .pcp = 0, .rc_shift = 0 };

		vnic_txq_count(&tq, &cls, 60);
	}
	assert_int_equal(tq.bytes, 64);
	assert_int_equal(tq.grp.size[VNIC_SIZE_64], 1);
	assert_int_equal(tq.grp.mcastbcast, 1);
	assert_int_equal(tq.grp.untagged, 1);
}

/* Random per-queue counters of one vport, and their expected EM view. */
struct stats_fixture {
	struct vnic_txq_stats txq[4];
	struct vnic_rxq_stats rxq[3];
	struct vnic_counters want;
};

static void
stats_fixture_fill(struct stats_fixture *sf, uint64_t seed)
{
	struct vnic_counters *w = &sf->want;
	uint64_t tx_fifo = 0, tx_carrier = 0, rx_fifo = 0;
	unsigned int q, i;

	memset(sf, 0, sizeof(*sf));
#define R() (test_rand(&seed) >> 24)
	for (q = 0; q < ARRAY_LEN(sf->txq); q++) {
		struct vnic_txq_stats *t = &sf->txq[q];

		t->packets = R();
		t->bytes = R();
		t->grp.unicast = R();
		t->grp.mcastbcast = R();
		t->grp.untagged = R();
		t->grp.vlan = R();
		for (i = 0; i < VNIC_SIZE_BUCKETS; i++)
			t->grp.size[i] = R();
		t->dlid_zero = R();
		t->drop_state = R();
		t->fifo = R();
		t->carrier = R();
		t->oversize = R();
		w->tx_packets += t->packets;
		w->tx_bytes += t->bytes;
		w->tx.unicast += t->grp.unicast;
		w->tx.mcastbcast += t->grp.mcastbcast;
		w->tx.untagged += t->grp.untagged;
		w->tx.vlan += t->grp.vlan;
		for (i = 0; i < VNIC_SIZE_BUCKETS; i++)
			w->tx.size[i] += t->grp.size[i];
		w->tx_dlid_zero += t->dlid_zero;
		w->tx_drop_state += t->drop_state;
		w->tx_oversize += t->oversize;
		tx_fifo += t->fifo;
		tx_carrier += t->carrier;
	}
	for (q = 0; q < ARRAY_LEN(sf->rxq); q++) {
		struct vnic_rxq_stats *r = &sf->rxq[q];

		r->packets = R();
		r->bytes = R();
		r->grp.unicast = R();
		r->grp.mcastbcast = R();
		r->grp.untagged = R();
		r->grp.vlan = R();
		for (i = 0; i < VNIC_SIZE_BUCKETS; i++)
			r->grp.size[i] = R();
		r->drop_state = R();
		r->runt = R();
		r->oversize = R();
		r->fifo = R();
		r->bad_veswid = R();
		w->rx_packets += r->packets;
		w->rx_bytes += r->bytes;
		w->rx.unicast += r->grp.unicast;
		w->rx.mcastbcast += r->grp.mcastbcast;
		w->rx.untagged += r->grp.untagged;
		w->rx.vlan += r->grp.vlan;
		for (i = 0; i < VNIC_SIZE_BUCKETS; i++)
			w->rx.size[i] += r->grp.size[i];
		w->rx_drop_state += r->drop_state;
		w->rx_runt += r->runt;
		w->rx_oversize += r->oversize;
		w->rx_bad_veswid += r->bad_veswid;
		rx_fifo += r->fifo;
	}
#undef R
	/* facts 2.7 derived totals */
	w->tx_errors = tx_fifo + tx_carrier + w->tx_drop_state + w->tx_dlid_zero +
		w->tx_oversize;
	w->rx_errors = rx_fifo + w->rx_bad_veswid + w->rx_drop_state + w->rx_oversize +
		w->rx_runt;
	w->tx_logic = tx_fifo + tx_carrier;
	w->rx_logic = rx_fifo;
	w->tx_smac_filt = 0;
	w->rx_eth_down = 0;
}

static void
check_counters(const struct vnic_counters *got, const struct vnic_counters *w)
{
	assert_int_equal(got->tx_errors, w->tx_errors);
	assert_int_equal(got->rx_errors, w->rx_errors);
	assert_int_equal(got->tx_packets, w->tx_packets);
	assert_int_equal(got->rx_packets, w->rx_packets);
	assert_int_equal(got->tx_bytes, w->tx_bytes);
	assert_int_equal(got->rx_bytes, w->rx_bytes);
	assert_memory_equal(&got->tx, &w->tx, sizeof(w->tx));
	assert_memory_equal(&got->rx, &w->rx, sizeof(w->rx));
	assert_int_equal(got->tx_smac_filt, 0);
	assert_int_equal(got->tx_dlid_zero, w->tx_dlid_zero);
	assert_int_equal(got->tx_logic, w->tx_logic);
	assert_int_equal(got->tx_drop_state, w->tx_drop_state);
	assert_int_equal(got->tx_oversize, w->tx_oversize);
	assert_int_equal(got->rx_bad_veswid, w->rx_bad_veswid);
	assert_int_equal(got->rx_runt, w->rx_runt);
	assert_int_equal(got->rx_oversize, w->rx_oversize);
	assert_int_equal(got->rx_eth_down, 0);
	assert_int_equal(got->rx_drop_state, w->rx_drop_state);
	assert_int_equal(got->rx_logic, w->rx_logic);
	assert_memory_equal(got, w, sizeof(*w));
}

/* vnic_stats_sum adds the queues and derives tx/rx_errors and tx/rx_logic as the facts say. */
static void
test_stats_sum_derived_totals(void **state)
{
	struct stats_fixture *sf = calloc(1, sizeof(*sf));
	struct vnic_counters out, zero;
	unsigned int k;

	(void)state;
	assert_non_null(sf);
	memset(&zero, 0, sizeof(zero));
	for (k = 0; k < 20; k++) {
		stats_fixture_fill(sf, 0x5000 + k);
		memset(&out, 0xA5, sizeof(out));
		vnic_stats_sum(sf->txq, ARRAY_LEN(sf->txq), sf->rxq, ARRAY_LEN(sf->rxq), &out);
		check_counters(&out, &sf->want);
	}
	/* a hand-checked case: one queue each */
	memset(sf, 0, sizeof(*sf));
	sf->txq[0].fifo = 1;
	sf->txq[0].carrier = 2;
	sf->txq[0].drop_state = 4;
	sf->txq[0].dlid_zero = 8;
	sf->rxq[0].fifo = 1;
	sf->rxq[0].bad_veswid = 2;
	sf->rxq[0].drop_state = 4;
	sf->rxq[0].oversize = 8;
	sf->rxq[0].runt = 16;
	vnic_stats_sum(sf->txq, 1, sf->rxq, 1, &out);
	assert_int_equal(out.tx_errors, 15);
	assert_int_equal(out.rx_errors, 31);
	assert_int_equal(out.tx_logic, 3);
	assert_int_equal(out.rx_logic, 1);
	assert_int_equal(out.tx_packets + out.rx_packets + out.tx_bytes + out.rx_bytes, 0);
	/* no queues: all zero, whatever was in out */
	memset(&out, 0xA5, sizeof(out));
	vnic_stats_sum(NULL, 0, NULL, 0, &out);
	assert_memory_equal(&out, &zero, sizeof(zero));
	free(sf);
}

/* vnic_vport_counters sums the attached queues (read live); nothing attached is all zero. */
static void
test_vport_counters_attached(void **state)
{
	struct stats_fixture *sf = calloc(1, sizeof(*sf));
	struct vnic_vport *vp = vnic_vport_create(0, NULL, NULL);
	struct vnic_counters out, zero;
	struct vnic_frame_class cls = { .mcast = 0, .vlan = 1, .pcp = 3, .rc_shift = 0 };

	(void)state;
	assert_non_null(sf);
	assert_non_null(vp);
	memset(&zero, 0, sizeof(zero));
	memset(&out, 0xA5, sizeof(out));
	vnic_vport_counters(vp, &out);
	assert_memory_equal(&out, &zero, sizeof(zero));
	stats_fixture_fill(sf, 0x77);
	vnic_vport_attach_stats(vp, sf->txq, ARRAY_LEN(sf->txq), sf->rxq, ARRAY_LEN(sf->rxq));
	vnic_vport_counters(vp, &out);
	check_counters(&out, &sf->want);
	/* counting into an attached queue shows at the next read */
	vnic_txq_count(&sf->txq[2], &cls, 100);
	sf->want.tx_packets++;
	sf->want.tx_bytes += 104;
	sf->want.tx.unicast++;
	sf->want.tx.vlan++;
	sf->want.tx.size[VNIC_SIZE_65_127]++;
	sf->rxq[1].runt++;
	sf->want.rx_runt++;
	sf->want.rx_errors++;
	vnic_vport_counters(vp, &out);
	check_counters(&out, &sf->want);
	/* only tx attached */
	vnic_vport_attach_stats(vp, sf->txq, 1, NULL, 5);
	vnic_vport_counters(vp, &out);
	assert_int_equal(out.tx_packets, sf->txq[0].packets);
	assert_int_equal(out.rx_packets, 0);
	assert_int_equal(out.rx_errors, 0);
	/* detached */
	vnic_vport_attach_stats(vp, NULL, 0, NULL, 0);
	vnic_vport_counters(vp, &out);
	assert_memory_equal(&out, &zero, sizeof(zero));
	vnic_vport_free(vp);
	free(sf);
}

/* ---------------------------------------------------------------------- */
/* 11. Snapshots */

/* Every change publishes a new snapshot and hands the old one to the retire callback. */
static void
test_retire_gets_old_policy(void **state)
{
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct retire_log log = { .n = 0 };
	struct vnic_vport *vp = vnic_vport_create(1, retire_keep, &log);
	struct rte_ether_addr m;
	struct vnic_mac_entry e;
	unsigned int step;

	(void)state;
	assert_non_null(vp);
	base_config(&v, &p);
	mac_set(&m, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55);
	e = mac_entry(&m, 0x10, 0);
	for (step = 0; step < 9; step++) {
		const struct vnic_policy *old = vnic_vport_policy(vp);
		int rc = -1;

		switch (step) {
		case 0: rc = vnic_vport_configure(vp, &v, &p); break;
		case 1: rc = vnic_vport_set_mac_entries(vp, 0, 1, &e, 1); break;
		case 2: rc = vnic_vport_set_carrier(vp, true); break;
		case 3: rc = vnic_vport_set_iface_macs(vp, VNIC_LIST_UCAST, &m, 1); break;
		case 4: rc = vnic_vport_set_iface_macs(vp, VNIC_LIST_MCAST, &m, 1); break;
		case 5: rc = vnic_vport_set_carrier(vp, false); break;
		case 6: rc = vnic_vport_reset(vp); break;
		case 7: rc = vnic_vport_set_mac_entries(vp, 0, 0, NULL, 2); break;
		default: rc = vnic_vport_configure(vp, &v, &p); break;
		}
		CHECK_EQ(rc >= 0, 1, "step %u", step);
		CHECK_EQ(log.n, step + 1, "step %u", step);
		assert_ptr_equal(log.old[step], old);
		assert_ptr_not_equal(vnic_vport_policy(vp), old);
	}
	/* no change, no new snapshot */
	assert_int_equal(vnic_vport_set_carrier(vp, false), 0);
	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_UCAST, &m, 1), 0);
	v.vesw_id = 0;
	assert_int_equal(vnic_vport_configure(vp, &v, &p), -EINVAL);
	assert_int_equal(vnic_vport_set_mac_entries(vp, 2048, 1, &e, 0), -EINVAL);
	assert_int_equal(log.n, 9);
	/* free() keeps only the current snapshot; the retired are the callback's */
	vnic_vport_free(vp);
	retire_log_free(&log);
}

/* A snapshot taken before a change stays as it was (copy-on-write). */
static void
test_snapshot_copy_on_write(void **state)
{
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct retire_log log = { .n = 0 };
	struct vnic_vport *vp = vnic_vport_create(1, retire_keep, &log);
	const struct vnic_policy *snap[6];
	struct vnic_policy *copy[6];
	struct rte_ether_addr m;
	struct vnic_mac_entry e;
	unsigned int i;

	(void)state;
	assert_non_null(vp);
	base_config(&v, &p);
	mac_set(&m, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55);
	e = mac_entry(&m, 0x10, 0);
	for (i = 0; i < 6; i++) {
		snap[i] = vnic_vport_policy(vp);
		copy[i] = policy_dup(snap[i]);
		switch (i) {
		case 0: assert_int_equal(vnic_vport_configure(vp, &v, &p), 0); break;
		case 1: assert_int_equal(vnic_vport_set_mac_entries(vp, 5, 1, &e, 9), 0); break;
		case 2: assert_int_equal(vnic_vport_set_carrier(vp, true), 0); break;
		case 3:
			assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_UCAST, &m, 1), 1);
			break;
		case 4: assert_int_equal(vnic_vport_reset(vp), 0); break;
		default: assert_int_equal(vnic_vport_configure(vp, &v, &p), 0); break;
		}
	}
	/* every old snapshot still holds what it held */
	for (i = 0; i < 6; i++)
		assert_memory_equal(snap[i], copy[i], sizeof(*copy[i]));
	/* in particular the MAC table snapshot before the SET lacks the entry */
	assert_int_equal(vnic_mac_tbl_lookup(&snap[1]->mac, &m), 0);
	assert_int_equal(vnic_mac_tbl_lookup(&snap[2]->mac, &m), 0x10);
	assert_int_equal(snap[2]->port.oper_state, 1);
	assert_int_equal(snap[3]->port.oper_state, 3);
	assert_int_equal(snap[3]->port.uc_macs_gen_count, 0);
	assert_int_equal(snap[4]->port.uc_macs_gen_count, 1);
	assert_int_equal(snap[5]->vesw.vesw_id, 0);
	assert_int_equal(snap[5]->mac.nb_entries, 0);
	for (i = 0; i < 6; i++)
		free(copy[i]);
	vnic_vport_free(vp);
	retire_log_free(&log);
}


/* A vport not forwarding drops every frame it is given, TX and RX, counted
 * as drop_state only; once forwarding, TX drops a frame without DLID as
 * dlid_zero and one over MTU + 18 as oversize, and RX drops runts (< 60) and frames over MTU + 18 as runt and
 * oversize, and every other frame counts as good with its FCS.
 */
static void
test_tx_rx_frame_verdicts_and_counters(void **state)
{
	struct vnic_vport *vp = vnic_vport_create(0, NULL, NULL);
	struct vnic_vesw_info vesw;
	struct vnic_port_info port;
	struct opa16b_vnic_fields f;
	struct vnic_txq_stats tq;
	struct vnic_rxq_stats rq;
	uint8_t frame[1600];
	const struct vnic_policy *p;

	(void)state;
	assert_non_null(vp);
	memset(&tq, 0, sizeof(tq));
	memset(&rq, 0, sizeof(rq));
	memset(frame, 0, sizeof(frame));
	memset(frame, 0xFF, 6); /* broadcast */
	vnic_info_defaults(&vesw, &port);
	vesw.vesw_id = 7;
	vesw.eth_mtu = 1500;
	vesw.u_mcast_dlid = 0xF00001;
	port.config_state = VNIC_STATE_FORWARDING;
	port.encap_slid = 9;
	assert_int_equal(vnic_vport_configure(vp, &vesw, &port), 0);

	/* configured forwarding, but no carrier: oper DROP_ALL */
	p = vnic_vport_policy(vp);
	assert_false(vnic_tx_frame(p, &tq, frame, 60, 0, &f, NULL));
	assert_false(vnic_rx_frame(p, &rq, frame, 60));
	assert_int_equal(tq.drop_state, 1);
	assert_int_equal(rq.drop_state, 1);
	assert_int_equal(tq.packets + tq.bytes + rq.packets + rq.bytes, 0);

	assert_int_equal(vnic_vport_set_carrier(vp, true), 0);
	p = vnic_vport_policy(vp);
	assert_true(vnic_tx_frame(p, &tq, frame, 60, 0, &f, NULL));
	assert_int_equal(f.dlid, 0xF00001);
	assert_int_equal(f.slid, 9);
	assert_int_equal(f.vesw_id, 7);
	/* global unicast with no default ports: no DLID */
	memset(frame, 0, 6);
	frame[5] = 1;
	assert_false(vnic_tx_frame(p, &tq, frame, 100, 0, &f, NULL));
	assert_int_equal(tq.dlid_zero, 1);
	assert_int_equal(tq.packets, 1);
	assert_int_equal(tq.bytes, 64);
	/* TX over MTU + 18 is dropped as oversize before any DLID decision;
	 * MTU + 18 itself goes (broadcast, so it has a DLID)
	 */
	memset(frame, 0xFF, 6);
	assert_false(vnic_tx_frame(p, &tq, frame, 1519, 0, &f, NULL));
	assert_int_equal(tq.oversize, 1);
	assert_true(vnic_tx_frame(p, &tq, frame, 1518, 0, &f, NULL));
	assert_int_equal(tq.packets, 2);
	assert_int_equal(tq.dlid_zero, 1);
	memset(frame, 0, 6);
	frame[5] = 1;

	assert_false(vnic_rx_frame(p, &rq, frame, 59));
	assert_int_equal(rq.runt, 1);
	assert_true(vnic_rx_frame(p, &rq, frame, 60));
	assert_true(vnic_rx_frame(p, &rq, frame, 1518));
	assert_false(vnic_rx_frame(p, &rq, frame, 1519));
	assert_int_equal(rq.oversize, 1);
	assert_int_equal(rq.packets, 2);
	assert_int_equal(rq.bytes, 64 + 1522);
	assert_int_equal(rq.grp.unicast, 2);
	assert_int_equal(rq.grp.size[VNIC_SIZE_64], 1);
	assert_int_equal(rq.grp.size[VNIC_SIZE_1519_MAX], 1);
	assert_int_equal(rq.drop_state, 1);
	vnic_vport_free(vp);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_power_on_defaults),
		cmocka_unit_test(test_oper_state_and_link),
		cmocka_unit_test(test_events_on_change),
		cmocka_unit_test(test_configure_ignores_read_only),
		cmocka_unit_test(test_reset_returns_to_defaults),
		cmocka_unit_test(test_configure_rejects_invalid),
		cmocka_unit_test(test_configure_accepts_boundaries),
		cmocka_unit_test(test_iface_macs_gen_and_events),
		cmocka_unit_test(test_iface_macs_stored_and_limit),
		cmocka_unit_test(test_size_bucket_boundaries),
		cmocka_unit_test(test_queue_count_rules),
		cmocka_unit_test(test_stats_sum_derived_totals),
		cmocka_unit_test(test_vport_counters_attached),
		cmocka_unit_test(test_retire_gets_old_policy),
		cmocka_unit_test(test_snapshot_copy_on_write),
		cmocka_unit_test(test_tx_rx_frame_verdicts_and_counters),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests_name("vnic_vport", tests, NULL, NULL);
}
