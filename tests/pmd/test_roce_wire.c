/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * lib/roce's wire layer against references it does not share code with:
 * a capture of Linux rxe traffic (tests/data/roce), tshark's InfiniBand
 * dissector, an ICRC computed with zlib from the facts (roce-vhost.md
 * §2.4), and frames crafted byte by byte. Frames given to the parser
 * sit in exactly-sized malloc blocks (roce_wire_util.h), so ASan sees reads
 * past their end. The crafted frames are in test_roce_wire_crafted.c.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include <pcap/pcap.h>
#include <rte_byteorder.h>

#include "roce_test_util.h"
#include "roce_wire.h"
#include "roce_wire_util.h"
#include "test_case.h"

#ifndef ROCE_SAMPLE_PCAP
#error "ROCE_SAMPLE_PCAP (the rxe capture) comes from tests/pmd/meson.build"
#endif
#ifndef ROCE_TEST_OUT_DIR
#error "ROCE_TEST_OUT_DIR (the build directory) comes from tests/pmd/meson.build"
#endif

int roce_wire_crafted_run(void); /* test_roce_wire_crafted.c */

#define CAP_MAX 4096
#define FRAME_MAX 16384

/* Parse @p b in exactly-sized segments cut at @p cuts. */
static int
parse_bytes(const uint8_t *b, uint32_t len, const uint32_t *cuts, unsigned int ncuts,
	    struct roce_pkt *pkt)
{
	int r = wu_parse(test_pool, b, len, cuts, ncuts, pkt);

	assert_int_not_equal(r, -1);
	return r;
}

/* ---------------- the rxe capture ---------------- */

static struct {
	uint8_t *pkt[CAP_MAX];
	uint32_t len[CAP_MAX];
	uint32_t n;
} cap;

static int
cap_load(void **state)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	pcap_t *p;

	(void)state;
	p = pcap_open_offline(ROCE_SAMPLE_PCAP, err);
	if (p == NULL) {
		fprintf(stderr, "%s: %s\n", ROCE_SAMPLE_PCAP, err);
		return -1;
	}
	while (cap.n < CAP_MAX && pcap_next_ex(p, &h, &data) == 1) {
		if (h->caplen != h->len)
			return -1;
		cap.pkt[cap.n] = malloc(h->caplen);
		memcpy(cap.pkt[cap.n], data, h->caplen);
		cap.len[cap.n++] = h->caplen;
	}
	pcap_close(p);
	return 0;
}

static int
cap_free(void **state)
{
	(void)state;
	while (cap.n > 0)
		free(cap.pkt[--cap.n]);
	return 0;
}

/*
 * Every frame to UDP 4791 of the rxe capture parses with a verified ICRC
 * (in 1 to 3 segments, one of them cut inside the ICRC) with the opcode,
 * QPN and PSN it carries, and the opcodes are the README's; every other
 * frame is NOT_ROCE.
 */
static void
test_rxe_capture_parses_with_icrc_and_readme_histogram(void **state)
{
	static const struct { uint8_t op; uint32_t n; } want[] = {
		{ 0x00, 310 }, { 0x01, 1329 }, { 0x02, 310 }, { 0x0a, 795 }, { 0x11, 1111 },
		{ 0x64, 8 },
	};
	uint32_t hist[256] = { 0 }, roce = 0, i;

	(void)state;
	assert_int_equal(cap.n, 3962);
	for (i = 0; i < cap.n; i++) {
		const uint8_t *b = cap.pkt[i];
		struct roce_pkt pkt;
		struct wu_lay l;
		uint32_t cuts[2] = { 0, 0 };
		enum roce_parse_result r;

		if (!wu_lay_of(b, cap.len[i], &l)) {
			r = parse_bytes(b, cap.len[i], NULL, 0, &pkt);
			if (r != ROCE_PARSE_NOT_ROCE)
				fail_msg("frame %u (not RoCE): parse says %d", i + 1, r);
			continue;
		}
		roce++;
		if (i % 3 == 1) {
			cuts[0] = l.bth + 5;
			cuts[1] = l.end - 2;
		} else if (i % 3 == 2) {
			cuts[0] = 13;
		}
		r = parse_bytes(b, cap.len[i], cuts, 2, &pkt);
		if (r != ROCE_PARSE_OK)
			fail_msg("frame %u (RoCE): parse says %d", i + 1, r);
		/* the capture is what the README says: our own ICRC agrees */
		assert_int_equal(wu_icrc(b, &l), wu_le32(b + l.end - 4));
		assert_int_equal(pkt.opcode, b[l.bth]);
		assert_int_equal(pkt.qpn, wu_be24(b + l.bth + 5));
		assert_int_equal(pkt.psn, wu_be24(b + l.bth + 9));
		assert_int_equal(pkt.frame_len, l.end);
		assert_int_equal(pkt.l3_off, l.l3);
		assert_int_equal(pkt.bth_off, l.bth);
		hist[pkt.opcode]++;
	}
	assert_int_equal(roce, 3863);
	for (i = 0; i < RTE_DIM(want); i++) {
		assert_int_equal(hist[want[i].op], want[i].n);
		roce -= want[i].n;
	}
	assert_int_equal(roce, 0); /* no other opcode */
}

/*
 * A one-bit flip anywhere from the IP header to the ICRC makes the frame
 * fail (BAD_ICRC from the first byte after the BTH on), except in the
 * fields the ICRC masks: IPv4 TOS and TTL (checksum fixed, as a router
 * does), the UDP checksum and BTH byte 4 (FECN, BECN), which parse as
 * before; so do flips in the MAC addresses. Non-masked IPv4 header bits are
 * flipped with the header checksum fixed, so that only the ICRC can see them.
 */
static void
test_rxe_capture_icrc_catches_every_unmasked_bit_flip(void **state)
{
	uint8_t done[256] = { 0 };
	uint32_t i, frames = 0, flips = 0;

	(void)state;
	for (i = 0; i < cap.n; i++) {
		const uint8_t *b = cap.pkt[i];
		uint32_t len = cap.len[i], off, bit;
		struct rte_mbuf *m;
		struct wu_lay l;
		uint8_t *w;

		if (!wu_lay_of(b, len, &l) || (done[b[l.bth]] && i % 500 != 0))
			continue;
		done[b[l.bth]] = 1;
		frames++;
		m = wu_xchain(test_pool, b, len, NULL, 0);
		assert_non_null(m);
		w = rte_pktmbuf_mtod(m, uint8_t *);
		for (off = 0; off < len; off++) {
			uint32_t ip = off - l.l3;
			bool in_ip = off >= l.l3 && off < l.udp, masked, fix_ck = false;

			if (off >= 12 && off < l.l3)
				continue; /* EtherType, VLAN: another frame */
			if (in_ip && !l.v6 && (ip == 10 || ip == 11))
				continue; /* the IPv4 checksum: checked by itself below */
			if (l.v6)
				masked = in_ip && (ip == 1 || ip == 2 || ip == 3 || ip == 7);
			else
				masked = in_ip && (ip == 1 || ip == 8);
			masked = masked || off == l.udp + 6 || off == l.udp + 7 || off == l.bth + 4;
			fix_ck = in_ip && !l.v6;
			for (bit = 0; bit < 8; bit++) {
				struct roce_pkt pkt;
				enum roce_parse_result r;
				bool ok_expected = off < 12 || off >= l.end || masked;

				if (l.v6 && in_ip && ip == 0)
					ok_expected = bit < 4; /* traffic class masked, version not */
				w[off] ^= (uint8_t)(1u << bit);
				if (fix_ck)
					wu_ip4_fix(w + l.l3);
				r = roce_pkt_parse(m, &pkt, true);
				memcpy(w, b, len);
				flips++;
				if (ok_expected && r != ROCE_PARSE_OK)
					fail_msg("frame %u byte %u bit %u: masked, but parse says %d",
						 i + 1, off, bit, r);
				if (!ok_expected && r == ROCE_PARSE_OK)
					fail_msg("frame %u byte %u bit %u: flipped, still OK", i + 1,
						 off, bit);
				if (!ok_expected && off >= l.bth + 12 && r != ROCE_PARSE_BAD_ICRC)
					fail_msg("frame %u byte %u bit %u: %d, not BAD_ICRC", i + 1,
						 off, bit, r);
			}
		}
		if (!l.v6) {
			struct roce_pkt pkt;

			w[l.l3 + 11] ^= 1;
			assert_int_equal(roce_pkt_parse(m, &pkt, true), ROCE_PARSE_BAD_HEADER);
		}
		rte_pktmbuf_free(m);
	}
	assert_true(frames >= 6 + 6);
	print_message("%u frames, %u single-bit flips\n", frames, flips);
}

/*
 * The capture's UDP source ports are rxe's: from the flow label derived
 * from both QPNs on RC (the QPNs are equal on both sides here), from a hash
 * of the sender's QPN (DETH) on UD.
 */
static void
test_rxe_capture_udp_sports_follow_rxe_formulas(void **state)
{
	uint32_t i, rc = 0, ud = 0;

	(void)state;
	for (i = 0; i < cap.n; i++) {
		const uint8_t *b = cap.pkt[i];
		uint32_t sport, qpn;
		struct wu_lay l;

		if (!wu_lay_of(b, cap.len[i], &l))
			continue;
		sport = wu_be16(b + l.udp);
		qpn = wu_be24(b + l.bth + 5);
		if ((b[l.bth] & 0xe0) == ROCE_TR_UD) {
			uint32_t src = wu_be24(b + l.bth + 12 + 5);

			assert_int_equal(sport, roce_udp_sport_ud(src));
			ud++;
		} else {
			assert_int_equal(sport, roce_udp_sport_rc(0, qpn, qpn));
			rc++;
		}
	}
	assert_int_equal(rc, 3855);
	assert_int_equal(ud, 8);
}

/* ---------------- our frames through tshark ---------------- */

#define REC_MAX 1024
static struct {
	pcap_dumper_t *d;
	uint32_t n, v6, vlan;
	struct {
		uint8_t op;
		uint32_t qpn, psn, icrc, sport, src_qpn;
	} r[REC_MAX];
	uint32_t seen[256];
	uint32_t conn[4][2]; /* QPN pairs of the connected QPs */
	uint32_t nconn;
} tap;

/* Every frame entering the wire: to the pcap, and its fields as built. */
static void
tap_frame(void *arg, int from, const struct rte_mbuf *m)
{
	static uint8_t buf[FRAME_MAX];
	struct pcap_pkthdr h;
	struct wu_lay l = { 0 };
	const uint8_t *b;
	uint32_t k;

	(void)arg;
	(void)from;
	b = rte_pktmbuf_read(m, 0, rte_pktmbuf_pkt_len(m), buf);
	assert_non_null(b);
	memset(&h, 0, sizeof(h));
	h.ts.tv_sec = 1;
	h.ts.tv_usec = tap.n;
	h.caplen = h.len = rte_pktmbuf_pkt_len(m);
	pcap_dump((u_char *)tap.d, &h, b);
	assert_true(wu_lay_of(b, h.len, &l));
	assert_true(tap.n < REC_MAX);
	k = tap.n++;
	tap.r[k].op = b[l.bth];
	tap.r[k].qpn = wu_be24(b + l.bth + 5);
	tap.r[k].psn = wu_be24(b + l.bth + 9);
	tap.r[k].icrc = wu_icrc(b, &l);
	tap.r[k].sport = wu_be16(b + l.udp);
	tap.r[k].src_qpn = (b[l.bth] & 0xe0) == ROCE_TR_UD ? wu_be24(b + l.bth + 17) : 0;
	/* the ICRC our engine wrote is zlib's, stored little-endian */
	assert_int_equal(wu_le32(b + l.end - 4), tap.r[k].icrc);
	tap.seen[b[l.bth]]++;
	tap.v6 += l.v6;
	tap.vlan += b[12] == 0x81 && b[13] == 0x00;
}

static void
post_recv(struct roce_qp *qp, struct rt_node *n, uint32_t off, uint32_t len)
{
	struct roce_sge s = rt_sge(n, off, len);
	struct roce_recv_wr wr = { .wr_id = off, .num_sge = 1, .sg_list = &s };

	assert_int_equal(roce_post_recv(qp, &wr, 1, NULL), 0);
}

/* Post one signaled WR of @p op (rdma or atomic fields from @p raddr...). */
static void
post(struct roce_qp *qp, struct rt_node *n, uint8_t op, uint32_t off, uint32_t len,
     uint64_t raddr, uint32_t rkey, struct roce_ah *ah, uint32_t rqpn)
{
	struct roce_sge s = rt_sge(n, off, len);
	struct roce_send_wr wr = {
		.wr_id = op, .opcode = op, .send_flags = ROCE_SEND_SIGNALED, .num_sge = 1,
		.sg_list = &s, .imm_data = rte_cpu_to_be_32(0x1234567u),
	};

	if (op == ROCE_WR_ATOMIC_CMP_AND_SWP || op == ROCE_WR_ATOMIC_FETCH_AND_ADD) {
		wr.atomic.remote_addr = raddr;
		wr.atomic.rkey = rkey;
		wr.atomic.compare_add = 3;
		wr.atomic.swap = 9;
	} else if (ah != NULL) {
		wr.ud.ah = ah;
		wr.ud.remote_qpn = rqpn;
		wr.ud.remote_qkey = 0x1111;
	} else {
		wr.rdma.remote_addr = raddr;
		wr.rdma.rkey = rkey;
	}
	assert_int_equal(roce_post_send(qp, &wr, 1, NULL), 0);
}

static void
wait_ok(struct rt_pair *p, struct roce_cq *cq, int n)
{
	struct roce_wc wc[16];
	int i;

	assert_int_equal(rt_wait_wc(p, cq, wc, n, 3000), n);
	for (i = 0; i < n; i++)
		if (wc[i].status != ROCE_WC_SUCCESS)
			fail_msg("completion %d: %s", i, roce_wc_status_str(wc[i].status));
}

/* RC SEND/WRITE/READ/atomics, UC SEND and UD SEND (802.1Q-tagged) between two nodes. */
static void
exchange(const char *tag, bool ipv6)
{
	const uint64_t base = 0x10000000;
	struct rt_pair p;
	struct rt_node *a = &p.n[0], *b = &p.n[1];
	struct roce_qp *qa, *qb, *ua, *ub;
	struct roce_ah_attr aa;
	struct roce_ah *ah;
	uint32_t rkey;

	assert_int_equal(rt_pair_init(&p, tag, 1500, ipv6), 0);
	p.wire.tap = tap_frame;
	rkey = roce_mr_rkey(b->mr);
	qa = rt_qp(a, ROCE_QPT_RC, 64);
	qb = rt_qp(b, ROCE_QPT_RC, 64);
	assert_int_equal(rt_connect(&p, qa, qb, 14, 7, 7, 1), 0);
	tap.conn[tap.nconn][0] = roce_qp_num(qa);
	tap.conn[tap.nconn++][1] = roce_qp_num(qb);
	post_recv(qb, b, 0, 8192);
	post_recv(qb, b, 8192, 64);
	post_recv(qb, b, 16384, 64);
	post(qa, a, ROCE_WR_SEND, 0, 3000, 0, 0, NULL, 0);             /* FIRST MIDDLE LAST */
	post(qa, a, ROCE_WR_SEND_WITH_IMM, 0, 5, 0, 0, NULL, 0);       /* ONLY_IMM, pad 3 */
	post(qa, a, ROCE_WR_RDMA_WRITE_WITH_IMM, 0, 2500, base + 100000, rkey, NULL, 0);
	post(qa, a, ROCE_WR_RDMA_WRITE, 0, 100, base + 200000, rkey, NULL, 0);
	post(qa, a, ROCE_WR_RDMA_READ, 300000, 2100, base, rkey, NULL, 0); /* 3 responses */
	post(qa, a, ROCE_WR_RDMA_READ, 310000, 7, base, rkey, NULL, 0);    /* ONLY */
	post(qa, a, ROCE_WR_ATOMIC_FETCH_AND_ADD, 320000, 8, base + 400000, rkey, NULL, 0);
	post(qa, a, ROCE_WR_ATOMIC_CMP_AND_SWP, 320008, 8, base + 400000, rkey, NULL, 0);
	wait_ok(&p, a->scq, 8);
	wait_ok(&p, b->rcq, 3);
	if (!ipv6) {
		ua = rt_qp(a, ROCE_QPT_UC, 16);
		ub = rt_qp(b, ROCE_QPT_UC, 16);
		assert_int_equal(rt_connect(&p, ua, ub, 0, 0, 0, 0), 0);
		tap.conn[tap.nconn][0] = roce_qp_num(ua);
		tap.conn[tap.nconn++][1] = roce_qp_num(ub);
		post_recv(ub, b, 0, 8192);
		post(ua, a, ROCE_WR_SEND, 0, 2100, 0, 0, NULL, 0);
		wait_ok(&p, a->scq, 1);
		wait_ok(&p, b->rcq, 1);
		roce_qp_destroy(ua);
		roce_qp_destroy(ub);
	}
	ua = rt_ud_qp(a, ROCE_QPT_UD, 0x1111, 0x777);
	ub = rt_ud_qp(b, ROCE_QPT_UD, 0x1111, 0x777);
	memset(&aa, 0, sizeof(aa));
	memcpy(aa.dgid, b->gid, ROCE_GID_LEN);
	memcpy(aa.dmac, b->mac, 6);
	aa.sgid_index = 1;
	aa.vlan_id = 7;
	ah = roce_ah_create(a->pd, &aa);
	assert_non_null(ah);
	post_recv(ub, b, 0, ROCE_GRH_LEN + 64);
	post_recv(ub, b, 4096, ROCE_GRH_LEN + 64);
	post(ua, a, ROCE_WR_SEND, 0, 64, 0, 0, ah, roce_qp_num(ub));
	post(ua, a, ROCE_WR_SEND_WITH_IMM, 0, 3, 0, 0, ah, roce_qp_num(ub));
	wait_ok(&p, a->scq, 2);
	wait_ok(&p, b->rcq, 2);
	rt_run_until(&p, NULL, NULL, 20); /* the last ACKs cross */
	roce_ah_destroy(ah);
	roce_qp_destroy(ua);
	roce_qp_destroy(ub);
	roce_qp_destroy(qa);
	roce_qp_destroy(qb);
	rt_pair_fini(&p);
}

/*
 * tshark decodes every frame our engine puts on the wire (IPv4, IPv6,
 * 802.1Q; RC, UC and UD) as InfiniBand with the opcode, QPN and PSN we
 * built, and shows the ICRC that zlib computes from the masked frame (read
 * big-endian from the little-endian wire bytes); UDP source ports follow
 * rxe's formulas.
 */
static void
test_engine_frames_decode_in_tshark_with_zlib_icrc(void **state)
{
	static const uint8_t need[] = {
		0x00, 0x01, 0x02, 0x05, 0x06, 0x07, 0x09, 0x0a, 0x0c, 0x0d, 0x0e, 0x0f,
		0x10, 0x11, 0x12, 0x13, 0x14, 0x20, 0x21, 0x22, 0x64, 0x65,
	};
	const char *path = ROCE_TEST_OUT_DIR "/roce_wire_engine.pcap";
	const char *errpath = ROCE_TEST_OUT_DIR "/roce_wire_tshark.err";
	char cmd[1024], line[512];
	uint32_t i, k, lines = 0;
	pcap_t *dead;
	FILE *f;

	(void)state;
	if (system("command -v tshark >/dev/null 2>&1") != 0)
		fail_msg("tshark is not installed: run scripts/setup.sh (it installs tshark)");
	memset(&tap, 0, sizeof(tap));
	dead = pcap_open_dead(DLT_EN10MB, 65535);
	tap.d = pcap_dump_open(dead, path);
	assert_non_null(tap.d);
	exchange("w4", false);
	exchange("w6", true);
	pcap_dump_close(tap.d);
	pcap_close(dead);
	for (i = 0; i < RTE_DIM(need); i++)
		if (tap.seen[need[i]] == 0)
			fail_msg("no frame of opcode 0x%02x was sent", need[i]);
	assert_true(tap.v6 > 0 && tap.v6 < tap.n);
	assert_true(tap.vlan >= 4);

	/* UDP source ports: connected QPs from both QPNs, UD from the sender's */
	for (i = 0; i < tap.n; i++) {
		if ((tap.r[i].op & 0xe0) == ROCE_TR_UD) {
			assert_int_equal(tap.r[i].sport, roce_udp_sport_ud(tap.r[i].src_qpn));
			continue;
		}
		for (k = 0; k < tap.nconn; k++)
			if (tap.r[i].qpn == tap.conn[k][0] || tap.r[i].qpn == tap.conn[k][1])
				break;
		assert_true(k < tap.nconn);
		assert_int_equal(tap.r[i].sport,
				 roce_udp_sport_rc(0, tap.conn[k][0], tap.conn[k][1]));
	}

	snprintf(cmd, sizeof(cmd), "tshark -r '%s' -o infiniband.rroce.port:4791 "
		 "--disable-protocol rpcordma -T fields -E separator=, -e frame.protocols "
		 "-e infiniband.bth.opcode -e infiniband.bth.destqp -e infiniband.bth.psn "
		 "-e infiniband.invariant.crc 2>'%s'", path, errpath);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		char *fld[5], *save = NULL, *t;
		unsigned int nf = 0;

		line[strcspn(line, "\n")] = '\0';
		for (t = strtok_r(line, ",", &save); t != NULL && nf < 5;
		     t = strtok_r(NULL, ",", &save))
			fld[nf++] = t;
		if (lines >= tap.n || nf != 5 || strstr(fld[0], ":infiniband") == NULL)
			fail_msg("tshark line %u: '%s' (%u fields)", lines + 1, line, nf);
		k = lines++;
		if (strtoul(fld[1], NULL, 0) != tap.r[k].op ||
		    strtoul(fld[2], NULL, 0) != tap.r[k].qpn ||
		    strtoul(fld[3], NULL, 0) != tap.r[k].psn)
			fail_msg("frame %u: tshark op %s qpn %s psn %s, built 0x%02x 0x%06x %u",
				 k + 1, fld[1], fld[2], fld[3], tap.r[k].op, tap.r[k].qpn,
				 tap.r[k].psn);
		if (strtoul(fld[4], NULL, 0) != rte_bswap32(tap.r[k].icrc))
			fail_msg("frame %u: tshark ICRC %s, zlib 0x%08x (wire-order 0x%08x)",
				 k + 1, fld[4], tap.r[k].icrc, rte_bswap32(tap.r[k].icrc));
	}
	if (pclose(f) != 0)
		fail_msg("tshark failed: see %s", errpath);
	assert_int_equal(lines, tap.n);
	print_message("%u frames (%u IPv6, %u tagged) decoded by tshark\n", tap.n, tap.v6,
		      tap.vlan);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest capture[] = {
		cmocka_unit_test(test_rxe_capture_parses_with_icrc_and_readme_histogram),
		cmocka_unit_test(test_rxe_capture_icrc_catches_every_unmasked_bit_flip),
		cmocka_unit_test(test_rxe_capture_udp_sports_follow_rxe_formulas),
	};
	const struct CMUnitTest engine[] = {
		cmocka_unit_test(test_engine_frames_decode_in_tshark_with_zlib_icrc),
	};
	int fails = 0;

	test_case_filter(argc, argv);
	if (test_eal_setup(NULL) < 0)
		return 1;
	fails += cmocka_run_group_tests_name("roce_wire_rxe_capture", capture, cap_load, cap_free);
	fails += cmocka_run_group_tests_name("roce_wire_engine_tshark", engine, NULL, NULL);
	fails += roce_wire_crafted_run();
	test_eal_teardown(NULL);
	return fails;
}
