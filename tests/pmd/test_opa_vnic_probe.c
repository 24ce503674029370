/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* net_opa_vnic probe and remove: devargs it refuses, cleanly, and a
 * probe/remove cycle that leaves nothing behind. */

#include "opa_vnic_test_util.h"
#include "test_case.h"

/* What a refused probe must leave as it was. */
struct world {
	uint16_t ports;
	unsigned int memzones, mempools;
};

static struct world
world_now(void)
{
	struct world w = {
		.ports = rte_eth_dev_count_total(),
		.memzones = memzone_count(),
		.mempools = mempool_count(),
	};

	return w;
}

static void
world_same(const struct world *w, const char *what)
{
	struct world now = world_now();

	if (now.ports != w->ports || now.memzones != w->memzones ||
	    now.mempools != w->mempools)
		fail_msg("%s: ports %u -> %u, memzones %u -> %u, mempools %u -> %u", what,
			 w->ports, now.ports, w->memzones, now.memzones, w->mempools,
			 now.mempools);
}

/*
 * rte_vdev_init(@name, @args) fails, and leaves no port, memzone, mempool
 * or vdev behind; the fabric port @fabric (if any) keeps owner @owner and
 * stays a valid port.
 */
static void
expect_refused(const char *name, const char *args, const struct node *fabric, uint64_t owner)
{
	struct world w = world_now();
	struct rte_eth_dev_owner o;
	char pname[RTE_ETH_NAME_MAX_LEN + 8];
	uint16_t p;

	if (rte_vdev_init(name, args) == 0)
		fail_msg("devargs \"%s\" accepted", args);
	world_same(&w, args);
	snprintf(pname, sizeof(pname), "%s_vp0", name);
	assert_int_not_equal(rte_eth_dev_get_port_by_name(pname, &p), 0);
	/* the vdev did not stay on the bus: removing it finds nothing */
	assert_int_not_equal(rte_vdev_uninit(name), 0);
	if (fabric == NULL)
		return;
	assert_int_equal(rte_eth_dev_get_port_by_name(fabric->name, &p), 0);
	assert_int_equal(p, fabric->port);
	assert_int_equal(rte_eth_dev_owner_get(fabric->port, &o), 0);
	assert_int_equal(o.id, owner);
}

/*
 * Devargs net_opa_vnic refuses, each before it changes anything: no
 * fabric, an unknown fabric name, an empty one, keys without values,
 * vports 0 or 17, queues 0 or 9, engines 9 or more than the fabric has,
 * lid or mgmt_ms out of range, numbers that are not numbers (letters,
 * negative, trailing garbage, overflow), a key given twice, an unknown
 * key, garbage. Each leaves no port, memzone, mempool, vdev or owner
 * behind, and the fabric port then takes a valid VNIC that works.
 */
static void
test_devargs_refused_cleanly(void **state)
{
	static const char *const bad[] = {
		"", "vports=2", "fabric=net_hfi1_nope", "fabric=", "fabric",
		"fabric=net_hfi1_t0,vports", "fabric=net_hfi1_t0,engines",
		"fabric=net_hfi1_t0,vports=0", "fabric=net_hfi1_t0,vports=17",
		"fabric=net_hfi1_t0,queues=0", "fabric=net_hfi1_t0,queues=9",
		"fabric=net_hfi1_t0,engines=9", "fabric=net_hfi1_t0,engines=4",
		"fabric=net_hfi1_t0,vports=2,engines=2", "fabric=net_hfi1_t0,lid=0x1000000",
		"fabric=net_hfi1_t0,mgmt_ms=0", "fabric=net_hfi1_t0,mgmt_ms=1001",
		"fabric=net_hfi1_t0,vports=abc", "fabric=net_hfi1_t0,vports=-1",
		"fabric=net_hfi1_t0,vports=2x", "fabric=net_hfi1_t0,vports=99999999999999999999",
		"fabric=net_hfi1_t0,vports=2,vports=3", "fabric=net_hfi1_t0,fabric=net_hfi1_t0",
		"fabric=net_hfi1_t0,colour=blue", ",,,", "fabric=net_hfi1_t0;vports=2",
		"=net_hfi1_t0", "fabric==net_hfi1_t0",
	};
	struct node a;
	struct vtopo t;
	unsigned int i;

	(void)state;
	node_create(&a, 0, "ring:vw", "");
	for (i = 0; i < RTE_DIM(bad); i++)
		expect_refused(VNIC_NAME, bad[i], &a, 0);
	node_destroy(&a);

	/* the fabric still works with good devargs */
	vtopo_create(&t, 1, 1, "");
	vtopo_forward_all(&t, 1500);
	{
		struct rte_ether_addr mac = port_mac(t.vp[0]);
		struct rte_mbuf *r;

		peer_send(&t, 10, 64, &mac, 1);
		assert_int_equal(vnic_recv(t.vp[0], 0, &r, 1, VT_WAIT_MS), 1);
		assert_true(frame_is(r, 64, &mac, 1));
		rte_pktmbuf_free(r);
	}
	vtopo_destroy(&t);
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);
}

/*
 * A fabric port that is not free is refused, and stays its owner's: owned
 * by another net_opa_vnic (whose ports stay), owned by the application,
 * or started by the application (left started and working).
 */
static void
test_fabric_not_free_refused(void **state)
{
	struct rte_eth_dev_owner mine = { .name = "the test" }, o;
	struct node a, b;
	char args[64];
	uint16_t p;

	(void)state;
	node_create(&a, 0, "ring:vw", "");
	snprintf(args, sizeof(args), "fabric=%s", a.name);
	assert_int_equal(rte_vdev_init(VNIC_NAME, args), 0);
	assert_int_equal(rte_eth_dev_owner_get(a.port, &o), 0);
	assert_int_not_equal(o.id, 0);
	expect_refused("net_opa_vnic_t1", args, &a, o.id);
	assert_int_equal(vnic_port_by_index(0, &p), 0);
	assert_int_equal(rte_vdev_uninit(VNIC_NAME), 0);
	rte_vdev_uninit(a.name);

	node_create(&a, 0, "ring:vw", "");
	assert_int_equal(rte_eth_dev_owner_new(&mine.id), 0);
	assert_int_equal(rte_eth_dev_owner_set(a.port, &mine), 0);
	expect_refused(VNIC_NAME, args, &a, mine.id);
	assert_int_equal(rte_eth_dev_owner_unset(a.port, mine.id), 0);
	assert_int_equal(rte_eth_dev_owner_delete(mine.id), 0);

	/* started by the application */
	node_create(&b, 1, "ring:vw", "");
	node_start(&a, 1, 1, 256, 256, test_pool, 0);
	node_start(&b, 1, 1, 256, 256, test_pool, 0);
	expect_refused(VNIC_NAME, args, &a, 0);
	send_pkt(a.port, 0, test_pool, 96, 0, VNIC, 3, 0, 1);
	recv_check(b.port, 0, 96, VNIC, 3, 0, 1);
	pair_down(&a, &b);
}

/*
 * A vdev name too long for its ports' names ("<name>_vp<n>") is refused
 * before the fabric is touched: the fabric port is not closed, stays
 * unowned, and takes a VNIC with a proper name afterwards.
 */
static void
test_name_too_long_refused(void **state)
{
	char name[RTE_DEV_NAME_MAX_LEN], args[64];
	struct node a;
	uint16_t p;

	(void)state;
	node_create(&a, 0, "ring:vw", "");
	memset(name, 0, sizeof(name));
	strcpy(name, "net_opa_vnic_");
	memset(name + strlen(name), 'x', RTE_ETH_NAME_MAX_LEN - 3 - strlen(name));
	snprintf(args, sizeof(args), "fabric=%s,vports=2", a.name);
	expect_refused(name, args, &a, 0);
	assert_int_equal(rte_vdev_init(VNIC_NAME, args), 0);
	assert_int_equal(vnic_port_by_index(1, &p), 0);
	assert_int_equal(rte_vdev_uninit(VNIC_NAME), 0);
	rte_vdev_uninit(a.name);
}

static struct rxbins bins;

/*
 * probe/remove x 10, each time with ports configured, started, put on a
 * vesw by the EM and carrying frames both ways: afterwards the same ports,
 * memzones and mempools exist as after the first cycle, no VNIC port is
 * left, and the test pools are full.
 */
static void
test_probe_remove_cycles_leave_nothing(void **state)
{
	struct world w = { 0 };
	unsigned int cycle;
	uint16_t p;

	(void)state;
	for (cycle = 0; cycle < 11; cycle++) {
		struct rte_ether_addr mac, peer = peer_lmac(10);
		struct rte_mbuf *m, *r;
		struct vtopo t;
		uint64_t f;

		vtopo_create(&t, 2, 2, "");
		vtopo_forward_all(&t, 1500);
		mac = port_mac(t.vp[0]);
		f = xstat(t.vp[0], "fabric_rx_packets");
		peer_send(&t, 10, 64, &mac, cycle);
		/* the entropy (cycle) picks the fabric queue, hence the VNIC queue */
		vtopo_poll_all(&t, f + 1, &bins, VT_WAIT_MS);
		assert_int_equal(bins.n[0] + bins.n[1], 1);
		rxbins_free(&bins);
		m = eth_mbuf(64, &peer, &mac, cycle);
		vnic_send(t.vp[0], 1, &m, 1);
		assert_int_equal(peer_recv(&t, &r, 1, VT_WAIT_MS), 1);
		rte_pktmbuf_free(r);
		vtopo_destroy(&t);
		assert_int_not_equal(vnic_port_by_index(0, &p), 0);
		assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);
		if (cycle == 0)
			w = world_now();
		else
			world_same(&w, "probe/remove cycle");
	}
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		vnic_test(test_devargs_refused_cleanly),
		vnic_test(test_fabric_not_free_refused),
		vnic_test(test_name_too_long_refused),
		vnic_test(test_probe_remove_cycles_leave_nothing),
	};

	/* one case: argv[1] names it (a cmocka glob) */
	test_case_filter(argc, argv);
	return cmocka_run_group_tests(tests, test_eal_setup, test_eal_teardown);
}
