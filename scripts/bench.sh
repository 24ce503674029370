#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# Full benchmark runs (suite perf) on a release build, hugepages when present.
# Figures are printed beside their in-run baselines; nothing is gated.
# Usage: scripts/bench.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
. scripts/lib.sh
ensure_setup
configure build-release --buildtype=release -Dtests=true
ninja -C build-release >/dev/null
meson test -C build-release --suite perf --verbose
