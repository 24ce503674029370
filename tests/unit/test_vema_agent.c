/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * lib/vema's agent without EAL: the EM's configuration flow, state kept on
 * every rejected request, reply addressing, traps and their rate limit.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "test_case.h"
#include "vema_test_util.h"

/* --- 3. the EM flow --- */

/* GET/SET CPI, SET VESWPORT_INFO, 300 MAC entries in chunks of 125, GET
 * them back, counters at their offsets, DELETE_VESW resets the vport.
 */
static void
test_em_flow_end_to_end(void **state)
{
	struct vema_agent *a = agent_new();
	struct vnic_txq_stats txq[2];
	struct vnic_rxq_stats rxq[1];
	struct vnic_vesw_info v, vb;
	struct vnic_port_info p, pb;
	struct vema_class_port_info cpi;
	struct vema_mac_tbl_hdr th;
	struct vnic_mac_entry e;
	const struct vnic_policy *pol;
	struct vnic_vport *vp;
	uint8_t d[VEMA_DATA_LEN];
	struct reply r;
	unsigned int off, n, i;
	size_t len;

	(void)state;
	/* 1-2: ClassPortInfo */
	assert_int_equal(do_req(a, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0, NULL, 0, &r),
			 VEMA_STATUS_OK);
	expect_be(r.data, 60, 4, 0, "trap_lid before SET");
	assert_int_equal(set_cpi(a, TRAP_LID, TRAP_SL << 3, &r), VEMA_STATUS_OK);
	expect_be(r.data, 60, 4, TRAP_LID, "trap_lid");
	expect_be(r.data, 76, 1, TRAP_SL << 3, "trap_sl_rsvd");
	vema_agent_cpi(a, &cpi);
	assert_int_equal(cpi.trap_lid, TRAP_LID);

	/* 3: VESWPORT_INFO, FORWARDING */
	vport_cfg(&v, &p, 0x2AB, 3, VNIC_STATE_FORWARDING);
	assert_int_equal(set_vport(a, 3, &v, &p, &r), VEMA_STATUS_OK);
	vema_veswport_info_decode(r.data, &vb, &pb);
	assert_int_equal(vb.vesw_id, 0x2AB);
	assert_int_equal(pb.config_state, VNIC_STATE_FORWARDING);
	assert_int_equal(pb.oper_state, VNIC_STATE_DROP_ALL);
	vp = vema_agent_vport(a, 3);
	assert_non_null(vp);
	assert_int_equal(vema_agent_nb_vports(a), 1);

	/* 4: 300 MAC entries in chunks of 125; each reply is a GET of the range */
	for (off = 0; off < 300; off += n) {
		n = 300 - off < VEMA_MAC_ENTRIES_MAX ? 300 - off : VEMA_MAC_ENTRIES_MAX;
		len = mac_payload(d, off, n, 0xD1600000u + off, off);
		assert_int_equal(do_req(a, VEMA_METHOD_SET, VEMA_ATTR_MAC_ENTRIES, 3, d, len, &r),
				 VEMA_STATUS_OK);
		expect_bytes(r.data, 0, d, len, "SET MAC entries reply");
		expect_fill(r.data, len, VEMA_DATA_LEN, 0, "past the entries");
	}
	/* GET them back, in other chunks */
	for (off = 0; off < 400; off += n) {
		n = 100;
		memset(d, 0, sizeof(d));
		mac_payload(d, off, 0, 0, 0);
		d[3] = n;
		assert_int_equal(do_req(a, VEMA_METHOD_GET, VEMA_ATTR_MAC_ENTRIES, 3, d, 8, &r),
				 VEMA_STATUS_OK);
		vema_mac_tbl_hdr_decode(r.data, &th);
		assert_int_equal(th.offset, off);
		assert_int_equal(th.num_entries, n);
		assert_int_equal(th.digest, 0xD1600000u + 250);
		for (i = 0; i < n; i++) {
			uint8_t ent[16];

			if (off + i < 300) {
				mac_entry(off + i, &e);
				vema_mac_entry_encode(ent, &e);
			} else {
				memset(ent, 0, sizeof(ent));
			}
			expect_bytes(r.data, 8 + 16 * i, ent, 16, "MAC entry");
		}
	}
	pol = vnic_vport_policy(vp);
	assert_int_equal(pol->mac.nb_entries, 300);
	assert_int_equal(pol->port.mac_tbl_digest, 0xD1600000u + 250);
	mac_entry(1, &e);
	assert_int_equal(vnic_mac_tbl_lookup(&pol->mac, &e.mac), 0x1001);
	mac_entry(299, &e);
	assert_int_equal(vnic_mac_tbl_lookup(&pol->mac, &e.mac), 0x1000 + 299);
	assert_int_equal(do_req(a, VEMA_METHOD_GET, VEMA_ATTR_VESWPORT_INFO, 3, NULL, 0, &r),
			 VEMA_STATUS_OK);
	expect_be(r.data, 152 + 20, 4, 0xD1600000u + 250, "mac_tbl_digest");

	/* 5: counters, with per-queue counters attached */
	memset(txq, 0, sizeof(txq));
	memset(rxq, 0, sizeof(rxq));
	txq[0].packets = 100;
	txq[0].bytes = 6400;
	txq[0].grp = (struct vnic_grp_stats){ 60, 40, 70, 30, { 10, 11, 12, 13, 14, 15, 16 } };
	txq[0].dlid_zero = 3;
	txq[0].drop_state = 4;
	txq[0].fifo = 5;
	txq[0].carrier = 6;
	txq[1].packets = 1000;
	txq[1].bytes = 1000000;
	txq[1].grp = (struct vnic_grp_stats){ 900, 100, 500, 500,
					      { 100, 101, 102, 103, 104, 105, 106 } };
	txq[1].dlid_zero = 30;
	txq[1].drop_state = 40;
	txq[1].fifo = 50;
	txq[1].carrier = 60;
	rxq[0].packets = 7777;
	rxq[0].bytes = 0x123456789Aull;
	rxq[0].grp = (struct vnic_grp_stats){ 7000, 777, 7700, 77,
					      { 1, 1001, 2001, 3001, 4001, 5001, 6001 } };
	rxq[0].drop_state = 11;
	rxq[0].runt = 12;
	rxq[0].oversize = 13;
	rxq[0].fifo = 14;
	rxq[0].bad_veswid = 15;
	vnic_vport_attach_stats(vp, txq, 2, rxq, 1);

	assert_int_equal(do_req(a, VEMA_METHOD_GET, VEMA_ATTR_SUMMARY_COUNTERS, 3, NULL, 0, &r),
			 VEMA_STATUS_OK);
	expect_be(r.data, 0, 2, 3, "vp_instance");
	expect_be(r.data, 2, 2, 0x2AB, "vesw_id");
	expect_be(r.data, 4, 4, 0x1003, "veswport_num = port_num");
	expect_be(r.data, 8, 8, 198, "tx_errors");
	expect_be(r.data, 16, 8, 65, "rx_errors");
	expect_be(r.data, 24, 8, 1100, "tx_packets");
	expect_be(r.data, 32, 8, 7777, "rx_packets");
	expect_be(r.data, 40, 8, 1006400, "tx_bytes");
	expect_be(r.data, 48, 8, 0x123456789Aull, "rx_bytes");
	expect_be(r.data, 56, 8, 960, "tx_unicast");
	expect_be(r.data, 64, 8, 140, "tx_mcastbcast");
	expect_be(r.data, 72, 8, 570, "tx_untagged");
	expect_be(r.data, 80, 8, 530, "tx_vlan");
	for (i = 0; i < 7; i++)
		expect_be(r.data, 88 + 8 * i, 8, 110 + 2 * i, "tx size bucket");
	expect_be(r.data, 144, 8, 7000, "rx_unicast");
	expect_be(r.data, 152, 8, 777, "rx_mcastbcast");
	expect_be(r.data, 160, 8, 7700, "rx_untagged");
	expect_be(r.data, 168, 8, 77, "rx_vlan");
	for (i = 0; i < 7; i++)
		expect_be(r.data, 176 + 8 * i, 8, 1000 * i + 1, "rx size bucket");
	expect_fill(r.data, 232, VEMA_DATA_LEN, 0, "past the summary counters");

	assert_int_equal(do_req(a, VEMA_METHOD_GET, VEMA_ATTR_ERROR_COUNTERS, 3, NULL, 0, &r),
			 VEMA_STATUS_OK);
	expect_be(r.data, 0, 8, 0x000302AB00001003ull, "error counters header");
	expect_be(r.data, 8, 8, 198, "tx_errors");
	expect_be(r.data, 16, 8, 65, "rx_errors");
	expect_be(r.data, 24, 8, 0, "reserved 24");
	expect_be(r.data, 32, 8, 0, "tx_smac_filt");
	expect_be(r.data, 64, 8, 33, "tx_dlid_zero");
	expect_be(r.data, 80, 8, 121, "tx_logic");
	expect_be(r.data, 96, 8, 44, "tx_drop_state");
	expect_be(r.data, 104, 8, 15, "rx_bad_veswid");
	expect_be(r.data, 120, 8, 12, "rx_runt");
	expect_be(r.data, 128, 8, 13, "rx_oversize");
	expect_be(r.data, 144, 8, 0, "rx_eth_down");
	expect_be(r.data, 152, 8, 11, "rx_drop_state");
	expect_be(r.data, 160, 8, 14, "rx_logic");
	expect_fill(r.data, 168, VEMA_DATA_LEN, 0, "past the error counters");

	/* 6: DELETE_VESW resets to power-on and clears the MAC table */
	assert_int_equal(do_req(a, VEMA_METHOD_SET, VEMA_ATTR_DELETE_VESW, 3, NULL, 0, &r),
			 VEMA_STATUS_OK);
	assert_int_equal(vema_agent_nb_vports(a), 1);
	assert_ptr_equal(vema_agent_vport(a, 3), vp);
	assert_int_equal(do_req(a, VEMA_METHOD_GET, VEMA_ATTR_VESWPORT_INFO, 3, NULL, 0, &r),
			 VEMA_STATUS_OK);
	vema_veswport_info_decode(r.data, &vb, &pb);
	vnic_info_defaults(&v, &p);
	assert_memory_equal(&vb, &v, sizeof(v));
	assert_memory_equal(&pb, &p, sizeof(p));
	memset(d, 0, sizeof(d));
	d[3] = 125;
	assert_int_equal(do_req(a, VEMA_METHOD_GET, VEMA_ATTR_MAC_ENTRIES, 3, d, 8, &r),
			 VEMA_STATUS_OK);
	expect_be(r.data, 0, 8, 0x007D00000000ull, "MAC header after DELETE_VESW");
	expect_fill(r.data, 8, VEMA_DATA_LEN, 0, "MAC entries after DELETE_VESW");
	assert_int_equal(vnic_vport_policy(vp)->mac.nb_entries, 0);
	vema_agent_cpi(a, &cpi);
	assert_int_equal(cpi.trap_lid, TRAP_LID);

	vnic_vport_attach_stats(vp, NULL, 0, NULL, 0);
	vema_agent_free(a);
}

/* --- 4. rejected requests change nothing --- */

struct snap {
	unsigned int nb;
	struct vnic_policy *pol[VEMA_VPORTS_MAX];
	struct vema_class_port_info cpi;
};

static void
snap_take(const struct vema_agent *a, struct snap *s)
{
	unsigned int i;

	s->nb = vema_agent_nb_vports(a);
	for (i = 0; i < VEMA_VPORTS_MAX; i++) {
		struct vnic_vport *vp = vema_agent_vport(a, i);

		s->pol[i] = NULL;
		if (vp == NULL)
			continue;
		s->pol[i] = malloc(sizeof(*s->pol[i]));
		assert_non_null(s->pol[i]);
		memcpy(s->pol[i], vnic_vport_policy(vp), sizeof(*s->pol[i]));
	}
	memset(&s->cpi, 0, sizeof(s->cpi));
	vema_agent_cpi(a, &s->cpi);
}

static void
snap_check(const struct vema_agent *a, const struct snap *s, const char *what)
{
	struct vema_class_port_info cpi;
	unsigned int i;

	if (vema_agent_nb_vports(a) != s->nb)
		fail_msg("%s: vport count %u, was %u", what, vema_agent_nb_vports(a), s->nb);
	for (i = 0; i < VEMA_VPORTS_MAX; i++) {
		struct vnic_vport *vp = vema_agent_vport(a, i);

		if ((vp == NULL) != (s->pol[i] == NULL))
			fail_msg("%s: vport %u appeared or vanished", what, i);
		if (vp != NULL &&
		    memcmp(vnic_vport_policy(vp), s->pol[i], sizeof(*s->pol[i])) != 0)
			fail_msg("%s: vport %u policy changed", what, i);
	}
	memset(&cpi, 0, sizeof(cpi));
	vema_agent_cpi(a, &cpi);
	if (memcmp(&cpi, &s->cpi, sizeof(cpi)) != 0)
		fail_msg("%s: ClassPortInfo changed", what);
}

static void
snap_free(struct snap *s)
{
	unsigned int i;

	for (i = 0; i < VEMA_VPORTS_MAX; i++)
		free(s->pol[i]);
}

/* Valid state-changing requests, to be spoiled. */
static void
good_set_vport(struct req *q, uint32_t mod)
{
	struct vnic_vesw_info v;
	struct vnic_port_info p;

	vport_cfg(&v, &p, 0x321, mod & 0xFF, VNIC_STATE_DROP_ALL);
	v.eth_mtu = 4000;
	p.base_mac_addr.addr_bytes[1] = 0x99;
	req_init(q, VEMA_METHOD_SET, VEMA_ATTR_VESWPORT_INFO, mod);
	vema_veswport_info_encode(req_data(q), &v, &p);
}

static void
good_set_mac(struct req *q, uint32_t mod)
{
	req_init(q, VEMA_METHOD_SET, VEMA_ATTR_MAC_ENTRIES, mod);
	mac_payload(req_data(q), 10, 5, 0x5E75E7, 500);
}

static void
good_set_cpi(struct req *q, uint32_t mod)
{
	struct vema_class_port_info c;

	memset(&c, 0, sizeof(c));
	c.trap_lid = 0x999;
	c.trap_sl_rsvd = 3 << 3;
	req_init(q, VEMA_METHOD_SET, VEMA_ATTR_CLASS_PORT_INFO, mod);
	vema_cpi_encode(req_data(q), &c);
}

static void
good_delete(struct req *q, uint32_t mod)
{
	req_init(q, VEMA_METHOD_SET, VEMA_ATTR_DELETE_VESW, mod);
}

typedef void (*good_fn)(struct req *q, uint32_t mod);

/*
 * Rejected request number @p i (false past the last): a valid SET spoiled
 * one way. @p drop is set when it must be dropped rather than answered.
 */
static bool
rejected_req(unsigned int i, struct req *q, bool *drop)
{
	static const good_fn goods[] = { good_set_vport, good_set_mac, good_set_cpi,
					 good_delete };
	static const struct {
		size_t off;
		uint8_t v;
	} hdr_spoil[] = {
		/* drops */
		{ 0, 0x01 }, { 3, 0x82 }, { 3, 0x07 }, { 26, 0x01 },
		/* 0x000C / 0x0004 / 0x001C */
		{ 1, 0x35 }, { 39, 0x6B }, { 2, 0x81 }, { 3, 0x03 }, { 3, 0x05 },
		{ 5, 0x01 }, { 7, 0x01 }, { 19, 0x01 }, { 25, 0x01 }, { 26, 0x02 },
		{ 27, 0x01 }, { 31, 0x01 }, { 35, 0x01 }, { 36, 0x01 },
	};
	const unsigned int nh = sizeof(hdr_spoil) / sizeof(hdr_spoil[0]);
	struct vnic_vesw_info v;
	struct vnic_port_info p;

	*drop = false;
	/* every header spoil on every kind of SET */
	if (i < nh * 4) {
		goods[i % 4](q, 0);
		q->mad[hdr_spoil[i / 4].off] = hdr_spoil[i / 4].v;
		*drop = i / 4 < 4;
		return true;
	}
	i -= nh * 4;
	/* packet-level drops */
	if (i < 4 * 4) {
		goods[i % 4](q, 0);
		switch (i / 4) {
		case 0:
			q->bad_l4 = true;
			break;
		case 1:
			q->f.dest_qpn = 0;
			break;
		case 2:
			q->f.dlid = AGENT_LID + 1;
			break;
		default:
			q->cap = VEMA_PKT_MAX - 8;
			break;
		}
		*drop = true;
		return true;
	}
	i -= 4 * 4;
	/* reserved attr_mod bits, on a vport that exists and one that does not */
	if (i < 4 * 2) {
		goods[i % 4](q, i / 4 == 0 ? 0x100 : 0x102);
		return true;
	}
	i -= 4 * 2;
	/* invalid VESWPORT_INFO values, on vport 0 and on absent vport 2 */
	if (i < NB_BAD_CFGS * 2) {
		vport_cfg(&v, &p, 0x321, 0, VNIC_STATE_FORWARDING);
		bad_cfgs[i / 2].fn(&v, &p);
		req_init(q, VEMA_METHOD_SET, VEMA_ATTR_VESWPORT_INFO, i % 2 ? 2 : 0);
		vema_veswport_info_encode(req_data(q), &v, &p);
		return true;
	}
	i -= NB_BAD_CFGS * 2;
	switch (i) {
	case 0: /* MAD shorter than its header */
		good_set_vport(q, 0);
		q->mad_len = 32;
		*drop = true;
		return true;
	case 1: /* another class, another method */
		good_set_vport(q, 0);
		q->mad[1] = 0x04;
		q->mad[3] = 0x05;
		*drop = true;
		return true;
	case 2:
		good_set_mac(q, 2); /* absent vport */
		return true;
	case 3:
		good_delete(q, 2);
		return true;
	case 4:
		good_set_cpi(q, 1);
		return true;
	case 5:
		good_set_mac(q, 0);
		req_data(q)[3] = 126;
		return true;
	case 6:
		good_set_mac(q, 0);
		req_data(q)[0] = 2000 >> 8;
		req_data(q)[1] = 2000 & 0xFF;
		req_data(q)[3] = 49;
		return true;
	case 7:
		good_set_mac(q, 0);
		q->mad_len = VEMA_HDR_LEN + 8 + 4 * 16;
		return true;
	case 8:
		good_set_vport(q, 0);
		q->mad_len = VEMA_HDR_LEN + 272;
		return true;
	case 9:
		good_set_vport(q, 2);
		q->mad_len = VEMA_HDR_LEN + 272;
		return true;
	case 10:
		good_set_cpi(q, 0);
		req_data(q)[60] = 0x01; /* trap_lid bit 24 */
		return true;
	case 11:
		good_set_cpi(q, 0);
		req_data(q)[76] |= 0x04;
		return true;
	case 12:
		good_set_cpi(q, 0);
		q->mad_len = VEMA_HDR_LEN + 72;
		return true;
	case 13:
		good_set_vport(q, 0);
		q->mad[3] = VEMA_METHOD_GET;
		q->mad[17] = VEMA_ATTR_DELETE_VESW;
		return true;
	case 14:
		req_init(q, VEMA_METHOD_SET, VEMA_ATTR_SUMMARY_COUNTERS, 0);
		memset(req_data(q), 0xFF, VEMA_SUMMARY_LEN);
		return true;
	case 15:
		req_init(q, VEMA_METHOD_SET, VEMA_ATTR_IFACE_UCAST_MACS, 0);
		memset(req_data(q), 0x02, 64);
		return true;
	case 16:
		good_set_vport(q, 0);
		q->mad[17] = 0x19; /* unknown attribute */
		return true;
	default:
		return false;
	}
}

/* No rejected request (dropped or answered with an error) changes any
 * vport's policy, the vport count or the ClassPortInfo.
 */
static void
test_rejected_requests_leave_state_unchanged(void **state)
{
	struct vema_agent *a = agent_new();
	struct vnic_vport *vp;
	struct rte_ether_addr uc = { { 0x02, 0, 0, 0, 0, 0x55 } };
	uint8_t d[VEMA_DATA_LEN];
	struct snap s;
	struct req q;
	struct reply r;
	unsigned int i, n = 0;
	bool drop;
	int st;
	char what[64];

	(void)state;
	assert_int_equal(set_cpi(a, TRAP_LID, TRAP_SL << 3, &r), VEMA_STATUS_OK);
	vp = add_vport(a, 0, 0x10, VNIC_STATE_FORWARDING);
	assert_int_equal(vnic_vport_set_carrier(vp, true), 0);
	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_UCAST, &uc, 1), 1);
	add_vport(a, 1, 0x11, VNIC_STATE_FORWARDING);
	for (i = 0; i < 2; i++) {
		size_t len = mac_payload(d, 0, 20, 0xAB00 + i, 40 * i);

		assert_int_equal(do_req(a, VEMA_METHOD_SET, VEMA_ATTR_MAC_ENTRIES, i, d, len, &r),
				 VEMA_STATUS_OK);
	}
	snap_take(a, &s);
	for (i = 0; rejected_req(i, &q, &drop); i++) {
		snprintf(what, sizeof(what), "rejected request %u", i);
		st = req_send(a, &q, &r);
		if (drop && st != -1)
			fail_msg("%s: expected a drop, got status 0x%04x", what, st);
		if (!drop && st <= 0)
			fail_msg("%s: expected an error status, got %d", what, st);
		snap_check(a, &s, what);
		n++;
	}
	assert_true(n > 100);
	snap_free(&s);
	vema_agent_free(a);
}

/* --- 5. addressing --- */

/* Replies go from the agent's LID and QP 1 to the requester's LID and QP,
 * with the request's P_Key; error replies too.
 */
static void
test_reply_addressing(void **state)
{
	const uint32_t src_qpns[] = { 1, EM_QPN, OPA16B_QPN_MAX };
	struct vema_agent *a = agent_new();
	struct req q;
	struct reply r;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(src_qpns) / sizeof(src_qpns[0]); i++) {
		req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0);
		q.f.src_qpn = src_qpns[i];
		q.f.slid = EM_LID + i * 0x100000;
		q.f.pkey = EM_PKEY + i;
		if (i == 2)
			q.mad[1] = 0x35; /* an error reply */
		assert_true(req_send(a, &q, &r) >= 0);
		assert_int_equal(r.info.f.slid, AGENT_LID);
		assert_int_equal(r.info.f.dlid, EM_LID + i * 0x100000);
		assert_int_equal(r.info.f.dest_qpn, src_qpns[i]);
		assert_int_equal(r.info.f.src_qpn, OPA16B_QPN_GSI);
		assert_int_equal(r.info.f.pkey, EM_PKEY + i);
		assert_int_equal(opa16b_get_l4(r.pkt), OPA16B_L4_FM);
		assert_int_equal(opa16b_get_len(r.pkt) * 8, REPLY_LEN);
		expect_be(r.info.mad, 8, 8, next_tid - 1, "reply TID");
	}
	vema_agent_free(a);
}

/* --- 6. traps --- */

/* A trap packet: addressing (3.5) and Notice content; returns its TID. */
static uint64_t
check_trap(const uint8_t *pkt, size_t len, struct vnic_vport *vp, uint8_t opcode)
{
	const struct vnic_policy *p = vnic_vport_policy(vp);
	struct opa16b_fm_info info;
	struct vema_trap t;
	const uint8_t *m, *n;

	assert_int_equal(len, TRAP_PKT_LEN);
	assert_int_equal(opa16b_fm_parse(pkt, len, &info), OPA16B_FM_OK);
	assert_int_equal(info.f.slid, AGENT_LID);
	assert_int_equal(info.f.dlid, TRAP_LID);
	assert_int_equal(info.f.sc, TRAP_SL);
	assert_int_equal(info.f.pkey, MGMT_PKEY);
	assert_int_equal(info.f.dest_qpn, 1);
	assert_int_equal(info.f.src_qpn, 1);
	assert_int_equal(info.mad_len, 272);
	m = info.mad;
	expect_be(m, 0, 4, 0x80348005, "trap versions, class, method");
	expect_be(m, 4, 4, 0, "trap status, class_specific");
	expect_be(m, 16, 2, 0x0002, "trap attr_id");
	expect_be(m, 18, 6, 0, "trap resv, attr_mod");
	expect_fill(m, 24, 37, 0, "trap RMPP and reserved");
	expect_be(m, 37, 3, 0x00066A, "trap OUI");
	n = m + 40;
	expect_be(n, 0, 1, 0x08, "gen_type");
	expect_be(n, 1, 3, 0x00066A, "notice OUI");
	expect_be(n, 4, 4, 0, "trap_num, toggle_count");
	expect_be(n, 8, 4, p->port.encap_slid, "issuer_lid");
	expect_fill(n, 12, 32, 0, "issuer_gid");
	expect_be(n, 32, 2, p->vesw.fabric_id, "fabric_id");
	expect_be(n, 34, 2, p->vesw.vesw_id, "veswid");
	expect_be(n, 36, 4, p->port.port_num, "veswportnum");
	expect_be(n, 40, 2, AGENT_PORT, "opaportnum");
	expect_be(n, 42, 1, vnic_vport_index(vp), "veswportindex");
	expect_be(n, 43, 1, opcode, "opcode");
	expect_fill(n, 44, 232, 0, "rest of the trap data");
	assert_int_equal(vema_notice_decode(n, &t), 0);
	assert_int_equal(t.opcode, opcode);
	return be_at(m, 8, 8);
}

/* A trap agent: trap LID set, events of the setup drained. */
static struct vema_agent *
trap_agent(void)
{
	struct vema_agent *a = agent_new();
	struct reply r;

	assert_int_equal(set_cpi(a, TRAP_LID, TRAP_SL << 3, &r), VEMA_STATUS_OK);
	return a;
}

/* SET VESWPORT_INFO FORWARDING with carrier up brings the link up: one
 * ETH_LINK_STATUS_CHANGE trap; carrier loss sends another.
 */
static void
test_trap_link_change_on_forwarding(void **state)
{
	struct vema_agent *a = trap_agent();
	const struct vema_agent_stats *st = vema_agent_stats(a);
	uint8_t pkt[VEMA_PKT_MAX];
	struct vnic_vport *vp;
	struct reply r;
	uint64_t tid;
	size_t n;

	(void)state;
	vp = add_vport(a, 5, 0x55, VNIC_STATE_DROP_ALL);
	assert_int_equal(vnic_vport_set_carrier(vp, true), 0);
	assert_int_equal(vema_agent_poll(a, 1, pkt, sizeof(pkt)), 0); /* link still down */
	assert_int_equal(st->traps, 0);

	add_vport(a, 5, 0x55, VNIC_STATE_FORWARDING);
	assert_int_equal(do_req(a, VEMA_METHOD_GET, VEMA_ATTR_VESWPORT_INFO, 5, NULL, 0, &r),
			 VEMA_STATUS_OK);
	expect_be(r.data, 152 + 4, 1, VNIC_LINK_UP, "eth_link_status");
	expect_be(r.data, 152 + 15, 1, VNIC_STATE_FORWARDING, "oper_state");
	n = vema_agent_poll(a, 2, pkt, sizeof(pkt));
	tid = check_trap(pkt, n, vp, VEMA_TRAP_LINK_STATUS_CHANGE);
	assert_int_equal(vema_agent_poll(a, 3, pkt, sizeof(pkt)), 0);
	assert_int_equal(st->traps, 1);

	assert_int_equal(vnic_vport_set_carrier(vp, false), 0);
	n = vema_agent_poll(a, 4, pkt, sizeof(pkt));
	assert_int_equal(check_trap(pkt, n, vp, VEMA_TRAP_LINK_STATUS_CHANGE), tid + 1);
	assert_int_equal(vema_agent_poll(a, 5, pkt, sizeof(pkt)), 0);
	assert_int_equal(st->traps, 2);
	vema_agent_free(a);
}

/* Interface list changes send UCAST/MCAST_MAC_CHANGE traps with increasing
 * TIDs; setting an unchanged list sends nothing.
 */
static void
test_trap_mac_change_after_iface_macs(void **state)
{
	struct vema_agent *a = trap_agent();
	struct rte_ether_addr uc[2] = { { { 0x02, 1, 2, 3, 4, 5 } }, { { 0x02, 1, 2, 3, 4, 6 } } };
	struct rte_ether_addr mc = { { 0x01, 0x00, 0x5E, 0, 0, 1 } };
	uint8_t pkt[VEMA_PKT_MAX];
	struct vnic_vport *vp;
	uint64_t tid;
	size_t n;

	(void)state;
	vp = add_vport(a, 1, 0x77, VNIC_STATE_FORWARDING);
	assert_int_equal(vema_agent_poll(a, 1, pkt, sizeof(pkt)), 0);

	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_UCAST, uc, 2), 1);
	n = vema_agent_poll(a, 2, pkt, sizeof(pkt));
	tid = check_trap(pkt, n, vp, VEMA_TRAP_UCAST_MAC_CHANGE);
	assert_int_equal(vema_agent_poll(a, 2, pkt, sizeof(pkt)), 0);

	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_MCAST, &mc, 1), 1);
	n = vema_agent_poll(a, 3, pkt, sizeof(pkt));
	assert_int_equal(check_trap(pkt, n, vp, VEMA_TRAP_MCAST_MAC_CHANGE), tid + 1);

	/* unchanged lists: no event, no trap */
	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_UCAST, uc, 2), 0);
	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_MCAST, &mc, 1), 0);
	assert_int_equal(vema_agent_poll(a, 4, pkt, sizeof(pkt)), 0);

	/* both lists at once: two traps, unicast first */
	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_MCAST, NULL, 0), 1);
	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_UCAST, uc, 1), 1);
	n = vema_agent_poll(a, 5, pkt, sizeof(pkt));
	assert_int_equal(check_trap(pkt, n, vp, VEMA_TRAP_UCAST_MAC_CHANGE), tid + 2);
	n = vema_agent_poll(a, 5, pkt, sizeof(pkt));
	assert_int_equal(check_trap(pkt, n, vp, VEMA_TRAP_MCAST_MAC_CHANGE), tid + 3);
	assert_int_equal(vema_agent_poll(a, 5, pkt, sizeof(pkt)), 0);
	assert_int_equal(vema_agent_stats(a)->traps, 4);
	vema_agent_free(a);
}

/* Without a trap LID nothing is sent and events are counted in
 * traps_no_lid (not kept for later); once set, new events are sent.
 */
static void
test_trap_none_without_trap_lid(void **state)
{
	struct vema_agent *a = agent_new();
	const struct vema_agent_stats *st = vema_agent_stats(a);
	struct rte_ether_addr uc = { { 0x02, 1, 2, 3, 4, 5 } };
	uint8_t pkt[VEMA_PKT_MAX];
	struct vnic_vport *vp;
	struct reply r;
	size_t n;

	(void)state;
	vp = add_vport(a, 0, 0x10, VNIC_STATE_FORWARDING);
	assert_int_equal(vnic_vport_set_carrier(vp, true), 0);
	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_UCAST, &uc, 1), 1);
	assert_int_equal(vema_agent_poll(a, 1, pkt, sizeof(pkt)), 0);
	assert_int_equal(st->traps, 0);
	assert_int_equal(st->traps_no_lid, 2);

	assert_int_equal(set_cpi(a, TRAP_LID, TRAP_SL << 3, &r), VEMA_STATUS_OK);
	assert_int_equal(vema_agent_poll(a, 2, pkt, sizeof(pkt)), 0);
	assert_int_equal(st->traps, 0);

	assert_int_equal(vnic_vport_set_carrier(vp, false), 0);
	n = vema_agent_poll(a, 3, pkt, sizeof(pkt));
	check_trap(pkt, n, vp, VEMA_TRAP_LINK_STATUS_CHANGE);
	assert_int_equal(st->traps, 1);
	assert_int_equal(st->traps_no_lid, 2);
	vema_agent_free(a);
}

/* At most 4 traps per window and vport (as Linux): 6 link changes on one
 * vport give 4 traps now and the other 2 once now_ns has advanced by
 * VEMA_TRAP_WINDOW_NS, none lost, TIDs in order; a second vport's traps are
 * not held back by the first one's full window.
 */
static void
test_trap_rate_limit_defers_not_loses(void **state)
{
	struct vema_agent *a = trap_agent();
	const struct vema_agent_stats *st = vema_agent_stats(a);
	const uint64_t t0 = 1000000;
	uint8_t pkt[VEMA_PKT_MAX];
	struct vnic_vport *vp[2];
	uint64_t tid = 0, t;
	unsigned int k;
	size_t n;

	(void)state;
	vp[0] = add_vport(a, 0, 0x10, VNIC_STATE_FORWARDING);
	vp[1] = add_vport(a, 1, 0x11, VNIC_STATE_FORWARDING);
	assert_int_equal(drain_traps(a, 0), 0);
	/* four link changes on vport 0, each sent at once */
	for (k = 0; k < 4; k++) {
		assert_int_equal(vnic_vport_set_carrier(vp[0], k % 2 == 0), 0);
		n = vema_agent_poll(a, t0, pkt, sizeof(pkt));
		t = check_trap(pkt, n, vp[0], VEMA_TRAP_LINK_STATUS_CHANGE);
		if (k > 0)
			assert_int_equal(t, tid + 1);
		tid = t;
	}
	/* the fifth and sixth wait for the next window... */
	assert_int_equal(vnic_vport_set_carrier(vp[0], true), 0);
	assert_int_equal(vnic_vport_set_iface_macs(vp[0], VNIC_LIST_UCAST,
						   &vnic_vport_policy(vp[1])->port.base_mac_addr, 1),
			 1);
	assert_int_equal(vema_agent_poll(a, t0, pkt, sizeof(pkt)), 0);
	assert_int_equal(vema_agent_poll(a, t0 + VEMA_TRAP_WINDOW_NS - 1, pkt, sizeof(pkt)), 0);
	assert_int_equal(st->traps, 4);
	assert_true(st->traps_deferred >= 2);
	/* ...while vport 1 still sends in this window */
	assert_int_equal(vnic_vport_set_carrier(vp[1], true), 0);
	n = vema_agent_poll(a, t0 + 1, pkt, sizeof(pkt));
	tid = check_trap(pkt, n, vp[1], VEMA_TRAP_LINK_STATUS_CHANGE);
	/* next window: both held traps, unicast MAC change first */
	n = vema_agent_poll(a, t0 + VEMA_TRAP_WINDOW_NS, pkt, sizeof(pkt));
	assert_int_equal(check_trap(pkt, n, vp[0], VEMA_TRAP_UCAST_MAC_CHANGE), tid + 1);
	n = vema_agent_poll(a, t0 + VEMA_TRAP_WINDOW_NS, pkt, sizeof(pkt));
	assert_int_equal(check_trap(pkt, n, vp[0], VEMA_TRAP_LINK_STATUS_CHANGE), tid + 2);
	assert_int_equal(vema_agent_poll(a, t0 + VEMA_TRAP_WINDOW_NS, pkt, sizeof(pkt)), 0);
	assert_int_equal(st->traps, 7);
	assert_int_equal(st->traps_no_lid, 0);
	vema_agent_free(a);
}

/* The unicast interface list leaves out the EM's base MAC of the moment:
 * when the EM changes the base MAC, the old one shows and the new one hides.
 */
static void
test_iface_list_hides_current_base_mac(void **state)
{
	struct vema_agent *a = agent_new();
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct rte_ether_addr macs[3];
	struct vema_iface_hdr ih;
	uint8_t req[VEMA_IFACE_HDR_LEN];
	struct reply r;
	struct vnic_vport *vp;

	(void)state;
	vport_cfg(&v, &p, 0x30, 2, VNIC_STATE_FORWARDING);
	assert_int_equal(set_vport(a, 2, &v, &p, &r), VEMA_STATUS_OK);
	vp = vema_agent_vport(a, 2);
	macs[0] = p.base_mac_addr;
	macs[1] = (struct rte_ether_addr){ { 0x02, 0, 0, 0, 0xAA, 1 } };
	macs[2] = (struct rte_ether_addr){ { 0x02, 0, 0, 0, 0xAA, 2 } };
	assert_int_equal(vnic_vport_set_iface_macs(vp, VNIC_LIST_UCAST, macs, 3), 1);
	memset(&ih, 0, sizeof(ih));
	vema_iface_hdr_encode(req, &ih);
	assert_int_equal(do_req(a, VEMA_METHOD_GET, VEMA_ATTR_IFACE_UCAST_MACS, 2, req,
				sizeof(req), &r), VEMA_STATUS_OK);
	vema_iface_hdr_decode(r.data, &ih);
	assert_int_equal(ih.tot_macs_in_lst, 2);
	assert_int_equal(ih.num_macs_in_msg, 2);
	assert_memory_equal(r.data + 8, macs[1].addr_bytes, 6);
	assert_memory_equal(r.data + 14, macs[2].addr_bytes, 6);
	/* the EM moves the base MAC to macs[1] */
	p.base_mac_addr = macs[1];
	assert_int_equal(set_vport(a, 2, &v, &p, &r), VEMA_STATUS_OK);
	memset(&ih, 0, sizeof(ih));
	vema_iface_hdr_encode(req, &ih);
	assert_int_equal(do_req(a, VEMA_METHOD_GET, VEMA_ATTR_IFACE_UCAST_MACS, 2, req,
				sizeof(req), &r), VEMA_STATUS_OK);
	vema_iface_hdr_decode(r.data, &ih);
	assert_int_equal(ih.tot_macs_in_lst, 2);
	assert_memory_equal(r.data + 8, macs[0].addr_bytes, 6);
	assert_memory_equal(r.data + 14, macs[2].addr_bytes, 6);
	vema_agent_free(a);
}

/* DELETE_VESW answers, as Linux does, with the resulting VESWPORT_INFO:
 * the power-on values, and the vport stays.
 */
static void
test_delete_vesw_replies_with_defaults(void **state)
{
	struct vema_agent *a = agent_new();
	uint8_t want[VEMA_VESWPORT_INFO_LEN];
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct reply r;

	(void)state;
	(void)add_vport(a, 4, 0x44, VNIC_STATE_FORWARDING);
	assert_int_equal(do_req(a, VEMA_METHOD_SET, VEMA_ATTR_DELETE_VESW, 4, NULL, 0, &r),
			 VEMA_STATUS_OK);
	vnic_info_defaults(&v, &p);
	vema_veswport_info_encode(want, &v, &p);
	assert_memory_equal(r.data, want, sizeof(want));
	expect_fill(r.data, VEMA_VESWPORT_INFO_LEN, VEMA_DATA_LEN, 0, "after VESWPORT_INFO");
	assert_non_null(vema_agent_vport(a, 4));
	vema_agent_free(a);
}

/* An agent without a LID of its own (lid 0) takes any DLID, answers from the
 * LID it was asked as, and sends no traps (counted as traps_no_lid).
 */
static void
test_lid0_agent_answers_as_asked_no_traps(void **state)
{
	struct vema_agent_conf conf = { .lid = 0, .port_num = AGENT_PORT };
	struct vema_agent *a = vema_agent_create(&conf);
	uint8_t pkt[VEMA_PKT_MAX];
	struct vnic_vport *vp;
	struct reply r;
	struct req q;

	(void)state;
	assert_non_null(a);
	assert_int_equal(set_cpi(a, TRAP_LID, TRAP_SL << 3, &r), VEMA_STATUS_OK);
	assert_int_equal(r.info.f.slid, AGENT_LID);
	req_init(&q, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0);
	q.f.dlid = 0x123456;
	assert_int_equal(req_send(a, &q, &r), VEMA_STATUS_OK);
	assert_int_equal(r.info.f.slid, 0x123456);
	vp = add_vport(a, 0, 0x10, VNIC_STATE_FORWARDING);
	assert_int_equal(vnic_vport_set_carrier(vp, true), 0);
	assert_int_equal(vema_agent_poll(a, 1, pkt, sizeof(pkt)), 0);
	assert_int_equal(vema_agent_stats(a)->traps, 0);
	assert_int_equal(vema_agent_stats(a)->traps_no_lid, 1);
	vema_agent_free(a);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_em_flow_end_to_end),
		cmocka_unit_test(test_rejected_requests_leave_state_unchanged),
		cmocka_unit_test(test_reply_addressing),
		cmocka_unit_test(test_trap_link_change_on_forwarding),
		cmocka_unit_test(test_trap_mac_change_after_iface_macs),
		cmocka_unit_test(test_trap_none_without_trap_lid),
		cmocka_unit_test(test_trap_rate_limit_defers_not_loses),
		cmocka_unit_test(test_iface_list_hides_current_base_mac),
		cmocka_unit_test(test_delete_vesw_replies_with_defaults),
		cmocka_unit_test(test_lid0_agent_answers_as_asked_no_traps),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests_name("vema_agent", tests, NULL, NULL);
}
