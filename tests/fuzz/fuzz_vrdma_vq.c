/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * libFuzzer target: lib/vrdma's split-ring reader (vrdma_vq_pop()) against
 * any ring a guest can write. Guest memory is 16 KiB at guest-physical
 * 0x10000 in one region; the input fills it from the start: the 16-entry
 * descriptor table (256 bytes), then the available ring (flags, idx,
 * ring[16]), then buffers and indirect tables. The input's first byte is
 * the device's last available index; its low bit picks lazy reading (no
 * buffer: readable pieces translated, read with vrdma_chain_read()).
 *
 * Oracle beyond the sanitizers: a chain's readable bytes fit the caller's
 * buffer; its readable and writable pieces lie inside guest memory and add
 * up to its readable and writable lengths, and a lazy read gives exactly
 * the readable length; a refused chain or ring is counted; at most 16
 * chains come out of a 16-entry ring before it runs dry or is found broken.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vrdma_vq.h"

#define GPA 0x10000ull
#define GLEN (16u << 10)
#define RING 16
#define RCAP 512

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t rbuf[RCAP];
	static union {
		struct rte_vhost_memory m;
		uint8_t room[sizeof(struct rte_vhost_memory) + sizeof(struct rte_vhost_mem_region)];
	} mem;
	struct rte_vhost_mem_region *reg = &mem.m.regions[0];
	static uint8_t g[GLEN] __rte_aligned(4096);
	static uint8_t used_mem[sizeof(struct vring_used) + RING * sizeof(struct vring_used_elem)];
	struct vring_used *used = (struct vring_used *)used_mem;
	struct vrdma_vq_stats st = { 0 }, zero = { 0 };
	struct vrdma_vq vq = { 0 };
	struct vrdma_chain ch;
	unsigned int chains = 0;

	if (size < 1)
		return 0;
	memset(g, 0, sizeof(g));
	memset(used_mem, 0, sizeof(used_mem));
	memcpy(g, data + 1, RTE_MIN(size - 1, (size_t)GLEN));
	memset(&mem, 0, sizeof(mem));
	mem.m.nregions = 1;
	reg->guest_phys_addr = GPA;
	reg->host_user_addr = (uint64_t)(uintptr_t)g;
	reg->size = GLEN;
	vq.desc = (struct vring_desc *)g;
	vq.avail = (struct vring_avail *)(g + RING * sizeof(struct vring_desc));
	vq.used = used;
	vq.size = RING;
	vq.last_avail = data[0];
	vq.live = true;
	for (;;) {
		bool lazy = data[0] & 1;
		int rc = vrdma_vq_pop(&vq, &mem.m, lazy ? NULL : rbuf, RCAP, &ch, &st);
		uint32_t i, sum = 0, rsum = 0;

		if (rc == 0)
			break;
		if (rc == -2) {
			if (!vq.broken || vq.live || st.bad_index == 0)
				abort();
			break;
		}
		if (++chains > RING)
			abort(); /* more chains than the ring holds */
		if (rc < 0) {
			if (memcmp(&st, &zero, sizeof(st)) == 0)
				abort(); /* a refusal that was not counted */
			vrdma_vq_push(&vq, ch.head, 0);
			continue;
		}
		if (ch.rlen > RCAP || ch.head >= RING || ch.nw > VRDMA_VQ_MAX_WSEG)
			abort();
		for (i = 0; i < ch.nw; i++) {
			const uint8_t *p = ch.wseg[i].host;

			if (p < g || p + ch.wseg[i].len > g + GLEN)
				abort();
			sum += ch.wseg[i].len;
		}
		if (sum != ch.wlen)
			abort();
		if (lazy) {
			for (i = 0; i < ch.nr; i++) {
				const uint8_t *p = ch.rseg[i].host;

				if (p < g || p + ch.rseg[i].len > g + GLEN)
					abort();
				rsum += ch.rseg[i].len;
			}
			if (rsum != ch.rlen || ch.nr > VRDMA_VQ_MAX_RSEG ||
			    vrdma_chain_read(&ch, 0, rbuf, RCAP) != ch.rlen)
				abort();
		}
		vrdma_vq_push(&vq, ch.head, vrdma_chain_write(&ch, rbuf, RTE_MIN(ch.rlen, ch.wlen)));
	}
	return 0;
}
