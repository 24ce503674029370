/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* VEMA MAD codec: every field at its wire offset, big-endian. */

#include <errno.h>
#include <string.h>

#include <omni_bytes.h>

#include "vema_mad.h"

void
vema_hdr_encode(uint8_t *m, const struct vema_hdr *h)
{
	omni_mad_hdr_encode(m, &h->mad);
	m[24] = h->rmpp_version;
	m[25] = h->rmpp_type;
	m[26] = h->rmpp_rtime_flags;
	m[27] = h->rmpp_status;
	omni_put_be32(m + 28, h->seg_num);
	omni_put_be32(m + 32, h->paylen_newwin);
	m[36] = h->reserved;
	omni_put_be24(m + 37, h->oui);
}

void
vema_hdr_decode(const uint8_t *m, struct vema_hdr *h)
{
	omni_mad_hdr_decode(m, &h->mad);
	h->rmpp_version = m[24];
	h->rmpp_type = m[25];
	h->rmpp_rtime_flags = m[26];
	h->rmpp_status = m[27];
	h->seg_num = omni_get_be32(m + 28);
	h->paylen_newwin = omni_get_be32(m + 32);
	h->reserved = m[36];
	h->oui = omni_get_be24(m + 37);
}

void
vema_hdr_request(struct vema_hdr *h, uint8_t method, uint16_t attr_id, uint32_t attr_mod,
		 uint64_t tid)
{
	memset(h, 0, sizeof(*h));
	h->mad.base_version = VEMA_BASE_VERSION;
	h->mad.mgmt_class = VEMA_MGMT_CLASS;
	h->mad.class_version = VEMA_CLASS_VERSION;
	h->mad.method = method;
	h->mad.tid = tid;
	h->mad.attr_id = attr_id;
	h->mad.attr_mod = attr_mod;
	h->oui = VEMA_OUI;
}

void
vema_cpi_encode(uint8_t *d, const struct vema_class_port_info *c)
{
	d[0] = c->base_version;
	d[1] = c->class_version;
	omni_put_be16(d + 2, c->cap_mask);
	omni_put_be32(d + 4, c->cap_mask2_resp_time);
	memcpy(d + 8, c->redirect_gid, 16);
	omni_put_be32(d + 24, c->redirect_tc_fl);
	omni_put_be32(d + 28, c->redirect_lid);
	omni_put_be32(d + 32, c->redirect_sl_qp);
	omni_put_be32(d + 36, c->redirect_qkey);
	memcpy(d + 40, c->trap_gid, 16);
	omni_put_be32(d + 56, c->trap_tc_fl);
	omni_put_be32(d + 60, c->trap_lid);
	omni_put_be32(d + 64, c->trap_hl_qp);
	omni_put_be32(d + 68, c->trap_qkey);
	omni_put_be16(d + 72, c->trap_pkey);
	omni_put_be16(d + 74, c->redirect_pkey);
	d[76] = c->trap_sl_rsvd;
	memcpy(d + 77, c->rsvd, 3);
}

void
vema_cpi_decode(const uint8_t *d, struct vema_class_port_info *c)
{
	c->base_version = d[0];
	c->class_version = d[1];
	c->cap_mask = omni_get_be16(d + 2);
	c->cap_mask2_resp_time = omni_get_be32(d + 4);
	memcpy(c->redirect_gid, d + 8, 16);
	c->redirect_tc_fl = omni_get_be32(d + 24);
	c->redirect_lid = omni_get_be32(d + 28);
	c->redirect_sl_qp = omni_get_be32(d + 32);
	c->redirect_qkey = omni_get_be32(d + 36);
	memcpy(c->trap_gid, d + 40, 16);
	c->trap_tc_fl = omni_get_be32(d + 56);
	c->trap_lid = omni_get_be32(d + 60);
	c->trap_hl_qp = omni_get_be32(d + 64);
	c->trap_qkey = omni_get_be32(d + 68);
	c->trap_pkey = omni_get_be16(d + 72);
	c->redirect_pkey = omni_get_be16(d + 74);
	c->trap_sl_rsvd = d[76];
	memcpy(c->rsvd, d + 77, 3);
}

void
vema_veswport_info_encode(uint8_t *d, const struct vnic_vesw_info *v,
			  const struct vnic_port_info *p)
{
	uint8_t *q = d + VEMA_VESW_INFO_LEN;
	unsigned int i;

	omni_put_be16(d + 0, v->fabric_id);
	omni_put_be16(d + 2, v->vesw_id);
	memcpy(d + 4, v->rsvd0, 6);
	omni_put_be16(d + 10, v->def_port_mask);
	memcpy(d + 12, v->rsvd1, 2);
	omni_put_be16(d + 14, v->pkey);
	memcpy(d + 16, v->rsvd2, 4);
	omni_put_be32(d + 20, v->u_mcast_dlid);
	for (i = 0; i < VNIC_UCAST_DLID_MAX; i++)
		omni_put_be32(d + 24 + 4 * i, v->u_ucast_dlid[i]);
	omni_put_be32(d + 88, v->rc);
	memcpy(d + 92, v->rsvd3, 56);
	omni_put_be16(d + 148, v->eth_mtu);
	memcpy(d + 150, v->rsvd4, 2);

	omni_put_be32(q + 0, p->port_num);
	q[4] = p->eth_link_status;
	memcpy(q + 5, p->rsvd0, 3);
	memcpy(q + 8, p->base_mac_addr.addr_bytes, 6);
	q[14] = p->config_state;
	q[15] = p->oper_state;
	omni_put_be16(q + 16, p->max_mac_tbl_ent);
	omni_put_be16(q + 18, p->max_smac_ent);
	omni_put_be32(q + 20, p->mac_tbl_digest);
	memcpy(q + 24, p->rsvd1, 4);
	omni_put_be32(q + 28, p->encap_slid);
	memcpy(q + 32, p->pcp_to_sc_uc, 8);
	memcpy(q + 40, p->pcp_to_vl_uc, 8);
	memcpy(q + 48, p->pcp_to_sc_mc, 8);
	memcpy(q + 56, p->pcp_to_vl_mc, 8);
	q[64] = p->non_vlan_sc_uc;
	q[65] = p->non_vlan_vl_uc;
	q[66] = p->non_vlan_sc_mc;
	q[67] = p->non_vlan_vl_mc;
	memcpy(q + 68, p->rsvd2, 48);
	omni_put_be16(q + 116, p->uc_macs_gen_count);
	omni_put_be16(q + 118, p->mc_macs_gen_count);
	memcpy(q + 120, p->rsvd3, 8);
}

void
vema_veswport_info_decode(const uint8_t *d, struct vnic_vesw_info *v,
			  struct vnic_port_info *p)
{
	const uint8_t *q = d + VEMA_VESW_INFO_LEN;
	unsigned int i;

	v->fabric_id = omni_get_be16(d + 0);
	v->vesw_id = omni_get_be16(d + 2);
	memcpy(v->rsvd0, d + 4, 6);
	v->def_port_mask = omni_get_be16(d + 10);
	memcpy(v->rsvd1, d + 12, 2);
	v->pkey = omni_get_be16(d + 14);
	memcpy(v->rsvd2, d + 16, 4);
	v->u_mcast_dlid = omni_get_be32(d + 20);
	for (i = 0; i < VNIC_UCAST_DLID_MAX; i++)
		v->u_ucast_dlid[i] = omni_get_be32(d + 24 + 4 * i);
	v->rc = omni_get_be32(d + 88);
	memcpy(v->rsvd3, d + 92, 56);
	v->eth_mtu = omni_get_be16(d + 148);
	memcpy(v->rsvd4, d + 150, 2);

	p->port_num = omni_get_be32(q + 0);
	p->eth_link_status = q[4];
	memcpy(p->rsvd0, q + 5, 3);
	memcpy(p->base_mac_addr.addr_bytes, q + 8, 6);
	p->config_state = q[14];
	p->oper_state = q[15];
	p->max_mac_tbl_ent = omni_get_be16(q + 16);
	p->max_smac_ent = omni_get_be16(q + 18);
	p->mac_tbl_digest = omni_get_be32(q + 20);
	memcpy(p->rsvd1, q + 24, 4);
	p->encap_slid = omni_get_be32(q + 28);
	memcpy(p->pcp_to_sc_uc, q + 32, 8);
	memcpy(p->pcp_to_vl_uc, q + 40, 8);
	memcpy(p->pcp_to_sc_mc, q + 48, 8);
	memcpy(p->pcp_to_vl_mc, q + 56, 8);
	p->non_vlan_sc_uc = q[64];
	p->non_vlan_vl_uc = q[65];
	p->non_vlan_sc_mc = q[66];
	p->non_vlan_vl_mc = q[67];
	memcpy(p->rsvd2, q + 68, 48);
	p->uc_macs_gen_count = omni_get_be16(q + 116);
	p->mc_macs_gen_count = omni_get_be16(q + 118);
	memcpy(p->rsvd3, q + 120, 8);
}

void
vema_mac_tbl_hdr_encode(uint8_t *d, const struct vema_mac_tbl_hdr *h)
{
	omni_put_be16(d, h->offset);
	omni_put_be16(d + 2, h->num_entries);
	omni_put_be32(d + 4, h->digest);
}

void
vema_mac_tbl_hdr_decode(const uint8_t *d, struct vema_mac_tbl_hdr *h)
{
	h->offset = omni_get_be16(d);
	h->num_entries = omni_get_be16(d + 2);
	h->digest = omni_get_be32(d + 4);
}

void
vema_mac_entry_encode(uint8_t *d, const struct vnic_mac_entry *e)
{
	memcpy(d, e->mac.addr_bytes, 6);
	memcpy(d + 6, e->mask.addr_bytes, 6);
	omni_put_be32(d + 12, e->dlid_sd);
}

void
vema_mac_entry_decode(const uint8_t *d, struct vnic_mac_entry *e)
{
	memcpy(e->mac.addr_bytes, d, 6);
	memcpy(e->mask.addr_bytes, d + 6, 6);
	e->dlid_sd = omni_get_be32(d + 12);
}

void
vema_iface_hdr_encode(uint8_t *d, const struct vema_iface_hdr *h)
{
	omni_put_be16(d, h->start_idx);
	omni_put_be16(d + 2, h->num_macs_in_msg);
	omni_put_be16(d + 4, h->tot_macs_in_lst);
	omni_put_be16(d + 6, h->gen_count);
}

void
vema_iface_hdr_decode(const uint8_t *d, struct vema_iface_hdr *h)
{
	h->start_idx = omni_get_be16(d);
	h->num_macs_in_msg = omni_get_be16(d + 2);
	h->tot_macs_in_lst = omni_get_be16(d + 4);
	h->gen_count = omni_get_be16(d + 6);
}

static void
counters_hdr_encode(uint8_t *d, const struct vema_counters_hdr *h)
{
	omni_put_be16(d, h->vp_instance);
	omni_put_be16(d + 2, h->vesw_id);
	omni_put_be32(d + 4, h->veswport_num);
}

static void
counters_hdr_decode(const uint8_t *d, struct vema_counters_hdr *h)
{
	h->vp_instance = omni_get_be16(d);
	h->vesw_id = omni_get_be16(d + 2);
	h->veswport_num = omni_get_be32(d + 4);
}

/* The 11 group counters of a direction, in wire order. */
static void
grp_encode(uint8_t *d, const struct vnic_grp_stats *g)
{
	unsigned int i;

	omni_put_be64(d, g->unicast);
	omni_put_be64(d + 8, g->mcastbcast);
	omni_put_be64(d + 16, g->untagged);
	omni_put_be64(d + 24, g->vlan);
	for (i = 0; i < VNIC_SIZE_BUCKETS; i++)
		omni_put_be64(d + 32 + 8 * i, g->size[i]);
}

static void
grp_decode(const uint8_t *d, struct vnic_grp_stats *g)
{
	unsigned int i;

	g->unicast = omni_get_be64(d);
	g->mcastbcast = omni_get_be64(d + 8);
	g->untagged = omni_get_be64(d + 16);
	g->vlan = omni_get_be64(d + 24);
	for (i = 0; i < VNIC_SIZE_BUCKETS; i++)
		g->size[i] = omni_get_be64(d + 32 + 8 * i);
}

void
vema_summary_encode(uint8_t *d, const struct vema_counters_hdr *h, const struct vnic_counters *c)
{
	memset(d, 0, VEMA_SUMMARY_LEN);
	counters_hdr_encode(d, h);
	omni_put_be64(d + 8, c->tx_errors);
	omni_put_be64(d + 16, c->rx_errors);
	omni_put_be64(d + 24, c->tx_packets);
	omni_put_be64(d + 32, c->rx_packets);
	omni_put_be64(d + 40, c->tx_bytes);
	omni_put_be64(d + 48, c->rx_bytes);
	grp_encode(d + 56, &c->tx);
	grp_encode(d + 144, &c->rx);
}

void
vema_summary_decode(const uint8_t *d, struct vema_counters_hdr *h, struct vnic_counters *c)
{
	counters_hdr_decode(d, h);
	c->tx_errors = omni_get_be64(d + 8);
	c->rx_errors = omni_get_be64(d + 16);
	c->tx_packets = omni_get_be64(d + 24);
	c->rx_packets = omni_get_be64(d + 32);
	c->tx_bytes = omni_get_be64(d + 40);
	c->rx_bytes = omni_get_be64(d + 48);
	grp_decode(d + 56, &c->tx);
	grp_decode(d + 144, &c->rx);
}

void
vema_errors_encode(uint8_t *d, const struct vema_counters_hdr *h, const struct vnic_counters *c)
{
	memset(d, 0, VEMA_ERROR_LEN);
	counters_hdr_encode(d, h);
	omni_put_be64(d + 8, c->tx_errors);
	omni_put_be64(d + 16, c->rx_errors);
	omni_put_be64(d + 32, c->tx_smac_filt);
	omni_put_be64(d + 64, c->tx_dlid_zero);
	omni_put_be64(d + 80, c->tx_logic);
	omni_put_be64(d + 96, c->tx_drop_state);
	omni_put_be64(d + 104, c->rx_bad_veswid);
	omni_put_be64(d + 120, c->rx_runt);
	omni_put_be64(d + 128, c->rx_oversize);
	omni_put_be64(d + 144, c->rx_eth_down);
	omni_put_be64(d + 152, c->rx_drop_state);
	omni_put_be64(d + 160, c->rx_logic);
}

void
vema_errors_decode(const uint8_t *d, struct vema_counters_hdr *h, struct vnic_counters *c)
{
	counters_hdr_decode(d, h);
	c->tx_errors = omni_get_be64(d + 8);
	c->rx_errors = omni_get_be64(d + 16);
	c->tx_smac_filt = omni_get_be64(d + 32);
	c->tx_dlid_zero = omni_get_be64(d + 64);
	c->tx_logic = omni_get_be64(d + 80);
	c->tx_drop_state = omni_get_be64(d + 96);
	c->rx_bad_veswid = omni_get_be64(d + 104);
	c->rx_runt = omni_get_be64(d + 120);
	c->rx_oversize = omni_get_be64(d + 128);
	c->rx_eth_down = omni_get_be64(d + 144);
	c->rx_drop_state = omni_get_be64(d + 152);
	c->rx_logic = omni_get_be64(d + 160);
}

/* Notice: generic type INFO (4) << 1, the Intel OUI, then the trap. */
#define VEMA_NOTICE_GEN_TYPE 0x08

void
vema_notice_encode(uint8_t *d, const struct vema_trap *t)
{
	uint8_t *r = d + 32;

	memset(d, 0, VEMA_NOTICE_LEN);
	d[0] = VEMA_NOTICE_GEN_TYPE;
	omni_put_be24(d + 1, VEMA_OUI);
	omni_put_be32(d + 8, t->issuer_lid);
	omni_put_be16(r, t->fabric_id);
	omni_put_be16(r + 2, t->vesw_id);
	omni_put_be32(r + 4, t->veswport_num);
	omni_put_be16(r + 8, t->opa_port_num);
	r[10] = t->vport_index;
	r[11] = t->opcode;
}

int
vema_notice_decode(const uint8_t *d, struct vema_trap *t)
{
	const uint8_t *r = d + 32;

	if (d[0] != VEMA_NOTICE_GEN_TYPE || omni_get_be24(d + 1) != VEMA_OUI)
		return -EINVAL;
	t->issuer_lid = omni_get_be32(d + 8);
	t->fabric_id = omni_get_be16(r);
	t->vesw_id = omni_get_be16(r + 2);
	t->veswport_num = omni_get_be32(r + 4);
	t->opa_port_num = omni_get_be16(r + 8);
	t->vport_index = r[10];
	t->opcode = r[11];
	return 0;
}

const char *
vema_status_name(uint16_t status)
{
	switch (status) {
	case VEMA_STATUS_OK:
		return "ok";
	case VEMA_STATUS_BAD_VERSION:
		return "bad class version";
	case VEMA_STATUS_UNSUPPORTED:
		return "unsupported method/attribute";
	case VEMA_STATUS_INVALID:
		return "invalid attribute value";
	default:
		return "unknown status";
	}
}

const char *
vema_attr_name(uint16_t attr_id)
{
	switch (attr_id) {
	case VEMA_ATTR_CLASS_PORT_INFO:
		return "ClassPortInfo";
	case VEMA_ATTR_NOTICE:
		return "Notice";
	case VEMA_ATTR_VESWPORT_INFO:
		return "VESWPORT_INFO";
	case VEMA_ATTR_MAC_ENTRIES:
		return "VESWPORT_MAC_ENTRIES";
	case VEMA_ATTR_IFACE_UCAST_MACS:
		return "IFACE_UCAST_MACS";
	case VEMA_ATTR_IFACE_MCAST_MACS:
		return "IFACE_MCAST_MACS";
	case VEMA_ATTR_DELETE_VESW:
		return "DELETE_VESW";
	case VEMA_ATTR_SUMMARY_COUNTERS:
		return "VESWPORT_SUMMARY_COUNTERS";
	case VEMA_ATTR_ERROR_COUNTERS:
		return "VESWPORT_ERROR_COUNTERS";
	default:
		return "unknown";
	}
}
