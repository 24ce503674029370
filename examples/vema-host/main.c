/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * vema-host: a small stand-in node for opa-em (demo and system test). It serves a VEMA agent on one
 * fabric port (net_memif, net_ring, ...), as an HFI port's management agent
 * would, and stands in for the VNIC datapath:
 *  - every vport the EM creates gets carrier up and per-queue counters;
 *  - when a vport starts forwarding, a fixed synthetic burst is counted
 *    through the real policy (lib/vnic decisions and counting rules):
 *      tx: 10 broadcast 60-byte frames, 5 frames of 1000 bytes to an LMAC
 *          (LID 7), 3 frames of 200 bytes to global unicast 00:11:22:33:44:55
 *          (DLID from the default ports: DLID 0, i.e. tx_dlid_zero, when the
 *          vesw has none); rx: 4 VLAN-tagged frames of 1500 bytes;
 *  - SIGUSR1 adds a unicast MAC to every vport's interface list (a trap);
 *    SIGUSR2 takes off every MAC SIGUSR1 added (a trap where one was);
 *  - SIGTERM/SIGINT end it, printing the agent's counters.
 * For testing the EM against a hostile node, --lie-mac-count N rewrites the
 * entry count of every MAC-table reply to N.
 *
 *   vema-host [EAL options] -- --lid LID [--port N] [--port-num P]
 *             [--lie-mac-count N]
 */

#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <omni_bytes.h>
#include <omni_num.h>
#include <omni_port.h>
#include <omni_signal.h>
#include "vema_agent.h"
#include "vnic_stats.h"

#define BURST 32

/* SIGUSR1: add a MAC to every vport; SIGUSR2: clear them (SIGINT and
 * SIGTERM set omni_stop)
 */
static volatile sig_atomic_t add_mac, clear_macs;

static struct vnic_txq_stats txq[VEMA_VPORTS_MAX];
static struct vnic_rxq_stats rxq[VEMA_VPORTS_MAX];
static bool traffic_done[VEMA_VPORTS_MAX];
static struct rte_ether_addr extra_macs[VEMA_VPORTS_MAX][64];
static uint16_t nb_extra[VEMA_VPORTS_MAX];

static void
on_usr1(int sig)
{
	(void)sig;
	add_mac = 1;
}

static void
on_usr2(int sig)
{
	(void)sig;
	clear_macs = 1;
}

static void
on_new(void *arg, struct vnic_vport *vp)
{
	uint8_t i = vnic_vport_index(vp);

	(void)arg;
	vnic_vport_attach_stats(vp, &txq[i], 1, &rxq[i], 1);
	(void)vnic_vport_set_carrier(vp, true);
	printf("vema-host: vport %u created\n", i);
	fflush(stdout);
}

/* Count one frame sent through the vport's policy, as a VNIC TX would. */
static void
tx_frame(const struct vnic_policy *p, struct vnic_txq_stats *q, const uint8_t *frame,
	 uint32_t len)
{
	struct opa16b_vnic_fields f;

	(void)vnic_tx_frame(p, q, frame, len, vnic_flow_hash(frame, len), &f, NULL);
}

static void
synthetic_traffic(struct vnic_vport *vp)
{
	static const uint8_t global_uc[6] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 };
	const struct vnic_policy *p = vnic_vport_policy(vp);
	uint8_t i = vnic_vport_index(vp), frame[1500];
	struct opa16b_lmac lmac = { .fabric_id = p->vesw.fabric_id, .vesw_id = p->vesw.vesw_id,
				    .lid = 7 };
	unsigned int k;

	memset(frame, 0, sizeof(frame));
	memcpy(frame + 6, p->port.base_mac_addr.addr_bytes, 6);
	frame[12] = 0x08;
	frame[13] = 0x06;
	memset(frame, 0xFF, 6);
	for (k = 0; k < 10; k++)
		tx_frame(p, &txq[i], frame, 60);
	opa16b_lmac_build(&lmac, (struct rte_ether_addr *)frame);
	for (k = 0; k < 5; k++)
		tx_frame(p, &txq[i], frame, 1000);
	memcpy(frame, global_uc, 6);
	for (k = 0; k < 3; k++)
		tx_frame(p, &txq[i], frame, 200);
	/* received: VLAN tagged (PCP 5) frames to our MAC */
	memcpy(frame, p->port.base_mac_addr.addr_bytes, 6);
	frame[12] = 0x81;
	frame[13] = 0x00;
	frame[14] = 0xA0;
	frame[16] = 0x08;
	frame[17] = 0x00;
	for (k = 0; k < 4; k++)
		(void)vnic_rx_frame(p, &rxq[i], frame, 1500);
	traffic_done[i] = true;
}

static void
on_event(void *arg, struct vnic_vport *vp, uint32_t events)
{
	uint8_t i = vnic_vport_index(vp);

	(void)arg;
	printf("vema-host: vport %u events 0x%x\n", i, events);
	fflush(stdout);
	if ((events & VNIC_EV_LINK_CHANGE) && vnic_forwarding(vnic_vport_policy(vp)) &&
	    !traffic_done[i])
		synthetic_traffic(vp);
}

static void
send_pkt(uint16_t port, struct rte_mempool *pool, const uint8_t *pkt, size_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	char *p;

	if (m == NULL)
		return;
	p = rte_pktmbuf_append(m, (uint16_t)len);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	memcpy(p, pkt, len);
	if (rte_eth_tx_burst(port, 0, &m, 1) != 1)
		rte_pktmbuf_free(m);
}

static void
add_iface_macs(struct vema_agent *a)
{
	unsigned int i;

	for (i = 0; i < VEMA_VPORTS_MAX; i++) {
		struct vnic_vport *vp = vema_agent_vport(a, (uint8_t)i);
		struct rte_ether_addr *m;

		if (vp == NULL || nb_extra[i] == RTE_DIM(extra_macs[i]))
			continue;
		m = &extra_macs[i][nb_extra[i]];
		*m = (struct rte_ether_addr){ { 0x02, 0xEE, 0x00, (uint8_t)i, 0x00,
						(uint8_t)(nb_extra[i] + 1) } };
		nb_extra[i]++;
		(void)vnic_vport_set_iface_macs(vp, VNIC_LIST_UCAST, extra_macs[i], nb_extra[i]);
		printf("vema-host: vport %u: %u extra unicast MACs\n", i, nb_extra[i]);
	}
	fflush(stdout);
}

static void
clear_iface_macs(struct vema_agent *a)
{
	unsigned int i;

	for (i = 0; i < VEMA_VPORTS_MAX; i++) {
		struct vnic_vport *vp = vema_agent_vport(a, (uint8_t)i);

		if (vp == NULL || nb_extra[i] == 0)
			continue;
		nb_extra[i] = 0;
		(void)vnic_vport_set_iface_macs(vp, VNIC_LIST_UCAST, NULL, 0);
		printf("vema-host: vport %u: 0 extra unicast MACs\n", i);
	}
	fflush(stdout);
}

/* A hostile node: the entry count of a MAC-table reply says @n. */
static void
lie_mac_count(uint8_t *pkt, size_t len, uint16_t n)
{
	uint8_t *mad = pkt + OPA16B_FM_HDR_LEN, *data = mad + VEMA_HDR_LEN;

	if (len < OPA16B_FM_HDR_LEN + VEMA_HDR_LEN + VEMA_MAC_TBL_HDR_LEN ||
	    omni_get_be16(mad + 16) != VEMA_ATTR_MAC_ENTRIES)
		return;
	omni_put_be16(data + 2, n);
}

static int
start_port(uint16_t port, struct rte_mempool *pool)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	int ret;

	memset(&conf, 0, sizeof(conf));
	ret = rte_eth_dev_info_get(port, &info);
	if (ret != 0)
		return ret;
	if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER)
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
	ret = rte_eth_dev_configure(port, 1, 1, &conf);
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(port, 0, 256, rte_eth_dev_socket_id(port), NULL, pool);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(port, 0, 256, rte_eth_dev_socket_id(port), NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(port);
	return ret;
}

/* What the options give; lie is UINT64_MAX unless --lie-mac-count is given. */
struct host_opts {
	uint64_t lid, port, port_num, lie;
};

/* @return 0, or 1 after saying why. */
static int
parse_args(int argc, char **argv, struct host_opts *o)
{
	static const struct option longopts[] = {
		{ "lid", required_argument, NULL, 'l' },
		{ "port", required_argument, NULL, 'p' },
		{ "port-num", required_argument, NULL, 'n' },
		{ "lie-mac-count", required_argument, NULL, 'x' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, idx = 0;
	bool ok;

	while ((opt = getopt_long(argc, argv, "", longopts, &idx)) != -1) {
		const char *name = longopts[idx].name;

		if (opt == 'l')
			ok = omni_num_opt("vema-host", name, optarg, 1, OPA16B_LID_MAX,
					  OMNI_NUM_DEC, &o->lid);
		else if (opt == 'p')
			ok = omni_num_opt("vema-host", name, optarg, 0, RTE_MAX_ETHPORTS - 1,
					  OMNI_NUM_DEC, &o->port);
		else if (opt == 'n')
			ok = omni_num_opt("vema-host", name, optarg, 0, 255, OMNI_NUM_DEC,
					  &o->port_num);
		else if (opt == 'x')
			ok = omni_num_opt("vema-host", name, optarg, 0, UINT16_MAX, OMNI_NUM_DEC,
					  &o->lie);
		else
			ok = false;
		if (!ok)
			return 1;
	}
	if (o->lid == 0 || !rte_eth_dev_is_valid_port((uint16_t)o->port)) {
		fprintf(stderr, "usage: vema-host [EAL] -- --lid LID [--port N] [--port-num P]\n");
		return 1;
	}
	return 0;
}

/* Answer the EM and send the agent's traps until SIGINT or SIGTERM. */
static void
serve(struct vema_agent *a, uint16_t port, struct rte_mempool *pool, uint64_t lie)
{
	static uint8_t pkt[VEMA_PKT_MAX], out[VEMA_PKT_MAX];
	uint64_t hz = rte_get_timer_hz();
	struct rte_mbuf *rx[BURST];
	unsigned int i;

	while (!omni_stop) {
		uint16_t n = rte_eth_rx_burst(port, 0, rx, BURST);
		uint64_t now_ns;
		size_t len;

		for (i = 0; i < n; i++) {
			const void *p = NULL;

			if (rx[i]->pkt_len <= sizeof(pkt))
				p = rte_pktmbuf_read(rx[i], 0, rx[i]->pkt_len, pkt);
			len = p != NULL ? vema_agent_rx(a, p, rx[i]->pkt_len, out, sizeof(out)) : 0;
			rte_pktmbuf_free(rx[i]);
			if (len > 0 && lie != UINT64_MAX)
				lie_mac_count(out, len, (uint16_t)lie);
			if (len > 0)
				send_pkt(port, pool, out, len);
		}
		if (add_mac) {
			add_mac = 0;
			add_iface_macs(a);
		}
		if (clear_macs) {
			clear_macs = 0;
			clear_iface_macs(a);
		}
		now_ns = (uint64_t)((double)rte_get_timer_cycles() * 1e9 / (double)hz);
		while ((len = vema_agent_poll(a, now_ns, out, sizeof(out))) > 0)
			send_pkt(port, pool, out, len);
		if (n == 0)
			rte_delay_us_sleep(100);
	}
}

static void
print_stats(const struct vema_agent *a)
{
	const struct vema_agent_stats *st = vema_agent_stats(a);
	unsigned int i;

	fprintf(stderr, "vema-host: rx %" PRIu64 " replies %" PRIu64 " (errors %" PRIu64
		") traps %" PRIu64 " deferred %" PRIu64 " no_lid %" PRIu64, st->rx, st->replies,
		st->replies_error, st->traps, st->traps_deferred, st->traps_no_lid);
	for (i = 0; i < VEMA_DROP_MAX; i++)
		fprintf(stderr, " %s %" PRIu64, vema_drop_name(i), st->drops[i]);
	fprintf(stderr, "\n");
}

int
main(int argc, char **argv)
{
	struct vema_agent_conf conf = { .on_new = on_new, .on_event = on_event };
	struct host_opts o = { .port_num = 1, .lie = UINT64_MAX };
	struct rte_mempool *pool = NULL;
	struct vema_agent *a = NULL;
	bool port_used = false;
	int ret, rc = 1;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "vema-host: EAL init failed\n");
		return 1;
	}
	if (parse_args(argc - ret, argv + ret, &o) != 0)
		goto out;
	conf.lid = (uint32_t)o.lid;
	conf.port_num = (uint8_t)o.port_num;
	a = vema_agent_create(&conf);
	pool = rte_pktmbuf_pool_create("host_pool", 1023, 0, 0, RTE_PKTMBUF_HEADROOM + 4096,
				       rte_socket_id());
	port_used = a != NULL && pool != NULL;
	if (!port_used || start_port((uint16_t)o.port, pool) != 0) {
		fprintf(stderr, "vema-host: cannot start\n");
		goto out;
	}
	omni_stop_on_signals();
	signal(SIGUSR1, on_usr1);
	signal(SIGUSR2, on_usr2);
	printf("vema-host: LID %" PRIu64 " listening on port %" PRIu64 "\n", o.lid, o.port);
	fflush(stdout);
	serve(a, (uint16_t)o.port, pool, o.lie);
	print_stats(a);
	rc = 0;
out:
	if (port_used)
		omni_port_close((uint16_t)o.port, true);
	vema_agent_free(a);
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return rc;
}
