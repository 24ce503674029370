/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* Bad input from the fabric: malformed and unexpected packets reach
 * net_opa_vnic through net_hfi1's model (written raw on B's wire) and
 * through a generic fabric (any bytes at all). Each is counted once, by
 * its reason, and never delivered. */

#include "opa_vnic_test_util.h"
#include "test_case.h"
#include "test_wait.h"

/* net_opa_vnic's control tick (devargs mgmt_ms, 5 by default), an EAL alarm. */
#define CTL_PERIOD_US 5000

#define XS_MAX 160

/* Every xstat of a port, by name. */
struct xsnap {
	int n;
	struct rte_eth_xstat_name names[XS_MAX];
	uint64_t v[XS_MAX];
};

static void
xs_take(uint16_t port, struct xsnap *s)
{
	struct rte_eth_xstat x[XS_MAX];
	int i;

	s->n = rte_eth_xstats_get_names(port, s->names, XS_MAX);
	assert_true(s->n > 0 && s->n <= XS_MAX);
	assert_int_equal(rte_eth_xstats_get(port, x, s->n), s->n);
	for (i = 0; i < s->n; i++)
		s->v[i] = x[i].value;
}

/* Counters that move on their own (the control path's housekeeping). */
static bool
xs_noise(const char *name)
{
	return strcmp(name, "policy_snapshots_freed") == 0;
}

/*
 * Since @before, the xstats of @port named in @want ("name", NULL-ended)
 * went up by one each, plus fabric_rx_packets by @fabric; nothing else
 * changed.
 */
static void
xs_expect(uint16_t port, const struct xsnap *before, const char *const *want, uint64_t fabric,
	  const char *what)
{
	static struct xsnap now;
	int i;

	xs_take(port, &now);
	assert_int_equal(now.n, before->n);
	for (i = 0; i < now.n; i++) {
		const char *name = now.names[i].name;
		uint64_t d = now.v[i] - before->v[i], expect = 0;
		const char *const *w;

		if (xs_noise(name))
			continue;
		for (w = want; *w != NULL; w++)
			if (strcmp(*w, name) == 0)
				expect = 1;
		if (strcmp(name, "fabric_rx_packets") == 0)
			expect = fabric;
		if (d != expect)
			fail_msg("%s: %s went up by %" PRIu64 ", expected %" PRIu64, what, name, d,
				 expect);
	}
}

/* A VNIC packet carrying an unpadded frame of @eth_len bytes. Returns its length. */
static uint32_t
raw_vnic(uint8_t *buf, uint32_t dlid, uint16_t vesw, uint32_t eth_len,
	 const struct rte_ether_addr *dst, uint32_t seq)
{
	struct opa16b_vnic_fields f = {
		.slid = B_LID, .dlid = dlid, .pkey = 0x8001, .entropy = 0, .vesw_id = vesw,
	};
	uint32_t l = OPA16B_VNIC_HDR_LEN + eth_len, pad = opa16b_pad_len(l);
	uint32_t total = l + pad + OPA16B_ICRC_TAIL_LEN;

	memset(buf, 0, total);
	opa16b_vnic_hdr_write(buf, &f, total / 8);
	eth_fill(buf + OPA16B_VNIC_HDR_LEN, eth_len, dst, peer_mac(), seq);
	buf[total - 1] = (uint8_t)pad;
	return total;
}

/* On a generic fabric: put @len bytes on fabric queue 0 as a chain of
 * @seg-byte segments. */
static void
gen_inject(struct vtopo *t, const uint8_t *buf, uint32_t len, uint32_t seg)
{
	struct rte_mbuf *m = chain_of(test_pool, buf, len, seg);

	assert_int_equal(rte_eth_tx_burst(t->em, 0, &m, 1), 1);
}

/* Poll vport 0 until the device took @until fabric packets: nothing may be
 * delivered. Then wait until the xstat @settle (if any) moves. */
static void
poll_nothing(struct vtopo *t, uint64_t until, const char *settle, uint64_t settle_from)
{
	struct rte_mbuf *r[8];

	assert_int_equal(vnic_poll_fabric(t->vp[0], 0, until, r, RTE_DIM(r), VT_WAIT_MS), 0);
	assert_int_equal(xstat(t->vp[0], "fabric_rx_packets"), until);
	if (settle != NULL)
		(void)test_wait_until(xstat(t->vp[0], settle) != settle_from, VT_WAIT_MS);
}

/* One bad input case. */
struct bad_case {
	const char *what;
	const char *counters[4];	/* the xstats it must move, by one */
	uint32_t seg;			/* segment size (0: one segment) */
	uint32_t (*build)(uint8_t *buf, const struct rte_ether_addr *mac);
};

static uint32_t
b_junk(uint8_t *b, const struct rte_ether_addr *mac)
{
	(void)mac;
	memset(b, 0x5A, 10);
	return 10;
}

static uint32_t
b_9b(uint8_t *b, const struct rte_ether_addr *mac)
{
	uint32_t n = raw_vnic(b, GEN_LID, 10, 64, mac, 1);

	opa16b_set_l2(b, 0);	/* 9B, not 16B */
	return n;
}

static uint32_t
b_other_l4(uint8_t *b, const struct rte_ether_addr *mac)
{
	uint32_t n = raw_vnic(b, GEN_LID, 10, 64, mac, 2);

	opa16b_set_l4(b, 0x09);	/* IB local */
	return n;
}

static uint32_t
b_length(uint8_t *b, const struct rte_ether_addr *mac)
{
	uint32_t n = raw_vnic(b, GEN_LID, 10, 64, mac, 3);

	opa16b_set_len(b, (uint16_t)(n / 8 + 1));
	return n;
}

static uint32_t
b_pad(uint8_t *b, const struct rte_ether_addr *mac)
{
	uint32_t n = raw_vnic(b, GEN_LID, 10, 64, mac, 4);

	b[n - 1] = 9;	/* more than 7 pad bytes */
	return n;
}

static uint32_t
b_truncated(uint8_t *b, const struct rte_ether_addr *mac)
{
	(void)raw_vnic(b, GEN_LID, 10, 64, mac, 5);
	opa16b_set_len(b, 3);
	return 24;	/* header and 4 bytes: no room for ICRC and tail */
}

static uint32_t
b_runt_known(uint8_t *b, const struct rte_ether_addr *mac)
{
	return raw_vnic(b, GEN_LID, 10, 40, mac, 6);
}

static uint32_t
b_runt_unknown(uint8_t *b, const struct rte_ether_addr *mac)
{
	return raw_vnic(b, GEN_LID, 99, 40, mac, 7);
}

static uint32_t
b_oversize(uint8_t *b, const struct rte_ether_addr *mac)
{
	return raw_vnic(b, GEN_LID, 10, 1519, mac, 8);
}

static uint32_t
b_unknown_vesw(uint8_t *b, const struct rte_ether_addr *mac)
{
	return raw_vnic(b, GEN_LID, 99, 64, mac, 9);
}

static uint32_t
b_pad_chain(uint8_t *b, const struct rte_ether_addr *mac)
{
	uint32_t n = raw_vnic(b, GEN_LID, 10, 300, mac, 10);

	b[n - 1] = 0x3F;
	return n;
}

static uint32_t
b_fm_garbage(uint8_t *b, const struct rte_ether_addr *mac)
{
	uint32_t n = raw_vnic(b, GEN_LID, 10, 64, mac, 11);

	opa16b_set_l4(b, OPA16B_L4_FM);	/* an FM packet, but no valid MAD */
	return n;
}

static uint32_t
b_fm_short(uint8_t *b, const struct rte_ether_addr *mac)
{
	(void)raw_vnic(b, GEN_LID, 10, 64, mac, 12);
	opa16b_set_l4(b, OPA16B_L4_FM);
	return 20;	/* shorter than the FM headers */
}

static const struct bad_case gen_cases[] = {
	{ "10 bytes of junk", { "fabric_rx_not_16b" }, 0, b_junk },
	{ "a 9B packet", { "fabric_rx_not_16b" }, 0, b_9b },
	{ "16B, L4 IB local", { "fabric_rx_other_l4" }, 0, b_other_l4 },
	{ "bad Length field", { "fabric_rx_decap_bad_length" }, 0, b_length },
	{ "pad count 9", { "fabric_rx_decap_bad_pad" }, 0, b_pad },
	{ "pad 63, 3 segments", { "fabric_rx_decap_bad_pad" }, 128, b_pad_chain },
	{ "truncated", { "fabric_rx_decap_truncated" }, 0, b_truncated },
	{ "runt, known vesw", { "rx_runt", "vnic_rx_errors", "rx_errors" }, 0, b_runt_known },
	{ "runt, unknown vesw", { "fabric_rx_decap_runt" }, 0, b_runt_unknown },
	{ "over MTU + 18", { "rx_oversize", "vnic_rx_errors", "rx_errors" }, 0, b_oversize },
	{ "unknown vesw", { "rx_bad_veswid", "vnic_rx_errors", "rx_errors" }, 0, b_unknown_vesw },
};

/*
 * Bad input on a generic fabric, where any bytes reach the VNIC: junk and
 * 9B packets (fabric_rx_not_16b), a 16B packet of another L4
 * (fabric_rx_other_l4), a bad Length field, a bad pad count (also split
 * over segments), a truncated packet, a runt (fabric_rx_decap_*, or the
 * vport's rx_runt when its vesw is known), a frame over MTU + 18
 * (rx_oversize) and an unknown vesw (rx_bad_veswid on vport 0). Each moves
 * exactly its own counter(s) by one, nothing is delivered; FM packets with
 * no valid MAD reach the agent, which drops them (or the control path
 * refuses them as too short for FM), without a reply. A good frame still
 * passes afterwards, and no mbuf is lost.
 */
static void
test_generic_bad_input_counted(void **state)
{
	static uint8_t buf[16384];
	struct rte_ether_addr mac;
	static struct xsnap before;
	struct rte_mbuf *r;
	unsigned int i;
	uint64_t f;
	struct vtopo t;

	(void)state;
	gtopo_create(&t, 1, 1, 1, 4, "");
	vtopo_forward_all(&t, 1500);
	mac = port_mac(t.vp[0]);
	for (i = 0; i < RTE_DIM(gen_cases); i++) {
		const struct bad_case *c = &gen_cases[i];
		uint32_t n = c->build(buf, &mac);
		const char *want[5] = { NULL };

		memcpy(want, c->counters, sizeof(c->counters));
		xs_take(t.vp[0], &before);
		f = xstat(t.vp[0], "fabric_rx_packets");
		gen_inject(&t, buf, n, c->seg != 0 ? c->seg : n);
		poll_nothing(&t, f + 1, NULL, 0);
		xs_expect(t.vp[0], &before, (const char *const *)want, 1, c->what);
	}

	/* FM packets with no MAD: to the agent, dropped, no reply */
	{
		static const char *const want_agent[] = { "mgmt_rx", "vema_drops", NULL };
		static const char *const want_ctl[] = { "mgmt_rx_not_fm", NULL };
		uint64_t from;

		xs_take(t.vp[0], &before);
		f = xstat(t.vp[0], "fabric_rx_packets");
		from = xstat(t.vp[0], "vema_drops");
		gen_inject(&t, buf, b_fm_garbage(buf, &mac), 16384);
		poll_nothing(&t, f + 1, "vema_drops", from);
		xs_expect(t.vp[0], &before, want_agent, 1, "FM, no MAD");

		xs_take(t.vp[0], &before);
		from = xstat(t.vp[0], "mgmt_rx_not_fm");
		gen_inject(&t, buf, b_fm_short(buf, &mac), 16384);
		poll_nothing(&t, f + 2, "mgmt_rx_not_fm", from);
		xs_expect(t.vp[0], &before, want_ctl, 1, "FM, 20 bytes");
		/* no reply, in the tick that took them nor in the next ones */
		assert_int_equal(test_wait_alarm_periods(CTL_PERIOD_US, 2, TEST_WAIT_MS), 0);
		assert_int_equal(peer_rx(&t, &r, 1), 0);
	}

	/* still fine */
	f = xstat(t.vp[0], "fabric_rx_packets");
	gen_inject(&t, buf, raw_vnic(buf, GEN_LID, 10, 64, &mac, 77), 16384);
	assert_int_equal(vnic_poll_fabric(t.vp[0], 0, f + 1, &r, 1, VT_WAIT_MS), 1);
	assert_true(frame_is(r, 64, &mac, 77));
	rte_pktmbuf_free(r);
	gtopo_destroy(&t);
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);
}

/*
 * Bad input through net_hfi1's model, written raw on B's wire: what the
 * HFI refuses is counted by the fabric port and never reaches the VNIC (a
 * non-16B packet: the model's not-bypass count; a Length field that does
 * not match, or a length that is not whole quadwords: net_hfi1's
 * rx_err_len); what the HFI passes is counted by the VNIC by its reason:
 * a 16B packet of another L4 goes to the default (management) queue and is
 * refused there as not FM (mgmt_rx_not_fm); bad pad, truncated and runt
 * as on any fabric. Nothing is delivered; a good frame still passes.
 */
static void
test_hfi1_bad_input_counted(void **state)
{
	static uint8_t buf[16384];
	static struct xsnap before;
	static const char *const none[] = { NULL };
	struct rte_ether_addr mac;
	struct rte_mbuf *r;
	uint64_t f, from;
	uint32_t n;
	struct vtopo t;

	(void)state;
	vtopo_create(&t, 1, 1, "");
	vtopo_forward_all(&t, 1500);
	mac = port_mac(t.vp[0]);

	/* refused by the HFI */
	{
		struct hfi1_model_stats ms = node_model_stats(&t.a);
		uint64_t len_err = xstat(t.a.port, "rx_err_len");

		xs_take(t.vp[0], &before);
		n = raw_vnic(buf, A_LID, 10, 64, &mac, 1);
		opa16b_set_l2(buf, 0);
		wire_send_raw(&t.b, buf, n);
		n = raw_vnic(buf, A_LID, 10, 64, &mac, 2);
		opa16b_set_len(buf, (uint16_t)(n / 8 + 1));
		wire_send_raw(&t.b, buf, n);
		n = raw_vnic(buf, A_LID, 10, 64, &mac, 3);
		wire_send_raw(&t.b, buf, n - 4);
		TEST_WAIT(vnic_rx_nothing(t.vp[0], 0) &&
			  xstat(t.a.port, "rx_err_len") >= len_err + 2, VT_WAIT_MS);
		assert_int_equal(node_model_stats(&t.a).rcv_not_bypass, ms.rcv_not_bypass + 1);
		assert_int_equal(xstat(t.a.port, "rx_err_len"), len_err + 2);
		xs_expect(t.vp[0], &before, none, 0, "refused by the HFI");
	}

	/* passed by the HFI, refused by the VNIC */
	{
		static const char *const not_fm[] = { "mgmt_rx_not_fm", NULL };
		static const char *const pad[] = { "fabric_rx_decap_bad_pad", NULL };
		static const char *const trunc[] = { "fabric_rx_decap_truncated", NULL };
		static const char *const runt[] = { "rx_runt", "vnic_rx_errors", "rx_errors",
						    NULL };

		xs_take(t.vp[0], &before);
		from = xstat(t.vp[0], "mgmt_rx_not_fm");
		n = raw_vnic(buf, A_LID, 10, 64, &mac, 4);
		opa16b_set_l4(buf, 0x09);
		wire_send_raw(&t.b, buf, n);
		(void)test_wait_until(xstat(t.vp[0], "mgmt_rx_not_fm") != from, VT_WAIT_MS);
		vnic_recv_none(t.vp[0], 0, 10);
		xs_expect(t.vp[0], &before, not_fm, 0, "16B, L4 IB local");

		xs_take(t.vp[0], &before);
		f = xstat(t.vp[0], "fabric_rx_packets");
		n = raw_vnic(buf, A_LID, 10, 64, &mac, 5);
		buf[n - 1] = 9;
		wire_send_raw(&t.b, buf, n);
		poll_nothing(&t, f + 1, NULL, 0);
		xs_expect(t.vp[0], &before, pad, 1, "pad count 9");

		xs_take(t.vp[0], &before);
		(void)raw_vnic(buf, A_LID, 10, 64, &mac, 6);
		opa16b_set_len(buf, 3);
		wire_send_raw(&t.b, buf, 24);
		poll_nothing(&t, f + 2, NULL, 0);
		xs_expect(t.vp[0], &before, trunc, 1, "truncated");

		xs_take(t.vp[0], &before);
		wire_send_raw(&t.b, buf, raw_vnic(buf, A_LID, 10, 40, &mac, 7));
		poll_nothing(&t, f + 3, NULL, 0);
		xs_expect(t.vp[0], &before, runt, 1, "runt");
	}
	{
		struct vnic_counters c;

		em_counters(&t, 0, &c);
		assert_int_equal(c.rx_runt, 1);
		assert_int_equal(c.rx_errors, 1);
	}

	f = xstat(t.vp[0], "fabric_rx_packets");
	wire_send_raw(&t.b, buf, raw_vnic(buf, A_LID, 10, 64, &mac, 8));
	assert_int_equal(vnic_poll_fabric(t.vp[0], 0, f + 1, &r, 1, VT_WAIT_MS), 1);
	assert_true(frame_is(r, 64, &mac, 8));
	rte_pktmbuf_free(r);
	vtopo_destroy(&t);
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		gen_test(test_generic_bad_input_counted),
		vnic_test(test_hfi1_bad_input_counted),
	};

	/* one case: argv[1] names it (a cmocka glob) */
	test_case_filter(argc, argv);
	return cmocka_run_group_tests(tests, test_eal_setup, test_eal_teardown);
}
