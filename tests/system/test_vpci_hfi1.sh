#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# net_hfi1 through vfio-pci: Debian's dpdk-testpmd with libomni_vpci.so
# preloaded sees two virtual HFIs (8086:24f0, vpci's hfi1 backend) at
# 0000:00:04.0 and 0000:00:05.0, bound to "vfio-pci"; EAL maps their BAR0
# and net_hfi1's PCI driver (hfi1_pci_init, the silicon path) probes them.
# Two scenarios, one testpmd each:
#
#   ring:   their wires join as an in-process ring pair (wire=ring:NAME)
#   fabric: each wire is a net_memif client the backend makes itself
#           (memif=SOCKET) to its own port of opa-switch, which routes by
#           LID (scripts/fabric.sh's switch_start)
#
#   net_pcap (16B packets) -> HFI 04.0 (LID 1) -> wire -> HFI 05.0 (LID 2)
#   -> net_ring self-loop -> HFI 05.0 -> wire -> HFI 04.0 -> net_pcap (out)
#
# In each, every packet must come back byte for byte, in order, no error
# counter of net_hfi1 moving, and testpmd must quit cleanly leaving nothing
# behind; through the fabric the switch must have forwarded every packet
# both ways and dropped none. The checks follow test_hfi1_testpmd.sh (the
# vdev path).
#
# Usage: test_vpci_hfi1.sh SRC_DIR BUILD_DIR [SANITIZE]
set -uo pipefail
. "$1/tests/system/lib.sh"

need_testpmd_plugin "$sanitize"
. "$src/scripts/fabric.sh"
on_exit 'switch_stop >/dev/null 2>&1'

frames=300
"$src/scripts/gen-frames.sh" "$frames" "$work/eth.pcap" 1 >/dev/null
"$build/app/opa16b-pcap/opa16b-pcap" encap --slid 1 --dlid 2 --vesw 1 \
	"$work/eth.pcap" "$work/in.pcap" >/dev/null

# libomni_vpci.so beside the plugin, out of any world-writable directory
plugin_copies "$build/drivers/net/hfi1/librte_net_hfi1.so" \
	"$build/tools/vpci/libomni_vpci.so" || exit 1
on_exit 'rm -rf "$plugin_dir"'

# The backend's own arguments, refused at load (describe(): any program with
# vpci preloaded parses its configuration in its constructor): a relative
# memif socket, memif= beside wire=, a memif_id out of range. Each entry
# refused and not presented; the good one (07.0) is not refused.
bad="0000:00:04.0,model=hfi1,memif=rel.sock"
bad="$bad;0000:00:05.0,model=hfi1,memif=/x.sock,wire=ring:a"
bad="$bad;0000:00:06.0,model=hfi1,memif=/x.sock,memif_id=4294967296"
bad="$bad;0000:00:07.0,model=hfi1,memif=/x.sock"
refusals=$(TMPDIR=$work LD_PRELOAD=$plugin_dir/libomni_vpci.so VPCI_DEVICES=$bad /bin/true 2>&1)
refused_bdf='/^vpci: .*backend hfi1 refused/ { split($2, a, ","); print a[1] }'
expect_eq "hfi1 backend: a relative memif= path, memif= with wire=, memif_id=2^32 refused" \
	"0000:00:04.0 0000:00:05.0 0000:00:06.0" \
	"$(echo "$refusals" | awk -F'"' "$refused_bdf" | tr '\n' ' ' | sed 's/ $//')"
expect_eq "hfi1 backend: each refusal says why" "1 1" \
	"$(echo "$refusals" | grep -c 'memif=rel.sock: expected an absolute socket path') $(
		echo "$refusals" | grep -c 'memif= and wire= both name the wire')"

digest() {
	tshark -r "$1" -o frame.generate_md5_hash:TRUE -T fields -e frame.md5_hash 2>/dev/null
}
digest "$work/in.pcap" > "$work/in.md5"

"$src/scripts/gen-frames.sh" "$frames" "$work/eth-b.pcap" 2 >/dev/null
"$build/app/opa16b-pcap/opa16b-pcap" encap --slid 2 --dlid 1 --vesw 1 \
	"$work/eth-b.pcap" "$work/in-b.pcap" >/dev/null
digest "$work/in-b.pcap" > "$work/in-b.md5"

# same_frames LABEL IN OUT: OUT holds IN's packets byte for byte, in order.
same_frames() {
	digest "$3" > "$3.md5"
	expect_eq "$1: $(basename "$3") holds $frames packets" "$frames" "$(wc -l < "$3.md5")"
	if cmp -s "${2%.pcap}.md5" "$3.md5"; then
		pass "$1: every 16B packet of $(basename "$2") came out byte for byte, in order"
	else
		fail "$1: every 16B packet of $(basename "$2") came out byte for byte, in order" \
			"$(diff "${2%.pcap}.md5" "$3.md5" | head -5)"
	fi
}

# scenario NAME VPCI_DEVICES PORT5 OUT...: one testpmd forwarding over the
# two virtual HFIs the devices describe, port 5 the vdev PORT5; until every
# pcap OUT holds $frames packets. Its checks, labelled NAME; the caller
# compares the pcaps.
scenario() {
	local name=$1 devices=$2 port5=$3 log=$work/testpmd-$1.log bdf errs left o
	shift 3
	# vpci's sysfs trees go to a directory of this run's: checked empty at the end
	mkdir -p "$work/tmp-$name"
	# Port ids: 0 and 2 are the HFIs' wire ports (owned by their models:
	# testpmd leaves them alone), 1 and 3 the HFIs, 4 the pcap, 5 PORT5.
	# --portlist pairs pcap<->HFI 04.0 and HFI 05.0<->PORT5.
	# VPCI_STATS: the hfi1 backend's counters at destroy(), checked below
	TMPDIR=$work/tmp-$name LD_PRELOAD=$plugin_dir/libomni_vpci.so VPCI_DEVICES=$devices \
	VPCI_STATS=1 \
	testpmd_start 90 "$log" --lcores 0@0,1@1 --no-huge -m 512 --no-telemetry \
		--file-prefix "$prefix-$name" \
		-a 0000:00:04.0 -a 0000:00:05.0 -d "$plugin_dir/librte_net_hfi1.so" \
		--vdev "net_pcap0,rx_pcap=$work/in.pcap,tx_pcap=$work/out-a-$name.pcap" \
		--vdev "$port5" -- \
		-i --no-flush-rx --forward-mode=io --total-num-mbufs=16384 --portlist=4,1,3,5

	for bdf in 0000:00:04.0 0000:00:05.0; do
		# hfi1_pci_init's notice: net_hfi1's PCI path ran on the device EAL mapped
		if grep -q "^hfi1_pci_init(): $bdf: firmware load" "$log"; then
			pass "$name: EAL probes net_hfi1's PCI driver on the virtual HFI $bdf"
		else
			fail "$name: EAL probes net_hfi1's PCI driver on $bdf" "$(head -30 "$log")"
		fi
	done
	expect_eq "$name: the HFIs' ports have their LIDs' MACs" \
		"Port 1: 02:11:F1:00:00:01 Port 3: 02:11:F1:00:00:02" \
		"$(grep -o 'Port [13]: 02:11:F1:00:00:0[12]' "$log" | tr '\n' ' ' | sed 's/ $//')"
	expect_eq "$name: no BAR is taken for an I/O port" "" \
		"$(grep -o 'Ignore mapping IO port.*' "$log")"

	wait_until 30 testpmd_link 1 up || say "$name: HFI 04.0 has no link"
	wait_until 30 testpmd_link 3 up || say "$name: HFI 05.0 has no link"
	testpmd_cmd start
	for o in "$@"; do
		wait_until 60 pcap_has "$o" "$frames" || say "$name: $o is short"
	done
	testpmd_cmd stop
	testpmd_cmd "show port xstats 1"

	totals() { # totals PORT -> "RX TX" of that port's forward statistics
		sed -n "/Forward statistics for port $1 /,/------/p" "$log" |
			awk '/RX-packets/ {rx=$2} /TX-packets/ {tx=$2} END {print rx, tx}'
	}
	expect_eq "$name: HFI 04.0 sent $frames packets and received $frames" \
		"$frames $frames" "$(totals 1)"
	expect_eq "$name: HFI 05.0 received $frames packets and sent $frames" \
		"$frames $frames" "$(totals 3)"

	errs=$(sed -n '/NIC extended statistics for port 1/,/testpmd>/p' "$log" |
		grep -E -e '(rx_err|rx_bad|rx_runt|rx_too|rx_nombuf):' \
			-e '(tx_bad|tx_not|tx_too|tx_sdma|_errors|missed):' |
		awk '$2 != 0')
	expect_eq "$name: HFI 04.0's xstats: no error counter moved" "" "$errs"
	expect_eq "$name: HFI 04.0's per-queue xstats count the packets" "rx_q0_packets: $frames" \
		"$(sed -n '/NIC extended statistics for port 1/,/testpmd>/p' "$log" |
			grep -o "rx_q0_packets: [0-9]*")"

	testpmd_quit 30
	expect_eq "$name: testpmd quits with status 0 (ports closed)" 0 "$?"
	expect_eq "$name: vpci never refused or failed an access" "" \
		"$(grep -E '^vpci: .*(not served|cannot|could not)|refus' "$log")"
	for bdf in 0000:00:04.0 0000:00:05.0; do
		expect_eq "$name: VPCI_STATS: the model of $bdf sent and received $frames packets" \
			"packets: $frames sent, $frames received" \
			"$(grep -o "^vpci hfi1: $bdf: .*" "$log" | grep -o 'packets: .*')"
		expect_eq "$name: VPCI_STATS: the port's run took trapped BAR reads and writes" \
			yes \
			"$(grep "^vpci hfi1: $bdf: port stopped; since its start: " "$log" |
				awk '{ print ($9 > 0 && $12 > 0) ? "yes" : "no: " $0 }')"
	done
	# (EAL's runtime directory goes with lib.sh's clean-up of $prefix)
	left=$(ls -A "$work/tmp-$name" 2>/dev/null; pgrep -f "file-prefix $prefix-$name" || true)
	expect_eq "$name: no sysfs tree (of testpmd, stdbuf, timeout) or process left behind" "" \
		"$left"
	if [ "$failed" -ne 0 ]; then
		echo "# --- $log (last 40 lines)"
		tail -40 "$log" 2>/dev/null | sed 's/^/# /'
	fi
}

# ring: HFI 05.0's packets loop back through net_ring: every packet back to A.
hfi_a=0000:00:04.0,model=hfi1,lid=1
hfi_b=0000:00:05.0,model=hfi1,lid=2
scenario ring "$hfi_a,wire=ring:vw;$hfi_b,wire=ring:vw" net_ring0 "$work/out-a-ring.pcap"
same_frames ring "$work/in.pcap" "$work/out-a-ring.pcap"

# fabric: opa-switch with ports a (0) and b (1), LID 1 at a, LID 2 at b. The
# switch routes by DLID, so a packet looped back unchanged (DLID 2) would go
# back to B: B sends packets of its own to LID 1 instead, from a pcap, both
# ways at once. Every packet A sent reaches B and every packet B sent
# reaches A.
if switch_start a b -- --route 1=0 --route 2=1 --stats-period 0; then
	scenario fabric \
		"$hfi_a,memif=$work/sw-a.sock;$hfi_b,memif=$work/sw-b.sock" \
		"net_pcap1,rx_pcap=$work/in-b.pcap,tx_pcap=$work/out-b-fabric.pcap" \
		"$work/out-a-fabric.pcap" "$work/out-b-fabric.pcap"
	same_frames "fabric: A -> switch -> B" "$work/in.pcap" "$work/out-b-fabric.pcap"
	same_frames "fabric: B -> switch -> A" "$work/in-b.pcap" "$work/out-a-fabric.pcap"
	switch_stop
	expect_eq "fabric: opa-switch exits with status 0" 0 "$?"
	sw_port() { # sw_port ID -> "rx tx" of that switch port's final counters
		grep "^port=$1 " "$work/switch.log" | tail -1 |
			sed -E 's/.* rx=([0-9]+) .* tx=([0-9]+) .*/\1 \2/'
	}
	expect_eq "fabric: the switch took $frames packets from HFI 04.0 and gave it $frames" \
		"$frames $frames" "$(sw_port 0)"
	expect_eq "fabric: the switch took $frames packets from HFI 05.0 and gave it $frames" \
		"$frames $frames" "$(sw_port 1)"
	expect_eq "fabric: the switch dropped nothing" "dropped=0" \
		"$(grep -o '^total .*dropped=[0-9]*' "$work/switch.log" | grep -o 'dropped=[0-9]*')"
else
	fail "fabric: opa-switch starts" "$(tail -5 "$work/switch.log")"
fi
finish
