#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# The shell vocabulary of the scripts and system tests (scripts/lib.sh),
# on small scripts of its own:
#  1. the clean-up at exit: a script that forgets what it started (a
#     background sleep, a subshell's, one under timeout(1)) still ends at
#     once for a caller reading its output; each is killed and named; the
#     on_exit commands run, last first; the work directory goes, or stays
#     with KEEP_WORK=1, which says where; the exit status is the script's;
#     on SIGTERM the same, status 143;
#  2. wait_until and wait_log return as soon as their condition holds, and
#     fail (wait_log saying so) once their deadline passed;
#  3. stop: the exit status of a process that obeys the signal; one that
#     does not is killed with what it started after the deadline (status
#     124, said); reap: the status of a process exiting by itself;
#  4. pcap_frames counts the frames of a capture (0 when missing).
#
# Usage: test_lib.sh SRC_DIR BUILD_DIR [SANITIZE]
set -uo pipefail
. "$1/tests/system/lib.sh"

# ms: milliseconds since an arbitrary start.
ms() { echo $(( ${EPOCHREALTIME//[!0-9]/} / 1000 )); }
# sleeps of about 30 s that no other process runs: sleep 30.PID1, 30.PID2, ...
mark=$$

# --- 1. the clean-up at exit
# child.sh SRC MARK EXIT_STATUS [wait]: makes its work directory, registers
# two on_exit commands, starts three processes (sleep 30.MARK1, 30.MARK2 in
# a subshell, 30.MARK3 under timeout(1)) and, once they all run, exits
# forgetting them (or waits on them)
cat > "$work/child.sh" <<'EOF'
set -u
. "$1/scripts/lib.sh"
make_work libtest
echo "work $work"
on_exit 'echo "on_exit: first registered"'
on_exit 'echo "on_exit: second registered"'
sleep "30.${2}1" &
( sleep "30.${2}2"; true ) &
timeout 60 sleep "30.${2}3" &
all_run() { [ "$(pgrep -fc "sleep 30\\.$1[123]")" -ge 4 ]; }
wait_until 10 all_run "$2"
[ "${4:-}" = wait ] && { echo ready; wait; }
exit "$3"
EOF
t0=$(ms)
out=$(timeout 60 bash "$work/child.sh" "$src" "$mark" 3 2>&1)
rc=$?
t=$(( $(ms) - t0 ))
echo "$out" | sed 's/^/# /'
cwork=$(echo "$out" | sed -n 's/^work //p')
expect_eq "exit: the script's exit status is kept" 3 "$rc"
if [ "$t" -lt 15000 ]; then
	pass "exit: its output ends as it exits (not 30 s later) though it forgot 3 processes (${t} ms)"
else
	fail "exit: its output ends as it exits (not 30 s later) though it forgot 3 processes" "${t} ms"
fi
expect_eq "exit: each forgotten process killed and named (the subshell too)" \
	"bash $work/child.sh $src $mark 3|sleep 30.${mark}1|sleep 30.${mark}2|sleep 30.${mark}3|timeout 60 sleep 30.${mark}3" \
	"$(echo "$out" | sed -n 's/.*still running at exit: //p' | sort | paste -sd'|')"
expect_eq "exit: none of them is left" "" "$(pgrep -f "sleep 30\\.$mark[123]")"
expect_eq "exit: on_exit commands run, the last registered first" \
	"on_exit: second registered|on_exit: first registered" \
	"$(echo "$out" | grep '^on_exit' | paste -sd'|')"
expect_eq "exit: the work directory is removed" "gone" \
	"$([ -n "$cwork" ] && [ ! -e "$cwork" ] && echo gone)"

out=$(KEEP_WORK=1 timeout 60 bash "$work/child.sh" "$src" "$mark" 0 2>&1)
rc=$?
cwork=$(echo "$out" | sed -n 's/^work //p')
expect_eq "KEEP_WORK=1: exit 0, the work directory kept, and said where" "0 kept 1" \
	"$rc $([ -n "$cwork" ] && [ -d "$cwork" ] && echo kept) \
$(echo "$out" | grep -c "kept the work directory $cwork\$")"
[ -n "$cwork" ] && rm -rf "$cwork"

# SIGTERM (a test runner's timeout) while it waits on what it started
bash "$work/child.sh" "$src" "$mark" 0 wait > "$work/term.out" 2>&1 &
child=$!
wait_log "$work/term.out" '^ready$' 30
kill -TERM "$child"
reap "$child" 30
rc=$?
cwork=$(sed -n 's/^work //p' "$work/term.out")
expect_eq "SIGTERM: status 143, processes killed, work directory removed" "143 5 none gone" \
	"$rc $(grep -c 'still running at exit' "$work/term.out") \
$(pgrep -f "sleep 30\\.$mark[123]" || echo none) $([ ! -e "$cwork" ] && echo gone)"

# --- 2. waits
t0=$(ms)
wait_until 5 true
expect_eq "wait_until: a condition that holds returns at once" "0 fast" \
	"$? $([ $(( $(ms) - t0 )) -lt 1000 ] && echo fast)"
t0=$(ms)
wait_until 1 false
rc=$?
t=$(( $(ms) - t0 ))
expect_eq "wait_until: a condition that never holds fails after its deadline" "1 yes" \
	"$rc $([ "$t" -ge 1000 ] && [ "$t" -lt 5000 ] && echo yes)"
( sleep 0.3; echo "line one"; echo "line two" ) > "$work/log" &
wait_log "$work/log" '^line two$' 10
expect_eq "wait_log: finds a line written later" 0 "$?"
msg=$(wait_log "$work/log" '^line three$' 1 2>&1)
rc=$?
expect_eq "wait_log: fails at its deadline, naming what it waited for" "1 1" \
	"$rc $(echo "$msg" | grep -c "no line /^line three\$/ (1) in $work/log after 1 s")"
wait_log "$work/log" '^line' 1 2
expect_eq "wait_log COUNT: two matching lines" 0 "$?"

# --- 3. stop and reap
# (under timeout(1), as the tests run programs: a background job of a
# script ignores SIGINT, and bash cannot trap what it ignored at its start)
timeout 60 bash -c "trap 'kill \$!; exit 5' INT; sleep 30.${mark}5 & wait" &
p=$!
has_grandchild() { [ -n "$(descendants "$1" | sed -n 2p)" ]; }
wait_until 10 has_grandchild $p
stop $p 10
expect_eq "stop: the status of a process that exits on SIGINT" 5 "$?"
timeout 60 bash -c "trap '' INT; sleep 30.${mark}4" &
p=$!
wait_until 10 pgrep -f "sleep 30\\.${mark}4" >/dev/null
stop $p 1 2> "$work/stop.err"
rc=$?
expect_eq "stop: a process deaf to SIGINT is killed after the deadline (124), said" "124 1" \
	"$rc $(grep -c "pid $p .*did not exit in 1 s: killed" "$work/stop.err")"
expect_eq "stop: and what it started with it" "" "$(pgrep -f "sleep 30\\.${mark}4")"
bash -c 'exit 7' &
reap $! 10
expect_eq "reap: the status of a process exiting by itself" 7 "$?"

# --- 4. pcap_frames
"$src/scripts/gen-frames.sh" 7 "$work/seven.pcap" 1 >/dev/null
expect_eq "pcap_frames: 7 frames; a missing file has 0" "7 0" \
	"$(pcap_frames "$work/seven.pcap") $(pcap_frames "$work/missing.pcap")"

finish
