/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * The roce-perf engine (see rperf.h). Each endpoint is a step function the
 * lcore that owns the endpoint's device calls after every poll of that
 * device; nothing blocks, so one lcore can run both endpoints.
 *
 * Memory: each endpoint has one MR; per QP it holds an "in" area (receive
 * buffers, targets of the peer's WRITEs, READ targets) and an "out" area
 * (SEND and WRITE sources, what the peer READs), of nslots slots each.
 * Message seq of a QP uses slot seq % nslots on both sides. A slot's
 * content is pattern(side, qp, tag): tag is the slot index (the "out"
 * areas are filled once) or, with --verify, the message's sequence number
 * (the source slot is rewritten before every post), so a message delivered
 * twice, out of order or to the wrong place does not match.
 */

#include "rperf_internal.h"

RTE_LOG_REGISTER_DEFAULT(rperf_logtype, NOTICE);

static unsigned int run_count;

static const char *const mode_names[RPERF_MODE_MAX] = {
	"send_bw", "write_bw", "read_bw", "send_lat", "write_lat", "read_lat",
};

const char *
rperf_mode_name(enum rperf_mode m)
{
	return (unsigned int)m < RPERF_MODE_MAX ? mode_names[m] : "?";
}

int
rperf_mode_parse(const char *s)
{
	int i;

	for (i = 0; i < RPERF_MODE_MAX; i++)
		if (strcmp(s, mode_names[i]) == 0)
			return i;
	return -1;
}

void
rperf_conf_init(struct rperf_conf *c, enum rperf_mode mode)
{
	unsigned int w;

	memset(c, 0, sizeof(*c));
	c->mode = mode;
	c->size = rperf_mode_is_lat(mode) ? 64 : 65536;
	c->iters = rperf_mode_is_lat(mode) ? 1000 : 5000;
	c->qps = 1;
	c->mtu = 4096;
	c->tx_depth = rperf_mode_is_lat(mode) ? 1 : 128;
	c->rx_depth = rperf_mode_is_lat(mode) ? 16 : 512;
	c->seed = 1;
	c->retry_cnt = 7;
	c->wire = RPERF_WIRE_RING;
	c->ports[0] = 0;
	c->ports[1] = 1;
	c->lcore[0] = rte_get_main_lcore();
	w = rte_get_next_lcore(-1, 1, 0);
	c->lcore[1] = w < RTE_MAX_LCORE ? w : c->lcore[0];
	c->stall_secs = 10;
}

/* ---------------- helpers ---------------- */

void __rte_format_printf(2, 3)
rp_fail(struct run *run, const char *fmt, ...)
{
	va_list ap;

	if (__atomic_exchange_n(&run->err_taken, 1, __ATOMIC_ACQ_REL) == 0) {
		va_start(ap, fmt);
		vsnprintf(run->err, sizeof(run->err), fmt, ap);
		va_end(ap);
	}
	__atomic_store_n(&run->abort, 1, __ATOMIC_RELEASE);
}

bool
rp_aborted(const struct run *run)
{
	return __atomic_load_n(&run->abort, __ATOMIC_ACQUIRE) != 0;
}

static inline uint64_t
xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * UINT64_C(0x2545f4914f6cdd1d);
}

static inline bool
chance(uint64_t *s, uint32_t pm)
{
	return pm != 0 && xorshift(s) % 1000 < pm;
}

/* First word of pattern(side, qp, tag); the others add GOLDEN each. */
uint64_t
rp_pat_base(int side, uint32_t qi, uint64_t tag)
{
	uint64_t x = tag * GOLDEN ^ ((uint64_t)side << 62) ^ ((uint64_t)qi << 40) ^
		     UINT64_C(0x5851f42d4c957f2d);

	x ^= x >> 29;
	x *= UINT64_C(0xbf58476d1ce4e5b9);
	x ^= x >> 32;
	return x;
}

void
rp_pat_fill(uint8_t *p, uint32_t len, uint64_t w)
{
	uint32_t i;

	for (i = 0; i + 8 <= len; i += 8, w += GOLDEN)
		omni_put_le64(p + i, w);
	for (; i < len; i++)
		p[i] = (uint8_t)(w >> ((i & 7) * 8));
}

/* @return the offset of the first byte that differs, or len. */
static uint32_t
pat_find_bad(const uint8_t *p, uint32_t len, uint64_t w)
{
	uint32_t i;

	/* whole words little-endian, as the tail bytes below: the same on any host */
	for (i = 0; i + 8 <= len; i += 8, w += GOLDEN)
		if (omni_get_le64(p + i) != w)
			break;
	for (; i < len; i++)
		if (p[i] != (uint8_t)(w >> ((i & 7) * 8)))
			return i;
	return len;
}

/* Check @p len bytes at @p p against pattern(side, qi, tag); fail the run if not. */
bool
rp_check_data(struct run *run, const char *who, const uint8_t *p, uint32_t len, int side,
	   uint32_t qi, uint64_t tag, uint64_t seq)
{
	uint64_t w = rp_pat_base(side, qi, tag);
	uint32_t bad = pat_find_bad(p, len, w);
	uint8_t want;

	if (bad == len)
		return true;
	want = (uint8_t)((w + GOLDEN * (bad / 8)) >> ((bad & 7) * 8));
	rp_fail(run, "%s: QP %u message %" PRIu64 ": data mismatch at byte %u of %u "
	     "(0x%02x, expected 0x%02x)", who, qi, seq, bad, len, p[bad], want);
	return false;
}

uint8_t *
rp_slot(const struct ep *e, uint32_t qi, bool out, uint64_t seq)
{
	const struct run *run = e->run;

	return e->mem + ((uint64_t)qi * 2 + out) * run->nslots * run->stride +
	       (seq % run->nslots) * run->stride;
}

uint64_t
rp_slot_iova(const struct ep *e, uint32_t qi, bool out, uint64_t seq)
{
	return (uint64_t)(uintptr_t)rp_slot(e, qi, out, seq);
}

/* Source tag of message @p seq: its number with --verify, else its slot. */
static inline uint64_t
tag_of(const struct run *run, uint64_t seq)
{
	return run->c->verify ? seq : seq % run->nslots;
}

void
rp_lat_add(struct run *run, uint64_t cycles)
{
	if (cycles < run->lat_min)
		run->lat_min = cycles;
	if (cycles > run->lat_max)
		run->lat_max = cycles;
	run->lat_sum += cycles;
	if (run->lat_n < LAT_CAP) {
		run->lat[run->lat_n++] = cycles;
	} else {
		uint64_t j = xorshift(&run->lat_rng) % (run->lat_seen + 1);

		if (j < LAT_CAP)
			run->lat[j] = cycles;
	}
	run->lat_seen++;
}

const char *
rp_wc_opcode_str(uint8_t op)
{
	static const char *const names[] = {
		"SEND", "RDMA_WRITE", "RDMA_READ", "RECV", "RECV_RDMA_WITH_IMM", "COMP_SWAP",
		"FETCH_ADD",
	};

	return op < RTE_DIM(names) ? names[op] : "?";
}

bool
rp_wc_ok(struct ep *e, const struct roce_wc *wc)
{
	if (wc->status == ROCE_WC_SUCCESS)
		return true;
	rp_fail(e->run, "%s: QP %u WR %" PRIu64 " (%s): completion %s (vendor_err %u)", e->name,
	     (uint32_t)(wc->wr_id >> SEQ_BITS), wc->wr_id & SEQ_MASK, rp_wc_opcode_str(wc->opcode),
	     roce_wc_status_str(wc->status), wc->vendor_err);
	return false;
}

int
rp_cq_poll(struct ep *e, struct roce_cq *cq, struct roce_wc *wc)
{
	int n = roce_cq_poll(cq, wc, BURST);

	if (n < 0)
		rp_fail(e->run, "%s: %s CQ overflowed", e->name, cq == e->scq ? "send" : "receive");
	return n;
}

/* ---------------- wire ---------------- */

/* Hand one frame to the wire's far end. */
static void
wire_put(struct ep *e, struct rte_mbuf *m)
{
	if (e->port) {
		if (e->npend == PORT_PEND) {
			e->w.st.full++;
			rte_pktmbuf_free(m);
			return;
		}
		e->pend[e->npend++] = m;
		return;
	}
	if (rte_ring_sp_enqueue(e->out, m) != 0) {
		e->w.st.full++;
		rte_pktmbuf_free(m);
	}
}

static void
port_flush(struct ep *e)
{
	uint16_t sent;

	if (e->npend == 0)
		return;
	sent = rte_eth_tx_burst(e->port_id, 0, e->pend, e->npend);
	if (sent > 0 && sent < e->npend)
		memmove(e->pend, e->pend + sent, (e->npend - sent) * sizeof(e->pend[0]));
	e->npend -= sent;
}

/*
 * Move this endpoint's tx frames to the far end, losing, duplicating and
 * reordering some. Runs on the endpoint's lcore. @return frames taken.
 */
static unsigned int
wire_carry(struct ep *e)
{
	const struct rperf_conf *c = e->run->c;
	struct wire *w = &e->w;
	struct rte_mbuf *pkts[BURST];
	unsigned int n, i;

	/* a port that is behind gets no more until it took what it has */
	if (e->port && e->npend > PORT_PEND - BURST * 2) {
		port_flush(e);
		if (e->npend > PORT_PEND - BURST * 2)
			return 0;
	}
	n = rte_ring_sc_dequeue_burst(e->tx, (void **)pkts, BURST, NULL);
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		if (!e->run->inject) {
			wire_put(e, m);
			w->st.carried++;
			continue;
		}
		if (chance(&w->seed, c->loss_pm)) {
			w->st.lost++;
			rte_pktmbuf_free(m);
			continue;
		}
		if (chance(&w->seed, c->dup_pm)) {
			struct rte_mbuf *d = rte_pktmbuf_copy(m, e->run->pool, 0, UINT32_MAX);

			if (d != NULL) {
				wire_put(e, d);
				w->st.duplicated++;
			}
		}
		if (w->held == NULL && chance(&w->seed, c->reorder_pm)) {
			w->held = m;
			w->st.reordered++;
			continue;
		}
		wire_put(e, m);
		w->st.carried++;
		if (w->held != NULL) {
			wire_put(e, w->held);
			w->st.carried++;
			w->held = NULL;
		}
	}
	/* a held frame is not kept for ever when nothing follows it */
	if (n == 0 && w->held != NULL) {
		wire_put(e, w->held);
		w->st.carried++;
		w->held = NULL;
	}
	if (e->port)
		port_flush(e);
	return n;
}

static unsigned int
port_rx(struct ep *e)
{
	struct rte_mbuf *pkts[BURST];
	uint16_t n, left;

	n = rte_eth_rx_burst(e->port_id, 0, pkts, BURST);
	if (n == 0)
		return 0;
	left = roce_dev_rx_burst(e->dev, pkts, n);
	rte_pktmbuf_free_bulk(pkts, left);
	return n;
}

void
rp_ep_poll(struct ep *e)
{
	if (e->port)
		port_rx(e);
	roce_dev_poll(e->dev);
	if (e->carry)
		wire_carry(e);
}

/* ---------------- set-up and teardown ---------------- */

static struct rte_ring *
ring_make(const char *what, unsigned int id, unsigned int size)
{
	char name[RTE_RING_NAMESIZE];

	snprintf(name, sizeof(name), "rperf_%s_%u", what, id);
	return rte_ring_create(name, size, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
}

static void
ring_drain_free(struct rte_ring *r)
{
	struct rte_mbuf *m[BURST];
	unsigned int n;

	if (r == NULL)
		return;
	while ((n = rte_ring_dequeue_burst(r, (void **)m, BURST, NULL)) > 0)
		rte_pktmbuf_free_bulk(m, n);
	rte_ring_free(r);
}

static int
port_start(struct run *run, struct ep *e, uint16_t port)
{
	const struct rperf_conf *c = run->c;
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	uint16_t nb_rxd = PORT_DESC, nb_txd = PORT_DESC;
	int ret;

	memset(&conf, 0, sizeof(conf));
	ret = rte_eth_dev_info_get(port, &info);
	if (ret == 0) {
		if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER)
			conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
		if (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS)
			conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
		ret = rte_eth_dev_configure(port, 1, 1, &conf);
	}
	if (ret == 0)
		ret = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nb_rxd, &nb_txd);
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(port, 0, nb_rxd, rte_eth_dev_socket_id(port), NULL,
					     run->pool);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(port, 0, nb_txd, rte_eth_dev_socket_id(port), NULL);
	if (ret != 0) {
		rp_fail(run, "port %u: set-up failed: %s", port, rte_strerror(-ret));
		return -1;
	}
	/* frames are at most the Ethernet MTU; ports that cannot say so are used as they are */
	ret = rte_eth_dev_set_mtu(port, (uint16_t)(c->mtu + RPERF_MTU_OVERHEAD));
	if (ret != 0 && ret != -ENOTSUP)
		RPERF_LOG(WARNING, "port %u: MTU %u: %s", port, c->mtu + RPERF_MTU_OVERHEAD,
			  rte_strerror(-ret));
	ret = rte_eth_dev_start(port);
	if (ret != 0) {
		rp_fail(run, "port %u: start failed: %s", port, rte_strerror(-ret));
		return -1;
	}
	(void)rte_eth_promiscuous_enable(port);
	e->port = true;
	e->carry = true;
	e->port_id = port;
	return 0;
}

/* Both ports started: wait for their links (a memif pair connects now). */
static int
links_wait(struct run *run)
{
	struct rte_eth_link link;
	unsigned int ms, i, up;

	for (ms = 0; ms < LINK_WAIT_MS; ms += 10) {
		for (i = 0, up = 0; i < 2; i++)
			if (rte_eth_link_get_nowait(run->ep[i].port_id, &link) == 0 &&
			    link.link_status == RTE_ETH_LINK_UP)
				up++;
		if (up == 2)
			return 0;
		rte_delay_us_sleep(10000);
	}
	rp_fail(run, "ports %u and %u: links not up after %u ms", run->ep[A].port_id,
	     run->ep[B].port_id, LINK_WAIT_MS);
	return -1;
}

static int
qp_connect(struct run *run, uint32_t qi)
{
	struct roce_qp *qp[2] = { run->ep[A].q[qi].qp, run->ep[B].q[qi].qp };
	uint32_t psn[2] = { (0xfff000u + qi * 0x111u) & 0xffffffu,
			    (0x7ff800u + qi * 0x222u) & 0xffffffu };
	int i, r;

	for (i = 0; i < 2; i++) {
		struct roce_qp_attr at;
		const struct ep *peer = &run->ep[!i];
		uint8_t gid[ROCE_GID_LEN];

		memset(&at, 0, sizeof(at));
		at.qp_state = ROCE_QPS_INIT;
		at.qp_access_flags = ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ;
		r = roce_qp_modify(qp[i], &at, ROCE_QP_STATE | ROCE_QP_ACCESS_FLAGS);
		if (r < 0)
			goto err;
		at.qp_state = ROCE_QPS_RTR;
		at.path_mtu = roce_dev_active_mtu(run->ep[i].dev);
		at.dest_qp_num = roce_qp_num(qp[!i]);
		at.rq_psn = psn[!i];
		at.max_dest_rd_atomic = 16;
		at.min_rnr_timer = 1;
		roce_gid_get(peer->dev, 0, gid);
		memcpy(at.ah_attr.dgid, gid, ROCE_GID_LEN);
		at.ah_attr.dmac[0] = 0x02;
		at.ah_attr.dmac[5] = (uint8_t)(!i + 1);
		at.ah_attr.sgid_index = 0;
		at.ah_attr.vlan_id = ROCE_VLAN_NONE;
		r = roce_qp_modify(qp[i], &at, ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU |
				   ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN | ROCE_QP_MAX_DEST_RD_ATOMIC |
				   ROCE_QP_MIN_RNR_TIMER);
		if (r < 0)
			goto err;
	}
	for (i = 0; i < 2; i++) {
		struct roce_qp_attr at;

		memset(&at, 0, sizeof(at));
		at.qp_state = ROCE_QPS_RTS;
		at.sq_psn = psn[i];
		at.timeout = run->timeout;
		at.retry_cnt = run->c->retry_cnt;
		at.rnr_retry = 7;
		at.max_rd_atomic = 16;
		r = roce_qp_modify(qp[i], &at, ROCE_QP_STATE | ROCE_QP_SQ_PSN |
				   ROCE_QP_TIMEOUT | ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY |
				   ROCE_QP_MAX_QP_RD_ATOMIC);
		if (r < 0)
			goto err;
	}
	return 0;
err:
	rp_fail(run, "%s: QP %u: connecting: %s", run->ep[i].name, qi,
	     roce_dev_last_error(run->ep[i].dev));
	return -1;
}

static int
ep_setup(struct run *run, struct ep *e, unsigned int id)
{
	const struct rperf_conf *c = run->c;
	struct roce_dev_conf dc;
	struct roce_cq_conf cqc;
	struct roce_mr_conf mrc;
	struct roce_qp_init_attr ia;
	char err[ROCE_ERR_LEN];
	uint8_t gid[ROCE_GID_LEN];
	uint32_t qi, j;

	memset(&dc, 0, sizeof(dc));
	dc.name = e->name;
	dc.mac[0] = 0x02;
	dc.mac[5] = (uint8_t)(e->side + 1);
	dc.mtu = (uint16_t)(c->mtu + RPERF_MTU_OVERHEAD);
	dc.rx_ring = e->rx;
	dc.tx_ring = e->tx;
	dc.pool = run->pool;
	dc.socket_id = (int)rte_lcore_to_socket_id(c->lcore[e->side]);
	dc.limits.max_qp = c->qps + 16;
	dc.limits.max_cqe = 1u << 20;
	e->dev = roce_dev_create(&dc, err, sizeof(err));
	if (e->dev == NULL) {
		rp_fail(run, "%s: roce_dev_create: %s", e->name, err);
		return -1;
	}
	/* ::ffff:10.0.<run>.<side + 1> */
	memset(gid, 0, sizeof(gid));
	gid[10] = gid[11] = 0xff;
	gid[12] = 10;
	gid[14] = (uint8_t)id;
	gid[15] = (uint8_t)(e->side + 1);
	if (roce_gid_set(e->dev, 0, gid) < 0)
		goto err;
	e->pd = roce_pd_alloc(e->dev);
	if (e->pd == NULL)
		goto err;
	memset(&cqc, 0, sizeof(cqc));
	cqc.cqe = c->qps * run->depth + 64;
	e->scq = roce_cq_create(e->dev, &cqc);
	cqc.cqe = c->qps * run->rx_depth + 64;
	e->rcq = roce_cq_create(e->dev, &cqc);
	if (e->scq == NULL || e->rcq == NULL)
		goto err;
	e->mem_len = (uint64_t)c->qps * 2 * run->nslots * run->stride;
	e->mem = rte_zmalloc_socket("rperf_mem", e->mem_len, 4096, dc.socket_id);
	if (e->mem == NULL) {
		rp_fail(run, "%s: no memory for %" PRIu64 " bytes of buffers (EAL -m)", e->name,
		     e->mem_len);
		return -1;
	}
	memset(&mrc, 0, sizeof(mrc));
	mrc.iova = (uint64_t)(uintptr_t)e->mem;
	mrc.length = e->mem_len;
	mrc.access = ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ;
	mrc.host = e->mem;
	e->mr = roce_mr_reg(e->pd, &mrc);
	if (e->mr == NULL)
		goto err;
	e->lkey = roce_mr_lkey(e->mr);
	e->rkey = roce_mr_rkey(e->mr);
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = ROCE_QPT_RC;
	ia.send_cq = e->scq;
	ia.recv_cq = e->rcq;
	ia.cap.max_send_wr = run->depth;
	ia.cap.max_recv_wr = run->rx_depth;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	for (qi = 0; qi < c->qps; qi++) {
		e->q[qi].qp = roce_qp_create(e->pd, &ia);
		if (e->q[qi].qp == NULL)
			goto err;
		/* the sources: pattern(side, qp, slot) */
		for (j = 0; j < run->nslots; j++)
			rp_pat_fill(rp_slot(e, qi, true, j), c->size, rp_pat_base(e->side, qi, j));
	}
	return 0;
err:
	rp_fail(run, "%s: set-up: %s", e->name, roce_dev_last_error(e->dev));
	return -1;
}

/* Slots, depths and the pool for the configuration. */
static void
sizes(struct run *run)
{
	const struct rperf_conf *c = run->c;
	uint32_t want, budget;

	run->stride = RTE_ALIGN_CEIL(RTE_MAX(c->size, 64u), 64u);
	want = RTE_MAX(c->tx_depth, c->rx_depth) + 1;
	budget = RTE_MAX(AREA_BUDGET / run->stride, 2u);
	run->nslots = c->buffers != 0 ? c->buffers : RTE_MAX(RTE_MIN(want, budget), 2u);
	run->depth = c->tx_depth;
	/* --verify: a slot is not reused while a message in flight names it */
	if (c->verify && run->depth > run->nslots - 1)
		run->depth = run->nslots - 1;
	/* without --verify receives may share buffers, as in perftest */
	run->rx_depth = c->buffers != 0 && !c->verify ? c->rx_depth :
			RTE_MIN(c->rx_depth, run->nslots);
	run->sig = c->verify || rperf_mode_is_lat(c->mode) ? 1 :
		   RTE_MAX(1u, RTE_MIN(run->depth / 4, 32u));
}

static int
setup(struct run *run, unsigned int id)
{
	const struct rperf_conf *c = run->c;
	char name[RTE_MEMPOOL_NAMESIZE];
	unsigned int nb_mbufs, room, i;
	struct ep *a = &run->ep[A], *b = &run->ep[B];

	/* what the rings, the devices' tx staging and the lcore caches can hold */
	nb_mbufs = (run->inject ? 4 : 2) * RING_SIZE + 2 * 64 +
		   rte_lcore_count() * POOL_CACHE * 3 / 2 + 512;
	if (c->wire == RPERF_WIRE_PORTS)
		nb_mbufs = 2 * RING_SIZE + 4 * PORT_DESC + 2 * PORT_PEND + 2 * DEV_RING_PORTS +
			   2 * 64 + rte_lcore_count() * POOL_CACHE * 3 / 2 + 512;
	room = RTE_PKTMBUF_HEADROOM + RTE_ALIGN_CEIL(c->mtu + RPERF_MTU_OVERHEAD +
						     RTE_ETHER_HDR_LEN + 8, 64u);
	snprintf(name, sizeof(name), "rperf_pool_%u", id);
	/*
	 * LIFO: a freed mbuf is the next one taken, still in cache. A FIFO pool
	 * hands out the coldest one, and at 4 KiB frames that halved the
	 * bandwidth (the first stores to each mbuf missed the cache).
	 */
	run->pool = rte_pktmbuf_pool_create_by_ops(name, nb_mbufs, POOL_CACHE, 0,
						   (uint16_t)room,
						   (int)rte_lcore_to_socket_id(c->lcore[A]),
						   "stack");
	if (run->pool == NULL) {
		RPERF_LOG(NOTICE, "no stack mempool (%s): the default one instead",
			  rte_strerror(rte_errno));
		run->pool = rte_pktmbuf_pool_create(name, nb_mbufs, POOL_CACHE, 0,
						    (uint16_t)room,
						    (int)rte_lcore_to_socket_id(c->lcore[A]));
	}
	if (run->pool == NULL) {
		rp_fail(run, "no pool of %u mbufs of %u bytes: %s (EAL -m)", nb_mbufs, room,
		     rte_strerror(rte_errno));
		return -1;
	}
	if (c->wire == RPERF_WIRE_PORTS) {
		for (i = 0; i < 2; i++) {
			run->ep[i].rx = ring_make(i ? "rxb" : "rxa", id, DEV_RING_PORTS);
			run->ep[i].tx = ring_make(i ? "txb" : "txa", id, RING_SIZE);
		}
	} else if (run->inject) {
		for (i = 0; i < 2; i++) {
			run->ep[i].rx = ring_make(i ? "rxb" : "rxa", id, RING_SIZE);
			run->ep[i].tx = ring_make(i ? "txb" : "txa", id, RING_SIZE);
		}
		a->out = b->rx;
		b->out = a->rx;
		a->carry = b->carry = true;
	} else {
		/* A's tx ring is B's rx ring and the other way round */
		a->tx = b->rx = ring_make("ab", id, RING_SIZE);
		b->tx = a->rx = ring_make("ba", id, RING_SIZE);
	}
	if (a->rx == NULL || a->tx == NULL || b->rx == NULL || b->tx == NULL) {
		rp_fail(run, "no rings: %s", rte_strerror(rte_errno));
		return -1;
	}
	a->w.seed = c->seed * 2 + 0x1234567;
	b->w.seed = c->seed * 2 + 0x7654321;
	if (ep_setup(run, a, id) != 0 || ep_setup(run, b, id) != 0)
		return -1;
	for (i = 0; i < c->qps; i++)
		if (qp_connect(run, i) != 0)
			return -1;
	if (c->wire == RPERF_WIRE_PORTS &&
	    (port_start(run, a, c->ports[A]) != 0 || port_start(run, b, c->ports[B]) != 0 ||
	     links_wait(run) != 0))
		return -1;
	/* receives before the first message */
	for (i = 0; i < c->qps; i++) {
		if (c->mode == RPERF_SEND_BW || c->mode == RPERF_SEND_LAT ||
		    (c->mode == RPERF_WRITE_BW && c->verify))
			if (!rp_post_recvs(b, i, run->rx_depth, c->mode != RPERF_WRITE_BW))
				return -1;
		if (c->mode == RPERF_SEND_LAT && !rp_post_recvs(a, i, run->rx_depth, true))
			return -1;
	}
	a->step = rperf_mode_is_lat(c->mode) ? rp_lat_client_step : rp_bw_client_step;
	b->step = rperf_mode_is_lat(c->mode) ? rp_lat_server_step : rp_bw_server_step;
	return 0;
}

static void
teardown(struct run *run, struct rperf_result *r)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct ep *e = &run->ep[i];

		if (e->port) {
			(void)rte_eth_dev_stop(e->port_id);
			(void)rte_eth_dev_close(e->port_id);
		}
		rte_pktmbuf_free_bulk(e->pend, e->npend);
		e->npend = 0;
		rte_pktmbuf_free(e->w.held);
		e->w.held = NULL;
		roce_dev_destroy(e->dev);
		e->dev = NULL;
	}
	/* four rings, or two when each tx ring is the other side's rx ring */
	ring_drain_free(run->ep[A].rx);
	ring_drain_free(run->ep[B].rx);
	if (run->ep[A].tx != run->ep[B].rx)
		ring_drain_free(run->ep[A].tx);
	if (run->ep[B].tx != run->ep[A].rx)
		ring_drain_free(run->ep[B].tx);
	for (i = 0; i < 2; i++) {
		rte_free(run->ep[i].mem);
		run->ep[i].rx = run->ep[i].tx = NULL;
	}
	if (run->pool != NULL) {
		r->mbufs = run->pool->size;
		r->mbufs_free = rte_mempool_avail_count(run->pool);
		rte_mempool_free(run->pool);
	}
	free(run->lat);
}

/* ---------------- results ---------------- */

static int
cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* Index of the per-mille @p pm percentile of @p n sorted samples (nearest rank). */
static inline uint64_t
rank(uint64_t n, uint64_t pm)
{
	return (n * pm + 999) / 1000 - 1;
}

static void
lat_results(struct run *run, struct rperf_result *r)
{
	/* send and write: one way is half the round trip, as perftest */
	const double f = (run->c->mode == RPERF_READ_LAT ? 1.0 : 0.5) * 1e6 / (double)run->hz;
	uint64_t n = run->lat_n;

	r->lat_samples = run->lat_seen;
	if (n == 0)
		return;
	qsort(run->lat, n, sizeof(run->lat[0]), cmp_u64);
	r->lat_min = (double)run->lat_min * f;
	r->lat_max = (double)run->lat_max * f;
	r->lat_avg = (double)run->lat_sum / (double)run->lat_seen * f;
	r->lat_p50 = (double)run->lat[rank(n, 500)] * f;
	r->lat_p99 = (double)run->lat[rank(n, 990)] * f;
	r->lat_p999 = (double)run->lat[rank(n, 999)] * f;
}

/* Last message number below @p total that used slot @p j. */
static inline uint64_t
last_in_slot(const struct run *run, uint64_t total, uint32_t j)
{
	return (total - 1 - j) / run->nslots * run->nslots + j;
}

/*
 * After the run: every slot that received data holds what its last message
 * carried, and B saw each message exactly once.
 */
static void
final_checks(struct run *run, struct rperf_result *r)
{
	const struct rperf_conf *c = run->c;
	struct ep *a = &run->ep[A], *b = &run->ep[B];
	uint32_t qi, j;

	for (qi = 0; qi < c->qps && !rp_aborted(run); qi++) {
		struct qpx *qa = &a->q[qi], *qb = &b->q[qi];
		uint64_t total = qa->completed;
		uint64_t lim = RTE_MIN(total, (uint64_t)run->nslots);

		switch (c->mode) {
		case RPERF_SEND_BW:
		case RPERF_WRITE_BW:
			for (j = 0; j < lim; j++) {
				uint64_t s = last_in_slot(run, total, j);

				if (!rp_check_data(run, "B (at the end)", rp_slot(b, qi, false, j),
						c->size, A, qi, tag_of(run, s), s))
					return;
				r->checked_slots++;
			}
			break;
		case RPERF_READ_BW:
			for (j = 0; j < lim; j++) {
				uint64_t s = last_in_slot(run, total, j);

				if (!rp_check_data(run, "A (at the end)", rp_slot(a, qi, false, j),
						c->size, B, qi, j, s))
					return;
				r->checked_slots++;
			}
			break;
		case RPERF_SEND_LAT:
			if (total == 0)
				break;
			if (!rp_check_data(run, "B (at the end)", rp_slot(b, 0, false, total - 1),
					c->size, A, 0, tag_of(run, total - 1), total - 1) ||
			    !rp_check_data(run, "A (at the end)", rp_slot(a, 0, false, total - 1),
					c->size, B, 0, tag_of(run, total - 1), total - 1))
				return;
			r->checked_slots += 2;
			break;
		case RPERF_WRITE_LAT:
			if (total == 0)
				break;
			if (!rp_check_data(run, "B (at the end)", rp_slot(b, 0, false, 0), c->size - 8,
					A, 0, c->verify ? total - 1 : 0, total - 1) ||
			    !rp_check_data(run, "A (at the end)", rp_slot(a, 0, false, 0), c->size - 8,
					B, 0, c->verify ? total - 1 : 0, total - 1))
				return;
			r->checked_slots += 2;
			break;
		default: /* READ_LAT */
			if (total == 0)
				break;
			if (!rp_check_data(run, "A (at the end)", rp_slot(a, 0, false, 0), c->size, B, 0,
					(total - 1) % run->nslots, total - 1))
				return;
			r->checked_slots++;
			break;
		}
		/* exactly once: B delivered as many messages as A completed */
		if ((c->mode == RPERF_SEND_BW || c->mode == RPERF_SEND_LAT ||
		     c->mode == RPERF_WRITE_LAT || (c->mode == RPERF_WRITE_BW && c->verify))) {
			if (qb->received != total) {
				rp_fail(run, "QP %u: A completed %" PRIu64 " messages, B received %"
				     PRIu64, qi, total, qb->received);
				return;
			}
			r->delivered += qb->received;
		}
	}
}

/* ---------------- the run ---------------- */

int
rperf_conf_check(const struct rperf_conf *c, char *err, size_t errlen)
{
	unsigned int i;

#define BAD(...) do { snprintf(err, errlen, __VA_ARGS__); return -EINVAL; } while (0)
	if ((unsigned int)c->mode >= RPERF_MODE_MAX)
		BAD("no such mode");
	if (c->size == 0 || c->size > ROCE_MAX_MSG_SIZE)
		BAD("--size %u is not 1..%u", c->size, ROCE_MAX_MSG_SIZE);
	if (c->mode == RPERF_WRITE_LAT && c->size < 8)
		BAD("write_lat needs --size 8 or more (the last 8 bytes carry the stamp)");
	if (c->mtu != 256 && c->mtu != 512 && c->mtu != 1024 && c->mtu != 2048 && c->mtu != 4096)
		BAD("--mtu %u is not 256, 512, 1024, 2048 or 4096", c->mtu);
	if (c->qps == 0 || c->qps > RPERF_QPS_MAX)
		BAD("--qps %u is not 1..%u", c->qps, RPERF_QPS_MAX);
	if (rperf_mode_is_lat(c->mode) && c->qps != 1)
		BAD("latency modes use one QP");
	if (c->tx_depth == 0 || c->tx_depth > 4096)
		BAD("--tx-depth %u is not 1..4096", c->tx_depth);
	if (c->rx_depth == 0 || c->rx_depth > 4096)
		BAD("--rx-depth %u is not 1..4096", c->rx_depth);
	if (c->buffers > 4096)
		BAD("--buffers %u is not 1..4096", c->buffers);
	if (c->buffers != 0 &&
	    (uint64_t)c->buffers * RTE_ALIGN_CEIL(RTE_MAX(c->size, 64u), 64u) > AREA_BUDGET)
		BAD("--buffers %u of %u bytes exceed %u MiB per QP and direction", c->buffers,
		    c->size, AREA_BUDGET >> 20);
	if (c->verify && c->buffers == 1)
		BAD("--verify needs --buffers 2 or more (a buffer is not reused while in flight)");
	if (c->loss_pm > 500 || c->reorder_pm > 1000 || c->dup_pm > 1000)
		BAD("--loss is 0..500, --reorder and --dup 0..1000 (per mille)");
	if (c->timeout > 31 || c->retry_cnt > 7)
		BAD("--timeout is 1..31, the retry count 0..7");
	if (c->iters == 0 && !(c->duration > 0))
		BAD("give --iters N or --duration S");
	if (c->iters > SEQ_MASK / 2)
		BAD("--iters is at most %" PRIu64, SEQ_MASK / 2);
	for (i = 0; i < 2; i++)
		if (c->lcore[i] >= RTE_MAX_LCORE || !rte_lcore_is_enabled(c->lcore[i]))
			BAD("lcore %u is not an EAL lcore", c->lcore[i]);
	if (c->wire == RPERF_WIRE_PORTS) {
		for (i = 0; i < 2; i++)
			if (!rte_eth_dev_is_valid_port(c->ports[i]))
				BAD("port %u does not exist (give two ports in the EAL arguments, "
				    "e.g. a net_memif pair)", c->ports[i]);
		if (c->ports[0] == c->ports[1])
			BAD("the two endpoints need two ports");
	}
#undef BAD
	return 0;
}

static void
print_counters(struct run *run, struct rperf_result *r)
{
	FILE *f = run->c->log;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct ep *e = &run->ep[i];

		if (e->dev == NULL)
			continue;
		roce_dev_stats_get(e->dev, &r->dev[i]);
		if (f != NULL) {
			fprintf(f, "counters ");
			roce_dev_stats_dump(e->dev, f);
		}
	}
	for (i = 0; i < 2; i++) {
		struct ep *e = &run->ep[i];

		r->wire[i] = e->w.st;
		if (f != NULL && e->carry)
			fprintf(f, "wire %s: carried=%" PRIu64 " lost=%" PRIu64 " reordered=%"
				PRIu64 " duplicated=%" PRIu64 " full=%" PRIu64 "\n",
				i == A ? "A->B" : "B->A", e->w.st.carried, e->w.st.lost,
				e->w.st.reordered, e->w.st.duplicated, e->w.st.full);
	}
}

int
rperf_run(const struct rperf_conf *c, struct rperf_result *r)
{
	struct run *run;
	struct lc lcs[2];
	unsigned int nlc = 0, i, id, main_lcore = rte_lcore_id();
	uint32_t qi;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = rperf_conf_check(c, r->err, sizeof(r->err));
	if (ret != 0)
		return -1;
	run = rte_zmalloc("rperf_run", sizeof(*run), RTE_CACHE_LINE_SIZE);
	if (run == NULL) {
		snprintf(r->err, sizeof(r->err), "no memory");
		return -1;
	}
	id = __atomic_fetch_add(&run_count, 1, __ATOMIC_RELAXED) & 0xff;
	run->c = c;
	run->hz = rte_get_tsc_hz();
	run->stall = (uint64_t)(c->stall_secs * (double)run->hz);
	run->inject = c->loss_pm || c->reorder_pm || c->dup_pm;
	run->timeout = c->timeout ? c->timeout : run->inject ? 10 : 14;
	run->target = c->iters ? c->iters : UINT64_MAX;
	run->lat_min = UINT64_MAX;
	run->lat_rng = c->seed | 1;
	for (i = 0; i < 2; i++) {
		run->ep[i].run = run;
		run->ep[i].side = (int)i;
		run->ep[i].name = i == A ? "A" : "B";
	}
	sizes(run);
	r->buffers = run->nslots;
	r->buffer_bytes = (uint64_t)run->nslots * run->stride;
	if (rperf_mode_is_lat(c->mode)) {
		run->lat = malloc(sizeof(run->lat[0]) *
				  (size_t)RTE_MIN(run->target, (uint64_t)LAT_CAP));
		if (run->lat == NULL) {
			rp_fail(run, "no memory for the latency samples");
			goto out;
		}
	}
	if (setup(run, id) != 0)
		goto out;

	/* one lcore per endpoint, or one for both */
	for (i = 0; i < 2; i++) {
		unsigned int k;

		for (k = 0; k < nlc && lcs[k].lcore != c->lcore[i]; k++)
			;
		if (k == nlc) {
			memset(&lcs[k], 0, sizeof(lcs[k]));
			lcs[k].run = run;
			lcs[k].lcore = c->lcore[i];
			nlc++;
		}
		lcs[k].ep[lcs[k].nb++] = &run->ep[i];
	}
	for (i = 0; i < nlc; i++) {
		if (lcs[i].lcore == main_lcore)
			continue;
		ret = rte_eal_remote_launch(rp_lcore_main, &lcs[i], lcs[i].lcore);
		if (ret != 0) {
			rp_fail(run, "lcore %u cannot be launched: %s", lcs[i].lcore, strerror(-ret));
			lcs[i].nb = 0;
		}
	}
	for (i = 0; i < nlc; i++)
		if (lcs[i].lcore == main_lcore)
			rp_lcore_main(&lcs[i]);
	for (i = 0; i < nlc; i++)
		if (lcs[i].lcore != main_lcore && lcs[i].nb > 0)
			rte_eal_wait_lcore(lcs[i].lcore);

	/* results */
	for (qi = 0; qi < c->qps; qi++)
		r->msgs += rperf_mode_is_lat(c->mode) ? run->ep[A].q[qi].received :
			   run->ep[A].q[qi].completed;
	r->bytes = r->msgs * c->size;
	if (run->t_last > run->t_first && run->t_first != 0) {
		r->secs = (double)(run->t_last - run->t_first) / (double)run->hz;
		r->gbps = (double)r->bytes * 8 / r->secs / 1e9;
		r->mbps = (double)r->bytes / r->secs / 1e6;
		r->mmsgs = (double)r->msgs / r->secs / 1e6;
	}
	if (!rp_aborted(run))
		final_checks(run, r);
	r->verified = run->verified + run->verified_b;
	if (run->lat != NULL)
		lat_results(run, r);
out:
	print_counters(run, r);
	r->interrupted = run->interrupted;
	teardown(run, r);
	r->ok = run->err_taken == 0;
	if (!r->ok)
		snprintf(r->err, sizeof(r->err), "%s", run->err);
	rte_free(run);
	return r->ok ? 0 : -1;
}
