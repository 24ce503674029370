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
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_random.h>

#include <omni_signal.h>
#include "vperf.h"

#define FILL 0x7b             /* the pingpong examples' buffer contents */
#define SEND_ID (1ull << 62)  /* wr_id of our sends; receives use their slot */

static struct side srv = { .name = "server" };

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

	if (vnet_read_full(c, msg, sizeof(msg)) != (ssize_t)sizeof(msg) ||
	    vperf_dest_parse(msg, sizeof(msg), peer) != 0) {
		fprintf(stderr, "vrdma-perf: the client's address is not LID:QPN:PSN:GID\n");
		return -1;
	}
	printf("pingpong: client QPN 0x%06x PSN 0x%06x GID %.32s\n", peer->qpn, peer->psn,
	       msg + 19);
	if (vnet_resolve("pingpong", "client", peer) != 0)
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
	if (vnet_write(c, msg, sizeof(msg)) != 0 ||
	    vnet_read_full(c, done, sizeof("done")) != (ssize_t)sizeof("done") ||
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
		vnet_serve(NULL);
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
			if (!vperf_wc_ok(&wc[i], NULL))
				return -1;
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
	int c = -1, code, status = 1;

	if (side_open(&srv, opt.sock[0], opt.gid) != 0)
		goto out;
	/* the guest's Ethernet side: answer for our GID from now on, in every wait */
	if (vnet_start(&srv) != 0)
		goto out;
	srv.psn = (uint32_t)rte_rand() & 0xffffff;
	/* the path MTU is agreed out of band: theirs is -m, 1024 by default */
	code = peer_path_mtu(srv.mtu, &mtu_bytes);
	if (code < 0) {
		status = 2;
		goto out;
	}
	mtu = (uint8_t)code;
	if (opt.mode == PINGPONG_UD && opt.size > mtu_bytes) {
		fprintf(stderr, "vrdma-perf: --size %u: a UD message fits one packet of the "
			"path MTU, %u here\n", opt.size, mtu_bytes);
		status = 2;
		goto out;
	}
	memset(srv.buf, FILL, (size_t)srv.slots * srv.slot);
	c = vnet_accept("pingpong");
	if (c < 0 || exchange(c, &peer, mtu) != 0)
		goto out;
	close(c);
	c = -1;
	if (serve(&peer) == 0)
		status = 0;
out:
	if (c >= 0)
		close(c);
	vnet_report("pingpong");
	vnet_stop();
	if (srv.d != NULL && srv.qpn != 0)
		vuf_rdma_destroy_qp(srv.d, srv.qpn);
	vuf_rdma_close(srv.d);
	return status;
}
