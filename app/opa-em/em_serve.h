/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _EM_SERVE_H_
#define _EM_SERVE_H_

/*
 * opa-em serve's state, shared by em_serve.c (interface lists, MAC tables,
 * the loop) and em_serve_node.c (nodes that restart, come late or stop
 * answering; SIGHUP reloads). Internal to opa-em.
 */

#include <stdbool.h>
#include <stdint.h>

#include "em_cmd.h"
#include "em_learn.h"

/* What serve counts (printed at the end, in serve_ctrs[] order). */
struct em_serve_stats {
	uint64_t polls;         /* poll periods begun */
	uint64_t traps;         /* UCAST_MAC_CHANGE traps from a served vport */
	uint64_t list_reads;    /* whole lists read */
	uint64_t list_changes;  /* reads that changed a list */
	uint64_t list_errors;   /* reads given up (no reply, error status, bad reply) */
	uint64_t table_syncs;   /* tables brought up to date */
	uint64_t table_writes;  /* MAC-table SETs */
	uint64_t table_errors;  /* tables left to try again */
	uint64_t learned;       /* stations that appeared */
	uint64_t forgot;        /* stations no vport reports any more */
	uint64_t moved;         /* stations that another vport reported last */
	uint64_t static_wins;   /* rule: a static entry kept over a report */
	uint64_t conflicts;     /* rule: a MAC on two lists, the latest won */
	uint64_t over_limit;    /* rule: a table without room for all */
	uint64_t ignored;       /* rule: a multicast or zero MAC on a list */
	uint64_t checks;        /* VESWPORT_INFO read at a poll */
	uint64_t check_errors;  /* ... answered with an error status */
	uint64_t lost_configs;  /* vports found not configured as the file says */
	uint64_t lost_tables;   /* MAC tables found with another digest than written */
	uint64_t node_applies;  /* nodes applied during serve (restarted, late, reloaded) */
	uint64_t no_reply;      /* times a node stopped answering */
	uint64_t reloads;       /* configurations reloaded (SIGHUP) */
	uint64_t reload_errors; /* files refused at a reload */
};

/* Where a vport stands. */
enum serve_state {
	VP_APPLIED = 0, /* configured as the file says: served while its node answers */
	VP_WAITING,     /* not configured yet: its node has not answered */
	VP_FAILED,      /* its configuration was refused: tried again at a reload */
};

/* One configured vport, as serve keeps it. */
struct served {
	uint8_t state;               /* enum serve_state */
	bool apply;                  /* apply_node() sets its VESWPORT_INFO */
	bool known;                  /* its list was read once */
	bool pending;                /* read its list again */
	bool resync;                 /* read its table before the next write */
	uint32_t node;               /* its node in serve.nodes */
	uint32_t digest;             /* the digest its table carries */
	struct em_learn_list list;   /* its interface unicast list */
	struct vnic_mac_entry cur[VNIC_MAC_TBL_MAX];  /* its table, as on the node */
	struct vnic_mac_entry next[VNIC_MAC_TBL_MAX]; /* as it should be */
};

/* One node (HFI port LID) of the configuration. */
struct serve_node {
	uint32_t lid;
	bool down;                   /* did not answer: asked with one try at each poll */
	bool setup;                  /* apply_node() sets its ClassPortInfo (the EM changed) */
};

struct serve {
	struct em_client *c;
	struct em_config *cfg;       /* replaced by a reload */
	const char *path;            /* the file reloaded */
	struct served *v;            /* per configured vport */
	struct serve_node *nodes;    /* distinct nodes of cfg */
	unsigned int nb_nodes;
	struct em_learn_vport *in;   /* em_learn_compute() input */
	const struct vnic_mac_entry **prev;
	struct vnic_mac_entry **next;
	struct em_learn_result last; /* what was last computed */
	uint64_t seq;                /* report counter of the lists */
	bool dirty;                  /* compute the tables again */
	struct em_serve_stats st;
};

/* A vport whose list is read and whose table is written. */
static inline bool
serve_vport_served(const struct serve *s, unsigned int i)
{
	return s->v[i].state == VP_APPLIED && !s->nodes[s->v[i].node].down;
}

static inline int
serve_worse(int a, int b)
{
	return a > b ? a : b;
}

/* em_serve.c: the arrays of @cfg's vports and nodes in @s (zeroed vports:
 * state VP_APPLIED, the static table as apply leaves it); 0 or -ENOMEM.
 */
int serve_arrays(struct serve *s, struct em_config *cfg);

/* em_serve.c: free what serve_arrays() allocated. */
void serve_arrays_free(struct serve *s);

/* em_serve.c: the learned-station line of a vport no longer served. */
void serve_forgot(struct serve *s, const struct em_learn_owner *o);

/* em_serve_node.c: node @n did not answer; said once until it does. */
void serve_node_down(struct serve *s, unsigned int n);

/* em_serve_node.c: what serve says about the vports apply left out. */
void serve_after_apply(struct serve *s);

/* em_serve_node.c: at a poll, every node: asked again when down; each
 * applied vport's VESWPORT_INFO read (a node without its configuration is
 * applied again; a table with another digest is written again; a list
 * whose generation moved is read); waiting vports applied. An exit code.
 */
int serve_poll_nodes(struct serve *s);

/* em_serve_node.c: SIGHUP: load the file again and apply what changed. */
int serve_reload(struct serve *s);

#endif /* _EM_SERVE_H_ */
