/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * Backend "mem": a test device whose BAR0 is plain memory with a few
 * registers that make it act (doc/vpci.md, "Backends"):
 *   0x00 ID (RO, 0x4d454d30), 0x08 LAST_OFF, 0x10 LAST_SIZE, 0x18 ACCESSES
 *     (RO: the last plain access and how many there were),
 *   0x20 IRQ (write N: raise MSI-X vector N),
 *   0x28 DMA_IOVA, 0x30 DMA_LEN, 0x38 DMA_PATTERN,
 *   0x40 DMA_GO (write 1: write DMA_LEN bytes pattern+i at DMA_IOVA now;
 *     2: the device's own thread does it), 0x48 DMA_STATUS (1 done, 2 fault),
 *   0x50 DMA_COUNT (RO: DMAs done),
 *   0x58 THREAD_CPUS (RO: how many CPUs the device's thread may run on, as
 *     it found at its start; 0 until then).
 * The rest of BAR0 below the MSI-X table is memory: what is written reads back.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "omni_kvargs.h"
#include "omni_num.h"
#include "vpci_model.h"

#define MEM_ID 0x4d454d30
#define MEM_REGS 0x100

enum {
	R_ID = 0x00, R_LAST_OFF = 0x08, R_LAST_SIZE = 0x10, R_ACCESSES = 0x18, R_IRQ = 0x20,
	R_DMA_IOVA = 0x28, R_DMA_LEN = 0x30, R_DMA_PATTERN = 0x38, R_DMA_GO = 0x40,
	R_DMA_STATUS = 0x48, R_DMA_COUNT = 0x50, R_THREAD_CPUS = 0x58,
};

struct mem_args {
	uint64_t size;
	uint64_t vectors;
	uint64_t vendor;
	uint64_t device;
	uint64_t fail_create;
};

struct mem_model {
	struct vpci_dev *dev;
	uint64_t size;
	uint8_t *bar;
	_Atomic uint64_t last_off, last_size, accesses, dma_count;
	uint64_t iova, len, pattern;
	_Atomic uint64_t status;
	_Atomic int go;		/* 2: the thread has a DMA to do */
	_Atomic uint64_t thread_cpus;	/* CPUs in the thread's affinity */
};

static int
arg_size(const char *key, const char *val, void *opaque)
{
	struct mem_args *a = opaque;
	int ret = omni_devarg_uint(key, val, 8192, 1ULL << 30, OMNI_NUM_HEX, &a->size);

	return ret == 0 && (a->size & (a->size - 1)) != 0 ? -EINVAL : ret;
}

static int
arg_vectors(const char *key, const char *val, void *opaque)
{
	return omni_devarg_uint(key, val, 1, VPCI_MAX_VECTORS, 0,
			&((struct mem_args *)opaque)->vectors);
}

static int
arg_vendor(const char *key, const char *val, void *opaque)
{
	return omni_devarg_uint(key, val, 0, 0xffff, OMNI_NUM_HEX,
			&((struct mem_args *)opaque)->vendor);
}

static int
arg_device(const char *key, const char *val, void *opaque)
{
	return omni_devarg_uint(key, val, 0, 0xffff, OMNI_NUM_HEX,
			&((struct mem_args *)opaque)->device);
}

static int
arg_fail(const char *key, const char *val, void *opaque)
{
	return omni_devarg_uint(key, val, 0, 1, 0, &((struct mem_args *)opaque)->fail_create);
}

static const struct omni_devarg mem_devargs[] = {
	{ "size", arg_size, OMNI_DEVARG_ONCE },
	{ "vectors", arg_vectors, OMNI_DEVARG_ONCE },
	{ "vendor", arg_vendor, OMNI_DEVARG_ONCE },
	{ "device", arg_device, OMNI_DEVARG_ONCE },
	{ "fail_create", arg_fail, OMNI_DEVARG_ONCE },
};

static int
mem_args_parse(const char *args, struct mem_args *a)
{
	*a = (struct mem_args){ .size = 65536, .vectors = 4, .vendor = 0x1de5,
		.device = 0x0001 };
	return omni_devargs_parse("vpci mem", args, mem_devargs, RTE_DIM(mem_devargs), a);
}

static int
mem_describe(const char *args, struct vpci_dev_info *info)
{
	struct mem_args a;

	if (mem_args_parse(args, &a) != 0)
		return -EINVAL;
	info->vendor_id = a.vendor;
	info->device_id = a.device;
	info->subsys_vendor_id = a.vendor;
	info->subsys_device_id = 0x1000;
	info->class_code = 0xff0000; /* unassigned class */
	info->revision = 1;
	info->bars[0] = (struct vpci_bar){ .size = a.size, .is_64 = true };
	info->msix_vectors = a.vectors;
	info->msix_bar = 0;
	info->msix_table_offset = a.size - 4096; /* the last page */
	return 0;
}

/* The DMA DMA_GO asks for; status 1 done, 2 refused (not mapped). */
static void
mem_dma(struct mem_model *m)
{
	uint8_t *p = vpci_dma(m->dev, m->iova, m->len, true);
	uint64_t i;

	if (p == NULL) {
		atomic_store(&m->status, 2);
		return;
	}
	for (i = 0; i < m->len; i++)
		p[i] = (uint8_t)(m->pattern + i);
	atomic_fetch_add(&m->dma_count, 1);
	atomic_store(&m->status, 1);
}

static void
mem_thread(void *arg, const volatile bool *stop)
{
	struct mem_model *m = arg;
	cpu_set_t cpus;

	if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0)
		atomic_store(&m->thread_cpus, (uint64_t)CPU_COUNT(&cpus));
	while (!*stop) {
		int two = 2;

		if (atomic_compare_exchange_strong(&m->go, &two, 0))
			mem_dma(m);
		else
			sched_yield();
	}
}

static int
mem_create(struct vpci_dev *dev, const char *args, void **model)
{
	struct mem_model *m;
	struct mem_args a;
	int ret;

	if (mem_args_parse(args, &a) != 0)
		return -EINVAL;
	if (a.fail_create)
		return -EIO; /* the wrong case: a model that cannot be built */
	m = calloc(1, sizeof(*m));
	if (m == NULL)
		return -ENOMEM;
	m->bar = calloc(1, a.size);
	if (m->bar == NULL) {
		free(m);
		return -ENOMEM;
	}
	m->dev = dev;
	m->size = a.size;
	ret = vpci_thread_start(dev, "vpci-mem", mem_thread, m);
	if (ret != 0) {
		free(m->bar);
		free(m);
		return ret;
	}
	*model = m;
	return 0;
}

static void
mem_destroy(void *model)
{
	struct mem_model *m = model;

	free(m->bar);
	free(m);
}

static uint64_t
mem_read(void *model, unsigned int bar, uint64_t off, unsigned int size)
{
	struct mem_model *m = model;
	uint64_t v = 0;

	if (bar != 0 || off + size > m->size)
		return ~0ULL;
	if (off < MEM_REGS) {
		switch (off) {
		case R_ID:
			return MEM_ID;
		case R_LAST_OFF:
			return atomic_load(&m->last_off);
		case R_LAST_SIZE:
			return atomic_load(&m->last_size);
		case R_ACCESSES:
			return atomic_load(&m->accesses);
		case R_DMA_IOVA:
			return m->iova;
		case R_DMA_LEN:
			return m->len;
		case R_DMA_PATTERN:
			return m->pattern;
		case R_DMA_STATUS:
			return atomic_load(&m->status);
		case R_DMA_COUNT:
			return atomic_load(&m->dma_count);
		case R_THREAD_CPUS:
			return atomic_load(&m->thread_cpus);
		default:
			return 0;
		}
	}
	memcpy(&v, m->bar + off, size);
	atomic_store(&m->last_off, off);
	atomic_store(&m->last_size, size);
	atomic_fetch_add(&m->accesses, 1);
	return v;
}

static void
mem_write(void *model, unsigned int bar, uint64_t off, unsigned int size, uint64_t v)
{
	struct mem_model *m = model;

	if (bar != 0 || off + size > m->size)
		return;
	if (off < MEM_REGS) {
		switch (off) {
		case R_IRQ:
			vpci_irq_raise(m->dev, v);
			break;
		case R_DMA_IOVA:
			m->iova = v;
			break;
		case R_DMA_LEN:
			m->len = v;
			break;
		case R_DMA_PATTERN:
			m->pattern = v;
			break;
		case R_DMA_GO:
			atomic_store(&m->status, 0);
			if (v == 1)
				mem_dma(m);
			else if (v == 2)
				atomic_store(&m->go, 2);
			break;
		default:
			break;
		}
		return;
	}
	memcpy(m->bar + off, &v, size);
	atomic_store(&m->last_off, off);
	atomic_store(&m->last_size, size);
	atomic_fetch_add(&m->accesses, 1);
}

/* Extended config space: a recognisable word per offset. */
static uint32_t
mem_cfg_read(void *model, unsigned int offset)
{
	(void)model;
	return 0x5a5a0000u | offset;
}

static const struct vpci_model_ops mem_ops = {
	.name = "mem",
	.describe = mem_describe,
	.create = mem_create,
	.destroy = mem_destroy,
	.bar_read = mem_read,
	.bar_write = mem_write,
	.cfg_read = mem_cfg_read,
};

VPCI_MODEL_REGISTER(mem_ops)
