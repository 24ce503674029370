/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _VEMA_MAD_H_
#define _VEMA_MAD_H_

/**
 * @file
 * The VEMA management datagrams (class 0x34): the 40-byte vendor header and
 * every attribute payload, encoded and decoded at their wire offsets (all
 * big-endian). Shared by the agent (lib/vema) and the Ethernet Manager
 * (app/opa-em). Encoders write exactly the attribute's bytes; decoders read
 * exactly them, and callers check the length first (VEMA_*_LEN).
 */

#include <stddef.h>
#include <stdint.h>

#include "omni_mad.h"
#include "vnic.h"
#include "vnic_stats.h"

#ifdef __cplusplus
extern "C" {
#endif

#define VEMA_MGMT_CLASS 0x34      /**< Intel Ethernet Management Agent class */
#define VEMA_BASE_VERSION 0x80    /**< OPA MAD base version */
#define VEMA_CLASS_VERSION 0x80   /**< VEMA class version */
#define VEMA_OUI 0x00066Au        /**< Intel OUI */
#define VEMA_MAD_SIZE 2048        /**< OPA MAD (every reply) */
#define VEMA_HDR_LEN 40           /**< vendor MAD header */
#define VEMA_DATA_LEN (VEMA_MAD_SIZE - VEMA_HDR_LEN) /**< 2008 data bytes */
#define VEMA_TRAP_MAD_LEN (VEMA_HDR_LEN + 232) /**< traps: header + 232 bytes */

/** Methods. */
enum vema_method {
	VEMA_METHOD_GET = 0x01,          /**< Get */
	VEMA_METHOD_SET = 0x02,          /**< Set */
	VEMA_METHOD_TRAP = 0x05,         /**< Trap */
	VEMA_METHOD_TRAP_REPRESS = 0x07, /**< TrapRepress */
	VEMA_METHOD_GET_RESP = 0x81,     /**< GetResp (replies to Get and Set) */
};

/** Response bit of a method. */
#define VEMA_METHOD_RESP 0x80

/** MAD status codes. */
enum vema_status {
	VEMA_STATUS_OK = 0x0000,            /**< success */
	VEMA_STATUS_BAD_VERSION = 0x0004,   /**< unsupported class version */
	VEMA_STATUS_UNSUPPORTED = 0x000C,   /**< unsupported method/attribute */
	VEMA_STATUS_INVALID = 0x001C,       /**< invalid attribute or modifier value */
};

/** Attributes. */
enum vema_attr {
	VEMA_ATTR_CLASS_PORT_INFO = 0x0001,  /**< ClassPortInfo */
	VEMA_ATTR_NOTICE = 0x0002,           /**< Notice (traps) */
	VEMA_ATTR_VESWPORT_INFO = 0x0011,    /**< vesw_info + per_veswport_info */
	VEMA_ATTR_MAC_ENTRIES = 0x0012,      /**< MAC table range */
	VEMA_ATTR_IFACE_UCAST_MACS = 0x0013, /**< interface unicast MACs */
	VEMA_ATTR_IFACE_MCAST_MACS = 0x0014, /**< interface multicast MACs */
	VEMA_ATTR_DELETE_VESW = 0x0015,      /**< reset a vport */
	VEMA_ATTR_SUMMARY_COUNTERS = 0x0020, /**< summary counters */
	VEMA_ATTR_ERROR_COUNTERS = 0x0022,   /**< error counters */
};

/** attr_mod bits 7:0: vport index; the other bits are reserved. */
#define VEMA_ATTR_MOD_VPORT_MASK 0xFFu

/** Payload sizes. */
#define VEMA_CPI_LEN 80             /**< ClassPortInfo */
#define VEMA_VESW_INFO_LEN 152      /**< vesw_info */
#define VEMA_PORT_INFO_LEN 128      /**< per_veswport_info */
#define VEMA_VESWPORT_INFO_LEN (VEMA_VESW_INFO_LEN + VEMA_PORT_INFO_LEN) /**< 280 */
#define VEMA_MAC_TBL_HDR_LEN 8      /**< MAC table header */
#define VEMA_MAC_ENTRY_LEN 16       /**< MAC table entry */
#define VEMA_MAC_ENTRIES_MAX 125    /**< entries per MAD */
#define VEMA_IFACE_HDR_LEN 8        /**< interface MAC list header */
#define VEMA_IFACE_MACS_MAX 333     /**< MACs per MAD */
#define VEMA_SUMMARY_LEN 360        /**< summary counters */
#define VEMA_ERROR_LEN 304          /**< error counters */
#define VEMA_NOTICE_LEN 96          /**< Notice body with the trap payload */

/** ClassPortInfo capability: the agent generates traps; bits 15:8 = max vports. */
#define VEMA_CPI_CAP_MASK 0xFF01
/** ClassPortInfo response time value: 4.096 us x 2^18 = 1.07 s. */
#define VEMA_CPI_RESP_TIME 18

/** Trap opcodes. */
enum vema_trap_opcode {
	VEMA_TRAP_UCAST_MAC_CHANGE = 1,  /**< unicast interface MACs changed */
	VEMA_TRAP_MCAST_MAC_CHANGE = 2,  /**< multicast interface MACs changed */
	VEMA_TRAP_LINK_STATUS_CHANGE = 3, /**< eth_link_status changed */
};

/** The 40-byte vendor MAD header: the common header, RMPP, OUI. */
struct vema_hdr {
	struct omni_mad_hdr mad;  /**< 0-23: base version 0x80, class 0x34, class version
				   *   0x80, enum vema_method, enum vema_status, ...
				   */
	uint8_t rmpp_version;     /**< RMPP version */
	uint8_t rmpp_type;        /**< RMPP type */
	uint8_t rmpp_rtime_flags; /**< RMPP resp time and flags (bit 0 = active) */
	uint8_t rmpp_status;      /**< RMPP status */
	uint32_t seg_num;         /**< RMPP segment number */
	uint32_t paylen_newwin;   /**< RMPP payload length / new window */
	uint8_t reserved;         /**< byte 36 */
	uint32_t oui;             /**< 24-bit OUI */
};

/** ClassPortInfo (80 bytes). */
struct vema_class_port_info {
	uint8_t base_version;          /**< offset 0 */
	uint8_t class_version;         /**< offset 1 */
	uint16_t cap_mask;             /**< offset 2 */
	uint32_t cap_mask2_resp_time;  /**< offset 4 */
	uint8_t redirect_gid[16];      /**< offset 8 */
	uint32_t redirect_tc_fl;       /**< offset 24 */
	uint32_t redirect_lid;         /**< offset 28 */
	uint32_t redirect_sl_qp;       /**< offset 32 */
	uint32_t redirect_qkey;        /**< offset 36 */
	uint8_t trap_gid[16];          /**< offset 40 */
	uint32_t trap_tc_fl;           /**< offset 56 */
	uint32_t trap_lid;             /**< offset 60 */
	uint32_t trap_hl_qp;           /**< offset 64 */
	uint32_t trap_qkey;            /**< offset 68 */
	uint16_t trap_pkey;            /**< offset 72 */
	uint16_t redirect_pkey;        /**< offset 74 */
	uint8_t trap_sl_rsvd;          /**< offset 76: trap SL in bits 7:3 */
	uint8_t rsvd[3];               /**< offset 77 */
};

/** MAC table header (8 bytes). */
struct vema_mac_tbl_hdr {
	uint16_t offset;      /**< first entry index */
	uint16_t num_entries; /**< entries that follow */
	uint32_t digest;      /**< the EM's opaque mac_tbl_digest */
};

/** Interface MAC list header (8 bytes). */
struct vema_iface_hdr {
	uint16_t start_idx;       /**< first MAC of this message */
	uint16_t num_macs_in_msg; /**< MACs that follow (request: 0 = as many as fit) */
	uint16_t tot_macs_in_lst; /**< list length */
	uint16_t gen_count;       /**< list generation */
};

/** Header of the counter attributes (8 bytes). */
struct vema_counters_hdr {
	uint16_t vp_instance;  /**< vport index */
	uint16_t vesw_id;      /**< vesw id */
	uint32_t veswport_num; /**< the EM's port number for the vport */
};

/** A VNIC trap (the Notice and its 16-byte payload). */
struct vema_trap {
	uint32_t issuer_lid;     /**< the vport's encap_slid */
	uint16_t fabric_id;      /**< fabric id */
	uint16_t vesw_id;        /**< vesw id */
	uint32_t veswport_num;   /**< the EM's port number */
	uint16_t opa_port_num;   /**< OPA port number */
	uint8_t vport_index;     /**< vport index */
	uint8_t opcode;          /**< enum vema_trap_opcode */
};

/**
 * Encode a vendor header at the start of a MAD.
 * @param mad
 *   At least VEMA_HDR_LEN bytes.
 * @param h
 *   The header.
 */
void vema_hdr_encode(uint8_t *mad, const struct vema_hdr *h);

/**
 * Decode a vendor header.
 * @param mad
 *   At least VEMA_HDR_LEN bytes.
 * @param h
 *   Filled.
 */
void vema_hdr_decode(const uint8_t *mad, struct vema_hdr *h);

/**
 * Fill a request header: versions, class, OUI, method, attribute, modifier
 * and TID; everything else 0.
 * @param h
 *   Filled.
 * @param method
 *   Method.
 * @param attr_id
 *   Attribute.
 * @param attr_mod
 *   Modifier.
 * @param tid
 *   Transaction id.
 */
void vema_hdr_request(struct vema_hdr *h, uint8_t method, uint16_t attr_id,
		      uint32_t attr_mod, uint64_t tid);

/**
 * Encode ClassPortInfo (VEMA_CPI_LEN bytes).
 * @param d
 *   Output.
 * @param c
 *   Input.
 */
void vema_cpi_encode(uint8_t *d, const struct vema_class_port_info *c);

/**
 * Decode ClassPortInfo (VEMA_CPI_LEN bytes).
 * @param d
 *   Input.
 * @param c
 *   Filled.
 */
void vema_cpi_decode(const uint8_t *d, struct vema_class_port_info *c);

/**
 * Encode VESWPORT_INFO (VEMA_VESWPORT_INFO_LEN bytes).
 * @param d
 *   Output.
 * @param vesw
 *   vesw_info.
 * @param port
 *   per_veswport_info.
 */
void vema_veswport_info_encode(uint8_t *d, const struct vnic_vesw_info *vesw,
			       const struct vnic_port_info *port);

/**
 * Decode VESWPORT_INFO (VEMA_VESWPORT_INFO_LEN bytes).
 * @param d
 *   Input.
 * @param vesw
 *   Filled.
 * @param port
 *   Filled.
 */
void vema_veswport_info_decode(const uint8_t *d, struct vnic_vesw_info *vesw,
			       struct vnic_port_info *port);

/**
 * Encode a MAC table header.
 * @param d
 *   Output (VEMA_MAC_TBL_HDR_LEN bytes).
 * @param h
 *   Input.
 */
void vema_mac_tbl_hdr_encode(uint8_t *d, const struct vema_mac_tbl_hdr *h);

/**
 * Decode a MAC table header.
 * @param d
 *   Input (VEMA_MAC_TBL_HDR_LEN bytes).
 * @param h
 *   Filled.
 */
void vema_mac_tbl_hdr_decode(const uint8_t *d, struct vema_mac_tbl_hdr *h);

/**
 * Encode one MAC table entry (VEMA_MAC_ENTRY_LEN bytes).
 * @param d
 *   Output.
 * @param e
 *   Input.
 */
void vema_mac_entry_encode(uint8_t *d, const struct vnic_mac_entry *e);

/**
 * Decode one MAC table entry (VEMA_MAC_ENTRY_LEN bytes).
 * @param d
 *   Input.
 * @param e
 *   Filled.
 */
void vema_mac_entry_decode(const uint8_t *d, struct vnic_mac_entry *e);

/**
 * Encode an interface MAC list header.
 * @param d
 *   Output (VEMA_IFACE_HDR_LEN bytes).
 * @param h
 *   Input.
 */
void vema_iface_hdr_encode(uint8_t *d, const struct vema_iface_hdr *h);

/**
 * Decode an interface MAC list header.
 * @param d
 *   Input (VEMA_IFACE_HDR_LEN bytes).
 * @param h
 *   Filled.
 */
void vema_iface_hdr_decode(const uint8_t *d, struct vema_iface_hdr *h);

/**
 * Encode the summary counters (VEMA_SUMMARY_LEN bytes).
 * @param d
 *   Output.
 * @param h
 *   Header.
 * @param c
 *   Counters.
 */
void vema_summary_encode(uint8_t *d, const struct vema_counters_hdr *h,
			 const struct vnic_counters *c);

/**
 * Decode the summary counters (fills the summary fields of @p c only).
 * @param d
 *   Input (VEMA_SUMMARY_LEN bytes).
 * @param h
 *   Filled.
 * @param c
 *   Summary fields filled.
 */
void vema_summary_decode(const uint8_t *d, struct vema_counters_hdr *h,
			 struct vnic_counters *c);

/**
 * Encode the error counters (VEMA_ERROR_LEN bytes).
 * @param d
 *   Output.
 * @param h
 *   Header.
 * @param c
 *   Counters.
 */
void vema_errors_encode(uint8_t *d, const struct vema_counters_hdr *h,
			const struct vnic_counters *c);

/**
 * Decode the error counters (fills the error fields of @p c, and
 * tx_errors/rx_errors).
 * @param d
 *   Input (VEMA_ERROR_LEN bytes).
 * @param h
 *   Filled.
 * @param c
 *   Error fields filled.
 */
void vema_errors_decode(const uint8_t *d, struct vema_counters_hdr *h,
			struct vnic_counters *c);

/**
 * Encode a Notice carrying a VNIC trap (VEMA_NOTICE_LEN bytes).
 * @param d
 *   Output.
 * @param t
 *   The trap.
 */
void vema_notice_encode(uint8_t *d, const struct vema_trap *t);

/**
 * Decode a Notice carrying a VNIC trap.
 * @param d
 *   Input (VEMA_NOTICE_LEN bytes).
 * @param t
 *   Filled.
 * @return
 *   0, or -EINVAL if it is not an Intel INFO notice.
 */
int vema_notice_decode(const uint8_t *d, struct vema_trap *t);

/**
 * Name of a status code.
 * @param status
 *   A status.
 * @return
 *   A constant string.
 */
const char *vema_status_name(uint16_t status);

/**
 * Name of an attribute.
 * @param attr_id
 *   An attribute id.
 * @return
 *   A constant string ("unknown" if not a VEMA attribute).
 */
const char *vema_attr_name(uint16_t attr_id);

#ifdef __cplusplus
}
#endif

#endif /* _VEMA_MAD_H_ */
