/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef OMNI_COUNTERS_H
#define OMNI_COUNTERS_H

/**
 * @file
 * Counter name tables: the one idiom for naming the uint64_t counters of a
 * struct, for ethdev xstats and library statistics alike. A table lists
 * {name, offset} per counter; OMNI_CTR_TABLE_CHECK() fails the build when a
 * counter is added to the struct but not to its table.
 *
 * @code
 * struct foo_stats { uint64_t rx; uint64_t drop_runt; };
 * static const struct omni_ctr foo_ctrs[] = {
 *	OMNI_CTR(struct foo_stats, rx),
 *	OMNI_CTR(struct foo_stats, drop_runt),
 * };
 * OMNI_CTR_TABLE_CHECK(foo_ctrs, struct foo_stats);
 * @endcode
 */

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/** One counter: its name and where it sits in its struct. */
struct omni_ctr {
	const char *name;   /**< the name shown (the field's name) */
	size_t off;         /**< offset of its uint64_t in the struct */
};

/**
 * A table entry for field @p field of @p type shown as @p name: for names
 * fixed before the struct (xstats a test or a document lists) or fields that
 * are array elements (`err[HFI1_RX_RUNT]`); the build fails unless the field
 * is a uint64_t.
 */
#define OMNI_CTR_AS(type, field, name) \
	{ name, offsetof(type, field) + 0 * sizeof(char[ \
		__builtin_types_compatible_p(__typeof__(((type *)0)->field), uint64_t) ? 1 : -1]) }

/**
 * A table entry for field @p field of @p type, named as the field; the build
 * fails unless the field is a uint64_t.
 */
#define OMNI_CTR(type, field) OMNI_CTR_AS(type, field, #field)

/**
 * Build-time check that @p table names every counter of @p type, a struct of
 * uint64_t counters only.
 */
#define OMNI_CTR_TABLE_CHECK(table, type) \
	static_assert(sizeof(table) / sizeof((table)[0]) == sizeof(type) / sizeof(uint64_t), \
		      #table " must name every counter of " #type)

/**
 * @param c     The counter's table entry.
 * @param base  The struct of counters.
 * @return The value of counter @p c in the struct at @p base.
 */
static inline uint64_t
omni_ctr_value(const struct omni_ctr *c, const void *base)
{
	uint64_t v;

	memcpy(&v, (const uint8_t *)base + c->off, sizeof(v));
	return v;
}

/**
 * Copy up to @p max values of @p table from the struct at @p base into @p values.
 *
 * @param table   The counter table.
 * @param n       Entries in @p table.
 * @param base    The struct of counters.
 * @param values  Out: the values, in table order.
 * @param max     Room in @p values.
 * @return The number of counters in the table (may exceed @p max, as xstats_get).
 */
static inline unsigned int
omni_ctr_values(const struct omni_ctr *table, unsigned int n, const void *base,
		uint64_t *values, unsigned int max)
{
	unsigned int i;

	for (i = 0; i < n && i < max; i++)
		values[i] = omni_ctr_value(&table[i], base);
	return n;
}

/**
 * Add every counter of the struct at @p src to the one at @p dst (same type,
 * described by @p table): for summing per-queue or per-instance counters.
 *
 * @param table  The counter table.
 * @param n      Entries in @p table.
 * @param dst    The struct added to.
 * @param src    The struct added.
 */
static inline void
omni_ctr_add(const struct omni_ctr *table, unsigned int n, void *dst, const void *src)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		uint64_t v = omni_ctr_value(&table[i], dst) + omni_ctr_value(&table[i], src);

		memcpy((uint8_t *)dst + table[i].off, &v, sizeof(v));
	}
}

/**
 * Write "<prefix><name>" for each of up to @p max counters into @p names,
 * strings of @p size bytes each (an ethdev xstat name is 64), @p stride bytes
 * apart (sizeof the caller's name struct).
 *
 * @param table   The counter table.
 * @param n       Entries in @p table.
 * @param prefix  Put before each name; NULL for none.
 * @param names   Out: the names; NULL to only count.
 * @param stride  Bytes from one name to the next.
 * @param size    Bytes of each name, its NUL included (longer names are cut).
 * @param max     Names @p names has room for.
 * @return The number of counters in the table.
 */
static inline unsigned int
omni_ctr_names(const struct omni_ctr *table, unsigned int n, const char *prefix, void *names,
	       size_t stride, size_t size, unsigned int max)
{
	unsigned int i;

	for (i = 0; i < n && i < max && names != NULL; i++)
		snprintf((char *)names + i * stride, size, "%s%s", prefix != NULL ? prefix : "",
			 table[i].name);
	return n;
}

#ifdef __cplusplus
}
#endif

#endif /* OMNI_COUNTERS_H */
