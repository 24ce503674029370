/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * Receive dispatch: each frame parsed, checked (GID, VLAN, ICRC, QP, P_Key,
 * transport, state, Q_Key or source, length) and handed to the completer
 * (responses) or the responder (requests); every refusal is counted.
 */

#include <string.h>

#include <rte_prefetch.h>

#include "roce_internal.h"

static bool
gid_is_local(const struct roce_dev *dev, const uint8_t *gid)
{
	uint32_t i;

	for (i = 0; i < dev->lim.gid_tbl_len; i++)
		if (dev->gid_valid[i] && memcmp(dev->gid[i], gid, ROCE_GID_LEN) == 0)
			return true;
	return false;
}

bool
roce_rx_one(struct roce_dev *dev, struct rte_mbuf *m)
{
	struct roce_dev_stats *st = &dev->st;
	struct roce_pkt pkt;
	struct roce_qp *qp;
	uint32_t flags;
	uint8_t tr;

	/* the ICRC after the GID: frames for another stack pass unverified */
	switch (roce_pkt_parse(m, &pkt, false)) {
	case ROCE_PARSE_OK:
		break;
	case ROCE_PARSE_NOT_ROCE:
		st->rx_not_roce++;
		return false;
	case ROCE_PARSE_TRUNCATED:
		st->rx_truncated++;
		goto drop;
	case ROCE_PARSE_BAD_HEADER:
		st->rx_bad_header++;
		goto drop;
	case ROCE_PARSE_BAD_ICRC: /* not asked for: checked below */
		break;
	}
	if (!gid_is_local(dev, pkt.dgid)) {
		st->rx_not_roce++;
		return false;
	}
	/* VID 0 is a priority tag: the frame is on the untagged network */
	if (dev->conf.vlan_filter && pkt.vlan_id != ROCE_VLAN_NONE && pkt.vlan_id != 0 &&
	    pkt.vlan_id != dev->conf.vlan_id) {
		st->rx_bad_vlan++;
		goto drop;
	}
	if (!roce_pkt_icrc_ok(m, &pkt)) {
		st->rx_bad_icrc++;
		goto drop;
	}
	qp = roce_qp_get(dev, pkt.qpn);
	if (qp == NULL) {
		st->rx_unknown_qpn++;
		goto drop;
	}
	if ((pkt.pkey & 0x7fff) != (ROCE_DEFAULT_PKEY & 0x7fff)) {
		st->rx_bad_pkey++;
		goto drop_qp;
	}
	flags = roce_opcode_table[pkt.opcode].flags;
	tr = pkt.opcode & 0xe0;
	if ((qp->type == ROCE_QPT_RC && tr != ROCE_TR_RC) ||
	    (qp->type == ROCE_QPT_UC && tr != ROCE_TR_UC) ||
	    ((qp->type == ROCE_QPT_UD || qp->type == ROCE_QPT_GSI) && tr != ROCE_TR_UD)) {
		st->rx_bad_opcode++;
		goto drop_qp;
	}
	if (flags & ROCE_OPF_RESP) {
		if (qp->state != ROCE_QPS_RTS && qp->state != ROCE_QPS_SQD) {
			st->rx_bad_state++;
			goto drop_qp;
		}
	} else if (qp->state < ROCE_QPS_RTR || qp->state == ROCE_QPS_ERR) {
		st->rx_bad_state++;
		goto drop_qp;
	}
	if (tr == ROCE_TR_UD) {
		uint32_t want = qp->type == ROCE_QPT_GSI ? ROCE_GSI_QKEY : qp->attr.qkey;

		if (pkt.qkey != want) {
			st->rx_bad_qkey++;
			goto drop_qp;
		}
	} else if (memcmp(pkt.sgid, qp->attr.ah_attr.dgid, ROCE_GID_LEN) != 0) {
		st->rx_bad_source++;
		goto drop_qp;
	}
	if (pkt.paylen > qp->mtu) {
		st->rx_bad_length++;
		goto drop_qp;
	}
	st->rcvd_pkts++;
	qp->st.rcvd_pkts++;
	if (flags & ROCE_OPF_RESP)
		roce_comp_rx(qp, &pkt);
	else
		roce_resp_rx(qp, &pkt);
	rte_pktmbuf_free(m);
	return true;
drop_qp:
	qp->st.drops++;
drop:
	rte_pktmbuf_free(m);
	return true;
}

bool
roce_dev_frame_is_mine(const struct roce_dev *dev, const struct rte_mbuf *m)
{
	struct roce_pkt pkt;
	uint32_t i;

	if (roce_pkt_parse((struct rte_mbuf *)(uintptr_t)m, &pkt, false) == ROCE_PARSE_NOT_ROCE)
		return false;
	for (i = 0; i < dev->lim.gid_tbl_len; i++)
		if (dev->gid_valid[i] && memcmp(dev->gid[i], pkt.dgid, ROCE_GID_LEN) == 0)
			return true;
	return false;
}

uint16_t
roce_dev_rx_burst(struct roce_dev *dev, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t i, left = 0;

	for (i = 0; i < n; i++) {
		if (i + 1 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 1], void *));
		if (!roce_rx_one(dev, pkts[i]))
			pkts[left++] = pkts[i];
	}
	roce_resp_send_acks(dev);
	return left;
}
