#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# Everything CI checks, from a fresh clone: setup when needed, then two builds
# and their test suites. The exit status is the truth.
#
#   build/       gcc, debugoptimized, -Werror: suites unit, pmd, system, perf
#                (perf in quick mode: figures are printed, never gated), doc
#                (doxygen over the public headers: any warning fails)
#   build-asan/  clang, ASan + UBSan, libFuzzer targets, -Werror:
#                suites unit, pmd, system, fuzz
#
# Usage: scripts/test.sh [--no-asan]
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

asan=1
[ "${1:-}" = "--no-asan" ] && asan=0

. scripts/lib.sh
ensure_setup

echo "== build (gcc, -Werror)"
configure build -Dwerror=true
ninja -C build
total_ok=0
total_fail=0
total_skip=0
summary=()
# run_suites DIR SUITES...: one meson test run per suite, tallying meson's
# own summary counts and timing each run (wall clock).
run_suites() {
	local dir=$1 log rc ok fail skip s t0 secs
	shift
	for s in "$@"; do
		log=$(mktemp)
		t0=${EPOCHREALTIME//[!0-9]/}
		set +e
		OMNIPLANE_PERF_QUICK=1 meson test -C "$dir" --print-errorlogs --suite "$s" 2>&1 |
			tee "$log"
		rc=${PIPESTATUS[0]}
		set -e
		secs=$(( (${EPOCHREALTIME//[!0-9]/} - t0 + 500000) / 1000000 ))
		ok=$(awk '/^Ok:/ { print $2 }' "$log")
		fail=$(awk '/^Fail:|^Timeout:|^Unexpected Pass:/ { n += $NF } END { print n + 0 }' "$log")
		skip=$(awk '/^Skipped:/ { print $2 }' "$log")
		rm -f "$log"
		if [ "$rc" -ne 0 ] && [ "${fail:-0}" -eq 0 ]; then
			fail=1 # meson itself failed
		fi
		total_ok=$((total_ok + ${ok:-0}))
		total_fail=$((total_fail + ${fail:-0}))
		total_skip=$((total_skip + ${skip:-0}))
		summary+=("$(printf '  %-11s %-7s %5d s  %3d passed, %d failed, %d skipped' "$dir" "$s" \
			"$secs" "${ok:-0}" "${fail:-0}" "${skip:-0}")")
	done
	return 0
}

echo "== tests: unit, pmd, system, perf (quick), doc"
run_suites build unit pmd system perf doc

if [ $asan -eq 1 ]; then
	echo "== build (clang, ASan + UBSan, libFuzzer)"
	CC=clang configure build-asan -Dwerror=true -Dfuzz=true \
		-Db_sanitize=address,undefined -Db_lundef=false
	ninja -C build-asan
	echo "== tests under ASan + UBSan: unit, pmd, system, fuzz"
	# undefined behaviour fails the test that shows it, as an ASan finding does
	UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} \
		run_suites build-asan unit pmd system fuzz
fi
echo "== wall time per suite"
printf '%s\n' "${summary[@]}"
echo "test.sh: $total_ok passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ] && [ "$total_ok" -gt 0 ]
