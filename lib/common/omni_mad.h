/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef OMNI_MAD_H
#define OMNI_MAD_H

/**
 * @file
 * The 24-byte common MAD header (IBA 13.4.3) every management datagram
 * starts with: the one codec for lib/vema's class 0x34 MADs and lib/roce's
 * CM MADs. Big-endian on the wire; plain C (no EAL).
 */

#include <stdint.h>

#include "omni_bytes.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Bytes of the common MAD header. */
#define OMNI_MAD_HDR_LEN 24

/** The common MAD header, field by field (offsets in the comments). */
struct omni_mad_hdr {
	uint8_t base_version;    /**< 0 */
	uint8_t mgmt_class;      /**< 1 */
	uint8_t class_version;   /**< 2 */
	uint8_t method;          /**< 3 */
	uint16_t status;         /**< 4 */
	uint16_t class_specific; /**< 6 */
	uint64_t tid;            /**< 8: transaction ID */
	uint16_t attr_id;        /**< 16 */
	uint16_t resv;           /**< 18: reserved */
	uint32_t attr_mod;       /**< 20: attribute modifier */
};

/** Write @p h into the first OMNI_MAD_HDR_LEN bytes of @p mad. */
static inline void
omni_mad_hdr_encode(uint8_t *mad, const struct omni_mad_hdr *h)
{
	mad[0] = h->base_version;
	mad[1] = h->mgmt_class;
	mad[2] = h->class_version;
	mad[3] = h->method;
	omni_put_be16(mad + 4, h->status);
	omni_put_be16(mad + 6, h->class_specific);
	omni_put_be64(mad + 8, h->tid);
	omni_put_be16(mad + 16, h->attr_id);
	omni_put_be16(mad + 18, h->resv);
	omni_put_be32(mad + 20, h->attr_mod);
}

/** Read the first OMNI_MAD_HDR_LEN bytes of @p mad into @p h. */
static inline void
omni_mad_hdr_decode(const uint8_t *mad, struct omni_mad_hdr *h)
{
	h->base_version = mad[0];
	h->mgmt_class = mad[1];
	h->class_version = mad[2];
	h->method = mad[3];
	h->status = omni_get_be16(mad + 4);
	h->class_specific = omni_get_be16(mad + 6);
	h->tid = omni_get_be64(mad + 8);
	h->attr_id = omni_get_be16(mad + 16);
	h->resv = omni_get_be16(mad + 18);
	h->attr_mod = omni_get_be32(mad + 20);
}

#ifdef __cplusplus
}
#endif

#endif /* OMNI_MAD_H */
