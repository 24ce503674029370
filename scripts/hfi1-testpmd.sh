#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# Two Omni-Path nodes on the hfi1 model, each a Debian dpdk-testpmd process
# with the net_hfi1 plugin (-d), joined by a net_memif wire:
#
#   node A: net_pcap (IN_PCAP, 16B packets) -> net_hfi1 LID 1 -> wire
#   node B: net_hfi1 LID 2 -> net_ring self-loop -> net_hfi1 LID 2 -> wire
#   node A: net_hfi1 LID 1 -> net_pcap (WORKDIR/out.pcap)
#
# Both forward in io mode. A runs interactively and, after forwarding,
# prints net_hfi1's extended statistics (port 1: port 0 is the wire, owned
# by the model). Logs: WORKDIR/a.log, WORKDIR/b.log. Exit status 0 when
# both processes exited 0. Leaves no process or runtime directory behind;
# WORKDIR/run.env names the EAL file-prefix and plugin directory it used.
#
# Usage: scripts/hfi1-testpmd.sh BUILD_DIR WORKDIR IN_PCAP
set -uo pipefail
build=$1
work=$2
in=$3
. "$(dirname "$0")/lib.sh"

prefix=omniplane-hfi1-$$
on_exit
plugin_copies "$build/drivers/net/hfi1/librte_net_hfi1.so" || exit 1
sock=$work/wire.sock
# What this run makes, for a caller's "nothing left behind" check (other
# runs may be going on at the same time).
printf 'prefix=%s\npdir=%s\n' "$prefix" "$plugin_dir" > "$work/run.env"
eal=(--no-pci --no-huge -m 512 --no-telemetry --log-level=lib.eal:warning
     --log-level=pmd.net.memif:error "${plugin_args[@]}")
pmd=(--forward-mode=io --total-num-mbufs=16384)
frames=$(pcap_frames "$in")
on_exit 'rm -rf "$sock"'

# Node B forwards until SIGINT, then prints its totals. The two forwarding
# lcores sit on different CPUs (2-core machines).
timeout -s INT 60 dpdk-testpmd --lcores 0@1,1@0 "${eal[@]}" --file-prefix "$prefix-b" \
	--vdev "net_memif0,role=server,socket=$sock" \
	--vdev net_hfi1_b,model=1,lid=2,wire=net_memif0 --vdev net_ring0 -- \
	-a --stats-period 1 "${pmd[@]}" > "$work/b.log" 2>&1 &
b_pid=$!
wait_log "$work/b.log" 'Port statistics' 30

# --no-flush-rx: testpmd would otherwise drain the pcap before forwarding.
# A forwards once its net_hfi1 port has link (the wire is up), until every
# packet is back in out.pcap. B goes first, while A no longer forwards:
# net_memif in DPDK 22.11 can crash a process that is still polling when
# its peer disconnects.
testpmd_start 60 "$work/a.log" --lcores 0@0,1@1 "${eal[@]}" --file-prefix "$prefix-a" \
	--vdev "net_memif0,role=client,socket=$sock" \
	--vdev net_hfi1_a,model=1,lid=1,wire=net_memif0 \
	--vdev "net_pcap0,rx_pcap=$in,tx_pcap=$work/out.pcap" -- \
	-i --no-flush-rx "${pmd[@]}"
wait_until 30 testpmd_link 1 up || say "A's net_hfi1 port has no link"
testpmd_cmd start
wait_until 30 pcap_has "$work/out.pcap" "$frames" || say "not every packet came back"
testpmd_cmd stop
testpmd_cmd "show port xstats 1"
stop "$b_pid" 10
b_rc=$?
testpmd_quit 10
a_rc=$?
echo "testpmd A exit $a_rc, testpmd B exit $b_rc"
[ "$a_rc" -eq 0 ] && [ "$b_rc" -eq 0 ]
