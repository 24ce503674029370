#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# RDMA over vhost-user-rdma on a VNIC wire beside the same on a plain
# Ethernet wire, in one run: two backends (separate processes, as two
# hosts), vrdma-perf between a device on each, RC WRITE 64 KiB bandwidth
# and RC SEND 64 B message rate, over two wires:
#
#   memif   the two backends joined by a net_memif link (the baseline: no
#           VNIC, no HFI, no switch)
#   vnic    each backend's wire a net_opa_vnic port on a net_hfi1 model node,
#           the nodes joined by opa-switch and configured by opa-em
#           (scripts/fabric.sh), as deployed
#
# Between processes a net_ring cannot be the wire (its rings live in one
# process's memory), so the baseline is net_memif, the link the fabric's
# own hops use. Each figure is the median of ROUNDS runs, printed with its
# ratio to the baseline. Where the difference goes: the backends' pipeline
# stages report busy TSC cycles per frame; ingress holds the wire's receive
# (VNIC decap, hfi1 rx, the model's receive), egress the wire's transmit
# (VNIC encap, hfi1 SDMA, the model's engine), so their difference between
# the two wires is the VNIC and HFI cost per frame; the rest of the gap is
# the switch (a process of its own, one more memif hop each way) and the
# CPU time all of it takes from the others. 2-CPU caveat: both backends,
# both vrdma-perf sides and the switch share two CPUs (idle lcores sleep
# 10 us); figures compare within the run, they are not absolute.
#
# OMNIPLANE_PERF_QUICK=1: one short round (test.sh's perf suite).
#
# Usage: bench_rdma_opa.sh SRC_DIR BUILD_DIR
set -uo pipefail
. "$1/tests/system/lib.sh"
. "$src/scripts/fabric.sh"
on_exit 'fabric_stop >/dev/null 2>&1'

if [ -n "${OMNIPLANE_PERF_QUICK:-}" ]; then
	rounds=1 write_iters=200 send_iters=20000
else
	rounds=5 write_iters=2000 send_iters=200000
fi
plugin_copies "$build/drivers/net/hfi1/librte_net_hfi1.so" \
	"$build/drivers/net/opa_vnic/librte_net_opa_vnic.so" || { echo "no plugin copies"; exit 1; }

# The EM's configuration: vport 0 of both nodes on vesw 1, MTU 1500, the
# devices' MACs in the MAC tables.
cat > "$work/em.yaml" <<EOF
em: { lid: $FABRIC_EM_LID }
vesws:
  - { id: 1, fabric_id: 0x301, pkey: 0x8001, mtu: 1500, mcast_dlid: 0xf00001 }
vports:
  - node_lid: $FABRIC_A_LID
    index: 0
    vesw: 1
    mac_table: [ { mac: "$FABRIC_RDMA_MAC_B", dlid: $FABRIC_B_LID } ]
  - node_lid: $FABRIC_B_LID
    index: 0
    vesw: 1
    mac_table: [ { mac: "$FABRIC_RDMA_MAC_A", dlid: $FABRIC_A_LID } ]
EOF

# backends memif|vnic: node a's and b's backends on that wire
backends() {
	if [ "$1" = vnic ]; then
		fabric_start > /dev/null || { echo "the fabric did not start"; exit 1; }
		rdma_node_start a vports=1 -- -s "$work/a.sock" ||
			{ echo "node a: $(tail -3 "$work/rdma-a.log")"; exit 1; }
		rdma_node_start b vports=1 -- -s "$work/b.sock" ||
			{ echo "node b: $(tail -3 "$work/rdma-b.log")"; exit 1; }
		em apply "$work/em.yaml" > "$work/em.log" || { echo "opa-em: $(tail -3 "$work/em.log")"; exit 1; }
		return
	fi
	local n v mac
	for n in a b; do
		v="--vdev net_memif0,role=server,socket=$work/wire.sock" mac=$FABRIC_RDMA_MAC_A
		[ $n = b ] && v="--vdev net_memif0,role=client,socket=$work/wire.sock" mac=$FABRIC_RDMA_MAC_B
		# shellcheck disable=SC2086 # the vdev's words
		timeout 600 stdbuf -oL "$build/app/vhost-user-rdma/vhost-user-rdma" -l 0-1 \
			$fabric_eal --log-level=lib.vhost.config:warning --file-prefix "$prefix-$n" \
			$v -- -s "$work/$n.sock" --mac "$mac" --idle-sleep 10 > "$work/rdma-$n.log" 2>&1 &
		rdma_pid[$n]=$!
		wait_log "$work/rdma-$n.log" '^serving [0-9]+ device' 60 ||
			{ echo "backend $n did not start: $(tail -3 "$work/rdma-$n.log")"; exit 1; }
	done
}

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# measure WIRE: fills gbps[WIRE], mmsg[WIRE], ing[WIRE], egr[WIRE]
declare -A gbps mmsg ing egr pa pb ps
measure() {
	local w=$1 r out g=() m=()
	backends "$w"
	for r in $(seq "$rounds"); do
		out=$(vrdma_perf -a "$work/a.sock" -b "$work/b.sock" --mode write_bw --size 65536 \
			--iters "$write_iters" 2>&1) || { echo "write_bw on $w: $(echo "$out" | tail -2)"; exit 1; }
		g+=("$(echo "$out" | sed -n 's/.* M msg\/s, \([0-9.]*\) Gb\/s$/\1/p')")
		out=$(vrdma_perf -a "$work/a.sock" -b "$work/b.sock" --mode send_bw --size 64 \
			--iters "$send_iters" 2>&1) || { echo "send_bw on $w: $(echo "$out" | tail -2)"; exit 1; }
		m+=("$(echo "$out" | sed -n 's/.*: \([0-9.]*\) M msg\/s, .*/\1/p')")
	done
	gbps[$w]=$(printf '%s\n' "${g[@]}" | median)
	mmsg[$w]=$(printf '%s\n' "${m[@]}" | median)
	# CPU time each process took (user + system, since it started)
	cpu_a[$w]=$(cpu_ms "$(pgrep -P "${rdma_pid[a]}" | head -1)")
	cpu_b[$w]=$(cpu_ms "$(pgrep -P "${rdma_pid[b]}" | head -1)")
	cpu_sw[$w]=0
	[ "$w" = vnic ] && cpu_sw[$w]=$(cpu_ms "$sw_pid")
	fabric_nodes_stop
	[ "$w" = vnic ] && switch_stop
	# node a's wire stages, cycles per frame (over both modes' frames)
	ing[$w]=$(sed -n 's/^  total .*(\([0-9.]*\)\/pkt)$/\1/p' "$work/rdma-a.log" | sed -n 1p)
	egr[$w]=$(sed -n 's/^  total .*(\([0-9.]*\)\/pkt)$/\1/p' "$work/rdma-a.log" | sed -n 3p)
	cp "$work/rdma-a.log" "$work/$w-a.log"
	frames[$w]=$(( $(sw_ctr "$work/rdma-a.log" wire_tx) + $(sw_ctr "$work/rdma-a.log" wire_rx) ))
}

# cpu_ms PID: milliseconds of CPU (user + system) the process has used
cpu_ms() {
	awk -v hz="$(getconf CLK_TCK)" '{ print int(($14 + $15) * 1000 / hz) }' "/proc/$1/stat" \
		2>/dev/null || echo 0
}
declare -A cpu_a cpu_b cpu_sw frames

echo "perf_rdma_opa: vhost-user-rdma, vrdma-perf between two backends; median of $rounds round(s)"
measure memif
measure vnic
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
printf '%-28s %12s %12s %8s\n' "" "memif wire" "VNIC wire" "VNIC/memif"
printf '%-28s %12s %12s %8s\n' "RC WRITE 64 KiB, Gb/s" "${gbps[memif]}" "${gbps[vnic]}" \
	"$(ratio "${gbps[vnic]}" "${gbps[memif]}")"
printf '%-28s %12s %12s %8s\n' "RC SEND 64 B, M msg/s" "${mmsg[memif]}" "${mmsg[vnic]}" \
	"$(ratio "${mmsg[vnic]}" "${mmsg[memif]}")"
printf '%-28s %12s %12s %8s\n' "node A ingress, cycles/frame" "${ing[memif]}" "${ing[vnic]}" \
	"$(ratio "${ing[vnic]}" "${ing[memif]}")"
printf '%-28s %12s %12s %8s\n' "node A egress, cycles/frame" "${egr[memif]}" "${egr[vnic]}" \
	"$(ratio "${egr[vnic]}" "${egr[memif]}")"
us_per() { awk -v ms="$1" -v n="$2" 'BEGIN { if (n > 0) printf "%.2f", ms * 1000 / n; else print "n/a" }'; }
for w in memif vnic; do
	pa[$w]=$(us_per "${cpu_a[$w]}" "${frames[$w]}")
	pb[$w]=$(us_per "${cpu_b[$w]}" "${frames[$w]}")
	ps[$w]=$(us_per "${cpu_sw[$w]}" "${frames[$w]}")
done
printf '%-28s %12s %12s\n' "CPU us/frame: backend A" "${pa[memif]}" "${pa[vnic]}"
printf '%-28s %12s %12s\n' "CPU us/frame: backend B" "${pb[memif]}" "${pb[vnic]}"
printf '%-28s %12s %12s\n' "CPU us/frame: opa-switch" "-" "${ps[vnic]}"
echo "(ingress: wire rx [+ VNIC decap, hfi1 rx, model receive]; egress: wire tx [+ VNIC encap,"
echo " hfi1 SDMA, model engine]; CPU per frame of node A's wire frames, both directions, whole"
echo " runs: busy polling included, so it shows where the two CPUs went, not a cost per frame)"
