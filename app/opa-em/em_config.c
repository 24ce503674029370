/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* The EM configuration file: YAML (libyaml document API), fully checked. */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include <rte_hash_crc.h>

#include <omni_num.h>
#include "em_config.h"
#include "opa16b_lmac.h"

struct ctx {
	const char *file;
	yaml_document_t doc;
	char *err;
	size_t errlen;
	bool failed;
};

static void __rte_format_printf(4, 5)
fail(struct ctx *c, const yaml_node_t *n, const char *key, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	if (c->failed)
		return;
	c->failed = true;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(c->err, c->errlen, "%s:%zu: %s: %s", c->file,
		 n != NULL ? n->start_mark.line + 1 : 0, key, msg);
}

static const char *
scalar(const yaml_node_t *n)
{
	return n != NULL && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static yaml_node_t *
node(struct ctx *c, int id)
{
	return yaml_document_get_node(&c->doc, id);
}

/* Refuse keys of a mapping that are not in @allowed (NULL-terminated). */
static bool
check_keys(struct ctx *c, yaml_node_t *map, const char *path, const char *const *allowed)
{
	yaml_node_pair_t *pair;

	for (pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = node(c, pair->key);
		const char *name = scalar(k);
		const char *const *a;

		if (name == NULL) {
			fail(c, k, path, "keys must be plain names");
			return false;
		}
		for (a = allowed; *a != NULL; a++)
			if (strcmp(*a, name) == 0)
				break;
		if (*a == NULL) {
			fail(c, k, path, "unknown key '%s'", name);
			return false;
		}
	}
	return true;
}

static yaml_node_t *
get(struct ctx *c, yaml_node_t *map, const char *key)
{
	yaml_node_pair_t *pair;

	for (pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
		const char *name = scalar(node(c, pair->key));

		if (name != NULL && strcmp(name, key) == 0)
			return node(c, pair->value);
	}
	return NULL;
}

static bool
parse_uint(struct ctx *c, yaml_node_t *n, const char *key, uint64_t min, uint64_t max,
	   uint64_t *out)
{
	const char *s = scalar(n);
	int ret;

	if (s == NULL || *s == '\0' || *s == '-' || *s == '+' || *s == ' ') {
		fail(c, n, key, "expected a number");
		return false;
	}
	/* decimal, or hex with 0x: a leading 0 is not octal */
	ret = omni_parse_uint(s, min, max, OMNI_NUM_HEX, out);
	if (ret == -EINVAL) {
		fail(c, n, key, "'%s' is not a number", s);
		return false;
	}
	if (ret != 0) {
		fail(c, n, key, "%s is out of range %" PRIu64 "..%" PRIu64 " (0x%" PRIx64 ")",
		     s, min, max, max);
		return false;
	}
	return true;
}

/* An optional number: absent leaves *out untouched. */
static bool
opt_uint(struct ctx *c, yaml_node_t *map, const char *path, const char *key, uint64_t min,
	 uint64_t max, uint64_t *out)
{
	char full[160];
	yaml_node_t *n = get(c, map, key);

	if (n == NULL)
		return true;
	snprintf(full, sizeof(full), "%.100s.%.40s", path, key);
	return parse_uint(c, n, full, min, max, out);
}

static bool
req_uint(struct ctx *c, yaml_node_t *map, const char *path, const char *key, uint64_t min,
	 uint64_t max, uint64_t *out)
{
	if (get(c, map, key) == NULL) {
		fail(c, map, path, "missing key '%s'", key);
		return false;
	}
	return opt_uint(c, map, path, key, min, max, out);
}

static bool
parse_mac(struct ctx *c, yaml_node_t *n, const char *key, struct rte_ether_addr *mac)
{
	const char *s = scalar(n);

	if (s == NULL || strlen(s) != 17 || rte_ether_unformat_addr(s, mac) != 0) {
		fail(c, n, key, "expected a MAC as xx:xx:xx:xx:xx:xx");
		return false;
	}
	return true;
}

/* A list of @n small numbers (SC/VL tables). */
static bool
opt_table(struct ctx *c, yaml_node_t *map, const char *path, const char *key, uint8_t *t,
	  unsigned int n, uint64_t max)
{
	char full[160];
	yaml_node_t *l = get(c, map, key);
	yaml_node_item_t *it;
	unsigned int i = 0;

	if (l == NULL)
		return true;
	snprintf(full, sizeof(full), "%.100s.%.40s", path, key);
	if (l->type != YAML_SEQUENCE_NODE ||
	    l->data.sequence.items.top - l->data.sequence.items.start != (long)n) {
		fail(c, l, full, "expected a list of %u numbers", n);
		return false;
	}
	for (it = l->data.sequence.items.start; it < l->data.sequence.items.top; it++) {
		uint64_t v;

		if (!parse_uint(c, node(c, *it), full, 0, max, &v))
			return false;
		t[i++] = (uint8_t)v;
	}
	return true;
}

static const struct {
	const char *name;
	unsigned int shift;
} rc_classes[] = {
	{ "default", VNIC_RC_DEFAULT }, { "ipv4", VNIC_RC_IPV4 },
	{ "ipv4_udp", VNIC_RC_IPV4_UDP }, { "ipv4_tcp", VNIC_RC_IPV4_TCP },
	{ "ipv6", VNIC_RC_IPV6 }, { "ipv6_tcp", VNIC_RC_IPV6_TCP },
	{ "ipv6_udp", VNIC_RC_IPV6_UDP },
};

static bool
parse_rc(struct ctx *c, yaml_node_t *n, const char *path, uint32_t *rc)
{
	static const char *const keys[] = {
		"default", "ipv4", "ipv4_udp", "ipv4_tcp", "ipv6", "ipv6_tcp", "ipv6_udp", NULL
	};
	char full[160];
	unsigned int i;

	snprintf(full, sizeof(full), "%.100s.rc", path);
	if (n->type != YAML_MAPPING_NODE) {
		fail(c, n, full, "expected a mapping of traffic class to RC (0..7)");
		return false;
	}
	if (!check_keys(c, n, full, keys))
		return false;
	*rc = 0;
	for (i = 0; i < RTE_DIM(rc_classes); i++) {
		uint64_t v = 0;

		if (!opt_uint(c, n, full, rc_classes[i].name, 0, 7, &v))
			return false;
		*rc |= (uint32_t)v << rc_classes[i].shift;
	}
	return true;
}

static bool
parse_em(struct ctx *c, yaml_node_t *n, struct em_config *cfg)
{
	static const char *const keys[] = { "lid", "pkey", "sl", NULL };
	uint64_t lid = 0, pkey = 0xFFFF, sl = 0;

	if (n->type != YAML_MAPPING_NODE) {
		fail(c, n, "em", "expected a mapping");
		return false;
	}
	if (!check_keys(c, n, "em", keys) ||
	    !req_uint(c, n, "em", "lid", 1, OPA16B_LID_MAX, &lid) ||
	    !opt_uint(c, n, "em", "pkey", 1, 0xFFFF, &pkey) ||
	    !opt_uint(c, n, "em", "sl", 0, 31, &sl))
		return false;
	cfg->em_lid = (uint32_t)lid;
	cfg->pkey = (uint16_t)pkey;
	cfg->sl = (uint8_t)sl;
	return true;
}

static bool
parse_vesw(struct ctx *c, yaml_node_t *n, unsigned int i, struct em_vesw *v)
{
	static const char *const keys[] = {
		"id", "fabric_id", "pkey", "mtu", "mcast_dlid", "ucast_dlids",
		"def_port_mask", "rc", NULL
	};
	char path[32];
	uint64_t id = 0, fabric = 0, pkey = 0, mtu = VNIC_ETH_MTU_DEFAULT, mcast = 0, mask;
	yaml_node_t *l, *rc;
	yaml_node_item_t *it;
	unsigned int k = 0;

	snprintf(path, sizeof(path), "vesws[%u]", i);
	memset(v, 0, sizeof(*v));
	v->line = n->start_mark.line + 1;
	if (n->type != YAML_MAPPING_NODE) {
		fail(c, n, path, "expected a mapping");
		return false;
	}
	if (!check_keys(c, n, path, keys) ||
	    !req_uint(c, n, path, "id", 1, VNIC_VESW_ID_MAX, &id) ||
	    !opt_uint(c, n, path, "fabric_id", 0, VNIC_FABRIC_ID_MAX, &fabric) ||
	    !req_uint(c, n, path, "pkey", 1, 0xFFFF, &pkey) ||
	    !opt_uint(c, n, path, "mtu", VNIC_ETH_MTU_MIN, VNIC_ETH_MTU_MAX, &mtu) ||
	    !req_uint(c, n, path, "mcast_dlid", 1, OPA16B_LID_MAX, &mcast))
		return false;
	l = get(c, n, "ucast_dlids");
	if (l != NULL) {
		char full[64];

		snprintf(full, sizeof(full), "%s.ucast_dlids", path);
		if (l->type != YAML_SEQUENCE_NODE ||
		    l->data.sequence.items.top - l->data.sequence.items.start > VNIC_UCAST_DLID_MAX) {
			fail(c, l, full, "expected a list of at most 16 LIDs");
			return false;
		}
		for (it = l->data.sequence.items.start; it < l->data.sequence.items.top; it++) {
			uint64_t lid;

			if (!parse_uint(c, node(c, *it), full, 1, OPA16B_LID_MAX, &lid))
				return false;
			v->ucast_dlid[k++] = (uint32_t)lid;
		}
	}
	/* default: every listed default port */
	mask = k == VNIC_UCAST_DLID_MAX ? 0xFFFF : (1u << k) - 1;
	if (!opt_uint(c, n, path, "def_port_mask", 0, 0xFFFF, &mask))
		return false;
	if (mask >> k) {
		fail(c, get(c, n, "def_port_mask"), path,
		     "def_port_mask 0x%" PRIx64 " names ports beyond the %u ucast_dlids", mask, k);
		return false;
	}
	rc = get(c, n, "rc");
	if (rc != NULL && !parse_rc(c, rc, path, &v->rc))
		return false;
	v->id = (uint16_t)id;
	v->fabric_id = (uint16_t)fabric;
	v->pkey = (uint16_t)pkey;
	v->mtu = (uint16_t)mtu;
	v->mcast_dlid = (uint32_t)mcast;
	v->def_port_mask = (uint16_t)mask;
	return true;
}

static bool
parse_mac_table(struct ctx *c, yaml_node_t *l, const char *path, struct em_vport *vp)
{
	static const char *const keys[] = { "mac", "dlid", "mask", "smac", NULL };
	yaml_node_item_t *it;
	char full[80];
	long n;
	unsigned int i = 0;

	snprintf(full, sizeof(full), "%s.mac_table", path);
	if (l->type != YAML_SEQUENCE_NODE) {
		fail(c, l, full, "expected a list of {mac, dlid} entries");
		return false;
	}
	n = l->data.sequence.items.top - l->data.sequence.items.start;
	if (n > VNIC_MAC_TBL_MAX) {
		fail(c, l, full, "%ld entries, at most %d", n, VNIC_MAC_TBL_MAX);
		return false;
	}
	if (n == 0)
		return true;
	vp->macs = calloc((size_t)n, sizeof(*vp->macs));
	if (vp->macs == NULL) {
		fail(c, l, full, "out of memory");
		return false;
	}
	for (it = l->data.sequence.items.start; it < l->data.sequence.items.top; it++, i++) {
		yaml_node_t *e = node(c, *it), *m;
		struct vnic_mac_entry *ent = &vp->macs[i];
		char epath[96];
		uint64_t dlid = 0, smac = 0;

		snprintf(epath, sizeof(epath), "%s[%u]", full, i);
		if (e->type != YAML_MAPPING_NODE) {
			fail(c, e, epath, "expected a mapping");
			return false;
		}
		if (!check_keys(c, e, epath, keys))
			return false;
		m = get(c, e, "mac");
		if (m == NULL) {
			fail(c, e, epath, "missing key 'mac'");
			return false;
		}
		snprintf(epath + strlen(epath), sizeof(epath) - strlen(epath), ".mac");
		if (!parse_mac(c, m, epath, &ent->mac))
			return false;
		if (rte_is_zero_ether_addr(&ent->mac)) {
			fail(c, m, epath, "the all-zero MAC means 'empty slot' to the agent");
			return false;
		}
		epath[strlen(epath) - 4] = '\0';
		m = get(c, e, "mask");
		if (m != NULL && !parse_mac(c, m, epath, &ent->mask))
			return false;
		if (!req_uint(c, e, epath, "dlid", 1, OPA16B_LID_MAX, &dlid) ||
		    !opt_uint(c, e, epath, "smac", 0, 1, &smac))
			return false;
		ent->dlid_sd = (uint32_t)dlid << VNIC_DLID_SD_SHIFT | (smac ? VNIC_DLID_SD_SMAC : 0);
	}
	vp->nb_macs = (uint16_t)n;
	return true;
}

static bool
parse_vport(struct ctx *c, yaml_node_t *n, unsigned int i, struct em_vport *vp)
{
	static const char *const keys[] = {
		"node_lid", "index", "vesw", "port_num", "encap_slid", "mac", "state",
		"pcp_to_sc_uc", "pcp_to_vl_uc", "pcp_to_sc_mc", "pcp_to_vl_mc",
		"non_vlan_sc_uc", "non_vlan_vl_uc", "non_vlan_sc_mc", "non_vlan_vl_mc",
		"mac_table", "mac_table_digest", NULL
	};
	char path[32], full[96];
	uint64_t lid = 0, index = 0, vesw = 0, port_num, slid, nv[4] = { 0, 0, 0, 0 };
	uint64_t digest = UINT64_MAX;
	yaml_node_t *m, *st;

	snprintf(path, sizeof(path), "vports[%u]", i);
	memset(vp, 0, sizeof(*vp));
	vp->line = n->start_mark.line + 1;
	if (n->type != YAML_MAPPING_NODE) {
		fail(c, n, path, "expected a mapping");
		return false;
	}
	if (!check_keys(c, n, path, keys) ||
	    !req_uint(c, n, path, "node_lid", 1, OPA16B_LID_MAX, &lid) ||
	    !req_uint(c, n, path, "index", 0, 255, &index) ||
	    !req_uint(c, n, path, "vesw", 1, VNIC_VESW_ID_MAX, &vesw))
		return false;
	port_num = index;
	slid = lid;
	if (!opt_uint(c, n, path, "port_num", 0, UINT32_MAX, &port_num) ||
	    !opt_uint(c, n, path, "encap_slid", 1, OPA16B_LID_MAX, &slid) ||
	    !opt_table(c, n, path, "pcp_to_sc_uc", vp->pcp_to_sc_uc, 8, VNIC_SC_MAX) ||
	    !opt_table(c, n, path, "pcp_to_vl_uc", vp->pcp_to_vl_uc, 8, VNIC_VL_MAX) ||
	    !opt_table(c, n, path, "pcp_to_sc_mc", vp->pcp_to_sc_mc, 8, VNIC_SC_MAX) ||
	    !opt_table(c, n, path, "pcp_to_vl_mc", vp->pcp_to_vl_mc, 8, VNIC_VL_MAX) ||
	    !opt_uint(c, n, path, "non_vlan_sc_uc", 0, VNIC_SC_MAX, &nv[0]) ||
	    !opt_uint(c, n, path, "non_vlan_vl_uc", 0, VNIC_VL_MAX, &nv[1]) ||
	    !opt_uint(c, n, path, "non_vlan_sc_mc", 0, VNIC_SC_MAX, &nv[2]) ||
	    !opt_uint(c, n, path, "non_vlan_vl_mc", 0, VNIC_VL_MAX, &nv[3]) ||
	    !opt_uint(c, n, path, "mac_table_digest", 0, UINT32_MAX, &digest))
		return false;
	vp->node_lid = (uint32_t)lid;
	vp->index = (uint8_t)index;
	vp->vesw_id = (uint16_t)vesw;
	vp->port_num = (uint32_t)port_num;
	vp->encap_slid = (uint32_t)slid;
	vp->non_vlan_sc_uc = (uint8_t)nv[0];
	vp->non_vlan_vl_uc = (uint8_t)nv[1];
	vp->non_vlan_sc_mc = (uint8_t)nv[2];
	vp->non_vlan_vl_mc = (uint8_t)nv[3];

	vp->config_state = VNIC_STATE_FORWARDING;
	st = get(c, n, "state");
	if (st != NULL) {
		const char *s = scalar(st);

		snprintf(full, sizeof(full), "%s.state", path);
		if (s != NULL && strcmp(s, "forwarding") == 0) {
			vp->config_state = VNIC_STATE_FORWARDING;
		} else if (s != NULL && strcmp(s, "drop_all") == 0) {
			vp->config_state = VNIC_STATE_DROP_ALL;
		} else {
			fail(c, st, full, "expected 'forwarding' or 'drop_all'");
			return false;
		}
	}
	/* "mac" is a MAC, or "lmac" for the generated fabric address (filled later) */
	m = get(c, n, "mac");
	snprintf(full, sizeof(full), "%s.mac", path);
	if (m == NULL || (scalar(m) != NULL && strcmp(scalar(m), "lmac") == 0)) {
		memset(&vp->mac, 0, sizeof(vp->mac));
	} else {
		if (!parse_mac(c, m, full, &vp->mac))
			return false;
		if (!rte_is_valid_assigned_ether_addr(&vp->mac)) {
			fail(c, m, full, "must be a non-zero unicast MAC");
			return false;
		}
	}
	m = get(c, n, "mac_table");
	if (m != NULL && !parse_mac_table(c, m, path, vp))
		return false;
	if (digest == UINT64_MAX)
		/* opaque to the agent: a CRC of the table lets the EM spot changes */
		digest = vp->nb_macs ? rte_hash_crc(vp->macs, sizeof(*vp->macs) * vp->nb_macs, 0) : 0;
	vp->digest = (uint32_t)digest;
	return true;
}

const struct em_vesw *
em_config_vesw(const struct em_config *cfg, const struct em_vport *vp)
{
	unsigned int i;

	for (i = 0; i < cfg->nb_vesws; i++)
		if (cfg->vesws[i].id == vp->vesw_id)
			return &cfg->vesws[i];
	return NULL;
}

void
em_vport_info(const struct em_config *cfg, const struct em_vport *vp,
	      struct vnic_vesw_info *vesw, struct vnic_port_info *port)
{
	const struct em_vesw *v = em_config_vesw(cfg, vp);

	vnic_info_defaults(vesw, port);
	vesw->fabric_id = v->fabric_id;
	vesw->vesw_id = v->id;
	vesw->def_port_mask = v->def_port_mask;
	vesw->pkey = v->pkey;
	vesw->u_mcast_dlid = v->mcast_dlid;
	memcpy(vesw->u_ucast_dlid, v->ucast_dlid, sizeof(vesw->u_ucast_dlid));
	vesw->rc = v->rc;
	vesw->eth_mtu = v->mtu;
	port->port_num = vp->port_num;
	port->base_mac_addr = vp->mac;
	port->config_state = vp->config_state;
	port->encap_slid = vp->encap_slid;
	memcpy(port->pcp_to_sc_uc, vp->pcp_to_sc_uc, 8);
	memcpy(port->pcp_to_vl_uc, vp->pcp_to_vl_uc, 8);
	memcpy(port->pcp_to_sc_mc, vp->pcp_to_sc_mc, 8);
	memcpy(port->pcp_to_vl_mc, vp->pcp_to_vl_mc, 8);
	port->non_vlan_sc_uc = vp->non_vlan_sc_uc;
	port->non_vlan_vl_uc = vp->non_vlan_vl_uc;
	port->non_vlan_sc_mc = vp->non_vlan_sc_mc;
	port->non_vlan_vl_mc = vp->non_vlan_vl_mc;
	port->mac_tbl_digest = vp->digest;
}

/* Cross references, uniqueness, LMACs, and lib/vnic's own rules. */
static bool
check_all(struct ctx *c, struct em_config *cfg)
{
	yaml_node_t *root = yaml_document_get_root_node(&c->doc);
	unsigned int i, j;

	for (i = 0; i < cfg->nb_vesws; i++)
		for (j = 0; j < i; j++)
			if (cfg->vesws[i].id == cfg->vesws[j].id) {
				snprintf(c->err, c->errlen, "%s:%u: vesws[%u].id: vesw %u already defined at line %u",
					 c->file, cfg->vesws[i].line, i, cfg->vesws[i].id,
					 cfg->vesws[j].line);
				c->failed = true;
				return false;
			}
	for (i = 0; i < cfg->nb_vports; i++) {
		struct em_vport *vp = &cfg->vports[i];
		const struct em_vesw *v = em_config_vesw(cfg, vp);
		struct vnic_vesw_info vi;
		struct vnic_port_info pi;
		const char *why;

		if (v == NULL) {
			snprintf(c->err, c->errlen, "%s:%u: vports[%u].vesw: no vesw with id %u",
				 c->file, vp->line, i, vp->vesw_id);
			c->failed = true;
			return false;
		}
		if (rte_is_zero_ether_addr(&vp->mac)) {
			struct opa16b_lmac a = {
				.fabric_id = v->fabric_id, .vesw_id = v->id, .lid = vp->encap_slid
			};

			opa16b_lmac_build(&a, &vp->mac);
		}
		for (j = 0; j < i; j++) {
			const struct em_vport *o = &cfg->vports[j];
			const char *what = NULL;

			if (o->node_lid == vp->node_lid && o->index == vp->index)
				what = "node_lid/index";
			else if (rte_is_same_ether_addr(&o->mac, &vp->mac))
				what = "mac";
			if (what != NULL) {
				snprintf(c->err, c->errlen, "%s:%u: vports[%u].%s: same as vports[%u] at line %u",
					 c->file, vp->line, i, what, j, o->line);
				c->failed = true;
				return false;
			}
		}
		/* peers without a MAC-table entry send to the LID in bytes 3-5 of a
		 * locally administered MAC: it must be this vport's
		 */
		if ((vp->mac.addr_bytes[0] & RTE_ETHER_LOCAL_ADMIN_ADDR) &&
		    opa16b_lmac_lid(&vp->mac) != vp->encap_slid) {
			snprintf(c->err, c->errlen,
				 "%s:%u: vports[%u].mac: a locally administered MAC must carry the vport's LID %u in bytes 3-5 (it carries %u): use lmac or a global MAC",
				 c->file, vp->line, i, vp->encap_slid, opa16b_lmac_lid(&vp->mac));
			c->failed = true;
			return false;
		}
		em_vport_info(cfg, vp, &vi, &pi);
		why = vnic_info_check_reason(&vi, &pi);
		if (why != NULL) {
			snprintf(c->err, c->errlen, "%s:%u: vports[%u]: %s", c->file, vp->line, i, why);
			c->failed = true;
			return false;
		}
	}
	(void)root;
	return true;
}

void
em_config_free(struct em_config *cfg)
{
	unsigned int i;

	if (cfg->vports != NULL)
		for (i = 0; i < cfg->nb_vports; i++)
			free(cfg->vports[i].macs);
	free(cfg->vports);
	free(cfg->vesws);
	memset(cfg, 0, sizeof(*cfg));
}

static bool
parse_list(struct ctx *c, yaml_node_t *root, const char *key, bool required, unsigned int *nb,
	   yaml_node_t **list)
{
	yaml_node_t *l = get(c, root, key);

	*nb = 0;
	*list = l;
	if (l == NULL) {
		if (required)
			fail(c, root, key, "missing (a list is required)");
		return !required;
	}
	if (l->type != YAML_SEQUENCE_NODE) {
		fail(c, l, key, "expected a list");
		return false;
	}
	*nb = (unsigned int)(l->data.sequence.items.top - l->data.sequence.items.start);
	return true;
}

static bool
parse_root(struct ctx *c, struct em_config *cfg)
{
	static const char *const keys[] = { "em", "vesws", "vports", NULL };
	yaml_node_t *root = yaml_document_get_root_node(&c->doc), *em, *l;
	yaml_node_item_t *it;
	unsigned int i;

	if (root == NULL || root->type != YAML_MAPPING_NODE) {
		fail(c, root, "(top)", "expected a mapping with em, vesws and vports");
		return false;
	}
	if (!check_keys(c, root, "(top)", keys))
		return false;
	em = get(c, root, "em");
	if (em == NULL) {
		fail(c, root, "em", "missing (the EM's own lid is required)");
		return false;
	}
	if (!parse_em(c, em, cfg))
		return false;

	if (!parse_list(c, root, "vesws", true, &cfg->nb_vesws, &l))
		return false;
	cfg->vesws = calloc(cfg->nb_vesws + 1, sizeof(*cfg->vesws));
	if (cfg->vesws == NULL)
		return false;
	i = 0;
	for (it = l->data.sequence.items.start; it < l->data.sequence.items.top; it++, i++)
		if (!parse_vesw(c, node(c, *it), i, &cfg->vesws[i]))
			return false;

	if (!parse_list(c, root, "vports", true, &cfg->nb_vports, &l))
		return false;
	if (cfg->nb_vports > EM_CONFIG_MAX_VPORTS) {
		fail(c, l, "vports", "%u vports, at most %u", cfg->nb_vports, EM_CONFIG_MAX_VPORTS);
		return false;
	}
	cfg->vports = calloc(cfg->nb_vports + 1, sizeof(*cfg->vports));
	if (cfg->vports == NULL)
		return false;
	i = 0;
	for (it = l->data.sequence.items.start; it < l->data.sequence.items.top; it++, i++)
		if (!parse_vport(c, node(c, *it), i, &cfg->vports[i]))
			return false;
	return check_all(c, cfg);
}

int
em_config_parse(const void *text, size_t len, const char *name, struct em_config *cfg,
		char *err, size_t errlen)
{
	struct ctx c = { .file = name, .err = err, .errlen = errlen };
	yaml_parser_t parser;
	bool ok;

	memset(cfg, 0, sizeof(*cfg));
	if (!yaml_parser_initialize(&parser)) {
		snprintf(err, errlen, "%s: cannot start the YAML parser", name);
		return -1;
	}
	yaml_parser_set_input_string(&parser, text, len);
	if (!yaml_parser_load(&parser, &c.doc)) {
		snprintf(err, errlen, "%s:%zu: YAML: %s%s%s", name, parser.problem_mark.line + 1,
			 parser.problem ? parser.problem : "syntax error",
			 parser.context ? " " : "", parser.context ? parser.context : "");
		yaml_parser_delete(&parser);
		return -1;
	}
	ok = parse_root(&c, cfg);
	if (!ok && !c.failed)
		snprintf(err, errlen, "%s: out of memory", name);
	yaml_document_delete(&c.doc);
	yaml_parser_delete(&parser);
	if (!ok) {
		em_config_free(cfg);
		return -1;
	}
	return 0;
}

/* Configuration files are small; a larger one is a mistake. */
#define EM_CONFIG_MAX_BYTES (16u << 20)

int
em_config_load(const char *path, struct em_config *cfg, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0, cap = 0, n;
	int ret;

	memset(cfg, 0, sizeof(*cfg));
	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	do {
		if (len == cap) {
			char *t;

			cap = cap ? cap * 2 : 65536;
			t = cap <= EM_CONFIG_MAX_BYTES ? realloc(text, cap) : NULL;
			if (t == NULL) {
				snprintf(err, errlen, "%s: %s", path, cap > EM_CONFIG_MAX_BYTES ?
					 "larger than 16 MiB" : "out of memory");
				free(text);
				fclose(f);
				return -1;
			}
			text = t;
		}
		n = fread(text + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	if (ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		free(text);
		fclose(f);
		return -1;
	}
	fclose(f);
	ret = em_config_parse(text, len, path, cfg, err, errlen);
	free(text);
	return ret;
}
