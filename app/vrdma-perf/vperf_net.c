/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * What the interoperability modes (--pingpong, --perftest) share: the rest
 * of the guest owning the device, and the TCP side of the out-of-band
 * exchange.
 *
 * The guest's Ethernet side: the device's Ethernet queues are started and,
 * from the poll hook of every wait, ARP requests (neighbour solicitations
 * for an IPv6 GID) for our GID are answered, so the peer needs no static
 * neighbour entry; without --peer-mac the peer's MAC is asked for the same
 * way. The TCP side: one accepted client or one connection to a server,
 * reads that wait with a deadline and keep the Ethernet side served.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_cycles.h>

#include <omni_signal.h>
#include "vperf.h"
#include "vperf_arp.h"

#define EXCHANGE_SECS 10      /* each part of the peer's side of the exchange must come within */
#define NET_RX_BUFS 64        /* receiveq1 buffers: broadcasts of a busy segment queue here */
#define NET_TX_BUFS 16
#define NET_BURST 32          /* frames taken per call of the hook */
#define SOLICIT_TRIES 3       /* as a kernel's neighbour resolution: 3 tries 1 s apart */
#define WAIT_TICK_MS 10       /* how often a wait for the peer serves the Ethernet queue */
#define CONNECT_RETRY_MS 100  /* a server not listening yet: try again this often */

static struct side *net_side;
static struct vperf_nd nd;
static uint64_t net_send_failed;

/*
 * The poll hook: take what the device's Ethernet queue holds (a burst at
 * most) and answer ARP and neighbour solicitations for our GID.
 */
void
vnet_serve(void *arg)
{
	static uint8_t frame[9216];
	uint8_t out[VPERF_ND_MAX_FRAME];
	unsigned int k;

	(void)arg;
	if (net_side == NULL)
		return;
	for (k = 0; k < NET_BURST; k++) {
		uint32_t len;
		size_t n;

		if (vuf_rdma_net_recv(net_side->d, frame, sizeof(frame), &len) != 1)
			break;
		n = vperf_nd_input(&nd, frame, len, out);
		if (n > 0 && vuf_rdma_net_send(net_side->d, out, (uint32_t)n) != 0)
			net_send_failed++;
	}
}

int
vnet_start(struct side *s)
{
	if (vuf_rdma_net_start(s->d, NET_RX_BUFS, NET_TX_BUFS) != 0) {
		fprintf(stderr, "vrdma-perf: cannot start the device's Ethernet queues\n");
		return -1;
	}
	vperf_nd_init(&nd, s->mac, s->gid);
	net_side = s;
	vuf_rdma_set_poll(s->d, vnet_serve, NULL);
	return 0;
}

void
vnet_report(const char *who)
{
	struct vuf_rdma_net_stats st;

	if (net_side == NULL)
		return;
	vuf_rdma_net_stats(net_side->d, &st);
	printf("%s: neighbours: %" PRIu64 " ARP requests answered, %" PRIu64
	       " neighbour solicitations answered, %" PRIu64 " learned, %" PRIu64
	       " frames ignored, %" PRIu64 " malformed\n", who, nd.st.arp_answered,
	       nd.st.ns_answered, nd.st.learned, nd.st.ignored, nd.st.malformed);
	printf("%s: Ethernet queue: %" PRIu64 " frames in, %" PRIu64 " out, %" PRIu64
	       " dropped, %" PRIu64 " not sent\n", who, st.rx_frames, st.tx_frames, st.rx_dropped,
	       net_send_failed);
}

void
vnet_stop(void)
{
	net_side = NULL;
}

static void
mac_str(char s[18], const uint8_t *m)
{
	snprintf(s, 18, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

int
vnet_resolve(const char *who, const char *peer_name, struct vperf_peer *peer)
{
	uint64_t hz = rte_get_timer_hz(), until;
	uint8_t out[VPERF_ND_MAX_FRAME];
	unsigned int tries;
	char s[18];
	size_t n;

	if (opt.peer_mac_set) {
		memcpy(peer->mac, opt.peer_mac, sizeof(peer->mac));
		return 0;
	}
	for (tries = 0; !omni_stop; tries++) {
		vnet_serve(NULL);
		if (vperf_nd_lookup(&nd, peer->gid, peer->mac)) {
			mac_str(s, peer->mac);
			printf("%s: %s MAC %s (%s)\n", who, peer_name, s,
			       tries == 0 ? "learned from its request" : "resolved");
			return 0;
		}
		if (tries == SOLICIT_TRIES)
			break;
		n = vperf_nd_solicit(&nd, peer->gid, out);
		if (n == 0) {
			fprintf(stderr, "vrdma-perf: the %s's GID and ours are not of one "
				"family (IPv4-mapped, IPv6): give --peer-mac\n", peer_name);
			return -1;
		}
		if (vuf_rdma_net_send(net_side->d, out, (uint32_t)n) != 0)
			net_send_failed++;
		until = rte_get_timer_cycles() + hz;
		while (!omni_stop && rte_get_timer_cycles() < until &&
		       !vperf_nd_lookup(&nd, peer->gid, peer->mac)) {
			vnet_serve(NULL);
			rte_delay_us_sleep(1000);
		}
	}
	fprintf(stderr, "vrdma-perf: no answer for the %s's MAC after %u tries: give "
		"--peer-mac\n", peer_name, SOLICIT_TRIES);
	return -1;
}

ssize_t
vnet_read_full(int fd, void *buf, size_t len)
{
	return vnet_read_within(fd, buf, len, EXCHANGE_SECS);
}

ssize_t
vnet_read_within(int fd, void *buf, size_t len, unsigned int secs)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t hz = rte_get_timer_hz(), until = rte_get_timer_cycles() + secs * hz;
	size_t got = 0;

	while (got < len && !omni_stop && rte_get_timer_cycles() < until) {
		ssize_t n;

		/* the peer resolves our GID's MAC meanwhile: keep answering */
		vnet_serve(NULL);
		if (poll(&pfd, 1, WAIT_TICK_MS) <= 0)
			continue;
		until = rte_get_timer_cycles() + secs * hz;
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

int
vnet_accept(const char *who)
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
	printf("%s: waiting for a client on TCP port %u\n", who, opt.listen_port);
	fflush(stdout);
	pfd.fd = fd;
	while (!omni_stop && rte_get_timer_cycles() < until) {
		int n;

		vnet_serve(NULL);
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

int
vnet_connect(const char *who)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET, .sin_port = htons(opt.connect_port),
		.sin_addr = { .s_addr = htonl(opt.connect_ip) },
	};
	uint64_t hz = rte_get_timer_hz(), until = rte_get_timer_cycles() + opt.accept_secs * hz;
	char ip[INET_ADDRSTRLEN];
	int fd = -1, err = 0;

	inet_ntop(AF_INET, &a.sin_addr, ip, sizeof(ip));
	printf("%s: connecting to %s port %u\n", who, ip, opt.connect_port);
	fflush(stdout);
	/* the server may not listen yet: try again until the deadline */
	while (!omni_stop && rte_get_timer_cycles() < until) {
		uint64_t tick = rte_get_timer_cycles() + CONNECT_RETRY_MS * hz / 1000;

		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			break;
		if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
			return fd;
		err = errno;
		close(fd);
		fd = -1;
		if (err != ECONNREFUSED && err != ETIMEDOUT && err != EHOSTUNREACH &&
		    err != ENETUNREACH)
			break;
		while (!omni_stop && rte_get_timer_cycles() < tick) {
			vnet_serve(NULL);
			rte_delay_us_sleep(1000);
		}
	}
	fprintf(stderr, "vrdma-perf: cannot connect to %s port %u: %s\n", ip, opt.connect_port,
		err != 0 ? strerror(err) : "timed out");
	return -1;
}

int
vnet_write(int fd, const void *buf, size_t len)
{
	/* a peer gone away is an error here, not a SIGPIPE */
	return send(fd, buf, len, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}
