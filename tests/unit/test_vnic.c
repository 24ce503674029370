/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* lib/vnic without EAL: DLID/SC/VL/RC/entropy decisions, MAC table, vport
 * states and validation, interface MAC lists, counters and snapshots.
 * Expected values come from the rules of the facts (opa-vnic.md 2, 3.3-3.4
 * and 7), computed here, never by the code under test.
 */

#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netinet/in.h>

#include <cmocka.h>

#include <rte_ether.h>

#include "opa16b.h"
#include "opa16b_lmac.h"
#include "opa16b_vnic.h"
#include "test_eal.h"
#include "vnic.h"
#include "vnic_stats.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Compare as 64-bit values and say which case failed. */
#define CHECK_EQ(actual, expected, fmt, ...) do { \
	uint64_t a_ = (uint64_t)(actual), e_ = (uint64_t)(expected); \
	if (a_ != e_) \
		print_error("%s:%d: " fmt ": got 0x%" PRIx64 ", expected 0x%" PRIx64 "\n", \
			    __FILE__, __LINE__, __VA_ARGS__, a_, e_); \
	assert_int_equal(a_, e_); \
} while (0)

/* Facts 2.5: RC bit shift per traffic class. */
#define RC_SHIFT_NON_IP 0
#define RC_SHIFT_IPV4 4
#define RC_SHIFT_IPV4_UDP 8
#define RC_SHIFT_IPV4_TCP 12
#define RC_SHIFT_IPV6 16
#define RC_SHIFT_IPV6_TCP 20
#define RC_SHIFT_IPV6_UDP 24

/* Facts 3.3: the valid bits of vesw.rc (seven 3-bit fields, 4 bits apart). */
#define RC_VALID_MASK 0x07777777u

/* Largest 24-bit LID. */
#define LID24_MAX 0xFFFFFFu

/* ---------------------------------------------------------------------- */
/* Frames */

#define FRAME_MAX 128

/* What build_frame() writes. */
struct frame_spec {
	struct rte_ether_addr dst;
	struct rte_ether_addr src;
	uint16_t tpid[2]; /* outer, inner; 0 = no tag */
	uint16_t tci[2];
	uint16_t type;    /* EtherType after the tags */
	uint8_t proto;    /* IPv4 protocol or IPv6 next header */
	uint16_t sport;
	uint16_t dport;
	uint8_t addr;     /* varies the IP addresses */
};

static void
put_be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xFF;
}

/* Offset of the L4 header of a frame built from @p s. */
static size_t
frame_l4_offset(const struct frame_spec *s)
{
	size_t off = 14;
	unsigned int i;

	for (i = 0; i < 2 && s->tpid[i] != 0; i++)
		off += 4;
	if (s->type == RTE_ETHER_TYPE_IPV4)
		off += 20;
	else if (s->type == RTE_ETHER_TYPE_IPV6)
		off += 40;
	return off;
}

/* Write a frame into @p b (FRAME_MAX bytes); returns its length (>= 60). */
static size_t
build_frame(uint8_t *b, const struct frame_spec *s)
{
	size_t off = 12, l4, len;
	unsigned int i;

	memset(b, 0, FRAME_MAX);
	memcpy(b, s->dst.addr_bytes, RTE_ETHER_ADDR_LEN);
	memcpy(b + 6, s->src.addr_bytes, RTE_ETHER_ADDR_LEN);
	for (i = 0; i < 2 && s->tpid[i] != 0; i++) {
		put_be16(b + off, s->tpid[i]);
		put_be16(b + off + 2, s->tci[i]);
		off += 4;
	}
	put_be16(b + off, s->type);
	off += 2;
	if (s->type == RTE_ETHER_TYPE_IPV4) {
		b[off] = 0x45;
		put_be16(b + off + 2, 20 + 16);
		put_be16(b + off + 4, 0x1234);
		b[off + 8] = 64;
		b[off + 9] = s->proto;
		b[off + 12] = 10;
		b[off + 14] = s->addr;
		b[off + 15] = 1;
		b[off + 16] = 10;
		b[off + 18] = s->addr;
		b[off + 19] = 2;
	} else if (s->type == RTE_ETHER_TYPE_IPV6) {
		b[off] = 0x60;
		put_be16(b + off + 4, 16);
		b[off + 6] = s->proto;
		b[off + 7] = 64;
		b[off + 8] = 0xfd;
		b[off + 23] = s->addr;
		b[off + 24] = 0xfd;
		b[off + 39] = (uint8_t)(s->addr + 1);
	}
	l4 = frame_l4_offset(s);
	put_be16(b + l4, s->sport);
	put_be16(b + l4 + 2, s->dport);
	for (i = 4; i < 16; i++)
		b[l4 + i] = (uint8_t)(0xA0 + i);
	len = l4 + 16;
	return len < 60 ? 60 : len;
}

static void
mac_set(struct rte_ether_addr *m, uint8_t b0, uint8_t b1, uint8_t b2, uint8_t b3,
	uint8_t b4, uint8_t b5)
{
	m->addr_bytes[0] = b0;
	m->addr_bytes[1] = b1;
	m->addr_bytes[2] = b2;
	m->addr_bytes[3] = b3;
	m->addr_bytes[4] = b4;
	m->addr_bytes[5] = b5;
}

static void
mac_random(struct rte_ether_addr *m, uint64_t *seed)
{
	uint64_t r = test_rand(seed);
	unsigned int i;

	for (i = 0; i < RTE_ETHER_ADDR_LEN; i++)
		m->addr_bytes[i] = (uint8_t)(r >> (8 * i));
}

/* A random globally administered unicast MAC. */
static void
mac_random_global(struct rte_ether_addr *m, uint64_t *seed)
{
	mac_random(m, seed);
	m->addr_bytes[0] &= ~0x03;
	m->addr_bytes[5] |= 0x01; /* never all zero */
}

/* Facts 2.1 rule 3: the LID of an LMAC, bytes 3..5 little-endian. */
static uint32_t
lid_of(const struct rte_ether_addr *m)
{
	return (uint32_t)m->addr_bytes[5] << 16 | (uint32_t)m->addr_bytes[4] << 8 |
		m->addr_bytes[3];
}

static struct vnic_mac_entry
mac_entry(const struct rte_ether_addr *mac, uint32_t dlid, uint32_t flags)
{
	struct vnic_mac_entry e;

	memset(&e, 0, sizeof(e));
	e.mac = *mac;
	e.dlid_sd = dlid << 8 | flags;
	return e;
}

/* ---------------------------------------------------------------------- */
/* Models from the facts */

/* Facts 2.1 rule 4: default-port DLID of unknown unicast. */
static uint32_t
model_default_dlid(const struct vnic_vesw_info *v, uint16_t entropy)
{
	unsigned int ports[16], n = 0, i, flow;

	for (i = 0; i < 16; i++)
		if (v->def_port_mask & (1u << i))
			ports[n++] = i;
	if (n == 0)
		return 0;
	flow = (((entropy & 0xFu) + (entropy >> 4)) & 31u);
	return v->u_ucast_dlid[ports[flow % n]];
}

/* Facts 2.1 rules 2-4 (no MAC-table hit). */
static uint32_t
model_dlid_no_hit(const struct vnic_vesw_info *v, const struct rte_ether_addr *dst,
		  uint16_t entropy)
{
	if (dst->addr_bytes[0] & 0x01)
		return v->u_mcast_dlid;
	if (dst->addr_bytes[0] & 0x02)
		return lid_of(dst);
	return model_default_dlid(v, entropy);
}

/* Facts 2.5: the shift of a frame's traffic class. */
static unsigned int
model_rc_shift(uint16_t type, uint8_t proto)
{
	if (type == RTE_ETHER_TYPE_IPV4)
		return proto == IPPROTO_UDP ? RC_SHIFT_IPV4_UDP :
			proto == IPPROTO_TCP ? RC_SHIFT_IPV4_TCP : RC_SHIFT_IPV4;
	if (type == RTE_ETHER_TYPE_IPV6)
		return proto == IPPROTO_TCP ? RC_SHIFT_IPV6_TCP :
			proto == IPPROTO_UDP ? RC_SHIFT_IPV6_UDP : RC_SHIFT_IPV6;
	return RC_SHIFT_NON_IP;
}

/* Facts 2.2: the row of the SC/VL tables a frame uses (-1 = non-VLAN). */
static int
model_pcp(const struct frame_spec *s)
{
	return s->tpid[0] != 0 ? s->tci[0] >> 13 : -1;
}

static uint8_t
model_sc(const struct vnic_port_info *p, const struct frame_spec *s)
{
	int pcp = model_pcp(s);
	bool mc = s->dst.addr_bytes[0] & 1;

	if (pcp >= 0)
		return mc ? p->pcp_to_sc_mc[pcp] : p->pcp_to_sc_uc[pcp];
	return mc ? p->non_vlan_sc_mc : p->non_vlan_sc_uc;
}

static uint8_t
model_vl(const struct vnic_port_info *p, const struct frame_spec *s)
{
	int pcp = model_pcp(s);
	bool mc = s->dst.addr_bytes[0] & 1;

	if (pcp >= 0)
		return mc ? p->pcp_to_vl_mc[pcp] : p->pcp_to_vl_uc[pcp];
	return mc ? p->non_vlan_vl_mc : p->non_vlan_vl_uc;
}

/* Facts 2.4: 32-bit hash folded to 8 bits by XOR of its bytes. */
static uint16_t
model_entropy(uint32_t h)
{
	return (uint8_t)h ^ (uint8_t)(h >> 8) ^ (uint8_t)(h >> 16) ^ (uint8_t)(h >> 24);
}

/* Facts 2.7: size bucket by the FCS-inclusive length. */
static unsigned int
model_bucket(uint32_t len)
{
	uint64_t l = (uint64_t)len + 4;

	if (l <= 64)
		return 0;
	if (l <= 127)
		return 1;
	if (l <= 255)
		return 2;
	if (l <= 511)
		return 3;
	if (l <= 1023)
		return 4;
	if (l <= 1518)
		return 5;
	return 6;
}

/* ---------------------------------------------------------------------- */
/* Vports */

/* Facts 3.4: power-on defaults, written field by field. */
static void
expected_defaults(struct vnic_vesw_info *v, struct vnic_port_info *p)
{
	memset(v, 0, sizeof(*v));
	memset(p, 0, sizeof(*p));
	v->eth_mtu = 1500;
	p->eth_link_status = 2;
	p->config_state = 1;
	p->oper_state = 1;
	p->max_mac_tbl_ent = 2048;
	p->max_smac_ent = 256;
}

/* A valid configuration with every EM-written field set. */
static void
base_config(struct vnic_vesw_info *v, struct vnic_port_info *p)
{
	unsigned int i;

	memset(v, 0, sizeof(*v));
	memset(p, 0, sizeof(*p));
	v->fabric_id = 0x301;
	v->vesw_id = 2;
	v->def_port_mask = 0x0005;
	v->pkey = 0x8001;
	v->u_mcast_dlid = 0xF00001;
	for (i = 0; i < VNIC_UCAST_DLID_MAX; i++)
		v->u_ucast_dlid[i] = 0x100 + 0x11 * i;
	v->rc = 0x01234567 & RC_VALID_MASK;
	v->eth_mtu = 1500;
	p->port_num = 7;
	p->eth_link_status = 2;
	mac_set(&p->base_mac_addr, 0x06, 0x2c, 0x00, 0x09, 0x00, 0x00);
	p->config_state = 3;
	p->oper_state = 1;
	p->max_mac_tbl_ent = 2048;
	p->max_smac_ent = 256;
	p->encap_slid = 9;
	for (i = 0; i < 8; i++) {
		p->pcp_to_sc_uc[i] = (uint8_t)i;
		p->pcp_to_vl_uc[i] = (uint8_t)(8 + i);
		p->pcp_to_sc_mc[i] = (uint8_t)(16 + i);
		p->pcp_to_vl_mc[i] = (uint8_t)(7 - i);
	}
	p->non_vlan_sc_uc = 28;
	p->non_vlan_vl_uc = 14;
	p->non_vlan_sc_mc = 30;
	p->non_vlan_vl_mc = 15;
}

/* Retire callback that keeps old snapshots for the test to inspect. */
struct retire_log {
	struct vnic_policy *old[64];
	unsigned int n;
};

static void
retire_keep(void *arg, struct vnic_policy *old)
{
	struct retire_log *l = arg;

	assert_true(l->n < ARRAY_LEN(l->old));
	l->old[l->n++] = old;
}

static void
retire_log_free(struct retire_log *l)
{
	unsigned int i;

	for (i = 0; i < l->n; i++)
		free(l->old[i]);
	l->n = 0;
}

/* A vport configured with base_config() (carrier down), events taken. */
static struct vnic_vport *
vport_configured(struct vnic_vesw_info *v, struct vnic_port_info *p)
{
	struct vnic_vport *vp = vnic_vport_create(0, NULL, NULL);

	assert_non_null(vp);
	base_config(v, p);
	assert_int_equal(vnic_vport_configure(vp, v, p), 0);
	vnic_vport_take_events(vp);
	return vp;
}

static struct vnic_policy *
policy_dup(const struct vnic_policy *p)
{
	struct vnic_policy *c = malloc(sizeof(*c));

	assert_non_null(c);
	memcpy(c, p, sizeof(*c));
	return c;
}

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
	w->tx_errors = tx_fifo + tx_carrier + w->tx_drop_state + w->tx_dlid_zero;
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

/* vnic_flow_hash, vnic_classify and vnic_tx_fields never read past len (0..100, heap, ASan). */
static void
test_flow_hash_never_reads_past_len(void **state)
{
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct vnic_vport *vp = vport_configured(&v, &p);
	uint8_t tmpl[10][FRAME_MAX];
	uint64_t seed = 0x0b0b;
	unsigned int t, i;
	size_t len;

	(void)state;
	for (t = 0; t < ARRAY_LEN(tmpl); t++) {
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
			free(b);
		}
	vnic_vport_free(vp);
}

/* A vport not forwarding drops every frame it is given, TX and RX, counted
 * as drop_state only; once forwarding, TX drops a frame without DLID as
 * dlid_zero and RX drops runts (< 60) and frames over MTU + 18 as runt and
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
main(void)
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
		cmocka_unit_test(test_flow_hash_stable_and_port_sensitive),
		cmocka_unit_test(test_flow_hash_never_reads_past_len),
	};

	return cmocka_run_group_tests_name("vnic", tests, NULL, NULL);
}
