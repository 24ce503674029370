#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# l2fwd-vnic as a black box over net_pcap/net_ring/net_null ports, judged by
# tshark: in plain and pipeline mode, frames forwarded twice with --mac-swap
# come back byte for byte; --mac-rewrite writes the expected MACs and leaves
# the rest alone; frames encapsulated to a 16B fabric port decode (opa16b-pcap
# decap) to the input, 16B packets from a fabric port decapsulate to it, and
# bad ones are counted and freed; SIGTERM/SIGINT end a run cleanly with every
# mbuf back; bad options exit 2 with one line saying why.
#
# Usage: test_l2fwd_vnic.sh SRC_DIR BUILD_DIR [SANITIZE]
set -uo pipefail
. "$1/tests/system/lib.sh"

fwd=$build/examples/l2fwd-vnic/l2fwd-vnic
tool=$build/app/opa16b-pcap/opa16b-pcap
lua=$src/app/opa16b-pcap/opa16b.lua
eal=(--no-huge --no-pci -m 128 --no-shconf --no-telemetry --log-level=lib.eal:warning)
# main lcore 0 and three workers over the CPUs there are
if [ "$(nproc)" -ge 2 ]; then
	lcores=(--lcores 0@0,1@1,2@0,3@1)
else
	lcores=(--lcores 0@0,1@0,2@0,3@0)
fi

run() { # run EAL_LCORES... -- ARGS... : output in $out, status in $rc
	local -a pre=()
	while [ "$1" != -- ]; do pre+=("$1"); shift; done
	shift
	run_dpdk 180 "$fwd" "${pre[@]}" "${eal[@]}" "$@"
}
md5s() { tshark -r "$1" -o frame.generate_md5_hash:TRUE -T fields -e frame.md5_hash 2>/dev/null; }
# per-frame MD5 of everything after the two MAC addresses
md5s_nomac() { editcap -C 12 "$1" "$1.chop" && md5s "$1.chop"; }
grepl() { echo "$out" | grep -E "$@"; }
no_leak() { # NAME: every mbuf back in the pool, no drop
	local m
	m=$(grepl '^mbufs: ')
	if [[ "$m" =~ ^mbufs:\ ([0-9]+)\ of\ ([0-9]+)\ in\ the\ pool$ ]] &&
	   [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]; then
		pass "$1: every mbuf back in the pool"
	else
		fail "$1: every mbuf back in the pool" "$out"
	fi
}

# net_ring's loopback ring holds 1023 frames: loops forward at most that many,
# so none can be lost to a full ring whatever the thread scheduling.
"$src/scripts/gen-frames.sh" 1000 "$work/in.pcap" 31 60 1514
"$src/scripts/gen-frames.sh" 3000 "$work/big.pcap" 32 60 1514
"$tool" encap --slid 0x22 --dlid 0x11 --vesw 7 "$work/in.pcap" "$work/in.16b.pcap" >/dev/null
"$tool" encap --slid 0x22 --dlid 0x11 --vesw 8 "$work/in.pcap" "$work/vesw8.16b.pcap" >/dev/null
want=$(md5s "$work/in.pcap")

# --- 1. --mac-swap twice (pcap -> ring loop -> pcap), plain and pipeline
loop=(--vdev "net_pcap0,rx_pcap=$work/in.pcap" --vdev net_ring0)
for mode in plain pipeline; do
	if [ $mode = plain ]; then
		run -l 0 -- "${loop[@]}" --vdev "net_pcap1,tx_pcap=$work/swap-$mode.pcap" -- \
			--map 0:1,1:2 --mac-swap -T 0 --frames 2000
	else
		run "${lcores[@]}" -- "${loop[@]}" \
			--vdev "net_pcap1,tx_pcap=$work/swap-$mode.pcap" -- \
			--map 0:1,1:2 --mac-swap -T 0 --frames 2000 --pipeline rx@1,work@2,tx@3
	fi
	expect_eq "$mode --mac-swap twice: exit 0" "0" "$rc"
	expect_eq "$mode --mac-swap twice: output frames identical to input, in order" \
		"$want" "$(md5s "$work/swap-$mode.pcap")"
	expect_eq "$mode: every frame received and sent twice, none dropped" \
		"  total: rx 2000 tx 2000 dropped 0" "$(grepl '^  total:')"
	no_leak "$mode --mac-swap"
done
expect_eq "pipeline: each stage took in and handed on 2000 frames" \
	"3" "$(grepl '^  total +in 2000 out 2000 drop_fn 0 drop_ring 0 ' | wc -l)"
expect_eq "pipeline: the mode line shows the placement" \
	"mode: pipeline rx@1,work@2,tx@3, burst 32, rings 1024, back-pressure" "$(grepl '^mode:')"

# --- 2. --mac-rewrite: dst 02:00:00:00:00:01, src = port 1's MAC, the rest intact;
# plain (order kept), and pipeline with two work lcores sharing lcores with rx
# and tx (order across work lcores may change: compared as sets)
for mode in plain pipeline; do
	pcaps=(--vdev "net_pcap0,rx_pcap=$work/big.pcap"
	       --vdev "net_pcap1,tx_pcap=$work/rw-$mode.pcap")
	if [ $mode = plain ]; then
		run -l 0 -- "${pcaps[@]}" -- --map 0:1 --mac-rewrite -T 0 --frames 3000
	else
		run "${lcores[@]}" -- "${pcaps[@]}" -- --map 0:1 --mac-rewrite -T 0 --frames 3000 \
			--pipeline 'rx@1,work@(1,2),tx@2' --burst 16 --ring-size 100
	fi
	expect_eq "$mode --mac-rewrite: exit 0" "0" "$rc"
	mac1=$(grepl '^port 1 ' | sed -E 's/.*: mac ([0-9a-f:]+),.*/\1/')
	expect_eq "$mode --mac-rewrite: every frame has dst 02:00:00:00:00:01, src port 1's MAC" \
		"02:00:00:00:00:01 $mac1 3000" \
		"$(tshark -r "$work/rw-$mode.pcap" -T fields -e eth.dst -e eth.src 2>/dev/null |
		   sort | uniq -c | awk '{ print $2, $3, $1 }')"
	if [ $mode = plain ]; then
		expect_eq "plain --mac-rewrite: bytes after the MACs unchanged, in order" \
			"$(md5s_nomac "$work/big.pcap")" "$(md5s_nomac "$work/rw-$mode.pcap")"
	else
		expect_eq "pipeline --mac-rewrite, 2 work lcores: bytes after the MACs unchanged" \
			"$(md5s_nomac "$work/big.pcap" | sort)" \
			"$(md5s_nomac "$work/rw-$mode.pcap" | sort)"
		line='stage 1 work: burst 16, lcores 1,2; input ring 0/100'
		line+=' (enq single, deq multi-rts); back-pressure'
		expect_eq "pipeline: the work stage ran on lcores 1 and 2, rings as asked" \
			"$line" "$(grepl '^stage 1 work')"
	fi
	no_leak "$mode --mac-rewrite"
done

# --- 3. encap to a fabric port: opa16b-pcap decodes the input back, with the
# requested 16B fields (our Lua dissector reads them)
for mode in plain pipeline; do
	pcaps=(--vdev "net_pcap0,rx_pcap=$work/in.pcap"
	       --vdev "net_pcap1,tx_pcap=$work/enc-$mode.pcap")
	if [ $mode = plain ]; then
		run -l 0 -- "${pcaps[@]}" -- --map 0:1 --encap 1:0x123456:0xabcdef:4095 -T 0 \
			--frames 1000
	else
		run "${lcores[@]}" -- "${pcaps[@]}" -- --map 0:1 --encap 1:0x123456:0xabcdef:4095 \
			-T 0 --frames 1000 --pipeline rx@1,work@2,tx@3
	fi
	expect_eq "$mode --encap: exit 0" "0" "$rc"
	# net_pcap writes linktype 1; the 16B packets are USER0 (147)
	editcap -T user0 "$work/enc-$mode.pcap" "$work/enc-$mode.147.pcap"
	dec=$("$tool" decap "$work/enc-$mode.147.pcap" "$work/dec-$mode.pcap" | head -1)
	expect_eq "$mode --encap: opa16b-pcap decapsulates all 1000" "decapsulated: 1000" "$dec"
	expect_eq "$mode --encap: decapsulated frames identical to input" \
		"$want" "$(md5s "$work/dec-$mode.pcap")"
	expect_eq "$mode --encap: slid, dlid, vesw as asked on every packet" \
		"$(printf '0x00123456\t0x00abcdef\t0x0fff')" \
		"$(tshark -X "lua_script:$lua" -r "$work/enc-$mode.147.pcap" -T fields \
		   -e opa16b.slid -e opa16b.dlid -e opa16b.veswid 2>/dev/null | sort -u)"
	no_leak "$mode --encap"
done

# --- 4. decap from a fabric port, plain and pipeline; then both ways in one
# process: pcap -> encap -> ring (a fabric loop) -> decap -> pcap
for mode in plain pipeline; do
	pcaps=(--vdev "net_pcap0,rx_pcap=$work/in.16b.pcap"
	       --vdev "net_pcap1,tx_pcap=$work/d-$mode.pcap")
	if [ $mode = plain ]; then
		run -l 0 -- "${pcaps[@]}" -- --map 0:1 --encap 0:1:2:7 -T 0 --frames 1000
	else
		run "${lcores[@]}" -- "${pcaps[@]}" -- --map 0:1 --encap 0:1:2:7 -T 0 \
			--frames 1000 --pipeline rx@1,work@2,tx@3
	fi
	expect_eq "$mode decap: exit 0, 1000 in, 1000 out" "0|  total: rx 1000 tx 1000 dropped 0" \
		"$rc|$(grepl '^  total:')"
	expect_eq "$mode decap: frames identical to the Ethernet input" "$want" \
		"$(md5s "$work/d-$mode.pcap")"
	no_leak "$mode decap"
done
run "${lcores[@]}" -- "${loop[@]}" --vdev "net_pcap1,tx_pcap=$work/rt.pcap" -- \
	--map 0:1,1:2 --encap 1:5:5:9 -T 0 --frames 2000 --pipeline rx@1,work@2,tx@3
expect_eq "encap + decap through a 16B ring loop: exit 0" "0" "$rc"
expect_eq "encap + decap through a 16B ring loop: output identical to input" \
	"$want" "$(md5s "$work/rt.pcap")"
no_leak "16B ring loop"

# --- 5. rejected 16B input is counted and freed: another vesw, and
# Ethernet frames arriving on a fabric port
for input in vesw8.16b in; do
	run -l 0 -- --vdev "net_pcap0,rx_pcap=$work/$input.pcap" --vdev net_null0 -- \
		--map 0:1 --encap 0:1:2:7 -T 0 --duration 1
	expect_eq "fabric port fed $input.pcap: exit 0, all 1000 counted as rx_bad" \
		"0|  port 0: rx 1000 tx 0 dropped 1000 (tx_full 0 rx_bad 1000 encap 0)" \
		"$rc|$(grepl '^  port 0:')"
	no_leak "fabric port fed $input.pcap"
done

# --- 6. signals end a run cleanly (exit 0, final statistics, every mbuf
# back); --xstats and -T print; --duration ends a run
inf=(--vdev "net_pcap0,rx_pcap=$work/in.pcap,infinite_rx=1" --vdev net_null0)
for sig in TERM INT; do
	runs=$((runs + 1))
	if [ $sig = TERM ]; then
		args=(--pipeline rx@1,work@2,tx@3)
	else
		args=()
	fi
	# timeout(1) passes SIGTERM and SIGINT on to l2fwd-vnic
	timeout 120 "$fwd" "${lcores[@]}" "${eal[@]}" --file-prefix "$prefix-$runs" "${inf[@]}" -- \
		--map 0:1 --mac-swap -T 1 --xstats "${args[@]}" > "$work/sig.out" 2>&1 &
	pid=$!
	wait_log "$work/sig.out" '^statistics:' 60
	stop $pid 60 $sig
	rc=$?
	rm -rf "/var/run/dpdk/$prefix-$runs"
	out=$(cat "$work/sig.out")
	tx=$(grepl '^  port 1:' | tail -1 | awk '{ print $6 }')
	expect_eq "SIG$sig: exit 0 with final statistics" "0 1" \
		"$rc $(grepl -c '^final statistics:')"
	if [ "${tx:-0}" -gt 0 ] &&
	   [ "$(grepl '^  tx_good_packets: ' | tail -1 | awk '{ print $2 }')" = "$tx" ]; then
		pass "SIG$sig: frames forwarded, port 1's xstats tx_good_packets agrees ($tx)"
	else
		fail "SIG$sig: frames forwarded, port 1's xstats tx_good_packets agrees" "$out"
	fi
	no_leak "SIG$sig"
done
start=$(date +%s%N)
run -l 0 -- "${inf[@]}" -- --map 0:1 -T 0 --duration 1
ms=$((($(date +%s%N) - start) / 1000000))
# no upper bound but run's timeout: a loaded machine may take long to start EAL
if [ "$rc" = 0 ] && [ "$ms" -ge 1000 ] && [ "$(grepl -c '^final statistics:')" = 1 ]; then
	pass "--duration 1: exits 0 after at least a second, with final statistics (${ms} ms)"
else
	fail "--duration 1: exits 0 after at least a second, with final statistics" \
		"rc $rc, $ms ms"
fi

# --- 7. bad options: exit 2, one line says why
pcap2=(--vdev "net_pcap0,rx_pcap=$work/in.pcap" --vdev net_null0)
bad() { # bad EXPECTED_MESSAGE_PART ARGS...
	local msg=$1
	local -a l=(-l 0)
	shift
	# worker lcores only where the placement needs them: fewer threads to start
	[[ "$*" == *--pipeline* ]] && l=("${lcores[@]}")
	run "${l[@]}" -- "${pcap2[@]}" -- "$@"
	expect_eq "bad option '$*': exit 2" "2" "$rc"
	if echo "$out" | grep -qF -- "$msg"; then
		pass "bad option '$*': says '$msg'"
	else
		fail "bad option '$*': says '$msg'" "$out"
	fi
}
bad "--map: '0' is not RX:TX" --map 0
bad "--map: no port 9" --map 0:9
bad "--map: port 0 is mapped twice as RX" --map 0:1,0:1
bad "--mac-rewrite and --mac-swap exclude each other" --mac-rewrite --mac-swap
bad "--burst: '0' is not a number in 1..512" --burst 0
bad "--burst: '513' is not a number in 1..512" --burst 513
bad "-T: 'x' is not a number" -T x
bad "--frames: '-1' is not a number" --frames -1
bad "--encap: '1:2:3' is not PORT:SLID:DLID:VESW" --encap 1:2:3
bad "--encap: SLID '0x1000000' is not a number in 0..16777215" --encap 1:0x1000000:2:3
bad "--encap: VESW '4096' is not a number in 0..4095" --encap 1:1:2:4096
bad "--encap: no port 5" --encap 5:1:2:3
bad "--encap: port 1 is not in the map" --map 0:0 --encap 1:1:2:3
bad "stage 'tx' has no lcore" --pipeline rx@1,work@2
bad "lcore 0 is the main lcore" --pipeline rx@0,work@2,tx@3
bad "lcore 9 is not enabled" --pipeline rx@1,work@2,tx@9
bad "several lcores of one stage go in parentheses: work@(2,4)" --pipeline rx@1,work@2,4
bad "unknown stage 'fwd' (stages: rx, work, tx)" --pipeline rx@1,fwd@2,tx@3
bad "unexpected argument 'extra'" extra
bad "bad option" --bogus
run -l 0 -- "--vdev" "net_pcap0,rx_pcap=$work/in.pcap" -- -T 0
expect_eq "one port and no --map: exit 2, asks for --map" "2 1" \
	"$rc $(grepl -c 'needs an even number; give --map')"
run "${lcores[@]}" -- --vdev "net_pcap0,rx_pcap=$work/in.pcap" \
	--vdev "net_pcap1,tx_pcap=$work/x.pcap" -- --map 0:1 --pipeline 'rx@1,work@2,tx@(1,3)'
expect_eq "two tx lcores on a one-queue port: exit 1, says so" "1 1" \
	"$rc $(grepl -c 'has 1 tx queues; 2 sending lcores need one each')"

finish
