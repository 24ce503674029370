#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# The main job on the built-in models, no hardware needed. Until the VNIC
# datapath exists this runs a real DPDK pipeline over lib/opa16b:
#
#   in.pcap -> net_pcap -> 16B VNIC encap -> net_ring "wire" -> decap
#           -> net_pcap -> out.pcap
#
# then checks that out.pcap holds exactly the frames of in.pcap, and shows a
# few of the 16B packets as tshark decodes them. Then the same 16B packets
# cross two Omni-Path HFIs (net_hfi1 on its device model, in Debian's
# dpdk-testpmd, two processes joined by a net_memif wire) and back, and
# must come back unchanged. Then the Ethernet Manager
# configures a node's VNIC ports: opa-em and a VEMA agent (vema-host, a
# stand-in node) in two processes joined by a net_memif wire carrying 16B
# management packets; opa-em applies app/opa-em/example.yaml and reads
# state and counters back.
#
# Usage: scripts/demo.sh [FRAMES]   (default 2000)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
. scripts/lib.sh
frames=${1:-2000}

# OMNIPLANE_BUILD_DIR: use an existing build (the system test does).
build=${OMNIPLANE_BUILD_DIR:-}
if [ -z "$build" ]; then
	ensure_setup
	build=build
	configure "$build"
	ninja -C "$build" >/dev/null
fi

work=$(mktemp -d /var/tmp/omniplane-demo.XXXXXX)
prefix="omniplane-demo-$$"
host_pid=
cleanup() {
	[ -n "$host_pid" ] && kill "$host_pid" 2>/dev/null && wait "$host_pid" 2>/dev/null
	rm -rf "$work"
	rm -rf "/var/run/dpdk/$prefix" "/var/run/dpdk/$prefix-node" "/var/run/dpdk/$prefix-em"
}
trap cleanup EXIT

echo "== $frames Ethernet frames (60..1514 bytes: ARP, IPv4, 802.1Q, IPv6)"
scripts/gen-frames.sh "$frames" "$work/in.pcap" 1

echo "== DPDK pipeline: net_pcap -> encap -> net_ring wire -> decap -> net_pcap"
"$build/examples/opa16b-loopback/opa16b-loopback" \
	-l 0 --no-pci --no-huge -m 256 --no-shconf --no-telemetry \
	--file-prefix "$prefix" --log-level=lib.eal:warning \
	--vdev "net_pcap0,rx_pcap=$work/in.pcap" --vdev net_ring0 \
	--vdev "net_pcap1,tx_pcap=$work/out.pcap" -- \
	--src net_pcap0 --wire net_ring0 --dst net_pcap1 --slid 1 --dlid 2 --vesw 1

echo "== compare input and output (tshark, per-frame MD5)"
digest() {
	tshark -r "$1" -o frame.generate_md5_hash:TRUE -T fields -e frame.md5_hash 2>/dev/null
}
digest "$work/in.pcap" > "$work/in.md5"
digest "$work/out.pcap" > "$work/out.md5"
n_in=$(wc -l < "$work/in.md5")
n_out=$(wc -l < "$work/out.md5")
echo "input frames $n_in, output frames $n_out"
if ! cmp -s "$work/in.md5" "$work/out.md5"; then
	echo "demo: FAIL: output frames differ from input frames"
	exit 1
fi
echo "identical: every frame, in order, byte for byte"

echo "== the same frames as 16B packets on the fabric (opa16b-pcap + tshark, first 3)"
"$build/app/opa16b-pcap/opa16b-pcap" encap --slid 1 --dlid 2 --vesw 1 \
	"$work/in.pcap" "$work/wire.pcap" >/dev/null
tshark -r "$work/wire.pcap" -c 3 \
	-o 'uat:user_dlts:"User 0 (DLT=147)","eth_withoutfcs","20","","0",""' 2>/dev/null
tshark -r "$work/wire.pcap" -c 1 -x 2>/dev/null | head -3

echo "== net_hfi1: two HFI nodes on the hfi1 model, Debian dpdk-testpmd -d, net_memif wire"
echo "   A: pcap -> hfi1 LID 1 -> wire -> hfi1 LID 2 (B) -> ring loop -> hfi1 LID 2 -> wire -> hfi1 LID 1 -> pcap"
mkdir -p "$work/hfi1"
if [ -n "${OMNIPLANE_DEMO_NO_TESTPMD:-}" ]; then
	# Set by the system test of the sanitizer build: Debian's testpmd cannot
	# load a plugin built with -fsanitize.
	echo "skipped: $OMNIPLANE_DEMO_NO_TESTPMD"
elif ! scripts/hfi1-testpmd.sh "$build" "$work/hfi1" "$work/wire.pcap"; then
	echo "demo: FAIL: testpmd with net_hfi1"
	exit 1
else
	sed -n '/Forward statistics for port 1 /,/------/p' "$work/hfi1/a.log" |
		grep -E 'packets'
	digest "$work/wire.pcap" > "$work/wire.md5"
	digest "$work/hfi1/out.pcap" > "$work/hfi1.md5"
	if ! cmp -s "$work/wire.md5" "$work/hfi1.md5"; then
		echo "demo: FAIL: 16B packets through net_hfi1 differ from those sent"
		exit 1
	fi
	echo "all $(wc -l < "$work/wire.md5") 16B packets came back through both HFIs, byte for byte"
	grep -E '^ *(rx_q0_packets|tx_q0_packets|rx_err_icrc|tx_bad_head):' "$work/hfi1/a.log"
fi

echo "== Ethernet Manager: opa-em configures node LID 2 (vema-host) over a net_memif wire"
eal="--no-pci --no-huge -m 128 --no-shconf --no-telemetry --log-level=lib.eal:warning"
eal="$eal --log-level=pmd.net.memif:error"
"$build/examples/vema-host/vema-host" $eal --file-prefix "$prefix-node" \
	--vdev "net_memif0,role=server,socket=$work/fabric.sock" -- --lid 2 \
	> "$work/node.log" 2>&1 &
host_pid=$!
for _ in $(seq 50); do
	grep -q listening "$work/node.log" && break
	sleep 0.1
done
em() {
	"$build/app/opa-em/opa-em" $eal --file-prefix "$prefix-em" \
		--vdev "net_memif0,role=client,socket=$work/fabric.sock" -- "$@" 2>&1 |
		grep -v '^rte_pmd_memif_probe'
	return "${PIPESTATUS[0]}"
}
echo "\$ opa-em apply app/opa-em/example.yaml"
if ! em apply app/opa-em/example.yaml; then
	echo "demo: FAIL: opa-em apply"
	exit 1
fi
echo "\$ opa-em status app/opa-em/example.yaml"
if ! em status app/opa-em/example.yaml; then
	echo "demo: FAIL: opa-em status"
	exit 1
fi
echo "demo: PASS"
