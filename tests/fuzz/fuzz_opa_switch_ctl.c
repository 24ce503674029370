/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * opa-switch's control input (app/opa-switch/sw_ctl.c): whatever anyone
 * writes to the FIFO. Input: [chunk byte][bytes]; the bytes are fed to the
 * line reader in writes of 1..chunk+1 bytes, and every line it hands over
 * is parsed and quoted. Oracles: the lines are the input cut at its
 * newlines (an overlong one flagged, its first bytes kept); the parser's
 * verdict and command are those of an independent reading of the grammar
 * in sw_ctl.h; a refusal has a reason; a quoted line is printable and fits.
 */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sw_ctl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct expect {
	const uint8_t *in;	/* the input after the chunk byte */
	size_t size;
	size_t pos;		/* start of the next line in it */
};

static bool
blank(uint8_t c)
{
	return c == ' ' || c == '\t';
}

/* The grammar, read again: SW_CTL_NONE/LINK/STATS/HELP, or -1 refused. */
static int
oracle(const uint8_t *s, size_t len, bool *up, const uint8_t **port, size_t *port_len)
{
	const uint8_t *tok[5];
	size_t tlen[5], i = 0;
	unsigned int n = 0;

	if (len > 0 && s[len - 1] == '\r')
		len--;
	for (i = 0; i < len; i++)
		if (s[i] != '\t' && (s[i] < 0x20 || s[i] > 0x7E))
			return -1;
	i = 0;
	while (i < len && n < 5) {
		while (i < len && blank(s[i]))
			i++;
		if (i == len)
			break;
		tok[n] = s + i;
		while (i < len && !blank(s[i]))
			i++;
		tlen[n] = (size_t)(s + i - tok[n]);
		n++;
	}
	if (n == 0 || tok[0][0] == '#')
		return SW_CTL_NONE;
	if (n == 1 && tlen[0] == 5 && memcmp(tok[0], "stats", 5) == 0)
		return SW_CTL_STATS;
	if (n == 1 && tlen[0] == 4 && memcmp(tok[0], "help", 4) == 0)
		return SW_CTL_HELP;
	if (n == 3 && tlen[0] == 4 && memcmp(tok[0], "link", 4) == 0 &&
	    tlen[1] < SW_CTL_PORT_MAX) {
		if (tlen[2] == 2 && memcmp(tok[2], "up", 2) == 0)
			*up = true;
		else if (tlen[2] == 4 && memcmp(tok[2], "down", 4) == 0)
			*up = false;
		else
			return -1;
		*port = tok[1];
		*port_len = tlen[1];
		return SW_CTL_LINK;
	}
	return -1;
}

static void
on_line(void *arg, const char *line, size_t len, bool too_long)
{
	struct expect *e = arg;
	const uint8_t *nl = memchr(e->in + e->pos, '\n', e->size - e->pos);
	size_t want, i;
	char why[SW_CTL_ERR_MAX], q[40];
	struct sw_ctl_cmd cmd;
	const uint8_t *port = NULL;
	size_t port_len = 0;
	bool up = false;
	int kind, rc;

	/* the reader: this line is the input up to its next newline */
	if (nl == NULL)
		abort();
	want = (size_t)(nl - (e->in + e->pos));
	if (too_long != (want > SW_CTL_LINE_MAX) ||
	    len != (too_long ? (size_t)SW_CTL_LINE_MAX : want) ||
	    memcmp(line, e->in + e->pos, len) != 0)
		abort();
	e->pos += want + 1;

	sw_ctl_quote(line, len, q, sizeof(q));
	if (strlen(q) > sizeof(q) - 1)
		abort();
	for (i = 0; q[i] != '\0'; i++)
		if (q[i] < 0x20 || q[i] > 0x7E)
			abort();
	if (too_long)
		return;	/* refused whole by the switch: never parsed */

	memset(why, 0x5a, sizeof(why));
	rc = sw_ctl_parse(line, len, &cmd, why, sizeof(why));
	kind = oracle((const uint8_t *)line, len, &up, &port, &port_len);
	if (kind < 0) {
		if (rc != -EINVAL || memchr(why, '\0', sizeof(why)) == NULL || why[0] == '\0')
			abort();
		return;
	}
	if (rc != 0 || (int)cmd.kind != kind)
		abort();
	if (kind == SW_CTL_LINK &&
	    (cmd.up != up || strlen(cmd.port) != port_len || memcmp(cmd.port, port, port_len)))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sw_ctl_reader r;
	struct expect e;
	size_t chunk, off = 0;

	if (size < 1)
		return 0;
	chunk = (size_t)data[0] + 1;
	memset(&r, 0, sizeof(r));
	e.in = data + 1;
	e.size = size - 1;
	e.pos = 0;
	while (off < e.size) {
		size_t n = e.size - off < chunk ? e.size - off : chunk;

		sw_ctl_feed(&r, (const char *)e.in + off, n, on_line, &e);
		off += n;
	}
	/* every newline gave a line; what follows the last one is kept */
	if (memchr(e.in + e.pos, '\n', e.size - e.pos) != NULL)
		abort();
	if (r.len != (e.size - e.pos > SW_CTL_LINE_MAX ? (size_t)SW_CTL_LINE_MAX :
		      e.size - e.pos) || r.too_long != (e.size - e.pos > SW_CTL_LINE_MAX))
		abort();
	return 0;
}
