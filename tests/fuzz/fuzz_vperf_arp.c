/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * vrdma-perf's ARP and neighbour discovery responder (app/vrdma-perf/
 * vperf_arp.c) on any received frame (untrusted: from the wire or another
 * guest), for an IPv4-mapped GID (::ffff:10.0.0.2) and an IPv6 one
 * (2001:db8::2), both with MAC 02:56:52:44:4d:01 (the seeds are a request
 * for each). Oracles: each input moves exactly one of answered, ignored,
 * malformed, or else learns; nothing is written past the answer; an answer exists only
 * when one was counted, is an ARP reply (60 bytes) or a neighbour
 * advertisement (86 bytes) from our MAC to a unicast one, for our address,
 * and an advertisement's checksum verifies.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vperf_arp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t us_mac[6] = { 0x02, 0x56, 0x52, 0x44, 0x4d, 0x01 };
static const uint8_t us_v4[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 2 };
static const uint8_t us_v6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

static uint64_t
verdicts(const struct vperf_nd *nd)
{
	return nd->st.arp_answered + nd->st.ns_answered + nd->st.ignored + nd->st.malformed;
}

static void
one(const uint8_t *gid, const uint8_t *data, size_t size)
{
	uint8_t out[VPERF_ND_MAX_FRAME + 8];
	uint64_t learned, answered;
	struct vperf_nd nd;
	size_t n;

	vperf_nd_init(&nd, us_mac, gid);
	memset(out, 0xa5, sizeof(out));
	n = vperf_nd_input(&nd, data, size, out);
	learned = nd.st.learned;
	answered = nd.st.arp_answered + nd.st.ns_answered;
	/* a fresh table: the counters are this input's */
	if (verdicts(&nd) > 1 || (verdicts(&nd) == 0 && learned == 0))
		abort();
	if ((n != 0) != (answered == 1) || out[VPERF_ND_MAX_FRAME] != 0xa5)
		abort();
	if (n == 0)
		return;
	/* from us, to a station, for our address */
	if (memcmp(out + 6, us_mac, 6) != 0 || (out[0] & 1) != 0)
		abort();
	if (nd.st.arp_answered == 1) {
		if (n != VPERF_ND_MIN_FRAME || out[12] != 0x08 || out[13] != 0x06 || out[21] != 2 ||
		    memcmp(out + 28, gid + 12, 4) != 0)
			abort();
		return;
	}
	if (n != VPERF_ND_MAX_FRAME || out[12] != 0x86 || out[13] != 0xdd || out[14 + 40] != 136 ||
	    memcmp(out + 22, gid, 16) != 0 || memcmp(out + 14 + 40 + 8, gid, 16) != 0 ||
	    vperf_icmp6_cksum(out + 22, out + 38, out + 54, n - 54) != 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	one(us_v4, data, size);
	one(us_v6, data, size);
	return 0;
}
