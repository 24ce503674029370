/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * The device: its configuration, the configuration space it answers, its
 * registration as an rte_vhost socket (the callbacks are in vrdma_vhost.c,
 * the serving in vrdma_poll.c), destruction and the snapshot of its state.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_vhost.h>

#include "roce_wire.h"
#include "vrdma_internal.h"

RTE_LOG_REGISTER_DEFAULT(vrdma_logtype, NOTICE);

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
	conf->vlan_id = VRDMA_VLAN_NONE;
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
	if (conf->vlan_id > 4094 && conf->vlan_id != VRDMA_VLAN_NONE) {
		snprintf(err, errlen, "VLAN %u: a VID is 0..4094 (4095 is reserved)",
			 conf->vlan_id);
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
struct vrdma_dev *
vrdma_dev_of_vid(int vid)
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

/*
 * rte_vhost 22.11 serves every socket from one thread that poll()s them with
 * a 1 s timeout, and adds a new listening socket to its set without waking
 * that poll (lib/vhost/fd_man.c, socket.c: only a new connection writes the
 * thread's wake-up pipe). A frontend connecting to a device created less
 * than a second ago would wait for the timeout (one connecting as soon as
 * vhost-user-rdma served waited 0.8 s). A connection rte_vhost makes itself
 * does wake it: a vhost-user client socket, registered for the moment of
 * connecting to a listening socket of ours, makes the thread take the new
 * device's socket into its poll at once. Best effort: on any failure the
 * socket is served at the next timeout, as before. (DPDK 24.07 moved the
 * thread to epoll, where a new socket is watched at once.)
 */
static void
vhost_thread_wake(void)
{
	static pthread_mutex_t wake_lock = PTHREAD_MUTEX_INITIALIZER;
	/* no callback: the connection is dropped before any message */
	static const struct rte_vhost_device_ops no_ops;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, n;

	n = snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/vrdma-wake.%d",
		     rte_eal_get_runtime_dir(), (int)getpid());
	if (n < 0 || (size_t)n >= sizeof(sa.sun_path))
		return;
	pthread_mutex_lock(&wake_lock);
	/* a socket file a crashed process of the same pid left would make bind fail */
	unlink(sa.sun_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		VRDMA_LOG(DEBUG, "no wake of rte_vhost's thread: %s: %s", sa.sun_path,
			  strerror(errno));
	} else {
		if (listen(fd, 1) != 0 ||
		    rte_vhost_driver_register(sa.sun_path, RTE_VHOST_USER_CLIENT |
					      RTE_VHOST_USER_NO_RECONNECT) != 0) {
			VRDMA_LOG(DEBUG, "no wake of rte_vhost's thread: %s", sa.sun_path);
		} else {
			/* the client connects within start: rte_vhost wakes its thread for it */
			if (rte_vhost_driver_callback_register(sa.sun_path, &no_ops) != 0 ||
			    rte_vhost_driver_start(sa.sun_path) != 0)
				VRDMA_LOG(DEBUG, "could not wake rte_vhost's thread");
			rte_vhost_driver_unregister(sa.sun_path);
		}
		unlink(sa.sun_path);
	}
	if (fd >= 0)
		close(fd);
	pthread_mutex_unlock(&wake_lock);
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
	    rte_vhost_driver_callback_register(d->path, &vrdma_vhost_ops) != 0 ||
	    rte_vhost_driver_start(d->path) != 0) {
		VRDMA_LOG(ERR, "%s: cannot set up the vhost-user device", d->path);
		rte_vhost_driver_unregister(d->path);
		goto fail;
	}
	/* a frontend may connect at once: have rte_vhost watch the socket from now on */
	vhost_thread_wake();
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
	vrdma_dev_disconnect(dev);
	pthread_mutex_destroy(&dev->lock);
	free(dev->ctrl_buf);
	free(dev);
}

uint16_t
vrdma_dev_roce_mtu(struct vrdma_dev *d)
{
	uint16_t wire = __atomic_load_n(&d->wire_mtu, __ATOMIC_RELAXED);
	uint16_t mtu = d->conf.mtu;

	if (wire != 0 && wire < mtu)
		mtu = RTE_MAX(wire, (uint16_t)VRDMA_MIN_MTU);
	return mtu;
}

/* The largest IB MTU code whose payload and 80 bytes of headers fit @p eth_mtu (as lib/roce). */
static uint8_t
path_mtu_code(uint16_t eth_mtu)
{
	uint8_t code = ROCE_MTU_4096;

	while (code > ROCE_MTU_256 && (128u << code) + ROCE_MTU_OVERHEAD > eth_mtu)
		code--;
	return code;
}

int
vrdma_dev_wire_mtu_set(struct vrdma_dev *dev, uint16_t wire_mtu)
{
	/* the poller compares it with what its lib/roce device has, at each poll */
	__atomic_store_n(&dev->wire_mtu, wire_mtu, __ATOMIC_RELAXED);
	return path_mtu_code(vrdma_dev_roce_mtu(dev));
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
	info->path_mtu_clamped = __atomic_load_n(&dev->path_mtu_clamped, __ATOMIC_RELAXED);
	info->path_mtu = path_mtu_code(vrdma_dev_roce_mtu(dev));
}
