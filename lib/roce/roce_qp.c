/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* Queue pairs: creation, the IBA state machine, posting, flushing. */

#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "roce_internal.h"

#define NULL_ERR(dev, e, ...) \
	do { roce_err(dev, e, __VA_ARGS__); rte_errno = (e); return NULL; } while (0)

/*
 * Attributes required and allowed on each transition, per QP type class:
 * [0] UD and GSI, [1] UC, [2] RC (IBA vol. 1, 11.2.4.2 "Modify Queue Pair").
 * P_Key index and port are optional where IBA requires them: this device
 * has one of each.
 */
enum { CL_UD, CL_UC, CL_RC, CL_N };

struct transition {
	bool valid;
	uint32_t req[CL_N];
	uint32_t opt[CL_N];
};

#define S(x) ROCE_QPS_##x
#define A(x) ROCE_QP_##x
#define PKP (A(PKEY_INDEX) | A(PORT))

static const struct transition transitions[7][7] = {
	[S(RESET)] = {
		[S(RESET)] = { .valid = true },
		[S(INIT)] = { .valid = true,
			.req = { A(QKEY), A(ACCESS_FLAGS), A(ACCESS_FLAGS) },
			.opt = { PKP, PKP, PKP } },
	},
	[S(INIT)] = {
		[S(RESET)] = { .valid = true },
		[S(ERR)] = { .valid = true },
		[S(INIT)] = { .valid = true,
			.opt = { PKP | A(QKEY), PKP | A(ACCESS_FLAGS), PKP | A(ACCESS_FLAGS) } },
		[S(RTR)] = { .valid = true,
			.req = { 0,
				 A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN),
				 A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN) |
				 A(MAX_DEST_RD_ATOMIC) | A(MIN_RNR_TIMER) },
			.opt = { A(PKEY_INDEX) | A(QKEY), A(ACCESS_FLAGS) | A(PKEY_INDEX),
				 A(ACCESS_FLAGS) | A(PKEY_INDEX) } },
	},
	[S(RTR)] = {
		[S(RESET)] = { .valid = true },
		[S(ERR)] = { .valid = true },
		[S(RTS)] = { .valid = true,
			.req = { A(SQ_PSN), A(SQ_PSN),
				 A(SQ_PSN) | A(TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) |
				 A(MAX_QP_RD_ATOMIC) },
			.opt = { A(CUR_STATE) | A(QKEY), A(CUR_STATE) | A(ACCESS_FLAGS),
				 A(CUR_STATE) | A(ACCESS_FLAGS) | A(MIN_RNR_TIMER) } },
	},
	[S(RTS)] = {
		[S(RESET)] = { .valid = true },
		[S(ERR)] = { .valid = true },
		[S(RTS)] = { .valid = true,
			.opt = { A(CUR_STATE) | A(QKEY), A(CUR_STATE) | A(ACCESS_FLAGS),
				 A(CUR_STATE) | A(ACCESS_FLAGS) | A(MIN_RNR_TIMER) } },
		[S(SQD)] = { .valid = true },
	},
	[S(SQD)] = {
		[S(RESET)] = { .valid = true },
		[S(ERR)] = { .valid = true },
		[S(RTS)] = { .valid = true,
			.opt = { A(CUR_STATE) | A(QKEY), A(CUR_STATE) | A(ACCESS_FLAGS),
				 A(CUR_STATE) | A(ACCESS_FLAGS) | A(MIN_RNR_TIMER) } },
		[S(SQD)] = { .valid = true,
			.opt = { A(PKEY_INDEX) | A(QKEY),
				 A(AV) | A(ACCESS_FLAGS) | A(PKEY_INDEX),
				 A(PORT) | A(AV) | A(TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) |
				 A(MAX_QP_RD_ATOMIC) | A(MAX_DEST_RD_ATOMIC) |
				 A(ACCESS_FLAGS) | A(PKEY_INDEX) | A(MIN_RNR_TIMER) } },
	},
	[S(SQE)] = {
		[S(RESET)] = { .valid = true },
		[S(ERR)] = { .valid = true },
		[S(RTS)] = { .valid = true,
			.opt = { A(CUR_STATE) | A(QKEY), A(CUR_STATE) | A(ACCESS_FLAGS), 0 } },
	},
	[S(ERR)] = {
		[S(RESET)] = { .valid = true },
		[S(ERR)] = { .valid = true },
	},
};

static const char *const attr_names[] = {
	"STATE", "CUR_STATE", "ACCESS_FLAGS", "QKEY", "AV", "PATH_MTU", "TIMEOUT",
	"RETRY_CNT", "RNR_RETRY", "RQ_PSN", "MAX_QP_RD_ATOMIC", "MIN_RNR_TIMER", "SQ_PSN",
	"MAX_DEST_RD_ATOMIC", "CAP", "DEST_QPN", "RATE_LIMIT", "PKEY_INDEX", "PORT",
};

static const char *
first_attr(uint32_t bits)
{
	return bits ? attr_names[rte_bsf32(bits)] : "";
}

static int
type_class(enum roce_qp_type t)
{
	return t == ROCE_QPT_RC ? CL_RC : t == ROCE_QPT_UC ? CL_UC : CL_UD;
}

/* ---------------- creation ---------------- */

static int
wq_init(struct roce_wq *q, uint32_t cap, uint32_t stride, int socket)
{
	uint32_t slots = rte_align32pow2(cap ? cap : 1);

	q->stride = RTE_ALIGN_CEIL(stride, 8);
	q->mask = slots - 1;
	q->cap = cap;
	q->head = q->tail = 0;
	q->buf = rte_zmalloc_socket("roce_wq", (size_t)slots * q->stride, RTE_CACHE_LINE_SIZE,
				    socket);
	return q->buf == NULL ? -ENOMEM : 0;
}

static void
qp_reset_state(struct roce_qp *qp)
{
	qp->sq.head = qp->sq.tail = 0;
	qp->rq.head = qp->rq.tail = 0;
	memset(&qp->req, 0, sizeof(qp->req));
	roce_timer_cancel(&qp->dev->wheel, &qp->comp.retry_timer);
	roce_timer_cancel(&qp->dev->wheel, &qp->comp.rnr_timer);
	qp->comp.psn = 0;
	qp->comp.read_off = 0;
	qp->comp.rnr_wait = false;
	qp->comp.retry_armed = false;
	memset(&qp->resp, 0, offsetof(typeof(qp->resp), res));
	if (qp->resp.res != NULL)
		memset(qp->resp.res, 0, sizeof(*qp->resp.res) * qp->resp.nb_res);
	qp->resp.res_next = 0;
	qp->resp.res_pending = 0;
	if (qp->on_active) {
		TAILQ_REMOVE(&qp->dev->active, qp, active_next);
		qp->on_active = false;
	}
	if (qp->on_ack) {
		TAILQ_REMOVE(&qp->dev->acks, qp, ack_next);
		qp->on_ack = false;
	}
}

struct roce_qp *
roce_qp_create(struct roce_pd *pd, const struct roce_qp_init_attr *ia)
{
	struct roce_dev *dev = pd->dev;
	const struct roce_dev_limits *lim = &dev->lim;
	const struct roce_qp_cap *cap = &ia->cap;
	struct roce_qp *qp;
	uint32_t sq_stride, rq_stride;
	int idx = -1;

	if (ia->qp_type != ROCE_QPT_RC && ia->qp_type != ROCE_QPT_UC &&
	    ia->qp_type != ROCE_QPT_UD && ia->qp_type != ROCE_QPT_GSI)
		NULL_ERR(dev, EINVAL, "QP type %d is not GSI, RC, UC or UD", ia->qp_type);
	if (ia->send_cq == NULL || ia->recv_cq == NULL || ia->send_cq->dev != dev ||
	    ia->recv_cq->dev != dev)
		NULL_ERR(dev, EINVAL, "QP needs a send and a receive CQ of this device");
	if (cap->max_send_wr == 0 || cap->max_send_wr > lim->max_qp_wr ||
	    cap->max_recv_wr > lim->max_qp_wr || cap->max_send_sge > lim->max_sge ||
	    cap->max_recv_sge > lim->max_sge || cap->max_inline_data > lim->max_inline)
		NULL_ERR(dev, EINVAL, "QP capabilities exceed the device's (wr 1..%u, sge <= %u, "
			 "inline <= %u)", lim->max_qp_wr, lim->max_sge, lim->max_inline);
	if (ia->qp_type == ROCE_QPT_GSI && dev->gsi != NULL)
		NULL_ERR(dev, EEXIST, "the device already has its GSI QP");
	qp = rte_zmalloc_socket("roce_qp", sizeof(*qp), RTE_CACHE_LINE_SIZE, dev->conf.socket_id);
	if (qp == NULL)
		NULL_ERR(dev, ENOMEM, "no memory for a QP");
	qp->dev = dev;
	qp->pd = pd;
	qp->type = ia->qp_type;
	qp->send_cq = ia->send_cq;
	qp->recv_cq = ia->recv_cq;
	qp->sq_sig_all = ia->sq_sig_all;
	qp->cap = *cap;
	if (qp->cap.max_send_sge == 0)
		qp->cap.max_send_sge = 1;
	if (qp->cap.max_recv_sge == 0)
		qp->cap.max_recv_sge = 1;
	qp->comp.retry_timer.fn = roce_comp_retry_timeout;
	qp->comp.rnr_timer.fn = roce_comp_rnr_timeout;
	sq_stride = sizeof(struct roce_swqe) +
		    RTE_MAX(sizeof(struct roce_sge) * qp->cap.max_send_sge,
			    (size_t)qp->cap.max_inline_data);
	rq_stride = sizeof(struct roce_rwqe) + sizeof(struct roce_sge) * qp->cap.max_recv_sge;
	if (wq_init(&qp->sq, cap->max_send_wr, sq_stride, dev->conf.socket_id) < 0 ||
	    wq_init(&qp->rq, cap->max_recv_wr, rq_stride, dev->conf.socket_id) < 0) {
		roce_err(dev, ENOMEM, "no memory for the QP's queues");
		goto fail;
	}
	if (ia->qp_type == ROCE_QPT_GSI) {
		qp->qpn = ROCE_GSI_QPN;
		dev->gsi = qp;
	} else {
		idx = roce_tbl_alloc(&dev->qps, qp);
		if (idx < 0) {
			roce_err(dev, ENOSPC, "QP limit (%u) reached", lim->max_qp);
			rte_errno = ENOSPC;
			goto fail_errno_set;
		}
		qp->index = (uint32_t)idx;
		/* a slot reused gets another number, so stale peers miss */
		qp->qpn = ROCE_QPN_FIRST + qp->index + dev->qp_gen[idx] * lim->max_qp;
		if (dev->conf.first_qpn != 0)
			qp->qpn = dev->conf.first_qpn + qp->index;
		if (qp->qpn > ROCE_PSN_MASK) {
			dev->qp_gen[idx] = 0;
			qp->qpn = ROCE_QPN_FIRST + qp->index;
		}
		dev->qp_gen[idx]++;
	}
	qp->state = ROCE_QPS_RESET;
	qp->attr.port_num = 1;
	qp->attr.path_mtu = dev->active_mtu;
	qp->mtu = roce_mtu_bytes(qp->attr.path_mtu);
	qp->attr.ah_attr.vlan_id = ROCE_VLAN_NONE;
	if (ia->qp_type == ROCE_QPT_GSI)
		qp->attr.qkey = ROCE_GSI_QKEY;
	qp->sport = roce_udp_sport_ud(qp->qpn);
	pd->refs++;
	ia->send_cq->refs++;
	ia->recv_cq->refs++;
	return qp;
fail:
	rte_errno = ENOMEM;
fail_errno_set:
	rte_free(qp->sq.buf);
	rte_free(qp->rq.buf);
	rte_free(qp);
	return NULL;
}

int
roce_qp_destroy(struct roce_qp *qp)
{
	struct roce_dev *dev = qp->dev;

	qp_reset_state(qp);
	if (qp == dev->gsi)
		dev->gsi = NULL;
	else
		roce_tbl_free(&dev->qps, qp->index);
	qp->pd->refs--;
	qp->send_cq->refs--;
	qp->recv_cq->refs--;
	rte_free(qp->resp.res);
	rte_free(qp->sq.buf);
	rte_free(qp->rq.buf);
	rte_free(qp);
	return 0;
}

uint32_t
roce_qp_num(const struct roce_qp *qp)
{
	return qp->qpn;
}

struct roce_qp *
roce_qp_get(struct roce_dev *dev, uint32_t qpn)
{
	struct roce_qp *qp;

	if (qpn == ROCE_GSI_QPN)
		return dev->gsi;
	if (unlikely(dev->conf.first_qpn != 0)) {
		if (qpn < dev->conf.first_qpn || qpn - dev->conf.first_qpn >= dev->lim.max_qp)
			return NULL;
		return roce_tbl_get(&dev->qps, qpn - dev->conf.first_qpn);
	}
	if (qpn < ROCE_QPN_FIRST)
		return NULL;
	qp = roce_tbl_get(&dev->qps, (qpn - ROCE_QPN_FIRST) % dev->lim.max_qp);
	return qp != NULL && qp->qpn == qpn ? qp : NULL;
}

void
roce_qp_stats_get(const struct roce_qp *qp, struct roce_qp_stats *st)
{
	*st = qp->st;
}

/* ---------------- modify ---------------- */

static int
check_values(struct roce_qp *qp, const struct roce_qp_attr *a, uint32_t mask)
{
	struct roce_dev *dev = qp->dev;

	if ((mask & A(PATH_MTU)) &&
	    (a->path_mtu < ROCE_MTU_256 || a->path_mtu > dev->active_mtu))
		return roce_err(dev, EINVAL, "path_mtu %u is not in 1..%u (the device's MTU)",
				a->path_mtu, dev->active_mtu);
	if ((mask & A(TIMEOUT)) && a->timeout > 31)
		return roce_err(dev, EINVAL, "timeout %u is above 31", a->timeout);
	if ((mask & A(RETRY_CNT)) && a->retry_cnt > 7)
		return roce_err(dev, EINVAL, "retry_cnt %u is above 7", a->retry_cnt);
	if ((mask & A(RNR_RETRY)) && a->rnr_retry > 7)
		return roce_err(dev, EINVAL, "rnr_retry %u is above 7", a->rnr_retry);
	if ((mask & A(MIN_RNR_TIMER)) && a->min_rnr_timer > 31)
		return roce_err(dev, EINVAL, "min_rnr_timer %u is above 31", a->min_rnr_timer);
	if ((mask & A(MAX_QP_RD_ATOMIC)) && a->max_rd_atomic > dev->lim.max_qp_rd_atom)
		return roce_err(dev, EINVAL, "max_rd_atomic %u is above %u", a->max_rd_atomic,
				dev->lim.max_qp_rd_atom);
	if ((mask & A(MAX_DEST_RD_ATOMIC)) && a->max_dest_rd_atomic > dev->lim.max_qp_rd_atom)
		return roce_err(dev, EINVAL, "max_dest_rd_atomic %u is above %u",
				a->max_dest_rd_atomic, dev->lim.max_qp_rd_atom);
	if ((mask & A(SQ_PSN)) && a->sq_psn > ROCE_PSN_MASK)
		return roce_err(dev, EINVAL, "sq_psn 0x%x is wider than 24 bits", a->sq_psn);
	if ((mask & A(RQ_PSN)) && a->rq_psn > ROCE_PSN_MASK)
		return roce_err(dev, EINVAL, "rq_psn 0x%x is wider than 24 bits", a->rq_psn);
	if ((mask & A(DEST_QPN)) && (a->dest_qp_num > ROCE_PSN_MASK || a->dest_qp_num == 0))
		return roce_err(dev, EINVAL, "dest_qp_num 0x%x is not a QPN", a->dest_qp_num);
	if ((mask & A(ACCESS_FLAGS)) &&
	    (a->qp_access_flags & ~(uint32_t)(ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
					     ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC)))
		return roce_err(dev, EINVAL, "qp_access_flags 0x%x has unknown bits",
				a->qp_access_flags);
	if ((mask & A(PKEY_INDEX)) && a->pkey_index != 0)
		return roce_err(dev, EINVAL, "pkey_index %u: the P_Key table has one entry",
				a->pkey_index);
	if ((mask & A(PORT)) && a->port_num != 1)
		return roce_err(dev, EINVAL, "port %u: the device has port 1 only", a->port_num);
	if (mask & A(AV)) {
		const struct roce_ah_attr *av = &a->ah_attr;

		if (av->sgid_index >= dev->lim.gid_tbl_len || !dev->gid_valid[av->sgid_index])
			return roce_err(dev, EINVAL, "AV source GID index %u is not set",
					av->sgid_index);
		if (roce_gid_is_v4(av->dgid) != roce_gid_is_v4(dev->gid[av->sgid_index]))
			return roce_err(dev, EINVAL, "AV GIDs are of different IP versions");
		if (av->vlan_id != ROCE_VLAN_NONE && av->vlan_id > 4095)
			return roce_err(dev, EINVAL, "AV VLAN %u is not 0..4095", av->vlan_id);
		if (av->dmac[0] & 1) /* group bit */
			return roce_err(dev, EINVAL, "AV destination MAC is multicast");
	}
	return 0;
}

static void
qp_enter_error_flush(struct roce_qp *qp)
{
	qp->state = ROCE_QPS_ERR;
	roce_qp_flush(qp);
}

/* What a checked modify will do (modify_check() fills it, modify_apply() does it). */
struct modify_plan {
	enum roce_qp_state cur;
	enum roce_qp_state next;
	struct roce_rdres *res; /* new responder resources, NULL: keep the QP's */
};

/*
 * Every check of a modify: the mask, the transition and the values, and the
 * memory it needs (allocated here, so that a refusal changes nothing).
 * @return 0, or a negative errno with the reason in the device's last error.
 */
static int
modify_check(struct roce_qp *qp, const struct roce_qp_attr *a, uint32_t mask,
	     struct modify_plan *p)
{
	struct roce_dev *dev = qp->dev;
	const struct transition *t;
	uint32_t req, opt, all = (1u << RTE_DIM(attr_names)) - 1;
	int cl = type_class(qp->type);
	int rc;

	p->cur = qp->state;
	p->next = (mask & A(STATE)) ? a->qp_state : p->cur;
	p->res = NULL;
	if (mask & ~all)
		return roce_err(dev, EINVAL, "attribute mask 0x%x has unknown bits", mask);
	if ((mask & A(CUR_STATE)) && a->cur_qp_state != p->cur)
		return roce_err(dev, EINVAL, "cur_qp_state %s is not the QP's state %s",
				roce_qp_state_str(a->cur_qp_state), roce_qp_state_str(p->cur));
	if ((unsigned int)p->next > ROCE_QPS_ERR)
		return roce_err(dev, EINVAL, "state %u is not a QP state", p->next);
	t = &transitions[p->cur][p->next];
	if (!t->valid || (p->next == ROCE_QPS_SQE))
		return roce_err(dev, EINVAL, "QP %u: %s -> %s is not a valid transition",
				qp->qpn, roce_qp_state_str(p->cur), roce_qp_state_str(p->next));
	if (cl == CL_RC && p->cur == ROCE_QPS_SQE)
		return roce_err(dev, EINVAL, "QP %u: an RC QP is never in SQE", qp->qpn);
	req = t->req[cl];
	opt = t->opt[cl];
	if ((mask & req) != req)
		return roce_err(dev, EINVAL, "QP %u: %s -> %s needs %s", qp->qpn,
				roce_qp_state_str(p->cur), roce_qp_state_str(p->next),
				first_attr(req & ~mask));
	if (mask & ~(req | opt | A(STATE)))
		return roce_err(dev, EINVAL, "QP %u: %s is not allowed on %s -> %s for this "
				"QP type", qp->qpn, first_attr(mask & ~(req | opt | A(STATE))),
				roce_qp_state_str(p->cur), roce_qp_state_str(p->next));
	rc = check_values(qp, a, mask);
	if (rc < 0)
		return rc;
	if ((mask & A(MAX_DEST_RD_ATOMIC)) && a->max_dest_rd_atomic > 0 &&
	    a->max_dest_rd_atomic != qp->resp.nb_res) {
		p->res = rte_zmalloc_socket("roce_rdres", sizeof(*p->res) * a->max_dest_rd_atomic,
					    0, dev->conf.socket_id);
		if (p->res == NULL)
			return roce_err(dev, ENOMEM, "no memory for %u read resources",
					a->max_dest_rd_atomic);
	}
	return 0;
}

/* The attributes of a checked modify. */
static void
modify_apply_attrs(struct roce_qp *qp, const struct roce_qp_attr *a, uint32_t mask,
		   const struct modify_plan *p)
{
	if (p->res != NULL) {
		rte_free(qp->resp.res);
		qp->resp.res = p->res;
		qp->resp.nb_res = a->max_dest_rd_atomic;
		qp->resp.res_next = 0;
		qp->resp.res_pending = 0;
	}
	if (mask & A(ACCESS_FLAGS))
		qp->attr.qp_access_flags = a->qp_access_flags;
	if (mask & A(QKEY))
		qp->attr.qkey = a->qkey;
	if (mask & A(AV))
		qp->attr.ah_attr = a->ah_attr;
	if (mask & A(PATH_MTU)) {
		qp->attr.path_mtu = a->path_mtu;
		qp->mtu = roce_mtu_bytes(a->path_mtu);
	}
	if (mask & A(TIMEOUT))
		qp->attr.timeout = a->timeout;
	if (mask & A(RETRY_CNT)) {
		qp->attr.retry_cnt = a->retry_cnt;
		qp->comp.retry_left = a->retry_cnt;
	}
	if (mask & A(RNR_RETRY)) {
		qp->attr.rnr_retry = a->rnr_retry;
		qp->comp.rnr_left = a->rnr_retry;
	}
	if (mask & A(RQ_PSN)) {
		qp->attr.rq_psn = a->rq_psn;
		qp->resp.psn = a->rq_psn;
	}
	if (mask & A(MAX_QP_RD_ATOMIC))
		qp->attr.max_rd_atomic = a->max_rd_atomic;
	if (mask & A(MIN_RNR_TIMER))
		qp->attr.min_rnr_timer = a->min_rnr_timer;
	if (mask & A(SQ_PSN)) {
		qp->attr.sq_psn = a->sq_psn;
		qp->req.psn = a->sq_psn;
		qp->req.psn_hi = a->sq_psn;
		qp->comp.psn = a->sq_psn;
	}
	if (mask & A(MAX_DEST_RD_ATOMIC))
		qp->attr.max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (mask & A(DEST_QPN))
		qp->attr.dest_qp_num = a->dest_qp_num;
	if (qp->type == ROCE_QPT_RC || qp->type == ROCE_QPT_UC)
		qp->sport = roce_udp_sport_rc(qp->attr.ah_attr.flow_label, qp->qpn,
					      qp->attr.dest_qp_num);
}

/* The state change of a checked modify. */
static void
modify_apply_state(struct roce_qp *qp, const struct modify_plan *p)
{
	if (p->next == p->cur)
		return;
	ROCE_LOG(DEBUG, "%s: QP %u %s -> %s", qp->dev->name, qp->qpn, roce_qp_state_str(p->cur),
		 roce_qp_state_str(p->next));
	switch (p->next) {
	case ROCE_QPS_RESET:
		qp_reset_state(qp);
		qp->state = ROCE_QPS_RESET;
		break;
	case ROCE_QPS_ERR:
		qp_enter_error_flush(qp);
		break;
	case ROCE_QPS_SQD:
		qp->state = p->next;
		qp->sq_drained_reported = false;
		roce_qp_activate(qp);
		break;
	default:
		qp->state = p->next;
		if (p->next == ROCE_QPS_RTS)
			roce_qp_activate(qp);
		break;
	}
}

/* Check everything first (a refusal changes nothing), then apply. */
int
roce_qp_modify(struct roce_qp *qp, const struct roce_qp_attr *a, uint32_t mask)
{
	struct modify_plan plan;
	int rc;

	rc = modify_check(qp, a, mask, &plan);
	if (rc < 0)
		return rc;
	modify_apply_attrs(qp, a, mask, &plan);
	modify_apply_state(qp, &plan);
	return 0;
}

int
roce_qp_query(const struct roce_qp *qp, struct roce_qp_attr *attr, struct roce_qp_init_attr *init)
{
	if (attr != NULL) {
		*attr = qp->attr;
		attr->qp_state = qp->state;
		attr->cur_qp_state = qp->state;
		attr->cap = qp->cap;
		attr->sq_psn = qp->req.psn;
		attr->rq_psn = qp->resp.psn;
		attr->sq_draining = qp->state == ROCE_QPS_SQD && !roce_qp_sq_idle(qp);
	}
	if (init != NULL) {
		init->qp_type = qp->type;
		init->send_cq = qp->send_cq;
		init->recv_cq = qp->recv_cq;
		init->cap = qp->cap;
		init->sq_sig_all = qp->sq_sig_all;
	}
	return 0;
}

/* ---------------- posting ---------------- */

static bool
swqe_signaled(const struct roce_qp *qp, const struct roce_swqe *w)
{
	return qp->sq_sig_all || (w->flags & ROCE_SEND_SIGNALED);
}

static int
check_send_wr(struct roce_qp *qp, const struct roce_send_wr *wr, uint64_t *len)
{
	struct roce_dev *dev = qp->dev;
	bool ud = qp->type == ROCE_QPT_UD || qp->type == ROCE_QPT_GSI;
	uint64_t total = 0;
	uint32_t i;

	switch (wr->opcode) {
	case ROCE_WR_SEND:
	case ROCE_WR_SEND_WITH_IMM:
		break;
	case ROCE_WR_RDMA_WRITE:
	case ROCE_WR_RDMA_WRITE_WITH_IMM:
		if (ud)
			return roce_err(dev, EINVAL, "RDMA WRITE on a datagram QP");
		break;
	case ROCE_WR_RDMA_READ:
	case ROCE_WR_ATOMIC_CMP_AND_SWP:
	case ROCE_WR_ATOMIC_FETCH_AND_ADD:
		if (qp->type != ROCE_QPT_RC)
			return roce_err(dev, EINVAL, "READ and atomics need an RC QP");
		break;
	default:
		return roce_err(dev, EINVAL, "WR opcode %u is unknown", wr->opcode);
	}
	if (wr->send_flags & ~(uint32_t)(ROCE_SEND_FENCE | ROCE_SEND_SIGNALED |
					 ROCE_SEND_SOLICITED | ROCE_SEND_INLINE))
		return roce_err(dev, EINVAL, "send_flags 0x%x has unknown bits", wr->send_flags);
	if (wr->send_flags & ROCE_SEND_INLINE) {
		if (wr->opcode == ROCE_WR_RDMA_READ || wr->opcode >= ROCE_WR_ATOMIC_CMP_AND_SWP)
			return roce_err(dev, EINVAL, "inline data on a READ or atomic");
		if (wr->inline_len > qp->cap.max_inline_data)
			return roce_err(dev, EINVAL, "%u inline bytes exceed the QP's %u",
					wr->inline_len, qp->cap.max_inline_data);
		if (wr->inline_len > 0 && wr->inline_data == NULL)
			return roce_err(dev, EINVAL, "inline_len without inline_data");
		total = wr->inline_len;
	} else {
		if (wr->num_sge > qp->cap.max_send_sge)
			return roce_err(dev, EINVAL, "%u SGEs exceed the QP's %u", wr->num_sge,
					qp->cap.max_send_sge);
		if (wr->num_sge > 0 && wr->sg_list == NULL)
			return roce_err(dev, EINVAL, "num_sge without sg_list");
		for (i = 0; i < wr->num_sge; i++)
			total += wr->sg_list[i].length;
	}
	if (wr->opcode >= ROCE_WR_ATOMIC_CMP_AND_SWP && (total != 8 || wr->num_sge != 1))
		return roce_err(dev, EINVAL, "an atomic needs one SGE of 8 bytes");
	if (wr->opcode >= ROCE_WR_ATOMIC_CMP_AND_SWP && (wr->atomic.remote_addr & 7))
		return roce_err(dev, EINVAL, "atomic remote_addr is not 8-byte aligned");
	if (total > ROCE_MAX_MSG_SIZE)
		return roce_err(dev, EINVAL, "message of %" PRIu64 " bytes exceeds %u", total,
				ROCE_MAX_MSG_SIZE);
	if (ud) {
		struct roce_ah *ah = wr->ud.ah;

		if (ah == NULL || ah->dev != dev || roce_ah_get(dev, ah->handle) != ah)
			return roce_err(dev, EINVAL, "UD WR without a valid AH");
		if (ah->pd != qp->pd)
			return roce_err(dev, EINVAL, "UD WR's AH is of another PD");
		if (total > qp->mtu)
			return roce_err(dev, EINVAL, "UD message of %" PRIu64 " bytes exceeds "
					"the MTU %u", total, qp->mtu);
		if (wr->ud.remote_qpn > ROCE_PSN_MASK)
			return roce_err(dev, EINVAL, "remote_qpn 0x%x is not a QPN",
					wr->ud.remote_qpn);
	}
	*len = total;
	return 0;
}

enum roce_qp_state
roce_qp_cur_state(const struct roce_qp *qp)
{
	return qp->state;
}

uint32_t
roce_qp_room(const struct roce_qp *qp, bool recv)
{
	const struct roce_wq *q = recv ? &qp->rq : &qp->sq;

	return q->cap - (q->head - q->tail);
}

enum roce_qp_type
roce_qp_transport(const struct roce_qp *qp)
{
	return qp->type;
}

int
roce_post_send(struct roce_qp *qp, const struct roce_send_wr *wr, unsigned int n,
	       unsigned int *bad)
{
	struct roce_dev *dev = qp->dev;
	unsigned int i;
	int rc = 0;

	for (i = 0; i < n; i++) {
		const struct roce_send_wr *w = &wr[i];
		struct roce_swqe *s;
		uint64_t len = 0;

		if (qp->state == ROCE_QPS_RESET || qp->state == ROCE_QPS_INIT ||
		    qp->state == ROCE_QPS_RTR) {
			rc = roce_err(dev, EPERM, "QP %u: post_send in %s", qp->qpn,
				      roce_qp_state_str(qp->state));
			break;
		}
		rc = check_send_wr(qp, w, &len);
		if (rc < 0)
			break;
		if (qp->sq.head - qp->sq.tail >= qp->sq.cap) {
			rc = roce_err(dev, ENOMEM, "QP %u: send queue full (%u)", qp->qpn,
				      qp->sq.cap);
			break;
		}
		s = roce_wq_at(&qp->sq, qp->sq.head);
		memset(s, 0, sizeof(*s));
		s->wr_id = w->wr_id;
		s->opcode = w->opcode;
		s->flags = w->send_flags;
		s->imm = w->imm_data;
		s->length = (uint32_t)len;
		s->state = SWQE_POSTED;
		/* a zero-length message may come with no data or SGE array at all */
		if (w->send_flags & ROCE_SEND_INLINE) {
			if (w->inline_len != 0)
				memcpy(s->sge, w->inline_data, w->inline_len);
		} else {
			s->num_sge = w->num_sge;
			if (w->num_sge != 0)
				memcpy(s->sge, w->sg_list, sizeof(struct roce_sge) * w->num_sge);
		}
		if (qp->type == ROCE_QPT_UD || qp->type == ROCE_QPT_GSI) {
			s->av = w->ud.ah->attr;
			s->remote_qpn = w->ud.remote_qpn;
			s->remote_qkey = w->ud.remote_qkey;
		} else if (w->opcode >= ROCE_WR_ATOMIC_CMP_AND_SWP) {
			s->remote_addr = w->atomic.remote_addr;
			s->rkey = w->atomic.rkey;
			s->compare_add = w->atomic.compare_add;
			s->swap = w->atomic.swap;
		} else {
			s->remote_addr = w->rdma.remote_addr;
			s->rkey = w->rdma.rkey;
		}
		qp->sq.head++;
	}
	if (bad != NULL)
		*bad = i;
	if (i > 0) {
		if (qp->state == ROCE_QPS_ERR)
			roce_qp_flush(qp);
		else
			roce_qp_activate(qp);
	}
	return rc;
}

int
roce_post_recv(struct roce_qp *qp, const struct roce_recv_wr *wr, unsigned int n,
	       unsigned int *bad)
{
	struct roce_dev *dev = qp->dev;
	unsigned int i;
	int rc = 0;

	for (i = 0; i < n; i++) {
		const struct roce_recv_wr *w = &wr[i];
		struct roce_rwqe *r;
		uint64_t total = 0;
		uint32_t k;

		if (qp->state == ROCE_QPS_RESET) {
			rc = roce_err(dev, EPERM, "QP %u: post_recv in RESET", qp->qpn);
			break;
		}
		if (w->num_sge > qp->cap.max_recv_sge || (w->num_sge > 0 && w->sg_list == NULL)) {
			rc = roce_err(dev, EINVAL, "%u receive SGEs exceed the QP's %u",
				      w->num_sge, qp->cap.max_recv_sge);
			break;
		}
		for (k = 0; k < w->num_sge; k++)
			total += w->sg_list[k].length;
		if (total > ROCE_MAX_MSG_SIZE + ROCE_GRH_LEN) {
			rc = roce_err(dev, EINVAL, "receive WR of %" PRIu64 " bytes", total);
			break;
		}
		if (qp->rq.head - qp->rq.tail >= qp->rq.cap) {
			rc = roce_err(dev, ENOMEM, "QP %u: receive queue full (%u)", qp->qpn,
				      qp->rq.cap);
			break;
		}
		r = roce_wq_at(&qp->rq, qp->rq.head);
		r->wr_id = w->wr_id;
		r->num_sge = w->num_sge;
		r->length = (uint32_t)total;
		if (w->num_sge != 0) /* a zero-length receive may have no SGE array */
			memcpy(r->sge, w->sg_list, sizeof(struct roce_sge) * w->num_sge);
		qp->rq.head++;
	}
	if (bad != NULL)
		*bad = i;
	if (i > 0 && qp->state == ROCE_QPS_ERR)
		roce_qp_flush(qp);
	return rc;
}

/* ---------------- completion and error ---------------- */

static enum roce_wc_opcode
wc_opcode(uint8_t wr_opcode)
{
	switch (wr_opcode) {
	case ROCE_WR_RDMA_WRITE:
	case ROCE_WR_RDMA_WRITE_WITH_IMM:
		return ROCE_WC_RDMA_WRITE;
	case ROCE_WR_RDMA_READ:
		return ROCE_WC_RDMA_READ;
	case ROCE_WR_ATOMIC_CMP_AND_SWP:
		return ROCE_WC_COMP_SWAP;
	case ROCE_WR_ATOMIC_FETCH_AND_ADD:
		return ROCE_WC_FETCH_ADD;
	default:
		return ROCE_WC_SEND;
	}
}

/* The completion a send WQE owes. */
static void
swqe_wc(const struct roce_qp *qp, const struct roce_swqe *w, struct roce_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = w->wr_id;
	wc->status = w->status;
	wc->opcode = wc_opcode(w->opcode);
	wc->byte_len = w->length;
	wc->qp_num = qp->qpn;
}

bool
roce_qp_sq_idle(const struct roce_qp *qp)
{
	return qp->sq.tail == qp->req.wqe;
}

/* Retire DONE WQEs in order, writing the completions they owe. */
void
roce_qp_retire(struct roce_qp *qp)
{
	while (qp->sq.tail != qp->sq.head) {
		struct roce_swqe *w = roce_wq_at(&qp->sq, qp->sq.tail);
		struct roce_wc wc;

		if (w->state != SWQE_DONE)
			break;
		qp->sq.tail++;
		/* the requester never points before the oldest live WQE */
		if (qp->type == ROCE_QPT_RC)
			roce_req_sync(qp);
		if (w->status == ROCE_WC_SUCCESS && !swqe_signaled(qp, w))
			continue;
		swqe_wc(qp, w, &wc);
		if (!roce_cq_push(qp->send_cq, &wc, false))
			return;
	}
	if (qp->state == ROCE_QPS_SQD && !qp->sq_drained_reported && roce_qp_sq_idle(qp)) {
		struct roce_dev *dev = qp->dev;

		qp->sq_drained_reported = true;
		if (dev->conf.event_cb != NULL)
			dev->conf.event_cb(dev->conf.event_arg, ROCE_EVENT_SQ_DRAINED, qp->qpn);
	}
}

void
roce_qp_send_complete(struct roce_qp *qp, struct roce_swqe *wqe)
{
	wqe->state = SWQE_DONE;
	if (wqe->status == ROCE_WC_SUCCESS && (wqe->opcode == ROCE_WR_SEND ||
					       wqe->opcode == ROCE_WR_SEND_WITH_IMM))
		qp->dev->st.rdma_sends++;
	roce_qp_retire(qp);
}

/*
 * Complete every outstanding WR of a QP in ERR with WR_FLUSH_ERR, the send
 * queue in order and then the receive queue.
 */
void
roce_qp_flush(struct roce_qp *qp)
{
	struct roce_wc wc;

	while (qp->sq.tail != qp->sq.head) {
		struct roce_swqe *w = roce_wq_at(&qp->sq, qp->sq.tail);

		if (w->state != SWQE_DONE)
			w->status = ROCE_WC_WR_FLUSH_ERR;
		qp->sq.tail++;
		/* a successful unsignaled WR owes no completion */
		if (w->status == ROCE_WC_SUCCESS && !swqe_signaled(qp, w))
			continue;
		swqe_wc(qp, w, &wc);
		if (!roce_cq_push(qp->send_cq, &wc, false))
			break;
	}
	qp->sq.tail = qp->sq.head;
	qp->req.wqe = qp->sq.head;
	qp->req.rd_atomic = 0;
	while (qp->rq.tail != qp->rq.head) {
		struct roce_rwqe *r = roce_wq_at(&qp->rq, qp->rq.tail);

		memset(&wc, 0, sizeof(wc));
		wc.wr_id = r->wr_id;
		wc.status = ROCE_WC_WR_FLUSH_ERR;
		wc.opcode = ROCE_WC_RECV;
		wc.qp_num = qp->qpn;
		qp->rq.tail++;
		if (!roce_cq_push(qp->recv_cq, &wc, false))
			break;
	}
	qp->rq.tail = qp->rq.head;
	qp->resp.rwqe_open = false;
	roce_timer_cancel(&qp->dev->wheel, &qp->comp.retry_timer);
	roce_timer_cancel(&qp->dev->wheel, &qp->comp.rnr_timer);
}

/* The QP enters ERR: every outstanding WR is flushed; the owner hears of it. */
static void
qp_enter_err(struct roce_qp *qp, enum roce_wc_status why)
{
	struct roce_dev *dev = qp->dev;

	ROCE_LOG(DEBUG, "%s: QP %u enters ERR (%s)", dev->name, qp->qpn, roce_wc_status_str(why));
	qp->state = ROCE_QPS_ERR;
	roce_qp_flush(qp);
	if (dev->conf.event_cb != NULL)
		dev->conf.event_cb(dev->conf.event_arg, ROCE_EVENT_QP_FATAL, qp->qpn);
}

/*
 * A QP meets an error of its own: the oldest unfinished send WQE (if any)
 * completes with @p st, the QP enters ERR and the rest is flushed.
 */
void
roce_qp_error(struct roce_qp *qp, enum roce_wc_status st)
{
	uint32_t i;

	if (qp->state == ROCE_QPS_ERR)
		return;
	for (i = qp->sq.tail; i != qp->sq.head; i++) {
		struct roce_swqe *w = roce_wq_at(&qp->sq, i);

		if (w->state != SWQE_DONE) {
			w->status = st;
			w->state = SWQE_DONE;
			break;
		}
	}
	qp_enter_err(qp, st);
}

int
roce_post_error(struct roce_qp *qp, bool recv, uint64_t wr_id, uint8_t opcode,
		enum roce_wc_status st)
{
	struct roce_wc wc;

	if (st == ROCE_WC_SUCCESS || st > ROCE_WC_GENERAL_ERR)
		return roce_err(qp->dev, EINVAL, "post_error with status %u", st);
	if (qp->state == ROCE_QPS_RESET)
		return roce_err(qp->dev, EPERM, "QP %u: post in RESET", qp->qpn);
	/* in ERR already, nothing is outstanding: posts there are flushed at once */
	if (qp->state != ROCE_QPS_ERR)
		qp_enter_err(qp, st);
	memset(&wc, 0, sizeof(wc));
	wc.wr_id = wr_id;
	wc.status = st;
	wc.opcode = recv ? ROCE_WC_RECV : wc_opcode(opcode);
	wc.qp_num = qp->qpn;
	roce_cq_push(recv ? qp->recv_cq : qp->send_cq, &wc, false);
	return 0;
}
