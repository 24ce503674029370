/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _OPA16B_FM_H_
#define _OPA16B_FM_H_

/**
 * @file
 * OPA 16B management (FM) packets: L4 type 0x08, used to carry MADs.
 *
 * Layout: the 16-byte LRH (opa16b.h) with L4 = 0x08; an 8-byte FM L4 header
 * (destination QPN and source QPN, each a big-endian 32-bit word of which
 * the low 24 bits are used); the MAD; a fixed 3-byte pad; the 4-byte ICRC
 * placeholder; the tail byte (pad count). MADs are a whole number of
 * quadwords (256 or 2048 bytes), so the 3-byte pad always completes the last
 * quadword. Pure C over bytes: no EAL needed.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** FM L4 header bytes (two QPN words). */
#define OPA16B_FM_L4_HDR_LEN 8
/** LRH + FM L4 header. */
#define OPA16B_FM_HDR_LEN 24
/** The fixed pad between MAD and ICRC. */
#define OPA16B_FM_PAD 3
/** Bytes besides the MAD. */
#define OPA16B_FM_OVERHEAD (OPA16B_FM_HDR_LEN + OPA16B_FM_PAD + 5)
/** Size of an OPA management datagram. */
#define OPA16B_FM_MAD_MAX 2048
/** Largest QPN. */
#define OPA16B_QPN_MAX 0xFFFFFFu
/** The general services QP, where management agents listen. */
#define OPA16B_QPN_GSI 1

/** Header fields of an FM packet. */
struct opa16b_fm_fields {
	uint32_t slid;      /**< source LID, 24 bits */
	uint32_t dlid;      /**< destination LID, 24 bits */
	uint16_t pkey;      /**< P_Key */
	uint16_t entropy;   /**< entropy */
	uint8_t sc;         /**< service class, 5 bits */
	uint8_t rc;         /**< routing control, 3 bits */
	uint32_t dest_qpn;  /**< destination QP, 24 bits */
	uint32_t src_qpn;   /**< source QP, 24 bits */
};

/** Why a received FM packet was refused. */
enum opa16b_fm_err {
	OPA16B_FM_OK = 0,        /**< accepted */
	OPA16B_FM_TRUNCATED,     /**< shorter than headers, pad, ICRC and tail */
	OPA16B_FM_BAD_L2,        /**< L2 type is not 16B */
	OPA16B_FM_BAD_L4,        /**< L4 type is not FM (0x08) */
	OPA16B_FM_BAD_LENGTH,    /**< Length differs from the buffer, or MAD over 2048 B */
	OPA16B_FM_BAD_PAD,       /**< tail pad count is not the fixed 3 */
	OPA16B_FM_ERR_MAX        /**< number of reasons (not a reason) */
};

/** A parsed FM packet. */
struct opa16b_fm_info {
	struct opa16b_fm_fields f; /**< header fields (QPNs masked to 24 bits) */
	const uint8_t *mad;        /**< the MAD, inside the parsed buffer */
	size_t mad_len;            /**< its length */
};

/**
 * Name of an FM rejection reason.
 *
 * @param err
 *   A reason.
 * @return
 *   A constant string; "unknown" for values out of range.
 */
const char *opa16b_fm_err_name(enum opa16b_fm_err err);

/**
 * Build an FM packet carrying a MAD.
 *
 * @param buf
 *   Output buffer.
 * @param cap
 *   Its size.
 * @param f
 *   Header fields, masked to their widths.
 * @param mad
 *   The MAD.
 * @param mad_len
 *   Its length: a non-zero multiple of 8, at most OPA16B_FM_MAD_MAX.
 * @return
 *   The packet length (mad_len + OPA16B_FM_OVERHEAD), or -EINVAL for a bad
 *   MAD length, or -ENOSPC if @p cap is too small (nothing written).
 */
int opa16b_fm_build(void *buf, size_t cap, const struct opa16b_fm_fields *f,
		    const void *mad, size_t mad_len);

/**
 * Parse and validate an FM packet. Reads nothing outside [pkt, pkt + len).
 *
 * @param pkt
 *   The packet, header to tail.
 * @param len
 *   Its length.
 * @param info
 *   Filled on success.
 * @return
 *   OPA16B_FM_OK or the reason of the rejection.
 */
enum opa16b_fm_err opa16b_fm_parse(const void *pkt, size_t len, struct opa16b_fm_info *info);

#ifdef __cplusplus
}
#endif

#endif /* _OPA16B_FM_H_ */
