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
 * configuration errors present nothing.
 */

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <bus_pci_driver.h>
#include <rte_bus_pci.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_interrupts.h>
#include <rte_io.h>
#include <rte_malloc.h>

#include "test_wait.h"
#include "vpci_model.h"

#define DEV_OK "0000:00:04.0"
#define DEV_NO_DRIVER "0000:00:05.0"
#define DEV_FAILS "0000:00:06.0"
#define DEV_BAD_MODEL "0000:00:07.0"
#define DEV_BAD_ARG "0000:00:08.0"
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

static char runtime_dir[PATH_MAX];

static int
setup(void **state)
{
	char prefix[64];
	char *argv[] = { "test_pmd_vpci", "--no-huge", "--no-shconf", "-m", "128", "-l", "0",
		"--no-telemetry", "--log-level=lib.eal:warning", prefix, NULL };

	(void)state;
	setenv("VPCI_DEVICES",
		DEV_OK ",model=mem,size=65536,vectors=4;"
		DEV_NO_DRIVER ",model=mem,sysfs=no-driver;"
		DEV_FAILS ",model=mem,fail_create=1;"
		DEV_BAD_MODEL ",model=nosuch;"
		DEV_BAD_ARG ",model=mem,bogus=1", 1);
	if (vpci_init() != 3) {
		fprintf(stderr, "vpci_init did not present 3 devices\n");
		return -1;
	}
	snprintf(prefix, sizeof(prefix), "--file-prefix=vpci-%d", (int)getpid());
	if (rte_eal_init(RTE_DIM(argv) - 1, argv) < 0) {
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
	if (rte_eal_cleanup() != 0)
		return -1;
	rmdir(runtime_dir);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probed),
		cmocka_unit_test(test_wrong_cases),
		cmocka_unit_test(test_bar_access),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_interrupt),
		cmocka_unit_test(test_dma),
		cmocka_unit_test(test_replug),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
