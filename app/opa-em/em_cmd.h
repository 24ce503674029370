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

/**
 * opa-em apply: configure every vport of @p cfg, then verify by reading back.
 */
int em_cmd_apply(struct em_client *c, const struct em_config *cfg);

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
