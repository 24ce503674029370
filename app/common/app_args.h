/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/**
 * @file
 * Command-line number parsing shared by the omniplane applications.
 */

#ifndef OMNIPLANE_APP_ARGS_H
#define OMNIPLANE_APP_ARGS_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/**
 * Parse a whole unsigned number (decimal, 0x hex or 0 octal) no larger
 * than @p max. A sign, trailing characters or an empty string are errors.
 *
 * @param s
 *   The text (may be NULL).
 * @param max
 *   The largest value accepted.
 * @param out
 *   Set only on success.
 * @return
 *   true on success.
 */
static inline bool
app_parse_num(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (s == NULL || *s == '\0' || *s == '-' || *s == '+')
		return false;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno != 0 || *end != '\0' || v > max)
		return false;
	*out = v;
	return true;
}

/**
 * An option's number in @p min..@p max (app_parse_num()), or one line on
 * stderr saying what was expected.
 *
 * @param prog
 *   Program name, first on the line.
 * @param name
 *   The option, without its dashes.
 * @param val
 *   Its text.
 * @param min
 *   The smallest value accepted.
 * @param max
 *   The largest value accepted.
 * @param out
 *   Set only on success.
 * @return
 *   true on success.
 */
static inline bool
app_num_opt(const char *prog, const char *name, const char *val, unsigned long min,
	    unsigned long max, unsigned long *out)
{
	if (!app_parse_num(val, max, out) || *out < min) {
		fprintf(stderr, "%s: --%s '%s': expected %lu..%lu\n", prog, name, val, min, max);
		return false;
	}
	return true;
}

#endif /* OMNIPLANE_APP_ARGS_H */
