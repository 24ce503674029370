/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _ROCE_CM_MAD_H_
#define _ROCE_CM_MAD_H_

/**
 * @file
 * The IB communication manager's MADs as RoCE v2 carries them on the GSI QP
 * (QP1): the REQ, MRA, REJ, REP, RTU, DREQ and DREP messages behind the
 * 24-byte common MAD header (lib/common/omni_mad.h), encoded and decoded field
 * by field at their wire offsets (all big-endian), plus the RDMA CM's IP
 * service IDs and the private-data header it puts in front of a REQ's private
 * data. Plain C over bytes.
 *
 * Sources of the layout (facts, no code taken):
 * - IBA vol. 1 ch. 12 (Communication Management), tables 106-113; Linux
 *   include/rdma/ibta_vol1_c12.h spells each field of those tables as
 *   (byte offset after the MAD header, bit offset from the MSB, width), and
 *   drivers/infiniband/core/cm_msgs.h (older kernels) as structs with the
 *   same offsets.
 * - The MAD header (IBA 13.4.3): Linux struct ib_mad_hdr; CM values from
 *   cm.c cm_format_mad_hdr(): base version 1, class 0x07, class version 2
 *   (IB_CM_CLASS_VERSION, "IB specification 1.2"), method Send (0x03).
 * - Attribute IDs, REJ reasons and private-data sizes: include/rdma/ib_cm.h.
 * - Service IDs: rdma-core librdmacm/rdma_cma.h (RDMA_IB_IP_PS_TCP
 *   0x0000000001060000, _UDP 0x0000000001110000, RDMA_IB_PS_IB
 *   0x00000000013F0000; port in the low 16 bits).
 * - The RDMA CM header: Linux drivers/infiniband/core/cma.c struct cma_hdr
 *   (cma_version, ip_version in bits 7:4, port, src and dst addresses as
 *   union cma_ip_addr: IPv4 in the last 4 of 16 bytes after 12 zero bytes),
 *   filled by cma_format_hdr() with the active side's (source) port.
 *
 * Offsets below are from the start of the MAD (header included).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "omni_mad.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ROCE_CM_MAD_LEN 256      /**< every GSI MAD */
#define ROCE_CM_HDR_LEN OMNI_MAD_HDR_LEN /**< common MAD header (omni_mad.h) */
#define ROCE_CM_BASE_VERSION 1   /**< IB_MGMT_BASE_VERSION */
#define ROCE_CM_MGMT_CLASS 0x07  /**< IB_MGMT_CLASS_CM */
#define ROCE_CM_CLASS_VERSION 2  /**< IB_CM_CLASS_VERSION */
#define ROCE_CM_METHOD_SEND 0x03 /**< every CM message is a Send */

/** CM attribute IDs (ib_cm.h CM_*_ATTR_ID). */
enum roce_cm_attr {
	ROCE_CM_ATTR_CPI = 0x0001,      /**< ClassPortInfo (not handled) */
	ROCE_CM_ATTR_REQ = 0x0010,      /**< connect request */
	ROCE_CM_ATTR_MRA = 0x0011,      /**< message receipt acknowledgement */
	ROCE_CM_ATTR_REJ = 0x0012,      /**< reject */
	ROCE_CM_ATTR_REP = 0x0013,      /**< reply to REQ */
	ROCE_CM_ATTR_RTU = 0x0014,      /**< ready to use */
	ROCE_CM_ATTR_DREQ = 0x0015,     /**< disconnect request */
	ROCE_CM_ATTR_DREP = 0x0016,     /**< reply to DREQ */
	ROCE_CM_ATTR_SIDR_REQ = 0x0017, /**< (not handled) */
	ROCE_CM_ATTR_SIDR_REP = 0x0018, /**< (not handled) */
	ROCE_CM_ATTR_LAP = 0x0019,      /**< (not handled; Linux ignores it on RoCE) */
	ROCE_CM_ATTR_APR = 0x001A,      /**< (not handled) */
};

/** Which message a REJ or MRA is about (cm_msgs.h enum cm_msg_response). */
enum roce_cm_msg_resp {
	ROCE_CM_MSG_REQ = 0,   /**< the REQ */
	ROCE_CM_MSG_REP = 1,   /**< the REP */
	ROCE_CM_MSG_OTHER = 2, /**< another (LAP) */
};

/** REJ reasons (ib_cm.h enum ib_cm_rej_reason; IBA table 109). */
enum roce_cm_rej_reason {
	ROCE_CM_REJ_NO_QP = 1,
	ROCE_CM_REJ_NO_EEC = 2,
	ROCE_CM_REJ_NO_RESOURCES = 3,
	ROCE_CM_REJ_TIMEOUT = 4,
	ROCE_CM_REJ_UNSUPPORTED = 5,
	ROCE_CM_REJ_INVALID_COMM_ID = 6,
	ROCE_CM_REJ_INVALID_COMM_INSTANCE = 7,
	ROCE_CM_REJ_INVALID_SERVICE_ID = 8,
	ROCE_CM_REJ_INVALID_TRANSPORT_TYPE = 9,
	ROCE_CM_REJ_STALE_CONN = 10,
	ROCE_CM_REJ_RDC_NOT_EXIST = 11,
	ROCE_CM_REJ_INVALID_GID = 12,
	ROCE_CM_REJ_INVALID_LID = 13,
	ROCE_CM_REJ_INVALID_SL = 14,
	ROCE_CM_REJ_INVALID_TRAFFIC_CLASS = 15,
	ROCE_CM_REJ_INVALID_HOP_LIMIT = 16,
	ROCE_CM_REJ_INVALID_PACKET_RATE = 17,
	ROCE_CM_REJ_INVALID_MTU = 26,
	ROCE_CM_REJ_INSUFFICIENT_RESP_RESOURCES = 27,
	ROCE_CM_REJ_CONSUMER_DEFINED = 28,
	ROCE_CM_REJ_INVALID_RNR_RETRY = 29,
	ROCE_CM_REJ_DUPLICATE_LOCAL_COMM_ID = 30,
	ROCE_CM_REJ_INVALID_CLASS_VERSION = 31,
	ROCE_CM_REJ_INVALID_FLOW_LABEL = 32,
};

/** REQ transport service type (offset 67 bits 2:1; cm_req_get_qp_type()). */
enum roce_cm_transport {
	ROCE_CM_TRANSPORT_RC = 0,
	ROCE_CM_TRANSPORT_UC = 1,
	ROCE_CM_TRANSPORT_RD = 2,
	ROCE_CM_TRANSPORT_XRC = 3, /**< with extended transport type 1 */
};

/* Private data bytes per message (ib_cm.h enum ib_cm_data_size). */
#define ROCE_CM_REQ_PDATA 92    /**< REQ private data bytes */
#define ROCE_CM_MRA_PDATA 222   /**< MRA private data bytes */
#define ROCE_CM_REJ_PDATA 148   /**< REJ private data bytes */
#define ROCE_CM_REJ_ARI_LEN 72  /**< REJ additional rejection information bytes */
#define ROCE_CM_REP_PDATA 196   /**< REP private data bytes */
#define ROCE_CM_RTU_PDATA 224   /**< RTU private data bytes */
#define ROCE_CM_DREQ_PDATA 220  /**< DREQ private data bytes */
#define ROCE_CM_DREP_PDATA 224  /**< DREP private data bytes */

/* Where the private data starts, from the MAD's first byte. */
#define ROCE_CM_REQ_PDATA_OFF (ROCE_CM_HDR_LEN + 140) /**< REQ private data: 164 */
#define ROCE_CM_MRA_PDATA_OFF (ROCE_CM_HDR_LEN + 10)  /**< MRA private data: 34 */
#define ROCE_CM_REJ_ARI_OFF (ROCE_CM_HDR_LEN + 12)    /**< REJ ARI: 36 */
#define ROCE_CM_REJ_PDATA_OFF (ROCE_CM_HDR_LEN + 84)  /**< REJ private data: 108 */
#define ROCE_CM_REP_PDATA_OFF (ROCE_CM_HDR_LEN + 36)  /**< REP private data: 60 */
#define ROCE_CM_RTU_PDATA_OFF (ROCE_CM_HDR_LEN + 8)   /**< RTU private data: 32 */
#define ROCE_CM_DREQ_PDATA_OFF (ROCE_CM_HDR_LEN + 12) /**< DREQ private data: 36 */
#define ROCE_CM_DREP_PDATA_OFF (ROCE_CM_HDR_LEN + 8)  /**< DREP private data: 32 */

/** LID field value of a routed (RoCE v2) path: cm.c writes 0xFFFF when hop limit > 1. */
#define ROCE_CM_LID_PERMISSIVE 0xFFFF


/** A REQ path (primary at 76-139, alternate at 120-163 of the MAD). */
struct roce_cm_path {
	uint16_t local_lid;        /**< +0 */
	uint16_t remote_lid;       /**< +2 */
	uint8_t local_gid[16];     /**< +4: the active side's GID */
	uint8_t remote_gid[16];    /**< +20: the passive side's GID */
	uint32_t flow_label;       /**< +36, 20 bits (bits 31:12 of the word) */
	uint8_t packet_rate;       /**< +39 bits 5:0 */
	uint8_t traffic_class;     /**< +40 */
	uint8_t hop_limit;         /**< +41 */
	uint8_t sl;                /**< +42 bits 7:4 */
	uint8_t subnet_local;      /**< +42 bit 3 */
	uint8_t local_ack_timeout; /**< +43 bits 7:3 */
};

/** REQ (IBA table 106; payload offsets +24 for the MAD). */
struct roce_cm_req {
	uint32_t local_comm_id;           /**< 24 */
	uint64_t service_id;              /**< 32 */
	uint64_t local_ca_guid;           /**< 40 */
	uint32_t local_qkey;              /**< 52 */
	uint32_t local_qpn;               /**< 56, 24 bits */
	uint8_t responder_resources;      /**< 59 */
	uint32_t local_eecn;              /**< 60, 24 bits */
	uint8_t initiator_depth;          /**< 63 */
	uint32_t remote_eecn;             /**< 64, 24 bits */
	uint8_t remote_cm_response_timeout; /**< 67 bits 7:3 */
	uint8_t transport;                /**< 67 bits 2:1, enum roce_cm_transport */
	uint8_t e2e_flow_control;         /**< 67 bit 0 */
	uint32_t starting_psn;            /**< 68, 24 bits */
	uint8_t local_cm_response_timeout; /**< 71 bits 7:3 */
	uint8_t retry_count;              /**< 71 bits 2:0 */
	uint16_t pkey;                    /**< 72 */
	uint8_t path_mtu;                 /**< 74 bits 7:4 (enum roce_mtu) */
	uint8_t rdc_exists;               /**< 74 bit 3 */
	uint8_t rnr_retry_count;          /**< 74 bits 2:0 */
	uint8_t max_cm_retries;           /**< 75 bits 7:4 */
	uint8_t srq;                      /**< 75 bit 3 */
	uint8_t ext_transport;            /**< 75 bits 2:0 */
	struct roce_cm_path primary;      /**< 76 */
	struct roce_cm_path alternate;    /**< 120 */
	uint8_t private_data[ROCE_CM_REQ_PDATA]; /**< 164 */
};

/** MRA (IBA table 107). */
struct roce_cm_mra {
	uint32_t local_comm_id;  /**< 24 */
	uint32_t remote_comm_id; /**< 28 */
	uint8_t msg_mraed;       /**< 32 bits 7:6, enum roce_cm_msg_resp */
	uint8_t service_timeout; /**< 33 bits 7:3 */
	uint8_t private_data[ROCE_CM_MRA_PDATA]; /**< 34 */
};

/** REJ (IBA table 108). */
struct roce_cm_rej {
	uint32_t local_comm_id;  /**< 24 */
	uint32_t remote_comm_id; /**< 28 */
	uint8_t msg_rejected;    /**< 32 bits 7:6, enum roce_cm_msg_resp */
	uint8_t ari_length;      /**< 33 bits 7:1 */
	uint16_t reason;         /**< 34, enum roce_cm_rej_reason */
	uint8_t ari[ROCE_CM_REJ_ARI_LEN];        /**< 36 */
	uint8_t private_data[ROCE_CM_REJ_PDATA]; /**< 108 */
};

/** REP (IBA table 110). */
struct roce_cm_rep {
	uint32_t local_comm_id;       /**< 24 */
	uint32_t remote_comm_id;      /**< 28 */
	uint32_t local_qkey;          /**< 32 */
	uint32_t local_qpn;           /**< 36, 24 bits */
	uint32_t local_eecn;          /**< 40, 24 bits */
	uint32_t starting_psn;        /**< 44, 24 bits */
	uint8_t responder_resources;  /**< 48 */
	uint8_t initiator_depth;      /**< 49 */
	uint8_t target_ack_delay;     /**< 50 bits 7:3 */
	uint8_t failover_accepted;    /**< 50 bits 2:1 */
	uint8_t e2e_flow_control;     /**< 50 bit 0 */
	uint8_t rnr_retry_count;      /**< 51 bits 7:5 */
	uint8_t srq;                  /**< 51 bit 4 */
	uint64_t local_ca_guid;       /**< 52 */
	uint8_t private_data[ROCE_CM_REP_PDATA]; /**< 60 */
};

/** RTU (IBA table 111), DREP (table 113): the two IDs and private data. */
struct roce_cm_rtu {
	uint32_t local_comm_id;  /**< 24 */
	uint32_t remote_comm_id; /**< 28 */
	uint8_t private_data[ROCE_CM_RTU_PDATA]; /**< 32 */
};

/** DREQ (IBA table 112). */
struct roce_cm_dreq {
	uint32_t local_comm_id;  /**< 24 */
	uint32_t remote_comm_id; /**< 28 */
	uint32_t remote_qpn;     /**< 32, 24 bits: the receiver's QPN */
	uint8_t private_data[ROCE_CM_DREQ_PDATA]; /**< 36 */
};

/** DREP has the RTU's layout. */
#define roce_cm_drep roce_cm_rtu

/**
 * Fill a MAD with zeros and a CM header: base version 1, class 0x07, class
 * version 2, method Send, status 0.
 * @param mad      The MAD (ROCE_CM_MAD_LEN bytes written).
 * @param attr_id  enum roce_cm_attr.
 * @param tid      The transaction ID.
 */
void roce_cm_hdr_init(uint8_t *mad, uint16_t attr_id, uint64_t tid);

/*
 * Message encoders write every field of the message at its offset (reserved
 * bits zero) into a MAD whose header is already there; decoders read every
 * field, reserved bits ignored (IBA: reserved fields are ignored by the
 * receiver). Values wider than their field are cut to it.
 */
/** Encode a REQ. @param mad The MAD. @param m The message. */
void roce_cm_req_encode(uint8_t *mad, const struct roce_cm_req *m);
/** Decode a REQ. @param mad The MAD. @param m Out: the message. */
void roce_cm_req_decode(const uint8_t *mad, struct roce_cm_req *m);
/** Encode an MRA. @param mad The MAD. @param m The message. */
void roce_cm_mra_encode(uint8_t *mad, const struct roce_cm_mra *m);
/** Decode an MRA. @param mad The MAD. @param m Out: the message. */
void roce_cm_mra_decode(const uint8_t *mad, struct roce_cm_mra *m);
/** Encode a REJ. @param mad The MAD. @param m The message. */
void roce_cm_rej_encode(uint8_t *mad, const struct roce_cm_rej *m);
/** Decode a REJ. @param mad The MAD. @param m Out: the message. */
void roce_cm_rej_decode(const uint8_t *mad, struct roce_cm_rej *m);
/** Encode a REP. @param mad The MAD. @param m The message. */
void roce_cm_rep_encode(uint8_t *mad, const struct roce_cm_rep *m);
/** Decode a REP. @param mad The MAD. @param m Out: the message. */
void roce_cm_rep_decode(const uint8_t *mad, struct roce_cm_rep *m);
/** Encode an RTU (or a DREP). @param mad The MAD. @param m The message. */
void roce_cm_rtu_encode(uint8_t *mad, const struct roce_cm_rtu *m);
/** Decode an RTU (or a DREP). @param mad The MAD. @param m Out: the message. */
void roce_cm_rtu_decode(const uint8_t *mad, struct roce_cm_rtu *m);
/** Encode a DREQ. @param mad The MAD. @param m The message. */
void roce_cm_dreq_encode(uint8_t *mad, const struct roce_cm_dreq *m);
/** Decode a DREQ. @param mad The MAD. @param m Out: the message. */
void roce_cm_dreq_decode(const uint8_t *mad, struct roce_cm_dreq *m);
/** Encode a DREP: the RTU layout. */
#define roce_cm_drep_encode roce_cm_rtu_encode
/** Decode a DREP: the RTU layout. */
#define roce_cm_drep_decode roce_cm_rtu_decode

/* ---------------- the RDMA CM's IP addressing ---------------- */

/* RDMA CM port spaces (librdmacm enum rdma_port_space). */
#define ROCE_CM_PS_TCP 0x0106 /**< RDMA_PS_TCP */
#define ROCE_CM_PS_UDP 0x0111 /**< RDMA_PS_UDP */
#define ROCE_CM_PS_IB 0x013F  /**< RDMA_PS_IB */

/**
 * @param ps    Port space (ROCE_CM_PS_*).
 * @param port  Port.
 * @return the service ID: 0x0000000001060000 + port for TCP.
 */
static inline uint64_t
roce_cm_ip_service_id(uint16_t ps, uint16_t port)
{
	return ((uint64_t)ps << 16) | port;
}

/**
 * @param sid  A service ID.
 * @return true when @p sid is an RDMA CM service ID of the TCP or UDP port
 * space, whose REQ carries the RDMA CM header (cma.c cma_user_data_offset():
 * every IP-addressed id).
 */
static inline bool
roce_cm_service_is_ip(uint64_t sid)
{
	uint64_t ps = sid >> 16;

	return ps == ROCE_CM_PS_TCP || ps == ROCE_CM_PS_UDP;
}

#define ROCE_CM_IP_HDR_LEN 36     /**< struct cma_hdr */
#define ROCE_CM_IP_HDR_VERSION 0  /**< CMA_VERSION */

/**
 * The RDMA CM header, first 36 bytes of a REQ's private data: version (0),
 * IP version in bits 7:4 (1), the active side's port (2-3), source address
 * (4-19), destination address (20-35); an IPv4 address is the last 4 bytes
 * of its 16 after 12 zero bytes. Addresses here are 16 bytes, IPv4 as
 * IPv4-mapped IPv6 (lib/roce's GID form).
 */
struct roce_cm_ip_hdr {
	uint8_t ip_version;  /**< 4 or 6 */
	uint16_t src_port;   /**< the active side's port */
	uint8_t src_addr[16]; /**< the active side's address */
	uint8_t dst_addr[16]; /**< the passive side's address */
};

/**
 * Write the header.
 * @param p  Out: 36 bytes.
 * @param h  The header.
 * @return 0, or -EINVAL (ip_version not 4 or 6).
 */
int roce_cm_ip_hdr_encode(uint8_t *p, const struct roce_cm_ip_hdr *h);
/**
 * Read the header.
 * @param p    The private data.
 * @param len  Its bytes.
 * @param h    Out: the header.
 * @return 0, or -EINVAL: shorter than 36 bytes, version not 0, IP version
 * not 4 or 6 (cma.c cma_save_net_info() refuses the same).
 */
int roce_cm_ip_hdr_decode(const uint8_t *p, size_t len, struct roce_cm_ip_hdr *h);

/**
 * @param t  A CM time code (above 31 taken as 31).
 * @return 4.096 us << @p t, in ns.
 */
static inline uint64_t
roce_cm_time_ns(uint8_t t)
{
	return 4096ull << (t > 31 ? 31 : t);
}

#ifdef __cplusplus
}
#endif

#endif /* _ROCE_CM_MAD_H_ */
