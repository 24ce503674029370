/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _ROCE_WIRE_UTIL_H_
#define _ROCE_WIRE_UTIL_H_

/*
 * Helpers of the RoCE wire tests and of fuzz_roce_rx, written from the
 * facts (roce-vhost.md §2), not from lib/roce: big-endian field access, where
 * a RoCE v2 frame's headers are, the ICRC computed with zlib (users link
 * zlib), and frames in exactly-sized malloc blocks.
 *
 * Mempool memory is not instrumented by ASan, so a parser reading past a
 * frame's end goes unseen in a pool mbuf; xchain() puts each segment's bytes
 * at the very end of its own malloc block (external buffer), where ASan
 * reports any byte read beyond it.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>
#include <zlib.h>

#include "omni_mbuf.h"
#include "roce_wire.h"

static inline uint32_t
wu_be16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static inline uint32_t
wu_be24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline uint32_t
wu_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline void
wu_put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void
wu_put24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static inline void
wu_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* Recompute an IPv4 header checksum (20-byte header, no options). */
static inline void
wu_ip4_fix(uint8_t *ip)
{
	uint32_t sum = 0, i;

	ip[10] = ip[11] = 0;
	for (i = 0; i < 20; i += 2)
		sum += wu_be16(ip + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	wu_put16(ip + 10, ~sum & 0xffff);
}

/* Where a RoCE v2 frame's headers are (offsets from the frame's start). */
struct wu_lay {
	uint32_t l3;   /* IP header */
	uint32_t udp;  /* UDP header */
	uint32_t bth;  /* BTH */
	uint32_t end;  /* end of the ICRC, from the IP length */
	bool v6;
};

/*
 * Ethernet [802.1Q] IPv4 (20-byte header) or IPv6 (no extension header),
 * UDP to 4791, and an IP length that fits in @p len: true and the layout.
 */
static inline bool
wu_lay_of(const uint8_t *b, uint32_t len, struct wu_lay *l)
{
	uint32_t et, l3 = 14;

	if (len < 14)
		return false;
	et = wu_be16(b + 12);
	if (et == 0x8100) {
		if (len < 18)
			return false;
		et = wu_be16(b + 16);
		l3 = 18;
	}
	l->l3 = l3;
	if (et == 0x0800) {
		if (len < l3 + 28 || b[l3] != 0x45 || b[l3 + 9] != 17)
			return false;
		l->v6 = false;
		l->udp = l3 + 20;
		l->end = l3 + wu_be16(b + l3 + 2);
	} else if (et == 0x86dd) {
		if (len < l3 + 48 || b[l3 + 6] != 17)
			return false;
		l->v6 = true;
		l->udp = l3 + 40;
		l->end = l3 + 40 + wu_be16(b + l3 + 4);
	} else {
		return false;
	}
	l->bth = l->udp + 8;
	return wu_be16(b + l->udp + 2) == 4791 && l->end <= len && l->end >= l->bth + 16;
}

/*
 * The ICRC, independently of lib/roce (facts §2.4): zlib's CRC-32 over
 * 8 x 0xff, the IP/UDP/BTH headers with the variant fields set to ones,
 * and the rest of the frame up to the ICRC.
 */
static inline uint32_t
wu_icrc(const uint8_t *b, const struct wu_lay *l)
{
	static const uint8_t ones[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t h[40 + 8 + 12];
	uint32_t n = l->bth + 12 - l->l3, udp = l->udp - l->l3, bth = l->bth - l->l3;
	uLong c;

	memcpy(h, b + l->l3, n);
	if (l->v6) {
		h[0] |= 0x0f;                   /* traffic class, high nibble */
		h[1] = h[2] = h[3] = 0xff;      /* traffic class, flow label */
		h[7] = 0xff;                    /* hop limit */
	} else {
		h[1] = 0xff;                    /* TOS */
		h[8] = 0xff;                    /* TTL */
		h[10] = h[11] = 0xff;           /* header checksum */
	}
	h[udp + 6] = h[udp + 7] = 0xff;         /* UDP checksum */
	h[bth + 4] = 0xff;                      /* FECN, BECN, Resv6 */
	c = crc32(0L, ones, sizeof(ones));
	c = crc32(c, h, n);
	c = crc32(c, b + l->bth + 12, l->end - 4 - (l->bth + 12));
	return (uint32_t)c;
}

/* Fix what a mutation broke: the IPv4 header checksum and the ICRC (little-endian). */
static inline void
wu_reseal(uint8_t *b, const struct wu_lay *l)
{
	if (!l->v6)
		wu_ip4_fix(b + l->l3);
	wu_put_le32(b + l->end - 4, wu_icrc(b, l));
}

/* An external segment: the shared info, then the bytes up to the block's end. */
struct wu_xseg {
	struct rte_mbuf_ext_shared_info sh;
	uint8_t data[];
};

static inline void
wu_xseg_free(void *addr, void *opaque)
{
	(void)addr;
	free(opaque);
}

/*
 * A chain of @p len bytes of @p b in exactly-sized external segments of
 * @p mp's mbufs, cut before each offset of @p cuts (ascending; cuts outside
 * (previous cut, len) are ignored, so no segment is empty unless len is 0).
 * @return the chain, or NULL when out of memory.
 */
static inline struct rte_mbuf *
wu_xchain(struct rte_mempool *mp, const uint8_t *b, uint32_t len, const uint32_t *cuts,
	  unsigned int ncuts)
{
	struct rte_mbuf *head = NULL;
	uint32_t off = 0;
	unsigned int i = 0;

	do {
		uint32_t end = len, n;
		struct wu_xseg *x;
		struct rte_mbuf *m;

		while (i < ncuts && (cuts[i] <= off || cuts[i] >= len))
			i++;
		if (i < ncuts)
			end = cuts[i++];
		n = end - off;
		x = malloc(sizeof(*x) + n);
		m = rte_pktmbuf_alloc(mp);
		if (x == NULL || m == NULL) {
			free(x);
			rte_pktmbuf_free(m);
			rte_pktmbuf_free(head);
			return NULL;
		}
		memcpy(x->data, b + off, n);
		x->sh.free_cb = wu_xseg_free;
		x->sh.fcb_opaque = x;
		rte_mbuf_ext_refcnt_set(&x->sh, 1);
		rte_pktmbuf_attach_extbuf(m, x->data, RTE_BAD_IOVA, (uint16_t)n, &x->sh);
		m->data_len = (uint16_t)n;
		m->pkt_len = n;
		if (head == NULL) {
			head = m;
		} else if (rte_pktmbuf_chain(head, m) != 0) {
			rte_pktmbuf_free(m);
			rte_pktmbuf_free(head);
			return NULL;
		}
		off = end;
	} while (off < len);
	return head;
}

/* roce_pkt_parse() of @p b in exactly-sized segments; -1 when out of memory. */
static inline int
wu_parse(struct rte_mempool *mp, const uint8_t *b, uint32_t len, const uint32_t *cuts,
	 unsigned int ncuts, struct roce_pkt *pkt)
{
	struct rte_mbuf *m = wu_xchain(mp, b, len, cuts, ncuts);
	int r;

	if (m == NULL)
		return -1;
	r = roce_pkt_parse(m, pkt, true);
	rte_pktmbuf_free(m);
	return r;
}

#endif /* _ROCE_WIRE_UTIL_H_ */
