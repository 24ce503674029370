/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <isa-l/crc.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include <omni_bytes.h>
#include <omni_mbuf.h>

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
	struct omni_mbuf_span s;
	const uint8_t *p;
	uint32_t n;

	omni_mbuf_span_init(&s, m, off, end > off ? end - off : 0);
	while ((n = omni_mbuf_span_next(&s, &p)) > 0)
		crc = roce_crc32(crc, p, n);
	return crc;
}

/*
 * Offsets of the Ethernet, 802.1Q, IPv4, IPv6 and UDP fields read and
 * written here, from each header's start (DPDK's header structs name them).
 */
#define ETH_OFF(f) offsetof(struct rte_ether_hdr, f)
#define VLAN_OFF(f) offsetof(struct rte_vlan_hdr, f)
#define IP4_OFF(f) offsetof(struct rte_ipv4_hdr, f)
#define IP6_OFF(f) offsetof(struct rte_ipv6_hdr, f)
#define UDP_OFF(f) offsetof(struct rte_udp_hdr, f)
#define IPV4_LEN ((uint32_t)sizeof(struct rte_ipv4_hdr))
#define IPV6_LEN ((uint32_t)sizeof(struct rte_ipv6_hdr))
#define UDP_LEN ((uint32_t)sizeof(struct rte_udp_hdr))
#define IPV4_VER_IHL 0x45    /* version 4, 5 words: no options */
#define IPV4_DF 0x4000
#define IPV4_FRAG_MASK 0x3fff /* MF and the fragment offset */

uint32_t
roce_icrc_begin(const uint8_t *l3, bool ipv6)
{
	uint8_t hdr[ROCE_IPV6_UDP_LEN + ROCE_BTH_LEN];
	const uint32_t ip_len = ipv6 ? IPV6_LEN : IPV4_LEN;
	const uint32_t len = ip_len + UDP_LEN + ROCE_BTH_LEN;
	uint8_t *udp = hdr + ip_len;

	memcpy(hdr, l3, len);
	if (ipv6) {
		/* traffic class and flow label; the version nibble stays */
		hdr[IP6_OFF(vtc_flow)] |= 0x0f;
		memset(hdr + IP6_OFF(vtc_flow) + 1, 0xff, 3);
		hdr[IP6_OFF(hop_limits)] = 0xff;
	} else {
		hdr[IP4_OFF(type_of_service)] = 0xff;
		hdr[IP4_OFF(time_to_live)] = 0xff;
		memset(hdr + IP4_OFF(hdr_checksum), 0xff, 2);
	}
	memset(udp + UDP_OFF(dgram_cksum), 0xff, 2);
	udp[UDP_LEN + ROCE_BTH_FECN] = 0xff; /* FECN, BECN, Resv6 */
	return roce_crc32(icrc_seed(), hdr, len);
}

uint32_t
roce_icrc(const struct rte_mbuf *m, uint32_t l3_off, bool ipv6, uint32_t icrc_off)
{
	uint8_t hdr[ROCE_IPV6_UDP_LEN + ROCE_BTH_LEN];
	const uint32_t len = (ipv6 ? ROCE_IPV6_UDP_LEN : ROCE_IPV4_UDP_LEN) + ROCE_BTH_LEN;
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

/* Where roce_pkt_parse() stands between its steps. */
struct parse_state {
	const uint8_t *h;    /* the frame's first bytes (up to ROCE_MAX_HDR), contiguous */
	uint32_t avail;      /* how many h holds */
	uint32_t pkt_len;    /* the whole frame's */
	uint32_t l3;         /* offset of the IP header */
	uint16_t type;       /* its EtherType */
	const uint8_t *udp;
	uint32_t ip_payload; /* bytes after the IP header, as the IP header says */
	uint32_t frame_len;  /* bytes through the IP datagram's end */
	const struct roce_opcode_info *info;
};

/* Ethernet and an optional 802.1Q tag: the EtherType and where L3 starts. */
static void
parse_eth(struct parse_state *s, struct roce_pkt *pkt)
{
	const uint8_t *tag = s->h + RTE_ETHER_HDR_LEN;

	s->type = omni_get_be16(s->h + ETH_OFF(ether_type));
	s->l3 = RTE_ETHER_HDR_LEN;
	pkt->vlan_id = ROCE_VLAN_NONE;
	if (s->type == RTE_ETHER_TYPE_VLAN) {
		pkt->vlan_id = omni_get_be16(tag + VLAN_OFF(vlan_tci)) & RTE_VLAN_ID_MASK;
		s->type = omni_get_be16(tag + VLAN_OFF(eth_proto));
		s->l3 += sizeof(struct rte_vlan_hdr);
	}
	memcpy(pkt->smac, s->h + ETH_OFF(src_addr), RTE_ETHER_ADDR_LEN);
}

/* IPv4 to UDP port 4791: no options, no fragments, a good header checksum. */
static enum roce_parse_result
parse_ipv4(struct parse_state *s, struct roce_pkt *pkt)
{
	const uint8_t *ip = s->h + s->l3;
	uint32_t total;

	if (s->avail < s->l3 + ROCE_IPV4_UDP_LEN || ip[IP4_OFF(next_proto_id)] != IPPROTO_UDP)
		return ROCE_PARSE_NOT_ROCE;
	s->udp = ip + IPV4_LEN;
	if (omni_get_be16(s->udp + UDP_OFF(dst_port)) != ROCE_UDP_PORT)
		return ROCE_PARSE_NOT_ROCE;
	if (ip[IP4_OFF(version_ihl)] != IPV4_VER_IHL ||
	    (omni_get_be16(ip + IP4_OFF(fragment_offset)) & IPV4_FRAG_MASK) != 0 ||
	    rte_raw_cksum(ip, IPV4_LEN) != 0xffff)
		return ROCE_PARSE_BAD_HEADER;
	total = omni_get_be16(ip + IP4_OFF(total_length));
	if (total < IPV4_LEN || s->l3 + total > s->pkt_len)
		return ROCE_PARSE_TRUNCATED;
	s->ip_payload = total - IPV4_LEN;
	s->frame_len = s->l3 + total;
	pkt->ipv6 = 0;
	pkt->tclass = ip[IP4_OFF(type_of_service)];
	pkt->hop_limit = ip[IP4_OFF(time_to_live)];
	v4_gid(pkt->sgid, ip + IP4_OFF(src_addr));
	v4_gid(pkt->dgid, ip + IP4_OFF(dst_addr));
	return ROCE_PARSE_OK;
}

/* IPv6 to UDP port 4791, UDP the next header (no extension headers). */
static enum roce_parse_result
parse_ipv6(struct parse_state *s, struct roce_pkt *pkt)
{
	const uint8_t *ip = s->h + s->l3;
	uint32_t plen;

	if (s->avail < s->l3 + ROCE_IPV6_UDP_LEN || ip[IP6_OFF(proto)] != IPPROTO_UDP)
		return ROCE_PARSE_NOT_ROCE;
	s->udp = ip + IPV6_LEN;
	if (omni_get_be16(s->udp + UDP_OFF(dst_port)) != ROCE_UDP_PORT)
		return ROCE_PARSE_NOT_ROCE;
	if ((ip[IP6_OFF(vtc_flow)] >> 4) != 6)
		return ROCE_PARSE_BAD_HEADER;
	plen = omni_get_be16(ip + IP6_OFF(payload_len));
	if (s->l3 + IPV6_LEN + plen > s->pkt_len)
		return ROCE_PARSE_TRUNCATED;
	s->ip_payload = plen;
	s->frame_len = s->l3 + IPV6_LEN + plen;
	pkt->ipv6 = 1;
	pkt->tclass = (uint8_t)(omni_get_be16(ip + IP6_OFF(vtc_flow)) >> 4);
	pkt->hop_limit = ip[IP6_OFF(hop_limits)];
	memcpy(pkt->sgid, ip + IP6_OFF(src_addr), ROCE_GID_LEN);
	memcpy(pkt->dgid, ip + IP6_OFF(dst_addr), ROCE_GID_LEN);
	return ROCE_PARSE_OK;
}

/* UDP: its length must be the IP payload's, with room for a BTH and the ICRC. */
static enum roce_parse_result
parse_udp(struct parse_state *s, struct roce_pkt *pkt)
{
	uint32_t udp_len = omni_get_be16(s->udp + UDP_OFF(dgram_len));

	pkt->l3_off = (uint16_t)s->l3;
	pkt->udp_sport = omni_get_be16(s->udp + UDP_OFF(src_port));
	if (udp_len != s->ip_payload)
		return s->ip_payload < udp_len ? ROCE_PARSE_TRUNCATED : ROCE_PARSE_BAD_HEADER;
	if (s->ip_payload < UDP_LEN + ROCE_BTH_LEN + ROCE_ICRC_LEN)
		return ROCE_PARSE_TRUNCATED;
	return ROCE_PARSE_OK;
}

/*
 * BTH: an opcode we handle, TVer 0; then the opcode's extension headers,
 * payload, pad and ICRC must fit the UDP datagram, and the pad must be the
 * payload's.
 */
static enum roce_parse_result
parse_bth(struct parse_state *s, struct roce_pkt *pkt)
{
	const uint8_t *bth;
	uint32_t hdr_end;

	pkt->bth_off = (uint16_t)(s->udp + UDP_LEN - s->h);
	if (s->avail < (uint32_t)pkt->bth_off + ROCE_BTH_LEN)
		return ROCE_PARSE_TRUNCATED;
	bth = s->h + pkt->bth_off;
	pkt->opcode = roce_bth_opcode(bth);
	s->info = &roce_opcode_table[pkt->opcode];
	if (s->info->hdr_len == 0 || roce_bth_tver(bth) != 0)
		return ROCE_PARSE_BAD_HEADER;
	pkt->se = roce_bth_se(bth);
	pkt->padcnt = roce_bth_pad(bth);
	pkt->pkey = roce_bth_pkey(bth);
	pkt->qpn = roce_bth_qpn(bth);
	pkt->ackreq = roce_bth_ackreq(bth);
	pkt->psn = roce_bth_psn(bth);
	hdr_end = pkt->bth_off + s->info->hdr_len;
	if (hdr_end + pkt->padcnt + ROCE_ICRC_LEN > s->frame_len || hdr_end > s->avail)
		return ROCE_PARSE_TRUNCATED;
	pkt->pay_off = (uint16_t)hdr_end;
	pkt->paylen = s->frame_len - hdr_end - pkt->padcnt - ROCE_ICRC_LEN;
	pkt->frame_len = s->frame_len;
	if (!(s->info->flags & ROCE_OPF_PAYLOAD) ? pkt->paylen != 0 || pkt->padcnt != 0 :
	    ((-pkt->paylen) & 3) != pkt->padcnt)
		return ROCE_PARSE_BAD_HEADER;
	return ROCE_PARSE_OK;
}

/* The extension headers the opcode carries (parse_bth() checked that they fit). */
static void
parse_ext(const struct parse_state *s, struct roce_pkt *pkt)
{
	const struct roce_opcode_info *info = s->info;
	const uint8_t *bth = s->h + pkt->bth_off;

	if (info->flags & ROCE_OPF_RETH) {
		const uint8_t *reth = bth + info->reth_off;

		pkt->va = roce_reth_va(reth);
		pkt->rkey = roce_reth_rkey(reth);
		pkt->dma_len = roce_reth_len(reth);
	}
	if (info->flags & ROCE_OPF_AETH) {
		const uint8_t *aeth = bth + info->aeth_off;

		pkt->aeth_syn = roce_aeth_syn(aeth);
		pkt->aeth_msn = roce_aeth_msn(aeth);
	}
	if (info->flags & ROCE_OPF_ATMETH) {
		const uint8_t *atm = bth + info->atm_off;

		pkt->va = roce_atmeth_va(atm);
		pkt->rkey = roce_atmeth_rkey(atm);
		pkt->swap_add = roce_atmeth_swap_add(atm);
		pkt->compare = roce_atmeth_compare(atm);
	}
	if (info->flags & ROCE_OPF_ATMACK)
		pkt->atomic_ack = roce_atmack_orig(bth + info->atm_off);
	if (info->flags & ROCE_OPF_IMM)
		pkt->imm = roce_immdt_imm(bth + info->imm_off);
	if (info->flags & ROCE_OPF_IETH)
		pkt->ieth = roce_ieth_rkey(bth + info->ieth_off);
	if (info->flags & ROCE_OPF_DETH) {
		const uint8_t *deth = bth + info->deth_off;
		const uint8_t *ip = s->h + s->l3;

		pkt->qkey = roce_deth_qkey(deth);
		pkt->src_qpn = roce_deth_sqp(deth);
		/* the GRH a UD receive buffer starts with */
		memset(pkt->grh, 0, sizeof(pkt->grh));
		if (pkt->ipv6)
			memcpy(pkt->grh, ip, IPV6_LEN);
		else
			memcpy(pkt->grh + ROCE_GRH_LEN - IPV4_LEN, ip, IPV4_LEN);
	}
}

enum roce_parse_result
roce_pkt_parse(struct rte_mbuf *m, struct roce_pkt *pkt, bool check_icrc)
{
	uint8_t copy[ROCE_MAX_HDR];
	struct parse_state s;
	enum roce_parse_result r;

	pkt->m = m;
	s.pkt_len = rte_pktmbuf_pkt_len(m);
	s.avail = RTE_MIN(s.pkt_len, (uint32_t)ROCE_MAX_HDR);
	if (s.avail < RTE_ETHER_HDR_LEN + ROCE_IPV4_UDP_LEN)
		return ROCE_PARSE_NOT_ROCE;
	s.h = rte_pktmbuf_read(m, 0, s.avail, copy);
	parse_eth(&s, pkt);
	if (s.type == RTE_ETHER_TYPE_IPV4)
		r = parse_ipv4(&s, pkt);
	else if (s.type == RTE_ETHER_TYPE_IPV6)
		r = parse_ipv6(&s, pkt);
	else
		r = ROCE_PARSE_NOT_ROCE;
	if (r == ROCE_PARSE_OK)
		r = parse_udp(&s, pkt);
	if (r == ROCE_PARSE_OK)
		r = parse_bth(&s, pkt);
	if (r != ROCE_PARSE_OK)
		return r;
	parse_ext(&s, pkt);
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

/* The IPv4 header of a frame, its checksum included. */
static void
build_ipv4(uint8_t *ip, const struct roce_hdr_desc *d, uint32_t udp_len, uint8_t hop)
{
	uint32_t sum;

	ip[IP4_OFF(version_ihl)] = IPV4_VER_IHL;
	ip[IP4_OFF(type_of_service)] = d->tclass;
	omni_put_be16(ip + IP4_OFF(total_length), (uint16_t)(IPV4_LEN + udp_len));
	omni_put_be16(ip + IP4_OFF(packet_id), d->ip_id);
	omni_put_be16(ip + IP4_OFF(fragment_offset), IPV4_DF); /* as rxe */
	ip[IP4_OFF(time_to_live)] = hop;
	ip[IP4_OFF(next_proto_id)] = IPPROTO_UDP;
	memcpy(ip + IP4_OFF(src_addr), d->sgid + 12, 4);
	memcpy(ip + IP4_OFF(dst_addr), d->dgid + 12, 4);
	/*
	 * The header checksum from the values, not from the bytes just
	 * stored: reading those back would stall on store forwarding.
	 */
	sum = ((uint32_t)IPV4_VER_IHL << 8 | d->tclass) + IPV4_LEN + udp_len + d->ip_id +
	      IPV4_DF + ((uint32_t)hop << 8 | IPPROTO_UDP) + omni_get_be16(d->sgid + 12) +
	      omni_get_be16(d->sgid + 14) + omni_get_be16(d->dgid + 12) +
	      omni_get_be16(d->dgid + 14);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	omni_put_be16(ip + IP4_OFF(hdr_checksum), (uint16_t)~sum);
}

/* The IPv6 header of a frame. */
static void
build_ipv6(uint8_t *ip, const struct roce_hdr_desc *d, uint32_t udp_len, uint8_t hop)
{
	omni_put_be32(ip + IP6_OFF(vtc_flow),
		      6u << 28 | (uint32_t)d->tclass << 20 | (d->flow_label & 0xfffff));
	omni_put_be16(ip + IP6_OFF(payload_len), (uint16_t)udp_len);
	ip[IP6_OFF(proto)] = IPPROTO_UDP;
	ip[IP6_OFF(hop_limits)] = hop;
	memcpy(ip + IP6_OFF(src_addr), d->sgid, ROCE_GID_LEN);
	memcpy(ip + IP6_OFF(dst_addr), d->dgid, ROCE_GID_LEN);
}

/*
 * The BTH and the extension headers of the opcode. Every byte is written,
 * the reserved ones as zeros: no memset() of a variable length (a
 * "rep stos" that the ICRC's reads of these bytes would wait for).
 */
static void
build_bth_ext(uint8_t *bth, const struct roce_hdr_desc *d, const struct roce_opcode_info *info,
	      uint8_t pad)
{
	roce_bth_init(bth, d->opcode, d->se, pad, d->pkey, d->dest_qpn, d->ackreq, d->psn);
	if (info->flags & ROCE_OPF_RETH) {
		uint8_t *reth = bth + info->reth_off;

		roce_reth_set_va(reth, d->va);
		roce_reth_set_rkey(reth, d->rkey);
		roce_reth_set_len(reth, d->dma_len);
	}
	if (info->flags & ROCE_OPF_AETH) {
		uint8_t *aeth = bth + info->aeth_off;

		roce_aeth_set_syn(aeth, d->aeth_syn);
		roce_aeth_set_msn(aeth, d->msn);
	}
	if (info->flags & ROCE_OPF_ATMETH) {
		uint8_t *atm = bth + info->atm_off;

		roce_atmeth_set_va(atm, d->va);
		roce_atmeth_set_rkey(atm, d->rkey);
		roce_atmeth_set_swap_add(atm, d->swap_add);
		roce_atmeth_set_compare(atm, d->compare);
	}
	if (info->flags & ROCE_OPF_ATMACK)
		roce_atmack_set_orig(bth + info->atm_off, d->atomic_ack);
	if (info->flags & ROCE_OPF_IMM)
		roce_immdt_set_imm(bth + info->imm_off, d->imm);
	if (info->flags & ROCE_OPF_IETH)
		roce_ieth_set_rkey(bth + info->ieth_off, 0);
	if (info->flags & ROCE_OPF_DETH) {
		uint8_t *deth = bth + info->deth_off;

		roce_deth_set_qkey(deth, d->qkey);
		roce_deth_set_sqp(deth, d->src_qpn);
	}
}

uint32_t
roce_pkt_build_headers(uint8_t *buf, const struct roce_hdr_desc *d)
{
	const struct roce_opcode_info *info = &roce_opcode_table[d->opcode];
	const bool v4 = roce_gid_is_v4(d->dgid);
	const uint8_t pad = (-d->paylen) & 3;
	const uint32_t udp_len = UDP_LEN + info->hdr_len + d->paylen + pad + ROCE_ICRC_LEN;
	const uint8_t hop = d->hop_limit ? d->hop_limit : 64;
	uint8_t *p = buf;
	uint32_t l3;

	memcpy(p + ETH_OFF(dst_addr), d->dmac, RTE_ETHER_ADDR_LEN);
	memcpy(p + ETH_OFF(src_addr), d->smac, RTE_ETHER_ADDR_LEN);
	p += ETH_OFF(ether_type);
	if (d->vlan_id != ROCE_VLAN_NONE) {
		/* the TPID, then the tag: PCP from the traffic class's top bits */
		omni_put_be16(p, RTE_ETHER_TYPE_VLAN);
		omni_put_be16(p + 2, (uint16_t)((d->tclass >> 5) << 13 |
						(d->vlan_id & RTE_VLAN_ID_MASK)));
		p += sizeof(struct rte_vlan_hdr);
	}
	omni_put_be16(p, v4 ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6);
	p += sizeof(rte_be16_t);
	l3 = (uint32_t)(p - buf);
	if (v4) {
		build_ipv4(p, d, udp_len, hop);
		p += IPV4_LEN;
	} else {
		build_ipv6(p, d, udp_len, hop);
		p += IPV6_LEN;
	}
	omni_put_be16(p + UDP_OFF(src_port), d->udp_sport);
	omni_put_be16(p + UDP_OFF(dst_port), ROCE_UDP_PORT);
	omni_put_be16(p + UDP_OFF(dgram_len), (uint16_t)udp_len);
	omni_put_be16(p + UDP_OFF(dgram_cksum), 0);
	build_bth_ext(p + UDP_LEN, d, info, pad);
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
