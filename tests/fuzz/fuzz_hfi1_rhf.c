/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * net_hfi1's receive path against a hostile or broken device: each input
 * is a series of RHQ entries the "device" writes — any RHF (error bits,
 * RcvType, PktLen, EgrIndex, EgrOffset, HdrqOffset), header bytes, eager
 * bytes — with the RcvSeq the driver expects, then one rx burst. The driver
 * must bound every index and length it reads from them. The device here is
 * the fuzzer: the model has no wire, so it writes nothing itself.
 *
 * EAL (--no-huge) is started once. The RHQ and eager buffers are DPDK
 * memory, which ASan does not see into, so the oracle is the rule itself:
 * expect_accept() says, from the facts' RHF layout and the buffers the
 * driver posted, which entries hold a packet the driver may deliver; the
 * driver must deliver exactly those, with their lengths. Also caught: a
 * crash, a sanitizer report in the driver's arithmetic, an mbuf leak.
 */

#include <stdbool.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "hfi1_ethdev.h"

#define POOL_SIZE 4095
/* Bytes one record of the input takes: RHF, header copy, eager sample. */
#define RECORD (8 + 16 + 48)

static struct rte_mempool *pool;
static uint16_t port;
static struct hfi1_rx_queue *rxq;
static char runtime_dir[PATH_MAX];

/* libFuzzer ends with exit(): leave no runtime directory behind. */
static void
remove_runtime_dir(void)
{
	rmdir(runtime_dir);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char prefix[64];
	char *eal[] = { "fuzz_hfi1_rhf", "--no-huge", "-m", "256", "--no-pci",
		"--no-shconf", "--no-telemetry", "-l", "0",
		"--log-level=lib.eal:error", "--log-level=pmd.net.hfi1:error",
		prefix, NULL };
	struct rte_eth_conf conf = { .rxmode = {
		.offloads = RTE_ETH_RX_OFFLOAD_SCATTER } };

	(void)argc;
	(void)argv;
	snprintf(prefix, sizeof(prefix), "--file-prefix=fuzzhfi1-%d",
			(int)getpid());
	if (rte_eal_init(RTE_DIM(eal) - 1, eal) < 0)
		abort();
	snprintf(runtime_dir, sizeof(runtime_dir), "%s",
			rte_eal_get_runtime_dir());
	atexit(remove_runtime_dir);
	pool = rte_pktmbuf_pool_create("fuzz_pool", POOL_SIZE, 0, 0,
			RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (pool == NULL ||
	    rte_vdev_init("net_hfi1_fz", "model=1,contexts=2,engines=1") != 0 ||
	    rte_eth_dev_get_port_by_name("net_hfi1_fz", &port) != 0 ||
	    rte_eth_dev_configure(port, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(port, 0, 64, SOCKET_ID_ANY, NULL, pool) != 0 ||
	    rte_eth_tx_queue_setup(port, 0, 128, SOCKET_ID_ANY, NULL) != 0 ||
	    rte_eth_dev_start(port) != 0)
		abort();
	rxq = rte_eth_devices[port].data->rx_queues[0];
	return 0;
}

/* Whether the driver may deliver this entry; follows the layout learning. */
static bool
expect_accept(const struct hfi1_rcv_ctxt *c, uint64_t rhf, const uint8_t *ent,
		enum hfi1_egr_layout *layout, bool learn, uint32_t *len)
{
	uint32_t idx = hfi1_rhf_egr_index(rhf), off = hfi1_rhf_egr_offset(rhf);
	uint32_t hoff = hfi1_rhf_hdrq_offset(rhf);

	*len = hfi1_rhf_pkt_bytes(rhf);
	if (idx >= c->egr_cnt || (rhf & HFI1_RHF_ERR_MASK) ||
	    hfi1_rhf_rcv_type(rhf) != HFI1_RHF_RCV_TYPE_BYPASS ||
	    !(rhf & HFI1_RHF_USE_EGR_BFR) || *len < HFI1_MIN_PKT_LEN ||
	    hoff + 16 > (c->ent_dws - 2) * 4)
		return false;
	if (learn && *layout != HFI1_EGR_LAYOUT_SPLIT) {
		if (off + 16 > c->egr_size)
			return false;
		*layout = memcmp(ent + hoff, c->egr + (size_t)idx * c->egr_size +
				off, 16) == 0 ? HFI1_EGR_LAYOUT_FULL :
			HFI1_EGR_LAYOUT_SPLIT;
	}
	return off + *len - (*layout == HFI1_EGR_LAYOUT_FULL ? 0 : 16) <=
		c->egr_size;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hfi1_rcv_ctxt *c = &rxq->rc;
	struct rte_mbuf *pkts[32];
	uint32_t seq = c->seq, entry = c->head, n = 0, want = 0;
	uint32_t want_len[RTE_DIM(pkts)];
	enum hfi1_egr_layout layout;
	bool learn;
	uint16_t got, i;

	if (size < 1)
		return 0;
	/* First byte: the layout the driver believes in, auto learning or not. */
	rxq->ad->layout = (enum hfi1_egr_layout)(data[0] % 3);
	rxq->ad->layout_auto = data[0] & 4;
	layout = rxq->ad->layout;
	learn = rxq->ad->layout_auto;
	data++;
	size--;
	while (size >= RECORD && n < RTE_DIM(pkts)) {
		uint8_t *ent = c->rhq + (size_t)entry * c->ent_dws * 4;
		uint64_t rhf;
		uint32_t idx, off;

		memcpy(&rhf, data, 8);
		rhf = rte_le_to_cpu_64(rhf);
		/* The sequence is right, or the burst ends here. */
		rhf &= ~((uint64_t)HFI1_RHF_SEQ_MASK << HFI1_RHF_SEQ_SHIFT);
		rhf |= (uint64_t)seq << HFI1_RHF_SEQ_SHIFT;
		/* The device writes inside its own entry and buffers. */
		memcpy(ent, data + 8, 16);
		idx = hfi1_rhf_egr_index(rhf) % c->egr_cnt;
		off = hfi1_rhf_egr_offset(rhf) % c->egr_size;
		memcpy(c->egr + (size_t)idx * c->egr_size + off, data + 24,
				RTE_MIN(48u, c->egr_size - off));
		__atomic_store_n((uint64_t *)(ent + (c->ent_dws - 2) * 4),
				rte_cpu_to_le_64(rhf), __ATOMIC_RELEASE);
		if (expect_accept(c, rhf, ent, &layout, learn, &want_len[want]))
			want++;
		seq = hfi1_seq_next(seq);
		entry = (entry + 1) % c->rhq_cnt;
		data += RECORD;
		size -= RECORD;
		n++;
	}
	got = rte_eth_rx_burst(port, 0, pkts, RTE_DIM(pkts));
	if (got != want) {
		fprintf(stderr, "delivered %u packets, the RHFs allow %u\n", got,
				want);
		abort();
	}
	for (i = 0; i < got; i++) {
		if (pkts[i]->pkt_len != want_len[i]) {
			fprintf(stderr, "packet %u: %u bytes, the RHF says %u\n",
					i, pkts[i]->pkt_len, want_len[i]);
			abort();
		}
		rte_pktmbuf_free(pkts[i]);
	}
	if (rte_mempool_avail_count(pool) != POOL_SIZE)
		abort();	/* an mbuf leaked */
	return 0;
}
