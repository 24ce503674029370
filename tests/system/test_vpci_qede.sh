#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# Debian's net_qede as the judge of the E4 model (doc/e4.md): Debian's
# dpdk-testpmd with libomni_vpci.so preloaded sees one PF of the E4 model
# (1077:8070, vpci's e4 backend) at 0000:00:04.0, bound to "vfio-pci", and
# Debian's unmodified librte_net_qede.so.23.0 (from testpmd's plugin
# directory) probes it: hw_prepare and hw_init with the model's MFW, the
# stand-in init file (build/drivers/net/e4, presented at the path qede opens),
# PF_START, then testpmd's port start (vport and queue ramrods, completed by
# the model without being run), link, port info, close.
#
# The wrong cases: an MFW that answers nothing fails the probe in hw_prepare
# (before qede takes its interrupt: a clean failure); the stand-in without
# ops fails at PF_START (no ILT, no CAU: doc/e4.md finding 1).
#
# Usage: test_vpci_qede.sh SRC_DIR BUILD_DIR [SANITIZE]
set -uo pipefail
. "$1/tests/system/lib.sh"

need_testpmd_plugin "$sanitize"
qede=/usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0/librte_net_qede.so.23.0
[ -e "$qede" ] || { echo "SKIP: no $qede"; exit 77; }

standin=$build/drivers/net/e4/qed_init_values-8.40.33.0.bin
empty=$build/drivers/net/e4/qed_init_values-8.40.33.0-empty.bin
redirect=file=/lib/firmware/qed/qed_init_values-8.40.33.0.bin
# libomni_vpci.so out of any world-writable directory
plugin_copies "$build/tools/vpci/libomni_vpci.so" || exit 1
on_exit 'rm -rf "$plugin_dir"'
# vpci's sysfs trees go to a directory of this run's: checked empty at the end
mkdir -p "$work/tmp"
eal=(--no-huge -m 512 --no-telemetry -a 0000:00:04.0 --log-level='pmd.net.qede*:debug')

# ---- the device as the model sets it up
mac=02:0E:1E:AA:BB:00
TMPDIR=$work/tmp LD_PRELOAD=$plugin_dir/libomni_vpci.so \
VPCI_DEVICES="0000:00:04.0,model=e4,mac=$mac,mfw_version=0x083c0a00,$redirect:$standin" \
testpmd_start 60 "$work/testpmd.log" --file-prefix "$prefix-0" "${eal[@]}" -- \
	-i --total-num-mbufs=2048
log=$work/testpmd.log

expect_eq "EAL probes net_qede on the virtual PF (vfio-pci)" 1 \
	"$(grep -c 'Probe PCI driver: net_qede (1077:8070) device: 0000:00:04.0' "$log")"
# LOAD_REQ: the model answers the engine's first load and echoes the
# driver's storm firmware (8.40.33.0 = its HSI, chosen from fw_ver)
expect_eq "the MFW grants an ENGINE load and runs qede's firmware 8.40.33.0" \
	"resp 0x10100000 exist_fw_ver 0x08282100" \
	"$(grep -o 'Load Response: resp 0x[0-9a-f]*' "$log" | cut -d' ' -f3- | tr '\n' ' ')$(
	   grep -o 'exist_fw_ver 0x[0-9a-f]*' "$log")"
expect_eq "PF_START completes (the model's EQE through the stand-in's ILT and CAU)" 1 \
	"$(grep -c 'Complete EQE \[echo 0000\]' "$log")"
expect_eq "qede initialises the device with the model's MAC" 1 \
	"$(grep -c "MAC address : $mac" "$log")"
expect_eq "the IGU answers qede's SB cleanups (no timeout)" "" \
	"$(grep -m1 'Timeout waiting for clear status' "$log")"

# every ramrod posted is completed: the filter and accept-mode ramrods of
# port start (MODE_CB) only by qede's interrupt handler on MSI-X vector 0
all_done() {
	[ "$(grep -c 'ecore_spq_hw_post.*Doorbelled' "$log")" -eq \
	  "$(grep -c 'ecore_spq_completion.*Complete EQE' "$log")" ]
}
if wait_until 10 all_done; then
	pass "every ramrod completes, the callback ones by MSI-X (vector 0 -> qede's DPC)"
else
	fail "every ramrod completes" "$(grep -c Doorbelled "$log") posted," \
		"$(grep -c 'Complete EQE' "$log") completed"
fi

wait_until 10 testpmd_link 0 up || say "port 0 has no link"
expect_eq "the port's driver" net_qede "$(testpmd_info 0 'Driver name')"
expect_eq "the port's MAC is the model's" "$mac" "$(testpmd_info 0 'MAC address')"
expect_eq "link up" up "$(testpmd_info 0 'Link status')"
# the model's cable: 50G on the AH port (its link_status from INIT_PHY)
expect_eq "at the model's speed" "50 Gbps" "$(testpmd_info 0 'Link speed')"
expect_eq "qede's firmware version and the MFW version the model set" \
	"8.40.33.0 MFW: 8.60.10.0" "$(testpmd_info 0 'Firmware-version')"

testpmd_quit 60
expect_eq "testpmd quits with status 0" 0 "$?"
expect_eq "the port closed (PF_STOP, unload)" 1 "$(grep -c '^Port 0 is closed' "$log")"
expect_eq "no ramrod stuck, no access vpci refused" "" \
	"$(grep -E 'Ramrod is stuck|^vpci: .*(not served|cannot|could not)|refus' "$log")"

# ---- the wrong cases: testpmd with one command (quit), its status
# run_bad NAME DEVARGS: $work/NAME.log, rc in $bad_rc; vpci's sysfs tree in
# $work/tmp-NAME (vpci removes it at exit: an aborted process leaves it)
run_bad() {
	mkdir -p "$work/tmp-$1"
	echo quit | timeout 60 env TMPDIR="$work/tmp-$1" \
		LD_PRELOAD="$plugin_dir/libomni_vpci.so" VPCI_DEVICES="0000:00:04.0,model=e4,$2" \
		dpdk-testpmd --file-prefix "$prefix-$1" "${eal[@]}" -- -i \
		--total-num-mbufs=2048 > "$work/$1.log" 2>&1
	bad_rc=$?
}

# an MFW that answers no mailbox command: hw_prepare fails, before qede
# registers its interrupt callback
run_bad silent "fault=mfw_silent,$redirect:$standin"
expect_eq "a silent MFW: qede's probe fails in hw_prepare" 2 \
	"$(grep -cE 'MFW is not responsive|hw prepare failed' "$work/silent.log")"
expect_eq "... EAL skips the device and testpmd has no port" 2 \
	"$(grep -cE 'Requested device 0000:00:04.0 cannot be used|No probed ethernet devices' \
	   "$work/silent.log")"
expect_eq "... and exits with status 0" 0 "$bad_rc"
expect_eq "... removing its sysfs tree" "" "$(ls -A "$work/tmp-silent")"

# the stand-in without ops: PF_START finds no SPQ context (doc/e4.md finding 1)
run_bad empty "$redirect:$empty"
stuck='Ramrod is stuck \[CID 00000000 cmd 01 proto 08'
expect_eq "no ops in the init file: PF_START is stuck and hw_init fails" 3 \
	"$(grep -cE "$stuck|Function start ramrod failed|Cannot start slowpath" "$work/empty.log")"
expect_eq "... EAL skips the device" 1 \
	"$(grep -c 'Requested device 0000:00:04.0 cannot be used' "$work/empty.log")"
# qede fails here after rte_intr_enable and never unregisters its callback:
# EAL closes the eventfd at release and its interrupt thread may panic on it
# (qede's error path, doc/e4.md); anything else is a failure of ours
if [ "$bad_rc" -eq 0 ] || { [ "$bad_rc" -eq 134 ] &&
	grep -qE 'Error adding fd [0-9]+ epoll_ctl, Bad file descriptor' "$work/empty.log"; }; then
	pass "... testpmd exits 0, or EAL panics on the eventfd qede left registered ($bad_rc)"
	if [ "$bad_rc" -eq 0 ]; then
		expect_eq "... removing its sysfs tree" "" "$(ls -A "$work/tmp-empty")"
	else
		say "testpmd aborted: its sysfs tree stays ($(ls -A "$work/tmp-empty"))"
	fi
else
	fail "... testpmd exits 0 or by EAL's panic on qede's eventfd" "status $bad_rc" \
		"$(tail -5 "$work/empty.log")"
fi

# (EAL's runtime directories go with lib.sh's clean-up of $prefix)
left=$(ls -A "$work/tmp" 2>/dev/null; pgrep -f "file-prefix $prefix" || true)
expect_eq "no sysfs tree or process left behind" "" "$left"
if [ "$failed" -ne 0 ]; then
	echo "# --- testpmd.log (last 40 lines)"
	tail -40 "$log" 2>/dev/null | sed 's/^/# /'
fi
finish
