/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * Interoperability: one device of ours as the server of rdma-core's
 * ibv_rc_pingpong / ibv_ud_pingpong, so a real RoCE stack (rxe in a guest)
 * is the other end.
 *
 * The out-of-band exchange is theirs: the client connects over TCP and
 * sends "LID:QPN:PSN:GID" ("%04x:%06x:%06x:" and the GID's 16 bytes as 32
 * hex digits, with its NUL: 52 bytes); the server connects its QP, answers
 * with its own, and reads the client's "done". Then the client sends first
 * and each side answers every message it receives with one of its own,
 * --iters times. Both fill their buffers with 0x7b; the server checks
 * every message it receives is that, of the size agreed.
 *
 * Meanwhile it plays the rest of the guest owning the device: it answers
 * ARP requests (neighbour solicitations for an IPv6 GID) for its GID on the
 * device's Ethernet queue, from the poll hook of every wait, so the client
 * needs no static neighbour entry; and, without --peer-mac, it asks for the
 * client's MAC the same way.
 */

#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_random.h>

#include <omni_signal.h>
#include "vperf.h"
#include "vperf_arp.h"

#define FILL 0x7b             /* the pingpong examples' buffer contents */
#define EXCHANGE_SECS 10      /* the client's part of the exchange must come within */
#define SEND_ID (1ull << 62)  /* wr_id of our sends; receives use their slot */
#define NET_RX_BUFS 64        /* receiveq1 buffers: broadcasts of a busy segment queue here */
#define NET_TX_BUFS 16
#define NET_BURST 32          /* frames taken per call of the hook */
#define SOLICIT_TRIES 3       /* as a kernel's neighbour resolution: 3 tries 1 s apart */
#define WAIT_TICK_MS 10       /* how often a wait for the client serves the Ethernet queue */

static struct side srv = { .name = "server" };
static struct vperf_nd nd;
static bool net_up;
static uint64_t net_send_failed;

/*
 * The poll hook: take what the device's Ethernet queue holds (a burst at
 * most) and answer ARP and neighbour solicitations for our GID.
 */
static void
net_serve(void *arg)
{
	static uint8_t frame[9216];
	uint8_t out[VPERF_ND_MAX_FRAME];
	unsigned int k;

	(void)arg;
	for (k = 0; k < NET_BURST; k++) {
		uint32_t len;
		size_t n;

		if (vuf_rdma_net_recv(srv.d, frame, sizeof(frame), &len) != 1)
			break;
		n = vperf_nd_input(&nd, frame, len, out);
		if (n > 0 && vuf_rdma_net_send(srv.d, out, (uint32_t)n) != 0)
			net_send_failed++;
	}
}

static void
net_report(void)
{
	struct vuf_rdma_net_stats st;

	if (!net_up)
		return;
	vuf_rdma_net_stats(srv.d, &st);
	printf("pingpong: neighbours: %" PRIu64 " ARP requests answered, %" PRIu64
	       " neighbour solicitations answered, %" PRIu64 " learned, %" PRIu64
	       " frames ignored, %" PRIu64 " malformed\n", nd.st.arp_answered, nd.st.ns_answered,
	       nd.st.learned, nd.st.ignored, nd.st.malformed);
	printf("pingpong: Ethernet queue: %" PRIu64 " frames in, %" PRIu64 " out, %" PRIu64
	       " dropped, %" PRIu64 " not sent\n", st.rx_frames, st.tx_frames, st.rx_dropped,
	       net_send_failed);
}

static void
mac_str(char s[18], const uint8_t *m)
{
	snprintf(s, 18, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

/*
 * The client's MAC for its GID: known when it asked for ours first, else
 * asked for (ARP, or a neighbour solicitation), as the guest's kernel
 * resolves a destination GID. @return 0 with @p peer's mac set, or -1.
 */
static int
resolve_peer(struct vperf_peer *peer)
{
	uint64_t hz = rte_get_timer_hz(), until;
	uint8_t out[VPERF_ND_MAX_FRAME];
	unsigned int tries;
	char s[18];
	size_t n;

	for (tries = 0; !omni_stop; tries++) {
		net_serve(NULL);
		if (vperf_nd_lookup(&nd, peer->gid, peer->mac)) {
			mac_str(s, peer->mac);
			printf("pingpong: client MAC %s (%s)\n", s,
			       tries == 0 ? "learned from its request" : "resolved");
			return 0;
		}
		if (tries == SOLICIT_TRIES)
			break;
		n = vperf_nd_solicit(&nd, peer->gid, out);
		if (n == 0) {
			fprintf(stderr, "vrdma-perf: the client's GID and ours are not of one "
				"family (IPv4-mapped, IPv6): give --peer-mac\n");
			return -1;
		}
		if (vuf_rdma_net_send(srv.d, out, (uint32_t)n) != 0)
			net_send_failed++;
		until = rte_get_timer_cycles() + hz;
		while (!omni_stop && rte_get_timer_cycles() < until &&
		       !vperf_nd_lookup(&nd, peer->gid, peer->mac)) {
			net_serve(NULL);
			rte_delay_us_sleep(1000);
		}
	}
	fprintf(stderr, "vrdma-perf: no answer for the client's MAC after %u tries: give "
		"--peer-mac\n", SOLICIT_TRIES);
	return -1;
}

/*
 * Read exactly @p len bytes, waiting at most EXCHANGE_SECS for each part
 * (a client that stops half way must not hang us; SIGINT ends the wait).
 * @return bytes read (fewer at EOF or timeout), -1 on error.
 */
static ssize_t
read_full(int fd, void *buf, size_t len)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t hz = rte_get_timer_hz(), until = rte_get_timer_cycles() + EXCHANGE_SECS * hz;
	size_t got = 0;

	while (got < len && !omni_stop && rte_get_timer_cycles() < until) {
		ssize_t n;

		/* the client resolves our GID's MAC meanwhile: keep answering */
		net_serve(NULL);
		if (poll(&pfd, 1, WAIT_TICK_MS) <= 0)
			continue;
		until = rte_get_timer_cycles() + EXCHANGE_SECS * hz;
		n = read(fd, (char *)buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/* Wait for one client on the port. @return its socket, or -1. */
static int
accept_client(void)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET, .sin_port = htons(opt.listen_port),
		.sin_addr = { .s_addr = htonl(INADDR_ANY) },
	};
	struct pollfd pfd = { .events = POLLIN };
	uint64_t until = rte_get_timer_cycles() + opt.accept_secs * rte_get_timer_hz();
	int one = 1, fd, c = -1;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 1) != 0) {
		fprintf(stderr, "vrdma-perf: TCP port %u: %s\n", opt.listen_port, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	printf("pingpong: waiting for a client on TCP port %u\n", opt.listen_port);
	fflush(stdout);
	pfd.fd = fd;
	while (!omni_stop && rte_get_timer_cycles() < until) {
		int n;

		net_serve(NULL);
		n = poll(&pfd, 1, WAIT_TICK_MS);
		if (n > 0) {
			c = accept(fd, NULL, NULL);
			break;
		}
	}
	close(fd);
	if (c < 0)
		fprintf(stderr, "vrdma-perf: no client connected within %u s\n", opt.accept_secs);
	return c;
}

static int
post_recv(uint32_t slot)
{
	uint32_t len = opt.size + (opt.mode == PINGPONG_UD ? 40 : 0);
	struct vrdma_sge g = side_sge(&srv, slot, len);

	return vuf_rdma_post_recv(srv.d, srv.qpn, slot, &g, 1);
}

static int
post_send(const struct vperf_peer *peer, uint64_t n)
{
	struct vrdma_sq_req r;
	struct vrdma_sge g = side_sge(&srv, srv.slots - 1, opt.size);

	memset(&r, 0, sizeof(r));
	r.wr_id = htole64(SEND_ID | n);
	r.opcode = VRDMA_WR_SEND;
	r.send_flags = VRDMA_SEND_SIGNALED;
	r.num_sge = htole32(1);
	if (opt.mode == PINGPONG_UD) {
		r.ud.remote_qpn = htole32(peer->qpn);
		r.ud.remote_qkey = htole32(0x11111111);
		r.ud.ah = htole32(srv.ahn);
	}
	return vuf_rdma_post_send(srv.d, srv.qpn, &r, &g);
}

/*
 * The exchange, server side: the client's destination, our QP connected
 * to it, ours back, the client's "done". Receives are posted before the
 * client can send.
 */
static int
exchange(int c, struct vperf_peer *peer, uint8_t mtu)
{
	char msg[VPERF_DEST_LEN], done[8];
	unsigned int k;

	if (read_full(c, msg, sizeof(msg)) != (ssize_t)sizeof(msg) ||
	    vperf_dest_parse(msg, sizeof(msg), peer) != 0) {
		fprintf(stderr, "vrdma-perf: the client's address is not LID:QPN:PSN:GID\n");
		return -1;
	}
	printf("pingpong: client QPN 0x%06x PSN 0x%06x GID %.32s\n", peer->qpn, peer->psn,
	       msg + 19);
	if (opt.peer_mac_set)
		memcpy(peer->mac, opt.peer_mac, sizeof(peer->mac));
	else if (resolve_peer(peer) != 0)
		return -1;
	if ((opt.mode == PINGPONG_UD ? ud_connect(&srv, peer) : rc_connect(&srv, peer, mtu)) != 0)
		return -1;
	/* slots 0..rx_depth-1 receive (the last slot sends) */
	for (k = 0; k < opt.rx_depth; k++)
		if (post_recv(k) != 0) {
			fprintf(stderr, "vrdma-perf: cannot post receive %u\n", k);
			return -1;
		}
	vperf_dest_format(msg, srv.qpn, srv.psn, srv.gid);
	/* a client gone away is an error here, not a SIGPIPE */
	if (send(c, msg, sizeof(msg), MSG_NOSIGNAL) != (ssize_t)sizeof(msg) ||
	    read_full(c, done, sizeof("done")) != (ssize_t)sizeof("done") ||
	    memcmp(done, "done", sizeof("done")) != 0) {
		fprintf(stderr, "vrdma-perf: the exchange with the client failed\n");
		return -1;
	}
	printf("pingpong: server QPN 0x%06x PSN 0x%06x, connected\n", srv.qpn, srv.psn);
	return 0;
}

/* Every received byte is the client's fill. */
static bool
recv_ok(const struct vrdma_cq_req *wc)
{
	uint32_t off = opt.mode == PINGPONG_UD ? 40 : 0, k;
	const uint8_t *p = srv.buf + (size_t)le64toh(wc->wr_id) * srv.slot + off;

	if (le32toh(wc->byte_len) != opt.size + off)
		return false;
	for (k = 0; k < opt.size; k++)
		if (p[k] != FILL)
			return false;
	return true;
}

/* Answer every message with one, --iters times; the client leads. */
static int
serve(const struct vperf_peer *peer)
{
	uint64_t rcnt = 0, scnt = 0, sent = 0, hz = rte_get_timer_hz(), t0 = 0, last;
	struct vrdma_cq_req wc[32];
	int n, i;

	last = rte_get_timer_cycles();
	while (!omni_stop && (rcnt < opt.iters || scnt < opt.iters)) {
		net_serve(NULL);
		n = vuf_rdma_poll_cq(srv.d, srv.cqn, wc, RTE_DIM(wc));
		if (n < 0)
			return -1;
		if (n > 0)
			last = rte_get_timer_cycles();
		else if (rte_get_timer_cycles() - last > 10 * hz) {
			fprintf(stderr, "vrdma-perf: no progress for 10 s: %" PRIu64 " received, %"
				PRIu64 " sent\n", rcnt, scnt);
			return -1;
		}
		for (i = 0; i < n; i++) {
			if (wc[i].status != VRDMA_WC_SUCCESS) {
				fprintf(stderr, "vrdma-perf: completion error: %s (wr_id %" PRIu64
					")\n", vrdma_wc_status_str(wc[i].status),
					le64toh(wc[i].wr_id));
				return -1;
			}
			if (le64toh(wc[i].wr_id) & SEND_ID) {
				scnt++;
				continue;
			}
			if (!recv_ok(&wc[i])) {
				fprintf(stderr, "vrdma-perf: message %" PRIu64 " has a wrong length "
					"(%u) or content\n", rcnt, le32toh(wc[i].byte_len));
				return -1;
			}
			if (rcnt++ == 0)
				t0 = rte_get_timer_cycles();
			if (post_recv((uint32_t)le64toh(wc[i].wr_id)) != 0 ||
			    (sent < opt.iters && post_send(peer, sent++) != 0)) {
				fprintf(stderr, "vrdma-perf: cannot post\n");
				return -1;
			}
		}
	}
	if (omni_stop)
		return -1;
	printf("pingpong %s: %" PRIu64 " messages of %u bytes each way in %.3f s, "
	       "every one received verified\n", opt.mode == PINGPONG_UD ? "ud" : "rc", rcnt,
	       opt.size, (double)(rte_get_timer_cycles() - t0) / (double)hz);
	return 0;
}

int
pingpong_run(void)
{
	struct vperf_peer peer;
	uint32_t mtu_bytes;
	uint8_t mtu;
	int c = -1, status = 1;

	if (side_open(&srv, opt.sock[0], opt.gid) != 0)
		goto out;
	/* the guest's Ethernet side: answer for our GID from now on, in every wait */
	if (vuf_rdma_net_start(srv.d, NET_RX_BUFS, NET_TX_BUFS) != 0) {
		fprintf(stderr, "vrdma-perf: cannot start the device's Ethernet queues\n");
		goto out;
	}
	vperf_nd_init(&nd, srv.mac, srv.gid);
	net_up = true;
	vuf_rdma_set_poll(srv.d, net_serve, NULL);
	srv.psn = (uint32_t)rte_rand() & 0xffffff;
	/* the path MTU is agreed out of band: theirs is -m, 1024 by default */
	mtu = path_mtu(srv.mtu, &mtu_bytes);
	while (mtu_bytes > opt.ib_mtu) {
		mtu_bytes /= 2;
		mtu--;
	}
	if (opt.mode == PINGPONG_UD && opt.size > mtu_bytes) {
		fprintf(stderr, "vrdma-perf: --size %u: a UD message fits one packet of the "
			"path MTU, %u here\n", opt.size, mtu_bytes);
		status = 2;
		goto out;
	}
	memset(srv.buf, FILL, (size_t)srv.slots * srv.slot);
	c = accept_client();
	if (c < 0 || exchange(c, &peer, mtu) != 0)
		goto out;
	close(c);
	c = -1;
	if (serve(&peer) == 0)
		status = 0;
out:
	if (c >= 0)
		close(c);
	net_report();
	if (srv.d != NULL && srv.qpn != 0)
		vuf_rdma_destroy_qp(srv.d, srv.qpn);
	vuf_rdma_close(srv.d);
	return status;
}
