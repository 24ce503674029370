/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#include <rte_errno.h>
#include <rte_log.h>

#include <omni_mbuf.h>

#include "opa16b.h"
#include "opa16b_vnic.h"

RTE_LOG_REGISTER_DEFAULT(opa16b_logtype, NOTICE);

static const char *const vnic_rx_err_names[OPA16B_VNIC_RX_ERR_MAX] = {
	[OPA16B_VNIC_RX_OK] = "ok",
	[OPA16B_VNIC_RX_TRUNCATED] = "truncated",
	[OPA16B_VNIC_RX_BAD_L2] = "bad_l2",
	[OPA16B_VNIC_RX_BAD_L4] = "bad_l4",
	[OPA16B_VNIC_RX_BAD_LENGTH] = "bad_length",
	[OPA16B_VNIC_RX_BAD_PAD] = "bad_pad",
	[OPA16B_VNIC_RX_RUNT] = "runt",
	[OPA16B_VNIC_RX_OVERSIZE] = "oversize",
};

const char *
opa16b_vnic_rx_err_name(enum opa16b_vnic_rx_err err)
{
	if ((unsigned int)err >= OPA16B_VNIC_RX_ERR_MAX)
		return "unknown";
	return vnic_rx_err_names[err];
}

int
opa16b_vnic_encap_buf(void *out, size_t cap, const void *frame, size_t len,
		      const struct opa16b_vnic_fields *f)
{
	uint8_t *p = out;
	uint32_t total;

	if (len < RTE_ETHER_HDR_LEN)
		return -EINVAL;
	if (len > OPA16B_VNIC_ETH_MAX)
		return -EMSGSIZE;
	total = opa16b_vnic_wire_len(len);
	if (cap < total)
		return -ENOSPC;
	memcpy(p + OPA16B_VNIC_HDR_LEN, frame, len);
	memset(p + OPA16B_VNIC_HDR_LEN + len, 0, total - OPA16B_VNIC_HDR_LEN - len - 1);
	/* tail = pad count: what is left besides header, frame (>= 60), ICRC, tail */
	p[total - 1] = total - OPA16B_VNIC_OVERHEAD -
		       RTE_MAX(len, (size_t)OPA16B_VNIC_ETH_ZLEN);
	opa16b_vnic_hdr_write(p, f, total / 8);
	return (int)total;
}

/* Unlink and free the empty segments after the first. */
static void
drop_empty_segments(struct rte_mbuf *m)
{
	struct rte_mbuf *prev = m, *seg, *next;

	for (seg = m->next; seg != NULL; seg = next) {
		next = seg->next;
		if (seg->data_len == 0) {
			prev->next = next;
			seg->next = NULL;
			rte_pktmbuf_free_seg(seg);
		} else {
			prev = seg;
		}
	}
}

/* Drop the first @p n bytes of the chain from @p seg on, from as many segments as they span. */
static void
consume_head(struct rte_mbuf *seg, uint32_t n)
{
	uint32_t cut;

	for (; n > 0 && seg != NULL; seg = seg->next) {
		cut = RTE_MIN(n, (uint32_t)seg->data_len);
		seg->data_off += cut;
		seg->data_len -= cut;
		n -= cut;
	}
}

int
opa16b_mbuf_strip(struct rte_mbuf *m, uint32_t head, uint32_t tail)
{
	struct rte_mbuf *seg;
	uint32_t keep, cut;
	uint16_t nb_segs;

	if (head > m->pkt_len || tail > m->pkt_len - head)
		return -EINVAL;
	keep = m->pkt_len - head - tail;

	/* Leading bytes: consume from as many segments as they span. */
	consume_head(m, head);
	/* Trailing bytes: keep exactly 'keep' bytes, free what follows. */
	for (seg = m; seg != NULL; seg = seg->next) {
		if (seg->data_len >= keep) {
			seg->data_len = keep;
			if (seg->next != NULL) {
				rte_pktmbuf_free(seg->next);
				seg->next = NULL;
			}
			break;
		}
		keep -= seg->data_len;
	}
	drop_empty_segments(m);
	/* The head segment carries the packet metadata and must stay; if it
	 * is empty, pull the following data into it so that rte_pktmbuf_mtod()
	 * points at the frame. Rare: only when a header spans segments.
	 */
	if (m->data_len == 0 && m->next != NULL) {
		m->data_off = RTE_MIN((uint16_t)RTE_PKTMBUF_HEADROOM, m->buf_len);
		cut = omni_mbuf_copy_out(m->next, 0, rte_pktmbuf_mtod(m, uint8_t *),
					 rte_pktmbuf_tailroom(m));
		m->data_len = (uint16_t)cut;
		consume_head(m->next, cut);
		drop_empty_segments(m);
	}
	m->pkt_len = 0;
	for (nb_segs = 0, seg = m; seg != NULL; seg = seg->next) {
		nb_segs++;
		m->pkt_len += seg->data_len;
	}
	m->nb_segs = nb_segs;
	return 0;
}

uint16_t
opa16b_vnic_encap_burst(struct rte_mbuf **pkts, uint16_t nb_pkts,
			const struct opa16b_vnic_fields *fields)
{
	uint16_t i;
	int ret;

	for (i = 0; i < nb_pkts; i++) {
		ret = opa16b_vnic_encap(pkts[i], &fields[i]);
		if (unlikely(ret != 0)) {
			rte_errno = -ret;
			break;
		}
	}
	return i;
}

uint16_t
opa16b_vnic_encap_burst_same(struct rte_mbuf **pkts, uint16_t nb_pkts,
			     const struct opa16b_vnic_fields *f)
{
	uint8_t tmpl[OPA16B_VNIC_HDR_LEN];
	uint32_t dw0;
	uint16_t i;
	void *hdr;
	int err = 0;

	/* Only the Length differs between packets: build the header once. */
	opa16b_vnic_hdr_write(tmpl, f, 0);
	dw0 = opa16b_dw_get(tmpl, 0);
	for (i = 0; i < nb_pkts; i++) {
		hdr = opa16b_vnic_encap_frame(pkts[i], &err);
		if (unlikely(hdr == NULL)) {
			rte_errno = -err;
			break;
		}
		memcpy(hdr, tmpl, sizeof(tmpl));
		opa16b_dw_set(hdr, 0, dw0 | ((pkts[i]->pkt_len / 8) << OPA16B_DW0_LEN_SHIFT));
	}
	return i;
}

uint16_t
opa16b_vnic_decap_burst(struct rte_mbuf **pkts, uint16_t nb_pkts, uint32_t mtu,
			uint16_t *vesw_ids, struct opa16b_vnic_rx_stats *stats)
{
	uint64_t bytes = 0;
	uint16_t i, nb_ok = 0;
	enum opa16b_vnic_rx_err err;

	for (i = 0; i < nb_pkts; i++) {
		struct rte_mbuf *m = pkts[i];

		err = opa16b_vnic_decap(m, mtu, &vesw_ids[nb_ok]);
		if (unlikely(err != OPA16B_VNIC_RX_OK)) {
			stats->errors[err]++;
			rte_pktmbuf_free(m);
			continue;
		}
		bytes += m->pkt_len;
		pkts[nb_ok++] = m;
	}
	stats->packets += nb_ok;
	stats->bytes += bytes;
	return nb_ok;
}
