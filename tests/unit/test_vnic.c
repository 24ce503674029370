/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* lib/vnic without EAL: the per-packet decisions (DLID, MAC table, SC/VL,
 * RC, entropy and flow hash, all fields), each against its rule. */

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
/* ---------------------------------------------------------------------- */
/* 1. DLID */

/* Rule 1: a MAC-table hit wins over the multicast, LMAC and default-port rules. */
static void
test_dlid_mac_table_hit_wins(void **state)
{
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct vnic_vport *vp = vport_configured(&v, &p);
	struct rte_ether_addr m[4];
	struct vnic_mac_entry e[4];
	const uint32_t dlid[4] = { 0x10, 0x20, 0xABCDEF, LID24_MAX };
	unsigned int i, ent;

	(void)state;
	mac_set(&m[0], 0x00, 0x11, 0x22, 0x33, 0x44, 0x55); /* global unicast */
	mac_set(&m[1], 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01); /* multicast */
	mac_set(&m[2], 0x06, 0x2c, 0x00, 0x05, 0x00, 0x00); /* LMAC, LID 5 */
	mac_set(&m[3], 0xff, 0xff, 0xff, 0xff, 0xff, 0xff); /* broadcast */
	for (i = 0; i < 4; i++)
		e[i] = mac_entry(&m[i], dlid[i], 0);
	assert_int_equal(vnic_vport_set_mac_entries(vp, 100, 4, e, 1), 0);
	for (i = 0; i < 4; i++) {
		assert_int_equal(vnic_mac_tbl_lookup(&vnic_vport_policy(vp)->mac, &m[i]),
				 dlid[i]);
		for (ent = 0; ent < 256; ent += 17)
			CHECK_EQ(vnic_tx_dlid(vnic_vport_policy(vp), &m[i], ent), dlid[i],
				 "mac %u entropy %u", i, ent);
	}
	vnic_vport_free(vp);
}

/* Rule 1: entries with dlid_sd bit 5 (source-MAC) are skipped by the lookup. */
static void
test_dlid_smac_entry_skipped(void **state)
{
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct vnic_vport *vp = vport_configured(&v, &p);
	struct rte_ether_addr g, lm, mc;
	struct vnic_mac_entry e[4];
	const struct vnic_policy *pol;
	unsigned int ent;

	(void)state;
	mac_set(&g, 0x00, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e);
	mac_set(&lm, 0x06, 0x2c, 0x00, 0x34, 0x12, 0x00);
	mac_set(&mc, 0x33, 0x33, 0x00, 0x00, 0x00, 0x01);
	e[0] = mac_entry(&g, 0x777, VNIC_DLID_SD_SMAC);
	e[1] = mac_entry(&lm, 0x888, VNIC_DLID_SD_SMAC);
	e[2] = mac_entry(&mc, 0x999, VNIC_DLID_SD_SMAC);
	assert_int_equal(vnic_vport_set_mac_entries(vp, 0, 3, e, 2), 0);
	pol = vnic_vport_policy(vp);
	assert_int_equal(vnic_mac_tbl_lookup(&pol->mac, &g), 0);
	assert_int_equal(vnic_mac_tbl_lookup(&pol->mac, &lm), 0);
	assert_int_equal(vnic_mac_tbl_lookup(&pol->mac, &mc), 0);
	for (ent = 0; ent < 256; ent++) {
		CHECK_EQ(vnic_tx_dlid(pol, &g, ent), model_default_dlid(&v, ent),
			 "entropy %u", ent);
		CHECK_EQ(vnic_tx_dlid(pol, &lm, ent), 0x1234, "entropy %u", ent);
		CHECK_EQ(vnic_tx_dlid(pol, &mc, ent), v.u_mcast_dlid, "entropy %u", ent);
	}
	/* a destination entry for the same MAC at a higher index is found */
	e[3] = mac_entry(&g, 0x4321, 0);
	assert_int_equal(vnic_vport_set_mac_entries(vp, 50, 1, &e[3], 3), 0);
	pol = vnic_vport_policy(vp);
	assert_int_equal(vnic_mac_tbl_lookup(&pol->mac, &g), 0x4321);
	assert_int_equal(vnic_tx_dlid(pol, &g, 0), 0x4321);
	/* other dlid_sd flag bits do not make an entry a source-MAC entry */
	e[3] = mac_entry(&lm, 0x5151, 0x1F);
	assert_int_equal(vnic_vport_set_mac_entries(vp, 51, 1, &e[3], 3), 0);
	assert_int_equal(vnic_tx_dlid(vnic_vport_policy(vp), &lm, 0), 0x5151);
	vnic_vport_free(vp);
}

/* Rule 1: a hit whose DLID is 0 falls through to rules 2-4. */
static void
test_dlid_zero_entry_falls_through(void **state)
{
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct vnic_vport *vp = vport_configured(&v, &p);
	struct rte_ether_addr m[3];
	struct vnic_mac_entry e[3];
	const struct vnic_policy *pol;
	unsigned int i, ent;

	(void)state;
	mac_set(&m[0], 0x00, 0x01, 0x02, 0x03, 0x04, 0x05);
	mac_set(&m[1], 0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e);
	mac_set(&m[2], 0x02, 0x00, 0x00, 0x56, 0x34, 0x12);
	for (i = 0; i < 3; i++)
		e[i] = mac_entry(&m[i], 0, 0);
	assert_int_equal(vnic_vport_set_mac_entries(vp, 7, 3, e, 0), 0);
	pol = vnic_vport_policy(vp);
	for (i = 0; i < 3; i++) {
		assert_int_equal(vnic_mac_tbl_lookup(&pol->mac, &m[i]), 0);
		for (ent = 0; ent < 256; ent++)
			CHECK_EQ(vnic_tx_dlid(pol, &m[i], ent), model_dlid_no_hit(&v, &m[i], ent),
				 "mac %u entropy %u", i, ent);
	}
	assert_int_equal(vnic_tx_dlid(pol, &m[1], 0), 0xF00001);
	assert_int_equal(vnic_tx_dlid(pol, &m[2], 0), 0x123456);
	vnic_vport_free(vp);
}

/* Rule 2: multicast and broadcast destinations take u_mcast_dlid. */
static void
test_dlid_multicast_broadcast(void **state)
{
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct vnic_vport *vp = vport_configured(&v, &p);
	struct rte_ether_addr m;
	uint64_t seed = 0x3c3c;
	unsigned int i;

	(void)state;
	mac_set(&m, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff);
	assert_int_equal(vnic_tx_dlid(vnic_vport_policy(vp), &m, 0x5a), 0xF00001);
	mac_set(&m, 0x01, 0x00, 0x5e, 0x7f, 0xff, 0xfa);
	assert_int_equal(vnic_tx_dlid(vnic_vport_policy(vp), &m, 0), 0xF00001);
	mac_set(&m, 0x33, 0x33, 0xff, 0x00, 0x00, 0x01);
	assert_int_equal(vnic_tx_dlid(vnic_vport_policy(vp), &m, 0xff), 0xF00001);
	/* I/G wins over U/L: a locally administered multicast is multicast */
	mac_set(&m, 0x03, 0x00, 0x00, 0x05, 0x00, 0x00);
	assert_int_equal(vnic_tx_dlid(vnic_vport_policy(vp), &m, 1), 0xF00001);
	for (i = 0; i < 1000; i++) {
		mac_random(&m, &seed);
		m.addr_bytes[0] |= 0x01;
		CHECK_EQ(vnic_tx_dlid(vnic_vport_policy(vp), &m, i & 0xFF), 0xF00001, "i %u", i);
	}
	/* another u_mcast_dlid is followed */
	v.u_mcast_dlid = LID24_MAX;
	assert_int_equal(vnic_vport_configure(vp, &v, &p), 0);
	mac_set(&m, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff);
	assert_int_equal(vnic_tx_dlid(vnic_vport_policy(vp), &m, 0), LID24_MAX);
	vnic_vport_free(vp);
}

/* Rule 3: locally administered unicast gives the LID of bytes 3..5 (LE), TV5 included. */
static void
test_dlid_lmac_lid(void **state)
{
	const uint8_t tv5[6] = { 0x06, 0x2c, 0x00, 0x05, 0x00, 0x00 };
	struct opa16b_lmac a = { .fabric_id = 0x301, .vesw_id = 2, .lid = 5 };
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct vnic_vport *vp = vport_configured(&v, &p);
	const struct vnic_policy *pol = vnic_vport_policy(vp);
	struct rte_ether_addr m;
	uint64_t seed = 0x1a1a;
	unsigned int i;

	(void)state;
	opa16b_lmac_build(&a, &m);
	assert_memory_equal(m.addr_bytes, tv5, 6);
	for (i = 0; i < 256; i++)
		CHECK_EQ(vnic_tx_dlid(pol, &m, i), 5, "entropy %u", i);
	/* byte order: 0x563412 from bytes 12 34 56 */
	mac_set(&m, 0x02, 0x00, 0x00, 0x12, 0x34, 0x56);
	assert_int_equal(vnic_tx_dlid(pol, &m, 0), 0x563412);
	/* LID 0 gives DLID 0 (drop), not the default port */
	mac_set(&m, 0x06, 0x2c, 0x00, 0x00, 0x00, 0x00);
	assert_int_equal(vnic_tx_dlid(pol, &m, 0), 0);
	for (i = 0; i < 1000; i++) {
		mac_random(&m, &seed);
		m.addr_bytes[0] = (m.addr_bytes[0] & ~0x01) | 0x02;
		CHECK_EQ(vnic_tx_dlid(pol, &m, i & 0xFF), lid_of(&m), "i %u", i);
	}
	/* LMACs built for other fabrics and vesws still give their LID */
	a.fabric_id = OPA16B_LMAC_FABRIC_MAX;
	a.vesw_id = OPA16B_LMAC_VESW_MAX;
	a.lid = LID24_MAX;
	opa16b_lmac_build(&a, &m);
	assert_int_equal(vnic_tx_dlid(pol, &m, 0x33), LID24_MAX);
	vnic_vport_free(vp);
}

/* Rule 4: unknown unicast takes u_ucast_dlid[flow_tbl[(e & 0xF) + (e >> 4)]], all entropies. */
static void
test_dlid_default_port_flow_table(void **state)
{
	const uint16_t masks[] = { 0x0001, 0x0005, 0x8421, 0xFFFF, 0x8000, 0x0006, 0x7FFE,
				   0xAAAA, 0x1234 };
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct vnic_vport *vp = vport_configured(&v, &p);
	struct rte_ether_addr m;
	uint64_t seed = 0xf10f;
	unsigned int i, j, e, bits[16], n;

	(void)state;
	for (i = 0; i < ARRAY_LEN(masks); i++) {
		const struct vnic_policy *pol;

		v.def_port_mask = masks[i];
		for (j = 0; j < VNIC_UCAST_DLID_MAX; j++)
			v.u_ucast_dlid[j] = (uint32_t)(test_rand(&seed) & LID24_MAX) | 1;
		assert_int_equal(vnic_vport_configure(vp, &v, &p), 0);
		pol = vnic_vport_policy(vp);
		/* the flow table is the round robin of the mask's set bits */
		for (j = 0, n = 0; j < 16; j++)
			if (masks[i] & (1u << j))
				bits[n++] = j;
		for (j = 0; j < VNIC_FLOW_TBL_SIZE; j++)
			CHECK_EQ(pol->flow_tbl[j], bits[j % n], "mask 0x%04x slot %u", masks[i], j);
		for (e = 0; e < 256; e++) {
			unsigned int slot = ((e & 0xF) + (e >> 4)) & 31;

			mac_random_global(&m, &seed);
			CHECK_EQ(vnic_tx_dlid(pol, &m, e), v.u_ucast_dlid[bits[slot % n]],
				 "mask 0x%04x entropy %u", masks[i], e);
			CHECK_EQ(vnic_tx_dlid(pol, &m, e), model_default_dlid(&v, e),
				 "mask 0x%04x entropy %u", masks[i], e);
		}
	}
	/* a few hand-computed cases: mask 0x0005 has ports 0, 2 */
	v.def_port_mask = 0x0005;
	for (j = 0; j < VNIC_UCAST_DLID_MAX; j++)
		v.u_ucast_dlid[j] = 0x100 + j;
	assert_int_equal(vnic_vport_configure(vp, &v, &p), 0);
	mac_set(&m, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55);
	assert_int_equal(vnic_tx_dlid(vnic_vport_policy(vp), &m, 0x00), 0x100); /* slot 0 */
	assert_int_equal(vnic_tx_dlid(vnic_vport_policy(vp), &m, 0x01), 0x102); /* slot 1 */
	assert_int_equal(vnic_tx_dlid(vnic_vport_policy(vp), &m, 0x11), 0x100); /* slot 2 */
	assert_int_equal(vnic_tx_dlid(vnic_vport_policy(vp), &m, 0xF0), 0x102); /* slot 15 */
	assert_int_equal(vnic_tx_dlid(vnic_vport_policy(vp), &m, 0xFF), 0x100); /* slot 30 */
	vnic_vport_free(vp);
}

/* Rule 4: an empty def_port_mask gives DLID 0 for every entropy. */
static void
test_dlid_empty_mask_is_zero(void **state)
{
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct vnic_vport *vp = vport_configured(&v, &p);
	struct rte_ether_addr m;
	unsigned int e, j;

	(void)state;
	v.def_port_mask = 0;
	assert_int_equal(vnic_vport_configure(vp, &v, &p), 0);
	for (j = 0; j < VNIC_FLOW_TBL_SIZE; j++)
		assert_int_equal(vnic_vport_policy(vp)->flow_tbl[j], VNIC_FLOW_INVALID);
	mac_set(&m, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55);
	for (e = 0; e < 256; e++)
		CHECK_EQ(vnic_tx_dlid(vnic_vport_policy(vp), &m, e), 0, "entropy %u", e);
	vnic_vport_free(vp);
}

/* ---------------------------------------------------------------------- */
/* 2. MAC table */

/* SET replaces [offset, offset + n), an all-zero MAC deletes, the digest and masks are stored. */
static void
test_mac_tbl_set_replace_delete(void **state)
{
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct vnic_vport *vp = vport_configured(&v, &p);
	struct vnic_mac_entry e[10], r[3], z[2];
	struct rte_ether_addr zero;
	const struct vnic_policy *pol;
	uint64_t seed = 0x7ab1e;
	unsigned int i;

	(void)state;
	memset(&zero, 0, sizeof(zero));
	for (i = 0; i < 10; i++) {
		struct rte_ether_addr m;

		mac_random_global(&m, &seed);
		e[i] = mac_entry(&m, 0x1000 + i, 0);
		mac_random(&e[i].mask, &seed);
	}
	assert_int_equal(vnic_vport_set_mac_entries(vp, 10, 10, e, 0xdeadbeef), 0);
	pol = vnic_vport_policy(vp);
	assert_int_equal(pol->port.mac_tbl_digest, 0xdeadbeef);
	assert_int_equal(pol->mac.nb_entries, 10);
	for (i = 0; i < 10; i++) {
		assert_memory_equal(&pol->mac.ent[10 + i], &e[i], sizeof(e[i]));
		assert_int_equal(vnic_mac_tbl_lookup(&pol->mac, &e[i].mac), 0x1000 + i);
	}
	/* replace 15..17 */
	for (i = 0; i < 3; i++) {
		struct rte_ether_addr m;

		mac_random_global(&m, &seed);
		r[i] = mac_entry(&m, 0x2000 + i, 0);
	}
	assert_int_equal(vnic_vport_set_mac_entries(vp, 15, 3, r, 0x12345678), 0);
	pol = vnic_vport_policy(vp);
	assert_int_equal(pol->port.mac_tbl_digest, 0x12345678);
	assert_int_equal(pol->mac.nb_entries, 10);
	for (i = 0; i < 10; i++) {
		uint32_t want = (i >= 5 && i < 8) ? 0 : 0x1000 + i;

		CHECK_EQ(vnic_mac_tbl_lookup(&pol->mac, &e[i].mac), want, "old entry %u", i);
	}
	for (i = 0; i < 3; i++)
		assert_int_equal(vnic_mac_tbl_lookup(&pol->mac, &r[i].mac), 0x2000 + i);
	/* all-zero MACs delete 10 and 11, whatever their other fields */
	z[0] = mac_entry(&zero, 0x55, 0);
	z[1] = mac_entry(&zero, 0, VNIC_DLID_SD_SMAC);
	mac_set(&z[1].mask, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff);
	assert_int_equal(vnic_vport_set_mac_entries(vp, 10, 2, z, 0), 0);
	pol = vnic_vport_policy(vp);
	assert_int_equal(pol->port.mac_tbl_digest, 0);
	assert_int_equal(pol->mac.nb_entries, 8);
	assert_int_equal(vnic_mac_tbl_lookup(&pol->mac, &e[0].mac), 0);
	assert_int_equal(vnic_mac_tbl_lookup(&pol->mac, &e[1].mac), 0);
	assert_int_equal(vnic_mac_tbl_lookup(&pol->mac, &e[2].mac), 0x1002);
	assert_int_equal(vnic_mac_tbl_lookup(&pol->mac, &zero), 0);
	for (i = 10; i < 12; i++) {
		struct vnic_mac_entry empty;

		memset(&empty, 0, sizeof(empty));
		assert_memory_equal(&pol->mac.ent[i], &empty, sizeof(empty));
	}
	/* the digest is stored in the port info and kept by a configure */
	assert_int_equal(vnic_vport_set_mac_entries(vp, 0, 0, NULL, 0xcafe), 0);
	assert_int_equal(vnic_vport_configure(vp, &v, &p), 0);
	assert_int_equal(vnic_vport_policy(vp)->port.mac_tbl_digest, 0xcafe);
	vnic_vport_free(vp);
}

/* offset + n > 2048 is refused with -EINVAL; the snapshot and its contents stay. */
static void
test_mac_tbl_out_of_range_refused(void **state)
{
	const struct { uint16_t offset, n; } bad[] = {
		{ 2048, 1 }, { 2047, 2 }, { 0, 2049 }, { 1, 2048 }, { 2040, 9 },
		{ 65535, 1 }, { 1, 65535 }, { 65535, 65535 },
	};
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct retire_log log = { .n = 0 };
	struct vnic_vport *vp = vnic_vport_create(3, retire_keep, &log);
	struct vnic_mac_entry *ent = calloc(65535, sizeof(*ent));
	const struct vnic_policy *before;
	struct vnic_policy *copy;
	struct rte_ether_addr m;
	uint64_t seed = 0x0e0e;
	unsigned int i;

	(void)state;
	assert_non_null(vp);
	assert_non_null(ent);
	base_config(&v, &p);
	assert_int_equal(vnic_vport_configure(vp, &v, &p), 0);
	for (i = 0; i < 65535; i++) {
		mac_random_global(&m, &seed);
		ent[i] = mac_entry(&m, 1 + (i & 0xFFFF), 0);
	}
	assert_int_equal(vnic_vport_set_mac_entries(vp, 0, 4, ent, 0x1111), 0);
	retire_log_free(&log);
	before = vnic_vport_policy(vp);
	copy = policy_dup(before);
	for (i = 0; i < ARRAY_LEN(bad); i++) {
		CHECK_EQ(vnic_vport_set_mac_entries(vp, bad[i].offset, bad[i].n, ent, 0x2222),
			 -EINVAL, "offset %u n %u", bad[i].offset, bad[i].n);
		assert_ptr_equal(vnic_vport_policy(vp), before);
		assert_memory_equal(vnic_vport_policy(vp), copy, sizeof(*copy));
		assert_int_equal(log.n, 0);
	}
	assert_int_equal(vnic_vport_take_events(vp) & ~(uint32_t)(VNIC_EV_VESW_CHANGE |
			 VNIC_EV_MAC_ADDR_CHANGE), 0);
	/* the last valid ranges are accepted */
	assert_int_equal(vnic_vport_set_mac_entries(vp, 2047, 1, ent + 100, 0x3333), 0);
	assert_int_equal(vnic_mac_tbl_lookup(&vnic_vport_policy(vp)->mac, &ent[100].mac),
			 ent[100].dlid_sd >> 8);
	assert_int_equal(vnic_vport_set_mac_entries(vp, 0, 2048, ent, 0x4444), 0);
	assert_int_equal(vnic_vport_policy(vp)->mac.nb_entries, 2048);
	assert_int_equal(vnic_vport_policy(vp)->port.mac_tbl_digest, 0x4444);
	free(copy);
	free(ent);
	vnic_vport_free(vp);
	retire_log_free(&log);
}

/* 2048 random distinct MACs are all found with their DLIDs; absent MACs give 0. */
static void
test_mac_tbl_full_random(void **state)
{
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct vnic_vport *vp = vport_configured(&v, &p);
	struct vnic_mac_entry *ent = calloc(VNIC_MAC_TBL_MAX, sizeof(*ent));
	const struct vnic_policy *pol;
	uint64_t seed = 0xfeedface;
	unsigned int i, j, off;

	(void)state;
	assert_non_null(ent);
	for (i = 0; i < VNIC_MAC_TBL_MAX; i++) {
		struct rte_ether_addr m;
		bool dup;

		do {
			mac_random(&m, &seed);
			/* half share their last bytes, to stress collisions */
			if (i & 1)
				m.addr_bytes[5] = 0x42;
			dup = rte_is_zero_ether_addr(&m);
			for (j = 0; j < i && !dup; j++)
				dup = rte_is_same_ether_addr(&m, &ent[j].mac);
		} while (dup);
		ent[i] = mac_entry(&m, (uint32_t)(test_rand(&seed) % LID24_MAX) + 1, 0);
	}
	/* the EM sends chunks of up to 125 */
	for (off = 0; off < VNIC_MAC_TBL_MAX; off += 125) {
		uint16_t n = VNIC_MAC_TBL_MAX - off < 125 ? VNIC_MAC_TBL_MAX - off : 125;

		assert_int_equal(vnic_vport_set_mac_entries(vp, off, n, ent + off, off), 0);
	}
	pol = vnic_vport_policy(vp);
	assert_int_equal(pol->port.mac_tbl_digest, 2000);
	assert_int_equal(pol->mac.nb_entries, VNIC_MAC_TBL_MAX);
	for (i = 0; i < VNIC_MAC_TBL_MAX; i++) {
		CHECK_EQ(vnic_mac_tbl_lookup(&pol->mac, &ent[i].mac), ent[i].dlid_sd >> 8,
			 "entry %u", i);
		CHECK_EQ(vnic_tx_dlid(pol, &ent[i].mac, i & 0xFF), ent[i].dlid_sd >> 8,
			 "entry %u", i);
	}
	for (i = 0; i < 4096; i++) {
		struct rte_ether_addr m;
		bool present = false;

		mac_random(&m, &seed);
		if (i & 1)
			m.addr_bytes[5] = 0x42;
		for (j = 0; j < VNIC_MAC_TBL_MAX && !present; j++)
			present = rte_is_same_ether_addr(&m, &ent[j].mac);
		if (present)
			continue;
		CHECK_EQ(vnic_mac_tbl_lookup(&pol->mac, &m), 0, "absent %u", i);
	}
	/* deleting every entry empties the table */
	memset(ent, 0, VNIC_MAC_TBL_MAX * sizeof(*ent));
	assert_int_equal(vnic_vport_set_mac_entries(vp, 0, VNIC_MAC_TBL_MAX, ent, 0), 0);
	assert_int_equal(vnic_vport_policy(vp)->mac.nb_entries, 0);
	free(ent);
	vnic_vport_free(vp);
}

/* The same MAC at several indices: the lowest index wins, the next after a delete. */
static void
test_mac_tbl_duplicates_lowest_index_wins(void **state)
{
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct vnic_vport *vp = vport_configured(&v, &p);
	struct rte_ether_addr m, zero;
	struct vnic_mac_entry e;

	(void)state;
	memset(&zero, 0, sizeof(zero));
	mac_set(&m, 0x00, 0x50, 0x56, 0xaa, 0xbb, 0xcc);
	e = mac_entry(&m, 0x300, 0);
	assert_int_equal(vnic_vport_set_mac_entries(vp, 2000, 1, &e, 0), 0);
	e = mac_entry(&m, 0x100, 0);
	assert_int_equal(vnic_vport_set_mac_entries(vp, 100, 1, &e, 0), 0);
	e = mac_entry(&m, 0x70, 0);
	assert_int_equal(vnic_vport_set_mac_entries(vp, 7, 1, &e, 0), 0);
	assert_int_equal(vnic_mac_tbl_lookup(&vnic_vport_policy(vp)->mac, &m), 0x70);
	e = mac_entry(&zero, 0, 0);
	assert_int_equal(vnic_vport_set_mac_entries(vp, 7, 1, &e, 0), 0);
	assert_int_equal(vnic_mac_tbl_lookup(&vnic_vport_policy(vp)->mac, &m), 0x100);
	/* a source-MAC entry at a lower index does not hide a destination entry */
	e = mac_entry(&m, 0x5, VNIC_DLID_SD_SMAC);
	assert_int_equal(vnic_vport_set_mac_entries(vp, 0, 1, &e, 0), 0);
	assert_int_equal(vnic_mac_tbl_lookup(&vnic_vport_policy(vp)->mac, &m), 0x100);
	e = mac_entry(&zero, 0, 0);
	assert_int_equal(vnic_vport_set_mac_entries(vp, 100, 1, &e, 0), 0);
	assert_int_equal(vnic_mac_tbl_lookup(&vnic_vport_policy(vp)->mac, &m), 0x300);
	assert_int_equal(vnic_vport_set_mac_entries(vp, 2000, 1, &e, 0), 0);
	assert_int_equal(vnic_mac_tbl_lookup(&vnic_vport_policy(vp)->mac, &m), 0);
	vnic_vport_free(vp);
}

/* Lookups in an empty or sparse table return 0 for absent MACs, zero and broadcast included. */
static void
test_mac_tbl_absent_returns_zero(void **state)
{
	struct vnic_vport *vp = vnic_vport_create(0, NULL, NULL);
	struct rte_ether_addr m;
	struct vnic_mac_entry e;
	uint64_t seed = 0xab5e;
	unsigned int i;

	(void)state;
	assert_non_null(vp);
	memset(&m, 0, sizeof(m));
	assert_int_equal(vnic_mac_tbl_lookup(&vnic_vport_policy(vp)->mac, &m), 0);
	memset(&m, 0xff, sizeof(m));
	assert_int_equal(vnic_mac_tbl_lookup(&vnic_vport_policy(vp)->mac, &m), 0);
	mac_set(&m, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05);
	e = mac_entry(&m, 0x99, 0);
	assert_int_equal(vnic_vport_set_mac_entries(vp, 0, 1, &e, 0), 0);
	for (i = 0; i < 6; i++) {
		/* differs from the entry in a single byte */
		m.addr_bytes[i] ^= 0x80;
		assert_int_equal(vnic_mac_tbl_lookup(&vnic_vport_policy(vp)->mac, &m), 0);
		m.addr_bytes[i] ^= 0x80;
	}
	for (i = 0; i < 1000; i++) {
		mac_random(&m, &seed);
		if (rte_is_same_ether_addr(&m, &e.mac))
			continue;
		CHECK_EQ(vnic_mac_tbl_lookup(&vnic_vport_policy(vp)->mac, &m), 0, "i %u", i);
	}
	vnic_vport_free(vp);
}

/* ---------------------------------------------------------------------- */
/* 3. SC and VL */

/* Policy with all-distinct SC/VL table values. */
static struct vnic_vport *
vport_distinct_tables(struct vnic_vesw_info *v, struct vnic_port_info *p)
{
	struct vnic_vport *vp = vport_configured(v, p);
	unsigned int i;

	for (i = 0; i < 8; i++) {
		p->pcp_to_sc_uc[i] = (uint8_t)(1 + i);
		p->pcp_to_vl_uc[i] = (uint8_t)(15 - i); /* VLs have 4 bits: 16 values */
		p->pcp_to_sc_mc[i] = (uint8_t)(9 + i);
		p->pcp_to_vl_mc[i] = (uint8_t)(7 - i);
	}
	p->non_vlan_sc_uc = 0;
	p->non_vlan_vl_uc = 3;
	p->non_vlan_sc_mc = 18;
	p->non_vlan_vl_mc = 12;
	assert_int_equal(vnic_vport_configure(vp, v, p), 0);
	return vp;
}

/* Tagged unicast/multicast use the PCP tables at TCI >> 13, for SC and VL alike. */
static void
test_sc_vl_tagged_pcp_tables(void **state)
{
	const uint16_t tpids[] = { RTE_ETHER_TYPE_VLAN, RTE_ETHER_TYPE_QINQ };
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct vnic_vport *vp = vport_distinct_tables(&v, &p);
	const struct vnic_policy *pol = vnic_vport_policy(vp);
	uint64_t seed = 0x5c5c;
	uint8_t buf[FRAME_MAX];
	unsigned int t, pcp, mc, k;

	(void)state;
	for (t = 0; t < ARRAY_LEN(tpids); t++)
		for (mc = 0; mc < 2; mc++)
			for (pcp = 0; pcp < 8; pcp++)
				for (k = 0; k < 4; k++) {
					struct frame_spec s;
					struct vnic_frame_class cls;
					size_t len;

					memset(&s, 0, sizeof(s));
					mac_random_global(&s.dst, &seed);
					if (mc)
						s.dst.addr_bytes[0] |= 0x01;
					s.tpid[0] = tpids[t];
					/* VID and DEI bits must not matter */
					s.tci[0] = (uint16_t)(pcp << 13 |
							      (test_rand(&seed) & 0x1FFF));
					s.type = k & 1 ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_ARP;
					s.proto = IPPROTO_UDP;
					len = build_frame(buf, &s);
					vnic_classify(buf, len, &cls);
					assert_int_equal(cls.vlan, 1);
					assert_int_equal(cls.mcast, mc);
					assert_int_equal(cls.pcp, pcp);
					CHECK_EQ(vnic_tx_sc(pol, &cls),
						 mc ? p.pcp_to_sc_mc[pcp] : p.pcp_to_sc_uc[pcp],
						 "tpid %u mc %u pcp %u", t, mc, pcp);
					CHECK_EQ(vnic_tx_vl(pol, &cls),
						 mc ? p.pcp_to_vl_mc[pcp] : p.pcp_to_vl_uc[pcp],
						 "tpid %u mc %u pcp %u", t, mc, pcp);
				}
	vnic_vport_free(vp);
}

/* Untagged frames use the non-VLAN SC and VL, unicast or multicast by destination. */
static void
test_sc_vl_untagged_non_vlan(void **state)
{
	const uint16_t types[] = { RTE_ETHER_TYPE_ARP, RTE_ETHER_TYPE_IPV4,
				   RTE_ETHER_TYPE_IPV6, 0x88B5 };
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct vnic_vport *vp = vport_distinct_tables(&v, &p);
	const struct vnic_policy *pol = vnic_vport_policy(vp);
	uint64_t seed = 0x0a0a;
	uint8_t buf[FRAME_MAX];
	unsigned int t, mc;

	(void)state;
	for (t = 0; t < ARRAY_LEN(types); t++)
		for (mc = 0; mc < 3; mc++) {
			struct frame_spec s;
			struct vnic_frame_class cls;
			size_t len;

			memset(&s, 0, sizeof(s));
			mac_random_global(&s.dst, &seed);
			if (mc == 1)
				s.dst.addr_bytes[0] |= 0x01;
			if (mc == 2)
				memset(&s.dst, 0xff, sizeof(s.dst));
			s.type = types[t];
			s.proto = IPPROTO_TCP;
			len = build_frame(buf, &s);
			vnic_classify(buf, len, &cls);
			assert_int_equal(cls.vlan, 0);
			assert_int_equal(cls.pcp, 0);
			assert_int_equal(cls.mcast, mc != 0);
			CHECK_EQ(vnic_tx_sc(pol, &cls), mc ? p.non_vlan_sc_mc : p.non_vlan_sc_uc,
				 "type 0x%04x mc %u", types[t], mc);
			CHECK_EQ(vnic_tx_vl(pol, &cls), mc ? p.non_vlan_vl_mc : p.non_vlan_vl_uc,
				 "type 0x%04x mc %u", types[t], mc);
		}
	vnic_vport_free(vp);
}

/* Quirk 7.5 fixed: SC and VL of a frame always come from the same table row. */
static void
test_sc_vl_same_row(void **state)
{
	const uint16_t tpids[] = { 0, RTE_ETHER_TYPE_VLAN, RTE_ETHER_TYPE_QINQ };
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct vnic_vport *vp = vport_configured(&v, &p);
	const struct vnic_policy *pol;
	uint8_t buf[FRAME_MAX];
	uint64_t seed = 0x5a5a;
	unsigned int i;

	(void)state;
	/* every PCP row has VL = (SC + 8) & 15: unicast row r SC r, VL 8 + r;
	 * multicast SC 16 + r, VL 8 + r; non-VLAN rows VL = (SC + 1) & 15
	 * (30/15 uc, 28/13 mc), which no PCP row satisfies
	 */
	for (i = 0; i < 8; i++) {
		p.pcp_to_sc_uc[i] = (uint8_t)i;
		p.pcp_to_vl_uc[i] = (uint8_t)(8 + i);
		p.pcp_to_sc_mc[i] = (uint8_t)(16 + i);
		p.pcp_to_vl_mc[i] = (uint8_t)(8 + i);
	}
	p.non_vlan_sc_uc = 30;
	p.non_vlan_vl_uc = 15;
	p.non_vlan_sc_mc = 28;
	p.non_vlan_vl_mc = 13;
	assert_int_equal(vnic_vport_configure(vp, &v, &p), 0);
	pol = vnic_vport_policy(vp);
	for (i = 0; i < 600; i++) {
		struct frame_spec s;
		struct opa16b_vnic_fields f;
		uint8_t vl = 0xEE;
		size_t len;

		memset(&s, 0, sizeof(s));
		mac_random(&s.dst, &seed);
		s.tpid[0] = tpids[i % 3];
		s.tci[0] = (uint16_t)test_rand(&seed);
		s.type = (i / 3) & 1 ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4;
		s.proto = IPPROTO_TCP;
		len = build_frame(buf, &s);
		vnic_tx_fields(pol, buf, len, (uint32_t)test_rand(&seed), &f, &vl);
		CHECK_EQ(f.sc, model_sc(&p, &s), "frame %u", i);
		CHECK_EQ(vl, model_vl(&p, &s), "frame %u", i);
		if (s.tpid[0] != 0)
			CHECK_EQ(vl, (f.sc + 8) & 15, "frame %u (same PCP row)", i);
		else
			CHECK_EQ(vl, (f.sc + 1) & 15, "frame %u (non-VLAN row)", i);
	}
	vnic_vport_free(vp);
}

/* The outer tag (802.1ad 0x88a8 or 802.1Q) gives the PCP; the inner one is ignored. */
static void
test_sc_vl_qinq_outer_tag(void **state)
{
	const uint16_t outer[] = { RTE_ETHER_TYPE_QINQ, RTE_ETHER_TYPE_VLAN };
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct vnic_vport *vp = vport_distinct_tables(&v, &p);
	const struct vnic_policy *pol = vnic_vport_policy(vp);
	uint8_t buf[FRAME_MAX];
	unsigned int t, po, pi, mc;

	(void)state;
	for (t = 0; t < 2; t++)
		for (mc = 0; mc < 2; mc++)
			for (po = 0; po < 8; po++)
				for (pi = 0; pi < 8; pi++) {
					struct frame_spec s;
					struct vnic_frame_class cls;
					size_t len;

					memset(&s, 0, sizeof(s));
					mac_set(&s.dst, mc ? 0x01 : 0x00, 0x00, 0x5e, 0x01,
						0x02, 0x03);
					s.tpid[0] = outer[t];
					s.tci[0] = (uint16_t)(po << 13 | 100);
					s.tpid[1] = RTE_ETHER_TYPE_VLAN;
					s.tci[1] = (uint16_t)(pi << 13 | 200);
					s.type = RTE_ETHER_TYPE_IPV4;
					s.proto = IPPROTO_TCP;
					len = build_frame(buf, &s);
					vnic_classify(buf, len, &cls);
					assert_int_equal(cls.vlan, 1);
					CHECK_EQ(cls.pcp, po, "outer %u inner %u", po, pi);
					CHECK_EQ(vnic_tx_sc(pol, &cls),
						 mc ? p.pcp_to_sc_mc[po] : p.pcp_to_sc_uc[po],
						 "outer %u inner %u", po, pi);
					CHECK_EQ(vnic_tx_vl(pol, &cls),
						 mc ? p.pcp_to_vl_mc[po] : p.pcp_to_vl_uc[po],
						 "outer %u inner %u", po, pi);
					/* the class behind two tags is still found */
					CHECK_EQ(cls.rc_shift, RC_SHIFT_IPV4_TCP, "outer %u", po);
				}
	vnic_vport_free(vp);
}

/* ---------------------------------------------------------------------- */
/* 4. RC */

static const struct {
	const char *name;
	uint16_t type;
	uint8_t proto;
	unsigned int shift; /* facts 2.5 */
} rc_classes[] = {
	{ "non-IP (ARP)", RTE_ETHER_TYPE_ARP, 0, 0 },
	{ "non-IP (0x88b5)", 0x88B5, IPPROTO_TCP, 0 },
	{ "IPv4 ICMP", RTE_ETHER_TYPE_IPV4, IPPROTO_ICMP, 4 },
	{ "IPv4 GRE", RTE_ETHER_TYPE_IPV4, 47, 4 },
	{ "IPv4 UDP", RTE_ETHER_TYPE_IPV4, IPPROTO_UDP, 8 },
	{ "IPv4 TCP", RTE_ETHER_TYPE_IPV4, IPPROTO_TCP, 12 },
	{ "IPv6 ICMPv6", RTE_ETHER_TYPE_IPV6, IPPROTO_ICMPV6, 16 },
	{ "IPv6 TCP", RTE_ETHER_TYPE_IPV6, IPPROTO_TCP, 20 },
	{ "IPv6 UDP", RTE_ETHER_TYPE_IPV6, IPPROTO_UDP, 24 },
};

/* RC = (rc >> shift) & 7 with shifts 0/4/8/12/16/20/24 by class, tagged or not. */
static void
test_rc_by_traffic_class(void **state)
{
	const uint16_t tpids[][2] = {
		{ 0, 0 }, { RTE_ETHER_TYPE_VLAN, 0 }, { RTE_ETHER_TYPE_QINQ, 0 },
		{ RTE_ETHER_TYPE_QINQ, RTE_ETHER_TYPE_VLAN },
	};
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct vnic_vport *vp = vport_configured(&v, &p);
	uint8_t buf[FRAME_MAX];
	uint64_t seed = 0x7c7c;
	unsigned int c, t, r;

	(void)state;
	for (r = 0; r < 40; r++) {
		const struct vnic_policy *pol;

		if (r == 0)
			v.rc = 0x07654321; /* field k holds k + 1 */
		else if (r == 1)
			v.rc = RC_VALID_MASK;
		else if (r == 2)
			v.rc = 0;
		else
			v.rc = (uint32_t)test_rand(&seed) & RC_VALID_MASK;
		assert_int_equal(vnic_vport_configure(vp, &v, &p), 0);
		pol = vnic_vport_policy(vp);
		for (c = 0; c < ARRAY_LEN(rc_classes); c++)
			for (t = 0; t < ARRAY_LEN(tpids); t++) {
				struct frame_spec s;
				struct vnic_frame_class cls;
				size_t len;

				memset(&s, 0, sizeof(s));
				mac_set(&s.dst, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55);
				s.tpid[0] = tpids[t][0];
				s.tpid[1] = tpids[t][1];
				s.tci[0] = 0x6001;
				s.tci[1] = 0x2002;
				s.type = rc_classes[c].type;
				s.proto = rc_classes[c].proto;
				s.sport = 1000;
				s.dport = 80;
				len = build_frame(buf, &s);
				vnic_classify(buf, len, &cls);
				CHECK_EQ(cls.rc_shift, rc_classes[c].shift, "%s tags %u",
					 rc_classes[c].name, t);
				CHECK_EQ(vnic_tx_rc(pol, &cls), (v.rc >> rc_classes[c].shift) & 7,
					 "%s tags %u rc 0x%08x", rc_classes[c].name, t, v.rc);
				if (r == 0)
					CHECK_EQ(vnic_tx_rc(pol, &cls),
						 rc_classes[c].shift / 4 + 1, "%s",
						 rc_classes[c].name);
			}
	}
	vnic_vport_free(vp);
}

/* ---------------------------------------------------------------------- */
/* 5. Entropy and flow hash */

/* vnic_entropy folds 32 bits to 8 by XOR of the four bytes; the high byte is 0. */
static void
test_entropy_xor_fold(void **state)
{
	const struct { uint32_t hash; uint16_t entropy; } vec[] = {
		{ 0x00000000, 0x00 }, { 0x12345678, 0x08 }, { 0xFFFFFFFF, 0x00 },
		{ 0x000000FF, 0xFF }, { 0xFF000000, 0xFF }, { 0x01000000, 0x01 },
		{ 0x00010000, 0x01 }, { 0x00000100, 0x01 }, { 0x80402010, 0xF0 },
		{ 0xA5A5A5A5, 0x00 }, { 0xA5A5A55A, 0xFF },
	};
	uint64_t seed = 0xe47;
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_LEN(vec); i++)
		CHECK_EQ(vnic_entropy(vec[i].hash), vec[i].entropy, "hash 0x%08x", vec[i].hash);
	for (i = 0; i < 100000; i++) {
		uint32_t h = (uint32_t)test_rand(&seed);
		uint16_t e = vnic_entropy(h);

		CHECK_EQ(e, model_entropy(h), "hash 0x%08x", h);
		assert_int_equal(e >> 8, 0);
	}
}

/* ---------------------------------------------------------------------- */
/* 6. vnic_tx_fields */

/* vnic_tx_fields fills SLID, PKEY, vesw, SC, RC, entropy and DLID from one classification. */
static void
test_tx_fields_consistent(void **state)
{
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct vnic_vport *vp = vport_distinct_tables(&v, &p);
	const struct vnic_policy *pol;
	struct rte_ether_addr tbl_mac;
	struct vnic_mac_entry e;
	uint8_t buf[FRAME_MAX];
	uint64_t seed = 0x7f7f;
	unsigned int i;

	(void)state;
	v.vesw_id = 0xABC;
	v.pkey = 0x7FFF;
	v.rc = 0x07162534;
	v.def_port_mask = 0x8421;
	p.encap_slid = 0x123456;
	assert_int_equal(vnic_vport_configure(vp, &v, &p), 0);
	mac_set(&tbl_mac, 0x00, 0x99, 0x88, 0x77, 0x66, 0x55);
	e = mac_entry(&tbl_mac, 0x4242, 0);
	assert_int_equal(vnic_vport_set_mac_entries(vp, 3, 1, &e, 0), 0);
	pol = vnic_vport_policy(vp);
	for (i = 0; i < 2000; i++) {
		const uint16_t tpids[] = { 0, RTE_ETHER_TYPE_VLAN, RTE_ETHER_TYPE_QINQ };
		struct frame_spec s;
		struct opa16b_vnic_fields f;
		uint32_t hash = (uint32_t)test_rand(&seed), want_dlid;
		unsigned int c = i % ARRAY_LEN(rc_classes);
		uint16_t ent;
		uint8_t vl = 0xEE;
		size_t len;

		memset(&s, 0, sizeof(s));
		switch ((i / ARRAY_LEN(rc_classes)) % 5) {
		case 0:
			s.dst = tbl_mac;
			break;
		case 1:
			memset(&s.dst, 0xff, sizeof(s.dst));
			break;
		case 2:
			mac_random(&s.dst, &seed);
			s.dst.addr_bytes[0] = (s.dst.addr_bytes[0] & ~0x01) | 0x02;
			break;
		case 3:
			mac_random(&s.dst, &seed);
			s.dst.addr_bytes[0] |= 0x01;
			break;
		default:
			mac_random_global(&s.dst, &seed);
			break;
		}
		s.tpid[0] = tpids[(i / 3) % 3];
		s.tci[0] = (uint16_t)test_rand(&seed);
		s.type = rc_classes[c].type;
		s.proto = rc_classes[c].proto;
		len = build_frame(buf, &s);
		memset(&f, 0xA5, sizeof(f));
		ent = model_entropy(hash);
		want_dlid = rte_is_same_ether_addr(&s.dst, &tbl_mac) ? 0x4242 :
			model_dlid_no_hit(&v, &s.dst, ent);
		CHECK_EQ(vnic_tx_fields(pol, buf, len, hash, &f, &vl), want_dlid, "frame %u", i);
		CHECK_EQ(f.dlid, want_dlid, "frame %u", i);
		CHECK_EQ(f.slid, 0x123456, "frame %u", i);
		CHECK_EQ(f.pkey, 0x7FFF, "frame %u", i);
		CHECK_EQ(f.vesw_id, 0xABC, "frame %u", i);
		CHECK_EQ(f.entropy, ent, "frame %u", i);
		CHECK_EQ(f.sc, model_sc(&p, &s), "frame %u", i);
		CHECK_EQ(vl, model_vl(&p, &s), "frame %u", i);
		CHECK_EQ(f.rc, (v.rc >> model_rc_shift(s.type, s.proto)) & 7, "frame %u", i);
		/* the VL is optional */
		memset(&f, 0, sizeof(f));
		CHECK_EQ(vnic_tx_fields(pol, buf, len, hash, &f, NULL), want_dlid, "frame %u", i);
		CHECK_EQ(f.sc, model_sc(&p, &s), "frame %u", i);
	}
	vnic_vport_free(vp);
}

/* ---------------------------------------------------------------------- */
/* ---------------------------------------------------------------------- */
/* 5 (cont.). Flow hash: these read the frame byte by byte, last so that an
 * ASan report here does not hide the results of the other tests.
 */

/* The flow hash is the same for every packet of a flow and changes with the ports. */
static void
test_flow_hash_stable_and_port_sensitive(void **state)
{
	const struct { uint16_t type; uint8_t proto; uint16_t tpid; } flows[] = {
		{ RTE_ETHER_TYPE_IPV4, IPPROTO_TCP, 0 },
		{ RTE_ETHER_TYPE_IPV4, IPPROTO_UDP, RTE_ETHER_TYPE_VLAN },
		{ RTE_ETHER_TYPE_IPV6, IPPROTO_TCP, 0 },
		{ RTE_ETHER_TYPE_IPV6, IPPROTO_UDP, RTE_ETHER_TYPE_QINQ },
	};
	uint8_t buf[FRAME_MAX], buf2[FRAME_MAX];
	unsigned int f, i;

	(void)state;
	for (f = 0; f < ARRAY_LEN(flows); f++) {
		struct frame_spec s;
		size_t len, l4;
		uint32_t h;

		memset(&s, 0, sizeof(s));
		mac_set(&s.dst, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55);
		mac_set(&s.src, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01);
		s.tpid[0] = flows[f].tpid;
		s.tci[0] = 0x2005;
		s.type = flows[f].type;
		s.proto = flows[f].proto;
		s.sport = 40000;
		s.dport = 443;
		s.addr = 7;
		len = build_frame(buf, &s);
		l4 = frame_l4_offset(&s);
		h = vnic_flow_hash(buf, len);
		assert_int_equal(vnic_flow_hash(buf, len), h);
		/* other packets of the flow: payload, TCP seq/UDP length, IP id/TTL/length */
		memcpy(buf2, buf, sizeof(buf));
		for (i = l4 + 4; i < len; i++)
			buf2[i] ^= 0x5A;
		if (s.type == RTE_ETHER_TYPE_IPV4) {
			buf2[l4 - 20 + 4] ^= 0xFF; /* id */
			buf2[l4 - 20 + 8] = 1;     /* ttl */
		} else {
			buf2[l4 - 40 + 5] ^= 0x08; /* payload length */
			buf2[l4 - 40 + 7] = 1;     /* hop limit */
		}
		CHECK_EQ(vnic_flow_hash(buf2, len), h, "flow %u", f);
		/* a longer packet of the flow */
		memset(buf2, 0, sizeof(buf2));
		memcpy(buf2, buf, len);
		CHECK_EQ(vnic_flow_hash(buf2, len + 20), h, "flow %u", f);
		/* other ports: another hash (a sample) */
		for (i = 0; i < 64; i++) {
			struct frame_spec t = s;

			if (i & 1)
				t.sport = (uint16_t)(1024 + 997 * i);
			else
				t.dport = (uint16_t)(1 + 131 * i);
			len = build_frame(buf2, &t);
			CHECK_EQ(vnic_flow_hash(buf2, len) != h, 1, "flow %u ports %u", f, i);
		}
		/* other addresses: another hash */
		s.addr = 8;
		len = build_frame(buf2, &s);
		CHECK_EQ(vnic_flow_hash(buf2, len) != h, 1, "flow %u addr", f);
	}
}

#define NB_HASH_TEMPLATES 10

/* Frames of every kind the parsers tell apart, the last random bytes. */
static void
hash_templates(uint8_t tmpl[NB_HASH_TEMPLATES][FRAME_MAX])
{
	uint64_t seed = 0x0b0b;
	unsigned int t, i;

	for (t = 0; t < NB_HASH_TEMPLATES; t++) {
		static const struct { uint16_t tpid[2]; uint16_t type; uint8_t proto; } k[] = {
			{ { 0, 0 }, RTE_ETHER_TYPE_IPV4, IPPROTO_TCP },
			{ { 0, 0 }, RTE_ETHER_TYPE_IPV4, IPPROTO_UDP },
			{ { 0, 0 }, RTE_ETHER_TYPE_IPV6, IPPROTO_TCP },
			{ { 0, 0 }, RTE_ETHER_TYPE_IPV6, IPPROTO_UDP },
			{ { RTE_ETHER_TYPE_VLAN, 0 }, RTE_ETHER_TYPE_IPV6, IPPROTO_UDP },
			{ { RTE_ETHER_TYPE_QINQ, RTE_ETHER_TYPE_VLAN }, RTE_ETHER_TYPE_IPV4,
			  IPPROTO_TCP },
			{ { RTE_ETHER_TYPE_QINQ, RTE_ETHER_TYPE_VLAN }, RTE_ETHER_TYPE_IPV6,
			  IPPROTO_TCP },
			{ { 0, 0 }, RTE_ETHER_TYPE_ARP, 0 },
			{ { 0, 0 }, RTE_ETHER_TYPE_IPV4, IPPROTO_TCP }, /* IHL 15 */
			{ { 0, 0 }, 0, 0 },                             /* random bytes */
		};
		struct frame_spec s;

		memset(&s, 0, sizeof(s));
		mac_set(&s.dst, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55);
		s.tpid[0] = k[t].tpid[0];
		s.tpid[1] = k[t].tpid[1];
		s.type = k[t].type;
		s.proto = k[t].proto;
		s.sport = 1234;
		s.dport = 80;
		build_frame(tmpl[t], &s);
		if (t == 8) {
			/* 60 bytes of options: the ports are at 14 + 60 */
			tmpl[t][14] = 0x4F;
			put_be16(tmpl[t] + 14 + 60, 1234);
			put_be16(tmpl[t] + 14 + 62, 80);
		} else if (t == 9) {
			for (i = 0; i < FRAME_MAX; i++)
				tmpl[t][i] = (uint8_t)test_rand(&seed);
		}
	}
}

/*
 * vnic_flow_hash, vnic_classify, vnic_tx_fields and vnic_tx_decide_flow
 * never read past len (0..100, heap, ASan).
 */
static void
test_flow_hash_never_reads_past_len(void **state)
{
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct vnic_vport *vp = vport_configured(&v, &p);
	struct vnic_policy *fwd = policy_dup(vnic_vport_policy(vp));
	uint8_t tmpl[NB_HASH_TEMPLATES][FRAME_MAX];
	unsigned int t;
	size_t len;

	(void)state;
	fwd->port.oper_state = VNIC_STATE_FORWARDING;	/* decide, not drop */
	hash_templates(tmpl);
	for (t = 0; t < ARRAY_LEN(tmpl); t++)
		for (len = 0; len <= 100; len++) {
			/* exactly len bytes: ASan reports any read past them */
			uint8_t *b = malloc(len);
			struct vnic_frame_class cls;
			struct opa16b_vnic_fields f;
			uint32_t h;

			assert_true(b != NULL || len == 0);
			if (b == NULL)
				continue;
			memcpy(b, tmpl[t], len);
			h = vnic_flow_hash(b, len);
			CHECK_EQ(vnic_flow_hash(b, len), h, "template %u len %zu", t, len);
			vnic_classify(b, len, &cls);
			if (len < RTE_ETHER_HDR_LEN) {
				CHECK_EQ(cls.mcast | cls.vlan | cls.pcp | cls.rc_shift, 0,
					 "template %u len %zu", t, len);
			}
			vnic_tx_fields(vnic_vport_policy(vp), b, len, h, &f, NULL);
			(void)vnic_tx_decide_flow(fwd, b, len, &f, NULL, &cls);
			free(b);
		}
	free(fwd);
	vnic_vport_free(vp);
}

/*
 * The TX path's one walk (vnic_classify_hash, vnic_tx_decide_flow) gives
 * exactly what vnic_classify + vnic_flow_hash + vnic_tx_decide give, for
 * every template cut at every length.
 */
static void
test_classify_hash_is_classify_and_flow_hash(void **state)
{
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct vnic_vport *vp = vport_configured(&v, &p);
	struct vnic_policy *pol = policy_dup(vnic_vport_policy(vp));
	uint8_t tmpl[NB_HASH_TEMPLATES][FRAME_MAX];
	unsigned int t, sent = 0;
	size_t len;

	(void)state;
	pol->port.oper_state = VNIC_STATE_FORWARDING;	/* decide, not drop */
	hash_templates(tmpl);
	for (t = 0; t < NB_HASH_TEMPLATES; t++)
		for (len = 0; len <= FRAME_MAX; len++) {
			struct vnic_frame_class c1, c2;
			struct opa16b_vnic_fields f1, f2;
			enum vnic_tx_verdict v1, v2;
			uint32_t h;

			vnic_classify(tmpl[t], len, &c1);
			h = vnic_classify_hash(tmpl[t], len, &c2);
			CHECK_EQ(h, vnic_flow_hash(tmpl[t], len), "template %u len %zu", t, len);
			CHECK_EQ(memcmp(&c1, &c2, sizeof(c1)), 0, "template %u len %zu", t, len);
			memset(&f1, 0, sizeof(f1));
			memset(&f2, 0, sizeof(f2));
			memset(&c1, 0, sizeof(c1));
			memset(&c2, 0, sizeof(c2));
			v1 = vnic_tx_decide(pol, tmpl[t], len, h, &f1, NULL, &c1);
			v2 = vnic_tx_decide_flow(pol, tmpl[t], len, &f2, NULL, &c2);
			CHECK_EQ(v1, v2, "template %u len %zu", t, len);
			if (v1 == VNIC_TX_SEND) {
				sent++;
				CHECK_EQ(memcmp(&f1, &f2, sizeof(f1)), 0, "template %u len %zu",
					 t, len);
				CHECK_EQ(memcmp(&c1, &c2, sizeof(c1)), 0, "template %u len %zu",
					 t, len);
			}
		}
	/* the fields were compared, not only the refusals */
	assert_true(sent > NB_HASH_TEMPLATES * 100);
	free(pol);
	vnic_vport_free(vp);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dlid_mac_table_hit_wins),
		cmocka_unit_test(test_dlid_smac_entry_skipped),
		cmocka_unit_test(test_dlid_zero_entry_falls_through),
		cmocka_unit_test(test_dlid_multicast_broadcast),
		cmocka_unit_test(test_dlid_lmac_lid),
		cmocka_unit_test(test_dlid_default_port_flow_table),
		cmocka_unit_test(test_dlid_empty_mask_is_zero),
		cmocka_unit_test(test_mac_tbl_set_replace_delete),
		cmocka_unit_test(test_mac_tbl_out_of_range_refused),
		cmocka_unit_test(test_mac_tbl_full_random),
		cmocka_unit_test(test_mac_tbl_duplicates_lowest_index_wins),
		cmocka_unit_test(test_mac_tbl_absent_returns_zero),
		cmocka_unit_test(test_sc_vl_tagged_pcp_tables),
		cmocka_unit_test(test_sc_vl_untagged_non_vlan),
		cmocka_unit_test(test_sc_vl_same_row),
		cmocka_unit_test(test_sc_vl_qinq_outer_tag),
		cmocka_unit_test(test_rc_by_traffic_class),
		cmocka_unit_test(test_entropy_xor_fold),
		cmocka_unit_test(test_tx_fields_consistent),
		cmocka_unit_test(test_flow_hash_stable_and_port_sensitive),
		cmocka_unit_test(test_flow_hash_never_reads_past_len),
		cmocka_unit_test(test_classify_hash_is_classify_and_flow_hash),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests_name("vnic", tests, NULL, NULL);
}
