/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* The VEMA agent: MAD validation, attribute GET/SET, traps. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_log.h>

#include "opa16b_fm.h"
#include "vema_agent.h"

RTE_LOG_REGISTER_DEFAULT(vema_logtype, NOTICE);
#define VEMA_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, vema_logtype, "vema: " fmt "\n", ##__VA_ARGS__)

/* Pending trap opcodes per vport, as bits (1 << opcode). */
#define TRAP_BIT(op) (1u << (op))

struct vema_agent {
	struct vema_agent_conf conf;
	struct vnic_vport *vports[VEMA_VPORTS_MAX];
	unsigned int nb_vports;
	struct vema_class_port_info cpi; /* as the EM set it */
	uint8_t pending[VEMA_VPORTS_MAX];
	unsigned int next_trap_vport;    /* round robin over vports */
	uint64_t trap_tid;
	/* the rate limit is per vport, as in Linux */
	uint64_t window_start[VEMA_VPORTS_MAX];
	uint8_t window_count[VEMA_VPORTS_MAX];
	bool window_open[VEMA_VPORTS_MAX];
	struct vema_agent_stats stats;
	uint8_t mad[VEMA_MAD_SIZE];      /* reply or trap being built */
};

static const char *const drop_names[VEMA_DROP_MAX] = {
	[VEMA_DROP_NOT_FM] = "not_fm",
	[VEMA_DROP_WRONG_DEST] = "wrong_dest",
	[VEMA_DROP_SHORT] = "short",
	[VEMA_DROP_BASE_VERSION] = "base_version",
	[VEMA_DROP_RESPONSE] = "response",
	[VEMA_DROP_METHOD] = "method",
	[VEMA_DROP_RMPP] = "rmpp",
	[VEMA_DROP_NO_ROOM] = "no_room",
};

const char *
vema_drop_name(enum vema_drop d)
{
	if ((unsigned int)d >= VEMA_DROP_MAX)
		return "unknown";
	return drop_names[d];
}

struct vema_agent *
vema_agent_create(const struct vema_agent_conf *conf)
{
	struct vema_agent *a = calloc(1, sizeof(*a));

	if (a == NULL)
		return NULL;
	a->conf = *conf;
	if (a->conf.mgmt_pkey == 0)
		a->conf.mgmt_pkey = 0xFFFF;
	return a;
}

void
vema_agent_free(struct vema_agent *a)
{
	unsigned int i;

	if (a == NULL)
		return;
	for (i = 0; i < VEMA_VPORTS_MAX; i++)
		vnic_vport_free(a->vports[i]);
	free(a);
}

struct vnic_vport *
vema_agent_vport(const struct vema_agent *a, uint8_t index)
{
	return a->vports[index];
}

unsigned int
vema_agent_nb_vports(const struct vema_agent *a)
{
	return a->nb_vports;
}

static struct vnic_vport *
new_vport(struct vema_agent *a, uint8_t index)
{
	struct vnic_vport *vp = vnic_vport_create(index, a->conf.retire, a->conf.retire_arg);

	if (vp == NULL)
		VEMA_LOG(ERR, "no memory for vport %u", index);
	return vp;
}

static void
register_vport(struct vema_agent *a, struct vnic_vport *vp)
{
	a->vports[vnic_vport_index(vp)] = vp;
	a->nb_vports++;
	if (a->conf.on_new != NULL)
		a->conf.on_new(a->conf.cb_arg, vp);
}

struct vnic_vport *
vema_agent_add_vport(struct vema_agent *a, uint8_t index)
{
	struct vnic_vport *vp = a->vports[index];

	if (vp != NULL)
		return vp;
	vp = new_vport(a, index);
	if (vp != NULL)
		register_vport(a, vp);
	return vp;
}

void
vema_agent_cpi(const struct vema_agent *a, struct vema_class_port_info *cpi)
{
	*cpi = a->cpi;
	cpi->base_version = VEMA_BASE_VERSION;
	cpi->class_version = VEMA_CLASS_VERSION;
	cpi->cap_mask = VEMA_CPI_CAP_MASK;
	cpi->cap_mask2_resp_time = VEMA_CPI_RESP_TIME;
}

const struct vema_agent_stats *
vema_agent_stats(const struct vema_agent *a)
{
	return &a->stats;
}

/* --- attribute handlers: return a MAD status; write the reply data --- */

static uint16_t
attr_cpi(struct vema_agent *a, const struct vema_hdr *h, const uint8_t *data, size_t dlen,
	 uint8_t *out)
{
	struct vema_class_port_info cpi;

	if (h->mad.attr_mod != 0)
		return VEMA_STATUS_INVALID;
	if (h->mad.method == VEMA_METHOD_SET) {
		if (dlen < VEMA_CPI_LEN)
			return VEMA_STATUS_INVALID;
		vema_cpi_decode(data, &cpi);
		/* LIDs have 24 bits; trap_sl_rsvd bits 2:0 are reserved */
		if (cpi.trap_lid > OPA16B_LID_MAX || cpi.redirect_lid > OPA16B_LID_MAX ||
		    (cpi.trap_sl_rsvd & 0x7) != 0)
			return VEMA_STATUS_INVALID;
		a->cpi = cpi;
	}
	vema_agent_cpi(a, &cpi);
	vema_cpi_encode(out, &cpi);
	return VEMA_STATUS_OK;
}

static void
vport_info_get(const struct vema_agent *a, uint8_t idx, uint8_t *out)
{
	struct vnic_vesw_info vesw;
	struct vnic_port_info port;
	const struct vnic_policy *p;

	if (a->vports[idx] == NULL) {
		vnic_info_defaults(&vesw, &port);
		vema_veswport_info_encode(out, &vesw, &port);
		return;
	}
	p = vnic_vport_policy(a->vports[idx]);
	vema_veswport_info_encode(out, &p->vesw, &p->port);
}

static uint16_t
attr_vport_info(struct vema_agent *a, const struct vema_hdr *h, uint8_t idx,
		const uint8_t *data, size_t dlen, uint8_t *out)
{
	struct vnic_vesw_info vesw;
	struct vnic_port_info port;
	struct vnic_vport *vp;
	const char *why;
	bool created = false;
	int rc;

	if (h->mad.method == VEMA_METHOD_SET) {
		if (dlen < VEMA_VESWPORT_INFO_LEN)
			return VEMA_STATUS_INVALID;
		vema_veswport_info_decode(data, &vesw, &port);
		why = vnic_info_check_reason(&vesw, &port);
		if (why != NULL) {
			VEMA_LOG(INFO, "SET VESWPORT_INFO vport %u refused: %s", idx, why);
			return VEMA_STATUS_INVALID;
		}
		vp = a->vports[idx];
		if (vp == NULL) {
			vp = new_vport(a, idx);
			if (vp == NULL)
				return VEMA_STATUS_UNSUPPORTED;
			created = true;
		}
		rc = vnic_vport_configure(vp, &vesw, &port);
		if (rc != 0) {
			if (created)
				vnic_vport_free(vp);
			return rc == -EINVAL ? VEMA_STATUS_INVALID : VEMA_STATUS_UNSUPPORTED;
		}
		if (created)
			register_vport(a, vp);
	}
	vport_info_get(a, idx, out);
	return VEMA_STATUS_OK;
}

static uint16_t
attr_mac_entries(struct vema_agent *a, const struct vema_hdr *h, struct vnic_vport *vp,
		 const uint8_t *data, size_t dlen, uint8_t *out)
{
	struct vnic_mac_entry ent[VEMA_MAC_ENTRIES_MAX];
	struct vema_mac_tbl_hdr th;
	const struct vnic_policy *p;
	unsigned int i;
	int rc;

	(void)a;
	if (dlen < VEMA_MAC_TBL_HDR_LEN)
		return VEMA_STATUS_INVALID;
	vema_mac_tbl_hdr_decode(data, &th);
	if (th.num_entries > VEMA_MAC_ENTRIES_MAX ||
	    (unsigned int)th.offset + th.num_entries > VNIC_MAC_TBL_MAX)
		return VEMA_STATUS_INVALID;
	if (h->mad.method == VEMA_METHOD_SET) {
		if (dlen < VEMA_MAC_TBL_HDR_LEN + (size_t)th.num_entries * VEMA_MAC_ENTRY_LEN)
			return VEMA_STATUS_INVALID;
		for (i = 0; i < th.num_entries; i++)
			vema_mac_entry_decode(data + VEMA_MAC_TBL_HDR_LEN + i * VEMA_MAC_ENTRY_LEN,
					      &ent[i]);
		rc = vnic_vport_set_mac_entries(vp, th.offset, th.num_entries, ent, th.digest);
		if (rc != 0)
			return rc == -EINVAL ? VEMA_STATUS_INVALID : VEMA_STATUS_UNSUPPORTED;
	}
	p = vnic_vport_policy(vp);
	th.digest = p->port.mac_tbl_digest;
	vema_mac_tbl_hdr_encode(out, &th);
	for (i = 0; i < th.num_entries; i++)
		vema_mac_entry_encode(out + VEMA_MAC_TBL_HDR_LEN + i * VEMA_MAC_ENTRY_LEN,
				      &p->mac.ent[th.offset + i]);
	return VEMA_STATUS_OK;
}

static uint16_t
attr_iface_macs(struct vnic_vport *vp, enum vnic_mac_list which, const uint8_t *data,
		size_t dlen, uint8_t *out)
{
	struct rte_ether_addr macs[VNIC_IFACE_MACS_MAX];
	const struct rte_ether_addr *all;
	const struct vnic_policy *p = vnic_vport_policy(vp);
	struct vema_iface_hdr ih;
	uint16_t total = 0, n, i;

	if (dlen < VEMA_IFACE_HDR_LEN)
		return VEMA_STATUS_INVALID;
	vema_iface_hdr_decode(data, &ih);
	if (ih.num_macs_in_msg == 0)
		ih.num_macs_in_msg = VEMA_IFACE_MACS_MAX;
	/* the EM's own base MAC is not reported back to it (as it is now) */
	all = vnic_vport_iface_macs(vp, which, &n);
	for (i = 0; i < n; i++)
		if (which != VNIC_LIST_UCAST ||
		    !rte_is_same_ether_addr(&all[i], &p->port.base_mac_addr))
			macs[total++] = all[i];
	if (ih.num_macs_in_msg > VEMA_IFACE_MACS_MAX || ih.start_idx > total)
		return VEMA_STATUS_INVALID;
	if (ih.num_macs_in_msg > total - ih.start_idx)
		ih.num_macs_in_msg = total - ih.start_idx;
	ih.tot_macs_in_lst = total;
	ih.gen_count = which == VNIC_LIST_UCAST ? p->port.uc_macs_gen_count :
		p->port.mc_macs_gen_count;
	vema_iface_hdr_encode(out, &ih);
	for (i = 0; i < ih.num_macs_in_msg; i++)
		memcpy(out + VEMA_IFACE_HDR_LEN + 6 * i, macs[ih.start_idx + i].addr_bytes, 6);
	return VEMA_STATUS_OK;
}

static uint16_t
attr_counters(struct vnic_vport *vp, uint16_t attr_id, uint8_t *out)
{
	const struct vnic_policy *p = vnic_vport_policy(vp);
	struct vema_counters_hdr ch = {
		.vp_instance = vnic_vport_index(vp),
		.vesw_id = p->vesw.vesw_id,
		/* the EM's port number (Linux sent the OPA port number here) */
		.veswport_num = p->port.port_num,
	};
	struct vnic_counters c;

	vnic_vport_counters(vp, &c);
	if (attr_id == VEMA_ATTR_SUMMARY_COUNTERS)
		vema_summary_encode(out, &ch, &c);
	else
		vema_errors_encode(out, &ch, &c);
	return VEMA_STATUS_OK;
}

/* Which methods each attribute takes. */
static bool
method_allowed(uint16_t attr_id, uint8_t method)
{
	switch (attr_id) {
	case VEMA_ATTR_CLASS_PORT_INFO:
	case VEMA_ATTR_VESWPORT_INFO:
	case VEMA_ATTR_MAC_ENTRIES:
		return true;
	case VEMA_ATTR_IFACE_UCAST_MACS:
	case VEMA_ATTR_IFACE_MCAST_MACS:
	case VEMA_ATTR_SUMMARY_COUNTERS:
	case VEMA_ATTR_ERROR_COUNTERS:
		return method == VEMA_METHOD_GET;
	case VEMA_ATTR_DELETE_VESW:
		return method == VEMA_METHOD_SET;
	default:
		return false;
	}
}

/* The status of a GET/SET of our class, filling the reply data. */
static uint16_t
dispatch(struct vema_agent *a, const struct vema_hdr *h, const uint8_t *data, size_t dlen,
	 uint8_t *out)
{
	uint8_t idx = h->mad.attr_mod & VEMA_ATTR_MOD_VPORT_MASK;
	struct vnic_vport *vp;

	if (!method_allowed(h->mad.attr_id, h->mad.method))
		return VEMA_STATUS_UNSUPPORTED;
	if (h->mad.attr_id == VEMA_ATTR_CLASS_PORT_INFO)
		return attr_cpi(a, h, data, dlen, out);
	if (h->mad.attr_mod & ~VEMA_ATTR_MOD_VPORT_MASK)
		return VEMA_STATUS_INVALID;
	if (h->mad.attr_id == VEMA_ATTR_VESWPORT_INFO)
		return attr_vport_info(a, h, idx, data, dlen, out);
	vp = a->vports[idx];
	if (vp == NULL)
		return VEMA_STATUS_INVALID;
	switch (h->mad.attr_id) {
	case VEMA_ATTR_MAC_ENTRIES:
		return attr_mac_entries(a, h, vp, data, dlen, out);
	case VEMA_ATTR_IFACE_UCAST_MACS:
		return attr_iface_macs(vp, VNIC_LIST_UCAST, data, dlen, out);
	case VEMA_ATTR_IFACE_MCAST_MACS:
		return attr_iface_macs(vp, VNIC_LIST_MCAST, data, dlen, out);
	case VEMA_ATTR_DELETE_VESW:
		if (vnic_vport_reset(vp) != 0)
			return VEMA_STATUS_UNSUPPORTED;
		vport_info_get(a, idx, out); /* as Linux: the resulting VESWPORT_INFO */
		return VEMA_STATUS_OK;
	default: /* the counters */
		return attr_counters(vp, h->mad.attr_id, out);
	}
}

/*
 * Validate a MAD and build the reply MAD in a->mad.
 * Returns the reply status, or -1 - reason when the MAD is dropped.
 */
static int
process_mad(struct vema_agent *a, const uint8_t *mad, size_t len)
{
	const uint8_t *data = mad + VEMA_HDR_LEN;
	size_t dlen = len - VEMA_HDR_LEN;
	struct vema_hdr h;
	uint16_t status;

	vema_hdr_decode(mad, &h);
	if (h.mad.base_version != VEMA_BASE_VERSION)
		return -1 - VEMA_DROP_BASE_VERSION;
	if ((h.mad.method & VEMA_METHOD_RESP) || h.mad.method == VEMA_METHOD_TRAP_REPRESS)
		return -1 - VEMA_DROP_RESPONSE;
	if (h.mad.method != VEMA_METHOD_GET && h.mad.method != VEMA_METHOD_SET &&
	    h.mad.mgmt_class != VEMA_MGMT_CLASS)
		return -1 - VEMA_DROP_METHOD;
	if (h.rmpp_rtime_flags & 0x1)
		return -1 - VEMA_DROP_RMPP;

	memcpy(a->mad, mad, VEMA_HDR_LEN);
	memset(a->mad + VEMA_HDR_LEN, 0, VEMA_DATA_LEN);
	if (h.mad.mgmt_class != VEMA_MGMT_CLASS || h.oui != VEMA_OUI)
		status = VEMA_STATUS_UNSUPPORTED; /* no agent for that class/OUI here */
	else if (h.mad.class_version != VEMA_CLASS_VERSION)
		status = VEMA_STATUS_BAD_VERSION;
	else if (h.mad.method != VEMA_METHOD_GET && h.mad.method != VEMA_METHOD_SET)
		status = VEMA_STATUS_UNSUPPORTED;
	else if (h.mad.status != 0 || h.mad.class_specific != 0 || h.mad.resv != 0 ||
		 h.reserved != 0 || h.rmpp_type != 0 || h.rmpp_rtime_flags != 0 ||
		 h.rmpp_status != 0 || h.seg_num != 0 || h.paylen_newwin != 0)
		status = VEMA_STATUS_INVALID; /* reserved fields of a request must be 0 */
	else
		status = dispatch(a, &h, data, dlen, a->mad + VEMA_HDR_LEN);
	if (status != VEMA_STATUS_OK) /* an error reply carries no data */
		memset(a->mad + VEMA_HDR_LEN, 0, VEMA_DATA_LEN);
	a->mad[3] = VEMA_METHOD_GET_RESP;
	a->mad[4] = status >> 8;
	a->mad[5] = status & 0xFF;
	return status;
}

static size_t
drop(struct vema_agent *a, enum vema_drop why)
{
	a->stats.drops[why]++;
	VEMA_LOG(DEBUG, "dropped: %s", vema_drop_name(why));
	return 0;
}

size_t
vema_agent_rx(struct vema_agent *a, const void *pkt, size_t len, void *reply, size_t cap)
{
	struct opa16b_fm_info info;
	struct opa16b_fm_fields f;
	int st, n;

	a->stats.rx++;
	if (opa16b_fm_parse(pkt, len, &info) != OPA16B_FM_OK)
		return drop(a, VEMA_DROP_NOT_FM);
	if (info.f.dest_qpn != OPA16B_QPN_GSI || (a->conf.lid != 0 && info.f.dlid != a->conf.lid))
		return drop(a, VEMA_DROP_WRONG_DEST);
	if (info.mad_len < VEMA_HDR_LEN)
		return drop(a, VEMA_DROP_SHORT);
	if (cap < VEMA_PKT_MAX)
		return drop(a, VEMA_DROP_NO_ROOM);
	st = process_mad(a, info.mad, info.mad_len);
	if (st < 0)
		return drop(a, (enum vema_drop)(-1 - st));

	f = (struct opa16b_fm_fields){
		/* an agent without a LID of its own answers as whom it was asked */
		.slid = a->conf.lid != 0 ? a->conf.lid : info.f.dlid,
		.dlid = info.f.slid,
		.pkey = info.f.pkey,
		.entropy = info.f.entropy,
		.sc = info.f.sc,
		.rc = info.f.rc,
		.dest_qpn = info.f.src_qpn,
		.src_qpn = OPA16B_QPN_GSI,
	};
	n = opa16b_fm_build(reply, cap, &f, a->mad, VEMA_MAD_SIZE);
	if (n < 0)
		return drop(a, VEMA_DROP_NO_ROOM);
	a->stats.replies++;
	if (st != VEMA_STATUS_OK)
		a->stats.replies_error++;
	return (size_t)n;
}

/* --- traps --- */

static uint8_t
events_to_traps(uint32_t ev)
{
	uint8_t bits = 0;

	if (ev & VNIC_EV_UCAST_MAC_CHANGE)
		bits |= TRAP_BIT(VEMA_TRAP_UCAST_MAC_CHANGE);
	if (ev & VNIC_EV_MCAST_MAC_CHANGE)
		bits |= TRAP_BIT(VEMA_TRAP_MCAST_MAC_CHANGE);
	if (ev & VNIC_EV_LINK_CHANGE)
		bits |= TRAP_BIT(VEMA_TRAP_LINK_STATUS_CHANGE);
	return bits;
}

static size_t
build_trap(struct vema_agent *a, struct vnic_vport *vp, uint8_t opcode, void *pkt, size_t cap)
{
	const struct vnic_policy *p = vnic_vport_policy(vp);
	struct vema_trap t = {
		.issuer_lid = p->port.encap_slid,
		.fabric_id = p->vesw.fabric_id,
		.vesw_id = p->vesw.vesw_id,
		.veswport_num = p->port.port_num,
		.opa_port_num = a->conf.port_num,
		.vport_index = vnic_vport_index(vp),
		.opcode = opcode,
	};
	struct opa16b_fm_fields f = {
		.slid = a->conf.lid,
		.dlid = a->cpi.trap_lid,
		.pkey = a->conf.mgmt_pkey,
		.sc = a->cpi.trap_sl_rsvd >> 3,
		.dest_qpn = OPA16B_QPN_GSI,
		.src_qpn = OPA16B_QPN_GSI,
	};
	struct vema_hdr h;
	int n;

	vema_hdr_request(&h, VEMA_METHOD_TRAP, VEMA_ATTR_NOTICE, 0, ++a->trap_tid);
	memset(a->mad, 0, VEMA_TRAP_MAD_LEN);
	vema_hdr_encode(a->mad, &h);
	vema_notice_encode(a->mad + VEMA_HDR_LEN, &t);
	n = opa16b_fm_build(pkt, cap, &f, a->mad, VEMA_TRAP_MAD_LEN);
	return n < 0 ? 0 : (size_t)n;
}

size_t
vema_agent_poll(struct vema_agent *a, uint64_t now_ns, void *pkt, size_t cap)
{
	unsigned int i, idx;
	bool any = false, deferred = false;

	for (i = 0; i < VEMA_VPORTS_MAX; i++) {
		struct vnic_vport *vp = a->vports[i];
		uint32_t ev;

		if (vp == NULL)
			continue;
		ev = vnic_vport_take_events(vp);
		if (ev != 0 && a->conf.on_event != NULL)
			a->conf.on_event(a->conf.cb_arg, vp, ev);
		a->pending[i] |= events_to_traps(ev);
		any |= a->pending[i] != 0;
	}
	if (!any)
		return 0;
	if (a->cpi.trap_lid == 0 || a->conf.lid == 0) {
		/* nobody to tell, or no LID to send from: like Linux, nothing is
		 * sent without a trap LID
		 */
		for (i = 0; i < VEMA_VPORTS_MAX; i++) {
			a->stats.traps_no_lid += __builtin_popcount(a->pending[i]);
			a->pending[i] = 0;
		}
		return 0;
	}
	for (i = 0; i < VEMA_VPORTS_MAX; i++) {
		uint8_t op;
		size_t n;

		idx = (a->next_trap_vport + i) % VEMA_VPORTS_MAX;
		if (a->pending[idx] == 0 || a->vports[idx] == NULL)
			continue;
		if (!a->window_open[idx] || now_ns - a->window_start[idx] >= VEMA_TRAP_WINDOW_NS) {
			a->window_open[idx] = true;
			a->window_start[idx] = now_ns;
			a->window_count[idx] = 0;
		}
		if (a->window_count[idx] >= VEMA_TRAP_BURST) {
			deferred = true;
			continue;
		}
		op = (uint8_t)__builtin_ctz(a->pending[idx]);
		n = build_trap(a, a->vports[idx], op, pkt, cap);
		if (n == 0)
			return 0; /* buffer too small: the trap stays pending */
		a->pending[idx] &= ~TRAP_BIT(op);
		a->next_trap_vport = idx + 1;
		a->window_count[idx]++;
		a->stats.traps++;
		return n;
	}
	if (deferred)
		a->stats.traps_deferred++;
	return 0;
}
