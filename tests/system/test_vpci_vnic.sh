#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# net_opa_vnic on net_hfi1 through vfio-pci, on the model fabric: each node's
# HFI is a virtual PCI function of tools/vpci (libomni_vpci.so preloaded, its
# wire a net_memif client the hfi1 backend makes to its opa-switch port), the
# PCI port net_hfi1's PCI driver probes is the VNIC's fabric port
# (fabric=<BDF>: the PCI port exists before the vdevs probe):
#
#   node A: Debian's dpdk-testpmd, HFI 0000:00:04.0 (LID 1) + net_opa_vnic,
#           net_pcap (Ethernet frames) <-> vport 0
#   node B: examples/l2fwd-vnic --mac-swap, HFI 0000:00:05.0 (LID 2) +
#           net_opa_vnic, vport 0 back to itself
#   opa-switch (ports a, b, em; routes by LID), opa-em configures the vports
#
# Every Ethernet frame A sends comes back once with its MACs swapped, both
# nodes exit 0, the switch drops nothing.
#
# Usage: test_vpci_vnic.sh SRC_DIR BUILD_DIR [SANITIZE]
set -uo pipefail
. "$1/tests/system/lib.sh"

need_testpmd_plugin "$sanitize"
. "$src/scripts/fabric.sh"
on_exit 'fabric_stop >/dev/null 2>&1'

frames=200
mac_a=$(lmac 0x301 1 $FABRIC_A_LID)   # A's vport 0 (vesw 1)
mac_b=$(lmac 0x301 1 $FABRIC_B_LID)   # B's vport 0 (vesw 1)
# classic pcap (net_pcap writes classic pcap; gen-frames.sh writes pcapng)
"$src/scripts/gen-frames.sh" "$frames" "$work/in.ng" 5 60 1514 "$mac_b" "$mac_a" >/dev/null &&
	editcap -F pcap "$work/in.ng" "$work/in.pcap" || { echo "no input pcap"; exit 1; }

cat > "$work/em.yaml" <<EOF
em: { lid: $FABRIC_EM_LID }
vesws:
  - { id: 1, fabric_id: 0x301, pkey: 0x8001, mtu: 1500, mcast_dlid: 0xf00001 }
vports:
  - { node_lid: $FABRIC_A_LID, index: 0, vesw: 1 }
  - { node_lid: $FABRIC_B_LID, index: 0, vesw: 1 }
EOF

plugin_copies "$build/drivers/net/hfi1/librte_net_hfi1.so" \
	"$build/drivers/net/opa_vnic/librte_net_opa_vnic.so" \
	"$build/tools/vpci/libomni_vpci.so" || exit 1
plugins=(-d "$plugin_dir/librte_net_hfi1.so" -d "$plugin_dir/librte_net_opa_vnic.so")
mkdir -p "$work/tmp-a" "$work/tmp-b"
switch_start a b em -- --route "$FABRIC_A_LID=0" --route "$FABRIC_B_LID=1" \
	--route "$FABRIC_EM_LID=2" --stats-period 0 ||
	{ fail "opa-switch starts" "$(tail -5 "$work/switch.log")"; finish; exit; }

# --no-pci is not for these nodes: their HFIs are PCI devices
fabric_eal=${fabric_eal/--no-pci /}
# Node B: l2fwd-vnic on the vfio path. Ports: 0 its wire (owned by the
# model), 1 the HFI, 2 vport 0.
TMPDIR=$work/tmp-b LD_PRELOAD=$plugin_dir/libomni_vpci.so \
VPCI_DEVICES="0000:00:05.0,model=hfi1,lid=$FABRIC_B_LID,memif=$work/sw-b.sock" \
	timeout 300 stdbuf -oL "$build/examples/l2fwd-vnic/l2fwd-vnic" --lcores 0@1,1@0 \
	$fabric_eal --file-prefix "$prefix-b" "${plugins[@]}" -a 0000:00:05.0 \
	--vdev net_opa_vnic_b,fabric=0000:00:05.0,vports=1 -- \
	--map 2:2 --mac-swap -T 0 --link-timeout 0 --xstats > "$work/b.log" 2>&1 &
b_pid=$!
wait_log "$work/b.log" "^mode: " 30 || say "l2fwd-vnic did not start"

# Node A: testpmd on the vfio path. Ports: 0 its wire, 1 the HFI, 2 vport 0,
# 3 the pcap.
TMPDIR=$work/tmp-a LD_PRELOAD=$plugin_dir/libomni_vpci.so \
VPCI_DEVICES="0000:00:04.0,model=hfi1,lid=$FABRIC_A_LID,memif=$work/sw-a.sock" \
testpmd_start 300 "$work/a.log" --lcores 0@0,1@1 $fabric_eal --file-prefix "$prefix-a" \
	"${plugins[@]}" -a 0000:00:04.0 --vdev net_opa_vnic_a,fabric=0000:00:04.0,vports=1 \
	--vdev "net_pcap0,rx_pcap=$work/in.pcap,tx_pcap=$work/out.pcap" -- \
	-i --disable-link-check --total-num-mbufs=32768 --no-flush-rx --forward-mode=io \
	--portlist=2,3

for n in a b; do
	if grep -q "^hfi1_pci_init(): 0000:00:0[45].0: firmware load" "$work/$n.log"; then
		pass "node $n: net_hfi1's PCI driver probes its virtual HFI (vfio-pci)"
	else
		fail "node $n: net_hfi1's PCI driver probes its virtual HFI" \
			"$(head -30 "$work/$n.log")"
	fi
done

em apply "$work/em.yaml" > "$work/em.log"
expect_eq "opa-em configures both nodes' vport 0 over the fabric (exit 0)" 0 "$?"
wait_until 10 testpmd_link 2 up || say "A's vport 0 has no link"
expect_eq "A's vport 0 (net_opa_vnic on the PCI port) is up" up \
	"$(testpmd_info 2 'Link status')"
testpmd_cmd start
wait_until 30 pcap_has "$work/out.pcap" "$frames" || say "not every frame came back"
testpmd_cmd stop

cat > "$work/swapped.py" <<'EOF'
import struct, sys

def frames(path):
    data = open(path, 'rb').read()
    off, out = 24, []
    while off + 16 <= len(data):
        incl = struct.unpack_from('<I', data, off + 8)[0]
        out.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return out

a, b = frames(sys.argv[1]), frames(sys.argv[2])
want = sorted(x[6:12] + x[0:6] + x[12:] for x in a)
print("all back once, MACs swapped" if sorted(b) == want else
      f"in {len(a)}, out {len(b)}: not the frames sent with MACs swapped")
EOF
expect_eq "every Ethernet frame crossed the fabric to B and came back once, MACs swapped" \
	"all back once, MACs swapped" \
	"$(python3 "$work/swapped.py" "$work/in.pcap" "$work/out.pcap")"
expect_eq "A's vport 0 sent and received $frames frames" "$frames $frames" \
	"$(testpmd_xstat 2 tx_good_packets) $(testpmd_xstat 2 rx_good_packets)"

fabric_nodes_stop
expect_eq "testpmd (A) and l2fwd-vnic (B) exit 0" "A 0, B 0" "A $a_rc, B $b_rc"
expect_eq "B (l2fwd-vnic) received and sent back every frame on vport 0" \
	"port 2: rx $frames tx $frames dropped 0" \
	"$(sed -n '/^final statistics:/,$p' "$work/b.log" |
		grep -o 'port 2: rx [0-9]* tx [0-9]* dropped [0-9]*')"
switch_stop
expect_eq "opa-switch exits 0" 0 "$?"
# (link_down drops are allowed: a VNIC's notice to the EM while opa-em,
# which runs once per command, is not connected)
expect_eq "the switch dropped no packet as malformed, unroutable or for a full queue" 0 \
	"$(grep '^port=' "$work/switch.log" |
		grep -oE ' (short|not_16b|bad_length|no_route|to_ingress|tx_full)=[0-9]+' |
		awk -F= '{ s += $2 } END { print s + 0 }')"
expect_eq "vpci never refused or failed an access" "" \
	"$(cat "$work/a.log" "$work/b.log" | grep -E '^vpci: .*(not served|cannot|could not)')"
expect_eq "no sysfs tree left behind" "" "$(ls -A "$work/tmp-a"; ls -A "$work/tmp-b")"
if [ "$failed" -ne 0 ]; then
	for f in switch a b; do
		echo "# --- $f.log (last 30 lines)"
		tail -30 "$work/$f.log" 2>/dev/null | sed 's/^/# /'
	done
fi
finish
