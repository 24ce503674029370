#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# Boots the guest built by scripts/guest-image.sh under QEMU TCG (KVM does
# not work on our machines), with one virtio-net NIC served by the vhost-user
# backend listening on SOCKET. The guest console (ttyS0) goes to LOG; the
# extra words are appended to the kernel command line (omni.ip=, omni.rc=...,
# see guest-image.sh). The guest powers itself off after printing OMNI-DONE.
#
# GUEST_NETDEV=user   use QEMU's user-mode network instead of vhost-user
#                     (SOCKET is then ignored; the gateway is 10.0.2.2)
# GUEST_MGMT=user     add a second NIC (eth1 in the guest) on QEMU's user-mode
#                     network, for out-of-band TCP: the guest reaches the host's
#                     loopback as 10.0.2.2 (its own address: omni.mgmt=10.0.2.15/24)
# GUEST_TIMEOUT=SECS  kill QEMU after this long (default 300)
#
# Exit status: QEMU's (0 after the guest's poweroff, 124 on timeout).
#
# Usage: scripts/guest-run.sh OUT_DIR SOCKET LOG [kernel cmdline words...]
set -euo pipefail

if [ $# -lt 3 ]; then
	echo "usage: $0 OUT_DIR SOCKET LOG [kernel cmdline words...]" >&2
	exit 2
fi
out=$1
sock=$2
log=$3
shift 3

# shellcheck disable=SC2054 # QEMU options are comma-separated
case ${GUEST_NETDEV:-vhost-user} in
user) net=(-netdev user,id=n0) ;;
vhost-user) net=(-chardev "socket,id=c0,path=$sock" -netdev vhost-user,id=n0,chardev=c0) ;;
*)
	echo "guest-run: GUEST_NETDEV must be user or vhost-user" >&2
	exit 2
	;;
esac

# vhost-user needs guest RAM in shared memory (memfd share=on). On the NIC:
# vectors=0 (INTx) avoids a QEMU 7.2 TCG crash in msix_set_vector_notifiers
# at vhost_net_start; romfile= keeps iPXE from starting the device early.
# -monitor none: nothing reads our stdin.
mgmt=()
case ${GUEST_MGMT:-none} in
none) ;;
user) mgmt=(-netdev user,id=n1 -device virtio-net-pci,netdev=n1,romfile=,vectors=0) ;;
*)
	echo "guest-run: GUEST_MGMT must be none or user" >&2
	exit 2
	;;
esac

status=0
timeout "${GUEST_TIMEOUT:-300}" qemu-system-x86_64 \
	-accel tcg -cpu max -smp 1 -m 512 \
	-object memory-backend-memfd,id=mem,size=512M,share=on \
	-numa node,memdev=mem \
	-nographic -monitor none -no-reboot -serial "file:$log" \
	-kernel "$out/vmlinuz" -initrd "$out/initrd.img" \
	-append "console=ttyS0 quiet panic=-1 $*" \
	"${net[@]}" \
	-device virtio-net-pci,netdev=n0,romfile=,vectors=0 \
	"${mgmt[@]}" ||
	status=$?
exit $status
