/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef OMNI_KVARGS_H
#define OMNI_KVARGS_H

/**
 * @file
 * Devargs for omniplane PMDs, in DPDK's net/null style: a table of the valid
 * keys, each with one typed handler that checks its value's range and stores
 * it. rte_kvargs refuses an unknown key; a key without "=value", a value out
 * of range or a malformed one is an error naming the key. Numbers follow
 * omni_num.h's rules.
 */

#include <stdint.h>

#include <rte_kvargs.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Flags of struct omni_devarg. */
enum omni_devarg_flags {
	OMNI_DEVARG_ONCE = 1 << 0, /**< given twice is an error (default: the last wins) */
};

/** One devarg: its key and the handler that parses and stores its value. */
struct omni_devarg {
	const char *key;          /**< the key, e.g. "lid" */
	arg_handler_t handler;    /**< (key, value, opaque): 0 or a negative errno */
	unsigned int flags;       /**< ::omni_devarg_flags */
};

/**
 * Parse @p args (may be NULL or empty: nothing to do) against @p table.
 * Each key given is handed to its handler with @p opaque, in the order of the
 * table; a key given twice is handled twice (the last value wins), or refused
 * when its entry has ::OMNI_DEVARG_ONCE.
 *
 * @param who
 *   The driver's name, for error messages (e.g. "net_hfi1").
 * @param args
 *   The devargs text ("key=value,key=value").
 * @param table
 *   The valid keys.
 * @param n
 *   Entries in @p table (at most 32).
 * @param opaque
 *   Passed to every handler (the driver's argument struct).
 * @return
 *   0, or -EINVAL after an error message.
 */
int omni_devargs_parse(const char *who, const char *args, const struct omni_devarg *table,
		       unsigned int n, void *opaque);

/**
 * A number devarg: @p val parsed by omni_parse_uint(); an error message names
 * @p key, the value and the range.
 *
 * @param key
 *   The key, for the message.
 * @param val
 *   Its value (NULL: the key was given without "=value", an error).
 * @param min
 *   The smallest value accepted.
 * @param max
 *   The largest value accepted.
 * @param flags
 *   ::omni_num_flags (OMNI_NUM_HEX where the devarg is documented to take hex).
 * @param out
 *   Set only on success.
 * @return
 *   0 or -EINVAL.
 */
int omni_devarg_uint(const char *key, const char *val, uint64_t min, uint64_t max,
		     unsigned int flags, uint64_t *out);

/**
 * A string devarg of 1 to @p size - 1 bytes, copied into @p out.
 *
 * @param key
 *   The key, for the message.
 * @param val
 *   Its value (NULL is an error).
 * @param out
 *   Destination.
 * @param size
 *   Size of @p out, the NUL included.
 * @return
 *   0 or -EINVAL.
 */
int omni_devarg_str(const char *key, const char *val, char *out, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* OMNI_KVARGS_H */
