#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# RDMA for guests across the Omni-Path fabric (scripts/fabric.sh): two
# nodes, each a vhost-user-rdma backend whose wire is vport 0 of a
# net_opa_vnic device on a net_hfi1 model, joined by opa-switch and
# configured by opa-em; vrdma-perf plays the guests (side A on node A's
# device, side B on node B's):
#
#   vrdma-perf A -- vhost-user-rdma (node A, LID 1) -- VNIC vport 0 (vesw 1)
#                      |  RoCE v2 in Ethernet in OPA 16B, through opa-switch
#   vrdma-perf B -- vhost-user-rdma (node B, LID 2) -- VNIC vport 0 (vesw 1)
#
#  1. every operation across the fabric, every message verified: RC SEND
#     (64 B, multi-packet), RC WRITE with immediate (64 KiB), RC READ, UD
#     SEND, SEND latency;
#  2. nothing lost: both backends exit 0 on SIGINT with every mbuf back, and
#     the counters of the two nodes agree (each switch's wire frames, each
#     VNIC vport's packets as the EM reads them over the fabric).
#
# Usage: test_rdma_opa.sh SRC_DIR BUILD_DIR [SANITIZE]
set -uo pipefail
. "$1/tests/system/lib.sh"
. "$src/scripts/fabric.sh"
on_exit 'fabric_stop >/dev/null 2>&1'

# The EM's configuration: vport 0 of each node on vesw 1, vport 1 on vesw 2.
em_conf() { # FILE VESW_OF_B_VPORT0
	cat > "$1" <<EOF
em: { lid: $FABRIC_EM_LID }
vesws:
  - { id: 1, fabric_id: 0x301, pkey: 0x8001, mtu: 1500, mcast_dlid: 0xf00001 }
  - { id: 2, fabric_id: 0x301, pkey: 0x8002, mtu: 1500, mcast_dlid: 0xf00002 }
vports:
  - node_lid: $FABRIC_A_LID
    index: 0
    vesw: 1
    mac_table: [ { mac: "$FABRIC_RDMA_MAC_B", dlid: $FABRIC_B_LID } ]
  - { node_lid: $FABRIC_A_LID, index: 1, vesw: 2 }
  - node_lid: $FABRIC_B_LID
    index: 0
    vesw: $2
    mac_table: [ { mac: "$FABRIC_RDMA_MAC_A", dlid: $FABRIC_A_LID } ]
  - { node_lid: $FABRIC_B_LID, index: 1, vesw: 2 }
EOF
}

fabric_start || { fail "the fabric starts" "$(tail -5 "$work/switch.log")"; finish; exit 1; }
rdma_node_start a -- -s "$work/a.sock" ||
	fail "node A's backend serves" "$(tail -5 "$work/rdma-a.log")"
rdma_node_start b -- -s "$work/b.sock" ||
	fail "node B's backend serves" "$(tail -5 "$work/rdma-b.log")"
em_conf "$work/em.yaml" 1
out=$(em apply "$work/em.yaml")
expect_eq "opa-em configures both nodes' vports" 0 $?
if grep -q '^wire: port [0-9]* (net_opa_vnic_a_vp0)' "$work/rdma-a.log" &&
   grep -q '^wire: port [0-9]* (net_opa_vnic_b_vp0)' "$work/rdma-b.log"; then
	pass "each backend's wire is its node's VNIC vport 0"
else
	fail "each backend's wire is its node's VNIC vport 0" "$(grep -h '^wire' "$work"/rdma-*.log)"
fi

# --- 1. every operation, verified
ab=(-a "$work/a.sock" -b "$work/b.sock")
perf_run() { # NAME ARGS...: passes if vrdma-perf exits 0 with every message verified
	local name=$1 out rc
	shift
	out=$(vrdma_perf "${ab[@]}" "$@" --verify 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && echo "$out" | grep -q "errors 0$"; then
		pass "across the fabric: $name: every message verified"
		echo "$out" | grep -E 'path MTU|msg/s|round trip' | sed 's/^ */#   /'
	else
		fail "across the fabric: $name: every message verified" "rc=$rc
$(echo "$out" | grep -v '^EAL' | tail -6)"
	fi
}
perf_run "RC SEND 64 B x 20000" --mode send_bw --iters 20000
perf_run "RC SEND 4000 B x 2000 (4 packets each)" --mode send_bw --size 4000 --iters 2000
perf_run "RC WRITE with immediate 64 KiB x 300" --mode write_bw --size 65536 --iters 300
perf_run "RC READ 10000 B x 2000" --mode read_bw --size 10000 --iters 2000
perf_run "UD SEND 1024 B x 5000" --mode ud_send_bw --size 1024 --iters 5000
perf_run "RC SEND latency 64 B x 1000" --mode send_lat --iters 1000

# --- 2. the counters agree, nothing lost
em status "$work/em.yaml" > "$work/status.txt" 2>&1
summary() { # LID FIELD: node LID vport 0's counter FIELD as the EM read it
	grep "^summary node=$1 index=0 " "$work/status.txt" | grep -o " $2=[0-9]*" | cut -d= -f2
}
a_tx=$(summary $FABRIC_A_LID tx_packets)
b_rx=$(summary $FABRIC_B_LID rx_packets)
b_tx=$(summary $FABRIC_B_LID tx_packets)
a_rx=$(summary $FABRIC_A_LID rx_packets)
if [ "${a_tx:-0}" -gt 20000 ] && [ "$a_tx" = "$b_rx" ] && [ "$b_tx" = "$a_rx" ]; then
	pass "the EM reads matching VNIC counters on both nodes ($a_tx A->B, $b_tx B->A)"
else
	fail "the EM reads matching VNIC counters on both nodes" "A tx=$a_tx rx=$a_rx, B tx=$b_tx rx=$b_rx
$(grep -E '^(summary|errors)' "$work/status.txt" | cut -c1-200)"
fi
rdma_node_stop a
expect_eq "node A's backend exits 0 on SIGINT with every mbuf back" 0 $?
rdma_node_stop b
expect_eq "node B's backend exits 0 on SIGINT with every mbuf back" 0 $?
la=$work/rdma-a.log
lb=$work/rdma-b.log
expect_eq "every frame A's switch put on the wire reached B's, and back" \
	"$(sw_ctr "$la" wire_tx) $(sw_ctr "$lb" wire_tx)" "$(sw_ctr "$lb" wire_rx) $(sw_ctr "$la" wire_rx)"
expect_eq "the frames were RoCE for the devices' engines, none dropped by the switches" \
	"$(sw_ctr "$la" wire_rx) $(sw_ctr "$lb" wire_rx) 0 0 0 0" \
	"$(sw_ctr "$la" to_roce) $(sw_ctr "$lb" to_roce) $(sw_ctr "$la" drop_unknown) \
$(sw_ctr "$lb" drop_unknown) $(sw_ctr "$la" wire_tx_drop) $(sw_ctr "$lb" wire_tx_drop)"
echo "# A: $(grep '^switch:' "$la" | tail -1)"
echo "# B: $(grep '^switch:' "$lb" | tail -1)"
fabric_stop
finish
