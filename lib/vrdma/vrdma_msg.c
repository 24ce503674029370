/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * The checks of the vhost-user messages the device answers or refuses itself
 * (GET_CONFIG, SET_FEATURES), apart from vrdma_vhost.c's handlers that use
 * them: no EAL, so fuzz_vrdma_msg runs them alone.
 */

#include <string.h>

#include "vrdma_virtio.h"

bool
vrdma_config_answer(const struct vrdma_net_config *cfg, struct vrdma_vu_msg *msg)
{
	const uint8_t *src = (const uint8_t *)cfg;
	uint32_t off = 0, len = 0, i;

	/* the fields exist only if the frontend sent them */
	if (msg->size >= VRDMA_VU_CONFIG_HDR) {
		off = msg->payload.cfg.offset;
		len = msg->payload.cfg.size;
	}
	if (msg->size < VRDMA_VU_CONFIG_HDR || len > VRDMA_VU_CONFIG_MAX ||
	    msg->size != VRDMA_VU_CONFIG_HDR + len || off > VRDMA_VU_CONFIG_MAX - len) {
		msg->size = VRDMA_VU_CONFIG_HDR;
		msg->payload.cfg.offset = 0;
		msg->payload.cfg.size = 0;
		msg->payload.cfg.flags = 0;
		return false;
	}
	/* bytes past the defined fields read as zero */
	for (i = 0; i < len; i++)
		msg->payload.cfg.region[i] = off + i < sizeof(*cfg) ? src[off + i] : 0;
	return true;
}

bool
vrdma_features_acceptable(unsigned int roce_bit, const struct vrdma_vu_msg *msg)
{
	uint64_t f = msg->size >= sizeof(uint64_t) ? msg->payload.u64 : 0;

	return !(f & (1ull << roce_bit)) || (f & (1ull << VRDMA_NET_F_CTRL_VQ));
}
