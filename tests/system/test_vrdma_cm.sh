#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# The IB CM over the GSI QP, our end to our end: two vhost-user-rdma
# backends, one device each, joined by a net_memif wire; vrdma-perf --cm
# on each device as rdmacm-utils' rping server and client:
#
#  1. a REQ for a port nobody listens on gets a REJ (reason 8, invalid
#     service ID, as Linux's cm.c): the client tries again a second apart
#     while --accept-timeout lasts, then says so and exits 1; the server's
#     CM counts them (rej_no_listener) and keeps listening;
#  2. rping of 64 B x 10 and 4000 B x 20 (4 packets of 1024 each way),
#     both ends verifying every ping (the server: each READ is rping's
#     pattern; the client: each WRITE back equals its source), each
#     connection set up by REQ / REP / RTU and torn down by DREQ / DREP;
#     the first run finds the peer's MAC by ARP on the devices' Ethernet
#     queues, the second is given it (--peer-mac);
#  2c. a client's pings larger than the server's --size: the server names
#     the size and disconnects, the client hears it; both exit 1;
#  3. a client whose server is not there: the REQ is resent and the
#     connection times out (exit 1, "no connection");
#  4. bad --cm command lines exit 2 saying why.
#
# Usage: test_vrdma_cm.sh SRC_DIR BUILD_DIR [SANITIZE]
set -uo pipefail
. "$1/tests/system/lib.sh"

backend=$build/app/vhost-user-rdma/vhost-user-rdma
perf=$build/app/vrdma-perf/vrdma-perf
eal=(--no-huge --no-pci --no-telemetry --log-level=lib.eal:warning
     --log-level=pmd.net.memif:error --log-level=lib.vhost.config:warning)
mac_a=02:56:52:44:4d:00  # the backend's default
mac_b=02:56:52:44:4d:10

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
# perf NAME ARGS...: vrdma-perf in the foreground, its output in $work/NAME.log
perf() {
	local name=$1
	shift
	runs=$((runs + 1))
	timeout 120 "$perf" -l 0 "${eal[@]}" -m 256 --file-prefix "$prefix-p$runs" -- "$@" \
		> "$work/$name.log" 2>&1
}
# server NAME ARGS...: a --cm server on device A in the background, listening on 7174
server() {
	local name=$1
	shift
	runs=$((runs + 1))
	timeout 120 "$perf" -l 0 "${eal[@]}" -m 256 --file-prefix "$prefix-p$runs" -- \
		-a "$work/a.sock" --cm --listen 7174 --gid-ip 10.0.0.1 --accept-timeout 60 "$@" \
		> "$work/$name.log" 2>&1 &
	srv_pid=$!
	wait_log "$work/$name.log" '^cm: listening on port 7174' 30 ||
		fail "$name: the server listens" "$(tail -5 "$work/$name.log")"
}

backend wa --vdev "net_memif0,role=server,socket=$work/wire.sock" -- -s "$work/a.sock"
backend wb --vdev "net_memif0,role=client,socket=$work/wire.sock" -- -s "$work/b.sock" \
	--mac "$mac_b"
client=(-a "$work/b.sock" --cm --connect 10.0.0.1 --gid-ip 10.0.0.2 --verify)

# --- 1. a REQ to a port nobody listens on, then 2. rping on the listened one
server s1 --verify --iters 10
perf rej "${client[@]}" --port 7175 --accept-timeout 3
rc=$?
expect_eq "REQ to port 7175 (nobody listens): the client exits 1" 1 "$rc"
if grep -q 'the server rejected the connection: reason 8 (invalid service ID' "$work/rej.log"; then
	pass "REQ to port 7175: REJ with reason 8 (invalid service ID), said by the client"
else
	fail "REQ to port 7175: REJ reason 8" "$(tail -5 "$work/rej.log")"
fi
# a second apart while --accept-timeout (3 s) lasts: 2 or 3 REQs, each rejected
if grep -q '^cm: nobody listens there yet (REJ); trying again until --accept-timeout' \
	"$work/rej.log" && grep -Eq 'rx_rej=[23] ' "$work/rej.log"; then
	pass "the client tried again while --accept-timeout lasted, each REQ rejected"
else
	fail "the client tried again, each REQ rejected" "$(grep '^cm: ' "$work/rej.log")"
fi
perf c1 "${client[@]}" --port 7174 --iters 10
expect_eq "rping client 64 B x 10 through the CM exits 0" 0 $?
wait "$srv_pid"
expect_eq "rping server exits 0 once the client disconnected" 0 $?
if grep -q '^rping client: 10 pings of 64 bytes, every one written back verified' \
	"$work/c1.log" &&
   grep -q '^rping server: 10 pings of up to 64 bytes served, every one read verified' \
	"$work/s1.log"; then
	pass "rping 64 B x 10: every ping read by the server and written back, both verified"
else
	fail "rping 64 B x 10 verified" "$(tail -5 "$work/c1.log")
$(tail -5 "$work/s1.log")"
fi
if grep -Eq 'rej_no_listener=[23] ' "$work/s1.log"; then
	pass "the server's CM rejected the REQs for port 7175 (rej_no_listener) and went on"
else
	fail "the server's CM counted the REQ it rejected" "$(grep '^cm: counters' "$work/s1.log")"
fi
if grep -q '^cm: disconnected (DREP received)' "$work/c1.log"; then
	pass "the client's DREQ was answered with a DREP"
else
	fail "DREQ / DREP" "$(tail -3 "$work/c1.log")"
fi
if grep -q '^cm: peer MAC .* (resolved)' "$work/c1.log"; then
	pass "the client found the server's MAC by ARP"
else
	fail "the client found the server's MAC by ARP" "$(grep MAC "$work/c1.log")"
fi

# --- 2b. multi-packet pings, MACs given
server s2 --verify --peer-mac "$mac_b" --size 4000
perf c2 "${client[@]}" --peer-mac "$mac_a" --size 4000 --iters 20
expect_eq "rping client 4000 B x 20 through the CM exits 0" 0 $?
wait "$srv_pid"
expect_eq "rping server (4000 B) exits 0" 0 $?
if grep -q '^rping client: 20 pings of 4000 bytes, every one written back verified' \
	"$work/c2.log" &&
   grep -q '^rping server: 20 pings of up to 4000 bytes served, every one read verified' \
	"$work/s2.log"; then
	pass "rping 4000 B x 20 (4 packets each way): both ends verified"
else
	fail "rping 4000 B x 20 verified" "$(tail -5 "$work/c2.log")
$(tail -5 "$work/s2.log")"
fi

# --- 2c. a client's pings larger than the server's buffer (as rping -S): the server says
# so and disconnects, the client hears of it; both exit 1
server s3 --size 64
perf c3 "${client[@]}" --peer-mac "$mac_a" --size 4000 --iters 2
expect_eq "a client of 4000 B to a server of 64 B exits 1" 1 $?
wait "$srv_pid"
expect_eq "that server exits 1" 1 $?
if grep -q "the client's size 4000 is not 1..64 (--size)" "$work/s3.log" &&
   grep -q 'the server disconnected after 0 pings' "$work/c3.log"; then
	pass "the server refused the larger pings by name and disconnected; the client said so"
else
	fail "size refused, disconnect heard" "$(tail -4 "$work/s3.log")
$(tail -4 "$work/c3.log")"
fi

# --- 3. nobody at the address: the REQ is resent, then the connection times out
perf gone -a "$work/b.sock" --cm --connect 10.0.0.1 --gid-ip 10.0.0.2 --peer-mac "$mac_a" \
	--port 7174 --cm-retries 1 --accept-timeout 1
rc=$?
expect_eq "a client with no server exits 1" 1 "$rc"
if grep -q 'no connection (Connection timed out)' "$work/gone.log" &&
   grep -Eq 'retransmits=[1-9]' "$work/gone.log"; then
	pass "the REQ was resent, then the connection timed out"
else
	fail "REQ resent, then a timeout" "$(tail -4 "$work/gone.log")"
fi

# --- 4. bad command lines exit 2 and say why
bad() { # NAME MESSAGE ARGS...
	expect_exit "bad command line: $1" 2 "$2" timeout 30 "$perf" -l 0 "${eal[@]}" -m 64 \
		--file-prefix "$prefix-bad" -- "${@:3}"
}
bad "--cm without an address" "--cm needs -a SOCKET, --gid-ip ADDRESS and either" \
	-a x --cm --listen 1
bad "--cm both server and client" "--cm needs -a SOCKET, --gid-ip ADDRESS and either" \
	-a x --cm --listen 1 --connect 10.0.0.1 --gid-ip 10.0.0.2
bad "--cm --size below rping's" "--cm --size 25: rping's sizes are 26..65535" \
	-a x --cm --listen 1 --gid-ip 10.0.0.2 --size 25
bad "--cm-retries 16" "--cm-retries '16': expected 0..15" -a x --cm --listen 1 --gid-ip 10.0.0.2 --cm-retries 16
bad "--cm-retries without --cm" "--cm-retries is for --cm" -a x --pingpong rc --listen 1 \
	--gid-ip 10.0.0.2 --cm-retries 3

stop "$pid_wa" 30
rc_a=$?
stop "$pid_wb" 30
rc_b=$?
expect_eq "both backends exit 0 on SIGINT" "0 0" "$rc_a $rc_b"
finish
