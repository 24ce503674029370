/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* Split virtqueues in guest memory, read defensively (see vrdma_vq.h). */

#include <string.h>

#include <rte_atomic.h>
#include <rte_common.h>

#include "vrdma_vq.h"

/* Copy @p len bytes of guest memory at @p gpa, region by region. @return 0 or -1. */
static int
guest_read(const struct rte_vhost_memory *mem, uint64_t gpa, void *dst, uint32_t len)
{
	uint8_t *d = dst;

	while (len > 0) {
		uint64_t n = len;
		uint64_t va = rte_vhost_va_from_guest_pa((struct rte_vhost_memory *)(uintptr_t)mem,
							 gpa, &n);

		if (va == 0 || n == 0)
			return -1;
		memcpy(d, (const void *)(uintptr_t)va, n);
		d += n;
		gpa += n;
		len -= (uint32_t)n;
	}
	return 0;
}

/*
 * Translate a guest buffer into host pieces appended to @p seg (at most
 * @p max), adding to @p n and @p total. @return 0, or -1 (bad address /
 * too many pieces: counted).
 */
static __rte_always_inline int
add_pieces(const struct rte_vhost_memory *mem, uint64_t gpa, uint32_t len,
	   struct vrdma_wseg *seg, uint32_t *n, uint32_t max, uint32_t *total,
	   struct vrdma_vq_stats *st)
{
	while (len > 0) {
		uint64_t got = len;
		uint64_t va = rte_vhost_va_from_guest_pa((struct rte_vhost_memory *)(uintptr_t)mem,
							 gpa, &got);

		if (va == 0 || got == 0) {
			st->bad_addr++;
			return -1;
		}
		if (*n == max) {
			st->too_long++;
			return -1;
		}
		seg[*n].host = (uint8_t *)(uintptr_t)va;
		seg[*n].len = (uint32_t)got;
		(*n)++;
		*total += (uint32_t)got;
		gpa += got;
		len -= (uint32_t)got;
	}
	return 0;
}

/* A writable buffer into the chain's pieces. */
static __rte_always_inline int
add_writable(const struct rte_vhost_memory *mem, uint64_t gpa, uint32_t len,
	     struct vrdma_chain *ch, struct vrdma_vq_stats *st)
{
	return add_pieces(mem, gpa, len, ch->wseg, &ch->nw, VRDMA_VQ_MAX_WSEG, &ch->wlen, st);
}

/* A readable buffer into the chain's pieces (lazy reading). */
static __rte_always_inline int
add_readable(const struct rte_vhost_memory *mem, uint64_t gpa, uint32_t len,
	     struct vrdma_chain *ch, struct vrdma_vq_stats *st)
{
	return add_pieces(mem, gpa, len, ch->rseg, &ch->nr, VRDMA_VQ_MAX_RSEG, &ch->rlen, st);
}

/* One descriptor's buffer into the chain. @return 0 or -1 (counted). */
static __rte_always_inline int
take_buffer(const struct rte_vhost_memory *mem, const struct vring_desc *d, uint8_t *rbuf,
	    uint32_t rcap, struct vrdma_chain *ch, struct vrdma_vq_stats *st)
{
	if (d->flags & VRING_DESC_F_WRITE)
		return add_writable(mem, d->addr, d->len, ch, st);
	/* virtio: every device-readable buffer comes before the writable ones */
	if (ch->nw > 0) {
		st->bad_desc++;
		return -1;
	}
	if (d->len > rcap - ch->rlen) {
		st->too_long++;
		return -1;
	}
	if (rbuf == NULL)
		return add_readable(mem, d->addr, d->len, ch, st);
	if (guest_read(mem, d->addr, rbuf + ch->rlen, d->len) < 0) {
		st->bad_addr++;
		return -1;
	}
	ch->rlen += d->len;
	return 0;
}

/*
 * Walk an indirect table (copied entry by entry). virtio: no chain is
 * longer than the queue size, so neither is a table (else a looping table
 * of 2^28 entries would keep the device walking). @return 0 or -1.
 */
static int
walk_indirect(const struct rte_vhost_memory *mem, const struct vring_desc *ind,
	      uint16_t qsize, uint8_t *rbuf, uint32_t rcap, struct vrdma_chain *ch,
	      struct vrdma_vq_stats *st)
{
	uint32_t n = ind->len / sizeof(struct vring_desc);
	uint32_t i = 0, seen;

	if (ind->len == 0 || ind->len % sizeof(struct vring_desc) != 0 || n > qsize ||
	    (ind->flags & VRING_DESC_F_NEXT)) {
		st->bad_desc++;
		return -1;
	}
	for (seen = 0; ; seen++) {
		struct vring_desc d;

		if (seen == n || i >= n) { /* a loop, or next out of the table */
			st->bad_desc++;
			return -1;
		}
		if (guest_read(mem, ind->addr + (uint64_t)i * sizeof(d), &d, sizeof(d)) < 0) {
			st->bad_addr++;
			return -1;
		}
		if (d.flags & VRING_DESC_F_INDIRECT) {
			st->bad_desc++;
			return -1;
		}
		if (take_buffer(mem, &d, rbuf, rcap, ch, st) < 0)
			return -1;
		if (!(d.flags & VRING_DESC_F_NEXT))
			return 0;
		i = d.next;
	}
}

int
vrdma_vq_skip(struct vrdma_vq *vq, uint16_t *head, struct vrdma_vq_stats *st)
{
	uint16_t avail_idx;

	if (!vq->live)
		return 0;
	avail_idx = __atomic_load_n(&vq->avail->idx, __ATOMIC_ACQUIRE);
	if (avail_idx == vq->last_avail)
		return 0;
	if ((uint16_t)(avail_idx - vq->last_avail) > vq->size)
		goto broken;
	*head = __atomic_load_n(&vq->avail->ring[vq->last_avail & (vq->size - 1)],
				__ATOMIC_RELAXED);
	vq->last_avail++;
	if (*head < vq->size)
		return 1;
broken:
	st->bad_index++;
	vq->broken = true;
	vq->live = false;
	return -2;
}

int
vrdma_vq_pop(struct vrdma_vq *vq, const struct rte_vhost_memory *mem, uint8_t *rbuf,
	     uint32_t rcap, struct vrdma_chain *ch, struct vrdma_vq_stats *st)
{
	uint16_t head, i;
	uint32_t seen;
	int rc;

	rc = vrdma_vq_skip(vq, &head, st);
	if (rc != 1)
		return rc;
	ch->rlen = 0;
	ch->wlen = 0;
	ch->nw = 0;
	ch->nr = 0;
	ch->head = head;
	i = head;
	for (seen = 0; ; seen++) {
		struct vring_desc d;

		if (seen == vq->size) { /* a loop */
			st->bad_desc++;
			return -1;
		}
		/* one copy of the descriptor: the guest may change it under us */
		memcpy(&d, &vq->desc[i], sizeof(d));
		if (d.flags & VRING_DESC_F_INDIRECT) {
			if (seen != 0 || (d.flags & VRING_DESC_F_NEXT))
				st->bad_desc++;
			else if (walk_indirect(mem, &d, vq->size, rbuf, rcap, ch, st) == 0)
				return 1;
			return -1;
		}
		if (take_buffer(mem, &d, rbuf, rcap, ch, st) < 0)
			return -1;
		if (!(d.flags & VRING_DESC_F_NEXT))
			return 1;
		if (d.next >= vq->size) {
			st->bad_desc++;
			return -1;
		}
		i = d.next;
	}
}

uint32_t
vrdma_chain_read_pieces(const struct vrdma_chain *ch, uint32_t off, void *dst, uint32_t len)
{
	uint8_t *d = dst;
	uint32_t done = 0, i;

	for (i = 0; i < ch->nr && done < len; i++) {
		uint32_t n;

		if (off >= ch->rseg[i].len) {
			off -= ch->rseg[i].len;
			continue;
		}
		n = RTE_MIN(ch->rseg[i].len - off, len - done);
		memcpy(d + done, ch->rseg[i].host + off, n);
		done += n;
		off = 0;
	}
	return done;
}

uint32_t
vrdma_chain_write(const struct vrdma_chain *ch, const void *src, uint32_t len)
{
	const uint8_t *s = src;
	uint32_t done = 0, i;

	for (i = 0; i < ch->nw && done < len; i++) {
		uint32_t n = RTE_MIN(ch->wseg[i].len, len - done);

		memcpy(ch->wseg[i].host, s + done, n);
		done += n;
	}
	return done;
}

uint32_t
vrdma_chain_write_at(const struct vrdma_chain *ch, uint32_t off, const void *src, uint32_t len)
{
	const uint8_t *s = src;
	uint32_t done = 0, i;

	for (i = 0; i < ch->nw && done < len; i++) {
		uint32_t seg = ch->wseg[i].len, n;

		if (off >= seg) {
			off -= seg;
			continue;
		}
		n = RTE_MIN(seg - off, len - done);
		memcpy(ch->wseg[i].host + off, s + done, n);
		done += n;
		off = 0;
	}
	return done;
}
