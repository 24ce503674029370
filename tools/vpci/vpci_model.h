/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _VPCI_MODEL_H_
#define _VPCI_MODEL_H_

/**
 * @file
 * The model side of vpci: what a device model implements to be presented to
 * DPDK's EAL as a PCI function bound to vfio-pci, and what vpci offers it
 * (DMA through the container's maps, MSI-X through EAL's eventfds, a thread).
 *
 * vpci owns the PCI function: sysfs entry, vfio fds and ioctls, config space
 * with MSI-X, BAR mappings. Every access the driver makes to a BAR page
 * reaches the model's bar_read/bar_write, on the thread that made it (main,
 * EAL interrupt thread, any lcore) and possibly from a signal handler: these
 * two callbacks must be thread-safe, must not block for long, must not call
 * into the driver and must not take DPDK locks. create/destroy run in normal
 * context (EAL is initialised: memzones, vdevs and ethdevs may be used).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** BARs a function has (PCI: 6). */
#define VPCI_MAX_BARS 6
/** MSI-X vectors a function may declare at most. */
#define VPCI_MAX_VECTORS 64

/** One virtual PCI function, owned by vpci. */
struct vpci_dev;

/** One BAR a model declares. */
struct vpci_bar {
	uint64_t size;		/**< power of two >= 4096; 0: no BAR */
	bool is_64;		/**< 64-bit memory BAR (takes the next index too) */
	bool prefetchable;
};

/** The function's identity and shape, filled by the model's describe. */
struct vpci_dev_info {
	uint16_t vendor_id;
	uint16_t device_id;
	uint16_t subsys_vendor_id;
	uint16_t subsys_device_id;
	uint32_t class_code;		/**< 24 bits, e.g. 0x020000 (Ethernet) */
	uint8_t revision;
	struct vpci_bar bars[VPCI_MAX_BARS];
	uint16_t msix_vectors;		/**< 0: no MSI-X capability */
	uint8_t msix_bar;		/**< BAR holding the MSI-X table and PBA */
	uint64_t msix_table_offset;	/**< in msix_bar; the PBA follows the table */
	int numa_node;			/**< -1: none */
};

/** What a model implements. */
struct vpci_model_ops {
	/** Backend name in the configuration ("hfi1", "e4", ...). */
	const char *name;
	/**
	 * Check the configuration arguments ("key=value,..." after the model
	 * name) and say what the function looks like. Runs when vpci loads,
	 * before EAL exists (EAL scans sysfs first): plain C only, no DPDK
	 * calls but kvargs. A negative errno: the function is not presented
	 * and vpci says why on stderr.
	 */
	int (*describe)(const char *args, struct vpci_dev_info *info);
	/**
	 * Build the model for @p dev. Runs when EAL opens the vfio device fd
	 * (during its PCI probe), in normal context with EAL initialised.
	 * Return 0 and set *model, or a negative errno: the open fails and EAL
	 * skips the device, as it would one it cannot open.
	 */
	int (*create)(struct vpci_dev *dev, const char *args, void **model);
	/** Stop the model's thread if any and free it (device fd closed). */
	void (*destroy)(void *model);
	/**
	 * A read of @p size bytes (1, 2, 4, 8) at @p offset of BAR @p bar.
	 * 16-byte accesses arrive as two 8-byte ones, low half first.
	 */
	uint64_t (*bar_read)(void *model, unsigned int bar, uint64_t offset,
			unsigned int size);
	/** A write of @p size bytes (1, 2, 4, 8) of @p value. */
	void (*bar_write)(void *model, unsigned int bar, uint64_t offset,
			unsigned int size, uint64_t value);
	/** Optional: config-space read past what vpci keeps (offset >= 0x100). */
	uint32_t (*cfg_read)(void *model, unsigned int offset);
	/** Optional: EAL reset the function (VFIO_DEVICE_RESET). */
	void (*reset)(void *model);
};

/**
 * Register a backend; vpci's own backends register from constructors.
 * @return 0, or -EEXIST for a name already taken.
 */
int vpci_model_register(const struct vpci_model_ops *ops);

/**
 * Register backend @p ops from a constructor that runs before vpci loads its
 * configuration (vpci's own constructor has no priority, so it runs last).
 */
#define VPCI_MODEL_REGISTER(ops) \
	__attribute__((constructor(200))) static void \
	vpci_model_register_ ## ops(void) \
	{ \
		(void)vpci_model_register(&(ops)); \
	}

/**
 * Load the configuration (VPCI_CONFIG, VPCI_DEVICES) and present its
 * functions: the sysfs tree, SYSFS_PCI_DEVICES. vpci's constructor calls it;
 * a program that links vpci in and sets the variables itself calls it before
 * rte_eal_init(). Only the first call loads; later ones return its result.
 * @return the number of functions presented, or -1 (the sysfs tree could not
 *   be built; nothing is presented).
 */
int vpci_init(void);

/**
 * The host memory behind a device DMA of @p len bytes at @p iova, looked up
 * in the container's current maps on every call (maps come and go with the
 * heap). NULL: not mapped (an IOMMU fault, counted on the device).
 */
void *vpci_dma(struct vpci_dev *dev, uint64_t iova, size_t len, bool write);

/**
 * Raise MSI-X vector @p vector: a write to the eventfd EAL gave for it, or
 * the pending bit when the vector is masked or has no eventfd.
 * Thread-safe, and safe from the trap handler (a BAR access's callback); not
 * from an asynchronous signal handler (it takes the vectors' read lock).
 * @return 0, or -EINVAL for a vector the function does not have.
 */
int vpci_irq_raise(struct vpci_dev *dev, unsigned int vector);

/**
 * Run @p fn(@p arg) on a thread of the device's own until it returns;
 * vpci joins it after @p stop is set, before destroy. The thread may run on
 * every CPU the process had at load, not only the (EAL-pinned) CPU of the
 * thread that opened the device.
 * @return 0 or a negative errno.
 */
int vpci_thread_start(struct vpci_dev *dev, const char *name,
		void (*fn)(void *arg, const volatile bool *stop), void *arg);

/** The function's address, "0000:00:04.0". */
const char *vpci_dev_name(const struct vpci_dev *dev);

/** What vpci counted for one function. */
struct vpci_dev_stats {
	uint64_t bar_reads;	/**< trapped BAR reads */
	uint64_t bar_writes;	/**< trapped BAR writes */
	uint64_t dma_maps;	/**< VFIO_IOMMU_MAP_DMA calls taken */
	uint64_t dma_unmaps;
	uint64_t dma_faults;	/**< vpci_dma() on memory not mapped */
	uint64_t irqs_raised;	/**< eventfd writes */
	uint64_t irqs_pending;	/**< raised while masked or without an eventfd */
	uint64_t creates;	/**< models created (device fd opened) */
	uint64_t create_failures; /**< create() refused: the device fd was not given */
};

/**
 * Counters of the function named @p name.
 * @return 0, or -ENOENT.
 */
int vpci_dev_stats_get(const char *name, struct vpci_dev_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* _VPCI_MODEL_H_ */
