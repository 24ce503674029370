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
# Part 2 runs RDMA for guests across the same fabric: both nodes now run
# vhost-user-rdma with VNIC vport 0 as its wire; vrdma-perf (a guest's
# RDMA) runs RC WRITE, SEND, READ, atomics, UD, SEND and WRITE latency between the nodes'
# devices, every message verified, and, when QEMU and the test guest are
# there (scripts/setup.sh), a QEMU guest's rdma_rxe on node A runs
# ibv_rc_pingpong against node B. PASS also needs every RDMA message
# verified, the nodes' VNIC counters (read by the EM) in agreement and every
# mbuf back in both backends.
#
# Usage: scripts/demo.sh [--quick] [FRAMES]   (default 2000 frames; --quick:
#        fewer RDMA messages and no guest, for CI)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
. scripts/lib.sh
quick=0
if [ "${1:-}" = --quick ]; then
	quick=1
	shift
fi
frames=${1:-2000}
iters=20000
[ $quick -eq 0 ] || iters=2000

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
fabric_nodes_stop
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

# ---- part 2: RDMA for guests across the same fabric
echo
echo "== part 2: RDMA across the same fabric: the nodes now run vhost-user-rdma"
cat <<EOF
   vrdma-perf side A (a guest's RDMA)          vrdma-perf side B
        | vhost-user                                 | vhost-user
   node A (LID $FABRIC_A_LID): vhost-user-rdma          node B (LID $FABRIC_B_LID): vhost-user-rdma
     lib/roce RoCE v2 -> pipeline -> VNIC vport 0    VNIC vport 0 -> pipeline -> lib/roce
        -> net_hfi1 (model) --memif-- opa-switch --memif-- net_hfi1 (model)
   vesw 1 (opa-em serve scripts/demo-rdma.yaml): RoCE v2 in Ethernet in OPA 16B
EOF
guest_ok=0
if [ "$quick" -eq 0 ] && [ "$(id -u)" -eq 0 ] && command -v qemu-system-x86_64 >/dev/null &&
   [ -s "$top/.sdk/guest/vmlinuz" ]; then
	guest_ok=1
fi
a_socks=(-s "$work/a.sock")
b_socks=(-s "$work/b.sock")
if [ $guest_ok -eq 1 ]; then
	a_socks+=(-s "$work/g.sock")
	b_socks+=(-s "$work/r.sock")
fi
rdma_node_start a -- "${a_socks[@]}" || fail "node A's vhost-user-rdma did not start"
rdma_node_start b -- "${b_socks[@]}" || fail "node B's vhost-user-rdma did not start"
echo "\$ opa-em serve scripts/demo-rdma.yaml &   (the EM learns the stations behind each node)"
em_serve_start scripts/demo-rdma.yaml || fail "opa-em serve did not start: $(tail -3 "$work/em-serve.log")"
wait_until 30 eval '[ "$(grep -c "^learned" "$work/em-serve.log")" -ge 2 ]' ||
	fail "opa-em serve did not learn the devices' MACs: $(tail -3 "$work/em-serve.log")"
serve_seen=$(wc -l < "$work/em-serve.log")
grep -E '^(node|learned)' "$work/em-serve.log" | sed 's/^/  /'

ab=(-a "$work/a.sock" -b "$work/b.sock")
rdma_runs=0
rdma() { # TITLE ARGS...: one verified vrdma-perf run across the fabric
	local title=$1 out
	shift
	rdma_runs=$((rdma_runs + 1))
	out=$(vrdma_perf "${ab[@]}" "$@" --verify 2>&1) ||
		fail "vrdma-perf $title: $(echo "$out" | grep -v '^EAL' | tail -3)"
	echo "$out" | grep -q 'errors 0$' || fail "vrdma-perf $title: $(echo "$out" | tail -2)"
	printf '  %-34s %s\n' "$title" "$(echo "$out" | grep -E 'msg/s|round trip' | sed 's/^ *//')"
}
echo "== vrdma-perf between the nodes' devices, every message verified (path MTU 1024: vesw MTU 1500)"
rdma "RC WRITE+imm 64 KiB x $((iters / 50))" --mode write_bw --size 65536 --iters $((iters / 50))
rdma "RC SEND 64 B x $iters" --mode send_bw --iters $iters
rdma "RC READ 4 KiB x $((iters / 5))" --mode read_bw --size 4096 --iters $((iters / 5))
rdma "RC FETCH_AND_ADD x $((iters / 5))" --mode atomic_bw --iters $((iters / 5))
rdma "UD SEND 1 KiB x $((iters / 5))" --mode ud_send_bw --size 1024 --iters $((iters / 5))
rdma "RC SEND latency 64 B x $((iters / 20))" --mode send_lat --iters $((iters / 20))
rdma "RC WRITE latency 64 B x $((iters / 20))" --mode write_lat --iters $((iters / 20))

if [ $guest_ok -eq 1 ]; then
	echo "== a QEMU guest on node A: its rdma_rxe runs ibv_rc_pingpong against vrdma-perf on node B"
	port=$((20000 + $$ % 20000))
	timeout 300 "$build/app/vrdma-perf/vrdma-perf" -l 0 $fabric_eal --file-prefix "$prefix-pp" \
		-- -a "$work/r.sock" --pingpong rc --listen "$port" --gid-ip 10.0.0.2 \
		--peer-mac 52:54:00:12:34:56 --iters 100 --size 4096 --accept-timeout 200 \
		> "$work/pp.log" 2>&1 &
	pp_pid=$!
	wait_log "$work/pp.log" 'waiting for a client' 30 || fail "vrdma-perf --pingpong did not start"
	GUEST_MGMT=user GUEST_TIMEOUT=300 scripts/guest-run.sh "$top/.sdk/guest" "$work/g.sock" \
		"$work/guest.log" omni.ip=10.0.0.1/24 omni.mgmt=10.0.2.15/24 \
		"omni.rc=10.0.2.2:$port" omni.tmo=120 \
		> "$work/qemu.log" 2>&1 || fail "the guest did not run (QEMU exit $?)"
	reap "$pp_pid" 30 || fail "vrdma-perf --pingpong failed: $(tail -2 "$work/pp.log")"
	tr -d '\r' < "$work/guest.log" | grep -a -E '^(omni-init: rc|[0-9]+ (bytes|iters) in)' | sed 's/^/  guest: /'
	grep -a -q '^OMNI-RESULT rc 0' "$work/guest.log" || fail "the guest's ibv_rc_pingpong failed"
	sed -n 's/^pingpong rc: /  node B: /p; s/^pingpong: neighbours: /  node B: ARP: /p' "$work/pp.log"
fi

echo "== what opa-em serve learned and wrote since"
em_serve_stop || fail "opa-em serve did not exit cleanly: $(tail -3 "$work/em-serve.log")"
tail -n +$((serve_seen + 1)) "$work/em-serve.log" |
	grep -E '^(learned|forgot|moved|node [0-9]+ vport [0-9]+: MAC table|serve:)' | sed 's/^/  /'
echo "\$ opa-em status scripts/demo-rdma.yaml   (the VNIC vports' counters, read over the fabric)"
em status scripts/demo-rdma.yaml > "$work/status-rdma.txt" || fail "opa-em status"
vport_ctr() { # LID FIELD
	grep "^summary node=$1 index=0 " "$work/status-rdma.txt" | grep -o " $2=[0-9]*" | cut -d= -f2
}
for lid in $FABRIC_A_LID $FABRIC_B_LID; do
	printf '  node %s vport 0: tx_packets=%s rx_packets=%s tx_bytes=%s rx_bytes=%s\n' "$lid" \
		"$(vport_ctr $lid tx_packets)" "$(vport_ctr $lid rx_packets)" \
		"$(vport_ctr $lid tx_bytes)" "$(vport_ctr $lid rx_bytes)"
done
a_tx=$(vport_ctr $FABRIC_A_LID tx_packets)
b_rx=$(vport_ctr $FABRIC_B_LID rx_packets)
[ -n "$a_tx" ] && [ "$a_tx" = "$b_rx" ] && [ "$(vport_ctr $FABRIC_B_LID tx_packets)" = \
	"$(vport_ctr $FABRIC_A_LID rx_packets)" ] || fail "the two nodes' VNIC counters disagree"

fabric_nodes_stop
for n in a b; do
	grep -Eq '^mbufs: ([0-9]+) of \1 in the pool$' "$work/rdma-$n.log" ||
		fail "node $n's backend did not give back every mbuf: $(grep '^mbufs' "$work/rdma-$n.log")"
done
echo "== per-stage counters at exit (node A; node B's in $work/rdma-b.log with KEEP_WORK=1)"
echo "  vhost-user-rdma: its devices' RoCE engines, its switch, its pipeline stages"
grep -E '^(stage|  total|switch:|device [0-9]+ engine:)' "$work/rdma-a.log" | cut -c1-150 | sed 's/^/    /'
xstats_of() { # LOG PORT-NAME: that port's non-zero xstats, on one line
	awk -v h="($2):" '/^xstats port / { on = (index($0, h) > 0); next }
		on && /^  / { printf "%s=%s ", substr($1, 1, length($1) - 1), $2 }' "$1"
}
echo "  net_opa_vnic vport 0: $(xstats_of "$work/rdma-a.log" net_opa_vnic_a_vp0 |
	grep -oE '(tx|rx)_(unicast|mcastbcast|drop_state|dlid_zero|oversize|logic|bad_veswid)=[0-9]+|fabric_rx_packets=[0-9]+|vema_(replies|traps)=[0-9]+' | tr '\n' ' ')"
echo "  net_hfi1 (model): SDMA engines and receive contexts, packets:"
echo "    $(xstats_of "$work/rdma-a.log" net_hfi1_a | grep -oE '(tx|rx)_q[0-9]+_packets=[0-9]+' | tr '\n' ' ')"
echo "    (rx_q0: VNIC context, rx_q1: management context; the highest tx queue: management)"
echo "every RDMA message of $rdma_runs runs verified; the nodes' VNIC counters agree; every mbuf back"
fabric_stop
echo "demo: PASS ($(( $(date +%s) - start )) s)"
