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
 * hfi1_model_args.c, as net_hfi1's vdev), and memif=PATH[,memif_id=N]. The
 * wire: EAL probes PCI before vdevs, so a wire given as another --vdev port
 * does not exist yet at create(); "wire=ring:NAME" (the in-process pair the
 * two models make themselves) works, and so does the name of a port that
 * exists by then. "memif=PATH" is the way to a fabric (opa-switch): the
 * backend makes its own net_memif client port on that socket at create()
 * (rte_vdev_init), the model owns it as its wire (the application leaves it
 * alone) and it goes with the model at destroy().
 */

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_bus_vdev.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_pause.h>

#include "hfi1_model.h"
#include "omni_kvargs.h"
#include "omni_num.h"
#include "vpci_model.h"

/* The model's log type, as net_hfi1 registers it (the same name: one type). */
RTE_LOG_REGISTER(hfi1_logtype, pmd.net.hfi1, NOTICE);
#define VHFI_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, hfi1_logtype, "vpci hfi1: " fmt "\n", ##__VA_ARGS__)

/* The MSI-X table where the model has no CSRs (the model raises no interrupts). */
#define VHFI_MSIX_TABLE (HFI1_BAR0_SIZE - 0x10000)
#define VHFI_VECTORS 16
/* Idle turns of the model thread before it sleeps between turns. */
#define VHFI_IDLE_SPINS 1000
#define VHFI_IDLE_SLEEP_NS 20000
/* memif buffers that hold any 16B packet whole (MTU 10240 + headers and
 * PBC room): DPDK 22.11 net_memif may send part of a packet that spans
 * buffers when its ring fills up (scripts/fabric.sh uses the same size) */
#define VHFI_MEMIF_BSIZE 10368
/* sockaddr_un's sun_path: net_memif's limit for a socket path */
#define VHFI_MEMIF_PATH_MAX 108

/* The backend's arguments: the model's, then its own. */
struct vhfi_conf {
	struct hfi1_model_conf mc;	/* first: the model's handlers take it as theirs */
	char memif[VHFI_MEMIF_PATH_MAX];	/* socket of a net_memif wire, or "" */
	uint32_t memif_id;
};

struct vhfi {
	struct vpci_dev *dev;
	struct hfi1_model *m;
	struct hfi1_hw hw;		/* the model's CSR ops (hw.dev = the model) */
	struct hfi1_model_poll poll;
	char memif_port[RTE_DEV_NAME_MAX_LEN];	/* our net_memif wire, or "" */
	bool stats;		/* VPCI_STATS set: counters when the port stops */
	/* trapped accesses when the receive side was last enabled (stats) */
	_Atomic uint64_t reads_at_on, writes_at_on;
	/* the PMD's last RCV_CTRL/SEND_CTRL enables: the thread steps only then */
	_Atomic bool rcv_on, send_on;
};

/* memif=PATH: an absolute socket path net_memif can take (no ',' or ';': the
 * configuration's and memif's own separators never reach here). */
static int
vhfi_arg_memif(const char *key, const char *val, void *opaque)
{
	struct vhfi_conf *c = opaque;

	if (val == NULL || val[0] != '/' || strlen(val) >= sizeof(c->memif)) {
		VHFI_LOG(ERR, "%s=%s: expected an absolute socket path under %d characters",
			key, val != NULL ? val : "", VHFI_MEMIF_PATH_MAX);
		return -EINVAL;
	}
	snprintf(c->memif, sizeof(c->memif), "%s", val);
	return 0;
}

static int
vhfi_arg_memif_id(const char *key, const char *val, void *opaque)
{
	struct vhfi_conf *c = opaque;
	uint64_t v;

	if (omni_devarg_uint(key, val, 0, UINT32_MAX, OMNI_NUM_DEC, &v) != 0)
		return -EINVAL;
	c->memif_id = (uint32_t)v;
	return 0;
}

static const struct omni_devarg vhfi_devargs[] = {
	HFI1_MODEL_DEVARGS,
	{ "memif", vhfi_arg_memif, 0 },
	{ "memif_id", vhfi_arg_memif_id, 0 },
};

static int
vhfi_conf(const char *args, struct vhfi_conf *c)
{
	struct hfi1_model_conf *mc = &c->mc;

	memset(c, 0, sizeof(*c));
	hfi1_model_conf_init(mc);
	/* silicon's shape unless told otherwise: the PCI path assumes the chip's */
	mc->nb_ctxts = HFI1_CHIP_RCV_CONTEXTS;
	mc->nb_engines = HFI1_CHIP_SDMA_ENGINES;
	if (omni_devargs_parse("vpci hfi1", args, vhfi_devargs, RTE_DIM(vhfi_devargs), c) != 0)
		return -EINVAL;
	if (c->memif[0] != '\0' && mc->wire[0] != '\0') {
		VHFI_LOG(ERR, "memif= and wire= both name the wire: give one");
		return -EINVAL;
	}
	return 0;
}

static int
vhfi_describe(const char *args, struct vpci_dev_info *info)
{
	struct vhfi_conf c;

	if (vhfi_conf(args, &c) != 0)
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

/*
 * VPCI_STATS: one line each time the port stops (its receive and send sides
 * disabled), from the model's thread: the trapped accesses since the receive
 * side was last enabled beside the packets the model moved since it was made,
 * for the cost per packet of the vfio path (tests/perf/bench_vpci_hfi1.sh).
 * Not from destroy(): EAL's PCI clean-up at exit runs the driver's remove but
 * never unmaps the device, so the fd stays open and destroy() does not run.
 */
static void
vhfi_stats_print(struct vhfi *v)
{
	struct vpci_dev_stats ds;
	struct hfi1_model_stats ms;

	if (vpci_dev_stats_get(vpci_dev_name(v->dev), &ds) != 0)
		return;
	hfi1_model_stats_get(v->m, &ms);
	fprintf(stderr, "vpci hfi1: %s: port stopped; since its start: %" PRIu64
		" BAR reads, %" PRIu64 " BAR writes; packets: %" PRIu64 " sent, %" PRIu64
		" received\n",
		vpci_dev_name(v->dev), ds.bar_reads - atomic_load(&v->reads_at_on),
		ds.bar_writes - atomic_load(&v->writes_at_on), ms.sdma_pkts, ms.rcv_pkts);
}

/* Silicon runs by itself: the engines and the receive side, turn after turn. */
static void
vhfi_thread(void *arg, const volatile bool *stop)
{
	struct vhfi *v = arg;
	uint64_t last = 0, now;
	unsigned int idle = 0;
	bool was_on = false;

	while (!*stop) {
		/* a stopped port: no turns, so the wire may go (EAL's bus
		 * cleanup closes a ring wire before the PCI device) */
		if (!atomic_load(&v->rcv_on) && !atomic_load(&v->send_on)) {
			struct timespec ts = { 0, 1000000 };

			if (was_on && v->stats)
				vhfi_stats_print(v);
			was_on = false;
			nanosleep(&ts, NULL);
			continue;
		}
		was_on = true;
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

/*
 * The wire to a fabric: a net_memif client of the socket, made here since
 * EAL probes the PCI bus before the vdevs of the command line. The model
 * then takes it by name as any wire port (it owns and starts it).
 */
static int
vhfi_memif_create(struct vhfi *v, const char *name, struct vhfi_conf *c)
{
	char args[VHFI_MEMIF_PATH_MAX + 64];
	int ret;

	snprintf(v->memif_port, sizeof(v->memif_port), "net_memif_%s", name);
	snprintf(args, sizeof(args), "role=client,socket=%s,id=%u,bsize=%u", c->memif,
		 c->memif_id, VHFI_MEMIF_BSIZE);
	ret = rte_vdev_init(v->memif_port, args);
	if (ret != 0) {
		/* > 0: no driver took the name (EAL logged "no driver found") */
		VHFI_LOG(ERR, "%s: cannot make its net_memif wire %s (%s): %s",
			vpci_dev_name(v->dev), v->memif_port, args,
			ret > 0 ? "DPDK's net_memif PMD is not loaded" : rte_strerror(-ret));
		v->memif_port[0] = '\0';
		return ret > 0 ? -ENOENT : ret;
	}
	snprintf(c->mc.wire, sizeof(c->mc.wire), "%s", v->memif_port);
	return 0;
}

/* After the model released it; EAL's bus clean-up may have removed it first. */
static void
vhfi_memif_destroy(struct vhfi *v)
{
	if (v->memif_port[0] != '\0')
		rte_vdev_uninit(v->memif_port);
	v->memif_port[0] = '\0';
}

static int
vhfi_create(struct vpci_dev *dev, const char *args, void **model)
{
	const char *bdf = vpci_dev_name(dev);
	struct vhfi_conf c;
	char name[32];
	struct vhfi *v;
	unsigned int d, b, s, f;
	int ret;

	if (vhfi_conf(args, &c) != 0)
		return -EINVAL;
	/* a name without ':' (it names a net_ring vdev, a pool, memzones) */
	if (sscanf(bdf, "%x:%x:%x.%x", &d, &b, &s, &f) != 4)
		return -EINVAL;
	snprintf(name, sizeof(name), "vhfi%02x%02x%x", b, s, f);
	v = calloc(1, sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	v->dev = dev;
	if (c.memif[0] != '\0') {
		ret = vhfi_memif_create(v, name, &c);
		if (ret != 0) {
			free(v);
			return ret;
		}
	}
	v->m = hfi1_model_create(name, &c.mc, SOCKET_ID_ANY);
	if (v->m == NULL) {
		ret = -rte_errno;
		vhfi_memif_destroy(v);
		free(v);
		return ret != 0 ? ret : -ENOMEM;
	}
	v->stats = getenv("VPCI_STATS") != NULL;
	hfi1_model_set_dma(v->m, vhfi_dma, dev);
	hfi1_model_set_trapped(v->m);
	hfi1_model_attach(v->m, &v->hw, false, &v->poll);
	ret = vpci_thread_start(dev, "vpci-hfi1", vhfi_thread, v);
	if (ret != 0) {
		hfi1_model_destroy(v->m);
		vhfi_memif_destroy(v);
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
	vhfi_memif_destroy(v);
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
	if (reg == HFI1_RCV_CTRL && size == 8) {
		bool on = (val & HFI1_RCV_CTRL_PORT_ENABLE) != 0;

		/* in the trap handler: lock-free loads of vpci's counters only */
		if (on && v->stats && !atomic_load(&v->rcv_on)) {
			struct vpci_dev_stats ds;

			if (vpci_dev_stats_get(vpci_dev_name(v->dev), &ds) == 0) {
				atomic_store(&v->reads_at_on, ds.bar_reads);
				atomic_store(&v->writes_at_on, ds.bar_writes);
			}
		}
		atomic_store(&v->rcv_on, on);
	}
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
