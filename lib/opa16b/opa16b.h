/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _OPA16B_H_
#define _OPA16B_H_

/**
 * @file
 * OPA 16B packet header: constants and field accessors.
 *
 * The 16B header is a sequence of little-endian 64-bit quadwords: packet
 * byte n holds bits 8*(n%8)..8*(n%8)+7 of quadword n/8. The accessors below
 * work on raw bytes (any alignment) and take or return host-order values.
 * Every setter masks its value to the field's width, so a value too wide for
 * its field never spills into a neighbour; callers that must reject such
 * values (command lines, management requests) check with the OPA16B_*_MAX
 * constants first.
 *
 * Layout of the first 20 bytes (five little-endian 32-bit words):
 *
 *   DW0  SLID[19:0] (0-19)  Length in QWs (20-30)  BECN (31)
 *   DW1  DLID[19:0] (0-19)  SC (20-24)  RC (25-27)  FECN (28)  L2 (29-30)  LT (31)
 *   DW2  L4 type (0-7)  SLID[23:20] (8-11)  DLID[23:20] (12-15)  PKEY (16-31)
 *   DW3  entropy (0-15)  age (16-23)  reserved (24-31)
 *   DW4  L4-specific: for VNIC (L4 0x78), reserved (0-15) and vesw id (16-27)
 *
 * The last byte of every packet is the tail: pad count in bits 0-5, LT tail
 * in bits 6-7; the ICRC occupies the 4 bytes before it.
 */

#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#include <omni_bytes.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Bytes of the link header (LRH): QW0 and QW1. */
#define OPA16B_LRH_LEN 16
/** Bytes of the VNIC L2 header: LRH plus 2 reserved bytes. */
#define OPA16B_VNIC_L2_HDR_LEN 18
/** Bytes of the VNIC L4 header (vesw id). */
#define OPA16B_VNIC_L4_HDR_LEN 2
/** Bytes of the whole VNIC header in front of the Ethernet frame. */
#define OPA16B_VNIC_HDR_LEN 20
/** Bytes of the ICRC placeholder. */
#define OPA16B_ICRC_LEN 4
/** Bytes of the tail. */
#define OPA16B_TAIL_LEN 1
/** ICRC and tail together. */
#define OPA16B_ICRC_TAIL_LEN (OPA16B_ICRC_LEN + OPA16B_TAIL_LEN)
/** Largest pad count: packets are a whole number of quadwords. */
#define OPA16B_PAD_MAX 7

/** L2 type value of a 16B packet. */
#define OPA16B_L2_16B 2
/** L4 type of 9B-encapsulated packets. */
#define OPA16B_L4_9B 0x00
/** L4 type of management (FM) packets. */
#define OPA16B_L4_FM 0x08
/** L4 type of IB local transport packets. */
#define OPA16B_L4_IB_LOCAL 0x09
/** L4 type of IB global transport packets. */
#define OPA16B_L4_IB_GLOBAL 0x0A
/** L4 type of VNIC Ethernet packets. */
#define OPA16B_L4_ETHR 0x78

/* Largest values of each field. */
#define OPA16B_LID_MAX 0xFFFFFFu     /**< Largest LID (24 bits). */
#define OPA16B_LEN_MAX 0x7FFu        /**< Largest Length field, in quadwords. */
#define OPA16B_SC_MAX 0x1Fu          /**< Largest service class. */
#define OPA16B_RC_MAX 0x7u           /**< Largest routing control. */
#define OPA16B_L2_MAX 0x3u           /**< Largest L2 type. */
#define OPA16B_L4_MAX 0xFFu          /**< Largest L4 type. */
#define OPA16B_PKEY_MAX 0xFFFFu      /**< Largest P_Key. */
#define OPA16B_ENTROPY_MAX 0xFFFFu   /**< Largest entropy. */
#define OPA16B_AGE_MAX 0xFFu         /**< Largest age. */
#define OPA16B_VESW_ID_MAX 0xFFFu    /**< Largest vesw id (12 bits). */
/** Largest 16B packet in bytes (Length field limit). */
#define OPA16B_PKT_MAX (OPA16B_LEN_MAX * 8)
/** Multicast DLIDs of the 24-bit space start here. */
#define OPA16B_MCAST_DLID_BASE 0xF00000u

/* DW0 */
#define OPA16B_DW0_SLID_MASK 0x000FFFFFu  /**< Bits of SLID[19:0] in DW0. */
#define OPA16B_DW0_LEN_SHIFT 20           /**< Shift of Length in DW0. */
#define OPA16B_DW0_LEN_MASK 0x7FF00000u   /**< Bits of Length in DW0. */
#define OPA16B_DW0_BECN_SHIFT 31          /**< Shift of BECN in DW0. */
/* DW1 */
#define OPA16B_DW1_DLID_MASK 0x000FFFFFu  /**< Bits of DLID[19:0] in DW1. */
#define OPA16B_DW1_SC_SHIFT 20            /**< Shift of SC in DW1. */
#define OPA16B_DW1_SC_MASK 0x01F00000u    /**< Bits of SC in DW1. */
#define OPA16B_DW1_RC_SHIFT 25            /**< Shift of RC in DW1. */
#define OPA16B_DW1_RC_MASK 0x0E000000u    /**< Bits of RC in DW1. */
#define OPA16B_DW1_FECN_SHIFT 28          /**< Shift of FECN in DW1. */
#define OPA16B_DW1_L2_SHIFT 29            /**< Shift of L2 type in DW1. */
#define OPA16B_DW1_L2_MASK 0x60000000u    /**< Bits of L2 type in DW1. */
#define OPA16B_DW1_LT_SHIFT 31            /**< Shift of LT in DW1. */
/* DW2 */
#define OPA16B_DW2_L4_MASK 0x000000FFu    /**< Bits of L4 type in DW2. */
#define OPA16B_DW2_SLID_HI_SHIFT 8        /**< Shift of SLID[23:20] in DW2. */
#define OPA16B_DW2_SLID_HI_MASK 0x00000F00u/**< Bits of SLID[23:20] in DW2. */
#define OPA16B_DW2_DLID_HI_SHIFT 12       /**< Shift of DLID[23:20] in DW2. */
#define OPA16B_DW2_DLID_HI_MASK 0x0000F000u/**< Bits of DLID[23:20] in DW2. */
#define OPA16B_DW2_PKEY_SHIFT 16          /**< Shift of P_Key in DW2. */
#define OPA16B_DW2_PKEY_MASK 0xFFFF0000u  /**< Bits of P_Key in DW2. */
/* DW3 */
#define OPA16B_DW3_ENTROPY_MASK 0x0000FFFFu/**< Bits of entropy in DW3. */
#define OPA16B_DW3_AGE_SHIFT 16           /**< Shift of age in DW3. */
#define OPA16B_DW3_AGE_MASK 0x00FF0000u   /**< Bits of age in DW3. */
/* DW4 (VNIC) */
#define OPA16B_DW4_VESW_SHIFT 16          /**< Shift of vesw id in DW4 (VNIC). */
#define OPA16B_DW4_VESW_MASK 0x0FFF0000u  /**< Bits of vesw id in DW4 (VNIC). */

/** Tail byte: pad count bits. */
#define OPA16B_TAIL_PAD_MASK 0x3Fu

/**
 * Load host-order 32-bit word @p idx of a header at any alignment.
 *
 * @param hdr
 *   Start of the 16B header.
 * @param idx
 *   Word index (0 = DW0).
 * @return
 *   The word in host order.
 */
static inline uint32_t
opa16b_dw_get(const void *hdr, unsigned int idx)
{
	return omni_get_le32((const uint8_t *)hdr + 4 * idx);
}

/**
 * Store host-order 32-bit word @p idx of a header at any alignment.
 *
 * @param hdr
 *   Start of the 16B header.
 * @param idx
 *   Word index (0 = DW0).
 * @param val
 *   The word in host order.
 */
static inline void
opa16b_dw_set(void *hdr, unsigned int idx, uint32_t val)
{
	omni_put_le32((uint8_t *)hdr + 4 * idx, val);
}

/**
 * Replace the bits of @p mask in word @p idx by @p val (already shifted).
 *
 * @param hdr   Start of the 16B header, any alignment.
 * @param idx   Word index (0 = DW0).
 * @param mask  The field's bits in the word.
 * @param val   The field's new value, shifted into place.
 */
static inline void
opa16b_dw_update(void *hdr, unsigned int idx, uint32_t mask, uint32_t val)
{
	opa16b_dw_set(hdr, idx, (opa16b_dw_get(hdr, idx) & ~mask) | (val & mask));
}

/**
 * @param hdr  Start of the 16B header, any alignment.
 * @return The 24-bit source LID.
 */
static inline uint32_t
opa16b_get_slid(const void *hdr)
{
	return (opa16b_dw_get(hdr, 0) & OPA16B_DW0_SLID_MASK) |
		(((opa16b_dw_get(hdr, 2) & OPA16B_DW2_SLID_HI_MASK) >>
		  OPA16B_DW2_SLID_HI_SHIFT) << 20);
}

/**
 * Set the 24-bit source LID (masked to 24 bits).
 *
 * @param hdr  Start of the 16B header, any alignment.
 * @param slid  The new value, host order.
 */
static inline void
opa16b_set_slid(void *hdr, uint32_t slid)
{
	opa16b_dw_update(hdr, 0, OPA16B_DW0_SLID_MASK, slid);
	opa16b_dw_update(hdr, 2, OPA16B_DW2_SLID_HI_MASK,
			 (slid >> 20) << OPA16B_DW2_SLID_HI_SHIFT);
}

/**
 * @param hdr  Start of the 16B header, any alignment.
 * @return The 24-bit destination LID.
 */
static inline uint32_t
opa16b_get_dlid(const void *hdr)
{
	return (opa16b_dw_get(hdr, 1) & OPA16B_DW1_DLID_MASK) |
		(((opa16b_dw_get(hdr, 2) & OPA16B_DW2_DLID_HI_MASK) >>
		  OPA16B_DW2_DLID_HI_SHIFT) << 20);
}

/**
 * Set the 24-bit destination LID (masked to 24 bits).
 *
 * @param hdr  Start of the 16B header, any alignment.
 * @param dlid  The new value, host order.
 */
static inline void
opa16b_set_dlid(void *hdr, uint32_t dlid)
{
	opa16b_dw_update(hdr, 1, OPA16B_DW1_DLID_MASK, dlid);
	opa16b_dw_update(hdr, 2, OPA16B_DW2_DLID_HI_MASK,
			 (dlid >> 20) << OPA16B_DW2_DLID_HI_SHIFT);
}

/**
 * @param hdr  Start of the 16B header, any alignment.
 * @return The packet length in quadwords (11 bits).
 */
static inline uint16_t
opa16b_get_len(const void *hdr)
{
	return (opa16b_dw_get(hdr, 0) & OPA16B_DW0_LEN_MASK) >> OPA16B_DW0_LEN_SHIFT;
}

/**
 * Set the packet length in quadwords (masked to 11 bits).
 *
 * @param hdr  Start of the 16B header, any alignment.
 * @param qws  The new value, host order.
 */
static inline void
opa16b_set_len(void *hdr, uint16_t qws)
{
	opa16b_dw_update(hdr, 0, OPA16B_DW0_LEN_MASK, (uint32_t)qws << OPA16B_DW0_LEN_SHIFT);
}

/**
 * @param hdr  Start of the 16B header, any alignment.
 * @return The BECN bit.
 */
static inline uint8_t
opa16b_get_becn(const void *hdr)
{
	return opa16b_dw_get(hdr, 0) >> OPA16B_DW0_BECN_SHIFT;
}

/**
 * Set the BECN bit (bit 0 of @p becn).
 *
 * @param hdr  Start of the 16B header, any alignment.
 * @param becn  The new value, host order.
 */
static inline void
opa16b_set_becn(void *hdr, uint8_t becn)
{
	opa16b_dw_update(hdr, 0, 1u << OPA16B_DW0_BECN_SHIFT,
			 (uint32_t)becn << OPA16B_DW0_BECN_SHIFT);
}

/**
 * @param hdr  Start of the 16B header, any alignment.
 * @return The FECN bit.
 */
static inline uint8_t
opa16b_get_fecn(const void *hdr)
{
	return (opa16b_dw_get(hdr, 1) >> OPA16B_DW1_FECN_SHIFT) & 1;
}

/**
 * Set the FECN bit (bit 0 of @p fecn).
 *
 * @param hdr  Start of the 16B header, any alignment.
 * @param fecn  The new value, host order.
 */
static inline void
opa16b_set_fecn(void *hdr, uint8_t fecn)
{
	opa16b_dw_update(hdr, 1, 1u << OPA16B_DW1_FECN_SHIFT,
			 (uint32_t)fecn << OPA16B_DW1_FECN_SHIFT);
}

/**
 * @param hdr  Start of the 16B header, any alignment.
 * @return The service class (5 bits).
 */
static inline uint8_t
opa16b_get_sc(const void *hdr)
{
	return (opa16b_dw_get(hdr, 1) & OPA16B_DW1_SC_MASK) >> OPA16B_DW1_SC_SHIFT;
}

/**
 * Set the service class (masked to 5 bits).
 *
 * @param hdr  Start of the 16B header, any alignment.
 * @param sc  The new value, host order.
 */
static inline void
opa16b_set_sc(void *hdr, uint8_t sc)
{
	opa16b_dw_update(hdr, 1, OPA16B_DW1_SC_MASK, (uint32_t)sc << OPA16B_DW1_SC_SHIFT);
}

/**
 * @param hdr  Start of the 16B header, any alignment.
 * @return The routing control (3 bits).
 */
static inline uint8_t
opa16b_get_rc(const void *hdr)
{
	return (opa16b_dw_get(hdr, 1) & OPA16B_DW1_RC_MASK) >> OPA16B_DW1_RC_SHIFT;
}

/**
 * Set the routing control (masked to 3 bits).
 *
 * @param hdr  Start of the 16B header, any alignment.
 * @param rc  The new value, host order.
 */
static inline void
opa16b_set_rc(void *hdr, uint8_t rc)
{
	opa16b_dw_update(hdr, 1, OPA16B_DW1_RC_MASK, (uint32_t)rc << OPA16B_DW1_RC_SHIFT);
}

/**
 * @param hdr  Start of the 16B header, any alignment.
 * @return The L2 type (2 bits; 2 = 16B).
 */
static inline uint8_t
opa16b_get_l2(const void *hdr)
{
	return (opa16b_dw_get(hdr, 1) & OPA16B_DW1_L2_MASK) >> OPA16B_DW1_L2_SHIFT;
}

/**
 * Set the L2 type (masked to 2 bits).
 *
 * @param hdr  Start of the 16B header, any alignment.
 * @param l2  The new value, host order.
 */
static inline void
opa16b_set_l2(void *hdr, uint8_t l2)
{
	opa16b_dw_update(hdr, 1, OPA16B_DW1_L2_MASK, (uint32_t)l2 << OPA16B_DW1_L2_SHIFT);
}

/**
 * @param hdr  Start of the 16B header, any alignment.
 * @return The LT (head) bit.
 */
static inline uint8_t
opa16b_get_lt(const void *hdr)
{
	return opa16b_dw_get(hdr, 1) >> OPA16B_DW1_LT_SHIFT;
}

/**
 * Set the LT (head) bit (bit 0 of @p lt).
 *
 * @param hdr  Start of the 16B header, any alignment.
 * @param lt  The new value, host order.
 */
static inline void
opa16b_set_lt(void *hdr, uint8_t lt)
{
	opa16b_dw_update(hdr, 1, 1u << OPA16B_DW1_LT_SHIFT,
			 (uint32_t)lt << OPA16B_DW1_LT_SHIFT);
}

/**
 * @param hdr  Start of the 16B header, any alignment.
 * @return The L4 type (8 bits).
 */
static inline uint8_t
opa16b_get_l4(const void *hdr)
{
	return opa16b_dw_get(hdr, 2) & OPA16B_DW2_L4_MASK;
}

/**
 * Set the L4 type.
 *
 * @param hdr  Start of the 16B header, any alignment.
 * @param l4  The new value, host order.
 */
static inline void
opa16b_set_l4(void *hdr, uint8_t l4)
{
	opa16b_dw_update(hdr, 2, OPA16B_DW2_L4_MASK, l4);
}

/**
 * @param hdr  Start of the 16B header, any alignment.
 * @return The P_Key, membership bit included.
 */
static inline uint16_t
opa16b_get_pkey(const void *hdr)
{
	return opa16b_dw_get(hdr, 2) >> OPA16B_DW2_PKEY_SHIFT;
}

/**
 * Set the P_Key, membership bit included.
 *
 * @param hdr  Start of the 16B header, any alignment.
 * @param pkey  The new value, host order.
 */
static inline void
opa16b_set_pkey(void *hdr, uint16_t pkey)
{
	opa16b_dw_update(hdr, 2, OPA16B_DW2_PKEY_MASK, (uint32_t)pkey << OPA16B_DW2_PKEY_SHIFT);
}

/**
 * @param hdr  Start of the 16B header, any alignment.
 * @return The 16-bit entropy field.
 */
static inline uint16_t
opa16b_get_entropy(const void *hdr)
{
	return opa16b_dw_get(hdr, 3) & OPA16B_DW3_ENTROPY_MASK;
}

/**
 * Set the 16-bit entropy field.
 *
 * @param hdr  Start of the 16B header, any alignment.
 * @param entropy  The new value, host order.
 */
static inline void
opa16b_set_entropy(void *hdr, uint16_t entropy)
{
	opa16b_dw_update(hdr, 3, OPA16B_DW3_ENTROPY_MASK, entropy);
}

/**
 * @param hdr  Start of the 16B header, any alignment.
 * @return The age field (DW3 bits 16-23).
 */
static inline uint8_t
opa16b_get_age(const void *hdr)
{
	return (opa16b_dw_get(hdr, 3) & OPA16B_DW3_AGE_MASK) >> OPA16B_DW3_AGE_SHIFT;
}

/**
 * Set the age field.
 *
 * @param hdr  Start of the 16B header, any alignment.
 * @param age  The new value, host order.
 */
static inline void
opa16b_set_age(void *hdr, uint8_t age)
{
	opa16b_dw_update(hdr, 3, OPA16B_DW3_AGE_MASK, (uint32_t)age << OPA16B_DW3_AGE_SHIFT);
}

/**
 * @param hdr  Start of the 16B header, any alignment.
 * @return The VNIC L4 header: the 12-bit vesw id.
 */
static inline uint16_t
opa16b_get_vesw_id(const void *hdr)
{
	return (opa16b_dw_get(hdr, 4) & OPA16B_DW4_VESW_MASK) >> OPA16B_DW4_VESW_SHIFT;
}

/**
 * Set the VNIC L4 header: the vesw id (masked to 12 bits).
 *
 * @param hdr  Start of the 16B header, any alignment.
 * @param vesw_id  The new value, host order.
 */
static inline void
opa16b_set_vesw_id(void *hdr, uint16_t vesw_id)
{
	opa16b_dw_update(hdr, 4, OPA16B_DW4_VESW_MASK, (uint32_t)vesw_id << OPA16B_DW4_VESW_SHIFT);
}

/**
 * Pad bytes needed after a packet of @p len bytes (headers and payload,
 * without ICRC and tail) so that the whole packet, ICRC and tail included, is
 * a whole number of quadwords.
 *
 * @param len  Bytes of headers and payload.
 * @return The pad count, 0..OPA16B_PAD_MAX.
 */
static inline unsigned int
opa16b_pad_len(uint32_t len)
{
	return (-(len + OPA16B_ICRC_TAIL_LEN)) & OPA16B_PAD_MAX;
}

#ifdef __cplusplus
}
#endif

#endif /* _OPA16B_H_ */
