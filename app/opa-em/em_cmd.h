/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _EM_CMD_H_
#define _EM_CMD_H_

/* The opa-em commands. Each returns the process exit code. */

#include "em_client.h"
#include "em_config.h"

/** Exit codes. */
enum em_exit {
	EM_EXIT_OK = 0,          /**< everything as asked */
	EM_EXIT_USAGE = 1,       /**< bad command line or configuration: nothing sent */
	EM_EXIT_FAILED = 2,      /**< an error status or a read-back mismatch */
	EM_EXIT_UNREACHABLE = 3, /**< a node did not answer (or watch saw too few traps) */
};

/** Options of watch. */
struct em_watch_opts {
	unsigned int count;   /**< stop after this many traps (0: never) */
	unsigned int seconds; /**< stop after this long (0: never) */
};

/** Options of serve. */
struct em_serve_opts {
	unsigned int seconds; /**< stop after this long (0: never) */
	unsigned int poll_ms; /**< read every interface list this often */
	const char *path;     /**< the configuration file, loaded again on a reload */
	volatile sig_atomic_t *reload; /**< set (SIGHUP): load @p path again */
};

/**
 * opa-em apply: configure every vport of @p cfg, then verify by reading back.
 */
int em_cmd_apply(struct em_client *c, const struct em_config *cfg);

/**
 * What em_cmd_apply() does, with each vport's outcome.
 *
 * @param c
 *   The client.
 * @param cfg
 *   The configuration.
 * @param vport_rc
 *   NULL, or per vport of @p cfg: its exit code (EM_EXIT_OK: applied).
 * @return
 *   The worst exit code.
 */
int em_apply(struct em_client *c, const struct em_config *cfg, int *vport_rc);

/**
 * opa-em table: every vport's MAC table, read with GETs.
 */
int em_cmd_table(struct em_client *c, const struct em_config *cfg);

/**
 * opa-em serve: apply, then keep the MAC tables in step with the stations
 * the vports report (em_learn.h has the rules), apply again a node that
 * lost its configuration or answers late, and reload @p o->path when
 * *o->reload turns true, until *c->stop or @p o->seconds. A reload replaces
 * *cfg (the caller frees what it holds at the end).
 */
int em_cmd_serve(struct em_client *c, struct em_config *cfg, const struct em_serve_opts *o);

/* --- shared by the commands --- */

/**
 * Point a node's traps at the EM: GET ClassPortInfo, SET it with the EM's
 * LID, SL and P_Key, check the reply.
 *
 * @param c
 *   The client.
 * @param cfg
 *   The configuration (its SL and P_Key).
 * @param lid
 *   The node.
 * @return
 *   An exit code.
 */
int em_setup_node(struct em_client *c, const struct em_config *cfg, uint32_t lid);

/**
 * SET a vport's VESWPORT_INFO as @p cfg says and check the reply on every
 * EM-written field but the digest (each difference printed).
 *
 * @param c
 *   The client.
 * @param cfg
 *   The configuration.
 * @param vp
 *   The vport.
 * @return
 *   An exit code.
 */
int em_set_vport_info(struct em_client *c, const struct em_config *cfg,
		      const struct em_vport *vp);

/**
 * A request's outcome as an exit code, printing what went wrong.
 *
 * @param vp
 *   The vport asked about, or NULL (a node-wide request).
 * @param lid
 *   The node.
 * @param what
 *   The request, as printed ("GET VESWPORT_INFO").
 * @param ret
 *   em_call()'s return.
 * @param status
 *   The reply's status.
 * @param tries
 *   Tries made, as printed after a timeout.
 * @return
 *   EM_EXIT_OK, EM_EXIT_FAILED or EM_EXIT_UNREACHABLE.
 */
int em_outcome(const struct em_vport *vp, uint32_t lid, const char *what, int ret,
	       uint16_t status, unsigned int tries);

/**
 * Read a vport's whole MAC table (each reply must cover the range asked).
 *
 * @param c
 *   The client.
 * @param vp
 *   The vport.
 * @param tbl
 *   Filled: VNIC_MAC_TBL_MAX encoded entries.
 * @param digest
 *   Filled: the table's digest.
 * @return
 *   An exit code.
 */
int em_mac_table_read(struct em_client *c, const struct em_vport *vp, uint8_t *tbl,
		      uint32_t *digest);

/**
 * Write the chunks of @p want that differ from @p cur (the first chunk also
 * when only the digest differs); each SET's reply must hold what was written.
 *
 * @param c
 *   The client.
 * @param vp
 *   The vport.
 * @param cur
 *   The table on the node (VNIC_MAC_TBL_MAX encoded entries).
 * @param cur_digest
 *   Its digest.
 * @param want
 *   The table wanted.
 * @param digest
 *   Its digest.
 * @param writes
 *   Incremented per SET sent.
 * @return
 *   An exit code.
 */
int em_mac_table_write(struct em_client *c, const struct em_vport *vp, const uint8_t *cur,
		       uint32_t cur_digest, const uint8_t *want, uint32_t digest,
		       unsigned int *writes);

/**
 * opa-em status: state and counters of every vport of @p cfg.
 */
int em_cmd_status(struct em_client *c, const struct em_config *cfg);

/**
 * opa-em watch: print traps, re-reading interface MAC lists and link state.
 */
int em_cmd_watch(struct em_client *c, const struct em_config *cfg,
		 const struct em_watch_opts *o, volatile sig_atomic_t *stop);

#endif /* _EM_CMD_H_ */
