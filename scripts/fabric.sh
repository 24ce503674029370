# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# A model Omni-Path fabric of separate processes, for the demo and the
# system tests (sourced, not run):
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
# node_b_start ARGS...; em apply|status FILE; a_cmd "testpmd command";
# a_xstat/a_info (A's counters and port info, read now); fabric_stop;
# b_xstat (B's counters, printed at its exit). fabric_start may follow
# fabric_stop again. Logs: $work/{switch,a,b}.log.

FABRIC_A_LID=1
FABRIC_B_LID=2
FABRIC_EM_LID=100
# memif buffers that hold any 16B packet whole: DPDK 22.11 net_memif can
# send part of a packet that spans buffers when its ring fills up.
FABRIC_BSIZE=10368
fabric_eal="--no-pci --no-huge -m 512 --no-telemetry --log-level=lib.eal:warning"
fabric_eal="$fabric_eal --log-level=pmd.net.memif:error"
sw_pid=
a_pid=
b_pid=
fabric_pdir=

# LMAC of a vport: fabric id, vesw id, LID (as opa-em's "mac: lmac" makes it).
lmac() {
	local v=$(( 2 | ($1 << 2) | ($2 << 12) ))
	printf '%02x:%02x:%02x:%02x:%02x:%02x' $((v & 255)) $(((v >> 8) & 255)) \
		$(((v >> 16) & 255)) $(($3 & 255)) $((($3 >> 8) & 255)) $((($3 >> 16) & 255))
}

# wait_for FILE REGEX [TENTHS]: wait until FILE has a line matching REGEX.
wait_for() {
	local i
	for i in $(seq "${3:-100}"); do
		grep -qE "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "fabric: timed out waiting for /$2/ in $1" >&2
	return 1
}

fabric_start() {
	# Every wire is net_memif (scripts/setup.sh installs it): say so plainly
	# rather than let the switch fail on an unknown vdev.
	if ! compgen -G "/usr/lib/*/dpdk/pmds-*/librte_net_memif.so*" >/dev/null; then
		echo "fabric: DPDK's net_memif PMD is not installed (librte-net-memif23); run scripts/setup.sh" >&2
		return 1
	fi
	# EAL refuses plugins below a world-writable directory (/tmp, /var/tmp):
	# load copies from a private directory.
	fabric_pdir=$(mktemp -d /run/omniplane-pmd.XXXXXX 2>/dev/null ||
		mktemp -d "$HOME/.omniplane-pmd.XXXXXX") || return 1
	chmod 700 "$fabric_pdir"
	cp "$build/drivers/net/hfi1/librte_net_hfi1.so" \
		"$build/drivers/net/opa_vnic/librte_net_opa_vnic.so" "$fabric_pdir/" || return 1
	fabric_plugins="-d $fabric_pdir/librte_net_hfi1.so -d $fabric_pdir/librte_net_opa_vnic.so"
	"$build/app/opa-switch/opa-switch" --lcores 0@0 $fabric_eal --file-prefix "$prefix-sw" \
		--vdev "net_memif0,role=server,socket=$work/sw-a.sock,bsize=$FABRIC_BSIZE" \
		--vdev "net_memif1,role=server,socket=$work/sw-b.sock,bsize=$FABRIC_BSIZE" \
		--vdev "net_memif2,role=server,socket=$work/sw-em.sock,bsize=$FABRIC_BSIZE" -- \
		--route "$FABRIC_A_LID=0" --route "$FABRIC_B_LID=1" --route "$FABRIC_EM_LID=2" \
		--stats-period 0 > "$work/switch.log" 2>&1 &
	sw_pid=$!
	wait_for "$work/switch.log" "forwarding|started|ports" 50 || sleep 1
	[ -S "$work/sw-a.sock" ] || sleep 1
}

# The vdevs of a node: memif to the switch, the HFI model, the VNIC device.
node_vdevs() { # NAME LID SOCK VNIC_ARGS
	echo "--vdev net_memif0,role=client,socket=$work/$3,bsize=$FABRIC_BSIZE" \
		"--vdev net_hfi1_$1,model=1,lid=$2,wire=net_memif0" \
		"--vdev net_opa_vnic_$1,fabric=net_hfi1_$1,$4"
}

# node_a_start VNIC_ARGS EXTRA_EAL -- TESTPMD_ARGS: testpmd, interactive,
# commands from a FIFO (a_cmd). Ports: 2.. are the VNIC vports.
node_a_start() {
	local vargs=$1 extra=$2
	shift 2
	mkfifo "$work/a.in"
	# Keep the FIFO open between commands, read-write: neither opening it
	# nor writing a command to it blocks, even once testpmd is gone.
	exec {a_in}<>"$work/a.in"
	timeout 900 stdbuf -oL dpdk-testpmd --lcores 0@0,1@1 $fabric_eal --file-prefix "$prefix-a" \
		$fabric_plugins $(node_vdevs a $FABRIC_A_LID sw-a.sock "$vargs") $extra -- \
		-i --disable-link-check --total-num-mbufs=32768 "$@" \
		< "$work/a.in" > "$work/a.log" 2>&1 &
	a_pid=$!
	wait_for "$work/a.log" "^testpmd> " 150
}

# a_cmd COMMAND [REGEX]: send a testpmd command; wait for REGEX (default:
# the next prompt).
a_cmd() {
	local n
	kill -0 "$a_pid" 2>/dev/null || return 1
	n=$(grep -o 'testpmd> ' "$work/a.log" | wc -l)
	echo "$1" >&"$a_in"
	if [ -n "${2:-}" ]; then
		wait_for "$work/a.log" "$2" 100
	else
		for _ in $(seq 100); do
			[ "$(grep -o 'testpmd> ' "$work/a.log" | wc -l)" -gt "$n" ] && return 0
			sleep 0.1
		done
		return 1
	fi
}

# a_xstat PORT NAME: an xstat of node A's port, read now (`show port xstats`).
a_xstat() {
	a_cmd "show port xstats $1" || return 1
	awk -v h="NIC extended statistics for port $1 " -v k="$2:" '
		index($0, h) { v = ""; on = 1; next }
		on && /^(testpmd>|#)/ { on = 0 }
		on && $1 == k { v = $2 }
		END { print v }' "$work/a.log"
}

# a_info PORT FIELD: a field of node A's `show port info PORT`, read now
# ("Link status", "MTU", ...).
a_info() {
	a_cmd "show port info $1" || return 1
	awk -v h="Infos for port $1 " -v k="$2: " '
		index($0, h) { v = ""; on = 1; next }
		on && /^testpmd>/ { on = 0 }
		on && index($0, k) == 1 { v = substr($0, length(k) + 1) }
		END { print v }' "$work/a.log"
}

# node_b_start VNIC_ARGS -- L2FWD_ARGS: l2fwd-vnic until SIGINT.
node_b_start() {
	local vargs=$1
	shift
	timeout 900 stdbuf -oL "$build/examples/l2fwd-vnic/l2fwd-vnic" --lcores 0@1,1@0 $fabric_eal \
		--file-prefix "$prefix-b" $fabric_plugins \
		$(node_vdevs b $FABRIC_B_LID sw-b.sock "$vargs") -- "$@" > "$work/b.log" 2>&1 &
	b_pid=$!
}

# b_xstat PORT NAME: an xstat of node B's port, from the list l2fwd-vnic
# --xstats prints at exit (non-zero ones only: 0 when absent).
b_xstat() {
	awk -v h="xstats port $1:" -v k="$2:" '
		$0 == h { on = 1; next }
		on && !/^  / { on = 0 }
		on && $1 == k { v = $2 }
		END { print v + 0 }' "$work/b.log"
}

# em COMMAND CONFIG: opa-em on the switch's third port. Every MAD it sends
# has a deadline, but nothing else bounds a run (EAL start-up, the memif
# connection, exit): 120 s at most, so a stuck EM fails its command with a
# clear message instead of stalling the caller until its test times out.
em() {
	local rc
	timeout -k 5 120 "$build/app/opa-em/opa-em" --lcores 0@0 $fabric_eal \
		--file-prefix "$prefix-em" \
		--vdev "net_memif0,role=client,socket=$work/sw-em.sock,bsize=$FABRIC_BSIZE" -- "$@" 2>&1 |
		grep -v '^rte_pmd_memif_probe'
	rc=${PIPESTATUS[0]}
	[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || echo "fabric: opa-em $1 did not finish in 120 s" >&2
	return "$rc"
}

# reap PID: wait for PID to exit, 30 s at most (a loaded 2-core machine can
# starve an exit for seconds), then kill it and its children (PID may be
# the timeout(1) around a node). Returns its exit status.
reap() {
	local p=$1 rc=0
	for _ in $(seq 300); do
		kill -0 "$p" 2>/dev/null || break
		sleep 0.1
	done
	pkill -KILL -P "$p" 2>/dev/null || true
	kill -KILL "$p" 2>/dev/null || true
	wait "$p" 2>/dev/null || rc=$?
	return $rc
}

# stop_pid PID: SIGINT, then reap.
stop_pid() {
	[ -n "$1" ] || return 0
	kill -INT "$1" 2>/dev/null || true
	reap "$1" || true
}

# Stop everything: memif clients before the switch (net_memif in DPDK 22.11
# can crash a process polling while its peer goes). Sets a_rc and b_rc.
fabric_stop() {
	a_rc=0
	b_rc=0
	if [ -n "$a_pid" ]; then
		echo quit >&"$a_in" 2>/dev/null
		reap "$a_pid" || a_rc=$?
		exec {a_in}>&-
		a_pid=
	fi
	if [ -n "$b_pid" ]; then
		kill -INT "$b_pid" 2>/dev/null || true
		reap "$b_pid" || b_rc=$?
		b_pid=
	fi
	stop_pid "$sw_pid"
	sw_pid=
	rm -rf "/var/run/dpdk/$prefix-sw" "/var/run/dpdk/$prefix-a" "/var/run/dpdk/$prefix-b" \
		"/var/run/dpdk/$prefix-em" "$fabric_pdir" "$work"/*.sock "$work/a.in"
}
