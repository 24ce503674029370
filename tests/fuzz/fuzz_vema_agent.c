/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * libFuzzer target: the VEMA agent fed arbitrary packets and MADs.
 *
 * A static agent (LID 5) is configured through valid MADs: vports 0 and 1
 * on vesws 0x10 and 0x11 with MAC entries, interface lists on vport 0, and
 * a ClassPortInfo with a trap LID. Input byte 0 selects how the rest is fed:
 *   bits 1:0 = 0  the bytes as a raw packet;
 *            = 1  the bytes as a MAD (zero-padded to a multiple of 8, at most
 *                 2048 bytes) in an FM packet to LID 5, QP 1;
 *            = 2, 3  the same, with a valid header (versions, class, OUI,
 *                 reserved fields zero) and method Get (2) or Set (3);
 *   bit 2   (wrapped) attr_mod bits 31:8 cleared;
 *   bit 3   (valid header) attr_id taken from the attribute table by its
 *           low byte;
 *   bit 7   poll for traps afterwards, toggling vport 0's carrier.
 *
 * Checked: a reply is a valid FM packet of 2048 + 32 bytes carrying a
 * GetResp with the request's header, a known status, no data on error, and
 * addressed back to the sender; status 0 only for a valid header, attr_mod
 * below 256 (0 for ClassPortInfo) and an attribute/method pair of the
 * facts, and a successful SET VESWPORT_INFO leaves the vport existing; a
 * request without a reply, with an error status or a Get leaves the vport
 * count, every vport's policy and the ClassPortInfo unchanged. Valid Sets
 * may change state; the agent is rebuilt when it holds more than 8 vports.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "opa16b.h"
#include "opa16b_fm.h"
#include "vema_agent.h"
#include "vema_mad.h"
#include "vnic.h"

#define AGENT_LID 5
#define EM_LID 0x10
#define EM_QPN 0x31
#define TRAP_LID 7
#define VPORTS_KEPT 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct vema_agent *agent;
static struct vnic_policy *saved[VEMA_VPORTS_MAX];
static bool saved_ok[VEMA_VPORTS_MAX];
static uint64_t now_ns;
static bool carrier;

static const uint16_t attrs[] = {
	VEMA_ATTR_CLASS_PORT_INFO, VEMA_ATTR_NOTICE, VEMA_ATTR_VESWPORT_INFO,
	VEMA_ATTR_MAC_ENTRIES, VEMA_ATTR_IFACE_UCAST_MACS, VEMA_ATTR_IFACE_MCAST_MACS,
	VEMA_ATTR_DELETE_VESW, VEMA_ATTR_SUMMARY_COUNTERS, VEMA_ATTR_ERROR_COUNTERS,
};

/* Send one MAD to the agent; abort unless it is answered with status 0. */
static void
setup_mad(uint8_t method, uint16_t attr, uint32_t mod, const uint8_t *payload, size_t plen)
{
	static uint8_t mad[VEMA_MAD_SIZE], pkt[VEMA_PKT_MAX], reply[VEMA_PKT_MAX];
	struct opa16b_fm_fields f = {
		.slid = EM_LID, .dlid = AGENT_LID, .pkey = 0xFFFF,
		.dest_qpn = OPA16B_QPN_GSI, .src_qpn = EM_QPN,
	};
	struct vema_hdr h;
	int n;

	memset(mad, 0, sizeof(mad));
	vema_hdr_request(&h, method, attr, mod, 1);
	vema_hdr_encode(mad, &h);
	memcpy(mad + VEMA_HDR_LEN, payload, plen);
	n = opa16b_fm_build(pkt, sizeof(pkt), &f, mad, sizeof(mad));
	if (n < 0 || vema_agent_rx(agent, pkt, (size_t)n, reply, sizeof(reply)) == 0 ||
	    reply[OPA16B_FM_HDR_LEN + 4] != 0 || reply[OPA16B_FM_HDR_LEN + 5] != 0)
		abort();
}

/* The agent of the target: two vports, MAC entries, lists, a trap LID. */
static void
agent_setup(void)
{
	struct vema_agent_conf conf = { .lid = AGENT_LID, .port_num = 1 };
	struct vema_class_port_info cpi;
	struct vnic_vesw_info v;
	struct vnic_port_info p;
	struct vema_mac_tbl_hdr th;
	struct vnic_mac_entry e;
	struct rte_ether_addr macs[5];
	uint8_t d[VEMA_DATA_LEN];
	unsigned int i, k;

	vema_agent_free(agent);
	agent = vema_agent_create(&conf);
	if (agent == NULL)
		abort();
	memset(&cpi, 0, sizeof(cpi));
	cpi.trap_lid = TRAP_LID;
	cpi.trap_sl_rsvd = 2 << 3;
	vema_cpi_encode(d, &cpi);
	setup_mad(VEMA_METHOD_SET, VEMA_ATTR_CLASS_PORT_INFO, 0, d, VEMA_CPI_LEN);
	for (k = 0; k < 2; k++) {
		vnic_info_defaults(&v, &p);
		v.vesw_id = 0x10 + k;
		v.def_port_mask = 0x3;
		v.u_mcast_dlid = 0xF00001;
		v.u_ucast_dlid[0] = 0x20 + k;
		v.u_ucast_dlid[1] = 0x30 + k;
		v.eth_mtu = 1500;
		p.port_num = 100 + k;
		p.base_mac_addr = (struct rte_ether_addr){ { 0x02, 0, 0, 0, 1, k } };
		p.config_state = VNIC_STATE_FORWARDING;
		p.encap_slid = AGENT_LID;
		vema_veswport_info_encode(d, &v, &p);
		setup_mad(VEMA_METHOD_SET, VEMA_ATTR_VESWPORT_INFO, k, d, VEMA_VESWPORT_INFO_LEN);
		th = (struct vema_mac_tbl_hdr){ .offset = 4 * k, .num_entries = 8,
						.digest = 0xD0 + k };
		vema_mac_tbl_hdr_encode(d, &th);
		for (i = 0; i < 8; i++) {
			memset(&e, 0, sizeof(e));
			e.mac = (struct rte_ether_addr){ { 0x02, 0, 0, 2, k, i } };
			e.dlid_sd = (0x40u + i) << VNIC_DLID_SD_SHIFT;
			vema_mac_entry_encode(d + VEMA_MAC_TBL_HDR_LEN + VEMA_MAC_ENTRY_LEN * i, &e);
		}
		setup_mad(VEMA_METHOD_SET, VEMA_ATTR_MAC_ENTRIES, k,
			  d, VEMA_MAC_TBL_HDR_LEN + 8 * VEMA_MAC_ENTRY_LEN);
	}
	for (i = 0; i < 5; i++)
		macs[i] = (struct rte_ether_addr){ { 0x02, 0, 0, 3, 0, i } };
	if (vnic_vport_set_iface_macs(vema_agent_vport(agent, 0), VNIC_LIST_UCAST, macs, 5) < 0)
		abort();
	macs[0].addr_bytes[0] = 0x01;
	if (vnic_vport_set_iface_macs(vema_agent_vport(agent, 0), VNIC_LIST_MCAST, macs, 1) < 0)
		abort();
	carrier = false;
}

static void
state_save(struct vema_class_port_info *cpi, unsigned int *nb)
{
	unsigned int i;

	*nb = vema_agent_nb_vports(agent);
	memset(cpi, 0, sizeof(*cpi));
	vema_agent_cpi(agent, cpi);
	for (i = 0; i < VEMA_VPORTS_MAX; i++) {
		struct vnic_vport *vp = vema_agent_vport(agent, i);

		saved_ok[i] = vp != NULL;
		if (vp == NULL)
			continue;
		if (saved[i] == NULL) {
			saved[i] = malloc(sizeof(*saved[i]));
			if (saved[i] == NULL)
				abort();
		}
		memcpy(saved[i], vnic_vport_policy(vp), sizeof(*saved[i]));
	}
}

static bool
state_same(const struct vema_class_port_info *cpi, unsigned int nb)
{
	struct vema_class_port_info now;
	unsigned int i;

	if (vema_agent_nb_vports(agent) != nb)
		return false;
	memset(&now, 0, sizeof(now));
	vema_agent_cpi(agent, &now);
	if (memcmp(&now, cpi, sizeof(now)) != 0)
		return false;
	for (i = 0; i < VEMA_VPORTS_MAX; i++) {
		struct vnic_vport *vp = vema_agent_vport(agent, i);

		if ((vp != NULL) != saved_ok[i])
			return false;
		if (vp != NULL && memcmp(vnic_vport_policy(vp), saved[i], sizeof(*saved[i])) != 0)
			return false;
	}
	return true;
}

/*
 * The packet of a wrapped input (selector bits 1:0 = 1..3), in @p pkt
 * (VEMA_PKT_MAX bytes); returns its length.
 */
static size_t
make_packet(uint8_t sel, const uint8_t *data, size_t len, uint8_t *pkt)
{
	static uint8_t mad[VEMA_MAD_SIZE];
	const struct opa16b_fm_fields f = {
		.slid = EM_LID, .dlid = AGENT_LID, .pkey = 0x8001, .sc = 3,
		.dest_qpn = OPA16B_QPN_GSI, .src_qpn = EM_QPN,
	};
	int n;

	if (len > VEMA_MAD_SIZE)
		len = VEMA_MAD_SIZE;
	memset(mad, 0, sizeof(mad));
	memcpy(mad, data, len);
	if ((sel & 3) >= 2) {
		struct vema_hdr h;

		if (len < VEMA_HDR_LEN)
			len = VEMA_HDR_LEN;
		vema_hdr_decode(mad, &h);
		if (sel & 0x8)
			h.mad.attr_id = attrs[(h.mad.attr_id & 0xFF) % RTE_DIM(attrs)];
		vema_hdr_request(&h, (sel & 3) == 2 ? VEMA_METHOD_GET : VEMA_METHOD_SET,
				 h.mad.attr_id, h.mad.attr_mod, h.mad.tid);
		vema_hdr_encode(mad, &h);
	}
	if (sel & 0x4)
		mad[20] = mad[21] = mad[22] = 0;
	len = (len + 7) & ~(size_t)7;
	if (len == 0)
		len = 8;
	n = opa16b_fm_build(pkt, VEMA_PKT_MAX, &f, mad, len);
	if (n < 0)
		abort();
	return (size_t)n;
}

/* The attribute/method pairs of the facts (3.2). */
static bool
allowed(const struct vema_hdr *h)
{
	switch (h->mad.attr_id) {
	case VEMA_ATTR_CLASS_PORT_INFO:
	case VEMA_ATTR_VESWPORT_INFO:
	case VEMA_ATTR_MAC_ENTRIES:
		return h->mad.method == VEMA_METHOD_GET || h->mad.method == VEMA_METHOD_SET;
	case VEMA_ATTR_IFACE_UCAST_MACS:
	case VEMA_ATTR_IFACE_MCAST_MACS:
	case VEMA_ATTR_SUMMARY_COUNTERS:
	case VEMA_ATTR_ERROR_COUNTERS:
		return h->mad.method == VEMA_METHOD_GET;
	case VEMA_ATTR_DELETE_VESW:
		return h->mad.method == VEMA_METHOD_SET;
	default:
		return false;
	}
}

static void
check_reply(const uint8_t *pkt, size_t len, const uint8_t *reply, size_t rlen)
{
	struct opa16b_fm_info req, rep;
	struct vema_hdr h;
	uint16_t status;
	size_t i;

	if (rlen != VEMA_MAD_SIZE + OPA16B_FM_OVERHEAD)
		abort();
	/* only a packet the agent accepted can be answered */
	if (opa16b_fm_parse(pkt, len, &req) != OPA16B_FM_OK || req.mad_len < VEMA_HDR_LEN)
		abort();
	if (opa16b_fm_parse(reply, rlen, &rep) != OPA16B_FM_OK || rep.mad_len != VEMA_MAD_SIZE)
		abort();
	if (rep.f.slid != AGENT_LID || rep.f.dlid != req.f.slid || rep.f.pkey != req.f.pkey ||
	    rep.f.dest_qpn != req.f.src_qpn || rep.f.src_qpn != OPA16B_QPN_GSI ||
	    req.f.dest_qpn != OPA16B_QPN_GSI || req.f.dlid != AGENT_LID)
		abort();
	if (rep.mad[3] != VEMA_METHOD_GET_RESP || memcmp(rep.mad, req.mad, 3) != 0 ||
	    memcmp(rep.mad + 6, req.mad + 6, VEMA_HDR_LEN - 6) != 0)
		abort();
	status = (uint16_t)(rep.mad[4] << 8 | rep.mad[5]);
	if (status != VEMA_STATUS_OK && status != VEMA_STATUS_BAD_VERSION &&
	    status != VEMA_STATUS_UNSUPPORTED && status != VEMA_STATUS_INVALID)
		abort();
	if (status != VEMA_STATUS_OK) {
		for (i = VEMA_HDR_LEN; i < VEMA_MAD_SIZE; i++)
			if (rep.mad[i] != 0)
				abort();
		return;
	}
	/* success: a valid request of an allowed attribute and method */
	vema_hdr_decode(req.mad, &h);
	if (h.mad.mgmt_class != VEMA_MGMT_CLASS || h.mad.class_version != VEMA_CLASS_VERSION ||
	    h.oui != VEMA_OUI || h.mad.status != 0 || h.mad.class_specific != 0 || h.mad.resv != 0 ||
	    h.rmpp_type != 0 || h.rmpp_rtime_flags != 0 || h.rmpp_status != 0 ||
	    h.seg_num != 0 || h.paylen_newwin != 0 || h.reserved != 0 ||
	    (h.mad.attr_mod & ~VEMA_ATTR_MOD_VPORT_MASK) != 0 || !allowed(&h))
		abort();
	if (h.mad.attr_id == VEMA_ATTR_CLASS_PORT_INFO && h.mad.attr_mod != 0)
		abort();
	if (h.mad.method == VEMA_METHOD_SET && h.mad.attr_id == VEMA_ATTR_VESWPORT_INFO &&
	    vema_agent_vport(agent, (uint8_t)h.mad.attr_mod) == NULL)
		abort();
}

static void
poll_traps(void)
{
	static uint8_t trap[VEMA_PKT_MAX];
	struct vema_class_port_info cpi;
	struct opa16b_fm_info info;
	struct vnic_vport *vp = vema_agent_vport(agent, 0);
	unsigned int i;
	size_t n;

	if (vp != NULL) {
		carrier = !carrier;
		if (vnic_vport_set_carrier(vp, carrier) != 0)
			abort();
	}
	now_ns += VEMA_TRAP_WINDOW_NS / 3;
	vema_agent_cpi(agent, &cpi);
	for (i = 0; i < 2 * VEMA_TRAP_BURST; i++) {
		n = vema_agent_poll(agent, now_ns, trap, sizeof(trap));
		if (n == 0)
			break;
		if (i >= VEMA_TRAP_BURST || n != VEMA_TRAP_MAD_LEN + OPA16B_FM_OVERHEAD ||
		    opa16b_fm_parse(trap, n, &info) != OPA16B_FM_OK ||
		    info.f.dlid != cpi.trap_lid || cpi.trap_lid == 0 ||
		    info.f.slid != AGENT_LID || info.f.dest_qpn != OPA16B_QPN_GSI ||
		    info.mad[3] != VEMA_METHOD_TRAP || info.mad[1] != VEMA_MGMT_CLASS)
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t wrapped[VEMA_PKT_MAX], reply[VEMA_PKT_MAX];
	struct vema_class_port_info cpi;
	const uint8_t *src;
	unsigned int nb;
	uint8_t *pkt;
	size_t len, rlen;
	bool keep;

	if (size == 0)
		return 0;
	if (agent == NULL || vema_agent_nb_vports(agent) > VPORTS_KEPT)
		agent_setup();
	if ((data[0] & 3) == 0) {
		src = data + 1;
		len = size - 1;
	} else {
		src = wrapped;
		len = make_packet(data[0], data + 1, size - 1, wrapped);
	}
	/* a heap block of exactly the packet's size, for ASan */
	pkt = malloc(len ? len : 1);
	if (pkt == NULL)
		return 0;
	memcpy(pkt, src, len);

	state_save(&cpi, &nb);
	memset(reply, 0xA5, sizeof(reply));
	rlen = vema_agent_rx(agent, pkt, len, reply, sizeof(reply));
	if (rlen != 0) {
		check_reply(pkt, len, reply, rlen);
		/* an error reply, or a successful Get */
		keep = reply[OPA16B_FM_HDR_LEN + 4] != 0 || reply[OPA16B_FM_HDR_LEN + 5] != 0 ||
		       pkt[OPA16B_FM_HDR_LEN + 3] == VEMA_METHOD_GET;
	} else {
		keep = true; /* dropped */
	}
	if (keep && !state_same(&cpi, nb))
		abort();
	if (data[0] & 0x80)
		poll_traps();
	free(pkt);
	return 0;
}
