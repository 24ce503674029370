/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _VNIC_INTERNAL_H_
#define _VNIC_INTERNAL_H_

/* Shared between lib/vnic's files; not installed. */

#include "vnic.h"

/* Rebuild the MAC index from the entries (after entries change). */
void vnic_mac_tbl_reindex(struct vnic_mac_tbl *t);

/* Spread the set bits of def_port_mask round-robin over the flow slots. */
void vnic_flow_tbl_build(uint8_t flow_tbl[VNIC_FLOW_TBL_SIZE], uint16_t def_port_mask);

#endif /* _VNIC_INTERNAL_H_ */
