/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* lib/opa16b without EAL: field accessors, flat-buffer encap/check, FM, LMAC. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "opa16b.h"
#include "opa16b_fm.h"
#include "opa16b_lmac.h"
#include "opa16b_vnic.h"
#include "opa16b_vectors.h"
#include "test_case.h"
#include "test_eal.h"

/* Field table: every accessor pair with its width. */
struct field {
	const char *name;
	uint32_t max;
	uint32_t (*get)(const void *hdr);
	void (*set)(void *hdr, uint32_t v);
};

#define FIELD(n, m) \
	static uint32_t get_##n(const void *h) { return opa16b_get_##n(h); } \
	static void set_##n(void *h, uint32_t v) { opa16b_set_##n(h, v); }
FIELD(slid, OPA16B_LID_MAX)
FIELD(dlid, OPA16B_LID_MAX)
FIELD(len, OPA16B_LEN_MAX)
FIELD(becn, 1)
FIELD(fecn, 1)
FIELD(sc, OPA16B_SC_MAX)
FIELD(rc, OPA16B_RC_MAX)
FIELD(l2, OPA16B_L2_MAX)
FIELD(lt, 1)
FIELD(l4, OPA16B_L4_MAX)
FIELD(pkey, OPA16B_PKEY_MAX)
FIELD(entropy, OPA16B_ENTROPY_MAX)
FIELD(age, OPA16B_AGE_MAX)
FIELD(vesw_id, OPA16B_VESW_ID_MAX)
#undef FIELD

static const struct field fields[] = {
#define F(n, m) { #n, m, get_##n, set_##n }
	F(slid, OPA16B_LID_MAX), F(dlid, OPA16B_LID_MAX), F(len, OPA16B_LEN_MAX),
	F(becn, 1), F(fecn, 1), F(sc, OPA16B_SC_MAX), F(rc, OPA16B_RC_MAX),
	F(l2, OPA16B_L2_MAX), F(lt, 1), F(l4, OPA16B_L4_MAX), F(pkey, OPA16B_PKEY_MAX),
	F(entropy, OPA16B_ENTROPY_MAX), F(age, OPA16B_AGE_MAX),
	F(vesw_id, OPA16B_VESW_ID_MAX),
#undef F
};
#define NB_FIELDS (sizeof(fields) / sizeof(fields[0]))

/* Setting one field to its extremes, or to a too-wide value, changes that
 * field only (masked) and no other field or byte.
 */
static void
test_field_set_changes_only_that_field(void **state)
{
	uint64_t seed = 0x16b;
	uint8_t hdr[OPA16B_VNIC_HDR_LEN + 8], before[sizeof(hdr)];
	uint32_t snap[NB_FIELDS];
	const uint32_t probes[] = { 0, 1, 0xFFFFFFFF, 0x5A5A5A5A };
	unsigned int i, j, k, iter;

	(void)state;
	for (iter = 0; iter < 64; iter++) {
		for (i = 0; i < NB_FIELDS; i++) {
			for (k = 0; k < sizeof(hdr); k++)
				hdr[k] = test_rand(&seed);
			for (j = 0; j < sizeof(probes) / sizeof(probes[0]); j++) {
				uint32_t v = probes[j] ^ (iter ? (uint32_t)test_rand(&seed) : 0);

				for (k = 0; k < NB_FIELDS; k++)
					snap[k] = fields[k].get(hdr);
				memcpy(before, hdr, sizeof(hdr));
				fields[i].set(hdr, v);
				if (fields[i].get(hdr) != (v & fields[i].max))
					fail_msg("%s: set 0x%x, got 0x%x", fields[i].name, v,
						 fields[i].get(hdr));
				for (k = 0; k < NB_FIELDS; k++) {
					if (k == i)
						continue;
					if (fields[k].get(hdr) != snap[k])
						fail_msg("setting %s changed %s", fields[i].name,
							 fields[k].name);
				}
				/* bytes past the 20-byte header never change */
				assert_memory_equal(hdr + OPA16B_VNIC_HDR_LEN,
						    before + OPA16B_VNIC_HDR_LEN, 8);
			}
		}
	}
}

/* The 24-bit LIDs are split across DW0/DW1 and DW2 as the facts give. */
static void
test_lid_split_across_words(void **state)
{
	uint8_t hdr[OPA16B_VNIC_HDR_LEN] = { 0 };

	(void)state;
	opa16b_set_slid(hdr, 0xABCDEF);
	opa16b_set_dlid(hdr, 0x123456);
	assert_int_equal(opa16b_dw_get(hdr, 0) & 0xFFFFF, 0xBCDEF);
	assert_int_equal(opa16b_dw_get(hdr, 1) & 0xFFFFF, 0x23456);
	assert_int_equal(hdr[9], 0x1A); /* DLID[23:20] high nibble, SLID[23:20] low */
	assert_int_equal(opa16b_get_slid(hdr), 0xABCDEF);
	assert_int_equal(opa16b_get_dlid(hdr), 0x123456);
}

/* Pad makes header + frame + pad + ICRC + tail a multiple of 8. */
static void
test_pad_len_completes_quadword(void **state)
{
	uint32_t len;

	(void)state;
	for (len = 0; len < 64; len++) {
		unsigned int pad = opa16b_pad_len(len);

		assert_true(pad <= OPA16B_PAD_MAX);
		assert_int_equal((len + pad + OPA16B_ICRC_TAIL_LEN) % 8, 0);
	}
}

static void
check_vector_encap(const struct opa16b_vector *tv)
{
	uint8_t out[128];
	int n;

	memset(out, 0xEE, sizeof(out)); /* stale bytes must not leak into pad/ICRC */
	n = opa16b_vnic_encap_buf(out, sizeof(out), tv->eth, tv->eth_len, &tv->f);
	assert_int_equal(n, tv->wire_len);
	assert_memory_equal(out, tv->wire, tv->wire_len);
}

/* TV1 and TV3 are reproduced byte for byte. */
static void
test_vectors_encap_byte_exact(void **state)
{
	(void)state;
	check_vector_encap(&opa16b_tv1);
	check_vector_encap(&opa16b_tv3);
}

/* TV1 and TV3 decode to their fields, pad and frame. */
static void
test_vectors_check_and_read(void **state)
{
	const struct opa16b_vector *tvs[] = { &opa16b_tv1, &opa16b_tv3 };
	struct opa16b_vnic_rx_info info;
	struct opa16b_vnic_fields f;
	unsigned int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		const struct opa16b_vector *tv = tvs[i];

		assert_int_equal(opa16b_vnic_check_buf(tv->wire, tv->wire_len, 1500, &info),
				 OPA16B_VNIC_RX_OK);
		assert_int_equal(info.pad, tv->pad);
		assert_int_equal(info.vesw_id, tv->f.vesw_id);
		assert_int_equal(info.eth_len, RTE_MAX(tv->eth_len, 60u));
		assert_memory_equal(tv->wire + OPA16B_VNIC_HDR_LEN, tv->eth, tv->eth_len);
		opa16b_vnic_hdr_read(tv->wire, &f);
		assert_memory_equal(&f, &tv->f, sizeof(f));
		assert_int_equal(opa16b_get_len(tv->wire), tv->wire_len / 8);
		assert_int_equal(opa16b_get_l2(tv->wire), OPA16B_L2_16B);
		assert_int_equal(opa16b_get_l4(tv->wire), OPA16B_L4_ETHR);
	}
}

/* TV5: the EM's LMAC for fabric 0x301, vesw 2, LID 5 and its DLID. */
static void
test_tv5_lmac(void **state)
{
	const uint8_t expect[6] = { 0x06, 0x2c, 0x00, 0x05, 0x00, 0x00 };
	struct opa16b_lmac a = { .fabric_id = 0x301, .vesw_id = 2, .lid = 5 }, b;
	struct rte_ether_addr mac;

	(void)state;
	opa16b_lmac_build(&a, &mac);
	assert_memory_equal(mac.addr_bytes, expect, 6);
	assert_int_equal(opa16b_lmac_lid(&mac), 5);
	assert_int_equal(opa16b_lmac_parse(&mac, &b), 0);
	assert_int_equal(b.fabric_id, 0x301);
	assert_int_equal(b.vesw_id, 2);
	assert_int_equal(b.lid, 5);
	/* globally administered and multicast MACs are not LMACs */
	mac.addr_bytes[0] = 0x04;
	assert_int_equal(opa16b_lmac_parse(&mac, &b), -EINVAL);
	mac.addr_bytes[0] = 0x07;
	assert_int_equal(opa16b_lmac_parse(&mac, &b), -EINVAL);
	/* extremes of every field survive the round trip */
	a.fabric_id = OPA16B_LMAC_FABRIC_MAX;
	a.vesw_id = OPA16B_LMAC_VESW_MAX;
	a.lid = OPA16B_LID_MAX;
	opa16b_lmac_build(&a, &mac);
	assert_int_equal(opa16b_lmac_parse(&mac, &b), 0);
	assert_memory_equal(&a, &b, sizeof(a));
}

/* Random frames of 14..9000 bytes survive encap + check with their fields. */
static void
test_random_roundtrip_flat(void **state)
{
	static uint8_t frame[9000], pkt[9100];
	uint64_t seed = 42;
	unsigned int iter, k;

	(void)state;
	for (iter = 0; iter < 3000; iter++) {
		uint32_t len = 14 + test_rand(&seed) % (9000 - 14 + 1);
		struct opa16b_vnic_fields f = {
			.slid = test_rand(&seed) & OPA16B_LID_MAX,
			.dlid = test_rand(&seed) & OPA16B_LID_MAX,
			.pkey = test_rand(&seed), .entropy = test_rand(&seed),
			.vesw_id = test_rand(&seed) & OPA16B_VESW_ID_MAX,
			.sc = test_rand(&seed) & OPA16B_SC_MAX,
			.rc = test_rand(&seed) & OPA16B_RC_MAX,
		}, g;
		struct opa16b_vnic_rx_info info = { 0 };
		int n;

		if (iter < 100)
			len = 14 + iter; /* every short length */
		for (k = 0; k < len; k++)
			frame[k] = test_rand(&seed);
		n = opa16b_vnic_encap_buf(pkt, sizeof(pkt), frame, len, &f);
		assert_int_equal(n, opa16b_vnic_wire_len(len));
		assert_int_equal(n % 8, 0);
		assert_int_equal(opa16b_vnic_check_buf(pkt, n, 9000, &info), OPA16B_VNIC_RX_OK);
		assert_int_equal(info.eth_len, RTE_MAX(len, 60u));
		assert_memory_equal(pkt + OPA16B_VNIC_HDR_LEN, frame, len);
		for (k = len; k < info.eth_len; k++)
			assert_int_equal(pkt[OPA16B_VNIC_HDR_LEN + k], 0); /* zero pad to 60 */
		for (k = OPA16B_VNIC_HDR_LEN + info.eth_len; k < (unsigned int)n - 1; k++)
			assert_int_equal(pkt[k], 0); /* pad and ICRC placeholder */
		assert_int_equal(pkt[n - 1], info.pad);
		opa16b_vnic_hdr_read(pkt, &g);
		assert_memory_equal(&f, &g, sizeof(f));
	}
}

/* Encap limits: too short, too long, no room; nothing written on error. */
static void
test_encap_buf_refusals(void **state)
{
	static uint8_t frame[OPA16B_VNIC_ETH_MAX + 1], out[OPA16B_PKT_MAX + 8];
	const struct opa16b_vnic_fields f = { .slid = 1, .dlid = 2 };

	(void)state;
	memset(out, 0xAB, sizeof(out));
	assert_int_equal(opa16b_vnic_encap_buf(out, sizeof(out), frame, 13, &f), -EINVAL);
	assert_int_equal(opa16b_vnic_encap_buf(out, sizeof(out), frame,
					       OPA16B_VNIC_ETH_MAX + 1, &f), -EMSGSIZE);
	assert_int_equal(opa16b_vnic_encap_buf(out, 87, frame, 60, &f), -ENOSPC);
	assert_int_equal(out[0], 0xAB);
	/* the largest frame fills the 11-bit Length exactly */
	assert_int_equal(opa16b_vnic_encap_buf(out, sizeof(out), frame,
					       OPA16B_VNIC_ETH_MAX, &f), OPA16B_PKT_MAX);
	assert_int_equal(opa16b_get_len(out), OPA16B_LEN_MAX);
}

/* Each rejection reason of the receive check, from a valid TV1. */
static void
test_check_rejections(void **state)
{
	uint8_t p[128];
	struct opa16b_vnic_rx_info info;
	const uint32_t n = opa16b_tv1.wire_len;

	(void)state;
#define RESET() memcpy(p, opa16b_tv1.wire, n)
	RESET();
	assert_int_equal(opa16b_vnic_check_buf(p, 24, 1500, &info), OPA16B_VNIC_RX_TRUNCATED);
	assert_int_equal(opa16b_vnic_check_buf(p, 0, 1500, &info), OPA16B_VNIC_RX_TRUNCATED);
	opa16b_set_l2(p, 1);
	assert_int_equal(opa16b_vnic_check_buf(p, n, 1500, &info), OPA16B_VNIC_RX_BAD_L2);
	RESET();
	opa16b_set_l4(p, OPA16B_L4_FM);
	assert_int_equal(opa16b_vnic_check_buf(p, n, 1500, &info), OPA16B_VNIC_RX_BAD_L4);
	RESET();
	assert_int_equal(opa16b_vnic_check_buf(p, n - 8, 1500, &info),
			 OPA16B_VNIC_RX_BAD_LENGTH);
	opa16b_set_len(p, 12);
	assert_int_equal(opa16b_vnic_check_buf(p, n, 1500, &info), OPA16B_VNIC_RX_BAD_LENGTH);
	RESET();
	p[n - 1] = 8;
	assert_int_equal(opa16b_vnic_check_buf(p, n, 1500, &info), OPA16B_VNIC_RX_BAD_PAD);
	p[n - 1] = 0x3F;
	assert_int_equal(opa16b_vnic_check_buf(p, n, 1500, &info), OPA16B_VNIC_RX_BAD_PAD);
	p[n - 1] = 0xC3; /* LT tail bits are not part of the pad count */
	assert_int_equal(opa16b_vnic_check_buf(p, n, 1500, &info), OPA16B_VNIC_RX_OK);
	RESET();
	/* the smallest packet (32 bytes) with 7 pad bytes holds an empty frame */
	opa16b_set_len(p, 4);
	p[31] = 7;
	assert_int_equal(opa16b_vnic_check_buf(p, 32, 1500, &info), OPA16B_VNIC_RX_RUNT);
	RESET();
	p[n - 1] = 4; /* frame of 59 bytes */
	assert_int_equal(opa16b_vnic_check_buf(p, n, 1500, &info), OPA16B_VNIC_RX_RUNT);
	RESET();
	/* 63-byte frame: oversize for MTU 44 (44 + 18 = 62), fine for 45 */
	assert_int_equal(opa16b_vnic_check_buf(opa16b_tv3.wire, 88, 44, &info),
			 OPA16B_VNIC_RX_OVERSIZE);
	assert_int_equal(opa16b_vnic_check_buf(opa16b_tv3.wire, 88, 45, &info),
			 OPA16B_VNIC_RX_OK);
#undef RESET
	/* the largest MTU means "no limit": mtu + 18 must not wrap */
	assert_int_equal(opa16b_vnic_check_buf(opa16b_tv3.wire, 88, UINT32_MAX, &info),
			 OPA16B_VNIC_RX_OK);
	assert_string_equal(opa16b_vnic_rx_err_name(OPA16B_VNIC_RX_BAD_L4), "bad_l4");
	assert_string_equal(opa16b_vnic_rx_err_name(OPA16B_VNIC_RX_ERR_MAX), "unknown");
}

/* FM packets: build/parse round trip, fixed pad, QPNs, rejections. */
static void
test_fm_build_parse(void **state)
{
	static uint8_t mad[OPA16B_FM_MAD_MAX], pkt[OPA16B_FM_MAD_MAX + 64];
	const struct opa16b_fm_fields f = {
		.slid = 0xA00001, .dlid = 0x000002, .pkey = 0xFFFF, .entropy = 0x1234,
		.sc = 15, .rc = 3, .dest_qpn = 1, .src_qpn = 0xFFFFFF,
	};
	struct opa16b_fm_info info;
	unsigned int i;
	int n;

	(void)state;
	for (i = 0; i < sizeof(mad); i++)
		mad[i] = i * 7;
	n = opa16b_fm_build(pkt, sizeof(pkt), &f, mad, sizeof(mad));
	assert_int_equal(n, 2048 + 24 + 3 + 5);
	assert_int_equal(n % 8, 0);
	assert_int_equal(opa16b_get_l4(pkt), OPA16B_L4_FM);
	assert_int_equal(opa16b_get_len(pkt), n / 8);
	/* QPNs big-endian at bytes 16..23 */
	assert_int_equal(pkt[16], 0); assert_int_equal(pkt[19], 1);
	assert_int_equal(pkt[20], 0); assert_int_equal(pkt[21], 0xFF);
	assert_int_equal(pkt[n - 1], OPA16B_FM_PAD);
	assert_int_equal(opa16b_fm_parse(pkt, n, &info), OPA16B_FM_OK);
	assert_int_equal(info.f.slid, f.slid);
	assert_int_equal(info.f.dlid, f.dlid);
	assert_int_equal(info.f.pkey, f.pkey);
	assert_int_equal(info.f.entropy, f.entropy);
	assert_int_equal(info.f.sc, f.sc);
	assert_int_equal(info.f.rc, f.rc);
	assert_int_equal(info.f.dest_qpn, f.dest_qpn);
	assert_int_equal(info.f.src_qpn, f.src_qpn);
	assert_int_equal(info.mad_len, sizeof(mad));
	assert_memory_equal(info.mad, mad, sizeof(mad));

	/* a 256-byte MAD also gets the fixed pad */
	n = opa16b_fm_build(pkt, sizeof(pkt), &f, mad, 256);
	assert_int_equal(n, 256 + 32);
	assert_int_equal(opa16b_fm_parse(pkt, n, &info), OPA16B_FM_OK);

	/* build refusals */
	assert_int_equal(opa16b_fm_build(pkt, sizeof(pkt), &f, mad, 0), -EINVAL);
	assert_int_equal(opa16b_fm_build(pkt, sizeof(pkt), &f, mad, 100), -EINVAL);
	assert_int_equal(opa16b_fm_build(pkt, sizeof(pkt), &f, mad, 2056), -EINVAL);
	assert_int_equal(opa16b_fm_build(pkt, 287, &f, mad, 256), -ENOSPC);

	/* parse refusals */
	n = opa16b_fm_build(pkt, sizeof(pkt), &f, mad, 256);
	assert_int_equal(opa16b_fm_parse(pkt, 39, &info), OPA16B_FM_TRUNCATED);
	assert_int_equal(opa16b_fm_parse(pkt, n - 8, &info), OPA16B_FM_BAD_LENGTH);
	pkt[n - 1] = 2;
	assert_int_equal(opa16b_fm_parse(pkt, n, &info), OPA16B_FM_BAD_PAD);
	pkt[n - 1] = 3;
	opa16b_set_l4(pkt, OPA16B_L4_ETHR);
	assert_int_equal(opa16b_fm_parse(pkt, n, &info), OPA16B_FM_BAD_L4);
	opa16b_set_l4(pkt, OPA16B_L4_FM);
	opa16b_set_l2(pkt, 3);
	assert_int_equal(opa16b_fm_parse(pkt, n, &info), OPA16B_FM_BAD_L2);
	/* reserved QPN bits are ignored, as hfi1 does */
	opa16b_set_l2(pkt, OPA16B_L2_16B);
	pkt[16] = 0xFF;
	assert_int_equal(opa16b_fm_parse(pkt, n, &info), OPA16B_FM_OK);
	assert_int_equal(info.f.dest_qpn, 1);
	/* a well-formed packet carrying more than a 2048-byte MAD is refused */
	{
		static uint8_t big[4096 + OPA16B_FM_OVERHEAD];

		memcpy(big, pkt, OPA16B_FM_HDR_LEN);
		opa16b_set_len(big, sizeof(big) / 8);
		big[sizeof(big) - 1] = OPA16B_FM_PAD;
		assert_int_equal(opa16b_fm_parse(big, sizeof(big), &info), OPA16B_FM_BAD_LENGTH);
		opa16b_set_len(big, (2048 + OPA16B_FM_OVERHEAD) / 8);
		big[2048 + OPA16B_FM_OVERHEAD - 1] = OPA16B_FM_PAD;
		assert_int_equal(opa16b_fm_parse(big, 2048 + OPA16B_FM_OVERHEAD, &info),
				 OPA16B_FM_OK);
	}
	assert_string_equal(opa16b_fm_err_name(OPA16B_FM_BAD_PAD), "bad_pad");
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_field_set_changes_only_that_field),
		cmocka_unit_test(test_lid_split_across_words),
		cmocka_unit_test(test_pad_len_completes_quadword),
		cmocka_unit_test(test_vectors_encap_byte_exact),
		cmocka_unit_test(test_vectors_check_and_read),
		cmocka_unit_test(test_tv5_lmac),
		cmocka_unit_test(test_random_roundtrip_flat),
		cmocka_unit_test(test_encap_buf_refusals),
		cmocka_unit_test(test_check_rejections),
		cmocka_unit_test(test_fm_build_parse),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests_name("opa16b", tests, NULL, NULL);
}
