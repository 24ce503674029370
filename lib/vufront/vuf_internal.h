/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef VUF_INTERNAL_H
#define VUF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vuf.h"

struct vuf_mem {
	int fd;
	uint8_t *va;
	size_t size;
	size_t used;
	uint64_t gpa_base;
};

/* Whether [va, va + len) lies inside mem. */
static inline bool
vuf_mem_holds(const struct vuf_mem *mem, const void *va, size_t len)
{
	const uint8_t *p = va;

	return p >= mem->va && p <= mem->va + mem->size &&
	       len <= (size_t)(mem->va + mem->size - p);
}

/* Guest-physical address of @p va inside mem (vuf_mem_gpa() for the hot paths). */
static inline uint64_t
vuf_mem_gpa_fast(const struct vuf_mem *mem, const void *va)
{
	return mem->gpa_base + (uint64_t)((const uint8_t *)va - mem->va);
}

/* vhost-user message header (the protocol specification). */
struct vuf_hdr {
	uint32_t request;
	uint32_t flags;
	uint32_t size;
} __attribute__((packed));

#define VUF_HDR_VERSION 0x1u
#define VUF_HDR_REPLY 0x4u
#define VUF_HDR_NEED_REPLY 0x8u

/* Payloads. */
struct vuf_vring_state {
	uint32_t index;
	uint32_t num;
};

struct vuf_vring_addr {
	uint32_t index;
	uint32_t flags;
	uint64_t desc_user_addr;
	uint64_t used_user_addr;
	uint64_t avail_user_addr;
	uint64_t log_guest_addr;
};

#define VUF_MAX_REGIONS 8

struct vuf_mem_region {
	uint64_t guest_phys_addr;
	uint64_t memory_size;
	uint64_t userspace_addr;
	uint64_t mmap_offset;
};

struct vuf_mem_table {
	uint32_t nregions;
	uint32_t padding;
	struct vuf_mem_region regions[VUF_MAX_REGIONS];
};

#define VUF_CONFIG_MAX 256

struct vuf_config {
	uint32_t offset;
	uint32_t size;
	uint32_t flags;
	uint8_t region[VUF_CONFIG_MAX];
};

/* SET_VRING_KICK / _CALL payload: ring index, and this bit when no fd is passed. */
#define VUF_VRING_NOFD (1ull << 8)

#endif /* VUF_INTERNAL_H */
