/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * libFuzzer target: lib/vrdma's RDMA queues (vrdma_wq_poll()) against any
 * guest-written send, receive and completion ring. A fresh lib/roce device
 * per input has PD 1, CQ 0, an MR over all of guest memory, an RC QP (2,
 * in RTS towards itself over a wire that loops back) and a UD QP (3, in
 * RTS); the MR and the RC QP grant every remote access, atomics included
 * (seeds rc_atomics and rc_atomics_refused post them). Guest memory is 64 KiB at
 * guest-physical 0x100000; the input's first 5 bytes are the last available
 * index of the five rings, the 6th says what the driver does besides
 * (bit 0: REQ_NOTIFY_CQ NEXT_COMPLETION first, bit 1: SOLICITED, bit 2:
 * reset the RC QP after two polls), the rest fills guest memory from the start:
 * each ring's 16-entry descriptor table and available ring at 1 KiB steps
 * (RC SQ, RC RQ, UD SQ, UD RQ, CQ 0), then requests, SGE targets and
 * completion buffers anywhere.
 *
 * Oracle beyond the sanitizers: every chain a QP's ring returns is
 * accounted for as posted, refused (completed in error) or a bad chain,
 * with 0 bytes written; every completion buffer is returned with 48 bytes
 * (a completion) or 0 (a refused buffer), and the device counts as many;
 * the device is destroyed after each input (LeakSanitizer sees anything it
 * kept) and the wire's mbufs are freed.
 */

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "vrdma_abi.h"
#include "vrdma_wq.h"

#define GPA 0x100000ull
#define GLEN (64u << 10)
#define RING 16
#define MAX_QPS 4
#define MAX_CQS 1
#define NRINGS 5
#define HDR (NRINGS + 1)

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct rte_mempool *pool;
static struct rte_ring *rx, *tx;
static uint8_t *g;
static union {
	struct rte_vhost_memory m;
	uint8_t room[sizeof(struct rte_vhost_memory) + sizeof(struct rte_vhost_mem_region)];
} mem;

static void *
xlate(void *ctx, uint64_t gpa, uint64_t len, uint64_t *contig)
{
	(void)ctx;
	if (gpa < GPA || gpa - GPA >= GLEN)
		return NULL;
	*contig = RTE_MIN(len, GLEN - (gpa - GPA));
	return g + (gpa - GPA);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char prefix[64];
	char *eal[] = { "fuzz_vrdma_wq", "--no-huge", "-m", "256", "--no-pci", "--no-shconf",
			"--no-telemetry", "-l", "0", "--log-level=lib.eal:error",
			"--log-level=lib.roce:emerg", prefix, NULL };

	(void)argc;
	(void)argv;
	snprintf(prefix, sizeof(prefix), "--file-prefix=fuzz_vrdma_wq_%d", (int)getpid());
	if (rte_eal_init(RTE_DIM(eal) - 1, eal) < 0)
		abort();
	pool = rte_pktmbuf_pool_create("fz_pool", 1023, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	rx = rte_ring_create("fz_rx", 1024, SOCKET_ID_ANY, 0);
	tx = rte_ring_create("fz_tx", 1024, SOCKET_ID_ANY, 0);
	g = aligned_alloc(4096, GLEN);
	if (pool == NULL || rx == NULL || tx == NULL || g == NULL)
		abort();
	mem.m.nregions = 1;
	mem.m.regions[0].guest_phys_addr = GPA;
	mem.m.regions[0].host_user_addr = (uint64_t)(uintptr_t)g;
	mem.m.regions[0].size = GLEN;
	return 0;
}

static void
fail(struct vrdma_rdma *r, const char *what)
{
	fprintf(stderr, "fuzz_vrdma_wq: %s: %s\n", what, roce_dev_last_error(r->dev));
	abort();
}

static struct roce_qp *
qp_up(struct vrdma_rdma *r, struct roce_pd *pd, struct roce_cq *cq, enum roce_qp_type type)
{
	struct roce_qp_init_attr ia = {
		.qp_type = type, .send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 4,
			 .max_recv_sge = 4, .max_inline_data = 64 },
	};
	struct roce_qp *qp = roce_qp_create(pd, &ia);
	struct roce_qp_attr at;
	uint8_t gid[ROCE_GID_LEN];

	if (qp == NULL)
		abort();
	memset(&at, 0, sizeof(at));
	at.qp_state = ROCE_QPS_INIT;
	at.qp_access_flags = ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ |
			     ROCE_ACCESS_REMOTE_ATOMIC;
	at.qkey = 0x11;
	if (roce_qp_modify(qp, &at, ROCE_QP_STATE | (type == ROCE_QPT_RC ?
						     ROCE_QP_ACCESS_FLAGS : ROCE_QP_QKEY)) < 0)
		fail(r, "INIT");
	at.qp_state = ROCE_QPS_RTR;
	if (type == ROCE_QPT_RC) {
		if (roce_gid_get(r->dev, 0, gid) < 0)
			abort();
		at.path_mtu = ROCE_MTU_1024;
		at.dest_qp_num = roce_qp_num(qp);
		at.max_dest_rd_atomic = 4;
		memcpy(at.ah_attr.dgid, gid, ROCE_GID_LEN);
		/* itself: the wire loops back */
		memcpy(at.ah_attr.dmac, ((uint8_t[]){ 2, 0, 0, 0, 0, 1 }), 6);
		at.ah_attr.vlan_id = ROCE_VLAN_NONE;
	}
	if (roce_qp_modify(qp, &at, ROCE_QP_STATE | (type == ROCE_QPT_RC ? ROCE_QP_AV |
			   ROCE_QP_PATH_MTU | ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN | ROCE_QP_MAX_DEST_RD_ATOMIC |
			   ROCE_QP_MIN_RNR_TIMER : 0)) < 0)
		fail(r, "RTR");
	at.qp_state = ROCE_QPS_RTS;
	at.timeout = 1;
	at.retry_cnt = 1;
	at.max_rd_atomic = 4;
	if (roce_qp_modify(qp, &at, ROCE_QP_STATE | ROCE_QP_SQ_PSN |
			   (type == ROCE_QPT_RC ? ROCE_QP_TIMEOUT | ROCE_QP_RNR_RETRY |
			    ROCE_QP_RETRY_CNT | ROCE_QP_MAX_QP_RD_ATOMIC : 0)) < 0)
		fail(r, "RTS");
	return qp;
}

/* Run a control command the driver would send; @return its ack byte. */
static uint8_t
cmd(struct vrdma_rdma *r, uint8_t code, const void *data, uint32_t len)
{
	uint8_t in[2 + 256], out[256];

	in[0] = 6;
	in[1] = code;
	memcpy(in + 2, data, len);
	if (vrdma_cmd_exec(r, in, 2 + len, out, sizeof(out)) == 0)
		abort();
	return out[0];
}

/* The wire loops back: what the device sent, it receives. */
static void
loop_back(void)
{
	struct rte_mbuf *m[32];
	unsigned int n, k;

	while ((n = rte_ring_dequeue_burst(tx, (void **)m, RTE_DIM(m), NULL)) > 0) {
		k = rte_ring_enqueue_burst(rx, (void **)m, n, NULL);
		if (k < n)
			rte_pktmbuf_free_bulk(m + k, n - k);
	}
}

static void
drain(struct rte_ring *ring)
{
	struct rte_mbuf *m[32];
	unsigned int n;

	while ((n = rte_ring_dequeue_burst(ring, (void **)m, RTE_DIM(m), NULL)) > 0)
		rte_pktmbuf_free_bulk(m, n);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vrdma_rdma_conf c = {
		.name = "fz", .mac = { { 2, 0, 0, 0, 0, 1 } }, .mtu = 1500,
		.max_qps = MAX_QPS, .max_cqs = MAX_CQS, .rx_ring = rx, .tx_ring = tx, .pool = pool,
		.xlate = xlate, .vlan_id = ROCE_VLAN_NONE,
	};
	/* rings: CQ 0 at 3; QP n's SQ at 3 + 1 CQ + 2n: RC (2) 8 and 9, UD (3) 10 and 11 */
	static const uint16_t ring_idx[NRINGS] = { 8, 9, 10, 11, 3 };
	static struct vrdma_vq vq[VRDMA_MAX_RINGS];
	static struct vrdma_vq_stats vqst;
	static struct vrdma_wq w;
	static uint8_t used_mem[NRINGS][sizeof(struct vring_used) +
					RING * sizeof(struct vring_used_elem)];
	uint64_t call[VRDMA_MAX_RINGS / 64];
	uint8_t gid[ROCE_GID_LEN] = { [10] = 0xff, [11] = 0xff, [12] = 10, [15] = 1 };
	struct roce_mr_conf mc = {
		.iova = GPA, .length = GLEN, .host = NULL,
		.access = ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
			ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC,
	};
	uint16_t start[NRINGS];
	char err[ROCE_ERR_LEN];
	struct vrdma_rdma *r;
	struct roce_pd *pd;
	struct roce_cq *cq;
	uint64_t taken = 0, cq_used = 0, cq_full = 0;
	bool signalled = false;
	unsigned int i, k;
	uint8_t how;

	if (size < HDR)
		return 0;
	how = data[NRINGS];
	memset(g, 0, GLEN);
	memcpy(g, data + HDR, RTE_MIN(size - HDR, (size_t)GLEN));
	memset(vq, 0, sizeof(vq));
	memset(used_mem, 0, sizeof(used_mem));
	memset(&vqst, 0, sizeof(vqst));
	memset(&w, 0, sizeof(w));
	r = vrdma_rdma_create(&c, err, sizeof(err));
	if (r == NULL)
		abort();
	mc.host = g;
	pd = roce_pd_alloc(r->dev);
	/* the CQ as the driver makes it, so that its notifications reach the device */
	cmd(r, VRDMA_CMD_CREATE_CQ, &(struct vrdma_cmd_create_cq){ .cqe = 16 },
	    sizeof(struct vrdma_cmd_create_cq));
	cq = roce_cq_get(r->dev, 0);
	if (pd == NULL || cq == NULL || roce_gid_set(r->dev, 0, gid) < 0 ||
	    roce_mr_reg(pd, &mc) == NULL)
		abort();
	qp_up(r, pd, cq, ROCE_QPT_RC);
	qp_up(r, pd, cq, ROCE_QPT_UD);
	for (i = 0; i < NRINGS; i++) {
		struct vrdma_vq *v = &vq[ring_idx[i]];

		v->desc = (struct vring_desc *)(g + i * 1024);
		v->avail = (struct vring_avail *)(g + i * 1024 + RING * sizeof(struct vring_desc));
		v->used = (struct vring_used *)used_mem[i];
		v->size = RING;
		v->last_avail = data[i];
		v->last_used = 0;
		v->live = true;
		start[i] = data[i];
	}
	w.r = r;
	w.vq = vq;
	w.mem = &mem.m;
	w.vqst = &vqst;
	w.max_qps = MAX_QPS;
	w.max_cqs = MAX_CQS;
	if (how & 3) {
		struct vrdma_cmd_req_notify rn = { .cqn = 0, .flags = how & 3 };

		cmd(r, VRDMA_CMD_REQ_NOTIFY_CQ, &rn, sizeof(rn));
	}
	for (k = 0; k < 4; k++) {
		memset(call, 0, sizeof(call));
		if (k == 2 && (how & 4)) {
			struct vrdma_cmd_modify_qp m = { .qpn = 2, .attr_mask = 1,
							 .qp_state = ROCE_QPS_RESET };

			cmd(r, VRDMA_CMD_MODIFY_QP, &m, sizeof(m));
			if (!(r->qp_stale[0] & (1ull << 2)))
				abort(); /* a reset QP's requests must be discarded */
			vrdma_wq_discard(&w, 2, call);
			memset(r->qp_stale, 0, sizeof(r->qp_stale));
		}
		vrdma_wq_poll(&w, call);
		signalled |= (call[0] >> 3) & 1;
		loop_back();
	}
	for (i = 0; i < NRINGS; i++) {
		const struct vrdma_vq *v = &vq[ring_idx[i]];
		uint16_t n = v->last_used;

		/* what was read and not put back is returned, and nothing more */
		if ((uint16_t)(v->last_avail - start[i]) != n && !v->broken)
			abort();
		for (k = 0; k < n && k < RING; k++) {
			uint32_t len = v->used->ring[k].len;

			if (i < 4 ? len != 0 : len != 0 && len != sizeof(struct vrdma_cq_req))
				abort();
			if (i == 4)
				cq_full += len != 0;
		}
		if (i < 4)
			taken += n;
		else
			cq_used += n;
	}
	if (taken != w.st.sq_posted + w.st.rq_posted + w.st.wr_refused + w.st.wq_bad_chain +
	    w.st.wr_discarded)
		abort();
	/*
	 * unarmed: never signalled; armed for the next completion: signalled
	 * once one reached the ring (SOLICITED alone waits for a solicited one)
	 */
	if ((!(how & 3) && signalled) || ((how & 2) && w.st.cqe_written > 0 && !signalled))
		abort();
	if (cq_used != w.st.cqe_written + w.st.cq_bad_chain || cq_full != w.st.cqe_written)
		abort();
	vrdma_rdma_destroy(r);
	drain(tx);
	drain(rx);
	return 0;
}
