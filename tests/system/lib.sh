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

# ---- the QEMU guest tests (test_qemu_*.sh): rdma_rxe in a Debian guest on a
# vhost-user-rdma backend whose net_tap wire is in a network namespace ----

# qemu_prepare NS: skips (77) without root; needs qemu and ip; the guest image
# ($guest: GUEST_DIR or the one scripts/setup.sh built; remade here when
# scripts/guest-image.sh's stamp says it is stale); the namespace NS, deleted
# at exit, and in_ns CMD... to run in it. Sets guest, backend, perf, eal
# (the EAL flags every process takes), guestmac (QEMU's MAC for the guest's
# first NIC: the switch learns it) and ns.
qemu_prepare() {
	ns=$1
	guest=${GUEST_DIR:-$src/.sdk/guest}
	backend=$build/app/vhost-user-rdma/vhost-user-rdma
	perf=$build/app/vrdma-perf/vrdma-perf
	guestmac=52:54:00:12:34:56
	eal=(--no-huge --no-pci --no-telemetry --log-level=lib.eal:warning
	     --log-level=lib.vhost.config:warning --log-level=pmd.net.tap:error)
	if [ "$(id -u)" -ne 0 ]; then
		echo "SKIP: needs root for a network namespace"
		exit 77
	fi
	for need in qemu-system-x86_64 ip; do
		command -v "$need" >/dev/null ||
			{ fail "$need is installed (scripts/setup.sh)"; finish; exit 1; }
	done
	"$src/scripts/guest-image.sh" "$guest" > "$work/image.log" 2>&1 ||
		{ fail "the guest image builds" "$(tail -5 "$work/image.log")"; finish; exit 1; }
	ip netns add "$ns" || { fail "a network namespace can be made"; finish; exit 1; }
	on_exit 'ip netns del "$ns" 2>/dev/null'
}

in_ns() { ip netns exec "$ns" "$@"; }

# qemu_backend MEM_MB SOCKET_ARGS...: vhost-user-rdma in the namespace (-s
# SOCKET per device), its net_tap wire vurtap at 10.0.0.254/24 there; waits
# until it serves them. Sets b_pid (the backend's timeout: a shell records
# its own pid and execs, so signals go to it, not to ip) and ns_pid.
qemu_backend() {
	local mem=$1 n
	shift
	n=$(( $# / 2 ))
	in_ns sh -c 'echo $$ > "$0"; exec "$@"' "$work/b.pid" \
		timeout 900 "$backend" -l 0-1 "${eal[@]}" -m "$mem" --file-prefix "$prefix-b" \
		--vdev net_tap0,iface=vurtap -- "$@" --idle-sleep 50 \
		> "$work/b.log" 2>&1 &
	ns_pid=$!
	wait_log "$work/b.pid" '^[0-9]+$' 10
	b_pid=$(cat "$work/b.pid")
	wait_log "$work/b.log" "^serving $n device" 30 ||
		fail "the backend starts" "$(tail -5 "$work/b.log")"
	in_ns ip link set lo up
	in_ns ip addr add 10.0.0.254/24 dev vurtap
	in_ns ip link set vurtap up
}
