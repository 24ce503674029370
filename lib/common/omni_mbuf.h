/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef OMNI_MBUF_H
#define OMNI_MBUF_H

/**
 * @file
 * Walking the bytes of an mbuf chain from an offset: the one way omniplane
 * visits, copies out of and copies into a segmented packet. A span yields the
 * contiguous pieces of [off, off + len) in order; copy in/out are built on it.
 * (rte_pktmbuf_read() remains the way to get a pointer to a header that may
 * span segments.)
 *
 * @code
 * struct omni_mbuf_span s;
 * const uint8_t *p;
 * uint32_t n;
 *
 * omni_mbuf_span_init(&s, m, off, len);
 * while ((n = omni_mbuf_span_next(&s, &p)) > 0)
 *	crc = crc32(crc, p, n);
 * @endcode
 */

#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Where a walk stands: the segment, the offset in it, the bytes still wanted. */
struct omni_mbuf_span {
	const struct rte_mbuf *seg; /**< segment of the next piece (NULL: none left) */
	uint32_t off;               /**< offset of the next piece in @p seg */
	uint32_t left;              /**< bytes still wanted */
};

/**
 * Start a walk over bytes [@p off, @p off + @p len) of chain @p m. Bytes past
 * the chain's end are simply not yielded (see omni_mbuf_span_next()).
 *
 * @param s    The walk to start.
 * @param m    The chain's first segment.
 * @param off  Offset of the first byte in the chain.
 * @param len  Bytes wanted.
 */
static inline void
omni_mbuf_span_init(struct omni_mbuf_span *s, const struct rte_mbuf *m, uint32_t off,
		    uint32_t len)
{
	while (m != NULL && off >= m->data_len) {
		off -= m->data_len;
		m = m->next;
	}
	s->seg = m;
	s->off = off;
	s->left = len;
}

/**
 * The next contiguous piece of the walk.
 *
 * @param s
 *   The walk.
 * @param p
 *   Set to the piece's first byte.
 * @return
 *   The piece's length; 0 when the walk is done or the chain has ended.
 */
static inline uint32_t
omni_mbuf_span_next(struct omni_mbuf_span *s, const uint8_t **p)
{
	uint32_t n;

	while (s->seg != NULL && s->left > 0) {
		const struct rte_mbuf *m = s->seg;

		n = RTE_MIN((uint32_t)m->data_len - s->off, s->left);
		*p = rte_pktmbuf_mtod_offset(m, const uint8_t *, s->off);
		s->seg = m->next;
		s->off = 0;
		if (n == 0) /* an empty segment: look at the next one */
			continue;
		s->left -= n;
		return n;
	}
	return 0;
}

/**
 * Copy bytes [@p off, @p off + @p len) of chain @p m into @p dst.
 *
 * @param m    The chain's first segment.
 * @param off  Offset of the first byte in the chain.
 * @param dst  Where to copy, @p len bytes.
 * @param len  Bytes wanted.
 * @return The bytes copied: fewer than @p len when the chain ends first.
 */
static inline uint32_t
omni_mbuf_copy_out(const struct rte_mbuf *m, uint32_t off, void *dst, uint32_t len)
{
	struct omni_mbuf_span s;
	const uint8_t *p;
	uint32_t n, done = 0;

	omni_mbuf_span_init(&s, m, off, len);
	while ((n = omni_mbuf_span_next(&s, &p)) > 0) {
		memcpy((uint8_t *)dst + done, p, n);
		done += n;
	}
	return done;
}

/**
 * Copy @p len bytes from @p src into chain @p m at @p off, over its existing
 * data (the chain's lengths do not change).
 *
 * @param m    The chain's first segment.
 * @param off  Offset in the chain of the first byte written.
 * @param src  The bytes to copy.
 * @param len  Bytes to copy.
 * @return The bytes copied: fewer than @p len when the chain ends first.
 */
static inline uint32_t
omni_mbuf_copy_in(struct rte_mbuf *m, uint32_t off, const void *src, uint32_t len)
{
	struct omni_mbuf_span s;
	const uint8_t *p;
	uint32_t n, done = 0;

	omni_mbuf_span_init(&s, m, off, len);
	while ((n = omni_mbuf_span_next(&s, &p)) > 0) {
		/* the span yields const pieces; the chain itself is ours to write */
		memcpy((uint8_t *)(uintptr_t)p, (const uint8_t *)src + done, n);
		done += n;
	}
	return done;
}

#ifdef __cplusplus
}
#endif

#endif /* OMNI_MBUF_H */
