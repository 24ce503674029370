/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * What opa-em serve learns, without a node (app/opa-em/em_learn.c): the
 * reader of interface-list replies against good and bad replies, the
 * lists' report numbers, and the MAC tables computed from static entries
 * and lists (static wins, a move, a vport's own MACs, only its vesw, the
 * 2048-entry limit, removal with slots kept, MACs ignored); and a result
 * renumbered for the configuration of a reload (em_learn_result_remap()).
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "em_learn.h"
#include "omni_bytes.h"
#include "test_case.h"
#include "vema_mad.h"

/* 02:00:00:00:xx:yy */
static struct rte_ether_addr
mac(unsigned int n)
{
	return (struct rte_ether_addr){ { 0x02, 0, 0, 0, (uint8_t)(n >> 8), (uint8_t)n } };
}

/* A list holding MACs @ns (as mac(n)), read with em_learn_list_update(). */
static void
set_list(struct em_learn_list *l, const unsigned int *ns, unsigned int n, uint64_t *seq)
{
	struct rte_ether_addr m[16];
	unsigned int i;

	assert_true(n <= 16);
	for (i = 0; i < n; i++)
		m[i] = mac(ns[i]);
	(void)em_learn_list_update(l, m, (uint16_t)n, 1, seq);
}

/* Where a MAC is in a table: its slot, or -1. */
static int
slot_of(const struct vnic_mac_entry *t, struct rte_ether_addr m)
{
	int i;

	for (i = 0; i < VNIC_MAC_TBL_MAX; i++)
		if (rte_is_same_ether_addr(&t[i].mac, &m))
			return i;
	return -1;
}

static unsigned int
used(const struct vnic_mac_entry *t)
{
	unsigned int i, n = 0;

	for (i = 0; i < VNIC_MAC_TBL_MAX; i++)
		n += !rte_is_zero_ether_addr(&t[i].mac);
	return n;
}

static uint32_t
dlid_at(const struct vnic_mac_entry *t, int slot)
{
	assert_true(slot >= 0);
	return t[slot].dlid_sd >> VNIC_DLID_SD_SHIFT;
}

static bool
has_note(const struct em_learn_result *r, uint8_t kind, uint32_t vport, uint32_t other,
	 struct rte_ether_addr m, uint32_t count)
{
	unsigned int i;

	for (i = 0; i < r->nb_notes; i++)
		if (r->notes[i].kind == kind && r->notes[i].vport == vport &&
		    r->notes[i].other == other && r->notes[i].count == count &&
		    rte_is_same_ether_addr(&r->notes[i].mac, &m))
			return true;
	return false;
}

/* Five vports: 0, 1, 2 on vesw 10 (DLIDs 2, 3, 4), 3 and 4 on vesw 20 (DLIDs 5, 6). */
#define NV 5
struct fix {
	struct em_learn_vport v[NV];
	struct em_learn_list l[NV];
	struct vnic_mac_entry prev[NV][VNIC_MAC_TBL_MAX];
	struct vnic_mac_entry next[NV][VNIC_MAC_TBL_MAX];
	const struct vnic_mac_entry *pp[NV];
	struct vnic_mac_entry *np[NV];
	struct em_learn_result r;
	uint64_t seq;
};

static struct fix *
fix_new(void)
{
	static const uint16_t vesw[NV] = { 10, 10, 10, 20, 20 };
	struct fix *f = calloc(1, sizeof(*f));
	unsigned int i;

	assert_non_null(f);
	for (i = 0; i < NV; i++) {
		f->v[i] = (struct em_learn_vport){ .vesw_id = vesw[i], .dlid = 2 + i,
						   .list = &f->l[i] };
		f->pp[i] = f->prev[i];
		f->np[i] = f->next[i];
	}
	return f;
}

/* compute, then the new tables become the previous ones */
static void
compute(struct fix *f)
{
	em_learn_result_free(&f->r);
	assert_int_equal(em_learn_compute(f->v, NV, f->pp, f->np, &f->r), 0);
	memcpy(f->prev, f->next, sizeof(f->prev));
}

static void
fix_free(struct fix *f)
{
	em_learn_result_free(&f->r);
	free(f);
}

/* A MAC another vport of the vesw reports: everyone else's table names it;
 * the reporter's own table does not; the other vesw never sees it.
 */
static void
test_own_and_vesw(void **state)
{
	static const unsigned int a[] = { 1, 2 };
	struct fix *f = fix_new();
	struct rte_ether_addr m1 = mac(1), m2 = mac(2);

	(void)state;
	set_list(&f->l[0], a, 2, &f->seq);
	compute(f);
	/* a vport never learns its own MACs */
	assert_int_equal(used(f->next[0]), 0);
	/* the same vesw learns them, DLID = the reporter's */
	assert_int_equal(used(f->next[1]), 2);
	assert_int_equal(dlid_at(f->next[1], slot_of(f->next[1], m1)), 2);
	assert_int_equal(dlid_at(f->next[2], slot_of(f->next[2], m2)), 2);
	/* only the same vesw */
	assert_int_equal(used(f->next[3]), 0);
	assert_int_equal(used(f->next[4]), 0);
	assert_int_equal(f->r.nb_owners, 2);
	assert_int_equal(f->r.owners[0].vesw_id, 10);
	assert_int_equal(f->r.owners[0].vport, 0);
	assert_int_equal(f->r.nb_notes, 0);
	/* the same MAC on vesw 20 is another station: learned there, at vport 4 */
	set_list(&f->l[4], a, 1, &f->seq);
	compute(f);
	assert_int_equal(used(f->next[3]), 1);
	assert_int_equal(dlid_at(f->next[3], slot_of(f->next[3], m1)), 6);
	assert_int_equal(dlid_at(f->next[1], slot_of(f->next[1], m1)), 2);
	assert_int_equal(used(f->next[1]), 2);
	assert_int_equal(f->r.nb_owners, 3);
	assert_int_equal(f->r.nb_notes, 0);
	/* a vport not served (prev NULL) gets no table, still reports */
	f->pp[2] = NULL;
	memset(f->next[2], 0xAB, sizeof(f->next[2]));
	compute(f);
	assert_int_equal(f->next[2][0].mac.addr_bytes[0], 0xAB);
	assert_int_equal(used(f->next[1]), 2);
	fix_free(f);
}

/* A learned MAC equal to one of the vport's static MACs: the static entry stays. */
static void
test_static_wins(void **state)
{
	static const unsigned int a[] = { 7, 8 };
	struct fix *f = fix_new();
	struct vnic_mac_entry st[2] = {
		{ .mac = mac(9), .dlid_sd = 100 << VNIC_DLID_SD_SHIFT },
		{ .mac = mac(7), .dlid_sd = 101 << VNIC_DLID_SD_SHIFT },
	};

	(void)state;
	f->v[1].statics = st;
	f->v[1].nb_statics = 2;
	memcpy(f->prev[1], st, sizeof(st));
	set_list(&f->l[0], a, 2, &f->seq);
	compute(f);
	/* statics at their indexes, mac 7 once (the static one), mac 8 learned after them */
	assert_int_equal(slot_of(f->next[1], mac(9)), 0);
	assert_int_equal(slot_of(f->next[1], mac(7)), 1);
	assert_int_equal(dlid_at(f->next[1], 1), 101);
	assert_int_equal(slot_of(f->next[1], mac(8)), 2);
	assert_int_equal(dlid_at(f->next[1], 2), 2);
	assert_int_equal(used(f->next[1]), 3);
	assert_true(has_note(&f->r, EM_NOTE_STATIC, 1, 0, mac(7), 0));
	assert_int_equal(f->r.nb_notes, 1);
	/* vport 2 has no static entry: it learns mac 7 */
	assert_int_equal(dlid_at(f->next[2], slot_of(f->next[2], mac(7))), 2);
	fix_free(f);
}

/* One MAC on two lists: the one that listed it last wins; a re-read that
 * still holds it does not make it newer.
 */
static void
test_move(void **state)
{
	static const unsigned int m5[] = { 5 }, none[] = { 0 };
	struct fix *f = fix_new();

	(void)state;
	set_list(&f->l[0], m5, 1, &f->seq);
	compute(f);
	assert_int_equal(dlid_at(f->next[2], slot_of(f->next[2], mac(5))), 2);
	/* the station moves to vport 1 (vport 0 still lists it) */
	set_list(&f->l[1], m5, 1, &f->seq);
	compute(f);
	assert_int_equal(f->r.owners[0].vport, 1);
	assert_int_equal(dlid_at(f->next[2], slot_of(f->next[2], mac(5))), 3);
	assert_true(has_note(&f->r, EM_NOTE_CONFLICT, 1, 0, mac(5), 0));
	/* neither lister learns it: both list it */
	assert_int_equal(used(f->next[0]), 0);
	assert_int_equal(used(f->next[1]), 0);
	/* vport 0 read again, unchanged, then with one more MAC: mac 5 keeps
	 * its report number there, so vport 1 still has it last
	 */
	assert_false(em_learn_list_update(&f->l[0], (struct rte_ether_addr[]){ mac(5) }, 1, 2,
					  &f->seq));
	assert_true(em_learn_list_update(&f->l[0], (struct rte_ether_addr[]){ mac(6), mac(5) }, 2,
					 3, &f->seq));
	compute(f);
	assert_int_equal(f->r.owners[0].vport, 1);
	set_list(&f->l[0], m5, 1, &f->seq);
	compute(f);
	assert_int_equal(f->r.owners[0].vport, 1);
	/* vport 0 drops it: vport 0 now learns it at vport 1 */
	set_list(&f->l[0], none, 0, &f->seq);
	compute(f);
	assert_int_equal(dlid_at(f->next[0], slot_of(f->next[0], mac(5))), 3);
	assert_int_equal(f->r.nb_notes, 0);
	fix_free(f);
}

/* Entries that went away are removed; the others keep their slots, and a
 * new one takes the lowest free slot.
 */
static void
test_removal(void **state)
{
	static const unsigned int abc[] = { 1, 2, 3 }, ac[] = { 1, 3 }, acd[] = { 1, 3, 0 };
	struct fix *f = fix_new();

	(void)state;
	set_list(&f->l[0], abc, 3, &f->seq);
	compute(f);
	assert_int_equal(slot_of(f->next[1], mac(1)), 0);
	assert_int_equal(slot_of(f->next[1], mac(2)), 1);
	assert_int_equal(slot_of(f->next[1], mac(3)), 2);
	set_list(&f->l[0], ac, 2, &f->seq);
	compute(f);
	assert_int_equal(slot_of(f->next[1], mac(2)), -1);
	assert_int_equal(slot_of(f->next[1], mac(3)), 2); /* not moved down */
	assert_int_equal(used(f->next[1]), 2);
	assert_int_equal(f->r.nb_owners, 2);
	/* mac(0) sorts first; it takes the freed slot 1 */
	set_list(&f->l[0], acd, 3, &f->seq);
	compute(f);
	assert_int_equal(slot_of(f->next[1], mac(0)), 1);
	assert_int_equal(slot_of(f->next[1], mac(1)), 0);
	assert_int_equal(slot_of(f->next[1], mac(3)), 2);
	/* as many MACs, one other: 3 goes, 4 takes its slot */
	set_list(&f->l[0], (const unsigned int[]){ 1, 4, 0 }, 3, &f->seq);
	compute(f);
	assert_int_equal(slot_of(f->next[1], mac(3)), -1);
	assert_int_equal(slot_of(f->next[1], mac(4)), 2);
	assert_int_equal(used(f->next[1]), 3);
	/* the whole list goes: every learned entry goes */
	set_list(&f->l[0], NULL, 0, &f->seq);
	compute(f);
	assert_int_equal(used(f->next[1]), 0);
	assert_int_equal(used(f->next[2]), 0);
	assert_int_equal(f->r.nb_owners, 0);
	fix_free(f);
}

/* 2045 static entries leave room for 3 learned; the other 2 are left out, said once. */
static void
test_limit(void **state)
{
	static const unsigned int five[] = { 10, 11, 12, 13, 14 };
	struct vnic_mac_entry *st = calloc(VNIC_MAC_TBL_MAX, sizeof(*st));
	struct fix *f = fix_new();
	unsigned int i;

	(void)state;
	assert_non_null(st);
	for (i = 0; i < 2045; i++)
		st[i] = (struct vnic_mac_entry){
			.mac = { { 0x02, 0xAA, 0, 0, (uint8_t)(i >> 8), (uint8_t)i } },
			.dlid_sd = 9 << VNIC_DLID_SD_SHIFT };
	f->v[1].statics = st;
	f->v[1].nb_statics = 2045;
	memcpy(f->prev[1], st, sizeof(*st) * 2045);
	set_list(&f->l[0], five, 5, &f->seq);
	compute(f);
	assert_int_equal(used(f->next[1]), VNIC_MAC_TBL_MAX);
	for (i = 0; i < 3; i++)
		assert_int_equal(slot_of(f->next[1], mac(10 + i)), 2045 + i);
	assert_int_equal(slot_of(f->next[1], mac(13)), -1);
	assert_true(has_note(&f->r, EM_NOTE_LIMIT, 1, 0, (struct rte_ether_addr){ { 0 } }, 2));
	assert_int_equal(f->r.nb_notes, 1);
	/* vport 2 has room for all five */
	assert_int_equal(used(f->next[2]), 5);
	/* one of the written ones goes: one left-out one takes its slot */
	set_list(&f->l[0], (const unsigned int[]){ 10, 12, 13, 14 }, 4, &f->seq);
	compute(f);
	assert_int_equal(slot_of(f->next[1], mac(13)), 2046);
	assert_true(has_note(&f->r, EM_NOTE_LIMIT, 1, 0, (struct rte_ether_addr){ { 0 } }, 1));
	free(st);
	fix_free(f);
}

/* Multicast and zero MACs on a list are ignored (said); duplicates count once. */
static void
test_ignored(void **state)
{
	struct rte_ether_addr l[4] = { { { 0x01, 0, 0x5E, 0, 0, 1 } }, { { 0 } }, mac(4), mac(4) };
	struct fix *f = fix_new();
	uint64_t seq = 0;

	(void)state;
	assert_true(em_learn_list_update(&f->l[0], l, 4, 1, &seq));
	assert_int_equal(f->l[0].n, 3);
	assert_int_equal(seq, 3);
	compute(f);
	assert_int_equal(used(f->next[1]), 1);
	assert_int_equal(slot_of(f->next[1], mac(4)), 0);
	assert_int_equal(f->r.nb_notes, 2);
	assert_true(has_note(&f->r, EM_NOTE_IGNORED, 0, 0, l[0], 0));
	assert_true(has_note(&f->r, EM_NOTE_IGNORED, 0, 0, l[1], 0));
	fix_free(f);
}

/* A reply of @n MACs from @start of a list of @total, generation @gen. */
static void
reply(uint8_t *d, uint16_t start, uint16_t n, uint16_t total, uint16_t gen)
{
	struct vema_iface_hdr h = { .start_idx = start, .num_macs_in_msg = n,
				    .tot_macs_in_lst = total, .gen_count = gen };
	unsigned int i;

	memset(d, 0, VEMA_DATA_LEN);
	vema_iface_hdr_encode(d, &h);
	for (i = 0; i < n; i++) {
		struct rte_ether_addr m = mac(start + i);

		memcpy(d + VEMA_IFACE_HDR_LEN + 6 * i, m.addr_bytes, 6);
	}
}

static void
test_iface_read(void **state)
{
	static struct em_iface_read r;
	uint8_t d[VEMA_DATA_LEN];
	char why[128];

	(void)state;
	/* 400 MACs in two replies */
	em_iface_read_init(&r);
	reply(d, 0, VEMA_IFACE_MACS_MAX, 400, 7);
	assert_int_equal(em_iface_read_reply(&r, d, sizeof(d), why, sizeof(why)), 0);
	assert_int_equal(r.next, VEMA_IFACE_MACS_MAX);
	reply(d, VEMA_IFACE_MACS_MAX, 400 - VEMA_IFACE_MACS_MAX, 400, 7);
	assert_int_equal(em_iface_read_reply(&r, d, sizeof(d), why, sizeof(why)), 1);
	assert_int_equal(r.next, 400);
	assert_true(rte_is_same_ether_addr(&r.mac[399], &(struct rte_ether_addr){
		{ 0x02, 0, 0, 0, 1, 399 & 0xFF } }));
	/* an empty list */
	em_iface_read_init(&r);
	reply(d, 0, 0, 0, 1);
	assert_int_equal(em_iface_read_reply(&r, d, sizeof(d), why, sizeof(why)), 1);
	assert_int_equal(r.next, 0);
	/* the list changed between replies: read again */
	em_iface_read_init(&r);
	reply(d, 0, VEMA_IFACE_MACS_MAX, 400, 7);
	assert_int_equal(em_iface_read_reply(&r, d, sizeof(d), why, sizeof(why)), 0);
	reply(d, VEMA_IFACE_MACS_MAX, 67, 400, 8);
	assert_int_equal(em_iface_read_reply(&r, d, sizeof(d), why, sizeof(why)), -EAGAIN);
	/* refused: another range than asked */
	em_iface_read_init(&r);
	reply(d, 5, 1, 10, 1);
	assert_int_equal(em_iface_read_reply(&r, d, sizeof(d), why, sizeof(why)), -EBADMSG);
	assert_string_equal(why, "reply starts at MAC 5, asked 0");
	/* refused: a longer list than the EM takes */
	em_iface_read_init(&r);
	reply(d, 0, 1, EM_LEARN_LIST_MAX + 1, 1);
	assert_int_equal(em_iface_read_reply(&r, d, sizeof(d), why, sizeof(why)), -EBADMSG);
	assert_string_equal(why, "list of 1025 MACs, at most 1024 taken");
	/* refused: more MACs than the list has left, or than a MAD holds */
	em_iface_read_init(&r);
	reply(d, 0, 3, 2, 1);
	assert_int_equal(em_iface_read_reply(&r, d, sizeof(d), why, sizeof(why)), -EBADMSG);
	em_iface_read_init(&r);
	reply(d, 0, 0, 1000, 1);
	omni_put_be16(d + 2, VEMA_IFACE_MACS_MAX + 1);
	assert_int_equal(em_iface_read_reply(&r, d, sizeof(d), why, sizeof(why)), -EBADMSG);
	/* refused: the MACs claimed do not fit in the reply's length */
	em_iface_read_init(&r);
	reply(d, 0, 10, 10, 1);
	assert_int_equal(em_iface_read_reply(&r, d, VEMA_IFACE_HDR_LEN + 59, why, sizeof(why)),
			 -EBADMSG);
	assert_int_equal(em_iface_read_reply(&r, d, 4, why, sizeof(why)), -EBADMSG);
	/* refused: no progress */
	em_iface_read_init(&r);
	reply(d, 0, 0, 10, 1);
	assert_int_equal(em_iface_read_reply(&r, d, sizeof(d), why, sizeof(why)), -EBADMSG);
}


/* A result renumbered for a new configuration is the one computed there:
 * vports 0..4 become 3, gone, 1, 4, 0 (vport 1 removed: its MACs are on no
 * other list, its note goes with it; the conflicts of old vports 2 and 4
 * change order).
 */
static void
test_remap(void **state)
{
	static const uint32_t new_of[NV] = { 3, EM_LEARN_GONE, 1, 4, 0 };
	static const unsigned int l0[] = { 1, 2 }, l1[] = { 3, 9 }, l2[] = { 2 }, l3[] = { 4 },
		l4[] = { 4, 5 };
	struct vnic_mac_entry st[1] = { { .mac = mac(5), .dlid_sd = 100 << VNIC_DLID_SD_SHIFT } };
	struct rte_ether_addr mc = { { 0x01, 0, 0, 0, 0, 7 } };
	struct fix *f = fix_new(), *g = fix_new();
	unsigned int i, j;

	(void)state;
	set_list(&f->l[0], l0, 2, &f->seq);
	set_list(&f->l[1], l1, 2, &f->seq);
	set_list(&f->l[2], l2, 1, &f->seq);  /* mac 2 on 0 and 2: 2 is the latest */
	set_list(&f->l[3], l3, 1, &f->seq);
	set_list(&f->l[4], l4, 2, &f->seq);  /* mac 4 on 3 and 4: 4 is the latest */
	f->l[1].mac[f->l[1].n++] = mc;      /* a multicast MAC on vport 1's list */
	f->v[3].statics = st;                /* vport 3's static mac 5, reported by 4 */
	f->v[3].nb_statics = 1;
	memcpy(f->prev[3], st, sizeof(st));
	compute(f);
	assert_true(has_note(&f->r, EM_NOTE_CONFLICT, 2, 0, mac(2), 0));
	assert_true(has_note(&f->r, EM_NOTE_CONFLICT, 4, 3, mac(4), 0));
	assert_true(has_note(&f->r, EM_NOTE_STATIC, 3, 4, mac(5), 0));
	assert_true(has_note(&f->r, EM_NOTE_IGNORED, 1, 0, mc, 0));
	assert_int_equal(f->r.nb_owners, 6);
	em_learn_result_remap(&f->r, new_of, NV);
	/* the same vports and lists in the new numbering (vport 1 of g: none) */
	for (i = 0; i < NV; i++) {
		if (new_of[i] == EM_LEARN_GONE)
			continue;
		j = new_of[i];
		g->v[j] = f->v[i];
		g->v[j].list = &g->l[j];
		g->l[j] = f->l[i];
		memcpy(g->prev[j], f->prev[i], sizeof(g->prev[j]));
	}
	g->v[2].list = NULL;
	g->v[2].statics = NULL;
	g->v[2].nb_statics = 0;
	compute(g);
	assert_int_equal(f->r.nb_owners, g->r.nb_owners);
	assert_int_equal(f->r.nb_owners, 4);
	for (i = 0; i < g->r.nb_owners; i++) {
		assert_int_equal(em_learn_owner_cmp(&f->r.owners[i], &g->r.owners[i]), 0);
		assert_int_equal(f->r.owners[i].vport, g->r.owners[i].vport);
	}
	assert_int_equal(f->r.nb_notes, g->r.nb_notes);
	assert_int_equal(f->r.nb_notes, 3);
	for (i = 0; i < g->r.nb_notes; i++)
		assert_int_equal(em_learn_note_cmp(&f->r.notes[i], &g->r.notes[i]), 0);
	assert_true(has_note(&f->r, EM_NOTE_CONFLICT, 1, 3, mac(2), 0));
	assert_true(has_note(&f->r, EM_NOTE_CONFLICT, 0, 4, mac(4), 0));
	assert_true(has_note(&f->r, EM_NOTE_STATIC, 4, 0, mac(5), 0));
	/* every vport gone: nothing left */
	{
		static const uint32_t gone[NV] = { EM_LEARN_GONE, EM_LEARN_GONE, EM_LEARN_GONE,
						   EM_LEARN_GONE, EM_LEARN_GONE };

		em_learn_result_remap(&g->r, gone, NV);
		assert_int_equal(g->r.nb_owners, 0);
		assert_int_equal(g->r.nb_notes, 0);
	}
	fix_free(f);
	fix_free(g);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_and_vesw),
		cmocka_unit_test(test_static_wins),
		cmocka_unit_test(test_move),
		cmocka_unit_test(test_removal),
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_ignored),
		cmocka_unit_test(test_iface_read),
		cmocka_unit_test(test_remap),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
