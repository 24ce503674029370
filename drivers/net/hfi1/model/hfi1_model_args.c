/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * The model's devargs (lid, pkeys, mtu, contexts, engines, wire, layout):
 * one handler each, into struct hfi1_model_conf (the opaque). net_hfi1's
 * vdev front end and vpci's hfi1 backend parse them with the same table.
 * Numbers are decimal; lid and pkeys also take 0x hex, as LIDs and P_Keys
 * are usually written.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hfi1_model.h"
#include "../base/hfi1_osal.h"
#include "omni_kvargs.h"
#include "omni_num.h"

void
hfi1_model_conf_init(struct hfi1_model_conf *mc)
{
	memset(mc, 0, sizeof(*mc));
	mc->lid = 1;
	mc->pkeys[0] = 0xFFFF;
	mc->nb_pkeys = 1;
	mc->mtu = 10240;
	mc->nb_ctxts = 16;
	mc->nb_engines = 16;
	mc->layout = HFI1_EGR_LAYOUT_FULL;
}

int
hfi1_model_arg_lid(const char *key, const char *val, void *opaque)
{
	struct hfi1_model_conf *mc = opaque;
	uint64_t v;

	/* Unicast 16-bit LIDs: the DLID CSR holds 16 bits. */
	if (omni_devarg_uint(key, val, 1, 0xBFFF, OMNI_NUM_HEX, &v) != 0)
		return -EINVAL;
	mc->lid = (uint32_t)v;
	return 0;
}

/* k[:k...]: up to HFI1_MODEL_PKEYS P_Keys, 1..0xffff each (empty entries skipped). */
int
hfi1_model_arg_pkeys(const char *key, const char *val, void *opaque)
{
	struct hfi1_model_conf *mc = opaque;
	uint16_t pkeys[HFI1_MODEL_PKEYS];
	const char *tok, *end;
	unsigned int n = 0;
	uint64_t v;

	if (val == NULL) {
		HFI1_OSAL_LOG(ERR, "%s needs a value", key);
		return -EINVAL;
	}
	for (tok = val; *tok != '\0'; tok = *end == ':' ? end + 1 : end) {
		end = strchr(tok, ':');
		if (end == NULL)
			end = tok + strlen(tok);
		if (end == tok)
			continue;
		if (n == HFI1_MODEL_PKEYS) {
			HFI1_OSAL_LOG(ERR, "pkeys: at most %d", HFI1_MODEL_PKEYS);
			return -EINVAL;
		}
		if (omni_parse_uint_n(tok, (size_t)(end - tok), 1, 0xFFFF, OMNI_NUM_HEX,
				      &v) != 0) {
			HFI1_OSAL_LOG(ERR, "pkeys=%s: '%.*s' is not a P_Key in 1..0xffff", val,
				 (int)(end - tok), tok);
			return -EINVAL;
		}
		pkeys[n++] = (uint16_t)v;
	}
	if (n == 0) {
		HFI1_OSAL_LOG(ERR, "pkeys: empty");
		return -EINVAL;
	}
	memcpy(mc->pkeys, pkeys, n * sizeof(pkeys[0]));
	mc->nb_pkeys = (uint16_t)n;
	return 0;
}

int
hfi1_model_arg_mtu(const char *key, const char *val, void *opaque)
{
	struct hfi1_model_conf *mc = opaque;
	uint64_t v;

	if (omni_devarg_uint(key, val, 2048, 10240, OMNI_NUM_DEC, &v) != 0 ||
	    (v != 2048 && v != 4096 && v != 8192 && v != 10240)) {
		HFI1_OSAL_LOG(ERR, "mtu=%s: expected 2048, 4096, 8192 or 10240",
			 val != NULL ? val : "");
		return -EINVAL;
	}
	mc->mtu = (uint16_t)v;
	return 0;
}

int
hfi1_model_arg_contexts(const char *key, const char *val, void *opaque)
{
	struct hfi1_model_conf *mc = opaque;
	uint64_t v;

	if (omni_devarg_uint(key, val, 1, HFI1_CHIP_RCV_CONTEXTS, OMNI_NUM_DEC, &v) != 0)
		return -EINVAL;
	mc->nb_ctxts = (uint16_t)v;
	return 0;
}

int
hfi1_model_arg_engines(const char *key, const char *val, void *opaque)
{
	struct hfi1_model_conf *mc = opaque;
	uint64_t v;

	if (omni_devarg_uint(key, val, 1, HFI1_CHIP_SDMA_ENGINES, OMNI_NUM_DEC, &v) != 0)
		return -EINVAL;
	mc->nb_engines = (uint16_t)v;
	return 0;
}

int
hfi1_model_arg_wire(const char *key, const char *val, void *opaque)
{
	struct hfi1_model_conf *mc = opaque;

	if (val == NULL) {
		HFI1_OSAL_LOG(ERR, "%s needs a value", key);
		return -EINVAL;
	}
	if (strlen(val) >= sizeof(mc->wire) ||
	    (strncmp(val, "ring:", 5) == 0 &&
	     (strlen(val) == 5 || strlen(val) > 5 + 20))) {
		HFI1_OSAL_LOG(ERR, "wire=%s: expected a port name or ring:NAME (NAME up to 20 characters)",
			 val);
		return -EINVAL;
	}
	snprintf(mc->wire, sizeof(mc->wire), "%s", val);
	return 0;
}

int
hfi1_model_parse_layout(const char *key, const char *val, enum hfi1_egr_layout *out,
		bool allow_auto)
{
	if (val == NULL) {
		HFI1_OSAL_LOG(ERR, "%s needs a value", key);
		return -EINVAL;
	}
	if (allow_auto && strcmp(val, "auto") == 0)
		*out = HFI1_EGR_LAYOUT_AUTO;
	else if (strcmp(val, "full") == 0)
		*out = HFI1_EGR_LAYOUT_FULL;
	else if (strcmp(val, "split") == 0)
		*out = HFI1_EGR_LAYOUT_SPLIT;
	else {
		HFI1_OSAL_LOG(ERR, "%s=%s: expected %sfull or split", key, val,
				allow_auto ? "auto, " : "");
		return -EINVAL;
	}
	return 0;
}

int
hfi1_model_arg_layout(const char *key, const char *val, void *opaque)
{
	return hfi1_model_parse_layout(key, val, &((struct hfi1_model_conf *)opaque)->layout, false);
}

