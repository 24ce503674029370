/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _ROCE_CM_H_
#define _ROCE_CM_H_

/**
 * @file
 * The IB communication manager (IBA vol. 1 ch. 12) as RoCE v2 uses it: the
 * REQ / MRA / REJ / REP / RTU / DREQ / DREP exchange over the GSI QP, one
 * state machine per connection, response timeouts and retries, and the RDMA
 * CM's IP service IDs (roce_cm_mad.h has the wire formats).
 *
 * The CM does no I/O of its own: it sends MADs through conf.send, the caller
 * feeds it received MADs (roce_cm_rx()), reads the time through conf.now and
 * fires its timers from roce_cm_poll(); it moves the bound QP through
 * conf.qp_modify (INIT -> RTR -> RTS, and ERR on disconnect) and reports to
 * the application through conf.event. So it runs without EAL or a wire.
 *
 * Threading: one thread, as a lib/roce device. Callbacks run inside
 * roce_cm_rx(), roce_cm_poll() and the API calls; the application may call
 * roce_cm_accept(), roce_cm_reject(), roce_cm_mra() and roce_cm_disconnect()
 * from its event callback.
 *
 * Every received MAD is checked: a wrong length, header, attribute, field
 * value, connection, source or state drops it (counted) or, where IBA says
 * so, answers it with a REJ; a dropped MAD changes no state.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "roce.h"
#include "roce_cm_mad.h"

#ifdef __cplusplus
extern "C" {
#endif

struct roce_cm;
struct roce_cm_conn;

/** Connection states (Linux enum ib_cm_state, IBA 12.9.6 figure 145). */
enum roce_cm_state {
	ROCE_CM_IDLE,         /**< no connection (a freed slot) */
	ROCE_CM_REQ_SENT,     /**< active: REQ sent, waiting for REP/MRA/REJ */
	ROCE_CM_REQ_RCVD,     /**< passive: REQ reported, waiting for accept/reject */
	ROCE_CM_MRA_REQ_SENT, /**< passive: REQ acknowledged with an MRA */
	ROCE_CM_MRA_REQ_RCVD, /**< active: the peer sent an MRA for the REQ */
	ROCE_CM_REP_SENT,     /**< passive: REP sent, waiting for RTU */
	ROCE_CM_REP_RCVD,     /**< active: REP taken, QP moving to RTS (inside callbacks) */
	ROCE_CM_MRA_REP_RCVD, /**< passive: the peer sent an MRA for the REP */
	ROCE_CM_ESTABLISHED,  /**< connected */
	ROCE_CM_DREQ_SENT,    /**< DREQ sent, waiting for DREP */
	ROCE_CM_DREQ_RCVD,    /**< DREQ taken, DREP about to go (inside the callback) */
	ROCE_CM_TIMEWAIT,     /**< disconnected, IDs held for conf.timewait_ns */
	ROCE_CM_STATE_COUNT,
};

/** @param s A state. @return its name ("REQ_SENT"), or "?". */
const char *roce_cm_state_str(enum roce_cm_state s);

/** Where a MAD comes from or goes to. */
struct roce_cm_addr {
	uint8_t gid[ROCE_GID_LEN];  /**< the peer's GID */
	uint8_t sgid[ROCE_GID_LEN]; /**< ours: received on / to send from */
	uint32_t qpn;               /**< the peer's QP (1, its GSI QP) */
};

/** Events reported to the application. */
enum roce_cm_event_type {
	/** Passive: a REQ for a listened service. Answer with roce_cm_accept(),
	 *  roce_cm_reject() or roce_cm_mra(), now or later; a non-zero return
	 *  from the callback rejects it (CONSUMER_DEFINED), as Linux's CM. */
	ROCE_CM_EV_REQ,
	/** Both: the QP is in RTS and the connection usable. */
	ROCE_CM_EV_ESTABLISHED,
	/** The peer sent a REJ (rej_reason, ari, private data). */
	ROCE_CM_EV_REJECTED,
	/** Our REQ or REP got no answer after its retries (status -ETIMEDOUT),
	 *  or the QP refused a transition (-EIO); a REJ went to the peer. */
	ROCE_CM_EV_CONNECT_ERROR,
	/** DREQ received, DREP received, or our DREQ timed out (status
	 *  -ETIMEDOUT); the QP was moved to ERR. */
	ROCE_CM_EV_DISCONNECTED,
	/** The time wait is over. */
	ROCE_CM_EV_TIMEWAIT_EXIT,
};

/** @param t An event type. @return its name ("ESTABLISHED"), or "?". */
const char *roce_cm_event_str(enum roce_cm_event_type t);

/** What an event callback receives; pointers valid during the call only. */
struct roce_cm_event {
	enum roce_cm_event_type type; /**< what happened */
	struct roce_cm_conn *conn;  /**< the connection */
	void *ctx;                  /**< the connection's context (REQ: the listener's) */
	bool final;                 /**< the connection is freed when the callback returns */
	int status;                 /**< 0, -ETIMEDOUT or -EIO */
	const struct roce_cm_req *req;      /**< REQ: the message */
	const struct roce_cm_ip_hdr *ip;    /**< REQ on an IP service ID: the RDMA CM header */
	const struct roce_cm_addr *from;    /**< REQ: where it came from */
	uint16_t rej_reason;        /**< REJECTED */
	const uint8_t *ari;         /**< REJECTED: additional rejection information */
	uint8_t ari_len;            /**< REJECTED */
	const uint8_t *private_data; /**< REQ, REJ, REP (active ESTABLISHED), RTU, DREQ, DREP */
	uint8_t private_data_len;   /**< bytes of it (the message's whole field) */
};

/**
 * Send one MAD (ROCE_CM_MAD_LEN bytes) to @p to as a UD datagram from the
 * GSI QP (Q_Key 0x80010000, P_Key 0xFFFF). @return 0 or a negative errno
 * (counted; the retry timer still runs).
 */
typedef int (*roce_cm_send_fn)(void *ctx, const struct roce_cm_addr *to, const uint8_t *mad);
/** @return the time in ns, from any fixed origin, never decreasing. */
typedef uint64_t (*roce_cm_now_fn)(void *ctx);
/**
 * Move QP @p qpn to @p attr->qp_state with the attributes of @p mask
 * (enum roce_qp_attr_mask), as roce_qp_modify() takes them: INIT -> RTR
 * (AV, PATH_MTU, DEST_QPN, RQ_PSN, and for RC MAX_DEST_RD_ATOMIC,
 * MIN_RNR_TIMER), RTR -> RTS (SQ_PSN, and for RC TIMEOUT, RETRY_CNT,
 * RNR_RETRY, MAX_QP_RD_ATOMIC), or ERR. The CM fills ah_attr's dgid,
 * flow_label, hop_limit and traffic_class; the callee sets sgid_index,
 * dmac and vlan_id (it knows its GID table and neighbours).
 * @return 0, or a negative errno: the connection fails (REJ to the peer).
 */
typedef int (*roce_cm_qp_modify_fn)(void *ctx, struct roce_cm_conn *conn, uint32_t qpn,
				    struct roce_qp_attr *attr, uint32_t mask);
/** Report @p ev. @return 0, or (ROCE_CM_EV_REQ only) non-zero to reject. */
typedef int (*roce_cm_event_fn)(void *ctx, const struct roce_cm_event *ev);

/** Creation parameters. */
struct roce_cm_conf {
	uint64_t ca_guid;        /**< our CA GUID, in REQ and REP (e.g. EUI-64 of the MAC) */
	uint32_t tid_hi;         /**< high 32 bits of our transaction IDs */
	uint32_t comm_id_salt;   /**< mixed into local communication IDs */
	uint16_t max_conns;      /**< connection slots, 1..4096; 0: 256 */
	uint64_t timewait_ns;    /**< time wait; 0: 2 x the connection's response timeout */
	roce_cm_send_fn send;    /**< required */
	roce_cm_now_fn now;      /**< required */
	roce_cm_qp_modify_fn qp_modify; /**< required */
	roce_cm_event_fn event;  /**< required */
	void *ctx;               /**< passed to the four callbacks */
};

/** Most listeners. */
#define ROCE_CM_MAX_LISTEN 32

/**
 * Create a CM.
 * @param conf  Its parameters (copied).
 * @return it, or NULL (errno EINVAL: a callback missing or max_conns above
 * 4096; ENOMEM).
 */
struct roce_cm *roce_cm_create(const struct roce_cm_conf *conf);
/** Free the CM and its connections (no MAD is sent, no event reported). @param cm The CM. */
void roce_cm_destroy(struct roce_cm *cm);

/**
 * Accept REQs for a service ID.
 * @param cm          The CM.
 * @param service_id  Matched exactly.
 * @param ctx         Reported with its REQs.
 * @return 0, -EEXIST (already listened) or -ENOSPC.
 */
int roce_cm_listen(struct roce_cm *cm, uint64_t service_id, void *ctx);
/** Stop listening. @param cm The CM. @param service_id Listened. @return 0 or -ENOENT. */
int roce_cm_unlisten(struct roce_cm *cm, uint64_t service_id);

/** Active side: what the REQ asks for. */
struct roce_cm_connect_param {
	uint64_t service_id;      /**< e.g. roce_cm_ip_service_id(ROCE_CM_PS_TCP, port) */
	uint32_t qpn;             /**< our QP, in INIT (receives posted) */
	enum roce_qp_type qp_type; /**< RC or UC */
	/**
	 * The REQ's starting PSN (24 bits): the first PSN our QP receives, the
	 * peer's first send PSN (Linux's cm.c: the active side's rq_psn, the
	 * passive side's sq_psn); our send PSN is the REP's.
	 */
	uint32_t starting_psn;
	uint8_t sgid[ROCE_GID_LEN]; /**< our GID (the path's local GID) */
	uint8_t dgid[ROCE_GID_LEN]; /**< the peer's GID */
	uint32_t flow_label;      /**< 20 bits */
	uint8_t traffic_class;    /**< GRH traffic class */
	uint8_t hop_limit;        /**< 0: 64 */
	uint8_t path_mtu;         /**< enum roce_mtu */
	uint8_t responder_resources; /**< READ/atomic resources we give the peer */
	uint8_t initiator_depth;  /**< READ/atomics we may have outstanding */
	uint8_t retry_count;      /**< 0..7 */
	uint8_t rnr_retry_count;  /**< 0..7 (the peer's QP uses it) */
	uint8_t local_ack_timeout; /**< 0..31: the QP's timeout, in the REQ's path */
	uint8_t min_rnr_timer;    /**< our QP's RNR timer code */
	uint8_t remote_cm_response_timeout; /**< 0..31: how long the peer may take */
	uint8_t local_cm_response_timeout;  /**< 0..31: how long we take */
	uint8_t max_cm_retries;   /**< 0..15: resends of the REQ (and DREQ) */
	const void *private_data; /**< e.g. the RDMA CM header (roce_cm_ip_hdr_encode()) */
	uint8_t private_data_len; /**< 0..92 */
	void *ctx;                /**< the connection's context */
};

/**
 * Send a REQ.
 * @param cm    The CM.
 * @param p     What to ask for.
 * @param conn  Out: the connection.
 * @return 0 with *@p conn set, or -EINVAL (a value out of range), -ENOSPC
 * (no free connection slot); nothing sent then.
 */
int roce_cm_connect(struct roce_cm *cm, const struct roce_cm_connect_param *p,
		    struct roce_cm_conn **conn);

/** Passive side: the REP. */
struct roce_cm_accept_param {
	uint32_t qpn;             /**< our QP, in INIT (receives posted) */
	/** The REP's starting PSN: the first PSN our QP receives (the active side sends with it). */
	uint32_t starting_psn;
	uint8_t responder_resources; /**< cut to the REQ's initiator depth */
	uint8_t initiator_depth;  /**< cut to the REQ's responder resources */
	uint8_t rnr_retry_count;  /**< 0..7, for the active side's QP */
	uint8_t min_rnr_timer;    /**< our QP's RNR timer code */
	uint8_t target_ack_delay; /**< 0..31 */
	const void *private_data; /**< the REP's private data */
	uint8_t private_data_len; /**< 0..196 */
	void *ctx;                /**< the connection's context from now on (NULL: keep) */
};

/**
 * Accept a REQ (state REQ_RCVD or MRA_REQ_SENT): moves the QP to RTR and
 * RTS (as Linux's RDMA CM does before its REP), sends the REP and waits for
 * the RTU.
 * @param conn  The connection of the REQ event.
 * @param p     The REP.
 * @return 0, -EINVAL (state or value), or the qp_modify error (a REJ went
 * to the peer and the connection is freed).
 */
int roce_cm_accept(struct roce_cm_conn *conn, const struct roce_cm_accept_param *p);
/**
 * Reject a REQ (REQ_RCVD, MRA_REQ_SENT); the connection is freed.
 * @param conn    The connection of the REQ event.
 * @param reason  enum roce_cm_rej_reason.
 * @param pdata   Private data, or NULL.
 * @param len     Its bytes, 0..148.
 * @return 0 or -EINVAL (state, or @p len).
 */
int roce_cm_reject(struct roce_cm_conn *conn, uint16_t reason, const void *pdata, uint8_t len);
/**
 * Tell the active side the REQ needs time (REQ_RCVD -> MRA_REQ_SENT).
 * @param conn             The connection of the REQ event.
 * @param service_timeout  0..31: 4.096 us << it more.
 * @return 0 or -EINVAL.
 */
int roce_cm_mra(struct roce_cm_conn *conn, uint8_t service_timeout);
/**
 * Disconnect (ESTABLISHED): the QP goes to ERR, a DREQ goes out (resent
 * as the REQ was), DREP or its timeout ends in TIMEWAIT.
 * @param conn  The connection.
 * @return 0 or -EINVAL.
 */
int roce_cm_disconnect(struct roce_cm_conn *conn);

/**
 * Take a received MAD.
 * @param cm    The CM.
 * @param from  The peer's GID and QPN, and our GID it came to.
 * @param mad   The MAD (after the GRH of a GSI receive).
 * @param len   Its bytes: ROCE_CM_MAD_LEN, else dropped.
 * @return 0 when taken (answered duplicates too), or a negative errno when
 * dropped (counted; -EALREADY: a duplicate with nothing to answer).
 */
int roce_cm_rx(struct roce_cm *cm, const struct roce_cm_addr *from, const void *mad, size_t len);
/**
 * Fire the timers that are due: resends, timeouts, time wait ends.
 * @param cm  The CM.
 * @return how many fired.
 */
unsigned int roce_cm_poll(struct roce_cm *cm);
/** @param cm The CM. @return the earliest timer deadline (ns), or UINT64_MAX when none. */
uint64_t roce_cm_next_deadline(const struct roce_cm *cm);

/** @param conn A connection. @return its state. */
enum roce_cm_state roce_cm_conn_state(const struct roce_cm_conn *conn);
/** @param conn A connection. @return its context. */
void *roce_cm_conn_ctx(const struct roce_cm_conn *conn);
/** @param conn A connection. @return our communication ID of it. */
uint32_t roce_cm_conn_local_id(const struct roce_cm_conn *conn);
/** @param conn A connection. @return the peer's communication ID (0 until known). */
uint32_t roce_cm_conn_remote_id(const struct roce_cm_conn *conn);
/** @param conn A connection. @return the peer's QPN (0 until known). */
uint32_t roce_cm_conn_remote_qpn(const struct roce_cm_conn *conn);
/** @param cm The CM. @return the connections in use (any state but IDLE). */
unsigned int roce_cm_conn_count(const struct roce_cm *cm);

/** CM counters (names: roce_cm_stats_names()). */
struct roce_cm_stats {
	uint64_t rx_mads;          /**< MADs given to roce_cm_rx() */
	uint64_t rx_req;           /**< REQs with a valid header */
	uint64_t rx_mra;           /**< MRAs with a valid header */
	uint64_t rx_rej;           /**< REJs with a valid header */
	uint64_t rx_rep;           /**< REPs with a valid header */
	uint64_t rx_rtu;           /**< RTUs with a valid header */
	uint64_t rx_dreq;          /**< DREQs with a valid header */
	uint64_t rx_drep;          /**< DREPs with a valid header */
	uint64_t rx_bad_length;    /**< dropped: not ROCE_CM_MAD_LEN bytes */
	uint64_t rx_bad_header;    /**< dropped: version, class, method or status */
	uint64_t rx_unsupported;   /**< dropped: attribute not handled (SIDR, LAP, APR...) */
	uint64_t rx_malformed;     /**< dropped: a field value no CM sends */
	uint64_t rx_unknown_conn;  /**< dropped: no connection has those IDs */
	uint64_t rx_bad_source;    /**< dropped: not from the connection's peer */
	uint64_t rx_bad_state;     /**< dropped: not valid in the connection's state */
	uint64_t rx_duplicate;     /**< duplicates (answered again or dropped) */
	uint64_t tx_mads;          /**< MADs sent (retries included) */
	uint64_t tx_errors;        /**< conf.send failures */
	uint64_t tx_rej;           /**< REJs sent */
	uint64_t retransmits;      /**< REQ/REP/DREQ resent on timeout */
	uint64_t timeouts;         /**< exchanges given up after their retries */
	uint64_t rej_no_listener;  /**< REQs rejected: no listener (INVALID_SERVICE_ID) */
	uint64_t rej_invalid_req;  /**< REQs rejected: a field we cannot take */
	uint64_t rej_stale;        /**< REQs/REPs rejected as stale connections */
	uint64_t rej_no_resources; /**< REQs rejected: no free connection slot */
	uint64_t qp_modify_errors; /**< conf.qp_modify failures */
};

/** Copy the counters. @param cm The CM. @param st Out: the counters. */
void roce_cm_stats_get(const struct roce_cm *cm, struct roce_cm_stats *st);
/**
 * Counter names and values as pairs (as roce_dev_stats_names()).
 * @param names   Out: names (static strings); may be NULL.
 * @param values  Out: values; may be NULL.
 * @param n       Entries of @p names and @p values.
 * @param cm      The CM.
 * @return how many counters there are (may exceed @p n).
 */
unsigned int roce_cm_stats_names(const char **names, uint64_t *values, unsigned int n,
				 const struct roce_cm *cm);
/** Print the non-zero counters on one line. @param cm The CM. @param f Where. */
void roce_cm_stats_dump(const struct roce_cm *cm, FILE *f);

#ifdef __cplusplus
}
#endif

#endif /* _ROCE_CM_H_ */
