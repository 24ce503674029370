/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * opa-em serve and the nodes: a node that restarts comes back with the
 * agent's power-on defaults (vports DROP_ALL on no vesw, traps pointed
 * nowhere, an empty MAC table), so at each poll every applied vport's
 * VESWPORT_INFO is read and compared with the configuration; a node that
 * lost it is applied again (ClassPortInfo, VESWPORT_INFO, then the whole
 * MAC table through em_serve.c's writer). A node that does not answer is
 * asked once a poll until it does; the vports apply could not reach wait
 * for it. SIGHUP loads the file again and applies what changed.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "em_serve.h"

static const char *
state_name(uint8_t st)
{
	return st == VNIC_STATE_FORWARDING ? "FORWARDING" : st == VNIC_STATE_DROP_ALL ?
		"DROP_ALL" : "in an unknown state";
}

void
serve_node_down(struct serve *s, unsigned int n)
{
	struct serve_node *nd = &s->nodes[n];

	if (nd->down)
		return;
	nd->down = true;
	s->st.no_reply++;
	printf("node %u: not answering: asked again at each poll (one try); its vports wait\n",
	       nd->lid);
}

void
serve_after_apply(struct serve *s)
{
	unsigned int i, n;

	for (n = 0; n < s->nb_nodes; n++)
		if (s->nodes[n].down)
			printf("node %u: not answering: asked again at each poll (one try); its vports wait\n",
			       s->nodes[n].lid);
	for (i = 0; i < s->cfg->nb_vports; i++)
		if (s->v[i].state == VP_FAILED)
			printf("node %u vport %u: not served: its configuration was not applied (a reload tries again)\n",
			       s->cfg->vports[i].node_lid, s->cfg->vports[i].index);
}

/* Does node @lid answer? One try, nothing printed. */
static bool
probe(struct serve *s, uint32_t lid)
{
	struct em_client *c = s->c;
	unsigned int retries = c->retries;
	uint8_t data[VEMA_DATA_LEN];
	uint16_t st;
	int ret;

	c->retries = 0;
	ret = em_call(c, lid, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0, NULL, 0, data, &st);
	c->retries = retries;
	return ret == 0;
}

/* Read vport @i's VESWPORT_INFO: marks it to apply when the node does not
 * hold its configuration (@why says how, for the first such vport), its
 * table to write again when its digest is not serve's, its list to read
 * when its generation moved.
 */
static int
check_vport(struct serve *s, unsigned int i, char *why, size_t len)
{
	const struct em_vport *vp = &s->cfg->vports[i];
	uint8_t want[VEMA_VESWPORT_INFO_LEN], data[VEMA_DATA_LEN];
	struct vnic_vesw_info wv, gv;
	struct vnic_port_info wp, gp;
	struct served *sv = &s->v[i];
	struct em_info_diff d;
	uint16_t st;
	int ret, rc;

	ret = em_call(s->c, vp->node_lid, VEMA_METHOD_GET, VEMA_ATTR_VESWPORT_INFO, vp->index,
		      NULL, 0, data, &st);
	if (ret == -EINTR)
		return EM_EXIT_OK; /* stopping */
	rc = em_outcome(vp, vp->node_lid, "GET VESWPORT_INFO", ret, st, s->c->retries + 1);
	if (rc == EM_EXIT_FAILED)
		s->st.check_errors++;
	if (rc != EM_EXIT_OK)
		return rc;
	s->st.checks++;
	em_vport_info_encode(s->cfg, vp, want);
	vema_veswport_info_decode(want, &wv, &wp);
	vema_veswport_info_decode(data, &gv, &gp);
	if (em_vport_info_diff(want, data, false, &d, 1) != 0) {
		if (why[0] == '\0' && gp.config_state != wp.config_state)
			snprintf(why, len, "vport %u is %s", vp->index, state_name(gp.config_state));
		else if (why[0] == '\0')
			snprintf(why, len, "vport %u: %s is %s, want %s", vp->index, d.name, d.got,
				 d.want);
		sv->apply = true;
		s->st.lost_configs++;
		return EM_EXIT_OK;
	}
	if (!sv->resync && gp.mac_tbl_digest != sv->digest) {
		printf("node %u vport %u: MAC table digest 0x%x is not the 0x%x serve wrote: writing the table again\n",
		       vp->node_lid, vp->index, gp.mac_tbl_digest, sv->digest);
		sv->resync = true;
		s->dirty = true;
		s->st.lost_tables++;
	}
	if (!sv->known || gp.uc_macs_gen_count != sv->list.gen)
		sv->pending = true;
	return EM_EXIT_OK;
}

/* Point node @n's traps at us and set the VESWPORT_INFO of its vports
 * marked to apply; their tables are then read and written whole.
 */
static int
apply_node(struct serve *s, unsigned int n)
{
	struct serve_node *nd = &s->nodes[n];
	unsigned int i;
	int rc, vrc;

	rc = em_setup_node(s->c, s->cfg, nd->lid);
	if (*s->c->stop)
		return EM_EXIT_OK; /* the request in flight gave up */
	if (rc == EM_EXIT_UNREACHABLE) {
		serve_node_down(s, n);
	} else {
		nd->setup = false;
		s->st.node_applies++;
	}
	for (i = 0; i < s->cfg->nb_vports && !nd->down && !*s->c->stop; i++) {
		const struct em_vport *vp = &s->cfg->vports[i];
		struct served *sv = &s->v[i];
		char mac[RTE_ETHER_ADDR_FMT_SIZE];

		if (sv->node != n || !sv->apply)
			continue;
		sv->apply = false;
		vrc = em_set_vport_info(s->c, s->cfg, vp);
		if (*s->c->stop)
			break;
		rc = serve_worse(rc, vrc);
		if (vrc == EM_EXIT_UNREACHABLE) {
			serve_node_down(s, n);
			break;
		}
		rte_ether_format_addr(mac, sizeof(mac), &vp->mac);
		printf("node %u vport %u: vesw %u mac %s: %s\n", vp->node_lid, vp->index,
		       vp->vesw_id, mac, vrc == EM_EXIT_OK ? "configured" : "FAILED");
		s->dirty = true;
		if (vrc == EM_EXIT_OK) {
			/* what its table holds now is not known: read it, then write */
			sv->state = VP_APPLIED;
			sv->resync = true;
			sv->pending = true;
		} else {
			sv->state = VP_FAILED;
			sv->known = false; /* its stations are forgotten */
			printf("node %u vport %u: not served: its configuration was not applied (a reload tries again)\n",
			       vp->node_lid, vp->index);
		}
	}
	for (i = 0; i < s->cfg->nb_vports; i++)
		if (s->v[i].node == n)
			s->v[i].apply = false;
	return rc;
}

int
serve_poll_nodes(struct serve *s)
{
	unsigned int i, n;
	int rc = EM_EXIT_OK, vrc;

	for (n = 0; n < s->nb_nodes && !*s->c->stop; n++) {
		struct serve_node *nd = &s->nodes[n];
		unsigned int applied = 0, waiting = 0, lost = 0;
		char why[160] = "";

		for (i = 0; i < s->cfg->nb_vports; i++) {
			if (s->v[i].node != n)
				continue;
			applied += s->v[i].state == VP_APPLIED;
			waiting += s->v[i].state == VP_WAITING;
		}
		if (nd->down) {
			if (!probe(s, nd->lid))
				continue;
			nd->down = false;
			s->dirty = true;
			if (applied > 0)
				printf("node %u: answers again\n", nd->lid);
		}
		for (i = 0; i < s->cfg->nb_vports && !nd->down && !*s->c->stop; i++) {
			if (s->v[i].node != n || s->v[i].state != VP_APPLIED)
				continue;
			s->v[i].apply = false;
			vrc = check_vport(s, i, why, sizeof(why));
			if (vrc == EM_EXIT_UNREACHABLE)
				serve_node_down(s, n);
			rc = serve_worse(rc, vrc);
			lost += s->v[i].apply;
		}
		if (nd->down || *s->c->stop) {
			for (i = 0; i < s->cfg->nb_vports; i++)
				if (s->v[i].node == n)
					s->v[i].apply = false;
			continue;
		}
		for (i = 0; i < s->cfg->nb_vports; i++)
			if (s->v[i].node == n && s->v[i].state == VP_WAITING)
				s->v[i].apply = true;
		if (lost > 0)
			printf("node %u: lost its configuration (%s): applying again\n", nd->lid, why);
		else if (waiting > 0)
			printf("node %u: answers: applying its %u vports not applied yet\n", nd->lid,
			       waiting);
		else if (!nd->setup)
			continue;
		rc = serve_worse(rc, apply_node(s, n));
	}
	return rc;
}

/* --- SIGHUP --- */

/* The reload line of a vport whose VESWPORT_INFO changed. */
static void
say_changed(const struct em_config *from, const struct em_vport *o, const struct em_config *to,
	    const struct em_vport *vp)
{
	uint8_t a[VEMA_VESWPORT_INFO_LEN], b[VEMA_VESWPORT_INFO_LEN];
	struct em_info_diff d[64];
	unsigned int k, nd;

	em_vport_info_encode(from, o, a);
	em_vport_info_encode(to, vp, b);
	nd = em_vport_info_diff(a, b, false, d, RTE_DIM(d));
	printf("reload: node %u vport %u:", vp->node_lid, vp->index);
	for (k = 0; k < nd && k < RTE_DIM(d); k++)
		printf("%s %s %s -> %s", k ? "," : "", d[k].name, d[k].want, d[k].got);
	printf("\n");
}

/* Carry what serve knows of each vport from @s to @ns (over @to) and say
 * what changed; the counts in @nb (changed, added, removed, tables).
 */
static void
carry(struct serve *s, struct serve *ns, const struct em_config *to, const uint32_t *old_of,
      const uint8_t *change, const uint32_t *new_of, unsigned int *nb)
{
	const struct em_config *from = s->cfg;
	unsigned int i, j, n, m;

	for (n = 0; n < ns->nb_nodes; n++)
		for (m = 0; m < s->nb_nodes; m++)
			if (s->nodes[m].lid == ns->nodes[n].lid)
				ns->nodes[n].down = s->nodes[m].down;
	for (j = 0; j < to->nb_vports; j++) {
		const struct em_vport *vp = &to->vports[j];
		struct served *nv = &ns->v[j];
		uint32_t node = nv->node;

		if (old_of[j] == EM_VPORT_GONE) {
			nv->state = VP_WAITING;
			nv->apply = true;
			printf("reload: node %u vport %u: added\n", vp->node_lid, vp->index);
			nb[1]++;
			continue;
		}
		memcpy(nv, &s->v[old_of[j]], sizeof(*nv));
		nv->node = node;
		if (change[j] & EM_VPORT_INFO) {
			say_changed(from, &from->vports[old_of[j]], to, vp);
			nb[0]++;
		}
		if (change[j] & EM_VPORT_TABLE) {
			printf("reload: node %u vport %u: mac_table: %u static entries (were %u)\n",
			       vp->node_lid, vp->index, vp->nb_macs,
			       from->vports[old_of[j]].nb_macs);
			nb[3]++;
		}
		/* a refused or unreached vport is tried again */
		nv->apply = nv->state != VP_APPLIED || (change[j] & EM_VPORT_INFO);
		if (nv->state == VP_FAILED)
			nv->state = VP_WAITING;
	}
	for (i = 0; i < from->nb_vports; i++)
		if (new_of[i] == EM_VPORT_GONE) {
			printf("reload: node %u vport %u: removed (left as it is on its node, no longer served)\n",
			       from->vports[i].node_lid, from->vports[i].index);
			nb[2]++;
		}
	/* the stations only a removed vport reported leave its vesw */
	for (i = 0; i < s->last.nb_owners; i++)
		if (new_of[s->last.owners[i].vport] == EM_VPORT_GONE)
			serve_forgot(s, &s->last.owners[i]);
	em_learn_result_remap(&s->last, new_of, from->nb_vports);
}

int
serve_reload(struct serve *s)
{
	struct em_config to, *cfg = s->cfg;
	struct em_client *c = s->c;
	uint32_t *old_of = NULL, *new_of = NULL;
	uint8_t *change = NULL;
	unsigned int n, nb[4] = { 0, 0, 0, 0 };
	struct serve ns;
	bool em_changed;
	char err[512];
	int rc = EM_EXIT_OK;

	memset(&to, 0, sizeof(to));
	memset(&ns, 0, sizeof(ns));
	if (em_config_load(s->path, &to, err, sizeof(err)) != 0) {
		printf("reload refused: %s (the configuration loaded before stays)\n", err);
		s->st.reload_errors++;
		return EM_EXIT_OK;
	}
	old_of = calloc(to.nb_vports + 1, sizeof(*old_of));
	change = calloc(to.nb_vports + 1, sizeof(*change));
	new_of = calloc(cfg->nb_vports + 1, sizeof(*new_of));
	if (old_of == NULL || change == NULL || new_of == NULL || serve_arrays(&ns, &to) != 0) {
		printf("reload refused: out of memory (the configuration loaded before stays)\n");
		s->st.reload_errors++;
		serve_arrays_free(&ns);
		em_config_free(&to);
		rc = EM_EXIT_FAILED;
		goto out;
	}
	em_config_diff(cfg, &to, old_of, change, new_of);
	carry(s, &ns, &to, old_of, change, new_of, nb);
	em_changed = cfg->em_lid != to.em_lid || cfg->pkey != to.pkey || cfg->sl != to.sl;
	/* the new configuration takes the old one's place (the caller frees it) */
	serve_arrays_free(s);
	em_config_free(cfg);
	*cfg = to;
	s->cfg = cfg;
	s->v = ns.v;
	s->in = ns.in;
	s->prev = ns.prev;
	s->next = ns.next;
	s->nodes = ns.nodes;
	s->nb_nodes = ns.nb_nodes;
	s->dirty = true;
	s->st.reloads++;
	if (em_changed) {
		c->lid = cfg->em_lid;
		c->pkey = cfg->pkey;
		c->sl = cfg->sl;
		for (n = 0; n < s->nb_nodes; n++)
			s->nodes[n].setup = true;
		printf("reload: em: LID %u, P_Key 0x%04x, SL %u: every node's traps are pointed here again\n",
		       cfg->em_lid, cfg->pkey, cfg->sl);
	}
	printf("reloaded %s: %u vports: %u changed, %u added, %u removed, %u static tables changed\n",
	       s->path, cfg->nb_vports, nb[0], nb[1], nb[2], nb[3]);
	for (n = 0; n < s->nb_nodes && !*c->stop; n++) {
		unsigned int i;
		bool need = s->nodes[n].setup;

		for (i = 0; i < cfg->nb_vports; i++)
			need |= s->v[i].node == n && s->v[i].apply;
		/* a node that does not answer is applied when it does (the poll) */
		if (need && !s->nodes[n].down)
			rc = serve_worse(rc, apply_node(s, n));
		for (i = 0; i < cfg->nb_vports; i++)
			if (s->v[i].node == n)
				s->v[i].apply = false;
	}
out:
	free(old_of);
	free(change);
	free(new_of);
	return rc;
}
