/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* lib/roce QP rules: the IBA state machine, modify_qp attributes, posting, error completions. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>

#include <cmocka.h>

#include "roce_test_util.h"
#include "test_case.h"

static struct rt_pair pair;
static struct rt_node *A = &pair.n[0], *B = &pair.n[1];
static unsigned int events[3];

static int
setup(void **state)
{
	(void)state;
	return rt_pair_init(&pair, "qp", 4200, false);
}

static int
teardown(void **state)
{
	(void)state;
	rt_pair_fini(&pair);
	return 0;
}

/* Bring a fresh QP of @p type to @p st along the valid path. */
static struct roce_qp *
qp_in(enum roce_qp_type type, enum roce_qp_state st)
{
	struct roce_qp *qp = rt_qp(A, type, 8);
	bool rc = type == ROCE_QPT_RC, conn = rc || type == ROCE_QPT_UC;
	struct roce_qp_attr at;

	assert_non_null(qp);
	memset(&at, 0, sizeof(at));
	if (st == ROCE_QPS_RESET)
		return qp;
	at.qp_state = ROCE_QPS_INIT;
	at.qkey = 0x77;
	assert_int_equal(roce_qp_modify(qp, &at, ROCE_QP_STATE |
					 (conn ? ROCE_QP_ACCESS_FLAGS : ROCE_QP_QKEY)), 0);
	if (st == ROCE_QPS_ERR) {
		at.qp_state = ROCE_QPS_ERR;
		assert_int_equal(roce_qp_modify(qp, &at, ROCE_QP_STATE), 0);
		return qp;
	}
	if (st == ROCE_QPS_INIT)
		return qp;
	at.qp_state = ROCE_QPS_RTR;
	at.path_mtu = ROCE_MTU_1024;
	at.dest_qp_num = 99;
	at.ah_attr.sgid_index = 1;
	at.ah_attr.vlan_id = ROCE_VLAN_NONE;
	memcpy(at.ah_attr.dgid, B->gid, ROCE_GID_LEN);
	assert_int_equal(roce_qp_modify(qp, &at, ROCE_QP_STATE | (conn ? ROCE_QP_AV |
					 ROCE_QP_PATH_MTU | ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN : 0) |
					 (rc ? ROCE_QP_MAX_DEST_RD_ATOMIC | ROCE_QP_MIN_RNR_TIMER : 0)),
			 0);
	if (st == ROCE_QPS_RTR)
		return qp;
	at.qp_state = ROCE_QPS_RTS;
	assert_int_equal(roce_qp_modify(qp, &at, ROCE_QP_STATE | ROCE_QP_SQ_PSN |
					 (rc ? ROCE_QP_TIMEOUT | ROCE_QP_RETRY_CNT |
					  ROCE_QP_RNR_RETRY | ROCE_QP_MAX_QP_RD_ATOMIC : 0)), 0);
	if (st == ROCE_QPS_RTS)
		return qp;
	at.qp_state = ROCE_QPS_SQD;
	assert_int_equal(roce_qp_modify(qp, &at, ROCE_QP_STATE), 0);
	return qp;
}

static enum roce_qp_state
state_of(struct roce_qp *qp)
{
	struct roce_qp_attr at;

	roce_qp_query(qp, &at, NULL);
	return at.qp_state;
}

/*
 * Every (from, to) pair with the attributes the target needs: the IBA
 * transitions succeed, every other one is refused and changes nothing.
 */
static void
test_every_transition_follows_the_iba_table(void **state)
{
	/* valid[from][to] for RC (IBA 10.3.1); SQE cannot be reached on RC */
	static const bool valid[7][7] = {
		[ROCE_QPS_RESET] = { [ROCE_QPS_RESET] = 1, [ROCE_QPS_INIT] = 1 },
		[ROCE_QPS_INIT] = { [ROCE_QPS_RESET] = 1, [ROCE_QPS_INIT] = 1, [ROCE_QPS_RTR] = 1,
				    [ROCE_QPS_ERR] = 1 },
		[ROCE_QPS_RTR] = { [ROCE_QPS_RESET] = 1, [ROCE_QPS_RTS] = 1, [ROCE_QPS_ERR] = 1 },
		[ROCE_QPS_RTS] = { [ROCE_QPS_RESET] = 1, [ROCE_QPS_RTS] = 1, [ROCE_QPS_SQD] = 1,
				   [ROCE_QPS_ERR] = 1 },
		[ROCE_QPS_SQD] = { [ROCE_QPS_RESET] = 1, [ROCE_QPS_RTS] = 1, [ROCE_QPS_SQD] = 1,
				   [ROCE_QPS_ERR] = 1 },
		[ROCE_QPS_ERR] = { [ROCE_QPS_RESET] = 1, [ROCE_QPS_ERR] = 1 },
	};
	/* attributes each target needs (the union over the valid sources) */
	static const uint32_t need[7] = {
		[ROCE_QPS_INIT] = ROCE_QP_ACCESS_FLAGS,
		[ROCE_QPS_RTR] = ROCE_QP_AV | ROCE_QP_PATH_MTU | ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN |
				 ROCE_QP_MAX_DEST_RD_ATOMIC | ROCE_QP_MIN_RNR_TIMER,
		[ROCE_QPS_RTS] = ROCE_QP_SQ_PSN | ROCE_QP_TIMEOUT | ROCE_QP_RETRY_CNT |
				 ROCE_QP_RNR_RETRY | ROCE_QP_MAX_QP_RD_ATOMIC,
	};
	int from, to;

	(void)state;
	for (from = ROCE_QPS_RESET; from <= ROCE_QPS_ERR; from++) {
		if (from == ROCE_QPS_SQE)
			continue;
		for (to = ROCE_QPS_RESET; to <= ROCE_QPS_ERR; to++) {
			struct roce_qp *qp = qp_in(ROCE_QPT_RC, from);
			struct roce_qp_attr at;
			uint32_t mask = ROCE_QP_STATE;
			int r;

			memset(&at, 0, sizeof(at));
			at.qp_state = to;
			at.path_mtu = ROCE_MTU_1024;
			at.dest_qp_num = 5;
			at.ah_attr.sgid_index = 1;
			at.ah_attr.vlan_id = ROCE_VLAN_NONE;
			memcpy(at.ah_attr.dgid, B->gid, ROCE_GID_LEN);
			/* the target's attributes when coming from its usual source */
			if ((to == ROCE_QPS_INIT && from == ROCE_QPS_RESET) ||
			    (to == ROCE_QPS_RTR && from == ROCE_QPS_INIT) ||
			    (to == ROCE_QPS_RTS && from == ROCE_QPS_RTR))
				mask |= need[to];
			r = roce_qp_modify(qp, &at, mask);
			if (valid[from][to]) {
				assert_int_equal(r, 0);
				assert_int_equal(state_of(qp), to);
			} else {
				assert_int_equal(r, -EINVAL);
				assert_int_equal(state_of(qp), from);
				assert_non_null(strstr(roce_dev_last_error(A->dev), "transition"));
			}
			roce_qp_destroy(qp);
		}
	}
}

/* A missing, extra or out-of-range attribute is refused with a message that names it. */
static void
test_modify_refuses_bad_attribute_sets_without_change(void **state)
{
	struct roce_qp *qp = qp_in(ROCE_QPT_RC, ROCE_QPS_INIT);
	struct roce_qp *ud = qp_in(ROCE_QPT_UD, ROCE_QPS_RESET);
	const uint32_t rtr = ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU | ROCE_QP_DEST_QPN |
			     ROCE_QP_RQ_PSN | ROCE_QP_MAX_DEST_RD_ATOMIC | ROCE_QP_MIN_RNR_TIMER;
	struct roce_qp_attr at;

	(void)state;
	memset(&at, 0, sizeof(at));
	at.qp_state = ROCE_QPS_RTR;
	at.path_mtu = ROCE_MTU_1024;
	at.dest_qp_num = 5;
	at.ah_attr.sgid_index = 1;
	at.ah_attr.vlan_id = ROCE_VLAN_NONE;
	memcpy(at.ah_attr.dgid, B->gid, ROCE_GID_LEN);
	assert_int_equal(roce_qp_modify(qp, &at, rtr & ~ROCE_QP_MIN_RNR_TIMER), -EINVAL);
	assert_non_null(strstr(roce_dev_last_error(A->dev), "MIN_RNR_TIMER"));
	assert_int_equal(roce_qp_modify(qp, &at, rtr | ROCE_QP_SQ_PSN), -EINVAL);
	assert_non_null(strstr(roce_dev_last_error(A->dev), "SQ_PSN"));
	at.path_mtu = 6;
	assert_int_equal(roce_qp_modify(qp, &at, rtr), -EINVAL);
	assert_non_null(strstr(roce_dev_last_error(A->dev), "path_mtu"));
	at.path_mtu = ROCE_MTU_1024;
	at.rq_psn = 1u << 24;
	assert_int_equal(roce_qp_modify(qp, &at, rtr), -EINVAL);
	at.rq_psn = 0;
	at.ah_attr.sgid_index = 9; /* not set in the GID table */
	assert_int_equal(roce_qp_modify(qp, &at, rtr), -EINVAL);
	at.ah_attr.sgid_index = 1;
	at.cur_qp_state = ROCE_QPS_RTS;
	assert_int_equal(roce_qp_modify(qp, &at, rtr | ROCE_QP_CUR_STATE), -EINVAL);
	assert_int_equal(roce_qp_modify(qp, &at, rtr | (1u << 25)), -EINVAL);
	/* none of that changed the QP */
	assert_int_equal(state_of(qp), ROCE_QPS_INIT);
	/* UD: Q_Key required on RESET -> INIT, access flags not allowed */
	at.qp_state = ROCE_QPS_INIT;
	assert_int_equal(roce_qp_modify(ud, &at, ROCE_QP_STATE), -EINVAL);
	assert_non_null(strstr(roce_dev_last_error(A->dev), "QKEY"));
	assert_int_equal(roce_qp_modify(ud, &at, ROCE_QP_STATE | ROCE_QP_QKEY |
					ROCE_QP_ACCESS_FLAGS), -EINVAL);
	assert_int_equal(roce_qp_modify(ud, &at, ROCE_QP_STATE | ROCE_QP_QKEY), 0);
	/* RTR -> RTS on RC needs the retry attributes */
	assert_int_equal(roce_qp_modify(qp, &at, 0), 0); /* empty mask: INIT -> INIT */
	at.qp_state = ROCE_QPS_RTR;
	assert_int_equal(roce_qp_modify(qp, &at, rtr), 0);
	at.qp_state = ROCE_QPS_RTS;
	assert_int_equal(roce_qp_modify(qp, &at, ROCE_QP_STATE | ROCE_QP_SQ_PSN), -EINVAL);
	at.timeout = 32;
	assert_int_equal(roce_qp_modify(qp, &at, ROCE_QP_STATE | ROCE_QP_SQ_PSN | ROCE_QP_TIMEOUT |
					ROCE_QP_RETRY_CNT | ROCE_QP_RNR_RETRY |
					ROCE_QP_MAX_QP_RD_ATOMIC), -EINVAL);
	assert_int_equal(state_of(qp), ROCE_QPS_RTR);
	roce_qp_destroy(qp);
	roce_qp_destroy(ud);
}

/* Posting obeys the state and the queue sizes. */
static void
test_post_rules_follow_state_and_capacity(void **state)
{
	struct roce_qp *qp = qp_in(ROCE_QPT_RC, ROCE_QPS_RESET);
	struct roce_sge s = rt_sge(A, 0, 8);
	struct roce_send_wr sw[9];
	struct roce_recv_wr rw = { .num_sge = 1, .sg_list = &s };
	unsigned int bad, i;

	(void)state;
	memset(sw, 0, sizeof(sw));
	for (i = 0; i < RTE_DIM(sw); i++) {
		sw[i].opcode = ROCE_WR_SEND;
		sw[i].num_sge = 1;
		sw[i].sg_list = &s;
	}
	assert_int_equal(roce_post_recv(qp, &rw, 1, &bad), -EPERM);
	assert_int_equal(bad, 0);
	roce_qp_destroy(qp);
	qp = qp_in(ROCE_QPT_RC, ROCE_QPS_INIT);
	assert_int_equal(roce_post_recv(qp, &rw, 1, NULL), 0); /* INIT takes receives */
	assert_int_equal(roce_post_send(qp, sw, 1, &bad), -EPERM);
	roce_qp_destroy(qp);
	qp = qp_in(ROCE_QPT_RC, ROCE_QPS_SQD);
	/* 8 WRs fit, the 9th is refused with its index */
	assert_int_equal(roce_post_send(qp, sw, 9, &bad), -ENOMEM);
	assert_int_equal(bad, 8);
	sw[0].opcode = 42;
	assert_int_equal(roce_post_send(qp, sw, 1, &bad), -EINVAL);
	assert_non_null(strstr(roce_dev_last_error(A->dev), "opcode"));
	sw[0].opcode = ROCE_WR_ATOMIC_FETCH_AND_ADD; /* 8 bytes, but misaligned */
	sw[0].atomic.remote_addr = 0x1001;
	assert_int_equal(roce_post_send(qp, sw, 1, &bad), -EINVAL);
	roce_qp_destroy(qp);
}

static struct roce_qp *qa, *qb;

static void
connect_fresh(void)
{
	qa = rt_qp(A, ROCE_QPT_RC, 16);
	qb = rt_qp(B, ROCE_QPT_RC, 16);
	assert_int_equal(rt_connect(&pair, qa, qb, 10, 3, 0, 1), 0);
}

static void
destroy_pair(void)
{
	roce_qp_destroy(qa);
	roce_qp_destroy(qb);
}

/* A WRITE with a wrong rkey fails REM_ACCESS; the WR behind it is flushed. */
static void
test_bad_rkey_completes_rem_access_then_flush(void **state)
{
	struct roce_dev_stats st0, st1;
	struct roce_wc wc[2];

	(void)state;
	connect_fresh();
	roce_dev_stats_get(B->dev, &st0);
	{
		struct roce_sge s = rt_sge(A, 0, 100);
		struct roce_send_wr wr = { .wr_id = 1, .opcode = ROCE_WR_RDMA_WRITE, .num_sge = 1,
					   .sg_list = &s, .send_flags = ROCE_SEND_SIGNALED };

		wr.rdma.remote_addr = 0x10000000;
		wr.rdma.rkey = roce_mr_rkey(B->mr) ^ 0x1; /* wrong key byte */
		assert_int_equal(roce_post_send(qa, &wr, 1, NULL), 0);
		wr.wr_id = 2;
		assert_int_equal(roce_post_send(qa, &wr, 1, NULL), 0);
	}
	assert_int_equal(rt_wait_wc(&pair, A->scq, wc, 2, 2000), 2);
	assert_int_equal(wc[0].status, ROCE_WC_REM_ACCESS_ERR);
	assert_int_equal(wc[1].status, ROCE_WC_WR_FLUSH_ERR);
	assert_int_equal(state_of(qa), ROCE_QPS_ERR);
	assert_int_equal(state_of(qb), ROCE_QPS_ERR);
	/* B said so once: the second WRITE found its QP in ERR */
	roce_dev_stats_get(B->dev, &st1);
	assert_int_equal(st1.send_rem_access_err - st0.send_rem_access_err, 1);
	destroy_pair();
}

/* A READ past the end of the remote MR fails REM_ACCESS. */
static void
test_read_beyond_the_region_completes_rem_access(void **state)
{
	struct roce_wc wc[1];
	struct roce_sge s = rt_sge(A, 0, 4096);
	struct roce_send_wr wr = { .wr_id = 3, .opcode = ROCE_WR_RDMA_READ, .num_sge = 1,
				   .sg_list = &s, .send_flags = ROCE_SEND_SIGNALED };

	(void)state;
	connect_fresh();
	wr.rdma.remote_addr = 0x10000000ull + RT_MEM_SIZE - 100;
	wr.rdma.rkey = roce_mr_rkey(B->mr);
	assert_int_equal(roce_post_send(qa, &wr, 1, NULL), 0);
	assert_int_equal(rt_wait_wc(&pair, A->scq, wc, 1, 2000), 1);
	assert_int_equal(wc[0].status, ROCE_WC_REM_ACCESS_ERR);
	destroy_pair();
}

/* A SEND longer than the receive: the receiver sees LOC_LEN_ERR, the sender REM_INV_REQ. */
static void
test_send_longer_than_receive_completes_loc_len_and_rem_inv_req(void **state)
{
	struct roce_wc wc[1];

	(void)state;
	connect_fresh();
	post_recv_at(qb, B, 7, 0, 100);
	post_send_at(qa, A, 8, ROCE_WR_SEND, 0, 5000);
	assert_int_equal(rt_wait_wc(&pair, A->scq, wc, 1, 2000), 1);
	assert_int_equal(wc[0].status, ROCE_WC_REM_INV_REQ_ERR);
	assert_int_equal(rt_wait_wc(&pair, B->rcq, wc, 1, 2000), 1);
	assert_int_equal(wc[0].wr_id, 7);
	assert_int_equal(wc[0].status, ROCE_WC_LOC_LEN_ERR);
	destroy_pair();
}

/* A send SGE with a wrong lkey completes LOC_PROT_ERR without a packet. */
static void
test_bad_lkey_completes_loc_prot(void **state)
{
	struct roce_wc wc[1];
	struct roce_sge s = rt_sge(A, 0, 10);
	struct roce_send_wr wr = { .wr_id = 9, .opcode = ROCE_WR_SEND, .num_sge = 1,
				   .sg_list = &s, .send_flags = ROCE_SEND_SIGNALED };
	struct roce_dev_stats st0, st1;

	(void)state;
	connect_fresh();
	s.lkey ^= 0x100; /* another MR slot */
	roce_dev_stats_get(A->dev, &st0);
	assert_int_equal(roce_post_send(qa, &wr, 1, NULL), 0);
	assert_int_equal(rt_wait_wc(&pair, A->scq, wc, 1, 2000), 1);
	assert_int_equal(wc[0].status, ROCE_WC_LOC_PROT_ERR);
	roce_dev_stats_get(A->dev, &st1);
	assert_int_equal(st1.sent_pkts, st0.sent_pkts);
	destroy_pair();
}

/* Moving a QP to ERR flushes every posted WR, and WRs posted in ERR flush at once. */
static void
test_entering_err_flushes_every_outstanding_wr(void **state)
{
	struct roce_wc wc[8];
	struct roce_qp_attr at = { .qp_state = ROCE_QPS_ERR };
	int i, n;

	(void)state;
	connect_fresh();
	for (i = 0; i < 3; i++)
		post_recv_at(qb, B, (uint64_t)(10 + i), 0, 100);
	assert_int_equal(roce_qp_modify(qb, &at, ROCE_QP_STATE), 0);
	n = roce_cq_poll(B->rcq, wc, 8);
	assert_int_equal(n, 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(wc[i].wr_id, (uint64_t)(10 + i));
		assert_int_equal(wc[i].status, ROCE_WC_WR_FLUSH_ERR);
	}
	post_recv_at(qb, B, 20, 0, 100);
	assert_int_equal(roce_cq_poll(B->rcq, wc, 8), 1);
	assert_int_equal(wc[0].status, ROCE_WC_WR_FLUSH_ERR);
	destroy_pair();
}

static void
on_event(void *arg, enum roce_event ev, uint32_t id)
{
	(void)arg;
	(void)id;
	events[ev]++;
}

/* A CQ that overflows reports CQ_ERR and moves its QPs to ERR instead of dropping silently. */
static void
test_cq_overflow_moves_its_qps_to_err(void **state)
{
	struct rt_pair p2;
	struct roce_cq_conf small = { .cqe = 2 };
	struct roce_qp_init_attr ia;
	struct roce_qp *x, *y;
	struct roce_wc wc[4];
	int i;

	(void)state;
	assert_int_equal(rt_pair_init(&p2, "ovf", 4200, false), 0);
	memset(events, 0, sizeof(events));
	roce_dev_event_cb_set(p2.n[1].dev, on_event, NULL);
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = ROCE_QPT_RC;
	ia.send_cq = p2.n[1].scq;
	ia.recv_cq = roce_cq_create(p2.n[1].dev, &small);
	ia.cap.max_send_wr = ia.cap.max_recv_wr = 8;
	y = roce_qp_create(p2.n[1].pd, &ia);
	x = rt_qp(&p2.n[0], ROCE_QPT_RC, 8);
	assert_int_equal(rt_connect(&p2, x, y, 10, 1, 0, 1), 0);
	for (i = 0; i < 4; i++) {
		assert_int_equal(post_recv_at(y, &p2.n[1], (uint64_t)i, 0, 64), 0);
		assert_int_equal(post_send_at(x, &p2.n[0], (uint64_t)i, ROCE_WR_SEND, 0, 8), 0);
	}
	rt_run_until(&p2, NULL, NULL, 200);
	assert_int_equal(events[ROCE_EVENT_CQ_ERR], 1);
	assert_int_equal(state_of(y), ROCE_QPS_ERR);
	assert_int_equal(roce_cq_poll(ia.recv_cq, wc, 4), 2);
	assert_int_equal(roce_cq_poll(ia.recv_cq, wc, 4), -EIO);
	roce_qp_destroy(x);
	roce_qp_destroy(y);
	rt_pair_fini(&p2);
}

/* In SQD new WRs wait; back in RTS they go; SQ_DRAINED is reported. */
static void
test_sqd_holds_new_messages_until_rts(void **state)
{
	struct roce_qp_attr at = { .qp_state = ROCE_QPS_SQD };
	struct roce_wc wc[1];

	(void)state;
	connect_fresh();
	memset(events, 0, sizeof(events));
	roce_dev_event_cb_set(A->dev, on_event, NULL);
	assert_int_equal(roce_qp_modify(qa, &at, ROCE_QP_STATE), 0);
	rt_run_until(&pair, NULL, NULL, 5);
	assert_int_equal(events[ROCE_EVENT_SQ_DRAINED], 1);
	post_recv_at(qb, B, 1, 0, 64);
	post_send_at(qa, A, 1, ROCE_WR_SEND, 0, 8);
	rt_run_until(&pair, NULL, NULL, 5);
	assert_int_equal(roce_cq_poll(A->scq, wc, 1), 0);
	at.qp_state = ROCE_QPS_RTS;
	assert_int_equal(roce_qp_modify(qa, &at, ROCE_QP_STATE), 0);
	assert_int_equal(rt_wait_wc(&pair, A->scq, wc, 1, 2000), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	roce_dev_event_cb_set(A->dev, NULL, NULL);
	destroy_pair();
}

/*
 * roce_dev_mtu_set(): the wire's MTU shrinks to 1500 under a device of 4200;
 * later modifies are bounded by 1024, new QPs start there, existing QPs keep
 * theirs; an MTU RoCE cannot use is refused and changes nothing; back to 4200.
 */
static void
test_mtu_set_bounds_later_modifies_and_new_qps(void **state)
{
	struct roce_qp *rc = qp_in(ROCE_QPT_RC, ROCE_QPS_INIT);
	struct roce_qp *ud = qp_in(ROCE_QPT_UD, ROCE_QPS_RESET);
	struct roce_qp_init_attr ia;
	struct roce_qp_attr at;
	struct roce_qp *fresh;
	const uint32_t rtr = ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU | ROCE_QP_DEST_QPN |
			     ROCE_QP_RQ_PSN | ROCE_QP_MAX_DEST_RD_ATOMIC | ROCE_QP_MIN_RNR_TIMER;

	(void)state;
	assert_int_equal(roce_dev_active_mtu(A->dev), ROCE_MTU_4096);
	assert_int_equal(roce_dev_mtu_set(A->dev, 335), -EINVAL);
	assert_int_equal(roce_dev_active_mtu(A->dev), ROCE_MTU_4096);
	assert_int_equal(roce_dev_mtu_set(A->dev, 1500), 0);
	assert_int_equal(roce_dev_active_mtu(A->dev), ROCE_MTU_1024);
	roce_qp_query(ud, &at, &ia);
	assert_int_equal(at.path_mtu, ROCE_MTU_4096);
	memset(&at, 0, sizeof(at));
	at.qp_state = ROCE_QPS_RTR;
	at.path_mtu = ROCE_MTU_2048;
	at.dest_qp_num = 99;
	at.ah_attr.sgid_index = 1;
	at.ah_attr.vlan_id = ROCE_VLAN_NONE;
	memcpy(at.ah_attr.dgid, B->gid, ROCE_GID_LEN);
	assert_int_equal(roce_qp_modify(rc, &at, rtr), -EINVAL);
	assert_non_null(strstr(roce_dev_last_error(A->dev), "path_mtu 4 is not in 1..3"));
	assert_int_equal(roce_qp_cur_state(rc), ROCE_QPS_INIT);
	at.path_mtu = ROCE_MTU_1024;
	assert_int_equal(roce_qp_modify(rc, &at, rtr), 0);
	fresh = rt_qp(A, ROCE_QPT_UD, 8);
	assert_non_null(fresh);
	roce_qp_query(fresh, &at, &ia);
	assert_int_equal(at.path_mtu, ROCE_MTU_1024);
	assert_int_equal(roce_dev_mtu_set(A->dev, 4200), 0);
	assert_int_equal(roce_dev_active_mtu(A->dev), ROCE_MTU_4096);
	roce_qp_destroy(fresh);
	roce_qp_destroy(ud);
	roce_qp_destroy(rc);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_transition_follows_the_iba_table),
		cmocka_unit_test(test_modify_refuses_bad_attribute_sets_without_change),
		cmocka_unit_test(test_post_rules_follow_state_and_capacity),
		cmocka_unit_test(test_bad_rkey_completes_rem_access_then_flush),
		cmocka_unit_test(test_read_beyond_the_region_completes_rem_access),
		cmocka_unit_test(test_send_longer_than_receive_completes_loc_len_and_rem_inv_req),
		cmocka_unit_test(test_bad_lkey_completes_loc_prot),
		cmocka_unit_test(test_entering_err_flushes_every_outstanding_wr),
		cmocka_unit_test(test_cq_overflow_moves_its_qps_to_err),
		cmocka_unit_test(test_sqd_holds_new_messages_until_rts),
		cmocka_unit_test(test_mtu_set_bounds_later_modifies_and_new_qps),
	};
	int fails;

	test_case_filter(argc, argv);
	if (test_eal_setup(NULL) < 0)
		return 1;
	fails = cmocka_run_group_tests_name("roce_qp", tests, setup, teardown);
	test_eal_teardown(NULL);
	return fails;
}
