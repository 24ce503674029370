/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * The control path of net_opa_vnic, on the EAL interrupt thread (an alarm):
 * it feeds management packets to the VEMA agent and sends its replies and
 * traps, follows the fabric link, turns each vport's oper_state into link
 * state (LSC events), MAC and MTU, keeps the vesw map the datapath demuxes
 * by, and frees retired policy snapshots once no datapath queue can still
 * read them (RCU, rte_rcu_qsbr). ctl_lock makes it the one writer.
 */

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_alarm.h>
#include <rte_cycles.h>
#include <rte_malloc.h>

#include "opa16b.h"
#include "opa_vnic.h"

/* Management packets handled per tick. */
#define MGMT_BURST 32
/* Tries to hand a reply to a busy fabric queue. */
#define MGMT_TX_TRIES 1000

/* Called by lib/vnic, with ctl_lock held, for each replaced snapshot. */
static void
retire_policy(void *arg, struct vnic_policy *old)
{
	struct opa_vnic_dev *dev = arg;
	struct opa_vnic_retired *r = malloc(sizeof(*r));

	if (r == NULL) {
		/* no memory to defer: wait for the readers now */
		rte_rcu_qsbr_synchronize(dev->qsbr, RTE_QSBR_THRID_INVALID);
		free(old);
		dev->retired_freed++;
		return;
	}
	r->policy = old;
	r->token = rte_rcu_qsbr_start(dev->qsbr);
	r->next = dev->retired;
	dev->retired = r;
}

void
opa_vnic_ctl_reclaim(struct opa_vnic_dev *dev, bool wait)
{
	struct opa_vnic_retired **pp = &dev->retired, *r;

	while ((r = *pp) != NULL) {
		if (rte_rcu_qsbr_check(dev->qsbr, r->token, wait) == 1) {
			*pp = r->next;
			free(r->policy);
			free(r);
			dev->retired_freed++;
		} else {
			pp = &r->next;
		}
	}
}

static void
vport_new(void *arg, struct vnic_vport *vp)
{
	struct opa_vnic_dev *dev = arg;

	if (vnic_vport_index(vp) >= dev->nb_vports)
		OPA_VNIC_LOG(WARNING, "%s: the EM created vport %u, which has no ethdev (vports=%u)",
			     dev->name, vnic_vport_index(vp), dev->nb_vports);
}

static void
mgmt_send(struct opa_vnic_dev *dev, const void *pkt, size_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(dev->pool);
	unsigned int tries;
	void *d;

	if (m == NULL || (d = rte_pktmbuf_append(m, (uint16_t)len)) == NULL) {
		rte_pktmbuf_free(m);
		dev->mgmt_tx_fail++;
		return;
	}
	memcpy(d, pkt, len);
	for (tries = 0; tries < MGMT_TX_TRIES; tries++) {
		uint16_t sent;

		if (dev->tx_shared)
			rte_spinlock_lock(&dev->ftx_lock[dev->mgmt_txq]);
		sent = rte_eth_tx_burst(dev->fabric_port, dev->mgmt_txq, &m, 1);
		if (dev->tx_shared)
			rte_spinlock_unlock(&dev->ftx_lock[dev->mgmt_txq]);
		if (sent == 1) {
			dev->mgmt_tx++;
			return;
		}
		rte_pause();
	}
	rte_pktmbuf_free(m);
	dev->mgmt_tx_fail++;
}

static void vesw_map_refresh(struct opa_vnic_dev *dev);

static void
mgmt_rx(struct opa_vnic_dev *dev, struct rte_mbuf *m)
{
	uint8_t *buf = dev->mgmt_buf, *reply = dev->mgmt_reply;
	uint32_t len = rte_pktmbuf_pkt_len(m);
	const uint8_t *pkt;
	size_t rlen;

	/* The default queue of net_hfi1 also gets what no rule claims. */
	pkt = rte_pktmbuf_read(m, 0, RTE_MIN(len, (uint32_t)VEMA_PKT_MAX), buf);
	if (pkt == NULL || len > VEMA_PKT_MAX || len < OPA16B_FM_HDR_LEN ||
	    opa16b_get_l2(pkt) != OPA16B_L2_16B || opa16b_get_l4(pkt) != OPA16B_L4_FM) {
		dev->mgmt_other++;
		rte_pktmbuf_free(m);
		return;
	}
	dev->mgmt_rx++;
	rlen = vema_agent_rx(dev->agent, pkt, len, reply, VEMA_PKT_MAX);
	rte_pktmbuf_free(m);
	/* The datapath demuxes by the new vesws before the EM hears the SET
	 * is done: else frames the EM (or a peer it told) sends right after
	 * the reply could meet the old map (rx_bad_veswid) while the
	 * rest of the tick runs.
	 */
	vesw_map_refresh(dev);
	if (rlen != 0)
		mgmt_send(dev, reply, rlen);
}

static void
carrier_update(struct opa_vnic_dev *dev, struct opa_vnic_port *port)
{
	bool up = port->started && dev->fabric_up;

	if (vnic_vport_set_carrier(port->vp, up) != 0)
		OPA_VNIC_LOG(ERR, "%s: no memory to change the carrier of vport %u",
			     dev->name, port->index);
}

/*
 * Apply a vport's EM state to its ethdev. Returns true when its link
 * changed (the caller raises the LSC event once it dropped ctl_lock).
 */
static bool
port_apply(struct opa_vnic_dev *dev, struct opa_vnic_port *port)
{
	const struct vnic_policy *p = vnic_vport_policy(port->vp);
	struct rte_eth_dev_data *data = port->eth->data;
	bool up;

	if (!rte_is_zero_ether_addr(&p->port.base_mac_addr) &&
	    !rte_is_same_ether_addr(&p->port.base_mac_addr, &port->base_mac)) {
		port->base_mac = p->port.base_mac_addr;
		data->mac_addrs[0] = port->base_mac;
		OPA_VNIC_LOG(INFO, "%s: port %u MAC " RTE_ETHER_ADDR_PRT_FMT " from the EM",
			     dev->name, port->port_id, RTE_ETHER_ADDR_BYTES(&port->base_mac));
		opa_vnic_ctl_iface_macs(port);
	}
	if (p->vesw.eth_mtu != port->applied_mtu) {
		port->applied_mtu = p->vesw.eth_mtu;
		data->mtu = p->vesw.eth_mtu;
	}
	up = vnic_forwarding(p);
	if (up == port->link_up)
		return false;
	__atomic_store_n(&port->link_up, up, __ATOMIC_RELEASE);
	/* Publish it before the LSC event: with intr_conf.lsc set,
	 * rte_eth_link_get_nowait() returns dev_link without calling
	 * link_update, so the application would read the old link.
	 */
	opa_vnic_link_update(port->eth, 0);
	OPA_VNIC_LOG(INFO, "%s: port %u link %s (vesw %u)", dev->name, port->port_id,
		     up ? "up" : "down", p->vesw.vesw_id);
	return true;
}

/* Rebuild the vesw map entry by entry (each byte store is atomic). */
static void
vesw_map_refresh(struct opa_vnic_dev *dev)
{
	uint8_t want[VNIC_VESW_ID_MAX + 1];
	unsigned int i;

	memset(want, 0, sizeof(want));
	/* Highest index first: when two vports share a vesw the lowest wins. */
	for (i = dev->nb_vports; i-- > 0;) {
		uint16_t vesw;

		if (dev->ports[i] == NULL)
			continue;
		vesw = vnic_vport_policy(dev->ports[i]->vp)->vesw.vesw_id & VNIC_VESW_ID_MAX;
		if (vesw != 0)
			want[vesw] = (uint8_t)(i + 1);
	}
	for (i = 0; i <= VNIC_VESW_ID_MAX; i++)
		if (dev->vesw_map[i] != want[i])
			__atomic_store_n(&dev->vesw_map[i], want[i], __ATOMIC_RELEASE);
}

/*
 * The port was started or stopped. A link change is told by the next tick,
 * from the control thread: an LSC callback run inside the application's
 * own rte_eth_dev_stop() could close the port under it.
 */
void
opa_vnic_ctl_port_state(struct opa_vnic_dev *dev, struct opa_vnic_port *port)
{
	rte_spinlock_lock(&dev->ctl_lock);
	carrier_update(dev, port);
	if (port_apply(dev, port))
		port->lsc_pending = true;
	vesw_map_refresh(dev);
	rte_spinlock_unlock(&dev->ctl_lock);
}

int
opa_vnic_ctl_iface_macs(struct opa_vnic_port *port)
{
	struct rte_ether_addr uc[OPA_VNIC_MAX_MACS];
	struct rte_eth_dev_data *data = port->eth->data;
	uint16_t n = 0, i;
	int ret;

	/* The EM's own base MAC is not reported back as a host MAC. */
	for (i = 0; i < OPA_VNIC_MAX_MACS; i++)
		if (!rte_is_zero_ether_addr(&data->mac_addrs[i]) &&
		    !rte_is_same_ether_addr(&data->mac_addrs[i], &port->base_mac))
			uc[n++] = data->mac_addrs[i];
	ret = vnic_vport_set_iface_macs(port->vp, VNIC_LIST_UCAST, uc, n);
	if (ret >= 0)
		ret = vnic_vport_set_iface_macs(port->vp, VNIC_LIST_MCAST, port->mc_addrs,
						port->nb_mc_addrs);
	return ret < 0 ? ret : 0;
}

void
opa_vnic_ctl_tick(struct opa_vnic_dev *dev)
{
	struct rte_mbuf *m[MGMT_BURST];
	struct rte_eth_link link;
	uint16_t changed[OPA_VNIC_MAX_VPORTS];	/* their ethdev port ids */
	unsigned int nb_changed = 0, n = 0, i;
	size_t len;

	rte_spinlock_lock(&dev->ctl_lock);
	if (dev->fabric_gone) {
		rte_spinlock_unlock(&dev->ctl_lock);
		return;
	}
	if (rte_eth_link_get_nowait(dev->fabric_port, &link) == 0 &&
	    (bool)link.link_status != dev->fabric_up) {
		dev->fabric_up = link.link_status;
		OPA_VNIC_LOG(INFO, "%s: fabric port %u link %s", dev->name, dev->fabric_port,
			     dev->fabric_up ? "up" : "down");
		for (i = 0; i < dev->nb_vports; i++)
			if (dev->ports[i] != NULL)
				carrier_update(dev, dev->ports[i]);
	}

	if (dev->mgmt_rxq >= 0)
		n = rte_eth_rx_burst(dev->fabric_port, (uint16_t)dev->mgmt_rxq, m, MGMT_BURST);
	n += rte_ring_sc_dequeue_burst(dev->mgmt_ring, (void **)&m[n], MGMT_BURST - n, NULL);
	for (i = 0; i < n; i++)
		mgmt_rx(dev, m[i]);
	while ((len = vema_agent_poll(dev->agent, rte_get_timer_cycles() * NS_PER_S /
				      rte_get_timer_hz(), dev->mgmt_reply, VEMA_PKT_MAX)) != 0)
		mgmt_send(dev, dev->mgmt_reply, len);

	for (i = 0; i < dev->nb_vports; i++)
		if (dev->ports[i] != NULL &&
		    (port_apply(dev, dev->ports[i]) || dev->ports[i]->lsc_pending)) {
			dev->ports[i]->lsc_pending = false;
			changed[nb_changed++] = dev->ports[i]->port_id;
		}
	vesw_map_refresh(dev);
	opa_vnic_ctl_reclaim(dev, false);
	rte_spinlock_unlock(&dev->ctl_lock);

	/*
	 * Callbacks may call back into the PMD: never under ctl_lock. One may
	 * close a port (even the last one): ports are named by id, not by
	 * their private data, which closing frees.
	 */
	for (i = 0; i < nb_changed; i++)
		if (rte_eth_dev_is_valid_port(changed[i]))
			rte_eth_dev_callback_process(&rte_eth_devices[changed[i]],
						     RTE_ETH_EVENT_INTR_LSC, NULL);
}

static void
ctl_alarm(void *arg)
{
	struct opa_vnic_dev *dev = arg;

	if (__atomic_load_n(&dev->ctl_stopped, __ATOMIC_ACQUIRE))
		return;
	opa_vnic_ctl_tick(dev);
	/* An LSC callback of this tick may have closed the last port. */
	if (__atomic_load_n(&dev->ctl_stopped, __ATOMIC_ACQUIRE))
		return;
	if (rte_eal_alarm_set(dev->mgmt_period_us, ctl_alarm, dev) != 0) {
		OPA_VNIC_LOG(ERR, "%s: cannot re-arm the control alarm: management stops",
			     dev->name);
		dev->alarm_set = false;
	}
}

int
opa_vnic_ctl_init(struct opa_vnic_dev *dev)
{
	struct vema_agent_conf ac = {
		.lid = dev->lid,
		.port_num = 1,
		.retire = retire_policy,
		.retire_arg = dev,
		.on_new = vport_new,
		.cb_arg = dev,
	};
	char rname[RTE_RING_NAMESIZE];
	unsigned int i;
	size_t sz;

	sz = rte_rcu_qsbr_get_memsize(dev->nb_pollers * 2u);
	dev->qsbr = rte_zmalloc_socket("opa_vnic_qsbr", sz, RTE_CACHE_LINE_SIZE,
				       dev->socket);
	if (dev->qsbr == NULL || rte_rcu_qsbr_init(dev->qsbr, dev->nb_pollers * 2u) != 0)
		return -ENOMEM;
	snprintf(rname, sizeof(rname), "ovm_%u_%u", dev->fabric_port, (unsigned int)getpid());
	dev->mgmt_ring = rte_ring_create(rname, 256, dev->socket,
					 RING_F_SC_DEQ);
	if (dev->mgmt_ring == NULL)
		return -rte_errno;
	dev->agent = vema_agent_create(&ac);
	if (dev->agent == NULL)
		return -ENOMEM;
	for (i = 0; i < dev->nb_vports; i++)
		if (vema_agent_add_vport(dev->agent, (uint8_t)i) == NULL)
			return -ENOMEM;
	return 0;
}

int
opa_vnic_ctl_start(struct opa_vnic_dev *dev)
{
	int ret = rte_eal_alarm_set(dev->mgmt_period_us, ctl_alarm, dev);

	if (ret == 0)
		dev->alarm_set = true;
	return ret;
}

void
opa_vnic_ctl_fini(struct opa_vnic_dev *dev)
{
	struct rte_mbuf *m;

	/*
	 * Cancelling fails (EINPROGRESS) when this runs inside the alarm, from
	 * an LSC callback that closed the last port: the flag stops the
	 * running tick from re-arming.
	 */
	__atomic_store_n(&dev->ctl_stopped, true, __ATOMIC_RELEASE);
	if (dev->alarm_set) {
		rte_eal_alarm_cancel(ctl_alarm, dev);
		dev->alarm_set = false;
	}
	/* Nothing polls now: every retired snapshot can go. */
	if (dev->qsbr != NULL)
		opa_vnic_ctl_reclaim(dev, true);
	vema_agent_free(dev->agent);
	dev->agent = NULL;
	if (dev->mgmt_ring != NULL) {
		while (rte_ring_sc_dequeue(dev->mgmt_ring, (void **)&m) == 0)
			rte_pktmbuf_free(m);
		rte_ring_free(dev->mgmt_ring);
		dev->mgmt_ring = NULL;
	}
	rte_free(dev->qsbr);
	dev->qsbr = NULL;
}
