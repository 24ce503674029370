/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * opa-switch's forwarding decision without EAL (app/opa-switch/sw_fwd.c):
 * a table of packets and port states against their verdicts and egress
 * sets, then learning, forgetting and the table's own checks.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "opa16b.h"
#include "sw_fwd.h"
#include "test_case.h"

#define NB_PORTS 4
#define ALL_UP 0xFu
#define P(n) (UINT64_C(1) << (n))

/* Static routes of the table every case runs against. */
static const struct {
	uint32_t lid;
	uint16_t port;
} routes[] = {
	{ 1, 0 }, { 2, 1 }, { 3, 2 }, { 0x10, 3 },
	{ 0x123456, 2 },	/* DLID[23:20] lives in DW2 */
	{ 0xEFFFFF, 1 },	/* the highest unicast LID */
};

static void
table_new(struct sw_fwd_table *t, bool learn)
{
	unsigned int i;

	assert_int_equal(sw_fwd_table_init(t, NB_PORTS, learn), 0);
	for (i = 0; i < sizeof(routes) / sizeof(routes[0]); i++)
		assert_int_equal(sw_fwd_route_set(t, routes[i].lid, routes[i].port), 0);
}

/* A 16-byte LRH: L2 @l2, Length @qws, SLID and DLID; other fields busy. */
static void
lrh(uint8_t *h, uint8_t l2, uint32_t slid, uint32_t dlid, uint16_t qws)
{
	memset(h, 0, OPA16B_LRH_LEN);
	opa16b_set_l2(h, l2);
	opa16b_set_slid(h, slid);
	opa16b_set_dlid(h, dlid);
	opa16b_set_len(h, qws);
	/* fields the switch must ignore */
	opa16b_set_l4(h, OPA16B_L4_FM);
	opa16b_set_sc(h, 0x1F);
	opa16b_set_pkey(h, 0xFFFF);
	opa16b_set_lt(h, 1);
	opa16b_set_becn(h, 1);
}

struct fwd_case {
	const char *name;
	uint8_t l2;
	uint32_t dlid;
	uint16_t qws;		/* Length field */
	uint32_t len;		/* bytes */
	uint16_t in_port;
	uint64_t up;
	bool learn;
	enum sw_verdict want;
	uint64_t egress;
};

#define OK16B(dlid) 2, (dlid), 260, 2080	/* an FM packet's sizes */

static const struct fwd_case cases[] = {
	{ "unicast to its LFT port", OK16B(2), 0, ALL_UP, false, SW_UCAST, P(1) },
	{ "unicast, 24-bit DLID", OK16B(0x123456), 0, ALL_UP, false, SW_UCAST, P(2) },
	{ "unicast, highest unicast LID", OK16B(0xEFFFFF), 3, ALL_UP, false, SW_UCAST, P(1) },
	{ "unicast, other ports down do not matter", OK16B(3), 0, P(0) | P(2), false,
	  SW_UCAST, P(2) },
	{ "unicast, smallest packet", 2, 2, 2, 16, 0, ALL_UP, false, SW_UCAST, P(1) },
	{ "unicast, largest packet", 2, 2, OPA16B_LEN_MAX, OPA16B_PKT_MAX, 0, ALL_UP, false,
	  SW_UCAST, P(1) },
	{ "multicast base: every other port", OK16B(0xF00000), 0, ALL_UP, false, SW_MCAST,
	  P(1) | P(2) | P(3) },
	{ "multicast: down ports skipped", OK16B(0xF00001), 2, ALL_UP & ~P(1), false,
	  SW_MCAST, P(0) | P(3) },
	{ "multicast: top of the range", OK16B(0xFFFFFE), 3, ALL_UP, false, SW_MCAST,
	  P(0) | P(1) | P(2) },
	{ "multicast: learning changes nothing", OK16B(0xF00001), 1, ALL_UP, true, SW_MCAST,
	  P(0) | P(2) | P(3) },
	{ "multicast: no other port up", OK16B(0xF00001), 0, P(0), false, SW_DROP_LINK_DOWN,
	  0 },
	{ "multicast: nothing up", OK16B(0xF00001), 0, 0, false, SW_DROP_LINK_DOWN, 0 },
	{ "permissive LID is not multicast", OK16B(0xFFFFFF), 0, ALL_UP, false,
	  SW_DROP_NO_ROUTE, 0 },
	{ "permissive LID is never flooded", OK16B(0xFFFFFF), 0, ALL_UP, true,
	  SW_DROP_NO_ROUTE, 0 },
	{ "unknown unicast dropped", OK16B(9), 0, ALL_UP, false, SW_DROP_NO_ROUTE, 0 },
	{ "unknown unicast below multicast", OK16B(0xEFFFFE), 0, ALL_UP, false,
	  SW_DROP_NO_ROUTE, 0 },
	{ "unknown unicast flooded when learning", OK16B(9), 1, ALL_UP & ~P(3), true,
	  SW_FLOOD, P(0) | P(2) },
	{ "unknown unicast, learning, nowhere to go", OK16B(9), 1, P(1), true,
	  SW_DROP_LINK_DOWN, 0 },
	{ "DLID 0 has no route", OK16B(0), 0, ALL_UP, false, SW_DROP_NO_ROUTE, 0 },
	{ "DLID 0 is never flooded", OK16B(0), 0, ALL_UP, true, SW_DROP_NO_ROUTE, 0 },
	{ "never back out of the ingress port", OK16B(1), 0, ALL_UP, false,
	  SW_DROP_TO_INGRESS, 0 },
	{ "never back out of the ingress port (last port)", OK16B(0x10), 3, ALL_UP, true,
	  SW_DROP_TO_INGRESS, 0 },
	{ "egress link down", OK16B(3), 0, ALL_UP & ~P(2), false, SW_DROP_LINK_DOWN, 0 },
	{ "empty packet", 2, 2, 0, 0, 0, ALL_UP, false, SW_DROP_SHORT, 0 },
	{ "one byte short of the LRH", 2, 2, 2, 15, 0, ALL_UP, false, SW_DROP_SHORT, 0 },
	{ "short wins over a bad L2", 0, 2, 1, 8, 0, ALL_UP, false, SW_DROP_SHORT, 0 },
	{ "L2 0 (8B) is not 16B", 0, 2, 260, 2080, 0, ALL_UP, false, SW_DROP_NOT_16B, 0 },
	{ "L2 1 (10B) is not 16B", 1, 2, 260, 2080, 0, ALL_UP, false, SW_DROP_NOT_16B, 0 },
	{ "L2 3 (9B) is not 16B", 3, 0xF00001, 260, 2080, 0, ALL_UP, false, SW_DROP_NOT_16B,
	  0 },
	{ "Length one QW short", 2, 2, 259, 2080, 0, ALL_UP, false, SW_DROP_BAD_LENGTH, 0 },
	{ "Length one QW long", 2, 2, 261, 2080, 0, ALL_UP, false, SW_DROP_BAD_LENGTH, 0 },
	{ "packet not whole quadwords", 2, 2, 260, 2081, 0, ALL_UP, false,
	  SW_DROP_BAD_LENGTH, 0 },
	{ "Length 0", 2, 2, 0, 16, 0, ALL_UP, false, SW_DROP_BAD_LENGTH, 0 },
	{ "longer than the Length field can say", 2, 2, OPA16B_LEN_MAX, OPA16B_PKT_MAX + 8,
	  0, ALL_UP, false, SW_DROP_BAD_LENGTH, 0 },
	{ "bad length checked before the DLID", 2, 0xF00001, 3, 16, 0, ALL_UP, false,
	  SW_DROP_BAD_LENGTH, 0 },
};

/* Every case of the table, with the header in a block of exactly the bytes
 * the contract allows the decision to read. */
static void
test_decide_table(void **state)
{
	struct sw_fwd_table plain, learning;
	unsigned int i;

	(void)state;
	table_new(&plain, false);
	table_new(&learning, true);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct fwd_case *c = &cases[i];
		uint32_t hlen = c->len < OPA16B_LRH_LEN ? c->len : OPA16B_LRH_LEN;
		uint8_t full[OPA16B_LRH_LEN], *h = malloc(hlen ? hlen : 1);
		uint64_t egress = 0xDEAD;
		enum sw_verdict v;

		assert_non_null(h);
		lrh(full, c->l2, 7, c->dlid, c->qws);
		memcpy(h, full, hlen);
		v = sw_fwd_decide(c->learn ? &learning : &plain, h, c->len, c->in_port, c->up,
				  &egress);
		if (v != c->want || egress != c->egress)
			fail_msg("case '%s': got %s egress 0x%llx, want %s egress 0x%llx", c->name,
				 sw_verdict_name(v), (unsigned long long)egress,
				 sw_verdict_name(c->want), (unsigned long long)c->egress);
		free(h);
	}
	/* the decision changed nothing */
	assert_int_equal(learning.nb_learned, 0);
	assert_int_equal(sw_fwd_lookup(&learning, 9, NULL), -1);
	sw_fwd_table_free(&plain);
	sw_fwd_table_free(&learning);
}

/* Learning: SLID -> ingress port, only for valid packets and unicast LIDs
 * the SM did not route; entries follow a LID that moves; the SM wins. */
static void
test_learn(void **state)
{
	struct sw_fwd_table t;
	uint8_t h[OPA16B_LRH_LEN];
	uint64_t egress;
	bool learned;

	(void)state;
	table_new(&t, false);
	lrh(h, 2, 0x55, 1, 2);
	assert_false(sw_fwd_learn(&t, h, 16, 2));	/* learning off */
	assert_int_equal(sw_fwd_lookup(&t, 0x55, NULL), -1);
	sw_fwd_table_free(&t);

	table_new(&t, true);
	assert_true(sw_fwd_learn(&t, h, 16, 2));
	assert_int_equal(sw_fwd_lookup(&t, 0x55, &learned), 2);
	assert_true(learned);
	assert_false(sw_fwd_learn(&t, h, 16, 2));	/* nothing new */
	assert_true(sw_fwd_learn(&t, h, 16, 3));	/* moved */
	assert_int_equal(sw_fwd_lookup(&t, 0x55, NULL), 3);
	assert_int_equal(t.nb_learned, 1);
	/* now unicast, no longer flooded */
	lrh(h, 2, 1, 0x55, 2);
	assert_int_equal(sw_fwd_decide(&t, h, 16, 0, ALL_UP, &egress), SW_UCAST);
	assert_int_equal(egress, P(3));

	/* the SM's entries are never overwritten */
	lrh(h, 2, 1, 2, 2);
	assert_false(sw_fwd_learn(&t, h, 16, 3));
	assert_int_equal(sw_fwd_lookup(&t, 1, &learned), 0);
	assert_false(learned);

	/* no LID 0, multicast or permissive SLIDs; no invalid packets */
	lrh(h, 2, 0, 2, 2);
	assert_false(sw_fwd_learn(&t, h, 16, 1));
	lrh(h, 2, 0xF00001, 2, 2);
	assert_false(sw_fwd_learn(&t, h, 16, 1));
	lrh(h, 2, 0xFFFFFF, 2, 2);
	assert_false(sw_fwd_learn(&t, h, 16, 1));
	lrh(h, 2, 0x66, 2, 2);
	assert_false(sw_fwd_learn(&t, h, 15, 1));	/* short */
	assert_false(sw_fwd_learn(&t, h, 24, 1));	/* bad length */
	assert_false(sw_fwd_learn(&t, h, 16, NB_PORTS));	/* no such port */
	lrh(h, 3, 0x66, 2, 2);
	assert_false(sw_fwd_learn(&t, h, 16, 1));	/* not 16B */
	assert_int_equal(sw_fwd_lookup(&t, 0x66, NULL), -1);
	lrh(h, 2, 0xEFFFFE, 2, 2);
	assert_true(sw_fwd_learn(&t, h, 16, 1));	/* highest unrouted unicast */
	assert_int_equal(t.nb_learned, 2);

	/* a static route over a learned entry takes it over */
	assert_int_equal(sw_fwd_route_set(&t, 0x55, 0), 0);
	assert_int_equal(sw_fwd_lookup(&t, 0x55, &learned), 0);
	assert_false(learned);
	assert_int_equal(t.nb_learned, 1);
	assert_int_equal(t.learned[0], 0xEFFFFE);
	sw_fwd_table_free(&t);
}

/* A port going down forgets what was learned behind it, and only that. */
static void
test_forget_port(void **state)
{
	struct sw_fwd_table t;
	uint8_t h[OPA16B_LRH_LEN];
	uint64_t egress;
	uint32_t lid;

	(void)state;
	table_new(&t, true);
	for (lid = 100; lid < 110; lid++) {
		lrh(h, 2, lid, 1, 2);
		assert_true(sw_fwd_learn(&t, h, 16, (uint16_t)(lid % 2 ? 3 : 1)));
	}
	assert_int_equal(sw_fwd_forget_port(&t, 3), 5);
	assert_int_equal(sw_fwd_forget_port(&t, 3), 0);
	assert_int_equal(t.nb_learned, 5);
	for (lid = 100; lid < 110; lid++)
		assert_int_equal(sw_fwd_lookup(&t, lid, NULL), lid % 2 ? -1 : 1);
	/* static routes to the port stay */
	assert_int_equal(sw_fwd_lookup(&t, 0x10, NULL), 3);
	/* a forgotten LID is unknown again: flooded */
	lrh(h, 2, 1, 101, 2);
	assert_int_equal(sw_fwd_decide(&t, h, 16, 0, ALL_UP, &egress), SW_FLOOD);
	assert_int_equal(egress, P(1) | P(2) | P(3));
	assert_int_equal(sw_fwd_forget_port(&t, 1), 5);
	assert_int_equal(t.nb_learned, 0);
	sw_fwd_table_free(&t);
}

/* Learned entries are bounded; SLIDs beyond are counted, not learned. */
static void
test_learn_full(void **state)
{
	struct sw_fwd_table t;
	uint8_t h[OPA16B_LRH_LEN];
	uint32_t i;

	(void)state;
	table_new(&t, true);
	for (i = 0; i < SW_LEARN_MAX; i++) {
		lrh(h, 2, 0x1000 + i, 1, 2);
		assert_true(sw_fwd_learn(&t, h, 16, 1));
	}
	lrh(h, 2, 0x1000 + SW_LEARN_MAX, 1, 2);
	assert_false(sw_fwd_learn(&t, h, 16, 1));
	assert_int_equal(t.learn_full, 1);
	assert_int_equal(sw_fwd_lookup(&t, 0x1000 + SW_LEARN_MAX, NULL), -1);
	/* a known LID still moves */
	lrh(h, 2, 0x1000, 1, 2);
	assert_true(sw_fwd_learn(&t, h, 16, 2));
	assert_int_equal(t.learn_full, 1);
	/* room again once a port forgets */
	assert_int_equal(sw_fwd_forget_port(&t, 2), 1);
	lrh(h, 2, 0x1000 + SW_LEARN_MAX, 1, 2);
	assert_true(sw_fwd_learn(&t, h, 16, 1));
	sw_fwd_table_free(&t);
}

/* The table refuses what an SM could not program. */
static void
test_table_checks(void **state)
{
	struct sw_fwd_table t;
	uint8_t h[OPA16B_LRH_LEN];
	uint64_t egress;
	unsigned int v;

	(void)state;
	assert_int_equal(sw_fwd_table_init(&t, 0, false), -EINVAL);
	assert_int_equal(sw_fwd_table_init(&t, SW_PORTS_MAX + 1, false), -EINVAL);
	table_new(&t, false);
	assert_int_equal(sw_fwd_route_set(&t, 0, 1), -EINVAL);
	assert_int_equal(sw_fwd_route_set(&t, OPA16B_MCAST_DLID_BASE, 1), -EINVAL);
	assert_int_equal(sw_fwd_route_set(&t, OPA16B_LID_MAX, 1), -EINVAL);
	assert_int_equal(sw_fwd_route_set(&t, 5, NB_PORTS), -EINVAL);
	assert_int_equal(sw_fwd_lookup(&t, 5, NULL), -1);
	assert_int_equal(sw_fwd_lookup(&t, OPA16B_LID_MAX, NULL), -1);
	assert_int_equal(sw_fwd_route_set(&t, 2, 3), 0);	/* reprogrammed */
	assert_int_equal(sw_fwd_lookup(&t, 2, NULL), 3);
	sw_fwd_table_free(&t);

	/* 64 ports: the masks' edges */
	assert_int_equal(sw_fwd_table_init(&t, SW_PORTS_MAX, false), 0);
	assert_int_equal(sw_fwd_route_set(&t, 2, SW_PORTS_MAX - 1), 0);
	lrh(h, 2, 1, 0xF00001, 2);
	assert_int_equal(sw_fwd_decide(&t, h, 16, SW_PORTS_MAX - 1, UINT64_MAX, &egress),
			 SW_MCAST);
	assert_int_equal(egress, UINT64_MAX >> 1);
	lrh(h, 2, 1, 2, 2);
	assert_int_equal(sw_fwd_decide(&t, h, 16, 0, UINT64_MAX, &egress), SW_UCAST);
	assert_int_equal(egress, P(SW_PORTS_MAX - 1));
	sw_fwd_table_free(&t);

	/* every verdict has its own name */
	for (v = 0; v < SW_VERDICT_MAX; v++) {
		unsigned int w;

		assert_string_not_equal(sw_verdict_name(v), "?");
		for (w = 0; w < v; w++)
			assert_string_not_equal(sw_verdict_name(v), sw_verdict_name(w));
	}
	assert_string_equal(sw_verdict_name(SW_VERDICT_MAX), "?");
	assert_false(sw_verdict_is_drop(SW_FLOOD));
	assert_true(sw_verdict_is_drop(SW_DROP_SHORT));
	assert_true(sw_verdict_is_drop(SW_DROP_TX_FULL));
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decide_table),
		cmocka_unit_test(test_learn),
		cmocka_unit_test(test_forget_port),
		cmocka_unit_test(test_learn_full),
		cmocka_unit_test(test_table_checks),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
