/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _VEMA_AGENT_H_
#define _VEMA_AGENT_H_

/**
 * @file
 * The VEMA agent: the VNIC side of Ethernet Manager management, for one
 * OPA port. A library object with no I/O of its own: the host feeds it the
 * 16B FM packets (L4 0x08) addressed to QP 1 and sends the packets it
 * returns. It owns the vports the EM configures (lib/vnic), creating one on
 * the first SET VESWPORT_INFO for its index, and turns their events into
 * rate-limited traps.
 *
 * Not thread-safe: one control thread calls it. Datapath threads read the
 * vports' snapshots (vnic_vport_policy()), which the agent publishes.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opa16b_fm.h"
#include "vema_mad.h"
#include "vnic.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Vport indexes per OPA port (attr_mod bits 7:0). */
#define VEMA_VPORTS_MAX 256
/** Traps allowed per window. */
#define VEMA_TRAP_BURST 4
/** The trap window: 4.096 us x 2^18, about 1.07 s, in ns. */
#define VEMA_TRAP_WINDOW_NS (4096ull * (1ull << 18))
/** Largest packet the agent returns (an FM packet with a 2048-byte MAD). */
#define VEMA_PKT_MAX (VEMA_MAD_SIZE + OPA16B_FM_OVERHEAD)

/** Why the agent dropped a packet without replying. */
enum vema_drop {
	VEMA_DROP_NOT_FM = 0,     /**< not a valid 16B FM packet */
	VEMA_DROP_WRONG_DEST,     /**< not for this port's LID or for QP 1 */
	VEMA_DROP_SHORT,          /**< MAD shorter than its header */
	VEMA_DROP_BASE_VERSION,   /**< base version not 0x80 */
	VEMA_DROP_RESPONSE,       /**< a response or trap repress (nothing to answer) */
	VEMA_DROP_METHOD,         /**< a non-Get/Set method of another class */
	VEMA_DROP_RMPP,           /**< RMPP active: segmented MADs not supported */
	VEMA_DROP_NO_ROOM,        /**< the reply buffer is too small */
	VEMA_DROP_MAX             /**< number of reasons (not a reason) */
};

/** Agent counters. */
struct vema_agent_stats {
	uint64_t rx;                   /**< packets fed */
	uint64_t replies;              /**< replies returned */
	uint64_t replies_error;        /**< replies with a non-zero status */
	uint64_t drops[VEMA_DROP_MAX]; /**< drops by reason */
	uint64_t traps;                /**< traps returned */
	uint64_t traps_no_lid;         /**< events not trapped: no trap LID set */
	uint64_t traps_deferred;       /**< polls that held pending traps back (rate limit) */
};

struct vema_agent;

/** Called when the agent creates a vport (the host may bind it). */
typedef void (*vema_vport_new_t)(void *arg, struct vnic_vport *vp);
/** Called with a vport's events before they become traps. */
typedef void (*vema_vport_event_t)(void *arg, struct vnic_vport *vp, uint32_t events);

/** Agent configuration. */
struct vema_agent_conf {
	uint32_t lid;          /**< this port's LID: SLID of replies and traps; requests must be
	                            addressed to it (0: any DLID, for a host that filters) */
	uint8_t port_num;      /**< OPA port number (reported in traps) */
	uint16_t mgmt_pkey;    /**< P_Key of traps (0 means 0xFFFF) */
	vnic_retire_t retire;  /**< snapshot retire callback for vports (NULL: free) */
	void *retire_arg;      /**< its argument */
	vema_vport_new_t on_new;    /**< optional */
	vema_vport_event_t on_event; /**< optional */
	void *cb_arg;          /**< argument of on_new and on_event */
};

/**
 * Create an agent.
 * @param conf
 *   Configuration (copied).
 * @return
 *   The agent, or NULL (ENOMEM).
 */
struct vema_agent *vema_agent_create(const struct vema_agent_conf *conf);

/**
 * Free an agent and its vports.
 * @param a
 *   The agent (NULL is a no-op).
 */
void vema_agent_free(struct vema_agent *a);

/**
 * A vport by index.
 * @param a
 *   The agent.
 * @param index
 *   Vport index.
 * @return
 *   The vport, or NULL if the EM has not created it.
 */
struct vnic_vport *vema_agent_vport(const struct vema_agent *a, uint8_t index);

/**
 * Create a vport before the EM does (e.g. a host port that exists at start).
 * @param a
 *   The agent.
 * @param index
 *   Vport index.
 * @return
 *   The vport (existing or new), or NULL (ENOMEM).
 */
struct vnic_vport *vema_agent_add_vport(struct vema_agent *a, uint8_t index);

/**
 * Number of vports.
 * @param a
 *   The agent.
 * @return
 *   How many exist.
 */
unsigned int vema_agent_nb_vports(const struct vema_agent *a);

/**
 * Process one received packet.
 *
 * @param a
 *   The agent.
 * @param pkt
 *   A 16B packet (only FM packets to this LID and QP 1 are processed).
 * @param len
 *   Its length.
 * @param reply
 *   Where the reply packet is written.
 * @param cap
 *   Its size (VEMA_PKT_MAX is always enough).
 * @return
 *   The reply length, or 0 when the packet is dropped (counted).
 */
size_t vema_agent_rx(struct vema_agent *a, const void *pkt, size_t len, void *reply, size_t cap);

/**
 * Collect vport events and return the next trap to send, if the rate limit
 * allows. Call periodically and after vport changes; call again while it
 * returns a packet.
 *
 * @param a
 *   The agent.
 * @param now_ns
 *   A monotonic time in ns.
 * @param pkt
 *   Where the trap packet is written.
 * @param cap
 *   Its size (VEMA_PKT_MAX is always enough).
 * @return
 *   The packet length, or 0 when nothing is to be sent now.
 */
size_t vema_agent_poll(struct vema_agent *a, uint64_t now_ns, void *pkt, size_t cap);

/**
 * The stored ClassPortInfo (as a GET would return it).
 * @param a
 *   The agent.
 * @param cpi
 *   Filled.
 */
void vema_agent_cpi(const struct vema_agent *a, struct vema_class_port_info *cpi);

/**
 * The agent's counters.
 * @param a
 *   The agent.
 * @return
 *   Its counters.
 */
const struct vema_agent_stats *vema_agent_stats(const struct vema_agent *a);

/**
 * Name of a drop reason.
 * @param d
 *   A reason.
 * @return
 *   A constant string.
 */
const char *vema_drop_name(enum vema_drop d);

#ifdef __cplusplus
}
#endif

#endif /* _VEMA_AGENT_H_ */
