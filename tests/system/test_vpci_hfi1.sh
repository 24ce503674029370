#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# net_hfi1 through vfio-pci: Debian's dpdk-testpmd with libomni_vpci.so
# preloaded sees two virtual HFIs (8086:24f0, vpci's hfi1 backend) at
# 0000:00:04.0 and 0000:00:05.0, bound to "vfio-pci"; EAL maps their BAR0
# and net_hfi1's PCI driver (hfi1_pci_init, the silicon path) probes them.
# Their wires join as an in-process ring pair (wire=ring:NAME):
#
#   net_pcap (16B packets) -> HFI 04.0 (LID 1) -> wire -> HFI 05.0 (LID 2)
#   -> net_ring self-loop -> HFI 05.0 -> wire -> HFI 04.0 -> net_pcap (out)
#
# Every packet must come back byte for byte, in order, no error counter of
# net_hfi1 moving, and testpmd must quit cleanly leaving nothing behind.
# The checks follow test_hfi1_testpmd.sh (the vdev path).
#
# Usage: test_vpci_hfi1.sh SRC_DIR BUILD_DIR [SANITIZE]
set -uo pipefail
. "$1/tests/system/lib.sh"

need_testpmd_plugin "$sanitize"

frames=300
"$src/scripts/gen-frames.sh" "$frames" "$work/eth.pcap" 1 >/dev/null
"$build/app/opa16b-pcap/opa16b-pcap" encap --slid 1 --dlid 2 --vesw 1 \
	"$work/eth.pcap" "$work/in.pcap" >/dev/null

# libomni_vpci.so beside the plugin, out of any world-writable directory
plugin_copies "$build/drivers/net/hfi1/librte_net_hfi1.so" \
	"$build/tools/vpci/libomni_vpci.so" || exit 1
on_exit 'rm -rf "$plugin_dir"'
# vpci's sysfs trees go to a directory of this run's: checked empty at the end
mkdir -p "$work/tmp"

# Port ids: 0 and 2 are the HFIs' wire ports (owned by their models: testpmd
# leaves them alone), 1 and 3 the HFIs, 4 the pcap, 5 the ring loop.
# --portlist pairs pcap<->HFI 04.0 and HFI 05.0<->ring loop.
TMPDIR=$work/tmp LD_PRELOAD=$plugin_dir/libomni_vpci.so \
VPCI_DEVICES="0000:00:04.0,model=hfi1,lid=1,wire=ring:vw;0000:00:05.0,model=hfi1,lid=2,wire=ring:vw" \
testpmd_start 90 "$work/testpmd.log" --lcores 0@0,1@1 --no-huge -m 512 --no-telemetry \
	--file-prefix "$prefix" \
	-a 0000:00:04.0 -a 0000:00:05.0 -d "$plugin_dir/librte_net_hfi1.so" \
	--vdev "net_pcap0,rx_pcap=$work/in.pcap,tx_pcap=$work/out.pcap" --vdev net_ring0 -- \
	-i --no-flush-rx --forward-mode=io --total-num-mbufs=16384 --portlist=4,1,3,5

log=$work/testpmd.log
for bdf in 0000:00:04.0 0000:00:05.0; do
	# hfi1_pci_init's notice: net_hfi1's PCI path ran on the device EAL mapped
	if grep -q "^hfi1_pci_init(): $bdf: firmware load" "$log"; then
		pass "EAL probes net_hfi1's PCI driver on the virtual HFI $bdf (vfio-pci)"
	else
		fail "EAL probes net_hfi1's PCI driver on $bdf" "$(head -30 "$log")"
	fi
done
expect_eq "the HFIs' ports have their LIDs' MACs" \
	"Port 1: 02:11:F1:00:00:01 Port 3: 02:11:F1:00:00:02" \
	"$(grep -o 'Port [13]: 02:11:F1:00:00:0[12]' "$log" | tr '\n' ' ' | sed 's/ $//')"
expect_eq "no BAR is taken for an I/O port" "" "$(grep -o 'Ignore mapping IO port.*' "$log")"

wait_until 30 testpmd_link 1 up || say "HFI 04.0 has no link"
wait_until 30 testpmd_link 3 up || say "HFI 05.0 has no link"
testpmd_cmd start
wait_until 60 pcap_has "$work/out.pcap" "$frames" || say "not every packet came back"
testpmd_cmd stop
testpmd_cmd "show port xstats 1"

totals() { # totals PORT -> "RX TX" of that port's forward statistics
	sed -n "/Forward statistics for port $1 /,/------/p" "$log" |
		awk '/RX-packets/ {rx=$2} /TX-packets/ {tx=$2} END {print rx, tx}'
}
expect_eq "HFI 04.0 sent every packet and received every one back" \
	"$frames $frames" "$(totals 1)"
expect_eq "HFI 05.0 received every packet and sent it back" "$frames $frames" "$(totals 3)"

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

errs=$(sed -n '/NIC extended statistics for port 1/,/testpmd>/p' "$log" |
	grep -E '(rx_err|rx_bad|rx_runt|rx_too|rx_nombuf|tx_bad|tx_not|tx_too|tx_sdma|_errors|missed):' |
	awk '$2 != 0')
expect_eq "HFI 04.0's xstats: no error counter moved" "" "$errs"
expect_eq "HFI 04.0's per-queue xstats count the packets" "rx_q0_packets: $frames" \
	"$(sed -n '/NIC extended statistics for port 1/,/testpmd>/p' "$log" |
		grep -o "rx_q0_packets: [0-9]*")"

testpmd_quit 30
expect_eq "testpmd quits with status 0 (ports closed, models destroyed)" 0 "$?"
expect_eq "vpci never refused or failed an access" "" \
	"$(grep -E '^vpci: .*(not served|cannot|could not)|refus' "$log")"
# (EAL's runtime directory goes with lib.sh's clean-up of $prefix)
left=$(ls -A "$work/tmp" 2>/dev/null; pgrep -f "file-prefix $prefix" || true)
expect_eq "no sysfs tree (of testpmd, stdbuf, timeout) or process left behind" "" "$left"
if [ "$failed" -ne 0 ]; then
	echo "# --- testpmd.log (last 40 lines)"
	tail -40 "$log" 2>/dev/null | sed 's/^/# /'
fi
finish
