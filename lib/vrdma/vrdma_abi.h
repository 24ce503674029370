/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef VRDMA_ABI_H
#define VRDMA_ABI_H

/*
 * The RoCE control commands and their ack-specific data, as laid out by
 * the virtio-net RoCE RFC (little-endian, packed), under our own names.
 */

#include <assert.h>
#include <stdint.h>

#include <rte_common.h>

/* control-queue ack byte */
#define VRDMA_NET_OK 0
#define VRDMA_NET_ERR 1

enum vrdma_cmd_code {
	VRDMA_CMD_QUERY_DEVICE,
	VRDMA_CMD_QUERY_PORT,
	VRDMA_CMD_CREATE_CQ,
	VRDMA_CMD_DESTROY_CQ,
	VRDMA_CMD_CREATE_PD,
	VRDMA_CMD_DESTROY_PD,
	VRDMA_CMD_GET_DMA_MR,
	VRDMA_CMD_REG_USER_MR,
	VRDMA_CMD_DEREG_MR,
	VRDMA_CMD_CREATE_QP,
	VRDMA_CMD_MODIFY_QP,
	VRDMA_CMD_QUERY_QP,
	VRDMA_CMD_DESTROY_QP,
	VRDMA_CMD_CREATE_AH,
	VRDMA_CMD_DESTROY_AH,
	VRDMA_CMD_ADD_GID,
	VRDMA_CMD_DEL_GID,
	VRDMA_CMD_REQ_NOTIFY_CQ,
	VRDMA_CMD_COUNT
};

#define VRDMA_IB_DEVICE_RC_RNR_NAK_GEN (1u << 0)

struct vrdma_ack_query_device {
	uint64_t device_cap_flags;
	uint64_t max_mr_size;
	uint64_t page_size_cap;
	uint32_t hw_ver;
	uint32_t max_qp_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_sge_rd;
	uint32_t max_cqe;
	uint32_t max_mr;
	uint32_t max_pd;
	uint32_t max_qp_rd_atom;
	uint32_t max_qp_init_rd_atom;
	uint32_t max_ah;
	uint8_t local_ca_ack_delay;
	uint8_t padding[3];
	uint32_t reserved[14];
} __rte_packed;

struct vrdma_ack_query_port {
	uint32_t gid_tbl_len;
	uint32_t max_msg_sz;
	uint32_t reserved[6];
} __rte_packed;

struct vrdma_cmd_create_cq {
	uint32_t cqe;
} __rte_packed;

/* ack of CREATE_CQ, CREATE_PD, CREATE_QP and CREATE_AH: one handle */
struct vrdma_ack_handle {
	uint32_t handle;
} __rte_packed;

/* DESTROY_CQ, DESTROY_PD, DEREG_MR, DESTROY_QP: one handle */
struct vrdma_cmd_handle {
	uint32_t handle;
} __rte_packed;

struct vrdma_cmd_get_dma_mr {
	uint32_t pdn;
	uint32_t access_flags;
} __rte_packed;

struct vrdma_cmd_reg_user_mr {
	uint32_t pdn;
	uint32_t access_flags;
	uint64_t virt_addr;
	uint64_t length;
	uint32_t npages;
	uint32_t padding;
	uint64_t pages[];
} __rte_packed;

struct vrdma_ack_mr {
	uint32_t mrn;
	uint32_t lkey;
	uint32_t rkey;
} __rte_packed;

struct vrdma_qp_cap {
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
	uint32_t padding;
} __rte_packed;

#define VRDMA_QPT_SMI 0

struct vrdma_cmd_create_qp {
	uint32_t pdn;
	uint8_t qp_type;
	uint8_t sq_sig_all;
	uint8_t padding[2];
	uint32_t send_cqn;
	uint32_t recv_cqn;
	struct vrdma_qp_cap cap;
	uint32_t reserved[4];
} __rte_packed;

struct vrdma_global_route {
	uint8_t dgid[16];
	uint32_t flow_label;
	uint8_t sgid_index;
	uint8_t hop_limit;
	uint8_t traffic_class;
	uint8_t padding;
} __rte_packed;

struct vrdma_ah_attr {
	struct vrdma_global_route grh;
	uint8_t dmac[6];
	uint8_t reserved[10];
} __rte_packed;

/* The part MODIFY_QP and QUERY_QP's ack share, from qkey on. */
struct vrdma_qp_attrs {
	uint32_t qkey;
	uint32_t rq_psn;
	uint32_t sq_psn;
	uint32_t dest_qp_num;
	uint32_t qp_access_flags;
	uint32_t rate_limit;
	struct vrdma_qp_cap cap;
	struct vrdma_ah_attr ah_attr;
	uint32_t reserved[4];
} __rte_packed;

/* the RFC's attribute mask ends at RATE_LIMIT (bit 16) */
#define VRDMA_QP_ATTR_MASK_ALL ((1u << 17) - 1)

struct vrdma_cmd_modify_qp {
	uint32_t qpn;
	uint32_t attr_mask;
	uint8_t qp_state;
	uint8_t cur_qp_state;
	uint8_t path_mtu;
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
	uint8_t min_rnr_timer;
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t padding[7];
	struct vrdma_qp_attrs a;
} __rte_packed;

struct vrdma_cmd_query_qp {
	uint32_t qpn;
	uint32_t attr_mask;
} __rte_packed;

struct vrdma_ack_query_qp {
	uint8_t qp_state;
	uint8_t path_mtu;
	uint8_t sq_draining;
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
	uint8_t min_rnr_timer;
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t padding[7];
	struct vrdma_qp_attrs a;
} __rte_packed;

struct vrdma_cmd_create_ah {
	uint32_t pdn;
	uint32_t padding;
	struct vrdma_ah_attr ah_attr;
} __rte_packed;

struct vrdma_cmd_destroy_ah {
	uint32_t pdn;
	uint32_t ah;
} __rte_packed;

struct vrdma_cmd_add_gid {
	uint16_t index;
	uint16_t padding[3];
	uint8_t gid[16];
} __rte_packed;

struct vrdma_cmd_del_gid {
	uint16_t index;
} __rte_packed;

struct vrdma_cmd_req_notify {
	uint32_t cqn;
	uint32_t flags;
} __rte_packed;

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

/* control buffer head: class, command */
struct vrdma_ctrl_hdr {
	uint8_t class_;
	uint8_t cmd;
} __rte_packed;

/* ---------------- the RDMA queues ---------------- */

/* send_flags of a send request */
#define VRDMA_SEND_FENCE (1u << 0)
#define VRDMA_SEND_SIGNALED (1u << 1)
#define VRDMA_SEND_SOLICITED (1u << 2)
#define VRDMA_SEND_INLINE (1u << 3)

/* REQ_NOTIFY_CQ flags */
#define VRDMA_NOTIFY_SOLICITED (1u << 0)
#define VRDMA_NOTIFY_NEXT_COMPLETION (1u << 1)

struct vrdma_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
} __rte_packed;

/* A send queue request: this head, then num_sge x struct vrdma_sge (none when inline). */
struct vrdma_sq_req {
	uint64_t wr_id;
	uint8_t opcode;       /* WRITE, WRITE_WITH_IMM, SEND, SEND_WITH_IMM, READ (lib/roce's values) */
	uint8_t send_flags;   /* FENCE, SIGNALED, SOLICITED, INLINE (lib/roce's values) */
	uint16_t padding;
	uint32_t imm_data;    /* network byte order */
	union {
		struct {
			uint64_t remote_addr;
			uint32_t rkey;
		} __rte_packed rdma;
		struct {
			uint32_t remote_qpn;
			uint32_t remote_qkey;
			uint32_t ah;
		} __rte_packed ud;
		uint64_t reserved[4];
	};
	uint8_t inline_data[512];
	union {
		uint32_t num_sge;
		uint16_t inline_len;
	};
	uint32_t reserved2[3];
} __rte_packed;

/* A receive queue request: this head, then num_sge x struct vrdma_sge. */
struct vrdma_rq_req {
	uint64_t wr_id;
	uint32_t num_sge;
	uint32_t reserved[3];
} __rte_packed;

/* A completion, written into a completion queue buffer. */
struct vrdma_cq_req {
	uint64_t wr_id;
	uint8_t status;       /* lib/roce's enum roce_wc_status values */
	uint8_t opcode;       /* lib/roce's enum roce_wc_opcode values */
	uint16_t padding;
	uint32_t vendor_err;
	uint32_t byte_len;
	uint32_t imm_data;    /* network byte order */
	uint32_t qp_num;
	uint32_t src_qp;
	uint32_t wc_flags;    /* GRH, WITH_IMM */
	uint32_t reserved[3];
} __rte_packed;

static_assert(sizeof(struct vrdma_sge) == 16, "sge");
static_assert(sizeof(struct vrdma_sq_req) == 576, "sq_req head");
static_assert(sizeof(struct vrdma_rq_req) == 24, "rq_req head");
static_assert(sizeof(struct vrdma_cq_req) == 48, "cq_req");

#endif /* VRDMA_ABI_H */
