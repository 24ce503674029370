/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * vrdma-perf's ARP and neighbour discovery responder (app/vrdma-perf/
 * vperf_arp.c): an ARP request for our address gets the reply a kernel
 * sends, byte for byte; requests for others, gratuitous ones, probes,
 * short and garbage frames get nothing and are counted; a neighbour
 * solicitation for our IPv6 GID (to it or to its solicited-node group)
 * gets an advertisement whose checksum is the one computed elsewhere
 * (Python's sum over the pseudo-header, written down here); bad ones are
 * refused. The senders of requests and answers to us are learned, and our
 * own requests are what a peer answers.
 */

#include <string.h>

#include "test_case.h"
#include "vperf_arp.h"

static const uint8_t us_mac[6] = { 0x02, 0x56, 0x52, 0x44, 0x4d, 0x01 };
static const uint8_t peer_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
/* ::ffff:10.0.0.2, ::ffff:10.0.0.1 */
static const uint8_t us_v4[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 2 };
static const uint8_t peer_v4[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 1 };
/* 2001:db8::2, 2001:db8::1 */
static const uint8_t us_v6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };
static const uint8_t peer_v6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };

/* Linux's ARP request from 52:54:00:12:34:56 (10.0.0.1) for 10.0.0.2: 42 bytes. */
static const uint8_t arp_req[42] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x52, 0x54, 0x00, 0x12, 0x34, 0x56, 0x08, 0x06,
	0x00, 0x01, 0x08, 0x00, 0x06, 0x04, 0x00, 0x01,
	0x52, 0x54, 0x00, 0x12, 0x34, 0x56, 10, 0, 0, 1,
	0, 0, 0, 0, 0, 0, 10, 0, 0, 2,
};

/* The reply, padded to 60 bytes. */
static const uint8_t arp_rep[60] = {
	0x52, 0x54, 0x00, 0x12, 0x34, 0x56, 0x02, 0x56, 0x52, 0x44, 0x4d, 0x01, 0x08, 0x06,
	0x00, 0x01, 0x08, 0x00, 0x06, 0x04, 0x00, 0x02,
	0x02, 0x56, 0x52, 0x44, 0x4d, 0x01, 10, 0, 0, 2,
	0x52, 0x54, 0x00, 0x12, 0x34, 0x56, 10, 0, 0, 1,
};

/*
 * A neighbour solicitation from 2001:db8::1 (52:54:00:12:34:56) for
 * 2001:db8::2, to its solicited-node group ff02::1:ff00:2, checksum 0x976b.
 */
static const uint8_t ns_req[86] = {
	0x33, 0x33, 0xff, 0x00, 0x00, 0x02, 0x52, 0x54, 0x00, 0x12, 0x34, 0x56, 0x86, 0xdd,
	0x60, 0, 0, 0, 0, 32, 58, 255,
	0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
	0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0xff, 0, 0, 2,
	135, 0, 0x97, 0x6b, 0, 0, 0, 0,
	0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
	1, 1, 0x52, 0x54, 0x00, 0x12, 0x34, 0x56,
};

/* The advertisement: solicited and override, our MAC, checksum 0xead7. */
static const uint8_t na_rep[86] = {
	0x52, 0x54, 0x00, 0x12, 0x34, 0x56, 0x02, 0x56, 0x52, 0x44, 0x4d, 0x01, 0x86, 0xdd,
	0x60, 0, 0, 0, 0, 32, 58, 255,
	0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
	0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
	136, 0, 0xea, 0xd7, 0x60, 0, 0, 0,
	0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
	2, 1, 0x02, 0x56, 0x52, 0x44, 0x4d, 0x01,
};

#define ICMP6 (14 + 40)

/* Rewrite the checksum of an IPv6 ND frame @p f after a change. */
static void
reck(uint8_t *f, size_t len)
{
	uint16_t c;

	f[ICMP6 + 2] = f[ICMP6 + 3] = 0;
	c = vperf_icmp6_cksum(f + 22, f + 38, f + ICMP6, len - ICMP6);

	f[ICMP6 + 2] = (uint8_t)(c >> 8);
	f[ICMP6 + 3] = (uint8_t)c;
}

static void
test_arp_request_for_us_gets_the_reply(void **state)
{
	uint8_t out[VPERF_ND_MAX_FRAME], mac[6];
	struct vperf_nd nd;

	(void)state;
	vperf_nd_init(&nd, us_mac, us_v4);
	assert_false(vperf_nd_lookup(&nd, peer_v4, mac));
	assert_int_equal(vperf_nd_input(&nd, arp_req, sizeof(arp_req), out), sizeof(arp_rep));
	assert_memory_equal(out, arp_rep, sizeof(arp_rep));
	assert_int_equal(nd.st.arp_answered, 1);
	/* the asker is a neighbour now */
	assert_true(vperf_nd_lookup(&nd, peer_v4, mac));
	assert_memory_equal(mac, peer_mac, 6);
	assert_int_equal(nd.st.learned, 1);
	assert_int_equal(nd.st.ignored + nd.st.malformed, 0);
}

static void
expect_nothing(struct vperf_nd *nd, const uint8_t *f, size_t len, bool malformed)
{
	uint64_t ign = nd->st.ignored, bad = nd->st.malformed;
	uint8_t out[VPERF_ND_MAX_FRAME];

	assert_int_equal(vperf_nd_input(nd, f, len, out), 0);
	assert_int_equal(nd->st.ignored, ign + !malformed);
	assert_int_equal(nd->st.malformed, bad + malformed);
}

static void
test_arp_not_for_us_or_malformed_is_not_answered(void **state)
{
	uint8_t f[sizeof(arp_req)], mac[6];
	struct vperf_nd nd;

	(void)state;
	vperf_nd_init(&nd, us_mac, us_v4);
	/* for someone else */
	memcpy(f, arp_req, sizeof(f));
	f[41] = 3;
	expect_nothing(&nd, f, sizeof(f), false);
	/* gratuitous: 10.0.0.2 announcing itself */
	memcpy(f, arp_req, sizeof(f));
	f[31] = 2;
	expect_nothing(&nd, f, sizeof(f), false);
	/* a probe: sender 0.0.0.0 */
	memcpy(f, arp_req, sizeof(f));
	memset(f + 28, 0, 4);
	expect_nothing(&nd, f, sizeof(f), false);
	/* unicast to another station */
	memcpy(f, arp_req, sizeof(f));
	memcpy(f, peer_mac, 6);
	expect_nothing(&nd, f, sizeof(f), false);
	/* another protocol (IPv4) */
	memcpy(f, arp_req, sizeof(f));
	f[13] = 0x00;
	expect_nothing(&nd, f, sizeof(f), false);
	/* a reply to someone else */
	memcpy(f, arp_req, sizeof(f));
	f[21] = 2;
	expect_nothing(&nd, f, sizeof(f), false);
	/* short: one byte of the target address missing; no Ethernet header */
	expect_nothing(&nd, arp_req, sizeof(arp_req) - 1, true);
	expect_nothing(&nd, arp_req, 13, true);
	expect_nothing(&nd, arp_req, 0, true);
	/* garbage: another hardware type, address length, opcode */
	memcpy(f, arp_req, sizeof(f));
	f[15] = 6;
	expect_nothing(&nd, f, sizeof(f), true);
	memcpy(f, arp_req, sizeof(f));
	f[18] = 8;
	expect_nothing(&nd, f, sizeof(f), true);
	memcpy(f, arp_req, sizeof(f));
	f[21] = 3;
	expect_nothing(&nd, f, sizeof(f), true);
	/* a multicast sender hardware address; a multicast Ethernet source */
	memcpy(f, arp_req, sizeof(f));
	f[22] = 0x01;
	expect_nothing(&nd, f, sizeof(f), true);
	memcpy(f, arp_req, sizeof(f));
	f[6] = 0x01;
	expect_nothing(&nd, f, sizeof(f), true);
	/* an IPv6 GID has no IPv4 address to answer for */
	vperf_nd_init(&nd, us_mac, us_v6);
	expect_nothing(&nd, arp_req, sizeof(arp_req), false);
	assert_int_equal(nd.st.arp_answered + nd.st.learned, 0);
	assert_false(vperf_nd_lookup(&nd, peer_v4, mac));
}

/* Our ARP request for the peer; its kernel's reply teaches us its MAC. */
static void
test_arp_request_of_ours_and_the_answer(void **state)
{
	uint8_t out[VPERF_ND_MAX_FRAME], ans[VPERF_ND_MAX_FRAME], mac[6];
	struct vperf_nd nd, peer;

	(void)state;
	vperf_nd_init(&nd, us_mac, us_v4);
	vperf_nd_init(&peer, peer_mac, peer_v4);
	assert_int_equal(vperf_nd_solicit(&nd, peer_v4, out), 60);
	/* broadcast, request, our addresses, the target 10.0.0.1 */
	assert_memory_equal(out, "\xff\xff\xff\xff\xff\xff", 6);
	assert_memory_equal(out + 6, us_mac, 6);
	assert_int_equal(out[21], 1);
	assert_memory_equal(out + 22, us_mac, 6);
	assert_memory_equal(out + 28, us_v4 + 12, 4);
	assert_memory_equal(out + 38, peer_v4 + 12, 4);
	/* the peer answers it; the answer teaches us */
	assert_int_equal(vperf_nd_input(&peer, out, 60, ans), 60);
	assert_int_equal(vperf_nd_input(&nd, ans, 60, out), 0);
	assert_true(vperf_nd_lookup(&nd, peer_v4, mac));
	assert_memory_equal(mac, peer_mac, 6);
	assert_int_equal(nd.st.learned, 1);
	/* no IPv6 solicitation from an IPv4-mapped GID */
	assert_int_equal(vperf_nd_solicit(&nd, peer_v6, out), 0);
}

static void
test_ns_for_us_gets_the_advertisement(void **state)
{
	uint8_t out[VPERF_ND_MAX_FRAME], f[sizeof(ns_req)], pad[sizeof(ns_req) + 10], mac[6];
	struct vperf_nd nd;

	(void)state;
	vperf_nd_init(&nd, us_mac, us_v6);
	assert_int_equal(vperf_nd_input(&nd, ns_req, sizeof(ns_req), out), sizeof(na_rep));
	assert_memory_equal(out, na_rep, sizeof(na_rep));
	assert_int_equal(nd.st.ns_answered, 1);
	assert_true(vperf_nd_lookup(&nd, peer_v6, mac));
	assert_memory_equal(mac, peer_mac, 6);
	/* to our own address (unicast), with no source option: answered to the frame's source */
	memcpy(f, ns_req, sizeof(f));
	memcpy(f, us_mac, 6);
	memcpy(f + 38, us_v6, 16);
	f[19] = 24;
	reck(f, 14 + 40 + 24);
	assert_int_equal(vperf_nd_input(&nd, f, 14 + 40 + 24, out), sizeof(na_rep));
	assert_memory_equal(out, na_rep, 6);
	assert_int_equal(nd.st.ns_answered, 2);
	/* trailing bytes past the IPv6 payload (Ethernet padding) are not read */
	memset(pad, 0xee, sizeof(pad));
	memcpy(pad, ns_req, sizeof(ns_req));
	assert_int_equal(vperf_nd_input(&nd, pad, sizeof(pad), out), sizeof(na_rep));
	assert_memory_equal(out, na_rep, sizeof(na_rep));
	assert_int_equal(nd.st.ignored + nd.st.malformed, 0);
}

static void
test_ns_not_for_us_or_malformed_is_not_answered(void **state)
{
	uint8_t f[sizeof(ns_req)];
	struct vperf_nd nd;

	(void)state;
	vperf_nd_init(&nd, us_mac, us_v6);
	/* another target (the checksum made right) */
	memcpy(f, ns_req, sizeof(f));
	f[ICMP6 + 8 + 15] = 3;
	reck(f, sizeof(f));
	expect_nothing(&nd, f, sizeof(f), false);
	/* to all nodes, not our group */
	memcpy(f, ns_req, sizeof(f));
	f[38 + 11] = 0;
	f[38 + 12] = 0;
	f[38 + 15] = 1;
	reck(f, sizeof(f));
	expect_nothing(&nd, f, sizeof(f), false);
	/* duplicate address detection: from ::, no option */
	memcpy(f, ns_req, sizeof(f));
	memset(f + 22, 0, 16);
	f[19] = 24;
	reck(f, 14 + 40 + 24);
	expect_nothing(&nd, f, 14 + 40 + 24, false);
	/* another ICMPv6 message (an echo request); another next header (UDP) */
	memcpy(f, ns_req, sizeof(f));
	f[ICMP6] = 128;
	expect_nothing(&nd, f, sizeof(f), false);
	memcpy(f, ns_req, sizeof(f));
	f[20] = 17;
	expect_nothing(&nd, f, sizeof(f), false);
	/* a checksum off by one */
	memcpy(f, ns_req, sizeof(f));
	f[ICMP6 + 3] ^= 1;
	expect_nothing(&nd, f, sizeof(f), true);
	/* routed (hop limit 64), code 1, a multicast target, a multicast source */
	memcpy(f, ns_req, sizeof(f));
	f[21] = 64;
	expect_nothing(&nd, f, sizeof(f), true);
	memcpy(f, ns_req, sizeof(f));
	f[ICMP6 + 1] = 1;
	reck(f, sizeof(f));
	expect_nothing(&nd, f, sizeof(f), true);
	memcpy(f, ns_req, sizeof(f));
	f[ICMP6 + 8] = 0xff;
	reck(f, sizeof(f));
	expect_nothing(&nd, f, sizeof(f), true);
	memcpy(f, ns_req, sizeof(f));
	f[22] = 0xff;
	reck(f, sizeof(f));
	expect_nothing(&nd, f, sizeof(f), true);
	/* an option of length 0; an option past the message */
	memcpy(f, ns_req, sizeof(f));
	f[ICMP6 + 25] = 0;
	reck(f, sizeof(f));
	expect_nothing(&nd, f, sizeof(f), true);
	memcpy(f, ns_req, sizeof(f));
	f[ICMP6 + 25] = 2;
	reck(f, sizeof(f));
	expect_nothing(&nd, f, sizeof(f), true);
	/* a payload length past the frame; a frame cut inside the IPv6 header; version 4 */
	expect_nothing(&nd, ns_req, sizeof(ns_req) - 1, true);
	expect_nothing(&nd, ns_req, 14 + 39, true);
	memcpy(f, ns_req, sizeof(f));
	f[14] = 0x40;
	expect_nothing(&nd, f, sizeof(f), true);
	/* too short for a target */
	memcpy(f, ns_req, sizeof(f));
	f[19] = 20;
	reck(f, 14 + 40 + 20);
	expect_nothing(&nd, f, 14 + 40 + 20, true);
	/* an IPv4-mapped GID answers no solicitation */
	vperf_nd_init(&nd, us_mac, us_v4);
	expect_nothing(&nd, ns_req, sizeof(ns_req), false);
	assert_int_equal(nd.st.ns_answered + nd.st.learned, 0);
}

/* Our solicitation for the peer's IPv6 GID; the peer's advertisement teaches us. */
static void
test_ns_of_ours_and_the_advertisement(void **state)
{
	static const uint8_t group[16] = { 0xff, 0x02, [11] = 0x01, 0xff, 0, 0, 1 };
	uint8_t out[VPERF_ND_MAX_FRAME], ans[VPERF_ND_MAX_FRAME], mac[6];
	struct vperf_nd nd, peer;

	(void)state;
	vperf_nd_init(&nd, us_mac, us_v6);
	vperf_nd_init(&peer, peer_mac, peer_v6);
	assert_int_equal(vperf_nd_solicit(&nd, peer_v6, out), 86);
	assert_memory_equal(out, "\x33\x33\xff\x00\x00\x01", 6);
	assert_memory_equal(out + 22, us_v6, 16);
	assert_memory_equal(out + 38, group, 16);
	/* the checksum Python computed for this message */
	assert_int_equal(out[ICMP6 + 2] << 8 | out[ICMP6 + 3], 0x7c8d);
	assert_int_equal(vperf_nd_input(&peer, out, 86, ans), 86);
	assert_int_equal(peer.st.ns_answered, 1);
	assert_int_equal(vperf_nd_input(&nd, ans, 86, out), 0);
	assert_true(vperf_nd_lookup(&nd, peer_v6, mac));
	assert_memory_equal(mac, peer_mac, 6);
	/* an unsolicited advertisement (to all nodes) teaches nothing */
	vperf_nd_init(&nd, us_mac, us_v6);
	vperf_nd_solicit(&nd, peer_v6, out);
	assert_int_equal(vperf_nd_input(&peer, out, 86, ans), 86);
	memcpy(ans + 38, "\xff\x02\0\0\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
	reck(ans, 86);
	expect_nothing(&nd, ans, 86, false);
	assert_false(vperf_nd_lookup(&nd, peer_v6, mac));
}

/* The table keeps the last VPERF_ND_TABLE neighbours; one asking again is refreshed in place. */
static void
test_neighbour_table_keeps_the_latest(void **state)
{
	uint8_t f[sizeof(arp_req)], out[VPERF_ND_MAX_FRAME], mac[6], ip[16];
	struct vperf_nd nd;
	unsigned int k;

	(void)state;
	vperf_nd_init(&nd, us_mac, us_v4);
	for (k = 0; k < VPERF_ND_TABLE + 1; k++) {
		memcpy(f, arp_req, sizeof(f));
		f[27] = (uint8_t)(0x56 + k);
		f[31] = (uint8_t)(100 + k);
		assert_int_equal(vperf_nd_input(&nd, f, sizeof(f), out), 60);
	}
	vperf_gid_v4(ip, 0x0a000064); /* the first: replaced by the last */
	assert_false(vperf_nd_lookup(&nd, ip, mac));
	vperf_gid_v4(ip, 0x0a000064 + VPERF_ND_TABLE);
	assert_true(vperf_nd_lookup(&nd, ip, mac));
	assert_int_equal(mac[5], 0x56 + VPERF_ND_TABLE);
	/* the second asks again from a new MAC */
	memcpy(f, arp_req, sizeof(f));
	f[27] = 0x99;
	f[31] = 101;
	vperf_nd_input(&nd, f, sizeof(f), out);
	vperf_gid_v4(ip, 0x0a000065);
	assert_true(vperf_nd_lookup(&nd, ip, mac));
	assert_int_equal(mac[5], 0x99);
	assert_true(vperf_gid_is_v4(ip));
	assert_false(vperf_gid_is_v4(us_v6));
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arp_request_for_us_gets_the_reply),
		cmocka_unit_test(test_arp_not_for_us_or_malformed_is_not_answered),
		cmocka_unit_test(test_arp_request_of_ours_and_the_answer),
		cmocka_unit_test(test_ns_for_us_gets_the_advertisement),
		cmocka_unit_test(test_ns_not_for_us_or_malformed_is_not_answered),
		cmocka_unit_test(test_ns_of_ours_and_the_advertisement),
		cmocka_unit_test(test_neighbour_table_keeps_the_latest),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
