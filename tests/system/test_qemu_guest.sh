#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# A Debian QEMU guest (TCG; scripts/guest-image.sh, scripts/guest-run.sh) on
# vhost-user-rdma, with Linux's own virtio_net driver on device 0, in a
# network namespace whose kernel is the peer on the wire (a net_tap port):
#
#   guest eth0 10.0.0.1 (device 0; QEMU's MAC, learned by the switch) --+
#   device 1 (vrdma-perf, RC) -------+-- switch -- net_tap -- ns kernel 10.0.0.254
#   device 2 (vrdma-perf, UD) -------+
#
#  1. the guest gets link and pings 10.0.0.254 (ARP flooded, replies switched);
#  2. rdma_rxe in the guest runs ibv_rc_pingpong and ibv_ud_pingpong (100
#     exchanges of 4096 B and 1024 B) against vrdma-perf --pingpong on
#     devices 1 and 2 (GIDs ::ffff:10.0.0.2, ::ffff:10.0.0.3), the TCP
#     exchange over the tap: lib/roce against Linux rxe, RC and UD, every
#     message vrdma-perf receives checked;
#     addresses resolved both ways: the guest has no neighbour entry for
#     the RC server's 10.0.0.2 and asks by ARP, which vrdma-perf answers on
#     device 1's Ethernet queue (it is given the guest's MAC); the UD server
#     is not given it and asks the guest by ARP, which has a static entry
#     for 10.0.0.3 (so never asks) and whose broadcasts for others it
#     ignores;
#  3. the backend, the guest and both servers end cleanly, every mbuf back.
#
# Needs root (a network namespace), qemu-system-x86 and the guest image
# (scripts/setup.sh installs both).
#
# KEEP_WORK=1 keeps the work directory (logs, guest console) and says
# where; OMNI_TMO and ACCEPT_TMO shorten the time limits.
#
# Usage: test_qemu_guest.sh SRC_DIR BUILD_DIR [SANITIZE]
set -uo pipefail
. "$1/tests/system/lib.sh"

qemu_prepare omniplane-qemu-$$
dev0=02:56:52:44:4d:00
dev1=02:56:52:44:4d:01
dev2=02:56:52:44:4d:02


# --- the backend, its tap wire in the namespace, the namespace's address
qemu_backend 256 -s "$work/g.sock" -s "$work/r.sock" -s "$work/u.sock"

# --- the two pingpong servers (their TCP exchange on the namespace's stack)
pp() { # NAME SOCKET rc|ud PORT GID-IP SIZE [--peer-mac MAC]
	in_ns timeout 600 "$perf" -l 0 "${eal[@]}" -m 128 --file-prefix "$prefix-$1" -- \
		-a "$2" --pingpong "$3" --listen "$4" --gid-ip "$5" "${@:7}" \
		--iters 100 --size "$6" --accept-timeout ${ACCEPT_TMO:-300} > "$work/$1.log" 2>&1 &
	eval "pid_$1=$!"
	wait_log "$work/$1.log" 'waiting for a client' 30 ||
		fail "vrdma-perf $1 serves" "$(tail -5 "$work/$1.log")"
}
# RC: given the guest's MAC; UD: asks for it by ARP
pp rc "$work/r.sock" rc 18515 10.0.0.2 4096 --peer-mac "$guestmac"
pp ud "$work/u.sock" ud 18516 10.0.0.3 1024

# --- the guest
start=$(date +%s)
GUEST_TIMEOUT=600 "$src/scripts/guest-run.sh" "$guest" "$work/g.sock" "$work/guest.log" \
	omni.ip=10.0.0.1/24 "omni.neigh=10.0.0.3,$dev2" \
	omni.ping=10.0.0.254 omni.rc=10.0.0.254:18515 omni.ud=10.0.0.254:18516 omni.tmo=${OMNI_TMO:-240} \
	> "$work/qemu.log" 2>&1
q_rc=$?
echo "# guest ran $(($(date +%s) - start)) s"
tr -d '\r' < "$work/guest.log" > "$work/guest.txt"
expect_eq "the guest boots, runs its tests and powers off (QEMU exit 0)" 0 "$q_rc"
if grep -q 'carrier: 1' "$work/guest.txt"; then
	pass "the guest's virtio_net (Linux) gets link from the backend"
else
	fail "the guest's virtio_net gets link" "$(grep -a omni-init "$work/guest.txt" | head -5)"
fi
result() { grep -a "^OMNI-RESULT $1 " "$work/guest.txt" | awk '{print $3}'; }
expect_eq "the guest pings the namespace's kernel on the wire (5/5)" "0 5 packets received" \
	"$(result ping) $(grep -a -o '5 packets transmitted, [0-9]* packets received' "$work/guest.txt" |
	sed 's/.*, //')"
expect_eq "rxe in the guest: ibv_rc_pingpong against lib/roce, 100 x 4096 B" 0 "$(result rc)"
expect_eq "rxe in the guest: ibv_ud_pingpong against lib/roce, 100 x 1024 B" 0 "$(result ud)"

wait "$pid_rc"
rc_rc=$?
wait "$pid_ud"
ud_rc=$?
expect_eq "vrdma-perf RC and UD servers exit 0" "0 0" "$rc_rc $ud_rc"
if grep -q 'pingpong rc: 100 messages of 4096 bytes each way.*verified' "$work/rc.log" &&
   grep -q 'pingpong ud: 100 messages of 1024 bytes each way.*verified' "$work/ud.log"; then
	pass "every message from rxe reached vrdma-perf whole (RC 4096 B, UD 1024 B + GRH)"
else
	fail "every message from rxe reached vrdma-perf whole" "$(tail -3 "$work/rc.log"; tail -3 "$work/ud.log")"
fi
# neighbour resolution: vrdma-perf --pingpong's counts (lib.sh nd_count)
nb() { nd_count "$work/$1.log" "$2"; }
if [ "$(nb rc 3)" -ge 1 ] 2>/dev/null && [ "$(nb rc 16)" = 0 ]; then
	pass "the guest resolved 10.0.0.2 by ARP: vrdma-perf answered $(nb rc 3) request(s) on device 1"
else
	fail "the guest resolves 10.0.0.2 by ARP, vrdma-perf answers" \
		"$(grep -a -E 'neighbours|Ethernet queue' "$work/rc.log")"
fi
if grep -q "client MAC $guestmac (resolved)" "$work/ud.log" && [ "$(nb ud 3)" = 0 ] &&
   [ "$(nb ud 11)" -ge 1 ] 2>/dev/null && [ "$(nb ud 13)" -ge 1 ] 2>/dev/null &&
   [ "$(nb ud 16)" = 0 ]; then
	pass "vrdma-perf resolved the guest's MAC by ARP (UD, no --peer-mac), answered no ARP (static entry) and ignored $(nb ud 13) frames for others"
else
	fail "vrdma-perf resolves the guest's MAC by ARP, ignores the frames for others" \
		"$(grep -a -E 'neighbours|Ethernet queue|client MAC' "$work/ud.log")"
fi

# SIGINT to the backend's timeout; our child is ip, which passes its status on
kill -INT "$b_pid"
reap "$ns_pid" 30
expect_eq "the backend exits 0 on SIGINT" 0 $?
if grep -Eq '^mbufs: ([0-9]+) of \1 in the pool$' "$work/b.log"; then
	pass "the backend: every mbuf back in the pool"
else
	fail "the backend: every mbuf back in the pool" "$(tail -5 "$work/b.log")"
fi
# the guest's traffic: Ethernet (ARP, ICMP, TCP) both ways, and its rxe's
# RoCE frames, which device 0's engine passed on (no GID of its own there)
b=$work/b.log
if [ "$(dev_ctr "$b" 0 net_rx_frames)" -gt 200 ] && [ "$(dev_ctr "$b" 0 net_tx_frames)" -gt 200 ]; then
	pass "device 0 carried the guest's frames both ways ($(dev_ctr "$b" 0 net_rx_frames) in, $(dev_ctr "$b" 0 net_tx_frames) out)"
else
	fail "device 0 carried the guest's frames both ways" "$(grep '^device 0' "$work/b.log" | tail -1)"
fi
# device 0's engine passed the guest's rxe's frames on to it (counters kept across resets)
rx_passed=$(grep '^device 0 engine:' "$work/b.log" | tail -1 | grep -o ' rx_passed=[0-9]*' |
	cut -d= -f2)
if [ "${rx_passed:-0}" -gt 0 ]; then
	pass "device 0's engine passed the RoCE frames for the guest's own rxe on to it ($rx_passed)"
else
	fail "device 0's engine passed the guest's RoCE frames on to it" \
		"$(grep '^device 0 engine:' "$work/b.log" | tail -2)"
fi
if [ "$(sw_ctr "$work/b.log" fdb_learned)" -ge 1 ]; then
	pass "the switch learned the guest's own MAC behind device 0"
else
	fail "the switch learned the guest's own MAC behind device 0" "$(grep '^switch:' "$work/b.log" | tail -1)"
fi
expect_eq "devices 1 and 2 posted the servers' sends (100 each)" "100 100" \
	"$(dev_ctr "$work/b.log" 1 sq_posted) $(dev_ctr "$work/b.log" 2 sq_posted)"
echo "# switch: $(grep '^switch:' "$work/b.log" | tail -1)"
grep 'engine:' "$work/b.log" | tail -3 | sed 's/^/# /'
echo "# guest rxe counters: $(sed -n '/OMNI-RESULT ud/,/OMNI-DONE/p' "$work/guest.txt" | grep -a -E '^[a-z_]+ [0-9]+$' | awk '$2 != 0' | tr '\n' ' ')"

finish
