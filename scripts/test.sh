#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# Everything CI checks, from a fresh clone: setup when needed, then two builds
# and their test suites. The exit status is the truth.
#
#   build/       gcc, debugoptimized, -Werror: suites unit, pmd, system, perf
#                (perf in quick mode: figures are printed, never gated)
#   build-asan/  clang, ASan + UBSan, libFuzzer targets, -Werror:
#                suites unit, pmd, fuzz
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
echo "== tests: unit, pmd, system, perf (quick)"
OMNIPLANE_PERF_QUICK=1 meson test -C build --print-errorlogs \
	--suite unit --suite pmd --suite system --suite perf

if [ $asan -eq 1 ]; then
	echo "== build (clang, ASan + UBSan, libFuzzer)"
	CC=clang configure build-asan -Dwerror=true -Dfuzz=true \
		-Db_sanitize=address,undefined -Db_lundef=false
	ninja -C build-asan
	echo "== tests under ASan + UBSan: unit, pmd, fuzz"
	meson test -C build-asan --print-errorlogs --suite unit --suite pmd --suite fuzz
fi
echo "== all suites passed"
