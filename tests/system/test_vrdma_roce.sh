#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# RoCE through vhost-user-rdma, driven from the guest side by vrdma-perf
# (lib/vufront's driver), every message's bytes and order checked:
#
#  1. one backend serving two devices (a net_null wire that receives
#     nothing): RC SEND, WRITE (with immediate), READ of 64 B and 10000 B
#     (10 packets of 1024), UD SEND, SEND latency, WRITE latency (plain
#     WRITEs, each side polling its memory for the other's, 64 B and
#     10000 B; over the wire of 2 as well), atomics (FETCH_AND_ADD and
#     CMP_AND_SWP on one counter: every original and the final count);
#     each run a new connection to the same sockets; the backend's switch
#     delivers every RoCE frame to the other device's engine and nothing to
#     the wire;
#  2. two backends, one device each, joined by a net_memif wire: RC SEND,
#     READ, FETCH_AND_ADD and UD SEND cross a real ethdev;
#  2b. the same on VLAN 7 (--vlan) with --mtu 4200 over the memif wire,
#     whose MTU is 1500: vrdma-perf asks for path MTU 4096 (from the
#     devices' MTU), each backend clamps it to 1024 and says so; RC SEND of
#     10000 B and UD SEND cross tagged and arrive at the engines;
#  3. two backends whose wires lead nowhere: an RC run whose peer never
#     answers fails with RETRY_EXC_ERR named (--qp-timeout, --retry-cnt),
#     and never does with no ACK timeout (--qp-timeout 0);
#
# then every backend stops on SIGINT with every mbuf back, and bad
# vrdma-perf command lines exit 2 saying why, and so does an --ib-mtu the
# device's Ethernet MTU cannot carry.
#
# Usage: test_vrdma_roce.sh SRC_DIR BUILD_DIR [SANITIZE]
set -uo pipefail
. "$1/tests/system/lib.sh"

backend=$build/app/vhost-user-rdma/vhost-user-rdma
perf=$build/app/vrdma-perf/vrdma-perf
eal=(--no-huge --no-pci --no-telemetry --log-level=lib.eal:warning
     --log-level=pmd.net.memif:error --log-level=lib.vhost.config:warning)

# backend NAME ARGS...: start one in the background, wait until it serves
backend() {
	local name=$1
	shift
	timeout 600 "$backend" -l 0-1 "${eal[@]}" -m 256 --file-prefix "$prefix-$name" "$@" \
		--idle-sleep 10 > "$work/$name.log" 2>&1 &
	eval "pid_$name=$!"
	wait_log "$work/$name.log" '^serving [0-9]+ device' 30 ||
		fail "backend $name starts" "$(tail -5 "$work/$name.log")"
}
runs=0
perf_run() { # NAME ARGS...: vrdma-perf, verified
	runs=$((runs + 1))
	perf_verified "$1" timeout 120 "$perf" -l 0-1 "${eal[@]}" -m 256 \
		--file-prefix "$prefix-p$runs" -- "${@:2}" --verify
}

# --- 1. one backend, two devices
backend one --vdev net_null0,no-rx=1 -- -s "$work/a.sock" -s "$work/b.sock"
ab=(-a "$work/a.sock" -b "$work/b.sock")
perf_run "RC SEND 64 B x 20000" "${ab[@]}" --mode send_bw --iters 20000
perf_run "RC SEND 10000 B x 2000" "${ab[@]}" --mode send_bw --size 10000 --iters 2000
perf_run "RC WRITE with immediate 64 B x 20000" "${ab[@]}" --mode write_bw --iters 20000
perf_run "RC WRITE with immediate 10000 B x 2000" "${ab[@]}" --mode write_bw --size 10000 \
	--iters 2000
perf_run "RC READ 64 B x 20000" "${ab[@]}" --mode read_bw --iters 20000
perf_run "RC READ 10000 B x 2000" "${ab[@]}" --mode read_bw --size 10000 --iters 2000
perf_run "UD SEND 1024 B x 5000" "${ab[@]}" --mode ud_send_bw --size 1024 --iters 5000
perf_run "RC SEND latency 64 B x 1000" "${ab[@]}" --mode send_lat --iters 1000
perf_run "RC WRITE latency (plain WRITE, memory polled) 64 B x 1000" "${ab[@]}" \
	--mode write_lat --iters 1000
perf_run "RC WRITE latency (plain WRITE, memory polled) 10000 B x 500" "${ab[@]}" \
	--mode write_lat --size 10000 --iters 500
perf_run "RC atomic FETCH_AND_ADD x 20000" "${ab[@]}" --mode atomic_bw --iters 20000
perf_run "RC atomic CMP_AND_SWP x 20000" "${ab[@]}" --mode atomic_bw \
	--atomic-type cmp_and_swap --iters 20000
perf_run "RC atomic FETCH_AND_ADD one at a time x 2000" "${ab[@]}" --mode atomic_bw \
	--atomic-type fetch_and_add --tx-depth 1 --iters 2000
stop "$pid_one" 30
expect_eq "backend one exits 0 on SIGINT" 0 $?
log=$work/one.log
if grep -Eq '^mbufs: ([0-9]+) of \1 in the pool$' "$log"; then
	pass "backend one: every mbuf back in the pool after $runs connections"
else
	fail "backend one: every mbuf back in the pool" "$(tail -5 "$log")"
fi
expect_eq "switch: RoCE frames stay between the devices (none to the wire, none lost)" \
	"0 0 0 0" "$(sw_ctr "$log" to_wire) $(sw_ctr "$log" to_guest) \
$(sw_ctr "$log" drop_ring_full) $(sw_ctr "$log" drop_unknown)"
to_roce=$(sw_ctr "$log" to_roce)
expect_eq "switch: every frame the devices sent went to the other's engine" \
	"$(sw_ctr "$log" dev_tx)" "$to_roce"
expect_eq "each device saw every connection and reset its RDMA state after each" \
	"$runs $runs $runs $runs" "$(dev_ctr "$log" 0 connections) $(dev_ctr "$log" 1 connections) \
$(dev_ctr "$log" 0 rdma_resets) $(dev_ctr "$log" 1 rdma_resets)"
expect_eq "no request refused, no bad chain on either device" "0 0 0 0" \
	"$(dev_ctr "$log" 0 wr_refused) $(dev_ctr "$log" 1 wr_refused) \
$(dev_ctr "$log" 0 wq_bad_chain) $(dev_ctr "$log" 1 wq_bad_chain)"

# --- 2. two backends joined by a memif wire
runs_before=$runs
backend wa --vdev "net_memif0,role=server,socket=$work/wire.sock" -- -s "$work/wa.sock"
backend wb --vdev "net_memif0,role=client,socket=$work/wire.sock" -- -s "$work/wb.sock" \
	--mac 02:56:52:44:4d:10
wab=(-a "$work/wa.sock" -b "$work/wb.sock")
perf_run "over a memif wire: RC SEND 4000 B x 2000" "${wab[@]}" --mode send_bw --size 4000 \
	--iters 2000
perf_run "over a memif wire: RC READ 4000 B x 2000" "${wab[@]}" --mode read_bw --size 4000 \
	--iters 2000
perf_run "over a memif wire: RC WRITE latency 64 B x 500" "${wab[@]}" --mode write_lat \
	--iters 500
perf_run "over a memif wire: RC WRITE latency 10000 B x 300" "${wab[@]}" --mode write_lat \
	--size 10000 --iters 300
perf_run "over a memif wire: UD SEND 512 B x 2000" "${wab[@]}" --mode ud_send_bw --size 512 \
	--iters 2000
perf_run "over a memif wire: RC atomic FETCH_AND_ADD x 2000" "${wab[@]}" --mode atomic_bw \
	--iters 2000
stop "$pid_wa" 30
rc_a=$?
stop "$pid_wb" 30
rc_b=$?
expect_eq "both wire backends exit 0 on SIGINT" "0 0" "$rc_a $rc_b"
for b in wa wb; do
	if grep -Eq '^mbufs: ([0-9]+) of \1 in the pool$' "$work/$b.log"; then
		pass "backend $b: every mbuf back in the pool"
	else
		fail "backend $b: every mbuf back in the pool" "$(tail -5 "$work/$b.log")"
	fi
done
wa_tx=$(sw_ctr "$work/wa.log" wire_tx)
wb_rx=$(sw_ctr "$work/wb.log" wire_rx)
if [ "${wa_tx:-0}" -gt 4000 ] && [ "$wa_tx" = "$wb_rx" ] &&
   [ "$(sw_ctr "$work/wb.log" wire_tx)" = "$(sw_ctr "$work/wa.log" wire_rx)" ]; then
	pass "the RoCE frames crossed the wire: each backend received what the other sent ($wa_tx A->B)"
else
	fail "the RoCE frames crossed the wire" "$(grep '^switch' "$work/wa.log" | tail -1)
$(grep '^switch' "$work/wb.log" | tail -1)"
fi
expect_eq "wire frames all went to the device's engine" \
	"$(sw_ctr "$work/wb.log" wire_rx)" "$(sw_ctr "$work/wb.log" to_roce)"

# --- 2b. VLAN 7 and a virtio-net MTU (4200) above the wire's (memif: 1500)
backend va --vdev "net_memif0,role=server,socket=$work/vwire.sock" -- -s "$work/va.sock" \
	--mtu 4200 --vlan 7
backend vb --vdev "net_memif0,role=client,socket=$work/vwire.sock" -- -s "$work/vb.sock" \
	--mac 02:56:52:44:4d:10 --mtu 4200 --vlan 7
vab=(-a "$work/va.sock" -b "$work/vb.sock")
perf_run "VLAN 7, MTU 4200 over a 1500 wire: RC SEND 10000 B x 1000" "${vab[@]}" \
	--mode send_bw --size 10000 --iters 1000
perf_run "VLAN 7, MTU 4200 over a 1500 wire: UD SEND 512 B x 1000" "${vab[@]}" \
	--mode ud_send_bw --size 512 --iters 1000
stop "$pid_va" 30
rc_a=$?
stop "$pid_vb" 30
rc_b=$?
expect_eq "both VLAN backends exit 0 on SIGINT" "0 0" "$rc_a $rc_b"
for b in va vb; do
	log=$work/$b.log
	if grep -q "^wire: port 0's MTU 1500 is below --mtu 4200: the RoCE path MTU is at most 1024" \
		"$log"; then
		pass "backend $b says at start that the wire's MTU bounds RoCE to 1024"
	else
		fail "backend $b says at start that the wire's MTU bounds RoCE to 1024" \
			"$(grep '^wire' "$log")"
	fi
	expect_eq "backend $b: the RC QP's path MTU 4096 clamped once, said once" "1 1" \
		"$(dev_ctr "$log" 0 path_mtu_clamped) $(grep -c 'path MTU 4096 clamped to 1024' "$log")"
	expect_eq "backend $b: every wire frame to the engine, none of another VID" \
		"$(sw_ctr "$log" wire_rx) 0" \
		"$(sw_ctr "$log" to_roce) $(grep '^device 0 engine:' "$log" | tail -1 |
		grep -o ' rx_bad_vlan=[0-9]*' | cut -d= -f2 | grep . || echo 0)"
	if grep -Eq '^mbufs: ([0-9]+) of \1 in the pool$' "$log"; then
		pass "backend $b: every mbuf back in the pool"
	else
		fail "backend $b: every mbuf back in the pool" "$(tail -5 "$log")"
	fi
done

# --- 3. a peer that never answers: each backend's wire leads nowhere
backend na --vdev net_null0,no-rx=1 -- -s "$work/na.sock"
backend nb --vdev net_null0,no-rx=1 -- -s "$work/nb.sock" --mac 02:56:52:44:4d:11
lost() { # NAME WANT-REGEX ARGS...: vrdma-perf exits 1 saying WANT-REGEX
	runs=$((runs + 1))
	expect_exit "$1" 1 "$2" timeout 60 "$perf" -l 0-1 "${eal[@]}" -m 256 \
		--file-prefix "$prefix-p$runs" -- -a "$work/na.sock" -b "$work/nb.sock" "${@:3}"
}
# 4 ms x 2 tries: RETRY_EXC_ERR in about 10 ms, named as verbs names it
lost "no answer, --qp-timeout 8 --retry-cnt 1: the completion error names RETRY_EXC_ERR" \
	'device A: completion error: RETRY_EXC_ERR \(wr_id [0-9]+\)' --iters 100 \
	--qp-timeout 8 --retry-cnt 1
# (the default retry count, 7, would retry for ever: so --retry-cnt reached the QP)
lost "no answer, --qp-timeout 0 (no ACK timeout): no completion at all, a stall" \
	'no progress for 5 s' --iters 100 --qp-timeout 0 --retry-cnt 1
# 2.1 s x 3 tries: a QP that may wait 6.4 s for an ACK is not a stall at 5 s;
# its RETRY_EXC_ERR comes first
lost "no answer, --qp-timeout 19 --retry-cnt 2: RETRY_EXC_ERR after 6.4 s, no stall at 5 s" \
	'device A: completion error: RETRY_EXC_ERR' --iters 100 --qp-timeout 19 --retry-cnt 2
stop "$pid_na" 30
rc_a=$?
stop "$pid_nb" 30
expect_eq "both backends without a peer exit 0 on SIGINT" "0 0" "$rc_a $?"

# --- 4. bad vrdma-perf command lines: exit 2, one line saying why
bad() { # NAME WANT-REGEX ARGS...
	expect_exit "vrdma-perf bad command line: $1: exit 2, says why" 2 "$2" \
		timeout 60 "$perf" -l 0-1 "${eal[@]}" -m 64 --file-prefix "$prefix-bad" -- "${@:3}"
}
bad "one socket" "give both devices' sockets" -a "$work/a.sock"
bad "unknown mode" "--mode 'atomic_lat'" -a x -b y --mode atomic_lat
bad "unknown atomic type" "--atomic-type 'swap': expected cmp_and_swap or fetch_and_add" \
	-a x -b y --mode atomic_bw --atomic-type swap
bad "atomic type without atomic_bw" "--atomic-type is for --mode atomic_bw" -a x -b y \
	--atomic-type fetch_and_add
bad "atomic of 16 bytes" "--size 16: an atomic moves 8 bytes" -a x -b y --mode atomic_bw \
	--size 16
bad "qp-timeout 32" "--qp-timeout '32': expected 0\.\.31" -a x -b y --qp-timeout 32
bad "retry-cnt 8" "--retry-cnt '8': expected 0\.\.7" -a x -b y --retry-cnt 8
bad "tx-depth 0" "--tx-depth '0': expected 1\.\." -a x -b y --tx-depth 0
bad "size 2M" "--size '2097152': expected 1\.\." -a x -b y --size 2097152
bad "a multicast GID" "--gid-ip 'ff02::1': expected an IPv4 or a unicast IPv6" \
	-a x --pingpong rc --listen 1 --gid-ip ff02::1
pt=(-a x --gid-ip 10.0.0.9)
bad "unknown perftest test" "--perftest 'ud_bw': expected send_bw, write_bw" "${pt[@]}" \
	--perftest ud_bw --listen 1
bad "perftest neither server nor client" "--perftest needs -a SOCKET, --gid-ip ADDRESS and either --listen PORT or --connect IPV4" \
	"${pt[@]}" --perftest send_bw
bad "perftest server and client" "--perftest needs -a SOCKET, --gid-ip ADDRESS and either" \
	"${pt[@]}" --perftest send_bw --listen 1 --connect 10.0.0.1
bad "perftest atomic of 16 bytes" "--size 16: an atomic moves 8 bytes" "${pt[@]}" \
	--perftest atomic_lat --listen 1 --size 16
bad "perftest atomic type for write_bw" "--atomic-type is for atomic_bw and atomic_lat" \
	"${pt[@]}" --perftest write_bw --listen 1 --atomic-type cmp_and_swap
bad "connect without perftest" "--connect is for --perftest and --cm" "${pt[@]}" --pingpong rc \
	--listen 1 --connect 10.0.0.1
bad "connect to a name" "--connect 'host': expected an IPv4 address" "${pt[@]}" \
	--perftest send_bw --connect host
bad "port without connect" "--port is the --connect server's" "${pt[@]}" --perftest send_bw \
	--listen 1 --port 5
bad "UD write_bw" "--ud is for --perftest send_bw" "${pt[@]}" --perftest write_bw --listen 1 --ud

# --- 5. a pingpong server waiting for its client ends on SIGINT within 10 s (7 ms seen unloaded; the client wait is 300 s)
# (its waits read the one stop flag the handler sets)
backend pp --vdev net_null0,no-rx=1 -- -s "$work/pp.sock"
timeout 60 "$perf" -l 0 "${eal[@]}" -m 128 --file-prefix "$prefix-ppc" -- -a "$work/pp.sock" \
	--pingpong rc --listen $((20000 + $$ % 20000)) --gid-ip 10.0.0.9 \
	--peer-mac 02:00:00:00:00:09 > "$work/pp.log" 2>&1 &
pp_pid=$!
if wait_log "$work/pp.log" 'waiting for a client' 30; then
	stop "$pp_pid" 10
	pp_rc=$?
	if [ $pp_rc -ne 124 ] && [ $pp_rc -ne 0 ]; then
		pass "vrdma-perf --pingpong waiting for a client ends on SIGINT within 10 s (exit $pp_rc)"
	else
		fail "vrdma-perf --pingpong waiting for a client ends on SIGINT within 10 s" \
			"exit $pp_rc (124: still running after 10 s)"
	fi
else
	fail "vrdma-perf --pingpong waits for a client" "$(tail -5 "$work/pp.log")"
fi
# --- 6. a path MTU the device cannot carry is refused, not lowered behind the peer's back
expect_exit "vrdma-perf --pingpong --ib-mtu 4096 on an Ethernet MTU of 1500: exit 2, says why" 2 \
	"--ib-mtu 4096: the device's Ethernet MTU 1500 carries a path MTU of 1024 at most" \
	timeout 60 "$perf" -l 0 "${eal[@]}" -m 128 --file-prefix "$prefix-ppm" -- \
	-a "$work/pp.sock" --pingpong rc --listen $((20000 + $$ % 20000)) --gid-ip 10.0.0.9 \
	--peer-mac 02:00:00:00:00:09 --ib-mtu 4096
stop "$pid_pp" 30
expect_eq "backend pp exits 0 on SIGINT" 0 $?
finish
