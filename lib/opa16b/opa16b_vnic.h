/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _OPA16B_VNIC_H_
#define _OPA16B_VNIC_H_

/**
 * @file
 * OPA VNIC encapsulation (16B L4 type 0x78) of Ethernet frames.
 *
 * A VNIC packet is: the 20-byte header (opa16b.h), the Ethernet frame from
 * its destination MAC without FCS (zero-padded to 60 bytes), 0-7 zero pad
 * bytes, a zeroed 4-byte ICRC placeholder (hardware fills it) and the tail
 * byte holding the pad count, so that the whole packet is a whole number of
 * quadwords and the header's Length field counts all of it.
 *
 * Two layers:
 *  - pure functions over bytes (opa16b_vnic_hdr_write(), opa16b_vnic_check())
 *    that need no EAL and are shared by every user;
 *  - rte_mbuf encap/decap, single (inline) and burst, on single- or
 *    multi-segment mbufs, with no per-packet allocation.
 *
 * Decap never reads outside the packet: every rejection has a reason
 * (enum opa16b_vnic_rx_err) and a counter.
 */

#include <errno.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "opa16b.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Ethernet frames shorter than this are zero-padded before encap. */
#define OPA16B_VNIC_ETH_ZLEN 60
/** Extra bytes a received frame may carry beyond the MTU (VLAN header). */
#define OPA16B_VNIC_ETH_OVERHEAD 18
/** Largest Ethernet frame the Length field can carry. */
#define OPA16B_VNIC_ETH_MAX (OPA16B_PKT_MAX - OPA16B_VNIC_HDR_LEN - OPA16B_ICRC_TAIL_LEN)
/** Most bytes encap appends: pad to 60, pad to a quadword, ICRC and tail. */
#define OPA16B_VNIC_TRAILER_MAX \
	(OPA16B_VNIC_ETH_ZLEN - RTE_ETHER_HDR_LEN + OPA16B_PAD_MAX + OPA16B_ICRC_TAIL_LEN)
/** Bytes a decap strips besides the pad. */
#define OPA16B_VNIC_OVERHEAD (OPA16B_VNIC_HDR_LEN + OPA16B_ICRC_TAIL_LEN)

/** The per-packet header fields of a VNIC packet. */
struct opa16b_vnic_fields {
	uint32_t slid;     /**< source LID, 24 bits */
	uint32_t dlid;     /**< destination LID, 24 bits */
	uint16_t pkey;     /**< P_Key, membership bit included */
	uint16_t entropy;  /**< flow entropy (VNIC uses 8 significant bits) */
	uint16_t vesw_id;  /**< virtual Ethernet switch id, 12 bits */
	uint8_t sc;        /**< service class, 5 bits */
	uint8_t rc;        /**< routing control, 3 bits */
};

/** Why a received packet was refused by decap. */
enum opa16b_vnic_rx_err {
	OPA16B_VNIC_RX_OK = 0,      /**< accepted */
	OPA16B_VNIC_RX_TRUNCATED,   /**< shorter than a header and tail */
	OPA16B_VNIC_RX_BAD_L2,      /**< L2 type is not 16B */
	OPA16B_VNIC_RX_BAD_L4,      /**< L4 type is not VNIC Ethernet (0x78) */
	OPA16B_VNIC_RX_BAD_LENGTH,  /**< Length field differs from the buffer length */
	OPA16B_VNIC_RX_BAD_PAD,     /**< pad count > 7 or larger than the packet allows */
	OPA16B_VNIC_RX_RUNT,        /**< Ethernet frame shorter than 60 bytes */
	OPA16B_VNIC_RX_OVERSIZE,    /**< Ethernet frame longer than MTU + 18 */
	OPA16B_VNIC_RX_ERR_MAX      /**< number of reasons (not a reason) */
};

/** Decap counters of one queue (single writer, no atomics). */
struct opa16b_vnic_rx_stats {
	uint64_t packets;                        /**< packets decapsulated */
	uint64_t bytes;                          /**< Ethernet bytes delivered */
	uint64_t errors[OPA16B_VNIC_RX_ERR_MAX]; /**< rejections by reason ([0] unused) */
};

/** What opa16b_vnic_check() learns of an accepted packet. */
struct opa16b_vnic_rx_info {
	uint32_t eth_len;  /**< Ethernet frame bytes after the header */
	uint8_t pad;       /**< pad bytes before the ICRC */
	uint16_t vesw_id;  /**< vesw id from the L4 header */
};

/**
 * Name of a decap rejection reason, for logs, tools and xstats.
 *
 * @param err
 *   A reason.
 * @return
 *   A constant string such as "bad_l4"; "unknown" for values out of range.
 */
const char *opa16b_vnic_rx_err_name(enum opa16b_vnic_rx_err err);

/**
 * Write a VNIC header.
 *
 * Every field is masked to its width; the L2 type is 16B, the LT bit set,
 * BECN, FECN and reserved bits zero, as Linux opa_vnic sends them.
 *
 * @param hdr
 *   OPA16B_VNIC_HDR_LEN bytes, any alignment.
 * @param f
 *   Field values.
 * @param len_qw
 *   Whole packet length in quadwords (header to tail).
 */
static inline void
opa16b_vnic_hdr_write(void *hdr, const struct opa16b_vnic_fields *f, uint32_t len_qw)
{
	/* All loads before the first store: hdr may alias *f as far as the
	 * compiler knows (measured: no difference in cycles, but no reloads).
	 */
	const uint32_t slid = f->slid, dlid = f->dlid;
	const uint32_t w[5] = {
		(slid & OPA16B_DW0_SLID_MASK) |
			((len_qw << OPA16B_DW0_LEN_SHIFT) & OPA16B_DW0_LEN_MASK),
		(1u << OPA16B_DW1_LT_SHIFT) |
			((uint32_t)OPA16B_L2_16B << OPA16B_DW1_L2_SHIFT) |
			(dlid & OPA16B_DW1_DLID_MASK) |
			(((uint32_t)f->sc << OPA16B_DW1_SC_SHIFT) & OPA16B_DW1_SC_MASK) |
			(((uint32_t)f->rc << OPA16B_DW1_RC_SHIFT) & OPA16B_DW1_RC_MASK),
		OPA16B_L4_ETHR |
			(((slid >> 20) << OPA16B_DW2_SLID_HI_SHIFT) & OPA16B_DW2_SLID_HI_MASK) |
			(((dlid >> 20) << OPA16B_DW2_DLID_HI_SHIFT) & OPA16B_DW2_DLID_HI_MASK) |
			((uint32_t)f->pkey << OPA16B_DW2_PKEY_SHIFT),
		f->entropy,
		((uint32_t)f->vesw_id << OPA16B_DW4_VESW_SHIFT) & OPA16B_DW4_VESW_MASK,
	};

	opa16b_dw_set(hdr, 0, w[0]);
	opa16b_dw_set(hdr, 1, w[1]);
	opa16b_dw_set(hdr, 2, w[2]);
	opa16b_dw_set(hdr, 3, w[3]);
	opa16b_dw_set(hdr, 4, w[4]);
}

/**
 * Read the header fields of a VNIC packet (the inverse of
 * opa16b_vnic_hdr_write()).
 *
 * @param hdr
 *   OPA16B_VNIC_HDR_LEN bytes.
 * @param f
 *   Filled with the field values.
 */
static inline void
opa16b_vnic_hdr_read(const void *hdr, struct opa16b_vnic_fields *f)
{
	f->slid = opa16b_get_slid(hdr);
	f->dlid = opa16b_get_dlid(hdr);
	f->pkey = opa16b_get_pkey(hdr);
	f->entropy = opa16b_get_entropy(hdr);
	f->vesw_id = opa16b_get_vesw_id(hdr);
	f->sc = opa16b_get_sc(hdr);
	f->rc = opa16b_get_rc(hdr);
}

/**
 * Total bytes of the VNIC packet that carries an Ethernet frame.
 *
 * @param eth_len
 *   Ethernet frame length before padding to 60.
 * @return
 *   Header + frame (at least 60) + pad + ICRC + tail: a multiple of 8.
 */
static inline uint32_t
opa16b_vnic_wire_len(uint32_t eth_len)
{
	uint32_t l = OPA16B_VNIC_HDR_LEN + RTE_MAX(eth_len, (uint32_t)OPA16B_VNIC_ETH_ZLEN);

	return l + opa16b_pad_len(l) + OPA16B_ICRC_TAIL_LEN;
}

/**
 * Validate a received VNIC packet from its header and tail byte.
 *
 * Checks in order: truncation, L2 type, L4 type, Length against @p pkt_len,
 * pad count, runt, oversize. Reads exactly OPA16B_VNIC_HDR_LEN bytes of
 * @p hdr, and only when @p pkt_len covers them.
 *
 * @param hdr
 *   The first OPA16B_VNIC_HDR_LEN bytes of the packet (may be NULL when
 *   @p pkt_len is too short to hold them).
 * @param tail
 *   The last byte of the packet.
 * @param pkt_len
 *   Whole packet length in bytes, as received.
 * @param mtu
 *   Largest Ethernet payload accepted; frames up to mtu + 18 bytes pass.
 * @param info
 *   Filled on success.
 * @return
 *   OPA16B_VNIC_RX_OK or the reason of the rejection.
 */
static inline enum opa16b_vnic_rx_err
opa16b_vnic_check(const void *hdr, uint8_t tail, uint32_t pkt_len, uint32_t mtu,
		  struct opa16b_vnic_rx_info *info)
{
	uint32_t pad, eth_len;

	if (unlikely(pkt_len < OPA16B_VNIC_OVERHEAD))
		return OPA16B_VNIC_RX_TRUNCATED;
	if (unlikely(opa16b_get_l2(hdr) != OPA16B_L2_16B))
		return OPA16B_VNIC_RX_BAD_L2;
	if (unlikely(opa16b_get_l4(hdr) != OPA16B_L4_ETHR))
		return OPA16B_VNIC_RX_BAD_L4;
	if (unlikely((uint32_t)opa16b_get_len(hdr) * 8 != pkt_len))
		return OPA16B_VNIC_RX_BAD_LENGTH;
	pad = tail & OPA16B_TAIL_PAD_MASK;
	if (unlikely(pad > OPA16B_PAD_MAX || pad > pkt_len - OPA16B_VNIC_OVERHEAD))
		return OPA16B_VNIC_RX_BAD_PAD;
	eth_len = pkt_len - OPA16B_VNIC_OVERHEAD - pad;
	if (unlikely(eth_len < OPA16B_VNIC_ETH_ZLEN))
		return OPA16B_VNIC_RX_RUNT;
	/* eth_len >= 60 here, so this cannot wrap, whatever the mtu */
	if (unlikely(eth_len - OPA16B_VNIC_ETH_OVERHEAD > mtu))
		return OPA16B_VNIC_RX_OVERSIZE;
	info->eth_len = eth_len;
	info->pad = pad;
	info->vesw_id = opa16b_get_vesw_id(hdr);
	return OPA16B_VNIC_RX_OK;
}

/**
 * Validate a VNIC packet held in one flat buffer.
 *
 * @param pkt
 *   The packet, header to tail.
 * @param len
 *   Its length; nothing beyond it is read.
 * @param mtu
 *   As for opa16b_vnic_check().
 * @param info
 *   Filled on success; the Ethernet frame is at pkt + OPA16B_VNIC_HDR_LEN.
 * @return
 *   OPA16B_VNIC_RX_OK or the reason of the rejection.
 */
static inline enum opa16b_vnic_rx_err
opa16b_vnic_check_buf(const void *pkt, size_t len, uint32_t mtu,
		      struct opa16b_vnic_rx_info *info)
{
	if (len < OPA16B_VNIC_OVERHEAD || len > UINT32_MAX)
		return OPA16B_VNIC_RX_TRUNCATED;
	return opa16b_vnic_check(pkt, ((const uint8_t *)pkt)[len - 1], len, mtu, info);
}

/**
 * Encapsulate one Ethernet frame held in a flat buffer (no mbufs, no EAL).
 *
 * @param out
 *   Output buffer for the whole VNIC packet; may not overlap @p frame.
 * @param cap
 *   Its size.
 * @param frame
 *   The Ethernet frame, from its destination MAC, without FCS.
 * @param len
 *   Its length.
 * @param f
 *   Header fields (masked to their widths).
 * @return
 *   The packet length (opa16b_vnic_wire_len(len)); -EINVAL, -EMSGSIZE as
 *   opa16b_vnic_encap(); -ENOSPC if @p cap is too small (nothing written).
 */
int opa16b_vnic_encap_buf(void *out, size_t cap, const void *frame, size_t len,
			  const struct opa16b_vnic_fields *f);

/**
 * Whether encap may write around the data of segment @p m: its buffer is
 * not shared with another mbuf (indirect, or an external buffer with more
 * than one reference) and the segment itself has one reference.
 *
 * @param m
 *   The segment.
 * @return
 *   1 if encap may write around its data, 0 if not.
 */
static inline int
opa16b_mbuf_writable(const struct rte_mbuf *m)
{
	if (unlikely(rte_mbuf_refcnt_read(m) != 1))
		return 0;
	/* one flag test on the fast path: indirect or external buffer */
	if (unlikely(m->ol_flags & (RTE_MBUF_F_INDIRECT | RTE_MBUF_F_EXTERNAL)))
		return !RTE_MBUF_CLONED(m) && rte_mbuf_ext_refcnt_read(m->shinfo) == 1;
	return 1;
}

/**
 * Make room for a VNIC packet around the frame in @p m: zero pad to 60
 * bytes and to a quadword, zeroed ICRC and the tail byte appended to the
 * last segment, 20 header bytes prepended (left for the caller to fill).
 * The common part of every encap; on error the mbuf is unchanged.
 *
 * @param m
 *   The frame, from its destination MAC, without FCS.
 * @param err
 *   Out: the (negative) error when NULL is returned.
 * @return
 *   The header to fill, or NULL with *err set as opa16b_vnic_encap() says.
 */
static inline void *
opa16b_vnic_encap_frame(struct rte_mbuf *m, int *err)
{
	uint32_t eth_len = rte_pktmbuf_pkt_len(m);
	uint32_t zpad, l, pad, trailer;
	struct rte_mbuf *last;
	uint8_t *t;

	if (unlikely(eth_len < RTE_ETHER_HDR_LEN)) {
		*err = -EINVAL;
		return NULL;
	}
	if (unlikely(eth_len > OPA16B_VNIC_ETH_MAX)) {
		*err = -EMSGSIZE;
		return NULL;
	}
	zpad = eth_len < OPA16B_VNIC_ETH_ZLEN ? OPA16B_VNIC_ETH_ZLEN - eth_len : 0;
	l = OPA16B_VNIC_HDR_LEN + eth_len + zpad;
	pad = opa16b_pad_len(l);
	trailer = zpad + pad + OPA16B_ICRC_TAIL_LEN;
	last = likely(m->next == NULL) ? m : rte_pktmbuf_lastseg(m);
	/* Headroom and tailroom of a shared buffer belong to others too. */
	if (unlikely(!opa16b_mbuf_writable(m) ||
		     (last != m && !opa16b_mbuf_writable(last)))) {
		*err = -EPERM;
		return NULL;
	}
	if (unlikely(rte_pktmbuf_headroom(m) < OPA16B_VNIC_HDR_LEN ||
		     rte_pktmbuf_tailroom(last) < trailer)) {
		*err = -ENOSPC;
		return NULL;
	}

	t = rte_pktmbuf_mtod_offset(last, uint8_t *, last->data_len);
	if (likely(trailer <= 16 && rte_pktmbuf_tailroom(last) >= 16))
		memset(t, 0, 16); /* fixed size: one vector store, not a memset call */
	else
		memset(t, 0, trailer - 1);
	t[trailer - 1] = pad;
	last->data_len += trailer;

	m->data_off -= OPA16B_VNIC_HDR_LEN;
	m->data_len += OPA16B_VNIC_HDR_LEN;
	m->pkt_len = l + pad + OPA16B_ICRC_TAIL_LEN;
	return rte_pktmbuf_mtod(m, void *);
}

/**
 * Encapsulate one Ethernet frame (an mbuf chain) into a VNIC packet, in place.
 *
 * The header goes into the first segment's headroom; the zero pad (to 60
 * bytes and to a quadword), the zeroed ICRC placeholder and the tail byte
 * go into the last segment's tailroom. On error the mbuf is unchanged.
 *
 * @param m
 *   The frame, from its destination MAC, without FCS.
 * @param f
 *   Header fields (masked to their widths).
 * @return
 *   0 on success; -EINVAL if the frame is shorter than an Ethernet header;
 *   -EMSGSIZE if it is longer than OPA16B_VNIC_ETH_MAX; -EPERM if the first
 *   or last segment's buffer is shared (a clone, or more than one
 *   reference); -ENOSPC if the headroom (20 bytes) or the last segment's
 *   tailroom is too small.
 */
static inline int
opa16b_vnic_encap(struct rte_mbuf *m, const struct opa16b_vnic_fields *f)
{
	int err = 0;
	void *hdr = opa16b_vnic_encap_frame(m, &err);

	if (unlikely(hdr == NULL))
		return err;
	opa16b_vnic_hdr_write(hdr, f, m->pkt_len / 8);
	return 0;
}

/**
 * Strip @p head bytes from the front and @p tail bytes from the end of an
 * mbuf chain whose segments may split either range. Segments left empty are
 * freed; if the first segment is emptied, the data that follows is pulled
 * into it (as much as fits), so it never ends up empty while data remains.
 * Slow path of opa16b_vnic_decap(); exposed for the PMDs' own trailers.
 *
 * @param m
 *   The chain's first segment.
 * @param head
 *   Bytes to remove from the front.
 * @param tail
 *   Bytes to remove from the end.
 * @return
 *   0, or -EINVAL (nothing changed) if head + tail exceeds the packet length.
 */
int opa16b_mbuf_strip(struct rte_mbuf *m, uint32_t head, uint32_t tail);

/**
 * Validate and decapsulate one VNIC packet in place.
 *
 * On success the mbuf holds the Ethernet frame (header, pad, ICRC and tail
 * removed). On rejection the mbuf is unchanged and still the caller's.
 *
 * @param m
 *   The received 16B packet, header to tail.
 * @param mtu
 *   Frames longer than mtu + 18 bytes are refused.
 * @param vesw_id
 *   Set to the packet's vesw id on success.
 * @return
 *   OPA16B_VNIC_RX_OK or the reason of the rejection.
 */
static inline enum opa16b_vnic_rx_err
opa16b_vnic_decap(struct rte_mbuf *m, uint32_t mtu, uint16_t *vesw_id)
{
	uint32_t pkt_len = rte_pktmbuf_pkt_len(m);
	struct opa16b_vnic_rx_info info;
	enum opa16b_vnic_rx_err err;
	uint8_t copy[OPA16B_VNIC_HDR_LEN];
	const uint8_t *hdr, *tail;
	uint8_t tail_byte;

	if (unlikely(pkt_len < OPA16B_VNIC_OVERHEAD))
		return OPA16B_VNIC_RX_TRUNCATED;
	if (likely(m->next == NULL)) {
		/* one segment: data_len == pkt_len for a valid mbuf */
		if (unlikely(m->data_len != pkt_len))
			return OPA16B_VNIC_RX_TRUNCATED;
		hdr = rte_pktmbuf_mtod(m, const uint8_t *);
		err = opa16b_vnic_check(hdr, hdr[pkt_len - 1], pkt_len, mtu, &info);
		if (unlikely(err != OPA16B_VNIC_RX_OK))
			return err;
		m->data_off += OPA16B_VNIC_HDR_LEN;
		m->data_len = info.eth_len;
		m->pkt_len = info.eth_len;
	} else {
		hdr = rte_pktmbuf_read(m, 0, OPA16B_VNIC_HDR_LEN, copy);
		tail = rte_pktmbuf_read(m, pkt_len - 1, 1, &tail_byte);
		if (unlikely(hdr == NULL || tail == NULL))
			return OPA16B_VNIC_RX_TRUNCATED;
		err = opa16b_vnic_check(hdr, *tail, pkt_len, mtu, &info);
		if (unlikely(err != OPA16B_VNIC_RX_OK))
			return err;
		opa16b_mbuf_strip(m, OPA16B_VNIC_HDR_LEN,
				  pkt_len - OPA16B_VNIC_HDR_LEN - info.eth_len);
	}
	*vesw_id = info.vesw_id;
	return OPA16B_VNIC_RX_OK;
}

/**
 * Encapsulate a burst, each packet with its own fields.
 *
 * Works like rte_eth_tx_prepare(): packets are processed in order and the
 * function stops at the first one that cannot be encapsulated.
 *
 * @param pkts
 *   The frames.
 * @param nb_pkts
 *   How many.
 * @param fields
 *   nb_pkts field sets, one per packet.
 * @return
 *   The number of packets encapsulated. If less than @p nb_pkts,
 *   rte_errno holds the (positive) error of opa16b_vnic_encap() for
 *   pkts[return value], which is left unchanged, as are the ones after it.
 */
uint16_t opa16b_vnic_encap_burst(struct rte_mbuf **pkts, uint16_t nb_pkts,
				 const struct opa16b_vnic_fields *fields);

/**
 * Encapsulate a burst, every packet with the same fields.
 *
 * As opa16b_vnic_encap_burst() with one field set for all packets.
 *
 * @param pkts
 *   The frames.
 * @param nb_pkts
 *   How many.
 * @param f
 *   The fields of every packet.
 * @return
 *   As opa16b_vnic_encap_burst().
 */
uint16_t opa16b_vnic_encap_burst_same(struct rte_mbuf **pkts, uint16_t nb_pkts,
				      const struct opa16b_vnic_fields *f);

/**
 * Decapsulate a burst in place.
 *
 * Accepted packets are moved to the front of @p pkts in their order, with
 * their vesw ids at the same index of @p vesw_ids; rejected packets are
 * freed and counted in @p stats by reason.
 *
 * @param pkts
 *   The received packets.
 * @param nb_pkts
 *   How many.
 * @param mtu
 *   As for opa16b_vnic_decap().
 * @param vesw_ids
 *   At least @p nb_pkts entries.
 * @param stats
 *   The queue's counters, updated.
 * @return
 *   The number of accepted packets.
 */
uint16_t opa16b_vnic_decap_burst(struct rte_mbuf **pkts, uint16_t nb_pkts, uint32_t mtu,
				 uint16_t *vesw_ids, struct opa16b_vnic_rx_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* _OPA16B_VNIC_H_ */
