/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * libFuzzer target: lib/vrdma's RoCE control commands (vrdma_cmd_exec())
 * on a fresh lib/roce device per input, over 64 KiB of fake guest memory
 * at guest-physical 0x100000. An input is a sequence of commands, each
 * [len (2 bytes, little-endian)] [room] [len bytes: class, command, data];
 * room is the device-writable size. Handles are small numbers (PDs from 1,
 * CQs from 0, QPs from 2), so later commands find what earlier ones made.
 *
 * Oracle beyond the sanitizers: an OK answer is the ack byte and exactly
 * the command's ack data, within the room; a refusal is the ERR byte alone
 * and changes nothing (the first 64 PDs and AHs, every CQ, QP with its
 * attributes, GID, the first 64 MRs (user and DMA) and the pages held as
 * before; a CQ's arm state is not visible here); the device is destroyed
 * after each input (LeakSanitizer sees anything it kept).
 */

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "vrdma_abi.h"
#include "vrdma_cmd.h"

#define GMEM_GPA 0x100000ull
#define GMEM_LEN (64u << 10)
#define MAX_QPS 8
#define MAX_CQS 4
#define SCAN 64

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct rte_mempool *pool;
static struct rte_ring *rx, *tx;
static uint8_t *gmem;
static char runtime_dir[PATH_MAX];

static void *
xlate(void *ctx, uint64_t gpa, uint64_t len, uint64_t *contig)
{
	(void)ctx;
	if (gpa < GMEM_GPA || gpa - GMEM_GPA >= GMEM_LEN)
		return NULL;
	*contig = RTE_MIN(len, GMEM_LEN - (gpa - GMEM_GPA));
	return gmem + (gpa - GMEM_GPA);
}

/* What a refused command must leave as it was. */
struct snap {
	bool pd[SCAN + 1], cq[MAX_CQS], qp[MAX_QPS], ah[SCAN + 1], gid[128];
	struct roce_qp_attr qa[MAX_QPS];
	struct roce_mr *mr[64];
	uint32_t pages;
};

static void
snap_take(struct vrdma_rdma *r, struct snap *s)
{
	uint8_t g[ROCE_GID_LEN];
	uint32_t i;

	memset(s, 0, sizeof(*s));
	for (i = 1; i <= SCAN; i++) {
		s->pd[i] = roce_pd_get(r->dev, i) != NULL;
		s->ah[i] = roce_ah_get(r->dev, i) != NULL;
	}
	for (i = 0; i < MAX_CQS; i++)
		s->cq[i] = roce_cq_get(r->dev, i) != NULL;
	for (i = 1; i < MAX_QPS; i++) {
		struct roce_qp *qp = roce_qp_get(r->dev, i);
		struct roce_qp_init_attr ia;

		s->qp[i] = qp != NULL;
		if (qp != NULL)
			roce_qp_query(qp, &s->qa[i], &ia);
	}
	for (i = 0; i < 128; i++)
		s->gid[i] = roce_gid_get(r->dev, i, g) == 0;
	memcpy(s->mr, r->mrs, sizeof(s->mr));
	s->pages = r->pages;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char prefix[64];
	char *eal[] = { "fuzz_vrdma_cmd", "--no-huge", "-m", "256", "--no-pci", "--no-shconf",
			"--no-telemetry", "-l", "0", "--log-level=lib.eal:error",
			"--log-level=lib.roce:emerg", prefix, NULL };

	(void)argc;
	(void)argv;
	snprintf(prefix, sizeof(prefix), "--file-prefix=fuzz_vrdma_cmd_%d", (int)getpid());
	if (rte_eal_init(RTE_DIM(eal) - 1, eal) < 0)
		abort();
	snprintf(runtime_dir, sizeof(runtime_dir), "%s", rte_eal_get_runtime_dir());
	pool = rte_pktmbuf_pool_create("fz_pool", 511, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	rx = rte_ring_create("fz_rx", 64, SOCKET_ID_ANY, 0);
	tx = rte_ring_create("fz_tx", 64, SOCKET_ID_ANY, 0);
	gmem = calloc(1, GMEM_LEN);
	if (pool == NULL || rx == NULL || tx == NULL || gmem == NULL)
		abort();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vrdma_rdma_conf c = {
		.name = "fz", .mac = { { 2, 0, 0, 0, 0, 1 } }, .mtu = 1500,
		.max_qps = MAX_QPS, .max_cqs = MAX_CQS, .rx_ring = rx, .tx_ring = tx, .pool = pool,
		.xlate = xlate, .vlan_id = ROCE_VLAN_NONE,
	};
	static struct snap before, after;
	char err[ROCE_ERR_LEN];
	struct vrdma_rdma *r = vrdma_rdma_create(&c, err, sizeof(err));
	size_t pos = 0;

	if (r == NULL)
		abort();
	while (pos + 3 <= size) {
		uint32_t len = data[pos] | (uint32_t)data[pos + 1] << 8;
		uint32_t room = data[pos + 2];
		uint8_t out[256];
		uint8_t *in;
		uint32_t n;

		pos += 3;
		len = RTE_MIN(len, (uint32_t)(size - pos));
		/* exactly sized, so ASan sees any read past the command */
		in = malloc(len ? len : 1);
		memcpy(in, data + pos, len);
		pos += len;
		snap_take(r, &before);
		memset(out, 0x5a, sizeof(out));
		n = vrdma_cmd_exec(r, in, len, out, room);
		if (room == 0) {
			if (n != 0)
				abort();
		} else if (n == 0 || n > room || (out[0] != VRDMA_NET_OK && out[0] != VRDMA_NET_ERR)) {
			abort();
		} else if (out[0] == VRDMA_NET_ERR) {
			if (n != 1)
				abort();
			snap_take(r, &after);
			if (memcmp(&before, &after, sizeof(before)) != 0)
				abort(); /* a refusal changed something */
		}
		if (n < sizeof(out) && out[n] != 0x5a)
			abort(); /* written past what it reported */
		free(in);
	}
	vrdma_rdma_destroy(r);
	return 0;
}

static void __attribute__((destructor))
cleanup(void)
{
	if (pool == NULL)
		return;
	rte_ring_free(rx);
	rte_ring_free(tx);
	rte_mempool_free(pool);
	free(gmem);
	rte_eal_cleanup();
	rmdir(runtime_dir);
}
