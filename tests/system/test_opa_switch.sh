#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# opa-switch joins three processes on one fabric: the Ethernet Manager
# (opa-em, LID 1) and two nodes (vema-host, LIDs 2 and 3), each a net_memif
# client of one of the switch's three server ports (scripts/fabric.sh
# starts the switch and opa-em).
#  1. static routes: apply configures vports on both nodes, status reads
#     both back; a LID without a route (9) gives opa-em's "no reply" exit
#     and exactly its 3 tries as no_route drops; every counter of the
#     switch matches what the three processes say they sent and received.
#  2. --learn without routes: the first request to each node is flooded,
#     the rest follows learned entries; a node killed with SIGKILL costs
#     the switch nothing.
#  3. the command line: bad routes refused, --duration ends a run.
# Shutdown order: clients first, then the switch (a net_memif peer that is
# still polling when the other side leaves is at risk in DPDK 22.11).
#
# Usage: test_opa_switch.sh SRC_DIR BUILD_DIR [SANITIZE]
set -uo pipefail
. "$1/tests/system/lib.sh"

sw=$build/app/opa-switch/opa-switch
host=$build/examples/vema-host/vema-host
# the fabric: a switch of named ports, clients of them, opa-em (em)
. "$src/scripts/fabric.sh"

host_pids=()
all_pids=()
# at exit (a failed check, a test runner's SIGTERM): clients before the switch
on_exit 'for p in "${host_pids[@]}"; do stop "$p" 60 TERM; done; switch_stop TERM'

# start_switch ARGS...: the switch, port 0 the EM's, 1 node 2's, 2 node 3's
start_switch() {
	switch_start em n2 n3 -- "$@"
	all_pids+=($sw_pid)
}

# start_host NAME LID SWITCH_PORT: a node on port SWITCH_PORT (1: n2, 2:
# n3), once the switch sees its link
start_host() {
	local ups
	ups=$(grep -c "^opa-switch: port $3 (net_memif$3) link up\$" "$work/switch.log")
	"$host" $fabric_eal --file-prefix "$prefix-$1" $(switch_port "n$2") -- --lid "$2" \
		> "$work/$1.out" 2> "$work/$1.err" &
	host_pids+=($!)
	all_pids+=($!)
	wait_log "$work/$1.out" listening 60
	switch_link_wait "$3" up $((ups + 1))
}

# stop_node PID: SIGTERM, its exit status in $rc; and forget it
stop_node() {
	local keep=() p
	stop "$1" 60 TERM
	rc=$?
	for p in "${host_pids[@]}"; do
		[ "$p" != "$1" ] && keep+=("$p")
	done
	host_pids=("${keep[@]}")
}

# stop_switch NAME: SIGTERM, its exit status in $rc; its log kept as
# $work/NAME.log
stop_switch() {
	switch_stop TERM
	rc=$?
	mv "$work/switch.log" "$work/$1.log"
}

# run_em ARGS...: output in $out, exit status in $rc; sums what the EM
# sent (requests + retries) and received (replies + traps + ignored)
em_sent=0
em_got=0
run_em() {
	out=$(em --timeout-ms ${timeout_ms:-3000} --retries 2 "$@")
	rc=$?
	local s
	s=$(echo "$out" | grep '^opa-em: requests' | tr -d ',')
	em_sent=$((em_sent + $(echo "$s" | awk '{ print $3 + $5 }')))
	em_got=$((em_got + $(echo "$s" | awk '{ print $9 + $11 + $13 }')))
}

# counter OUT BLOCK PORT KEY: a counter of the switch's last BLOCK
# ("final" or "periodic") counters
counter() {
	grep -A3 "opa-switch: $2 counters" "$1" | grep "^port=$3 " | tail -1 |
		tr ' ' '\n' | grep "^$4=" | cut -d= -f2
}
# counters OUT PORT KEY...: "KEY=VALUE ..." from the final counters
counters() {
	local o=$1 p=$2
	shift 2
	for k in "$@"; do
		printf '%s=%s\n' "$k" "$(counter "$o" final "$p" "$k")"
	done | paste -sd' '
}
# sum OUT KEY...: the final counters KEY... added over the three ports
sum() {
	local o=$1
	shift
	echo $(( $(for p in 0 1 2; do for k in "$@"; do counter "$o" final $p $k; done; done |
		paste -sd+) ))
}
drop_keys="short not_16b bad_length no_route to_ingress link_down tx_full"
# host_stat NAME KEY: from vema-host's closing line
host_stat() {
	grep -o "$2 [0-9]*" "$work/$1.err" | head -1 | cut -d' ' -f2
}

# Two nodes, one vport each, on one vesw whose default ports are both
# nodes; each node's MAC table names the other (app/opa-em/example.yaml).
cat > "$work/both.yaml" <<EOF
em: { lid: 1, pkey: 0xffff, sl: 0 }
vesws:
  - { id: 10, fabric_id: 0x301, pkey: 0x8001, mtu: 1500, mcast_dlid: 0xf00001, ucast_dlids: [2, 3] }
vports:
  - node_lid: 2
    index: 0
    vesw: 10
    port_num: 100
    mac: lmac
    mac_table:
      - { mac: "02:00:00:00:03:01", dlid: 3 }
  - node_lid: 3
    index: 0
    vesw: 10
    port_num: 101
    mac: lmac
    mac_table:
      - { mac: "02:00:00:00:02:01", dlid: 2 }
EOF
cat > "$work/lid9.yaml" <<EOF
em: { lid: 1 }
vesws:
  - { id: 10, pkey: 0x8001, mcast_dlid: 0xf00001 }
vports:
  - { node_lid: 9, index: 0, vesw: 10, mac: "00:11:22:00:00:99" }
EOF
sed '/node_lid: 3/,$d' "$work/both.yaml" > "$work/node2.yaml"

vport_state() { # vport_state NODE: config/oper/link of its vport 0
	echo "$out" | grep -E "^vport node=$1 index=0 " | tr ' ' '\n' |
		grep -E '^(config|oper|link)=' | paste -sd' '
}

# --- 1. static routes: the LFT the SM would program
start_switch --route 1=0 --route 2=net_memif1 --route 3=2 --stats-period 1
start_host h2 2 1
start_host h3 3 2

run_em apply "$work/both.yaml"
echo "$out" | grep -vE '^EAL' | sed 's/^/# /'
expect_eq "routes: apply exits 0" "0" "$rc"
applied="vesw 10 mac 06:AC:00:0N:00:00 1 MAC entries: applied"
expect_eq "routes: apply reaches both nodes through the switch" \
	"node 2 vport 0: ${applied/N/2}|node 3 vport 0: ${applied/N/3}" \
	"$(echo "$out" | grep -E '^node [23] vport' | paste -sd'|')"

run_em status "$work/both.yaml"
expect_eq "routes: status exits 0" "0" "$rc"
expect_eq "routes: node 2's vport configured and forwarding" \
	"config=forwarding oper=forwarding link=up" "$(vport_state 2)"
expect_eq "routes: node 3's vport configured and forwarding" \
	"config=forwarding oper=forwarding link=up" "$(vport_state 3)"

timeout_ms=200 run_em apply "$work/lid9.yaml"
expect_eq "routes: LID 9 (no route) is opa-em's 'no reply' exit 3" "3" "$rc"
expect_eq "routes: LID 9 named" "node 9: GET ClassPortInfo: no reply after 3 tries" \
	"$(echo "$out" | grep -E '^node 9:' | head -1)"
# a periodic block after all of it
wait_log "$work/switch.log" 'periodic counters' 10 \
	$(( $(grep -c 'periodic counters' "$work/switch.log") + 1 ))

# clients first, then the switch
stop_node "${host_pids[0]}"
expect_eq "routes: node 2 exits 0" "0" "$rc"
stop_node "${host_pids[0]}"
expect_eq "routes: node 3 exits 0" "0" "$rc"
switch_link_wait 2 down
stop_switch s1
expect_eq "routes: the switch exits 0 on SIGTERM" "0" "$rc"
sed -n '/final counters/,$p' "$work/s1.log" | sed 's/^/# /'
grep -v '^EAL' "$work/h2.err" "$work/h3.err" | sed 's/^/# /'
expect_eq "routes: final counters printed, one line per port" "3" \
	"$(sed -n '/final counters/,$p' "$work/s1.log" | grep -c '^port=')"
expect_eq "routes: periodic counters printed too" "yes" \
	"$(grep -q 'periodic counters' "$work/s1.log" && echo yes)"
o=$work/s1.log
# every packet the EM sent came in on port 0; all but the 3 for LID 9 went on
expect_eq "routes: port 0 rx = what opa-em sent ($em_sent)" "$em_sent" "$(counter $o final 0 rx)"
# a receiver that does not drain in time (a loaded machine) costs a tx_full
# drop, which its sender's retry makes good (opa-em's "retries"): nothing else
full=$(sum $o tx_full)
expect_eq "routes: port 0 no_route = the 3 tries for LID 9, nothing else dropped but tx_full ($full)" \
	"ucast=$((em_sent - 3)) mcast=0 flood=0 no_route=3 dropped=$((3 + full))" \
	"$(counters $o 0 ucast mcast flood no_route) dropped=$(sum $o $drop_keys)"
expect_eq "routes: port 0 tx = what opa-em received ($em_got)" "$em_got" "$(counter $o final 0 tx)"
for n in 2 3; do
	p=$((n - 1))
	expect_eq "routes: port $p tx = what node $n received" \
		"$(host_stat h$n rx)" "$(counter $o final $p tx)"
	sent=$(( $(host_stat h$n replies) + $(host_stat h$n traps) ))
	expect_eq "routes: port $p rx = node $n's replies and traps ($sent), all unicast" \
		"rx=$sent ucast=$sent" "$(counters $o $p rx ucast)"
	expect_eq "routes: node $n: nothing for another LID reached it" "0" \
		"$(host_stat h$n wrong_dest)"
done
expect_eq "routes: totals: rx = tx + 3 dropped (+ $full tx_full)" "$(sum $o rx)" \
	"$(( $(sum $o tx) + 3 + full ))"
# every request and reply is a 2080-byte FM packet (2048-byte MAD)
expect_eq "routes: bytes in - bytes out = 3 requests (+ $full tx_full) of 2080 bytes" \
	"$(( (3 + full) * 2080 ))" "$(( $(sum $o rx_bytes) - $(sum $o tx_bytes) ))"

# --- 2. --learn, no routes: the first request to each node is flooded
em_sent=0
em_got=0
start_switch --learn
start_host h2 2 1
start_host h3 3 2
run_em apply "$work/both.yaml"
expect_eq "learn: apply exits 0 without a single route" "0" "$rc"
expect_eq "learn: both nodes applied" "2" \
	"$(echo "$out" | grep -c '^node [23] vport 0: .*applied')"
run_em status "$work/both.yaml"
fwd="config=forwarding oper=forwarding link=up"
expect_eq "learn: status exits 0, both vports forwarding" "0|$fwd|$fwd" \
	"$rc|$(vport_state 2)|$(vport_state 3)"
timeout_ms=200 run_em apply "$work/lid9.yaml"
expect_eq "learn: LID 9 still unreachable (exit 3)" "3" "$rc"

# a node that vanishes: the switch goes on
kill -KILL "${host_pids[1]}"
wait "${host_pids[1]}" 2>/dev/null
host_pids=("${host_pids[0]}")
rm -rf "/var/run/dpdk/$prefix-h3"
switch_link_wait 2 down
run_em status "$work/node2.yaml"
expect_eq "learn: after node 3 was killed, node 2 still answers" "0" "$rc"

stop_node "${host_pids[0]}"
expect_eq "learn: node 2 exits 0" "0" "$rc"
switch_link_wait 1 down
stop_switch s2
expect_eq "learn: the switch exits 0" "0" "$rc"
sed -n '/final counters/,$p' "$work/s2.log" | sed 's/^/# /'
o=$work/s2.log
# floods: the first request to LID 2, the first to LID 3, 3 tries for LID 9
expect_eq "learn: 5 requests flooded, the rest unicast" \
	"flood=5 ucast=$((em_sent - 5)) mcast=0" "$(counters $o 0 flood ucast mcast)"
expect_eq "learn: nothing dropped anywhere" "0" "$(sum $o $drop_keys)"
expect_eq "learn: each flood went out on both other ports" \
	"$(( $(sum $o ucast) + 2 * 5 ))" "$(sum $o tx)"
expect_eq "learn: node 2 saw the floods for LIDs 3 and 9 (wrong_dest 4)" "4" \
	"$(host_stat h2 wrong_dest)"
# LID 1 learned on each of the EM's 4 connections (forgotten when its link
# goes down), LIDs 2 and 3 once
expect_eq "learn: 6 learn events, all forgotten as the links went down" \
	"learned=0 learn_events=6" \
	"$(grep '^total' $o | tail -1 | grep -o 'learned=[0-9]* learn_events=[0-9]*')"
expect_eq "learn: LIDs forgotten as links went down: LID 1 four times, LIDs 2 and 3" \
	"port 0 x4|port 1 x1|port 2 x1" \
	"$(for p in 0 1 2; do
		echo "port $p x$(grep -c "port $p: 1 learned LIDs forgotten" $o)"
	done | paste -sd'|')"

# --- 3. the command line
bad_cmd() { # bad_cmd NAME EXPECTED_MESSAGE ARGS...
	local name=$1 msg=$2
	shift 2
	out=$(timeout 120 "$sw" $fabric_eal --file-prefix "$prefix-bad" \
		--vdev net_memif0,role=server,socket=$work/bad0.sock \
		--vdev net_memif1,role=server,socket=$work/bad1.sock -- "$@" 2>&1)
	rc=$?
	if [ "$rc" = 1 ] && echo "$out" | grep -qF -- "$msg"; then
		pass "command line: $name refused (exit 1): $msg"
	else
		fail "command line: $name refused (exit 1): $msg" "exit $rc: $out"
	fi
}
bad_cmd "a port that does not exist" "--route 2=7: no port '7' (2 ports)" --route 2=7
bad_cmd "a multicast LID" "LID must be a unicast LID" --route 0xf00001=0
bad_cmd "a LID routed twice" "LID 2 already goes to port 0" --route 2=0 --route 2=net_memif1
bad_cmd "a bad period" "bad value 'x'" --stats-period x
bad_cmd "a control FIFO in no directory" "--control $work/no/ctl: No such file or directory" \
	--control "$work/no/ctl"
: > "$work/plain"
bad_cmd "a control path that is no FIFO" "--control $work/plain: not a FIFO" \
	--control "$work/plain"
bad_cmd "an empty control path" "bad value ''" --control ""
out=$(timeout 120 "$sw" $fabric_eal --file-prefix "$prefix-dur" \
	--vdev net_memif0,role=server,socket=$work/dur.sock -- --duration 1 2>&1)
rc=$?
expect_eq "command line: --duration 1 ends the run, exit 0, final counters" "0 1" \
	"$rc $(echo "$out" | grep -c 'final counters')"
# --control makes its FIFO and removes it at exit; one that was there stays.
out=$(timeout 120 "$sw" $fabric_eal --file-prefix "$prefix-dur" \
	--vdev net_memif0,role=server,socket=$work/dur.sock -- --duration 1 \
	--control "$work/made.ctl" 2>&1)
rc=$?
mkfifo "$work/kept.ctl"
out2=$(timeout 120 "$sw" $fabric_eal --file-prefix "$prefix-dur" \
	--vdev net_memif0,role=server,socket=$work/dur.sock -- --duration 1 \
	--control "$work/kept.ctl" 2>&1)
rc2=$?
expect_eq "command line: --control names its FIFO, made and removed, or kept when it was there" \
	"0 1 gone|0 1 fifo" \
	"$rc $(echo "$out" | grep -c "^opa-switch: control: $work/made.ctl\$") $(
	  [ -e "$work/made.ctl" ] && echo there || echo gone)|$rc2 $(
	  echo "$out2" | grep -c "^opa-switch: control: $work/kept.ctl\$") $(
	  [ -p "$work/kept.ctl" ] && echo fifo || echo gone)"

left=
for p in "${all_pids[@]}"; do
	kill -0 "$p" 2>/dev/null && left="$left $p"
done
expect_eq "no switch or node process left running" "" "$left"
finish
