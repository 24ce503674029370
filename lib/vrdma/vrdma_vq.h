/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef VRDMA_VQ_H
#define VRDMA_VQ_H

/*
 * Internal to lib/vrdma, not part of its API (vrdma.h and vrdma_abi.h are).
 *
 * The device side of a split virtqueue in guest memory: descriptor chains
 * are checked and their device-readable bytes copied out before use (a
 * guest may rewrite them at any time), device-writable buffers are
 * translated chunk by chunk, and used elements are published.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <linux/virtio_ring.h>
#include <rte_atomic.h>
#include <rte_vhost.h>

/* Most device-writable pieces of one chain (after translation). */
#define VRDMA_VQ_MAX_WSEG 64
/*
 * Most device-readable pieces of a chain read lazily (vrdma_vq_pop() with no
 * buffer): a request's head, its tail and one per SGE, and room to spare.
 */
#define VRDMA_VQ_MAX_RSEG 48

struct vrdma_vq {
	struct vring_desc *desc;
	struct vring_avail *avail;
	struct vring_used *used;
	uint16_t size;
	uint16_t last_avail;
	uint16_t last_used;
	bool live;       /* ready and not broken */
	bool broken;     /* the driver broke the ring: not served until it is set up again */
};

struct vrdma_wseg {
	uint8_t *host;
	uint32_t len;
};

/* One chain, taken from the ring. */
struct vrdma_chain {
	uint16_t head;
	uint32_t rlen;                 /* readable bytes, copied to the caller's buffer (or in rseg) */
	uint32_t wlen;                 /* writable bytes, in wseg */
	uint32_t nw;
	uint32_t nr;                   /* readable pieces in rseg (lazy reading only) */
	struct vrdma_wseg wseg[VRDMA_VQ_MAX_WSEG];
	struct vrdma_wseg rseg[VRDMA_VQ_MAX_RSEG];
};

/* Why a chain or a ring was refused (counted per device). */
struct vrdma_vq_stats {
	uint64_t bad_index;     /* avail index ran more than the ring size ahead, or head >= size */
	uint64_t bad_desc;      /* next out of range, loop, nested/empty indirect, read after write */
	uint64_t bad_addr;      /* a buffer outside guest memory */
	uint64_t too_long;      /* more readable bytes or writable pieces than allowed */
};

/*
 * Take the next available chain of @p vq. Its readable bytes are copied to
 * @p rbuf (at most @p rcap); with @p rbuf NULL they are only translated,
 * into ch->rseg, for the caller to copy out the parts it uses with
 * vrdma_chain_read() (each part once, before use).
 * @return 1 with @p ch filled; 0 when none is available; -1 when the chain
 *   is malformed (counted in @p st; the chain is consumed and ch->head set
 *   when the head was valid, so the caller may return it used with 0
 *   bytes); -2 when the ring itself is broken (vq->broken set).
 */
int vrdma_vq_pop(struct vrdma_vq *vq, const struct rte_vhost_memory *mem, uint8_t *rbuf,
		 uint32_t rcap, struct vrdma_chain *ch, struct vrdma_vq_stats *st);

/*
 * Take the next available chain's head without reading the chain (to
 * return it unused; vrdma_vq_pop() starts with it).
 * @return 1 with @p head set; 0 when none is available; -2 when the ring is
 *   broken (as vrdma_vq_pop()).
 */
int vrdma_vq_skip(struct vrdma_vq *vq, uint16_t *head, struct vrdma_vq_stats *st);

/* vrdma_chain_read() across pieces. */
uint32_t vrdma_chain_read_pieces(const struct vrdma_chain *ch, uint32_t off, void *dst,
				 uint32_t len);

/*
 * Copy @p len readable bytes of a lazily read chain, from byte @p off on,
 * to @p dst. @return bytes copied (fewer when the chain is shorter).
 */
static inline uint32_t
vrdma_chain_read(const struct vrdma_chain *ch, uint32_t off, void *dst, uint32_t len)
{
	/* a request in one buffer: the usual case, without the walk */
	if (ch->nr == 1 && off <= ch->rseg[0].len && len <= ch->rseg[0].len - off) {
		memcpy(dst, ch->rseg[0].host + off, len);
		return len;
	}
	return vrdma_chain_read_pieces(ch, off, dst, len);
}

/* Copy @p len bytes to a chain's writable buffers. @return bytes written. */
uint32_t vrdma_chain_write(const struct vrdma_chain *ch, const void *src, uint32_t len);

/* Copy @p len bytes to a chain's writable buffers from byte @p off on. @return bytes written. */
uint32_t vrdma_chain_write_at(const struct vrdma_chain *ch, uint32_t off, const void *src,
			      uint32_t len);

/* Put back the last @p n chains taken and not returned: they are read again next time. */
static inline void
vrdma_vq_unpop(struct vrdma_vq *vq, uint16_t n)
{
	vq->last_avail = (uint16_t)(vq->last_avail - n);
}

/* Mark ring @p ring in a bitmap of rings to signal. */
static inline void
vrdma_call_set(uint64_t *bits, uint32_t ring)
{
	bits[ring / 64] |= 1ull << (ring % 64);
}

/*
 * The driver wants calls on @p vq (it did not set NO_INTERRUPT). Call it
 * after publishing used chains: the used index stores come before this
 * read of the flags (a full fence, as rte_vhost_vring_call has), so a
 * driver that turns calls back on and then looks at the used index cannot
 * miss both.
 */
static inline bool
vrdma_vq_wants_calls(const struct vrdma_vq *vq)
{
	/* DPDK's full fence (a locked add on x86, cheaper than mfence) */
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	return !(__atomic_load_n(&vq->avail->flags, __ATOMIC_RELAXED) &
		 VRING_AVAIL_F_NO_INTERRUPT);
}

/* Publish chain @p head as used with @p len bytes written. */
static inline void
vrdma_vq_push(struct vrdma_vq *vq, uint16_t head, uint32_t len)
{
	struct vring_used_elem *e = &vq->used->ring[vq->last_used & (vq->size - 1)];

	e->id = head;
	e->len = len;
	vq->last_used++;
	/* the element before the index the driver reads */
	__atomic_store_n(&vq->used->idx, vq->last_used, __ATOMIC_RELEASE);
}

#endif /* VRDMA_VQ_H */
