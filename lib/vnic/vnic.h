/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _VNIC_H_
#define _VNIC_H_

/**
 * @file
 * VNIC policy: the state the Ethernet Manager gives a VNIC port (vesw_info
 * and per_veswport_info), its MAC table, and the per-packet decisions made
 * from them (DLID, SC, VL, RC, entropy).
 *
 * Concurrency model. A vport's configuration lives in an immutable
 * snapshot, struct vnic_policy. The control path (the VEMA agent) never
 * edits a published snapshot: it copies it, validates and changes the copy,
 * then publishes the copy with a release store and hands the old one to the
 * vport's retire callback. Datapath lcores load the pointer with
 * vnic_vport_policy() and use it for a burst; the retire callback is where
 * a host frees old snapshots after a grace period (e.g. rte_rcu_qsbr). The
 * default callback frees at once, which is right when one thread does all.
 *
 * One writer: every call that changes a vport (configure, MAC entries,
 * reset, carrier, interface lists, take_events) must run on one thread,
 * the agent's; a host's link-change handler hands its news to that thread.
 * vnic_vport_free() frees the current snapshot directly: stop the datapath
 * (or wait a grace period) first.
 *
 * Pure C over bytes (DPDK headers only, no EAL), so it is unit-tested
 * without EAL.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ether.h>

#include "opa16b_lmac.h"
#include "opa16b_vnic.h"

#ifdef __cplusplus
extern "C" {
#endif

/** MAC table capacity (entries the EM may program). */
#define VNIC_MAC_TBL_MAX 2048
/** Source-MAC entries reported to the EM (max_smac_ent). */
#define VNIC_SMAC_MAX 256
/** dlid_sd bit 5: the entry is a source-MAC entry, skipped on lookup. */
#define VNIC_DLID_SD_SMAC (1u << 5)
/** dlid_sd bits 31..8 hold the DLID. */
#define VNIC_DLID_SD_SHIFT 8
/** Unicast DLIDs of a vesw (default ports). */
#define VNIC_UCAST_DLID_MAX 16
/** Slots of the unknown-unicast flow table. */
#define VNIC_FLOW_TBL_SIZE 32
/** Flow table slot with no default port. */
#define VNIC_FLOW_INVALID 0xFF
/** Largest vesw id; 0 is not a valid vesw. */
#define VNIC_VESW_ID_MAX 0xFFFu
/** Largest fabric id. */
#define VNIC_FABRIC_ID_MAX 0x3FFu
/** Smallest Ethernet MTU accepted from the EM (IPv4 minimum). */
#define VNIC_ETH_MTU_MIN 68
/** Largest Ethernet MTU a 16B packet can carry (frame = MTU + 18). */
#define VNIC_ETH_MTU_MAX (OPA16B_VNIC_ETH_MAX - OPA16B_VNIC_ETH_OVERHEAD)
/** Power-on Ethernet MTU. */
#define VNIC_ETH_MTU_DEFAULT 1500
/** Largest SC value in the PCP tables (5-bit 16B field). */
#define VNIC_SC_MAX 31
/** Largest VL value in the PCP tables (4-bit PBC field). */
#define VNIC_VL_MAX 15
/** Interface MAC list capacity (unicast or multicast). */
#define VNIC_IFACE_MACS_MAX 1024

/** config_state / oper_state values. */
enum vnic_state {
	VNIC_STATE_DROP_ALL = 1,   /**< drop everything (dormant) */
	VNIC_STATE_FORWARDING = 3, /**< forward */
};

/** eth_link_status values. */
enum vnic_link {
	VNIC_LINK_UP = 1,   /**< up */
	VNIC_LINK_DOWN = 2, /**< down */
};

/** RC bit shifts in vesw.rc, by traffic class (IPv6 TCP/UDP reversed on purpose). */
enum vnic_rc_class {
	VNIC_RC_DEFAULT = 0,    /**< not IP */
	VNIC_RC_IPV4 = 4,       /**< IPv4, other protocol */
	VNIC_RC_IPV4_UDP = 8,   /**< IPv4 UDP */
	VNIC_RC_IPV4_TCP = 12,  /**< IPv4 TCP */
	VNIC_RC_IPV6 = 16,      /**< IPv6, other next header */
	VNIC_RC_IPV6_TCP = 20,  /**< IPv6 TCP */
	VNIC_RC_IPV6_UDP = 24,  /**< IPv6 UDP */
};

/** vesw_info: the virtual switch a vport belongs to (EM-written). */
struct vnic_vesw_info {
	uint16_t fabric_id;                         /**< 10 bits */
	uint16_t vesw_id;                           /**< 12 bits, 1..4095 once set */
	uint8_t rsvd0[6];                           /**< stored and echoed */
	uint16_t def_port_mask;                     /**< default ports for unknown unicast */
	uint8_t rsvd1[2];                           /**< stored and echoed */
	uint16_t pkey;                              /**< P_Key, membership bit included */
	uint8_t rsvd2[4];                           /**< stored and echoed */
	uint32_t u_mcast_dlid;                      /**< DLID for multicast/broadcast */
	uint32_t u_ucast_dlid[VNIC_UCAST_DLID_MAX]; /**< default port DLIDs */
	uint32_t rc;                                /**< 3-bit RC per traffic class */
	uint8_t rsvd3[56];                          /**< stored and echoed */
	uint16_t eth_mtu;                           /**< Ethernet MTU */
	uint8_t rsvd4[2];                           /**< stored and echoed */
};

/** per_veswport_info: this vport's own settings and read-only state. */
struct vnic_port_info {
	uint32_t port_num;           /**< EM-assigned port number */
	uint8_t eth_link_status;     /**< read-only: enum vnic_link */
	uint8_t rsvd0[3];            /**< stored and echoed */
	struct rte_ether_addr base_mac_addr; /**< interface MAC given by the EM */
	uint8_t config_state;        /**< enum vnic_state, EM-written */
	uint8_t oper_state;          /**< read-only: enum vnic_state */
	uint16_t max_mac_tbl_ent;    /**< read-only: VNIC_MAC_TBL_MAX */
	uint16_t max_smac_ent;       /**< read-only: VNIC_SMAC_MAX */
	uint32_t mac_tbl_digest;     /**< read-only here: set with the MAC table */
	uint8_t rsvd1[4];            /**< stored and echoed */
	uint32_t encap_slid;         /**< SLID of encapsulated packets */
	uint8_t pcp_to_sc_uc[8];     /**< PCP -> SC, unicast */
	uint8_t pcp_to_vl_uc[8];     /**< PCP -> VL, unicast */
	uint8_t pcp_to_sc_mc[8];     /**< PCP -> SC, multicast */
	uint8_t pcp_to_vl_mc[8];     /**< PCP -> VL, multicast */
	uint8_t non_vlan_sc_uc;      /**< untagged unicast SC */
	uint8_t non_vlan_vl_uc;      /**< untagged unicast VL */
	uint8_t non_vlan_sc_mc;      /**< untagged multicast SC */
	uint8_t non_vlan_vl_mc;      /**< untagged multicast VL */
	uint8_t rsvd2[48];           /**< stored and echoed */
	uint16_t uc_macs_gen_count;  /**< read-only: unicast list generation */
	uint16_t mc_macs_gen_count;  /**< read-only: multicast list generation */
	uint8_t rsvd3[8];            /**< stored and echoed */
};

/** One EM-programmed MAC table entry. All-zero MAC = empty slot. */
struct vnic_mac_entry {
	struct rte_ether_addr mac;  /**< destination MAC */
	struct rte_ether_addr mask; /**< stored and echoed; never used by lookup */
	uint32_t dlid_sd;           /**< DLID << 8 | flags (bit 5 = SMAC entry) */
};

/** Index slots of the MAC table (power of two, twice the capacity). */
#define VNIC_MAC_INDEX_SLOTS (2 * VNIC_MAC_TBL_MAX)

/**
 * The MAC table: entries by EM index, plus an open-addressing index keyed
 * by MAC for O(1) expected lookup. Only destination (non-SMAC) entries are
 * indexed; when two entries hold the same MAC, the lowest index wins.
 */
struct vnic_mac_tbl {
	struct vnic_mac_entry ent[VNIC_MAC_TBL_MAX]; /**< by EM index */
	uint16_t slot[VNIC_MAC_INDEX_SLOTS]; /**< entry index + 1; 0 = empty */
	uint16_t nb_entries;                 /**< non-empty entries */
	uint16_t nb_indexed;                 /**< entries in the index */
};

/** An immutable configuration snapshot used by the datapath. */
struct vnic_policy {
	struct vnic_vesw_info vesw;  /**< switch settings */
	struct vnic_port_info port;  /**< port settings and state */
	uint8_t flow_tbl[VNIC_FLOW_TBL_SIZE]; /**< default-port index per flow slot */
	struct vnic_mac_tbl mac;     /**< EM MAC table */
};

/** What a packet looks like, for the decisions (vnic_classify()). */
struct vnic_frame_class {
	uint8_t mcast;    /**< destination is multicast or broadcast */
	uint8_t vlan;     /**< 802.1Q/802.1ad tagged */
	uint8_t pcp;      /**< priority of the outer tag (0 if untagged) */
	uint8_t rc_shift; /**< enum vnic_rc_class */
};

/**
 * Classify an Ethernet frame: destination kind, outer VLAN tag and traffic
 * class. Reads at most the first 14 + 2 tags + 40 bytes, never past @p len.
 *
 * @param frame
 *   The frame, from the destination MAC.
 * @param len
 *   Its length (at least RTE_ETHER_HDR_LEN; shorter frames count as
 *   untagged unicast non-IP).
 * @param cls
 *   Filled.
 */
void vnic_classify(const void *frame, size_t len, struct vnic_frame_class *cls);

/**
 * A stable per-flow hash of a frame: MACs, EtherType and, for IPv4/IPv6,
 * addresses, protocol and TCP/UDP ports (never past @p len).
 *
 * @param frame
 *   The frame.
 * @param len
 *   Its length.
 * @return
 *   A 32-bit hash; the same for every packet of a flow.
 */
uint32_t vnic_flow_hash(const void *frame, size_t len);

/**
 * vnic_classify() and vnic_flow_hash() in one walk over the headers: the
 * same class and the same hash, for a transmit path that needs both.
 *
 * @param frame
 *   The frame.
 * @param len
 *   Its length.
 * @param cls
 *   Filled, as by vnic_classify().
 * @return
 *   The frame's vnic_flow_hash().
 */
uint32_t vnic_classify_hash(const void *frame, size_t len, struct vnic_frame_class *cls);

/**
 * The 16B entropy of a flow: its 32-bit hash folded to 8 significant bits
 * (XOR of the four bytes), the high byte 0.
 *
 * @param hash
 *   A flow hash (vnic_flow_hash() or a NIC's RSS hash).
 * @return
 *   The entropy, 0..255.
 */
static inline uint16_t
vnic_entropy(uint32_t hash)
{
	return (uint16_t)((hash ^ (hash >> 8) ^ (hash >> 16) ^ (hash >> 24)) & 0xFF);
}

/**
 * Look up a destination MAC in the MAC table.
 *
 * @param t
 *   The table.
 * @param mac
 *   The MAC.
 * @return
 *   The entry's DLID; 0 when absent, when only source-MAC entries match, or
 *   when the entry's DLID is 0 (all of which fall through to the other rules).
 */
uint32_t vnic_mac_tbl_lookup(const struct vnic_mac_tbl *t, const struct rte_ether_addr *mac);

/**
 * The DLID of a transmitted frame. Rules, in order: MAC table hit with a
 * non-zero DLID; multicast/broadcast -> u_mcast_dlid; locally administered
 * unicast -> the LMAC's LID; other unicast -> the default port chosen by
 * the entropy through the flow table.
 *
 * @param p
 *   The policy.
 * @param dst
 *   The destination MAC.
 * @param entropy
 *   The flow's entropy (vnic_entropy()).
 * @return
 *   The DLID; 0 means drop (count tx_dlid_zero).
 */
uint32_t vnic_tx_dlid(const struct vnic_policy *p, const struct rte_ether_addr *dst,
		      uint16_t entropy);

/**
 * The SC of a transmitted frame: the PCP tables for tagged frames, the
 * non-VLAN values otherwise, unicast or multicast by destination.
 *
 * @param p
 *   The policy.
 * @param cls
 *   The frame's class.
 * @return
 *   The SC.
 */
static inline uint8_t
vnic_tx_sc(const struct vnic_policy *p, const struct vnic_frame_class *cls)
{
	if (cls->vlan)
		return cls->mcast ? p->port.pcp_to_sc_mc[cls->pcp] : p->port.pcp_to_sc_uc[cls->pcp];
	return cls->mcast ? p->port.non_vlan_sc_mc : p->port.non_vlan_sc_uc;
}

/**
 * The VL of a transmitted frame, chosen from the same tag as its SC (so SC
 * and VL always come from one row of the EM's tables; Linux could mix them).
 *
 * @param p
 *   The policy.
 * @param cls
 *   The frame's class.
 * @return
 *   The VL.
 */
static inline uint8_t
vnic_tx_vl(const struct vnic_policy *p, const struct vnic_frame_class *cls)
{
	if (cls->vlan)
		return cls->mcast ? p->port.pcp_to_vl_mc[cls->pcp] : p->port.pcp_to_vl_uc[cls->pcp];
	return cls->mcast ? p->port.non_vlan_vl_mc : p->port.non_vlan_vl_uc;
}

/**
 * The RC of a transmitted frame: the 3-bit field of vesw.rc for its traffic
 * class.
 *
 * @param p
 *   The policy.
 * @param cls
 *   The frame's class.
 * @return
 *   The RC, 0..7.
 */
static inline uint8_t
vnic_tx_rc(const struct vnic_policy *p, const struct vnic_frame_class *cls)
{
	return (p->vesw.rc >> cls->rc_shift) & 0x7;
}

/**
 * Whether the vport forwards (oper_state FORWARDING). When it does not,
 * transmitted and received frames are dropped and counted as drop_state.
 *
 * @param p
 *   The policy.
 * @return
 *   true when forwarding.
 */
static inline bool
vnic_forwarding(const struct vnic_policy *p)
{
	return p->port.oper_state == VNIC_STATE_FORWARDING;
}

/**
 * Every 16B field of a transmitted frame, from one classification.
 *
 * @param p
 *   The policy.
 * @param frame
 *   The Ethernet frame.
 * @param len
 *   Its length.
 * @param hash
 *   The flow hash (vnic_flow_hash() or an RSS hash).
 * @param f
 *   Filled with SLID, DLID, PKEY, entropy, vesw, SC and RC.
 * @param vl
 *   Filled with the VL (may be NULL).
 * @return
 *   The DLID (0 means drop).
 */
uint32_t vnic_tx_fields(const struct vnic_policy *p, const void *frame, size_t len,
			uint32_t hash, struct opa16b_vnic_fields *f, uint8_t *vl);

/** Events a vport raises for the agent (traps). */
enum vnic_event {
	VNIC_EV_UCAST_MAC_CHANGE = 1u << 0, /**< unicast interface MACs changed */
	VNIC_EV_MCAST_MAC_CHANGE = 1u << 1, /**< multicast interface MACs changed */
	VNIC_EV_LINK_CHANGE = 1u << 2,      /**< eth_link_status changed */
	VNIC_EV_VESW_CHANGE = 1u << 3,      /**< vesw_id changed (host re-binds) */
	VNIC_EV_MAC_ADDR_CHANGE = 1u << 4,  /**< base MAC changed (host sets it) */
	VNIC_EV_MTU_CHANGE = 1u << 5,       /**< eth_mtu changed */
};

struct vnic_vport;

/** Frees or defers freeing of a snapshot no longer published. */
typedef void (*vnic_retire_t)(void *arg, struct vnic_policy *old);

/**
 * Create a vport in its power-on state.
 *
 * @param index
 *   Its vport index on the OPA port (attr_mod bits 7:0).
 * @param retire
 *   Called with each replaced snapshot (NULL: free at once).
 * @param retire_arg
 *   Its argument.
 * @return
 *   The vport, or NULL with errno set (ENOMEM).
 */
struct vnic_vport *vnic_vport_create(uint8_t index, vnic_retire_t retire, void *retire_arg);

/**
 * Free a vport and its current snapshot (retired snapshots are the retire
 * callback's business).
 *
 * @param vp
 *   The vport (NULL is a no-op).
 */
void vnic_vport_free(struct vnic_vport *vp);

/**
 * The current snapshot (acquire load), for the datapath.
 *
 * @param vp
 *   The vport.
 * @return
 *   The snapshot; valid until retired.
 */
const struct vnic_policy *vnic_vport_policy(const struct vnic_vport *vp);

/**
 * The vport's index.
 *
 * @param vp
 *   The vport.
 * @return
 *   Its index.
 */
uint8_t vnic_vport_index(const struct vnic_vport *vp);

/**
 * Fill a vesw_info and per_veswport_info with their power-on defaults.
 *
 * @param vesw
 *   Filled.
 * @param port
 *   Filled.
 */
void vnic_info_defaults(struct vnic_vesw_info *vesw, struct vnic_port_info *port);

/**
 * Check an EM configuration without applying it.
 *
 * @param vesw
 *   Proposed vesw_info.
 * @param port
 *   Proposed per_veswport_info (read-only fields ignored).
 * @return
 *   0, or -EINVAL naming nothing (see vnic_info_check_reason()).
 */
int vnic_info_check(const struct vnic_vesw_info *vesw, const struct vnic_port_info *port);

/**
 * Why vnic_info_check() refuses a configuration.
 *
 * @param vesw
 *   Proposed vesw_info.
 * @param port
 *   Proposed per_veswport_info.
 * @return
 *   NULL if valid, else a constant string naming the field and the rule.
 */
const char *vnic_info_check_reason(const struct vnic_vesw_info *vesw,
				   const struct vnic_port_info *port);

/**
 * Apply an EM configuration (SET VESWPORT_INFO). Read-only fields of @p port
 * are ignored; everything is validated first, and on error nothing changes.
 *
 * @param vp
 *   The vport.
 * @param vesw
 *   New vesw_info.
 * @param port
 *   New per_veswport_info.
 * @return
 *   0, -EINVAL (invalid value) or -ENOMEM.
 */
int vnic_vport_configure(struct vnic_vport *vp, const struct vnic_vesw_info *vesw,
			 const struct vnic_port_info *port);

/**
 * Replace MAC table entries [offset, offset + n) (SET VESWPORT_MAC_ENTRIES).
 * An entry with an all-zero MAC empties its slot. The digest is stored.
 *
 * @param vp
 *   The vport.
 * @param offset
 *   First index.
 * @param n
 *   Number of entries.
 * @param ent
 *   The entries.
 * @param digest
 *   The EM's opaque mac_tbl_digest.
 * @return
 *   0, -EINVAL if the range leaves the table (nothing changes), or -ENOMEM.
 */
int vnic_vport_set_mac_entries(struct vnic_vport *vp, uint16_t offset, uint16_t n,
			       const struct vnic_mac_entry *ent, uint32_t digest);

/**
 * Reset the vport to its power-on state and clear its MAC table (DELETE_VESW).
 *
 * @param vp
 *   The vport.
 * @return
 *   0 or -ENOMEM.
 */
int vnic_vport_reset(struct vnic_vport *vp);

/**
 * Tell the vport whether its interface can carry traffic (started and the
 * fabric port active). oper_state and eth_link_status follow.
 *
 * @param vp
 *   The vport.
 * @param up
 *   Carrier state.
 * @return
 *   0 or -ENOMEM.
 */
int vnic_vport_set_carrier(struct vnic_vport *vp, bool up);

/** Which interface MAC list. */
enum vnic_mac_list {
	VNIC_LIST_UCAST = 0, /**< unicast (the agent leaves out the EM's base MAC) */
	VNIC_LIST_MCAST = 1, /**< multicast */
};

/**
 * Set an interface MAC list (the host's secondary unicast MACs, or its
 * multicast list). When the contents change, the generation count steps
 * and a MAC-change event is raised.
 *
 * @param vp
 *   The vport.
 * @param which
 *   The list.
 * @param macs
 *   The MACs.
 * @param n
 *   How many (at most VNIC_IFACE_MACS_MAX).
 * @return
 *   1 if the list changed, 0 if not, -EINVAL if too long, -ENOMEM.
 */
int vnic_vport_set_iface_macs(struct vnic_vport *vp, enum vnic_mac_list which,
			      const struct rte_ether_addr *macs, uint16_t n);

/**
 * Read an interface MAC list.
 *
 * @param vp
 *   The vport.
 * @param which
 *   The list.
 * @param n
 *   Filled with its length.
 * @return
 *   The MACs (valid until the list is next set).
 */
const struct rte_ether_addr *vnic_vport_iface_macs(const struct vnic_vport *vp,
						   enum vnic_mac_list which, uint16_t *n);

struct vnic_txq_stats;
struct vnic_rxq_stats;
struct vnic_counters;

/**
 * Attach the host's per-queue counters, read by vnic_vport_counters().
 *
 * @param vp
 *   The vport.
 * @param txq
 *   Transmit queue counters (owned by the host; NULL with 0).
 * @param nb_txq
 *   How many.
 * @param rxq
 *   Receive queue counters.
 * @param nb_rxq
 *   How many.
 */
void vnic_vport_attach_stats(struct vnic_vport *vp, const struct vnic_txq_stats *txq,
			     unsigned int nb_txq, const struct vnic_rxq_stats *rxq,
			     unsigned int nb_rxq);

/**
 * The vport's summary and error counters, summed over its queues.
 *
 * @param vp
 *   The vport.
 * @param out
 *   Filled (all zero when no counters are attached).
 */
void vnic_vport_counters(const struct vnic_vport *vp, struct vnic_counters *out);

/**
 * Take and clear the vport's pending events.
 *
 * @param vp
 *   The vport.
 * @return
 *   A mask of enum vnic_event.
 */
uint32_t vnic_vport_take_events(struct vnic_vport *vp);

#ifdef __cplusplus
}
#endif

#endif /* _VNIC_H_ */
