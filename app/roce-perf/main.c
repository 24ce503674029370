/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * roce-perf: perftest for lib/roce. Two software RoCE v2 devices in one
 * process, A (requester) and B (responder), each polled by its own lcore,
 * exchange RC traffic over rte_rings (or two ethdev ports) and the run
 * prints bandwidth, message rate or latency, checks the data and prints
 * both devices' counters. See doc/roce-perf.md.
 *
 *   roce-perf [EAL options] -- [--mode MODE] [--size BYTES] [--iters N |
 *             --duration S] [--qps N] [--mtu BYTES] [--tx-depth N]
 *             [--rx-depth N] [--buffers N] [--loss PM] [--reorder PM] [--dup PM]
 *             [--seed N] [--timeout CODE] [--verify] [--wire ring|ports[:P,Q]]
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>

#include <omni_num.h>
#include <omni_port.h>
#include <omni_signal.h>
#include "rperf.h"

#define EXIT_FAIL 1
#define EXIT_USAGE 2

static void
usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [EAL options] -- [options]\n"
		"Two lib/roce devices in this process, A (requester) on the main lcore and B\n"
		"(responder) on the next lcore, measure one RC operation.\n"
		"options:\n"
		"  --mode MODE      send_bw, write_bw, read_bw, send_lat, write_lat, read_lat\n"
		"                   (default send_bw)\n"
		"  --size BYTES     message size, 1..8M, suffix K or M allowed\n"
		"                   (default 64K for bw, 64 for lat)\n"
		"  --iters N        messages per QP (default 5000 bw, 1000 lat)\n"
		"  --duration S     run S seconds instead of --iters (decimals allowed)\n"
		"  --qps N          QP pairs, 1..%u (bw modes; default 1)\n"
		"  --mtu BYTES      path MTU 256, 512, 1024, 2048, 4096 (default 4096); the\n"
		"                   devices' Ethernet MTU is %u bytes more\n"
		"  --tx-depth N     send WRs in flight per QP (default 128 bw, 1 lat)\n"
		"  --rx-depth N     receive WRs posted per QP (default 512 bw, 16 lat)\n"
		"  --buffers N      message buffers per QP and direction, message i uses\n"
		"                   buffer i %% N; 1 is perftest's layout (default: one\n"
		"                   per WR in flight, up to 8 MiB)\n"
		"  --loss PM        frames lost on the wire, per mille (each direction)\n"
		"  --reorder PM     frames swapped with the next one, per mille\n"
		"  --dup PM         frames duplicated, per mille\n"
		"  --seed N         seed of the loss/reorder/dup choices (default 1)\n"
		"  --timeout CODE   local ACK timeout, 4.096 us << CODE, 1..31 (default 14,\n"
		"                   10 with loss, reorder or dup)\n"
		"  --retry N        retry count 0..7, 7 = for ever (default 7)\n"
		"  --verify         check every message's data, order and uniqueness (write_bw\n"
		"                   then uses WRITE with immediate, so B sees each message)\n"
		"  --wire KIND      ring (default): rte_rings in the process; ports[:P,Q]: A on\n"
		"                   ethdev port P, B on port Q (default 0,1) from the EAL\n"
		"                   arguments, e.g. a net_memif server/client pair\n"
		"  --help\n"
		"Exit status: 0 when every completion succeeded and the data checked out,\n"
		"1 on a failed completion, a data mismatch or a stall, 2 for a bad command line.\n",
		prog, RPERF_QPS_MAX, RPERF_MTU_OVERHEAD);
}

/* A size: a number with an optional K or M (binary) suffix. */
static bool
parse_size(const char *s, uint64_t max, uint64_t *out)
{
	char buf[32];
	size_t len = strlen(s);
	uint64_t mul = 1, v;

	if (len == 0 || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len + 1);
	if (buf[len - 1] == 'K' || buf[len - 1] == 'k')
		mul = 1024;
	else if (buf[len - 1] == 'M' || buf[len - 1] == 'm')
		mul = 1024 * 1024;
	if (mul != 1)
		buf[len - 1] = '\0';
	if (omni_parse_uint(buf, 0, max / mul, OMNI_NUM_DEC, &v) != 0)
		return false;
	*out = v * mul;
	return true;
}

static bool
parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !(v > 0) || v > 86400)
		return false;
	*out = v;
	return true;
}

static bool
parse_wire(const char *s, struct rperf_conf *c)
{
	uint64_t p, q;
	char buf[32];
	char *comma;

	if (strcmp(s, "ring") == 0) {
		c->wire = RPERF_WIRE_RING;
		return true;
	}
	if (strcmp(s, "ports") == 0) {
		c->wire = RPERF_WIRE_PORTS;
		return true;
	}
	if (strncmp(s, "ports:", 6) != 0 || strlen(s + 6) >= sizeof(buf))
		return false;
	snprintf(buf, sizeof(buf), "%s", s + 6);
	comma = strchr(buf, ',');
	if (comma == NULL)
		return false;
	*comma = '\0';
	if (omni_parse_uint(buf, 0, RTE_MAX_ETHPORTS - 1, OMNI_NUM_DEC, &p) != 0 ||
	    omni_parse_uint(comma + 1, 0, RTE_MAX_ETHPORTS - 1, OMNI_NUM_DEC, &q) != 0)
		return false;
	c->wire = RPERF_WIRE_PORTS;
	c->ports[0] = (uint16_t)p;
	c->ports[1] = (uint16_t)q;
	return true;
}

/* Parse the options into @p c. @return 0, 1 after --help, -1 on a bad one. */
static int
parse_args(int argc, char **argv, struct rperf_conf *c)
{
	static const struct option longopts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "size", required_argument, NULL, 's' },
		{ "iters", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'D' },
		{ "qps", required_argument, NULL, 'q' },
		{ "mtu", required_argument, NULL, 'M' },
		{ "tx-depth", required_argument, NULL, 't' },
		{ "rx-depth", required_argument, NULL, 'r' },
		{ "buffers", required_argument, NULL, 'B' },
		{ "loss", required_argument, NULL, 'L' },
		{ "reorder", required_argument, NULL, 'R' },
		{ "dup", required_argument, NULL, 'U' },
		{ "seed", required_argument, NULL, 'S' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "retry", required_argument, NULL, 'Y' },
		{ "verify", no_argument, NULL, 'V' },
		{ "wire", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	/* options are applied after --mode, whose defaults they override */
	const char *val[128] = { NULL };
	uint64_t v;
	int opt, mode = RPERF_SEND_BW;
	bool verify = false;

	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			usage(stdout, argv[0]);
			return 1;
		case 'V':
			verify = true;
			break;
		case 'm':
			mode = rperf_mode_parse(optarg);
			if (mode < 0) {
				fprintf(stderr, "roce-perf: --mode %s: not one of send_bw, "
					"write_bw, read_bw, send_lat, write_lat, read_lat\n",
					optarg);
				return -1;
			}
			break;
		case '?':
			fprintf(stderr, "roce-perf: bad option (--help lists them)\n");
			return -1;
		default:
			val[opt] = optarg;
			break;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "roce-perf: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	rperf_conf_init(c, (enum rperf_mode)mode);
	c->verify = verify;
#define NUM(ch, name, max, field) do { \
	if (val[ch] != NULL) { \
		if (omni_parse_uint(val[ch], 0, (max), OMNI_NUM_DEC, &v) != 0) { \
			fprintf(stderr, "roce-perf: %s %s: expected a number up to %lu\n", \
				(name), val[ch], (unsigned long)(max)); \
			return -1; \
		} \
		(field) = v; \
	} } while (0)
	if (val['s'] != NULL) {
		if (!parse_size(val['s'], ROCE_MAX_MSG_SIZE, &v) || v == 0) {
			fprintf(stderr, "roce-perf: --size %s: expected 1..8M bytes\n", val['s']);
			return -1;
		}
		c->size = (uint32_t)v;
	}
	NUM('n', "--iters", (unsigned long)1 << 46, c->iters);
	if (val['D'] != NULL) {
		if (!parse_seconds(val['D'], &c->duration)) {
			fprintf(stderr, "roce-perf: --duration %s: expected seconds, 0..86400\n",
				val['D']);
			return -1;
		}
		if (val['n'] != NULL) {
			fprintf(stderr, "roce-perf: --iters and --duration exclude each other\n");
			return -1;
		}
		c->iters = 0;
	}
	NUM('q', "--qps", RPERF_QPS_MAX, c->qps);
	NUM('M', "--mtu", 4096, c->mtu);
	NUM('t', "--tx-depth", 4096, c->tx_depth);
	NUM('r', "--rx-depth", 4096, c->rx_depth);
	NUM('B', "--buffers", 4096, c->buffers);
	if (val['B'] != NULL && c->buffers == 0) {
		fprintf(stderr, "roce-perf: --buffers 0: give 1..4096\n");
		return -1;
	}
	NUM('L', "--loss", 500, c->loss_pm);
	NUM('R', "--reorder", 1000, c->reorder_pm);
	NUM('U', "--dup", 1000, c->dup_pm);
	NUM('S', "--seed", UINT64_MAX, c->seed);
	NUM('T', "--timeout", 31, c->timeout);
	NUM('Y', "--retry", 7, c->retry_cnt);
#undef NUM
	if (val['T'] != NULL && c->timeout == 0) {
		fprintf(stderr, "roce-perf: --timeout 0 (none) would never retransmit\n");
		return -1;
	}
	if (val['w'] != NULL && !parse_wire(val['w'], c)) {
		fprintf(stderr, "roce-perf: --wire %s: expected ring, ports or ports:P,Q\n",
			val['w']);
		return -1;
	}
	return 0;
}

static void
print_setup(const struct rperf_conf *c)
{
	printf("roce-perf: %s, %u B messages, %u QP%s, path MTU %u (Ethernet MTU %u), "
	       "tx depth %u, rx depth %u, ", rperf_mode_name(c->mode), c->size, c->qps,
	       c->qps > 1 ? "s" : "", c->mtu, c->mtu + RPERF_MTU_OVERHEAD, c->tx_depth,
	       c->rx_depth);
	if (c->iters != 0)
		printf("%" PRIu64 " iterations", c->iters);
	else
		printf("%.3g s", c->duration);
	if (c->buffers != 0)
		printf(", %u buffer%s per QP and direction", c->buffers, c->buffers > 1 ? "s" : "");
	printf("%s\n", c->verify ? ", every message verified" : "");
	if (c->wire == RPERF_WIRE_PORTS)
		printf("roce-perf: wire: ethdev ports %u (A) and %u (B)", c->ports[0],
		       c->ports[1]);
	else
		printf("roce-perf: wire: rte_rings%s",
		       c->loss_pm || c->reorder_pm || c->dup_pm ?
		       " through a wire stage on each sender's lcore" :
		       " (A's tx ring is B's rx ring)");
	printf("; A on lcore %u, B on lcore %u\n", c->lcore[0], c->lcore[1]);
	if (c->loss_pm || c->reorder_pm || c->dup_pm)
		printf("roce-perf: injection: loss %u/1000, reorder %u/1000, dup %u/1000, "
		       "seed %" PRIu64 "\n", c->loss_pm, c->reorder_pm, c->dup_pm, c->seed);
}

static void
print_result(const struct rperf_conf *c, const struct rperf_result *r)
{
	if (rperf_mode_is_lat(c->mode)) {
		printf(" #bytes    #iterations  t_min[us]  t_p50[us]  t_p99[us]  t_p99.9[us]  "
		       "t_max[us]  t_avg[us]\n");
		printf(" %-9u %-12" PRIu64 " %-10.2f %-10.2f %-10.2f %-12.2f %-10.2f %-10.2f\n",
		       c->size, r->msgs, r->lat_min, r->lat_p50, r->lat_p99, r->lat_p999,
		       r->lat_max, r->lat_avg);
		printf("latency: %s, %" PRIu64 " samples over %.3f s\n",
		       c->mode == RPERF_READ_LAT ? "a whole READ (request to response)" :
		       "one way (round trip / 2, as perftest)", r->lat_samples, r->secs);
	} else {
		printf(" #bytes    #messages    #qps  time[s]    BW[Gb/s]   BW[MB/s]     "
		       "MsgRate[Mmsg/s]\n");
		printf(" %-9u %-12" PRIu64 " %-5u %-10.3f %-10.3f %-12.1f %-10.4f\n",
		       c->size, r->msgs, c->qps, r->secs, r->gbps, r->mbps, r->mmsgs);
	}
	if (c->verify)
		printf("verify: %" PRIu64 " messages checked one by one, in order", r->verified);
	else
		printf("verify: data pattern");
	printf("; %" PRIu64 " buffer%s checked at the end", r->checked_slots,
	       r->checked_slots == 1 ? "" : "s");
	if (r->delivered != 0)
		printf("; B received %" PRIu64 " messages, A completed %" PRIu64
		       ": each exactly once", r->delivered, r->msgs);
	printf("\n");
}

int
main(int argc, char **argv)
{
	struct rperf_conf conf;
	struct rperf_result res;
	char err[RPERF_ERR_LEN];
	unsigned int worker;
	int ret, status = EXIT_FAIL;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "roce-perf: EAL init failed: %s\n", rte_strerror(rte_errno));
		return EXIT_FAIL;
	}
	ret = parse_args(argc - ret, argv + ret, &conf);
	if (ret != 0) {
		status = ret > 0 ? 0 : EXIT_USAGE;
		goto out;
	}
	omni_stop_on_signals();
	/* net_memif writes its control socket without MSG_NOSIGNAL */
	signal(SIGPIPE, SIG_IGN);
	conf.stop = &omni_stop;
	conf.log = stdout;
	conf.lcore[0] = rte_get_main_lcore();
	worker = rte_get_next_lcore(-1, 1, 0);
	if (worker >= RTE_MAX_LCORE) {
		fprintf(stderr, "roce-perf: warning: one lcore: A and B take turns on lcore %u, "
			"so the figures are those of one core (give EAL -l with two lcores)\n",
			conf.lcore[0]);
		worker = conf.lcore[0];
	}
	conf.lcore[1] = worker;
	if (rperf_conf_check(&conf, err, sizeof(err)) != 0) {
		fprintf(stderr, "roce-perf: %s\n", err);
		status = EXIT_USAGE;
		goto out;
	}
	print_setup(&conf);
	ret = rperf_run(&conf, &res);
	if (res.msgs > 0 || ret == 0)
		print_result(&conf, &res);
	if (res.interrupted)
		printf("roce-perf: interrupted: the figures cover what completed before the "
		       "signal\n");
	if (res.mbufs != 0)
		printf("mbufs: %u of %u in the pool%s\n", res.mbufs_free, res.mbufs,
		       res.mbufs_free == res.mbufs ? "" : " (LEAK)");
	if (ret != 0) {
		fprintf(stderr, "roce-perf: FAIL: %s\n", res.err);
	} else if (res.mbufs_free != res.mbufs) {
		fprintf(stderr, "roce-perf: FAIL: %u mbufs not back in the pool\n",
			res.mbufs - res.mbufs_free);
	} else {
		printf("roce-perf: ok\n");
		status = 0;
	}
out:
	/* ports the run did not use (it closes its own) */
	omni_ports_close_all();
	fflush(stdout);
	rte_eal_cleanup();
	return status;
}
