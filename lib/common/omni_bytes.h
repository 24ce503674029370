/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef OMNI_BYTES_H
#define OMNI_BYTES_H

/**
 * @file
 * Loads and stores of big- and little-endian integers at any alignment: the
 * one way omniplane reads and writes wire and MAD fields. Plain C (no EAL),
 * so header-only users (lib/vnic's unit tests, lib/vufront) take it as is.
 * Each compiles to a load or store and at most one byte swap.
 */

#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * OMNI_BEn(v) / OMNI_LEn(v): @p v between host order and big/little-endian
 * n-bit order (the same swap both ways; none when the orders agree).
 */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define OMNI_BE16(v) __builtin_bswap16(v) /**< 16-bit host <-> big-endian. */
#define OMNI_BE32(v) __builtin_bswap32(v) /**< 32-bit host <-> big-endian. */
#define OMNI_BE64(v) __builtin_bswap64(v) /**< 64-bit host <-> big-endian. */
#define OMNI_LE16(v) (v) /**< 16-bit host <-> little-endian. */
#define OMNI_LE32(v) (v) /**< 32-bit host <-> little-endian. */
#define OMNI_LE64(v) (v) /**< 64-bit host <-> little-endian. */
#else
#define OMNI_BE16(v) (v)
#define OMNI_BE32(v) (v)
#define OMNI_BE64(v) (v)
#define OMNI_LE16(v) __builtin_bswap16(v)
#define OMNI_LE32(v) __builtin_bswap32(v)
#define OMNI_LE64(v) __builtin_bswap64(v)
#endif

/**
 * @param p  Bytes to read, any alignment.
 * @return The big-endian 16-bit value at @p p.
 */
static inline uint16_t
omni_get_be16(const void *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return OMNI_BE16(v);
}

/**
 * @param p  Bytes to read, any alignment.
 * @return The big-endian 24-bit value at @p p (three bytes).
 */
static inline uint32_t
omni_get_be24(const void *p)
{
	const uint8_t *b = (const uint8_t *)p;

	return (uint32_t)b[0] << 16 | (uint32_t)b[1] << 8 | b[2];
}

/**
 * @param p  Bytes to read, any alignment.
 * @return The big-endian 32-bit value at @p p.
 */
static inline uint32_t
omni_get_be32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return OMNI_BE32(v);
}

/**
 * @param p  Bytes to read, any alignment.
 * @return The big-endian 48-bit value at @p p (six bytes, e.g. a MAC).
 */
static inline uint64_t
omni_get_be48(const void *p)
{
	return (uint64_t)omni_get_be16(p) << 32 | omni_get_be32((const uint8_t *)p + 2);
}

/**
 * @param p  Bytes to read, any alignment.
 * @return The big-endian 64-bit value at @p p.
 */
static inline uint64_t
omni_get_be64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return OMNI_BE64(v);
}

/**
 * Store @p v big-endian at @p p.
 *
 * @param p  Where to store, any alignment.
 * @param v  Value (host order).
 */
static inline void
omni_put_be16(void *p, uint16_t v)
{
	v = OMNI_BE16(v);
	memcpy(p, &v, sizeof(v));
}

/**
 * Store the low 24 bits of @p v big-endian at @p p (three bytes).
 *
 * @param p  Where to store, any alignment.
 * @param v  Value (host order).
 */
static inline void
omni_put_be24(void *p, uint32_t v)
{
	uint8_t *b = (uint8_t *)p;

	b[0] = (uint8_t)(v >> 16);
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)v;
}

/**
 * Store @p v big-endian at @p p.
 *
 * @param p  Where to store, any alignment.
 * @param v  Value (host order).
 */
static inline void
omni_put_be32(void *p, uint32_t v)
{
	v = OMNI_BE32(v);
	memcpy(p, &v, sizeof(v));
}

/**
 * Store the low 48 bits of @p v big-endian at @p p (six bytes).
 *
 * @param p  Where to store, any alignment.
 * @param v  Value (host order).
 */
static inline void
omni_put_be48(void *p, uint64_t v)
{
	omni_put_be16(p, (uint16_t)(v >> 32));
	omni_put_be32((uint8_t *)p + 2, (uint32_t)v);
}

/**
 * Store @p v big-endian at @p p.
 *
 * @param p  Where to store, any alignment.
 * @param v  Value (host order).
 */
static inline void
omni_put_be64(void *p, uint64_t v)
{
	v = OMNI_BE64(v);
	memcpy(p, &v, sizeof(v));
}

/**
 * @param p  Bytes to read, any alignment.
 * @return The little-endian 16-bit value at @p p.
 */
static inline uint16_t
omni_get_le16(const void *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return OMNI_LE16(v);
}

/**
 * @param p  Bytes to read, any alignment.
 * @return The little-endian 24-bit value at @p p (three bytes).
 */
static inline uint32_t
omni_get_le24(const void *p)
{
	const uint8_t *b = (const uint8_t *)p;

	return b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16;
}

/**
 * @param p  Bytes to read, any alignment.
 * @return The little-endian 32-bit value at @p p.
 */
static inline uint32_t
omni_get_le32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return OMNI_LE32(v);
}

/**
 * @param p  Bytes to read, any alignment.
 * @return The little-endian 64-bit value at @p p.
 */
static inline uint64_t
omni_get_le64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return OMNI_LE64(v);
}

/**
 * Store @p v little-endian at @p p.
 *
 * @param p  Where to store, any alignment.
 * @param v  Value (host order).
 */
static inline void
omni_put_le16(void *p, uint16_t v)
{
	v = OMNI_LE16(v);
	memcpy(p, &v, sizeof(v));
}

/**
 * Store the low 24 bits of @p v little-endian at @p p (three bytes).
 *
 * @param p  Where to store, any alignment.
 * @param v  Value (host order).
 */
static inline void
omni_put_le24(void *p, uint32_t v)
{
	uint8_t *b = (uint8_t *)p;

	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
}

/**
 * Store @p v little-endian at @p p.
 *
 * @param p  Where to store, any alignment.
 * @param v  Value (host order).
 */
static inline void
omni_put_le32(void *p, uint32_t v)
{
	v = OMNI_LE32(v);
	memcpy(p, &v, sizeof(v));
}

/**
 * Store @p v little-endian at @p p.
 *
 * @param p  Where to store, any alignment.
 * @param v  Value (host order).
 */
static inline void
omni_put_le64(void *p, uint64_t v)
{
	v = OMNI_LE64(v);
	memcpy(p, &v, sizeof(v));
}

/**
 * Read a big-endian unsigned number whose width is data (tests, field tables).
 *
 * @param p    Bytes to read, any alignment.
 * @param len  Its width in bytes, 0..8.
 * @return The number of @p len bytes at @p p (0 when @p len is 0).
 */
static inline uint64_t
omni_get_be_n(const void *p, unsigned int len)
{
	const uint8_t *b = (const uint8_t *)p;
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < len; i++)
		v = v << 8 | b[i];
	return v;
}

#ifdef __cplusplus
}
#endif

#endif /* OMNI_BYTES_H */
