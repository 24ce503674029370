/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * l2fwd-vnic: l2fwd-style forwarding between DPDK ports (VNIC ports of
 * net_opa_vnic, or any others), run to completion on each lcore or as a
 * lib/pipeline rx -> work -> tx pipeline. A port may be a raw 16B fabric
 * port: frames sent to it are VNIC-encapsulated, packets from it are
 * decapsulated (lib/opa16b).
 *
 *   l2fwd-vnic [EAL options] -- [--map RX:TX[,RX:TX...]] [--mac-rewrite|--mac-swap]
 *       [-T SECONDS] [--burst N] [--duration SECONDS] [--frames N] [--hold]
 *       [--pipeline rx@L,work@L,tx@L] [--ring-size N] [--no-backpressure]
 *       [--encap PORT:SLID:DLID:VESW]... [--link-timeout SECONDS] [--xstats]
 *       [--busy-poll]
 *
 * See doc/l2fwd-vnic.md.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_hash_crc.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_mbuf.h>

#include <omni_num.h>
#include <omni_port.h>
#include <omni_signal.h>
#include "opa16b_vnic.h"
#include "pipeline.h"

RTE_LOG_REGISTER_DEFAULT(l2fwd_logtype, NOTICE);
#define L2FWD_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, l2fwd_logtype, "l2fwd-vnic: " fmt "\n", ##__VA_ARGS__)

#define NB_RXD 1024
#define NB_TXD 1024
#define MEMPOOL_CACHE 256
#define TX_RETRIES 64
#define NO_PORT UINT16_MAX

/* Exit statuses: bad command line, and failures at run time. */
#define EXIT_USAGE 2
#define EXIT_FAIL 1

enum mac_mode { MAC_KEEP, MAC_REWRITE, MAC_SWAP };

/* A raw 16B fabric port: what encap writes into its packets. */
struct fabric {
	bool on;
	struct opa16b_vnic_fields f;
};

/* Ports a forwarding lcore (plain mode) or rx worker (pipeline) polls. */
struct rx_assign {
	uint16_t nb;
	uint16_t next;
	uint16_t ports[RTE_MAX_ETHPORTS];
};

static struct {
	uint16_t map[RTE_MAX_ETHPORTS];    /* rx port -> tx port, NO_PORT if none */
	uint16_t rx_ports[RTE_MAX_ETHPORTS];
	uint16_t nb_rx_ports;
	bool used[RTE_MAX_ETHPORTS];
	bool tx_target[RTE_MAX_ETHPORTS];
	bool started[RTE_MAX_ETHPORTS];
	struct fabric fabric[RTE_MAX_ETHPORTS];
	struct rte_ether_addr mac[RTE_MAX_ETHPORTS];
	uint16_t mtu[RTE_MAX_ETHPORTS];
	enum mac_mode mac_mode;
	uint64_t stats_period;             /* seconds, 0: off */
	uint16_t burst;
	uint64_t duration;                 /* seconds, 0: until a signal */
	uint64_t frames;                   /* 0: no limit */
	const char *pipeline;              /* placement, NULL: plain mode */
	uint32_t ring_size;
	bool backpressure;
	uint64_t link_timeout;             /* seconds */
	bool xstats;
	bool busy_poll;                    /* plain mode: never sleep when idle */
	bool hold;                         /* after --duration/--frames: ports open until a signal */
	uint16_t nb_fwd;                   /* plain mode: forwarding lcores */
	unsigned int fwd_lcores[RTE_MAX_LCORE];
	struct rx_assign assign[RTE_MAX_LCORE];
} app = {
	.burst = 32, .stats_period = 10, .ring_size = 1024, .backpressure = true,
	.link_timeout = 5,
};

/* Counters of one port on one lcore (single writer, summed on read). */
struct port_ctr {
	uint64_t rx;
	uint64_t tx;
	uint64_t drop_tx;    /* tx queue full after retries */
	uint64_t drop_rx;    /* received but unusable: decap reject, short frame */
	uint64_t drop_encap; /* could not be encapsulated for this port */
};

struct lcore_ctr {
	struct port_ctr port[RTE_MAX_ETHPORTS];
} __rte_cache_aligned;

static struct lcore_ctr ctr[RTE_MAX_LCORE];
/* The run's own end (--duration, --frames, a busy lcore); a signal sets omni_stop. */
static volatile bool done;

static inline bool
stopping(void)
{
	return done || omni_stop;
}

/* Plain mode: empty rounds before an idle lcore sleeps, and its longest sleep. */
#define IDLE_ROUNDS 1024
#define IDLE_MAX_US 100

static void
usage(FILE *f, const char *prog)
{
	fprintf(f, "usage: %s [EAL options] -- [options]\n"
		"  --map RX:TX[,RX:TX...]   port pairs (default 0:1,1:0,2:3,3:2,...)\n"
		"  --mac-rewrite            src = TX port MAC, dst = 02:00:00:00:00:<TX>\n"
		"  --mac-swap               swap source and destination MACs\n"
		"  -T SECONDS               periodic statistics (default 10, 0 = off)\n"
		"  --burst N                packets per burst, 1..%d (default 32)\n"
		"  --duration SECONDS       exit after this long (0 = run until a signal)\n"
		"  --frames N               exit once N frames were forwarded\n"
		"  --hold                   after --duration or --frames, stop forwarding but keep\n"
		"                           the ports open until SIGINT/SIGTERM\n"
		"  --pipeline rx@L,work@L,tx@L  run as an rx -> work -> tx pipeline\n"
		"  --ring-size N            pipeline ring size (default 1024)\n"
		"  --no-backpressure        pipeline: drop on a full ring instead of waiting\n"
		"  --encap PORT:SLID:DLID:VESW  PORT is a raw 16B fabric port (repeatable)\n"
		"  --link-timeout SECONDS   wait this long for links (default 5)\n"
		"  --xstats                 print the ports' non-zero xstats at exit\n"
		"  --busy-poll              never sleep when idle (plain mode; default: after\n"
		"                           %u empty rounds, sleep 1..%u us, doubling)\n",
		prog, PIPE_BURST_MAX, IDLE_ROUNDS, IDLE_MAX_US);
}

/* A whole decimal or 0x-hex number in @min..@max (omni_num.h's rules). */
static int
parse_num(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	return omni_parse_uint(s, min, max, OMNI_NUM_HEX, v) == 0 ? 0 : -EINVAL;
}

static int
opt_num(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	if (parse_num(s, min, max, v) != 0) {
		fprintf(stderr, "l2fwd-vnic: %s: '%s' is not a number in %" PRIu64 "..%" PRIu64
			"\n", opt, s, min, max);
		return -EINVAL;
	}
	return 0;
}

static int
check_port(const char *opt, uint64_t port)
{
	if (port >= RTE_MAX_ETHPORTS || !rte_eth_dev_is_valid_port((uint16_t)port)) {
		fprintf(stderr, "l2fwd-vnic: %s: no port %" PRIu64 " (%u ports: give EAL "
			"--vdev/-a options)\n", opt, port, rte_eth_dev_count_avail());
		return -ENODEV;
	}
	return 0;
}

/* --map RX:TX[,RX:TX...] */
static int
parse_map(const char *arg)
{
	char buf[512], *save = NULL, *pair;
	unsigned int i;

	if (strlen(arg) >= sizeof(buf)) {
		fprintf(stderr, "l2fwd-vnic: --map: too long\n");
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", arg);
	for (i = 0; i < RTE_MAX_ETHPORTS; i++)
		app.map[i] = NO_PORT;
	app.nb_rx_ports = 0;
	for (pair = strtok_r(buf, ",", &save); pair != NULL; pair = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(pair, ':');
		uint64_t rx, tx;

		if (colon == NULL) {
			fprintf(stderr, "l2fwd-vnic: --map: '%s' is not RX:TX\n", pair);
			return -EINVAL;
		}
		*colon = '\0';
		if (parse_num(pair, 0, UINT16_MAX, &rx) != 0 ||
		    parse_num(colon + 1, 0, UINT16_MAX, &tx) != 0) {
			fprintf(stderr, "l2fwd-vnic: --map: '%s:%s' is not RX:TX\n", pair,
				colon + 1);
			return -EINVAL;
		}
		if (check_port("--map", rx) != 0 || check_port("--map", tx) != 0)
			return -ENODEV;
		if (app.map[rx] != NO_PORT) {
			fprintf(stderr, "l2fwd-vnic: --map: port %" PRIu64 " is mapped twice "
				"as RX\n", rx);
			return -EINVAL;
		}
		app.map[rx] = (uint16_t)tx;
		app.rx_ports[app.nb_rx_ports++] = (uint16_t)rx;
	}
	if (app.nb_rx_ports == 0) {
		fprintf(stderr, "l2fwd-vnic: --map: no pair given\n");
		return -EINVAL;
	}
	return 0;
}

static int
default_map(void)
{
	uint16_t ports[RTE_MAX_ETHPORTS], n = 0, p, i;

	RTE_ETH_FOREACH_DEV(p)
		ports[n++] = p;
	if (n == 0 || n % 2 != 0) {
		fprintf(stderr, "l2fwd-vnic: %u ports: the default map pairs them, so it "
			"needs an even number; give --map (e.g. --map 0:0)\n", n);
		return -EINVAL;
	}
	for (i = 0; i < RTE_MAX_ETHPORTS; i++)
		app.map[i] = NO_PORT;
	for (i = 0; i < n; i++) {
		app.map[ports[i]] = ports[i ^ 1];
		app.rx_ports[app.nb_rx_ports++] = ports[i];
	}
	return 0;
}

/* --encap PORT:SLID:DLID:VESW */
static int
parse_encap(const char *arg)
{
	static const uint64_t max[4] = { UINT16_MAX, OPA16B_LID_MAX, OPA16B_LID_MAX,
					 OPA16B_VESW_ID_MAX };
	static const char *const what[4] = { "PORT", "SLID", "DLID", "VESW" };
	char buf[128], *field = buf, *colon;
	uint64_t v[4];
	unsigned int i;

	if (strlen(arg) >= sizeof(buf)) {
		fprintf(stderr, "l2fwd-vnic: --encap: too long\n");
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", arg);
	for (i = 0; i < 4; i++) {
		colon = strchr(field, ':');
		if ((colon == NULL) != (i == 3)) {
			fprintf(stderr, "l2fwd-vnic: --encap: '%s' is not "
				"PORT:SLID:DLID:VESW\n", arg);
			return -EINVAL;
		}
		if (colon != NULL)
			*colon = '\0';
		if (parse_num(field, 0, max[i], &v[i]) != 0) {
			fprintf(stderr, "l2fwd-vnic: --encap: %s '%s' is not a number in "
				"0..%" PRIu64 "\n", what[i], field, max[i]);
			return -EINVAL;
		}
		if (colon != NULL)
			field = colon + 1;
	}
	if (check_port("--encap", v[0]) != 0)
		return -ENODEV;
	app.fabric[v[0]].on = true;
	/* P_Key: full-member default partition, as opa16b-pcap writes */
	app.fabric[v[0]].f = (struct opa16b_vnic_fields){
		.slid = (uint32_t)v[1], .dlid = (uint32_t)v[2], .pkey = 0x8001,
		.vesw_id = (uint16_t)v[3],
	};
	return 0;
}

static int
parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "map", required_argument, NULL, 'm' },
		{ "mac-rewrite", no_argument, NULL, 'r' },
		{ "mac-swap", no_argument, NULL, 's' },
		{ "burst", required_argument, NULL, 'b' },
		{ "duration", required_argument, NULL, 'd' },
		{ "frames", required_argument, NULL, 'f' },
		{ "pipeline", required_argument, NULL, 'p' },
		{ "ring-size", required_argument, NULL, 'R' },
		{ "no-backpressure", no_argument, NULL, 'B' },
		{ "encap", required_argument, NULL, 'e' },
		{ "link-timeout", required_argument, NULL, 'L' },
		{ "xstats", no_argument, NULL, 'x' },
		{ "busy-poll", no_argument, NULL, 'P' },
		{ "hold", no_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *map = NULL;
	unsigned int nb_encap = 0, i;
	const char *encap[RTE_MAX_ETHPORTS];
	uint64_t v;
	int opt;

	while ((opt = getopt_long(argc, argv, "T:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'm': map = optarg; break;
		case 'r':
		case 's':
			if (app.mac_mode != MAC_KEEP) {
				fprintf(stderr, "l2fwd-vnic: --mac-rewrite and --mac-swap "
					"exclude each other\n");
				return -EINVAL;
			}
			app.mac_mode = opt == 'r' ? MAC_REWRITE : MAC_SWAP;
			break;
		case 'T':
			if (opt_num("-T", optarg, 0, 86400, &app.stats_period) != 0)
				return -EINVAL;
			break;
		case 'b':
			if (opt_num("--burst", optarg, 1, PIPE_BURST_MAX, &v) != 0)
				return -EINVAL;
			app.burst = (uint16_t)v;
			break;
		case 'd':
			if (opt_num("--duration", optarg, 0, 31536000, &app.duration) != 0)
				return -EINVAL;
			break;
		case 'f':
			if (opt_num("--frames", optarg, 1, UINT64_MAX, &app.frames) != 0)
				return -EINVAL;
			break;
		case 'p': app.pipeline = optarg; break;
		case 'R':
			if (opt_num("--ring-size", optarg, 1, 1u << 20, &v) != 0)
				return -EINVAL;
			app.ring_size = (uint32_t)v;
			break;
		case 'B': app.backpressure = false; break;
		case 'e':
			if (nb_encap == RTE_DIM(encap)) {
				fprintf(stderr, "l2fwd-vnic: too many --encap\n");
				return -EINVAL;
			}
			encap[nb_encap++] = optarg;
			break;
		case 'L':
			if (opt_num("--link-timeout", optarg, 0, 600, &app.link_timeout) != 0)
				return -EINVAL;
			break;
		case 'x': app.xstats = true; break;
		case 'P': app.busy_poll = true; break;
		case 'H': app.hold = true; break;
		case 'h':
			usage(stdout, argv[0]);
			exit(0);
		default:
			fprintf(stderr, "l2fwd-vnic: bad option (--help lists them)\n");
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "l2fwd-vnic: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	if ((map != NULL ? parse_map(map) : default_map()) != 0)
		return -EINVAL;
	for (i = 0; i < nb_encap; i++)
		if (parse_encap(encap[i]) != 0)
			return -EINVAL;
	for (i = 0; i < app.nb_rx_ports; i++) {
		app.used[app.rx_ports[i]] = true;
		app.used[app.map[app.rx_ports[i]]] = true;
		app.tx_target[app.map[app.rx_ports[i]]] = true;
	}
	for (i = 0; i < RTE_MAX_ETHPORTS; i++) {
		if (app.fabric[i].on && !app.used[i]) {
			fprintf(stderr, "l2fwd-vnic: --encap: port %u is not in the map\n", i);
			return -EINVAL;
		}
	}
	return 0;
}

/* ---- datapath ---- */

/* Per-flow entropy: 8 bits folded from a hash of the MAC addresses. */
static inline uint16_t
flow_entropy(const struct rte_mbuf *m)
{
	uint32_t h = rte_hash_crc(rte_pktmbuf_mtod(m, const void *), 12, 0);

	h ^= h >> 16;
	return (h ^ (h >> 8)) & 0xFF;
}

/* The work on a burst whose mbufs carry their rx port in m->port: decap
 * from a fabric port, MAC rewrite or swap, encap to a fabric port. Keeps the
 * good packets in order at the front and frees the others; returns how many
 * are kept.
 */
static uint16_t
process_burst(struct rte_mbuf **pkts, uint16_t n, struct lcore_ctr *c)
{
	uint16_t i, k = 0;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint16_t rxp = m->port, txp = app.map[rxp], vesw;
		struct rte_ether_hdr *eth;

		if (app.fabric[rxp].on) {
			/* a fabric port carries one vesw: others are not ours */
			if (opa16b_vnic_decap(m, app.mtu[txp], &vesw) != OPA16B_VNIC_RX_OK ||
			    vesw != app.fabric[rxp].f.vesw_id)
				goto drop_rx;
		}
		if (unlikely(m->data_len < RTE_ETHER_HDR_LEN))
			goto drop_rx;
		eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
		if (app.mac_mode == MAC_SWAP) {
			struct rte_ether_addr tmp = eth->dst_addr;

			eth->dst_addr = eth->src_addr;
			eth->src_addr = tmp;
		} else if (app.mac_mode == MAC_REWRITE) {
			eth->dst_addr = (struct rte_ether_addr){ { 0x02, 0, 0, 0, 0,
								   (uint8_t)txp } };
			eth->src_addr = app.mac[txp];
		}
		if (app.fabric[txp].on) {
			struct opa16b_vnic_fields f = app.fabric[txp].f;

			f.entropy = flow_entropy(m);
			if (opa16b_vnic_encap(m, &f) != 0) {
				c->port[txp].drop_encap++;
				rte_pktmbuf_free(m);
				continue;
			}
		}
		pkts[k++] = m;
		continue;
drop_rx:
		c->port[rxp].drop_rx++;
		rte_pktmbuf_free(m);
	}
	return k;
}

/* Send a burst on @port's queue @q, retrying a little; free and count the
 * rest. Returns how many were sent.
 */
static uint16_t
tx_send(uint16_t port, uint16_t q, struct rte_mbuf **pkts, uint16_t n, struct lcore_ctr *c)
{
	uint16_t sent = 0;
	unsigned int tries = 0;

	while (sent < n && tries++ < TX_RETRIES)
		sent += rte_eth_tx_burst(port, q, pkts + sent, n - sent);
	if (unlikely(sent < n)) {
		rte_pktmbuf_free_bulk(pkts + sent, n - sent);
		c->port[port].drop_tx += n - sent;
	}
	c->port[port].tx += sent;
	return sent;
}

/* Receive a burst from the next port of @a that has one; tags each mbuf with
 * its rx port (not every PMD sets m->port, net_ring does not).
 */
static uint16_t
rx_next(struct rx_assign *a, struct rte_mbuf **pkts, uint16_t n, struct lcore_ctr *c)
{
	uint16_t tries, i, k;

	for (tries = 0; tries < a->nb; tries++) {
		uint16_t port = a->ports[a->next];

		a->next = a->next + 1 == a->nb ? 0 : a->next + 1;
		k = rte_eth_rx_burst(port, 0, pkts, n);
		if (k == 0)
			continue;
		for (i = 0; i < k; i++)
			pkts[i]->port = port;
		c->port[port].rx += k;
		return k;
	}
	return 0;
}

/* ---- pipeline mode: the three stage callbacks ---- */

static uint16_t
stage_rx(void *arg, struct rte_mbuf **pkts, uint16_t n, const struct pipe_ctx *ctx)
{
	(void)arg;
	return rx_next(&app.assign[ctx->worker], pkts, n, &ctr[ctx->lcore_id]);
}

static uint16_t
stage_work(void *arg, struct rte_mbuf **pkts, uint16_t n, const struct pipe_ctx *ctx)
{
	(void)arg;
	return process_burst(pkts, n, &ctr[ctx->lcore_id]);
}

/* A burst may hold packets for several ports: send each run of packets
 * for one port in one call, keeping their order.
 */
static uint16_t
stage_tx(void *arg, struct rte_mbuf **pkts, uint16_t n, const struct pipe_ctx *ctx)
{
	struct lcore_ctr *c = &ctr[ctx->lcore_id];
	uint16_t i = 0, j, sent = 0;

	(void)arg;
	while (i < n) {
		uint16_t txp = app.map[pkts[i]->port];

		for (j = i + 1; j < n && app.map[pkts[j]->port] == txp; j++)
			;
		sent += tx_send(txp, ctx->worker, pkts + i, j - i, c);
		i = j;
	}
	return sent;
}

/* ---- plain mode: run to completion ---- */

/* One pass over the lcore's rx ports. @return frames received. */
static unsigned int
fwd_round(uint16_t idx, struct rte_mbuf **pkts)
{
	struct lcore_ctr *c = &ctr[rte_lcore_id()];
	struct rx_assign *a = &app.assign[idx];
	unsigned int got = 0;
	uint16_t i, n;

	for (i = 0; i < a->nb; i++) {
		n = rx_next(a, pkts, app.burst, c);
		if (n == 0)
			continue;
		got += n;
		n = process_burst(pkts, n, c);
		/* one rx port per burst: one tx port */
		if (n != 0)
			tx_send(app.map[pkts[0]->port], idx, pkts, n, c);
	}
	return got;
}

/*
 * Forward until told to quit. An lcore that finds nothing for IDLE_ROUNDS
 * rounds in a row sleeps, 1 us then twice as long each time up to
 * IDLE_MAX_US, until a frame comes: an idle forwarder leaves the CPU to
 * the rest of the machine (on a small one, to the fabric's other
 * processes) at the cost of up to IDLE_MAX_US of latency for the first
 * frame after a quiet spell. --busy-poll keeps it spinning.
 */
static int
fwd_lcore(void *arg)
{
	struct rte_mbuf *pkts[PIPE_BURST_MAX];
	uint16_t idx = (uint16_t)(uintptr_t)arg;
	unsigned int empty = 0, sleep_us = 1;

	while (!stopping()) {
		if (fwd_round(idx, pkts) > 0 || app.busy_poll) {
			empty = 0;
			sleep_us = 1;
		} else if (++empty >= IDLE_ROUNDS) {
			rte_delay_us_sleep(sleep_us);
			sleep_us = RTE_MIN(sleep_us * 2, (unsigned int)IDLE_MAX_US);
		}
	}
	return 0;
}

/* ---- ports and statistics ---- */

static int
port_setup(uint16_t port, struct rte_mempool *pool, uint16_t nb_txq)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	uint16_t nb_rxd = NB_RXD, nb_txd = NB_TXD, q;
	char name[RTE_ETH_NAME_MAX_LEN];
	int ret;

	memset(&conf, 0, sizeof(conf));
	ret = rte_eth_dev_info_get(port, &info);
	if (ret != 0)
		return ret;
	rte_eth_dev_get_name_by_port(port, name);
	/* a port nothing is sent to needs one tx queue, for ethdev */
	if (!app.tx_target[port])
		nb_txq = 1;
	if (info.max_tx_queues < nb_txq) {
		fprintf(stderr, "l2fwd-vnic: port %u (%s) has %u tx queues; %u sending lcores "
			"need one each: use fewer\n", port, name, info.max_tx_queues, nb_txq);
		return -ENOTSUP;
	}
	if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER)
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
	if (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS)
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	ret = rte_eth_dev_configure(port, 1, nb_txq, &conf);
	if (ret == 0)
		ret = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nb_rxd, &nb_txd);
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(port, 0, nb_rxd, rte_eth_dev_socket_id(port),
					     NULL, pool);
	for (q = 0; ret == 0 && q < nb_txq; q++)
		ret = rte_eth_tx_queue_setup(port, q, nb_txd, rte_eth_dev_socket_id(port),
					     NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(port);
	app.started[port] = ret == 0;
	if (ret != 0) {
		fprintf(stderr, "l2fwd-vnic: port %u (%s): setup failed: %s\n", port, name,
			rte_strerror(-ret));
		return ret;
	}
	ret = rte_eth_promiscuous_enable(port);
	if (ret != 0)
		L2FWD_LOG(WARNING, "port %u: promiscuous mode: %s", port, rte_strerror(-ret));
	rte_eth_macaddr_get(port, &app.mac[port]);
	if (rte_eth_dev_get_mtu(port, &app.mtu[port]) != 0)
		app.mtu[port] = RTE_ETHER_MTU;
	return 0;
}

/* Wait up to link_timeout for every used port's link; print each. */
static void
links_wait(void)
{
	uint64_t end = rte_get_timer_cycles() + app.link_timeout * rte_get_timer_hz();
	struct rte_eth_link link;
	char text[RTE_ETH_LINK_MAX_STR_LEN], name[RTE_ETH_NAME_MAX_LEN];
	bool all_up;
	uint16_t p;

	do {
		all_up = true;
		for (p = 0; p < RTE_MAX_ETHPORTS; p++) {
			if (app.used[p] && rte_eth_link_get_nowait(p, &link) == 0 &&
			    link.link_status == RTE_ETH_LINK_DOWN)
				all_up = false;
		}
		if (all_up || stopping())
			break;
		rte_delay_us_sleep(100 * 1000);
	} while (rte_get_timer_cycles() < end);
	for (p = 0; p < RTE_MAX_ETHPORTS; p++) {
		char mac[RTE_ETHER_ADDR_FMT_SIZE];

		if (!app.used[p])
			continue;
		memset(&link, 0, sizeof(link));
		rte_eth_link_get_nowait(p, &link);
		rte_eth_link_to_str(text, sizeof(text), &link);
		rte_eth_dev_get_name_by_port(p, name);
		rte_ether_format_addr(mac, sizeof(mac), &app.mac[p]);
		printf("port %u (%s): mac %s, %s", p, name, mac, text);
		if (app.map[p] != NO_PORT)
			printf(", forwards to port %u", app.map[p]);
		if (app.fabric[p].on)
			printf(", 16B fabric port (slid 0x%x dlid 0x%x vesw %u)",
			       app.fabric[p].f.slid, app.fabric[p].f.dlid,
			       app.fabric[p].f.vesw_id);
		printf("\n");
		if (link.link_status == RTE_ETH_LINK_DOWN)
			L2FWD_LOG(WARNING, "port %u: link down after %" PRIu64 " s",
				  p, app.link_timeout);
	}
}

static struct port_ctr
port_sum(uint16_t port)
{
	struct port_ctr s = { 0 };
	unsigned int l;

	/* another lcore may be adding: a relaxed 64-bit read does not tear */
	RTE_LCORE_FOREACH(l) {
		const struct port_ctr *c = &ctr[l].port[port];

		s.rx += __atomic_load_n(&c->rx, __ATOMIC_RELAXED);
		s.tx += __atomic_load_n(&c->tx, __ATOMIC_RELAXED);
		s.drop_tx += __atomic_load_n(&c->drop_tx, __ATOMIC_RELAXED);
		s.drop_rx += __atomic_load_n(&c->drop_rx, __ATOMIC_RELAXED);
		s.drop_encap += __atomic_load_n(&c->drop_encap, __ATOMIC_RELAXED);
	}
	return s;
}

static uint64_t
forwarded(void)
{
	uint64_t n = 0;
	uint16_t p;

	for (p = 0; p < RTE_MAX_ETHPORTS; p++)
		if (app.used[p])
			n += port_sum(p).tx;
	return n;
}

static void
print_ports(const char *title)
{
	struct port_ctr t = { 0 };
	uint16_t p;

	printf("%s\n", title);
	for (p = 0; p < RTE_MAX_ETHPORTS; p++) {
		struct port_ctr s;

		if (!app.used[p])
			continue;
		s = port_sum(p);
		printf("  port %u: rx %" PRIu64 " tx %" PRIu64 " dropped %" PRIu64
		       " (tx_full %" PRIu64 " rx_bad %" PRIu64 " encap %" PRIu64 ")\n", p,
		       s.rx, s.tx, s.drop_tx + s.drop_rx + s.drop_encap, s.drop_tx,
		       s.drop_rx, s.drop_encap);
		t.rx += s.rx;
		t.tx += s.tx;
		t.drop_tx += s.drop_tx + s.drop_rx + s.drop_encap;
	}
	printf("  total: rx %" PRIu64 " tx %" PRIu64 " dropped %" PRIu64 "\n", t.rx, t.tx,
	       t.drop_tx);
	fflush(stdout);
}

/* Main lcore duties: periodic statistics and the exit conditions. */
static void
housekeeping(uint64_t start, uint64_t *next_stats)
{
	uint64_t now = rte_get_timer_cycles(), hz = rte_get_timer_hz();

	if (app.duration != 0 && now - start >= app.duration * hz)
		done = true;
	if (app.frames != 0 && forwarded() >= app.frames)
		done = true;
	if (app.stats_period != 0 && now >= *next_stats) {
		print_ports("statistics:");
		*next_stats = now + app.stats_period * hz;
	}
}

/* Place the pipeline, spread the rx ports over its rx lcores. */
static struct pipe *
pipeline_make(void)
{
	const struct pipe_stage_conf stages[3] = {
		{ .name = "rx", .fn = stage_rx, .burst = app.burst },
		{ .name = "work", .fn = stage_work, .burst = app.burst,
		  .ring_size = app.ring_size },
		{ .name = "tx", .fn = stage_tx, .burst = app.burst,
		  .ring_size = app.ring_size },
	};
	struct pipe_conf pc = { .name = "l2fwd", .socket_id = (int)rte_socket_id() };
	char err[PIPE_ERR_LEN];
	struct pipe *p = pipe_create(&pc);
	unsigned int i;

	if (p == NULL)
		return NULL;
	for (i = 0; i < 3; i++) {
		struct pipe_stage_conf sc = stages[i];

		sc.flags = app.backpressure ? PIPE_STAGE_F_BACKPRESSURE : 0;
		if (pipe_stage_add(p, &sc) < 0) {
			pipe_destroy(p);
			return NULL;
		}
	}
	if (pipe_place(p, app.pipeline, err, sizeof(err)) != 0) {
		fprintf(stderr, "l2fwd-vnic: --pipeline '%s': %s\n", app.pipeline, err);
		pipe_destroy(p);
		return NULL;
	}
	for (i = 0; i < app.nb_rx_ports; i++) {
		struct rx_assign *a = &app.assign[i % pipe_stage_nb_workers(p, 0)];

		a->ports[a->nb++] = app.rx_ports[i];
	}
	if (pipe_stage_nb_workers(p, 0) > app.nb_rx_ports)
		L2FWD_LOG(WARNING, "%u rx lcores for %u rx ports: some stay idle",
			  pipe_stage_nb_workers(p, 0), app.nb_rx_ports);
	return p;
}

/* Plain mode: worker lcores forward (the main lcore if there are none),
 * at most one per rx port; each gets its share of the rx ports.
 */
static void
plain_assign(void)
{
	unsigned int l, i;

	app.nb_fwd = 0;
	RTE_LCORE_FOREACH_WORKER(l)
		if (app.nb_fwd < app.nb_rx_ports)
			app.fwd_lcores[app.nb_fwd++] = l;
	if (app.nb_fwd == 0)
		app.fwd_lcores[app.nb_fwd++] = rte_get_main_lcore();
	for (i = 0; i < app.nb_rx_ports; i++) {
		struct rx_assign *a = &app.assign[i % app.nb_fwd];

		a->ports[a->nb++] = app.rx_ports[i];
	}
}

/* Free what the ports still hold for us after forwarding stopped (a
 * loopback ring port may hold frames sent to itself). Bounded: a port may
 * never run dry (net_pcap's infinite_rx).
 */
static uint64_t
drain_ports(void)
{
	struct rte_mbuf *pkts[64];
	uint64_t freed = 0, port_freed;
	uint16_t i, n;

	for (i = 0; i < app.nb_rx_ports; i++) {
		port_freed = 0;
		while (port_freed < 4 * NB_RXD &&
		       (n = rte_eth_rx_burst(app.rx_ports[i], 0, pkts, RTE_DIM(pkts))) > 0) {
			rte_pktmbuf_free_bulk(pkts, n);
			port_freed += n;
		}
		freed += port_freed;
	}
	return freed;
}

/* The pool: every descriptor, ring slot, burst and cache may hold an mbuf. */
static struct rte_mempool *
pool_make(uint16_t nb_txq, unsigned int *nb_mbufs)
{
	struct rte_mempool *pool;
	unsigned int n;
	uint16_t p;

	n = 2 * app.ring_size + rte_lcore_count() * (3 * app.burst + MEMPOOL_CACHE);
	for (p = 0; p < RTE_MAX_ETHPORTS; p++)
		if (app.used[p])
			n += NB_RXD + nb_txq * NB_TXD;
	n = RTE_MAX(n + 1024, 8191u);
	pool = rte_pktmbuf_pool_create("l2fwd_vnic_pool", n, MEMPOOL_CACHE, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	if (pool == NULL)
		fprintf(stderr, "l2fwd-vnic: mbuf pool of %u: %s\n", n, rte_strerror(rte_errno));
	*nb_mbufs = n;
	return pool;
}

static void
print_mode(void)
{
	if (app.pipeline != NULL) {
		char spec[256];
		struct pipe_placement pl;

		pipe_placement_parse(app.pipeline, &pl, NULL, 0);
		pipe_placement_format(&pl, spec, sizeof(spec));
		printf("mode: pipeline %s, burst %u, rings %u, %s\n", spec, app.burst,
		       app.ring_size, app.backpressure ? "back-pressure" : "drop on full ring");
	} else {
		printf("mode: plain, %u forwarding lcore(s), burst %u\n", app.nb_fwd, app.burst);
	}
	printf("mac: %s\n", app.mac_mode == MAC_SWAP ? "swap" :
	       app.mac_mode == MAC_REWRITE ? "rewrite" : "unchanged");
	fflush(stdout);
}

/*
 * Forward until --duration, --frames or a signal, then stop the forwarders:
 * the pipeline drains its rings, lcores finish a round. The main lcore
 * forwards itself when no worker does (@p main_fwd).
 * @return 0, or -1 when the pipeline did not start.
 */
static int
run(struct pipe *pipe, bool main_fwd, uint64_t *start)
{
	struct rte_mbuf *pkts[PIPE_BURST_MAX];
	uint64_t next_stats, next_check, hz;
	unsigned int l;
	int ret;

	if (pipe != NULL) {
		ret = pipe_start(pipe);
		if (ret != 0) {
			fprintf(stderr, "l2fwd-vnic: pipeline start: %s\n", rte_strerror(-ret));
			return -1;
		}
	} else if (!main_fwd) {
		for (l = 0; l < app.nb_fwd; l++) {
			if (rte_eal_remote_launch(fwd_lcore, (void *)(uintptr_t)l,
						  app.fwd_lcores[l]) != 0) {
				fprintf(stderr, "l2fwd-vnic: lcore %u is busy\n",
					app.fwd_lcores[l]);
				done = true;
			}
		}
	}
	hz = rte_get_timer_hz();
	*start = rte_get_timer_cycles();
	next_stats = *start + app.stats_period * hz;
	next_check = *start;
	while (!stopping()) {
		if (main_fwd) {
			fwd_round(0, pkts);
			if (rte_get_timer_cycles() < next_check)
				continue;
			next_check = rte_get_timer_cycles() + hz / 1000;
		} else {
			rte_delay_us_sleep(1000);
		}
		housekeeping(*start, &next_stats);
	}
	if (pipe != NULL)
		pipe_stop(pipe);
	else if (!main_fwd)
		rte_eal_mp_wait_lcore();
	return 0;
}

static void
report(const struct pipe *pipe, uint64_t start, uint64_t drained)
{
	uint16_t p;

	print_ports("final statistics:");
	printf("forwarded %" PRIu64 " frames in %.3f s\n", forwarded(),
	       (double)(rte_get_timer_cycles() - start) / (double)rte_get_timer_hz());
	if (drained != 0)
		printf("freed %" PRIu64 " frames still queued on rx at exit\n", drained);
	if (pipe != NULL)
		pipe_stats_dump(pipe, stdout);
	for (p = 0; app.xstats && p < RTE_MAX_ETHPORTS; p++)
		if (app.used[p])
			omni_port_xstats_print(p);
}

int
main(int argc, char **argv)
{
	struct rte_mempool *pool = NULL;
	struct pipe *pipe = NULL;
	unsigned int nb_mbufs = 0;
	uint64_t start, drained;
	uint16_t p, nb_txq;
	int ret, status = EXIT_USAGE;
	bool main_fwd = false;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "l2fwd-vnic: EAL initialisation failed: %s\n",
			rte_strerror(rte_errno));
		return EXIT_FAIL;
	}
	if (parse_args(argc - ret, argv + ret) != 0)
		goto out;
	if (app.pipeline != NULL) {
		pipe = pipeline_make();
		if (pipe == NULL)
			goto out;
		nb_txq = pipe_stage_nb_workers(pipe, 2);
	} else {
		plain_assign();
		nb_txq = app.nb_fwd;
		main_fwd = app.fwd_lcores[0] == rte_get_main_lcore();
	}
	status = EXIT_FAIL;
	pool = pool_make(nb_txq, &nb_mbufs);
	if (pool == NULL)
		goto out;
	for (p = 0; p < RTE_MAX_ETHPORTS; p++)
		if (app.used[p] && port_setup(p, pool, nb_txq) != 0)
			goto out;
	omni_stop_on_signals();
	links_wait();
	print_mode();
	if (run(pipe, main_fwd, &start) != 0)
		goto out;
	drained = drain_ports();
	report(pipe, start, drained);
	if (app.hold && !omni_stop) {
		/*
		 * Nothing polls the ports now: a peer may go away safely (DPDK
		 * 22.11's memif unmaps its rings on a peer's disconnect, under a
		 * datapath still polling them).
		 */
		printf("holding the ports open until SIGINT/SIGTERM\n");
		fflush(stdout);
		while (!omni_stop)
			rte_delay_us_sleep(10000);
	}
	status = 0;
out:
	pipe_destroy(pipe);
	for (p = 0; p < RTE_MAX_ETHPORTS; p++)
		if (app.used[p])
			omni_port_close(p, app.started[p]);
	/*
	 * Then every port left, as testpmd does: a fabric port net_opa_vnic
	 * released on its last close is closed before EAL removes the vdevs
	 * in creation order (a started wire under it would refuse to close).
	 */
	omni_ports_close_all();
	/* ports closed: every mbuf must be back */
	if (!omni_pool_release(pool, nb_mbufs, status == 0))
		status = EXIT_FAIL;
	fflush(stdout);
	rte_eal_cleanup();
	return status;
}
