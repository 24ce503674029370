#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# vhost-user-rdma as a black box, with DPDK's own virtio-user as the guest
# driver of its net queues and a net_memif wire:
#
#   wire peer (l2fwd-vnic): in.pcap -> memif -> backend -> guest
#   guest (Debian testpmd, net_virtio_user, macswap) -> backend -> memif
#   wire peer: memif -> out.pcap
#
# Every frame for the device's MAC reaches the guest and comes back with
# its MACs swapped, byte for byte and in order; broadcast frames are
# flooded to the guest; frames for other MACs are dropped and counted; the
# backend's counters agree with testpmd's; SIGINT stops it with every mbuf
# back; bad command lines exit 2 with one line saying why.
#
# Usage: test_vhost_user_rdma.sh SRC_DIR BUILD_DIR [SANITIZE]
set -uo pipefail
. "$1/tests/system/lib.sh"

command -v dpdk-testpmd >/dev/null || { echo "SKIP: no dpdk-testpmd"; exit 77; }
backend=$build/app/vhost-user-rdma/vhost-user-rdma
fwd=$build/examples/l2fwd-vnic/l2fwd-vnic
devmac=02:56:52:44:4d:00
peer=02:00:00:00:00:aa
eal=(--no-huge --no-pci --no-telemetry --log-level=lib.eal:warning
     --log-level=pmd.net.memif:error --log-level=lib.vhost.config:warning)

md5s() { tshark -r "$1" -o frame.generate_md5_hash:TRUE -T fields -e frame.md5_hash 2>/dev/null; }

# --- 1. bad command lines: exit 2, one line saying why
bad() { # NAME WANT-REGEX ARGS...
	expect_exit "bad command line: $1: exit 2, says why" 2 "$2" \
		timeout 60 "$backend" -l 0 "${eal[@]}" -m 64 --file-prefix "$prefix-bad" \
		--vdev net_null0 -- "${@:3}"
}
bad "no socket" "no device: give a socket" --stats 1
bad "max-qps 2" "--max-qps '2': expected 3\.\." -s "$work/x.sock" --max-qps 2
bad "mtu 100" "--mtu '100': expected 336\.\." -s "$work/x.sock" --mtu 100
bad "broadcast mac" "--mac 'ff:ff:ff:ff:ff:ff'" -s "$work/x.sock" --mac ff:ff:ff:ff:ff:ff
bad "rings over 256" "rings|256" -s "$work/x.sock" --max-qps 120 --max-cqs 20
bad "no worker lcore" "no worker lcore" -s "$work/x.sock"
bad "vlan 4095" "--vlan '4095': expected 0\.\.4094" -s "$work/x.sock" --vlan 4095

# --- 2. frames both ways through a virtio-user guest
n=400
"$src/scripts/gen-frames.sh" $n "$work/mine.pcap" 41 60 1514 "$devmac" "$peer" >/dev/null
# random traffic between other hosts: broadcast ARP (flooded) and unicast
# for MACs not here (dropped)
"$src/scripts/gen-frames.sh" 100 "$work/other.pcap" 42 60 1514 >/dev/null
mergecap -a -w "$work/in.pcap" "$work/mine.pcap" "$work/other.pcap"
nbcast=$(tshark -r "$work/other.pcap" -Y 'eth.dst == ff:ff:ff:ff:ff:ff' 2>/dev/null | wc -l)
nother=$((100 - nbcast))

# the backend serves telemetry (its counters over dpdk-telemetry.py)
eal_tel=()
for a in "${eal[@]}"; do
	[ "$a" = --no-telemetry ] || eal_tel+=("$a")
done
timeout 300 "$backend" -l 0-1 "${eal_tel[@]}" -m 256 --file-prefix "$prefix-b" \
	--vdev "net_memif0,role=server,socket=$work/wire.sock" -- \
	-s "$work/vu.sock" --stats 1 --idle-sleep 20 > "$work/b.log" 2>&1 &
b_pid=$!
wait_log "$work/b.log" '^serving 1 device' 30 ||
	fail "the backend starts" "$(tail -5 "$work/b.log")"

timeout 300 dpdk-testpmd -l 0-1 "${eal[@]}" -m 256 --file-prefix "$prefix-g" \
	--vdev "net_virtio_user0,path=$work/vu.sock,queues=1" -- \
	-a --forward-mode=macswap --port-topology=loop --stats-period 1 \
	--total-num-mbufs=4096 > "$work/g.log" 2>&1 &
g_pid=$!
if wait_log "$work/b.log" '^device 0 .*: connected, roce no, [2-9] rings ready' 60; then
	pass "virtio-user connects: the device serves its rings (RoCE not negotiated)"
else
	fail "virtio-user connects: the device serves its rings" \
		"$(tail -5 "$work/b.log"; tail -5 "$work/g.log")"
fi
# testpmd drains its rx queues before it forwards, uncounted: the wire
# starts once it forwards (its periodic statistics begin then)
wait_log "$work/g.log" 'Port statistics' 60 ||
	fail "testpmd starts forwarding" "$(tail -5 "$work/g.log")"

want_out=$((n + nbcast))
# The wire peer stops forwarding once every frame went out and came back
# (--frames: the 500 in, then what comes back) and keeps its ports open
# (--hold): DPDK 22.11's memif unmaps its rings when the peer (the backend)
# disconnects, under a datapath still polling them (a segfault, once).
timeout 300 "$fwd" -l 0 "${eal[@]}" -m 128 --file-prefix "$prefix-w" \
	--vdev "net_memif0,role=client,socket=$work/wire.sock" \
	--vdev "net_pcap0,rx_pcap=$work/in.pcap" \
	--vdev "net_pcap1,tx_pcap=$work/out.pcap" -- \
	--map 1:0,0:2 -T 1 --frames $((n + 100 + want_out)) --hold > "$work/w.log" 2>&1 &
w_pid=$!
# every frame for the guest went back out to the wire (the backend's
# statistics line, once a second); its live counters are there too then
wire_tx_is() { [ "$(sw_ctr "$work/b.log" wire_tx)" = "$1" ]; }
wait_until 60 wire_tx_is "$want_out" || say "wire_tx never reached $want_out"

# DPDK telemetry, as a user would read it, while everything runs
tel=$(printf '/vhost_user_rdma/stats\n/vhost_user_rdma/dev,0\n/vhost_user_rdma/dev,5\n' |
	timeout 30 dpdk-telemetry.py -f "$prefix-b" 2>&1)
tel_get() { echo "$tel" | grep "^{\"$1\"" | grep -o "\"$2\": [0-9]*" | head -1 | awk '{print $2}'; }
expect_eq "telemetry: the switch's and device 0's counters, device 0 connected" \
	"$want_out $want_out $want_out 1" \
	"$(tel_get /vhost_user_rdma/stats wire_tx) $(tel_get /vhost_user_rdma/dev net_rx_frames) \
$(tel_get /vhost_user_rdma/dev net_tx_frames) $(tel_get /vhost_user_rdma/dev connected)"
if echo "$tel" | grep -q '^{"/vhost_user_rdma/dev": null}'; then
	pass "telemetry: a device number out of range is an error"
else
	fail "telemetry: a device number out of range is an error" "$tel"
fi

# The guest first: the backend sees it disconnect while running (virtio-user
# writing to a closed socket would die of SIGPIPE), then the backend, then
# the wire peer, which writes out.pcap.
stop "$g_pid" 30
g_rc=$?
if wait_log "$work/b.log" '^device 0 .*: no frontend, roce no, 0 rings ready' 30; then
	pass "the backend notices the guest leave and keeps running"
else
	fail "the backend notices the guest leave and keeps running" "$(tail -3 "$work/b.log")"
fi
if wait_log "$work/w.log" '^holding the ports open' 30; then
	pass "the wire peer forwarded every frame and holds its ports, polling nothing"
else
	fail "the wire peer forwarded every frame and holds its ports, polling nothing" \
		"$(tail -3 "$work/w.log")"
fi
stop "$b_pid" 30
b_rc=$?
stop "$w_pid" 30
w_rc=$?
expect_eq "testpmd, the backend and the wire peer exit 0 on SIGINT" "0 0 0" \
	"$g_rc $b_rc $w_rc"
if grep -Eq '^mbufs: ([0-9]+) of \1 in the pool$' "$work/b.log"; then
	pass "the backend stops cleanly: every mbuf back in the pool"
else
	fail "the backend stops cleanly: every mbuf back in the pool" "$(tail -8 "$work/b.log")"
fi

tshark -r "$work/out.pcap" -T fields -e eth.dst -e eth.src 2>/dev/null | sort | uniq -c |
	awk '{print $1, $2, $3}' > "$work/macs"
expect_eq "every frame for the device came back, macs swapped (virtio-user took the MAC from GET_CONFIG)" \
	"$n $peer $devmac" "$(grep " $peer " "$work/macs")"
# the rest of each frame is untouched, in order
editcap -C 12 "$work/mine.pcap" "$work/mine.chop" >/dev/null
tshark -r "$work/out.pcap" -Y "eth.dst == $peer" -w "$work/out.mine.pcap" 2>/dev/null
editcap -C 12 "$work/out.mine.pcap" "$work/out.chop" >/dev/null
if cmp -s <(md5s "$work/mine.chop") <(md5s "$work/out.chop"); then
	pass "$n frames: guest -> wire byte for byte after the MACs, in order"
else
	fail "$n frames: guest -> wire byte for byte after the MACs, in order" \
		"$(diff <(md5s "$work/mine.chop") <(md5s "$work/out.chop") | head -5)"
fi
expect_eq "broadcast frames reach the guest and come back" "$nbcast" \
	"$(awk -v p="$peer" '$2 != p {s += $1} END {print s + 0}' "$work/macs")"

expect_eq "switch: frames for other MACs dropped and counted" "$nother" \
	"$(sw_ctr "$work/b.log" drop_unknown)"
expect_eq "switch: to_guest = frames for the device + broadcasts" "$want_out" \
	"$(sw_ctr "$work/b.log" to_guest)"
# the wire's addresses: net_memif takes no extra MAC (-ENOTSUP): the device's
# MAC is refused and counted, said once; its MTU (1500) bounds RoCE to 1024
expect_eq "wire: memif refuses the device's MAC, counted once, announced none" "1 0" \
	"$(sw_ctr "$work/b.log" wire_mac_refused) $(sw_ctr "$work/b.log" wire_macs)"
expect_eq "wire: the refusal is said once" 1 "$(grep -c 'takes no extra MAC address' "$work/b.log")"
expect_eq "wire: its MTU bounds the RoCE path MTU" 1 \
	"$(grep -c "^wire: port 0's MTU is 1500: RoCE path MTU at most 1024$" "$work/b.log")"
expect_eq "switch: nothing lost to a full ring or a missing mbuf" "0 0" \
	"$(sw_ctr "$work/b.log" drop_ring_full) $(sw_ctr "$work/b.log" drop_no_mbuf)"
dev=$(grep '^device 0 (' "$work/b.log" | tail -1)
expect_eq "device: net_rx_frames and net_tx_frames count every frame" \
	"net_rx_frames=$want_out net_tx_frames=$want_out" \
	"$(echo "$dev" | grep -o 'net_rx_frames=[0-9]*') $(echo "$dev" | grep -o 'net_tx_frames=[0-9]*')"
gtot=$(sed -n '/Accumulated forward statistics for all ports/,/+++++/p' "$work/g.log" |
	grep -o 'RX-packets: [0-9]*\|TX-packets: [0-9]*' | awk '{printf "%s ", $2}')
expect_eq "testpmd (virtio-user) received and sent every frame" "$want_out $want_out " "$gtot"

finish
