/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * libFuzzer target: the vhost-user messages lib/vrdma answers itself
 * (vrdma_config_answer(), vrdma_features_acceptable()). The input is the
 * message as rte_vhost hands it to a pre-handler: header, then payload
 * bytes; the rest of the buffer holds stale bytes (0xa5), as rte_vhost's
 * does. An answer must copy exactly the requested window of the
 * configuration space (zeros past it) into a payload of 12 + length; a
 * refusal must be the 12-byte header with length 0 and change nothing else.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vrdma_virtio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vrdma_net_config cfg;
	struct vrdma_vu_msg msg, before;
	const uint8_t *src = (const uint8_t *)&cfg;
	uint32_t i, off, len;

	for (i = 0; i < sizeof(cfg); i++)
		((uint8_t *)&cfg)[i] = (uint8_t)(0x10 + i);
	memset(&msg, 0xa5, sizeof(msg));
	memcpy(&msg, data, size < sizeof(msg) ? size : sizeof(msg));
	/* rte_vhost refuses a payload larger than its buffer before any handler */
	if (msg.size > sizeof(msg.payload))
		msg.size %= sizeof(msg.payload) + 1;
	before = msg;

	if (vrdma_config_answer(&cfg, &msg)) {
		off = before.payload.cfg.offset;
		len = before.payload.cfg.size;
		if (before.size != VRDMA_VU_CONFIG_HDR + len || len > VRDMA_VU_CONFIG_MAX ||
		    off + (uint64_t)len > VRDMA_VU_CONFIG_MAX || msg.size != before.size)
			abort();
		for (i = 0; i < len; i++)
			if (msg.payload.cfg.region[i] != (off + i < sizeof(cfg) ? src[off + i] : 0))
				abort();
		/* nothing past the answer is touched */
		if (memcmp(msg.payload.cfg.region + len, before.payload.cfg.region + len,
			   VRDMA_VU_CONFIG_MAX - len) != 0)
			abort();
	} else {
		if (msg.size != VRDMA_VU_CONFIG_HDR || msg.payload.cfg.size != 0 ||
		    msg.payload.cfg.offset != 0 || msg.payload.cfg.flags != 0 ||
		    memcmp(msg.payload.cfg.region, before.payload.cfg.region,
			   VRDMA_VU_CONFIG_MAX) != 0 || msg.request != before.request)
			abort();
	}

	/* SET_FEATURES: RoCE on bit 55 needs CTRL_VQ; any other set is fine */
	msg = before;
	if (vrdma_features_acceptable(55, &msg) !=
	    !(msg.size >= 8 && (msg.payload.u64 & (1ull << 55)) &&
	      !(msg.payload.u64 & (1ull << VRDMA_NET_F_CTRL_VQ))))
		abort();
	return 0;
}
