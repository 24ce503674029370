/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _ROCE_HDR_H_
#define _ROCE_HDR_H_

/**
 * @file
 * Named fields of the IBA transport headers RoCE v2 carries after UDP: the
 * BTH and the extension headers (RETH, AETH, DETH, IETH, ImmDt, AtomicETH,
 * AtomicAckETH). One getter (and setter) per field over a pointer to the
 * header's first byte, at any alignment, big-endian through omni_bytes.h;
 * the offsets below are IBA's (facts, roce-vhost.md section 2.3). Where
 * a header sits in a frame is the opcode's (roce_opcode_table).
 */

#include <stdint.h>
#include <string.h>

#include <omni_bytes.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Header lengths (IBA). */
#define ROCE_BTH_LEN 12     /**< bytes of the BTH (base transport header) */
#define ROCE_DETH_LEN 8     /**< bytes of the DETH (datagram extended transport header) */
#define ROCE_RETH_LEN 16    /**< bytes of the RETH (RDMA extended transport header) */
#define ROCE_AETH_LEN 4     /**< bytes of the AETH (ACK extended transport header) */
#define ROCE_ATMETH_LEN 28  /**< bytes of the AtomicETH (atomic extended transport header) */
#define ROCE_ATMACK_LEN 8   /**< bytes of the AtomicAckETH (atomic ACK extended header) */
#define ROCE_IMMDT_LEN 4    /**< bytes of the ImmDt (immediate data) */
#define ROCE_IETH_LEN 4     /**< bytes of the IETH (invalidate extended transport header) */
#define ROCE_ICRC_LEN 4     /**< bytes of the ICRC (invariant CRC) that ends a frame */

/*
 * BTH, 12 bytes:
 *   0 OpCode | 1 SE:1 M:1 PadCnt:2 TVer:4 | 2-3 P_Key | 4 FECN:1 BECN:1 Resv6:6 |
 *   5-7 DestQP | 8 AckReq:1 Resv7:7 | 9-11 PSN
 */
#define ROCE_BTH_OPCODE 0   /**< offset of the opcode */
#define ROCE_BTH_FLAGS 1    /**< SE, MigReq, PadCnt, TVer */
#define ROCE_BTH_PKEY 2     /**< offset of the P_Key (16 bits) */
#define ROCE_BTH_FECN 4     /**< FECN, BECN, Resv6: ones in the ICRC */
#define ROCE_BTH_QPN 5      /**< offset of the destination QP (24 bits) */
#define ROCE_BTH_ACKREQ 8   /**< offset of the byte of AckReq and Resv7 */
#define ROCE_BTH_PSN 9      /**< offset of the PSN (24 bits) */

#define ROCE_BTH_SE_BIT 0x80     /**< solicited event, in byte ROCE_BTH_FLAGS */
#define ROCE_BTH_MIG_BIT 0x40    /**< migration request, in byte ROCE_BTH_FLAGS */
#define ROCE_BTH_PAD_SHIFT 4     /**< shift of the pad count in byte ROCE_BTH_FLAGS */
#define ROCE_BTH_PAD_MASK 0x30   /**< pad count, in byte ROCE_BTH_FLAGS */
#define ROCE_BTH_TVER_MASK 0x0f  /**< transport header version, in byte ROCE_BTH_FLAGS */
#define ROCE_BTH_ACKREQ_BIT 0x80 /**< AckReq, in byte ROCE_BTH_ACKREQ */

/**
 * @param bth
 *   The BTH's first byte.
 * @return
 *   The opcode.
 */
static inline uint8_t
roce_bth_opcode(const uint8_t *bth)
{
	return bth[ROCE_BTH_OPCODE];
}

/**
 * @param bth
 *   The BTH's first byte.
 * @return
 *   The solicited event bit (0 or 1).
 */
static inline uint8_t
roce_bth_se(const uint8_t *bth)
{
	return bth[ROCE_BTH_FLAGS] >> 7;
}

/**
 * @param bth
 *   The BTH's first byte.
 * @return
 *   The migration request bit (0 or 1).
 */
static inline uint8_t
roce_bth_mig(const uint8_t *bth)
{
	return (bth[ROCE_BTH_FLAGS] & ROCE_BTH_MIG_BIT) >> 6;
}

/**
 * @param bth
 *   The BTH's first byte.
 * @return
 *   The pad count (0..3).
 */
static inline uint8_t
roce_bth_pad(const uint8_t *bth)
{
	return (bth[ROCE_BTH_FLAGS] & ROCE_BTH_PAD_MASK) >> ROCE_BTH_PAD_SHIFT;
}

/**
 * @param bth
 *   The BTH's first byte.
 * @return
 *   The transport header version (0 for IBA 1.x).
 */
static inline uint8_t
roce_bth_tver(const uint8_t *bth)
{
	return bth[ROCE_BTH_FLAGS] & ROCE_BTH_TVER_MASK;
}

/**
 * @param bth
 *   The BTH's first byte.
 * @return
 *   The partition key.
 */
static inline uint16_t
roce_bth_pkey(const uint8_t *bth)
{
	return omni_get_be16(bth + ROCE_BTH_PKEY);
}

/**
 * @param bth
 *   The BTH's first byte.
 * @return
 *   The destination QP number (24 bits).
 */
static inline uint32_t
roce_bth_qpn(const uint8_t *bth)
{
	return omni_get_be24(bth + ROCE_BTH_QPN);
}

/**
 * @param bth
 *   The BTH's first byte.
 * @return
 *   The AckReq bit (0 or 1).
 */
static inline uint8_t
roce_bth_ackreq(const uint8_t *bth)
{
	return bth[ROCE_BTH_ACKREQ] >> 7;
}

/**
 * @param bth
 *   The BTH's first byte.
 * @return
 *   The packet sequence number (24 bits).
 */
static inline uint32_t
roce_bth_psn(const uint8_t *bth)
{
	return omni_get_be24(bth + ROCE_BTH_PSN);
}

/**
 * Set the opcode.
 *
 * @param bth
 *   The BTH's first byte.
 * @param opcode
 *   The opcode.
 */
static inline void
roce_bth_set_opcode(uint8_t *bth, uint8_t opcode)
{
	bth[ROCE_BTH_OPCODE] = opcode;
}

/**
 * Set SE and PadCnt; MigReq and TVer become 0.
 *
 * @param bth
 *   The BTH's first byte.
 * @param se
 *   Solicited event: non-zero sets it.
 * @param pad
 *   Pad count (0..3; higher bits are dropped).
 */
static inline void
roce_bth_set_flags(uint8_t *bth, uint8_t se, uint8_t pad)
{
	bth[ROCE_BTH_FLAGS] = (uint8_t)((se ? ROCE_BTH_SE_BIT : 0) |
					(pad << ROCE_BTH_PAD_SHIFT & ROCE_BTH_PAD_MASK));
}

/**
 * Set the P_Key.
 *
 * @param bth
 *   The BTH's first byte.
 * @param pkey
 *   The partition key.
 */
static inline void
roce_bth_set_pkey(uint8_t *bth, uint16_t pkey)
{
	omni_put_be16(bth + ROCE_BTH_PKEY, pkey);
}

/**
 * Set the destination QP (low 24 bits of @p qpn); byte 4 (FECN, BECN) is left alone.
 *
 * @param bth
 *   The BTH's first byte.
 * @param qpn
 *   The QP number.
 */
static inline void
roce_bth_set_qpn(uint8_t *bth, uint32_t qpn)
{
	omni_put_be24(bth + ROCE_BTH_QPN, qpn);
}

/**
 * Set AckReq; the reserved bits after it become 0.
 *
 * @param bth
 *   The BTH's first byte.
 * @param ackreq
 *   Non-zero sets AckReq.
 */
static inline void
roce_bth_set_ackreq(uint8_t *bth, uint8_t ackreq)
{
	bth[ROCE_BTH_ACKREQ] = ackreq ? ROCE_BTH_ACKREQ_BIT : 0;
}

/**
 * Set the PSN (low 24 bits of @p psn).
 *
 * @param bth
 *   The BTH's first byte.
 * @param psn
 *   The PSN.
 */
static inline void
roce_bth_set_psn(uint8_t *bth, uint32_t psn)
{
	omni_put_be24(bth + ROCE_BTH_PSN, psn);
}

/**
 * Write a whole BTH, every byte (FECN, BECN, MigReq, TVer and the reserved
 * bits as zeros), so that no earlier memset() is needed.
 *
 * @param bth
 *   The BTH's first byte (ROCE_BTH_LEN bytes are written).
 * @param opcode
 *   The opcode.
 * @param se
 *   Solicited event: non-zero sets it.
 * @param pad
 *   Pad count (0..3).
 * @param pkey
 *   The partition key.
 * @param qpn
 *   The destination QP (low 24 bits).
 * @param ackreq
 *   Non-zero sets AckReq.
 * @param psn
 *   The PSN (low 24 bits).
 */
static inline void
roce_bth_init(uint8_t *bth, uint8_t opcode, uint8_t se, uint8_t pad, uint16_t pkey,
	      uint32_t qpn, uint8_t ackreq, uint32_t psn)
{
	roce_bth_set_opcode(bth, opcode);
	roce_bth_set_flags(bth, se, pad);
	roce_bth_set_pkey(bth, pkey);
	bth[ROCE_BTH_FECN] = 0;
	roce_bth_set_qpn(bth, qpn);
	roce_bth_set_ackreq(bth, ackreq);
	roce_bth_set_psn(bth, psn);
}

/* RETH, 16 bytes: 0-7 VA | 8-11 R_Key | 12-15 DMA length */
#define ROCE_RETH_VA 0       /**< RETH offset of the virtual address */
#define ROCE_RETH_RKEY 8     /**< RETH offset of the R_Key */
#define ROCE_RETH_LEN_OFF 12 /**< RETH offset of the DMA length */

/**
 * @param reth
 *   The RETH's first byte.
 * @return
 *   The virtual address (64 bits).
 */
static inline uint64_t
roce_reth_va(const uint8_t *reth)
{
	return omni_get_be64(reth + ROCE_RETH_VA);
}

/**
 * @param reth
 *   The RETH's first byte.
 * @return
 *   The R_Key.
 */
static inline uint32_t
roce_reth_rkey(const uint8_t *reth)
{
	return omni_get_be32(reth + ROCE_RETH_RKEY);
}

/**
 * @param reth
 *   The RETH's first byte.
 * @return
 *   The DMA length, in bytes.
 */
static inline uint32_t
roce_reth_len(const uint8_t *reth)
{
	return omni_get_be32(reth + ROCE_RETH_LEN_OFF);
}

/**
 * Set the virtual address.
 *
 * @param reth
 *   The RETH's first byte.
 * @param va
 *   The address.
 */
static inline void
roce_reth_set_va(uint8_t *reth, uint64_t va)
{
	omni_put_be64(reth + ROCE_RETH_VA, va);
}

/**
 * Set the R_Key.
 *
 * @param reth
 *   The RETH's first byte.
 * @param rkey
 *   The R_Key.
 */
static inline void
roce_reth_set_rkey(uint8_t *reth, uint32_t rkey)
{
	omni_put_be32(reth + ROCE_RETH_RKEY, rkey);
}

/**
 * Set the DMA length.
 *
 * @param reth
 *   The RETH's first byte.
 * @param len
 *   The length, in bytes.
 */
static inline void
roce_reth_set_len(uint8_t *reth, uint32_t len)
{
	omni_put_be32(reth + ROCE_RETH_LEN_OFF, len);
}

/* AETH, 4 bytes: 0 Syndrome | 1-3 MSN */
#define ROCE_AETH_SYN 0 /**< AETH offset of the syndrome */
#define ROCE_AETH_MSN 1 /**< AETH offset of the MSN (24 bits) */

/**
 * @param aeth
 *   The AETH's first byte.
 * @return
 *   The syndrome (ROCE_AETH_* type and value).
 */
static inline uint8_t
roce_aeth_syn(const uint8_t *aeth)
{
	return aeth[ROCE_AETH_SYN];
}

/**
 * @param aeth
 *   The AETH's first byte.
 * @return
 *   The message sequence number (24 bits).
 */
static inline uint32_t
roce_aeth_msn(const uint8_t *aeth)
{
	return omni_get_be24(aeth + ROCE_AETH_MSN);
}

/**
 * Set the syndrome.
 *
 * @param aeth
 *   The AETH's first byte.
 * @param syn
 *   The syndrome (ROCE_AETH_* type and value).
 */
static inline void
roce_aeth_set_syn(uint8_t *aeth, uint8_t syn)
{
	aeth[ROCE_AETH_SYN] = syn;
}

/**
 * Set the MSN (low 24 bits of @p msn).
 *
 * @param aeth
 *   The AETH's first byte.
 * @param msn
 *   The MSN.
 */
static inline void
roce_aeth_set_msn(uint8_t *aeth, uint32_t msn)
{
	omni_put_be24(aeth + ROCE_AETH_MSN, msn);
}

/* AtomicETH, 28 bytes: 0-7 VA | 8-11 R_Key | 12-19 Swap or Add | 20-27 Compare */
#define ROCE_ATMETH_VA 0        /**< AtomicETH offset of the virtual address */
#define ROCE_ATMETH_RKEY 8      /**< AtomicETH offset of the R_Key */
#define ROCE_ATMETH_SWAP_ADD 12 /**< AtomicETH offset of the swap or add operand */
#define ROCE_ATMETH_COMPARE 20  /**< AtomicETH offset of the compare operand */

/**
 * @param atm
 *   The AtomicETH's first byte.
 * @return
 *   The virtual address (64 bits).
 */
static inline uint64_t
roce_atmeth_va(const uint8_t *atm)
{
	return omni_get_be64(atm + ROCE_ATMETH_VA);
}

/**
 * @param atm
 *   The AtomicETH's first byte.
 * @return
 *   The R_Key.
 */
static inline uint32_t
roce_atmeth_rkey(const uint8_t *atm)
{
	return omni_get_be32(atm + ROCE_ATMETH_RKEY);
}

/**
 * @param atm
 *   The AtomicETH's first byte.
 * @return
 *   The swap (CMP_SWAP) or add (FETCH_ADD) operand.
 */
static inline uint64_t
roce_atmeth_swap_add(const uint8_t *atm)
{
	return omni_get_be64(atm + ROCE_ATMETH_SWAP_ADD);
}

/**
 * @param atm
 *   The AtomicETH's first byte.
 * @return
 *   The compare operand (CMP_SWAP).
 */
static inline uint64_t
roce_atmeth_compare(const uint8_t *atm)
{
	return omni_get_be64(atm + ROCE_ATMETH_COMPARE);
}

/**
 * Set the virtual address.
 *
 * @param atm
 *   The AtomicETH's first byte.
 * @param va
 *   The address.
 */
static inline void
roce_atmeth_set_va(uint8_t *atm, uint64_t va)
{
	omni_put_be64(atm + ROCE_ATMETH_VA, va);
}

/**
 * Set the R_Key.
 *
 * @param atm
 *   The AtomicETH's first byte.
 * @param rkey
 *   The R_Key.
 */
static inline void
roce_atmeth_set_rkey(uint8_t *atm, uint32_t rkey)
{
	omni_put_be32(atm + ROCE_ATMETH_RKEY, rkey);
}

/**
 * Set the swap or add operand.
 *
 * @param atm
 *   The AtomicETH's first byte.
 * @param v
 *   The operand.
 */
static inline void
roce_atmeth_set_swap_add(uint8_t *atm, uint64_t v)
{
	omni_put_be64(atm + ROCE_ATMETH_SWAP_ADD, v);
}

/**
 * Set the compare operand.
 *
 * @param atm
 *   The AtomicETH's first byte.
 * @param v
 *   The operand.
 */
static inline void
roce_atmeth_set_compare(uint8_t *atm, uint64_t v)
{
	omni_put_be64(atm + ROCE_ATMETH_COMPARE, v);
}

/* AtomicAckETH, 8 bytes: the original remote data */

/**
 * @param ack
 *   The AtomicAckETH's first byte.
 * @return
 *   The original remote data.
 */
static inline uint64_t
roce_atmack_orig(const uint8_t *ack)
{
	return omni_get_be64(ack);
}

/**
 * Set the original remote data.
 *
 * @param ack
 *   The AtomicAckETH's first byte.
 * @param orig
 *   The data.
 */
static inline void
roce_atmack_set_orig(uint8_t *ack, uint64_t orig)
{
	omni_put_be64(ack, orig);
}

/*
 * ImmDt, 4 bytes. The verbs hand immediate data over in network byte order
 * (struct roce_wc.imm_data), so these move the bytes as they are.
 */

/**
 * @param immdt
 *   The ImmDt's first byte.
 * @return
 *   The immediate data, in network byte order.
 */
static inline uint32_t
roce_immdt_imm(const uint8_t *immdt)
{
	uint32_t v;

	memcpy(&v, immdt, sizeof(v));
	return v;
}

/**
 * Store @p imm, already in network byte order.
 *
 * @param immdt
 *   The ImmDt's first byte.
 * @param imm
 *   The immediate data.
 */
static inline void
roce_immdt_set_imm(uint8_t *immdt, uint32_t imm)
{
	memcpy(immdt, &imm, sizeof(imm));
}

/* IETH, 4 bytes: the R_Key to invalidate */

/**
 * @param ieth
 *   The IETH's first byte.
 * @return
 *   The R_Key to invalidate.
 */
static inline uint32_t
roce_ieth_rkey(const uint8_t *ieth)
{
	return omni_get_be32(ieth);
}

/**
 * Set the R_Key to invalidate.
 *
 * @param ieth
 *   The IETH's first byte.
 * @param rkey
 *   The R_Key.
 */
static inline void
roce_ieth_set_rkey(uint8_t *ieth, uint32_t rkey)
{
	omni_put_be32(ieth, rkey);
}

/* DETH, 8 bytes: 0-3 Q_Key | 4 reserved | 5-7 source QP */
#define ROCE_DETH_QKEY 0 /**< DETH offset of the Q_Key */
#define ROCE_DETH_RESV 4 /**< DETH offset of the reserved byte */
#define ROCE_DETH_SQP 5  /**< DETH offset of the source QP (24 bits) */

/**
 * @param deth
 *   The DETH's first byte.
 * @return
 *   The Q_Key.
 */
static inline uint32_t
roce_deth_qkey(const uint8_t *deth)
{
	return omni_get_be32(deth + ROCE_DETH_QKEY);
}

/**
 * @param deth
 *   The DETH's first byte.
 * @return
 *   The source QP number (24 bits).
 */
static inline uint32_t
roce_deth_sqp(const uint8_t *deth)
{
	return omni_get_be24(deth + ROCE_DETH_SQP);
}

/**
 * Set the Q_Key.
 *
 * @param deth
 *   The DETH's first byte.
 * @param qkey
 *   The Q_Key.
 */
static inline void
roce_deth_set_qkey(uint8_t *deth, uint32_t qkey)
{
	omni_put_be32(deth + ROCE_DETH_QKEY, qkey);
}

/**
 * Set the source QP (low 24 bits of @p sqp) and the reserved byte before it to 0.
 *
 * @param deth
 *   The DETH's first byte.
 * @param sqp
 *   The source QP number.
 */
static inline void
roce_deth_set_sqp(uint8_t *deth, uint32_t sqp)
{
	deth[ROCE_DETH_RESV] = 0;
	omni_put_be24(deth + ROCE_DETH_SQP, sqp);
}

#ifdef __cplusplus
}
#endif

#endif /* _ROCE_HDR_H_ */
