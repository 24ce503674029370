/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* The RFC's 18 RoCE control commands on a lib/roce device. */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "vrdma.h"
#include "vrdma_abi.h"
#include "vrdma_cmd.h"

/*
 * The guest's verbs values (vrdma_abi.h) go to lib/roce unchanged: each is
 * lib/roce's own. (Here both headers are seen; vrdma_abi.h stays plain C.)
 */
#define PIN(abi, roce) \
	static_assert((long long)(abi) == (long long)(roce), #abi " is lib/roce's " #roce)
PIN(VRDMA_QPT_GSI, ROCE_QPT_GSI);
PIN(VRDMA_QPT_RC, ROCE_QPT_RC);
PIN(VRDMA_QPT_UC, ROCE_QPT_UC);
PIN(VRDMA_QPT_UD, ROCE_QPT_UD);
PIN(VRDMA_QPS_RESET, ROCE_QPS_RESET);
PIN(VRDMA_QPS_INIT, ROCE_QPS_INIT);
PIN(VRDMA_QPS_RTR, ROCE_QPS_RTR);
PIN(VRDMA_QPS_RTS, ROCE_QPS_RTS);
PIN(VRDMA_QPS_SQD, ROCE_QPS_SQD);
PIN(VRDMA_QPS_SQE, ROCE_QPS_SQE);
PIN(VRDMA_QPS_ERR, ROCE_QPS_ERR);
PIN(VRDMA_MTU_256, ROCE_MTU_256);
PIN(VRDMA_MTU_512, ROCE_MTU_512);
PIN(VRDMA_MTU_1024, ROCE_MTU_1024);
PIN(VRDMA_MTU_2048, ROCE_MTU_2048);
PIN(VRDMA_MTU_4096, ROCE_MTU_4096);
PIN(VRDMA_ACCESS_LOCAL_WRITE, ROCE_ACCESS_LOCAL_WRITE);
PIN(VRDMA_ACCESS_REMOTE_WRITE, ROCE_ACCESS_REMOTE_WRITE);
PIN(VRDMA_ACCESS_REMOTE_READ, ROCE_ACCESS_REMOTE_READ);
PIN(VRDMA_ACCESS_REMOTE_ATOMIC, ROCE_ACCESS_REMOTE_ATOMIC);
PIN(VRDMA_QP_ATTR_STATE, ROCE_QP_STATE);
PIN(VRDMA_QP_ATTR_CUR_STATE, ROCE_QP_CUR_STATE);
PIN(VRDMA_QP_ATTR_ACCESS_FLAGS, ROCE_QP_ACCESS_FLAGS);
PIN(VRDMA_QP_ATTR_QKEY, ROCE_QP_QKEY);
PIN(VRDMA_QP_ATTR_AV, ROCE_QP_AV);
PIN(VRDMA_QP_ATTR_PATH_MTU, ROCE_QP_PATH_MTU);
PIN(VRDMA_QP_ATTR_TIMEOUT, ROCE_QP_TIMEOUT);
PIN(VRDMA_QP_ATTR_RETRY_CNT, ROCE_QP_RETRY_CNT);
PIN(VRDMA_QP_ATTR_RNR_RETRY, ROCE_QP_RNR_RETRY);
PIN(VRDMA_QP_ATTR_RQ_PSN, ROCE_QP_RQ_PSN);
PIN(VRDMA_QP_ATTR_MAX_QP_RD_ATOMIC, ROCE_QP_MAX_QP_RD_ATOMIC);
PIN(VRDMA_QP_ATTR_MIN_RNR_TIMER, ROCE_QP_MIN_RNR_TIMER);
PIN(VRDMA_QP_ATTR_SQ_PSN, ROCE_QP_SQ_PSN);
PIN(VRDMA_QP_ATTR_MAX_DEST_RD_ATOMIC, ROCE_QP_MAX_DEST_RD_ATOMIC);
PIN(VRDMA_QP_ATTR_CAP, ROCE_QP_CAP);
PIN(VRDMA_QP_ATTR_DEST_QPN, ROCE_QP_DEST_QPN);
PIN(VRDMA_QP_ATTR_RATE_LIMIT, ROCE_QP_RATE_LIMIT);
PIN(VRDMA_WR_RDMA_WRITE, ROCE_WR_RDMA_WRITE);
PIN(VRDMA_WR_RDMA_WRITE_WITH_IMM, ROCE_WR_RDMA_WRITE_WITH_IMM);
PIN(VRDMA_WR_SEND, ROCE_WR_SEND);
PIN(VRDMA_WR_SEND_WITH_IMM, ROCE_WR_SEND_WITH_IMM);
PIN(VRDMA_WR_RDMA_READ, ROCE_WR_RDMA_READ);
PIN(VRDMA_WR_ATOMIC_CMP_AND_SWP, ROCE_WR_ATOMIC_CMP_AND_SWP);
PIN(VRDMA_WR_ATOMIC_FETCH_AND_ADD, ROCE_WR_ATOMIC_FETCH_AND_ADD);
PIN(VRDMA_SEND_FENCE, ROCE_SEND_FENCE);
PIN(VRDMA_SEND_SIGNALED, ROCE_SEND_SIGNALED);
PIN(VRDMA_SEND_SOLICITED, ROCE_SEND_SOLICITED);
PIN(VRDMA_SEND_INLINE, ROCE_SEND_INLINE);
PIN(VRDMA_WC_SEND, ROCE_WC_SEND);
PIN(VRDMA_WC_RDMA_WRITE, ROCE_WC_RDMA_WRITE);
PIN(VRDMA_WC_RDMA_READ, ROCE_WC_RDMA_READ);
PIN(VRDMA_WC_RECV, ROCE_WC_RECV);
PIN(VRDMA_WC_RECV_RDMA_WITH_IMM, ROCE_WC_RECV_RDMA_WITH_IMM);
PIN(VRDMA_WC_COMP_SWAP, ROCE_WC_COMP_SWAP);
PIN(VRDMA_WC_FETCH_ADD, ROCE_WC_FETCH_ADD);
PIN(VRDMA_WC_SUCCESS, ROCE_WC_SUCCESS);
PIN(VRDMA_WC_LOC_LEN_ERR, ROCE_WC_LOC_LEN_ERR);
PIN(VRDMA_WC_LOC_QP_OP_ERR, ROCE_WC_LOC_QP_OP_ERR);
PIN(VRDMA_WC_LOC_PROT_ERR, ROCE_WC_LOC_PROT_ERR);
PIN(VRDMA_WC_WR_FLUSH_ERR, ROCE_WC_WR_FLUSH_ERR);
PIN(VRDMA_WC_BAD_RESP_ERR, ROCE_WC_BAD_RESP_ERR);
PIN(VRDMA_WC_LOC_ACCESS_ERR, ROCE_WC_LOC_ACCESS_ERR);
PIN(VRDMA_WC_REM_INV_REQ_ERR, ROCE_WC_REM_INV_REQ_ERR);
PIN(VRDMA_WC_REM_ACCESS_ERR, ROCE_WC_REM_ACCESS_ERR);
PIN(VRDMA_WC_REM_OP_ERR, ROCE_WC_REM_OP_ERR);
PIN(VRDMA_WC_RETRY_EXC_ERR, ROCE_WC_RETRY_EXC_ERR);
PIN(VRDMA_WC_RNR_RETRY_EXC_ERR, ROCE_WC_RNR_RETRY_EXC_ERR);
PIN(VRDMA_WC_REM_ABORT_ERR, ROCE_WC_REM_ABORT_ERR);
PIN(VRDMA_WC_FATAL_ERR, ROCE_WC_FATAL_ERR);
PIN(VRDMA_WC_RESP_TIMEOUT_ERR, ROCE_WC_RESP_TIMEOUT_ERR);
PIN(VRDMA_WC_GENERAL_ERR, ROCE_WC_GENERAL_ERR);
PIN(VRDMA_WC_GRH, ROCE_WC_GRH);
PIN(VRDMA_WC_WITH_IMM, ROCE_WC_WITH_IMM);
PIN(VRDMA_NOTIFY_SOLICITED, ROCE_CQ_SOLICITED);
PIN(VRDMA_NOTIFY_NEXT_COMPLETION, ROCE_CQ_NEXT_COMPLETION);
PIN(VRDMA_VLAN_NONE, ROCE_VLAN_NONE);
#undef PIN

/* Limits the device reports in QUERY_DEVICE and lib/roce enforces. */
#define LIM_QP_WR 1024   /* a virtqueue holds 1024 at most (QEMU's largest) */
#define LIM_CQE 4096
#define LIM_MR 4096
#define LIM_PD 4096
#define LIM_AH 1024
#define LIM_RD_ATOM 128
#define LIM_GIDS 128
#define LIM_DMA_MR_SIZE (1ull << 40)
#define LOCAL_CA_ACK_DELAY 15

static uint32_t
le32(uint32_t v)
{
	return rte_le_to_cpu_32(v);
}

struct vrdma_rdma *
vrdma_rdma_create(const struct vrdma_rdma_conf *c, char *err, size_t errlen)
{
	struct roce_dev_conf dc = {
		.name = c->name,
		.mtu = c->mtu,
		.rx_ring = c->rx_ring,
		.tx_ring = c->tx_ring,
		.pass_ring = c->pass_ring,
		.pool = c->pool,
		.socket_id = SOCKET_ID_ANY,
		.first_qpn = 2,
		/* tagged RoCE: VID 0 and ours are taken, another VID is dropped */
		.vlan_filter = c->vlan_id != ROCE_VLAN_NONE,
		.vlan_id = c->vlan_id != ROCE_VLAN_NONE ? c->vlan_id : 0,
		.limits = {
			.max_qp = c->max_qps - 2, .max_qp_wr = LIM_QP_WR, .max_sge = ROCE_MAX_SGE,
			.max_inline = ROCE_MAX_INLINE, .max_cq = c->max_cqs, .max_cqe = LIM_CQE,
			.max_mr = LIM_MR, .max_mr_size = LIM_DMA_MR_SIZE, .max_pd = LIM_PD,
			.max_ah = LIM_AH, .max_qp_rd_atom = LIM_RD_ATOM, .gid_tbl_len = LIM_GIDS,
		},
	};
	struct vrdma_rdma *r;

	if (c->max_qps < 3 || c->max_cqs < 1) {
		snprintf(err, errlen, "RDMA needs max_qps >= 3 (QPN 0 is SMI, 1 GSI) and a CQ");
		rte_errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		snprintf(err, errlen, "no memory");
		rte_errno = ENOMEM;
		return NULL;
	}
	memcpy(dc.mac, c->mac.addr_bytes, sizeof(dc.mac));
	r->vlan_id = c->vlan_id;
	r->eth_mtu = c->mtu;
	r->xlate = c->xlate;
	r->xlate_ctx = c->xlate_ctx;
	r->mrs = calloc(LIM_MR, sizeof(*r->mrs));
	r->mr_pages = calloc(LIM_MR, sizeof(*r->mr_pages));
	r->ah_pd = calloc(LIM_AH + 1, sizeof(*r->ah_pd));
	r->max_cqs = c->max_cqs;
	r->cq_owed = calloc(c->max_cqs, sizeof(*r->cq_owed));
	if (r->mrs == NULL || r->mr_pages == NULL || r->ah_pd == NULL || r->cq_owed == NULL) {
		snprintf(err, errlen, "no memory");
		rte_errno = ENOMEM;
		goto fail;
	}
	r->dev = roce_dev_create(&dc, err, errlen);
	if (r->dev == NULL)
		goto fail;
	return r;
fail:
	free(r->mrs);
	free(r->mr_pages);
	free(r->ah_pd);
	free(r->cq_owed);
	free(r);
	return NULL;
}

void
vrdma_rdma_destroy(struct vrdma_rdma *r)
{
	if (r == NULL)
		return;
	roce_dev_destroy(r->dev);
	free(r->mrs);
	free(r->mr_pages);
	free(r->ah_pd);
	free(r->cq_owed);
	free(r);
}

int
vrdma_rdma_mtu_set(struct vrdma_rdma *r, uint16_t eth_mtu)
{
	int rc = roce_dev_mtu_set(r->dev, eth_mtu);

	if (rc == 0)
		r->eth_mtu = eth_mtu;
	return rc;
}

unsigned int
vrdma_rdma_remap(struct vrdma_rdma *r)
{
	unsigned int lost = 0;
	uint32_t i;

	for (i = 0; i < LIM_MR; i++) {
		/* a DMA MR translates at each use: remapping it is a no-op */
		if (r->mrs[i] == NULL || roce_mr_remap(r->mrs[i]) == 0)
			continue;
		/* its pages are gone: work requests naming it now fail as protection errors */
		roce_mr_dereg(r->mrs[i]);
		r->mrs[i] = NULL;
		r->pages -= r->mr_pages[i];
		r->mr_pages[i] = 0;
		lost++;
	}
	return lost;
}

/* ---------------- one command ---------------- */

struct cmd_ctx {
	struct vrdma_rdma *r;
	const uint8_t *data;  /* command-specific data */
	uint32_t len;         /* its bytes */
	uint8_t *ack;         /* ack-specific data */
	uint32_t ack_len;     /* bytes the command writes there */
};

/* Record why a command is refused. @return -1 */
static int __rte_format_printf(2, 3)
refuse(struct cmd_ctx *x, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(x->r->why, sizeof(x->r->why), fmt, ap);
	va_end(ap);
	return -1;
}

static int
refuse_roce(struct cmd_ctx *x, const char *what)
{
	return refuse(x, "%s: %s", what, roce_dev_last_error(x->r->dev));
}

static void
put_handle(struct cmd_ctx *x, uint32_t h)
{
	struct vrdma_ack_handle a = { .handle = rte_cpu_to_le_32(h) };

	memcpy(x->ack, &a, sizeof(a));
	x->ack_len = sizeof(a);
}

static struct roce_pd *
pd_of(struct cmd_ctx *x, uint32_t pdn)
{
	return roce_pd_get(x->r->dev, pdn);
}

static int
query_device(struct cmd_ctx *x)
{
	const struct roce_dev_limits *l = roce_dev_limits(x->r->dev);
	struct vrdma_ack_query_device a = {
		.device_cap_flags = rte_cpu_to_le_64(VRDMA_IB_DEVICE_RC_RNR_NAK_GEN),
		.max_mr_size = rte_cpu_to_le_64((uint64_t)VRDMA_MAX_MR_PAGES * VRDMA_PAGE_SIZE),
		.page_size_cap = rte_cpu_to_le_64(VRDMA_PAGE_SIZE),
		.max_qp_wr = rte_cpu_to_le_32(l->max_qp_wr),
		.max_send_sge = rte_cpu_to_le_32(l->max_sge),
		.max_recv_sge = rte_cpu_to_le_32(l->max_sge),
		.max_sge_rd = rte_cpu_to_le_32(l->max_sge),
		.max_cqe = rte_cpu_to_le_32(l->max_cqe),
		.max_mr = rte_cpu_to_le_32(l->max_mr),
		.max_pd = rte_cpu_to_le_32(l->max_pd),
		.max_qp_rd_atom = rte_cpu_to_le_32(l->max_qp_rd_atom),
		.max_qp_init_rd_atom = rte_cpu_to_le_32(l->max_qp_rd_atom),
		.max_ah = rte_cpu_to_le_32(l->max_ah),
		.local_ca_ack_delay = LOCAL_CA_ACK_DELAY,
		/*
		 * lib/roce's atomics are hardware atomics on the guest's word, so
		 * GLOB would hold too; HCA is the promise verbs devices make and
		 * leaves a later engine free to serialize atomics its own way.
		 */
		.atomic_cap = VRDMA_ATOMIC_HCA,
	};

	memcpy(x->ack, &a, sizeof(a));
	x->ack_len = sizeof(a);
	return 0;
}

static int
query_port(struct cmd_ctx *x)
{
	struct vrdma_ack_query_port a = {
		.gid_tbl_len = rte_cpu_to_le_32(roce_dev_limits(x->r->dev)->gid_tbl_len),
		.max_msg_sz = rte_cpu_to_le_32(ROCE_MAX_MSG_SIZE),
	};

	memcpy(x->ack, &a, sizeof(a));
	x->ack_len = sizeof(a);
	return 0;
}

/*
 * lib/roce's notification of an armed CQ: the completion that fired it is
 * the newest lib/roce holds, so the guest is owed a signal until all it
 * holds now has reached the CQ's ring.
 */
static void
cq_fired(void *arg, struct roce_cq *cq)
{
	struct vrdma_rdma *r = arg;
	uint32_t cqn = roce_cq_handle(cq);

	if (cqn < r->max_cqs)
		r->cq_owed[cqn] = roce_cq_pending(cq);
}

static int
create_cq(struct cmd_ctx *x)
{
	struct vrdma_cmd_create_cq c;
	struct roce_cq_conf cc = { .notify = cq_fired, .notify_arg = x->r };
	struct roce_cq *cq;

	memcpy(&c, x->data, sizeof(c));
	cc.cqe = le32(c.cqe);
	cq = roce_cq_create(x->r->dev, &cc);
	if (cq == NULL)
		return refuse_roce(x, "CREATE_CQ");
	if (roce_cq_handle(cq) >= x->r->max_cqs) {
		/* lib/roce's limit is max_cqs: cannot happen, but the number names a ring */
		roce_cq_destroy(cq);
		return refuse(x, "CREATE_CQ: CQ number past max_cqs");
	}
	x->r->cq_owed[roce_cq_handle(cq)] = 0;
	put_handle(x, roce_cq_handle(cq));
	return 0;
}

static int
destroy_cq(struct cmd_ctx *x)
{
	struct vrdma_cmd_handle c;
	struct roce_cq *cq;

	memcpy(&c, x->data, sizeof(c));
	cq = roce_cq_get(x->r->dev, le32(c.handle));
	if (cq == NULL)
		return refuse(x, "DESTROY_CQ: no CQ %u", le32(c.handle));
	if (roce_cq_destroy(cq) != 0)
		return refuse_roce(x, "DESTROY_CQ");
	x->r->cq_owed[le32(c.handle)] = 0;
	return 0;
}

static int
create_pd(struct cmd_ctx *x)
{
	struct roce_pd *pd = roce_pd_alloc(x->r->dev);

	if (pd == NULL)
		return refuse_roce(x, "CREATE_PD");
	put_handle(x, roce_pd_handle(pd));
	return 0;
}

static int
destroy_pd(struct cmd_ctx *x)
{
	struct vrdma_cmd_handle c;
	struct roce_pd *pd;

	memcpy(&c, x->data, sizeof(c));
	pd = pd_of(x, le32(c.handle));
	if (pd == NULL)
		return refuse(x, "DESTROY_PD: no PD %u", le32(c.handle));
	if (roce_pd_free(pd) != 0)
		return refuse_roce(x, "DESTROY_PD");
	return 0;
}

static void
put_mr(struct cmd_ctx *x, const struct roce_mr *mr)
{
	struct vrdma_ack_mr a = {
		.mrn = rte_cpu_to_le_32(roce_mr_lkey(mr)),
		.lkey = rte_cpu_to_le_32(roce_mr_lkey(mr)),
		.rkey = rte_cpu_to_le_32(roce_mr_rkey(mr)),
	};

	memcpy(x->ack, &a, sizeof(a));
	x->ack_len = sizeof(a);
}

/* The RFC's access flags (local write, remote write, remote read) and our remote atomic. */
#define MR_ACCESS_KNOWN (ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE | \
		       ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC)

static int
get_dma_mr(struct cmd_ctx *x)
{
	struct vrdma_cmd_get_dma_mr c;
	struct roce_mr_conf mc = { 0 };
	struct roce_pd *pd;
	struct roce_mr *mr;

	memcpy(&c, x->data, sizeof(c));
	pd = pd_of(x, le32(c.pdn));
	if (pd == NULL)
		return refuse(x, "GET_DMA_MR: no PD %u", le32(c.pdn));
	if (le32(c.access_flags) & ~MR_ACCESS_KNOWN)
		return refuse(x, "GET_DMA_MR: access 0x%x has unknown bits", le32(c.access_flags));
	/* guest-physical addresses, each translated when used */
	mc.iova = 0;
	mc.length = LIM_DMA_MR_SIZE;
	mc.access = le32(c.access_flags);
	mc.xlate = x->r->xlate;
	mc.xlate_ctx = x->r->xlate_ctx;
	mr = roce_mr_reg(pd, &mc);
	if (mr == NULL)
		return refuse_roce(x, "GET_DMA_MR");
	x->r->mrs[roce_mr_lkey(mr) >> 8] = mr;
	put_mr(x, mr);
	return 0;
}

static int
reg_user_mr(struct cmd_ctx *x)
{
	struct vrdma_cmd_reg_user_mr c;
	struct roce_mr_conf mc = { 0 };
	uint64_t *pages = NULL;
	struct roce_pd *pd;
	struct roce_mr *mr;
	uint32_t np, i;

	memcpy(&c, x->data, sizeof(c));
	np = le32(c.npages);
	/* the caller checked the size: 32 + 8 x npages */
	pd = pd_of(x, le32(c.pdn));
	if (pd == NULL)
		return refuse(x, "REG_USER_MR: no PD %u", le32(c.pdn));
	if (le32(c.access_flags) & ~MR_ACCESS_KNOWN)
		return refuse(x, "REG_USER_MR: access 0x%x has unknown bits", le32(c.access_flags));
	if (np == 0 || np > VRDMA_MAX_MR_PAGES)
		return refuse(x, "REG_USER_MR: %u pages (1..%u)", np, VRDMA_MAX_MR_PAGES);
	/* the page tables come from the DPDK heap every device shares */
	if (np > VRDMA_MR_PAGE_BUDGET - x->r->pages)
		return refuse(x, "REG_USER_MR: %u pages over the device's budget (%u of %u held)",
			      np, x->r->pages, VRDMA_MR_PAGE_BUDGET);
	pages = malloc(sizeof(*pages) * np);
	if (pages == NULL)
		return refuse(x, "REG_USER_MR: no memory for %u pages", np);
	for (i = 0; i < np; i++) {
		uint64_t pa;

		memcpy(&pa, x->data + sizeof(c) + 8ull * i, sizeof(pa));
		pages[i] = rte_le_to_cpu_64(pa);
	}
	mc.iova = rte_le_to_cpu_64(c.virt_addr);
	mc.length = rte_le_to_cpu_64(c.length);
	mc.access = le32(c.access_flags);
	mc.pages = pages;
	mc.nb_pages = np;
	mc.page_size = VRDMA_PAGE_SIZE;
	mc.xlate = x->r->xlate;
	mc.xlate_ctx = x->r->xlate_ctx;
	/* lib/roce checks length against the pages given and translates every page */
	mr = roce_mr_reg(pd, &mc);
	free(pages);
	if (mr == NULL)
		return refuse_roce(x, "REG_USER_MR");
	x->r->mrs[roce_mr_lkey(mr) >> 8] = mr;
	x->r->mr_pages[roce_mr_lkey(mr) >> 8] = np;
	x->r->pages += np;
	put_mr(x, mr);
	return 0;
}

static int
dereg_mr(struct cmd_ctx *x)
{
	struct vrdma_cmd_handle c;
	struct roce_mr *mr;
	uint32_t key;

	memcpy(&c, x->data, sizeof(c));
	key = le32(c.handle);
	mr = roce_mr_get(x->r->dev, key);
	if (mr == NULL)
		return refuse(x, "DEREG_MR: no MR 0x%x", key);
	x->r->mrs[key >> 8] = NULL;
	x->r->pages -= x->r->mr_pages[key >> 8];
	x->r->mr_pages[key >> 8] = 0;
	roce_mr_dereg(mr);
	return 0;
}

static void
cap_from(struct roce_qp_cap *to, const struct vrdma_qp_cap *c)
{
	to->max_send_wr = le32(c->max_send_wr);
	to->max_recv_wr = le32(c->max_recv_wr);
	to->max_send_sge = le32(c->max_send_sge);
	to->max_recv_sge = le32(c->max_recv_sge);
	to->max_inline_data = le32(c->max_inline_data);
}

static void
cap_to(struct vrdma_qp_cap *to, const struct roce_qp_cap *c)
{
	memset(to, 0, sizeof(*to));
	to->max_send_wr = rte_cpu_to_le_32(c->max_send_wr);
	to->max_recv_wr = rte_cpu_to_le_32(c->max_recv_wr);
	to->max_send_sge = rte_cpu_to_le_32(c->max_send_sge);
	to->max_recv_sge = rte_cpu_to_le_32(c->max_recv_sge);
	to->max_inline_data = rte_cpu_to_le_32(c->max_inline_data);
}

/* The guest's AV, on the device's VLAN (the RFC's AV has none of its own). */
static void
ah_from(struct roce_ah_attr *to, const struct vrdma_ah_attr *a, uint16_t vlan_id)
{
	memset(to, 0, sizeof(*to));
	memcpy(to->dgid, a->grh.dgid, sizeof(to->dgid));
	to->flow_label = le32(a->grh.flow_label);
	to->sgid_index = a->grh.sgid_index;
	to->hop_limit = a->grh.hop_limit;
	to->traffic_class = a->grh.traffic_class;
	memcpy(to->dmac, a->dmac, sizeof(to->dmac));
	to->vlan_id = vlan_id;
}

static void
ah_to(struct vrdma_ah_attr *to, const struct roce_ah_attr *a)
{
	memset(to, 0, sizeof(*to));
	memcpy(to->grh.dgid, a->dgid, sizeof(to->grh.dgid));
	to->grh.flow_label = rte_cpu_to_le_32(a->flow_label);
	to->grh.sgid_index = a->sgid_index;
	to->grh.hop_limit = a->hop_limit;
	to->grh.traffic_class = a->traffic_class;
	memcpy(to->dmac, a->dmac, sizeof(to->dmac));
}

/* Whether QP @p qpn's clamp is said already; now it is. */
static bool
mtu_said(struct vrdma_rdma *r, uint32_t qpn)
{
	uint64_t bit = 1ull << (qpn % 64);
	bool said;

	if (qpn >= 64 * VRDMA_QP_STALE_WORDS)
		return true;
	said = (r->mtu_said[qpn / 64] & bit) != 0;
	r->mtu_said[qpn / 64] |= bit;
	return said;
}

/* A QP number is free again (destroyed, or a new QP in its slot). */
static void
mtu_said_clear(struct vrdma_rdma *r, uint32_t qpn)
{
	if (qpn < 64 * VRDMA_QP_STALE_WORDS)
		r->mtu_said[qpn / 64] &= ~(1ull << (qpn % 64));
}

static int
create_qp(struct cmd_ctx *x)
{
	struct vrdma_cmd_create_qp c;
	struct roce_qp_init_attr ia = { 0 };
	struct roce_pd *pd;
	struct roce_qp *qp;

	memcpy(&c, x->data, sizeof(c));
	pd = pd_of(x, le32(c.pdn));
	if (pd == NULL)
		return refuse(x, "CREATE_QP: no PD %u", le32(c.pdn));
	if (c.qp_type == VRDMA_QPT_SMI)
		return refuse(x, "CREATE_QP: RoCE has no SMI QP");
	if (c.sq_sig_all > 1)
		return refuse(x, "CREATE_QP: sq_sig_all %u is not 0 or 1", c.sq_sig_all);
	ia.qp_type = (enum roce_qp_type)c.qp_type;
	ia.send_cq = roce_cq_get(x->r->dev, le32(c.send_cqn));
	ia.recv_cq = roce_cq_get(x->r->dev, le32(c.recv_cqn));
	if (ia.send_cq == NULL || ia.recv_cq == NULL)
		return refuse(x, "CREATE_QP: no CQ %u or %u", le32(c.send_cqn), le32(c.recv_cqn));
	ia.sq_sig_all = c.sq_sig_all != 0;
	cap_from(&ia.cap, &c.cap);
	qp = roce_qp_create(pd, &ia);
	if (qp == NULL)
		return refuse_roce(x, "CREATE_QP");
	mtu_said_clear(x->r, roce_qp_num(qp));
	put_handle(x, roce_qp_num(qp));
	return 0;
}

static void
qp_stale_set(struct vrdma_rdma *r, uint32_t qpn)
{
	if (qpn < 64 * VRDMA_QP_STALE_WORDS)
		r->qp_stale[qpn / 64] |= 1ull << (qpn % 64);
}

static int
modify_qp(struct cmd_ctx *x)
{
	struct vrdma_cmd_modify_qp c;
	struct roce_qp_attr a = { 0 };
	struct roce_qp *qp;
	uint8_t asked = 0;
	uint32_t mask;

	memcpy(&c, x->data, sizeof(c));
	qp = roce_qp_get(x->r->dev, le32(c.qpn));
	if (qp == NULL)
		return refuse(x, "MODIFY_QP: no QP %u", le32(c.qpn));
	mask = le32(c.attr_mask);
	if (mask & ~VRDMA_QP_ATTR_MASK_ALL)
		return refuse(x, "MODIFY_QP: attribute mask 0x%x has bits past RATE_LIMIT", mask);
	if (c.qp_state > ROCE_QPS_ERR || c.cur_qp_state > ROCE_QPS_ERR)
		return refuse(x, "MODIFY_QP: state %u / %u unknown", c.qp_state, c.cur_qp_state);
	a.qp_state = (enum roce_qp_state)c.qp_state;
	a.cur_qp_state = (enum roce_qp_state)c.cur_qp_state;
	a.path_mtu = c.path_mtu;
	a.max_rd_atomic = c.max_rd_atomic;
	a.max_dest_rd_atomic = c.max_dest_rd_atomic;
	a.min_rnr_timer = c.min_rnr_timer;
	a.timeout = c.timeout;
	a.retry_cnt = c.retry_cnt;
	a.rnr_retry = c.rnr_retry;
	a.port_num = 1;
	a.qkey = le32(c.a.qkey);
	a.rq_psn = le32(c.a.rq_psn);
	a.sq_psn = le32(c.a.sq_psn);
	a.dest_qp_num = le32(c.a.dest_qp_num);
	a.qp_access_flags = le32(c.a.qp_access_flags);
	a.rate_limit = le32(c.a.rate_limit);
	cap_from(&a.cap, &c.a.cap);
	ah_from(&a.ah_attr, &c.a.ah_attr, x->r->vlan_id);
	/*
	 * A path MTU the wire cannot carry now is clamped, not refused: the
	 * guest sized it from the virtio-net MTU, which the wire's (a vesw's
	 * eth_mtu) may undercut. Codes that are no IB MTU stay lib/roce's to
	 * refuse.
	 */
	if ((mask & ROCE_QP_PATH_MTU) && a.path_mtu <= ROCE_MTU_4096 &&
	    a.path_mtu > roce_dev_active_mtu(x->r->dev)) {
		asked = a.path_mtu;
		a.path_mtu = (uint8_t)roce_dev_active_mtu(x->r->dev);
	}
	/* lib/roce applies all or nothing (IBA transition rules) */
	if (roce_qp_modify(qp, &a, mask) != 0)
		return refuse_roce(x, "MODIFY_QP");
	if (asked != 0) {
		x->r->path_mtu_clamped++;
		if (!mtu_said(x->r, le32(c.qpn)))
			snprintf(x->r->note, sizeof(x->r->note), "QP %u: path MTU %u clamped to "
				 "%u, the most the wire's MTU (Ethernet MTU %u) carries",
				 le32(c.qpn), 128u << asked, 128u << a.path_mtu, x->r->eth_mtu);
	}
	/* RESET discards outstanding work: so do requests still waiting in the rings */
	if ((mask & ROCE_QP_STATE) && a.qp_state == ROCE_QPS_RESET)
		qp_stale_set(x->r, le32(c.qpn));
	return 0;
}

static int
query_qp(struct cmd_ctx *x)
{
	struct vrdma_cmd_query_qp c;
	struct vrdma_ack_query_qp q;
	struct roce_qp_init_attr ia;
	struct roce_qp_attr a;
	struct roce_qp *qp;

	memcpy(&c, x->data, sizeof(c));
	qp = roce_qp_get(x->r->dev, le32(c.qpn));
	if (qp == NULL)
		return refuse(x, "QUERY_QP: no QP %u", le32(c.qpn));
	roce_qp_query(qp, &a, &ia);
	/* every attribute is answered, whatever attr_mask asks (as rxe) */
	memset(&q, 0, sizeof(q));
	q.qp_state = (uint8_t)a.qp_state;
	q.path_mtu = a.path_mtu;
	q.sq_draining = a.sq_draining;
	q.max_rd_atomic = a.max_rd_atomic;
	q.max_dest_rd_atomic = a.max_dest_rd_atomic;
	q.min_rnr_timer = a.min_rnr_timer;
	q.timeout = a.timeout;
	q.retry_cnt = a.retry_cnt;
	q.rnr_retry = a.rnr_retry;
	q.a.qkey = rte_cpu_to_le_32(a.qkey);
	q.a.rq_psn = rte_cpu_to_le_32(a.rq_psn);
	q.a.sq_psn = rte_cpu_to_le_32(a.sq_psn);
	q.a.dest_qp_num = rte_cpu_to_le_32(a.dest_qp_num);
	q.a.qp_access_flags = rte_cpu_to_le_32(a.qp_access_flags);
	q.a.rate_limit = rte_cpu_to_le_32(a.rate_limit);
	cap_to(&q.a.cap, &ia.cap);
	ah_to(&q.a.ah_attr, &a.ah_attr);
	memcpy(x->ack, &q, sizeof(q));
	x->ack_len = sizeof(q);
	return 0;
}

static int
destroy_qp(struct cmd_ctx *x)
{
	struct vrdma_cmd_handle c;
	struct roce_qp *qp;

	memcpy(&c, x->data, sizeof(c));
	qp = roce_qp_get(x->r->dev, le32(c.handle));
	if (qp == NULL)
		return refuse(x, "DESTROY_QP: no QP %u", le32(c.handle));
	roce_qp_destroy(qp);
	qp_stale_set(x->r, le32(c.handle));
	mtu_said_clear(x->r, le32(c.handle));
	return 0;
}

static int
create_ah(struct cmd_ctx *x)
{
	struct vrdma_cmd_create_ah c;
	struct roce_ah_attr a;
	struct roce_pd *pd;
	struct roce_ah *ah;

	memcpy(&c, x->data, sizeof(c));
	pd = pd_of(x, le32(c.pdn));
	if (pd == NULL)
		return refuse(x, "CREATE_AH: no PD %u", le32(c.pdn));
	ah_from(&a, &c.ah_attr, x->r->vlan_id);
	ah = roce_ah_create(pd, &a);
	if (ah == NULL)
		return refuse_roce(x, "CREATE_AH");
	x->r->ah_pd[roce_ah_handle(ah)] = roce_pd_handle(pd);
	put_handle(x, roce_ah_handle(ah));
	return 0;
}

static int
destroy_ah(struct cmd_ctx *x)
{
	struct vrdma_cmd_destroy_ah c;
	struct roce_ah *ah;
	uint32_t h;

	memcpy(&c, x->data, sizeof(c));
	h = le32(c.ah);
	ah = roce_ah_get(x->r->dev, h);
	if (ah == NULL || h > LIM_AH || x->r->ah_pd[h] != le32(c.pdn))
		return refuse(x, "DESTROY_AH: no AH %u in PD %u", h, le32(c.pdn));
	roce_ah_destroy(ah);
	x->r->ah_pd[h] = 0;
	return 0;
}

static int
add_gid(struct cmd_ctx *x)
{
	struct vrdma_cmd_add_gid c;

	memcpy(&c, x->data, sizeof(c));
	if (roce_gid_set(x->r->dev, rte_le_to_cpu_16(c.index), c.gid) != 0)
		return refuse_roce(x, "ADD_GID");
	return 0;
}

static int
del_gid(struct cmd_ctx *x)
{
	struct vrdma_cmd_del_gid c;

	memcpy(&c, x->data, sizeof(c));
	if (roce_gid_del(x->r->dev, rte_le_to_cpu_16(c.index)) != 0)
		return refuse(x, "DEL_GID: no GID at %u", rte_le_to_cpu_16(c.index));
	return 0;
}

static int
req_notify_cq(struct cmd_ctx *x)
{
	struct vrdma_cmd_req_notify c;
	struct roce_cq *cq;

	memcpy(&c, x->data, sizeof(c));
	cq = roce_cq_get(x->r->dev, le32(c.cqn));
	if (cq == NULL)
		return refuse(x, "REQ_NOTIFY_CQ: no CQ %u", le32(c.cqn));
	if (le32(c.flags) == 0 ||
	    (le32(c.flags) & ~(uint32_t)(ROCE_CQ_SOLICITED | ROCE_CQ_NEXT_COMPLETION)))
		return refuse(x, "REQ_NOTIFY_CQ: flags 0x%x", le32(c.flags));
	/*
	 * Completions lib/roce holds have not reached the guest's ring: the
	 * guest cannot have seen them before arming, so it is signalled when
	 * they do (a wakeup verbs allow; missing it would strand the guest).
	 * SOLICITED is honoured the same way: whether those were solicited is
	 * not kept, and an early wakeup is allowed.
	 */
	if (roce_cq_pending(cq) > 0) {
		x->r->cq_owed[le32(c.cqn)] = roce_cq_pending(cq);
		return 0;
	}
	if (roce_cq_arm(cq, le32(c.flags)) != 0)
		return refuse_roce(x, "REQ_NOTIFY_CQ");
	return 0;
}

struct cmd_desc {
	const char *name;
	uint32_t in_len;    /* command-specific bytes (REG_USER_MR: its head) */
	uint32_t ack_len;   /* ack-specific bytes the driver must leave room for */
	int (*run)(struct cmd_ctx *x);
};

static const struct cmd_desc cmds[VRDMA_CMD_COUNT] = {
	[VRDMA_CMD_QUERY_DEVICE] = { "QUERY_DEVICE", 0,
		sizeof(struct vrdma_ack_query_device), query_device },
	[VRDMA_CMD_QUERY_PORT] = { "QUERY_PORT", 0, sizeof(struct vrdma_ack_query_port),
		query_port },
	[VRDMA_CMD_CREATE_CQ] = { "CREATE_CQ", sizeof(struct vrdma_cmd_create_cq),
		sizeof(struct vrdma_ack_handle), create_cq },
	[VRDMA_CMD_DESTROY_CQ] = { "DESTROY_CQ", sizeof(struct vrdma_cmd_handle), 0, destroy_cq },
	[VRDMA_CMD_CREATE_PD] = { "CREATE_PD", 0, sizeof(struct vrdma_ack_handle), create_pd },
	[VRDMA_CMD_DESTROY_PD] = { "DESTROY_PD", sizeof(struct vrdma_cmd_handle), 0, destroy_pd },
	[VRDMA_CMD_GET_DMA_MR] = { "GET_DMA_MR", sizeof(struct vrdma_cmd_get_dma_mr),
		sizeof(struct vrdma_ack_mr), get_dma_mr },
	[VRDMA_CMD_REG_USER_MR] = { "REG_USER_MR", sizeof(struct vrdma_cmd_reg_user_mr),
		sizeof(struct vrdma_ack_mr), reg_user_mr },
	[VRDMA_CMD_DEREG_MR] = { "DEREG_MR", sizeof(struct vrdma_cmd_handle), 0, dereg_mr },
	[VRDMA_CMD_CREATE_QP] = { "CREATE_QP", sizeof(struct vrdma_cmd_create_qp),
		sizeof(struct vrdma_ack_handle), create_qp },
	[VRDMA_CMD_MODIFY_QP] = { "MODIFY_QP", sizeof(struct vrdma_cmd_modify_qp), 0, modify_qp },
	[VRDMA_CMD_QUERY_QP] = { "QUERY_QP", sizeof(struct vrdma_cmd_query_qp),
		sizeof(struct vrdma_ack_query_qp), query_qp },
	[VRDMA_CMD_DESTROY_QP] = { "DESTROY_QP", sizeof(struct vrdma_cmd_handle), 0, destroy_qp },
	[VRDMA_CMD_CREATE_AH] = { "CREATE_AH", sizeof(struct vrdma_cmd_create_ah),
		sizeof(struct vrdma_ack_handle), create_ah },
	[VRDMA_CMD_DESTROY_AH] = { "DESTROY_AH", sizeof(struct vrdma_cmd_destroy_ah), 0,
		destroy_ah },
	[VRDMA_CMD_ADD_GID] = { "ADD_GID", sizeof(struct vrdma_cmd_add_gid), 0, add_gid },
	[VRDMA_CMD_DEL_GID] = { "DEL_GID", sizeof(struct vrdma_cmd_del_gid), 0, del_gid },
	[VRDMA_CMD_REQ_NOTIFY_CQ] = { "REQ_NOTIFY_CQ", sizeof(struct vrdma_cmd_req_notify), 0,
		req_notify_cq },
};

/* The exact size of a command's data, or refusal. */
static int
size_ok(struct cmd_ctx *x, uint8_t code, const struct cmd_desc *d)
{
	uint32_t want = d->in_len;

	if (code == VRDMA_CMD_REG_USER_MR && x->len >= d->in_len) {
		uint32_t np;

		memcpy(&np, x->data + offsetof(struct vrdma_cmd_reg_user_mr, npages), sizeof(np));
		np = le32(np);
		if (np > VRDMA_MAX_MR_PAGES)
			return refuse(x, "REG_USER_MR: %u pages (at most %u)", np, VRDMA_MAX_MR_PAGES);
		want += 8 * np;
	}
	if (x->len != want)
		return refuse(x, "%s: %u bytes of command data, %u expected", d->name, x->len, want);
	return 0;
}

uint32_t
vrdma_cmd_exec(struct vrdma_rdma *r, const uint8_t *in, uint32_t inlen, uint8_t *out,
	       uint32_t outcap)
{
	uint8_t ack[sizeof(struct vrdma_ack_query_device)];
	struct cmd_ctx x = { .r = r, .ack = ack };
	const struct cmd_desc *d = NULL;
	int rc = -1;

	if (outcap == 0)
		return 0;
	r->why[0] = '\0';
	r->note[0] = '\0';
	if (inlen < sizeof(struct vrdma_ctrl_hdr)) {
		refuse(&x, "control buffer of %u bytes has no command", inlen);
		goto done;
	}
	x.data = in + sizeof(struct vrdma_ctrl_hdr);
	x.len = inlen - sizeof(struct vrdma_ctrl_hdr);
	if (in[1] >= VRDMA_CMD_COUNT) {
		refuse(&x, "command %u unknown", in[1]);
		goto done;
	}
	d = &cmds[in[1]];
	/* refused before anything changes: the answer must fit */
	if (outcap < 1 + d->ack_len)
		refuse(&x, "%s: %u writable bytes, %u needed", d->name, outcap, 1 + d->ack_len);
	else if (size_ok(&x, in[1], d) == 0)
		rc = d->run(&x);
done:
	if (rc == 0) {
		out[0] = VRDMA_NET_OK;
		memcpy(out + 1, ack, x.ack_len);
		return 1 + x.ack_len;
	}
	out[0] = VRDMA_NET_ERR;
	return 1;
}
