/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* What the EM sets on a vport, encoded; two VESWPORT_INFOs compared field
 * by field; two configurations compared vport by vport (serve's reload).
 */

#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include <omni_bytes.h>
#include "em_config.h"
#include "vema_mad.h"

/* The EM-written fields of VESWPORT_INFO, by wire offset. */
struct info_field {
	const char *name;
	uint16_t off;  /* within the 280-byte VESWPORT_INFO */
	uint8_t size;  /* 1, 2, 4: a number; 6: a MAC; 8: a table */
};

#define DIGEST_OFF (152 + 20)

static const struct info_field info_fields[] = {
	{ "vesw.fabric_id", 0, 2 }, { "vesw.vesw_id", 2, 2 },
	{ "vesw.def_port_mask", 10, 2 }, { "vesw.pkey", 14, 2 },
	{ "vesw.u_mcast_dlid", 20, 4 },
	{ "vesw.u_ucast_dlid[0]", 24, 4 }, { "vesw.u_ucast_dlid[1]", 28, 4 },
	{ "vesw.u_ucast_dlid[2]", 32, 4 }, { "vesw.u_ucast_dlid[3]", 36, 4 },
	{ "vesw.u_ucast_dlid[4]", 40, 4 }, { "vesw.u_ucast_dlid[5]", 44, 4 },
	{ "vesw.u_ucast_dlid[6]", 48, 4 }, { "vesw.u_ucast_dlid[7]", 52, 4 },
	{ "vesw.u_ucast_dlid[8]", 56, 4 }, { "vesw.u_ucast_dlid[9]", 60, 4 },
	{ "vesw.u_ucast_dlid[10]", 64, 4 }, { "vesw.u_ucast_dlid[11]", 68, 4 },
	{ "vesw.u_ucast_dlid[12]", 72, 4 }, { "vesw.u_ucast_dlid[13]", 76, 4 },
	{ "vesw.u_ucast_dlid[14]", 80, 4 }, { "vesw.u_ucast_dlid[15]", 84, 4 },
	{ "vesw.rc", 88, 4 }, { "vesw.eth_mtu", 148, 2 },
	{ "port.port_num", 152 + 0, 4 }, { "port.base_mac_addr", 152 + 8, 6 },
	{ "port.config_state", 152 + 14, 1 }, { "port.mac_tbl_digest", DIGEST_OFF, 4 },
	{ "port.encap_slid", 152 + 28, 4 },
	{ "port.pcp_to_sc_uc", 152 + 32, 8 }, { "port.pcp_to_vl_uc", 152 + 40, 8 },
	{ "port.pcp_to_sc_mc", 152 + 48, 8 }, { "port.pcp_to_vl_mc", 152 + 56, 8 },
	{ "port.non_vlan_sc_uc", 152 + 64, 1 }, { "port.non_vlan_vl_uc", 152 + 65, 1 },
	{ "port.non_vlan_sc_mc", 152 + 66, 1 }, { "port.non_vlan_vl_mc", 152 + 67, 1 },
};

static void
format_field(char *out, size_t len, const uint8_t *p, uint8_t size)
{
	unsigned int i;

	if (size <= 4) {
		snprintf(out, len, "0x%x", (uint32_t)omni_get_be_n(p, size));
		return;
	}
	out[0] = '\0';
	for (i = 0; i < size; i++)
		snprintf(out + strlen(out), len - strlen(out), "%s%02x",
			 i ? (size == 6 ? ":" : ",") : "", p[i]);
}

void
em_vport_info_encode(const struct em_config *cfg, const struct em_vport *vp, uint8_t *out)
{
	struct vnic_vesw_info vesw;
	struct vnic_port_info port;

	em_vport_info(cfg, vp, &vesw, &port);
	vema_veswport_info_encode(out, &vesw, &port);
}

unsigned int
em_vport_info_diff(const uint8_t *want, const uint8_t *got, bool digest,
		   struct em_info_diff *out, unsigned int max)
{
	unsigned int i, n = 0;

	for (i = 0; i < RTE_DIM(info_fields); i++) {
		const struct info_field *f = &info_fields[i];

		if ((!digest && f->off == DIGEST_OFF) ||
		    memcmp(want + f->off, got + f->off, f->size) == 0)
			continue;
		if (out != NULL && n < max) {
			out[n].name = f->name;
			format_field(out[n].want, sizeof(out[n].want), want + f->off, f->size);
			format_field(out[n].got, sizeof(out[n].got), got + f->off, f->size);
		}
		n++;
	}
	return n;
}

void
em_config_diff(const struct em_config *from, const struct em_config *to, uint32_t *old_of,
	       uint8_t *change, uint32_t *new_of)
{
	uint8_t a[VEMA_VESWPORT_INFO_LEN], b[VEMA_VESWPORT_INFO_LEN];
	unsigned int i, j;

	for (i = 0; i < from->nb_vports; i++)
		new_of[i] = EM_VPORT_GONE;
	for (j = 0; j < to->nb_vports; j++) {
		const struct em_vport *n = &to->vports[j], *o;

		old_of[j] = EM_VPORT_GONE;
		change[j] = EM_VPORT_ADDED;
		for (i = 0; i < from->nb_vports; i++)
			if (from->vports[i].node_lid == n->node_lid &&
			    from->vports[i].index == n->index)
				break;
		if (i == from->nb_vports)
			continue;
		old_of[j] = i;
		new_of[i] = j;
		o = &from->vports[i];
		change[j] = 0;
		em_vport_info_encode(from, o, a);
		em_vport_info_encode(to, n, b);
		if (em_vport_info_diff(a, b, false, NULL, 0) != 0)
			change[j] |= EM_VPORT_INFO;
		if (o->nb_macs != n->nb_macs || o->digest != n->digest ||
		    (n->nb_macs > 0 &&
		     memcmp(o->macs, n->macs, sizeof(*n->macs) * n->nb_macs) != 0))
			change[j] |= EM_VPORT_TABLE;
	}
}
