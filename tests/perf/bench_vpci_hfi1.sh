#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# testpmd io forwarding over net_hfi1 on the vfio path beside the vdev path,
# in one run. The same Debian dpdk-testpmd, the same two-node topology, two
# ways of attaching net_hfi1 to its model:
#
#   vdev   --vdev net_hfi1_N,model=1: the model in the PMD's process, its
#          CSRs reached through a function table, stepped from the PMD's
#          polls (no thread of its own)
#   vfio   two virtual HFIs of tools/vpci (LD_PRELOAD libomni_vpci.so):
#          net_hfi1's PCI driver, every CSR access a trapped fault (a few
#          us), the model on a thread of its own per HFI
#
#   net_pcap (infinite_rx: 16B packets from memory) -> HFI A (LID 1)
#   -> ring:NAME wire -> HFI B (LID 2) -> net_null
#
# Figures: packets per second HFI B received (over a timed window after the
# first packets arrived, median of ROUNDS windows), their ratio (vfio/vdev),
# and for the vfio path the trapped BAR accesses per packet (VPCI_STATS: the
# hfi1 backend's counters when the port stops). 2-CPU caveat: testpmd's
# forwarding lcore and, on the vfio path, the two model threads share two
# CPUs with whatever else runs; figures compare within the run. No pass or
# fail on figures: the run fails only when a path moves no packets.
#
# OMNIPLANE_PERF_QUICK=1: one short window per path (test.sh's perf suite).
#
# Usage: bench_vpci_hfi1.sh SRC_DIR BUILD_DIR
set -uo pipefail
. "$1/tests/system/lib.sh"

if [ -n "${OMNIPLANE_PERF_QUICK:-}" ]; then
	rounds=1 window=2
else
	rounds=5 window=5
fi
size=${BENCH_FRAME:-60}

"$src/scripts/gen-frames.sh" 256 "$work/eth.pcap" 1 "$size" "$size" >/dev/null
"$build/app/opa16b-pcap/opa16b-pcap" encap --slid 1 --dlid 2 --vesw 1 \
	"$work/eth.pcap" "$work/in.pcap" >/dev/null || { echo "no 16B pcap"; exit 1; }
plugin_copies "$build/drivers/net/hfi1/librte_net_hfi1.so" \
	"$build/tools/vpci/libomni_vpci.so" || { echo "no plugin copies"; exit 1; }
on_exit 'rm -rf "$plugin_dir"'
mkdir -p "$work/tmp"

# rx_packets PORT: RX-packets of a port, read now
rx_packets() {
	testpmd_cmd "show port stats $1" || return 1
	sed -n "/NIC statistics for port $1 /,/####/p" "$testpmd_log" |
		grep -o 'RX-packets: *[0-9]*' | tail -1 | grep -o '[0-9]*$'
}
now() { date +%s.%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
flowing() { [ "$(rx_packets "$hfi_b_port")" -gt 0 ] 2>/dev/null; }

# start PATH A B EAL_ARGS...: testpmd on that path, interactive (log
# $work/PATH.log), HFI A and B at ports A and B. Ports 0..3 are the HFIs and
# the models' wires (owned: testpmd leaves them): on the vfio path a wire
# comes before its HFI (the model is made when EAL maps the device), on the
# vdev path after; 4 the pcap, 5 net_null. --portlist pairs pcap<->A, B<->null.
start() {
	local p=$1 a=$2 b=$3
	shift 3
	testpmd_start 600 "$work/$p.log" --lcores 0@0,1@1 --no-huge -m 1024 --no-telemetry \
		--file-prefix "$prefix-$p" -d "$plugin_dir/librte_net_hfi1.so" "$@" \
		--vdev "net_pcap0,rx_pcap=$work/in.pcap,infinite_rx=1" --vdev net_null0,no-rx=1 -- \
		-i --forward-mode=io --total-num-mbufs=32768 --portlist=4,$a,$b,5
}

# measure PATH: fills mpps[PATH]
declare -A mpps windows
measure() {
	local p=$1 r n0 n1 t0 t1 rates=() ok
	hfi_b_port=2
	[ "$p" = vfio ] && hfi_b_port=3
	if [ "$p" = vfio ]; then
		TMPDIR=$work/tmp LD_PRELOAD=$plugin_dir/libomni_vpci.so VPCI_STATS=1 \
		VPCI_DEVICES="0000:00:04.0,model=hfi1,$hfi_a;0000:00:05.0,model=hfi1,$hfi_b" \
			start vfio 1 3 -a 0000:00:04.0 -a 0000:00:05.0
	else
		start vdev 0 2 --no-pci --vdev "net_hfi1_a,model=1,$hfi_a" \
			--vdev "net_hfi1_b,model=1,$hfi_b"
	fi
	ok=$?
	[ $ok -eq 0 ] || { echo "$p: testpmd did not start: $(tail -5 "$work/$p.log")"; exit 1; }
	wait_until 30 testpmd_link "$hfi_b_port" up || { echo "$p: HFI B has no link"; exit 1; }
	testpmd_cmd start
	wait_until 30 flowing || { echo "$p: no packet reached HFI B"; exit 1; }
	for r in $(seq "$rounds"); do
		n0=$(rx_packets "$hfi_b_port") t0=$(now)
		# the measurement window itself (not a wait for a condition)
		sleep "$window"
		n1=$(rx_packets "$hfi_b_port") t1=$(now)
		rates+=("$(awk -v a="$n0" -v b="$n1" -v s="$t0" -v e="$t1" \
			'BEGIN { printf "%.4f", (b - a) / (e - s) / 1e6 }')")
	done
	testpmd_cmd stop
	mpps[$p]=$(printf '%s\n' "${rates[@]}" | median)
	windows[$p]="${rates[*]}"
	testpmd_quit 60 || echo "$p: testpmd's exit status was not 0 (figures kept)"
}

hfi_a=lid=1,wire=ring:bw
hfi_b=lid=2,wire=ring:bw
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "n/a" }'; }
echo "perf_vpci_hfi1: testpmd io forwarding pcap -> net_hfi1 A -> ring wire -> net_hfi1 B" \
	"-> null, $size-byte Ethernet frames in 16B; median of $rounds window(s) of $window s"
measure vdev
measure vfio
printf '%-34s %10s %10s %10s\n' "" "vdev" "vfio" "vfio/vdev"
printf '%-34s %10s %10s %10s\n' "HFI B received, Mpps" "${mpps[vdev]}" "${mpps[vfio]}" \
	"$(ratio "${mpps[vfio]}" "${mpps[vdev]}")"
echo "windows, Mpps: vdev ${windows[vdev]}; vfio ${windows[vfio]}"
# VPCI_STATS: "vpci hfi1: BDF: port stopped; since its start: R BAR reads, W BAR writes;
# packets: S sent, V received"
for bdf in 0000:00:04.0 0000:00:05.0; do
	grep "^vpci hfi1: $bdf: port stopped" "$work/vfio.log" | tail -1 | awk -v b="$bdf" '{
		n = $16 + $18; acc = $9 + $12
		printf "vfio %s: %d trapped BAR accesses (%d reads, %d writes) for %d packets" \
			" (%d sent, %d received): %.3f per packet\n", b, acc, $9, $12, n, $16, $18,
			(n > 0 ? acc / n : 0) }'
done
echo "(a trapped access costs a few us: perf_vpci_trap; the vfio path runs the model on"
echo " threads of its own, which take CPU from testpmd's forwarding lcore on 2 CPUs)"
