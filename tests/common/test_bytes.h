/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _TEST_BYTES_H_
#define _TEST_BYTES_H_

/* Byte checks for wire-format tests (cmocka must be included first). */

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>

#include <omni_bytes.h>

/* --- byte checks --- */

/* The big-endian number of @p len (0..8) bytes at @p off. */
static inline uint64_t
be_at(const uint8_t *d, size_t off, unsigned int len)
{
	return omni_get_be_n(d + off, len);
}

/* The @p len bytes at @p off hold @p val big-endian. */
static inline void
expect_be(const uint8_t *d, size_t off, unsigned int len, uint64_t val, const char *what)
{
	uint64_t got = be_at(d, off, len);

	if (got != val)
		fail_msg("%s at offset %zu (%u bytes): 0x%" PRIx64 ", expected 0x%" PRIx64,
			 what, off, len, got, val);
}

/* The @p len bytes at @p off equal @p exp. */
static inline void
expect_bytes(const uint8_t *d, size_t off, const void *exp, size_t len, const char *what)
{
	if (memcmp(d + off, exp, len) != 0)
		fail_msg("%s at offset %zu (%zu bytes) differs", what, off, len);
}

/* Bytes [from, to) are all @p v. */
static inline void
expect_fill(const uint8_t *d, size_t from, size_t to, uint8_t v, const char *what)
{
	size_t i;

	for (i = from; i < to; i++)
		if (d[i] != v)
			fail_msg("%s: byte %zu is 0x%02x, expected 0x%02x", what, i, d[i], v);
}

#endif /* _TEST_BYTES_H_ */
