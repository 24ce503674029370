#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# Builds the rxe test guest: OUT_DIR/vmlinuz (Debian's current 6.1 kernel)
# and OUT_DIR/initrd.img (a gzip cpio busybox initramfs holding the virtio,
# ib_core and rdma_rxe modules, ibv_devinfo, ibv_{rc,ud}_pingpong, the librxe
# provider, iproute2's ip and rdma, and a generated /init).
#
# Packages are fetched with `apt-get download` and unpacked with `dpkg-deb -x`
# into a scratch dir under /var/tmp; nothing is installed on the host. The
# build is skipped when OUT_DIR/stamp matches (this script + package versions).
# OUT_DIR/tools lists the programs in the image.
#
# /init reads the kernel command line (see scripts/guest-run.sh):
#   omni.ip=A.B.C.D/NN   address for eth0
#   omni.mgmt=A.B.C.D/NN address for eth1, a second NIC for the tests' TCP
#                        exchanges (guest-run.sh GUEST_MGMT=user)
#   omni.neigh=IP,MAC    static neighbour entry (may repeat)
#   omni.ping=IP         ping -c 5 -W 2 IP
#   omni.rc=IP:PORT      ibv_rc_pingpong client (-g 1 -n 100 -s 4096) on rxe0
#   omni.ud=IP:PORT      ibv_ud_pingpong client (-g 1 -n 100 -s 1024) on rxe0
#   omni.perf=CMD,ARG,.. a command with its arguments, commas for spaces (e.g.
#                        ib_send_bw,-d,rxe0,-x,1,-n,200,10.0.0.254); may repeat:
#                        run in order after the others as perf1, perf2, ...
#   omni.pargs=ARG,...   arguments put after the command name of every omni.perf
#                        (the kernel command line holds 2048 characters)
#   omni.wait=SECONDS    pause before the tests (default 0)
#   omni.tmo=SECONDS     time limit of each test (default 120)
# It prints "OMNI-RESULT <ping|rc|ud|perfN> <exit status>" per test (143: killed
# at omni.tmo), the rxe hw_counters, then "OMNI-DONE", and powers off
# whatever happened.
#
# Usage: scripts/guest-image.sh OUT_DIR
set -euo pipefail

if [ $# -ne 1 ]; then
	echo "usage: $0 OUT_DIR" >&2
	exit 2
fi
out=$1
self=$(readlink -f "$0")
log() { echo "guest-image: $*"; }
die() { echo "guest-image: error: $*" >&2; exit 1; }

# Modules for /init, dependencies are added from modules.dep. crc32_generic
# must be loaded before rdma_rxe (rxe's ICRC uses the crypto "crc32" hash,
# and nothing would autoload it here).
modules="virtio virtio_ring virtio_pci virtio_pci_modern_dev
	virtio_pci_legacy_dev failover net_failover virtio_net crc32_generic
	udp_tunnel ip6_udp_tunnel ib_core ib_uverbs rdma_rxe rdma_ucm"
# Libraries the binaries need beyond libc6/zlib1g (always on Debian), so a
# minimal host need not have them installed.
libpkgs=(libnl-3-200 libnl-route-3-200 libmnl0 libbsd0 libmd0 libcap2
	libbpf1 libelf1 librdmacm1 libibumad3 libpci3)
arch_lib=usr/lib/x86_64-linux-gnu

# apt_update: refresh the package lists, once; fails when already done.
apt_updated=0
apt_update() {
	[ $apt_updated -eq 0 ] || return 1
	apt_updated=1
	log "package lists look incomplete: apt-get update"
	apt-get update -qq || die "apt-get update failed"
}

# The image package that the metapackage linux-image-amd64 points to.
kernel_pkg() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-6\.1\.[^ ]*-amd64\)$/\1/p' | head -n 1
}
kpkg=$(kernel_pkg)
if [ -z "$kpkg" ]; then
	apt_update
	kpkg=$(kernel_pkg)
fi
[ -n "$kpkg" ] || die "cannot resolve linux-image-amd64 to a linux-image-6.1.*-amd64 package"
kver=${kpkg#linux-image-}
pkgs=("$kpkg" busybox-static ibverbs-utils libibverbs1 ibverbs-providers iproute2
	perftest rdmacm-utils "${libpkgs[@]}")

# The exact .deb files apt would fetch: they (and this script) make the stamp.
# Running as root, apt would drop to user _apt, which cannot write our dir.
aptdl=(apt-get download -q -o APT::Sandbox::User=root)
if ! uris=$("${aptdl[@]}" --print-uris "${pkgs[@]}" 2>/dev/null); then
	apt_update || true
	uris=$("${aptdl[@]}" --print-uris "${pkgs[@]}" 2>&1) ||
		die "cannot download some of: ${pkgs[*]}
$(grep -v "^'" <<<"$uris")"
fi
stamp=$( (cat "$self"; echo "$uris" | awk '{print $2}' | sort) | sha256sum | cut -c1-64)
if [ -f "$out/stamp" ] && [ "$(cat "$out/stamp")" = "$stamp" ] &&
	[ -f "$out/vmlinuz" ] && [ -f "$out/initrd.img" ] && [ -f "$out/tools" ]; then
	log "$out is up to date ($kpkg)"
	exit 0
fi

work=$(mktemp -d /var/tmp/guest-work-build.XXXXXX)
trap 'rm -rf "$work"' EXIT
x=$work/x       # every package, unpacked
root=$work/root # the initramfs tree
mkdir -p "$work/deb" "$x"

log "downloading: ${pkgs[*]}"
(cd "$work/deb" && "${aptdl[@]}" "${pkgs[@]}" >"$work/apt.log" 2>&1) || {
	cat "$work/apt.log" >&2
	die "apt-get download failed for some of: ${pkgs[*]}"
}
for d in "$work"/deb/*.deb; do
	dpkg-deb -x "$d" "$x"
done
bb=$x/bin/busybox
[ -x "$bb" ] || die "busybox-static did not provide /bin/busybox"

log "initramfs tree"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,$arch_lib/libibverbs,lib64,etc/libibverbs.d,proc,sys,dev,tmp,lib/modules/omni}
ln -s ../usr/lib/x86_64-linux-gnu "$root/lib/x86_64-linux-gnu"
cp "$bb" "$root/bin/busybox"
cp "$x/bin/ip" "$root/sbin/ip"     # busybox ip has no "neigh replace"
cp "$x/usr/bin/rdma" "$root/usr/bin/rdma"
for b in ibv_devinfo ibv_devices ibv_rc_pingpong ibv_ud_pingpong; do
	cp "$x/usr/bin/$b" "$root/usr/bin/$b"
done
# perftest (ib_send_bw, ib_write_bw, ib_read_bw, ib_atomic_bw, the _lat
# variants, raw_ethernet_*) and rdmacm-utils (rping, ucmatose, udaddy, ...):
# every program the two packages ship
for p in perftest rdmacm-utils; do
	dpkg-deb -c "$work"/deb/"${p}"_*.deb | awk '$6 ~ /^\.\/usr\/bin\/./ {print $6}' |
		while read -r b; do
			cp "$x/${b#./}" "$root/usr/bin/"
		done
done
[ -x "$root/usr/bin/ib_send_bw" ] && [ -x "$root/usr/bin/rping" ] ||
	die "perftest or rdmacm-utils did not provide ib_send_bw and rping"
# the programs in the image, one per line (scripts/setup.sh --check reads it)
ls "$root/usr/bin" >"$work/tools"
# libibverbs reads /etc/libibverbs.d/*.driver and dlopens the provider from
# its private directory.
cp "$x/etc/libibverbs.d/rxe.driver" "$root/etc/libibverbs.d/"
cp "$x/$arch_lib"/libibverbs/librxe-rdmav*.so "$root/$arch_lib/libibverbs/"

log "shared libraries"
# ldd with the unpacked tree first; host copies (same Debian 12) for the rest.
elfs=("$root"/sbin/ip "$root"/usr/bin/* "$root/$arch_lib"/libibverbs/*.so)
deps=$(for f in "${elfs[@]}"; do
	# (a shell script among the tools is no dynamic executable: skipped)
	LD_LIBRARY_PATH=$x/$arch_lib:$x/lib/x86_64-linux-gnu ldd "$f" 2>/dev/null || true
done)
if grep -q 'not found' <<<"$deps"; then
	die "unresolved libraries: $(grep 'not found' <<<"$deps" | sort -u | tr -s ' \t\n' ' ')"
fi
awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' <<<"$deps" |
	sort -u | while read -r l; do
	case $l in
	*/ld-linux-x86-64.so.2) cp -L "$l" "$root/lib64/" ;;
	*) cp -L "$l" "$root/$arch_lib/" ;;
	esac
done

# glibc dlopens libgcc_s.so.1 to unwind a thread in pthread_exit() or a
# cancellation (no ldd dependency): without it rping aborts as its threads end
# ("libgcc_s.so.1 must be installed for pthread_exit to work"). The host's
# (Debian 12, as the rest).
cp -L "/$arch_lib/libgcc_s.so.1" "$root/$arch_lib/" ||
	die "no /$arch_lib/libgcc_s.so.1 (libgcc-s1) to copy"

# Busybox applets for everything not provided above.
for a in $("$bb" --list-full); do
	[ -e "$root/$a" ] || ln -s /bin/busybox "$root/$a"
done

log "kernel $kver modules"
cp "$x/boot/vmlinuz-$kver" "$work/vmlinuz"
mdir=$x/lib/modules/$kver
# The .deb ships no modules.dep (depmod runs at install): busybox's depmod
# writes one into the unpacked tree.
"$bb" depmod -b "$x" "$kver"
declare -A mpath mdeps seen
while IFS=: read -r p d; do
	n=${p##*/}
	n=${n%%.ko*}
	mpath[${n//-/_}]=$p
	mdeps[${n//-/_}]=$d
done <"$mdir/modules.dep"
order=()
# visit NAME: append NAME to order after its dependencies.
visit() {
	local m=$1 d
	[ -z "${seen[$m]:-}" ] || return 0
	seen[$m]=1
	if [ -z "${mpath[$m]:-}" ]; then
		grep -q "/${m}.ko" "$mdir/modules.builtin" ||
			die "module $m is neither a module nor built into $kver"
		log "  $m is built in"
		return 0
	fi
	for d in ${mdeps[$m]}; do
		d=${d##*/}
		d=${d%%.ko*}
		visit "${d//-/_}"
	done
	order+=("$m")
}
for m in $modules; do
	visit "$m"
done
for m in "${order[@]}"; do
	# busybox insmod cannot read compressed modules: store them plain.
	src=$mdir/${mpath[$m]}
	dst=$root/lib/modules/omni/$m.ko
	case $src in
	*.ko) cp "$src" "$dst" ;;
	*.ko.xz) "$bb" xzcat "$src" >"$dst" ;;
	*.ko.gz) gzip -dc "$src" >"$dst" ;;
	*.ko.zst) zstd -qdc "$src" >"$dst" ;;
	*) die "unknown module format: $src" ;;
	esac
done
log "  load order: ${order[*]}"

# /init: a busybox sh script with no "set -e" and no shell fallback; every
# step may fail and the script still reaches OMNI-DONE and poweroff.
{
	echo '#!/bin/sh'
	echo "# Generated by scripts/guest-image.sh for $kver."
	echo "modules=\"${order[*]}\""
	cat <<'EOF'
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
[ -c /dev/console ] && exec </dev/console >/dev/console 2>&1
stty -onlcr 2>/dev/null # plain \n line ends in the caller's LOG
say() { echo "omni-init: $*"; }
# Debian's busybox sh runs its own applets before PATH: name iproute2's ip
# explicitly (busybox ip cannot "neigh replace").
ip() { /sbin/ip "$@"; }

addr='' mgmt='' neighs='' ping_ip='' rc='' ud='' perfs='' pargs='' wait_s=0 tmo=120
# shellcheck disable=SC2013 # words, not lines
for w in $(cat /proc/cmdline); do
	case $w in
	omni.ip=*) addr=${w#*=} ;;
	omni.mgmt=*) mgmt=${w#*=} ;;
	omni.neigh=*) neighs="$neighs ${w#*=}" ;;
	omni.ping=*) ping_ip=${w#*=} ;;
	omni.rc=*) rc=${w#*=} ;;
	omni.ud=*) ud=${w#*=} ;;
	omni.perf=*) perfs="$perfs ${w#*=}" ;;
	omni.pargs=*) pargs=${w#*=} ;;
	omni.wait=*) wait_s=${w#*=} ;;
	omni.tmo=*) tmo=${w#*=} ;;
	esac
done
say "kernel $(uname -r), cmdline: $(cat /proc/cmdline)"

for m in $modules; do
	insmod "/lib/modules/omni/$m.ko" || say "insmod $m failed"
done

ip link set lo up
ip link set eth0 up || say "eth0 missing"
# Wait for carrier, and for operstate "up", which the kernel sets about 1 s
# after carrier (linkwatch); only then is the link fully ready.
i=0
while [ $i -lt 20 ] && [ "$(cat /sys/class/net/eth0/operstate 2>/dev/null)" != up ]; do
	sleep 0.5
	i=$((i + 1))
done
say "eth0 carrier: $(cat /sys/class/net/eth0/carrier 2>/dev/null || echo unknown)" \
	"operstate: $(cat /sys/class/net/eth0/operstate 2>/dev/null || echo unknown)"
[ -z "$addr" ] || ip addr add "$addr" dev eth0 || say "ip addr add $addr failed"
if [ -n "$mgmt" ]; then
	# the out-of-band network (QEMU user mode): rxe stays on eth0
	ip link set eth1 up && ip addr add "$mgmt" dev eth1 || say "eth1 $mgmt failed"
	ip -br addr show dev eth1
fi
for n in $neighs; do
	ip neigh replace "${n%%,*}" lladdr "${n#*,}" dev eth0 nud permanent ||
		say "neighbour $n failed"
done
ip neigh show dev eth0

if [ -n "$rc$ud$perfs" ]; then
	rdma link add rxe0 type rxe netdev eth0 || say "rdma link add failed"
	i=0
	state=down
	while [ $i -lt 10 ]; do
		if [ -d /sys/class/infiniband/rxe0 ] &&
			ibv_devinfo -d rxe0 2>/dev/null | grep -q PORT_ACTIVE; then
			state=PORT_ACTIVE
			break
		fi
		sleep 1
		i=$((i + 1))
	done
	say "rxe0 state: $state"
	[ $state = PORT_ACTIVE ] || ibv_devinfo -d rxe0
	ibv_devinfo -v -d rxe0 2>&1 | grep -i gid
fi

[ "$wait_s" = 0 ] || { say "waiting $wait_s s"; sleep "$wait_s"; }
ip -br link show dev eth0
ip -br addr show dev eth0

# run NAME CMD...: the command's output, then one OMNI-RESULT line.
run() {
	name=$1
	shift
	say "$name: $*"
	timeout "$tmo" "$@"
	echo "OMNI-RESULT $name $?"
}
[ -z "$ping_ip" ] || run ping ping -c 5 -W 2 "$ping_ip"
[ -z "$rc" ] || run rc ibv_rc_pingpong -d rxe0 -g 1 -p "${rc##*:}" -n 100 -s 4096 "${rc%:*}"
[ -z "$ud" ] || run ud ibv_ud_pingpong -d rxe0 -g 1 -p "${ud##*:}" -n 100 -s 1024 "${ud%:*}"
k=0
for p in $perfs; do
	k=$((k + 1))
	# shellcheck disable=SC2046 # the commas become words
	set -- $(echo "$p" | tr ',' ' ')
	c=$1
	shift
	# shellcheck disable=SC2046
	run "perf$k" "$c" $(echo "$pargs" | tr ',' ' ') "$@"
done

for f in /sys/class/infiniband/rxe0/ports/1/hw_counters/*; do
	[ -f "$f" ] && echo "${f##*/} $(cat "$f")"
done
echo OMNI-DONE
sync
poweroff -f
EOF
} >"$root/init"
chmod 755 "$root/init"

log "packing"
(cd "$root" && find . | LC_ALL=C sort | "$bb" cpio -o -H newc -R 0:0 2>/dev/null) |
	gzip -9 >"$work/initrd.img"
mkdir -p "$out"
rm -f "$out/stamp"
mv "$work/vmlinuz" "$work/initrd.img" "$work/tools" "$out/"
echo "$stamp" >"$out/stamp"
log "done: $out/vmlinuz ($(du -h "$out/vmlinuz" | cut -f1)), $out/initrd.img ($(du -h "$out/initrd.img" | cut -f1))"
