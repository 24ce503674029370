/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * net_e4's devargs parser (e4_args_parse, drivers/net/e4/e4_pf.c), whose
 * fault=NAME[:A0[:A1]] values are parsed by hand. Input: the devargs text.
 * Oracles: the answer is 0 or -EINVAL; an accepted set of devargs keeps every
 * documented limit (device id family, 1/2/4 ports, PF count and index, MFW
 * timeout, at most E4_MAX_ARG_FAULTS known faults, a NUL-terminated path);
 * every accepted fault parses back to itself from its canonical text; and when
 * the input is one fault= whose value kvargs cannot split further, it is
 * accepted exactly when a reference grammar says so, with the same numbers.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_log.h>

#include "e4_pf.h"
#include "model/e4_model.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The names the devarg documents, by enum e4m_fault. */
static const char *const names[E4M_FAULT__MAX] = {
	[E4M_FAULT_MFW_SILENT] = "mfw_silent",
	[E4M_FAULT_LOAD_REFUSED] = "load_refused",
	[E4M_FAULT_RAMROD_ERROR] = "ramrod_error",
	[E4M_FAULT_EQE_LATE] = "eqe_late",
	[E4M_FAULT_EQE_NEVER] = "eqe_never",
	[E4M_FAULT_POLL_STUCK] = "poll_stuck",
	[E4M_FAULT_DMAE_ERROR] = "dmae_error",
};

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	unsigned int i;

	(void)argc;
	(void)argv;
	/* every refusal logs a line: keep the run fast */
	rte_log_set_global_level(RTE_LOG_CRIT);
	for (i = 0; i < E4M_FAULT__MAX; i++)
		if (e4m_fault_by_name(names[i]) != (int)i)
			abort();
	return 0;
}

/* omni_num's rules with OMNI_NUM_HEX, as far as UINT32_MAX. */
static bool
ref_number(const char *s, size_t len, uint32_t *out)
{
	unsigned int base = 10, d;
	uint64_t v = 0;
	size_t i = 0;

	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == len)
		return false;
	for (; i < len; i++) {
		if (s[i] >= '0' && s[i] <= '9')
			d = s[i] - '0';
		else if (base == 16 && s[i] >= 'a' && s[i] <= 'f')
			d = s[i] - 'a' + 10;
		else if (base == 16 && s[i] >= 'A' && s[i] <= 'F')
			d = s[i] - 'A' + 10;
		else
			return false;
		v = v * base + d;
		if (v > UINT32_MAX)
			return false;
	}
	*out = (uint32_t)v;
	return true;
}

/* NAME[:A0[:A1]]: the fault and its two arguments, or false. */
static bool
ref_fault(const char *v, int *f, uint32_t arg[2])
{
	const char *p = strchr(v, ':'), *q;
	size_t n = p != NULL ? (size_t)(p - v) : strlen(v);
	unsigned int i;

	*f = -1;
	for (i = 0; i < E4M_FAULT__MAX; i++)
		if (strlen(names[i]) == n && memcmp(names[i], v, n) == 0)
			*f = i;
	if (*f < 0)
		return false;
	arg[0] = arg[1] = 0;
	for (i = 0; p != NULL; i++) {
		if (i == 2)
			return false;
		p++;
		q = strchr(p, ':');
		if (!ref_number(p, q != NULL ? (size_t)(q - p) : strlen(p), &arg[i]))
			return false;
		p = q;
	}
	return true;
}

/* A value kvargs hands over whole: no list brackets, separators or spaces. */
static bool
plain_value(const char *v)
{
	for (; *v != '\0'; v++)
		if (!((*v >= 'a' && *v <= 'z') || (*v >= 'A' && *v <= 'Z') ||
		      (*v >= '0' && *v <= '9') || *v == '_' || *v == ':'))
			return false;
	return true;
}

static void
check_accepted(const struct e4_args *a)
{
	unsigned int i;

	if ((a->model.device_id & 0xff00) != 0x8000 && (a->model.device_id & 0xff00) != 0x1600)
		abort();
	if (a->model.num_ports != 1 && a->model.num_ports != 2 && a->model.num_ports != 4)
		abort();
	if (a->model.num_pfs < a->model.num_ports || a->model.num_pfs > E4M_MAX_PFS ||
	    a->pf >= a->model.num_pfs)
		abort();
	if (a->mfw_timeout_ms > 60000)
		abort();
	if (memchr(a->firmware, '\0', sizeof(a->firmware)) == NULL)
		abort();
	if (a->n_faults > E4_MAX_ARG_FAULTS)
		abort();
	for (i = 0; i < a->n_faults; i++) {
		struct e4_args b;
		char spec[96];

		if (a->faults[i].fault < 0 || a->faults[i].fault >= E4M_FAULT__MAX)
			abort();
		/* the canonical text of the fault gives the same fault back */
		snprintf(spec, sizeof(spec), "fault=%s:0x%x:%u", names[a->faults[i].fault],
			 a->faults[i].arg0, a->faults[i].arg1);
		if (e4_args_parse(spec, &b) != 0 || b.n_faults != 1 ||
		    b.faults[0].fault != a->faults[i].fault ||
		    b.faults[0].arg0 != a->faults[i].arg0 || b.faults[0].arg1 != a->faults[i].arg1)
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct e4_args *a;
	uint32_t arg[2];
	char *s;
	int rc, f;
	bool ok;

	if (size > 4096)
		return 0;
	s = malloc(size + 1);
	a = malloc(sizeof(*a));
	if (s == NULL || a == NULL)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	rc = e4_args_parse(s, a);
	if (rc != 0 && rc != -EINVAL)
		abort();
	if (rc == 0)
		check_accepted(a);
	/* one fault=VALUE: the parser agrees with the reference grammar */
	if (strlen(s) == size && strncmp(s, "fault=", 6) == 0 && plain_value(s + 6)) {
		ok = ref_fault(s + 6, &f, arg);
		if (ok != (rc == 0))
			abort();
		if (ok && (a->n_faults != 1 || a->faults[0].fault != f ||
			   a->faults[0].arg0 != arg[0] || a->faults[0].arg1 != arg[1]))
			abort();
	}
	free(a);
	free(s);
	return 0;
}
