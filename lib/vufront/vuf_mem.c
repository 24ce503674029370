/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vuf.h"
#include "vuf_internal.h"

struct vuf_mem *
vuf_mem_create(size_t size, uint64_t gpa_base)
{
	struct vuf_mem *mem;
	int err;

	if (size == 0 || (gpa_base & 4095) != 0) {
		errno = EINVAL;
		return NULL;
	}
	size = (size + 4095) & ~(size_t)4095;
	mem = calloc(1, sizeof(*mem));
	if (mem == NULL)
		return NULL;
	mem->fd = memfd_create("vuf-guest", MFD_CLOEXEC);
	if (mem->fd < 0)
		goto fail;
	if (ftruncate(mem->fd, (off_t)size) < 0)
		goto fail;
	mem->va = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, mem->fd, 0);
	if (mem->va == MAP_FAILED) {
		mem->va = NULL;
		goto fail;
	}
	mem->size = size;
	mem->gpa_base = gpa_base;
	return mem;
fail:
	err = errno;
	vuf_mem_destroy(mem);
	errno = err;
	return NULL;
}

void
vuf_mem_destroy(struct vuf_mem *mem)
{
	if (mem == NULL)
		return;
	if (mem->va != NULL)
		munmap(mem->va, mem->size);
	if (mem->fd >= 0)
		close(mem->fd);
	free(mem);
}

void *
vuf_mem_alloc(struct vuf_mem *mem, size_t len, size_t align)
{
	size_t off;

	if (align == 0 || (align & (align - 1)) != 0)
		return NULL;
	off = (mem->used + align - 1) & ~(align - 1);
	if (off > mem->size || len > mem->size - off)
		return NULL;
	mem->used = off + len;
	return mem->va + off;
}

uint64_t
vuf_mem_gpa(const struct vuf_mem *mem, const void *va)
{
	return vuf_mem_gpa_fast(mem, va);
}
