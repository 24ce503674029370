/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* net_e4's devargs and the PF bring-up/teardown behind one call each. */

#include <stdio.h>
#include <string.h>

#include "omni_kvargs.h"
#include "omni_num.h"

#include "base/ecore_dev_api.h"
#include "base/ecore_init_fw.h"
#include "base/ecore_mcp.h"
#include "e4_pf.h"

/* Driver version the MFW is told (SET_VERSION): 0.24.0.0, this issue's. */
#define E4_DRV_VERSION 0x00180000

static int
arg_firmware(const char *key, const char *val, void *opaque)
{
	struct e4_args *a = opaque;

	return omni_devarg_str(key, val, a->firmware, sizeof(a->firmware));
}

static int
arg_device(const char *key, const char *val, void *opaque)
{
	struct e4_args *a = opaque;
	uint64_t v;

	if (omni_devarg_uint(key, val, 0, 0xffff, OMNI_NUM_HEX, &v) != 0)
		return -EINVAL;
	if ((v & 0xff00) != 0x8000 && (v & 0xff00) != 0x1600) {
		ECORE_LOG(ERR, "devarg %s=%s: not an E4 device id (0x16xx BB, 0x80xx AH)",
			  key, val);
		return -EINVAL;
	}
	a->model.device_id = v;
	return 0;
}

static int
arg_ports(const char *key, const char *val, void *opaque)
{
	struct e4_args *a = opaque;
	uint64_t v;

	if (omni_devarg_uint(key, val, 1, 4, 0, &v) != 0)
		return -EINVAL;
	if (v == 3) {
		ECORE_LOG(ERR, "devarg %s=%s: an engine has 1, 2 or 4 ports", key, val);
		return -EINVAL;
	}
	a->model.num_ports = v;
	return 0;
}

static int
arg_pfs(const char *key, const char *val, void *opaque)
{
	struct e4_args *a = opaque;
	uint64_t v;

	if (omni_devarg_uint(key, val, 1, E4M_MAX_PFS, 0, &v) != 0)
		return -EINVAL;
	a->model.num_pfs = v;
	return 0;
}

static int
arg_pf(const char *key, const char *val, void *opaque)
{
	struct e4_args *a = opaque;
	uint64_t v;

	if (omni_devarg_uint(key, val, 0, E4M_MAX_PFS - 1, 0, &v) != 0)
		return -EINVAL;
	a->pf = v;
	return 0;
}

static int
arg_mfw_timeout(const char *key, const char *val, void *opaque)
{
	struct e4_args *a = opaque;
	uint64_t v;

	if (omni_devarg_uint(key, val, 1, 60000, 0, &v) != 0)
		return -EINVAL;
	a->mfw_timeout_ms = v;
	return 0;
}

/* XX:XX:XX:XX:XX:XX, unicast: port p's MAC is this + p */
static int
arg_mac(const char *key, const char *val, void *opaque)
{
	struct e4_args *a = opaque;
	uint64_t b;
	unsigned int i;

	for (i = 0; val != NULL && i < 6; i++) {
		if (omni_parse_uint_n(val + 3 * i, 2, 0, 0xff, OMNI_NUM_HEX_BARE, &b) != 0 ||
		    val[3 * i + 2] != (i == 5 ? '\0' : ':'))
			break;
		a->model.base_mac[i] = b;
	}
	if (i < 6 || (a->model.base_mac[0] & 1)) {
		ECORE_LOG(ERR, "devarg %s=%s: expected a unicast MAC XX:XX:XX:XX:XX:XX", key,
			  val ? val : "");
		return -EINVAL;
	}
	return 0;
}

static int
arg_mfw_version(const char *key, const char *val, void *opaque)
{
	struct e4_args *a = opaque;
	uint64_t v;

	if (omni_devarg_uint(key, val, 1, UINT32_MAX, OMNI_NUM_HEX, &v) != 0)
		return -EINVAL;
	a->model.mfw_version = v;
	return 0;
}

/* NAME[:A0[:A1]] */
static int
arg_fault(const char *key, const char *val, void *opaque)
{
	struct e4_args *a = opaque;
	char name[32];
	const char *p, *q;
	uint64_t arg[2] = { 0, 0 };
	unsigned int i;
	int f;

	if (val == NULL || a->n_faults == E4_MAX_ARG_FAULTS) {
		ECORE_LOG(ERR, "devarg %s: %s", key, val == NULL ? "needs a value" :
			  "too many faults");
		return -EINVAL;
	}
	p = strchr(val, ':');
	if ((size_t)(p ? p - val : (ptrdiff_t)strlen(val)) >= sizeof(name))
		goto bad;
	snprintf(name, sizeof(name), "%.*s", (int)(p ? p - val : (ptrdiff_t)strlen(val)), val);
	f = e4m_fault_by_name(name);
	if (f < 0)
		goto bad;
	for (i = 0; p != NULL && i < 2; i++) {
		p++;
		q = strchr(p, ':');
		if (omni_parse_uint_n(p, q ? (size_t)(q - p) : strlen(p), 0, UINT32_MAX,
				      OMNI_NUM_HEX, &arg[i]) != 0)
			goto bad;
		p = q;
	}
	if (p != NULL)
		goto bad;
	a->faults[a->n_faults].fault = f;
	a->faults[a->n_faults].arg0 = arg[0];
	a->faults[a->n_faults].arg1 = arg[1];
	a->n_faults++;
	return 0;
bad:
	ECORE_LOG(ERR, "devarg %s=%s: expected NAME[:ARG0[:ARG1]] with NAME one of "
		  "mfw_silent, load_refused, ramrod_error, eqe_late, eqe_never, poll_stuck, "
		  "dmae_error", key, val);
	return -EINVAL;
}

static const struct omni_devarg e4_devargs[] = {
	{ "firmware", arg_firmware, OMNI_DEVARG_ONCE },
	{ "device", arg_device, OMNI_DEVARG_ONCE },
	{ "ports", arg_ports, OMNI_DEVARG_ONCE },
	{ "pfs", arg_pfs, OMNI_DEVARG_ONCE },
	{ "pf", arg_pf, OMNI_DEVARG_ONCE },
	{ "mfw_timeout_ms", arg_mfw_timeout, OMNI_DEVARG_ONCE },
	{ "mac", arg_mac, OMNI_DEVARG_ONCE },
	{ "mfw_version", arg_mfw_version, OMNI_DEVARG_ONCE },
	{ "fault", arg_fault, 0 },
};

int
e4_args_parse(const char *devargs, struct e4_args *a)
{
	memset(a, 0, sizeof(*a));
	a->model.device_id = 0x8070;
	a->model.num_ports = 1;
	a->model.base_mac[1] = 0x0e;
	a->model.base_mac[2] = 0x1e;
	a->model.mfw_version = 0x083b1600;
	if (omni_devargs_parse("net_e4", devargs, e4_devargs, RTE_DIM(e4_devargs), a) != 0)
		return -EINVAL;
	if (a->model.num_pfs == 0)
		a->model.num_pfs = a->model.num_ports;
	if (a->model.num_pfs < a->model.num_ports || a->pf >= a->model.num_pfs) {
		ECORE_LOG(ERR, "net_e4: pf=%u with %u PF(s) on %u port(s) does not exist",
			  a->pf, a->model.num_pfs, a->model.num_ports);
		return -EINVAL;
	}
	return 0;
}

int
e4_pf_open(struct e4_pf *pf, const char *name, const struct e4_args *a, struct e4m_dev *model)
{
	struct ecore_hw_prepare_params prep = {
		.initiate_pf_flr = true,
		.mfw_timeout_ms = a->mfw_timeout_ms,
	};
	struct ecore_hw_init_params init = {
		.b_hw_start = true,
		.int_mode = ECORE_INT_MODE_POLL,
	};
	char err[256];
	unsigned int i;
	int rc;

	memset(pf, 0, sizeof(*pf));
	pf->model = model;
	if (model == NULL) {
		pf->model = e4m_create(name, &a->model);
		if (pf->model == NULL)
			return -ENOMEM;
		pf->own_model = true;
	}
	for (i = 0; i < a->n_faults; i++)
		e4m_fault_set(pf->model, a->faults[i].fault, a->faults[i].arg0,
			      a->faults[i].arg1);
	rc = ecore_fw_load_file(a->firmware[0] ? a->firmware : NULL, &pf->fw, err, sizeof(err));
	if (rc != ECORE_SUCCESS) {
		ECORE_LOG(ERR, "%s: firmware: %s", name, err);
		goto fail;
	}
	ecore_init_struct(&pf->dev, name);
	pf->dev.bar_ops = &e4m_bar_ops;
	pf->dev.bar_ctx = e4m_pf_ctx(pf->model, a->pf);
	pf->dev.fw = pf->fw;
	pf->dev.load_fw_version = a->load_fw_version;
	if (pf->dev.bar_ctx == NULL) {
		ECORE_LOG(ERR, "%s: PF %u is not on the adapter", name, a->pf);
		rc = -ENODEV;
		goto fail;
	}
	rc = ecore_hw_prepare(&pf->dev, &prep);
	if (rc != ECORE_SUCCESS)
		goto fail;
	pf->prepared = true;
	rc = ecore_resc_alloc(&pf->dev);
	if (rc != ECORE_SUCCESS)
		goto fail;
	pf->allocated = true;
	ecore_resc_setup(&pf->dev);
	rc = ecore_hw_init(&pf->dev, &init);
	if (rc != ECORE_SUCCESS)
		goto fail;
	pf->started = true;
	/* The MFW learns who drives the function (as qede does after hw_init). */
	rc = ecore_mcp_send_drv_version(ECORE_LEADING_HWFN(&pf->dev),
					ECORE_LEADING_HWFN(&pf->dev)->p_main_ptt,
					E4_DRV_VERSION, "omniplane net_e4");
	if (rc != ECORE_SUCCESS)
		goto fail;
	return 0;
fail:
	ECORE_LOG(ERR, "%s: bring-up failed: %s", name, ecore_status_str(rc));
	e4_pf_close(pf, true);
	return rc;
}

int
e4_pf_close(struct e4_pf *pf, bool clean)
{
	int rc = 0;

	if (pf->started && clean)
		rc = ecore_hw_stop(&pf->dev);
	pf->started = false;
	if (pf->allocated)
		ecore_resc_free(&pf->dev);
	pf->allocated = false;
	if (pf->prepared)
		ecore_hw_remove(&pf->dev);
	pf->prepared = false;
	ecore_fw_free(pf->fw);
	pf->fw = NULL;
	if (pf->own_model)
		e4m_destroy(pf->model);
	pf->model = NULL;
	return rc;
}
