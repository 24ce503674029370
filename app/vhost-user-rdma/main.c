/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * vhost-user-rdma: the vhost-user backend of virtio-net devices with RoCE
 * queues (lib/vrdma), one per socket, switched onto one DPDK port, the
 * wire. See doc/vhost-user-rdma.md.
 *
 *   vhost-user-rdma [EAL options] -- -s SOCKET [-s SOCKET ...] [--port N]
 *       [--mac MAC] [--max-qps N] [--max-cqs N] [--mtu N] [--roce-bit N]
 *       [--ctrl-class N] [--vlan VID] [--pipeline SPEC] [--burst N]
 *       [--ring-size N] [--idle-sleep US] [--stats SEC] [--xstats]
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include <omni_num.h>
#include <omni_port.h>
#include <omni_signal.h>
#include "pipeline.h"
#include "vrdma.h"
#include "vswitch.h"

#define EXIT_FAIL 1
#define EXIT_USAGE 2

#define NB_RXD 1024
#define NB_TXD 1024
#define MEMPOOL_CACHE 256
/* mbufs a device's RoCE engine and guest queues may hold beyond its rings */
#define DEV_MBUFS 1024
/* stations announced on or withdrawn from the wire port per 10 ms tick */
#define WIRE_MACS_PER_TICK 64

RTE_LOG_REGISTER_DEFAULT(vur_logtype, NOTICE);
#define VUR_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, vur_logtype, "vhost-user-rdma: " fmt "\n", ##__VA_ARGS__)

static struct {
	const char *sockets[VSW_MAX_DEVS];
	unsigned int nb_sockets;
	uint16_t port;
	bool port_set;
	struct rte_ether_addr mac;
	bool mac_set;
	uint32_t max_qps, max_cqs;
	uint16_t mtu;
	unsigned int roce_bit, ctrl_class;
	uint16_t vlan;
	const char *pipeline;
	char default_pipeline[64];
	uint16_t burst;
	uint32_t ring_size;
	uint32_t idle_sleep_us;
	unsigned int stats_period;
	bool xstats;
} opt = {
	.max_qps = 16, .max_cqs = 16, .mtu = 1500,
	.roce_bit = VRDMA_ROCE_BIT_RFC, .ctrl_class = VRDMA_CTRL_CLASS_RFC,
	.vlan = VRDMA_VLAN_NONE, .burst = 32, .ring_size = 1024,
};

static void
usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [EAL options] -- -s SOCKET [-s SOCKET ...] [options]\n"
		"Serves a virtio-net device with RoCE queues on each vhost-user SOCKET\n"
		"(server mode; QEMU connects) and switches their frames onto the wire, an\n"
		"ethdev port from the EAL options (e.g. --vdev net_tap0).\n"
		"options:\n"
		"  -s, --socket PATH    a device's socket (up to %u)\n"
		"  --port N             the wire's ethdev port (default: the first)\n"
		"  --mac MAC            device 0's MAC; device i gets it plus i\n"
		"                       (default 02:56:52:44:4d:00)\n"
		"  --max-qps N          max_rdma_qps: QP slots, 3.. (default 16)\n"
		"  --max-cqs N          max_rdma_cqs (default 16); 3 + max-cqs + 2 * max-qps\n"
		"                       rings must fit vhost-user's %u\n"
		"  --mtu N              virtio-net MTU, %u..9000 (default 1500); the RoCE\n"
		"                       path MTU fits it and the wire's MTU\n"
		"  --roce-bit N         feature bit offered for RoCE (default %u, the RFC's;\n"
		"                       upstream virtio gave it to GUEST_USO6: see the doc)\n"
		"  --ctrl-class N       control class of the RoCE commands (default %u)\n"
		"  --vlan VID           tag the devices' RoCE frames with 802.1Q VID 0..4094\n"
		"                       (0: priority tags); the PCP is the traffic class's\n"
		"                       top 3 bits (default: untagged)\n"
		"  --pipeline SPEC      lcores of the stages ingress, switch, egress (one\n"
		"                       lcore each for switch and egress; default: all three\n"
		"                       on the first worker lcore)\n"
		"  --burst N            frames per stage call, 1..%u (default 32)\n"
		"  --ring-size N        frames each device ring and stage ring holds\n"
		"                       (power of two, default 1024)\n"
		"  --idle-sleep US      an lcore with nothing to do sleeps US microseconds\n"
		"                       (default 0: busy polling)\n"
		"  --stats SEC          print the counters every SEC seconds (default 0: at\n"
		"                       exit only)\n"
		"  --xstats             at exit, print every port's non-zero xstats, the ports\n"
		"                       under the wire too (a VNIC's fabric port and its link)\n"
		"  --help\n"
		"SIGINT or SIGTERM stops it cleanly; the exit status is 1 if an mbuf leaked.\n",
		prog, VSW_MAX_DEVS, VRDMA_MAX_RINGS, VRDMA_MIN_MTU, VRDMA_ROCE_BIT_RFC,
		VRDMA_CTRL_CLASS_RFC, PIPE_BURST_MAX);
}

/* an option's number, or a line saying what was expected */
#define num_opt(name, val, min, max, out) \
	omni_num_opt("vhost-user-rdma", name, val, min, max, OMNI_NUM_DEC, out)

static int
parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "port", required_argument, NULL, 'p' },
		{ "mac", required_argument, NULL, 'm' },
		{ "max-qps", required_argument, NULL, 'q' },
		{ "max-cqs", required_argument, NULL, 'c' },
		{ "mtu", required_argument, NULL, 'M' },
		{ "roce-bit", required_argument, NULL, 'b' },
		{ "ctrl-class", required_argument, NULL, 'C' },
		{ "vlan", required_argument, NULL, 'V' },
		{ "pipeline", required_argument, NULL, 'P' },
		{ "burst", required_argument, NULL, 'B' },
		{ "ring-size", required_argument, NULL, 'r' },
		{ "idle-sleep", required_argument, NULL, 'i' },
		{ "stats", required_argument, NULL, 'S' },
		{ "xstats", no_argument, NULL, 'X' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *prog = argv[0];
	uint64_t v;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "s:h", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (opt.nb_sockets == VSW_MAX_DEVS) {
				fprintf(stderr, "vhost-user-rdma: more than %u sockets\n",
					VSW_MAX_DEVS);
				return -1;
			}
			opt.sockets[opt.nb_sockets++] = optarg;
			break;
		case 'p':
			if (!num_opt("port", optarg, 0, RTE_MAX_ETHPORTS - 1, &v))
				return -1;
			opt.port = (uint16_t)v;
			opt.port_set = true;
			break;
		case 'm':
			if (rte_ether_unformat_addr(optarg, &opt.mac) != 0 ||
			    !rte_is_unicast_ether_addr(&opt.mac) ||
			    rte_is_zero_ether_addr(&opt.mac)) {
				fprintf(stderr, "vhost-user-rdma: --mac '%s': expected a unicast "
					"address such as 02:00:00:00:00:01\n", optarg);
				return -1;
			}
			opt.mac_set = true;
			break;
		case 'q':
			if (!num_opt("max-qps", optarg, 3, VRDMA_MAX_RINGS, &v))
				return -1;
			opt.max_qps = (uint32_t)v;
			break;
		case 'c':
			if (!num_opt("max-cqs", optarg, 1, VRDMA_MAX_RINGS, &v))
				return -1;
			opt.max_cqs = (uint32_t)v;
			break;
		case 'M':
			if (!num_opt("mtu", optarg, VRDMA_MIN_MTU, 9000, &v))
				return -1;
			opt.mtu = (uint16_t)v;
			break;
		case 'b':
			if (!num_opt("roce-bit", optarg, 0, 63, &v))
				return -1;
			opt.roce_bit = (unsigned int)v;
			break;
		case 'C':
			if (!num_opt("ctrl-class", optarg, 0, 255, &v))
				return -1;
			opt.ctrl_class = (unsigned int)v;
			break;
		case 'V':
			if (!num_opt("vlan", optarg, 0, 4094, &v))
				return -1;
			opt.vlan = (uint16_t)v;
			break;
		case 'P':
			opt.pipeline = optarg;
			break;
		case 'B':
			if (!num_opt("burst", optarg, 1, PIPE_BURST_MAX, &v))
				return -1;
			opt.burst = (uint16_t)v;
			break;
		case 'r':
			if (!num_opt("ring-size", optarg, 64, 1u << 16, &v))
				return -1;
			if (!rte_is_power_of_2((uint32_t)v)) {
				fprintf(stderr, "vhost-user-rdma: --ring-size %" PRIu64
					": not a power of two\n", v);
				return -1;
			}
			opt.ring_size = (uint32_t)v;
			break;
		case 'i':
			if (!num_opt("idle-sleep", optarg, 0, 1000000, &v))
				return -1;
			opt.idle_sleep_us = (uint32_t)v;
			break;
		case 'S':
			if (!num_opt("stats", optarg, 0, 86400, &v))
				return -1;
			opt.stats_period = (unsigned int)v;
			break;
		case 'X':
			opt.xstats = true;
			break;
		case 'h':
			usage(stdout, prog);
			exit(0);
		default:
			usage(stderr, prog);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "vhost-user-rdma: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (opt.nb_sockets == 0) {
		fprintf(stderr, "vhost-user-rdma: no device: give a socket with -s PATH\n");
		return -1;
	}
	return 0;
}

/* The wire: its port named by --port, or the first one EAL made. */
static int
wire_pick(void)
{
	uint16_t p;

	if (opt.port_set) {
		if (!rte_eth_dev_is_valid_port(opt.port)) {
			fprintf(stderr, "vhost-user-rdma: --port %u: no such ethdev port\n",
				opt.port);
			return -1;
		}
		return 0;
	}
	RTE_ETH_FOREACH_DEV(p) {
		opt.port = p;
		return 0;
	}
	fprintf(stderr, "vhost-user-rdma: no ethdev port for the wire: name one in the "
		"EAL options, e.g. --vdev net_tap0\n");
	return -1;
}

static int
wire_setup(struct vsw *sw, struct rte_mempool *pool, uint16_t nb_txq)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	uint16_t nb_rxd = NB_RXD, nb_txd = NB_TXD, q;
	char name[RTE_ETH_NAME_MAX_LEN];
	int ret;

	memset(&conf, 0, sizeof(conf));
	ret = rte_eth_dev_info_get(sw->wire_port, &info);
	if (ret != 0)
		return ret;
	rte_eth_dev_get_name_by_port(sw->wire_port, name);
	if (info.max_tx_queues < nb_txq) {
		fprintf(stderr, "vhost-user-rdma: port %u (%s) has %u tx queues for %u egress "
			"lcores: use fewer\n", sw->wire_port, name, info.max_tx_queues, nb_txq);
		return -ENOTSUP;
	}
	/* one rx queue: without RSS set up, only queue 0 would get frames */
	sw->wire_rxq = 1;
	if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER)
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
	if (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS)
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	ret = rte_eth_dev_configure(sw->wire_port, sw->wire_rxq, nb_txq, &conf);
	if (ret == 0)
		ret = rte_eth_dev_adjust_nb_rx_tx_desc(sw->wire_port, &nb_rxd, &nb_txd);
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(sw->wire_port, 0, nb_rxd,
					     rte_eth_dev_socket_id(sw->wire_port), NULL, pool);
	for (q = 0; ret == 0 && q < nb_txq; q++)
		ret = rte_eth_tx_queue_setup(sw->wire_port, q, nb_txd,
					     rte_eth_dev_socket_id(sw->wire_port), NULL);
	if (ret != 0) {
		fprintf(stderr, "vhost-user-rdma: port %u (%s): setup failed: %s\n",
			sw->wire_port, name, rte_strerror(-ret));
		return ret;
	}
	/* frames of the MTU the guests were told; a port that cannot is warned about */
	ret = rte_eth_dev_set_mtu(sw->wire_port, opt.mtu);
	if (ret != 0 && ret != -ENOTSUP)
		VUR_LOG(WARNING, "port %u (%s): MTU %u: %s", sw->wire_port, name, opt.mtu,
			rte_strerror(-ret));
	ret = rte_eth_dev_start(sw->wire_port);
	if (ret != 0) {
		fprintf(stderr, "vhost-user-rdma: port %u (%s): start failed: %s\n",
			sw->wire_port, name, rte_strerror(-ret));
		return ret;
	}
	/* the devices' MACs are not the port's */
	ret = rte_eth_promiscuous_enable(sw->wire_port);
	if (ret != 0)
		VUR_LOG(WARNING, "port %u (%s): promiscuous mode: %s", sw->wire_port, name,
			rte_strerror(-ret));
	printf("wire: port %u (%s)\n", sw->wire_port, name);
	return 0;
}

static struct rte_ring *
ring_make(const char *kind, unsigned int i)
{
	char name[RTE_RING_NAMESIZE];
	struct rte_ring *r;

	snprintf(name, sizeof(name), "vur_%s_%u", kind, i);
	r = rte_ring_create(name, opt.ring_size, (int)rte_socket_id(), 0);
	if (r == NULL)
		fprintf(stderr, "vhost-user-rdma: ring %s: %s\n", name, rte_strerror(rte_errno));
	return r;
}

/*
 * Each device's rings and configuration, checked by lib/vrdma before
 * anything starts: a configuration it refuses is a command-line error.
 */
static int
devices_prepare(struct vsw *sw, struct rte_mempool *pool, struct vrdma_conf *confs)
{
	unsigned int i;

	for (i = 0; i < opt.nb_sockets; i++) {
		struct vsw_dev *d = &sw->devs[i];
		struct vrdma_conf *conf = &confs[i];
		char err[160];

		vrdma_conf_init(conf, opt.sockets[i]);
		if (opt.mac_set)
			conf->mac = opt.mac;
		else
			conf->mac.addr_bytes[5] = 0;
		/* device i: the base plus i in the last bytes */
		conf->mac.addr_bytes[5] = (uint8_t)(conf->mac.addr_bytes[5] + i);
		if (conf->mac.addr_bytes[5] < i)
			conf->mac.addr_bytes[4]++;
		conf->max_qps = opt.max_qps;
		conf->max_cqs = opt.max_cqs;
		conf->mtu = opt.mtu;
		conf->roce_bit = opt.roce_bit;
		conf->ctrl_class = opt.ctrl_class;
		conf->vlan_id = opt.vlan;
		conf->pool = pool;
		d->mac = conf->mac;
		d->roce_rx = conf->roce_rx = ring_make("roce_rx", i);
		d->roce_tx = conf->roce_tx = ring_make("roce_tx", i);
		d->net_rx = conf->net_rx = ring_make("net_rx", i);
		d->net_tx = conf->net_tx = ring_make("net_tx", i);
		sw->nb_devs = i + 1;
		if (d->roce_rx == NULL || d->roce_tx == NULL || d->net_rx == NULL ||
		    d->net_tx == NULL)
			return EXIT_FAIL;
		if (vrdma_conf_check(conf, err, sizeof(err)) != 0) {
			fprintf(stderr, "vhost-user-rdma: %s: %s\n", opt.sockets[i], err);
			return EXIT_USAGE;
		}
	}
	return 0;
}

/* Create the devices: their sockets listen from here on. */
static int
devices_start(struct vsw *sw, const struct vrdma_conf *confs)
{
	unsigned int i;

	for (i = 0; i < sw->nb_devs; i++) {
		struct vsw_dev *d = &sw->devs[i];
		char mac[RTE_ETHER_ADDR_FMT_SIZE];

		d->dev = vrdma_dev_create(&confs[i]);
		if (d->dev == NULL) {
			fprintf(stderr, "vhost-user-rdma: %s: %s\n", opt.sockets[i],
				rte_strerror(rte_errno));
			return -1;
		}
		rte_ether_format_addr(mac, sizeof(mac), &d->mac);
		printf("device %u: %s, mac %s, %u QPs, %u CQs, mtu %u, roce bit %u class %u\n",
		       i, opt.sockets[i], mac, opt.max_qps, opt.max_cqs, opt.mtu, opt.roce_bit,
		       opt.ctrl_class);
	}
	return 0;
}

static void
ring_drain(struct rte_ring *r)
{
	struct rte_mbuf *m;

	while (r != NULL && rte_ring_dequeue(r, (void **)&m) == 0)
		rte_pktmbuf_free(m);
}

/* Destroy the devices (their frontends are dropped) and free what their rings hold. */
static void
devices_destroy(struct vsw *sw)
{
	unsigned int i;

	for (i = 0; i < sw->nb_devs; i++) {
		struct vsw_dev *d = &sw->devs[i];

		vrdma_dev_destroy(d->dev);
		ring_drain(d->roce_rx);
		ring_drain(d->roce_tx);
		ring_drain(d->net_rx);
		ring_drain(d->net_tx);
		rte_ring_free(d->roce_rx);
		rte_ring_free(d->roce_tx);
		rte_ring_free(d->net_rx);
		rte_ring_free(d->net_tx);
	}
	sw->nb_devs = 0;
}

static struct pipe *
pipeline_make(struct vsw *sw)
{
	const struct pipe_stage_conf stages[3] = {
		{ .name = "ingress", .fn = vsw_ingress, .arg = sw, .burst = opt.burst },
		{ .name = "switch", .fn = vsw_switch, .arg = sw, .burst = opt.burst,
		  .ring_size = opt.ring_size },
		{ .name = "egress", .fn = vsw_egress, .arg = sw, .burst = opt.burst,
		  .ring_size = opt.ring_size },
	};
	struct pipe_conf pc = {
		.name = "vhost-user-rdma",
		.socket_id = (int)rte_socket_id(),
		.idle_sleep_us = opt.idle_sleep_us,
	};
	char err[PIPE_ERR_LEN];
	struct pipe *p;
	unsigned int i, w;

	if (opt.pipeline == NULL) {
		w = rte_get_next_lcore(-1, 1, 0);
		if (w >= RTE_MAX_LCORE) {
			fprintf(stderr, "vhost-user-rdma: no worker lcore: the main lcore only "
				"controls; give EAL two, e.g. -l 0-1\n");
			return NULL;
		}
		snprintf(opt.default_pipeline, sizeof(opt.default_pipeline),
			 "ingress@%u,switch@%u,egress@%u", w, w, w);
		opt.pipeline = opt.default_pipeline;
	}
	p = pipe_create(&pc);
	if (p == NULL)
		return NULL;
	for (i = 0; i < RTE_DIM(stages); i++) {
		if (pipe_stage_add(p, &stages[i]) < 0) {
			pipe_destroy(p);
			return NULL;
		}
	}
	if (pipe_place(p, opt.pipeline, err, sizeof(err)) != 0) {
		fprintf(stderr, "vhost-user-rdma: --pipeline '%s': %s\n", opt.pipeline, err);
		pipe_destroy(p);
		return NULL;
	}
	/* two lcores taking bursts from one ring reorder them, and RC pays with retransmissions */
	if (pipe_stage_nb_workers(p, 1) > 1 || pipe_stage_nb_workers(p, 2) > 1) {
		fprintf(stderr, "vhost-user-rdma: --pipeline '%s': switch and egress keep frame "
			"order only on one lcore each\n", opt.pipeline);
		pipe_destroy(p);
		return NULL;
	}
	return p;
}

static void
stats_print(const struct vsw *sw, struct pipe *p)
{
	struct rte_eth_stats es;

	if (rte_eth_stats_get(sw->wire_port, &es) == 0)
		printf("port %u: ipackets=%" PRIu64 " opackets=%" PRIu64 " imissed=%" PRIu64
		       " ierrors=%" PRIu64 " oerrors=%" PRIu64 " rx_nombuf=%" PRIu64 "\n",
		       sw->wire_port, es.ipackets, es.opackets, es.imissed, es.ierrors,
		       es.oerrors, es.rx_nombuf);
	vsw_stats_dump(sw, stdout);
	if (p != NULL)
		pipe_stats_dump(p, stdout);
	fflush(stdout);
}

/* Free what the wire still holds for us (bounded: a port may never run dry). */
static void
wire_drain(const struct vsw *sw)
{
	struct rte_mbuf *pkts[64];
	unsigned int freed = 0;
	uint16_t n;

	while (freed < 4 * NB_RXD &&
	       (n = rte_eth_rx_burst(sw->wire_port, 0, pkts, RTE_DIM(pkts))) > 0) {
		rte_pktmbuf_free_bulk(pkts, n);
		freed += n;
	}
}

/* The switch and its station table. @return NULL after saying why. */
static struct vsw *
switch_create(void)
{
	struct vsw *sw;
	int ret;

	sw = rte_zmalloc("vur_switch", sizeof(*sw), RTE_CACHE_LINE_SIZE);
	if (sw == NULL) {
		fprintf(stderr, "vhost-user-rdma: no memory for the switch\n");
		return NULL;
	}
	sw->wire_port = opt.port;
	ret = vsw_fdb_create(sw, "vur_fdb");
	if (ret != 0) {
		fprintf(stderr, "vhost-user-rdma: station table: %s\n", rte_strerror(-ret));
		vsw_fdb_free(sw);
		rte_free(sw);
		return NULL;
	}
	return sw;
}

/* Every descriptor, ring slot, burst, cache and device may hold an mbuf. */
static struct rte_mempool *
pool_make(unsigned int *nb_mbufs)
{
	struct rte_mempool *pool;
	unsigned int n, data_room;

	n = NB_RXD + rte_lcore_count() * (NB_TXD + 3 * opt.burst + MEMPOOL_CACHE) +
	    2 * opt.ring_size + opt.nb_sockets * (4 * opt.ring_size + DEV_MBUFS);
	n = RTE_MAX(n, 8191u);
	/* a guest frame of the MTU, its virtio-net header and a VLAN tag, in one mbuf */
	data_room = RTE_MAX((unsigned int)RTE_MBUF_DEFAULT_BUF_SIZE,
			    RTE_PKTMBUF_HEADROOM + 12u + opt.mtu + RTE_ETHER_HDR_LEN +
			    RTE_VLAN_HLEN);
	pool = rte_pktmbuf_pool_create("vur_pool", n, MEMPOOL_CACHE, 0, (uint16_t)data_room,
				       (int)rte_socket_id());
	if (pool == NULL)
		fprintf(stderr, "vhost-user-rdma: mbuf pool of %u: %s\n", n,
			rte_strerror(rte_errno));
	*nb_mbufs = n;
	return pool;
}

/*
 * Bound every device's RoCE path MTU by the wire's MTU, when it changed since
 * @p seen (read every tick: a net_opa_vnic port's MTU is its vesw's eth_mtu,
 * which the EM sets, 1500 until it does, and may change at run time).
 */
static void
wire_mtu_follow(struct vsw *sw, uint16_t *seen)
{
	unsigned int i;
	uint16_t mtu;
	int code = 0;

	if (rte_eth_dev_get_mtu(sw->wire_port, &mtu) != 0 || mtu == *seen)
		return;
	for (i = 0; i < sw->nb_devs; i++)
		code = vrdma_dev_wire_mtu_set(sw->devs[i].dev, mtu);
	if (*seen == 0 && mtu < opt.mtu)
		printf("wire: port %u's MTU %u is below --mtu %u: the RoCE path MTU is at "
		       "most %u (the guests are told %u; a larger path MTU is clamped)\n",
		       sw->wire_port, mtu, opt.mtu, 128u << code, opt.mtu);
	else
		printf("wire: port %u's MTU is %u: RoCE path MTU at most %u\n", sw->wire_port,
		       mtu, 128u << code);
	fflush(stdout);
	*seen = mtu;
}

/*
 * Statistics every --stats seconds until SIGINT/SIGTERM, then the pipeline
 * stopped. Each 10 ms tick the wire's MTU is read again and the stations
 * the switch learned or forgot are announced on or withdrawn from the wire
 * port (the control work stays off the datapath lcores).
 */
static void
serve(struct vsw *sw, struct pipe *pipe, uint16_t *wire_mtu)
{
	uint64_t hz = rte_get_timer_hz();
	uint64_t next_stats = rte_get_timer_cycles() + (uint64_t)opt.stats_period * hz;

	printf("serving %u device(s), pipeline %s\n", sw->nb_devs, opt.pipeline);
	fflush(stdout);
	while (!omni_stop) {
		rte_delay_us_sleep(10 * 1000);
		wire_mtu_follow(sw, wire_mtu);
		vsw_wire_macs_sync(sw, WIRE_MACS_PER_TICK);
		if (opt.stats_period != 0 && rte_get_timer_cycles() >= next_stats) {
			stats_print(sw, pipe);
			next_stats += (uint64_t)opt.stats_period * hz;
		}
	}
	printf("stopping\n");
	pipe_stop(pipe);
	printf("final statistics:\n");
	stats_print(sw, pipe);
	if (opt.xstats) {
		uint16_t p;

		/* every valid id: owned ports (a VNIC's fabric port) included */
		for (p = 0; p < RTE_MAX_ETHPORTS; p++)
			omni_port_xstats_print(p);
	}
}

int
main(int argc, char **argv)
{
	struct rte_mempool *pool = NULL;
	struct pipe *pipe = NULL;
	struct vsw *sw = NULL;
	struct vrdma_conf confs[VSW_MAX_DEVS];
	unsigned int nb_mbufs = 0;
	uint16_t wire_mtu = 0;
	bool port_started = false;
	int ret, status = EXIT_USAGE;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "vhost-user-rdma: EAL initialisation failed: %s\n",
			rte_strerror(rte_errno));
		return EXIT_FAIL;
	}
	if (parse_args(argc - ret, argv + ret) != 0 || wire_pick() != 0)
		goto out;
	status = EXIT_FAIL;
	sw = switch_create();
	if (sw == NULL)
		goto out;
	pool = pool_make(&nb_mbufs);
	if (pool == NULL)
		goto out;
	sw->pool = pool;
	ret = devices_prepare(sw, pool, confs);
	if (ret != 0) {
		status = ret;
		goto out;
	}
	pipe = pipeline_make(sw);
	if (pipe == NULL) {
		status = EXIT_USAGE;
		goto out;
	}
	if (wire_setup(sw, pool, pipe_stage_nb_workers(pipe, 2)) != 0)
		goto out;
	port_started = true;
	omni_stop_on_signals();
	if (devices_start(sw, confs) != 0)
		goto out;
	/* the devices' MACs, then the stations learned behind them, on the wire port */
	if (vsw_wire_macs_start(sw, &vsw_wire_mac_ethdev, "vur_wire_ev") != 0) {
		fprintf(stderr, "vhost-user-rdma: no memory for the wire's address events\n");
		goto out;
	}
	wire_mtu_follow(sw, &wire_mtu);
	if (vsw_telemetry_register(sw) != 0)
		VUR_LOG(WARNING, "telemetry commands /vhost_user_rdma/* not registered");
	ret = pipe_start(pipe);
	if (ret != 0) {
		fprintf(stderr, "vhost-user-rdma: pipeline start: %s\n", rte_strerror(-ret));
		goto out;
	}
	serve(sw, pipe, &wire_mtu);
	status = 0;
out:
	if (pipe != NULL && pipe_running(pipe))
		pipe_stop(pipe);
	pipe_destroy(pipe);
	/* the switch stage is stopped: withdraw what the port was told, before it closes */
	if (sw != NULL)
		vsw_wire_macs_stop(sw);
	vsw_telemetry_detach();
	if (sw != NULL)
		devices_destroy(sw);
	if (port_started)
		wire_drain(sw);
	if (sw != NULL)
		omni_port_close(sw->wire_port, port_started);
	/* the others (a VNIC's other vports): the last one closed shuts the VNIC's fabric down */
	omni_ports_close_all();
	/* devices destroyed, rings drained, port closed: every mbuf is back */
	if (!omni_pool_release(pool, nb_mbufs, status == 0))
		status = EXIT_FAIL;
	if (sw != NULL)
		vsw_fdb_free(sw);
	rte_free(sw);
	fflush(stdout);
	rte_eal_cleanup();
	return status;
}
