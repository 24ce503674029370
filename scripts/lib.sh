# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# Helpers shared by scripts/*.sh and the system tests (sourced, not run):
# set-up and builds; waiting on a condition with a deadline; stopping and
# reaping processes; the one clean-up at exit; plugin copies; an
# interactive dpdk-testpmd driven command by command.

# ensure_setup: run scripts/setup.sh when something it installs is missing.
ensure_setup() {
	if ! "$top/scripts/setup.sh" --check >/dev/null 2>&1; then
		if [ "$(id -u)" -eq 0 ]; then
			"$top/scripts/setup.sh"
		else
			"$top/scripts/setup.sh" --check || true
			echo "$(basename "$0"): setup is incomplete; run 'sudo scripts/setup.sh' once" >&2
			exit 1
		fi
	fi
}

# configure DIR [meson args...]: set up or reconfigure a build directory.
configure() {
	local dir=$1
	shift
	if [ -f "$dir/build.ninja" ]; then
		meson configure "$dir" "$@" >/dev/null
	else
		meson setup "$dir" "$@" >/dev/null
	fi
}

# ---- waiting: on a condition, up to a deadline; never a fixed sleep

# say MESSAGE: a line on stderr naming the script.
say() { echo "$(basename "$0"): $*" >&2; }

# wait_until SECONDS COMMAND...: run COMMAND every 0.1 s until it succeeds;
# status 1 when SECONDS passed first.
wait_until() {
	local end=$(( ${EPOCHREALTIME//[!0-9]/} + $1 * 1000000 ))
	shift
	until "$@"; do
		[ "${EPOCHREALTIME//[!0-9]/}" -ge "$end" ] && return 1
		sleep 0.1
	done
}

# log_has FILE REGEX [COUNT]: FILE has COUNT (default 1) lines matching the
# extended REGEX.
log_has() {
	local n
	n=$(grep -cE -- "$2" "$1" 2>/dev/null)
	[ "${n:-0}" -ge "${3:-1}" ]
}

# wait_log FILE REGEX SECONDS [COUNT]: until FILE has COUNT (1) lines
# matching REGEX; status 1, and says so, when SECONDS passed first.
wait_log() {
	wait_until "$3" log_has "$1" "$2" "${4:-1}" && return 0
	say "no line /$2/ (${4:-1}) in $1 after $3 s"
	return 1
}

# pcap_frames FILE: how many frames FILE holds (0 when it is missing; a
# frame still being written does not count).
pcap_frames() {
	capinfos -c -M "$1" 2>/dev/null | awk '/^Number of packets:/ { n = $4 } END { print n + 0 }'
}

# pcap_has FILE N: FILE holds N frames or more.
pcap_has() { [ "$(pcap_frames "$1")" -ge "$2" ]; }

# ---- processes: stop, reap, and the clean-up at exit

# running PID: PID has not exited (or not been reaped: a child of this
# shell is reaped as it exits). exited PID: the contrary.
running() { kill -0 "$1" 2>/dev/null; }
exited() { ! kill -0 "$1" 2>/dev/null; }

# descendants PID: the processes PID started, and theirs, each on a line.
descendants() {
	local c
	for c in $(pgrep -P "$1"); do
		# the subshell of a $(descendants ...) is a child of this shell
		[ "$c" = "$BASHPID" ] && continue
		echo "$c"
		descendants "$c"
	done
}

# stop_descendants PID: SIGSTOP what PID started, and what that started,
# walking the tree again until it holds no process not yet stopped (one
# that was forking as it was listed); their PIDs in the array stopped.
stop_descendants() {
	local p new
	stopped=()
	while :; do
		new=()
		for p in $(descendants "$1"); do
			[[ " ${stopped[*]} " == *" $p "* ]] || new+=("$p")
		done
		[ ${#new[@]} -eq 0 ] && return 0
		kill -STOP "${new[@]}" 2>/dev/null
		stopped+=("${new[@]}")
	done
}

# kill_tree PID: SIGKILL PID and everything it started (PID may be the
# timeout(1) around a program: the program goes too), stopped first so
# that none of them starts another meanwhile.
kill_tree() {
	kill -STOP "$1" 2>/dev/null
	stop_descendants "$1"
	kill -KILL "$1" "${stopped[@]}" 2>/dev/null
	return 0
}

# reap PID SECONDS: wait for PID, a child of this shell, to exit by itself,
# SECONDS at most; then kill it and what it started, saying so. Its exit
# status; 124 when it had to be killed.
reap() {
	local rc=0
	if ! wait_until "$2" exited "$1"; then
		say "pid $1 ($(ps -o args= -p "$1" | cut -c1-80)) did not exit in $2 s: killed"
		kill_tree "$1"
		wait "$1" 2>/dev/null
		return 124
	fi
	wait "$1" 2>/dev/null || rc=$?
	return $rc
}

# stop PID SECONDS [SIGNAL]: send SIGNAL (default INT), then reap PID.
stop() {
	kill -"${3:-INT}" "$1" 2>/dev/null
	reap "$1" "$2"
}

# on_exit COMMAND: run COMMAND (eval'd) at exit, the last registered first.
#
# The one clean-up at exit (also on SIGINT and SIGTERM, which a test
# runner's timeout sends): the on_exit commands run (on a signal, after
# what is still running was killed, so that they do not wait on it); then
# whatever this shell started and is still running is killed, each named on
# stderr, so that no forgotten child keeps a caller's pipe open; then the
# DPDK runtime directories and plugin copies of $prefix go, and the work
# directory of make_work (KEEP_WORK=1 keeps it and says where).
exit_cmds=()
exit_signal=
on_exit() {
	if [ -z "${exit_trap_set:-}" ]; then
		exit_trap_set=1
		trap exit_cleanup EXIT
		trap 'exit_signal=TERM; exit 143' TERM
		trap 'exit_signal=INT; exit 130' INT
	fi
	[ -n "${1:-}" ] && exit_cmds=("$1" "${exit_cmds[@]}")
	return 0
}

# kill_leftovers: kill what this shell started and is still running, saying
# so; and DPDK processes of this run gone from its tree (their parent died:
# a timeout(1) killed) that still run with its EAL file-prefix.
kill_leftovers() {
	local left=() p i
	stop_descendants $$
	# children before their parents (a program dies with its timeout(1))
	for ((i = ${#stopped[@]} - 1; i >= 0; i--)); do
		left+=("${stopped[i]}")
	done
	[ -n "${prefix:-}" ] && left+=($(pgrep -f -- "--file-prefix $prefix-"))
	for p in "${left[@]}"; do
		[ "$p" != $$ ] && running "$p" || continue
		case $(ps -o stat= -p "$p") in Z*) continue ;; esac  # exited, not reaped yet
		say "killed pid $p, still running at exit: $(ps -o args= -p "$p" | cut -c1-100)"
		kill -KILL "$p" 2>/dev/null
		# reaped here, quietly, when it is a child of this shell
		wait "$p" 2>/dev/null
	done
	return 0
}

exit_cleanup() {
	local rc=$? c
	set +e
	trap - EXIT
	[ -n "$exit_signal" ] && kill_leftovers
	for c in "${exit_cmds[@]}"; do
		eval "$c"
	done
	kill_leftovers
	if [ -n "${prefix:-}" ]; then
		rm -rf /var/run/dpdk/"$prefix"-* /run/omniplane-pmd."$prefix".* \
			"$HOME"/.omniplane-pmd."$prefix".*
	fi
	if [ -n "${work_made:-}" ]; then
		if [ -n "${KEEP_WORK:-}" ]; then
			say "kept the work directory $work"
		else
			rm -rf "$work"
		fi
	fi
	exit "$rc"
}

# make_work NAME: prefix, an EAL file-prefix stem unique to this run
# (omniplane-NAME-PID), and work, a new directory /var/tmp/PREFIX.XXXXXX;
# with the clean-up at exit.
make_work() {
	prefix=omniplane-$1-$$
	work=$(mktemp -d "/var/tmp/$prefix.XXXXXX") || exit 1
	work_made=1
	on_exit
}

# plugin_copies SO...: copies of plugins in a new private directory,
# plugin_dir (EAL refuses a plugin anywhere below a world-writable directory
# such as /tmp or /var/tmp, where a clone may be); plugin_args: the EAL -d
# options loading them. Under /run, or $HOME when /run is not writable;
# named after $prefix, so the clean-up at exit finds it.
plugin_copies() {
	plugin_dir=$(mktemp -d "/run/omniplane-pmd.$prefix.XXXXXX" 2>/dev/null ||
		mktemp -d "$HOME/.omniplane-pmd.$prefix.XXXXXX") || return 1
	chmod 700 "$plugin_dir"
	cp "$@" "$plugin_dir/" || return 1
	plugin_args=()
	for so in "$@"; do
		plugin_args+=(-d "$plugin_dir/$(basename "$so")")
	done
}

# ---- an interactive dpdk-testpmd, one command at a time

testpmd_pid=
testpmd_log=
# testpmd_start SECONDS LOG ARGS...: dpdk-testpmd ARGS (with -i) in the
# background, SECONDS at most, output in LOG, commands from a FIFO; until
# its first prompt.
testpmd_start() {
	local secs=$1
	testpmd_log=$2
	shift 2
	rm -f "$testpmd_log.in"
	mkfifo "$testpmd_log.in" || return 1
	# Keep the FIFO open between commands, read-write: neither opening it
	# nor writing a command to it blocks, even once testpmd is gone.
	exec {testpmd_in}<>"$testpmd_log.in"
	timeout "$secs" stdbuf -oL dpdk-testpmd "$@" < "$testpmd_log.in" > "$testpmd_log" 2>&1 &
	testpmd_pid=$!
	wait_log "$testpmd_log" '^testpmd> ' 60
}

# testpmd_prompts_over N: testpmd printed more than N prompts.
testpmd_prompts_over() {
	[ "$(grep -o 'testpmd> ' "$testpmd_log" | wc -l)" -gt "$1" ]
}

# testpmd_cmd COMMAND [REGEX]: send a command; wait (10 s) for REGEX in the
# log (default: the next prompt).
testpmd_cmd() {
	local n
	running "$testpmd_pid" || return 1
	n=$(grep -o 'testpmd> ' "$testpmd_log" | wc -l)
	echo "$1" >&"$testpmd_in"
	if [ -n "${2:-}" ]; then
		wait_log "$testpmd_log" "$2" 10
	else
		wait_until 10 testpmd_prompts_over "$n"
	fi
}

# testpmd_xstat PORT NAME: an xstat of a port, read now (`show port xstats`).
testpmd_xstat() {
	testpmd_cmd "show port xstats $1" || return 1
	awk -v h="NIC extended statistics for port $1 " -v k="$2:" '
		index($0, h) { v = ""; on = 1; next }
		on && /^(testpmd>|#)/ { on = 0 }
		on && $1 == k { v = $2 }
		END { print v }' "$testpmd_log"
}

# testpmd_info PORT FIELD: a field of `show port info PORT`, read now
# ("Link status", "MTU", ...).
testpmd_info() {
	testpmd_cmd "show port info $1" || return 1
	awk -v h="Infos for port $1 " -v k="$2: " '
		index($0, h) { v = ""; on = 1; next }
		on && /^testpmd>/ { on = 0 }
		on && index($0, k) == 1 { v = substr($0, length(k) + 1) }
		END { print v }' "$testpmd_log"
}

# testpmd_link PORT up|down: the port's link is as said.
testpmd_link() { [ "$(testpmd_info "$1" 'Link status')" = "$2" ]; }

# testpmd_quit SECONDS: quit, and reap it (SECONDS at most). Its exit status.
testpmd_quit() {
	local rc=0
	[ -n "$testpmd_pid" ] || return 0
	echo quit >&"$testpmd_in" 2>/dev/null
	reap "$testpmd_pid" "$1" || rc=$?
	exec {testpmd_in}>&-
	rm -f "$testpmd_log.in"
	testpmd_pid=
	return $rc
}
