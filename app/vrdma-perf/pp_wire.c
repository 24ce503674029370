/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* The rdma-core pingpong examples' destination message (see pingpong.c). */

#include <stdio.h>
#include <string.h>

#include <omni_num.h>
#include "vperf.h"

/* @p n hex digits at @p s (rdma-core's fixed-width fields: no 0x) into @p v. */
static int
hexfield(const char *s, unsigned int n, uint32_t *v)
{
	uint64_t x;

	if (omni_parse_uint_n(s, n, 0, UINT32_MAX, OMNI_NUM_HEX_BARE, &x) != 0)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

/*
 * Exactly the layout rdma-core writes ("%04x:%06x:%06x:" and 32 digits,
 * then the NUL): no sign, no 0x, no short fields, which sscanf's %x would
 * let through.
 */
int
vperf_dest_parse(const char *msg, size_t len, struct vperf_peer *p)
{
	uint32_t lid, qpn, psn, byte;
	uint8_t gid[16];
	unsigned int k;

	if (len != VPERF_DEST_LEN || msg[4] != ':' || msg[11] != ':' || msg[18] != ':' ||
	    msg[len - 1] != '\0')
		return -1;
	if (hexfield(msg, 4, &lid) != 0 || hexfield(msg + 5, 6, &qpn) != 0 ||
	    hexfield(msg + 12, 6, &psn) != 0)
		return -1;
	for (k = 0; k < 16; k++) {
		if (hexfield(msg + 19 + 2 * k, 2, &byte) != 0)
			return -1;
		gid[k] = (uint8_t)byte;
	}
	memcpy(p->gid, gid, sizeof(gid));
	p->qpn = qpn;
	p->psn = psn;
	return 0;
}

void
vperf_dest_format(char msg[VPERF_DEST_LEN], uint32_t qpn, uint32_t psn, const uint8_t gid[16])
{
	int len = snprintf(msg, VPERF_DEST_LEN, "%04x:%06x:%06x:", 0u, qpn & 0xffffff,
			   psn & 0xffffff);
	unsigned int k;

	/* the GID's bytes in order, as rdma-core's gid_to_wire_gid prints them */
	for (k = 0; k < 16; k++)
		len += snprintf(msg + len, VPERF_DEST_LEN - (size_t)len, "%02x", gid[k]);
}
