/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * vrdma-perf --perftest's readers of perftest's messages (from the
 * network, untrusted): any bytes, as the connection data, the version, the
 * path MTU and the report. Oracles: a refused connection data sets nothing;
 * an accepted one has a 16-bit LID and out_reads, a 24-bit QPN and PSN, and
 * writing what was read gives the input back up to the case of its hex
 * digits; a version is -1 or a number; an MTU code is -1 or 1..5; a report
 * of the right length reads back as it was written.
 */

#include <strings.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pt_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pt_dest d, before;
	struct pt_report r;
	char msg[PT_KEY_LEN], again[PT_KEY_LEN];
	uint8_t rep[PT_REPORT_LEN];
	int v;

	v = pt_version_parse((const char *)data, size);
	if (v < -1 || (v >= 0 && size != PT_VERSION_LEN))
		abort();
	v = pt_mtu_parse((const char *)data, size);
	if (v != -1 && (v < 1 || v > 5))
		abort();
	if (pt_report_parse(data, size, &r) == 0) {
		pt_report_format(rep, &r);
		if (size != PT_REPORT_LEN || memcmp(rep, data, size) != 0)
			abort();
	}
	memset(&d, 0x5a, sizeof(d));
	before = d;
	if (size != PT_KEY_LEN) {
		if (pt_dest_parse((const char *)data, size, &d) == 0 ||
		    memcmp(&d, &before, sizeof(d)) != 0)
			abort();
		return 0;
	}
	memcpy(msg, data, size);
	if (pt_dest_parse(msg, sizeof(msg), &d) != 0) {
		if (memcmp(&d, &before, sizeof(d)) != 0)
			abort();
		return 0;
	}
	if (d.lid > 0xffff || d.out_reads > 0xffff || d.qpn > 0xffffff || d.psn > 0xffffff)
		abort();
	pt_dest_format(again, &d);
	if (strncasecmp(msg, again, PT_KEY_LEN) != 0)
		abort();
	return 0;
}
