/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef OMNI_NUM_H
#define OMNI_NUM_H

/**
 * @file
 * Numbers from command lines, devargs, configuration files and control
 * messages: one parser with one set of rules for every app, example and PMD.
 *
 * The rules: the whole text is the number; digits only (no sign, no space,
 * no empty text); decimal (leading zeros allowed, never octal); a "0x" or
 * "0X" prefix and hex digits only where the caller allows them
 * (::OMNI_NUM_HEX, documented as such for that option); and the value
 * within [min, max] (any number of digits: a value past 64 bits is out of
 * range, never wrapped).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Flags of omni_parse_uint(). */
enum omni_num_flags {
	OMNI_NUM_DEC = 0,        /**< decimal digits only (the default) */
	OMNI_NUM_HEX = 1 << 0,   /**< decimal, or 0x followed by hex digits */
	OMNI_NUM_HEX_BARE = 1 << 1, /**< hex digits with no prefix (a field that is hex by format) */
};

/**
 * Parse the @p len bytes at @p s as an unsigned number by the rules above.
 *
 * @param s
 *   The text; need not be NUL-terminated (may be NULL when @p len is 0).
 * @param len
 *   Its length in bytes.
 * @param min
 *   The smallest value accepted.
 * @param max
 *   The largest value accepted.
 * @param flags
 *   ::omni_num_flags.
 * @param out
 *   Set only on success.
 * @return
 *   0; -EINVAL when the text is not a number by the rules; -ERANGE when it is
 *   one outside [min, max] (or past 64 bits).
 */
int omni_parse_uint_n(const char *s, size_t len, uint64_t min, uint64_t max, unsigned int flags,
		      uint64_t *out);

/**
 * omni_parse_uint_n() over a NUL-terminated string.
 *
 * @param s
 *   The text (NULL is -EINVAL).
 * @param min
 *   The smallest value accepted.
 * @param max
 *   The largest value accepted.
 * @param flags
 *   ::omni_num_flags.
 * @param out
 *   Set only on success.
 * @return
 *   0, -EINVAL or -ERANGE as omni_parse_uint_n().
 */
int omni_parse_uint(const char *s, uint64_t min, uint64_t max, unsigned int flags, uint64_t *out);

/**
 * A command-line option's number (omni_parse_uint()), or one line on stderr
 * naming the program, the option and the range expected.
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
 * @param flags
 *   ::omni_num_flags.
 * @param out
 *   Set only on success.
 * @return
 *   true on success.
 */
bool omni_num_opt(const char *prog, const char *name, const char *val, uint64_t min,
		  uint64_t max, unsigned int flags, uint64_t *out);

#ifdef __cplusplus
}
#endif

#endif /* OMNI_NUM_H */
