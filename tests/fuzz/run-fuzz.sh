#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# Run a libFuzzer target for a bounded number of runs from its seed corpus,
# growing a corpus in the build directory (never in the source tree), and for
# at most SECS seconds: whichever ends first (libFuzzer prints the runs done).
# Usage: run-fuzz.sh TARGET SEED_DIR WORK_DIR RUNS SECS
set -euo pipefail
target=$1
seeds=$2
work=$3
runs=$4
secs=$5
mkdir -p "$work/corpus" "$work/artifacts"
# libFuzzer exits 77 on a finding by default, which meson reads as a skip
exec "$target" -runs="$runs" -max_total_time="$secs" -seed=1 -max_len=16400 -print_final_stats=1 -error_exitcode=1 \
	-artifact_prefix="$work/artifacts/" "$work/corpus" "$seeds"
