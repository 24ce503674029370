/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * lib/vrdma's control queue, driven by lib/vufront as the guest driver:
 * each of the RFC's 18 RoCE commands with its ack-specific data, the
 * refusals (VIRTIO_NET_ERR with nothing changed), class 6 taken as RoCE
 * only once RoCE is negotiated, malformed chains refused and counted while
 * the device keeps serving, and every object gone after a disconnect.
 */

#include <errno.h>
#include <fcntl.h>

#include <linux/virtio_ring.h>

#include <rte_byteorder.h>

#include "test_case.h"
#include "test_log.h"
#include "vrdma_test_util.h"
#include "vrdma_abi.h"

#define F_CTRL_VQ 17
#define F_VERSION_1 32
#define ROCE_BIT 55
#define CLASS 6
#define MEM_GPA 0x100000
#define MEM_SIZE (4u << 20)

struct guest {
	struct vrdma_conf conf;
	struct vrdma_dev *dev;
	struct vuf_conn *c;
	struct vuf_mem *mem;
	struct vuf_vq ctrl;
	uint8_t *out;   /* driver-readable command buffer */
	uint8_t *in;    /* device-writable ack buffer */
	char path[128];
};

/* On a connection: negotiate (with or without RoCE), map memory, start the control ring. */
static void
guest_setup(struct guest *g, bool roce)
{
	uint64_t f = (1ull << F_VERSION_1) | (1ull << VUF_F_PROTOCOL_FEATURES) |
		     (1ull << F_CTRL_VQ) | (roce ? 1ull << ROCE_BIT : 0);
	int ctrl_up[2] = { 2, 1 };
	struct vrdma_dev_info info;

	g->mem = vuf_mem_create(MEM_SIZE, MEM_GPA);
	assert_non_null(g->mem);
	assert_int_equal(vuf_set_protocol_features(g->c, 1ull << VUF_PROTOCOL_F_REPLY_ACK), 0);
	assert_int_equal(vuf_set_owner(g->c), 0);
	assert_int_equal(vuf_set_features(g->c, f), 0);
	assert_int_equal(vuf_set_mem_table(g->c, g->mem), 0);
	assert_int_equal(vuf_vq_init(&g->ctrl, g->mem, 2, 64), 0);
	assert_int_equal(vuf_vq_start(g->c, &g->ctrl, true), 0);
	assert_true(wait_info(g->dev, ring_is, ctrl_up, &info));
	g->out = vuf_mem_alloc(g->mem, 2 + 32 + 8 * 64, 64);
	g->in = vuf_mem_alloc(g->mem, 256, 64);
	assert_non_null(g->out);
	assert_non_null(g->in);
}

static void
guest_up(struct guest *g, const char *name, bool roce)
{
	struct vrdma_dev_info info;

	conf_for(&g->conf, g->path, sizeof(g->path), name);
	g->dev = attach(&g->conf, &g->c, &info);
	guest_setup(g, roce);
}

static void
guest_down(struct guest *g)
{
	detach(g->dev, g->c, g->path);
	vuf_vq_fini(&g->ctrl);
	vuf_mem_destroy(g->mem);
}

/* One turn of wait_used(): poll the device; true when the chain in flight is used. */
static bool
polled_used(struct guest *g, uint32_t *len)
{
	void *cookie;
	int rc;

	vrdma_dev_poll(g->dev);
	rc = vuf_vq_get_used(&g->ctrl, &cookie, len);
	assert_true(rc >= 0);
	return rc == 1;
}

/* Poll the device until the chain in flight is used. @return its used length. */
static uint32_t
wait_used(struct guest *g)
{
	uint32_t len = 0;

	if (!test_wait_until(polled_used(g, &len), TIMEOUT_MS))
		fail_msg("the control command was never answered");
	return len;
}

/*
 * Send one command of class @p cls with @p len data bytes and room for
 * @p room ack bytes. @return the ack byte; the ack data is at g->in + 1.
 */
static uint8_t
send_cmd_room(struct guest *g, uint8_t cls, uint8_t cmd, const void *data, uint32_t len,
	      uint32_t room)
{
	struct vuf_buf out = { g->out, 2 + len }, in = { g->in, 1 + room };
	uint32_t used;

	g->out[0] = cls;
	g->out[1] = cmd;
	if (len > 0)
		memcpy(g->out + 2, data, len);
	memset(g->in, 0xee, 256);
	assert_int_equal(vuf_vq_add(&g->ctrl, &out, 1, &in, 1, g), 0);
	vuf_vq_kick(&g->ctrl);
	used = wait_used(g);
	assert_true(used >= 1);
	return g->in[0];
}

static uint8_t
send_cmd(struct guest *g, uint8_t cmd, const void *data, uint32_t len)
{
	return send_cmd_room(g, CLASS, cmd, data, len, 255);
}

static uint32_t
ack_u32(const struct guest *g, unsigned int i)
{
	uint32_t v;

	memcpy(&v, g->in + 1 + 4 * i, sizeof(v));
	return rte_le_to_cpu_32(v);
}

/* CREATE_x with one u32 of data (or none); @return the handle. */
static uint32_t
create(struct guest *g, uint8_t cmd, const void *data, uint32_t len)
{
	assert_int_equal(send_cmd(g, cmd, data, len), VRDMA_NET_OK);
	return ack_u32(g, 0);
}

static void
ok_handle(struct guest *g, uint8_t cmd, uint32_t h)
{
	uint32_t le = rte_cpu_to_le_32(h);

	assert_int_equal(send_cmd(g, cmd, &le, sizeof(le)), VRDMA_NET_OK);
}

static struct vrdma_cmd_create_qp
qp_cmd(uint32_t pdn, uint8_t type, uint32_t cqn)
{
	struct vrdma_cmd_create_qp q = {
		.pdn = rte_cpu_to_le_32(pdn), .qp_type = type,
		.send_cqn = rte_cpu_to_le_32(cqn), .recv_cqn = rte_cpu_to_le_32(cqn),
		.cap = { .max_send_wr = rte_cpu_to_le_32(64), .max_recv_wr = rte_cpu_to_le_32(64),
			 .max_send_sge = rte_cpu_to_le_32(4), .max_recv_sge = rte_cpu_to_le_32(4) },
	};

	return q;
}

/* RESET -> INIT of an RC QP (state, pkey/port implied, access). */
static struct vrdma_cmd_modify_qp
to_init(uint32_t qpn)
{
	struct vrdma_cmd_modify_qp m = {
		.qpn = rte_cpu_to_le_32(qpn),
		.attr_mask = rte_cpu_to_le_32(1u << 0 | 1u << 2), /* STATE, ACCESS_FLAGS */
		.qp_state = 1,
		.a.qp_access_flags = rte_cpu_to_le_32(2 | 4),
	};

	return m;
}

/* Every RFC command once, with the ack-specific data it owes. */
static void
test_every_command_answers_with_its_ack_data(void **state)
{
	struct vrdma_cmd_create_cq cq = { .cqe = rte_cpu_to_le_32(128) };
	struct vrdma_cmd_add_gid gid = { .index = rte_cpu_to_le_16(0),
		.gid = { [10] = 0xff, [11] = 0xff, [12] = 10, [13] = 0, [14] = 0, [15] = 1 } };
	struct vrdma_cmd_del_gid dgid = { .index = 0 };
	struct vrdma_cmd_create_ah ah = { 0 };
	struct vrdma_cmd_destroy_ah dah;
	struct vrdma_cmd_get_dma_mr dma = { 0 };
	struct vrdma_cmd_req_notify rn = { 0 };
	struct vrdma_cmd_query_qp qq = { 0 };
	struct vrdma_cmd_create_qp qp;
	struct vrdma_cmd_modify_qp mq;
	struct vrdma_ack_query_device qd;
	struct vrdma_ack_query_qp qa;
	struct vrdma_dev_info info;
	uint8_t mr[32 + 8 * 3];
	struct vrdma_cmd_reg_user_mr *um = (struct vrdma_cmd_reg_user_mr *)mr;
	uint32_t pdn, cqn, qpn, ahn, lkey, rkey, dma_lkey;
	uint8_t *buf;
	struct guest g;
	unsigned int i;

	(void)state;
	guest_up(&g, "all.sock", true);
	assert_int_equal(send_cmd(&g, VRDMA_CMD_QUERY_DEVICE, NULL, 0), VRDMA_NET_OK);
	memcpy(&qd, g.in + 1, sizeof(qd));
	assert_int_equal(rte_le_to_cpu_64(qd.device_cap_flags), VRDMA_IB_DEVICE_RC_RNR_NAK_GEN);
	assert_int_equal(rte_le_to_cpu_64(qd.max_mr_size), 1ull << 30);
	assert_int_equal(rte_le_to_cpu_64(qd.page_size_cap), 4096);
	assert_int_equal(rte_le_to_cpu_32(qd.max_qp_wr), 1024);
	assert_int_equal(rte_le_to_cpu_32(qd.max_send_sge), 32);
	assert_int_equal(rte_le_to_cpu_32(qd.max_cqe), 4096);
	assert_int_equal(rte_le_to_cpu_32(qd.max_mr), 4096);
	assert_int_equal(rte_le_to_cpu_32(qd.max_pd), 4096);
	assert_int_equal(rte_le_to_cpu_32(qd.max_ah), 1024);
	assert_int_equal(rte_le_to_cpu_32(qd.max_qp_rd_atom), 128);
	assert_int_equal(qd.local_ca_ack_delay, 15);
	/* the atomics extension: in the RFC's padding, which stays zero past it */
	assert_int_equal(qd.atomic_cap, VRDMA_ATOMIC_HCA);
	assert_int_equal(qd.padding[0] | qd.padding[1], 0);
	assert_int_equal(send_cmd(&g, VRDMA_CMD_QUERY_PORT, NULL, 0), VRDMA_NET_OK);
	assert_int_equal(ack_u32(&g, 0), 128);       /* gid_tbl_len */
	assert_int_equal(ack_u32(&g, 1), 0x800000);  /* max_msg_sz */

	pdn = create(&g, VRDMA_CMD_CREATE_PD, NULL, 0);
	assert_true(pdn >= 1);
	cqn = create(&g, VRDMA_CMD_CREATE_CQ, &cq, sizeof(cq));
	assert_true(cqn < g.conf.max_cqs);  /* names ring 3 + cqn */
	rn.cqn = rte_cpu_to_le_32(cqn);
	rn.flags = rte_cpu_to_le_32(2); /* NEXT_COMPLETION */
	assert_int_equal(send_cmd(&g, VRDMA_CMD_REQ_NOTIFY_CQ, &rn, sizeof(rn)), VRDMA_NET_OK);
	assert_int_equal(send_cmd(&g, VRDMA_CMD_ADD_GID, &gid, sizeof(gid)), VRDMA_NET_OK);

	ah.pdn = rte_cpu_to_le_32(pdn);
	memcpy(ah.ah_attr.grh.dgid, gid.gid, 16);
	ah.ah_attr.grh.dgid[15] = 2;
	ah.ah_attr.dmac[0] = 2;
	ahn = create(&g, VRDMA_CMD_CREATE_AH, &ah, sizeof(ah));

	/* a user MR over three guest pages */
	buf = vuf_mem_alloc(g.mem, 3 * 4096, 4096);
	assert_non_null(buf);
	memset(mr, 0, sizeof(mr));
	um->pdn = rte_cpu_to_le_32(pdn);
	um->access_flags = rte_cpu_to_le_32(1 | 2 | 4);
	um->virt_addr = rte_cpu_to_le_64(0x7f0000001000ull);
	um->length = rte_cpu_to_le_64(3 * 4096);
	um->npages = rte_cpu_to_le_32(3);
	for (i = 0; i < 3; i++) {
		uint64_t pa = rte_cpu_to_le_64(vuf_mem_gpa(g.mem, buf + i * 4096));

		memcpy(mr + 32 + 8 * i, &pa, 8);
	}
	assert_int_equal(send_cmd(&g, VRDMA_CMD_REG_USER_MR, mr, sizeof(mr)), VRDMA_NET_OK);
	lkey = ack_u32(&g, 1);
	rkey = ack_u32(&g, 2);
	assert_int_equal(ack_u32(&g, 0), lkey); /* mrn names the MR by its lkey */
	assert_int_equal(rkey, lkey);          /* remote access asked: rkey = lkey */
	dma.pdn = rte_cpu_to_le_32(pdn);
	dma.access_flags = rte_cpu_to_le_32(1);
	assert_int_equal(send_cmd(&g, VRDMA_CMD_GET_DMA_MR, &dma, sizeof(dma)), VRDMA_NET_OK);
	dma_lkey = ack_u32(&g, 1);
	assert_int_not_equal(dma_lkey, lkey);
	assert_int_equal(ack_u32(&g, 2), 0);    /* local only: no rkey */

	qp = qp_cmd(pdn, 2 /* RC */, cqn);
	qpn = create(&g, VRDMA_CMD_CREATE_QP, &qp, sizeof(qp));
	assert_in_range(qpn, 2, g.conf.max_qps - 1); /* names rings sq(qpn), rq(qpn) */
	mq = to_init(qpn);
	assert_int_equal(send_cmd(&g, VRDMA_CMD_MODIFY_QP, &mq, sizeof(mq)), VRDMA_NET_OK);
	qq.qpn = rte_cpu_to_le_32(qpn);
	assert_int_equal(send_cmd(&g, VRDMA_CMD_QUERY_QP, &qq, sizeof(qq)), VRDMA_NET_OK);
	memcpy(&qa, g.in + 1, sizeof(qa));
	assert_int_equal(qa.qp_state, 1); /* INIT */
	assert_int_equal(rte_le_to_cpu_32(qa.a.qp_access_flags), 2 | 4);
	assert_int_equal(rte_le_to_cpu_32(qa.a.cap.max_send_wr), 64);
	assert_int_equal(rte_le_to_cpu_32(qa.a.cap.max_recv_sge), 4);

	dah.pdn = rte_cpu_to_le_32(pdn);
	dah.ah = rte_cpu_to_le_32(ahn);
	assert_int_equal(send_cmd(&g, VRDMA_CMD_DESTROY_AH, &dah, sizeof(dah)), VRDMA_NET_OK);
	ok_handle(&g, VRDMA_CMD_DEREG_MR, lkey);
	ok_handle(&g, VRDMA_CMD_DEREG_MR, dma_lkey);
	ok_handle(&g, VRDMA_CMD_DESTROY_QP, qpn);
	ok_handle(&g, VRDMA_CMD_DESTROY_CQ, cqn);
	ok_handle(&g, VRDMA_CMD_DESTROY_PD, pdn);
	assert_int_equal(send_cmd(&g, VRDMA_CMD_DEL_GID, &dgid, sizeof(dgid)), VRDMA_NET_OK);
	vrdma_dev_info_get(g.dev, &info);
	assert_int_equal(info.ctrl_ok, 19); /* the 18 commands, DEREG_MR twice */
	assert_int_equal(info.ctrl_refused, 0);
	guest_down(&g);
}

/* INIT -> RTR of RC QP @p qpn asking for path MTU code @p mtu. @return the ack byte. */
static uint8_t
to_rtr(struct guest *g, uint32_t qpn, uint8_t mtu, const uint8_t *dgid)
{
	struct vrdma_cmd_modify_qp m = {
		.qpn = rte_cpu_to_le_32(qpn),
		.attr_mask = rte_cpu_to_le_32(VRDMA_QP_ATTR_STATE | VRDMA_QP_ATTR_AV |
					      VRDMA_QP_ATTR_PATH_MTU | VRDMA_QP_ATTR_RQ_PSN |
					      VRDMA_QP_ATTR_MAX_DEST_RD_ATOMIC |
					      VRDMA_QP_ATTR_MIN_RNR_TIMER | VRDMA_QP_ATTR_DEST_QPN),
		.qp_state = VRDMA_QPS_RTR,
		.path_mtu = mtu,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 1,
		.a.dest_qp_num = rte_cpu_to_le_32(5),
		.a.rq_psn = rte_cpu_to_le_32(1),
	};

	memcpy(m.a.ah_attr.grh.dgid, dgid, 16);
	m.a.ah_attr.dmac[0] = 2;
	return send_cmd(g, VRDMA_CMD_MODIFY_QP, &m, sizeof(m));
}

/* QUERY_QP's path MTU code. */
static uint8_t
qp_path_mtu(struct guest *g, uint32_t qpn)
{
	struct vrdma_cmd_query_qp qq = { .qpn = rte_cpu_to_le_32(qpn) };
	struct vrdma_ack_query_qp qa;

	assert_int_equal(send_cmd(g, VRDMA_CMD_QUERY_QP, &qq, sizeof(qq)), VRDMA_NET_OK);
	memcpy(&qa, g->in + 1, sizeof(qa));
	return qa.path_mtu;
}

/* A new RC QP in INIT. */
static uint32_t
rc_qp_init(struct guest *g, uint32_t pdn, uint32_t cqn)
{
	struct vrdma_cmd_create_qp qp = qp_cmd(pdn, VRDMA_QPT_RC, cqn);
	struct vrdma_cmd_modify_qp mq;
	uint32_t qpn = create(g, VRDMA_CMD_CREATE_QP, &qp, sizeof(qp));

	mq = to_init(qpn);
	assert_int_equal(send_cmd(g, VRDMA_CMD_MODIFY_QP, &mq, sizeof(mq)), VRDMA_NET_OK);
	return qpn;
}

/*
 * The wire's MTU bounds the path MTU (vrdma_dev_wire_mtu_set): with a
 * virtio-net MTU of 4200 (4096) on a wire of 1500 the ceiling is 1024; a
 * MODIFY_QP asking for more is clamped, counted and answered OK, QUERY_QP
 * reports the value in use, a new QP starts at the ceiling; a smaller path
 * MTU is kept; the wire growing back lifts the ceiling up to the device's
 * own; a code that is no IB MTU is still refused.
 */
static void
test_path_mtu_is_clamped_to_the_wire(void **state)
{
	struct vrdma_cmd_create_cq cq = { .cqe = rte_cpu_to_le_32(16) };
	struct vrdma_cmd_add_gid gid = { .index = 0,
		.gid = { [10] = 0xff, [11] = 0xff, [12] = 10, [15] = 1 } };
	struct vrdma_cmd_modify_qp mq;
	struct vrdma_dev_info info;
	uint8_t dgid[16];
	uint32_t pdn, cqn, q1, q2, q3, q4;
	struct test_log log;
	char *logbuf;
	struct guest g;

	(void)state;
	/* the device's log, to count what it says */
	test_log_begin(&log);
	conf_for(&g.conf, g.path, sizeof(g.path), "mtu.sock");
	g.conf.mtu = 4200;
	g.dev = attach(&g.conf, &g.c, &info);
	guest_setup(&g, true);
	memcpy(dgid, gid.gid, 16);
	dgid[15] = 2;
	vrdma_dev_info_get(g.dev, &info);
	assert_int_equal(info.path_mtu, VRDMA_MTU_4096);
	assert_int_equal(send_cmd(&g, VRDMA_CMD_ADD_GID, &gid, sizeof(gid)), VRDMA_NET_OK);
	pdn = create(&g, VRDMA_CMD_CREATE_PD, NULL, 0);
	cqn = create(&g, VRDMA_CMD_CREATE_CQ, &cq, sizeof(cq));
	q1 = rc_qp_init(&g, pdn, cqn);
	assert_int_equal(qp_path_mtu(&g, q1), VRDMA_MTU_4096);

	assert_int_equal(vrdma_dev_wire_mtu_set(g.dev, 1500), VRDMA_MTU_1024);
	vrdma_dev_info_get(g.dev, &info);
	assert_int_equal(info.path_mtu, VRDMA_MTU_1024);
	assert_int_equal(to_rtr(&g, q1, VRDMA_MTU_4096, dgid), VRDMA_NET_OK);
	assert_int_equal(qp_path_mtu(&g, q1), VRDMA_MTU_1024);
	vrdma_dev_info_get(g.dev, &info);
	assert_int_equal(info.path_mtu_clamped, 1);
	/* a QP created now starts at the ceiling; 512 is below it and kept */
	q2 = rc_qp_init(&g, pdn, cqn);
	assert_int_equal(qp_path_mtu(&g, q2), VRDMA_MTU_1024);
	assert_int_equal(to_rtr(&g, q2, VRDMA_MTU_512, dgid), VRDMA_NET_OK);
	assert_int_equal(qp_path_mtu(&g, q2), VRDMA_MTU_512);
	/* 2048 clamped too; 7 is no IB MTU: refused, as before */
	q3 = rc_qp_init(&g, pdn, cqn);
	assert_int_equal(to_rtr(&g, q3, 7, dgid), VRDMA_NET_ERR);
	assert_int_equal(to_rtr(&g, q3, VRDMA_MTU_2048, dgid), VRDMA_NET_OK);
	assert_int_equal(qp_path_mtu(&g, q3), VRDMA_MTU_1024);
	vrdma_dev_info_get(g.dev, &info);
	assert_int_equal(info.path_mtu_clamped, 2);
	/* the same QP clamped again (RESET, INIT, RTR): counted, not said again */
	memset(&mq, 0, sizeof(mq));
	mq.qpn = rte_cpu_to_le_32(q1);
	mq.attr_mask = rte_cpu_to_le_32(VRDMA_QP_ATTR_STATE);
	mq.qp_state = VRDMA_QPS_RESET;
	assert_int_equal(send_cmd(&g, VRDMA_CMD_MODIFY_QP, &mq, sizeof(mq)), VRDMA_NET_OK);
	mq = to_init(q1);
	assert_int_equal(send_cmd(&g, VRDMA_CMD_MODIFY_QP, &mq, sizeof(mq)), VRDMA_NET_OK);
	assert_int_equal(to_rtr(&g, q1, VRDMA_MTU_4096, dgid), VRDMA_NET_OK);
	vrdma_dev_info_get(g.dev, &info);
	assert_int_equal(info.path_mtu_clamped, 3);
	logbuf = test_log_end(&log);
	{
		unsigned int said = 0;
		const char *p;

		for (p = logbuf; (p = strstr(p, "clamped to 1024")) != NULL; p++)
			said++;
		assert_int_equal(said, 2);
		assert_non_null(strstr(logbuf, "path MTU 4096 clamped to 1024"));
		assert_non_null(strstr(logbuf, "path MTU 2048 clamped to 1024"));
	}
	free(logbuf);
	/* the wire grows past the virtio-net MTU: the device's own 4096 is the ceiling */
	assert_int_equal(vrdma_dev_wire_mtu_set(g.dev, 9000), VRDMA_MTU_4096);
	q4 = rc_qp_init(&g, pdn, cqn);
	assert_int_equal(to_rtr(&g, q4, VRDMA_MTU_4096, dgid), VRDMA_NET_OK);
	assert_int_equal(qp_path_mtu(&g, q4), VRDMA_MTU_4096);
	/* a wire below what RoCE needs leaves the smallest IB MTU */
	assert_int_equal(vrdma_dev_wire_mtu_set(g.dev, 200), VRDMA_MTU_256);
	vrdma_dev_info_get(g.dev, &info);
	assert_int_equal(info.path_mtu_clamped, 3);
	assert_int_equal(info.path_mtu, VRDMA_MTU_256);
	guest_down(&g);
}

/* Refused commands get VIRTIO_NET_ERR and leave every object as it was. */
static void
test_invalid_commands_are_refused_without_change(void **state)
{
	struct vrdma_cmd_create_cq cq = { .cqe = rte_cpu_to_le_32(4097) };
	struct vrdma_cmd_query_qp qq = { 0 };
	struct vrdma_cmd_get_dma_mr dma = { 0 };
	struct vrdma_cmd_create_qp qp;
	struct vrdma_cmd_modify_qp mq;
	struct vrdma_dev_info info;
	uint8_t mr[32 + 8];
	struct vrdma_cmd_reg_user_mr *um = (struct vrdma_cmd_reg_user_mr *)mr;
	uint32_t pdn, cqn, qpn, bad = rte_cpu_to_le_32(999);
	uint64_t hole = rte_cpu_to_le_64(0x40000000);
	unsigned int refused = 0;
	struct guest g;

	(void)state;
	guest_up(&g, "bad.sock", true);
	/* unknown command, a virtio-net class, too little room for the ack data */
	assert_int_equal(send_cmd(&g, VRDMA_CMD_COUNT, NULL, 0), VRDMA_NET_ERR), refused++;
	assert_int_equal(send_cmd_room(&g, 0, 0, NULL, 0, 255), VRDMA_NET_ERR), refused++;
	assert_int_equal(send_cmd_room(&g, CLASS, VRDMA_CMD_QUERY_DEVICE, NULL, 0, 127),
			 VRDMA_NET_ERR), refused++;
	/* limits: more CQEs than QUERY_DEVICE's max_cqe; a wrong command size */
	assert_int_equal(send_cmd(&g, VRDMA_CMD_CREATE_CQ, &cq, sizeof(cq)), VRDMA_NET_ERR),
		refused++;
	cq.cqe = rte_cpu_to_le_32(64);
	assert_int_equal(send_cmd(&g, VRDMA_CMD_CREATE_CQ, &cq, 3), VRDMA_NET_ERR), refused++;
	assert_int_equal(send_cmd(&g, VRDMA_CMD_CREATE_PD, &bad, 4), VRDMA_NET_ERR), refused++;
	/* the refused creations made nothing: these are the first PD and CQ */
	pdn = create(&g, VRDMA_CMD_CREATE_PD, NULL, 0);
	assert_int_equal(pdn, 1);
	cqn = create(&g, VRDMA_CMD_CREATE_CQ, &cq, sizeof(cq));
	assert_int_equal(cqn, 0);
	/* QPs: no such CQ, SMI, more WRs than max_qp_wr */
	qp = qp_cmd(pdn, 2, 999);
	assert_int_equal(send_cmd(&g, VRDMA_CMD_CREATE_QP, &qp, sizeof(qp)), VRDMA_NET_ERR),
		refused++;
	qp = qp_cmd(pdn, 0, cqn);
	assert_int_equal(send_cmd(&g, VRDMA_CMD_CREATE_QP, &qp, sizeof(qp)), VRDMA_NET_ERR),
		refused++;
	qp = qp_cmd(pdn, 2, cqn);
	qp.cap.max_send_wr = rte_cpu_to_le_32(1025);
	assert_int_equal(send_cmd(&g, VRDMA_CMD_CREATE_QP, &qp, sizeof(qp)), VRDMA_NET_ERR),
		refused++;
	qp = qp_cmd(pdn, 2, cqn);
	qpn = create(&g, VRDMA_CMD_CREATE_QP, &qp, sizeof(qp));
	assert_int_equal(qpn, 2); /* the first QP slot: no refused CREATE_QP took one */
	/* objects in use stay */
	assert_int_equal(send_cmd(&g, VRDMA_CMD_DESTROY_PD, &(uint32_t){ rte_cpu_to_le_32(pdn) },
				  4), VRDMA_NET_ERR), refused++;
	assert_int_equal(send_cmd(&g, VRDMA_CMD_DESTROY_CQ, &(uint32_t){ rte_cpu_to_le_32(cqn) },
				  4), VRDMA_NET_ERR), refused++;
	/* an illegal transition (RESET -> RTS) and a mask bit past the RFC's */
	mq = to_init(qpn);
	mq.qp_state = 3;
	assert_int_equal(send_cmd(&g, VRDMA_CMD_MODIFY_QP, &mq, sizeof(mq)), VRDMA_NET_ERR),
		refused++;
	mq = to_init(qpn);
	mq.attr_mask |= rte_cpu_to_le_32(1u << 17);
	assert_int_equal(send_cmd(&g, VRDMA_CMD_MODIFY_QP, &mq, sizeof(mq)), VRDMA_NET_ERR),
		refused++;
	qq.qpn = rte_cpu_to_le_32(qpn);
	assert_int_equal(send_cmd(&g, VRDMA_CMD_QUERY_QP, &qq, sizeof(qq)), VRDMA_NET_OK);
	assert_int_equal(g.in[1], 0); /* still RESET */
	/* an MR page outside guest memory; npages disagreeing with the size */
	memset(mr, 0, sizeof(mr));
	um->pdn = rte_cpu_to_le_32(pdn);
	um->length = rte_cpu_to_le_64(4096);
	um->npages = rte_cpu_to_le_32(1);
	memcpy(mr + 32, &hole, 8);
	assert_int_equal(send_cmd(&g, VRDMA_CMD_REG_USER_MR, mr, sizeof(mr)), VRDMA_NET_ERR),
		refused++;
	um->npages = rte_cpu_to_le_32(2);
	assert_int_equal(send_cmd(&g, VRDMA_CMD_REG_USER_MR, mr, sizeof(mr)), VRDMA_NET_ERR),
		refused++;
	/* access: remote atomic without local write (IBA); a bit past REMOTE_ATOMIC */
	dma.pdn = rte_cpu_to_le_32(pdn);
	dma.access_flags = rte_cpu_to_le_32(VRDMA_ACCESS_REMOTE_ATOMIC);
	assert_int_equal(send_cmd(&g, VRDMA_CMD_GET_DMA_MR, &dma, sizeof(dma)), VRDMA_NET_ERR),
		refused++;
	dma.access_flags = rte_cpu_to_le_32(1 | 1u << 4);
	assert_int_equal(send_cmd(&g, VRDMA_CMD_GET_DMA_MR, &dma, sizeof(dma)), VRDMA_NET_ERR),
		refused++;
	/* handles that do not exist */
	assert_int_equal(send_cmd(&g, VRDMA_CMD_DEREG_MR, &bad, 4), VRDMA_NET_ERR), refused++;
	assert_int_equal(send_cmd(&g, VRDMA_CMD_DESTROY_QP, &bad, 4), VRDMA_NET_ERR), refused++;
	assert_int_equal(send_cmd(&g, VRDMA_CMD_DEL_GID, &(uint16_t){ 5 }, 2), VRDMA_NET_ERR),
		refused++;
	vrdma_dev_info_get(g.dev, &info);
	assert_int_equal(info.ctrl_refused, refused);
	/* and everything created is still there, in order, and can go */
	ok_handle(&g, VRDMA_CMD_DESTROY_QP, qpn);
	ok_handle(&g, VRDMA_CMD_DESTROY_CQ, cqn);
	ok_handle(&g, VRDMA_CMD_DESTROY_PD, pdn);
	guest_down(&g);
}

/* Class 6 is RoCE only when RoCE was negotiated (upstream it is NOTF_COAL). */
static void
test_class_6_is_roce_only_when_negotiated(void **state)
{
	struct guest g;

	(void)state;
	guest_up(&g, "noroce.sock", false);
	assert_int_equal(send_cmd(&g, VRDMA_CMD_QUERY_DEVICE, NULL, 0), VRDMA_NET_ERR);
	assert_int_equal(send_cmd(&g, VRDMA_CMD_CREATE_PD, NULL, 0), VRDMA_NET_ERR);
	guest_down(&g);
}

/*
 * A chain naming memory outside the guest, a descriptor loop and an
 * indirect table longer than the ring are refused (used with 0 bytes) and
 * counted; the next command is served.
 */
static void
test_malformed_chains_are_refused_and_the_device_keeps_serving(void **state)
{
	struct vuf_buf out, in;
	struct vrdma_dev_info info;
	struct vring_desc *table;
	struct guest g;
	uint16_t head, i;

	(void)state;
	guest_up(&g, "chains.sock", true);
	/* a readable buffer outside guest memory */
	out = (struct vuf_buf){ g.out, 2 };
	in = (struct vuf_buf){ g.in, 16 };
	g.out[0] = CLASS;
	g.out[1] = VRDMA_CMD_CREATE_PD;
	head = g.ctrl.free_head;
	assert_int_equal(vuf_vq_add(&g.ctrl, &out, 1, &in, 1, &g), 0);
	((struct vring_desc *)g.ctrl.desc)[head].addr = 0x7000000000ull;
	vuf_vq_kick(&g.ctrl);
	assert_int_equal(wait_used(&g), 0);
	/* a loop: the first descriptor's next names itself */
	head = g.ctrl.free_head;
	assert_int_equal(vuf_vq_add(&g.ctrl, &out, 1, &in, 1, &g), 0);
	((struct vring_desc *)g.ctrl.desc)[head].next = head;
	vuf_vq_kick(&g.ctrl);
	assert_int_equal(wait_used(&g), 0);
	/*
	 * an indirect table longer than the ring (65 entries for a 64-entry
	 * ring, otherwise a good CREATE_PD): refused, since no chain may be
	 * longer than the queue (else a table of 2^28 looping entries would
	 * keep the device walking)
	 */
	table = vuf_mem_alloc(g.mem, 16 * 65, 16);
	assert_non_null(table);
	for (i = 0; i < 65; i++)
		table[i] = (struct vring_desc){ .addr = vuf_mem_gpa(g.mem, g.out),
						.len = i == 0 ? 2 : 0, .flags = VRING_DESC_F_NEXT,
						.next = (uint16_t)(i + 1) };
	table[64] = (struct vring_desc){ .addr = vuf_mem_gpa(g.mem, g.in), .len = 16,
					 .flags = VRING_DESC_F_WRITE };
	head = g.ctrl.free_head;
	assert_int_equal(vuf_vq_add(&g.ctrl, &out, 1, &in, 1, &g), 0);
	((struct vring_desc *)g.ctrl.desc)[head] = (struct vring_desc){
		.addr = vuf_mem_gpa(g.mem, table), .len = 16 * 65,
		.flags = VRING_DESC_F_INDIRECT };
	vuf_vq_kick(&g.ctrl);
	assert_int_equal(wait_used(&g), 0);
	vrdma_dev_info_get(g.dev, &info);
	assert_int_equal(info.vq_bad_addr, 1);
	assert_int_equal(info.vq_bad_desc, 2);
	assert_int_equal(info.ctrl_bad_chain, 3);
	assert_int_equal(info.ctrl_ok, 0); /* neither PD was created */
	assert_int_equal(create(&g, VRDMA_CMD_CREATE_PD, NULL, 0), 1);
	guest_down(&g);
}

/* Register a user MR over @p n guest pages at @p buf, expecting @p ack. @return its lkey. */
static uint32_t
reg_mr(struct guest *g, uint32_t pdn, uint8_t *buf, uint32_t n, uint8_t ack)
{
	uint8_t cmd[32 + 8 * 4];
	struct vrdma_cmd_reg_user_mr *um = (struct vrdma_cmd_reg_user_mr *)cmd;
	uint32_t i;

	memset(cmd, 0, sizeof(cmd));
	um->pdn = rte_cpu_to_le_32(pdn);
	um->access_flags = rte_cpu_to_le_32(1);
	um->virt_addr = rte_cpu_to_le_64(0x400000);
	um->length = rte_cpu_to_le_64(n * 4096ull);
	um->npages = rte_cpu_to_le_32(n);
	for (i = 0; i < n; i++) {
		uint64_t pa = rte_cpu_to_le_64(vuf_mem_gpa(g->mem, buf + i * 4096));

		memcpy(cmd + 32 + 8 * i, &pa, 8);
	}
	assert_int_equal(send_cmd(g, VRDMA_CMD_REG_USER_MR, cmd, 32 + 8 * n), ack);
	return ack_u32(g, 1);
}

/*
 * Guest memory shrinks (SET_MEM_TABLE with half the region): rte_vhost maps
 * it anew, the device reads its ring addresses again (commands still work)
 * and translates every MR again; the MR whose pages left is dropped and
 * counted, the one still inside is kept.
 */
static void
test_memory_change_retranslates_rings_and_mrs(void **state)
{
	struct vrdma_dev_info info;
	uint32_t pdn, kept, lost, le;
	uint8_t *low, *high;
	struct guest g;

	(void)state;
	guest_up(&g, "mem.sock", true);
	pdn = create(&g, VRDMA_CMD_CREATE_PD, NULL, 0);
	low = vuf_mem_alloc(g.mem, 2 * 4096, 4096);
	high = (uint8_t *)low + (MEM_SIZE - 2 * 4096 - (vuf_mem_gpa(g.mem, low) - MEM_GPA));
	assert_true(vuf_mem_gpa(g.mem, high) >= MEM_GPA + MEM_SIZE / 2);
	kept = reg_mr(&g, pdn, low, 2, VRDMA_NET_OK);
	lost = reg_mr(&g, pdn, high, 2, VRDMA_NET_OK);
	assert_int_equal(vuf_set_mem_table_size(g.c, g.mem, MEM_SIZE / 2), 0);
	/* the control ring, at its new host address, still answers */
	le = rte_cpu_to_le_32(lost);
	assert_int_equal(send_cmd(&g, VRDMA_CMD_DEREG_MR, &le, 4), VRDMA_NET_ERR);
	vrdma_dev_info_get(g.dev, &info);
	assert_int_equal(info.mrs_lost, 1);
	ok_handle(&g, VRDMA_CMD_DEREG_MR, kept);
	/* pages of the missing half are refused from now on */
	reg_mr(&g, pdn, high, 2, VRDMA_NET_ERR);
	guest_down(&g);
}

/*
 * RESET_OWNER: rte_vhost unmaps guest memory and forgets the rings; the
 * device drops every object and its view of memory at once (polling right
 * after must not touch the old mapping), and serves the frontend once it
 * sets the device up again. A second frontend on the socket is refused.
 */
static void
test_reset_owner_drops_objects_and_memory(void **state)
{
	struct vrdma_dev_info info;
	struct vuf_conn *second;
	struct guest g;
	uint64_t f;
	int i;

	(void)state;
	guest_up(&g, "owner.sock", true);
	assert_int_equal(create(&g, VRDMA_CMD_CREATE_PD, NULL, 0), 1);
	assert_int_equal(create(&g, VRDMA_CMD_CREATE_PD, NULL, 0), 2);
	second = vuf_connect(g.path, TIMEOUT_MS);
	if (second != NULL) /* accepted by the socket, then closed by the device */
		assert_int_not_equal(vuf_get_features(second, &f), 0);
	vuf_close(second);
	assert_int_equal(vuf_send(g.c, VUF_RESET_OWNER, NULL, 0, NULL, 0), 0);
	for (i = 0; i < 1000; i++)
		assert_int_equal(vrdma_dev_poll(g.dev), 0);
	vrdma_dev_info_get(g.dev, &info);
	assert_int_equal(info.rdma_resets, 1);
	assert_int_equal(info.connections, 1);
	vuf_vq_fini(&g.ctrl);
	vuf_mem_destroy(g.mem);
	guest_setup(&g, true);
	assert_int_equal(create(&g, VRDMA_CMD_CREATE_PD, NULL, 0), 1);
	guest_down(&g);
}

/*
 * SET_STATUS 0 (the driver reset the device): every ring and RDMA object
 * goes, guest memory stays; the driver sets its rings up again and starts
 * from nothing.
 */
static void
test_status_reset_drops_rings_and_objects(void **state)
{
	struct vrdma_dev_info info;
	uint64_t status = 0;
	struct guest g;
	int up[2] = { 2, 1 }, down[2] = { 2, 0 }, i;

	(void)state;
	guest_up(&g, "status.sock", true);
	assert_int_equal(vuf_set_protocol_features(g.c, (1ull << VUF_PROTOCOL_F_REPLY_ACK) |
						   (1ull << VUF_PROTOCOL_F_STATUS)), 0);
	assert_int_equal(create(&g, VRDMA_CMD_CREATE_PD, NULL, 0), 1);
	assert_int_equal(create(&g, VRDMA_CMD_CREATE_PD, NULL, 0), 2);
	assert_int_equal(vuf_send(g.c, VUF_SET_STATUS, &status, sizeof(status), NULL, 0), 0);
	for (i = 0; i < 1000; i++)
		assert_int_equal(vrdma_dev_poll(g.dev), 0);
	vrdma_dev_info_get(g.dev, &info);
	assert_int_equal(info.rdma_resets, 1);
	assert_true(ring_is(&info, down));
	/* the control ring is set up again: the numbering starts over */
	vuf_vq_fini(&g.ctrl);
	assert_int_equal(vuf_vq_init(&g.ctrl, g.mem, 2, 64), 0);
	assert_int_equal(vuf_vq_start(g.c, &g.ctrl, true), 0);
	assert_true(wait_info(g.dev, ring_is, up, &info));
	assert_int_equal(create(&g, VRDMA_CMD_CREATE_PD, NULL, 0), 1);
	guest_down(&g);
}

/*
 * A SET_MEM_TABLE rte_vhost fails (a region it cannot map, after it
 * unmapped the old ones), with a reply asked for: rte_vhost answers an
 * error, keeps the connection and skips the post-handler. The next message
 * (GET_FEATURES) lets the poller back in: the device, which dropped its
 * memory view and rings before the failed message, does nothing (it would
 * read the unmapped rings otherwise), and the next good SET_MEM_TABLE
 * brings back the rings that were running before the failed one
 * (remembered across it) with every object.
 */
static void
test_failed_memory_table_leaves_the_device_idle_until_the_next(void **state)
{
	struct {
		uint32_t nregions;
		uint32_t padding;
		uint64_t gpa, size, uaddr, offset;
	} bad = { .nregions = 1, .gpa = MEM_GPA, .size = MEM_SIZE, .uaddr = 0x7f0000000000ull };
	uint64_t features;
	struct guest g;
	int fd, i;

	(void)state;
	guest_up(&g, "badmem.sock", true);
	assert_int_equal(create(&g, VRDMA_CMD_CREATE_PD, NULL, 0), 1);
	fd = open("/dev/null", O_RDWR);
	assert_true(fd >= 0);
	/* /dev/null cannot be mapped: the message fails, the ack says so */
	assert_int_not_equal(vuf_send(g.c, VUF_SET_MEM_TABLE, &bad, sizeof(bad), &fd, 1), 0);
	close(fd);
	/* its post-handler lets the poller in again */
	assert_int_equal(vuf_get_features(g.c, &features), 0);
	for (i = 0; i < 1000; i++)
		assert_int_equal(vrdma_dev_poll(g.dev), 0);
	assert_int_equal(vuf_set_mem_table(g.c, g.mem), 0);
	/* the control ring serves again at its address, the PD is still there */
	assert_int_equal(create(&g, VRDMA_CMD_CREATE_PD, NULL, 0), 2);
	guest_down(&g);
}

/* A disconnect destroys every object: a new connection starts from nothing. */
static void
test_disconnect_destroys_every_object(void **state)
{
	struct vrdma_cmd_create_cq cq = { .cqe = rte_cpu_to_le_32(16) };
	struct vrdma_cmd_create_qp qp;
	struct vrdma_dev_info info;
	uint32_t pdn, cqn, qpn;
	struct guest g;

	(void)state;
	guest_up(&g, "reset.sock", true);
	pdn = create(&g, VRDMA_CMD_CREATE_PD, NULL, 0);
	cqn = create(&g, VRDMA_CMD_CREATE_CQ, &cq, sizeof(cq));
	qp = qp_cmd(pdn, 2, cqn);
	qpn = create(&g, VRDMA_CMD_CREATE_QP, &qp, sizeof(qp));
	/* the same frontend reconnects */
	vuf_close(g.c);
	vuf_vq_fini(&g.ctrl);
	vuf_mem_destroy(g.mem);
	assert_true(wait_info(g.dev, no_vid, NULL, &info));
	assert_int_equal(info.rdma_resets, 1);
	g.c = vuf_connect(g.path, TIMEOUT_MS);
	assert_non_null(g.c);
	assert_true(wait_info(g.dev, has_vid, NULL, &info));
	guest_setup(&g, true);
	/* the old handles are unknown; numbering starts again */
	assert_int_equal(send_cmd(&g, VRDMA_CMD_DESTROY_QP, &(uint32_t){ rte_cpu_to_le_32(qpn) },
				  4), VRDMA_NET_ERR);
	assert_int_equal(create(&g, VRDMA_CMD_CREATE_PD, NULL, 0), pdn);
	guest_down(&g);
	assert_int_equal(rte_mempool_avail_count(test_pool), TEST_POOL_SIZE);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_command_answers_with_its_ack_data),
		cmocka_unit_test(test_invalid_commands_are_refused_without_change),
		cmocka_unit_test(test_class_6_is_roce_only_when_negotiated),
		cmocka_unit_test(test_malformed_chains_are_refused_and_the_device_keeps_serving),
		cmocka_unit_test(test_memory_change_retranslates_rings_and_mrs),
		cmocka_unit_test(test_reset_owner_drops_objects_and_memory),
		cmocka_unit_test(test_status_reset_drops_rings_and_objects),
		cmocka_unit_test(test_failed_memory_table_leaves_the_device_idle_until_the_next),
		cmocka_unit_test(test_disconnect_destroys_every_object),
		cmocka_unit_test(test_path_mtu_is_clamped_to_the_wire),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests_name("vrdma_ctrl", tests, group_up, group_down);
}
