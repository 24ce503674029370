/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _EM_LEARN_H_
#define _EM_LEARN_H_

/**
 * @file
 * What `opa-em serve` learns, without I/O: the reader of a node's interface
 * unicast MAC list (untrusted replies, one MAD at a time), each vport's list
 * with when each MAC first appeared on it, and the computation of every
 * vport's MAC table from the configuration's static entries and the MACs
 * the other vports of its vesw report.
 *
 * Rules of em_learn_compute():
 *  - a vport's table is its static entries (indexes 0..nb_statics-1), then
 *    one learned entry (mac, DLID = the reporter's encap_slid) for every
 *    unicast MAC another vport of the same vesw reports;
 *  - a vport never learns a MAC on its own list;
 *  - a learned MAC equal to one of the vport's static MACs: the static
 *    entry stays (EM_NOTE_STATIC);
 *  - a MAC reported by several vports: the one on whose list it appeared
 *    last wins (a station moved; EM_NOTE_CONFLICT per other reporter);
 *  - a learned entry keeps its slot from the previous table; new ones take
 *    the lowest free slots; what does not fit in VNIC_MAC_TBL_MAX entries
 *    is left out (EM_NOTE_LIMIT);
 *  - multicast and all-zero MACs on a list are ignored (EM_NOTE_IGNORED).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ether.h>

#include "vnic.h"

/** Most MACs taken from one vport's interface list (the agent's own bound). */
#define EM_LEARN_LIST_MAX VNIC_IFACE_MACS_MAX

/** A list being read from a node, one reply at a time. */
struct em_iface_read {
	uint16_t next;   /**< start_idx of the next request */
	uint16_t total;  /**< tot_macs_in_lst of the first reply */
	uint16_t gen;    /**< gen_count of the first reply */
	bool started;    /**< a reply was taken */
	struct rte_ether_addr mac[EM_LEARN_LIST_MAX]; /**< MACs 0..next-1 */
};

/** One vport's interface unicast list as last read. */
struct em_learn_list {
	uint16_t n;      /**< MACs (distinct) */
	uint16_t gen;    /**< the node's gen_count with it */
	struct rte_ether_addr mac[EM_LEARN_LIST_MAX]; /**< in the node's order */
	uint64_t since[EM_LEARN_LIST_MAX]; /**< report number when each first appeared */
};

/** Input of em_learn_compute(): one per configured vport. */
struct em_learn_vport {
	uint16_t vesw_id;                      /**< its vesw */
	uint32_t dlid;                         /**< where its stations are (encap_slid) */
	const struct vnic_mac_entry *statics;  /**< configured entries */
	uint16_t nb_statics;                   /**< how many (at most VNIC_MAC_TBL_MAX) */
	const struct em_learn_list *list;      /**< NULL: not read (reports nothing) */
};

/** Kinds of em_learn_note. */
enum em_note_kind {
	EM_NOTE_IGNORED = 1, /**< vport reported mac, not a unicast MAC */
	EM_NOTE_STATIC,      /**< vport's static entry for mac wins over other's report */
	EM_NOTE_CONFLICT,    /**< vport (latest) and other both report mac: vport wins */
	EM_NOTE_LIMIT,       /**< vport's table has no room for count learned MACs */
};

/** A rule that applied. */
struct em_learn_note {
	uint8_t kind;              /**< enum em_note_kind */
	uint32_t vport;            /**< see enum em_note_kind */
	uint32_t other;            /**< STATIC: the reporter; CONFLICT: the loser; else 0 */
	struct rte_ether_addr mac; /**< LIMIT: zero */
	uint32_t count;            /**< LIMIT: MACs left out; else 0 */
};

/** Where a vesw's station is: the vport that reported it last. */
struct em_learn_owner {
	uint16_t vesw_id;          /**< the vesw */
	struct rte_ether_addr mac; /**< the station */
	uint32_t vport;            /**< its reporter */
};

/** Output of em_learn_compute() (free with em_learn_result_free()). */
struct em_learn_result {
	struct em_learn_owner *owners; /**< sorted by em_learn_owner_cmp() */
	unsigned int nb_owners;        /**< how many */
	struct em_learn_note *notes;   /**< sorted by em_learn_note_cmp(), distinct */
	unsigned int nb_notes;         /**< how many */
};

/**
 * Start reading a list: the first request asks from start_idx 0.
 *
 * @param r
 *   The read.
 */
void em_iface_read_init(struct em_iface_read *r);

/**
 * Take one IFACE_UCAST_MACS reply (untrusted: every field is checked).
 *
 * @param r
 *   The read; its next request asks from r->next.
 * @param data
 *   The reply's data.
 * @param len
 *   Its length.
 * @param why
 *   Filled on -EBADMSG and -EAGAIN.
 * @param whylen
 *   Its size.
 * @return
 *   1 when the list is whole (r->next MACs in r->mac), 0 to ask again,
 *   -EAGAIN when the list changed between replies (start again), -EBADMSG
 *   when the reply is not one of the list asked for.
 */
int em_iface_read_reply(struct em_iface_read *r, const uint8_t *data, size_t len, char *why,
			size_t whylen);

/**
 * Take a whole list read into a vport's list: duplicates dropped, MACs
 * already on it keep their report number, new ones get ++*seq.
 *
 * @param l
 *   The vport's list (zeroed before its first read).
 * @param macs
 *   The MACs read.
 * @param n
 *   How many (at most EM_LEARN_LIST_MAX).
 * @param gen
 *   The node's gen_count.
 * @param seq
 *   The report counter shared by all lists.
 * @return
 *   true when the set of MACs changed.
 */
bool em_learn_list_update(struct em_learn_list *l, const struct rte_ether_addr *macs,
			  uint16_t n, uint16_t gen, uint64_t *seq);

/**
 * Every vport's MAC table from the static entries and the lists.
 *
 * @param v
 *   The vports.
 * @param nb
 *   How many.
 * @param prev
 *   Per vport, its table as last written (VNIC_MAC_TBL_MAX entries; learned
 *   entries keep their slots), or NULL: its table is not computed.
 * @param next
 *   Per vport, filled with its new table where prev is not NULL.
 * @param res
 *   Filled: owners and notes.
 * @return
 *   0, or -ENOMEM (nothing filled).
 */
int em_learn_compute(const struct em_learn_vport *v, unsigned int nb,
		     const struct vnic_mac_entry *const *prev, struct vnic_mac_entry *const *next,
		     struct em_learn_result *res);

/**
 * Free what em_learn_compute() filled.
 *
 * @param res
 *   The result (zeroed).
 */
void em_learn_result_free(struct em_learn_result *res);

/** em_learn_result_remap(): a vport no longer configured. */
#define EM_LEARN_GONE UINT32_MAX

/**
 * Renumber the vports a result names after the configuration changed
 * (serve's reload); owners and notes that name a vport no longer
 * configured are dropped. The orders stay those of em_learn_compute().
 *
 * @param res
 *   The result.
 * @param new_of
 *   Per old vport: its new index, or EM_LEARN_GONE.
 * @param nb_old
 *   Entries in @p new_of (a vport beyond them counts as gone).
 */
void em_learn_result_remap(struct em_learn_result *res, const uint32_t *new_of,
			   unsigned int nb_old);

/** Order of owners: vesw, then MAC. */
int em_learn_owner_cmp(const void *a, const void *b);

/** Order of notes: kind, vport, other, MAC, count. */
int em_learn_note_cmp(const void *a, const void *b);

#endif /* _EM_LEARN_H_ */
