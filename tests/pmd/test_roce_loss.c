/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * lib/roce RC reliability: loss, duplication, reordering and corruption on
 * the wire; retry and RNR budgets and their exhaustion.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include <rte_byteorder.h>

#include "roce_test_util.h"
#include "test_case.h"

#define NMSG 200
#define SLOT 16384

static struct rt_pair pair;
static struct rt_node *A = &pair.n[0], *B = &pair.n[1];

static int
setup(void **state)
{
	(void)state;
	/* path MTU 1024: more packets per message, more to lose */
	return rt_pair_init(&pair, "loss", 1500, false);
}

static int
teardown(void **state)
{
	(void)state;
	rt_pair_fini(&pair);
	return 0;
}

static void
pattern(uint8_t *p, uint32_t len, uint32_t msg)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(msg * 31 + i * 13 + (i >> 9));
}

static uint32_t
msg_len(uint64_t *seed)
{
	return (uint32_t)(test_rand(seed) % SLOT);
}

/*
 * NMSG SENDs and WRITEs with imm and READs, mixed, over a wire with the given
 * impairments: every message arrives exactly once, in order, intact, and every
 * send WR completes successfully in order.
 */
static void
run_mixed(uint32_t loss, uint32_t dup, uint32_t reorder, uint32_t corrupt, uint64_t seed)
{
	struct roce_qp *qa, *qb;
	struct roce_wc wc[NMSG];
	uint32_t len[NMSG];
	uint8_t op[NMSG];
	uint64_t s = seed;
	int i, got, recvs = 0;

	memset(&pair.wire, 0, sizeof(pair.wire));
	pair.wire.seed = seed;
	pair.wire.loss_pm = loss;
	pair.wire.dup_pm = dup;
	pair.wire.reorder_pm = reorder;
	pair.wire.corrupt_pm = corrupt;
	qa = rt_qp(A, ROCE_QPT_RC, NMSG);
	qb = rt_qp(B, ROCE_QPT_RC, NMSG);
	assert_non_null(qa);
	assert_non_null(qb);
	/* 4.096 us << 8 = 1 ms ACK timeout; retry for ever */
	assert_int_equal(rt_connect(&pair, qa, qb, 8, 7, 7, 1), 0);
	memset(A->mem, 0, RT_MEM_SIZE);
	memset(B->mem, 0, RT_MEM_SIZE);
	for (i = 0; i < NMSG; i++) {
		struct roce_sge sg;
		struct roce_send_wr wr;

		len[i] = msg_len(&s);
		op[i] = (uint8_t)(test_rand(&s) % 3);
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = (uint64_t)i;
		wr.send_flags = ROCE_SEND_SIGNALED;
		wr.num_sge = 1;
		wr.sg_list = &sg;
		wr.imm_data = rte_cpu_to_be_32((uint32_t)i);
		sg = rt_sge(A, (uint32_t)i * SLOT, len[i]);
		if (op[i] == 2) {
			/* READ: B's data into A */
			pattern(B->mem + i * SLOT, len[i], (uint32_t)i);
			wr.opcode = ROCE_WR_RDMA_READ;
		} else {
			pattern(A->mem + i * SLOT, len[i], (uint32_t)i);
			wr.opcode = op[i] == 0 ? ROCE_WR_SEND : ROCE_WR_RDMA_WRITE_WITH_IMM;
			assert_int_equal(post_recv_at(qb, B, (uint64_t)i,
						      op[i] == 0 ? (uint32_t)i * SLOT : 0,
						      op[i] == 0 ? SLOT : 0), 0);
			recvs++;
		}
		wr.rdma.remote_addr = 0x10000000ull + (uint64_t)i * SLOT;
		wr.rdma.rkey = roce_mr_rkey(B->mr);
		assert_int_equal(roce_post_send(qa, &wr, 1, NULL), 0);
	}
	got = rt_wait_wc(&pair, A->scq, wc, NMSG, 60000);
	if (got != NMSG || getenv("ROCE_DEBUG") != NULL) {
		roce_dev_stats_dump(A->dev, stderr);
		roce_dev_stats_dump(B->dev, stderr);
	}
	assert_int_equal(got, NMSG);
	for (i = 0; i < NMSG; i++) {
		assert_int_equal(wc[i].wr_id, (uint64_t)i);
		assert_int_equal(wc[i].status, ROCE_WC_SUCCESS);
	}
	got = rt_wait_wc(&pair, B->rcq, wc, recvs, 5000);
	assert_int_equal(got, recvs);
	/* receive completions in posting order, one per message, never twice */
	for (i = 0, got = 0; i < NMSG; i++) {
		if (op[i] == 2) {
			assert_memory_equal(A->mem + i * SLOT, B->mem + i * SLOT, len[i]);
			continue;
		}
		assert_int_equal(wc[got].wr_id, (uint64_t)i);
		assert_int_equal(wc[got].status, ROCE_WC_SUCCESS);
		assert_int_equal(wc[got].byte_len, len[i]);
		if (op[i] == 1)
			assert_int_equal(rte_be_to_cpu_32(wc[got].imm_data), (uint32_t)i);
		assert_memory_equal(B->mem + i * SLOT, A->mem + i * SLOT, len[i]);
		got++;
	}
	/* nothing more trickles in */
	rt_run_until(&pair, NULL, NULL, 20);
	assert_int_equal(roce_cq_poll(B->rcq, wc, 1), 0);
	assert_int_equal(roce_cq_poll(A->scq, wc, 1), 0);
	roce_qp_destroy(qa);
	roce_qp_destroy(qb);
}

static void
test_rc_clean_wire_delivers_in_order(void **state)
{
	(void)state;
	run_mixed(0, 0, 0, 0, 1);
	assert_int_equal(pair.wire.lost, 0);
}

static void
test_rc_one_percent_loss_dup_reorder_delivers_exactly_once(void **state)
{
	(void)state;
	run_mixed(10, 10, 10, 0, 2);
	assert_true(pair.wire.lost > 0);
	assert_true(pair.wire.duplicated > 0);
	assert_true(pair.wire.reordered > 0);
}

static void
test_rc_ten_percent_loss_dup_reorder_delivers_exactly_once(void **state)
{
	(void)state;
	run_mixed(100, 100, 100, 0, 3);
	assert_true(pair.wire.lost > 0);
	assert_true(pair.wire.duplicated > 0);
}

static void
test_rc_corrupted_frames_are_dropped_by_icrc_and_resent(void **state)
{
	struct roce_dev_stats sa, sb;

	(void)state;
	run_mixed(0, 0, 0, 20, 4);
	roce_dev_stats_get(A->dev, &sa);
	roce_dev_stats_get(B->dev, &sb);
	assert_true(pair.wire.corrupted > 0);
	assert_true(sa.rx_bad_icrc + sb.rx_bad_icrc + sa.rx_bad_header + sb.rx_bad_header +
		    sa.rx_truncated + sb.rx_truncated + sa.rx_not_roce + sb.rx_not_roce +
		    sa.rx_unknown_qpn + sb.rx_unknown_qpn > 0);
}

static bool
drop_all(void *arg, int from, struct rte_mbuf *m)
{
	(void)arg;
	(void)from;
	(void)m;
	return false;
}

/* With every frame lost and retry_cnt 2, the WR fails RETRY_EXC and the rest flush. */
static void
test_rc_retry_exhaustion_completes_retry_exc_then_flush(void **state)
{
	struct roce_qp *qa, *qb;
	struct roce_wc wc[3];
	struct roce_dev_stats st, before;
	struct roce_qp_attr at;
	int i;

	(void)state;
	memset(&pair.wire, 0, sizeof(pair.wire));
	roce_dev_stats_get(A->dev, &before);
	qa = rt_qp(A, ROCE_QPT_RC, 8);
	qb = rt_qp(B, ROCE_QPT_RC, 8);
	assert_int_equal(rt_connect(&pair, qa, qb, 4, 2, 7, 1), 0);
	pair.wire.filter = drop_all;
	for (i = 0; i < 3; i++)
		assert_int_equal(post_send_at(qa, A, (uint64_t)i, ROCE_WR_SEND, 0, 100), 0);
	assert_int_equal(rt_wait_wc(&pair, A->scq, wc, 3, 5000), 3);
	assert_int_equal(wc[0].wr_id, 0);
	assert_int_equal(wc[0].status, ROCE_WC_RETRY_EXC_ERR);
	assert_int_equal(wc[1].status, ROCE_WC_WR_FLUSH_ERR);
	assert_int_equal(wc[2].status, ROCE_WC_WR_FLUSH_ERR);
	roce_qp_query(qa, &at, NULL);
	assert_int_equal(at.qp_state, ROCE_QPS_ERR);
	roce_dev_stats_get(A->dev, &st);
	/* the first send and two retries */
	assert_int_equal(st.timeouts - before.timeouts, 3);
	pair.wire.filter = NULL;
	roce_qp_destroy(qa);
	roce_qp_destroy(qb);
}

/* No receive posted: RNR NAKs until one is posted, then the SEND lands. */
static void
test_rc_rnr_retries_until_a_receive_is_posted(void **state)
{
	struct roce_qp *qa, *qb;
	struct roce_wc wc[1];
	struct roce_dev_stats st;

	(void)state;
	memset(&pair.wire, 0, sizeof(pair.wire));
	qa = rt_qp(A, ROCE_QPT_RC, 8);
	qb = rt_qp(B, ROCE_QPT_RC, 8);
	/* min_rnr_timer 1 = 10 us; rnr_retry 7 = for ever */
	assert_int_equal(rt_connect(&pair, qa, qb, 14, 7, 7, 1), 0);
	pattern(A->mem, 3000, 5);
	assert_int_equal(post_send_at(qa, A, 9, ROCE_WR_SEND, 0, 3000), 0);
	rt_run_until(&pair, NULL, NULL, 20);
	assert_int_equal(roce_cq_poll(A->scq, wc, 1), 0);
	roce_dev_stats_get(A->dev, &st);
	assert_true(st.rcvd_rnr_err >= 2);
	assert_int_equal(post_recv_at(qb, B, 10, 100000, 4000), 0);
	assert_int_equal(rt_wait_wc(&pair, A->scq, wc, 1, 2000), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_int_equal(rt_wait_wc(&pair, B->rcq, wc, 1, 2000), 1);
	assert_int_equal(wc[0].byte_len, 3000);
	assert_memory_equal(B->mem + 100000, A->mem, 3000);
	roce_qp_destroy(qa);
	roce_qp_destroy(qb);
}

/* rnr_retry 1: after two RNR NAKs the WR fails RNR_RETRY_EXC. */
static void
test_rc_rnr_exhaustion_completes_rnr_retry_exc(void **state)
{
	struct roce_qp *qa, *qb;
	struct roce_wc wc[2];
	struct roce_dev_stats before, after;

	(void)state;
	memset(&pair.wire, 0, sizeof(pair.wire));
	qa = rt_qp(A, ROCE_QPT_RC, 8);
	qb = rt_qp(B, ROCE_QPT_RC, 8);
	assert_int_equal(rt_connect(&pair, qa, qb, 14, 7, 1, 1), 0);
	roce_dev_stats_get(A->dev, &before);
	assert_int_equal(post_send_at(qa, A, 1, ROCE_WR_SEND, 0, 10), 0);
	assert_int_equal(post_send_at(qa, A, 2, ROCE_WR_SEND, 0, 10), 0);
	assert_int_equal(rt_wait_wc(&pair, A->scq, wc, 2, 2000), 2);
	assert_int_equal(wc[0].wr_id, 1);
	assert_int_equal(wc[0].status, ROCE_WC_RNR_RETRY_EXC_ERR);
	assert_int_equal(wc[1].status, ROCE_WC_WR_FLUSH_ERR);
	roce_dev_stats_get(A->dev, &after);
	assert_int_equal(after.rcvd_rnr_err - before.rcvd_rnr_err, 2);
	roce_qp_destroy(qa);
	roce_qp_destroy(qb);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rc_clean_wire_delivers_in_order),
		cmocka_unit_test(test_rc_one_percent_loss_dup_reorder_delivers_exactly_once),
		cmocka_unit_test(test_rc_ten_percent_loss_dup_reorder_delivers_exactly_once),
		cmocka_unit_test(test_rc_corrupted_frames_are_dropped_by_icrc_and_resent),
		cmocka_unit_test(test_rc_retry_exhaustion_completes_retry_exc_then_flush),
		cmocka_unit_test(test_rc_rnr_retries_until_a_receive_is_posted),
		cmocka_unit_test(test_rc_rnr_exhaustion_completes_rnr_retry_exc),
	};
	int fails;

	test_case_filter(argc, argv);
	if (test_eal_setup(NULL) < 0)
		return 1;
	if (getenv("ROCE_DEBUG") != NULL)
		rte_log_set_level_pattern("lib.roce", RTE_LOG_DEBUG);
	fails = cmocka_run_group_tests_name("roce_loss", tests, setup, teardown);
	test_eal_teardown(NULL);
	return fails;
}
