/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _SW_FWD_H_
#define _SW_FWD_H_

/**
 * @file
 * The forwarding decision of the opa-switch model, pure C over header bytes
 * (no EAL, no mbufs): which ports a 16B packet leaves by, or why it is
 * dropped. The linear forwarding table (LFT) maps every unicast LID to a
 * port, as the SM would program it; with learning on, SLIDs of packets seen
 * fill the entries the SM left empty, and unknown unicast DLIDs are flooded.
 */

#include <stdbool.h>
#include <stdint.h>

#include "opa16b.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most switch ports (egress sets are 64-bit masks). */
#define SW_PORTS_MAX 64
/** LFT entries: every unicast LID (multicast starts at 0xF00000). */
#define SW_LFT_SIZE OPA16B_MCAST_DLID_BASE
/** Most LIDs learned at once; further SLIDs are not learned (counted). */
#define SW_LEARN_MAX 4096

/** What happens to one packet. Forwarding kinds first, then drop reasons. */
enum sw_verdict {
	SW_UCAST = 0,		/**< unicast DLID: to its LFT port */
	SW_MCAST,		/**< multicast DLID: to every other port whose link is up */
	SW_FLOOD,		/**< unknown unicast DLID, learning on: as multicast */
	SW_DROP_SHORT,		/**< shorter than the 16-byte LRH */
	SW_DROP_NOT_16B,	/**< L2 type is not 2 (16B) */
	SW_DROP_BAD_LENGTH,	/**< LRH Length x 8 differs from the packet's bytes */
	SW_DROP_NO_ROUTE,	/**< unicast DLID without an LFT entry (or permissive) */
	SW_DROP_TO_INGRESS,	/**< the LFT port is the one it came in by */
	SW_DROP_LINK_DOWN,	/**< the egress port (every other port) is down */
	SW_DROP_TX_FULL,	/**< egress queue full (the adapter's; never decided here) */
	SW_VERDICT_MAX,
};

/** First drop reason. */
#define SW_DROP_FIRST SW_DROP_SHORT

/** @return true if @p v is a drop reason. */
static inline bool
sw_verdict_is_drop(enum sw_verdict v)
{
	return v >= SW_DROP_FIRST;
}

/** @return the counter name of @p v ("ucast", "no_route", ...), or "?". */
const char *sw_verdict_name(unsigned int v);

/** LFT entry: 0 = no route; else port + 1, with this bit when learned. */
#define SW_LFT_LEARNED 0x80u
#define SW_LFT_PORT_MASK 0x7Fu

/** Forwarding state of one switch. */
struct sw_fwd_table {
	uint8_t *lft;		/**< SW_LFT_SIZE entries */
	uint16_t nb_ports;	/**< ports 0 .. nb_ports - 1 */
	bool learn;		/**< learn SLIDs, flood unknown unicast */
	uint32_t nb_learned;	/**< entries of learned[] in use */
	uint64_t learn_full;	/**< SLIDs not learned: learned[] full */
	uint32_t learned[SW_LEARN_MAX];	/**< LIDs whose entry was learned */
};

/**
 * Set up an empty table (no routes) for @p nb_ports ports.
 *
 * @return 0, -EINVAL (nb_ports 0 or above SW_PORTS_MAX) or -ENOMEM.
 */
int sw_fwd_table_init(struct sw_fwd_table *t, uint16_t nb_ports, bool learn);

/** Release the table's memory. */
void sw_fwd_table_free(struct sw_fwd_table *t);

/**
 * Program a static LFT entry, as the SM would: @p lid leaves by @p port.
 *
 * @return 0, or -EINVAL for LID 0, a multicast or permissive LID, or a port
 *   beyond the table's.
 */
int sw_fwd_route_set(struct sw_fwd_table *t, uint32_t lid, uint16_t port);

/**
 * Look up a unicast LID.
 *
 * @param learned
 *   Set to whether the entry was learned (may be NULL).
 * @return the port, or -1 when @p lid has no entry.
 */
int sw_fwd_lookup(const struct sw_fwd_table *t, uint32_t lid, bool *learned);

/**
 * Decide the fate of one packet. Changes nothing.
 *
 * @param t
 *   The table.
 * @param hdr
 *   The packet's first min(@p len, OPA16B_LRH_LEN) bytes; nothing beyond
 *   them is read.
 * @param len
 *   The whole packet's length in bytes.
 * @param in_port
 *   The port it came in by.
 * @param up
 *   Ports whose link is up (bit n = port n).
 * @param egress
 *   Set to the ports it leaves by: one for SW_UCAST, one or more for
 *   SW_MCAST and SW_FLOOD, none for a drop.
 * @return the verdict (never SW_DROP_TX_FULL).
 */
enum sw_verdict sw_fwd_decide(const struct sw_fwd_table *t, const void *hdr, uint32_t len,
			      uint16_t in_port, uint64_t up, uint64_t *egress);

/**
 * With learning on, note that the packet's SLID is reached by @p in_port:
 * only for a packet that passes the header checks, a unicast SLID (not 0),
 * and a LID without a static entry. A learned entry follows its LID to
 * another port.
 *
 * @param hdr, len
 *   As for sw_fwd_decide().
 * @return true if the table changed.
 */
bool sw_fwd_learn(struct sw_fwd_table *t, const void *hdr, uint32_t len, uint16_t in_port);

/**
 * Forget the learned entries that point at @p port (its link went down:
 * whatever was behind it may come back elsewhere).
 *
 * @return the number of entries forgotten.
 */
unsigned int sw_fwd_forget_port(struct sw_fwd_table *t, uint16_t port);

#ifdef __cplusplus
}
#endif

#endif /* _SW_FWD_H_ */
