/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * lib/vrdma's device contract over vhost-user, driven by lib/vufront as the
 * guest: the configuration checks (RoCE bit, control class, the 256-ring
 * ceiling), the exact features offered (RoCE on a configurable bit, never
 * an upstream USO bit, no EVENT_IDX), GET_CONFIG with max_rdma_qps/cqs and
 * its refusals, SET_FEATURES refusing RoCE without the control queue, and
 * ring readiness followed from vring_state_changed; a new device's socket
 * served at once.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_vhost.h>

#include "test_case.h"
#include "test_eal.h"
#include "vrdma.h"
#include "vrdma_test_util.h"
#include "vuf.h"

#define F_MTU 3
#define F_MAC 5
#define F_MRG_RXBUF 15
#define F_STATUS 16
#define F_CTRL_VQ 17
#define F_INDIRECT 28
#define F_EVENT_IDX 29
#define F_VERSION_1 32
#define F_GUEST_USO4 54
#define F_HOST_USO 56

static void
test_conf_checked(void **state)
{
	struct vrdma_conf conf;
	char err[128];

	(void)state;
	vrdma_conf_init(&conf, "/x.sock");
	/* the defaults lack only the wire */
	assert_int_equal(vrdma_conf_check(&conf, err, sizeof(err)), -EINVAL);
	conf.roce_rx = vt_rx;
	conf.roce_tx = vt_tx;
	conf.pool = test_pool;
	assert_int_equal(vrdma_conf_check(&conf, err, sizeof(err)), 0);
	assert_int_equal(conf.roce_bit, 55);
	assert_int_equal(conf.ctrl_class, 6);
	/* transport bits, a bit the device already offers, past 63 */
	conf.roce_bit = 30;
	assert_int_equal(vrdma_conf_check(&conf, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a device feature bit"));
	conf.roce_bit = 24;
	assert_int_equal(vrdma_conf_check(&conf, err, sizeof(err)), -EINVAL);
	conf.roce_bit = F_MAC;
	assert_int_equal(vrdma_conf_check(&conf, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "already a virtio-net feature"));
	conf.roce_bit = 64;
	assert_int_equal(vrdma_conf_check(&conf, err, sizeof(err)), -EINVAL);
	conf.roce_bit = 41; /* virtio 1.3's last transport bit */
	assert_int_equal(vrdma_conf_check(&conf, err, sizeof(err)), -EINVAL);
	/* bits virtio-net assigns upstream: RSS 60, HOST_USO 56, HASH_REPORT 57, NOTF_COAL 53 */
	for (unsigned int b = 53; b <= 60; b++) {
		if (b == 55 || b == 58)
			continue;
		conf.roce_bit = b;
		assert_int_equal(vrdma_conf_check(&conf, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "already a virtio-net feature"));
	}
	conf.roce_bit = 58; /* unassigned */
	assert_int_equal(vrdma_conf_check(&conf, err, sizeof(err)), 0);
	conf.roce_bit = 4;
	assert_int_equal(vrdma_conf_check(&conf, err, sizeof(err)), 0);
	conf.roce_bit = 55;
	/* virtio-net's own control classes are not RoCE's */
	conf.ctrl_class = 5;
	assert_int_equal(vrdma_conf_check(&conf, err, sizeof(err)), -EINVAL);
	conf.ctrl_class = 6;
	/* 3 + CQs + 2 x QPs rings within 256: 3 + 1 + 252, then 3 + 1 + 254 */
	conf.max_cqs = 1;
	conf.max_qps = 126;
	assert_int_equal(vrdma_conf_check(&conf, err, sizeof(err)), 0);
	conf.max_qps = 127;
	assert_int_equal(vrdma_conf_check(&conf, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "258 rings"));
	/* QPN 0 (SMI) and 1 (GSI) take slots: 3 is the least */
	conf.max_qps = 2;
	assert_int_equal(vrdma_conf_check(&conf, err, sizeof(err)), -EINVAL);
	conf.max_qps = 16;
	/* a RoCE frame with a 256-byte payload must fit */
	conf.mtu = 335;
	assert_int_equal(vrdma_conf_check(&conf, err, sizeof(err)), -EINVAL);
	conf.mtu = 336;
	assert_int_equal(vrdma_conf_check(&conf, err, sizeof(err)), 0);
	/* the wire is required */
	conf.roce_tx = NULL;
	assert_int_equal(vrdma_conf_check(&conf, err, sizeof(err)), -EINVAL);
	conf.roce_tx = conf.roce_rx;
	/* and creation refuses what the check refuses */
	conf.mtu = 1500;
	conf.roce_bit = 30;
	assert_null(vrdma_dev_create(&conf));
	/* the queue map: CQs after the control queue, then SQ/RQ pairs */
	assert_int_equal(vrdma_cq_ring(0), 3);
	assert_int_equal(vrdma_sq_ring(64, 0), 67);
	assert_int_equal(vrdma_rq_ring(64, 0), 68);
	assert_int_equal(vrdma_sq_ring(64, 63), 193);
}

static void
test_features_and_config(void **state)
{
	uint64_t want = (1ull << F_MTU) | (1ull << F_MAC) | (1ull << F_MRG_RXBUF) | (1ull << F_STATUS) |
		(1ull << F_CTRL_VQ) | (1ull << F_INDIRECT) | (1ull << VUF_F_PROTOCOL_FEATURES) |
		(1ull << F_VERSION_1) | (1ull << 55);
	struct vrdma_dev_info info;
	struct vrdma_conf conf;
	struct vrdma_dev *dev;
	struct vuf_conn *c;
	uint8_t cfg[32], tail[16], zero[16] = { 0 };
	uint64_t f, pf;
	char path[128];
	uint32_t v32;
	int vid;

	(void)state;
	conf_for(&conf, path, sizeof(path), "dev.sock");
	conf.max_qps = 40;
	conf.max_cqs = 24;
	conf.mtu = 4000;
	dev = attach(&conf, &c, &info);
	assert_true(vrdma_dev_features(dev) == want);
	vid = info.vid;
	assert_int_equal(info.connections, 1);

	/* exactly the device's features: RoCE on 55, no USO neighbours, no EVENT_IDX */
	assert_int_equal(vuf_get_features(c, &f), 0);
	assert_true(f == want);
	assert_false(f & (1ull << F_GUEST_USO4));
	assert_false(f & (1ull << F_HOST_USO));
	assert_false(f & (1ull << F_EVENT_IDX));
	assert_int_equal(vuf_get_protocol_features(c, &pf), 0);
	assert_true(pf & (1ull << VUF_PROTOCOL_F_CONFIG));
	assert_true(pf & (1ull << VUF_PROTOCOL_F_REPLY_ACK));
	assert_int_equal(vuf_set_protocol_features(c, (1ull << VUF_PROTOCOL_F_CONFIG) |
						   (1ull << VUF_PROTOCOL_F_REPLY_ACK)), 0);

	/*
	 * virtio_net_config byte for byte (little-endian): mac, status LINK_UP,
	 * max_virtqueue_pairs 1, mtu 4000 (0x0fa0), speed and duplex unknown,
	 * RSS fields 0; then max_rdma_qps 40 at 24 and max_rdma_cqs 24 at 28.
	 */
	static const uint8_t want_cfg[32] = {
		0x02, 0x56, 0x52, 0x44, 0x4d, 0x41, 0x01, 0x00,
		0x01, 0x00, 0xa0, 0x0f, 0xff, 0xff, 0xff, 0xff,
		0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		40, 0, 0, 0, 24, 0, 0, 0,
	};
	assert_int_equal(vuf_get_config(c, 0, cfg, sizeof(cfg)), 0);
	assert_memory_equal(cfg, want_cfg, sizeof(cfg));
	/* a read at an offset, and past the defined fields (zeros) */
	assert_int_equal(vuf_get_config(c, 28, &v32, 4), 0);
	assert_int_equal(rte_le_to_cpu_32(v32), 24);
	memset(tail, 0xee, sizeof(tail));
	assert_int_equal(vuf_get_config(c, 32, tail, sizeof(tail)), 0);
	assert_memory_equal(tail, zero, sizeof(tail));
	vrdma_dev_info_get(dev, &info);
	assert_int_equal(info.config_reads, 3);
	assert_int_equal(info.config_refused, 0);

	/*
	 * Malformed reads get a reply of the 12-byte header alone (length 0)
	 * and the connection goes on: past the 256-byte region, a length that
	 * disagrees with the payload, a length over 256, a payload shorter
	 * than the header.
	 */
	struct { uint32_t offset, size, flags; uint8_t region[256]; } req, rep;
	const struct { uint32_t off, len, plen; } bad[] = {
		{ 250, 16, 12 + 16 }, { 8, 256, 12 + 256 },
		{ 0, 4, 12 + 8 }, { 0, 0xffffffffu, 12 }, { 0, 0, 8 },
	};
	for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
		memset(&req, 0, sizeof(req));
		req.offset = bad[i].off;
		req.size = bad[i].len;
		memset(&rep, 0xee, sizeof(rep));
		assert_int_equal(vuf_call(c, VUF_GET_CONFIG, &req, bad[i].plen, &rep, 12), 0);
		assert_int_equal(rep.size, 0);
		vrdma_dev_info_get(dev, &info);
		assert_int_equal(info.config_refused, i + 1);
	}
	assert_int_equal(vuf_get_config(c, 24, &v32, 4), 0);
	assert_int_equal(rte_le_to_cpu_32(v32), 40);
	vrdma_dev_info_get(dev, &info);
	assert_int_equal(info.config_reads, 4);
	assert_int_equal(info.vid, vid);
	assert_int_equal(info.connections, 1);
	detach(dev, c, path);
}

static void
test_features_negotiated(void **state)
{
	uint64_t base = (1ull << F_VERSION_1) | (1ull << VUF_F_PROTOCOL_FEATURES);
	struct vrdma_dev_info info;
	struct vrdma_conf conf;
	struct vrdma_dev *dev;
	struct vuf_conn *c;
	char path[128];
	uint64_t f;

	(void)state;
	conf_for(&conf, path, sizeof(path), "bit58.sock");
	conf.roce_bit = 58;
	conf.ctrl_class = 200;
	dev = attach(&conf, &c, &info);
	/* the configured bit, and 55 not offered at all */
	assert_int_equal(vuf_get_features(c, &f), 0);
	assert_true(f & (1ull << 58));
	assert_false(f & (1ull << 55));
	assert_int_equal(vuf_set_protocol_features(c, 1ull << VUF_PROTOCOL_F_REPLY_ACK), 0);
	assert_int_equal(vuf_set_owner(c), 0);
	/* RoCE without the control queue: refused with an error ack, nothing applied */
	assert_int_equal(vuf_set_features(c, base | (1ull << 58)), -EIO);
	vrdma_dev_info_get(dev, &info);
	assert_int_equal(info.features_refused, 1);
	assert_false(info.roce);
	assert_true(info.features == 0);
	/* rte_vhost never applied them either */
	assert_int_equal(rte_vhost_get_negotiated_features(info.vid, &f), 0);
	assert_true(f == 0);
	/* with it: RoCE negotiated */
	f = base | (1ull << F_CTRL_VQ) | (1ull << 58);
	assert_int_equal(vuf_set_features(c, f), 0);
	vrdma_dev_info_get(dev, &info);
	assert_true(info.roce);
	assert_true(info.features == f);
	detach(dev, c, path);
}

static void
test_ring_readiness(void **state)
{
	uint64_t f = (1ull << F_VERSION_1) | (1ull << VUF_F_PROTOCOL_FEATURES) |
		(1ull << F_CTRL_VQ) | (1ull << 55);
	struct vrdma_dev_info info;
	struct vrdma_conf conf;
	struct vrdma_dev *dev;
	struct vuf_vq ctrl, cq0;
	struct vuf_mem *mem;
	struct vuf_conn *c;
	int ctrl_up[2] = { 2, 1 }, ctrl_down[2] = { 2, 0 }, cq_up[2] = { 3, 1 };
	char path[128];

	(void)state;
	conf_for(&conf, path, sizeof(path), "rings.sock");
	mem = vuf_mem_create(1 << 20, 0x100000);
	assert_non_null(mem);
	dev = attach(&conf, &c, &info);
	assert_int_equal(vuf_set_protocol_features(c, 1ull << VUF_PROTOCOL_F_REPLY_ACK), 0);
	assert_int_equal(vuf_set_owner(c), 0);
	assert_int_equal(vuf_set_features(c, f), 0);
	assert_int_equal(vuf_set_mem_table(c, mem), 0);
	/* only the control queue and CQ 0 come up: the device sees each ring */
	assert_int_equal(vuf_vq_init(&ctrl, mem, 2, 64), 0);
	assert_int_equal(vuf_vq_start(c, &ctrl, true), 0);
	assert_true(wait_info(dev, ring_is, ctrl_up, &info));
	assert_int_equal(vuf_vq_init(&cq0, mem, vrdma_cq_ring(0), 64), 0);
	assert_int_equal(vuf_vq_start(c, &cq0, true), 0);
	assert_true(wait_info(dev, ring_is, cq_up, &info));
	assert_true(info.roce);
	/* disabling a ring takes it back */
	assert_int_equal(vuf_set_vring_enable(c, 2, false), 0);
	assert_true(wait_info(dev, ring_is, ctrl_down, &info));
	assert_true(info.ready[0] & (1ull << 3));
	detach(dev, c, path); /* every ring not ready once the frontend is gone */
	vuf_vq_fini(&ctrl);
	vuf_vq_fini(&cq0);
	vuf_mem_destroy(mem);
}

/* Destroying a device with a frontend attached closes it; the frontend sees the socket go. */
static void
test_destroy_connected(void **state)
{
	struct vrdma_dev_info info;
	struct vrdma_conf conf;
	struct vrdma_dev *dev;
	struct vuf_conn *c;
	char path[128];
	uint64_t f;

	(void)state;
	conf_for(&conf, path, sizeof(path), "live.sock");
	dev = attach(&conf, &c, &info);
	assert_int_equal(vuf_get_features(c, &f), 0);
	vrdma_dev_destroy(dev);
	assert_int_not_equal(vuf_get_features(c, &f), 0);
	assert_int_equal(access(path, F_OK), -1);
	vuf_close(c);
}

/*
 * rte_vhost 22.11 takes a new listening socket into its poll only when its
 * thread next wakes (a 1 s timeout); the device wakes it at creation, so a
 * frontend connecting at once is answered at once. rte_vhost's thread has
 * just started a fresh 1 s poll when the first device's answer arrives:
 * without the wake the second device would answer about a second later.
 */
static void
test_a_new_socket_is_served_at_once(void **state)
{
	struct vrdma_conf conf_a, conf_b;
	struct vrdma_dev_info info;
	struct vrdma_dev *a, *b;
	struct vuf_conn *ca, *cb;
	char path_a[128], path_b[128], wake[PATH_MAX];
	uint64_t f, t0, ms;

	(void)state;
	conf_for(&conf_a, path_a, sizeof(path_a), "first.sock");
	a = attach(&conf_a, &ca, &info);
	assert_int_equal(vuf_get_features(ca, &f), 0);

	conf_for(&conf_b, path_b, sizeof(path_b), "second.sock");
	t0 = rte_get_timer_cycles();
	b = vrdma_dev_create(&conf_b);
	assert_non_null(b);
	cb = vuf_connect(path_b, TIMEOUT_MS);
	assert_non_null(cb);
	assert_int_equal(vuf_get_features(cb, &f), 0);
	ms = (rte_get_timer_cycles() - t0) * 1000 / rte_get_timer_hz();
	print_message("second device answered %" PRIu64 " ms after its creation\n", ms);
	assert_true(ms < 500);
	assert_true(f == vrdma_dev_features(b));

	/* the wake's connection went elsewhere and left no socket behind */
	assert_true(wait_info(b, has_vid, NULL, &info));
	assert_int_equal(info.connections, 1);
	snprintf(wake, sizeof(wake), "%s/vrdma-wake.%d", rte_eal_get_runtime_dir(),
		 (int)getpid());
	assert_int_equal(access(wake, F_OK), -1);
	detach(b, cb, path_b);
	detach(a, ca, path_a);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conf_checked),
		cmocka_unit_test(test_features_and_config),
		cmocka_unit_test(test_features_negotiated),
		cmocka_unit_test(test_ring_readiness),
		cmocka_unit_test(test_destroy_connected),
		cmocka_unit_test(test_a_new_socket_is_served_at_once),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests_name("vrdma_dev", tests, group_up, group_down);
}
