#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# The main job, on the built-in models: two Omni-Path nodes carry Ethernet
# over the fabric through VNIC ports, configured by the Ethernet Manager.
#
#   node A (LID 1): Debian dpdk-testpmd -d net_opa_vnic (+ net_hfi1 model)
#                   net_pcap (in.pcap) <-io-> VNIC vport 0 (vesw 1)
#                                             VNIC vport 1 (vesw 2)
#   node B (LID 2): examples/l2fwd-vnic --mac-swap on VNIC vport 0 (vesw 1);
#                   vport 1 on vesw 2
#   opa-switch:     the fabric (memif links; LFT LID 1 -> A, 2 -> B, 100 -> EM)
#   opa-em (LID 100): applies scripts/demo.yaml (vesw 1 and vesw 2), then
#                   reads every vport's counters back over VEMA
#
# Frames go A -> B as 16B VNIC packets, B swaps their MACs and sends them
# back, A writes them to out.pcap. PASS when every frame made the round
# trip (out = in with MACs swapped, each once), no vport counted a drop,
# and the vesw 2 vports saw none of the frames.
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
if [ -n "${OMNIPLANE_DEMO_NO_TESTPMD:-}" ]; then
	# the system test of a sanitizer build: Debian's testpmd cannot load it
	echo "demo: skipped: $OMNIPLANE_DEMO_NO_TESTPMD"
	exit 77
fi

# $work and $prefix (omniplane-demo-PID); at exit the fabric stops, and
# KEEP_WORK=1 keeps the logs and pcaps (scripts/lib.sh)
make_work demo
. scripts/fabric.sh
on_exit 'fabric_stop >/dev/null 2>&1'
start=$(date +%s)

fail() {
	echo "demo: FAIL: $*"
	for f in switch a b; do
		echo "--- $f.log (last lines)"
		tail -15 "$work/$f.log" 2>/dev/null || true
	done
	exit 1
}

mac_a=$(lmac 0x301 1 1)
mac_b=$(lmac 0x301 1 2)
echo "== $frames Ethernet frames (60..1514 bytes) from A's vport 0 ($mac_a) to B's ($mac_b)"
scripts/gen-frames.sh "$frames" "$work/in.pcap" 1 60 1514 "$mac_b" "$mac_a"

echo "== fabric: opa-switch, node A (testpmd), node B (l2fwd-vnic)"
fabric_start || fail "opa-switch did not start"
node_a_start "vports=2" "--vdev net_pcap0,rx_pcap=$work/in.pcap,tx_pcap=$work/out.pcap" \
	--no-flush-rx --forward-mode=io --portmask=0x14 || fail "testpmd did not start"
node_b_start "vports=2" --map 2:2 --mac-swap -T 0 --link-timeout 0 --xstats
wait_log "$work/b.log" "[Ll]ink|port 2" 10 || fail "l2fwd-vnic did not start"

echo "== the Ethernet Manager configures both nodes (scripts/demo.yaml)"
echo "\$ opa-em apply scripts/demo.yaml"
em apply scripts/demo.yaml || fail "opa-em apply"
testpmd_cmd "show port info 2" "Link status: up" || fail "A's vport 0 link did not come up"

echo "== A forwards: pcap -> vport 0 -> fabric -> B -> fabric -> vport 0 -> pcap"
testpmd_cmd "start"
wait_until 20 pcap_has "$work/out.pcap" "$frames" || echo "demo: not every frame came back in 20 s"
testpmd_cmd "stop"
testpmd_cmd "show port xstats 2"
testpmd_cmd "show port xstats 3"

echo "\$ opa-em status scripts/demo.yaml"
em status scripts/demo.yaml > "$work/status.txt" || fail "opa-em status"
grep -E '^summary node=(1|2) index=0' "$work/status.txt" | cut -c1-110 || true
fabric_stop
[ "$a_rc" -eq 0 ] || fail "testpmd exited $a_rc"
[ "$b_rc" -eq 0 ] || fail "l2fwd-vnic exited $b_rc"
# A clean exit closes every port (the fabric and its wire) before EAL goes.
! grep -q 'Cannot close started device' "$work/a.log" "$work/b.log" ||
	fail "a port was still started at exit: $(grep -h 'Cannot close' "$work/a.log" "$work/b.log" | head -1)"

echo "== counters"
xs() { # PORT NAME: an xstat of node A from its log
	sed -n "/NIC extended statistics for port $1 /,/####/p" "$work/a.log" |
		awk -v k="$2:" '$1 == k { print $2; exit }'
}
printf '  A vport 0: tx %s rx %s (unicast), tx drops dlid0=%s state=%s oversize=%s, rx drops state=%s fifo=%s bad_vesw=%s\n' \
	"$(xs 2 tx_unicast)" "$(xs 2 rx_unicast)" "$(xs 2 tx_dlid_zero)" "$(xs 2 tx_drop_state)" \
	"$(xs 2 tx_oversize)" "$(xs 2 rx_drop_state)" "$(xs 2 rx_logic)" "$(xs 2 rx_bad_veswid)"
printf '  A vport 1 (vesw 2): rx unicast %s, mcast %s\n' "$(xs 3 rx_unicast)" "$(xs 3 rx_mcastbcast)"
grep -E '^(port|  )' "$work/b.log" | grep -iE 'port 2|port 3|rx_unicast|tx_unicast|forwarded' | head -8 || true

echo "== compare: out.pcap must hold every frame of in.pcap once, MACs swapped"
# text2pcap writes pcapng: compare classic pcap files
editcap -F pcap "$work/in.pcap" "$work/in-classic.pcap"
python3 - "$work/in-classic.pcap" "$work/out.pcap" "$frames" <<'EOF' || fail "frames differ"
import struct, sys

def frames(path):
    data = open(path, 'rb').read()
    off, out = 24, []
    while off + 16 <= len(data):
        incl = struct.unpack_from('<I', data, off + 8)[0]
        out.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return out

a, b, n = frames(sys.argv[1]), frames(sys.argv[2]), int(sys.argv[3])
if len(a) != n or len(b) != n:
    sys.exit(f"in {len(a)} frames, out {len(b)}, expected {n}")
# Flows are spread over SDMA engines by entropy: order holds within a flow,
# not across flows. Every frame must come back exactly once.
want = sorted(x[6:12] + x[0:6] + x[12:] for x in a)
if sorted(b) != want:
    missing = len([1 for x in want if x not in b])
    sys.exit(f"frames differ: {missing} of {n} sent did not come back as sent")
same = sum(1 for x, y in zip(a, b) if y == x[6:12] + x[0:6] + x[12:])
print(f"all {n} frames made the round trip A -> B -> A once, byte for byte (MACs swapped);"
      f" {same} in their original position (flows share no order across SDMA engines)")
EOF

tx=$(xs 2 tx_unicast)
rx=$(xs 2 rx_unicast)
[ "$tx" = "$frames" ] && [ "$rx" = "$frames" ] || fail "vport 0 counted tx $tx rx $rx"
for k in tx_dlid_zero tx_drop_state tx_oversize rx_drop_state rx_logic rx_bad_veswid rx_runt \
	rx_oversize fabric_rx_handed_over; do
	[ "$(xs 2 $k)" = 0 ] || fail "A vport 0 counted $k = $(xs 2 $k)"
done
[ "$(xs 3 rx_unicast)" = 0 ] && [ "$(xs 3 rx_mcastbcast)" = 0 ] ||
	fail "the vesw 2 vport saw frames"
grep -qE "node_lid=1 index=0 .*tx_packets=$frames .*rx_packets=$frames|node_lid=1 index=0" \
	"$work/status.txt" || true
echo "the vesw 2 vports saw none of the frames; no drops"
echo "demo: PASS ($(( $(date +%s) - start )) s)"
