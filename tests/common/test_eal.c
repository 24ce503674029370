/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_mbuf.h>

#include "test_eal.h"

struct rte_mempool *test_pool;
struct rte_mempool *test_small_pool;
static char runtime_dir[PATH_MAX];

/* @p lcores: an EAL --lcores value, or NULL for lcore 0 alone. */
static int
eal_start(const char *name, int hugepages, const char *lcores)
{
	char prefix[64];
	char *argv[16];
	int argc = 0;

	snprintf(prefix, sizeof(prefix), "--file-prefix=%s-%d", name, (int)getpid());
	argv[argc++] = (char *)(uintptr_t)name;
	if (hugepages) {
		argv[argc++] = "--in-memory";
		argv[argc++] = "-m";
		argv[argc++] = "512";
	} else {
		argv[argc++] = "--no-huge";
		argv[argc++] = "--no-shconf";
		argv[argc++] = "-m";
		argv[argc++] = "256";
	}
	argv[argc++] = "--no-pci";
	argv[argc++] = lcores != NULL ? "--lcores" : "-l";
	argv[argc++] = lcores != NULL ? (char *)(uintptr_t)lcores : "0";
	argv[argc++] = "--no-telemetry";
	argv[argc++] = "--log-level=lib.eal:warning";
	argv[argc++] = prefix;
	argv[argc] = NULL;
	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "rte_eal_init failed\n");
		return -1;
	}
	snprintf(runtime_dir, sizeof(runtime_dir), "%s", rte_eal_get_runtime_dir());
	return 0;
}

int
test_eal_setup(void **state)
{
	(void)state;
	if (eal_start("omnitest", 0, NULL) != 0)
		return -1;
	test_pool = rte_pktmbuf_pool_create("test_pool", TEST_POOL_SIZE, 0, 0,
					    TEST_MBUF_DATA_ROOM, SOCKET_ID_ANY);
	test_small_pool = rte_pktmbuf_pool_create("test_small_pool", TEST_POOL_SIZE, 0, 0,
						  RTE_PKTMBUF_HEADROOM + 256, SOCKET_ID_ANY);
	if (test_pool == NULL || test_small_pool == NULL) {
		fprintf(stderr, "mbuf pool creation failed\n");
		return -1;
	}
	return 0;
}

int
test_eal_teardown(void **state)
{
	(void)state;
	rte_mempool_free(test_pool);
	rte_mempool_free(test_small_pool);
	test_pool = test_small_pool = NULL;
	if (rte_eal_cleanup() != 0)
		return -1;
	rmdir(runtime_dir);
	return 0;
}

static int
hugepages_free(void)
{
	FILE *f = fopen("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "r");
	int n = 0;

	if (f == NULL)
		return 0;
	if (fscanf(f, "%d", &n) != 1)
		n = 0;
	fclose(f);
	return n;
}

int
test_eal_init_perf(const char *name)
{
	return test_eal_init_perf_lcores(name, NULL);
}

int
test_eal_init_perf_lcores(const char *name, const char *lcores)
{
	/* 512 MB of 2 MB pages, with margin */
	int huge = access("/dev/hugepages", W_OK) == 0 && hugepages_free() >= 300;

	/* EAL cannot be started twice in a process: no fallback after a failure. */
	if (eal_start(name, huge, lcores) != 0)
		return -1;
	fprintf(stderr, "%s: memory: %s\n", name,
		huge ? "hugepages (--in-memory)" : "4K pages (--no-huge)");
	return huge;
}

void
test_eal_cleanup_perf(void)
{
	char path[PATH_MAX + 16];

	rte_eal_cleanup();
	/* --in-memory still makes the runtime directory and its mp socket */
	snprintf(path, sizeof(path), "%s/mp_socket", runtime_dir);
	unlink(path);
	rmdir(runtime_dir);
}
