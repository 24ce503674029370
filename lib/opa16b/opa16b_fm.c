/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#include <errno.h>
#include <string.h>

#include <omni_bytes.h>

#include "opa16b.h"
#include "opa16b_fm.h"

static const char *const fm_err_names[OPA16B_FM_ERR_MAX] = {
	[OPA16B_FM_OK] = "ok",
	[OPA16B_FM_TRUNCATED] = "truncated",
	[OPA16B_FM_BAD_L2] = "bad_l2",
	[OPA16B_FM_BAD_L4] = "bad_l4",
	[OPA16B_FM_BAD_LENGTH] = "bad_length",
	[OPA16B_FM_BAD_PAD] = "bad_pad",
};

const char *
opa16b_fm_err_name(enum opa16b_fm_err err)
{
	if ((unsigned int)err >= OPA16B_FM_ERR_MAX)
		return "unknown";
	return fm_err_names[err];
}

int
opa16b_fm_build(void *buf, size_t cap, const struct opa16b_fm_fields *f,
		const void *mad, size_t mad_len)
{
	uint8_t *p = buf;
	size_t total;

	if (mad_len == 0 || mad_len > OPA16B_FM_MAD_MAX || mad_len % 8 != 0)
		return -EINVAL;
	total = mad_len + OPA16B_FM_OVERHEAD;
	if (cap < total)
		return -ENOSPC;

	memset(p, 0, OPA16B_LRH_LEN);
	opa16b_set_slid(p, f->slid);
	opa16b_set_dlid(p, f->dlid);
	opa16b_set_len(p, total / 8);
	opa16b_set_sc(p, f->sc);
	opa16b_set_rc(p, f->rc);
	opa16b_set_l2(p, OPA16B_L2_16B);
	opa16b_set_lt(p, 1);
	opa16b_set_l4(p, OPA16B_L4_FM);
	opa16b_set_pkey(p, f->pkey);
	opa16b_set_entropy(p, f->entropy);
	omni_put_be32(p + OPA16B_LRH_LEN, f->dest_qpn & OPA16B_QPN_MAX);
	omni_put_be32(p + OPA16B_LRH_LEN + 4, f->src_qpn & OPA16B_QPN_MAX);
	memcpy(p + OPA16B_FM_HDR_LEN, mad, mad_len);
	memset(p + OPA16B_FM_HDR_LEN + mad_len, 0, OPA16B_FM_PAD + OPA16B_ICRC_LEN);
	p[total - 1] = OPA16B_FM_PAD;
	return (int)total;
}

enum opa16b_fm_err
opa16b_fm_parse(const void *pkt, size_t len, struct opa16b_fm_info *info)
{
	const uint8_t *p = pkt;

	if (len < OPA16B_FM_OVERHEAD + 8)
		return OPA16B_FM_TRUNCATED;
	/* no MAD is larger than 2048 bytes: callers copy into MAD buffers */
	if (len > OPA16B_FM_OVERHEAD + OPA16B_FM_MAD_MAX)
		return OPA16B_FM_BAD_LENGTH;
	if (opa16b_get_l2(p) != OPA16B_L2_16B)
		return OPA16B_FM_BAD_L2;
	if (opa16b_get_l4(p) != OPA16B_L4_FM)
		return OPA16B_FM_BAD_L4;
	if ((size_t)opa16b_get_len(p) * 8 != len)
		return OPA16B_FM_BAD_LENGTH;
	if ((p[len - 1] & OPA16B_TAIL_PAD_MASK) != OPA16B_FM_PAD)
		return OPA16B_FM_BAD_PAD;

	info->f.slid = opa16b_get_slid(p);
	info->f.dlid = opa16b_get_dlid(p);
	info->f.pkey = opa16b_get_pkey(p);
	info->f.entropy = opa16b_get_entropy(p);
	info->f.sc = opa16b_get_sc(p);
	info->f.rc = opa16b_get_rc(p);
	/* The QPN words' top bytes are reserved; like hfi1 we ignore them. */
	info->f.dest_qpn = omni_get_be32(p + OPA16B_LRH_LEN) & OPA16B_QPN_MAX;
	info->f.src_qpn = omni_get_be32(p + OPA16B_LRH_LEN + 4) & OPA16B_QPN_MAX;
	info->mad = p + OPA16B_FM_HDR_LEN;
	info->mad_len = len - OPA16B_FM_OVERHEAD;
	return OPA16B_FM_OK;
}
