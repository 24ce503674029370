/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * lib/common's number parser (omni_parse_uint_n), which reads every command
 * line, devarg and configuration number. Input: [flags byte][min byte][text].
 * Oracle: an independent reading of the rules in omni_num.h (digits checked
 * one by one, any number of them, the value computed in 128 bits): the same
 * verdict, the same value, and a refusal leaves the output untouched.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "omni_num.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool
is_digit_of(char c, unsigned int base)
{
	if (c >= '0' && c <= '9')
		return true;
	return base == 16 && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'));
}

static unsigned int
val_of(char c)
{
	return c <= '9' ? (unsigned int)(c - '0') : (unsigned int)((c | 0x20) - 'a' + 10);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint64_t maxes[4] = { 9, 0xFFFF, UINT32_MAX, UINT64_MAX };
	unsigned int flags, base = 10;
	uint64_t min, max, out = 0x5a5a5a5a5a5a5a5aULL;
	const char *s, *d;
	size_t len, n, i;
	unsigned __int128 v = 0;
	int want, rc;

	if (size < 2)
		return 0;
	flags = data[0] & (OMNI_NUM_HEX | OMNI_NUM_HEX_BARE);
	max = maxes[(data[0] >> 2) & 3];
	min = data[1] % 4;
	s = (const char *)data + 2;
	len = size - 2;

	d = s;
	n = len;
	if (flags & OMNI_NUM_HEX_BARE) {
		base = 16;
	} else if ((flags & OMNI_NUM_HEX) && n > 2 && d[0] == '0' && (d[1] | 0x20) == 'x') {
		base = 16;
		d += 2;
		n -= 2;
	}
	want = n == 0 ? -EINVAL : 0;
	for (i = 0; want == 0 && i < n; i++) {
		if (!is_digit_of(d[i], base))
			want = -EINVAL;
		else if (v <= UINT64_MAX) /* 128 bits: past 64 is out of range, keep it there */
			v = v * base + val_of(d[i]);
	}
	if (want == 0 && (v > max || v < min))
		want = -ERANGE;

	rc = omni_parse_uint_n(s, len, min, max, flags, &out);
	if (rc != want)
		abort();
	if (rc == 0 && out != (uint64_t)v)
		abort();
	if (rc != 0 && out != 0x5a5a5a5a5a5a5a5aULL)
		abort();
	return 0;
}
