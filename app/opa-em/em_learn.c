/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* What opa-em serve learns: list reader, lists, tables (no I/O). */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "em_learn.h"
#include "vema_mad.h"

/* --- reading a list, one untrusted reply at a time --- */

void
em_iface_read_init(struct em_iface_read *r)
{
	r->next = 0;
	r->total = 0;
	r->gen = 0;
	r->started = false;
}

int
em_iface_read_reply(struct em_iface_read *r, const uint8_t *data, size_t len, char *why,
		    size_t whylen)
{
	struct vema_iface_hdr h;
	unsigned int i;

	if (len < VEMA_IFACE_HDR_LEN) {
		snprintf(why, whylen, "reply of %zu bytes, shorter than its header", len);
		return -EBADMSG;
	}
	vema_iface_hdr_decode(data, &h);
	if (h.start_idx != r->next) {
		snprintf(why, whylen, "reply starts at MAC %u, asked %u", h.start_idx, r->next);
		return -EBADMSG;
	}
	if (!r->started) {
		if (h.tot_macs_in_lst > EM_LEARN_LIST_MAX) {
			snprintf(why, whylen, "list of %u MACs, at most %u taken",
				 h.tot_macs_in_lst, EM_LEARN_LIST_MAX);
			return -EBADMSG;
		}
		r->total = h.tot_macs_in_lst;
		r->gen = h.gen_count;
		r->started = true;
	} else if (h.tot_macs_in_lst != r->total || h.gen_count != r->gen) {
		snprintf(why, whylen, "list changed while read (%u MACs gen %u, then %u gen %u)",
			 r->total, r->gen, h.tot_macs_in_lst, h.gen_count);
		return -EAGAIN;
	}
	if (h.num_macs_in_msg > VEMA_IFACE_MACS_MAX || h.num_macs_in_msg > r->total - r->next) {
		snprintf(why, whylen, "reply holds %u MACs from %u of a list of %u",
			 h.num_macs_in_msg, r->next, r->total);
		return -EBADMSG;
	}
	if (VEMA_IFACE_HDR_LEN + (size_t)RTE_ETHER_ADDR_LEN * h.num_macs_in_msg > len) {
		snprintf(why, whylen, "%u MACs do not fit in a reply of %zu bytes",
			 h.num_macs_in_msg, len);
		return -EBADMSG;
	}
	if (h.num_macs_in_msg == 0 && r->next < r->total) {
		snprintf(why, whylen, "reply holds no MAC from %u of a list of %u", r->next,
			 r->total);
		return -EBADMSG;
	}
	for (i = 0; i < h.num_macs_in_msg; i++)
		memcpy(r->mac[r->next + i].addr_bytes,
		       data + VEMA_IFACE_HDR_LEN + RTE_ETHER_ADDR_LEN * i, RTE_ETHER_ADDR_LEN);
	r->next += h.num_macs_in_msg;
	return r->next == r->total ? 1 : 0;
}

/* --- a vport's list --- */

static int
mac_cmp(const struct rte_ether_addr *a, const struct rte_ether_addr *b)
{
	return memcmp(a->addr_bytes, b->addr_bytes, RTE_ETHER_ADDR_LEN);
}

/* An index into a MAC array, ordered by the MAC then the index. */
struct mac_ref {
	struct rte_ether_addr mac;
	uint16_t i;
};

static int
ref_cmp(const void *a, const void *b)
{
	const struct mac_ref *x = a, *y = b;
	int c = mac_cmp(&x->mac, &y->mac);

	return c != 0 ? c : (x->i > y->i) - (x->i < y->i);
}

static int
ref_mac_cmp(const void *key, const void *b)
{
	return mac_cmp(key, &((const struct mac_ref *)b)->mac);
}

bool
em_learn_list_update(struct em_learn_list *l, const struct rte_ether_addr *macs, uint16_t n,
		     uint16_t gen, uint64_t *seq)
{
	struct mac_ref old[EM_LEARN_LIST_MAX], nw[EM_LEARN_LIST_MAX];
	bool dup[EM_LEARN_LIST_MAX];
	uint64_t ns[EM_LEARN_LIST_MAX];
	unsigned int i, k = 0, added = 0;

	if (n > EM_LEARN_LIST_MAX)
		n = EM_LEARN_LIST_MAX;
	/* sorted copies: n log n where a list of 1024 would cost a million compares */
	for (i = 0; i < l->n; i++)
		old[i] = (struct mac_ref){ .mac = l->mac[i], .i = (uint16_t)i };
	qsort(old, l->n, sizeof(*old), ref_cmp);
	for (i = 0; i < n; i++)
		nw[i] = (struct mac_ref){ .mac = macs[i], .i = (uint16_t)i };
	qsort(nw, n, sizeof(*nw), ref_cmp);
	/* a MAC listed twice counts where it comes first */
	for (i = 0; i < n; i++)
		dup[nw[i].i] = i > 0 && mac_cmp(&nw[i].mac, &nw[i - 1].mac) == 0;
	for (i = 0; i < n; i++) {
		const struct mac_ref *o;

		if (dup[i])
			continue;
		o = bsearch(&macs[i], old, l->n, sizeof(*old), ref_mac_cmp);
		ns[k] = o != NULL ? l->since[o->i] : 0;
		added += o == NULL;
		nw[k++].mac = macs[i];
	}
	/* k distinct MACs, all already there and as many: the same set */
	if (added == 0 && k == l->n) {
		l->gen = gen;
		return false;
	}
	for (i = 0; i < k; i++) {
		l->mac[i] = nw[i].mac;
		l->since[i] = ns[i] != 0 ? ns[i] : ++*seq;
	}
	l->n = (uint16_t)k;
	l->gen = gen;
	return true;
}

/* --- the tables --- */

/* One MAC on one vport's list. */
struct pair {
	uint16_t vesw;
	struct rte_ether_addr mac;
	uint64_t since;
	uint32_t vport;
};

/* vesw, MAC, then the latest report first */
static int
pair_cmp(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	int c;

	if (x->vesw != y->vesw)
		return x->vesw < y->vesw ? -1 : 1;
	c = mac_cmp(&x->mac, &y->mac);
	if (c != 0)
		return c;
	if (x->since != y->since)
		return x->since > y->since ? -1 : 1;
	return x->vport < y->vport ? -1 : x->vport > y->vport;
}

int
em_learn_owner_cmp(const void *a, const void *b)
{
	const struct em_learn_owner *x = a, *y = b;

	if (x->vesw_id != y->vesw_id)
		return x->vesw_id < y->vesw_id ? -1 : 1;
	return mac_cmp(&x->mac, &y->mac);
}

int
em_learn_note_cmp(const void *a, const void *b)
{
	const struct em_learn_note *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->vport != y->vport)
		return x->vport < y->vport ? -1 : 1;
	if (x->other != y->other)
		return x->other < y->other ? -1 : 1;
	if (mac_cmp(&x->mac, &y->mac) != 0)
		return mac_cmp(&x->mac, &y->mac);
	return x->count < y->count ? -1 : x->count > y->count;
}

static int
addr_cmp(const void *a, const void *b)
{
	return mac_cmp(a, b);
}

/* A learned entry wanted in one vport's table. */
struct want {
	struct rte_ether_addr mac;
	uint32_t dlid;
	bool placed;
};

static int
want_cmp(const void *a, const void *b)
{
	return mac_cmp(a, b); /* mac is the first member */
}

struct learn_ctx {
	struct em_learn_result *res;
	unsigned int notes_room;
	bool nomem;
};

static void
note(struct learn_ctx *x, uint8_t kind, uint32_t vport, uint32_t other,
     const struct rte_ether_addr *mac, uint32_t count)
{
	struct em_learn_result *r = x->res;
	struct em_learn_note *n;

	if (x->nomem)
		return;
	if (r->nb_notes == x->notes_room) {
		unsigned int room = x->notes_room ? 2 * x->notes_room : 16;

		n = realloc(r->notes, sizeof(*n) * room);
		if (n == NULL) {
			x->nomem = true;
			return;
		}
		r->notes = n;
		x->notes_room = room;
	}
	n = &r->notes[r->nb_notes++];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->vport = vport;
	n->other = other;
	if (mac != NULL)
		n->mac = *mac;
	n->count = count;
}

/* The table of vport @vi: statics, then what its vesw's other vports report. */
static void
fill_table(struct learn_ctx *x, const struct em_learn_vport *v, uint32_t vi,
	   const struct pair *pairs, const unsigned int *grp, unsigned int nb_grp,
	   const struct vnic_mac_entry *prev, struct vnic_mac_entry *next,
	   struct rte_ether_addr *smacs, struct want *want)
{
	const struct em_learn_vport *me = &v[vi];
	unsigned int g, i, nb_want = 0, free_slot, excess = 0;
	unsigned int lo = 0, hi = nb_grp;

	memset(next, 0, sizeof(*next) * VNIC_MAC_TBL_MAX);
	for (i = 0; i < me->nb_statics; i++) {
		next[i] = me->statics[i];
		smacs[i] = me->statics[i].mac;
	}
	qsort(smacs, me->nb_statics, sizeof(*smacs), addr_cmp);
	/* the first group of this vesw */
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (pairs[grp[mid]].vesw < me->vesw_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (g = lo; g < nb_grp && pairs[grp[g]].vesw == me->vesw_id; g++) {
		const struct pair *p = &pairs[grp[g]], *end = &pairs[grp[g + 1]], *q;

		for (q = p; q < end && q->vport != vi; q++)
			;
		if (q < end)
			continue; /* on its own list */
		if (bsearch(&p->mac, smacs, me->nb_statics, sizeof(*smacs), addr_cmp) != NULL) {
			note(x, EM_NOTE_STATIC, vi, p->vport, &p->mac, 0);
			continue;
		}
		want[nb_want++] = (struct want){ .mac = p->mac, .dlid = v[p->vport].dlid };
	}
	/* learned entries keep their slots: fewer chunks to write */
	for (i = me->nb_statics; i < VNIC_MAC_TBL_MAX; i++) {
		struct want *w;

		if (rte_is_zero_ether_addr(&prev[i].mac))
			continue;
		w = bsearch(&prev[i].mac, want, nb_want, sizeof(*want), want_cmp);
		if (w == NULL || w->placed)
			continue;
		next[i].mac = w->mac;
		next[i].dlid_sd = w->dlid << VNIC_DLID_SD_SHIFT;
		w->placed = true;
	}
	free_slot = me->nb_statics;
	for (i = 0; i < nb_want; i++) {
		if (want[i].placed)
			continue;
		while (free_slot < VNIC_MAC_TBL_MAX &&
		       !rte_is_zero_ether_addr(&next[free_slot].mac))
			free_slot++;
		if (free_slot == VNIC_MAC_TBL_MAX) {
			excess++;
			continue;
		}
		next[free_slot].mac = want[i].mac;
		next[free_slot].dlid_sd = want[i].dlid << VNIC_DLID_SD_SHIFT;
		free_slot++;
	}
	if (excess > 0)
		note(x, EM_NOTE_LIMIT, vi, 0, NULL, excess);
}

int
em_learn_compute(const struct em_learn_vport *v, unsigned int nb,
		 const struct vnic_mac_entry *const *prev, struct vnic_mac_entry *const *next,
		 struct em_learn_result *res)
{
	struct learn_ctx x = { .res = res };
	struct rte_ether_addr *smacs = NULL;
	struct pair *pairs = NULL;
	struct want *want = NULL;
	unsigned int *grp = NULL;
	size_t total = 0, np = 0;
	unsigned int i, j, nb_grp = 0;

	memset(res, 0, sizeof(*res));
	for (i = 0; i < nb; i++)
		total += v[i].list != NULL ? v[i].list->n : 0;
	pairs = malloc(sizeof(*pairs) * (total + 1));
	grp = malloc(sizeof(*grp) * (total + 1));
	want = malloc(sizeof(*want) * (total + 1));
	smacs = malloc(sizeof(*smacs) * VNIC_MAC_TBL_MAX);
	if (pairs == NULL || grp == NULL || want == NULL || smacs == NULL)
		goto nomem;
	for (i = 0; i < nb; i++) {
		const struct em_learn_list *l = v[i].list;

		for (j = 0; l != NULL && j < l->n; j++) {
			if (!rte_is_valid_assigned_ether_addr(&l->mac[j])) {
				note(&x, EM_NOTE_IGNORED, i, 0, &l->mac[j], 0);
				continue;
			}
			pairs[np++] = (struct pair){ .vesw = v[i].vesw_id, .mac = l->mac[j],
						     .since = l->since[j], .vport = i };
		}
	}
	qsort(pairs, np, sizeof(*pairs), pair_cmp);
	/* groups: one (vesw, MAC) each, its latest reporter first */
	for (j = 0; j < np; j++)
		if (j == 0 || pairs[j].vesw != pairs[j - 1].vesw ||
		    mac_cmp(&pairs[j].mac, &pairs[j - 1].mac) != 0)
			grp[nb_grp++] = j;
	grp[nb_grp] = (unsigned int)np;
	res->owners = malloc(sizeof(*res->owners) * (nb_grp + 1));
	if (res->owners == NULL)
		goto nomem;
	for (i = 0; i < nb_grp; i++) {
		const struct pair *p = &pairs[grp[i]];

		res->owners[i] = (struct em_learn_owner){ .vesw_id = p->vesw, .mac = p->mac,
							  .vport = p->vport };
		for (j = grp[i] + 1; j < grp[i + 1]; j++)
			note(&x, EM_NOTE_CONFLICT, p->vport, pairs[j].vport, &p->mac, 0);
	}
	res->nb_owners = nb_grp;
	for (i = 0; i < nb; i++)
		if (prev[i] != NULL && next[i] != NULL)
			fill_table(&x, v, i, pairs, grp, nb_grp, prev[i], next[i], smacs, want);
	if (x.nomem)
		goto nomem;
	if (res->nb_notes > 0)
		qsort(res->notes, res->nb_notes, sizeof(*res->notes), em_learn_note_cmp);
	for (i = 0, j = 0; i < res->nb_notes; i++)
		if (j == 0 || em_learn_note_cmp(&res->notes[j - 1], &res->notes[i]) != 0)
			res->notes[j++] = res->notes[i];
	res->nb_notes = j;
	free(pairs);
	free(grp);
	free(want);
	free(smacs);
	return 0;
nomem:
	free(pairs);
	free(grp);
	free(want);
	free(smacs);
	em_learn_result_free(res);
	return -ENOMEM;
}

void
em_learn_result_free(struct em_learn_result *res)
{
	free(res->owners);
	free(res->notes);
	memset(res, 0, sizeof(*res));
}

static uint32_t
renumber(const uint32_t *new_of, unsigned int nb_old, uint32_t vport)
{
	return vport < nb_old ? new_of[vport] : EM_LEARN_GONE;
}

void
em_learn_result_remap(struct em_learn_result *res, const uint32_t *new_of, unsigned int nb_old)
{
	unsigned int i, j;

	/* owners are ordered by (vesw, MAC): renumbering keeps the order */
	for (i = 0, j = 0; i < res->nb_owners; i++) {
		struct em_learn_owner o = res->owners[i];

		o.vport = renumber(new_of, nb_old, o.vport);
		if (o.vport != EM_LEARN_GONE)
			res->owners[j++] = o;
	}
	res->nb_owners = j;
	for (i = 0, j = 0; i < res->nb_notes; i++) {
		struct em_learn_note n = res->notes[i];
		bool two = n.kind == EM_NOTE_STATIC || n.kind == EM_NOTE_CONFLICT;

		n.vport = renumber(new_of, nb_old, n.vport);
		if (two)
			n.other = renumber(new_of, nb_old, n.other);
		if (n.vport != EM_LEARN_GONE && (!two || n.other != EM_LEARN_GONE))
			res->notes[j++] = n;
	}
	res->nb_notes = j;
	/* notes are ordered by vport: the new numbers need a new order */
	if (j > 1)
		qsort(res->notes, j, sizeof(*res->notes), em_learn_note_cmp);
}
