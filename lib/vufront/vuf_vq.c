/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "vuf.h"
#include "vuf_internal.h"

/* Split virtqueue layout (virtio 1.x, section 2.7), little-endian on x86. */
struct vuf_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};

#define DESC_F_NEXT 1
#define DESC_F_WRITE 2

struct vuf_avail {
	uint16_t flags;
	uint16_t idx;
	uint16_t ring[]; /* then used_event */
};

struct vuf_used_elem {
	uint32_t id;
	uint32_t len;
};

struct vuf_used {
	uint16_t flags;
	uint16_t idx;
	struct vuf_used_elem ring[]; /* then avail_event */
};

#define USED_F_NO_NOTIFY 1

int
vuf_vq_init(struct vuf_vq *vq, struct vuf_mem *mem, uint32_t index, uint16_t size)
{
	uint16_t i;

	memset(vq, 0, sizeof(*vq));
	vq->kickfd = -1;
	vq->callfd = -1;
	/* the ring index shares a byte with flags in SET_VRING_KICK / _CALL */
	if (size == 0 || (size & (size - 1)) != 0 || index >= 256)
		return -EINVAL;
	vq->desc = vuf_mem_alloc(mem, sizeof(struct vuf_desc) * size, 16);
	vq->avail = vuf_mem_alloc(mem, sizeof(struct vuf_avail) + 2u * size + 2, 2);
	vq->used = vuf_mem_alloc(mem, sizeof(struct vuf_used) +
				 sizeof(struct vuf_used_elem) * size + 2, 4);
	if (vq->desc == NULL || vq->avail == NULL || vq->used == NULL)
		return -ENOMEM;
	vq->cookie = calloc(size, sizeof(*vq->cookie));
	vq->chain_len = calloc(size, sizeof(*vq->chain_len));
	vq->in_len = calloc(size, sizeof(*vq->in_len));
	vq->next = calloc(size, sizeof(*vq->next));
	vq->held = calloc(size, sizeof(*vq->held));
	vq->kickfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	vq->callfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (vq->cookie == NULL || vq->chain_len == NULL || vq->in_len == NULL || vq->next == NULL ||
	    vq->held == NULL || vq->kickfd < 0 || vq->callfd < 0) {
		vuf_vq_fini(vq);
		return -ENOMEM;
	}
	for (i = 0; i < size; i++)
		vq->next[i] = (uint16_t)(i + 1);
	vq->mem = mem;
	vq->index = index;
	vq->size = size;
	vq->num_free = size;
	return 0;
}

void
vuf_vq_fini(struct vuf_vq *vq)
{
	free(vq->cookie);
	free(vq->chain_len);
	free(vq->in_len);
	free(vq->next);
	free(vq->held);
	if (vq->kickfd >= 0)
		close(vq->kickfd);
	if (vq->callfd >= 0)
		close(vq->callfd);
	vq->cookie = NULL;
	vq->chain_len = NULL;
	vq->in_len = NULL;
	vq->next = NULL;
	vq->held = NULL;
	vq->kickfd = -1;
	vq->callfd = -1;
}

int
vuf_vq_start(struct vuf_conn *c, struct vuf_vq *vq, bool enable)
{
	struct vuf_vring_state num = { .index = vq->index, .num = vq->size };
	struct vuf_vring_state base = { .index = vq->index, .num = vq->last_used };
	struct vuf_vring_addr addr = {
		.index = vq->index,
		.desc_user_addr = (uint64_t)(uintptr_t)vq->desc,
		.used_user_addr = (uint64_t)(uintptr_t)vq->used,
		.avail_user_addr = (uint64_t)(uintptr_t)vq->avail,
	};
	uint64_t fdarg = vq->index;
	int r;

	r = vuf_send(c, VUF_SET_VRING_NUM, &num, sizeof(num), NULL, 0);
	if (r == 0)
		r = vuf_send(c, VUF_SET_VRING_BASE, &base, sizeof(base), NULL, 0);
	if (r == 0)
		r = vuf_send(c, VUF_SET_VRING_ADDR, &addr, sizeof(addr), NULL, 0);
	if (r == 0)
		r = vuf_send(c, VUF_SET_VRING_KICK, &fdarg, sizeof(fdarg), &vq->kickfd, 1);
	if (r == 0)
		r = vuf_send(c, VUF_SET_VRING_CALL, &fdarg, sizeof(fdarg), &vq->callfd, 1);
	if (r == 0 && enable)
		r = vuf_set_vring_enable(c, vq->index, true);
	return r;
}

/* vuf_vq_add() of one buffer, the common case: no chain to link. */
static int
add_one(struct vuf_vq *vq, const struct vuf_buf *b, bool writable, void *cookie)
{
	uint16_t head = vq->free_head;
	struct vuf_desc *d;

	if (vq->num_free == 0)
		return -ENOSPC;
	if (!vuf_mem_holds(vq->mem, b->addr, b->len))
		return -EINVAL;
	d = &vq->desc[head];
	d->addr = vuf_mem_gpa_fast(vq->mem, b->addr);
	d->len = b->len;
	d->flags = writable ? DESC_F_WRITE : 0;
	d->next = 0;
	vq->free_head = vq->next[head];
	vq->num_free--;
	vq->cookie[head] = cookie;
	vq->chain_len[head] = 1;
	vq->in_len[head] = writable ? b->len : 0;
	vq->avail->ring[vq->avail_idx & (vq->size - 1)] = head;
	vq->avail_idx++;
	/* the ring entry and the descriptor before the index the device reads */
	__atomic_store_n(&vq->avail->idx, vq->avail_idx, __ATOMIC_RELEASE);
	return 0;
}

int
vuf_vq_add(struct vuf_vq *vq, const struct vuf_buf *out, unsigned int n_out,
	   const struct vuf_buf *in, unsigned int n_in, void *cookie)
{
	uint16_t head = vq->free_head, i = head, last = head;
	uint32_t writable = 0;
	unsigned int n, k;

	if ((n_out == 1 && n_in == 0) || (n_out == 0 && n_in == 1))
		return add_one(vq, n_out == 1 ? out : in, n_in == 1, cookie);
	if (n_out > vq->size || n_in > vq->size)
		return -EINVAL;
	n = n_out + n_in;
	if (n == 0 || n > vq->size)
		return -EINVAL;
	if (n > vq->num_free)
		return -ENOSPC;
	for (k = 0; k < n; k++) {
		const struct vuf_buf *b = k < n_out ? &out[k] : &in[k - n_out];

		if (!vuf_mem_holds(vq->mem, b->addr, b->len))
			return -EINVAL;
		if (k >= n_out)
			writable = writable + b->len < writable ? UINT32_MAX : writable + b->len;
	}
	for (k = 0; k < n; k++) {
		const struct vuf_buf *b = k < n_out ? &out[k] : &in[k - n_out];
		struct vuf_desc *d = &vq->desc[i];

		d->addr = vuf_mem_gpa_fast(vq->mem, b->addr);
		d->len = b->len;
		d->flags = (uint16_t)((k >= n_out ? DESC_F_WRITE : 0) | (k + 1 < n ? DESC_F_NEXT : 0));
		d->next = k + 1 < n ? vq->next[i] : 0;
		last = i;
		i = vq->next[i];
	}
	vq->free_head = vq->next[last];
	vq->num_free = (uint16_t)(vq->num_free - n);
	vq->cookie[head] = cookie;
	vq->chain_len[head] = (uint16_t)n;
	vq->in_len[head] = writable;
	vq->avail->ring[vq->avail_idx & (vq->size - 1)] = head;
	vq->avail_idx++;
	/* the ring entry and the descriptors before the index the device reads */
	__atomic_store_n(&vq->avail->idx, vq->avail_idx, __ATOMIC_RELEASE);
	return 0;
}

#define AVAIL_F_NO_INTERRUPT 1

void
vuf_vq_set_interrupts(struct vuf_vq *vq, bool on)
{
	__atomic_store_n(&vq->avail->flags, on ? 0 : AVAIL_F_NO_INTERRUPT, __ATOMIC_RELEASE);
}

/* A full fence: on x86 a locked add to the stack, cheaper than mfence (as DPDK's rte_smp_mb). */
static inline void
full_fence(void)
{
#if defined(__x86_64__)
	__asm__ volatile("lock addl $0, -128(%%rsp)" ::: "memory");
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

void
vuf_vq_kick(struct vuf_vq *vq)
{
	uint64_t one = 1;

	/* the index store before reading the device's flag (virtio 2.7.13.3) */
	full_fence();
	if (__atomic_load_n(&vq->used->flags, __ATOMIC_RELAXED) & USED_F_NO_NOTIFY)
		return;
	if (write(vq->kickfd, &one, sizeof(one)) != sizeof(one))
		return; /* the counter is saturated: the device has a kick pending anyway */
}

/* Take back the used element at last_used, which is below @p idx. @return 1 or -EPROTO. */
static inline int
take_used(struct vuf_vq *vq, void **cookie, uint32_t *len)
{
	struct vuf_used_elem *e;
	uint32_t eid, elen;
	uint16_t id, i, k, n;

	/* read once: the device may rewrite the element while it is checked */
	e = &vq->used->ring[vq->last_used & (vq->size - 1)];
	eid = __atomic_load_n(&e->id, __ATOMIC_RELAXED);
	elen = __atomic_load_n(&e->len, __ATOMIC_RELAXED);
	if (eid >= vq->size || vq->chain_len[eid] == 0 || elen > vq->in_len[eid])
		return -EPROTO;
	id = (uint16_t)eid;
	n = vq->chain_len[id];
	for (i = id, k = 1; k < n; k++)
		i = vq->next[i];
	/* the chain goes back on the free list in one piece */
	vq->next[i] = vq->free_head;
	vq->free_head = id;
	vq->num_free = (uint16_t)(vq->num_free + n);
	vq->chain_len[id] = 0;
	vq->last_used++;
	*cookie = vq->cookie[id];
	*len = elen;
	return 1;
}

int
vuf_vq_get_used(struct vuf_vq *vq, void **cookie, uint32_t *len)
{
	if (__atomic_load_n(&vq->used->idx, __ATOMIC_ACQUIRE) == vq->last_used)
		return 0;
	return take_used(vq, cookie, len);
}

int
vuf_vq_get_used_burst(struct vuf_vq *vq, void **cookies, uint32_t *lens, unsigned int n)
{
	uint16_t idx = __atomic_load_n(&vq->used->idx, __ATOMIC_ACQUIRE);
	unsigned int got;

	for (got = 0; got < n && vq->last_used != idx; got++)
		if (take_used(vq, &cookies[got], &lens[got]) < 0)
			return got > 0 ? (int)got : -EPROTO;
	return (int)got;
}

int
vuf_vq_recycle_burst(struct vuf_vq *vq, void **cookies, uint32_t *lens, unsigned int n)
{
	uint16_t idx = __atomic_load_n(&vq->used->idx, __ATOMIC_ACQUIRE);
	unsigned int got;

	for (got = 0; got < n && vq->last_used != idx; got++) {
		struct vuf_used_elem *e = &vq->used->ring[vq->last_used & (vq->size - 1)];
		/* read once: the device may rewrite the element while it is checked */
		uint32_t eid = __atomic_load_n(&e->id, __ATOMIC_RELAXED);
		uint32_t elen = __atomic_load_n(&e->len, __ATOMIC_RELAXED);

		if (eid >= vq->size || vq->chain_len[eid] != 1 || elen > vq->in_len[eid])
			return got > 0 ? (int)got : -EPROTO;
		vq->last_used++;
		cookies[got] = vq->cookie[eid];
		lens[got] = elen;
		/* not in flight until published: the device naming it again is refused */
		vq->chain_len[eid] = 0;
		vq->held[vq->nheld++] = (uint16_t)eid;
		/* the descriptor is the driver's own copy: queued again unchanged */
		vq->avail->ring[vq->avail_idx & (vq->size - 1)] = (uint16_t)eid;
		vq->avail_idx++;
	}
	return (int)got;
}

void
vuf_vq_publish(struct vuf_vq *vq)
{
	uint16_t k;

	for (k = 0; k < vq->nheld; k++)
		vq->chain_len[vq->held[k]] = 1;
	vq->nheld = 0;
	/* the ring entries before the index the device reads */
	__atomic_store_n(&vq->avail->idx, vq->avail_idx, __ATOMIC_RELEASE);
}

unsigned int
vuf_vq_in_flight(const struct vuf_vq *vq)
{
	return (uint16_t)(vq->avail_idx - vq->last_used);
}
