/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * net_hfi1: ethdev glue. A port is a raw fabric port whose mbufs hold whole
 * 16B packets. PCI probe maps BAR0 of a real HFI; the vdev front end
 * attaches the same driver to the model (model=1).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bus_pci_driver.h>
#include <bus_vdev_driver.h>
#include <ethdev_driver.h>
#include <ethdev_pci.h>
#include <ethdev_vdev.h>
#include <rte_alarm.h>
#include <rte_kvargs.h>
#include <rte_malloc.h>

#include <omni_kvargs.h>
#include <omni_num.h>

#include "hfi1_ethdev.h"
#include "hfi1_log.h"
#include "omni_counters.h"

RTE_LOG_REGISTER_DEFAULT(hfi1_logtype, NOTICE);

#define HFI1_LSC_POLL_US 100000
#define HFI1_RX_DESC_DEFAULT 2048
#define HFI1_TX_DESC_DEFAULT 1024

static const struct eth_dev_ops hfi1_eth_dev_ops;

/* ---- devargs ---- */

#define ARG_MODEL "model"
#define ARG_LID "lid"
#define ARG_PKEYS "pkeys"
#define ARG_MTU "mtu"
#define ARG_CONTEXTS "contexts"
#define ARG_ENGINES "engines"
#define ARG_WIRE "wire"
#define ARG_LAYOUT "layout"
#define ARG_RX_LAYOUT "rx_layout"
#define ARG_SERVICE "service"

/* mc first: the model's devarg handlers (hfi1_model_devargs) take it as opaque */
struct hfi1_args {
	struct hfi1_model_conf mc;
	int model;
	int service;
	enum hfi1_egr_layout rx_layout;
};

/*
 * One handler per devarg (lib/common's omni_kvargs.h): each checks its range
 * and stores into struct hfi1_args. Numbers are decimal; lid and pkeys also
 * take 0x hex, as LIDs and P_Keys are usually written.
 */

static int
arg_model(const char *key, const char *val, void *opaque)
{
	struct hfi1_args *a = opaque;
	uint64_t v;

	if (omni_devarg_uint(key, val, 0, 1, OMNI_NUM_DEC, &v) != 0)
		return -EINVAL;
	a->model = (int)v;
	return 0;
}

static int
arg_rx_layout(const char *key, const char *val, void *opaque)
{
	return hfi1_model_parse_layout(key, val, &((struct hfi1_args *)opaque)->rx_layout, true);
}

static int
arg_service(const char *key, const char *val, void *opaque)
{
	struct hfi1_args *a = opaque;
	uint64_t v;

	if (omni_devarg_uint(key, val, 0, 1, OMNI_NUM_DEC, &v) != 0)
		return -EINVAL;
	a->service = (int)v;
	return 0;
}

_Static_assert(offsetof(struct hfi1_args, mc) == 0, "hfi1_args.mc first");
static const struct omni_devarg hfi1_vdev_args[] = {
	{ ARG_MODEL, arg_model, 0 },
	HFI1_MODEL_DEVARGS,
	{ ARG_RX_LAYOUT, arg_rx_layout, 0 },
	{ ARG_SERVICE, arg_service, 0 },
};
static const struct omni_devarg hfi1_pci_args[] = {
	{ ARG_RX_LAYOUT, arg_rx_layout, 0 },
};

static int
hfi1_args_parse(const char *args, const struct omni_devarg *table, unsigned int n,
		struct hfi1_args *a)
{
	memset(a, 0, sizeof(*a));
	hfi1_model_conf_init(&a->mc);
	a->rx_layout = HFI1_EGR_LAYOUT_AUTO;
	return omni_devargs_parse("net_hfi1", args, table, n, a);
}

/* ---- helpers ---- */

static struct hfi1_adapter *
hfi1_ad(struct rte_eth_dev *dev)
{
	return dev->data->dev_private;
}

static struct hfi1_adapter *
hfi1_ad_of_port(uint16_t port_id)
{
	struct rte_eth_dev *dev;

	if (!rte_eth_dev_is_valid_port(port_id))
		return NULL;
	dev = &rte_eth_devices[port_id];
	if (dev->dev_ops != &hfi1_eth_dev_ops)
		return NULL;
	return hfi1_ad(dev);
}

struct hfi1_model *
hfi1_port_model(uint16_t port_id)
{
	struct hfi1_adapter *ad = hfi1_ad_of_port(port_id);

	return ad == NULL ? NULL : ad->model;
}

static uint32_t
opa_mtu_bytes(uint64_t e)
{
	static const uint32_t mtu[8] = { 0, 256, 512, 1024, 2048, 4096, 8192,
		10240 };

	return mtu[e & 7];
}

static void
hfi1_read_port_config(struct hfi1_adapter *ad, uint32_t *lid,
		uint8_t *link_up)
{
	uint64_t cfg = hfi1_csr_read(&ad->hw, HFI1_DCC_PORT_CONFIG);

	ad->mtu_cap = opa_mtu_bytes(cfg >> HFI1_DCC_PORT_CONFIG_MTU_CAP_SHIFT);
	if (ad->mtu_cap < 2048)
		ad->mtu_cap = 2048;
	*link_up = ((cfg >> HFI1_DCC_PORT_CONFIG_LINK_STATE_SHIFT) & 7) ==
		HFI1_LINK_STATE_ACTIVE;
	*lid = (uint32_t)(hfi1_csr_read(&ad->hw, HFI1_DCC_PORT_CONFIG1) &
			HFI1_DCC_PORT_CONFIG1_TARGET_DLID_MASK);
}

static void
hfi1_read_sc_to_vl(struct hfi1_adapter *ad)
{
	uint64_t t[2];
	unsigned int sc;

	t[0] = hfi1_csr_read(&ad->hw, HFI1_DCC_SC_VL_TABLE_15_0);
	t[1] = hfi1_csr_read(&ad->hw, HFI1_DCC_SC_VL_TABLE_31_16);
	for (sc = 0; sc < 32; sc++)
		ad->sc_to_vl[sc] = (t[sc / 16] >> (4 * (sc % 16))) & 0xF;
}

/* ---- ethdev ops ---- */

static int
hfi1_dev_infos_get(struct rte_eth_dev *dev, struct rte_eth_dev_info *info)
{
	struct hfi1_adapter *ad = hfi1_ad(dev);

	info->max_rx_queues = RTE_MIN(ad->hw.nb_rcv_ctxts, HFI1_MAX_QUEUES);
	info->max_tx_queues = RTE_MIN(ad->hw.nb_sdma_engines, HFI1_MAX_QUEUES);
	info->max_mac_addrs = 1;
	info->min_mtu = 256;
	info->max_mtu = ad->mtu_cap;
	info->max_rx_pktlen = ad->mtu_cap + HFI1_MAX_HDR_BYTES;
	info->min_rx_bufsize = HFI1_BYPASS_HDR_LEN;
	info->rx_offload_capa = RTE_ETH_RX_OFFLOAD_SCATTER;
	info->tx_offload_capa = RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	info->rx_desc_lim = (struct rte_eth_desc_lim){
		.nb_max = HFI1_RHQ_MAX, .nb_min = HFI1_RHQ_MIN,
		.nb_align = HFI1_RCV_HDR_CNT_UNIT,
	};
	info->tx_desc_lim = (struct rte_eth_desc_lim){
		.nb_max = HFI1_SDMA_RING_MAX, .nb_min = HFI1_SDMA_RING_MIN,
		.nb_align = HFI1_SDMA_RING_MIN,
		.nb_seg_max = HFI1_SDMA_MAX_DESC_PER_PKT - 1,
		.nb_mtu_seg_max = HFI1_SDMA_MAX_DESC_PER_PKT - 1,
	};
	info->default_rxportconf.ring_size = HFI1_RX_DESC_DEFAULT;
	info->default_txportconf.ring_size = HFI1_TX_DESC_DEFAULT;
	info->default_rxportconf.nb_queues = 1;
	info->default_txportconf.nb_queues = 1;
	info->speed_capa = RTE_ETH_LINK_SPEED_100G;
	return 0;
}

static int
hfi1_dev_configure(struct rte_eth_dev *dev)
{
	struct rte_eth_conf *conf = &dev->data->dev_conf;

	if (conf->rxmode.mq_mode != RTE_ETH_MQ_RX_NONE) {
		HFI1_LOG(ERR, "port %u: no RSS; receive steering is by RSM rules (rte_pmd_hfi1_steering_set)",
				dev->data->port_id);
		return -ENOTSUP;
	}
	return 0;
}

static int
hfi1_link_update(struct rte_eth_dev *dev, int wait __rte_unused)
{
	struct hfi1_adapter *ad = hfi1_ad(dev);
	struct rte_eth_link link = { 0 };
	uint32_t lid;
	uint8_t up;

	hfi1_read_port_config(ad, &lid, &up);
	up = up && dev->data->dev_started;
	link.link_status = up ? RTE_ETH_LINK_UP : RTE_ETH_LINK_DOWN;
	link.link_speed = up ? RTE_ETH_SPEED_NUM_100G : RTE_ETH_SPEED_NUM_NONE;
	link.link_duplex = RTE_ETH_LINK_FULL_DUPLEX;
	link.link_autoneg = RTE_ETH_LINK_FIXED;
	return rte_eth_linkstatus_set(dev, &link);
}

static void
hfi1_lsc_poll(void *arg)
{
	struct rte_eth_dev *dev = arg;
	uint8_t before = dev->data->dev_link.link_status;

	hfi1_link_update(dev, 0);
	if (dev->data->dev_link.link_status != before)
		rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_INTR_LSC, NULL);
	rte_eal_alarm_set(HFI1_LSC_POLL_US, hfi1_lsc_poll, dev);
}

static void
hfi1_default_steering(uint16_t nb_rxq, struct rte_pmd_hfi1_steering *s)
{
	uint16_t q;

	memset(s, 0, sizeof(*s));
	s->mgmt_queue = -1;
	if (nb_rxq <= 1)
		return;
	s->nb_vnic_queues = RTE_MIN(nb_rxq, RTE_PMD_HFI1_VNIC_QUEUES);
	for (q = 0; q < s->nb_vnic_queues; q++)
		s->vnic_queues[q] = q;
}

static int
hfi1_steering_check(const struct rte_pmd_hfi1_steering *s, uint16_t nb_rxq)
{
	unsigned int i;

	if (s->nb_vnic_queues > RTE_PMD_HFI1_VNIC_QUEUES ||
	    s->default_queue >= nb_rxq || s->mgmt_queue >= (int)nb_rxq ||
	    s->mgmt_queue < -1)
		return -EINVAL;
	for (i = 0; i < s->nb_vnic_queues; i++)
		if (s->vnic_queues[i] >= nb_rxq)
			return -EINVAL;
	return 0;
}

/* Map entries: 0 for management, 8..15 for VNIC (index 0..7). */
#define HFI1_MAP_MGMT 0
#define HFI1_MAP_VNIC 8
#define HFI1_RULE_MGMT 0
#define HFI1_RULE_VNIC 1

static int
hfi1_steering_apply(struct rte_eth_dev *dev)
{
	struct hfi1_adapter *ad = hfi1_ad(dev);
	struct rte_pmd_hfi1_steering *s = &ad->steering;
	struct hfi1_rsm_rule rule;
	uint8_t ctxts[RTE_PMD_HFI1_VNIC_QUEUES];
	unsigned int i;

	if (!ad->steering_set)
		hfi1_default_steering(dev->data->nb_rx_queues, s);
	if (hfi1_steering_check(s, dev->data->nb_rx_queues) != 0) {
		HFI1_LOG(ERR, "port %u: steering names a queue the port lacks",
				dev->data->port_id);
		return -EINVAL;
	}
	for (i = 0; i < HFI1_RSM_RULES; i++)
		hfi1_rsm_rule_clear(&ad->hw, i);
	if (s->mgmt_queue >= 0) {
		ctxts[0] = (uint8_t)s->mgmt_queue;
		hfi1_rsm_map_fill(&ad->hw, HFI1_MAP_MGMT, 1, ctxts, 1);
		hfi1_rsm_rule_mgmt(&rule, HFI1_MAP_MGMT);
		hfi1_rsm_rule_write(&ad->hw, HFI1_RULE_MGMT, &rule);
	}
	if (s->nb_vnic_queues > 0) {
		for (i = 0; i < s->nb_vnic_queues; i++)
			ctxts[i] = (uint8_t)s->vnic_queues[i];
		hfi1_rsm_map_fill(&ad->hw, HFI1_MAP_VNIC,
				RTE_PMD_HFI1_VNIC_QUEUES, ctxts,
				s->nb_vnic_queues);
		hfi1_rsm_rule_vnic(&rule, HFI1_MAP_VNIC);
		hfi1_rsm_rule_write(&ad->hw, HFI1_RULE_VNIC, &rule);
	}
	hfi1_port_enable(&ad->hw, s->default_queue,
			s->mgmt_queue >= 0 || s->nb_vnic_queues > 0);
	return 0;
}

static int
hfi1_rx_queue_start(struct rte_eth_dev *dev, uint16_t qid)
{
	struct hfi1_rx_queue *q = dev->data->rx_queues[qid];
	int ret;

	ret = hfi1_rcv_ctxt_enable(&q->rc);
	if (ret != 0)
		return ret;
	q->egr_head = 0;
	q->started = true;
	dev->data->rx_queue_state[qid] = RTE_ETH_QUEUE_STATE_STARTED;
	return 0;
}

static int
hfi1_rx_queue_stop(struct rte_eth_dev *dev, uint16_t qid)
{
	struct hfi1_rx_queue *q = dev->data->rx_queues[qid];

	q->started = false;
	hfi1_rcv_ctxt_disable(&q->rc);
	dev->data->rx_queue_state[qid] = RTE_ETH_QUEUE_STATE_STOPPED;
	return 0;
}

static int
hfi1_tx_queue_start(struct rte_eth_dev *dev, uint16_t qid)
{
	struct hfi1_tx_queue *q = dev->data->tx_queues[qid];
	int ret;

	ret = hfi1_sdma_start(&q->ring);
	if (ret != 0)
		return ret;
	q->started = true;
	dev->data->tx_queue_state[qid] = RTE_ETH_QUEUE_STATE_STARTED;
	return 0;
}

static int
hfi1_tx_queue_stop(struct rte_eth_dev *dev, uint16_t qid)
{
	struct hfi1_tx_queue *q = dev->data->tx_queues[qid];

	if (q->started)
		hfi1_tx_queue_flush(q);
	q->started = false;
	dev->data->tx_queue_state[qid] = RTE_ETH_QUEUE_STATE_STOPPED;
	return 0;
}

static int
hfi1_dev_start(struct rte_eth_dev *dev)
{
	struct hfi1_adapter *ad = hfi1_ad(dev);
	uint16_t q;
	int ret;

	ret = hfi1_steering_apply(dev);
	if (ret != 0)
		return ret;
	hfi1_read_sc_to_vl(ad);
	for (q = 0; q < dev->data->nb_rx_queues; q++) {
		struct hfi1_rx_queue *rxq = dev->data->rx_queues[q];

		if (rxq == NULL) {
			ret = -EINVAL;
			goto fail;
		}
		ret = hfi1_rx_queue_start(dev, q);
		if (ret != 0)
			goto fail;
	}
	for (q = 0; q < dev->data->nb_tx_queues; q++) {
		if (dev->data->tx_queues[q] == NULL) {
			ret = -EINVAL;
			goto fail;
		}
		ret = hfi1_tx_queue_start(dev, q);
		if (ret != 0)
			goto fail;
	}
	dev->data->dev_started = 1;
	hfi1_link_update(dev, 0);
	if (dev->data->dev_conf.intr_conf.lsc &&
	    rte_eal_alarm_set(HFI1_LSC_POLL_US, hfi1_lsc_poll, dev) == 0)
		ad->lsc_alarm = true;
	return 0;
fail:
	dev->data->dev_started = 0;
	hfi1_port_disable(&ad->hw);
	for (q = 0; q < dev->data->nb_rx_queues; q++)
		if (dev->data->rx_queues[q] != NULL)
			hfi1_rx_queue_stop(dev, q);
	for (q = 0; q < dev->data->nb_tx_queues; q++)
		if (dev->data->tx_queues[q] != NULL)
			hfi1_tx_queue_stop(dev, q);
	return ret;
}

static int
hfi1_dev_stop(struct rte_eth_dev *dev)
{
	struct hfi1_adapter *ad = hfi1_ad(dev);
	uint16_t q;

	if (ad->lsc_alarm) {
		rte_eal_alarm_cancel(hfi1_lsc_poll, dev);
		ad->lsc_alarm = false;
	}
	hfi1_port_disable(&ad->hw);
	for (q = 0; q < dev->data->nb_tx_queues; q++)
		if (dev->data->tx_queues[q] != NULL)
			hfi1_tx_queue_stop(dev, q);
	for (q = 0; q < dev->data->nb_rx_queues; q++)
		if (dev->data->rx_queues[q] != NULL)
			hfi1_rx_queue_stop(dev, q);
	dev->data->dev_started = 0;
	hfi1_link_update(dev, 0);
	return 0;
}

static void
hfi1_rx_queue_release(struct rte_eth_dev *dev, uint16_t qid)
{
	struct hfi1_rx_queue *q = dev->data->rx_queues[qid];

	if (q == NULL)
		return;
	if (q->started)
		hfi1_rx_queue_stop(dev, qid);
	hfi1_rcv_ctxt_free(&q->rc);
	rte_free(q);
	dev->data->rx_queues[qid] = NULL;
}

static void
hfi1_tx_queue_release(struct rte_eth_dev *dev, uint16_t qid)
{
	struct hfi1_tx_queue *q = dev->data->tx_queues[qid];

	if (q == NULL)
		return;
	if (q->started)
		hfi1_tx_queue_stop(dev, qid);
	hfi1_sdma_ring_free(&q->ring);
	rte_free(q->sw_ring);
	rte_free(q);
	dev->data->tx_queues[qid] = NULL;
}

static int
hfi1_rx_queue_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		unsigned int socket_id, const struct rte_eth_rxconf *conf,
		struct rte_mempool *mp)
{
	struct hfi1_adapter *ad = hfi1_ad(dev);
	struct hfi1_rx_queue *q;
	int ret;

	if (conf->rx_deferred_start) {
		HFI1_LOG(ERR, "port %u: deferred start is not supported",
				dev->data->port_id);
		return -ENOTSUP;
	}
	hfi1_rx_queue_release(dev, qid);
	q = rte_zmalloc_socket("hfi1_rxq", sizeof(*q), RTE_CACHE_LINE_SIZE,
			socket_id);
	if (q == NULL)
		return -ENOMEM;
	ret = hfi1_rcv_ctxt_init(&q->rc, &ad->hw, qid, nb_desc, HFI1_EGR_CNT,
			HFI1_EGR_SIZE);
	if (ret != 0) {
		HFI1_LOG(ERR, "port %u rxq %u: cannot set up receive context (%d descriptors): %s",
				dev->data->port_id, qid, nb_desc,
				rte_strerror(-ret));
		rte_free(q);
		return ret;
	}
	q->ad = ad;
	q->mp = mp;
	q->port_id = dev->data->port_id;
	q->queue_id = qid;
	q->buf_len = rte_pktmbuf_data_room_size(mp) - RTE_PKTMBUF_HEADROOM;
	/* The context's overflow counter runs on from earlier queues. */
	q->ovfl_base = hfi1_csr_read(&ad->hw, HFI1_KCTXT(HFI1_RCV_HDR_OVFL_CNT,
				q->rc.ctxt));
	q->scatter = (dev->data->dev_conf.rxmode.offloads |
		      conf->offloads) & RTE_ETH_RX_OFFLOAD_SCATTER;
	dev->data->rx_queues[qid] = q;
	return 0;
}

static int
hfi1_tx_queue_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		unsigned int socket_id, const struct rte_eth_txconf *conf)
{
	struct hfi1_adapter *ad = hfi1_ad(dev);
	struct hfi1_tx_queue *q;
	/* Room for the largest packet (64 descriptors) with one slot empty. */
	uint32_t cnt = rte_align32pow2(RTE_MAX(nb_desc,
			HFI1_SDMA_MAX_DESC_PER_PKT + 1));
	int ret;

	if (conf->tx_deferred_start) {
		HFI1_LOG(ERR, "port %u: deferred start is not supported",
				dev->data->port_id);
		return -ENOTSUP;
	}
	hfi1_tx_queue_release(dev, qid);
	q = rte_zmalloc_socket("hfi1_txq", sizeof(*q), RTE_CACHE_LINE_SIZE,
			socket_id);
	if (q == NULL)
		return -ENOMEM;
	ret = hfi1_sdma_ring_init(&q->ring, &ad->hw, qid, cnt);
	if (ret == 0) {
		q->sw_ring = rte_zmalloc_socket("hfi1_txq", sizeof(*q->sw_ring) *
				cnt, RTE_CACHE_LINE_SIZE, socket_id);
		if (q->sw_ring == NULL) {
			hfi1_sdma_ring_free(&q->ring);
			ret = -ENOMEM;
		}
	}
	if (ret != 0) {
		HFI1_LOG(ERR, "port %u txq %u: cannot set up SDMA engine (%d descriptors): %s",
				dev->data->port_id, qid, nb_desc,
				rte_strerror(-ret));
		rte_free(q);
		return ret;
	}
	q->ad = ad;
	q->port_id = dev->data->port_id;
	q->queue_id = qid;
	dev->data->tx_queues[qid] = q;
	return 0;
}

static int
hfi1_dev_close(struct rte_eth_dev *dev)
{
	struct hfi1_adapter *ad = hfi1_ad(dev);
	uint16_t q;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return 0;
	if (dev->data->dev_started)
		hfi1_dev_stop(dev);
	for (q = 0; q < dev->data->nb_rx_queues; q++)
		hfi1_rx_queue_release(dev, q);
	for (q = 0; q < dev->data->nb_tx_queues; q++)
		hfi1_tx_queue_release(dev, q);
	hfi1_model_destroy(ad->model);
	ad->model = NULL;
	dev->data->mac_addrs = NULL;
	return 0;
}

static int
hfi1_mtu_set(struct rte_eth_dev *dev, uint16_t mtu)
{
	struct hfi1_adapter *ad = hfi1_ad(dev);

	/* The packet limit on send is MTU + 124 bytes of header. */
	return mtu > ad->mtu_cap ? -EINVAL : 0;
}

static int
hfi1_promisc_nop(struct rte_eth_dev *dev __rte_unused)
{
	/* A fabric port has no MAC filter: it always takes every packet. */
	return 0;
}

/* ---- stats ---- */

static uint64_t
rxq_ovfl(struct hfi1_adapter *ad, const struct hfi1_rx_queue *q)
{
	return hfi1_csr_read(&ad->hw, HFI1_KCTXT(HFI1_RCV_HDR_OVFL_CNT,
				q->rc.ctxt)) - q->ovfl_base;
}

static int
hfi1_stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *st)
{
	struct hfi1_adapter *ad = hfi1_ad(dev);
	uint16_t q;
	unsigned int e;

	for (q = 0; q < dev->data->nb_rx_queues; q++) {
		struct hfi1_rx_queue *rxq = dev->data->rx_queues[q];

		if (rxq == NULL)
			continue;
		st->ipackets += rxq->pkts;
		st->ibytes += rxq->bytes;
		for (e = 0; e < HFI1_RX_ERR_MAX; e++)
			if (e != HFI1_RX_NOMBUF)
				st->ierrors += rxq->err[e];
		st->rx_nombuf += rxq->err[HFI1_RX_NOMBUF];
		st->imissed += rxq_ovfl(ad, rxq);
		if (q < RTE_ETHDEV_QUEUE_STAT_CNTRS) {
			st->q_ipackets[q] = rxq->pkts;
			st->q_ibytes[q] = rxq->bytes;
		}
	}
	for (q = 0; q < dev->data->nb_tx_queues; q++) {
		struct hfi1_tx_queue *txq = dev->data->tx_queues[q];

		if (txq == NULL)
			continue;
		st->opackets += txq->pkts;
		st->obytes += txq->bytes;
		for (e = 0; e < HFI1_TX_ERR_MAX; e++)
			if (e != HFI1_TX_BAD_HEAD && e != HFI1_TX_SDMA_HALTS)
				st->oerrors += txq->err[e];
		if (q < RTE_ETHDEV_QUEUE_STAT_CNTRS) {
			st->q_opackets[q] = txq->pkts;
			st->q_obytes[q] = txq->bytes;
		}
	}
	return 0;
}

static int
hfi1_stats_reset(struct rte_eth_dev *dev)
{
	struct hfi1_adapter *ad = hfi1_ad(dev);
	uint16_t q;

	for (q = 0; q < dev->data->nb_rx_queues; q++) {
		struct hfi1_rx_queue *rxq = dev->data->rx_queues[q];

		if (rxq == NULL)
			continue;
		rxq->pkts = 0;
		rxq->bytes = 0;
		memset(rxq->err, 0, sizeof(rxq->err));
		rxq->ovfl_base += rxq_ovfl(ad, rxq);
	}
	for (q = 0; q < dev->data->nb_tx_queues; q++) {
		struct hfi1_tx_queue *txq = dev->data->tx_queues[q];

		if (txq == NULL)
			continue;
		txq->pkts = 0;
		txq->bytes = 0;
		memset(txq->err, 0, sizeof(txq->err));
	}
	return 0;
}

/* The queues' drop counters (uint64_t err[] by enum), as a struct for their
 * tables: summed over the queues, shown once per port.
 */
struct hfi1_rx_errs {
	uint64_t err[HFI1_RX_ERR_MAX];
};
struct hfi1_tx_errs {
	uint64_t err[HFI1_TX_ERR_MAX];
};
static_assert(sizeof(struct hfi1_rx_errs) == sizeof(((struct hfi1_rx_queue *)0)->err),
	      "hfi1_rx_errs is the layout of hfi1_rx_queue.err");
static_assert(sizeof(struct hfi1_tx_errs) == sizeof(((struct hfi1_tx_queue *)0)->err),
	      "hfi1_tx_errs is the layout of hfi1_tx_queue.err");

#define RXE(e, name) OMNI_CTR_AS(struct hfi1_rx_errs, err[e], name)
static const struct omni_ctr rx_err_xstats[] = {
	RXE(HFI1_RX_ERR_ICRC, "rx_err_icrc"),
	RXE(HFI1_RX_ERR_LEN, "rx_err_len"),
	RXE(HFI1_RX_ERR_ECC, "rx_err_ecc"),
	RXE(HFI1_RX_ERR_TID, "rx_err_tid"),
	RXE(HFI1_RX_ERR_RCV_TYPE, "rx_err_rcv_type"),
	RXE(HFI1_RX_ERR_DC, "rx_err_dc"),
	RXE(HFI1_RX_ERR_DC_UNC, "rx_err_dc_unc"),
	RXE(HFI1_RX_ERR_K_HDR_LEN, "rx_err_khdr_len"),
	RXE(HFI1_RX_BAD_TYPE, "rx_bad_rcv_type"),
	RXE(HFI1_RX_BAD_EGR_INDEX, "rx_bad_egr_index"),
	RXE(HFI1_RX_BAD_EGR_OFFSET, "rx_bad_egr_offset"),
	RXE(HFI1_RX_BAD_HDRQ_OFFSET, "rx_bad_hdrq_offset"),
	RXE(HFI1_RX_RUNT, "rx_runt"),
	RXE(HFI1_RX_TOO_LONG, "rx_too_long"),
	RXE(HFI1_RX_NOMBUF, "rx_nombuf"),
};
#undef RXE
OMNI_CTR_TABLE_CHECK(rx_err_xstats, struct hfi1_rx_errs);

#define TXE(e, name) OMNI_CTR_AS(struct hfi1_tx_errs, err[e], name)
static const struct omni_ctr tx_err_xstats[] = {
	TXE(HFI1_TX_BAD_LENGTH, "tx_bad_length"),
	TXE(HFI1_TX_NOT_16B, "tx_not_16b"),
	TXE(HFI1_TX_TOO_LONG, "tx_too_long"),
	TXE(HFI1_TX_TOO_MANY_SEGS, "tx_too_many_segs"),
	TXE(HFI1_TX_BAD_HEAD, "tx_bad_head"),
	TXE(HFI1_TX_SDMA_HALTS, "tx_sdma_halts"),
};
#undef TXE
OMNI_CTR_TABLE_CHECK(tx_err_xstats, struct hfi1_tx_errs);

/* Per-queue xstats, named rx_q<n>_<field> and tx_q<n>_<field>. */
struct hfi1_rxq_xstats {
	uint64_t packets;
	uint64_t bytes;
	uint64_t rhq_overflows;
};
static const struct omni_ctr rxq_xstats[] = {
	OMNI_CTR(struct hfi1_rxq_xstats, packets),
	OMNI_CTR(struct hfi1_rxq_xstats, bytes),
	OMNI_CTR(struct hfi1_rxq_xstats, rhq_overflows),
};
OMNI_CTR_TABLE_CHECK(rxq_xstats, struct hfi1_rxq_xstats);

struct hfi1_txq_xstats {
	uint64_t packets;
	uint64_t bytes;
};
static const struct omni_ctr txq_xstats[] = {
	OMNI_CTR(struct hfi1_txq_xstats, packets),
	OMNI_CTR(struct hfi1_txq_xstats, bytes),
};
OMNI_CTR_TABLE_CHECK(txq_xstats, struct hfi1_txq_xstats);

#define RXQ_XSTATS RTE_DIM(rxq_xstats)
#define TXQ_XSTATS RTE_DIM(txq_xstats)

static unsigned int
hfi1_xstats_count(struct rte_eth_dev *dev)
{
	return RTE_DIM(rx_err_xstats) + RTE_DIM(tx_err_xstats) +
		dev->data->nb_rx_queues * RXQ_XSTATS +
		dev->data->nb_tx_queues * TXQ_XSTATS;
}

static int
hfi1_xstats_get_names(struct rte_eth_dev *dev,
		struct rte_eth_xstat_name *names, unsigned int size)
{
	unsigned int n = hfi1_xstats_count(dev), k = 0;
	char prefix[16];
	uint16_t q;

	if (names == NULL || size < n)
		return n;
	k += omni_ctr_names(rx_err_xstats, RTE_DIM(rx_err_xstats), NULL, names + k,
			    sizeof(*names), sizeof(names->name), n - k);
	k += omni_ctr_names(tx_err_xstats, RTE_DIM(tx_err_xstats), NULL, names + k,
			    sizeof(*names), sizeof(names->name), n - k);
	for (q = 0; q < dev->data->nb_rx_queues; q++) {
		snprintf(prefix, sizeof(prefix), "rx_q%u_", q);
		k += omni_ctr_names(rxq_xstats, RXQ_XSTATS, prefix, names + k,
				    sizeof(*names), sizeof(names->name), n - k);
	}
	for (q = 0; q < dev->data->nb_tx_queues; q++) {
		snprintf(prefix, sizeof(prefix), "tx_q%u_", q);
		k += omni_ctr_names(txq_xstats, TXQ_XSTATS, prefix, names + k,
				    sizeof(*names), sizeof(names->name), n - k);
	}
	return n;
}

/* The values of a table's counters into xs (ids are set by the caller). */
static unsigned int
xstats_put(struct rte_eth_xstat *xs, const struct omni_ctr *t, unsigned int nt,
	   const void *base)
{
	unsigned int i;

	for (i = 0; i < nt; i++)
		xs[i].value = omni_ctr_value(&t[i], base);
	return nt;
}

static int
hfi1_xstats_get(struct rte_eth_dev *dev, struct rte_eth_xstat *xs,
		unsigned int size)
{
	struct hfi1_adapter *ad = hfi1_ad(dev);
	unsigned int n = hfi1_xstats_count(dev), k;
	struct hfi1_rx_errs rx_errs;
	struct hfi1_tx_errs tx_errs;
	uint16_t q;

	if (xs == NULL || size < n)
		return n;
	memset(&rx_errs, 0, sizeof(rx_errs));
	memset(&tx_errs, 0, sizeof(tx_errs));
	k = RTE_DIM(rx_err_xstats) + RTE_DIM(tx_err_xstats);
	for (q = 0; q < dev->data->nb_rx_queues; q++) {
		struct hfi1_rx_queue *rxq = dev->data->rx_queues[q];
		struct hfi1_rxq_xstats x = { 0 };

		if (rxq != NULL) {
			omni_ctr_add(rx_err_xstats, RTE_DIM(rx_err_xstats), &rx_errs, rxq->err);
			x.packets = rxq->pkts;
			x.bytes = rxq->bytes;
			x.rhq_overflows = rxq_ovfl(ad, rxq);
		}
		k += xstats_put(xs + k, rxq_xstats, RXQ_XSTATS, &x);
	}
	for (q = 0; q < dev->data->nb_tx_queues; q++) {
		struct hfi1_tx_queue *txq = dev->data->tx_queues[q];
		struct hfi1_txq_xstats x = { 0 };

		if (txq != NULL) {
			omni_ctr_add(tx_err_xstats, RTE_DIM(tx_err_xstats), &tx_errs, txq->err);
			x.packets = txq->pkts;
			x.bytes = txq->bytes;
		}
		k += xstats_put(xs + k, txq_xstats, TXQ_XSTATS, &x);
	}
	k = xstats_put(xs, rx_err_xstats, RTE_DIM(rx_err_xstats), &rx_errs);
	xstats_put(xs + k, tx_err_xstats, RTE_DIM(tx_err_xstats), &tx_errs);
	for (k = 0; k < n; k++)
		xs[k].id = k;
	return n;
}

static const struct eth_dev_ops hfi1_eth_dev_ops = {
	.dev_configure = hfi1_dev_configure,
	.dev_start = hfi1_dev_start,
	.dev_stop = hfi1_dev_stop,
	.dev_close = hfi1_dev_close,
	.dev_infos_get = hfi1_dev_infos_get,
	.link_update = hfi1_link_update,
	.mtu_set = hfi1_mtu_set,
	.promiscuous_enable = hfi1_promisc_nop,
	.promiscuous_disable = hfi1_promisc_nop,
	.allmulticast_enable = hfi1_promisc_nop,
	.allmulticast_disable = hfi1_promisc_nop,
	.rx_queue_setup = hfi1_rx_queue_setup,
	.tx_queue_setup = hfi1_tx_queue_setup,
	.rx_queue_release = hfi1_rx_queue_release,
	.tx_queue_release = hfi1_tx_queue_release,
	.rx_queue_start = hfi1_rx_queue_start,
	.rx_queue_stop = hfi1_rx_queue_stop,
	.tx_queue_start = hfi1_tx_queue_start,
	.tx_queue_stop = hfi1_tx_queue_stop,
	.tx_done_cleanup = hfi1_tx_done_cleanup,
	.stats_get = hfi1_stats_get,
	.stats_reset = hfi1_stats_reset,
	.xstats_get = hfi1_xstats_get,
	.xstats_get_names = hfi1_xstats_get_names,
	.xstats_reset = hfi1_stats_reset,
};

/* ---- specific API ---- */

int
rte_pmd_hfi1_port_info_get(uint16_t port_id,
		struct rte_pmd_hfi1_port_info *info)
{
	struct hfi1_adapter *ad = hfi1_ad_of_port(port_id);
	unsigned int i;

	if (ad == NULL)
		return -ENODEV;
	if (info == NULL)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	hfi1_read_port_config(ad, &info->lid, &info->link_active);
	info->mtu = ad->mtu_cap;
	for (i = 0; i < RTE_PMD_HFI1_PKEYS; i++) {
		uint16_t k = (hfi1_csr_read(&ad->hw, HFI1_RCV_PARTITION_KEY +
					8u * (i / 4)) >> (16 * (i % 4))) & 0xFFFF;

		if (k != 0)
			info->pkeys[info->nb_pkeys++] = k;
	}
	hfi1_read_sc_to_vl(ad);
	memcpy(info->sc_to_vl, ad->sc_to_vl, sizeof(info->sc_to_vl));
	info->nb_rx_contexts = ad->hw.nb_rcv_ctxts;
	info->nb_sdma_engines = ad->hw.nb_sdma_engines;
	info->egr_layout = (uint8_t)ad->layout;
	return 0;
}

int
rte_pmd_hfi1_steering_set(uint16_t port_id,
		const struct rte_pmd_hfi1_steering *s)
{
	struct hfi1_adapter *ad = hfi1_ad_of_port(port_id);

	if (ad == NULL)
		return -ENODEV;
	if (s == NULL)
		return -EINVAL;
	if (ad->dev->data->dev_started)
		return -EBUSY;
	if (hfi1_steering_check(s, ad->dev->data->nb_rx_queues) != 0)
		return -EINVAL;
	ad->steering = *s;
	ad->steering_set = true;
	return 0;
}

int
rte_pmd_hfi1_steering_get(uint16_t port_id, struct rte_pmd_hfi1_steering *s)
{
	struct hfi1_adapter *ad = hfi1_ad_of_port(port_id);

	if (ad == NULL)
		return -ENODEV;
	if (s == NULL)
		return -EINVAL;
	if (ad->steering_set)
		*s = ad->steering;
	else
		hfi1_default_steering(ad->dev->data->nb_rx_queues, s);
	return 0;
}

/* ---- probe ---- */

static void
hfi1_dev_init(struct rte_eth_dev *dev, struct hfi1_adapter *ad,
		enum hfi1_egr_layout rx_layout)
{
	uint8_t link_up;	/* reported by link_update, not kept */
	uint32_t lid;

	ad->dev = dev;
	ad->layout = rx_layout;
	ad->layout_auto = rx_layout == HFI1_EGR_LAYOUT_AUTO;
	snprintf(ad->hw.name, sizeof(ad->hw.name), "hfi1p%u",
			dev->data->port_id);
	ad->hw.socket_id = dev->device->numa_node < 0 ? SOCKET_ID_ANY :
		dev->device->numa_node;
	hfi1_read_port_config(ad, &lid, &link_up);
	hfi1_read_sc_to_vl(ad);
	/* ethdev wants a MAC; a fabric port has none. Locally administered,
	 * from the LID, so it is stable and unique on a fabric. */
	ad->mac = (struct rte_ether_addr){ .addr_bytes = { 0x02, 0x11, 0xF1,
		(uint8_t)(lid >> 16), (uint8_t)(lid >> 8), (uint8_t)lid } };
	dev->data->mac_addrs = &ad->mac;
	dev->data->mtu = RTE_MIN(RTE_ETHER_MTU, ad->mtu_cap);
	dev->data->dev_flags |= RTE_ETH_DEV_INTR_LSC;
	dev->dev_ops = &hfi1_eth_dev_ops;
	dev->rx_pkt_burst = hfi1_rx_burst;
	dev->tx_pkt_burst = hfi1_tx_burst;
}

static int
hfi1_vdev_probe(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);
	struct hfi1_adapter *ad;
	struct rte_eth_dev *dev;
	struct hfi1_args a;
	int ret;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		HFI1_LOG(ERR, "%s: secondary processes are not supported", name);
		return -ENOTSUP;
	}
	ret = hfi1_args_parse(rte_vdev_device_args(vdev), hfi1_vdev_args,
			      RTE_DIM(hfi1_vdev_args), &a);
	if (ret != 0)
		return ret;
	if (!a.model) {
		HFI1_LOG(ERR, "%s: a vdev needs model=1 (an HFI is probed on PCI)",
				name);
		return -EINVAL;
	}
	dev = rte_eth_vdev_allocate(vdev, sizeof(*ad));
	if (dev == NULL)
		return -ENOMEM;
	ad = hfi1_ad(dev);
	ad->model = hfi1_model_create(name, &a.mc, vdev->device.numa_node < 0 ? SOCKET_ID_ANY :
			vdev->device.numa_node);
	if (ad->model == NULL) {
		ret = -rte_errno;
		HFI1_LOG(ERR, "%s: model not created: %s", name, rte_strerror(rte_errno));
		rte_eth_dev_release_port(dev);
		return ret;
	}
	hfi1_model_attach(ad->model, &ad->hw, !a.service, &ad->poll);
	if (a.service) {
		ret = hfi1_model_service_register(ad->model);
		if (ret < 0) {
			HFI1_LOG(ERR, "%s: model service not registered: %s",
					name, rte_strerror(-ret));
			hfi1_model_destroy(ad->model);
			rte_eth_dev_release_port(dev);
			return ret;
		}
	}
	hfi1_dev_init(dev, ad, a.rx_layout);
	HFI1_LOG(INFO, "%s: port %u on the model, LID 0x%x, MTU %u, %u contexts, %u engines, wire %s",
			name, dev->data->port_id, a.mc.lid, a.mc.mtu,
			a.mc.nb_ctxts, a.mc.nb_engines,
			a.mc.wire[0] ? a.mc.wire : "(none)");
	rte_eth_dev_probing_finish(dev);
	return 0;
}

static int
hfi1_vdev_remove(struct rte_vdev_device *vdev)
{
	struct rte_eth_dev *dev;

	dev = rte_eth_dev_allocated(rte_vdev_device_name(vdev));
	if (dev == NULL)
		return 0;
	/* A stacked PMD (net_opa_vnic) polling this port stops now, before
	 * the queues go (RTE_ETH_EVENT_DESTROY comes only after they went).
	 */
	rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_INTR_RMV, NULL);
	hfi1_dev_close(dev);
	return rte_eth_dev_release_port(dev);
}

static struct rte_vdev_driver hfi1_vdev_driver = {
	.probe = hfi1_vdev_probe,
	.remove = hfi1_vdev_remove,
};

RTE_PMD_REGISTER_VDEV(net_hfi1, hfi1_vdev_driver);
RTE_PMD_REGISTER_PARAM_STRING(net_hfi1,
	ARG_MODEL "=1 "
	ARG_LID "=<1..0xbfff> "
	ARG_PKEYS "=<pkey[:pkey...]> "
	ARG_MTU "=<2048|4096|8192|10240> "
	ARG_CONTEXTS "=<1..160> "
	ARG_ENGINES "=<1..16> "
	ARG_WIRE "=<port name|ring:NAME> "
	ARG_LAYOUT "=<full|split> "
	ARG_RX_LAYOUT "=<auto|full|split> "
	ARG_SERVICE "=<0|1>");

static int
hfi1_pci_init(struct rte_eth_dev *dev)
{
	struct rte_pci_device *pci = RTE_ETH_DEV_TO_PCI(dev);
	struct hfi1_adapter *ad = hfi1_ad(dev);
	struct hfi1_args a;
	int ret;

	if (pci->mem_resource[0].addr == NULL ||
	    pci->mem_resource[0].len != HFI1_BAR0_SIZE) {
		HFI1_LOG(ERR, "%s: BAR0 not mapped or not 64 MiB", pci->name);
		return -ENODEV;
	}
	ret = hfi1_args_parse(pci->device.devargs ?
			pci->device.devargs->args : NULL, hfi1_pci_args,
			RTE_DIM(hfi1_pci_args), &a);
	if (ret != 0)
		return ret;
	ad->hw.ops = &hfi1_bar_ops;
	ad->hw.dev = pci->mem_resource[0].addr;
	ad->hw.nb_rcv_ctxts = HFI1_CHIP_RCV_CONTEXTS;
	ad->hw.nb_sdma_engines = HFI1_CHIP_SDMA_ENGINES;
	ad->hw.rcv_array_cnt = (uint32_t)hfi1_csr_read(&ad->hw,
			HFI1_RCV_ARRAY_CNT);
	if (ad->hw.rcv_array_cnt == 0) {
		HFI1_LOG(ERR, "%s: RcvArray count reads 0", pci->name);
		return -ENODEV;
	}
	HFI1_LOG(WARNING, "%s: firmware load, link bring-up and the SMA are not implemented: the link must already be up and configured (see doc/hfi1.md)",
			pci->name);
	hfi1_dev_init(dev, ad, a.rx_layout);
	return 0;
}

static int
hfi1_pci_probe(struct rte_pci_driver *drv __rte_unused,
		struct rte_pci_device *pci)
{
	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return -ENOTSUP;
	return rte_eth_dev_pci_generic_probe(pci, sizeof(struct hfi1_adapter),
			hfi1_pci_init);
}

static int
hfi1_pci_uninit(struct rte_eth_dev *dev)
{
	return hfi1_dev_close(dev);
}

static int
hfi1_pci_remove(struct rte_pci_device *pci)
{
	return rte_eth_dev_pci_generic_remove(pci, hfi1_pci_uninit);
}

static const struct rte_pci_id hfi1_pci_ids[] = {
	{ RTE_PCI_DEVICE(0x8086, 0x24f0) },	/* discrete HFI */
	{ RTE_PCI_DEVICE(0x8086, 0x24f1) },	/* integrated HFI */
	{ .vendor_id = 0 },
};

static struct rte_pci_driver hfi1_pci_driver = {
	.id_table = hfi1_pci_ids,
	.drv_flags = RTE_PCI_DRV_NEED_MAPPING,
	.probe = hfi1_pci_probe,
	.remove = hfi1_pci_remove,
};

RTE_PMD_REGISTER_PCI(net_hfi1_pci, hfi1_pci_driver);
RTE_PMD_REGISTER_PCI_TABLE(net_hfi1_pci, hfi1_pci_ids);
RTE_PMD_REGISTER_KMOD_DEP(net_hfi1_pci, "* vfio-pci");
RTE_PMD_REGISTER_PARAM_STRING(net_hfi1_pci, ARG_RX_LAYOUT "=<auto|full|split>");
