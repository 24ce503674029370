/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* net_hfi1 over its model: two nodes on an in-process ring wire. */

#include "hfi1_test_util.h"

/* Whole 16B packets of every size class cross A -> B unchanged, in one
 * segment each way. */
static void
test_roundtrip_sizes_single_segment(void **state)
{
	static const uint32_t sizes[] = { 24, 64, 72, 128, 1024, 1520, 2048,
		4096, 8192, 9000, 10240, 10360 };
	struct node a, b;
	unsigned int i;

	(void)state;
	node_create(&a, 0, "ring:rt1", "");
	node_create(&b, 1, "ring:rt1", "");
	node_start(&a, 1, 1, 256, 256, test_pool, 0);
	node_start(&b, 1, 1, 256, 256, test_pool, 0);
	assert_int_equal(rte_eth_dev_set_mtu(a.port, 10240), 0);
	for (i = 0; i < RTE_DIM(sizes); i++) {
		struct rte_mbuf *m = pkt16b_mbuf(test_pool, sizes[i], 0, 0x78,
				5, 9, i);
		struct rte_mbuf *r = NULL;

		send_all(a.port, 0, &m, 1);
		assert_int_equal(recv_some(b.port, 0, &r, 1, 100), 1);
		assert_true(pkt16b_check(r, sizes[i], 0x78, 5, 9, i));
		rte_pktmbuf_free(r);
	}
	node_destroy(&a);
	node_destroy(&b);
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_sizes_single_segment),
	};

	return cmocka_run_group_tests_name("hfi1", tests, test_eal_setup,
			test_eal_teardown);
}
