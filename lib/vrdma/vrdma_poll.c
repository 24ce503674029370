/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * Serving a device from its polling lcore: the lib/roce engine's life (a
 * fresh one per connection and reset, its counters carried over), the
 * control queue, the RDMA and virtio-net queues, and the guest's
 * notifications, sent after dropping the poll lock.
 */

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_pause.h>

#include "vrdma_abi.h"
#include "vrdma_internal.h"

#define VRDMA_CTRL_RING 2
#define VRDMA_CTRL_BURST 8

/* Guest-physical to host, for lib/roce's MRs; valid while poll_lock is held. */
static void *
gpa_xlate(void *ctx, uint64_t gpa, uint64_t len, uint64_t *contig)
{
	struct vrdma_dev *d = ctx;
	uint64_t n = len;
	uint64_t va;

	if (d->mem == NULL)
		return NULL;
	va = rte_vhost_va_from_guest_pa(d->mem, gpa, &n);
	if (va == 0 || n == 0)
		return NULL;
	*contig = n;
	return (void *)(uintptr_t)va;
}

static_assert(sizeof(struct roce_dev_stats) % sizeof(uint64_t) == 0,
	      "roce_dev_stats is counters only");

/* @p sum += @p add, counter by counter. */
static void
stats_add(struct roce_dev_stats *sum, const struct roce_dev_stats *add)
{
	uint64_t *a = (uint64_t *)sum;
	const uint64_t *b = (const uint64_t *)add;
	size_t i;

	for (i = 0; i < sizeof(*sum) / sizeof(uint64_t); i++)
		a[i] += b[i];
}

/* Destroy every RDMA object (a new, empty lib/roce device when connected). */
void
vrdma_dev_rdma_reset(struct vrdma_dev *d, bool connected)
{
	struct vrdma_rdma_conf rc = {
		.name = d->path,
		.mac = d->conf.mac,
		.mtu = vrdma_dev_roce_mtu(d),
		.max_qps = d->conf.max_qps,
		.max_cqs = d->conf.max_cqs,
		.rx_ring = d->conf.roce_rx,
		.tx_ring = d->conf.roce_tx,
		/* a guest running its own RoCE (rxe) or IP over UDP 4791 gets those frames */
		.pass_ring = d->conf.net_rx,
		.pool = d->conf.pool,
		.xlate = gpa_xlate,
		.xlate_ctx = d,
		.vlan_id = d->conf.vlan_id,
	};
	char err[ROCE_ERR_LEN];

	if (d->rdma != NULL) {
		struct roce_dev_stats st;

		/* the device's engine counters never go back at a reset */
		roce_dev_stats_get(d->rdma->dev, &st);
		stats_add(&d->engine_past, &st);
		vrdma_rdma_destroy(d->rdma);
		d->rdma = NULL;
		d->rdma_resets++;
	}
	if (!connected)
		return;
	d->rdma = vrdma_rdma_create(&rc, err, sizeof(err));
	if (d->rdma == NULL)
		VRDMA_LOG(ERR, "%s: no RDMA device: %s", d->path, err);
}

/* The caller keeps the poller out: it holds poll_lock, or no lcore polls the device any more. */
void
vrdma_dev_disconnect(struct vrdma_dev *d)
{
	vrdma_dev_rdma_reset(d, false);
	vrdma_net_reset(&d->net);
	memset(d->vq, 0, sizeof(d->vq));
	free(d->mem);
	d->mem = NULL;
	d->roce = false;
	d->vid = -1;
}

/*
 * A command reset or destroyed QPs: requests the driver queued on their
 * rings before it are returned unread, before the guest sees the answer.
 */
static void
discard_stale(struct vrdma_dev *d, uint64_t *call)
{
	uint32_t i;

	for (i = 0; i < 64 * VRDMA_QP_STALE_WORDS; i++)
		if (d->rdma->qp_stale[i / 64] & (1ull << (i % 64)))
			vrdma_wq_discard(&d->wq, i, call);
	memset(d->rdma->qp_stale, 0, sizeof(d->rdma->qp_stale));
}

/* Answer one control chain. @return bytes written to its writable part. */
static uint32_t
ctrl_answer(struct vrdma_dev *d, const struct vrdma_chain *ch, uint64_t *call)
{
	uint8_t out[1 + sizeof(struct vrdma_ack_query_device)];
	uint64_t clamped;
	uint32_t n;

	if (ch->rlen < sizeof(struct vrdma_ctrl_hdr) || !d->roce ||
	    d->ctrl_buf[0] != d->conf.ctrl_class) {
		/* no virtio-net class is offered (no CTRL_RX, CTRL_MAC_ADDR, MQ, ...) */
		d->ctrl_refused++;
		out[0] = VRDMA_NET_ERR;
		return vrdma_chain_write(ch, out, 1);
	}
	clamped = d->rdma->path_mtu_clamped;
	n = vrdma_cmd_exec(d->rdma, d->ctrl_buf, ch->rlen, out, RTE_MIN(ch->wlen, sizeof(out)));
	discard_stale(d, call);
	if (d->rdma->path_mtu_clamped != clamped)
		__atomic_store_n(&d->path_mtu_clamped,
				 d->path_mtu_clamped + d->rdma->path_mtu_clamped - clamped,
				 __ATOMIC_RELAXED);
	if (d->rdma->note[0] != '\0')
		VRDMA_LOG(NOTICE, "%s: %s", d->path, d->rdma->note);
	if (n == 0) {
		d->ctrl_bad_chain++;
		return 0;
	}
	if (out[0] == VRDMA_NET_OK) {
		d->ctrl_ok++;
	} else {
		d->ctrl_refused++;
		VRDMA_LOG(DEBUG, "%s: command refused: %s", d->path, d->rdma->why);
	}
	return vrdma_chain_write(ch, out, n);
}

static unsigned int
ctrl_poll(struct vrdma_dev *d, uint64_t *call)
{
	struct vrdma_vq *vq = &d->vq[VRDMA_CTRL_RING];
	struct vrdma_chain ch;
	unsigned int n;

	for (n = 0; n < VRDMA_CTRL_BURST; n++) {
		int rc = vrdma_vq_pop(vq, d->mem, d->ctrl_buf, VRDMA_CTRL_MAX_IN, &ch, &d->vqst);

		if (rc == 0)
			break;
		if (rc == -2) {
			d->ctrl_bad_chain++;
			VRDMA_LOG(WARNING, "%s: control ring index out of range: ring stopped",
				  d->path);
			break;
		}
		call[0] |= 1ull << VRDMA_CTRL_RING;
		if (rc < 0) {
			d->ctrl_bad_chain++;
			vrdma_vq_push(vq, ch.head, 0);
			continue;
		}
		vrdma_vq_push(vq, ch.head, ctrl_answer(d, &ch, call));
	}
	return n;
}

/*
 * Free a burst of @p r: frames from the wire that nothing in the guest can
 * take (no driver, receiveq1 not ready), as a NIC whose link is down drops
 * them, rather than holding mbufs for a guest that may never come.
 */
static unsigned int
drop_unserved(struct vrdma_dev *d, struct rte_ring *r)
{
	struct rte_mbuf *pkts[VRDMA_NET_BURST];
	unsigned int n;

	if (r == NULL)
		return 0;
	n = rte_ring_dequeue_burst(r, (void **)pkts, RTE_DIM(pkts), NULL);
	if (n > 0) {
		rte_pktmbuf_free_bulk(pkts, n);
		__atomic_fetch_add(&d->rx_unserved, n, __ATOMIC_RELAXED);
	}
	return n;
}

unsigned int
vrdma_dev_poll(struct vrdma_dev *d)
{
	uint64_t call[VRDMA_MAX_RINGS / 64] = { 0 };
	unsigned int work = 0, i;
	bool any;
	int vid;

	if (!rte_spinlock_trylock(&d->poll_lock))
		return 0;
	vid = d->vid;
	if (d->mem != NULL) {
		work += vrdma_net_poll(&d->net, d->vq, d->mem, &d->vqst, call);
		if (d->rdma != NULL) {
			uint16_t mtu = vrdma_dev_roce_mtu(d);

			/* the wire's MTU changed since: commands from now on see it */
			if (mtu != d->rdma->eth_mtu && vrdma_rdma_mtu_set(d->rdma, mtu) != 0)
				VRDMA_LOG(ERR, "%s: MTU %u refused by lib/roce", d->path, mtu);
			/* the RDMA state and memory view change only under this lock */
			d->wq.r = d->rdma;
			d->wq.vq = d->vq;
			d->wq.mem = d->mem;
			d->wq.vqst = &d->vqst;
			work += ctrl_poll(d, call);
			work += vrdma_wq_poll(&d->wq, call);
		}
	}
	if (d->mem == NULL || d->rdma == NULL)
		work += drop_unserved(d, d->conf.roce_rx);
	if (d->mem == NULL || !d->vq[VRDMA_NET_RXQ].live)
		work += drop_unserved(d, d->conf.net_rx);
	any = (call[0] | call[1] | call[2] | call[3]) != 0;
	/* destroy_connection waits for this before rte_vhost frees the device */
	if (any)
		__atomic_store_n(&d->calling, true, __ATOMIC_RELAXED);
	rte_spinlock_unlock(&d->poll_lock);
	/* outside the lock: rte_vhost_vring_call() waits for rte_vhost's ring lock */
	if (any) {
		for (i = 0; i < VRDMA_MAX_RINGS; i++)
			if (call[i / 64] & (1ull << (i % 64)))
				rte_vhost_vring_call(vid, i);
		__atomic_store_n(&d->calling, false, __ATOMIC_RELEASE);
	}
	return work;
}

int
vrdma_dev_engine_stats(struct vrdma_dev *dev, struct roce_dev_stats *st)
{
	unsigned int tries = 0;

	/*
	 * The engine is replaced at each reset, under this lock. Never wait
	 * for it unbounded: rte_vhost's thread may hold it while a guest
	 * sends no follow-up to a message rte_vhost failed.
	 */
	while (!rte_spinlock_trylock(&dev->poll_lock)) {
		if (++tries == 10000)
			return -EBUSY;
		rte_pause();
	}
	*st = dev->engine_past;
	if (dev->rdma != NULL) {
		struct roce_dev_stats now;

		roce_dev_stats_get(dev->rdma->dev, &now);
		stats_add(st, &now);
	}
	rte_spinlock_unlock(&dev->poll_lock);
	return 0;
}
