/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _ROCE_WIRE_H_
#define _ROCE_WIRE_H_

/**
 * @file
 * RoCE v2 on the wire: the IBA base transport opcodes, frame parsing and
 * building, and the ICRC; the transport headers' fields are roce_hdr.h's.
 * Plain C over bytes and mbufs, used by the engine, the tests and the fuzz
 * target.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "roce.h"
#include "roce_hdr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes between the Ethernet header's end and the BTH. */
#define ROCE_IPV4_UDP_LEN 28 /**< IPv4 + UDP headers */
#define ROCE_IPV6_UDP_LEN 48 /**< IPv6 + UDP headers */
/** Most bytes of headers before the payload (Eth + VLAN + IPv6 + UDP + BTH + AtomicETH). */
#define ROCE_MAX_HDR 130
/** Bytes a frame adds to the IB MTU (rxe's RXE_MAX_HDR_LENGTH). */
#define ROCE_MTU_OVERHEAD 80

/* Transport bases of the opcode (bits 7:5). */
#define ROCE_TR_RC 0x00 /**< opcode base of reliable connected */
#define ROCE_TR_UC 0x20 /**< opcode base of unreliable connected */
#define ROCE_TR_RD 0x40 /**< opcode base of reliable datagram (not handled) */
#define ROCE_TR_UD 0x60 /**< opcode base of unreliable datagram */

/** Opcodes (RC values; UC = RC | 0x20 where the operation exists). */
enum roce_opcode {
	ROCE_OP_SEND_FIRST = 0x00,       /**< first packet of a SEND */
	ROCE_OP_SEND_MIDDLE = 0x01,      /**< middle packet of a SEND */
	ROCE_OP_SEND_LAST = 0x02,        /**< last packet of a SEND */
	ROCE_OP_SEND_LAST_IMM = 0x03,    /**< last packet of a SEND, with ImmDt */
	ROCE_OP_SEND_ONLY = 0x04,        /**< a one-packet SEND */
	ROCE_OP_SEND_ONLY_IMM = 0x05,    /**< a one-packet SEND, with ImmDt */
	ROCE_OP_WRITE_FIRST = 0x06,      /**< first packet of an RDMA WRITE */
	ROCE_OP_WRITE_MIDDLE = 0x07,     /**< middle packet of an RDMA WRITE */
	ROCE_OP_WRITE_LAST = 0x08,       /**< last packet of an RDMA WRITE */
	ROCE_OP_WRITE_LAST_IMM = 0x09,   /**< last packet of an RDMA WRITE, with ImmDt */
	ROCE_OP_WRITE_ONLY = 0x0a,       /**< a one-packet RDMA WRITE */
	ROCE_OP_WRITE_ONLY_IMM = 0x0b,   /**< a one-packet RDMA WRITE, with ImmDt */
	ROCE_OP_READ_REQUEST = 0x0c,     /**< RDMA READ request */
	ROCE_OP_READ_RESP_FIRST = 0x0d,  /**< first packet of a READ response */
	ROCE_OP_READ_RESP_MIDDLE = 0x0e, /**< middle packet of a READ response */
	ROCE_OP_READ_RESP_LAST = 0x0f,   /**< last packet of a READ response */
	ROCE_OP_READ_RESP_ONLY = 0x10,   /**< a one-packet READ response */
	ROCE_OP_ACK = 0x11,              /**< ACK or NAK */
	ROCE_OP_ATOMIC_ACK = 0x12,       /**< atomic ACK */
	ROCE_OP_CMP_SWAP = 0x13,         /**< compare and swap request */
	ROCE_OP_FETCH_ADD = 0x14,        /**< fetch and add request */
	ROCE_OP_SEND_LAST_INV = 0x16,    /**< last packet of a SEND, with IETH */
	ROCE_OP_SEND_ONLY_INV = 0x17,    /**< a one-packet SEND, with IETH */
	ROCE_OP_UD_SEND_ONLY = 0x64,     /**< UD SEND */
	ROCE_OP_UD_SEND_ONLY_IMM = 0x65, /**< UD SEND, with ImmDt */
};

/** What an opcode carries and means (bit flags of roce_opcode_info.flags). */
enum roce_op_flag {
	ROCE_OPF_VALID = 1 << 0,     /**< an opcode this engine handles */
	ROCE_OPF_REQ = 1 << 1,       /**< a request (to the responder) */
	ROCE_OPF_RESP = 1 << 2,      /**< a response (to the requester) */
	ROCE_OPF_FIRST = 1 << 3,     /**< first packet of a message */
	ROCE_OPF_MIDDLE = 1 << 4,    /**< middle packet of a message */
	ROCE_OPF_LAST = 1 << 5,      /**< ONLY is FIRST | LAST */
	ROCE_OPF_SEND = 1 << 6,      /**< SEND */
	ROCE_OPF_WRITE = 1 << 7,     /**< RDMA WRITE */
	ROCE_OPF_READ = 1 << 8,      /**< READ request or response */
	ROCE_OPF_ATOMIC = 1 << 9,    /**< CMP_SWAP, FETCH_ADD */
	ROCE_OPF_ACK = 1 << 10,      /**< ACK, ATOMIC_ACK */
	ROCE_OPF_PAYLOAD = 1 << 11,  /**< may carry payload */
	ROCE_OPF_RETH = 1 << 12,     /**< carries a RETH */
	ROCE_OPF_AETH = 1 << 13,     /**< carries an AETH */
	ROCE_OPF_ATMETH = 1 << 14,   /**< carries an AtomicETH */
	ROCE_OPF_ATMACK = 1 << 15,   /**< carries an AtomicAckETH */
	ROCE_OPF_IMM = 1 << 16,      /**< carries an ImmDt */
	ROCE_OPF_IETH = 1 << 17,     /**< carries an IETH */
	ROCE_OPF_DETH = 1 << 18,     /**< carries a DETH */
	ROCE_OPF_RECV_WQE = 1 << 19, /**< consumes a receive WQE (SEND, WRITE with imm) */
};

/** Static facts of one opcode. */
struct roce_opcode_info {
	uint32_t flags;   /**< enum roce_op_flag; 0: not handled */
	uint8_t hdr_len;  /**< BTH and extension headers */
	uint8_t reth_off; /**< offset of the RETH from the BTH start */
	uint8_t aeth_off; /**< offset of the AETH from the BTH start */
	uint8_t atm_off;  /**< offset of the AtomicETH or AtomicAckETH from the BTH start */
	uint8_t imm_off;  /**< offset of the ImmDt from the BTH start */
	uint8_t ieth_off; /**< offset of the IETH from the BTH start */
	uint8_t deth_off; /**< offset of the DETH from the BTH start */
};

/** The table, indexed by opcode. */
extern const struct roce_opcode_info roce_opcode_table[256];

/**
 * Name of an opcode ("RC SEND_ONLY", ...).
 *
 * @param opcode
 *   The BTH opcode.
 * @return
 *   The name, in a per-thread buffer the thread's next call overwrites;
 *   "?" when the opcode is unknown.
 */
const char *roce_opcode_name(uint8_t opcode);

/* AETH syndrome codes (bits 6:5 type, 4:0 value). */
#define ROCE_AETH_ACK 0x00               /**< type: ACK (value: credits) */
#define ROCE_AETH_RNR 0x20               /**< type: RNR NAK (value: RNR timer code) */
#define ROCE_AETH_NAK 0x60               /**< type: NAK (value: ROCE_NAK_*) */
#define ROCE_AETH_TYPE_MASK 0x60         /**< the type bits of a syndrome */
#define ROCE_AETH_CREDITS_UNLIMITED 0x1f /**< ACK value: no end-to-end credits */
#define ROCE_NAK_PSN_SEQ 0x00            /**< NAK value: PSN sequence error */
#define ROCE_NAK_INVALID_REQ 0x01        /**< NAK value: invalid request */
#define ROCE_NAK_REM_ACCESS 0x02         /**< NAK value: remote access error */
#define ROCE_NAK_REM_OP 0x03             /**< NAK value: remote operational error */

/** The 24 bits of a PSN. */
#define ROCE_PSN_MASK 0xffffffu

/**
 * 24-bit PSN arithmetic: @p psn advanced by @p n.
 *
 * @param psn
 *   A PSN.
 * @param n
 *   Packets to advance by.
 * @return
 *   (psn + n) modulo 2^24.
 */
static inline uint32_t
roce_psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & ROCE_PSN_MASK;
}
/**
 * Signed distance between two PSNs in the 24-bit circle.
 *
 * @param a
 *   A PSN.
 * @param b
 *   A PSN.
 * @return
 *   a - b, in -2^23 .. 2^23-1 (negative: a is before b).
 */
static inline int32_t
roce_psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

/** A parsed RoCE v2 frame. Offsets are from the start of the frame. */
struct roce_pkt {
	struct rte_mbuf *m;   /**< the frame parsed */
	uint8_t opcode;       /**< BTH opcode (enum roce_opcode, with its transport base) */
	uint8_t se;           /**< solicited event */
	uint8_t ackreq;       /**< BTH AckReq (0 or 1) */
	uint8_t padcnt;       /**< BTH pad count (0..3) */
	uint8_t ipv6;         /**< IPv6 (else IPv4) */
	uint8_t tclass;       /**< TOS / traffic class */
	uint8_t hop_limit;    /**< TTL / hop limit */
	uint8_t aeth_syn;     /**< AETH syndrome */
	uint16_t pkey;        /**< BTH P_Key */
	uint16_t vlan_id;     /**< ROCE_VLAN_NONE when untagged */
	uint16_t udp_sport;   /**< UDP source port */
	uint16_t l3_off;      /**< IP header */
	uint16_t bth_off;     /**< BTH */
	uint16_t pay_off;     /**< first payload byte */
	uint32_t qpn;         /**< destination QP */
	uint32_t psn;         /**< BTH PSN */
	uint32_t paylen;      /**< payload bytes (no pad, no ICRC) */
	uint32_t frame_len;   /**< through the ICRC (Ethernet padding excluded) */
	uint32_t aeth_msn;    /**< AETH MSN */
	uint32_t imm;         /**< ImmDt, network byte order */
	uint32_t ieth;        /**< IETH: the R_Key to invalidate */
	uint32_t qkey;        /**< DETH */
	uint32_t src_qpn;     /**< DETH */
	uint32_t rkey;        /**< RETH or AtomicETH */
	uint32_t dma_len;     /**< RETH */
	uint64_t va;          /**< RETH or AtomicETH */
	uint64_t swap_add;    /**< AtomicETH */
	uint64_t compare;     /**< AtomicETH */
	uint64_t atomic_ack;  /**< AtomicAckETH */
	uint8_t smac[6];      /**< Ethernet source address */
	uint8_t sgid[ROCE_GID_LEN]; /**< source address as a GID (IPv4: \::ffff:a.b.c.d) */
	uint8_t dgid[ROCE_GID_LEN]; /**< destination address as a GID, as sgid */
	uint8_t grh[ROCE_GRH_LEN];  /**< with a DETH: IPv6 header, or IPv4 header in the last 20 bytes */
};

/** Why a frame was refused (roce_pkt_parse()). */
enum roce_parse_result {
	ROCE_PARSE_OK = 0,     /**< accepted */
	ROCE_PARSE_NOT_ROCE,   /**< not Ethernet/IP/UDP to port 4791 */
	ROCE_PARSE_TRUNCATED,  /**< too short for its own headers or lengths */
	ROCE_PARSE_BAD_HEADER, /**< bad IP version/IHL/fragment, TVer, opcode or pad */
	ROCE_PARSE_BAD_ICRC,   /**< ICRC mismatch (when checked) */
};

/**
 * Parse a frame: Ethernet (optional 802.1Q) / IPv4 or IPv6 / UDP 4791 /
 * BTH / extension headers / payload / pad / ICRC.
 *
 * @param m
 *   The frame (any segmentation).
 * @param[out] pkt
 *   The fields.
 * @param check_icrc
 *   Verify the ICRC.
 * @return
 *   ROCE_PARSE_OK or the reason for refusing it.
 */
enum roce_parse_result roce_pkt_parse(struct rte_mbuf *m, struct roce_pkt *pkt, bool check_icrc);

/**
 * Verify the ICRC of a frame roce_pkt_parse() accepted without checking it.
 *
 * @param m
 *   The frame.
 * @param pkt
 *   Its parsed fields.
 * @return
 *   true when the ICRC matches.
 */
bool roce_pkt_icrc_ok(const struct rte_mbuf *m, const struct roce_pkt *pkt);

/**
 * The ICRC of a frame, as rxe computes it: CRC-32 over 8 bytes of 0xff,
 * the IP header with TOS/TTL/checksum (IPv4) or class/flow/hop limit (IPv6)
 * set to ones, the UDP header with its checksum set to ones, the BTH with
 * byte 4 set to ones, and everything after it up to the ICRC.
 *
 * @param m
 *   The frame.
 * @param l3_off
 *   Offset of the IP header.
 * @param ipv6
 *   IPv6 (else IPv4).
 * @param icrc_off
 *   Offset of the ICRC (the end of what it covers).
 * @return
 *   The ICRC as a number; it is stored little-endian on the wire.
 */
uint32_t roce_icrc(const struct rte_mbuf *m, uint32_t l3_off, bool ipv6, uint32_t icrc_off);

/**
 * ICRC state after the headers it covers (IP, UDP, BTH, masked as
 * roce_icrc() says), to be continued with roce_crc32() over everything
 * after the BTH.
 *
 * @param l3
 *   The IP header, with the UDP header and the BTH after it, contiguous.
 * @param ipv6
 *   IPv6 (else IPv4).
 * @return
 *   The CRC state, to pass to roce_crc32().
 */
uint32_t roce_icrc_begin(const uint8_t *l3, bool ipv6);

/**
 * CRC-32 (IEEE 802.3) continued over @p len bytes from state @p crc.
 *
 * @param crc
 *   The state so far (0 to start).
 * @param buf
 *   The bytes.
 * @param len
 *   How many.
 * @return
 *   The new state (the CRC of everything so far).
 */
uint32_t roce_crc32(uint32_t crc, const void *buf, size_t len);

/** What a frame to build carries (roce_pkt_build_headers()). */
struct roce_hdr_desc {
	const uint8_t *smac;    /**< Ethernet source address (6 bytes) */
	const uint8_t *dmac;    /**< Ethernet destination address (6 bytes) */
	uint16_t vlan_id;       /**< ROCE_VLAN_NONE: untagged */
	const uint8_t *sgid;    /**< source GID: the IP source address */
	const uint8_t *dgid;    /**< destination GID; IPv4-mapped makes the frame IPv4 */
	uint8_t tclass;         /**< TOS / traffic class; its top 3 bits are the VLAN PCP */
	uint8_t hop_limit;      /**< TTL / hop limit; 0: 64 */
	uint32_t flow_label;    /**< IPv6 flow label (20 bits) */
	uint16_t ip_id;         /**< IPv4 identification */
	uint16_t udp_sport;     /**< UDP source port */
	uint8_t opcode;         /**< BTH opcode */
	uint8_t se;             /**< BTH solicited event: non-zero sets it */
	uint8_t ackreq;         /**< BTH AckReq: non-zero sets it */
	uint16_t pkey;          /**< BTH P_Key */
	uint32_t dest_qpn;      /**< BTH destination QP */
	uint32_t psn;           /**< BTH PSN */
	uint32_t paylen;        /**< payload bytes that will follow (pad derived) */
	/* extension headers, as the opcode needs them */
	uint64_t va;            /**< RETH or AtomicETH virtual address */
	uint32_t rkey;          /**< RETH or AtomicETH R_Key */
	uint32_t dma_len;       /**< RETH DMA length */
	uint8_t aeth_syn;       /**< AETH syndrome */
	uint32_t msn;           /**< AETH MSN */
	uint64_t swap_add;      /**< AtomicETH swap or add operand */
	uint64_t compare;       /**< AtomicETH compare operand */
	uint64_t atomic_ack;    /**< AtomicAckETH original remote data */
	uint32_t imm;           /**< network byte order */
	uint32_t qkey;          /**< DETH Q_Key */
	uint32_t src_qpn;       /**< DETH source QP */
};

/**
 * Bytes of headers roce_pkt_build_headers() writes for @p d.
 *
 * @param d
 *   The frame to build.
 * @return
 *   Ethernet (and VLAN) through the last extension header, in bytes.
 */
uint32_t roce_hdr_len(const struct roce_hdr_desc *d);

/**
 * Write the headers of a frame at @p buf (roce_hdr_len() bytes). The IPv4
 * checksum and the IP/UDP lengths already count paylen, pad and ICRC.
 *
 * @param[out] buf
 *   Where the frame starts; roce_hdr_len() bytes are written.
 * @param d
 *   What the frame carries.
 * @return
 *   Offset of the IP header.
 */
uint32_t roce_pkt_build_headers(uint8_t *buf, const struct roce_hdr_desc *d);

/**
 * Finish a frame whose headers and payload are in @p m: append the pad and
 * the ICRC.
 *
 * @param m
 *   The frame; its last segment needs room for the pad and the ICRC.
 * @param crc
 *   ICRC state over the frame so far: roce_icrc_begin() continued with
 *   roce_crc32() over what follows the BTH (the builder runs it over the
 *   payload while the payload is still in cache).
 * @param padcnt
 *   Pad bytes, 0..3.
 * @return
 *   0, or -ENOMEM when the last segment has no room.
 */
int roce_pkt_finish(struct rte_mbuf *m, uint32_t crc, uint8_t padcnt);

/**
 * Tell whether a GID is an IPv4-mapped address (\::ffff:a.b.c.d).
 *
 * @param gid
 *   The GID (ROCE_GID_LEN bytes).
 * @return
 *   true when @p gid is IPv4-mapped.
 */
static inline bool
roce_gid_is_v4(const uint8_t *gid)
{
	static const uint8_t prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	unsigned int i;

	for (i = 0; i < 12; i++)
		if (gid[i] != prefix[i])
			return false;
	return true;
}

/**
 * UDP source port of a UD or GSI QP: 0xC000 + a 14-bit hash of its QPN (as rxe).
 *
 * @param qpn
 *   The QP's number.
 * @return
 *   The port, in 0xC000..0xFFFF.
 */
static inline uint16_t
roce_udp_sport_ud(uint32_t qpn)
{
	return (uint16_t)(0xc000 | ((qpn * 0x61c88647u) >> (32 - 14)));
}

/**
 * UDP source port of a connected QP, as rxe: from the flow label of the
 * path, or when that is 0 from one derived from both QPNs (so both ends
 * use the same port). Checked against the rxe capture in the tests.
 *
 * @param flow_label
 *   The path's flow label (low 20 bits used).
 * @param lqpn
 *   The local QP's number.
 * @param rqpn
 *   The remote QP's number.
 * @return
 *   The port, in 0xC000..0xFFFF.
 */
static inline uint16_t
roce_udp_sport_rc(uint32_t flow_label, uint32_t lqpn, uint32_t rqpn)
{
	uint32_t fl = flow_label & 0xfffff;

	if (fl == 0) {
		uint64_t v = (uint64_t)lqpn * rqpn;

		v ^= v >> 20;
		v ^= v >> 40;
		fl = (uint32_t)v & 0xfffff;
	}
	return (uint16_t)(0xc000 | ((fl & 0x3fff) ^ (fl >> 14)));
}

#ifdef __cplusplus
}
#endif

#endif /* _ROCE_WIRE_H_ */
