#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# scripts/demo.sh on the current build: every frame makes the round trip
# through the DPDK pipeline, and it leaves no DPDK runtime files behind.
#
# Usage: test_demo.sh SRC_DIR BUILD_DIR [SANITIZE]
set -uo pipefail
src=$1
build=$2
sanitize=${3:-none}
. "$src/tests/system/lib.sh"
if [ "$sanitize" != none ]; then
	export OMNIPLANE_DEMO_NO_TESTPMD="the plugin is built with -fsanitize=$sanitize"
fi

before=$(ls /var/run/dpdk 2>/dev/null | grep -c omniplane-demo || true)
out=$(OMNIPLANE_BUILD_DIR="$build" "$src/scripts/demo.sh" 500 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
expect_eq "demo exits 0" "0" "$rc"
expect_eq "demo: 500 frames read, 500 delivered" "source rx          500|sink tx            500  (dropped 0)" \
	"$(echo "$out" | grep -E '^(source rx|sink tx)' | paste -sd'|')"
expect_eq "demo: output identical to input" "1" "$(echo "$out" | grep -c '^identical: every frame')"
if [ "$sanitize" = none ]; then
	expect_eq "demo: 16B packets came back through both net_hfi1 nodes" "1" \
		"$(echo "$out" | grep -c 'packets came back through both HFIs, byte for byte')"
fi
after=$(ls /var/run/dpdk 2>/dev/null | grep -c omniplane-demo || true)
expect_eq "demo: no DPDK runtime directory left behind" "$before" "$after"
finish
