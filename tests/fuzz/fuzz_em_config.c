/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * libFuzzer target: the opa-em configuration parser on arbitrary text. It
 * either accepts (and everything it returns obeys the checks: vesws exist,
 * VNIC rules hold) or refuses with a "name:line: ..." message; never a
 * crash or a leak.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "em_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct em_config cfg;
	char err[512];
	unsigned int i;

	err[0] = '\0';
	if (em_config_parse(data, size, "fuzz", &cfg, err, sizeof(err)) != 0) {
		if (strncmp(err, "fuzz", 4) != 0)
			abort(); /* every refusal names the input */
		return 0;
	}
	for (i = 0; i < cfg.nb_vports; i++) {
		const struct em_vport *vp = &cfg.vports[i];
		struct vnic_vesw_info vesw;
		struct vnic_port_info port;

		if (em_config_vesw(&cfg, vp) == NULL)
			abort();
		em_vport_info(&cfg, vp, &vesw, &port);
		if (vnic_info_check(&vesw, &port) != 0 || vp->nb_macs > VNIC_MAC_TBL_MAX)
			abort();
	}
	em_config_free(&cfg);
	return 0;
}
