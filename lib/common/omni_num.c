/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "omni_num.h"

static int
digit_value(char c, unsigned int base)
{
	int d;

	if (c >= '0' && c <= '9')
		d = c - '0';
	else if (c >= 'a' && c <= 'f')
		d = c - 'a' + 10;
	else if (c >= 'A' && c <= 'F')
		d = c - 'A' + 10;
	else
		return -1;
	return (unsigned int)d < base ? d : -1;
}

int
omni_parse_uint_n(const char *s, size_t len, uint64_t min, uint64_t max, unsigned int flags,
		  uint64_t *out)
{
	unsigned int base = 10;
	uint64_t v = 0;
	bool overflow = false;
	size_t i;

	if (s == NULL || len == 0)
		return -EINVAL;
	if (flags & OMNI_NUM_HEX_BARE) {
		base = 16;
	} else if ((flags & OMNI_NUM_HEX) && len > 2 && s[0] == '0' &&
		   (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		len -= 2;
	}
	for (i = 0; i < len; i++) {
		int d = digit_value(s[i], base);

		if (d < 0)
			return -EINVAL;
		if (overflow)
			continue; /* past 64 bits: only the digits are still checked */
		if (v > (UINT64_MAX - (uint64_t)d) / base)
			overflow = true;
		else
			v = v * base + (uint64_t)d;
	}
	if (overflow || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int
omni_parse_uint(const char *s, uint64_t min, uint64_t max, unsigned int flags, uint64_t *out)
{
	if (s == NULL)
		return -EINVAL;
	return omni_parse_uint_n(s, strlen(s), min, max, flags, out);
}

bool
omni_num_opt(const char *prog, const char *name, const char *val, uint64_t min, uint64_t max,
	     unsigned int flags, uint64_t *out)
{
	if (omni_parse_uint(val, min, max, flags, out) == 0)
		return true;
	fprintf(stderr, "%s: --%s '%s': expected %llu..%llu%s\n", prog, name,
		val != NULL ? val : "", (unsigned long long)min, (unsigned long long)max,
		(flags & OMNI_NUM_HEX) ? " (decimal or 0x hex)" : "");
	return false;
}
