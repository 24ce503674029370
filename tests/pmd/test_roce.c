/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* lib/roce end to end over a simulated wire: every operation on RC, UC and UD. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>

#include <cmocka.h>

#include <rte_byteorder.h>
#include <rte_errno.h>

#include "roce_test_util.h"
#include "test_case.h"

static struct rt_pair pair;
static struct rt_node *A = &pair.n[0], *B = &pair.n[1];

static int
setup_ipv4(void **state)
{
	(void)state;
	return rt_pair_init(&pair, "t4", 4200, false);
}

static int
setup_mtu1500(void **state)
{
	(void)state;
	return rt_pair_init(&pair, "t15", 1500, false);
}

static int
setup_ipv6(void **state)
{
	(void)state;
	return rt_pair_init(&pair, "t6", 4200, true);
}

static int
teardown(void **state)
{
	(void)state;
	rt_pair_fini(&pair);
	return 0;
}

static void
fill_pattern(uint8_t *p, uint32_t len, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed + i * 7 + (i >> 8));
}

static void
post_recv1(struct roce_qp *qp, struct rt_node *n, uint64_t id, uint32_t off, uint32_t len)
{
	struct roce_sge s = rt_sge(n, off, len);
	struct roce_recv_wr wr = { .wr_id = id, .num_sge = 1, .sg_list = &s };

	assert_int_equal(roce_post_recv(qp, &wr, 1, NULL), 0);
}

static void
post_send1(struct roce_qp *qp, struct rt_node *n, uint64_t id, uint8_t op, uint32_t off,
	   uint32_t len, uint64_t raddr, uint32_t rkey)
{
	struct roce_sge s = rt_sge(n, off, len);
	struct roce_send_wr wr = {
		.wr_id = id, .opcode = op, .send_flags = ROCE_SEND_SIGNALED,
		.num_sge = 1, .sg_list = &s, .imm_data = rte_cpu_to_be_32(0xabcd0000u + (uint32_t)id),
	};

	wr.rdma.remote_addr = raddr;
	wr.rdma.rkey = rkey;
	assert_int_equal(roce_post_send(qp, &wr, 1, NULL), 0);
}

/*
 * RC SEND of every size class (0, 1, one MTU, several MTUs and a tail)
 * arrives intact; afterwards, idle, neither device holds mbufs of the pool.
 */
static void
test_rc_send_sizes_arrive_intact(void **state)
{
	static const uint32_t sizes[] = { 0, 1, 63, 4096, 4097, 3 * 4096 + 5, 65536 };
	struct roce_qp *qa, *qb;
	struct roce_wc wc[2];
	unsigned int i;

	(void)state;
	qa = rt_qp(A, ROCE_QPT_RC, 64);
	qb = rt_qp(B, ROCE_QPT_RC, 64);
	assert_non_null(qa);
	assert_non_null(qb);
	assert_int_equal(rt_connect(&pair, qa, qb, 14, 7, 7, 1), 0);
	for (i = 0; i < RTE_DIM(sizes); i++) {
		memset(B->mem, 0, 70000);
		fill_pattern(A->mem, sizes[i], i);
		post_recv1(qb, B, 100 + i, 0, 70000);
		post_send1(qa, A, i, ROCE_WR_SEND, 0, sizes[i], 0, 0);
		assert_int_equal(rt_wait_wc(&pair, A->scq, wc, 1, 2000), 1);
		assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
		assert_int_equal(wc[0].wr_id, i);
		assert_int_equal(wc[0].opcode, ROCE_WC_SEND);
		assert_int_equal(rt_wait_wc(&pair, B->rcq, wc + 1, 1, 2000), 1);
		assert_int_equal(wc[1].status, ROCE_WC_SUCCESS);
		assert_int_equal(wc[1].wr_id, 100 + i);
		assert_int_equal(wc[1].opcode, ROCE_WC_RECV);
		assert_int_equal(wc[1].byte_len, sizes[i]);
		assert_int_equal(wc[1].qp_num, roce_qp_num(qb));
		assert_memory_equal(B->mem, A->mem, sizes[i] ? sizes[i] : 1);
	}
	rt_run_until(&pair, NULL, NULL, 5);
	assert_int_equal(roce_dev_mbufs_held(A->dev), 0);
	assert_int_equal(roce_dev_mbufs_held(B->dev), 0);
	assert_int_equal(rte_mempool_avail_count(test_pool), test_pool->size);
	roce_qp_destroy(qa);
	roce_qp_destroy(qb);
}

/* RDMA WRITE (with and without imm), READ and both atomics on RC do what they say. */
static void
test_rc_write_read_atomics(void **state)
{
	struct roce_qp *qa, *qb;
	struct roce_wc wc[4];
	uint32_t rkey_b = roce_mr_rkey(B->mr);
	uint64_t v;

	(void)state;
	qa = rt_qp(A, ROCE_QPT_RC, 64);
	qb = rt_qp(B, ROCE_QPT_RC, 64);
	assert_int_equal(rt_connect(&pair, qa, qb, 14, 7, 7, 1), 0);

	/* WRITE 20000 bytes to B at offset 8192 */
	fill_pattern(A->mem, 20000, 3);
	memset(B->mem, 0, 40000);
	post_send1(qa, A, 1, ROCE_WR_RDMA_WRITE, 0, 20000, 0x10000000 + 8192, rkey_b);
	assert_int_equal(rt_wait_wc(&pair, A->scq, wc, 1, 2000), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_int_equal(wc[0].opcode, ROCE_WC_RDMA_WRITE);
	assert_memory_equal(B->mem + 8192, A->mem, 20000);
	assert_int_equal(roce_cq_poll(B->rcq, wc, 4), 0); /* no receive consumed */

	/* WRITE with imm consumes a receive and reports the immediate */
	post_recv1(qb, B, 77, 100000, 16);
	post_send1(qa, A, 2, ROCE_WR_RDMA_WRITE_WITH_IMM, 0, 5000, 0x10000000 + 50000, rkey_b);
	assert_int_equal(rt_wait_wc(&pair, B->rcq, wc, 1, 2000), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_int_equal(wc[0].opcode, ROCE_WC_RECV_RDMA_WITH_IMM);
	assert_int_equal(wc[0].wr_id, 77);
	assert_int_equal(wc[0].byte_len, 5000);
	assert_true(wc[0].wc_flags & ROCE_WC_WITH_IMM);
	assert_int_equal(rte_be_to_cpu_32(wc[0].imm_data), 0xabcd0002u);
	assert_memory_equal(B->mem + 50000, A->mem, 5000);
	assert_int_equal(rt_wait_wc(&pair, A->scq, wc, 1, 2000), 1);

	/* READ 30000 bytes from B */
	fill_pattern(B->mem + 200000, 30000, 9);
	memset(A->mem + 300000, 0, 30000);
	post_send1(qa, A, 3, ROCE_WR_RDMA_READ, 300000, 30000, 0x10000000 + 200000, rkey_b);
	assert_int_equal(rt_wait_wc(&pair, A->scq, wc, 1, 2000), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_int_equal(wc[0].opcode, ROCE_WC_RDMA_READ);
	assert_int_equal(wc[0].byte_len, 30000);
	assert_memory_equal(A->mem + 300000, B->mem + 200000, 30000);

	/* FETCH_ADD then CMP_SWP (hit and miss) on B's word at 1000 */
	v = 40;
	memcpy(B->mem + 1000, &v, 8);
	{
		struct roce_sge s = rt_sge(A, 400000, 8);
		struct roce_send_wr wr = {
			.wr_id = 4, .opcode = ROCE_WR_ATOMIC_FETCH_AND_ADD,
			.send_flags = ROCE_SEND_SIGNALED, .num_sge = 1, .sg_list = &s,
		};

		wr.atomic.remote_addr = 0x10000000 + 1000;
		wr.atomic.rkey = rkey_b;
		wr.atomic.compare_add = 2;
		assert_int_equal(roce_post_send(qa, &wr, 1, NULL), 0);
		assert_int_equal(rt_wait_wc(&pair, A->scq, wc, 1, 2000), 1);
		assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
		assert_int_equal(wc[0].opcode, ROCE_WC_FETCH_ADD);
		memcpy(&v, A->mem + 400000, 8);
		assert_int_equal(v, 40);
		memcpy(&v, B->mem + 1000, 8);
		assert_int_equal(v, 42);

		wr.wr_id = 5;
		wr.opcode = ROCE_WR_ATOMIC_CMP_AND_SWP;
		wr.atomic.compare_add = 42;
		wr.atomic.swap = 1000;
		assert_int_equal(roce_post_send(qa, &wr, 1, NULL), 0);
		wr.wr_id = 6;
		wr.atomic.compare_add = 42; /* now a miss: the value is 1000 */
		wr.atomic.swap = 7;
		assert_int_equal(roce_post_send(qa, &wr, 1, NULL), 0);
		assert_int_equal(rt_wait_wc(&pair, A->scq, wc, 2, 2000), 2);
		assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
		assert_int_equal(wc[1].status, ROCE_WC_SUCCESS);
		assert_int_equal(wc[0].opcode, ROCE_WC_COMP_SWAP);
		memcpy(&v, A->mem + 400000, 8);
		assert_int_equal(v, 1000); /* the second one's original */
		memcpy(&v, B->mem + 1000, 8);
		assert_int_equal(v, 1000);
	}
	roce_qp_destroy(qa);
	roce_qp_destroy(qb);
}


/* UC SEND and WRITE with imm arrive; UC refuses READ at post. */
static void
test_uc_send_and_write_arrive_read_is_refused(void **state)
{
	struct roce_qp *qa, *qb;
	struct roce_wc wc[2];
	struct roce_sge s = rt_sge(A, 0, 8);
	struct roce_send_wr rd = { .opcode = ROCE_WR_RDMA_READ, .num_sge = 1, .sg_list = &s };

	(void)state;
	qa = rt_qp(A, ROCE_QPT_UC, 16);
	qb = rt_qp(B, ROCE_QPT_UC, 16);
	assert_int_equal(rt_connect(&pair, qa, qb, 0, 0, 0, 0), 0);
	fill_pattern(A->mem, 10000, 5);
	post_recv1(qb, B, 1, 0, 10000);
	post_send1(qa, A, 1, ROCE_WR_SEND, 0, 10000, 0, 0);
	assert_int_equal(rt_wait_wc(&pair, B->rcq, wc, 1, 2000), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_int_equal(wc[0].byte_len, 10000);
	assert_memory_equal(B->mem, A->mem, 10000);
	post_recv1(qb, B, 2, 0, 16);
	post_send1(qa, A, 2, ROCE_WR_RDMA_WRITE_WITH_IMM, 0, 9000, 0x10000000 + 20000,
		   roce_mr_rkey(B->mr));
	assert_int_equal(rt_wait_wc(&pair, B->rcq, wc, 1, 2000), 1);
	assert_int_equal(wc[0].opcode, ROCE_WC_RECV_RDMA_WITH_IMM);
	assert_memory_equal(B->mem + 20000, A->mem, 9000);
	assert_int_equal(rt_wait_wc(&pair, A->scq, wc, 2, 2000), 2);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_int_equal(roce_post_send(qa, &rd, 1, NULL), -EINVAL);
	assert_non_null(strstr(roce_dev_last_error(A->dev), "RC"));
	roce_qp_destroy(qa);
	roce_qp_destroy(qb);
}

/* UD SEND with imm lands after a 40-byte GRH holding the sender's IP header; a wrong Q_Key is dropped. */
static void
test_ud_and_gsi_send_deliver_grh_and_check_qkey(void **state)
{
	struct roce_qp *qa, *qb, *ga, *gb;
	struct roce_ah_attr av = { .sgid_index = 1, .vlan_id = ROCE_VLAN_NONE };
	struct roce_ah *ah;
	struct roce_wc wc[2];
	struct roce_sge s = rt_sge(A, 0, 300);
	struct roce_send_wr wr = {
		.wr_id = 5, .opcode = ROCE_WR_SEND_WITH_IMM, .send_flags = ROCE_SEND_SIGNALED,
		.num_sge = 1, .sg_list = &s, .imm_data = 0x01020304,
	};
	struct roce_dev_stats st0, st1;

	(void)state;
	qa = rt_ud_qp(A, ROCE_QPT_UD, 0x1111, 7);
	qb = rt_ud_qp(B, ROCE_QPT_UD, 0x2222, 7);
	memcpy(av.dgid, B->gid, ROCE_GID_LEN);
	memcpy(av.dmac, B->mac, 6);
	ah = roce_ah_create(A->pd, &av);
	assert_non_null(ah);
	fill_pattern(A->mem, 300, 1);
	post_recv1(qb, B, 9, 0, 400);
	wr.ud.ah = ah;
	wr.ud.remote_qpn = roce_qp_num(qb);
	wr.ud.remote_qkey = 0x2222;
	assert_int_equal(roce_post_send(qa, &wr, 1, NULL), 0);
	assert_int_equal(rt_wait_wc(&pair, B->rcq, wc, 1, 2000), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_int_equal(wc[0].byte_len, ROCE_GRH_LEN + 300);
	assert_int_equal(wc[0].src_qp, roce_qp_num(qa));
	assert_int_equal(wc[0].wc_flags, ROCE_WC_GRH | ROCE_WC_WITH_IMM);
	assert_int_equal(wc[0].imm_data, 0x01020304);
	if (A->gid[10] == 0xff) {
		/* IPv4 header in the GRH's last 20 bytes */
		assert_int_equal(B->mem[20], 0x45);
		assert_memory_equal(B->mem + 20 + 12, A->gid + 12, 4);
	} else {
		assert_int_equal(B->mem[0] >> 4, 6);
		assert_memory_equal(B->mem + 8, A->gid, ROCE_GID_LEN);
	}
	assert_memory_equal(B->mem + ROCE_GRH_LEN, A->mem, 300);
	assert_int_equal(rt_wait_wc(&pair, A->scq, wc, 1, 2000), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);

	/* wrong Q_Key: dropped and counted, the receive stays posted */
	roce_dev_stats_get(B->dev, &st0);
	wr.ud.remote_qkey = 0x3333;
	post_recv1(qb, B, 10, 0, 400);
	assert_int_equal(roce_post_send(qa, &wr, 1, NULL), 0);
	rt_run_until(&pair, NULL, NULL, 5);
	roce_dev_stats_get(B->dev, &st1);
	assert_int_equal(st1.rx_bad_qkey - st0.rx_bad_qkey, 1);
	assert_int_equal(roce_cq_poll(B->rcq, wc, 2), 0);
	assert_int_equal(rt_wait_wc(&pair, A->scq, wc, 1, 2000), 1);

	/* GSI (QP1, Q_Key 0x80010000) */
	ga = rt_ud_qp(A, ROCE_QPT_GSI, ROCE_GSI_QKEY, 7);
	gb = rt_ud_qp(B, ROCE_QPT_GSI, ROCE_GSI_QKEY, 7);
	assert_int_equal(roce_qp_num(ga), 1);
	assert_null(rt_qp(A, ROCE_QPT_GSI, 4)); /* one per device */
	post_recv1(gb, B, 11, 1000, 400);
	wr.ud.remote_qpn = 1;
	wr.ud.remote_qkey = ROCE_GSI_QKEY;
	assert_int_equal(roce_post_send(ga, &wr, 1, NULL), 0);
	assert_int_equal(rt_wait_wc(&pair, B->rcq, wc, 1, 2000), 1);
	assert_int_equal(wc[0].wr_id, 11);
	assert_int_equal(wc[0].src_qp, 1);
	assert_int_equal(wc[0].qp_num, 1);
	assert_int_equal(rt_wait_wc(&pair, A->scq, wc, 1, 2000), 1);

	/* a UD message above the path MTU is refused at post */
	s.length = 5000;
	assert_int_equal(roce_post_send(qa, &wr, 1, NULL), -EINVAL);
	roce_qp_destroy(ga);
	roce_qp_destroy(gb);
	roce_qp_destroy(qa);
	roce_qp_destroy(qb);
	roce_ah_destroy(ah);
}

/* Inline data and several SGEs gather and scatter in order. */
static void
test_inline_and_multi_sge_gather_scatter(void **state)
{
	struct roce_qp *qa, *qb;
	struct roce_wc wc[1];
	static const char msg[] = "inline data is copied at post time";
	struct roce_sge sg[3] = { rt_sge(A, 100, 1000), rt_sge(A, 5000, 3000), rt_sge(A, 9000, 1) };
	struct roce_sge rs[2] = { rt_sge(B, 0, 2500), rt_sge(B, 70000, 3000) };
	struct roce_recv_wr rwr = { .wr_id = 1, .num_sge = 2, .sg_list = rs };
	struct roce_send_wr wr = { .wr_id = 1, .opcode = ROCE_WR_SEND, .num_sge = 3, .sg_list = sg,
				   .send_flags = ROCE_SEND_SIGNALED };
	char buf[sizeof(msg)];
	uint8_t expect[4001];

	(void)state;
	qa = rt_qp(A, ROCE_QPT_RC, 16);
	qb = rt_qp(B, ROCE_QPT_RC, 16);
	assert_int_equal(rt_connect(&pair, qa, qb, 14, 7, 7, 1), 0);
	fill_pattern(A->mem, 10000, 8);
	memcpy(expect, A->mem + 100, 1000);
	memcpy(expect + 1000, A->mem + 5000, 3000);
	expect[4000] = A->mem[9000];
	assert_int_equal(roce_post_recv(qb, &rwr, 1, NULL), 0);
	assert_int_equal(roce_post_send(qa, &wr, 1, NULL), 0);
	assert_int_equal(rt_wait_wc(&pair, B->rcq, wc, 1, 2000), 1);
	assert_int_equal(wc[0].byte_len, 4001);
	assert_memory_equal(B->mem, expect, 2500);
	assert_memory_equal(B->mem + 70000, expect + 2500, 1501);
	assert_int_equal(rt_wait_wc(&pair, A->scq, wc, 1, 2000), 1);

	memcpy(buf, msg, sizeof(msg));
	wr.send_flags = ROCE_SEND_SIGNALED | ROCE_SEND_INLINE;
	wr.inline_data = buf;
	wr.inline_len = sizeof(msg);
	wr.num_sge = 0;
	rwr.num_sge = 1;
	assert_int_equal(roce_post_recv(qb, &rwr, 1, NULL), 0);
	assert_int_equal(roce_post_send(qa, &wr, 1, NULL), 0);
	memset(buf, 0, sizeof(buf)); /* the caller's buffer is free once posted */
	assert_int_equal(rt_wait_wc(&pair, B->rcq, wc, 1, 2000), 1);
	assert_memory_equal(B->mem, msg, sizeof(msg));
	assert_int_equal(rt_wait_wc(&pair, A->scq, wc, 1, 2000), 1);
	roce_qp_destroy(qa);
	roce_qp_destroy(qb);
}

/* A "guest" of 8 pages of 4 KiB whose physical order is the reverse of the host's. */
#define GPAGES 8
static uint8_t *gmem;

static void *
xlate_rev(void *ctx, uint64_t addr, uint64_t len, uint64_t *contig)
{
	uint64_t page = addr >> 12, off = addr & 4095;

	(void)ctx;
	(void)len;
	if (addr < 0x100000 || page - 0x100 >= GPAGES)
		return NULL;
	*contig = 4096 - off;
	return gmem + (GPAGES - 1 - (page - 0x100)) * 4096 + off;
}

/*
 * An MR over guest pages: WRITE and READ across page boundaries land in the
 * right host pages; an untranslatable page refuses the registration.
 */
static void
test_page_list_mr_translates_every_page(void **state)
{
	uint64_t pages[GPAGES];
	struct roce_mr_conf c = {
		.iova = 0x100000 + 100, .length = GPAGES * 4096 - 200,
		.access = ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
			  ROCE_ACCESS_REMOTE_READ,
		.pages = pages, .nb_pages = GPAGES, .page_size = 4096, .xlate = xlate_rev,
	};
	struct roce_qp *qa, *qb;
	struct roce_mr *mr;
	struct roce_wc wc[1];
	unsigned int i;

	(void)state;
	gmem = rte_zmalloc("gmem", GPAGES * 4096, 4096);
	assert_non_null(gmem);
	for (i = 0; i < GPAGES; i++)
		pages[i] = 0x100000 + i * 4096ull;
	pages[3] = 0x900000; /* not mapped */
	assert_null(roce_mr_reg(B->pd, &c));
	assert_int_equal(rte_errno, EFAULT);
	pages[3] = 0x103000;
	mr = roce_mr_reg(B->pd, &c);
	assert_non_null(mr);
	qa = rt_qp(A, ROCE_QPT_RC, 16);
	qb = rt_qp(B, ROCE_QPT_RC, 16);
	assert_int_equal(rt_connect(&pair, qa, qb, 14, 7, 7, 1), 0);
	fill_pattern(A->mem, 10000, 77);
	/* guest address 0x100000 + 3000 .. + 13000 spans pages 0..3 */
	post_send1(qa, A, 1, ROCE_WR_RDMA_WRITE, 0, 10000, 0x100000 + 3000, roce_mr_rkey(mr));
	assert_int_equal(rt_wait_wc(&pair, A->scq, wc, 1, 2000), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_memory_equal(gmem + 7 * 4096 + 3000, A->mem, 1096);
	assert_memory_equal(gmem + 6 * 4096, A->mem + 1096, 4096);
	assert_memory_equal(gmem + 5 * 4096, A->mem + 5192, 4096);
	assert_memory_equal(gmem + 4 * 4096, A->mem + 9288, 712);
	memset(A->mem + 20000, 0, 10000);
	post_send1(qa, A, 2, ROCE_WR_RDMA_READ, 20000, 10000, 0x100000 + 3000, roce_mr_rkey(mr));
	assert_int_equal(rt_wait_wc(&pair, A->scq, wc, 1, 2000), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_memory_equal(A->mem + 20000, A->mem, 10000);
	/* the region's first 100 bytes are outside it */
	post_send1(qa, A, 3, ROCE_WR_RDMA_WRITE, 0, 10, 0x100000, roce_mr_rkey(mr));
	assert_int_equal(rt_wait_wc(&pair, A->scq, wc, 1, 2000), 1);
	assert_int_equal(wc[0].status, ROCE_WC_REM_ACCESS_ERR);
	assert_int_equal(roce_mr_remap(mr), 0);
	roce_qp_destroy(qa);
	roce_qp_destroy(qb);
	assert_int_equal(roce_mr_dereg(mr), 0);
	rte_free(gmem);
}

/*
 * A DMA MR (no host, no pages: xlate at each use) over the same guest
 * pages: a WRITE crossing pages lands in the right host pages, a READ
 * brings it back, and a WRITE touching an address that does not translate
 * is refused with a remote access error.
 */
static void
test_dma_mr_translates_at_use_and_refuses_holes(void **state)
{
	struct roce_mr_conf c = {
		.iova = 0, .length = 1ull << 32,
		.access = ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
			  ROCE_ACCESS_REMOTE_READ,
		.xlate = xlate_rev,
	};
	struct roce_qp *qa, *qb;
	struct roce_mr *mr;
	struct roce_wc wc[1];

	(void)state;
	gmem = rte_zmalloc("gmem", GPAGES * 4096, 4096);
	assert_non_null(gmem);
	mr = roce_mr_reg(B->pd, &c);
	assert_non_null(mr);
	qa = rt_qp(A, ROCE_QPT_RC, 16);
	qb = rt_qp(B, ROCE_QPT_RC, 16);
	assert_int_equal(rt_connect(&pair, qa, qb, 14, 7, 7, 1), 0);
	fill_pattern(A->mem, 6000, 91);
	post_send1(qa, A, 1, ROCE_WR_RDMA_WRITE, 0, 6000, 0x100000 + 4000, roce_mr_rkey(mr));
	assert_int_equal(rt_wait_wc(&pair, A->scq, wc, 1, 2000), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_memory_equal(gmem + 7 * 4096 + 4000, A->mem, 96);
	assert_memory_equal(gmem + 6 * 4096, A->mem + 96, 4096);
	assert_memory_equal(gmem + 5 * 4096, A->mem + 4192, 1808);
	memset(A->mem + 20000, 0, 6000);
	post_send1(qa, A, 2, ROCE_WR_RDMA_READ, 20000, 6000, 0x100000 + 4000, roce_mr_rkey(mr));
	assert_int_equal(rt_wait_wc(&pair, A->scq, wc, 1, 2000), 1);
	assert_int_equal(wc[0].status, ROCE_WC_SUCCESS);
	assert_memory_equal(A->mem + 20000, A->mem, 6000);
	/* the last mapped page runs into the hole after it */
	post_send1(qa, A, 3, ROCE_WR_RDMA_WRITE, 0, 200, 0x100000 + GPAGES * 4096 - 100,
		   roce_mr_rkey(mr));
	assert_int_equal(rt_wait_wc(&pair, A->scq, wc, 1, 2000), 1);
	assert_int_equal(wc[0].status, ROCE_WC_REM_ACCESS_ERR);
	roce_qp_destroy(qa);
	roce_qp_destroy(qb);
	assert_int_equal(roce_mr_dereg(mr), 0);
	rte_free(gmem);
}

/*
 * An MR deregistered between the packets of a WRITE: the responder looks
 * the key up again for each packet, so the rest of the message is refused
 * (remote access error) instead of written through a freed MR.
 */
static void
test_write_to_mr_deregistered_mid_message_is_refused(void **state)
{
	struct roce_mr_conf c = {
		.iova = 0x20000000, .length = 65536,
		.access = ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE,
	};
	struct rte_mbuf *pkts[8];
	struct roce_qp *qa, *qb;
	struct roce_mr *mr;
	struct roce_wc wc[1];
	uint8_t *target;
	unsigned int n, i;

	(void)state;
	target = rte_zmalloc("target", 65536, 0);
	assert_non_null(target);
	c.host = target;
	mr = roce_mr_reg(B->pd, &c);
	assert_non_null(mr);
	qa = rt_qp(A, ROCE_QPT_RC, 16);
	qb = rt_qp(B, ROCE_QPT_RC, 16);
	assert_int_equal(rt_connect(&pair, qa, qb, 14, 7, 7, 1), 0);
	fill_pattern(A->mem, 12000, 5);
	post_send1(qa, A, 1, ROCE_WR_RDMA_WRITE, 0, 12000, 0x20000000, roce_mr_rkey(mr));
	roce_dev_poll(A->dev);
	n = rte_ring_dequeue_burst(A->tx, (void **)pkts, RTE_DIM(pkts), NULL);
	assert_int_equal(n, 3); /* 4096 + 4096 + 3808 at path MTU 4096 */
	assert_int_equal(rte_ring_enqueue(B->rx, pkts[0]), 0);
	roce_dev_poll(B->dev);
	assert_memory_equal(target, A->mem, 4096);
	assert_int_equal(roce_mr_dereg(mr), 0);
	for (i = 1; i < n; i++)
		assert_int_equal(rte_ring_enqueue(B->rx, pkts[i]), 0);
	roce_dev_poll(B->dev);
	assert_int_equal(rt_wait_wc(&pair, A->scq, wc, 1, 2000), 1);
	assert_int_equal(wc[0].status, ROCE_WC_REM_ACCESS_ERR);
	for (i = 4096; i < 12000; i++)
		if (target[i] != 0)
			fail_msg("byte %u written after the MR was deregistered", i);
	roce_qp_destroy(qa);
	roce_qp_destroy(qb);
	rte_free(target);
}

/* first_qpn: QPN = first_qpn + slot, a freed slot's number comes back as is. */
static void
test_first_qpn_numbers_qps_by_slot(void **state)
{
	struct rte_ring *rx = rte_ring_create("fq_rx", 64, SOCKET_ID_ANY, 0);
	struct rte_ring *tx = rte_ring_create("fq_tx", 64, SOCKET_ID_ANY, 0);
	struct roce_dev_conf dc = {
		.name = "fq", .mac = { 2, 0, 0, 0, 0, 9 }, .rx_ring = rx, .tx_ring = tx,
		.pool = test_pool, .socket_id = SOCKET_ID_ANY,
		.limits = { .max_qp = 3 }, .first_qpn = 2,
	};
	struct roce_qp_init_attr ia = { .qp_type = ROCE_QPT_RC, .cap = { .max_send_wr = 4 } };
	struct roce_qp *qp[4];
	struct roce_dev *dev;
	struct roce_pd *pd;
	uint32_t seen = 0;
	unsigned int i;

	(void)state;
	assert_non_null(rx);
	assert_non_null(tx);
	dc.first_qpn = 1;
	assert_null(roce_dev_create(&dc, NULL, 0));
	dc.first_qpn = 0xfffffe; /* + 3 slots passes 2^24 - 1 */
	assert_null(roce_dev_create(&dc, NULL, 0));
	dc.first_qpn = 2;
	dev = roce_dev_create(&dc, NULL, 0);
	assert_non_null(dev);
	pd = roce_pd_alloc(dev);
	ia.send_cq = ia.recv_cq = roce_cq_create(dev, &(struct roce_cq_conf){ .cqe = 8 });
	assert_non_null(ia.send_cq);
	for (i = 0; i < 3; i++) {
		qp[i] = roce_qp_create(pd, &ia);
		assert_non_null(qp[i]);
		assert_in_range(roce_qp_num(qp[i]), 2, 4);
		assert_ptr_equal(roce_qp_get(dev, roce_qp_num(qp[i])), qp[i]);
		seen |= 1u << roce_qp_num(qp[i]);
	}
	assert_int_equal(seen, 0x1c);
	assert_null(roce_qp_create(pd, &ia));
	assert_null(roce_qp_get(dev, 5));
	assert_null(roce_qp_get(dev, 0));
	i = roce_qp_num(qp[1]);
	roce_qp_destroy(qp[1]);
	assert_null(roce_qp_get(dev, i));
	qp[3] = roce_qp_create(pd, &ia);
	assert_non_null(qp[3]);
	assert_int_equal(roce_qp_num(qp[3]), i);
	roce_dev_destroy(dev);
	rte_ring_free(rx);
	rte_ring_free(tx);
}

static unsigned int notified;

static void
on_notify(void *arg, struct roce_cq *cq)
{
	(void)arg;
	(void)cq;
	notified++;
}

/* An armed CQ notifies once: NEXT_COMPLETION on any, SOLICITED only on a solicited one. */
static void
test_cq_arm_notifies_once_per_arm(void **state)
{
	struct roce_cq_conf cc = { .cqe = 16, .notify = on_notify };
	struct roce_qp_init_attr ia;
	struct roce_qp *qa, *qb;
	struct roce_cq *cq;
	struct roce_wc wc[2];
	struct roce_sge sg = rt_sge(A, 0, 8);
	struct roce_send_wr wr = { .opcode = ROCE_WR_SEND, .num_sge = 1, .sg_list = &sg };

	(void)state;
	cq = roce_cq_create(B->dev, &cc);
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = ROCE_QPT_RC;
	ia.send_cq = B->scq;
	ia.recv_cq = cq;
	ia.cap.max_send_wr = ia.cap.max_recv_wr = 8;
	qb = roce_qp_create(B->pd, &ia);
	qa = rt_qp(A, ROCE_QPT_RC, 8);
	assert_int_equal(rt_connect(&pair, qa, qb, 14, 7, 7, 1), 0);
	assert_int_equal(roce_cq_arm(cq, 0x4), -EINVAL);
	notified = 0;
	for (unsigned int i = 0; i < 4; i++)
		post_recv1(qb, B, i, 0, 64);
	assert_int_equal(roce_cq_arm(cq, ROCE_CQ_SOLICITED), 0);
	assert_int_equal(roce_post_send(qa, &wr, 1, NULL), 0); /* not solicited */
	assert_int_equal(rt_wait_wc(&pair, cq, wc, 1, 2000), 1);
	assert_int_equal(notified, 0);
	wr.send_flags = ROCE_SEND_SOLICITED;
	assert_int_equal(roce_post_send(qa, &wr, 1, NULL), 0);
	assert_int_equal(rt_wait_wc(&pair, cq, wc, 1, 2000), 1);
	assert_int_equal(notified, 1);
	assert_int_equal(roce_post_send(qa, &wr, 1, NULL), 0); /* disarmed by the last one */
	assert_int_equal(rt_wait_wc(&pair, cq, wc, 1, 2000), 1);
	assert_int_equal(notified, 1);
	assert_int_equal(roce_cq_arm(cq, ROCE_CQ_NEXT_COMPLETION), 0);
	wr.send_flags = 0;
	assert_int_equal(roce_post_send(qa, &wr, 1, NULL), 0);
	assert_int_equal(rt_wait_wc(&pair, cq, wc, 1, 2000), 1);
	assert_int_equal(notified, 2);
	roce_qp_destroy(qa);
	roce_qp_destroy(qb);
	assert_int_equal(roce_cq_destroy(cq), 0);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest v4[] = {
		cmocka_unit_test(test_rc_send_sizes_arrive_intact),
		cmocka_unit_test(test_rc_write_read_atomics),
		cmocka_unit_test(test_uc_send_and_write_arrive_read_is_refused),
		cmocka_unit_test(test_ud_and_gsi_send_deliver_grh_and_check_qkey),
		cmocka_unit_test(test_inline_and_multi_sge_gather_scatter),
		cmocka_unit_test(test_page_list_mr_translates_every_page),
		cmocka_unit_test(test_dma_mr_translates_at_use_and_refuses_holes),
		cmocka_unit_test(test_write_to_mr_deregistered_mid_message_is_refused),
		cmocka_unit_test(test_first_qpn_numbers_qps_by_slot),
		cmocka_unit_test(test_cq_arm_notifies_once_per_arm),
	};
	const struct CMUnitTest v6[] = {
		cmocka_unit_test(test_rc_send_sizes_arrive_intact),
		cmocka_unit_test(test_rc_write_read_atomics),
		cmocka_unit_test(test_ud_and_gsi_send_deliver_grh_and_check_qkey),
	};
	const struct CMUnitTest mtu1024[] = {
		cmocka_unit_test(test_rc_send_sizes_arrive_intact),
		cmocka_unit_test(test_rc_write_read_atomics),
		cmocka_unit_test(test_uc_send_and_write_arrive_read_is_refused),
	};
	int fails = 0;

	test_case_filter(argc, argv);
	if (test_eal_setup(NULL) < 0)
		return 1;
	fails += cmocka_run_group_tests_name("roce_ipv4_mtu4096", v4, setup_ipv4, teardown);
	fails += cmocka_run_group_tests_name("roce_ipv6_mtu4096", v6, setup_ipv6, teardown);
	fails += cmocka_run_group_tests_name("roce_ipv4_mtu1024", mtu1024, setup_mtu1500, teardown);
	test_eal_teardown(NULL);
	return fails;
}
