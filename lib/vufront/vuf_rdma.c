/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* The guest driver of the RFC's RoCE queues (see vuf_rdma.h). */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <endian.h>

#include "vuf_rdma.h"

#define F_VERSION_1 32
#define F_CTRL_VQ 17
#define F_MRG_RXBUF 15
#define RX_RING 0
#define TX_RING 1
#define NET_RING_MAX 256u
#define ETH_HDR 14
#define ETH_VLAN_FCSLESS 18 /* an Ethernet header and one VLAN tag past the MTU */
#define CTRL_RING 2
#define FIRST_CQ_RING 3
#define CONFIG_MAC 0
#define CONFIG_MTU 10
#define CONFIG_MAX_QPS 24
#define CONFIG_MAX_CQS 28
#define PAGE 4096u
#define MAX_SGE 32
/* used elements taken back per read of a ring's used index */
#define POLL_BURST 32
#define CQ_RING_MAX 4096u
#define CTRL_OUT_MAX (2u + 32u + 8u * 4096u) /* REG_USER_MR of 16 MiB at most */

/*
 * A send or receive queue: request buffer i belongs to descriptor i, so the
 * ring's free list of descriptors is also that of the buffers.
 */
struct wq {
	struct vuf_vq vq;
	bool up;
	uint8_t *reqs;      /* entries x slot bytes */
	uint32_t slot;
};

struct cq {
	struct vuf_vq vq;
	bool up;
	struct vrdma_cq_req *bufs;
};

/* receiveq1 and transmitq1: the guest's Ethernet frames */
struct net {
	bool up;
	uint32_t hdr_len;   /* virtio_net_hdr as negotiated: 12, or 10 (legacy, no MRG_RXBUF) */
	struct vuf_vq rx;
	uint8_t *rx_bufs;   /* rx.size buffers of rx_slot bytes, each always in flight */
	uint32_t rx_slot;
	struct wq tx;       /* transmit buffer i belongs to descriptor i, as a send queue's */
	struct vuf_rdma_net_stats st;
};

struct vuf_rdma {
	struct vuf_rdma_conf conf;
	uint64_t features;            /* negotiated */
	struct vuf_conn *c;
	struct vuf_mem *mem;
	struct vuf_vq ctrl;
	uint8_t *ctrl_out;
	uint8_t *ctrl_in;
	uint32_t max_qps, max_cqs;
	uint8_t mac[6];               /* configuration space: mac */
	uint16_t mtu;                 /* configuration space: mtu */
	struct cq *cqs;   /* by CQ number */
	struct wq *sqs;   /* by QPN */
	struct wq *rqs;
	struct net net;
};

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static uint16_t
ring_size(uint32_t n, uint32_t max)
{
	uint32_t s = 1;

	while (s < n && s < max)
		s <<= 1;
	return (uint16_t)s;
}

struct vuf_rdma *
vuf_rdma_open(const struct vuf_rdma_conf *conf, char *err, size_t errlen)
{
	uint64_t f = (1ull << F_VERSION_1) | (1ull << VUF_F_PROTOCOL_FEATURES) |
		     (1ull << F_CTRL_VQ) | (1ull << conf->roce_bit);
	struct vuf_rdma *d = calloc(1, sizeof(*d));
	uint32_t v[2];
	int rc;

	if (d == NULL) {
		snprintf(err, errlen, "no memory");
		return NULL;
	}
	d->conf = *conf;
	d->features = f;
	d->c = vuf_connect(conf->path, conf->timeout_ms);
	if (d->c == NULL) {
		snprintf(err, errlen, "cannot connect to %s: %s", conf->path, strerror(errno));
		free(d);
		return NULL;
	}
	d->mem = vuf_mem_create(conf->mem_size, conf->gpa_base);
	if (d->mem == NULL) {
		snprintf(err, errlen, "no guest memory of %zu bytes", conf->mem_size);
		goto fail;
	}
	rc = vuf_set_protocol_features(d->c, (1ull << VUF_PROTOCOL_F_REPLY_ACK) |
				       (1ull << VUF_PROTOCOL_F_CONFIG));
	if (rc == 0)
		rc = vuf_set_owner(d->c);
	if (rc == 0)
		rc = vuf_set_features(d->c, f);
	if (rc == 0)
		rc = vuf_set_mem_table(d->c, d->mem);
	if (rc == 0)
		rc = vuf_get_config(d->c, CONFIG_MAX_QPS, v, sizeof(v));
	if (rc == 0)
		rc = vuf_get_config(d->c, CONFIG_MAC, d->mac, sizeof(d->mac));
	if (rc == 0)
		rc = vuf_get_config(d->c, CONFIG_MTU, &d->mtu, sizeof(d->mtu));
	if (rc != 0) {
		snprintf(err, errlen, "negotiation failed: %s", strerror(-rc));
		goto fail;
	}
	d->mtu = le16toh(d->mtu);
	d->max_qps = le32toh(v[0]);
	d->max_cqs = le32toh(v[1]);
	if (d->max_qps > 256 || d->max_cqs > 256) {
		snprintf(err, errlen, "device reports %u QPs, %u CQs", d->max_qps, d->max_cqs);
		goto fail;
	}
	d->cqs = calloc(d->max_cqs + 1, sizeof(*d->cqs));
	d->sqs = calloc(d->max_qps + 1, sizeof(*d->sqs));
	d->rqs = calloc(d->max_qps + 1, sizeof(*d->rqs));
	d->ctrl_out = vuf_mem_alloc(d->mem, CTRL_OUT_MAX, 64);
	d->ctrl_in = vuf_mem_alloc(d->mem, 256, 64);
	if (d->cqs == NULL || d->sqs == NULL || d->rqs == NULL || d->ctrl_out == NULL ||
	    d->ctrl_in == NULL) {
		snprintf(err, errlen, "no memory for the queues");
		goto fail;
	}
	rc = vuf_vq_init(&d->ctrl, d->mem, CTRL_RING, 64);
	if (rc == 0)
		rc = vuf_vq_start(d->c, &d->ctrl, true);
	if (rc != 0) {
		snprintf(err, errlen, "control queue: %s", strerror(-rc));
		goto fail;
	}
	return d;
fail:
	vuf_rdma_close(d);
	return NULL;
}

static void
wq_fini(struct wq *w)
{
	if (w->up)
		vuf_vq_fini(&w->vq);
	memset(w, 0, sizeof(*w));
}

void
vuf_rdma_close(struct vuf_rdma *d)
{
	uint32_t i;

	if (d == NULL)
		return;
	vuf_close(d->c);
	if (d->net.up) {
		vuf_vq_fini(&d->net.rx);
		wq_fini(&d->net.tx);
	}
	if (d->ctrl.size != 0)
		vuf_vq_fini(&d->ctrl);
	for (i = 0; d->cqs != NULL && i < d->max_cqs; i++)
		if (d->cqs[i].up)
			vuf_vq_fini(&d->cqs[i].vq);
	for (i = 0; d->sqs != NULL && d->rqs != NULL && i < d->max_qps; i++) {
		wq_fini(&d->sqs[i]);
		wq_fini(&d->rqs[i]);
	}
	free(d->cqs);
	free(d->sqs);
	free(d->rqs);
	vuf_mem_destroy(d->mem);
	free(d);
}

struct vuf_mem *
vuf_rdma_mem(struct vuf_rdma *d)
{
	return d->mem;
}

void
vuf_rdma_limits(const struct vuf_rdma *d, uint32_t *max_qps, uint32_t *max_cqs)
{
	*max_qps = d->max_qps;
	*max_cqs = d->max_cqs;
}

void
vuf_rdma_addr(const struct vuf_rdma *d, uint8_t mac[6], uint16_t *mtu)
{
	memcpy(mac, d->mac, 6);
	*mtu = d->mtu;
}

uint64_t
vuf_rdma_gpa(const struct vuf_rdma *d, const void *va)
{
	return vuf_mem_gpa(d->mem, va);
}

void
vuf_rdma_set_poll(struct vuf_rdma *d, void (*poll)(void *arg), void *arg)
{
	d->conf.poll = poll;
	d->conf.poll_arg = arg;
}

struct vuf_vq *
vuf_rdma_ring(struct vuf_rdma *d, uint32_t index)
{
	uint32_t sq0 = FIRST_CQ_RING + d->max_cqs;

	if (index == CTRL_RING)
		return &d->ctrl;
	if (index == RX_RING || index == TX_RING)
		return !d->net.up ? NULL : index == RX_RING ? &d->net.rx : &d->net.tx.vq;
	if (index >= FIRST_CQ_RING && index < sq0)
		return d->cqs[index - FIRST_CQ_RING].up ? &d->cqs[index - FIRST_CQ_RING].vq : NULL;
	if (index >= sq0 && index < sq0 + 2 * d->max_qps) {
		struct wq *w = (index - sq0) % 2 ? &d->rqs[(index - sq0) / 2] :
			&d->sqs[(index - sq0) / 2];

		return w->up ? &w->vq : NULL;
	}
	return NULL;
}

/* Wait for the chain in flight on @p vq to come back. @return 1, 0 (timeout) or < 0. */
static int
wait_used(struct vuf_rdma *d, struct vuf_vq *vq, uint32_t *len)
{
	uint64_t end = now_ms() + d->conf.timeout_ms;
	void *cookie;
	int rc;

	for (;;) {
		if (d->conf.poll != NULL)
			d->conf.poll(d->conf.poll_arg);
		rc = vuf_vq_get_used(vq, &cookie, len);
		if (rc != 0)
			return rc;
		if (now_ms() > end)
			return 0;
		if (d->conf.poll == NULL)
			usleep(20);
	}
}

int
vuf_rdma_cmd(struct vuf_rdma *d, uint8_t cmd, const void *data, uint32_t len, void *ack,
	     uint32_t acklen)
{
	struct vuf_buf out = { d->ctrl_out, 2 + len }, in = { d->ctrl_in, 1 + acklen };
	uint32_t used;
	int rc;

	if (len > CTRL_OUT_MAX - 2 || acklen > 255)
		return -EINVAL;
	d->ctrl_out[0] = d->conf.ctrl_class;
	d->ctrl_out[1] = cmd;
	if (len > 0)
		memcpy(d->ctrl_out + 2, data, len);
	d->ctrl_in[0] = 0xff;
	rc = vuf_vq_add(&d->ctrl, &out, 1, &in, 1, d);
	if (rc != 0)
		return rc;
	vuf_vq_kick(&d->ctrl);
	rc = wait_used(d, &d->ctrl, &used);
	if (rc == 0)
		return -ETIMEDOUT;
	if (rc < 0)
		return rc;
	if (used < 1 || d->ctrl_in[0] != VRDMA_NET_OK)
		return -EIO;
	if (used < 1 + acklen)
		return -EPROTO;
	if (acklen > 0)
		memcpy(ack, d->ctrl_in + 1, acklen);
	return 0;
}

static int
cmd_handle(struct vuf_rdma *d, uint8_t cmd, const void *data, uint32_t len, uint32_t *h)
{
	struct vrdma_ack_handle a;
	int rc = vuf_rdma_cmd(d, cmd, data, len, &a, sizeof(a));

	if (rc == 0)
		*h = le32toh(a.handle);
	return rc;
}

int
vuf_rdma_create_pd(struct vuf_rdma *d, uint32_t *pdn)
{
	return cmd_handle(d, VRDMA_CMD_CREATE_PD, NULL, 0, pdn);
}

/* Stop ring @p vq (the driver resets a destroyed object's rings). */
static void
ring_stop(struct vuf_rdma *d, struct vuf_vq *vq)
{
	uint32_t base;

	vuf_get_vring_base(d->c, vq->index, &base);
}

int
vuf_rdma_create_cq(struct vuf_rdma *d, uint32_t cqe, uint32_t *cqn)
{
	struct vrdma_cmd_create_cq c = { .cqe = htole32(cqe) };
	uint16_t n = ring_size(cqe, CQ_RING_MAX), i;
	struct cq *q;
	int rc;

	rc = cmd_handle(d, VRDMA_CMD_CREATE_CQ, &c, sizeof(c), cqn);
	if (rc != 0)
		return rc;
	if (*cqn >= d->max_cqs || d->cqs[*cqn].up)
		return -EPROTO;
	q = &d->cqs[*cqn];
	q->bufs = vuf_mem_alloc(d->mem, (size_t)n * sizeof(*q->bufs), 64);
	if (q->bufs == NULL)
		return -ENOMEM;
	rc = vuf_vq_init(&q->vq, d->mem, FIRST_CQ_RING + *cqn, n);
	if (rc != 0)
		return rc;
	for (i = 0; i < n; i++) {
		struct vuf_buf b = { &q->bufs[i], sizeof(q->bufs[i]) };

		vuf_vq_add(&q->vq, NULL, 0, &b, 1, &q->bufs[i]);
	}
	rc = vuf_vq_start(d->c, &q->vq, true);
	if (rc != 0) {
		vuf_vq_fini(&q->vq);
		return rc;
	}
	q->up = true;
	return 0;
}

int
vuf_rdma_destroy_cq(struct vuf_rdma *d, uint32_t cqn)
{
	struct vrdma_cmd_handle c = { .handle = htole32(cqn) };
	int rc = vuf_rdma_cmd(d, VRDMA_CMD_DESTROY_CQ, &c, sizeof(c), NULL, 0);

	if (rc == 0 && cqn < d->max_cqs && d->cqs[cqn].up) {
		ring_stop(d, &d->cqs[cqn].vq);
		vuf_vq_fini(&d->cqs[cqn].vq);
		d->cqs[cqn].up = false;
	}
	return rc;
}

int
vuf_rdma_reg_mr(struct vuf_rdma *d, uint32_t pdn, void *addr, uint64_t len, uint32_t access,
		uint32_t *lkey, uint32_t *rkey)
{
	uint64_t gpa = vuf_mem_gpa(d->mem, addr), first = gpa & ~(uint64_t)(PAGE - 1);
	uint64_t npages = (gpa + len - first + PAGE - 1) / PAGE, i;
	struct vrdma_cmd_reg_user_mr *c;
	struct vrdma_ack_mr a;
	size_t size;
	int rc;

	if (len == 0 || gpa == 0 || npages > 4096)
		return -EINVAL;
	size = sizeof(*c) + npages * sizeof(uint64_t);
	c = calloc(1, size);
	if (c == NULL)
		return -ENOMEM;
	c->pdn = htole32(pdn);
	c->access_flags = htole32(access);
	c->virt_addr = htole64(gpa);
	c->length = htole64(len);
	c->npages = htole32((uint32_t)npages);
	for (i = 0; i < npages; i++)
		c->pages[i] = htole64(first + i * PAGE);
	rc = vuf_rdma_cmd(d, VRDMA_CMD_REG_USER_MR, c, (uint32_t)size, &a, sizeof(a));
	free(c);
	if (rc == 0) {
		*lkey = le32toh(a.lkey);
		*rkey = le32toh(a.rkey);
	}
	return rc;
}

static int
wq_up(struct vuf_rdma *d, struct wq *w, uint32_t index, uint32_t entries, uint32_t slot)
{
	uint16_t n = ring_size(entries, 32768);
	int rc;

	w->slot = slot;
	w->reqs = vuf_mem_alloc(d->mem, (size_t)n * slot, 64);
	if (w->reqs == NULL)
		return -ENOMEM;
	rc = vuf_vq_init(&w->vq, d->mem, index, n);
	if (rc != 0)
		return rc;
	/* the driver takes back request buffers as it posts: no calls needed */
	vuf_vq_set_interrupts(&w->vq, false);
	rc = vuf_vq_start(d->c, &w->vq, true);
	if (rc != 0) {
		vuf_vq_fini(&w->vq);
		return rc;
	}
	w->up = true;
	return 0;
}

int
vuf_rdma_create_qp(struct vuf_rdma *d, const struct vrdma_cmd_create_qp *c, uint32_t *qpn)
{
	uint32_t sq = FIRST_CQ_RING + d->max_cqs, rc;

	rc = (uint32_t)cmd_handle(d, VRDMA_CMD_CREATE_QP, c, sizeof(*c), qpn);
	if (rc != 0)
		return (int)rc;
	if (*qpn >= d->max_qps || d->sqs[*qpn].up)
		return -EPROTO;
	sq += 2 * *qpn;
	rc = (uint32_t)wq_up(d, &d->sqs[*qpn], sq, le32toh(c->cap.max_send_wr),
			     sizeof(struct vrdma_sq_req) + MAX_SGE * sizeof(struct vrdma_sge));
	if (rc == 0)
		rc = (uint32_t)wq_up(d, &d->rqs[*qpn], sq + 1, le32toh(c->cap.max_recv_wr),
				     sizeof(struct vrdma_rq_req) + MAX_SGE *
				     sizeof(struct vrdma_sge));
	return (int)rc;
}

int
vuf_rdma_modify_qp(struct vuf_rdma *d, const struct vrdma_cmd_modify_qp *m)
{
	return vuf_rdma_cmd(d, VRDMA_CMD_MODIFY_QP, m, sizeof(*m), NULL, 0);
}

int
vuf_rdma_query_qp(struct vuf_rdma *d, uint32_t qpn, struct vrdma_ack_query_qp *a)
{
	struct vrdma_cmd_query_qp q = { .qpn = htole32(qpn), .attr_mask = htole32(~0u) };

	return vuf_rdma_cmd(d, VRDMA_CMD_QUERY_QP, &q, sizeof(q), a, sizeof(*a));
}

int
vuf_rdma_destroy_qp(struct vuf_rdma *d, uint32_t qpn)
{
	struct vrdma_cmd_handle c = { .handle = htole32(qpn) };
	int rc = vuf_rdma_cmd(d, VRDMA_CMD_DESTROY_QP, &c, sizeof(c), NULL, 0);

	if (rc == 0 && qpn < d->max_qps) {
		if (d->sqs[qpn].up)
			ring_stop(d, &d->sqs[qpn].vq);
		if (d->rqs[qpn].up)
			ring_stop(d, &d->rqs[qpn].vq);
		wq_fini(&d->sqs[qpn]);
		wq_fini(&d->rqs[qpn]);
	}
	return rc;
}

/* Take back the descriptors (and so the request buffers) the device is done with. */
static void
wq_reclaim(struct wq *w)
{
	void *cookies[POLL_BURST];
	uint32_t lens[POLL_BURST];

	while (vuf_vq_get_used_burst(&w->vq, cookies, lens, POLL_BURST) > 0)
		;
}

/*
 * The request buffer of the descriptor the next request takes, for @p len
 * bytes. Used descriptors are taken back once per list (the caller) and
 * again here only when none is free.
 */
static int
wq_take(struct vuf_rdma *d, struct wq *w, uint32_t len, uint8_t **slot)
{
	if (!w->up || len > w->slot)
		return -EINVAL;
	if (w->vq.num_free == 0) {
		wq_reclaim(w);
		if (w->vq.num_free == 0 && d->conf.poll != NULL) {
			d->conf.poll(d->conf.poll_arg);
			wq_reclaim(w);
		}
		if (w->vq.num_free == 0)
			return -ENOSPC;
	}
	*slot = w->reqs + (size_t)w->vq.free_head * w->slot;
	return 0;
}

/* Make the filled @p slot available to the device (it takes that descriptor); the caller kicks. */
static int
wq_give(struct wq *w, uint8_t *slot, uint32_t len)
{
	struct vuf_buf b = { slot, len };

	return vuf_vq_add(&w->vq, &b, 1, NULL, 0, slot);
}

static int
send_one(struct vuf_rdma *d, uint32_t qpn, const struct vrdma_sq_req *req,
	 const struct vrdma_sge *sg)
{
	const size_t head = offsetof(struct vrdma_sq_req, inline_data);
	const size_t tail = offsetof(struct vrdma_sq_req, num_sge);
	bool inl = (req->send_flags & VRDMA_SEND_INLINE) != 0;
	uint32_t n = inl ? 0 : le32toh(req->num_sge);
	struct wq *w = &d->sqs[qpn];
	uint8_t *slot;
	int rc;

	if (n > MAX_SGE || (inl && le16toh(req->inline_len) > sizeof(req->inline_data)))
		return -EINVAL;
	rc = wq_take(d, w, sizeof(*req) + n * sizeof(*sg), &slot);
	if (rc != 0)
		return rc;
	memcpy(slot, req, head);
	if (inl)
		memcpy(slot + head, req->inline_data, le16toh(req->inline_len));
	memcpy(slot + tail, (const uint8_t *)req + tail, sizeof(*req) - tail);
	if (n > 0)
		memcpy(slot + sizeof(*req), sg, n * sizeof(*sg));
	return wq_give(w, slot, sizeof(*req) + n * sizeof(*sg));
}

int
vuf_rdma_post_send(struct vuf_rdma *d, uint32_t qpn, const struct vrdma_sq_req *req,
		   const struct vrdma_sge *sg)
{
	unsigned int done;

	return vuf_rdma_post_send_list(d, qpn, &req, &sg, 1, &done);
}

int
vuf_rdma_post_send_list(struct vuf_rdma *d, uint32_t qpn, const struct vrdma_sq_req *const *reqs,
			const struct vrdma_sge *const *sgs, unsigned int n, unsigned int *done)
{
	int rc = 0;

	*done = 0;
	if (qpn >= d->max_qps || !d->sqs[qpn].up)
		return -EINVAL;
	wq_reclaim(&d->sqs[qpn]);
	while (*done < n && (rc = send_one(d, qpn, reqs[*done], sgs[*done])) == 0)
		(*done)++;
	/* one notification for the list (virtio's batching) */
	if (*done > 0)
		vuf_vq_kick(&d->sqs[qpn].vq);
	return rc;
}

int
vuf_rdma_post_recv(struct vuf_rdma *d, uint32_t qpn, uint64_t wr_id, const struct vrdma_sge *sg,
		   uint32_t n)
{
	unsigned int done;

	if (n > MAX_SGE)
		return -EINVAL;
	return vuf_rdma_post_recv_list(d, qpn, &wr_id, sg, n, 1, &done);
}

int
vuf_rdma_post_recv_list(struct vuf_rdma *d, uint32_t qpn, const uint64_t *wr_ids,
			const struct vrdma_sge *sg, uint32_t nsge, unsigned int n,
			unsigned int *done)
{
	int rc = 0;

	*done = 0;
	if (qpn >= d->max_qps || !d->rqs[qpn].up || nsge > MAX_SGE)
		return -EINVAL;
	wq_reclaim(&d->rqs[qpn]);
	while (*done < n) {
		const uint32_t len = sizeof(struct vrdma_rq_req) + nsge * sizeof(*sg);
		struct wq *w = &d->rqs[qpn];
		struct vrdma_rq_req *q;
		uint8_t *slot;

		rc = wq_take(d, w, len, &slot);
		if (rc != 0)
			break;
		/* written in place: a copy through the stack costs more than the request */
		q = (struct vrdma_rq_req *)slot;
		q->wr_id = htole64(wr_ids[*done]);
		q->num_sge = htole32(nsge);
		memset(q->reserved, 0, sizeof(q->reserved));
		if (nsge != 0) /* a receive with no buffer may come with no SGE array at all */
			memcpy(slot + sizeof(*q), sg + (size_t)*done * nsge, nsge * sizeof(*sg));
		rc = wq_give(w, slot, len);
		if (rc != 0)
			break;
		(*done)++;
	}
	if (*done > 0)
		vuf_vq_kick(&d->rqs[qpn].vq);
	return rc;
}

int
vuf_rdma_poll_cq(struct vuf_rdma *d, uint32_t cqn, struct vrdma_cq_req *wc, int n)
{
	void *cookie[POLL_BURST];
	uint32_t len[POLL_BURST];
	bool back = false;
	struct cq *q;
	int got = 0;

	if (cqn >= d->max_cqs || !d->cqs[cqn].up)
		return -EINVAL;
	q = &d->cqs[cqn];
	while (got < n) {
		/* the buffers go back as they were (an empty one was refused by the device) */
		int k, i = vuf_vq_recycle_burst(&q->vq, cookie, len, n - got < POLL_BURST ?
						(unsigned int)(n - got) : POLL_BURST);

		if (i < 0)
			return i;
		if (i == 0)
			break;
		for (k = 0; k < i; k++)
			if (len[k] == sizeof(*wc))
				memcpy(&wc[got++], cookie[k], sizeof(*wc));
		/* only once read: the device may fill them again at once */
		vuf_vq_publish(&q->vq);
		back = true;
	}
	if (back)
		vuf_vq_kick(&q->vq);
	return got;
}

int
vuf_rdma_req_notify(struct vuf_rdma *d, uint32_t cqn, uint32_t flags)
{
	struct vrdma_cmd_req_notify c = { .cqn = htole32(cqn), .flags = htole32(flags) };

	return vuf_rdma_cmd(d, VRDMA_CMD_REQ_NOTIFY_CQ, &c, sizeof(c), NULL, 0);
}

bool
vuf_rdma_cq_signalled(struct vuf_rdma *d, uint32_t cqn)
{
	uint64_t v;

	if (cqn >= d->max_cqs || !d->cqs[cqn].up)
		return false;
	return read(d->cqs[cqn].vq.callfd, &v, sizeof(v)) == sizeof(v);
}

uint32_t
vuf_rdma_net_frame_max(const struct vuf_rdma *d)
{
	/* a device without the MTU feature leaves it 0: Ethernet's own */
	return (d->mtu != 0 ? d->mtu : 1500u) + ETH_VLAN_FCSLESS;
}

int
vuf_rdma_net_start(struct vuf_rdma *d, unsigned int rx_bufs, unsigned int tx_bufs)
{
	struct net *n = &d->net;
	uint16_t size, i;
	int rc;

	if (n->up)
		return -EALREADY;
	if (rx_bufs == 0 || rx_bufs > NET_RING_MAX || tx_bufs == 0 || tx_bufs > NET_RING_MAX)
		return -EINVAL;
	/* virtio 1.x: the header always has num_buffers; a legacy one only with MRG_RXBUF */
	n->hdr_len = d->features & ((1ull << F_VERSION_1) | (1ull << F_MRG_RXBUF)) ? 12 : 10;
	/* without MRG_RXBUF one buffer must hold a whole frame */
	n->rx_slot = (n->hdr_len + vuf_rdma_net_frame_max(d) + 63) & ~63u;
	size = ring_size(rx_bufs, NET_RING_MAX);
	n->rx_bufs = vuf_mem_alloc(d->mem, (size_t)size * n->rx_slot, 64);
	if (n->rx_bufs == NULL)
		return -ENOMEM;
	rc = vuf_vq_init(&n->rx, d->mem, RX_RING, size);
	if (rc != 0)
		return rc;
	for (i = 0; i < size && rc == 0; i++) {
		struct vuf_buf b = { n->rx_bufs + (size_t)i * n->rx_slot, n->rx_slot };

		rc = vuf_vq_add(&n->rx, NULL, 0, &b, 1, b.addr);
	}
	/* the driver polls: no calls */
	vuf_vq_set_interrupts(&n->rx, false);
	if (rc == 0)
		rc = vuf_vq_start(d->c, &n->rx, true);
	if (rc != 0) {
		vuf_vq_fini(&n->rx);
		return rc;
	}
	rc = wq_up(d, &n->tx, TX_RING, tx_bufs, n->hdr_len + vuf_rdma_net_frame_max(d));
	if (rc != 0) {
		ring_stop(d, &n->rx);
		vuf_vq_fini(&n->rx);
		return rc;
	}
	memset(&n->st, 0, sizeof(n->st));
	n->up = true;
	return 0;
}

int
vuf_rdma_net_recv(struct vuf_rdma *d, void *frame, uint32_t room, uint32_t *len)
{
	struct net *n = &d->net;
	unsigned int k;

	if (!n->up)
		return -ENODEV;
	/* a ring's worth at most: a device refilling as fast as we drop cannot hold us here */
	for (k = 0; k < n->rx.size; k++) {
		uint32_t used;
		void *cookie;
		bool ok;
		int rc = vuf_vq_recycle_burst(&n->rx, &cookie, &used, 1);

		if (rc <= 0)
			return rc;
		ok = used >= n->hdr_len && used - n->hdr_len <= room;
		if (ok)
			memcpy(frame, (const uint8_t *)cookie + n->hdr_len, used - n->hdr_len);
		/* copied out: the buffer goes back to the device as it was */
		vuf_vq_publish(&n->rx);
		vuf_vq_kick(&n->rx);
		if (ok) {
			*len = used - n->hdr_len;
			n->st.rx_frames++;
			return 1;
		}
		n->st.rx_dropped++;
	}
	return 0;
}

int
vuf_rdma_net_send(struct vuf_rdma *d, const void *frame, uint32_t len)
{
	struct net *n = &d->net;
	uint8_t *slot;
	int rc;

	if (!n->up)
		return -ENODEV;
	if (len < ETH_HDR || len > vuf_rdma_net_frame_max(d))
		return -EINVAL;
	wq_reclaim(&n->tx);
	/* not wq_take: its wait would call the poll hook, which may be what sends */
	if (n->tx.vq.num_free == 0) {
		n->st.tx_full++;
		return -ENOSPC;
	}
	slot = n->tx.reqs + (size_t)n->tx.vq.free_head * n->tx.slot;
	/* flags and gso_type 0: no offload asked for (none negotiated) */
	memset(slot, 0, n->hdr_len);
	memcpy(slot + n->hdr_len, frame, len);
	rc = wq_give(&n->tx, slot, n->hdr_len + len);
	if (rc != 0)
		return rc;
	vuf_vq_kick(&n->tx.vq);
	n->st.tx_frames++;
	return 0;
}

void
vuf_rdma_net_stats(const struct vuf_rdma *d, struct vuf_rdma_net_stats *st)
{
	*st = d->net.st;
}
