/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * opa-em serve: apply, then keep every vesw's MAC tables in step with the
 * stations its vports report on their interface unicast lists (read at
 * start, on each UCAST_MAC_CHANGE trap, and every poll period). The rules
 * are em_learn.c's; this file does the reads, the writes and the log.
 * Nodes that restart, answer late or stop answering, and SIGHUP reloads,
 * are em_serve_node.c's.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_hash_crc.h>

#include <omni_counters.h>

#include "em_serve.h"

static const struct omni_ctr serve_ctrs[] = {
	OMNI_CTR(struct em_serve_stats, polls),
	OMNI_CTR(struct em_serve_stats, traps),
	OMNI_CTR(struct em_serve_stats, list_reads),
	OMNI_CTR(struct em_serve_stats, list_changes),
	OMNI_CTR(struct em_serve_stats, list_errors),
	OMNI_CTR(struct em_serve_stats, table_syncs),
	OMNI_CTR(struct em_serve_stats, table_writes),
	OMNI_CTR(struct em_serve_stats, table_errors),
	OMNI_CTR(struct em_serve_stats, learned),
	OMNI_CTR(struct em_serve_stats, forgot),
	OMNI_CTR(struct em_serve_stats, moved),
	OMNI_CTR(struct em_serve_stats, static_wins),
	OMNI_CTR(struct em_serve_stats, conflicts),
	OMNI_CTR(struct em_serve_stats, over_limit),
	OMNI_CTR(struct em_serve_stats, ignored),
	OMNI_CTR(struct em_serve_stats, checks),
	OMNI_CTR(struct em_serve_stats, check_errors),
	OMNI_CTR(struct em_serve_stats, lost_configs),
	OMNI_CTR(struct em_serve_stats, lost_tables),
	OMNI_CTR(struct em_serve_stats, node_applies),
	OMNI_CTR(struct em_serve_stats, no_reply),
	OMNI_CTR(struct em_serve_stats, reloads),
	OMNI_CTR(struct em_serve_stats, reload_errors),
};
OMNI_CTR_TABLE_CHECK(serve_ctrs, struct em_serve_stats);

/* encoded tables for em_mac_table_read()/em_mac_table_write() */
static uint8_t cur_bytes[VNIC_MAC_TBL_MAX * VEMA_MAC_ENTRY_LEN];
static uint8_t want_bytes[VNIC_MAC_TBL_MAX * VEMA_MAC_ENTRY_LEN];
static struct em_iface_read rd;

static const char *
fmt_mac(const struct rte_ether_addr *a, char *buf)
{
	rte_ether_format_addr(buf, RTE_ETHER_ADDR_FMT_SIZE, a);
	return buf;
}

static void
on_trap(void *arg, const struct em_trap *t)
{
	struct serve *s = arg;
	unsigned int i;

	if (t->t.opcode != VEMA_TRAP_UCAST_MAC_CHANGE)
		return;
	for (i = 0; i < s->cfg->nb_vports; i++) {
		const struct em_vport *vp = &s->cfg->vports[i];

		if (vp->node_lid == t->slid && vp->index == t->t.vport_index &&
		    serve_vport_served(s, i)) {
			s->v[i].pending = true;
			s->st.traps++;
		}
	}
}

/* Read vport @i's interface unicast list; *changed when its set of MACs did. */
static int
read_list(struct serve *s, unsigned int i, bool *changed)
{
	const struct em_vport *vp = &s->cfg->vports[i];
	struct served *sv = &s->v[i];
	uint8_t req[VEMA_IFACE_HDR_LEN], data[VEMA_DATA_LEN];
	struct vema_iface_hdr h;
	unsigned int again;
	char why[128];
	uint16_t st;
	int ret = -EAGAIN, rc;

	*changed = false;
	/* a list that changes between the MADs of one read is read again */
	for (again = 0; again < 3 && ret == -EAGAIN; again++) {
		em_iface_read_init(&rd);
		do {
			h = (struct vema_iface_hdr){ .start_idx = rd.next };
			vema_iface_hdr_encode(req, &h);
			ret = em_call(s->c, vp->node_lid, VEMA_METHOD_GET,
				      VEMA_ATTR_IFACE_UCAST_MACS, vp->index, req, sizeof(req),
				      data, &st);
			if (ret == -EINTR)
				return EM_EXIT_OK; /* stopping */
			rc = em_outcome(vp, vp->node_lid, "GET IFACE_UCAST_MACS", ret, st,
					s->c->retries + 1);
			if (rc != EM_EXIT_OK)
				return rc;
			ret = em_iface_read_reply(&rd, data, sizeof(data), why, sizeof(why));
		} while (ret == 0);
	}
	if (ret != 1) {
		printf("node %u vport %u: GET IFACE_UCAST_MACS: %s\n", vp->node_lid, vp->index,
		       why);
		return EM_EXIT_FAILED;
	}
	s->st.list_reads++;
	*changed = em_learn_list_update(&sv->list, rd.mac, rd.next, rd.gen, &s->seq) ||
		!sv->known;
	sv->known = true;
	s->st.list_changes += *changed;
	return EM_EXIT_OK;
}

/* Read the pending lists; a node that does not answer is not asked again
 * until it does (serve_poll_nodes()).
 */
static int
read_pending(struct serve *s)
{
	unsigned int i;
	int rc = EM_EXIT_OK, vrc;

	for (i = 0; i < s->cfg->nb_vports && !*s->c->stop; i++) {
		bool changed;

		if (!s->v[i].pending)
			continue;
		s->v[i].pending = false;
		if (!serve_vport_served(s, i))
			continue;
		vrc = read_list(s, i, &changed);
		if (vrc != EM_EXIT_OK)
			s->st.list_errors++;
		if (vrc == EM_EXIT_UNREACHABLE)
			serve_node_down(s, s->v[i].node);
		s->dirty |= changed;
		rc = serve_worse(rc, vrc);
	}
	return rc;
}

void
serve_forgot(struct serve *s, const struct em_learn_owner *o)
{
	const struct em_vport *vp = &s->cfg->vports[o->vport];
	char m[RTE_ETHER_ADDR_FMT_SIZE];

	printf("forgot vesw=%u mac=%s (was node %u vport %u)\n", o->vesw_id, fmt_mac(&o->mac, m),
	       vp->node_lid, vp->index);
	s->st.forgot++;
}

/* learned / forgot / moved: the stations of every vesw against the last. */
static void
report_owners(struct serve *s, const struct em_learn_result *now)
{
	const struct em_learn_result *was = &s->last;
	const struct em_vport *vps = s->cfg->vports;
	char m[RTE_ETHER_ADDR_FMT_SIZE];
	unsigned int i = 0, j = 0;

	while (i < was->nb_owners || j < now->nb_owners) {
		const struct em_learn_owner *a = i < was->nb_owners ? &was->owners[i] : NULL;
		const struct em_learn_owner *b = j < now->nb_owners ? &now->owners[j] : NULL;
		int c = a == NULL ? 1 : b == NULL ? -1 : em_learn_owner_cmp(a, b);

		if (c < 0) {
			serve_forgot(s, a);
			i++;
		} else if (c > 0) {
			printf("learned vesw=%u mac=%s dlid=%u (node %u vport %u)\n", b->vesw_id,
			       fmt_mac(&b->mac, m), vps[b->vport].encap_slid,
			       vps[b->vport].node_lid, vps[b->vport].index);
			s->st.learned++;
			j++;
		} else {
			if (a->vport != b->vport) {
				printf("moved vesw=%u mac=%s dlid=%u (node %u vport %u, was node %u vport %u)\n",
				       b->vesw_id, fmt_mac(&b->mac, m), vps[b->vport].encap_slid,
				       vps[b->vport].node_lid, vps[b->vport].index,
				       vps[a->vport].node_lid, vps[a->vport].index);
				s->st.moved++;
			}
			i++;
			j++;
		}
	}
}

/* The rules that newly apply, once each. */
static void
report_notes(struct serve *s, const struct em_learn_result *now)
{
	const struct em_vport *vps = s->cfg->vports;
	char m[RTE_ETHER_ADDR_FMT_SIZE];
	unsigned int i;

	for (i = 0; i < now->nb_notes; i++) {
		const struct em_learn_note *n = &now->notes[i];
		const struct em_vport *a = &vps[n->vport], *b = &vps[n->other];

		if (s->last.nb_notes > 0 && bsearch(n, s->last.notes, s->last.nb_notes,
						    sizeof(*n), em_learn_note_cmp) != NULL)
			continue;
		switch (n->kind) {
		case EM_NOTE_IGNORED:
			printf("ignored node %u vport %u mac=%s: not a unicast MAC\n", a->node_lid,
			       a->index, fmt_mac(&n->mac, m));
			s->st.ignored++;
			break;
		case EM_NOTE_STATIC:
			printf("static node %u vport %u mac=%s: its mac_table entry stays (node %u vport %u reports the MAC)\n",
			       a->node_lid, a->index, fmt_mac(&n->mac, m), b->node_lid, b->index);
			s->st.static_wins++;
			break;
		case EM_NOTE_CONFLICT:
			printf("conflict vesw=%u mac=%s: node %u vport %u reported it last, node %u vport %u also reports it\n",
			       a->vesw_id, fmt_mac(&n->mac, m), a->node_lid, a->index, b->node_lid,
			       b->index);
			s->st.conflicts++;
			break;
		case EM_NOTE_LIMIT:
			printf("limit node %u vport %u: %u learned MACs not written (table full at %u entries)\n",
			       a->node_lid, a->index, n->count, VNIC_MAC_TBL_MAX);
			s->st.over_limit++;
			break;
		default:
			break;
		}
	}
}

/* The digest a table goes with: the configured one while it holds only the
 * static entries, else a CRC of it (as the configuration's default).
 */
static uint32_t
table_digest(const struct em_vport *vp, const struct vnic_mac_entry *t)
{
	unsigned int last = VNIC_MAC_TBL_MAX;

	while (last > vp->nb_macs && rte_is_zero_ether_addr(&t[last - 1].mac))
		last--;
	if (last == vp->nb_macs)
		return vp->digest;
	return rte_hash_crc(t, sizeof(*t) * last, 0);
}

/* Bring vport @i's table on its node to s->v[i].next. */
static int
sync_table(struct serve *s, unsigned int i)
{
	const struct em_vport *vp = &s->cfg->vports[i];
	struct served *sv = &s->v[i];
	uint32_t digest = table_digest(vp, sv->next);
	unsigned int k, writes = 0, learned = 0;
	int rc;

	if (!sv->resync && digest == sv->digest &&
	    memcmp(sv->cur, sv->next, sizeof(sv->cur)) == 0)
		return EM_EXIT_OK;
	if (sv->resync) {
		rc = em_mac_table_read(s->c, vp, cur_bytes, &sv->digest);
		if (rc != EM_EXIT_OK)
			return rc;
		for (k = 0; k < VNIC_MAC_TBL_MAX; k++)
			vema_mac_entry_decode(cur_bytes + k * VEMA_MAC_ENTRY_LEN, &sv->cur[k]);
		sv->resync = false;
	}
	for (k = 0; k < VNIC_MAC_TBL_MAX; k++) {
		vema_mac_entry_encode(cur_bytes + k * VEMA_MAC_ENTRY_LEN, &sv->cur[k]);
		vema_mac_entry_encode(want_bytes + k * VEMA_MAC_ENTRY_LEN, &sv->next[k]);
		learned += k >= vp->nb_macs && !rte_is_zero_ether_addr(&sv->next[k].mac);
	}
	rc = em_mac_table_write(s->c, vp, cur_bytes, sv->digest, want_bytes, digest, &writes);
	s->st.table_writes += writes;
	if (rc != EM_EXIT_OK) {
		sv->resync = true; /* what the node holds is not known now */
		return rc;
	}
	memcpy(sv->cur, sv->next, sizeof(sv->cur));
	sv->digest = digest;
	s->st.table_syncs++;
	printf("node %u vport %u: MAC table: %u static + %u learned entries, %u MADs written\n",
	       vp->node_lid, vp->index, vp->nb_macs, learned, writes);
	return EM_EXIT_OK;
}

/* Compute every table from the lists, report, and write what changed. */
static int
sync_tables(struct serve *s)
{
	struct em_learn_result now;
	unsigned int i;
	int rc = EM_EXIT_OK, vrc;

	s->dirty = false;
	for (i = 0; i < s->cfg->nb_vports; i++) {
		bool served = serve_vport_served(s, i);

		s->in[i].list = s->v[i].known ? &s->v[i].list : NULL;
		s->prev[i] = served ? s->v[i].cur : NULL;
		s->next[i] = served ? s->v[i].next : NULL;
	}
	if (em_learn_compute(s->in, s->cfg->nb_vports, s->prev, s->next, &now) != 0) {
		printf("serve: out of memory computing the MAC tables\n");
		return EM_EXIT_FAILED;
	}
	report_owners(s, &now);
	report_notes(s, &now);
	em_learn_result_free(&s->last);
	s->last = now;
	for (i = 0; i < s->cfg->nb_vports && !*s->c->stop; i++) {
		if (!serve_vport_served(s, i))
			continue;
		vrc = sync_table(s, i);
		if (*s->c->stop)
			break; /* the request in flight gave up */
		if (vrc != EM_EXIT_OK)
			s->st.table_errors++;
		if (vrc == EM_EXIT_UNREACHABLE)
			serve_node_down(s, s->v[i].node);
		rc = serve_worse(rc, vrc);
	}
	return rc;
}

int
serve_arrays(struct serve *s, struct em_config *cfg)
{
	unsigned int i, j, n = cfg->nb_vports;

	s->cfg = cfg;
	s->v = calloc(n + 1, sizeof(*s->v));
	s->in = calloc(n + 1, sizeof(*s->in));
	s->prev = calloc(n + 1, sizeof(*s->prev));
	s->next = calloc(n + 1, sizeof(*s->next));
	s->nodes = calloc(n + 1, sizeof(*s->nodes));
	s->nb_nodes = 0;
	if (s->v == NULL || s->in == NULL || s->prev == NULL || s->next == NULL ||
	    s->nodes == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct em_vport *vp = &cfg->vports[i];

		s->in[i] = (struct em_learn_vport){
			.vesw_id = vp->vesw_id, .dlid = vp->encap_slid,
			.statics = vp->macs, .nb_statics = vp->nb_macs,
		};
		/* apply leaves exactly the static entries and the configured digest */
		if (vp->nb_macs > 0)
			memcpy(s->v[i].cur, vp->macs, sizeof(*vp->macs) * vp->nb_macs);
		s->v[i].digest = vp->digest;
		for (j = 0; j < s->nb_nodes && s->nodes[j].lid != vp->node_lid; j++)
			;
		if (j == s->nb_nodes)
			s->nodes[s->nb_nodes++].lid = vp->node_lid;
		s->v[i].node = j;
	}
	return 0;
}

void
serve_arrays_free(struct serve *s)
{
	free(s->v);
	free(s->in);
	free(s->prev);
	free(s->next);
	free(s->nodes);
	s->v = NULL;
	s->in = NULL;
	s->prev = NULL;
	s->next = NULL;
	s->nodes = NULL;
}

/* Until a trap asks for a read, the poll is due, a reload is asked, or we stop. */
static void
wait_round(struct serve *s, const struct em_serve_opts *o, uint64_t deadline,
	   uint64_t *next_poll, bool *poll_due)
{
	uint64_t hz = rte_get_timer_hz(), period = hz / 1000 * o->poll_ms, now;
	struct em_client *c = s->c;
	unsigned int i;

	for (;;) {
		bool pending = false;

		for (i = 0; i < s->cfg->nb_vports && !pending; i++)
			pending = s->v[i].pending && serve_vport_served(s, i);
		now = rte_get_timer_cycles();
		if (pending || *c->stop || now >= deadline || (o->reload != NULL && *o->reload))
			return;
		if (now >= *next_poll) {
			*poll_due = true;
			*next_poll = now + period;
			s->st.polls++;
			return;
		}
		em_listen(c, (unsigned int)RTE_MIN((uint64_t)100,
			  (*next_poll - now) * 1000 / hz + 1), c->stop);
	}
}

int
em_cmd_serve(struct em_client *c, struct em_config *cfg, const struct em_serve_opts *o)
{
	uint64_t hz = rte_get_timer_hz();
	uint64_t deadline = o->seconds ? rte_get_timer_cycles() + hz * o->seconds : UINT64_MAX;
	uint64_t next_poll;
	struct serve s;
	int *vport_rc = NULL;
	unsigned int i, nb_served = 0;
	bool poll_due = false;
	int rc;

	memset(&s, 0, sizeof(s));
	s.c = c;
	s.path = o->path;
	if (serve_arrays(&s, cfg) != 0 ||
	    (vport_rc = calloc(cfg->nb_vports + 1, sizeof(*vport_rc))) == NULL) {
		printf("serve: out of memory\n");
		serve_arrays_free(&s);
		return EM_EXIT_FAILED;
	}
	/* apply also points every node's traps at us; a vport it did not
	 * reach waits for its node, one it could not configure for a reload
	 */
	for (i = 0; i < cfg->nb_vports; i++)
		vport_rc[i] = EM_EXIT_FAILED;
	rc = em_apply(c, cfg, vport_rc);
	c->on_trap = on_trap;
	c->trap_arg = &s;
	c->repress = true;
	for (i = 0; i < cfg->nb_vports; i++) {
		struct served *sv = &s.v[i];

		sv->state = vport_rc[i] == EM_EXIT_OK ? VP_APPLIED :
			vport_rc[i] == EM_EXIT_UNREACHABLE ? VP_WAITING : VP_FAILED;
		if (sv->state == VP_WAITING)
			s.nodes[sv->node].down = true;
		sv->pending = sv->state == VP_APPLIED;
		nb_served += sv->state == VP_APPLIED;
	}
	free(vport_rc);
	printf("serving %u of %u vports: traps to LID %u, lists read every %u ms\n", nb_served,
	       cfg->nb_vports, c->lid, o->poll_ms);
	serve_after_apply(&s);
	fflush(stdout);
	next_poll = rte_get_timer_cycles() + hz / 1000 * o->poll_ms;
	while (!*c->stop && rte_get_timer_cycles() < deadline) {
		if (o->reload != NULL && *o->reload) {
			*o->reload = 0;
			rc = serve_worse(rc, serve_reload(&s));
		}
		if (poll_due && !*c->stop) {
			poll_due = false;
			rc = serve_worse(rc, serve_poll_nodes(&s));
		}
		rc = serve_worse(rc, read_pending(&s));
		/* a table whose write failed is tried again at each round */
		for (i = 0; i < s.cfg->nb_vports; i++)
			s.dirty |= s.v[i].resync && serve_vport_served(&s, i);
		if (s.dirty && !*c->stop)
			rc = serve_worse(rc, sync_tables(&s));
		fflush(stdout);
		wait_round(&s, o, deadline, &next_poll, &poll_due);
	}
	printf("serve:");
	for (i = 0; i < RTE_DIM(serve_ctrs); i++)
		printf(" %s=%" PRIu64, serve_ctrs[i].name, omni_ctr_value(&serve_ctrs[i], &s.st));
	printf("\n");
	em_learn_result_free(&s.last);
	serve_arrays_free(&s);
	return rc;
}
