/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* Vport state: copy-on-write snapshots, EM configuration, states, lists. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vnic.h"
#include "vnic_internal.h"
#include "vnic_stats.h"

struct iface_list {
	struct rte_ether_addr *macs;
	uint16_t n;
};

struct vnic_vport {
	struct vnic_policy *policy; /* published; replaced, never edited */
	vnic_retire_t retire;
	void *retire_arg;
	uint8_t index;
	bool carrier;
	uint32_t events;
	struct iface_list list[2];
	const struct vnic_txq_stats *txq;
	unsigned int nb_txq;
	const struct vnic_rxq_stats *rxq;
	unsigned int nb_rxq;
};

static void
retire_free(void *arg, struct vnic_policy *old)
{
	(void)arg;
	free(old);
}

void
vnic_info_defaults(struct vnic_vesw_info *vesw, struct vnic_port_info *port)
{
	memset(vesw, 0, sizeof(*vesw));
	memset(port, 0, sizeof(*port));
	vesw->eth_mtu = VNIC_ETH_MTU_DEFAULT;
	port->eth_link_status = VNIC_LINK_DOWN;
	port->config_state = VNIC_STATE_DROP_ALL;
	port->oper_state = VNIC_STATE_DROP_ALL;
	port->max_mac_tbl_ent = VNIC_MAC_TBL_MAX;
	port->max_smac_ent = VNIC_SMAC_MAX;
}

static void
policy_defaults(struct vnic_policy *p)
{
	memset(p, 0, sizeof(*p));
	vnic_info_defaults(&p->vesw, &p->port);
	vnic_flow_tbl_build(p->flow_tbl, 0);
}

/* oper_state and eth_link_status from config_state and carrier. */
static bool
update_state(struct vnic_policy *p, bool carrier)
{
	uint8_t link = p->port.eth_link_status;

	if (p->port.config_state == VNIC_STATE_FORWARDING && carrier)
		p->port.oper_state = VNIC_STATE_FORWARDING;
	else
		p->port.oper_state = VNIC_STATE_DROP_ALL;
	p->port.eth_link_status = p->port.oper_state == VNIC_STATE_FORWARDING ?
		VNIC_LINK_UP : VNIC_LINK_DOWN;
	return link != p->port.eth_link_status;
}

struct vnic_vport *
vnic_vport_create(uint8_t index, vnic_retire_t retire, void *retire_arg)
{
	struct vnic_vport *vp = calloc(1, sizeof(*vp));

	if (vp == NULL)
		return NULL;
	vp->policy = malloc(sizeof(*vp->policy));
	if (vp->policy == NULL) {
		free(vp);
		errno = ENOMEM;
		return NULL;
	}
	policy_defaults(vp->policy);
	vp->index = index;
	vp->retire = retire != NULL ? retire : retire_free;
	vp->retire_arg = retire_arg;
	return vp;
}

void
vnic_vport_free(struct vnic_vport *vp)
{
	if (vp == NULL)
		return;
	free(vp->policy);
	free(vp->list[0].macs);
	free(vp->list[1].macs);
	free(vp);
}

const struct vnic_policy *
vnic_vport_policy(const struct vnic_vport *vp)
{
	return __atomic_load_n(&vp->policy, __ATOMIC_ACQUIRE);
}

uint8_t
vnic_vport_index(const struct vnic_vport *vp)
{
	return vp->index;
}

static struct vnic_policy *
policy_copy(const struct vnic_vport *vp)
{
	struct vnic_policy *p = malloc(sizeof(*p));

	if (p != NULL)
		memcpy(p, vp->policy, sizeof(*p));
	return p;
}

static void
publish(struct vnic_vport *vp, struct vnic_policy *p)
{
	struct vnic_policy *old = vp->policy;

	__atomic_store_n(&vp->policy, p, __ATOMIC_RELEASE);
	vp->retire(vp->retire_arg, old);
}

static bool
table_has_wide(const uint8_t *t, size_t n, uint8_t max)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i] > max)
			return true;
	return false;
}

/* Valid RC bits: a 3-bit field every 4 bits for the 7 traffic classes. */
#define VNIC_RC_VALID_MASK 0x07777777u

const char *
vnic_info_check_reason(const struct vnic_vesw_info *vesw, const struct vnic_port_info *port)
{
	const struct vnic_port_info *o = port;
	unsigned int i;

	if (vesw->vesw_id == 0 || vesw->vesw_id > VNIC_VESW_ID_MAX)
		return "vesw_id must be 1..4095";
	if (vesw->fabric_id > VNIC_FABRIC_ID_MAX)
		return "fabric_id has bits above its 10";
	if (vesw->u_mcast_dlid > OPA16B_LID_MAX)
		return "u_mcast_dlid has bits above its 24";
	for (i = 0; i < VNIC_UCAST_DLID_MAX; i++)
		if (vesw->u_ucast_dlid[i] > OPA16B_LID_MAX)
			return "u_ucast_dlid has bits above its 24";
	if (vesw->rc & ~VNIC_RC_VALID_MASK)
		return "rc has reserved bits set";
	if (vesw->eth_mtu < VNIC_ETH_MTU_MIN || vesw->eth_mtu > VNIC_ETH_MTU_MAX)
		return "eth_mtu out of range";
	if (o->config_state != VNIC_STATE_DROP_ALL && o->config_state != VNIC_STATE_FORWARDING)
		return "config_state must be 1 (drop all) or 3 (forwarding)";
	if (rte_is_multicast_ether_addr(&o->base_mac_addr))
		return "base_mac_addr is multicast";
	if (o->encap_slid > OPA16B_LID_MAX)
		return "encap_slid has bits above its 24";
	if (table_has_wide(o->pcp_to_sc_uc, 8, VNIC_SC_MAX) ||
	    table_has_wide(o->pcp_to_sc_mc, 8, VNIC_SC_MAX) ||
	    o->non_vlan_sc_uc > VNIC_SC_MAX || o->non_vlan_sc_mc > VNIC_SC_MAX)
		return "an SC is above 31";
	/* the VL goes into 4 PBC bits: a wider one would be cut or spill */
	if (table_has_wide(o->pcp_to_vl_uc, 8, VNIC_VL_MAX) ||
	    table_has_wide(o->pcp_to_vl_mc, 8, VNIC_VL_MAX) ||
	    o->non_vlan_vl_uc > VNIC_VL_MAX || o->non_vlan_vl_mc > VNIC_VL_MAX)
		return "a VL is above 15";
	return NULL;
}

int
vnic_info_check(const struct vnic_vesw_info *vesw, const struct vnic_port_info *port)
{
	return vnic_info_check_reason(vesw, port) == NULL ? 0 : -EINVAL;
}

int
vnic_vport_configure(struct vnic_vport *vp, const struct vnic_vesw_info *vesw,
		     const struct vnic_port_info *port)
{
	const struct vnic_policy *old = vp->policy;
	struct vnic_policy *p;

	if (vnic_info_check(vesw, port) != 0)
		return -EINVAL;
	p = policy_copy(vp);
	if (p == NULL)
		return -ENOMEM;
	p->vesw = *vesw;
	p->port = *port;
	/* read-only fields keep the agent's values */
	p->port.eth_link_status = old->port.eth_link_status;
	p->port.oper_state = old->port.oper_state;
	p->port.max_mac_tbl_ent = old->port.max_mac_tbl_ent;
	p->port.max_smac_ent = old->port.max_smac_ent;
	p->port.mac_tbl_digest = old->port.mac_tbl_digest;
	p->port.uc_macs_gen_count = old->port.uc_macs_gen_count;
	p->port.mc_macs_gen_count = old->port.mc_macs_gen_count;
	vnic_flow_tbl_build(p->flow_tbl, p->vesw.def_port_mask);

	if (p->vesw.vesw_id != old->vesw.vesw_id)
		vp->events |= VNIC_EV_VESW_CHANGE;
	if (!rte_is_same_ether_addr(&p->port.base_mac_addr, &old->port.base_mac_addr))
		vp->events |= VNIC_EV_MAC_ADDR_CHANGE;
	if (p->vesw.eth_mtu != old->vesw.eth_mtu)
		vp->events |= VNIC_EV_MTU_CHANGE;
	if (update_state(p, vp->carrier))
		vp->events |= VNIC_EV_LINK_CHANGE;
	publish(vp, p);
	return 0;
}

int
vnic_vport_set_mac_entries(struct vnic_vport *vp, uint16_t offset, uint16_t n,
			   const struct vnic_mac_entry *ent, uint32_t digest)
{
	struct vnic_policy *p;
	unsigned int i;

	if ((unsigned int)offset + n > VNIC_MAC_TBL_MAX)
		return -EINVAL;
	p = policy_copy(vp);
	if (p == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct vnic_mac_entry *e = &p->mac.ent[offset + i];

		if (rte_is_zero_ether_addr(&ent[i].mac))
			memset(e, 0, sizeof(*e)); /* a delete */
		else
			*e = ent[i];
	}
	p->port.mac_tbl_digest = digest;
	vnic_mac_tbl_reindex(&p->mac);
	publish(vp, p);
	return 0;
}

int
vnic_vport_reset(struct vnic_vport *vp)
{
	const struct vnic_policy *old = vp->policy;
	struct vnic_policy *p = malloc(sizeof(*p));

	if (p == NULL)
		return -ENOMEM;
	policy_defaults(p);
	/* the interface lists are the host's, not the EM's: their generations stay */
	p->port.uc_macs_gen_count = old->port.uc_macs_gen_count;
	p->port.mc_macs_gen_count = old->port.mc_macs_gen_count;
	if (old->port.eth_link_status != p->port.eth_link_status)
		vp->events |= VNIC_EV_LINK_CHANGE;
	if (old->vesw.vesw_id != 0)
		vp->events |= VNIC_EV_VESW_CHANGE;
	if (!rte_is_zero_ether_addr(&old->port.base_mac_addr))
		vp->events |= VNIC_EV_MAC_ADDR_CHANGE;
	if (old->vesw.eth_mtu != p->vesw.eth_mtu)
		vp->events |= VNIC_EV_MTU_CHANGE;
	publish(vp, p);
	return 0;
}

int
vnic_vport_set_carrier(struct vnic_vport *vp, bool up)
{
	struct vnic_policy *p;

	if (vp->carrier == up)
		return 0;
	p = policy_copy(vp);
	if (p == NULL)
		return -ENOMEM;
	vp->carrier = up;
	if (update_state(p, up))
		vp->events |= VNIC_EV_LINK_CHANGE;
	publish(vp, p);
	return 0;
}

int
vnic_vport_set_iface_macs(struct vnic_vport *vp, enum vnic_mac_list which,
			  const struct rte_ether_addr *macs, uint16_t n)
{
	struct iface_list *l;
	struct rte_ether_addr *copy = NULL;
	struct vnic_policy *p;
	uint16_t kept = 0, i;

	if ((unsigned int)which > VNIC_LIST_MCAST || n > VNIC_IFACE_MACS_MAX)
		return -EINVAL;
	l = &vp->list[which];
	if (n > 0) {
		copy = malloc(sizeof(*copy) * n);
		if (copy == NULL)
			return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		copy[kept++] = macs[i];
	if (kept == l->n && (kept == 0 || memcmp(copy, l->macs, sizeof(*copy) * kept) == 0)) {
		free(copy);
		return 0;
	}
	p = policy_copy(vp);
	if (p == NULL) {
		free(copy);
		return -ENOMEM;
	}
	free(l->macs);
	l->macs = copy;
	l->n = kept;
	if (which == VNIC_LIST_UCAST) {
		p->port.uc_macs_gen_count++;
		vp->events |= VNIC_EV_UCAST_MAC_CHANGE;
	} else {
		p->port.mc_macs_gen_count++;
		vp->events |= VNIC_EV_MCAST_MAC_CHANGE;
	}
	publish(vp, p);
	return 1;
}

const struct rte_ether_addr *
vnic_vport_iface_macs(const struct vnic_vport *vp, enum vnic_mac_list which, uint16_t *n)
{
	const struct iface_list *l = &vp->list[which == VNIC_LIST_MCAST];

	*n = l->n;
	return l->macs;
}

void
vnic_vport_attach_stats(struct vnic_vport *vp, const struct vnic_txq_stats *txq,
			unsigned int nb_txq, const struct vnic_rxq_stats *rxq, unsigned int nb_rxq)
{
	vp->txq = txq;
	vp->nb_txq = txq != NULL ? nb_txq : 0;
	vp->rxq = rxq;
	vp->nb_rxq = rxq != NULL ? nb_rxq : 0;
}

void
vnic_vport_counters(const struct vnic_vport *vp, struct vnic_counters *out)
{
	vnic_stats_sum(vp->txq, vp->nb_txq, vp->rxq, vp->nb_rxq, out);
}

uint32_t
vnic_vport_take_events(struct vnic_vport *vp)
{
	uint32_t ev = vp->events;

	vp->events = 0;
	return ev;
}
