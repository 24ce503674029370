#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# rdmacm-utils' rping against vrdma-perf --cm, the Debian QEMU guest's
# rdma_rxe and its kernel RDMA CM the judge (the set-up of
# test_qemu_perftest.sh: the guest on device 0 of a vhost-user-rdma backend
# whose net_tap wire is in a network namespace; no TCP here, the
# connection is made by CM MADs on the GSI QPs):
#
#   guest rping -c -V -C 10 -> vrdma-perf --cm --listen (devices 1, 2)
#   vrdma-perf --cm --connect (devices 3, 4) -> guest rping -s -V -C 10
#
# 64 B and 4000 B pings (4 packets at rxe's path MTU of 1024). Checked: both
# ends of each run exit 0 (rping -V exits 0 only with every ping equal);
# our server read every ping as rping's pattern and counted them; our client
# found every ping written back equal to its source; the guest's rping -c to
# a port nobody listens on ends on our REJ with reason 8 (invalid service
# ID), and our server goes on; the guest's rxe counted no errors that
# matter. Our clients start before the guest and try again (a second apart
# after a REJ from the guest's CM, or after a REQ timed out) until the
# guest's rping -s listens.
#
# Needs root (a network namespace), qemu-system-x86 and the guest image with
# rdmacm-utils (scripts/setup.sh, scripts/guest-image.sh).
#
# Usage: test_qemu_cm.sh SRC_DIR BUILD_DIR [SANITIZE]
set -uo pipefail
. "$1/tests/system/lib.sh"

# GUEST_DIR: another image directory than the shared one (e.g. while trying a change of
# scripts/guest-image.sh without remaking the image other worktrees use)
qemu_prepare omniplane-qcm-$$

# the runs: NAME ROLE SIZE (ours; device k+1, GID 10.0.0.1k, port 7174+k)
runs=("s64 server 64" "s4k server 4000" "c64 client 64" "c4k client 4000")
socks=(-s "$work/g.sock")
for k in "${!runs[@]}"; do
	socks+=(-s "$work/d$k.sock")
done
qemu_backend 1024 "${socks[@]}"

# first the guest's REQ for a port nobody listens on (our server on 10.0.0.11 listens on 7174)
cmds=("omni.perf=rping,-c,-a,10.0.0.11,-p,7199")
for k in "${!runs[@]}"; do
	read -r name role size <<<"${runs[$k]}"
	port=$((7174 + k))
	if [ "$role" = server ]; then
		side=(--listen "$port")
		cmds+=("omni.perf=rping,-c,-a,10.0.0.$((11 + k)),-p,$port,-S,$size")
	else
		side=(--connect 10.0.0.1 --port "$port" --iters 10)
		cmds+=("omni.perf=rping,-s,-a,10.0.0.1,-p,$port,-S,$size")
	fi
	in_ns timeout 900 "$perf" -l 0 "${eal[@]}" -m 128 --file-prefix "$prefix-$name" -- \
		-a "$work/d$k.sock" --cm "${side[@]}" --gid-ip "10.0.0.$((11 + k))" --verify \
		--peer-mac "$guestmac" --size "$size" --accept-timeout 800 \
		> "$work/$name.log" 2>&1 &
	eval "pid_$name=$!"
done
for k in "${!runs[@]}"; do
	read -r name role size <<<"${runs[$k]}"
	wait_log "$work/$name.log" '^cm: (listening|REQ to)' 60 ||
		fail "vrdma-perf $name starts" "$(tail -5 "$work/$name.log")"
done

start=$(date +%s)
GUEST_TIMEOUT=800 "$src/scripts/guest-run.sh" "$guest" "$work/g.sock" "$work/guest.log" \
	omni.ip=10.0.0.1/24 omni.pargs=-V,-C,10 "${cmds[@]}" omni.tmo=${OMNI_TMO:-120} \
	> "$work/qemu.log" 2>&1
q_rc=$?
echo "# guest ran $(($(date +%s) - start)) s"
tr -d '\r' < "$work/guest.log" > "$work/guest.txt"
expect_eq "the guest boots, runs rping and powers off (QEMU exit 0)" 0 "$q_rc"

# rping's CM thread exits with the handler's -1 on REJECTED, the reason as the event's status
expect_eq "guest rping -c to port 7199 (nobody listens): our REJ, reason 8, ends it (exit 255)" \
	"255 1" "$(grep -a '^OMNI-RESULT perf1 ' "$work/guest.txt" | awk '{print $3}') \
$(grep -ac 'cma event RDMA_CM_EVENT_REJECTED, error 8' "$work/guest.txt")"
for k in "${!runs[@]}"; do
	read -r name role size <<<"${runs[$k]}"
	n=$((k + 2))
	peer=client
	[ "$role" = client ] && peer=server
	wait "$(eval echo "\$pid_$name")"
	ours_rc=$?
	expect_eq "$name: guest rping $peer -V -C 10 -S $size and vrdma-perf --cm $role exit 0" \
		"0 0" "$(grep -a "^OMNI-RESULT perf$n " "$work/guest.txt" | awk '{print $3}') $ours_rc"
	if [ "$role" = server ]; then
		want="^rping server: 10 pings of up to $size bytes served, every one read verified"
	else
		want="^rping client: 10 pings of $size bytes, every one written back verified"
	fi
	if grep -q "$want" "$work/$name.log"; then
		pass "$name: ours says so: ${want#^}"
	else
		fail "$name: ${want#^}" "$(tail -8 "$work/$name.log")
$(sed -n "/omni-init: perf$n: /,/^OMNI-RESULT perf$n /p" "$work/guest.txt" | tail -8)"
	fi
done
if grep -q 'rej_no_listener=1 ' "$work/s64.log"; then
	pass "s64: our server's CM rejected the guest's REQ for port 7199 and went on listening"
else
	fail "s64: our server rejected the REQ for port 7199" "$(grep '^cm: counters' "$work/s64.log")"
fi
# the guest's kernel CM rejecting our clients' REQs before its rping -s listens: timing
# decides whether a REQ arrives then (the guest runs its commands in order), so only said
echo "# REJs from the guest's CM to our clients (nobody listening yet): $(cat "$work/c64.log" \
	"$work/c4k.log" | grep -o 'rx_rej=[0-9]*' | cut -d= -f2 | paste -sd+ | bc 2>/dev/null)"
ctr() { grep -a -E "^$1 [0-9]+$" "$work/guest.txt" | tail -1 | awk '{print $2}'; }
expect_eq "guest rxe: retry_exceeded_err, retry_rnr_exceeded_err, send_err all 0" "0 0 0" \
	"$(ctr retry_exceeded_err) $(ctr retry_rnr_exceeded_err) $(ctr send_err)"

kill -INT "$b_pid"
reap "$ns_pid" 30
expect_eq "the backend exits 0 on SIGINT" 0 $?
echo "# guest rxe counters: $(sed -n "/OMNI-RESULT perf$((${#runs[@]} + 1)) /,/OMNI-DONE/p" "$work/guest.txt" | grep -a -E '^[a-z_]+ [0-9]+$' | awk '$2 != 0' | tr '\n' ' ')"

finish
