/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef OMNI_PORT_H
#define OMNI_PORT_H

/**
 * @file
 * The end of a program's one exit path: its ports stopped and closed, then
 * its mbuf pool checked and freed. Every app and example tears down this way,
 * so the order (ports before the pool, every port before EAL cleanup) is
 * written once.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mempool.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Stop @p port_id when @p started, then close it. Errors are not reported:
 * the program is leaving (ethdev logs them).
 *
 * @param port_id
 *   The port (an id that is no longer valid does nothing).
 * @param started
 *   Whether the program started it (ethdev refuses to close a started port,
 *   and logs a stop of a stopped one).
 */
void omni_port_close(uint16_t port_id, bool started);

/**
 * Close every port still present, as testpmd does at exit: a port stacked on
 * another (net_opa_vnic on a fabric port) is closed before EAL cleanup
 * removes the vdevs under it. Each is stopped, then closed (a port not
 * started logs ethdev's INFO "already stopped"). Call it after closing the
 * program's own ports.
 */
void omni_ports_close_all(void);

/**
 * Print @p port_id's non-zero extended statistics on stdout, one per line
 * ("  name: value") after a heading "xstats port N (NAME):". Ports another
 * port owns (a fabric port under net_opa_vnic) are valid ids too: a program
 * may print them to show the layers under its own ports.
 * @param port_id
 *   The port (an invalid id, or one without xstats, prints nothing).
 */
void omni_port_xstats_print(uint16_t port_id);

/**
 * Free @p pool once the ports are closed and every queue drained, checking
 * that every mbuf came back. When @p report, one line on stdout:
 * "mbufs: N of M in the pool", with " (LEAK)" when some are missing.
 *
 * @param pool
 *   The pool (NULL: nothing to do, true).
 * @param nb_mbufs
 *   How many mbufs it was created with.
 * @param report
 *   Print the line and check (false on an exit path that already failed).
 * @return
 *   false only when @p report and mbufs are missing.
 */
bool omni_pool_release(struct rte_mempool *pool, unsigned int nb_mbufs, bool report);

#ifdef __cplusplus
}
#endif

#endif /* OMNI_PORT_H */
