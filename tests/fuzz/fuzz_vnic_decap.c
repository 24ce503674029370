/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * libFuzzer target: VNIC decap of arbitrary bytes, both the flat check and
 * the mbuf decap. The packet lives in a heap block of exactly its size, so
 * ASan reports any read outside it. Accepted packets must satisfy the
 * format's invariants, checked here (abort on violation).
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "opa16b_vnic.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct opa16b_vnic_rx_info info;
	enum opa16b_vnic_rx_err err, err_m;
	struct rte_mbuf m;
	uint32_t mtu;
	uint16_t vesw = 0;
	uint8_t *buf;

	if (size > UINT16_MAX)
		return 0;
	/* the MTU comes from the input too, so oversize paths are explored */
	mtu = size > 0 ? 1500 + 64u * data[0] : 1500;

	buf = malloc(size ? size : 1);
	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);

	err = opa16b_vnic_check_buf(buf, size, mtu, &info);
	if (err >= OPA16B_VNIC_RX_ERR_MAX)
		abort();
	if (err == OPA16B_VNIC_RX_OK &&
	    (opa16b_vnic_wire_len(info.eth_len) != size || info.eth_len < 60 ||
	     info.eth_len > mtu + OPA16B_VNIC_ETH_OVERHEAD || info.vesw_id > OPA16B_VESW_ID_MAX))
		abort();

	/* An mbuf without EAL: a single segment over the heap block. */
	memset(&m, 0, sizeof(m));
	m.buf_addr = buf;
	m.buf_len = size;
	m.data_off = 0;
	m.data_len = size;
	m.pkt_len = size;
	m.nb_segs = 1;
	rte_mbuf_refcnt_set(&m, 1);
	err_m = opa16b_vnic_decap(&m, mtu, &vesw);
	if (err_m != err)
		abort(); /* the two paths must agree */
	if (err_m == OPA16B_VNIC_RX_OK) {
		if (m.pkt_len != info.eth_len || m.data_len != info.eth_len ||
		    m.data_off != OPA16B_VNIC_HDR_LEN || vesw != info.vesw_id)
			abort();
	} else if (m.data_off != 0 || m.data_len != size || m.pkt_len != size) {
		abort(); /* a rejected packet is left unchanged */
	}
	free(buf);
	return 0;
}
