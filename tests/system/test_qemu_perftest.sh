#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# perftest against vrdma-perf --perftest, the Debian QEMU guest's rdma_rxe
# the judge (the set-up of test_qemu_guest.sh: the guest on device 0 of a
# vhost-user-rdma backend whose net_tap wire is in a network namespace; the
# out-of-band TCP exchange goes over the tap to the namespace's stack):
#
#   guest ib_{send,write,read,atomic}_bw clients -> vrdma-perf --perftest servers
#   vrdma-perf --perftest clients -> guest ib_{send,write,read,atomic}_bw servers
#
# RC, 200 messages of 64 B and of 4096 B (4 packets at rxe's path MTU of
# 1024; atomics 8 B), the latency tests too (read_lat, atomic_lat: 64 B, 8 B),
# and send_bw over UD (64 B, 1024 B: one packet), each vrdma-perf end on a device of its own (GIDs
# ::ffff:10.0.0.11 and up). Checked: every run of both ends ends well
# (perftest's exit 0, ours 0); both ends print perftest's report line for
# the size and count; our send_bw server took every message at its length
# and written, our write_bw server found every place the client writes to
# written and nothing around them, our read_bw server's buffer is unchanged,
# our atomic_bw server's places hold the count of FETCH_AND_ADDs that hit
# each; our read_bw client's READs each brought data and our atomic_bw
# client's originals step by one per place; the guest's rxe counted no
# errors that matter.
#
# Needs root (a network namespace), qemu-system-x86 and the guest image with
# perftest (scripts/setup.sh, scripts/guest-image.sh).
#
# Usage: test_qemu_perftest.sh SRC_DIR BUILD_DIR [SANITIZE]
set -uo pipefail
. "$1/tests/system/lib.sh"

qemu_prepare omniplane-qperf-$$

# the runs: NAME TEST ROLE SIZE (device k+1, GID 10.0.0.1k, TCP port 1860k)
runs=(
	"ss64 send_bw server 64" "ss4k send_bw server 4096"
	"ws64 write_bw server 64" "ws4k write_bw server 4096"
	"rs64 read_bw server 64" "rs4k read_bw server 4096" "as8 atomic_bw server 8"
	"ls64 send_lat server 64" "ls4k send_lat server 4096"
	"ms64 write_lat server 64" "ms4k write_lat server 4096"
	"ns64 read_lat server 64" "os8 atomic_lat server 8"
	"us64 send_bw_ud server 64" "us1k send_bw_ud server 1024"
	"sc64 send_bw client 64" "sc4k send_bw client 4096"
	"wc64 write_bw client 64" "wc4k write_bw client 4096"
	"rc64 read_bw client 64" "rc4k read_bw client 4096" "ac8 atomic_bw client 8"
	"lc64 send_lat client 64" "lc4k send_lat client 4096"
	"mc64 write_lat client 64" "mc4k write_lat client 4096"
	"nc64 read_lat client 64" "oc8 atomic_lat client 8"
	"uc64 send_bw_ud client 64" "uc1k send_bw_ud client 1024"
)
socks=(-s "$work/g.sock")
for k in "${!runs[@]}"; do
	socks+=(-s "$work/d$k.sock")
done

qemu_backend 3072 "${socks[@]}"

# our ends; the guest's commands, in the same order (its servers on 1860k too)
cmds=()
for k in "${!runs[@]}"; do
	read -r name test role size <<<"${runs[$k]}"
	port=$((18601 + k))
	# send_bw_ud: send_bw over UD QPs (ours --ud, theirs -c UD)
	ud=() theirs_ud=''
	if [ "$test" = send_bw_ud ]; then
		test=send_bw ud=(--ud) theirs_ud=,-c,UD
	fi
	if [ "$role" = server ]; then
		side=(--listen "$port")
		cmds+=("omni.perf=ib_$test,-s,$size,-p,$port$theirs_ud,10.0.0.254")
	else
		side=(--connect 10.0.0.1 --port "$port")
		cmds+=("omni.perf=ib_$test,-s,$size,-p,$port$theirs_ud")
	fi
	gid=10.0.0.$((11 + k))
	in_ns timeout 900 "$perf" -l 0 "${eal[@]}" -m 128 --file-prefix "$prefix-$name" -- \
		-a "$work/d$k.sock" --perftest "$test" "${ud[@]}" "${side[@]}" --gid-ip "$gid" \
		--peer-mac "$guestmac" --iters 200 --size "$size" --accept-timeout 800 \
		> "$work/$name.log" 2>&1 &
	eval "pid_$name=$!"
done
for k in "${!runs[@]}"; do
	read -r name test role size <<<"${runs[$k]}"
	if [ "$role" = server ]; then
		wait_log "$work/$name.log" 'waiting for a client' 60 ||
			fail "vrdma-perf $name serves" "$(tail -5 "$work/$name.log")"
	else
		wait_log "$work/$name.log" 'connecting to' 60 ||
			fail "vrdma-perf $name starts" "$(tail -5 "$work/$name.log")"
	fi
done

start=$(date +%s)
GUEST_TIMEOUT=800 "$src/scripts/guest-run.sh" "$guest" "$work/g.sock" "$work/guest.log" \
	omni.ip=10.0.0.1/24 omni.pargs=-d,rxe0,-x,1,-F,-n,200 "${cmds[@]}" omni.tmo=${OMNI_TMO:-120} \
	> "$work/qemu.log" 2>&1
q_rc=$?
echo "# guest ran $(($(date +%s) - start)) s"
tr -d '\r' < "$work/guest.log" > "$work/guest.txt"
expect_eq "the guest boots, runs perftest and powers off (QEMU exit 0)" 0 "$q_rc"

# perftest's report line for SIZE and 200 iterations in TEXT: " SIZE 200 peak avg rate"
# (bandwidth) or " SIZE 200 min max typical avg stdev 99% 99.9%" (latency)
report() { awk -v s="$2" '$1 == s && $2 == 200 && (NF == 5 || NF == 9) {print; exit}' <<<"$1"; }
for k in "${!runs[@]}"; do
	read -r name test role size <<<"${runs[$k]}"
	n=$((k + 1))
	peer=client
	[ "$role" = client ] && peer=server
	theirs=$(sed -n "/omni-init: perf$n: /,/^OMNI-RESULT perf$n /p" "$work/guest.txt")
	wait "$(eval echo "\$pid_$name")"
	ours_rc=$?
	expect_eq "$name: guest ib_$test $peer ($size B x 200) and vrdma-perf $role exit 0" "0 0" \
		"$(grep -a "^OMNI-RESULT perf$n " "$work/guest.txt" | awk '{print $3}') $ours_rc"
	case $test:$role in
	read_lat:* | atomic_lat:*)
		# the client alone reports (perftest's server prints no line, nor does ours);
		# the other side must print none
		if [ "$role" = server ]; then
			line=$(report "$theirs" "$size") none=$(report "$(cat "$work/$name.log")" "$size")
		else
			line=$(report "$(cat "$work/$name.log")" "$size") none=$(report "$theirs" "$size")
		fi
		if [ -n "$line" ] && [ -z "$none" ]; then
			pass "$name: the client prints perftest's latency line for $size B x 200, the server none"
			echo "#   client: $line"
		else
			fail "$name: the client prints perftest's latency line, the server none" \
				"$(echo "$theirs" | tail -12; tail -8 "$work/$name.log")"
		fi
		;;
	*)
		if [ -n "$(report "$theirs" "$size")" ] &&
		   [ -n "$(report "$(cat "$work/$name.log")" "$size")" ]; then
			pass "$name: both print perftest's report line for $size B x 200"
			echo "#   perftest:   $(report "$theirs" "$size")"
			echo "#   vrdma-perf: $(report "$(cat "$work/$name.log")" "$size")"
		else
			fail "$name: both print perftest's report line for $size B x 200" \
				"$(echo "$theirs" | tail -12; tail -8 "$work/$name.log")"
		fi
		;;
	esac
done
# what our servers could check of the peer's data
expect_eq "send_bw servers: every message of its length and written (64 B, 4096 B; UD 64 B, 1024 B)" "1 1 1 1" \
	"$(grep -c '^perftest: 200 messages of 64 bytes received, each of that length and written$' "$work/ss64.log") $(grep -c '^perftest: 200 messages of 4096 bytes received, each of that length and written$' "$work/ss4k.log") $(grep -c '^perftest: 200 messages of 64 bytes received, each of that length and written$' "$work/us64.log") $(grep -c '^perftest: 200 messages of 1024 bytes received, each of that length and written$' "$work/us1k.log")"
expect_eq "write_bw servers: every place written, nothing around (64 places of 64 B, 1 of 4096 B)" "1 1" \
	"$(grep -c '^perftest: 64 places of 64 bytes written, nothing around them$' "$work/ws64.log") $(grep -c '^perftest: 1 places of 4096 bytes written, nothing around them$' "$work/ws4k.log")"
expect_eq "read_bw servers: the buffer read is unchanged (64 B, 4096 B)" "1 1" \
	"$(grep -c '^perftest: the buffer read is unchanged$' "$work/rs64.log") $(grep -c '^perftest: the buffer read is unchanged$' "$work/rs4k.log")"
expect_eq "atomic_bw server: its 64 places count the 200 FETCH_AND_ADDs, nothing around changed" 1 \
	"$(grep -c '^perftest: 64 places hold the count of 200 atomics, nothing around them changed$' "$work/as8.log")"
# what our read_bw and atomic_bw clients checked of what came back
expect_eq "read_bw clients: every READ brought data (64 B, 4096 B)" "1 1" \
	"$(grep -c '^perftest: 200 READs, each brought data$' "$work/rc64.log") $(grep -c '^perftest: 200 READs, each brought data$' "$work/rc4k.log")"
expect_eq "atomic_bw client: every original one more than the last on its place" 1 \
	"$(grep -c '^perftest: 200 atomics, each original as expected on its place$' "$work/ac8.log")"
# the latency tests: every message each way, received as it should be
for r in ls64:64:"of its length" ls4k:4096:"of its length" lc64:64:"of its length" \
	lc4k:4096:"of its length" ms64:64:"as zeros and its number, in order" \
	ms4k:4096:"as zeros and its number, in order" mc64:64:"as zeros and its number, in order" \
	mc4k:4096:"as zeros and its number, in order"; do
	n=${r%%:*}
	expect_eq "$n: 200 messages each way, every one received ${r#*:*:}" 1 \
		"$(grep -c "^perftest: 200 messages each way, every one received ${r#*:*:}\$" "$work/$n.log")"
done
expect_eq "read_lat, atomic_lat servers: the buffer read unchanged; the place counts the 200 atomics" "1 1" \
	"$(grep -c '^perftest: the buffer read is unchanged$' "$work/ns64.log") $(grep -c '^perftest: 1 places hold the count of 200 atomics, nothing around them changed$' "$work/os8.log")"
expect_eq "read_lat, atomic_lat clients: every READ brought data; every original one more than the last" "1 1" \
	"$(grep -c '^perftest: 200 READs, each brought data$' "$work/nc64.log") $(grep -c '^perftest: 200 atomics, each original as expected on its place$' "$work/oc8.log")"
# the guest's rxe (its hw_counters after the last run): no retries ran out, nothing failed to send
ctr() { grep -a -E "^$1 [0-9]+$" "$work/guest.txt" | tail -1 | awk '{print $2}'; }
expect_eq "guest rxe: retry_exceeded_err, retry_rnr_exceeded_err, send_err all 0" "0 0 0" \
	"$(ctr retry_exceeded_err) $(ctr retry_rnr_exceeded_err) $(ctr send_err)"

kill -INT "$b_pid"
reap "$ns_pid" 30
expect_eq "the backend exits 0 on SIGINT" 0 $?
if grep -Eq '^mbufs: ([0-9]+) of \1 in the pool$' "$work/b.log"; then
	pass "the backend: every mbuf back in the pool"
else
	fail "the backend: every mbuf back in the pool" "$(tail -5 "$work/b.log")"
fi
echo "# guest rxe counters: $(sed -n "/OMNI-RESULT perf${#runs[@]} /,/OMNI-DONE/p" "$work/guest.txt" | grep -a -E '^[a-z_]+ [0-9]+$' | awk '$2 != 0' | tr '\n' ' ')"

finish
