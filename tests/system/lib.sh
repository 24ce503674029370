# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# The harness of the system tests, sourced by each as
#   . "$1/tests/system/lib.sh"
# with the test's arguments SRC_DIR BUILD_DIR [SANITIZE] (src, build,
# sanitize). It brings scripts/lib.sh's vocabulary (wait_until, wait_log,
# stop, reap, on_exit, plugin_copies, testpmd_*) and the clean-up at exit:
# $work, this run's work directory, and $prefix, its EAL file-prefix stem,
# are removed at exit with whatever the test left running (each named);
# KEEP_WORK=1 keeps $work and says where. Each check names the behaviour it
# proves; finish prints "N passed, N failed" and sets the exit status.

src=$1
build=$2
sanitize=${3:-none}
. "$src/scripts/lib.sh"
make_work "sys-$(basename "$0" .sh | sed 's/^test_//')"

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

# expect_exit NAME STATUS REGEX COMMAND...: COMMAND exits STATUS and its
# output (stdout and stderr) has a line matching the extended REGEX.
expect_exit() {
	local name=$1 want=$2 re=$3 out rc
	shift 3
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" -eq "$want" ] && echo "$out" | grep -Eq -- "$re"; then
		pass "$name"
	else
		fail "$name" "rc=$rc
$(echo "$out" | tail -5)"
	fi
}

finish() {
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}

# run_dpdk SECONDS PROGRAM ARGS...: a DPDK program with a file-prefix of
# its own ($prefix-N, N counting in $runs), SECONDS at most; its output
# (stdout and stderr) in $out, its exit status in $rc.
runs=0
run_dpdk() {
	local secs=$1 prog=$2
	shift 2
	runs=$((runs + 1))
	out=$(timeout "$secs" "$prog" --file-prefix "$prefix-$runs" "$@" 2>&1)
	rc=$?
	rm -rf "/var/run/dpdk/$prefix-$runs"
}

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

# sw_ctr LOG NAME: counter NAME of vhost-user-rdma's last "switch:" line in LOG.
sw_ctr() { grep '^switch:' "$1" | tail -1 | grep -o " $2=[0-9]*" | cut -d= -f2; }

# dev_ctr LOG DEVICE NAME: counter NAME of vhost-user-rdma's last line for DEVICE (0 if absent).
dev_ctr() {
	local v
	v=$(grep "^device $2 (" "$1" | tail -1 | grep -o " $3=[0-9]*" | cut -d= -f2)
	echo "${v:-0}"
}

# perf_verified NAME COMMAND...: one check: COMMAND (vrdma-perf with --verify)
# exits 0 and reports no error; its figures follow as comments.
perf_verified() {
	local name=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && echo "$out" | grep -q "errors 0$"; then
		pass "$name: every message verified"
		echo "$out" | grep -E 'path MTU|msg/s|round trip' | sed 's/^ */#   /'
	else
		fail "$name: every message verified" "rc=$rc
$(echo "$out" | grep -v '^EAL' | tail -6)"
	fi
}

# nd_count LOG FIELD: field FIELD of vrdma-perf --pingpong's closing line
# "pingpong: neighbours: A ARP requests answered, N neighbour solicitations
# answered, L learned, I frames ignored, M malformed" (3: A, 11: L, 13: I, 16: M).
nd_count() { grep -a '^pingpong: neighbours:' "$1" | awk -v f="$2" '{print $f}'; }
