/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* VEMA MAD codec: every field at its wire offset, big-endian. */

#include <errno.h>
#include <string.h>

#include "vema_mad.h"

static inline void
put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xFF;
}

static inline void
put24(uint8_t *p, uint32_t v)
{
	p[0] = (v >> 16) & 0xFF;
	p[1] = (v >> 8) & 0xFF;
	p[2] = v & 0xFF;
}

static inline void
put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xFFFF);
}

static inline void
put64(uint8_t *p, uint64_t v)
{
	put32(p, v >> 32);
	put32(p + 4, v & 0xFFFFFFFF);
}

static inline uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
get24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

static inline uint64_t
get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

void
vema_hdr_encode(uint8_t *m, const struct vema_hdr *h)
{
	m[0] = h->base_version;
	m[1] = h->mgmt_class;
	m[2] = h->class_version;
	m[3] = h->method;
	put16(m + 4, h->status);
	put16(m + 6, h->class_specific);
	put64(m + 8, h->tid);
	put16(m + 16, h->attr_id);
	put16(m + 18, h->resv);
	put32(m + 20, h->attr_mod);
	m[24] = h->rmpp_version;
	m[25] = h->rmpp_type;
	m[26] = h->rmpp_rtime_flags;
	m[27] = h->rmpp_status;
	put32(m + 28, h->seg_num);
	put32(m + 32, h->paylen_newwin);
	m[36] = h->reserved;
	put24(m + 37, h->oui);
}

void
vema_hdr_decode(const uint8_t *m, struct vema_hdr *h)
{
	h->base_version = m[0];
	h->mgmt_class = m[1];
	h->class_version = m[2];
	h->method = m[3];
	h->status = get16(m + 4);
	h->class_specific = get16(m + 6);
	h->tid = get64(m + 8);
	h->attr_id = get16(m + 16);
	h->resv = get16(m + 18);
	h->attr_mod = get32(m + 20);
	h->rmpp_version = m[24];
	h->rmpp_type = m[25];
	h->rmpp_rtime_flags = m[26];
	h->rmpp_status = m[27];
	h->seg_num = get32(m + 28);
	h->paylen_newwin = get32(m + 32);
	h->reserved = m[36];
	h->oui = get24(m + 37);
}

void
vema_hdr_request(struct vema_hdr *h, uint8_t method, uint16_t attr_id, uint32_t attr_mod,
		 uint64_t tid)
{
	memset(h, 0, sizeof(*h));
	h->base_version = VEMA_BASE_VERSION;
	h->mgmt_class = VEMA_MGMT_CLASS;
	h->class_version = VEMA_CLASS_VERSION;
	h->method = method;
	h->tid = tid;
	h->attr_id = attr_id;
	h->attr_mod = attr_mod;
	h->oui = VEMA_OUI;
}

void
vema_cpi_encode(uint8_t *d, const struct vema_class_port_info *c)
{
	d[0] = c->base_version;
	d[1] = c->class_version;
	put16(d + 2, c->cap_mask);
	put32(d + 4, c->cap_mask2_resp_time);
	memcpy(d + 8, c->redirect_gid, 16);
	put32(d + 24, c->redirect_tc_fl);
	put32(d + 28, c->redirect_lid);
	put32(d + 32, c->redirect_sl_qp);
	put32(d + 36, c->redirect_qkey);
	memcpy(d + 40, c->trap_gid, 16);
	put32(d + 56, c->trap_tc_fl);
	put32(d + 60, c->trap_lid);
	put32(d + 64, c->trap_hl_qp);
	put32(d + 68, c->trap_qkey);
	put16(d + 72, c->trap_pkey);
	put16(d + 74, c->redirect_pkey);
	d[76] = c->trap_sl_rsvd;
	memcpy(d + 77, c->rsvd, 3);
}

void
vema_cpi_decode(const uint8_t *d, struct vema_class_port_info *c)
{
	c->base_version = d[0];
	c->class_version = d[1];
	c->cap_mask = get16(d + 2);
	c->cap_mask2_resp_time = get32(d + 4);
	memcpy(c->redirect_gid, d + 8, 16);
	c->redirect_tc_fl = get32(d + 24);
	c->redirect_lid = get32(d + 28);
	c->redirect_sl_qp = get32(d + 32);
	c->redirect_qkey = get32(d + 36);
	memcpy(c->trap_gid, d + 40, 16);
	c->trap_tc_fl = get32(d + 56);
	c->trap_lid = get32(d + 60);
	c->trap_hl_qp = get32(d + 64);
	c->trap_qkey = get32(d + 68);
	c->trap_pkey = get16(d + 72);
	c->redirect_pkey = get16(d + 74);
	c->trap_sl_rsvd = d[76];
	memcpy(c->rsvd, d + 77, 3);
}

void
vema_veswport_info_encode(uint8_t *d, const struct vnic_vesw_info *v,
			  const struct vnic_port_info *p)
{
	uint8_t *q = d + VEMA_VESW_INFO_LEN;
	unsigned int i;

	put16(d + 0, v->fabric_id);
	put16(d + 2, v->vesw_id);
	memcpy(d + 4, v->rsvd0, 6);
	put16(d + 10, v->def_port_mask);
	memcpy(d + 12, v->rsvd1, 2);
	put16(d + 14, v->pkey);
	memcpy(d + 16, v->rsvd2, 4);
	put32(d + 20, v->u_mcast_dlid);
	for (i = 0; i < VNIC_UCAST_DLID_MAX; i++)
		put32(d + 24 + 4 * i, v->u_ucast_dlid[i]);
	put32(d + 88, v->rc);
	memcpy(d + 92, v->rsvd3, 56);
	put16(d + 148, v->eth_mtu);
	memcpy(d + 150, v->rsvd4, 2);

	put32(q + 0, p->port_num);
	q[4] = p->eth_link_status;
	memcpy(q + 5, p->rsvd0, 3);
	memcpy(q + 8, p->base_mac_addr.addr_bytes, 6);
	q[14] = p->config_state;
	q[15] = p->oper_state;
	put16(q + 16, p->max_mac_tbl_ent);
	put16(q + 18, p->max_smac_ent);
	put32(q + 20, p->mac_tbl_digest);
	memcpy(q + 24, p->rsvd1, 4);
	put32(q + 28, p->encap_slid);
	memcpy(q + 32, p->pcp_to_sc_uc, 8);
	memcpy(q + 40, p->pcp_to_vl_uc, 8);
	memcpy(q + 48, p->pcp_to_sc_mc, 8);
	memcpy(q + 56, p->pcp_to_vl_mc, 8);
	q[64] = p->non_vlan_sc_uc;
	q[65] = p->non_vlan_vl_uc;
	q[66] = p->non_vlan_sc_mc;
	q[67] = p->non_vlan_vl_mc;
	memcpy(q + 68, p->rsvd2, 48);
	put16(q + 116, p->uc_macs_gen_count);
	put16(q + 118, p->mc_macs_gen_count);
	memcpy(q + 120, p->rsvd3, 8);
}

void
vema_veswport_info_decode(const uint8_t *d, struct vnic_vesw_info *v,
			  struct vnic_port_info *p)
{
	const uint8_t *q = d + VEMA_VESW_INFO_LEN;
	unsigned int i;

	v->fabric_id = get16(d + 0);
	v->vesw_id = get16(d + 2);
	memcpy(v->rsvd0, d + 4, 6);
	v->def_port_mask = get16(d + 10);
	memcpy(v->rsvd1, d + 12, 2);
	v->pkey = get16(d + 14);
	memcpy(v->rsvd2, d + 16, 4);
	v->u_mcast_dlid = get32(d + 20);
	for (i = 0; i < VNIC_UCAST_DLID_MAX; i++)
		v->u_ucast_dlid[i] = get32(d + 24 + 4 * i);
	v->rc = get32(d + 88);
	memcpy(v->rsvd3, d + 92, 56);
	v->eth_mtu = get16(d + 148);
	memcpy(v->rsvd4, d + 150, 2);

	p->port_num = get32(q + 0);
	p->eth_link_status = q[4];
	memcpy(p->rsvd0, q + 5, 3);
	memcpy(p->base_mac_addr.addr_bytes, q + 8, 6);
	p->config_state = q[14];
	p->oper_state = q[15];
	p->max_mac_tbl_ent = get16(q + 16);
	p->max_smac_ent = get16(q + 18);
	p->mac_tbl_digest = get32(q + 20);
	memcpy(p->rsvd1, q + 24, 4);
	p->encap_slid = get32(q + 28);
	memcpy(p->pcp_to_sc_uc, q + 32, 8);
	memcpy(p->pcp_to_vl_uc, q + 40, 8);
	memcpy(p->pcp_to_sc_mc, q + 48, 8);
	memcpy(p->pcp_to_vl_mc, q + 56, 8);
	p->non_vlan_sc_uc = q[64];
	p->non_vlan_vl_uc = q[65];
	p->non_vlan_sc_mc = q[66];
	p->non_vlan_vl_mc = q[67];
	memcpy(p->rsvd2, q + 68, 48);
	p->uc_macs_gen_count = get16(q + 116);
	p->mc_macs_gen_count = get16(q + 118);
	memcpy(p->rsvd3, q + 120, 8);
}

void
vema_mac_tbl_hdr_encode(uint8_t *d, const struct vema_mac_tbl_hdr *h)
{
	put16(d, h->offset);
	put16(d + 2, h->num_entries);
	put32(d + 4, h->digest);
}

void
vema_mac_tbl_hdr_decode(const uint8_t *d, struct vema_mac_tbl_hdr *h)
{
	h->offset = get16(d);
	h->num_entries = get16(d + 2);
	h->digest = get32(d + 4);
}

void
vema_mac_entry_encode(uint8_t *d, const struct vnic_mac_entry *e)
{
	memcpy(d, e->mac.addr_bytes, 6);
	memcpy(d + 6, e->mask.addr_bytes, 6);
	put32(d + 12, e->dlid_sd);
}

void
vema_mac_entry_decode(const uint8_t *d, struct vnic_mac_entry *e)
{
	memcpy(e->mac.addr_bytes, d, 6);
	memcpy(e->mask.addr_bytes, d + 6, 6);
	e->dlid_sd = get32(d + 12);
}

void
vema_iface_hdr_encode(uint8_t *d, const struct vema_iface_hdr *h)
{
	put16(d, h->start_idx);
	put16(d + 2, h->num_macs_in_msg);
	put16(d + 4, h->tot_macs_in_lst);
	put16(d + 6, h->gen_count);
}

void
vema_iface_hdr_decode(const uint8_t *d, struct vema_iface_hdr *h)
{
	h->start_idx = get16(d);
	h->num_macs_in_msg = get16(d + 2);
	h->tot_macs_in_lst = get16(d + 4);
	h->gen_count = get16(d + 6);
}

static void
counters_hdr_encode(uint8_t *d, const struct vema_counters_hdr *h)
{
	put16(d, h->vp_instance);
	put16(d + 2, h->vesw_id);
	put32(d + 4, h->veswport_num);
}

static void
counters_hdr_decode(const uint8_t *d, struct vema_counters_hdr *h)
{
	h->vp_instance = get16(d);
	h->vesw_id = get16(d + 2);
	h->veswport_num = get32(d + 4);
}

/* The 11 group counters of a direction, in wire order. */
static void
grp_encode(uint8_t *d, const struct vnic_grp_stats *g)
{
	unsigned int i;

	put64(d, g->unicast);
	put64(d + 8, g->mcastbcast);
	put64(d + 16, g->untagged);
	put64(d + 24, g->vlan);
	for (i = 0; i < VNIC_SIZE_BUCKETS; i++)
		put64(d + 32 + 8 * i, g->size[i]);
}

static void
grp_decode(const uint8_t *d, struct vnic_grp_stats *g)
{
	unsigned int i;

	g->unicast = get64(d);
	g->mcastbcast = get64(d + 8);
	g->untagged = get64(d + 16);
	g->vlan = get64(d + 24);
	for (i = 0; i < VNIC_SIZE_BUCKETS; i++)
		g->size[i] = get64(d + 32 + 8 * i);
}

void
vema_summary_encode(uint8_t *d, const struct vema_counters_hdr *h, const struct vnic_counters *c)
{
	memset(d, 0, VEMA_SUMMARY_LEN);
	counters_hdr_encode(d, h);
	put64(d + 8, c->tx_errors);
	put64(d + 16, c->rx_errors);
	put64(d + 24, c->tx_packets);
	put64(d + 32, c->rx_packets);
	put64(d + 40, c->tx_bytes);
	put64(d + 48, c->rx_bytes);
	grp_encode(d + 56, &c->tx);
	grp_encode(d + 144, &c->rx);
}

void
vema_summary_decode(const uint8_t *d, struct vema_counters_hdr *h, struct vnic_counters *c)
{
	counters_hdr_decode(d, h);
	c->tx_errors = get64(d + 8);
	c->rx_errors = get64(d + 16);
	c->tx_packets = get64(d + 24);
	c->rx_packets = get64(d + 32);
	c->tx_bytes = get64(d + 40);
	c->rx_bytes = get64(d + 48);
	grp_decode(d + 56, &c->tx);
	grp_decode(d + 144, &c->rx);
}

void
vema_errors_encode(uint8_t *d, const struct vema_counters_hdr *h, const struct vnic_counters *c)
{
	memset(d, 0, VEMA_ERROR_LEN);
	counters_hdr_encode(d, h);
	put64(d + 8, c->tx_errors);
	put64(d + 16, c->rx_errors);
	put64(d + 32, c->tx_smac_filt);
	put64(d + 64, c->tx_dlid_zero);
	put64(d + 80, c->tx_logic);
	put64(d + 96, c->tx_drop_state);
	put64(d + 104, c->rx_bad_veswid);
	put64(d + 120, c->rx_runt);
	put64(d + 128, c->rx_oversize);
	put64(d + 144, c->rx_eth_down);
	put64(d + 152, c->rx_drop_state);
	put64(d + 160, c->rx_logic);
}

void
vema_errors_decode(const uint8_t *d, struct vema_counters_hdr *h, struct vnic_counters *c)
{
	counters_hdr_decode(d, h);
	c->tx_errors = get64(d + 8);
	c->rx_errors = get64(d + 16);
	c->tx_smac_filt = get64(d + 32);
	c->tx_dlid_zero = get64(d + 64);
	c->tx_logic = get64(d + 80);
	c->tx_drop_state = get64(d + 96);
	c->rx_bad_veswid = get64(d + 104);
	c->rx_runt = get64(d + 120);
	c->rx_oversize = get64(d + 128);
	c->rx_eth_down = get64(d + 144);
	c->rx_drop_state = get64(d + 152);
	c->rx_logic = get64(d + 160);
}

/* Notice: generic type INFO (4) << 1, the Intel OUI, then the trap. */
#define VEMA_NOTICE_GEN_TYPE 0x08

void
vema_notice_encode(uint8_t *d, const struct vema_trap *t)
{
	uint8_t *r = d + 32;

	memset(d, 0, VEMA_NOTICE_LEN);
	d[0] = VEMA_NOTICE_GEN_TYPE;
	put24(d + 1, VEMA_OUI);
	put32(d + 8, t->issuer_lid);
	put16(r, t->fabric_id);
	put16(r + 2, t->vesw_id);
	put32(r + 4, t->veswport_num);
	put16(r + 8, t->opa_port_num);
	r[10] = t->vport_index;
	r[11] = t->opcode;
}

int
vema_notice_decode(const uint8_t *d, struct vema_trap *t)
{
	const uint8_t *r = d + 32;

	if (d[0] != VEMA_NOTICE_GEN_TYPE || get24(d + 1) != VEMA_OUI)
		return -EINVAL;
	t->issuer_lid = get32(d + 8);
	t->fabric_id = get16(r);
	t->vesw_id = get16(r + 2);
	t->veswport_num = get32(r + 4);
	t->opa_port_num = get16(r + 8);
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
