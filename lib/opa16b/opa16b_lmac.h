/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _OPA16B_LMAC_H_
#define _OPA16B_LMAC_H_

/**
 * @file
 * Locally administered MACs (LMACs) that carry a fabric address.
 *
 * The Ethernet Manager gives VNIC ports MACs of this form, and VNIC transmit
 * derives the DLID of any locally administered unicast destination from it:
 *
 *   bytes 0-2: 24-bit little-endian value v, with
 *              v bit 0 = I/G (multicast), v bit 1 = U/L (1),
 *              v bits 2-11 = fabric id, v bits 12-23 = vesw id;
 *   bytes 3-5: the 24-bit LID, little-endian.
 *
 * Example: fabric 0x301, vesw 2, LID 5 is 06:2c:00:05:00:00.
 */

#include <errno.h>
#include <stdint.h>

#include <rte_ether.h>

#include <omni_bytes.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Largest fabric id (10 bits). */
#define OPA16B_LMAC_FABRIC_MAX 0x3FFu
/** Largest vesw id (12 bits). */
#define OPA16B_LMAC_VESW_MAX 0xFFFu

/** The fabric address an LMAC carries. */
struct opa16b_lmac {
	uint16_t fabric_id; /**< 10 bits */
	uint16_t vesw_id;   /**< 12 bits */
	uint32_t lid;       /**< 24 bits */
};

/**
 * Build the unicast LMAC of a fabric address (each field masked to its width).
 *
 * @param a
 *   The address.
 * @param mac
 *   Filled with the MAC.
 */
static inline void
opa16b_lmac_build(const struct opa16b_lmac *a, struct rte_ether_addr *mac)
{
	uint32_t v = 0x2u | ((uint32_t)(a->fabric_id & OPA16B_LMAC_FABRIC_MAX) << 2) |
		     ((uint32_t)(a->vesw_id & OPA16B_LMAC_VESW_MAX) << 12);

	omni_put_le24(&mac->addr_bytes[0], v);
	omni_put_le24(&mac->addr_bytes[3], a->lid);
}

/**
 * The LID carried in bytes 3-5 of a locally administered MAC.
 *
 * @param mac
 *   Any MAC.
 * @return
 *   The 24-bit LID (0 is possible and means "no LID").
 */
static inline uint32_t
opa16b_lmac_lid(const struct rte_ether_addr *mac)
{
	return omni_get_le24(&mac->addr_bytes[3]);
}

/**
 * Decode the fabric address of an LMAC.
 *
 * @param mac
 *   The MAC.
 * @param a
 *   Filled on success.
 * @return
 *   0, or -EINVAL if the MAC is not a locally administered unicast MAC.
 */
static inline int
opa16b_lmac_parse(const struct rte_ether_addr *mac, struct opa16b_lmac *a)
{
	uint32_t v = omni_get_le24(&mac->addr_bytes[0]);

	if ((v & 0x3u) != 0x2u)
		return -EINVAL;
	a->fabric_id = (v >> 2) & OPA16B_LMAC_FABRIC_MAX;
	a->vesw_id = (v >> 12) & OPA16B_LMAC_VESW_MAX;
	a->lid = opa16b_lmac_lid(mac);
	return 0;
}

#ifdef __cplusplus
}
#endif

#endif /* _OPA16B_LMAC_H_ */
