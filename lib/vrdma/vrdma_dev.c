/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* The device on rte_vhost: registration, features, GET_CONFIG, ring readiness. */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_pause.h>
#include <rte_spinlock.h>
#include <rte_vhost.h>

#include "vrdma.h"
#include "vrdma_abi.h"
#include "vrdma_cmd.h"
#include "vrdma_net.h"
#include "vrdma_virtio.h"
#include "vrdma_vq.h"
#include "vrdma_wq.h"

RTE_LOG_REGISTER_DEFAULT(vrdma_logtype, NOTICE);
#define VRDMA_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, vrdma_logtype, "vrdma: " fmt "\n", ##__VA_ARGS__)

struct vrdma_dev {
	TAILQ_ENTRY(vrdma_dev) next;
	struct vrdma_conf conf;
	char path[PATH_MAX];
	uint64_t features;            /* offered */
	struct vrdma_net_config config; /* little-endian, as sent */
	/* below: written by rte_vhost's thread, read by anyone, under lock */
	pthread_mutex_t lock;
	struct vrdma_dev_info info;
	/*
	 * The serving state, owned by whoever holds poll_lock: the polling
	 * lcore (trylock, never waits) or rte_vhost's thread while a message
	 * changes memory or rings (from the pre-handler to the post-handler).
	 */
	rte_spinlock_t poll_lock;
	bool msg_holds;               /* rte_vhost's thread holds poll_lock */
	int vid;
	bool roce;
	struct rte_vhost_memory *mem; /* guest memory (rte_vhost's copy) */
	struct vrdma_rdma *rdma;
	struct vrdma_vq vq[VRDMA_MAX_RINGS];
	struct vrdma_vq_stats vqst;
	uint64_t ctrl_ok, ctrl_refused, ctrl_bad_chain, rdma_resets, mrs_lost;
	uint64_t rx_unserved;         /* wire frames dropped: no guest queue to take them */
	struct roce_dev_stats engine_past; /* counters of the engines destroyed so far */
	uint64_t resume[VRDMA_MAX_RINGS / 64]; /* rings to restart after SET_MEM_TABLE */
	bool calling;                 /* the poller is notifying the guest (outside the lock) */
	uint8_t *ctrl_buf;            /* a command copied out of guest memory */
	struct vrdma_wq wq;           /* the RDMA queues */
	struct vrdma_net net;         /* the virtio-net queues */
};

/* rte_vhost's callbacks name a device by vid; its socket path finds ours. */
static TAILQ_HEAD(, vrdma_dev) devs = TAILQ_HEAD_INITIALIZER(devs);
static pthread_mutex_t devs_lock = PTHREAD_MUTEX_INITIALIZER;

void
vrdma_conf_init(struct vrdma_conf *conf, const char *path)
{
	memset(conf, 0, sizeof(*conf));
	conf->path = path;
	conf->roce_bit = VRDMA_ROCE_BIT_RFC;
	conf->ctrl_class = VRDMA_CTRL_CLASS_RFC;
	conf->max_qps = 16;
	conf->max_cqs = 16;
	conf->mtu = 1500;
	/* locally administered, unicast */
	conf->mac = (struct rte_ether_addr){ { 0x02, 0x56, 0x52, 0x44, 0x4d, 0x41 } };
}

static uint64_t
net_features(void)
{
	return (1ull << VRDMA_NET_F_MTU) | (1ull << VRDMA_NET_F_MAC) |
		(1ull << VRDMA_NET_F_MRG_RXBUF) |
		(1ull << VRDMA_NET_F_STATUS) | (1ull << VRDMA_NET_F_CTRL_VQ) |
		(1ull << VRDMA_V_F_RING_INDIRECT_DESC) |
		(1ull << VRDMA_VU_F_PROTOCOL_FEATURES) | (1ull << VRDMA_V_F_VERSION_1);
}

int
vrdma_conf_check(const struct vrdma_conf *conf, char *err, size_t errlen)
{
	uint64_t rings;

	if (conf->path == NULL || conf->path[0] == '\0' || strlen(conf->path) >= PATH_MAX) {
		snprintf(err, errlen, "no socket path, or one too long");
		return -EINVAL;
	}
	if (conf->roce_bit > 63 ||
	    (conf->roce_bit >= VRDMA_V_TRANSPORT_F_START && conf->roce_bit <= VRDMA_V_TRANSPORT_F_END)) {
		snprintf(err, errlen, "RoCE feature bit %u: not a device feature bit (0-23, 42-63)",
			 conf->roce_bit);
		return -EINVAL;
	}
	if (conf->roce_bit != VRDMA_ROCE_BIT_RFC &&
	    ((VRDMA_NET_F_ASSIGNED) & (1ull << conf->roce_bit))) {
		snprintf(err, errlen, "RoCE feature bit %u is already a virtio-net feature",
			 conf->roce_bit);
		return -EINVAL;
	}
	if (conf->ctrl_class < VRDMA_NET_CTRL_NET_CLASSES || conf->ctrl_class > 255) {
		snprintf(err, errlen, "control class %u: 0-5 are virtio-net's own, 255 is the most",
			 conf->ctrl_class);
		return -EINVAL;
	}
	if (conf->max_qps < 3 || conf->max_cqs < 1) {
		snprintf(err, errlen, "max QPs must be at least 3 (QPN 0 is SMI, unused in RoCE; "
			 "1 is GSI) and max CQs at least 1");
		return -EINVAL;
	}
	rings = VRDMA_FIRST_CQ_RING + (uint64_t)conf->max_cqs + 2ull * conf->max_qps;
	if (rings > VRDMA_MAX_RINGS) {
		snprintf(err, errlen, "3 + %u CQs + 2 x %u QPs = %" PRIu64 " rings: vhost-user has %u",
			 conf->max_cqs, conf->max_qps, rings, VRDMA_MAX_RINGS);
		return -EINVAL;
	}
	if (conf->mtu < VRDMA_MIN_MTU) {
		snprintf(err, errlen, "MTU %u: RoCE needs %u (a 256-byte payload and 80 of headers)",
			 conf->mtu, VRDMA_MIN_MTU);
		return -EINVAL;
	}
	if (conf->roce_rx == NULL || conf->roce_tx == NULL || conf->pool == NULL) {
		snprintf(err, errlen, "the RoCE wire rings and the mbuf pool are required");
		return -EINVAL;
	}
	if (conf->net_tx != NULL &&
	    rte_pktmbuf_data_room_size(conf->pool) < RTE_PKTMBUF_HEADROOM +
	    sizeof(struct vrdma_net_hdr) + conf->mtu + RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN) {
		snprintf(err, errlen, "the pool's mbufs cannot hold a frame of MTU %u in one segment",
			 conf->mtu);
		return -EINVAL;
	}
	return 0;
}

/*
 * The device is still valid once the list lock is dropped: every caller is
 * an rte_vhost callback, all run on rte_vhost's socket thread, and
 * rte_vhost_driver_unregister() in vrdma_dev_destroy() waits until no
 * callback of the socket is running. (So destroy must never be called
 * from a callback.)
 */
static struct vrdma_dev *
dev_of_vid(int vid)
{
	char path[PATH_MAX];
	struct vrdma_dev *d;

	if (rte_vhost_get_ifname(vid, path, sizeof(path)) != 0)
		return NULL;
	pthread_mutex_lock(&devs_lock);
	TAILQ_FOREACH(d, &devs, next)
		if (strcmp(d->path, path) == 0)
			break;
	pthread_mutex_unlock(&devs_lock);
	return d;
}

/* ---------------- the serving state and rte_vhost's thread ---------------- */

#define VRDMA_CTRL_RING 2
#define VRDMA_CTRL_BURST 8

/* rte_vhost's thread takes the serving state for a message (at most once). */
static void
msg_lock(struct vrdma_dev *d)
{
	if (!d->msg_holds) {
		rte_spinlock_lock(&d->poll_lock);
		d->msg_holds = true;
	}
}

static void
msg_unlock(struct vrdma_dev *d)
{
	if (d->msg_holds) {
		d->msg_holds = false;
		rte_spinlock_unlock(&d->poll_lock);
	}
}

/* A callback takes the state unless its message already holds it. @return taken */
static bool
cb_lock(struct vrdma_dev *d)
{
	if (d->msg_holds)
		return false;
	rte_spinlock_lock(&d->poll_lock);
	return true;
}

static void
cb_unlock(struct vrdma_dev *d, bool taken)
{
	if (taken)
		rte_spinlock_unlock(&d->poll_lock);
}

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

static void
mem_refresh(struct vrdma_dev *d)
{
	free(d->mem);
	d->mem = NULL;
	if (rte_vhost_get_mem_table(d->vid, &d->mem) != 0)
		d->mem = NULL;
}

/* Serve ring @p idx from rte_vhost's view of it (addresses, size, indices). */
static void
ring_start(struct vrdma_dev *d, uint16_t idx, bool keep_indices)
{
	struct vrdma_vq *vq = &d->vq[idx];
	struct rte_vhost_vring vr;
	uint16_t last_avail, last_used;

	if (rte_vhost_get_vhost_vring(d->vid, idx, &vr) != 0 || vr.desc == NULL ||
	    vr.avail == NULL || vr.used == NULL || vr.size == 0 ||
	    (vr.size & (vr.size - 1)) != 0) {
		vq->live = false;
		return;
	}
	if (!keep_indices) {
		if (rte_vhost_get_vring_base(d->vid, idx, &last_avail, &last_used) != 0) {
			vq->live = false;
			return;
		}
		vq->last_avail = last_avail;
		vq->last_used = last_used;
		vq->broken = false;
	}
	vq->desc = vr.desc;
	vq->avail = vr.avail;
	vq->used = vr.used;
	vq->size = vr.size;
	vq->live = !vq->broken;
	/* the device polls its rings: the driver need not kick (a syscall per request) */
	__atomic_store_n(&vq->used->flags, VRING_USED_F_NO_NOTIFY, __ATOMIC_RELEASE);
	if (d->mem == NULL)
		mem_refresh(d);
}

/* Stop serving ring @p idx; rte_vhost answers GET_VRING_BASE from what we give it. */
static void
ring_stop(struct vrdma_dev *d, uint16_t idx)
{
	struct vrdma_vq *vq = &d->vq[idx];

	if (vq->size != 0)
		rte_vhost_set_vring_base(d->vid, idx, vq->last_avail, vq->last_used);
	vq->live = false;
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
static void
rdma_reset(struct vrdma_dev *d, bool connected)
{
	struct vrdma_rdma_conf rc = {
		.name = d->path,
		.mac = d->conf.mac,
		.mtu = d->conf.mtu,
		.max_qps = d->conf.max_qps,
		.max_cqs = d->conf.max_cqs,
		.rx_ring = d->conf.roce_rx,
		.tx_ring = d->conf.roce_tx,
		/* a guest running its own RoCE (rxe) or IP over UDP 4791 gets those frames */
		.pass_ring = d->conf.net_rx,
		.pool = d->conf.pool,
		.xlate = gpa_xlate,
		.xlate_ctx = d,
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
	uint32_t n;

	if (ch->rlen < sizeof(struct vrdma_ctrl_hdr) || !d->roce ||
	    d->ctrl_buf[0] != d->conf.ctrl_class) {
		/* no virtio-net class is offered (no CTRL_RX, CTRL_MAC_ADDR, MQ, ...) */
		d->ctrl_refused++;
		out[0] = VRDMA_NET_ERR;
		return vrdma_chain_write(ch, out, 1);
	}
	n = vrdma_cmd_exec(d->rdma, d->ctrl_buf, ch->rlen, out, RTE_MIN(ch->wlen, sizeof(out)));
	discard_stale(d, call);
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

/*
 * GET_CONFIG: the configuration space from our copy. A malformed request
 * gets a reply with the header only, which a frontend rejects as a bad
 * size: a clear error that keeps the connection (an error result would
 * make rte_vhost close it).
 */
static enum rte_vhost_msg_result
get_config(struct vrdma_dev *d, struct vrdma_vu_msg *msg)
{
	uint32_t size = msg->size;
	bool ok = vrdma_config_answer(&d->config, msg);

	pthread_mutex_lock(&d->lock);
	if (ok)
		d->info.config_reads++;
	else
		d->info.config_refused++;
	pthread_mutex_unlock(&d->lock);
	if (!ok)
		VRDMA_LOG(WARNING, "%s: GET_CONFIG refused (payload %u bytes)", d->path, size);
	return RTE_VHOST_MSG_RESULT_REPLY;
}

#define VU_RESET_OWNER 4
#define VU_SET_MEM_TABLE 5
#define VU_GET_VRING_BASE 11
#define VU_SET_STATUS 39

/* Every ring was dropped: the readiness the info shows goes too. */
static void
ready_clear(struct vrdma_dev *d)
{
	pthread_mutex_lock(&d->lock);
	memset(d->info.ready, 0, sizeof(d->info.ready));
	pthread_mutex_unlock(&d->lock);
}

static enum rte_vhost_msg_result
pre_msg(int vid, void *raw)
{
	struct vrdma_vu_msg *msg = raw;
	struct vrdma_dev *d = dev_of_vid(vid);
	uint16_t i;

	/* d->vid is only written on this thread */
	if (d == NULL || d->vid != vid)
		return RTE_VHOST_MSG_RESULT_NOT_HANDLED;
	switch (msg->request) {
	case VRDMA_VU_GET_CONFIG:
		return get_config(d, msg);
	case VRDMA_VU_SET_FEATURES:
		/* RoCE requires the control queue (RFC feature bit requirements) */
		if (!vrdma_features_acceptable(d->conf.roce_bit, msg)) {
			pthread_mutex_lock(&d->lock);
			d->info.features_refused++;
			pthread_mutex_unlock(&d->lock);
			VRDMA_LOG(WARNING, "%s: SET_FEATURES refused: RoCE without CTRL_VQ", d->path);
			return RTE_VHOST_MSG_RESULT_ERR;
		}
		break;
	default:
		break;
	}
	/*
	 * Every other message may remap memory or move rings: the poller
	 * stays out until the post-handler. rte_vhost skips the post-handler
	 * of a message it fails (and may keep the connection): the hold then
	 * lasts until the next message's post-handler or destroy_connection,
	 * so whatever such a message may have torn down is dropped here first.
	 */
	msg_lock(d);
	switch (msg->request) {
	case VU_GET_VRING_BASE:
		/* rte_vhost replies with its own copy of our indices */
		if (msg->size >= sizeof(uint32_t) && (uint32_t)msg->payload.u64 < VRDMA_MAX_RINGS)
			ring_stop(d, (uint16_t)msg->payload.u64);
		break;
	case VU_SET_MEM_TABLE:
		/* the old regions may be unmapped even if the message then fails */
		for (i = 0; i < VRDMA_MAX_RINGS; i++) {
			if (d->vq[i].live)
				d->resume[i / 64] |= 1ull << (i % 64);
			d->vq[i].live = false;
		}
		free(d->mem);
		d->mem = NULL;
		break;
	case VU_RESET_OWNER:
		/* rte_vhost unmaps guest memory and forgets every ring */
		memset(d->vq, 0, sizeof(d->vq));
		memset(d->resume, 0, sizeof(d->resume));
		free(d->mem);
		d->mem = NULL;
		rdma_reset(d, true);
		vrdma_net_reset(&d->net);
		ready_clear(d);
		break;
	case VU_SET_STATUS:
		if (msg->size >= sizeof(uint64_t) && msg->payload.u64 == 0) {
			/* the driver reset the device: its rings come back through vring_state_changed */
			memset(d->vq, 0, sizeof(d->vq));
			memset(d->resume, 0, sizeof(d->resume));
			rdma_reset(d, true);
			vrdma_net_reset(&d->net);
			ready_clear(d);
		}
		break;
	default:
		break;
	}
	return RTE_VHOST_MSG_RESULT_NOT_HANDLED;
}

static void
features_set(struct vrdma_dev *d, uint64_t features)
{
	pthread_mutex_lock(&d->lock);
	d->info.features = features;
	d->info.roce = (features & (1ull << d->conf.roce_bit)) != 0;
	d->roce = d->info.roce;
	pthread_mutex_unlock(&d->lock);
	/* virtio 1.x: the header always has num_buffers; legacy only with MRG_RXBUF */
	d->net.mrg = (features & (1ull << VRDMA_NET_F_MRG_RXBUF)) != 0;
	d->net.hdr_len = d->net.mrg || (features & (1ull << VRDMA_V_F_VERSION_1)) ?
		sizeof(struct vrdma_net_hdr) : sizeof(struct vrdma_net_hdr) - 2;
}

/* After rte_vhost handled a message: catch up with it, then let the poller in. */
static enum rte_vhost_msg_result
post_msg(int vid, void *raw)
{
	struct vrdma_vu_msg *msg = raw;
	struct vrdma_dev *d = dev_of_vid(vid);
	unsigned int lost;
	uint64_t f;
	uint16_t i;

	if (d == NULL || d->vid != vid)
		return RTE_VHOST_MSG_RESULT_NOT_HANDLED;
	switch (msg->request) {
	case VRDMA_VU_SET_FEATURES:
		/* features_changed only fires on a running device */
		if (rte_vhost_get_negotiated_features(vid, &f) == 0)
			features_set(d, f);
		break;
	case VU_SET_MEM_TABLE:
		/* the old regions are unmapped: new ring addresses, new MR pages */
		mem_refresh(d);
		for (i = 0; i < VRDMA_MAX_RINGS; i++)
			if (d->resume[i / 64] & (1ull << (i % 64)))
				ring_start(d, i, true);
		memset(d->resume, 0, sizeof(d->resume));
		lost = d->rdma != NULL ? vrdma_rdma_remap(d->rdma) : 0;
		if (lost > 0) {
			__atomic_fetch_add(&d->mrs_lost, lost, __ATOMIC_RELAXED);
			VRDMA_LOG(WARNING, "%s: %u MRs dropped: their pages left guest memory",
				  d->path, lost);
		}
		break;
	default:
		break;
	}
	msg_unlock(d);
	return RTE_VHOST_MSG_RESULT_NOT_HANDLED;
}

static const struct rte_vhost_user_extern_ops extern_ops = {
	.pre_msg_handle = pre_msg,
	.post_msg_handle = post_msg,
};

static int
on_new_connection(int vid)
{
	struct vrdma_dev *d = dev_of_vid(vid);
	bool taken;

	if (d == NULL)
		return -1;
	/* one frontend per device: rte_vhost closes a second connection refused here */
	if (d->vid >= 0) {
		VRDMA_LOG(WARNING, "%s: second frontend refused (vid %d serves)", d->path, d->vid);
		return -1;
	}
	if (rte_vhost_extern_callback_register(vid, &extern_ops, NULL) != 0) {
		VRDMA_LOG(ERR, "%s: cannot intercept messages", d->path);
		return -1;
	}
	pthread_mutex_lock(&d->lock);
	d->info.vid = vid;
	d->info.features = 0;
	d->info.roce = false;
	memset(d->info.ready, 0, sizeof(d->info.ready));
	d->info.connections++;
	pthread_mutex_unlock(&d->lock);
	taken = cb_lock(d);
	d->vid = vid;
	d->roce = false;
	memset(d->vq, 0, sizeof(d->vq));
	memset(d->resume, 0, sizeof(d->resume));
	rdma_reset(d, true);
	cb_unlock(d, taken);
	VRDMA_LOG(INFO, "%s: frontend connected (vid %d)", d->path, vid);
	return 0;
}

/* Forget the frontend: every RDMA object, ring and mapping goes. Poller out. */
static void
disconnect(struct vrdma_dev *d)
{
	rdma_reset(d, false);
	vrdma_net_reset(&d->net);
	memset(d->vq, 0, sizeof(d->vq));
	free(d->mem);
	d->mem = NULL;
	d->roce = false;
	d->vid = -1;
}

static void
on_destroy_connection(int vid)
{
	struct vrdma_dev *d = dev_of_vid(vid);

	if (d == NULL)
		return;
	if (d->vid != vid)
		return; /* a second frontend, refused at connection */
	cb_lock(d);
	disconnect(d);
	/* also ends the hold of a message rte_vhost failed (no post-handler then) */
	d->msg_holds = false;
	rte_spinlock_unlock(&d->poll_lock);
	/* rte_vhost frees the device after this: no notification may still be running */
	while (__atomic_load_n(&d->calling, __ATOMIC_ACQUIRE))
		rte_pause();
	/* last: a reader seeing no frontend sees its objects gone too */
	pthread_mutex_lock(&d->lock);
	if (d->info.vid == vid) {
		d->info.vid = -1;
		memset(d->info.ready, 0, sizeof(d->info.ready));
	}
	pthread_mutex_unlock(&d->lock);
	VRDMA_LOG(INFO, "%s: frontend gone (vid %d)", d->path, vid);
}

static int
on_features_changed(int vid, uint64_t features)
{
	struct vrdma_dev *d = dev_of_vid(vid);
	bool taken;

	if (d == NULL || d->vid != vid)
		return 0;
	taken = cb_lock(d);
	features_set(d, features);
	cb_unlock(d, taken);
	return 0;
}

/* The device runs from here: new_device needs every ring the frontend touched. */
static int
on_vring_state_changed(int vid, uint16_t ring, int enable)
{
	struct vrdma_dev *d = dev_of_vid(vid);
	uint64_t bit = 1ull << (ring % 64);
	bool taken;

	if (d == NULL || d->vid != vid || ring >= VRDMA_MAX_RINGS)
		return 0;
	taken = cb_lock(d);
	if (enable)
		ring_start(d, ring, false);
	else
		ring_stop(d, ring);
	cb_unlock(d, taken);
	pthread_mutex_lock(&d->lock);
	if (enable)
		d->info.ready[ring / 64] |= bit;
	else
		d->info.ready[ring / 64] &= ~bit;
	d->info.ring_changes++;
	pthread_mutex_unlock(&d->lock);
	return 0;
}

/*
 * rte_vhost 22.11 calls new_device and destroy_device without checking for
 * NULL (the checks came in later releases): empty, since readiness is
 * followed per ring above.
 */
static int
on_new_device(int vid)
{
	(void)vid;
	return 0;
}

static void
on_destroy_device(int vid)
{
	(void)vid;
}

static const struct rte_vhost_device_ops dev_ops = {
	.new_device = on_new_device,
	.destroy_device = on_destroy_device,
	.vring_state_changed = on_vring_state_changed,
	.features_changed = on_features_changed,
	.new_connection = on_new_connection,
	.destroy_connection = on_destroy_connection,
};

static void
config_fill(struct vrdma_dev *d)
{
	struct vrdma_net_config *c = &d->config;

	memset(c, 0, sizeof(*c));
	memcpy(c->mac, d->conf.mac.addr_bytes, sizeof(c->mac));
	c->status = rte_cpu_to_le_16(VRDMA_NET_S_LINK_UP);
	c->max_virtqueue_pairs = rte_cpu_to_le_16(1);
	c->mtu = rte_cpu_to_le_16(d->conf.mtu);
	c->speed = rte_cpu_to_le_32(UINT32_MAX); /* unknown */
	c->duplex = 0xff;                         /* unknown */
	c->max_rdma_qps = rte_cpu_to_le_32(d->conf.max_qps);
	c->max_rdma_cqs = rte_cpu_to_le_32(d->conf.max_cqs);
}

struct vrdma_dev *
vrdma_dev_create(const struct vrdma_conf *conf)
{
	struct vrdma_dev *d;
	uint64_t pf;
	char err[128];

	if (vrdma_conf_check(conf, err, sizeof(err)) != 0) {
		VRDMA_LOG(ERR, "%s", err);
		rte_errno = EINVAL;
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (d == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	d->conf = *conf;
	snprintf(d->path, sizeof(d->path), "%s", conf->path);
	d->conf.path = d->path;
	d->features = net_features() | (1ull << conf->roce_bit);
	d->info.vid = -1;
	d->vid = -1;
	d->wq.max_qps = conf->max_qps;
	d->wq.max_cqs = conf->max_cqs;
	d->net.rx_ring = conf->net_rx;
	d->net.tx_ring = conf->net_tx;
	d->net.pool = conf->pool;
	d->net.max_frame = conf->mtu + RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN;
	d->net.hdr_len = sizeof(struct vrdma_net_hdr);
	pthread_mutex_init(&d->lock, NULL);
	rte_spinlock_init(&d->poll_lock);
	d->ctrl_buf = malloc(VRDMA_CTRL_MAX_IN);
	if (d->ctrl_buf == NULL) {
		free(d);
		rte_errno = ENOMEM;
		return NULL;
	}
	config_fill(d);

	pthread_mutex_lock(&devs_lock);
	TAILQ_INSERT_TAIL(&devs, d, next);
	pthread_mutex_unlock(&devs_lock);
	if (rte_vhost_driver_register(d->path, 0) != 0) {
		VRDMA_LOG(ERR, "%s: cannot register the vhost-user socket", d->path);
		goto fail;
	}
	/* set_features, not enable_features: bit 55 is outside rte_vhost's set */
	if (rte_vhost_driver_set_features(d->path, d->features) != 0 ||
	    rte_vhost_driver_get_protocol_features(d->path, &pf) != 0 ||
	    rte_vhost_driver_set_protocol_features(d->path,
						   pf | (1ull << VRDMA_VU_PROTOCOL_F_CONFIG)) != 0 ||
	    rte_vhost_driver_callback_register(d->path, &dev_ops) != 0 ||
	    rte_vhost_driver_start(d->path) != 0) {
		VRDMA_LOG(ERR, "%s: cannot set up the vhost-user device", d->path);
		rte_vhost_driver_unregister(d->path);
		goto fail;
	}
	return d;
fail:
	pthread_mutex_lock(&devs_lock);
	TAILQ_REMOVE(&devs, d, next);
	pthread_mutex_unlock(&devs_lock);
	pthread_mutex_destroy(&d->lock);
	free(d->ctrl_buf);
	free(d);
	rte_errno = EIO;
	return NULL;
}

void
vrdma_dev_destroy(struct vrdma_dev *dev)
{
	if (dev == NULL)
		return;
	/*
	 * Closes the connection (without a destroy_connection callback) and
	 * returns once no callback of this socket is running.
	 */
	rte_vhost_driver_unregister(dev->path);
	pthread_mutex_lock(&devs_lock);
	TAILQ_REMOVE(&devs, dev, next);
	pthread_mutex_unlock(&devs_lock);
	disconnect(dev);
	pthread_mutex_destroy(&dev->lock);
	free(dev->ctrl_buf);
	free(dev);
}

uint64_t
vrdma_dev_features(const struct vrdma_dev *dev)
{
	return dev->features;
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

void
vrdma_dev_info_get(struct vrdma_dev *dev, struct vrdma_dev_info *info)
{
	pthread_mutex_lock(&dev->lock);
	*info = dev->info;
	pthread_mutex_unlock(&dev->lock);
	/* the serving counters: single writer (the poller), read as they are */
	info->ctrl_ok = __atomic_load_n(&dev->ctrl_ok, __ATOMIC_RELAXED);
	info->ctrl_refused = __atomic_load_n(&dev->ctrl_refused, __ATOMIC_RELAXED);
	info->ctrl_bad_chain = __atomic_load_n(&dev->ctrl_bad_chain, __ATOMIC_RELAXED);
	info->vq_bad_index = __atomic_load_n(&dev->vqst.bad_index, __ATOMIC_RELAXED);
	info->vq_bad_desc = __atomic_load_n(&dev->vqst.bad_desc, __ATOMIC_RELAXED);
	info->vq_bad_addr = __atomic_load_n(&dev->vqst.bad_addr, __ATOMIC_RELAXED);
	info->vq_too_long = __atomic_load_n(&dev->vqst.too_long, __ATOMIC_RELAXED);
	info->rdma_resets = __atomic_load_n(&dev->rdma_resets, __ATOMIC_RELAXED);
	info->mrs_lost = __atomic_load_n(&dev->mrs_lost, __ATOMIC_RELAXED);
	info->rx_unserved = __atomic_load_n(&dev->rx_unserved, __ATOMIC_RELAXED);
	info->sq_posted = __atomic_load_n(&dev->wq.st.sq_posted, __ATOMIC_RELAXED);
	info->rq_posted = __atomic_load_n(&dev->wq.st.rq_posted, __ATOMIC_RELAXED);
	info->wr_refused = __atomic_load_n(&dev->wq.st.wr_refused, __ATOMIC_RELAXED);
	info->wq_bad_chain = __atomic_load_n(&dev->wq.st.wq_bad_chain, __ATOMIC_RELAXED);
	info->cqe_written = __atomic_load_n(&dev->wq.st.cqe_written, __ATOMIC_RELAXED);
	info->cq_bad_chain = __atomic_load_n(&dev->wq.st.cq_bad_chain, __ATOMIC_RELAXED);
	info->cq_notified = __atomic_load_n(&dev->wq.st.cq_notified, __ATOMIC_RELAXED);
	info->wr_discarded = __atomic_load_n(&dev->wq.st.wr_discarded, __ATOMIC_RELAXED);
	info->net_rx_frames = __atomic_load_n(&dev->net.st.rx_frames, __ATOMIC_RELAXED);
	info->net_rx_bytes = __atomic_load_n(&dev->net.st.rx_bytes, __ATOMIC_RELAXED);
	info->net_rx_too_big = __atomic_load_n(&dev->net.st.rx_too_big, __ATOMIC_RELAXED);
	info->net_rx_bad_buf = __atomic_load_n(&dev->net.st.rx_bad_buf, __ATOMIC_RELAXED);
	info->net_tx_frames = __atomic_load_n(&dev->net.st.tx_frames, __ATOMIC_RELAXED);
	info->net_tx_bytes = __atomic_load_n(&dev->net.st.tx_bytes, __ATOMIC_RELAXED);
	info->net_tx_refused = __atomic_load_n(&dev->net.st.tx_refused, __ATOMIC_RELAXED);
	info->net_tx_dropped = __atomic_load_n(&dev->net.st.tx_dropped, __ATOMIC_RELAXED);
}
