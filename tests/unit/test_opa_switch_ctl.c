/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * opa-switch's control lines without EAL (app/opa-switch/sw_ctl.c): a table
 * of lines against their commands or refusals, then the line reader (lines
 * cut across writes, overlong lines) and the quoting of a refused line.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sw_ctl.h"
#include "test_case.h"

/* Each line against its command, or against a word of its refusal. */
static const struct {
	const char *line;
	size_t len;		/* 0: strlen(line) */
	int rc;
	enum sw_ctl_kind kind;
	bool up;
	const char *port;	/* SW_CTL_LINK: the port token */
	const char *why;	/* refusal: a part of the reason */
} cases[] = {
	{ "link 0 down", 0, 0, SW_CTL_LINK, false, "0", NULL },
	{ "link 0 up", 0, 0, SW_CTL_LINK, true, "0", NULL },
	{ "link net_memif1 down", 0, 0, SW_CTL_LINK, false, "net_memif1", NULL },
	{ "  link\t2   up  ", 0, 0, SW_CTL_LINK, true, "2", NULL },
	{ "link 0 down\r", 0, 0, SW_CTL_LINK, false, "0", NULL },	/* CRLF writer */
	{ "stats", 0, 0, SW_CTL_STATS, false, NULL, NULL },
	{ " help ", 0, 0, SW_CTL_HELP, false, NULL, NULL },
	/* no command, no answer */
	{ "", 0, 0, SW_CTL_NONE, false, NULL, NULL },
	{ "   \t ", 0, 0, SW_CTL_NONE, false, NULL, NULL },
	{ "\r", 0, 0, SW_CTL_NONE, false, NULL, NULL },
	{ "# link 0 down", 0, 0, SW_CTL_NONE, false, NULL, NULL },
	{ "  #comment \x01 with anything printable", 0, -EINVAL, SW_CTL_NONE, false, NULL,
	  "not printable" },	/* bytes are checked before anything else */
	/* refusals */
	{ "bogus", 0, -EINVAL, SW_CTL_NONE, false, NULL, "unknown command 'bogus'" },
	{ "LINK 0 down", 0, -EINVAL, SW_CTL_NONE, false, NULL, "unknown command" },
	{ "link", 0, -EINVAL, SW_CTL_NONE, false, NULL, "expected: link PORT" },
	{ "link 0", 0, -EINVAL, SW_CTL_NONE, false, NULL, "expected: link PORT" },
	{ "link 0 down now", 0, -EINVAL, SW_CTL_NONE, false, NULL, "expected: link PORT" },
	{ "link 0 down now please", 0, -EINVAL, SW_CTL_NONE, false, NULL, "too many words" },
	{ "link 0 sideways", 0, -EINVAL, SW_CTL_NONE, false, NULL, "not 'sideways'" },
	{ "link 0 Down", 0, -EINVAL, SW_CTL_NONE, false, NULL, "not 'Down'" },
	{ "link 0 upp", 0, -EINVAL, SW_CTL_NONE, false, NULL, "not 'upp'" },
	{ "stats now", 0, -EINVAL, SW_CTL_NONE, false, NULL, "takes no argument" },
	{ "help me", 0, -EINVAL, SW_CTL_NONE, false, NULL, "takes no argument" },
	{ "link 0\x00 down", 12, -EINVAL, SW_CTL_NONE, false, NULL, "byte 0x00 at column 7" },
	{ "link 0 down\r\r", 0, -EINVAL, SW_CTL_NONE, false, NULL, "byte 0x0d at column 12" },
	{ "link \xc3\xa9 up", 0, -EINVAL, SW_CTL_NONE, false, NULL, "byte 0xc3" },
	{ "link 0 down\x7f", 0, -EINVAL, SW_CTL_NONE, false, NULL, "byte 0x7f" },
	/* the longest port token passes, one more byte is refused */
	{ "link " "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" " up", 0, 0,
	  SW_CTL_LINK, true, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", NULL },
	{ "link " "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" " up", 0,
	  -EINVAL, SW_CTL_NONE, false, NULL, "longer than 63 bytes" },
};

static void
test_parse_table(void **state)
{
	char why[SW_CTL_ERR_MAX];
	struct sw_ctl_cmd cmd;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = cases[i].len != 0 ? cases[i].len : strlen(cases[i].line);
		int rc;

		why[0] = '\0';
		rc = sw_ctl_parse(cases[i].line, len, &cmd, why, sizeof(why));
		if (rc != cases[i].rc)
			fail_msg("case %u \"%s\": rc %d, expected %d (%s)", i, cases[i].line, rc,
				 cases[i].rc, why);
		if (rc != 0) {
			if (strstr(why, cases[i].why) == NULL)
				fail_msg("case %u \"%s\": reason \"%s\" lacks \"%s\"", i,
					 cases[i].line, why, cases[i].why);
			continue;
		}
		if (cmd.kind != cases[i].kind)
			fail_msg("case %u \"%s\": kind %d, expected %d", i, cases[i].line,
				 cmd.kind, cases[i].kind);
		if (cmd.kind == SW_CTL_LINK) {
			assert_int_equal(cmd.up, cases[i].up);
			assert_string_equal(cmd.port, cases[i].port);
		}
	}
}

/* A refusal's reason fits whatever room it is given; none is also fine. */
static void
test_parse_reason_room(void **state)
{
	const char *line = "unknown_command_with_a_rather_long_name_indeed_and_more";
	struct sw_ctl_cmd cmd;
	char why[16];

	(void)state;
	memset(why, 'x', sizeof(why));
	assert_int_equal(sw_ctl_parse(line, strlen(line), &cmd, why, sizeof(why)), -EINVAL);
	assert_int_equal(strlen(why), sizeof(why) - 1);
	assert_int_equal(sw_ctl_parse(line, strlen(line), &cmd, NULL, 0), -EINVAL);
	/* a token in a reason is cut at 32 bytes */
	{
		char big[SW_CTL_ERR_MAX];

		assert_int_equal(sw_ctl_parse(line, strlen(line), &cmd, big, sizeof(big)),
				 -EINVAL);
		assert_non_null(strstr(big, "'unknown_command_with_a_rather_lo'"));
	}
}

/* What the reader hands over, recorded. */
struct seen {
	unsigned int n;
	char line[8][SW_CTL_LINE_MAX + 1];
	size_t len[8];
	bool too_long[8];
};

static void
record(void *arg, const char *line, size_t len, bool too_long)
{
	struct seen *s = arg;

	assert_true(s->n < 8);
	assert_true(len <= SW_CTL_LINE_MAX);
	memcpy(s->line[s->n], line, len);
	s->line[s->n][len] = '\0';
	s->len[s->n] = len;
	s->too_long[s->n] = too_long;
	s->n++;
}

static void
test_reader(void **state)
{
	struct sw_ctl_reader r;
	struct seen s;
	char big[SW_CTL_LINE_MAX + 10];
	size_t i;

	(void)state;
	memset(&r, 0, sizeof(r));
	memset(&s, 0, sizeof(s));
	/* lines cut anywhere across writes, several in one write */
	sw_ctl_feed(&r, "li", 2, record, &s);
	assert_int_equal(s.n, 0);
	sw_ctl_feed(&r, "nk 0 down\nstats\n\nlink 1", 23, record, &s);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.line[0], "link 0 down");
	assert_string_equal(s.line[1], "stats");
	assert_int_equal(s.len[2], 0);
	sw_ctl_feed(&r, " up\n", 4, record, &s);
	assert_int_equal(s.n, 4);
	assert_string_equal(s.line[3], "link 1 up");
	assert_false(s.too_long[0] || s.too_long[1] || s.too_long[2] || s.too_long[3]);

	/* exactly SW_CTL_LINE_MAX bytes is a line; one more is refused whole,
	 * and the line after it is read as it is */
	memset(&s, 0, sizeof(s));
	memset(big, 'a', sizeof(big));
	sw_ctl_feed(&r, big, SW_CTL_LINE_MAX, record, &s);
	sw_ctl_feed(&r, "\n", 1, record, &s);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.len[0], SW_CTL_LINE_MAX);
	assert_false(s.too_long[0]);
	for (i = 0; i < 3; i++)	/* 3 x 266 bytes, one line */
		sw_ctl_feed(&r, big, sizeof(big), record, &s);
	sw_ctl_feed(&r, "\nhelp\n", 6, record, &s);
	assert_int_equal(s.n, 3);
	assert_true(s.too_long[1]);
	assert_int_equal(s.len[1], SW_CTL_LINE_MAX);
	assert_false(s.too_long[2]);
	assert_string_equal(s.line[2], "help");
	/* a NUL is a byte like any other: the parser refuses it */
	memset(&s, 0, sizeof(s));
	sw_ctl_feed(&r, "a\0b\n", 4, record, &s);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.len[0], 3);
}

static void
test_quote(void **state)
{
	char out[12];

	(void)state;
	sw_ctl_quote("link 0 up", 9, out, sizeof(out));
	assert_string_equal(out, "link 0 up");
	sw_ctl_quote("a\x01\xff\tb", 5, out, sizeof(out));
	assert_string_equal(out, "a???b");
	/* 11 bytes fit in 12; 12 do not: 8 of them and "..." */
	sw_ctl_quote("0123456789a", 11, out, sizeof(out));
	assert_string_equal(out, "0123456789a");
	sw_ctl_quote("0123456789ab", 12, out, sizeof(out));
	assert_string_equal(out, "01234567...");
	sw_ctl_quote("", 0, out, sizeof(out));
	assert_string_equal(out, "");
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_table),
		cmocka_unit_test(test_parse_reason_room),
		cmocka_unit_test(test_reader),
		cmocka_unit_test(test_quote),
	};

	test_case_filter(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
