/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _VPCI_PRIV_H_
#define _VPCI_PRIV_H_

/*
 * vpci's own state: the configured functions, their vfio fds, config space,
 * BAR mappings, MSI-X and the container's DMA maps. Not a public header.
 */

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_rwlock.h>

#include "vpci_model.h"

#define VPCI_MAX_DEVS 16
#define VPCI_MAX_FILES 16
#define VPCI_MAX_THREADS 4
#define VPCI_ARGS_MAX 512
#define VPCI_NAME_MAX 32
/*
 * Fake bus addresses of the BARs: VPCI_BAR_BASE + device index * VPCI_BAR_STRIDE
 * + BAR index * VPCI_BAR_STRIDE / 8. The upper dwords stay even: EAL reads a
 * 64-bit BAR's upper half as a BAR of its own, and bit 0 set means I/O.
 */
#define VPCI_BAR_BASE 0x3800000000ULL
#define VPCI_BAR_STRIDE 0x200000000ULL
/* First IOMMU group number; device i gets VPCI_GROUP_BASE + i. */
#define VPCI_GROUP_BASE 40
#define VPCI_CFG_SIZE 256
#define VPCI_CFG_EXT_SIZE 4096
#define VPCI_MSIX_CAP 0x40
/* vfio's region offsets: index << 40. */
#define VPCI_REGION_SHIFT 40
#define VPCI_CFG_REGION 7

/** How complete the function's sysfs entry is (the wrong cases). */
enum vpci_sysfs_mode {
	VPCI_SYSFS_FULL,
	VPCI_SYSFS_NO_DRIVER,
	VPCI_SYSFS_NO_RESOURCE,
	VPCI_SYSFS_NO_IOMMU_GROUP,
};

/** One line of configuration, parsed (vpci_config.c). */
struct vpci_conf {
	uint16_t domain;
	uint8_t bus;
	uint8_t devid;
	uint8_t function;
	char model[VPCI_NAME_MAX];
	int numa;			/**< -2: not given (the model says) */
	enum vpci_sysfs_mode sysfs;
	char args[VPCI_ARGS_MAX];	/**< the backend's keys */
	unsigned int nb_files;
	char file_from[VPCI_MAX_FILES][PATH_MAX];
	char file_to[VPCI_MAX_FILES][PATH_MAX];
};

/**
 * Parse one device ("BDF,model=NAME[,key=value...]") into @p c.
 * @return 0, or -EINVAL with @p err saying why.
 */
int vpci_conf_parse(const char *text, struct vpci_conf *c, char *err, size_t err_len);

/**
 * Split @p text (";" or newlines between devices, "#" to the end of a line a
 * comment, blank entries skipped) and call @p fn on each device's text.
 * @return the number of entries handed to @p fn.
 */
unsigned int vpci_conf_split(const char *text, void (*fn)(const char *entry, void *arg),
		void *arg);

/** One BAR mapping of a device fd (mmap at region index << 40). */
struct vpci_map {
	struct vpci_dev *dev;
	void *addr;		/**< NULL: slot free */
	size_t len;
	unsigned int bar;
	uint64_t off;		/**< BAR offset of addr */
};

struct vpci_thread {
	pthread_t tid;
	bool used;
	void (*fn)(void *arg, const volatile bool *stop);
	void *arg;
	struct vpci_dev *dev;
};

struct vpci_dev {
	char name[16];			/**< "0000:00:04.0" */
	unsigned int index;
	const struct vpci_model_ops *ops;
	char args[VPCI_ARGS_MAX];
	struct vpci_dev_info info;
	enum vpci_sysfs_mode sysfs;
	unsigned int group;
	uint64_t bar_addr[VPCI_MAX_BARS];	/**< fake bus address per BAR */

	/* open device */
	pthread_mutex_t lock;		/**< config space, open/close (never in a handler) */
	int dev_fd;			/**< -1: closed */
	void *model;
	uint8_t cfg[VPCI_CFG_SIZE];
	struct vpci_map maps[VPCI_MAX_BARS];
	struct vpci_thread threads[VPCI_MAX_THREADS];
	volatile bool stop;

	/* MSI-X: eventfds (dups of EAL's), table, pending bits */
	rte_rwlock_t irq_lock;
	int irq_fd[VPCI_MAX_VECTORS];
	int req_fd;
	uint32_t msix_table[VPCI_MAX_VECTORS][4];
	_Atomic uint64_t pba;

	struct {
		_Atomic uint64_t bar_reads, bar_writes, dma_maps, dma_unmaps, dma_faults,
			irqs_raised, irqs_pending, creates, create_failures;
	} st;
};

/* vpci.c */
extern struct vpci_dev vpci_devs[VPCI_MAX_DEVS];
extern unsigned int vpci_nb_devs;
extern bool vpci_active;
extern char vpci_root[PATH_MAX];
extern unsigned int vpci_nb_files;
extern char vpci_file_from[VPCI_MAX_FILES][PATH_MAX];
extern char vpci_file_to[VPCI_MAX_FILES][PATH_MAX];

const struct vpci_model_ops *vpci_model_find(const char *name);
struct vpci_dev *vpci_dev_by_group(unsigned int group);
struct vpci_dev *vpci_dev_by_name(const char *name);

void vpci_threads_stop(struct vpci_dev *dev);

/* vpci_sysfs.c */
int vpci_sysfs_build(void);
void vpci_sysfs_remove(void);

/* vpci_vfio.c */
int vpci_container_ioctl(int fd, unsigned long req, void *arg);
int vpci_group_ioctl(int fd, struct vpci_dev *dev, unsigned long req, void *arg);
int vpci_device_ioctl(struct vpci_dev *dev, unsigned long req, void *arg);
ssize_t vpci_device_pread(struct vpci_dev *dev, void *buf, size_t n, uint64_t off);
ssize_t vpci_device_pwrite(struct vpci_dev *dev, const void *buf, size_t n, uint64_t off);
void *vpci_device_mmap(struct vpci_dev *dev, void *addr, size_t len, int flags, uint64_t off);
/** A munmap of [addr, addr+len): stop trapping BAR mappings inside it. */
void vpci_device_munmap(void *addr, size_t len);
void vpci_device_close(struct vpci_dev *dev);
void vpci_cfg_init(struct vpci_dev *dev);

/* vpci_interpose.c: the real libc functions */
int vpci_real_open(const char *path, int flags, int mode);
int vpci_real_close(int fd);
void *vpci_real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int vpci_real_munmap(void *addr, size_t len);
/** Remember @p fd as a vfio fd of @p kind (VPCI_FD_*); @p dev for groups and devices. */
int vpci_fd_set(int fd, int kind, struct vpci_dev *dev);

enum vpci_fd_kind {
	VPCI_FD_NONE,
	VPCI_FD_CONTAINER,
	VPCI_FD_GROUP,
	VPCI_FD_DEVICE,
};

/** A definition of the public API (the library is built -fvisibility=hidden). */
#define VPCI_EXPORT __attribute__((visibility("default")))

#define VPCI_ERR(fmt, ...) vpci_msg("vpci: " fmt "\n", ##__VA_ARGS__)
/** One line on stderr (write(2), no stdio: usable anywhere but a handler). */
void vpci_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* _VPCI_PRIV_H_ */
