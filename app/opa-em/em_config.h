/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _EM_CONFIG_H_
#define _EM_CONFIG_H_

/**
 * @file
 * The Ethernet Manager's configuration file (YAML, see doc/opa-em.md):
 * the EM's own address, the virtual Ethernet switches and the vports.
 * Loading checks every value, every cross reference and the VNIC rules of
 * lib/vnic, and reports the first problem as "FILE:LINE: key: reason".
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ether.h>

#include "vnic.h"

/** Vports a configuration may hold: 256 on each of 16 nodes, far beyond a
 * real fabric's VNIC count, and a bound on what a file of YAML aliases can
 * make the parser allocate.
 */
#define EM_CONFIG_MAX_VPORTS 4096

/** A virtual Ethernet switch. */
struct em_vesw {
	uint16_t id;                  /**< vesw id, 1..4095 */
	uint16_t fabric_id;           /**< 10 bits */
	uint16_t pkey;                /**< P_Key of its traffic */
	uint16_t mtu;                 /**< Ethernet MTU */
	uint32_t mcast_dlid;          /**< multicast/broadcast DLID */
	uint32_t ucast_dlid[VNIC_UCAST_DLID_MAX]; /**< default-port DLIDs */
	uint16_t def_port_mask;       /**< default ports for unknown unicast */
	uint32_t rc;                  /**< RC word (3 bits per traffic class) */
	unsigned int line;            /**< where it is defined (1-based) */
};

/** A vport: one VNIC port on one node. */
struct em_vport {
	uint32_t node_lid;            /**< LID of the node's HFI port (where VEMA listens) */
	uint8_t index;                /**< vport index on that port */
	uint16_t vesw_id;             /**< its vesw */
	uint32_t port_num;            /**< the EM's port number for it */
	uint32_t encap_slid;          /**< SLID of its packets */
	struct rte_ether_addr mac;    /**< base MAC (given, or the generated LMAC) */
	uint8_t config_state;         /**< enum vnic_state */
	uint8_t pcp_to_sc_uc[8];      /**< PCP -> SC, unicast */
	uint8_t pcp_to_vl_uc[8];      /**< PCP -> VL, unicast */
	uint8_t pcp_to_sc_mc[8];      /**< PCP -> SC, multicast */
	uint8_t pcp_to_vl_mc[8];      /**< PCP -> VL, multicast */
	uint8_t non_vlan_sc_uc;       /**< untagged unicast SC */
	uint8_t non_vlan_vl_uc;       /**< untagged unicast VL */
	uint8_t non_vlan_sc_mc;       /**< untagged multicast SC */
	uint8_t non_vlan_vl_mc;       /**< untagged multicast VL */
	struct vnic_mac_entry *macs;  /**< MAC table, by index */
	uint16_t nb_macs;             /**< its length */
	uint32_t digest;              /**< mac_tbl_digest sent with it */
	unsigned int line;            /**< where it is defined (1-based) */
};

/** A whole configuration. */
struct em_config {
	uint32_t em_lid;              /**< the EM's LID (SLID of MADs, trap LID) */
	uint16_t pkey;                /**< P_Key of management packets */
	uint8_t sl;                   /**< SL/SC of management packets and traps */
	struct em_vesw *vesws;        /**< switches */
	unsigned int nb_vesws;        /**< how many */
	struct em_vport *vports;      /**< vports */
	unsigned int nb_vports;       /**< how many */
};

/**
 * Load and check a configuration file.
 *
 * @param path
 *   The file.
 * @param cfg
 *   Filled on success (free with em_config_free()).
 * @param err
 *   On failure, "FILE:LINE: key: reason".
 * @param errlen
 *   Its size.
 * @return
 *   0, or -1 with @p err set (nothing allocated).
 */
int em_config_load(const char *path, struct em_config *cfg, char *err, size_t errlen);

/**
 * Parse and check a configuration held in memory (what em_config_load()
 * does after reading the file).
 *
 * @param text
 *   The YAML text (need not be NUL-terminated).
 * @param len
 *   Its length.
 * @param name
 *   Name used in messages.
 * @param cfg
 *   Filled on success (free with em_config_free()).
 * @param err
 *   On failure, "NAME:LINE: key: reason".
 * @param errlen
 *   Its size.
 * @return
 *   0, or -1 with @p err set (nothing allocated).
 */
int em_config_parse(const void *text, size_t len, const char *name, struct em_config *cfg,
		    char *err, size_t errlen);

/**
 * Free a loaded configuration.
 *
 * @param cfg
 *   The configuration.
 */
void em_config_free(struct em_config *cfg);

/**
 * The vesw of a vport.
 *
 * @param cfg
 *   The configuration.
 * @param vp
 *   A vport of it.
 * @return
 *   Its vesw (loading guarantees it exists).
 */
const struct em_vesw *em_config_vesw(const struct em_config *cfg, const struct em_vport *vp);

/**
 * The VESWPORT_INFO the EM sets for a vport.
 *
 * @param cfg
 *   The configuration.
 * @param vp
 *   The vport.
 * @param vesw
 *   Filled.
 * @param port
 *   Filled (read-only fields at their power-on values).
 */
void em_vport_info(const struct em_config *cfg, const struct em_vport *vp,
		   struct vnic_vesw_info *vesw, struct vnic_port_info *port);

/**
 * The VESWPORT_INFO the EM sets for a vport, encoded as on the wire.
 *
 * @param cfg
 *   The configuration.
 * @param vp
 *   The vport.
 * @param out
 *   Filled: VEMA_VESWPORT_INFO_LEN bytes.
 */
void em_vport_info_encode(const struct em_config *cfg, const struct em_vport *vp,
			  uint8_t *out);

/** One VESWPORT_INFO field that differs (em_vport_info_diff()). */
struct em_info_diff {
	const char *name;  /**< as "vesw.vesw_id", "port.config_state" */
	char want[32];     /**< the value wanted, printed (0x.. or a MAC or a list) */
	char got[32];      /**< the value found */
};

/**
 * Compare two encoded VESWPORT_INFOs on the fields the EM writes.
 *
 * @param want
 *   What the EM sets (em_vport_info_encode()).
 * @param got
 *   What a node holds (a GET, or a SET's reply).
 * @param digest
 *   Compare port.mac_tbl_digest too (it goes with the MAC table).
 * @param out
 *   NULL, or filled with the first @p max differences.
 * @param max
 *   Room in @p out.
 * @return
 *   How many fields differ.
 */
unsigned int em_vport_info_diff(const uint8_t *want, const uint8_t *got, bool digest,
				struct em_info_diff *out, unsigned int max);

/** What changed for a vport between two configurations (em_config_diff()). */
enum em_vport_change {
	EM_VPORT_ADDED = 1, /**< not in the old configuration */
	EM_VPORT_INFO = 2,  /**< its VESWPORT_INFO differs (digest aside) */
	EM_VPORT_TABLE = 4, /**< its static MAC entries or their digest differ */
};

/** em_config_diff(): an old vport no longer in the new configuration. */
#define EM_VPORT_GONE UINT32_MAX

/**
 * Match the vports of two configurations by (node_lid, index) and say
 * what changed for each.
 *
 * @param from
 *   The configuration being served.
 * @param to
 *   The one loaded instead.
 * @param old_of
 *   Per vport of @p to: its index in @p from, or EM_VPORT_GONE (added).
 * @param change
 *   Per vport of @p to: enum em_vport_change flags (0: the same).
 * @param new_of
 *   Per vport of @p from: its index in @p to, or EM_VPORT_GONE (removed).
 */
void em_config_diff(const struct em_config *from, const struct em_config *to,
		    uint32_t *old_of, uint8_t *change, uint32_t *new_of);

#endif /* _EM_CONFIG_H_ */
