/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * The model's registers, life cycle and wire. The datapath (engines and
 * receive) is in hfi1_model_dp.c.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_alarm.h>
#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_memzone.h>
#include <rte_ring.h>
#include <rte_service_component.h>

#include "hfi1_model_priv.h"

#define WIRE_RING_SIZE 4096
#define WIRE_POOL_SIZE 8191
#define WIRE_DESC 1024
/* Link bring-up: the tick; ticks up in a row before Active again; ticks
 * from the loss seen to the first re-dial, and from a re-dial to the next. */
#define LINK_TICK_US 100000
#define LINK_TRAIN_TICKS 2
#define REDIAL_TICKS_FIRST 5
#define REDIAL_TICKS 20

/* ---- CSRs ---- */

static bool
in_block(uint32_t off, uint32_t base, uint32_t stride, uint32_t n,
		uint32_t *idx, uint32_t *reg)
{
	if (off < base || off >= base + stride * n)
		return false;
	*idx = (off - base) / stride;
	*reg = base + (off - base) % stride;
	return true;
}

/* Whether @p csr is one of the @p n registers of @p arr. */
static inline bool
in_array(const uint64_t *csr, const uint64_t *arr, size_t n)
{
	uintptr_t c = (uintptr_t)csr, a = (uintptr_t)arr;

	return c >= a && c < a + n * sizeof(*arr);
}

/* The CSR a write or read lands on, or NULL. */
static uint64_t *
model_csr(struct hfi1_model *m, uint32_t off, bool *handled)
{
	uint32_t i, reg;

	*handled = true;
	if (in_block(off, HFI1_SDMA_CTRL, 0x100, m->conf.nb_engines, &i, &reg)) {
		struct model_engine *e = &m->eng[i];

		switch (reg) {
		case HFI1_SDMA_CTRL: return &e->ctrl;
		case HFI1_SDMA_BASE_ADDR: return &e->base;
		case HFI1_SDMA_LEN_GEN: return &e->len_gen;
		case HFI1_SDMA_HEAD_ADDR: return &e->head_addr;
		case HFI1_SDMA_ENG_ERR_STATUS: return &e->err;
		}
		*handled = false;
		return NULL;
	}
	if (in_block(off, HFI1_RCV_CTXT_CTRL, 0x100, m->conf.nb_ctxts, &i, &reg)) {
		struct model_ctxt *c = &m->ctx[i];

		switch (reg) {
		case HFI1_RCV_CTXT_CTRL: return &c->ctrl;
		case HFI1_RCV_EGR_CTRL: return &c->egr_ctrl;
		case HFI1_RCV_HDR_ADDR: return &c->hdr_addr;
		case HFI1_RCV_HDR_CNT: return &c->hdr_cnt;
		case HFI1_RCV_HDR_ENT_SIZE: return &c->ent_size;
		case HFI1_RCV_HDR_SIZE: return &c->hdr_size;
		case HFI1_RCV_HDR_TAIL_ADDR: return &c->tail_addr;
		case HFI1_RCV_HDR_OVFL_CNT: return &c->ovfl_cnt;
		}
		*handled = false;
		return NULL;
	}
	if (in_block(off, HFI1_RCV_HDR_TAIL, 0x1000, m->conf.nb_ctxts, &i, &reg)) {
		struct model_ctxt *c = &m->ctx[i];

		switch (reg) {
		case HFI1_RCV_HDR_HEAD: return &c->hdr_head;
		case HFI1_RCV_EGR_INDEX_HEAD: return &c->egr_head;
		}
		*handled = false;
		return NULL;
	}
	if (in_block(off, HFI1_RCV_ARRAY, 8, MODEL_RCV_ARRAY_CNT, &i, &reg))
		return &m->rcv_array[i];
	if (in_block(off, HFI1_RCV_RSM_CFG(0), 8, HFI1_RSM_RULES, &i, &reg))
		return &m->rsm_cfg[i];
	if (in_block(off, HFI1_RCV_RSM_SELECT(0), 8, HFI1_RSM_RULES, &i, &reg))
		return &m->rsm_select[i];
	if (in_block(off, HFI1_RCV_RSM_MATCH(0), 8, HFI1_RSM_RULES, &i, &reg))
		return &m->rsm_match[i];
	if (in_block(off, HFI1_RCV_RSM_MAP_TABLE(0), 8, HFI1_RSM_MAP_ENTRIES / 8,
			&i, &reg))
		return &m->rsm_map[i];
	if (in_block(off, HFI1_RCV_PARTITION_KEY, 8, HFI1_MODEL_PKEYS / 4, &i,
			&reg))
		return &m->pkey[i];
	switch (off) {
	case HFI1_RCV_CTRL: return &m->rcv_ctrl;
	case HFI1_RCV_BYPASS: return &m->rcv_bypass;
	case HFI1_SEND_CTRL: return &m->send_ctrl;
	case HFI1_DCC_SC_VL_TABLE_15_0: return &m->sc_vl[0];
	case HFI1_DCC_SC_VL_TABLE_31_16: return &m->sc_vl[1];
	}
	*handled = false;
	return NULL;
}

static uint64_t
opa_mtu_enum(uint16_t mtu)
{
	switch (mtu) {
	case 2048: return 4;
	case 4096: return 5;
	case 8192: return 6;
	default: return 7;	/* 10240 */
	}
}

static uint64_t
model_csr_read(struct hfi1_hw *hw, uint32_t off)
{
	struct hfi1_model *m = hw->dev;
	uint32_t i, reg;
	uint64_t *csr;
	bool handled;

	if (in_block(off, HFI1_SDMA_CTRL, 0x100, m->conf.nb_engines, &i, &reg)) {
		struct model_engine *e = &m->eng[i];

		if (reg == HFI1_SDMA_STATUS)
			return e->halted || !(e->ctrl & HFI1_SDMA_CTRL_ENABLE) ?
				HFI1_SDMA_STATUS_HALTED : 0;
		if (reg == HFI1_SDMA_HEAD)
			return e->head;
		if (reg == HFI1_SDMA_TAIL)
			return __atomic_load_n(&e->tail, __ATOMIC_ACQUIRE);
	}
	switch (off) {
	case HFI1_RCV_ARRAY_CNT:
		return MODEL_RCV_ARRAY_CNT;
	case HFI1_DCC_PORT_CONFIG: {
		struct rte_eth_link link = { .link_status = 0 };
		bool active;

		if (m->trapped)
			link.link_status = m->wire_pair != NULL ||
				__atomic_load_n(&m->wire_up, __ATOMIC_ACQUIRE);
		else if (m->wire_port >= 0)
			rte_eth_link_get_nowait(m->wire_port, &link);
		/* down at once when the wire goes; Active again once trained */
		active = link.link_status &&
			__atomic_load_n(&m->wire_trained, __ATOMIC_ACQUIRE);
		return opa_mtu_enum(m->conf.mtu) <<
			HFI1_DCC_PORT_CONFIG_MTU_CAP_SHIFT |
			(uint64_t)(active ? HFI1_LINK_STATE_ACTIVE : 1) <<
			HFI1_DCC_PORT_CONFIG_LINK_STATE_SHIFT;
	}
	case HFI1_DCC_PORT_CONFIG1:
		return m->conf.lid & HFI1_DCC_PORT_CONFIG1_TARGET_DLID_MASK;
	}
	csr = model_csr(m, off, &handled);
	if (csr == NULL) {
		__atomic_fetch_add(&m->st.csr_unknown, 1, __ATOMIC_RELAXED);
		return 0;
	}
	return __atomic_load_n(csr, __ATOMIC_ACQUIRE);
}

static void
model_engine_ctrl(struct model_engine *e, uint64_t val)
{
	if (val & HFI1_SDMA_CTRL_HALT) {
		e->halted = true;
	} else if ((val & HFI1_SDMA_CTRL_ENABLE) &&
		   !(e->ctrl & HFI1_SDMA_CTRL_ENABLE)) {
		/* Enable restarts the engine at the ring's start. */
		e->halted = false;
		e->head = 0;
		e->pos = 0;
		e->wb_delay = 0;
	}
	e->ctrl = val & (HFI1_SDMA_CTRL_ENABLE | HFI1_SDMA_CTRL_HALT);
}

static void
model_csr_write(struct hfi1_hw *hw, uint32_t off, uint64_t val)
{
	struct hfi1_model *m = hw->dev;
	uint32_t i, reg;
	uint64_t *csr;
	bool handled;

	if (in_block(off, HFI1_SDMA_CTRL, 0x100, m->conf.nb_engines, &i, &reg)) {
		struct model_engine *e = &m->eng[i];

		switch (reg) {
		case HFI1_SDMA_TAIL:
			__atomic_store_n(&e->tail, (uint32_t)val,
					__ATOMIC_RELEASE);
			return;
		case HFI1_SDMA_CTRL:
			model_engine_ctrl(e, val);
			return;
		case HFI1_SDMA_LEN_GEN:
			e->len_gen = val;
			e->cnt = (uint32_t)(val >> HFI1_SDMA_LEN_GEN_LENGTH_SHIFT &
					0x3FF) * 64;
			return;
		case HFI1_SDMA_ENG_ERR_CLEAR:
			e->err &= ~val;
			return;
		}
	}
	if (in_block(off, HFI1_RCV_CTXT_CTRL, 0x100, m->conf.nb_ctxts, &i,
			&reg) && reg == HFI1_RCV_CTXT_CTRL) {
		struct model_ctxt *c = &m->ctx[i];

		/* Enabling resets the device's side of the context. */
		if ((val & HFI1_RCV_CTXT_CTRL_ENABLE) &&
		    !(c->ctrl & HFI1_RCV_CTXT_CTRL_ENABLE)) {
			c->tail = 0;
			c->seq = 1;
			c->egr_cur = 0;
			c->egr_off = 0;
			c->egr_started = false;
		}
		__atomic_store_n(&c->ctrl, val, __ATOMIC_RELEASE);
		return;
	}
	csr = model_csr(m, off, &handled);
	if (csr == NULL) {
		__atomic_fetch_add(&m->st.csr_unknown, 1, __ATOMIC_RELAXED);
		return;
	}
	__atomic_store_n(csr, val, __ATOMIC_RELEASE);
	if (csr == &m->rcv_ctrl || in_array(csr, m->rsm_cfg, RTE_DIM(m->rsm_cfg)) ||
	    in_array(csr, m->rsm_select, RTE_DIM(m->rsm_select)) ||
	    in_array(csr, m->rsm_match, RTE_DIM(m->rsm_match)) ||
	    in_array(csr, m->rsm_map, RTE_DIM(m->rsm_map)))
		model_rsm_decode(m);	/* control path only: head updates are not */
}

/* What silicon would implement: CSR access only. */
static const struct hfi1_hw_ops hfi1_model_ops = {
	.csr_read = model_csr_read,
	.csr_write = model_csr_write,
};

void
hfi1_model_attach(struct hfi1_model *m, struct hfi1_hw *hw, bool polled,
		  struct hfi1_model_poll *poll)
{
	hw->ops = &hfi1_model_ops;
	hw->dev = m;
	hfi1_model_caps(m, &hw->nb_rcv_ctxts, &hw->nb_sdma_engines, &hw->rcv_array_cnt);
	poll->model = polled ? m : NULL;
}

void
hfi1_model_sdma_step(struct hfi1_model *m, unsigned int engine)
{
	model_sdma_step(m, engine);
}

void
hfi1_model_rcv_step(struct hfi1_model *m)
{
	model_rcv_step(m);
}

/* ---- Wire ---- */

/* An in-process pair: two rings crossed, shared by the two nodes. */
struct wire_pair {
	struct rte_ring *ring[2];
	int users;
	bool side_used[2];	/**< a node transmits on ring[side] */
};

static void
wire_ring_detach(struct hfi1_model *m)
{
	const struct rte_memzone *mz = m->wire_pair;
	struct wire_pair *wp = mz->addr;
	void *pkts[32];
	unsigned int n;

	/* What we sent and the peer did not take yet goes with us: the
	 * engines' copies are mbufs of our pool, which is about to go. */
	while ((n = rte_ring_dequeue_burst(wp->ring[m->wire_side], pkts,
			RTE_DIM(pkts), NULL)) > 0)
		rte_pktmbuf_free_bulk((struct rte_mbuf **)pkts, n);
	wp->side_used[m->wire_side] = false;
	if (--wp->users == 0) {
		rte_ring_free(wp->ring[0]);
		rte_ring_free(wp->ring[1]);
		rte_memzone_free(mz);
	}
	m->wire_pair = NULL;
}

static int
wire_ring_attach(struct hfi1_model *m, const char *pair_name)
{
	char name[RTE_MEMZONE_NAMESIZE], port[RTE_ETH_NAME_MAX_LEN];
	char ring_port[RTE_ETH_NAME_MAX_LEN + 16];
	const struct rte_memzone *mz;
	struct wire_pair *wp;
	struct rte_ring *rx, *tx;
	uint16_t stale;
	int side, i, ret;

	snprintf(name, sizeof(name), "hfi1w_%s", pair_name);
	mz = rte_memzone_lookup(name);
	if (mz == NULL) {
		mz = rte_memzone_reserve(name, sizeof(*wp), m->socket_id, 0);
		if (mz == NULL)
			return -ENOMEM;
		wp = mz->addr;
		memset(wp, 0, sizeof(*wp));
		for (i = 0; i < 2; i++) {
			char rn[RTE_RING_NAMESIZE];

			snprintf(rn, sizeof(rn), "hfi1w%d_%s", i, pair_name);
			wp->ring[i] = rte_ring_create(rn, WIRE_RING_SIZE,
					m->socket_id, 0);
			if (wp->ring[i] == NULL) {
				rte_ring_free(wp->ring[0]);
				rte_memzone_free(mz);
				return -ENOMEM;
			}
		}
	}
	wp = mz->addr;
	if (wp->users >= 2) {
		HFI1_OSAL_LOG(ERR, "%s: wire ring:%s already joins two nodes",
				m->name, pair_name);
		return -EBUSY;
	}
	/* The side a node that left freed, if one did. */
	side = wp->side_used[0] ? 1 : 0;
	wp->side_used[side] = true;
	wp->users++;
	tx = wp->ring[side];
	rx = wp->ring[!side];
	m->wire_pair = (void *)(uintptr_t)mz;
	m->wire_side = side;
	snprintf(port, sizeof(port), "%s_wire", m->name);
	/* Closing a net_ring port leaves its vdev on the bus (removing it
	 * from a remove callback is unsafe during bus cleanup): the shell of
	 * an earlier node of this name would keep the name taken. */
	snprintf(ring_port, sizeof(ring_port), "net_ring_%s", port);
	if (rte_eth_dev_get_port_by_name(ring_port, &stale) != 0)
		rte_vdev_uninit(ring_port);
	ret = rte_eth_from_rings(port, &rx, 1, &tx, 1, m->socket_id);
	if (ret < 0) {
		ret = -rte_errno;
		wire_ring_detach(m);
		return ret;
	}
	m->wire_port = ret;
	return 0;
}

static int
wire_start(struct hfi1_model *m)
{
	struct rte_eth_conf conf = { .rxmode = { .mtu = RTE_ETHER_MTU } };
	struct rte_eth_dev_info info;
	uint16_t p = m->wire_port;
	int ret;

	ret = rte_eth_dev_info_get(p, &info);
	if (ret != 0)
		return ret;
	/* Whole packets up to 10240 + headers cross as mbuf chains. */
	if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER)
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
	if (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS)
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	ret = rte_eth_dev_configure(p, 1, 1, &conf);
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(p, 0, WIRE_DESC, m->socket_id,
				NULL, m->pool);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(p, 0, WIRE_DESC, m->socket_id,
				NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(p);
	if (ret != 0)
		HFI1_OSAL_LOG(ERR, "%s: wire port %u cannot start: %s", m->name, p,
				rte_strerror(-ret));
	return ret;
}

static int
wire_attach(struct hfi1_model *m)
{
	const char *w = m->conf.wire;
	struct rte_eth_dev_owner owner = { .id = 0 };
	uint16_t p;
	int ret;

	m->wire_port = -1;
	if (w[0] == '\0')
		return 0;
	if (strncmp(w, "ring:", 5) == 0) {
		ret = wire_ring_attach(m, w + 5);
		if (ret != 0)
			return ret;
	} else {
		if (rte_eth_dev_get_port_by_name(w, &p) != 0) {
			HFI1_OSAL_LOG(ERR,
				"%s: wire port %s not found (give its --vdev before net_hfi1's)",
				m->name, w);
			return -ENODEV;
		}
		m->wire_port = p;
	}
	/* Own the wire so applications (testpmd) leave it alone. */
	ret = rte_eth_dev_owner_new(&owner.id);
	if (ret == 0) {
		snprintf(owner.name, sizeof(owner.name), "%s", m->name);
		ret = rte_eth_dev_owner_set(m->wire_port, &owner);
	}
	if (ret != 0) {
		HFI1_OSAL_LOG(ERR, "%s: wire port %s is owned by someone else",
				m->name, w);
		goto fail;
	}
	m->wire_owner = owner.id;
	ret = wire_start(m);
	if (ret != 0)
		goto fail;
	return 0;
fail:
	if (m->wire_owner != 0)
		rte_eth_dev_owner_unset(m->wire_port, m->wire_owner);
	m->wire_owner = 0;
	if (m->wire_pair != NULL) {
		rte_eth_dev_close(m->wire_port);
		wire_ring_detach(m);
	}
	m->wire_port = -1;
	return ret;
}

static void
wire_detach(struct hfi1_model *m)
{
	if (m->wire_port < 0)
		return;
	/* The wire may already be gone (bus cleanup removes it first). */
	if (rte_eth_dev_is_valid_port(m->wire_port)) {
		rte_eth_dev_stop(m->wire_port);
		if (m->wire_pair != NULL)
			rte_eth_dev_close(m->wire_port);
		else
			rte_eth_dev_owner_unset(m->wire_port, m->wire_owner);
	}
	if (m->wire_pair != NULL)
		wire_ring_detach(m);
	m->wire_port = -1;
}

int
hfi1_model_wire_port(const struct hfi1_model *m)
{
	return m->wire_port;
}

/* ---- Link bring-up ---- */

/*
 * Restart the wire port, as an HFI retries link training while its link is
 * down: a net_memif client whose server went (or disconnected it) never
 * connects again by itself. On the interrupt thread (the tick); the
 * datapath is held off the wire meanwhile, since stopping it unmaps the
 * rings a burst reads, and a stopped port's bursts are ethdev's error stubs.
 */
static void
model_redial(struct hfi1_model *m)
{
	int ret;

	rte_spinlock_lock(&m->wire_tx_lock);
	rte_spinlock_lock(&m->wire_rx_lock);
	ret = rte_eth_dev_stop(m->wire_port);
	if (ret == 0)
		ret = rte_eth_dev_start(m->wire_port);
	__atomic_store_n(&m->wire_started, ret == 0, __ATOMIC_RELEASE);
	rte_spinlock_unlock(&m->wire_rx_lock);
	rte_spinlock_unlock(&m->wire_tx_lock);
	m->st.wire_redials++;
	m->dials_lost++;
	m->dial_wait = REDIAL_TICKS;
}

/*
 * Every LINK_TICK_US on the interrupt thread while the model has a wire
 * port of its own. Once the link is lost, DCC reports it down (it follows
 * the wire at once) and stays down until LINK_TRAIN_TICKS ticks in a row
 * saw the wire up: a connection the peer undoes at once (a switch port
 * held down) is never reported, as a link that fails training is not.
 *
 * Re-dialling: 0.4 s after the loss is seen, then every 2 s while down.
 * Not sooner, for two ways a DPDK 22.11 net_memif server dies of a client:
 * one that accepts a client which has already closed frees the
 * connection's interrupt source without unregistering it (seen as EAL's
 * "Invalid memory" or a PANIC in eal_intr_thread_main): a dial is
 * abandoned only when the server had 2 s to take it (with 0.2 s, a loaded
 * machine killed the switch this way; under full-rate traffic through the
 * switch a dial took up to about 1 s to complete); and one that is exiting (its
 * port stopped, then closed and its memory unmapped by rte_eal_cleanup)
 * faults on the connection a client makes meanwhile (seen with a dial at
 * once: system_hfi1_testpmd's node B, the server, stops first). Nothing is
 * re-dialled before the wire was first up: start-up connects once, as it
 * always did.
 */
static void
model_link_tick(void *arg)
{
	struct hfi1_model *m = arg;
	struct rte_eth_link link = { .link_status = 0 };
	bool trained = __atomic_load_n(&m->wire_trained, __ATOMIC_RELAXED);

	if (rte_eth_link_get_nowait(m->wire_port, &link) != 0)
		link.link_status = 0;
	__atomic_store_n(&m->wire_up, link.link_status != 0, __ATOMIC_RELEASE);
	if (link.link_status) {
		m->wire_seen_up = true;
		if (!trained && ++m->up_ticks >= LINK_TRAIN_TICKS) {
			__atomic_store_n(&m->wire_trained, true, __ATOMIC_RELEASE);
			HFI1_OSAL_LOG(NOTICE, "%s: wire link up again (%.1f s down, %" PRIu64
				" re-dials)", m->name, (double)(rte_get_timer_cycles() -
				m->lost_at) / rte_get_timer_hz(), m->dials_lost);
		}
	} else if (m->wire_seen_up) {
		m->up_ticks = 0;
		if (trained) {
			__atomic_store_n(&m->wire_trained, false, __ATOMIC_RELEASE);
			m->st.wire_lost++;
			m->dials_lost = 0;
			m->lost_at = rte_get_timer_cycles();
			HFI1_OSAL_LOG(NOTICE, "%s: wire link lost: re-dialling", m->name);
			m->dial_wait = REDIAL_TICKS_FIRST;
		}
		if (m->dial_wait == 0 || --m->dial_wait == 0)
			model_redial(m);
	}
	if (rte_eal_alarm_set(LINK_TICK_US, model_link_tick, m) != 0) {
		/* cannot happen short of memory: the link stays as it is */
		m->link_tick = false;
		HFI1_OSAL_LOG(ERR, "%s: link tick stopped: %s", m->name, rte_strerror(rte_errno));
	}
}

static void
link_tick_start(struct hfi1_model *m)
{
	/* a ring pair's link is always up: nothing to bring up */
	if (m->wire_port < 0 || m->wire_pair != NULL)
		return;
	if (model_guard_create(m) != 0)
		HFI1_OSAL_LOG(WARNING,
			"%s: no wire guard: a wire peer that disconnects may crash a burst", m->name);
	{
		struct rte_eth_link link = { .link_status = 0 };

		/* the first look, for a trapped model's CSRs before the first tick */
		if (rte_eth_link_get_nowait(m->wire_port, &link) == 0)
			__atomic_store_n(&m->wire_up, link.link_status != 0, __ATOMIC_RELEASE);
	}
	if (rte_eal_alarm_set(LINK_TICK_US, model_link_tick, m) == 0)
		m->link_tick = true;
	else
		HFI1_OSAL_LOG(WARNING, "%s: no link tick (%s): a lost wire link stays down",
			m->name, rte_strerror(rte_errno));
}

static void
link_tick_stop(struct hfi1_model *m)
{
	if (m->link_tick)
		rte_eal_alarm_cancel(model_link_tick, m);
	m->link_tick = false;
	model_guard_destroy(m);
}

/* ---- Life cycle ---- */

struct hfi1_model *
hfi1_model_create(const char *name, const struct hfi1_model_conf *conf,
		int socket_id)
{
	struct hfi1_model *m;
	char pool[RTE_MEMPOOL_NAMESIZE];
	unsigned int sc;
	int ret;

	if (conf->nb_ctxts == 0 || conf->nb_ctxts > HFI1_CHIP_RCV_CONTEXTS ||
	    conf->nb_engines == 0 ||
	    conf->nb_engines > HFI1_CHIP_SDMA_ENGINES) {
		rte_errno = EINVAL;
		return NULL;
	}
	m = rte_zmalloc_socket("hfi1_model", sizeof(*m), RTE_CACHE_LINE_SIZE,
			socket_id);
	if (m == NULL)
		goto nomem;
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->conf = *conf;
	m->socket_id = socket_id;
	m->wire_port = -1;
	m->wire_trained = true;
	m->wire_started = true;
	rte_spinlock_init(&m->wire_tx_lock);
	rte_spinlock_init(&m->wire_rx_lock);
	m->eng = rte_zmalloc_socket("hfi1_model", sizeof(*m->eng) *
			conf->nb_engines, RTE_CACHE_LINE_SIZE, socket_id);
	m->ctx = rte_zmalloc_socket("hfi1_model", sizeof(*m->ctx) *
			conf->nb_ctxts, RTE_CACHE_LINE_SIZE, socket_id);
	m->rcv_array = rte_zmalloc_socket("hfi1_model", sizeof(uint64_t) *
			MODEL_RCV_ARRAY_CNT, RTE_CACHE_LINE_SIZE, socket_id);
	if (m->eng == NULL || m->ctx == NULL || m->rcv_array == NULL)
		goto nomem_free;
	/* What the SMA would have set: P_Keys, SC n -> VL n (SC 15 -> VL15). */
	for (sc = 0; sc < conf->nb_pkeys; sc++)
		m->pkey[sc / 4] |= (uint64_t)conf->pkeys[sc] << (16 * (sc % 4));
	for (sc = 0; sc < 32; sc++) {
		uint64_t vl = sc == 15 ? 15 : sc < 8 ? sc : 0;

		m->sc_vl[sc / 16] |= vl << (4 * (sc % 16));
	}
	snprintf(pool, sizeof(pool), "%s_wire", name);
	m->pool = rte_pktmbuf_pool_create(pool, WIRE_POOL_SIZE, 256, 0,
			RTE_MBUF_DEFAULT_BUF_SIZE, socket_id);
	if (m->pool == NULL)
		goto nomem_free;
	ret = wire_attach(m);
	if (ret != 0) {
		rte_mempool_free(m->pool);
		rte_free(m->rcv_array);
		rte_free(m->ctx);
		rte_free(m->eng);
		rte_free(m);
		rte_errno = -ret;
		return NULL;
	}
	link_tick_start(m);
	return m;
nomem_free:
	rte_free(m->rcv_array);
	rte_free(m->ctx);
	rte_free(m->eng);
	rte_free(m);
nomem:
	rte_errno = ENOMEM;
	return NULL;
}

void
hfi1_model_destroy(struct hfi1_model *m)
{
	bool own_wire;

	if (m == NULL)
		return;
	if (m->service) {
		rte_service_component_runstate_set(m->service_id, 0);
		rte_service_component_unregister(m->service_id);
	}
	/* what we unregister (the guard, a memif wire's connection as it
	 * stops) is out of the interrupt thread's sources before the wire's
	 * own close: a net_memif server's close leaves a freed handle there */
	own_wire = m->guard != NULL && rte_eth_dev_is_valid_port((uint16_t)m->wire_port);
	link_tick_stop(m);
	wire_detach(m);
	if (own_wire)
		model_intr_barrier();
	rte_mempool_free(m->pool);
	rte_free(m->rcv_array);
	rte_free(m->ctx);
	rte_free(m->eng);
	rte_free(m);
}

void
hfi1_model_set_dma(struct hfi1_model *m, hfi1_model_dma_fn fn, void *ctx)
{
	m->dma_ctx = ctx;
	m->dma_fn = fn;
}

void
hfi1_model_set_trapped(struct hfi1_model *m)
{
	m->trapped = true;
}

void
hfi1_model_caps(const struct hfi1_model *m, uint32_t *nb_ctxts,
		uint32_t *nb_engines, uint32_t *rcv_array_cnt)
{
	*nb_ctxts = m->conf.nb_ctxts;
	*nb_engines = m->conf.nb_engines;
	*rcv_array_cnt = MODEL_RCV_ARRAY_CNT;
}

void
hfi1_model_step(struct hfi1_model *m)
{
	unsigned int e;

	for (e = 0; e < m->conf.nb_engines; e++)
		model_sdma_step(m, e);
	model_rcv_step(m);
}

static int32_t
model_service(void *arg)
{
	hfi1_model_step(arg);
	return 0;
}

int
hfi1_model_service_register(struct hfi1_model *m)
{
	struct rte_service_spec spec = {
		.callback = model_service,
		.callback_userdata = m,
		.socket_id = m->socket_id,
	};
	int ret;

	snprintf(spec.name, sizeof(spec.name), "%.24s_model", m->name);
	ret = rte_service_component_register(&spec, &m->service_id);
	if (ret != 0)
		return ret;
	rte_service_component_runstate_set(m->service_id, 1);
	m->service = true;
	return (int)m->service_id;
}

void
hfi1_model_fault(struct hfi1_model *m, enum hfi1_model_fault f,
		uint32_t count, uint64_t arg)
{
	if (f >= HFI1_FAULT_MAX)
		return;
	m->fault_arg[f] = arg;
	__atomic_store_n(&m->fault_count[f], count, __ATOMIC_RELEASE);
}

void
hfi1_model_stats_get(const struct hfi1_model *m, struct hfi1_model_stats *s)
{
	*s = m->st;
}
