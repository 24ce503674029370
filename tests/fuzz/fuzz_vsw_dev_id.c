/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * vhost-user-rdma's reader of telemetry's `/vhost_user_rdma/dev,ID`
 * parameter (vsw_parse_dev_id), from a local client. Input: [device count
 * byte][the parameter]. Oracle: accepted exactly when the parameter is 1 to
 * 5 decimal digits naming a device below the count, with that number; a
 * refusal leaves the output untouched.
 */

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vswitch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int nb, id = 0xdead, want = 0, i;
	bool ok;
	char *s;
	int rc;

	if (size < 1)
		return 0;
	nb = data[0];
	s = malloc(size);
	if (s == NULL)
		abort();
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	ok = strlen(s) >= 1 && strlen(s) <= 5;
	for (i = 0; ok && s[i] != '\0'; i++) {
		ok = s[i] >= '0' && s[i] <= '9';
		want = want * 10 + (unsigned int)(s[i] - '0');
	}
	ok = ok && want < nb;
	rc = vsw_parse_dev_id(s, nb, &id);
	if (ok ? rc != 0 || id != want : rc != -EINVAL || id != 0xdead)
		abort();
	free(s);
	return 0;
}
