/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef OMNIPLANE_BENCH_STATS_H
#define OMNIPLANE_BENCH_STATS_H

/*
 * The one way the benchmarks summarise their rounds: sort the samples and
 * take the median (the mean of the middle two for an even count).
 */

#include <stdlib.h>

/** qsort() order of doubles, ascending. */
static inline int
bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/** Sort the @p n samples of @p v (n > 0) and return their median. */
static inline double
bench_median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif /* OMNIPLANE_BENCH_STATS_H */
