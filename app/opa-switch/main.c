/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * opa-switch: a behavioural model of an Omni-Path edge switch. Every EAL
 * port is a switch port; 16B packets are forwarded by DLID through a linear
 * forwarding table given on the command line (what the SM would program),
 * multicast DLIDs are flooded, and everything else is dropped and counted
 * per port and reason. One lcore polls every port. A control FIFO takes
 * commands while it runs (a port's link down and up again, counters).
 *
 *   opa-switch [EAL options] -- [--route LID=PORT]... [--learn]
 *              [--stats-period S] [--duration S] [--control PATH]
 */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_mbuf.h>

#include <omni_num.h>
#include <omni_port.h>
#include <omni_signal.h>
#include "sw_ctl.h"
#include "sw_fwd.h"
#include "sw_park.h"
#include "sw_pcap.h"

RTE_LOG_REGISTER_DEFAULT(sw_logtype, NOTICE);
#define SW_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, sw_logtype, "opa-switch: " fmt "\n", ##__VA_ARGS__)

#define SW_BURST 32
#define SW_RX_DESC 512
#define SW_TX_DESC 512
/* tx_burst calls that take nothing before the rest is dropped as tx_full */
#define SW_TX_TRIES 4
/* longest stretch of polling with the interrupt thread parked */
#define SW_WINDOW_US 1000
/* idle sleep: doubles from MIN to MAX while nothing arrives */
#define SW_IDLE_MIN_US 50
#define SW_IDLE_MAX_US 500
/* control bytes read in one pass of the loop at most */
#define SW_CTL_READ_MAX 4096

struct sw_port_stats {
	uint64_t rx;
	uint64_t rx_bytes;
	uint64_t tx;
	uint64_t tx_bytes;
	/* forwarding kinds and drops; tx_full counted at the egress port */
	uint64_t v[SW_VERDICT_MAX];
	uint64_t admin_downs;	/* taken down through the control */
	uint64_t admin_ups;	/* brought up again through the control */
	uint64_t refused;	/* peer connections undone while admin down */
};

struct sw_port {
	uint16_t port_id;
	bool started;
	bool up;		/* link up and not admin down: forwarded to and from */
	bool admin_down;	/* taken down through the control */
	char name[RTE_ETH_NAME_MAX_LEN];
	uint16_t nb_tx;
	struct rte_mbuf *txq[SW_BURST];
	uint32_t txlen[SW_BURST];
	struct sw_port_stats st;
};

static struct sw_port ports[SW_PORTS_MAX];
static uint16_t nb_ports;
static uint64_t up_mask;
static struct sw_fwd_table table;
static uint64_t learn_events;
static uint64_t run_start;	/* timer cycles at the start of run() */
static char ctl_default[PATH_MAX];	/* the control FIFO without --control */

/* The control FIFO (--control), read by the forwarding loop. */
static struct {
	int fd;			/* -1: none */
	const char *path;
	bool made;		/* we made the FIFO: removed at exit */
	struct sw_ctl_reader rd;
	uint64_t commands;	/* lines that were commands, carried out */
	uint64_t refused;	/* lines refused */
} ctl = { .fd = -1 };
static bool capture;	/* --pcap: every packet received is written */
static unsigned int pool_size;

static void
usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [EAL options] -- [options]\n"
		"Every EAL port is a switch port (index = order of the ports).\n"
		"options:\n"
		"  --route LID=PORT   static LFT entry (repeatable); PORT is a port id\n"
		"                     or name; LID 1..0xefffff\n"
		"  --learn            also learn SLID -> ingress port for LIDs without a\n"
		"                     route, and flood unknown unicast (a model convenience)\n"
		"  --stats-period S   print the counters every S seconds (default 0: at exit)\n"
		"  --duration S       stop after S seconds (default 0: at SIGINT/SIGTERM)\n"
		"  --control PATH     read commands from the FIFO PATH (made if missing;\n"
		"                     default: opa-switch.ctl in EAL's runtime directory):\n"
		"                     " SW_CTL_USAGE "\n"
		"  --pcap PATH        write every packet received to PATH (pcap, linktype\n"
		"                     147: tshark -X lua_script:opa16b.lua reads it)\n",
		prog);
}

/* A port given by id or by name, as a switch port index; -1 if none. */
static int
port_index(const char *s)
{
	uint64_t id;
	uint16_t pid;
	uint16_t i;

	if (omni_parse_uint(s, 0, UINT16_MAX, OMNI_NUM_DEC, &id) == 0)
		pid = (uint16_t)id;
	else if (rte_eth_dev_get_port_by_name(s, &pid) != 0)
		return -1;
	for (i = 0; i < nb_ports; i++)
		if (ports[i].port_id == pid)
			return i;
	return -1;
}

static int
add_route(const char *arg)
{
	char lid_s[32];
	const char *eq = strchr(arg, '=');
	uint64_t lid;
	int idx, cur;

	if (eq == NULL || (size_t)(eq - arg) >= sizeof(lid_s)) {
		fprintf(stderr, "opa-switch: --route %s: expected LID=PORT\n", arg);
		return -1;
	}
	memcpy(lid_s, arg, eq - arg);
	lid_s[eq - arg] = '\0';
	if (omni_parse_uint(lid_s, 1, SW_LFT_SIZE - 1, OMNI_NUM_HEX, &lid) != 0) {
		fprintf(stderr, "opa-switch: --route %s: LID must be a unicast LID, 1..0x%x\n",
			arg, SW_LFT_SIZE - 1);
		return -1;
	}
	idx = port_index(eq + 1);
	if (idx < 0) {
		fprintf(stderr, "opa-switch: --route %s: no port '%s' (%u ports)\n", arg, eq + 1,
			nb_ports);
		return -1;
	}
	cur = sw_fwd_lookup(&table, (uint32_t)lid, NULL);
	if (cur >= 0 && cur != idx) {
		fprintf(stderr, "opa-switch: --route %s: LID %" PRIu64 " already goes to port %d\n",
			arg, lid, cur);
		return -1;
	}
	return sw_fwd_route_set(&table, (uint32_t)lid, (uint16_t)idx);
}

static int
port_start(struct sw_port *p, struct rte_mempool *pool)
{
	uint16_t nb_rxd = SW_RX_DESC, nb_txd = SW_TX_DESC;
	struct rte_eth_dev_info info;
	struct rte_eth_conf conf;
	int ret;

	memset(&conf, 0, sizeof(conf));
	ret = rte_eth_dev_info_get(p->port_id, &info);
	if (ret != 0)
		return ret;
	/* 16B packets reach 16376 bytes: chained mbufs where the port can */
	if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER)
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
	if (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS)
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	ret = rte_eth_dev_configure(p->port_id, 1, 1, &conf);
	if (ret == 0)
		ret = rte_eth_dev_adjust_nb_rx_tx_desc(p->port_id, &nb_rxd, &nb_txd);
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(p->port_id, 0, nb_rxd,
					     rte_eth_dev_socket_id(p->port_id), NULL, pool);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(p->port_id, 0, nb_txd,
					     rte_eth_dev_socket_id(p->port_id), NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(p->port_id);
	if (ret != 0)
		return ret;
	p->started = true;
	/* Ethernet filters and MTUs mean nothing to 16B packets; ports that
	 * cannot change them are used as they are */
	(void)rte_eth_promiscuous_enable(p->port_id);
	(void)rte_eth_dev_set_mtu(p->port_id, RTE_MIN(info.max_mtu, (uint16_t)OPA16B_PKT_MAX));
	return 0;
}

/*
 * Disconnect an admin-down port's peer. Stopping a port is what undoes a
 * net_memif connection, and ethdev skips the stop of a stopped port: start
 * it, then stop it again. Interrupt thread parked.
 */
static void
port_kick(struct sw_port *p)
{
	int ret = 0;

	if (!p->started)
		ret = rte_eth_dev_start(p->port_id);
	if (ret == 0)
		ret = rte_eth_dev_stop(p->port_id);
	p->started = false;
	if (ret != 0)
		SW_LOG(WARNING, "port %s: cannot stop: %s", p->name, rte_strerror(-ret));
}

/*
 * Link states; the interrupt thread is parked, so they hold until release.
 * An admin-down port is never up: a peer that connected to it anyway (a
 * stopped net_memif server still accepts clients) is disconnected again.
 */
static void
links_update(void)
{
	struct rte_eth_link link;
	uint16_t i;

	for (i = 0; i < nb_ports; i++) {
		struct sw_port *p = &ports[i];
		bool up = rte_eth_link_get_nowait(p->port_id, &link) == 0 &&
			link.link_status == RTE_ETH_LINK_UP;

		if (up && p->admin_down) {
			port_kick(p);
			p->st.refused++;
			SW_LOG(INFO, "port %u (%s) is admin down: its peer's connection undone",
			       i, p->name);
			up = false;
		}
		if (up == p->up)
			continue;
		p->up = up;
		if (up)
			up_mask |= UINT64_C(1) << i;
		else
			up_mask &= ~(UINT64_C(1) << i);
		printf("opa-switch: port %u (%s) link %s\n", i, p->name, up ? "up" : "down");
		if (!up && table.learn) {
			unsigned int n = sw_fwd_forget_port(&table, i);

			if (n > 0)
				printf("opa-switch: port %u: %u learned LIDs forgotten\n", i, n);
		}
	}
}

static void
tx_flush(struct sw_port *p)
{
	uint16_t sent = 0, i;
	unsigned int idle = 0;

	while (sent < p->nb_tx && idle < SW_TX_TRIES) {
		uint16_t n = rte_eth_tx_burst(p->port_id, 0, p->txq + sent, p->nb_tx - sent);

		/* lengths were taken before: a sent mbuf may be freed already */
		for (i = sent; i < sent + n; i++)
			p->st.tx_bytes += p->txlen[i];
		sent += n;
		idle = n == 0 ? idle + 1 : 0;
	}
	p->st.tx += sent;
	if (sent < p->nb_tx) {
		p->st.v[SW_DROP_TX_FULL] += p->nb_tx - sent;
		rte_pktmbuf_free_bulk(p->txq + sent, p->nb_tx - sent);
	}
	p->nb_tx = 0;
}

static void
forward(uint16_t in, struct rte_mbuf *m)
{
	struct sw_port_stats *st = &ports[in].st;
	uint8_t buf[OPA16B_LRH_LEN];
	uint32_t len = m->pkt_len;
	enum sw_verdict v;
	const void *hdr;
	uint64_t egress;

	st->rx++;
	st->rx_bytes += len;
	if (unlikely(capture))
		sw_pcap_write(m);
	/* the LRH may straddle segments */
	hdr = rte_pktmbuf_read(m, 0, RTE_MIN(len, (uint32_t)OPA16B_LRH_LEN), buf);
	if (hdr == NULL) {
		st->v[SW_DROP_SHORT]++;
		rte_pktmbuf_free(m);
		return;
	}
	if (table.learn && sw_fwd_learn(&table, hdr, len, in)) {
		learn_events++;
		SW_LOG(INFO, "learned LID %u on port %u", opa16b_get_slid(hdr), in);
	}
	v = sw_fwd_decide(&table, hdr, len, in, up_mask, &egress);
	st->v[v]++;
	if (sw_verdict_is_drop(v)) {
		rte_pktmbuf_free(m);
		return;
	}
	/* one mbuf, one reference per egress port; each PMD frees its own */
	if (__builtin_popcountll(egress) > 1)
		rte_pktmbuf_refcnt_update(m, (int16_t)(__builtin_popcountll(egress) - 1));
	while (egress != 0) {
		struct sw_port *out = &ports[__builtin_ctzll(egress)];

		egress &= egress - 1;
		out->txlen[out->nb_tx] = len;
		out->txq[out->nb_tx++] = m;
	}
}

/* One burst from every port whose link is up. @return packets received. */
static unsigned int
poll_once(void)
{
	struct rte_mbuf *pkts[SW_BURST];
	unsigned int total = 0;
	uint16_t i, j, n;

	for (i = 0; i < nb_ports; i++) {
		if (!ports[i].up)
			continue;
		n = rte_eth_rx_burst(ports[i].port_id, 0, pkts, SW_BURST);
		for (j = 0; j < n; j++)
			forward(i, pkts[j]);
		total += n;
		/* at most SW_BURST per egress port since the last flush */
		for (j = 0; j < nb_ports; j++)
			if (ports[j].nb_tx > 0)
				tx_flush(&ports[j]);
	}
	return total;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void
print_stats(const char *when, double secs)
{
	uint64_t rx = 0, tx = 0, dropped = 0;
	unsigned int v;
	uint16_t i;

	printf("opa-switch: %s counters after %.1f s\n", when, secs);
	for (i = 0; i < nb_ports; i++) {
		const struct sw_port_stats *st = &ports[i].st;

		printf("port=%u name=%s link=%s rx=%" PRIu64 " rx_bytes=%" PRIu64 " tx=%" PRIu64
		       " tx_bytes=%" PRIu64, i, ports[i].name, ports[i].up ? "up" : "down",
		       st->rx, st->rx_bytes, st->tx, st->tx_bytes);
		for (v = 0; v < SW_VERDICT_MAX; v++) {
			printf(" %s=%" PRIu64, sw_verdict_name(v), st->v[v]);
			if (sw_verdict_is_drop(v))
				dropped += st->v[v];
		}
		printf(" admin=%s admin_downs=%" PRIu64 " admin_ups=%" PRIu64 " refused=%" PRIu64
		       "\n", ports[i].admin_down ? "down" : "up", st->admin_downs, st->admin_ups,
		       st->refused);
		rx += st->rx;
		tx += st->tx;
	}
	printf("total rx=%" PRIu64 " tx=%" PRIu64 " dropped=%" PRIu64, rx, tx, dropped);
	if (table.learn)
		printf(" learned=%u learn_events=%" PRIu64 " learn_full=%" PRIu64,
		       table.nb_learned, learn_events, table.learn_full);
	if (ctl.fd >= 0)
		printf(" control_commands=%" PRIu64 " control_refused=%" PRIu64, ctl.commands,
		       ctl.refused);
	printf("\n");
	fflush(stdout);
}

static void
print_learned(void)
{
	uint32_t lids[SW_LEARN_MAX];
	uint32_t i, n = table.nb_learned;

	memcpy(lids, table.learned, n * sizeof(lids[0]));
	qsort(lids, n, sizeof(lids[0]), cmp_u32);
	for (i = 0; i < n; i++)
		printf("learned lid=%u port=%d\n", lids[i], sw_fwd_lookup(&table, lids[i], NULL));
	fflush(stdout);
}

/* ---- The control FIFO */

static void
ctl_refuse(const char *line, size_t len, const char *why)
{
	char q[100];

	sw_ctl_quote(line, len, q, sizeof(q));
	ctl.refused++;
	printf("opa-switch: control: refused \"%s\": %s\n", q, why);
}

/* link PORT down|up; interrupt thread parked. */
static void
ctl_link(const struct sw_ctl_cmd *cmd, const char *line, size_t len)
{
	char why[SW_CTL_ERR_MAX + SW_CTL_PORT_MAX];
	struct sw_port *p;
	int idx, ret;

	idx = port_index(cmd->port);
	if (idx < 0) {
		snprintf(why, sizeof(why), "no port '%s' (ports 0..%u, or their names)", cmd->port,
			 nb_ports - 1);
		ctl_refuse(line, len, why);
		return;
	}
	p = &ports[idx];
	ctl.commands++;
	if (cmd->up != p->admin_down) {
		printf("opa-switch: control: port %d (%s) is admin %s already\n", idx, p->name,
		       cmd->up ? "up" : "down");
		return;
	}
	if (!cmd->up) {
		/* links_update() then sees the link down and says so */
		p->admin_down = true;
		p->st.admin_downs++;
		printf("opa-switch: port %d (%s) admin down\n", idx, p->name);
		port_kick(p);
		return;
	}
	ret = rte_eth_dev_start(p->port_id);
	if (ret != 0) {
		printf("opa-switch: control: port %d (%s) cannot start: %s; still admin down\n",
		       idx, p->name, rte_strerror(-ret));
		return;
	}
	p->started = true;
	p->admin_down = false;
	p->st.admin_ups++;
	/* the link comes up when the peer connects again */
	printf("opa-switch: port %d (%s) admin up\n", idx, p->name);
}

static void
ctl_line(void *arg __rte_unused, const char *line, size_t len, bool too_long)
{
	char why[SW_CTL_ERR_MAX];
	struct sw_ctl_cmd cmd;

	if (too_long) {
		snprintf(why, sizeof(why), "longer than %u bytes", SW_CTL_LINE_MAX);
		ctl_refuse(line, len, why);
		return;
	}
	if (sw_ctl_parse(line, len, &cmd, why, sizeof(why)) != 0) {
		ctl_refuse(line, len, why);
		return;
	}
	switch (cmd.kind) {
	case SW_CTL_NONE:
		return;
	case SW_CTL_LINK:
		ctl_link(&cmd, line, len);
		return;
	case SW_CTL_STATS:
		ctl.commands++;
		print_stats("requested", (double)(rte_get_timer_cycles() - run_start) /
			    rte_get_timer_hz());
		return;
	case SW_CTL_HELP:
		ctl.commands++;
		printf("opa-switch: control: commands: " SW_CTL_USAGE "\n");
		return;
	}
}

/* What arrived on the control FIFO, a bounded amount a pass. */
static void
ctl_poll(void)
{
	char buf[512];
	size_t total = 0;
	ssize_t n;

	if (ctl.fd < 0)
		return;
	while (total < SW_CTL_READ_MAX && (n = read(ctl.fd, buf, sizeof(buf))) > 0) {
		sw_ctl_feed(&ctl.rd, buf, (size_t)n, ctl_line, NULL);
		total += (size_t)n;
	}
}

/*
 * Open (make, when missing) the control FIFO. Read-write: the switch never
 * sees an end of file as writers come and go, and a writer's open never
 * blocks while the switch runs. @return 0, or -1 after saying why.
 */
static int
ctl_open(const char *path)
{
	struct stat st;

	if (mkfifo(path, 0600) == 0)
		ctl.made = true;
	else if (errno != EEXIST)
		goto fail;
	ctl.fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (ctl.fd < 0)
		goto fail;
	if (fstat(ctl.fd, &st) != 0 || !S_ISFIFO(st.st_mode)) {
		fprintf(stderr, "opa-switch: --control %s: not a FIFO\n", path);
		close(ctl.fd);
		ctl.fd = -1;
		return -1;
	}
	ctl.path = path;
	return 0;
fail:
	fprintf(stderr, "opa-switch: --control %s: %s\n", path, strerror(errno));
	if (ctl.made)
		unlink(path);
	ctl.made = false;
	return -1;
}

static void
ctl_close(void)
{
	if (ctl.fd >= 0)
		close(ctl.fd);
	if (ctl.made)
		unlink(ctl.path);
	ctl.fd = -1;
	ctl.made = false;
}

static void
run(struct sw_park *park, double duration, double period)
{
	uint64_t hz = rte_get_timer_hz(), start = rte_get_timer_cycles();
	uint64_t window = hz / 1000000 * SW_WINDOW_US;
	uint64_t end = duration > 0 ? start + (uint64_t)(duration * hz) : UINT64_MAX;
	uint64_t period_c = (uint64_t)(period * hz);
	uint64_t next_stats = period > 0 ? start + period_c : UINT64_MAX;
	unsigned int idle_us = SW_IDLE_MIN_US;

	run_start = start;
	while (!omni_stop) {
		uint64_t now = rte_get_timer_cycles(), until;
		unsigned int n, total = 0;

		if (now >= end)
			break;
		if (now >= next_stats) {
			print_stats("periodic", (double)(now - start) / hz);
			next_stats += period_c;
		}
		if (sw_park_hold(park, &omni_stop, 0) != 0)
			break;
		/* commands first: a port they stop or start is seen at once */
		ctl_poll();
		links_update();
		until = rte_get_timer_cycles() + window;
		do {
			n = poll_once();
			total += n;
		} while (n > 0 && !omni_stop && rte_get_timer_cycles() < until);
		sw_park_release(park);
		if (total > 0) {
			idle_us = SW_IDLE_MIN_US;
		} else {
			rte_delay_us_sleep(idle_us);
			idle_us = RTE_MIN(idle_us * 2, (unsigned int)SW_IDLE_MAX_US);
		}
	}
	print_stats("final", (double)(rte_get_timer_cycles() - start) / hz);
	if (table.learn)
		print_learned();
}

/* What the options give besides the routes, which go straight into the table. */
struct sw_opts {
	uint64_t period, duration;
	unsigned int nb_routes;
	bool learn;
	const char *control;
	const char *pcap;
};

/* Every probed port is a switch port. @return 0, or -1 after saying why. */
static int
ports_collect(const char *prog)
{
	uint16_t pid;

	RTE_ETH_FOREACH_DEV(pid) {
		if (nb_ports == SW_PORTS_MAX) {
			fprintf(stderr, "opa-switch: more than %u ports\n", SW_PORTS_MAX);
			return -1;
		}
		ports[nb_ports].port_id = pid;
		if (rte_eth_dev_get_name_by_port(pid, ports[nb_ports].name) != 0)
			snprintf(ports[nb_ports].name, sizeof(ports[nb_ports].name), "port%u", pid);
		nb_ports++;
	}
	if (nb_ports == 0) {
		fprintf(stderr, "opa-switch: no ports (give them with --vdev or devices)\n");
		usage(prog);
		return -1;
	}
	return 0;
}

/*
 * The options, after ports_collect() (--route names ports) and with the
 * table ready. @return -1 to go on, or the exit status (0 after --help).
 */
static int
parse_args(int argc, char **argv, struct sw_opts *o)
{
	static const struct option longopts[] = {
		{ "route", required_argument, NULL, 'r' },
		{ "learn", no_argument, NULL, 'l' },
		{ "stats-period", required_argument, NULL, 's' },
		{ "duration", required_argument, NULL, 'd' },
		{ "control", required_argument, NULL, 'c' },
		{ "pcap", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		bool ok = true;

		switch (opt) {
		case 'r':
			ok = add_route(optarg) == 0;
			o->nb_routes++;
			optarg = NULL;	/* add_route() said why */
			break;
		case 'l':
			o->learn = true;
			break;
		case 's':
			ok = omni_parse_uint(optarg, 0, 86400, OMNI_NUM_DEC, &o->period) == 0;
			break;
		case 'd':
			ok = omni_parse_uint(optarg, 0, 86400 * 365, OMNI_NUM_DEC,
					     &o->duration) == 0;
			break;
		case 'c':
			ok = optarg[0] != '\0';
			o->control = optarg;
			break;
		case 'p':
			ok = optarg[0] != '\0';
			o->pcap = optarg;
			break;
		case 'h':
			usage(argv[0]);
			return 0;
		default:
			ok = false;
			optarg = NULL;
			break;
		}
		if (!ok) {
			if (optarg != NULL)
				fprintf(stderr, "opa-switch: bad value '%s'\n", optarg);
			usage(argv[0]);
			return 1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "opa-switch: unexpected argument '%s'\n", argv[optind]);
		usage(argv[0]);
		return 1;
	}
	return -1;
}

/* The pool and every port started on it. @return 0, or -1 after saying why. */
static int
ports_start(struct rte_mempool **pool)
{
	uint16_t i;
	int ret;

	pool_size = RTE_MAX(nb_ports * (SW_RX_DESC + SW_TX_DESC + 2 * SW_BURST) + 512u, 1023u);
	*pool = rte_pktmbuf_pool_create("sw_pool", pool_size, 256, 0,
					RTE_PKTMBUF_HEADROOM + 4096, rte_socket_id());
	if (*pool == NULL) {
		fprintf(stderr, "opa-switch: no mbuf pool: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	for (i = 0; i < nb_ports; i++) {
		ret = port_start(&ports[i], *pool);
		if (ret != 0) {
			fprintf(stderr, "opa-switch: port %u (%s) cannot start: %s\n", i,
				ports[i].name, rte_strerror(-ret));
			return -1;
		}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct sw_opts o = { 0 };
	struct rte_mempool *pool = NULL;
	struct sw_park *park = NULL;
	int ret, rc = 1;
	uint16_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "opa-switch: EAL init failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	argc -= ret;
	argv += ret;
	omni_stop_on_signals();
	/* net_memif writes its control socket without MSG_NOSIGNAL: a peer that
	 * vanished must not kill the switch */
	signal(SIGPIPE, SIG_IGN);
	park = sw_park_create();
	if (park == NULL)
		SW_LOG(WARNING,
		       "cannot park the interrupt thread: a memif peer leaving may crash us");
	if (ports_collect(argv[0]) != 0)
		goto out;
	if (sw_fwd_table_init(&table, nb_ports, false) != 0) {
		fprintf(stderr, "opa-switch: no memory for the forwarding table\n");
		goto out;
	}
	ret = parse_args(argc, argv, &o);
	if (ret >= 0) {
		rc = ret;
		goto out;
	}
	table.learn = o.learn;
	if (o.control != NULL) {
		if (ctl_open(o.control) != 0)
			goto out;
	} else {
		/* By default in EAL's runtime directory (private to the user, gone
		 * with the file-prefix): any switch can be flapped. */
		snprintf(ctl_default, sizeof(ctl_default), "%s/opa-switch.ctl",
			 rte_eal_get_runtime_dir());
		if (ctl_open(ctl_default) != 0)
			SW_LOG(WARNING, "no control FIFO: the switch runs without one");
	}
	if (ports_start(&pool) != 0)
		goto out;
	if (o.pcap != NULL) {
		if (sw_pcap_open(o.pcap) != 0)
			goto out;
		capture = true;
		printf("opa-switch: capturing every packet received to %s\n", o.pcap);
	}
	for (i = 0; i < nb_ports; i++)
		printf("opa-switch: port %u: %s\n", i, ports[i].name);
	if (ctl.fd >= 0)
		printf("opa-switch: control: %s\n", ctl.path);
	printf("opa-switch: %u ports, %u routes, learning %s; forwarding\n", nb_ports,
	       o.nb_routes, o.learn ? "on" : "off");
	run(park, (double)o.duration, (double)o.period);
	rc = 0;
out:
	/*
	 * The interrupt thread stays parked from here to the process's end:
	 * memif tears its rings down on close, and closing a memif server
	 * frees its listener's interrupt handle without unregistering it
	 * (DPDK 22.11), so that thread's next look at its sources (EAL
	 * cleanup makes it look) would read freed memory.
	 */
	if (sw_park_hold(park, NULL, 2000) != 0)
		SW_LOG(WARNING, "interrupt thread not parked for shutdown");
	/* closing also removes a memif server's socket file */
	for (i = 0; i < nb_ports; i++)
		omni_port_close(ports[i].port_id, ports[i].started);
	if (capture) {
		uint64_t written, failed;

		sw_pcap_close(&written, &failed);
		printf("opa-switch: pcap: %" PRIu64 " packets written to %s, %" PRIu64 " failed\n",
		       written, o.pcap, failed);
	}
	/* ports closed: every mbuf is back (said, and a leak fails the exit) */
	if (!omni_pool_release(pool, pool_size, rc == 0))
		rc = 1;
	sw_fwd_table_free(&table);
	ctl_close();
	rte_eal_cleanup();
	return rc;
}
