/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _SW_CTL_H_
#define _SW_CTL_H_

/**
 * @file
 * The control input of the opa-switch model, pure C (no EAL): lines of
 * bytes from a FIFO anyone who can open it may write, cut into lines and
 * parsed into commands. Ports are resolved by the caller (by id or name).
 *
 *   link PORT down    take PORT's link down, as pulling its cable would
 *   link PORT up      bring it back
 *   stats             print the counters now
 *   help              list the commands
 *
 * Tokens are separated by spaces or tabs; a trailing CR is ignored; an
 * empty line or one whose first token starts with '#' is no command.
 */

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Longest line, newline excluded; longer lines are refused whole. */
#define SW_CTL_LINE_MAX 256
/** Longest port token plus its NUL (an ethdev name: RTE_ETH_NAME_MAX_LEN). */
#define SW_CTL_PORT_MAX 64
/** Room for a refusal's reason. */
#define SW_CTL_ERR_MAX 128

/** What a line asks for. */
enum sw_ctl_kind {
	SW_CTL_NONE = 0,	/**< blank or comment: nothing to do, no answer */
	SW_CTL_LINK,		/**< link PORT up|down */
	SW_CTL_STATS,		/**< stats */
	SW_CTL_HELP,		/**< help */
};

/** A parsed command. */
struct sw_ctl_cmd {
	enum sw_ctl_kind kind;
	bool up;			/**< SW_CTL_LINK: up (true) or down */
	char port[SW_CTL_PORT_MAX];	/**< SW_CTL_LINK: the port as written */
};

/** The commands, one line, for help answers and refusals. */
#define SW_CTL_USAGE "link PORT down | link PORT up | stats | help"

/**
 * Parse one line.
 *
 * @param line
 *   The line's bytes, newline excluded; need not be NUL-terminated and may
 *   hold any byte.
 * @param len
 *   Its length (at most SW_CTL_LINE_MAX is expected; any is handled).
 * @param cmd
 *   Set on success; its contents are unspecified on a refusal.
 * @param err
 *   On a refusal, set to the reason (NUL-terminated, at most
 *   @p errlen - 1 bytes); may be NULL when @p errlen is 0.
 * @param errlen
 *   Size of @p err.
 * @return 0, or -EINVAL for a line that is refused.
 */
int sw_ctl_parse(const char *line, size_t len, struct sw_ctl_cmd *cmd, char *err, size_t errlen);

/**
 * Called by sw_ctl_feed() once a line is complete.
 *
 * @param line
 *   The line, newline excluded (not NUL-terminated).
 * @param len
 *   Its length.
 * @param too_long
 *   The line had more than SW_CTL_LINE_MAX bytes: @p line holds its first
 *   SW_CTL_LINE_MAX bytes only, and it must be refused.
 */
typedef void (*sw_ctl_line_fn)(void *arg, const char *line, size_t len, bool too_long);

/** Cuts a byte stream into lines. Zero it to start. */
struct sw_ctl_reader {
	char buf[SW_CTL_LINE_MAX];
	size_t len;		/**< bytes of the current line in buf */
	bool too_long;		/**< the current line overflowed buf */
};

/**
 * Consume @p n bytes: @p fn is called for every line completed by a
 * newline among them, in order; the bytes of an unfinished line are kept
 * for the next call.
 */
void sw_ctl_feed(struct sw_ctl_reader *r, const char *data, size_t n, sw_ctl_line_fn fn,
		 void *arg);

/**
 * A line as it may be printed: bytes outside printable ASCII as '?',
 * cut to fit @p outlen with "..." when longer.
 *
 * @param out
 *   Set to the NUL-terminated text; @p outlen must be 4 or more.
 */
void sw_ctl_quote(const char *line, size_t len, char *out, size_t outlen);

#ifdef __cplusplus
}
#endif

#endif /* _SW_CTL_H_ */
