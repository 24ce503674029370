/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * roce_pkt_parse() against frames crafted here byte by byte from the facts
 * (roce-vhost.md §2.2-2.4), each with one fault, in exactly-sized segments
 * (roce_wire_util.h); part of test_pmd_roce_wire (run from its main()).
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "roce.h"
#include "roce_wire.h"
#include "roce_wire_util.h"
#include "test_eal.h"

#define FRAME_MAX 16384

int roce_wire_crafted_run(void);

static int
parse_bytes(const uint8_t *b, uint32_t len, const uint32_t *cuts, unsigned int ncuts,
	    struct roce_pkt *pkt)
{
	int r = wu_parse(test_pool, b, len, cuts, ncuts, pkt);

	assert_int_not_equal(r, -1);
	return r;
}

/* What craft() builds; everything else is fixed (10.0.0.1 -> .2, fd00::1 -> ::2). */
struct spec {
	uint8_t v6, opcode, bth1, padcnt, pad;
	uint16_t vlan; /* 0: untagged */
	uint32_t ext;  /* extension header bytes after the BTH */
	uint32_t pay;  /* payload bytes */
};

static uint32_t
craft(uint8_t *b, const struct spec *s, struct wu_lay *l)
{
	uint32_t o = 12, udp_len = 8 + 12 + s->ext + s->pay + s->pad + 4, k;
	uint8_t *ip;

	memset(b, 0, FRAME_MAX);
	b[0] = b[6] = 0x02;
	b[5] = 2;
	b[11] = 1;
	if (s->vlan) {
		wu_put16(b + 12, 0x8100);
		wu_put16(b + 14, s->vlan);
		o = 16;
	}
	wu_put16(b + o, s->v6 ? 0x86dd : 0x0800);
	o += 2;
	ip = b + o;
	l->l3 = o;
	l->v6 = s->v6;
	if (!s->v6) {
		ip[0] = 0x45;
		wu_put16(ip + 2, 20 + udp_len);
		wu_put16(ip + 4, 0x1234);
		wu_put16(ip + 6, 0x4000);
		ip[8] = 64;
		ip[9] = 17;
		ip[12] = ip[16] = 10;
		ip[15] = 1;
		ip[19] = 2;
		o += 20;
	} else {
		ip[0] = 0x60;
		wu_put16(ip + 4, udp_len);
		ip[6] = 17;
		ip[7] = 64;
		ip[8] = ip[24] = 0xfd;
		ip[23] = 1;
		ip[39] = 2;
		o += 40;
	}
	l->udp = o;
	wu_put16(b + o, 0xc123);
	wu_put16(b + o + 2, ROCE_UDP_PORT);
	wu_put16(b + o + 4, udp_len);
	o += 8;
	l->bth = o;
	b[o] = s->opcode;
	b[o + 1] = (uint8_t)(s->bth1 | s->padcnt << 4);
	wu_put16(b + o + 2, 0xffff);
	wu_put24(b + o + 5, 0x123);
	wu_put24(b + o + 9, 0xabcd);
	o += 12;
	for (k = 0; k < s->ext + s->pay; k++)
		b[o++] = (uint8_t)(k * 7 + 1);
	o += s->pad;
	l->end = o + 4;
	wu_reseal(b, l);
	return l->end;
}

/* Extension header bytes of an opcode (facts §2.3), -1 when lib/roce does not take it. */
static int
ext_of(uint8_t op, bool *payload)
{
	static const int8_t rc[0x18] = {
		0, 0, 0, 4, 0, 4, 16, 0, 0, 4, 16, 20, 16, 4, 0, 4, 4, 4, 12, 28, 28, -1, 4, 4,
	};
	uint8_t o = op & 0x1f;

	*payload = o <= 0x0b || (o >= 0x0d && o <= 0x10) || o == 0x16 || o == 0x17;
	if (op < 0x18)
		return rc[o];
	if (op >= 0x20 && op <= 0x2b)
		return rc[o];
	if (op == 0x64 || op == 0x65)
		return op == 0x64 ? 8 : 12;
	return -1;
}

/*
 * Every opcode: the ones lib/roce takes parse with their header length of
 * the facts' table (payload right after it); any other is BAD_HEADER.
 */
static void
test_parse_knows_exactly_the_facts_opcodes_and_lengths(void **state)
{
	static uint8_t b[FRAME_MAX];
	unsigned int op, ok = 0;

	(void)state;
	for (op = 0; op < 256; op++) {
		bool pay;
		int ext = ext_of((uint8_t)op, &pay);
		struct spec s = { .opcode = (uint8_t)op, .v6 = op & 1,
				  .ext = ext < 0 ? 16 : (uint32_t)ext, .pay = pay ? 8 : 0 };
		struct roce_pkt pkt;
		struct wu_lay l;
		uint32_t len = craft(b, &s, &l);
		enum roce_parse_result r = parse_bytes(b, len, NULL, 0, &pkt);

		if (r != (ext < 0 ? ROCE_PARSE_BAD_HEADER : ROCE_PARSE_OK))
			fail_msg("opcode 0x%02x: parse says %d", op, r);
		if (ext < 0)
			continue;
		ok++;
		assert_int_equal(pkt.pay_off, l.bth + 12 + s.ext);
		assert_int_equal(pkt.paylen, s.pay);
	}
	assert_int_equal(ok, 23 + 12 + 2);
}

enum mut {
	M_NONE, M_ETH_PAD, M_MIGREQ, M_FECN, M_ROUTER, M_UDP_CKSUM, M_TVER, M_IP_MF,
	M_IP_FRAG, M_IP_CKSUM, M_IP_VER, M_IP_IHL, M_UDP_LONG, M_UDP_SHORT, M_IP_LONG,
	M_TINY, M_ICRC, M_PAYLOAD, M_DPORT, M_PROTO, M_ARP,
};

/* Apply @p m to a crafted frame; fix checksum and ICRC unless the fault is theirs. */
static void
mutate(uint8_t *b, uint32_t *len, const struct wu_lay *l, enum mut m)
{
	uint8_t *ip = b + l->l3, *udp = b + l->udp, *bth = b + l->bth;
	uint32_t v;

	switch (m) {
	case M_NONE:
		return;
	case M_ETH_PAD: /* Ethernet padding after the ICRC */
		*len += 6;
		return;
	case M_FECN:
		bth[4] = 0xc0;
		return;
	case M_UDP_CKSUM:
		wu_put16(udp + 6, 0xbeef);
		return;
	case M_ROUTER: /* a router's rewrite: TTL, DSCP/ECN, flow label */
		if (l->v6) {
			ip[0] |= 0x0b;
			ip[1] = 0x83;
			ip[3] = 0x42;
			ip[7]--;
		} else {
			ip[1] = 0xbb;
			ip[8]--;
			wu_ip4_fix(ip);
		}
		return;
	case M_IP_CKSUM:
		ip[11] ^= 0x01;
		return;
	case M_ICRC:
		b[l->end - 1] ^= 0x80;
		return;
	case M_PAYLOAD:
		bth[12] ^= 0x04;
		return;
	case M_MIGREQ: bth[1] |= 0x40; break;
	case M_TVER: bth[1] |= 0x01; break;
	case M_IP_MF: ip[6] |= 0x20; break;
	case M_IP_FRAG: ip[7] = 1; break;
	case M_IP_VER: ip[0] = l->v6 ? (uint8_t)(0x40 | (ip[0] & 0x0f)) : 0x55; break;
	case M_IP_IHL: ip[0] = 0x46; break;
	case M_UDP_LONG: wu_put16(udp + 4, wu_be16(udp + 4) + 4); break;
	case M_UDP_SHORT: wu_put16(udp + 4, wu_be16(udp + 4) - 4); break;
	case M_IP_LONG:
		v = l->v6 ? 4 : 2;
		wu_put16(ip + v, wu_be16(ip + v) + 8);
		break;
	case M_TINY: /* UDP + BTH only: no room for an ICRC */
		wu_put16(udp + 4, 8 + 12);
		if (l->v6)
			wu_put16(ip + 4, 8 + 12);
		else
			wu_put16(ip + 2, 20 + 8 + 12);
		break;
	case M_DPORT: wu_put16(udp + 2, ROCE_UDP_PORT - 1); break;
	case M_PROTO: ip[l->v6 ? 6 : 9] = 6; break;
	case M_ARP: wu_put16(ip - 2, 0x0806); break;
	}
	wu_reseal(b, l);
}

/*
 * Crafted frames with one fault each get the refusal that names it; the
 * variations a network makes (Ethernet padding, ECN/TTL/flow label rewrite,
 * FECN/BECN, a UDP checksum) and MigReq set (ConnectX-3) parse.
 */
static void
test_parse_refuses_each_crafted_fault_with_its_reason(void **state)
{
	enum { OK = ROCE_PARSE_OK, NOT = ROCE_PARSE_NOT_ROCE, TRUNC = ROCE_PARSE_TRUNCATED,
	       HDR = ROCE_PARSE_BAD_HEADER, ICRC = ROCE_PARSE_BAD_ICRC };
	static const struct spec send5 = { .opcode = 0x04, .pay = 5, .padcnt = 3, .pad = 3 },
		ud6 = { .v6 = 1, .vlan = 7, .opcode = 0x65, .ext = 12, .pay = 100 },
		ack = { .opcode = 0x11, .ext = 4 };
	static const struct {
		const char *what;
		const struct spec *s;
		struct spec own;
		enum mut m;
		int want;
	} c[] = {
		{ "SEND 5 bytes, pad 3", &send5, {0}, M_NONE, OK },
		{ "UD SEND imm, IPv6, VLAN", &ud6, {0}, M_NONE, OK },
		{ "ACK", &ack, {0}, M_NONE, OK },
		{ "SEND 0 bytes + Ethernet pad", NULL, { .opcode = 0x04 }, M_ETH_PAD, OK },
		{ "MigReq set", &send5, {0}, M_MIGREQ, OK },
		{ "FECN/BECN set", &ud6, {0}, M_FECN, OK },
		{ "IPv4 TTL/ECN rewritten", &send5, {0}, M_ROUTER, OK },
		{ "IPv6 hop/class/flow rewritten", &ud6, {0}, M_ROUTER, OK },
		{ "UDP checksum set", &ack, {0}, M_UDP_CKSUM, OK },
		{ "TVer 1", &send5, {0}, M_TVER, HDR },
		{ "TVer 1, IPv6", &ud6, {0}, M_TVER, HDR },
		{ "payload 5, PadCnt 0", NULL, { .opcode = 0x04, .pay = 5 }, M_NONE, HDR },
		{ "payload 4 + 2 pad bytes, PadCnt 2", NULL,
		  { .opcode = 0x04, .pay = 4, .padcnt = 2, .pad = 2 }, M_NONE, HDR },
		{ "PadCnt 3, no bytes for it", NULL, { .opcode = 0x04, .padcnt = 3 }, M_NONE, TRUNC },
		{ "ACK with PadCnt 1", NULL, { .opcode = 0x11, .ext = 4, .padcnt = 1, .pad = 1 },
		  M_NONE, HDR },
		{ "ACK with payload", NULL, { .opcode = 0x11, .ext = 4, .pay = 4 }, M_NONE, HDR },
		{ "READ request with payload", NULL, { .opcode = 0x0c, .ext = 16, .pay = 8 },
		  M_NONE, HDR },
		{ "CMP_SWAP with payload", NULL, { .opcode = 0x13, .ext = 28, .pay = 8 }, M_NONE, HDR },
		{ "WRITE ONLY cut in its RETH", NULL, { .opcode = 0x0a, .ext = 8 }, M_NONE, TRUNC },
		{ "IPv4 more fragments", &send5, {0}, M_IP_MF, HDR },
		{ "IPv4 fragment offset", &ack, {0}, M_IP_FRAG, HDR },
		{ "IPv4 bad header checksum", &send5, {0}, M_IP_CKSUM, HDR },
		{ "IPv4 version 5", &send5, {0}, M_IP_VER, HDR },
		{ "IPv4 IHL 6", &send5, {0}, M_IP_IHL, HDR },
		{ "IPv6 version 4", &ud6, {0}, M_IP_VER, HDR },
		{ "UDP length > IP payload", &send5, {0}, M_UDP_LONG, TRUNC },
		{ "UDP length > IP payload, IPv6", &ud6, {0}, M_UDP_LONG, TRUNC },
		{ "UDP length < IP payload", &send5, {0}, M_UDP_SHORT, HDR },
		{ "UDP length < IP payload, IPv6", &ud6, {0}, M_UDP_SHORT, HDR },
		{ "IP length beyond the frame", &ack, {0}, M_IP_LONG, TRUNC },
		{ "IPv6 length beyond the frame", &ud6, {0}, M_IP_LONG, TRUNC },
		{ "no room for the ICRC", &send5, {0}, M_TINY, TRUNC },
		{ "no room for the ICRC, IPv6", &ud6, {0}, M_TINY, TRUNC },
		{ "ICRC bit flipped", &ud6, {0}, M_ICRC, ICRC },
		{ "payload bit flipped", &send5, {0}, M_PAYLOAD, ICRC },
		{ "UDP port 4790", &send5, {0}, M_DPORT, NOT },
		{ "IPv4 TCP", &ack, {0}, M_PROTO, NOT },
		{ "IPv6 TCP", &ud6, {0}, M_PROTO, NOT },
		{ "ARP EtherType", &ack, {0}, M_ARP, NOT },
	};
	static uint8_t b[FRAME_MAX];
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(c); i++) {
		struct roce_pkt pkt;
		struct wu_lay l;
		uint32_t len = craft(b, c[i].s != NULL ? c[i].s : &c[i].own, &l);
		uint32_t cut = l.bth + 7;
		int r1, r2;

		mutate(b, &len, &l, c[i].m);
		r1 = parse_bytes(b, len, NULL, 0, &pkt);
		r2 = parse_bytes(b, len, &cut, 1, &pkt);
		if (r1 != c[i].want || r2 != c[i].want)
			fail_msg("%s: parse says %d (%d in 2 segments), want %d", c[i].what, r1, r2,
				 c[i].want);
	}
}

/*
 * A frame cut at any length, in one or two segments, is NOT_ROCE while its
 * UDP destination port is not all there and TRUNCATED from then on; never OK.
 */
static void
test_parse_of_every_truncation_is_not_roce_or_truncated(void **state)
{
	static const struct spec s[] = {
		{ .opcode = 0x04, .pay = 5, .padcnt = 3, .pad = 3 },
		{ .v6 = 1, .vlan = 7, .opcode = 0x65, .ext = 12, .pay = 100 },
		{ .opcode = 0x11, .ext = 4 },
		{ .v6 = 1, .opcode = 0x13, .ext = 28 },
		{ .vlan = 100, .opcode = 0x0e, .pay = 1024 },
	};
	static uint8_t b[FRAME_MAX];
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(s); i++) {
		struct roce_pkt pkt;
		struct wu_lay l;
		uint32_t full = craft(b, &s[i], &l), len;

		assert_int_equal(parse_bytes(b, full, NULL, 0, &pkt), ROCE_PARSE_OK);
		for (len = 0; len < full; len++) {
			enum roce_parse_result want = len < l.bth ? ROCE_PARSE_NOT_ROCE :
							ROCE_PARSE_TRUNCATED;
			uint32_t cut = len / 2;
			int r1 = parse_bytes(b, len, NULL, 0, &pkt);
			int r2 = parse_bytes(b, len, &cut, 1, &pkt);

			if (r1 != (int)want || r2 != (int)want)
				fail_msg("kind %u cut at %u of %u: %d (%d in 2 segments), want %d",
					 i, len, full, r1, r2, want);
		}
	}
}

/*
 * roce_pkt_build_headers() writes every byte of roce_hdr_len(): the same
 * descriptor built over a buffer of 0xa5 and one of 0x5a gives the same
 * bytes, for every opcode it builds, IPv4 and IPv6, with and without VLAN.
 * (It zeroes reserved bytes one by one instead of a memset, so a byte
 * left out would carry whatever the buffer held.)
 */
static void
test_build_headers_write_every_byte_they_cover(void **state)
{
	static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 1 };
	uint8_t gid4[2][ROCE_GID_LEN], gid6[2][ROCE_GID_LEN];
	uint8_t x[160], y[160];
	unsigned int op, v, built = 0;

	(void)state;
	/* ::ffff:10.0.0.1 and ::ffff:10.0.0.2; fe80::1 and fe80::2 */
	memset(gid4, 0, sizeof(gid4));
	memset(gid6, 0, sizeof(gid6));
	for (v = 0; v < 2; v++) {
		gid4[v][10] = gid4[v][11] = 0xff;
		gid4[v][12] = 10;
		gid4[v][15] = (uint8_t)(v + 1);
	}
	gid6[0][0] = gid6[1][0] = 0xfe;
	gid6[0][1] = gid6[1][1] = 0x80;
	gid6[0][15] = 1;
	gid6[1][15] = 2;
	for (op = 0; op < 256; op++) {
		if (!(roce_opcode_table[op].flags & ROCE_OPF_VALID))
			continue;
		for (v = 0; v < 4; v++) {
			struct roce_hdr_desc d = {
				.smac = mac, .dmac = mac,
				.vlan_id = v & 1 ? 7 : ROCE_VLAN_NONE,
				.sgid = v & 2 ? gid6[0] : gid4[0],
				.dgid = v & 2 ? gid6[1] : gid4[1],
				.hop_limit = 64, .opcode = (uint8_t)op, .pkey = 0xffff,
				.dest_qpn = 0x11, .psn = 0x123456, .paylen = 13,
				.va = 0x1000, .rkey = 0x200, .dma_len = 13, .msn = 1,
				.qkey = 0x80010000, .src_qpn = 1,
			};
			uint32_t len = roce_hdr_len(&d);

			assert_true(len <= sizeof(x));
			memset(x, 0xa5, sizeof(x));
			memset(y, 0x5a, sizeof(y));
			assert_int_equal(roce_pkt_build_headers(x, &d), roce_pkt_build_headers(y, &d));
			if (memcmp(x, y, len) != 0)
				fail_msg("opcode 0x%02x variant %u: a header byte is not written", op, v);
			built++;
		}
	}
	assert_true(built >= 4 * 20);
}

/* A device with GID 10.0.0.2 at index 1 (craft()'s destination), VLAN filter as given. */
static struct roce_dev *
vlan_dev(const char *tag, bool filter, uint16_t vid, struct rte_ring **rx, struct rte_ring **tx)
{
	struct roce_dev_conf c = { .mac = { 2, 0, 0, 0, 0, 2 }, .pool = test_pool,
				   .socket_id = SOCKET_ID_ANY, .vlan_filter = filter,
				   .vlan_id = vid };
	uint8_t gid[ROCE_GID_LEN] = { [10] = 0xff, [11] = 0xff, [12] = 10, [15] = 2 };
	char name[RTE_RING_NAMESIZE], err[ROCE_ERR_LEN];
	struct roce_dev *d;

	snprintf(name, sizeof(name), "vl_rx_%s", tag);
	*rx = c.rx_ring = rte_ring_create(name, 64, SOCKET_ID_ANY, 0);
	snprintf(name, sizeof(name), "vl_tx_%s", tag);
	*tx = c.tx_ring = rte_ring_create(name, 64, SOCKET_ID_ANY, 0);
	assert_non_null(c.rx_ring);
	assert_non_null(c.tx_ring);
	d = roce_dev_create(&c, err, sizeof(err));
	if (d == NULL)
		fail_msg("roce_dev_create: %s", err);
	assert_int_equal(roce_gid_set(d, 1, gid), 0);
	return d;
}

/*
 * The receive VLAN filter (roce_dev_conf.vlan_filter, VID 7): a UD SEND to
 * the device's GID is taken untagged, priority-tagged (VID 0) and on VID 7
 * (it then fails as the unknown QPN it names: the filter let it through),
 * and dropped on VID 9 (rx_bad_vlan); without the filter VID 9 is taken; a
 * VID of 4095 is refused at creation.
 */
static void
test_vlan_filter_takes_vid_0_and_its_own(void **state)
{
	static const uint16_t tci[4] = { 0, 0xa000, 0xa007, 0xa009 };
	static uint8_t b[FRAME_MAX];
	struct roce_dev_conf bad = { .mac = { 2, 0, 0, 0, 0, 2 }, .pool = test_pool,
				     .vlan_filter = true, .vlan_id = 4095 };
	struct roce_dev_stats st;
	struct rte_ring *rx[2], *tx[2];
	struct roce_dev *d[2];
	char err[ROCE_ERR_LEN];
	unsigned int k, i;

	(void)state;
	d[0] = vlan_dev("f", true, 7, &rx[0], &tx[0]);
	d[1] = vlan_dev("n", false, 0, &rx[1], &tx[1]);
	for (k = 0; k < 2; k++) {
		for (i = 0; i < RTE_DIM(tci); i++) {
			struct spec sp = { .opcode = 0x64, .vlan = tci[i], .ext = 8, .pay = 8 };
			struct wu_lay l;
			uint32_t len = craft(b, &sp, &l);
			struct rte_mbuf *m = wu_xchain(test_pool, b, len, NULL, 0);

			assert_non_null(m);
			/* consumed: counted, never handed back */
			assert_int_equal(roce_dev_rx_burst(d[k], &m, 1), 0);
		}
		roce_dev_stats_get(d[k], &st);
		assert_int_equal(st.rx_bad_vlan, k == 0 ? 1 : 0);
		assert_int_equal(st.rx_unknown_qpn, k == 0 ? 3 : 4);
		assert_int_equal(st.rx_bad_icrc, 0);
		roce_dev_destroy(d[k]);
		rte_ring_free(rx[k]);
		rte_ring_free(tx[k]);
	}
	bad.rx_ring = bad.tx_ring = rte_ring_create("vl_bad", 64, SOCKET_ID_ANY, 0);
	assert_non_null(bad.rx_ring);
	assert_null(roce_dev_create(&bad, err, sizeof(err)));
	assert_non_null(strstr(err, "vlan_id 4095"));
	rte_ring_free(bad.rx_ring);
}

/* The crafted-frame group (EAL and test_pool are the caller's). */
int
roce_wire_crafted_run(void)
{
	const struct CMUnitTest crafted[] = {
		cmocka_unit_test(test_parse_knows_exactly_the_facts_opcodes_and_lengths),
		cmocka_unit_test(test_parse_refuses_each_crafted_fault_with_its_reason),
		cmocka_unit_test(test_parse_of_every_truncation_is_not_roce_or_truncated),
		cmocka_unit_test(test_build_headers_write_every_byte_they_cover),
		cmocka_unit_test(test_vlan_filter_takes_vid_0_and_its_own),
	};

	return cmocka_run_group_tests_name("roce_wire_crafted", crafted, NULL, NULL);
}
