/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * ARP and IPv6 neighbour discovery for the GID of a device vrdma-perf drives
 * (see vperf_arp.h): what the guest kernel owning a virtio-net RoCE device
 * would answer, so a peer resolves our GID's MAC without a static entry.
 */

#include <string.h>

#include <omni_bytes.h>
#include "vperf_arp.h"

#define ETH_HDR 14
#define ETH_ARP 0x0806
#define ETH_IPV6 0x86dd

/* ARP for IPv4 over Ethernet (RFC 826): 28 bytes after the Ethernet header */
#define ARP_LEN 28
#define ARP_HTYPE 0  /* 1: Ethernet */
#define ARP_PTYPE 2  /* 0x0800: IPv4 */
#define ARP_HLEN 4
#define ARP_PLEN 5
#define ARP_OP 6     /* 1 request, 2 reply */
#define ARP_SHA 8
#define ARP_SPA 14
#define ARP_THA 18
#define ARP_TPA 24
#define ARP_REQUEST 1
#define ARP_REPLY 2

/* IPv6 (RFC 8200) and the ICMPv6 neighbour messages (RFC 4861 4.3, 4.4) */
#define IP6_LEN 40
#define IP6_PLEN 4
#define IP6_NH 6
#define IP6_HLIM 7
#define IP6_SRC 8
#define IP6_DST 24
#define NH_ICMP6 58
#define ND_HOP_LIMIT 255
#define ICMP6_CKSUM 2
#define ND_FLAGS 4
#define ND_TARGET 8
#define ND_OPTS 24   /* NS and NA: type, code, checksum, 4 bytes, the target */
#define ND_NS 135
#define ND_NA 136
#define ND_OPT_SLLA 1
#define ND_OPT_TLLA 2
#define NA_SOLICITED 0x40000000u
#define NA_OVERRIDE 0x20000000u
#define ND_MSG_LEN (ND_OPTS + 8) /* our NS and NA: one link-layer address option */

static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

bool
vperf_gid_is_v4(const uint8_t gid[16])
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return memcmp(gid, prefix, sizeof(prefix)) == 0;
}

void
vperf_gid_v4(uint8_t gid[16], uint32_t ipv4)
{
	memset(gid, 0, 10);
	gid[10] = gid[11] = 0xff;
	omni_put_be32(gid + 12, ipv4);
}

void
vperf_nd_init(struct vperf_nd *nd, const uint8_t mac[6], const uint8_t gid[16])
{
	memset(nd, 0, sizeof(*nd));
	memcpy(nd->mac, mac, 6);
	memcpy(nd->gid, gid, 16);
}

/* A MAC a station can have: not multicast (broadcast included), not zero. */
static bool
mac_unicast(const uint8_t *mac)
{
	static const uint8_t zero[6];

	return (mac[0] & 1) == 0 && memcmp(mac, zero, 6) != 0;
}

static void
learn(struct vperf_nd *nd, const uint8_t ip[16], const uint8_t *mac)
{
	unsigned int k;

	for (k = 0; k < VPERF_ND_TABLE; k++)
		if (nd->table[k].used && memcmp(nd->table[k].ip, ip, 16) == 0)
			break;
	if (k == VPERF_ND_TABLE) {
		k = nd->next;
		nd->next = (nd->next + 1) % VPERF_ND_TABLE;
		memcpy(nd->table[k].ip, ip, 16);
		nd->table[k].used = true;
	}
	memcpy(nd->table[k].mac, mac, 6);
	nd->st.learned++;
}

bool
vperf_nd_lookup(const struct vperf_nd *nd, const uint8_t gid[16], uint8_t mac[6])
{
	unsigned int k;

	for (k = 0; k < VPERF_ND_TABLE; k++)
		if (nd->table[k].used && memcmp(nd->table[k].ip, gid, 16) == 0) {
			memcpy(mac, nd->table[k].mac, 6);
			return true;
		}
	return false;
}

static size_t
eth_put(uint8_t *out, const uint8_t *dst, const uint8_t *src, uint16_t type)
{
	memcpy(out, dst, 6);
	memcpy(out + 6, src, 6);
	omni_put_be16(out + 12, type);
	return ETH_HDR;
}

/* An ARP packet from us, padded to Ethernet's minimum. @return its length. */
static size_t
arp_put(uint8_t *out, const struct vperf_nd *nd, uint16_t op, const uint8_t *eth_dst,
	const uint8_t *tha, const uint8_t *tpa)
{
	uint8_t *a = out + eth_put(out, eth_dst, nd->mac, ETH_ARP);

	omni_put_be16(a + ARP_HTYPE, 1);
	omni_put_be16(a + ARP_PTYPE, 0x0800);
	a[ARP_HLEN] = 6;
	a[ARP_PLEN] = 4;
	omni_put_be16(a + ARP_OP, op);
	memcpy(a + ARP_SHA, nd->mac, 6);
	memcpy(a + ARP_SPA, nd->gid + 12, 4);
	memcpy(a + ARP_THA, tha, 6);
	memcpy(a + ARP_TPA, tpa, 4);
	memset(a + ARP_LEN, 0, VPERF_ND_MIN_FRAME - ETH_HDR - ARP_LEN);
	return VPERF_ND_MIN_FRAME;
}

static size_t
arp_input(struct vperf_nd *nd, const uint8_t *a, size_t len, uint8_t *out)
{
	static const uint8_t zero4[4];
	const uint8_t *ours = nd->gid + 12;
	uint8_t ip[16];
	uint16_t op;

	if (len < ARP_LEN || omni_get_be16(a + ARP_HTYPE) != 1 ||
	    omni_get_be16(a + ARP_PTYPE) != 0x0800 || a[ARP_HLEN] != 6 || a[ARP_PLEN] != 4) {
		nd->st.malformed++;
		return 0;
	}
	op = omni_get_be16(a + ARP_OP);
	if ((op != ARP_REQUEST && op != ARP_REPLY) || !mac_unicast(a + ARP_SHA)) {
		nd->st.malformed++;
		return 0;
	}
	/*
	 * Not for our address; a probe (sender 0.0.0.0: we run no duplicate
	 * detection to defend against); gratuitous (sender = target: an
	 * announcement, not a question); a reply that is not to us.
	 */
	if (!vperf_gid_is_v4(nd->gid) || memcmp(a + ARP_TPA, ours, 4) != 0 ||
	    memcmp(a + ARP_SPA, zero4, 4) == 0 || memcmp(a + ARP_SPA, a + ARP_TPA, 4) == 0 ||
	    (op == ARP_REPLY && memcmp(a + ARP_THA, nd->mac, 6) != 0)) {
		nd->st.ignored++;
		return 0;
	}
	/* the sender asked us or answered us: it is a neighbour (RFC 826's merge) */
	vperf_gid_v4(ip, omni_get_be32(a + ARP_SPA));
	learn(nd, ip, a + ARP_SHA);
	if (op == ARP_REPLY)
		return 0;
	nd->st.arp_answered++;
	return arp_put(out, nd, ARP_REPLY, a + ARP_SHA, a + ARP_SHA, a + ARP_SPA);
}

/* One's complement sum of @p len bytes, big-endian words, added to @p sum. */
static uint32_t
sum16(uint32_t sum, const uint8_t *p, size_t len)
{
	size_t k;

	for (k = 0; k + 1 < len; k += 2)
		sum += omni_get_be16(p + k);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

uint16_t
vperf_icmp6_cksum(const uint8_t src[16], const uint8_t dst[16], const uint8_t *icmp, size_t len)
{
	uint8_t tail[8] = { 0 };
	uint32_t sum;

	/* the pseudo-header: addresses, upper-layer length, next header */
	omni_put_be32(tail, (uint32_t)len);
	tail[7] = NH_ICMP6;
	sum = sum16(sum16(sum16(0, src, 16), dst, 16), tail, sizeof(tail));
	sum = sum16(sum, icmp, len);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* ff02::1:ffXX:XXXX, the solicited-node group of @p ip (RFC 4291 2.7.1). */
static void
solicited_node(uint8_t group[16], const uint8_t ip[16])
{
	memset(group, 0, 16);
	group[0] = 0xff;
	group[1] = 0x02;
	group[11] = 0x01;
	group[12] = 0xff;
	memcpy(group + 13, ip + 13, 3);
}

/* An NS or NA from us, @p type with @p flags, for @p target to @p dst. @return its length. */
static size_t
nd_put(uint8_t *out, const struct vperf_nd *nd, const uint8_t *eth_dst, const uint8_t *dst,
       uint8_t type, uint32_t flags, const uint8_t *target)
{
	uint8_t *ip = out + eth_put(out, eth_dst, nd->mac, ETH_IPV6), *m = ip + IP6_LEN;

	omni_put_be32(ip, 6u << 28);
	omni_put_be16(ip + IP6_PLEN, ND_MSG_LEN);
	ip[IP6_NH] = NH_ICMP6;
	ip[IP6_HLIM] = ND_HOP_LIMIT;
	memcpy(ip + IP6_SRC, nd->gid, 16);
	memcpy(ip + IP6_DST, dst, 16);
	m[0] = type;
	m[1] = 0;
	omni_put_be16(m + ICMP6_CKSUM, 0);
	omni_put_be32(m + ND_FLAGS, flags);
	memcpy(m + ND_TARGET, target, 16);
	m[ND_OPTS] = type == ND_NS ? ND_OPT_SLLA : ND_OPT_TLLA;
	m[ND_OPTS + 1] = 1; /* in units of 8 bytes */
	memcpy(m + ND_OPTS + 2, nd->mac, 6);
	omni_put_be16(m + ICMP6_CKSUM, vperf_icmp6_cksum(nd->gid, dst, m, ND_MSG_LEN));
	return ETH_HDR + IP6_LEN + ND_MSG_LEN;
}

/*
 * The link-layer address option @p want among the options of an ND message
 * of @p len bytes. @return 0 with @p lla set (NULL when absent), -1 when the
 * options are malformed (a zero length, one past the message).
 */
static int
nd_option(const uint8_t *m, size_t len, uint8_t want, const uint8_t **lla)
{
	size_t off = ND_OPTS;

	*lla = NULL;
	while (off < len) {
		size_t olen;

		if (len - off < 2)
			return -1;
		olen = (size_t)m[off + 1] * 8;
		if (olen == 0 || olen > len - off)
			return -1;
		if (m[off] == want && olen >= 8)
			*lla = m + off + 2;
		off += olen;
	}
	return 0;
}

static size_t
ip6_input(struct vperf_nd *nd, const uint8_t *eth, const uint8_t *ip, size_t len, uint8_t *out)
{
	static const uint8_t unspec[16];
	const uint8_t *m = ip + IP6_LEN, *src = ip + IP6_SRC, *dst = ip + IP6_DST, *lla;
	uint8_t group[16];
	size_t plen;

	if (len < IP6_LEN || ip[0] >> 4 != 6) {
		nd->st.malformed++;
		return 0;
	}
	plen = omni_get_be16(ip + IP6_PLEN);
	if (plen > len - IP6_LEN) {
		nd->st.malformed++;
		return 0;
	}
	/* neighbour messages come with no extension header; the rest is not ours to answer */
	if (ip[IP6_NH] != NH_ICMP6 || plen < 1 || (m[0] != ND_NS && m[0] != ND_NA)) {
		nd->st.ignored++;
		return 0;
	}
	/* RFC 4861 7.1: hop limit 255 (never routed), code 0, room for the target, checksum */
	if (ip[IP6_HLIM] != ND_HOP_LIMIT || plen < ND_OPTS || m[1] != 0 ||
	    vperf_icmp6_cksum(src, dst, m, plen) != 0 || m[ND_TARGET] == 0xff ||
	    nd_option(m, plen, m[0] == ND_NS ? ND_OPT_SLLA : ND_OPT_TLLA, &lla) != 0 ||
	    (lla != NULL && !mac_unicast(lla)) || src[0] == 0xff) {
		nd->st.malformed++;
		return 0;
	}
	if (vperf_gid_is_v4(nd->gid)) {
		nd->st.ignored++;
		return 0;
	}
	if (m[0] == ND_NA) {
		/* an answer to us for another address teaches us; any other is not ours */
		if (memcmp(dst, nd->gid, 16) != 0 || memcmp(m + ND_TARGET, nd->gid, 16) == 0 ||
		    lla == NULL || !(omni_get_be32(m + ND_FLAGS) & NA_SOLICITED)) {
			nd->st.ignored++;
			return 0;
		}
		learn(nd, m + ND_TARGET, lla);
		return 0;
	}
	solicited_node(group, nd->gid);
	/*
	 * For another target, or to a group not ours; duplicate address
	 * detection (source ::) is not answered: we run none to defend with.
	 */
	if (memcmp(m + ND_TARGET, nd->gid, 16) != 0 ||
	    (memcmp(dst, nd->gid, 16) != 0 && memcmp(dst, group, 16) != 0) ||
	    memcmp(src, unspec, 16) == 0) {
		nd->st.ignored++;
		return 0;
	}
	/* the asker's address (its option, or the frame's source) is learned and answered */
	if (lla != NULL)
		learn(nd, src, lla);
	nd->st.ns_answered++;
	return nd_put(out, nd, lla != NULL ? lla : eth + 6, src, ND_NA,
		      NA_SOLICITED | NA_OVERRIDE, nd->gid);
}

size_t
vperf_nd_input(struct vperf_nd *nd, const uint8_t *frame, size_t len,
	       uint8_t out[VPERF_ND_MAX_FRAME])
{
	uint16_t type;

	if (len < ETH_HDR || !mac_unicast(frame + 6)) {
		nd->st.malformed++;
		return 0;
	}
	/* another station's unicast (a switch floods what it has not learned) */
	if ((frame[0] & 1) == 0 && memcmp(frame, nd->mac, 6) != 0) {
		nd->st.ignored++;
		return 0;
	}
	type = omni_get_be16(frame + 12);
	if (type == ETH_ARP)
		return arp_input(nd, frame + ETH_HDR, len - ETH_HDR, out);
	if (type == ETH_IPV6)
		return ip6_input(nd, frame, frame + ETH_HDR, len - ETH_HDR, out);
	nd->st.ignored++;
	return 0;
}

size_t
vperf_nd_solicit(const struct vperf_nd *nd, const uint8_t gid[16],
		 uint8_t out[VPERF_ND_MAX_FRAME])
{
	static const uint8_t zero6[6];
	uint8_t group[16], eth[6] = { 0x33, 0x33 };

	if (vperf_gid_is_v4(gid) != vperf_gid_is_v4(nd->gid))
		return 0;
	if (vperf_gid_is_v4(gid))
		return arp_put(out, nd, ARP_REQUEST, bcast, zero6, gid + 12);
	/* 33:33 and the group's last 4 bytes (RFC 2464 7) */
	solicited_node(group, gid);
	memcpy(eth + 2, group + 12, 4);
	return nd_put(out, nd, eth, group, ND_NS, 0, gid);
}
