/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * vpci's configuration text (VPCI_DEVICES, VPCI_CONFIG files: written by a
 * user, read by every process vpci is preloaded into): split into entries
 * and each parsed. Checks: an accepted entry's fields are in range and its
 * strings terminated; a refusal says why.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vpci_priv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
one(const char *entry, void *arg)
{
	struct vpci_conf *c = arg;
	char err[256];
	unsigned int i;

	if (vpci_conf_parse(entry, c, err, sizeof(err)) != 0) {
		if (err[0] == '\0')
			abort();
		return;
	}
	if (c->devid > 0x1f || c->function > 7 || c->model[0] == '\0' ||
			strlen(c->model) >= sizeof(c->model) || strlen(c->args) >= sizeof(c->args) ||
			c->nb_files > VPCI_MAX_FILES || (c->numa != -2 && c->numa > 1023) ||
			c->sysfs > VPCI_SYSFS_NO_IOMMU_GROUP)
		abort();
	for (i = 0; i < c->nb_files; i++)
		if (c->file_from[i][0] != '/' || c->file_to[i][0] != '/')
			abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vpci_conf c;
	char *text = malloc(size + 1);

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	vpci_conf_split(text, one, &c);
	free(text);
	return 0;
}
