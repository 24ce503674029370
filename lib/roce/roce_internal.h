/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _ROCE_INTERNAL_H_
#define _ROCE_INTERNAL_H_

#include <stdarg.h>
#include <sys/queue.h>

#include <rte_common.h>
#include <rte_ether.h>
#include <rte_log.h>

#include "roce.h"
#include "roce_wire.h"

extern int roce_logtype;
#define ROCE_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, roce_logtype, "roce: " fmt "\n", ##__VA_ARGS__)

/* First QPN of the connected/UD QPs (QP1 is GSI), as rxe. */
#define ROCE_QPN_FIRST 17
/* Frames built per poll before they are handed to the tx ring. */
#define ROCE_TX_BURST 64
/* Frames taken from the rx ring per poll. */
#define ROCE_RX_BURST 32
/* mbufs roce_tx_alloc() takes from the pool at a time */
#define ROCE_TX_STASH 16
/* Packets one QP may send per turn, so that QPs share the wire. */
#define ROCE_QP_TURN 16
/* Requester window: unacknowledged PSNs (rxe's RXE_MAX_UNACKED_PSNS). */
#define ROCE_MAX_UNACKED_PSNS 128
/* AckReq at least every this many packets (rxe's RXE_MAX_PKT_PER_ACK). */
#define ROCE_MAX_PKT_PER_ACK 64

/* ---------------- timers: a hashed wheel driven by roce_dev_poll() ---------------- */

#define ROCE_WHEEL_SLOTS 1024

struct roce_timer {
	TAILQ_ENTRY(roce_timer) next;
	uint64_t expire_tick;
	void (*fn)(struct roce_timer *t);
	bool armed;
};
TAILQ_HEAD(roce_timer_list, roce_timer);

struct roce_wheel {
	struct roce_timer_list slot[ROCE_WHEEL_SLOTS];
	uint64_t base_tsc;
	uint64_t tick_cycles;
	uint64_t cur_tick;   /* next tick to process */
	uint32_t armed;
};

void roce_wheel_init(struct roce_wheel *w, uint64_t tick_cycles);
/* Arm (or re-arm) @p t to fire after @p cycles TSC cycles. */
void roce_timer_arm(struct roce_wheel *w, struct roce_timer *t, uint64_t cycles);
void roce_timer_cancel(struct roce_wheel *w, struct roce_timer *t);
/* Fire every due timer. @return timers fired. */
unsigned int roce_wheel_run(struct roce_wheel *w, uint64_t now_tsc);

/* ---------------- objects ---------------- */

struct roce_pd {
	struct roce_dev *dev;
	uint32_t handle;
	uint32_t refs;
};

struct roce_mr {
	struct roce_dev *dev;
	struct roce_pd *pd;
	uint32_t index;
	uint32_t lkey;
	uint32_t rkey;
	uint32_t access;
	uint64_t iova;
	uint64_t length;
	uint8_t *host;          /* contiguous region, or NULL */
	bool dma;               /* neither host nor pages: xlate at each use */
	uint8_t **page_va;      /* page table: host pointer of each page */
	uint64_t *page_addr;    /* the caller's page addresses (for remap) */
	uint32_t nb_pages;
	uint32_t page_shift;
	uint32_t first_off;     /* iova % page_size */
	roce_xlate_fn xlate;
	void *xlate_ctx;
};

struct roce_cq {
	struct roce_dev *dev;
	uint32_t handle;
	uint32_t refs;
	struct roce_wc *ring;
	uint32_t size;          /* entries (cqe) */
	uint32_t head;          /* next to write (free-running) */
	uint32_t tail;          /* next to poll (free-running) */
	uint32_t arm;           /* enum roce_cq_notify */
	bool overflow;
	roce_cq_notify_fn notify;
	void *notify_arg;
};

struct roce_ah {
	struct roce_dev *dev;
	struct roce_pd *pd;
	uint32_t handle;
	struct roce_ah_attr attr;
};

/* Send WQE states. */
enum {
	SWQE_POSTED,   /* not started */
	SWQE_SENDING,  /* some packets sent */
	SWQE_SENT,     /* every packet sent, waiting for the ACK or response */
	SWQE_DONE,     /* complete, waiting to be retired in order */
};

/* A send work request, copied at post. */
struct roce_swqe {
	uint64_t wr_id;
	uint8_t opcode;
	uint8_t flags;
	uint8_t state;
	uint8_t status;         /* enum roce_wc_status once DONE */
	uint8_t started;        /* first_psn/last_psn are assigned (kept across rewinds) */
	uint32_t imm;
	uint32_t length;        /* message bytes */
	uint32_t num_sge;
	uint32_t first_psn;
	uint32_t last_psn;
	uint32_t rkey;
	uint32_t remote_qpn;
	uint32_t remote_qkey;
	uint64_t remote_addr;
	uint64_t compare_add;
	uint64_t swap;
	uint64_t atomic_orig;
	struct roce_ah_attr av; /* UD: the AH's vector at post time */
	struct roce_sge sge[];  /* num_sge, or the inline bytes with ROCE_SEND_INLINE */
};

/* A receive work request, copied at post. */
struct roce_rwqe {
	uint64_t wr_id;
	uint32_t num_sge;
	uint32_t length;
	struct roce_sge sge[];
};

/* A queue of fixed-stride entries indexed by free-running counters. */
struct roce_wq {
	uint8_t *buf;
	uint32_t stride;
	uint32_t mask;          /* slots - 1 (power of two) */
	uint32_t cap;           /* entries the queue accepts */
	uint32_t head;          /* next to post */
	uint32_t tail;          /* oldest not retired */
};

static inline void *
roce_wq_at(const struct roce_wq *q, uint32_t idx)
{
	return q->buf + (size_t)(idx & q->mask) * q->stride;
}

/* Responder resource of a READ or atomic, kept to answer duplicates. */
struct roce_rdres {
	uint8_t valid;
	uint8_t atomic;
	uint8_t pending;        /* responses still to send */
	uint32_t first_psn;
	uint32_t last_psn;
	uint32_t cur_psn;       /* next response to send */
	uint64_t va;            /* next byte to read */
	uint32_t rkey;
	uint32_t left;          /* bytes still to send */
	uint64_t atomic_orig;
	uint32_t msn;           /* MSN to report in the last response */
};

struct roce_qp {
	struct roce_dev *dev;
	struct roce_pd *pd;
	struct roce_cq *send_cq;
	struct roce_cq *recv_cq;
	enum roce_qp_type type;
	enum roce_qp_state state;
	uint32_t qpn;
	uint32_t index;
	bool sq_sig_all;
	uint16_t sport;
	uint32_t mtu;           /* path MTU in bytes */
	struct roce_qp_attr attr;
	struct roce_qp_cap cap;

	struct roce_wq sq;
	struct roce_wq rq;

	struct {
		uint32_t wqe;           /* next WQE to send from */
		uint32_t psn;           /* next PSN */
		uint32_t psn_hi;        /* highest PSN ever sent + 1 */
		uint32_t offset;        /* bytes of that WQE already sent */
		uint32_t noack;         /* packets since the last AckReq */
		uint32_t rd_atomic;     /* READs and atomics outstanding */
	} req;

	struct {
		uint32_t psn;           /* oldest PSN not acknowledged */
		uint32_t read_off;      /* bytes of the oldest READ received */
		uint8_t retry_left;
		uint8_t rnr_left;
		bool rnr_wait;          /* paused by an RNR NAK */
		uint32_t retry_psn;     /* PSN of the last go-back-N (one per gap) */
		bool retry_armed;       /* retry_psn is set */
		struct roce_timer retry_timer;
		struct roce_timer rnr_timer;
	} comp;

	struct {
		uint32_t psn;           /* expected PSN */
		uint32_t msn;
		uint32_t last_op;       /* opcode of the last in-order request */
		bool nak_sent;          /* a sequence NAK for the current gap */
		bool in_msg;            /* a multi-packet message is open */
		bool rwqe_open;         /* a receive WQE is being filled */
		bool uc_drop;           /* UC: drop until the next FIRST/ONLY */
		uint32_t offset;        /* bytes placed of the open message */
		uint32_t wr_rkey;       /* WRITE in progress: its MR's key, */
		struct roce_mr *wr_mr;  /* the MR, valid while dev->mr_deregs == wr_deregs */
		uint64_t wr_deregs;
		uint64_t wr_va;
		uint32_t wr_left;
		uint32_t ack_psn;       /* coalesced ACK to send */
		bool ack_pending;
		struct roce_rdres *res;
		uint32_t nb_res;
		uint32_t res_next;      /* slot the next READ/atomic takes */
		uint32_t res_pending;   /* resources with responses to send */
		uint16_t ip_id;
	} resp;

	TAILQ_ENTRY(roce_qp) active_next; /* has something to send */
	bool on_active;
	TAILQ_ENTRY(roce_qp) ack_next;    /* has a coalesced ACK */
	bool on_ack;
	bool sq_drained_reported;
	struct roce_qp_stats st;
};

TAILQ_HEAD(roce_qp_list, roce_qp);

/* An object table: slots, handles 1..size (PD, AH), 0..size-1 (CQ), keys (MR). */
struct roce_tbl {
	void **slot;
	uint32_t size;
	uint32_t used;
	uint32_t cursor;
};

struct roce_dev {
	char name[32];
	struct roce_dev_conf conf;
	struct roce_dev_limits lim;
	enum roce_mtu active_mtu;
	uint8_t (*gid)[ROCE_GID_LEN];
	uint8_t *gid_valid;
	struct roce_tbl pds, mrs, cqs, ahs, qps;
	uint8_t *mr_gen;        /* key byte of each MR slot */
	uint64_t mr_deregs;     /* MRs deregistered so far: a cached MR is valid while unchanged */
	uint16_t *qp_gen;       /* QPN generation of each QP slot */
	struct roce_qp *gsi;
	struct roce_wheel wheel;
	uint64_t tsc_hz;
	struct roce_qp_list active;
	struct roce_qp_list acks;
	struct rte_mbuf *txb[ROCE_TX_BURST];
	uint16_t ntx;
	/* mbufs taken from the pool in bulk, handed out by roce_tx_alloc() */
	struct rte_mbuf *stash[ROCE_TX_STASH];
	uint16_t nstash;        /* how many stash holds */
	uint16_t stash_next;    /* the next one to hand out */
	uint16_t ip_id;
	struct roce_dev_stats st;
	char last_err[ROCE_ERR_LEN];
};

/* ---------------- shared internals ---------------- */

int roce_err(struct roce_dev *dev, int err, const char *fmt, ...) __rte_format_printf(3, 4);

int roce_tbl_init(struct roce_tbl *t, uint32_t size, int socket);
void roce_tbl_fini(struct roce_tbl *t);
int roce_tbl_alloc(struct roce_tbl *t, void *obj); /* slot index or -ENOSPC */
void roce_tbl_free(struct roce_tbl *t, uint32_t idx);

static inline void *
roce_tbl_get(const struct roce_tbl *t, uint32_t idx)
{
	return idx < t->size ? t->slot[idx] : NULL;
}

/* MR access for the data path. */
struct roce_mr *roce_mr_lookup(struct roce_dev *dev, uint32_t key, bool remote);
/* Whether [iova, iova+len) lies in the MR. */
bool roce_mr_translates(const struct roce_mr *mr, uint64_t iova, uint64_t len);

/*
 * Is [iova, iova + len) inside the MR (and, for a DMA MR, mapped)? Every
 * copy is preceded by this check in the same roce_dev_poll() call.
 */
static inline bool
roce_mr_covers(const struct roce_mr *mr, uint64_t iova, uint64_t len)
{
	if (iova < mr->iova || len > mr->length || iova - mr->iova > mr->length - len)
		return false;
	return likely(!mr->dma) || roce_mr_translates(mr, iova, len);
}
/* Host pointer of @p iova with the contiguous bytes from there (<= want). */
uint8_t *roce_mr_ptr(const struct roce_mr *mr, uint64_t iova, uint32_t want, uint32_t *contig);
/*
 * Copy between an MR and a flat buffer (no bounds check: callers check).
 * roce_mr_read() continues *crc (when not NULL) over the bytes it reads.
 */
void roce_mr_read(const struct roce_mr *mr, uint64_t iova, void *dst, uint32_t len,
		  uint32_t *crc);
void roce_mr_write(const struct roce_mr *mr, uint64_t iova, const void *src, uint32_t len);
/* Copy @p len bytes of mbuf @p m from offset @p off into an MR (callers check bounds). */
void roce_mr_write_mbuf(const struct roce_mr *mr, uint64_t iova, const struct rte_mbuf *m,
			uint32_t off, uint32_t len);

/* Completions. @return false when the CQ overflowed. */
bool roce_cq_push(struct roce_cq *cq, const struct roce_wc *wc, bool solicited);

/* QP helpers shared by requester, completer and responder. */
void roce_qp_error(struct roce_qp *qp, enum roce_wc_status st);
void roce_qp_activate(struct roce_qp *qp);
void roce_qp_flush(struct roce_qp *qp);
void roce_qp_send_complete(struct roce_qp *qp, struct roce_swqe *wqe);
void roce_qp_retire(struct roce_qp *qp);
bool roce_qp_sq_idle(const struct roce_qp *qp);

/* Frame building and the tx staging (roce_tx.c). */
struct rte_mbuf *roce_tx_alloc(struct roce_dev *dev);
/* Give the pool back the mbufs roce_tx_alloc() took and did not hand out. */
void roce_tx_stash_release(struct roce_dev *dev);
unsigned int roce_tx_room(struct roce_dev *dev);
void roce_tx_stage(struct roce_dev *dev, struct roce_qp *qp, struct rte_mbuf *m);
void roce_tx_flush(struct roce_dev *dev);
/* Fill the headers common to @p qp's frames. */
void roce_hdr_fill(struct roce_qp *qp, const struct roce_ah_attr *av, struct roce_hdr_desc *d);
/*
 * Fill callback of roce_frame_build(): copy payload bytes [off, off + len)
 * to @p dst and continue the ICRC state *crc over them. @return 0 or < 0.
 */
typedef int (*roce_fill_t)(void *arg, uint8_t *dst, uint32_t off, uint32_t len, uint32_t *crc);
/* Build a frame of headers @p d and @p paylen payload bytes taken by @p fill. */
struct rte_mbuf *roce_frame_build(struct roce_dev *dev, struct roce_hdr_desc *d, roce_fill_t fill,
				  void *arg);

/* A READ or an atomic: a WR the responder answers with data (rd_atomic counts them). */
static inline bool
roce_wr_is_read_atomic(uint8_t op)
{
	return op == ROCE_WR_RDMA_READ || op >= ROCE_WR_ATOMIC_CMP_AND_SWP;
}

/*
 * Copy between a flat buffer and the bytes [off, off + len) of the message
 * the SGEs describe (roce_req.c). @return 0, or -EFAULT when an MR went away.
 */
int roce_sge_copy(struct roce_qp *qp, const struct roce_sge *sge, uint32_t nsge, uint32_t off,
		  uint8_t *buf, uint32_t len, bool to_sge, uint32_t *crc);
/* Requester (roce_req.c): send what the QP may send now. @return packets built. */
unsigned int roce_req_run(struct roce_qp *qp, unsigned int budget);
/* Requester: resume from comp.psn when completions overtook the requester. */
void roce_req_sync(struct roce_qp *qp);
/* Requester: go back to comp.psn (go-back-N), asked by the completer. */
void roce_req_rewind(struct roce_qp *qp);
/* Completer (roce_comp.c): a response for @p qp. */
void roce_comp_rx(struct roce_qp *qp, struct roce_pkt *pkt);
void roce_comp_timer_start(struct roce_qp *qp);
void roce_comp_retry_timeout(struct roce_timer *t);
void roce_comp_rnr_timeout(struct roce_timer *t);
/* Responder (roce_resp.c): a request for @p qp; and its pending READ responses. */
void roce_resp_rx(struct roce_qp *qp, struct roce_pkt *pkt);
unsigned int roce_resp_run(struct roce_qp *qp, unsigned int budget);
void roce_resp_send_acks(struct roce_dev *dev);
/*
 * The receive path for one frame (roce_recv.c): parse, check, dispatch.
 * @return false when not RoCE for us.
 */
bool roce_rx_one(struct roce_dev *dev, struct rte_mbuf *m);

/* Microseconds of an IBA RNR timer code, and of a local ACK timeout code. */
uint32_t roce_rnr_timer_us(uint8_t code);
static inline uint64_t
roce_timeout_cycles(const struct roce_dev *dev, uint8_t code)
{
	/* 4.096 us << code */
	return (dev->tsc_hz * 4096ull / 1000000000ull) << code;
}

static inline uint32_t
roce_mtu_bytes(uint8_t mtu)
{
	return 128u << mtu;
}

#endif /* _ROCE_INTERNAL_H_ */
