/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _VNIC_TEST_UTIL_H_
#define _VNIC_TEST_UTIL_H_

/*
 * Shared by the lib/vnic unit tests: frame builder, MACs, reference models
 * of the facts' rules (written from the facts, not from the library), and
 * vport fixtures. Include after cmocka.
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

static inline void
put_be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xFF;
}

/* Offset of the L4 header of a frame built from @p s. */
static inline size_t
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
static inline size_t
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

static inline void
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

static inline void
mac_random(struct rte_ether_addr *m, uint64_t *seed)
{
	uint64_t r = test_rand(seed);
	unsigned int i;

	for (i = 0; i < RTE_ETHER_ADDR_LEN; i++)
		m->addr_bytes[i] = (uint8_t)(r >> (8 * i));
}

/* A random globally administered unicast MAC. */
static inline void
mac_random_global(struct rte_ether_addr *m, uint64_t *seed)
{
	mac_random(m, seed);
	m->addr_bytes[0] &= ~0x03;
	m->addr_bytes[5] |= 0x01; /* never all zero */
}

/* Facts 2.1 rule 3: the LID of an LMAC, bytes 3..5 little-endian. */
static inline uint32_t
lid_of(const struct rte_ether_addr *m)
{
	return (uint32_t)m->addr_bytes[5] << 16 | (uint32_t)m->addr_bytes[4] << 8 |
		m->addr_bytes[3];
}

static inline struct vnic_mac_entry
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
static inline uint32_t
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
static inline uint32_t
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
static inline unsigned int
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
static inline int
model_pcp(const struct frame_spec *s)
{
	return s->tpid[0] != 0 ? s->tci[0] >> 13 : -1;
}

static inline uint8_t
model_sc(const struct vnic_port_info *p, const struct frame_spec *s)
{
	int pcp = model_pcp(s);
	bool mc = s->dst.addr_bytes[0] & 1;

	if (pcp >= 0)
		return mc ? p->pcp_to_sc_mc[pcp] : p->pcp_to_sc_uc[pcp];
	return mc ? p->non_vlan_sc_mc : p->non_vlan_sc_uc;
}

static inline uint8_t
model_vl(const struct vnic_port_info *p, const struct frame_spec *s)
{
	int pcp = model_pcp(s);
	bool mc = s->dst.addr_bytes[0] & 1;

	if (pcp >= 0)
		return mc ? p->pcp_to_vl_mc[pcp] : p->pcp_to_vl_uc[pcp];
	return mc ? p->non_vlan_vl_mc : p->non_vlan_vl_uc;
}

/* Facts 2.4: 32-bit hash folded to 8 bits by XOR of its bytes. */
static inline uint16_t
model_entropy(uint32_t h)
{
	return (uint8_t)h ^ (uint8_t)(h >> 8) ^ (uint8_t)(h >> 16) ^ (uint8_t)(h >> 24);
}

/* Facts 2.7: size bucket by the FCS-inclusive length. */
static inline unsigned int
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
static inline void
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
static inline void
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

static inline void
retire_keep(void *arg, struct vnic_policy *old)
{
	struct retire_log *l = arg;

	assert_true(l->n < ARRAY_LEN(l->old));
	l->old[l->n++] = old;
}

static inline void
retire_log_free(struct retire_log *l)
{
	unsigned int i;

	for (i = 0; i < l->n; i++)
		free(l->old[i]);
	l->n = 0;
}

/* A vport configured with base_config() (carrier down), events taken. */
static inline struct vnic_vport *
vport_configured(struct vnic_vesw_info *v, struct vnic_port_info *p)
{
	struct vnic_vport *vp = vnic_vport_create(0, NULL, NULL);

	assert_non_null(vp);
	base_config(v, p);
	assert_int_equal(vnic_vport_configure(vp, v, p), 0);
	vnic_vport_take_events(vp);
	return vp;
}

static inline struct vnic_policy *
policy_dup(const struct vnic_policy *p)
{
	struct vnic_policy *c = malloc(sizeof(*c));

	assert_non_null(c);
	memcpy(c, p, sizeof(*c));
	return c;
}

#endif /* _VNIC_TEST_UTIL_H_ */
