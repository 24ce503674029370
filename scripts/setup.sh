#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# One-time (idempotent) machine setup for omniplane on Debian 12, as root:
#   1. Debian packages the build, tests, fuzzers and tools need;
#   2. DPDK's driver-SDK headers, taken from Debian's own dpdk source package
#      of exactly the installed version (Debian's libdpdk-dev does not ship
#      them), into the git-ignored .sdk/ directory of this checkout;
#   3. the QEMU test guest (scripts/guest-image.sh) in .sdk/guest;
#   4. 2 MB hugepages and a hugetlbfs mount, when the kernel allows it;
#   5. the E4 firmware init-values files (net_e4): Debian's firmware-qlogic
#      from the non-free-firmware component, downloaded through a private apt
#      configuration (the system's sources stay as they are), SHA-256 checked
#      and unpacked (never installed) into .sdk/firmware-qlogic.
#
# Usage: scripts/setup.sh [--check | --firmware]
#   --check     only report what is missing; exit 1 if anything is.
#   --firmware  step 5 alone.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
sdk_root="$top/.sdk"

packages=(
	dpdk dpdk-dev libdpdk-dev libnuma-dev
	meson ninja-build pkg-config gcc
	libcmocka-dev libpcap-dev libyaml-dev tshark
	clang libclang-rt-14-dev
	python3-pyelftools dpkg-dev
	# the demo's and system tests' wires (net_memif, DPDK 22.11's ABI 23):
	# named, not left to libdpdk-dev's dependencies
	librte-net-memif23
	libisal-dev zlib1g-dev # RoCE ICRC (lib/roce): ISA-L's CRC-32, zlib as the independent check
	qemu-system-x86 # the vhost-user-rdma guest test (TCG); its kernel and tools: step 3
	doxygen # the API reference of the public headers (meson test doc_doxygen)
)

# The seven headers a PMD needs and Debian does not install, with their
# path inside DPDK's source tree.
sdk_headers=(
	lib/eal/include/bus_driver.h
	lib/eal/include/dev_driver.h
	lib/ethdev/ethdev_driver.h
	lib/ethdev/ethdev_pci.h
	lib/ethdev/ethdev_vdev.h
	drivers/bus/vdev/bus_vdev_driver.h
	drivers/bus/pci/bus_pci_driver.h
)

log() { echo "setup: $*"; }

missing_packages() {
	local p
	for p in "${packages[@]}"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed$' || echo "$p"
	done
}

# Upstream DPDK version of the installed libdpdk-dev, e.g. 22.11.11.
dpdk_upstream_version() {
	dpkg-query -W -f='${Version}\n' libdpdk-dev 2>/dev/null | sed -e 's/^[0-9]*://' -e 's/-[^-]*$//'
}

sdk_dir() {
	echo "$sdk_root/dpdk-$(dpdk_upstream_version)/include"
}

sdk_complete() {
	local d h
	d=$(sdk_dir)
	for h in "${sdk_headers[@]}"; do
		[ -s "$d/$(basename "$h")" ] || return 1
	done
}

# The QEMU test guest (scripts/guest-image.sh): Debian's kernel and a busybox
# initramfs with rdma_rxe, the rdma-core examples, perftest and rdmacm-utils
# (Debian's packages, unpacked into the image, not installed here). An image
# from before perftest (no tools list naming ib_send_bw) is rebuilt.
guest_dir="$sdk_root/guest"
guest_complete() {
	[ -s "$guest_dir/vmlinuz" ] && [ -s "$guest_dir/initrd.img" ] && [ -s "$guest_dir/stamp" ] &&
		grep -qx ib_send_bw "$guest_dir/tools" 2>/dev/null &&
		grep -qx rping "$guest_dir/tools" 2>/dev/null
}

# The E4 firmware (net_e4's loader and tests): firmware-qlogic 20230210-5
# (bookworm), its .deb pinned by SHA-256; licence binary-redist-QLogic-3, so
# it is fetched here and never committed.
fw_dir="$sdk_root/firmware-qlogic"
fw_file="$fw_dir/lib/firmware/qed/qed_init_values_zipped-8.42.2.0.bin"
fw_version=20230210-5
fw_deb_sha256=2c1a254d2c496ef0be29d5eeb016113825785b13ca87ec5e3246bd109ff61897
fw_complete() {
	[ -s "$fw_file" ]
}

# apt-get with only Debian's non-free-firmware component of bookworm, its
# lists and cache in $1 (nothing of the system's apt state is touched).
fw_apt() {
	local work=$1
	shift
	apt-get -q -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$work/sources" \
		-o Dir::State::Lists="$work/lists" -o Dir::Cache="$work/cache" "$@"
}

fetch_firmware() (
	work=$(mktemp -d /var/tmp/omniplane-fw.XXXXXX)
	trap 'rm -rf "$work"' EXIT
	mkdir -p "$work/sources" "$work/lists/partial" "$work/cache/archives/partial" "$work/deb"
	# apt downloads as its sandbox user when there is one
	chmod 755 "$work"
	if id _apt >/dev/null 2>&1; then
		chown _apt "$work/lists/partial" "$work/cache/archives/partial" "$work/deb"
	fi
	cat > "$work/sources/debian-non-free-firmware.sources" <<-EOF
		Types: deb
		URIs: http://deb.debian.org/debian
		Suites: bookworm
		Components: non-free-firmware
		Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	EOF
	log "fetching firmware-qlogic from Debian's non-free-firmware component"
	fw_apt "$work" update >/dev/null
	(cd "$work/deb" && fw_apt "$work" download "firmware-qlogic=$fw_version" >/dev/null)
	deb=$(ls "$work"/deb/firmware-qlogic_*.deb)
	sum=$(sha256sum "$deb" | cut -d' ' -f1)
	if [ "$sum" != "$fw_deb_sha256" ]; then
		echo "setup: $(basename "$deb"): SHA-256 $sum, expected $fw_deb_sha256: refused" >&2
		exit 1
	fi
	mkdir -p "$sdk_root"
	rm -rf "$fw_dir.tmp"
	dpkg-deb -x "$deb" "$fw_dir.tmp"
	rm -rf "$fw_dir"
	mv "$fw_dir.tmp" "$fw_dir"
	log "E4 firmware: unpacked in $fw_dir"
)

ensure_firmware() {
	if fw_complete; then
		log "E4 firmware: present in $fw_dir"
	else
		fetch_firmware
	fi
}

check_only() {
	local rc=0 miss
	miss=$(missing_packages)
	if [ -n "$miss" ]; then
		log "missing packages: $(echo $miss)"
		rc=1
	fi
	if [ -z "$(dpdk_upstream_version)" ] || ! sdk_complete; then
		log "missing DPDK driver-SDK headers in $sdk_root"
		rc=1
	fi
	if ! guest_complete; then
		log "missing the test guest's kernel and initramfs (with perftest) in $guest_dir"
		rc=1
	fi
	if fw_complete; then
		log "E4 firmware: $fw_file"
	else
		log "missing the E4 firmware (firmware-qlogic) in $fw_dir"
		rc=1
	fi
	return $rc
}

if [ "${1:-}" = "--check" ]; then
	check_only
	exit $?
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "setup: must run as root (it installs packages and sets up hugepages)" >&2
	exit 1
fi

if [ "${1:-}" = "--firmware" ]; then
	ensure_firmware
	exit 0
fi

export DEBIAN_FRONTEND=noninteractive

# apt lists: refresh once per setup run when anything must be installed.
apt_updated=0
apt_update() {
	if [ $apt_updated -eq 0 ]; then
		log "apt-get update"
		apt-get update -qq
		apt_updated=1
	fi
}

# 1. packages
miss=$(missing_packages)
if [ -n "$miss" ]; then
	apt_update
	log "installing: $(echo $miss)"
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $miss >/dev/null
else
	log "packages: all present"
fi

# 2. driver-SDK headers from Debian's dpdk source package
ensure_deb_src() {
	if apt-get source --print-uris dpdk >/dev/null 2>&1; then
		return 0
	fi
	local f=/etc/apt/sources.list.d/omniplane-deb-src.sources
	log "adding deb-src entries ($f)"
	: > "$f.tmp"
	local s
	for s in /etc/apt/sources.list.d/*.sources; do
		[ -e "$s" ] || continue
		[ "$s" = "$f" ] && continue
		# Only Debian's own archives carry the dpdk source package.
		grep -q 'debian' "$s" || continue
		sed -n -e 's/^Types: deb$/Types: deb-src/' -e '/^#/d' -e p "$s" >> "$f.tmp"
		echo >> "$f.tmp"
	done
	if [ -f /etc/apt/sources.list ]; then
		sed -n -e 's/^deb \(.*debian.*\)$/deb-src \1/p' /etc/apt/sources.list > \
			/etc/apt/sources.list.d/omniplane-deb-src.list
	fi
	mv "$f.tmp" "$f"
	apt_updated=0
	apt_update
}

if sdk_complete; then
	log "DPDK driver-SDK headers: present in $(sdk_dir)"
else
	debver=$(dpkg-query -W -f='${Version}\n' libdpdk-dev)
	ensure_deb_src
	work=$(mktemp -d /var/tmp/omniplane-dpdk-src.XXXXXX)
	trap 'rm -rf "$work"' EXIT
	log "fetching Debian source package dpdk=$debver"
	(cd "$work" && apt-get source -qq --download-only "dpdk=$debver" >/dev/null)
	dsc=$(ls "$work"/dpdk_*.dsc)
	(cd "$work" && dpkg-source -q -x "$dsc" src >/dev/null)
	dest=$(sdk_dir)
	mkdir -p "$dest.tmp"
	for h in "${sdk_headers[@]}"; do
		cp "$work/src/$h" "$dest.tmp/"
	done
	rm -rf "$dest"
	mv "$dest.tmp" "$dest"
	log "DPDK driver-SDK headers: installed in $dest"
fi

# 3. the test guest, from Debian packages downloaded and unpacked (never
# installed); guest-image.sh skips it when it is up to date
# Best effort: without it only system_qemu_guest fails (and says why); every
# other suite, the demo and the benchmarks still run.
if ! guest_complete; then
	apt_update
	"$top/scripts/guest-image.sh" "$guest_dir" ||
		log "WARNING: the test guest could not be built (system_qemu_guest will fail)"
fi

# 4. hugepages (best effort: containers and some VMs do not allow them)
hp_sys=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
want_pages=${OMNIPLANE_HUGEPAGES:-1024}
if [ -w "$hp_sys" ] && [ "$(cat "$hp_sys")" -lt "$want_pages" ]; then
	echo "$want_pages" > "$hp_sys" 2>/dev/null || true
fi
if ! mountpoint -q /dev/hugepages 2>/dev/null; then
	mkdir -p /dev/hugepages 2>/dev/null || true
	mount -t hugetlbfs -o pagesize=2M nodev /dev/hugepages 2>/dev/null || true
fi
have_pages=$(cat "$hp_sys" 2>/dev/null || echo 0)
if [ "$have_pages" -gt 0 ] && mountpoint -q /dev/hugepages; then
	log "hugepages: $have_pages x 2 MB, hugetlbfs on /dev/hugepages"
else
	log "hugepages: not available on this kernel; runs fall back to --no-huge"
fi

# 5. the E4 firmware files
ensure_firmware
log "done"
