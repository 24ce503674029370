/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * libc interposition: the paths and fds EAL's vfio code uses outside the
 * sysfs tree, answered by vpci; everything else is forwarded to the next
 * definition (libc) through dlsym(RTLD_NEXT). Exported from libomni_vpci.so
 * (LD_PRELOAD) and from a test binary that links vpci in (its dynamic
 * symbol table: the linker exports what the DPDK libraries import).
 *
 * glibc's fopen and opendir open their files without going through the
 * PLT, so they are interposed themselves; DPDK imports the *64 names.
 */

#undef _FORTIFY_SOURCE
/* the plain and *64 names are separate symbols here: no redirection */
#undef _FILE_OFFSET_BITS
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/vfio.h>

#include "vpci_priv.h"

/*
 * The fds vpci handed out (memfds: container, groups, devices), by number
 * and by identity. A number is reused once closed, and glibc closes some
 * without our close() (fclose of an fopen'd one, dup2 over one,
 * close_range): an entry counts only while fstat() still finds the memfd
 * it was made for, else it is dropped. Any fd number (EAL raises the limit
 * and holds one per hugepage segment); at most VPCI_FDS at once.
 */
#define VPCI_FDS 256

static struct {
	_Atomic int fd;		/* -1: free */
	ino_t ino;
	dev_t dev_no;
	int kind;
	struct vpci_dev *dev;
} fds[VPCI_FDS] = { [0 ... VPCI_FDS - 1] = { .fd = -1 } };
static pthread_mutex_t fds_lock = PTHREAD_MUTEX_INITIALIZER;

#define REAL(name) \
	static __typeof__(name) * real_ ## name; \
	if (real_ ## name == NULL) \
		real_ ## name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

static int
real_fstat(int fd, struct stat *st)
{
	REAL(fstat64);
	return real_fstat64(fd, (struct stat64 *)st);
}

int
vpci_fd_set(int fd, int kind, struct vpci_dev *dev)
{
	struct stat st;
	int i, ret = -EMFILE;

	if (fd < 0 || real_fstat(fd, &st) != 0)
		return -EBADF;
	pthread_mutex_lock(&fds_lock);
	for (i = 0; i < VPCI_FDS; i++)
		if (atomic_load(&fds[i].fd) == fd)
			atomic_store(&fds[i].fd, -1); /* stale: closed behind our back */
	for (i = 0; i < VPCI_FDS; i++) {
		if (atomic_load(&fds[i].fd) != -1)
			continue;
		fds[i].ino = st.st_ino;
		fds[i].dev_no = st.st_dev;
		fds[i].kind = kind;
		fds[i].dev = dev;
		atomic_store_explicit(&fds[i].fd, fd, memory_order_release);
		ret = 0;
		break;
	}
	pthread_mutex_unlock(&fds_lock);
	return ret;
}

/* The entry of @p fd if it is still the memfd vpci made (stale ones dropped), or -1. */
static int
fd_slot(int fd)
{
	struct stat st;
	int i;

	if (!vpci_active || fd < 0)
		return -1;
	for (i = 0; i < VPCI_FDS; i++) {
		if (atomic_load_explicit(&fds[i].fd, memory_order_acquire) != fd)
			continue;
		if (real_fstat(fd, &st) == 0 && st.st_ino == fds[i].ino &&
				st.st_dev == fds[i].dev_no)
			return i;
		pthread_mutex_lock(&fds_lock);
		if (atomic_load(&fds[i].fd) == fd)
			atomic_store(&fds[i].fd, -1);
		pthread_mutex_unlock(&fds_lock);
		return -1;
	}
	return -1;
}

static int
fd_kind_of(int fd)
{
	int i = fd_slot(fd);

	return i < 0 ? VPCI_FD_NONE : fds[i].kind;
}

/* The device whose vfio device fd @p fd is, or NULL. */
static struct vpci_dev *
device_of(int fd)
{
	int i = fd_slot(fd);

	return i >= 0 && fds[i].kind == VPCI_FD_DEVICE ? fds[i].dev : NULL;
}

/* What vpci does with a path. */
enum path_kind {
	P_NONE,
	P_CONTAINER,		/* /dev/vfio/vfio */
	P_GROUP,		/* /dev/vfio/<group> */
	P_ABSENT,		/* vfio's noiommu parameter: ENOENT */
	P_MODULE,		/* /sys/module/vfio, /sys/module/vfio_pci: present */
	P_REDIRECT,		/* a file= redirect, or /sys/kernel/iommu_groups */
};

static enum path_kind
path_kind(const char *path, const char **to, char *buf, struct vpci_dev **dev)
{
	static const char vfio_dev[] = "/dev/vfio/";
	unsigned int i;

	if (!vpci_active || path == NULL || path[0] != '/')
		return P_NONE;
	if (strncmp(path, vfio_dev, sizeof(vfio_dev) - 1) == 0) {
		const char *g = path + sizeof(vfio_dev) - 1;
		char *end;
		unsigned long n;

		if (strcmp(g, "vfio") == 0)
			return P_CONTAINER;
		if (g[0] < '0' || g[0] > '9')
			return P_NONE;
		n = strtoul(g, &end, 10);
		if (*end != '\0' || n > 0xffff)
			return P_NONE;
		*dev = vpci_dev_by_group(n);
		return *dev != NULL ? P_GROUP : P_NONE;
	}
	if (strncmp(path, "/sys/", 5) == 0) {
		if (strcmp(path, "/sys/module/vfio/parameters/enable_unsafe_noiommu_mode") == 0)
			return P_ABSENT;
		if (strcmp(path, "/sys/module/vfio") == 0 ||
				strcmp(path, "/sys/module/vfio_pci") == 0) {
			*to = vpci_root;
			return P_MODULE;
		}
		if (strcmp(path, "/sys/kernel/iommu_groups") == 0) {
			if (snprintf(buf, PATH_MAX, "%s/iommu_groups", vpci_root) >= PATH_MAX)
				return P_NONE; /* cannot be: the root was made shorter */
			*to = buf;
			return P_REDIRECT;
		}
	}
	for (i = 0; i < vpci_nb_files; i++)
		if (strcmp(path, vpci_file_from[i]) == 0) {
			*to = vpci_file_to[i];
			return P_REDIRECT;
		}
	return P_NONE;
}

static int
open_memfd(const char *name, int kind, struct vpci_dev *dev, int flags)
{
	int fd = memfd_create(name, (flags & O_CLOEXEC) ? MFD_CLOEXEC : 0);
	int ret;

	if (fd < 0)
		return -1;
	ret = vpci_fd_set(fd, kind, dev);
	if (ret != 0) {
		vpci_real_close(fd);
		errno = -ret;
		return -1;
	}
	return fd;
}

/* open/openat on a vpci path; -2: not ours (forward with *path). */
static int
open_ours(const char **path, int flags, char *buf)
{
	struct vpci_dev *dev = NULL;
	const char *to = NULL;

	switch (path_kind(*path, &to, buf, &dev)) {
	case P_CONTAINER:
		return open_memfd("vpci-container", VPCI_FD_CONTAINER, NULL, flags);
	case P_GROUP:
		return open_memfd("vpci-group", VPCI_FD_GROUP, dev, flags);
	case P_ABSENT:
		errno = ENOENT;
		return -1;
	case P_MODULE:
	case P_REDIRECT:
		*path = to;
		return -2;
	default:
		return -2;
	}
}

static int
open_mode(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? va_arg(ap, int) : 0;
}

int
vpci_real_open(const char *path, int flags, int mode)
{
	REAL(open64);
	return real_open64(path, flags, mode);
}

/*
 * The plain names are aliases of the *64 ones: on x86-64 (LP64) off_t is
 * off64_t and glibc's pairs are one function, so one body serves both.
 */
VPCI_EXPORT int
open64(const char *path, int flags, ...)
{
	char buf[PATH_MAX];
	va_list ap;
	int mode, fd;

	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	fd = open_ours(&path, flags, buf);
	if (fd != -2)
		return fd;
	return vpci_real_open(path, flags, mode);
}

VPCI_EXPORT int open(const char *path, int flags, ...)
	__attribute__((alias("open64")));

VPCI_EXPORT int
openat64(int dirfd, const char *path, int flags, ...)
{
	char buf[PATH_MAX];
	va_list ap;
	int mode, fd;
	REAL(openat64);

	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	fd = open_ours(&path, flags, buf);
	if (fd != -2)
		return fd;
	return real_openat64(dirfd, path, flags, mode);
}

VPCI_EXPORT int openat(int dirfd, const char *path, int flags, ...)
	__attribute__((alias("openat64")));

/* fopen on a vpci path: the redirect, or through our open for the fds. */
static FILE *
fopen_ours(const char **path, const char *mode, char *buf, bool *done)
{
	struct vpci_dev *dev = NULL;
	const char *to = NULL;
	int fd;

	*done = true;
	switch (path_kind(*path, &to, buf, &dev)) {
	case P_CONTAINER:
	case P_GROUP:
		fd = open_ours(path, O_RDWR, buf);
		return fd >= 0 ? fdopen(fd, mode) : NULL;
	case P_ABSENT:
		errno = ENOENT;
		return NULL;
	case P_MODULE:
	case P_REDIRECT:
		*path = to;
		*done = false;
		return NULL;
	default:
		*done = false;
		return NULL;
	}
}

VPCI_EXPORT FILE *
fopen64(const char *path, const char *mode)
{
	char buf[PATH_MAX];
	bool done;
	FILE *f;
	REAL(fopen64);

	f = fopen_ours(&path, mode, buf, &done);
	return done ? f : real_fopen64(path, mode);
}

VPCI_EXPORT FILE *fopen(const char *path, const char *mode)
	__attribute__((alias("fopen64")));

/* stat/access: the fds' paths exist (as the tree's root), the rest redirected. */
static int
stat_path(const char **path, char *buf)
{
	struct vpci_dev *dev = NULL;
	const char *to = NULL;

	switch (path_kind(*path, &to, buf, &dev)) {
	case P_CONTAINER:
	case P_GROUP:
		*path = vpci_root;
		return 0;
	case P_ABSENT:
		errno = ENOENT;
		return -1;
	case P_MODULE:
	case P_REDIRECT:
		*path = to;
		return 0;
	default:
		return 0;
	}
}

VPCI_EXPORT int
stat64(const char *path, struct stat64 *st)
{
	char buf[PATH_MAX];
	REAL(stat64);

	if (stat_path(&path, buf) != 0)
		return -1;
	return real_stat64(path, st);
}

VPCI_EXPORT int
stat(const char *path, struct stat *st)
{
	char buf[PATH_MAX];
	REAL(stat);

	if (stat_path(&path, buf) != 0)
		return -1;
	return real_stat(path, st);
}

VPCI_EXPORT int
access(const char *path, int mode)
{
	char buf[PATH_MAX];
	REAL(access);

	if (stat_path(&path, buf) != 0)
		return -1;
	return real_access(path, mode);
}

VPCI_EXPORT DIR *
opendir(const char *path)
{
	char buf[PATH_MAX];
	REAL(opendir);

	if (stat_path(&path, buf) != 0)
		return NULL;
	return real_opendir(path);
}

VPCI_EXPORT int
ioctl(int fd, unsigned long req, ...)
{
	struct vpci_dev *dev = NULL;
	int ret, kind = VPCI_FD_NONE, i;
	va_list ap;
	void *arg;
	REAL(ioctl);

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	i = fd_slot(fd);
	if (i >= 0) {
		kind = fds[i].kind;
		dev = fds[i].dev;
	}
	/* vfio's ioctls take a pointer but these: a NULL one is EFAULT, not a crash */
	if (kind != VPCI_FD_NONE && arg == NULL && req != VFIO_GET_API_VERSION &&
			req != VFIO_CHECK_EXTENSION && req != VFIO_SET_IOMMU &&
			req != VFIO_DEVICE_RESET && req != VFIO_GROUP_UNSET_CONTAINER) {
		errno = EFAULT;
		return -1;
	}
	switch (kind) {
	case VPCI_FD_CONTAINER:
		ret = vpci_container_ioctl(fd, req, arg);
		break;
	case VPCI_FD_GROUP:
		if (req == VFIO_GROUP_SET_CONTAINER &&
				(arg == NULL || fd_kind_of(*(int *)arg) != VPCI_FD_CONTAINER)) {
			ret = -EBADF;
			break;
		}
		ret = vpci_group_ioctl(fd, dev, req, arg);
		if (ret >= 0 && req == VFIO_GROUP_GET_DEVICE_FD)
			return ret;
		break;
	case VPCI_FD_DEVICE:
		ret = vpci_device_ioctl(dev, req, arg);
		break;
	default:
		return real_ioctl(fd, req, arg);
	}
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return ret;
}

int
vpci_real_close(int fd)
{
	REAL(close);
	return real_close(fd);
}

VPCI_EXPORT int
close(int fd)
{
	int i = fd_slot(fd), kind = VPCI_FD_NONE;
	struct vpci_dev *dev = NULL;

	if (i >= 0) {
		pthread_mutex_lock(&fds_lock);
		if (atomic_load(&fds[i].fd) == fd) {
			kind = fds[i].kind;
			dev = fds[i].dev;
			atomic_store(&fds[i].fd, -1);
		}
		pthread_mutex_unlock(&fds_lock);
		if (kind == VPCI_FD_DEVICE)
			vpci_device_close(dev);
	}
	return vpci_real_close(fd);
}

void *
vpci_real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	REAL(mmap64);
	return real_mmap64(addr, len, prot, flags, fd, off);
}

int
vpci_real_munmap(void *addr, size_t len)
{
	REAL(munmap);
	return real_munmap(addr, len);
}

VPCI_EXPORT void *
mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
	struct vpci_dev *dev;

	dev = device_of(fd);
	if (dev != NULL)
		return vpci_device_mmap(dev, addr, len, flags, off);
	return vpci_real_mmap(addr, len, prot, flags, fd, off);
}

VPCI_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
	__attribute__((alias("mmap64")));

VPCI_EXPORT int
munmap(void *addr, size_t len)
{
	if (vpci_active)
		vpci_device_munmap(addr, len);
	return vpci_real_munmap(addr, len);
}

static ssize_t
ret_errno(ssize_t ret)
{
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return ret;
}

VPCI_EXPORT ssize_t
pread64(int fd, void *buf, size_t n, off64_t off)
{
	struct vpci_dev *dev;
	REAL(pread64);

	dev = device_of(fd);
	if (dev != NULL)
		return ret_errno(vpci_device_pread(dev, buf, n, off));
	return real_pread64(fd, buf, n, off);
}

VPCI_EXPORT ssize_t pread(int fd, void *buf, size_t n, off_t off)
	__attribute__((alias("pread64")));

VPCI_EXPORT ssize_t
pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
	struct vpci_dev *dev;
	REAL(pwrite64);

	dev = device_of(fd);
	if (dev != NULL)
		return ret_errno(vpci_device_pwrite(dev, buf, n, off));
	return real_pwrite64(fd, buf, n, off);
}

VPCI_EXPORT ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
	__attribute__((alias("pwrite64")));
