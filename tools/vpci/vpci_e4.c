/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * vpci's "e4" backend: one PF of the E4 model (drivers/net/e4/model) as a
 * PCI function, so that an unmodified E4 PMD (Debian's net_qede) probes it
 * through EAL's vfio-pci path. Arguments: net_e4's model devargs (device,
 * ports, pfs, pf, mac, mfw_version, fault=..., doc/e4.md); firmware= is
 * accepted and unused (the driver reads its own file).
 *
 * BAR0 (64-bit, 512 KiB): the PF's register BAR (admin window, PTT and GTT
 * windows), BAR2 (64-bit, 512 KiB): doorbells, BAR4 (64-bit): the MSI-X
 * table, served by vpci. The sizes are what the model's PGLUE_B BAR-size
 * registers report. Device DMA goes through vpci_dma() (the container's maps,
 * looked up on every access). MSI-X: the model's IGU messages for this PF's
 * SBs (vector = the SB's CAM vector number) through vpci_irq_raise().
 *
 * Threads: bar_read/bar_write run on whichever thread trapped, possibly in
 * a signal handler. The model takes its own lock for each access and, while
 * holding it, touches only its own state and host memory through vpci_dma():
 * it never accesses a BAR, so a trapped access cannot arrive on a thread that
 * already holds the lock; another thread's access waits for one access at
 * most. The model sends MSI-X messages with its lock held: vpci_irq_raise()
 * is an eventfd write (async-signal-safe), never a call into the driver.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e4_pf.h"
#include "model/e4_model.h"
#include "vpci_model.h"

#define E4_BAR_SIZE	(512u * 1024)	/* 1 << (PGLUE_B_REG_PF_BARx_SIZE (4) + 15) */
#define E4_MSIX_VECTORS	16
#define E4_MSIX_BAR	4
#define E4_MSIX_SIZE	8192u

struct vpci_e4 {
	struct vpci_dev *dev;
	struct e4m_dev *m;
	void *pf;		/* e4m_pf_ctx(): what the BAR ops take */
	unsigned int pf_id;	/* the PF presented (the model's other PFs are not) */
};

static int
e4_describe(const char *args, struct vpci_dev_info *info)
{
	struct e4_args a;

	if (e4_args_parse(args, &a) != 0)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	info->vendor_id = 0x1077;		/* QLogic */
	info->device_id = a.model.device_id;
	info->subsys_vendor_id = 0x1077;
	info->subsys_device_id = a.model.device_id;
	info->class_code = 0x020000;		/* Ethernet controller */
	info->revision = 1;			/* MISCS_REG_CHIP_REV */
	info->bars[0] = (struct vpci_bar){ .size = E4_BAR_SIZE, .is_64 = true };
	info->bars[2] = (struct vpci_bar){ .size = E4_BAR_SIZE, .is_64 = true };
	info->bars[E4_MSIX_BAR] = (struct vpci_bar){ .size = E4_MSIX_SIZE, .is_64 = true };
	info->msix_vectors = E4_MSIX_VECTORS;
	info->msix_bar = E4_MSIX_BAR;
	info->msix_table_offset = 0;
	info->numa_node = -1;
	return 0;
}

static void *
e4_dma(void *ctx, uint64_t iova, size_t len)
{
	struct vpci_e4 *e = ctx;

	return vpci_dma(e->dev, iova, len, true);
}

/* The model's MSI-X message: this function's vector, through EAL's eventfd. */
static void
e4_irq(void *ctx, unsigned int pf, unsigned int vector)
{
	struct vpci_e4 *e = ctx;

	if (pf == e->pf_id)
		(void)vpci_irq_raise(e->dev, vector);
}

static int
e4_create(struct vpci_dev *dev, const char *args, void **model)
{
	struct vpci_e4 *e;
	struct e4_args a;
	unsigned int i;

	if (e4_args_parse(args, &a) != 0)
		return -EINVAL;
	e = calloc(1, sizeof(*e));
	if (e == NULL)
		return -ENOMEM;
	e->dev = dev;
	a.model.dma = e4_dma;
	a.model.dma_ctx = e;
	a.model.irq = e4_irq;
	a.model.irq_ctx = e;
	e->pf_id = a.pf;
	e->m = e4m_create(vpci_dev_name(dev), &a.model);
	if (e->m == NULL) {
		free(e);
		return -ENOMEM;
	}
	for (i = 0; i < a.n_faults; i++)
		e4m_fault_set(e->m, a.faults[i].fault, a.faults[i].arg0, a.faults[i].arg1);
	e->pf = e4m_pf_ctx(e->m, a.pf);
	*model = e;
	return 0;
}

static void
e4_destroy(void *model)
{
	struct vpci_e4 *e = model;

	if (e == NULL)
		return;
	e4m_destroy(e->m);
	free(e);
}

static uint32_t
rd32(struct vpci_e4 *e, unsigned int bar, uint64_t off)
{
	if (bar == 0 && off + 4 <= E4_BAR_SIZE)
		return e4m_bar_ops.read32(e->pf, off);
	return 0;	/* doorbells read as 0; anything else is nothing */
}

static void
wr32(struct vpci_e4 *e, unsigned int bar, uint64_t off, uint32_t val)
{
	if (bar == 0 && off + 4 <= E4_BAR_SIZE)
		e4m_bar_ops.write32(e->pf, off, val);
	else if (bar == 2 && off + 4 <= E4_BAR_SIZE)
		e4m_bar_ops.db_write32(e->pf, off, val);
}

static uint64_t
e4_bar_read(void *model, unsigned int bar, uint64_t offset, unsigned int size)
{
	struct vpci_e4 *e = model;
	uint64_t al = offset & ~3ull;
	unsigned int sh = (offset & 3) * 8;

	switch (size) {
	case 8:
		return rd32(e, bar, offset) | (uint64_t)rd32(e, bar, offset + 4) << 32;
	case 4:
		return rd32(e, bar, offset);
	case 2:
		return (rd32(e, bar, al) >> sh) & 0xffff;
	default:
		return (rd32(e, bar, al) >> sh) & 0xff;
	}
}

static void
e4_bar_write(void *model, unsigned int bar, uint64_t offset, unsigned int size, uint64_t value)
{
	struct vpci_e4 *e = model;
	uint64_t al = offset & ~3ull;
	unsigned int sh = (offset & 3) * 8;
	uint32_t mask, old;

	switch (size) {
	case 8:
		wr32(e, bar, offset, (uint32_t)value);
		wr32(e, bar, offset + 4, (uint32_t)(value >> 32));
		return;
	case 4:
		wr32(e, bar, offset, (uint32_t)value);
		return;
	default:
		/* a narrow register write (REG_WR16): read-modify-write the dword */
		mask = (size == 2 ? 0xffffu : 0xffu) << sh;
		old = rd32(e, bar, al);
		wr32(e, bar, al, (old & ~mask) | (((uint32_t)value << sh) & mask));
		return;
	}
}

static uint32_t
e4_cfg_read(void *model, unsigned int offset)
{
	(void)model;
	(void)offset;
	return 0;	/* no extended capabilities */
}

static const struct vpci_model_ops e4_ops = {
	.name = "e4",
	.describe = e4_describe,
	.create = e4_create,
	.destroy = e4_destroy,
	.bar_read = e4_bar_read,
	.bar_write = e4_bar_write,
	.cfg_read = e4_cfg_read,
};

VPCI_MODEL_REGISTER(e4_ops)
