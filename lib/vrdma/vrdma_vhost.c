/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * rte_vhost's callbacks: connections, the messages the device answers or
 * follows (pre- and post-handlers), negotiated features and ring
 * readiness. They all run on rte_vhost's socket thread, which takes the
 * serving state from the poller while a message changes memory or rings.
 */

#include <stdlib.h>
#include <string.h>

#include <rte_pause.h>
#include <rte_spinlock.h>
#include <rte_vhost.h>

#include "vrdma_internal.h"

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
	struct vrdma_dev *d = vrdma_dev_of_vid(vid);
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
		vrdma_dev_rdma_reset(d, true);
		vrdma_net_reset(&d->net);
		ready_clear(d);
		break;
	case VU_SET_STATUS:
		if (msg->size >= sizeof(uint64_t) && msg->payload.u64 == 0) {
			/* the driver reset the device: its rings come back through vring_state_changed */
			memset(d->vq, 0, sizeof(d->vq));
			memset(d->resume, 0, sizeof(d->resume));
			vrdma_dev_rdma_reset(d, true);
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
	struct vrdma_dev *d = vrdma_dev_of_vid(vid);
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
	struct vrdma_dev *d = vrdma_dev_of_vid(vid);
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
	vrdma_dev_rdma_reset(d, true);
	cb_unlock(d, taken);
	VRDMA_LOG(INFO, "%s: frontend connected (vid %d)", d->path, vid);
	return 0;
}

static void
on_destroy_connection(int vid)
{
	struct vrdma_dev *d = vrdma_dev_of_vid(vid);

	if (d == NULL)
		return;
	if (d->vid != vid)
		return; /* a second frontend, refused at connection */
	cb_lock(d);
	vrdma_dev_disconnect(d);
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
	struct vrdma_dev *d = vrdma_dev_of_vid(vid);
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
	struct vrdma_dev *d = vrdma_dev_of_vid(vid);
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

const struct rte_vhost_device_ops vrdma_vhost_ops = {
	.new_device = on_new_device,
	.destroy_device = on_destroy_device,
	.vring_state_changed = on_vring_state_changed,
	.features_changed = on_features_changed,
	.new_connection = on_new_connection,
	.destroy_connection = on_destroy_connection,
};
