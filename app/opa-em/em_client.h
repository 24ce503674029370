/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _EM_CLIENT_H_
#define _EM_CLIENT_H_

/**
 * @file
 * The EM's MAD transport: VEMA MADs in 16B FM packets over one DPDK port
 * (any port carrying 16B packets), requests matched to replies by TID,
 * with a timeout and retries. Traps that arrive meanwhile go to a callback.
 */

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_mempool.h>

#include "vema_mad.h"

/** A trap as received. */
struct em_trap {
	uint32_t slid;       /**< sender's LID */
	uint64_t tid;        /**< its TID */
	struct vema_trap t;  /**< its Notice */
};

/** Called for each trap received. */
typedef void (*em_trap_cb_t)(void *arg, const struct em_trap *trap);

/** Transport counters. */
struct em_client_stats {
	uint64_t requests;   /**< requests sent (first tries) */
	uint64_t retries;    /**< resends after a timeout */
	uint64_t timeouts;   /**< requests given up */
	uint64_t replies;    /**< matched replies */
	uint64_t traps;      /**< traps received */
	uint64_t ignored;    /**< packets that were neither (stray, late, not FM) */
};

/** The transport. */
struct em_client {
	uint16_t port_id;        /**< fabric port */
	struct rte_mempool *pool; /**< mbufs for sending */
	uint32_t lid;            /**< our LID */
	uint16_t pkey;           /**< P_Key of our MADs */
	uint8_t sl;              /**< SC of our MADs */
	unsigned int timeout_ms; /**< per try */
	unsigned int retries;    /**< resends after the first try */
	uint64_t next_tid;       /**< next TID */
	em_trap_cb_t on_trap;    /**< trap callback (NULL: counted only) */
	void *trap_arg;          /**< its argument */
	bool repress;            /**< answer traps with TrapRepress */
	volatile sig_atomic_t *stop; /**< when it turns true, calls give up (-EINTR) */
	struct em_client_stats stats; /**< counters */
};

/**
 * Start the fabric port: one RX and one TX queue, started, link awaited.
 *
 * @param c
 *   The client (port_id and pool set).
 * @param link_wait_ms
 *   How long to wait for the link.
 * @return
 *   0, or a negative errno (message printed).
 */
int em_client_start(struct em_client *c, unsigned int link_wait_ms);

/**
 * Stop and close the fabric port (also after a failed em_client_start()).
 *
 * @param c
 *   The client.
 */
void em_client_stop(struct em_client *c);

/**
 * Send a request and wait for its reply.
 *
 * @param c
 *   The client.
 * @param dlid
 *   The node's LID.
 * @param method
 *   VEMA_METHOD_GET or VEMA_METHOD_SET.
 * @param attr_id
 *   Attribute.
 * @param attr_mod
 *   Modifier (vport index).
 * @param data
 *   Request data (may be NULL with @p dlen 0).
 * @param dlen
 *   Its length (at most VEMA_DATA_LEN).
 * @param reply
 *   Filled with the reply's VEMA_DATA_LEN data bytes.
 * @param status
 *   Filled with the reply's status.
 * @return
 *   0 (a reply arrived; check @p status), -ETIMEDOUT after every retry,
 *   -EINTR when *stop turned true, or another negative errno.
 */
int em_call(struct em_client *c, uint32_t dlid, uint8_t method, uint16_t attr_id,
	    uint32_t attr_mod, const void *data, size_t dlen, uint8_t *reply, uint16_t *status);

/**
 * Receive for a while, handing traps to the callback.
 *
 * @param c
 *   The client.
 * @param ms
 *   How long.
 * @param stop
 *   Returns early when *stop becomes true (may be NULL).
 */
void em_listen(struct em_client *c, unsigned int ms, volatile sig_atomic_t *stop);

#endif /* _EM_CLIENT_H_ */
