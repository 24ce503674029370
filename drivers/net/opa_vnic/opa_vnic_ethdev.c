/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * net_opa_vnic: Ethernet ports over an Omni-Path fabric port. The vdev
 * takes ownership of the fabric port (so applications such as testpmd
 * leave it alone), configures and starts it, and creates one ethdev per
 * VNIC vport.
 */

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bus_vdev_driver.h>
#include <ethdev_driver.h>
#include <rte_kvargs.h>
#include <rte_malloc.h>

#include "omni_counters.h"
#include "omni_kvargs.h"
#include "omni_num.h"
#include "opa16b_lmac.h"
#include "opa_vnic.h"
#include "rte_pmd_hfi1.h"

RTE_LOG_REGISTER_DEFAULT(opa_vnic_logtype, NOTICE);

#define ARG_FABRIC "fabric"
#define ARG_VPORTS "vports"
#define ARG_QUEUES "queues"
#define ARG_ENGINES "engines"
#define ARG_LID "lid"
#define ARG_MGMT_MS "mgmt_ms"

/* Every device, for remove (a vdev has no private pointer of its own). */
static struct opa_vnic_dev *devs[RTE_MAX_ETHPORTS];

struct opa_vnic_args {
	char fabric[RTE_ETH_NAME_MAX_LEN];
	unsigned int vports;
	unsigned int queues;
	unsigned int engines;	/* 0: as many as fit, up to 4 */
	uint32_t lid;
	bool lid_set;
	unsigned int mgmt_ms;
};

/* ---- xstats ---- */

/* The EM's counters of the vport, under the names ethdev users know (the four
 * summary packet and byte counters are basic stats, so not every field is
 * here: no OMNI_CTR_TABLE_CHECK).
 */
#define VC(f, name) OMNI_CTR_AS(struct vnic_counters, f, name)
static const struct omni_ctr vport_xstats[] = {
	VC(tx.unicast, "tx_unicast"), VC(tx.mcastbcast, "tx_mcastbcast"),
	VC(tx.untagged, "tx_untagged"), VC(tx.vlan, "tx_vlan"),
	VC(tx.size[VNIC_SIZE_64], "tx_64_size"),
	VC(tx.size[VNIC_SIZE_65_127], "tx_65_127"),
	VC(tx.size[VNIC_SIZE_128_255], "tx_128_255"),
	VC(tx.size[VNIC_SIZE_256_511], "tx_256_511"),
	VC(tx.size[VNIC_SIZE_512_1023], "tx_512_1023"),
	VC(tx.size[VNIC_SIZE_1024_1518], "tx_1024_1518"),
	VC(tx.size[VNIC_SIZE_1519_MAX], "tx_1519_max"),
	VC(rx.unicast, "rx_unicast"), VC(rx.mcastbcast, "rx_mcastbcast"),
	VC(rx.untagged, "rx_untagged"), VC(rx.vlan, "rx_vlan"),
	VC(rx.size[VNIC_SIZE_64], "rx_64_size"),
	VC(rx.size[VNIC_SIZE_65_127], "rx_65_127"),
	VC(rx.size[VNIC_SIZE_128_255], "rx_128_255"),
	VC(rx.size[VNIC_SIZE_256_511], "rx_256_511"),
	VC(rx.size[VNIC_SIZE_512_1023], "rx_512_1023"),
	VC(rx.size[VNIC_SIZE_1024_1518], "rx_1024_1518"),
	VC(rx.size[VNIC_SIZE_1519_MAX], "rx_1519_max"),
	/* ethdev's basic xstats already have "tx_errors"/"rx_errors" (oerrors,
	 * ierrors: a different sum); a second xstat of the same name would be
	 * unreachable by name (rte_eth_xstats_get_id_by_name finds the first).
	 */
	VC(tx_errors, "vnic_tx_errors"), VC(rx_errors, "vnic_rx_errors"),
	VC(tx_logic, "tx_logic"), VC(rx_logic, "rx_logic"),
	VC(tx_dlid_zero, "tx_dlid_zero"), VC(tx_drop_state, "tx_drop_state"),
	VC(tx_oversize, "tx_oversize"), VC(tx_smac_filt, "tx_smac_filt"),
	VC(rx_drop_state, "rx_drop_state"), VC(rx_runt, "rx_runt"),
	VC(rx_oversize, "rx_oversize"), VC(rx_bad_veswid, "rx_bad_veswid"),
	VC(rx_eth_down, "rx_eth_down"),
};
#undef VC
#define NB_VPORT_XSTATS RTE_DIM(vport_xstats)

/* Device-wide counters, shown on every port of the device, named as the
 * fields; then one per decap reason (named by lib/opa16b).
 */
struct dev_xstats {
	uint64_t fabric_rx_packets;
	uint64_t fabric_rx_not_16b;
	uint64_t fabric_rx_other_l4;
	uint64_t fabric_rx_mgmt_full;
	uint64_t fabric_rx_handed_over;
	uint64_t tx_encap_copies;
	uint64_t tx_encap_failed;
	uint64_t tx_requeued;
	uint64_t mgmt_rx;
	uint64_t mgmt_tx;
	uint64_t mgmt_tx_failed;
	uint64_t mgmt_rx_not_fm;
	uint64_t vema_replies;
	uint64_t vema_error_replies;
	uint64_t vema_traps;
	uint64_t vema_drops;
	uint64_t policy_snapshots_freed;
};

#define DC(f) OMNI_CTR(struct dev_xstats, f)
static const struct omni_ctr dev_xstats[] = {
	DC(fabric_rx_packets), DC(fabric_rx_not_16b), DC(fabric_rx_other_l4),
	DC(fabric_rx_mgmt_full), DC(fabric_rx_handed_over),
	DC(tx_encap_copies), DC(tx_encap_failed), DC(tx_requeued),
	DC(mgmt_rx), DC(mgmt_tx), DC(mgmt_tx_failed), DC(mgmt_rx_not_fm),
	DC(vema_replies), DC(vema_error_replies), DC(vema_traps), DC(vema_drops),
	DC(policy_snapshots_freed),
};
#undef DC
OMNI_CTR_TABLE_CHECK(dev_xstats, struct dev_xstats);
#define NB_DEV_CTRS RTE_DIM(dev_xstats)
#define NB_DECAP_XSTATS (OPA16B_VNIC_RX_ERR_MAX - 1)
#define NB_DEV_XSTATS (NB_DEV_CTRS + NB_DECAP_XSTATS)
#define NB_XSTATS (NB_VPORT_XSTATS + NB_DEV_XSTATS)

/* The device-wide counters into v: the table's, then the decap reasons'. */
static void
dev_counters(struct opa_vnic_dev *dev, uint64_t *v)
{
	const struct vema_agent_stats *as = vema_agent_stats(dev->agent);
	uint64_t *decap = v + NB_DEV_CTRS;
	struct dev_xstats d;
	unsigned int i, j, r;

	memset(&d, 0, sizeof(d));
	memset(decap, 0, NB_DECAP_XSTATS * sizeof(*decap));
	for (i = 0; i < dev->nb_vports; i++) {
		struct opa_vnic_port *p = dev->ports[i];

		if (p == NULL)
			continue;
		for (j = 0; j < OPA_VNIC_MAX_QUEUES; j++) {
			const struct opa_vnic_rxq *rq = p->rxq[j];
			const struct opa_vnic_txq *tq = p->txq[j];

			if (rq != NULL) {
				d.fabric_rx_packets += rq->fst.packets;
				d.fabric_rx_not_16b += rq->fst.not_16b;
				d.fabric_rx_other_l4 += rq->fst.other_l4;
				d.fabric_rx_mgmt_full += rq->fst.mgmt_full;
				d.fabric_rx_handed_over += rq->fst.handed;
				for (r = 1; r < OPA16B_VNIC_RX_ERR_MAX; r++)
					decap[r - 1] += rq->fst.decap[r];
			}
			if (tq != NULL) {
				d.tx_encap_copies += tq->encap_copy;
				d.tx_encap_failed += tq->encap_fail;
				d.tx_requeued += tq->requeued;
			}
		}
	}
	d.mgmt_rx = dev->mgmt_rx;
	d.mgmt_tx = dev->mgmt_tx;
	d.mgmt_tx_failed = dev->mgmt_tx_fail;
	d.mgmt_rx_not_fm = dev->mgmt_other;
	d.vema_replies = as->replies;
	d.vema_error_replies = as->replies_error;
	d.vema_traps = as->traps;
	for (r = 0; r < VEMA_DROP_MAX; r++)
		d.vema_drops += as->drops[r];
	d.policy_snapshots_freed = dev->retired_freed;
	omni_ctr_values(dev_xstats, NB_DEV_CTRS, &d, v, NB_DEV_CTRS);
}

/* Every counter of a port, raw (no reset baseline). */
static void
port_counters(struct opa_vnic_port *port, uint64_t *v)
{
	struct vnic_counters c;

	vnic_vport_counters(port->vp, &c);
	omni_ctr_values(vport_xstats, NB_VPORT_XSTATS, &c, v, NB_VPORT_XSTATS);
	dev_counters(port->dev, v + NB_VPORT_XSTATS);
}

static int
opa_vnic_xstats_get_names(struct rte_eth_dev *eth, struct rte_eth_xstat_name *names,
			  unsigned int size)
{
	unsigned int i;

	RTE_SET_USED(eth);
	if (names == NULL || size < NB_XSTATS)
		return NB_XSTATS;
	omni_ctr_names(vport_xstats, NB_VPORT_XSTATS, NULL, names, sizeof(*names),
		       sizeof(names->name), NB_VPORT_XSTATS);
	omni_ctr_names(dev_xstats, NB_DEV_CTRS, NULL, names + NB_VPORT_XSTATS, sizeof(*names),
		       sizeof(names->name), NB_DEV_CTRS);
	for (i = 0; i < NB_DECAP_XSTATS; i++)
		snprintf(names[NB_VPORT_XSTATS + NB_DEV_CTRS + i].name, sizeof(names->name),
			 "fabric_rx_decap_%s", opa16b_vnic_rx_err_name(i + 1));
	return NB_XSTATS;
}

static int
opa_vnic_xstats_get(struct rte_eth_dev *eth, struct rte_eth_xstat *xs, unsigned int n)
{
	struct opa_vnic_port *port = opa_vnic_port_of(eth);
	uint64_t v[NB_XSTATS];
	unsigned int i;

	if (xs == NULL || n < NB_XSTATS)
		return NB_XSTATS;
	port_counters(port, v);
	for (i = 0; i < NB_XSTATS; i++) {
		xs[i].id = i;
		xs[i].value = v[i] - (port->xstats_base != NULL ? port->xstats_base[i] : 0);
	}
	return NB_XSTATS;
}

static int
opa_vnic_xstats_reset(struct rte_eth_dev *eth)
{
	struct opa_vnic_port *port = opa_vnic_port_of(eth);

	/* The EM keeps seeing the raw counters: only this view restarts. */
	if (port->xstats_base == NULL) {
		port->xstats_base = rte_zmalloc("opa_vnic_xstats", NB_XSTATS * sizeof(uint64_t), 0);
		if (port->xstats_base == NULL)
			return -ENOMEM;
	}
	port_counters(port, port->xstats_base);
	return 0;
}

/* ---- basic stats ---- */

static void
ethdev_view(struct opa_vnic_port *port, struct opa_vnic_ethdev_base *b,
	    struct rte_eth_stats *qs)
{
	struct opa_vnic_dev *dev = port->dev;
	struct vnic_counters c;
	unsigned int q, k;

	vnic_vport_counters(port->vp, &c);
	/* ethdev bytes leave the FCS out; the EM's include it */
	b->ipackets = c.rx_packets;
	b->ibytes = c.rx_bytes - RTE_ETHER_CRC_LEN * c.rx_packets;
	b->opackets = c.tx_packets;
	b->obytes = c.tx_bytes - RTE_ETHER_CRC_LEN * c.tx_packets;
	b->imissed = c.rx_logic;
	b->ierrors = c.rx_errors - c.rx_logic;
	b->oerrors = c.tx_errors;
	if (qs == NULL)
		return;
	for (q = 0; q < OPA_VNIC_MAX_QUEUES && q < RTE_ETHDEV_QUEUE_STAT_CNTRS; q++) {
		const struct vnic_txq_stats *t = &port->tx_stats[q];

		qs->q_opackets[q] = t->packets;
		qs->q_obytes[q] = t->bytes - RTE_ETHER_CRC_LEN * t->packets;
		if (port->rxq[q] == NULL)
			continue;
		for (k = 0; k < dev->nb_pollers; k++) {
			/* frames of RX queue q are counted by its own poller only */
			const struct vnic_rxq_stats *r =
				&dev->rx_stats[port->index * dev->nb_pollers + k];

			if (k != port->rxq[q]->poller)
				continue;
			qs->q_ipackets[q] = r->packets;
			qs->q_ibytes[q] = r->bytes - RTE_ETHER_CRC_LEN * r->packets;
		}
	}
}

static int
opa_vnic_stats_get(struct rte_eth_dev *eth, struct rte_eth_stats *st)
{
	struct opa_vnic_port *port = opa_vnic_port_of(eth);
	struct opa_vnic_ethdev_base now;

	ethdev_view(port, &now, st);
	st->ipackets = now.ipackets - port->base.ipackets;
	st->ibytes = now.ibytes - port->base.ibytes;
	st->imissed = now.imissed - port->base.imissed;
	st->ierrors = now.ierrors - port->base.ierrors;
	st->opackets = now.opackets - port->base.opackets;
	st->obytes = now.obytes - port->base.obytes;
	st->oerrors = now.oerrors - port->base.oerrors;
	st->rx_nombuf = 0;
	return 0;
}

static int
opa_vnic_stats_reset(struct rte_eth_dev *eth)
{
	struct opa_vnic_port *port = opa_vnic_port_of(eth);

	ethdev_view(port, &port->base, NULL);
	return 0;
}

static void dev_shutdown(struct opa_vnic_dev *dev);

/* ---- ethdev ops ---- */

static int
opa_vnic_dev_configure(struct rte_eth_dev *eth)
{
	struct opa_vnic_port *port = opa_vnic_port_of(eth);
	struct rte_eth_dev_data *data = eth->data;

	if (data->nb_rx_queues > port->dev->nb_queues ||
	    data->nb_tx_queues > port->dev->nb_queues) {
		OPA_VNIC_LOG(ERR, "%s: %u RX / %u TX queues asked, at most %u (devarg queues)",
			     data->name, data->nb_rx_queues, data->nb_tx_queues,
			     port->dev->nb_queues);
		return -EINVAL;
	}
	return 0;
}

static int
opa_vnic_dev_infos_get(struct rte_eth_dev *eth, struct rte_eth_dev_info *info)
{
	struct opa_vnic_port *port = opa_vnic_port_of(eth);

	info->max_rx_queues = port->dev->nb_queues;
	info->max_tx_queues = port->dev->nb_queues;
	info->max_mac_addrs = OPA_VNIC_MAX_MACS;
	info->min_mtu = VNIC_ETH_MTU_MIN;
	info->max_mtu = VNIC_ETH_MTU_MAX;
	info->max_rx_pktlen = VNIC_ETH_MTU_MAX + OPA16B_VNIC_ETH_OVERHEAD;
	info->min_rx_bufsize = 0;
	/* Jumbo frames arrive chained whatever the application asked. */
	info->rx_offload_capa = RTE_ETH_RX_OFFLOAD_SCATTER;
	info->tx_offload_capa = RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	info->tx_desc_lim.nb_max = 1u << 15;	/* no TX ring: a mere hint */
	info->tx_desc_lim.nb_min = 32;
	info->tx_desc_lim.nb_align = 1;
	/* The hand-over ring of a queue holds at most its share of the pool. */
	info->rx_desc_lim = info->tx_desc_lim;
	info->rx_desc_lim.nb_max = OPA_VNIC_RX_DESC_MAX;
	info->speed_capa = RTE_ETH_LINK_SPEED_100G;
	info->default_rxportconf.ring_size = 1024;
	info->default_txportconf.ring_size = 1024;
	return 0;
}

int
opa_vnic_link_update(struct rte_eth_dev *eth, int wait)
{
	struct opa_vnic_port *port = opa_vnic_port_of(eth);
	struct rte_eth_link link = {
		.link_speed = RTE_ETH_SPEED_NUM_100G,
		.link_duplex = RTE_ETH_LINK_FULL_DUPLEX,
		.link_autoneg = RTE_ETH_LINK_FIXED,
	};

	RTE_SET_USED(wait);
	/* Link follows oper_state: FORWARDING needs the EM, the port started
	 * and the fabric link up. link_up is what the control path last
	 * applied (under ctl_lock): the policy snapshot itself may be retired
	 * and freed under a thread that is no RCU reader.
	 */
	link.link_status = port->started && __atomic_load_n(&port->link_up, __ATOMIC_ACQUIRE);
	if (!link.link_status)
		link.link_speed = RTE_ETH_SPEED_NUM_NONE;
	return rte_eth_linkstatus_set(eth, &link);
}

static void
rxq_drain(struct opa_vnic_rxq *q)
{
	struct rte_mbuf *m;

	while (rte_ring_sc_dequeue(q->ring, (void **)&m) == 0) {
		/* Handed over but never read: a drop like any frame for a
		 * stopped port, not a silent one. q->st is this queue's own
		 * block, and the application does not poll a port it stops.
		 */
		q->st->drop_state++;
		rte_pktmbuf_free(m);
	}
}

static int
opa_vnic_dev_start(struct rte_eth_dev *eth)
{
	struct opa_vnic_port *port = opa_vnic_port_of(eth);
	struct opa_vnic_dev *dev = port->dev;
	uint16_t q;

	for (q = 0; q < eth->data->nb_rx_queues; q++)
		if (port->rxq[q] == NULL)
			return -EINVAL;
	for (q = 0; q < eth->data->nb_tx_queues; q++)
		if (port->txq[q] == NULL)
			return -EINVAL;
	__atomic_store_n(&port->started, true, __ATOMIC_RELEASE);
	for (q = 0; q < eth->data->nb_rx_queues; q++)
		eth->data->rx_queue_state[q] = RTE_ETH_QUEUE_STATE_STARTED;
	for (q = 0; q < eth->data->nb_tx_queues; q++)
		eth->data->tx_queue_state[q] = RTE_ETH_QUEUE_STATE_STARTED;
	opa_vnic_ctl_port_state(dev, port);
	opa_vnic_link_update(eth, 0);
	return 0;
}

/*
 * The application's frames this queue handed to the fabric may still sit in
 * the fabric's TX rings (net_hfi1 frees sent packets lazily, on its next
 * burst). The fabric port goes on running for the other vports, so nothing
 * else would give them back: ask it to free what it has sent, for up to
 * 100 ms while it still makes progress (a fabric without tx_done_cleanup
 * keeps them until it stops).
 */
static void
txq_reclaim(struct opa_vnic_txq *q)
{
	uint64_t deadline = rte_get_timer_cycles() + rte_get_timer_hz() / 10;
	uint16_t e;
	int n;

	for (e = 0; e < q->nb_engines; e++) {
		do {
			n = rte_eth_tx_done_cleanup(q->fabric_port, q->engine_q[e], 0);
		} while (n > 0 && rte_get_timer_cycles() < deadline);
	}
}

static int
opa_vnic_dev_stop(struct rte_eth_dev *eth)
{
	struct opa_vnic_port *port = opa_vnic_port_of(eth);
	struct opa_vnic_dev *dev = port->dev;
	uint16_t q;

	__atomic_store_n(&port->started, false, __ATOMIC_RELEASE);
	/* A poller that saw the port started finishes its hand-over first. */
	for (q = 0; q < dev->nb_fabric_rxq; q++) {
		rte_spinlock_lock(&dev->frx_lock[q]);
		rte_spinlock_unlock(&dev->frx_lock[q]);
	}
	for (q = 0; q < OPA_VNIC_MAX_QUEUES; q++) {
		if (port->rxq[q] != NULL)
			rxq_drain(port->rxq[q]);
		if (port->txq[q] != NULL)
			txq_reclaim(port->txq[q]);
	}
	for (q = 0; q < eth->data->nb_rx_queues; q++)
		eth->data->rx_queue_state[q] = RTE_ETH_QUEUE_STATE_STOPPED;
	for (q = 0; q < eth->data->nb_tx_queues; q++)
		eth->data->tx_queue_state[q] = RTE_ETH_QUEUE_STATE_STOPPED;
	opa_vnic_ctl_port_state(dev, port);
	opa_vnic_link_update(eth, 0);
	return 0;
}

static void
rxq_free(struct opa_vnic_rxq *q)
{
	if (q == NULL)
		return;
	rte_rcu_qsbr_thread_unregister(q->dev->qsbr, q->rcu_id);
	rxq_drain(q);
	rte_ring_free(q->ring);
	rte_free(q);
}

static void
txq_free(struct opa_vnic_txq *q)
{
	if (q == NULL)
		return;
	rte_rcu_qsbr_thread_unregister(q->dev->qsbr, q->rcu_id);
	rte_free(q);
}

static int
opa_vnic_rx_queue_setup(struct rte_eth_dev *eth, uint16_t qid, uint16_t nb_desc,
			unsigned int socket, const struct rte_eth_rxconf *conf,
			struct rte_mempool *mp)
{
	struct opa_vnic_port *port = opa_vnic_port_of(eth);
	struct opa_vnic_dev *dev = port->dev;
	char name[RTE_RING_NAMESIZE];
	struct opa_vnic_rxq *q;

	/* Frames come from the device's own pool (decapsulated in place). */
	RTE_SET_USED(conf);
	RTE_SET_USED(mp);
	rxq_free(port->rxq[qid]);
	port->rxq[qid] = NULL;
	eth->data->rx_queues[qid] = NULL;
	q = rte_zmalloc_socket("opa_vnic_rxq", sizeof(*q), RTE_CACHE_LINE_SIZE, socket);
	if (q == NULL)
		return -ENOMEM;
	q->port = port;
	q->dev = dev;
	q->qid = qid;
	q->poller = (uint16_t)(port->index * dev->nb_queues + qid);
	q->fabric_q = qid < dev->nb_fabric_rxq ? (int16_t)qid : -1;
	q->fabric_port = dev->fabric_port;
	q->st = &dev->rx_stats[port->index * dev->nb_pollers + q->poller];
	q->rcu_id = q->poller * 2u;
	snprintf(name, sizeof(name), "ovr_%u_%u_%u", port->port_id, qid, (unsigned int)getpid());
	/* EXACT_SZ: a plain ring of 2^n slots holds only 2^n - 1 frames, so a
	 * queue of 128 descriptors would hold 127; the ring holds nb_desc
	 * rounded up to a power of two (at least 64), as documented.
	 */
	q->ring = rte_ring_create(name, rte_align32pow2(RTE_MAX(nb_desc, (uint16_t)64)),
				  socket, RING_F_SC_DEQ | RING_F_EXACT_SZ);
	if (q->ring == NULL) {
		rte_free(q);
		return -rte_errno;
	}
	rte_rcu_qsbr_thread_register(dev->qsbr, q->rcu_id);
	port->rxq[qid] = q;
	eth->data->rx_queues[qid] = q;
	return 0;
}

static int
opa_vnic_tx_queue_setup(struct rte_eth_dev *eth, uint16_t qid, uint16_t nb_desc,
			unsigned int socket, const struct rte_eth_txconf *conf)
{
	struct opa_vnic_port *port = opa_vnic_port_of(eth);
	struct opa_vnic_dev *dev = port->dev;
	unsigned int slot = port->index * dev->nb_queues + qid, e;
	struct opa_vnic_txq *q;

	RTE_SET_USED(nb_desc);
	RTE_SET_USED(conf);
	txq_free(port->txq[qid]);
	port->txq[qid] = NULL;
	eth->data->tx_queues[qid] = NULL;
	q = rte_zmalloc_socket("opa_vnic_txq", sizeof(*q), RTE_CACHE_LINE_SIZE, socket);
	if (q == NULL)
		return -ENOMEM;
	q->port = port;
	q->dev = dev;
	q->qid = qid;
	q->fabric_port = dev->fabric_port;
	q->st = &port->tx_stats[qid];
	q->rcu_id = (port->index * dev->nb_queues + qid) * 2u + 1;
	q->nb_engines = dev->engines_per_txq;
	for (e = 0; e < q->nb_engines; e++)
		q->engine_q[e] = (uint16_t)((slot * q->nb_engines + e) %
					    (dev->nb_fabric_txq - (dev->tx_shared ? 0 : 1)));
	rte_rcu_qsbr_thread_register(dev->qsbr, q->rcu_id);
	port->txq[qid] = q;
	eth->data->tx_queues[qid] = q;
	return 0;
}

static void
opa_vnic_rx_queue_release(struct rte_eth_dev *eth, uint16_t qid)
{
	struct opa_vnic_port *port = opa_vnic_port_of(eth);

	rxq_free(port->rxq[qid]);
	port->rxq[qid] = NULL;
	eth->data->rx_queues[qid] = NULL;
}

static void
opa_vnic_tx_queue_release(struct rte_eth_dev *eth, uint16_t qid)
{
	struct opa_vnic_port *port = opa_vnic_port_of(eth);

	txq_free(port->txq[qid]);
	port->txq[qid] = NULL;
	eth->data->tx_queues[qid] = NULL;
}

static int
opa_vnic_dev_close(struct rte_eth_dev *eth)
{
	struct opa_vnic_port *port = opa_vnic_port_of(eth);
	struct opa_vnic_dev *dev = port->dev;
	unsigned int q;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return 0;
	if (port->started)
		opa_vnic_dev_stop(eth);
	for (q = 0; q < OPA_VNIC_MAX_QUEUES; q++) {
		rxq_free(port->rxq[q]);
		txq_free(port->txq[q]);
		port->rxq[q] = NULL;
		port->txq[q] = NULL;
	}
	rte_spinlock_lock(&dev->ctl_lock);
	/* The agent keeps the vport (the EM may still read it); we forget ours. */
	vnic_vport_attach_stats(port->vp, NULL, 0, NULL, 0);
	dev->ports[port->index] = NULL;
	rte_spinlock_unlock(&dev->ctl_lock);
	/* A poller that still saw the port finishes before it is freed. */
	for (q = 0; q < dev->nb_fabric_rxq; q++) {
		rte_spinlock_lock(&dev->frx_lock[q]);
		rte_spinlock_unlock(&dev->frx_lock[q]);
	}
	rte_free(port->xstats_base);
	port->xstats_base = NULL;
	/* The last port closed: the application is done with the device
	 * (testpmd closes every port it sees, then EAL removes vdevs in
	 * command-line order, the fabric's wire first).
	 */
	for (q = 0; q < dev->nb_vports; q++)
		if (dev->ports[q] != NULL)
			break;
	if (q == dev->nb_vports)
		dev_shutdown(dev);
	/* ethdev frees dev_private and mac_addrs when it releases the port */
	return 0;
}

static int
opa_vnic_mtu_set(struct rte_eth_dev *eth, uint16_t mtu)
{
	struct opa_vnic_port *port = opa_vnic_port_of(eth);
	uint16_t em;

	/* ctl_lock: no snapshot is freed while we read it */
	rte_spinlock_lock(&port->dev->ctl_lock);
	em = vnic_vport_policy(port->vp)->vesw.eth_mtu;
	rte_spinlock_unlock(&port->dev->ctl_lock);

	/* The EM's eth_mtu is the vesw's limit; both directions enforce it. */
	if (mtu > em) {
		OPA_VNIC_LOG(ERR, "%s: MTU %u is above the vesw's MTU %u (set by the EM)",
			     eth->data->name, mtu, em);
		return -EINVAL;
	}
	return 0;
}

/*
 * Store one address slot and report the list to the EM, under ctl_lock:
 * the control tick reads the slots and rewrites slot 0 when the EM moves
 * the base MAC. A refused list (-ENOMEM) puts the old address back and
 * reports the old list again. ethdev itself stores the address once more
 * after we return, outside our lock: a base MAC the EM moves in between
 * is then overwritten by the application's, as if the application had
 * set it a moment later.
 */
static int
iface_mac_store(struct rte_eth_dev *eth, uint32_t index, const struct rte_ether_addr *addr)
{
	struct opa_vnic_port *port = opa_vnic_port_of(eth);
	struct rte_ether_addr old;
	int ret;

	rte_spinlock_lock(&port->dev->ctl_lock);
	old = eth->data->mac_addrs[index];
	eth->data->mac_addrs[index] = *addr;
	ret = opa_vnic_ctl_iface_macs(port);
	if (ret != 0) {
		eth->data->mac_addrs[index] = old;
		(void)opa_vnic_ctl_iface_macs(port);	/* best effort */
	}
	rte_spinlock_unlock(&port->dev->ctl_lock);
	return ret;
}

static int
opa_vnic_mac_addr_set(struct rte_eth_dev *eth, struct rte_ether_addr *addr)
{
	/* ethdev stores it too, after we return: the list must see it now */
	return iface_mac_store(eth, 0, addr);
}

static int
opa_vnic_mac_addr_add(struct rte_eth_dev *eth, struct rte_ether_addr *addr, uint32_t index,
		      uint32_t pool)
{
	RTE_SET_USED(pool);
	return iface_mac_store(eth, index, addr);
}

static void
opa_vnic_mac_addr_remove(struct rte_eth_dev *eth, uint32_t index)
{
	static const struct rte_ether_addr none;

	iface_mac_store(eth, index, &none);
}

static int
opa_vnic_set_mc_addr_list(struct rte_eth_dev *eth, struct rte_ether_addr *list, uint32_t n)
{
	struct opa_vnic_port *port = opa_vnic_port_of(eth);
	int ret;

	if (n > OPA_VNIC_MAX_MC_MACS)
		return -ENOSPC;
	rte_spinlock_lock(&port->dev->ctl_lock);
	if (n != 0)
		memcpy(port->mc_addrs, list, n * sizeof(*list));
	port->nb_mc_addrs = (uint16_t)n;
	ret = opa_vnic_ctl_iface_macs(port);
	rte_spinlock_unlock(&port->dev->ctl_lock);
	return ret;
}

/* The fabric delivers a vesw's frames for this node: always promiscuous. */
static int
opa_vnic_promisc_enable(struct rte_eth_dev *eth)
{
	RTE_SET_USED(eth);
	return 0;
}

static int
opa_vnic_promisc_disable(struct rte_eth_dev *eth)
{
	RTE_SET_USED(eth);
	return -ENOTSUP;
}

static const struct eth_dev_ops opa_vnic_ops = {
	.dev_configure = opa_vnic_dev_configure,
	.dev_infos_get = opa_vnic_dev_infos_get,
	.dev_start = opa_vnic_dev_start,
	.dev_stop = opa_vnic_dev_stop,
	.dev_close = opa_vnic_dev_close,
	.link_update = opa_vnic_link_update,
	.rx_queue_setup = opa_vnic_rx_queue_setup,
	.tx_queue_setup = opa_vnic_tx_queue_setup,
	.rx_queue_release = opa_vnic_rx_queue_release,
	.tx_queue_release = opa_vnic_tx_queue_release,
	.stats_get = opa_vnic_stats_get,
	.stats_reset = opa_vnic_stats_reset,
	.xstats_get = opa_vnic_xstats_get,
	.xstats_get_names = opa_vnic_xstats_get_names,
	.xstats_reset = opa_vnic_xstats_reset,
	.mtu_set = opa_vnic_mtu_set,
	.mac_addr_set = opa_vnic_mac_addr_set,
	.mac_addr_add = opa_vnic_mac_addr_add,
	.mac_addr_remove = opa_vnic_mac_addr_remove,
	.set_mc_addr_list = opa_vnic_set_mc_addr_list,
	.promiscuous_enable = opa_vnic_promisc_enable,
	.promiscuous_disable = opa_vnic_promisc_disable,
	.allmulticast_enable = opa_vnic_promisc_enable,
};

/* ---- probe / remove ---- */

/*
 * One handler per devarg (lib/common's omni_kvargs.h), each with its range;
 * every key at most once. Numbers are decimal; lid also takes 0x hex.
 */

static int
arg_fabric(const char *key, const char *val, void *opaque)
{
	struct opa_vnic_args *a = opaque;

	return omni_devarg_str(key, val, a->fabric, sizeof(a->fabric));
}

static int
arg_vports(const char *key, const char *val, void *opaque)
{
	struct opa_vnic_args *a = opaque;
	uint64_t v;

	if (omni_devarg_uint(key, val, 1, OPA_VNIC_MAX_VPORTS, OMNI_NUM_DEC, &v) != 0)
		return -EINVAL;
	a->vports = (unsigned int)v;
	return 0;
}

static int
arg_queues(const char *key, const char *val, void *opaque)
{
	struct opa_vnic_args *a = opaque;
	uint64_t v;

	if (omni_devarg_uint(key, val, 1, OPA_VNIC_MAX_QUEUES, OMNI_NUM_DEC, &v) != 0)
		return -EINVAL;
	a->queues = (unsigned int)v;
	return 0;
}

static int
arg_engines(const char *key, const char *val, void *opaque)
{
	struct opa_vnic_args *a = opaque;
	uint64_t v;

	if (omni_devarg_uint(key, val, 0, OPA_VNIC_MAX_ENGINES, OMNI_NUM_DEC, &v) != 0)
		return -EINVAL;
	a->engines = (unsigned int)v;
	return 0;
}

static int
arg_lid(const char *key, const char *val, void *opaque)
{
	struct opa_vnic_args *a = opaque;
	uint64_t v;

	if (omni_devarg_uint(key, val, 0, 0xFFFFFF, OMNI_NUM_HEX, &v) != 0)
		return -EINVAL;
	a->lid = (uint32_t)v;
	a->lid_set = true;
	return 0;
}

static int
arg_mgmt_ms(const char *key, const char *val, void *opaque)
{
	struct opa_vnic_args *a = opaque;
	uint64_t v;

	if (omni_devarg_uint(key, val, 1, 1000, OMNI_NUM_DEC, &v) != 0)
		return -EINVAL;
	a->mgmt_ms = (unsigned int)v;
	return 0;
}

static const struct omni_devarg opa_vnic_devargs[] = {
	{ ARG_FABRIC, arg_fabric, OMNI_DEVARG_ONCE },
	{ ARG_VPORTS, arg_vports, OMNI_DEVARG_ONCE },
	{ ARG_QUEUES, arg_queues, OMNI_DEVARG_ONCE },
	{ ARG_ENGINES, arg_engines, OMNI_DEVARG_ONCE },
	{ ARG_LID, arg_lid, OMNI_DEVARG_ONCE },
	{ ARG_MGMT_MS, arg_mgmt_ms, OMNI_DEVARG_ONCE },
};

static int
parse_args(const char *params, struct opa_vnic_args *a)
{
	memset(a, 0, sizeof(*a));
	a->vports = 1;
	a->queues = 1;
	a->mgmt_ms = 5;
	if (omni_devargs_parse("net_opa_vnic", params, opa_vnic_devargs,
			       RTE_DIM(opa_vnic_devargs), a) != 0)
		return -EINVAL;
	if (a->fabric[0] == '\0') {
		OPA_VNIC_LOG(ERR, "devarg %s=<fabric port name> is required", ARG_FABRIC);
		return -EINVAL;
	}
	return 0;
}

/* Size the fabric queues: exclusive TX queues when the fabric has enough. */
static int
plan_queues(struct opa_vnic_dev *dev, const struct opa_vnic_args *a,
	    const struct rte_eth_dev_info *fi)
{
	unsigned int users = dev->nb_vports * dev->nb_queues, e;

	dev->nb_fabric_rxq = RTE_MIN(dev->nb_queues,
				     (unsigned int)fi->max_rx_queues - (dev->fabric_hfi1 ? 1 : 0));
	if (dev->nb_fabric_rxq < 1) {
		OPA_VNIC_LOG(ERR, "%s: the fabric port has too few RX queues", dev->name);
		return -EINVAL;
	}
	dev->mgmt_rxq = dev->fabric_hfi1 ? (int16_t)dev->nb_fabric_rxq : -1;
	if (fi->max_tx_queues >= users + 1) {
		e = a->engines != 0 ? a->engines : RTE_MIN(4u, (fi->max_tx_queues - 1u) / users);
		if (users * e + 1 > fi->max_tx_queues) {
			OPA_VNIC_LOG(ERR, "%s: engines=%u needs %u fabric TX queues, the fabric has %u",
				     dev->name, e, users * e + 1, fi->max_tx_queues);
			return -EINVAL;
		}
		dev->engines_per_txq = (uint16_t)e;
		dev->nb_fabric_txq = (uint16_t)(users * e + 1);
		dev->mgmt_txq = (uint16_t)(users * e);
		dev->tx_shared = false;
	} else {
		/* Too few: queues are shared, each burst takes the queue's lock. */
		dev->engines_per_txq = 1;
		dev->nb_fabric_txq = fi->max_tx_queues;
		dev->mgmt_txq = (uint16_t)(fi->max_tx_queues - 1);
		dev->tx_shared = true;
		OPA_VNIC_LOG(WARNING, "%s: %u VNIC TX queues share %u fabric TX queues (locked)",
			     dev->name, users, fi->max_tx_queues);
	}
	return 0;
}

static int
fabric_setup(struct opa_vnic_dev *dev)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info fi;
	unsigned int nb_rxq, q, n;
	char pname[RTE_MEMPOOL_NAMESIZE];
	int ret;

	ret = rte_eth_dev_info_get(dev->fabric_port, &fi);
	if (ret != 0)
		return ret;
	nb_rxq = dev->nb_fabric_rxq + (dev->mgmt_rxq >= 0 ? 1 : 0);
	/* fabric descriptors, hand-over rings and copies in flight */
	n = rte_align32pow2(nb_rxq * OPA_VNIC_FABRIC_DESC * 2 +
			    dev->nb_pollers * OPA_VNIC_RX_DESC_MAX + 4096) - 1;
	snprintf(pname, sizeof(pname), "ovp_%u_%u", dev->fabric_port, (unsigned int)getpid());
	/* One segment holds a 2048-byte MAD packet or a standard frame. */
	dev->pool = rte_pktmbuf_pool_create(pname, n, 256, 0, RTE_PKTMBUF_HEADROOM + 2560,
					    dev->socket);
	if (dev->pool == NULL) {
		OPA_VNIC_LOG(ERR, "%s: no memory for %u mbufs", dev->name, n);
		return -ENOMEM;
	}
	memset(&conf, 0, sizeof(conf));
	conf.rxmode.mtu = RTE_MIN(fi.max_mtu, (uint16_t)10240);
	if (fi.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER)
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
	if (fi.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS)
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	ret = rte_eth_dev_configure(dev->fabric_port, nb_rxq, dev->nb_fabric_txq, &conf);
	if (ret != 0) {
		OPA_VNIC_LOG(ERR, "%s: cannot configure fabric port %u: %s", dev->name,
			     dev->fabric_port, rte_strerror(-ret));
		return ret;
	}
	for (q = 0; q < nb_rxq; q++) {
		ret = rte_eth_rx_queue_setup(dev->fabric_port, q, OPA_VNIC_FABRIC_DESC,
					     dev->socket, NULL, dev->pool);
		if (ret != 0)
			return ret;
	}
	for (q = 0; q < dev->nb_fabric_txq; q++) {
		ret = rte_eth_tx_queue_setup(dev->fabric_port, q, OPA_VNIC_FABRIC_DESC,
					     dev->socket, NULL);
		if (ret != 0)
			return ret;
	}
	if (dev->fabric_hfi1) {
		struct rte_pmd_hfi1_steering s = {
			.nb_vnic_queues = (uint8_t)dev->nb_fabric_rxq,
			.mgmt_queue = dev->mgmt_rxq,
			.default_queue = (uint16_t)dev->mgmt_rxq,
		};

		for (q = 0; q < dev->nb_fabric_rxq; q++)
			s.vnic_queues[q] = (uint16_t)q;
		ret = rte_pmd_hfi1_steering_set(dev->fabric_port, &s);
		if (ret != 0)
			return ret;
	}
	ret = rte_eth_dev_start(dev->fabric_port);
	if (ret != 0) {
		OPA_VNIC_LOG(ERR, "%s: cannot start fabric port %u: %s", dev->name,
			     dev->fabric_port, rte_strerror(-ret));
		return ret;
	}
	dev->fabric_started = true;
	return 0;
}

/*
 * The fabric port is going away under us (its vdev removed first: EAL
 * removes vdevs in command-line order). net_hfi1 says so (INTR_RMV) before
 * it frees its queues; DESTROY covers other fabrics, after the fact.
 */
static int
fabric_event(uint16_t port_id, enum rte_eth_event_type type, void *arg, void *ret_param)
{
	struct opa_vnic_dev *dev = arg;

	RTE_SET_USED(port_id);
	RTE_SET_USED(type);
	RTE_SET_USED(ret_param);
	rte_spinlock_lock(&dev->ctl_lock);
	dev->fabric_gone = true;
	dev->fabric_started = false;
	rte_spinlock_unlock(&dev->ctl_lock);
	OPA_VNIC_LOG(WARNING, "%s: fabric port %u released", dev->name, dev->fabric_port);
	return 0;
}

static int
port_create(struct opa_vnic_dev *dev, unsigned int index)
{
	char name[RTE_DEV_NAME_MAX_LEN + 8];
	struct opa_vnic_port *port;
	struct rte_eth_dev *eth;
	struct opa16b_lmac lmac = { .fabric_id = 0, .vesw_id = 0, .lid = dev->lid };

	snprintf(name, sizeof(name), "%s_vp%u", dev->name, index);
	if (strlen(name) >= RTE_ETH_NAME_MAX_LEN) {
		OPA_VNIC_LOG(ERR, "%s: name too long for its ports", dev->name);
		return -ENAMETOOLONG;
	}
	eth = rte_eth_dev_allocate(name);
	if (eth == NULL)
		return -ENOMEM;
	port = rte_zmalloc_socket(name, sizeof(*port), RTE_CACHE_LINE_SIZE,
				  dev->socket);
	eth->data->mac_addrs = rte_zmalloc_socket(name,
			OPA_VNIC_MAX_MACS * sizeof(struct rte_ether_addr), 0,
			dev->socket);
	if (port == NULL || eth->data->mac_addrs == NULL) {
		rte_free(port);
		rte_eth_dev_release_port(eth);
		return -ENOMEM;
	}
	port->dev = dev;
	port->eth = eth;
	port->index = (uint8_t)index;
	port->port_id = eth->data->port_id;
	port->vp = vema_agent_vport(dev->agent, (uint8_t)index);
	/* Until the EM gives one: an LMAC of this LID (index in the vesw bits). */
	lmac.vesw_id = (uint16_t)index;
	opa16b_lmac_build(&lmac, &eth->data->mac_addrs[0]);
	eth->data->dev_private = port;
	eth->device = &dev->vdev->device;
	eth->data->numa_node = dev->socket;
	eth->data->mtu = VNIC_ETH_MTU_DEFAULT;
	eth->data->dev_flags |= RTE_ETH_DEV_INTR_LSC | RTE_ETH_DEV_AUTOFILL_QUEUE_XSTATS;
	eth->dev_ops = &opa_vnic_ops;
	eth->rx_pkt_burst = opa_vnic_rx_burst;
	eth->tx_pkt_burst = opa_vnic_tx_burst;

	rte_spinlock_lock(&dev->ctl_lock);
	port->applied_mtu = vnic_vport_policy(port->vp)->vesw.eth_mtu;
	vnic_vport_attach_stats(port->vp, port->tx_stats, dev->nb_queues,
				&dev->rx_stats[index * dev->nb_pollers], dev->nb_pollers);
	dev->ports[index] = port;
	dev->port_ids[index] = port->port_id;
	rte_spinlock_unlock(&dev->ctl_lock);
	rte_eth_dev_probing_finish(eth);
	return 0;
}

/*
 * Release what the device holds on the fabric: its ports, the control path,
 * the fabric port (we own it and put our mbufs in its queues: closing it
 * returns them). Runs when the last port is closed, or at remove. The pool
 * stays until remove: the application may still hold frames from it.
 */
static void
dev_shutdown(struct opa_vnic_dev *dev)
{
	unsigned int i;

	if (dev->shut)
		return;
	dev->shut = true;
	for (i = 0; i < dev->nb_vports; i++) {
		struct rte_eth_dev *eth;

		if (dev->ports[i] == NULL)
			continue;
		eth = dev->ports[i]->eth;
		rte_eth_dev_stop(dev->port_ids[i]);
		rte_eth_dev_close(dev->port_ids[i]);
		/* rte_eth_dev_close released it unless closing failed */
		if (dev->ports[i] != NULL)
			rte_eth_dev_release_port(eth);
	}
	/* also after a probe that failed half-way through ctl_init */
	if (dev->alarm_set || dev->agent != NULL || dev->qsbr != NULL || dev->mgmt_ring != NULL)
		opa_vnic_ctl_fini(dev);
	if (!dev->fabric_gone && rte_eth_dev_is_valid_port(dev->fabric_port)) {
		rte_eth_dev_callback_unregister(dev->fabric_port, RTE_ETH_EVENT_DESTROY,
						fabric_event, dev);
		rte_eth_dev_callback_unregister(dev->fabric_port, RTE_ETH_EVENT_INTR_RMV,
						fabric_event, dev);
		if (dev->fabric_started)
			rte_eth_dev_stop(dev->fabric_port);
		dev->fabric_started = false;
		if (dev->pool != NULL)
			rte_eth_dev_close(dev->fabric_port);
		else if (dev->owner_id != 0)
			rte_eth_dev_owner_unset(dev->fabric_port, dev->owner_id);
	}
	if (dev->owner_id != 0)
		rte_eth_dev_owner_delete(dev->owner_id);
	dev->owner_id = 0;
}

static void
dev_free(struct opa_vnic_dev *dev)
{
	dev_shutdown(dev);
	rte_mempool_free(dev->pool);
	rte_free(dev->rx_stats);
	rte_free(dev);
}

static int
opa_vnic_probe(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);
	struct rte_pmd_hfi1_port_info hi;
	struct rte_eth_dev_owner owner;
	struct rte_eth_dev_info fi;
	struct opa_vnic_dev *dev;
	struct opa_vnic_args a;
	unsigned int i, slot;
	int ret;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		OPA_VNIC_LOG(ERR, "%s: secondary processes are not supported", name);
		return -ENOTSUP;
	}
	ret = parse_args(rte_vdev_device_args(vdev), &a);
	if (ret != 0)
		return ret;
	/*
	 * Refuse a name too long for the ports ("<name>_vp<n>") now: found
	 * in port_create(), after the fabric port was set up, the failure
	 * would close the application's fabric port.
	 */
	if (strlen(name) + strlen("_vp") + (a.vports > 10 ? 2 : 1) >= RTE_ETH_NAME_MAX_LEN) {
		OPA_VNIC_LOG(ERR, "%s: name too long for its ports (%s_vp<n> must be under %u characters)",
			     name, name, RTE_ETH_NAME_MAX_LEN);
		return -ENAMETOOLONG;
	}
	for (slot = 0; slot < RTE_DIM(devs) && devs[slot] != NULL; slot++)
		;
	if (slot == RTE_DIM(devs))
		return -ENOSPC;
	dev = rte_zmalloc_socket(name, sizeof(*dev), RTE_CACHE_LINE_SIZE,
				 vdev->device.numa_node);
	if (dev == NULL)
		return -ENOMEM;
	strlcpy(dev->name, name, sizeof(dev->name));
	dev->vdev = vdev;
	dev->socket = vdev->device.numa_node;
	dev->nb_vports = (uint16_t)a.vports;
	dev->nb_queues = (uint16_t)a.queues;
	dev->nb_pollers = (uint16_t)(a.vports * a.queues);
	dev->mgmt_period_us = a.mgmt_ms * 1000u;
	rte_spinlock_init(&dev->ctl_lock);
	for (i = 0; i < RTE_DIM(dev->ftx_lock); i++)
		rte_spinlock_init(&dev->ftx_lock[i]);
	for (i = 0; i < RTE_DIM(dev->frx_lock); i++)
		rte_spinlock_init(&dev->frx_lock[i]);

	if (rte_eth_dev_get_port_by_name(a.fabric, &dev->fabric_port) != 0) {
		OPA_VNIC_LOG(ERR, "%s: no fabric port named \"%s\" (list its --vdev before this one)",
			     name, a.fabric);
		ret = -ENODEV;
		goto fail;
	}
	ret = rte_eth_dev_owner_new(&dev->owner_id);
	if (ret != 0)
		goto fail;
	memset(&owner, 0, sizeof(owner));
	owner.id = dev->owner_id;
	strlcpy(owner.name, name, sizeof(owner.name));
	ret = rte_eth_dev_owner_set(dev->fabric_port, &owner);
	if (ret != 0) {
		OPA_VNIC_LOG(ERR, "%s: fabric port %s is owned by someone else", name, a.fabric);
		goto fail;
	}
	if (rte_pmd_hfi1_port_info_get(dev->fabric_port, &hi) == 0) {
		dev->fabric_hfi1 = true;
		dev->lid = hi.lid;
		if (a.lid_set && a.lid != hi.lid)
			OPA_VNIC_LOG(WARNING, "%s: lid=%u ignored: the HFI's LID is %u",
				     name, a.lid, hi.lid);
	} else {
		dev->lid = a.lid;
	}
	ret = rte_eth_dev_info_get(dev->fabric_port, &fi);
	if (ret == 0)
		ret = plan_queues(dev, &a, &fi);
	if (ret != 0)
		goto fail;
	dev->rx_stats = rte_zmalloc_socket(name, (size_t)dev->nb_vports * dev->nb_pollers *
					   sizeof(struct vnic_rxq_stats), RTE_CACHE_LINE_SIZE,
					   vdev->device.numa_node);
	if (dev->rx_stats == NULL) {
		ret = -ENOMEM;
		goto fail;
	}
	ret = opa_vnic_ctl_init(dev);
	if (ret == 0)
		ret = fabric_setup(dev);
	if (ret == 0)
		ret = rte_eth_dev_callback_register(dev->fabric_port, RTE_ETH_EVENT_DESTROY,
						    fabric_event, dev);
	if (ret == 0)
		ret = rte_eth_dev_callback_register(dev->fabric_port, RTE_ETH_EVENT_INTR_RMV,
						    fabric_event, dev);
	for (i = 0; ret == 0 && i < dev->nb_vports; i++)
		ret = port_create(dev, i);
	if (ret == 0)
		ret = opa_vnic_ctl_start(dev);
	if (ret != 0)
		goto fail;
	devs[slot] = dev;
	OPA_VNIC_LOG(INFO, "%s: %u vports x %u queues on fabric port %u (%s, LID 0x%x): %u data RX queues%s, %u TX engines per queue%s",
		     name, dev->nb_vports, dev->nb_queues, dev->fabric_port,
		     dev->fabric_hfi1 ? "net_hfi1" : "generic", dev->lid, dev->nb_fabric_rxq,
		     dev->mgmt_rxq >= 0 ? " + management" : "", dev->engines_per_txq,
		     dev->tx_shared ? " (shared)" : "");
	return 0;
fail:
	dev_free(dev);
	return ret;
}

static int
opa_vnic_remove(struct rte_vdev_device *vdev)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(devs); i++) {
		if (devs[i] != NULL && devs[i]->vdev == vdev) {
			dev_free(devs[i]);
			devs[i] = NULL;
			return 0;
		}
	}
	return 0;
}

static struct rte_vdev_driver opa_vnic_driver = {
	.probe = opa_vnic_probe,
	.remove = opa_vnic_remove,
};

RTE_PMD_REGISTER_VDEV(net_opa_vnic, opa_vnic_driver);
RTE_PMD_REGISTER_PARAM_STRING(net_opa_vnic,
	ARG_FABRIC "=<ethdev name> "
	ARG_VPORTS "=<1..16> "
	ARG_QUEUES "=<1..8> "
	ARG_ENGINES "=<0..8> "
	ARG_LID "=<LID, when the fabric is not net_hfi1> "
	ARG_MGMT_MS "=<1..1000>");
