#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# opa-em against a VEMA agent served by vema-host, over a net_memif wire
# between the two processes: bad configuration files are refused before
# anything is sent; apply configures two vports on two vesws (one MAC table
# of 300 entries, three MADs) and verifies; a second apply changes nothing;
# status reads back state and counters (vema-host's synthetic traffic, whose
# figures are worked out below from the counting rules); an unreachable node
# is reported with exit 3 while the others are applied; watch receives the
# MAC-change traps and re-reads the interface lists; serve (two nodes and a
# second, reading EM on opa-switch) puts a MAC one node adds into the other
# node's MAC table, moves it, removes it, and finds a change without a trap.
#
# Usage: test_opa_em.sh SRC_DIR BUILD_DIR
set -uo pipefail
. "$1/tests/system/lib.sh"

em=$build/app/opa-em/opa-em
host=$build/examples/vema-host/vema-host
sock=$work/fabric.sock
eal="--no-huge --no-pci -m 128 --no-shconf --no-telemetry --log-level=pmd.net.memif:error"
em_eal="$eal --file-prefix $prefix-em --vdev net_memif0,role=client,socket=$sock"

run_em() { # run_em ARGS... : stdout+stderr in $out, exit status in $rc
	out=$(timeout 120 "$em" $em_eal -- --timeout-ms ${timeout_ms:-1000} --retries 2 "$@" 2>&1)
	rc=$?
}

# --- 1. bad files: refused with FILE:LINE: key: reason, nothing sent (exit 1
# before the port is even used: no host is listening yet)
bad() { # bad NAME EXPECTED_MESSAGE_PART  (config on stdin)
	cat > "$work/$1.yaml"
	run_em apply "$work/$1.yaml"
	expect_eq "bad config '$1': exit 1" "1" "$rc"
	if echo "$out" | grep -qF -- "$2"; then
		pass "bad config '$1': says '$2'"
	else
		fail "bad config '$1': says '$2'" "$out"
	fi
}
good_head='em: { lid: 1 }
vesws:
  - { id: 10, pkey: 0x8001, mcast_dlid: 0xf00001 }'
bad unknown_key "unknown_key.yaml:3: vesws[0]: unknown key 'mtux'" <<EOF
em: { lid: 1 }
vesws:
  - { id: 10, pkey: 0x8001, mcast_dlid: 0xf00001, mtux: 1500 }
vports: []
EOF
bad vesw_range "vesw_range.yaml:4: vesws[0].id: 5000 is out of range 1..4095" <<EOF
em: { lid: 1 }
vesws:
  - pkey: 0x8001
    id: 5000
    mcast_dlid: 1
vports: []
EOF
bad missing_vesw "missing_vesw.yaml:5: vports[0].vesw: no vesw with id 30" <<EOF
$good_head
vports:
  - { node_lid: 2, index: 0, vesw: 30 }
EOF
bad dup_vport "dup_vport.yaml:6: vports[1].node_lid/index: same as vports[0] at line 5" <<EOF
$good_head
vports:
  - { node_lid: 2, index: 0, vesw: 10 }
  - { node_lid: 2, index: 0, vesw: 10, mac: "02:00:00:00:00:09" }
EOF
bad bad_mac "bad_mac.yaml:8: vports[0].mac_table[0].mac: expected a MAC" <<EOF
$good_head
vports:
  - node_lid: 2
    index: 0
    vesw: 10
    mac_table: [ { mac: "02:00:00:00:00", dlid: 3 } ]
EOF
bad mcast_mac "vports[0].mac: must be a non-zero unicast MAC" <<EOF
$good_head
vports:
  - { node_lid: 2, index: 0, vesw: 10, mac: "03:00:00:00:00:01" }
EOF
bad lmac_lid "lmac_lid.yaml:5: vports[0].mac: a locally administered MAC must carry the vport's LID 2 in bytes 3-5 (it carries 2162688)" <<EOF
$good_head
vports:
  - { node_lid: 2, index: 0, vesw: 10, mac: "02:00:00:00:00:21" }
EOF
bad octal_is_decimal "octal_is_decimal.yaml:5: vports[0].index: 0256 is out of range 0..255" <<EOF
$good_head
vports:
  - { node_lid: 2, index: 0256, vesw: 10 }
EOF
bad port_mask "def_port_mask 0x4 names ports beyond the 2 ucast_dlids" <<EOF
em: { lid: 1 }
vesws:
  - { id: 10, pkey: 0x8001, mcast_dlid: 1, ucast_dlids: [3, 4], def_port_mask: 4 }
vports: []
EOF
bad yaml_syntax "yaml_syntax.yaml:3: YAML:" <<EOF
em: { lid: 1 }
vesws:
  - { id: 10, pkey: [ }
EOF
bad no_em "no_em.yaml:1: em: missing" <<EOF
vesws: []
vports: []
EOF
run_em apply "$work/does-not-exist.yaml"
expect_eq "missing config file: exit 1" "1" "$rc"

# --- the test host, as node LID 2
"$host" $eal --file-prefix $prefix-host \
	--vdev net_memif0,role=server,socket=$sock -- --lid 2 --port-num 1 \
	> "$work/host.out" 2> "$work/host.err" &
host_pid=$!
wait_log "$work/host.out" listening 60

# vport 0 on vesw 10 (default ports 3 and 4, 300 MAC entries: 3 SET MADs),
# vport 1 on vesw 20 (no default ports, no MAC table)
{
	cat <<EOF
em: { lid: 1, pkey: 0xffff, sl: 2 }
vesws:
  - { id: 10, fabric_id: 0x301, pkey: 0x8001, mtu: 1500, mcast_dlid: 0xf00001, ucast_dlids: [3, 4] }
  - { id: 20, fabric_id: 0x301, pkey: 0x8002, mtu: 9000, mcast_dlid: 0xf00002 }
vports:
  - node_lid: 2
    index: 0
    vesw: 10
    port_num: 100
    mac: lmac
    pcp_to_sc_uc: [0, 1, 2, 3, 4, 5, 6, 7]
    mac_table:
EOF
	for i in $(seq 1 300); do
		printf '      - { mac: "02:00:00:%02x:%02x:01", dlid: %d }\n' $((i / 256)) $((i % 256)) $((i + 10))
	done
	cat <<EOF
  - { node_lid: 2, index: 1, vesw: 20, port_num: 101, mac: "00:11:22:00:00:21" }
EOF
} > "$work/two.yaml"

# --- 2. apply
run_em apply "$work/two.yaml"
echo "$out" | grep -v '^EAL' | sed 's/^/# /'
expect_eq "apply: exit 0" "0" "$rc"
expect_eq "apply: both vports applied" \
	"node 2 vport 0: vesw 10 mac 06:AC:00:02:00:00 300 MAC entries: applied|node 2 vport 1: vesw 20 mac 00:11:22:00:00:21 0 MAC entries: applied" \
	"$(echo "$out" | grep -E '^node 2 vport' | paste -sd'|')"
# 2 CPI + per vport: SET info, 17 reads, writes, 17 reads back, GET info
expect_eq "apply: 3 MAC SETs for 300 entries, one read-back, none given up" \
	"opa-em: requests 60, timeouts 0" \
	"$(echo "$out" | grep -o '^opa-em: requests [0-9]*' ), $(echo "$out" | grep -o 'timeouts [0-9]*')"

run_em apply "$work/two.yaml"
expect_eq "second apply: exit 0" "0" "$rc"
expect_eq "second apply: nothing to write, no read-back (2 CPI + 2 x 19 requests)" \
	"opa-em: requests 40" "$(echo "$out" | grep -o '^opa-em: requests [0-9]*')"

# --- 3. status
run_em status "$work/two.yaml"
echo "$out" | grep -E '^(vport|summary|errors)' | sed 's/^/# /'
expect_eq "status: exit 0" "0" "$rc"
field() { # field LINE_PREFIX INDEX KEY
	echo "$out" | grep -E "^$1 node=2 index=$2 " | tr ' ' '\n' | grep "^$3=" | cut -d= -f2
}
expect_eq "status: vport 0 forwarding, link up, LMAC, MTU 1500" \
	"forwarding up 06:AC:00:02:00:00 1500" \
	"$(field vport 0 oper) $(field vport 0 link) $(field vport 0 mac) $(field vport 0 mtu)"
expect_eq "status: vport 1 on vesw 20 with MTU 9000" "20 9000" \
	"$(field vport 1 vesw) $(field vport 1 mtu)"
expect_eq "status: the EM's port numbers come back in the counters header" "100 101" \
	"$(field summary 0 veswport_num) $(field summary 1 veswport_num)"
# vport 0: 10 x 60 B broadcast, 5 x 1000 B to an LMAC, 3 x 200 B through
# default ports: 18 packets, bytes 10*64 + 5*1004 + 3*204 = 6272
expect_eq "status: vport 0 tx counters (FCS in bytes, size buckets, classes)" \
	"18 6272 10 8 10 3 5 0" \
	"$(for k in tx_packets tx_bytes tx_mcastbcast tx_unicast tx_64 tx_128_255 tx_512_1023 tx_errors; do printf '%s ' "$(field summary 0 $k)"; done | sed 's/ $//')"
# vport 1 has no default ports: the 3 global unicast frames are tx_dlid_zero
expect_eq "status: vport 1 global unicast without default ports is tx_dlid_zero" \
	"15 5660 3 3" \
	"$(field summary 1 tx_packets) $(field summary 1 tx_bytes) $(field errors 1 tx_dlid_zero) $(field errors 1 tx_errors)"
expect_eq "status: rx counters (4 x 1500 B tagged)" "4 6016 4 4" \
	"$(field summary 0 rx_packets) $(field summary 0 rx_bytes) $(field summary 0 rx_vlan) $(field summary 0 rx_1024_1518)"

# --- 4. an unreachable node: reported, exit 3, the reachable vport still applied
{
	cat "$work/two.yaml" | sed '/^  - { node_lid: 2, index: 1/d'
	echo '  - { node_lid: 9, index: 0, vesw: 20, mac: "00:11:22:00:00:99" }'
} > "$work/unreachable.yaml"
timeout_ms=200 run_em apply "$work/unreachable.yaml"
expect_eq "unreachable node: exit 3" "3" "$rc"
expect_eq "unreachable node: named, and its vport skipped" \
	"node 9: GET ClassPortInfo: no reply after 3 tries|node 9 vport 0: skipped: node unreachable" \
	"$(echo "$out" | grep -E '^node 9' | paste -sd'|')"
expect_eq "unreachable node: the reachable vport is still applied" "1" \
	"$(echo "$out" | grep -c '^node 2 vport 0: .*applied')"

# --- 5. watch: traps from the host's MAC-list change, lists re-read
timeout 60 "$em" $em_eal -- --timeout-ms 1000 --retries 2 --count 2 --seconds 30 \
	watch "$work/two.yaml" > "$work/watch.out" 2>&1 &
watch_pid=$!
# "watching" comes once opa-em saw its link up and set the node's trap LID
# (a SET answered by the host): the link is up on both sides
wait_log "$work/watch.out" '^watching' 60
kill -USR1 $host_pid
wait $watch_pid
rc=$?
grep -vE '^EAL|memif' "$work/watch.out" | sed 's/^/# /'
expect_eq "watch: exit 0 after 2 traps" "0" "$rc"
expect_eq "watch: a unicast MAC-change trap per vport, from LID 2, OPA port 1" \
	"trap node=2 index=0 vesw=10 fabric=769 veswport_num=100 opa_port=1 opcode=ucast_mac_change|trap node=2 index=1 vesw=20 fabric=769 veswport_num=101 opa_port=1 opcode=ucast_mac_change" \
	"$(grep '^trap' "$work/watch.out" | sed 's/ tid=.*//' | sort | paste -sd'|')"
expect_eq "watch: the interface lists re-read, with the new MAC" \
	"ucast_macs node=2 index=0 gen=1 total=1 macs=02:EE:00:00:00:01|ucast_macs node=2 index=1 gen=1 total=1 macs=02:EE:00:01:00:01" \
	"$(grep '^ucast_macs' "$work/watch.out" | sort | paste -sd'|')"

# --- 6. a hostile node: MAC-table replies claiming more entries than asked
# are refused (exit 2), never copied
stop $host_pid 60 TERM
mv "$work/host.err" "$work/host1.err"
"$host" $eal --file-prefix $prefix-host \
	--vdev net_memif0,role=server,socket=$sock -- --lid 2 --port-num 1 \
	--lie-mac-count 65535 > "$work/liar.out" 2> "$work/liar.err" &
host_pid=$!
wait_log "$work/liar.out" listening 60
run_em apply "$work/two.yaml"
expect_eq "hostile node: apply exits 2" "2" "$rc"
expect_eq "hostile node: the bad reply is named, both vports FAILED" \
	"node 2 vport 0: GET VESWPORT_MAC_ENTRIES: reply covers 0+65535, asked 0+125|node 2 vport 0: vesw 10 mac 06:AC:00:02:00:00 300 MAC entries: FAILED|node 2 vport 1: GET VESWPORT_MAC_ENTRIES: reply covers 0+65535, asked 0+125|node 2 vport 1: vesw 20 mac 00:11:22:00:00:21 0 MAC entries: FAILED" \
	"$(echo "$out" | grep -E '^node 2 vport' | paste -sd'|')"
stop $host_pid 60 TERM
mv "$work/host1.err" "$work/host.err"

# --- the host: no request was dropped or malformed
grep -v '^EAL' "$work/host.err" | sed 's/^/# /'
# the wire is shared: node 9's 3 tries reach LID 2, which must ignore them
expect_eq "host: only the requests for LID 9 dropped (as wrong_dest)" \
	"not_fm 0 wrong_dest 3 short 0 base_version 0" \
	"$(grep -o 'not_fm [0-9]* wrong_dest [0-9]* short [0-9]* base_version [0-9]*' "$work/host.err")"
expect_eq "host: every reply carried status 0" "(errors 0)" \
	"$(grep -o '(errors [0-9]*)' "$work/host.err")"

# --- 7. serve: two nodes (LIDs 2 and 3), the serving EM (LID 1) and a
# second EM that only reads (LID 9), each a client of opa-switch
# (scripts/fabric.sh). A MAC a node's vport adds (vema-host SIGUSR1) must
# reach the other node's vport of the same vesw as a MAC-table entry with
# that node's LID, read back with GETs by the second EM.
. "$src/scripts/fabric.sh"
serve_pid=
hosts=()
on_exit '[ -n "$serve_pid" ] && stop "$serve_pid" 30; for p in "${hosts[@]}"; do stop "$p" 30 TERM; done; switch_stop TERM'
switch_start em n2 n3 rd -- --route 1=0 --route 2=1 --route 3=2 --route 9=3 --stats-period 0
for lid in 2 3; do
	"$host" $fabric_eal --file-prefix "$prefix-n$lid" $(switch_port "n$lid") -- --lid $lid \
		> "$work/n$lid.out" 2> "$work/n$lid.err" &
	hosts+=($!)
	wait_log "$work/n$lid.out" listening 60
	switch_link_wait $((lid - 1)) up
done
n2_pid=${hosts[0]}
n3_pid=${hosts[1]}
# vesw 10 on both nodes (node 3's vport with a static entry), vesw 20 on node 3 only
cat > "$work/serve.yaml" <<YAML
em: { lid: 1 }
vesws:
  - { id: 10, pkey: 0x8001, mcast_dlid: 0xf00001, ucast_dlids: [2, 3] }
  - { id: 20, pkey: 0x8002, mcast_dlid: 0xf00002 }
vports:
  - { node_lid: 2, index: 0, vesw: 10 }
  - { node_lid: 3, index: 0, vesw: 10, mac_table: [ { mac: "02:00:00:00:00:99", dlid: 7 } ] }
  - { node_lid: 3, index: 1, vesw: 20 }
YAML
sed 's/^em: { lid: 1 }/em: { lid: 9 }/' "$work/serve.yaml" > "$work/reader.yaml"

# serve_start OUT POLL_MS [CONFIG]: opa-em serve in the background (on
# serve.yaml), until it serves
serve_start() {
	timeout -k 5 300 "$em" --lcores 0@0 $fabric_eal --file-prefix "$prefix-em" \
		$(switch_port em) -- --timeout-ms 1000 --retries 2 --poll-ms "$2" \
		serve "$work/${3:-serve.yaml}" > "$work/$1" 2>&1 &
	serve_pid=$!
	wait_log "$work/$1" '^serving' 60
}
# serve_hup: SIGHUP to opa-em itself (timeout, its parent, would pass it
# on and then kill it after its -k delay)
serve_hup() {
	kill -HUP $(pgrep -P "$serve_pid")
}
# serve_stop: SIGINT, its exit status in $rc
serve_stop() {
	stop "$serve_pid" 60 INT
	rc=$?
	serve_pid=
}
# reader ARGS...: the second EM (LID 9) on $reader_cfg (reader.yaml);
# output in $out, exit status in $rc
reader_cfg=reader.yaml
reader() {
	out=$(timeout -k 5 120 "$em" --lcores 0@0 $fabric_eal --file-prefix "$prefix-rd" \
		$(switch_port rd) -- --timeout-ms 1000 --retries 2 "$@" "$work/$reader_cfg" 2>&1)
	rc=$?
}
# tables: every vport's MAC-table entries, read with GETs by the second EM,
# as "NODE/INDEX MAC DLID" joined by '|'
tables() {
	reader table
	echo "$out" | grep '^entry ' |
		sed -E 's#^entry node=([0-9]+) index=([0-9]+) slot=[0-9]+ mac=([^ ]+) dlid=([0-9]+).*#\1/\2 \3 \4#' |
		paste -sd'|'
}
# serve_counters OUT KEY...: "KEY=VALUE ..." from serve's closing line
serve_counters() {
	local o=$1 k
	shift
	for k in "$@"; do
		grep '^serve:' "$work/$o" | tr ' ' '\n' | grep "^$k="
	done | paste -sd' '
}
mac_a=02:EE:00:00:00:01   # what SIGUSR1 adds to a node's vport 0
table_line='^node 3 vport 0: MAC table: 1 static \+'

# 7a. traps: the poll period (10 min) cannot be what finds the changes
serve_start serve1.out 600000
expect_eq "serve: applies first, then serves every vport" \
	"serving 3 of 3 vports: traps to LID 1, lists read every 600000 ms" \
	"$(grep '^serving' "$work/serve1.out")"
kill -USR1 $n2_pid
wait_log "$work/serve1.out" "$table_line 1 learned" 30
expect_eq "serve: node 2's new MAC learned on vesw 10 at DLID 2" \
	"learned vesw=10 mac=$mac_a dlid=2 (node 2 vport 0)" "$(grep '^learned' "$work/serve1.out")"
expect_eq "serve: read back: node 3's vport 0 holds it with DLID 2 after its static entry; node 2's own table and vesw 20 get nothing" \
	"3/0 02:00:00:00:00:99 7|3/0 $mac_a 2" "$(tables)"
# node 3 now lists the same MAC on its vport 0 (the station moved there),
# and one on vport 1 (vesw 20, where it is alone)
kill -USR1 $n3_pid
wait_log "$work/serve1.out" '^moved' 30
wait_log "$work/serve1.out" "$table_line 0 learned" 30
expect_eq "serve: a MAC on two nodes, the latest wins: moved, and said once as a conflict" \
	"moved vesw=10 mac=$mac_a dlid=3 (node 3 vport 0, was node 2 vport 0)|conflict vesw=10 mac=$mac_a: node 3 vport 0 reported it last, node 2 vport 0 also reports it" \
	"$(grep -E '^(moved|conflict)' "$work/serve1.out" | paste -sd'|')"
expect_eq "serve: read back: no vport holds a MAC it lists itself" \
	"3/0 02:00:00:00:00:99 7" "$(tables)"
# node 3 clears its lists: the station is node 2's again
kill -USR2 $n3_pid
wait_log "$work/serve1.out" '^moved' 30 2
wait_log "$work/serve1.out" "$table_line 1 learned" 30 2
expect_eq "serve: read back: node 3's vport 0 names node 2 again" \
	"3/0 02:00:00:00:00:99 7|3/0 $mac_a 2" "$(tables)"
# node 2's list shrinks: the entry goes from node 3's table
kill -USR2 $n2_pid
wait_log "$work/serve1.out" "^forgot vesw=10 mac=$mac_a" 30
wait_log "$work/serve1.out" "$table_line 0 learned" 30 2
expect_eq "serve: read back: the entry removed, the static one kept" \
	"3/0 02:00:00:00:00:99 7" "$(tables)"
serve_stop
grep -vE '^EAL|memif' "$work/serve1.out" | sed 's/^/# /'
expect_eq "serve: SIGINT ends it with exit 0" "0" "$rc"
expect_eq "serve: what it learned and forgot, the rules it applied, the traps that asked" \
	"learned=2 forgot=2 moved=2 static_wins=0 conflicts=1 over_limit=0 ignored=0 list_errors=0 table_errors=0 traps=6" \
	"$(serve_counters serve1.out learned forgot moved static_wins conflicts over_limit ignored \
		list_errors table_errors traps)"
expect_eq "serve: every request answered" "timeouts 0" \
	"$(grep -o 'timeouts [0-9]*' "$work/serve1.out")"

# 7b. a lost trap: the second EM points the nodes' traps at itself (watch
# sets ClassPortInfo), so serve hears none; its poll (500 ms) still finds
# the change
serve_start serve2.out 500
reader --seconds 1 watch
expect_eq "serve: the second EM takes the traps (watch, exit 0)" "0" "$rc"
kill -USR1 $n2_pid
wait_log "$work/serve2.out" "$table_line 1 learned" 30
expect_eq "serve: without a trap, a poll learns it" \
	"learned vesw=10 mac=$mac_a dlid=2 (node 2 vport 0)" "$(grep '^learned' "$work/serve2.out")"
expect_eq "serve: read back after the poll: node 3's vport 0 holds it" \
	"3/0 02:00:00:00:00:99 7|3/0 $mac_a 2" "$(tables)"
serve_stop
expect_eq "serve: SIGINT, exit 0; no trap reached it" "0 traps=0" \
	"$rc $(serve_counters serve2.out traps)"

# 7c. a node that starts after serve, then restarts. hup.yaml: node 2's
# vport 2 and node 3's vport 0 (a static entry) on vesw 10, node 3's
# vport 1 alone on vesw 20; vema-host lists 02:EE:00:I:00:n on its vport
# I, so every vport here lists MACs of its own.
m22=02:EE:00:02:00:01 m30=02:EE:00:00:00:01 m31=02:EE:00:01:00:01
n3_start() { # n3_start LOG: node 3 (again) as hosts[1], until it listens
	"$host" $fabric_eal --file-prefix "$prefix-n3" $(switch_port n3) -- --lid 3 \
		> "$work/$1.out" 2> "$work/$1.err" &
	n3_pid=$!
	hosts[1]=$n3_pid
	wait_log "$work/$1.out" listening 60
}
stop $n3_pid 30 TERM
switch_link_wait 2 down
cat > "$work/hup.yaml" <<YAML
em: { lid: 1 }
vesws:
  - { id: 10, pkey: 0x8001, mcast_dlid: 0xf00001, ucast_dlids: [2, 3] }
  - { id: 20, pkey: 0x8002, mcast_dlid: 0xf00002 }
vports:
  - { node_lid: 2, index: 2, vesw: 10 }
  - { node_lid: 3, index: 0, vesw: 10, mac_table: [ { mac: "02:00:00:00:00:99", dlid: 7 } ] }
  - { node_lid: 3, index: 1, vesw: 20 }
YAML
sed 's/^em: { lid: 1 }/em: { lid: 9 }/' "$work/hup.yaml" > "$work/reader-hup.yaml"
reader_cfg=reader-hup.yaml
serve_start serve3.out 500 hup.yaml
expect_eq "serve: node 3 is not up: node 2's vport alone is served, node 3 is asked at each poll" \
	"serving 1 of 3 vports: traps to LID 1, lists read every 500 ms|node 3: not answering: asked again at each poll (one try); its vports wait" \
	"$(grep -E '^(serving|node 3: not answering)' "$work/serve3.out" | paste -sd'|')"
kill -USR1 $n2_pid
wait_log "$work/serve3.out" "^learned vesw=10 mac=$m22 dlid=2 \(node 2 vport 2\)" 30
n3_start n3-late
wait_log "$work/serve3.out" "$table_line 1 learned" 30
lm30=$(lmac 0 10 3) lm31=$(lmac 0 20 3)
expect_eq "serve: node 3, started after serve, is applied at a poll" \
	"node 3: answers: applying its 2 vports not applied yet|node 3 vport 0: vesw 10 mac ${lm30^^}: configured|node 3 vport 1: vesw 20 mac ${lm31^^}: configured" \
	"$(grep -E '^node 3(: answers|: lost| vport [01]: vesw)' "$work/serve3.out" | paste -sd'|')"
expect_eq "serve: read back: the late node's vport 0 holds its static entry and node 2's station" \
	"3/0 02:00:00:00:00:99 7|3/0 $m22 2" "$(tables)"
# node 3 restarts: back with the agent's power-on defaults (no vport, traps
# pointed nowhere); a poll finds it and applies it again, table included
stop $n3_pid 30 TERM
n3_start n3-restarted
wait_log "$work/serve3.out" '^node 3: lost its configuration' 30
wait_log "$work/serve3.out" "$table_line 1 learned" 30 2
expect_eq "serve: the restarted node is found without its configuration, and said so" \
	"node 3: lost its configuration (vport 0 is DROP_ALL): applying again" \
	"$(grep '^node 3: lost' "$work/serve3.out")"
expect_eq "serve: read back: the restarted node's vport 0 holds its static entry and node 2's station again" \
	"3/0 02:00:00:00:00:99 7|3/0 $m22 2" "$(tables)"
# node 3 stops long enough for serve to notice (a poll's GET unanswered):
# asked once a poll from then on; back, it answers and is applied again
lines() { grep -cE -- "$1" "$work/serve3.out"; }
down=$(lines '^node 3: not answering') back=$(lines '^node 3: answers again')
tbl=$(lines "$table_line 1 learned")
stop $n3_pid 30 TERM
wait_log "$work/serve3.out" '^node 3: not answering' 30 $((down + 1))
n3_start n3-back
wait_log "$work/serve3.out" '^node 3: answers again' 30 $((back + 1))
wait_log "$work/serve3.out" "$table_line 1 learned" 30 $((tbl + 1))
expect_eq "serve: a node that stopped answering is said once, asked at each poll, and applied again when back" \
	"node 3: not answering: asked again at each poll (one try); its vports wait|node 3: answers again|node 3: lost its configuration (vport 0 is DROP_ALL): applying again" \
	"$(grep -E '^node 3: (not answering|answers again|lost)' "$work/serve3.out" | tail -3 | paste -sd'|')"
expect_eq "serve: read back: the node back holds its static entry and node 2's station again" \
	"3/0 02:00:00:00:00:99 7|3/0 $m22 2" "$(tables)"
reader status
expect_eq "serve: both vports of the restarted node forwarding again, on their vesws" \
	"vesw=10 config=forwarding|vesw=20 config=forwarding" \
	"$(echo "$out" | grep -E '^vport node=3 ' | grep -oE 'vesw=[0-9]+ mac=[^ ]+ config=[a-z_]+' | sed 's/ mac=[^ ]*//' | paste -sd'|')"

# 7d. SIGHUP: node 2's vport 2 moves from vesw 10 to vesw 20, whose MTU
# becomes 9000. Before: vesw 10 = {2/2, 3/0}, vesw 20 = {3/1}; after:
# vesw 10 = {3/0}, vesw 20 = {2/2, 3/1}.
kill -USR1 $n3_pid
wait_log "$work/serve3.out" '^node 2 vport 2: MAC table: 0 static \+ 1 learned' 30
expect_eq "serve: read back before the reload: 2/2 and 3/0 learn each other's station, 3/1 none" \
	"2/2 $m30 3|3/0 02:00:00:00:00:99 7|3/0 $m22 2" "$(tables)"
sed -i -e 's/{ node_lid: 2, index: 2, vesw: 10 }/{ node_lid: 2, index: 2, vesw: 20 }/' \
	-e 's/mcast_dlid: 0xf00002 }/mcast_dlid: 0xf00002, mtu: 9000 }/' "$work/hup.yaml"
serve_hup
wait_log "$work/serve3.out" '^reloaded' 30
wait_log "$work/serve3.out" '^node 2 vport 2: MAC table: 0 static \+ 1 learned' 30 2
wait_log "$work/serve3.out" '^node 3 vport 1: MAC table: 0 static \+ 1 learned' 30
wait_log "$work/serve3.out" "$table_line 0 learned" 30
lm22=$(lmac 0 10 2) lm22b=$(lmac 0 20 2)
expect_eq "serve: SIGHUP: what changed is said, applied, and the stations follow the vesws" \
	"reload: node 2 vport 2: vesw.vesw_id 0xa -> 0x14, vesw.def_port_mask 0x3 -> 0x0, vesw.pkey 0x8001 -> 0x8002, vesw.u_mcast_dlid 0xf00001 -> 0xf00002, vesw.u_ucast_dlid[0] 0x2 -> 0x0, vesw.u_ucast_dlid[1] 0x3 -> 0x0, vesw.eth_mtu 0x5dc -> 0x2328, port.base_mac_addr $lm22 -> $lm22b|reload: node 3 vport 1: vesw.eth_mtu 0x5dc -> 0x2328|reloaded $work/hup.yaml: 3 vports: 2 changed, 0 added, 0 removed, 0 static tables changed|node 2 vport 2: vesw 20 mac ${lm22b^^}: configured|node 3 vport 1: vesw 20 mac ${lm31^^}: configured|forgot vesw=10 mac=$m22 (was node 2 vport 2)|learned vesw=20 mac=$m22 dlid=2 (node 2 vport 2)" \
	"$(sed -n '/^reload: /,$p' "$work/serve3.out" | grep -E '^(reload|node [23] vport [0-9]: vesw|forgot|learned)' | paste -sd'|')"
expect_eq "serve: read back after the reload: the moved vport learns vesw 20's station, its old peer forgets it, its new peer learns it" \
	"2/2 $m31 3|3/0 02:00:00:00:00:99 7|3/1 $m22 2" "$(tables)"
reader status
expect_eq "serve: after the reload, the moved vport and its new peer on vesw 20 with MTU 9000" \
	"2/2 vesw=20 mtu=9000|3/0 vesw=10 mtu=1500|3/1 vesw=20 mtu=9000" \
	"$(echo "$out" | grep '^vport ' | sed -E 's#^vport node=([0-9]+) index=([0-9]+) vesw=([0-9]+) .* mtu=([0-9]+) .*#\1/\2 vesw=\3 mtu=\4#' | paste -sd'|')"
# a broken file: refused with its line, the configuration served stays
cp "$work/hup.yaml" "$work/hup-good.yaml"
sed -i 's/mtu: 9000 }/mtux: 9000 }/' "$work/hup.yaml"
serve_hup
wait_log "$work/serve3.out" '^reload refused' 30
expect_eq "serve: SIGHUP with a broken file: refused with FILE:LINE, key and reason" \
	"reload refused: $work/hup.yaml:4: vesws[1]: unknown key 'mtux' (the configuration loaded before stays)" \
	"$(grep '^reload refused' "$work/serve3.out")"
# serve goes on with what it had: node 3 clears its lists, vesw 20's
# station of node 3 leaves node 2's table
kill -USR2 $n3_pid
wait_log "$work/serve3.out" '^node 2 vport 2: MAC table: 0 static \+ 0 learned' 30
expect_eq "serve: after the refused reload, serving goes on: node 2's vport forgets node 3's station" \
	"3/0 02:00:00:00:00:99 7|3/1 $m22 2" "$(tables)"
serve_stop
grep -vE '^EAL|memif' "$work/serve3.out" | sed 's/^/# /'
expect_eq "serve: SIGINT; exit 3 (node 3 did not answer at the start)" "3" "$rc"
expect_eq "serve: twice two vports found without their configuration, five node applies (late, restarted, back, reload of two nodes), one reload, one refused" \
	"lost_configs=4 node_applies=5 reloads=1 reload_errors=1" \
	"$(serve_counters serve3.out lost_configs node_applies reloads reload_errors)"
finish
