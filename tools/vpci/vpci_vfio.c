/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * The vfio side of vpci: the container (type 1 IOMMU, DMA maps), the groups,
 * the device fd (regions, IRQs, config space, BAR mappings onto vpci_trap),
 * MSI-X through EAL's eventfds. The answers are those a vfio-pci kernel
 * gives EAL (doc/vpci.md).
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/vfio.h>

#include "omni_bytes.h"
#include "vpci_priv.h"
#include "vpci_trap.h"

/* ---- the container's DMA maps ------------------------------------------ */

/* Enough for one map per 2 MB page of 16 GB of dynamic memory. */
#define VPCI_DMA_MAX 8192

struct dma_map {
	uint64_t iova;
	uint64_t size;
	uint64_t vaddr;
	uint32_t flags;		/* VFIO_DMA_MAP_FLAG_READ | _WRITE */
};

/*
 * Sorted by iova. Readers (vpci_dma, maybe in the SIGSEGV handler) take the
 * read side of a spinning rwlock; MAP/UNMAP (an ioctl, never inside a BAR
 * access) the write side: a thread never holds it when it faults.
 */
static struct dma_map dmas[VPCI_DMA_MAX];
static unsigned int nb_dmas;
static rte_rwlock_t dma_lock = RTE_RWLOCK_INITIALIZER;
static bool container_has_group;
static bool container_iommu_set;

/* Index of the last map with iova <= @p iova, or -1. */
static int
dma_find(uint64_t iova)
{
	int lo = 0, hi = (int)nb_dmas - 1, found = -1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (dmas[mid].iova <= iova) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return found;
}

static void
count_all(size_t field_off)
{
	unsigned int i;

	for (i = 0; i < vpci_nb_devs; i++)
		atomic_fetch_add((_Atomic uint64_t *)((char *)&vpci_devs[i].st + field_off), 1);
}

static int
dma_map(struct vfio_iommu_type1_dma_map *m)
{
	int i, ret = 0;

	if (m->argsz < sizeof(*m) || m->size == 0 || m->iova + m->size < m->iova ||
			(m->flags & ~(VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE)) != 0)
		return -EINVAL;
	rte_rwlock_write_lock(&dma_lock);
	i = dma_find(m->iova);
	if ((i >= 0 && dmas[i].iova + dmas[i].size > m->iova) ||
			(i + 1 < (int)nb_dmas && dmas[i + 1].iova < m->iova + m->size)) {
		ret = -EEXIST;
	} else if (nb_dmas == VPCI_DMA_MAX) {
		ret = -ENOSPC;
	} else {
		memmove(&dmas[i + 2], &dmas[i + 1], (nb_dmas - i - 1) * sizeof(dmas[0]));
		dmas[i + 1] = (struct dma_map){ m->iova, m->size, m->vaddr, m->flags };
		nb_dmas++;
	}
	rte_rwlock_write_unlock(&dma_lock);
	if (ret == 0)
		count_all(offsetof(struct vpci_dev, st.dma_maps) - offsetof(struct vpci_dev, st));
	return ret;
}

/* Remove the maps inside [iova, iova + size); one cut in two is refused. */
static int
dma_unmap(struct vfio_iommu_type1_dma_unmap *u)
{
	uint64_t end = u->iova + u->size, done = 0;
	unsigned int i, first = nb_dmas, n = 0;
	int ret = 0;

	if (u->argsz < sizeof(*u) || end < u->iova)
		return -EINVAL;
	rte_rwlock_write_lock(&dma_lock);
	for (i = 0; i < nb_dmas; i++) {
		const struct dma_map *d = &dmas[i];

		if (d->iova + d->size <= u->iova || d->iova >= end)
			continue;
		if (d->iova < u->iova || d->iova + d->size > end) {
			ret = -EINVAL;
			break;
		}
		if (first == nb_dmas)
			first = i;
		n++;
		done += d->size;
	}
	if (ret == 0 && n != 0) {
		memmove(&dmas[first], &dmas[first + n], (nb_dmas - first - n) * sizeof(dmas[0]));
		nb_dmas -= n;
	}
	rte_rwlock_write_unlock(&dma_lock);
	if (ret == 0) {
		u->size = done;
		count_all(offsetof(struct vpci_dev, st.dma_unmaps) -
				offsetof(struct vpci_dev, st));
	}
	return ret;
}

VPCI_EXPORT void *
vpci_dma(struct vpci_dev *dev, uint64_t iova, size_t len, bool write)
{
	uint32_t need = write ? VFIO_DMA_MAP_FLAG_WRITE : VFIO_DMA_MAP_FLAG_READ;
	void *host = NULL;
	uint64_t cur = iova, end = iova + len;
	int i;

	if (len == 0 || end < iova)
		goto fault;
	rte_rwlock_read_lock(&dma_lock);
	i = dma_find(iova);
	if (i >= 0 && dmas[i].iova + dmas[i].size > iova && (dmas[i].flags & need) != 0) {
		host = (void *)(uintptr_t)(dmas[i].vaddr + (iova - dmas[i].iova));
		cur = dmas[i].iova + dmas[i].size;
		/* a range across maps: each next one contiguous in iova and vaddr */
		while (cur < end) {
			const struct dma_map *p = &dmas[i], *q = &dmas[i + 1];

			if ((unsigned int)i + 1 >= nb_dmas || q->iova != cur ||
					q->vaddr != p->vaddr + p->size || (q->flags & need) == 0) {
				host = NULL;
				break;
			}
			cur += q->size;
			i++;
		}
	}
	rte_rwlock_read_unlock(&dma_lock);
	if (host != NULL)
		return host;
fault:
	if (dev != NULL)
		atomic_fetch_add(&dev->st.dma_faults, 1);
	return NULL;
}

int
vpci_container_ioctl(int fd, unsigned long req, void *arg)
{
	(void)fd;
	switch (req) {
	case VFIO_GET_API_VERSION:
		return VFIO_API_VERSION;
	case VFIO_CHECK_EXTENSION: {
		unsigned int ext = (unsigned int)(uintptr_t)arg;

		return ext == VFIO_TYPE1_IOMMU || ext == VFIO_TYPE1v2_IOMMU;
	}
	case VFIO_SET_IOMMU: {
		unsigned int type = (unsigned int)(uintptr_t)arg;

		if (!container_has_group)
			return -EINVAL;
		if (type != VFIO_TYPE1_IOMMU && type != VFIO_TYPE1v2_IOMMU)
			return -EINVAL;
		container_iommu_set = true;
		return 0;
	}
	case VFIO_IOMMU_GET_INFO: {
		struct vfio_iommu_type1_info *info = arg;

		if (info->argsz < offsetof(struct vfio_iommu_type1_info, cap_offset))
			return -EINVAL;
		info->flags = VFIO_IOMMU_INFO_PGSIZES;
		info->iova_pgsizes = 4096 | (2ULL << 20) | (1ULL << 30);
		return 0;
	}
	case VFIO_IOMMU_MAP_DMA:
		if (!container_iommu_set)
			return -EINVAL;
		return dma_map(arg);
	case VFIO_IOMMU_UNMAP_DMA:
		if (!container_iommu_set)
			return -EINVAL;
		return dma_unmap(arg);
	default:
		VPCI_ERR("container: ioctl 0x%lx not served", req);
		return -ENOTTY;
	}
}

/* ---- MSI-X -------------------------------------------------------------- */

#define MSIX_CTRL_HI (VPCI_MSIX_CAP + 3)	/* byte with enable (7), function mask (6) */

static bool
vector_masked(const struct vpci_dev *dev, unsigned int v)
{
	uint8_t hi = __atomic_load_n(&dev->cfg[MSIX_CTRL_HI], __ATOMIC_ACQUIRE);

	return (hi & 0x80) == 0 || (hi & 0x40) != 0 ||
		(__atomic_load_n(&dev->msix_table[v][3], __ATOMIC_ACQUIRE) & 1) != 0;
}

static void
fire(struct vpci_dev *dev, int fd)
{
	uint64_t one = 1;

	if (write(fd, &one, sizeof(one)) == sizeof(one))
		atomic_fetch_add(&dev->st.irqs_raised, 1);
}

/* A vector just unmasked: send what was pending. Caller holds irq_lock (read). */
static void
deliver_pending(struct vpci_dev *dev, unsigned int v)
{
	uint64_t bit = 1ULL << v;
	int fd = dev->irq_fd[v];

	if (fd < 0 || vector_masked(dev, v))
		return;
	if ((atomic_fetch_and(&dev->pba, ~bit) & bit) != 0)
		fire(dev, fd);
}

VPCI_EXPORT int
vpci_irq_raise(struct vpci_dev *dev, unsigned int vector)
{
	uint64_t bit = 1ULL << vector;
	int fd;

	if (dev == NULL || vector >= dev->info.msix_vectors)
		return -EINVAL;
	rte_rwlock_read_lock(&dev->irq_lock);
	fd = dev->irq_fd[vector];
	if (fd >= 0 && !vector_masked(dev, vector)) {
		fire(dev, fd);
	} else {
		atomic_fetch_or(&dev->pba, bit);
		atomic_fetch_add(&dev->st.irqs_pending, 1);
		/* unmasked meanwhile: whoever clears the bit sends it */
		deliver_pending(dev, vector);
	}
	rte_rwlock_read_unlock(&dev->irq_lock);
	return 0;
}

static void
deliver_all_pending(struct vpci_dev *dev)
{
	unsigned int v;

	rte_rwlock_read_lock(&dev->irq_lock);
	for (v = 0; v < dev->info.msix_vectors; v++)
		deliver_pending(dev, v);
	rte_rwlock_read_unlock(&dev->irq_lock);
}

static uint64_t
pba_offset(const struct vpci_dev *dev)
{
	return dev->info.msix_table_offset + 16ULL * dev->info.msix_vectors;
}

/* An access to the MSI-X table or PBA (true), served here; else false. */
static bool
msix_access(struct vpci_dev *dev, unsigned int bar, uint64_t off, unsigned int size,
		uint64_t *value, bool write)
{
	uint64_t tab = dev->info.msix_table_offset, pba = pba_offset(dev);
	unsigned int i;

	if (dev->info.msix_vectors == 0 || bar != dev->info.msix_bar || off < tab ||
			off >= pba + 8 * ((dev->info.msix_vectors + 63) / 64))
		return false;
	if (off >= pba) {
		if (!write) {
			uint64_t p = atomic_load(&dev->pba);

			*value = (p >> (8 * (off - pba))) &
				(size == 8 ? UINT64_MAX : (1ULL << (8 * size)) - 1);
		}
		return true;
	}
	if (!write)
		*value = 0;
	for (i = 0; i < size && off + i < pba; i++) {
		uint64_t b = off + i - tab;
		unsigned int v = b / 16, w = (b % 16) / 4, sh = 8 * (b % 4);
		uint32_t *word = &dev->msix_table[v][w];

		if (write) {
			uint32_t old = __atomic_load_n(word, __ATOMIC_ACQUIRE), nw;

			nw = (old & ~(0xffu << sh)) | ((uint32_t)((*value >> (8 * i)) & 0xff) << sh);
			if (w == 3)
				nw &= 1; /* vector control: only the mask bit */
			__atomic_store_n(word, nw, __ATOMIC_RELEASE);
			if (w == 3 && (old & 1) != 0 && (nw & 1) == 0) {
				rte_rwlock_read_lock(&dev->irq_lock);
				deliver_pending(dev, v);
				rte_rwlock_read_unlock(&dev->irq_lock);
			}
		} else {
			*value |= (uint64_t)((__atomic_load_n(word, __ATOMIC_ACQUIRE) >> sh) &
					0xff) << (8 * i);
		}
	}
	return true;
}

/* ---- BAR accesses (trapped mappings and pread/pwrite on the region) ----- */

static uint64_t
bar_read(struct vpci_dev *dev, unsigned int bar, uint64_t off, unsigned int size)
{
	uint64_t v;

	if (msix_access(dev, bar, off, size, &v, false))
		return v;
	atomic_fetch_add(&dev->st.bar_reads, 1);
	return dev->ops->bar_read(dev->model, bar, off, size);
}

static void
bar_write(struct vpci_dev *dev, unsigned int bar, uint64_t off, unsigned int size, uint64_t v)
{
	if (msix_access(dev, bar, off, size, &v, true))
		return;
	atomic_fetch_add(&dev->st.bar_writes, 1);
	dev->ops->bar_write(dev->model, bar, off, size, v);
}

static int
trap_read(void *ctx, uint64_t addr, unsigned int size, uint64_t *value)
{
	struct vpci_map *m = ctx;

	*value = bar_read(m->dev, m->bar, m->off + addr, size);
	return 0;
}

static int
trap_write(void *ctx, uint64_t addr, unsigned int size, uint64_t value)
{
	struct vpci_map *m = ctx;

	bar_write(m->dev, m->bar, m->off + addr, size, value);
	return 0;
}

static const struct vpci_mem_ops trap_ops = {
	.read = trap_read,
	.write = trap_write,
};

/* Any BAR mapped at all: munmap() looks further only then. */
static _Atomic unsigned int nb_maps;

void *
vpci_device_mmap(struct vpci_dev *dev, void *addr, size_t len, int flags, uint64_t off)
{
	unsigned int bar = off >> VPCI_REGION_SHIFT, i;
	uint64_t boff = off & ((1ULL << VPCI_REGION_SHIFT) - 1);
	struct vpci_map *m = NULL;
	void *p;
	int ret;

	if (bar >= VPCI_MAX_BARS || dev->info.bars[bar].size == 0 || len == 0 ||
			(boff & 4095) != 0 || boff + len > dev->info.bars[bar].size ||
			(flags & MAP_SHARED) == 0) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	pthread_mutex_lock(&dev->lock);
	for (i = 0; i < VPCI_MAX_BARS; i++)
		if (dev->maps[i].addr == NULL) {
			m = &dev->maps[i];
			break;
		}
	if (m == NULL) {
		pthread_mutex_unlock(&dev->lock);
		errno = ENOMEM;
		return MAP_FAILED;
	}
	len = (len + 4095) & ~(size_t)4095;
	p = vpci_real_mmap(addr, len, PROT_NONE,
			MAP_PRIVATE | MAP_ANONYMOUS | (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)),
			-1, 0);
	if (p == MAP_FAILED) {
		pthread_mutex_unlock(&dev->lock);
		return MAP_FAILED;
	}
	m->dev = dev;
	m->bar = bar;
	m->off = boff;
	m->len = len;
	ret = vpci_trap_add(p, len, &trap_ops, m);
	if (ret != 0) {
		vpci_real_munmap(p, len);
		pthread_mutex_unlock(&dev->lock);
		VPCI_ERR("%s: BAR%u cannot be trapped: %s", dev->name, bar, strerror(-ret));
		errno = -ret;
		return MAP_FAILED;
	}
	m->addr = p;
	nb_maps++;
	pthread_mutex_unlock(&dev->lock);
	return p;
}

static void
map_release(struct vpci_map *m)
{
	vpci_trap_remove(m->addr);
	m->addr = NULL;
	nb_maps--;
}

void
vpci_device_munmap(void *addr, size_t len)
{
	uintptr_t lo = (uintptr_t)addr, hi = lo + len;
	unsigned int d, i;

	if (nb_maps == 0)
		return;
	for (d = 0; d < vpci_nb_devs; d++) {
		struct vpci_dev *dev = &vpci_devs[d];

		pthread_mutex_lock(&dev->lock);
		for (i = 0; i < VPCI_MAX_BARS; i++) {
			struct vpci_map *m = &dev->maps[i];
			uintptr_t a = (uintptr_t)m->addr;

			if (m->addr != NULL && a < hi && a + m->len > lo)
				map_release(m);
		}
		pthread_mutex_unlock(&dev->lock);
	}
}

/* ---- config space ------------------------------------------------------- */

static uint32_t
bar_flags(const struct vpci_bar *b)
{
	return (b->is_64 ? 0x4 : 0) | (b->prefetchable ? 0x8 : 0);
}

void
vpci_cfg_init(struct vpci_dev *dev)
{
	const struct vpci_dev_info *in = &dev->info;
	uint8_t *c = dev->cfg;
	unsigned int i;

	memset(c, 0, VPCI_CFG_SIZE);
	omni_put_le16(c + 0x00, in->vendor_id);
	omni_put_le16(c + 0x02, in->device_id);
	c[0x08] = in->revision;
	omni_put_le24(c + 0x09, in->class_code);
	c[0x0e] = 0; /* type 0 header */
	for (i = 0; i < VPCI_MAX_BARS; i++) {
		const struct vpci_bar *b = &in->bars[i];

		if (b->size == 0)
			continue;
		omni_put_le32(c + 0x10 + 4 * i, (dev->bar_addr[i] & 0xfffffff0) | bar_flags(b));
		if (b->is_64) {
			omni_put_le32(c + 0x10 + 4 * (i + 1), dev->bar_addr[i] >> 32);
			i++;
		}
	}
	omni_put_le16(c + 0x2c, in->subsys_vendor_id);
	omni_put_le16(c + 0x2e, in->subsys_device_id);
	c[0x3d] = 1; /* INTA# */
	if (in->msix_vectors != 0) {
		omni_put_le16(c + 0x06, 0x0010); /* capability list */
		c[0x34] = VPCI_MSIX_CAP;
		c[VPCI_MSIX_CAP] = 0x11;
		c[VPCI_MSIX_CAP + 1] = 0;
		omni_put_le16(c + VPCI_MSIX_CAP + 2, in->msix_vectors - 1);
		omni_put_le32(c + VPCI_MSIX_CAP + 4, in->msix_table_offset | in->msix_bar);
		omni_put_le32(c + VPCI_MSIX_CAP + 8, pba_offset(dev) | in->msix_bar);
	}
}

static unsigned int
cfg_size(const struct vpci_dev *dev)
{
	return dev->ops->cfg_read != NULL ? VPCI_CFG_EXT_SIZE : VPCI_CFG_SIZE;
}

/* A BAR register after a write: the address bits the size leaves, the flags. */
static void
cfg_bar_fix(struct vpci_dev *dev, unsigned int reg)
{
	unsigned int i;

	for (i = 0; i < VPCI_MAX_BARS; i++) {
		const struct vpci_bar *b = &dev->info.bars[i];
		uint32_t v;

		if (b->size == 0)
			continue;
		if (reg == i) {
			v = omni_get_le32(dev->cfg + 0x10 + 4 * i);
			v = (v & ~(uint32_t)(b->size - 1) & 0xfffffff0) | bar_flags(b);
			omni_put_le32(dev->cfg + 0x10 + 4 * i, v);
			return;
		}
		if (b->is_64) {
			i++;
			if (reg == i) {
				v = omni_get_le32(dev->cfg + 0x10 + 4 * i);
				v &= ~(uint32_t)((b->size - 1) >> 32);
				omni_put_le32(dev->cfg + 0x10 + 4 * i, v);
				return;
			}
		}
	}
	omni_put_le32(dev->cfg + 0x10 + 4 * reg, 0); /* no BAR there */
}

/* Bits of each byte software may change. */
static uint8_t
cfg_wmask(const struct vpci_dev *dev, unsigned int off)
{
	switch (off) {
	case 0x04:
		return 0x47; /* I/O, memory, bus master, parity error response */
	case 0x05:
		return 0x05; /* SERR#, INTx disable */
	case 0x0c:
	case 0x0d:
	case 0x3c:
		return 0xff;
	default:
		if (off >= 0x10 && off < 0x28)
			return 0xff;
		if (dev->info.msix_vectors != 0 && off == MSIX_CTRL_HI)
			return 0xc0;
		return 0;
	}
}

static ssize_t
cfg_read(struct vpci_dev *dev, uint8_t *buf, size_t n, uint64_t off)
{
	size_t i;

	if (off >= cfg_size(dev))
		return 0;
	if (off + n > cfg_size(dev))
		n = cfg_size(dev) - off;
	pthread_mutex_lock(&dev->lock);
	for (i = 0; i < n; i++) {
		uint64_t o = off + i;

		if (o < VPCI_CFG_SIZE) {
			buf[i] = __atomic_load_n(&dev->cfg[o], __ATOMIC_ACQUIRE);
		} else {
			uint32_t w = dev->model != NULL ?
				dev->ops->cfg_read(dev->model, o & ~3u) : 0;

			buf[i] = w >> (8 * (o & 3));
		}
	}
	pthread_mutex_unlock(&dev->lock);
	return n;
}

static ssize_t
cfg_write(struct vpci_dev *dev, const uint8_t *buf, size_t n, uint64_t off)
{
	bool bars[VPCI_MAX_BARS] = { false }, unmask = false;
	unsigned int i;

	if (off >= cfg_size(dev))
		return 0;
	if (off + n > cfg_size(dev))
		n = cfg_size(dev) - off;
	pthread_mutex_lock(&dev->lock);
	for (i = 0; i < n; i++) {
		uint64_t o = off + i;
		uint8_t m, old;

		if (o >= VPCI_CFG_SIZE)
			continue; /* extended space: read-only here */
		m = cfg_wmask(dev, o);
		old = dev->cfg[o];
		__atomic_store_n(&dev->cfg[o], (old & ~m) | (buf[i] & m), __ATOMIC_RELEASE);
		if (o >= 0x10 && o < 0x28)
			bars[(o - 0x10) / 4] = true;
		if (o == MSIX_CTRL_HI)
			unmask = true;
	}
	for (i = 0; i < VPCI_MAX_BARS; i++)
		if (bars[i])
			cfg_bar_fix(dev, i);
	pthread_mutex_unlock(&dev->lock);
	if (unmask)
		deliver_all_pending(dev);
	return n;
}

ssize_t
vpci_device_pread(struct vpci_dev *dev, void *buf, size_t n, uint64_t off)
{
	unsigned int region = off >> VPCI_REGION_SHIFT;
	uint64_t o = off & ((1ULL << VPCI_REGION_SHIFT) - 1);
	uint8_t *b = buf;
	size_t done = 0;

	if (region == VPCI_CFG_REGION)
		return cfg_read(dev, buf, n, o);
	if (region >= VPCI_MAX_BARS || dev->info.bars[region].size == 0 || dev->model == NULL)
		return -EINVAL;
	while (done < n && o < dev->info.bars[region].size) {
		unsigned int sz = 8;
		uint64_t v;

		while (sz > 1 && ((o & (sz - 1)) != 0 || n - done < sz))
			sz /= 2;
		v = bar_read(dev, region, o, sz);
		memcpy(b + done, &v, sz); /* little-endian host */
		done += sz;
		o += sz;
	}
	return done;
}

ssize_t
vpci_device_pwrite(struct vpci_dev *dev, const void *buf, size_t n, uint64_t off)
{
	unsigned int region = off >> VPCI_REGION_SHIFT;
	uint64_t o = off & ((1ULL << VPCI_REGION_SHIFT) - 1);
	const uint8_t *b = buf;
	size_t done = 0;

	if (region == VPCI_CFG_REGION)
		return cfg_write(dev, buf, n, o);
	if (region >= VPCI_MAX_BARS || dev->info.bars[region].size == 0 || dev->model == NULL)
		return -EINVAL;
	while (done < n && o < dev->info.bars[region].size) {
		unsigned int sz = 8;
		uint64_t v = 0;

		while (sz > 1 && ((o & (sz - 1)) != 0 || n - done < sz))
			sz /= 2;
		memcpy(&v, b + done, sz);
		bar_write(dev, region, o, sz, v);
		done += sz;
		o += sz;
	}
	return done;
}

/* ---- the device fd ------------------------------------------------------ */

static int
region_info(struct vpci_dev *dev, struct vfio_region_info *ri)
{
	uint32_t argsz = ri->argsz;
	bool caps = false;

	if (argsz < sizeof(*ri) || ri->index >= VFIO_PCI_NUM_REGIONS)
		return -EINVAL;
	ri->flags = 0;
	ri->cap_offset = 0;
	ri->size = 0;
	ri->offset = (uint64_t)ri->index << VPCI_REGION_SHIFT;
	if (ri->index < VPCI_MAX_BARS) {
		ri->size = dev->info.bars[ri->index].size;
		/* as vfio-pci: no size (none, or a 64-bit BAR's upper half), no flags */
		if (ri->size != 0)
			ri->flags = VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE |
				VFIO_REGION_INFO_FLAG_MMAP;
		caps = dev->info.msix_vectors != 0 && ri->index == dev->info.msix_bar;
	} else if (ri->index == VFIO_PCI_CONFIG_REGION_INDEX) {
		ri->size = cfg_size(dev);
		ri->flags = VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE;
	}
	if (caps) {
		/* MSIX_MAPPABLE: EAL maps the whole BAR, table included */
		struct vfio_info_cap_header *h = (void *)(ri + 1);
		uint32_t need = sizeof(*ri) + sizeof(*h);

		ri->flags |= VFIO_REGION_INFO_FLAG_CAPS;
		ri->argsz = need;
		if (argsz >= need) {
			ri->cap_offset = sizeof(*ri);
			h->id = VFIO_REGION_INFO_CAP_MSIX_MAPPABLE;
			h->version = 1;
			h->next = 0;
		}
	}
	return 0;
}

static int
irq_info(struct vpci_dev *dev, struct vfio_irq_info *ii)
{
	if (ii->argsz < sizeof(*ii) || ii->index >= VFIO_PCI_NUM_IRQS)
		return -EINVAL;
	ii->flags = 0;
	ii->count = 0;
	switch (ii->index) {
	case VFIO_PCI_MSIX_IRQ_INDEX:
		ii->count = dev->info.msix_vectors;
		ii->flags = ii->count != 0 ? VFIO_IRQ_INFO_EVENTFD | VFIO_IRQ_INFO_NORESIZE : 0;
		break;
	case VFIO_PCI_ERR_IRQ_INDEX:
	case VFIO_PCI_REQ_IRQ_INDEX:
		ii->count = 1;
		ii->flags = VFIO_IRQ_INFO_EVENTFD;
		break;
	default:
		break; /* no INTx, no MSI */
	}
	return 0;
}

static void
set_fd(int *slot, int fd)
{
	int old = *slot;

	*slot = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1;
	if (old >= 0)
		vpci_real_close(old);
}

static int
set_irqs(struct vpci_dev *dev, struct vfio_irq_set *s)
{
	uint32_t type = s->flags & VFIO_IRQ_SET_DATA_TYPE_MASK;
	uint32_t action = s->flags & VFIO_IRQ_SET_ACTION_TYPE_MASK;
	size_t each = type == VFIO_IRQ_SET_DATA_EVENTFD ? sizeof(int32_t) :
		type == VFIO_IRQ_SET_DATA_BOOL ? 1 : 0;
	unsigned int i, n;

	if (s->argsz < sizeof(*s) + each * s->count ||
			__builtin_popcount(type) != 1 || __builtin_popcount(action) != 1)
		return -EINVAL;
	if (s->index == VFIO_PCI_ERR_IRQ_INDEX || s->index == VFIO_PCI_REQ_IRQ_INDEX) {
		if (s->start != 0 || s->count > 1 || action != VFIO_IRQ_SET_ACTION_TRIGGER)
			return -EINVAL;
		if (s->index == VFIO_PCI_REQ_IRQ_INDEX && type == VFIO_IRQ_SET_DATA_EVENTFD)
			set_fd(&dev->req_fd, s->count == 1 ? ((int32_t *)s->data)[0] : -1);
		else if (s->index == VFIO_PCI_REQ_IRQ_INDEX && s->count == 0)
			set_fd(&dev->req_fd, -1);
		return 0;
	}
	if (s->index != VFIO_PCI_MSIX_IRQ_INDEX) {
		/* no INTx, no MSI: only "disable" succeeds */
		return s->count == 0 && type == VFIO_IRQ_SET_DATA_NONE ? 0 : -EINVAL;
	}
	n = dev->info.msix_vectors;
	if (action != VFIO_IRQ_SET_ACTION_TRIGGER || s->start + s->count > n ||
			s->start + s->count < s->start)
		return -EINVAL;
	if (type == VFIO_IRQ_SET_DATA_NONE && s->count == 0) {
		/* disable MSI-X: every eventfd goes */
		rte_rwlock_write_lock(&dev->irq_lock);
		for (i = 0; i < n; i++)
			set_fd(&dev->irq_fd[i], -1);
		__atomic_fetch_and(&dev->cfg[MSIX_CTRL_HI], (uint8_t)~0x80, __ATOMIC_RELEASE);
		rte_rwlock_write_unlock(&dev->irq_lock);
		return 0;
	}
	if (type == VFIO_IRQ_SET_DATA_EVENTFD) {
		const int32_t *fds = (const int32_t *)s->data;
		bool any = false;

		rte_rwlock_write_lock(&dev->irq_lock);
		for (i = 0; i < s->count; i++)
			set_fd(&dev->irq_fd[s->start + i], fds[i]);
		for (i = 0; i < n; i++)
			any |= dev->irq_fd[i] >= 0;
		if (any)
			__atomic_fetch_or(&dev->cfg[MSIX_CTRL_HI], (uint8_t)0x80, __ATOMIC_RELEASE);
		else
			__atomic_fetch_and(&dev->cfg[MSIX_CTRL_HI], (uint8_t)~0x80,
					__ATOMIC_RELEASE);
		rte_rwlock_write_unlock(&dev->irq_lock);
		deliver_all_pending(dev);
		return 0;
	}
	/* trigger from software: NONE (all given) or BOOL (those set) */
	for (i = 0; i < s->count; i++)
		if (type == VFIO_IRQ_SET_DATA_NONE || s->data[i] != 0)
			vpci_irq_raise(dev, s->start + i);
	return 0;
}

int
vpci_device_ioctl(struct vpci_dev *dev, unsigned long req, void *arg)
{
	switch (req) {
	case VFIO_DEVICE_GET_INFO: {
		struct vfio_device_info *di = arg;

		if (di->argsz < offsetof(struct vfio_device_info, num_irqs) + 4)
			return -EINVAL;
		di->flags = VFIO_DEVICE_FLAGS_PCI | VFIO_DEVICE_FLAGS_RESET;
		di->num_regions = VFIO_PCI_NUM_REGIONS;
		di->num_irqs = VFIO_PCI_NUM_IRQS;
		if (di->argsz >= sizeof(*di))
			di->cap_offset = 0;
		return 0;
	}
	case VFIO_DEVICE_GET_REGION_INFO:
		return region_info(dev, arg);
	case VFIO_DEVICE_GET_IRQ_INFO:
		return irq_info(dev, arg);
	case VFIO_DEVICE_SET_IRQS:
		return set_irqs(dev, arg);
	case VFIO_DEVICE_RESET:
		if (dev->ops->reset != NULL && dev->model != NULL)
			dev->ops->reset(dev->model);
		return 0;
	default:
		VPCI_ERR("%s: device ioctl 0x%lx not served", dev->name, req);
		return -ENOTTY;
	}
}

/* VFIO_GROUP_GET_DEVICE_FD: the model is built now (EAL is up). */
static int
device_open(struct vpci_dev *dev)
{
	void *model = NULL;
	unsigned int i;
	int fd, ret;

	pthread_mutex_lock(&dev->lock);
	if (dev->dev_fd >= 0) {
		pthread_mutex_unlock(&dev->lock);
		return -EBUSY;
	}
	vpci_cfg_init(dev);
	memset(dev->msix_table, 0, sizeof(dev->msix_table));
	atomic_store(&dev->pba, 0);
	pthread_mutex_unlock(&dev->lock);
	fd = memfd_create("vpci-device", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* unlocked: create may allocate, and EAL then maps DMA through us */
	ret = dev->ops->create(dev, dev->args, &model);
	if (ret < 0) {
		vpci_threads_stop(dev);
		vpci_real_close(fd);
		atomic_fetch_add(&dev->st.create_failures, 1);
		VPCI_ERR("%s: backend %s could not build its model (%s): the device is not "
				"opened", dev->name, dev->ops->name, strerror(-ret));
		return ret;
	}
	ret = vpci_fd_set(fd, VPCI_FD_DEVICE, dev);
	if (ret != 0) {
		vpci_threads_stop(dev);
		dev->ops->destroy(model);
		vpci_real_close(fd);
		return ret;
	}
	pthread_mutex_lock(&dev->lock);
	dev->model = model;
	dev->dev_fd = fd;
	for (i = 0; i < VPCI_MAX_VECTORS; i++)
		dev->irq_fd[i] = -1;
	pthread_mutex_unlock(&dev->lock);
	atomic_fetch_add(&dev->st.creates, 1);
	return fd;
}

void
vpci_device_close(struct vpci_dev *dev)
{
	unsigned int i;
	void *model;

	pthread_mutex_lock(&dev->lock);
	/* BARs still mapped stay PROT_NONE, untrapped: an access then faults */
	for (i = 0; i < VPCI_MAX_BARS; i++)
		if (dev->maps[i].addr != NULL)
			map_release(&dev->maps[i]);
	model = dev->model;
	pthread_mutex_unlock(&dev->lock);
	vpci_threads_stop(dev);
	if (model != NULL)
		dev->ops->destroy(model);
	pthread_mutex_lock(&dev->lock);
	dev->model = NULL;
	dev->dev_fd = -1;
	rte_rwlock_write_lock(&dev->irq_lock);
	for (i = 0; i < VPCI_MAX_VECTORS; i++)
		set_fd(&dev->irq_fd[i], -1);
	set_fd(&dev->req_fd, -1);
	rte_rwlock_write_unlock(&dev->irq_lock);
	pthread_mutex_unlock(&dev->lock);
}

int
vpci_group_ioctl(int fd, struct vpci_dev *dev, unsigned long req, void *arg)
{
	(void)fd;
	switch (req) {
	case VFIO_GROUP_GET_STATUS: {
		struct vfio_group_status *gs = arg;

		if (gs->argsz < sizeof(*gs))
			return -EINVAL;
		gs->flags = VFIO_GROUP_FLAGS_VIABLE |
			(container_has_group ? VFIO_GROUP_FLAGS_CONTAINER_SET : 0);
		return 0;
	}
	case VFIO_GROUP_SET_CONTAINER:
		container_has_group = true;
		return 0;
	case VFIO_GROUP_UNSET_CONTAINER:
		return 0;
	case VFIO_GROUP_GET_DEVICE_FD: {
		const char *name = arg;
		size_t len = strcspn(name, " ");

		if (len != strlen(dev->name) || memcmp(name, dev->name, len) != 0)
			return -ENODEV;
		if (!container_iommu_set)
			return -EINVAL;
		return device_open(dev);
	}
	default:
		VPCI_ERR("group %u: ioctl 0x%lx not served", dev->group, req);
		return -ENOTTY;
	}
}
