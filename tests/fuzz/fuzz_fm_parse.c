/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * libFuzzer target: FM (management) packet parse of arbitrary bytes, in a
 * heap block of exactly their size. An accepted packet must rebuild to a
 * packet of the same length that parses to the same fields and MAD.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "opa16b.h"
#include "opa16b_fm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t rebuilt[OPA16B_PKT_MAX];
	struct opa16b_fm_info info, again;
	enum opa16b_fm_err err;
	uint8_t *buf;
	int n;

	buf = malloc(size ? size : 1);
	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	/* zeroed so that struct padding compares equal below */
	memset(&info, 0, sizeof(info));
	memset(&again, 0, sizeof(again));
	err = opa16b_fm_parse(buf, size, &info);
	if (err >= OPA16B_FM_ERR_MAX)
		abort();
	if (err == OPA16B_FM_OK) {
		if (info.mad < buf || info.mad + info.mad_len > buf + size)
			abort();
		n = opa16b_fm_build(rebuilt, sizeof(rebuilt), &info.f, info.mad, info.mad_len);
		/* MADs are whole quadwords, so a valid packet always rebuilds */
		if (n != (int)size)
			abort();
		if (opa16b_fm_parse(rebuilt, n, &again) != OPA16B_FM_OK ||
		    memcmp(&again.f, &info.f, sizeof(info.f)) != 0 ||
		    again.mad_len != info.mad_len ||
		    memcmp(again.mad, info.mad, info.mad_len) != 0)
			abort();
	}
	free(buf);
	return 0;
}
