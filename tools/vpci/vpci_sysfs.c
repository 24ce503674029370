/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * The fake sysfs tree EAL scans (SYSFS_PCI_DEVICES): plain files and
 * symlinks in a private directory, removed at exit.
 *
 *   <root>/devices/<BDF>/{vendor,device,subsystem_vendor,subsystem_device,
 *                         class,resource,numa_node,driver@,iommu_group@}
 *   <root>/drivers/vfio-pci/          the driver symlinks' target
 *   <root>/iommu_groups/<N>/          the groups (also /sys/kernel/iommu_groups)
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vpci_priv.h"

/* IORESOURCE_* flags of a sysfs resource line */
#define RES_MEM 0x00000200
#define RES_PREFETCH 0x00002000
#define RES_MEM_64 0x00100000

static int
put(const char *dir, const char *file, const char *fmt, ...)
{
	char path[PATH_MAX], buf[2048];
	va_list ap;
	int fd, n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (snprintf(path, sizeof(path), "%s/%s", dir, file) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = vpci_real_open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, buf, n) != n) {
		n = -errno;
		vpci_real_close(fd);
		return n != 0 ? n : -EIO;
	}
	vpci_real_close(fd);
	return 0;
}

static int
sub(char *out, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out, PATH_MAX, fmt, ap);
	va_end(ap);
	if (n >= PATH_MAX)
		return -ENAMETOOLONG;
	if (mkdir(out, 0755) != 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static int
build_dev(const struct vpci_dev *dev)
{
	const struct vpci_dev_info *in = &dev->info;
	char dir[PATH_MAX], grp[PATH_MAX], link[PATH_MAX], res[64 * 13];
	size_t off = 0;
	unsigned int i;
	int ret;

	ret = sub(dir, "%s/devices/%s", vpci_root, dev->name);
	if (ret == 0)
		ret = sub(grp, "%s/iommu_groups/%u", vpci_root, dev->group);
	if (ret == 0)
		ret = put(dir, "vendor", "0x%04x\n", in->vendor_id);
	if (ret == 0)
		ret = put(dir, "device", "0x%04x\n", in->device_id);
	if (ret == 0)
		ret = put(dir, "subsystem_vendor", "0x%04x\n", in->subsys_vendor_id);
	if (ret == 0)
		ret = put(dir, "subsystem_device", "0x%04x\n", in->subsys_device_id);
	if (ret == 0)
		ret = put(dir, "class", "0x%06x\n", in->class_code & 0xffffff);
	if (ret == 0)
		ret = put(dir, "numa_node", "%d\n", in->numa_node);
	if (ret != 0)
		return ret;
	/* 6 BARs, the ROM and the 6 bridge windows, as the kernel writes them */
	for (i = 0; i < 13; i++) {
		uint64_t start = 0, end = 0, flags = 0;

		if (i < VPCI_MAX_BARS && in->bars[i].size != 0) {
			start = dev->bar_addr[i];
			end = start + in->bars[i].size - 1;
			flags = RES_MEM | (in->bars[i].is_64 ? RES_MEM_64 : 0) |
				(in->bars[i].prefetchable ? RES_PREFETCH : 0);
		}
		off += snprintf(res + off, sizeof(res) - off, "0x%016llx 0x%016llx 0x%016llx\n",
				(unsigned long long)start, (unsigned long long)end,
				(unsigned long long)flags);
	}
	if (dev->sysfs != VPCI_SYSFS_NO_RESOURCE) {
		ret = put(dir, "resource", "%s", res);
		if (ret != 0)
			return ret;
	}
	if (dev->sysfs != VPCI_SYSFS_NO_DRIVER) {
		if (snprintf(link, sizeof(link), "%s/driver", dir) >= (int)sizeof(link))
			return -ENAMETOOLONG;
		if (symlink("../../drivers/vfio-pci", link) != 0)
			return -errno;
	}
	if (dev->sysfs != VPCI_SYSFS_NO_IOMMU_GROUP) {
		char target[64];

		if (snprintf(link, sizeof(link), "%s/iommu_group", dir) >= (int)sizeof(link))
			return -ENAMETOOLONG;
		snprintf(target, sizeof(target), "../../iommu_groups/%u", dev->group);
		if (symlink(target, link) != 0)
			return -errno;
	}
	return 0;
}

static pid_t owner;

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw);

/*
 * SYSFS_PCI_DEVICES inherited: a tree of vpci's ("<dir>/vpci-<pid>-XXXXXX/devices")
 * is replaced quietly, and removed when <pid> is ours (this process made it
 * before an exec, as stdbuf does: its exit never came). Another value: said.
 */
static void
inherited_tree(void)
{
	const char *old = getenv("SYSFS_PCI_DEVICES");
	char mine[32], dir[PATH_MAX];
	const char *base;
	size_t len;

	if (old == NULL)
		return;
	len = strlen(old);
	if (len < 8 || len >= sizeof(dir) || strcmp(old + len - 8, "/devices") != 0) {
		VPCI_ERR("SYSFS_PCI_DEVICES=%s replaced by vpci's tree", old);
		return;
	}
	memcpy(dir, old, len - 8);
	dir[len - 8] = '\0';
	base = strrchr(dir, '/');
	base = base != NULL ? base + 1 : dir;
	if (strncmp(base, "vpci-", 5) != 0) {
		VPCI_ERR("SYSFS_PCI_DEVICES=%s replaced by vpci's tree", old);
		return;
	}
	snprintf(mine, sizeof(mine), "vpci-%d-", (int)getpid());
	if (strncmp(base, mine, strlen(mine)) == 0)
		nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

int
vpci_sysfs_build(void)
{
	const char *tmp = getenv("TMPDIR");
	char path[PATH_MAX];
	unsigned int i;
	int ret;

	if (tmp == NULL || tmp[0] == '\0')
		tmp = "/tmp";
	inherited_tree();
	owner = getpid();
	if (snprintf(vpci_root, sizeof(vpci_root), "%s/vpci-%d-XXXXXX", tmp, (int)owner) >=
			(int)sizeof(vpci_root) || mkdtemp(vpci_root) == NULL) {
		VPCI_ERR("cannot make the sysfs tree in %s: %s; no device presented", tmp,
				strerror(errno));
		vpci_root[0] = '\0';
		return -1;
	}
	ret = sub(path, "%s/devices", vpci_root);
	if (ret == 0)
		ret = sub(path, "%s/drivers", vpci_root);
	if (ret == 0)
		ret = sub(path, "%s/drivers/vfio-pci", vpci_root);
	if (ret == 0)
		ret = sub(path, "%s/iommu_groups", vpci_root);
	for (i = 0; ret == 0 && i < vpci_nb_devs; i++)
		ret = build_dev(&vpci_devs[i]);
	if (ret != 0) {
		VPCI_ERR("cannot build the sysfs tree in %s: %s; no device presented", vpci_root,
				strerror(-ret));
		vpci_sysfs_remove();
		return -1;
	}
	if (snprintf(path, sizeof(path), "%s/devices", vpci_root) >= (int)sizeof(path)) {
		vpci_sysfs_remove();
		return -1;
	}
	setenv("SYSFS_PCI_DEVICES", path, 1);
	return 0;
}

static int
rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

void
vpci_sysfs_remove(void)
{
	/* a child forked without exec leaves its parent's tree alone */
	if (vpci_root[0] == '\0' || getpid() != owner)
		return;
	nftw(vpci_root, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	vpci_root[0] = '\0';
}
