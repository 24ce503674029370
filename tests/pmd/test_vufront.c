/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * lib/vufront (the vhost-user frontend) against DPDK's own vhost-user
 * backend, rte_vhost with its built-in virtio-net datapath, in this
 * process: negotiation, guest memory, both net rings, frames each way,
 * interrupts, acks of refused requests, and stopping a ring.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_vhost.h>

#include "test_case.h"
#include "test_eal.h"
#include "test_wait.h"
#include "vuf.h"

#define NET_HDR_LEN 12 /* virtio_net_hdr with num_buffers (VERSION_1) */
#define RING_SIZE 256
#define F_VERSION_1 32
#define TIMEOUT_MS 5000

static char sock_dir[64], sock_path[128];
static volatile int vid_ready = -1;
static volatile int destroyed;

static int
on_new_device(int vid)
{
	vid_ready = vid;
	return 0;
}

static void
on_destroy_device(int vid)
{
	(void)vid;
	destroyed = 1;
}

static const struct rte_vhost_device_ops ops = {
	.new_device = on_new_device,
	.destroy_device = on_destroy_device,
};

static int
backend_up(void **state)
{
	if (test_eal_setup(state) < 0)
		return -1;
	snprintf(sock_dir, sizeof(sock_dir), "/tmp/vuf-test-XXXXXX");
	if (mkdtemp(sock_dir) == NULL)
		return -1;
	snprintf(sock_path, sizeof(sock_path), "%s/vhost.sock", sock_dir);
	if (rte_vhost_driver_register(sock_path, 0) != 0 ||
	    rte_vhost_driver_callback_register(sock_path, &ops) != 0 ||
	    rte_vhost_driver_start(sock_path) != 0)
		return -1;
	return 0;
}

static int
backend_down(void **state)
{
	rte_vhost_driver_unregister(sock_path);
	unlink(sock_path);
	rmdir(sock_dir);
	return test_eal_teardown(state);
}

static bool
wait_for(volatile int *v, int not_value)
{
	return test_wait_until(*v != not_value, TIMEOUT_MS);
}

static void
test_frames_both_ways_with_rte_vhost_net(void **state)
{
	struct vuf_mem *mem = vuf_mem_create(4 << 20, 0x100000);
	struct vuf_conn *c;
	struct vuf_vq rx, tx;
	uint64_t features, pf, cnt;
	uint8_t frame[100], *txbuf, *rxbuf[4];
	struct rte_mbuf *m;
	struct vuf_buf b;
	void *cookie;
	uint32_t len, base;
	unsigned int i;
	int n, r;

	(void)state;
	assert_non_null(mem);
	c = vuf_connect(sock_path, TIMEOUT_MS);
	assert_non_null(c);
	assert_int_equal(vuf_get_features(c, &features), 0);
	assert_true(features & (1ull << F_VERSION_1));
	assert_true(features & (1ull << VUF_F_PROTOCOL_FEATURES));
	assert_int_equal(vuf_set_owner(c), 0);
	assert_int_equal(vuf_set_features(c, (1ull << F_VERSION_1) |
					  (1ull << VUF_F_PROTOCOL_FEATURES)), 0);
	assert_int_equal(vuf_get_protocol_features(c, &pf), 0);
	assert_true(pf & (1ull << VUF_PROTOCOL_F_REPLY_ACK));
	assert_int_equal(vuf_set_protocol_features(c, 1ull << VUF_PROTOCOL_F_REPLY_ACK), 0);
	assert_int_equal(vuf_set_mem_table(c, mem), 0);
	assert_int_equal(vuf_vq_init(&rx, mem, 0, RING_SIZE), 0);
	assert_int_equal(vuf_vq_init(&tx, mem, 1, RING_SIZE), 0);

	/* a ring size that is not a power of two is refused, acked as an error */
	{
		struct { uint32_t index, num; } bad = { 1, 3 };

		assert_int_equal(vuf_send(c, VUF_SET_VRING_NUM, &bad, sizeof(bad), NULL, 0),
				 -EIO);
	}
	assert_int_equal(vuf_vq_start(c, &rx, true), 0);
	assert_int_equal(vuf_vq_start(c, &tx, true), 0);
	assert_true(wait_for(&vid_ready, -1));

	/* guest -> backend: one chain, header and frame in one buffer */
	for (i = 0; i < sizeof(frame); i++)
		frame[i] = (uint8_t)(i * 7 + 1);
	txbuf = vuf_mem_alloc(mem, NET_HDR_LEN + sizeof(frame), 64);
	assert_non_null(txbuf);
	memset(txbuf, 0, NET_HDR_LEN);
	memcpy(txbuf + NET_HDR_LEN, frame, sizeof(frame));
	b = (struct vuf_buf){ txbuf, NET_HDR_LEN + sizeof(frame) };
	assert_int_equal(vuf_vq_add(&tx, &b, 1, NULL, 0, txbuf), 0);
	vuf_vq_kick(&tx);
	n = 0;
	TEST_WAIT((n = rte_vhost_dequeue_burst(vid_ready, 1, test_pool, &m, 1)) != 0, TIMEOUT_MS);
	assert_int_equal(n, 1);
	assert_int_equal(rte_pktmbuf_pkt_len(m), sizeof(frame));
	assert_memory_equal(rte_pktmbuf_mtod(m, void *), frame, sizeof(frame));
	/* the backend returned the chain with our cookie */
	assert_int_equal(vuf_vq_get_used(&tx, &cookie, &len), 1);
	assert_ptr_equal(cookie, txbuf);
	assert_int_equal(vuf_vq_in_flight(&tx), 0);

	/* backend -> guest: four writable buffers posted, one frame back */
	for (i = 0; i < 4; i++) {
		rxbuf[i] = vuf_mem_alloc(mem, 2048, 64);
		assert_non_null(rxbuf[i]);
		b = (struct vuf_buf){ rxbuf[i], 2048 };
		assert_int_equal(vuf_vq_add(&rx, NULL, 0, &b, 1, rxbuf[i]), 0);
	}
	vuf_vq_kick(&rx);
	/* no interrupt before the backend has used anything */
	assert_int_equal(read(rx.callfd, &cnt, sizeof(cnt)), -1);
	assert_int_equal(errno, EAGAIN);
	for (i = 0; i < sizeof(frame); i++)
		frame[i] = (uint8_t)(0xff - i);
	rte_pktmbuf_reset(m);
	memcpy(rte_pktmbuf_append(m, sizeof(frame)), frame, sizeof(frame));
	assert_int_equal(rte_vhost_enqueue_burst(vid_ready, 0, &m, 1), 1);
	rte_pktmbuf_free(m);
	assert_int_equal(vuf_vq_get_used(&rx, &cookie, &len), 1);
	assert_ptr_equal(cookie, rxbuf[0]);
	assert_int_equal(len, NET_HDR_LEN + sizeof(frame));
	assert_memory_equal(rxbuf[0] + NET_HDR_LEN, frame, sizeof(frame));
	assert_int_equal(vuf_vq_get_used(&rx, &cookie, &len), 0);
	assert_int_equal(vuf_vq_in_flight(&rx), 3);
	/* the guest did not suppress interrupts, so the backend signalled */
	assert_int_equal(read(rx.callfd, &cnt, sizeof(cnt)), sizeof(cnt));
	assert_true(cnt >= 1);

	/* stopping the TX ring returns where the backend got to, and ends the device */
	r = vuf_get_vring_base(c, 1, &base);
	assert_int_equal(r, 0);
	assert_int_equal(base, 1);
	assert_true(wait_for(&destroyed, 0));

	vuf_close(c);
	vuf_vq_fini(&rx);
	vuf_vq_fini(&tx);
	vuf_mem_destroy(mem);
}

/*
 * A device played by the test, straight on the split ring's layout (virtio
 * 1.x, 2.7): what the frontend must cope with whoever the backend is.
 */
struct ring_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags, next;
};

static uint16_t *
used_idx(struct vuf_vq *vq)
{
	return (uint16_t *)vq->used + 1;
}

static uint32_t *
used_elem(struct vuf_vq *vq, uint16_t pos)
{
	return (uint32_t *)((uint16_t *)vq->used + 2) + 2 * (pos & (vq->size - 1));
}

/* Return chain @p id with @p len bytes written. */
static void
dev_use(struct vuf_vq *vq, uint32_t id, uint32_t len)
{
	uint16_t idx = *used_idx(vq);

	used_elem(vq, idx)[0] = id;
	used_elem(vq, idx)[1] = len;
	__atomic_store_n(used_idx(vq), (uint16_t)(idx + 1), __ATOMIC_RELEASE);
}

/* Change the element the frontend has not yet taken. */
static void
dev_rewrite_last(struct vuf_vq *vq, uint32_t id, uint32_t len)
{
	uint16_t idx = (uint16_t)(*used_idx(vq) - 1);

	used_elem(vq, idx)[0] = id;
	used_elem(vq, idx)[1] = len;
}

static void
test_frontend_refuses_bad_buffers_and_full_rings(void **state)
{
	struct vuf_mem *mem = vuf_mem_create(1 << 20, 0), *other = vuf_mem_create(4096, 0);
	struct vuf_vq vq;
	struct vuf_buf b;
	uint8_t *p, outside[16];
	void *cookie;
	uint32_t len;

	(void)state;
	assert_non_null(mem);
	assert_non_null(other);
	assert_int_equal(vuf_vq_init(&vq, mem, 0, 3), -EINVAL);
	vuf_vq_fini(&vq);
	assert_int_equal(vuf_vq_init(&vq, mem, 0, 4), 0);
	p = vuf_mem_alloc(mem, 64, 64);
	assert_non_null(p);
	/* buffers outside the ring's guest memory, or none at all */
	b = (struct vuf_buf){ outside, sizeof(outside) };
	assert_int_equal(vuf_vq_add(&vq, &b, 1, NULL, 0, NULL), -EINVAL);
	b = (struct vuf_buf){ vuf_mem_alloc(other, 64, 64), 64 };
	assert_int_equal(vuf_vq_add(&vq, &b, 1, NULL, 0, NULL), -EINVAL);
	b = (struct vuf_buf){ p, 1 << 20 };
	assert_int_equal(vuf_vq_add(&vq, &b, 1, NULL, 0, NULL), -EINVAL);
	assert_int_equal(vuf_vq_add(&vq, NULL, 0, NULL, 0, NULL), -EINVAL);
	/* four descriptors: a 3-chain fits, a second 2-chain does not */
	{
		struct vuf_buf three[3] = { { p, 8 }, { p + 8, 8 }, { p + 16, 8 } };

		assert_int_equal(vuf_vq_add(&vq, three, 1, three + 1, 2, p), 0);
		assert_int_equal(vuf_vq_add(&vq, three, 2, NULL, 0, p), -ENOSPC);
	}
	/* a used element the frontend never made available is refused, and stays unconsumed */
	assert_int_equal(vuf_vq_get_used(&vq, &cookie, &len), 0);
	dev_use(&vq, 2, 0); /* the third descriptor of the chain, not its head */
	assert_int_equal(vuf_vq_get_used(&vq, &cookie, &len), -EPROTO);
	dev_rewrite_last(&vq, 4, 0); /* beyond the ring */
	assert_int_equal(vuf_vq_get_used(&vq, &cookie, &len), -EPROTO);
	dev_rewrite_last(&vq, 0, 17); /* more than the chain's 16 writable bytes */
	assert_int_equal(vuf_vq_get_used(&vq, &cookie, &len), -EPROTO);
	dev_rewrite_last(&vq, 0, 16); /* now right: taken */
	assert_int_equal(vuf_vq_get_used(&vq, &cookie, &len), 1);
	assert_ptr_equal(cookie, p);
	assert_int_equal(len, 16);
	/* the same head again, no longer in flight */
	dev_use(&vq, 0, 0);
	assert_int_equal(vuf_vq_get_used(&vq, &cookie, &len), -EPROTO);
	vuf_vq_fini(&vq);
	vuf_mem_destroy(mem);
	vuf_mem_destroy(other);
}

/*
 * Chains of 1 to 4 descriptors through a 4-entry ring, well past the
 * 16-bit index wrap: each is made available with the right descriptors
 * (addresses, lengths, flags, links), used by the test's device in an
 * order of its own, and returned with its cookie and length; a full ring
 * refuses more until something is used.
 */
static void
test_chains_round_trip_past_index_wraparound(void **state)
{
	struct vuf_mem *mem = vuf_mem_create(1 << 20, 0x40000000);
	const struct ring_desc *desc;
	struct vuf_vq vq;
	uint8_t *buf;
	uint32_t cycle, len, k, added = 0;
	void *cookie;

	(void)state;
	assert_non_null(mem);
	assert_int_equal(vuf_vq_init(&vq, mem, 5, 4), 0);
	desc = (const struct ring_desc *)vq.desc;
	buf = vuf_mem_alloc(mem, 4 * 64, 64);
	assert_non_null(buf);
	for (cycle = 0; cycle < 70000; cycle++) {
		unsigned int n = 1 + cycle % 4, n_out = n > 1 ? 1 : 1 - (cycle & 1);
		struct vuf_buf b[4];
		uint16_t avail_pos = vq.avail_idx, head, d;
		const uint16_t *avail_ring = (const uint16_t *)vq.avail + 2;

		for (k = 0; k < n; k++)
			b[k] = (struct vuf_buf){ buf + 64 * k, 8 + k };
		assert_int_equal(vuf_vq_add(&vq, b, n_out, b + n_out, n - n_out,
					    (void *)(uintptr_t)(cycle + 1)), 0);
		added++;
		if (n == 4 || (cycle % 7) == 0) {
			struct vuf_buf one = { buf, 1 };

			/* n == 4 takes every descriptor; otherwise fill it up */
			for (; vq.num_free > 0; added++)
				assert_int_equal(vuf_vq_add(&vq, &one, 1, NULL, 0, NULL), 0);
			assert_int_equal(vuf_vq_add(&vq, &one, 1, NULL, 0, NULL), -ENOSPC);
		}
		assert_int_equal(*((const uint16_t *)vq.avail + 1), vq.avail_idx);
		head = avail_ring[avail_pos & 3];
		for (k = 0, d = head; k < n; k++) {
			assert_int_equal(desc[d].addr, vuf_mem_gpa(mem, buf + 64 * k));
			assert_int_equal(desc[d].len, 8 + k);
			assert_int_equal(!!(desc[d].flags & 2), k >= n_out);
			assert_int_equal(!!(desc[d].flags & 1), k + 1 < n);
			d = desc[d].next;
		}
		/* the device uses the chain, then whatever filled the ring */
		len = n > n_out ? 8 + n_out : 0;
		dev_use(&vq, head, len);
		while ((uint16_t)(avail_pos + 1) != vq.avail_idx) {
			avail_pos++;
			dev_use(&vq, avail_ring[avail_pos & 3], 0);
		}
		assert_int_equal(vuf_vq_get_used(&vq, &cookie, &k), 1);
		assert_ptr_equal(cookie, (void *)(uintptr_t)(cycle + 1));
		assert_int_equal(k, len);
		while (vuf_vq_in_flight(&vq) > 0)
			assert_int_equal(vuf_vq_get_used(&vq, &cookie, &k), 1);
		assert_int_equal(vq.num_free, 4);
	}
	/* the 16-bit indices wrapped: more chains than 65536 went through */
	assert_true(added > 65536);
	assert_int_equal((uint16_t)added, vq.avail_idx);
	vuf_vq_fini(&vq);
	vuf_mem_destroy(mem);
}

/*
 * Completion buffers handed back at once: vuf_vq_recycle_burst() takes the
 * used ones and queues each again on its own descriptor, unchanged, and
 * the device sees them only at vuf_vq_publish(); a used element that is
 * not a one-buffer chain in flight is refused (-EPROTO), and ends a burst
 * before it. get_used_burst takes several at one read of the index.
 */
static void
test_recycled_buffers_return_on_their_descriptors(void **state)
{
	struct vuf_mem *mem = vuf_mem_create(1 << 20, 0x40000000);
	const uint16_t *avail_ring;
	const struct ring_desc *desc;
	struct vuf_buf b[3];
	void *cookie[4];
	uint32_t len[4], k;
	struct vuf_vq vq;
	uint8_t *buf;

	(void)state;
	assert_non_null(mem);
	assert_int_equal(vuf_vq_init(&vq, mem, 3, 8), 0);
	desc = (const struct ring_desc *)vq.desc;
	avail_ring = (const uint16_t *)vq.avail + 2;
	buf = vuf_mem_alloc(mem, 4 * 64, 64);
	assert_non_null(buf);
	for (k = 0; k < 4; k++) {
		b[0] = (struct vuf_buf){ buf + 64 * k, 48 };
		assert_int_equal(vuf_vq_add(&vq, NULL, 0, b, 1, buf + 64 * k), 0);
	}
	/* the device fills 2 and 0 */
	dev_use(&vq, 2, 48);
	dev_use(&vq, 0, 40);
	assert_int_equal(vuf_vq_recycle_burst(&vq, cookie, len, 4), 2);
	assert_ptr_equal(cookie[0], buf + 128);
	assert_int_equal(len[0], 48);
	assert_ptr_equal(cookie[1], buf);
	assert_int_equal(len[1], 40);
	/* queued on their own descriptors, unchanged, but not yet visible */
	assert_int_equal(avail_ring[4], 2);
	assert_int_equal(avail_ring[5], 0);
	assert_int_equal(*((const uint16_t *)vq.avail + 1), 4);
	vuf_vq_publish(&vq);
	assert_int_equal(*((const uint16_t *)vq.avail + 1), 6);
	assert_int_equal(desc[2].addr, vuf_mem_gpa(mem, buf + 128));
	assert_int_equal(desc[2].len, 48);
	assert_int_equal(desc[2].flags, 2);
	assert_int_equal(vq.num_free, 4);
	assert_int_equal(vuf_vq_in_flight(&vq), 4);
	/* nothing used: nothing taken */
	assert_int_equal(vuf_vq_recycle_burst(&vq, cookie, len, 4), 0);
	/* a chain of two buffers is not recycled: refused, and ends the burst before it */
	b[0] = (struct vuf_buf){ buf, 8 };
	b[1] = (struct vuf_buf){ buf + 8, 8 };
	assert_int_equal(vuf_vq_add(&vq, b, 1, b + 1, 1, NULL), 0);
	dev_use(&vq, 1, 48);
	dev_use(&vq, avail_ring[6], 0);
	assert_int_equal(vuf_vq_recycle_burst(&vq, cookie, len, 4), 1);
	assert_ptr_equal(cookie[0], buf + 64);
	assert_int_equal(vuf_vq_recycle_burst(&vq, cookie, len, 4), -EPROTO);
	/* a length beyond the buffer, and an id never made available, are refused too */
	assert_int_equal(vuf_vq_get_used(&vq, &cookie[0], &len[0]), 1);
	dev_use(&vq, 3, 49);
	assert_int_equal(vuf_vq_recycle_burst(&vq, cookie, len, 4), -EPROTO);
	dev_rewrite_last(&vq, 7, 0);
	assert_int_equal(vuf_vq_recycle_burst(&vq, cookie, len, 4), -EPROTO);
	dev_rewrite_last(&vq, 3, 48);
	dev_use(&vq, 2, 48);
	/* get_used_burst: both at once */
	assert_int_equal(vuf_vq_get_used_burst(&vq, cookie, len, 4), 2);
	assert_ptr_equal(cookie[0], buf + 192);
	assert_ptr_equal(cookie[1], buf + 128);
	/* a device naming a buffer twice: the second is refused until the first is published */
	b[0] = (struct vuf_buf){ buf + 192, 48 };
	assert_int_equal(vuf_vq_add(&vq, NULL, 0, b, 1, buf + 192), 0);
	k = avail_ring[(uint16_t)(vq.avail_idx - 1) & 7];
	dev_use(&vq, k, 48);
	dev_use(&vq, k, 48);
	assert_int_equal(vuf_vq_recycle_burst(&vq, cookie, len, 4), 1);
	assert_int_equal(vuf_vq_recycle_burst(&vq, cookie, len, 4), -EPROTO);
	vuf_vq_publish(&vq);
	assert_int_equal(vuf_vq_recycle_burst(&vq, cookie, len, 4), 1);
	assert_ptr_equal(cookie[0], buf + 192);
	vuf_vq_publish(&vq);
	vuf_vq_fini(&vq);
	vuf_mem_destroy(mem);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frames_both_ways_with_rte_vhost_net),
		cmocka_unit_test(test_frontend_refuses_bad_buffers_and_full_rings),
		cmocka_unit_test(test_chains_round_trip_past_index_wraparound),
		cmocka_unit_test(test_recycled_buffers_return_on_their_descriptors),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests_name("vufront", tests, backend_up, backend_down);
}
