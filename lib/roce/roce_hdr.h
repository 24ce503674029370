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

/** Header lengths (IBA). */
#define ROCE_BTH_LEN 12
#define ROCE_DETH_LEN 8
#define ROCE_RETH_LEN 16
#define ROCE_AETH_LEN 4
#define ROCE_ATMETH_LEN 28
#define ROCE_ATMACK_LEN 8
#define ROCE_IMMDT_LEN 4
#define ROCE_IETH_LEN 4
#define ROCE_ICRC_LEN 4

/*
 * BTH, 12 bytes:
 *   0 OpCode | 1 SE:1 M:1 PadCnt:2 TVer:4 | 2-3 P_Key | 4 FECN:1 BECN:1 Resv6:6 |
 *   5-7 DestQP | 8 AckReq:1 Resv7:7 | 9-11 PSN
 */
#define ROCE_BTH_OPCODE 0
#define ROCE_BTH_FLAGS 1    /**< SE, MigReq, PadCnt, TVer */
#define ROCE_BTH_PKEY 2
#define ROCE_BTH_FECN 4     /**< FECN, BECN, Resv6: ones in the ICRC */
#define ROCE_BTH_QPN 5
#define ROCE_BTH_ACKREQ 8
#define ROCE_BTH_PSN 9

#define ROCE_BTH_SE_BIT 0x80
#define ROCE_BTH_MIG_BIT 0x40
#define ROCE_BTH_PAD_SHIFT 4
#define ROCE_BTH_PAD_MASK 0x30
#define ROCE_BTH_TVER_MASK 0x0f
#define ROCE_BTH_ACKREQ_BIT 0x80

/** @return the opcode. */
static inline uint8_t
roce_bth_opcode(const uint8_t *bth)
{
	return bth[ROCE_BTH_OPCODE];
}

/** @return the solicited event bit (0 or 1). */
static inline uint8_t
roce_bth_se(const uint8_t *bth)
{
	return bth[ROCE_BTH_FLAGS] >> 7;
}

/** @return the migration request bit (0 or 1). */
static inline uint8_t
roce_bth_mig(const uint8_t *bth)
{
	return (bth[ROCE_BTH_FLAGS] & ROCE_BTH_MIG_BIT) >> 6;
}

/** @return the pad count (0..3). */
static inline uint8_t
roce_bth_pad(const uint8_t *bth)
{
	return (bth[ROCE_BTH_FLAGS] & ROCE_BTH_PAD_MASK) >> ROCE_BTH_PAD_SHIFT;
}

/** @return the transport header version (0 for IBA 1.x). */
static inline uint8_t
roce_bth_tver(const uint8_t *bth)
{
	return bth[ROCE_BTH_FLAGS] & ROCE_BTH_TVER_MASK;
}

/** @return the partition key. */
static inline uint16_t
roce_bth_pkey(const uint8_t *bth)
{
	return omni_get_be16(bth + ROCE_BTH_PKEY);
}

/** @return the destination QP number (24 bits). */
static inline uint32_t
roce_bth_qpn(const uint8_t *bth)
{
	return omni_get_be24(bth + ROCE_BTH_QPN);
}

/** @return the AckReq bit (0 or 1). */
static inline uint8_t
roce_bth_ackreq(const uint8_t *bth)
{
	return bth[ROCE_BTH_ACKREQ] >> 7;
}

/** @return the packet sequence number (24 bits). */
static inline uint32_t
roce_bth_psn(const uint8_t *bth)
{
	return omni_get_be24(bth + ROCE_BTH_PSN);
}

static inline void
roce_bth_set_opcode(uint8_t *bth, uint8_t opcode)
{
	bth[ROCE_BTH_OPCODE] = opcode;
}

/** Set SE and PadCnt; MigReq and TVer become 0. */
static inline void
roce_bth_set_flags(uint8_t *bth, uint8_t se, uint8_t pad)
{
	bth[ROCE_BTH_FLAGS] = (uint8_t)((se ? ROCE_BTH_SE_BIT : 0) |
					(pad << ROCE_BTH_PAD_SHIFT & ROCE_BTH_PAD_MASK));
}

static inline void
roce_bth_set_pkey(uint8_t *bth, uint16_t pkey)
{
	omni_put_be16(bth + ROCE_BTH_PKEY, pkey);
}

/** Set the destination QP (low 24 bits of @p qpn); byte 4 (FECN, BECN) is left alone. */
static inline void
roce_bth_set_qpn(uint8_t *bth, uint32_t qpn)
{
	omni_put_be24(bth + ROCE_BTH_QPN, qpn);
}

/** Set AckReq; the reserved bits after it become 0. */
static inline void
roce_bth_set_ackreq(uint8_t *bth, uint8_t ackreq)
{
	bth[ROCE_BTH_ACKREQ] = ackreq ? ROCE_BTH_ACKREQ_BIT : 0;
}

/** Set the PSN (low 24 bits of @p psn). */
static inline void
roce_bth_set_psn(uint8_t *bth, uint32_t psn)
{
	omni_put_be24(bth + ROCE_BTH_PSN, psn);
}

/**
 * Write a whole BTH, every byte (FECN, BECN, MigReq, TVer and the reserved
 * bits as zeros), so that no earlier memset() is needed.
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
#define ROCE_RETH_VA 0
#define ROCE_RETH_RKEY 8
#define ROCE_RETH_LEN_OFF 12

static inline uint64_t
roce_reth_va(const uint8_t *reth)
{
	return omni_get_be64(reth + ROCE_RETH_VA);
}

static inline uint32_t
roce_reth_rkey(const uint8_t *reth)
{
	return omni_get_be32(reth + ROCE_RETH_RKEY);
}

static inline uint32_t
roce_reth_len(const uint8_t *reth)
{
	return omni_get_be32(reth + ROCE_RETH_LEN_OFF);
}

static inline void
roce_reth_set_va(uint8_t *reth, uint64_t va)
{
	omni_put_be64(reth + ROCE_RETH_VA, va);
}

static inline void
roce_reth_set_rkey(uint8_t *reth, uint32_t rkey)
{
	omni_put_be32(reth + ROCE_RETH_RKEY, rkey);
}

static inline void
roce_reth_set_len(uint8_t *reth, uint32_t len)
{
	omni_put_be32(reth + ROCE_RETH_LEN_OFF, len);
}

/* AETH, 4 bytes: 0 Syndrome | 1-3 MSN */
#define ROCE_AETH_SYN 0
#define ROCE_AETH_MSN 1

static inline uint8_t
roce_aeth_syn(const uint8_t *aeth)
{
	return aeth[ROCE_AETH_SYN];
}

static inline uint32_t
roce_aeth_msn(const uint8_t *aeth)
{
	return omni_get_be24(aeth + ROCE_AETH_MSN);
}

static inline void
roce_aeth_set_syn(uint8_t *aeth, uint8_t syn)
{
	aeth[ROCE_AETH_SYN] = syn;
}

/** Set the MSN (low 24 bits of @p msn). */
static inline void
roce_aeth_set_msn(uint8_t *aeth, uint32_t msn)
{
	omni_put_be24(aeth + ROCE_AETH_MSN, msn);
}

/* AtomicETH, 28 bytes: 0-7 VA | 8-11 R_Key | 12-19 Swap or Add | 20-27 Compare */
#define ROCE_ATMETH_VA 0
#define ROCE_ATMETH_RKEY 8
#define ROCE_ATMETH_SWAP_ADD 12
#define ROCE_ATMETH_COMPARE 20

static inline uint64_t
roce_atmeth_va(const uint8_t *atm)
{
	return omni_get_be64(atm + ROCE_ATMETH_VA);
}

static inline uint32_t
roce_atmeth_rkey(const uint8_t *atm)
{
	return omni_get_be32(atm + ROCE_ATMETH_RKEY);
}

static inline uint64_t
roce_atmeth_swap_add(const uint8_t *atm)
{
	return omni_get_be64(atm + ROCE_ATMETH_SWAP_ADD);
}

static inline uint64_t
roce_atmeth_compare(const uint8_t *atm)
{
	return omni_get_be64(atm + ROCE_ATMETH_COMPARE);
}

static inline void
roce_atmeth_set_va(uint8_t *atm, uint64_t va)
{
	omni_put_be64(atm + ROCE_ATMETH_VA, va);
}

static inline void
roce_atmeth_set_rkey(uint8_t *atm, uint32_t rkey)
{
	omni_put_be32(atm + ROCE_ATMETH_RKEY, rkey);
}

static inline void
roce_atmeth_set_swap_add(uint8_t *atm, uint64_t v)
{
	omni_put_be64(atm + ROCE_ATMETH_SWAP_ADD, v);
}

static inline void
roce_atmeth_set_compare(uint8_t *atm, uint64_t v)
{
	omni_put_be64(atm + ROCE_ATMETH_COMPARE, v);
}

/* AtomicAckETH, 8 bytes: the original remote data */

static inline uint64_t
roce_atmack_orig(const uint8_t *ack)
{
	return omni_get_be64(ack);
}

static inline void
roce_atmack_set_orig(uint8_t *ack, uint64_t orig)
{
	omni_put_be64(ack, orig);
}

/*
 * ImmDt, 4 bytes. The verbs hand immediate data over in network byte order
 * (struct roce_wc.imm_data), so these move the bytes as they are.
 */

/** @return the immediate data, in network byte order. */
static inline uint32_t
roce_immdt_imm(const uint8_t *immdt)
{
	uint32_t v;

	memcpy(&v, immdt, sizeof(v));
	return v;
}

/** Store @p imm, already in network byte order. */
static inline void
roce_immdt_set_imm(uint8_t *immdt, uint32_t imm)
{
	memcpy(immdt, &imm, sizeof(imm));
}

/* IETH, 4 bytes: the R_Key to invalidate */

static inline uint32_t
roce_ieth_rkey(const uint8_t *ieth)
{
	return omni_get_be32(ieth);
}

static inline void
roce_ieth_set_rkey(uint8_t *ieth, uint32_t rkey)
{
	omni_put_be32(ieth, rkey);
}

/* DETH, 8 bytes: 0-3 Q_Key | 4 reserved | 5-7 source QP */
#define ROCE_DETH_QKEY 0
#define ROCE_DETH_RESV 4
#define ROCE_DETH_SQP 5

static inline uint32_t
roce_deth_qkey(const uint8_t *deth)
{
	return omni_get_be32(deth + ROCE_DETH_QKEY);
}

static inline uint32_t
roce_deth_sqp(const uint8_t *deth)
{
	return omni_get_be24(deth + ROCE_DETH_SQP);
}

static inline void
roce_deth_set_qkey(uint8_t *deth, uint32_t qkey)
{
	omni_put_be32(deth + ROCE_DETH_QKEY, qkey);
}

/** Set the source QP (low 24 bits of @p sqp) and the reserved byte before it to 0. */
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
