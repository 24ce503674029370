/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * vrdma-perf: perftest for virtio-net RoCE devices, from the driver side.
 * It plays the guest driver (lib/vufront's vuf_rdma) of two devices served
 * by vhost-user-rdma, A (requester) on the main lcore and B (responder) on
 * the next, and measures one operation between them the way ib_send_bw,
 * ib_write_bw, ib_read_bw, ib_send_lat, ib_atomic_bw and ib_write_lat do. See
 * doc/vrdma-perf.md.
 *
 *   vrdma-perf [EAL options] -- -a SOCKET -b SOCKET [--mode MODE]
 *       [--size BYTES] [--iters N] [--tx-depth N] [--rx-depth N] [--verify]
 *       [--atomic-type TYPE] [--qp-timeout N] [--retry-cnt N] [--tclass N]
 */

#include <endian.h>
#include <errno.h>
#include <arpa/inet.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_atomic.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_pause.h>

#include <omni_bytes.h>
#include <omni_num.h>
#include <omni_signal.h>

#include "vperf.h"
#include "vperf_arp.h"

/* RC timeout and retries as perftest's defaults (-u 14, 7 retries) */
struct vperf_opt opt = { .roce_bit = 55, .ctrl_class = 6, .qp_timeout = 14, .retry_cnt = 7 };

/*
 * How long without progress is a stall: STALL_SECS (INTEROP_STALL_SECS with a
 * guest peer), or longer when an RC QP may legitimately wait longer for an
 * ACK: its retry window, the ACK timeout (4.096 us << --qp-timeout) times the
 * tries (--retry-cnt + 1), plus a second. (--qp-timeout 0 waits for ever and
 * --retry-cnt 7 retries for ever: a wait as long as that is a stall, reported
 * after the floor.)
 */
static unsigned int
stall_secs_of_opts(void)
{
	unsigned int floor = opt.mode == PINGPONG_RC || opt.mode == PINGPONG_UD ||
		opt.mode == PERFTEST || opt.mode == CM_RPING ? INTEROP_STALL_SECS : STALL_SECS;
	double window;

	if (opt.qp_timeout == 0 || opt.retry_cnt == 7)
		return floor;
	window = 4.096e-6 * (double)(1ull << opt.qp_timeout) * (opt.retry_cnt + 1) + 1.0;
	return window > floor ? (unsigned int)window + 1 : floor;
}

/* the stall limit, worked out once the options are read (the loops test it at every turn) */
static unsigned int stall_limit = STALL_SECS;

unsigned int
stall_secs(void)
{
	return stall_limit;
}
static const char *const mode_names[] = { "send_bw", "write_bw", "read_bw", "send_lat",
					   "ud_send_bw", "atomic_bw", "write_lat" };
/* atomic_bw --verify, FETCH_AND_ADD: the originals seen, one bit per value 0..iters-1 */
static uint8_t *seen;

static struct side sa = { .name = "A" }, sb = { .name = "B" };
static volatile bool failed;

static int write_lat(struct side *me, const struct side *peer, bool ping);

static void
usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [EAL options] -- -a SOCKET -b SOCKET [options]\n"
		"Drives two virtio-net RoCE devices (vhost-user-rdma sockets) as their guest\n"
		"driver: A (requester) on the main lcore, B (responder) on the next lcore.\n"
		"options:\n"
		"  -a, -b SOCKET     the two devices' vhost-user sockets\n"
		"  --mode MODE       send_bw, write_bw, read_bw, send_lat, ud_send_bw,\n"
		"                    atomic_bw, write_lat (default send_bw)\n"
		"  --size BYTES      message size (default 64; RC up to 1 MiB, UD up to the\n"
		"                    path MTU; atomic_bw: 8, the only size)\n"
		"  --iters N         messages (default 100000 bw, 10000 lat)\n"
		"  --tx-depth N      requests in flight, 1..%u (default 128 bw, 1 lat)\n"
		"  --rx-depth N      receives posted, 1..%u (default 256)\n"
		"  --verify          check every message's bytes and order (write_bw then\n"
		"                    writes with immediate, so B sees each message;\n"
		"                    atomic_bw checks every original and B's final counter;\n"
		"                    write_lat fills and checks whole messages, not only\n"
		"                    the last bytes it polls)\n"
		"  --atomic-type T   atomic_bw: fetch_and_add (default: add 1 to B's counter)\n"
		"                    or cmp_and_swap (compare i, swap i + 1)\n"
		"  --qp-timeout N    RC local ACK timeout, 4.096 us << N, 0..31 (default 14;\n"
		"                    0: none), as perftest's -u\n"
		"  --retry-cnt N     RC transport retries, 0..7 (default 7; the engine reads 7\n"
		"                    as for ever)\n"
		"  --tclass N        the traffic class of A's and B's packets, 0..255 (default\n"
		"                    0; as perftest's --tclass): on a backend with --vlan its top\n"
		"                    3 bits are the frames' PCP\n"
		"  --roce-bit N      the devices' RoCE feature bit (default 55)\n"
		"  --ctrl-class N    their RoCE control class (default 6)\n"
		"%s"
		"Exit status: 0 when every completion succeeded (and the data checked out),\n"
		"1 on a failure or a stall of %u s (longer when --qp-timeout and --retry-cnt\n"
		"let an RC QP wait longer), 2 for a bad command line.\n",
		prog, MAX_DEPTH, MAX_DEPTH, vperf_interop_usage(), STALL_SECS);
}

/* an option's number, or a line saying what was expected */
#define num_opt(name, val, min, max, out) \
	omni_num_opt("vrdma-perf", name, val, min, max, OMNI_NUM_DEC, out)

static int
parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "size", required_argument, NULL, 's' },
		{ "iters", required_argument, NULL, 'n' },
		{ "tx-depth", required_argument, NULL, 't' },
		{ "rx-depth", required_argument, NULL, 'r' },
		{ "verify", no_argument, NULL, 'v' },
		{ "atomic-type", required_argument, NULL, 'A' },
		{ "qp-timeout", required_argument, NULL, 'O' },
		{ "retry-cnt", required_argument, NULL, 'Y' },
		{ "tclass", required_argument, NULL, 'K' },
		{ "roce-bit", required_argument, NULL, 'R' },
		{ "ctrl-class", required_argument, NULL, 'C' },
		{ "pingpong", required_argument, NULL, 'P' },
		{ "listen", required_argument, NULL, 'L' },
		{ "gid-ip", required_argument, NULL, 'G' },
		{ "peer-mac", required_argument, NULL, 'M' },
		{ "accept-timeout", required_argument, NULL, 'T' },
		{ "ib-mtu", required_argument, NULL, 'U' },
		{ "perftest", required_argument, NULL, 'Q' },
		{ "connect", required_argument, NULL, 'N' },
		{ "port", required_argument, NULL, 'p' },
		{ "ud", no_argument, NULL, 'D' },
		{ "cm", no_argument, NULL, 'W' },
		{ "cm-retries", required_argument, NULL, 'X' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	unsigned int i;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "a:b:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			opt.sock[0] = optarg;
			break;
		case 'b':
			opt.sock[1] = optarg;
			break;
		case 'm':
			for (i = 0; i < RTE_DIM(mode_names); i++)
				if (strcmp(optarg, mode_names[i]) == 0)
					break;
			if (i == RTE_DIM(mode_names)) {
				fprintf(stderr, "vrdma-perf: --mode '%s': expected send_bw, "
					"write_bw, read_bw, send_lat, ud_send_bw, atomic_bw or "
					"write_lat\n", optarg);
				return -1;
			}
			opt.mode = (enum mode)i;
			break;
		case 's':
			if (!num_opt("size", optarg, 1, 1u << 20, &v))
				return -1;
			opt.size = (uint32_t)v;
			break;
		case 'n':
			if (!num_opt("iters", optarg, 1, 1000000000, &v))
				return -1;
			opt.iters = v;
			break;
		case 't':
			if (!num_opt("tx-depth", optarg, 1, MAX_DEPTH, &v))
				return -1;
			opt.tx_depth = (uint32_t)v;
			break;
		case 'r':
			if (!num_opt("rx-depth", optarg, 1, MAX_DEPTH, &v))
				return -1;
			opt.rx_depth = (uint32_t)v;
			break;
		case 'v':
			opt.verify = true;
			break;
		case 'A':
			if (strcmp(optarg, "cmp_and_swap") != 0 &&
			    strcmp(optarg, "fetch_and_add") != 0) {
				fprintf(stderr, "vrdma-perf: --atomic-type '%s': expected "
					"cmp_and_swap or fetch_and_add\n", optarg);
				return -1;
			}
			opt.cmp_swap = optarg[0] == 'c';
			opt.atomic_type_set = true;
			break;
		case 'O':
			if (!num_opt("qp-timeout", optarg, 0, 31, &v))
				return -1;
			opt.qp_timeout = (uint8_t)v;
			break;
		case 'Y':
			if (!num_opt("retry-cnt", optarg, 0, 7, &v))
				return -1;
			opt.retry_cnt = (uint8_t)v;
			break;
		case 'K':
			if (!num_opt("tclass", optarg, 0, 255, &v))
				return -1;
			opt.tclass = (uint8_t)v;
			break;
		case 'R':
			if (!num_opt("roce-bit", optarg, 0, 63, &v))
				return -1;
			opt.roce_bit = (unsigned int)v;
			break;
		case 'C':
			if (!num_opt("ctrl-class", optarg, 0, 255, &v))
				return -1;
			opt.ctrl_class = (unsigned int)v;
			break;
		case 'h':
			usage(stdout, argv[0]);
			exit(0);
		default:
			ret = vperf_interop_opt(c, optarg);
			if (ret < 0)
				return -1;
			if (ret == 0) {
				usage(stderr, argv[0]);
				return -1;
			}
			break;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "vrdma-perf: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (opt.mode == PINGPONG_RC || opt.mode == PINGPONG_UD || opt.mode == PERFTEST ||
	    opt.mode == CM_RPING)
		return vperf_interop_args();
	if (opt.sock[0] == NULL || opt.sock[1] == NULL) {
		fprintf(stderr, "vrdma-perf: give both devices' sockets: -a SOCKET -b SOCKET\n");
		return -1;
	}
	if (opt.atomic_type_set && opt.mode != ATOMIC_BW) {
		fprintf(stderr, "vrdma-perf: --atomic-type is for --mode atomic_bw\n");
		return -1;
	}
	if (opt.mode == ATOMIC_BW && opt.size != 0 && opt.size != 8) {
		fprintf(stderr, "vrdma-perf: --size %u: an atomic moves 8 bytes\n", opt.size);
		return -1;
	}
	if (opt.mode == ATOMIC_BW)
		opt.size = 8;
	if (opt.size == 0)
		opt.size = 64;
	if (opt.iters == 0)
		opt.iters = opt.mode == SEND_LAT || opt.mode == WRITE_LAT ? 10000 : 100000;
	if (opt.tx_depth == 0)
		opt.tx_depth = opt.mode == SEND_LAT || opt.mode == WRITE_LAT ? 1 : 128;
	if (opt.rx_depth == 0)
		opt.rx_depth = 256;
	return 0;
}

/* ---------------- message contents ---------------- */

/* Byte k of message @p seq: its number in the first 8 bytes, then a pattern. */
static void
msg_fill(uint8_t *p, uint64_t seq, uint32_t len)
{
	uint32_t k;

	for (k = 0; k < len; k++)
		p[k] = k < 8 ? (uint8_t)(seq >> (8 * k)) : (uint8_t)(seq * 7 + k);
}

static bool
msg_check(const uint8_t *p, uint64_t seq, uint32_t len)
{
	uint32_t k;

	for (k = 0; k < len; k++)
		if (p[k] != (k < 8 ? (uint8_t)(seq >> (8 * k)) : (uint8_t)(seq * 7 + k)))
			return false;
	return true;
}

/* ---------------- set-up ---------------- */

/* A side's message slots: one per request or receive; write_lat: slot 0 the peer writes, 1 ours */
static uint32_t
vperf_slots(void)
{
	return RTE_MAX(RTE_MAX(opt.tx_depth, opt.rx_depth), opt.mode == WRITE_LAT ? 2u : 1u);
}

int
side_fail(const struct side *s, const char *what, int rc)
{
	fprintf(stderr, "vrdma-perf: device %s: %s: %s\n", s->name, what, strerror(-rc));
	return -1;
}

/* What MRs and RC QPs grant: everything the mode needs (atomics only for atomic_bw). */
static uint32_t
rc_access(void)
{
	return VRDMA_ACCESS_LOCAL_WRITE | VRDMA_ACCESS_REMOTE_WRITE | VRDMA_ACCESS_REMOTE_READ |
		(vperf_atomics() ? VRDMA_ACCESS_REMOTE_ATOMIC : 0);
}

int
side_open(struct side *s, const char *path, const uint8_t gid[16])
{
	bool ud = vperf_ud();
	/* room for every slot, the rings and the requests the driver builds */
	size_t need = (size_t)vperf_slots() * (opt.size + GRH_LEN + 64);
	struct vuf_rdma_conf vc = {
		.path = path, .mem_size = RTE_ALIGN_CEIL(need + (16u << 20), 1u << 20),
		.gpa_base = GPA_BASE, .roce_bit = opt.roce_bit,
		.ctrl_class = (uint8_t)opt.ctrl_class, .timeout_ms = 5000,
	};
	struct vrdma_cmd_create_qp q = {
		.qp_type = ud ? VRDMA_QPT_UD : VRDMA_QPT_RC,
		.cap = { .max_send_wr = htole32(opt.tx_depth), .max_recv_wr = htole32(opt.rx_depth),
			 .max_send_sge = htole32(1), .max_recv_sge = htole32(1) },
	};
	struct vrdma_cmd_add_gid g = { .index = 0 };
	char err[160];
	int rc;

	s->d = vuf_rdma_open(&vc, err, sizeof(err));
	if (s->d == NULL) {
		fprintf(stderr, "vrdma-perf: device %s (%s): %s\n", s->name, path, err);
		return -1;
	}
	vuf_rdma_addr(s->d, s->mac, &s->mtu);
	memcpy(s->gid, gid, sizeof(s->gid));
	if (vperf_atomics()) {
		/* what a guest's verbs driver reads before it offers atomics */
		struct vrdma_ack_query_device qd;

		rc = vuf_rdma_cmd(s->d, VRDMA_CMD_QUERY_DEVICE, NULL, 0, &qd, sizeof(qd));
		if (rc != 0)
			return side_fail(s, "QUERY_DEVICE", rc);
		if (qd.atomic_cap == VRDMA_ATOMIC_NONE) {
			fprintf(stderr, "vrdma-perf: device %s (%s): no atomics (QUERY_DEVICE's "
				"atomic_cap is NONE)\n", s->name, path);
			return -1;
		}
	}
	memcpy(g.gid, s->gid, sizeof(g.gid));
	rc = vuf_rdma_cmd(s->d, VRDMA_CMD_ADD_GID, &g, sizeof(g), NULL, 0);
	if (rc != 0)
		return side_fail(s, "ADD_GID", rc);
	s->slots = vperf_slots();
	s->slot = RTE_ALIGN_CEIL(opt.size + (ud ? GRH_LEN : 0), 64);
	s->buf = vuf_mem_alloc(vuf_rdma_mem(s->d), (size_t)s->slots * s->slot, 4096);
	if (s->buf == NULL)
		return side_fail(s, "buffers", -ENOMEM);
	rc = vuf_rdma_create_pd(s->d, &s->pdn);
	if (rc == 0)
		rc = vuf_rdma_create_cq(s->d, 2 * MAX_DEPTH, &s->cqn);
	if (rc == 0)
		rc = vuf_rdma_reg_mr(s->d, s->pdn, s->buf, (uint64_t)s->slots * s->slot,
				     rc_access(), &s->lkey, &s->rkey);
	if (rc != 0)
		return side_fail(s, "PD, CQ or MR", rc);
	q.pdn = htole32(s->pdn);
	q.send_cqn = q.recv_cqn = htole32(s->cqn);
	rc = vuf_rdma_create_qp(s->d, &q, &s->qpn);
	if (rc != 0)
		return side_fail(s, "CREATE_QP", rc);
	return 0;
}

static int
modify(struct side *s, uint8_t state, uint32_t mask, struct vrdma_cmd_modify_qp *m)
{
	int rc;

	m->qpn = htole32(s->qpn);
	m->qp_state = state;
	m->attr_mask = htole32(mask | VRDMA_QP_ATTR_STATE);
	rc = vuf_rdma_modify_qp(s->d, m);
	return rc == 0 ? 0 : side_fail(s, "MODIFY_QP", rc);
}

/* The largest IB MTU an Ethernet MTU carries (RoCE needs 80 bytes more). */
uint8_t
path_mtu(uint16_t eth_mtu, uint32_t *bytes)
{
	uint32_t room = eth_mtu - 80u, b = 4096;
	uint8_t code = VRDMA_MTU_4096;

	while (b > room && code > VRDMA_MTU_256) {
		b /= 2;
		code--;
	}
	*bytes = b;
	return code;
}

/*
 * The path MTU agreed with an interop peer, which is not exchanged: --ib-mtu
 * when the device's Ethernet MTU carries it; a larger one given on the command
 * line is refused (the peer would use it and fail with no hint), a larger
 * default is lowered and said. Without --ib-mtu in --perftest: the device's.
 * Returns the MTU code, or -1 (said on stderr).
 */
int
peer_path_mtu(uint16_t eth_mtu, uint32_t *bytes)
{
	uint8_t code = path_mtu(eth_mtu, bytes);

	if (opt.ib_mtu == 0 || opt.ib_mtu == *bytes)
		return code;
	if (opt.ib_mtu > *bytes) {
		if (opt.ib_mtu_set) {
			fprintf(stderr, "vrdma-perf: --ib-mtu %u: the device's Ethernet MTU %u "
				"carries a path MTU of %u at most\n", opt.ib_mtu, eth_mtu, *bytes);
			return -1;
		}
		fprintf(stderr, "vrdma-perf: path MTU %u, not the default %u: the device's "
			"Ethernet MTU is %u (the peer must use -m %u)\n", *bytes, opt.ib_mtu,
			eth_mtu, *bytes);
		return code;
	}
	while (*bytes > opt.ib_mtu) {
		*bytes /= 2;
		code--;
	}
	return code;
}

int
rc_connect(struct side *s, const struct vperf_peer *peer, uint8_t mtu)
{
	struct vrdma_cmd_modify_qp m;

	memset(&m, 0, sizeof(m));
	m.a.qp_access_flags = htole32(rc_access());
	if (modify(s, VRDMA_QPS_INIT, VRDMA_QP_ATTR_ACCESS_FLAGS, &m) != 0)
		return -1;
	memset(&m, 0, sizeof(m));
	m.path_mtu = mtu;
	m.max_dest_rd_atomic = 16;
	m.min_rnr_timer = 1;
	m.a.dest_qp_num = htole32(peer->qpn);
	m.a.rq_psn = htole32(peer->psn);
	memcpy(m.a.ah_attr.grh.dgid, peer->gid, 16);
	m.a.ah_attr.grh.hop_limit = 64;
	m.a.ah_attr.grh.traffic_class = opt.tclass;
	memcpy(m.a.ah_attr.dmac, peer->mac, 6);
	if (modify(s, VRDMA_QPS_RTR, VRDMA_QP_ATTR_AV | VRDMA_QP_ATTR_PATH_MTU | VRDMA_QP_ATTR_RQ_PSN |
		   VRDMA_QP_ATTR_MAX_DEST_RD_ATOMIC | VRDMA_QP_ATTR_MIN_RNR_TIMER | VRDMA_QP_ATTR_DEST_QPN, &m) != 0)
		return -1;
	memset(&m, 0, sizeof(m));
	m.timeout = opt.qp_timeout;
	m.retry_cnt = opt.retry_cnt;
	m.rnr_retry = 7;
	m.max_rd_atomic = 16;
	m.a.sq_psn = htole32(s->psn);
	return modify(s, VRDMA_QPS_RTS, VRDMA_QP_ATTR_TIMEOUT | VRDMA_QP_ATTR_RETRY_CNT | VRDMA_QP_ATTR_RNR_RETRY |
		      VRDMA_QP_ATTR_SQ_PSN | VRDMA_QP_ATTR_MAX_QP_RD_ATOMIC, &m);
}

int
ud_connect(struct side *s, const struct vperf_peer *peer)
{
	struct vrdma_cmd_create_ah ah = { .pdn = htole32(s->pdn) };
	struct vrdma_ack_handle h;
	struct vrdma_cmd_modify_qp m;
	int rc;

	memset(&m, 0, sizeof(m));
	m.a.qkey = htole32(QKEY);
	if (modify(s, VRDMA_QPS_INIT, VRDMA_QP_ATTR_QKEY, &m) != 0)
		return -1;
	memset(&m, 0, sizeof(m));
	if (modify(s, VRDMA_QPS_RTR, 0, &m) != 0)
		return -1;
	memset(&m, 0, sizeof(m));
	m.a.sq_psn = htole32(s->psn);
	if (modify(s, VRDMA_QPS_RTS, VRDMA_QP_ATTR_SQ_PSN, &m) != 0)
		return -1;
	memcpy(ah.ah_attr.grh.dgid, peer->gid, 16);
	ah.ah_attr.grh.hop_limit = 64;
	ah.ah_attr.grh.traffic_class = opt.tclass;
	memcpy(ah.ah_attr.dmac, peer->mac, 6);
	rc = vuf_rdma_cmd(s->d, VRDMA_CMD_CREATE_AH, &ah, sizeof(ah), &h, sizeof(h));
	if (rc != 0)
		return side_fail(s, "CREATE_AH", rc);
	s->ahn = le32toh(h.handle);
	return 0;
}

static struct vperf_peer
peer_of(const struct side *s)
{
	struct vperf_peer p = { .qpn = s->qpn, .psn = s->psn };

	memcpy(p.gid, s->gid, sizeof(p.gid));
	memcpy(p.mac, s->mac, sizeof(p.mac));
	return p;
}

/* ---------------- the data path ---------------- */

struct vrdma_sge
side_sge(const struct side *s, uint32_t slot, uint32_t len)
{
	struct vrdma_sge g = {
		.addr = htole64(vuf_rdma_gpa(s->d, s->buf + (size_t)slot * s->slot)),
		.length = htole32(len),
		.lkey = htole32(s->lkey),
	};

	return g;
}

/* Post receives @p first.. @p first + n - 1 (slot = id % slots). @return posted. */
static unsigned int
post_recvs(struct side *s, uint64_t first, unsigned int n)
{
	uint32_t len = opt.size + (vperf_ud() ? GRH_LEN : 0);
	struct vrdma_sge g[MAX_DEPTH];
	uint64_t ids[MAX_DEPTH];
	unsigned int i, done = 0;

	for (i = 0; i < n; i++) {
		ids[i] = first + i;
		g[i] = side_sge(s, (uint32_t)(ids[i] % s->slots), len);
	}
	vuf_rdma_post_recv_list(s->d, s->qpn, ids, g, 1, n, &done);
	return done;
}

/*
 * A: post requests @p first.. as one list; a request is signaled every
 * SIGNAL-th (every tx_depth-th when fewer may be in flight: else none of
 * them would ever complete), and the last of the run. @return posted.
 */
static unsigned int
post_requests(struct side *a, const struct side *b, uint64_t first, unsigned int n,
	      bool all_signaled)
{
	static struct vrdma_sq_req r[MAX_DEPTH];
	const struct vrdma_sq_req *rp[MAX_DEPTH];
	struct vrdma_sge g[MAX_DEPTH];
	const struct vrdma_sge *gp[MAX_DEPTH];
	const uint32_t every = RTE_MIN((uint32_t)SIGNAL, opt.tx_depth);
	unsigned int i, done = 0;

	for (i = 0; i < n; i++) {
		uint64_t seq = first + i;
		uint32_t slot = (uint32_t)(seq % a->slots);

		memset(&r[i], 0, offsetof(struct vrdma_sq_req, inline_data));
		memset(r[i].reserved2, 0, sizeof(r[i].reserved2));
		r[i].wr_id = htole64(seq);
		r[i].num_sge = htole32(1);
		if (all_signaled || seq % every == every - 1 || seq + 1 == opt.iters)
			r[i].send_flags = VRDMA_SEND_SIGNALED;
		switch (opt.mode) {
		case WRITE_BW:
			r[i].opcode = opt.verify ? VRDMA_WR_RDMA_WRITE_WITH_IMM : VRDMA_WR_RDMA_WRITE;
			r[i].imm_data = htobe32((uint32_t)seq);
			r[i].rdma.remote_addr = htole64(vuf_rdma_gpa(b->d, b->buf +
								     (size_t)slot * b->slot));
			r[i].rdma.rkey = htole32(b->rkey);
			break;
		case READ_BW:
			r[i].opcode = VRDMA_WR_RDMA_READ;
			r[i].rdma.remote_addr = htole64(vuf_rdma_gpa(b->d, b->buf +
								     (size_t)slot * b->slot));
			r[i].rdma.rkey = htole32(b->rkey);
			break;
		case ATOMIC_BW:
			/* B's counter, the first 8 bytes of its buffer: + 1, or i -> i + 1 */
			r[i].opcode = opt.cmp_swap ? VRDMA_WR_ATOMIC_CMP_AND_SWP :
				VRDMA_WR_ATOMIC_FETCH_AND_ADD;
			r[i].atomic.remote_addr = htole64(vuf_rdma_gpa(b->d, b->buf));
			r[i].atomic.rkey = htole32(b->rkey);
			r[i].atomic.compare_add = htole64(opt.cmp_swap ? seq : 1);
			r[i].atomic.swap = htole64(opt.cmp_swap ? seq + 1 : 0);
			break;
		case UD_SEND_BW:
			r[i].opcode = VRDMA_WR_SEND;
			r[i].ud.remote_qpn = htole32(b->qpn);
			r[i].ud.remote_qkey = htole32(QKEY);
			r[i].ud.ah = htole32(a->ahn);
			break;
		default:
			r[i].opcode = VRDMA_WR_SEND;
			break;
		}
		/* a READ must fill its slot: clear what an earlier one left */
		if (opt.verify && opt.mode == READ_BW)
			memset(a->buf + (size_t)slot * a->slot, 0, opt.size);
		else if (opt.verify && opt.mode == ATOMIC_BW)
			/* an original that never lands reads as no value of the run */
			memset(a->buf + (size_t)slot * a->slot, 0xff, 8);
		else if (opt.verify)
			msg_fill(a->buf + (size_t)slot * a->slot, seq, opt.size);
		g[i] = side_sge(a, slot, opt.size);
		rp[i] = &r[i];
		gp[i] = &g[i];
	}
	vuf_rdma_post_send_list(a->d, a->qpn, rp, gp, n, &done);
	return done;
}

bool
vperf_wc_ok(const struct vrdma_cq_req *wc, const char *dev)
{
	if (wc->status == VRDMA_WC_SUCCESS)
		return true;
	fprintf(stderr, "vrdma-perf: %s%s%scompletion error: %s (wr_id %" PRIu64 ")\n",
		dev != NULL ? "device " : "", dev != NULL ? dev : "", dev != NULL ? ": " : "",
		vrdma_wc_status_str(wc->status), le64toh(wc->wr_id));
	return false;
}

/* A failed completion: said (vperf_wc_ok()) and counted. */
static void
wc_failed(struct side *s, const struct vrdma_cq_req *wc)
{
	vperf_wc_ok(wc, s->name);
	s->errors++;
	failed = true;
}

/* B: take receive completions, check them, post the receives again. */
static int
responder(void *arg)
{
	struct side *b = arg;
	bool ud = opt.mode == UD_SEND_BW, lat = opt.mode == SEND_LAT;
	uint32_t off = ud ? GRH_LEN : 0;
	struct vrdma_cq_req wc[POLL_BURST];
	uint64_t next_recv = 0, sent = 0;
	int n, i;

	if (opt.mode == WRITE_LAT)
		return write_lat(b, &sa, false);
	/* B only receives in send, UD and verified write modes */
	if (opt.mode == READ_BW || opt.mode == ATOMIC_BW || (opt.mode == WRITE_BW && !opt.verify))
		return 0;
	next_recv = post_recvs(b, 0, opt.rx_depth);
	while (!failed && !omni_stop && b->done < opt.iters) {
		n = vuf_rdma_poll_cq(b->d, b->cqn, wc, POLL_BURST);
		for (i = 0; i < n; i++) {
			uint64_t id = le64toh(wc[i].wr_id);

			if (wc[i].status != VRDMA_WC_SUCCESS) {
				wc_failed(b, &wc[i]);
				return -1;
			}
			if (wc[i].opcode != VRDMA_WC_RECV && wc[i].opcode != VRDMA_WC_RECV_RDMA_WITH_IMM)
				continue; /* a reply's send completion (send_lat) */
			if (opt.verify) {
				uint64_t seq = opt.mode == WRITE_BW ? be32toh(wc[i].imm_data) : b->done;
				const uint8_t *p = b->buf + (size_t)(id % b->slots) * b->slot + off;

				if (opt.mode == WRITE_BW)
					p = b->buf + (size_t)(seq % b->slots) * b->slot;
				if ((uint32_t)seq != (uint32_t)b->done ||
				    (opt.mode != WRITE_BW &&
				     le32toh(wc[i].byte_len) != opt.size + off) ||
				    !msg_check(p, seq, opt.size)) {
					fprintf(stderr, "vrdma-perf: B: message %" PRIu64
						" has wrong data, length or order\n", b->done);
					b->errors++;
					failed = true;
					return -1;
				}
			}
			if (b->done == 0)
				b->t_first = rte_get_timer_cycles();
			__atomic_store_n(&b->done, b->done + 1, __ATOMIC_RELEASE);
			if (lat) {
				/* the pong: a signaled SEND of the same size */
				if (post_requests(b, &sa, sent, 1, true) != 1) {
					failed = true;
					return -1;
				}
				sent++;
			}
		}
		if (n < 0) {
			failed = true;
			return -1;
		}
		/* receives go back as they complete: at most rx_depth outstanding */
		if (n > 0 && next_recv < opt.iters + opt.rx_depth)
			next_recv += post_recvs(b, next_recv,
						(unsigned int)RTE_MIN((uint64_t)n,
						b->done + opt.rx_depth - next_recv));
	}
	b->t_last = rte_get_timer_cycles();
	return 0;
}

/* The completion opcode of atomic_bw's atomics. */
static uint8_t
atomic_wc_opcode(void)
{
	return opt.cmp_swap ? VRDMA_WC_COMP_SWAP : VRDMA_WC_FETCH_ADD;
}

/*
 * A, atomic_bw --verify: the originals of atomics a->done.. @p id (a
 * signaled completion completes those before it). CMP_AND_SWP i found i
 * (compare i, swap i + 1: a chain that breaks at the first miss);
 * FETCH_AND_ADD's originals are each a value of 0..iters-1 seen once, so
 * the iters of them are exactly that set. @return 0, or -1 said why.
 */
static int
atomics_check(struct side *a, uint64_t id)
{
	for (; a->done <= id; a->done++) {
		uint64_t v;

		memcpy(&v, a->buf + (size_t)(a->done % a->slots) * a->slot, 8);
		v = le64toh(v);
		if (opt.cmp_swap ? v != a->done :
		    v >= opt.iters || (seen[v / 8] & (1u << (v % 8))) != 0) {
			fprintf(stderr, "vrdma-perf: A: atomic %" PRIu64 " returned %" PRIu64
				" (%s)\n", a->done, v, opt.cmp_swap ? "expected its number" :
				v >= opt.iters ? "not below --iters" : "seen before");
			return -1;
		}
		if (!opt.cmp_swap)
			seen[v / 8] |= (uint8_t)(1u << (v % 8));
	}
	return 0;
}

/*
 * A: keep tx_depth requests in flight (send_lat: one ping, then wait for
 * B's pong). A signaled completion completes every request before it.
 * UD has no flow control: A runs at most rx_depth / 2 messages ahead of
 * what B received, and a verified WRITE at most B's slot count ahead of
 * what B checked (it would overwrite a slot B has yet to read): windows the
 * two sides share here, in one process.
 */
static int
requester(struct side *a, const struct side *b)
{
	bool lat = opt.mode == SEND_LAT, ud = opt.mode == UD_SEND_BW;
	struct vrdma_cq_req wc[POLL_BURST];
	uint64_t posted = 0, hz = rte_get_timer_hz(), last_progress, progress = 0;
	uint64_t pongs = 0, next_recv = 0;
	int n, i;

	if (lat)
		next_recv = post_recvs(a, 0, opt.rx_depth);
	last_progress = rte_get_timer_cycles();
	a->t_first = last_progress;
	while (!failed && !omni_stop) {
		uint64_t now = rte_get_timer_cycles();
		uint64_t finished = lat ? pongs : a->done;

		if (finished >= opt.iters)
			break;
		if (finished + __atomic_load_n(&b->done, __ATOMIC_ACQUIRE) != progress) {
			progress = finished + b->done;
			last_progress = now;
		} else if (now - last_progress > stall_secs() * hz) {
			fprintf(stderr, "vrdma-perf: no progress for %u s: A %" PRIu64
				" complete, B %" PRIu64 " received\n", stall_secs(), a->done,
				b->done);
			failed = true;
			break;
		}
		if (lat ? posted == pongs && posted < opt.iters :
		    posted < opt.iters && posted < a->done + opt.tx_depth) {
			uint64_t room = lat ? 1 : RTE_MIN(opt.iters - posted,
							  a->done + opt.tx_depth - posted);

			if (ud || (opt.mode == WRITE_BW && opt.verify)) {
				uint64_t got = __atomic_load_n(&b->done, __ATOMIC_ACQUIRE);
				uint64_t win = got + (ud ? opt.rx_depth / 2 : b->slots);

				room = posted < win ? RTE_MIN(room, win - posted) : 0;
			}
			if (room > 0)
				posted += post_requests(a, b, posted, (unsigned int)room, lat);
		}
		n = vuf_rdma_poll_cq(a->d, a->cqn, wc, POLL_BURST);
		if (n < 0) {
			failed = true;
			break;
		}
		for (i = 0; i < n; i++) {
			uint64_t id = le64toh(wc[i].wr_id);

			if (wc[i].status != VRDMA_WC_SUCCESS) {
				wc_failed(a, &wc[i]);
				return -1;
			}
			if (wc[i].opcode == VRDMA_WC_RECV) {
				/* send_lat: B's pong */
				pongs++;
				if (opt.verify &&
				    !msg_check(a->buf + (size_t)(id % a->slots) * a->slot,
					       pongs - 1, opt.size)) {
					fprintf(stderr, "vrdma-perf: A: pong %" PRIu64
						" has wrong data\n", pongs - 1);
					failed = true;
					return -1;
				}
				next_recv += post_recvs(a, next_recv, 1);
				continue;
			}
			/* every atomic this completes returned its original */
			if (opt.verify && opt.mode == ATOMIC_BW &&
			    (wc[i].opcode != atomic_wc_opcode() || atomics_check(a, id) != 0)) {
				if (wc[i].opcode != atomic_wc_opcode())
					fprintf(stderr, "vrdma-perf: A: completion opcode %u\n",
						wc[i].opcode);
				failed = true;
				return -1;
			}
			/* B's slot k holds message k: every READ this completes brought it */
			for (; opt.verify && opt.mode == READ_BW && a->done <= id; a->done++) {
				uint32_t slot = (uint32_t)(a->done % a->slots);

				if (!msg_check(a->buf + (size_t)slot * a->slot, slot, opt.size)) {
					fprintf(stderr, "vrdma-perf: A: READ %" PRIu64
						" brought wrong data\n", a->done);
					failed = true;
					return -1;
				}
			}
			a->done = id + 1;
		}
	}
	a->t_last = rte_get_timer_cycles();
	return failed ? -1 : 0;
}

/* ---------------- write_lat ---------------- */

/*
 * Byte k of write_lat's message @p seq of @p len bytes: the pattern, then
 * seq big-endian in the last 8 bytes (all of them when shorter). The last
 * byte, the one the other side polls, is seq's low byte: with one message
 * in flight it differs from what the buffer held before.
 */
static inline uint8_t
lat_byte(uint64_t seq, uint32_t k, uint32_t len)
{
	uint32_t from_end = len - k;

	return from_end <= 8 ? (uint8_t)(seq >> (8 * (from_end - 1))) : (uint8_t)(seq * 7 + k);
}

/* Message @p seq: all of it with --verify, else only the tail the peer polls. */
static void
lat_fill(uint8_t *p, uint64_t seq)
{
	uint32_t k = opt.verify ? 0 : opt.size - RTE_MIN(opt.size, 8u);

	for (; k < opt.size; k++)
		p[k] = lat_byte(seq, k, opt.size);
}

/* The first byte of @p p that is not message @p seq's, or opt.size (read afresh each call). */
static uint32_t
lat_mismatch(const volatile uint8_t *p, uint64_t seq)
{
	uint32_t k;

	for (k = 0; k < opt.size; k++)
		if (p[k] != lat_byte(seq, k, opt.size))
			break;
	return k;
}

/* One side of write_lat: its WRITEs posted and known complete, its stall clock. */
struct lat {
	struct side *me;
	uint64_t remote_addr;  /* the peer's slot 0 */
	uint32_t rkey;
	uint64_t posted, completed;
	uint64_t progress, last_progress;
};

/*
 * write_lat: take this side's WRITE completions (a signaled one completes
 * those before it) and watch both sides' progress. @return 0, or -1 when
 * the run failed (said why) or was stopped.
 */
static int
lat_poll(struct lat *l)
{
	struct vrdma_cq_req wc[POLL_BURST];
	uint64_t now, progress;
	int n, i;

	if (failed || omni_stop)
		return -1;
	n = vuf_rdma_poll_cq(l->me->d, l->me->cqn, wc, POLL_BURST);
	if (n < 0) {
		side_fail(l->me, "poll CQ", n);
		failed = true;
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (wc[i].status != VRDMA_WC_SUCCESS) {
			wc_failed(l->me, &wc[i]);
			return -1;
		}
		if (wc[i].opcode != VRDMA_WC_RDMA_WRITE) {
			fprintf(stderr, "vrdma-perf: %s: completion opcode %u\n", l->me->name,
				wc[i].opcode);
			l->me->errors++;
			failed = true;
			return -1;
		}
		l->completed = le64toh(wc[i].wr_id) + 1;
	}
	progress = __atomic_load_n(&sa.done, __ATOMIC_ACQUIRE) +
		__atomic_load_n(&sb.done, __ATOMIC_ACQUIRE) + l->completed;
	now = rte_get_timer_cycles();
	if (progress != l->progress) {
		l->progress = progress;
		l->last_progress = now;
	} else if (now - l->last_progress > stall_secs() * rte_get_timer_hz()) {
		/* either side may see it first: one says so */
		if (!__atomic_exchange_n(&failed, true, __ATOMIC_RELAXED))
			fprintf(stderr, "vrdma-perf: no progress for %u s: A %" PRIu64
				" round trips, B %" PRIu64 " received\n", stall_secs(),
				__atomic_load_n(&sa.done, __ATOMIC_ACQUIRE),
				__atomic_load_n(&sb.done, __ATOMIC_ACQUIRE));
		return -1;
	}
	return 0;
}

/*
 * write_lat: a plain RDMA WRITE of message @p seq from our slot 1 into the
 * peer's slot 0. Signaled one in min(SIGNAL, tx-depth) and the last: an
 * unsignaled WRITE holds its send-queue entry until a later one completes,
 * so at most tx-depth are posted and not known complete.
 */
static int
lat_write(struct lat *l, uint64_t seq)
{
	const uint32_t every = RTE_MIN((uint32_t)SIGNAL, opt.tx_depth);
	struct vrdma_sq_req r;
	struct vrdma_sge g;
	int rc;

	while (l->posted - l->completed >= opt.tx_depth)
		if (lat_poll(l) != 0)
			return -1;
	/*
	 * The device has read our slot 1's previous message: the peer has seen
	 * it (or, A, answered it), so it may be overwritten.
	 */
	lat_fill(l->me->buf + l->me->slot, seq);
	memset(&r, 0, offsetof(struct vrdma_sq_req, inline_data));
	memset(r.reserved2, 0, sizeof(r.reserved2));
	r.wr_id = htole64(seq);
	r.num_sge = htole32(1);
	r.opcode = VRDMA_WR_RDMA_WRITE;
	if (seq % every == every - 1 || seq + 1 == opt.iters)
		r.send_flags = VRDMA_SEND_SIGNALED;
	r.rdma.remote_addr = htole64(l->remote_addr);
	r.rdma.rkey = htole32(l->rkey);
	g = side_sge(l->me, 1, opt.size);
	rc = vuf_rdma_post_send(l->me->d, l->me->qpn, &r, &g);
	if (rc != 0) {
		side_fail(l->me, "post WRITE", rc);
		failed = true;
		return -1;
	}
	l->posted++;
	return 0;
}

/*
 * write_lat: wait until message @p seq is in our slot 0; with --verify
 * check all of it. The CPU polls memory the device writes: the last byte
 * is read with an acquire load (the rest is read after it), and the rest
 * through volatile, afresh on each look. The device (lib/roce on the
 * backend's lcore) copies a message into memory packet by packet, in
 * order, so its last byte lands last; should a copy ever store out of
 * order, the check looks again for 10 ms before it calls the data wrong.
 */
static int
lat_wait(struct lat *l, uint64_t seq)
{
	const uint8_t *in = l->me->buf;
	uint64_t until;
	uint32_t k;

	while (__atomic_load_n(&in[opt.size - 1], __ATOMIC_ACQUIRE) != (uint8_t)seq)
		if (lat_poll(l) != 0)
			return -1;
	if (!opt.verify)
		return 0;
	until = rte_get_timer_cycles() + rte_get_timer_hz() / 100;
	while ((k = lat_mismatch(in, seq)) < opt.size) {
		if (rte_get_timer_cycles() > until) {
			fprintf(stderr, "vrdma-perf: %s: message %" PRIu64 " has wrong data "
				"(byte %u: 0x%02x, expected 0x%02x)\n", l->me->name, seq, k,
				((const volatile uint8_t *)in)[k], lat_byte(seq, k, opt.size));
			l->me->errors++;
			failed = true;
			return -1;
		}
		rte_pause();
		rte_atomic_thread_fence(__ATOMIC_ACQUIRE);
	}
	return 0;
}

/*
 * write_lat, one side: A (@p ping) WRITEs message i into B's slot 0 and
 * polls its own slot 0 for B's answer; B polls for message i and WRITEs it
 * back into A's slot 0. No receives, no immediate: each learns of a message
 * from its memory alone, as ib_write_lat does. Both slots 0 start all ones,
 * so message 0 (last byte 0) is not there before it is.
 */
static int
write_lat(struct side *me, const struct side *peer, bool ping)
{
	struct lat l = {
		.me = me, .remote_addr = vuf_rdma_gpa(peer->d, peer->buf), .rkey = peer->rkey,
		.last_progress = rte_get_timer_cycles(),
	};
	uint64_t seq;

	me->t_first = l.last_progress;
	for (seq = 0; seq < opt.iters; seq++) {
		if (ping && lat_write(&l, seq) != 0)
			return -1;
		if (lat_wait(&l, seq) != 0)
			return -1;
		__atomic_store_n(&me->done, seq + 1, __ATOMIC_RELEASE);
		if (!ping && lat_write(&l, seq) != 0)
			return -1;
	}
	me->t_last = rte_get_timer_cycles();
	/* the last WRITE is signaled: its completion error would go unseen otherwise */
	while (l.completed < l.posted)
		if (lat_poll(&l) != 0)
			return -1;
	return 0;
}

static void
report(const struct side *a, const struct side *b)
{
	double hz = (double)rte_get_timer_hz();
	double secs = (double)(a->t_last - a->t_first) / hz;
	uint64_t msgs = opt.iters;

	if (secs <= 0)
		secs = 1e-9;
	printf("vrdma-perf %s: %u bytes x %" PRIu64 ", tx-depth %u, rx-depth %u%s%s\n",
	       mode_names[opt.mode], opt.size, opt.iters, opt.tx_depth, opt.rx_depth,
	       opt.mode != ATOMIC_BW ? "" : opt.cmp_swap ? ", cmp_and_swap" : ", fetch_and_add",
	       opt.verify ? ", verified" : "");
	if (opt.mode == SEND_LAT || opt.mode == WRITE_LAT) {
		printf("  round trips %" PRIu64 " in %.3f s: %.2f us per round trip, "
		       "%.2f us one way\n", msgs, secs, 1e6 * secs / (double)msgs,
		       0.5e6 * secs / (double)msgs);
	} else {
		printf("  %" PRIu64 " messages in %.3f s: %.3f M msg/s, %.3f Gb/s\n", msgs, secs,
		       (double)msgs / secs / 1e6, (double)msgs * opt.size * 8 / secs / 1e9);
	}
	printf("  A: %" PRIu64 " complete, B: %" PRIu64 " received, errors %" PRIu64 "\n",
	       a->done, b->done, a->errors + b->errors);
}

int
main(int argc, char **argv)
{
	struct vperf_peer pa, pb;
	uint8_t gid_a[16], gid_b[16];
	unsigned int lc;
	uint32_t mtu_bytes, k;
	uint8_t mtu;
	int ret, status = EXIT_FAIL;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "vrdma-perf: EAL initialisation failed: %s\n",
			rte_strerror(rte_errno));
		return EXIT_FAIL;
	}
	status = EXIT_USAGE;
	if (parse_args(argc - ret, argv + ret) != 0)
		goto out;
	stall_limit = stall_secs_of_opts();
	omni_stop_on_signals();
	if (opt.mode == PINGPONG_RC || opt.mode == PINGPONG_UD) {
		status = pingpong_run();
		goto out;
	}
	if (opt.mode == PERFTEST) {
		status = perftest_run();
		goto out;
	}
	if (opt.mode == CM_RPING) {
		status = cm_run();
		goto out;
	}
	lc = rte_get_next_lcore(-1, 1, 0);
	if (lc >= RTE_MAX_LCORE) {
		fprintf(stderr, "vrdma-perf: B needs a worker lcore: give EAL two, e.g. -l 0-1\n");
		goto out;
	}
	status = EXIT_FAIL;
	/* IPv4-mapped GIDs: the ones a guest's IP stack would give */
	vperf_gid_v4(gid_a, RTE_IPV4(10, 0, 0, 1));
	vperf_gid_v4(gid_b, RTE_IPV4(10, 0, 0, 2));
	if (side_open(&sa, opt.sock[0], gid_a) != 0 || side_open(&sb, opt.sock[1], gid_b) != 0)
		goto out;
	sa.psn = sb.psn = PSN;
	pa = peer_of(&sa);
	pb = peer_of(&sb);
	mtu = path_mtu(RTE_MIN(sa.mtu, sb.mtu), &mtu_bytes);
	if (opt.mode == UD_SEND_BW && opt.size > mtu_bytes) {
		fprintf(stderr, "vrdma-perf: --size %u: a UD message fits one packet of the "
			"path MTU, %u here\n", opt.size, mtu_bytes);
		status = EXIT_USAGE;
		goto out;
	}
	if (opt.mode == UD_SEND_BW ? ud_connect(&sa, &pb) != 0 || ud_connect(&sb, &pa) != 0 :
	    rc_connect(&sa, &pb, mtu) != 0 || rc_connect(&sb, &pa, mtu) != 0)
		goto out;
	/* READ: B's slot k holds message k, for A to fetch and check */
	if (opt.mode == READ_BW)
		for (k = 0; k < sb.slots; k++)
			msg_fill(sb.buf + (size_t)k * sb.slot, k, opt.size);
	/* write_lat: no message in either slot 0 yet (message 0 ends in 0) */
	if (opt.mode == WRITE_LAT) {
		memset(sa.buf, 0xff, opt.size);
		memset(sb.buf, 0xff, opt.size);
	}
	/* atomic_bw: B's counter starts at 0 */
	if (opt.mode == ATOMIC_BW) {
		memset(sb.buf, 0, 8);
		seen = opt.verify && !opt.cmp_swap ? calloc(opt.iters / 8 + 1, 1) : NULL;
		if (opt.verify && !opt.cmp_swap && seen == NULL) {
			fprintf(stderr, "vrdma-perf: no memory for %" PRIu64 " originals\n",
				opt.iters);
			goto out;
		}
	}
	printf("A: QP %u on %s, B: QP %u on %s, path MTU %u\n", sa.qpn, opt.sock[0], sb.qpn,
	       opt.sock[1], mtu_bytes);
	fflush(stdout);
	if (rte_eal_remote_launch(responder, &sb, lc) != 0) {
		fprintf(stderr, "vrdma-perf: cannot launch B on lcore %u\n", lc);
		goto out;
	}
	ret = opt.mode == WRITE_LAT ? write_lat(&sa, &sb, true) : requester(&sa, &sb);
	if (ret != 0)
		failed = true;
	rte_eal_wait_lcore(lc);
	if (!failed && !omni_stop && opt.verify && opt.mode == ATOMIC_BW) {
		/* each atomic added 1 (or moved i to i + 1) once: B's counter is iters */
		uint64_t v = le64toh(__atomic_load_n((uint64_t *)(void *)sb.buf,
						     __ATOMIC_ACQUIRE));

		if (v != opt.iters) {
			fprintf(stderr, "vrdma-perf: B: counter %" PRIu64 " after %" PRIu64
				" atomics\n", v, opt.iters);
			sb.errors++;
			failed = true;
		}
	}
	if (!failed && !omni_stop) {
		report(&sa, &sb);
		status = 0;
	} else if (omni_stop) {
		fprintf(stderr, "vrdma-perf: interrupted\n");
	}
out:
	if (sa.d != NULL && sa.qpn != 0)
		vuf_rdma_destroy_qp(sa.d, sa.qpn);
	if (sb.d != NULL && sb.qpn != 0)
		vuf_rdma_destroy_qp(sb.d, sb.qpn);
	vuf_rdma_close(sa.d);
	vuf_rdma_close(sb.d);
	free(seen);
	rte_eal_cleanup();
	return status;
}
