# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# A model Omni-Path fabric of separate processes, for the demo and the
# system tests (sourced, not run, after scripts/lib.sh):
#
#   opa-switch  (ports: 0 = node A, 1 = node B, 2 = the EM; LFT by LID)
#     |- node A: net_hfi1 model LID 1 + net_opa_vnic, in Debian's dpdk-testpmd
#     |- node B: net_hfi1 model LID 2 + net_opa_vnic, in examples/l2fwd-vnic
#     `- opa-em  LID 100, run once per command
#
# Every wire is a net_memif link to the switch. Each node's processes get
# one CPU each where possible (2-core machines).
#
# Caller sets: build (build dir), work (a work directory), prefix (a unique
# EAL file-prefix stem). Then: fabric_start; node_a_start ARGS...;
# node_b_start ARGS...; em apply|status FILE; testpmd_cmd "testpmd command",
# testpmd_xstat/testpmd_info (A's counters and port info, read now; see
# scripts/lib.sh); fabric_stop; b_xstat (B's counters, printed at its exit).
# fabric_start may follow fabric_stop again. Logs: $work/{switch,a,b}.log.
#
# RDMA nodes: after fabric_start, rdma_node_start a|b -- BACKEND_ARGS runs
# vhost-user-rdma on that node with vport 0 of its VNIC as the wire (log
# $work/rdma-NAME.log); rdma_node_stop NAME stops it (SIGINT) and says
# whether its exit was clean; vrdma_perf ARGS runs vrdma-perf against them.
#
# Other fabrics: switch_start PORT... -- OPA_SWITCH_ARGS starts a switch of
# named ports; switch_port NAME is the EAL argument of a client of one;
# switch_link_wait waits for a port's link event; switch_stop stops it.

FABRIC_A_LID=1
FABRIC_B_LID=2
FABRIC_EM_LID=100
# memif buffers that hold any 16B packet whole: DPDK 22.11 net_memif can
# send part of a packet that spans buffers when its ring fills up.
FABRIC_BSIZE=10368
fabric_eal="--no-pci --no-huge -m 512 --no-telemetry --log-level=lib.eal:warning"
fabric_eal="$fabric_eal --log-level=pmd.net.memif:error"
sw_pid=
b_pid=

# LMAC of a vport: fabric id, vesw id, LID (as opa-em's "mac: lmac" makes it).
lmac() {
	local v=$(( 2 | ($1 << 2) | ($2 << 12) ))
	printf '%02x:%02x:%02x:%02x:%02x:%02x' $((v & 255)) $(((v >> 8) & 255)) \
		$(((v >> 16) & 255)) $(($3 & 255)) $((($3 >> 8) & 255)) $((($3 >> 16) & 255))
}

# switch_start PORT... [-- OPA_SWITCH_ARGS...]: opa-switch with a net_memif
# server port per name (port i: the i-th name, socket $work/sw-NAME.sock),
# output in $work/switch.log; until it forwards.
switch_start() {
	local vdevs=() i=0
	# Every wire is net_memif (scripts/setup.sh installs it): say so plainly
	# rather than let the switch fail on an unknown vdev.
	if ! compgen -G "/usr/lib/*/dpdk/pmds-*/librte_net_memif.so*" >/dev/null; then
		echo "fabric: DPDK's net_memif PMD is not installed (librte-net-memif23); run scripts/setup.sh" >&2
		return 1
	fi
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		vdevs+=(--vdev "net_memif$i,role=server,socket=$work/sw-$1.sock,bsize=$FABRIC_BSIZE")
		i=$((i + 1))
		shift
	done
	[ $# -gt 0 ] && shift
	"$build/app/opa-switch/opa-switch" --lcores 0@0 $fabric_eal --file-prefix "$prefix-sw" \
		"${vdevs[@]}" -- "$@" > "$work/switch.log" 2>&1 &
	sw_pid=$!
	wait_log "$work/switch.log" '; forwarding$' 60
}

# switch_port NAME: the EAL argument of a net_memif client of port NAME.
switch_port() {
	echo "--vdev net_memif0,role=client,socket=$work/sw-$1.sock,bsize=$FABRIC_BSIZE"
}

# switch_link_wait PORT up|down [COUNT]: until the switch logged COUNT (1)
# times that port PORT's link went up (down).
switch_link_wait() {
	wait_log "$work/switch.log" "^opa-switch: port $1 \\(net_memif$1\\) link $2\$" 60 "${3:-1}"
}

# switch_stop [SIGNAL]: stop the switch (SIGINT by default), after its
# clients (net_memif in DPDK 22.11 can crash a process polling while its
# peer goes). Its exit status.
switch_stop() {
	local rc=0
	[ -n "$sw_pid" ] || return 0
	stop "$sw_pid" 30 "${1:-INT}" || rc=$?
	sw_pid=
	rm -rf "/var/run/dpdk/$prefix-sw" "$work"/sw-*.sock
	return $rc
}

# fabric_start [OPA_SWITCH_ARGS...]: the fabric of the demo: switch ports
# a, b and em, routes by LID (e.g. --pcap FILE captures the wire); private
# copies of our plugins for the nodes.
fabric_start() {
	plugin_copies "$build/drivers/net/hfi1/librte_net_hfi1.so" \
		"$build/drivers/net/opa_vnic/librte_net_opa_vnic.so" || return 1
	switch_start a b em -- --route "$FABRIC_A_LID=0" --route "$FABRIC_B_LID=1" \
		--route "$FABRIC_EM_LID=2" --stats-period 0 "$@"
}

# The vdevs of a node: memif to the switch, the HFI model, the VNIC device.
node_vdevs() { # NAME LID VNIC_ARGS
	echo "$(switch_port "$1")" \
		"--vdev net_hfi1_$1,model=1,lid=$2,wire=net_memif0" \
		"--vdev net_opa_vnic_$1,fabric=net_hfi1_$1,$3"
}

# node_a_start VNIC_ARGS EXTRA_EAL -- TESTPMD_ARGS: testpmd, interactive
# (testpmd_cmd), log $work/a.log. Ports: 2.. are the VNIC vports.
node_a_start() {
	local vargs=$1 extra=$2
	shift 2
	testpmd_start 900 "$work/a.log" --lcores 0@0,1@1 $fabric_eal --file-prefix "$prefix-a" \
		"${plugin_args[@]}" $(node_vdevs a $FABRIC_A_LID "$vargs") $extra -- \
		-i --disable-link-check --total-num-mbufs=32768 "$@"
}

# node_b_start VNIC_ARGS -- L2FWD_ARGS: l2fwd-vnic until SIGINT.
node_b_start() {
	local vargs=$1
	shift
	timeout 900 stdbuf -oL "$build/examples/l2fwd-vnic/l2fwd-vnic" --lcores 0@1,1@0 $fabric_eal \
		--file-prefix "$prefix-b" "${plugin_args[@]}" \
		$(node_vdevs b $FABRIC_B_LID "$vargs") -- "$@" > "$work/b.log" 2>&1 &
	b_pid=$!
}

# b_xstat PORT NAME: an xstat of node B's port, from the list l2fwd-vnic
# --xstats prints at exit (non-zero ones only: 0 when absent).
b_xstat() {
	awk -v h="xstats port $1 " -v k="$2:" '
		index($0, h) == 1 { on = 1; next }
		on && !/^  / { on = 0 }
		on && $1 == k { v = $2 }
		END { print v + 0 }' "$work/b.log"
}

# em COMMAND CONFIG [OPTIONS...]: opa-em, a client of the switch's port em.
# A MAD waits 1 s for its reply and is sent up to 6 times: on two CPUs a
# node's control path has answered after more than opa-em's default 2 s
# (load average 8, RDMA streaming through it). Every MAD has a deadline,
# but nothing else bounds a run (EAL
# start-up, the memif connection, exit): 120 s at most, so a stuck EM fails
# its command with a clear message instead of stalling the caller until its
# test times out.
em() {
	local rc
	timeout -k 5 120 "$build/app/opa-em/opa-em" --lcores 0@0 $fabric_eal \
		--file-prefix "$prefix-em" $(switch_port em) -- --timeout-ms 1000 --retries 5 "$@" 2>&1 |
		grep -v '^rte_pmd_memif_probe'
	rc=${PIPESTATUS[0]}
	[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || echo "fabric: opa-em $* did not finish in 120 s" >&2
	return "$rc"
}

# ---- vhost-user-rdma nodes: RDMA for guests across the fabric

FABRIC_RDMA_MAC_A=02:56:52:44:4d:00
FABRIC_RDMA_MAC_B=02:56:52:44:4d:10
declare -A rdma_pid=()

# rdma_node_start a|b [VNIC_ARGS] -- BACKEND_ARGS...: vhost-user-rdma on
# node a (LID 1) or b (LID 2) with the devices of BACKEND_ARGS (-s SOCKET...;
# device 0's MAC FABRIC_RDMA_MAC_A/B unless --mac says otherwise); its wire
# is vport 0 of the node's net_opa_vnic (VNIC_ARGS, default vports=2). Until
# it serves.
rdma_node_start() {
	local name=$1 lid vargs=vports=2 mac
	shift
	if [ $# -gt 0 ] && [ "$1" != -- ]; then
		vargs=$1
		shift
	fi
	[ "${1:-}" = -- ] && shift
	case $name in
	a) lid=$FABRIC_A_LID mac=$FABRIC_RDMA_MAC_A ;;
	b) lid=$FABRIC_B_LID mac=$FABRIC_RDMA_MAC_B ;;
	*) echo "fabric: no node $name" >&2; return 1 ;;
	esac
	# shellcheck disable=SC2046 # node_vdevs gives separate words
	timeout 900 stdbuf -oL "$build/app/vhost-user-rdma/vhost-user-rdma" -l 0-1 $fabric_eal \
		--log-level=lib.vhost.config:warning --file-prefix "$prefix-$name" \
		"${plugin_args[@]}" $(node_vdevs "$name" "$lid" "$vargs") -- \
		--mac "$mac" --idle-sleep 10 --xstats "$@" > "$work/rdma-$name.log" 2>&1 &
	rdma_pid[$name]=$!
	wait_log "$work/rdma-$name.log" '^serving [0-9]+ device' 60
}

# rdma_node_stop NAME: SIGINT; 0 when it exited 0 with every mbuf back.
rdma_node_stop() {
	local rc=0
	[ -n "${rdma_pid[$1]:-}" ] || return 0
	stop "${rdma_pid[$1]}" 30 || rc=$?
	unset "rdma_pid[$1]"
	rm -rf "/var/run/dpdk/$prefix-$1"
	[ $rc -eq 0 ] || return $rc
	grep -Eq '^mbufs: ([0-9]+) of \1 in the pool$' "$work/rdma-$1.log"
}

# vrdma_perf ARGS...: vrdma-perf (a guest's RDMA, played in one process:
# side A on one device, side B on another), on its own file-prefix.
vrdma_perf_runs=0
vrdma_perf() {
	vrdma_perf_runs=$((vrdma_perf_runs + 1))
	timeout 300 "$build/app/vrdma-perf/vrdma-perf" -l 0-1 $fabric_eal \
		--log-level=lib.vhost.config:warning --file-prefix "$prefix-p$vrdma_perf_runs" -- "$@"
}

# em_serve_start CONFIG [OPTIONS...]: opa-em serve in the background on the
# switch's em port (log $work/em-serve.log), until it serves: it applies
# CONFIG, then keeps the vesws' MAC tables in step with the stations the
# nodes report. Only one EM at a time holds the em port: stop it
# (em_serve_stop) before em apply or em status. Its MADs wait 1 s and are
# sent 6 times: a node starved of CPU (a QEMU guest beside it on two CPUs)
# has answered late.
em_serve_pid=
em_serve_start() {
	local conf=$1
	shift
	timeout -k 5 900 stdbuf -oL "$build/app/opa-em/opa-em" --lcores 0@0 $fabric_eal \
		--file-prefix "$prefix-em" $(switch_port em) -- --poll-ms 500 --timeout-ms 1000 --retries 5 "$@" serve "$conf" \
		> "$work/em-serve.log" 2>&1 &
	em_serve_pid=$!
	wait_log "$work/em-serve.log" '^serving [0-9]+ of [0-9]+ vports' 60
}

# em_serve_stop: SIGINT; its exit status (0: everything applied and served).
em_serve_stop() {
	local rc=0
	[ -n "$em_serve_pid" ] || return 0
	stop "$em_serve_pid" 30 || rc=$?
	em_serve_pid=
	rm -rf "/var/run/dpdk/$prefix-em"
	return $rc
}

# Stop the nodes, the switch stays: node A's testpmd, node B's l2fwd-vnic,
# the RDMA nodes. Sets a_rc and b_rc. A loaded 2-core machine can starve an
# exit for seconds: 30 s each.
fabric_nodes_stop() {
	a_rc=0
	b_rc=0
	em_serve_stop || echo "fabric: opa-em serve did not exit cleanly" >&2
	testpmd_quit 30 || a_rc=$?
	if [ -n "$b_pid" ]; then
		stop "$b_pid" 30 || b_rc=$?
		b_pid=
	fi
	for n in "${!rdma_pid[@]}"; do
		rdma_node_stop "$n" || echo "fabric: node $n's backend did not exit cleanly" >&2
	done
}

# Stop everything: memif clients before the switch. Sets a_rc and b_rc.
fabric_stop() {
	fabric_nodes_stop
	switch_stop
	rm -rf "/var/run/dpdk/$prefix-a" "/var/run/dpdk/$prefix-b" \
		"/var/run/dpdk/$prefix-em" "${plugin_dir:-}"
}

# ---- Link flaps: opa-switch's control FIFO (--control; by default in its
# EAL runtime directory), which it names on its log.

# switch_ctl LINE: one line to the switch's control FIFO (its answer is in
# $work/switch.log); 10 s at most, and never a regular file made in its
# place when the switch has none.
switch_ctl() {
	local fifo
	fifo=$(sed -n 's/^opa-switch: control: \(\/.*\)$/\1/p' "$work/switch.log" 2>/dev/null | tail -1)
	if [ -z "$fifo" ] || [ ! -p "$fifo" ]; then
		echo "fabric: the switch has no control FIFO (see $work/switch.log)" >&2
		return 1
	fi
	timeout 10 bash -c 'printf "%s\n" "$1" > "$2"' _ "$1" "$fifo"
}

# switch_link PORT down|up: take switch port PORT's link down, as pulling
# its cable would, or bring it back. PORT: a name given to switch_start
# (a, b, em for fabric_start's switch), a port id or an ethdev name.
switch_link() {
	local port=$1 arg
	# switch_start's port i is the i-th name: its socket is sw-NAME.sock
	if [ -n "$sw_pid" ] && [ -r "/proc/$sw_pid/cmdline" ]; then
		while IFS= read -r -d '' arg; do
			case $arg in
			net_memif*",socket=$work/sw-$1.sock,"*)
				port=${arg%%,*}
				;;
			esac
		done < "/proc/$sw_pid/cmdline"
	fi
	switch_ctl "link $port $2"
}
