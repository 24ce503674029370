#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# roce-perf as a black box: every mode runs to the end with exit status 0,
# prints its figures and both devices' counters, and gets every mbuf back;
# with 1% of the frames lost, reordered and duplicated, send_bw and write_bw
# with --verify deliver every message exactly once, in order, with the right
# bytes, the counters showing the faults were recovered by retransmission;
# a failed completion exits 1 naming it; bad options exit 2; SIGINT ends a
# run cleanly with the figures so far; one lcore runs both devices with a
# warning; a net_memif port pair carries the traffic as well as the rings.
#
# Usage: test_roce_perf.sh SRC_DIR BUILD_DIR [SANITIZE]
set -uo pipefail
. "$1/tests/system/lib.sh"

rp=$build/app/roce-perf/roce-perf
eal=(--no-huge --no-pci -m 512 --no-shconf --no-telemetry --log-level=lib.eal:warning
     --log-level=pmd.net.memif:error)
# A and B on two CPUs when there are two; else one lcore (the app's fallback)
if [ "$(nproc)" -ge 2 ]; then
	lcores=(-l 0-1)
else
	lcores=(-l 0)
fi

run() { # [EAL ARGS...] -- ARGS... : output in $out, status in $rc
	run_dpdk 120 "$rp" "${lcores[@]}" "${eal[@]}" "$@"
}
grepl() { echo "$out" | grep -E "$@"; }
# check NAME CONDITION-STATUS: pass when the last command succeeded, else show the output
check() {
	if [ "$2" -eq 0 ]; then pass "$1"; else fail "$1" "$out"; fi
}
ok_run() { # NAME: exit 0, "roce-perf: ok", counters of both devices, every mbuf back
	[ "$rc" -eq 0 ] && grepl -q '^roce-perf: ok$'
	check "$1: exits 0 and says ok" $?
	grepl -q '^counters A: sent_pkts=[1-9]' && grepl -q '^counters B: sent_pkts=[1-9]'
	check "$1: prints both devices' counters" $?
	[[ "$(grepl '^mbufs: ')" =~ ^mbufs:\ ([0-9]+)\ of\ ([0-9]+)\ in\ the\ pool$ ]] &&
		[ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]
	check "$1: every mbuf back in the pool" $?
}
# counter NAME LINE-PREFIX: the value of a counter on a line ("" when absent: zero)
counter() { grepl "^$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# 1. every mode, once
for mode in send_bw write_bw read_bw send_lat write_lat read_lat; do
	case $mode in
	*_bw) n=2000; size=65536 ;;
	*) n=1000; size=64 ;;
	esac
	run -- --mode $mode --iters $n
	ok_run "$mode"
	if [[ $mode == *_bw ]]; then
		# bytes, messages, QPs, seconds, Gb/s, MB/s, M msg/s
		grepl "^ $size +$n +1 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ *$" |
			awk '{ exit !($5 > 0 && $6 > 0 && $7 > 0) }'
		check "$mode: $n messages of $size B, bandwidth and message rate above zero" $?
	else
		# min <= p50 <= p99 <= p99.9 <= max, all above zero
		grepl "^ $size +$n +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ *$" |
			awk '{ exit !($3 > 0 && $3 <= $4 && $4 <= $5 && $5 <= $6 && $6 <= $7) }'
		check "$mode: $n samples, min <= p50 <= p99 <= p99.9 <= max" $?
	fi
	grepl -q '^verify: data pattern; [1-9][0-9]* buffers? checked at the end'
	check "$mode: the buffers hold the expected pattern at the end" $?
done

# 1b. perftest's layout: every message from and to the same buffer
for mode in send_bw write_bw read_bw; do
	run -- --mode $mode --iters 2000 --buffers 1
	ok_run "$mode --buffers 1"
	grepl -q '^roce-perf: .*, 1 buffer per QP and direction'
	check "$mode --buffers 1: says so in its set-up line" $?
	grepl -q '^verify: data pattern; [12] buffers? checked at the end'
	check "$mode --buffers 1: that buffer holds the expected pattern at the end" $?
done

# 2. 1% loss, reordering and duplication: exactly once, in order, right bytes
for mode in send_bw write_bw; do
	run -- --mode $mode --iters 2000 --loss 10 --reorder 10 --dup 10 --verify
	ok_run "$mode with faults"
	grepl -q '^verify: 2000 messages checked one by one, in order; .*B received 2000 messages, A completed 2000: each exactly once$'
	check "$mode with faults: B checked all 2000 messages in order, each exactly once" $?
	[ "$(counter lost 'wire A->B')" -gt 0 ] && [ "$(counter reordered 'wire A->B')" -gt 0 ] &&
		[ "$(counter duplicated 'wire A->B')" -gt 0 ]
	check "$mode with faults: the wire lost, reordered and duplicated frames" $?
	[ "$(counter retransmits 'counters A')" -gt 0 ] &&
		[ "$(counter duplicate_request 'counters B')" -gt 0 ]
	check "$mode with faults: A retransmitted and B dropped duplicates" $?
done

# 3. a completion that fails: half the frames lost and no retry
run -- --mode write_bw --iters 100 --loss 500 --retry 0
[ "$rc" -eq 1 ] && grepl -q '^roce-perf: FAIL: A: QP 0 WR [0-9]+ \(RDMA_WRITE\): completion RETRY_EXC_ERR'
check "a failed completion exits 1 naming the WR and its status" $?

# 4. bad command lines
for bad in "--mode foo" "--size 0" "--mode read_lat --qps 2" "--mtu 1500" "--loss 600" \
	   "--iters 5 --duration 1" "--wire ports:0" "--buffers 0" "--buffers 1 --verify" \
	   "--buffers 129"; do
	# shellcheck disable=SC2086
	run -- $bad
	[ "$rc" -eq 2 ] && [ "$(echo "$out" | grep -c '^roce-perf: ')" -ge 1 ]
	check "'$bad' exits 2 with a message" $?
done

# 5. SIGINT: a clean end with the figures so far
# thread_ticks PID NAME: user CPU time (clock ticks) of PID's thread NAME.
thread_ticks() {
	local t
	for t in /proc/"$1"/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = "$2" ] && { awk '{ print $14 }' "$t/stat"; return; }
	done
	echo 0
}
ticks_over() { [ "$(thread_ticks "$1" "$2")" -gt "$3" ]; }
runs=$((runs + 1))
timeout 120 "$rp" "${lcores[@]}" "${eal[@]}" --file-prefix "$prefix-$runs" -- \
	--mode write_bw --duration 60 > "$work/sigint.out" 2>&1 &
pid=$!
# The signal goes once messages complete: A (the main lcore) posts on the
# first turn of its loop, which starts as B's lcore is launched after the
# set-up. So: B's worker lcore used CPU (with one lcore: the set-up line is
# out), then A's thread 20 ms more.
wait_log "$work/sigint.out" '^roce-perf: wire:' 60
rp_pid=$(pgrep -P $pid)
if [ ${#lcores[@]} -eq 2 ] && [ "${lcores[1]}" = 0-1 ]; then
	wait_until 60 ticks_over "$rp_pid" rte-worker-1 0 || say "B's lcore never ran"
fi
a0=$(thread_ticks "$rp_pid" roce-perf)
wait_until 60 ticks_over "$rp_pid" roce-perf $((a0 + 1)) || say "A's lcore never ran"
stop $pid 60
rc=$?
out=$(cat "$work/sigint.out")
ok_run "SIGINT"
grepl -q '^roce-perf: interrupted' && grepl -q '^ 65536 +[1-9][0-9]* +1 '
check "SIGINT: says it was interrupted and prints what completed" $?

# 6. one lcore: both devices take turns on it
run_dpdk 120 "$rp" -l 0 "${eal[@]}" -- --mode send_bw --iters 1000 --verify
ok_run "one lcore"
grepl -q '^roce-perf: warning: one lcore' && grepl -q 'A on lcore 0, B on lcore 0$'
check "one lcore: warns and runs A and B on lcore 0" $?

# 7. over two ethdev ports: a net_memif pair in the process
sock=$work/memif.sock
memif=(--vdev "net_memif0,role=server,socket=$sock,socket-abstract=no"
       --vdev "net_memif1,role=client,socket=$sock,socket-abstract=no")
run "${memif[@]}" -- --mode write_bw --iters 2000 --verify --wire ports --loss 10 --dup 10
if echo "$out" | grep -q 'EAL: failed to parse device\|net_memif.*not found'; then
	echo "SKIP: no net_memif (librte-net-memif23)"
else
	ok_run "memif ports"
	grepl -q '^roce-perf: wire: ethdev ports 0 \(A\) and 1 \(B\)' &&
		grepl -q 'B received 2000 messages, A completed 2000: each exactly once$' &&
		[ "$(counter carried 'wire A->B')" -gt 0 ]
	check "memif ports: WRITEs over net_memif arrive exactly once" $?
	run "${memif[@]}" -- --mode read_lat --iters 500 --verify --wire ports
	ok_run "memif ports read_lat"
fi
[ ! -e "$sock" ]
check "memif ports: the socket is gone" $?

finish
