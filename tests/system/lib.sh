# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# Minimal harness for system tests written in bash (sourced).
# Each check names the behaviour it proves; finish prints
# "N passed, N failed" and sets the exit status.

passed=0
failed=0

pass() {
	passed=$((passed + 1))
	echo "ok - $1"
}

fail() {
	failed=$((failed + 1))
	echo "not ok - $1"
	[ -n "${2:-}" ] && printf '%s\n' "$2" | sed 's/^/#   /'
	return 0
}

# expect_eq NAME EXPECTED ACTUAL
expect_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "expected: $2
actual:   $3"
	fi
}

finish() {
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}

# A work directory removed on exit.
work=$(mktemp -d /var/tmp/omniplane-systest.XXXXXX)
trap 'rm -rf "$work"' EXIT

# need_testpmd_plugin SANITIZE: skip (exit 77) unless Debian's testpmd can
# load our plugins: it has no sanitizer runtime to load a sanitized build
# into, and it may be missing.
need_testpmd_plugin() {
	if [ "$1" != none ]; then
		echo "SKIP: the plugins are built with -fsanitize=$1; Debian's testpmd cannot load them"
		exit 77
	fi
	command -v dpdk-testpmd >/dev/null || { echo "SKIP: no dpdk-testpmd"; exit 77; }
}

# wait_log FILE REGEX SECONDS: until FILE has a line matching REGEX (status 1 if never).
wait_log() {
	local i
	for i in $(seq $((10 * $3))); do
		grep -Eq "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# stop PID SECONDS: SIGINT, then wait for it; its exit status (124: it hung and was killed).
stop() {
	local i
	kill -INT "$1" 2>/dev/null
	for i in $(seq $((10 * $2))); do
		kill -0 "$1" 2>/dev/null || { wait "$1"; return $?; }
		sleep 0.1
	done
	kill -KILL "$1" 2>/dev/null
	wait "$1"
	return 124
}

# sw_ctr LOG NAME: counter NAME of vhost-user-rdma's last "switch:" line in LOG.
sw_ctr() { grep '^switch:' "$1" | tail -1 | grep -o " $2=[0-9]*" | cut -d= -f2; }

# dev_ctr LOG DEVICE NAME: counter NAME of vhost-user-rdma's last line for DEVICE (0 if absent).
dev_ctr() {
	local v
	v=$(grep "^device $2 (" "$1" | tail -1 | grep -o " $3=[0-9]*" | cut -d= -f2)
	echo "${v:-0}"
}

# kill_started PID...: kill what a test started, and what their timeout
# wrappers started (any process naming a path in $work).
kill_started() {
	local p
	for p in "$@"; do
		kill -KILL "$p" 2>/dev/null
	done
	pkill -KILL -f -- "$work/" 2>/dev/null
}
