/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * Backend "hfi1": net_hfi1's device model (drivers/net/hfi1/model) as a
 * discrete HFI, 8086:24f0, with its 64 MiB BAR0. The PMD's silicon path
 * (hfi1_pci_init, hfi1_bar_ops) runs unchanged: its 64-bit CSR accesses trap
 * into the model's CSR ops, the model runs on a thread of its own (silicon
 * runs by itself) and its DMAs go through the vfio container's maps.
 *
 * Arguments: the model's (lid, pkeys, mtu, contexts, engines, wire, layout:
 * hfi1_model_args.c, as net_hfi1's vdev). The wire: EAL probes PCI before
 * vdevs, so a wire given as another --vdev port does not exist yet at
 * create(); "wire=ring:NAME" (the in-process pair the two models make
 * themselves) works, and so does the name of a port that exists by then.
 */

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_pause.h>

#include "hfi1_model.h"
#include "omni_kvargs.h"
#include "vpci_model.h"

/* The model's log type, as net_hfi1 registers it (the same name: one type). */
RTE_LOG_REGISTER(hfi1_logtype, pmd.net.hfi1, NOTICE);

/* The MSI-X table where the model has no CSRs (the model raises no interrupts). */
#define VHFI_MSIX_TABLE (HFI1_BAR0_SIZE - 0x10000)
#define VHFI_VECTORS 16
/* Idle turns of the model thread before it sleeps between turns. */
#define VHFI_IDLE_SPINS 1000
#define VHFI_IDLE_SLEEP_NS 20000

struct vhfi {
	struct vpci_dev *dev;
	struct hfi1_model *m;
	struct hfi1_hw hw;		/* the model's CSR ops (hw.dev = the model) */
	struct hfi1_model_poll poll;
	/* the PMD's last RCV_CTRL/SEND_CTRL enables: the thread steps only then */
	_Atomic bool rcv_on, send_on;
};

static const struct omni_devarg vhfi_devargs[] = {
	HFI1_MODEL_DEVARGS,
};

static int
vhfi_conf(const char *args, struct hfi1_model_conf *mc)
{
	hfi1_model_conf_init(mc);
	/* silicon's shape unless told otherwise: the PCI path assumes the chip's */
	mc->nb_ctxts = HFI1_CHIP_RCV_CONTEXTS;
	mc->nb_engines = HFI1_CHIP_SDMA_ENGINES;
	return omni_devargs_parse("vpci hfi1", args, vhfi_devargs, RTE_DIM(vhfi_devargs), mc);
}

static int
vhfi_describe(const char *args, struct vpci_dev_info *info)
{
	struct hfi1_model_conf mc;

	if (vhfi_conf(args, &mc) != 0)
		return -EINVAL;
	info->vendor_id = 0x8086;
	info->device_id = 0x24f0;
	info->subsys_vendor_id = 0x8086;
	info->subsys_device_id = 0x24f0;
	info->class_code = 0x020800;	/* network: fabric controller */
	info->revision = 0x11;
	info->bars[0] = (struct vpci_bar){ .size = HFI1_BAR0_SIZE, .is_64 = true };
	info->msix_vectors = VHFI_VECTORS;
	info->msix_bar = 0;
	info->msix_table_offset = VHFI_MSIX_TABLE;
	return 0;
}

static void *
vhfi_dma(void *ctx, uint64_t iova, size_t len, bool write)
{
	return vpci_dma(ctx, iova, len, write);
}

static uint64_t
vhfi_activity(const struct hfi1_model *m)
{
	struct hfi1_model_stats s;

	hfi1_model_stats_get(m, &s);
	return s.sdma_pkts + s.wire_rx + s.rcv_pkts + s.sdma_halts + s.wire_busy;
}

/* Silicon runs by itself: the engines and the receive side, turn after turn. */
static void
vhfi_thread(void *arg, const volatile bool *stop)
{
	struct vhfi *v = arg;
	uint64_t last = 0, now;
	unsigned int idle = 0;

	while (!*stop) {
		/* a stopped port: no turns, so the wire may go (EAL's bus
		 * cleanup closes a ring wire before the PCI device) */
		if (!atomic_load(&v->rcv_on) && !atomic_load(&v->send_on)) {
			struct timespec ts = { 0, 1000000 };

			nanosleep(&ts, NULL);
			continue;
		}
		hfi1_model_step(v->m);
		now = vhfi_activity(v->m);
		if (now != last) {
			last = now;
			idle = 0;
		} else if (++idle >= VHFI_IDLE_SPINS) {
			struct timespec ts = { 0, VHFI_IDLE_SLEEP_NS };

			nanosleep(&ts, NULL);
		} else {
			rte_pause();
		}
	}
}

static int
vhfi_create(struct vpci_dev *dev, const char *args, void **model)
{
	const char *bdf = vpci_dev_name(dev);
	struct hfi1_model_conf mc;
	char name[32];
	struct vhfi *v;
	unsigned int d, b, s, f;
	int ret;

	if (vhfi_conf(args, &mc) != 0)
		return -EINVAL;
	/* a name without ':' (it names a net_ring vdev, a pool, memzones) */
	if (sscanf(bdf, "%x:%x:%x.%x", &d, &b, &s, &f) != 4)
		return -EINVAL;
	snprintf(name, sizeof(name), "vhfi%02x%02x%x", b, s, f);
	v = calloc(1, sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	v->dev = dev;
	v->m = hfi1_model_create(name, &mc, SOCKET_ID_ANY);
	if (v->m == NULL) {
		ret = -rte_errno;
		free(v);
		return ret != 0 ? ret : -ENOMEM;
	}
	hfi1_model_set_dma(v->m, vhfi_dma, dev);
	hfi1_model_attach(v->m, &v->hw, false, &v->poll);
	ret = vpci_thread_start(dev, "vpci-hfi1", vhfi_thread, v);
	if (ret != 0) {
		hfi1_model_destroy(v->m);
		free(v);
		return ret;
	}
	*model = v;
	return 0;
}

static void
vhfi_destroy(void *model)
{
	struct vhfi *v = model;

	hfi1_model_destroy(v->m);
	free(v);
}

static uint64_t
vhfi_read(void *model, unsigned int bar, uint64_t off, unsigned int size)
{
	struct vhfi *v = model;
	unsigned int sh = 8 * (off & 7);
	uint64_t w;

	if (bar != 0 || off + size > HFI1_BAR0_SIZE)
		return ~0ULL;
	/* CSRs are 64-bit: a narrower read takes its part of the word */
	w = hfi1_csr_read(&v->hw, (uint32_t)(off & ~7ULL));
	return size == 8 ? w : (w >> sh) & ((1ULL << (8 * size)) - 1);
}

static void
vhfi_write(void *model, unsigned int bar, uint64_t off, unsigned int size, uint64_t val)
{
	struct vhfi *v = model;
	uint32_t reg = (uint32_t)(off & ~7ULL);
	unsigned int sh = 8 * (off & 7);
	uint64_t mask, w;

	if (bar != 0 || off + size > HFI1_BAR0_SIZE)
		return;
	if (reg == HFI1_RCV_CTRL && size == 8)
		atomic_store(&v->rcv_on, (val & HFI1_RCV_CTRL_PORT_ENABLE) != 0);
	if (reg == HFI1_SEND_CTRL && size == 8)
		atomic_store(&v->send_on, (val & HFI1_SEND_CTRL_SEND_ENABLE) != 0);
	if (size == 8) {
		hfi1_csr_write(&v->hw, reg, val);
		return;
	}
	/* a narrower write: read-modify-write of the 64-bit CSR */
	mask = ((1ULL << (8 * size)) - 1) << sh;
	w = hfi1_csr_read(&v->hw, reg);
	hfi1_csr_write(&v->hw, reg, (w & ~mask) | ((val << sh) & mask));
}

static const struct vpci_model_ops vhfi_ops = {
	.name = "hfi1",
	.describe = vhfi_describe,
	.create = vhfi_create,
	.destroy = vhfi_destroy,
	.bar_read = vhfi_read,
	.bar_write = vhfi_write,
};

VPCI_MODEL_REGISTER(vhfi_ops)
