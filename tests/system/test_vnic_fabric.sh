#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# net_opa_vnic on the multi-process model fabric of scripts/fabric.sh:
# opa-switch, node A (Debian's dpdk-testpmd with the net_hfi1 and
# net_opa_vnic plugins, net_pcap ports), node B (examples/l2fwd-vnic
# --mac-swap) and opa-em applying YAML configs written here. Five
# behaviours in four phases, each on a fresh fabric:
#
#   jumbo:   vesw 1 with mtu 9000; 60..9014-byte frames A -> B -> A, and
#            vesw 1 traffic never seen on a vesw 2 port (isolation 1/2)
#   state:   A's vport 0 set drop_all, then forwarding again (link events,
#            drops), then the MAC table of the running port changed (one
#            testpmd process, one net_pcap port per step, `set portlist`)
#   reverse: B sends what A sent it back on vesw 2 (--map 2:3,3:2): it
#            reaches A's vesw 2 port, never its vesw 1 port (isolation 2/2)
#   modes:   testpmd's mac, macswap, csum, txonly and rxonly engines on a
#            VNIC port (io is the engine of the other phases)
#
# In every phase both nodes' vport 0 are on vesw 1 and vport 1 on vesw 2.
# Ports: A 2 = vport 0, 3 = vport 1, 4.. = net_pcap; B 2 = vport 0, 3 = vport 1.
#
# Usage: test_vnic_fabric.sh SRC_DIR BUILD_DIR [SANITIZE]
set -uo pipefail
. "$1/tests/system/lib.sh"

need_testpmd_plugin "$sanitize"

. "$src/scripts/fabric.sh"
pdirs=
# At exit the fabric stops (lib.sh's clean-up then removes what is left;
# on the SIGTERM of meson's timeout it kills the nodes first, which are not
# in the test's process group: timeout(1) gives them one of their own).
# KEEP_WORK=1 keeps the logs, configs and pcaps.
on_exit 'fabric_stop >/dev/null 2>&1'
t0=$(date +%s)

mac_a=$(lmac 0x301 1 $FABRIC_A_LID)   # A's vport 0 (vesw 1)
mac_b=$(lmac 0x301 1 $FABRIC_B_LID)   # B's vport 0 (vesw 1)
mac_x=00:1b:21:3c:4d:5e               # a global unicast MAC: no LID in it

# cfg FILE MTU STATE [MAC]: vesw 1 (mtu MTU) and vesw 2 (1500); vport 0 of
# each node on vesw 1, vport 1 on vesw 2, LMACs; A's vport 0 in STATE, with a
# MAC-table entry MAC -> B's LID when MAC is given.
cfg() {
	{
		cat <<-EOF
		em: { lid: $FABRIC_EM_LID }
		vesws:
		  - { id: 1, fabric_id: 0x301, pkey: 0x8001, mtu: $2, mcast_dlid: 0xf00001 }
		  - { id: 2, fabric_id: 0x301, pkey: 0x8002, mtu: 1500, mcast_dlid: 0xf00002 }
		vports:
		  - node_lid: $FABRIC_A_LID
		    index: 0
		    vesw: 1
		    state: $3
		EOF
		if [ -n "${4:-}" ]; then
			printf '    mac_table:\n      - { mac: "%s", dlid: %s }\n' "$4" "$FABRIC_B_LID"
		fi
		cat <<-EOF
		  - { node_lid: $FABRIC_A_LID, index: 1, vesw: 2 }
		  - { node_lid: $FABRIC_B_LID, index: 0, vesw: 1 }
		  - { node_lid: $FABRIC_B_LID, index: 1, vesw: 2 }
		EOF
	} > "$1"
}

# Classic pcap files: count frames, count frames longer than N, and compare
# an output with an input (every frame once, MACs swapped, any order: flows
# are spread over SDMA engines, so order holds only within a flow).
cat > "$work/pcap.py" <<'EOF'
import struct, sys

def frames(path):
    try:
        data = open(path, 'rb').read()
    except FileNotFoundError:
        return []
    if data[:4] not in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1'):
        return []
    off, out = 24, []
    while off + 16 <= len(data):
        incl = struct.unpack_from('<I', data, off + 8)[0]
        if off + 16 + incl > len(data):
            break
        out.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return out

cmd = sys.argv[1]
if cmd == 'count':
    print(len(frames(sys.argv[2])))
elif cmd == 'longer':
    print(sum(1 for f in frames(sys.argv[2]) if len(f) > int(sys.argv[3])))
elif cmd == 'dst':
    want = bytes.fromhex(sys.argv[3].replace(':', ''))
    print(sum(1 for f in frames(sys.argv[2]) if f[0:6] == want))
elif cmd == 'max':
    print(max(len(f) for f in frames(sys.argv[2])))
elif cmd == 'swapped':
    a, b = frames(sys.argv[2]), frames(sys.argv[3])
    want = sorted(x[6:12] + x[0:6] + x[12:] for x in a)
    if sorted(b) == want:
        print(f"all {len(a)} back once, MACs swapped")
    else:
        left = list(b)
        missing = 0
        for x in want:
            if x in left:
                left.remove(x)
            else:
                missing += 1
        print(f"in {len(a)}, out {len(b)}: {missing} sent did not come back as sent, "
              f"{len(left)} came back not as sent")
EOF
pcap() { python3 "$work/pcap.py" "$@"; }

# gen N OUT SEED MIN MAX DST SRC: frames as classic pcap (net_pcap writes
# classic pcap; gen-frames.sh writes pcapng).
gen() {
	"$src/scripts/gen-frames.sh" "$1" "$2.ng" "$3" "$4" "$5" "$6" "$7" &&
		editcap -F pcap "$2.ng" "$2" && rm -f "$2.ng"
}

# has_frames FILE N: FILE holds N frames or more. A step forwards until its
# output has as many frames as went in, then stops: no frame of it is in
# flight then. A duplicate made on the way follows its original on the same
# FIFO wire, ahead of later frames, so it is among those counted (and an
# original missing): the exactly-once comparisons see it. Only a duplicate
# of one of the very last frames could come after the count is reached.
has_frames() {
	[ "$(pcap count "$1")" -ge "$2" ]
}

xstat_reaches() { # PORT NAME N: A's xstat is N or more
	[ "$(testpmd_xstat "$1" "$2")" -ge "$3" ] 2>/dev/null
}

lsc_events() { # A's link state change events of port 2 so far
	grep -c '^Port 2: link state change event' "$work/a.log"
}

lsc_after() { # N: A logged more than N events for port 2
	[ "$(lsc_events)" -gt "$1" ]
}

# em_counter CONFIG NODE INDEX KEY: a vport counter read over VEMA (opa-em
# status), from any running node.
em_counter() {
	em status "$1" 2>/dev/null | awk -v n="node=$2" -v i="index=$3" -v k="$4=" '
		($1 == "summary" || $1 == "errors") && $2 == n && $3 == i {
			for (f = 4; f <= NF; f++)
				if (index($f, k) == 1) { print substr($f, length(k) + 1); exit }
		}'
}

# b_final PORT: "rx N tx N" of B's port in l2fwd-vnic's final statistics.
b_final() {
	sed -n '/^final statistics:/,/total:/p' "$work/b.log" |
		awk -v p="port $1:" 'index($0, p) { print $3, $4, $5, $6; exit }'
}

# phase_start NAME: a fresh fabric for a phase.
phase=
phase_failed=0
phase_start() {
	phase=$1
	phase_failed=$failed
	echo "# --- phase $phase ($(( $(date +%s) - t0 )) s)"
	fabric_start
	pdirs="$pdirs $plugin_dir"
}

# phase_stop: stop the fabric; both nodes must exit 0 (B's totals are in
# b.log now).
phase_stop() {
	fabric_stop >/dev/null 2>&1
	# No crash, no hang at exit (B: every mbuf back, or it exits 1).
	expect_eq "$phase: testpmd (A) and l2fwd-vnic (B) exit 0" "A 0, B 0" "A $a_rc, B $b_rc"
	# Both close every port, the fabric and its wire included, before EAL
	# removes the vdevs (a started wire cannot be closed).
	expect_eq "$phase: every port closed at exit (no 'Cannot close started device')" 0 \
		"$(cat "$work/a.log" "$work/b.log" | grep -c 'Cannot close started device')"
}

# phase_end: keep the phase's logs; show them when one of its checks failed.
phase_end() {
	for f in switch a b; do
		mv "$work/$f.log" "$work/$phase-$f.log" 2>/dev/null
	done
	if [ "$failed" -ne "$phase_failed" ]; then
		for f in switch a b; do
			echo "# --- $phase: $f.log (last 40 lines)"
			tail -40 "$work/$phase-$f.log" 2>/dev/null | sed 's/^/# /'
		done
	fi
}

start_b() { # start_b L2FWD_ARGS...: node B, both vports, until it runs
	node_b_start "vports=2" --mac-swap -T 0 --link-timeout 0 --xstats "$@"
	wait_log "$work/b.log" "^mode: " 15
}

########################################################################
# Phase 1: jumbo frames. vesw 1 has mtu 9000; A forwards 60..9014-byte
# frames (some exactly 9014) from net_pcap to B, which swaps the MACs and
# sends them back. testpmd's --max-pkt-len=9018 gives the net_pcap port MTU
# 9000 (net_pcap has no mtu_set: `port config mtu` is refused with -95);
# the VNIC port's MTU is the vesw's eth_mtu, which only the EM raises.
# A forwards with `set portlist 2,4,3`: 2 <-> 4 paired, and port 3 (vesw 2)
# polled too (looped onto itself), so its counters are real.
gen 150 "$work/j-rand.pcap" 11 60 9014 "$mac_b" "$mac_a"
gen 4 "$work/j-max.pcap" 12 9014 9014 "$mac_b" "$mac_a"
mergecap -F pcap -a -w "$work/j-in.pcap" "$work/j-rand.pcap" "$work/j-max.pcap"
j_frames=$(pcap count "$work/j-in.pcap")
j_big=$(pcap longer "$work/j-in.pcap" 1514)
cfg "$work/jumbo.yaml" 9000 forwarding

phase_start jumbo
node_a_start "vports=2" "--vdev net_pcap0,rx_pcap=$work/j-in.pcap,tx_pcap=$work/j-out.pcap" \
	--no-flush-rx --forward-mode=io --max-pkt-len=9018
start_b --map 2:2,3:3

# The VNIC port refuses an MTU above its vesw's eth_mtu (1500 until the EM
# says otherwise): proves the MTU limit comes from the EM, not testpmd.
testpmd_cmd "port config mtu 2 9000"
expect_eq "jumbo: before the EM, A's vport 0 refuses MTU 9000 (vesw eth_mtu 1500)" 1 \
	"$(grep -c "MTU 9000 is above the vesw's MTU 1500" "$work/a.log")"
em apply "$work/jumbo.yaml" > "$work/jumbo-apply.txt"
# (the EM accepted and read back a vesw with eth_mtu 9000)
expect_eq "jumbo: opa-em applies vesw 1 with mtu 9000 (exit 0)" 0 "$?"
wait_until 5 testpmd_link 2 up
# After the EM set eth_mtu 9000 the same request is accepted (on the port
# restarted, as a jumbo-frame set-up would do).
testpmd_cmd "port stop 2"
testpmd_cmd "port config mtu 2 9000"
testpmd_cmd "port start 2"
expect_eq "jumbo: after the EM, A's vport 0 accepts MTU 9000 (no second refusal)" 1 \
	"$(grep -c "MTU 9000 is above the vesw's MTU" "$work/a.log")"
# Both ports of the io stream are set up for jumbo frames.
expect_eq "jumbo: A's vport 0 and its net_pcap port report MTU 9000" "9000 9000" \
	"$(testpmd_info 2 MTU) $(testpmd_info 4 MTU)"
wait_until 5 testpmd_link 2 up
testpmd_cmd "set portlist 2,4,3"
testpmd_cmd "start"
wait_until 20 has_frames "$work/j-out.pcap" "$j_frames"
testpmd_cmd "stop"
# Every frame, up to 9014 bytes, crossed the fabric both ways once, intact:
# fails if the vesw MTU, the PMD (chained mbufs, encap) or the fabric cut
# or drop any jumbo frame.
expect_eq "jumbo: all $j_frames frames (60..$(pcap max "$work/j-in.pcap") bytes) made the round trip once, MACs swapped" \
	"all $j_frames back once, MACs swapped" \
	"$(pcap swapped "$work/j-in.pcap" "$work/j-out.pcap")"
# The VNIC counted the jumbo frames in their own bucket, both ways.
expect_eq "jumbo: A's vport 0 rx_1519_max = frames over 1514 bytes ($j_big)" "$j_big" \
	"$(testpmd_xstat 2 rx_1519_max)"
expect_eq "jumbo: A's vport 0 tx_1519_max = frames over 1514 bytes ($j_big)" "$j_big" \
	"$(testpmd_xstat 2 tx_1519_max)"
expect_eq "jumbo: A's vport 0 tx_oversize and rx_oversize stay 0" "0 0" \
	"$(testpmd_xstat 2 tx_oversize) $(testpmd_xstat 2 rx_oversize)"
# Isolation, vesw 1 -> vesw 2: A's vesw 2 port was polled all along and
# received none of the vesw 1 frames (nor any handed over to it).
expect_eq "isolation: A's vesw 2 port (vport 1) received none of the vesw 1 frames" \
	"rx 0 unicast 0 mcastbcast 0 bad_veswid 0" \
	"rx $(testpmd_xstat 3 rx_good_packets) unicast $(testpmd_xstat 3 rx_unicast) mcastbcast $(testpmd_xstat 3 rx_mcastbcast) bad_veswid $(testpmd_xstat 2 rx_bad_veswid)"
phase_stop
# B polled its vesw 2 port too (--map 3:3): the frames reached only vport 0.
expect_eq "jumbo: B's vport 0 received and sent back every frame" \
	"rx $j_frames tx $j_frames" "$(b_final 2 | cut -d' ' -f1-4)"
expect_eq "isolation: B's vesw 2 port (vport 1) received none of the vesw 1 frames" \
	"rx 0 tx 0 rx_unicast 0 rx_mcastbcast 0" \
	"$(b_final 3 | cut -d' ' -f1-4) rx_unicast $(b_xstat 3 rx_unicast) rx_mcastbcast $(b_xstat 3 rx_mcastbcast)"
phase_end

########################################################################
# Phase 2 and 3: one testpmd process; each step forwards another net_pcap
# port with vport 0 (`set portlist 2,P`), the EM changing vport 0 between.
st_n=100
gen $st_n "$work/s-drop.pcap" 21 60 1514 "$mac_b" "$mac_a"   # port 4
gen $st_n "$work/s-fwd.pcap" 22 60 1514 "$mac_b" "$mac_a"    # port 5
gen $st_n "$work/s-x0.pcap" 23 60 1514 "$mac_x" "$mac_a"     # port 6
gen $st_n "$work/s-x1.pcap" 24 60 1514 "$mac_x" "$mac_a"     # port 7
cfg "$work/fwd.yaml" 1500 forwarding
cfg "$work/drop.yaml" 1500 drop_all
cfg "$work/mac.yaml" 1500 forwarding "$mac_x"
pcaps=
for p in drop fwd x0 x1; do
	pcaps="$pcaps --vdev net_pcap_$p,rx_pcap=$work/s-$p.pcap,tx_pcap=$work/s-$p-out.pcap"
done

phase_start state
node_a_start "vports=2" "$pcaps" --no-flush-rx --forward-mode=io
start_b --map 2:2,3:3
em apply "$work/fwd.yaml" > /dev/null
wait_until 5 testpmd_link 2 up
# The starting point: the EM's FORWARDING is what brings the link up.
expect_eq "state: A's vport 0 link up once the EM set it forwarding" up "$(testpmd_info 2 'Link status')"

# DROP_ALL: the EM's state change reaches the running port as a link-down
# event, and the port drops what it is given to send.
n=$(lsc_events)
em apply "$work/drop.yaml" > /dev/null
expect_eq "state: opa-em applies drop_all to A's vport 0 (exit 0)" 0 "$?"
wait_until 5 lsc_after "$n"
# The application is told (one LSC event) and sees the link down.
expect_eq "state: drop_all: A logs 'Port 2: link state change event'" 1 "$(( $(lsc_events) - n ))"
expect_eq "state: drop_all: show port info 2 says link down" down "$(testpmd_info 2 'Link status')"
testpmd_cmd "set portlist 2,4"
testpmd_cmd "start"
# every frame dropped at A's vport: none is in flight once all are counted
wait_until 10 xstat_reaches 2 tx_drop_state $st_n
testpmd_cmd "stop"
# The port still takes frames (no link check in testpmd) but sends none:
# each is counted as dropped for the vport state, none as sent.
expect_eq "state: drop_all: every frame A sent counts as tx_drop_state" $st_n \
	"$(testpmd_xstat 2 tx_drop_state)"
expect_eq "state: drop_all: A's vport 0 sent nothing (tx_unicast 0)" 0 "$(testpmd_xstat 2 tx_unicast)"
# B's vport 0, read over VEMA while it runs: nothing arrived.
expect_eq "state: drop_all: no frame reached B (its vport 0 rx_packets 0)" 0 \
	"$(em_counter "$work/fwd.yaml" $FABRIC_B_LID 0 rx_packets)"

# FORWARDING again: link-up event, and frames flow.
n=$(lsc_events)
em apply "$work/fwd.yaml" > /dev/null
expect_eq "state: opa-em applies forwarding to A's vport 0 again (exit 0)" 0 "$?"
wait_until 5 lsc_after "$n"
# Back to FORWARDING: one more LSC event, link up.
expect_eq "state: forwarding: A logs 'Port 2: link state change event'" 1 "$(( $(lsc_events) - n ))"
expect_eq "state: forwarding: show port info 2 says link up" up "$(testpmd_info 2 'Link status')"
testpmd_cmd "set portlist 2,5"
testpmd_cmd "start"
wait_until 20 has_frames "$work/s-fwd-out.pcap" $st_n
testpmd_cmd "stop"
# Traffic flows again on the same running port: every frame to B and back,
# B counts them, and no more state drops.
expect_eq "state: forwarding: all $st_n frames made the round trip once, MACs swapped" \
	"all $st_n back once, MACs swapped" \
	"$(pcap swapped "$work/s-fwd.pcap" "$work/s-fwd-out.pcap")"
expect_eq "state: forwarding: B's vport 0 received them (rx_packets $st_n)" $st_n \
	"$(em_counter "$work/fwd.yaml" $FABRIC_B_LID 0 rx_packets)"
expect_eq "state: forwarding: tx_drop_state did not move" $st_n "$(testpmd_xstat 2 tx_drop_state)"

# MAC table: a global unicast MAC (no LID in it, no default ports on the
# vesw) has no DLID until the EM puts it in A's MAC table.
testpmd_cmd "set portlist 2,6"
testpmd_cmd "start"
# (dropped at A's vport, as in drop_all)
wait_until 10 xstat_reaches 2 tx_dlid_zero $st_n
testpmd_cmd "stop"
# No entry: no DLID, so every frame is dropped as tx_dlid_zero, nothing
# is sent and B sees nothing new.
expect_eq "mac: without an entry, every frame to $mac_x counts as tx_dlid_zero" $st_n \
	"$(testpmd_xstat 2 tx_dlid_zero)"
expect_eq "mac: without an entry, A's tx_unicast did not move" $st_n "$(testpmd_xstat 2 tx_unicast)"
expect_eq "mac: without an entry, nothing more reached B" $st_n \
	"$(em_counter "$work/fwd.yaml" $FABRIC_B_LID 0 rx_packets)"
n=$(lsc_events)
em apply "$work/mac.yaml" > "$work/mac-apply.txt"
# The EM wrote (and read back) exactly the one entry.
expect_eq "mac: opa-em adds {mac: $mac_x, dlid: $FABRIC_B_LID} to A's vport 0 (exit 0)" 0 "$?"
expect_eq "mac: opa-em reports 1 MAC entry for A's vport 0" 1 \
	"$(grep -c "^node $FABRIC_A_LID vport 0: .* 1 MAC entries: applied" "$work/mac-apply.txt")"
testpmd_cmd "set portlist 2,7"
testpmd_cmd "start"
wait_until 20 has_frames "$work/s-x1-out.pcap" $st_n
testpmd_cmd "stop"
# The running port (never stopped) finds the DLID in its new policy: the
# same kind of frames are now sent (tx_unicast), none dropped for want of a
# DLID, B receives them, and they come back through B's MAC swap.
expect_eq "mac: with the entry, A's tx_unicast grew by $st_n" $((2 * st_n)) \
	"$(testpmd_xstat 2 tx_unicast)"
expect_eq "mac: with the entry, tx_dlid_zero did not move" $st_n "$(testpmd_xstat 2 tx_dlid_zero)"
expect_eq "mac: with the entry, B's vport 0 rx_packets grew by $st_n" $((2 * st_n)) \
	"$(em_counter "$work/fwd.yaml" $FABRIC_B_LID 0 rx_packets)"
expect_eq "mac: with the entry, all $st_n frames to $mac_x came back (B swapped the MACs)" \
	"all $st_n back once, MACs swapped" \
	"$(pcap swapped "$work/s-x1.pcap" "$work/s-x1-out.pcap")"
# A MAC table change is not a state change: no link event.
expect_eq "mac: the MAC table change raised no link event" 0 "$(( $(lsc_events) - n ))"
phase_stop
phase_end

########################################################################
# Phase 4: isolation, vesw 2 -> vesw 1. B forwards what its vport 0 (vesw 1)
# receives out of its vport 1 (vesw 2), MACs swapped: addressed to A's vesw 1
# LMAC, so DLID = A's LID, but carrying vesw id 2. A runs the ports chained
# (2 -> 3 -> 4 -> 2): net_pcap -> vport 0 -> B; back on vport 1 -> net_pcap.
# Were vesw 2 frames delivered to A's vesw 1 port, vport 0 would count them
# and send them on through vport 1 instead.
r_n=300
gen $r_n "$work/r-in.pcap" 31 60 1514 "$mac_b" "$mac_a"
phase_start reverse
node_a_start "vports=2" "--vdev net_pcap0,rx_pcap=$work/r-in.pcap,tx_pcap=$work/r-out.pcap" \
	--no-flush-rx --forward-mode=io --port-topology=chained
start_b --map 2:3,3:2
em apply "$work/fwd.yaml" > /dev/null
# (the config this phase's results depend on was applied)
expect_eq "reverse: opa-em applies the two-vesw config (exit 0)" 0 "$?"
wait_until 5 testpmd_link 2 up
wait_until 5 testpmd_link 3 up
testpmd_cmd "start"
wait_until 20 has_frames "$work/r-out.pcap" $r_n
testpmd_cmd "stop"
# The frames did make it back to A, through vesw 2 ...
expect_eq "reverse: all $r_n frames came back through vesw 2 once, MACs swapped" \
	"all $r_n back once, MACs swapped" \
	"$(pcap swapped "$work/r-in.pcap" "$work/r-out.pcap")"
# ... on A's vesw 2 port only, though addressed to A's vesw 1 LMAC.
expect_eq "isolation: B's vesw 2 frames reached A's vesw 2 port (vport 1 rx_unicast $r_n)" \
	$r_n "$(testpmd_xstat 3 rx_unicast)"
expect_eq "isolation: none reached A's vesw 1 port (vport 0 rx 0, so it forwarded nothing to vport 1)" \
	"rx 0 vport1 tx 0" "rx $(testpmd_xstat 2 rx_good_packets) vport1 tx $(testpmd_xstat 3 tx_good_packets)"
phase_stop
# And the other way on B: A's vesw 1 frames reached only B's vesw 1 port.
expect_eq "reverse: B's vport 0 received all, its vport 1 sent all" "rx $r_n tx 0|rx 0 tx $r_n" \
	"$(b_final 2 | cut -d' ' -f1-4)|$(b_final 3 | cut -d' ' -f1-4)"
phase_end

########################################################################
# Phase 5: testpmd's forwarding engines on a VNIC port (io runs above).
# One testpmd process, one net_pcap port per engine (4 mac, 5 macswap,
# 6 csum), each forwarded with vport 0 (`set portlist 2,P`); B swaps MACs.
#   mac:     pcap -> vport 0 with src = vport 0's MAC, dst = its peer (B);
#            back the other way with the pcap port's MAC and peer
#   macswap: frames from B to A: A's swap sends them to B, B's swap back to
#            A, A's swap again: they come out with their MACs swapped
#   csum:    like io, checksums done in software (no offload offered)
# then txonly on vport 0 (dst = its peer, B) and rxonly, which reads what
# B sent back meanwhile.
m_n=150
peer_p=02:00:00:00:0f:0f   # the pcap ports' peer in mac mode
gen $m_n "$work/m-mac.pcap" 41 60 1514 "$mac_b" "$mac_a"
gen $m_n "$work/m-swap.pcap" 42 60 1514 "$mac_a" "$mac_b"
gen $m_n "$work/m-csum.pcap" 43 60 1514 "$mac_b" "$mac_a"
pcaps=
peers="--eth-peer=2,$mac_b"
for p in mac swap csum; do
	pcaps="$pcaps --vdev net_pcap_$p,rx_pcap=$work/m-$p.pcap,tx_pcap=$work/m-$p-out.pcap"
done
for p in 4 5 6; do
	peers="$peers --eth-peer=$p,$peer_p"
done
phase_start modes
node_a_start "vports=2" "$pcaps" --no-flush-rx --forward-mode=io $peers
start_b --map 2:2,3:3
em apply "$work/fwd.yaml" > /dev/null
expect_eq "modes: opa-em applies the two-vesw config (exit 0)" 0 "$?"
wait_until 5 testpmd_link 2 up

# run_mode MODE PCAP_PORT OUT: forward one pcap port through vport 0.
run_mode() {
	testpmd_cmd "set fwd $1"
	testpmd_cmd "set portlist 2,$2"
	testpmd_cmd "start"
	wait_until 20 has_frames "$3" $m_n
	testpmd_cmd "stop"
}
run_mode mac 4 "$work/m-mac-out.pcap"
expect_eq "engine mac: all $m_n frames came back" $m_n "$(pcap count "$work/m-mac-out.pcap")"
expect_eq "engine mac: each left vport 0 to its peer (B) and came back to the pcap port's peer" \
	"$m_n $m_n" "$(testpmd_xstat 2 tx_unicast) $(pcap dst "$work/m-mac-out.pcap" "$peer_p")"
run_mode macswap 5 "$work/m-swap-out.pcap"
expect_eq "engine macswap: all $m_n frames came back once, MACs swapped (A, B, A)" \
	"all $m_n back once, MACs swapped" \
	"$(pcap swapped "$work/m-swap.pcap" "$work/m-swap-out.pcap")"
run_mode csum 6 "$work/m-csum-out.pcap"
expect_eq "engine csum: all $m_n frames came back" $m_n "$(pcap count "$work/m-csum-out.pcap")"
expect_eq "engines mac, macswap, csum: vport 0 sent and received $((3 * m_n)) frames, no drop" \
	"tx $((3 * m_n)) rx $((3 * m_n)) drops 0" \
	"tx $(testpmd_xstat 2 tx_unicast) rx $(testpmd_xstat 2 rx_unicast) drops $(( $(testpmd_xstat 2 tx_errors) + $(testpmd_xstat 2 rx_errors) ))"

b0=$(em_counter "$work/fwd.yaml" $FABRIC_B_LID 0 rx_packets)
testpmd_cmd "set fwd txonly"
testpmd_cmd "set portlist 2"
testpmd_cmd "start"
wait_until 10 xstat_reaches 2 tx_unicast $((3 * m_n + 1000))
testpmd_cmd "stop"
tx1=$(testpmd_xstat 2 tx_unicast)
expect_eq "engine txonly: vport 0 sent generated frames to its peer, none without a DLID" \
	"yes dlid0 0" "$([ "$tx1" -ge $((3 * m_n + 1000)) ] && echo yes) dlid0 $(testpmd_xstat 2 tx_dlid_zero)"
b1=$(em_counter "$work/fwd.yaml" $FABRIC_B_LID 0 rx_packets)
expect_eq "engine txonly: B's vport 0 received them (EM counters: at least 1000 more)" yes \
	"$([ "$((b1 - b0))" -ge 1000 ] 2>/dev/null && echo yes)"
rx1=$(testpmd_xstat 2 rx_unicast)
testpmd_cmd "set fwd rxonly"
testpmd_cmd "start"
wait_until 10 xstat_reaches 2 rx_unicast $((rx1 + 100))
testpmd_cmd "stop"
expect_eq "engine rxonly: vport 0 received what B sent back meanwhile, no receive error" \
	"yes errors 0" \
	"$([ "$(testpmd_xstat 2 rx_unicast)" -ge $((rx1 + 100)) ] && echo yes) errors $(testpmd_xstat 2 rx_errors)"
phase_stop
phase_end

########################################################################
# Phase 6: a link flap. The switch's port 0 (node A) is taken down through
# its control FIFO (switch_link a down), as pulling A's cable would: A's
# HFI link goes down, so its VNIC ports lose their carrier (LSC event, link
# down) and drop what they are given to send; A's model re-dials the wire,
# and the switch undoes those connections while the port is admin down.
# Then up again: A's link comes back with no restart of A, and frames make
# the round trip to B. Bad control lines are refused, the switch going on.
# Port 4: frames sent while down; port 5: frames sent once up again.
f_n=100
gen $f_n "$work/f-down.pcap" 61 60 1514 "$mac_b" "$mac_a"
gen $f_n "$work/f-up.pcap" 62 60 1514 "$mac_b" "$mac_a"
pcaps=
for p in down up; do
	pcaps="$pcaps --vdev net_pcap_$p,rx_pcap=$work/f-$p.pcap,tx_pcap=$work/f-$p-out.pcap"
done

# sw_counter PORT|total KEY: a counter of the switch's last answer to "stats".
sw_counter() {
	sed -n '/opa-switch: requested counters/h; /opa-switch: requested counters/!H; ${x;p}' \
		"$work/switch.log" | awk -v p="$1" -v k="$2=" '
		$1 == "port=" p || ($1 == "total" && p == "total") {
			for (f = 2; f <= NF; f++)
				if (index($f, k) == 1) print substr($f, length(k) + 1)
		}'
}
# lines_after FROM LINE: how many switch log lines "opa-switch: LINE" (an
# extended regex) follow the first line matching FROM ('': from the start).
lines_after() {
	awk -v from="$1" -v re="^opa-switch: $2\$" '
		from == "" || on { if ($0 ~ re) n++ }
		from != "" && !on && $0 ~ from { on = 1 }
		END { print n + 0 }' "$work/switch.log"
}
# sw_stats: ask the switch for its counters, until it printed them.
sw_stats() {
	local n
	n=$(grep -c 'requested counters' "$work/switch.log")
	switch_ctl stats && wait_log "$work/switch.log" 'requested counters' 10 $((n + 1)) &&
		wait_log "$work/switch.log" '^total ' 10 $((n + 1))
}
refused_reaches() { # N: the switch undid N or more of A's connections
	sw_stats && [ "$(sw_counter 0 refused)" -ge "$1" ] 2>/dev/null
}
ms_since() { # START (an $EPOCHREALTIME): milliseconds since
	echo $(( (${EPOCHREALTIME/./} - ${1/./}) / 1000 ))
}

phase_start flap
node_a_start "vports=2" "$pcaps" --no-flush-rx --forward-mode=io
start_b --map 2:2,3:3
em apply "$work/fwd.yaml" > /dev/null
expect_eq "flap: opa-em applies the two-vesw config (exit 0)" 0 "$?"
wait_until 5 testpmd_link 2 up
n=$(lsc_events)

# Down: the switch says so twice (the command, then the link), A's vport
# sees its link go down with one LSC event.
t_cmd=$EPOCHREALTIME
switch_link a down
wait_until 10 testpmd_link 2 down
down_ms=$(ms_since "$t_cmd")
expect_eq "flap: down: the switch logs 'port 0 (net_memif0) admin down', then 'link down'" \
	"1 1" "$(lines_after '' 'port 0 [(]net_memif0[)] admin down') $(
	  lines_after 'port 0 [(]net_memif0[)] admin down' 'port 0 [(]net_memif0[)] link down')"
expect_eq "flap: down: A's vport 0 link down (show port info 2)" down "$(testpmd_info 2 'Link status')"
wait_until 5 lsc_after "$n"
expect_eq "flap: down: A logs one 'Port 2: link state change event'" 1 "$(( $(lsc_events) - n ))"
# A's HFI model saw its wire lost and dials again; the switch undoes it.
wait_log "$work/a.log" 'net_hfi1_a: wire link lost: re-dialling' 10
wait_until 10 refused_reaches 1
expect_eq "flap: down: A re-dialled and the admin-down port undid the connection (refused >= 1)" \
	yes "$([ "$(sw_counter 0 refused)" -ge 1 ] 2>/dev/null && echo yes)"
# Frames A is given to send meanwhile are dropped, each counted, none sent.
testpmd_cmd "set portlist 2,4"
testpmd_cmd "start"
wait_until 10 xstat_reaches 2 tx_drop_state $f_n
testpmd_cmd "stop"
expect_eq "flap: down: every frame A sent counts as tx_drop_state, none as sent" \
	"drop_state $f_n unicast 0" \
	"drop_state $(testpmd_xstat 2 tx_drop_state) unicast $(testpmd_xstat 2 tx_unicast)"
expect_eq "flap: down: nothing reached B (its vport 0 rx_packets 0)" 0 \
	"$(em_counter "$work/fwd.yaml" $FABRIC_B_LID 0 rx_packets)"
# The refused connections never showed as a link: still down, no event.
expect_eq "flap: down: A's vport 0 stayed down through the refused re-dials, no other event" \
	"down 1" "$(testpmd_info 2 'Link status') $(( $(lsc_events) - n ))"

# Bad control lines are refused with a reason; the switch goes on.
r0=$(grep -c '^opa-switch: control: refused ' "$work/switch.log")
switch_ctl "bogus"
switch_ctl "link 9 down"
switch_ctl "link 0 sideways"
switch_ctl "link 0"
switch_ctl "$(printf 'link 0 up\001')"
switch_ctl "$(printf '%0300d' 0)"
switch_ctl "# a comment: no answer"
switch_link 0 down
wait_log "$work/switch.log" '^opa-switch: control: refused ' 10 $((r0 + 6))
expect_eq "flap: bad control lines: 6 refused, each with its reason; a second down is a no-op" \
	"unknown command 'bogus'|no port '9'|not 'sideways'|expected: link PORT down|up|byte 0x01 at column 10|longer than 256 bytes|port 0 (net_memif0) is admin down already" \
	"$(grep -o "unknown command 'bogus'" "$work/switch.log" | head -1)|$(grep -o "no port '9'" "$work/switch.log" | head -1)|$(grep -o "not 'sideways'" "$work/switch.log" | head -1)|$(grep -o 'expected: link PORT down|up' "$work/switch.log" | head -1)|$(grep -o 'byte 0x01 at column 10' "$work/switch.log" | head -1)|$(grep -o 'longer than 256 bytes' "$work/switch.log" | head -1)|$(grep -o 'port 0 (net_memif0) is admin down already' "$work/switch.log" | head -1)"

# Up again, by name: the switch says so, A's vport comes back by itself.
t_cmd=$EPOCHREALTIME
switch_link net_memif0 up
wait_until 10 testpmd_link 2 up
up_ms=$(ms_since "$t_cmd")
expect_eq "flap: up: A's vport 0 link up again, A not restarted (show port info 2)" up \
	"$(testpmd_info 2 'Link status')"
wait_until 5 lsc_after $((n + 1))
expect_eq "flap: up: the switch logs 'admin up', then 'link up'; A two events in all" \
	"1 1 2" "$(lines_after '' 'port 0 [(]net_memif0[)] admin up') $(
	  lines_after 'port 0 [(]net_memif0[)] admin up' 'port 0 [(]net_memif0[)] link up') $((
	  $(lsc_events) - n ))"
wait_log "$work/a.log" 'net_hfi1_a: wire link up again' 10
echo "# flap: A's vport 0 seen down ${down_ms} ms after 'link net_memif0 down', up ${up_ms} ms after 'link net_memif0 up'"
# Traffic flows end to end again: every frame to B and back.
testpmd_cmd "set portlist 2,5"
testpmd_cmd "start"
wait_until 20 has_frames "$work/f-up-out.pcap" $f_n
testpmd_cmd "stop"
expect_eq "flap: up: all $f_n frames made the round trip once, MACs swapped" \
	"all $f_n back once, MACs swapped" \
	"$(pcap swapped "$work/f-up.pcap" "$work/f-up-out.pcap")"
expect_eq "flap: up: no frame dropped for the state since (tx_drop_state $f_n)" $f_n \
	"$(testpmd_xstat 2 tx_drop_state)"
# The switch counted one admin down, one up, the refusals, the bad lines.
sw_stats
expect_eq "flap: switch counters: port 0 admin=up admin_downs=1 admin_ups=1; 6 lines refused; 3 link commands" \
	"admin=up admin_downs=1 admin_ups=1 control_refused=6 control_commands=3" \
	"admin=$(sw_counter 0 admin) admin_downs=$(sw_counter 0 admin_downs) admin_ups=$(sw_counter 0 admin_ups) control_refused=$(sw_counter total control_refused) control_commands=$(( $(sw_counter total control_commands) - $(grep -c 'requested counters' "$work/switch.log") ))"
phase_stop
phase_end

########################################################################
# Every phase cleaned up after itself.
left=$(for d in $pdirs; do [ -e "$d" ] && echo "$d"; done
	ls "$work"/*.sock "$work/a.log.in" 2>/dev/null
	ls -d /var/run/dpdk/$prefix-* 2>/dev/null
	pgrep -f -- "--file-prefix $prefix-" || true)
expect_eq "no process, socket, plugin copy or DPDK runtime directory left behind" "" "$left"
echo "# $(( $(date +%s) - t0 )) s"
finish
