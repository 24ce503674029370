/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * The options of the interoperability modes, --pingpong and --perftest:
 * one device of ours against a real RoCE stack, with the peer's own
 * out-of-band exchange over TCP. main.c reads the rest.
 */

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ether.h>

#include <omni_bytes.h>
#include <omni_num.h>
#include "vperf.h"
#include "vperf_arp.h"

#define PERFTEST_PORT 18515   /* perftest's -p default (perftest_parameters.h DEF_PORT) */
#define RPING_PORT 7174       /* rping's -p default */

#define num_opt(name, val, min, max, out) \
	omni_num_opt("vrdma-perf", name, val, min, max, OMNI_NUM_DEC, out)

const char *
vperf_interop_usage(void)
{
	return "interoperability, one device (-a) against a real RoCE stack, with its\n"
		"out-of-band exchange over TCP:\n"
		"  --pingpong rc|ud  serve one ibv_rc_pingpong / ibv_ud_pingpong client,\n"
		"                    --iters exchanges of --size bytes (defaults as theirs:\n"
		"                    1000, 4096 rc, 2048 ud; rx-depth 500)\n"
		"  --perftest TEST   send_bw, write_bw, read_bw, atomic_bw, send_lat,\n"
		"                    write_lat, read_lat or atomic_lat (RC): be perftest's\n"
		"                    ib_TEST, the server (--listen) or the client\n"
		"                    (--connect); defaults as theirs: 65536 B (atomic_*:\n"
		"                    8, the only size; _lat: 2),\n"
		"                    1000 messages (write_bw 5000), tx-depth 128 (_lat: 1),\n"
		"                    rx-depth 512; atomic_bw's --atomic-type: theirs -A\n"
		"  --cm              connect through the IB CM over the GSI QP (as the\n"
		"                    Linux RDMA CM) and be rdmacm-utils' rping: the server\n"
		"                    (--listen PORT, theirs: rping -s -p PORT) or the client\n"
		"                    (--connect IPV4 --port PORT: rping -c -a IPV4 -p PORT);\n"
		"                    --size is their -S (default 64, 26..65535), --iters\n"
		"                    their -C (client default 10; server: 0, as many as the\n"
		"                    client sends), --verify their -V (the server also\n"
		"                    checks each ping it reads is rping's)\n"
		"  --cm-retries N    --cm: resends of an unanswered REQ or DREQ, 0..15\n"
		"                    (default 15, as Linux's RDMA CM; each waits 4.3 s)\n"
		"  --ud              --perftest send_bw over UD QPs (theirs: -c UD); a message\n"
		"                    fits one packet of the path MTU\n"
		"  --listen PORT     serve on this TCP port (theirs: 18515)\n"
		"  --connect IPV4    --perftest or --cm client: the server's address\n"
		"  --port PORT       its TCP port (default 18515 --perftest, 7174 --cm)\n"
		"  --gid-ip ADDR     our address: IPv4 (GID ::ffff:ADDR) or IPv6 (the GID);\n"
		"                    ARP or neighbour solicitations for it are answered\n"
		"  --peer-mac MAC    the peer's Ethernet address (default: asked for by\n"
		"                    ARP or neighbour solicitation)\n"
		"  --accept-timeout S  wait S seconds for the peer (default 300)\n"
		"  --ib-mtu N        path MTU: --pingpong as the client's -m (default 1024,\n"
		"                    theirs); --perftest our port's (default: the device's),\n"
		"                    the lower of the two ends' is used\n";
}

int
vperf_interop_opt(int c, const char *arg)
{
	uint64_t v;

	switch (c) {
	case 'W':
		opt.mode = CM_RPING;
		return 1;
	case 'X':
		if (!num_opt("cm-retries", arg, 0, 15, &v))
			return -1;
		opt.cm_retries = (uint8_t)v;
		opt.cm_retries_set = true;
		return 1;
	case 'P':
		if (strcmp(arg, "rc") != 0 && strcmp(arg, "ud") != 0) {
			fprintf(stderr, "vrdma-perf: --pingpong '%s': expected rc or ud\n", arg);
			return -1;
		}
		opt.mode = arg[0] == 'r' ? PINGPONG_RC : PINGPONG_UD;
		return 1;
	case 'Q': {
		static const struct {
			const char *name;
			enum mode test;
		} tests[] = {
			{ "send_bw", SEND_BW }, { "write_bw", WRITE_BW }, { "read_bw", READ_BW },
			{ "atomic_bw", ATOMIC_BW }, { "send_lat", SEND_LAT },
			{ "write_lat", WRITE_LAT }, { "read_lat", READ_LAT },
			{ "atomic_lat", ATOMIC_LAT },
		};
		unsigned int k;

		for (k = 0; k < RTE_DIM(tests); k++)
			if (strcmp(arg, tests[k].name) == 0)
				break;
		if (k == RTE_DIM(tests)) {
			fprintf(stderr, "vrdma-perf: --perftest '%s': expected send_bw, write_bw, "
				"read_bw, atomic_bw, send_lat, write_lat, read_lat or atomic_lat\n",
				arg);
			return -1;
		}
		opt.mode = PERFTEST;
		opt.pt_test = tests[k].test;
		return 1;
	}
	case 'L':
		if (!num_opt("listen", arg, 1, 65535, &v))
			return -1;
		opt.listen_port = (uint16_t)v;
		return 1;
	case 'N': {
		struct in_addr a;

		if (inet_pton(AF_INET, arg, &a) != 1 || a.s_addr == 0) {
			fprintf(stderr, "vrdma-perf: --connect '%s': expected an IPv4 address\n",
				arg);
			return -1;
		}
		opt.connect_ip = ntohl(a.s_addr);
		return 1;
	}
	case 'D':
		opt.pt_ud = true;
		return 1;
	case 'p':
		if (!num_opt("port", arg, 1, 65535, &v))
			return -1;
		opt.connect_port = (uint16_t)v;
		return 1;
	case 'G': {
		struct in_addr a;

		if (inet_pton(AF_INET, arg, &a) == 1 && a.s_addr != 0) {
			vperf_gid_v4(opt.gid, ntohl(a.s_addr));
		} else if (inet_pton(AF_INET6, arg, opt.gid) != 1 || vperf_gid_is_v4(opt.gid) ||
			   opt.gid[0] == 0xff || omni_get_be64(opt.gid) == 0) {
			fprintf(stderr, "vrdma-perf: --gid-ip '%s': expected an IPv4 or a "
				"unicast IPv6 address\n", arg);
			return -1;
		}
		opt.gid_set = true;
		return 1;
	}
	case 'M': {
		struct rte_ether_addr m;

		if (rte_ether_unformat_addr(arg, &m) != 0 || !rte_is_unicast_ether_addr(&m)) {
			fprintf(stderr, "vrdma-perf: --peer-mac '%s': expected a unicast MAC\n",
				arg);
			return -1;
		}
		memcpy(opt.peer_mac, m.addr_bytes, 6);
		opt.peer_mac_set = true;
		return 1;
	}
	case 'T':
		if (!num_opt("accept-timeout", arg, 1, 86400, &v))
			return -1;
		opt.accept_secs = (unsigned int)v;
		return 1;
	case 'U':
		if (!num_opt("ib-mtu", arg, 256, 4096, &v) || !rte_is_power_of_2(v)) {
			fprintf(stderr, "vrdma-perf: --ib-mtu: 256, 512, 1024, 2048 or 4096\n");
			return -1;
		}
		opt.ib_mtu = (uint32_t)v;
		opt.ib_mtu_set = true;
		return 1;
	default:
		return 0;
	}
}

/* --pingpong: one device, the exchange's port, our address, the peer's MAC. */
static int
pingpong_args(void)
{
	if (opt.sock[0] == NULL || opt.sock[1] != NULL || opt.listen_port == 0 || !opt.gid_set) {
		fprintf(stderr, "vrdma-perf: --pingpong needs -a SOCKET, --listen PORT and "
			"--gid-ip ADDRESS (and no -b)\n");
		return -1;
	}
	/* as ibv_rc_pingpong and ibv_ud_pingpong default */
	if (opt.size == 0)
		opt.size = opt.mode == PINGPONG_RC ? 4096 : 2048;
	if (opt.iters == 0)
		opt.iters = 1000;
	if (opt.rx_depth == 0)
		opt.rx_depth = 500;
	/* a slot per receive and one to send from */
	opt.tx_depth = RTE_MIN(opt.rx_depth + 1, (uint32_t)MAX_DEPTH);
	if (opt.rx_depth >= MAX_DEPTH)
		opt.rx_depth = MAX_DEPTH - 1;
	if (opt.ib_mtu == 0)
		opt.ib_mtu = 1024;
	return 0;
}

/* --perftest: one device, server (--listen) or client (--connect), our address. */
static int
perftest_args(void)
{
	if (opt.sock[0] == NULL || opt.sock[1] != NULL || !opt.gid_set ||
	    (opt.listen_port == 0) == (opt.connect_ip == 0)) {
		fprintf(stderr, "vrdma-perf: --perftest needs -a SOCKET, --gid-ip ADDRESS and "
			"either --listen PORT or --connect IPV4 (and no -b)\n");
		return -1;
	}
	if (opt.pt_ud && opt.pt_test != SEND_BW) {
		fprintf(stderr, "vrdma-perf: --ud is for --perftest send_bw\n");
		return -1;
	}
	if (opt.connect_port != 0 && opt.connect_ip == 0) {
		fprintf(stderr, "vrdma-perf: --port is the --connect server's\n");
		return -1;
	}
	if (opt.connect_port == 0)
		opt.connect_port = PERFTEST_PORT;
	if (vperf_atomics() && opt.size != 0 && opt.size != 8) {
		fprintf(stderr, "vrdma-perf: --size %u: an atomic moves 8 bytes\n", opt.size);
		return -1;
	}
	if (opt.atomic_type_set && !vperf_atomics()) {
		fprintf(stderr, "vrdma-perf: --atomic-type is for atomic_bw and atomic_lat\n");
		return -1;
	}
	/* perftest's defaults (perftest_parameters.c init_perftest_params) */
	if (vperf_atomics())
		opt.size = 8;
	if (opt.size == 0)
		opt.size = vperf_pt_lat() ? 2 : 65536;
	/* a latency test keeps one message in flight */
	if (vperf_pt_lat())
		opt.tx_depth = 1;
	if (opt.iters == 0)
		opt.iters = opt.pt_test == WRITE_BW ? 5000 : 1000;
	if (opt.tx_depth == 0)
		opt.tx_depth = 128;
	if (opt.rx_depth == 0)
		opt.rx_depth = 512;
	/* a receive beyond the run is never used (theirs: rx-depth at most iters) */
	if (opt.rx_depth > opt.iters)
		opt.rx_depth = (uint32_t)opt.iters;
	return 0;
}

/* --cm: one device, server (--listen) or client (--connect), our address; rping's sizes. */
static int
cm_args(void)
{
	if (opt.sock[0] == NULL || opt.sock[1] != NULL || !opt.gid_set ||
	    (opt.listen_port == 0) == (opt.connect_ip == 0)) {
		fprintf(stderr, "vrdma-perf: --cm needs -a SOCKET, --gid-ip ADDRESS and either "
			"--listen PORT or --connect IPV4 (and no -b)\n");
		return -1;
	}
	if (opt.connect_port != 0 && opt.connect_ip == 0) {
		fprintf(stderr, "vrdma-perf: --port is the --connect server's\n");
		return -1;
	}
	if (opt.connect_port == 0)
		opt.connect_port = RPING_PORT;
	if (!opt.cm_retries_set)
		opt.cm_retries = 15;
	if (opt.size == 0)
		opt.size = 64;
	if (opt.size < 26 || opt.size > 65535) {
		fprintf(stderr, "vrdma-perf: --cm --size %u: rping's sizes are 26..65535\n",
			opt.size);
		return -1;
	}
	if (opt.iters == 0 && opt.connect_ip != 0)
		opt.iters = 10;
	/* rping's queues: 16 sends, one receive (a few slots: source, sink, messages) */
	opt.tx_depth = 16;
	opt.rx_depth = 4;
	return 0;
}

int
vperf_interop_args(void)
{
	if (opt.pt_ud && opt.mode != PERFTEST) {
		fprintf(stderr, "vrdma-perf: --ud is for --perftest\n");
		return -1;
	}
	if (opt.connect_ip != 0 && opt.mode != PERFTEST && opt.mode != CM_RPING) {
		fprintf(stderr, "vrdma-perf: --connect is for --perftest and --cm\n");
		return -1;
	}
	if (opt.accept_secs == 0)
		opt.accept_secs = 300;
	if (opt.cm_retries_set && opt.mode != CM_RPING) {
		fprintf(stderr, "vrdma-perf: --cm-retries is for --cm\n");
		return -1;
	}
	if (opt.mode == CM_RPING)
		return cm_args();
	return opt.mode == PERFTEST ? perftest_args() : pingpong_args();
}
