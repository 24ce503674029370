/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef VRDMA_ABI_H
#define VRDMA_ABI_H

/**
 * @file
 * The guest ABI of the virtio-net RoCE device, as laid out by the
 * virtio-net RoCE RFC, under our own names: the control commands and their
 * ack-specific data, the send, receive and completion queue entries, and
 * the verbs values they carry. Every field is little-endian unless said
 * otherwise, every struct packed (a pack(1) pragma: no padding, alignment 1);
 * the sizes the RFC's layouts add up to are checked at compile time.
 *
 * Plain C, no DPDK: the device (lib/vrdma) and the guest driver (lib/vufront's
 * vuf_rdma) both include it, neither through the other's library. The
 * verbs values are lib/roce's own, since the device hands them to lib/roce
 * unchanged; lib/vrdma pins each to lib/roce's with a static assert.
 *
 * **omniplane's extension beyond the RFC: RC atomics** (the RFC's TODO list
 * has "Add support for atomic operation"). Marked "Extension" below:
 * the send opcodes VRDMA_WR_ATOMIC_CMP_AND_SWP and VRDMA_WR_ATOMIC_FETCH_AND_ADD
 * (5, 6: verbs' values), struct vrdma_sq_req's `atomic` member, the
 * completion opcodes VRDMA_WC_COMP_SWAP and VRDMA_WC_FETCH_ADD (5, 6), the
 * access flag VRDMA_ACCESS_REMOTE_ATOMIC (verbs' bit 3), and QUERY_DEVICE's
 * atomic_cap (in what the RFC left as padding), which a driver reads before
 * using any of them. Every layout keeps its RFC size, and a driver that
 * knows none of it sees nothing new: atomic_cap sits in bytes the RFC has
 * as zero padding, and the rest is only ever used by a driver that asks.
 */

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* every struct below is packed: no padding anywhere, alignment 1 */
#pragma pack(push, 1)

/* ---------------- the control queue ---------------- */

/** Ack byte of a control command that succeeded (VIRTIO_NET_OK). */
#define VRDMA_NET_OK 0
/** Ack byte of a control command that was refused; nothing changed (VIRTIO_NET_ERR). */
#define VRDMA_NET_ERR 1

/**
 * Head of a control buffer: the class (the device's RoCE class, 6 by
 * default) and the command, followed by the command-specific data.
 */
struct vrdma_ctrl_hdr {
	uint8_t class_; /**< control class */
	uint8_t cmd;    /**< enum vrdma_cmd_code within the RoCE class */
};

/** The RoCE class's commands, in the RFC's order. */
enum vrdma_cmd_code {
	VRDMA_CMD_QUERY_DEVICE,  /**< no data; ack: struct vrdma_ack_query_device */
	VRDMA_CMD_QUERY_PORT,    /**< no data; ack: struct vrdma_ack_query_port */
	VRDMA_CMD_CREATE_CQ,     /**< struct vrdma_cmd_create_cq; ack: struct vrdma_ack_handle */
	VRDMA_CMD_DESTROY_CQ,    /**< struct vrdma_cmd_handle (the CQ number) */
	VRDMA_CMD_CREATE_PD,     /**< no data; ack: struct vrdma_ack_handle */
	VRDMA_CMD_DESTROY_PD,    /**< struct vrdma_cmd_handle (the PD number) */
	VRDMA_CMD_GET_DMA_MR,    /**< struct vrdma_cmd_get_dma_mr; ack: struct vrdma_ack_mr */
	VRDMA_CMD_REG_USER_MR,   /**< struct vrdma_cmd_reg_user_mr; ack: struct vrdma_ack_mr */
	VRDMA_CMD_DEREG_MR,      /**< struct vrdma_cmd_handle (the MR number) */
	VRDMA_CMD_CREATE_QP,     /**< struct vrdma_cmd_create_qp; ack: struct vrdma_ack_handle */
	VRDMA_CMD_MODIFY_QP,     /**< struct vrdma_cmd_modify_qp */
	VRDMA_CMD_QUERY_QP,      /**< struct vrdma_cmd_query_qp; ack: struct vrdma_ack_query_qp */
	VRDMA_CMD_DESTROY_QP,    /**< struct vrdma_cmd_handle (the QP number) */
	VRDMA_CMD_CREATE_AH,     /**< struct vrdma_cmd_create_ah; ack: struct vrdma_ack_handle */
	VRDMA_CMD_DESTROY_AH,    /**< struct vrdma_cmd_destroy_ah */
	VRDMA_CMD_ADD_GID,       /**< struct vrdma_cmd_add_gid */
	VRDMA_CMD_DEL_GID,       /**< struct vrdma_cmd_del_gid */
	VRDMA_CMD_REQ_NOTIFY_CQ, /**< struct vrdma_cmd_req_notify */
	VRDMA_CMD_COUNT          /**< number of commands */
};

/* ---------------- verbs values ---------------- */

/** device_cap_flags bit: the device generates RNR NAKs for RC (IB_DEVICE_RC_RNR_NAK_GEN). */
#define VRDMA_IB_DEVICE_RC_RNR_NAK_GEN (1u << 0)

/** QP types (struct vrdma_cmd_create_qp's qp_type). */
enum vrdma_qp_type {
	VRDMA_QPT_SMI = 0, /**< subnet management QP: none in RoCE, refused */
	VRDMA_QPT_GSI = 1, /**< general services QP (QPN 1, UD semantics) */
	VRDMA_QPT_RC = 2,  /**< reliable connected */
	VRDMA_QPT_UC = 3,  /**< unreliable connected */
	VRDMA_QPT_UD = 4,  /**< unreliable datagram */
};

/** QP states (qp_state and cur_qp_state of MODIFY_QP and QUERY_QP). */
enum vrdma_qp_state {
	VRDMA_QPS_RESET, /**< reset: no work is taken */
	VRDMA_QPS_INIT,  /**< initialized: receives may be posted */
	VRDMA_QPS_RTR,   /**< ready to receive */
	VRDMA_QPS_RTS,   /**< ready to send */
	VRDMA_QPS_SQD,   /**< send queue drained */
	VRDMA_QPS_SQE,   /**< send queue error */
	VRDMA_QPS_ERR,   /**< error: outstanding work is flushed */
};

/** Path MTUs (MODIFY_QP's path_mtu): the IB MTU enumeration. */
enum vrdma_mtu {
	VRDMA_MTU_256 = 1,  /**< 256 bytes */
	VRDMA_MTU_512 = 2,  /**< 512 bytes */
	VRDMA_MTU_1024 = 3, /**< 1024 bytes */
	VRDMA_MTU_2048 = 4, /**< 2048 bytes */
	VRDMA_MTU_4096 = 5, /**< 4096 bytes */
};

/** MR and QP access flag: local write (access_flags, qp_access_flags). */
#define VRDMA_ACCESS_LOCAL_WRITE (1u << 0)
/** MR and QP access flag: remote write. */
#define VRDMA_ACCESS_REMOTE_WRITE (1u << 1)
/** MR and QP access flag: remote read. */
#define VRDMA_ACCESS_REMOTE_READ (1u << 2)
/**
 * MR and QP access flag: remote atomics (verbs' IBV_ACCESS_REMOTE_ATOMIC).
 * Extension: not in the RFC. Needs VRDMA_ACCESS_LOCAL_WRITE on an MR.
 */
#define VRDMA_ACCESS_REMOTE_ATOMIC (1u << 3)

/**
 * QUERY_DEVICE's atomic_cap (verbs' enum ibv_atomic_cap). Extension: the
 * RFC's byte there is padding, so a device without atomics answers NONE.
 */
enum vrdma_atomic_cap {
	VRDMA_ATOMIC_NONE = 0, /**< no atomics: do not use their opcodes or access flag */
	VRDMA_ATOMIC_HCA = 1,  /**< atomic between the device's own atomics, on any of its QPs */
	VRDMA_ATOMIC_GLOB = 2, /**< atomic against the CPUs' and other devices' atomics too */
};

/** MODIFY_QP attr_mask bit: qp_state. */
#define VRDMA_QP_ATTR_STATE (1u << 0)
/** attr_mask bit: cur_qp_state. */
#define VRDMA_QP_ATTR_CUR_STATE (1u << 1)
/** attr_mask bit: qp_access_flags. */
#define VRDMA_QP_ATTR_ACCESS_FLAGS (1u << 2)
/** attr_mask bit: qkey. */
#define VRDMA_QP_ATTR_QKEY (1u << 3)
/** attr_mask bit: ah_attr (the address vector). */
#define VRDMA_QP_ATTR_AV (1u << 4)
/** attr_mask bit: path_mtu. */
#define VRDMA_QP_ATTR_PATH_MTU (1u << 5)
/** attr_mask bit: timeout. */
#define VRDMA_QP_ATTR_TIMEOUT (1u << 6)
/** attr_mask bit: retry_cnt. */
#define VRDMA_QP_ATTR_RETRY_CNT (1u << 7)
/** attr_mask bit: rnr_retry. */
#define VRDMA_QP_ATTR_RNR_RETRY (1u << 8)
/** attr_mask bit: rq_psn. */
#define VRDMA_QP_ATTR_RQ_PSN (1u << 9)
/** attr_mask bit: max_rd_atomic. */
#define VRDMA_QP_ATTR_MAX_QP_RD_ATOMIC (1u << 10)
/** attr_mask bit: min_rnr_timer. */
#define VRDMA_QP_ATTR_MIN_RNR_TIMER (1u << 11)
/** attr_mask bit: sq_psn. */
#define VRDMA_QP_ATTR_SQ_PSN (1u << 12)
/** attr_mask bit: max_dest_rd_atomic. */
#define VRDMA_QP_ATTR_MAX_DEST_RD_ATOMIC (1u << 13)
/** attr_mask bit: cap. */
#define VRDMA_QP_ATTR_CAP (1u << 14)
/** attr_mask bit: dest_qp_num. */
#define VRDMA_QP_ATTR_DEST_QPN (1u << 15)
/** attr_mask bit: rate_limit. */
#define VRDMA_QP_ATTR_RATE_LIMIT (1u << 16)
/** Every attr_mask bit: the RFC's mask ends at RATE_LIMIT (bit 16). */
#define VRDMA_QP_ATTR_MASK_ALL ((1u << 17) - 1)

/**
 * Send request opcodes (struct vrdma_sq_req's opcode): the RFC's five, then
 * the atomics (extension), each of verbs' value (enum ibv_wr_opcode).
 */
enum vrdma_wr_opcode {
	VRDMA_WR_RDMA_WRITE,          /**< RDMA WRITE */
	VRDMA_WR_RDMA_WRITE_WITH_IMM, /**< RDMA WRITE with immediate data */
	VRDMA_WR_SEND,                /**< SEND */
	VRDMA_WR_SEND_WITH_IMM,       /**< SEND with immediate data */
	VRDMA_WR_RDMA_READ,           /**< RDMA READ */
	/**
	 * Extension: 8 bytes at atomic.remote_addr (8-byte aligned) are compared
	 * with atomic.compare_add and replaced by atomic.swap when equal; the
	 * original lands in the one SGE (8 bytes, 8-byte aligned). RC only.
	 */
	VRDMA_WR_ATOMIC_CMP_AND_SWP = 5,
	/**
	 * Extension: atomic.compare_add is added to the 8 bytes at
	 * atomic.remote_addr; the original lands in the one SGE, as for
	 * CMP_AND_SWP. RC only.
	 */
	VRDMA_WR_ATOMIC_FETCH_AND_ADD = 6,
};

/** send_flags bit: wait for earlier READs before this request. */
#define VRDMA_SEND_FENCE (1u << 0)
/** send_flags bit: complete this request even without sq_sig_all. */
#define VRDMA_SEND_SIGNALED (1u << 1)
/** send_flags bit: the message's last packet asks the receiver for an event. */
#define VRDMA_SEND_SOLICITED (1u << 2)
/** send_flags bit: the data is in inline_data (inline_len bytes), not in SGEs. */
#define VRDMA_SEND_INLINE (1u << 3)

/**
 * Completion opcodes (struct vrdma_cq_req's opcode). The RFC's five are not
 * verbs' values (its RECV is 3, verbs' 128), and verbs' COMP_SWAP and
 * FETCH_ADD (3, 4) are the RFC's RECV and RECV_RDMA_WITH_IMM here: the
 * atomics (extension) take the next free values, 5 and 6, which are also
 * lib/roce's, so the device passes them on unchanged as it does the others.
 */
enum vrdma_wc_opcode {
	VRDMA_WC_SEND,               /**< a SEND (with or without immediate) completed */
	VRDMA_WC_RDMA_WRITE,         /**< an RDMA WRITE completed */
	VRDMA_WC_RDMA_READ,          /**< an RDMA READ completed */
	VRDMA_WC_RECV,               /**< a receive took a SEND */
	VRDMA_WC_RECV_RDMA_WITH_IMM, /**< a receive took an RDMA WRITE's immediate data */
	VRDMA_WC_COMP_SWAP = 5,      /**< extension: a compare and swap completed */
	VRDMA_WC_FETCH_ADD = 6,      /**< extension: a fetch and add completed */
};

/** Completion statuses (struct vrdma_cq_req's status): the verbs work completion statuses. */
enum vrdma_wc_status {
	VRDMA_WC_SUCCESS,           /**< success */
	VRDMA_WC_LOC_LEN_ERR,       /**< local length error */
	VRDMA_WC_LOC_QP_OP_ERR,     /**< local QP operation error (a malformed request) */
	VRDMA_WC_LOC_PROT_ERR,      /**< local protection error */
	VRDMA_WC_WR_FLUSH_ERR,      /**< flushed: the QP is in ERR */
	VRDMA_WC_BAD_RESP_ERR,      /**< bad response */
	VRDMA_WC_LOC_ACCESS_ERR,    /**< local access error */
	VRDMA_WC_REM_INV_REQ_ERR,   /**< remote invalid request */
	VRDMA_WC_REM_ACCESS_ERR,    /**< remote access error */
	VRDMA_WC_REM_OP_ERR,        /**< remote operation error */
	VRDMA_WC_RETRY_EXC_ERR,     /**< transport retries exceeded */
	VRDMA_WC_RNR_RETRY_EXC_ERR, /**< RNR retries exceeded */
	VRDMA_WC_REM_ABORT_ERR,     /**< remote aborted */
	VRDMA_WC_FATAL_ERR,         /**< fatal error */
	VRDMA_WC_RESP_TIMEOUT_ERR,  /**< response timeout */
	VRDMA_WC_GENERAL_ERR,       /**< general error */
};

/** wc_flags bit: a GRH is in the first 40 bytes of the receive buffer (UD). */
#define VRDMA_WC_GRH (1u << 0)
/** wc_flags bit: imm_data is valid. */
#define VRDMA_WC_WITH_IMM (1u << 1)

/** REQ_NOTIFY_CQ flag: signal at the next solicited (or error) completion. */
#define VRDMA_NOTIFY_SOLICITED (1u << 0)
/** REQ_NOTIFY_CQ flag: signal at the next completion. */
#define VRDMA_NOTIFY_NEXT_COMPLETION (1u << 1)

/* ---------------- control command data and acks ---------------- */

/** Ack of QUERY_DEVICE: the device's limits. */
struct vrdma_ack_query_device {
	uint64_t device_cap_flags;    /**< VRDMA_IB_DEVICE_* bits */
	uint64_t max_mr_size;         /**< largest user MR, bytes */
	uint64_t page_size_cap;       /**< page sizes of user MRs */
	uint32_t hw_ver;              /**< hardware version */
	uint32_t max_qp_wr;           /**< entries of a send or receive queue */
	uint32_t max_send_sge;        /**< SGEs of a send request */
	uint32_t max_recv_sge;        /**< SGEs of a receive request */
	uint32_t max_sge_rd;          /**< SGEs of an RDMA READ */
	uint32_t max_cqe;             /**< entries of a CQ */
	uint32_t max_mr;              /**< MRs */
	uint32_t max_pd;              /**< PDs */
	uint32_t max_qp_rd_atom;      /**< READs and atomics in flight a QP answers */
	uint32_t max_qp_init_rd_atom; /**< READs and atomics in flight a QP starts */
	uint32_t max_ah;              /**< AHs */
	uint8_t local_ca_ack_delay;   /**< the IBA's local ack delay exponent */
	/**
	 * Extension: enum vrdma_atomic_cap. The RFC's padding[0], zero
	 * (VRDMA_ATOMIC_NONE) from a device without atomics.
	 */
	uint8_t atomic_cap;
	uint8_t padding[2];           /**< zero */
	uint32_t reserved[14];        /**< zero */
};

/** Ack of QUERY_PORT. */
struct vrdma_ack_query_port {
	uint32_t gid_tbl_len;  /**< GID table entries */
	uint32_t max_msg_sz;   /**< largest message, bytes */
	uint32_t reserved[6];  /**< zero */
};

/** Data of CREATE_CQ. */
struct vrdma_cmd_create_cq {
	uint32_t cqe; /**< entries the CQ holds */
};

/**
 * Ack of CREATE_CQ, CREATE_PD, CREATE_QP and CREATE_AH: one handle. A CQ's
 * number n names its ring (3 + n), a QP's number its send and receive rings.
 */
struct vrdma_ack_handle {
	uint32_t handle; /**< the new object's number */
};

/** Data of DESTROY_CQ, DESTROY_PD, DEREG_MR and DESTROY_QP: one handle. */
struct vrdma_cmd_handle {
	uint32_t handle; /**< the object's number (an MR's: its lkey) */
};

/** Data of GET_DMA_MR: an MR over all of guest-physical memory. */
struct vrdma_cmd_get_dma_mr {
	uint32_t pdn;          /**< protection domain */
	uint32_t access_flags; /**< VRDMA_ACCESS_* bits */
};

/** Data of REG_USER_MR: this head, then npages guest-physical page addresses. */
struct vrdma_cmd_reg_user_mr {
	uint32_t pdn;          /**< protection domain */
	uint32_t access_flags; /**< VRDMA_ACCESS_* bits */
	uint64_t virt_addr;    /**< the MR's first byte as the guest's verbs address it */
	uint64_t length;       /**< bytes */
	uint32_t npages;       /**< entries of pages[] */
	uint32_t padding;      /**< zero */
	uint64_t pages[];      /**< guest-physical address of each 4 KiB page */
};

/** Ack of GET_DMA_MR and REG_USER_MR. */
struct vrdma_ack_mr {
	uint32_t mrn;  /**< the MR's number (DEREG_MR's handle) */
	uint32_t lkey; /**< local key (SGEs) */
	uint32_t rkey; /**< remote key (RDMA requests of the peer) */
};

/** A QP's queue sizes (CREATE_QP; MODIFY_QP and QUERY_QP's attributes). */
struct vrdma_qp_cap {
	uint32_t max_send_wr;     /**< send queue entries */
	uint32_t max_recv_wr;     /**< receive queue entries (0: no receive queue) */
	uint32_t max_send_sge;    /**< SGEs of a send request */
	uint32_t max_recv_sge;    /**< SGEs of a receive request */
	uint32_t max_inline_data; /**< inline bytes of a send request */
	uint32_t padding;         /**< zero */
};

/** Data of CREATE_QP. */
struct vrdma_cmd_create_qp {
	uint32_t pdn;         /**< protection domain */
	uint8_t qp_type;      /**< enum vrdma_qp_type */
	uint8_t sq_sig_all;   /**< every send request completes, signaled or not */
	uint8_t padding[2];   /**< zero */
	uint32_t send_cqn;    /**< CQ of the send queue */
	uint32_t recv_cqn;    /**< CQ of the receive queue */
	struct vrdma_qp_cap cap; /**< queue sizes */
	uint32_t reserved[4]; /**< zero */
};

/** The global route header part of an address vector. */
struct vrdma_global_route {
	uint8_t dgid[16];     /**< destination GID */
	uint32_t flow_label;  /**< flow label */
	uint8_t sgid_index;   /**< source GID's index in the device's table */
	uint8_t hop_limit;    /**< hop limit (IP TTL) */
	uint8_t traffic_class; /**< traffic class */
	uint8_t padding;      /**< zero */
};

/** An address vector (a QP's path, an AH). */
struct vrdma_ah_attr {
	struct vrdma_global_route grh; /**< the route */
	uint8_t dmac[6];               /**< destination MAC */
	uint8_t reserved[10];          /**< zero */
};

/** The part MODIFY_QP and QUERY_QP's ack share, from qkey on. */
struct vrdma_qp_attrs {
	uint32_t qkey;            /**< Q_Key (UD) */
	uint32_t rq_psn;          /**< receive queue's first PSN */
	uint32_t sq_psn;          /**< send queue's first PSN */
	uint32_t dest_qp_num;     /**< the peer's QP number (RC, UC) */
	uint32_t qp_access_flags; /**< VRDMA_ACCESS_* bits the QP grants its peer */
	uint32_t rate_limit;      /**< rate limit */
	struct vrdma_qp_cap cap;  /**< queue sizes */
	struct vrdma_ah_attr ah_attr; /**< the path (RC, UC) */
	uint32_t reserved[4];     /**< zero */
};

/** Data of MODIFY_QP: the attributes attr_mask names are applied. */
struct vrdma_cmd_modify_qp {
	uint32_t qpn;               /**< the QP */
	uint32_t attr_mask;         /**< VRDMA_QP_ATTR_* bits */
	uint8_t qp_state;           /**< enum vrdma_qp_state to move to */
	uint8_t cur_qp_state;       /**< enum vrdma_qp_state the QP is believed in */
	uint8_t path_mtu;           /**< enum vrdma_mtu */
	uint8_t max_rd_atomic;      /**< READs in flight the QP starts */
	uint8_t max_dest_rd_atomic; /**< READs in flight the QP answers */
	uint8_t min_rnr_timer;      /**< the IBA's RNR NAK timer code */
	uint8_t timeout;            /**< the IBA's local ack timeout exponent */
	uint8_t retry_cnt;          /**< transport retries */
	uint8_t rnr_retry;          /**< RNR retries (7: infinite) */
	uint8_t padding[7];         /**< zero */
	struct vrdma_qp_attrs a;    /**< the other attributes */
};

/** Data of QUERY_QP. */
struct vrdma_cmd_query_qp {
	uint32_t qpn;       /**< the QP */
	uint32_t attr_mask; /**< VRDMA_QP_ATTR_* bits asked for (every one is answered) */
};

/** Ack of QUERY_QP. */
struct vrdma_ack_query_qp {
	uint8_t qp_state;           /**< enum vrdma_qp_state */
	uint8_t path_mtu;           /**< enum vrdma_mtu */
	uint8_t sq_draining;        /**< the send queue is draining (SQD) */
	uint8_t max_rd_atomic;      /**< as in struct vrdma_cmd_modify_qp */
	uint8_t max_dest_rd_atomic; /**< as in struct vrdma_cmd_modify_qp */
	uint8_t min_rnr_timer;      /**< as in struct vrdma_cmd_modify_qp */
	uint8_t timeout;            /**< as in struct vrdma_cmd_modify_qp */
	uint8_t retry_cnt;          /**< as in struct vrdma_cmd_modify_qp */
	uint8_t rnr_retry;          /**< as in struct vrdma_cmd_modify_qp */
	uint8_t padding[7];         /**< zero */
	struct vrdma_qp_attrs a;    /**< the other attributes */
};

/** Data of CREATE_AH. */
struct vrdma_cmd_create_ah {
	uint32_t pdn;                 /**< protection domain */
	uint32_t padding;             /**< zero */
	struct vrdma_ah_attr ah_attr; /**< the address */
};

/** Data of DESTROY_AH. */
struct vrdma_cmd_destroy_ah {
	uint32_t pdn; /**< the PD the AH belongs to */
	uint32_t ah;  /**< the AH's number */
};

/** Data of ADD_GID. */
struct vrdma_cmd_add_gid {
	uint16_t index;      /**< entry of the GID table */
	uint16_t padding[3]; /**< zero */
	uint8_t gid[16];     /**< the GID (an IPv4-mapped or IPv6 address) */
};

/** Data of DEL_GID. */
struct vrdma_cmd_del_gid {
	uint16_t index; /**< entry of the GID table */
};

/** Data of REQ_NOTIFY_CQ: arm a CQ. */
struct vrdma_cmd_req_notify {
	uint32_t cqn;   /**< the CQ */
	uint32_t flags; /**< VRDMA_NOTIFY_* bits */
};

/* sizes as the RFC's layouts add up */
static_assert(sizeof(struct vrdma_ack_query_device) == 128, "query_device ack");
static_assert(sizeof(struct vrdma_ack_query_port) == 32, "query_port ack");
static_assert(sizeof(struct vrdma_cmd_reg_user_mr) == 32, "reg_user_mr head");
static_assert(sizeof(struct vrdma_cmd_create_qp) == 56, "create_qp");
static_assert(sizeof(struct vrdma_ah_attr) == 40, "ah_attr");
static_assert(sizeof(struct vrdma_cmd_modify_qp) == 128, "modify_qp");
static_assert(sizeof(struct vrdma_ack_query_qp) == 120, "query_qp ack");
static_assert(sizeof(struct vrdma_cmd_create_ah) == 48, "create_ah");
static_assert(sizeof(struct vrdma_cmd_add_gid) == 24, "add_gid");

/* ---------------- the RDMA queues ---------------- */

/** A scatter/gather element: a piece of a registered MR. */
struct vrdma_sge {
	uint64_t addr;   /**< first byte, in the MR's virt_addr range (a DMA MR: guest-physical) */
	uint32_t length; /**< bytes */
	uint32_t lkey;   /**< the MR's local key */
};

/** A send queue request: this head, then num_sge x struct vrdma_sge (none when inline). */
struct vrdma_sq_req {
	uint64_t wr_id;       /**< returned in the request's completion */
	uint8_t opcode;       /**< enum vrdma_wr_opcode */
	uint8_t send_flags;   /**< VRDMA_SEND_* bits */
	uint16_t padding;     /**< zero */
	uint32_t imm_data;    /**< immediate data, network byte order (the WITH_IMM opcodes) */
	union {
		/** RDMA WRITE and READ: the peer's memory */
		struct {
			uint64_t remote_addr; /**< the peer MR's address */
			uint32_t rkey;        /**< the peer MR's remote key */
		} rdma;
		/** Extension: ATOMIC_CMP_AND_SWP and ATOMIC_FETCH_AND_ADD (RC) */
		struct {
			uint64_t remote_addr; /**< the peer's 8 bytes (8-byte aligned) */
			uint64_t compare_add; /**< CMP_AND_SWP: compared; FETCH_AND_ADD: added */
			uint64_t swap;        /**< CMP_AND_SWP: stored when equal; else unused */
			uint32_t rkey;        /**< the peer MR's remote key */
		} atomic;
		/** UD: the destination */
		struct {
			uint32_t remote_qpn;  /**< the destination QP */
			uint32_t remote_qkey; /**< its Q_Key */
			uint32_t ah;          /**< the AH (of the QP's PD) */
		} ud;
		uint64_t reserved[4]; /**< the union's size */
	};
	uint8_t inline_data[512]; /**< the data of an INLINE request */
	union {
		uint32_t num_sge;    /**< SGEs after the head (not INLINE) */
		uint16_t inline_len; /**< bytes of inline_data (INLINE) */
	};
	uint32_t reserved2[3]; /**< zero */
};

/** A receive queue request: this head, then num_sge x struct vrdma_sge. */
struct vrdma_rq_req {
	uint64_t wr_id;       /**< returned in the request's completion */
	uint32_t num_sge;     /**< SGEs after the head */
	uint32_t reserved[3]; /**< zero */
};

/** A completion, written by the device into a completion queue buffer. */
struct vrdma_cq_req {
	uint64_t wr_id;       /**< the request's */
	uint8_t status;       /**< enum vrdma_wc_status */
	uint8_t opcode;       /**< enum vrdma_wc_opcode */
	uint16_t padding;     /**< zero */
	uint32_t vendor_err;  /**< device-specific detail of an error */
	uint32_t byte_len;    /**< bytes received; for a send request, its message length */
	uint32_t imm_data;    /**< immediate data, network byte order (VRDMA_WC_WITH_IMM) */
	uint32_t qp_num;      /**< the QP the request was posted to */
	uint32_t src_qp;      /**< the sender's QP (UD receives) */
	uint32_t wc_flags;    /**< VRDMA_WC_GRH, VRDMA_WC_WITH_IMM */
	uint32_t reserved[3]; /**< zero */
};

static_assert(sizeof(struct vrdma_sge) == 16, "sge");
static_assert(sizeof(struct vrdma_sq_req) == 576, "sq_req head");
/* the atomic extension fits the RFC's 32-byte union: every offset is the RFC's */
static_assert(sizeof(((struct vrdma_sq_req *)0)->atomic) <= 32, "sq_req atomic");
static_assert(offsetof(struct vrdma_sq_req, inline_data) == 48, "sq_req inline_data");
static_assert(offsetof(struct vrdma_ack_query_device, atomic_cap) == 69, "atomic_cap");
static_assert(sizeof(struct vrdma_rq_req) == 24, "rq_req head");
static_assert(sizeof(struct vrdma_cq_req) == 48, "cq_req");

/**
 * Name a completion status, as lib/roce's roce_wc_status_str() does.
 * @param status
 *   A struct vrdma_cq_req's status.
 * @return "SUCCESS", "WR_FLUSH_ERR", ... ("?" for a value the RFC does not define).
 */
static inline const char *
vrdma_wc_status_str(uint8_t status)
{
	static const char *const names[] = {
		"SUCCESS", "LOC_LEN_ERR", "LOC_QP_OP_ERR", "LOC_PROT_ERR", "WR_FLUSH_ERR",
		"BAD_RESP_ERR", "LOC_ACCESS_ERR", "REM_INV_REQ_ERR", "REM_ACCESS_ERR",
		"REM_OP_ERR", "RETRY_EXC_ERR", "RNR_RETRY_EXC_ERR", "REM_ABORT_ERR",
		"FATAL_ERR", "RESP_TIMEOUT_ERR", "GENERAL_ERR",
	};

	return status < sizeof(names) / sizeof(names[0]) ? names[status] : "?";
}

#pragma pack(pop)

#ifdef __cplusplus
}
#endif

#endif /* VRDMA_ABI_H */
