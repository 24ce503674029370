/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* The device on rte_vhost: registration, features, GET_CONFIG, ring readiness. */

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
#include <rte_vhost.h>

#include "vrdma.h"
#include "vrdma_virtio.h"

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
	if (conf->max_qps < 1 || conf->max_cqs < 1) {
		snprintf(err, errlen, "max QPs and max CQs must be at least 1");
		return -EINVAL;
	}
	rings = VRDMA_FIRST_CQ_RING + (uint64_t)conf->max_cqs + 2ull * conf->max_qps;
	if (rings > VRDMA_MAX_RINGS) {
		snprintf(err, errlen, "3 + %u CQs + 2 x %u QPs = %" PRIu64 " rings: vhost-user has %u",
			 conf->max_cqs, conf->max_qps, rings, VRDMA_MAX_RINGS);
		return -EINVAL;
	}
	if (conf->mtu < 68) {
		snprintf(err, errlen, "MTU %u: virtio-net needs 68 or more", conf->mtu);
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

/*
 * GET_CONFIG: the configuration space from our copy. A malformed request
 * (sizes that disagree, a read past the 256-byte region) gets a reply with
 * the header only, which a frontend rejects as a bad size: a clear error
 * that keeps the connection.
 */
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

static enum rte_vhost_msg_result
pre_msg(int vid, void *raw)
{
	struct vrdma_vu_msg *msg = raw;
	struct vrdma_dev *d = dev_of_vid(vid);

	if (d == NULL)
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
		return RTE_VHOST_MSG_RESULT_NOT_HANDLED;
	default:
		return RTE_VHOST_MSG_RESULT_NOT_HANDLED;
	}
}

static void
features_set(struct vrdma_dev *d, uint64_t features)
{
	pthread_mutex_lock(&d->lock);
	d->info.features = features;
	d->info.roce = (features & (1ull << d->conf.roce_bit)) != 0;
	pthread_mutex_unlock(&d->lock);
}

/* After rte_vhost accepted SET_FEATURES (features_changed only fires on a running device). */
static enum rte_vhost_msg_result
post_msg(int vid, void *raw)
{
	struct vrdma_vu_msg *msg = raw;
	struct vrdma_dev *d;
	uint64_t f;

	if (msg->request != VRDMA_VU_SET_FEATURES)
		return RTE_VHOST_MSG_RESULT_NOT_HANDLED;
	d = dev_of_vid(vid);
	if (d != NULL && rte_vhost_get_negotiated_features(vid, &f) == 0)
		features_set(d, f);
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

	if (d == NULL)
		return -1;
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
	VRDMA_LOG(INFO, "%s: frontend connected (vid %d)", d->path, vid);
	return 0;
}

static void
on_destroy_connection(int vid)
{
	struct vrdma_dev *d = dev_of_vid(vid);

	if (d == NULL)
		return;
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

	if (d != NULL)
		features_set(d, features);
	return 0;
}

/* The device runs from here: new_device needs every ring the frontend touched. */
static int
on_vring_state_changed(int vid, uint16_t ring, int enable)
{
	struct vrdma_dev *d = dev_of_vid(vid);
	uint64_t bit = 1ull << (ring % 64);

	if (d == NULL || ring >= VRDMA_MAX_RINGS)
		return 0;
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
	pthread_mutex_init(&d->lock, NULL);
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
	pthread_mutex_destroy(&dev->lock);
	free(dev);
}

uint64_t
vrdma_dev_features(const struct vrdma_dev *dev)
{
	return dev->features;
}

void
vrdma_dev_info_get(struct vrdma_dev *dev, struct vrdma_dev_info *info)
{
	pthread_mutex_lock(&dev->lock);
	*info = dev->info;
	pthread_mutex_unlock(&dev->lock);
}
