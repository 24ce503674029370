#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# Debian's dpdk-testpmd drives net_hfi1 (loaded with -d) on two model nodes
# in two processes joined by a net_memif wire, io forwarding 16B packets:
#
#   node A: net_pcap (16B packets) -> net_hfi1 LID 1 -> memif wire
#   node B: net_hfi1 LID 2 -> net_ring self-loop -> net_hfi1 LID 2
#   node A: net_hfi1 LID 1 -> net_pcap (out.pcap)
#
# Every packet must come back byte for byte, in order, with no error
# counter moving, and both processes must leave nothing behind.
#
# The run itself is scripts/hfi1-testpmd.sh.
#
# Usage: test_hfi1_testpmd.sh SRC_DIR BUILD_DIR [SANITIZE]
set -uo pipefail
. "$1/tests/system/lib.sh"

need_testpmd_plugin "$sanitize"

frames=300

"$src/scripts/gen-frames.sh" "$frames" "$work/eth.pcap" 1 >/dev/null
"$build/app/opa16b-pcap/opa16b-pcap" encap --slid 1 --dlid 2 --vesw 1 \
	"$work/eth.pcap" "$work/in.pcap" >/dev/null

"$src/scripts/hfi1-testpmd.sh" "$build" "$work" "$work/in.pcap" > "$work/run.log" 2>&1
rc=$?
expect_eq "both testpmd processes (net_hfi1 plugin) exit 0" \
	"testpmd A exit 0, testpmd B exit 0" "$(tail -1 "$work/run.log")"
if grep -q 'Port 1: 02:11:F1:00:00:01' "$work/a.log"; then
	pass "the plugin probes net_hfi1 on the model: port 1 (after the owned wire) with the LID's MAC"
else
	fail "the plugin probes net_hfi1 on the model" "$(head -30 "$work/a.log")"
fi

# Port 0 is the memif wire (owned by the model: testpmd leaves it alone),
# port 1 net_hfi1, port 2 the pcap (A) or the ring loop (B).
totals() { # totals LOG PORT -> "RX TX" of that port's forward statistics
	sed -n "/Forward statistics for port $2 /,/------/p" "$1" |
		awk '/RX-packets/ {rx=$2} /TX-packets/ {tx=$2} END {print rx, tx}'
}
expect_eq "A: net_hfi1 received every packet back and the pcap wrote it" \
	"$frames $frames" "$(totals "$work/a.log" 1)"
expect_eq "B: net_hfi1 received every packet and sent it back" \
	"$frames $frames" "$(totals "$work/b.log" 1)"

digest() {
	tshark -r "$1" -o frame.generate_md5_hash:TRUE -T fields -e frame.md5_hash 2>/dev/null
}
digest "$work/in.pcap" > "$work/in.md5"
digest "$work/out.pcap" > "$work/out.md5"
expect_eq "out.pcap holds $frames packets" "$frames" "$(wc -l < "$work/out.md5")"
if cmp -s "$work/in.md5" "$work/out.md5"; then
	pass "every 16B packet came back byte for byte, in order"
else
	fail "every 16B packet came back byte for byte, in order" \
		"$(diff "$work/in.md5" "$work/out.md5" | head -5)"
fi

# No error counter of A's net_hfi1 moved.
errs=$(sed -n '/NIC extended statistics for port 1/,/####/p' "$work/a.log" |
	grep -E '(rx_err|rx_bad|rx_runt|rx_too|rx_nombuf|tx_bad|tx_not|tx_too|tx_sdma|_errors|missed):' |
	awk '$2 != 0')
nerr=$(sed -n '/NIC extended statistics for port 1/,/####/p' "$work/a.log" |
	grep -c -E '^ *(rx_err_icrc|rx_bad_egr_index|tx_bad_head):')
expect_eq "A's xstats list the per-reason counters" 3 "$nerr"
expect_eq "A's xstats: no error counter moved" "" "$errs"
expect_eq "A: per-queue xstats count the packets" "rx_q0_packets: $frames" \
	"$(grep -o "rx_q0_packets: [0-9]*" "$work/a.log")"

# Nothing this run made is left behind (other tests may be running).
run_prefix=$(sed -n 's/^prefix=//p' "$work/run.env")
run_pdir=$(sed -n 's/^pdir=//p' "$work/run.env")
expect_eq "the run names its EAL file-prefix and plugin directory" yes \
	"$([ -n "$run_prefix" ] && [ -n "$run_pdir" ] && echo yes)"
left=$(ls -d /var/run/dpdk/"${run_prefix:-omniplane-hfi1}"-* ${run_pdir:+"$run_pdir"} \
	"$work/wire.sock" 2>/dev/null
	pgrep -f "file-prefix ${run_prefix:-omniplane-hfi1}-" || true)
expect_eq "no process or runtime directory left behind" "" "$left"
if [ "$failed" -ne 0 ]; then
	for f in run a b; do
		echo "# --- $f.log (last 25 lines)"
		tail -25 "$work/$f.log" 2>/dev/null | sed 's/^/# /'
	done
fi
finish
