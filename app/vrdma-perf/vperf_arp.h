/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef VPERF_ARP_H
#define VPERF_ARP_H

/*
 * The part of a guest's network stack a RoCE device's owner needs so a peer
 * can reach its GID by broadcast or multicast: ARP (RFC 826) for an
 * IPv4-mapped GID's address, IPv6 neighbour discovery (RFC 4861) for any
 * other GID; answers to requests for us, a small table of the neighbours
 * learned, and requests of our own. Plain C over bytes (lib/common's
 * omni_bytes.h): every frame is untrusted, read with its length checked,
 * and counted as answered, learned, ignored or malformed.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A frame's length once padded to Ethernet's minimum (no FCS). */
#define VPERF_ND_MIN_FRAME 60
/* The longest frame vperf_nd_input() or vperf_nd_solicit() writes (a neighbour advertisement). */
#define VPERF_ND_MAX_FRAME 86
/* Neighbours remembered; the oldest goes first. */
#define VPERF_ND_TABLE 8

struct vperf_nd_stats {
	uint64_t arp_answered;  /* ARP requests for our address, answered */
	uint64_t ns_answered;   /* neighbour solicitations for our GID, answered */
	uint64_t learned;       /* neighbours learned or refreshed (requests to us, answers) */
	uint64_t ignored;       /* well-formed, not ours (another target, another protocol) */
	uint64_t malformed;     /* too short, bad fields, a bad checksum */
};

struct vperf_nd {
	uint8_t mac[6];         /* ours */
	uint8_t gid[16];        /* ours: IPv4-mapped (ARP) or IPv6 (neighbour discovery) */
	struct {
		uint8_t ip[16]; /* IPv4 as IPv4-mapped */
		uint8_t mac[6];
		bool used;
	} table[VPERF_ND_TABLE];
	unsigned int next;      /* the table entry replaced next */
	struct vperf_nd_stats st;
};

/* Start with our @p mac and @p gid, no neighbour known, counters zero. */
void vperf_nd_init(struct vperf_nd *nd, const uint8_t mac[6], const uint8_t gid[16]);

/* @return true when @p gid is IPv4-mapped (::ffff:a.b.c.d). */
bool vperf_gid_is_v4(const uint8_t gid[16]);

/* Write the IPv4-mapped GID of @p ipv4 (host order) to @p gid. */
void vperf_gid_v4(uint8_t gid[16], uint32_t ipv4);

/*
 * Take one received Ethernet frame (untrusted): answer an ARP request for our
 * address or a neighbour solicitation for our GID into @p out, learn the
 * sender of either and of an answer to us, count the rest.
 * @return bytes of the answer in @p out (to send as is; it must not overlap
 * @p frame), 0 when none.
 */
size_t vperf_nd_input(struct vperf_nd *nd, const uint8_t *frame, size_t len,
		      uint8_t out[VPERF_ND_MAX_FRAME]);

/*
 * Our request for the MAC of @p gid: an ARP request (broadcast) for an
 * IPv4-mapped one, a neighbour solicitation to its solicited-node multicast
 * group for another.
 * @return bytes written to @p out.
 */
size_t vperf_nd_solicit(const struct vperf_nd *nd, const uint8_t gid[16],
			uint8_t out[VPERF_ND_MAX_FRAME]);

/* @return true with @p mac set when @p gid's MAC is known. */
bool vperf_nd_lookup(const struct vperf_nd *nd, const uint8_t gid[16], uint8_t mac[6]);

/* The ICMPv6 checksum of @p len bytes at @p icmp from @p src to @p dst (RFC 4443 2.3). */
uint16_t vperf_icmp6_cksum(const uint8_t src[16], const uint8_t dst[16], const uint8_t *icmp,
			   size_t len);

#endif /* VPERF_ARP_H */
