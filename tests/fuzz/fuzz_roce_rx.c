/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * lib/roce's receive path against any frame, on live QPs. One device (IPv4
 * GID 10.0.0.2 at index 1, IPv6 fd00::2 at index 2) has an RC QP on each IP
 * version, a UC, a UD (Q_Key 0x11111111, as ibv_ud_pingpong) and the GSI QP,
 * all in RTS, with receives posted (into a malloc'ed MR, so that ASan sees
 * placement past its end) and RC requests in flight to a peer that never
 * answers (10.0.0.1, fd00::1; only the fuzzer speaks for it). QPNs are
 * 0x11 (RC), 0x12 (UD), 0x13 (RC over IPv6), 0x14 (UC): the rxe capture's
 * frames (the seeds) reach the first two.
 *
 * An input is a frame, as is, or, when its first byte is 0xf0 or more, a
 * template: a valid frame from the peer to one of the QPs whose fields come
 * from the input and whose bytes after the BTH are the rest of the input,
 * with lengths, pad and ICRC (roce_icrc()) made right, so that the fuzzer
 * gets past the ICRC:
 *   [0] 0xf0 | fix << 3 | qp (0 RC, 1 RC IPv6, 2 UC, 3 UD, 4 GSI, 5 no QP,
 *       6-7 RC); fix: R_Key/VA of RETH and AtomicETH into the MR, Q_Key right
 *   [1] opcode: low 5 bits on the QP's transport, or all 8 with [2] bit 5
 *   [2] SE (bit 7), AckReq (bit 6), raw opcode (bit 5), PSN - expected (bits
 *       4:0, signed; from the last PSN sent for responses)
 *   [3] VLAN 5 (bit 7), segments (bits 1:0, 1-3), [4], [5] where to cut
 *   [6..] extension headers and payload
 * A raw frame is cut by its bytes 1-3 (the destination MAC, never read).
 * Each frame goes through roce_dev_rx_burst() in exactly-sized malloc'ed
 * segments; then the device polls twice and what it sends is dropped; QPs
 * in ERR are brought back, receives and RC requests topped up.
 *
 * Oracle beyond the sanitizers: each frame is counted (check_counted()),
 * handed back exactly when it is counted as not RoCE for us; a template
 * never fails its ICRC; no mbuf is kept (pool full after each input;
 * LeakSanitizer sees any segment never freed). EAL (--no-huge) is
 * started once; everything is freed at exit.
 */

#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "roce.h"
#include "roce_wire.h"
#include "roce_wire_util.h"

#define POOL_SIZE 4095
#define MR_IOVA 0x20000000ull
#define MR_LEN (256u << 10)
#define NB_QP 5
#define RQ_DEPTH 8
#define SQ_DEPTH 4
#define RQ_PSN 0x100
#define SQ_PSN 0xfffff0 /* wraps while in flight */
#define UD_QKEY 0x11111111u

enum { Q_RC, Q_UD, Q_RC6, Q_UC, Q_GSI };
static const enum roce_qp_type qp_type[NB_QP] = {
	ROCE_QPT_RC, ROCE_QPT_UD, ROCE_QPT_RC, ROCE_QPT_UC, ROCE_QPT_GSI,
};

static struct rte_mempool *pool;
static struct rte_ring *rx, *tx;
static struct roce_dev *dev;
static struct roce_pd *pd;
static struct roce_cq *cq;
static struct roce_mr *mr;
static struct roce_qp *qp[NB_QP];
static uint32_t rq_out[NB_QP], sq_out, sq_next;
static uint8_t *mem;
static char runtime_dir[PATH_MAX];

static const uint8_t my_mac[6] = { 0x02, 0, 0, 0, 0, 0x02 };
static const uint8_t peer_mac[6] = { 0x02, 0, 0, 0, 0, 0x01 };
static const uint8_t my_gid4[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 2 };
static const uint8_t peer_gid4[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 1 };
static const uint8_t my_gid6[16] = { 0xfd, [15] = 2 };
static const uint8_t peer_gid6[16] = { 0xfd, [15] = 1 };

static void
must(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_roce_rx: %s: %s\n", what,
			dev != NULL ? roce_dev_last_error(dev) : "");
		abort();
	}
}

/* RESET -> RTS, as the peer's QP 0x21 + i would be connected to. */
static void
qp_up(unsigned int i)
{
	const bool conn = qp_type[i] == ROCE_QPT_RC || qp_type[i] == ROCE_QPT_UC;
	const bool rc = qp_type[i] == ROCE_QPT_RC;
	struct roce_qp_attr at;
	uint32_t mask;

	memset(&at, 0, sizeof(at));
	at.qp_state = ROCE_QPS_INIT;
	at.qp_access_flags = ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ |
			     ROCE_ACCESS_REMOTE_ATOMIC;
	at.qkey = i == Q_GSI ? ROCE_GSI_QKEY : UD_QKEY;
	must(roce_qp_modify(qp[i], &at, ROCE_QP_STATE |
			    (conn ? ROCE_QP_ACCESS_FLAGS : ROCE_QP_QKEY)) == 0, "to INIT");
	at.qp_state = ROCE_QPS_RTR;
	mask = ROCE_QP_STATE;
	if (conn) {
		at.path_mtu = roce_dev_active_mtu(dev);
		at.dest_qp_num = 0x21 + i;
		at.rq_psn = RQ_PSN;
		at.max_dest_rd_atomic = 4;
		at.min_rnr_timer = 1;
		memcpy(at.ah_attr.dgid, i == Q_RC6 ? peer_gid6 : peer_gid4, ROCE_GID_LEN);
		memcpy(at.ah_attr.dmac, peer_mac, 6);
		at.ah_attr.sgid_index = i == Q_RC6 ? 2 : 1;
		at.ah_attr.vlan_id = ROCE_VLAN_NONE;
		mask |= ROCE_QP_AV | ROCE_QP_PATH_MTU | ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN |
			(rc ? ROCE_QP_MAX_DEST_RD_ATOMIC | ROCE_QP_MIN_RNR_TIMER : 0);
	}
	must(roce_qp_modify(qp[i], &at, mask) == 0, "to RTR");
	at.qp_state = ROCE_QPS_RTS;
	at.sq_psn = SQ_PSN;
	at.timeout = 12;
	at.retry_cnt = 7;
	at.rnr_retry = 7;
	at.max_rd_atomic = 4;
	must(roce_qp_modify(qp[i], &at, ROCE_QP_STATE | ROCE_QP_SQ_PSN |
			    (rc ? ROCE_QP_TIMEOUT | ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY |
			     ROCE_QP_MAX_QP_RD_ATOMIC : 0)) == 0, "to RTS");
}

static struct roce_sge
sge(uint32_t off, uint32_t len)
{
	struct roce_sge s = { .addr = MR_IOVA + off, .length = len, .lkey = roce_mr_lkey(mr) };

	return s;
}

/* Count completions off their queues (wr_id: RECV_ID + QP index, or a send opcode). */
#define RECV_ID 0x100
static void
reap(void)
{
	struct roce_wc wc[32];
	int n, k;

	while ((n = roce_cq_poll(cq, wc, RTE_DIM(wc))) > 0)
		for (k = 0; k < n; k++) {
			if (wc[k].wr_id >= RECV_ID) {
				must(wc[k].wr_id < RECV_ID + NB_QP &&
				     wc[k].qp_num == roce_qp_num(qp[wc[k].wr_id - RECV_ID]),
				     "receive completion of another QP");
				rq_out[wc[k].wr_id - RECV_ID]--;
			} else {
				must(wc[k].qp_num == roce_qp_num(qp[Q_RC]), "send completion");
				sq_out--;
			}
		}
	must(n == 0, "CQ overflow");
}

/* Bring QPs that left RTS back (through RESET), then top queues up. */
static void
maintain(void)
{
	unsigned int i;

	reap();
	for (i = 0; i < NB_QP; i++) {
		struct roce_qp_attr at;

		roce_qp_query(qp[i], &at, NULL);
		if (at.qp_state == ROCE_QPS_RTS)
			continue;
		at.qp_state = ROCE_QPS_RESET;
		must(roce_qp_modify(qp[i], &at, ROCE_QP_STATE) == 0, "to RESET");
		reap();
		/* a QP in RESET has empty queues and completes nothing more */
		rq_out[i] = 0;
		if (i == Q_RC)
			sq_out = 0;
		qp_up(i);
	}
	for (i = 0; i < NB_QP; i++)
		while (rq_out[i] < RQ_DEPTH) {
			struct roce_sge s = sge((i * RQ_DEPTH + rq_out[i]) * 4096, 4096);
			struct roce_recv_wr wr = { .wr_id = RECV_ID + i, .num_sge = 1,
						   .sg_list = &s };

			must(roce_post_recv(qp[i], &wr, 1, NULL) == 0, "post_recv");
			rq_out[i]++;
		}
	while (sq_out < SQ_DEPTH) {
		static const uint8_t ops[] = {
			ROCE_WR_SEND, ROCE_WR_RDMA_READ, ROCE_WR_ATOMIC_FETCH_AND_ADD,
			ROCE_WR_RDMA_WRITE_WITH_IMM, ROCE_WR_RDMA_READ, ROCE_WR_ATOMIC_CMP_AND_SWP,
		};
		uint8_t op = ops[sq_next++ % RTE_DIM(ops)];
		bool atomic = op == ROCE_WR_ATOMIC_FETCH_AND_ADD || op == ROCE_WR_ATOMIC_CMP_AND_SWP;
		struct roce_sge s = sge(MR_LEN - 8192, atomic ? 8 : 2500);
		struct roce_send_wr wr = {
			.wr_id = op, .opcode = op, .send_flags = ROCE_SEND_SIGNALED,
			.num_sge = 1, .sg_list = &s,
		};

		if (atomic) {
			wr.atomic.remote_addr = 0x1000;
			wr.atomic.rkey = 0x77;
		} else {
			wr.rdma.remote_addr = 0x1000;
			wr.rdma.rkey = 0x77;
		}
		must(roce_post_send(qp[Q_RC], &wr, 1, NULL) == 0, "post_send");
		sq_out++;
	}
}

static void
drain_tx(void)
{
	struct rte_mbuf *m[64];
	unsigned int n;

	while ((n = rte_ring_dequeue_burst(tx, (void **)m, RTE_DIM(m), NULL)) > 0)
		rte_pktmbuf_free_bulk(m, n);
}

static void
cleanup(void)
{
	struct rte_mbuf *m;

	roce_dev_destroy(dev);
	while (rte_ring_dequeue(rx, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	drain_tx();
	rte_ring_free(rx);
	rte_ring_free(tx);
	rte_mempool_free(pool);
	free(mem);
	rte_eal_cleanup();
	rmdir(runtime_dir);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char prefix[64];
	char *eal[] = { "fuzz_roce_rx", "--no-huge", "-m", "256", "--no-pci", "--no-shconf",
			"--no-telemetry", "-l", "0", "--log-level=lib.eal:error",
			"--log-level=lib.roce:emerg", prefix, NULL };
	struct roce_dev_conf conf;
	struct roce_cq_conf cqc = { .cqe = 4096 };
	struct roce_mr_conf mrc;
	char err[ROCE_ERR_LEN];
	unsigned int i;

	(void)argc;
	(void)argv;
	snprintf(prefix, sizeof(prefix), "--file-prefix=fuzz_roce_rx_%d", (int)getpid());
	must(rte_eal_init(RTE_DIM(eal) - 1, eal) >= 0, "rte_eal_init");
	snprintf(runtime_dir, sizeof(runtime_dir), "%s", rte_eal_get_runtime_dir());
	pool = rte_pktmbuf_pool_create("fuzz_pool", POOL_SIZE, 0, 0,
				       RTE_PKTMBUF_HEADROOM + 2048, SOCKET_ID_ANY);
	rx = rte_ring_create("fz_rx", 1024, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	tx = rte_ring_create("fz_tx", 4096, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	must(pool != NULL && rx != NULL && tx != NULL, "pool and rings");
	memset(&conf, 0, sizeof(conf));
	conf.name = "fz";
	memcpy(conf.mac, my_mac, 6);
	conf.mtu = 1500;
	conf.rx_ring = rx;
	conf.tx_ring = tx;
	conf.pool = pool;
	conf.socket_id = SOCKET_ID_ANY;
	dev = roce_dev_create(&conf, err, sizeof(err));
	must(dev != NULL, err);
	atexit(cleanup);
	must(roce_gid_set(dev, 1, my_gid4) == 0 && roce_gid_set(dev, 2, my_gid6) == 0, "GIDs");
	pd = roce_pd_alloc(dev);
	cq = roce_cq_create(dev, &cqc);
	mem = calloc(1, MR_LEN);
	must(pd != NULL && cq != NULL && mem != NULL, "PD, CQ");
	memset(&mrc, 0, sizeof(mrc));
	mrc.iova = MR_IOVA;
	mrc.length = MR_LEN;
	mrc.access = ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
		     ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC;
	mrc.host = mem;
	mr = roce_mr_reg(pd, &mrc);
	must(mr != NULL, "MR");
	for (i = 0; i < NB_QP; i++) {
		struct roce_qp_init_attr ia = {
			.qp_type = qp_type[i], .send_cq = cq, .recv_cq = cq,
			.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1,
				 .max_recv_sge = 1 },
		};

		qp[i] = roce_qp_create(pd, &ia);
		must(qp[i] != NULL, "QP");
		qp_up(i);
	}
	must(roce_qp_num(qp[Q_RC]) == 0x11 && roce_qp_num(qp[Q_UD]) == 0x12, "QPNs");
	maintain();
	return 0;
}

/* The frame of a template input (see the top), and where to cut it. */
static uint32_t
template(const uint8_t *d, size_t size, uint8_t *f, uint32_t *l3, bool *v6)
{
	static const uint8_t tr[8] = { ROCE_TR_RC, ROCE_TR_RC, ROCE_TR_UC, ROCE_TR_UD,
				       ROCE_TR_UD, ROCE_TR_RC, ROCE_TR_RC, ROCE_TR_RC };
	static const int8_t q[8] = { Q_RC, Q_RC6, Q_UC, Q_UD, Q_GSI, -1, Q_RC, Q_RC };
	const unsigned int sel = d[0] & 7;
	const uint8_t *rest = d + 6;
	const uint32_t rest_len = (uint32_t)size - 6;
	uint8_t op = d[2] & 0x20 ? d[1] : (uint8_t)(tr[sel] | (d[1] & 0x1f));
	const struct roce_opcode_info *info = &roce_opcode_table[op];
	struct roce_hdr_desc h;
	struct roce_qp_attr at;
	uint32_t ext, psn, len;
	uint8_t *bth;

	memset(&h, 0, sizeof(h));
	*v6 = sel == 1;
	h.smac = peer_mac;
	h.dmac = my_mac;
	h.vlan_id = d[3] & 0x80 ? 5 : ROCE_VLAN_NONE;
	h.sgid = *v6 ? peer_gid6 : peer_gid4;
	h.dgid = *v6 ? my_gid6 : my_gid4;
	h.udp_sport = 0xc000 | d[1];
	/* built as a SEND_ONLY of the right length, then given the opcode */
	ext = info->hdr_len > ROCE_BTH_LEN ? info->hdr_len - ROCE_BTH_LEN : 0;
	h.opcode = ROCE_OP_SEND_ONLY;
	h.paylen = RTE_MAX(rest_len, ext);
	h.pkey = ROCE_DEFAULT_PKEY;
	h.dest_qpn = q[sel] >= 0 ? roce_qp_num(qp[q[sel]]) : 0x30 + d[1];
	psn = 0;
	if (q[sel] >= 0) {
		roce_qp_query(qp[q[sel]], &at, NULL);
		psn = info->flags & ROCE_OPF_RESP ? at.sq_psn - 1 : at.rq_psn;
	}
	h.psn = (psn + (uint32_t)((int)(d[2] & 0x1f) - 16)) & ROCE_PSN_MASK;
	*l3 = roce_pkt_build_headers(f, &h);
	bth = f + roce_hdr_len(&h) - ROCE_BTH_LEN;
	bth[0] = op;
	bth[1] |= d[2] & 0x80;
	bth[8] |= d[2] & 0x40;
	memset(bth + ROCE_BTH_LEN, 0, h.paylen);
	memcpy(bth + ROCE_BTH_LEN, rest, rest_len);
	if (d[0] & 0x08) {
		uint8_t *e;
		uint64_t va;

		if (info->flags & (ROCE_OPF_RETH | ROCE_OPF_ATMETH)) {
			e = bth + (info->flags & ROCE_OPF_RETH ? info->reth_off : info->atm_off);
			memcpy(&va, e, 8);
			va = MR_IOVA + (va % (MR_LEN / 8)) * 8;
			wu_put16(e, 0);
			wu_put16(e + 2, (uint32_t)(va >> 32));
			wu_put16(e + 4, (uint32_t)(va >> 16));
			wu_put16(e + 6, (uint32_t)va);
			wu_put16(e + 8, roce_mr_rkey(mr) >> 16);
			wu_put16(e + 10, roce_mr_rkey(mr));
			if (info->flags & ROCE_OPF_RETH)
				wu_put16(e + 12, 0); /* DMA length below 64 KiB */
		}
		if (info->flags & ROCE_OPF_DETH) {
			e = bth + info->deth_off;
			wu_put16(e, (sel == 4 ? ROCE_GSI_QKEY : UD_QKEY) >> 16);
			wu_put16(e + 2, (sel == 4 ? ROCE_GSI_QKEY : UD_QKEY) & 0xffff);
		}
	}
	len = roce_hdr_len(&h) + h.paylen + ((-h.paylen) & 3) + ROCE_ICRC_LEN;
	memset(f + roce_hdr_len(&h) + h.paylen, 0, ((-h.paylen) & 3) + ROCE_ICRC_LEN);
	return len;
}

/* The device counters by name: rcvd_pkts, and the receive drops (rx_*). */
#define NB_STATS 64
static const char *stat_name[NB_STATS];
static unsigned int nb_stats;
static int st_rcvd = -1, st_not_roce = -1, st_bad_icrc = -1;
static uint64_t st_drop_mask;

static void
stats_take(uint64_t *v)
{
	nb_stats = roce_dev_stats_names(stat_name, v, NB_STATS, dev);
	must(nb_stats <= NB_STATS, "counter names");
	if (st_rcvd < 0) {
		unsigned int i;

		for (i = 0; i < nb_stats; i++) {
			if (strcmp(stat_name[i], "rcvd_pkts") == 0)
				st_rcvd = (int)i;
			if (strcmp(stat_name[i], "rx_not_roce") == 0)
				st_not_roce = (int)i;
			if (strcmp(stat_name[i], "rx_bad_icrc") == 0)
				st_bad_icrc = (int)i;
			if (strncmp(stat_name[i], "rx_", 3) == 0)
				st_drop_mask |= 1ull << i;
		}
		must(st_rcvd >= 0 && st_not_roce >= 0 && st_bad_icrc >= 0, "counters");
	}
}

/*
 * Every frame is counted: dropped before reaching a QP, under exactly one
 * reason; accepted by a QP, once in rcvd_pkts, and at most once more under
 * the reason the QP then dropped it for.
 */
static void
check_counted(const uint64_t *b, const uint64_t *a, uint16_t left, bool tmpl)
{
	uint64_t rcvd = a[st_rcvd] - b[st_rcvd], drops = 0;
	unsigned int i;

	for (i = 0; i < nb_stats; i++)
		if (st_drop_mask & (1ull << i))
			drops += a[i] - b[i];
	if (rcvd > 1 || (rcvd == 0 && drops != 1) || (rcvd == 1 && drops > 1) ||
	    left != a[st_not_roce] - b[st_not_roce] ||
	    (tmpl && a[st_bad_icrc] != b[st_bad_icrc])) {
		for (i = 0; i < nb_stats; i++)
			if (a[i] != b[i])
				fprintf(stderr, "  %s +%" PRIu64 "\n", stat_name[i], a[i] - b[i]);
		fprintf(stderr, "  handed back: %u; template: %d\n", left, tmpl);
		must(false, "a frame not counted once (or a template with a bad ICRC)");
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t frame[ROCE_MAX_HDR + 16400 + 8];
	uint64_t before[NB_STATS], after[NB_STATS];
	const uint8_t *f = data, *cutb = data + 1;
	uint32_t len = (uint32_t)size, cuts[2] = { 0, 0 }, l3 = 0;
	bool tmpl = size >= 6 && data[0] >= 0xf0, v6 = false;
	unsigned int nseg;
	struct rte_mbuf *m;
	uint16_t left;

	if (size > 16400)
		return 0;
	if (tmpl) {
		len = template(data, size, frame, &l3, &v6);
		f = frame;
		cutb = data + 3;
	}
	nseg = len >= 4 ? (cutb[0] & 3) % 3 + 1 : 1;
	if (nseg > 1) {
		cuts[0] = 1 + (uint32_t)cutb[1] * (len - 1) / 256;
		cuts[1] = 1 + (uint32_t)cutb[2] * (len - 1) / 256;
		if (cuts[1] < cuts[0])
			RTE_SWAP(cuts[0], cuts[1]);
	}
	m = wu_xchain(pool, f, len, cuts, nseg - 1);
	must(m != NULL, "frame mbuf");
	if (tmpl) {
		uint32_t icrc = roce_icrc(m, l3, v6, len - ROCE_ICRC_LEN);
		uint8_t le[4];

		wu_put_le32(le, icrc);
		omni_mbuf_copy_in(m, len - ROCE_ICRC_LEN, le, 4);
	}
	stats_take(before);
	left = roce_dev_rx_burst(dev, &m, 1);
	stats_take(after);
	if (left)
		rte_pktmbuf_free(m);
	check_counted(before, after, left, tmpl);
	roce_dev_poll(dev);
	roce_dev_poll(dev);
	drain_tx();
	maintain();
	roce_dev_poll(dev);
	drain_tx();
	/* the device may hold a few for frames to come while a QP has work */
	must(rte_mempool_avail_count(pool) + roce_dev_mbufs_held(dev) == POOL_SIZE,
	     "an mbuf was kept");
	return 0;
}
