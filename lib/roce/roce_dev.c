/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include <omni_counters.h>

#include "roce_internal.h"

RTE_LOG_REGISTER(roce_logtype, lib.roce, NOTICE);

int
roce_err(struct roce_dev *dev, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dev->last_err, sizeof(dev->last_err), fmt, ap);
	va_end(ap);
	ROCE_LOG(DEBUG, "%s: %s", dev->name, dev->last_err);
	return -err;
}

const char *
roce_dev_last_error(const struct roce_dev *dev)
{
	return dev->last_err;
}

/* ---------------- object tables ---------------- */

int
roce_tbl_init(struct roce_tbl *t, uint32_t size, int socket)
{
	t->slot = rte_zmalloc_socket("roce_tbl", sizeof(void *) * size, 0, socket);
	t->size = size;
	t->used = 0;
	t->cursor = 0;
	return t->slot == NULL ? -ENOMEM : 0;
}

void
roce_tbl_fini(struct roce_tbl *t)
{
	rte_free(t->slot);
	t->slot = NULL;
}

/* Slots are handed out round-robin, so a freed handle is reused late. */
int
roce_tbl_alloc(struct roce_tbl *t, void *obj)
{
	uint32_t i;

	if (t->used == t->size)
		return -ENOSPC;
	for (i = 0; i < t->size; i++) {
		uint32_t idx = (t->cursor + i) % t->size;

		if (t->slot[idx] == NULL) {
			t->slot[idx] = obj;
			t->used++;
			t->cursor = (idx + 1) % t->size;
			return (int)idx;
		}
	}
	return -ENOSPC;
}

void
roce_tbl_free(struct roce_tbl *t, uint32_t idx)
{
	if (idx < t->size && t->slot[idx] != NULL) {
		t->slot[idx] = NULL;
		t->used--;
	}
}

/* ---------------- device ---------------- */

static enum roce_mtu
mtu_for(uint16_t eth_mtu)
{
	enum roce_mtu m;

	for (m = ROCE_MTU_4096; m > ROCE_MTU_256; m--)
		if (roce_mtu_bytes(m) + ROCE_MTU_OVERHEAD <= eth_mtu)
			return m;
	return ROCE_MTU_256;
}

#define DEFAULT(field, value) \
	do { if (lim->field == 0) lim->field = (value); } while (0)

static int
limits_check(struct roce_dev_limits *lim, char *err, size_t errlen)
{
	DEFAULT(max_qp, 1024);
	DEFAULT(max_qp_wr, 4096);
	DEFAULT(max_sge, ROCE_MAX_SGE);
	DEFAULT(max_inline, ROCE_MAX_INLINE);
	DEFAULT(max_cq, 1024);
	DEFAULT(max_cqe, 32767);
	DEFAULT(max_mr, 65535);
	DEFAULT(max_mr_size, 1ull << 40);
	DEFAULT(max_pd, 65535);
	DEFAULT(max_ah, 32767);
	DEFAULT(max_qp_rd_atom, 128);
	DEFAULT(gid_tbl_len, 16);
	if (lim->max_sge > ROCE_MAX_SGE || lim->max_inline > ROCE_MAX_INLINE ||
	    lim->max_qp_rd_atom > 128 || lim->max_qp > (1u << 20) ||
	    lim->max_qp_wr > (1u << 20) || lim->max_cqe > (1u << 22) ||
	    lim->max_mr > (1u << 24) - 1 || lim->gid_tbl_len > 1024) {
		snprintf(err, errlen, "limits out of range (max_sge <= %u, max_inline <= %u, "
			 "max_qp_rd_atom <= 128, max_qp and max_qp_wr <= 2^20, max_cqe <= 2^22, "
			 "max_mr < 2^24, gid_tbl_len <= 1024)", ROCE_MAX_SGE, ROCE_MAX_INLINE);
		return -EINVAL;
	}
	return 0;
}

struct roce_dev *
roce_dev_create(const struct roce_dev_conf *conf, char *err, size_t errlen)
{
	char dummy[ROCE_ERR_LEN];
	struct roce_dev *dev;
	int socket = conf->socket_id;
	int rc;

	if (err == NULL) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	if (conf->rx_ring == NULL || conf->tx_ring == NULL || conf->pool == NULL) {
		snprintf(err, errlen, "rx_ring, tx_ring and pool are required");
		rte_errno = EINVAL;
		return NULL;
	}
	if (conf->mtu != 0 && conf->mtu < 256 + ROCE_MTU_OVERHEAD) {
		snprintf(err, errlen, "mtu %u is below %u", conf->mtu, 256 + ROCE_MTU_OVERHEAD);
		rte_errno = EINVAL;
		return NULL;
	}
	if ((conf->mac[0] & 1) || (conf->mac[0] | conf->mac[1] | conf->mac[2] | conf->mac[3] |
				   conf->mac[4] | conf->mac[5]) == 0) {
		snprintf(err, errlen, "mac must be a unicast address");
		rte_errno = EINVAL;
		return NULL;
	}
	if (conf->vlan_filter && conf->vlan_id > 4094) {
		snprintf(err, errlen, "vlan_id %u is not 0..4094", conf->vlan_id);
		rte_errno = EINVAL;
		return NULL;
	}
	if (conf->first_qpn == 1) {
		snprintf(err, errlen, "first_qpn 1 is the GSI QP's");
		rte_errno = EINVAL;
		return NULL;
	}
	dev = rte_zmalloc_socket("roce_dev", sizeof(*dev), RTE_CACHE_LINE_SIZE, socket);
	if (dev == NULL) {
		snprintf(err, errlen, "no memory for the device");
		rte_errno = ENOMEM;
		return NULL;
	}
	dev->conf = *conf;
	dev->lim = conf->limits;
	snprintf(dev->name, sizeof(dev->name), "%s", conf->name ? conf->name : "roce");
	dev->conf.name = dev->name;
	if (dev->conf.mtu == 0)
		dev->conf.mtu = 1500;
	rc = limits_check(&dev->lim, err, errlen);
	if (rc < 0)
		goto fail;
	if (conf->first_qpn != 0 &&
	    (uint64_t)conf->first_qpn + dev->lim.max_qp - 1 > ROCE_PSN_MASK) {
		snprintf(err, errlen, "first_qpn %u + max_qp %u passes the 24-bit QPN space",
			 conf->first_qpn, dev->lim.max_qp);
		rc = -EINVAL;
		goto fail;
	}
	dev->active_mtu = mtu_for(dev->conf.mtu);
	rc = -ENOMEM;
	dev->gid = rte_zmalloc_socket("roce_gid", ROCE_GID_LEN * dev->lim.gid_tbl_len, 0, socket);
	dev->gid_valid = rte_zmalloc_socket("roce_gidv", dev->lim.gid_tbl_len, 0, socket);
	dev->mr_gen = rte_zmalloc_socket("roce_mrgen", dev->lim.max_mr, 0, socket);
	dev->qp_gen = rte_zmalloc_socket("roce_qpgen", sizeof(uint16_t) * dev->lim.max_qp, 0,
					 socket);
	if (dev->gid == NULL || dev->gid_valid == NULL || dev->mr_gen == NULL ||
	    dev->qp_gen == NULL ||
	    roce_tbl_init(&dev->pds, dev->lim.max_pd, socket) < 0 ||
	    roce_tbl_init(&dev->mrs, dev->lim.max_mr, socket) < 0 ||
	    roce_tbl_init(&dev->cqs, dev->lim.max_cq, socket) < 0 ||
	    roce_tbl_init(&dev->ahs, dev->lim.max_ah, socket) < 0 ||
	    roce_tbl_init(&dev->qps, dev->lim.max_qp, socket) < 0) {
		snprintf(err, errlen, "no memory for the object tables");
		goto fail;
	}
	dev->tsc_hz = rte_get_tsc_hz();
	/* 4 us ticks: finer than the shortest IBA timer (8.192 us ACK timeout) */
	roce_wheel_init(&dev->wheel, dev->tsc_hz / 250000);
	TAILQ_INIT(&dev->active);
	TAILQ_INIT(&dev->acks);
	return dev;
fail:
	roce_dev_destroy(dev);
	rte_errno = -rc;
	return NULL;
}

void
roce_dev_destroy(struct roce_dev *dev)
{
	uint32_t i;

	if (dev == NULL)
		return;
	if (dev->qps.slot != NULL)
		for (i = 0; i < dev->qps.size; i++)
			if (dev->qps.slot[i] != NULL)
				roce_qp_destroy(dev->qps.slot[i]);
	if (dev->gsi != NULL)
		roce_qp_destroy(dev->gsi);
	if (dev->ahs.slot != NULL)
		for (i = 0; i < dev->ahs.size; i++)
			if (dev->ahs.slot[i] != NULL)
				roce_ah_destroy(dev->ahs.slot[i]);
	if (dev->mrs.slot != NULL)
		for (i = 0; i < dev->mrs.size; i++)
			if (dev->mrs.slot[i] != NULL)
				roce_mr_dereg(dev->mrs.slot[i]);
	if (dev->cqs.slot != NULL)
		for (i = 0; i < dev->cqs.size; i++)
			if (dev->cqs.slot[i] != NULL)
				roce_cq_destroy(dev->cqs.slot[i]);
	if (dev->pds.slot != NULL)
		for (i = 0; i < dev->pds.size; i++)
			if (dev->pds.slot[i] != NULL)
				roce_pd_free(dev->pds.slot[i]);
	rte_pktmbuf_free_bulk(dev->txb, dev->ntx);
	roce_tx_stash_release(dev);
	roce_tbl_fini(&dev->pds);
	roce_tbl_fini(&dev->mrs);
	roce_tbl_fini(&dev->cqs);
	roce_tbl_fini(&dev->ahs);
	roce_tbl_fini(&dev->qps);
	rte_free(dev->gid);
	rte_free(dev->gid_valid);
	rte_free(dev->mr_gen);
	rte_free(dev->qp_gen);
	rte_free(dev);
}

void
roce_dev_event_cb_set(struct roce_dev *dev, roce_event_fn cb, void *arg)
{
	dev->conf.event_cb = cb;
	dev->conf.event_arg = arg;
}

const struct roce_dev_limits *
roce_dev_limits(const struct roce_dev *dev)
{
	return &dev->lim;
}

enum roce_mtu
roce_dev_active_mtu(const struct roce_dev *dev)
{
	return dev->active_mtu;
}

int
roce_dev_mtu_set(struct roce_dev *dev, uint16_t mtu)
{
	if (mtu < 256 + ROCE_MTU_OVERHEAD)
		return roce_err(dev, EINVAL, "mtu %u is below %u", mtu, 256 + ROCE_MTU_OVERHEAD);
	dev->conf.mtu = mtu;
	dev->active_mtu = mtu_for(mtu);
	return 0;
}

int
roce_gid_set(struct roce_dev *dev, uint32_t index, const uint8_t gid[ROCE_GID_LEN])
{
	static const uint8_t zero[ROCE_GID_LEN];

	if (index >= dev->lim.gid_tbl_len)
		return roce_err(dev, EINVAL, "GID index %u is beyond the table (%u entries)",
				index, dev->lim.gid_tbl_len);
	if (memcmp(gid, zero, ROCE_GID_LEN) == 0 || gid[0] == 0xff)
		return roce_err(dev, EINVAL, "GID %u: zero and multicast GIDs are refused", index);
	memcpy(dev->gid[index], gid, ROCE_GID_LEN);
	dev->gid_valid[index] = 1;
	return 0;
}

int
roce_gid_del(struct roce_dev *dev, uint32_t index)
{
	if (index >= dev->lim.gid_tbl_len)
		return roce_err(dev, EINVAL, "GID index %u is beyond the table (%u entries)",
				index, dev->lim.gid_tbl_len);
	if (!dev->gid_valid[index])
		return roce_err(dev, ENOENT, "GID index %u is empty", index);
	dev->gid_valid[index] = 0;
	return 0;
}

int
roce_gid_get(const struct roce_dev *dev, uint32_t index, uint8_t gid[ROCE_GID_LEN])
{
	if (index >= dev->lim.gid_tbl_len)
		return -EINVAL;
	if (!dev->gid_valid[index])
		return -ENOENT;
	memcpy(gid, dev->gid[index], ROCE_GID_LEN);
	return 0;
}

/* ---------------- the engine ---------------- */

void
roce_qp_activate(struct roce_qp *qp)
{
	if (!qp->on_active) {
		TAILQ_INSERT_TAIL(&qp->dev->active, qp, active_next);
		qp->on_active = true;
	}
}

static unsigned int
run_active(struct roce_dev *dev)
{
	struct roce_qp *qp, *next;
	unsigned int total = 0, room;
	struct roce_qp *last = TAILQ_LAST(&dev->active, roce_qp_list);

	for (qp = TAILQ_FIRST(&dev->active); qp != NULL; qp = next) {
		unsigned int n = 0, budget;

		next = TAILQ_NEXT(qp, active_next);
		room = roce_tx_room(dev);
		if (room == 0)
			break;
		budget = RTE_MIN(room, (unsigned int)ROCE_QP_TURN);
		TAILQ_REMOVE(&dev->active, qp, active_next);
		qp->on_active = false;
		if (qp->resp.res_pending)
			n += roce_resp_run(qp, budget);
		if (n < budget)
			n += roce_req_run(qp, budget - n);
		total += n;
		/* a QP that used its whole turn goes to the back of the line */
		if (n >= budget)
			roce_qp_activate(qp);
		if (qp == last)
			break;
	}
	return total;
}

unsigned int
roce_dev_poll(struct roce_dev *dev)
{
	struct rte_mbuf *pkts[ROCE_RX_BURST];
	unsigned int n, left, work;

	n = rte_ring_dequeue_burst(dev->conf.rx_ring, (void **)pkts, ROCE_RX_BURST, NULL);
	work = n;
	if (n > 0) {
		left = roce_dev_rx_burst(dev, pkts, n);
		if (left > 0 && dev->conf.pass_ring != NULL) {
			unsigned int passed = rte_ring_enqueue_burst(dev->conf.pass_ring,
								     (void **)pkts, left, NULL);

			dev->st.rx_passed += passed;
			rte_pktmbuf_free_bulk(pkts + passed, left - passed);
		} else {
			rte_pktmbuf_free_bulk(pkts, left);
		}
	}
	if (dev->wheel.armed)
		work += roce_wheel_run(&dev->wheel, rte_get_tsc_cycles());
	if (!TAILQ_EMPTY(&dev->active))
		work += run_active(dev);
	roce_tx_flush(dev);
	/* a poll with nothing to do gives the pool its mbufs back: an idle device holds none */
	if (work == 0)
		roce_tx_stash_release(dev);
	return work;
}

/* ---------------- counters ---------------- */

#define STAT(f) OMNI_CTR(struct roce_dev_stats, f)
static const struct omni_ctr dev_stat_names[] = {
	STAT(sent_pkts), STAT(rcvd_pkts), STAT(duplicate_request), STAT(out_of_seq_request),
	STAT(rcvd_rnr_err), STAT(send_rnr_err), STAT(send_rem_access_err), STAT(rcvd_seq_err),
	STAT(completer_retry_err),
	STAT(send_err), STAT(retry_exceeded_err), STAT(retry_rnr_exceeded_err),
	STAT(ack_deferred), STAT(rdma_sends), STAT(rdma_recvs), STAT(retransmits),
	STAT(timeouts), STAT(rx_not_roce), STAT(rx_truncated), STAT(rx_bad_icrc),
	STAT(rx_bad_header), STAT(rx_unknown_qpn), STAT(rx_bad_pkey), STAT(rx_bad_qkey),
	STAT(rx_bad_opcode), STAT(rx_bad_state), STAT(rx_bad_source), STAT(rx_bad_length),
	STAT(rx_bad_vlan), STAT(rx_passed),
};
OMNI_CTR_TABLE_CHECK(dev_stat_names, struct roce_dev_stats);

void
roce_dev_stats_get(const struct roce_dev *dev, struct roce_dev_stats *st)
{
	*st = dev->st;
}

unsigned int
roce_stats_table(const struct roce_dev_stats *st, const char **names, uint64_t *values,
		 unsigned int n)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(dev_stat_names) && i < n; i++) {
		if (names != NULL)
			names[i] = dev_stat_names[i].name;
		if (values != NULL)
			values[i] = omni_ctr_value(&dev_stat_names[i], st);
	}
	return RTE_DIM(dev_stat_names);
}

unsigned int
roce_dev_stats_names(const char **names, uint64_t *values, unsigned int n,
		     const struct roce_dev *dev)
{
	return roce_stats_table(&dev->st, names, values, n);
}

void
roce_dev_stats_dump(const struct roce_dev *dev, FILE *f)
{
	unsigned int i;

	fprintf(f, "%s:", dev->name);
	for (i = 0; i < RTE_DIM(dev_stat_names); i++) {
		uint64_t v = omni_ctr_value(&dev_stat_names[i], &dev->st);

		if (v != 0)
			fprintf(f, " %s=%" PRIu64, dev_stat_names[i].name, v);
	}
	fprintf(f, "\n");
}

const char *
roce_wc_status_str(enum roce_wc_status st)
{
	static const char *const names[] = {
		"SUCCESS", "LOC_LEN_ERR", "LOC_QP_OP_ERR", "LOC_PROT_ERR", "WR_FLUSH_ERR",
		"BAD_RESP_ERR", "LOC_ACCESS_ERR", "REM_INV_REQ_ERR", "REM_ACCESS_ERR",
		"REM_OP_ERR", "RETRY_EXC_ERR", "RNR_RETRY_EXC_ERR", "REM_ABORT_ERR",
		"FATAL_ERR", "RESP_TIMEOUT_ERR", "GENERAL_ERR",
	};

	return (unsigned int)st < RTE_DIM(names) ? names[st] : "?";
}

const char *
roce_qp_state_str(enum roce_qp_state st)
{
	static const char *const names[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };

	return (unsigned int)st < RTE_DIM(names) ? names[st] : "?";
}
