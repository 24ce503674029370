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

# Reference in the same run: Debian's testpmd io forwarding over two net_ring
# self-loops (the loop bench_hfi1 runs is testpmd's io engine; testpmd itself
# cannot seed net_hfi1, whose packets must be 16B, with --tx-first).
if command -v dpdk-testpmd >/dev/null; then
	echo "== reference: dpdk-testpmd io forwarding over net_ring (1 core, 64 B, 5 s)"
	timeout -s INT 7 dpdk-testpmd -l 0-1 --in-memory -m 512 --no-pci \
		--log-level=lib.eal:warning --vdev net_ring0 --vdev net_ring1 -- \
		-a --tx-first --stats-period 5 --forward-mode=io \
		--total-num-mbufs=16384 2>&1 | grep -E 'Rx-pps' | tail -2 || true
fi
