/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * The IB CM's connection state machine (IBA vol. 1 ch. 12; behaviour as
 * Linux drivers/infiniband/core/cm.c where IBA leaves a choice, each noted
 * where it is made). Connections live in a fixed table; a local
 * communication ID names its slot (low 12 bits, after the salt) and a
 * generation, so stale IDs miss. One timer per connection: the resend of
 * its outstanding REQ/REP/DREQ, or the end of its time wait.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "omni_bytes.h"
#include "omni_counters.h"
#include "roce_cm.h"
#include "roce_internal.h"

#define CM_LOG(level, fmt, ...) ROCE_LOG(level, "cm: " fmt, ##__VA_ARGS__)

#define CM_SLOT_BITS 12
#define CM_MAX_CONNS (1u << CM_SLOT_BITS)
#define CM_DEFAULT_CONNS 256
#define CM_QPN_MAX 0xffffffu

struct cm_listen {
	bool used;
	uint64_t sid;
	void *ctx;
};

struct roce_cm_conn {
	struct roce_cm *cm;
	enum roce_cm_state state;
	bool active;
	unsigned int hold;        /* callbacks running on it: the slot is not reused */
	uint32_t local_id;
	uint32_t remote_id;
	uint64_t remote_guid;
	uint64_t service_id;
	uint64_t tid;             /* of the exchange in progress (REQ's, then DREQ's) */
	uint32_t local_qpn;
	uint32_t remote_qpn;
	enum roce_qp_type qp_type;
	struct roce_cm_addr peer; /* where its MADs go */
	/* the path and the QP's attributes */
	uint32_t flow_label;
	uint8_t traffic_class;
	uint8_t hop_limit;
	uint8_t path_mtu;
	uint8_t local_ack_timeout;
	uint32_t sq_psn;
	uint32_t rq_psn;
	uint8_t initiator_depth;     /* max_rd_atomic */
	uint8_t responder_resources; /* max_dest_rd_atomic */
	uint8_t retry_count;
	uint8_t qp_rnr_retry;        /* our QP's (from the peer's message) */
	uint8_t min_rnr_timer;
	uint8_t req_rnr_retry;       /* active: what the REQ asks of the peer */
	uint8_t req_resp_res;        /* passive: the REQ's responder resources */
	uint8_t req_init_depth;      /* passive: the REQ's initiator depth */
	uint8_t mra_timeout;         /* the MRA we sent, for resends */
	/* the outstanding message and its timer */
	uint64_t timeout_ns;
	uint8_t max_cm_retries;
	uint8_t retries_left;
	bool armed;
	uint64_t deadline;
	uint8_t msg[ROCE_CM_MAD_LEN];
	void *ctx;
};

struct roce_cm {
	struct roce_cm_conf conf;
	struct cm_listen listen[ROCE_CM_MAX_LISTEN];
	struct roce_cm_conn *conns;
	unsigned int nconns;
	unsigned int in_use;
	uint32_t gen;
	struct roce_cm_stats st;
};

#define STAT(f) OMNI_CTR(struct roce_cm_stats, f)
static const struct omni_ctr cm_stat_names[] = {
	STAT(rx_mads), STAT(rx_req), STAT(rx_mra), STAT(rx_rej), STAT(rx_rep), STAT(rx_rtu),
	STAT(rx_dreq), STAT(rx_drep), STAT(rx_bad_length), STAT(rx_bad_header),
	STAT(rx_unsupported), STAT(rx_malformed), STAT(rx_unknown_conn), STAT(rx_bad_source),
	STAT(rx_bad_state), STAT(rx_duplicate), STAT(tx_mads), STAT(tx_errors), STAT(tx_rej),
	STAT(retransmits), STAT(timeouts), STAT(rej_no_listener), STAT(rej_invalid_req),
	STAT(rej_stale), STAT(rej_no_resources), STAT(qp_modify_errors),
};
OMNI_CTR_TABLE_CHECK(cm_stat_names, struct roce_cm_stats);

static const char *const state_names[ROCE_CM_STATE_COUNT] = {
	"IDLE", "REQ_SENT", "REQ_RCVD", "MRA_REQ_SENT", "MRA_REQ_RCVD", "REP_SENT",
	"REP_RCVD", "MRA_REP_RCVD", "ESTABLISHED", "DREQ_SENT", "DREQ_RCVD", "TIMEWAIT",
};

static const char *const event_names[] = {
	"REQ", "ESTABLISHED", "REJECTED", "CONNECT_ERROR", "DISCONNECTED", "TIMEWAIT_EXIT",
};

const char *
roce_cm_state_str(enum roce_cm_state s)
{
	return (unsigned int)s < ROCE_CM_STATE_COUNT ? state_names[s] : "?";
}

const char *
roce_cm_event_str(enum roce_cm_event_type t)
{
	return (unsigned int)t < RTE_DIM(event_names) ? event_names[t] : "?";
}

/* ---------------- connections ---------------- */

static uint64_t
now(const struct roce_cm *cm)
{
	return cm->conf.now(cm->conf.ctx);
}

static struct roce_cm_conn *
conn_alloc(struct roce_cm *cm)
{
	unsigned int i;

	for (i = 0; i < cm->nconns; i++) {
		struct roce_cm_conn *c = &cm->conns[i];
		uint32_t id;

		if (c->state != ROCE_CM_IDLE || c->hold != 0)
			continue;
		do {
			cm->gen = (cm->gen + 1) & ((1u << (32 - CM_SLOT_BITS)) - 1);
			id = ((cm->gen << CM_SLOT_BITS) | i) ^ cm->conf.comm_id_salt;
		} while (id == 0);
		memset(c, 0, sizeof(*c));
		c->cm = cm;
		c->local_id = id;
		cm->in_use++;
		return c;
	}
	return NULL;
}

static void
conn_free(struct roce_cm_conn *c)
{
	if (c->state == ROCE_CM_IDLE)
		return;
	c->state = ROCE_CM_IDLE;
	c->armed = false;
	c->cm->in_use--;
}

static struct roce_cm_conn *
conn_by_local(struct roce_cm *cm, uint32_t id)
{
	uint32_t slot = (id ^ cm->conf.comm_id_salt) & (CM_MAX_CONNS - 1);
	struct roce_cm_conn *c;

	if (id == 0 || slot >= cm->nconns)
		return NULL;
	c = &cm->conns[slot];
	if (c->state == ROCE_CM_IDLE || c->local_id != id)
		return NULL;
	return c;
}

/* A connection the peer knows by its (remote comm ID, CA GUID) or its QP:
 * live ones only (Linux takes a connection out of its remote ID and QPN
 * trees when it enters time wait, cm_cleanup_timewait()).
 */
static struct roce_cm_conn *
conn_by_remote(struct roce_cm *cm, uint32_t remote_id, uint32_t remote_qpn, uint64_t guid,
	       const struct roce_cm_conn *except)
{
	unsigned int i;

	for (i = 0; i < cm->nconns; i++) {
		struct roce_cm_conn *c = &cm->conns[i];

		if (c == except || c->state == ROCE_CM_IDLE || c->state == ROCE_CM_TIMEWAIT ||
		    c->remote_guid != guid)
			continue;
		if (remote_id != 0 && c->remote_id == remote_id)
			return c;
		if (remote_qpn != 0 && c->remote_qpn == remote_qpn)
			return c;
	}
	return NULL;
}

static bool
from_peer(struct roce_cm_conn *c, const struct roce_cm_addr *from)
{
	if (memcmp(from->gid, c->peer.gid, ROCE_GID_LEN) == 0 &&
	    memcmp(from->sgid, c->peer.sgid, ROCE_GID_LEN) == 0)
		return true;
	c->cm->st.rx_bad_source++;
	CM_LOG(DEBUG, "conn %08x: MAD from another source dropped", c->local_id);
	return false;
}

/* Report an event; a final one frees the connection after the callback. */
static int
deliver(struct roce_cm_conn *c, struct roce_cm_event *ev)
{
	struct roce_cm *cm = c->cm;
	int ret;

	ev->conn = c;
	ev->ctx = c->ctx;
	CM_LOG(INFO, "conn %08x: %s in %s%s", c->local_id, roce_cm_event_str(ev->type),
	       roce_cm_state_str(c->state), ev->final ? " (final)" : "");
	if (ev->final)
		conn_free(c);
	c->hold++;
	ret = cm->conf.event(cm->conf.ctx, ev);
	c->hold--;
	return ret;
}

static void
finish(struct roce_cm_conn *c, enum roce_cm_event_type type, int status)
{
	struct roce_cm_event ev = { .type = type, .status = status, .final = true };

	deliver(c, &ev);
}

/* ---------------- sending ---------------- */

static void
send_mad(struct roce_cm *cm, const struct roce_cm_addr *to, const uint8_t *mad)
{
	cm->st.tx_mads++;
	if (cm->conf.send(cm->conf.ctx, to, mad) < 0)
		cm->st.tx_errors++;
}

/* Send c->msg and start its response timer. */
static void
send_armed(struct roce_cm_conn *c)
{
	send_mad(c->cm, &c->peer, c->msg);
	c->armed = true;
	c->retries_left = c->max_cm_retries;
	c->deadline = now(c->cm) + c->timeout_ns;
}

static void
enter_timewait(struct roce_cm_conn *c)
{
	struct roce_cm *cm = c->cm;

	c->state = ROCE_CM_TIMEWAIT;
	c->armed = true;
	c->deadline = now(cm) + (cm->conf.timewait_ns != 0 ? cm->conf.timewait_ns :
				 2 * c->timeout_ns);
}

static void
rej_build(uint8_t *mad, uint64_t tid, uint32_t local_id, uint32_t remote_id, uint8_t msg,
	  uint16_t reason, const void *ari, uint8_t ari_len, const void *pdata, uint8_t len)
{
	struct roce_cm_rej rej = {
		.local_comm_id = local_id, .remote_comm_id = remote_id,
		.msg_rejected = msg, .ari_length = ari_len, .reason = reason,
	};

	if (ari_len != 0)
		memcpy(rej.ari, ari, ari_len);
	if (len != 0)
		memcpy(rej.private_data, pdata, len);
	roce_cm_hdr_init(mad, ROCE_CM_ATTR_REJ, tid);
	roce_cm_rej_encode(mad, &rej);
}

/* A REJ from a connection (cm.c cm_format_rej(): in REQ_RCVD our ID is 0). */
static void
send_rej(struct roce_cm_conn *c, uint16_t reason, uint8_t msg, const void *ari,
	 uint8_t ari_len, const void *pdata, uint8_t len)
{
	uint8_t mad[ROCE_CM_MAD_LEN];

	rej_build(mad, c->tid, c->state == ROCE_CM_REQ_RCVD ? 0 : c->local_id, c->remote_id,
		  msg, reason, ari, ari_len, pdata, len);
	c->cm->st.tx_rej++;
	send_mad(c->cm, &c->peer, mad);
}

/* A REJ to a received message with no connection of ours (cm.c cm_issue_rej()). */
static void
issue_rej(struct roce_cm *cm, const struct roce_cm_addr *from, uint64_t tid,
	  uint32_t their_id, uint32_t our_id, uint8_t msg, uint16_t reason,
	  const void *ari, uint8_t ari_len)
{
	uint8_t mad[ROCE_CM_MAD_LEN];

	rej_build(mad, tid, our_id, their_id, msg, reason, ari, ari_len, NULL, 0);
	cm->st.tx_rej++;
	send_mad(cm, from, mad);
	CM_LOG(DEBUG, "REJ %u to comm ID %08x", reason, their_id);
}

static void
send_mra(struct roce_cm_conn *c)
{
	uint8_t mad[ROCE_CM_MAD_LEN];
	struct roce_cm_mra mra = {
		.local_comm_id = c->local_id, .remote_comm_id = c->remote_id,
		.msg_mraed = ROCE_CM_MSG_REQ, .service_timeout = c->mra_timeout,
	};

	roce_cm_hdr_init(mad, ROCE_CM_ATTR_MRA, c->tid);
	roce_cm_mra_encode(mad, &mra);
	send_mad(c->cm, &c->peer, mad);
}

static void
send_rtu(struct roce_cm_conn *c)
{
	uint8_t mad[ROCE_CM_MAD_LEN];
	struct roce_cm_rtu rtu = { .local_comm_id = c->local_id, .remote_comm_id = c->remote_id };

	roce_cm_hdr_init(mad, ROCE_CM_ATTR_RTU, c->tid);
	roce_cm_rtu_encode(mad, &rtu);
	send_mad(c->cm, &c->peer, mad);
}

static void
drep_build(uint8_t *mad, uint64_t tid, uint32_t local_id, uint32_t remote_id)
{
	struct roce_cm_rtu drep = { .local_comm_id = local_id, .remote_comm_id = remote_id };

	roce_cm_hdr_init(mad, ROCE_CM_ATTR_DREP, tid);
	roce_cm_drep_encode(mad, &drep);
}

static void
send_drep(struct roce_cm_conn *c)
{
	uint8_t mad[ROCE_CM_MAD_LEN];

	drep_build(mad, c->tid, c->local_id, c->remote_id);
	send_mad(c->cm, &c->peer, mad);
}

static void
send_dreq(struct roce_cm_conn *c)
{
	struct roce_cm_dreq dreq = {
		.local_comm_id = c->local_id, .remote_comm_id = c->remote_id,
		.remote_qpn = c->remote_qpn,
	};

	/* cm.c cm_form_tid(): the agent's high half, our ID below */
	c->tid = (uint64_t)c->cm->conf.tid_hi << 32 | c->local_id;
	roce_cm_hdr_init(c->msg, ROCE_CM_ATTR_DREQ, c->tid);
	roce_cm_dreq_encode(c->msg, &dreq);
	send_armed(c);
}

/* ---------------- the QP ---------------- */

static int
qp_modify(struct roce_cm_conn *c, struct roce_qp_attr *a, uint32_t mask)
{
	struct roce_cm *cm = c->cm;
	int ret;

	c->hold++;
	ret = cm->conf.qp_modify(cm->conf.ctx, c, c->local_qpn, a, mask);
	c->hold--;
	if (ret < 0) {
		cm->st.qp_modify_errors++;
		CM_LOG(NOTICE, "conn %08x: QP %u to state %d refused (%d)", c->local_id,
		       c->local_qpn, a->qp_state, ret);
	}
	return ret;
}

static int
qp_to_rts(struct roce_cm_conn *c)
{
	struct roce_qp_attr a;
	bool rc = c->qp_type == ROCE_QPT_RC;
	uint32_t mask;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RTR;
	memcpy(a.ah_attr.dgid, c->peer.gid, ROCE_GID_LEN);
	a.ah_attr.flow_label = c->flow_label;
	a.ah_attr.hop_limit = c->hop_limit;
	a.ah_attr.traffic_class = c->traffic_class;
	a.ah_attr.vlan_id = ROCE_VLAN_NONE;
	a.path_mtu = c->path_mtu;
	a.dest_qp_num = c->remote_qpn;
	a.rq_psn = c->rq_psn;
	a.max_dest_rd_atomic = c->responder_resources;
	a.min_rnr_timer = c->min_rnr_timer;
	mask = ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU | ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN;
	if (rc)
		mask |= ROCE_QP_MAX_DEST_RD_ATOMIC | ROCE_QP_MIN_RNR_TIMER;
	ret = qp_modify(c, &a, mask);
	if (ret < 0)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RTS;
	a.sq_psn = c->sq_psn;
	a.timeout = c->local_ack_timeout;
	a.retry_cnt = c->retry_count;
	a.rnr_retry = c->qp_rnr_retry;
	a.max_rd_atomic = c->initiator_depth;
	mask = ROCE_QP_STATE | ROCE_QP_SQ_PSN;
	if (rc)
		mask |= ROCE_QP_TIMEOUT | ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY |
			ROCE_QP_MAX_QP_RD_ATOMIC;
	return qp_modify(c, &a, mask);
}

static void
qp_to_err(struct roce_cm_conn *c)
{
	struct roce_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_ERR;
	qp_modify(c, &a, ROCE_QP_STATE);
}

/* ---------------- received messages ---------------- */

static int
drop(uint64_t *ctr, int err)
{
	(*ctr)++;
	return err;
}

/* The REQ's fields this CM cannot take: a REJ reason, or 0. */
static uint16_t
req_check(const struct roce_cm_req *req, const struct roce_cm_addr *from)
{
	if ((req->transport != ROCE_CM_TRANSPORT_RC && req->transport != ROCE_CM_TRANSPORT_UC) ||
	    req->ext_transport != 0)
		return ROCE_CM_REJ_INVALID_TRANSPORT_TYPE;
	if (req->path_mtu < ROCE_MTU_256 || req->path_mtu > ROCE_MTU_4096)
		return ROCE_CM_REJ_INVALID_MTU;
	/* the path's GIDs must be the datagram's (RoCE: no LIDs to route by) */
	if (memcmp(req->primary.local_gid, from->gid, ROCE_GID_LEN) != 0 ||
	    memcmp(req->primary.remote_gid, from->sgid, ROCE_GID_LEN) != 0)
		return ROCE_CM_REJ_INVALID_GID;
	/* one P_Key, the default (its membership bit aside) */
	if ((req->pkey & 0x7fff) != (ROCE_DEFAULT_PKEY & 0x7fff))
		return ROCE_CM_REJ_UNSUPPORTED;
	return 0;
}

static struct cm_listen *
listener(struct roce_cm *cm, uint64_t sid)
{
	unsigned int i;

	for (i = 0; i < ROCE_CM_MAX_LISTEN; i++)
		if (cm->listen[i].used && cm->listen[i].sid == sid)
			return &cm->listen[i];
	return NULL;
}

static int
rx_req(struct roce_cm *cm, const struct roce_cm_addr *from, const uint8_t *mad, uint64_t tid)
{
	struct roce_cm_event ev = { .type = ROCE_CM_EV_REQ };
	struct roce_cm_ip_hdr ip;
	struct roce_cm_req req;
	struct roce_cm_conn *c;
	struct cm_listen *l;
	uint16_t reason;
	uint32_t id;
	int ret;

	roce_cm_req_decode(mad, &req);
	if (req.local_comm_id == 0 || req.local_qpn < 2)
		return drop(&cm->st.rx_malformed, -EINVAL);
	/* a REQ again: cm.c cm_dup_req_handler() */
	c = conn_by_remote(cm, req.local_comm_id, 0, req.local_ca_guid, NULL);
	if (c != NULL) {
		if (!from_peer(c, from))
			return -EPERM;
		cm->st.rx_duplicate++;
		if (c->state == ROCE_CM_MRA_REQ_SENT) {
			send_mra(c);
			return 0;
		}
		return -EALREADY;
	}
	/* the peer's QP already connected: the peer lost that connection
	 * (cm.c cm_match_req(): REJ stale, and DREQ the old one)
	 */
	c = conn_by_remote(cm, 0, req.local_qpn, req.local_ca_guid, NULL);
	if (c != NULL) {
		cm->st.rej_stale++;
		issue_rej(cm, from, tid, req.local_comm_id, 0, ROCE_CM_MSG_REQ,
			  ROCE_CM_REJ_STALE_CONN, NULL, 0);
		if (c->state == ROCE_CM_ESTABLISHED)
			roce_cm_disconnect(c);
		return 0;
	}
	reason = req_check(&req, from);
	if (reason != 0) {
		cm->st.rej_invalid_req++;
		issue_rej(cm, from, tid, req.local_comm_id, 0, ROCE_CM_MSG_REQ, reason,
			  reason == ROCE_CM_REJ_INVALID_GID ? from->sgid : NULL,
			  reason == ROCE_CM_REJ_INVALID_GID ? ROCE_GID_LEN : 0);
		return 0;
	}
	l = listener(cm, req.service_id);
	if (l == NULL) {
		cm->st.rej_no_listener++;
		issue_rej(cm, from, tid, req.local_comm_id, 0, ROCE_CM_MSG_REQ,
			  ROCE_CM_REJ_INVALID_SERVICE_ID, NULL, 0);
		return 0;
	}
	if (roce_cm_service_is_ip(req.service_id)) {
		/* cma.c: a REQ without a usable header fails the RDMA CM's
		 * handler, and Linux's CM rejects as the consumer
		 */
		if (roce_cm_ip_hdr_decode(req.private_data, ROCE_CM_REQ_PDATA, &ip) < 0) {
			cm->st.rej_invalid_req++;
			issue_rej(cm, from, tid, req.local_comm_id, 0, ROCE_CM_MSG_REQ,
				  ROCE_CM_REJ_CONSUMER_DEFINED, NULL, 0);
			return 0;
		}
		ev.ip = &ip;
	}
	c = conn_alloc(cm);
	if (c == NULL) {
		cm->st.rej_no_resources++;
		issue_rej(cm, from, tid, req.local_comm_id, 0, ROCE_CM_MSG_REQ,
			  ROCE_CM_REJ_NO_RESOURCES, NULL, 0);
		return 0;
	}
	c->state = ROCE_CM_REQ_RCVD;
	c->remote_id = req.local_comm_id;
	c->remote_guid = req.local_ca_guid;
	c->service_id = req.service_id;
	c->tid = tid;
	c->remote_qpn = req.local_qpn;
	c->qp_type = req.transport == ROCE_CM_TRANSPORT_UC ? ROCE_QPT_UC : ROCE_QPT_RC;
	c->peer = *from;
	c->flow_label = req.primary.flow_label;
	c->traffic_class = req.primary.traffic_class;
	c->hop_limit = req.primary.hop_limit;
	c->path_mtu = req.path_mtu;
	c->local_ack_timeout = req.primary.local_ack_timeout;
	/* a REQ's starting PSN is the active side's receive PSN: our send PSN (Linux cm.c) */
	c->sq_psn = req.starting_psn;
	c->retry_count = req.retry_count;
	c->qp_rnr_retry = req.rnr_retry_count;
	c->req_resp_res = req.responder_resources;
	c->req_init_depth = req.initiator_depth;
	/* our REP waits as long as the active side said it takes (cm.c) */
	c->timeout_ns = roce_cm_time_ns(req.local_cm_response_timeout);
	c->max_cm_retries = req.max_cm_retries;
	c->ctx = l->ctx;
	id = c->local_id;
	ev.req = &req;
	ev.from = from;
	ev.private_data = req.private_data;
	ev.private_data_len = ROCE_CM_REQ_PDATA;
	ret = deliver(c, &ev);
	if (ret != 0 && c->local_id == id &&
	    (c->state == ROCE_CM_REQ_RCVD || c->state == ROCE_CM_MRA_REQ_SENT))
		roce_cm_reject(c, ROCE_CM_REJ_CONSUMER_DEFINED, NULL, 0);
	return 0;
}

static int
rx_mra(struct roce_cm *cm, const struct roce_cm_addr *from, const uint8_t *mad)
{
	struct roce_cm_mra mra;
	struct roce_cm_conn *c;

	roce_cm_mra_decode(mad, &mra);
	if (mra.msg_mraed != ROCE_CM_MSG_REQ && mra.msg_mraed != ROCE_CM_MSG_REP)
		return drop(&cm->st.rx_malformed, -EINVAL);
	c = conn_by_local(cm, mra.remote_comm_id);
	/* an MRA for a REP names the connection by both IDs (cm.c cm_acquire_mraed_id()) */
	if (c == NULL || (mra.msg_mraed == ROCE_CM_MSG_REP && c->remote_id != mra.local_comm_id))
		return drop(&cm->st.rx_unknown_conn, -ENOENT);
	if (!from_peer(c, from))
		return -EPERM;
	if (c->state == ROCE_CM_REQ_SENT && mra.msg_mraed == ROCE_CM_MSG_REQ)
		c->state = ROCE_CM_MRA_REQ_RCVD;
	else if (c->state == ROCE_CM_REP_SENT && mra.msg_mraed == ROCE_CM_MSG_REP)
		c->state = ROCE_CM_MRA_REP_RCVD;
	else if ((c->state == ROCE_CM_MRA_REQ_RCVD && mra.msg_mraed == ROCE_CM_MSG_REQ) ||
		 (c->state == ROCE_CM_MRA_REP_RCVD && mra.msg_mraed == ROCE_CM_MSG_REP))
		return drop(&cm->st.rx_duplicate, -EALREADY);
	else
		return drop(&cm->st.rx_bad_state, -EPROTO);
	/* the peer's service time plus the packet's, once (cm.c cm_mra_handler()) */
	c->deadline = now(cm) + roce_cm_time_ns(mra.service_timeout) + c->timeout_ns;
	return 0;
}

static struct roce_cm_conn *
rej_conn(struct roce_cm *cm, const struct roce_cm_rej *rej)
{
	struct roce_cm_conn *c;
	unsigned int i;

	/* a timeout REJ names our connection by its remote ID and the
	 * sender's CA GUID in the ARI (cm.c cm_acquire_rejected_id())
	 */
	if (rej->reason == ROCE_CM_REJ_TIMEOUT && rej->remote_comm_id == 0) {
		uint64_t guid = omni_get_be64(rej->ari);

		for (i = 0; i < cm->nconns; i++) {
			c = &cm->conns[i];
			if (c->state != ROCE_CM_IDLE && c->remote_id != 0 &&
			    c->remote_id == rej->local_comm_id && c->remote_guid == guid)
				return c;
		}
		return NULL;
	}
	c = conn_by_local(cm, rej->remote_comm_id);
	if (c != NULL && rej->msg_rejected != ROCE_CM_MSG_REQ &&
	    c->remote_id != rej->local_comm_id)
		return NULL;
	return c;
}

static int
rx_rej(struct roce_cm *cm, const struct roce_cm_addr *from, const uint8_t *mad)
{
	struct roce_cm_event ev = { .type = ROCE_CM_EV_REJECTED };
	struct roce_cm_rej rej;
	struct roce_cm_conn *c;

	roce_cm_rej_decode(mad, &rej);
	if (rej.msg_rejected > ROCE_CM_MSG_OTHER || rej.ari_length > ROCE_CM_REJ_ARI_LEN)
		return drop(&cm->st.rx_malformed, -EINVAL);
	c = rej_conn(cm, &rej);
	if (c == NULL)
		return drop(&cm->st.rx_unknown_conn, -ENOENT);
	if (!from_peer(c, from))
		return -EPERM;
	ev.rej_reason = rej.reason;
	ev.ari = rej.ari;
	ev.ari_len = rej.ari_length;
	ev.private_data = rej.private_data;
	ev.private_data_len = ROCE_CM_REJ_PDATA;
	switch (c->state) {
	case ROCE_CM_REQ_SENT:
	case ROCE_CM_MRA_REQ_RCVD:
	case ROCE_CM_REQ_RCVD:
	case ROCE_CM_MRA_REQ_SENT:
	case ROCE_CM_REP_SENT:
	case ROCE_CM_MRA_REP_RCVD:
		c->armed = false;
		if (c->state == ROCE_CM_REP_SENT || c->state == ROCE_CM_MRA_REP_RCVD)
			qp_to_err(c); /* accept moved it to RTS */
		/* a stale connection waits out its IDs, any other goes (cm.c) */
		if (rej.reason == ROCE_CM_REJ_STALE_CONN) {
			enter_timewait(c);
			deliver(c, &ev);
		} else {
			ev.final = true;
			deliver(c, &ev);
		}
		return 0;
	case ROCE_CM_ESTABLISHED:
	case ROCE_CM_DREQ_SENT:
		if (c->state == ROCE_CM_ESTABLISHED)
			qp_to_err(c);
		enter_timewait(c);
		deliver(c, &ev);
		return 0;
	default:
		return drop(&cm->st.rx_bad_state, -EPROTO);
	}
}

static int
rx_rep(struct roce_cm *cm, const struct roce_cm_addr *from, const uint8_t *mad)
{
	struct roce_cm_event ev = { .type = ROCE_CM_EV_ESTABLISHED };
	struct roce_cm_conn *c, *other;
	struct roce_cm_rep rep;
	uint32_t id;

	roce_cm_rep_decode(mad, &rep);
	c = conn_by_local(cm, rep.remote_comm_id);
	if (c == NULL)
		return drop(&cm->st.rx_unknown_conn, -ENOENT);
	if (!from_peer(c, from))
		return -EPERM;
	if (c->state != ROCE_CM_REQ_SENT && c->state != ROCE_CM_MRA_REQ_RCVD) {
		if (c->remote_id != rep.local_comm_id)
			return drop(&cm->st.rx_bad_state, -EPROTO);
		/* a REP again: our RTU was lost (cm.c cm_dup_rep_handler()) */
		cm->st.rx_duplicate++;
		if (c->state == ROCE_CM_ESTABLISHED) {
			send_rtu(c);
			return 0;
		}
		return -EALREADY;
	}
	if (rep.local_comm_id == 0 || rep.local_qpn < 2)
		return drop(&cm->st.rx_malformed, -EINVAL);
	other = conn_by_remote(cm, rep.local_comm_id, 0, rep.local_ca_guid, c);
	if (other != NULL)
		return drop(&cm->st.rx_duplicate, -EALREADY);
	other = conn_by_remote(cm, 0, rep.local_qpn, rep.local_ca_guid, c);
	if (other != NULL) {
		/* cm.c cm_rep_handler(): REJ stale, DREQ the old; ours waits on */
		cm->st.rej_stale++;
		issue_rej(cm, from, c->tid, rep.local_comm_id, c->local_id, ROCE_CM_MSG_REP,
			  ROCE_CM_REJ_STALE_CONN, NULL, 0);
		if (other->state == ROCE_CM_ESTABLISHED)
			roce_cm_disconnect(other);
		return 0;
	}
	c->armed = false;
	c->state = ROCE_CM_REP_RCVD;
	c->remote_id = rep.local_comm_id;
	c->remote_guid = rep.local_ca_guid;
	c->remote_qpn = rep.local_qpn;
	/* a REP's starting PSN is the passive side's receive PSN: our send PSN */
	c->sq_psn = rep.starting_psn;
	c->qp_rnr_retry = rep.rnr_retry_count;
	if (c->initiator_depth > rep.responder_resources)
		c->initiator_depth = rep.responder_resources;
	id = c->local_id;
	if (qp_to_rts(c) < 0) {
		if (c->local_id != id || c->state != ROCE_CM_REP_RCVD)
			return 0;
		send_rej(c, ROCE_CM_REJ_CONSUMER_DEFINED, ROCE_CM_MSG_REP, NULL, 0, NULL, 0);
		qp_to_err(c);
		finish(c, ROCE_CM_EV_CONNECT_ERROR, -EIO);
		return 0;
	}
	if (c->local_id != id || c->state != ROCE_CM_REP_RCVD)
		return 0;
	send_rtu(c);
	c->state = ROCE_CM_ESTABLISHED;
	ev.private_data = rep.private_data;
	ev.private_data_len = ROCE_CM_REP_PDATA;
	deliver(c, &ev);
	return 0;
}

static int
rx_rtu(struct roce_cm *cm, const struct roce_cm_addr *from, const uint8_t *mad)
{
	struct roce_cm_event ev = { .type = ROCE_CM_EV_ESTABLISHED };
	struct roce_cm_rtu rtu;
	struct roce_cm_conn *c;

	roce_cm_rtu_decode(mad, &rtu);
	c = conn_by_local(cm, rtu.remote_comm_id);
	if (c == NULL || c->remote_id != rtu.local_comm_id)
		return drop(&cm->st.rx_unknown_conn, -ENOENT);
	if (!from_peer(c, from))
		return -EPERM;
	if (c->state == ROCE_CM_ESTABLISHED)
		return drop(&cm->st.rx_duplicate, -EALREADY);
	if (c->state != ROCE_CM_REP_SENT && c->state != ROCE_CM_MRA_REP_RCVD)
		return drop(&cm->st.rx_bad_state, -EPROTO);
	c->armed = false;
	c->state = ROCE_CM_ESTABLISHED;
	ev.private_data = rtu.private_data;
	ev.private_data_len = ROCE_CM_RTU_PDATA;
	deliver(c, &ev);
	return 0;
}

static int
rx_dreq(struct roce_cm *cm, const struct roce_cm_addr *from, const uint8_t *mad, uint64_t tid)
{
	struct roce_cm_event ev = { .type = ROCE_CM_EV_DISCONNECTED };
	struct roce_cm_dreq dreq;
	struct roce_cm_conn *c;
	uint8_t out[ROCE_CM_MAD_LEN];
	uint32_t id;

	roce_cm_dreq_decode(mad, &dreq);
	c = conn_by_local(cm, dreq.remote_comm_id);
	if (c == NULL || c->remote_id != dreq.local_comm_id) {
		/* the peer wants out of a connection we do not have: let it go
		 * (cm.c cm_issue_drep())
		 */
		drep_build(out, tid, dreq.remote_comm_id, dreq.local_comm_id);
		send_mad(cm, from, out);
		return drop(&cm->st.rx_unknown_conn, -ENOENT);
	}
	if (!from_peer(c, from))
		return -EPERM;
	switch (c->state) {
	case ROCE_CM_TIMEWAIT:
	case ROCE_CM_REP_SENT:
	case ROCE_CM_MRA_REP_RCVD:
	case ROCE_CM_ESTABLISHED:
	case ROCE_CM_DREQ_SENT:
		break;
	default:
		return drop(&cm->st.rx_bad_state, -EPROTO);
	}
	/* it must name our QP (cm.c cm_dreq_handler()) */
	if (dreq.remote_qpn != c->local_qpn)
		return drop(&cm->st.rx_malformed, -EINVAL);
	if (c->state == ROCE_CM_TIMEWAIT) {
		cm->st.rx_duplicate++;
		drep_build(out, tid, c->local_id, c->remote_id);
		send_mad(cm, &c->peer, out);
		return 0;
	}
	c->armed = false;
	if (c->state != ROCE_CM_DREQ_SENT)
		qp_to_err(c);
	c->state = ROCE_CM_DREQ_RCVD;
	c->tid = tid;
	id = c->local_id;
	ev.private_data = dreq.private_data;
	ev.private_data_len = ROCE_CM_DREQ_PDATA;
	deliver(c, &ev);
	/* the DREP goes at once (Linux's RDMA CM sends it when the consumer
	 * disconnects; nothing here can keep it waiting)
	 */
	if (c->local_id == id && c->state == ROCE_CM_DREQ_RCVD) {
		send_drep(c);
		enter_timewait(c);
	}
	return 0;
}

static int
rx_drep(struct roce_cm *cm, const struct roce_cm_addr *from, const uint8_t *mad)
{
	struct roce_cm_event ev = { .type = ROCE_CM_EV_DISCONNECTED };
	struct roce_cm_rtu drep;
	struct roce_cm_conn *c;

	roce_cm_drep_decode(mad, &drep);
	c = conn_by_local(cm, drep.remote_comm_id);
	if (c == NULL || c->remote_id != drep.local_comm_id)
		return drop(&cm->st.rx_unknown_conn, -ENOENT);
	if (!from_peer(c, from))
		return -EPERM;
	if (c->state == ROCE_CM_TIMEWAIT)
		return drop(&cm->st.rx_duplicate, -EALREADY);
	if (c->state != ROCE_CM_DREQ_SENT)
		return drop(&cm->st.rx_bad_state, -EPROTO);
	enter_timewait(c);
	ev.private_data = drep.private_data;
	ev.private_data_len = ROCE_CM_DREP_PDATA;
	deliver(c, &ev);
	return 0;
}

int
roce_cm_rx(struct roce_cm *cm, const struct roce_cm_addr *from, const void *buf, size_t len)
{
	const uint8_t *mad = buf;
	struct omni_mad_hdr h;

	cm->st.rx_mads++;
	if (len != ROCE_CM_MAD_LEN)
		return drop(&cm->st.rx_bad_length, -EINVAL);
	omni_mad_hdr_decode(mad, &h);
	/* the agent Linux's CM registers: this class and version, Send only */
	if (h.base_version != ROCE_CM_BASE_VERSION || h.mgmt_class != ROCE_CM_MGMT_CLASS ||
	    h.class_version != ROCE_CM_CLASS_VERSION || h.method != ROCE_CM_METHOD_SEND ||
	    h.status != 0)
		return drop(&cm->st.rx_bad_header, -EINVAL);
	switch (h.attr_id) {
	case ROCE_CM_ATTR_REQ:
		cm->st.rx_req++;
		return rx_req(cm, from, mad, h.tid);
	case ROCE_CM_ATTR_MRA:
		cm->st.rx_mra++;
		return rx_mra(cm, from, mad);
	case ROCE_CM_ATTR_REJ:
		cm->st.rx_rej++;
		return rx_rej(cm, from, mad);
	case ROCE_CM_ATTR_REP:
		cm->st.rx_rep++;
		return rx_rep(cm, from, mad);
	case ROCE_CM_ATTR_RTU:
		cm->st.rx_rtu++;
		return rx_rtu(cm, from, mad);
	case ROCE_CM_ATTR_DREQ:
		cm->st.rx_dreq++;
		return rx_dreq(cm, from, mad, h.tid);
	case ROCE_CM_ATTR_DREP:
		cm->st.rx_drep++;
		return rx_drep(cm, from, mad);
	default:
		return drop(&cm->st.rx_unsupported, -ENOTSUP);
	}
}

/* ---------------- timers ---------------- */

static void
timer_fire(struct roce_cm_conn *c)
{
	struct roce_cm *cm = c->cm;
	struct roce_cm_event ev = { .status = -ETIMEDOUT };
	uint64_t guid_be;

	if (c->state == ROCE_CM_TIMEWAIT) {
		finish(c, ROCE_CM_EV_TIMEWAIT_EXIT, 0);
		return;
	}
	if (c->retries_left > 0) {
		c->retries_left--;
		cm->st.retransmits++;
		send_mad(cm, &c->peer, c->msg);
		c->deadline = now(cm) + c->timeout_ns;
		return;
	}
	cm->st.timeouts++;
	c->armed = false;
	/* the ARI of a timeout REJ is our CA GUID (cm.c cm_destroy_id()) */
	omni_put_be64(&guid_be, cm->conf.ca_guid);
	switch (c->state) {
	case ROCE_CM_REQ_SENT:
	case ROCE_CM_MRA_REQ_RCVD:
		send_rej(c, ROCE_CM_REJ_TIMEOUT, ROCE_CM_MSG_OTHER, &guid_be, 8, NULL, 0);
		finish(c, ROCE_CM_EV_CONNECT_ERROR, -ETIMEDOUT);
		return;
	case ROCE_CM_REP_SENT:
	case ROCE_CM_MRA_REP_RCVD:
		send_rej(c, ROCE_CM_REJ_TIMEOUT, ROCE_CM_MSG_OTHER, &guid_be, 8, NULL, 0);
		qp_to_err(c);
		enter_timewait(c);
		ev.type = ROCE_CM_EV_CONNECT_ERROR;
		deliver(c, &ev);
		return;
	case ROCE_CM_DREQ_SENT:
		enter_timewait(c);
		ev.type = ROCE_CM_EV_DISCONNECTED;
		deliver(c, &ev);
		return;
	default:
		return;
	}
}

unsigned int
roce_cm_poll(struct roce_cm *cm)
{
	uint64_t t = now(cm);
	unsigned int i, fired = 0;

	for (i = 0; i < cm->nconns; i++) {
		struct roce_cm_conn *c = &cm->conns[i];

		if (c->state == ROCE_CM_IDLE || !c->armed || t < c->deadline)
			continue;
		fired++;
		timer_fire(c);
	}
	return fired;
}

uint64_t
roce_cm_next_deadline(const struct roce_cm *cm)
{
	uint64_t d = UINT64_MAX;
	unsigned int i;

	for (i = 0; i < cm->nconns; i++) {
		const struct roce_cm_conn *c = &cm->conns[i];

		if (c->state != ROCE_CM_IDLE && c->armed && c->deadline < d)
			d = c->deadline;
	}
	return d;
}

/* ---------------- the API ---------------- */

struct roce_cm *
roce_cm_create(const struct roce_cm_conf *conf)
{
	struct roce_cm *cm;
	unsigned int n;

	if (conf == NULL || conf->send == NULL || conf->now == NULL ||
	    conf->qp_modify == NULL || conf->event == NULL || conf->max_conns > CM_MAX_CONNS) {
		errno = EINVAL;
		return NULL;
	}
	n = conf->max_conns != 0 ? conf->max_conns : CM_DEFAULT_CONNS;
	cm = calloc(1, sizeof(*cm));
	if (cm == NULL)
		return NULL;
	cm->conns = calloc(n, sizeof(*cm->conns));
	if (cm->conns == NULL) {
		free(cm);
		return NULL;
	}
	cm->conf = *conf;
	cm->nconns = n;
	return cm;
}

void
roce_cm_destroy(struct roce_cm *cm)
{
	if (cm == NULL)
		return;
	free(cm->conns);
	free(cm);
}

int
roce_cm_listen(struct roce_cm *cm, uint64_t service_id, void *ctx)
{
	unsigned int i;

	if (listener(cm, service_id) != NULL)
		return -EEXIST;
	for (i = 0; i < ROCE_CM_MAX_LISTEN; i++) {
		if (!cm->listen[i].used) {
			cm->listen[i] = (struct cm_listen){ .used = true, .sid = service_id,
							    .ctx = ctx };
			return 0;
		}
	}
	return -ENOSPC;
}

int
roce_cm_unlisten(struct roce_cm *cm, uint64_t service_id)
{
	struct cm_listen *l = listener(cm, service_id);

	if (l == NULL)
		return -ENOENT;
	l->used = false;
	return 0;
}

static bool
connect_param_ok(const struct roce_cm_connect_param *p)
{
	return (p->qp_type == ROCE_QPT_RC || p->qp_type == ROCE_QPT_UC) &&
	       p->qpn >= 2 && p->qpn <= CM_QPN_MAX && p->starting_psn <= CM_QPN_MAX &&
	       p->flow_label <= 0xfffff && p->path_mtu >= ROCE_MTU_256 &&
	       p->path_mtu <= ROCE_MTU_4096 && p->retry_count <= 7 && p->rnr_retry_count <= 7 &&
	       p->local_ack_timeout <= 31 && p->min_rnr_timer <= 31 &&
	       p->remote_cm_response_timeout <= 31 && p->local_cm_response_timeout <= 31 &&
	       p->max_cm_retries <= 15 && p->private_data_len <= ROCE_CM_REQ_PDATA &&
	       (p->private_data != NULL || p->private_data_len == 0);
}

int
roce_cm_connect(struct roce_cm *cm, const struct roce_cm_connect_param *p,
		struct roce_cm_conn **conn)
{
	struct roce_cm_req req;
	struct roce_cm_conn *c;

	if (!connect_param_ok(p))
		return -EINVAL;
	c = conn_alloc(cm);
	if (c == NULL)
		return -ENOSPC;
	c->active = true;
	c->state = ROCE_CM_REQ_SENT;
	c->service_id = p->service_id;
	c->local_qpn = p->qpn;
	c->qp_type = p->qp_type;
	memcpy(c->peer.gid, p->dgid, ROCE_GID_LEN);
	memcpy(c->peer.sgid, p->sgid, ROCE_GID_LEN);
	c->peer.qpn = ROCE_GSI_QPN;
	c->flow_label = p->flow_label;
	c->traffic_class = p->traffic_class;
	c->hop_limit = p->hop_limit != 0 ? p->hop_limit : 64;
	c->path_mtu = p->path_mtu;
	c->local_ack_timeout = p->local_ack_timeout;
	c->rq_psn = p->starting_psn;
	c->initiator_depth = p->initiator_depth;
	c->responder_resources = p->responder_resources;
	c->retry_count = p->retry_count;
	c->req_rnr_retry = p->rnr_retry_count;
	c->min_rnr_timer = p->min_rnr_timer;
	/* the peer's time plus a round trip (cm.c ib_send_cm_req(): twice
	 * the packet life time, which the ACK timeout covers)
	 */
	c->timeout_ns = roce_cm_time_ns(p->remote_cm_response_timeout) +
			roce_cm_time_ns(p->local_ack_timeout);
	c->max_cm_retries = p->max_cm_retries;
	c->ctx = p->ctx;
	c->tid = (uint64_t)cm->conf.tid_hi << 32 | c->local_id;

	memset(&req, 0, sizeof(req));
	req.local_comm_id = c->local_id;
	req.service_id = p->service_id;
	req.local_ca_guid = cm->conf.ca_guid;
	req.local_qpn = p->qpn;
	req.responder_resources = p->responder_resources;
	req.initiator_depth = p->initiator_depth;
	req.remote_cm_response_timeout = p->remote_cm_response_timeout;
	req.transport = p->qp_type == ROCE_QPT_UC ? ROCE_CM_TRANSPORT_UC : ROCE_CM_TRANSPORT_RC;
	req.starting_psn = p->starting_psn;
	req.local_cm_response_timeout = p->local_cm_response_timeout;
	req.retry_count = p->retry_count;
	req.pkey = ROCE_DEFAULT_PKEY;
	req.path_mtu = p->path_mtu;
	req.rnr_retry_count = p->rnr_retry_count;
	req.max_cm_retries = p->max_cm_retries;
	/* routed (hop limit > 1): permissive LIDs, not subnet local (cm.c cm_format_req()) */
	req.primary.subnet_local = c->hop_limit <= 1;
	req.primary.local_lid = c->hop_limit > 1 ? ROCE_CM_LID_PERMISSIVE : 0;
	req.primary.remote_lid = req.primary.local_lid;
	memcpy(req.primary.local_gid, p->sgid, ROCE_GID_LEN);
	memcpy(req.primary.remote_gid, p->dgid, ROCE_GID_LEN);
	req.primary.flow_label = p->flow_label;
	req.primary.traffic_class = p->traffic_class;
	req.primary.hop_limit = c->hop_limit;
	req.primary.local_ack_timeout = p->local_ack_timeout;
	if (p->private_data_len != 0)
		memcpy(req.private_data, p->private_data, p->private_data_len);
	roce_cm_hdr_init(c->msg, ROCE_CM_ATTR_REQ, c->tid);
	roce_cm_req_encode(c->msg, &req);
	send_armed(c);
	CM_LOG(INFO, "conn %08x: REQ for service %016" PRIx64 " from QP %u", c->local_id,
	       p->service_id, p->qpn);
	*conn = c;
	return 0;
}

int
roce_cm_accept(struct roce_cm_conn *c, const struct roce_cm_accept_param *p)
{
	struct roce_cm *cm = c->cm;
	struct roce_cm_rep rep;
	uint32_t id = c->local_id;
	int ret;

	if ((c->state != ROCE_CM_REQ_RCVD && c->state != ROCE_CM_MRA_REQ_SENT) ||
	    p->qpn < 2 || p->qpn > CM_QPN_MAX || p->starting_psn > CM_QPN_MAX ||
	    p->rnr_retry_count > 7 || p->min_rnr_timer > 31 || p->target_ack_delay > 31 ||
	    p->private_data_len > ROCE_CM_REP_PDATA ||
	    (p->private_data == NULL && p->private_data_len != 0))
		return -EINVAL;
	c->local_qpn = p->qpn;
	c->rq_psn = p->starting_psn;
	c->responder_resources = RTE_MIN(p->responder_resources, c->req_init_depth);
	c->initiator_depth = RTE_MIN(p->initiator_depth, c->req_resp_res);
	c->min_rnr_timer = p->min_rnr_timer;
	if (p->ctx != NULL)
		c->ctx = p->ctx;
	ret = qp_to_rts(c);
	if (c->local_id != id || (c->state != ROCE_CM_REQ_RCVD &&
				  c->state != ROCE_CM_MRA_REQ_SENT))
		return ret < 0 ? ret : -EINVAL;
	if (ret < 0) {
		send_rej(c, ROCE_CM_REJ_CONSUMER_DEFINED, ROCE_CM_MSG_REQ, NULL, 0, NULL, 0);
		qp_to_err(c);
		conn_free(c);
		return ret;
	}
	memset(&rep, 0, sizeof(rep));
	rep.local_comm_id = c->local_id;
	rep.remote_comm_id = c->remote_id;
	rep.local_qpn = p->qpn;
	rep.starting_psn = p->starting_psn;
	rep.responder_resources = c->responder_resources;
	rep.initiator_depth = c->initiator_depth;
	rep.target_ack_delay = p->target_ack_delay;
	rep.rnr_retry_count = p->rnr_retry_count;
	rep.local_ca_guid = cm->conf.ca_guid;
	if (p->private_data_len != 0)
		memcpy(rep.private_data, p->private_data, p->private_data_len);
	roce_cm_hdr_init(c->msg, ROCE_CM_ATTR_REP, c->tid);
	roce_cm_rep_encode(c->msg, &rep);
	c->state = ROCE_CM_REP_SENT;
	send_armed(c);
	return 0;
}

int
roce_cm_reject(struct roce_cm_conn *c, uint16_t reason, const void *pdata, uint8_t len)
{
	if ((c->state != ROCE_CM_REQ_RCVD && c->state != ROCE_CM_MRA_REQ_SENT) ||
	    len > ROCE_CM_REJ_PDATA || (pdata == NULL && len != 0))
		return -EINVAL;
	send_rej(c, reason, ROCE_CM_MSG_REQ, NULL, 0, pdata, len);
	conn_free(c);
	return 0;
}

int
roce_cm_mra(struct roce_cm_conn *c, uint8_t service_timeout)
{
	if (c->state != ROCE_CM_REQ_RCVD || service_timeout > 31)
		return -EINVAL;
	c->mra_timeout = service_timeout;
	c->state = ROCE_CM_MRA_REQ_SENT;
	send_mra(c);
	return 0;
}

int
roce_cm_disconnect(struct roce_cm_conn *c)
{
	if (c->state != ROCE_CM_ESTABLISHED)
		return -EINVAL;
	c->state = ROCE_CM_DREQ_SENT;
	qp_to_err(c);
	if (c->state != ROCE_CM_DREQ_SENT)
		return 0;
	send_dreq(c);
	return 0;
}

enum roce_cm_state
roce_cm_conn_state(const struct roce_cm_conn *c)
{
	return c->state;
}

void *
roce_cm_conn_ctx(const struct roce_cm_conn *c)
{
	return c->ctx;
}

uint32_t
roce_cm_conn_local_id(const struct roce_cm_conn *c)
{
	return c->local_id;
}

uint32_t
roce_cm_conn_remote_id(const struct roce_cm_conn *c)
{
	return c->remote_id;
}

uint32_t
roce_cm_conn_remote_qpn(const struct roce_cm_conn *c)
{
	return c->remote_qpn;
}

unsigned int
roce_cm_conn_count(const struct roce_cm *cm)
{
	return cm->in_use;
}

void
roce_cm_stats_get(const struct roce_cm *cm, struct roce_cm_stats *st)
{
	*st = cm->st;
}

unsigned int
roce_cm_stats_names(const char **names, uint64_t *values, unsigned int n,
		    const struct roce_cm *cm)
{
	unsigned int i, total = RTE_DIM(cm_stat_names);

	for (i = 0; i < total && i < n; i++) {
		if (names != NULL)
			names[i] = cm_stat_names[i].name;
		if (values != NULL)
			values[i] = omni_ctr_value(&cm_stat_names[i], &cm->st);
	}
	return total;
}

void
roce_cm_stats_dump(const struct roce_cm *cm, FILE *f)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(cm_stat_names); i++) {
		uint64_t v = omni_ctr_value(&cm_stat_names[i], &cm->st);

		if (v != 0)
			fprintf(f, "%s=%" PRIu64 " ", cm_stat_names[i].name, v);
	}
	fputc('\n', f);
}
