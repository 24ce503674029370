/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * vpci end to end: EAL (without --no-pci) scans the fake sysfs tree, takes
 * the "mem" backend's device as bound to vfio-pci, maps its BAR through the
 * vfio device fd and probes this file's PCI driver on it. BAR accesses trap
 * into the model, config space reads go EAL's way, MSI-X reaches an EAL
 * interrupt callback, the device DMAs into rte_malloc memory through the
 * container's maps. The wrong cases: an entry without its driver symlink is
 * skipped, a backend whose create fails fails its probe and EAL goes on,
 * configuration errors present nothing; without its iommu_group link EAL
 * scans the device but does not set it up through vfio; without its resource
 * file EAL's PCI scan stops there (EAL goes on: a child process, as is a
 * device from a VPCI_CONFIG file). A file= redirect reaches open, fopen,
 * stat and access. Run with --huge (pmd_vpci_huge) EAL's memory is
 * hugepages: the DMA maps follow the heap as it grows and shrinks.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <linux/vfio.h>

#include <cmocka.h>

#include <bus_driver.h>
#include <bus_pci_driver.h>
#include <rte_bus_pci.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_interrupts.h>
#include <rte_io.h>
#include <rte_malloc.h>
#include <rte_memory.h>

#include "test_wait.h"
#include "vpci_model.h"

#define DEV_OK "0000:00:04.0"
#define DEV_NO_DRIVER "0000:00:05.0"
#define DEV_FAILS "0000:00:06.0"
#define DEV_BAD_MODEL "0000:00:07.0"
#define DEV_BAD_ARG "0000:00:08.0"
#define DEV_NO_IOMMU "0000:00:09.0"
/* a fixed path a driver might read, redirected to a file of ours */
#define REDIRECT_FROM "/nonexistent-vpci-test/firmware.bin"
#define REDIRECT_TEXT "vpci redirect: the bytes of our file\n"
#define BAR_SIZE 65536
#define VECTORS 4
#define MEM_VENDOR 0x1de5
#define MEM_DEVICE 0x0001
/* the mem backend's registers (tools/vpci/vpci_mem.c) */
#define R_ID 0x00
#define R_LAST_OFF 0x08
#define R_LAST_SIZE 0x10
#define R_IRQ 0x20
#define R_DMA_IOVA 0x28
#define R_DMA_LEN 0x30
#define R_DMA_PATTERN 0x38
#define R_DMA_GO 0x40
#define R_DMA_STATUS 0x48
#define R_THREAD_CPUS 0x58
#define MEM_ID 0x4d454d30
#define MSIX_TABLE (BAR_SIZE - 4096)
#define MSIX_PBA (MSIX_TABLE + 16 * VECTORS)

static const struct rte_pci_id test_ids[] = {
	{ RTE_PCI_DEVICE(MEM_VENDOR, MEM_DEVICE) },
	{ .vendor_id = 0 },
};

static struct rte_pci_device *probed;
static unsigned int nb_probes, nb_removes;
static char probed_names[8][RTE_DEV_NAME_MAX_LEN];

static int
test_probe(struct rte_pci_driver *drv, struct rte_pci_device *dev)
{
	(void)drv;
	if (nb_probes < RTE_DIM(probed_names))
		snprintf(probed_names[nb_probes], sizeof(probed_names[0]), "%s", dev->device.name);
	nb_probes++;
	probed = dev;
	return 0;
}

static int
test_remove(struct rte_pci_device *dev)
{
	(void)dev;
	nb_removes++;
	probed = NULL;
	return 0;
}

static struct rte_pci_driver test_drv = {
	.id_table = test_ids,
	.drv_flags = RTE_PCI_DRV_NEED_MAPPING,
	.probe = test_probe,
	.remove = test_remove,
};
RTE_PMD_REGISTER_PCI(vpci_test, test_drv);

/* vpci_trap's SIGSEGV handler, saved after EAL mapped the BAR: cmocka puts
 * its own in place around every test, which would take the BAR faults. */
static struct sigaction trap_action;

static uint8_t *
bar0(void)
{
	sigaction(SIGSEGV, &trap_action, NULL);
	return probed->mem_resource[0].addr;
}

static uint64_t
reg_read(unsigned int off)
{
	return rte_read64(bar0() + off);
}

static void
reg_write(unsigned int off, uint64_t v)
{
	rte_write64(v, bar0() + off);
}

static struct vpci_dev_stats
stats(const char *name)
{
	struct vpci_dev_stats s;

	assert_int_equal(vpci_dev_stats_get(name, &s), 0);
	return s;
}

/* EAL probed the good device once, its ids and BAR as the backend said. */
static void
test_probed(void **state)
{
	(void)state;
	assert_non_null(probed);
	assert_int_equal(nb_probes, 1);
	assert_string_equal(probed_names[0], DEV_OK);
	assert_string_equal(probed->device.name, DEV_OK);
	assert_int_equal(probed->id.vendor_id, MEM_VENDOR);
	assert_int_equal(probed->id.device_id, MEM_DEVICE);
	assert_int_equal(probed->mem_resource[0].len, BAR_SIZE);
	assert_non_null(probed->mem_resource[0].addr);
	assert_int_equal(probed->kdrv, RTE_PCI_KDRV_VFIO);
	assert_int_equal(stats(DEV_OK).creates, 1);
}

static int
name_cmp(const struct rte_device *dev, const void *name)
{
	return strcmp(dev->name, name);
}

/* The device EAL's PCI bus scanned under this name, or NULL. */
static struct rte_pci_device *
pci_find(const char *name)
{
	struct rte_bus *bus = rte_bus_find_by_name("pci");
	struct rte_device *dev;

	if (bus == NULL)
		return NULL;
	dev = bus->find_device(NULL, name_cmp, name);
	return dev != NULL ? RTE_DEV_TO_PCI(dev) : NULL;
}

/* No driver symlink: EAL skips the device (never opened); create failing: no probe. */
static void
test_wrong_cases(void **state)
{
	struct vpci_dev_stats s;

	(void)state;
	s = stats(DEV_NO_DRIVER);
	assert_int_equal(s.creates + s.create_failures, 0);
	s = stats(DEV_FAILS);
	assert_int_equal(s.creates, 0);
	assert_true(s.create_failures >= 1);
	/* configuration errors: nothing presented */
	assert_int_equal(vpci_dev_stats_get(DEV_BAD_MODEL, &s), -ENOENT);
	assert_int_equal(vpci_dev_stats_get(DEV_BAD_ARG, &s), -ENOENT);
	/* the only probe was the good device's */
	assert_int_equal(nb_probes, 1);
}

/*
 * No iommu_group link: EAL scans the device (bound to vfio-pci), finds no
 * IOMMU group for it ("not managed by VFIO driver, skipping"), maps nothing
 * and probes no driver on it; vpci never opens it.
 */
static void
test_no_iommu_group(void **state)
{
	struct rte_pci_device *dev = pci_find(DEV_NO_IOMMU);
	struct vpci_dev_stats s;

	(void)state;
	assert_non_null(dev);
	assert_int_equal(dev->kdrv, RTE_PCI_KDRV_VFIO);
	assert_int_equal(dev->id.vendor_id, MEM_VENDOR);
	assert_false(rte_dev_is_probed(&dev->device));
	assert_null(dev->mem_resource[0].addr);
	s = stats(DEV_NO_IOMMU);
	assert_int_equal(s.creates + s.create_failures, 0);
	assert_int_equal(nb_probes, 1);
	/* the device without its driver link was not even scanned as vfio's */
	dev = pci_find(DEV_NO_DRIVER);
	assert_true(dev == NULL || !rte_dev_is_probed(&dev->device));
}

static char redirect_to[PATH_MAX];

/* file=FROM:TO: open, fopen, stat and access of FROM reach our file TO. */
static void
test_file_redirect(void **state)
{
	char buf[128];
	struct stat st;
	ssize_t n;
	FILE *f;
	int fd;

	(void)state;
	fd = open(REDIRECT_FROM, O_RDONLY);
	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf));
	close(fd);
	assert_int_equal(n, strlen(REDIRECT_TEXT));
	assert_memory_equal(buf, REDIRECT_TEXT, n);

	f = fopen(REDIRECT_FROM, "r");
	assert_non_null(f);
	memset(buf, 0, sizeof(buf));
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, REDIRECT_TEXT);

	assert_int_equal(stat(REDIRECT_FROM, &st), 0);
	assert_int_equal(st.st_size, strlen(REDIRECT_TEXT));
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(access(REDIRECT_FROM, R_OK), 0);

	/* a path beside it is not redirected */
	errno = 0;
	assert_true(open("/nonexistent-vpci-test/other.bin", O_RDONLY) < 0);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(access("/nonexistent-vpci-test/other.bin", F_OK), -1);
}

static const char *self_path;

/* Run this program again as a child in MODE with VPCI_DEVICES and
 * VPCI_CONFIG as given (NULL: unset); its exit status. */
static int
run_child(const char *mode, const char *devices, const char *config)
{
	char *argv[] = { (char *)(uintptr_t)self_path, (char *)(uintptr_t)mode, NULL };
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		if (devices != NULL)
			setenv("VPCI_DEVICES", devices, 1);
		else
			unsetenv("VPCI_DEVICES");
		if (config != NULL)
			setenv("VPCI_CONFIG", config, 1);
		else
			unsetenv("VPCI_CONFIG");
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * No resource file: EAL's PCI scan cannot parse the device and stops there
 * ("Scan for (pci) bus failed"); EAL init goes on without it. With -a naming
 * another device, EAL ignores this one before reading its files, and the
 * other probes.
 */
static void
test_no_resource(void **state)
{
	(void)state;
	assert_int_equal(run_child("--child-no-resource",
		"0000:00:04.0,model=mem,sysfs=no-resource", NULL), 0);
	assert_int_equal(run_child("--child-no-resource-allowed",
		"0000:00:04.0,model=mem;0000:00:05.0,model=mem,sysfs=no-resource", NULL), 0);
}

/* A device from a VPCI_CONFIG file (comments, blank lines) probes. */
static void
test_config_file(void **state)
{
	char path[PATH_MAX];
	const char *tmp = getenv("TMPDIR");
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/vpci-test-%d.conf", tmp != NULL ? tmp : "/tmp",
		 (int)getpid());
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "# a virtual device for EAL\n\n"
		"0000:00:04.0,model=mem,size=8192,vectors=2   # the test device\n");
	fclose(f);
	assert_int_equal(run_child("--child-config", NULL, path), 0);
	unlink(path);
}

/* Every access size reaches the model, both ways. */
static void
test_bar_access(void **state)
{
	struct vpci_dev_stats before, after;
	uint8_t *b = bar0();

	(void)state;
	before = stats(DEV_OK);
	assert_int_equal(rte_read32(b + R_ID), MEM_ID);

	rte_write8(0xa5, b + 0x1001);
	assert_int_equal(reg_read(R_LAST_OFF), 0x1001);
	assert_int_equal(reg_read(R_LAST_SIZE), 1);
	assert_int_equal(rte_read8(b + 0x1001), 0xa5);

	rte_write16(0xbeef, b + 0x1002);
	assert_int_equal(reg_read(R_LAST_SIZE), 2);
	assert_int_equal(rte_read16(b + 0x1002), 0xbeef);

	rte_write32(0xdeadbeef, b + 0x1004);
	assert_int_equal(reg_read(R_LAST_OFF), 0x1004);
	assert_int_equal(reg_read(R_LAST_SIZE), 4);
	assert_int_equal(rte_read32(b + 0x1004), 0xdeadbeef);

	rte_write64(0x0123456789abcdefULL, b + 0x1008);
	assert_int_equal(reg_read(R_LAST_SIZE), 8);
	assert_true(rte_read64(b + 0x1008) == 0x0123456789abcdefULL);
	/* the 8-byte word covers what the smaller writes left */
	assert_true(rte_read64(b + 0x1000) == 0xdeadbeefbeefa500ULL);

	after = stats(DEV_OK);
	/* each access counted once: 12 reads, 4 writes */
	assert_int_equal(after.bar_writes - before.bar_writes, 4);
	assert_int_equal(after.bar_reads - before.bar_reads, 12);
}

/* Config space as EAL reads it: header, BAR, MSI-X capability, extended space. */
static void
test_config(void **state)
{
	uint16_t v16;
	uint32_t v32, bar_lo;
	uint8_t v8;

	(void)state;
	assert_int_equal(rte_pci_read_config(probed, &v16, 2, 0x00), 2);
	assert_int_equal(v16, MEM_VENDOR);
	assert_int_equal(rte_pci_read_config(probed, &v16, 2, 0x02), 2);
	assert_int_equal(v16, MEM_DEVICE);
	/* EAL turned on memory space and bus mastering */
	assert_int_equal(rte_pci_read_config(probed, &v16, 2, 0x04), 2);
	assert_int_equal(v16 & 0x6, 0x6);
	assert_int_equal(rte_pci_read_config(probed, &v32, 4, 0x08), 4);
	assert_int_equal(v32 >> 8, 0xff0000);
	/* 64-bit memory BAR */
	assert_int_equal(rte_pci_read_config(probed, &bar_lo, 4, 0x10), 4);
	assert_int_equal(bar_lo & 0xf, 0x4);
	/* sizing: all ones written, the size mask read back, then restored */
	v32 = 0xffffffff;
	assert_int_equal(rte_pci_write_config(probed, &v32, 4, 0x10), 4);
	assert_int_equal(rte_pci_read_config(probed, &v32, 4, 0x10), 4);
	assert_int_equal(v32, (uint32_t)~(BAR_SIZE - 1) | 0x4);
	assert_int_equal(rte_pci_write_config(probed, &bar_lo, 4, 0x10), 4);
	assert_int_equal(rte_pci_read_config(probed, &v32, 4, 0x10), 4);
	assert_int_equal(v32, bar_lo);
	/* read-only: the vendor id stays */
	v16 = 0xffff;
	assert_int_equal(rte_pci_write_config(probed, &v16, 2, 0x00), 2);
	assert_int_equal(rte_pci_read_config(probed, &v16, 2, 0x00), 2);
	assert_int_equal(v16, MEM_VENDOR);
	/* capability list -> MSI-X with the table and PBA in BAR0 */
	assert_int_equal(rte_pci_read_config(probed, &v8, 1, 0x34), 1);
	assert_int_equal(v8, 0x40);
	assert_int_equal(rte_pci_read_config(probed, &v8, 1, 0x40), 1);
	assert_int_equal(v8, 0x11);
	assert_int_equal(rte_pci_read_config(probed, &v16, 2, 0x42), 2);
	assert_int_equal(v16 & 0x7ff, VECTORS - 1);
	assert_int_equal(rte_pci_read_config(probed, &v32, 4, 0x44), 4);
	assert_int_equal(v32, MSIX_TABLE | 0);
	assert_int_equal(rte_pci_read_config(probed, &v32, 4, 0x48), 4);
	assert_int_equal(v32, MSIX_PBA | 0);
	/* extended space through the backend's cfg_read */
	assert_int_equal(rte_pci_read_config(probed, &v32, 4, 0x100), 4);
	assert_int_equal(v32, 0x5a5a0100);
}

static volatile unsigned int irq_count;

static void
irq_cb(void *arg)
{
	(void)arg;
	irq_count++;
}

/* MSI-X vector 0 through EAL's eventfd to a callback; masking holds it pending. */
static void
test_interrupt(void **state)
{
	struct rte_intr_handle *h;
	struct vpci_dev_stats s0, s1;
	uint8_t *b = bar0();

	(void)state;
	h = probed->intr_handle;
	assert_int_equal(rte_intr_callback_register(h, irq_cb, NULL), 0);
	assert_int_equal(rte_intr_enable(h), 0);

	reg_write(R_IRQ, 0);
	TEST_WAIT(irq_count == 1, TEST_WAIT_MS);

	/* masked in the MSI-X table (vpci serves it): pending, no eventfd write */
	s0 = stats(DEV_OK);
	rte_write32(1, b + MSIX_TABLE + 12);
	assert_int_equal(rte_read32(b + MSIX_TABLE + 12), 1);
	reg_write(R_IRQ, 0);
	s1 = stats(DEV_OK);
	assert_int_equal(s1.irqs_raised, s0.irqs_raised);
	assert_int_equal(s1.irqs_pending, s0.irqs_pending + 1);
	assert_int_equal(rte_read64(b + MSIX_PBA) & 1, 1);
	/* unmasking sends it */
	rte_write32(0, b + MSIX_TABLE + 12);
	assert_int_equal(rte_read64(b + MSIX_PBA) & 1, 0);
	TEST_WAIT(irq_count == 2, TEST_WAIT_MS);
	assert_int_equal(stats(DEV_OK).irqs_raised, s0.irqs_raised + 1);

	/* a vector the function does not have: refused, nothing raised */
	s0 = stats(DEV_OK);
	reg_write(R_IRQ, VECTORS);
	s1 = stats(DEV_OK);
	assert_int_equal(s1.irqs_raised + s1.irqs_pending, s0.irqs_raised + s0.irqs_pending);

	/* disabled: no eventfd any more, the vector is pending */
	assert_int_equal(rte_intr_disable(h), 0);
	reg_write(R_IRQ, 0);
	s1 = stats(DEV_OK);
	assert_int_equal(s1.irqs_raised, s0.irqs_raised);
	assert_int_equal(s1.irqs_pending, s0.irqs_pending + 1);
	assert_int_equal(irq_count, 2);

	/* SET_IRQS with an fd that is not open: EBADF and nothing changes (still enabled) */
	assert_int_equal(rte_intr_enable(h), 0);
	{
		union {
			struct vfio_irq_set s;
			uint8_t b[sizeof(struct vfio_irq_set) + sizeof(int32_t)];
		} u;
		int32_t bad = 9999;

		memset(&u, 0, sizeof(u));
		u.s.argsz = sizeof(u);
		u.s.flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER;
		u.s.index = VFIO_PCI_MSIX_IRQ_INDEX;
		u.s.count = 1;
		memcpy(u.s.data, &bad, sizeof(bad));
		errno = 0;
		assert_int_equal(ioctl(rte_intr_dev_fd_get(h), VFIO_DEVICE_SET_IRQS, &u), -1);
		assert_int_equal(errno, EBADF);
		/* a NULL argument: EFAULT, not a crash */
		errno = 0;
		assert_int_equal(ioctl(rte_intr_dev_fd_get(h), VFIO_DEVICE_GET_INFO, NULL), -1);
		assert_int_equal(errno, EFAULT);
	}
	reg_write(R_IRQ, 0);
	TEST_WAIT(irq_count == 3, TEST_WAIT_MS);
	assert_int_equal(rte_intr_disable(h), 0);
	assert_true(rte_intr_callback_unregister_sync(h, irq_cb, NULL) >= 0);
}

/* The device writes rte_malloc memory through the container's map; an unmapped IOVA faults. */
static void
test_dma(void **state)
{
	struct vpci_dev_stats s0;
	uint8_t *buf = rte_zmalloc("vpci_dma", 4096, 64);
	rte_iova_t iova;
	unsigned int i;

	(void)state;
	assert_non_null(buf);
	iova = rte_malloc_virt2iova(buf);
	assert_true(iova != RTE_BAD_IOVA);
	s0 = stats(DEV_OK);
	assert_true(s0.dma_maps >= 1);

	reg_write(R_DMA_IOVA, iova);
	reg_write(R_DMA_LEN, 256);
	reg_write(R_DMA_PATTERN, 0x30);
	reg_write(R_DMA_GO, 1);
	assert_int_equal(reg_read(R_DMA_STATUS), 1);
	for (i = 0; i < 256; i++)
		assert_int_equal(buf[i], (uint8_t)(0x30 + i));
	assert_int_equal(buf[256], 0);

	/* the device's own thread (vpci_thread_start) */
	reg_write(R_DMA_IOVA, iova + 1024);
	reg_write(R_DMA_PATTERN, 0x80);
	reg_write(R_DMA_GO, 2);
	TEST_WAIT(reg_read(R_DMA_STATUS) == 1, TEST_WAIT_MS);
	for (i = 0; i < 256; i++)
		assert_int_equal(buf[1024 + i], (uint8_t)(0x80 + i));

	/* not mapped: refused and counted, memory untouched */
	reg_write(R_DMA_IOVA, 0x1000);
	reg_write(R_DMA_GO, 1);
	assert_int_equal(reg_read(R_DMA_STATUS), 2);
	assert_int_equal(stats(DEV_OK).dma_faults, s0.dma_faults + 1);
	rte_free(buf);
}

/* Detach and probe again: the device fd closes (model destroyed) and reopens. */
static void
test_replug(void **state)
{
	(void)state;
	assert_int_equal(rte_dev_remove(&probed->device), 0);
	assert_int_equal(nb_removes, 1);
	assert_null(probed);
	assert_int_equal(rte_dev_probe(DEV_OK), 0);
	assert_non_null(probed);
	assert_int_equal(stats(DEV_OK).creates, 2);
	assert_int_equal(rte_read32(bar0() + R_ID), MEM_ID);
	/* the new model starts from zero */
	assert_int_equal(rte_read64(bar0() + 0x1008), 0);
}

/*
 * vpci's fds are known by identity, not number: one glibc closes behind our
 * close() (fclose of an fopen'd container) is not ours once its number is
 * reused; and an fd above 4096 (EAL holds one per hugepage segment) works.
 */
static void
test_fd_identity(void **state)
{
	static int fillers[4200];
	struct rlimit rl, high;
	unsigned int n;
	FILE *f;
	int fd, other, spare, v;

	(void)state;
	f = fopen("/dev/vfio/vfio", "r");
	assert_non_null(f);
	fd = fileno(f);
	assert_int_equal(ioctl(fd, VFIO_GET_API_VERSION), VFIO_API_VERSION);
	fclose(f); /* glibc's close, not the interposed one */
	other = open("/proc/self/stat", O_RDONLY);
	assert_int_equal(other, fd); /* the lowest free number: the same */
	errno = 0;
	assert_int_equal(ioctl(other, VFIO_GET_API_VERSION), -1);
	assert_int_equal(errno, ENOTTY);
	close(other);

	/* a container fd numbered past 4096: the numbers below taken */
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_max < 5000)
		skip(); /* the hard limit does not allow it: said by cmocka, not passed */
	high = rl;
	high.rlim_cur = 5000;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &high), 0);
	for (n = 0; n < RTE_DIM(fillers); n++)
		fillers[n] = -1;
	for (n = 0; n < RTE_DIM(fillers); n++) {
		fillers[n] = open("/dev/null", O_RDONLY);
		assert_true(fillers[n] >= 0);
	}
	fd = open("/dev/vfio/vfio", O_RDWR);
	assert_true(fd > 4096);
	v = ioctl(fd, VFIO_CHECK_EXTENSION, VFIO_TYPE1_IOMMU);
	/* a copy vpci did not hand out (dup: multi-process is not supported) is not ours */
	spare = dup(fd);
	assert_true(spare >= 0);
	errno = 0;
	assert_int_equal(ioctl(spare, VFIO_GET_API_VERSION), -1);
	assert_int_equal(errno, ENOTTY);
	close(spare);
	close(fd);
	for (n = 0; n < RTE_DIM(fillers); n++)
		close(fillers[n]);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	assert_int_equal(v, 1);
}

/* DMA into memory the heap grew for: with hugepages (dynamic memory) EAL
 * maps each new page for DMA and unmaps it when the heap shrinks, and a DMA
 * to memory given back is refused; without (--no-huge) the whole -m is one
 * map from the start. */
static bool huge;

static void
test_dma_heap(void **state)
{
	const size_t len = 16 << 20;
	struct vpci_dev_stats s0, s1;
	uint8_t *big, *mid;
	rte_iova_t iova;
	unsigned int i;

	(void)state;
	s0 = stats(DEV_OK);
	big = rte_malloc("vpci_dma_big", len, 4096);
	assert_non_null(big);
	mid = big + len / 2;
	iova = rte_mem_virt2iova(mid);
	assert_true(iova != RTE_BAD_IOVA);
	reg_write(R_DMA_IOVA, iova);
	reg_write(R_DMA_LEN, 512);
	reg_write(R_DMA_PATTERN, 0x11);
	reg_write(R_DMA_GO, 1);
	assert_int_equal(reg_read(R_DMA_STATUS), 1);
	for (i = 0; i < 512; i++)
		assert_int_equal(mid[i], (uint8_t)(0x11 + i));
	s1 = stats(DEV_OK);
	if (!huge) {
		assert_int_equal(s1.dma_maps, s0.dma_maps);
		rte_free(big);
		assert_int_equal(stats(DEV_OK).dma_unmaps, s0.dma_unmaps);
		return;
	}
	/* the heap grew by at least the 8 pages the buffer spans whole */
	assert_true(s1.dma_maps >= s0.dma_maps + (len >> 21) - 1);
	rte_free(big);
	s1 = stats(DEV_OK);
	assert_true(s1.dma_unmaps >= s0.dma_unmaps + (len >> 21) - 1);
	/* the page is gone: the device's DMA there is refused, counted */
	reg_write(R_DMA_GO, 1);
	assert_int_equal(reg_read(R_DMA_STATUS), 2);
	assert_int_equal(stats(DEV_OK).dma_faults, s1.dma_faults + 1);
}

/* CPUs the process could run on before EAL pinned the main thread to lcore 0 */
static int cpus_at_start;

/* The device's thread runs on the process's CPUs, not on the main lcore's
 * alone (whose affinity it would inherit from the thread opening the device). */
static void
test_thread_cpus(void **state)
{
	cpu_set_t main_cpus;

	(void)state;
	assert_int_equal(pthread_getaffinity_np(pthread_self(), sizeof(main_cpus), &main_cpus), 0);
	assert_int_equal(CPU_COUNT(&main_cpus), 1);
	TEST_WAIT(reg_read(R_THREAD_CPUS) != 0, TEST_WAIT_MS);
	assert_int_equal(reg_read(R_THREAD_CPUS), cpus_at_start);
}

static char runtime_dir[PATH_MAX];

/* The child modes of run_child(): EAL init and what it found; 0 = as expected. */
static int
child(const char *mode)
{
	char prefix[64];
	char *argv[] = { "test_pmd_vpci", "--no-huge", "--no-shconf", "-m", "64", "-l", "0",
		"--no-telemetry", "--log-level=lib.eal:warning", prefix, NULL, NULL, NULL };
	int argc = RTE_DIM(argv) - 3;
	struct vpci_dev_stats s;
	int ok = 1;

	snprintf(prefix, sizeof(prefix), "--file-prefix=vpci-child-%d", (int)getpid());
	if (strcmp(mode, "--child-no-resource-allowed") == 0) {
		argv[argc++] = "-a";
		argv[argc++] = "0000:00:04.0";
	}
	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "%s: rte_eal_init failed: %s\n", mode, rte_strerror(rte_errno));
		return 1;
	}
	if (strcmp(mode, "--child-no-resource") == 0) {
		ok = pci_find("0000:00:04.0") == NULL && nb_probes == 0 &&
			vpci_dev_stats_get("0000:00:04.0", &s) == 0 &&
			s.creates + s.create_failures == 0;
	} else if (strcmp(mode, "--child-no-resource-allowed") == 0) {
		ok = nb_probes == 1 && strcmp(probed_names[0], "0000:00:04.0") == 0 &&
			pci_find("0000:00:05.0") == NULL &&
			vpci_dev_stats_get("0000:00:05.0", &s) == 0 &&
			s.creates + s.create_failures == 0;
	} else if (strcmp(mode, "--child-config") == 0) {
		ok = nb_probes == 1 && probed != NULL &&
			strcmp(probed->device.name, "0000:00:04.0") == 0 &&
			probed->mem_resource[0].len == 8192 &&
			vpci_dev_stats_get("0000:00:04.0", &s) == 0 && s.creates == 1;
	}
	if (!ok)
		fprintf(stderr, "%s: not as expected (%u probes)\n", mode, nb_probes);
	rte_eal_cleanup();
	return ok ? 0 : 1;
}

/* Hugepages for pmd_vpci_huge: free 2 MB pages (128 MB at least) and a mount. */
static bool
hugepages_free(void)
{
	char line[128];
	unsigned long n = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	if (f == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "HugePages_Free: %lu", &n) == 1)
			break;
	fclose(f);
	return n >= 64 && access("/dev/hugepages", W_OK) == 0;
}

static int
setup(void **state)
{
	char prefix[64], devices[PATH_MAX + 512];
	const char *tmp = getenv("TMPDIR");
	char *argv[16];
	int argc = 0;
	FILE *f;

	(void)state;
	{
		cpu_set_t cpus;

		if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0)
			cpus_at_start = CPU_COUNT(&cpus);
	}
	snprintf(redirect_to, sizeof(redirect_to), "%s/vpci-redirect-%d.bin",
		 tmp != NULL ? tmp : "/tmp", (int)getpid());
	f = fopen(redirect_to, "w");
	if (f == NULL || fputs(REDIRECT_TEXT, f) < 0 || fclose(f) != 0) {
		fprintf(stderr, "cannot write %s\n", redirect_to);
		return -1;
	}
	snprintf(devices, sizeof(devices),
		DEV_OK ",model=mem,size=65536,vectors=4,file=" REDIRECT_FROM ":%s;"
		DEV_NO_DRIVER ",model=mem,sysfs=no-driver;"
		DEV_FAILS ",model=mem,fail_create=1;"
		DEV_BAD_MODEL ",model=nosuch;"
		DEV_BAD_ARG ",model=mem,bogus=1;"
		DEV_NO_IOMMU ",model=mem,sysfs=no-iommu-group", redirect_to);
	setenv("VPCI_DEVICES", devices, 1);
	if (vpci_init() != 4) {
		fprintf(stderr, "vpci_init did not present 4 devices\n");
		return -1;
	}
	snprintf(prefix, sizeof(prefix), "--file-prefix=vpci-%d", (int)getpid());
	argv[argc++] = "test_pmd_vpci";
	if (huge) {
		/* hugepages, dynamic memory: no -m, so the heap grows and shrinks */
		argv[argc++] = "--huge-unlink";
	} else {
		argv[argc++] = "--no-huge";
		argv[argc++] = "-m";
		argv[argc++] = "128";
	}
	argv[argc++] = "--no-shconf";
	argv[argc++] = "-l";
	argv[argc++] = "0";
	argv[argc++] = "--no-telemetry";
	argv[argc++] = "--log-level=lib.eal:warning";
	argv[argc++] = prefix;
	argv[argc] = NULL;
	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "rte_eal_init failed\n");
		return -1;
	}
	snprintf(runtime_dir, sizeof(runtime_dir), "%s", rte_eal_get_runtime_dir());
	sigaction(SIGSEGV, NULL, &trap_action);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	unlink(redirect_to);
	if (rte_eal_cleanup() != 0)
		return -1;
	rmdir(runtime_dir);
	return 0;
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probed),
		cmocka_unit_test(test_wrong_cases),
		cmocka_unit_test(test_no_iommu_group),
		cmocka_unit_test(test_file_redirect),
		cmocka_unit_test(test_no_resource),
		cmocka_unit_test(test_config_file),
		cmocka_unit_test(test_dma_heap),
		cmocka_unit_test(test_thread_cpus),
		cmocka_unit_test(test_bar_access),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_interrupt),
		cmocka_unit_test(test_dma),
		cmocka_unit_test(test_replug),
		cmocka_unit_test(test_fd_identity),
	};

	self_path = argv[0];
	if (argc > 1 && strncmp(argv[1], "--child-", 8) == 0)
		return child(argv[1]);
	if (argc > 1 && strcmp(argv[1], "--huge") == 0) {
		if (!hugepages_free()) {
			printf("pmd_vpci --huge: no free 2 MB hugepages (128 MB) or no "
			       "/dev/hugepages: skipped (scripts/setup.sh sets them up where "
			       "the kernel allows)\n");
			return 77;
		}
		huge = true;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
