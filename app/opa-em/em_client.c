/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* MADs over a DPDK port: send, match replies by TID, retry, dispatch traps. */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <omni_port.h>

#include "em_client.h"
#include "opa16b_fm.h"

#define EM_BURST 32

static uint64_t
ms_to_cycles(unsigned int ms)
{
	return rte_get_timer_hz() / 1000 * ms;
}

int
em_client_start(struct em_client *c, unsigned int link_wait_ms)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	struct rte_eth_link link;
	uint64_t deadline;
	int ret;

	memset(&conf, 0, sizeof(conf));
	ret = rte_eth_dev_info_get(c->port_id, &info);
	if (ret != 0) {
		fprintf(stderr, "opa-em: port %u: %s\n", c->port_id, rte_strerror(-ret));
		return ret;
	}
	/* FM packets are 2080 bytes: take them in segments where the port can */
	if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER)
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
	ret = rte_eth_dev_configure(c->port_id, 1, 1, &conf);
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(c->port_id, 0, 256, rte_eth_dev_socket_id(c->port_id),
					     NULL, c->pool);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(c->port_id, 0, 256, rte_eth_dev_socket_id(c->port_id),
					     NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(c->port_id);
	if (ret != 0) {
		fprintf(stderr, "opa-em: cannot start port %u: %s\n", c->port_id,
			rte_strerror(-ret));
		return ret;
	}
	/* larger than any FM packet; ports that cannot are used as they are */
	(void)rte_eth_dev_set_mtu(c->port_id, RTE_MIN(info.max_mtu, (uint16_t)9000));
	deadline = rte_get_timer_cycles() + ms_to_cycles(link_wait_ms);
	do {
		if (rte_eth_link_get_nowait(c->port_id, &link) == 0 && link.link_status)
			return 0;
		rte_delay_ms(10);
	} while (rte_get_timer_cycles() < deadline);
	fprintf(stderr, "opa-em: port %u: link down after %u ms\n", c->port_id, link_wait_ms);
	return -ENOLINK;
}

void
em_client_stop(struct em_client *c)
{
	omni_port_close(c->port_id, true);
}

static int
send_mad(struct em_client *c, uint32_t dlid, const uint8_t *mad, size_t mad_len)
{
	struct opa16b_fm_fields f = {
		.slid = c->lid,
		.dlid = dlid,
		.pkey = c->pkey,
		.sc = c->sl,
		.dest_qpn = OPA16B_QPN_GSI,
		.src_qpn = OPA16B_QPN_GSI,
	};
	struct rte_mbuf *m = rte_pktmbuf_alloc(c->pool);
	char *p;
	int n;

	if (m == NULL)
		return -ENOMEM;
	p = rte_pktmbuf_append(m, mad_len + OPA16B_FM_OVERHEAD);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return -ENOSPC;
	}
	n = opa16b_fm_build(p, mad_len + OPA16B_FM_OVERHEAD, &f, mad, mad_len);
	if (n < 0 || rte_eth_tx_burst(c->port_id, 0, &m, 1) != 1) {
		rte_pktmbuf_free(m);
		return n < 0 ? n : -EAGAIN;
	}
	return 0;
}

static void
handle_trap(struct em_client *c, const struct opa16b_fm_info *info, const struct vema_hdr *h)
{
	struct em_trap trap = { .slid = info->f.slid, .tid = h->mad.tid };
	uint8_t mad[VEMA_MAD_SIZE];
	struct vema_hdr r;

	if (info->mad_len < VEMA_HDR_LEN + VEMA_NOTICE_LEN ||
	    vema_notice_decode(info->mad + VEMA_HDR_LEN, &trap.t) != 0) {
		c->stats.ignored++;
		return;
	}
	c->stats.traps++;
	if (c->repress) {
		/* TrapRepress: the same header and Notice, method 0x07 */
		memcpy(mad, info->mad, VEMA_HDR_LEN + VEMA_NOTICE_LEN);
		memset(mad + VEMA_HDR_LEN + VEMA_NOTICE_LEN, 0, VEMA_TRAP_MAD_LEN -
		       VEMA_HDR_LEN - VEMA_NOTICE_LEN);
		vema_hdr_decode(mad, &r);
		r.mad.method = VEMA_METHOD_TRAP_REPRESS;
		vema_hdr_encode(mad, &r);
		(void)send_mad(c, info->f.slid, mad, VEMA_TRAP_MAD_LEN);
	}
	if (c->on_trap != NULL)
		c->on_trap(c->trap_arg, &trap);
}

/*
 * Receive one burst. Returns 1 when the reply to @tid was found (copied to
 * @reply, status set), else 0.
 */
static int
rx_once(struct em_client *c, uint64_t tid, uint8_t *reply, uint16_t *status)
{
	uint8_t flat[VEMA_MAD_SIZE + OPA16B_FM_OVERHEAD];
	struct rte_mbuf *pkts[EM_BURST];
	uint16_t n, i;
	int found = 0;

	n = rte_eth_rx_burst(c->port_id, 0, pkts, EM_BURST);
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct opa16b_fm_info info;
		struct vema_hdr h;
		const void *p = NULL;

		if (m->pkt_len <= sizeof(flat))
			p = rte_pktmbuf_read(m, 0, m->pkt_len, flat);
		if (p == NULL || opa16b_fm_parse(p, m->pkt_len, &info) != OPA16B_FM_OK ||
		    info.f.dlid != c->lid || info.mad_len < VEMA_HDR_LEN) {
			c->stats.ignored++;
			rte_pktmbuf_free(m);
			continue;
		}
		vema_hdr_decode(info.mad, &h);
		if (h.mad.mgmt_class != VEMA_MGMT_CLASS) {
			c->stats.ignored++;
		} else if (h.mad.method == VEMA_METHOD_TRAP && h.mad.attr_id == VEMA_ATTR_NOTICE) {
			handle_trap(c, &info, &h);
		} else if (h.mad.method == VEMA_METHOD_GET_RESP && h.mad.tid == tid && !found) {
			memset(reply, 0, VEMA_DATA_LEN);
			memcpy(reply, info.mad + VEMA_HDR_LEN, info.mad_len - VEMA_HDR_LEN);
			*status = h.mad.status;
			c->stats.replies++;
			found = 1;
		} else {
			c->stats.ignored++; /* a late reply to an earlier try, or junk */
		}
		rte_pktmbuf_free(m);
	}
	return found;
}

int
em_call(struct em_client *c, uint32_t dlid, uint8_t method, uint16_t attr_id, uint32_t attr_mod,
	const void *data, size_t dlen, uint8_t *reply, uint16_t *status)
{
	uint8_t mad[VEMA_MAD_SIZE];
	struct vema_hdr h;
	unsigned int attempt;
	uint64_t tid = c->next_tid++;
	int ret;

	if (dlen > VEMA_DATA_LEN)
		return -EINVAL;
	memset(mad, 0, sizeof(mad));
	vema_hdr_request(&h, method, attr_id, attr_mod, tid);
	vema_hdr_encode(mad, &h);
	if (dlen > 0)
		memcpy(mad + VEMA_HDR_LEN, data, dlen);
	c->stats.requests++;
	for (attempt = 0; attempt <= c->retries; attempt++) {
		uint64_t deadline;

		if (attempt > 0)
			c->stats.retries++;
		ret = send_mad(c, dlid, mad, VEMA_MAD_SIZE);
		if (ret != 0 && ret != -EAGAIN)
			return ret;
		deadline = rte_get_timer_cycles() + ms_to_cycles(c->timeout_ms);
		do {
			if (rx_once(c, tid, reply, status))
				return 0;
			if (c->stop != NULL && *c->stop)
				return -EINTR;
			rte_delay_us_sleep(50);
		} while (rte_get_timer_cycles() < deadline);
	}
	c->stats.timeouts++;
	return -ETIMEDOUT;
}

void
em_listen(struct em_client *c, unsigned int ms, volatile sig_atomic_t *stop)
{
	uint64_t deadline = rte_get_timer_cycles() + ms_to_cycles(ms);
	uint8_t reply[VEMA_DATA_LEN];
	uint16_t status;

	do {
		(void)rx_once(c, UINT64_MAX, reply, &status);
		rte_delay_us_sleep(200);
	} while (rte_get_timer_cycles() < deadline && (stop == NULL || !*stop));
}
