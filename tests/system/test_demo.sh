#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# scripts/demo.sh --quick on the current build: two nodes on the model fabric
# (opa-switch, testpmd with net_opa_vnic, l2fwd-vnic, opa-em); every frame
# makes the round trip A -> B -> A, the vesw 2 vports see none of them; then
# RDMA across the same fabric (vhost-user-rdma on both nodes, vrdma-perf),
# every message verified; and the demo leaves no process, DPDK runtime
# directory or plugin copy behind. (Its guest part is system_rdma_opa's.)
# With a sanitizer build the demo skips (exit 77: Debian's testpmd cannot
# load a sanitized plugin), and so does this test.
#
# Usage: test_demo.sh SRC_DIR BUILD_DIR [SANITIZE]
set -uo pipefail
. "$1/tests/system/lib.sh"
if [ "$sanitize" != none ]; then
	export OMNIPLANE_DEMO_NO_TESTPMD="the plugin is built with -fsanitize=$sanitize"
fi
frames=500

# In the background to learn its PID: its EAL file-prefixes are
# omniplane-demo-PID-{sw,a,b,em}. Its output is shown as it comes (a run
# stopped by the timeout shows where it was).
KEEP_WORK= OMNIPLANE_BUILD_DIR="$build" "$src/scripts/demo.sh" --quick $frames > "$work/demo.out" 2>&1 &
demo_pid=$!
tail -n +1 -s 0.2 -f --pid=$demo_pid "$work/demo.out" | sed 's/^/# /'
wait $demo_pid
rc=$?
out=$(cat "$work/demo.out")

if [ "$rc" -eq 77 ]; then
	if [ "$sanitize" != none ]; then
		echo "SKIP: demo: $OMNIPLANE_DEMO_NO_TESTPMD; Debian's testpmd cannot load it"
		exit 77
	fi
	fail "demo runs (it skipped on a build without a sanitizer)"
	finish
	exit
fi
expect_eq "demo exits 0" 0 "$rc"
# The demo's own verdict: every frame back once, no drop, vesw 2 untouched.
expect_eq "demo: PASS" 1 "$(grep -c '^demo: PASS' <<< "$out")"
expect_eq "demo: all $frames frames made the round trip" 1 \
	"$(grep -c "^all $frames frames made the round trip" <<< "$out")"
expect_eq "demo: the vesw 2 vports saw none of the frames" 1 \
	"$(grep -c '^the vesw 2 vports saw none of the frames' <<< "$out")"
expect_eq "demo: RDMA across the fabric, every message of 7 vrdma-perf runs verified" 1 \
	"$(grep -c "^every RDMA message of 7 runs verified; the nodes' VNIC counters agree; every mbuf back" <<< "$out")"

# What the demo made is named after its prefix (scripts/lib.sh make_work,
# plugin_copies): omniplane-demo-PID.
p=omniplane-demo-$demo_pid
left=$(ls -d /var/run/dpdk/"$p"-* /run/omniplane-pmd."$p".* "$HOME"/.omniplane-pmd."$p".* \
	/var/tmp/"$p".* 2>/dev/null
	pgrep -f -- "--file-prefix $p-" || true)
expect_eq "demo: no process, DPDK runtime directory, plugin copy or work directory left behind" \
	"" "$left"
finish
