/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * CM MAD encoders and decoders: one line per field at the offset
 * roce_cm_mad.h documents (IBA vol. 1 tables 106-113).
 */

#include <errno.h>
#include <string.h>

#include "omni_bytes.h"
#include "roce_cm_mad.h"

#define H ROCE_CM_HDR_LEN

void
roce_cm_hdr_init(uint8_t *mad, uint16_t attr_id, uint64_t tid)
{
	struct omni_mad_hdr h = {
		.base_version = ROCE_CM_BASE_VERSION,
		.mgmt_class = ROCE_CM_MGMT_CLASS,
		.class_version = ROCE_CM_CLASS_VERSION,
		.method = ROCE_CM_METHOD_SEND,
		.tid = tid,
		.attr_id = attr_id,
	};

	memset(mad, 0, ROCE_CM_MAD_LEN);
	omni_mad_hdr_encode(mad, &h);
}

/* A 24-bit field in the top of a 32-bit word, its low byte kept. */
static void
put_hi24(uint8_t *p, uint32_t v)
{
	omni_put_be24(p, v & 0xffffff);
}

static void
path_encode(uint8_t *p, const struct roce_cm_path *x)
{
	omni_put_be16(p, x->local_lid);
	omni_put_be16(p + 2, x->remote_lid);
	memcpy(p + 4, x->local_gid, 16);
	memcpy(p + 20, x->remote_gid, 16);
	omni_put_be32(p + 36, (x->flow_label & 0xfffff) << 12 | (x->packet_rate & 0x3f));
	p[40] = x->traffic_class;
	p[41] = x->hop_limit;
	p[42] = (uint8_t)((x->sl & 0xf) << 4 | (x->subnet_local & 1) << 3);
	p[43] = (uint8_t)((x->local_ack_timeout & 0x1f) << 3);
}

static void
path_decode(const uint8_t *p, struct roce_cm_path *x)
{
	uint32_t w = omni_get_be32(p + 36);

	x->local_lid = omni_get_be16(p);
	x->remote_lid = omni_get_be16(p + 2);
	memcpy(x->local_gid, p + 4, 16);
	memcpy(x->remote_gid, p + 20, 16);
	x->flow_label = w >> 12;
	x->packet_rate = w & 0x3f;
	x->traffic_class = p[40];
	x->hop_limit = p[41];
	x->sl = p[42] >> 4;
	x->subnet_local = (p[42] >> 3) & 1;
	x->local_ack_timeout = p[43] >> 3;
}

void
roce_cm_req_encode(uint8_t *mad, const struct roce_cm_req *m)
{
	omni_put_be32(mad + H + 0, m->local_comm_id);
	omni_put_be64(mad + H + 8, m->service_id);
	omni_put_be64(mad + H + 16, m->local_ca_guid);
	omni_put_be32(mad + H + 28, m->local_qkey);
	put_hi24(mad + H + 32, m->local_qpn);
	mad[H + 35] = m->responder_resources;
	put_hi24(mad + H + 36, m->local_eecn);
	mad[H + 39] = m->initiator_depth;
	put_hi24(mad + H + 40, m->remote_eecn);
	mad[H + 43] = (uint8_t)((m->remote_cm_response_timeout & 0x1f) << 3 |
				(m->transport & 3) << 1 | (m->e2e_flow_control & 1));
	put_hi24(mad + H + 44, m->starting_psn);
	mad[H + 47] = (uint8_t)((m->local_cm_response_timeout & 0x1f) << 3 |
				(m->retry_count & 7));
	omni_put_be16(mad + H + 48, m->pkey);
	mad[H + 50] = (uint8_t)((m->path_mtu & 0xf) << 4 | (m->rdc_exists & 1) << 3 |
				(m->rnr_retry_count & 7));
	mad[H + 51] = (uint8_t)((m->max_cm_retries & 0xf) << 4 | (m->srq & 1) << 3 |
				(m->ext_transport & 7));
	path_encode(mad + H + 52, &m->primary);
	path_encode(mad + H + 96, &m->alternate);
	memcpy(mad + ROCE_CM_REQ_PDATA_OFF, m->private_data, ROCE_CM_REQ_PDATA);
}

void
roce_cm_req_decode(const uint8_t *mad, struct roce_cm_req *m)
{
	m->local_comm_id = omni_get_be32(mad + H + 0);
	m->service_id = omni_get_be64(mad + H + 8);
	m->local_ca_guid = omni_get_be64(mad + H + 16);
	m->local_qkey = omni_get_be32(mad + H + 28);
	m->local_qpn = omni_get_be24(mad + H + 32);
	m->responder_resources = mad[H + 35];
	m->local_eecn = omni_get_be24(mad + H + 36);
	m->initiator_depth = mad[H + 39];
	m->remote_eecn = omni_get_be24(mad + H + 40);
	m->remote_cm_response_timeout = mad[H + 43] >> 3;
	m->transport = (mad[H + 43] >> 1) & 3;
	m->e2e_flow_control = mad[H + 43] & 1;
	m->starting_psn = omni_get_be24(mad + H + 44);
	m->local_cm_response_timeout = mad[H + 47] >> 3;
	m->retry_count = mad[H + 47] & 7;
	m->pkey = omni_get_be16(mad + H + 48);
	m->path_mtu = mad[H + 50] >> 4;
	m->rdc_exists = (mad[H + 50] >> 3) & 1;
	m->rnr_retry_count = mad[H + 50] & 7;
	m->max_cm_retries = mad[H + 51] >> 4;
	m->srq = (mad[H + 51] >> 3) & 1;
	m->ext_transport = mad[H + 51] & 7;
	path_decode(mad + H + 52, &m->primary);
	path_decode(mad + H + 96, &m->alternate);
	memcpy(m->private_data, mad + ROCE_CM_REQ_PDATA_OFF, ROCE_CM_REQ_PDATA);
}

void
roce_cm_mra_encode(uint8_t *mad, const struct roce_cm_mra *m)
{
	omni_put_be32(mad + H + 0, m->local_comm_id);
	omni_put_be32(mad + H + 4, m->remote_comm_id);
	mad[H + 8] = (uint8_t)((m->msg_mraed & 3) << 6);
	mad[H + 9] = (uint8_t)((m->service_timeout & 0x1f) << 3);
	memcpy(mad + ROCE_CM_MRA_PDATA_OFF, m->private_data, ROCE_CM_MRA_PDATA);
}

void
roce_cm_mra_decode(const uint8_t *mad, struct roce_cm_mra *m)
{
	m->local_comm_id = omni_get_be32(mad + H + 0);
	m->remote_comm_id = omni_get_be32(mad + H + 4);
	m->msg_mraed = mad[H + 8] >> 6;
	m->service_timeout = mad[H + 9] >> 3;
	memcpy(m->private_data, mad + ROCE_CM_MRA_PDATA_OFF, ROCE_CM_MRA_PDATA);
}

void
roce_cm_rej_encode(uint8_t *mad, const struct roce_cm_rej *m)
{
	omni_put_be32(mad + H + 0, m->local_comm_id);
	omni_put_be32(mad + H + 4, m->remote_comm_id);
	mad[H + 8] = (uint8_t)((m->msg_rejected & 3) << 6);
	mad[H + 9] = (uint8_t)((m->ari_length & 0x7f) << 1);
	omni_put_be16(mad + H + 10, m->reason);
	memcpy(mad + ROCE_CM_REJ_ARI_OFF, m->ari, ROCE_CM_REJ_ARI_LEN);
	memcpy(mad + ROCE_CM_REJ_PDATA_OFF, m->private_data, ROCE_CM_REJ_PDATA);
}

void
roce_cm_rej_decode(const uint8_t *mad, struct roce_cm_rej *m)
{
	m->local_comm_id = omni_get_be32(mad + H + 0);
	m->remote_comm_id = omni_get_be32(mad + H + 4);
	m->msg_rejected = mad[H + 8] >> 6;
	m->ari_length = mad[H + 9] >> 1;
	m->reason = omni_get_be16(mad + H + 10);
	memcpy(m->ari, mad + ROCE_CM_REJ_ARI_OFF, ROCE_CM_REJ_ARI_LEN);
	memcpy(m->private_data, mad + ROCE_CM_REJ_PDATA_OFF, ROCE_CM_REJ_PDATA);
}

void
roce_cm_rep_encode(uint8_t *mad, const struct roce_cm_rep *m)
{
	omni_put_be32(mad + H + 0, m->local_comm_id);
	omni_put_be32(mad + H + 4, m->remote_comm_id);
	omni_put_be32(mad + H + 8, m->local_qkey);
	put_hi24(mad + H + 12, m->local_qpn);
	put_hi24(mad + H + 16, m->local_eecn);
	put_hi24(mad + H + 20, m->starting_psn);
	mad[H + 24] = m->responder_resources;
	mad[H + 25] = m->initiator_depth;
	mad[H + 26] = (uint8_t)((m->target_ack_delay & 0x1f) << 3 |
				(m->failover_accepted & 3) << 1 | (m->e2e_flow_control & 1));
	mad[H + 27] = (uint8_t)((m->rnr_retry_count & 7) << 5 | (m->srq & 1) << 4);
	omni_put_be64(mad + H + 28, m->local_ca_guid);
	memcpy(mad + ROCE_CM_REP_PDATA_OFF, m->private_data, ROCE_CM_REP_PDATA);
}

void
roce_cm_rep_decode(const uint8_t *mad, struct roce_cm_rep *m)
{
	m->local_comm_id = omni_get_be32(mad + H + 0);
	m->remote_comm_id = omni_get_be32(mad + H + 4);
	m->local_qkey = omni_get_be32(mad + H + 8);
	m->local_qpn = omni_get_be24(mad + H + 12);
	m->local_eecn = omni_get_be24(mad + H + 16);
	m->starting_psn = omni_get_be24(mad + H + 20);
	m->responder_resources = mad[H + 24];
	m->initiator_depth = mad[H + 25];
	m->target_ack_delay = mad[H + 26] >> 3;
	m->failover_accepted = (mad[H + 26] >> 1) & 3;
	m->e2e_flow_control = mad[H + 26] & 1;
	m->rnr_retry_count = mad[H + 27] >> 5;
	m->srq = (mad[H + 27] >> 4) & 1;
	m->local_ca_guid = omni_get_be64(mad + H + 28);
	memcpy(m->private_data, mad + ROCE_CM_REP_PDATA_OFF, ROCE_CM_REP_PDATA);
}

void
roce_cm_rtu_encode(uint8_t *mad, const struct roce_cm_rtu *m)
{
	omni_put_be32(mad + H + 0, m->local_comm_id);
	omni_put_be32(mad + H + 4, m->remote_comm_id);
	memcpy(mad + ROCE_CM_RTU_PDATA_OFF, m->private_data, ROCE_CM_RTU_PDATA);
}

void
roce_cm_rtu_decode(const uint8_t *mad, struct roce_cm_rtu *m)
{
	m->local_comm_id = omni_get_be32(mad + H + 0);
	m->remote_comm_id = omni_get_be32(mad + H + 4);
	memcpy(m->private_data, mad + ROCE_CM_RTU_PDATA_OFF, ROCE_CM_RTU_PDATA);
}

void
roce_cm_dreq_encode(uint8_t *mad, const struct roce_cm_dreq *m)
{
	omni_put_be32(mad + H + 0, m->local_comm_id);
	omni_put_be32(mad + H + 4, m->remote_comm_id);
	put_hi24(mad + H + 8, m->remote_qpn);
	memcpy(mad + ROCE_CM_DREQ_PDATA_OFF, m->private_data, ROCE_CM_DREQ_PDATA);
}

void
roce_cm_dreq_decode(const uint8_t *mad, struct roce_cm_dreq *m)
{
	m->local_comm_id = omni_get_be32(mad + H + 0);
	m->remote_comm_id = omni_get_be32(mad + H + 4);
	m->remote_qpn = omni_get_be24(mad + H + 8);
	memcpy(m->private_data, mad + ROCE_CM_DREQ_PDATA_OFF, ROCE_CM_DREQ_PDATA);
}

static const uint8_t v4_mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

static void
addr_put(uint8_t *p, uint8_t ipver, const uint8_t *a)
{
	memset(p, 0, 16);
	if (ipver == 4)
		memcpy(p + 12, a + 12, 4);
	else
		memcpy(p, a, 16);
}

static void
addr_get(const uint8_t *p, uint8_t ipver, uint8_t *a)
{
	if (ipver == 4) {
		memcpy(a, v4_mapped, 12);
		memcpy(a + 12, p + 12, 4);
	} else {
		memcpy(a, p, 16);
	}
}

int
roce_cm_ip_hdr_encode(uint8_t *p, const struct roce_cm_ip_hdr *h)
{
	if (h->ip_version != 4 && h->ip_version != 6)
		return -EINVAL;
	p[0] = ROCE_CM_IP_HDR_VERSION;
	p[1] = (uint8_t)(h->ip_version << 4);
	omni_put_be16(p + 2, h->src_port);
	addr_put(p + 4, h->ip_version, h->src_addr);
	addr_put(p + 20, h->ip_version, h->dst_addr);
	return 0;
}

int
roce_cm_ip_hdr_decode(const uint8_t *p, size_t len, struct roce_cm_ip_hdr *h)
{
	if (len < ROCE_CM_IP_HDR_LEN || p[0] != ROCE_CM_IP_HDR_VERSION)
		return -EINVAL;
	h->ip_version = p[1] >> 4;
	if (h->ip_version != 4 && h->ip_version != 6)
		return -EINVAL;
	h->src_port = omni_get_be16(p + 2);
	addr_get(p + 4, h->ip_version, h->src_addr);
	addr_get(p + 20, h->ip_version, h->dst_addr);
	return 0;
}
