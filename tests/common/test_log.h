/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _TEST_LOG_H_
#define _TEST_LOG_H_

/*
 * The one way a test reads what DPDK's log said: test_log_begin() sends the
 * log stream to memory, test_log_end() restores the previous stream and
 * returns the text (free() it); test_log_of() captures one call.
 */

#include <stdio.h>
#include <stdlib.h>

#include <rte_log.h>

#include "test_case.h"

/** A capture in progress. */
struct test_log {
	FILE *f;
	FILE *old;
	char *buf;
	size_t len;
};

static inline void
test_log_begin(struct test_log *c)
{
	c->buf = NULL;
	c->len = 0;
	c->old = rte_log_get_stream();
	c->f = open_memstream(&c->buf, &c->len);
	assert_non_null(c->f);
	assert_int_equal(rte_openlog_stream(c->f), 0);
}

/** @return what was logged since test_log_begin() (NUL-terminated; free() it). */
static inline char *
test_log_end(struct test_log *c)
{
	rte_openlog_stream(c->old == stderr ? NULL : c->old);
	fclose(c->f);
	assert_non_null(c->buf);
	return c->buf;
}

/** @return what @p fn (called with @p arg) logged; free() it. */
static inline char *
test_log_of(void (*fn)(void *), void *arg)
{
	struct test_log c;

	test_log_begin(&c);
	fn(arg);
	return test_log_end(&c);
}

#endif /* _TEST_LOG_H_ */
