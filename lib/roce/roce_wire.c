/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#include <errno.h>
#include <string.h>

#include <isa-l/crc.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>

#include <omni_bytes.h>

#include "roce_wire.h"

/* Opcode table (IBA base transport headers, facts roce-vhost.md §2.3). */
#define F(x) ROCE_OPF_##x
#define REQ_SEND (F(VALID) | F(REQ) | F(SEND) | F(PAYLOAD))
#define REQ_WRITE (F(VALID) | F(REQ) | F(WRITE) | F(PAYLOAD))
#define RESP_READ (F(VALID) | F(RESP) | F(READ) | F(PAYLOAD))

#define SEND_OPS(base)                                                                \
	[(base) + 0x00] = { REQ_SEND | F(FIRST), 12, 0, 0, 0, 0, 0, 0 },              \
	[(base) + 0x01] = { REQ_SEND | F(MIDDLE), 12, 0, 0, 0, 0, 0, 0 },             \
	[(base) + 0x02] = { REQ_SEND | F(LAST) | F(RECV_WQE), 12, 0, 0, 0, 0, 0, 0 }, \
	[(base) + 0x03] = { REQ_SEND | F(LAST) | F(IMM) | F(RECV_WQE), 16, 0, 0, 0, 12, 0, 0 }, \
	[(base) + 0x04] = { REQ_SEND | F(FIRST) | F(LAST) | F(RECV_WQE), 12, 0, 0, 0, 0, 0, 0 }, \
	[(base) + 0x05] = { REQ_SEND | F(FIRST) | F(LAST) | F(IMM) | F(RECV_WQE), 16, 0, 0, 0, 12, 0, 0 }, \
	[(base) + 0x06] = { REQ_WRITE | F(FIRST) | F(RETH), 28, 12, 0, 0, 0, 0, 0 },  \
	[(base) + 0x07] = { REQ_WRITE | F(MIDDLE), 12, 0, 0, 0, 0, 0, 0 },            \
	[(base) + 0x08] = { REQ_WRITE | F(LAST), 12, 0, 0, 0, 0, 0, 0 },              \
	[(base) + 0x09] = { REQ_WRITE | F(LAST) | F(IMM) | F(RECV_WQE), 16, 0, 0, 0, 12, 0, 0 }, \
	[(base) + 0x0a] = { REQ_WRITE | F(FIRST) | F(LAST) | F(RETH), 28, 12, 0, 0, 0, 0, 0 }, \
	[(base) + 0x0b] = { REQ_WRITE | F(FIRST) | F(LAST) | F(RETH) | F(IMM) | F(RECV_WQE), \
			    32, 12, 0, 0, 28, 0, 0 }

const struct roce_opcode_info roce_opcode_table[256] = {
	SEND_OPS(ROCE_TR_RC),
	SEND_OPS(ROCE_TR_UC),
	[ROCE_OP_READ_REQUEST] = { F(VALID) | F(REQ) | F(READ) | F(FIRST) | F(LAST) | F(RETH),
				   28, 12, 0, 0, 0, 0, 0 },
	[ROCE_OP_READ_RESP_FIRST] = { RESP_READ | F(FIRST) | F(AETH), 16, 0, 12, 0, 0, 0, 0 },
	[ROCE_OP_READ_RESP_MIDDLE] = { RESP_READ | F(MIDDLE), 12, 0, 0, 0, 0, 0, 0 },
	[ROCE_OP_READ_RESP_LAST] = { RESP_READ | F(LAST) | F(AETH), 16, 0, 12, 0, 0, 0, 0 },
	[ROCE_OP_READ_RESP_ONLY] = { RESP_READ | F(FIRST) | F(LAST) | F(AETH), 16, 0, 12, 0, 0, 0, 0 },
	[ROCE_OP_ACK] = { F(VALID) | F(RESP) | F(ACK) | F(AETH), 16, 0, 12, 0, 0, 0, 0 },
	[ROCE_OP_ATOMIC_ACK] = { F(VALID) | F(RESP) | F(ACK) | F(ATOMIC) | F(AETH) | F(ATMACK),
				 24, 0, 12, 16, 0, 0, 0 },
	[ROCE_OP_CMP_SWAP] = { F(VALID) | F(REQ) | F(ATOMIC) | F(FIRST) | F(LAST) | F(ATMETH),
			       40, 0, 0, 12, 0, 0, 0 },
	[ROCE_OP_FETCH_ADD] = { F(VALID) | F(REQ) | F(ATOMIC) | F(FIRST) | F(LAST) | F(ATMETH),
				40, 0, 0, 12, 0, 0, 0 },
	/* parsed so that the responder can refuse them (no memory windows) */
	[ROCE_OP_SEND_LAST_INV] = { F(REQ) | F(SEND) | F(PAYLOAD) | F(LAST) | F(IETH), 16, 0, 0, 0, 0, 12, 0 },
	[ROCE_OP_SEND_ONLY_INV] = { F(REQ) | F(SEND) | F(PAYLOAD) | F(FIRST) | F(LAST) | F(IETH),
				    16, 0, 0, 0, 0, 12, 0 },
	[ROCE_OP_UD_SEND_ONLY] = { REQ_SEND | F(FIRST) | F(LAST) | F(DETH) | F(RECV_WQE), 20, 0, 0, 0, 0, 0, 12 },
	[ROCE_OP_UD_SEND_ONLY_IMM] = { REQ_SEND | F(FIRST) | F(LAST) | F(DETH) | F(IMM) | F(RECV_WQE),
				       24, 0, 0, 0, 20, 0, 12 },
};

static const char *const op_names[32] = {
	"SEND_FIRST", "SEND_MIDDLE", "SEND_LAST", "SEND_LAST_IMM", "SEND_ONLY", "SEND_ONLY_IMM",
	"WRITE_FIRST", "WRITE_MIDDLE", "WRITE_LAST", "WRITE_LAST_IMM", "WRITE_ONLY",
	"WRITE_ONLY_IMM", "READ_REQUEST", "READ_RESP_FIRST", "READ_RESP_MIDDLE",
	"READ_RESP_LAST", "READ_RESP_ONLY", "ACK", "ATOMIC_ACK", "CMP_SWAP", "FETCH_ADD",
	"RESYNC", "SEND_LAST_INV", "SEND_ONLY_INV",
};

const char *
roce_opcode_name(uint8_t opcode)
{
	static const char *const tr[8] = { "RC ", "UC ", "RD ", "UD ", "CNP ", "", "", "" };
	static __thread char buf[32];
	const char *op = op_names[opcode & 0x1f];

	if (roce_opcode_table[opcode].hdr_len == 0 || op == NULL)
		return "?";
	snprintf(buf, sizeof(buf), "%s%s", tr[opcode >> 5], op);
	return buf;
}

uint32_t
roce_crc32(uint32_t crc, const void *buf, size_t len)
{
	return crc32_gzip_refl(crc, buf, len);
}

/* CRC state after the 8 bytes of ones that stand for the LRH. */
static uint32_t
icrc_seed(void)
{
	static uint32_t seed;
	static const uint8_t ones[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	if (seed == 0)
		seed = roce_crc32(0, ones, sizeof(ones));
	return seed;
}

/* CRC continued over m's bytes [off, end). */
static uint32_t
crc_mbuf(uint32_t crc, const struct rte_mbuf *m, uint32_t off, uint32_t end)
{
	while (m != NULL && off >= m->data_len) {
		off -= m->data_len;
		end -= m->data_len;
		m = m->next;
	}
	while (m != NULL && end > 0) {
		uint32_t n = RTE_MIN((uint32_t)m->data_len, end) - off;

		crc = roce_crc32(crc, rte_pktmbuf_mtod_offset(m, const uint8_t *, off), n);
		end -= RTE_MIN((uint32_t)m->data_len, end);
		off = 0;
		m = m->next;
	}
	return crc;
}

uint32_t
roce_icrc_begin(const uint8_t *l3, bool ipv6)
{
	uint8_t hdr[ROCE_IPV6_UDP_LEN + ROCE_BTH_LEN];
	const uint32_t ip_len = ipv6 ? 40 : 20;
	const uint32_t len = ip_len + 8 + ROCE_BTH_LEN;

	memcpy(hdr, l3, len);
	if (ipv6) {
		/* traffic class and flow label; the version nibble stays */
		hdr[0] |= 0x0f;
		hdr[1] = hdr[2] = hdr[3] = 0xff;
		hdr[7] = 0xff;  /* hop limit */
	} else {
		hdr[1] = 0xff;  /* TOS */
		hdr[8] = 0xff;  /* TTL */
		hdr[10] = hdr[11] = 0xff; /* header checksum */
	}
	hdr[ip_len + 6] = hdr[ip_len + 7] = 0xff; /* UDP checksum */
	hdr[ip_len + 8 + 4] = 0xff;               /* BTH FECN, BECN, Resv6 */
	return roce_crc32(icrc_seed(), hdr, len);
}

uint32_t
roce_icrc(const struct rte_mbuf *m, uint32_t l3_off, bool ipv6, uint32_t icrc_off)
{
	uint8_t hdr[ROCE_IPV6_UDP_LEN + ROCE_BTH_LEN];
	const uint32_t len = (ipv6 ? 40 : 20) + 8 + ROCE_BTH_LEN;
	const uint8_t *p;

	p = rte_pktmbuf_read(m, l3_off, len, hdr);
	if (p == NULL)
		return 0;
	return crc_mbuf(roce_icrc_begin(p, ipv6), m, l3_off + len, icrc_off);
}

static void
v4_gid(uint8_t *gid, const uint8_t *addr)
{
	memset(gid, 0, 10);
	gid[10] = gid[11] = 0xff;
	memcpy(gid + 12, addr, 4);
}

enum roce_parse_result
roce_pkt_parse(struct rte_mbuf *m, struct roce_pkt *pkt, bool check_icrc)
{
	uint8_t copy[ROCE_MAX_HDR];
	const struct roce_opcode_info *info;
	const uint8_t *h, *ip, *udp, *bth, *ext;
	uint32_t avail, l3, ip_payload, frame_len, hdr_end;
	uint16_t type;

	pkt->m = m;
	avail = RTE_MIN(rte_pktmbuf_pkt_len(m), (uint32_t)ROCE_MAX_HDR);
	if (avail < RTE_ETHER_HDR_LEN + ROCE_IPV4_UDP_LEN)
		return ROCE_PARSE_NOT_ROCE;
	h = rte_pktmbuf_read(m, 0, avail, copy);
	type = omni_get_be16(h + 12);
	l3 = RTE_ETHER_HDR_LEN;
	pkt->vlan_id = ROCE_VLAN_NONE;
	if (type == RTE_ETHER_TYPE_VLAN) {
		pkt->vlan_id = omni_get_be16(h + 14) & 0xfff;
		type = omni_get_be16(h + 16);
		l3 += 4;
	}
	memcpy(pkt->smac, h + 6, 6);
	ip = h + l3;
	if (type == RTE_ETHER_TYPE_IPV4) {
		uint32_t total;

		if (avail < l3 + ROCE_IPV4_UDP_LEN)
			return ROCE_PARSE_NOT_ROCE;
		if (ip[9] != IPPROTO_UDP)
			return ROCE_PARSE_NOT_ROCE;
		udp = ip + 20;
		if (omni_get_be16(udp + 2) != ROCE_UDP_PORT)
			return ROCE_PARSE_NOT_ROCE;
		if (ip[0] != 0x45 || (omni_get_be16(ip + 6) & 0x3fff) != 0 ||
		    rte_raw_cksum(ip, 20) != 0xffff)
			return ROCE_PARSE_BAD_HEADER;
		total = omni_get_be16(ip + 2);
		if (total < 20 || l3 + total > rte_pktmbuf_pkt_len(m))
			return ROCE_PARSE_TRUNCATED;
		ip_payload = total - 20;
		frame_len = l3 + total;
		pkt->ipv6 = 0;
		pkt->tclass = ip[1];
		pkt->hop_limit = ip[8];
		v4_gid(pkt->sgid, ip + 12);
		v4_gid(pkt->dgid, ip + 16);
	} else if (type == RTE_ETHER_TYPE_IPV6) {
		uint32_t plen;

		if (avail < l3 + ROCE_IPV6_UDP_LEN)
			return ROCE_PARSE_NOT_ROCE;
		if (ip[6] != IPPROTO_UDP)
			return ROCE_PARSE_NOT_ROCE;
		udp = ip + 40;
		if (omni_get_be16(udp + 2) != ROCE_UDP_PORT)
			return ROCE_PARSE_NOT_ROCE;
		if ((ip[0] >> 4) != 6)
			return ROCE_PARSE_BAD_HEADER;
		plen = omni_get_be16(ip + 4);
		if (l3 + 40 + plen > rte_pktmbuf_pkt_len(m))
			return ROCE_PARSE_TRUNCATED;
		ip_payload = plen;
		frame_len = l3 + 40 + plen;
		pkt->ipv6 = 1;
		pkt->tclass = (uint8_t)(omni_get_be16(ip) >> 4);
		pkt->hop_limit = ip[7];
		memcpy(pkt->sgid, ip + 8, ROCE_GID_LEN);
		memcpy(pkt->dgid, ip + 24, ROCE_GID_LEN);
	} else {
		return ROCE_PARSE_NOT_ROCE;
	}
	pkt->l3_off = l3;
	pkt->udp_sport = omni_get_be16(udp);
	if (omni_get_be16(udp + 4) != ip_payload)
		return ip_payload < omni_get_be16(udp + 4) ? ROCE_PARSE_TRUNCATED : ROCE_PARSE_BAD_HEADER;
	if (ip_payload < 8 + ROCE_BTH_LEN + ROCE_ICRC_LEN)
		return ROCE_PARSE_TRUNCATED;

	pkt->bth_off = (uint16_t)(udp + 8 - h);
	bth = udp + 8;
	if (avail < (uint32_t)pkt->bth_off + ROCE_BTH_LEN)
		return ROCE_PARSE_TRUNCATED;
	pkt->opcode = bth[0];
	info = &roce_opcode_table[pkt->opcode];
	if (info->hdr_len == 0 || (bth[1] & 0x0f) != 0)
		return ROCE_PARSE_BAD_HEADER;
	pkt->se = bth[1] >> 7;
	pkt->padcnt = (bth[1] >> 4) & 3;
	pkt->pkey = omni_get_be16(bth + 2);
	pkt->qpn = omni_get_be24(bth + 5);
	pkt->ackreq = bth[8] >> 7;
	pkt->psn = omni_get_be24(bth + 9);
	hdr_end = pkt->bth_off + info->hdr_len;
	if (hdr_end + pkt->padcnt + ROCE_ICRC_LEN > frame_len || hdr_end > avail)
		return ROCE_PARSE_TRUNCATED;
	pkt->pay_off = (uint16_t)hdr_end;
	pkt->paylen = frame_len - hdr_end - pkt->padcnt - ROCE_ICRC_LEN;
	pkt->frame_len = frame_len;
	if (!(info->flags & ROCE_OPF_PAYLOAD) ? pkt->paylen != 0 || pkt->padcnt != 0 :
	    ((-pkt->paylen) & 3) != pkt->padcnt)
		return ROCE_PARSE_BAD_HEADER;

	if (info->flags & ROCE_OPF_RETH) {
		ext = bth + info->reth_off;
		pkt->va = omni_get_be64(ext);
		pkt->rkey = omni_get_be32(ext + 8);
		pkt->dma_len = omni_get_be32(ext + 12);
	}
	if (info->flags & ROCE_OPF_AETH) {
		ext = bth + info->aeth_off;
		pkt->aeth_syn = ext[0];
		pkt->aeth_msn = omni_get_be24(ext + 1);
	}
	if (info->flags & ROCE_OPF_ATMETH) {
		ext = bth + info->atm_off;
		pkt->va = omni_get_be64(ext);
		pkt->rkey = omni_get_be32(ext + 8);
		pkt->swap_add = omni_get_be64(ext + 12);
		pkt->compare = omni_get_be64(ext + 20);
	}
	if (info->flags & ROCE_OPF_ATMACK)
		pkt->atomic_ack = omni_get_be64(bth + info->atm_off);
	if (info->flags & ROCE_OPF_IMM)
		memcpy(&pkt->imm, bth + info->imm_off, 4);
	if (info->flags & ROCE_OPF_IETH)
		pkt->ieth = omni_get_be32(bth + info->ieth_off);
	if (info->flags & ROCE_OPF_DETH) {
		ext = bth + info->deth_off;
		pkt->qkey = omni_get_be32(ext);
		pkt->src_qpn = omni_get_be24(ext + 5);
		/* the GRH a UD receive buffer starts with */
		memset(pkt->grh, 0, sizeof(pkt->grh));
		if (pkt->ipv6)
			memcpy(pkt->grh, ip, 40);
		else
			memcpy(pkt->grh + 20, ip, 20);
	}
	if (check_icrc && !roce_pkt_icrc_ok(m, pkt))
		return ROCE_PARSE_BAD_ICRC;
	return ROCE_PARSE_OK;
}

bool
roce_pkt_icrc_ok(const struct rte_mbuf *m, const struct roce_pkt *pkt)
{
	uint32_t icrc_off = pkt->frame_len - ROCE_ICRC_LEN;
	uint8_t wire[4];
	const uint8_t *w = rte_pktmbuf_read(m, icrc_off, 4, wire);
	uint32_t icrc = omni_get_le32(w);

	return roce_icrc(m, pkt->l3_off, pkt->ipv6, icrc_off) == icrc;
}

uint32_t
roce_hdr_len(const struct roce_hdr_desc *d)
{
	uint32_t len = RTE_ETHER_HDR_LEN + roce_opcode_table[d->opcode].hdr_len;

	if (d->vlan_id != ROCE_VLAN_NONE)
		len += 4;
	return len + (roce_gid_is_v4(d->dgid) ? ROCE_IPV4_UDP_LEN : ROCE_IPV6_UDP_LEN);
}

uint32_t
roce_pkt_build_headers(uint8_t *buf, const struct roce_hdr_desc *d)
{
	const struct roce_opcode_info *info = &roce_opcode_table[d->opcode];
	const bool v4 = roce_gid_is_v4(d->dgid);
	const uint8_t pad = (-d->paylen) & 3;
	const uint32_t udp_len = 8 + info->hdr_len + d->paylen + pad + ROCE_ICRC_LEN;
	uint8_t hop = d->hop_limit ? d->hop_limit : 64;
	uint8_t *p = buf, *bth, *ext;
	uint32_t l3;

	memcpy(p, d->dmac, 6);
	memcpy(p + 6, d->smac, 6);
	p += 12;
	if (d->vlan_id != ROCE_VLAN_NONE) {
		omni_put_be16(p, RTE_ETHER_TYPE_VLAN);
		omni_put_be16(p + 2, (uint16_t)((d->tclass >> 5) << 13 | (d->vlan_id & 0xfff)));
		p += 4;
	}
	omni_put_be16(p, v4 ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6);
	p += 2;
	l3 = (uint32_t)(p - buf);
	if (v4) {
		p[0] = 0x45;
		p[1] = d->tclass;
		omni_put_be16(p + 2, (uint16_t)(20 + udp_len));
		omni_put_be16(p + 4, d->ip_id);
		omni_put_be16(p + 6, 0x4000); /* DF, as rxe */
		p[8] = hop;
		p[9] = IPPROTO_UDP;
		p[10] = p[11] = 0;
		memcpy(p + 12, d->sgid + 12, 4);
		memcpy(p + 16, d->dgid + 12, 4);
		/*
		 * The header checksum from the values, not from the bytes just
		 * stored: reading those back would stall on store forwarding.
		 */
		{
			uint32_t sum = (0x45u << 8 | d->tclass) + 20 + udp_len + d->ip_id + 0x4000 +
				       ((uint32_t)hop << 8 | IPPROTO_UDP) + omni_get_be16(d->sgid + 12) +
				       omni_get_be16(d->sgid + 14) + omni_get_be16(d->dgid + 12) +
				       omni_get_be16(d->dgid + 14);

			sum = (sum & 0xffff) + (sum >> 16);
			sum = (sum & 0xffff) + (sum >> 16);
			omni_put_be16(p + 10, (uint16_t)~sum);
		}
		p += 20;
	} else {
		omni_put_be32(p, 6u << 28 | (uint32_t)d->tclass << 20 | (d->flow_label & 0xfffff));
		omni_put_be16(p + 4, (uint16_t)udp_len);
		p[6] = IPPROTO_UDP;
		p[7] = hop;
		memcpy(p + 8, d->sgid, ROCE_GID_LEN);
		memcpy(p + 24, d->dgid, ROCE_GID_LEN);
		p += 40;
	}
	omni_put_be16(p, d->udp_sport);
	omni_put_be16(p + 2, ROCE_UDP_PORT);
	omni_put_be16(p + 4, (uint16_t)udp_len);
	omni_put_be16(p + 6, 0);
	bth = p + 8;
	/*
	 * Every byte of the BTH and its extension headers is written below,
	 * the reserved ones as zeros: no memset() of a variable length (a
	 * "rep stos" that the ICRC's reads of these bytes would wait for).
	 */
	bth[0] = d->opcode;
	bth[1] = (uint8_t)((d->se ? 0x80 : 0) | pad << 4);
	omni_put_be16(bth + 2, d->pkey);
	bth[4] = 0;
	omni_put_be24(bth + 5, d->dest_qpn & ROCE_PSN_MASK);
	bth[8] = d->ackreq ? 0x80 : 0;
	omni_put_be24(bth + 9, d->psn & ROCE_PSN_MASK);
	if (info->flags & ROCE_OPF_RETH) {
		ext = bth + info->reth_off;
		omni_put_be64(ext, d->va);
		omni_put_be32(ext + 8, d->rkey);
		omni_put_be32(ext + 12, d->dma_len);
	}
	if (info->flags & ROCE_OPF_AETH) {
		ext = bth + info->aeth_off;
		ext[0] = d->aeth_syn;
		omni_put_be24(ext + 1, d->msn & ROCE_PSN_MASK);
	}
	if (info->flags & ROCE_OPF_ATMETH) {
		ext = bth + info->atm_off;
		omni_put_be64(ext, d->va);
		omni_put_be32(ext + 8, d->rkey);
		omni_put_be64(ext + 12, d->swap_add);
		omni_put_be64(ext + 20, d->compare);
	}
	if (info->flags & ROCE_OPF_ATMACK)
		omni_put_be64(bth + info->atm_off, d->atomic_ack);
	if (info->flags & ROCE_OPF_IMM)
		memcpy(bth + info->imm_off, &d->imm, 4);
	if (info->flags & ROCE_OPF_IETH)
		omni_put_be32(bth + info->ieth_off, 0);
	if (info->flags & ROCE_OPF_DETH) {
		ext = bth + info->deth_off;
		omni_put_be32(ext, d->qkey);
		ext[4] = 0;
		omni_put_be24(ext + 5, d->src_qpn);
	}
	return l3;
}

int
roce_pkt_finish(struct rte_mbuf *m, uint32_t crc, uint8_t padcnt)
{
	static const uint8_t zeros[3];
	uint8_t *tail;
	uint32_t icrc;

	tail = (uint8_t *)rte_pktmbuf_append(m, padcnt + ROCE_ICRC_LEN);
	if (tail == NULL)
		return -ENOMEM;
	memset(tail, 0, padcnt);
	icrc = roce_crc32(crc, zeros, padcnt);
	tail += padcnt;
	omni_put_le32(tail, icrc);
	return 0;
}
