/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * opa16b-loopback: Ethernet frames from a source port are encapsulated as
 * OPA 16B VNIC packets, sent over a "wire" port, received back, decapsulated
 * and sent to a sink port. With net_pcap source/sink and a net_ring wire it
 * checks lib/opa16b on a real DPDK datapath without any fabric hardware:
 *
 *   opa16b-loopback -l 0 --no-pci --no-huge \
 *       --vdev net_pcap0,rx_pcap=in.pcap --vdev net_ring0 \
 *       --vdev net_pcap1,tx_pcap=out.pcap -- \
 *       --src net_pcap0 --wire net_ring0 --dst net_pcap1 [--vesw N] [--mtu N]
 *
 * It stops once the source has been idle for --idle-ms and the wire is
 * drained, prints its counters, and exits 0 only if every frame read made
 * the round trip.
 */

#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_hash_crc.h>
#include <rte_mbuf.h>

#include <omni_num.h>
#include <omni_port.h>
#include <omni_signal.h>
#include "opa16b_vnic.h"

#define BURST 32
#define RING_SIZE 1024
#define NB_MBUF 8191

struct counters {
	uint64_t src_rx, encap_ok, encap_err, wire_tx, wire_tx_drop;
	uint64_t wire_rx, dst_tx, dst_tx_drop;
	struct opa16b_vnic_rx_stats rx;
};

/* What the options give: the three ports' names, the header template, limits. */
struct loop_conf {
	const char *src_name, *wire_name, *dst_name;
	struct opa16b_vnic_fields tmpl;
	uint64_t mtu, idle_ms;
};

static int
port_init(uint16_t port, struct rte_mempool *pool)
{
	struct rte_eth_conf conf;
	int ret;

	memset(&conf, 0, sizeof(conf));
	ret = rte_eth_dev_configure(port, 1, 1, &conf);
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(port, 0, RING_SIZE, rte_eth_dev_socket_id(port),
					     NULL, pool);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(port, 0, RING_SIZE, rte_eth_dev_socket_id(port),
					     NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(port);
	return ret;
}

/* Send the whole burst, retrying a bounded number of times; drop the rest. */
static uint16_t
tx_all(uint16_t port, struct rte_mbuf **pkts, uint16_t n, uint64_t *drops)
{
	uint16_t sent = 0;
	int tries = 0;

	while (sent < n && tries++ < 1000)
		sent += rte_eth_tx_burst(port, 0, pkts + sent, n - sent);
	if (sent < n) {
		rte_pktmbuf_free_bulk(pkts + sent, n - sent);
		*drops += n - sent;
	}
	return sent;
}

/* Per-flow entropy: 8 bits folded from a hash of the MAC addresses. */
static uint16_t
flow_entropy(const struct rte_mbuf *m)
{
	uint32_t h = rte_hash_crc(rte_pktmbuf_mtod(m, const void *), 12, 0);

	h ^= h >> 16;
	return (h ^ (h >> 8)) & 0xFF;
}

static void
usage(const char *prog)
{
	fprintf(stderr, "usage: %s [EAL args] -- --src PORT --wire PORT --dst PORT\n"
		"       [--slid N] [--dlid N] [--vesw N] [--mtu N] [--idle-ms N]\n"
		"Numbers are decimal.\n", prog);
}

/* @return 0, or 2 (usage) after saying why. */
static int
parse_args(int argc, char **argv, struct loop_conf *lc)
{
	static const struct option opts[] = {
		{ "src", required_argument, NULL, 's' },
		{ "wire", required_argument, NULL, 'w' },
		{ "dst", required_argument, NULL, 'd' },
		{ "slid", required_argument, NULL, 'S' },
		{ "dlid", required_argument, NULL, 'D' },
		{ "vesw", required_argument, NULL, 'v' },
		{ "mtu", required_argument, NULL, 'm' },
		{ "idle-ms", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	const char *prog = argv[0];
	int opt, idx = 0;
	uint64_t v;
	bool ok;

	while ((opt = getopt_long(argc, argv, "", opts, &idx)) != -1) {
		const char *name = opts[idx].name;

		switch (opt) {
		case 's': lc->src_name = optarg; ok = true; break;
		case 'w': lc->wire_name = optarg; ok = true; break;
		case 'd': lc->dst_name = optarg; ok = true; break;
		case 'S':
			ok = omni_num_opt(prog, name, optarg, 0, OPA16B_LID_MAX, OMNI_NUM_DEC, &v);
			if (ok)
				lc->tmpl.slid = (uint32_t)v;
			break;
		case 'D':
			ok = omni_num_opt(prog, name, optarg, 0, OPA16B_LID_MAX, OMNI_NUM_DEC, &v);
			if (ok)
				lc->tmpl.dlid = (uint32_t)v;
			break;
		case 'v':
			ok = omni_num_opt(prog, name, optarg, 0, OPA16B_VESW_ID_MAX, OMNI_NUM_DEC,
					  &v);
			if (ok)
				lc->tmpl.vesw_id = (uint16_t)v;
			break;
		case 'm':
			ok = omni_num_opt(prog, name, optarg, 0, UINT32_MAX, OMNI_NUM_DEC,
					  &lc->mtu);
			break;
		case 'i':
			ok = omni_num_opt(prog, name, optarg, 0, 86400000, OMNI_NUM_DEC,
					  &lc->idle_ms);
			break;
		default:
			usage(prog);
			return 2;
		}
		if (!ok)
			return 2;
	}
	if (lc->src_name == NULL || lc->wire_name == NULL || lc->dst_name == NULL) {
		usage(prog);
		return 2;
	}
	return 0;
}

/*
 * Source -> encap -> wire -> decap -> sink, until the source has been idle
 * for idle_ms or a signal stops it.
 */
static void
forward(const struct loop_conf *lc, uint16_t src, uint16_t wire, uint16_t dst,
	struct counters *c)
{
	uint16_t vesw[BURST], n, i, ok;
	struct rte_mbuf *pkts[BURST];
	struct opa16b_vnic_fields f;
	uint64_t hz = rte_get_tsc_hz();
	uint64_t last_rx = rte_get_tsc_cycles();

	while (!omni_stop) {
		/* source -> encap -> wire */
		n = rte_eth_rx_burst(src, 0, pkts, BURST);
		if (n > 0) {
			last_rx = rte_get_tsc_cycles();
			c->src_rx += n;
			/* encap in place; drop refused frames, keep the others' order */
			for (i = 0, ok = 0; i < n; i++) {
				f = lc->tmpl;
				f.entropy = flow_entropy(pkts[i]);
				if (opa16b_vnic_encap(pkts[i], &f) == 0) {
					pkts[ok++] = pkts[i];
				} else {
					rte_pktmbuf_free(pkts[i]);
					c->encap_err++;
				}
			}
			c->encap_ok += ok;
			n = ok;
			c->wire_tx += tx_all(wire, pkts, n, &c->wire_tx_drop);
		}
		/* wire -> decap -> sink */
		n = rte_eth_rx_burst(wire, 0, pkts, BURST);
		if (n > 0) {
			c->wire_rx += n;
			n = opa16b_vnic_decap_burst(pkts, n, (uint32_t)lc->mtu, vesw, &c->rx);
			c->dst_tx += tx_all(dst, pkts, n, &c->dst_tx_drop);
		} else if (rte_get_tsc_cycles() - last_rx > lc->idle_ms * hz / 1000) {
			break;
		}
	}
}

static void
print_counters(const struct counters *c)
{
	unsigned int r;

	printf("source rx          %" PRIu64 "\n", c->src_rx);
	printf("encapsulated       %" PRIu64 "  (refused %" PRIu64 ")\n", c->encap_ok,
	       c->encap_err);
	printf("wire tx / rx       %" PRIu64 " / %" PRIu64 "  (tx dropped %" PRIu64 ")\n",
	       c->wire_tx, c->wire_rx, c->wire_tx_drop);
	printf("decapsulated       %" PRIu64 "  (%" PRIu64 " bytes)\n", c->rx.packets,
	       c->rx.bytes);
	for (r = OPA16B_VNIC_RX_OK + 1; r < OPA16B_VNIC_RX_ERR_MAX; r++)
		if (c->rx.errors[r] != 0)
			printf("  rejected %-10s %" PRIu64 "\n", opa16b_vnic_rx_err_name(r),
			       c->rx.errors[r]);
	printf("sink tx            %" PRIu64 "  (dropped %" PRIu64 ")\n", c->dst_tx,
	       c->dst_tx_drop);
}

int
main(int argc, char **argv)
{
	struct loop_conf lc = {
		.tmpl = { .slid = 1, .dlid = 2, .pkey = 0x8001, .vesw_id = 1 },
		.mtu = 9000,
		.idle_ms = 200,
	};
	struct rte_mempool *pool = NULL;
	uint16_t port[3], nb_started = 0;
	struct counters c;
	int ret, rc = 1;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "EAL initialisation failed\n");
		return 1;
	}
	rc = parse_args(argc - ret, argv + ret, &lc);
	if (rc != 0)
		goto out;
	if (rte_eth_dev_get_port_by_name(lc.src_name, &port[0]) != 0 ||
	    rte_eth_dev_get_port_by_name(lc.wire_name, &port[1]) != 0 ||
	    rte_eth_dev_get_port_by_name(lc.dst_name, &port[2]) != 0) {
		fprintf(stderr, "unknown port: give the --vdev names of src, wire, dst\n");
		rc = 2;
		goto out;
	}
	rc = 1;
	pool = rte_pktmbuf_pool_create("loopback_pool", NB_MBUF, 256, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	while (pool != NULL && nb_started < 3 && port_init(port[nb_started], pool) == 0)
		nb_started++;
	if (nb_started < 3) {
		fprintf(stderr, "port setup failed\n");
		goto out;
	}
	omni_stop_on_signals();
	memset(&c, 0, sizeof(c));
	forward(&lc, port[0], port[1], port[2], &c);
	print_counters(&c);
	rc = c.src_rx > 0 && c.dst_tx == c.src_rx && !omni_stop ? 0 : 1;
	printf("result             %s\n", rc == 0 ? "PASS: every frame made the round trip" :
	       "FAIL: frames were lost or refused");
out:
	while (nb_started > 0)
		omni_port_close(port[--nb_started], true);
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return rc;
}
