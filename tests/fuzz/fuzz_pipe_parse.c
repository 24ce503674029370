/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * libFuzzer target: lcore placement strings (pipe_placement_parse()). The
 * input, NUL-terminated in a heap block of exactly its size, is parsed with
 * an error buffer whose size the first byte picks (0..255, so that every
 * truncation is tried). A refusal must leave a terminated message inside
 * that buffer; an accepted placement must be well formed and survive a
 * round trip through pipe_placement_format().
 */

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_placement(const struct pipe_placement *pl)
{
	uint16_t i, j, k;

	if (pl->nb_entries == 0 || pl->nb_entries > PIPE_STAGES_MAX)
		abort();
	for (i = 0; i < pl->nb_entries; i++) {
		const struct pipe_placement_entry *e = &pl->entries[i];
		size_t len = strnlen(e->name, PIPE_NAME_MAX);

		if (len == 0 || len == PIPE_NAME_MAX || e->nb_lcores == 0 ||
		    e->nb_lcores > PIPE_STAGE_LCORES_MAX)
			abort();
		for (j = 0; j < i; j++)
			if (strcmp(pl->entries[j].name, e->name) == 0)
				abort();
		for (j = 0; j < e->nb_lcores; j++) {
			if (e->lcores[j] >= RTE_MAX_LCORE)
				abort();
			for (k = 0; k < j; k++)
				if (e->lcores[k] == e->lcores[j])
					abort();
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pipe_placement pl, again;
	char text[1024];
	size_t errlen;
	char *spec, *err;
	int ret, n;

	if (size == 0)
		return 0;
	errlen = data[0];
	data++;
	size--;
	spec = malloc(size + 1);
	err = malloc(errlen ? errlen : 1);
	if (spec == NULL || err == NULL)
		goto out;
	memcpy(spec, data, size);
	spec[size] = '\0';
	memset(err, 0x5A, errlen ? errlen : 1);
	ret = pipe_placement_parse(spec, &pl, errlen ? err : NULL, errlen);
	if (ret == 0) {
		check_placement(&pl);
		if (errlen != 0 && err[0] != '\0')
			abort();
		n = pipe_placement_format(&pl, text, sizeof(text));
		if (n < 0 || (size_t)n >= sizeof(text))
			abort();
		memset(&again, 0, sizeof(again));
		if (pipe_placement_parse(text, &again, NULL, 0) != 0 ||
		    memcmp(&pl, &again, sizeof(pl)) != 0)
			abort();
	} else {
		if (ret != -EINVAL)
			abort();
		/* every refusal says something, terminated inside the buffer */
		if (errlen != 0 && (memchr(err, '\0', errlen) == NULL ||
				    (errlen > 1 && err[0] == '\0')))
			abort();
	}
out:
	free(spec);
	free(err);
	return 0;
}
