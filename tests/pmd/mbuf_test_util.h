/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* Mbuf helpers shared by the pmd tests (cmocka included first). */

#ifndef _MBUF_TEST_UTIL_H_
#define _MBUF_TEST_UTIL_H_

#include <stdint.h>
#include <string.h>

#include <rte_mbuf.h>

/* Copy @len bytes of @buf into a chain of @pool mbufs of at most @seg bytes each (0: one). */
static inline struct rte_mbuf *
chain_of(struct rte_mempool *pool, const uint8_t *buf, uint32_t len, uint32_t seg)
{
	struct rte_mbuf *head = NULL, *m;
	uint32_t off = 0;

	do {
		uint32_t n = len - off;

		if (seg != 0 && n > seg)
			n = seg;
		m = rte_pktmbuf_alloc(pool);
		assert_non_null(m);
		assert_true(n <= rte_pktmbuf_tailroom(m));
		memcpy(rte_pktmbuf_append(m, (uint16_t)n), buf + off, n);
		if (head == NULL)
			head = m;
		else
			assert_int_equal(rte_pktmbuf_chain(head, m), 0);
		off += n;
	} while (off < len);
	return head;
}

#endif /* _MBUF_TEST_UTIL_H_ */
