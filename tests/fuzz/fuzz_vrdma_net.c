/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * libFuzzer target: lib/vrdma's virtio-net queues (vrdma_net_poll())
 * against any guest-written receive and transmit ring. Guest memory is
 * 64 KiB at guest-physical 0x100000; the input's first 4 bytes are the
 * last available index of receiveq and transmitq, the number of wire
 * frames waiting (0-7, their lengths from byte 3) and whether MRG_RXBUF was
 * negotiated; the rest fills guest memory from the start: each ring's
 * 16-entry descriptor table and available ring at 1 KiB steps (receiveq,
 * transmitq), then buffers anywhere.
 *
 * Oracle beyond the sanitizers: every chain taken is returned exactly once
 * or put back (the used ring names exactly the heads taken from the
 * available ring, as often); every wire frame is delivered,
 * dropped (counted) or still waiting; every guest frame on the wire is one
 * the device counted and of a legal length; no mbuf leaks (the pool is
 * full again after each input).
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "vrdma_net.h"

#define GPA 0x100000ull
#define GLEN (64u << 10)
#define RING 16
#define HDR_IN 4
#define POOL 511

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct rte_mempool *pool;
static struct rte_ring *rx, *tx;
static uint8_t *g;
static union {
	struct rte_vhost_memory m;
	uint8_t room[sizeof(struct rte_vhost_memory) + sizeof(struct rte_vhost_mem_region)];
} mem;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char prefix[64];
	char *eal[] = { "fuzz_vrdma_net", "--no-huge", "-m", "128", "--no-pci", "--no-shconf",
			"--no-telemetry", "-l", "0", "--log-level=lib.eal:error", prefix, NULL };

	(void)argc;
	(void)argv;
	snprintf(prefix, sizeof(prefix), "--file-prefix=fuzz_vrdma_net_%d", (int)getpid());
	if (rte_eal_init(RTE_DIM(eal) - 1, eal) < 0)
		abort();
	pool = rte_pktmbuf_pool_create("fz_pool", POOL, 0, 0, 4096, SOCKET_ID_ANY);
	rx = rte_ring_create("fz_rx", 16, SOCKET_ID_ANY, 0);
	tx = rte_ring_create("fz_tx", 64, SOCKET_ID_ANY, 0);
	g = aligned_alloc(4096, GLEN);
	if (pool == NULL || rx == NULL || tx == NULL || g == NULL)
		abort();
	mem.m.nregions = 1;
	mem.m.regions[0].guest_phys_addr = GPA;
	mem.m.regions[0].host_user_addr = (uint64_t)(uintptr_t)g;
	mem.m.regions[0].size = GLEN;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vrdma_net n;
	static struct vrdma_vq vq[2];
	static uint8_t used_mem[2][sizeof(struct vring_used) + RING * sizeof(struct vring_used_elem)];
	static uint8_t ringmem[2048] __rte_aligned(16);
	struct vrdma_vq_stats vqst = { 0 };
	uint64_t call[4] = { 0 }, want_rx = 0, dropped;
	uint32_t frames, i, k;
	uint16_t start[2];
	struct rte_mbuf *m;

	if (size < HDR_IN)
		return 0;
	memset(g, 0, GLEN);
	memcpy(g, data + HDR_IN, RTE_MIN(size - HDR_IN, (size_t)GLEN));
	memset(vq, 0, sizeof(vq));
	memset(used_mem, 0, sizeof(used_mem));
	memset(&n, 0, sizeof(n));
	n.rx_ring = rx;
	n.tx_ring = tx;
	n.pool = pool;
	n.max_frame = 1518;
	n.mrg = data[3] & 1;
	n.hdr_len = (data[3] & 2) && !n.mrg ? 10 : 12;
	/*
	 * The rings as the input lays them out, but apart from the guest
	 * memory the buffers name: a frame written over the guest's own ring
	 * is the guest's affair, and would hide from the oracle what the
	 * device read.
	 */
	memcpy(ringmem, g, sizeof(ringmem));
	for (i = 0; i < 2; i++) {
		vq[i].desc = (struct vring_desc *)(ringmem + i * 1024);
		vq[i].avail = (struct vring_avail *)(ringmem + i * 1024 +
						     RING * sizeof(struct vring_desc));
		vq[i].used = (struct vring_used *)used_mem[i];
		vq[i].size = RING;
		vq[i].last_avail = data[i];
		vq[i].live = true;
		start[i] = data[i];
	}
	/* wire frames of 14..1518 bytes */
	frames = data[2] & 7;
	for (i = 0; i < frames; i++) {
		uint32_t len = 14 + ((uint32_t)data[2] * 37 + i * 331) % 1505;

		m = rte_pktmbuf_alloc(pool);
		if (m == NULL || rte_pktmbuf_append(m, (uint16_t)len) == NULL)
			abort();
		memset(rte_pktmbuf_mtod(m, void *), (int)i, len);
		want_rx += len;
		if (rte_ring_enqueue(rx, m) != 0)
			abort();
	}
	for (k = 0; k < 4; k++)
		vrdma_net_poll(&n, vq, &mem.m, &vqst, call);

	for (i = 0; i < 2; i++) {
		uint16_t taken = (uint16_t)(vq[i].last_avail - start[i]);
		uint32_t cnt[RING] = { 0 };

		if (vq[i].broken)
			continue;
		/* the chains returned are exactly those taken, each once */
		if (vq[i].last_used != taken || vq[i].used->idx != vq[i].last_used)
			abort();
		for (k = 0; k < taken; k++)
			cnt[vq[i].avail->ring[(uint16_t)(start[i] + k) % RING] % RING]++;
		for (k = 0; k < taken; k++)
			if (cnt[vq[i].used->ring[k].id % RING]-- == 0)
				abort();
	}
	/* receive side: delivered + dropped + waiting (pending or still queued) = frames */
	dropped = n.st.rx_too_big;
	if (n.st.rx_frames + dropped + (n.pending != NULL) + rte_ring_count(rx) != frames)
		abort();
	if (n.st.rx_bytes > want_rx)
		abort();
	/* transmit side: what reached the wire is what was counted */
	if (rte_ring_count(tx) != n.st.tx_frames)
		abort();
	while (rte_ring_dequeue(tx, (void **)&m) == 0) {
		if (m->pkt_len < 14 || m->pkt_len > n.max_frame)
			abort();
		rte_pktmbuf_free(m);
	}
	while (rte_ring_dequeue(rx, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	vrdma_net_reset(&n);
	if (rte_mempool_avail_count(pool) != POOL)
		abort(); /* an mbuf leaked */
	return 0;
}
