/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * Transmit staging: mbufs taken from the pool in bulk (the stash), frames
 * built from a header descriptor and a payload fill (the ICRC run as the
 * payload is copied), staged and handed to the tx ring in bursts.
 */

#include <string.h>

#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_ring.h>

#include "roce_internal.h"

struct rte_mbuf *
roce_tx_alloc(struct roce_dev *dev)
{
	struct rte_mbuf *m;

	if (dev->stash_next == dev->nstash) {
		/*
		 * In bulk: the cache misses on the mbufs' headers (their lines
		 * are often in the cache of the core that freed them) overlap.
		 */
		dev->stash_next = 0;
		dev->nstash = 0;
		if (rte_pktmbuf_alloc_bulk(dev->conf.pool, dev->stash, ROCE_TX_STASH) == 0) {
			dev->nstash = ROCE_TX_STASH;
		} else {
			m = rte_pktmbuf_alloc(dev->conf.pool);
			if (m == NULL)
				dev->st.send_err++;
			return m;
		}
	}
	m = dev->stash[dev->stash_next++];
	/* the line the next frame's headers go to: fetch it for writing now */
	if (dev->stash_next < dev->nstash) {
		struct rte_mbuf *next = dev->stash[dev->stash_next];

		rte_prefetch0_write((uint8_t *)next->buf_addr + next->data_off);
	}
	return m;
}

unsigned int
roce_dev_mbufs_held(const struct roce_dev *dev)
{
	return dev->nstash - dev->stash_next;
}

/* Frames the engine may still build this turn without overrunning the ring. */
unsigned int
roce_tx_room(struct roce_dev *dev)
{
	unsigned int ring = rte_ring_free_count(dev->conf.tx_ring);

	return ring > dev->ntx ? RTE_MIN(ring - dev->ntx, (unsigned int)ROCE_TX_BURST) : 0;
}

void
roce_tx_flush(struct roce_dev *dev)
{
	unsigned int sent;

	if (dev->ntx == 0)
		return;
	sent = rte_ring_enqueue_burst(dev->conf.tx_ring, (void **)dev->txb, dev->ntx, NULL);
	dev->st.sent_pkts += sent;
	if (sent < dev->ntx) {
		/* another producer took the room: the peer recovers as from loss */
		dev->st.send_err += dev->ntx - sent;
		rte_pktmbuf_free_bulk(dev->txb + sent, dev->ntx - sent);
	}
	dev->ntx = 0;
}

void
roce_tx_stage(struct roce_dev *dev, struct roce_qp *qp, struct rte_mbuf *m)
{
	if (dev->ntx == ROCE_TX_BURST)
		roce_tx_flush(dev);
	dev->txb[dev->ntx++] = m;
	if (qp != NULL)
		qp->st.sent_pkts++;
}

void
roce_hdr_fill(struct roce_qp *qp, const struct roce_ah_attr *av, struct roce_hdr_desc *d)
{
	struct roce_dev *dev = qp->dev;

	static const struct roce_hdr_desc zero;

	/*
	 * A copy of a zeroed descriptor, not memset(): the compiler makes the
	 * copy vector moves, which later loads of the fields forward from
	 * (memset() became "rep stos", and those loads waited for it).
	 */
	*d = zero;
	d->smac = dev->conf.mac;
	d->dmac = av->dmac;
	d->vlan_id = av->vlan_id;
	d->sgid = dev->gid[av->sgid_index < dev->lim.gid_tbl_len ? av->sgid_index : 0];
	d->dgid = av->dgid;
	d->tclass = av->traffic_class;
	d->hop_limit = av->hop_limit;
	d->flow_label = av->flow_label;
	d->ip_id = dev->ip_id++;
	d->udp_sport = qp->sport;
	d->pkey = ROCE_DEFAULT_PKEY;
}

/*
 * The headers are built on the stack and summed there, then copied to the
 * mbuf, and the fill runs the ICRC over the payload as it copies it, from
 * the source (the MR): reading back what was just stored to the mbuf would
 * wait for the stores, whose lines often come from another core's cache.
 * Longest headers: Ethernet, VLAN, IPv6, UDP, BTH, AtomicETH: 106 bytes.
 */
#define HDR_BUF 128
struct rte_mbuf *
roce_frame_build(struct roce_dev *dev, struct roce_hdr_desc *d, roce_fill_t fill, void *arg)
{
	const uint32_t hlen = roce_hdr_len(d);
	const uint8_t pad = (-d->paylen) & 3;
	const bool ipv6 = !roce_gid_is_v4(d->dgid);
	const uint32_t covered = (ipv6 ? ROCE_IPV6_UDP_LEN : ROCE_IPV4_UDP_LEN) + ROCE_BTH_LEN;
	uint8_t hdr[HDR_BUF] __rte_aligned(RTE_CACHE_LINE_SIZE);
	struct rte_mbuf *head, *seg;
	uint32_t l3, crc, off = 0;
	uint8_t *p;

	RTE_ASSERT(hlen <= HDR_BUF);
	l3 = roce_pkt_build_headers(hdr, d);
	crc = roce_icrc_begin(hdr + l3, ipv6);
	crc = roce_crc32(crc, hdr + l3 + covered, hlen - l3 - covered);
	head = roce_tx_alloc(dev);
	if (head == NULL)
		return NULL;
	p = (uint8_t *)rte_pktmbuf_append(head, hlen);
	if (p == NULL)
		goto fail;
	memcpy(p, hdr, hlen);
	seg = head;
	while (off < d->paylen) {
		uint32_t room = rte_pktmbuf_tailroom(seg);
		uint32_t n = RTE_MIN(room, d->paylen - off);
		uint8_t *dst;

		if (n == 0) {
			struct rte_mbuf *next = roce_tx_alloc(dev);

			if (next == NULL || rte_pktmbuf_chain(head, next) < 0) {
				rte_pktmbuf_free(next);
				goto fail;
			}
			seg = next;
			continue;
		}
		dst = rte_pktmbuf_mtod_offset(seg, uint8_t *, seg->data_len);
		if (fill(arg, dst, off, n, &crc) < 0)
			goto fail;
		seg->data_len += n;
		head->pkt_len += n;
		off += n;
	}
	if (rte_pktmbuf_tailroom(seg) < (uint32_t)pad + ROCE_ICRC_LEN) {
		struct rte_mbuf *next = roce_tx_alloc(dev);

		if (next == NULL || rte_pktmbuf_chain(head, next) < 0) {
			rte_pktmbuf_free(next);
			goto fail;
		}
	}
	if (roce_pkt_finish(head, crc, pad) < 0)
		goto fail;
	return head;
fail:
	rte_pktmbuf_free(head);
	return NULL;
}

/* Give the pool back the mbufs roce_tx_alloc() took and did not hand out. */
void
roce_tx_stash_release(struct roce_dev *dev)
{
	rte_pktmbuf_free_bulk(dev->stash + dev->stash_next, dev->nstash - dev->stash_next);
	dev->stash_next = 0;
	dev->nstash = 0;
}
