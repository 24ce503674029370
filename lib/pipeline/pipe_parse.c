/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* Placement strings ("rx@1,work@(2-3),tx@1"): a hand-written recursive
 * descent over the grammar in pipeline.h. Pure C, no EAL: fuzzed alone.
 */

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_config.h>

#include <omni_num.h>

#include "pipeline.h"

struct parser {
	const char *s;   /* the whole string */
	size_t pos;      /* next character */
	char *err;
	size_t errlen;
};

static int __rte_format_printf(2, 3)
fail(struct parser *ps, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (ps->err == NULL || ps->errlen == 0)
		return -EINVAL;
	n = snprintf(ps->err, ps->errlen, "offset %zu: ", ps->pos);
	if (n >= 0 && (size_t)n < ps->errlen) {
		va_start(ap, fmt);
		vsnprintf(ps->err + n, ps->errlen - n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* What is at the current position, quoted for a message. */
static const char *
found(const struct parser *ps, char *buf, size_t len)
{
	unsigned char c = (unsigned char)ps->s[ps->pos];

	if (c == '\0')
		snprintf(buf, len, "end of string");
	else if (isprint(c))
		snprintf(buf, len, "'%c'", c);
	else
		snprintf(buf, len, "byte 0x%02x", c);
	return buf;
}

static int
is_name_start(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static int
is_name_char(char c)
{
	return is_name_start(c) || (c >= '0' && c <= '9');
}

static int
parse_name(struct parser *ps, char *name)
{
	size_t start = ps->pos, len;
	char what[32];

	if (!is_name_start(ps->s[ps->pos])) {
		if (ps->s[ps->pos] >= '0' && ps->s[ps->pos] <= '9' && start > 0 &&
		    ps->s[start - 1] == ',')
			return fail(ps, "expected a stage name, found %s (several lcores "
				    "of one stage go in parentheses: work@(2,4))",
				    found(ps, what, sizeof(what)));
		return fail(ps, "expected a stage name, found %s",
			    found(ps, what, sizeof(what)));
	}
	while (is_name_char(ps->s[ps->pos]))
		ps->pos++;
	len = ps->pos - start;
	if (len >= PIPE_NAME_MAX) {
		ps->pos = start;
		return fail(ps, "stage name longer than %d characters", PIPE_NAME_MAX - 1);
	}
	memcpy(name, ps->s + start, len);
	name[len] = '\0';
	return 0;
}

static int
parse_lcore(struct parser *ps, unsigned int *lcore)
{
	size_t start = ps->pos;
	size_t len = strspn(ps->s + start, "0123456789");
	uint64_t v;
	char what[32];

	if (len == 0)
		return fail(ps, "expected an lcore number, found %s",
			    found(ps, what, sizeof(what)));
	/* the whole run of digits is the number: any count of leading zeros, any length */
	if (omni_parse_uint_n(ps->s + start, len, 0, RTE_MAX_LCORE - 1, OMNI_NUM_DEC, &v) != 0)
		return fail(ps, "lcore %.*s out of range 0..%d", (int)RTE_MIN(len, (size_t)20),
			    ps->s + start, RTE_MAX_LCORE - 1);
	ps->pos = start + len;
	*lcore = (unsigned int)v;
	return 0;
}

static int
add_lcore(struct parser *ps, struct pipe_placement_entry *e, unsigned int lcore)
{
	uint16_t i;

	for (i = 0; i < e->nb_lcores; i++)
		if (e->lcores[i] == lcore)
			return fail(ps, "stage '%s': lcore %u listed twice", e->name, lcore);
	if (e->nb_lcores == PIPE_STAGE_LCORES_MAX)
		return fail(ps, "stage '%s': more than %d lcores", e->name,
			    PIPE_STAGE_LCORES_MAX);
	e->lcores[e->nb_lcores++] = (uint16_t)lcore;
	return 0;
}

/* item := lcore | lcore '-' lcore */
static int
parse_item(struct parser *ps, struct pipe_placement_entry *e)
{
	unsigned int lo, hi, l;
	size_t start = ps->pos;
	int ret;

	ret = parse_lcore(ps, &lo);
	if (ret != 0)
		return ret;
	hi = lo;
	if (ps->s[ps->pos] == '-') {
		ps->pos++;
		ret = parse_lcore(ps, &hi);
		if (ret != 0)
			return ret;
		if (hi < lo) {
			ps->pos = start;
			return fail(ps, "range %u-%u runs backwards", lo, hi);
		}
	}
	for (l = lo; l <= hi; l++) {
		ret = add_lcore(ps, e, l);
		if (ret != 0)
			return ret;
	}
	return 0;
}

/* lcores := item | '(' item (',' item)* ')' */
static int
parse_lcores(struct parser *ps, struct pipe_placement_entry *e)
{
	char what[32];
	int ret;

	if (ps->s[ps->pos] != '(')
		return parse_item(ps, e);
	ps->pos++;
	for (;;) {
		ret = parse_item(ps, e);
		if (ret != 0)
			return ret;
		if (ps->s[ps->pos] == ')')
			break;
		if (ps->s[ps->pos] != ',')
			return fail(ps, "expected ',' or ')' in the lcore group, found %s",
				    found(ps, what, sizeof(what)));
		ps->pos++;
	}
	ps->pos++;
	return 0;
}

int
pipe_placement_parse(const char *spec, struct pipe_placement *pl, char *err, size_t errlen)
{
	struct parser ps = { .s = spec, .pos = 0, .err = err, .errlen = errlen };
	char what[32];
	uint16_t i;
	int ret;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (pl == NULL || spec == NULL || spec[0] == '\0') {
		ps.s = "";
		return fail(&ps, "empty placement: expected stage@lcores[,stage@lcores...]");
	}
	memset(pl, 0, sizeof(*pl));
	for (;;) {
		struct pipe_placement_entry *e;
		size_t name_pos = ps.pos;

		if (pl->nb_entries == PIPE_STAGES_MAX)
			return fail(&ps, "more than %d stages", PIPE_STAGES_MAX);
		e = &pl->entries[pl->nb_entries];
		ret = parse_name(&ps, e->name);
		if (ret != 0)
			return ret;
		for (i = 0; i < pl->nb_entries; i++) {
			if (strcmp(pl->entries[i].name, e->name) == 0) {
				ps.pos = name_pos;
				return fail(&ps, "stage '%s' placed twice (list all its "
					    "lcores once: %s@(1,2))", e->name, e->name);
			}
		}
		if (spec[ps.pos] != '@')
			return fail(&ps, "expected '@' after stage name '%s', found %s",
				    e->name, found(&ps, what, sizeof(what)));
		ps.pos++;
		ret = parse_lcores(&ps, e);
		if (ret != 0)
			return ret;
		pl->nb_entries++;
		if (spec[ps.pos] == '\0')
			return 0;
		if (spec[ps.pos] != ',')
			return fail(&ps, "expected ',' or end of string, found %s",
				    found(&ps, what, sizeof(what)));
		ps.pos++;
	}
}

int
pipe_placement_format(const struct pipe_placement *pl, char *buf, size_t len)
{
	size_t total = 0;
	uint16_t i, j;
	int n;

/* Append like snprintf: count everything, write what fits. */
#define PUT(...) do { \
		n = snprintf(total < len ? buf + total : NULL, \
			     total < len ? len - total : 0, __VA_ARGS__); \
		if (n < 0) \
			return n; \
		total += (size_t)n; \
	} while (0)

	if (len > 0)
		buf[0] = '\0';
	for (i = 0; i < pl->nb_entries; i++) {
		const struct pipe_placement_entry *e = &pl->entries[i];

		PUT("%s%s@%s", i ? "," : "", e->name, e->nb_lcores > 1 ? "(" : "");
		for (j = 0; j < e->nb_lcores; j++)
			PUT("%s%u", j ? "," : "", e->lcores[j]);
		if (e->nb_lcores > 1)
			PUT(")");
	}
#undef PUT
	return (int)RTE_MIN(total, (size_t)INT32_MAX);
}
