/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _ROCE_H_
#define _ROCE_H_

/**
 * @file
 * A software RoCE v2 transport: verbs-style objects (device, PD, MR, CQ, AH,
 * QP) and a poll-mode engine that turns work requests into RoCE v2 frames
 * and received frames into completions, interoperating with Linux rxe.
 *
 * Threading: a device and everything created on it belong to one thread at
 * a time, normally the lcore that calls roce_dev_poll(). No call takes a
 * lock; an application that drives a device from several threads serializes
 * the calls itself. Frames come in through the device's rx ring and leave
 * through its tx ring (rte_ring), so the engine sits in a lib/pipeline chain
 * in front of any ethdev.
 *
 * Errors: functions that can refuse return a negative errno (or NULL with
 * rte_errno set) and leave the object unchanged; roce_dev_last_error() then
 * says why in words. See doc/roce.md.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#ifdef __cplusplus
extern "C" {
#endif

/** UDP destination port of RoCE v2. */
#define ROCE_UDP_PORT 4791
/** Bytes of a GID. */
#define ROCE_GID_LEN 16
/** The only P_Key (table of one entry, as rxe). */
#define ROCE_DEFAULT_PKEY 0xffff
/** Q_Key of the GSI QP (QP1). */
#define ROCE_GSI_QKEY 0x80010000u
/** QPN of the GSI QP. */
#define ROCE_GSI_QPN 1
/** ah_attr.vlan_id value: no VLAN tag. */
#define ROCE_VLAN_NONE 0xffff
/** Bytes of the GRH placed at the start of a UD receive buffer. */
#define ROCE_GRH_LEN 40
/** Most SGEs a work request may carry. */
#define ROCE_MAX_SGE 32
/** Most inline bytes of a send work request. */
#define ROCE_MAX_INLINE 512
/** Largest message (as rxe's max_msg_sz). */
#define ROCE_MAX_MSG_SIZE 0x800000u
/** Size of the buffer given to roce_dev_create() for error text. */
#define ROCE_ERR_LEN 160

/** QP transport types (values as the virtio-net RoCE RFC). */
enum roce_qp_type {
	ROCE_QPT_GSI = 1, /**< general services QP, QPN 1, UD semantics */
	ROCE_QPT_RC = 2,  /**< reliable connected */
	ROCE_QPT_UC = 3,  /**< unreliable connected */
	ROCE_QPT_UD = 4,  /**< unreliable datagram */
};

/** QP states (values as the RFC). */
enum roce_qp_state {
	ROCE_QPS_RESET, /**< created or reset: nothing may be posted */
	ROCE_QPS_INIT,  /**< initialized: receives may be posted */
	ROCE_QPS_RTR,   /**< ready to receive */
	ROCE_QPS_RTS,   /**< ready to send */
	ROCE_QPS_SQD,   /**< send queue drain */
	ROCE_QPS_SQE,   /**< send queue error (IBA; this engine never enters it) */
	ROCE_QPS_ERR,   /**< error: WRs are flushed */
};

/** Path MTU codes (values as the RFC and IBA). */
enum roce_mtu {
	ROCE_MTU_256 = 1,  /**< 256 bytes */
	ROCE_MTU_512 = 2,  /**< 512 bytes */
	ROCE_MTU_1024 = 3, /**< 1024 bytes */
	ROCE_MTU_2048 = 4, /**< 2048 bytes */
	ROCE_MTU_4096 = 5, /**< 4096 bytes */
};

/** MR and QP access flags (first three as the RFC). */
enum roce_access {
	ROCE_ACCESS_LOCAL_WRITE = 1 << 0,   /**< local writes (receives, READ and atomic results) */
	ROCE_ACCESS_REMOTE_WRITE = 1 << 1,  /**< peers may RDMA WRITE */
	ROCE_ACCESS_REMOTE_READ = 1 << 2,   /**< peers may RDMA READ */
	ROCE_ACCESS_REMOTE_ATOMIC = 1 << 3, /**< peers may run atomics */
};

/** roce_qp_modify() attribute mask (first 17 bits as the RFC). */
enum roce_qp_attr_mask {
	ROCE_QP_STATE = 1 << 0,               /**< qp_state */
	ROCE_QP_CUR_STATE = 1 << 1,           /**< cur_qp_state */
	ROCE_QP_ACCESS_FLAGS = 1 << 2,        /**< qp_access_flags */
	ROCE_QP_QKEY = 1 << 3,                /**< qkey */
	ROCE_QP_AV = 1 << 4,                  /**< ah_attr */
	ROCE_QP_PATH_MTU = 1 << 5,            /**< path_mtu */
	ROCE_QP_TIMEOUT = 1 << 6,             /**< timeout */
	ROCE_QP_RETRY_CNT = 1 << 7,           /**< retry_cnt */
	ROCE_QP_RNR_RETRY = 1 << 8,           /**< rnr_retry */
	ROCE_QP_RQ_PSN = 1 << 9,              /**< rq_psn */
	ROCE_QP_MAX_QP_RD_ATOMIC = 1 << 10,   /**< max_rd_atomic */
	ROCE_QP_MIN_RNR_TIMER = 1 << 11,      /**< min_rnr_timer */
	ROCE_QP_SQ_PSN = 1 << 12,             /**< sq_psn */
	ROCE_QP_MAX_DEST_RD_ATOMIC = 1 << 13, /**< max_dest_rd_atomic */
	ROCE_QP_CAP = 1 << 14,                /**< cap */
	ROCE_QP_DEST_QPN = 1 << 15,           /**< dest_qp_num */
	ROCE_QP_RATE_LIMIT = 1 << 16,         /**< rate_limit */
	ROCE_QP_PKEY_INDEX = 1 << 17,         /**< must be 0: one P_Key */
	ROCE_QP_PORT = 1 << 18,               /**< must be 1: one port */
};

/** Send work request opcodes (first five as the RFC). */
enum roce_wr_opcode {
	ROCE_WR_RDMA_WRITE,           /**< RDMA WRITE */
	ROCE_WR_RDMA_WRITE_WITH_IMM,  /**< RDMA WRITE with immediate data */
	ROCE_WR_SEND,                 /**< SEND */
	ROCE_WR_SEND_WITH_IMM,        /**< SEND with immediate data */
	ROCE_WR_RDMA_READ,            /**< RDMA READ */
	ROCE_WR_ATOMIC_CMP_AND_SWP,   /**< atomic compare and swap */
	ROCE_WR_ATOMIC_FETCH_AND_ADD, /**< atomic fetch and add */
};

/** Send flags (as the RFC). */
enum roce_send_flags {
	ROCE_SEND_FENCE = 1 << 0,     /**< wait for earlier READs/atomics */
	ROCE_SEND_SIGNALED = 1 << 1,  /**< completion even without sq_sig_all */
	ROCE_SEND_SOLICITED = 1 << 2, /**< set SE in the last packet */
	ROCE_SEND_INLINE = 1 << 3,    /**< data in inline_data, copied at post */
};

/** Work completion opcodes (first five as the RFC). */
enum roce_wc_opcode {
	ROCE_WC_SEND,               /**< a SEND completed */
	ROCE_WC_RDMA_WRITE,         /**< an RDMA WRITE completed */
	ROCE_WC_RDMA_READ,          /**< an RDMA READ completed */
	ROCE_WC_RECV,               /**< a receive took a SEND */
	ROCE_WC_RECV_RDMA_WITH_IMM, /**< a receive took a WRITE with immediate data */
	ROCE_WC_COMP_SWAP,          /**< a compare and swap completed */
	ROCE_WC_FETCH_ADD,          /**< a fetch and add completed */
};

/** Work completion status (values as the RFC). */
enum roce_wc_status {
	ROCE_WC_SUCCESS,           /**< success */
	ROCE_WC_LOC_LEN_ERR,       /**< local length error */
	ROCE_WC_LOC_QP_OP_ERR,     /**< local QP operation error */
	ROCE_WC_LOC_PROT_ERR,      /**< local protection error */
	ROCE_WC_WR_FLUSH_ERR,      /**< flushed (the QP is in ERR) */
	ROCE_WC_BAD_RESP_ERR,      /**< bad response */
	ROCE_WC_LOC_ACCESS_ERR,    /**< local access error */
	ROCE_WC_REM_INV_REQ_ERR,   /**< remote invalid request */
	ROCE_WC_REM_ACCESS_ERR,    /**< remote access error */
	ROCE_WC_REM_OP_ERR,        /**< remote operational error */
	ROCE_WC_RETRY_EXC_ERR,     /**< transport retries exceeded */
	ROCE_WC_RNR_RETRY_EXC_ERR, /**< RNR retries exceeded */
	ROCE_WC_REM_ABORT_ERR,     /**< remote aborted */
	ROCE_WC_FATAL_ERR,         /**< fatal error */
	ROCE_WC_RESP_TIMEOUT_ERR,  /**< response timeout */
	ROCE_WC_GENERAL_ERR,       /**< other error */
};

/** Work completion flags (as the RFC). */
enum roce_wc_flags {
	ROCE_WC_GRH = 1 << 0,      /**< a GRH is in the first 40 bytes (UD) */
	ROCE_WC_WITH_IMM = 1 << 1, /**< imm_data is valid */
};

/** roce_cq_arm() flags (as the RFC). */
enum roce_cq_notify {
	ROCE_CQ_SOLICITED = 1 << 0,       /**< next solicited or error completion */
	ROCE_CQ_NEXT_COMPLETION = 1 << 1, /**< next completion */
};

/** Asynchronous events (roce_dev_conf.event_cb). */
enum roce_event {
	ROCE_EVENT_QP_FATAL,   /**< a QP entered ERR on its own */
	ROCE_EVENT_SQ_DRAINED, /**< a QP in SQD has no message in flight */
	ROCE_EVENT_CQ_ERR,     /**< a CQ overflowed; its QPs entered ERR */
};

struct roce_dev;
struct roce_pd;
struct roce_mr;
struct roce_cq;
struct roce_ah;
struct roce_qp;

/**
 * Translates an address of a memory region's address space (a guest
 * physical address, say) to a host pointer.
 *
 * @param ctx
 *   roce_mr_conf.xlate_ctx.
 * @param addr
 *   The address.
 * @param len
 *   Bytes wanted from addr.
 * @param[out] contig
 *   Bytes from addr that are contiguous at the returned pointer (may be
 *   fewer than len).
 * @return
 *   The host pointer, or NULL when addr is not mapped.
 */
typedef void *(*roce_xlate_fn)(void *ctx, uint64_t addr, uint64_t len,
			       uint64_t *contig);

/** Device event callback; runs on the polling thread. */
typedef void (*roce_event_fn)(void *arg, enum roce_event ev, uint32_t id);

/** Completion notification (an armed CQ got a completion); runs on the polling thread. */
typedef void (*roce_cq_notify_fn)(void *arg, struct roce_cq *cq);

/** Limits of a device; 0 in roce_dev_conf takes the default shown. */
struct roce_dev_limits {
	uint32_t max_qp;          /**< QPs (with GSI); default 1024 */
	uint32_t max_qp_wr;       /**< WRs per queue; default 4096 */
	uint32_t max_sge;         /**< SGEs per WR, <= ROCE_MAX_SGE; default 32 */
	uint32_t max_inline;      /**< inline bytes, <= ROCE_MAX_INLINE; default 512 */
	uint32_t max_cq;          /**< CQs; default 1024 */
	uint32_t max_cqe;         /**< CQEs per CQ; default 32767 */
	uint32_t max_mr;          /**< MRs; default 65535 */
	uint64_t max_mr_size;     /**< bytes per MR; default 1 << 40 */
	uint32_t max_pd;          /**< PDs; default 65535 */
	uint32_t max_ah;          /**< AHs; default 32767 */
	uint32_t max_qp_rd_atom;  /**< READ/atomic resources per QP, <= 128; default 128 */
	uint32_t gid_tbl_len;     /**< GID entries; default 16 */
};

/** Configuration of a device (roce_dev_create()). */
struct roce_dev_conf {
	const char *name;               /**< for logs; NULL: "roce" */
	uint8_t mac[6];                 /**< the device's Ethernet address */
	uint16_t mtu;                   /**< Ethernet MTU; 0: 1500. Path MTU <= largest IB MTU in mtu - 80 */
	struct rte_ring *rx_ring;       /**< frames from the wire (the engine dequeues) */
	struct rte_ring *tx_ring;       /**< frames to the wire (the engine enqueues) */
	struct rte_ring *pass_ring;     /**< frames on rx_ring that are not RoCE for this
					 *   device go here (a host's own stack shares the
					 *   port); NULL, or when full: freed. Counted in
					 *   rx_not_roce either way, passed ones also in rx_passed */
	struct rte_mempool *pool;       /**< mbufs of the frames the engine builds */
	int socket_id;                  /**< memory of the objects; SOCKET_ID_ANY */
	struct roce_dev_limits limits;  /**< 0 fields: defaults */
	roce_event_fn event_cb;         /**< optional */
	void *event_arg;                /**< its argument */
	/**
	 * 0: QPNs start at 17 and a reused QP slot gets a new number (stale
	 * peers miss). Otherwise QPN = first_qpn + slot (2 or more), reused as
	 * is: for devices whose QPN names a queue (virtio-net RoCE).
	 */
	uint32_t first_qpn;
	/**
	 * Receive VLAN filter. true: a VLAN-tagged frame for one of the
	 * device's GIDs is taken only with VID 0 (a priority tag) or
	 * @p vlan_id, any other VID is dropped (rx_bad_vlan); untagged
	 * frames are always taken. false: any VID is taken.
	 */
	bool vlan_filter;
	uint16_t vlan_id;               /**< with vlan_filter: the VID taken besides 0 (0..4094) */
};

/** Per-device counters (names as rxe's hw_counters where they mean the same). */
struct roce_dev_stats {
	uint64_t sent_pkts;             /**< RoCE frames enqueued to the tx ring */
	uint64_t rcvd_pkts;             /**< RoCE frames accepted by a QP (a QP may still drop
					 *   one later: roce_qp_stats.drops) */
	uint64_t duplicate_request;     /**< responder: duplicate PSNs */
	uint64_t out_of_seq_request;    /**< responder: PSN ahead of expected */
	uint64_t rcvd_rnr_err;          /**< requester: RNR NAKs received */
	uint64_t send_rnr_err;          /**< responder: RNR NAKs sent */
	uint64_t send_rem_access_err;   /**< responder: remote access error NAKs sent (rkey, range,
					 *   or access the MR or QP does not grant) */
	uint64_t rcvd_seq_err;          /**< requester: PSN sequence NAKs received */
	uint64_t completer_retry_err;   /**< requester: retries exhausted */
	uint64_t send_err;              /**< frames dropped because the tx ring was full or no mbuf */
	uint64_t retry_exceeded_err;    /**< RETRY_EXC completions */
	uint64_t retry_rnr_exceeded_err; /**< RNR_RETRY_EXC completions */
	uint64_t ack_deferred;          /**< ACKs coalesced into a later one */
	uint64_t rdma_sends;            /**< SEND messages sent */
	uint64_t rdma_recvs;            /**< SEND messages received */
	uint64_t retransmits;           /**< packets sent again (go-back-N) */
	uint64_t timeouts;              /**< local ACK timeouts */
	/* receive drops, by reason */
	uint64_t rx_not_roce;           /**< not UDP 4791 to one of our GIDs/MAC (left to the caller) */
	uint64_t rx_truncated;          /**< shorter than its headers or IP/UDP lengths */
	uint64_t rx_bad_icrc;           /**< ICRC mismatch */
	uint64_t rx_bad_header;         /**< bad version, TVer, pad, IP fragment, opcode not supported */
	uint64_t rx_unknown_qpn;        /**< no such QP */
	uint64_t rx_bad_pkey;           /**< P_Key not ours */
	uint64_t rx_bad_qkey;           /**< Q_Key mismatch (UD/GSI) */
	uint64_t rx_bad_opcode;         /**< opcode of another transport or out of sequence */
	uint64_t rx_bad_state;          /**< QP not in a state that receives */
	uint64_t rx_bad_source;         /**< RC/UC frame from another peer than the QP's */
	uint64_t rx_bad_length;         /**< payload above the QP's path MTU */
	uint64_t rx_bad_vlan;           /**< tagged with a VID the device does not take
					 *   (roce_dev_conf.vlan_filter) */
	uint64_t rx_passed;             /**< frames not RoCE for this device handed to pass_ring */
};

/** Per-QP counters. */
struct roce_qp_stats {
	uint64_t sent_pkts;      /**< frames the QP staged for the tx ring (ACKs included) */
	uint64_t rcvd_pkts;      /**< frames the device accepted for this QP */
	uint64_t sent_bytes;     /**< payload bytes */
	uint64_t rcvd_bytes;     /**< payload bytes */
	uint64_t retransmits;    /**< request packets sent again (go-back-N) */
	uint64_t timeouts;       /**< local ACK timeouts */
	uint64_t rnr_naks_rcvd;  /**< requester: RNR NAKs received */
	uint64_t rnr_naks_sent;  /**< responder: RNR NAKs sent */
	uint64_t seq_naks_rcvd;  /**< requester: PSN sequence NAKs received */
	uint64_t seq_naks_sent;  /**< responder: PSN sequence NAKs sent */
	uint64_t duplicates;     /**< duplicate requests (responder) and stale responses (requester) */
	uint64_t acks_sent;      /**< responder: ACKs and NAKs sent */
	uint64_t acks_rcvd;      /**< requester: new responses (ACK, NAK, READ, atomic) taken */
	uint64_t drops;          /**< frames for this QP dropped (every reason) */
};

/** An address vector (the RFC's virtio_rdma_ah_attr plus a VLAN). */
struct roce_ah_attr {
	uint8_t dgid[ROCE_GID_LEN]; /**< destination GID; \::ffff:a.b.c.d means IPv4 */
	uint32_t flow_label;        /**< IPv6 flow label (20 bits) */
	uint8_t sgid_index;         /**< source GID (must be set in the table) */
	uint8_t hop_limit;          /**< TTL / hop limit; 0: 64 */
	uint8_t traffic_class;      /**< DSCP and ECN */
	uint8_t dmac[6];            /**< destination Ethernet address */
	uint16_t vlan_id;           /**< 802.1Q VID, or ROCE_VLAN_NONE; PCP from traffic_class >> 5 */
};

/** Capacities of a QP. */
struct roce_qp_cap {
	uint32_t max_send_wr;      /**< send queue entries */
	uint32_t max_recv_wr;      /**< receive queue entries */
	uint32_t max_send_sge;     /**< SGEs per send WR */
	uint32_t max_recv_sge;     /**< SGEs per receive WR */
	uint32_t max_inline_data;  /**< inline bytes per send WR */
};

/** QP attributes (roce_qp_modify(), roce_qp_query()). */
struct roce_qp_attr {
	enum roce_qp_state qp_state;     /**< modify: the state to enter; query: the state */
	enum roce_qp_state cur_qp_state; /**< modify: the state the QP must be in; query: the state */
	uint8_t path_mtu;           /**< enum roce_mtu */
	uint8_t max_rd_atomic;      /**< READs/atomics this QP may have outstanding */
	uint8_t max_dest_rd_atomic; /**< READ/atomic resources as responder */
	uint8_t min_rnr_timer;      /**< 5-bit IBA code sent in RNR NAKs */
	uint8_t timeout;            /**< local ACK timeout: 4.096 us << timeout; 0: none */
	uint8_t retry_cnt;          /**< 0..7; 7: retry for ever */
	uint8_t rnr_retry;          /**< 0..7; 7: retry for ever */
	uint8_t sq_draining;        /**< query: SQD with messages in flight */
	uint16_t pkey_index;        /**< 0 */
	uint8_t port_num;           /**< 1 */
	uint32_t qkey;              /**< Q_Key of the QP (UD/GSI) */
	uint32_t rq_psn;            /**< next PSN the responder expects (24 bits) */
	uint32_t sq_psn;            /**< next PSN the requester sends (24 bits) */
	uint32_t dest_qp_num;       /**< the peer's QPN (RC/UC) */
	uint32_t qp_access_flags;   /**< ROCE_ACCESS_REMOTE_* */
	uint32_t rate_limit;        /**< must be 0 */
	struct roce_qp_cap cap;     /**< capacities */
	struct roce_ah_attr ah_attr; /**< the path to the peer (RC/UC) */
};

/** Creation attributes of a QP. */
struct roce_qp_init_attr {
	enum roce_qp_type qp_type;  /**< transport */
	struct roce_cq *send_cq;    /**< CQ of send completions (this device's) */
	struct roce_cq *recv_cq;    /**< CQ of receive completions (this device's) */
	struct roce_qp_cap cap;     /**< capacities, within the device's limits */
	bool sq_sig_all;            /**< every send WR completes */
};

/** A scatter/gather element. */
struct roce_sge {
	uint64_t addr;   /**< first byte, an address of the MR's iova space */
	uint32_t length; /**< bytes */
	uint32_t lkey;   /**< local key of the MR the bytes are in */
};

/** A send work request. Everything is copied by roce_post_send(). */
struct roce_send_wr {
	uint64_t wr_id;             /**< the caller's, returned in the completion */
	uint8_t opcode;             /**< enum roce_wr_opcode */
	uint8_t send_flags;         /**< enum roce_send_flags */
	uint32_t imm_data;          /**< network byte order, as put on the wire */
	uint32_t num_sge;           /**< entries in sg_list */
	const struct roce_sge *sg_list; /**< the local buffers (without ROCE_SEND_INLINE) */
	const void *inline_data;    /**< with ROCE_SEND_INLINE */
	uint32_t inline_len;        /**< bytes at inline_data */
	union {
		struct {
			uint64_t remote_addr;
			uint32_t rkey;
		} rdma;             /**< WRITE, READ */
		struct {
			uint64_t remote_addr;
			uint32_t rkey;
			uint64_t compare_add; /**< compare (CMP_SWP) or add (FETCH_ADD) */
			uint64_t swap;
		} atomic;           /**< CMP_SWP, FETCH_ADD; 8 bytes at sg_list[0] receive the original */
		struct {
			struct roce_ah *ah;
			uint32_t remote_qpn;
			uint32_t remote_qkey;
		} ud;               /**< UD and GSI */
	};
};

/** A receive work request. Copied by roce_post_recv(). */
struct roce_recv_wr {
	uint64_t wr_id;                 /**< the caller's, returned in the completion */
	uint32_t num_sge;               /**< entries in sg_list */
	const struct roce_sge *sg_list; /**< where received data goes, in order */
};

/** A work completion. */
struct roce_wc {
	uint64_t wr_id;     /**< the work request's */
	uint8_t status;     /**< enum roce_wc_status */
	uint8_t opcode;     /**< enum roce_wc_opcode */
	uint16_t wc_flags;  /**< enum roce_wc_flags */
	uint32_t vendor_err; /**< not used: 0 */
	uint32_t byte_len;  /**< message bytes (a UD receive: with the GRH) */
	uint32_t imm_data;  /**< network byte order */
	uint32_t qp_num;    /**< the local QP's number */
	uint32_t src_qp;    /**< UD/GSI: sender's QPN */
};

/** Configuration of a memory region (roce_mr_reg()). */
struct roce_mr_conf {
	uint64_t iova;            /**< first address of the region as WRs and peers name it */
	uint64_t length;          /**< bytes */
	uint32_t access;          /**< enum roce_access */
	/**
	 * Where the bytes are. One of:
	 *  - host: a host pointer to length contiguous bytes;
	 *  - pages: nb_pages page addresses of page_size bytes each (the
	 *    region starts at offset iova % page_size of pages[0]), each
	 *    translated once, at registration and by roce_mr_remap(),
	 *    through xlate; so guest memory can back a region;
	 *  - neither, with xlate: every address is translated through xlate
	 *    when it is used (a "DMA" region over a guest's whole address
	 *    space; addresses that do not translate fail as out of bounds).
	 *    xlate's answers must not change during a roce_dev_poll() call.
	 */
	void *host;
	const uint64_t *pages;    /**< page addresses, translated through xlate */
	uint32_t nb_pages;        /**< entries in pages */
	uint32_t page_size;       /**< power of two, 4096..1 GiB */
	roce_xlate_fn xlate;      /**< translation of pages, or of every address */
	void *xlate_ctx;          /**< xlate's ctx */
};

/** Configuration of a CQ. */
struct roce_cq_conf {
	uint32_t cqe;             /**< entries, 1..max_cqe */
	roce_cq_notify_fn notify; /**< optional: called when an armed CQ gets a completion */
	void *notify_arg;         /**< notify's arg */
};

/* ---------------- device ---------------- */

/**
 * Create a device.
 *
 * @param conf
 *   Its configuration (copied).
 * @param[out] err
 *   On failure, why (ROCE_ERR_LEN bytes); may be NULL.
 * @param errlen
 *   Bytes at err.
 * @return
 *   The device, or NULL (rte_errno set).
 */
struct roce_dev *roce_dev_create(const struct roce_dev_conf *conf, char *err, size_t errlen);

/**
 * Destroy a device and every object on it; frames still queued are freed.
 *
 * @param dev
 *   The device; NULL is a no-op.
 */
void roce_dev_destroy(struct roce_dev *dev);

/**
 * Run the engine once: take up to a burst of frames from the rx ring and
 * handle them, let every QP with work send what its window and the tx ring
 * allow, fire due timers, and enqueue the built frames to the tx ring.
 *
 * @param dev
 *   The device.
 * @return
 *   Frames handled plus frames sent (0: nothing to do).
 */
unsigned int roce_dev_poll(struct roce_dev *dev);

/**
 * Mbufs the device holds from its pool for frames it has yet to build: it
 * takes them in bulk, and gives them back at a roce_dev_poll() that finds
 * nothing to do and when it is destroyed. For leak checks: a pool's free
 * count plus this is what the device did not keep.
 *
 * @param dev
 *   The device.
 * @return
 *   Mbufs held.
 */
unsigned int roce_dev_mbufs_held(const struct roce_dev *dev);

/**
 * Handle received frames directly (as the rx ring would). Each frame is
 * consumed (freed) except those that are not RoCE v2 for this device, which
 * are moved to the front of @p pkts for the caller (e.g. to a guest).
 *
 * @param dev
 *   The device.
 * @param pkts
 *   The frames.
 * @param n
 *   How many.
 * @return
 *   Number of frames left to the caller in pkts[0..ret).
 */
uint16_t roce_dev_rx_burst(struct roce_dev *dev, struct rte_mbuf **pkts, uint16_t n);

/**
 * Tell whether a frame is RoCE v2 for this device (UDP 4791 to one of its
 * GIDs), without consuming it: the classifier of a wire stage.
 *
 * @param dev
 *   The device.
 * @param m
 *   The frame.
 * @return
 *   true when it is for this device.
 */
bool roce_dev_frame_is_mine(const struct roce_dev *dev, const struct rte_mbuf *m);

/**
 * Replace the event callback.
 *
 * @param dev
 *   The device.
 * @param cb
 *   The callback (NULL: none).
 * @param arg
 *   Its first argument.
 */
void roce_dev_event_cb_set(struct roce_dev *dev, roce_event_fn cb, void *arg);

/**
 * Set GID table entry @p index. A GID \::ffff:a.b.c.d is IPv4.
 *
 * @param dev
 *   The device.
 * @param index
 *   The entry, below limits.gid_tbl_len.
 * @param gid
 *   The GID; zero and multicast (ff00::/8) GIDs are refused.
 * @return
 *   0, or -EINVAL (index out of range, GID refused).
 */
int roce_gid_set(struct roce_dev *dev, uint32_t index, const uint8_t gid[ROCE_GID_LEN]);
/**
 * Clear GID table entry @p index.
 *
 * @param dev
 *   The device.
 * @param index
 *   The entry.
 * @return
 *   0, -EINVAL (out of range), -ENOENT (empty).
 */
int roce_gid_del(struct roce_dev *dev, uint32_t index);
/**
 * Read GID table entry @p index.
 *
 * @param dev
 *   The device.
 * @param index
 *   The entry.
 * @param[out] gid
 *   The GID, on success.
 * @return
 *   0, -EINVAL (out of range), -ENOENT (empty).
 */
int roce_gid_get(const struct roce_dev *dev, uint32_t index, uint8_t gid[ROCE_GID_LEN]);

/**
 * The device's limits (after defaults).
 *
 * @param dev
 *   The device.
 * @return
 *   The limits, owned by the device.
 */
const struct roce_dev_limits *roce_dev_limits(const struct roce_dev *dev);
/**
 * The largest path MTU code the device's Ethernet MTU allows.
 *
 * @param dev
 *   The device.
 * @return
 *   The code.
 */
enum roce_mtu roce_dev_active_mtu(const struct roce_dev *dev);
/**
 * Change the device's Ethernet MTU (the wire's changed): the largest IB
 * MTU in @p mtu - 80 becomes the active MTU, which bounds the path MTU of
 * later roce_qp_modify() calls and is the path MTU of QPs created from now
 * on. Existing QPs keep theirs (a UD or GSI QP the one it was created
 * with). Call it from the device's thread.
 *
 * @param dev
 *   The device.
 * @param mtu
 *   Ethernet MTU, at least 336 (a 256-byte payload and 80 bytes of headers).
 * @return
 *   0, or -EINVAL (MTU below 336; nothing changes).
 */
int roce_dev_mtu_set(struct roce_dev *dev, uint16_t mtu);
/**
 * Text of the most recent refusal on this device.
 *
 * @param dev
 *   The device.
 * @return
 *   The text, owned by the device ("" when none).
 */
const char *roce_dev_last_error(const struct roce_dev *dev);
/**
 * Read the device counters.
 *
 * @param dev
 *   The device.
 * @param[out] st
 *   The counters.
 */
void roce_dev_stats_get(const struct roce_dev *dev, struct roce_dev_stats *st);
/**
 * Print the device counters that are not zero, on one line.
 *
 * @param dev
 *   The device.
 * @param f
 *   Where to print.
 */
void roce_dev_stats_dump(const struct roce_dev *dev, FILE *f);
/**
 * Counter names and values as pairs, for telemetry and xstats: fills up to
 * @p n entries and returns how many counters there are.
 *
 * @param[out] names
 *   Counter names (static strings); may be NULL.
 * @param[out] values
 *   Counter values; may be NULL.
 * @param n
 *   Entries of names and values.
 * @param dev
 *   The device.
 * @return
 *   How many counters the device has (may exceed n).
 */
unsigned int roce_dev_stats_names(const char **names, uint64_t *values, unsigned int n,
				  const struct roce_dev *dev);

/**
 * The same pairs from a copy of the counters (roce_dev_stats_get()), for a
 * caller that cannot hold the device while it prints.
 *
 * @param st
 *   The counters.
 * @param[out] names
 *   Counter names (static strings); may be NULL.
 * @param[out] values
 *   Counter values; may be NULL.
 * @param n
 *   Entries of names and values.
 * @return
 *   How many counters there are (may exceed n).
 */
unsigned int roce_stats_table(const struct roce_dev_stats *st, const char **names,
			      uint64_t *values, unsigned int n);

/* ---------------- objects ---------------- */

/**
 * Allocate a protection domain.
 *
 * @param dev
 *   The device.
 * @return
 *   The PD, or NULL with rte_errno ENOMEM or ENOSPC.
 */
struct roce_pd *roce_pd_alloc(struct roce_dev *dev);
/**
 * Free a PD.
 *
 * @param pd
 *   The PD.
 * @return
 *   0, or -EBUSY while an MR, AH or QP uses it.
 */
int roce_pd_free(struct roce_pd *pd);
/**
 * The PD's handle.
 *
 * @param pd
 *   The PD.
 * @return
 *   The handle (1..max_pd).
 */
uint32_t roce_pd_handle(const struct roce_pd *pd);
/**
 * Find a PD by handle.
 *
 * @param dev
 *   The device.
 * @param h
 *   The handle.
 * @return
 *   The PD with handle @p h, or NULL.
 */
struct roce_pd *roce_pd_get(struct roce_dev *dev, uint32_t h);

/**
 * Register a memory region.
 *
 * @param pd
 *   Its PD.
 * @param conf
 *   Its configuration.
 * @return
 *   The MR, or NULL with rte_errno EINVAL, ENOMEM, ENOSPC, EFAULT
 *   (untranslatable page).
 */
struct roce_mr *roce_mr_reg(struct roce_pd *pd, const struct roce_mr_conf *conf);
/**
 * Deregister an MR. In-flight WRs that name it later fail with protection errors.
 *
 * @param mr
 *   The MR.
 * @return
 *   0.
 */
int roce_mr_dereg(struct roce_mr *mr);
/**
 * Translate every page again (the backing memory moved).
 *
 * @param mr
 *   The MR.
 * @return
 *   0, or -EFAULT or -ENOMEM (MR unchanged).
 */
int roce_mr_remap(struct roce_mr *mr);
/**
 * The MR's local key.
 *
 * @param mr
 *   The MR.
 * @return
 *   The L_Key.
 */
uint32_t roce_mr_lkey(const struct roce_mr *mr);
/**
 * The MR's remote key.
 *
 * @param mr
 *   The MR.
 * @return
 *   The R_Key (0 when the MR grants no remote access).
 */
uint32_t roce_mr_rkey(const struct roce_mr *mr);
/**
 * Find an MR by local key.
 *
 * @param dev
 *   The device.
 * @param lkey
 *   The L_Key.
 * @return
 *   The MR with local key @p lkey, or NULL.
 */
struct roce_mr *roce_mr_get(struct roce_dev *dev, uint32_t lkey);

/**
 * Create a CQ.
 *
 * @param dev
 *   The device.
 * @param conf
 *   Its configuration.
 * @return
 *   The CQ, or NULL with rte_errno EINVAL, ENOMEM, ENOSPC.
 */
struct roce_cq *roce_cq_create(struct roce_dev *dev, const struct roce_cq_conf *conf);
/**
 * Destroy a CQ.
 *
 * @param cq
 *   The CQ.
 * @return
 *   0, or -EBUSY while a QP uses it.
 */
int roce_cq_destroy(struct roce_cq *cq);
/**
 * Take up to @p n completions, oldest first.
 *
 * @param cq
 *   The CQ.
 * @param[out] wc
 *   The completions.
 * @param n
 *   Entries of wc.
 * @return
 *   How many, or -EIO when the CQ overflowed (and is empty).
 */
int roce_cq_poll(struct roce_cq *cq, struct roce_wc *wc, int n);
/**
 * Arm the CQ: notify once on the next (solicited) completion.
 *
 * @param cq
 *   The CQ.
 * @param flags
 *   enum roce_cq_notify bits, at least one.
 * @return
 *   0, or -EINVAL (no flag or an unknown one).
 */
int roce_cq_arm(struct roce_cq *cq, uint32_t flags);
/**
 * Completions waiting in the CQ (what roce_cq_poll() would take now).
 *
 * @param cq
 *   The CQ.
 * @return
 *   How many.
 */
uint32_t roce_cq_pending(const struct roce_cq *cq);
/**
 * The CQ's number.
 *
 * @param cq
 *   The CQ.
 * @return
 *   The number (0..max_cq-1).
 */
uint32_t roce_cq_handle(const struct roce_cq *cq);
/**
 * Find a CQ by number.
 *
 * @param dev
 *   The device.
 * @param h
 *   The number.
 * @return
 *   The CQ with number @p h, or NULL.
 */
struct roce_cq *roce_cq_get(struct roce_dev *dev, uint32_t h);

/**
 * Create an address handle.
 *
 * @param pd
 *   Its PD.
 * @param attr
 *   The address vector (copied).
 * @return
 *   The AH, or NULL with rte_errno EINVAL (source GID not set, VLAN out of
 *   range, GIDs of different IP versions), ENOMEM, ENOSPC.
 */
struct roce_ah *roce_ah_create(struct roce_pd *pd, const struct roce_ah_attr *attr);
/**
 * Destroy an AH.
 *
 * @param ah
 *   The AH.
 * @return
 *   0.
 */
int roce_ah_destroy(struct roce_ah *ah);
/**
 * The AH's handle.
 *
 * @param ah
 *   The AH.
 * @return
 *   The handle (1..max_ah).
 */
uint32_t roce_ah_handle(const struct roce_ah *ah);
/**
 * Find an AH by handle.
 *
 * @param dev
 *   The device.
 * @param h
 *   The handle.
 * @return
 *   The AH with handle @p h, or NULL.
 */
struct roce_ah *roce_ah_get(struct roce_dev *dev, uint32_t h);

/**
 * Create a QP in RESET.
 *
 * @param pd
 *   Its PD.
 * @param attr
 *   Its type, CQs and capacities.
 * @return
 *   The QP, or NULL with rte_errno EINVAL, ENOMEM, ENOSPC, EEXIST (second
 *   GSI).
 */
struct roce_qp *roce_qp_create(struct roce_pd *pd, const struct roce_qp_init_attr *attr);
/**
 * Modify a QP. The transition and the attribute set follow the IBA rules
 * (required and optional attributes per transition and QP type); anything
 * else is refused with -EINVAL and no change; roce_dev_last_error() says why.
 * Entering ERR flushes every outstanding WR with WR_FLUSH_ERR.
 *
 * @param qp
 *   The QP.
 * @param attr
 *   The attributes; those in @p mask are used.
 * @param mask
 *   enum roce_qp_attr_mask bits.
 * @return
 *   0, -EINVAL (refused), or -ENOMEM (no memory for READ resources).
 */
int roce_qp_modify(struct roce_qp *qp, const struct roce_qp_attr *attr, uint32_t mask);
/**
 * Read the QP's attributes.
 *
 * @param qp
 *   The QP.
 * @param[out] attr
 *   Its attributes; may be NULL.
 * @param[out] init
 *   Its creation attributes; may be NULL.
 * @return
 *   0.
 */
int roce_qp_query(const struct roce_qp *qp, struct roce_qp_attr *attr, struct roce_qp_init_attr *init);
/**
 * Destroy a QP; its outstanding WRs are dropped without completions.
 *
 * @param qp
 *   The QP.
 * @return
 *   0.
 */
int roce_qp_destroy(struct roce_qp *qp);
/**
 * The QP's number.
 *
 * @param qp
 *   The QP.
 * @return
 *   The QPN.
 */
uint32_t roce_qp_num(const struct roce_qp *qp);
/**
 * Find a QP by number.
 *
 * @param dev
 *   The device.
 * @param qpn
 *   The QPN.
 * @return
 *   The QP with number @p qpn, or NULL.
 */
struct roce_qp *roce_qp_get(struct roce_dev *dev, uint32_t qpn);
/**
 * The QP's state now.
 *
 * @param qp
 *   The QP.
 * @return
 *   The state.
 */
enum roce_qp_state roce_qp_cur_state(const struct roce_qp *qp);
/**
 * The QP's transport type.
 *
 * @param qp
 *   The QP.
 * @return
 *   The type.
 */
enum roce_qp_type roce_qp_transport(const struct roce_qp *qp);
/**
 * Work requests the QP's send (@p recv false) or receive queue can take now
 * (its capacity less those outstanding).
 *
 * @param qp
 *   The QP.
 * @param recv
 *   The receive queue (else the send queue).
 * @return
 *   How many.
 */
uint32_t roce_qp_room(const struct roce_qp *qp, bool recv);
/**
 * Read the QP's counters.
 *
 * @param qp
 *   The QP.
 * @param[out] st
 *   The counters.
 */
void roce_qp_stats_get(const struct roce_qp *qp, struct roce_qp_stats *st);

/**
 * Post send work requests. Each WR is checked and copied; the first bad one
 * stops the post.
 *
 * @param qp
 *   The QP.
 * @param wr
 *   The work requests.
 * @param n
 *   How many.
 * @param[out] bad
 *   Index of the first WR not posted (n when all were); may be NULL.
 * @return
 *   0; -EINVAL (bad WR), -ENOMEM (queue full), -EPERM (QP state).
 */
int roce_post_send(struct roce_qp *qp, const struct roce_send_wr *wr, unsigned int n,
		   unsigned int *bad);
/**
 * Post receive work requests (see roce_post_send()).
 *
 * @param qp
 *   The QP.
 * @param wr
 *   The work requests.
 * @param n
 *   How many.
 * @param[out] bad
 *   Index of the first WR not posted (n when all were); may be NULL.
 * @return
 *   0; -EINVAL (bad WR), -ENOMEM (queue full), -EPERM (QP in RESET).
 */
int roce_post_recv(struct roce_qp *qp, const struct roce_recv_wr *wr, unsigned int n,
		   unsigned int *bad);

/**
 * Fail a work request that cannot be posted (a malformed request from a
 * queue the device reads, where no caller can be told synchronously): the
 * QP enters ERR, its outstanding WRs are flushed in order, and then this
 * WR completes with @p st on the send (or receive) CQ, as a WQE the
 * hardware found bad would.
 *
 * @param qp
 *   The QP.
 * @param recv
 *   A receive WR (completes on the receive CQ as a RECV).
 * @param wr_id
 *   The WR's wr_id, returned in its completion.
 * @param opcode
 *   The send WR's enum roce_wr_opcode (its completion's opcode); ignored
 *   for a receive.
 * @param st
 *   The status, not ROCE_WC_SUCCESS.
 * @return
 *   0; -EINVAL (st is SUCCESS or unknown); -EPERM (QP in RESET: it has no
 *   queues to complete on).
 */
int roce_post_error(struct roce_qp *qp, bool recv, uint64_t wr_id, uint8_t opcode,
		    enum roce_wc_status st);

/**
 * Name of a completion status.
 *
 * @param st
 *   The status.
 * @return
 *   "SUCCESS", "RETRY_EXC_ERR", ...; "?" when unknown.
 */
const char *roce_wc_status_str(enum roce_wc_status st);
/**
 * Name of a QP state.
 *
 * @param st
 *   The state.
 * @return
 *   "RESET", "INIT", ...; "?" when unknown.
 */
const char *roce_qp_state_str(enum roce_qp_state st);

#ifdef __cplusplus
}
#endif

#endif /* _ROCE_H_ */
