/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * vrdma-perf's reader of the rdma-core pingpong message (from the network,
 * untrusted): any bytes. Oracles: a refusal sets nothing; an accepted
 * message has a 24-bit QPN and PSN, and formatting what was read gives the
 * input back (LID 0 aside), up to the case of its hex digits.
 */

#include <strings.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vperf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vperf_peer p, before;
	char msg[VPERF_DEST_LEN], again[VPERF_DEST_LEN];

	if (size != VPERF_DEST_LEN)
		return vperf_dest_parse((const char *)data, size, &p) == 0 ? (abort(), 0) : 0;
	memcpy(msg, data, size);
	memset(&p, 0x5a, sizeof(p));
	before = p;
	if (vperf_dest_parse(msg, sizeof(msg), &p) != 0) {
		if (memcmp(&p, &before, sizeof(p)) != 0)
			abort();
		return 0;
	}
	if (p.qpn > 0xffffff || p.psn > 0xffffff)
		abort();
	vperf_dest_format(again, p.qpn, p.psn, p.gid);
	if (strlen(again) != 51 || strncasecmp(msg + 5, again + 5, 46) != 0)
		abort();
	return 0;
}
