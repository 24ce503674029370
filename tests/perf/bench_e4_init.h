/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * Timing net_e4's init-values file: parsing (ecore_fw_parse(): every op
 * checked, the zipped arrays inflated) and a dry run of a PF load over a
 * counting sink. bench_e4_init.c prints them; a bring-up benchmark prints
 * its own figures beside bench_e4_parse()'s.
 */

#ifndef OMNIPLANE_BENCH_E4_INIT_H
#define OMNIPLANE_BENCH_E4_INIT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_stats.h"
#include "ecore_init_fw.h"
#include "ecore_init_ops.h"

/** Figures of one timing: median and minimum of its rounds, in ms. */
struct bench_e4_ms {
	double median, min;
	unsigned int rounds;
};

static inline double
bench_e4_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static inline void
bench_e4_summarise(double *t, unsigned int n, struct bench_e4_ms *out)
{
	out->median = bench_median(t, n);	/* sorts t */
	out->min = t[0];
	out->rounds = n;
}

/*
 * Read @p path once, then time ecore_fw_parse() + ecore_fw_free() of it
 * @p rounds times (the file read is not timed).
 * @return 0, or -1 (the file unreadable or refused: said on stderr).
 */
static inline int
bench_e4_parse(const char *path, unsigned int rounds, struct bench_e4_ms *out)
{
	struct ecore_fw_image *img;
	double *t = calloc(rounds, sizeof(*t));
	uint8_t *buf = NULL;
	char err[256];
	unsigned int i;
	long len;
	FILE *f;

	f = fopen(path, "rb");
	if (t == NULL || f == NULL || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) <= 0 ||
	    fseek(f, 0, SEEK_SET) != 0 || (buf = malloc(len)) == NULL ||
	    fread(buf, 1, len, f) != (size_t)len) {
		fprintf(stderr, "bench_e4_parse: cannot read %s (run scripts/setup.sh)\n", path);
		goto fail;
	}
	for (i = 0; i < rounds; i++) {
		double t0 = bench_e4_now_ms();

		if (ecore_fw_parse(buf, len, &img, err, sizeof(err)) != ECORE_SUCCESS) {
			fprintf(stderr, "bench_e4_parse: %s refused: %s\n", path, err);
			goto fail;
		}
		ecore_fw_free(img);
		t[i] = bench_e4_now_ms() - t0;
	}
	bench_e4_summarise(t, rounds, out);
	fclose(f);
	free(buf);
	free(t);
	return 0;
fail:
	if (f != NULL)
		fclose(f);
	free(buf);
	free(t);
	return -1;
}

#endif /* OMNIPLANE_BENCH_E4_INIT_H */
