/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* The control lines of opa-switch (see sw_ctl.h). */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sw_ctl.h"

#define MAX_TOKENS 4	/* one more than any command takes */

struct token {
	const char *s;
	size_t len;
};

static int
refuse(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static bool
is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool
token_is(const struct token *t, const char *word)
{
	return t->len == strlen(word) && memcmp(t->s, word, t->len) == 0;
}

/* A token as it may be printed in a reason: at most 32 bytes. */
static int
token_width(const struct token *t)
{
	return t->len > 32 ? 32 : (int)t->len;
}

int
sw_ctl_parse(const char *line, size_t len, struct sw_ctl_cmd *cmd, char *err, size_t errlen)
{
	struct token tok[MAX_TOKENS];
	unsigned int nb = 0;
	size_t i = 0;

	memset(cmd, 0, sizeof(*cmd));
	if (len > 0 && line[len - 1] == '\r')
		len--;
	/* Only printable ASCII and tabs: what is echoed back stays readable,
	 * and a NUL cannot cut a token short. */
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)line[i];

		if (c != '\t' && (c < 0x20 || c > 0x7E))
			return refuse(err, errlen, "byte 0x%02x at column %zu is not printable",
				      c, i + 1);
	}
	i = 0;
	while (i < len) {
		size_t start;

		while (i < len && is_blank(line[i]))
			i++;
		if (i == len)
			break;
		start = i;
		while (i < len && !is_blank(line[i]))
			i++;
		if (nb == 0 && line[start] == '#')
			return 0;	/* a comment */
		if (nb == MAX_TOKENS)
			return refuse(err, errlen, "too many words (commands: " SW_CTL_USAGE ")");
		tok[nb].s = line + start;
		tok[nb].len = i - start;
		nb++;
	}
	if (nb == 0)
		return 0;	/* blank */
	if (token_is(&tok[0], "link")) {
		if (nb != 3)
			return refuse(err, errlen, "expected: link PORT down|up");
		if (token_is(&tok[2], "up"))
			cmd->up = true;
		else if (!token_is(&tok[2], "down"))
			return refuse(err, errlen, "expected down or up, not '%.*s'",
				      token_width(&tok[2]), tok[2].s);
		if (tok[1].len >= SW_CTL_PORT_MAX)
			return refuse(err, errlen, "port '%.*s...' is longer than %u bytes",
				      token_width(&tok[1]), tok[1].s, SW_CTL_PORT_MAX - 1);
		memcpy(cmd->port, tok[1].s, tok[1].len);
		cmd->port[tok[1].len] = '\0';
		cmd->kind = SW_CTL_LINK;
		return 0;
	}
	if (token_is(&tok[0], "stats") || token_is(&tok[0], "help")) {
		if (nb != 1)
			return refuse(err, errlen, "'%.*s' takes no argument",
				      token_width(&tok[0]), tok[0].s);
		cmd->kind = tok[0].s[0] == 's' ? SW_CTL_STATS : SW_CTL_HELP;
		return 0;
	}
	return refuse(err, errlen, "unknown command '%.*s' (commands: " SW_CTL_USAGE ")",
		      token_width(&tok[0]), tok[0].s);
}

void
sw_ctl_feed(struct sw_ctl_reader *r, const char *data, size_t n, sw_ctl_line_fn fn, void *arg)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (data[i] == '\n') {
			fn(arg, r->buf, r->len, r->too_long);
			r->len = 0;
			r->too_long = false;
		} else if (r->len < sizeof(r->buf)) {
			r->buf[r->len++] = data[i];
		} else {
			r->too_long = true;	/* the rest of it is dropped */
		}
	}
}

void
sw_ctl_quote(const char *line, size_t len, char *out, size_t outlen)
{
	size_t room = outlen - 1, i;
	bool cut = len > room;

	if (cut)
		room -= 3;
	for (i = 0; i < len && i < room; i++) {
		unsigned char c = (unsigned char)line[i];

		out[i] = c >= 0x20 && c <= 0x7E ? (char)c : '?';
	}
	if (cut) {
		memcpy(out + i, "...", 3);
		i += 3;
	}
	out[i] = '\0';
}
